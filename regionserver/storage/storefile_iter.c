/*
 * storefile_iter.c - the kv_iter over one store file.
 *
 * The iterator pins the data block its current cell lives in (a block-cache handle,
 * a private copy or a view of the mapping) and reads it through a block_cursor (either
 * block type; a type-2 cell's key lives in the cursor's buffer), so the cell view stays
 * valid until the next move. Positioning
 * uses the in-memory index (last block whose first key <= key) and a binary search
 * in the block; next() walks across block boundaries. Each block read is checked to
 * start with its index key (storefile_block_acquire), which covers seek; seek_for_prev
 * also relies on the block after its answer starting after the key, so when the answer
 * is the last cell of a block (or there is none), that next block is read too
 * (usually a cache hit: a reverse scan has just left it).
 *
 * Reading forward across blocks reads ahead, as RocksDB's iterators do: from the
 * SF_READAHEAD_AFTER-th block reached by next() in a row, a miss is read with the
 * uncached blocks after it in one pread of SF_READAHEAD_MIN bytes, doubling with each
 * run read up to SF_READAHEAD_MAX; a seek starts over. Short scans (a seek and a few
 * blocks) never read ahead. Only reads that fill the cache read ahead.
 *
 * States: UNPOSITIONED (storefile_iter) --seek, next--> VALID | EXHAUSTED | FAILED.
 * FAILED (a block read/verify error, see storefile_block_acquire) is sticky: the
 * iterator stays invalid and status() keeps the code. EXHAUSTED holds no block.
 * A storefile opened through a reference file gets the half iterator of
 * storefile_half.c instead, which wraps this one over the referenced file.
 * Thread-safety: one iterator is used by one thread at a time; it holds a reference
 * to its storefile until destroyed.
 */
#include "regionserver/storage/storefile_internal.h"

#include <stdlib.h>

#include "common/status.h"

#define SF_READAHEAD_AFTER 8 /* blocks entered by next() before reading ahead */
#define SF_READAHEAD_MIN (16 * 1024)
#define SF_READAHEAD_MAX (256 * 1024)

typedef struct sf_iter {
    kv_iter base;
    storefile *f;
    bool fill_cache;
    bool cached_only; /* SF_ITER_CACHED_ONLY */
    bool valid;
    int status;
    uint32_t block; /* index of the pinned block (when ref.blk) */
    uint32_t streak;  /* blocks entered by next() since the last seek */
    size_t readahead; /* bytes the next read ahead covers */
    sf_block_ref ref;
    block_cursor cur; /* attached to ref.blk while one is pinned */
} sf_iter;

static void invalidate(sf_iter *it)
{
    storefile_block_release(it->f, &it->ref);
    it->valid = false;
}

/* Pins block b (with `ahead` bytes of read-ahead on a miss); on failure the iterator
 * becomes FAILED. */
static bool load_ahead(sf_iter *it, uint32_t b, size_t ahead)
{
    if (it->ref.blk && it->block == b)
        return true;
    storefile_block_release(it->f, &it->ref);
    int rc = it->cached_only ? storefile_block_acquire_cached(it->f, b, &it->ref)
                             : storefile_block_acquire_ahead(it->f, b, it->fill_cache, ahead, &it->ref);
    if (rc == ST_OK)
        rc = block_cursor_attach(&it->cur, it->ref.blk);
    if (rc != ST_OK) {
        it->status = rc;
        invalidate(it);
        return false;
    }
    it->block = b;
    return true;
}

static bool load(sf_iter *it, uint32_t b)
{
    it->streak = 0;
    it->readahead = SF_READAHEAD_MIN;
    return load_ahead(it, b, 0);
}


/* Moves to the first cell of block b, or EXHAUSTED past the last block. */
static void first_of_block(sf_iter *it, uint32_t b)
{
    if (b >= it->f->info.block_count) {
        invalidate(it);
        return;
    }
    if (load(it, b)) {
        block_cursor_first(&it->cur);
        it->valid = true;
    }
}

static void iter_seek_to_first(kv_iter *base)
{
    sf_iter *it = (sf_iter *)base;
    if (it->status == ST_OK)
        first_of_block(it, 0);
}

