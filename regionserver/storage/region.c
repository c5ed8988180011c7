/*
 * region.c - a region's lifecycle: open (replaying recovered edits with region_replay.c),
 * close, references, row locks and statistics. The write path is region_write.c, the
 * read path region_read.c, flush and compaction region_maint.c, read-modify-write
 * region_rmw.c.
 *
 * Thread-safety and lock order: see region_internal.h. Reads take no locks beyond
 * the stores' short mutexes; writes hold their rows' striped locks, then the update
 * lock for reading while they append to the WAL and the memstores.
 */
#include "regionserver/storage/region_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/fileio.h"
#include "common/log.h"
#include "common/status.h"
#include "regionserver/storage/layout.h"

/* ---------------------------------------------------------------- helpers */

static uint32_t row_hash(const uint8_t *row, size_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < len; i++) {
        h ^= row[i];
        h *= 16777619u;
    }
    return h;
}

pthread_mutex_t *region_row_lock_for(region *r, const uint8_t *row, size_t row_len)
{
    return &r->row_locks[row_hash(row, row_len) % REGION_ROW_LOCKS];
}

int region_lock_timed(region *r, pthread_mutex_t *m)
{
    struct timespec ts = clock_realtime_after_ms(REGION_ROW_LOCK_WAIT_MS);
    int err = pthread_mutex_timedlock(m, &ts);
    if (err == ETIMEDOUT)
        return st_error(ST_TIMEOUT, "region %s: timed out after %d ms waiting for a row lock",
                        r->info.encoded_name, REGION_ROW_LOCK_WAIT_MS);
    return err ? st_error(ST_INTERNAL, "region %s: row lock failed", r->info.encoded_name)
               : ST_OK;
}

int region_lock_row(region *r, const uint8_t *row, size_t row_len, pthread_mutex_t **held)
{
    *held = NULL;
    pthread_mutex_t *m = region_row_lock_for(r, row, row_len);
    int rc = region_lock_timed(r, m);
    if (rc == ST_OK)
        *held = m;
    return rc;
}

int region_check_row(const region *r, const uint8_t *row, size_t row_len)
{
    if (row_len == 0 || row_len > CELL_MAX_ROW_LEN)
        return st_error(ST_INVALID_ARGUMENT, "region %s: row length %zu out of range 1..%d",
                        r->info.encoded_name, row_len, CELL_MAX_ROW_LEN);
    const region_info *i = &r->info;
    if (i->start_key_len && cell_compare_rows(row, row_len, i->start_key, i->start_key_len) < 0)
        return st_error(ST_NOT_SERVING, "region %s of %s does not hold row (before its start)",
                        i->encoded_name, i->table);
    if (i->end_key_len && cell_compare_rows(row, row_len, i->end_key, i->end_key_len) >= 0)
        return st_error(ST_NOT_SERVING, "region %s of %s does not hold row (at or after its end)",
                        i->encoded_name, i->table);
    return ST_OK;
}

store *region_find_store(region *r, const uint8_t *fam, size_t fam_len)
{
    int i = table_schema_find_family(&r->schema, fam, fam_len);
    return i < 0 ? NULL : r->stores[i];
}

/* ---------------------------------------------------------------- references */

bool region_try_ref(region *r)
{
    pthread_mutex_lock(&r->maint_mu);
    bool ok = !r->closing;
    if (ok)
        r->refs++;
    pthread_mutex_unlock(&r->maint_mu);
    return ok;
}

void region_unref(region *r)
{
    pthread_mutex_lock(&r->maint_mu);
    r->refs--;
    pthread_cond_broadcast(&r->maint_cv);
    pthread_mutex_unlock(&r->maint_mu);
}

/* ---------------------------------------------------------------- open / close */

static int copy_info(region *r, const region_info *info)
{
    r->info = *info;
    r->start_key = malloc(info->start_key_len + 1);
    r->end_key = malloc(info->end_key_len + 1);
    if (!r->start_key || !r->end_key)
        return ST_NOMEM;
    if (info->start_key_len)
        memcpy(r->start_key, info->start_key, info->start_key_len);
    if (info->end_key_len)
        memcpy(r->end_key, info->end_key, info->end_key_len);
    r->info.start_key = r->start_key;
    r->info.end_key = r->end_key;
    return ST_OK;
}

static void region_free(region *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->schema.nfamilies; i++)
        store_free(r->stores[i]);
    if (r->mvcc)
        mvcc_free(r->mvcc);
    for (int i = 0; i < REGION_ROW_LOCKS; i++)
        pthread_mutex_destroy(&r->row_locks[i]);
    pthread_rwlock_destroy(&r->update_lock);
    pthread_mutex_destroy(&r->maint_mu);
    pthread_mutex_destroy(&r->flush_mu);
    pthread_cond_destroy(&r->maint_cv);
    free(r->start_key);
    free(r->end_key);
    free(r->dir);
    free(r);
}

static region *region_alloc(engine *e, const table_schema *schema)
{
    region *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->eng = e;
    r->schema = *schema;
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    /* A flush must not starve behind a steady stream of writers. */
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&r->update_lock, &attr);
    pthread_rwlockattr_destroy(&attr);
    for (int i = 0; i < REGION_ROW_LOCKS; i++)
        pthread_mutex_init(&r->row_locks[i], NULL);
    pthread_mutex_init(&r->maint_mu, NULL);
    pthread_mutex_init(&r->flush_mu, NULL);
    pthread_cond_init(&r->maint_cv, NULL);
    r->refs = 1;
    return r;
}

