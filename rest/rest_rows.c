/*
 * rest_rows.c - HBase REST's row resource (RowResource, MultiRowResource; docs/rest.md,
 * "Rows and cells"): GET of a row, of a row range or suffix glob, or of one cell as
 * application/octet-stream; PUT and POST of a CellSet or of one binary value; the check
 * forms (?check=put|delete|append|increment); DELETE of a row, family or column (at or
 * before a timestamp); and GET /<table>/multiget?row=...
 *
 * Writes of a CellSet go as one batch per request (each row atomic, as in HBase); a
 * failure names how many rows failed and the first error.
 * Thread-safety: reentrant (one request per worker).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/status.h"
#include "rest/rest_internal.h"

static const rest_media CELLSET_OUT[] = {REST_MEDIA_XML, REST_MEDIA_JSON, REST_MEDIA_PROTOBUF,
                                         REST_MEDIA_PROTOBUF_IETF, REST_MEDIA_BINARY};
static const rest_media CELLSET_IN[] = {REST_MEDIA_XML, REST_MEDIA_JSON, REST_MEDIA_PROTOBUF,
                                        REST_MEDIA_PROTOBUF_IETF, REST_MEDIA_BINARY};

/* ?v=N: the versions to read (1 when absent). false: answered 400. */
static bool versions_param(const rest_req *req, rest_resp *resp, uint32_t *out)
{
    int err = 0;
    char *v = rest_query_get(req->query, "v", 0, &err);
    if (!v && !err)
        return true;
    char *end = NULL;
    errno = 0;
    long long n = v ? strtoll(v, &end, 10) : 0;
    bool ok = v && *v && !*end && !errno && n >= 1 && n <= INT32_MAX;
    if (!ok)
        rest_resp_error(resp, 400, "v=%s: versions must be an integer >= 1", v ? v : "?");
    else
        *out = (uint32_t)n;
    free(v);
    return ok;
}

/* Adds the spec's columns to a get or scan: "f" a family, "f:q" a column ("f:" the empty
 * qualifier). */
static void spec_columns(const rest_rowspec *spec, strata_get_t *g, strata_scan_t *sc)
{
    for (size_t i = 0; i < spec->ncolumns; i++) {
        const uint8_t *fam, *qual;
        size_t fl, ql;
        bool has_qual;
        rest_column_split(spec->columns[i].data, spec->columns[i].len, &fam, &fl, &qual, &ql,
                          &has_qual);
        const char *q = has_qual ? (const char *)(qual ? qual : (const uint8_t *)"") : NULL;
        if (g)
            strata_get_add_column(g, (const char *)fam, fl, q, ql);
        else
            strata_scan_add_column(sc, (const char *)fam, fl, q, ql);
    }
}

/* The printable form of a key for messages (bytes outside ASCII as \xNN, cut at 64). */
static const char *shown(const rest_bytes *b, char *out, size_t cap)
{
    size_t o = 0;
    for (size_t i = 0; i < b->len && o + 5 < cap && i < 64; i++) {
        uint8_t c = b->data[i];
        if (c >= 0x20 && c < 0x7f && c != '\\')
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
    }
    if (b->len > 64 && o + 4 < cap) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
    return out;
}

/* ---- GET ---- */

/* Gets the row of spec (its columns and time range, up to max_versions versions); NULL
 * when that failed, with the answer set and the failure counted. */
static strata_result_t *fetch_row(rest_server *s, rest_resp *resp, const char *table,
                                  const rest_rowspec *spec, int max_versions)
{
    char key[300];
    strata_table_t *t = rest_table(s, table);
    strata_get_t *g = strata_get_create((const char *)spec->row.data, spec->row.len);
    if (!t || !g) {
        strata_get_destroy(g);
        rest_resp_error(resp, 503, "the gateway is out of memory");
        return NULL;
    }
    spec_columns(spec, g, NULL);
    strata_get_set_max_versions(g, max_versions);
    if (spec->has_time)
        strata_get_set_time_range(g, spec->start_time, spec->end_time);
    char *err = NULL;
    strata_result_t *r = strata_table_get(t, g, &err);
    strata_get_destroy(g);
    if (!r) {
        atomic_fetch_add(&s->metrics.get_failed, 1);
        rest_fail(resp, err, "get of row '%s' of table %s", shown(&spec->row, key, sizeof(key)),
                  table);
    }
    return r;
}

