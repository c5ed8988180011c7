/*
 * moved_hint.c - following RegionMoved hints (docs/rpc.md "RegionMoved hints";
 * docs/client.md "Moved regions"): a region server that closed a region for a move,
 * split or merge answers ST_REGION_MOVED with where the region went. The client caches
 * the hinted regions (inserting drops the overlapping entries, so a split parent gives way
 * to its daughters and merged parents to the merged region) and retries at once, without
 * a backoff step and without asking the master.
 *
 * The destination may not have finished opening: for MOVED_QUICK_WINDOW_MS after a hint,
 * a NOT_SERVING / REGION_OPENING answer from a server the hint named is retried every
 * MOVED_QUICK_PAUSE_MS at the same cached location; past the window (or from any other
 * server) the usual path runs: the entry is dropped and the master asked, with backoff.
 * At most MOVED_MAX_IMMEDIATE hints are followed at once per operation, so servers that
 * point at each other cannot spin a caller.
 *
 * Thread-safety: a moved_follow belongs to one operation; the cache and the counters are
 * thread-safe.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client_internal.h"
#include "common/clock.h"
#include "common/status.h"

#define NS_PER_MS 1000000ull

void moved_follow_init(moved_follow *f)
{
    memset(f, 0, sizeof(*f));
}

static int region_from_msg(const char *table, const Strata__Client__MovedRegion *m,
                           locator_region *out)
{
    memset(out, 0, sizeof(*out));
    if (!m->encoded_name || !m->encoded_name[0] || !m->host || !m->host[0] || !m->port ||
        m->port > 65535)
        return st_error(ST_PROTOCOL, "moved hint for table %s: a region without a name or "
                        "server", table);
    out->table = strdup(table);
    out->encoded_name = strdup(m->encoded_name);
    out->host = strdup(m->host);
    out->start_key = m->start_key.len ? malloc(m->start_key.len) : NULL;
    out->end_key = m->end_key.len ? malloc(m->end_key.len) : NULL;
    if (!out->table || !out->encoded_name || !out->host || (m->start_key.len && !out->start_key) ||
        (m->end_key.len && !out->end_key)) {
        locator_region_clear(out);
        return st_error(ST_NOMEM, "client: out of memory");
    }
    if (m->start_key.len)
        memcpy(out->start_key, m->start_key.data, m->start_key.len);
    if (m->end_key.len)
        memcpy(out->end_key, m->end_key.data, m->end_key.len);
    out->start_len = m->start_key.len;
    out->end_len = m->end_key.len;
    out->port = (uint16_t)m->port;
    out->start_code = m->has_start_code ? m->start_code : 0;
    return ST_OK;
}

int moved_hint_decode_msg(const char *table, const Strata__Client__RegionMovedHint *h,
                          locator_region **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!h || h->n_region == 0)
        return st_error(ST_PROTOCOL, "moved hint for table %s names no region", table);
    locator_region *v = calloc(h->n_region, sizeof(*v));
    if (!v)
        return st_error(ST_NOMEM, "client: out of memory");
    int rc = ST_OK;
    size_t k = 0;
    for (; rc == ST_OK && k < h->n_region; k++)
        rc = region_from_msg(table, h->region[k], &v[k]);
    if (rc != ST_OK) {
        locator_regions_free(v, k - 1);
        return rc;
    }
    *out = v;
    *n = k;
    return ST_OK;
}

int moved_hint_decode(const char *table, const uint8_t *hint, size_t len, locator_region **out,
                      size_t *n)
{
    *out = NULL;
    *n = 0;
    Strata__Client__RegionMovedHint *h = strata__client__region_moved_hint__unpack(NULL, len, hint);
    if (!h)
        return st_error(ST_PROTOCOL, "undecodable moved hint for table %s (%zu bytes)", table,
                        len);
    int rc = moved_hint_decode_msg(table, h, out, n);
    strata__client__region_moved_hint__free_unpacked(h, NULL);
    return rc;
}

static bool hinted_server(const moved_follow *f, const char *addr)
{
    size_t n = f->nservers < MOVED_MAX_SERVERS ? f->nservers : MOVED_MAX_SERVERS;
    for (size_t i = 0; addr && i < n; i++)
        if (strcmp(f->servers[i], addr) == 0)
            return true;
    return false;
}

/* Caches decoded hinted regions v[0..n) and notes their servers in f (may be NULL).
 * ST_OK if any was cached. */
