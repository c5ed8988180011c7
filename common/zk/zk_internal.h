/*
 * zk_internal.h - the private parts of common/zk: the handle and watch structures and
 * the helpers zk.c (session, calls) and zk_watch.c (watches) share. Not part of the
 * product interface; tests/support/zk_expire.c reads the handle to end a session.
 *
 * Locks: cb_mu (held while a watch callback runs, and across its ZooKeeper calls) before
 * mu (state, event queue, watch list; never held across a ZooKeeper call or a user
 * callback).
 * Thread-safety: as zk.h.
 */
#ifndef STRATA_COMMON_ZK_ZK_INTERNAL_H
#define STRATA_COMMON_ZK_ZK_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <zookeeper/zookeeper.h>

#include "common/zk/zk.h"

#define ZK_DEFAULT_SESSION_MS 30000
#define ZK_DEFAULT_CONNECT_MS 15000
#define ZK_REARM_RETRY_MS 100
#define ZK_RC_NOMEM 1 /* read_data: out of memory (not a ZooKeeper code) */

enum { WATCH_CHILDREN, WATCH_NODE };

struct zk_watch {
    uint64_t id;
    int kind;
    char *path;
    zk_children_fn cfn;
    zk_node_fn nfn;
    void *arg;
    bool rearm; /* re-arming failed on a lost connection: retry when connected */
    struct zk_watch *next;
};

typedef struct zk_event {
    uint64_t id;
    struct zk_event *next;
} zk_event;

struct zk {
    zhandle_t *zh;
    char *quorum;
    zk_state_fn on_state;
    void *arg;
    pthread_mutex_t cb_mu;
    pthread_mutex_t mu;
    pthread_cond_t state_cv; /* state changed (zk_open waits on it) */
    pthread_cond_t queue_cv; /* an event queued, a reconnect, or stop */
    _Atomic zk_state state; /* written under mu (set_state); read lock-free */
    _Atomic int64_t last_heard;
    zk_event *qhead, *qtail;
    zk_watch *watches;
    uint64_t next_id;
    bool stop;
    bool thread_started;
    pthread_t thread;
};

/* The handle whose watch callback this thread is running (cb_mu is held for it). */
extern _Thread_local zk *zk_cb_handle;

/* Records that the ensemble answered (any reply that came from it). */
void zk_heard(zk *z, int zrc);
/* A ZooKeeper return code as a status, with a message naming op and path. */
int zk_status_of(int zrc, const char *op, const char *path);
/* ST_CLOSED once the session expired or was closed. */
int zk_check_open(zk *z, const char *op, const char *path);
/* The path is absolute and the session open. */
int zk_check_call(zk *z, const char *op, const char *path);
void zk_stat_from(zk_stat *out, const struct Stat *s);
/* strcmp of two char * (qsort of child names). */
int zk_cmp_names(const void *a, const void *b);
/* zoo_get / zoo_wget into a malloc'ed, NUL-terminated buffer; a ZooKeeper code (or
 * ZK_RC_NOMEM). */
int zk_read_data(zk *z, const char *path, watcher_fn wfn, void *wctx, uint8_t **out,
                 size_t *len, struct Stat *stat);
/* The watch thread (zk_watch.c), started by zk_open. */
void *zk_watch_main(void *arg);
/* Frees the queued events and the watches (when the handle is destroyed). */
void zk_watches_free(zk *z);

#endif