static void get_binary(rest_server *s, const rest_req *req, rest_resp *resp, const char *table,
                       const rest_rowspec *spec)
{
    char key[300];
    if (spec->ncolumns != 1 || spec->has_end) {
        rest_resp_error(resp, 400, "GET as application/octet-stream reads exactly one cell: name "
                                   "one row and one column (Accept text/xml, application/json or "
                                   "application/x-protobuf reads whole rows)");
        return;
    }
    strata_result_t *r = fetch_row(s, resp, table, spec, 1);
    if (!r)
        return;
    if (strata_result_cell_count(r) == 0) {
        atomic_fetch_add(&s->metrics.get_failed, 1);
        rest_resp_error(resp, 404, "row '%s' of table %s has no such cell",
                        shown(&spec->row, key, sizeof(key)), table);
    } else {
        size_t vl;
        const char *v = strata_result_cell_value(r, 0, &vl);
        char ts[32];
        snprintf(ts, sizeof(ts), "%lld", (long long)strata_result_cell_timestamp(r, 0));
        rest_resp_set(resp, 200, rest_media_name(REST_MEDIA_BINARY));
        rest_resp_header(resp, "X-Timestamp", ts);
        if (buf_append(rest_resp_body(resp), v, vl) != ST_OK)
            rest_resp_error(resp, 503, "the gateway is out of memory");
        atomic_fetch_add(&s->metrics.get_ok, 1);
    }
    strata_result_destroy(r);
}

static void get_one_row(rest_server *s, rest_resp *resp, const char *table,
                        const rest_rowspec *spec, rest_media media)
{
    char key[300];
    strata_result_t *r = fetch_row(s, resp, table, spec, spec->max_versions);
    if (!r)
        return;
    if (strata_result_cell_count(r) == 0) {
        atomic_fetch_add(&s->metrics.get_failed, 1);
        rest_resp_error(resp, 404, "row '%s' of table %s not found (no cells%s)",
                        shown(&spec->row, key, sizeof(key)), table,
                        spec->ncolumns || spec->has_time ? " match" : "");
        strata_result_destroy(r);
        return;
    }
    rest_cellset_writer w;
    int rc = rest_cellset_begin(&w, media, rest_resp_body(resp), false);
    if (rc == ST_OK)
        rc = rest_cellset_add_result(&w, r);
    if (rc == ST_OK)
        rc = rest_cellset_end(&w);
    else
        rest_cellset_end(&w);
    strata_result_destroy(r);
    if (rc != ST_OK)
        rest_resp_error(resp, 503, "%s", st_errmsg());
    else
        atomic_fetch_add(&s->metrics.get_ok, 1);
}

/* A row range or suffix glob: a scan written as a CellSet, streamed when long. */
static void get_range(rest_server *s, rest_resp *resp, const char *table, const rest_rowspec *spec,
                      rest_media media)
{
    strata_table_t *t = rest_table(s, table);
    strata_scan_t *sc = strata_scan_create();
    if (!t || !sc) {
        strata_scan_destroy(sc);
        rest_resp_error(resp, 503, "the gateway is out of memory");
        return;
    }
    strata_scan_set_start(sc, (const char *)spec->row.data, spec->row.len);
    strata_scan_set_stop(sc, (const char *)spec->end_row.data, spec->end_row.len);
    spec_columns(spec, NULL, sc);
    strata_scan_set_max_versions(sc, spec->max_versions);
    if (spec->has_time)
        strata_scan_set_time_range(sc, spec->start_time, spec->end_time);
    char *err = NULL;
    strata_scanner_t *scanner = strata_table_scan(t, sc, &err);
    strata_scan_destroy(sc);
    strata_result_t *r = scanner ? strata_scanner_next(scanner, &err) : NULL;
    if (err || !r) {
        atomic_fetch_add(&s->metrics.scan_failed, 1);
        if (err)
            rest_fail(resp, err, "scan of table %s", table);
        else
            rest_resp_error(resp, 404, "no rows of table %s in the range", table);
        strata_scanner_close(scanner);
        return;
    }
    rest_scan_stream(s, resp, table, media, scanner, r, INT64_MAX, false, 1);
}

