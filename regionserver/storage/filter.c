/*
 * filter.c - the filter protocol (dispatch with HBase's FilterBase defaults), the seek
 * keys and remembered columns filters share (filter_internal.h), and FilterList.
 *
 * Row life cycle, as the scanner drives it (filter.h):
 *
 *   filter_all_remaining? --true--> scan ends
 *        | false
 *   filter_reset -> filter_row_key --true--> row skipped
 *        | false
 *   filter_cell per cell --INCLUDE--> filter_transform_cell -> cell kept
 *        |                 SKIP / NEXT_COL / NEXT_ROW / SEEK_HINT -> cell(s) dropped
 *   filter_row_cells(kept cells) -> some removed
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
 *                  HBASE-20565), a SEEK_HINT with that child's hint; a child with
 *                  filter_all_remaining gives NEXT_ROW; row: dropped as soon as one
 *                  child drops it; all_remaining: any child.
 *   MUST_PASS_ONE  row key: rejected only if every child rejects it; cell: INCLUDE if
 *                  any child includes, else the answer that moves the scan least (the
 *                  cells a list may skip are those every child skips); a child that
 *                  answered NEXT_COL is not asked again for that column, one that
 *                  answered SEEK_HINT not for the cells before its hint, nor one that
 *                  answered NEXT_ROW (or rejected the row key, or has all_remaining) for
 *                  that row; row: kept as soon as one child that accepted the row key
 *                  keeps it; all_remaining: every child.
 * How far an answer moves the scan from cell c: INCLUDE and SKIP to the next cell,
 * NEXT_COL past c's column, NEXT_ROW past c's row, SEEK_HINT to its hint (which may be
 * nearer than NEXT_COL or NEXT_ROW when it lies in c's column or row). HBase answers
 * SKIP for a SEEK_HINT mixed with other refusals; the least step keeps the same cells.
 * Both lists pass filter_row_cells to every child in order. An empty list passes
 * everything. Transform applies, in order, the transforms of the children that included
 * the cell. filter_set_reversed reaches every child, also those added later.
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

int filter_bytes_compare(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int r = n ? memcmp(a, b, n) : 0;
    if (r != 0)
        return r;
    return alen < blen ? -1 : alen > blen;
}

bool filter_is_column(const cell_t *c, const uint8_t *fam, size_t fam_len, const uint8_t *qual,
                      size_t qual_len)
{
    return c->family_len == fam_len && c->qualifier_len == qual_len &&
           (fam_len == 0 || memcmp(c->family, fam, fam_len) == 0) &&
           (qual_len == 0 || memcmp(c->qualifier, qual, qual_len) == 0);
}

/* ---- seek keys and remembered columns ---- */

static int key_set(filter_key *k, const uint8_t *row, size_t rl, const uint8_t *fam, size_t fl,
                   bool fam_past, const uint8_t *qual, size_t ql)
{
    buf_reset(&k->bytes);
    k->row_len = k->family_len = 0;
    if (buf_append(&k->bytes, row, rl) != ST_OK || buf_append(&k->bytes, fam, fl) != ST_OK ||
        (fam_past && buf_append_u8(&k->bytes, 0) != ST_OK) ||
        buf_append(&k->bytes, qual, ql) != ST_OK) {
        buf_reset(&k->bytes);
        return st_error(ST_NOMEM, "filter: out of memory for a seek key");
    }
    k->row_len = (uint32_t)rl;
    k->family_len = (uint32_t)(fl + (fam_past ? 1 : 0));
    return ST_OK;
}

int filter_key_row(filter_key *k, const uint8_t *row, size_t len, bool past)
{
    buf_reset(&k->bytes);
    k->row_len = k->family_len = 0;
    if (buf_append(&k->bytes, row, len) != ST_OK ||
        (past && buf_append_u8(&k->bytes, 0) != ST_OK)) {
        buf_reset(&k->bytes);
        return st_error(ST_NOMEM, "filter: out of memory for a seek key");
    }
    k->row_len = (uint32_t)k->bytes.len;
    return ST_OK;
}

int filter_key_column(filter_key *k, const cell_t *c, const uint8_t *qual, size_t qual_len)
{
    return key_set(k, c->row, c->row_len, c->family, c->family_len, false, qual, qual_len);
}

int filter_key_next_family(filter_key *k, const cell_t *c)
{
    return key_set(k, c->row, c->row_len, c->family, c->family_len, true, NULL, 0);
}

int filter_key_copy(filter_key *k, const cell_t *key)
{
    return key_set(k, key->row, key->row_len, key->family, key->family_len, false, key->qualifier,
                   key->qualifier_len);
}

