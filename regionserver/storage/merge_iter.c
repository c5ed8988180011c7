/*
 * merge_iter.c - a kv_iter over the sorted union of child iterators (scanner.h).
 *
 * The merged order is (cell, child index) ascending: equal cells from several children
 * are all returned, the lower child first. Two directions:
 *
 *   FORWARD  after seek / seek_to_first / next: a binary min-heap of the valid children,
 *            its top is the current cell; next() advances the top child and sifts it.
 *   REVERSE  after seek_for_prev: every child sits on its last cell <= key and the
 *            current cell is the greatest (cell, index) among them; no heap.
 *
 * next() in REVERSE switches direction the LevelDB way (to_forward): the current key
 * is copied, every child is re-seeked to it, and the children ordered at or before the
 * current one step over cells equal to it, so the heap top is the successor.
 *
 * A child that becomes invalid with a negative status() makes the merge invalid with that
 * status until the next seek. Children are cached as (cell pointer) after every move so
 * comparisons do not go through the vtable.
 * Thread-safety: one user at a time, like every kv_iter.
 */
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/status.h"
#include "regionserver/storage/scanner.h"

enum { DIR_FORWARD = 0, DIR_REVERSE = 1 };

typedef struct merge_iter {
    kv_iter base;
    kv_iter **kids;
    const cell_t **cur; /* cached cell per child, NULL when the child is invalid */
    size_t n;
    size_t *heap; /* child indices, min-heap by (cell, index) */
    size_t hn;
    int dir;
    size_t top; /* REVERSE: the current child, n if none */
    int status;
    buf_t key; /* copy of the current key during a direction switch */
    bool borrowed; /* the children are the caller's: destroy leaves them */
    bool *placed;  /* children already at placed_key (merge_iter_mark_placed) */
    bool have_placed;
    buf_t placed_buf;
    cell_t placed_key;
} merge_iter;

static bool kid_less(const merge_iter *m, size_t a, size_t b)
{
    int c = cell_compare(m->cur[a], m->cur[b]);
    return c < 0 || (c == 0 && a < b);
}

/* Re-reads child k after a move; records an error status. */
static void refresh(merge_iter *m, size_t k)
{
    kv_iter *it = m->kids[k];
    if (kv_iter_valid(it)) {
        m->cur[k] = kv_iter_cell(it);
        return;
    }
    m->cur[k] = NULL;
    int rc = kv_iter_status(it);
    if (rc < 0 && m->status == ST_OK)
        m->status = rc;
}

