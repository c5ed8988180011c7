/*
 * scan.c - scans across region boundaries: ClientService.Scan open / next / close, one
 * region at a time, each region's part clamped to the region.
 *
 * The scanner keeps a position, advanced only when a result is handed to the caller, so
 * that any failure can reopen the scan exactly where the caller is:
 *
 *   forward:  pos = the first row still wanted (inclusive); after a whole row R it is
 *             R + "\0", after a region it is the region's end key.
 *   reversed: pos = the upper bound, inclusive or exclusive (pos_excl), or the table's
 *             top (pos_top); after a whole row R it is R exclusive, after a region its
 *             start key exclusive. The server takes only an inclusive start row, so an
 *             exclusive bound is sent as is and a row equal to it is dropped.
 *   a partial row (scan with batch): pos = its row, inclusive, with skip_cells = how
 *             many of its cells were already handed out (dropped when it is re-read).
 *
 * States (strata_scanner_next): IDLE (no server scanner) -open_region-> OPEN (scanner_id,
 * results buffered) -next_call-> OPEN ... -> the server says the region has no more ->
 * advance() -> IDLE at the next region, or DONE past the last region, the stop row or
 * the limit. Any retryable failure -> IDLE at the same position (the stale location
 * dropped from the client's location cache as client_note_failure says), after the
 * backoff of client/retry.h within the operation timeout of that next() call.
 *
 * Regions are found through the location cache (like single-row calls), except for a
 * reversed scan at a region boundary or from the table's end, which takes the locator's
 * list of the table's regions.
 *
 * Each region's open carries the scan's operation attributes; with scan metrics on
 * (OP_ATTR_SCAN_METRICS), every Scan RPC, retry, region, answer and server count goes
 * into sc->metrics (scan_metrics.c), read with strata_scanner_metrics.
 *
 * Thread-safety: a scanner belongs to one thread at a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client_internal.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/op_attr.h"
#include "common/rpc/rpc_proto.h"
#include "common/scratch.h"
#include "common/status.h"

struct strata_scanner {
    strata_client_t *c;
    char *table;
    strata_scan_t opt;
    buf_t pos;
    bool pos_excl, pos_top;
    size_t skip_cells;  /* cells of the partial row at pos already handed out */
    size_t stream_seen; /* cells of that row seen from the current server scanner */
    bool done;
    uint64_t rows;
    /* the current region */
    bool open, region_more;
    locator_region reg;
    char addr[300];
    uint64_t scanner_id, seq;
    Strata__Client__ScanResponse *resp; /* decoded into resp_mem */
    scratch_t resp_mem;
    size_t next_idx;
    buf_t moved; /* the last failed call's RegionMoved hint (client/moved_hint.c) */
    /* scan metrics (scan_metrics.c) */
    scan_metrics metrics;
    bool remote;          /* the current region's server is not on this machine */
    bool region_counted;  /* the current region is in REGIONS_SCANNED */
};

/* ---- options ---- */

strata_scan_t *strata_scan_create(void)
{
    strata_scan_t *s = calloc(1, sizeof(*s));
    if (s)
        s->caching = CLIENT_DEFAULT_CACHING;
    return s;
}

void strata_scan_destroy(strata_scan_t *s)
{
    if (!s)
        return;
    buf_free(&s->start);
    buf_free(&s->stop);
    read_spec_clear(&s->spec);
    free(s);
}

void strata_scan_set_attribute(strata_scan_t *s, const char *name, const char *value,
                               size_t value_len, char **errptr)
{
    int rc = op_attrs_set(&s->spec.attrs, name, value, value_len, OP_ATTR_SCAN_METRICS);
    if (rc != ST_OK)
        client_set_error(errptr, rc);
}

const char *strata_scan_attribute(const strata_scan_t *s, const char *name, size_t *len)
{
    const op_attr_entry *e = op_attrs_find(&s->spec.attrs, name);
    if (len)
        *len = e ? e->len : 0;
    return e ? (const char *)e->value : NULL;
}

void strata_scan_set_metrics_enabled(strata_scan_t *s, unsigned char enabled)
{
    /* HBase's Bytes.toBytes(boolean); the place is kept free, so this cannot fail */
    uint8_t b = enabled ? 0xFF : 0x00;
    int rc = op_attrs_set(&s->spec.attrs, OP_ATTR_SCAN_METRICS, &b, 1, OP_ATTR_SCAN_METRICS);
    if (rc != ST_OK)
        LOG_ERROR("scan metrics: %s", st_errmsg()); /* only when out of memory */
}

