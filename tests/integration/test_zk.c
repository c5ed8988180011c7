/*
 * test_zk.c - common/zk/zk.c, zk_watch.c, znodes.c and common/server_name.c against a real, private ZooKeeper
 * (tests/support/zkserver.h): the status mapping of every call, recursive create and
 * delete, sequential and ephemeral nodes, watches that re-arm themselves and stop on
 * zk_unwatch, a connection loss that keeps the session, a session expiry, connecting
 * to a dead port, a server restart under a live session, liveness, and server names and
 * ServerInfo records.
 *
 * Thread-safety: watch and state callbacks only record into a mutex-guarded struct and
 * signal a condition variable; assertions run on the test's main thread.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/server_name.h"
#include "common/status.h"
#include "common/zk/zk.h"
#include "common/zk/znodes.h"
#include "tests/support/testutil.h"
#include "tests/support/zk_expire.h"
#include "tests/support/zkserver.h"

#define WAIT_MS 8000

static zkserver *srv;

/* ---- recorders ---- */

typedef struct rec {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int calls;
    bool exists;
    char last[512]; /* children joined by ',' or the node's data */
    int32_t version;
    pthread_t thread;
    zk *z;          /* if set, the callback makes a synchronous call on it */
    int sync_rc;
    int sleep_ms;   /* the callback sleeps this long */
    bool running;
} rec;

static void rec_init(rec *r)
{
    memset(r, 0, sizeof(*r));
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    r->sync_rc = 1;
}

static void rec_destroy(rec *r)
{
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
}

static void rec_begin(rec *r)
{
    pthread_mutex_lock(&r->mu);
    r->running = true;
    int sleep_ms = r->sleep_ms;
    zk *z = r->z;
    pthread_mutex_unlock(&r->mu);
    if (sleep_ms)
        clock_sleep_ms(sleep_ms);
    if (z) {
        int rc = zk_exists(z, "/", NULL);
        pthread_mutex_lock(&r->mu);
        r->sync_rc = rc;
        pthread_mutex_unlock(&r->mu);
    }
}

