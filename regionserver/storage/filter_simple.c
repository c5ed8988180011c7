/*
 * filter_simple.c - the filters without a comparator: PrefixFilter, ColumnPrefixFilter,
 * PageFilter, FirstKeyOnlyFilter, KeyOnlyFilter and TimestampsFilter.
 *
 *   PrefixFilter        rejects row keys without the prefix (their cells get NEXT_ROW).
 *                       Once the scan has moved from rows at or before the prefix to rows
 *                       after it (or, reversed, from at or after to before), no later row
 *                       can match and filter_all_remaining turns true. The direction is
 *                       read from the order of the rows seen, so the filter needs no flag.
 *   ColumnPrefixFilter  cells whose qualifier starts with the prefix; others NEXT_COL.
 *   PageFilter(n)       counts rows reaching filter_row; at most n pass, then
 *                       filter_all_remaining is true.
 *   FirstKeyOnlyFilter  the first cell of each row, then NEXT_ROW.
 *   KeyOnlyFilter       transform empties the value, or with len_as_value replaces it by
 *                       the 4-byte big-endian length of the original value (bytes kept in
 *                       the filter until the next transform).
 *   TimestampsFilter    cells whose timestamp is listed; a cell older than every listed
 *                       timestamp gets NEXT_COL (older versions follow), others SKIP.
 * Thread-safety: one scanner at a time.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/status.h"
#include "regionserver/storage/filter_internal.h"

/* A filter holding a copy of a byte string (PrefixFilter, ColumnPrefixFilter). */
typedef struct bytes_filter {
    filter base;
    uint8_t *prefix;
    size_t len;
    bool row_out;  /* PrefixFilter: this row lacks the prefix */
    bool passed;   /* PrefixFilter: no later row can match */
    int last_side; /* PrefixFilter: side of the previous row (-1, 0, 1; 2 before any) */
} bytes_filter;

static void bytes_destroy(filter *f)
{
    free(((bytes_filter *)f)->prefix);
}

static filter *bytes_filter_new(const filter_ops *ops, const uint8_t *prefix, size_t len)
{
    bytes_filter *f = filter_alloc(sizeof(*f), ops);
    if (f == NULL)
        return NULL;
    f->prefix = filter_dup_bytes(prefix, len);
    if (f->prefix == NULL) {
        st_error(ST_NOMEM, "%s: out of memory for a %zu-byte prefix", ops->name, len);
        free(f);
        return NULL;
    }
    f->len = len;
    f->last_side = 2;
    return (filter *)f;
}

static bool has_prefix(const uint8_t *p, size_t len, const bytes_filter *f)
{
    return len >= f->len && (f->len == 0 || memcmp(p, f->prefix, f->len) == 0);
}

/* ---- PrefixFilter ---- */

/* -1: the row sorts before every row with the prefix; 0: has it; 1: sorts after them. */
static int prefix_side(const bytes_filter *f, const uint8_t *row, size_t len)
{
    size_t n = len < f->len ? len : f->len;
    int r = n ? memcmp(row, f->prefix, n) : 0;
    if (r == 0)
        return len < f->len ? -1 : 0;
    return r < 0 ? -1 : 1;
}

static void prefix_reset(filter *f)
{
    ((bytes_filter *)f)->row_out = true;
}

static bool prefix_row_key(filter *f, const uint8_t *row, size_t len)
{
    bytes_filter *p = (bytes_filter *)f;
    if (p->passed)
        return true;
    int side = prefix_side(p, row, len);
    if ((p->last_side <= 0 && side > 0) || (p->last_side != 2 && p->last_side >= 0 && side < 0))
        p->passed = true;
    p->last_side = side;
    p->row_out = side != 0;
    return p->row_out;
}

static filter_return prefix_cell(filter *f, const cell_t *c)
{
    return ((bytes_filter *)f)->row_out ? FILTER_NEXT_ROW : FILTER_INCLUDE;
}

static bool prefix_row(filter *f, const cell_t *cells, size_t n)
{
    return ((bytes_filter *)f)->row_out;
}

static bool prefix_all_remaining(filter *f)
{
    return ((bytes_filter *)f)->passed;
}

static const filter_ops prefix_ops = {
    .name = "PrefixFilter",
    .reset = prefix_reset,
    .row_key = prefix_row_key,
    .cell = prefix_cell,
    .row = prefix_row,
    .all_remaining = prefix_all_remaining,
    .destroy = bytes_destroy,
};

filter *filter_prefix_new(const uint8_t *prefix, size_t len)
{
    return bytes_filter_new(&prefix_ops, prefix, len);
}

/* ---- ColumnPrefixFilter ---- */

static filter_return column_prefix_cell(filter *f, const cell_t *c)
{
    return has_prefix(c->qualifier, c->qualifier_len, (bytes_filter *)f) ? FILTER_INCLUDE
                                                                         : FILTER_NEXT_COL;
}

