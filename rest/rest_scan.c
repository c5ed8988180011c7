/*
 * rest_scan.c - HBase REST's scans (docs/rest.md, "Scans"): the stateless scan GET
 * /<table>/<prefix>*?startrow=&endrow=&limit=... (TableScanResource), streamed as one
 * CellSet (JSON, XML) or HBase's stream of length-prefixed CellSets (protobuf); and the
 * stateful scanners: PUT|POST /<table>/scanner with a Scanner document answers 201 with
 * the scanner's Location, GET on it answers the next batch (204 once exhausted), DELETE
 * closes it.
 *
 * A scanner's first row is read when it is created, so a missing table, an unknown family
 * or a bad filter is answered then (404 / 400), not at the first GET.
 * Thread-safety: reentrant; a scanner is used by one request at a time
 * (rest_scanners.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/base64.h"
#include "common/status.h"
#include "rest/rest_internal.h"
#include "rest/rest_scanners.h"

#define STREAM_ROWS_PER_SET 100 /* rows per length-prefixed CellSet of a protobuf stream */

static const rest_media SCAN_OUT[] = {REST_MEDIA_XML, REST_MEDIA_JSON, REST_MEDIA_PROTOBUF,
                                      REST_MEDIA_PROTOBUF_IETF};

/* Query parameter name as an integer in [min, max]; absent: def. false: answered 400. */
static bool int_param(const rest_req *req, rest_resp *resp, const char *name, int64_t min,
                      int64_t max, int64_t def, int64_t *out)
{
    int err = 0;
    char *v = rest_query_get(req->query, name, 0, &err);
    *out = def;
    if (!v && !err)
        return true;
    char *end = NULL;
    errno = 0;
    long long n = v ? strtoll(v, &end, 10) : 0;
    bool ok = v && *v && !*end && !errno && n >= min && n <= max;
    if (!ok)
        rest_resp_error(resp, 400, "%s=%s is not an integer in [%lld, %lld]", name, v ? v : "?",
                        (long long)min, (long long)max);
    else
        *out = n;
    free(v);
    return ok;
}

static bool bool_param(const rest_req *req, rest_resp *resp, const char *name, bool *out)
{
    int err = 0;
    char *v = rest_query_get(req->query, name, 0, &err);
    bool ok = true;
    if (v && strcasecmp(v, "true") == 0)
        *out = true;
    else if (v && strcasecmp(v, "false") == 0)
        *out = false;
    else if (v || err) {
        rest_resp_error(resp, 400, "%s=%s is not true or false", name, v ? v : "?");
        ok = false;
    }
    free(v);
    return ok;
}

/* Adds a column "f", "f:" or "f:q" to a scan. false: answered 400. */
static bool add_scan_column(rest_resp *resp, strata_scan_t *sc, const uint8_t *col, size_t len)
{
    const uint8_t *fam, *qual;
    size_t fl, ql;
    bool hq;
    rest_column_split(col, len, &fam, &fl, &qual, &ql, &hq);
    if (fl == 0) {
        rest_resp_error(resp, 400, "column '%.*s' names no family", (int)(len > 200 ? 200 : len),
                        (const char *)col);
        return false;
    }
    /* "f:" is the whole family in HBase's stateless scan too */
    if (hq && ql > 0)
        strata_scan_add_column(sc, (const char *)fam, fl, (const char *)qual, ql);
    else
        strata_scan_add_column(sc, (const char *)fam, fl, NULL, 0);
    return true;
}

/* The smallest key above every key starting with p[0..n) (n bytes into out; 0: none). */
static size_t successor(const char *p, size_t n, char *out)
{
    while (n > 0 && (uint8_t)p[n - 1] == 0xff)
        n--;
    memcpy(out, p, n);
    if (n)
        out[n - 1] = (char)((uint8_t)out[n - 1] + 1);
    return n;
}

/* The filter of a reversed prefix scan: PrefixFilter('<prefix>') AND (<user filter>). NULL
 * when the prefix holds a zero byte (the language cannot carry it) or out of memory. */
