/*
 * filter_column.c - the filters that pick columns within each row: ColumnCountGetFilter,
 * ColumnPaginationFilter, ColumnRangeFilter, MultipleColumnPrefixFilter and
 * FirstKeyValueMatchingQualifiersFilter (HBase 2.x semantics; docs/filters.md).
 *
 *   ColumnCountGetFilter(limit)  counts the columns of a row; the first `limit` are
 *       included (their first version: later versions get NEXT_COL, as HBase's
 *       INCLUDE_AND_NEXT_COL), the next one gets NEXT_COL and turns filter_all_remaining
 *       true: the rest of that row gets NEXT_ROW (HBase ends the scan at that cell) and
 *       the scan ends. Meant for Gets.
 *   ColumnPaginationFilter(limit, offset)  columns offset .. offset+limit-1 of each row,
 *       counted across its families; earlier ones get NEXT_COL, the rest of the row
 *       NEXT_ROW once the page is full. The column-offset form starts at the first column
 *       whose qualifier is >= the offset (seeking to it in each family until a column is
 *       included, as HBase does).
 *   ColumnRangeFilter(min, min_incl, max, max_incl)  qualifiers in the range; a qualifier
 *       before min seeks to min, one past max seeks to the next family (HBase: NEXT_ROW,
 *       which there ends only that family).
 *   MultipleColumnPrefixFilter(p...)  qualifiers starting with one of the prefixes; others
 *       seek to the next prefix, or to the next family after the last. A prefix that has
 *       another listed prefix as its own prefix adds nothing and is dropped (HBase keeps
 *       it and then misses qualifiers such as "ac" for the prefixes "a" and "ab").
 *   FirstKeyValueMatchingQualifiersFilter(q...)  every cell of a row up to and including
 *       the first one whose qualifier is listed; the rest of the row gets NEXT_ROW.
 * A filter that cannot remember the column it included (out of memory) ends the row
 * (pagination) or the scan (ColumnCountGetFilter) rather than return too much.
 * Thread-safety: one scanner at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "regionserver/storage/filter_internal.h"

/* ---- ColumnCountGetFilter and ColumnPaginationFilter ---- */

typedef struct count_filter {
    filter base;
    int64_t limit;
    int64_t offset;  /* ColumnPaginationFilter by count */
    uint8_t *column; /* ColumnPaginationFilter by column offset */
    size_t column_len;
    int64_t count;   /* columns counted in this row */
    filter_col last; /* the column last included: its older versions get NEXT_COL */
    filter_key hint;
} count_filter;

static void count_reset(filter *f)
{
    count_filter *k = (count_filter *)f;
    k->count = 0;
    k->last.set = false;
}

static void count_destroy(filter *f)
{
    count_filter *k = (count_filter *)f;
    free(k->column);
    filter_col_free(&k->last);
    filter_key_free(&k->hint);
}

static bool count_get_all_remaining(filter *f)
{
    count_filter *k = (count_filter *)f;
    return k->count > k->limit;
}

static bool count_get_row_key(filter *f, const uint8_t *row, size_t len)
{
    return count_get_all_remaining(f);
}

static filter_return count_get_cell(filter *f, const cell_t *c)
{
    count_filter *k = (count_filter *)f;
    if (k->count > k->limit)
        return FILTER_NEXT_ROW;
    if (filter_col_is(&k->last, c))
        return FILTER_NEXT_COL;
    if (++k->count > k->limit)
        return FILTER_NEXT_COL;
    if (filter_col_set(&k->last, c) != ST_OK) {
        k->count = k->limit + 1;
        return FILTER_NEXT_ROW;
    }
    return FILTER_INCLUDE;
}

static const filter_ops count_get_ops = {
    .name = "ColumnCountGetFilter",
    .reset = count_reset,
    .row_key = count_get_row_key,
    .cell = count_get_cell,
    .all_remaining = count_get_all_remaining,
    .destroy = count_destroy,
};

