/*
 * rpc_client_internal.h - the RPC client's private structs, shared by rpc_client.c (API,
 * lifecycle, submission, sync wrappers) and rpc_client_conn.c (connections, calls in
 * flight, answers and timers, on the I/O thread).
 *
 * Threads: callers encode their request frame on their own thread and append the call to
 * the submit list under `mu` (the only lock; a leaf), then wake the I/O thread with
 * event_active(submit_ev). Everything else - connections, the per-connection table of
 * calls in flight, timers, completions - belongs to the I/O thread.
 *
 * Call path: rpc_client_call_async -> submit list -> cli_submit_cb (I/O): connection found
 * or opened, call entered in its table, timer armed, frame written -> answer read
 * (cli_conn read) or timer or connection failure -> cli_call_complete: callback, free.
 */
#ifndef STRATA_COMMON_RPC_CLIENT_INTERNAL_H
#define STRATA_COMMON_RPC_CLIENT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <event2/event.h>

#include "common/rpc_client.h"
#include "common/rpc_frame.h"
#include "common/rpc_header.h"

#define RPC_ADDR_MAX 128

typedef struct cli_call {
    uint32_t id;
    int timeout_ms;
    char method[RPC_METHOD_MAX + 1];
    char addr[RPC_ADDR_MAX];
    buf_t frame; /* the encoded request, until written */
    rpc_done_fn done;
    void *arg;
    struct event *timer;
    struct cli_conn *conn;
    struct cli_call *next; /* submit list, then the table's chain */
} cli_call;

typedef struct cli_conn {
    struct rpc_client *cli;
    char addr[RPC_ADDR_MAX];
    struct bufferevent *bev;
    rpc_frame_decoder dec;
    bool connected;
    cli_call **table; /* calls in flight, chained by id; nbuckets is a power of two */
    size_t nbuckets, count;
    struct cli_conn *next;
} cli_conn;

struct rpc_client {
    rpc_client_opts opts;
    struct event_base *base;
    struct event *submit_ev, *stop_ev;
    pthread_t io_thread;
    bool io_started;

    pthread_mutex_t mu; /* guards the submit list and `closed` */
    cli_call *sub_head, *sub_tail;
    bool closed;

    _Atomic uint32_t next_id;
    cli_conn *conns; /* I/O thread only */

    struct {
        _Atomic uint64_t connects, failures, calls, timeouts, late;
    } stats;
};

#define CLI_STAT_ADD(c, field) atomic_fetch_add_explicit(&(c)->stats.field, 1, memory_order_relaxed)

/* rpc_client_conn.c (I/O thread) */
void cli_submit_cb(evutil_socket_t fd, short what, void *arg);
/* Completes every call in flight on every connection with `code` and frees the connections. */
void cli_conns_close_all(struct rpc_client *c, int code, const char *reason);
/* Runs the call's callback with a failure and frees the call. */
void cli_call_fail(cli_call *call, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void cli_call_free(cli_call *call);

#endif
