/*
 * region_internal.h - the region's private state, shared by region.c (open/close,
 * write and read paths), region_rmw.c (check-and-mutate, increment, append) and
 * region_maint.c (flush and compaction), region_replay.c (recovered edits at open), and
 * the engine hooks that drive background work.
 *
 * Locks, in order: row lock (striped mutexes) -> update lock (rwlock: writers read-lock
 * it while applying, a flush write-locks it to take snapshots) -> store mutex.
 * flush_mu serialises flushes of one region; maint_mu guards the flags and counts.
 */
#ifndef STRATA_REGIONSERVER_REGION_INTERNAL_H
#define STRATA_REGIONSERVER_REGION_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "regionserver/storage/engine.h"
#include "regionserver/storage/mvcc.h"
#include "regionserver/storage/region.h"
#include "regionserver/storage/store.h"

#define REGION_ROW_LOCKS 1024
#define REGION_ROW_LOCK_WAIT_MS 30000

struct region {
    engine *eng;
    table_schema schema;
    region_info info;
    uint8_t *start_key; /* owned copies behind info.start_key / info.end_key */
    uint8_t *end_key;
    char *dir;
    store *stores[SCHEMA_MAX_FAMILIES];
    mvcc *mvcc;
    pthread_rwlock_t update_lock;
    pthread_mutex_t row_locks[REGION_ROW_LOCKS];

    pthread_mutex_t flush_mu; /* held during a flush: one at a time per region */
    pthread_mutex_t maint_mu; /* guards the fields below (never held across I/O) */
    pthread_cond_t maint_cv;  /* signalled when a flush or compaction ends */
    bool flush_queued;
    bool compact_queued;
    bool closing;
    int refs; /* the owner plus queued background tasks */

    _Atomic uint64_t memstore_bytes;
    _Atomic uint64_t read_requests;
    _Atomic uint64_t write_requests;
    _Atomic uint64_t flushes;
    _Atomic uint64_t compactions;
    _Atomic uint64_t max_flushed_seq;
    /* Odd while a flush swaps memstore snapshots for files: readers that collected
     * their iterators across such a swap collect again (a file has no read point, so
     * a half-swapped view could show one family's half of a newer mutation). */
    _Atomic uint64_t flush_gen;
    struct region *next_in_engine; /* engine's list, guarded by the engine */
};

/* Engine hooks (engine.c). */
void engine_register_region(engine *e, region *r);
void engine_unregister_region(engine *e, region *r);
/* Queues background work; the engine takes a region reference for it. False if the
 * region is closing or memory ran out (nothing was queued). */
bool engine_request_flush(engine *e, region *r);
bool engine_request_compaction(engine *e, region *r);
/* Global memstore accounting and write admission. */
void engine_memstore_add(engine *e, int64_t delta);
/* Waits while the global memstore is over its limit (requesting flushes); ST_OK or
 * ST_REGION_TOO_BUSY after blocking_wait_ms. */
int engine_memstore_admit(engine *e);
compaction_policy engine_compaction_policy(const engine *e);

/* Region hooks run by engine threads (region_maint.c). */
void region_bg_flush(region *r);
void region_bg_compact(region *r);
/* References held by queued tasks. */
bool region_try_ref(region *r);
void region_unref(region *r);

/* region_maint.c */
int region_flush_internal(region *r);
int region_compact_internal(region *r, bool major);
/* Waits (up to blocking_wait_ms) while any store has blocking_store_files files. */
int region_wait_store_files(region *r);
void region_maybe_request_flush(region *r);
/* Queues a flush whatever the memstore size (global memory pressure). */
void region_request_flush_forced(region *r);

/* region.c: admission of a write: ST_NOT_SERVING while closing, then waits (bounded)
 * for global memstore room and for the store-file count to drop below blocking. */
int region_admit_write(region *r);
/* region_write.c: applies one row mutation with its row lock already held. */
int region_apply_locked(region *r, const mutation *m, int64_t now_ms);
int region_read_row(region *r, const uint8_t *row, size_t row_len, const scan_spec *spec,
                    scan_result *out);
pthread_mutex_t *region_row_lock_for(region *r, const uint8_t *row, size_t row_len);
int region_lock_row(region *r, const uint8_t *row, size_t row_len, pthread_mutex_t **held);
/* Locks m, waiting at most REGION_ROW_LOCK_WAIT_MS: ST_OK, or ST_TIMEOUT naming the region. */
int region_lock_timed(region *r, pthread_mutex_t *m);
int region_check_row(const region *r, const uint8_t *row, size_t row_len);
store *region_find_store(region *r, const uint8_t *fam, size_t fam_len);

/* region_replay.c: the recovered edits of a region being opened (docs/formats/wal.md,
 * "Replaying recovered edits"). */
typedef struct region_edits {
    char *dir;        /* the region's recovered.edits directory */
    char **paths;     /* the files to delete once the replayed cells are flushed */
    size_t npaths;
    uint64_t applied; /* cells replayed into the memstores */
} region_edits;
/* Replays r's recovered edits into its memstores: files whose max seq (their name) is
 * at or below every store's flushed seq are obsolete and only listed; the others are
 * read strictly, their edits newer than their store's flushed seq applied. *max_seq is
 * raised to the highest seq read. ST_OK with ed filled (free with region_edits_free),
 * else the read's error (ST_CORRUPTION naming the file and offset) with ed empty. */
int region_edits_replay(region *r, region_edits *ed, uint64_t *max_seq);
/* Deletes ed's files and fsyncs their directory. Only once ed->applied cells are in
 * store files (a flush). A file that cannot be deleted is logged (it is obsolete at the
 * next open). */
void region_edits_remove(region *r, region_edits *ed);
void region_edits_free(region_edits *ed);
/* After a flush of an open region: removes the recovered-edits files every edit of which
 * is now in a store file (the name's max seq at or below the stores' lowest flushed seq),
 * e.g. those a dead server's WAL split wrote for a region that had already moved here.
 * Best effort (logged). */
void region_edits_prune(region *r);

#endif