static count_filter *count_new(const filter_ops *ops, int32_t limit, int32_t offset)
{
    if (limit < 0 || offset < 0) {
        st_error(ST_INVALID_ARGUMENT, "%s: %s must not be negative (got %d)", ops->name,
                 limit < 0 ? "limit" : "offset", (int)(limit < 0 ? limit : offset));
        return NULL;
    }
    count_filter *k = filter_alloc(sizeof(*k), ops);
    if (k != NULL) {
        k->limit = limit;
        k->offset = offset;
    }
    return k;
}

filter *filter_column_count_get_new(int32_t limit)
{
    return (filter *)count_new(&count_get_ops, limit, 0);
}

/* Includes c as the next counted column (pagination). */
static filter_return page_include(count_filter *k, const cell_t *c)
{
    k->count++;
    if (filter_col_set(&k->last, c) != ST_OK)
        k->count = INT64_MAX; /* cannot tell its versions apart: end the row after it */
    return FILTER_INCLUDE;
}

static filter_return page_cell(filter *f, const cell_t *c)
{
    count_filter *k = (count_filter *)f;
    if (k->count >= k->offset + k->limit)
        return FILTER_NEXT_ROW;
    if (filter_col_is(&k->last, c))
        return FILTER_NEXT_COL;
    if (k->count < k->offset) {
        k->count++;
        return FILTER_NEXT_COL;
    }
    return page_include(k, c);
}

static filter_return page_at_cell(filter *f, const cell_t *c)
{
    count_filter *k = (count_filter *)f;
    if (k->count >= k->limit)
        return FILTER_NEXT_ROW;
    if (filter_col_is(&k->last, c))
        return FILTER_NEXT_COL;
    if (k->count == 0 &&
        filter_bytes_compare(c->qualifier, c->qualifier_len, k->column, k->column_len) < 0)
        return filter_key_column(&k->hint, c, k->column, k->column_len) == ST_OK ? FILTER_SEEK_HINT
                                                                                 : FILTER_NEXT_COL;
    return page_include(k, c);
}

static bool count_hint(filter *f, cell_t *out)
{
    *out = filter_key_cell(&((count_filter *)f)->hint);
    return true;
}

static const filter_ops page_ops = {
    .name = "ColumnPaginationFilter",
    .reset = count_reset,
    .cell = page_cell,
    .destroy = count_destroy,
};

static const filter_ops page_at_ops = {
    .name = "ColumnPaginationFilter",
    .reset = count_reset,
    .cell = page_at_cell,
    .hint = count_hint,
    .destroy = count_destroy,
};

filter *filter_column_pagination_new(int32_t limit, int32_t offset)
{
    return (filter *)count_new(&page_ops, limit, offset);
}

filter *filter_column_pagination_at_new(int32_t limit, const uint8_t *column, size_t len)
{
    count_filter *k = count_new(&page_at_ops, limit, 0);
    if (k == NULL)
        return NULL;
    k->column = filter_dup_bytes(column, len);
    k->column_len = len;
    if (k->column == NULL) {
        st_error(ST_NOMEM, "ColumnPaginationFilter: out of memory");
        filter_free((filter *)k);
        return NULL;
    }
    return (filter *)k;
}

/* ---- ColumnRangeFilter ---- */

typedef struct range_filter {
    filter base;
    uint8_t *min, *max; /* NULL: open */
    size_t min_len, max_len;
    bool min_incl, max_incl;
    filter_key hint;
} range_filter;

static filter_return range_cell(filter *f, const cell_t *c)
{
    range_filter *r = (range_filter *)f;
    if (r->min != NULL) {
        int cmp = filter_bytes_compare(c->qualifier, c->qualifier_len, r->min, r->min_len);
        if (cmp < 0)
            return filter_key_column(&r->hint, c, r->min, r->min_len) == ST_OK ? FILTER_SEEK_HINT
                                                                               : FILTER_NEXT_COL;
        if (cmp == 0 && !r->min_incl)
            return FILTER_NEXT_COL;
    }
    if (r->max != NULL) {
        int cmp = filter_bytes_compare(c->qualifier, c->qualifier_len, r->max, r->max_len);
        if (cmp > 0 || (cmp == 0 && !r->max_incl))
            return filter_key_next_family(&r->hint, c) == ST_OK ? FILTER_SEEK_HINT
                                                                : FILTER_NEXT_COL;
    }
    return FILTER_INCLUDE;
}

