/*
 * rest_scanners.c - the registry of open REST scanners (rest_scanners.h): a hash of ids,
 * an LRU list of idle and busy entries (most recently used first), a ring of recently
 * expired ids, and a reaper thread that expires idle scanners once a second.
 *
 * Closing a client scanner may send an RPC, so it is never done under the lock: entries
 * are unlinked under it and closed after.
 * Thread-safety: mu guards everything but an entry's request-owned fields (see the
 * header); lock order: mu is a leaf.
 */
#include "rest/rest_scanners.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/status.h"
#include "rest/rest_internal.h"

#define BUCKETS 4096
#define EXPIRED_RING 4096

struct rest_scanners {
    rest_server *s;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    rest_scanner *buckets[BUCKETS];
    rest_scanner *lru_head, *lru_tail;
    size_t count;
    char expired[EXPIRED_RING][REST_SCANNER_ID_LEN + 1];
    size_t expired_next;
    bool stopping;
    pthread_t reaper;
    bool reaper_started;
};

static size_t bucket_of(const char *id)
{
    size_t h = 5381;
    for (const char *p = id; *p; p++)
        h = h * 33 + (unsigned char)*p;
    return h % BUCKETS;
}

static void entry_close(rest_scanner *e)
{
    if (!e)
        return;
    strata_result_destroy(e->pending);
    strata_scanner_close(e->sc);
    free(e->table);
    free(e);
}

/* ---- the lists (mu held) ---- */

static void lru_unlink(rest_scanners *r, rest_scanner *e)
{
    if (e->lru_prev)
        e->lru_prev->lru_next = e->lru_next;
    else
        r->lru_head = e->lru_next;
    if (e->lru_next)
        e->lru_next->lru_prev = e->lru_prev;
    else
        r->lru_tail = e->lru_prev;
    e->lru_prev = e->lru_next = NULL;
}

static void lru_push_front(rest_scanners *r, rest_scanner *e)
{
    e->lru_prev = NULL;
    e->lru_next = r->lru_head;
    if (r->lru_head)
        r->lru_head->lru_prev = e;
    r->lru_head = e;
    if (!r->lru_tail)
        r->lru_tail = e;
}

static rest_scanner *find(rest_scanners *r, const char *id)
{
    for (rest_scanner *e = r->buckets[bucket_of(id)]; e; e = e->hnext)
        if (strcmp(e->id, id) == 0)
            return e;
    return NULL;
}

/* Removes e from the hash and the LRU list (mu held). */
static void unlink_entry(rest_scanners *r, rest_scanner *e)
{
    rest_scanner **pp = &r->buckets[bucket_of(e->id)];
    while (*pp && *pp != e)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = e->hnext;
    lru_unlink(r, e);
    r->count--;
}

static void remember_expired(rest_scanners *r, const char *id)
{
    snprintf(r->expired[r->expired_next], sizeof(r->expired[0]), "%s", id);
    r->expired_next = (r->expired_next + 1) % EXPIRED_RING;
}

static bool was_expired(rest_scanners *r, const char *id)
{
    for (size_t i = 0; i < EXPIRED_RING; i++)
        if (r->expired[i][0] && strcmp(r->expired[i], id) == 0)
            return true;
    return false;
}

/* Expires e (mu held): unlinked now; returned to be closed after the lock, or NULL when a
 * request holds it (closed when given back). */
static rest_scanner *expire(rest_scanners *r, rest_scanner *e)
{
    unlink_entry(r, e);
    remember_expired(r, e->id);
    atomic_fetch_add(&r->s->metrics.scanners_expired, 1);
    if (e->busy) {
        e->doomed = true;
        return NULL;
    }
    return e;
}

/* ---- the reaper ---- */

static void *reaper_main(void *arg)
{
    rest_scanners *r = arg;
    pthread_mutex_lock(&r->mu);
    while (!r->stopping) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += 1;
        pthread_cond_timedwait(&r->cv, &r->mu, &ts);
        if (r->stopping)
            break;
        int64_t cutoff = clock_now_ms() - r->s->set.scanner_idle_ms;
        rest_scanner *dead = NULL;
        /* the idle ones sit at the tail */
        for (rest_scanner *e = r->lru_tail; e;) {
            rest_scanner *prev = e->lru_prev;
            if (!e->busy && e->last_used_ms < cutoff) {
                LOG_DEBUG("rest: scanner %s of %s expired after %lld ms idle", e->id, e->table,
                          (long long)r->s->set.scanner_idle_ms);
                rest_scanner *x = expire(r, e);
                if (x) {
                    x->hnext = dead;
                    dead = x;
                }
            }
            e = prev;
        }
        pthread_mutex_unlock(&r->mu);
        while (dead) {
            rest_scanner *next = dead->hnext;
            entry_close(dead);
            dead = next;
        }
        pthread_mutex_lock(&r->mu);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

int rest_scanners_new(rest_server *s, rest_scanners **out)
{
    *out = NULL;
    rest_scanners *r = calloc(1, sizeof(*r));
    if (!r)
        return st_error(ST_NOMEM, "rest: out of memory");
    r->s = s;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    if (pthread_create(&r->reaper, NULL, reaper_main, r) != 0) {
        rest_scanners_free(r);
        return st_error(ST_INTERNAL, "rest: cannot start the scanner reaper");
    }
    r->reaper_started = true;
    *out = r;
    return ST_OK;
}

void rest_scanners_free(rest_scanners *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->mu);
    r->stopping = true;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    if (r->reaper_started)
        pthread_join(r->reaper, NULL);
    for (rest_scanner *e = r->lru_head; e;) {
        rest_scanner *next = e->lru_next;
        entry_close(e);
        e = next;
    }
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    free(r);
}