static char *prefix_filter(const char *prefix, size_t n, const char *user)
{
    if (memchr(prefix, 0, n))
        return NULL;
    buf_t f = {0};
    int rc = buf_append(&f, "PrefixFilter('", 14);
    for (size_t i = 0; rc == ST_OK && i < n; i++)
        rc = prefix[i] == '\'' ? buf_append(&f, "''", 2) : buf_append_u8(&f, (uint8_t)prefix[i]);
    if (rc == ST_OK)
        rc = buf_append(&f, "')", 2);
    if (rc == ST_OK && user && *user) {
        rc = buf_append(&f, " AND (", 6);
        if (rc == ST_OK)
            rc = buf_append(&f, user, strlen(user));
        if (rc == ST_OK)
            rc = buf_append(&f, ")", 1);
    }
    if (rc == ST_OK)
        rc = buf_append_u8(&f, 0);
    if (rc != ST_OK) {
        buf_free(&f);
        return NULL;
    }
    return (char *)f.data;
}

/* Writes the rows of scanner, from first (may be NULL: none), as one CellSet answer (or a
 * stream of them), at most limit rows, flushing to the client every rows_per_flush rows;
 * closes the scanner and counts the scan. */
void rest_scan_stream(rest_server *s, rest_resp *resp, const char *table, rest_media media,
                      strata_scanner_t *scanner, strata_result_t *first, int64_t limit,
                      bool stream, size_t rows_per_flush)
{
    char *err = NULL;
    strata_result_t *r = first;
    rest_cellset_writer w;
    int rc = rest_cellset_begin(&w, media, rest_resp_body(resp), stream);
    int64_t rows = 0;
    size_t in_set = 0;
    while (rc == ST_OK && r) {
        rc = rest_cellset_add_result(&w, r);
        strata_result_destroy(r);
        r = NULL;
        rows++;
        if (rc == ST_OK && ++in_set >= rows_per_flush) {
            rc = rest_cellset_flush_point(&w);
            in_set = 0;
            if (rc == ST_OK)
                rc = rest_resp_maybe_flush(resp);
        }
        if (rc == ST_OK && rows < limit)
            r = strata_scanner_next(scanner, &err);
        if (err) {
            rest_fail(resp, err, "scan of table %s", table);
            err = NULL;
            rc = ST_IO;
        }
    }
    strata_result_destroy(r);
    strata_scanner_close(scanner);
    if (rc == ST_OK)
        rc = rest_cellset_end(&w);
    else
        rest_cellset_end(&w);
    if (rc == ST_OK) {
        atomic_fetch_add(&s->metrics.scan_ok, 1);
    } else {
        atomic_fetch_add(&s->metrics.scan_failed, 1);
        if (rc == ST_NOMEM)
            rest_resp_error(resp, 503, "the gateway is out of memory");
        else if (rc == ST_CLOSED)
            rest_resp_error(resp, 503, "the client went away");
    }
}

/* Builds the stateless scan of the query: the prefix bounds it (a forward scan runs from
 * the prefix to its successor, a reversed one from the successor down, filtered by a
 * PrefixFilter), startrow and endrow replace those bounds. NULL: answered. */
