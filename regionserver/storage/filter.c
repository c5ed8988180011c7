/*
 * filter.c - the filter protocol (dispatch with HBase's FilterBase defaults) and
 * FilterList.
 *
 * Row life cycle, as the scanner drives it (filter.h):
 *
 *   filter_all_remaining? --true--> scan ends
 *        | false
 *   filter_reset -> filter_row_key --true--> row skipped
 *        | false
 *   filter_cell per cell --INCLUDE--> filter_transform_cell -> cell kept
 *        |                 SKIP / NEXT_COL / NEXT_ROW -> cell(s) dropped
 *   filter_row(kept cells) --true--> row dropped
 *
 * An empty row is dropped by filter_row without asking the filter, as HBase only calls
 * filterRow() for rows that kept cells (so PageFilter counts only rows with cells).
 *
 * FilterList follows HBase 2.x's FilterListWithAND / FilterListWithOR:
 *   MUST_PASS_ALL  row key: rejected if any child rejects it (all are asked, so each sees
 *                  every row); cell: children are asked in order until one does not
 *                  INCLUDE, whose answer is the list's (children after it never see the
 *                  cell, so counting filters count only cells the earlier ones passed,
 *                  HBASE-20565); a child with filter_all_remaining gives NEXT_ROW; row:
 *                  dropped as soon as one child drops it; all_remaining: any child.
 *   MUST_PASS_ONE  row key: rejected only if every child rejects it; cell: INCLUDE if
 *                  any child includes, else the least restrictive answer; a child that
 *                  answered NEXT_COL is not asked again for that column, nor one that
 *                  answered NEXT_ROW (or rejected the row key, or has all_remaining) for
 *                  that row; row: kept as soon as one child that accepted the row key
 *                  keeps it; all_remaining: every child.
 * Restrictiveness: INCLUDE < SKIP < NEXT_COL < NEXT_ROW. An empty list passes everything.
 * Transform applies, in order, the transforms of the children that included the cell.
 * Thread-safety: one scanner at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/status.h"
#include "regionserver/storage/filter_internal.h"

void *filter_alloc(size_t size, const filter_ops *ops)
{
    filter *f = calloc(1, size);
    if (f == NULL) {
        st_error(ST_NOMEM, "%s: out of memory", ops->name);
        return NULL;
    }
    f->ops = ops;
    return f;
}

uint8_t *filter_dup_bytes(const uint8_t *p, size_t n)
{
    uint8_t *d = malloc(n ? n : 1);
    if (d != NULL && n)
        memcpy(d, p, n);
    return d;
}

void filter_reset(filter *f)
{
    if (f->ops->reset)
        f->ops->reset(f);
}

bool filter_row_key(filter *f, const uint8_t *row, size_t len)
{
    return f->ops->row_key ? f->ops->row_key(f, row, len) : false;
}

filter_return filter_cell(filter *f, const cell_t *c)
{
    return f->ops->cell ? f->ops->cell(f, c) : FILTER_INCLUDE;
}

void filter_transform_cell(filter *f, cell_t *c)
{
    if (f->ops->transform)
        f->ops->transform(f, c);
}

bool filter_row(filter *f, const cell_t *cells, size_t n)
{
    if (n == 0)
        return true;
    return f->ops->row ? f->ops->row(f, cells, n) : false;
}

bool filter_all_remaining(filter *f)
{
    return f->ops->all_remaining ? f->ops->all_remaining(f) : false;
}

void filter_free(filter *f)
{
    if (f == NULL)
        return;
    if (f->ops->destroy)
        f->ops->destroy(f);
    free(f);
}

/* ---- FilterList ---- */

typedef struct list_child {
    filter *f;
    bool key_rejected;      /* OR: rejected this row's key (or had all_remaining) */
    bool included;          /* included the cell last passed to the list */
    filter_return standing; /* OR: NEXT_COL (for the column in col) or NEXT_ROW; else INCLUDE */
    buf_t col;              /* family bytes then qualifier bytes */
    uint32_t col_family_len;
} list_child;

typedef struct filter_list {
    filter base;
    filter_list_op op;
    list_child *kids;
    size_t n;
    size_t cap;
} filter_list;

static const filter_ops list_ops;

static void list_reset(filter *f)
{
    filter_list *l = (filter_list *)f;
    for (size_t i = 0; i < l->n; i++) {
        list_child *k = &l->kids[i];
        filter_reset(k->f);
        k->key_rejected = false;
        k->included = false;
        k->standing = FILTER_INCLUDE;
    }
}

static bool list_row_key(filter *f, const uint8_t *row, size_t len)
{
    filter_list *l = (filter_list *)f;
    if (l->n == 0)
        return false;
    bool any = false, all = true;
    for (size_t i = 0; i < l->n; i++) {
        list_child *k = &l->kids[i];
        k->key_rejected = filter_all_remaining(k->f) || filter_row_key(k->f, row, len);
        any |= k->key_rejected;
        all &= k->key_rejected;
    }
    return l->op == FILTER_MUST_PASS_ALL ? any : all;
}

static filter_return and_cell(filter_list *l, const cell_t *c)
{
    for (size_t i = 0; i < l->n; i++)
        l->kids[i].included = false;
    for (size_t i = 0; i < l->n; i++) {
        list_child *k = &l->kids[i];
        if (filter_all_remaining(k->f))
            return FILTER_NEXT_ROW;
        filter_return r = filter_cell(k->f, c);
        if (r != FILTER_INCLUDE)
            return r;
        k->included = true;
    }
    return FILTER_INCLUDE;
}

