/*
 * shell_cmd_regions.c - region tools: flush, compact, major_compact (a table or a region,
 * every family or one; flush also a region server), compaction_state, wal_roll, compact_rs, rit, move, assign, unassign, and the region listings list_regions, locate_region and
 * get_splits in HBase's layout.
 *
 * A region may be named by its encoded name or its full name
 * ("<table>,<start key>,<region id>.<encoded>.").
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

#define MB (1024ull * 1024ull)

/* ---- flush, compact ---- */

typedef enum maint_op { OP_FLUSH, OP_COMPACT, OP_MAJOR } maint_op;

/* A table (enc NULL) or a region (t NULL), every family (family NULL) or one. */
static int maint_family(strata_admin_t *a, maint_op op, const char *t, const char *enc,
                        const char *family)
{
    char *err = NULL;
    if (op == OP_FLUSH)
        strata_admin_flush_family(a, t, enc, family, &err);
    else
        strata_admin_compact_family(a, t, enc, family, op == OP_MAJOR, &err);
    return shell_failed(err);
}

static int maint_region(strata_admin_t *a, maint_op op, const char *enc)
{
    return maint_family(a, op, NULL, enc, NULL);
}

/* Every region the live server named (host,port,startcode) holds, as its last report
 * lists them: ST_OK with *found, and the op run on each; ST_NOT_FOUND (nothing run)
 * when no live server has that name. */
static int maint_server(strata_admin_t *a, maint_op op, const char *server)
{
    char *err = NULL;
    strata_cluster_status_t *cs = strata_admin_cluster_status(a, &err);
    int rc = shell_failed(err);
    const strata_server_load_t *l = NULL;
    for (size_t i = 0; rc == ST_OK && i < strata_cluster_status_live_server_count(cs) && !l; i++)
        if (strcmp(strata_server_load_name(strata_cluster_status_live_server(cs, i)), server) == 0)
            l = strata_cluster_status_live_server(cs, i);
    if (rc == ST_OK && !l)
        rc = ST_NOT_FOUND;
    for (size_t i = 0; rc == ST_OK && i < strata_server_load_region_load_count(l); i++) {
        const char *enc = strata_region_load_encoded_name(strata_server_load_region_load(l, i));
        rc = maint_region(a, op, enc);
        if (rc == ST_NOT_FOUND) /* it moved since the report: not this server's any more */
            rc = ST_OK;
    }
    strata_cluster_status_destroy(cs);
    return rc;
}

/* The optional family argument and compact's type ('NORMAL'; 'MOB' refused). */
static int maint_args(const shell_value *args, maint_op op, const char **family)
{
    const shell_value *v = NULL;
    *family = NULL;
    int rc = shell_nargs(args, 1, op == OP_FLUSH ? 2 : 3);
    if (rc == ST_OK && args->n > 1 && args->items[1].kind != SHELL_V_NIL) {
        rc = shell_str_arg(args, 1, "Column family", &v);
        if (rc == ST_OK)
            *family = v->s;
    }
    if (rc == ST_OK && args->n > 2) {
        rc = shell_str_arg(args, 2, "Compaction type", &v);
        if (rc == ST_OK && strcasecmp(v->s, "MOB") == 0)
            rc = st_error(ST_UNSUPPORTED,
                          "compaction type MOB is not supported: Strata has no MOB storage");
        else if (rc == ST_OK && strcasecmp(v->s, "NORMAL") != 0)
            rc = st_error(ST_INVALID_ARGUMENT, "unknown compaction type %s (NORMAL or MOB)",
                          v->s);
    }
    return rc;
}

/* A table if the name is one, else a region (HBase tries both); a family narrows it. */
static int maint(shell_session *s, const shell_value *args, maint_op op)
{
    const shell_value *name = NULL;
    const char *family = NULL;
    strata_admin_t *a = NULL;
    char enc[256];
    int rc = maint_args(args, op, &family);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Table or region name", &name);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc != ST_OK)
        return rc;
    bool full_region = strchr(name->s, ',') != NULL;
    if (full_region && op == OP_FLUSH && !family) { /* HBase 2: flush 'host,port,startcode' */
        rc = maint_server(a, op, name->s);
        if (rc != ST_NOT_FOUND)
            return rc;
    }
    if (!full_region && shell_check_table_name(name->s) == ST_OK) {
        rc = maint_family(a, op, name->s, NULL, family);
        if (rc != ST_NOT_FOUND || !strstr(st_errmsg(), "does not exist") ||
            strstr(st_errmsg(), "column family"))
            return rc;
    }
    shell_encoded_name(name->s, enc, sizeof(enc));
    rc = maint_family(a, op, NULL, enc, family);
    if (rc == ST_NOT_FOUND && !strstr(st_errmsg(), "column family"))
        rc = st_error(rc, "Unknown table or region %s!", name->s);
    return rc;
}

