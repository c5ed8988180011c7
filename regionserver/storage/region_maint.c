/*
 * region_maint.c - a region's flushes and compactions, and the write admission that
 * depends on them (blocking store-file counts).
 *
 * Flush (region_flush_internal), under flush_mu:
 *   1. any snapshot left by a failed flush is written first (it keeps its own seq);
 *   2. under the update write lock (no write half-applied) a flush seq is reserved
 *      from MVCC and every store's active memstore becomes its snapshot;
 *   3. wait until every write below the flush seq has completed;
 *   4. each snapshot is written to a store file and swapped in (flush_gen is odd
 *      meanwhile, so readers never collect a half-swapped region);
 *   5. the WAL learns the region is flushed up to the flush seq.
 * After a flush that wrote files, and after compactions that ran, the engine's
 * after_maint hook is called (outside every lock; not for the flushes of region_open
 * and region_close, nor once the region is closing). A store holding references
 * needs compaction until they are rewritten (store_needs_compaction).
 * Thread-safety: see region_internal.h.
 */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/status.h"
#include "common/taskmon.h"
#include "regionserver/storage/region_internal.h"

static bool is_closing(region *r)
{
    pthread_mutex_lock(&r->maint_mu);
    bool closing = r->closing;
    pthread_mutex_unlock(&r->maint_mu);
    return closing;
}

static void wake_waiters(region *r)
{
    pthread_mutex_lock(&r->maint_mu);
    pthread_cond_broadcast(&r->maint_cv);
    pthread_mutex_unlock(&r->maint_mu);
}

static void request_compaction_once(region *r)
{
    pthread_mutex_lock(&r->maint_mu);
    bool queue = !r->compact_queued && !r->closing;
    r->compact_queued = true;
    pthread_mutex_unlock(&r->maint_mu);
    if (queue && !engine_request_compaction(r->eng, r)) {
        pthread_mutex_lock(&r->maint_mu);
        r->compact_queued = false;
        pthread_mutex_unlock(&r->maint_mu);
    }
}

static int flush_waiting_snapshots(region *r, size_t *released)
{
    int rc = ST_OK;
    atomic_fetch_add(&r->flush_gen, 1); /* odd: swapping */
    for (size_t i = 0; i < r->schema.nfamilies && rc == ST_OK; i++) {
        size_t bytes = 0;
        rc = store_flush_snapshot(r->stores[i], &bytes);
        *released += bytes;
    }
    atomic_fetch_add(&r->flush_gen, 1);
    return rc;
}

static void release_memstore_bytes(region *r, size_t bytes)
{
    if (!bytes)
        return;
    atomic_fetch_sub(&r->memstore_bytes, bytes);
    engine_memstore_add(r->eng, -(int64_t)bytes);
}

/* Steps 2 and 3: snapshots at a fresh flush seq, of every store or (only >= 0) of that
 * one. *any tells whether any store had something to flush. */
static int take_snapshots(region *r, int only, uint64_t *flush_seq, bool *any)
{
    int rc = ST_OK;
    *any = false;
    pthread_rwlock_wrlock(&r->update_lock);
    *flush_seq = mvcc_begin(r->mvcc);
    if (*flush_seq == 0) {
        pthread_rwlock_unlock(&r->update_lock);
        return st_error(ST_NOMEM, "region %s: out of memory starting a flush",
                        r->info.encoded_name);
    }
    for (size_t i = 0; i < r->schema.nfamilies && rc == ST_OK; i++) {
        bool took = false;
        if (only >= 0 && (size_t)only != i)
            continue;
        rc = store_snapshot(r->stores[i], *flush_seq, &took);
        *any |= took;
    }
    pthread_rwlock_unlock(&r->update_lock);
    mvcc_complete_and_wait(r->mvcc, *flush_seq);
    return rc;
}

/* The engine's after_maint hook (engine.h): outside every lock, while the caller holds
 * the region (a queued task's reference, or an open region's caller), never once the
 * region is closing. */
static void after_maint(region *r, bool compaction)
{
    const engine_options *o = engine_get_options(r->eng);
    if (o->after_maint && !is_closing(r))
        o->after_maint(o->after_maint_arg, r, compaction);
}

/* One flush of every store, or (only >= 0) of that store alone; *flushed tells whether
 * any store had something to flush. A one-store flush moves that store's flushed seq
 * (WAL replay skips what its files hold) but not the region's: the other stores still
 * hold older edits, so the WAL keeps them. */
