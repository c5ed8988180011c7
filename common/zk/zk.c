/*
 * zk.c - a ZooKeeper session over zookeeper_mt (see zk.h): open and close, session
 * states, the synchronous calls and their status mapping. Watches and their thread are
 * zk_watch.c; the parts both share are zk_internal.h.
 *
 * States (z->state, changed only by set_state()):
 *
 *   zk_open -> CONNECTING --on_session(CONNECTED)--> CONNECTED
 *   CONNECTED --on_session(CONNECTING)--> CONNECTING (the library reconnects by itself)
 *   any --on_session(EXPIRED or AUTH_FAILED)--> EXPIRED (terminal: calls give ST_CLOSED)
 *   any --zk_close--> CLOSED (terminal)
 *
 * Thread-safety: all calls are safe from any thread. Locks: cb_mu (held while a watch
 * callback runs, and across its ZooKeeper calls) before mu (state, event queue, watch
 * list; never held across a ZooKeeper call or a user callback).
 */
#include "common/zk/zk.h"

#include "common/zk/zk_internal.h"
#include "common/zk/znodes.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zookeeper/zookeeper.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/status.h"

static pthread_once_t log_once = PTHREAD_ONCE_INIT;

static void setup_library_log(void)
{
    const char *d = getenv("STRATA_ZK_DEBUG");
    if (d && *d && strcmp(d, "0") != 0)
        zoo_set_debug_level(ZOO_LOG_LEVEL_DEBUG);
    else
        zoo_set_debug_level((ZooLogLevel)0);
}

const char *zk_state_name(zk_state st)
{
    switch (st) {
    case ZK_CONNECTING:
        return "connecting";
    case ZK_CONNECTED:
        return "connected";
    case ZK_EXPIRED:
        return "expired";
    case ZK_CLOSED:
        return "closed";
    }
    return "unknown";
}

/* ---- liveness and status mapping ---- */

/* Records that the server answered (any reply that came from the ensemble). */
void zk_heard(zk *z, int zrc)
{
    if (zrc == ZOK || zrc == ZNONODE || zrc == ZNODEEXISTS || zrc == ZBADVERSION ||
        zrc == ZNOTEMPTY || zrc == ZNOAUTH || zrc == ZNOCHILDRENFOREPHEMERALS)
        atomic_store(&z->last_heard, (int64_t)clock_mono_ns());
}

int zk_status_of(int zrc, const char *op, const char *path)
{
    int code;
    switch (zrc) {
    case ZOK:
        return ST_OK;
    case ZK_RC_NOMEM:
        return st_error(ST_NOMEM, "zk %s %s: out of memory", op, path);
    case ZNONODE:
        code = ST_NOT_FOUND;
        break;
    case ZNODEEXISTS:
        code = ST_EXISTS;
        break;
    case ZBADVERSION:
        code = ST_ORDER;
        break;
    case ZNOTEMPTY:
        code = ST_INVALID_ARGUMENT;
        break;
    case ZSESSIONEXPIRED:
    case ZINVALIDSTATE:
    case ZCLOSING:
        code = ST_CLOSED;
        break;
    case ZCONNECTIONLOSS:
    case ZOPERATIONTIMEOUT:
        code = ST_CONNECTION;
        break;
    case ZNOAUTH:
        code = ST_PERMISSION;
        break;
    default:
        code = ST_IO;
        break;
    }
    if (code == ST_IO || code == ST_PERMISSION)
        LOG_WARN("zk %s %s: %s", op, path, zerror(zrc));
    return st_error(code, "zk %s %s: %s", op, path, zerror(zrc));
}

/* ST_CLOSED once the session expired or was closed. */
int zk_check_open(zk *z, const char *op, const char *path)
{
    pthread_mutex_lock(&z->mu);
    zk_state st = z->state;
    pthread_mutex_unlock(&z->mu);
    if (st == ZK_EXPIRED || st == ZK_CLOSED)
        return st_error(ST_CLOSED, "zk %s %s: session %s", op, path ? path : "",
                        zk_state_name(st));
    return ST_OK;
}