void rest_rows_get(rest_server *s, const rest_req *req, rest_resp *resp, const char *table,
                   const char *const *segs, size_t nsegs)
{
    rest_rowspec spec;
    if (rest_rowspec_parse(segs, nsegs, &spec) != ST_OK) {
        rest_resp_error(resp, 400, "%s", st_errmsg());
        return;
    }
    rest_media media;
    if (versions_param(req, resp, &spec.max_versions) &&
        rest_negotiate(req, resp, CELLSET_OUT, sizeof(CELLSET_OUT) / sizeof(CELLSET_OUT[0]),
                       &media)) {
        if (media == REST_MEDIA_BINARY)
            get_binary(s, req, resp, table, &spec);
        else if (spec.has_end)
            get_range(s, resp, table, &spec, media);
        else
            get_one_row(s, resp, table, &spec, media);
    }
    rest_rowspec_free(&spec);
}

/* ---- GET multiget ---- */

void rest_rows_multiget(rest_server *s, const rest_req *req, rest_resp *resp, const char *table,
                        const char *const *segs, size_t nsegs)
{
    rest_media media;
    uint32_t versions = 1;
    if (!versions_param(req, resp, &versions) ||
        !rest_negotiate(req, resp, CELLSET_OUT, 4, &media))
        return;
    /* the columns after /multiget apply to every row */
    rest_rowspec cols;
    memset(&cols, 0, sizeof(cols));
    if (nsegs == 1 && segs[0][0]) {
        const char *parts[2] = {"x", segs[0]};
        if (rest_rowspec_parse(parts, 2, &cols) != ST_OK) {
            rest_resp_error(resp, 400, "%s", st_errmsg());
            return;
        }
    }
    strata_batch_t *b = strata_batch_create();
    size_t nrows = 0;
    int err_code = 0;
    for (;;) {
        char *row = rest_query_get(req->query, "row", nrows, &err_code);
        if (!row)
            break;
        if (nrows >= s->set.max_rows) {
            free(row);
            rest_resp_error(resp, 413, "multiget names more than rest.max.rows (%u) rows",
                            s->set.max_rows);
            goto out;
        }
        /* each row parameter is a row spec of its own: row[/columns[/time]] */
        char *copy = row, *parts[3];
        size_t np = 0;
        for (char *p = copy; np < 3 && p; np++) {
            parts[np] = p;
            p = strchr(p, '/');
            if (p)
                *p++ = '\0';
        }
        rest_rowspec spec;
        /* the parameter was decoded once already; the spec parser decodes again only the
         * '%' escapes a client encoded twice, so keys with '%' must be sent as %2525 */
        int rc = rest_rowspec_parse((const char *const *)parts, np, &spec);
        free(row);
        if (rc != ST_OK) {
            rest_resp_error(resp, 400, "row=%zu: %s", nrows, st_errmsg());
            goto out;
        }
        if (spec.has_end) {
            rest_rowspec_free(&spec);
            rest_resp_error(resp, 400, "multiget takes single rows, not ranges or globs");
            goto out;
        }
        strata_get_t *g = strata_get_create((const char *)spec.row.data, spec.row.len);
        spec_columns(&spec, g, NULL);
        spec_columns(&cols, g, NULL);
        strata_get_set_max_versions(g, versions);
        if (spec.has_time)
            strata_get_set_time_range(g, spec.start_time, spec.end_time);
        strata_batch_add_get(b, g);
        strata_get_destroy(g);
        rest_rowspec_free(&spec);
        nrows++;
    }
    if (err_code) {
        rest_resp_error(resp, 400, "a row parameter has a bad percent-escape");
        goto out;
    }
    if (nrows == 0) {
        rest_resp_error(resp, 400, "multiget needs at least one row parameter (?row=...)");
        goto out;
    }
    strata_table_t *t = rest_table(s, table);
    char *err = NULL;
    if (!t) {
        rest_resp_error(resp, 503, "the gateway is out of memory");
        goto out;
    }
    strata_table_batch(t, b, &err);
    if (err) {
        atomic_fetch_add(&s->metrics.get_failed, 1);
        rest_fail(resp, err, "multiget of %zu rows of table %s", nrows, table);
        goto out;
    }
    rest_cellset_writer w;
    int rc = rest_cellset_begin(&w, media, rest_resp_body(resp), false);
    size_t found = 0;
    for (size_t i = 0; rc == ST_OK && i < nrows; i++) {
        const strata_result_t *r = strata_batch_result(b, i);
        if (r && strata_result_cell_count(r)) {
            rc = rest_cellset_add_result(&w, r);
            found++;
        }
    }
    if (rc == ST_OK)
        rc = rest_cellset_end(&w);
    else
        rest_cellset_end(&w);
    if (rc != ST_OK) {
        rest_resp_error(resp, 503, "the gateway is out of memory");
    } else if (found == 0) {
        atomic_fetch_add(&s->metrics.get_failed, 1);
        rest_resp_error(resp, 404, "none of the %zu rows was found in table %s", nrows, table);
    } else {
        atomic_fetch_add(&s->metrics.get_ok, 1);
    }
out:
    strata_batch_destroy(b);
    rest_rowspec_free(&cols);
}