static void rec_end(rec *r)
{
    r->calls++;
    r->thread = pthread_self();
    r->running = false;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static void on_children(void *arg, const char *path, bool exists, char **names, size_t n)
{
    rec *r = arg;
    rec_begin(r);
    pthread_mutex_lock(&r->mu);
    r->exists = exists;
    r->last[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (i)
            strncat(r->last, ",", sizeof(r->last) - strlen(r->last) - 1);
        strncat(r->last, names[i], sizeof(r->last) - strlen(r->last) - 1);
    }
    rec_end(r);
}

static void on_node(void *arg, const char *path, bool exists, const uint8_t *data, size_t len,
                    const zk_stat *st)
{
    rec *r = arg;
    rec_begin(r);
    pthread_mutex_lock(&r->mu);
    r->exists = exists;
    snprintf(r->last, sizeof(r->last), "%.*s", (int)len, exists ? (const char *)data : "");
    r->version = exists != (st != NULL) ? -2 : st ? st->version : -1;
    rec_end(r);
}

/* Waits until the recorder shows exists/last; true if it did in time. */
static bool rec_wait(rec *r, bool exists, const char *last)
{
    uint64_t deadline = clock_mono_ns() + (uint64_t)WAIT_MS * 1000000ull;
    pthread_mutex_lock(&r->mu);
    bool ok;
    while (!(ok = r->exists == exists && strcmp(r->last, last) == 0) &&
           clock_mono_ns() < deadline) {
        struct timespec ts = clock_realtime_after_ms(50);
        pthread_cond_timedwait(&r->cv, &r->mu, &ts);
    }
    pthread_mutex_unlock(&r->mu);
    return ok;
}

static int rec_calls(rec *r)
{
    pthread_mutex_lock(&r->mu);
    int n = r->calls;
    pthread_mutex_unlock(&r->mu);
    return n;
}

typedef struct states {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    zk_state seen[64];
    int n;
} states;

static void states_init(states *s)
{
    memset(s, 0, sizeof(*s));
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
}

static void on_state(void *arg, zk_state st)
{
    states *s = arg;
    pthread_mutex_lock(&s->mu);
    if (s->n < 64)
        s->seen[s->n++] = st;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

/* Waits until st has been seen at index from or later; its index, or -1. */
static int states_wait(states *s, int from, zk_state st, int timeout_ms)
{
    uint64_t deadline = clock_mono_ns() + (uint64_t)timeout_ms * 1000000ull;
    int found = -1;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        for (int i = from; i < s->n && found < 0; i++)
            if (s->seen[i] == st)
                found = i;
        if (found >= 0 || clock_mono_ns() >= deadline)
            break;
        struct timespec ts = clock_realtime_after_ms(50);
        pthread_cond_timedwait(&s->cv, &s->mu, &ts);
    }
    pthread_mutex_unlock(&s->mu);
    return found;
}

static bool states_has(states *s, zk_state st)
{
    pthread_mutex_lock(&s->mu);
    bool has = false;
    for (int i = 0; i < s->n; i++)
        has = has || s->seen[i] == st;
    pthread_mutex_unlock(&s->mu);
    return has;
}

/* ---- helpers ---- */

static zk *open_zk(int session_ms, states *s)
{
    zk_options o = {.quorum = zks_quorum(srv),
                    .session_timeout_ms = session_ms,
                    .connect_timeout_ms = 10000,
                    .on_state = s ? on_state : NULL,
                    .arg = s};
    zk *z = NULL;
    int rc = zk_open(&o, &z);
    if (rc != ST_OK)
        fail_msg("zk_open %s: %s", zks_quorum(srv), st_errmsg());
    assert_int_equal(zk_get_state(z), ZK_CONNECTED);
    return z;
}

static bool wait_gone(zk *z, const char *path)
{
    uint64_t deadline = clock_mono_ns() + (uint64_t)WAIT_MS * 1000000ull;
    while (zk_exists(z, path, NULL) == ST_OK && clock_mono_ns() < deadline)
        clock_sleep_ms(20);
    return zk_exists(z, path, NULL) == ST_NOT_FOUND;
}

static int group_setup(void **state)
{
    int rc = zks_start(&srv);
    if (rc != ST_OK) {
        fprintf(stderr, "zks_start: %s\n", st_errmsg());
        return -1;
    }
    return 0;
}

static int group_teardown(void **state)
{
    zks_stop(srv);
    srv = NULL;
    return 0;
}

/* ---- calls and the status mapping ---- */

static void test_crud_status_mapping(void **state)
{
    zk *z = open_zk(10000, NULL);
    uint8_t *data = NULL;
    size_t len = 0;
    zk_stat st;
    assert_int_equal(zk_create(z, "/crud", "a", 1, ZK_PERSISTENT, NULL, 0), ST_OK);
    assert_int_equal(zk_create(z, "/crud", "b", 1, ZK_PERSISTENT, NULL, 0), ST_EXISTS);
    assert_non_null(strstr(st_errmsg(), "/crud"));
    assert_int_equal(zk_create(z, "/nope/child", NULL, 0, ZK_PERSISTENT, NULL, 0),
                     ST_NOT_FOUND);
    assert_int_equal(zk_get(z, "/crud", &data, &len, &st), ST_OK);
    assert_int_equal(len, 1);
    assert_string_equal((char *)data, "a");
    assert_int_equal(st.version, 0);
    assert_int_equal(st.ephemeral_owner, 0);
    assert_int_equal(st.data_length, 1);
    assert_true(st.mtime_ms > 1600000000000LL);
    free(data);

    assert_int_equal(zk_set(z, "/crud", "bb", 2, 0), ST_OK);
    assert_int_equal(zk_set(z, "/crud", "cc", 2, 0), ST_ORDER);
    assert_int_equal(zk_set(z, "/missing", "x", 1, -1), ST_NOT_FOUND);
    assert_int_equal(zk_exists(z, "/crud", &st), ST_OK);
    assert_int_equal(st.version, 1);
    assert_int_equal(zk_exists(z, "/missing", &st), ST_NOT_FOUND);
    assert_int_equal(zk_get(z, "/missing", &data, &len, NULL), ST_NOT_FOUND);
    assert_null(data);

    /* children come back sorted; a parent with children is not deleted */
    const char *kids[] = {"/crud/c", "/crud/a", "/crud/b"};
    for (int i = 0; i < 3; i++)
        assert_int_equal(zk_create(z, kids[i], NULL, 0, ZK_PERSISTENT, NULL, 0), ST_OK);
    char **names = NULL;
    size_t n = 0;
    assert_int_equal(zk_children(z, "/crud", &names, &n), ST_OK);
    assert_int_equal(n, 3);
    assert_string_equal(names[0], "a");
    assert_string_equal(names[1], "b");
    assert_string_equal(names[2], "c");
    zk_names_free(names, n);
    assert_int_equal(zk_children(z, "/missing", &names, &n), ST_NOT_FOUND);
    assert_int_equal(zk_exists(z, "/crud", &st), ST_OK);
    assert_int_equal(st.num_children, 3);
    assert_int_equal(zk_delete(z, "/crud", -1), ST_INVALID_ARGUMENT);
    assert_int_equal(zk_delete(z, "/crud/a", 5), ST_ORDER);
    assert_int_equal(zk_delete(z, "/crud/a", 0), ST_OK);
    assert_int_equal(zk_delete(z, "/crud/a", -1), ST_NOT_FOUND);

    /* empty data, and data bigger than the first read buffer */
    assert_int_equal(zk_get(z, "/crud/b", &data, &len, &st), ST_OK);
    assert_int_equal(len, 0);
    assert_string_equal((char *)data, "");
    free(data);
    size_t big_len = 300 * 1024;
    char *big = malloc(big_len);
    for (size_t i = 0; i < big_len; i++)
        big[i] = (char)('a' + i % 26);
    assert_int_equal(zk_set(z, "/crud/c", big, big_len, -1), ST_OK);
    assert_int_equal(zk_get(z, "/crud/c", &data, &len, &st), ST_OK);
    assert_int_equal(len, big_len);
    assert_memory_equal(data, big, big_len);
    assert_int_equal(data[len], '\0');
    free(data);
    free(big);

    assert_int_equal(zk_create(z, "no-slash", NULL, 0, ZK_PERSISTENT, NULL, 0),
                     ST_INVALID_ARGUMENT);
    assert_int_equal(zk_delete_all(z, "/crud"), ST_OK);
    zk_close(z);
}

static void test_create_all_delete_all(void **state)
{
    zk *z = open_zk(10000, NULL);
    assert_int_equal(zk_create_all(z, "/ca/b/c/d"), ST_OK);
    assert_int_equal(zk_create_all(z, "/ca/b/c/d"), ST_OK);
    assert_int_equal(zk_create_all(z, "/ca/b/x"), ST_OK);
    assert_int_equal(zk_exists(z, "/ca/b/c/d", NULL), ST_OK);
    assert_int_equal(zk_create(z, "/ca/b/c/d/e", "1", 1, ZK_PERSISTENT, NULL, 0), ST_OK);
    assert_int_equal(zk_create(z, "/ca/eph", NULL, 0, ZK_EPHEMERAL, NULL, 0), ST_OK);
    assert_int_equal(zk_delete_all(z, "/ca/b/c"), ST_OK);
    assert_int_equal(zk_exists(z, "/ca/b/c", NULL), ST_NOT_FOUND);
    assert_int_equal(zk_exists(z, "/ca/b/x", NULL), ST_OK);
    assert_int_equal(zk_delete_all(z, "/ca"), ST_OK);
    assert_int_equal(zk_exists(z, "/ca", NULL), ST_NOT_FOUND);
    assert_int_equal(zk_delete_all(z, "/ca"), ST_OK);
    assert_int_equal(zk_delete_all(z, "/"), ST_INVALID_ARGUMENT);
    assert_int_equal(zk_exists(z, "/zookeeper", NULL), ST_OK);
    zk_close(z);
}

static void test_sequential_nodes(void **state)
{
    zk *z = open_zk(10000, NULL);
    char a[128], b[128], tiny[4];
    assert_int_equal(zk_create_all(z, "/seq"), ST_OK);
    assert_int_equal(zk_create(z, "/seq/n-", "x", 1, ZK_SEQUENTIAL, a, sizeof(a)), ST_OK);
    assert_int_equal(
        zk_create(z, "/seq/n-", NULL, 0, ZK_SEQUENTIAL | ZK_EPHEMERAL, b, sizeof(b)), ST_OK);
    assert_int_equal(zk_create(z, "/seq/n-", NULL, 0, ZK_SEQUENTIAL, tiny, sizeof(tiny)),
                     ST_OK);
    assert_string_equal(tiny, "/se");
    assert_int_equal(zk_create(z, "/seq/n-", NULL, 0, ZK_SEQUENTIAL, NULL, 0), ST_OK);
    assert_int_equal(strlen(a), strlen("/seq/n-") + 10);
    assert_memory_equal(a, "/seq/n-", 7);
    assert_true(strcmp(a, b) < 0);
    zk_stat st;
    assert_int_equal(zk_exists(z, b, &st), ST_OK);
    assert_int_equal(st.ephemeral_owner, zk_session_id(z));
    assert_int_equal(zk_exists(z, a, &st), ST_OK);
    assert_int_equal(st.ephemeral_owner, 0);
    char **names = NULL;
    size_t n = 0;
    assert_int_equal(zk_children(z, "/seq", &names, &n), ST_OK);
    assert_int_equal(n, 4);
    zk_names_free(names, n);
    assert_int_equal(zk_delete_all(z, "/seq"), ST_OK);
    zk_close(z);
}

/* ---- ephemeral nodes and watches ---- */

static void test_ephemeral_gone_after_close_seen_by_watch(void **state)
{
    zk *owner = open_zk(10000, NULL);
    zk *other = open_zk(10000, NULL);
    rec kids, node;
    rec_init(&kids);
    rec_init(&node);
    assert_int_equal(zk_create_all(owner, "/eph"), ST_OK);
    assert_int_equal(zk_create(owner, "/eph/x", "me", 2, ZK_EPHEMERAL, NULL, 0), ST_OK);
    zk_stat st;
    assert_int_equal(zk_exists(other, "/eph/x", &st), ST_OK);
    assert_int_equal(st.ephemeral_owner, zk_session_id(owner));
    assert_true(zk_session_id(owner) != zk_session_id(other));

    zk_watch *wk = NULL, *wn = NULL;
    assert_int_equal(zk_watch_children(other, "/eph", on_children, &kids, &wk), ST_OK);
    assert_int_equal(zk_watch_node(other, "/eph/x", on_node, &node, &wn), ST_OK);
    assert_int_equal(rec_calls(&kids), 1); /* the first call ran before returning */
    assert_true(pthread_equal(kids.thread, pthread_self()));
    assert_true(rec_wait(&kids, true, "x"));
    assert_true(rec_wait(&node, true, "me"));

    zk_close(owner);
    assert_true(rec_wait(&kids, true, ""));
    assert_true(rec_wait(&node, false, ""));
    assert_false(pthread_equal(kids.thread, pthread_self()));
    assert_int_equal(zk_exists(other, "/eph/x", NULL), ST_NOT_FOUND);
    zk_unwatch(other, wk);
    zk_unwatch(other, wn);
    assert_int_equal(zk_delete_all(other, "/eph"), ST_OK);
    zk_close(other);
    rec_destroy(&kids);
    rec_destroy(&node);
}

static void test_watch_children_rearms(void **state)
{
    zk *z = open_zk(10000, NULL);
    zk *w = open_zk(10000, NULL);
    rec r;
    rec_init(&r);
    r.z = w; /* the callback makes a synchronous call: it must not run on the library's thread */
    zk_watch *h = NULL;
    assert_int_equal(zk_watch_children(w, "/wc", on_children, &r, &h), ST_OK);
    assert_int_equal(rec_calls(&r), 1);
    assert_false(r.exists);
    assert_int_equal(zk_create(z, "/wc", NULL, 0, ZK_PERSISTENT, NULL, 0), ST_OK);
    assert_true(rec_wait(&r, true, ""));
    assert_int_equal(zk_create(z, "/wc/b", NULL, 0, ZK_PERSISTENT, NULL, 0), ST_OK);
    assert_true(rec_wait(&r, true, "b"));
    assert_int_equal(zk_create(z, "/wc/a", NULL, 0, ZK_PERSISTENT, NULL, 0), ST_OK);
    assert_true(rec_wait(&r, true, "a,b"));
    assert_int_equal(zk_delete(z, "/wc/b", -1), ST_OK);
    assert_true(rec_wait(&r, true, "a"));
    assert_int_equal(zk_delete_all(z, "/wc"), ST_OK);
    assert_true(rec_wait(&r, false, ""));
    assert_int_equal(zk_create_all(z, "/wc/again"), ST_OK);
    assert_true(rec_wait(&r, true, "again"));
    assert_true(rec_calls(&r) >= 7);
    pthread_mutex_lock(&r.mu);
    assert_int_equal(r.sync_rc, ST_OK);
    pthread_mutex_unlock(&r.mu);
    zk_unwatch(w, h);
    assert_int_equal(zk_delete_all(z, "/wc"), ST_OK);
    zk_close(w);
    zk_close(z);
    rec_destroy(&r);
}

static void test_watch_node_rearms(void **state)
{
    zk *z = open_zk(10000, NULL);
    rec r;
    rec_init(&r);
    r.z = z;
    zk_watch *h = NULL;
    assert_int_equal(zk_watch_node(z, "/wn", on_node, &r, &h), ST_OK);
    assert_int_equal(rec_calls(&r), 1);
    assert_false(r.exists);
    assert_int_equal(zk_create(z, "/wn", "v1", 2, ZK_PERSISTENT, NULL, 0), ST_OK);
    assert_true(rec_wait(&r, true, "v1"));
    assert_int_equal(r.version, 0);
    assert_int_equal(zk_set(z, "/wn", "v2", 2, -1), ST_OK);
    assert_true(rec_wait(&r, true, "v2"));
    assert_int_equal(zk_set(z, "/wn", "v3", 2, -1), ST_OK);
    assert_true(rec_wait(&r, true, "v3"));
    assert_int_equal(r.version, 2);
    assert_int_equal(zk_delete(z, "/wn", -1), ST_OK);
    assert_true(rec_wait(&r, false, ""));
    assert_int_equal(zk_create(z, "/wn", "v4", 2, ZK_PERSISTENT, NULL, 0), ST_OK);
    assert_true(rec_wait(&r, true, "v4"));
    pthread_mutex_lock(&r.mu);
    assert_int_equal(r.sync_rc, ST_OK);
    pthread_mutex_unlock(&r.mu);
    zk_unwatch(z, h);
    assert_int_equal(zk_delete(z, "/wn", -1), ST_OK);
    zk_close(z);
    rec_destroy(&r);
}

static void test_unwatch_stops_callbacks_and_waits(void **state)
{
    zk *z = open_zk(10000, NULL);
    rec r;
    rec_init(&r);
    zk_watch *h = NULL;
    assert_int_equal(zk_create(z, "/uw", "0", 1, ZK_PERSISTENT, NULL, 0), ST_OK);
    assert_int_equal(zk_watch_node(z, "/uw", on_node, &r, &h), ST_OK);
    assert_int_equal(zk_set(z, "/uw", "1", 1, -1), ST_OK);
    assert_true(rec_wait(&r, true, "1"));

    /* unwatch while the callback runs on the watch thread: it waits for it */
    pthread_mutex_lock(&r.mu);
    r.sleep_ms = 400;
    pthread_mutex_unlock(&r.mu);
    assert_int_equal(zk_set(z, "/uw", "2", 1, -1), ST_OK);
    uint64_t deadline = clock_mono_ns() + (uint64_t)WAIT_MS * 1000000ull;
    bool running = false;
    while (!running && clock_mono_ns() < deadline) {
        pthread_mutex_lock(&r.mu);
        running = r.running;
        pthread_mutex_unlock(&r.mu);
        if (!running)
            clock_sleep_ms(5);
    }
    assert_true(running);
    zk_unwatch(z, h);
    pthread_mutex_lock(&r.mu);
    assert_false(r.running);
    int calls = r.calls;
    pthread_mutex_unlock(&r.mu);

    assert_int_equal(zk_set(z, "/uw", "3", 1, -1), ST_OK);
    assert_int_equal(zk_set(z, "/uw", "4", 1, -1), ST_OK);
    assert_int_equal(zk_delete(z, "/uw", -1), ST_OK);
    clock_sleep_ms(500);
    assert_int_equal(rec_calls(&r), calls);
    zk_unwatch(z, NULL);
    zk_close(z);
    rec_destroy(&r);
}

/* A watch registered from inside another watch's callback, and a watch never unwatched
 * (freed by zk_close). */
typedef struct nest {
    zk *z;
    rec inner;
    zk_watch *inner_watch;
    int rc; /* guarded by inner.mu; 1 until the inner watch was registered */
} nest;

static void on_nest(void *arg, const char *path, bool exists, const uint8_t *data, size_t len,
                    const zk_stat *st)
{
    nest *n = arg;
    if (!exists || n->inner_watch)
        return;
    int rc = zk_watch_children(n->z, "/nest", on_children, &n->inner, &n->inner_watch);
    pthread_mutex_lock(&n->inner.mu);
    n->rc = rc;
    pthread_cond_broadcast(&n->inner.cv);
    pthread_mutex_unlock(&n->inner.mu);
}

static void test_watch_from_callback(void **state)
{
    nest n;
    memset(&n, 0, sizeof(n));
    rec_init(&n.inner);
    n.rc = 1;
    n.z = open_zk(10000, NULL);
    assert_int_equal(zk_watch_node(n.z, "/nest", on_nest, &n, NULL), ST_OK);
    assert_int_equal(zk_create(n.z, "/nest", NULL, 0, ZK_PERSISTENT, NULL, 0), ST_OK);
    assert_true(rec_wait(&n.inner, true, ""));
    pthread_mutex_lock(&n.inner.mu);
    while (n.rc == 1)
        pthread_cond_wait(&n.inner.cv, &n.inner.mu);
    int rc = n.rc;
    pthread_mutex_unlock(&n.inner.mu);
    assert_int_equal(rc, ST_OK);
    assert_int_equal(zk_create(n.z, "/nest/k", NULL, 0, ZK_PERSISTENT, NULL, 0), ST_OK);
    assert_true(rec_wait(&n.inner, true, "k"));
    assert_int_equal(zk_delete_all(n.z, "/nest"), ST_OK);
    zk_close(n.z);
    rec_destroy(&n.inner);
}

/* ---- connection loss, expiry, liveness ---- */

static void test_connection_loss_keeps_session(void **state)
{
    states s;
    states_init(&s);
    zk *z = open_zk(6000, &s);
    int granted = zk_session_timeout_ms(z);
    assert_int_equal(granted, 6000);
    int64_t id = zk_session_id(z);
    rec r;
    rec_init(&r);
    assert_int_equal(zk_create(z, "/loss", "0", 1, ZK_EPHEMERAL, NULL, 0), ST_OK);
    assert_int_equal(zk_watch_node(z, "/loss", on_node, &r, NULL), ST_OK);

    /* A fresh answer, then a pause past 2/3 of the timeout (the client gives up the
     * connection) but short of the timeout (the server keeps the session). */
    assert_int_equal(zk_ping(z), ST_OK);
    int64_t before = zk_last_heard_ns(z);
    assert_int_equal(zks_pause(srv), ST_OK);
    int lost = states_wait(&s, 0, ZK_CONNECTING, 4700);
    int64_t during = zk_last_heard_ns(z);
    int64_t left = 4900 - (int64_t)((clock_mono_ns() - (uint64_t)before) / 1000000);
    if (left > 0)
        clock_sleep_ms(left);
    assert_int_equal(zks_resume(srv), ST_OK);
    assert_true(lost >= 0);
    assert_int_equal(during, before);
    assert_true(states_wait(&s, lost, ZK_CONNECTED, WAIT_MS) > lost);
    assert_int_equal(zk_get_state(z), ZK_CONNECTED);
    assert_true(zk_last_heard_ns(z) > before);
    assert_int_equal(zk_session_id(z), id);
    assert_false(states_has(&s, ZK_EXPIRED));

    zk_stat st;
    assert_int_equal(zk_exists(z, "/loss", &st), ST_OK);
    assert_int_equal(st.ephemeral_owner, id);
    zk *other = open_zk(10000, NULL);
    assert_int_equal(zk_set(other, "/loss", "after", 5, -1), ST_OK);
    assert_true(rec_wait(&r, true, "after"));
    zk_close(other);
    zk_close(z);
    assert_true(states_wait(&s, 0, ZK_CLOSED, 0) >= 0);
    rec_destroy(&r);
}

static void test_session_expiry_closes_calls(void **state)
{
    states s;
    states_init(&s);
    zk *z = open_zk(1000, &s);
    zk *other = open_zk(10000, NULL);
    assert_int_equal(zk_create(z, "/exp", NULL, 0, ZK_EPHEMERAL, NULL, 0), ST_OK);
    rec r;
    rec_init(&r);
    assert_int_equal(zk_watch_node(other, "/exp", on_node, &r, NULL), ST_OK);
    assert_true(rec_wait(&r, true, ""));

    /* Another connection borrows the session and closes it: the ensemble ends it and the
     * client learns so when it next talks to the ensemble. */
    if (zk_expire_session(z, WAIT_MS) != ST_OK)
        fail_msg("zk_expire_session: %s", st_errmsg());
    assert_true(states_wait(&s, 0, ZK_EXPIRED, WAIT_MS) >= 0);
    assert_int_equal(zk_get_state(z), ZK_EXPIRED);
    assert_int_equal(zk_exists(z, "/", NULL), ST_CLOSED);
    assert_int_equal(zk_create(z, "/exp2", NULL, 0, ZK_PERSISTENT, NULL, 0), ST_CLOSED);
    assert_int_equal(zk_ping(z), ST_CLOSED);
    rec r2;
    rec_init(&r2);
    assert_int_equal(zk_watch_node(z, "/exp", on_node, &r2, NULL), ST_CLOSED);
    assert_int_equal(rec_calls(&r2), 0);

    assert_true(rec_wait(&r, false, "")); /* its ephemeral node went with it */
    assert_true(wait_gone(other, "/exp"));
    zk_close(z);
    assert_false(states_has(&s, ZK_CLOSED)); /* expired stays the last word */
    zk_close(other);
    rec_destroy(&r);
    rec_destroy(&r2);
}

static void test_server_restart_keeps_session(void **state)
{
    states s;
    states_init(&s);
    zk *z = open_zk(10000, &s);
    int64_t id = zk_session_id(z);
    assert_int_equal(zk_create(z, "/restart", "1", 1, ZK_EPHEMERAL, NULL, 0), ST_OK);
    assert_int_equal(zks_kill(srv), ST_OK);
    int lost = states_wait(&s, 0, ZK_CONNECTING, WAIT_MS);
    assert_true(lost >= 0);
    assert_int_equal(zk_ping(z), ST_CONNECTION);
    if (zks_restart(srv) != ST_OK)
        fail_msg("zks_restart: %s", st_errmsg());
    assert_true(states_wait(&s, lost, ZK_CONNECTED, WAIT_MS) > lost);
    assert_int_equal(zk_session_id(z), id);
    zk_stat st;
    assert_int_equal(zk_exists(z, "/restart", &st), ST_OK);
    assert_int_equal(st.ephemeral_owner, id);
    zk_close(z);
}

static void test_open_dead_port_times_out(void **state)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    socklen_t alen = sizeof(a);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &alen), 0);
    char quorum[64];
    snprintf(quorum, sizeof(quorum), "127.0.0.1:%d", ntohs(a.sin_port));
    close(fd);

    zk_options o = {.quorum = quorum, .session_timeout_ms = 4000, .connect_timeout_ms = 1000};
    zk *z = (zk *)1;
    uint64_t t0 = clock_mono_ns();
    assert_int_equal(zk_open(&o, &z), ST_TIMEOUT);
    uint64_t ms = (clock_mono_ns() - t0) / 1000000;
    assert_null(z);
    assert_non_null(strstr(st_errmsg(), quorum));
    assert_true(ms >= 900 && ms < 3000);

    zk_options none = {.quorum = ""};
    assert_int_equal(zk_open(&none, &z), ST_INVALID_ARGUMENT);
    zk_options bad = {.quorum = "127.0.0.1:notaport", .connect_timeout_ms = 500};
    int rc = zk_open(&bad, &z);
    assert_true(rc == ST_INVALID_ARGUMENT || rc == ST_TIMEOUT);
    assert_null(z);
    zk_close(NULL);
}