static int check_path(const char *op, const char *path)
{
    if (!path || path[0] != '/')
        return st_error(ST_INVALID_ARGUMENT, "zk %s: bad path '%s'", op, path ? path : "(null)");
    return ST_OK;
}

int zk_check_call(zk *z, const char *op, const char *path)
{
    int rc = check_path(op, path);
    return rc == ST_OK ? zk_check_open(z, op, path) : rc;
}

void zk_stat_from(zk_stat *out, const struct Stat *s)
{
    out->version = s->version;
    out->ephemeral_owner = s->ephemeralOwner;
    out->mtime_ms = s->mtime;
    out->num_children = s->numChildren;
    out->data_length = s->dataLength;
}

/* zoo_get / zoo_wget into a malloc'ed, NUL-terminated buffer; a ZooKeeper code. */
int zk_read_data(zk *z, const char *path, watcher_fn wfn, void *wctx, uint8_t **out,
                     size_t *len, struct Stat *stat)
{
    int cap = 1024;
    for (;;) {
        char *buf = malloc((size_t)cap + 1);
        int blen = cap;
        if (!buf)
            return ZK_RC_NOMEM;
        int zrc = wfn ? zoo_wget(z->zh, path, wfn, wctx, buf, &blen, stat)
                      : zoo_get(z->zh, path, 0, buf, &blen, stat);
        zk_heard(z, zrc);
        if (zrc == ZOK && stat->dataLength > cap) {
            cap = stat->dataLength;
            free(buf);
            continue;
        }
        if (zrc != ZOK) {
            free(buf);
            return zrc;
        }
        blen = blen < 0 ? 0 : blen;
        buf[blen] = '\0';
        *out = (uint8_t *)buf;
        *len = (size_t)blen;
        return ZOK;
    }
}

/* ---- session state ---- */

static zk_state map_state(int state)
{
    if (state == ZOO_CONNECTED_STATE || state == ZOO_READONLY_STATE)
        return ZK_CONNECTED;
    if (state == ZOO_EXPIRED_SESSION_STATE || state == ZOO_AUTH_FAILED_STATE)
        return ZK_EXPIRED;
    return ZK_CONNECTING;
}

static void set_state(zk *z, zk_state st)
{
    pthread_mutex_lock(&z->mu);
    bool changed = z->state != st && z->state != ZK_EXPIRED && z->state != ZK_CLOSED;
    if (changed)
        z->state = st;
    if (changed && st == ZK_CONNECTED)
        atomic_store(&z->last_heard, (int64_t)clock_mono_ns());
    pthread_cond_broadcast(&z->state_cv);
    pthread_cond_broadcast(&z->queue_cv);
    pthread_mutex_unlock(&z->mu);
    if (changed) {
        LOG_DEBUG("zk %s: session %s", z->quorum, zk_state_name(st));
        if (z->on_state)
            z->on_state(z->arg, st);
    }
}

/* The library's default watcher: session events only. */
static void on_session(zhandle_t *zh, int type, int state, const char *path, void *ctx)
{
    (void)zh;
    (void)path;
    if (type == ZOO_SESSION_EVENT)
        set_state((zk *)ctx, map_state(state));
}

/* ---- open and close ---- */

static void destroy(zk *z)
{
    if (z->thread_started) {
        pthread_mutex_lock(&z->mu);
        z->stop = true;
        pthread_cond_broadcast(&z->queue_cv);
        pthread_mutex_unlock(&z->mu);
        pthread_join(z->thread, NULL);
    }
    if (z->zh)
        zookeeper_close(z->zh);
    zk_watches_free(z);
    pthread_cond_destroy(&z->queue_cv);
    pthread_cond_destroy(&z->state_cv);
    pthread_mutex_destroy(&z->mu);
    pthread_mutex_destroy(&z->cb_mu);
    free(z->quorum);
    free(z);
}

