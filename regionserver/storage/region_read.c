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

static void destroy_sources(read_source *srcs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        kv_iter_destroy(srcs[i].it);
}

/* Collects the sources of a read: memstores at the read point and the store files
 * that may hold what the read wants. On success *srcs (malloc'd) holds *n sources. */
static int collect_sources(region *r, const scan_spec *spec, const store_read_hint *hint,
                           read_source **srcs, size_t *n)
{
    *srcs = NULL;
    *n = 0;
    uint64_t rp = mvcc_read_point(r->mvcc);
    size_t cap = 0;
    int rc = ST_OK;
    for (;;) {
        uint64_t gen = atomic_load(&r->flush_gen);
        if (gen & 1) {
            sched_yield(); /* a flush is swapping snapshots for files */
            continue;
        }
        for (size_t i = 0; i < r->schema.nfamilies && rc == ST_OK; i++)
            if (family_wanted(spec, &r->schema.families[i]))
                rc = store_collect_iters(r->stores[i], rp, hint, srcs, n, &cap);
        if (rc != ST_OK || atomic_load(&r->flush_gen) == gen)
            break;
        destroy_sources(*srcs, *n);
        *n = 0;
    }
    if (rc != ST_OK) {
        destroy_sources(*srcs, *n);
        free(*srcs);
        *srcs = NULL;
        *n = 0;
    }
    return rc;
}

/* Builds the merged input for a read. */
static int build_input(region *r, const scan_spec *spec, const store_read_hint *hint,
                       kv_iter **out)
{
    *out = NULL;
    read_source *srcs = NULL;
    size_t n = 0;
    int rc = collect_sources(r, spec, hint, &srcs, &n);
    if (rc != ST_OK)
        return rc;
    kv_iter **iters = malloc((n ? n : 1) * sizeof(*iters));
    if (iters) {
        for (size_t i = 0; i < n; i++)
            iters[i] = srcs[i].it;
        *out = merge_iter_new(iters, n);
    }
    if (!*out) {
        destroy_sources(srcs, n);
        rc = st_error(ST_NOMEM, "region %s: out of memory opening a read over %zu sources",
                      r->info.encoded_name, n);
    }
    free(iters);
    free(srcs);
    return rc;
}

/* ------------------------------------------------------------ Get fast path
 *
 * A Get that names every column it wants, without a filter and not raw, reads its
 * sources newest first (by the newest timestamp each may hold) and stops as soon as
 * every named column has all the versions it can return, each newer than anything an
 * unread source may hold: such a source can then neither add a newer version nor hold
 * a delete marker that masks one (markers mask cells with timestamps <= theirs). This
 * is HBase's lazy seek with time-range file skipping. Each source is first probed with
 * a seek to the row; one without the row is dropped, and the scanner then runs over
 * the sources that have it, which the probe left in place. */

#define FAST_GET_MAX_COLUMNS 32
#define FAST_GET_STACK 16

static int family_index(const region *r, const uint8_t *fam, size_t len)
{
    for (size_t i = 0; i < r->schema.nfamilies; i++) {
        const char *name = r->schema.families[i].name;
        if (strlen(name) == len && memcmp(name, fam, len) == 0)
            return (int)i;
    }
    return -1;
}

static bool fast_get_applies(const region *r, const scan_spec *s)
{
    if (s->raw || s->filter || s->ncolumns == 0 || s->ncolumns > FAST_GET_MAX_COLUMNS)
        return false;
    for (size_t i = 0; i < s->ncolumns; i++)
        if (!s->columns[i].qualifier ||
            family_index(r, s->columns[i].family, s->columns[i].family_len) < 0)
            return false;
    return true;
}

/* Whether out holds, for every named column, as many versions as the Get returns at
 * most, all with timestamps above bound. */
static bool answer_complete(const region *r, const scan_spec *s, const scan_result *out,
                            int64_t bound)
{
    int max_versions = s->max_versions > 0 ? s->max_versions : 1;
    for (size_t i = 0; i < s->ncolumns; i++) {
        const scan_column *col = &s->columns[i];
        const family_schema *f =
            &r->schema.families[family_index(r, col->family, col->family_len)];
        int want = f->versions > 0 ? f->versions : 1;
        if (max_versions < want)
            want = max_versions;
        int have = 0;
        for (size_t k = 0; k < out->ncells; k++) {
            const cell_t *c = &out->cells[k];
            if (c->family_len != col->family_len || c->qualifier_len != col->qualifier_len ||
                memcmp(c->family, col->family, col->family_len) != 0 ||
                memcmp(c->qualifier, col->qualifier, col->qualifier_len) != 0)
                continue;
            if (c->ts <= bound)
                return false;
            have++;
        }
        if (have < want)
            return false;
    }
    return true;
}

