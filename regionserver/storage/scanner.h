/*
 * scanner.h - turns a merged stream of raw cells into what a Get or Scan returns,
 * and what a compaction keeps.
 *
 * Input is one kv_iter over every memstore and store file of a region (all families
 * merged, MVCC read point already applied by the memstore iterators). The scanner
 * applies, per row and column, HBase's rules: delete markers (Delete, DeleteColumn,
 * DeleteFamily, DeleteFamilyVersion; deletes mask puts with ts <= theirs even if the
 * put was written later), VERSIONS and MIN_VERSIONS, TTL, the time range, the
 * requested columns and max versions, KEEP_DELETED_CELLS, then the filter.
 * Forward scans run start_row..stop_row; reversed scans run rows in descending order
 * (cells within a row still in ascending order). A forward scan whose stop_row is
 * start_row + "\0" is a Get: once its row is done the input is not read further.
 * Family-scope markers (DeleteFamily, DeleteFamilyVersion) must carry an empty
 * qualifier, as HBase's client writes them: the scanner never seeks past the empty
 * qualifier of a family, but may seek past any other column.
 *
 * Modes:
 *   SCAN_MODE_USER           Get/Scan results.
 *   SCAN_MODE_COMPACT_MINOR  every cell kept (a pure merge).
 *   SCAN_MODE_COMPACT_MAJOR  drops delete markers and what they mask, TTL-expired cells
 *                            (beyond MIN_VERSIONS) and versions beyond VERSIONS; with
 *                            KEEP_DELETED_CELLS TRUE keeps deleted cells and their
 *                            markers, with TTL those of markers not older than the TTL.
 * Thread-safety: one scanner is used by one thread at a time.
 */
#ifndef STRATA_REGIONSERVER_SCANNER_H
#define STRATA_REGIONSERVER_SCANNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/cell.h"
#include "regionserver/storage/filter.h"
#include "regionserver/storage/kv_iter.h"
#include "regionserver/storage/schema.h"

typedef enum scan_mode {
    SCAN_MODE_USER = 0,
    SCAN_MODE_COMPACT_MINOR = 1,
    SCAN_MODE_COMPACT_MAJOR = 2,
} scan_mode;

typedef struct scan_column {
    const uint8_t *family;
    size_t family_len;
    const uint8_t *qualifier; /* NULL: the whole family */
    size_t qualifier_len;
} scan_column;

/* What a user scanner did (HBase's ServerSideScanMetrics): rows it began, and those of
 * them that gave no result (skipped by the filter's row key test, dropped by the filter,
 * or with nothing visible left). A row handed out in parts (batch) counts once. */
typedef struct scan_row_counts {
    uint64_t scanned;
    uint64_t filtered;
} scan_row_counts;

typedef struct scan_spec {
    const uint8_t *start_row; /* inclusive; empty: from the first row (the last, reversed) */
    size_t start_row_len;
    const uint8_t *stop_row; /* exclusive; empty: to the end */
    size_t stop_row_len;
    bool reversed;
    int max_versions;   /* per column; 0 means 1 */
    int64_t min_ts;     /* time range [min_ts, max_ts); both 0 means all time */
    int64_t max_ts;     /* 0 alone: no upper bound */
    const scan_column *columns; /* NULL/0: every family */
    size_t ncolumns;
    filter *filter;     /* borrowed; may be NULL */
    bool raw;           /* also return delete markers and the cells they mask */
    int64_t limit;      /* rows; 0: no limit */
    int batch;          /* at most this many cells per result; 0: whole rows */
    scan_mode mode;
    bool cached_only;   /* Get: read only blocks already in memory (block cache, or mapped
                         * and verified); one that is not fails with ST_WOULD_BLOCK */
    scan_row_counts *counts; /* user scans: counted into it (the caller's; NULL: not) */
} scan_spec;

/* One result: cells of one row (or a batch-sized part of it), owning their bytes. */
typedef struct scan_result {
    cell_t *cells;
    size_t ncells;
    size_t cap;
    buf_t data;   /* backing bytes for the cells */
    bool partial; /* more cells of this row follow in the next result (batch) */
} scan_result;

void scan_result_init(scan_result *r);
void scan_result_clear(scan_result *r); /* keeps memory */
void scan_result_free(scan_result *r);
/* Appends a copy of c. ST_OK or ST_NOMEM. */
int scan_result_add(scan_result *r, const cell_t *c);

typedef struct scanner scanner;

/* Creates a scanner over `input` (owned from now on, destroyed by scanner_free, or
 * before returning if scanner_new fails).
 * families describes every family the input may hold; spec and its arrays are copied
 * except spec->filter (borrowed). now_ms is the time TTL is judged against. */
int scanner_new(kv_iter *input, const family_schema *families, size_t nfamilies,
                const scan_spec *spec, int64_t now_ms, scanner **out);
/* Produces the next result into out (cleared first). Returns 1 with a result, 0 at
 * the end, or a negative status (corruption from a store file, ...). */
int scanner_next(scanner *s, scan_result *out);
/* For compaction modes: the next cell to keep. 1 with *out set (valid until the next
 * call), 0 at the end, negative on error; ST_INVALID_ARGUMENT for SCAN_MODE_USER.
 * Compaction scanners ignore columns, time range, filter, raw, reversed, limit, batch. */
int scanner_next_cell(scanner *s, cell_t *out);
void scanner_free(scanner *s);

/* merge_iter: a kv_iter over the union of children (owned; destroyed with it).
 * Equal keys from different children are all returned (in child order). The array
 * itself is copied. Returns NULL when out of memory; the children then stay the
 * caller's. */
kv_iter *merge_iter_new(kv_iter **children, size_t n);
/* The same over children that stay the caller's: destroying the merge leaves them. */
kv_iter *merge_iter_new_borrowed(kv_iter **children, size_t n);
/* Tells a merge that the children with placed[k] set are already positioned by a
 * seek to key, so that its next seek, if it is to that same key, leaves them where they
 * are (a Get that probed its sources first does not search them twice). Any other
 * move forgets it. ST_NOMEM if out of memory. */
int merge_iter_mark_placed(kv_iter *merge, const bool *placed, const cell_t *key);

#endif