unsigned char strata_scan_metrics_enabled(const strata_scan_t *s)
{
    return scan_metrics_wanted(&s->spec.attrs);
}

void strata_scan_set_start(strata_scan_t *s, const char *row, size_t len)
{
    buf_set(&s->start, row, len);
}

void strata_scan_set_stop(strata_scan_t *s, const char *row, size_t len)
{
    buf_set(&s->stop, row, len);
}

void strata_scan_add_column(strata_scan_t *s, const char *family, size_t family_len,
                            const char *qualifier, size_t qualifier_len)
{
    read_spec_add_column(&s->spec, family, family_len, qualifier, qualifier_len);
}

void strata_scan_set_reversed(strata_scan_t *s, unsigned char reversed)
{
    s->reversed = reversed != 0;
}

void strata_scan_set_raw(strata_scan_t *s, unsigned char raw)
{
    s->raw = raw != 0;
}

void strata_scan_set_caching(strata_scan_t *s, uint32_t rows)
{
    s->caching = rows ? rows : CLIENT_DEFAULT_CACHING;
}

void strata_scan_set_batch(strata_scan_t *s, uint32_t cells)
{
    s->batch = cells;
}

void strata_scan_set_limit(strata_scan_t *s, uint64_t rows)
{
    s->limit = rows;
}

void strata_scan_set_max_versions(strata_scan_t *s, uint32_t n)
{
    s->spec.max_versions = n;
}

void strata_scan_set_time_range(strata_scan_t *s, int64_t from, int64_t to)
{
    s->spec.has_range = true;
    s->spec.from = from;
    s->spec.to = to;
}

void strata_scan_set_filter(strata_scan_t *s, const char *filter)
{
    free(s->spec.filter);
    s->spec.filter = filter ? strdup(filter) : NULL;
}

/* ---- keys ---- */

static int key_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
    size_t n = al < bl ? al : bl;
    int c = n ? memcmp(a, b, n) : 0;
    return c ? c : (al > bl) - (al < bl);
}

static bool holds(const locator_region *r, const uint8_t *k, size_t kl)
{
    return key_cmp(k, kl, r->start_key, r->start_len) >= 0 &&
           (r->end_len == 0 || key_cmp(k, kl, r->end_key, r->end_len) < 0);
}

/* Whether region r is the one to scan from the scanner's position. */
static bool region_matches(const strata_scanner_t *sc, const locator_region *r)
{
    const uint8_t *p = sc->pos.data;
    size_t pl = sc->pos.len;
    if (!sc->opt.reversed)
        return holds(r, p, pl);
    if (sc->pos_top)
        return r->end_len == 0;
    if (!sc->pos_excl)
        return holds(r, p, pl);
    return key_cmp(r->start_key, r->start_len, p, pl) < 0 &&
           (r->end_len == 0 || key_cmp(p, pl, r->end_key, r->end_len) <= 0);
}

/* Whether the position is already past the scan's stop row. */
static bool past_stop(const strata_scanner_t *sc)
{
    const buf_t *stop = &sc->opt.stop;
    if (stop->len == 0 || (sc->opt.reversed && sc->pos_top))
        return false;
    int c = key_cmp(sc->pos.data, sc->pos.len, stop->data, stop->len);
    return sc->opt.reversed ? c <= 0 : c >= 0;
}

/* ---- the scanner ---- */

strata_scanner_t *strata_table_scan(strata_table_t *t, const strata_scan_t *s, char **errptr)
{
    strata_scanner_t *sc = calloc(1, sizeof(*sc));
    if (!sc || !(sc->table = strdup(t->name))) {
        free(sc);
        client_set_error_msg(errptr, "out of memory: opening a scanner");
        return NULL;
    }
    sc->c = t->c;
    sc->opt = *s;
    memset(&sc->opt.start, 0, sizeof(buf_t));
    memset(&sc->opt.stop, 0, sizeof(buf_t));
    buf_set(&sc->opt.start, s->start.data, s->start.len);
    buf_set(&sc->opt.stop, s->stop.data, s->stop.len);
    read_spec_copy(&sc->opt.spec, &s->spec);
    buf_set(&sc->pos, s->start.data, s->start.len);
    sc->pos_top = s->reversed && s->start.len == 0;
    scan_metrics_start(&sc->metrics, scan_metrics_wanted(&s->spec.attrs));
    return sc;
}

