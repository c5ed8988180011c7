/*
 * shell_cmd_dml.c - data commands: put, get, scan, count, delete, deleteall, incr,
 * get_counter, append. Arguments as HBase's shell takes them (table.rb); cells print as
 * "column=cf:q, timestamp=T, value=V" (scan) or "cf:q  timestamp=T, value=V" (get), every
 * byte string through Bytes.toStringBinary, delete markers of a raw scan as
 * "type=DeleteColumn" (shell_cells.c). Counters are 8-byte big-endian. scan, get and count
 * of strata:meta read the catalog through the master (strata_admin_scan_meta); writes to
 * it are refused before they get here (shell_commands.c).
 *
 * Thread-safety: a session belongs to one thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "shell/shell_internal.h"

/* The scalar args[i] as bytes (Ruby's to_s) into b. */
static int bytes_arg(const shell_value *args, size_t i, const char *what, buf_t *b)
{
    if (i >= args->n)
        return st_error(ST_INVALID_ARGUMENT, "%s is missing", what);
    return shell_to_s(&args->items[i], what, b);
}

/* Table, row and (if col) column arguments 0, 1, 2. */
typedef struct target {
    const shell_value *table;
    buf_t row;
    buf_t col;
    const char *fam, *qual;
    size_t fam_len, qual_len;
    bool has_qual;
} target;

static int target_args(const shell_value *args, bool col, target *t)
{
    int rc = shell_str_arg(args, 0, "Table name", &t->table);
    if (rc == ST_OK)
        rc = bytes_arg(args, 1, "Row", &t->row);
    if (rc == ST_OK && col)
        rc = bytes_arg(args, 2, "Column", &t->col);
    if (rc == ST_OK && col)
        shell_split_column((char *)t->col.data, t->col.len, &t->fam, &t->fam_len, &t->qual,
                           &t->qual_len, &t->has_qual);
    return rc;
}

static void target_free(target *t)
{
    buf_free(&t->row);
    buf_free(&t->col);
}

/* An optional timestamp argument (nil or a hash: none). */
static int ts_arg(const shell_value *args, size_t i, int64_t *ts)
{
    *ts = STRATA_LATEST_TIMESTAMP;
    if (i >= args->n || args->items[i].kind == SHELL_V_NIL || args->items[i].kind == SHELL_V_HASH)
        return ST_OK;
    return shell_int_value(&args->items[i], "Timestamp", ts);
}

/* The options a write takes in HBase's shell after its positional arguments: ATTRIBUTES
 * is applied by the command (shell_attributes_apply); the others are refused with their
 * reason until Strata has them, so that no script believes they applied. */
static int check_write_options(const shell_value *h, const char *cmd)
{
    for (size_t i = 0; i < h->n; i++) {
        const shell_value *k = shell_hash_key(h, i);
        const char *key = k->kind == SHELL_V_STR ? k->s : "";
        if (strcmp(key, "ATTRIBUTES") == 0)
            continue;
        if (strcmp(key, "TTL") == 0)
            return st_error(ST_INVALID_ARGUMENT,
                            "%s: TTL is not supported: Strata keeps no time-to-live per cell; a "
                            "family's TTL expires its cells (alter 't', {NAME => 'f', TTL => "
                            "seconds})",
                            cmd);
        if (strcmp(key, "VISIBILITY") == 0)
            return st_error(ST_INVALID_ARGUMENT,
                            "%s: VISIBILITY is not supported: Strata has no visibility labels",
                            cmd);
        buf_t b = {0};
        shell_value_inspect(k, &b);
        int rc = st_error(ST_INVALID_ARGUMENT, "Unknown argument %s for %s",
                          b.data ? (char *)b.data : "?", cmd);
        buf_free(&b);
        return rc;
    }
    return ST_OK;
}

/* The arguments of a write past its nfixed positional ones: up to nopt optional scalars
 * (a timestamp, an amount: nil or a Hash may stand in their place) and then at most one
 * Hash of options, which must come last; *opts gets it (NULL: none). */
static int check_write_tail(const shell_value *args, size_t nfixed, size_t nopt, const char *cmd,
                            const shell_value **opts)
{
    *opts = NULL;
    for (size_t i = nfixed; i < args->n; i++) {
        const shell_value *v = &args->items[i];
        if (v->kind == SHELL_V_HASH) {
            if (i + 1 != args->n)
                return st_error(ST_INVALID_ARGUMENT, "%s: nothing may follow its options hash",
                                cmd);
            *opts = v;
            return check_write_options(v, cmd);
        }
        if (i >= nfixed + nopt)
            return st_error(ST_INVALID_ARGUMENT,
                            "%s: argument %zu must be a Hash of options, not %s", cmd, i + 1,
                            shell_value_type(v));
    }
    return ST_OK;
}

/* FILTER: a filter-language String; a NUL byte in it (a "\x00" in double quotes) is
 * refused, as the filter text cannot carry one. */
static int check_filter(const shell_value *f)
{
    if (f->kind != SHELL_V_STR)
        return st_error(ST_INVALID_ARGUMENT, "FILTER must be a filter-language String");
    if (strlen(f->s) != f->len)
        return st_error(ST_INVALID_ARGUMENT,
                        "FILTER holds a NUL byte at offset %zu (a \"\\x00\" in double quotes); "
                        "the filter language cannot carry one",
                        strlen(f->s));
    return ST_OK;
}

/* ---- cell text ---- */

/* "family:qualifier" of cell i, both through FORMATTER (as HBase's shell does). */
static int column_text(const strata_result_t *r, size_t i, const shell_formats *fm, buf_t *b)
{
    size_t fl, ql;
    const char *f = strata_result_cell_family(r, i, &fl);
    const char *q = strata_result_cell_qualifier(r, i, &ql);
    buf_reset(b);
    int rc = shell_conv_apply(fm->all, f, fl, b);
    if (rc == ST_OK)
        rc = buf_append_u8(b, ':') == ST_OK ? ST_OK : st_error(ST_NOMEM, "out of memory");
    if (rc == ST_OK)
        rc = shell_conv_apply(fm->all, q, ql, b);
    return rc;
}

/* "timestamp=T, value=V" of cell i, V through its column's converter. */
static int cell_text(const strata_result_t *r, size_t i, bool meta, int64_t maxlength,
                     const shell_formats *fm, buf_t *b)
{
    size_t vl, fl, ql;
    const char *v = strata_result_cell_value(r, i, &vl);
    int64_t ts = strata_result_cell_timestamp(r, i);
    strata_cell_type type = strata_result_cell_type(r, i);
    const char *f = strata_result_cell_family(r, i, &fl);
    const char *q = strata_result_cell_qualifier(r, i, &ql);
    shell_conv conv = shell_formats_value(fm, f, fl, q, ql);
    if (meta && conv == SHELL_CONV_BINARY) {
        shell_meta_cell_text(b, f, fl, q, ql, ts, type, v, vl, maxlength);
        return ST_OK;
    }
    return shell_cell_text_as(b, ts, type, v, vl, maxlength, conv);
}

static bool is_meta(const char *table)
{
    return strcmp(table, SHELL_META_TABLE) == 0;
}

/* ---- put ---- */

