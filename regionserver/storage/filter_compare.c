/*
 * filter_compare.c - the filters built on an operator and a comparator (comparator.c):
 * the CompareFilter family (RowFilter, FamilyFilter, QualifierFilter, ValueFilter),
 * SingleColumnValueFilter and SingleColumnValueExcludeFilter, DependentColumnFilter and
 * ColumnValueFilter. A cell passes when `part op value` holds for the part the filter
 * looks at.
 *
 *   RowFilter        decides at filter_row_key; the cells of a rejected row get NEXT_ROW.
 *   FamilyFilter     NEXT_COL for a cell whose family fails. (HBase answers NEXT_ROW, which
 *                    there ends only that family's store; Strata's scanner merges all
 *                    families, where NEXT_ROW would also drop the families after it.)
 *   QualifierFilter  NEXT_COL for a cell whose qualifier fails (its other versions fail too).
 *   ValueFilter      SKIP for a cell whose value fails.
 *   SingleColumnValueFilter(family, qualifier, op, cmp, filter_if_missing, latest_only):
 *                    passes every cell and decides in filter_row: the row is dropped when
 *                    the column is present and no looked-at version matches (with
 *                    latest_only only the newest version is looked at, and the rest of a
 *                    failing row gets NEXT_ROW), or when it is absent and filter_if_missing.
 *   SingleColumnValueExcludeFilter: the same, and filter_row_cells removes the tested
 *                    column from the rows kept (a row left empty is dropped).
 *   DependentColumnFilter(family, qualifier, drop, op, cmp): passes every cell; each
 *                    version of the column whose value passes `op cmp` (every version
 *                    when built without a comparator) records its timestamp, and is
 *                    dropped (SKIP) when drop is set; filter_row_cells then keeps only the
 *                    cells whose timestamp was recorded. A version that fails is SKIPped.
 *   ColumnValueFilter(family, qualifier, op, cmp): only the versions of that column
 *                    whose value passes. A cell of an earlier column seeks to the column;
 *                    once past it (found or not) the rest of the row gets NEXT_ROW.
 *                    (HBase answers NEXT_COL for each column before it: same cells.)
 * Thread-safety: one scanner at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "regionserver/storage/filter_internal.h"

typedef struct cmp_filter {
    filter base;
    compare_op op;
    comparator *cmp;
    bool row_out; /* RowFilter: this row failed */
} cmp_filter;

static bool passes(const cmp_filter *f, const uint8_t *data, size_t len)
{
    return comparator_matches(f->cmp, f->op, data, len);
}

static void cmp_destroy(filter *f)
{
    comparator_free(((cmp_filter *)f)->cmp);
}

/* Checks a constructor's operator and comparator; on failure frees cmp (owned from the
 * call on) and sets st_error. A NULL cmp is the caller's failed comparator_new. */
static bool args_ok(const char *name, compare_op op, comparator *cmp)
{
    if (cmp == NULL) {
        st_error(ST_INVALID_ARGUMENT, "%s: no comparator", name);
        return false;
    }
    if ((int)op < (int)CMP_LESS || (int)op > (int)CMP_NO_OP) {
        st_error(ST_INVALID_ARGUMENT, "%s: unknown compare operator %d", name, (int)op);
        comparator_free(cmp);
        return false;
    }
    return true;
}

static filter *cmp_filter_new(const filter_ops *ops, compare_op op, comparator *cmp)
{
    if (!args_ok(ops->name, op, cmp))
        return NULL;
    cmp_filter *f = filter_alloc(sizeof(*f), ops);
    if (f == NULL) {
        comparator_free(cmp);
        return NULL;
    }
    f->op = op;
    f->cmp = cmp;
    return (filter *)f;
}

/* ---- RowFilter ---- */

static void row_reset(filter *f)
{
    ((cmp_filter *)f)->row_out = false;
}

static bool row_row_key(filter *f, const uint8_t *row, size_t len)
{
    cmp_filter *rf = (cmp_filter *)f;
    rf->row_out = !passes(rf, row, len);
    return rf->row_out;
}

static filter_return row_cell(filter *f, const cell_t *c)
{
    return ((cmp_filter *)f)->row_out ? FILTER_NEXT_ROW : FILTER_INCLUDE;
}

static bool row_row(filter *f, const cell_t *cells, size_t n)
{
    return ((cmp_filter *)f)->row_out;
}

