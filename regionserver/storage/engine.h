/*
 * engine.h - what one region server's storage shares across its regions: the root
 * directory, the one WAL, the block cache, the global memstore budget, and the
 * background flush and compaction threads.
 *
 * engine_open() first recovers: any WAL files left in <root>/WALs/<server> by an
 * earlier run are split into per-region recovered edits (wal_split), so that each
 * region replays its own edits when it opens; then a fresh WAL is started.
 * Thread-safety: all functions are safe from any thread; engine_close() must come
 * after every region of the engine is closed.
 */
#ifndef STRATA_REGIONSERVER_ENGINE_H
#define STRATA_REGIONSERVER_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "regionserver/storage/blockcache.h"
#include "regionserver/storage/wal.h"

struct region; /* region.h */

typedef struct engine_options {
    const char *root_dir;           /* required */
    const char *server_name;        /* WAL directory name; default "local" */
    size_t block_cache_bytes;       /* default 64 MiB */
    double block_cache_memory_share; /* the share of the block cache IN_MEMORY families'
                                      * blocks keep from normal ones (blockcache.h), in
                                      * (0, 1]; 0: the default, 0.25 */
    bool mmap_reads;                /* storefile_set_mmap_reads at open; default true */
    uint32_t storefile_version;     /* storefile_set_max_version at open (1..3); 0: 3 */
    uint64_t wal_roll_size;         /* default 64 MiB */
    int async_wal_interval_ms;      /* default 1000 */
    uint64_t global_memstore_limit; /* writes block above it; default 1 GiB */
    int flush_threads;              /* default 1 */
    int compaction_threads;         /* default 1 */
    int blocking_store_files;       /* writes wait at this many files in a store; default 16 */
    int64_t blocking_wait_ms;       /* longest such wait before RegionTooBusy; default 90000 */
    int compaction_min_files;       /* default 3 */
    int compaction_max_files;       /* default 10 */
    double compaction_ratio;        /* default 1.2 */
    uint64_t compaction_min_size;   /* files below it are always eligible; default 128 MiB */
    /* Called after each flush of a region that wrote store files and after each run of
     * compactions of a region (compaction true) that completed at least one, whether
     * started in the background or by region_flush/region_compact; not for the flushes
     * inside region_open and region_close, nor once the region is closing. It runs on
     * the thread that did the work, outside every lock, while the region is held, so it
     * may read the region (stats, region_best_split_row, region_has_references) but must
     * not close it or wait for its flushes or compactions; it should be quick (queue a
     * split check, say). NULL (the default): none. */
    void (*after_maint)(void *arg, struct region *r, bool compaction);
    void *after_maint_arg;
} engine_options;

typedef struct engine engine;

/* Fills o with the defaults (root_dir stays NULL). */
void engine_options_init(engine_options *o);
int engine_open(const engine_options *o, engine **out);
/* Waits for background work, closes the WAL and frees e. NULL is a no-op. */
void engine_close(engine *e);

const engine_options *engine_get_options(const engine *e);
blockcache *engine_block_cache(engine *e);
wal *engine_wal(engine *e);
/* Regions waiting in the flush and the compaction queue now (running work not counted). */
void engine_queue_lengths(engine *e, size_t *flush, size_t *compaction);

/* Turns compactions on or off for every region of the engine (HBase's compaction_switch):
 * while off, background and requested compactions do nothing (writes still wait while a
 * store has blocking_store_files files); turned on, every region is looked at again.
 * Returns the previous state. */
bool engine_set_compactions(engine *e, bool on);
bool engine_compactions_enabled(const engine *e);

#endif
