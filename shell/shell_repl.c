/*
 * shell_repl.c - sessions and their input: statements from a string, a stream, or an
 * interactive terminal with libedit (prompt `strata(main):NNN:0> `, history in
 * ~/.strata_history), and `exit` / `quit`.
 *
 * Lines gather until they make whole statements (shell_text_open: a hash, array or string
 * may span lines, as may a line ending in ',' or '=>'); then per statement: split at ';'
 * -> parse (a syntax error names its line and column) -> exit/quit, or dispatch. A
 * failure (syntax, unknown command, failed command) ends a non-interactive run with
 * status 1; an interactive one goes on. The interactive prompt is IRB's:
 * `strata(main):NNN:0> ` for a new statement, `strata(main):NNN:D* ` inside one.
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

/* One statement starting at line `line`, column `col`: SHELL_CONTINUE, or the status to
 * stop with. */
static int run_stmt(shell_session *s, const char *text, int line, int col)
{
    shell_stmt st;
    if (shell_parse_stmt_at(text, line, col, &st) != ST_OK) {
        fprintf(s->cfg.interactive ? s->out : s->err, "ERROR: %s\n", st_errmsg());
        return s->cfg.interactive ? SHELL_CONTINUE : 1;
    }
    int result = SHELL_CONTINUE;
    if (st.name && (strcmp(st.name, "exit") == 0 || strcmp(st.name, "quit") == 0))
        result = exit_status(s, &st);
    else if (st.name && shell_dispatch_stmt(s, &st) != ST_OK && !s->cfg.interactive)
        result = 1;
    shell_stmt_free(&st);
    return result;
}

/* Whole statements (text, which starts at line first_line): split at ';', each run with
 * the line and column it starts at. */
static int run_chunk(shell_session *s, const char *text, int first_line)
{
    char **stmts = NULL;
    size_t n = 0;
    if (shell_split_stmts(text, &stmts, &n) != ST_OK) {
        fprintf(s->err, "ERROR: %s\n", st_errmsg());
        return 1;
    }
    int result = SHELL_CONTINUE;
    size_t off = 0; /* the pieces are text's, in order, each followed by its ';' */
    for (size_t i = 0; i < n && result == SHELL_CONTINUE; i++) {
        int line = first_line, col = 1;
        for (size_t k = 0; k < off; k++) {
            if (text[k] == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        result = run_stmt(s, stmts[i], line, col);
        off += strlen(stmts[i]) + 1;
    }
    shell_split_free(stmts, n);
    return result;
}

/* Lines gathered until they make whole statements (a hash or array may span lines). */
typedef struct pending {
    buf_t text;
    int first_line;
} pending;

/* Adds line number line_no; runs what is gathered once it is whole. *open: what is still
 * open (shell_text_open), for the prompt. */
static int feed_line(shell_session *s, pending *pd, const char *line, int line_no, int *open)
{
    *open = 0;
    if (pd->text.len == 0)
        pd->first_line = line_no;
    else if (buf_append_u8(&pd->text, '\n') != ST_OK)
        return fprintf(s->err, "ERROR: out of memory reading line %d\n", line_no), 1;
    if (buf_append(&pd->text, line, strlen(line)) != ST_OK || buf_append_u8(&pd->text, 0) != ST_OK)
        return fprintf(s->err, "ERROR: out of memory reading line %d\n", line_no), 1;
    pd->text.len--;
    if ((*open = shell_text_open((const char *)pd->text.data)) > 0)
        return SHELL_CONTINUE;
    int result = run_chunk(s, (const char *)pd->text.data, pd->first_line);
    buf_reset(&pd->text);
    return result;
}

/* The end of the input: what is gathered runs as it is (the parser names what is open). */
static int feed_end(shell_session *s, pending *pd, int result)
{
    if (result == SHELL_CONTINUE && pd->text.len > 0)
        result = run_chunk(s, (const char *)pd->text.data, pd->first_line);
    buf_free(&pd->text);
    return result;
}

int shell_run_text(shell_session *s, const char *text)
{
    int result = SHELL_CONTINUE, line_no = 0, open;
    pending pd = {0};
    const char *p = text;
    while (result == SHELL_CONTINUE && *p) {
        size_t len = strcspn(p, "\n");
        char *line = strndup(p, len);
        if (!line) {
            buf_free(&pd.text);
            return 1;
        }
        result = feed_line(s, &pd, line, ++line_no, &open);
        free(line);
        p += len + (p[len] == '\n');
    }
    return feed_end(s, &pd, result);
}

int shell_run_stream(shell_session *s, FILE *in)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int result = SHELL_CONTINUE, line_no = 0, open;
    pending pd = {0};
    while (result == SHELL_CONTINUE && (n = getline(&line, &cap, in)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        result = feed_line(s, &pd, line, ++line_no, &open);
    }
    free(line);
    return feed_end(s, &pd, result);
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
                                               shell_cmds_regions, shell_cmds_procs,
                                               shell_cmds_tableref, shell_cmds_servers};
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
    pending pd = {0};
    int open = 0;
    while (result == SHELL_CONTINUE) {
        /* IRB's prompts: "> " for a new statement, "* " (with the nesting) inside one */
        snprintf(prompt, sizeof(prompt), "strata(main):%03d:%d%s ", ++s->line_no, open,
                 open ? "*" : ">");
        fflush(s->out);
        char *line = readline(prompt);
        if (!line) {
            fputc('\n', s->out);
            break;
        }
        if (line[strspn(line, " \t")])
            add_history(line);
        result = feed_line(s, &pd, line, s->line_no, &open);
        free(line);
    }
    result = feed_end(s, &pd, result);
    if (hist)
        write_history(hist);
    free(hist);
    return result == SHELL_CONTINUE ? 0 : result;
}
