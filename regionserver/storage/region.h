/*
 * region.h - a region: a contiguous row range [start_key, end_key) of one table, with a
 * store (memstore + store files) per column family, served through one engine.
 *
 * Write path (per row, HBase's order): take the row lock -> stamp server timestamps
 * -> mvcc_begin (sequence id) -> WAL append (durability) -> memstore add ->
 * mvcc complete and wait -> release the row lock. All cells of one mutation, across
 * families, become visible together. Reads take the MVCC read point when they start.
 *
 * Lifecycle: region_open() creates or loads the region directory, opens the store
 * files, replays recovered edits newer than each store's max flushed sequence id,
 * flushes them and only then deletes the edit files (obsolete ones unread; see
 * docs/formats/wal.md, "Replaying recovered edits"). region_close() flushes (if asked) and
 * frees. Flushes start when the region's memstores pass MEMSTORE_FLUSHSIZE;
 * compactions when a store has enough files, or holds references (a store opened
 * through them is compacted into a real file soon after the region opens); writes
 * wait while a store has blocking_store_files files.
 * Thread-safety: every function but region_close() may be called from many threads.
 */
#ifndef STRATA_REGIONSERVER_REGION_H
#define STRATA_REGIONSERVER_REGION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/cell.h"
#include "regionserver/storage/engine.h"
#include "regionserver/storage/filter.h"
#include "regionserver/storage/scanner.h"
#include "regionserver/storage/schema.h"

typedef struct region_info {
    char table[256];        /* "ns:table" */
    char encoded_name[64];  /* directory name, unique per region */
    const uint8_t *start_key; /* inclusive; empty: unbounded */
    size_t start_key_len;
    const uint8_t *end_key;   /* exclusive; empty: unbounded */
    size_t end_key_len;
    uint64_t region_id;
} region_info;

/* A mutation of one row: cells' row fields are ignored (m->row is used). A cell with
 * ts CELL_LATEST_TIMESTAMP gets the server time. Types: PUT, or a delete type
 * (DELETE with CELL_LATEST_TIMESTAMP deletes the latest version, as in HBase). */
typedef struct mutation {
    const uint8_t *row;
    size_t row_len;
    const cell_t *cells;
    size_t ncells;
    durability durability; /* USE_DEFAULT: the table's */
} mutation;

typedef struct region_stats {
    uint64_t read_requests;
    uint64_t write_requests;
    uint64_t memstore_size;
    uint64_t store_files;
    uint64_t store_file_size;
    uint64_t flushes;
    uint64_t compactions;
    uint64_t max_flushed_seq;
} region_stats;

typedef struct region region;
typedef struct region_scanner region_scanner;

int region_open(engine *e, const table_schema *schema, const region_info *info, region **out);
/* Stops new work, waits for queued flushes/compactions, flushes if flush is true, and
 * frees r. If that flush fails the region stays open (nothing acknowledged is dropped)
 * and the error is returned; the caller may retry or abort. Closing without a flush
 * leaves the edits in the WAL for replay. The caller must have ended every operation
 * and scanner on the region first. */
int region_close(region *r, bool flush);

const table_schema *region_get_schema(const region *r);
const region_info *region_get_info(const region *r);

/* Applies one row mutation atomically. ST_NOT_SERVING if the row is outside the region,
 * ST_UNKNOWN_FAMILY naming the family, ST_REGION_TOO_BUSY if blocked too long. */
int region_mutate(region *r, const mutation *m);
/* Applies n row mutations; each row is atomic, the batch is not. results[i] gets each
 * status; the return is ST_OK if all succeeded, else the first failure. */
int region_batch_mutate(region *r, const mutation *ms, size_t n, int *results);

/* Reads one row with the options of spec (columns, versions, time range, filter);
 * spec may be NULL. out holds the row's cells (ncells 0 if none). */
int region_get(region *r, const uint8_t *row, size_t row_len, const scan_spec *spec,
               scan_result *out);

/* A scanner clamped to the region's range; spec's filter is borrowed. */
int region_scanner_open(region *r, const scan_spec *spec, region_scanner **out);
/* 1 with a result, 0 at the end, negative on error. */
int region_scanner_next(region_scanner *s, scan_result *out);
void region_scanner_close(region_scanner *s);

/* CheckAndMutate: applies m under the row lock if the check holds. As in HBase, the
 * given value is compared with the newest visible value of fam:qual as
 * `value <op> existing` (CMP_LESS: value < existing); value NULL checks that the cell
 * is absent (or empty). An absent cell never matches a non-NULL value.
 * *applied tells which. m->row must equal row. */
int region_check_and_mutate(region *r, const uint8_t *row, size_t row_len, const uint8_t *fam,
                            size_t fam_len, const uint8_t *qual, size_t qual_len, compare_op op,
                            const uint8_t *value, size_t value_len, const mutation *m,
                            bool *applied);

/* Increment: adds amounts[i] to the 8-byte big-endian counter at cols[i] (family and
 * qualifier used; absent counts as 0) atomically for the row; results[i] gets the new
 * value. A non-8-byte existing value is ST_INVALID_ARGUMENT naming the column. */
int region_increment(region *r, const uint8_t *row, size_t row_len, const cell_t *cols,
                     const int64_t *amounts, size_t n, durability d, int64_t *results);
/* Append: appends cols[i].value to each column's newest value atomically; out (may be
 * NULL) receives the new cells. */
int region_append(region *r, const uint8_t *row, size_t row_len, const cell_t *cols, size_t n,
                  durability d, scan_result *out);

/* Flushes every store's memstore to a new store file and waits for it. */
int region_flush(region *r);
/* Compacts every store (major: all files, dropping deletes/expired/extra versions)
 * and waits for it. */
int region_compact(region *r, bool major);
/* The same for one column family's store (HBase's flush/compact of a family): ST_NOT_FOUND
 * naming the region and family when the table has no such family. A one-family flush
 * leaves the region's flushed sequence id (and so the WAL it needs) where it was. */
int region_flush_family(region *r, const char *family);
int region_compact_family(region *r, const char *family, bool major);
/* What the region's stores are compacting now, HBase's CompactionState (the values of
 * GetRegionInfoResponse.compaction_state). */
typedef enum region_compaction {
    REGION_COMPACTION_NONE = 0,
    REGION_COMPACTION_MINOR = 1,
    REGION_COMPACTION_MAJOR = 2,
    REGION_COMPACTION_MAJOR_AND_MINOR = 3,
} region_compaction;
region_compaction region_compaction_state(region *r);
void region_get_stats(region *r, region_stats *out);
/* The bytes of each store's files in schema order, at most cap of them; returns how many. */
size_t region_store_sizes(region *r, uint64_t *sizes, size_t cap);

/* Splits (region_split.c; docs/formats/reference.md). Whether any store holds
 * reference files (a daughter of a split or a merged region not compacted yet). */
bool region_has_references(region *r);
/* The split point: the mid row of the largest store's largest file, into row (its
 * content replaced). ST_NOT_FOUND naming the region when it has no store files or holds
 * references. The caller compares it with the region's start key (a split row equal to
 * the start key cannot split). */
int region_best_split_row(region *r, buf_t *row);

#endif
