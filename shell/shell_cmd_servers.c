/*
 * shell_cmd_servers.c - the cluster's servers and regions as HBase 2.6's shell lists them:
 * list_liveservers, list_unknownservers (servers the catalog names as a region's location
 * that are neither live nor dead), is_in_maintenance_mode, regioninfo, close_region (an
 * alias of unassign, as in HBase 2), list_enabled_tables and list_disabled_tables.
 *
 * Thread-safety: a session belongs to one thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "shell/shell_internal.h"

static int status_of(shell_session *s, strata_cluster_status_t **out)
{
    strata_admin_t *a = NULL;
    char *err = NULL;
    int rc = shell_admin(s, &a);
    if (rc == ST_OK) {
        *out = strata_admin_cluster_status(a, &err);
        rc = shell_failed(err);
    }
    return rc;
}

static int cmd_list_liveservers(shell_session *s, const shell_value *args)
{
    strata_cluster_status_t *cs = NULL;
    int rc = shell_nargs(args, 0, 0);
    if (rc == ST_OK)
        rc = status_of(s, &cs);
    if (rc != ST_OK)
        return rc;
    size_t n = strata_cluster_status_live_server_count(cs);
    shell_header(s, "SERVERNAME", NULL);
    for (size_t i = 0; i < n; i++)
        shell_row1(s, strata_server_load_name(strata_cluster_status_live_server(cs, i)));
    shell_footer(s, (long)n);
    strata_cluster_status_destroy(cs);
    return ST_OK;
}

/* Whether name is in the list names[0..n). */
static bool listed(char **names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

static int cmd_list_unknownservers(shell_session *s, const shell_value *args)
{
    strata_cluster_status_t *cs = NULL;
    strata_name_list_t *tables = NULL;
    char *err = NULL, **known = NULL, **unknown = NULL;
    size_t nknown = 0, nunknown = 0;
    int rc = shell_nargs(args, 0, 0);
    if (rc == ST_OK)
        rc = status_of(s, &cs);
    if (rc == ST_OK) {
        tables = strata_admin_list_tables(s->admin, NULL, &err);
        rc = shell_failed(err);
    }
    size_t nlive = rc == ST_OK ? strata_cluster_status_live_server_count(cs) : 0;
    size_t ndead = rc == ST_OK ? strata_cluster_status_dead_server_count(cs) : 0;
    if (rc == ST_OK && !(known = calloc(nlive + ndead + 1, sizeof(*known))))
        rc = st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; rc == ST_OK && i < nlive; i++)
        known[nknown++] = (char *)strata_server_load_name(strata_cluster_status_live_server(cs, i));
    for (size_t i = 0; rc == ST_OK && i < ndead; i++)
        known[nknown++] = (char *)strata_cluster_status_dead_server(cs, i);
    /* every region's location in the catalog */
    for (size_t t = 0; rc == ST_OK && t < strata_name_list_count(tables); t++) {
        strata_region_list_t *l = strata_admin_table_regions(s->admin,
                                                             strata_name_list_get(tables, t), &err);
        rc = shell_failed(err);
        for (size_t i = 0; rc == ST_OK && i < strata_region_list_count(l); i++) {
            const char *server = strata_region_server(strata_region_list_get(l, i));
            if (!server || !server[0] || listed(known, nknown, server) ||
                listed(unknown, nunknown, server))
                continue;
            char **v = realloc(unknown, (nunknown + 1) * sizeof(*v));
            if (!v || !(v[nunknown] = strdup(server))) {
                unknown = v ? v : unknown;
                rc = st_error(ST_NOMEM, "out of memory");
                break;
            }
            unknown = v;
            nunknown++;
        }
        strata_region_list_destroy(l);
    }
    if (rc == ST_OK) {
        shell_header(s, "SERVERNAME", NULL);
        for (size_t i = 0; i < nunknown; i++)
            shell_row1(s, unknown[i]);
        shell_footer(s, (long)nunknown);
    }
    for (size_t i = 0; i < nunknown; i++)
        free(unknown[i]);
    free(unknown);
    free(known);
    strata_name_list_destroy(tables);
    strata_cluster_status_destroy(cs);
    return rc;
}

/* Strata's master has no maintenance mode: it is never in one. */
static int cmd_is_in_maintenance_mode(shell_session *s, const shell_value *args)
{
    strata_cluster_status_t *cs = NULL;
    int rc = shell_nargs(args, 0, 0);
    if (rc == ST_OK)
        rc = status_of(s, &cs); /* an answer only from a reachable master */
    if (rc == ST_OK)
        shell_row1(s, "false");
    strata_cluster_status_destroy(cs);
    return rc;
}

