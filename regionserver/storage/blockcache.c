/*
 * blockcache.c - sharded LRU cache of decoded blocks (see blockcache.h).
 *
 * Each shard has a mutex, a chained hash table of its cached entries and one LRU list
 * per priority (head.next is the oldest, head.prev the newest). The byte budget is
 * strict: inserting evicts entries until usage <= the shard's capacity, pinned or not,
 * choosing each victim with victim(): the oldest in-memory entry while in-memory entries
 * hold more than the shard's mem_capacity (or no normal entry is left), else the oldest
 * normal entry. A lookup moves an entry to the newest end of its own list. An entry
 * carries a reference count: one reference while it is cached and one
 * per handle. An evicted, erased or replaced entry leaves the table and the list at
 * once but stays alive until its last handle is released; the deleter runs exactly
 * once, when the count reaches zero, outside the shard lock.
 *
 * Entry states (function behind each transition):
 *
 *   insert ---> CACHED (refs = 1 + handles) --evict/erase/replace--> DETACHED
 *                  |  lookup/release change handles                  | (refs = handles)
 *                  |                                                 | release of the
 *                  +-- blockcache_free (refs 1 -> 0) --> deleted     | last handle
 *                                                                    v
 *                                                                 deleted
 *
 * An entry whose charge exceeds the shard capacity is never cached (capacity 0
 * caches nothing): insert returns a DETACHED handle. Stats: hits and misses count
 * lookups, inserts count entries placed in the cache, evictions count entries the
 * budget pushed out (not erase or replace); usage and count are kept per priority.
 *
 * Thread-safety: every function is safe from any thread. Lock order: one shard
 * mutex at a time (a leaf lock); deleters run with no lock held.
 */
#include "regionserver/storage/blockcache.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/log.h"

#define DEFAULT_SHARDS 16
#define NPRIO 2 /* blockcache_priority values */

typedef struct bc_shard bc_shard;

typedef struct bc_entry {
    uint64_t file_id;
    uint64_t offset;
    uint64_t hash;
    void *value;
    size_t charge;
    void (*deleter)(void *value);
    uint32_t refs;
    uint8_t prio; /* blockcache_priority */
    bool in_cache;
    bc_shard *shard;
    struct bc_entry *next_hash;
    struct bc_entry *prev, *next; /* LRU links while in_cache */
} bc_entry;

struct bc_shard {
    pthread_mutex_t lock;
    size_t capacity;
    size_t mem_capacity; /* in-memory entries' share of capacity */
    size_t usage;        /* all priorities */
    size_t prio_usage[NPRIO];
    size_t prio_count[NPRIO];
    bc_entry **table;
    size_t buckets; /* a power of two */
    size_t count;   /* all priorities */
    bc_entry lru[NPRIO]; /* list heads */
    uint64_t hits, misses, inserts, evictions;
};

struct blockcache {
    bc_shard *shards;
    int nshards;
    size_t capacity;
    size_t mem_capacity;
};

static atomic_uint_fast64_t next_file_id = 1;

uint64_t blockcache_new_file_id(void)
{
    return atomic_fetch_add(&next_file_id, 1);
}

