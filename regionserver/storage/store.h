/*
 * store.h - one column family of one region: an active memstore, at most one snapshot
 * being flushed, and the store files (oldest first by max sequence id).
 *
 * Readers take references to the memstores and files under the store mutex and then
 * read without it. Flush: store_snapshot() (under the region's update lock, so no write
 * is half-applied) -> store_flush_snapshot() writes the file without locks ->
 * store_install_flush() swaps it in. Compaction writes its output without locks and
 * swaps inputs for output under the mutex; only one compaction runs per store.
 * Thread-safety: all functions are safe from any thread. Lock order: region update
 * lock -> store mutex; the store mutex is never held across I/O.
 */
#ifndef STRATA_REGIONSERVER_STORE_H
#define STRATA_REGIONSERVER_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "regionserver/storage/blockcache.h"
#include "regionserver/storage/compaction.h"
#include "regionserver/storage/kv_iter.h"
#include "regionserver/storage/schema.h"

typedef struct store store;

/* Opens the family's directory (created if missing), removes leftover *.tmp files and
 * opens every store file, references through storefile_open_reference (a missing
 * referenced file fails the open, naming both paths). memstore_flushsize sizes each
 * memstore's row bloom (memstore_new_sized). */
int store_open(const char *dir, const family_schema *fam, blockcache *cache,
               uint64_t memstore_flushsize, store **out);
void store_free(store *s);

const family_schema *store_family(const store *s);
/* Highest sequence id contained in the store files (0 if none). */
uint64_t store_max_flushed_seq(store *s);

/* Memstore bytes charged for one cell (its encoding plus skiplist overhead). */
size_t store_cell_charge(const cell_t *c);
/* Adds a cell to the active memstore; returns ST_OK or ST_NOMEM. */
int store_add(store *s, const cell_t *c);
/* Bytes in the active memstore plus the snapshot. */
size_t store_memstore_size(store *s);
size_t store_file_count(store *s);
uint64_t store_file_bytes(store *s);

/* Which files a read needs: a row for bloom checks (NULL: any), an optional column
 * (ROWCOL blooms), and a time range [min_ts, max_ts) (0,0: all). */
typedef struct store_read_hint {
    const uint8_t *row;
    size_t row_len;
    const uint8_t *qualifier; /* NULL: several columns */
    size_t qualifier_len;
    int64_t min_ts;
    int64_t max_ts;
    bool fill_cache;
    bool cached_only; /* store files: SF_ITER_CACHED_ONLY (see scan_spec) */
} store_read_hint;

/* One input of a read: an iterator and the newest timestamp any cell in it (put or
 * delete marker) may have, so a Get can tell when an older input cannot change its
 * answer. */
typedef struct read_source {
    kv_iter *it;
    int64_t max_ts;
} read_source;

/* Appends sources (memstores with read_point, then files passing the hint) to *srcs
 * (grown with realloc); *n is updated. On failure the ones added are kept in the
 * array for the caller to destroy. */
int store_collect_iters(store *s, uint64_t read_point, const store_read_hint *hint,
                        read_source **srcs, size_t *n, size_t *cap);

/* Flush steps (see top). store_snapshot moves the active memstore aside as the snapshot
 * of flush_seq (every cell in it has a lower sequence id) and sets *took, unless the
 * memstore is empty or a snapshot is already waiting (a failed flush: it keeps its own
 * sequence id and must be flushed first). ST_NOMEM if a fresh memstore cannot be made.
 * store_has_snapshot tells whether one waits. */
int store_snapshot(store *s, uint64_t flush_seq, bool *took);
bool store_has_snapshot(store *s);
/* Writes the waiting snapshot to a new store file and swaps it in; a no-op without one.
 * *flushed_bytes gets the memstore bytes released. */
int store_flush_snapshot(store *s, size_t *flushed_bytes);

/* Runs one compaction if the policy (or major) selects files. *did tells whether it
 * ran. A major compaction takes every file and uses SCAN_MODE_COMPACT_MAJOR; a store
 * holding references always runs one. */
int store_compact(store *s, const compaction_policy *p, bool major, int64_t now_ms, bool *did);
/* True while a compaction of this store runs. */
bool store_compacting(store *s);
/* What the store is compacting now (HBase's CompactionState of one store). */
typedef enum store_compaction {
    STORE_COMPACTION_NONE = 0,
    STORE_COMPACTION_MINOR = 1,
    STORE_COMPACTION_MAJOR = 2,
} store_compaction;
store_compaction store_compaction_state(store *s);
/* True if the policy would select something now, or the store holds references. */
bool store_needs_compaction(store *s, const compaction_policy *p);

/* Whether any of the store's files is a reference (docs/formats/reference.md). While
 * one is, every compaction takes all files as a major compaction (HBase: references
 * force a full compaction), and the store has no split point. */
bool store_has_references(store *s);
/* The split point: the mid row of the largest store file (storefile_mid_row) into row.
 * ST_NOT_FOUND naming the store if it has no files, its largest is empty, or it holds
 * references. */
int store_split_row(store *s, buf_t *row);

#endif
