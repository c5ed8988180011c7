/*
 * storefile.h - immutable sorted files of cells (HFile-like), written once by flush or
 * compaction and read by scanners.
 *
 * Layout (docs/formats/storefile.md): data blocks of about block_size bytes, each
 * with a CRC32C and optionally compressed (zstd, Snappy, LZ4 or gzip); a block index; a
 * bloom filter (ROW or ROWCOL, ~1% false positives); file info (max sequence id, time
 * range, entry count, first/last key ...); a fixed trailer with magic and version. A
 * writer writes the lowest format version that expresses its codec and block type, up
 * to a cap (storefile_set_max_version).
 *
 * Writing: cells must be added in strictly increasing cell_compare() order. The
 * file is written to "<path>.tmp", fsynced, renamed to <path>, and the directory
 * fsynced; a crash at any point leaves either no file at <path> or a whole one.
 *
 * Reading: a storefile is opened once, shared, and reference counted; each open
 * iterator holds a reference. Blocks are read with pread, verified, decompressed,
 * and kept in the block cache. A checksum failure is ST_CORRUPTION naming the file
 * and the block offset; wrong data is never returned.
 * References (docs/formats/reference.md): storefile_open_reference opens a reference
 * file as a storefile presenting exactly its half of the referenced file: iterators and
 * bloom checks see only the half, the info is the referenced file's (counts and
 * first/last describe the whole file), the path is the reference's (so marking it
 * deleted or unlinking it after a compaction removes the reference, never the
 * referenced file), and storefile_mid_row is refused.
 * Thread-safety: a storefile may be read from any number of threads; a writer is
 * used by one thread.
 */
#ifndef STRATA_REGIONSERVER_STOREFILE_H
#define STRATA_REGIONSERVER_STOREFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/cell.h"
#include "regionserver/storage/blockcache.h"
#include "regionserver/storage/kv_iter.h"

/* On-disk codes (docs/formats/storefile.md). Never renumber. */
typedef enum bloom_type { BLOOM_NONE = 0, BLOOM_ROW = 1, BLOOM_ROWCOL = 2 } bloom_type;
typedef enum compression_type {
    COMPRESSION_NONE = 0,
    COMPRESSION_ZSTD = 1,
    COMPRESSION_SNAPPY = 2,
    COMPRESSION_LZ4 = 3,
    COMPRESSION_GZ = 4,
} compression_type;
#define COMPRESSION_LAST COMPRESSION_GZ
/* Data block forms: the on-disk block types (= BLOCK_TYPE_DATA, BLOCK_TYPE_DATA_V2 of
 * block.h). Never renumber. */
typedef enum storefile_block_type {
    STOREFILE_BLOCKS_DEFAULT = 0, /* options only: STOREFILE_BLOCKS_PREFIX */
    STOREFILE_BLOCKS_PLAIN = 1,   /* whole cells and an offset per cell */
    STOREFILE_BLOCKS_PREFIX = 2,  /* keys sharing prefixes, restart points */
} storefile_block_type;

/* Which version a file gets (docs/formats/storefile.md, "Which version a writer
 * writes"): SNAPPY, LZ4 and GZ need version 3; otherwise PLAIN blocks are version 1 and
 * PREFIX blocks version 2. A codec that needs more than max_version fails
 * storefile_writer_open (ST_INVALID_ARGUMENT); PREFIX blocks under a max_version of 1
 * are written PLAIN. */
typedef struct storefile_options {
    uint32_t block_size;          /* target uncompressed data block size; 0 means 65536 */
    compression_type compression; /* per data block */
    bloom_type bloom;
    storefile_block_type block_type;
    int zstd_level;       /* 0 means 3 */
    uint32_t max_version; /* highest format version allowed (1..3); 0: the process-wide
                           * storefile_set_max_version (default 3) */
} storefile_options;

typedef struct storefile_info {
    uint64_t max_seq;      /* highest sequence id the file covers (flush/compaction input) */
    int64_t min_ts;        /* time range of its cells (INT64_MAX/INT64_MIN when empty) */
    int64_t max_ts;
    uint64_t entries;      /* cells */
    uint64_t delete_count; /* delete markers among them */
    uint64_t file_size;
    uint32_t block_count;
    bloom_type bloom;
    compression_type compression;
    uint32_t version;                 /* format version (1..3) */
    storefile_block_type block_type;  /* of every data block (PLAIN or PREFIX) */
    bool major_compacted;  /* written by a major compaction */
    cell_t first;          /* first and last cells (views owned by the storefile) */
    cell_t last;
} storefile_info;

typedef struct storefile_writer storefile_writer;
typedef struct storefile storefile;

/* Starts writing <path>.tmp. */
int storefile_writer_open(const char *path, const storefile_options *o, storefile_writer **out);
/* Appends c; ST_ORDER (naming the file and both keys) if c does not sort after the last. */
int storefile_writer_add(storefile_writer *w, const cell_t *c);
uint64_t storefile_writer_entries(const storefile_writer *w);
/* Bytes written so far (data blocks), for size-based decisions. */
uint64_t storefile_writer_size(const storefile_writer *w);
/* Finishes: index, bloom, file info (max_seq, major flag), trailer, fsync, rename,
 * directory fsync. Frees w whatever happens; on failure the .tmp file is removed. */