static uint64_t key_hash(uint64_t file_id, uint64_t offset)
{
    uint64_t h = file_id * 0x9e3779b97f4a7c15ULL ^ offset;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

/* ---- list and table helpers (shard lock held) ---- */

static void lru_remove(bc_entry *e)
{
    e->prev->next = e->next;
    e->next->prev = e->prev;
    e->prev = e->next = NULL;
}

static void lru_append(bc_shard *s, bc_entry *e)
{
    bc_entry *head = &s->lru[e->prio];
    e->next = head;
    e->prev = head->prev;
    e->prev->next = e;
    head->prev = e;
}

/* The oldest entry of a priority's list, or NULL if it is empty. */
static bc_entry *lru_oldest(bc_shard *s, int prio)
{
    bc_entry *head = &s->lru[prio];
    return head->next != head ? head->next : NULL;
}

static bc_entry **table_slot(bc_shard *s, uint64_t hash, uint64_t file_id, uint64_t offset)
{
    bc_entry **p = &s->table[hash & (s->buckets - 1)];
    while (*p && ((*p)->file_id != file_id || (*p)->offset != offset))
        p = &(*p)->next_hash;
    return p;
}

/* Doubles the table when it is full; on allocation failure chains just grow longer. */
static void table_grow(bc_shard *s)
{
    if (s->count < s->buckets)
        return;
    size_t nb = s->buckets * 2;
    bc_entry **t = calloc(nb, sizeof(*t));
    if (!t)
        return;
    for (size_t i = 0; i < s->buckets; i++) {
        bc_entry *e = s->table[i];
        while (e) {
            bc_entry *next = e->next_hash;
            e->next_hash = t[e->hash & (nb - 1)];
            t[e->hash & (nb - 1)] = e;
            e = next;
        }
    }
    free(s->table);
    s->table = t;
    s->buckets = nb;
}

/* Takes e (cached) out of the table and list; drops the cache's reference and links e
 * into *dead when that was the last. */
static void detach(bc_shard *s, bc_entry *e, bc_entry **dead)
{
    bc_entry **slot = table_slot(s, e->hash, e->file_id, e->offset);
    *slot = e->next_hash;
    e->next_hash = NULL;
    lru_remove(e);
    e->in_cache = false;
    s->usage -= e->charge;
    s->count--;
    s->prio_usage[e->prio] -= e->charge;
    s->prio_count[e->prio]--;
    if (--e->refs == 0) {
        e->next_hash = *dead;
        *dead = e;
    }
}

static void delete_all(bc_entry *dead)
{
    while (dead) {
        bc_entry *next = dead->next_hash;
        dead->deleter(dead->value);
        free(dead);
        dead = next;
    }
}

/* ---- lifecycle ---- */

static int shard_init(bc_shard *s, size_t capacity, size_t mem_capacity)
{
    s->capacity = capacity;
    s->mem_capacity = mem_capacity;
    s->buckets = 16;
    s->table = calloc(s->buckets, sizeof(*s->table));
    if (!s->table)
        return -1;
    for (int p = 0; p < NPRIO; p++)
        s->lru[p].next = s->lru[p].prev = &s->lru[p];
    pthread_mutex_init(&s->lock, NULL);
    return 0;
}

static double clamp_share(double share)
{
    if (isnan(share))
        return BLOCKCACHE_MEMORY_SHARE_DEFAULT;
    return share < 0 ? 0 : share > 1 ? 1 : share;
}

blockcache *blockcache_new(size_t capacity_bytes, int shards)
{
    return blockcache_new_with_memory_share(capacity_bytes, shards,
                                            BLOCKCACHE_MEMORY_SHARE_DEFAULT);
}

blockcache *blockcache_new_with_memory_share(size_t capacity_bytes, int shards,
                                             double memory_share)
{
    int n = shards > 0 ? shards : DEFAULT_SHARDS;
    blockcache *bc = calloc(1, sizeof(*bc));
    if (!bc)
        return NULL;
    bc->shards = calloc((size_t)n, sizeof(*bc->shards));
    if (!bc->shards) {
        free(bc);
        return NULL;
    }
    bc->capacity = capacity_bytes;
    size_t per = capacity_bytes / (size_t)n + (capacity_bytes % (size_t)n != 0);
    size_t mem_per = (size_t)((double)per * clamp_share(memory_share));
    bc->mem_capacity = mem_per * (size_t)n;
    for (bc->nshards = 0; bc->nshards < n; bc->nshards++) {
        if (shard_init(&bc->shards[bc->nshards], per, mem_per) != 0) {
            blockcache_free(bc);
            return NULL;
        }
    }
    return bc;
}

void blockcache_free(blockcache *bc)
{
    if (!bc)
        return;
    for (int i = 0; i < bc->nshards; i++) {
        bc_shard *s = &bc->shards[i];
        bc_entry *dead = NULL;
        size_t pinned = 0;
        for (int p = 0; p < NPRIO; p++) {
            bc_entry *e;
            while ((e = lru_oldest(s, p))) {
                pinned += e->refs > 1;
                detach(s, e, &dead);
            }
        }
        if (pinned)
            LOG_ERROR("block cache freed with %zu entries still pinned", pinned);
        delete_all(dead);
        free(s->table);
        pthread_mutex_destroy(&s->lock);
    }
    free(bc->shards);
    free(bc);
}

/* ---- operations ---- */

static bc_shard *shard_of(blockcache *bc, uint64_t hash)
{
    return &bc->shards[(hash >> 40) % (uint64_t)bc->nshards];
}

blockcache_handle *blockcache_lookup(blockcache *bc, uint64_t file_id, uint64_t offset)
{
    uint64_t h = key_hash(file_id, offset);
    bc_shard *s = shard_of(bc, h);
    pthread_mutex_lock(&s->lock);
    bc_entry *e = *table_slot(s, h, file_id, offset);
    if (e) {
        e->refs++;
        lru_remove(e);
        lru_append(s, e);
        s->hits++;
    } else {
        s->misses++;
    }
    pthread_mutex_unlock(&s->lock);
    return (blockcache_handle *)e;
}

/* The entry the budget pushes out next (see top), or NULL if the shard is empty. */
static bc_entry *victim(bc_shard *s)
{
    bc_entry *mem = lru_oldest(s, BLOCKCACHE_PRIORITY_IN_MEMORY);
    bc_entry *normal = lru_oldest(s, BLOCKCACHE_PRIORITY_NORMAL);
    if (mem && (!normal || s->prio_usage[BLOCKCACHE_PRIORITY_IN_MEMORY] > s->mem_capacity))
        return mem;
    return normal;
}

/* Evicts entries until usage fits the capacity (shard lock held). */
static void evict_locked(bc_shard *s, bc_entry **dead)
{
    bc_entry *e;
    while (s->usage > s->capacity && (e = victim(s))) {
        detach(s, e, dead);
        s->evictions++;
    }
}

blockcache_handle *blockcache_insert(blockcache *bc, uint64_t file_id, uint64_t offset, void *value,
                                     size_t charge, void (*deleter)(void *value))
{
    return blockcache_insert_priority(bc, file_id, offset, value, charge, deleter,
                                      BLOCKCACHE_PRIORITY_NORMAL);
}

blockcache_handle *blockcache_insert_priority(blockcache *bc, uint64_t file_id, uint64_t offset,
                                              void *value, size_t charge,
                                              void (*deleter)(void *value),
                                              blockcache_priority priority)
{
    bc_entry *e = calloc(1, sizeof(*e));
    if (!e) {
        deleter(value);
        return NULL;
    }
    uint64_t h = key_hash(file_id, offset);
    bc_shard *s = shard_of(bc, h);
    *e = (bc_entry){.file_id = file_id,
                    .offset = offset,
                    .hash = h,
                    .value = value,
                    .charge = charge,
                    .deleter = deleter,
                    .refs = 1,
                    .prio = priority == BLOCKCACHE_PRIORITY_IN_MEMORY
                                ? BLOCKCACHE_PRIORITY_IN_MEMORY
                                : BLOCKCACHE_PRIORITY_NORMAL,
                    .shard = s};
    bc_entry *dead = NULL;
    pthread_mutex_lock(&s->lock);
    if (charge <= s->capacity) {
        bc_entry *old = *table_slot(s, h, file_id, offset);
        if (old)
            detach(s, old, &dead);
        e->refs++; /* the cache's reference */
        e->in_cache = true;
        e->next_hash = s->table[h & (s->buckets - 1)];
        s->table[h & (s->buckets - 1)] = e;
        lru_append(s, e);
        s->usage += charge;
        s->count++;
        s->prio_usage[e->prio] += charge;
        s->prio_count[e->prio]++;
        s->inserts++;
        evict_locked(s, &dead);
        table_grow(s);
    }
    pthread_mutex_unlock(&s->lock);
    delete_all(dead);
    return (blockcache_handle *)e;
}

void *blockcache_value(blockcache_handle *h)
{
    return ((bc_entry *)h)->value;
}

void blockcache_release(blockcache *bc, blockcache_handle *h)
{
    (void)bc;
    bc_entry *e = (bc_entry *)h;
    bc_shard *s = e->shard;
    pthread_mutex_lock(&s->lock);
    bool last = --e->refs == 0;
    pthread_mutex_unlock(&s->lock);
    if (last) {
        e->deleter(e->value);
        free(e);
    }
}

void blockcache_erase_file(blockcache *bc, uint64_t file_id)
{
    for (int i = 0; i < bc->nshards; i++) {
        bc_shard *s = &bc->shards[i];
        bc_entry *dead = NULL;
        pthread_mutex_lock(&s->lock);
        for (int p = 0; p < NPRIO; p++) {
            bc_entry *e = s->lru[p].next;
            while (e != &s->lru[p]) {
                bc_entry *next = e->next;
                if (e->file_id == file_id)
                    detach(s, e, &dead);
                e = next;
            }
        }
        pthread_mutex_unlock(&s->lock);
        delete_all(dead);
    }
}

void blockcache_get_stats(blockcache *bc, blockcache_stats *out)
{
    *out = (blockcache_stats){.capacity = bc->capacity, .memory_capacity = bc->mem_capacity};
    for (int i = 0; i < bc->nshards; i++) {
        bc_shard *s = &bc->shards[i];
        pthread_mutex_lock(&s->lock);
        out->hits += s->hits;
        out->misses += s->misses;
        out->inserts += s->inserts;
        out->evictions += s->evictions;
        out->usage += s->usage;
        out->entries += s->count;
        out->memory_usage += s->prio_usage[BLOCKCACHE_PRIORITY_IN_MEMORY];
        out->memory_entries += s->prio_count[BLOCKCACHE_PRIORITY_IN_MEMORY];
        pthread_mutex_unlock(&s->lock);
    }
}