static int cmd_flush(shell_session *s, const shell_value *args)
{
    return maint(s, args, OP_FLUSH);
}

static int cmd_compact(shell_session *s, const shell_value *args)
{
    return maint(s, args, OP_COMPACT);
}

static int cmd_major_compact(shell_session *s, const shell_value *args)
{
    return maint(s, args, OP_MAJOR);
}

/* compact_rs 'host,port,startcode' [, major]: every region of that live server. */
static int cmd_compact_rs(shell_session *s, const shell_value *args)
{
    const shell_value *server = NULL;
    strata_admin_t *a = NULL;
    bool major = false;
    int rc = shell_nargs(args, 1, 2);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Region server name", &server);
    if (rc == ST_OK && args->n == 2)
        rc = shell_bool_value(&args->items[1], "major", &major);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc == ST_OK)
        rc = maint_server(a, major ? OP_MAJOR : OP_COMPACT, server->s);
    if (rc == ST_NOT_FOUND)
        rc = st_error(rc, "region server %s is not live (list them with status 'simple')",
                      server->s);
    return rc;
}

/* compaction_state 't' | 'region': NONE, MINOR, MAJOR or MAJOR_AND_MINOR. */
static int cmd_compaction_state(shell_session *s, const shell_value *args)
{
    const shell_value *name = NULL;
    strata_admin_t *a = NULL;
    char enc[256], *err = NULL;
    int rc = shell_nargs(args, 1, 1);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Table name", &name);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc != ST_OK)
        return rc;
    strata_compaction_state st = STRATA_COMPACTION_NONE;
    bool full_region = strchr(name->s, ',') != NULL;
    if (!full_region && shell_check_table_name(name->s) == ST_OK) {
        st = strata_admin_compaction_state(a, name->s, &err);
        rc = shell_failed(err);
    } else {
        rc = ST_NOT_FOUND;
    }
    if (rc == ST_NOT_FOUND) { /* HBase's getCompactionStateForRegion for a region name */
        err = NULL;           /* shell_failed freed the table's error */
        shell_encoded_name(name->s, enc, sizeof(enc));
        st = strata_admin_region_compaction_state(a, enc, &err);
        rc = shell_failed(err);
        if (rc == ST_NOT_FOUND)
            rc = st_error(rc, "Unknown table or region %s!", name->s);
    }
    if (rc == ST_OK)
        shell_row1(s, strata_compaction_state_name(st));
    return rc;
}

/* wal_roll 'host,port,startcode': the server's WAL rolled. */
static int cmd_wal_roll(shell_session *s, const shell_value *args)
{
    const shell_value *server = NULL;
    strata_admin_t *a = NULL;
    char *err = NULL;
    int rc = shell_nargs(args, 1, 1);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Region server name", &server);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc != ST_OK)
        return rc;
    strata_admin_roll_wal(a, server->s, &err);
    return shell_failed(err);
}

/* rit: HBase's RegionState.toDescriptiveString of each region in transition. */
static int cmd_rit(shell_session *s, const shell_value *args)
{
    strata_admin_t *a = NULL;
    char *err = NULL;
    int rc = shell_nargs(args, 0, 0);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc != ST_OK)
        return rc;
    strata_cluster_status_t *cs = strata_admin_cluster_status(a, &err);
    rc = shell_failed(err);
    size_t n = rc == ST_OK ? strata_cluster_status_in_transition_count(cs) : 0;
    buf_t name = {0};
    int64_t now = (int64_t)time(NULL);
    for (size_t i = 0; i < n; i++) {
        const strata_region_t *r = strata_cluster_status_in_transition(cs, i);
        time_t since = (time_t)(strata_cluster_status_in_transition_since_ms(cs, i) / 1000);
        char when[64];
        struct tm tm;
        strftime(when, sizeof(when), "%a %b %d %H:%M:%S %Z %Y", localtime_r(&since, &tm));
        shell_region_name(r, &name);
        const char *server = strata_region_server(r);
        fprintf(s->out, "%s state=%s, ts=%s (%llds ago), server=%s\n", (char *)name.data,
                strata_region_state_name(strata_region_state_of(r)), when,
                (long long)(now - (int64_t)since), server && server[0] ? server : "null");
    }
    if (rc == ST_OK)
        shell_footer(s, (long)n);
    buf_free(&name);
    strata_cluster_status_destroy(cs);
    return rc;
}

