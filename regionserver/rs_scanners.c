/*
 * rs_scanners.c - ClientService.Scan and the server-side scanners behind it: a table of
 * open scanners keyed by a 64-bit id, each holding a region scanner, its filter, the
 * request that owns its spec's bytes, and a one-result lookahead (so a response says
 * exactly whether the region has more).
 *
 * Leases: every call on a scanner renews it; the reaper thread closes a scanner that no
 * call has reached for regionserver.scanner.lease.ms and frees its resources. A scanner
 * killed because its region closes stays in the table as a tombstone (no resources) so
 * that the next call on it gets ST_NOT_SERVING (reopen at the next row) rather than an
 * unknown-scanner error; the reaper removes tombstones after a lease too.
 * A call marks its scanner busy; the reaper and region close leave a busy scanner alone
 * (close waits for it), and a second concurrent call on it is refused.
 * The open checks the scan's operation attributes (rs_attrs_check); with
 * OP_ATTR_SCAN_METRICS true the region scanner counts its rows (scan_spec.counts) and
 * every response carries what it counted since the previous one (ScanResponse.scan_metrics).
 *
 * Thread-safety: the table is under rs_server.scan_mu (taken before rs_server.mu). A busy
 * scanner's region scanner is used without the lock by the one call that marked it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/rpc/rpc_proto.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/op_attr.h"
#include "common/status.h"
#include "regionserver/rs_internal.h"

#define RS_SCAN_DEFAULT_ROWS 100
#define RS_SCAN_MAX_ROWS 65536 /* per response; the client asks again for more */

struct rs_scanner {
    uint64_t id;
    rs_region *reg; /* NULL once killed (tombstone) */
    region_scanner *rsc;
    filter *flt;
    Strata__Client__ScanRequest *req; /* owns the bytes spec points into */
    rs_pool pool;                     /* the spec's column array */
    scan_result pending;              /* lookahead */
    bool has_pending;
    bool busy;
    uint64_t last_ns;   /* last call, clock_mono_ns */
    uint64_t next_seq;  /* expected next_call_seq */
    bool metrics;           /* scan metrics asked for (OP_ATTR_SCAN_METRICS) */
    scan_row_counts counts; /* the region scanner's, with metrics */
    scan_row_counts sent;   /* what earlier responses reported */
};

/* ---- table (under scan_mu) ---- */

static size_t find_pos(rs_server *s, uint64_t id)
{
    for (size_t i = 0; i < s->nscanners; i++)
        if (s->scanners[i]->id == id)
            return i;
    return SIZE_MAX;
}

/* Frees the scanner's region resources and drops its hold on the region. Under scan_mu. */
static void release_resources(rs_server *s, rs_scanner *sc)
{
    region_scanner_close(sc->rsc);
    sc->rsc = NULL;
    filter_free(sc->flt);
    sc->flt = NULL;
    scan_result_free(&sc->pending);
    sc->has_pending = false;
    if (sc->req)
        strata__client__scan_request__free_unpacked(sc->req, NULL);
    sc->req = NULL;
    rs_pool_free(&sc->pool);
    if (sc->reg) {
        pthread_mutex_lock(&s->mu);
        if (--sc->reg->scanners == 0)
            pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
        sc->reg = NULL;
    }
}

/* Removes and frees the scanner at pos. Under scan_mu. */
static void remove_at(rs_server *s, size_t pos)
{
    rs_scanner *sc = s->scanners[pos];
    s->scanners[pos] = s->scanners[--s->nscanners];
    release_resources(s, sc);
    free(sc);
}

/* Adds sc to the table and counts it on its region, unless the region stopped being
 * OPEN meanwhile (ST_NOT_SERVING). */
static int register_scanner(rs_server *s, rs_scanner *sc)
{
    int rc = ST_OK;
    pthread_mutex_lock(&s->scan_mu);
    if (s->nscanners == s->scap) {
        size_t cap = s->scap ? s->scap * 2 : 64;
        rs_scanner **t = realloc(s->scanners, cap * sizeof(*t));
        if (!t) {
            rc = st_error(ST_NOMEM, "out of memory");
            goto done;
        }
        s->scanners = t;
        s->scap = cap;
    }
    pthread_mutex_lock(&s->mu);
    if (sc->reg->state != RS_REGION_OPEN)
        rc = st_error(ST_NOT_SERVING, "region %s is closing", sc->reg->name);
    else
        sc->reg->scanners++;
    pthread_mutex_unlock(&s->mu);
    if (rc != ST_OK)
        goto done;
    sc->id = s->next_scanner_id++;
    sc->busy = true;
    sc->last_ns = clock_mono_ns();
    s->scanners[s->nscanners++] = sc;
done:
    pthread_mutex_unlock(&s->scan_mu);
    return rc;
}