/* Sorts by max_ts, newest first (n is small: one per memstore and file). */
static void sort_sources(read_source *srcs, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        read_source x = srcs[i];
        size_t j = i;
        for (; j > 0 && srcs[j - 1].max_ts < x.max_ts; j--)
            srcs[j] = srcs[j - 1];
        srcs[j] = x;
    }
}

static bool has_row(kv_iter *it, const uint8_t *row, size_t row_len)
{
    if (!kv_iter_valid(it))
        return false;
    const cell_t *c = kv_iter_cell(it);
    return c->row_len == row_len && memcmp(c->row, row, row_len) == 0;
}

/* One scanner pass over the live sources (the last one just probed). */
static int read_live(region *r, const scan_spec *s, kv_iter **live, bool *placed, size_t nlive,
                     const cell_t *key, scan_result *out)
{
    scan_result_clear(out);
    kv_iter *m = merge_iter_new_borrowed(live, nlive);
    if (!m)
        return st_error(ST_NOMEM, "region %s: out of memory reading a row", r->info.encoded_name);
    int rc = merge_iter_mark_placed(m, placed, key);
    for (size_t k = 0; k < nlive; k++)
        placed[k] = false; /* the pass moves them */
    scanner *sc = NULL;
    if (rc == ST_OK)
        rc = scanner_new(m, r->schema.families, r->schema.nfamilies, s, clock_now_ms(), &sc);
    else
        kv_iter_destroy(m);
    if (rc == ST_OK) {
        int got = scanner_next(sc, out);
        rc = got < 0 ? got : ST_OK;
    }
    scanner_free(sc);
    return rc;
}

static int fast_get(region *r, const scan_spec *s, const store_read_hint *hint, scan_result *out)
{
    read_source *srcs = NULL;
    size_t n = 0;
    int rc = collect_sources(r, s, hint, &srcs, &n);
    if (rc != ST_OK)
        return rc;
    kv_iter *live_stack[FAST_GET_STACK];
    bool placed_stack[FAST_GET_STACK];
    kv_iter **live = n <= FAST_GET_STACK ? live_stack : malloc(n * sizeof(*live));
    bool *placed = n <= FAST_GET_STACK ? placed_stack : malloc(n * sizeof(*placed));
    if (!live || !placed)
        rc = st_error(ST_NOMEM, "region %s: out of memory reading a row", r->info.encoded_name);
    sort_sources(srcs, n);
    cell_t key = cell_first_on_row(s->start_row, s->start_row_len);
    size_t nlive = 0;
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        kv_iter *it = srcs[i].it;
        kv_iter_seek(it, &key);
        if ((rc = kv_iter_status(it)) < 0)
            break;
        rc = ST_OK;
        if (!has_row(it, s->start_row, s->start_row_len))
            continue;
        live[nlive] = it;
        placed[nlive++] = true;
        rc = read_live(r, s, live, placed, nlive, &key, out);
        if (rc == ST_OK && i + 1 < n && answer_complete(r, s, out, srcs[i + 1].max_ts))
            break;
    }
    if (rc != ST_OK || nlive == 0)
        scan_result_clear(out);
    destroy_sources(srcs, n);
    free(srcs);
    if (live != live_stack)
        free(live);
    if (placed != placed_stack)
        free(placed);
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

    store_read_hint hint = {row, row_len, NULL, 0, s.min_ts, s.max_ts, true, s.cached_only};
    if (s.ncolumns == 1 && s.columns[0].qualifier) {
        hint.qualifier = s.columns[0].qualifier;
        hint.qualifier_len = s.columns[0].qualifier_len;
    }
    int rc;
    if (fast_get_applies(r, &s)) {
        rc = fast_get(r, &s, &hint, out);
    } else {
        kv_iter *input = NULL;
        scanner *sc = NULL;
        rc = build_input(r, &s, &hint, &input);
        if (rc == ST_OK)
            rc = scanner_new(input, r->schema.families, r->schema.nfamilies, &s, clock_now_ms(),
                             &sc);
        if (rc == ST_OK) {
            int got = scanner_next(sc, out);
            rc = got < 0 ? got : ST_OK;
            /* A batch-less get returns the whole row in one result. */
        }
        scanner_free(sc);
    }
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
    rc = region_read_row(r, row, row_len, spec, out);
    if (rc != ST_WOULD_BLOCK) /* one that will be tried again is not counted twice */
        atomic_fetch_add(&r->read_requests, 1);
    return rc;
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
    store_read_hint hint = {NULL, 0, NULL, 0, s.min_ts, s.max_ts, true, false};
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