/* Frees the current response, if any. */
static void drop_resp(strata_scanner_t *sc)
{
    sc->resp = NULL;
    scratch_free(&sc->resp_mem);
}

/* Sends a ScanRequest to the current region's server; ST_OK with sc->resp replaced. */
static int scan_call(strata_scanner_t *sc, const Strata__Client__ScanRequest *req, int timeout_ms)
{
    buf_t body = {0}, resp = {0};
    rpc_result res = {0};
    int rc = rpc_proto_pack(&req->base, &body);
    if (rc == ST_OK) {
        scan_metrics_call(&sc->metrics, sc->remote);
        rc = rpc_client_call_result(sc->c->rpc, sc->addr, "ClientService.Scan", body.data,
                                    body.len, timeout_ms, &res);
        scan_metrics_failed(&sc->metrics, rc);
    }
    resp = res.body;
    buf_free(&sc->moved);
    sc->moved = res.hint;
    if (rc == ST_OK) {
        drop_resp(sc);
        ProtobufCAllocator al = scratch_protobuf_allocator(&sc->resp_mem);
        sc->resp = strata__client__scan_response__unpack(&al, resp.len, resp.data);
        sc->next_idx = 0;
        if (!sc->resp)
            rc = st_error(ST_PROTOCOL, "client: undecodable Scan response from %s for region %s",
                          sc->addr, sc->reg.encoded_name);
        else
            scan_metrics_response(&sc->metrics, sc->resp, sc->remote);
    }
    buf_free(&body);
    buf_free(&resp);
    return rc;
}

/* Reads what the last response says about the scanner's future. */
static void take_response(strata_scanner_t *sc)
{
    const Strata__Client__ScanResponse *r = sc->resp;
    if (r->has_scanner_id)
        sc->scanner_id = r->scanner_id;
    sc->region_more = r->has_more_results_in_region ? r->more_results_in_region
                                                    : (r->n_results > 0 && r->has_scanner_id);
    sc->open = sc->region_more;
}

/* Sets the current region (and its address) to a copy of r. */
static int use_region(strata_scanner_t *sc, const locator_region *r)
{
    locator_region_clear(&sc->reg);
    int rc = locator_region_copy(&sc->reg, r);
    if (rc == ST_OK) {
        snprintf(sc->addr, sizeof(sc->addr), "%s:%u", sc->reg.host, (unsigned)sc->reg.port);
        sc->remote = sc->metrics.on && !client_host_is_local(sc->reg.host);
    }
    return rc;
}

/* The position's region from the location cache (the locator on a miss), when the
 * position is a row that region holds: every forward scan, a reversed one inside a
 * region. Like single-row calls, a scan then needs the master only for regions that
 * moved. */
static int cached_region(strata_scanner_t *sc)
{
    const loccache_entry *e = NULL;
    int rc = client_locate(sc->c, sc->table, sc->pos.data, sc->pos.len, &e);
    if (rc != ST_OK)
        return rc;
    locator_region r = {.table = (char *)e->table,
                        .encoded_name = (char *)e->region,
                        .start_key = (uint8_t *)e->start_key,
                        .start_len = e->start_len,
                        .end_key = (uint8_t *)e->end_key,
                        .end_len = e->end_len,
                        .host = (char *)e->host,
                        .port = e->port,
                        .start_code = (uint64_t)e->start_code};
    rc = use_region(sc, &r);
    loccache_entry_release(e);
    return rc;
}

/* After a failed call at the current region: drops what the failure says is stale from
 * the location cache, as single-row calls do. */
static void note_failure(strata_scanner_t *sc, int status)
{
    if (!sc->reg.encoded_name || !sc->reg.host)
        return;
    loccache_entry e = client_entry_of(&sc->reg);
    e.table = sc->table; /* the name the cache has it under */
    client_note_failure(sc->c, &e, status);
}

/* Finds the region for the position: the location cache (where RegionMoved hints go
 * too), or for a reversed scan at a region boundary or from the end the locator's list. */