static void test_last_heard_advances_with_ping(void **state)
{
    zk *z = open_zk(10000, NULL);
    int64_t t0 = zk_last_heard_ns(z);
    assert_true(t0 > 0);
    assert_true(t0 <= (int64_t)clock_mono_ns());
    clock_sleep_ms(30);
    assert_int_equal(zk_ping(z), ST_OK);
    int64_t t1 = zk_last_heard_ns(z);
    assert_true(t1 >= t0 + 30 * 1000000LL);
    assert_true(t1 <= (int64_t)clock_mono_ns());
    clock_sleep_ms(10);
    assert_int_equal(zk_exists(z, "/not-there", NULL), ST_NOT_FOUND); /* an answer too */
    assert_true(zk_last_heard_ns(z) > t1);
    zk_close(z);
}

/* ---- paths, server names, ServerInfo ---- */

static void check_path(const char *parent, const char *rel, const char *want)
{
    char *p = zk_path(parent, rel);
    assert_non_null(p);
    assert_string_equal(p, want);
    free(p);
}

static void test_zk_path(void **state)
{
    check_path(NULL, "rs", "/strata/rs");
    check_path("", "rs/host,1,2", "/strata/rs/host,1,2");
    check_path("/other/", "/master", "/other/master");
    check_path("/", "a", "/a");
    check_path("/strata", NULL, "/strata");
    check_path("/strata", "", "/strata");
    check_path("x", "y", "/x/y");
    assert_string_equal(zk_state_name(ZK_EXPIRED), "expired");
}