static int cmd_put(shell_session *s, const shell_value *args)
{
    target t = {0};
    buf_t val = {0};
    strata_table_t *tb = NULL;
    strata_mutation_t *m = NULL;
    const shell_value *opts = NULL;
    int64_t ts;
    char *err = NULL;
    int rc = shell_nargs(args, 4, 6);
    if (rc == ST_OK)
        rc = check_write_tail(args, 4, 1, "put", &opts);
    if (rc == ST_OK)
        rc = target_args(args, true, &t);
    if (rc == ST_OK)
        rc = bytes_arg(args, 3, "Value", &val);
    if (rc == ST_OK)
        rc = ts_arg(args, 4, &ts);
    if (rc == ST_OK)
        rc = shell_table(s, t.table->s, &tb);
    if (rc == ST_OK && !(m = strata_put_create((char *)t.row.data, t.row.len)))
        rc = st_error(ST_NOMEM, "out of memory");
    if (rc == ST_OK) {
        strata_put_add(m, t.fam, t.fam_len, t.qual, t.qual_len, ts, (char *)val.data, val.len);
        rc = shell_attributes_apply(opts, m, NULL, NULL);
    }
    if (rc == ST_OK) {
        strata_table_put(tb, m, &err);
        if (err)
            rc = shell_data_error(s, t.table->s, err);
    }
    strata_mutation_destroy(m);
    strata_table_close(tb);
    buf_free(&val);
    target_free(&t);
    return rc;
}

/* ---- get ---- */

/* Adds one "family[:qualifier[:converter]]" column to g or sc, its converter to fm (NULL:
 * only checked). */
static int add_column(strata_get_t *g, strata_scan_t *sc, shell_formats *fm, const shell_value *c)
{
    buf_t b = {0};
    const char *f, *q;
    size_t fl, ql, cl;
    bool hq;
    int rc = shell_to_s(c, "Column", &b);
    if (rc == ST_OK)
        rc = shell_formats_column(fm, (char *)b.data, b.len, &cl);
    if (rc != ST_OK) {
        buf_free(&b);
        return rc;
    }
    shell_split_column((char *)b.data, cl, &f, &fl, &q, &ql, &hq);
    if (g)
        strata_get_add_column(g, f, fl, hq ? q : NULL, ql);
    else
        strata_scan_add_column(sc, f, fl, hq ? q : NULL, ql);
    buf_free(&b);
    return ST_OK;
}

/* A column, or an array of them. */
static int add_columns(strata_get_t *g, strata_scan_t *sc, shell_formats *fm,
                       const shell_value *v)
{
    if (v->kind != SHELL_V_ARRAY)
        return v->kind == SHELL_V_STR
                   ? add_column(g, sc, fm, v)
                   : st_error(ST_INVALID_ARGUMENT,
                              "COLUMNS must be specified as a String or an Array");
    for (size_t i = 0; i < v->n; i++) {
        int rc = add_column(g, sc, fm, &v->items[i]);
        if (rc != ST_OK)
            return rc;
    }
    return ST_OK;
}

/* TIMERANGE => [from, to] or TIMESTAMP => ts, into from/to; *set if either was given. */
static int time_range(const shell_value *h, int64_t *from, int64_t *to, bool *set)
{
    const shell_value *tr = shell_hash_get(h, "TIMERANGE"), *ts = shell_hash_get(h, "TIMESTAMP");
    int rc = ST_OK;
    *set = tr || ts;
    if (tr && (tr->kind != SHELL_V_ARRAY || tr->n != 2))
        return st_error(ST_INVALID_ARGUMENT, "TIMERANGE must be [min_stamp, max_stamp]");
    if (tr) {
        rc = shell_int_value(&tr->items[0], "TIMERANGE start", from);
        if (rc == ST_OK)
            rc = shell_int_value(&tr->items[1], "TIMERANGE end", to);
    } else if (ts) {
        rc = shell_int_value(ts, "TIMESTAMP", from);
        *to = *from + 1;
    }
    if (rc == ST_OK && *set && *from > *to)
        rc = st_error(ST_INVALID_ARGUMENT, "TIMERANGE start %lld is after its end %lld",
                      (long long)*from, (long long)*to);
    return rc;
}

/* VERSIONS and MAXLENGTH of h. */
static int versions_maxlength(const shell_value *h, int64_t *versions, int64_t *maxlen)
{
    const shell_value *v = shell_hash_get(h, "VERSIONS"), *ml = shell_hash_get(h, "MAXLENGTH");
    int rc = v ? shell_int_value(v, "VERSIONS", versions) : ST_OK;
    if (rc == ST_OK && v && (*versions < 1 || *versions > INT32_MAX))
        rc = st_error(ST_INVALID_ARGUMENT, "VERSIONS must be at least 1");
    if (rc == ST_OK && ml)
        rc = shell_int_value(ml, "MAXLENGTH", maxlen);
    return rc;
}

static const char *const GET_KEYS[] = {"COLUMN",    "COLUMNS",   "VERSIONS",        "TIMERANGE",
                                       "TIMESTAMP", "FILTER",    "MAXLENGTH",       "FORMATTER",
                                       "FORMATTER_CLASS", "ATTRIBUTES", NULL};

/* strata:meta is read through the master (strata_admin_scan_meta), which takes neither
 * operation attributes nor scan metrics. */
static int refuse_on_meta(const char *what)
{
    return st_error(ST_INVALID_ARGUMENT,
                    "%s: %s is read through the master, which takes no operation attributes "
                    "and counts no scan metrics",
                    what, SHELL_META_TABLE);
}

/* get's options into g, or (the catalog's get) into the one-row scan sc. */
static int get_options(strata_get_t *g, strata_scan_t *sc, shell_formats *fm,
                       const shell_value *h, int64_t *maxlen)
{
    const shell_value *cols = shell_hash_get(h, "COLUMNS"), *f = shell_hash_get(h, "FILTER");
    int64_t from = 0, to = 0, versions = 1;
    bool range;
    int rc = shell_check_keys(h, GET_KEYS, "get");
    if (!cols)
        cols = shell_hash_get(h, "COLUMN");
    if (rc == ST_OK && cols)
        rc = add_columns(g, sc, fm, cols);
    if (rc == ST_OK)
        rc = shell_formats_options(fm, h);
    if (rc == ST_OK)
        rc = versions_maxlength(h, &versions, maxlen);
    if (rc == ST_OK)
        rc = time_range(h, &from, &to, &range);
    if (rc == ST_OK && f)
        rc = check_filter(f);
    if (rc == ST_OK && !g && shell_hash_get(h, "ATTRIBUTES"))
        rc = refuse_on_meta("ATTRIBUTES");
    if (rc == ST_OK && g)
        rc = shell_attributes_apply(h, NULL, g, NULL);
    if (rc != ST_OK)
        return rc;
    if (g) {
        strata_get_set_max_versions(g, (uint32_t)versions);
        if (range)
            strata_get_set_time_range(g, from, to);
        if (f)
            strata_get_set_filter(g, f->s);
    } else {
        strata_scan_set_max_versions(sc, (uint32_t)versions);
        if (range)
            strata_scan_set_time_range(sc, from, to);
        if (f)
            strata_scan_set_filter(sc, f->s);
    }
    return ST_OK;
}

/* The cells of a get; a value its converter cannot read stops it with the error (after
 * the header, as in HBase). */
static int print_get(shell_session *s, const strata_result_t *r, bool meta, int64_t maxlen,
                     const shell_formats *fm)
{
    buf_t col = {0}, cell = {0};
    size_t n = r ? strata_result_cell_count(r) : 0;
    int rc = ST_OK;
    shell_header(s, "COLUMN", "CELL");
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        rc = column_text(r, i, fm, &col);
        buf_reset(&cell);
        if (rc == ST_OK)
            rc = cell_text(r, i, meta, maxlen, fm, &cell);
        if (rc == ST_OK)
            shell_row2(s, (char *)col.data, (char *)cell.data);
    }
    if (rc == ST_OK)
        shell_footer(s, n ? 1 : 0);
    buf_free(&col);
    buf_free(&cell);
    return rc;
}

