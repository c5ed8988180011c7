/*
 * memstore.h - one store's in-memory sorted cells: a concurrent skiplist over an arena.
 *
 * Cells are copied into the memstore's arena on memstore_add(). Many threads may add
 * while many iterate (lock-free reads, CAS-linked inserts). Each cell carries its MVCC
 * write number in cell.seq; an iterator opened with a read point skips cells whose
 * seq is above it, so readers never see an unfinished transaction.
 *
 * A memstore is reference counted: the store holds one reference, every open
 * iterator holds one, so a flushed snapshot stays alive until its last scanner ends.
 * Thread-safety: all functions are safe from any thread.
 */
#ifndef STRATA_REGIONSERVER_MEMSTORE_H
#define STRATA_REGIONSERVER_MEMSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cell.h"
#include "regionserver/storage/kv_iter.h"

typedef struct memstore memstore;

#define MEMSTORE_DEFAULT_FLUSH_SIZE (128ull << 20)
#define MEMSTORE_ROW_BLOOM_RATIO 128         /* bloom bytes = flush size / this ... */
#define MEMSTORE_ROW_BLOOM_MIN (4u << 10)    /* ... rounded up to a power of two, */
#define MEMSTORE_ROW_BLOOM_MAX (256u << 10)  /* within these */

/* Returns NULL if out of memory. The caller holds the one reference. The row bloom is
 * sized for a memstore flushed at flush_size bytes (0: MEMSTORE_DEFAULT_FLUSH_SIZE);
 * memstore_new() is memstore_new_sized(0). */
memstore *memstore_new(void);
memstore *memstore_new_sized(uint64_t flush_size);
/* Bytes of the row bloom a memstore for flush_size gets. */
size_t memstore_row_bloom_bytes(uint64_t flush_size);
/* False only if no cell of row was ever added (a Get of row may skip m); true may be a
 * false positive. */
bool memstore_may_contain_row(const memstore *m, const uint8_t *row, size_t len);
void memstore_ref(memstore *m);
/* Drops a reference; the last one frees the memstore and its arena. */
void memstore_unref(memstore *m);

/* Copies c (with its seq) in. An identical key (same row/column/ts/type/seq) replaces
 * nothing and is added as a duplicate-free no-op. Returns ST_OK or ST_NOMEM. */
int memstore_add(memstore *m, const cell_t *c);

/* Bytes used: the encoded cells plus their node overhead (the skiplist links),
 * as allocated from the arena, for flush decisions. */
size_t memstore_size(const memstore *m);
uint64_t memstore_count(const memstore *m);
/* Largest seq added so far (0 if empty). */
uint64_t memstore_max_seq(const memstore *m);
/* Smallest and largest timestamps added (INT64_MAX / INT64_MIN if empty). */
int64_t memstore_min_ts(const memstore *m);
int64_t memstore_max_ts(const memstore *m);

/* An iterator over cells with seq <= read_point (UINT64_MAX: all). Holds a reference
 * to m until destroyed. Returns NULL if out of memory. */
kv_iter *memstore_iter(memstore *m, uint64_t read_point);

#endif