/* ---- PUT and POST ---- */

/* The column of cell i of a row: its own, or the path's i-th. */
static const rest_bytes *cell_column(const rest_cell *c, const rest_rowspec *spec, size_t i)
{
    if (c->has_column)
        return &c->column;
    return i < spec->ncolumns ? &spec->columns[i] : NULL;
}

/* Splits a column that must have a qualifier ("f:q"): false with the answer given. */
static bool need_qualified(rest_resp *resp, const rest_bytes *col, size_t row, size_t cell,
                           const uint8_t **fam, size_t *fl, const uint8_t **qual, size_t *ql)
{
    bool has_qual = false;
    if (!col) {
        rest_resp_error(resp, 400, "row %zu, cell %zu: no column (give one in the cell or the "
                                   "path)",
                        row, cell);
        return false;
    }
    rest_column_split(col->data, col->len, fam, fl, qual, ql, &has_qual);
    if (!has_qual || *fl == 0) {
        rest_resp_error(resp, 400, "row %zu, cell %zu: column '%.*s' is not family:qualifier",
                        row, cell, (int)(col->len > 200 ? 200 : col->len), (const char *)col->data);
        return false;
    }
    if (!*qual)
        *qual = (const uint8_t *)"";
    return true;
}

static const rest_bytes *row_key(const rest_row *r, const rest_rowspec *spec)
{
    return r->has_key ? &r->key : (spec->row.data && !spec->glob ? &spec->row : NULL);
}

static void put_cellset(rest_server *s, rest_resp *resp, const char *table,
                        const rest_rowspec *spec, const rest_cellset *cs)
{
    strata_batch_t *b = strata_batch_create();
    for (size_t i = 0; i < cs->nrows; i++) {
        const rest_row *r = &cs->rows[i];
        const rest_bytes *key = row_key(r, spec);
        if (!key || key->len == 0) {
            rest_resp_error(resp, 400, "row %zu has no key (give one in the row or the path)", i);
            strata_batch_destroy(b);
            return;
        }
        if (r->ncells == 0) {
            rest_resp_error(resp, 400, "row %zu has no cells to put", i);
            strata_batch_destroy(b);
            return;
        }
        strata_mutation_t *m = strata_put_create((const char *)key->data, key->len);
        for (size_t k = 0; k < r->ncells; k++) {
            const uint8_t *fam, *qual;
            size_t fl, ql;
            if (!need_qualified(resp, cell_column(&r->cells[k], spec, k), i, k, &fam, &fl, &qual,
                                &ql)) {
                strata_mutation_destroy(m);
                strata_batch_destroy(b);
                return;
            }
            if (!r->cells[k].has_value) {
                rest_resp_error(resp, 400, "row %zu, cell %zu has no value", i, k);
                strata_mutation_destroy(m);
                strata_batch_destroy(b);
                return;
            }
            strata_put_add(m, (const char *)fam, fl, (const char *)qual, ql, r->cells[k].ts,
                           (const char *)r->cells[k].value.data, r->cells[k].value.len);
        }
        strata_batch_add_mutation(b, m);
        strata_mutation_destroy(m);
    }
    strata_table_t *t = rest_table(s, table);
    char *err = NULL;
    if (!t) {
        rest_resp_error(resp, 503, "the gateway is out of memory");
    } else {
        strata_table_batch(t, b, &err);
        if (err) {
            atomic_fetch_add(&s->metrics.put_failed, 1);
            rest_fail(resp, err, "put of %zu rows into table %s", cs->nrows, table);
        } else {
            atomic_fetch_add(&s->metrics.put_ok, 1);
            rest_resp_set(resp, 200, "text/plain");
        }
    }
    strata_batch_destroy(b);
}

/* The column a check names, split into family and qualifier. */
typedef struct checked_column {
    const uint8_t *cf, *cq;
    size_t cfl, cql;
} checked_column;

/* Applies m when the checked cell holds check->value; answers 304 (with note) when it does
 * not, and counts the outcome in ok or failed. Takes m. */