/* Columns and options of get (args 2...) into g or sc. */
static int get_args(const shell_value *args, strata_get_t *g, strata_scan_t *sc,
                    shell_formats *fm, int64_t *maxlen)
{
    int rc = ST_OK;
    if (args->n > 2 && args->items[2].kind == SHELL_V_HASH)
        return args->n == 3 ? get_options(g, sc, fm, &args->items[2], maxlen)
                            : st_error(ST_INVALID_ARGUMENT, "nothing may follow get's options");
    for (size_t i = 2; rc == ST_OK && i < args->n; i++)
        rc = add_columns(g, sc, fm, &args->items[i]);
    return rc;
}

/* The catalog's rows selected by sc (strata_admin_scan_meta); *out the caller's. */
static int meta_rows(shell_session *s, const strata_scan_t *sc, strata_meta_rows_t **out)
{
    strata_admin_t *a = NULL;
    char *err = NULL;
    int rc = shell_admin(s, &a);
    if (rc == ST_OK && !(*out = strata_admin_scan_meta(a, sc, &err)))
        rc = shell_data_error(s, SHELL_META_TABLE, err);
    return rc;
}

/* get 'strata:meta', ROW: a scan of that one row. */
static int get_meta(shell_session *s, const shell_value *args, const target *t)
{
    strata_scan_t *sc = strata_scan_create();
    strata_meta_rows_t *rows = NULL;
    buf_t stop = {0};
    int64_t maxlen = -1;
    shell_formats fm = {0};
    int rc = sc ? get_args(args, NULL, sc, &fm, &maxlen) : st_error(ST_NOMEM, "out of memory");
    if (rc == ST_OK) {
        buf_append(&stop, t->row.data, t->row.len);
        buf_append_u8(&stop, 0);
        strata_scan_set_start(sc, (char *)t->row.data, t->row.len);
        strata_scan_set_stop(sc, (char *)stop.data, stop.len);
        strata_scan_set_limit(sc, 1);
        rc = meta_rows(s, sc, &rows);
    }
    if (rc == ST_OK)
        rc = print_get(s, strata_meta_rows_get(rows, 0), true, maxlen, &fm);
    strata_meta_rows_destroy(rows);
    strata_scan_destroy(sc);
    buf_free(&stop);
    shell_formats_free(&fm);
    return rc;
}

static int cmd_get(shell_session *s, const shell_value *args)
{
    target t = {0};
    strata_table_t *tb = NULL;
    strata_get_t *g = NULL;
    strata_result_t *r = NULL;
    int64_t maxlen = -1;
    shell_formats fm = {0};
    char *err = NULL;
    int rc = shell_nargs(args, 2, -1);
    if (rc == ST_OK)
        rc = target_args(args, false, &t);
    if (rc == ST_OK && is_meta(t.table->s)) {
        rc = get_meta(s, args, &t);
        target_free(&t);
        return rc;
    }
    if (rc == ST_OK && !(g = strata_get_create((char *)t.row.data, t.row.len)))
        rc = st_error(ST_NOMEM, "out of memory");
    if (rc == ST_OK)
        rc = get_args(args, g, NULL, &fm, &maxlen);
    if (rc == ST_OK)
        rc = shell_table(s, t.table->s, &tb);
    if (rc == ST_OK && !(r = strata_table_get(tb, g, &err)))
        rc = shell_data_error(s, t.table->s, err);
    if (rc == ST_OK)
        rc = print_get(s, r, false, maxlen, &fm);
    shell_formats_free(&fm);
    strata_result_destroy(r);
    strata_get_destroy(g);
    strata_table_close(tb);
    target_free(&t);
    return rc;
}

/* ---- scan ---- */

static const char *const SCAN_KEYS[] = {
    "STARTROW", "STOPROW",   "ROWPREFIXFILTER", "COLUMNS",      "COLUMN",
    "LIMIT",    "VERSIONS",  "TIMERANGE",       "TIMESTAMP",    "REVERSED",
    "FILTER",   "CACHE",     "MAXLENGTH",       "CACHE_BLOCKS", "RAW",
    "BATCH",    "ISOLATION_LEVEL", "FORMATTER", "FORMATTER_CLASS", "ATTRIBUTES",
    "ALL_METRICS", "METRICS", NULL};

/* count takes a scan's keys (as HBase's _hash_to_scan) but the formatters, and INTERVAL. */
static const char *const COUNT_KEYS[] = {
    "STARTROW", "STOPROW",   "ROWPREFIXFILTER", "COLUMNS",      "COLUMN",
    "LIMIT",    "VERSIONS",  "TIMERANGE",       "TIMESTAMP",    "REVERSED",
    "FILTER",   "CACHE",     "MAXLENGTH",       "CACHE_BLOCKS", "RAW",
    "BATCH",    "ISOLATION_LEVEL", "INTERVAL", "ATTRIBUTES", NULL};

static int row_option(strata_scan_t *sc, const shell_value *h, const char *key, bool start)
{
    const shell_value *v = shell_hash_get(h, key);
    buf_t b = {0};
    if (!v)
        return ST_OK;
    int rc = shell_to_s(v, key, &b);
    if (rc == ST_OK && start)
        strata_scan_set_start(sc, (char *)b.data, b.len);
    else if (rc == ST_OK)
        strata_scan_set_stop(sc, (char *)b.data, b.len);
    buf_free(&b);
    return rc;
}

/* ROWPREFIXFILTER: start at the prefix, stop at the first key past every key with it. */
static int prefix_option(strata_scan_t *sc, const shell_value *h)
{
    const shell_value *v = shell_hash_get(h, "ROWPREFIXFILTER");
    buf_t b = {0};
    if (!v)
        return ST_OK;
    int rc = shell_to_s(v, "ROWPREFIXFILTER", &b);
    if (rc == ST_OK) {
        strata_scan_set_start(sc, (char *)b.data, b.len);
        size_t n = b.len;
        while (n > 0 && b.data[n - 1] == 0xFF)
            n--;
        if (n > 0) {
            b.data[n - 1]++;
            strata_scan_set_stop(sc, (char *)b.data, n);
        }
    }
    buf_free(&b);
    return rc;
}

static int scan_numbers(strata_scan_t *sc, const shell_value *h, int64_t *limit, int64_t *maxlen)
{
    const shell_value *l = shell_hash_get(h, "LIMIT"), *c = shell_hash_get(h, "CACHE");
    const shell_value *b = shell_hash_get(h, "BATCH"), *iso = shell_hash_get(h, "ISOLATION_LEVEL");
    int64_t versions = 1, cache = 0, batch = 0;
    int rc = l ? shell_int_value(l, "LIMIT", limit) : ST_OK;
    if (rc == ST_OK && c)
        rc = shell_int_value(c, "CACHE", &cache);
    if (rc == ST_OK && b)
        rc = shell_int_value(b, "BATCH", &batch);
    if (rc == ST_OK && batch > UINT32_MAX)
        rc = st_error(ST_INVALID_ARGUMENT, "BATCH %lld is too large", (long long)batch);
    /* Strata's scans read committed cells only: HBase's default, READ_COMMITTED */
    if (rc == ST_OK && iso && (iso->kind != SHELL_V_STR || strcmp(iso->s, "READ_COMMITTED") != 0))
        rc = st_error(ST_UNSUPPORTED,
                      "ISOLATION_LEVEL %s is not supported: Strata scans read committed cells "
                      "only (READ_COMMITTED)",
                      iso->kind == SHELL_V_STR ? iso->s : shell_value_type(iso));
    if (rc == ST_OK)
        rc = versions_maxlength(h, &versions, maxlen);
    if (rc != ST_OK)
        return rc;
    strata_scan_set_max_versions(sc, (uint32_t)versions);
    if (cache > 0)
        strata_scan_set_caching(sc, (uint32_t)(cache > 100000 ? 100000 : cache));
    if (*limit > 0)
        strata_scan_set_limit(sc, (uint64_t)*limit);
    if (batch > 0) /* at most BATCH cells a result: a wide row prints in parts, each counted */
        strata_scan_set_batch(sc, (uint32_t)batch);
    return ST_OK;
}

