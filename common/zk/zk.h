/*
 * zk.h - a ZooKeeper session over the multi-threaded C client (zookeeper_mt): connect
 * with a deadline, synchronous calls mapped to Strata statuses, and watches that re-arm
 * themselves. Every znode Strata uses is described in docs/znodes.md.
 *
 * Session states: CONNECTING -> CONNECTED <-> CONNECTING (a lost connection; the client
 * library reconnects on its own and the session, its ephemeral nodes and its watches
 * survive) -> EXPIRED (the ensemble ended the session: its ephemeral nodes are gone, no
 * call succeeds any more; the caller must handle it: a region server aborts, a master
 * gives up being master) or CLOSED (zk_close). The state callback runs on the client's
 * event thread for every change.
 *
 * Liveness: zk_last_heard_ns() is the monotonic time (clock_mono_ns) of the last moment
 * the session was known to be alive: the last successful call, or a CONNECTED event.
 * zk_ping() makes a cheap call (exists on the root) to refresh it. A paused process sees
 * the whole pause in now - last_heard (self-fencing, DESIGN.md §3).
 *
 * Status mapping: ZNONODE -> ST_NOT_FOUND, ZNODEEXISTS -> ST_EXISTS, ZBADVERSION ->
 * ST_ORDER, ZNOTEMPTY -> ST_INVALID_ARGUMENT, ZSESSIONEXPIRED / ZINVALIDSTATE (after
 * expiry) -> ST_CLOSED, ZCONNECTIONLOSS / ZOPERATIONTIMEOUT -> ST_CONNECTION, ZNOAUTH ->
 * ST_PERMISSION, anything else ST_IO. Messages name the path and the operation.
 *
 * Watches: zk_watch_children() and zk_watch_node() register a callback that runs once
 * at once (from the calling thread, before returning) with the current state, and again
 * (from the watch thread) after every change, re-arming the ZooKeeper watch each time.
 * Callbacks of one zk handle run one at a time on one thread, in event order; they may
 * call any zk function except zk_close/zk_unwatch of their own watch. Over a connection
 * loss the library keeps the watches; after an expiry they are dead (the handle is).
 *
 * Thread-safety: every call is safe from any thread once zk_open returned.
 */
#ifndef STRATA_COMMON_ZK_H
#define STRATA_COMMON_ZK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct zk zk;

typedef enum zk_state {
    ZK_CONNECTING = 0,
    ZK_CONNECTED = 1,
    ZK_EXPIRED = 2,
    ZK_CLOSED = 3,
} zk_state;

const char *zk_state_name(zk_state st);

/* Called on every state change (from the client's event thread; keep it short). */
typedef void (*zk_state_fn)(void *arg, zk_state st);

typedef struct zk_options {
    const char *quorum;         /* "host:port[,host:port...]" (required) */
    int session_timeout_ms;     /* asked for; the ensemble may adjust it; default 30000 */
    int connect_timeout_ms;     /* zk_open waits this long for CONNECTED; default 15000 */
    zk_state_fn on_state;       /* may be NULL */
    void *arg;
} zk_options;

/* Opens a session and waits until it is connected: ST_OK and *out, ST_TIMEOUT naming
 * the quorum if it did not connect in time, ST_INVALID_ARGUMENT for a bad quorum. */
int zk_open(const zk_options *o, zk **out);
/* Ends the session (its ephemeral nodes go at once), stops the watch thread and frees z.
 * NULL is a no-op. */
void zk_close(zk *z);

zk_state zk_get_state(zk *z);
int64_t zk_session_id(zk *z);
/* The timeout the ensemble granted (ms). */
int zk_session_timeout_ms(zk *z);
int64_t zk_last_heard_ns(zk *z);
/* A cheap round trip that refreshes zk_last_heard_ns; the call's status. */
int zk_ping(zk *z);

/* Node metadata (a subset of ZooKeeper's Stat). */
typedef struct zk_stat {
    int32_t version;
    int64_t ephemeral_owner; /* session id of the owner; 0 for a persistent node */
    int64_t mtime_ms;
    int32_t num_children;
    int32_t data_length;
} zk_stat;

enum {
    ZK_PERSISTENT = 0,
    ZK_EPHEMERAL = 1,
    ZK_SEQUENTIAL = 2, /* or-ed with the above */
};

/* Creates path with data (len may be 0). ST_EXISTS if it exists, ST_NOT_FOUND if the
 * parent is missing. With ZK_SEQUENTIAL the name made is copied to created (if not
 * NULL, cap bytes). */
int zk_create(zk *z, const char *path, const void *data, size_t len, int flags, char *created,
              size_t cap);
/* Creates path and its missing ancestors as persistent empty nodes; ST_OK if it exists. */
int zk_create_all(zk *z, const char *path);
/* Reads path: ST_OK with *data (malloc'ed, NUL-terminated for convenience; *len excludes
 * the NUL) and *st (may be NULL); ST_NOT_FOUND. */
int zk_get(zk *z, const char *path, uint8_t **data, size_t *len, zk_stat *st);
/* Sets path's data if its version is version (-1: any). ST_ORDER on a version mismatch. */
int zk_set(zk *z, const char *path, const void *data, size_t len, int32_t version);
/* Deletes path if its version is version (-1: any). ST_NOT_FOUND, ST_ORDER,
 * ST_INVALID_ARGUMENT if it has children. */
int zk_delete(zk *z, const char *path, int32_t version);
/* Deletes path and everything below it; ST_OK if it did not exist. */
int zk_delete_all(zk *z, const char *path);
/* ST_OK (and *st, may be NULL) if path exists, ST_NOT_FOUND if not. */
int zk_exists(zk *z, const char *path, zk_stat *st);
/* The names (not paths) of path's children, sorted: ST_OK with *names (free with
 * zk_names_free) and *n; ST_NOT_FOUND. */
int zk_children(zk *z, const char *path, char ***names, size_t *n);
void zk_names_free(char **names, size_t n);

typedef struct zk_watch zk_watch;

/* Children of path changed (or first call). names sorted, NULL/0 while path does not
 * exist (exists false). Borrowed for the call. */
typedef void (*zk_children_fn)(void *arg, const char *path, bool exists, char **names, size_t n);
/* path created, changed or deleted (or first call): exists, and data/len/st when it does
 * (borrowed for the call). */
typedef void (*zk_node_fn)(void *arg, const char *path, bool exists, const uint8_t *data,
                           size_t len, const zk_stat *st);

/* Watches path's children (the node itself need not exist yet). ST_OK and *out (may be
 * NULL if the caller never unwatches) after the first callback ran. */
int zk_watch_children(zk *z, const char *path, zk_children_fn fn, void *arg, zk_watch **out);
/* Watches path's existence and data. */
int zk_watch_node(zk *z, const char *path, zk_node_fn fn, void *arg, zk_watch **out);
/* Stops a watch: after it returns the callback does not run again (waits if it is
 * running on another thread). NULL is a no-op. */
void zk_unwatch(zk *z, zk_watch *w);

/* Joins a parent (ZNODES_DEFAULT_PARENT when parent is NULL or "") and a relative path
 * ("rs", "rs/host,1,2"): malloc'ed "/strata/rs/host,1,2"; NULL if out of memory. */
char *zk_path(const char *parent, const char *rel);

#endif