static void apply_checked(rest_server *s, rest_resp *resp, const char *table, const char *what,
                          const checked_column *col, const rest_cell *check,
                          strata_mutation_t *m, atomic_uint_fast64_t *ok,
                          atomic_uint_fast64_t *failed, const char *note)
{
    strata_table_t *t = rest_table(s, table);
    char *err = NULL;
    unsigned char applied =
        t ? strata_table_check_and_mutate(t, (const char *)col->cf, col->cfl,
                                          (const char *)col->cq, col->cql, STRATA_EQUAL,
                                          (const char *)check->value.data, check->value.len, m,
                                          &err)
          : 0;
    strata_mutation_destroy(m);
    if (err || !t) {
        atomic_fetch_add(failed, 1);
        if (err)
            rest_fail(resp, err, "%s in table %s", what, table);
        else
            rest_resp_error(resp, 503, "the gateway is out of memory");
    } else if (!applied) {
        atomic_fetch_add(failed, 1);
        rest_resp_error(resp, 304, "%s", note);
    } else {
        atomic_fetch_add(ok, 1);
    }
}

static void check_and_put(rest_server *s, rest_resp *resp, const char *table,
                          const rest_rowspec *spec, const rest_cellset *cs)
{
    if (cs->nrows != 1) {
        rest_resp_error(resp, 400, "check=put takes exactly one row, not %zu", cs->nrows);
        return;
    }
    const rest_row *r = &cs->rows[0];
    const rest_bytes *key = row_key(r, spec);
    if (!key || r->ncells < 2) {
        rest_resp_error(resp, 400, "check=put needs a row key and at least two cells: the cells "
                                   "to put, then the cell to check");
        return;
    }
    const rest_cell *check = &r->cells[r->ncells - 1];
    const uint8_t *cf, *cq;
    size_t cfl, cql;
    if (!check->has_column) {
        rest_resp_error(resp, 400, "check=put: the last cell (the one to check) names no column");
        return;
    }
    if (!need_qualified(resp, &check->column, 0, r->ncells - 1, &cf, &cfl, &cq, &cql))
        return;
    strata_mutation_t *m = strata_put_create((const char *)key->data, key->len);
    bool check_column_put = false;
    for (size_t k = 0; k + 1 < r->ncells; k++) {
        const rest_cell *c = &r->cells[k];
        const uint8_t *fam, *qual;
        size_t fl, ql;
        if (!c->has_column) {
            rest_resp_error(resp, 400, "check=put: cell %zu names no column", k);
            strata_mutation_destroy(m);
            return;
        }
        if (!need_qualified(resp, &c->column, 0, k, &fam, &fl, &qual, &ql)) {
            strata_mutation_destroy(m);
            return;
        }
        strata_put_add(m, (const char *)fam, fl, (const char *)qual, ql, c->ts,
                       (const char *)c->value.data, c->value.len);
        if (c->column.len == check->column.len &&
            memcmp(c->column.data, check->column.data, c->column.len) == 0)
            check_column_put = true;
    }
    if (!check_column_put) {
        rest_resp_error(resp, 400, "check=put: the column to put and the column to check do not "
                                   "match");
        strata_mutation_destroy(m);
        return;
    }
    checked_column col = {cf, cq, cfl, cql};
    apply_checked(s, resp, table, "check-and-put", &col, check, m, &s->metrics.put_ok,
                  &s->metrics.put_failed,
                  "value not modified: the checked cell did not hold the given value");
}

