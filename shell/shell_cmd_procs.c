/*
 * shell_cmd_procs.c - the region life cycle in the shell, as HBase's: split,
 * merge_region, splitormerge_switch, splitormerge_enabled, catalogjanitor_run,
 * catalogjanitor_switch, catalogjanitor_enabled, compaction_switch, normalize,
 * normalizer_switch, normalizer_enabled, list_procedures (docs/split-merge.md,
 * docs/procedures.md), list_deadservers and clear_deadservers, and the balancer's balancer, balance_switch and balancer_enabled
 * (docs/balancer.md).
 *
 * Thread-safety: a session belongs to one thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/status.h"
#include "shell/shell_internal.h"

/* split 'TABLE'|'REGION'[, 'KEY']: a table if the name is one, else a region. */
static int cmd_split(shell_session *s, const shell_value *args)
{
    const shell_value *name = NULL, *key = NULL;
    strata_admin_t *a = NULL;
    char *err = NULL;
    int rc = shell_nargs(args, 1, 2);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Table or region name", &name);
    if (rc == ST_OK && args->n == 2 && args->items[1].kind != SHELL_V_NIL)
        rc = shell_str_arg(args, 1, "Split key", &key);
    if (rc == ST_OK && key && key->len == 0)
        rc = st_error(ST_INVALID_ARGUMENT, "the split key must not be empty");
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc != ST_OK)
        return rc;
    const unsigned char *k = key ? (const unsigned char *)key->s : NULL;
    size_t klen = key ? key->len : 0;
    if (!strchr(name->s, ',') && shell_check_table_name(name->s) == ST_OK) {
        strata_admin_split_table(a, name->s, k, klen, &err);
        rc = shell_failed(err);
        if (rc != ST_NOT_FOUND || !strstr(st_errmsg(), "does not exist"))
            return rc;
        err = NULL;
    }
    char enc[256];
    shell_encoded_name(name->s, enc, sizeof(enc));
    strata_admin_split_region(a, enc, k, klen, &err);
    rc = shell_failed(err);
    if (rc == ST_NOT_FOUND)
        rc = st_error(rc, "Unknown table or region %s!", name->s);
    return rc;
}

/* merge_region 'ENC_A', 'ENC_B'[, 'ENC_C' ...][, true] (also an array of names). */
static int cmd_merge_region(shell_session *s, const shell_value *args)
{
    const char *names[64];
    char enc[64][256];
    size_t n = 0;
    bool force = false;
    int rc = shell_nargs(args, 1, 65);
    for (size_t i = 0; rc == ST_OK && i < args->n; i++) {
        const shell_value *v = &args->items[i];
        if (i == args->n - 1 && i > 0 && v->kind == SHELL_V_BOOL) {
            force = v->b;
            break;
        }
        if (v->kind == SHELL_V_ARRAY) {
            for (size_t j = 0; j < v->n && rc == ST_OK; j++) {
                if (v->items[j].kind != SHELL_V_STR || n == 64)
                    rc = st_error(ST_INVALID_ARGUMENT, "region names must be Strings (at most 64)");
                else
                    shell_encoded_name(v->items[j].s, enc[n], sizeof(enc[n])), names[n] = enc[n],
                                                                               n++;
            }
            continue;
        }
        if (v->kind != SHELL_V_STR || n == 64)
            rc = st_error(ST_INVALID_ARGUMENT, "region names must be Strings (at most 64)");
        else {
            shell_encoded_name(v->s, enc[n], sizeof(enc[n]));
            names[n] = enc[n];
            n++;
        }
    }
    if (rc == ST_OK && n < 2)
        rc = st_error(ST_INVALID_ARGUMENT, "merge_region needs at least two regions");
    strata_admin_t *a = NULL;
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc != ST_OK)
        return rc;
    char *err = NULL;
    strata_free(strata_admin_merge_regions(a, names, n, force, &err));
    return shell_failed(err);
}