/* A scan's options (keys those allowed for command where) into sc and fm. */
static int scan_options(strata_scan_t *sc, const shell_value *h, const char *const *keys,
                        const char *where, shell_formats *fm, int64_t *limit, int64_t *maxlen)
{
    const shell_value *cols = shell_hash_get(h, "COLUMNS"), *f = shell_hash_get(h, "FILTER");
    const shell_value *rev = shell_hash_get(h, "REVERSED"), *raw = shell_hash_get(h, "RAW");
    int64_t from = 0, to = 0;
    bool range, reversed = false, is_raw = false;
    int rc = h->kind == SHELL_V_HASH ? shell_check_keys(h, keys, where)
                                     : st_error(ST_INVALID_ARGUMENT, "Arguments should be a Hash");
    if (!cols)
        cols = shell_hash_get(h, "COLUMN");
    if (rc == ST_OK)
        rc = row_option(sc, h, "STARTROW", true);
    if (rc == ST_OK)
        rc = row_option(sc, h, "STOPROW", false);
    if (rc == ST_OK)
        rc = prefix_option(sc, h);
    if (rc == ST_OK && cols)
        rc = add_columns(NULL, sc, fm, cols);
    if (rc == ST_OK && fm)
        rc = shell_formats_options(fm, h);
    if (rc == ST_OK)
        rc = scan_numbers(sc, h, limit, maxlen);
    if (rc == ST_OK)
        rc = time_range(h, &from, &to, &range);
    if (rc == ST_OK && rev)
        rc = shell_bool_value(rev, "REVERSED", &reversed);
    if (rc == ST_OK && raw)
        rc = shell_bool_value(raw, "RAW", &is_raw);
    if (rc == ST_OK && f)
        rc = check_filter(f);
    if (rc == ST_OK)
        rc = shell_attributes_apply(h, NULL, NULL, sc);
    if (rc != ST_OK)
        return rc;
    if (range)
        strata_scan_set_time_range(sc, from, to);
    strata_scan_set_reversed(sc, reversed);
    strata_scan_set_raw(sc, is_raw);
    if (f)
        strata_scan_set_filter(sc, f->s);
    return ST_OK;
}

/* The cells of one row; the row key through FORMATTER. */
static int print_row(shell_session *s, const strata_result_t *r, bool meta, int64_t maxlen,
                     const shell_formats *fm, buf_t *key, buf_t *col, buf_t *cell)
{
    size_t rl;
    const char *row = strata_result_row(r, &rl);
    buf_reset(key);
    int rc = shell_conv_apply(fm->all, row, rl, key);
    for (size_t i = 0; rc == ST_OK && i < strata_result_cell_count(r); i++) {
        rc = column_text(r, i, fm, col);
        buf_reset(cell);
        buf_append(cell, "column=", 7);
        buf_append(cell, col->data, col->len);
        buf_append(cell, ", ", 2);
        if (rc == ST_OK)
            rc = cell_text(r, i, meta, maxlen, fm, cell);
        if (rc == ST_OK)
            shell_row2(s, (char *)key->data, (char *)cell->data);
    }
    return rc;
}

/* How run_scan prints what it reads: every row unless quiet; for count (quiet),
 * progress every interval rows (> 0). */
typedef struct scan_out {
    bool quiet, meta;
    int64_t interval, maxlen;
    const shell_formats *fm;
    long *rows;
    buf_t key, col, cell;
    strata_scan_metric *metrics; /* the scanner's metrics at its end, if asked (NULL: no) */
    size_t *nmetrics;
} scan_out;

static int scan_print(shell_session *s, scan_out *o, const strata_result_t *r)
{
    (*o->rows)++;
    if (!o->quiet)
        return print_row(s, r, o->meta, o->maxlen, o->fm, &o->key, &o->col, &o->cell);
    if (o->quiet && o->interval > 0 && *o->rows % o->interval == 0) {
        size_t rl;
        const char *row = strata_result_row(r, &rl);
        buf_reset(&o->key);
        shell_escape_binary(&o->key, row, rl);
        fprintf(s->out, "Current count: %ld, row: %s\n", *o->rows, (char *)o->key.data);
    }
    return ST_OK;
}

/* The catalog's scan: every selected row from the master, then printed. */
static int scan_meta(shell_session *s, const strata_scan_t *sc, scan_out *o)
{
    strata_meta_rows_t *l = NULL;
    int rc = meta_rows(s, sc, &l);
    if (rc == ST_OK && !o->quiet)
        shell_header(s, "ROW", "COLUMN+CELL");
    for (size_t i = 0; rc == ST_OK && i < strata_meta_rows_count(l); i++)
        rc = scan_print(s, o, strata_meta_rows_get(l, i));
    strata_meta_rows_destroy(l);
    return rc;
}

static int scan_table(shell_session *s, const char *table, const strata_scan_t *sc, scan_out *o)
{
    strata_table_t *tb = NULL;
    strata_scanner_t *it = NULL;
    char *err = NULL;
    int rc = shell_table(s, table, &tb);
    if (rc == ST_OK && !o->quiet)
        shell_header(s, "ROW", "COLUMN+CELL");
    if (rc == ST_OK && !(it = strata_table_scan(tb, sc, &err)))
        rc = shell_data_error(s, table, err);
    while (rc == ST_OK) {
        strata_result_t *r = strata_scanner_next(it, &err);
        if (!r) {
            rc = err ? shell_data_error(s, table, err) : ST_OK;
            break;
        }
        rc = scan_print(s, o, r);
        strata_result_destroy(r);
        if (rc == ST_OK && shell_interrupted)
            rc = st_error(ST_CLOSED, "interrupted after %ld row(s)", *o->rows);
    }
    if (rc == ST_OK && o->metrics) {
        size_t n = strata_scanner_metrics(it, o->metrics, STRATA_SCAN_METRICS_COUNT);
        *o->nmetrics = n < STRATA_SCAN_METRICS_COUNT ? n : STRATA_SCAN_METRICS_COUNT;
    }
    strata_scanner_close(it);
    strata_table_close(tb);
    return rc;
}

/* Runs sc over table (or the catalog), printing every row unless quiet; *rows counts
 * them. For count, interval > 0 prints progress every interval rows. With metrics
 * (may be NULL), the scanner's metrics at the end go there, *nmetrics of them. */
static int run_scan(shell_session *s, const char *table, const strata_scan_t *sc, bool quiet,
                    int64_t interval, int64_t maxlen, const shell_formats *fm, long *rows,
                    strata_scan_metric *metrics, size_t *nmetrics)
{
    static const shell_formats plain = {0};
    scan_out o = {.quiet = quiet, .meta = is_meta(table), .interval = interval,
                  .maxlen = maxlen, .fm = fm ? fm : &plain, .rows = rows,
                  .metrics = metrics, .nmetrics = nmetrics};
    int rc = o.meta ? scan_meta(s, sc, &o) : scan_table(s, table, sc, &o);
    buf_free(&o.key);
    buf_free(&o.col);
    buf_free(&o.cell);
    return rc;
}