static strata_scan_t *stateless_spec(const rest_req *req, rest_resp *resp, const char *prefix,
                                     size_t prefix_len, int64_t *limit)
{
    strata_scan_t *sc = strata_scan_create();
    int err = 0;
    char *start = rest_query_get(req->query, "startrow", 0, &err);
    char *end = rest_query_get(req->query, "endrow", 0, &err);
    char *filter = rest_query_get(req->query, "filter", 0, &err);
    int64_t versions = 1, batch = 0, t0 = 0, t1 = INT64_MAX;
    bool reversed = false, cache_blocks = true;
    bool ok = sc != NULL;
    if (!sc)
        rest_resp_error(resp, 503, "the gateway is out of memory");
    else if (err)
        rest_resp_error(resp, 400, "a query parameter has a bad percent-escape");
    ok = ok && !err && int_param(req, resp, "limit", 0, INT64_MAX, INT64_MAX, limit) &&
         int_param(req, resp, "maxversions", 1, INT32_MAX, 1, &versions) &&
         int_param(req, resp, "batchsize", -1, INT32_MAX, 0, &batch) &&
         int_param(req, resp, "starttime", 0, INT64_MAX, 0, &t0) &&
         int_param(req, resp, "endtime", 0, INT64_MAX, INT64_MAX, &t1) &&
         bool_param(req, resp, "reversed", &reversed) &&
         bool_param(req, resp, "cacheblocks", &cache_blocks);
    if (ok && t1 <= t0) {
        rest_resp_error(resp, 400, "starttime=%lld endtime=%lld is an empty time range",
                        (long long)t0, (long long)t1);
        ok = false;
    }
    char succ[4096];
    size_t sl = 0;
    if (ok && prefix_len > sizeof(succ)) {
        rest_resp_error(resp, 400, "the scan prefix is longer than %zu bytes", sizeof(succ));
        ok = false;
    } else if (ok) {
        sl = successor(prefix, prefix_len, succ);
    }
    bool has_start = start && *start, has_end = end && *end;
    if (ok && !reversed) {
        strata_scan_set_start(sc, has_start ? start : prefix, has_start ? strlen(start) : prefix_len);
        strata_scan_set_stop(sc, has_end ? end : succ, has_end ? strlen(end) : sl);
    } else if (ok) {
        strata_scan_set_reversed(sc, 1);
        if (has_start)
            strata_scan_set_start(sc, start, strlen(start));
        else if (sl)
            strata_scan_set_start(sc, succ, sl);
        if (has_end)
            strata_scan_set_stop(sc, end, strlen(end));
        if (prefix_len) {
            char *pf = prefix_filter(prefix, prefix_len, filter);
            if (!pf) {
                rest_resp_error(resp, 400, "a reversed prefix scan cannot carry a zero byte in "
                                           "its prefix");
                ok = false;
            }
            free(filter);
            filter = pf;
        }
    }
    if (ok) {
        strata_scan_set_max_versions(sc, (uint32_t)versions);
        if (batch > 0)
            strata_scan_set_batch(sc, (uint32_t)batch);
        if (t0 > 0 || t1 < INT64_MAX)
            strata_scan_set_time_range(sc, t0, t1);
        strata_scan_set_caching(sc, 100);
    }
    /* the columns: column=f, column=f:q (any number), each trimmed */
    for (size_t i = 0; ok; i++) {
        char *c = rest_query_get(req->query, "column", i, &err);
        if (!c)
            break;
        size_t n = strlen(c);
        while (n && c[n - 1] == ' ')
            c[--n] = '\0';
        if (n)
            ok = add_scan_column(resp, sc, (const uint8_t *)c, n);
        free(c);
    }
    if (ok && filter && *filter)
        strata_scan_set_filter(sc, filter);
    free(start);
    free(end);
    free(filter);
    if (!ok) {
        strata_scan_destroy(sc);
        return NULL;
    }
    return sc;
}

void rest_scan_stateless(rest_server *s, const rest_req *req, rest_resp *resp, const char *table,
                         const char *spec)
{
    rest_media media;
    if (!rest_negotiate(req, resp, SCAN_OUT, 4, &media))
        return;
    const char *star = strchr(spec, '*');
    if (strchr(star + 1, '/') || star[1] != '\0') {
        rest_resp_error(resp, 400, "a stateless scan path is /<table>/<prefix>* (nothing after "
                                   "the '*')");
        return;
    }
    buf_t prefix = {0};
    if (rest_url_decode(&prefix, spec, (size_t)(star - spec), true) != ST_OK) {
        rest_resp_error(resp, 400, "%s", st_errmsg());
        buf_free(&prefix);
        return;
    }
    int64_t limit = INT64_MAX;
    strata_scan_t *sc = stateless_spec(req, resp, prefix.data ? (const char *)prefix.data : "",
                                       prefix.len, &limit);
    buf_free(&prefix);
    if (!sc)
        return;
    strata_table_t *t = rest_table(s, table);
    char *err = NULL;
    strata_scanner_t *scanner = t ? strata_table_scan(t, sc, &err) : NULL;
    strata_scan_destroy(sc);
    strata_result_t *r = scanner && limit > 0 ? strata_scanner_next(scanner, &err) : NULL;
    if (err || !t) {
        atomic_fetch_add(&s->metrics.scan_failed, 1);
        if (err)
            rest_fail(resp, err, "scan of table %s", table);
        else
            rest_resp_error(resp, 503, "the gateway is out of memory");
        strata_result_destroy(r);
        strata_scanner_close(scanner);
        return;
    }
    rest_scan_stream(s, resp, table, media, scanner, r, limit, true, STREAM_ROWS_PER_SET);
}

/* ---- stateful scanners ---- */

