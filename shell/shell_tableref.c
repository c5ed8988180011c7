/*
 * shell_tableref.c - HBase's table references: `t = get_table 't1'` (or `t = create 't1',
 * 'f'`) binds a variable to a table, and `t.put 'r', 'f:q', 'v'` runs put with the table
 * put first, as HBase's Hbase::Table does (table.rb add_shell_command and
 * add_admin_utils): put, get, scan, count, delete, deleteall, incr, append, get_counter,
 * get_splits, enable, disable, flush, drop, describe, and the helpers help, name,
 * get_all_columns, close. A bare `t` prints the reference. The command get_table and
 * table_help live here too.
 *
 * Thread-safety: a session belongs to one thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "shell/shell_internal.h"

const char shell_table_help[] =
    "Help for table-reference commands.\n"
    "\n"
    "You can either create a table via 'create' and then manipulate the table via commands\n"
    "like 'put', 'get', etc. See the standard help information for how to use each of\n"
    "these commands.\n"
    "\n"
    "However, as of 0.96, you can also get a reference to a table, on which you can invoke\n"
    "commands. For instance, you can get create a table and keep around a reference to it\n"
    "via:\n"
    "\n"
    "  strata> t = create 't', 'cf'\n"
    "\n"
    "Or, if you have already created the table, you can get a reference to it:\n"
    "\n"
    "  strata> t = get_table 't'\n"
    "\n"
    "You can do things like call 'put' on the table:\n"
    "\n"
    "  strata> t.put 'r', 'cf:q', 'v'\n"
    "\n"
    "which puts a row 'r' with column family 'cf', qualifier 'q' and value 'v' into table t.\n"
    "\n"
    "To read the data out, you can scan the table:\n"
    "\n"
    "  strata> t.scan\n"
    "\n"
    "which will read all the rows in table 't'.\n"
    "\n"
    "Essentially, any command that takes a table name can also be done via table reference.\n"
    "Other commands include things like: get, delete, deleteall,\n"
    "get_all_columns, get_counter, count, incr. These functions, along with\n"
    "the standard JRuby object methods are also available via tab completion.\n"
    "\n"
    "For more information on how to use each of these commands, you can also just type:\n"
    "\n"
    "  strata> t.help 'scan'\n"
    "\n"
    "which will output more information on how to use that command.\n"
    "\n"
    "You can also do general admin actions directly on a table; things like enable, disable,\n"
    "flush and drop just by typing:\n"
    "\n"
    "  strata> t.enable\n"
    "  strata> t.flush\n"
    "  strata> t.disable\n"
    "  strata> t.drop\n"
    "\n"
    "Note that after dropping a table, your reference to it becomes useless and further usage\n"
    "is undefined (and not recommended).\n";

/* The commands a reference runs with its table first. */
static const char *const TABLE_METHODS[] = {
    "put",  "get",    "scan",    "count", "delete", "deleteall", "incr",     "append",
    "get_counter", "get_splits", "enable", "disable", "flush", "drop", "describe", NULL};

static struct shell_var *find_var(shell_session *s, const char *name)
{
    for (size_t i = s->nvars; i-- > 0;)
        if (strcmp(s->vars[i].name, name) == 0)
            return &s->vars[i];
    return NULL;
}

static int bind_var(shell_session *s, const char *name, const char *table)
{
    struct shell_var *v = find_var(s, name);
    if (!v && s->nvars == SHELL_MAX_VARS)
        return st_error(ST_INVALID_ARGUMENT, "too many table references (at most %d)",
                        SHELL_MAX_VARS);
    if (strlen(name) >= sizeof(v->name) || strlen(table) >= sizeof(v->table))
        return st_error(ST_INVALID_ARGUMENT, "the reference %s to %s is too long", name, table);
    if (!v)
        v = &s->vars[s->nvars++];
    snprintf(v->name, sizeof(v->name), "%s", name);
    snprintf(v->table, sizeof(v->table), "%s", table);
    return ST_OK;
}

/* Runs command name with args: first (a table name; may be NULL) then args' items. */
static int run_with_table(shell_session *s, const char *name, const char *table,
                          const shell_value *args)
{
    size_t n = args->n + (table ? 1 : 0);
    shell_value *items = calloc(n ? n : 1, sizeof(*items));
    if (!items)
        return st_error(ST_NOMEM, "out of memory");
    size_t k = 0;
    if (table)
        items[k++] = (shell_value){.kind = SHELL_V_STR, .s = (char *)table, .len = strlen(table)};
    for (size_t i = 0; i < args->n; i++)
        items[k++] = args->items[i]; /* borrowed: items is freed alone */
    shell_stmt st = {.name = (char *)name, .args = {.kind = SHELL_V_ARRAY, .items = items, .n = n}};
    int rc = shell_dispatch(s, &st);
    free(items);
    return rc;
}

/* A failure of the reference itself, reported as the dispatcher reports one. */
static int ref_error(shell_session *s, int rc)
{
    if (s->cfg.interactive) {
        fprintf(s->out, "ERROR: %s\n\n", st_errmsg());
    } else {
        fflush(s->out);
        fprintf(s->err, "ERROR: %s\n", st_errmsg());
        fflush(s->err);
    }
    return rc;
}