static int open_stores(region *r, uint64_t *max_seq)
{
    const char *root = engine_get_options(r->eng)->root_dir;
    *max_seq = 0;
    for (size_t i = 0; i < r->schema.nfamilies; i++) {
        const family_schema *f = &r->schema.families[i];
        char *dir = layout_store_dir(root, r->info.table, r->info.encoded_name, f->name);
        if (!dir)
            return ST_NOMEM;
        int rc = store_open(dir, f, engine_block_cache(r->eng), r->schema.memstore_flushsize,
                            &r->stores[i]);
        free(dir);
        if (rc != ST_OK)
            return rc;
        uint64_t m = store_max_flushed_seq(r->stores[i]);
        *max_seq = m > *max_seq ? m : *max_seq;
    }
    return ST_OK;
}

/* Marks the region closing and waits until only the owner's reference is left. */
static void drain_refs(region *r)
{
    pthread_mutex_lock(&r->maint_mu);
    r->closing = true;
    while (r->refs > 1)
        pthread_cond_wait(&r->maint_cv, &r->maint_mu);
    pthread_mutex_unlock(&r->maint_mu);
}

int region_open(engine *e, const table_schema *schema, const region_info *info, region **out)
{
    *out = NULL;
    int rc = table_schema_validate(schema);
    if (rc != ST_OK)
        return rc;
    if (layout_validate_name_part(info->encoded_name) != ST_OK)
        return st_error(ST_INVALID_ARGUMENT, "region name '%s' is invalid: %s",
                        info->encoded_name, st_errmsg());
    region *r = region_alloc(e, schema);
    if (!r)
        return ST_NOMEM;
    region_edits edits = {0};
    uint64_t max_seq = 0;
    if ((rc = copy_info(r, info)) != ST_OK)
        goto fail;
    r->dir = layout_region_dir(engine_get_options(e)->root_dir, info->table, info->encoded_name);
    if (!r->dir) {
        rc = ST_NOMEM;
        goto fail;
    }
    if ((rc = fio_mkdirs(r->dir)) != ST_OK || (rc = open_stores(r, &max_seq)) != ST_OK)
        goto fail;
    atomic_store(&r->max_flushed_seq, max_seq);
    if ((rc = region_edits_replay(r, &edits, &max_seq)) != ST_OK)
        goto fail;
    if (!(r->mvcc = mvcc_new(max_seq))) {
        rc = ST_NOMEM;
        goto fail;
    }
    engine_register_region(e, r);
    /* Recovered edits become store files before their files are deleted. */
    if (edits.applied && (rc = region_flush_internal(r)) != ST_OK) {
        drain_refs(r); /* background work queued meanwhile holds references */
        engine_unregister_region(e, r);
        goto fail;
    }
    region_edits_remove(r, &edits);
    region_edits_free(&edits);
    /* Files left by an earlier life may need it; references always do (a daughter's
     * or merged region's first compaction rewrites them into real files). */
    engine_request_compaction(e, r);
    LOG_INFO("region %s of %s opened at seq %" PRIu64, info->encoded_name, info->table, max_seq);
    *out = r;
    return ST_OK;
fail:
    LOG_ERROR("region %s of %s failed to open: %s (%s)", info->encoded_name, info->table,
              st_strerror(rc), st_errmsg());
    region_edits_free(&edits);
    int64_t bytes = (int64_t)atomic_load(&r->memstore_bytes);
    if (bytes)
        engine_memstore_add(e, -bytes);
    region_free(r);
    return rc;
}

int region_close(region *r, bool flush)
{
    if (!r)
        return ST_OK;
    drain_refs(r);
    if (flush) {
        int rc = region_flush_internal(r);
        if (rc != ST_OK) {
            /* The memstore holds acknowledged edits that are not in files: keep the
             * region open so nothing is dropped; the caller retries or aborts. */
            pthread_mutex_lock(&r->maint_mu);
            r->closing = false;
            pthread_mutex_unlock(&r->maint_mu);
            LOG_ERROR("region %s of %s: close aborted, its flush failed: %s",
                      r->info.encoded_name, r->info.table, st_errmsg());
            return rc;
        }
    }
    engine_unregister_region(r->eng, r);
    /* Only a flushed region lets go of its WAL edits; otherwise they stay for replay. */
    if (flush)
        wal_region_closed(engine_wal(r->eng), r->info.encoded_name);
    int64_t bytes = (int64_t)atomic_load(&r->memstore_bytes);
    if (bytes)
        engine_memstore_add(r->eng, -bytes);
    LOG_INFO("region %s of %s closed", r->info.encoded_name, r->info.table);
    region_free(r);
    return ST_OK;
}

const table_schema *region_get_schema(const region *r)
{
    return &r->schema;
}

const region_info *region_get_info(const region *r)
{
    return &r->info;
}

void region_get_stats(region *r, region_stats *out)
{
    memset(out, 0, sizeof(*out));
    out->read_requests = atomic_load(&r->read_requests);
    out->write_requests = atomic_load(&r->write_requests);
    out->flushes = atomic_load(&r->flushes);
    out->compactions = atomic_load(&r->compactions);
    out->max_flushed_seq = atomic_load(&r->max_flushed_seq);
    for (size_t i = 0; i < r->schema.nfamilies; i++) {
        out->memstore_size += store_memstore_size(r->stores[i]);
        out->store_files += store_file_count(r->stores[i]);
        out->store_file_size += store_file_bytes(r->stores[i]);
    }
}