static void test_server_name_round_trip_and_bad_input(void **state)
{
    server_name s = {.port = 16020, .start_code = 1700000000123ULL};
    snprintf(s.host, sizeof(s.host), "rs1.example.com");
    char text[SERVER_NAME_MAX], addr[SERVER_NAME_MAX];
    server_name_format(&s, text, sizeof(text));
    assert_string_equal(text, "rs1.example.com,16020,1700000000123");
    server_name_addr(&s, addr, sizeof(addr));
    assert_string_equal(addr, "rs1.example.com:16020");
    server_name p;
    assert_int_equal(server_name_parse(text, &p), ST_OK);
    assert_true(server_name_equal(&s, &p));
    p.start_code++;
    assert_false(server_name_equal(&s, &p));
    assert_true(server_name_same_addr(&s, &p));
    p.port++;
    assert_false(server_name_same_addr(&s, &p));
    assert_int_equal(server_name_parse("h,1,18446744073709551615", &p), ST_OK);
    assert_true(p.start_code == UINT64_MAX);

    const char *bad[] = {"", "host", "host,1", ",1,2", "h,0,1", "h,65536,1", "h,1,x",
                         "h,1,", "h, 1,2", "h,1,2,3", "h,-1,2", "h,1,18446744073709551616",
                         "a b,1,2"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (server_name_parse(bad[i], &p) != ST_INVALID_ARGUMENT)
            fail_msg("parsed '%s'", bad[i]);
        assert_non_null(strstr(st_errmsg(), bad[i]));
    }
    char longhost[400];
    memset(longhost, 'h', 300);
    snprintf(longhost + 300, sizeof(longhost) - 300, ",1,2");
    assert_int_equal(server_name_parse(longhost, &p), ST_INVALID_ARGUMENT);
}