static int wait_connected(zk *z, int timeout_ms)
{
    struct timespec deadline = clock_realtime_after_ms(timeout_ms);
    int rc = ST_OK;
    pthread_mutex_lock(&z->mu);
    while (z->state == ZK_CONNECTING && rc == ST_OK)
        if (pthread_cond_timedwait(&z->state_cv, &z->mu, &deadline) == ETIMEDOUT)
            rc = ST_TIMEOUT;
    zk_state st = z->state;
    pthread_mutex_unlock(&z->mu);
    if (st == ZK_CONNECTED)
        return ST_OK;
    if (rc == ST_TIMEOUT)
        return st_error(ST_TIMEOUT, "zk open %s: not connected after %d ms", z->quorum,
                        timeout_ms);
    return st_error(ST_CLOSED, "zk open %s: session %s", z->quorum, zk_state_name(st));
}

static zk *zk_alloc(const zk_options *o)
{
    zk *z = calloc(1, sizeof(*z));
    if (!z)
        return NULL;
    z->quorum = strdup(o->quorum);
    if (!z->quorum) {
        free(z);
        return NULL;
    }
    z->on_state = o->on_state;
    z->arg = o->arg;
    z->state = ZK_CONNECTING;
    atomic_init(&z->last_heard, 0);
    pthread_mutex_init(&z->cb_mu, NULL);
    pthread_mutex_init(&z->mu, NULL);
    pthread_cond_init(&z->state_cv, NULL);
    pthread_cond_init(&z->queue_cv, NULL);
    return z;
}

int zk_open(const zk_options *o, zk **out)
{
    *out = NULL;
    if (!o || !o->quorum || !o->quorum[0])
        return st_error(ST_INVALID_ARGUMENT, "zk open: no quorum given");
    pthread_once(&log_once, setup_library_log);
    int session_ms = o->session_timeout_ms > 0 ? o->session_timeout_ms : ZK_DEFAULT_SESSION_MS;
    int connect_ms = o->connect_timeout_ms > 0 ? o->connect_timeout_ms : ZK_DEFAULT_CONNECT_MS;
    int rc = ST_OK;
    zk *z = zk_alloc(o);
    if (!z)
        return st_error(ST_NOMEM, "zk open %s: out of memory", o->quorum);
    if (pthread_create(&z->thread, NULL, zk_watch_main, z) != 0) {
        rc = st_error(ST_INTERNAL, "zk open %s: cannot start the watch thread", o->quorum);
        goto fail;
    }
    z->thread_started = true;
    pthread_mutex_lock(&z->mu);
    z->zh = zookeeper_init(o->quorum, on_session, session_ms, NULL, z, 0);
    int err = errno;
    pthread_mutex_unlock(&z->mu);
    if (!z->zh) {
        rc = st_error(ST_INVALID_ARGUMENT, "zk open %s: %s", o->quorum, strerror(err));
        goto fail;
    }
    rc = wait_connected(z, connect_ms);
    if (rc != ST_OK)
        goto fail;
    *out = z;
    return ST_OK;
fail:
    LOG_WARN("%s", st_errmsg());
    destroy(z);
    return rc;
}

void zk_close(zk *z)
{
    if (!z)
        return;
    pthread_mutex_lock(&z->mu);
    bool changed = z->state != ZK_CLOSED && z->state != ZK_EXPIRED; /* expired stays last */
    z->state = ZK_CLOSED;
    pthread_mutex_unlock(&z->mu);
    zk_state_fn fn = z->on_state;
    void *arg = z->arg;
    destroy(z);
    if (changed && fn)
        fn(arg, ZK_CLOSED);
}

zk_state zk_get_state(zk *z)
{
    return atomic_load(&z->state); /* no lock: region servers ask on every write */
}