/* ---- move, assign, unassign ---- */

static int region_arg(const shell_value *args, char *enc, size_t cap)
{
    const shell_value *r = NULL;
    int rc = shell_str_arg(args, 0, "Region name", &r);
    if (rc == ST_OK)
        shell_encoded_name(r->s, enc, cap);
    return rc;
}

static int unknown_region(int rc, const char *enc)
{
    if (rc == ST_NOT_FOUND && strstr(st_errmsg(), "is not live"))
        return rc; /* the master's message names the server */
    return rc == ST_NOT_FOUND ? st_error(rc, "Unknown region %s!", enc) : rc;
}

static int cmd_move(shell_session *s, const shell_value *args)
{
    const shell_value *dest = NULL;
    strata_admin_t *a = NULL;
    char *err = NULL;
    char enc[256];
    int rc = shell_nargs(args, 1, 2);
    if (rc == ST_OK)
        rc = region_arg(args, enc, sizeof(enc));
    if (rc == ST_OK && args->n == 2 && args->items[1].kind != SHELL_V_NIL)
        rc = shell_str_arg(args, 1, "Server name", &dest);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc == ST_OK) {
        strata_free(strata_admin_move(a, enc, dest ? dest->s : NULL, &err));
        rc = unknown_region(shell_failed(err), enc);
    }
    return rc;
}

static int cmd_assign(shell_session *s, const shell_value *args)
{
    strata_admin_t *a = NULL;
    char *err = NULL;
    char enc[256];
    int rc = shell_nargs(args, 1, 1);
    if (rc == ST_OK)
        rc = region_arg(args, enc, sizeof(enc));
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc == ST_OK) {
        strata_free(strata_admin_assign(a, enc, &err));
        rc = unknown_region(shell_failed(err), enc);
    }
    return rc;
}

static int cmd_unassign(shell_session *s, const shell_value *args)
{
    strata_admin_t *a = NULL;
    char *err = NULL;
    char enc[256];
    bool force = false;
    int rc = shell_nargs(args, 1, 2);
    if (rc == ST_OK)
        rc = region_arg(args, enc, sizeof(enc));
    if (rc == ST_OK && args->n == 2)
        rc = shell_bool_value(&args->items[1], "force", &force);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc == ST_OK) {
        strata_admin_unassign(a, enc, &err);
        rc = unknown_region(shell_failed(err), enc);
    }
    return rc;
}

/* ---- list_regions ---- */

enum { C_SERVER, C_REGION, C_START, C_END, C_SIZE, C_REQ, C_LOCALITY, NCOLS };
static const char *const COLS[NCOLS] = {"SERVER_NAME", "REGION_NAME", "START_KEY", "END_KEY",
                                        "SIZE",        "REQ",         "LOCALITY"};
static const int COL_WIDTH[NCOLS] = {12, 12, 10, 10, 5, 5, 10};

typedef struct region_table {
    bool on[NCOLS];
    int order[NCOLS]; /* the columns printed, in the order asked (HBase's hash order) */
    int norder;
    int width[NCOLS];
    char **cells; /* nrows x NCOLS */
    size_t nrows;
} region_table;

