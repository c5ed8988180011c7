/*
 * filter_compare.c - the CompareFilter family (RowFilter, FamilyFilter, QualifierFilter,
 * ValueFilter) and SingleColumnValueFilter, each an operator plus a comparator
 * (comparator.c). A cell passes when `part op value` holds for the part the filter looks at.
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

typedef struct scv_filter {
    filter base;
    compare_op op;
    comparator *cmp;
    uint8_t *fam;
    size_t fam_len;
    uint8_t *qual;
    size_t qual_len;
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

static bool scv_is_column(const scv_filter *s, const cell_t *c)
{
    return c->family_len == s->fam_len && c->qualifier_len == s->qual_len &&
           (s->fam_len == 0 || memcmp(c->family, s->fam, s->fam_len) == 0) &&
           (s->qual_len == 0 || memcmp(c->qualifier, s->qual, s->qual_len) == 0);
}

static filter_return scv_cell(filter *f, const cell_t *c)
{
    scv_filter *s = (scv_filter *)f;
    if (s->matched)
        return FILTER_INCLUDE;
    if (s->latest_only && s->found)
        return FILTER_NEXT_ROW; /* the newest version failed: the row is dropped anyway */
    if (!scv_is_column(s, c))
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

static void scv_destroy(filter *f)
{
    scv_filter *s = (scv_filter *)f;
    comparator_free(s->cmp);
    free(s->fam);
    free(s->qual);
}

static const filter_ops scv_ops = {
    .name = "SingleColumnValueFilter",
    .reset = scv_reset,
    .cell = scv_cell,
    .row = scv_row,
    .destroy = scv_destroy,
};

filter *filter_single_column_value_new(const uint8_t *fam, size_t fam_len, const uint8_t *qual,
                                       size_t qual_len, compare_op op, comparator *cmp,
                                       bool filter_if_missing, bool latest_version_only)
{
    if (!args_ok(scv_ops.name, op, cmp))
        return NULL;
    scv_filter *s = filter_alloc(sizeof(*s), &scv_ops);
    if (s == NULL) {
        comparator_free(cmp);
        return NULL;
    }
    s->cmp = cmp;
    s->op = op;
    s->fam = filter_dup_bytes(fam, fam_len);
    s->qual = filter_dup_bytes(qual, qual_len);
    if (s->fam == NULL || s->qual == NULL) {
        st_error(ST_NOMEM, "SingleColumnValueFilter: out of memory");
        filter_free((filter *)s);
        return NULL;
    }
    s->fam_len = fam_len;
    s->qual_len = qual_len;
    s->filter_if_missing = filter_if_missing;
    s->latest_only = latest_version_only;
    return (filter *)s;
}