/* Prints the previous or current state of a switch as HBase does ("true"/"false"). */
static int switch_cmd(shell_session *s, const char *name, const shell_value *on)
{
    strata_admin_t *a = NULL;
    int rc = shell_admin(s, &a);
    if (rc != ST_OK)
        return rc;
    char *err = NULL;
    bool b = false;
    unsigned char prev;
    if (on) {
        rc = shell_bool_value(on, "The switch value", &b);
        if (rc != ST_OK)
            return rc;
        prev = strata_admin_set_switch(a, name, b, &err);
    } else {
        prev = strata_admin_switch_enabled(a, name, &err);
    }
    rc = shell_failed(err);
    if (rc == ST_OK)
        fprintf(s->out, "%s\n", prev ? "true" : "false");
    return rc;
}

/* 'SPLIT' or 'MERGE' (HBase's MasterSwitchType). */
static int switch_type(const shell_value *args, const char **name)
{
    const shell_value *t = NULL;
    int rc = shell_str_arg(args, 0, "Switch type", &t);
    if (rc != ST_OK)
        return rc;
    if (strcasecmp(t->s, "SPLIT") == 0)
        *name = "SPLIT";
    else if (strcasecmp(t->s, "MERGE") == 0)
        *name = "MERGE";
    else
        return st_error(ST_INVALID_ARGUMENT, "switch type must be 'SPLIT' or 'MERGE', not '%s'",
                        t->s);
    return ST_OK;
}

static int cmd_splitormerge_switch(shell_session *s, const shell_value *args)
{
    const char *name = NULL;
    int rc = shell_nargs(args, 2, 2);
    if (rc == ST_OK)
        rc = switch_type(args, &name);
    return rc == ST_OK ? switch_cmd(s, name, &args->items[1]) : rc;
}

static int cmd_splitormerge_enabled(shell_session *s, const shell_value *args)
{
    const char *name = NULL;
    int rc = shell_nargs(args, 1, 1);
    if (rc == ST_OK)
        rc = switch_type(args, &name);
    return rc == ST_OK ? switch_cmd(s, name, NULL) : rc;
}

static int cmd_catalogjanitor_switch(shell_session *s, const shell_value *args)
{
    int rc = shell_nargs(args, 1, 1);
    return rc == ST_OK ? switch_cmd(s, "CATALOG_JANITOR", &args->items[0]) : rc;
}

static int cmd_catalogjanitor_enabled(shell_session *s, const shell_value *args)
{
    int rc = shell_nargs(args, 0, 0);
    return rc == ST_OK ? switch_cmd(s, "CATALOG_JANITOR", NULL) : rc;
}

static int cmd_normalizer_switch(shell_session *s, const shell_value *args)
{
    int rc = shell_nargs(args, 1, 1);
    return rc == ST_OK ? switch_cmd(s, "NORMALIZER", &args->items[0]) : rc;
}

static int cmd_normalizer_enabled(shell_session *s, const shell_value *args)
{
    int rc = shell_nargs(args, 0, 0);
    return rc == ST_OK ? switch_cmd(s, "NORMALIZER", NULL) : rc;
}

static int cmd_normalize(shell_session *s, const shell_value *args)
{
    strata_admin_t *a = NULL;
    int rc = shell_nargs(args, 0, 0);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc != ST_OK)
        return rc;
    char *err = NULL;
    unsigned char ran = strata_admin_normalize(a, &err);
    rc = shell_failed(err);
    if (rc == ST_OK)
        fprintf(s->out, "%s\n", ran ? "true" : "false");
    return rc;
}

/* balancer ['force'] ['dry_run']: what ran, then true or false. */
static int cmd_balancer(shell_session *s, const shell_value *args)
{
    unsigned flags = 0;
    int rc = shell_nargs(args, 0, 2);
    for (size_t i = 0; rc == ST_OK && i < args->n; i++) {
        const shell_value *v = NULL;
        rc = shell_str_arg(args, i, "Balancer option", &v);
        if (rc == ST_OK && strcasecmp(v->s, "force") == 0)
            flags |= STRATA_BALANCE_FORCE;
        else if (rc == ST_OK && strcasecmp(v->s, "dry_run") == 0)
            flags |= STRATA_BALANCE_DRY_RUN;
        else if (rc == ST_OK)
            rc = st_error(ST_INVALID_ARGUMENT,
                          "balancer option must be 'force' or 'dry_run', not '%s'", v->s);
    }
    strata_admin_t *a = NULL;
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc != ST_OK)
        return rc;
    char *err = NULL;
    unsigned char ran = 0;
    char *text = strata_admin_balance(a, flags, &ran, &err);
    rc = shell_failed(err);
    if (rc == ST_OK) {
        if (ran)
            fprintf(s->out, "Balancer ran%s\n%s", (flags & STRATA_BALANCE_DRY_RUN) ? " (dry run)" : "",
                    text ? text : "");
        else
            fprintf(s->out, "Balancer did not run: %s", text ? text : "\n");
        fprintf(s->out, "%s\n", ran ? "true" : "false");
    }
    strata_free(text);
    return rc;
}