static const filter_ops row_ops = {
    .name = "RowFilter",
    .reset = row_reset,
    .row_key = row_row_key,
    .cell = row_cell,
    .row = row_row,
    .destroy = cmp_destroy,
};

filter *filter_row_new(compare_op op, comparator *cmp)
{
    return cmp_filter_new(&row_ops, op, cmp);
}

/* ---- FamilyFilter, QualifierFilter, ValueFilter ---- */

static filter_return family_cell(filter *f, const cell_t *c)
{
    return passes((cmp_filter *)f, c->family, c->family_len) ? FILTER_INCLUDE : FILTER_NEXT_COL;
}

static filter_return qualifier_cell(filter *f, const cell_t *c)
{
    return passes((cmp_filter *)f, c->qualifier, c->qualifier_len) ? FILTER_INCLUDE
                                                                   : FILTER_NEXT_COL;
}

static filter_return value_cell(filter *f, const cell_t *c)
{
    return passes((cmp_filter *)f, c->value, c->value_len) ? FILTER_INCLUDE : FILTER_SKIP;
}

static const filter_ops family_ops = {
    .name = "FamilyFilter", .cell = family_cell, .destroy = cmp_destroy};
static const filter_ops qualifier_ops = {
    .name = "QualifierFilter", .cell = qualifier_cell, .destroy = cmp_destroy};
static const filter_ops value_ops = {
    .name = "ValueFilter", .cell = value_cell, .destroy = cmp_destroy};

filter *filter_family_new(compare_op op, comparator *cmp)
{
    return cmp_filter_new(&family_ops, op, cmp);
}

filter *filter_qualifier_new(compare_op op, comparator *cmp)
{
    return cmp_filter_new(&qualifier_ops, op, cmp);
}

filter *filter_value_new(compare_op op, comparator *cmp)
{
    return cmp_filter_new(&value_ops, op, cmp);
}

/* ---- SingleColumnValueFilter ---- */

/* The column a filter is about: family and qualifier bytes it owns. */
typedef struct column_ref {
    uint8_t *fam;
    size_t fam_len;
    uint8_t *qual;
    size_t qual_len;
} column_ref;

static int column_ref_set(column_ref *r, const char *name, const uint8_t *fam, size_t fam_len,
                          const uint8_t *qual, size_t qual_len)
{
    r->fam = filter_dup_bytes(fam, fam_len);
    r->qual = filter_dup_bytes(qual, qual_len);
    r->fam_len = fam_len;
    r->qual_len = qual_len;
    if (r->fam == NULL || r->qual == NULL)
        return st_error(ST_NOMEM, "%s: out of memory", name);
    return ST_OK;
}

static void column_ref_free(column_ref *r)
{
    free(r->fam);
    free(r->qual);
}

static bool column_ref_is(const column_ref *r, const cell_t *c)
{
    return filter_is_column(c, r->fam, r->fam_len, r->qual, r->qual_len);
}

/* <0, 0, >0 as c's column sorts before, is, or sorts after r. */
static int column_ref_compare(const column_ref *r, const cell_t *c)
{
    int f = filter_bytes_compare(c->family, c->family_len, r->fam, r->fam_len);
    return f ? f : filter_bytes_compare(c->qualifier, c->qualifier_len, r->qual, r->qual_len);
}

typedef struct scv_filter {
    filter base;
    compare_op op;
    comparator *cmp;
    column_ref col;
    bool filter_if_missing;
    bool latest_only;
    bool found;   /* the column was seen in this row */
    bool matched; /* a looked-at version matched */
} scv_filter;

static void scv_reset(filter *f)
{
    scv_filter *s = (scv_filter *)f;
    s->found = false;
    s->matched = false;
}

static filter_return scv_cell(filter *f, const cell_t *c)
{
    scv_filter *s = (scv_filter *)f;
    if (s->matched)
        return FILTER_INCLUDE;
    if (s->latest_only && s->found)
        return FILTER_NEXT_ROW; /* the newest version failed: the row is dropped anyway */
    if (!column_ref_is(&s->col, c))
        return FILTER_INCLUDE;
    s->found = true;
    if (comparator_matches(s->cmp, s->op, c->value, c->value_len)) {
        s->matched = true;
        return FILTER_INCLUDE;
    }
    return s->latest_only ? FILTER_NEXT_ROW : FILTER_INCLUDE;
}