int storefile_writer_finish(storefile_writer *w, uint64_t max_seq, bool major_compacted);
/* Abandons the file: removes <path>.tmp and frees w. NULL is a no-op. */
void storefile_writer_abort(storefile_writer *w);

/* How an opened file's data blocks use the block cache (its family's BLOCKCACHE and
 * IN_MEMORY). The index and bloom sections are read at open and kept with the file
 * whatever these say (HBase caches index and bloom blocks even for BLOCKCACHE false).
 * Blocks served from the file's mapping (storefile_set_mmap_reads: uncompressed blocks)
 * never enter the cache, so neither flag changes how those are read. */
typedef struct storefile_open_options {
    blockcache *cache;     /* NULL: none, every data block is read for its reader alone */
    bool no_data_cache;    /* BLOCKCACHE false: data blocks are never looked up in or
                            * inserted into the cache; each read decodes its own copy */
    bool in_memory;        /* IN_MEMORY: data blocks enter with in-memory priority */
} storefile_open_options;

/* Opens and verifies trailer, file info, index and bloom. cache may be NULL. */
int storefile_open(const char *path, blockcache *cache, storefile **out);
/* storefile_open with the cache use o gives (o NULL: no cache). */
int storefile_open_with(const char *path, const storefile_open_options *o, storefile **out);
/* Whether files opened from now on map themselves for reads (default on): their
 * uncompressed data blocks are then served from the page cache through the mapping,
 * each checked (CRC, layout, first key) on its first use, without a copy or a block
 * cache entry; compressed blocks still go through the block cache. Off: every block
 * is read with pread. */
void storefile_set_mmap_reads(bool on);
/* Process-wide: the highest format version writers may use when their options say 0
 * (1, 2 or 3; default 3: regionserver.storefile.format.version). ST_INVALID_ARGUMENT for
 * any other. */
int storefile_set_max_version(uint32_t version);
/* The HBase name of a compression code ("NONE", "ZSTD", "SNAPPY", "LZ4", "GZ"), or
 * "UNKNOWN". */
const char *storefile_compression_name(compression_type c);
/* Installs, unless SIGBUS already has a handler, one that reports a mapped read the
 * kernel could not satisfy (a disk error, a file truncated underneath) by naming the
 * store file and offset on stderr before the signal ends the process. */
void storefile_handle_sigbus(void);
/* Opens the reference file at ref_path and the store file it refers to
 * (reference_target_path). The reference's errors (ST_CORRUPTION naming it ...) or the
 * referenced file's, with a message naming both paths (ST_NOT_FOUND if it is missing). */
int storefile_open_reference(const char *ref_path, blockcache *cache, storefile **out);
/* The same with the referenced file opened with o (storefile_open_with). */
int storefile_open_reference_with(const char *ref_path, const storefile_open_options *o,
                                  storefile **out);
/* Whether f was opened through a reference. */
bool storefile_is_reference(const storefile *f);
void storefile_ref(storefile *f);
/* Drops a reference; the last one closes the file (and unlinks it if marked). */
void storefile_unref(storefile *f);
/* Marks the file for deletion when its last reference goes (compacted away). */
void storefile_mark_deleted(storefile *f);
const storefile_info *storefile_get_info(const storefile *f);
const char *storefile_path(const storefile *f);

/* Bloom checks: false means definitely absent. ROWCOL blooms hold both row keys and
 * row+family+qualifier keys; without a bloom both return true. */
bool storefile_may_contain_row(const storefile *f, const uint8_t *row, size_t row_len);
bool storefile_may_contain_column(const storefile *f, const uint8_t *row, size_t row_len,
                                  const uint8_t *fam, size_t fam_len, const uint8_t *qual,
                                  size_t qual_len);

/* An iterator over all cells; holds a reference to f until destroyed. fill_cache
 * false reads blocks without inserting them (compaction). NULL if out of memory. */
kv_iter *storefile_iter(storefile *f, bool fill_cache);
/* storefile_iter with flags: SF_ITER_FILL_CACHE (a miss is cached), SF_ITER_CACHED_ONLY
 * (a block that is neither in the block cache nor already verified in the mapping is not
 * read: the iterator fails with ST_WOULD_BLOCK instead, for reads tried where they must
 * not wait for the disk). */
#define SF_ITER_FILL_CACHE 1u
#define SF_ITER_CACHED_ONLY 2u
kv_iter *storefile_iter_flags(storefile *f, unsigned flags);

/* The row of the first key of data block (block_count-1)/2 (a split point).
 * ST_NOT_FOUND for an empty file, ST_INVALID_ARGUMENT for a reference (naming it). */
int storefile_mid_row(storefile *f, buf_t *row);

#endif