static bool same_column(const list_child *k, const cell_t *c)
{
    return c->family_len == k->col_family_len &&
           (size_t)c->family_len + c->qualifier_len == k->col.len &&
           memcmp(k->col.data, c->family, c->family_len) == 0 &&
           (c->qualifier_len == 0 ||
            memcmp(k->col.data + c->family_len, c->qualifier, c->qualifier_len) == 0);
}

/* What an OR child says about c without being asked: INCLUDE means "ask it". */
static filter_return or_standing(list_child *k, const cell_t *c)
{
    if (k->key_rejected || k->standing == FILTER_NEXT_ROW || filter_all_remaining(k->f))
        return FILTER_NEXT_ROW;
    if (k->standing == FILTER_NEXT_COL && same_column(k, c))
        return FILTER_NEXT_COL;
    k->standing = FILTER_INCLUDE;
    return FILTER_INCLUDE;
}

/* Records a child's answer; remembering a NEXT_COL column may fail only for memory, in
 * which case the child is simply asked again (correct, just slower). */
static void or_remember(list_child *k, filter_return r, const cell_t *c)
{
    k->included = r == FILTER_INCLUDE;
    if (r == FILTER_NEXT_ROW) {
        k->standing = FILTER_NEXT_ROW;
    } else if (r == FILTER_NEXT_COL) {
        buf_reset(&k->col);
        if (buf_append(&k->col, c->family, c->family_len) == ST_OK &&
            buf_append(&k->col, c->qualifier, c->qualifier_len) == ST_OK) {
            k->col_family_len = c->family_len;
            k->standing = FILTER_NEXT_COL;
        }
    }
}

static filter_return or_cell(filter_list *l, const cell_t *c)
{
    filter_return rc = FILTER_NEXT_ROW;
    for (size_t i = 0; i < l->n; i++) {
        list_child *k = &l->kids[i];
        k->included = false;
        filter_return r = or_standing(k, c);
        if (r == FILTER_INCLUDE) {
            r = filter_cell(k->f, c);
            or_remember(k, r, c);
        }
        if (r < rc)
            rc = r;
    }
    return rc;
}

static filter_return list_cell(filter *f, const cell_t *c)
{
    filter_list *l = (filter_list *)f;
    if (l->n == 0)
        return FILTER_INCLUDE;
    return l->op == FILTER_MUST_PASS_ALL ? and_cell(l, c) : or_cell(l, c);
}

static void list_transform(filter *f, cell_t *c)
{
    filter_list *l = (filter_list *)f;
    for (size_t i = 0; i < l->n; i++) {
        if (l->kids[i].included)
            filter_transform_cell(l->kids[i].f, c);
    }
}

static bool list_row(filter *f, const cell_t *cells, size_t n)
{
    filter_list *l = (filter_list *)f;
    if (l->n == 0)
        return false;
    for (size_t i = 0; i < l->n; i++) {
        list_child *k = &l->kids[i];
        if (l->op == FILTER_MUST_PASS_ALL && filter_row(k->f, cells, n))
            return true;
        if (l->op == FILTER_MUST_PASS_ONE && !k->key_rejected && !filter_row(k->f, cells, n))
            return false;
    }
    return l->op == FILTER_MUST_PASS_ONE;
}

static bool list_all_remaining(filter *f)
{
    filter_list *l = (filter_list *)f;
    if (l->n == 0)
        return false;
    for (size_t i = 0; i < l->n; i++) {
        bool done = filter_all_remaining(l->kids[i].f);
        if (l->op == FILTER_MUST_PASS_ALL && done)
            return true;
        if (l->op == FILTER_MUST_PASS_ONE && !done)
            return false;
    }
    return l->op == FILTER_MUST_PASS_ONE;
}

static void list_destroy(filter *f)
{
    filter_list *l = (filter_list *)f;
    for (size_t i = 0; i < l->n; i++) {
        filter_free(l->kids[i].f);
        buf_free(&l->kids[i].col);
    }
    free(l->kids);
}

static const filter_ops list_ops = {
    .name = "FilterList",
    .reset = list_reset,
    .row_key = list_row_key,
    .cell = list_cell,
    .transform = list_transform,
    .row = list_row,
    .all_remaining = list_all_remaining,
    .destroy = list_destroy,
};

filter *filter_list_new(filter_list_op op)
{
    if (op != FILTER_MUST_PASS_ALL && op != FILTER_MUST_PASS_ONE) {
        st_error(ST_INVALID_ARGUMENT, "FilterList: unknown operator %d", (int)op);
        return NULL;
    }
    filter_list *l = filter_alloc(sizeof(*l), &list_ops);
    if (l != NULL)
        l->op = op;
    return (filter *)l;
}

int filter_list_add(filter *list, filter *child)
{
    int rc = ST_OK;
    if (child == NULL)
        return st_error(ST_INVALID_ARGUMENT, "FilterList: cannot add a NULL filter");
    if (list == NULL || list->ops != &list_ops || child == list) {
        rc = st_error(ST_INVALID_ARGUMENT, "FilterList: can only add a filter to a list");
        goto fail;
    }
    filter_list *l = (filter_list *)list;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 4;
        list_child *kids = realloc(l->kids, cap * sizeof(*kids));
        if (kids == NULL) {
            rc = st_error(ST_NOMEM, "FilterList: out of memory adding filter %zu", l->n + 1);
            goto fail;
        }
        l->kids = kids;
        l->cap = cap;
    }
    l->kids[l->n++] = (list_child){.f = child, .standing = FILTER_INCLUDE};
    return ST_OK;
fail:
    filter_free(child);
    return rc;
}