static int find_region(strata_scanner_t *sc)
{
    locator_region *v = NULL;
    size_t n = 0;
    if (!sc->opt.reversed || (!sc->pos_top && !sc->pos_excl))
        return cached_region(sc);
    int rc = locator_locate_all(sc->c->loc, sc->table, &v, &n);
    if (rc != ST_OK)
        return rc;
    rc = st_error(ST_NOT_SERVING, "client: no region of table %s holds the scan position",
                  sc->table);
    for (size_t i = 0; i < n; i++)
        if (region_matches(sc, &v[i])) {
            rc = use_region(sc, &v[i]);
            break;
        }
    locator_regions_free(v, n);
    return rc;
}

/* Fills the Scan message: the caller's options clamped to the current region. */
static void clamp_scan(const strata_scanner_t *sc, Strata__Client__Scan *s)
{
    const locator_region *r = &sc->reg;
    const buf_t *stop = &sc->opt.stop;
    s->has_reversed = s->reversed = sc->opt.reversed;
    if (!sc->opt.reversed) {
        s->has_start_row = sc->pos.len > 0;
        s->start_row = (ProtobufCBinaryData){sc->pos.len, sc->pos.data};
        bool use_end = r->end_len &&
                       (!stop->len || key_cmp(r->end_key, r->end_len, stop->data, stop->len) < 0);
        s->has_stop_row = use_end || stop->len > 0;
        s->stop_row = use_end ? (ProtobufCBinaryData){r->end_len, r->end_key}
                              : (ProtobufCBinaryData){stop->len, stop->data};
        return;
    }
    s->has_start_row = !sc->pos_top && holds(r, sc->pos.data, sc->pos.len);
    s->start_row = (ProtobufCBinaryData){sc->pos.len, sc->pos.data};
    s->has_stop_row = stop->len && key_cmp(stop->data, stop->len, r->start_key, r->start_len) > 0;
    s->stop_row = (ProtobufCBinaryData){stop->len, stop->data};
}

/* Opens a server scanner on the position's region; its first rows come back with it. */
static int open_region(strata_scanner_t *sc, int timeout_ms)
{
    Strata__Client__ScanRequest req = STRATA__CLIENT__SCAN_REQUEST__INIT;
    Strata__Client__RegionSpecifier rs = STRATA__CLIENT__REGION_SPECIFIER__INIT;
    Strata__Client__Scan scan = STRATA__CLIENT__SCAN__INIT;
    read_pb rd;
    op_attrs_pb at;
    int rc = find_region(sc);
    if (rc != ST_OK)
        return rc;
    if (!sc->region_counted) {
        sc->region_counted = true;
        scan_metrics_region(&sc->metrics);
    }
    if ((rc =
             read_pb_build(&rd, &sc->opt.spec, &scan.n_column, &scan.column, &scan.has_max_versions,
                           &scan.max_versions, &scan.time_range, &scan.filter)) != ST_OK)
        return rc;
    if ((rc = op_attrs_pb_build(&at, &sc->opt.spec.attrs, &scan.n_attribute, &scan.attribute)) !=
        ST_OK) {
        read_pb_clear(&rd);
        return rc;
    }
    clamp_scan(sc, &scan);
    scan.has_raw = sc->opt.raw;
    scan.raw = sc->opt.raw;
    scan.has_batch = sc->opt.batch > 0;
    scan.batch = sc->opt.batch;
    scan.has_limit = sc->opt.limit > 0;
    scan.limit = sc->opt.limit - sc->rows;
    rs.encoded_name = sc->reg.encoded_name;
    req.region = &rs;
    req.scan = &scan;
    req.has_number_of_rows = 1;
    req.number_of_rows = sc->opt.caching;
    sc->scanner_id = 0;
    sc->seq = 0;
    sc->stream_seen = 0;
    rc = scan_call(sc, &req, timeout_ms);
    read_pb_clear(&rd);
    op_attrs_pb_clear(&at);
    if (rc == ST_OK)
        take_response(sc);
    return rc;
}

static int next_call(strata_scanner_t *sc, int timeout_ms)
{
    Strata__Client__ScanRequest req = STRATA__CLIENT__SCAN_REQUEST__INIT;
    req.has_scanner_id = 1;
    req.scanner_id = sc->scanner_id;
    req.has_number_of_rows = 1;
    req.number_of_rows = sc->opt.caching;
    req.has_next_call_seq = 1;
    req.next_call_seq = sc->seq++; /* the first next call is 0, as in HBase */
    int rc = scan_call(sc, &req, timeout_ms);
    if (rc == ST_OK)
        take_response(sc);
    return rc;
}

