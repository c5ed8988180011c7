/*
 * zk_expire.c - ends a ZooKeeper session from outside, as a partition longer than the
 * session timeout would (see zk_expire.h). Reads the handle's private parts
 * (common/zk/zk_internal.h); for tests only.
 *
 * Thread-safety: as zk.h.
 */
#include "tests/support/zk_expire.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "common/clock.h"
#include "common/status.h"
#include "common/zk/zk_internal.h"

#define ZK_EXPIRE_CHECK_MS 500

typedef struct expirer {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state;
} expirer;

static void on_expirer(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    expirer *e = ctx;
    if (type != ZOO_SESSION_EVENT)
        return;
    pthread_mutex_lock(&e->mu);
    e->state = state;
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
}

/* Connects a second handle to z's session and closes it, which ends the session unless
 * z took its session back first. */
static int close_borrowed_session(zk *z, const struct timespec *deadline)
{
    expirer e = {.state = 0};
    pthread_mutex_init(&e.mu, NULL);
    pthread_cond_init(&e.cv, NULL);
    clientid_t id = *zoo_client_id(z->zh);
    int rc = ST_OK;
    zhandle_t *h = zookeeper_init(z->quorum, on_expirer, zoo_recv_timeout(z->zh), &id, &e, 0);
    pthread_mutex_lock(&e.mu);
    while (h && e.state != ZOO_CONNECTED_STATE && e.state != ZOO_EXPIRED_SESSION_STATE &&
           pthread_cond_timedwait(&e.cv, &e.mu, deadline) != ETIMEDOUT) {
    }
    int state = e.state;
    pthread_mutex_unlock(&e.mu);
    if (!h)
        rc = st_error(ST_INVALID_ARGUMENT, "zk expire %s: %s", z->quorum, strerror(errno));
    else if (state != ZOO_CONNECTED_STATE && state != ZOO_EXPIRED_SESSION_STATE)
        rc = st_error(ST_TIMEOUT, "zk expire %s: session %llx: no second connection",
                      z->quorum, (unsigned long long)id.client_id);
    if (h)
        zookeeper_close(h);
    pthread_cond_destroy(&e.cv);
    pthread_mutex_destroy(&e.mu);
    return rc;
}

/* Waits until z's state is EXPIRED, at most wait_ms; true if it is. */
static bool wait_expired(zk *z, int64_t wait_ms)
{
    struct timespec ts = clock_realtime_after_ms(wait_ms);
    bool timed_out = false;
    pthread_mutex_lock(&z->mu);
    while (z->state != ZK_EXPIRED && !timed_out)
        timed_out = pthread_cond_timedwait(&z->state_cv, &z->mu, &ts) == ETIMEDOUT;
    bool expired = z->state == ZK_EXPIRED;
    pthread_mutex_unlock(&z->mu);
    return expired;
}

/* The second connection kicks z off the session; z reconnects at once and may win the
 * session back before the close reaches the ensemble, so the borrow is repeated until z
 * has seen its session expire. */
int zk_expire_session(zk *z, int timeout_ms)
{
    struct timespec deadline = clock_realtime_after_ms(timeout_ms);
    uint64_t end = clock_mono_ns() + (uint64_t)timeout_ms * 1000000ull;
    int rc = zk_check_open(z, "expire", "");
    while (rc == ST_OK) {
        rc = close_borrowed_session(z, &deadline);
        if (rc == ST_OK && wait_expired(z, ZK_EXPIRE_CHECK_MS))
            return ST_OK;
        if (rc == ST_OK && clock_mono_ns() >= end)
            rc = st_error(ST_TIMEOUT, "zk expire %s: session still alive after %d ms",
                          z->quorum, timeout_ms);
    }
    return rc;
}