static int cmd_scan(shell_session *s, const shell_value *args)
{
    const shell_value *t = NULL;
    strata_scan_t *sc = strata_scan_create();
    int64_t limit = 0, maxlen = -1;
    long rows = 0;
    shell_formats fm = {0};
    shell_metrics m = {0};
    strata_scan_metric mv[STRATA_SCAN_METRICS_COUNT];
    size_t nmv = 0;
    int rc = sc ? shell_nargs(args, 1, 2) : st_error(ST_NOMEM, "out of memory");
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Table name", &t);
    /* as HBase's _hash_to_scan: the metrics switch, then ATTRIBUTES (which may set the
     * switch's attribute too), then whatever the scan holds decides */
    if (rc == ST_OK && args->n == 2 && args->items[1].kind == SHELL_V_HASH)
        rc = shell_metrics_option(&args->items[1], sc, &m);
    if (rc == ST_OK && args->n == 2)
        rc = scan_options(sc, &args->items[1], SCAN_KEYS, "scan", &fm, &limit, &maxlen);
    m.on = rc == ST_OK && strata_scan_metrics_enabled(sc);
    if (rc == ST_OK && is_meta(t->s) && args->n == 2 &&
        (m.on || shell_hash_get(&args->items[1], "ATTRIBUTES")))
        rc = refuse_on_meta(m.on ? "scan metrics" : "ATTRIBUTES");
    if (rc == ST_OK)
        rc = run_scan(s, t->s, sc, false, 0, maxlen, &fm, &rows, m.on ? mv : NULL, &nmv);
    if (rc == ST_OK) {
        shell_footer(s, rows);
        shell_metrics_print(s, &m, mv, nmv);
    }
    shell_formats_free(&fm);
    strata_scan_destroy(sc);
    return rc;
}

/* ---- count ---- */

static int count_options(strata_scan_t *sc, const shell_value *v, int64_t *interval)
{
    if (v->kind == SHELL_V_INT)
        return shell_int_value(v, "INTERVAL", interval);
    const shell_value *i = v->kind == SHELL_V_HASH ? shell_hash_get(v, "INTERVAL") : NULL;
    int64_t limit = 0, maxlen = -1;
    int rc = scan_options(sc, v, COUNT_KEYS, "count", NULL, &limit, &maxlen);
    if (rc == ST_OK && i)
        rc = shell_int_value(i, "INTERVAL", interval);
    return rc;
}

static int cmd_count(shell_session *s, const shell_value *args)
{
    const shell_value *t = NULL;
    strata_scan_t *sc = strata_scan_create();
    int64_t interval = 1000;
    long rows = 0;
    int rc = sc ? shell_nargs(args, 1, 2) : st_error(ST_NOMEM, "out of memory");
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Table name", &t);
    if (rc == ST_OK) {
        strata_scan_set_caching(sc, 100);
        strata_scan_set_filter(sc, "FirstKeyOnlyFilter()");
    }
    if (rc == ST_OK && args->n == 2)
        rc = count_options(sc, &args->items[1], &interval);
    if (rc == ST_OK && is_meta(t->s) && args->n == 2 && args->items[1].kind == SHELL_V_HASH &&
        shell_hash_get(&args->items[1], "ATTRIBUTES"))
        rc = refuse_on_meta("ATTRIBUTES");
    if (rc == ST_OK)
        rc = run_scan(s, t->s, sc, true, interval, -1, NULL, &rows, NULL, NULL);
    if (rc == ST_OK)
        shell_footer(s, rows);
    strata_scan_destroy(sc);
    return rc;
}

/* ---- delete, deleteall ---- */

static int apply(shell_session *s, const char *table, const strata_mutation_t *m)
{
    strata_table_t *tb = NULL;
    char *err = NULL;
    int rc = shell_table(s, table, &tb);
    if (rc == ST_OK) {
        strata_table_delete(tb, m, &err);
        if (err)
            rc = shell_data_error(s, table, err);
    }
    strata_table_close(tb);
    return rc;
}

static int cmd_delete(shell_session *s, const shell_value *args)
{
    target t = {0};
    strata_mutation_t *m = NULL;
    const shell_value *opts = NULL;
    int64_t ts;
    int rc = shell_nargs(args, 3, 5);
    if (rc == ST_OK)
        rc = check_write_tail(args, 3, 1, "delete", &opts);
    if (rc == ST_OK)
        rc = target_args(args, true, &t);
    if (rc == ST_OK)
        rc = ts_arg(args, 3, &ts);
    if (rc == ST_OK && !(m = strata_delete_create((char *)t.row.data, t.row.len)))
        rc = st_error(ST_NOMEM, "out of memory");
    if (rc == ST_OK) {
        strata_delete_column(m, t.fam, t.fam_len, t.qual, t.qual_len, ts);
        rc = shell_attributes_apply(opts, m, NULL, NULL);
    }
    if (rc == ST_OK)
        rc = apply(s, t.table->s, m);
    strata_mutation_destroy(m);
    target_free(&t);
    return rc;
}

/* A row delete at ts: every family of the table up to ts. */
static int delete_row_at(shell_session *s, const char *table, strata_mutation_t *m, int64_t ts)
{
    shell_table_info d;
    int rc = shell_describe(s, table, &d);
    if (rc == ST_NOT_FOUND)
        rc = st_error(rc, "Unknown table %s!", table);
    for (size_t i = 0; rc == ST_OK && i < strata_table_descriptor_family_count(d.td); i++) {
        const char *f = strata_family_descriptor_name(strata_table_descriptor_family(d.td, i));
        strata_delete_family(m, f, strlen(f), ts);
    }
    shell_table_info_clear(&d);
    return rc;
}

/* What deleteall removes from each row: the column, the family, the row up to ts (every
 * family), or the whole row. */
typedef struct deleteall_what {
    const char *fam, *qual;
    size_t fam_len, qual_len;
    bool has_col, has_qual;
    int64_t ts;
    const shell_table_info *families; /* the row up to ts: the table's families */
    const shell_value *opts;          /* the options hash (ATTRIBUTES), or NULL */
} deleteall_what;

/* The delete of one row as w says, with w's attributes: ST_OK and *out, or the failure. */
static int deleteall_mutation(const uint8_t *row, size_t row_len, const deleteall_what *w,
                              strata_mutation_t **out)
{
    strata_mutation_t *m = strata_delete_create((const char *)row, row_len);
    *out = NULL;
    if (!m)
        return st_error(ST_NOMEM, "out of memory");
    if (w->has_col && w->has_qual)
        strata_delete_column(m, w->fam, w->fam_len, w->qual, w->qual_len, w->ts);
    else if (w->has_col)
        strata_delete_family(m, w->fam, w->fam_len, w->ts);
    else if (w->families)
        for (size_t i = 0; i < strata_table_descriptor_family_count(w->families->td); i++) {
            const char *f =
                strata_family_descriptor_name(strata_table_descriptor_family(w->families->td, i));
            strata_delete_family(m, f, strlen(f), w->ts);
        }
    int rc = shell_attributes_apply(w->opts, m, NULL, NULL);
    if (rc != ST_OK) {
        strata_mutation_destroy(m);
        return rc;
    }
    *out = m;
    return ST_OK;
}

/* Sends a batch of deletes; the first failure is the command's. */
static int flush_deletes(shell_session *s, const char *table, strata_table_t *tb,
                         strata_batch_t **b)
{
    char *err = NULL;
    if (strata_batch_count(*b) == 0)
        return ST_OK;
    strata_table_batch(tb, *b, &err);
    int rc = err ? shell_data_error(s, table, err) : ST_OK;
    strata_batch_destroy(*b);
    *b = strata_batch_create();
    return rc == ST_OK && !*b ? st_error(ST_NOMEM, "out of memory") : rc;
}

