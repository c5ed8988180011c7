/*
 * filter_rows.c - the filters that pick rows by their key and know the scan's direction
 * (filter_set_reversed): InclusiveStopFilter, MultiRowRangeFilter and FuzzyRowFilter
 * (HBase 2.x semantics; docs/filters.md).
 *
 *   InclusiveStopFilter(stop)  rows up to and including stop; the first row after it
 *       (reversed: before it) is rejected and ends the scan.
 *   MultiRowRangeFilter(ranges)  rows inside any range. The ranges are sorted by start and
 *       overlapping ones merged, so they are disjoint and ascending. A row before a range
 *       (reversed: after it) seeks to that range's start (reversed: into its stop end);
 *       a row past the last range (reversed: before the first) ends the scan.
 *   FuzzyRowFilter(key/mask pairs)  rows that match a pair: each byte of the row whose
 *       mask byte is 0 equals the key's byte (only the first min(row, key) bytes are
 *       compared, HBase's rule). Another row seeks to the nearest row that can match one
 *       of the pairs; when none can, the scan ends.
 * The row filters decide at filter_row_key and answer for every cell of the row from that
 * decision: INCLUDE, or SEEK_HINT (with a hint for the whole row), and filter_row drops a
 * row they did not accept (HBASE-26967: in a list other children see its cells).
 *
 * Fuzzy hints. For a row r that fails a pair at its first mismatch p (a fixed byte):
 *   forward: the smallest matching row above r is r[0..j) + b, for the largest j <= p
 *     where a greater byte b fits: the key byte at p if it exceeds r[p]; else r[j] + 1 at
 *     a wildcard j < p with r[j] < 0xff. None: no row above r can match the pair.
 *   reversed: if key[p] < r[p], no row from r[0..p) + (key[p] + 1) up to r matches, so the
 *     scan goes on below that key; if key[p] > r[p], the largest matching row below r is
 *     r[0..p) itself (none when p == 0).
 * Forward hints are first_on_row(candidate); reversed ones first_on_row(X), "the rows
 * before X". The nearest hint over the pairs wins.
 * Thread-safety: one scanner at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "regionserver/storage/filter_internal.h"

/* The answer a row filter gives every cell of the row it decided about. */
typedef struct row_decision {
    filter_return code; /* INCLUDE, SEEK_HINT or NEXT_ROW */
    bool done;          /* no later row can pass: the scan ends */
    filter_key hint;
} row_decision;

/* Records "seek" for this row; a hint that cannot be built (memory) makes it SKIP. */
static void decide_seek(row_decision *d, int rc)
{
    d->code = rc == ST_OK ? FILTER_SEEK_HINT : FILTER_SKIP;
}

/* ---- InclusiveStopFilter ---- */

typedef struct stop_filter {
    filter base;
    uint8_t *stop;
    size_t len;
    bool done;
} stop_filter;

static bool stop_row_key(filter *f, const uint8_t *row, size_t len)
{
    stop_filter *s = (stop_filter *)f;
    if (s->done)
        return true;
    int cmp = filter_bytes_compare(row, len, s->stop, s->len);
    s->done = f->reversed ? cmp < 0 : cmp > 0;
    return s->done;
}

static filter_return stop_cell(filter *f, const cell_t *c)
{
    return ((stop_filter *)f)->done ? FILTER_NEXT_ROW : FILTER_INCLUDE;
}

static bool stop_all_remaining(filter *f)
{
    return ((stop_filter *)f)->done;
}

static void stop_destroy(filter *f)
{
    free(((stop_filter *)f)->stop);
}

static const filter_ops stop_ops = {
    .name = "InclusiveStopFilter",
    .row_key = stop_row_key,
    .cell = stop_cell,
    .all_remaining = stop_all_remaining,
    .destroy = stop_destroy,
};

