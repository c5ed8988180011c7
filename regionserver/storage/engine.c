/*
 * engine.c - the storage shared by one region server's regions: WAL, block cache,
 * global memstore budget, and the flush and compaction threads (see engine.h).
 *
 * Background work: two FIFO queues (flush, compaction) of region references, each
 * served by its own threads. A region queued twice runs once (the region's flags
 * dedupe). Thread-safety: `mu` guards the queues, the region list and `stopping`;
 * `mem_cv` wakes writers waiting for memstore room. Lock order: engine mu is a leaf
 * (never call into a region while holding it).
 */
#include "regionserver/storage/engine.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/fileio.h"
#include "common/log.h"
#include "common/status.h"
#include "regionserver/storage/layout.h"
#include "regionserver/storage/region_internal.h"

#define ENGINE_MAX_THREADS 16

typedef struct task {
    region *r;
    struct task *next;
} task;

typedef struct task_queue {
    task *head;
    task *tail;
} task_queue;

typedef struct worker_arg {
    struct engine *e;
    bool flush;
} worker_arg;

struct engine {
    engine_options opts;
    worker_arg wargs[2];
    char *root;
    char *server;
    char *wal_dir;
    wal *log;
    blockcache *cache;
    pthread_mutex_t mu;
    pthread_cond_t work_cv;
    pthread_cond_t mem_cv;
    task_queue flushq;
    task_queue compactq;
    bool stopping;
    region *regions;
    pthread_t threads[2 * ENGINE_MAX_THREADS];
    int nthreads;
    _Atomic int64_t memstore_bytes;
    atomic_bool compactions_off; /* engine_set_compactions: HBase's compaction_switch */
};

void engine_options_init(engine_options *o)
{
    memset(o, 0, sizeof(*o));
    o->server_name = "local";
    o->block_cache_bytes = 64u << 20;
    o->block_cache_memory_share = BLOCKCACHE_MEMORY_SHARE_DEFAULT;
    o->mmap_reads = true;
    o->wal_roll_size = 64u << 20;
    o->async_wal_interval_ms = 1000;
    o->global_memstore_limit = 1ull << 30;
    o->flush_threads = 1;
    o->compaction_threads = 1;
    o->blocking_store_files = 16;
    o->blocking_wait_ms = 90000;
    o->compaction_min_files = 3;
    o->compaction_max_files = 10;
    o->compaction_ratio = 1.2;
    o->compaction_min_size = 128ull << 20;
}

static void queue_push(task_queue *q, task *t)
{
    t->next = NULL;
    if (q->tail)
        q->tail->next = t;
    else
        q->head = t;
    q->tail = t;
}

static task *queue_pop(task_queue *q)
{
    task *t = q->head;
    if (t) {
        q->head = t->next;
        if (!q->head)
            q->tail = NULL;
    }
    return t;
}


