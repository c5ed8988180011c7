/*
 * vec_iter.c - sorted-array kv_iter used as a stand-in for memstores and store files in
 * unit tests (vec_iter.h). Thread-safety: none.
 */
#include "tests/support/vec_iter.h"

#include <stdlib.h>
#include <string.h>

#include "common/status.h"

typedef struct vec_iter {
    kv_iter base;
    cell_t *cells;
    size_t n;
    size_t pos; /* n when invalid */
    uint8_t *bytes;
    int fail_in; /* moves left before a failure; -1: never */
    int fail_code;
    int status;
    size_t moves;
    size_t seeks;
} vec_iter;

static int cmp_cells(const void *a, const void *b)
{
    return cell_compare(a, b);
}

/* Counts a move; true when this move must fail. */
static bool fault(vec_iter *v)
{
    v->moves++;
    if (v->status != ST_OK)
        return true;
    if (v->fail_in < 0)
        return false;
    if (v->fail_in-- > 0)
        return false;
    v->status = st_error(v->fail_code, "vec_iter: injected fault");
    v->pos = v->n;
    return true;
}

/* First index with cells[i] >= key. */
static size_t lower_bound(const vec_iter *v, const cell_t *key)
{
    size_t lo = 0, hi = v->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cell_compare(&v->cells[mid], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* First index with cells[i] > key. */
static size_t upper_bound(const vec_iter *v, const cell_t *key)
{
    size_t lo = 0, hi = v->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cell_compare(&v->cells[mid], key) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void v_seek(kv_iter *it, const cell_t *key)
{
    vec_iter *v = (vec_iter *)it;
    v->seeks++;
    if (!fault(v))
        v->pos = lower_bound(v, key);
}

static void v_seek_for_prev(kv_iter *it, const cell_t *key)
{
    vec_iter *v = (vec_iter *)it;
    v->seeks++;
    if (fault(v))
        return;
    size_t u = upper_bound(v, key);
    v->pos = u == 0 ? v->n : u - 1;
}

static void v_seek_to_first(kv_iter *it)
{
    vec_iter *v = (vec_iter *)it;
    v->seeks++;
    if (!fault(v))
        v->pos = 0;
}

static void v_next(kv_iter *it)
{
    vec_iter *v = (vec_iter *)it;
    if (!fault(v) && v->pos < v->n)
        v->pos++;
}

static bool v_valid(const kv_iter *it)
{
    const vec_iter *v = (const vec_iter *)it;
    return v->status == ST_OK && v->pos < v->n;
}

static const cell_t *v_cell(const kv_iter *it)
{
    const vec_iter *v = (const vec_iter *)it;
    return &v->cells[v->pos];
}

static int v_status(const kv_iter *it)
{
    return ((const vec_iter *)it)->status;
}

static void v_destroy(kv_iter *it)
{
    vec_iter *v = (vec_iter *)it;
    free(v->cells);
    free(v->bytes);
    free(v);
}

static const kv_iter_ops vec_ops = {
    .seek = v_seek,
    .seek_for_prev = v_seek_for_prev,
    .seek_to_first = v_seek_to_first,
    .next = v_next,
    .valid = v_valid,
    .cell = v_cell,
    .status = v_status,
    .destroy = v_destroy,
};

static uint8_t *put(uint8_t **p, const uint8_t *src, size_t n)
{
    uint8_t *d = *p;
    if (n)
        memcpy(d, src, n);
    *p += n;
    return d;
}

kv_iter *vec_iter_new(const cell_t *cells, size_t n)
{
    vec_iter *v = calloc(1, sizeof(*v));
    size_t total = 1;
    for (size_t i = 0; i < n; i++)
        total += (size_t)cells[i].row_len + cells[i].family_len + cells[i].qualifier_len +
                 cells[i].value_len;
    if (v) {
        v->cells = calloc(n ? n : 1, sizeof(*v->cells));
        v->bytes = malloc(total);
    }
    if (!v || !v->cells || !v->bytes) {
        if (v) {
            free(v->cells);
            free(v->bytes);
        }
        free(v);
        return NULL;
    }
    uint8_t *p = v->bytes;
    for (size_t i = 0; i < n; i++) {
        cell_t c = cells[i];
        c.row = put(&p, cells[i].row, c.row_len);
        c.family = put(&p, cells[i].family, c.family_len);
        c.qualifier = put(&p, cells[i].qualifier, c.qualifier_len);
        c.value = put(&p, cells[i].value, c.value_len);
        v->cells[i] = c;
    }
    qsort(v->cells, n, sizeof(*v->cells), cmp_cells);
    v->base.ops = &vec_ops;
    v->n = n;
    v->pos = n;
    v->fail_in = -1;
    return &v->base;
}

void vec_iter_fail_after(kv_iter *it, int moves, int code)
{
    vec_iter *v = (vec_iter *)it;
    v->fail_in = moves;
    v->fail_code = code;
}

size_t vec_iter_moves(const kv_iter *it)
{
    return ((const vec_iter *)it)->moves;
}

size_t vec_iter_seeks(const kv_iter *it)
{
    return ((const vec_iter *)it)->seeks;
}
