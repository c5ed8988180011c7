/*
 * location_cache.c - per-table sorted arrays of region locations (see location_cache.h).
 *
 * The cache holds a sorted array of tables (by name) and, per table, an array of
 * entries sorted by start key. Invariant: a table's entries never overlap, so they are
 * sorted by end key too, and "the entry holding row" is the floor by start key if row
 * is below its end. Lookups binary-search both arrays; inserts splice the array (a
 * memmove: regions per table are thousands at most, and lookups dominate).
 *
 * An entry is one allocation (lc_node) holding its strings and keys, immutable once
 * cached and reference counted: one reference while cached, one per pinned lookup.
 * Replacing or dropping an entry only drops the cache's reference; the node is freed
 * when the last reference goes, possibly by a reader after the cache moved on.
 *
 * Thread-safety: one pthread rwlock (writer-preferring) guards the table array and
 * every entry array: lookups and counts read-lock, every change write-locks. The
 * reference count is atomic, so a node may be released outside the lock. Leaf lock.
 */
#include "client/location_cache.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/status.h"

typedef struct lc_node {
    loccache_entry e; /* first, so a pinned entry pointer is its node */
    atomic_uint refs;
    char data[]; /* table, region, host (NUL-terminated), start key, end key */
} lc_node;

typedef struct lc_table {
    char *name;
    lc_node **v; /* sorted by start key, non-overlapping */
    size_t n, cap;
} lc_table;

struct loccache {
    pthread_rwlock_t lock;
    lc_table **tables; /* sorted by name */
    size_t ntables, cap;
};

/* ---- keys ---- */

/* Unsigned lexicographic order; the empty key sorts first. */
static int key_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
    size_t n = al < bl ? al : bl;
    int c = n ? memcmp(a, b, n) : 0;
    if (c)
        return c;
    return (al > bl) - (al < bl);
}

/* Whether key lies below e's end key (an empty end key is unbounded). */
static bool below_end(const loccache_entry *e, const uint8_t *key, size_t len)
{
    return e->end_len == 0 || key_cmp(key, len, e->end_key, e->end_len) < 0;
}

static bool same_region(const loccache_entry *a, const loccache_entry *b)
{
    return key_cmp(a->start_key, a->start_len, b->start_key, b->start_len) == 0 &&
           strcmp(a->region, b->region) == 0;
}

static bool same_server(const loccache_entry *a, const loccache_entry *b)
{
    return a->port == b->port && a->start_code == b->start_code && strcmp(a->host, b->host) == 0;
}

/* ---- nodes ---- */

/* Copies e (with its server replaced by host/port/start_code) into one new node with
 * a single reference. NULL if out of memory. */
static lc_node *node_new(const loccache_entry *e, const char *host, uint16_t port,
                         int64_t start_code)
{
    size_t tl = strlen(e->table) + 1, rl = strlen(e->region) + 1, hl = strlen(host) + 1;
    lc_node *nd = malloc(sizeof(*nd) + tl + rl + hl + e->start_len + e->end_len);
    if (!nd)
        return NULL;
    char *p = nd->data;
    nd->e = *e;
    nd->e.table = memcpy(p, e->table, tl);
    nd->e.region = memcpy(p += tl, e->region, rl);
    nd->e.host = memcpy(p += rl, host, hl);
    p += hl;
    nd->e.start_key = e->start_len ? memcpy(p, e->start_key, e->start_len) : (uint8_t *)p;
    p += e->start_len;
    nd->e.end_key = e->end_len ? memcpy(p, e->end_key, e->end_len) : (uint8_t *)p;
    nd->e.port = port;
    nd->e.start_code = start_code;
    atomic_init(&nd->refs, 1);
    return nd;
}

static void node_unref(lc_node *nd)
{
    if (atomic_fetch_sub_explicit(&nd->refs, 1, memory_order_acq_rel) == 1)
        free(nd);
}