/* Closes the server scanner, if open (best effort, short timeout). */
static void close_server_scanner(strata_scanner_t *sc)
{
    if (!sc->open)
        return;
    Strata__Client__ScanRequest req = STRATA__CLIENT__SCAN_REQUEST__INIT;
    buf_t body = {0}, resp = {0};
    req.has_scanner_id = req.has_close_scanner = 1;
    req.scanner_id = sc->scanner_id;
    req.close_scanner = 1;
    if (rpc_proto_pack(&req.base, &body) == ST_OK) {
        scan_metrics_call(&sc->metrics, sc->remote);
        rpc_client_call(sc->c->rpc, sc->addr, "ClientService.Scan", body.data, body.len, 1000,
                        &resp);
    }
    buf_free(&body);
    buf_free(&resp);
    sc->open = false;
}

/* The current region is finished: move the position to the next one, or finish. */
static void advance(strata_scanner_t *sc)
{
    const locator_region *r = &sc->reg;
    sc->skip_cells = 0;
    sc->region_counted = false;
    if (!sc->opt.reversed) {
        if (r->end_len == 0)
            sc->done = true;
        else
            buf_set(&sc->pos, r->end_key, r->end_len);
    } else {
        if (r->start_len == 0)
            sc->done = true;
        buf_set(&sc->pos, r->start_key, r->start_len);
        sc->pos_excl = true;
        sc->pos_top = false;
    }
    if (past_stop(sc))
        sc->done = true;
}

/* Makes sure a response with unread results, or the end, is at hand: one attempt. */
static int fill(strata_scanner_t *sc, int timeout_ms)
{
    while (!sc->done && (!sc->resp || sc->next_idx >= sc->resp->n_results)) {
        if (sc->resp && !sc->region_more) {
            drop_resp(sc);
            advance(sc);
            continue;
        }
        scan_metrics_before_fetch(&sc->metrics);
        int rc = sc->open ? next_call(sc, timeout_ms) : open_region(sc, timeout_ms);
        if (rc != ST_OK)
            return rc;
    }
    return ST_OK;
}

/* Updates the position for a result just handed out: a partial row keeps pos at the
 * row with the cells handed so far; a whole row moves pos past it. */
static void hand_out(strata_scanner_t *sc, const ProtobufCBinaryData *row, bool partial,
                     size_t handed, size_t seen)
{
    buf_set(&sc->pos, row->data, row->len);
    sc->pos_top = false;
    sc->pos_excl = false;
    sc->skip_cells = partial ? handed : 0;
    sc->stream_seen = partial ? seen : 0;
    if (partial)
        return;
    sc->rows++;
    if (sc->opt.reversed)
        sc->pos_excl = true;
    else
        buf_append_u8(&sc->pos, 0);
    if (sc->opt.limit && sc->rows >= sc->opt.limit) {
        sc->done = true;
        close_server_scanner(sc);
    }
}

/* Takes the next result off the response, or NULL if it is to be dropped (a row at an
 * exclusive bound, or cells of a partial row handed out before a reopen). */
static strata_result_t *take_result(strata_scanner_t *sc, int *rc)
{
    const Strata__Client__Result *r = sc->resp->results[sc->next_idx++];
    Strata__Client__Result part = *r;
    if (r->n_cell == 0)
        return NULL;
    const ProtobufCBinaryData *row = &r->cell[0]->row;
    bool at_pos = !sc->pos_top && key_cmp(row->data, row->len, sc->pos.data, sc->pos.len) == 0;
    if (sc->opt.reversed && sc->pos_excl && at_pos)
        return NULL;
    size_t seen = at_pos ? sc->stream_seen : 0, before = at_pos ? sc->skip_cells : 0;
    size_t drop = before > seen ? before - seen : 0;
    if (drop > r->n_cell)
        drop = r->n_cell;
    seen += r->n_cell;
    if (drop == r->n_cell) {
        sc->stream_seen = seen;
        return NULL;
    }
    part.cell += drop;
    part.n_cell -= drop;
    strata_result_t *res = result_from_pb(&part, row->data, row->len);
    if (!res) {
        *rc = st_error(ST_NOMEM, "client: out of memory");
        return NULL;
    }
    hand_out(sc, row, r->has_partial && r->partial, before + part.n_cell, seen);
    return res;
}