static void sift_down(merge_iter *m, size_t i)
{
    size_t *h = m->heap;
    size_t x = h[i];
    for (;;) {
        size_t l = 2 * i + 1;
        if (l >= m->hn)
            break;
        size_t c = l;
        if (l + 1 < m->hn && kid_less(m, h[l + 1], h[l]))
            c = l + 1;
        if (!kid_less(m, h[c], x))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

static void build_heap(merge_iter *m)
{
    m->hn = 0;
    for (size_t k = 0; k < m->n; k++)
        if (m->cur[k])
            m->heap[m->hn++] = k;
    for (size_t i = m->hn / 2; i-- > 0;)
        sift_down(m, i);
    m->dir = DIR_FORWARD;
}

static void merge_seek(kv_iter *it, const cell_t *key)
{
    merge_iter *m = (merge_iter *)it;
    m->status = ST_OK;
    bool trust = m->have_placed && cell_compare(key, &m->placed_key) == 0;
    for (size_t k = 0; k < m->n; k++) {
        if (!trust || !m->placed[k])
            kv_iter_seek(m->kids[k], key);
        refresh(m, k);
    }
    m->have_placed = false;
    build_heap(m);
}

static void merge_seek_to_first(kv_iter *it)
{
    merge_iter *m = (merge_iter *)it;
    m->status = ST_OK;
    m->have_placed = false;
    for (size_t k = 0; k < m->n; k++) {
        kv_iter_seek_to_first(m->kids[k]);
        refresh(m, k);
    }
    build_heap(m);
}

static void merge_seek_for_prev(kv_iter *it, const cell_t *key)
{
    merge_iter *m = (merge_iter *)it;
    m->status = ST_OK;
    m->have_placed = false;
    m->dir = DIR_REVERSE;
    m->top = m->n;
    m->hn = 0;
    for (size_t k = 0; k < m->n; k++) {
        kv_iter_seek_for_prev(m->kids[k], key);
        refresh(m, k);
        if (m->cur[k] && (m->top == m->n || !kid_less(m, k, m->top)))
            m->top = k;
    }
}

/* Copies c's key into b and returns a cell viewing it. */
static int copy_key_into(buf_t *b, const cell_t *c, cell_t *out)
{
    buf_reset(b);
    size_t need = (size_t)c->row_len + c->family_len + c->qualifier_len;
    if (buf_reserve(b, need ? need : 1) != ST_OK)
        return st_error(ST_NOMEM, "merge_iter: no memory for a %zu-byte key", need);
    *out = *c;
    buf_append(b, c->row, c->row_len);
    buf_append(b, c->family, c->family_len);
    buf_append(b, c->qualifier, c->qualifier_len);
    out->row = b->data;
    out->family = b->data + c->row_len;
    out->qualifier = out->family + c->family_len;
    out->value = NULL;
    out->value_len = 0;
    return ST_OK;
}

static int copy_key(merge_iter *m, const cell_t *c, cell_t *out)
{
    return copy_key_into(&m->key, c, out);
}

/* REVERSE -> FORWARD: positions every child after the current (cell, index). */
static void to_forward(merge_iter *m)
{
    size_t cur = m->top;
    cell_t key;
    int rc = copy_key(m, m->cur[cur], &key);
    if (rc != ST_OK) {
        m->status = rc;
        return;
    }
    for (size_t k = 0; k < m->n; k++) {
        kv_iter_seek(m->kids[k], &key);
        refresh(m, k);
        while (k <= cur && m->cur[k] && cell_compare(m->cur[k], &key) == 0) {
            kv_iter_next(m->kids[k]);
            refresh(m, k);
        }
    }
    build_heap(m);
}

static void merge_next(kv_iter *it)
{
    merge_iter *m = (merge_iter *)it;
    m->have_placed = false;
    if (m->dir == DIR_REVERSE) {
        to_forward(m);
        return;
    }
    size_t k = m->heap[0];
    kv_iter_next(m->kids[k]);
    refresh(m, k);
    if (!m->cur[k])
        m->heap[0] = m->heap[--m->hn];
    if (m->hn > 1)
        sift_down(m, 0);
}

static bool merge_valid(const kv_iter *it)
{
    const merge_iter *m = (const merge_iter *)it;
    if (m->status != ST_OK)
        return false;
    return m->dir == DIR_FORWARD ? m->hn > 0 : m->top < m->n;
}

static const cell_t *merge_cell(const kv_iter *it)
{
    const merge_iter *m = (const merge_iter *)it;
    return m->dir == DIR_FORWARD ? m->cur[m->heap[0]] : m->cur[m->top];
}

static int merge_status(const kv_iter *it)
{
    return ((const merge_iter *)it)->status;
}

static void merge_destroy(kv_iter *it)
{
    merge_iter *m = (merge_iter *)it;
    for (size_t k = 0; !m->borrowed && k < m->n; k++)
        kv_iter_destroy(m->kids[k]);
    free(m->placed);
    buf_free(&m->placed_buf);
    free(m->kids);
    free(m->cur);
    free(m->heap);
    buf_free(&m->key);
    free(m);
}

static const kv_iter_ops merge_ops = {
    .seek = merge_seek,
    .seek_for_prev = merge_seek_for_prev,
    .seek_to_first = merge_seek_to_first,
    .next = merge_next,
    .valid = merge_valid,
    .cell = merge_cell,
    .status = merge_status,
    .destroy = merge_destroy,
};

/* On failure (out of memory: NULL) the children stay the caller's. */
kv_iter *merge_iter_new(kv_iter **children, size_t n)
{
    merge_iter *m = calloc(1, sizeof(*m));
    size_t cap = n ? n : 1;
    if (m) {
        m->kids = calloc(cap, sizeof(*m->kids));
        m->cur = calloc(cap, sizeof(*m->cur));
        m->heap = calloc(cap, sizeof(*m->heap));
    }
    if (!m || !m->kids || !m->cur || !m->heap) {
        if (m) {
            free(m->kids);
            free(m->cur);
            free(m->heap);
            free(m);
        }
        st_error(ST_NOMEM, "merge_iter: no memory for %zu children", n);
        return NULL;
    }
    m->base.ops = &merge_ops;
    m->n = n;
    if (n)
        memcpy(m->kids, children, n * sizeof(*children));
    m->top = n;
    return &m->base;
}

kv_iter *merge_iter_new_borrowed(kv_iter **children, size_t n)
{
    kv_iter *it = merge_iter_new(children, n);
    if (it)
        ((merge_iter *)it)->borrowed = true;
    return it;
}

int merge_iter_mark_placed(kv_iter *it, const bool *placed, const cell_t *key)
{
    merge_iter *m = (merge_iter *)it;
    if (!m->placed && !(m->placed = calloc(m->n ? m->n : 1, sizeof(*m->placed))))
        return st_error(ST_NOMEM, "merge_iter: no memory for %zu flags", m->n);
    int rc = copy_key_into(&m->placed_buf, key, &m->placed_key);
    if (rc != ST_OK)
        return rc;
    memcpy(m->placed, placed, m->n * sizeof(*placed));
    m->have_placed = true;
    return ST_OK;
}