static int cache_hinted(strata_client_t *c, const locator_region *v, size_t n, moved_follow *f)
{
    size_t cached = 0;
    for (size_t i = 0; i < n; i++) {
        const locator_region *r = &v[i];
        if (client_cache_region(c, r) != ST_OK)
            continue;
        cached++;
        char addr[300];
        snprintf(addr, sizeof(addr), "%s:%u", r->host, (unsigned)r->port);
        if (f && !hinted_server(f, addr)) /* the newest servers replace the oldest */
            snprintf(f->servers[f->nservers++ % MOVED_MAX_SERVERS], sizeof(f->servers[0]), "%s",
                     addr);
    }
    if (!cached)
        return st_error(ST_NOT_SERVING, "moved hint for table %s: no region could be cached",
                        n ? v[0].table : "?");
    atomic_fetch_add(&c->moved_followed, 1);
    if (f)
        f->window_end_ns = clock_mono_ns() + (uint64_t)MOVED_QUICK_WINDOW_MS * NS_PER_MS;
    return ST_OK;
}

int moved_hint_apply_msg(strata_client_t *c, const char *table,
                         const Strata__Client__RegionMovedHint *h, moved_follow *f)
{
    uint64_t issued = h && h->has_issued_ms ? h->issued_ms : 0;
    if (f && issued && issued < f->newest_ms)
        return st_error(ST_NOT_SERVING,
                        "moved hint for table %s is older than one followed (%llu < %llu ms)",
                        table, (unsigned long long)issued, (unsigned long long)f->newest_ms);
    locator_region *v = NULL;
    size_t n = 0;
    int rc = moved_hint_decode_msg(table, h, &v, &n);
    if (rc == ST_OK)
        rc = cache_hinted(c, v, n, f);
    locator_regions_free(v, n);
    if (rc == ST_OK && f && issued > f->newest_ms)
        f->newest_ms = issued;
    return rc;
}

int moved_hint_apply(strata_client_t *c, const char *table, const uint8_t *hint, size_t len,
                     moved_follow *f)
{
    Strata__Client__RegionMovedHint *h = strata__client__region_moved_hint__unpack(NULL, len, hint);
    if (!h)
        return st_error(ST_PROTOCOL, "undecodable moved hint for table %s (%zu bytes)", table,
                        len);
    int rc = moved_hint_apply_msg(c, table, h, f);
    strata__client__region_moved_hint__free_unpacked(h, NULL);
    return rc;
}

bool moved_follow_retry(moved_follow *f, const char *addr, int status, bool hinted,
                        int64_t *pause_ms)
{
    *pause_ms = 0;
    if (status == ST_REGION_MOVED)
        return hinted;
    if (status != ST_NOT_SERVING && status != ST_REGION_OPENING)
        return false;
    if (!f->window_end_ns || clock_mono_ns() >= f->window_end_ns || !hinted_server(f, addr))
        return false;
    *pause_ms = MOVED_QUICK_PAUSE_MS;
    return true;
}

bool moved_follow_step(moved_follow *f, const retry_state *r)
{
    return retry_remaining_ms(r) != 0 && f->immediate++ < MOVED_MAX_IMMEDIATE;
}

bool client_moved_retry(strata_client_t *c, const char *table, moved_follow *f,
                        const loccache_entry *e, int status, rpc_result *res, const retry_state *r)
{
    char addr[300] = "";
    bool hinted = status == ST_REGION_MOVED && res->hint.len &&
                  moved_hint_apply(c, table, res->hint.data, res->hint.len, f) == ST_OK;
    buf_free(&res->hint);
    int64_t pause = 0;
    if (e)
        snprintf(addr, sizeof(addr), "%s:%u", e->host, (unsigned)e->port);
    if (!e || !moved_follow_retry(f, addr, status, hinted, &pause) || !moved_follow_step(f, r))
        return false;
    if (pause)
        clock_sleep_ms(pause);
    return true;
}

uint64_t client_moved_hints_followed(strata_client_t *c)
{
    return atomic_load(&c->moved_followed);
}

uint64_t client_locator_lookups(strata_client_t *c)
{
    return atomic_load(&c->locator_lookups);
}