cell_t filter_key_cell(const filter_key *k)
{
    const uint8_t *b = k->bytes.data ? k->bytes.data : (const uint8_t *)"";
    if (k->family_len == 0)
        return cell_first_on_row(b, k->row_len);
    size_t ql = k->bytes.len - k->row_len - k->family_len;
    return cell_first_on_column(b, k->row_len, b + k->row_len, k->family_len,
                                b + k->row_len + k->family_len, ql);
}

void filter_key_free(filter_key *k)
{
    buf_free(&k->bytes);
    k->row_len = k->family_len = 0;
}

bool filter_col_is(const filter_col *m, const cell_t *c)
{
    return m->set && c->family_len == m->family_len &&
           (size_t)c->family_len + c->qualifier_len == m->bytes.len &&
           (c->family_len == 0 || memcmp(m->bytes.data, c->family, c->family_len) == 0) &&
           (c->qualifier_len == 0 ||
            memcmp(m->bytes.data + c->family_len, c->qualifier, c->qualifier_len) == 0);
}

int filter_col_set(filter_col *m, const cell_t *c)
{
    buf_reset(&m->bytes);
    m->set = buf_append(&m->bytes, c->family, c->family_len) == ST_OK &&
             buf_append(&m->bytes, c->qualifier, c->qualifier_len) == ST_OK;
    m->family_len = c->family_len;
    return m->set ? ST_OK : st_error(ST_NOMEM, "filter: out of memory remembering a column");
}

void filter_col_free(filter_col *m)
{
    buf_free(&m->bytes);
    m->set = false;
}

/* ---- the protocol ---- */

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

size_t filter_row_cells(filter *f, cell_t *cells, size_t n)
{
    return n && f->ops->row_cells ? f->ops->row_cells(f, cells, n) : n;
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

bool filter_next_hint(filter *f, cell_t *hint)
{
    return f->ops->hint ? f->ops->hint(f, hint) : false;
}

void filter_set_reversed(filter *f, bool reversed)
{
    f->reversed = reversed;
    if (f->ops->set_reversed)
        f->ops->set_reversed(f, reversed);
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
    filter_return standing; /* OR: NEXT_COL (for col), SEEK_HINT (before hint), NEXT_ROW;
                               else INCLUDE */
    filter_col col;
    filter_key hint;
} list_child;

typedef struct filter_list {
    filter base;
    filter_list_op op;
    list_child *kids;
    size_t n;
    size_t cap;
    cell_t hint; /* the list's hint after it answered FILTER_SEEK_HINT */
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
        if (r == FILTER_SEEK_HINT && !filter_next_hint(k->f, &l->hint))
            r = FILTER_SKIP;
        if (r != FILTER_INCLUDE)
            return r;
        k->included = true;
    }
    return FILTER_INCLUDE;
}

/* One child's answer about a cell, with its hint when it is SEEK_HINT. */
typedef struct step {
    filter_return r;
    cell_t hint;
} step;

static bool same_row(const cell_t *a, const cell_t *b)
{
    return cell_compare_rows(a->row, a->row_len, b->row, b->row_len) == 0;
}

/* True when hint h moves the scan from c no further than hint g. */
static bool hint_nearer(const filter_list *l, const cell_t *c, const cell_t *h, const cell_t *g)
{
    if (l->base.reversed) {
        bool h_in = same_row(h, c), g_in = same_row(g, c);
        if (h_in != g_in)
            return h_in; /* a hint in c's row stays in it; one in an earlier row leaves it */
        if (!h_in)
            return cell_compare(h, g) >= 0; /* earlier rows: the later one is nearer */
    }
    return cell_compare(h, g) <= 0;
}

/* True when the SEEK_HINT s moves the scan from c no further than answer r (not a seek). */
static bool seek_nearer(const cell_t *c, const step *s, filter_return r)
{
    if (r == FILTER_NEXT_COL)
        return cell_compare_column(&s->hint, c) == 0;
    if (r == FILTER_NEXT_ROW)
        return same_row(&s->hint, c);
    return false; /* INCLUDE and SKIP go to the next cell */
}

/* True when answer a moves the scan from c no further than answer b. */
static bool step_nearer(const filter_list *l, const cell_t *c, const step *a, const step *b)
{
    bool a_seek = a->r == FILTER_SEEK_HINT, b_seek = b->r == FILTER_SEEK_HINT;
    if (a_seek && b_seek)
        return hint_nearer(l, c, &a->hint, &b->hint);
    if (a_seek)
        return seek_nearer(c, a, b->r);
    if (b_seek)
        return !seek_nearer(c, b, a->r);
    return a->r <= b->r; /* INCLUDE < SKIP < NEXT_COL < NEXT_ROW */
}