static void *worker_main(void *arg)
{
    worker_arg *wa = arg;
    engine *e = wa->e;
    task_queue *q = wa->flush ? &e->flushq : &e->compactq;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        task *t = queue_pop(q);
        if (!t) {
            if (e->stopping)
                break;
            pthread_cond_wait(&e->work_cv, &e->mu);
            continue;
        }
        pthread_mutex_unlock(&e->mu);
        if (wa->flush)
            region_bg_flush(t->r);
        else
            region_bg_compact(t->r);
        region_unref(t->r);
        free(t);
        pthread_mutex_lock(&e->mu);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

static int start_threads(engine *e)
{
    e->wargs[0] = (worker_arg){e, true};
    e->wargs[1] = (worker_arg){e, false};
    int counts[2] = {e->opts.flush_threads, e->opts.compaction_threads};
    for (int kind = 0; kind < 2; kind++) {
        int n = counts[kind] < 1 ? 1 : counts[kind] > ENGINE_MAX_THREADS ? ENGINE_MAX_THREADS
                                                                          : counts[kind];
        for (int i = 0; i < n; i++) {
            if (pthread_create(&e->threads[e->nthreads], NULL, worker_main, &e->wargs[kind]))
                return st_error(ST_INTERNAL, "engine %s: cannot start a worker thread",
                                e->root);
            e->nthreads++;
        }
    }
    return ST_OK;
}

static void fill_defaults(engine_options *o)
{
    engine_options d;
    engine_options_init(&d);
    if (!o->server_name)
        o->server_name = d.server_name;
    if (!o->wal_roll_size)
        o->wal_roll_size = d.wal_roll_size;
    if (o->async_wal_interval_ms <= 0)
        o->async_wal_interval_ms = d.async_wal_interval_ms;
    if (o->block_cache_memory_share == 0)
        o->block_cache_memory_share = d.block_cache_memory_share;
    if (!o->global_memstore_limit)
        o->global_memstore_limit = d.global_memstore_limit;
    if (o->blocking_store_files <= 0)
        o->blocking_store_files = d.blocking_store_files;
    if (o->blocking_wait_ms <= 0)
        o->blocking_wait_ms = d.blocking_wait_ms;
    if (o->compaction_min_files <= 1)
        o->compaction_min_files = d.compaction_min_files;
    if (o->compaction_max_files < o->compaction_min_files)
        o->compaction_max_files = d.compaction_max_files > o->compaction_min_files
                                      ? d.compaction_max_files
                                      : o->compaction_min_files;
    if (o->compaction_ratio <= 0)
        o->compaction_ratio = d.compaction_ratio;
}

int engine_open(const engine_options *o, engine **out)
{
    *out = NULL;
    if (!o->root_dir)
        return st_error(ST_INVALID_ARGUMENT, "engine: no root directory given");
    if (!(o->block_cache_memory_share >= 0 && o->block_cache_memory_share <= 1))
        return st_error(ST_INVALID_ARGUMENT,
                        "engine %s: block cache memory share %g is not between 0 and 1",
                        o->root_dir, o->block_cache_memory_share);
    engine *e = calloc(1, sizeof(*e));
    if (!e)
        return ST_NOMEM;
    e->opts = *o;
    fill_defaults(&e->opts);
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->work_cv, NULL);
    pthread_cond_init(&e->mem_cv, NULL);
    int rc = ST_NOMEM;
    e->root = strdup(o->root_dir);
    e->server = strdup(e->opts.server_name);
    e->opts.root_dir = e->root;
    e->opts.server_name = e->server;
    if (!e->root || !e->server || !(e->wal_dir = layout_wal_dir(e->root, e->server)))
        goto fail;
    if ((rc = fio_mkdirs(e->root)) != ST_OK)
        goto fail;
    /* Recovery: edits left by an earlier run go to their regions' recovered.edits. */
    if (fio_exists(e->wal_dir) && (rc = wal_split(e->wal_dir, e->root)) != ST_OK) {
        LOG_ERROR("engine %s: splitting old WALs in %s failed: %s", e->root, e->wal_dir,
                  st_errmsg());
        goto fail;
    }
    storefile_set_mmap_reads(e->opts.mmap_reads); /* process-wide: files opened from now */
    if (e->opts.storefile_version && (rc = storefile_set_max_version(e->opts.storefile_version)) != ST_OK)
        goto fail;
    if (e->opts.mmap_reads)
        storefile_handle_sigbus();
    e->cache = blockcache_new_with_memory_share(e->opts.block_cache_bytes, 0,
                                                e->opts.block_cache_memory_share);
    if (!e->cache) {
        rc = ST_NOMEM;
        goto fail;
    }
    wal_options wo = {e->wal_dir, e->opts.wal_roll_size, e->opts.async_wal_interval_ms};
    if ((rc = wal_open(&wo, &e->log)) != ST_OK)
        goto fail;
    if ((rc = start_threads(e)) != ST_OK)
        goto fail;
    *out = e;
    return ST_OK;
fail:
    engine_close(e);
    return rc;
}

void engine_close(engine *e)
{
    if (!e)
        return;
    pthread_mutex_lock(&e->mu);
    e->stopping = true;
    pthread_cond_broadcast(&e->work_cv);
    pthread_cond_broadcast(&e->mem_cv);
    pthread_mutex_unlock(&e->mu);
    for (int i = 0; i < e->nthreads; i++)
        pthread_join(e->threads[i], NULL);
    if (e->regions)
        LOG_WARN("engine %s: closing with regions still open", e->root);
    if (e->log)
        wal_close(e->log);
    blockcache_free(e->cache);
    pthread_cond_destroy(&e->mem_cv);
    pthread_cond_destroy(&e->work_cv);
    pthread_mutex_destroy(&e->mu);
    free(e->wal_dir);
    free(e->server);
    free(e->root);
    free(e);
}

const engine_options *engine_get_options(const engine *e)
{
    return &e->opts;
}

blockcache *engine_block_cache(engine *e)
{
    return e->cache;
}

wal *engine_wal(engine *e)
{
    return e->log;
}

static size_t queue_length(const task_queue *q)
{
    size_t n = 0;
    for (const task *t = q->head; t; t = t->next)
        n++;
    return n;
}

void engine_queue_lengths(engine *e, size_t *flush, size_t *compaction)
{
    pthread_mutex_lock(&e->mu);
    *flush = queue_length(&e->flushq);
    *compaction = queue_length(&e->compactq);
    pthread_mutex_unlock(&e->mu);
}

