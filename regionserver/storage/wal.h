/*
 * wal.h - the region server's write-ahead log: one log shared by all its regions.
 *
 * Record format: docs/formats/wal.md (length, CRC32C, table, region, sequence id,
 * cells). Files are <dir>/wal.<20-digit file number>; a file is rolled when it passes
 * roll_size. Recovered-edits files written by wal_split() use the same format.
 *
 * Group commit: concurrent wal_append() callers queue their encoded records; one
 * of them (the leader) writes everything queued with one write and, if any waiter
 * asked for it, one fdatasync; the others wait for that and return together.
 *
 * Durability (per call):
 *   DURABILITY_SKIP_WAL   nothing is written.
 *   DURABILITY_ASYNC_WAL  queued; a background thread writes and syncs every
 *                         async_interval_ms. Returns at once.
 *   DURABILITY_SYNC_WAL   written to the file (survives a killed process) before return.
 *   DURABILITY_FSYNC_WAL  written and fdatasync'ed (survives power loss) before return.
 *
 * Files no longer needed (every region's edits in them flushed, see
 * wal_region_flushed()) are deleted when the log rolls.
 * Thread-safety: every function but wal_close() may be called from any thread.
 * Lock order: the WAL mutex is a leaf; never call into a region while holding it.
 */
#ifndef STRATA_REGIONSERVER_WAL_H
#define STRATA_REGIONSERVER_WAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cell.h"

typedef enum durability {
    DURABILITY_USE_DEFAULT = 0,
    DURABILITY_SKIP_WAL = 1,
    DURABILITY_ASYNC_WAL = 2,
    DURABILITY_SYNC_WAL = 3,
    DURABILITY_FSYNC_WAL = 4,
} durability;

/* "SKIP_WAL" ... "FSYNC_WAL"; parse returns -1 if unknown. */
const char *durability_name(durability d);
int durability_parse(const char *name);

typedef struct wal_options {
    const char *dir;       /* created if missing */
    uint64_t roll_size;    /* bytes; 0 means 64 MiB */
    int async_interval_ms; /* ASYNC_WAL sync interval; 0 means 1000 */
} wal_options;

typedef struct wal_edit {
    const char *table;  /* "ns:table" */
    const char *region; /* encoded region name */
    uint64_t seq;       /* the edit's sequence id (every cell's seq equals it) */
    const cell_t *cells;
    size_t ncells;
} wal_edit;

typedef struct wal_stats {
    uint64_t appends;  /* records appended */
    uint64_t writes;   /* write() batches issued */
    uint64_t syncs;    /* fdatasync calls (batches, new-file headers, rolls) */
    uint64_t bytes;    /* bytes written in total (records and file headers) */
    uint64_t rolls;    /* files rolled */
    uint64_t files;    /* files this log wrote and has not deleted (older files left
                          for wal_split() are not counted) */
} wal_stats;

typedef struct wal wal;

/* Opens a log in o->dir, starting a new file numbered after any file already there
 * (old files are left alone: recovery reads them with wal_split()). */
int wal_open(const wal_options *o, wal **out);
/* Appends one edit; returns when it is as durable as d asks (d must not be USE_DEFAULT).
 * On failure the edit must be treated as not written (the writer cuts it from the
 * file); the log stays usable if the failure was transient (it rolls to a fresh file
 * after a failed write or sync). Every waiter of a failed batch gets the error;
 * ASYNC_WAL edits of a failed batch are queued again. */
int wal_append(wal *w, const wal_edit *e, durability d);
/* Writes everything queued (including ASYNC_WAL edits) and fdatasyncs. */
int wal_sync(wal *w);
/* Records that region's edits with seq <= seq are flushed to store files. */
void wal_region_flushed(wal *w, const char *region, uint64_t seq);
/* Forgets a region (closed): its edits no longer keep files alive. */
void wal_region_closed(wal *w, const char *region);
/* Closes the current file and starts a new one; deletes files no longer needed. */
int wal_roll(wal *w);
void wal_get_stats(wal *w, wal_stats *out);
/* Syncs, stops the background thread, closes the file and frees w. NULL is a no-op. */
int wal_close(wal *w);

/* ---- reading ---- */

/* Called once per record; return non-zero to stop early (that value is returned). */
typedef int (*wal_edit_fn)(const wal_edit *e, void *ctx);

/* Reads every record of one file in order. A torn tail (an incomplete last record, or
 * a last record whose checksum fails and that ends exactly at end of file, or zero
 * fill after the last good record) is dropped with a warning when tail_may_be_torn;
 * any other damage is ST_CORRUPTION with a message naming the file and byte offset.
 * *valid_end (may be NULL) is set to the offset after the last good record. */
int wal_read_file(const char *path, bool tail_may_be_torn, wal_edit_fn fn, void *ctx,
                  uint64_t *valid_end);

/* Lists the WAL files of dir in order (full paths). Free with fio_free_list(). */
int wal_list_files(const char *dir, char ***paths, size_t *count);

/* Reads every WAL file of dir in order, as wal_split() does: a file that a later
 * file's header names as its predecessor is read strictly up to the length recorded
 * there (bytes after it, a batch that failed before the writer abandoned the file,
 * are ignored with a warning); any other file may have a torn tail (it was the last
 * file its writer wrote). See docs/formats/wal.md, "Reading a directory". */
int wal_read_dir(const char *dir, wal_edit_fn fn, void *ctx);

/* Splits every WAL file in wal_dir (read as wal_read_dir() does: only the last file
 * of a writer may have a torn tail) into per-region recovered-edits files under
 * root_dir (<root>/data/<ns>/<table>/<region>/recovered.edits/<20-digit max seq>),
 * fsyncs them, then deletes the WAL files. On error no WAL file is deleted and the
 * error is returned. A missing wal_dir is not an error. */
int wal_split(const char *wal_dir, const char *root_dir);

#endif