/* regioninfo 'region': HBase's RegionInfo.toString, read from the catalog. */
static int cmd_regioninfo(shell_session *s, const shell_value *args)
{
    const shell_value *name = NULL;
    strata_admin_t *a = NULL;
    strata_meta_rows_t *rows = NULL;
    char enc[256], filter[400], *err = NULL;
    int rc = shell_nargs(args, 1, 1);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Region name", &name);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc != ST_OK)
        return rc;
    shell_encoded_name(name->s, enc, sizeof(enc));
    if (strspn(enc, "0123456789abcdef") != strlen(enc) || !enc[0])
        return st_error(ST_INVALID_ARGUMENT, "'%s' is not a region name", name->s);
    strata_scan_t *sc = strata_scan_create();
    if (!sc)
        return st_error(ST_NOMEM, "out of memory");
    /* the encoded name is in the info:regioninfo value, not in the row key */
    snprintf(filter, sizeof(filter), "ValueFilter(=, 'substring:%s')", enc);
    strata_scan_set_filter(sc, filter);
    strata_scan_add_column(sc, "info", 4, "regioninfo", 10);
    rows = strata_admin_scan_meta(a, sc, &err);
    rc = shell_failed(err);
    strata_scan_destroy(sc);
    strata_region_t *found = NULL;
    for (size_t i = 0; rc == ST_OK && !found && i < strata_meta_rows_count(rows); i++) {
        const strata_result_t *r = strata_meta_rows_get(rows, i);
        if (strata_result_cell_count(r) == 0)
            continue;
        size_t vl;
        const char *v = strata_result_cell_value(r, 0, &vl);
        strata_region_t *reg = strata_region_from_meta(v, vl, &err);
        if (!reg) { /* not a region row's value */
            strata_free(err);
            err = NULL;
            continue;
        }
        if (strcmp(strata_region_encoded_name(reg), enc) == 0)
            found = reg;
        else
            strata_region_destroy(reg);
    }
    if (rc == ST_OK && !found)
        rc = st_error(ST_NOT_FOUND, "Unknown region %s!", name->s);
    if (rc == ST_OK) {
        buf_t b = {0};
        shell_region_describe(found, &b);
        shell_row1(s, (char *)b.data);
        buf_free(&b);
    }
    strata_region_destroy(found);
    strata_meta_rows_destroy(rows);
    return rc;
}

/* HBase 2's close_region runs unassign. */
static int cmd_close_region(shell_session *s, const shell_value *args)
{
    int rc = shell_nargs(args, 1, 2);
    if (rc != ST_OK)
        return rc;
    const shell_value one = {.kind = SHELL_V_ARRAY, .items = args->items, .n = 1};
    const shell_command *unassign = shell_find_command("unassign");
    return unassign->fn(s, &one); /* a server name, if given, is not needed */
}

static int list_by_state(shell_session *s, const shell_value *args, bool enabled)
{
    const shell_value *pat = NULL;
    strata_name_list_t *r = NULL;
    char *err = NULL;
    regex_t re;
    long n = 0;
    int rc = shell_nargs(args, 0, 1);
    if (rc == ST_OK && args->n)
        rc = shell_str_arg(args, 0, "Regular expression", &pat);
    if (rc == ST_OK)
        rc = shell_regex(pat ? pat->s : ".*", &re);
    if (rc != ST_OK)
        return rc;
    rc = shell_admin(s, &s->admin);
    if (rc == ST_OK) {
        r = strata_admin_list_tables(s->admin, NULL, &err);
        rc = shell_failed(err);
    }
    if (rc == ST_OK)
        shell_header(s, "TABLE", NULL);
    for (size_t i = 0; rc == ST_OK && i < strata_name_list_count(r); i++) {
        const char *name = shell_display_name(strata_name_list_get(r, i));
        if (regexec(&re, name, 0, NULL, 0) != 0)
            continue;
        strata_table_state st;
        strata_table_descriptor_t *td =
            strata_admin_describe_table(s->admin, strata_name_list_get(r, i), &st, NULL, &err);
        strata_table_descriptor_destroy(td);
        if (err) { /* dropped meanwhile */
            strata_free(err);
            err = NULL;
            continue;
        }
        if ((st == STRATA_TABLE_ENABLED) == enabled) {
            shell_row1(s, name);
            n++;
        }
    }
    if (rc == ST_OK)
        shell_footer(s, n);
    regfree(&re);
    strata_name_list_destroy(r);
    return rc;
}

static int cmd_list_enabled_tables(shell_session *s, const shell_value *args)
{
    return list_by_state(s, args, true);
}

static int cmd_list_disabled_tables(shell_session *s, const shell_value *args)
{
    return list_by_state(s, args, false);
}

const shell_command shell_cmds_servers[] = {
    {"close_region", "tools", cmd_close_region,
     "Close a single region. In HBase 2 this is unassign: the region closes and, for an\n"
     "enabled table, the master reopens it later. Use with caution.\n"
     "\n"
     "  strata> close_region 'REGIONNAME'\n"
     "  strata> close_region 'ENCODED_REGIONNAME'\n"},
    {"is_in_maintenance_mode", "tools", cmd_is_in_maintenance_mode,
     "Is master in maintenance mode? For example:\n"
     "\n"
     "  strata> is_in_maintenance_mode\n"
     "\n"
     "(A Strata master has no maintenance mode: false.)\n"},
    {"list_disabled_tables", "ddl", cmd_list_disabled_tables,
     "List all disabled tables, or those matching an optional regular expression:\n"
     "\n"
     "  strata> list_disabled_tables\n"
     "  strata> list_disabled_tables 'ns:.*'\n"},
    {"list_enabled_tables", "ddl", cmd_list_enabled_tables,
     "List all enabled tables, or those matching an optional regular expression:\n"
     "\n"
     "  strata> list_enabled_tables\n"
     "  strata> list_enabled_tables 'ns:.*'\n"},
    {"list_liveservers", "tools", cmd_list_liveservers,
     "List all live region servers.\n"
     "Examples:\n"
     "  strata> list_liveservers\n"},
    {"list_unknownservers", "tools", cmd_list_unknownservers,
     "List the unknown region servers: servers the catalog names as a region's location\n"
     "that the master knows neither as live nor as dead.\n"
     "Examples:\n"
     "  strata> list_unknownservers\n"},
    {"regioninfo", "tools", cmd_regioninfo,
     "Return RegionInfo. Takes Region name or an encoded Region name\n"
     "(Of use when all you have is an encoded name).\n"
     "\n"
     "Examples:\n"
     "\n"
     "  strata> regioninfo 't1,,1700000000000.0b406a4384342b4932102c871a44310f.'\n"
     "  strata> regioninfo '0b406a4384342b4932102c871a44310f'\n"},
    {NULL, NULL, NULL, NULL},
};
