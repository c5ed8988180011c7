/*
 * shell_commands.c - the command table, `help` in HBase's layout (groups, per-command
 * and per-group help), and the dispatcher that runs one statement: timing ("Took
 * S.SSSS seconds"), SIGINT while it runs, the refusal of writes to the read-only catalog
 * (strata:meta), and the "ERROR: ..." report.
 *
 * Thread-safety: a session belongs to one thread; shell_interrupted is written by the
 * SIGINT handler only while a command runs.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/status.h"
#include "shell/shell_internal.h"

volatile sig_atomic_t shell_interrupted;

static const shell_command *const TABLES[] = {
    shell_cmds_general, shell_cmds_ddl,     shell_cmds_namespace,
    shell_cmds_dml,     shell_cmds_regions, shell_cmds_procs, shell_cmds_tableref,
    shell_cmds_servers};
#define NTABLES (sizeof(TABLES) / sizeof(TABLES[0]))

static const char *const GROUPS[] = {"general", "ddl", "namespace", "dml", "tools", "procedures"};
#define NGROUPS (sizeof(GROUPS) / sizeof(GROUPS[0]))

static const char *const GROUP_TITLES[] = {"general commands", "table definition (DDL) commands",
                                           "namespace commands", "data manipulation (DML) commands",
                                           "administration tools", "procedures"};

const shell_command *shell_find_command(const char *name)
{
    for (size_t t = 0; t < NTABLES; t++)
        for (const shell_command *c = TABLES[t]; c->name; c++)
            if (strcmp(c->name, name) == 0)
                return c;
    return NULL;
}

/* The help text of c (an alias without its own takes its target's). */
static const char *help_of(const shell_command *c)
{
    if (c->help)
        return c->help;
    if (strcmp(c->name, "desc") == 0) {
        const shell_command *d = shell_find_command("describe");
        return d ? d->help : "";
    }
    return "";
}

/* ---- help ---- */

static const char USAGE[] =
    "SHELL USAGE:\n"
    "Quote all names in the Strata shell such as table and column names.  Commas delimit\n"
    "command parameters.  Type <RETURN> after entering a command to run it; ';' separates\n"
    "several commands on one line and '#' starts a comment.\n"
    "Dictionaries of configuration used in the creation and alteration of tables are\n"
    "Ruby Hashes. They look like this:\n"
    "\n"
    "  {'key1' => 'value1', 'key2' => 'value2', ...}\n"
    "\n"
    "and are opened and closed with curley-braces.  Key/values are delimited by the\n"
    "'=>' character combination.  Usually keys are predefined constants such as\n"
    "NAME, VERSIONS, COMPRESSION, etc.  Constants do not need to be quoted.\n"
    "\n"
    "If you are using binary keys or values and need to enter them in the shell, use\n"
    "double-quote'd hexadecimal representation. For example:\n"
    "\n"
    "  strata> get 't1', \"key\\x03\\x3f\\xcd\"\n"
    "  strata> get 't1', \"key\\003\\023\\011\"\n"
    "  strata> put 't1', \"test\\xef\\xff\", 'f1:', \"\\x01\\x33\\x40\"\n"
    "\n"
    "Filters are strings in HBase's filter language, e.g.\n"
    "\"PrefixFilter('u1') AND ValueFilter(=, 'binary:x')\".\n"
    "The full documentation is docs/shell.md.\n";

static void group_commands(shell_session *s, const char *group)
{
    const char *names[128];
    size_t n = 0;
    for (size_t t = 0; t < NTABLES; t++)
        for (const shell_command *c = TABLES[t]; c->name && n < 128; c++)
            if (strcmp(c->group, group) == 0 && c->help)
                names[n++] = c->name;
    for (size_t i = 1; i < n; i++) /* insertion sort: a few dozen names */
        for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            const char *x = names[j];
            names[j] = names[j - 1];
            names[j - 1] = x;
        }
    fprintf(s->out, "  Commands: ");
    for (size_t i = 0; i < n; i++)
        fprintf(s->out, "%s%s", i ? ", " : "", names[i]);
    fprintf(s->out, "\n");
}

static void help_all(shell_session *s)
{
    fprintf(s->out,
            "Strata Shell, version %s\n"
            "Type 'help \"COMMAND\"', (e.g. 'help \"get\"' -- the quotes are necessary) for help "
            "on a specific command.\n"
            "Commands are grouped. Type 'help \"COMMAND_GROUP\"', (e.g. 'help \"general\"') for "
            "help on a command group.\n\n"
            "COMMAND GROUPS:\n",
            SHELL_VERSION);
    for (size_t g = 0; g < NGROUPS; g++) {
        fprintf(s->out, "  Group name: %s\n", GROUPS[g]);
        group_commands(s, GROUPS[g]);
        fprintf(s->out, "\n");
    }
    fputs(USAGE, s->out);
}