static int pick_columns(region_table *t, const shell_value *cols)
{
    t->norder = 0;
    for (int c = 0; c < NCOLS; c++) {
        t->on[c] = cols == NULL;
        t->width[c] = COL_WIDTH[c];
        if (!cols)
            t->order[t->norder++] = c;
    }
    if (!cols)
        return ST_OK;
    if (cols->kind != SHELL_V_ARRAY)
        return st_error(ST_INVALID_ARGUMENT, "the columns must be an array of strings. Possible "
                                             "values are SERVER_NAME, REGION_NAME, START_KEY, "
                                             "END_KEY, SIZE, REQ, LOCALITY.");
    for (size_t i = 0; i < cols->n; i++) {
        int found = -1;
        for (int c = 0; c < NCOLS && cols->items[i].kind == SHELL_V_STR; c++)
            if (strcasecmp(cols->items[i].s, COLS[c]) == 0)
                found = c;
        if (found < 0)
            return st_error(ST_INVALID_ARGUMENT,
                            "%s is not a valid column. Possible values are SERVER_NAME, "
                            "REGION_NAME, START_KEY, END_KEY, SIZE, REQ, LOCALITY.",
                            cols->items[i].kind == SHELL_V_STR ? cols->items[i].s : "?");
        if (!t->on[found])
            t->order[t->norder++] = found;
        t->on[found] = true;
    }
    return ST_OK;
}

static const strata_region_load_t *find_load(const strata_cluster_status_t *st, const char *enc)
{
    for (size_t i = 0; st && i < strata_cluster_status_live_server_count(st); i++) {
        const strata_server_load_t *l = strata_cluster_status_live_server(st, i);
        for (size_t j = 0; j < strata_server_load_region_load_count(l); j++) {
            const strata_region_load_t *rl = strata_server_load_region_load(l, j);
            if (strcmp(strata_region_load_encoded_name(rl), enc) == 0)
                return rl;
        }
    }
    return NULL;
}

static int add_row(region_table *t, const strata_region_t *l, const strata_region_load_t *load)
{
    char **row = realloc(t->cells, (t->nrows + 1) * NCOLS * sizeof(*row));
    if (!row)
        return st_error(ST_NOMEM, "out of memory");
    t->cells = row;
    row += t->nrows++ * NCOLS;
    buf_t b = {0};
    char tmp[300];
    size_t len;
    const char *key;
    row[C_SERVER] = strdup(strata_region_server(l));
    shell_region_name(l, &b);
    row[C_REGION] = strdup((char *)b.data);
    key = strata_region_start_key(l, &len);
    row[C_START] = shell_binary(key, len);
    key = strata_region_end_key(l, &len);
    row[C_END] = shell_binary(key, len);
    /* A region its server has not reported yet: HBase leaves the load columns empty. */
    tmp[0] = '\0';
    if (load)
        snprintf(tmp, sizeof(tmp), "%llu",
                 (unsigned long long)(strata_region_load_store_file_size(load) / MB));
    row[C_SIZE] = strdup(tmp);
    if (load)
        snprintf(tmp, sizeof(tmp), "%llu",
                 (unsigned long long)(strata_region_load_read_requests(load) +
                                      strata_region_load_write_requests(load)));
    row[C_REQ] = strdup(tmp);
    row[C_LOCALITY] = strdup(load ? "1.0" : "");
    buf_free(&b);
    for (int c = 0; c < NCOLS; c++) {
        if (!row[c])
            return st_error(ST_NOMEM, "out of memory");
        if ((int)strlen(row[c]) > t->width[c])
            t->width[c] = (int)strlen(row[c]);
    }
    return ST_OK;
}

static void print_table(shell_session *s, const region_table *t)
{
    for (int k = 0; k < t->norder; k++)
        fprintf(s->out, " %*s |", t->width[t->order[k]], COLS[t->order[k]]);
    fputc('\n', s->out);
    for (int k = 0; k < t->norder; k++) {
        fputc(' ', s->out);
        for (int i = 0; i < t->width[t->order[k]]; i++)
            fputc('-', s->out);
        fputs(" |", s->out);
    }
    fputc('\n', s->out);
    for (size_t r = 0; r < t->nrows; r++) {
        for (int k = 0; k < t->norder; k++)
            fprintf(s->out, " %*s |", t->width[t->order[k]], t->cells[r * NCOLS + t->order[k]]);
        fputc('\n', s->out);
    }
    fprintf(s->out, " %zu rows\n", t->nrows);
}

static void region_table_free(region_table *t)
{
    for (size_t i = 0; i < t->nrows * NCOLS; i++)
        free(t->cells[i]);
    free(t->cells);
}

/* The server-name prefix filter: a string or {SERVER_NAME => 'prefix'}. */
static int server_filter(const shell_value *v, const char **prefix)
{
    *prefix = NULL;
    if (!v || v->kind == SHELL_V_NIL)
        return ST_OK;
    if (v->kind == SHELL_V_HASH)
        v = shell_hash_get(v, "SERVER_NAME");
    if (v && v->kind == SHELL_V_STR)
        *prefix = v->len ? v->s : NULL;
    else if (v)
        return st_error(ST_INVALID_ARGUMENT, "SERVER_NAME must be a String");
    return ST_OK;
}