filter *filter_inclusive_stop_new(const uint8_t *stop, size_t len)
{
    stop_filter *s = filter_alloc(sizeof(*s), &stop_ops);
    if (s == NULL)
        return NULL;
    s->stop = filter_dup_bytes(stop, len);
    s->len = len;
    if (s->stop == NULL) {
        st_error(ST_NOMEM, "InclusiveStopFilter: out of memory");
        free(s);
        return NULL;
    }
    return (filter *)s;
}

/* ---- the shared answers of MultiRowRangeFilter and FuzzyRowFilter ---- */

static filter_return decided_cell(row_decision *d)
{
    return d->code;
}

static bool decided_row(const row_decision *d)
{
    return d->code != FILTER_INCLUDE;
}

static bool decided_hint(row_decision *d, cell_t *out)
{
    *out = filter_key_cell(&d->hint);
    return true;
}

/* Records the end of the scan for this row. */
static bool decide_done(row_decision *d)
{
    d->done = true;
    d->code = FILTER_NEXT_ROW;
    return true;
}

/* ---- MultiRowRangeFilter ---- */

/* A bound: empty key with `open` is -inf (start) or +inf (stop). */
typedef struct bound {
    uint8_t *key;
    size_t len;
    bool incl;
    bool open;
} bound;

typedef struct row_range {
    bound start, stop;
} row_range;

typedef struct ranges_filter {
    filter base;
    row_range *r; /* disjoint, ascending */
    size_t n;
    row_decision d;
} ranges_filter;

/* Order of starts: -inf first, then by key, an inclusive start before an exclusive one. */
static int start_order(const void *a, const void *b)
{
    const bound *x = &((const row_range *)a)->start, *y = &((const row_range *)b)->start;
    if (x->open || y->open)
        return (int)y->open - (int)x->open;
    int c = filter_bytes_compare(x->key, x->len, y->key, y->len);
    return c ? c : (int)y->incl - (int)x->incl;
}

/* Order of stops: by key, an exclusive stop before an inclusive one, +inf last. */
static int stop_order(const bound *x, const bound *y)
{
    if (x->open || y->open)
        return (int)x->open - (int)y->open;
    int c = filter_bytes_compare(x->key, x->len, y->key, y->len);
    return c ? c : (int)x->incl - (int)y->incl;
}

/* True when row lies above start bound b (b admits it or everything after it). */
static bool above_start(const bound *b, const uint8_t *row, size_t len)
{
    if (b->open)
        return true;
    int c = filter_bytes_compare(row, len, b->key, b->len);
    return c > 0 || (c == 0 && b->incl);
}

/* True when row lies below stop bound b. */
static bool below_stop(const bound *b, const uint8_t *row, size_t len)
{
    if (b->open)
        return true;
    int c = filter_bytes_compare(row, len, b->key, b->len);
    return c < 0 || (c == 0 && b->incl);
}

/* True when range b starts no later than just after range a ends (no row between). */
static bool touches(const row_range *a, const row_range *b)
{
    if (a->stop.open || b->start.open)
        return true;
    int c = filter_bytes_compare(b->start.key, b->start.len, a->stop.key, a->stop.len);
    return c < 0 || (c == 0 && (a->stop.incl || b->start.incl));
}

/* Merges ranges sorted by start, in place, into disjoint ascending ones; returns how many
 * remain. The bounds a merge makes redundant are freed. */
static size_t merge_ranges(row_range *r, size_t n)
{
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        if (out > 0 && touches(&r[out - 1], &r[i])) {
            row_range *last = &r[out - 1];
            free(r[i].start.key);
            if (stop_order(&r[i].stop, &last->stop) > 0) {
                free(last->stop.key);
                last->stop = r[i].stop;
            } else {
                free(r[i].stop.key);
            }
            continue;
        }
        r[out++] = r[i];
    }
    return out;
}