/* hbck ['TABLE'...]: the master's consistency report (docs/hbck.md), as `strata hbck`
 * prints it (strata_admin_hbck: one formatter for both). */
static int cmd_hbck(shell_session *s, const shell_value *args)
{
    const char *tables[64];
    int rc = shell_nargs(args, 0, 64);
    for (size_t i = 0; rc == ST_OK && i < args->n; i++) {
        const shell_value *v = NULL;
        rc = shell_str_arg(args, i, "Table name", &v);
        if (rc == ST_OK)
            tables[i] = v->s;
    }
    strata_admin_t *a = NULL;
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc != ST_OK)
        return rc;
    char *err = NULL;
    size_t errors = 0;
    char *text = strata_admin_hbck(a, tables, args->n, 0, &errors, &err);
    rc = shell_failed(err);
    if (rc == ST_OK)
        fputs(text ? text : "", s->out);
    strata_free(text);
    return rc;
}

/* balance_switch true|false: HBase's "Previous balancer state : ..." line. */
static int cmd_balance_switch(shell_session *s, const shell_value *args)
{
    strata_admin_t *a = NULL;
    bool on = false;
    int rc = shell_nargs(args, 1, 1);
    if (rc == ST_OK)
        rc = shell_bool_value(&args->items[0], "The switch value", &on);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc != ST_OK)
        return rc;
    char *err = NULL;
    unsigned char prev = strata_admin_set_switch(a, "BALANCER", on, &err);
    rc = shell_failed(err);
    if (rc == ST_OK)
        fprintf(s->out, "Previous balancer state : %s\n", prev ? "true" : "false");
    return rc;
}

static int cmd_balancer_enabled(shell_session *s, const shell_value *args)
{
    int rc = shell_nargs(args, 0, 0);
    return rc == ST_OK ? switch_cmd(s, "BALANCER", NULL) : rc;
}

/* compaction_switch true|false [, 'server' ...]: HBase's table of previous states. */
static int cmd_compaction_switch(shell_session *s, const shell_value *args)
{
    bool on = false;
    const char *servers[64];
    size_t n = 0;
    int rc = shell_nargs(args, 1, 65);
    if (rc == ST_OK)
        rc = shell_bool_value(&args->items[0], "The compaction switch", &on);
    for (size_t i = 1; rc == ST_OK && i < args->n; i++) {
        const shell_value *v = &args->items[i];
        if (v->kind == SHELL_V_ARRAY) {
            for (size_t j = 0; j < v->n && rc == ST_OK; j++)
                if (v->items[j].kind != SHELL_V_STR || n == 64)
                    rc = st_error(ST_INVALID_ARGUMENT, "server names must be Strings");
                else
                    servers[n++] = v->items[j].s;
        } else if (v->kind != SHELL_V_STR || n == 64) {
            rc = st_error(ST_INVALID_ARGUMENT, "server names must be Strings");
        } else {
            servers[n++] = v->s;
        }
    }
    strata_admin_t *a = NULL;
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc != ST_OK)
        return rc;
    char *err = NULL;
    unsigned char *prev = NULL;
    strata_name_list_t *l =
        strata_admin_compaction_switch(a, on, n ? servers : NULL, n, &prev, &err);
    rc = shell_failed(err);
    if (rc != ST_OK)
        return rc;
    fprintf(s->out, "%-24s %s\n", "PREVIOUS_STATE", "SERVER");
    for (size_t i = 0; i < strata_name_list_count(l); i++)
        fprintf(s->out, "%-24s %s\n", prev[i] ? "true" : "false", strata_name_list_get(l, i));
    fprintf(s->out, "%zu row(s)\n", strata_name_list_count(l));
    strata_free(prev);
    strata_name_list_destroy(l);
    return ST_OK;
}