static void check_and_delete(rest_server *s, rest_resp *resp, const char *table,
                             const rest_rowspec *spec, const rest_cellset *cs)
{
    if (cs->nrows != 1) {
        rest_resp_error(resp, 400, "check=delete takes exactly one row, not %zu", cs->nrows);
        return;
    }
    const rest_row *r = &cs->rows[0];
    const rest_bytes *key = row_key(r, spec);
    if (!key || r->ncells < 1) {
        rest_resp_error(resp, 400, "check=delete needs a row key and the cell to check");
        return;
    }
    const rest_cell *check = &r->cells[r->ncells - 1];
    const rest_bytes *check_col = check->has_column ? &check->column
                                                    : (spec->ncolumns ? &spec->columns[0] : NULL);
    if (!check_col) {
        rest_resp_error(resp, 400, "check=delete: no column to check (give it in the last cell "
                                   "or the path)");
        return;
    }
    const uint8_t *cf, *cq;
    size_t cfl, cql;
    bool has_q;
    rest_column_split(check_col->data, check_col->len, &cf, &cfl, &cq, &cql, &has_q);
    if (!has_q || cfl == 0) {
        rest_resp_error(resp, 400, "check=delete: the column to check is not family:qualifier");
        return;
    }
    if (!cq)
        cq = (const uint8_t *)"";
    strata_mutation_t *m = strata_delete_create((const char *)key->data, key->len);
    for (size_t k = 0; k + 1 < r->ncells; k++) {
        const rest_cell *c = &r->cells[k];
        if (!c->has_column) {
            rest_resp_error(resp, 400, "check=delete: cell %zu names no column", k);
            strata_mutation_destroy(m);
            return;
        }
        const uint8_t *fam, *qual;
        size_t fl, ql;
        bool hq;
        rest_column_split(c->column.data, c->column.len, &fam, &fl, &qual, &ql, &hq);
        if (fl == 0) {
            rest_resp_error(resp, 400, "check=delete: cell %zu names no family", k);
            strata_mutation_destroy(m);
            return;
        }
        if (hq)
            strata_delete_version(m, (const char *)fam, fl, (const char *)(qual ? qual : (const uint8_t *)""),
                                  ql, c->ts);
        else
            strata_delete_family(m, (const char *)fam, fl, c->ts);
    }
    if (r->ncells == 1) /* only the checked cell: delete every version of its column */
        strata_delete_column(m, (const char *)cf, cfl, (const char *)cq, cql,
                             STRATA_LATEST_TIMESTAMP);
    checked_column col = {cf, cq, cfl, cql};
    apply_checked(s, resp, table, "check-and-delete", &col, check, m, &s->metrics.delete_ok,
                  &s->metrics.delete_failed,
                  "delete check failed: the checked cell did not hold the given value");
}

/* check=append and check=increment: one row, every cell a column (the path's i-th when the
 * cell names none); increments take decimal amounts as HBase's REST server does. */
static void read_modify_write(rest_server *s, const rest_req *req, rest_resp *resp,
                              const char *table, const rest_rowspec *spec, const rest_cellset *cs,
                              bool increment)
{
    const char *what = increment ? "check=increment" : "check=append";
    atomic_uint_fast64_t *ok = increment ? &s->metrics.increment_ok : &s->metrics.append_ok;
    atomic_uint_fast64_t *failed =
        increment ? &s->metrics.increment_failed : &s->metrics.append_failed;
    if (cs->nrows != 1) {
        rest_resp_error(resp, 400, "%s takes exactly one row, not %zu", what, cs->nrows);
        return;
    }
    const rest_row *r = &cs->rows[0];
    const rest_bytes *key = row_key(r, spec);
    if (!key || r->ncells == 0) {
        rest_resp_error(resp, 400, "%s needs a row key and at least one cell", what);
        return;
    }
    strata_mutation_t *m = increment ? strata_increment_create((const char *)key->data, key->len)
                                     : strata_append_create((const char *)key->data, key->len);
    for (size_t k = 0; k < r->ncells; k++) {
        const rest_cell *c = &r->cells[k];
        const uint8_t *fam, *qual;
        size_t fl, ql;
        if (!need_qualified(resp, cell_column(c, spec, k), 0, k, &fam, &fl, &qual, &ql)) {
            strata_mutation_destroy(m);
            return;
        }
        if (increment) {
            char num[32];
            size_t n = c->value.len < sizeof(num) - 1 ? c->value.len : sizeof(num) - 1;
            memcpy(num, c->value.data, n);
            num[n] = '\0';
            char *end = NULL;
            errno = 0;
            long long amount = strtoll(num, &end, 10);
            if (n == 0 || *end || errno || c->value.len >= sizeof(num)) {
                rest_resp_error(resp, 400, "%s: cell %zu's value '%s' is not a decimal amount",
                                what, k, num);
                strata_mutation_destroy(m);
                return;
            }
            strata_increment_add(m, (const char *)fam, fl, (const char *)qual, ql, amount);
        } else {
            strata_append_add(m, (const char *)fam, fl, (const char *)qual, ql,
                              (const char *)c->value.data, c->value.len);
        }
    }
    strata_table_t *t = rest_table(s, table);
    char *err = NULL;
    strata_result_t *res = t ? strata_table_read_modify_write(t, m, &err) : NULL;
    strata_mutation_destroy(m);
    if (!res) {
        atomic_fetch_add(failed, 1);
        if (err)
            rest_fail(resp, err, "%s in table %s", what + 6, table);
        else
            rest_resp_error(resp, 503, "the gateway is out of memory");
        return;
    }
    atomic_fetch_add(ok, 1);
    int err_code = 0;
    char *rr = rest_query_get(req->query, "returnResult", 0, &err_code);
    bool want = rr && strcasecmp(rr, "true") == 0;
    free(rr);
    if (want) {
        static const rest_media out[] = {REST_MEDIA_XML, REST_MEDIA_JSON, REST_MEDIA_PROTOBUF,
                                         REST_MEDIA_PROTOBUF_IETF};
        rest_media media;
        if (rest_negotiate(req, resp, out, 4, &media)) {
            rest_cellset_writer w;
            int rc = rest_cellset_begin(&w, media, rest_resp_body(resp), false);
            if (rc == ST_OK)
                rc = rest_cellset_add_result(&w, res);
            if (rc == ST_OK)
                rc = rest_cellset_end(&w);
            else
                rest_cellset_end(&w);
            if (rc != ST_OK)
                rest_resp_error(resp, 503, "the gateway is out of memory");
        }
    }
    strata_result_destroy(res);
}