/* t.get_all_columns: ["f1:", "f2:"] as Ruby prints an Array of Strings. */
static int all_columns(shell_session *s, const char *table)
{
    shell_table_info d;
    int rc = shell_describe(s, table, &d);
    if (rc != ST_OK)
        return rc;
    fputc('[', s->out);
    for (size_t i = 0; i < strata_table_descriptor_family_count(d.td); i++)
        fprintf(s->out, "%s\"%s:\"", i ? ", " : "",
                strata_family_descriptor_name(strata_table_descriptor_family(d.td, i)));
    fputs("]\n", s->out);
    shell_table_info_clear(&d);
    return ST_OK;
}

static int method_call(shell_session *s, const shell_stmt *st)
{
    struct shell_var *v = find_var(s, st->receiver);
    if (!v)
        return ref_error(s, st_error(ST_NOT_FOUND,
                                     "undefined local variable or method '%s' (no table "
                                     "reference of that name; t = get_table 'table' makes one)",
                                     st->receiver));
    for (size_t i = 0; TABLE_METHODS[i]; i++)
        if (strcmp(st->name, TABLE_METHODS[i]) == 0)
            return run_with_table(s, st->name, v->table, &st->args);
    if (strcmp(st->name, "help") == 0) {
        if (st->args.n == 0) {
            fputs(shell_table_help, s->out);
            return ST_OK;
        }
        return run_with_table(s, "help", NULL, &st->args);
    }
    int rc = ST_OK;
    if (st->args.n > 0 && (strcmp(st->name, "name") == 0 || strcmp(st->name, "close") == 0 ||
                           strcmp(st->name, "get_all_columns") == 0))
        return ref_error(s, st_error(ST_INVALID_ARGUMENT,
                                     "wrong number of arguments (given %zu, expected 0)",
                                     st->args.n));
    if (strcmp(st->name, "name") == 0)
        fprintf(s->out, "%s\n", v->table);
    else if (strcmp(st->name, "close") == 0)
        ; /* a reference holds nothing open */
    else if (strcmp(st->name, "get_all_columns") == 0)
        rc = all_columns(s, v->table);
    else if (strcmp(st->name, "snapshot") == 0)
        rc = st_error(ST_UNSUPPORTED, "snapshot is not supported: Strata has no snapshots");
    else
        rc = st_error(ST_NOT_FOUND,
                      "undefined method '%s' for Strata::Table %s (a table reference has put, "
                      "get, scan, count, delete, deleteall, incr, append, get_counter, "
                      "get_splits, enable, disable, flush, drop, describe, help, name, "
                      "get_all_columns and close)",
                      st->name, v->table);
    return rc == ST_OK ? ST_OK : ref_error(s, rc);
}

int shell_dispatch_stmt(shell_session *s, const shell_stmt *st)
{
    if (st->receiver)
        return method_call(s, st);
    if (!st->assign && st->args.n == 0 && !shell_find_command(st->name)) {
        struct shell_var *v = find_var(s, st->name);
        if (v) { /* IRB's echo of a reference */
            fprintf(s->out, "Strata::Table - %s\n", v->table);
            return ST_OK;
        }
    }
    if (st->assign && strcmp(st->name, "get_table") != 0 && strcmp(st->name, "create") != 0)
        return ref_error(s, st_error(ST_INVALID_ARGUMENT,
                                     "%s = %s: only get_table and create give a value to "
                                     "assign (a table reference)",
                                     st->assign, st->name));
    int rc = shell_dispatch(s, st);
    if (rc == ST_OK && st->assign) {
        const shell_value *t = st->args.n ? &st->args.items[0] : NULL;
        rc = t && t->kind == SHELL_V_STR ? bind_var(s, st->assign, t->s)
                                         : st_error(ST_INVALID_ARGUMENT, "no table to assign");
        if (rc != ST_OK)
            ref_error(s, rc);
    }
    return rc;
}

/* ---- get_table, table_help ---- */

static int cmd_get_table(shell_session *s, const shell_value *args)
{
    (void)s;
    const shell_value *t = NULL;
    int rc = shell_nargs(args, 1, 1);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Table name", &t);
    if (rc == ST_OK)
        rc = shell_check_table_name(t->s);
    return rc;
}

static int cmd_table_help(shell_session *s, const shell_value *args)
{
    int rc = shell_nargs(args, 0, 0);
    if (rc == ST_OK)
        fputs(shell_table_help, s->out);
    return rc;
}

const shell_command shell_cmds_tableref[] = {
    {"get_table", "ddl", cmd_get_table,
     "Get the given table name and return it as an actual object to\n"
     "be manipulated by the user. See table.help for more information\n"
     "on how to use the table.\n"
     "Eg.\n"
     "\n"
     "  strata> t1 = get_table 't1'\n"
     "  strata> t1 = get_table 'ns1:t1'\n"
     "\n"
     "returns the table named 't1' as a table object. You can then do\n"
     "\n"
     "  strata> t1.help\n"
     "\n"
     "which will then print the help for that table.\n"},
    {"table_help", "general", cmd_table_help,
     "Help for table-reference commands: type 'table_help' for the whole text.\n"
     "  strata> table_help\n"},
    {NULL, NULL, NULL, NULL},
};