/* list_deadservers: HBase's SERVERNAME column. */
static int cmd_list_deadservers(shell_session *s, const shell_value *args)
{
    strata_admin_t *a = NULL;
    int rc = shell_nargs(args, 0, 0);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc != ST_OK)
        return rc;
    char *err = NULL;
    strata_name_list_t *l = strata_admin_list_dead_servers(a, &err);
    rc = shell_failed(err);
    if (rc != ST_OK)
        return rc;
    shell_header(s, "SERVERNAME", NULL);
    for (size_t i = 0; i < strata_name_list_count(l); i++)
        shell_row1(s, strata_name_list_get(l, i));
    shell_footer(s, (long)strata_name_list_count(l));
    strata_name_list_destroy(l);
    return ST_OK;
}

/* clear_deadservers [server, ...]: "true", or HBase's block of those not cleared. */
static int cmd_clear_deadservers(shell_session *s, const shell_value *args)
{
    const char *servers[256];
    size_t n = 0;
    int rc = ST_OK;
    for (size_t i = 0; rc == ST_OK && i < args->n; i++) {
        const shell_value *v = &args->items[i];
        const shell_value *items = v->kind == SHELL_V_ARRAY ? v->items : v;
        size_t k = v->kind == SHELL_V_ARRAY ? v->n : 1;
        for (size_t j = 0; rc == ST_OK && j < k; j++)
            if (items[j].kind == SHELL_V_NIL)
                continue;
            else if (items[j].kind != SHELL_V_STR || n == 256)
                rc = st_error(ST_INVALID_ARGUMENT,
                              "server names must be Strings ('host,port,startcode')");
            else
                servers[n++] = items[j].s;
    }
    strata_admin_t *a = NULL;
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc != ST_OK)
        return rc;
    char *err = NULL;
    strata_name_list_t *l = strata_admin_clear_dead_servers(a, n ? servers : NULL, n, &err);
    rc = shell_failed(err);
    if (rc != ST_OK)
        return rc;
    size_t left = strata_name_list_count(l);
    if (left == 0) {
        shell_row1(s, "true");
    } else {
        shell_row1(s, "Some dead server clear failed");
        shell_header(s, "SERVERNAME", NULL);
        for (size_t i = 0; i < left; i++)
            shell_row1(s, strata_name_list_get(l, i));
        shell_footer(s, (long)left);
    }
    strata_name_list_destroy(l);
    return ST_OK;
}

static int cmd_catalogjanitor_run(shell_session *s, const shell_value *args)
{
    strata_admin_t *a = NULL;
    int rc = shell_nargs(args, 0, 0);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc != ST_OK)
        return rc;
    char *err = NULL;
    unsigned n = strata_admin_run_catalog_janitor(a, &err);
    rc = shell_failed(err);
    if (rc == ST_OK)
        fprintf(s->out, "%u\n", n);
    return rc;
}

static void format_ms(long long ms, char *out, size_t cap)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    localtime_r(&t, &tm);
    size_t n = strftime(out, cap, "%Y-%m-%d %H:%M:%S", &tm);
    snprintf(out + n, cap - n, ".%03lld", ms % 1000);
}

/* HBase's layout: Id Name State Submitted_Time Last_Update Parameters, then "N row(s)". */
static int cmd_list_procedures(shell_session *s, const shell_value *args)
{
    strata_admin_t *a = NULL;
    int rc = shell_nargs(args, 0, 0);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc != ST_OK)
        return rc;
    char *err = NULL;
    strata_procedure_list_t *l = strata_admin_list_procedures(a, &err);
    rc = shell_failed(err);
    if (rc != ST_OK)
        return rc;
    size_t n = strata_procedure_list_count(l);
    fprintf(s->out, " %-14s %-27s %-11s %-24s %-24s %s\n", "Id", "Name", "State", "Submitted_Time",
            "Last_Update", "Parameters");
    for (size_t i = 0; i < n; i++) {
        char sub[64], upd[64];
        format_ms(strata_procedure_submitted_ms(l, i), sub, sizeof(sub));
        format_ms(strata_procedure_updated_ms(l, i), upd, sizeof(upd));
        fprintf(s->out, " %-14llu %-27s %-11s %-24s %-24s {\"table\" => \"%s\", \"step\" => \"%s\"",
                strata_procedure_id(l, i), strata_procedure_type(l, i),
                strata_procedure_state(l, i), sub, upd, strata_procedure_table(l, i),
                strata_procedure_step(l, i));
        fprintf(s->out, ", \"regions\" => [");
        for (size_t j = 0; j < strata_procedure_region_count(l, i); j++)
            fprintf(s->out, "%s\"%s\"", j ? ", " : "", strata_procedure_region(l, i, j));
        fprintf(s->out, "]");
        if (strata_procedure_error(l, i)[0])
            fprintf(s->out, ", \"error\" => \"%s\"", strata_procedure_error(l, i));
        fprintf(s->out, "}\n");
    }
    fprintf(s->out, "%zu row(s)\n", n);
    strata_procedure_list_destroy(l);
    return ST_OK;
}