int64_t zk_session_id(zk *z)
{
    const clientid_t *id = zoo_client_id(z->zh);
    return id ? id->client_id : 0;
}

int zk_session_timeout_ms(zk *z)
{
    return zoo_recv_timeout(z->zh);
}

int64_t zk_last_heard_ns(zk *z)
{
    return atomic_load(&z->last_heard);
}

int zk_ping(zk *z)
{
    struct Stat stat;
    int rc = zk_check_open(z, "ping", "/");
    if (rc != ST_OK)
        return rc;
    int zrc = zoo_exists(z->zh, "/", 0, &stat);
    zk_heard(z, zrc);
    return zk_status_of(zrc, "ping", "/");
}

/* ---- synchronous calls ---- */

int zk_create(zk *z, const char *path, const void *data, size_t len, int flags, char *created,
              size_t cap)
{
    int rc = zk_check_call(z, "create", path);
    if (rc != ST_OK)
        return rc;
    if (len > INT32_MAX)
        return st_error(ST_INVALID_ARGUMENT, "zk create %s: %zu bytes is too big", path, len);
    int mode = (flags & ZK_EPHEMERAL)
                   ? ((flags & ZK_SEQUENTIAL) ? ZOO_EPHEMERAL_SEQUENTIAL : ZOO_EPHEMERAL)
                   : ((flags & ZK_SEQUENTIAL) ? ZOO_PERSISTENT_SEQUENTIAL : ZOO_PERSISTENT);
    size_t blen = strlen(path) + 32;
    char *made = malloc(blen);
    if (!made)
        return st_error(ST_NOMEM, "zk create %s: out of memory", path);
    int zrc = zoo_create(z->zh, path, data ? (const char *)data : "", (int)len,
                         &ZOO_OPEN_ACL_UNSAFE, mode, made, (int)blen);
    zk_heard(z, zrc);
    if (zrc == ZOK && created && cap > 0)
        snprintf(created, cap, "%s", made);
    free(made);
    return zk_status_of(zrc, "create", path);
}

int zk_create_all(zk *z, const char *path)
{
    int rc = zk_check_call(z, "create_all", path);
    if (rc != ST_OK)
        return rc;
    char *p = strdup(path);
    if (!p)
        return st_error(ST_NOMEM, "zk create_all %s: out of memory", path);
    size_t len = strlen(p);
    for (size_t i = 1; rc == ST_OK && i <= len; i++) {
        if (p[i] != '/' && p[i] != '\0')
            continue;
        char c = p[i];
        p[i] = '\0';
        rc = zk_create(z, p, NULL, 0, ZK_PERSISTENT, NULL, 0);
        if (rc == ST_EXISTS)
            rc = ST_OK;
        p[i] = c;
    }
    free(p);
    return rc;
}

int zk_get(zk *z, const char *path, uint8_t **data, size_t *len, zk_stat *st)
{
    *data = NULL;
    *len = 0;
    int rc = zk_check_call(z, "get", path);
    if (rc != ST_OK)
        return rc;
    struct Stat stat;
    int zrc = zk_read_data(z, path, NULL, NULL, data, len, &stat);
    if (zrc == ZOK && st)
        zk_stat_from(st, &stat);
    return zk_status_of(zrc, "get", path);
}

int zk_set(zk *z, const char *path, const void *data, size_t len, int32_t version)
{
    int rc = zk_check_call(z, "set", path);
    if (rc != ST_OK)
        return rc;
    if (len > INT32_MAX)
        return st_error(ST_INVALID_ARGUMENT, "zk set %s: %zu bytes is too big", path, len);
    int zrc = zoo_set(z->zh, path, data ? (const char *)data : "", (int)len, version);
    zk_heard(z, zrc);
    return zk_status_of(zrc, "set", path);
}