static void test_server_info_and_active_master(void **state)
{
    server_name s = {.port = 16000, .start_code = 42};
    snprintf(s.host, sizeof(s.host), "m1");
    size_t len = 0;
    uint8_t *enc = server_info_encode(&s, 16010, 1700000000000ULL, &len);
    assert_non_null(enc);
    server_name d;
    uint32_t http = 0;
    assert_int_equal(server_info_decode(enc, len, &d, &http), ST_OK);
    assert_true(server_name_equal(&s, &d));
    assert_int_equal(http, 16010);
    assert_int_equal(server_info_decode(enc, len, &d, NULL), ST_OK);
    assert_int_equal(server_info_decode(enc, len - 1, &d, &http), ST_CORRUPTION);
    assert_int_equal(server_info_decode((const uint8_t *)"\xff\xff\xff", 3, &d, NULL),
                     ST_CORRUPTION);
    assert_int_equal(server_info_decode((const uint8_t *)"", 0, &d, NULL), ST_CORRUPTION);

    zk *z = open_zk(10000, NULL);
    assert_int_equal(zk_create_all(z, "/am"), ST_OK);
    assert_int_equal(znodes_active_master(z, "/am", &d, &http), ST_NOT_FOUND);
    assert_non_null(strstr(st_errmsg(), "/am/master"));
    assert_int_equal(zk_create(z, "/am/master", enc, len, ZK_EPHEMERAL, NULL, 0), ST_OK);
    memset(&d, 0, sizeof(d));
    http = 0;
    assert_int_equal(znodes_active_master(z, "/am", &d, &http), ST_OK);
    assert_true(server_name_equal(&s, &d));
    assert_int_equal(http, 16010);
    assert_int_equal(zk_set(z, "/am/master", "junk", 4, -1), ST_OK);
    assert_int_equal(znodes_active_master(z, "/am", &d, NULL), ST_CORRUPTION);
    assert_int_equal(zk_delete_all(z, "/am"), ST_OK);
    zk_close(z);
    free(enc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zk_path),
        cmocka_unit_test(test_server_name_round_trip_and_bad_input),
        cmocka_unit_test(test_crud_status_mapping),
        cmocka_unit_test(test_create_all_delete_all),
        cmocka_unit_test(test_sequential_nodes),
        cmocka_unit_test(test_ephemeral_gone_after_close_seen_by_watch),
        cmocka_unit_test(test_watch_children_rearms),
        cmocka_unit_test(test_watch_node_rearms),
        cmocka_unit_test(test_unwatch_stops_callbacks_and_waits),
        cmocka_unit_test(test_watch_from_callback),
        cmocka_unit_test(test_last_heard_advances_with_ping),
        cmocka_unit_test(test_server_info_and_active_master),
        cmocka_unit_test(test_open_dead_port_times_out),
        cmocka_unit_test(test_server_restart_keeps_session),
        cmocka_unit_test(test_connection_loss_keeps_session),
        cmocka_unit_test(test_session_expiry_closes_calls),
    };
    return tu_run_group_tests(tests, group_setup, group_teardown);
}