/* Forward: the first range whose stop is not below row (or n). */
static size_t first_not_below(const ranges_filter *m, const uint8_t *row, size_t len)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (below_stop(&m->r[mid].stop, row, len))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Reversed: the number of ranges whose start is not above row (the candidate is the last). */
static size_t count_not_above(const ranges_filter *m, const uint8_t *row, size_t len)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (above_start(&m->r[mid].start, row, len))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool ranges_decide_forward(ranges_filter *m, const uint8_t *row, size_t len)
{
    size_t i = first_not_below(m, row, len);
    if (i == m->n)
        return decide_done(&m->d);
    const bound *s = &m->r[i].start;
    if (above_start(s, row, len))
        m->d.code = FILTER_INCLUDE;
    else
        decide_seek(&m->d, filter_key_row(&m->d.hint, s->key, s->len, !s->incl));
    return false;
}

static bool ranges_decide_reversed(ranges_filter *m, const uint8_t *row, size_t len)
{
    size_t i = count_not_above(m, row, len);
    if (i == 0)
        return decide_done(&m->d);
    const bound *e = &m->r[i - 1].stop;
    if (below_stop(e, row, len))
        m->d.code = FILTER_INCLUDE;
    else
        decide_seek(&m->d, filter_key_row(&m->d.hint, e->key, e->len, e->incl));
    return false;
}

static bool ranges_row_key(filter *f, const uint8_t *row, size_t len)
{
    ranges_filter *m = (ranges_filter *)f;
    if (m->d.done)
        return true;
    return f->reversed ? ranges_decide_reversed(m, row, len) : ranges_decide_forward(m, row, len);
}

static filter_return ranges_cell(filter *f, const cell_t *c)
{
    return decided_cell(&((ranges_filter *)f)->d);
}

static bool ranges_row(filter *f, const cell_t *cells, size_t n)
{
    return decided_row(&((ranges_filter *)f)->d);
}

static bool ranges_all_remaining(filter *f)
{
    return ((ranges_filter *)f)->d.done;
}

static bool ranges_hint(filter *f, cell_t *out)
{
    return decided_hint(&((ranges_filter *)f)->d, out);
}

static void ranges_free(row_range *r, size_t n)
{
    for (size_t i = 0; r != NULL && i < n; i++) {
        free(r[i].start.key);
        free(r[i].stop.key);
    }
    free(r);
}

static void ranges_destroy(filter *f)
{
    ranges_filter *m = (ranges_filter *)f;
    ranges_free(m->r, m->n);
    filter_key_free(&m->d.hint);
}

static const filter_ops ranges_ops = {
    .name = "MultiRowRangeFilter",
    .row_key = ranges_row_key,
    .cell = ranges_cell,
    .row = ranges_row,
    .all_remaining = ranges_all_remaining,
    .hint = ranges_hint,
    .destroy = ranges_destroy,
};

/* Checks range i as HBase's RowRange.isValid does. */
static int range_check(const filter_row_range *in, size_t i)
{
    if (in->start_len == 0 || in->stop_len == 0)
        return ST_OK;
    int c = filter_bytes_compare(in->start, in->start_len, in->stop, in->stop_len);
    if (c < 0 || (c == 0 && in->stop_inclusive))
        return ST_OK;
    return st_error(ST_INVALID_ARGUMENT,
                    "MultiRowRangeFilter: range %zu is empty: its start row sorts %s its stop "
                    "row",
                    i + 1, c == 0 ? "equal to (exclusive)" : "after");
}

static int bound_copy(bound *b, const uint8_t *key, size_t len, bool incl)
{
    b->open = len == 0;
    b->incl = incl;
    b->len = len;
    b->key = filter_dup_bytes(key, len);
    return b->key ? ST_OK : st_error(ST_NOMEM, "MultiRowRangeFilter: out of memory");
}

