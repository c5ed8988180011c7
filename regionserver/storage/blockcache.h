/*
 * blockcache.h - a sharded LRU cache of decoded store-file blocks with a byte budget.
 *
 * Keys are (file id, block offset); values are opaque with a charge in bytes and a
 * deleter. Lookups and inserts return handles that pin the value until released, so
 * an evicted block stays valid for readers still holding it (LevelDB's model).
 * Shards = 16 by default, each with its own mutex; capacity is split evenly.
 *
 * Priorities (HBase's LruBlockCache in-memory priority): an entry is inserted NORMAL or
 * IN_MEMORY (the blocks of an IN_MEMORY family) and each shard keeps one LRU list per
 * priority. In-memory entries may hold up to memory_share of the capacity (HBase's
 * hbase.lru.blockcache.memory.percentage, 0.25 by default). When the budget forces an
 * eviction the oldest in-memory entry goes only while in-memory entries hold more than
 * their share, or when no normal entry is left; otherwise the oldest normal entry goes.
 * So a flood of normal blocks cannot push out in-memory blocks that fit in the share,
 * and in-memory blocks may use free room beyond it until the cache fills.
 * Thread-safety: all functions are safe from any thread.
 */
#ifndef STRATA_REGIONSERVER_BLOCKCACHE_H
#define STRATA_REGIONSERVER_BLOCKCACHE_H

#include <stddef.h>
#include <stdint.h>

typedef struct blockcache blockcache;
typedef struct blockcache_handle blockcache_handle;

typedef enum blockcache_priority {
    BLOCKCACHE_PRIORITY_NORMAL = 0,
    BLOCKCACHE_PRIORITY_IN_MEMORY = 1, /* an IN_MEMORY family's blocks */
} blockcache_priority;

/* The in-memory share blockcache_new gives (HBase's default memory percentage). */
#define BLOCKCACHE_MEMORY_SHARE_DEFAULT 0.25

typedef struct blockcache_stats {
    uint64_t hits;
    uint64_t misses;
    uint64_t inserts;
    uint64_t evictions;
    uint64_t usage;    /* bytes charged now */
    uint64_t capacity; /* bytes */
    uint64_t entries;
    /* In-memory priority entries (a part of usage and entries) and their share. */
    uint64_t memory_usage;
    uint64_t memory_entries;
    uint64_t memory_capacity; /* bytes in-memory entries may hold before they go first */
} blockcache_stats;

/* capacity_bytes 0 gives a cache that keeps nothing (every lookup misses). shards 0: 16.
 * In-memory entries get BLOCKCACHE_MEMORY_SHARE_DEFAULT of the capacity. NULL if out of
 * memory. */
blockcache *blockcache_new(size_t capacity_bytes, int shards);
/* The same with in-memory entries given memory_share of the capacity (0..1; a value
 * outside is clamped, NaN is taken as the default). */
blockcache *blockcache_new_with_memory_share(size_t capacity_bytes, int shards,
                                             double memory_share);
/* Frees the cache; every handle must have been released. NULL is a no-op. */
void blockcache_free(blockcache *bc);

/* Returns a pinned handle or NULL (a miss). Counts a hit or a miss. */
blockcache_handle *blockcache_lookup(blockcache *bc, uint64_t file_id, uint64_t offset);
/* Inserts value with normal priority (replacing any entry with the same key) and returns
 * a pinned handle to it. The cache owns value from now on and calls deleter(value) once
 * it is neither cached nor pinned. Returns NULL only if out of memory (deleter is then
 * called). */
blockcache_handle *blockcache_insert(blockcache *bc, uint64_t file_id, uint64_t offset,
                                     void *value, size_t charge, void (*deleter)(void *value));
/* The same with the given priority; an entry keeps it for as long as it is cached. */
blockcache_handle *blockcache_insert_priority(blockcache *bc, uint64_t file_id, uint64_t offset,
                                              void *value, size_t charge,
                                              void (*deleter)(void *value),
                                              blockcache_priority priority);
void *blockcache_value(blockcache_handle *h);
void blockcache_release(blockcache *bc, blockcache_handle *h);
/* Drops every entry of a file (after the file is deleted). */
void blockcache_erase_file(blockcache *bc, uint64_t file_id);
void blockcache_get_stats(blockcache *bc, blockcache_stats *out);

/* A process-wide unique id for a newly opened file (cache keys never collide). */
uint64_t blockcache_new_file_id(void);

#endif