static int fill_regions(shell_session *s, const char *table, const char *prefix, region_table *t)
{
    strata_region_list_t *r = NULL;
    strata_cluster_status_t *st = NULL;
    char *err = NULL;
    r = strata_admin_table_regions(s->admin, table, &err);
    int rc = shell_failed(err);
    if (rc == ST_OK) {
        err = NULL;
        st = strata_admin_cluster_status(s->admin, &err);
        rc = shell_failed(err);
    }
    for (size_t i = 0; rc == ST_OK && i < strata_region_list_count(r); i++) {
        const strata_region_t *l = strata_region_list_get(r, i);
        if (!strata_region_server(l)) {
            buf_t b = {0};
            shell_region_name(l, &b);
            fprintf(s->out, "Can not find region: %s , it may be disabled or in transition\n",
                    (char *)b.data);
            buf_free(&b);
            rc = ST_NOT_SERVING;
            break;
        }
        const char *sn = strata_region_server(l);
        if (prefix && strncmp(sn, prefix, strlen(prefix)) != 0)
            continue;
        const strata_region_load_t *load = find_load(st, strata_region_encoded_name(l));
        if (!load) {
            buf_t b = {0};
            shell_region_name(l, &b);
            fprintf(s->out,
                    "Can not find all details for region: %s , it may be disabled or in "
                    "transition\n",
                    (char *)b.data);
            buf_free(&b);
        }
        rc = add_row(t, l, load);
    }
    strata_region_list_destroy(r);
    strata_cluster_status_destroy(st);
    return rc;
}

static int cmd_list_regions(shell_session *s, const shell_value *args)
{
    const shell_value *t = NULL;
    const char *prefix = NULL;
    shell_table_info d = {0};
    region_table rt = {0};
    int rc = shell_nargs(args, 1, 3);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Table name", &t);
    if (rc == ST_OK)
        rc = server_filter(args->n > 1 ? &args->items[1] : NULL, &prefix);
    if (rc == ST_OK)
        rc = pick_columns(&rt, args->n > 2 ? &args->items[2] : NULL);
    if (rc == ST_OK)
        rc = shell_describe(s, t->s, &d);
    if (rc == ST_NOT_FOUND)
        rc = st_error(rc, "Unknown table %s!", t->s);
    if (rc == ST_OK && d.state != STRATA_TABLE_ENABLED)
        rc = st_error(ST_INVALID_ARGUMENT, "Table %s must be enabled.", t->s);
    shell_table_info_clear(&d);
    if (rc == ST_OK)
        rc = fill_regions(s, t->s, prefix, &rt);
    if (rc == ST_OK)
        print_table(s, &rt);
    else if (rc == ST_NOT_SERVING)
        rc = ST_OK; /* HBase reports the region and prints no table */
    region_table_free(&rt);
    return rc;
}

/* ---- get_splits ---- */

/* HBase's get_splits: "Total number of splits = N" with N the number of regions (HBase
 * counts the split keys plus one), then each split key: the start key of every region
 * but the first. */
static int cmd_get_splits(shell_session *s, const shell_value *args)
{
    const shell_value *t = NULL;
    strata_admin_t *a = NULL;
    strata_region_list_t *l = NULL;
    char *err = NULL;
    int rc = shell_nargs(args, 1, 1);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Table name", &t);
    if (rc == ST_OK)
        rc = shell_check_table_name(t->s);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc == ST_OK) {
        l = strata_admin_table_regions(a, t->s, &err);
        rc = shell_failed(err);
    }
    if (rc == ST_NOT_FOUND)
        rc = st_error(rc, "Unknown table %s!", t->s);
    size_t n = rc == ST_OK ? strata_region_list_count(l) : 0;
    if (rc == ST_OK)
        fprintf(s->out, "Total number of splits = %zu\n", n ? n : 1);
    for (size_t i = 1; rc == ST_OK && i < n; i++) {
        size_t len;
        const char *key = strata_region_start_key(strata_region_list_get(l, i), &len);
        char *text = shell_binary(key, len);
        if (!text) {
            rc = st_error(ST_NOMEM, "out of memory");
            break;
        }
        fprintf(s->out, "%s\n", text);
        free(text);
    }
    strata_region_list_destroy(l);
    return rc;
}