static void put_binary(rest_server *s, const rest_req *req, rest_resp *resp, const char *table,
                       const rest_rowspec *spec)
{
    rest_bytes row = spec->row, col = {0};
    if (spec->ncolumns)
        col = spec->columns[0];
    /* HBase's headers carry the row and column as plain text */
    if (req->x_row) {
        row.data = (uint8_t *)req->x_row;
        row.len = strlen(req->x_row);
    }
    if (req->x_column) {
        col.data = (uint8_t *)req->x_column;
        col.len = strlen(req->x_column);
    }
    int64_t ts = STRATA_LATEST_TIMESTAMP;
    if (req->x_timestamp) {
        char *end = NULL;
        errno = 0;
        long long v = strtoll(req->x_timestamp, &end, 10);
        if (!*req->x_timestamp || *end || errno || v < 0) {
            rest_resp_error(resp, 400, "X-Timestamp '%s' is not a non-negative integer",
                            req->x_timestamp);
            return;
        }
        ts = v;
    }
    if (spec->glob || row.len == 0) {
        rest_resp_error(resp, 400, "a binary put needs a row key in the path (or X-Row)");
        return;
    }
    const uint8_t *fam, *qual;
    size_t fl, ql;
    if (!need_qualified(resp, col.data ? &col : NULL, 0, 0, &fam, &fl, &qual, &ql))
        return;
    strata_mutation_t *m = strata_put_create((const char *)row.data, row.len);
    strata_put_add(m, (const char *)fam, fl, (const char *)qual, ql, ts,
                   (const char *)req->body.data, req->body.len);
    strata_table_t *t = rest_table(s, table);
    char *err = NULL;
    if (t)
        strata_table_put(t, m, &err);
    strata_mutation_destroy(m);
    if (err || !t) {
        atomic_fetch_add(&s->metrics.put_failed, 1);
        if (err)
            rest_fail(resp, err, "put into table %s", table);
        else
            rest_resp_error(resp, 503, "the gateway is out of memory");
        return;
    }
    atomic_fetch_add(&s->metrics.put_ok, 1);
}