void loccache_entry_release(const loccache_entry *e)
{
    if (e)
        node_unref((lc_node *)(uintptr_t)e);
}

/* Checks what names a region: table, region name and keys. */
static int region_check(const loccache_entry *e)
{
    if (!e || !e->table || !e->table[0] || !e->region)
        return st_error(ST_INVALID_ARGUMENT, "location cache: entry lacks a table or region name");
    if ((e->start_len && !e->start_key) || (e->end_len && !e->end_key))
        return st_error(ST_INVALID_ARGUMENT, "location cache: region %s has a NULL key", e->region);
    if (e->end_len && key_cmp(e->start_key, e->start_len, e->end_key, e->end_len) >= 0)
        return st_error(ST_INVALID_ARGUMENT,
                        "location cache: region %s of %s ends at or before its start key",
                        e->region, e->table);
    return ST_OK;
}

/* Checks a whole entry: the region and its server. */
static int entry_check(const loccache_entry *e)
{
    int rc = region_check(e);
    if (rc == ST_OK && !e->host)
        rc = st_error(ST_INVALID_ARGUMENT, "location cache: region %s of %s lacks a host",
                      e->region, e->table);
    return rc;
}

/* ---- tables (lock held) ---- */

/* Index of the first table whose name is >= name. */
static size_t table_pos(const loccache *c, const char *name)
{
    size_t lo = 0, hi = c->ntables;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(c->tables[mid]->name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static lc_table *table_find(const loccache *c, const char *name)
{
    size_t i = table_pos(c, name);
    return i < c->ntables && strcmp(c->tables[i]->name, name) == 0 ? c->tables[i] : NULL;
}

/* Finds or creates the table; NULL if out of memory. */
static lc_table *table_get(loccache *c, const char *name)
{
    size_t i = table_pos(c, name);
    if (i < c->ntables && strcmp(c->tables[i]->name, name) == 0)
        return c->tables[i];
    if (c->ntables == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 8;
        lc_table **t = realloc(c->tables, cap * sizeof(*t));
        if (!t)
            return NULL;
        c->tables = t;
        c->cap = cap;
    }
    lc_table *t = calloc(1, sizeof(*t));
    if (t && !(t->name = strdup(name))) {
        free(t);
        t = NULL;
    }
    if (!t)
        return NULL;
    memmove(&c->tables[i + 1], &c->tables[i], (c->ntables - i) * sizeof(*c->tables));
    c->tables[i] = t;
    c->ntables++;
    return t;
}

static void table_free(lc_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        node_unref(t->v[i]);
    free(t->v);
    free(t->name);
    free(t);
}

/* ---- entries within a table (lock held) ---- */

/* Number of entries whose start key is <= key (the floor is this minus one). */
static size_t floor_end(const lc_table *t, const uint8_t *key, size_t len)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const loccache_entry *e = &t->v[mid]->e;
        if (key_cmp(e->start_key, e->start_len, key, len) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Index of the entry holding key, or -1. */
static ptrdiff_t holder(const lc_table *t, const uint8_t *key, size_t len)
{
    size_t f = floor_end(t, key, len);
    if (f == 0 || !below_end(&t->v[f - 1]->e, key, len))
        return -1;
    return (ptrdiff_t)f - 1;
}

/* Index of the entry with e's start key and region name, or -1. */
static ptrdiff_t region_index(const lc_table *t, const loccache_entry *e)
{
    size_t f = floor_end(t, e->start_key, e->start_len);
    if (f == 0 || !same_region(&t->v[f - 1]->e, e))
        return -1;
    return (ptrdiff_t)f - 1;
}

static void remove_at(lc_table *t, size_t i)
{
    node_unref(t->v[i]);
    memmove(&t->v[i], &t->v[i + 1], (t->n - i - 1) * sizeof(*t->v));
    t->n--;
}

/* Replaces the entries [first, last) with nd; capacity for one more is ensured. */
static void splice(lc_table *t, size_t first, size_t last, lc_node *nd)
{
    for (size_t i = first; i < last; i++)
        node_unref(t->v[i]);
    memmove(&t->v[first + 1], &t->v[last], (t->n - last) * sizeof(*t->v));
    t->v[first] = nd;
    t->n = t->n - (last - first) + 1;
}

static int table_reserve(lc_table *t)
{
    if (t->n < t->cap)
        return ST_OK;
    size_t cap = t->cap ? t->cap * 2 : 16;
    lc_node **v = realloc(t->v, cap * sizeof(*v));
    if (!v)
        return ST_NOMEM;
    t->v = v;
    t->cap = cap;
    return ST_OK;
}

/* Puts nd in place of every entry it overlaps. */
static void table_put(lc_table *t, lc_node *nd)
{
    const loccache_entry *e = &nd->e;
    size_t first = floor_end(t, e->start_key, e->start_len);
    if (first > 0 && below_end(&t->v[first - 1]->e, e->start_key, e->start_len))
        first--;
    size_t last = first;
    while (last < t->n &&
           (e->end_len == 0 ||
            key_cmp(t->v[last]->e.start_key, t->v[last]->e.start_len, e->end_key, e->end_len) < 0))
        last++;
    splice(t, first, last, nd);
}

/* ---- public ---- */

loccache *loccache_new(void)
{
    loccache *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    int rc = pthread_rwlock_init(&c->lock, &attr);
    pthread_rwlockattr_destroy(&attr);
    if (rc != 0) {
        free(c);
        return NULL;
    }
    return c;
}

void loccache_free(loccache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->ntables; i++)
        table_free(c->tables[i]);
    free(c->tables);
    pthread_rwlock_destroy(&c->lock);
    free(c);
}

int loccache_lookup(loccache *c, const char *table, const uint8_t *row, size_t row_len,
                    const loccache_entry **out)
{
    lc_node *nd = NULL;
    pthread_rwlock_rdlock(&c->lock);
    const lc_table *t = table_find(c, table);
    ptrdiff_t i = t ? holder(t, row, row_len) : -1;
    if (i >= 0) {
        nd = t->v[i];
        atomic_fetch_add_explicit(&nd->refs, 1, memory_order_relaxed);
    }
    pthread_rwlock_unlock(&c->lock);
    *out = nd ? &nd->e : NULL;
    if (!nd)
        return st_error(ST_NOT_FOUND, "location cache: no region of %s cached for a %zu-byte row",
                        table, row_len);
    return ST_OK;
}

int loccache_insert(loccache *c, const loccache_entry *e)
{
    int rc = entry_check(e);
    if (rc != ST_OK)
        return rc;
    lc_node *nd = node_new(e, e->host, e->port, e->start_code);
    if (!nd)
        return st_error(ST_NOMEM, "location cache: no memory for region %s", e->region);
    pthread_rwlock_wrlock(&c->lock);
    lc_table *t = table_get(c, e->table);
    rc = t ? table_reserve(t) : ST_NOMEM;
    if (rc == ST_OK)
        table_put(t, nd);
    pthread_rwlock_unlock(&c->lock);
    if (rc != ST_OK) {
        node_unref(nd);
        return st_error(rc, "location cache: no memory for region %s of %s", e->region, e->table);
    }
    return ST_OK;
}

int loccache_invalidate(loccache *c, const char *table, const uint8_t *row, size_t row_len)
{
    pthread_rwlock_wrlock(&c->lock);
    lc_table *t = table_find(c, table);
    ptrdiff_t i = t ? holder(t, row, row_len) : -1;
    if (i >= 0)
        remove_at(t, (size_t)i);
    pthread_rwlock_unlock(&c->lock);
    if (i < 0)
        return st_error(ST_NOT_FOUND, "location cache: no region of %s cached for a %zu-byte row",
                        table, row_len);
    return ST_OK;
}

int loccache_invalidate_entry(loccache *c, const loccache_entry *e)
{
    int rc = entry_check(e);
    if (rc != ST_OK)
        return rc;
    pthread_rwlock_wrlock(&c->lock);
    lc_table *t = table_find(c, e->table);
    ptrdiff_t i = t ? region_index(t, e) : -1;
    if (i >= 0 && !same_server(&t->v[i]->e, e))
        i = -1;
    if (i >= 0)
        remove_at(t, (size_t)i);
    pthread_rwlock_unlock(&c->lock);
    if (i < 0)
        return st_error(ST_NOT_FOUND, "location cache: region %s of %s on %s:%u is not cached",
                        e->region, e->table, e->host, (unsigned)e->port);
    return ST_OK;
}

/* Drops the entries of t on host:port; returns how many. */
static size_t table_drop_server(lc_table *t, const char *host, uint16_t port)
{
    size_t kept = 0;
    for (size_t i = 0; i < t->n; i++) {
        lc_node *nd = t->v[i];
        if (nd->e.port == port && strcmp(nd->e.host, host) == 0)
            node_unref(nd);
        else
            t->v[kept++] = nd;
    }
    size_t dropped = t->n - kept;
    t->n = kept;
    return dropped;
}

size_t loccache_invalidate_server(loccache *c, const char *host, uint16_t port)
{
    size_t dropped = 0;
    pthread_rwlock_wrlock(&c->lock);
    for (size_t i = 0; i < c->ntables; i++)
        dropped += table_drop_server(c->tables[i], host, port);
    pthread_rwlock_unlock(&c->lock);
    LOG_DEBUG("location cache: dropped %zu regions on %s:%u", dropped, host, (unsigned)port);
    return dropped;
}

int loccache_update_server(loccache *c, const loccache_entry *region, const char *host,
                           uint16_t port, int64_t start_code)
{
    int rc = region_check(region);
    if (rc == ST_OK && !host)
        rc = st_error(ST_INVALID_ARGUMENT, "location cache: move of %s lacks a host",
                      region->region);
    if (rc != ST_OK)
        return rc;
    lc_node *nd = NULL;
    pthread_rwlock_wrlock(&c->lock);
    lc_table *t = table_find(c, region->table);
    ptrdiff_t i = t ? region_index(t, region) : -1;
    if (i >= 0 && (nd = node_new(&t->v[i]->e, host, port, start_code)) != NULL) {
        node_unref(t->v[i]);
        t->v[i] = nd;
    }
    pthread_rwlock_unlock(&c->lock);
    if (i < 0)
        return st_error(ST_NOT_FOUND, "location cache: moved region %s of %s is not cached",
                        region->region, region->table);
    if (!nd)
        return st_error(ST_NOMEM, "location cache: no memory to move region %s", region->region);
    LOG_DEBUG("location cache: region %s of %s moved to %s:%u", region->region, region->table, host,
              (unsigned)port);
    return ST_OK;
}

size_t loccache_clear_table(loccache *c, const char *table)
{
    size_t dropped = 0;
    pthread_rwlock_wrlock(&c->lock);
    size_t i = table_pos(c, table);
    if (i < c->ntables && strcmp(c->tables[i]->name, table) == 0) {
        dropped = c->tables[i]->n;
        table_free(c->tables[i]);
        memmove(&c->tables[i], &c->tables[i + 1], (c->ntables - i - 1) * sizeof(*c->tables));
        c->ntables--;
    }
    pthread_rwlock_unlock(&c->lock);
    return dropped;
}

size_t loccache_count(loccache *c, const char *table)
{
    size_t n = 0;
    pthread_rwlock_rdlock(&c->lock);
    for (size_t i = 0; i < c->ntables; i++)
        if (!table || strcmp(c->tables[i]->name, table) == 0)
            n += c->tables[i]->n;
    pthread_rwlock_unlock(&c->lock);
    return n;
}