static bool range_hint(filter *f, cell_t *out)
{
    *out = filter_key_cell(&((range_filter *)f)->hint);
    return true;
}

static void range_destroy(filter *f)
{
    range_filter *r = (range_filter *)f;
    free(r->min);
    free(r->max);
    filter_key_free(&r->hint);
}

static const filter_ops range_ops = {
    .name = "ColumnRangeFilter",
    .cell = range_cell,
    .hint = range_hint,
    .destroy = range_destroy,
};

filter *filter_column_range_new(const uint8_t *min, size_t min_len, bool has_min,
                                bool min_inclusive, const uint8_t *max, size_t max_len,
                                bool has_max, bool max_inclusive)
{
    range_filter *r = filter_alloc(sizeof(*r), &range_ops);
    if (r == NULL)
        return NULL;
    bool ok = true;
    if (has_min && min != NULL) {
        r->min = filter_dup_bytes(min, min_len);
        r->min_len = min_len;
        ok = r->min != NULL;
    }
    if (ok && has_max && max != NULL) {
        r->max = filter_dup_bytes(max, max_len);
        r->max_len = max_len;
        ok = r->max != NULL;
    }
    if (!ok) {
        st_error(ST_NOMEM, "ColumnRangeFilter: out of memory");
        filter_free((filter *)r);
        return NULL;
    }
    r->min_incl = min_inclusive;
    r->max_incl = max_inclusive;
    return (filter *)r;
}

/* ---- byte-string sets (MultipleColumnPrefixFilter, FirstKeyValueMatchingQualifiers) ---- */

typedef struct bytes_item {
    uint8_t *p;
    size_t len;
} bytes_item;

static int item_order(const void *a, const void *b)
{
    const bytes_item *x = a, *y = b;
    return filter_bytes_compare(x->p, x->len, y->p, y->len);
}

static void items_free(bytes_item *items, size_t n)
{
    for (size_t i = 0; items != NULL && i < n; i++)
        free(items[i].p);
    free(items);
}

/* Copies n byte strings, sorted. ST_OK, ST_NOMEM, or ST_INVALID_ARGUMENT for a NULL
 * string (n > 0 with a NULL array) or, when `distinct`, a repeated one. */
static int items_copy(const char *name, const uint8_t *const *p, const size_t *lens, size_t n,
                      bool distinct, bytes_item **out)
{
    *out = NULL;
    if (n > 0 && (p == NULL || lens == NULL))
        return st_error(ST_INVALID_ARGUMENT, "%s: no byte strings given", name);
    bytes_item *items = calloc(n ? n : 1, sizeof(*items));
    if (items == NULL)
        return st_error(ST_NOMEM, "%s: out of memory for %zu byte strings", name, n);
    for (size_t i = 0; i < n; i++) {
        items[i].p = filter_dup_bytes(p[i], lens[i]);
        items[i].len = lens[i];
        if (items[i].p == NULL) {
            items_free(items, n);
            return st_error(ST_NOMEM, "%s: out of memory for %zu byte strings", name, n);
        }
    }
    qsort(items, n, sizeof(*items), item_order);
    for (size_t i = 1; distinct && i < n; i++) {
        if (item_order(&items[i - 1], &items[i]) == 0) {
            int len = (int)(items[i].len < 40 ? items[i].len : 40);
            st_error(ST_INVALID_ARGUMENT, "%s: prefix '%.*s' is repeated (they must be distinct)",
                     name, len, (const char *)items[i].p);
            items_free(items, n);
            return ST_INVALID_ARGUMENT;
        }
    }
    *out = items;
    return ST_OK;
}

static bool starts_with(const uint8_t *p, size_t len, const bytes_item *prefix)
{
    return len >= prefix->len && (prefix->len == 0 || memcmp(p, prefix->p, prefix->len) == 0);
}

/* ---- MultipleColumnPrefixFilter ---- */

typedef struct prefixes_filter {
    filter base;
    bytes_item *items; /* sorted; none is a prefix of another */
    size_t n;
    filter_key hint;
} prefixes_filter;