static void new_id(char *id)
{
    uint8_t raw[REST_SCANNER_ID_LEN / 2];
    if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw)) {
        /* no entropy source: the clock and a counter still make ids unique */
        static _Atomic uint64_t counter;
        uint64_t a = (uint64_t)clock_now_ms(), b = atomic_fetch_add(&counter, 1);
        memcpy(raw, &a, 8);
        memcpy(raw + 8, &b, sizeof(raw) - 8);
    }
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof(raw); i++) {
        id[2 * i] = hex[raw[i] >> 4];
        id[2 * i + 1] = hex[raw[i] & 15];
    }
    id[REST_SCANNER_ID_LEN] = '\0';
}

int rest_scanners_add(rest_scanners *r, const char *table, strata_scanner_t *sc, int32_t batch,
                      char *id)
{
    rest_scanner *e = calloc(1, sizeof(*e));
    if (!e || !(e->table = strdup(table))) {
        free(e);
        strata_scanner_close(sc);
        return st_error(ST_NOMEM, "rest: out of memory opening a scanner");
    }
    e->sc = sc;
    e->batch = batch;
    e->last_used_ms = clock_now_ms();
    rest_scanner *evicted = NULL;
    pthread_mutex_lock(&r->mu);
    do
        new_id(e->id);
    while (find(r, e->id));
    if (r->count >= r->s->set.max_scanners) {
        /* the least recently used idle one makes room */
        for (rest_scanner *x = r->lru_tail; x; x = x->lru_prev)
            if (!x->busy) {
                LOG_INFO("rest: scanner %s of %s expired early: %u scanners are open "
                         "(rest.scanner.max)",
                         x->id, x->table, r->s->set.max_scanners);
                evicted = expire(r, x);
                break;
            }
    }
    size_t b = bucket_of(e->id);
    e->hnext = r->buckets[b];
    r->buckets[b] = e;
    lru_push_front(r, e);
    r->count++;
    snprintf(id, REST_SCANNER_ID_LEN + 1, "%s", e->id);
    pthread_mutex_unlock(&r->mu);
    entry_close(evicted);
    return ST_OK;
}

rest_scanner *rest_scanners_take(rest_scanners *r, const char *table, const char *id,
                                 rest_scanner_lookup *why)
{
    pthread_mutex_lock(&r->mu);
    rest_scanner *e = find(r, id);
    rest_scanner_lookup w = REST_SCANNER_FOUND;
    if (!e)
        w = was_expired(r, id) ? REST_SCANNER_EXPIRED : REST_SCANNER_UNKNOWN;
    else if (strcmp(e->table, table) != 0)
        w = REST_SCANNER_OTHER_TABLE;
    else if (e->busy)
        w = REST_SCANNER_BUSY;
    if (w == REST_SCANNER_FOUND) {
        e->busy = true;
        e->last_used_ms = clock_now_ms();
        lru_unlink(r, e);
        lru_push_front(r, e);
    }
    pthread_mutex_unlock(&r->mu);
    *why = w;
    return w == REST_SCANNER_FOUND ? e : NULL;
}

void rest_scanners_give(rest_scanners *r, rest_scanner *e, bool done)
{
    pthread_mutex_lock(&r->mu);
    e->busy = false;
    e->last_used_ms = clock_now_ms();
    bool close = e->doomed;
    if (done && !e->doomed) {
        unlink_entry(r, e);
        close = true;
    }
    pthread_mutex_unlock(&r->mu);
    if (close)
        entry_close(e);
}

rest_scanner_lookup rest_scanners_delete(rest_scanners *r, const char *table, const char *id)
{
    pthread_mutex_lock(&r->mu);
    rest_scanner *e = find(r, id), *close = NULL;
    rest_scanner_lookup w = REST_SCANNER_FOUND;
    if (!e)
        w = was_expired(r, id) ? REST_SCANNER_EXPIRED : REST_SCANNER_UNKNOWN;
    else if (strcmp(e->table, table) != 0)
        w = REST_SCANNER_OTHER_TABLE;
    if (w == REST_SCANNER_FOUND) {
        unlink_entry(r, e);
        if (e->busy)
            e->doomed = true;
        else
            close = e;
    }
    pthread_mutex_unlock(&r->mu);
    entry_close(close);
    return w;
}

size_t rest_scanners_count(rest_scanners *r)
{
    pthread_mutex_lock(&r->mu);
    size_t n = r->count;
    pthread_mutex_unlock(&r->mu);
    return n;
}