static const filter_ops column_prefix_ops = {
    .name = "ColumnPrefixFilter",
    .cell = column_prefix_cell,
    .destroy = bytes_destroy,
};

filter *filter_column_prefix_new(const uint8_t *prefix, size_t len)
{
    return bytes_filter_new(&column_prefix_ops, prefix, len);
}

/* ---- PageFilter ---- */

typedef struct page_filter {
    filter base;
    int64_t page_size;
    int64_t accepted; /* rows that reached filter_row */
} page_filter;

static bool page_all_remaining(filter *f)
{
    page_filter *p = (page_filter *)f;
    return p->accepted >= p->page_size;
}

static bool page_row_key(filter *f, const uint8_t *row, size_t len)
{
    return page_all_remaining(f);
}

static bool page_row(filter *f, const cell_t *cells, size_t n)
{
    page_filter *p = (page_filter *)f;
    if (p->accepted < INT64_MAX)
        p->accepted++;
    return p->accepted > p->page_size;
}

static const filter_ops page_ops = {
    .name = "PageFilter",
    .row_key = page_row_key,
    .row = page_row,
    .all_remaining = page_all_remaining,
};

filter *filter_page_new(int64_t page_size)
{
    page_filter *p = filter_alloc(sizeof(*p), &page_ops);
    if (p != NULL)
        p->page_size = page_size;
    return (filter *)p;
}

/* ---- FirstKeyOnlyFilter ---- */

typedef struct first_key_filter {
    filter base;
    bool found;
} first_key_filter;

static void first_key_reset(filter *f)
{
    ((first_key_filter *)f)->found = false;
}

static filter_return first_key_cell(filter *f, const cell_t *c)
{
    first_key_filter *k = (first_key_filter *)f;
    if (k->found)
        return FILTER_NEXT_ROW;
    k->found = true;
    return FILTER_INCLUDE;
}

static const filter_ops first_key_ops = {
    .name = "FirstKeyOnlyFilter",
    .reset = first_key_reset,
    .cell = first_key_cell,
};

filter *filter_first_key_only_new(void)
{
    return filter_alloc(sizeof(first_key_filter), &first_key_ops);
}

/* ---- KeyOnlyFilter ---- */

typedef struct key_only_filter {
    filter base;
    bool len_as_value;
    uint8_t len_value[4]; /* the transformed value */
} key_only_filter;

static void key_only_transform(filter *f, cell_t *c)
{
    key_only_filter *k = (key_only_filter *)f;
    if (k->len_as_value) {
        be32_put(k->len_value, c->value_len);
        c->value_len = 4;
    } else {
        c->value_len = 0;
    }
    c->value = k->len_value;
}

static const filter_ops key_only_ops = {
    .name = "KeyOnlyFilter",
    .transform = key_only_transform,
};

filter *filter_key_only_new(bool len_as_value)
{
    key_only_filter *k = filter_alloc(sizeof(*k), &key_only_ops);
    if (k != NULL)
        k->len_as_value = len_as_value;
    return (filter *)k;
}

/* ---- TimestampsFilter ---- */

typedef struct ts_filter {
    filter base;
    int64_t *ts; /* ascending, unique */
    size_t n;
} ts_filter;

static int ts_order(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static filter_return ts_cell(filter *f, const cell_t *c)
{
    ts_filter *t = (ts_filter *)f;
    if (t->n && bsearch(&c->ts, t->ts, t->n, sizeof(int64_t), ts_order))
        return FILTER_INCLUDE;
    if (t->n == 0 || c->ts < t->ts[0])
        return FILTER_NEXT_COL;
    return FILTER_SKIP;
}

static void ts_destroy(filter *f)
{
    free(((ts_filter *)f)->ts);
}

static const filter_ops ts_ops = {
    .name = "TimestampsFilter",
    .cell = ts_cell,
    .destroy = ts_destroy,
};

filter *filter_timestamps_new(const int64_t *ts, size_t n)
{
    ts_filter *t = filter_alloc(sizeof(*t), &ts_ops);
    if (t == NULL)
        return NULL;
    t->ts = n <= SIZE_MAX / sizeof(int64_t) ? malloc((n ? n : 1) * sizeof(int64_t)) : NULL;
    if (t->ts == NULL) {
        st_error(ST_NOMEM, "TimestampsFilter: out of memory for %zu timestamps", n);
        free(t);
        return NULL;
    }
    if (n)
        memcpy(t->ts, ts, n * sizeof(int64_t));
    qsort(t->ts, n, sizeof(int64_t), ts_order);
    size_t u = 0;
    for (size_t i = 0; i < n; i++) {
        if (u == 0 || t->ts[i] != t->ts[u - 1])
            t->ts[u++] = t->ts[i];
    }
    t->n = u;
    return (filter *)t;
}