static bool scv_row(filter *f, const cell_t *cells, size_t n)
{
    scv_filter *s = (scv_filter *)f;
    return s->found ? !s->matched : s->filter_if_missing;
}

/* SingleColumnValueExcludeFilter: the tested column leaves the row. */
static size_t scv_exclude_row_cells(filter *f, cell_t *cells, size_t n)
{
    scv_filter *s = (scv_filter *)f;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (!column_ref_is(&s->col, &cells[i]))
            cells[kept++] = cells[i];
    }
    return kept;
}

static void scv_destroy(filter *f)
{
    scv_filter *s = (scv_filter *)f;
    comparator_free(s->cmp);
    column_ref_free(&s->col);
}

static const filter_ops scv_ops = {
    .name = "SingleColumnValueFilter",
    .reset = scv_reset,
    .cell = scv_cell,
    .row = scv_row,
    .destroy = scv_destroy,
};

static const filter_ops scv_exclude_ops = {
    .name = "SingleColumnValueExcludeFilter",
    .reset = scv_reset,
    .cell = scv_cell,
    .row_cells = scv_exclude_row_cells,
    .row = scv_row,
    .destroy = scv_destroy,
};

static filter *scv_new(const filter_ops *ops, const uint8_t *fam, size_t fam_len,
                       const uint8_t *qual, size_t qual_len, compare_op op, comparator *cmp,
                       bool filter_if_missing, bool latest_version_only)
{
    if (!args_ok(ops->name, op, cmp))
        return NULL;
    scv_filter *s = filter_alloc(sizeof(*s), ops);
    if (s == NULL) {
        comparator_free(cmp);
        return NULL;
    }
    s->cmp = cmp;
    s->op = op;
    if (column_ref_set(&s->col, ops->name, fam, fam_len, qual, qual_len) != ST_OK) {
        filter_free((filter *)s);
        return NULL;
    }
    s->filter_if_missing = filter_if_missing;
    s->latest_only = latest_version_only;
    return (filter *)s;
}

filter *filter_single_column_value_new(const uint8_t *fam, size_t fam_len, const uint8_t *qual,
                                       size_t qual_len, compare_op op, comparator *cmp,
                                       bool filter_if_missing, bool latest_version_only)
{
    return scv_new(&scv_ops, fam, fam_len, qual, qual_len, op, cmp, filter_if_missing,
                   latest_version_only);
}

filter *filter_single_column_value_exclude_new(const uint8_t *fam, size_t fam_len,
                                               const uint8_t *qual, size_t qual_len, compare_op op,
                                               comparator *cmp, bool filter_if_missing,
                                               bool latest_version_only)
{
    return scv_new(&scv_exclude_ops, fam, fam_len, qual, qual_len, op, cmp, filter_if_missing,
                   latest_version_only);
}

/* ---- DependentColumnFilter ---- */

typedef struct dependent_filter {
    filter base;
    column_ref col;
    bool drop;
    compare_op op;
    comparator *cmp; /* NULL: every version counts */
    int64_t *stamps; /* timestamps of the passing versions in this row */
    size_t nstamps;
    size_t cap;
    bool lost; /* a timestamp could not be recorded (memory): the row is dropped */
} dependent_filter;

static void dependent_reset(filter *f)
{
    dependent_filter *d = (dependent_filter *)f;
    d->nstamps = 0;
    d->lost = false;
}

static void dependent_record(dependent_filter *d, int64_t ts)
{
    if (d->nstamps == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 8;
        int64_t *s = cap <= SIZE_MAX / sizeof(*s) ? realloc(d->stamps, cap * sizeof(*s)) : NULL;
        if (s == NULL) {
            d->lost = true;
            return;
        }
        d->stamps = s;
        d->cap = cap;
    }
    d->stamps[d->nstamps++] = ts;
}

static bool dependent_has(const dependent_filter *d, int64_t ts)
{
    for (size_t i = 0; i < d->nstamps; i++) {
        if (d->stamps[i] == ts)
            return true;
    }
    return false;
}

