/*
 * region_read.c - a region's read path: gets and scanners over the memstores and the
 * store files, at a read point taken when they start (MVCC), with the scan spec clamped
 * to the region's families and versions.
 *
 * Thread-safety and lock order: see region_internal.h. Reads take no locks beyond the
 * stores' short mutexes.
 */
#include "regionserver/storage/region_internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/status.h"

/* ---------------------------------------------------------------- read path */

static bool family_wanted(const scan_spec *spec, const family_schema *f)
{
    if (!spec || spec->ncolumns == 0)
        return true;
    size_t len = strlen(f->name);
    for (size_t i = 0; i < spec->ncolumns; i++)
        if (spec->columns[i].family_len == len && memcmp(spec->columns[i].family, f->name, len) == 0)
            return true;
    return false;
}

/* Builds the merged input for a read: memstores at the read point and the store files
 * that may hold what the read wants. */
static int build_input(region *r, const scan_spec *spec, const store_read_hint *hint,
                       kv_iter **out)
{
    *out = NULL;
    uint64_t rp = mvcc_read_point(r->mvcc);
    kv_iter **iters = NULL;
    size_t n = 0, cap = 0;
    int rc = ST_OK;
    for (;;) {
        uint64_t gen = atomic_load(&r->flush_gen);
        if (gen & 1) {
            sched_yield(); /* a flush is swapping snapshots for files */
            continue;
        }
        for (size_t i = 0; i < r->schema.nfamilies && rc == ST_OK; i++)
            if (family_wanted(spec, &r->schema.families[i]))
                rc = store_collect_iters(r->stores[i], rp, hint, &iters, &n, &cap);
        if (rc != ST_OK || atomic_load(&r->flush_gen) == gen)
            break;
        for (size_t i = 0; i < n; i++)
            kv_iter_destroy(iters[i]);
        n = 0;
    }
    if (rc == ST_OK) {
        *out = merge_iter_new(iters, n);
        if (!*out)
            rc = ST_NOMEM;
    }
    if (rc != ST_OK)
        for (size_t i = 0; i < n; i++)
            kv_iter_destroy(iters[i]);
    free(iters);
    return rc;
}

int region_read_row(region *r, const uint8_t *row, size_t row_len, const scan_spec *spec,
                    scan_result *out)
{
    scan_result_clear(out);
    scan_spec s = {0};
    if (spec)
        s = *spec;
    uint8_t stop_small[256];
    uint8_t *stop = row_len < sizeof(stop_small) ? stop_small : malloc(row_len + 1);
    if (!stop)
        return ST_NOMEM;
    memcpy(stop, row, row_len);
    stop[row_len] = 0;
    s.start_row = row;
    s.start_row_len = row_len;
    s.stop_row = stop;
    s.stop_row_len = row_len + 1;
    s.reversed = false;
    s.limit = 1;
    s.batch = 0;
    s.mode = SCAN_MODE_USER;

    store_read_hint hint = {row, row_len, NULL, 0, s.min_ts, s.max_ts, true};
    if (s.ncolumns == 1 && s.columns[0].qualifier) {
        hint.qualifier = s.columns[0].qualifier;
        hint.qualifier_len = s.columns[0].qualifier_len;
    }
    kv_iter *input = NULL;
    scanner *sc = NULL;
    int rc = build_input(r, &s, &hint, &input);
    if (rc == ST_OK)
        rc = scanner_new(input, r->schema.families, r->schema.nfamilies, &s, clock_now_ms(), &sc);
    if (rc == ST_OK) {
        int got = scanner_next(sc, out);
        rc = got < 0 ? got : ST_OK;
        /* A batch-less get returns the whole row in one result. */
    }
    scanner_free(sc);
    if (stop != stop_small)
        free(stop);
    return rc;
}

int region_get(region *r, const uint8_t *row, size_t row_len, const scan_spec *spec,
               scan_result *out)
{
    int rc = region_check_row(r, row, row_len);
    if (rc != ST_OK)
        return rc;
    atomic_fetch_add(&r->read_requests, 1);
    return region_read_row(r, row, row_len, spec, out);
}

struct region_scanner {
    region *r;
    scanner *sc;
};

/* Clamps a forward scan's bounds to the region's [start_key, end_key). Rows outside
 * the range are never stored in the region (writes to them are refused), so the clamp
 * only saves seeks; a reversed scan needs none. */
static void clamp_spec(region *r, const scan_spec *in, scan_spec *s)
{
    *s = *in;
    const region_info *i = &r->info;
    if (s->reversed)
        return;
    if (i->start_key_len &&
        cell_compare_rows(s->start_row, s->start_row_len, i->start_key, i->start_key_len) < 0) {
        s->start_row = i->start_key;
        s->start_row_len = i->start_key_len;
    }
    if (i->end_key_len &&
        (s->stop_row_len == 0 ||
         cell_compare_rows(s->stop_row, s->stop_row_len, i->end_key, i->end_key_len) > 0)) {
        s->stop_row = i->end_key;
        s->stop_row_len = i->end_key_len;
    }
}

int region_scanner_open(region *r, const scan_spec *spec, region_scanner **out)
{
    *out = NULL;
    region_scanner *rs = calloc(1, sizeof(*rs));
    if (!rs)
        return ST_NOMEM;
    rs->r = r;
    scan_spec s;
    scan_spec dflt = {0};
    clamp_spec(r, spec ? spec : &dflt, &s);
    int rc = ST_OK;
    store_read_hint hint = {NULL, 0, NULL, 0, s.min_ts, s.max_ts, true};
    kv_iter *input = NULL;
    if (rc == ST_OK)
        rc = build_input(r, &s, &hint, &input);
    if (rc == ST_OK)
        rc = scanner_new(input, r->schema.families, r->schema.nfamilies, &s, clock_now_ms(),
                         &rs->sc);
    if (rc != ST_OK) {
        region_scanner_close(rs);
        return rc;
    }
    *out = rs;
    return ST_OK;
}

int region_scanner_next(region_scanner *s, scan_result *out)
{
    int rc = scanner_next(s->sc, out);
    if (rc == 1)
        atomic_fetch_add(&s->r->read_requests, 1);
    return rc;
}

void region_scanner_close(region_scanner *s)
{
    if (!s)
        return;
    scanner_free(s->sc);
    free(s);
}
