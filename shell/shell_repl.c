/*
 * shell_repl.c - sessions and their input: statements from a string, a stream, or an
 * interactive terminal with libedit (prompt `strata(main):NNN:0> `, history in
 * ~/.strata_history), and `exit` / `quit`.
 *
 * Per statement: split the line at ';' -> parse -> exit/quit, or dispatch. A failure
 * (syntax, unknown command, failed command) ends a non-interactive run with status 1;
 * an interactive one goes on.
 *
 * Thread-safety: a session belongs to one thread.
 */
#include <editline/readline.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "common/status.h"
#include "shell/shell_internal.h"

#define HISTORY_MAX 1000

static char *dup_or_null(const char *s)
{
    return s && s[0] ? strdup(s) : NULL;
}

static int64_t or_default(int64_t v, int64_t def)
{
    return v > 0 ? v : def;
}

int shell_open(const shell_config *c, FILE *out, FILE *err, shell_session **sp)
{
    shell_session *s = calloc(1, sizeof(*s));
    if (!s)
        return st_error(ST_NOMEM, "out of memory");
    s->cfg = *c;
    s->cfg.quorum = dup_or_null(c->quorum);
    s->cfg.parent = dup_or_null(c->parent);
    s->cfg.history_file = dup_or_null(c->history_file);
    s->cfg.admin_timeout_ms = or_default(c->admin_timeout_ms, 60000);
    s->cfg.operation_timeout_ms = or_default(c->operation_timeout_ms, 60000);
    s->cfg.rpc_timeout_ms = or_default(c->rpc_timeout_ms, 10000);
    s->cfg.connect_timeout_ms = or_default(c->connect_timeout_ms, 10000);
    s->out = out;
    s->err = err;
    struct winsize ws;
    if (isatty(fileno(out)) && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        s->width = ws.ws_col;
    *sp = s;
    return ST_OK;
}

void shell_close(shell_session *s)
{
    if (!s)
        return;
    strata_client_close(s->client);
    strata_admin_close(s->admin);
    free((char *)s->cfg.quorum);
    free((char *)s->cfg.parent);
    free((char *)s->cfg.history_file);
    free(s);
}

/* exit / quit [status]: the status, or SHELL_CONTINUE with the error reported. */
static int exit_status(shell_session *s, const shell_stmt *st)
{
    int64_t code = 0;
    int rc = shell_nargs(&st->args, 0, 1);
    if (rc == ST_OK && st->args.n == 1)
        rc = shell_int_value(&st->args.items[0], "exit status", &code);
    if (rc == ST_OK)
        return (int)(code & 0xFF);
    fprintf(s->cfg.interactive ? s->out : s->err, "ERROR: %s\n", st_errmsg());
    return s->cfg.interactive ? SHELL_CONTINUE : 1;
}

/* One statement: SHELL_CONTINUE, or the status to stop with. */
static int run_stmt(shell_session *s, const char *text)
{
    shell_stmt st;
    if (shell_parse_stmt(text, &st) != ST_OK) {
        fprintf(s->cfg.interactive ? s->out : s->err, "ERROR: %s\n", st_errmsg());
        return s->cfg.interactive ? SHELL_CONTINUE : 1;
    }
    int result = SHELL_CONTINUE;
    if (st.name && (strcmp(st.name, "exit") == 0 || strcmp(st.name, "quit") == 0))
        result = exit_status(s, &st);
    else if (st.name && shell_dispatch(s, &st) != ST_OK && !s->cfg.interactive)
        result = 1;
    shell_stmt_free(&st);
    return result;
}

static int run_line(shell_session *s, const char *line)
{
    char **stmts = NULL;
    size_t n = 0;
    if (shell_split_stmts(line, &stmts, &n) != ST_OK) {
        fprintf(s->err, "ERROR: %s\n", st_errmsg());
        return 1;
    }
    int result = SHELL_CONTINUE;
    for (size_t i = 0; i < n && result == SHELL_CONTINUE; i++)
        result = run_stmt(s, stmts[i]);
    shell_split_free(stmts, n);
    return result;
}

int shell_run_text(shell_session *s, const char *text)
{
    int result = SHELL_CONTINUE;
    const char *p = text;
    while (result == SHELL_CONTINUE && *p) {
        size_t len = strcspn(p, "\n");
        char *line = strndup(p, len);
        if (!line)
            return 1;
        result = run_line(s, line);
        free(line);
        p += len + (p[len] == '\n');
    }
    return result;
}

int shell_run_stream(shell_session *s, FILE *in)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int result = SHELL_CONTINUE;
    while (result == SHELL_CONTINUE && (n = getline(&line, &cap, in)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        result = run_line(s, line);
    }
    free(line);
    return result;
}

/* ---- interactive ---- */

static char *history_path(shell_session *s)
{
    if (s->cfg.history_file)
        return strdup(s->cfg.history_file);
    const char *home = getenv("HOME");
    char *p = NULL;
    if (home && home[0] && asprintf(&p, "%s/.strata_history", home) < 0)
        p = NULL;
    return p;
}

/* Tab completion of command names at the start of a line. */
static char *complete_command(const char *text, int state)
{
    static const shell_command *const *tables;
    static size_t t, i;
    static const shell_command *const all[] = {shell_cmds_general, shell_cmds_ddl,
                                               shell_cmds_namespace, shell_cmds_dml,
                                               shell_cmds_regions};
    if (state == 0) {
        tables = all;
        t = i = 0;
    }
    size_t len = strlen(text);
    for (; t < sizeof(all) / sizeof(all[0]); t++, i = 0)
        for (; tables[t][i].name; i++)
            if (strncmp(tables[t][i].name, text, len) == 0)
                return strdup(tables[t][i++].name);
    return NULL;
}

static char **completion(const char *text, int start, int end)
{
    (void)end;
    rl_attempted_completion_over = 1;
    return start == 0 ? rl_completion_matches(text, complete_command) : NULL;
}

int shell_run_interactive(shell_session *s)
{
    char *hist = history_path(s);
    char prompt[64];
    int result = SHELL_CONTINUE;
    using_history();
    stifle_history(HISTORY_MAX);
    if (hist)
        read_history(hist);
    rl_attempted_completion_function = completion;
    fprintf(s->out,
            "Strata Shell\n"
            "Use \"help\" to get list of supported commands.\n"
            "Use \"exit\" to quit this interactive shell.\n"
            "Version %s, rUnknown, %s\n",
            SHELL_VERSION, __DATE__);
    while (result == SHELL_CONTINUE) {
        snprintf(prompt, sizeof(prompt), "strata(main):%03d:0> ", ++s->line_no);
        fflush(s->out);
        char *line = readline(prompt);
        if (!line) {
            fputc('\n', s->out);
            break;
        }
        if (line[strspn(line, " \t")])
            add_history(line);
        result = run_line(s, line);
        free(line);
    }
    if (hist)
        write_history(hist);
    free(hist);
    return result == SHELL_CONTINUE ? 0 : result;
}