/* True when c comes before hint h in the scan's order (h stands for c). */
static bool before_hint(const filter_list *l, const cell_t *c, const cell_t *h)
{
    if (l->base.reversed && !same_row(c, h))
        return cell_compare_rows(h->row, h->row_len, c->row, c->row_len) < 0;
    return cell_compare(c, h) < 0;
}

/* What an OR child says about c without being asked: INCLUDE means "ask it". */
static step or_standing(const filter_list *l, list_child *k, const cell_t *c)
{
    step s = {.r = FILTER_NEXT_ROW};
    if (k->key_rejected || k->standing == FILTER_NEXT_ROW || filter_all_remaining(k->f))
        return s;
    s.r = k->standing;
    if (s.r == FILTER_NEXT_COL && filter_col_is(&k->col, c))
        return s;
    if (s.r == FILTER_SEEK_HINT) {
        s.hint = filter_key_cell(&k->hint);
        if (before_hint(l, c, &s.hint))
            return s;
    }
    k->standing = s.r = FILTER_INCLUDE;
    return s;
}

/* Records a child's answer s for c. Remembering a NEXT_COL column or a hint may fail only
 * for memory: the child is then simply asked again (a seek becomes a SKIP), which is
 * correct, just slower. */
static void or_remember(list_child *k, step *s, const cell_t *c)
{
    k->included = s->r == FILTER_INCLUDE;
    if (s->r == FILTER_NEXT_ROW) {
        k->standing = FILTER_NEXT_ROW;
    } else if (s->r == FILTER_NEXT_COL) {
        if (filter_col_set(&k->col, c) == ST_OK)
            k->standing = FILTER_NEXT_COL;
    } else if (s->r == FILTER_SEEK_HINT) {
        cell_t h;
        if (filter_next_hint(k->f, &h) && filter_key_copy(&k->hint, &h) == ST_OK) {
            k->standing = FILTER_SEEK_HINT;
            s->hint = filter_key_cell(&k->hint);
        } else {
            s->r = FILTER_SKIP;
        }
    }
}

static filter_return or_cell(filter_list *l, const cell_t *c)
{
    step best = {.r = FILTER_NEXT_ROW};
    for (size_t i = 0; i < l->n; i++) {
        list_child *k = &l->kids[i];
        k->included = false;
        step s = or_standing(l, k, c);
        if (s.r == FILTER_INCLUDE) {
            s.r = filter_cell(k->f, c);
            or_remember(k, &s, c);
        }
        if (i == 0 || step_nearer(l, c, &s, &best))
            best = s;
    }
    l->hint = best.hint;
    return best.r;
}

static filter_return list_cell(filter *f, const cell_t *c)
{
    filter_list *l = (filter_list *)f;
    if (l->n == 0)
        return FILTER_INCLUDE;
    return l->op == FILTER_MUST_PASS_ALL ? and_cell(l, c) : or_cell(l, c);
}

static bool list_hint(filter *f, cell_t *out)
{
    *out = ((filter_list *)f)->hint;
    return true;
}

static void list_transform(filter *f, cell_t *c)
{
    filter_list *l = (filter_list *)f;
    for (size_t i = 0; i < l->n; i++) {
        if (l->kids[i].included)
            filter_transform_cell(l->kids[i].f, c);
    }
}

static size_t list_row_cells(filter *f, cell_t *cells, size_t n)
{
    filter_list *l = (filter_list *)f;
    for (size_t i = 0; i < l->n; i++)
        n = filter_row_cells(l->kids[i].f, cells, n);
    return n;
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

static void list_set_reversed(filter *f, bool reversed)
{
    filter_list *l = (filter_list *)f;
    for (size_t i = 0; i < l->n; i++)
        filter_set_reversed(l->kids[i].f, reversed);
}

static void list_destroy(filter *f)
{
    filter_list *l = (filter_list *)f;
    for (size_t i = 0; i < l->n; i++) {
        filter_free(l->kids[i].f);
        filter_col_free(&l->kids[i].col);
        filter_key_free(&l->kids[i].hint);
    }
    free(l->kids);
}

static const filter_ops list_ops = {
    .name = "FilterList",
    .reset = list_reset,
    .row_key = list_row_key,
    .cell = list_cell,
    .transform = list_transform,
    .row_cells = list_row_cells,
    .row = list_row,
    .all_remaining = list_all_remaining,
    .hint = list_hint,
    .set_reversed = list_set_reversed,
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
    filter_set_reversed(child, list->reversed);
    l->kids[l->n++] = (list_child){.f = child, .standing = FILTER_INCLUDE};
    return ST_OK;
fail:
    filter_free(child);
    return rc;
}