const shell_command shell_cmds_procs[] = {
    {"list_deadservers", "tools", cmd_list_deadservers,
     "List all dead region servers the master knows: servers that died and did not come\n"
     "back on the same host and port (a server restarted there replaces its old self).\n"
     "Examples:\n"
     "  strata> list_deadservers\n"},
    {"catalogjanitor_enabled", "tools", cmd_catalogjanitor_enabled,
     "Query for the CatalogJanitor status (enabled/disabled?)\n"
     "Examples:\n"
     "\n"
     "  strata> catalogjanitor_enabled\n"},
    {"catalogjanitor_run", "tools", cmd_catalogjanitor_run,
     "Catalog janitor command to run the (garbage collection) scan from command line.\n"
     "Prints how many split or merged parents it removed.\n"
     "\n"
     "  strata> catalogjanitor_run\n"},
    {"catalogjanitor_switch", "tools", cmd_catalogjanitor_switch,
     "Enable/Disable CatalogJanitor. Returns previous CatalogJanitor state.\n"
     "Examples:\n"
     "\n"
     "  strata> catalogjanitor_switch true\n"
     "  strata> catalogjanitor_switch false\n"},
    {"clear_deadservers", "tools", cmd_clear_deadservers,
     "Clear the dead region servers that are never coming back. Without a server name\n"
     "every dead server is cleared. While a dead server's recovery is queued or running\n"
     "none is cleared, and those asked are printed as not cleared.\n"
     "Examples:\n"
     "\n"
     "  strata> clear_deadservers 'host187.example.com,60020,1289493121758'\n"
     "  strata> clear_deadservers 'host187.example.com,60020,1289493121758',\n"
     "          'host188.example.com,60020,1289493121758'\n"
     "  strata> clear_deadservers\n"},
    {"compaction_switch", "tools", cmd_compaction_switch,
     "Turn the compaction on or off on regionservers. A compaction already running\n"
     "finishes; no other starts while the switch is off. This state is ephemeral: the\n"
     "setting is lost on restart of the server. Prints each server's previous state.\n"
     "Examples:\n"
     "  To enable compactions on all region servers\n"
     "  strata> compaction_switch true\n"
     "  To disable compactions on all region servers\n"
     "  strata> compaction_switch false\n"
     "  To enable compactions on specific region servers\n"
     "  strata> compaction_switch true, 'server2','server1'\n"},
    {"hbck", "tools", cmd_hbck,
     "Check the cluster's consistency (HBase's hbck): meta against the region servers,\n"
     "ZooKeeper and the root directory. One line per finding, then 'Status: OK' or\n"
     "'Status: INCONSISTENT'. Repairs are `strata hbck COMMAND` (docs/hbck.md).\n"
     "Examples:\n"
     "\n"
     "  strata> hbck\n"
     "  strata> hbck 't1', 'ns1:t2'\n"},
    {"balance_switch", "tools", cmd_balance_switch,
     "Enable/Disable balancer. Returns previous balancer state.\n"
     "Examples:\n"
     "\n"
     "  strata> balance_switch true\n"
     "  strata> balance_switch false\n"},
    {"balancer", "tools", cmd_balancer,
     "Trigger the cluster balancer. Returns true if balancer ran, otherwise false (the\n"
     "balancer switch is off, regions are in transition or a dead server is being\n"
     "recovered; the reason is printed). The moves planned and made are printed.\n"
     "Parameter 'force' runs it also while regions are in transition; 'dry_run' plans\n"
     "and prints the moves without making them (also while the switch is off).\n"
     "Examples:\n"
     "\n"
     "  strata> balancer\n"
     "  strata> balancer 'force'\n"
     "  strata> balancer 'dry_run'\n"
     "  strata> balancer 'dry_run', 'force'\n"},
    {"balancer_enabled", "tools", cmd_balancer_enabled,
     "Query the balancer's state.\n"
     "Examples:\n"
     "\n"
     "  strata> balancer_enabled\n"},
    {"list_procedures", "procedures", cmd_list_procedures,
     "List all procedures in the cluster: the running ones and the last ones that ended.\n"
     "Examples:\n"
     "\n"
     "  strata> list_procedures\n"},
    {"merge_region", "tools", cmd_merge_region,
     "Merge multiple (2 or more) regions. Passing 'true' as the optional third parameter\n"
     "will force a merge ('force' merges regardless else merge will fail unless passed\n"
     "adjacent regions. 'force' is for expert use only).\n"
     "You can pass the encoded region name or the full region name.  The encoded\n"
     "region name is the hash suffix on region names: e.g. if the region name were\n"
     "TestTable,0094429456,1289497600452.527db22f95c8a9e0116f0cc13c680396. then\n"
     "the encoded region name portion is 527db22f95c8a9e0116f0cc13c680396\n"
     "\n"
     "Examples:\n"
     "\n"
     "  strata> merge_region 'FULL_REGIONNAME', 'FULL_REGIONNAME'\n"
     "  strata> merge_region 'FULL_REGIONNAME', 'FULL_REGIONNAME', true\n"
     "\n"
     "  strata> merge_region 'ENCODED_REGIONNAME', 'ENCODED_REGIONNAME'\n"
     "  strata> merge_region 'ENCODED_REGIONNAME', 'ENCODED_REGIONNAME', true\n"
     "  strata> merge_region ['ENCODED_REGIONNAME', 'ENCODED_REGIONNAME', 'ENCODED_REGIONNAME']\n"},
    {"normalize", "tools", cmd_normalize,
     "Trigger the region normalizer. Without arguments, invokes the normalizer without a\n"
     "table filter: every table with 'NORMALIZATION_ENABLED' => true is looked at.\n"
     "Returns true if the normalizer ran (it does not while normalizer_switch is false).\n"
     "Examples:\n"
     "\n"
     "  strata> normalize\n"},
    {"normalizer_enabled", "tools", cmd_normalizer_enabled,
     "Query the state of region normalizer.\n"
     "Examples:\n"
     "\n"
     "  strata> normalizer_enabled\n"},
    {"normalizer_switch", "tools", cmd_normalizer_switch,
     "Enable/Disable region normalizer. Returns previous normalizer state.\n"
     "When normalizer is enabled, it handles all tables with 'NORMALIZATION_ENABLED' => true.\n"
     "Examples:\n"
     "\n"
     "  strata> normalizer_switch true\n"
     "  strata> normalizer_switch false\n"},
    {"split", "tools", cmd_split,
     "Split entire table or pass a region to split individual region.  With the\n"
     "second parameter, you can specify an explicit split key for the region.\n"
     "Examples:\n"
     "    split 'TABLENAME'\n"
     "    split 'REGIONNAME'\n"
     "    split 'ENCODED_REGIONNAME'\n"
     "    split 'TABLENAME', 'splitKey'\n"
     "    split 'REGIONNAME', 'splitKey'\n"
     "    split 'ENCODED_REGIONNAME', 'splitKey'\n"},
    {"splitormerge_enabled", "tools", cmd_splitormerge_enabled,
     "Query the switch's state. You can set switch type, 'SPLIT' or 'MERGE'\n"
     "Examples:\n"
     "\n"
     "  strata> splitormerge_enabled 'SPLIT'\n"},
    {"splitormerge_switch", "tools", cmd_splitormerge_switch,
     "Enable/Disable one switch. You can set switch type 'SPLIT' or 'MERGE'. Returns previous\n"
     "split state.\n"
     "Examples:\n"
     "\n"
     "  strata> splitormerge_switch 'SPLIT', true\n"
     "  strata> splitormerge_switch 'SPLIT', false\n"},
    {NULL, NULL, NULL, NULL},
};