/* The Location of a new scanner: http://<host>/<table>/scanner/<id>. */
static int scanner_location(rest_server *s, const rest_req *req, const char *table,
                            const char *id, buf_t *out)
{
    char host[300];
    if (s->set.advertised[0])
        snprintf(host, sizeof(host), "%s:%d", s->set.advertised, rest_server_port(s));
    else if (req->host && *req->host && !strpbrk(req->host, "/ \r\n"))
        snprintf(host, sizeof(host), "%s", req->host);
    else
        snprintf(host, sizeof(host), "localhost:%d", rest_server_port(s));
    int rc = buf_append(out, "http://", 7);
    if (rc == ST_OK)
        rc = buf_append(out, host, strlen(host));
    if (rc == ST_OK)
        rc = buf_append_u8(out, '/');
    if (rc == ST_OK)
        rc = rest_url_encode(out, table, strlen(table));
    if (rc == ST_OK)
        rc = buf_append(out, "/scanner/", 9);
    if (rc == ST_OK)
        rc = buf_append(out, id, strlen(id));
    return rc == ST_OK ? buf_append_u8(out, 0) : rc;
}

/* The scan a Scanner document asks for. NULL: answered. */
static strata_scan_t *scan_of_doc(rest_resp *resp, const rest_scanner_doc *d)
{
    char *filter = NULL;
    if (d->filter) {
        int rc = rest_filter_from_json(d->filter, strlen(d->filter), d->reversed, &filter);
        if (rc != ST_OK) {
            rest_resp_error(resp, 400, "Scanner filter: %s", st_errmsg());
            return NULL;
        }
    }
    strata_scan_t *sc = strata_scan_create();
    if (!sc) {
        free(filter);
        rest_resp_error(resp, 503, "the gateway is out of memory");
        return NULL;
    }
    strata_scan_set_start(sc, (const char *)d->start_row.data, d->start_row.len);
    strata_scan_set_stop(sc, (const char *)d->end_row.data, d->end_row.len);
    for (size_t i = 0; i < d->ncolumns; i++) {
        const uint8_t *fam, *qual;
        size_t fl, ql;
        bool hq;
        rest_column_split(d->columns[i].data, d->columns[i].len, &fam, &fl, &qual, &ql, &hq);
        strata_scan_add_column(sc, (const char *)fam, fl,
                               hq ? (const char *)(qual ? qual : (const uint8_t *)"") : NULL, ql);
    }
    /* HBase's scanner reads every version unless maxVersions says otherwise */
    strata_scan_set_max_versions(sc, d->max_versions > 0 ? (uint32_t)d->max_versions : UINT32_MAX);
    if (d->start_time > 0 || d->end_time > 0)
        strata_scan_set_time_range(sc, d->start_time, d->end_time > 0 ? d->end_time : INT64_MAX);
    if (d->caching > 0)
        strata_scan_set_caching(sc, (uint32_t)d->caching);
    strata_scan_set_reversed(sc, d->reversed);
    if (filter)
        strata_scan_set_filter(sc, filter);
    free(filter);
    return sc;
}