/* Marks the scanner busy for this call. */
static int take_scanner(rs_server *s, uint64_t id, rs_scanner **out)
{
    *out = NULL;
    int rc = ST_OK;
    pthread_mutex_lock(&s->scan_mu);
    size_t pos = find_pos(s, id);
    if (pos == SIZE_MAX) {
        rc = st_error(ST_NOT_FOUND, "scanner %" PRIu64 " is unknown on %s: closed, or its lease "
                      "of %" PRId64 " ms expired", id, s->server_name, s->lease_ms);
    } else if (s->scanners[pos]->busy) {
        rc = st_error(ST_INVALID_ARGUMENT, "scanner %" PRIu64 " is in use by another call", id);
    } else if (!s->scanners[pos]->reg) {
        remove_at(s, pos);
        rc = st_error(ST_NOT_SERVING, "scanner %" PRIu64 ": its region closed on %s; reopen the "
                      "scan at the next row", id, s->server_name);
    } else {
        *out = s->scanners[pos];
        (*out)->busy = true;
        (*out)->last_ns = clock_mono_ns();
    }
    pthread_mutex_unlock(&s->scan_mu);
    return rc;
}

/* Ends this call on sc: frees it if close is set, else renews its lease. */
static void give_scanner(rs_server *s, rs_scanner *sc, bool close)
{
    pthread_mutex_lock(&s->scan_mu);
    sc->busy = false;
    sc->last_ns = clock_mono_ns();
    size_t pos = find_pos(s, sc->id);
    if (close && pos != SIZE_MAX)
        remove_at(s, pos);
    pthread_cond_broadcast(&s->scan_cv);
    pthread_mutex_unlock(&s->scan_mu);
}

void rs_scanners_kill_region(rs_server *s, rs_region *reg)
{
    pthread_mutex_lock(&s->scan_mu);
    for (bool again = true; again;) {
        again = false;
        for (size_t i = 0; i < s->nscanners; i++) {
            rs_scanner *sc = s->scanners[i];
            if (sc->reg != reg)
                continue;
            if (sc->busy) {
                pthread_cond_wait(&s->scan_cv, &s->scan_mu);
                again = true;
                break;
            }
            release_resources(s, sc); /* tombstone until its next call or lease */
        }
    }
    pthread_mutex_unlock(&s->scan_mu);
}

uint64_t rs_scanners_count(rs_server *s)
{
    pthread_mutex_lock(&s->scan_mu);
    uint64_t n = s->nscanners;
    pthread_mutex_unlock(&s->scan_mu);
    return n;
}

/* ---- the reaper ---- */

static void reap_expired(rs_server *s)
{
    uint64_t now = clock_mono_ns(), lease_ns = (uint64_t)s->lease_ms * 1000000ull;
    for (size_t i = 0; i < s->nscanners;) {
        rs_scanner *sc = s->scanners[i];
        if (!sc->busy && now - sc->last_ns >= lease_ns) {
            LOG_INFO("scanner %" PRIu64 " on region %s: lease of %" PRId64 " ms expired, closed",
                     sc->id, sc->reg ? sc->reg->name : "(closed)", s->lease_ms);
            remove_at(s, i);
            continue;
        }
        i++;
    }
}

static void *reaper_main(void *arg)
{
    rs_server *s = arg;
    int64_t period = s->lease_ms / 4 > 1000 ? 1000 : (s->lease_ms / 4 < 5 ? 5 : s->lease_ms / 4);
    pthread_mutex_lock(&s->scan_mu);
    while (!s->reaper_stop) {
        struct timespec until = clock_realtime_after_ms(period);
        pthread_cond_timedwait(&s->reaper_cv, &s->scan_mu, &until);
        reap_expired(s);
    }
    pthread_mutex_unlock(&s->scan_mu);
    return NULL;
}

int rs_scanners_start(rs_server *s)
{
    if (pthread_create(&s->reaper, NULL, reaper_main, s) != 0)
        return st_error(ST_NOMEM, "region server: cannot start the scanner reaper thread");
    s->reaper_started = true;
    return ST_OK;
}