void rest_rows_update(rest_server *s, const rest_req *req, rest_resp *resp, const char *table,
                      const char *const *segs, size_t nsegs)
{
    if (rest_refuse_read_only(s, resp))
        return;
    int err_code = 0;
    char *check = rest_query_get(req->query, "check", 0, &err_code);
    enum { C_NONE, C_PUT, C_DELETE, C_APPEND, C_INCREMENT } kind = C_NONE;
    if (check && *check) {
        if (strcasecmp(check, "put") == 0)
            kind = C_PUT;
        else if (strcasecmp(check, "delete") == 0)
            kind = C_DELETE;
        else if (strcasecmp(check, "append") == 0)
            kind = C_APPEND;
        else if (strcasecmp(check, "increment") == 0)
            kind = C_INCREMENT;
        else {
            rest_resp_error(resp, 400, "invalid check value '%s' (put, delete, append or "
                                       "increment)",
                            check);
            free(check);
            return;
        }
    }
    free(check);
    rest_rowspec spec;
    if (rest_rowspec_parse(segs, nsegs, &spec) != ST_OK) {
        rest_resp_error(resp, 400, "%s", st_errmsg());
        return;
    }
    rest_media media;
    if (!rest_body_media(req, resp, CELLSET_IN, sizeof(CELLSET_IN) / sizeof(CELLSET_IN[0]),
                         &media)) {
        rest_rowspec_free(&spec);
        return;
    }
    if (media == REST_MEDIA_BINARY) {
        if (kind != C_NONE)
            rest_resp_error(resp, 400, "check= takes a CellSet body, not application/octet-stream");
        else
            put_binary(s, req, resp, table, &spec);
        rest_rowspec_free(&spec);
        return;
    }
    rest_cellset cs;
    if (rest_cellset_decode(media, req->body.data, req->body.len, &cs) != ST_OK) {
        rest_resp_error(resp, 400, "malformed CellSet: %s", st_errmsg());
        rest_rowspec_free(&spec);
        return;
    }
    if (cs.nrows > s->set.max_rows) {
        rest_resp_error(resp, 413, "the CellSet holds %zu rows; at most rest.max.rows (%u) are "
                                   "taken at once",
                        cs.nrows, s->set.max_rows);
    } else if (cs.nrows == 0) {
        rest_resp_error(resp, 400, "the CellSet holds no rows");
    } else if (kind == C_PUT) {
        check_and_put(s, resp, table, &spec, &cs);
    } else if (kind == C_DELETE) {
        check_and_delete(s, resp, table, &spec, &cs);
    } else if (kind == C_APPEND || kind == C_INCREMENT) {
        read_modify_write(s, req, resp, table, &spec, &cs, kind == C_INCREMENT);
    } else {
        put_cellset(s, resp, table, &spec, &cs);
    }
    rest_cellset_free(&cs);
    rest_rowspec_free(&spec);
}

/* ---- DELETE ---- */

void rest_rows_delete(rest_server *s, const rest_req *req, rest_resp *resp, const char *table,
                      const char *const *segs, size_t nsegs)
{
    if (rest_refuse_read_only(s, resp))
        return;
    rest_rowspec spec;
    if (rest_rowspec_parse(segs, nsegs, &spec) != ST_OK) {
        rest_resp_error(resp, 400, "%s", st_errmsg());
        return;
    }
    char key[300];
    if (spec.has_end) {
        rest_resp_error(resp, 400, "DELETE takes one row, not a range or glob");
        rest_rowspec_free(&spec);
        return;
    }
    if (spec.has_time && !spec.has_timestamp) {
        rest_resp_error(resp, 400, "DELETE takes one timestamp (every version at or before it), "
                                   "not a range");
        rest_rowspec_free(&spec);
        return;
    }
    int64_t ts = spec.has_timestamp ? spec.timestamp : STRATA_LATEST_TIMESTAMP;
    strata_mutation_t *m = strata_delete_create((const char *)spec.row.data, spec.row.len);
    for (size_t i = 0; i < spec.ncolumns; i++) {
        const uint8_t *fam, *qual;
        size_t fl, ql;
        bool hq;
        rest_column_split(spec.columns[i].data, spec.columns[i].len, &fam, &fl, &qual, &ql, &hq);
        if (hq)
            strata_delete_column(m, (const char *)fam, fl,
                                 (const char *)(qual ? qual : (const uint8_t *)""), ql, ts);
        else
            strata_delete_family(m, (const char *)fam, fl, ts);
    }
    if (spec.ncolumns == 0 && spec.has_timestamp) {
        /* the whole row at or before ts: every family of the table */
        char *err = NULL;
        strata_table_descriptor_t *td =
            strata_admin_describe_table(s->admin, table, NULL, NULL, &err);
        if (!td) {
            strata_mutation_destroy(m);
            rest_fail(resp, err, "delete in table %s", table);
            rest_rowspec_free(&spec);
            return;
        }
        for (size_t i = 0; i < strata_table_descriptor_family_count(td); i++) {
            const char *f = strata_family_descriptor_name(strata_table_descriptor_family(td, i));
            strata_delete_family(m, f, strlen(f), ts);
        }
        strata_table_descriptor_destroy(td);
    }
    strata_table_t *t = rest_table(s, table);
    char *err = NULL;
    if (t)
        strata_table_delete(t, m, &err);
    strata_mutation_destroy(m);
    if (err || !t) {
        atomic_fetch_add(&s->metrics.delete_failed, 1);
        if (err)
            rest_fail(resp, err, "delete of row '%s' in table %s",
                      shown(&spec.row, key, sizeof(key)), table);
        else
            rest_resp_error(resp, 503, "the gateway is out of memory");
    } else {
        atomic_fetch_add(&s->metrics.delete_ok, 1);
    }
    rest_rowspec_free(&spec);
}
