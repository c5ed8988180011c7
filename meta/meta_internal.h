/*
 * meta_internal.h - what meta.c, meta_tables.c and meta_split.c share: the meta handle,
 * the batch that turns one catalog change into one atomic region write, and the
 * scan/lookup helpers over the meta region.
 *
 * Writes: every change is built as a meta_batch (distinct rows, each with its cells)
 * and applied by meta_batch_commit() with ONE region_batch_mutate() call. With distinct
 * rows that call is one MVCC transaction and one WAL record (region.c apply_prepared),
 * so a multi-row change is all or nothing, live and on replay. A repeated row would
 * make the region cut the batch in two records, so the batch refuses one.
 *
 * Timestamps: a delete marker masks every put with a timestamp <= its own, so a row
 * deleted and written again within one millisecond would stay hidden. The meta clock
 * (meta.last_ts) gives each batch a timestamp above every earlier one: max(now,
 * last + 1). meta_open() seeds it with the newest timestamp stored in meta (cells and
 * delete markers), so a master whose clock is behind the previous one's still writes
 * visible rows.
 *
 * Thread-safety and lock order: write_mu serialises writers, including their
 * read-check-write steps (create a namespace only if absent ...); it is taken before
 * any region lock. Readers take no lock: each read is one region scanner, which sees
 * a consistent snapshot (a batch is visible all at once or not at all).
 */
#ifndef STRATA_MASTER_META_INTERNAL_H
#define STRATA_MASTER_META_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "meta/meta.h"
#include "regionserver/storage/region.h"

/* Families and qualifiers (docs/formats/meta.md). Never rename. */
#define META_FAM_INFO "info"
#define META_FAM_TABLE "table"
#define META_FAM_NS "ns"
#define META_FAM_PROC "proc"
#define META_Q_REGIONINFO "regioninfo"
#define META_Q_STATE "state"
#define META_Q_SERVER "server"
#define META_Q_STARTCODE "serverstartcode"
#define META_Q_SN "sn"
#define META_Q_SEQNUM "seqnum"
#define META_Q_FAILURES "failures"
#define META_Q_SCHEMA "schema"
#define META_Q_NSDESC "d"
#define META_Q_SPLIT_A "splitA"
#define META_Q_SPLIT_B "splitB"
#define META_Q_PROC "d"
#define META_PROC_ROW_PREFIX "~proc,"

struct meta {
    engine *eng;
    region *reg;
    pthread_mutex_t write_mu;
    int64_t last_ts; /* newest timestamp written or found; under write_mu */
};

/* One row of a batch: its key and cells (family/qualifier point at constants, values
 * at the batch's own copies). */
typedef struct meta_row_edit {
    uint8_t *row;
    size_t row_len;
    cell_t *cells;
    size_t ncells;
    size_t cap;
} meta_row_edit;

typedef struct meta_batch {
    meta_row_edit *rows;
    size_t nrows;
    size_t cap;
    void **owned; /* value copies */
    size_t nowned;
    size_t owned_cap;
    int rc; /* first failure while building; commit returns it */
} meta_batch;

void meta_batch_init(meta_batch *b);
void meta_batch_free(meta_batch *b);
/* Starts a new row (copied); the cells added next belong to it. */
void meta_batch_row(meta_batch *b, const uint8_t *row, size_t len);
/* Adds a put of fam:qual = value (copied) to the current row. */
void meta_batch_put(meta_batch *b, const char *fam, const char *qual, const void *value,
                    size_t len);
/* Adds a DeleteColumn of fam:qual to the current row. */
void meta_batch_delete_column(meta_batch *b, const char *fam, const char *qual);
/* Adds a row that is deleted: a DeleteFamily marker on each meta family. */
void meta_batch_delete_row(meta_batch *b, const uint8_t *row, size_t len);
/* True if the batch already holds this row. */
bool meta_batch_has_row(const meta_batch *b, const uint8_t *row, size_t len);
/* Applies the batch as one atomic write with the next meta timestamp. The caller holds
 * m->write_mu. An empty batch is ST_OK. Build failures (ST_NOMEM) and a repeated row
 * (ST_INVALID_ARGUMENT) are returned before anything is written. */
int meta_batch_commit(meta *m, meta_batch *b);

/* Adds the row of one region (every column; an empty server deletes the server
 * columns). Checks the table name, encoded name, state and server. */
int meta_batch_region(meta_batch *b, const meta_region *r);

/* Calls fn for each row in [start, stop) holding cells of family fam (NULL: any),
 * in row order. fn returns ST_OK to go on, or a status that stops the scan and is
 * returned. */
int meta_scan(meta *m, const uint8_t *start, size_t start_len, const uint8_t *stop, size_t stop_len,
              const char *fam, meta_row_fn fn, void *arg);
/* Reads one row's cells of family fam into out (ncells 0 if absent). */
int meta_get_row(meta *m, const uint8_t *row, size_t len, const char *fam, scan_result *out);

/* The row keys of every region row of table (malloc'ed; free with meta_keys_free). */
int meta_region_row_keys(meta *m, const char *table, uint8_t ***keys, size_t **lens, size_t *n);

/* Checks a fully qualified "ns:table" name (both parts valid, fits meta_region.table). */
int meta_check_table_name(const char *table);
/* Checks a namespace name. */
int meta_check_namespace(const char *ns);
/* Checks that regions (n >= 1) all belong to table and tile the key space: sorted by
 * start key, the first starts and the last ends unbounded, each ends where the next
 * starts. */
int meta_check_region_set(const char *table, const meta_region *v, size_t n);

/* True if c is fam:qual. */
bool meta_cell_is(const cell_t *c, const char *fam, const char *qual);

#endif