compaction_policy engine_compaction_policy(const engine *e)
{
    compaction_policy p = {0};
    p.min_files = e->opts.compaction_min_files;
    p.max_files = e->opts.compaction_max_files;
    p.ratio = e->opts.compaction_ratio;
    p.min_size = e->opts.compaction_min_size;
    p.max_size = UINT64_MAX;
    p.blocking_files = e->opts.blocking_store_files;
    return p;
}

void engine_register_region(engine *e, region *r)
{
    pthread_mutex_lock(&e->mu);
    r->next_in_engine = e->regions;
    e->regions = r;
    pthread_mutex_unlock(&e->mu);
}

void engine_unregister_region(engine *e, region *r)
{
    pthread_mutex_lock(&e->mu);
    for (region **p = &e->regions; *p; p = &(*p)->next_in_engine)
        if (*p == r) {
            *p = r->next_in_engine;
            break;
        }
    pthread_mutex_unlock(&e->mu);
}

static bool enqueue(engine *e, region *r, bool flush)
{
    task *t = malloc(sizeof(*t));
    if (!t) {
        LOG_ERROR("engine %s: out of memory queueing a %s", e->root,
                  flush ? "flush" : "compaction");
        return false;
    }
    if (!region_try_ref(r)) {
        free(t);
        return false;
    }
    t->r = r;
    pthread_mutex_lock(&e->mu);
    queue_push(flush ? &e->flushq : &e->compactq, t);
    pthread_cond_broadcast(&e->work_cv);
    pthread_mutex_unlock(&e->mu);
    return true;
}

bool engine_request_flush(engine *e, region *r)
{
    return enqueue(e, r, true);
}

bool engine_request_compaction(engine *e, region *r)
{
    return enqueue(e, r, false);
}

bool engine_set_compactions(engine *e, bool on)
{
    bool was_on = !atomic_exchange(&e->compactions_off, !on);
    if (on && !was_on) {
        /* What waited meanwhile (references, too many files) is looked at again. */
        pthread_mutex_lock(&e->mu);
        region *list[256];
        size_t n = 0;
        for (region *r = e->regions; r && n < 256; r = r->next_in_engine)
            if (region_try_ref(r))
                list[n++] = r;
        pthread_mutex_unlock(&e->mu);
        for (size_t i = 0; i < n; i++) {
            enqueue(e, list[i], false);
            region_unref(list[i]);
        }
    }
    return was_on;
}

bool engine_compactions_enabled(const engine *e)
{
    return !atomic_load(&e->compactions_off);
}

void engine_memstore_add(engine *e, int64_t delta)
{
    int64_t now = atomic_fetch_add(&e->memstore_bytes, delta) + delta;
    if (delta < 0 && now < (int64_t)e->opts.global_memstore_limit) {
        pthread_mutex_lock(&e->mu);
        pthread_cond_broadcast(&e->mem_cv);
        pthread_mutex_unlock(&e->mu);
    }
}

/* Asks the region with the largest memstore to flush, whatever its flush size. The
 * reference taken under the engine mutex keeps the region alive meanwhile (lock
 * order: engine mu -> region maint_mu). */
static void flush_largest(engine *e)
{
    region *best = NULL;
    uint64_t best_bytes = 0;
    pthread_mutex_lock(&e->mu);
    for (region *r = e->regions; r; r = r->next_in_engine) {
        uint64_t b = atomic_load(&r->memstore_bytes);
        if (b > best_bytes) {
            best = r;
            best_bytes = b;
        }
    }
    if (best && !region_try_ref(best))
        best = NULL;
    pthread_mutex_unlock(&e->mu);
    if (best) {
        region_request_flush_forced(best);
        region_unref(best);
    }
}

int engine_memstore_admit(engine *e)
{
    int64_t limit = (int64_t)e->opts.global_memstore_limit;
    if (atomic_load(&e->memstore_bytes) < limit)
        return ST_OK;
    uint64_t deadline = clock_mono_ns() + (uint64_t)e->opts.blocking_wait_ms * 1000000ull;
    while (atomic_load(&e->memstore_bytes) >= limit) {
        flush_largest(e);
        if (clock_mono_ns() >= deadline)
            return st_error(ST_REGION_TOO_BUSY,
                            "engine %s: global memstore above %" PRId64 " bytes for %" PRId64
                            " ms",
                            e->root, limit, e->opts.blocking_wait_ms);
        struct timespec ts = clock_realtime_after_ms(100);
        pthread_mutex_lock(&e->mu);
        if (!e->stopping && atomic_load(&e->memstore_bytes) >= limit)
            pthread_cond_timedwait(&e->mem_cv, &e->mu, &ts);
        bool stop = e->stopping;
        pthread_mutex_unlock(&e->mu);
        if (stop)
            return st_error(ST_CLOSED, "engine %s: closing", e->root);
    }
    return ST_OK;
}