/* ---- locate_region ---- */

static int locate(shell_session *s, const char *table, const buf_t *row, strata_region_t **out)
{
    strata_admin_t *a = NULL;
    char *err = NULL;
    *out = NULL;
    int rc = shell_check_table_name(table);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc == ST_OK) {
        *out = strata_admin_locate_region(a, table, (const char *)row->data, row->len, &err);
        rc = shell_failed(err);
    }
    if (rc == ST_NOT_FOUND)
        rc = st_error(rc, "Unknown table %s!", table);
    if (rc == ST_OK && !*out)
        rc = st_error(ST_NOT_FOUND, "no region of table %s holds that row", table);
    return rc;
}

static int cmd_locate_region(shell_session *s, const shell_value *args)
{
    const shell_value *t = NULL, *key = NULL;
    strata_region_t *l = NULL;
    buf_t row = {0}, name = {0};
    int rc = shell_nargs(args, 2, 2);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Table name", &t);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 1, "Row key", &key);
    if (rc == ST_OK)
        rc = shell_unescape_binary(key->s, key->len, &row);
    if (rc == ST_OK)
        rc = locate(s, t->s, &row, &l);
    const char *server = rc == ST_OK ? strata_region_server(l) : NULL;
    if (rc == ST_OK && !server)
        rc = st_error(ST_NOT_SERVING, "region %s of table %s is not open",
                      strata_region_encoded_name(l), t->s);
    if (rc == ST_OK) {
        char host[300];
        shell_region_describe(l, &name);
        /* "host,port,startcode" -> "host:port" */
        const char *c1 = strchr(server, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        if (c2)
            snprintf(host, sizeof(host), "%.*s:%.*s", (int)(c1 - server), server,
                     (int)(c2 - c1 - 1), c1 + 1);
        else
            snprintf(host, sizeof(host), "%s", server);
        shell_header(s, "HOST", "REGION");
        shell_row2(s, host, name.data ? (char *)name.data : "");
        shell_footer(s, 1);
    }
    strata_region_destroy(l);
    buf_free(&row);
    buf_free(&name);
    return rc;
}

const shell_command shell_cmds_regions[] = {
    {"assign", "tools", cmd_assign,
     "Assign a region. It is opened on the least loaded live region server.\n"
     "Use with caution.\n"
     "\n"
     "  strata> assign 'REGIONNAME'\n"
     "  strata> assign 'ENCODED_REGIONNAME'\n"},
    {"compact", "tools", cmd_compact,
     "Compact all regions in a table or a single region (minor compaction).\n"
     "Examples:\n"
     "Compact all regions in a table:\n"
     "  strata> compact 'ns1:t1'\n"
     "  strata> compact 't1'\n"
     "Compact all regions in a table:\n"
     "  strata> compact 't1'\n"
     "Compact an entire region:\n"
     "  strata> compact 'r1'\n"
     "Compact only a column family within a region:\n"
     "  strata> compact 'r1', 'c1'\n"
     "Compact a column family within a table:\n"
     "  strata> compact 't1', 'c1'\n"
     "The third argument, the compaction type, may be 'NORMAL' ('MOB' is refused:\n"
     "Strata has no MOB storage).\n"},
    {"compaction_state", "tools", cmd_compaction_state,
     "Gets compaction status (MAJOR, MAJOR_AND_MINOR, MINOR, NONE) for a table:\n"
     "  strata> compaction_state 'ns1:t1'\n"
     "  strata> compaction_state 't1'\n"
     "A region (encoded or full name) may be given instead of a table.\n"},
    {"wal_roll", "tools", cmd_wal_roll,
     "Roll the log writer. That is, start writing log messages to a new file.\n"
     "The name of the regionserver should be given as the parameter.  A\n"
     "'server_name' is the host, port plus startcode of a regionserver. For\n"
     "example: host187.example.com,60020,1289493121758 (find servername in\n"
     "master ui or when you do detailed status in shell)\n"},
    {"compact_rs", "tools", cmd_compact_rs,
     "Compact all regions on passed regionserver.\n"
     "Examples:\n"
     "  Compact all regions on a regionserver:\n"
     "  strata> compact_rs 'host187.example.com,60020,1289493121758'\n"
     "  Major compact all regions on a regionserver:\n"
     "  strata> compact_rs 'host187.example.com,60020,1289493121758', true\n"},
    {"flush", "tools", cmd_flush,
     "Flush all regions in passed table or pass a region row to\n"
     "flush an individual region or a region server name to flush all its regions.\n"
     "For example:\n"
     "\n"
     "  strata> flush 'TABLENAME'\n"
     "  strata> flush 'TABLENAME','FAMILYNAME'\n"
     "  strata> flush 'REGIONNAME'\n"
     "  strata> flush 'REGIONNAME','FAMILYNAME'\n"
     "  strata> flush 'ENCODED_REGIONNAME'\n"
     "  strata> flush 'ENCODED_REGIONNAME','FAMILYNAME'\n"
     "  strata> flush 'REGION_SERVER_NAME'\n"
     "A family flush writes only that family's memstore to a store file.\n"},
    {"rit", "tools", cmd_rit,
     "List all regions in transition.\n"
     "Examples:\n"
     "  strata> rit\n"},
    {"get_splits", "ddl", cmd_get_splits,
     "Get the splits of the named table:\n"
     "  strata> get_splits 't1'\n"
     "  strata> get_splits 'ns1:t1'\n"
     "\n"
     "Prints 'Total number of splits = N' (N counts the regions, as HBase does: the\n"
     "split keys plus one), then each split key: the start key of every region but\n"
     "the first.\n"},
    {"list_regions", "ddl", cmd_list_regions,
     "List all regions for a particular table, optionally filtered by a server name prefix,\n"
     "with their server name, region name, start key, end key, size of the region in MB,\n"
     "number of requests and locality (always 1.0: every server reads the shared root\n"
     "directory). The columns can be picked with an array as third parameter.\n"
     "\n"
     "Examples:\n"
     "  strata> list_regions 'table_name'\n"
     "  strata> list_regions 'table_name', 'server_name'\n"
     "  strata> list_regions 'table_name', {SERVER_NAME => 'server_name'}\n"
     "  strata> list_regions 'table_name', {}, ['SERVER_NAME', 'start_key']\n"
     "  strata> list_regions 'table_name', '', ['SERVER_NAME', 'start_key']\n"},
    {"locate_region", "ddl", cmd_locate_region,
     "Locate the region given a table name and a row-key\n"
     "\n"
     "  strata> locate_region 'tableName', 'key0'\n"},
    {"major_compact", "tools", cmd_major_compact,
     "Run major compaction on passed table or pass a region row\n"
     "to major compact an individual region.\n"
     "Examples:\n"
     "Compact all regions in a table:\n"
     "  strata> major_compact 't1'\n"
     "  strata> major_compact 'ns1:t1'\n"
     "Compact an entire region:\n"
     "  strata> major_compact 'r1'\n"
     "Compact a single column family within a region:\n"
     "  strata> major_compact 'r1', 'c1'\n"
     "Compact a single column family within a table:\n"
     "  strata> major_compact 't1', 'c1'\n"},
    {"move", "tools", cmd_move,
     "Move a region.  Optionally specify target regionserver else we choose one\n"
     "at random.  NOTE: You pass the encoded region name, not the region name so\n"
     "this command is a little different to the others.  The encoded region name\n"
     "is the hash suffix on region names: e.g. if the region name were\n"
     "TestTable,0094429456,1289497600452.527db22f95c8a9e0116f0cc13c680396. then\n"
     "the encoded region name portion is 527db22f95c8a9e0116f0cc13c680396\n"
     "A server name is its host, port plus startcode. For example:\n"
     "host187.example.com,60020,1289493121758\n"
     "Examples:\n"
     "\n"
     "  strata> move 'ENCODED_REGIONNAME'\n"
     "  strata> move 'ENCODED_REGIONNAME', 'SERVER_NAME'\n"},
    {"unassign", "tools", cmd_unassign,
     "Unassign a region. The region is closed; the master reopens a region of an\n"
     "enabled table on its own later. Use with caution.\n"
     "\n"
     "  strata> unassign 'REGIONNAME'\n"
     "  strata> unassign 'ENCODED_REGIONNAME'\n"
     "  strata> unassign 'ENCODED_REGIONNAME', true\n"},
    {NULL, NULL, NULL, NULL},
};