static const char *const DELETEALL_PREFIX_KEYS[] = {"ROWPREFIXFILTER", "CACHE", NULL};

/* deleteall 't', {ROWPREFIXFILTER => 'p' [, CACHE => n]} [, column [, ts]]: every row with
 * the prefix (read by a keys-only scan), deleted in batches of CACHE (100) rows. */
static int deleteall_prefix(shell_session *s, const shell_value *args)
{
    const shell_value *table = NULL, *h = &args->items[1];
    const shell_value *cache_v = shell_hash_get(h, "CACHE");
    deleteall_what w = {.ts = STRATA_LATEST_TIMESTAMP};
    shell_table_info info = {0};
    buf_t col = {0};
    int64_t cache = 100;
    strata_table_t *tb = NULL;
    strata_scanner_t *it = NULL;
    strata_batch_t *b = NULL;
    strata_mutation_t *probe = NULL;
    char *err = NULL;
    strata_scan_t *sc = strata_scan_create();
    int rc = sc ? shell_nargs(args, 2, 5) : st_error(ST_NOMEM, "out of memory");
    if (rc == ST_OK)
        rc = check_write_tail(args, 2, 2, "deleteall", &w.opts);
    if (rc == ST_OK) /* a bad ATTRIBUTES fails before any row is read */
        rc = deleteall_mutation((const uint8_t *)"", 0, &w, &probe);
    strata_mutation_destroy(probe);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Table name", &table);
    if (rc == ST_OK)
        rc = shell_check_keys(h, DELETEALL_PREFIX_KEYS, "deleteall");
    if (rc == ST_OK && !shell_hash_get(h, "ROWPREFIXFILTER"))
        rc = st_error(ST_INVALID_ARGUMENT, "deleteall takes a row or {ROWPREFIXFILTER => 'p'}");
    if (rc == ST_OK && cache_v && (rc = shell_int_value(cache_v, "CACHE", &cache)) == ST_OK &&
        (cache < 1 || cache > 100000))
        rc = st_error(ST_INVALID_ARGUMENT, "CACHE must be 1..100000, not %lld", (long long)cache);
    if (rc == ST_OK && args->n > 2 && args->items[2].kind != SHELL_V_NIL &&
        args->items[2].kind != SHELL_V_HASH)
        rc = bytes_arg(args, 2, "Column", &col);
    if (rc == ST_OK && col.len) {
        w.has_col = true;
        shell_split_column((char *)col.data, col.len, &w.fam, &w.fam_len, &w.qual, &w.qual_len,
                           &w.has_qual);
    }
    if (rc == ST_OK)
        rc = ts_arg(args, 3, &w.ts);
    if (rc == ST_OK && !w.has_col && w.ts != STRATA_LATEST_TIMESTAMP) {
        rc = shell_describe(s, table->s, &info);
        if (rc == ST_NOT_FOUND)
            rc = st_error(rc, "Unknown table %s!", table->s);
        w.families = &info;
    }
    if (rc == ST_OK)
        rc = prefix_option(sc, h);
    if (rc == ST_OK) {
        strata_scan_set_filter(sc, "FirstKeyOnlyFilter() AND KeyOnlyFilter()");
        strata_scan_set_caching(sc, (uint32_t)cache);
        rc = shell_table(s, table->s, &tb);
    }
    if (rc == ST_OK && !(it = strata_table_scan(tb, sc, &err)))
        rc = shell_data_error(s, table->s, err);
    if (rc == ST_OK && !(b = strata_batch_create()))
        rc = st_error(ST_NOMEM, "out of memory");
    while (rc == ST_OK) {
        strata_result_t *r = strata_scanner_next(it, &err);
        if (!r) {
            rc = err ? shell_data_error(s, table->s, err) : ST_OK;
            break;
        }
        size_t rl;
        const char *row = strata_result_row(r, &rl);
        strata_mutation_t *m = NULL;
        rc = deleteall_mutation((const uint8_t *)row, rl, &w, &m);
        strata_result_destroy(r);
        if (rc != ST_OK)
            break;
        strata_batch_add_mutation(b, m);
        strata_mutation_destroy(m);
        if (strata_batch_count(b) >= (size_t)cache)
            rc = flush_deletes(s, table->s, tb, &b);
        if (rc == ST_OK && shell_interrupted)
            rc = st_error(ST_CLOSED, "interrupted");
    }
    if (rc == ST_OK)
        rc = flush_deletes(s, table->s, tb, &b);
    strata_batch_destroy(b);
    strata_scanner_close(it);
    strata_table_close(tb);
    strata_scan_destroy(sc);
    shell_table_info_clear(&info);
    buf_free(&col);
    return rc;
}

static int cmd_deleteall(shell_session *s, const shell_value *args)
{
    if (args->n >= 2 && args->items[1].kind == SHELL_V_HASH)
        return deleteall_prefix(s, args);
    target t = {0};
    strata_mutation_t *m = NULL;
    const shell_value *opts = NULL;
    int64_t ts;
    bool has_col =
        args->n > 2 && args->items[2].kind != SHELL_V_NIL && args->items[2].kind != SHELL_V_HASH;
    int rc = shell_nargs(args, 2, 5);
    if (rc == ST_OK)
        rc = check_write_tail(args, 2, 2, "deleteall", &opts);
    if (rc == ST_OK)
        rc = target_args(args, has_col, &t);
    if (rc == ST_OK)
        rc = ts_arg(args, 3, &ts);
    if (rc == ST_OK && !(m = strata_delete_create((char *)t.row.data, t.row.len)))
        rc = st_error(ST_NOMEM, "out of memory");
    has_col = has_col && t.col.len > 0;
    if (rc == ST_OK && has_col && t.has_qual)
        strata_delete_column(m, t.fam, t.fam_len, t.qual, t.qual_len, ts);
    else if (rc == ST_OK && has_col)
        strata_delete_family(m, t.fam, t.fam_len, ts);
    else if (rc == ST_OK && ts != STRATA_LATEST_TIMESTAMP)
        rc = delete_row_at(s, t.table->s, m, ts);
    if (rc == ST_OK)
        rc = shell_attributes_apply(opts, m, NULL, NULL);
    if (rc == ST_OK)
        rc = apply(s, t.table->s, m);
    strata_mutation_destroy(m);
    target_free(&t);
    return rc;
}

/* ---- counters and append ---- */

static int need_qualifier(const target *t, const char *op)
{
    if (t->has_qual)
        return ST_OK;
    return st_error(ST_INVALID_ARGUMENT,
                    "Failed to provide both column family and column qualifier for %s", op);
}

/* Runs an increment or append m (one column) on table, its new value of that column into
 * *value (borrowed from *res, the caller's to destroy); *value NULL if the answer has none. */
static int read_modify_write(shell_session *s, const char *table, const strata_mutation_t *m,
                             strata_result_t **res, const char **value, size_t *len)
{
    strata_table_t *tb = NULL;
    char *err = NULL;
    *res = NULL;
    *value = NULL;
    *len = 0;
    int rc = shell_table(s, table, &tb);
    if (rc == ST_OK && !(*res = strata_table_read_modify_write(tb, m, &err)))
        rc = shell_data_error(s, table, err);
    if (rc == ST_OK && strata_result_cell_count(*res) > 0) {
        *value = strata_result_cell_value(*res, 0, len);
        if (!*value)
            *value = ""; /* an empty value is a value */
    }
    strata_table_close(tb);
    return rc;
}