/* How many times in a row one next() reopens a scanner whose lease expired. */
#define SCAN_MAX_EXPIRED_REOPENS 3

/* Forgets the server scanner after a failure, so the next attempt reopens at pos. */
static void reset_after_failure(strata_scanner_t *sc, int status)
{
    if (retry_classify(status) != RETRY_INVALIDATE)
        close_server_scanner(sc);
    sc->open = false;
    drop_resp(sc);
}

/* After a failed call: follows a RegionMoved hint (its regions go to the location
 * cache, where the next open finds them) or quick-retries at a hinted server still
 * opening; true: retry now. */
static bool scan_moved_retry(strata_scanner_t *sc, moved_follow *mf, int status,
                             const retry_state *r)
{
    int64_t pause = 0;
    bool hinted = status == ST_REGION_MOVED && sc->moved.len &&
                  moved_hint_apply(sc->c, sc->table, sc->moved.data, sc->moved.len, mf) == ST_OK;
    buf_free(&sc->moved);
    if (moved_follow_retry(mf, sc->addr, status, hinted, &pause) && moved_follow_step(mf, r)) {
        clock_sleep_ms(pause);
        return true;
    }
    return false;
}

strata_result_t *strata_scanner_next(strata_scanner_t *sc, char **errptr)
{
    moved_follow mf;
    moved_follow_init(&mf);
    retry_state r;
    int rc = retry_begin(&r, &sc->c->retry);
    strata_result_t *res = NULL;
    int expired = 0;
    while (rc == ST_OK && !res && !sc->done) {
        bool was_open = sc->open;
        rc = fill(sc, client_call_timeout(sc->c, &r));
        if (rc == ST_OK) {
            if (!sc->done)
                res = take_result(sc, &rc);
            continue;
        }
        if (rc == ST_NOT_FOUND && was_open && expired++ < SCAN_MAX_EXPIRED_REOPENS) {
            /* The server's scanner is gone (its lease ran out while the caller was
             * away): reopen at the exact position, as HBase does on an
             * UnknownScannerException. */
            LOG_DEBUG("scan of %s: server scanner expired; reopening", sc->table);
            reset_after_failure(sc, rc);
            scan_metrics_retry(&sc->metrics, sc->remote);
            rc = ST_OK;
            continue;
        }
        LOG_DEBUG("scan of %s at region %s: %s (attempt %d)", sc->table,
                  sc->reg.encoded_name ? sc->reg.encoded_name : "?", st_errmsg(),
                  retry_attempts(&r));
        char why[512];
        snprintf(why, sizeof(why), "%s", st_errmsg());
        bool remote = sc->remote; /* where the failed call went */
        reset_after_failure(sc, rc);
        if (scan_moved_retry(sc, &mf, rc, &r)) {
            scan_metrics_retry(&sc->metrics, remote);
            rc = ST_OK;
            continue;
        }
        note_failure(sc, rc);
        st_error(rc, "%s", why); /* the close may have overwritten it */
        int64_t pause = 0;
        if ((rc = client_next_pause(&r, rc, 0, &pause)) == ST_OK) {
            scan_metrics_retry(&sc->metrics, remote);
            clock_sleep_ms(pause);
        }
    }
    if (rc != ST_OK)
        client_set_error(errptr, rc);
    return res;
}

size_t strata_scanner_metrics(const strata_scanner_t *sc, strata_scan_metric *out, size_t cap)
{
    if (!sc || !sc->metrics.on)
        return 0;
    for (size_t i = 0; out && i < cap && i < SM_COUNT; i++) {
        out[i].name = scan_metrics_name((scan_metric_id)i);
        out[i].value = sc->metrics.v[i];
    }
    return SM_COUNT;
}

void strata_scanner_close(strata_scanner_t *sc)
{
    if (!sc)
        return;
    close_server_scanner(sc);
    drop_resp(sc);
    locator_region_clear(&sc->reg);
    buf_free(&sc->moved);
    buf_free(&sc->pos);
    buf_free(&sc->opt.start);
    buf_free(&sc->opt.stop);
    read_spec_clear(&sc->opt.spec);
    free(sc->table);
    free(sc);
}
