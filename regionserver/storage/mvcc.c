/*
 * mvcc.c - the region's write numbers and read point.
 *
 * mvcc_begin() hands out write numbers in increasing order and appends each to a
 * ring of in-flight entries {w, done}, so the ring is always sorted by w.
 * mvcc_complete() marks an entry done (binary search) and pops every done entry from
 * the front. The read point is then:
 *
 *   front of the ring pending:  (its w) - 1
 *   ring empty:                 next - 1    (every number handed out has completed)
 *
 * so it covers exactly the completed prefix (numbers skipped by mvcc_advance_to()
 * were never handed out and count as complete; mvcc_advance_to(seq) treats seq as
 * used, like HBase's MultiVersionConcurrencyControl.advanceTo, so next = seq + 1). It only grows, because new numbers
 * are always above it. Waiters (mvcc_complete_and_wait, mvcc_wait_all) sleep on one
 * condvar that is broadcast whenever the read point moves.
 *
 * Thread-safety: one mutex guards everything; the read point is also kept in an
 * atomic so mvcc_read_point() takes no lock. No other lock is taken under it.
 */
#include "regionserver/storage/mvcc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/log.h"

#define MVCC_INITIAL_CAP 64

typedef struct mvcc_entry {
    uint64_t w;
    bool done;
} mvcc_entry;

struct mvcc {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    _Atomic uint64_t read_point;
    uint64_t next;    /* the next write number mvcc_begin() hands out */
    mvcc_entry *ring; /* in-flight entries, sorted by w, starting at head */
    size_t cap;       /* a power of two */
    size_t head;
    size_t len;
};

static mvcc_entry *entry_at(mvcc *m, size_t i)
{
    return &m->ring[(m->head + i) & (m->cap - 1)];
}

mvcc *mvcc_new(uint64_t start)
{
    mvcc *m = calloc(1, sizeof(*m));
    if (!m)
        goto fail;
    m->ring = calloc(MVCC_INITIAL_CAP, sizeof(*m->ring));
    if (!m->ring)
        goto fail;
    m->cap = MVCC_INITIAL_CAP;
    m->next = start + 1;
    atomic_init(&m->read_point, start);
    pthread_mutex_init(&m->mu, NULL);
    pthread_cond_init(&m->cv, NULL);
    return m;
fail:
    LOG_ERROR("mvcc: out of memory creating a tracker");
    free(m);
    return NULL;
}

void mvcc_free(mvcc *m)
{
    if (!m)
        return;
    pthread_cond_destroy(&m->cv);
    pthread_mutex_destroy(&m->mu);
    free(m->ring);
    free(m);
}

/* Doubles the ring, keeping the entries in order from index 0. */
static bool ring_grow(mvcc *m)
{
    size_t cap = m->cap * 2;
    mvcc_entry *ring = malloc(cap * sizeof(*ring));
    if (!ring)
        return false;
    for (size_t i = 0; i < m->len; i++)
        ring[i] = *entry_at(m, i);
    free(m->ring);
    m->ring = ring;
    m->cap = cap;
    m->head = 0;
    return true;
}

/* Pops completed entries from the front and publishes the new read point.
 * Called with m->mu held. */
static void advance_read_point(mvcc *m)
{
    while (m->len && entry_at(m, 0)->done) {
        m->head = (m->head + 1) & (m->cap - 1);
        m->len--;
    }
    uint64_t rp = m->len ? entry_at(m, 0)->w - 1 : m->next - 1;
    if (rp > atomic_load_explicit(&m->read_point, memory_order_relaxed)) {
        atomic_store_explicit(&m->read_point, rp, memory_order_release);
        pthread_cond_broadcast(&m->cv);
    }
}

uint64_t mvcc_begin(mvcc *m)
{
    uint64_t w = 0;
    pthread_mutex_lock(&m->mu);
    if (m->len == m->cap && !ring_grow(m)) {
        LOG_ERROR("mvcc: out of memory queueing write number %llu",
                  (unsigned long long)m->next);
        goto out;
    }
    w = m->next++;
    *entry_at(m, m->len) = (mvcc_entry){.w = w, .done = false};
    m->len++;
out:
    pthread_mutex_unlock(&m->mu);
    return w;
}

/* Index of w in the ring, or m->len if it is not in flight. Called with m->mu held. */
static size_t find_entry(mvcc *m, uint64_t w)
{
    size_t lo = 0, hi = m->len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (entry_at(m, mid)->w < w)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->len && entry_at(m, lo)->w == w ? lo : m->len;
}

static void complete_locked(mvcc *m, uint64_t w)
{
    size_t i = find_entry(m, w);
    if (i == m->len || entry_at(m, i)->done) {
        LOG_WARN("mvcc: write number %llu completed but not in flight", (unsigned long long)w);
        return;
    }
    entry_at(m, i)->done = true;
    if (i == 0)
        advance_read_point(m);
}

void mvcc_complete(mvcc *m, uint64_t w)
{
    pthread_mutex_lock(&m->mu);
    complete_locked(m, w);
    pthread_mutex_unlock(&m->mu);
}

void mvcc_complete_and_wait(mvcc *m, uint64_t w)
{
    pthread_mutex_lock(&m->mu);
    complete_locked(m, w);
    while (w < m->next && atomic_load_explicit(&m->read_point, memory_order_relaxed) < w)
        pthread_cond_wait(&m->cv, &m->mu);
    pthread_mutex_unlock(&m->mu);
}

uint64_t mvcc_read_point(mvcc *m)
{
    return atomic_load_explicit(&m->read_point, memory_order_acquire);
}

void mvcc_advance_to(mvcc *m, uint64_t seq)
{
    pthread_mutex_lock(&m->mu);
    if (seq >= m->next) {
        m->next = seq + 1;
        advance_read_point(m);
    }
    pthread_mutex_unlock(&m->mu);
}

void mvcc_wait_all(mvcc *m)
{
    pthread_mutex_lock(&m->mu);
    uint64_t target = m->next - 1;
    while (atomic_load_explicit(&m->read_point, memory_order_relaxed) < target)
        pthread_cond_wait(&m->cv, &m->mu);
    pthread_mutex_unlock(&m->mu);
}
