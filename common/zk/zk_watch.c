/*
 * zk_watch.c - watches over a ZooKeeper session (zk.h): zk_watch_children, zk_watch_node,
 * zk_unwatch and the watch thread that runs their callbacks.
 *
 * Each zk_watch has an id; the ZooKeeper watchers carry the id (not the pointer) as their
 * context, so an event that arrives after zk_unwatch finds no watch and is dropped. The
 * library calls on_path_event() on its completion thread, which only queues the id; the
 * watch thread (zk_watch_main) pops ids in order and, holding cb_mu, re-reads the node
 * (re-arming the ZooKeeper watch) and runs the callback. The first callback of a watch
 * runs on the caller's thread, also under cb_mu, so callbacks of one handle never overlap.
 * A re-arm that fails on a lost connection marks the watch (rearm) and is retried once the
 * session is connected again.
 *
 * Thread-safety: as zk.h. Locks: cb_mu before mu (zk_internal.h).
 */
#include "common/zk/zk_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/status.h"

_Thread_local zk *zk_cb_handle;

/* ---- watch thread ---- */

/* Watcher of every armed path: queues the watch id for the watch thread. */
static void on_path_event(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    (void)state;
    (void)path;
    if (type == ZOO_SESSION_EVENT)
        return;
    zk *z = (zk *)zoo_get_context(zh);
    zk_event *e = malloc(sizeof(*e));
    if (!z || !e) {
        LOG_ERROR("zk: out of memory queueing an event for %s", path ? path : "");
        free(e);
        return;
    }
    e->id = (uint64_t)(uintptr_t)ctx;
    e->next = NULL;
    pthread_mutex_lock(&z->mu);
    if (z->qtail)
        z->qtail->next = e;
    else
        z->qhead = e;
    z->qtail = e;
    pthread_cond_signal(&z->queue_cv);
    pthread_mutex_unlock(&z->mu);
}

int zk_cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* After ZNONODE: arms an existence watch. 1 if the node appeared meanwhile (read again),
 * 0 if it is still absent (armed), or a negative status. */
static int arm_exists(zk *z, zk_watch *w, void *ctx)
{
    int zrc = zoo_wexists(z->zh, w->path, on_path_event, ctx, NULL);
    zk_heard(z, zrc);
    if (zrc == ZOK)
        return 1;
    if (zrc == ZNONODE)
        return 0;
    return zk_status_of(zrc, "watch", w->path);
}

static int run_children(zk *z, zk_watch *w)
{
    void *ctx = (void *)(uintptr_t)w->id;
    for (;;) {
        struct String_vector sv = {0, NULL};
        int zrc = zoo_wget_children(z->zh, w->path, on_path_event, ctx, &sv);
        zk_heard(z, zrc);
        if (zrc == ZOK) {
            if (sv.count > 0)
                qsort(sv.data, (size_t)sv.count, sizeof(char *), zk_cmp_names);
            w->cfn(w->arg, w->path, true, sv.data, (size_t)sv.count);
            deallocate_String_vector(&sv);
            return ST_OK;
        }
        if (zrc != ZNONODE)
            return zk_status_of(zrc, "watch children", w->path);
        int rc = arm_exists(z, w, ctx);
        if (rc == 0)
            w->cfn(w->arg, w->path, false, NULL, 0);
        if (rc <= 0)
            return rc;
    }
}

static int run_node(zk *z, zk_watch *w)
{
    void *ctx = (void *)(uintptr_t)w->id;
    for (;;) {
        uint8_t *data = NULL;
        size_t len = 0;
        struct Stat stat;
        int zrc = zk_read_data(z, w->path, on_path_event, ctx, &data, &len, &stat);
        if (zrc == ZOK) {
            zk_stat st;
            zk_stat_from(&st, &stat);
            w->nfn(w->arg, w->path, true, data, len, &st);
            free(data);
            return ST_OK;
        }
        if (zrc != ZNONODE)
            return zk_status_of(zrc, "watch node", w->path);
        int rc = arm_exists(z, w, ctx);
        if (rc == 0)
            w->nfn(w->arg, w->path, false, NULL, 0, NULL);
        if (rc <= 0)
            return rc;
    }
}

static int run_watch(zk *z, zk_watch *w)
{
    return w->kind == WATCH_CHILDREN ? run_children(z, w) : run_node(z, w);
}

static zk_watch *find_watch(zk *z, uint64_t id)
{
    for (zk_watch *w = z->watches; w; w = w->next)
        if (w->id == id)
            return w;
    return NULL;
}

static void dispatch(zk *z, uint64_t id)
{
    pthread_mutex_lock(&z->cb_mu);
    zk_cb_handle = z;
    pthread_mutex_lock(&z->mu);
    zk_watch *w = find_watch(z, id);
    pthread_mutex_unlock(&z->mu);
    if (w) {
        int rc = run_watch(z, w);
        if (rc == ST_CONNECTION) {
            pthread_mutex_lock(&z->mu);
            w->rearm = true;
            pthread_mutex_unlock(&z->mu);
        } else if (rc != ST_OK && rc != ST_CLOSED) {
            LOG_WARN("zk %s: watch %s: %s", z->quorum, w->path, st_errmsg());
        }
    }
    zk_cb_handle = NULL;
    pthread_mutex_unlock(&z->cb_mu);
}