static void iter_seek(kv_iter *base, const cell_t *key)
{
    sf_iter *it = (sf_iter *)base;
    if (it->status != ST_OK)
        return;
    int64_t b = storefile_index_find(it->f, key);
    if (b < 0) {
        first_of_block(it, 0);
        return;
    }
    if (!load(it, (uint32_t)b))
        return;
    if (block_cursor_seek(&it->cur, key))
        it->valid = true;
    else
        first_of_block(it, (uint32_t)b + 1);
}

/* Reads block b (if there is one) only to have its first cell checked against the
 * index; false, with the iterator FAILED, if that check or the read fails. */
static bool check_block(sf_iter *it, uint32_t b)
{
    if (b >= it->f->info.block_count)
        return true;
    sf_block_ref ref;
    int rc = it->cached_only ? storefile_block_acquire_cached(it->f, b, &ref)
                             : storefile_block_acquire(it->f, b, it->fill_cache, &ref);
    if (rc != ST_OK) {
        it->status = rc;
        invalidate(it);
        return false;
    }
    storefile_block_release(it->f, &ref);
    return true;
}

static void iter_seek_for_prev(kv_iter *base, const cell_t *key)
{
    sf_iter *it = (sf_iter *)base;
    if (it->status != ST_OK)
        return;
    int64_t b = storefile_index_find(it->f, key);
    if (b < 0) {
        if (check_block(it, 0)) /* block 0 really starts after key */
            invalidate(it);
        return;
    }
    if (!load(it, (uint32_t)b))
        return;
    /* The block's first key is <= key, so the answer is in this block, unless the next
     * block does not start where the index says. */
    bool found = block_cursor_seek_for_prev(&it->cur, key);
    if (found && block_cursor_at_last(&it->cur) && !check_block(it, (uint32_t)b + 1))
        return;
    if (found)
        it->valid = true;
    else
        invalidate(it);
}

static void iter_next(kv_iter *base)
{
    sf_iter *it = (sf_iter *)base;
    if (!it->valid)
        return;
    if (block_cursor_next(&it->cur))
        return;
    uint32_t b = it->block + 1;
    if (b >= it->f->info.block_count) {
        invalidate(it);
        return;
    }
    size_t ahead = ++it->streak >= SF_READAHEAD_AFTER ? it->readahead : 0;
    if (!load_ahead(it, b, ahead))
        return;
    block_cursor_first(&it->cur);
    it->valid = true;
    if (ahead && it->ref.fresh && it->readahead < SF_READAHEAD_MAX)
        it->readahead *= 2; /* a run was read: the next one may be longer */
}

static bool iter_valid(const kv_iter *base)
{
    return ((const sf_iter *)base)->valid;
}

static const cell_t *iter_cell(const kv_iter *base)
{
    return &((const sf_iter *)base)->cur.cell;
}

static int iter_status(const kv_iter *base)
{
    return ((const sf_iter *)base)->status;
}

static void iter_destroy(kv_iter *base)
{
    sf_iter *it = (sf_iter *)base;
    storefile_block_release(it->f, &it->ref);
    block_cursor_free(&it->cur);
    storefile_unref(it->f);
    free(it);
}

static const kv_iter_ops sf_iter_ops = {
    .seek = iter_seek,
    .seek_for_prev = iter_seek_for_prev,
    .seek_to_first = iter_seek_to_first,
    .next = iter_next,
    .valid = iter_valid,
    .cell = iter_cell,
    .status = iter_status,
    .destroy = iter_destroy,
};

kv_iter *storefile_iter(storefile *f, bool fill_cache)
{
    return storefile_iter_flags(f, fill_cache ? SF_ITER_FILL_CACHE : 0);
}

kv_iter *storefile_iter_flags(storefile *f, unsigned flags)
{
    bool fill_cache = flags & SF_ITER_FILL_CACHE;
    if (f->target)
        return storefile_half_iter(f, flags);
    sf_iter *it = calloc(1, sizeof(*it));
    if (!it)
        return NULL;
    it->base.ops = &sf_iter_ops;
    it->f = f;
    it->fill_cache = fill_cache;
    it->cached_only = flags & SF_ITER_CACHED_ONLY;
    storefile_ref(f);
    return &it->base;
}