static int cmd_incr(shell_session *s, const shell_value *args)
{
    target t = {0};
    strata_mutation_t *m = NULL;
    strata_result_t *res = NULL;
    const shell_value *opts = NULL;
    const char *v = NULL;
    size_t vl = 0;
    int64_t by = 1;
    int rc = shell_nargs(args, 3, 5);
    if (rc == ST_OK)
        rc = check_write_tail(args, 3, 1, "incr", &opts);
    if (rc == ST_OK)
        rc = target_args(args, true, &t);
    if (rc == ST_OK)
        rc = need_qualifier(&t, "incr");
    if (rc == ST_OK && args->n > 3 && args->items[3].kind != SHELL_V_HASH &&
        args->items[3].kind != SHELL_V_NIL)
        rc = shell_int_value(&args->items[3], "Increment", &by);
    if (rc == ST_OK && !(m = strata_increment_create((char *)t.row.data, t.row.len)))
        rc = st_error(ST_NOMEM, "out of memory");
    if (rc == ST_OK) {
        strata_increment_add(m, t.fam, t.fam_len, t.qual, t.qual_len, by);
        rc = shell_attributes_apply(opts, m, NULL, NULL);
    }
    if (rc == ST_OK)
        rc = read_modify_write(s, t.table->s, m, &res, &v, &vl);
    if (rc == ST_OK && !v) /* HBase: an empty result */
        fprintf(s->out, "No counter found at specified coordinates\n");
    else if (rc == ST_OK && vl != 8)
        rc = st_error(ST_INVALID_ARGUMENT, "the value at %s is %zu bytes, not an 8-byte counter",
                      (char *)t.col.data, vl);
    else if (rc == ST_OK) {
        uint64_t u = 0;
        for (int i = 0; i < 8; i++)
            u = u << 8 | (unsigned char)v[i];
        fprintf(s->out, "COUNTER VALUE = %lld\n", (long long)(int64_t)u);
    }
    strata_result_destroy(res);
    strata_mutation_destroy(m);
    target_free(&t);
    return rc;
}

static int cmd_get_counter(shell_session *s, const shell_value *args)
{
    target t = {0};
    strata_table_t *tb = NULL;
    strata_get_t *g = NULL;
    strata_result_t *r = NULL;
    char *err = NULL;
    int rc = shell_nargs(args, 3, 3);
    if (rc == ST_OK)
        rc = target_args(args, true, &t);
    if (rc == ST_OK)
        rc = need_qualifier(&t, "get_counter");
    if (rc == ST_OK && !(g = strata_get_create((char *)t.row.data, t.row.len)))
        rc = st_error(ST_NOMEM, "out of memory");
    if (rc == ST_OK) {
        strata_get_add_column(g, t.fam, t.fam_len, t.qual, t.qual_len);
        rc = shell_table(s, t.table->s, &tb);
    }
    if (rc == ST_OK && !(r = strata_table_get(tb, g, &err)))
        rc = shell_data_error(s, t.table->s, err);
    size_t vl = 0;
    const unsigned char *v = rc == ST_OK && strata_result_cell_count(r)
                                 ? (const void *)strata_result_cell_value(r, 0, &vl)
                                 : NULL;
    if (rc == ST_OK && !v)
        fprintf(s->out, "No counter found at specified coordinates\n");
    else if (rc == ST_OK && vl != 8)
        rc = st_error(ST_INVALID_ARGUMENT, "the value at %s is %zu bytes, not an 8-byte counter",
                      (char *)t.col.data, vl);
    else if (rc == ST_OK) {
        uint64_t u = 0;
        for (int i = 0; i < 8; i++)
            u = u << 8 | v[i];
        fprintf(s->out, "COUNTER VALUE = %lld\n", (long long)(int64_t)u);
    }
    strata_result_destroy(r);
    strata_get_destroy(g);
    strata_table_close(tb);
    target_free(&t);
    return rc;
}

static int cmd_append(shell_session *s, const shell_value *args)
{
    target t = {0};
    buf_t val = {0}, shown = {0};
    strata_mutation_t *m = NULL;
    strata_result_t *res = NULL;
    const shell_value *opts = NULL;
    const char *v = NULL;
    size_t vl = 0;
    int rc = shell_nargs(args, 4, 5);
    if (rc == ST_OK)
        rc = check_write_tail(args, 4, 0, "append", &opts);
    if (rc == ST_OK)
        rc = target_args(args, true, &t);
    if (rc == ST_OK)
        rc = need_qualifier(&t, "append");
    if (rc == ST_OK)
        rc = bytes_arg(args, 3, "Value", &val);
    if (rc == ST_OK && !(m = strata_append_create((char *)t.row.data, t.row.len)))
        rc = st_error(ST_NOMEM, "out of memory");
    if (rc == ST_OK) {
        strata_append_add(m, t.fam, t.fam_len, t.qual, t.qual_len, (char *)val.data, val.len);
        rc = shell_attributes_apply(opts, m, NULL, NULL);
    }
    if (rc == ST_OK)
        rc = read_modify_write(s, t.table->s, m, &res, &v, &vl);
    if (rc == ST_OK && v) { /* HBase prints nothing for an empty result */
        shell_escape_binary(&shown, v, vl);
        fprintf(s->out, "CURRENT VALUE = %s\n", shown.data ? (char *)shown.data : "");
    }
    strata_result_destroy(res);
    strata_mutation_destroy(m);
    buf_free(&val);
    buf_free(&shown);
    target_free(&t);
    return rc;
}