/* Under mu: queues the watches whose re-arm failed, if the session is connected again.
 * true if some are still waiting. */
static bool requeue_rearms(zk *z)
{
    bool waiting = false;
    for (zk_watch *w = z->watches; w; w = w->next) {
        if (!w->rearm)
            continue;
        if (z->state == ZK_EXPIRED) {
            w->rearm = false;
            continue;
        }
        if (z->state != ZK_CONNECTED) {
            waiting = true;
            continue;
        }
        zk_event *e = malloc(sizeof(*e));
        if (!e) {
            waiting = true;
            continue;
        }
        w->rearm = false;
        e->id = w->id;
        e->next = NULL;
        if (z->qtail)
            z->qtail->next = e;
        else
            z->qhead = e;
        z->qtail = e;
    }
    return waiting;
}

void *zk_watch_main(void *arg)
{
    zk *z = arg;
    pthread_mutex_lock(&z->mu);
    while (!z->stop) {
        zk_event *e = z->qhead;
        if (!e) {
            if (requeue_rearms(z)) {
                struct timespec ts = clock_realtime_after_ms(ZK_REARM_RETRY_MS);
                pthread_cond_timedwait(&z->queue_cv, &z->mu, &ts);
            } else if (!z->qhead) {
                pthread_cond_wait(&z->queue_cv, &z->mu);
            }
            continue;
        }
        z->qhead = e->next;
        if (!z->qhead)
            z->qtail = NULL;
        pthread_mutex_unlock(&z->mu);
        dispatch(z, e->id);
        free(e);
        pthread_mutex_lock(&z->mu);
    }
    pthread_mutex_unlock(&z->mu);
    return NULL;
}

/* ---- watches ---- */

static int watch_add(zk *z, zk_watch *w, zk_watch **out)
{
    bool nested = zk_cb_handle == z;
    zk *prev = zk_cb_handle;
    if (!nested)
        pthread_mutex_lock(&z->cb_mu);
    zk_cb_handle = z;
    pthread_mutex_lock(&z->mu);
    w->id = ++z->next_id;
    w->next = z->watches;
    z->watches = w;
    pthread_mutex_unlock(&z->mu);
    int rc = run_watch(z, w);
    zk_cb_handle = prev;
    if (!nested)
        pthread_mutex_unlock(&z->cb_mu);
    if (rc != ST_OK) {
        zk_unwatch(z, w);
        return rc;
    }
    if (out)
        *out = w;
    return ST_OK;
}

static zk_watch *watch_new(const char *path, void *arg)
{
    zk_watch *w = calloc(1, sizeof(*w));
    if (w)
        w->path = strdup(path);
    if (w && !w->path) {
        free(w);
        w = NULL;
    }
    if (w)
        w->arg = arg;
    return w;
}

int zk_watch_children(zk *z, const char *path, zk_children_fn fn, void *arg, zk_watch **out)
{
    if (out)
        *out = NULL;
    int rc = zk_check_call(z, "watch children", path);
    if (rc != ST_OK)
        return rc;
    zk_watch *w = watch_new(path, arg);
    if (!w)
        return st_error(ST_NOMEM, "zk watch children %s: out of memory", path);
    w->kind = WATCH_CHILDREN;
    w->cfn = fn;
    return watch_add(z, w, out);
}

int zk_watch_node(zk *z, const char *path, zk_node_fn fn, void *arg, zk_watch **out)
{
    if (out)
        *out = NULL;
    int rc = zk_check_call(z, "watch node", path);
    if (rc != ST_OK)
        return rc;
    zk_watch *w = watch_new(path, arg);
    if (!w)
        return st_error(ST_NOMEM, "zk watch node %s: out of memory", path);
    w->kind = WATCH_NODE;
    w->nfn = fn;
    return watch_add(z, w, out);
}

void zk_unwatch(zk *z, zk_watch *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&z->mu);
    for (zk_watch **p = &z->watches; *p; p = &(*p)->next) {
        if (*p == w) {
            *p = w->next;
            break;
        }
    }
    pthread_mutex_unlock(&z->mu);
    if (zk_cb_handle != z) { /* wait out a callback running on the watch thread */
        pthread_mutex_lock(&z->cb_mu);
        pthread_mutex_unlock(&z->cb_mu);
    }
    free(w->path);
    free(w);
}


void zk_watches_free(zk *z)
{
    while (z->qhead) {
        zk_event *e = z->qhead;
        z->qhead = e->next;
        free(e);
    }
    while (z->watches) {
        zk_watch *x = z->watches;
        z->watches = x->next;
        free(x->path);
        free(x);
    }
}
