/*
 * blockcache.h - a sharded LRU cache of decoded store-file blocks with a byte budget.
 *
 * Keys are (file id, block offset); values are opaque with a charge in bytes and a
 * deleter. Lookups and inserts return handles that pin the value until released, so
 * an evicted block stays valid for readers still holding it (LevelDB's model).
 * Shards = 16 by default, each with its own mutex and LRU list; capacity is split
 * evenly. Thread-safety: all functions are safe from any thread.
 */
#ifndef STRATA_REGIONSERVER_BLOCKCACHE_H
#define STRATA_REGIONSERVER_BLOCKCACHE_H

#include <stddef.h>
#include <stdint.h>

typedef struct blockcache blockcache;
typedef struct blockcache_handle blockcache_handle;

typedef struct blockcache_stats {
    uint64_t hits;
    uint64_t misses;
    uint64_t inserts;
    uint64_t evictions;
    uint64_t usage;    /* bytes charged now */
    uint64_t capacity; /* bytes */
    uint64_t entries;
} blockcache_stats;

/* capacity_bytes 0 gives a cache that keeps nothing (every lookup misses). shards 0: 16. */
blockcache *blockcache_new(size_t capacity_bytes, int shards);
/* Frees the cache; every handle must have been released. NULL is a no-op. */
void blockcache_free(blockcache *bc);

/* Returns a pinned handle or NULL (a miss). Counts a hit or a miss. */
blockcache_handle *blockcache_lookup(blockcache *bc, uint64_t file_id, uint64_t offset);
/* Inserts value (replacing any entry with the same key) and returns a pinned handle to
 * it. The cache owns value from now on and calls deleter(value) once it is neither
 * cached nor pinned. Returns NULL only if out of memory (deleter is then called). */
blockcache_handle *blockcache_insert(blockcache *bc, uint64_t file_id, uint64_t offset,
                                     void *value, size_t charge, void (*deleter)(void *value));
void *blockcache_value(blockcache_handle *h);
void blockcache_release(blockcache *bc, blockcache_handle *h);
/* Drops every entry of a file (after the file is deleted). */
void blockcache_erase_file(blockcache *bc, uint64_t file_id);
void blockcache_get_stats(blockcache *bc, blockcache_stats *out);

/* A process-wide unique id for a newly opened file (cache keys never collide). */
uint64_t blockcache_new_file_id(void);

#endif