const shell_command shell_cmds_dml[] = {
    {"append", "dml", cmd_append,
     "Appends a cell 'value' at specified table/row/column coordinates.\n"
     "\n"
     "  strata> append 't1', 'r1', 'c1', 'value'\n"
     "  strata> append 't1', 'r1', 'c1', 'value', ATTRIBUTES=>{'mykey'=>'myvalue'}\n"},
    {"count", "dml", cmd_count,
     "Count the number of rows in a table. This operation may take a LONG\n"
     "time. Current count is shown every 1000 rows by default. Count interval\n"
     "may be optionally specified. Scan caching is 100 rows by default; a FILTER\n"
     "or COLUMNS restrict what is counted. Examples:\n"
     "\n"
     " strata> count 'ns1:t1'\n"
     " strata> count 't1'\n"
     " strata> count 't1', INTERVAL => 100000\n"
     " strata> count 't1', CACHE => 1000\n"
     " strata> count 't1', INTERVAL => 10, CACHE => 1000\n"
     " strata> count 't1', FILTER => \"PrefixFilter('u1')\"\n"},
    {"delete", "dml", cmd_delete,
     "Put a delete cell value at specified table/row/column and optionally\n"
     "timestamp coordinates. Deletes must match the deleted cell's\n"
     "coordinates exactly. When scanning, a delete cell suppresses older\n"
     "versions. To delete a cell from 't1' at row 'r1' under column 'c1'\n"
     "marked with the time 'ts1', do:\n"
     "\n"
     "  strata> delete 'ns1:t1', 'r1', 'c1', ts1\n"
     "  strata> delete 't1', 'r1', 'c1', ts1\n"
     "  strata> delete 't1', 'r1', 'c1', ts1, {ATTRIBUTES=>{'mykey'=>'myvalue'}}\n"},
    {"deleteall", "dml", cmd_deleteall,
     "Delete all cells in a given row; pass a table name, row, and optionally\n"
     "a column and timestamp. Examples:\n"
     "\n"
     "  strata> deleteall 'ns1:t1', 'r1'\n"
     "  strata> deleteall 't1', 'r1'\n"
     "  strata> deleteall 't1', 'r1', 'c1'\n"
     "  strata> deleteall 't1', 'r1', 'c1', ts1\n"
     "  strata> deleteall 't1', 'r1', 'c1', ts1, {ATTRIBUTES=>{'mykey'=>'myvalue'}}\n"},
    {"get", "dml", cmd_get,
     "Get row or cell contents; pass table name, row, and optionally\n"
     "a dictionary of column(s), timestamp, timerange, versions and filter. Examples:\n"
     "\n"
     "  strata> get 'ns1:t1', 'r1'\n"
     "  strata> get 't1', 'r1'\n"
     "  strata> get 't1', 'r1', {TIMERANGE => [ts1, ts2]}\n"
     "  strata> get 't1', 'r1', {COLUMN => 'c1'}\n"
     "  strata> get 't1', 'r1', {COLUMN => ['c1', 'c2', 'c3']}\n"
     "  strata> get 't1', 'r1', {COLUMN => 'c1', TIMESTAMP => ts1}\n"
     "  strata> get 't1', 'r1', {COLUMN => 'c1', TIMERANGE => [ts1, ts2], VERSIONS => 4}\n"
     "  strata> get 't1', 'r1', {COLUMN => 'c1', TIMESTAMP => ts1, VERSIONS => 4}\n"
     "  strata> get 't1', 'r1', {FILTER => \"ValueFilter(=, 'binary:abc')\"}\n"
     "  strata> get 't1', 'r1', 'c1'\n"
     "  strata> get 't1', 'r1', 'c1', 'c2'\n"
     "  strata> get 't1', 'r1', ['c1', 'c2']\n"
     "  strata> get 't1', 'r1', {COLUMN => 'c1', ATTRIBUTES => {'mykey'=>'myvalue'}}\n"
     "  strata> get 'strata:meta', 'default:t1'     (the catalog's table row)\n"
     "\n"
     "Values print through Bytes.toStringBinary: a byte outside printable ASCII\n"
     "(and a backslash) shows as \\xNN. MAXLENGTH => n cuts each cell's text.\n"},
    {"get_counter", "dml", cmd_get_counter,
     "Return a counter cell value at specified table/row/column coordinates.\n"
     "A counter cell should be managed with atomic increment functions on Strata\n"
     "and the data should be binary encoded (8-byte big-endian). Example:\n"
     "\n"
     "  strata> get_counter 'ns1:t1', 'r1', 'c1'\n"
     "  strata> get_counter 't1', 'r1', 'c1'\n"},
    {"incr", "dml", cmd_incr,
     "Increments a cell 'value' at specified table/row/column coordinates.\n"
     "To increment a cell value in table 'ns1:t1' or 't1' at row 'r1' under column\n"
     "'c1' by 1 (can be omitted) or 10 do:\n"
     "\n"
     "  strata> incr 'ns1:t1', 'r1', 'c1'\n"
     "  strata> incr 't1', 'r1', 'c1'\n"
     "  strata> incr 't1', 'r1', 'c1', 1\n"
     "  strata> incr 't1', 'r1', 'c1', 10\n"
     "  strata> incr 't1', 'r1', 'c1', 10, {ATTRIBUTES=>{'mykey'=>'myvalue'}}\n"
     "  strata> incr 't1', 'r1', 'c1', {ATTRIBUTES=>{'mykey'=>'myvalue'}}\n"},
    {"put", "dml", cmd_put,
     "Put a cell 'value' at specified table/row/column and optionally\n"
     "timestamp coordinates. To put a cell value into table 'ns1:t1' or 't1'\n"
     "at row 'r1' under column 'c1' marked with the time 'ts1', do:\n"
     "\n"
     "  strata> put 'ns1:t1', 'r1', 'c1', 'value'\n"
     "  strata> put 't1', 'r1', 'c1', 'value'\n"
     "  strata> put 't1', 'r1', 'c1', 'value', ts1\n"
     "  strata> put 't1', 'r1', 'c1', \"\\x00\\x01binary\"\n"
     "  strata> put 't1', 'r1', 'c1', 'value', {ATTRIBUTES=>{'mykey'=>'myvalue'}}\n"
     "  strata> put 't1', 'r1', 'c1', 'value', ts1, {ATTRIBUTES=>{'mykey'=>'myvalue'}}\n"
     "\n"
     "ATTRIBUTES go to the region server with the operation (no Strata server\n"
     "acts on them: it has no coprocessors).\n"},
    {"scan", "dml", cmd_scan,
     "Scan a table; pass table name and optionally a dictionary of scanner\n"
     "specifications. Scanner specifications may include one or more of:\n"
     "TIMERANGE, FILTER, LIMIT, STARTROW, STOPROW, ROWPREFIXFILTER, TIMESTAMP,\n"
     "MAXLENGTH, COLUMNS, CACHE, REVERSED, RAW, VERSIONS, ALL_METRICS, METRICS,\n"
     "ISOLATION_LEVEL, BATCH or ATTRIBUTES.\n"
     "\n"
     "RAW => true also returns the delete markers (type=Delete, DeleteColumn,\n"
     "DeleteFamily, DeleteFamilyVersion) and the versions they mask, up to VERSIONS.\n"
     "'strata:meta' scans the catalog (read-only), its info:regioninfo decoded.\n"
     "\n"
     "If you wish to see metrics regarding the execution of the scan, the\n"
     "ALL_METRICS boolean should be set to true. Alternatively, if you would\n"
     "prefer to see only a subset of the metrics, the METRICS array can be\n"
     "defined to include the names of only the metrics you care about.\n"
     "\n"
     "If no columns are specified, all columns will be scanned.\n"
     "To scan all members of a column family, leave the qualifier empty as in\n"
     "'col_family'.\n"
     "\n"
     "The filter is a string in HBase's filter language, for example\n"
     "\"PrefixFilter('u1') AND ValueFilter(=, 'binary:x')\": every filter show_filters\n"
     "lists, combined with AND, OR, SKIP, WHILE and parentheses; comparators binary,\n"
     "binaryprefix, substring, regexstring (docs/filters.md).\n"
     "\n"
     "Some examples:\n"
     "\n"
     "  strata> scan 't1'\n"
     "  strata> scan 't1', {COLUMNS => 'c1:q'}\n"
     "  strata> scan 'ns1:t1', {COLUMNS => ['c1', 'c2'], LIMIT => 10, STARTROW => 'xyz'}\n"
     "  strata> scan 't1', {COLUMNS => ['c1', 'c2'], LIMIT => 10, STARTROW => 'xyz'}\n"
     "  strata> scan 't1', {COLUMNS => 'c1', TIMERANGE => [1303668804000, 1303668904000]}\n"
     "  strata> scan 't1', {REVERSED => true}\n"
     "  strata> scan 't1', {ALL_METRICS => true}\n"
     "  strata> scan 't1', {METRICS => ['RPC_RETRIES', 'ROWS_FILTERED']}\n"
     "  strata> scan 't1', {COLUMNS => ['c1', 'c2'], ATTRIBUTES => {'mykey' => 'myvalue'}}\n"
     "  strata> scan 't1', {RAW => true, VERSIONS => 10}\n"
     "  strata> scan 'strata:meta', {STARTROW => 'default:t1,', LIMIT => 10}\n"
     "  strata> scan 't1', {ROWPREFIXFILTER => 'row2', FILTER => \"\n"
     "    (QualifierFilter (>=, 'binary:xyz')) AND (TimestampsFilter ( 123, 456))\"}\n"
     "  strata> scan 't1', {FILTER => \"PrefixFilter('u1') AND ValueFilter(=, 'binary:x')\"}\n"},
    {NULL, NULL, NULL, NULL},
};