void rs_scanners_stop(rs_server *s)
{
    pthread_mutex_lock(&s->scan_mu);
    s->reaper_stop = true;
    pthread_cond_broadcast(&s->reaper_cv);
    pthread_mutex_unlock(&s->scan_mu);
    if (s->reaper_started)
        pthread_join(s->reaper, NULL);
    s->reaper_started = false;
    pthread_mutex_lock(&s->scan_mu);
    while (s->nscanners)
        remove_at(s, s->nscanners - 1);
    pthread_mutex_unlock(&s->scan_mu);
}

/* ---- the Scan call ---- */

/* Opens a scanner for req (which it takes over). The scanner is busy on return. A region
 * that moved away fails ST_REGION_MOVED with its hint in *hint. */
static int open_scanner(rs_server *s, Strata__Client__ScanRequest *req, rs_scanner **out,
                        buf_t *hint)
{
    *out = NULL;
    rs_region *reg = NULL;
    rs_scanner *sc = calloc(1, sizeof(*sc));
    if (!sc) {
        strata__client__scan_request__free_unpacked(req, NULL);
        return st_error(ST_NOMEM, "out of memory");
    }
    sc->req = req;
    scan_result_init(&sc->pending);
    int rc = rs_region_acquire_hint(s, req->region->encoded_name, &reg, hint);
    scan_spec spec;
    const Strata__Client__Scan *q = req->scan;
    if (rc == ST_OK)
        rc = rs_attrs_check(reg->r, "Scan", q->start_row.data,
                            q->has_start_row ? q->start_row.len : 0, q->attribute, q->n_attribute);
    if (rc == ST_OK)
        rc = rs_spec_from_scan(reg->r, q, &sc->pool, &spec, &sc->flt);
    if (rc == ST_OK) {
        const Strata__Client__NameBytesPair *m =
            op_attr_find(q->attribute, q->n_attribute, OP_ATTR_SCAN_METRICS);
        sc->metrics = m && m->has_value && op_attr_true(m->value.data, m->value.len);
        spec.counts = sc->metrics ? &sc->counts : NULL;
    }
    if (rc == ST_OK)
        rc = region_scanner_open(reg->r, &spec, &sc->rsc);
    if (rc == ST_OK) {
        sc->reg = reg;
        rc = register_scanner(s, sc);
        if (rc != ST_OK)
            sc->reg = NULL;
    }
    if (rc != ST_OK) {
        release_resources(s, sc); /* closes the region scanner while reg is still held */
        free(sc);
        rs_region_release(s, reg);
        return rc;
    }
    rs_region_release(s, reg);
    *out = sc;
    return ST_OK;
}

/* The next result into res: the lookahead if any. 1, 0 at the end, or an error. */
static int next_result(rs_scanner *sc, scan_result *res)
{
    if (!sc->has_pending)
        return region_scanner_next(sc->rsc, res);
    scan_result tmp = *res;
    *res = sc->pending;
    sc->pending = tmp;
    scan_result_clear(&sc->pending);
    sc->has_pending = false;
    return 1;
}

/* Up to rows results (bounded by max_result_size bytes); *more: the region has more. */
static int fill(rs_server *s, rs_scanner *sc, uint32_t rows, rs_pool *pool,
                Strata__Client__ScanResponse *resp, bool *more)
{
    Strata__Client__Result **results = rs_pool_alloc(pool, rows * sizeof(*results));
    if (!results)
        return st_error(ST_NOMEM, "out of memory");
    resp->results = results;
    size_t bytes = 0;
    int got = 1;
    while (resp->n_results < rows && bytes < s->max_result_size) {
        scan_result *res = rs_pool_result(pool);
        Strata__Client__Result *pr = rs_pool_alloc(pool, sizeof(*pr));
        if (!res || !pr)
            return st_error(ST_NOMEM, "out of memory");
        if ((got = next_result(sc, res)) <= 0)
            break;
        int rc = rs_result_to_proto(res, pool, pr);
        if (rc != ST_OK)
            return rc;
        results[resp->n_results++] = pr;
        bytes += res->data.len + res->ncells * 32;
    }
    if (got < 0)
        return got;
    if (got > 0) { /* look ahead: does the region have more? */
        got = region_scanner_next(sc->rsc, &sc->pending);
        if (got < 0)
            return got;
        sc->has_pending = got > 0;
    }
    *more = got > 0;
    return ST_OK;
}

/* With scan metrics on: the rows scanned and filtered since the previous response (HBase's
 * ServerSideScanMetrics, summed by the client), in pool. */
