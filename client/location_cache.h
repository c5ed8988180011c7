/*
 * location_cache.h - the client's cache of where regions live, per table.
 *
 * Each table's cached regions are kept sorted by start key and never overlap. A row
 * is found by the floor rule of HBase's MetaCache: the entry with the greatest start
 * key <= row, valid only if row < its end key (an empty end key is unbounded; an
 * empty start key is the first region). A row in a gap between cached regions is a
 * miss, answered by the locator behind the cache.
 *
 * Inserting a region drops every cached region it overlaps, so a split parent goes
 * away as soon as one daughter is cached and a merged region replaces both parents.
 * The cache copies everything it is given. Lookups return a pinned, immutable entry
 * that stays valid after the cache replaces or drops it, until released.
 *
 * Which error calls for what (see client/retry.h): NotServingRegion drops the entry
 * (loccache_invalidate_entry); RegionMoved carries the new server
 * (loccache_update_server); a connection error drops every region of that server
 * (loccache_invalidate_server); RegionOpening and busy answers keep the entry.
 *
 * Thread-safety: every function is safe from any thread. One reader-writer lock
 * guards the whole cache (writer-preferring, so a stream of lookups cannot starve an
 * update); lookups share it. Entry reference counts are atomic.
 */
#ifndef STRATA_CLIENT_LOCATION_CACHE_H
#define STRATA_CLIENT_LOCATION_CACHE_H

#include <stddef.h>
#include <stdint.h>

typedef struct loccache loccache;

/* One region's location. Passed in, the pointers are the caller's and are copied;
 * returned by loccache_lookup, they belong to the pinned entry. */
typedef struct loccache_entry {
    const char *table;        /* "ns:table" or "table" */
    const char *region;       /* encoded region name */
    const uint8_t *start_key; /* empty (start_len 0): the table's first region */
    size_t start_len;
    const uint8_t *end_key; /* empty (end_len 0): the table's last region */
    size_t end_len;
    const char *host; /* the server holding the region */
    uint16_t port;
    int64_t start_code; /* the server's start code (which incarnation of host:port) */
    uint64_t seqnum;    /* the region's open sequence number, from meta */
} loccache_entry;

/* Returns an empty cache, or NULL if out of memory. */
loccache *loccache_new(void);
/* Frees the cache; entries still pinned by lookups stay valid until released.
 * NULL is a no-op. */
void loccache_free(loccache *c);

/* Finds the cached region of `table` holding row. On success sets *out to a pinned
 * entry the caller must give back with loccache_entry_release() and returns ST_OK;
 * on a miss sets *out to NULL and returns ST_NOT_FOUND. */
int loccache_lookup(loccache *c, const char *table, const uint8_t *row, size_t row_len,
                    const loccache_entry **out);
/* Unpins an entry from loccache_lookup. NULL is a no-op. */
void loccache_entry_release(const loccache_entry *e);

/* Caches a copy of e, first dropping every cached region of e->table that overlaps
 * [start, end). Returns ST_OK, ST_INVALID_ARGUMENT (missing table, region or host, or
 * a non-empty end key not above the start key) or ST_NOMEM; on failure the cache is
 * unchanged. */
int loccache_insert(loccache *c, const loccache_entry *e);

/* Drops the cached region of `table` holding row. ST_OK, or ST_NOT_FOUND if none. */
int loccache_invalidate(loccache *c, const char *table, const uint8_t *row, size_t row_len);
/* Drops the cached region that e describes (same table, start key and region name)
 * only if it still points at e's server (host, port and start code), so that a late
 * failure from an old server does not undo a newer location. e may be a pinned entry
 * or one built by the caller. ST_OK, or ST_NOT_FOUND if nothing matched. */
int loccache_invalidate_entry(loccache *c, const loccache_entry *e);
/* Drops every cached region, of every table, on host:port. Returns how many. */
size_t loccache_invalidate_server(loccache *c, const char *host, uint16_t port);
/* Points the cached region that `region` describes (same table, start key and region
 * name; its end key and server fields are not consulted) at a new server, keeping its keys. ST_OK,
 * ST_NOT_FOUND if that region is not cached, ST_INVALID_ARGUMENT or ST_NOMEM. Entries already
 * pinned keep the old server. */
int loccache_update_server(loccache *c, const loccache_entry *region, const char *host,
                           uint16_t port, int64_t start_code);
/* Drops every cached region of table. Returns how many. */
size_t loccache_clear_table(loccache *c, const char *table);

/* Number of cached regions of table, or of all tables if table is NULL. */
size_t loccache_count(loccache *c, const char *table);

#endif