/* Index of the last prefix <= (p, len), or -1. */
static long last_at_or_before(const prefixes_filter *m, const uint8_t *p, size_t len)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (filter_bytes_compare(m->items[mid].p, m->items[mid].len, p, len) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (long)lo - 1;
}

static filter_return prefixes_cell(filter *f, const cell_t *c)
{
    prefixes_filter *m = (prefixes_filter *)f;
    if (m->n == 0)
        return FILTER_INCLUDE;
    long i = last_at_or_before(m, c->qualifier, c->qualifier_len);
    if (i >= 0 && starts_with(c->qualifier, c->qualifier_len, &m->items[i]))
        return FILTER_INCLUDE;
    int rc = (size_t)(i + 1) < m->n
                 ? filter_key_column(&m->hint, c, m->items[i + 1].p, m->items[i + 1].len)
                 : filter_key_next_family(&m->hint, c);
    return rc == ST_OK ? FILTER_SEEK_HINT : FILTER_NEXT_COL;
}

static bool prefixes_hint(filter *f, cell_t *out)
{
    *out = filter_key_cell(&((prefixes_filter *)f)->hint);
    return true;
}

static void prefixes_destroy(filter *f)
{
    prefixes_filter *m = (prefixes_filter *)f;
    items_free(m->items, m->n);
    filter_key_free(&m->hint);
}

static const filter_ops prefixes_ops = {
    .name = "MultipleColumnPrefixFilter",
    .cell = prefixes_cell,
    .hint = prefixes_hint,
    .destroy = prefixes_destroy,
};

/* Drops every prefix that starts with an earlier one: it matches nothing more. */
static size_t drop_covered(bytes_item *items, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (kept > 0 && starts_with(items[i].p, items[i].len, &items[kept - 1])) {
            free(items[i].p);
            continue;
        }
        items[kept++] = items[i];
    }
    return kept;
}

filter *filter_multiple_column_prefix_new(const uint8_t *const *prefixes, const size_t *lens,
                                          size_t n)
{
    bytes_item *items = NULL;
    if (items_copy(prefixes_ops.name, prefixes, lens, n, true, &items) != ST_OK)
        return NULL;
    prefixes_filter *m = filter_alloc(sizeof(*m), &prefixes_ops);
    if (m == NULL) {
        items_free(items, n);
        return NULL;
    }
    m->items = items;
    m->n = drop_covered(items, n);
    return (filter *)m;
}

/* ---- FirstKeyValueMatchingQualifiersFilter ---- */

typedef struct first_match_filter {
    filter base;
    bytes_item *items; /* sorted */
    size_t n;
    bool found;
} first_match_filter;

static void first_match_reset(filter *f)
{
    ((first_match_filter *)f)->found = false;
}

static filter_return first_match_cell(filter *f, const cell_t *c)
{
    first_match_filter *m = (first_match_filter *)f;
    if (m->found)
        return FILTER_NEXT_ROW;
    bytes_item key = {(uint8_t *)c->qualifier, c->qualifier_len};
    m->found = m->n > 0 && bsearch(&key, m->items, m->n, sizeof(key), item_order) != NULL;
    return FILTER_INCLUDE;
}

static void first_match_destroy(filter *f)
{
    first_match_filter *m = (first_match_filter *)f;
    items_free(m->items, m->n);
}

static const filter_ops first_match_ops = {
    .name = "FirstKeyValueMatchingQualifiersFilter",
    .reset = first_match_reset,
    .cell = first_match_cell,
    .destroy = first_match_destroy,
};

filter *filter_first_key_value_matching_qualifiers_new(const uint8_t *const *quals,
                                                       const size_t *lens, size_t n)
{
    bytes_item *items = NULL;
    if (items_copy(first_match_ops.name, quals, lens, n, false, &items) != ST_OK)
        return NULL;
    first_match_filter *m = filter_alloc(sizeof(*m), &first_match_ops);
    if (m == NULL) {
        items_free(items, n);
        return NULL;
    }
    m->items = items;
    m->n = n;
    return (filter *)m;
}