static bool help_group(shell_session *s, const char *group)
{
    size_t g = 0;
    while (g < NGROUPS && strcmp(GROUPS[g], group) != 0)
        g++;
    if (g == NGROUPS)
        return false;
    fprintf(s->out, "Command group: %s (%s)\n\n", group, GROUP_TITLES[g]);
    for (size_t t = 0; t < NTABLES; t++)
        for (const shell_command *c = TABLES[t]; c->name; c++)
            if (strcmp(c->group, group) == 0 && c->help)
                fprintf(s->out, "Command: %s\n%s\n", c->name, c->help);
    return true;
}

static int cmd_help(shell_session *s, const shell_value *args)
{
    const shell_value *what = NULL;
    int rc = shell_nargs(args, 0, 1);
    if (rc == ST_OK && args->n == 0) {
        help_all(s);
        return ST_OK;
    }
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Command or group name", &what);
    if (rc != ST_OK)
        return rc;
    const shell_command *c = shell_find_command(what->s);
    if (c) {
        fputs(help_of(c), s->out);
        return ST_OK;
    }
    const shell_absent *absent = shell_find_absent(what->s);
    if (absent) {
        fprintf(s->out, "%s (HBase's group %s) %s: %s\n", absent->name, absent->group,
                absent->kind == SHELL_ABSENT_REFUSED ? "is not supported by Strata"
                                                     : "is not in Strata yet",
                absent->why);
        return ST_OK;
    }
    if (help_group(s, what->s))
        return ST_OK;
    return st_error(ST_NOT_FOUND,
                    "Unknown command or command group '%s'. Type 'help' for the list.", what->s);
}

/* ---- dispatch ---- */

static void on_sigint(int sig)
{
    (void)sig;
    shell_interrupted = 1;
}

/* msg without the RPC layer's "rpc call N Method to host:port: " prefixes, into out. */
static void clean_message(const char *msg, char *out, size_t cap)
{
    size_t n = 0;
    const char *p = msg;
    while (*p && n + 1 < cap) {
        const char *colon = NULL;
        if (strncmp(p, "rpc call ", 9) == 0 && (colon = strstr(p, ": ")) &&
            memmem(p, (size_t)(colon - p), " to ", 4)) {
            p = colon + 2;
            continue;
        }
        out[n++] = *p++;
    }
    out[n] = '\0';
}

static void report_error(shell_session *s, const char *cmd, const char *raw)
{
    char msg[2048];
    clean_message(raw, msg, sizeof(msg));
    if (s->cfg.interactive) {
        fprintf(s->out, "ERROR: %s\n\n", msg);
        if (cmd)
            fprintf(s->out, "For usage try 'help \"%s\"'\n\n", cmd);
    } else {
        fflush(s->out);
        fprintf(s->err, "ERROR: %s\n", msg);
        fflush(s->err);
    }
}

/* Commands that would change the table named by their first argument. */
static const char *const TABLE_WRITES[] = {
    "alter",  "append",   "create", "delete", "deleteall",         "disable", "drop",
    "enable", "incr",     "put",    "split",  "truncate", "truncate_preserve", NULL};

/* The catalog is read-only from the shell: ST_PERMISSION for a write to it. */
static int check_writable(const shell_stmt *st)
{
    const shell_value *a = &st->args;
    if (a->n == 0 || a->items[0].kind != SHELL_V_STR ||
        strcmp(a->items[0].s, SHELL_META_TABLE) != 0)
        return ST_OK;
    for (size_t i = 0; TABLE_WRITES[i]; i++)
        if (strcmp(st->name, TABLE_WRITES[i]) == 0)
            return st_error(ST_PERMISSION, "%s is read-only", SHELL_META_TABLE);
    return ST_OK;
}

int shell_dispatch(shell_session *s, const shell_stmt *st)
{
    bool help = strcmp(st->name, "help") == 0;
    const shell_command *c = help ? NULL : shell_find_command(st->name);
    const shell_absent *absent = help || c ? NULL : shell_find_absent(st->name);
    if (absent) {
        int rc = st_error(ST_UNSUPPORTED, "%s %s: %s", st->name,
                          absent->kind == SHELL_ABSENT_REFUSED ? "is not supported by Strata"
                                                               : "is not in Strata yet",
                          absent->why);
        report_error(s, NULL, st_errmsg());
        return rc;
    }
    if (!help && !c) {
        int rc = st_error(ST_NOT_FOUND,
                          "Unknown command '%s'. Type 'help' for the list of commands.", st->name);
        report_error(s, NULL, st_errmsg());
        return rc;
    }
    struct sigaction sa = {.sa_handler = on_sigint}, old;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old);
    shell_interrupted = 0;
    s->rows = 0;
    s->start_ns = clock_mono_ns();
    st_clear();
    int rc = help ? cmd_help(s, &st->args) : check_writable(st);
    if (rc == ST_OK && !help)
        rc = c->fn(s, &st->args);
    uint64_t end = clock_mono_ns();
    sigaction(SIGINT, &old, NULL);
    if (rc != ST_OK)
        report_error(s, st->name, st_errmsg()[0] ? st_errmsg() : st_strerror(rc));
    if (!help && (rc == ST_OK || s->cfg.interactive))
        fprintf(s->out, "Took %.4f seconds\n", (double)(end - s->start_ns) / 1e9);
    fflush(s->out);
    return rc;
}