filter *filter_multi_row_range_new(const filter_row_range *ranges, size_t n)
{
    if (n == 0 || ranges == NULL) {
        st_error(ST_INVALID_ARGUMENT, "MultiRowRangeFilter: no ranges found");
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        if (range_check(&ranges[i], i) != ST_OK)
            return NULL;
    }
    row_range *r = calloc(n, sizeof(*r));
    ranges_filter *m = r ? filter_alloc(sizeof(*m), &ranges_ops) : NULL;
    int rc = m ? ST_OK : st_error(ST_NOMEM, "MultiRowRangeFilter: out of memory");
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        const filter_row_range *in = &ranges[i];
        rc = bound_copy(&r[i].start, in->start, in->start_len, in->start_inclusive);
        if (rc == ST_OK)
            rc = bound_copy(&r[i].stop, in->stop, in->stop_len, in->stop_inclusive);
    }
    if (rc != ST_OK) {
        ranges_free(r, n);
        free(m);
        return NULL;
    }
    qsort(r, n, sizeof(*r), start_order);
    m->r = r;
    m->n = merge_ranges(r, n);
    return (filter *)m;
}

/* ---- FuzzyRowFilter ---- */

typedef struct fuzzy_pair {
    uint8_t *key;
    uint8_t *mask; /* 0: fixed, 1: any */
    size_t len;
} fuzzy_pair;

typedef struct fuzzy_filter {
    filter base;
    fuzzy_pair *pairs;
    size_t n;
    row_decision d;
    buf_t best; /* the nearest hint row so far */
    buf_t cand; /* the candidate of one pair */
} fuzzy_filter;

/* The first position where row fails pair p, or SIZE_MAX when it matches. */
static size_t fuzzy_mismatch(const fuzzy_pair *p, const uint8_t *row, size_t len)
{
    size_t n = len < p->len ? len : p->len;
    for (size_t i = 0; i < n; i++) {
        if (p->mask[i] == 0 && row[i] != p->key[i])
            return i;
    }
    return SIZE_MAX;
}

/* Forward: the smallest row above row that can match p, into out. False if none. */
static bool fuzzy_next(const fuzzy_pair *p, const uint8_t *row, size_t at, buf_t *out, bool *oom)
{
    for (size_t j = at + 1; j-- > 0;) {
        bool fits = j == at ? p->key[j] > row[j] : p->mask[j] == 1 && row[j] < 0xff;
        if (!fits)
            continue;
        uint8_t b = j == at ? p->key[j] : (uint8_t)(row[j] + 1);
        buf_reset(out);
        *oom = buf_append(out, row, j) != ST_OK || buf_append_u8(out, b) != ST_OK;
        return !*oom;
    }
    return false;
}

/* Reversed: into out a row X such that no row in [X, row) can match p and the largest
 * matching row below row, if any, is below X. False if no row below row can match. */
static bool fuzzy_prev(const fuzzy_pair *p, const uint8_t *row, size_t at, buf_t *out, bool *oom)
{
    if (p->key[at] > row[at] && at == 0)
        return false;
    buf_reset(out);
    *oom = buf_append(out, row, at) != ST_OK;
    if (!*oom && p->key[at] < row[at])
        *oom = buf_append_u8(out, (uint8_t)(p->key[at] + 1)) != ST_OK;
    else if (!*oom)
        *oom = buf_append_u8(out, 0) != ST_OK; /* just after r[0..at) */
    return !*oom;
}

/* True when candidate c is nearer to the current row than the best so far. */
static bool fuzzy_nearer(const fuzzy_filter *z, const buf_t *c, bool have)
{
    if (!have)
        return true;
    int cmp = filter_bytes_compare(c->data, c->len, z->best.data, z->best.len);
    return z->base.reversed ? cmp > 0 : cmp < 0;
}

