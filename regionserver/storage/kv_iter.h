/*
 * kv_iter.h - the sorted-cell iterator every LSM part implements.
 *
 * Memstore, store-file, and merging iterators all present cells in cell_compare()
 * order through this vtable. Positioning:
 *   seek(key)           first cell >= key
 *   seek_for_prev(key)  last cell <= key (reverse scans use it to find the previous row)
 *   seek_to_first()     first cell
 *   next()              the following cell; only when valid()
 * After any move, cell() returns a view valid until the next move or destroy.
 * An iterator that hit an error becomes !valid() and status() returns the code
 * (the message was recorded with st_error() on the calling thread).
 * Thread-safety: one iterator is used by one thread at a time.
 */
#ifndef STRATA_REGIONSERVER_KV_ITER_H
#define STRATA_REGIONSERVER_KV_ITER_H

#include <stdbool.h>

#include "common/cell.h"

typedef struct kv_iter kv_iter;

typedef struct kv_iter_ops {
    void (*seek)(kv_iter *it, const cell_t *key);
    void (*seek_for_prev)(kv_iter *it, const cell_t *key);
    void (*seek_to_first)(kv_iter *it);
    void (*next)(kv_iter *it);
    bool (*valid)(const kv_iter *it);
    const cell_t *(*cell)(const kv_iter *it);
    int (*status)(const kv_iter *it);
    void (*destroy)(kv_iter *it);
} kv_iter_ops;

struct kv_iter {
    const kv_iter_ops *ops;
};

static inline void kv_iter_seek(kv_iter *it, const cell_t *key)
{
    it->ops->seek(it, key);
}
static inline void kv_iter_seek_for_prev(kv_iter *it, const cell_t *key)
{
    it->ops->seek_for_prev(it, key);
}
static inline void kv_iter_seek_to_first(kv_iter *it)
{
    it->ops->seek_to_first(it);
}
static inline void kv_iter_next(kv_iter *it)
{
    it->ops->next(it);
}
static inline bool kv_iter_valid(const kv_iter *it)
{
    return it->ops->valid(it);
}
static inline const cell_t *kv_iter_cell(const kv_iter *it)
{
    return it->ops->cell(it);
}
static inline int kv_iter_status(const kv_iter *it)
{
    return it->ops->status(it);
}
static inline void kv_iter_destroy(kv_iter *it)
{
    if (it)
        it->ops->destroy(it);
}

#endif