void rest_scanner_create(rest_server *s, const rest_req *req, rest_resp *resp, const char *table)
{
    if (rest_refuse_read_only(s, resp))
        return;
    static const rest_media in[] = {REST_MEDIA_XML, REST_MEDIA_JSON, REST_MEDIA_PROTOBUF,
                                    REST_MEDIA_PROTOBUF_IETF};
    rest_scanner_doc d;
    memset(&d, 0, sizeof(d));
    if (req->body.len) {
        rest_media media;
        if (!rest_body_media(req, resp, in, 4, &media))
            return;
        if (rest_scanner_doc_decode(media, req->body.data, req->body.len, &d) != ST_OK) {
            rest_resp_error(resp, 400, "malformed Scanner: %s", st_errmsg());
            return;
        }
    }
    strata_scan_t *sc = scan_of_doc(resp, &d);
    int32_t batch = d.batch;
    rest_scanner_doc_free(&d);
    if (!sc)
        return;
    strata_table_t *t = rest_table(s, table);
    char *err = NULL;
    strata_scanner_t *scanner = t ? strata_table_scan(t, sc, &err) : NULL;
    strata_scan_destroy(sc);
    /* the first row now: a missing table or a bad filter is answered at creation */
    strata_result_t *first = scanner ? strata_scanner_next(scanner, &err) : NULL;
    if (err || !scanner) {
        atomic_fetch_add(&s->metrics.scan_failed, 1);
        strata_scanner_close(scanner);
        if (err)
            rest_fail(resp, err, "scanner on table %s", table);
        else
            rest_resp_error(resp, 503, "the gateway is out of memory");
        return;
    }
    char id[REST_SCANNER_ID_LEN + 1];
    if (rest_scanners_add(s->scanners, table, scanner, batch, id) != ST_OK) {
        strata_result_destroy(first);
        rest_resp_error(resp, 503, "the gateway is out of memory");
        return;
    }
    /* park the first row in the new entry (it is ours until given back) */
    rest_scanner_lookup why;
    rest_scanner *e = rest_scanners_take(s->scanners, table, id, &why);
    if (e) {
        e->pending = first;
        e->pending_cell = 0;
        e->exhausted = first == NULL;
        rest_scanners_give(s->scanners, e, false);
    } else {
        strata_result_destroy(first);
    }
    buf_t loc = {0};
    if (scanner_location(s, req, table, id, &loc) != ST_OK) {
        buf_free(&loc);
        rest_resp_error(resp, 503, "the gateway is out of memory");
        return;
    }
    rest_resp_set(resp, 201, "text/plain");
    rest_resp_header(resp, "Location", (const char *)loc.data);
    buf_free(&loc);
    atomic_fetch_add(&s->metrics.scan_ok, 1);
}

/* Answers a failed lookup of scanner id. */
static void lookup_failed(rest_resp *resp, rest_scanner_lookup why, const char *table,
                          const char *id)
{
    if (why == REST_SCANNER_EXPIRED)
        rest_resp_error(resp, 410, "scanner %s of table %s expired (idle longer than "
                                   "rest.scanner.idle.timeout.ms, or too many scanners were open)",
                        id, table);
    else if (why == REST_SCANNER_BUSY)
        rest_resp_error(resp, 409, "scanner %s of table %s is in use by another request", id,
                        table);
    else
        rest_resp_error(resp, 404, "no scanner %s on table %s", id, table);
}

/* The next row of e into its pending slot. false on a failure (answered). */
static bool refill(rest_server *s, rest_resp *resp, rest_scanner *e)
{
    if (e->pending && e->pending_cell < strata_result_cell_count(e->pending))
        return true;
    strata_result_destroy(e->pending);
    e->pending = NULL;
    e->pending_cell = 0;
    if (e->exhausted)
        return true;
    char *err = NULL;
    e->pending = strata_scanner_next(e->sc, &err);
    if (err) {
        atomic_fetch_add(&s->metrics.scan_failed, 1);
        rest_fail(resp, err, "scanner %s of table %s", e->id, e->table);
        return false;
    }
    e->exhausted = e->pending == NULL;
    return true;
}

static void next_binary(rest_server *s, rest_resp *resp, rest_scanner *e, bool *failed)
{
    if (!refill(s, resp, e)) {
        *failed = true;
        return;
    }
    if (!e->pending) {
        rest_resp_set(resp, 204, "text/plain");
        return;
    }
    size_t i = e->pending_cell++, rl, fl, ql, vl;
    const char *row = strata_result_cell_row(e->pending, i, &rl);
    const char *fam = strata_result_cell_family(e->pending, i, &fl);
    const char *qual = strata_result_cell_qualifier(e->pending, i, &ql);
    const char *val = strata_result_cell_value(e->pending, i, &vl);
    buf_t r64 = {0}, c64 = {0}, col = {0};
    char ts[32];
    snprintf(ts, sizeof(ts), "%lld", (long long)strata_result_cell_timestamp(e->pending, i));
    int rc = base64_encode(&r64, row, rl);
    if (rc == ST_OK)
        rc = buf_append(&col, fam, fl);
    if (rc == ST_OK)
        rc = buf_append_u8(&col, ':');
    if (rc == ST_OK)
        rc = buf_append(&col, qual, ql);
    if (rc == ST_OK)
        rc = base64_encode(&c64, col.data, col.len);
    if (rc == ST_OK)
        rc = buf_append_u8(&r64, 0);
    if (rc == ST_OK)
        rc = buf_append_u8(&c64, 0);
    if (rc == ST_OK)
        rc = buf_append(rest_resp_body(resp), val, vl);
    if (rc == ST_OK) {
        rest_resp_set(resp, 200, rest_media_name(REST_MEDIA_BINARY));
        rest_resp_header(resp, "X-Row", (const char *)r64.data);
        rest_resp_header(resp, "X-Column", (const char *)c64.data);
        rest_resp_header(resp, "X-Timestamp", ts);
    } else {
        rest_resp_error(resp, 503, "the gateway is out of memory");
    }
    buf_free(&r64);
    buf_free(&c64);
    buf_free(&col);
}