int zk_delete(zk *z, const char *path, int32_t version)
{
    int rc = zk_check_call(z, "delete", path);
    if (rc != ST_OK)
        return rc;
    int zrc = zoo_delete(z->zh, path, version);
    zk_heard(z, zrc);
    return zk_status_of(zrc, "delete", path);
}

int zk_exists(zk *z, const char *path, zk_stat *st)
{
    int rc = zk_check_call(z, "exists", path);
    if (rc != ST_OK)
        return rc;
    struct Stat stat;
    int zrc = zoo_exists(z->zh, path, 0, &stat);
    zk_heard(z, zrc);
    if (zrc == ZOK && st)
        zk_stat_from(st, &stat);
    return zk_status_of(zrc, "exists", path);
}

int zk_children(zk *z, const char *path, char ***names, size_t *n)
{
    *names = NULL;
    *n = 0;
    int rc = zk_check_call(z, "children", path);
    if (rc != ST_OK)
        return rc;
    struct String_vector sv = {0, NULL};
    int zrc = zoo_get_children(z->zh, path, 0, &sv);
    zk_heard(z, zrc);
    if (zrc != ZOK)
        return zk_status_of(zrc, "children", path);
    char **out = calloc((size_t)sv.count + 1, sizeof(char *));
    for (int32_t i = 0; out && i < sv.count; i++) {
        out[i] = strdup(sv.data[i]);
        if (!out[i]) {
            zk_names_free(out, (size_t)i);
            out = NULL;
        }
    }
    size_t count = (size_t)sv.count;
    deallocate_String_vector(&sv);
    if (!out)
        return st_error(ST_NOMEM, "zk children %s: out of memory", path);
    qsort(out, count, sizeof(char *), zk_cmp_names);
    *names = out;
    *n = count;
    return ST_OK;
}

void zk_names_free(char **names, size_t n)
{
    if (!names)
        return;
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Deletes path's subtree; ST_OK if it is gone. */
static int delete_tree(zk *z, const char *path)
{
    int rc = ST_OK;
    for (int attempt = 0; attempt < 8; attempt++) {
        char **names = NULL;
        size_t n = 0;
        rc = zk_children(z, path, &names, &n);
        for (size_t i = 0; rc == ST_OK && i < n; i++) {
            char *child = zk_path(path, names[i]);
            rc = child ? delete_tree(z, child)
                       : st_error(ST_NOMEM, "zk delete_all %s: out of memory", path);
            free(child);
        }
        zk_names_free(names, n);
        if (rc == ST_OK)
            rc = zk_delete(z, path, -1);
        if (rc == ST_NOT_FOUND)
            return ST_OK;
        if (rc != ST_INVALID_ARGUMENT) /* not "a child appeared meanwhile" */
            return rc;
    }
    return rc;
}

int zk_delete_all(zk *z, const char *path)
{
    int rc = zk_check_call(z, "delete_all", path);
    if (rc == ST_OK && path[1] == '\0')
        rc = st_error(ST_INVALID_ARGUMENT, "zk delete_all: refusing to delete /");
    return rc == ST_OK ? delete_tree(z, path) : rc;
}

char *zk_path(const char *parent, const char *rel)
{
    if (!parent || !parent[0])
        parent = ZNODES_DEFAULT_PARENT;
    size_t plen = strlen(parent);
    while (plen > 1 && parent[plen - 1] == '/')
        plen--;
    while (rel && *rel == '/')
        rel++;
    size_t rlen = rel ? strlen(rel) : 0;
    while (rlen > 0 && rel[rlen - 1] == '/')
        rlen--;
    const char *lead = parent[0] == '/' ? "" : "/";
    const char *sep = (rlen == 0 || parent[plen - 1] == '/') ? "" : "/";
    char *out = NULL;
    if (asprintf(&out, "%s%.*s%s%.*s", lead, (int)plen, parent, sep, (int)rlen,
                 rlen ? rel : "") < 0)
        return NULL;
    return out;
}