static int add_metrics(rs_scanner *sc, rs_pool *pool, Strata__Client__ScanResponse *resp)
{
    static const char *const names[2] = {"ROWS_SCANNED", "ROWS_FILTERED"};
    uint64_t now[2] = {sc->counts.scanned, sc->counts.filtered};
    uint64_t before[2] = {sc->sent.scanned, sc->sent.filtered};
    Strata__Client__ScanMetrics *m = rs_pool_alloc(pool, sizeof(*m));
    Strata__Client__NameInt64Pair *pairs = rs_pool_alloc(pool, 2 * sizeof(*pairs));
    Strata__Client__NameInt64Pair **ptrs = rs_pool_alloc(pool, 2 * sizeof(*ptrs));
    if (!m || !pairs || !ptrs)
        return st_error(ST_NOMEM, "out of memory");
    strata__client__scan_metrics__init(m);
    for (int i = 0; i < 2; i++) {
        strata__client__name_int64_pair__init(&pairs[i]);
        pairs[i].name = (char *)names[i];
        pairs[i].has_value = 1;
        pairs[i].value = (int64_t)(now[i] - before[i]);
        ptrs[i] = &pairs[i];
    }
    m->metrics = ptrs;
    m->n_metrics = 2;
    resp->scan_metrics = m;
    sc->sent = sc->counts;
    return ST_OK;
}

/* The scanner part of a Scan call: next rows, close. sc is busy; given back here. */
static int serve(rs_server *s, rs_scanner *sc, const Strata__Client__ScanRequest *req,
                 bool opened, rs_pool *pool, Strata__Client__ScanResponse *resp)
{
    int rc = ST_OK;
    bool more = true;
    uint32_t rows = req->has_number_of_rows ? req->number_of_rows : RS_SCAN_DEFAULT_ROWS;
    if (rows > RS_SCAN_MAX_ROWS)
        rows = RS_SCAN_MAX_ROWS;
    if (!opened && req->has_next_call_seq) {
        if (req->next_call_seq != sc->next_seq)
            rc = st_error(ST_INVALID_ARGUMENT, "scanner %" PRIu64 ": next call %" PRIu64
                          " out of order (expected %" PRIu64 ")", sc->id, req->next_call_seq,
                          sc->next_seq);
        else
            sc->next_seq++;
    }
    bool close = req->has_close_scanner && req->close_scanner;
    if (rc == ST_OK && !(close && !opened) && rows > 0)
        rc = fill(s, sc, rows, pool, resp, &more);
    if (rc == ST_OK && sc->metrics)
        rc = add_metrics(sc, pool, resp);
    resp->has_scanner_id = resp->has_more_results_in_region = resp->has_ttl_ms = 1;
    resp->scanner_id = sc->id;
    resp->ttl_ms = (uint32_t)s->lease_ms;
    resp->more_results_in_region = more && !close && rc == ST_OK;
    LOG_DEBUG("scanner %" PRIu64 " on %s: %s, %zu results, more %d (%s)", sc->id,
              sc->reg ? sc->reg->name : "-", opened ? "open" : close ? "close" : "next",
              resp->n_results, (int)resp->more_results_in_region, rc ? st_errmsg() : "ok");
    give_scanner(s, sc, !resp->more_results_in_region);
    return rc;
}

int rs_handle_scan(void *ctx, const rpc_request *req, rpc_reply *reply)
{
    rs_server *s = ctx;
    rs_pool pool = {0};
    rs_scanner *sc = NULL;
    Strata__Client__ScanResponse resp = STRATA__CLIENT__SCAN_RESPONSE__INIT;
    Strata__Client__ScanRequest *m = NULL;
    int rc = rs_check_serving(s, reply);
    if (rc != ST_OK)
        goto done;
    if ((rc = rpc_proto_unpack_request(req, &strata__client__scan_request__descriptor,
                                       (ProtobufCMessage **)&m)) != ST_OK)
        goto done;
    bool opened = !m->has_scanner_id;
    if (opened) {
        if (!m->region || !m->scan) {
            rc = st_error(ST_INVALID_ARGUMENT, "Scan: neither a scanner id nor region and scan");
            goto done;
        }
        rc = open_scanner(s, m, &sc, &reply->hint); /* takes m over */
        if (rc == ST_OK)
            rc = serve(s, sc, sc->req, true, &pool, &resp);
        m = NULL;
    } else if ((rc = take_scanner(s, m->scanner_id, &sc)) == ST_OK) {
        rc = serve(s, sc, m, false, &pool, &resp);
    }
    if (rc == ST_OK)
        rc = rpc_proto_reply(reply, &resp.base);
done:
    if (m)
        strata__client__scan_request__free_unpacked(m, NULL);
    rs_pool_free(&pool);
    return rc;
}
