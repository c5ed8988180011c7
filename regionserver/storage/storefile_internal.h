/*
 * storefile_internal.h - what the store-file writer, reader and iterator share: the
 * on-disk constants of the trailer and sections (docs/formats/storefile.md; never
 * renumbered), the opened-file struct (a real file, or a half of one opened through a
 * reference: docs/formats/reference.md) and block access through the block cache.
 *
 * Thread-safety: a storefile is immutable after storefile_open() apart from its
 * atomic reference count and deleted flag; block access is safe from any thread.
 */
#ifndef STRATA_REGIONSERVER_STOREFILE_INTERNAL_H
#define STRATA_REGIONSERVER_STOREFILE_INTERNAL_H

#include <stdatomic.h>

#include "common/fileio.h"
#include "regionserver/storage/block.h"
#include "regionserver/storage/bloom.h"
#include "regionserver/storage/reference.h"
#include "regionserver/storage/storefile.h"

#define SF_MAGIC "STRATASF" /* 8 bytes, at trailer offset 52 */
#define SF_MAGIC_LEN 8
#define SF_VERSION_1 1 /* data blocks of type 1; codes NONE and ZSTD */
#define SF_VERSION_2 2 /* data blocks of type 2 (prefix-compressed keys); NONE and ZSTD */
#define SF_VERSION_3 3 /* either type (file info byte 47); codes NONE..GZ */
#define SF_VERSION_MAX_DEFAULT SF_VERSION_3 /* regionserver.storefile.format.version */
#define SF_TRAILER_LEN 64
#define SF_TRAILER_CRC_OFF 48
#define SF_TRAILER_MAGIC_OFF 52
#define SF_TRAILER_VERSION_OFF 60
#define SF_INFO_FIXED_LEN 48 /* file info bytes before first_len */
#define SF_INFO_BLOCK_TYPE_OFF 47 /* version 3: the data block type; before: reserved (0) */
#define SF_INFO_FLAG_MAJOR 0x01
#define SF_SECTION_CRC_LEN 4

typedef struct sf_index_entry {
    uint64_t offset;
    uint32_t size;
    cell_t first; /* key-only view into the index section bytes */
} sf_index_entry;

struct storefile {
    char *path; /* a reference's own path when opened through one */
    fio_file *file; /* NULL for a reference */
    blockcache *cache; /* of data blocks; NULL: none (or the family's BLOCKCACHE false) */
    blockcache_priority cache_priority; /* data blocks' (the family's IN_MEMORY) */
    uint64_t file_id;  /* block cache key part */
    uint32_t version;   /* SF_VERSION_1, _2 or _3 */
    uint8_t block_type; /* of every data block: BLOCK_TYPE_DATA or BLOCK_TYPE_DATA_V2 */
    uint8_t max_compression; /* highest block code the version allows (BLOCK_COMPRESSION_*) */
    atomic_int refs;
    atomic_bool deleted;
    storefile_info info; /* first/last view into info_buf */
    uint8_t *info_buf;
    uint8_t *index_buf;
    sf_index_entry *index; /* info.block_count entries */
    uint8_t *bloom_buf;
    bloom_filter bloom; /* valid when info.bloom != BLOOM_NONE */
    /* The whole file mapped read-only (storefile_set_mmap_reads), or NULL; verified has
     * a bit per data block, set once the block passed its checks through the mapping. */
    const uint8_t *map;
    size_t map_len;
    atomic_uchar *verified;
    /* Opened through a reference (storefile_half.c): the referenced file (one reference
     * held until this one is freed; its info is copied into info), the half, and the
     * split row (always allocated). NULL target for a real file. */
    storefile *target;
    reference_range range;
    uint8_t *split_row;
    size_t split_len;
};

/* A decoded data block as cached (the cache value). */
typedef struct sf_block {
    uint8_t *decoded; /* the decompressed bytes, or NULL: blk views the stored bytes */
    block_t blk;
    size_t charge;
    /* the stored block (header + payload) follows when decoded is NULL */
} sf_block;

/* A pinned block: either a cache handle or a private copy (no cache, or a miss with
 * fill_cache false). */
typedef struct sf_block_ref {
    blockcache_handle *handle;
    sf_block *owned;
    const block_t *blk; /* NULL when nothing is pinned */
    bool fresh;         /* read from the file by this acquire (a cache miss) */
    block_t view;       /* a mapped block: blk points here, into the file's mapping */
} sf_block_ref;

/* Pins data block idx of f, reading, verifying and decoding it on a miss. On failure
 * out->blk is NULL and the status (ST_CORRUPTION naming the file and block offset,
 * ST_IO, ST_NOMEM) is returned with its message recorded. */
int storefile_block_acquire(storefile *f, uint32_t idx, bool fill_cache, sf_block_ref *out);
/* The same; on a miss with fill_cache, up to `readahead` bytes of the blocks after idx
 * are read with it in one pread and cached too (a forward scan's next blocks). */
/* Pins block idx only if that needs no read: a block-cache hit, or a mapped block
 * already verified; otherwise ST_WOULD_BLOCK (no message) and nothing pinned. */
int storefile_block_acquire_cached(storefile *f, uint32_t idx, sf_block_ref *out);
int storefile_block_acquire_ahead(storefile *f, uint32_t idx, bool fill_cache, size_t readahead,
                                  sf_block_ref *out);
/* Unpins; a ref with nothing pinned is a no-op. */
void storefile_block_release(storefile *f, sf_block_ref *ref);
/* Index of the last data block whose first key is <= key, or -1 if none. */
int64_t storefile_index_find(const storefile *f, const cell_t *key);

/* storefile_half.c: for a storefile opened through a reference. Whether the row lies in
 * its half, and the iterator over the half (holds a reference to f; NULL if out of
 * memory). */
bool storefile_half_has_row(const storefile *f, const uint8_t *row, size_t row_len);
kv_iter *storefile_half_iter(storefile *f, unsigned flags);

#endif