static bool fuzzy_row_key(filter *f, const uint8_t *row, size_t len)
{
    fuzzy_filter *z = (fuzzy_filter *)f;
    if (z->d.done)
        return true;
    bool have = false, oom = false;
    for (size_t i = 0; i < z->n; i++) {
        size_t at = fuzzy_mismatch(&z->pairs[i], row, len);
        if (at == SIZE_MAX) {
            z->d.code = FILTER_INCLUDE;
            return false;
        }
        bool ok = f->reversed ? fuzzy_prev(&z->pairs[i], row, at, &z->cand, &oom)
                              : fuzzy_next(&z->pairs[i], row, at, &z->cand, &oom);
        if (ok && fuzzy_nearer(z, &z->cand, have)) {
            oom = buf_set(&z->best, z->cand.data, z->cand.len) != ST_OK;
            have = !oom;
        }
        if (oom) {
            z->d.code = FILTER_SKIP; /* no hint: step through the row */
            return false;
        }
    }
    if (!have)
        return decide_done(&z->d);
    decide_seek(&z->d, filter_key_row(&z->d.hint, z->best.data, z->best.len, false));
    return false;
}

static filter_return fuzzy_cell(filter *f, const cell_t *c)
{
    return decided_cell(&((fuzzy_filter *)f)->d);
}

static bool fuzzy_row(filter *f, const cell_t *cells, size_t n)
{
    return decided_row(&((fuzzy_filter *)f)->d);
}

static bool fuzzy_all_remaining(filter *f)
{
    return ((fuzzy_filter *)f)->d.done;
}

static bool fuzzy_hint(filter *f, cell_t *out)
{
    return decided_hint(&((fuzzy_filter *)f)->d, out);
}

static void fuzzy_pairs_free(fuzzy_pair *p, size_t n)
{
    for (size_t i = 0; p != NULL && i < n; i++) {
        free(p[i].key);
        free(p[i].mask);
    }
    free(p);
}

static void fuzzy_destroy(filter *f)
{
    fuzzy_filter *z = (fuzzy_filter *)f;
    fuzzy_pairs_free(z->pairs, z->n);
    filter_key_free(&z->d.hint);
    buf_free(&z->best);
    buf_free(&z->cand);
}

static const filter_ops fuzzy_ops = {
    .name = "FuzzyRowFilter",
    .row_key = fuzzy_row_key,
    .cell = fuzzy_cell,
    .row = fuzzy_row,
    .all_remaining = fuzzy_all_remaining,
    .hint = fuzzy_hint,
    .destroy = fuzzy_destroy,
};

static int fuzzy_check(const uint8_t *const *keys, const uint8_t *const *masks, const size_t *lens,
                       size_t n)
{
    if (n == 0 || keys == NULL || masks == NULL || lens == NULL)
        return st_error(ST_INVALID_ARGUMENT, "FuzzyRowFilter: no fuzzy keys given");
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < lens[i]; k++) {
            if (masks[i][k] > 1)
                return st_error(ST_INVALID_ARGUMENT,
                                "FuzzyRowFilter: mask %zu byte %zu is %u: a mask byte is 0 "
                                "(fixed) or 1 (any)",
                                i + 1, k, masks[i][k]);
        }
    }
    return ST_OK;
}

filter *filter_fuzzy_row_new(const uint8_t *const *keys, const uint8_t *const *masks,
                             const size_t *lens, size_t n)
{
    if (fuzzy_check(keys, masks, lens, n) != ST_OK)
        return NULL;
    fuzzy_pair *p = calloc(n, sizeof(*p));
    fuzzy_filter *z = p ? filter_alloc(sizeof(*z), &fuzzy_ops) : NULL;
    bool ok = z != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        p[i].key = filter_dup_bytes(keys[i], lens[i]);
        p[i].mask = filter_dup_bytes(masks[i], lens[i]);
        p[i].len = lens[i];
        ok = p[i].key != NULL && p[i].mask != NULL;
    }
    if (!ok) {
        st_error(ST_NOMEM, "FuzzyRowFilter: out of memory for %zu fuzzy keys", n);
        fuzzy_pairs_free(p, n);
        free(z);
        return NULL;
    }
    z->pairs = p;
    z->n = n;
    return (filter *)z;
}