static filter_return dependent_cell(filter *f, const cell_t *c)
{
    dependent_filter *d = (dependent_filter *)f;
    if (!column_ref_is(&d->col, c))
        return FILTER_INCLUDE; /* decided in filter_row_cells */
    if (d->cmp != NULL && !comparator_matches(d->cmp, d->op, c->value, c->value_len))
        return FILTER_SKIP;
    dependent_record(d, c->ts);
    return d->drop ? FILTER_SKIP : FILTER_INCLUDE;
}

static size_t dependent_row_cells(filter *f, cell_t *cells, size_t n)
{
    dependent_filter *d = (dependent_filter *)f;
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (dependent_has(d, cells[i].ts))
            cells[kept++] = cells[i];
    }
    return kept;
}

static bool dependent_row(filter *f, const cell_t *cells, size_t n)
{
    return ((dependent_filter *)f)->lost;
}

static void dependent_destroy(filter *f)
{
    dependent_filter *d = (dependent_filter *)f;
    column_ref_free(&d->col);
    comparator_free(d->cmp);
    free(d->stamps);
}

static const filter_ops dependent_ops = {
    .name = "DependentColumnFilter",
    .reset = dependent_reset,
    .cell = dependent_cell,
    .row_cells = dependent_row_cells,
    .row = dependent_row,
    .destroy = dependent_destroy,
};

filter *filter_dependent_column_new(const uint8_t *fam, size_t fam_len, const uint8_t *qual,
                                    size_t qual_len, bool drop, compare_op op, comparator *cmp)
{
    if (cmp != NULL && !args_ok(dependent_ops.name, op, cmp))
        return NULL;
    dependent_filter *d = filter_alloc(sizeof(*d), &dependent_ops);
    if (d == NULL) {
        comparator_free(cmp);
        return NULL;
    }
    d->cmp = cmp;
    d->op = op;
    d->drop = drop;
    if (column_ref_set(&d->col, dependent_ops.name, fam, fam_len, qual, qual_len) != ST_OK) {
        filter_free((filter *)d);
        return NULL;
    }
    return (filter *)d;
}

/* ---- ColumnValueFilter ---- */

typedef struct column_value_filter {
    filter base;
    column_ref col;
    compare_op op;
    comparator *cmp;
    bool found; /* the column was reached in this row */
    filter_key hint;
} column_value_filter;

static void column_value_reset(filter *f)
{
    ((column_value_filter *)f)->found = false;
}

static filter_return column_value_cell(filter *f, const cell_t *c)
{
    column_value_filter *v = (column_value_filter *)f;
    int cmp = column_ref_compare(&v->col, c);
    if (cmp == 0) {
        v->found = true;
        return comparator_matches(v->cmp, v->op, c->value, c->value_len) ? FILTER_INCLUDE
                                                                         : FILTER_SKIP;
    }
    if (cmp > 0 || v->found)
        return FILTER_NEXT_ROW;
    /* before the column: seek to it in this row */
    cell_t at = cell_first_on_column(c->row, c->row_len, v->col.fam, v->col.fam_len, v->col.qual,
                                     v->col.qual_len);
    return filter_key_copy(&v->hint, &at) == ST_OK ? FILTER_SEEK_HINT : FILTER_NEXT_COL;
}

static bool column_value_hint(filter *f, cell_t *out)
{
    *out = filter_key_cell(&((column_value_filter *)f)->hint);
    return true;
}

static void column_value_destroy(filter *f)
{
    column_value_filter *v = (column_value_filter *)f;
    column_ref_free(&v->col);
    comparator_free(v->cmp);
    filter_key_free(&v->hint);
}

static const filter_ops column_value_ops = {
    .name = "ColumnValueFilter",
    .reset = column_value_reset,
    .cell = column_value_cell,
    .hint = column_value_hint,
    .destroy = column_value_destroy,
};

filter *filter_column_value_new(const uint8_t *fam, size_t fam_len, const uint8_t *qual,
                                size_t qual_len, compare_op op, comparator *cmp)
{
    if (!args_ok(column_value_ops.name, op, cmp))
        return NULL;
    column_value_filter *v = filter_alloc(sizeof(*v), &column_value_ops);
    if (v == NULL) {
        comparator_free(cmp);
        return NULL;
    }
    v->cmp = cmp;
    v->op = op;
    if (column_ref_set(&v->col, column_value_ops.name, fam, fam_len, qual, qual_len) != ST_OK) {
        filter_free((filter *)v);
        return NULL;
    }
    return (filter *)v;
}