void rest_scanner_next(rest_server *s, const rest_req *req, rest_resp *resp, const char *table,
                       const char *id)
{
    static const rest_media out[] = {REST_MEDIA_XML, REST_MEDIA_JSON, REST_MEDIA_PROTOBUF,
                                     REST_MEDIA_PROTOBUF_IETF, REST_MEDIA_BINARY};
    rest_media media;
    int64_t max_rows = 0, max_cells = 0;
    if (!rest_negotiate(req, resp, out, 5, &media) ||
        !int_param(req, resp, "n", 0, INT32_MAX, 0, &max_rows) ||
        !int_param(req, resp, "c", 0, INT32_MAX, 0, &max_cells))
        return;
    rest_scanner_lookup why;
    rest_scanner *e = rest_scanners_take(s->scanners, table, id, &why);
    if (!e) {
        lookup_failed(resp, why, table, id);
        return;
    }
    rest_resp_header(resp, "Cache-Control", "no-cache");
    bool failed = false;
    if (media == REST_MEDIA_BINARY) {
        next_binary(s, resp, e, &failed);
        rest_scanners_give(s->scanners, e, failed);
        return;
    }
    /* cells per answer: c=, else the scanner's batch, else whole rows; rows at most n= and
     * rest.max.rows */
    uint64_t cell_limit = max_cells > 0 ? (uint64_t)max_cells
                                        : (e->batch > 0 ? (uint64_t)e->batch : UINT64_MAX);
    uint64_t row_limit = max_rows > 0 && (uint64_t)max_rows < s->set.max_rows ? (uint64_t)max_rows
                                                                               : s->set.max_rows;
    rest_cellset_writer w;
    int rc = rest_cellset_begin(&w, media, rest_resp_body(resp), false);
    uint64_t cells = 0;
    while (rc == ST_OK && cells < cell_limit) {
        if (!refill(s, resp, e)) {
            failed = true;
            break;
        }
        if (!e->pending)
            break;
        size_t i = e->pending_cell, rl;
        const char *row = strata_result_cell_row(e->pending, i, &rl);
        bool new_row = !w.open_row || w.row_key.len != rl || memcmp(w.row_key.data, row, rl) != 0;
        if (new_row && w.rows >= row_limit)
            break;
        size_t fl, ql, vl;
        const char *fam = strata_result_cell_family(e->pending, i, &fl);
        const char *qual = strata_result_cell_qualifier(e->pending, i, &ql);
        const char *val = strata_result_cell_value(e->pending, i, &vl);
        rc = rest_cellset_add_cell(&w, row, rl, fam, fl, qual, ql,
                                   strata_result_cell_timestamp(e->pending, i), val, vl);
        e->pending_cell++;
        cells++;
    }
    if (failed) {
        w.out = NULL; /* the error answer replaced the body: only free the writer */
        rest_cellset_end(&w);
        rest_scanners_give(s->scanners, e, true);
        return;
    }
    if (rc == ST_OK)
        rc = rest_cellset_end(&w);
    else
        rest_cellset_end(&w);
    rest_scanners_give(s->scanners, e, false);
    if (rc != ST_OK) {
        rest_resp_error(resp, 503, "the gateway is out of memory");
    } else if (cells == 0) {
        buf_reset(rest_resp_body(resp));
        rest_resp_set(resp, 204, "text/plain");
    }
}

void rest_scanner_delete(rest_server *s, const rest_req *req, rest_resp *resp, const char *table,
                         const char *id)
{
    if (rest_refuse_read_only(s, resp))
        return;
    rest_scanner_lookup why = rest_scanners_delete(s->scanners, table, id);
    if (why != REST_SCANNER_FOUND)
        lookup_failed(resp, why, table, id);
}