static int flush_region(region *r, int only, bool *flushed)
{
    uint64_t task = only >= 0 ? taskmon_begin("Flushing %s in region %s of %s",
                                              r->schema.families[only].name,
                                              r->info.encoded_name, r->info.table)
                              : taskmon_begin("Flushing region %s of %s", r->info.encoded_name,
                                              r->info.table);
    taskmon_status(task, "Waiting for the region's flush lock");
    pthread_mutex_lock(&r->flush_mu);
    taskmon_status(task, "Running flush");
    size_t released = 0;
    uint64_t flush_seq = 0;
    bool any = false;
    int rc = flush_waiting_snapshots(r, &released);
    if (rc == ST_OK)
        rc = take_snapshots(r, only, &flush_seq, &any);
    /* A store that could not take its snapshot leaves nothing marked flushed. */
    if (rc == ST_OK && any)
        rc = flush_waiting_snapshots(r, &released);
    if (rc == ST_OK && any && only >= 0) {
        atomic_fetch_add(&r->flushes, 1);
        LOG_DEBUG("region %s: flushed family %s up to seq %" PRIu64, r->info.encoded_name,
                  r->schema.families[only].name, flush_seq);
    } else if (rc == ST_OK && any) {
        atomic_store(&r->max_flushed_seq, flush_seq);
        wal_region_flushed(engine_wal(r->eng), r->info.encoded_name, flush_seq);
        atomic_fetch_add(&r->flushes, 1);
        LOG_DEBUG("region %s: flushed up to seq %" PRIu64, r->info.encoded_name, flush_seq);
    }
    release_memstore_bytes(r, released);
    pthread_mutex_unlock(&r->flush_mu);
    taskmon_end(task);
    *flushed = rc == ST_OK && any;
    if (rc != ST_OK) {
        LOG_ERROR("region %s: flush failed: %s (%s)", r->info.encoded_name, st_strerror(rc),
                  st_errmsg());
    } else {
        region_edits_prune(r); /* edits a later WAL split wrote that this flush covers */
        request_compaction_once(r);
    }
    return rc;
}

int region_flush_internal(region *r)
{
    bool flushed = false;
    return flush_region(r, -1, &flushed);
}

/* Compacts every store, or (only >= 0) that one. A requested compaction (wait) first
 * waits for a background one running on the same store instead of silently doing
 * nothing. *done counts the compactions that ran. */
static int compact_stores(region *r, int only, bool major, bool wait, size_t *done)
{
    *done = 0;
    if (!engine_compactions_enabled(r->eng)) {
        LOG_DEBUG("region %s: compactions are switched off; not compacting",
                  r->info.encoded_name);
        return ST_OK;
    }
    compaction_policy p = engine_compaction_policy(r->eng);
    int first = ST_OK;
    for (size_t i = 0; i < r->schema.nfamilies; i++) {
        bool did = false;
        int rc;
        if (only >= 0 && (size_t)only != i)
            continue;
        uint64_t task = taskmon_begin("Compacting %s in region %s of %s",
                                      r->schema.families[i].name, r->info.encoded_name,
                                      r->info.table);
        taskmon_status(task, "Running %s compaction", major ? "major" : "minor");
        do {
            /* A background compaction starting between the wait and store_compact makes
             * it select nothing: wait for that one too, and try again. */
            do {
                while (wait && store_compacting(r->stores[i]))
                    clock_sleep_ms(5);
                rc = store_compact(r->stores[i], &p, major, clock_now_ms(), &did);
            } while (wait && rc == ST_OK && !did && store_compacting(r->stores[i]));
            if (did) {
                atomic_fetch_add(&r->compactions, 1);
                (*done)++;
            }
            wake_waiters(r);
        } while (rc == ST_OK && did && !major && !is_closing(r) &&
                 store_needs_compaction(r->stores[i], &p));
        taskmon_end(task);
        if (rc != ST_OK && first == ST_OK)
            first = rc;
    }
    return first;
}

int region_compact_internal(region *r, bool major)
{
    size_t done = 0;
    int rc = compact_stores(r, -1, major, true, &done);
    if (done)
        after_maint(r, true);
    return rc;
}

void region_bg_flush(region *r)
{
    pthread_mutex_lock(&r->maint_mu);
    r->flush_queued = false;
    pthread_mutex_unlock(&r->maint_mu);
    bool flushed = false;
    if (flush_region(r, -1, &flushed) == ST_OK && flushed)
        after_maint(r, false);
}

