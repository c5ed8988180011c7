/*
 * rs_moved.c - the moved-regions map of rs_moved.h: a small array of (encoded name,
 * expiry, packed hint), searched linearly (it holds the regions closed here in the last
 * two minutes, a handful in practice, bounded by max).
 *
 * Thread-safety: mu guards everything; a leaf lock.
 */
#include "regionserver/rs_moved.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"

#define NS_PER_MS 1000000ull

typedef struct moved_entry {
    char *name;
    uint64_t expires_ns;
    buf_t hint;
} moved_entry;

struct rs_moved {
    pthread_mutex_t mu;
    moved_entry *v;
    size_t n, max;
    uint64_t ttl_ns;
};

rs_moved *rs_moved_new(size_t max, int64_t ttl_ms)
{
    rs_moved *m = calloc(1, sizeof(*m));
    if (!m || !(m->v = calloc(max ? max : 1, sizeof(*m->v)))) {
        free(m);
        return NULL;
    }
    pthread_mutex_init(&m->mu, NULL);
    m->max = max ? max : 1;
    m->ttl_ns = (uint64_t)(ttl_ms > 0 ? ttl_ms : 0) * NS_PER_MS;
    return m;
}

static void drop_at(rs_moved *m, size_t i)
{
    free(m->v[i].name);
    buf_free(&m->v[i].hint);
    m->v[i] = m->v[--m->n];
    memset(&m->v[m->n], 0, sizeof(m->v[m->n]));
}

void rs_moved_free(rs_moved *m)
{
    if (!m)
        return;
    while (m->n)
        drop_at(m, m->n - 1);
    free(m->v);
    pthread_mutex_destroy(&m->mu);
    free(m);
}

/* Under mu. */
static size_t find(const rs_moved *m, const char *name)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->v[i].name, name) == 0)
            return i;
    return SIZE_MAX;
}

/* Under mu. */
static void prune_locked(rs_moved *m, uint64_t now_ns)
{
    for (size_t i = m->n; i-- > 0;)
        if (m->v[i].expires_ns <= now_ns)
            drop_at(m, i);
}

/* Under mu: the entry that expires first (the oldest put). */
static size_t oldest(const rs_moved *m)
{
    size_t o = 0;
    for (size_t i = 1; i < m->n; i++)
        if (m->v[i].expires_ns < m->v[o].expires_ns)
            o = i;
    return o;
}

int rs_moved_put(rs_moved *m, const char *name, const uint8_t *hint, size_t len, uint64_t now_ns)
{
    if (!name || !name[0] || !hint || !len)
        return st_error(ST_INVALID_ARGUMENT, "moved region hint: no %s", len ? "name" : "hint");
    moved_entry e = {.name = strdup(name), .expires_ns = now_ns + m->ttl_ns};
    if (!e.name || buf_set(&e.hint, hint, len) != ST_OK) {
        free(e.name);
        buf_free(&e.hint);
        return st_error(ST_NOMEM, "moved region hint for %s: out of memory", name);
    }
    pthread_mutex_lock(&m->mu);
    size_t i = find(m, name);
    if (i != SIZE_MAX)
        drop_at(m, i);
    if (m->n == m->max)
        prune_locked(m, now_ns);
    if (m->n == m->max)
        drop_at(m, oldest(m));
    m->v[m->n++] = e;
    pthread_mutex_unlock(&m->mu);
    return ST_OK;
}

bool rs_moved_get(rs_moved *m, const char *name, uint64_t now_ns, buf_t *hint)
{
    bool found = false;
    pthread_mutex_lock(&m->mu);
    size_t i = find(m, name);
    if (i != SIZE_MAX && m->v[i].expires_ns <= now_ns)
        drop_at(m, i);
    else if (i != SIZE_MAX)
        found = buf_set(hint, m->v[i].hint.data, m->v[i].hint.len) == ST_OK;
    pthread_mutex_unlock(&m->mu);
    return found;
}

void rs_moved_forget(rs_moved *m, const char *name)
{
    pthread_mutex_lock(&m->mu);
    size_t i = find(m, name);
    if (i != SIZE_MAX)
        drop_at(m, i);
    pthread_mutex_unlock(&m->mu);
}

size_t rs_moved_prune(rs_moved *m, uint64_t now_ns)
{
    pthread_mutex_lock(&m->mu);
    prune_locked(m, now_ns);
    size_t n = m->n;
    pthread_mutex_unlock(&m->mu);
    return n;
}