void region_bg_compact(region *r)
{
    pthread_mutex_lock(&r->maint_mu);
    r->compact_queued = false;
    pthread_mutex_unlock(&r->maint_mu);
    if (is_closing(r))
        return;
    compaction_policy p = engine_compaction_policy(r->eng);
    for (size_t i = 0; i < r->schema.nfamilies; i++)
        if (store_needs_compaction(r->stores[i], &p)) {
            size_t done = 0;
            compact_stores(r, -1, false, false, &done);
            if (done)
                after_maint(r, true);
            break;
        }
}

void region_request_flush_forced(region *r)
{
    pthread_mutex_lock(&r->maint_mu);
    bool queue = !r->flush_queued && !r->closing;
    r->flush_queued = true;
    pthread_mutex_unlock(&r->maint_mu);
    if (queue && !engine_request_flush(r->eng, r)) {
        pthread_mutex_lock(&r->maint_mu);
        r->flush_queued = false;
        pthread_mutex_unlock(&r->maint_mu);
    }
}

void region_maybe_request_flush(region *r)
{
    if (atomic_load(&r->memstore_bytes) >= r->schema.memstore_flushsize)
        region_request_flush_forced(r);
}

static bool too_many_files(region *r, int limit)
{
    for (size_t i = 0; i < r->schema.nfamilies; i++)
        if (store_file_count(r->stores[i]) >= (size_t)limit)
            return true;
    return false;
}

int region_wait_store_files(region *r)
{
    const engine_options *o = engine_get_options(r->eng);
    if (!too_many_files(r, o->blocking_store_files))
        return ST_OK;
    uint64_t deadline = clock_mono_ns() + (uint64_t)o->blocking_wait_ms * 1000000ull;
    while (too_many_files(r, o->blocking_store_files)) {
        request_compaction_once(r);
        if (clock_mono_ns() >= deadline)
            return st_error(ST_REGION_TOO_BUSY,
                            "region %s: a store has %d or more files; writes blocked for %" PRId64
                            " ms waiting for compaction",
                            r->info.encoded_name, o->blocking_store_files, o->blocking_wait_ms);
        struct timespec ts = clock_realtime_after_ms(50);
        pthread_mutex_lock(&r->maint_mu);
        bool closing = r->closing;
        if (!closing)
            pthread_cond_timedwait(&r->maint_cv, &r->maint_mu, &ts);
        pthread_mutex_unlock(&r->maint_mu);
        if (closing)
            return st_error(ST_NOT_SERVING, "region %s is closing", r->info.encoded_name);
    }
    return ST_OK;
}

int region_flush(region *r)
{
    bool flushed = false;
    int rc = flush_region(r, -1, &flushed);
    if (rc == ST_OK && flushed)
        after_maint(r, false);
    return rc;
}

int region_compact(region *r, bool major)
{
    return region_compact_internal(r, major);
}

/* The store index of family (a NUL-terminated name), or ST_NOT_FOUND naming it. */
static int family_index(region *r, const char *family, int *out)
{
    int i = table_schema_find_family(&r->schema, (const uint8_t *)family, strlen(family));
    if (i < 0)
        return st_error(ST_NOT_FOUND, "region %s: column family %s does not exist in table %s",
                        r->info.encoded_name, family, r->schema.name);
    *out = i;
    return ST_OK;
}

int region_flush_family(region *r, const char *family)
{
    int only = -1;
    bool flushed = false;
    int rc = family_index(r, family, &only);
    if (rc == ST_OK)
        rc = flush_region(r, only, &flushed);
    if (rc == ST_OK && flushed)
        after_maint(r, false);
    return rc;
}

int region_compact_family(region *r, const char *family, bool major)
{
    int only = -1;
    size_t done = 0;
    int rc = family_index(r, family, &only);
    if (rc == ST_OK)
        rc = compact_stores(r, only, major, true, &done);
    if (done)
        after_maint(r, true);
    return rc;
}

region_compaction region_compaction_state(region *r)
{
    unsigned bits = 0;
    for (size_t i = 0; i < r->schema.nfamilies; i++) {
        store_compaction c = store_compaction_state(r->stores[i]);
        bits |= c == STORE_COMPACTION_MAJOR ? REGION_COMPACTION_MAJOR
                : c == STORE_COMPACTION_MINOR ? REGION_COMPACTION_MINOR
                                              : 0u;
    }
    return (region_compaction)bits;
}
