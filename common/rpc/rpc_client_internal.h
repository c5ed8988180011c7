/*
 * rpc_client_internal.h - the RPC client's private structs, shared by rpc_client.c (API,
 * lifecycle, submission, sync wrappers) and rpc_client_conn.c (connections, calls in
 * flight, answers and timers, on the I/O thread).
 *
 * Threads: callers encode their request frame on their own thread and append the call to
 * the submit list under `mu`, then wake the I/O thread with event_active(submit_ev).
 * Everything else - connections, the per-connection table of calls in flight, timers,
 * completions - belongs to the I/O thread, which changes the connection list only under
 * `mu` so that callers may search it.
 *
 * Direct send: a caller whose call is the client's only one outstanding, with a timeout of
 * at least CLI_GUARD_MS, and whose connection is established with an idle output (out_io
 * false), writes its frame to the socket itself under mu and the connection's out_mu,
 * then appends the call to the submit list marked with the connection's generation, and
 * does not wake the I/O thread: the I/O thread enters the call in the table when the answer arrives
 * (read_cb drains the submit list first) or at the latest when the guard timer fires
 * (every CLI_GUARD_MS), which is before its deadline; a short send leaves the unsent tail
 * in `carry`, which the I/O thread writes before any other byte (and then it is woken).
 * out_mu guards fd (-1 until connected and once closed), out_io (the output evbuffer may
 * hold bytes; set by the I/O thread before it writes, cleared in write_cb once empty) and
 * carry. Locks: mu before out_mu; neither is held while a completion callback runs.
 *
 * Call path: rpc_client_call_async -> submit list [direct: frame already written] ->
 * cli_submit_cb (I/O): connection found or opened, call entered in its table, timer
 * armed, frame written -> answer read (cli_conn read) or timer or connection failure ->
 * cli_call_complete: callback, free.
 */
#ifndef STRATA_COMMON_RPC_CLIENT_INTERNAL_H
#define STRATA_COMMON_RPC_CLIENT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <event2/event.h>

#include "common/rpc/rpc_client.h"
#include "common/rpc/rpc_frame.h"
#include "common/rpc/rpc_header.h"

#define RPC_ADDR_MAX 128

typedef struct cli_call {
    struct rpc_client *cli;
    uint32_t id;
    int timeout_ms;
    char method[RPC_METHOD_MAX + 1];
    char addr[RPC_ADDR_MAX];
    buf_t frame; /* the encoded request, until written */
    rpc_done_fn done;
    void *arg;
    struct event *timer;
    struct cli_conn *conn;
    uint64_t direct_gen; /* generation of the connection it was sent on directly, 0 = none */
    uint64_t sent_ns;    /* clock_mono_ns() of a direct send: its timeout runs from there */
    struct cli_call *next; /* submit list, then the table's chain */
} cli_call;

/* An address whose calls in flight are to fail (rpc_client_fail_addr), until the I/O thread
 * takes it. */
typedef struct cli_doomed {
    char addr[RPC_ADDR_MAX];
    char why[256];
    struct cli_doomed *next;
} cli_doomed;

typedef struct cli_conn {
    struct rpc_client *cli;
    char addr[RPC_ADDR_MAX];
    struct bufferevent *bev;
    rpc_frame_decoder dec;
    bool connected;
    uint64_t gen; /* unique per connection of this client, never 0 */
    pthread_mutex_t out_mu;
    int fd;      /* out_mu: the socket once connected, -1 before and once closed */
    bool out_io; /* out_mu: the output evbuffer may hold bytes */
    buf_t carry; /* out_mu: unsent tail of a short direct send */
    cli_call **table; /* calls in flight, chained by id; nbuckets is a power of two */
    size_t nbuckets, count;
    struct cli_conn *next;
} cli_conn;

struct rpc_client {
    rpc_client_opts opts;
    struct event_base *base;
    struct event *submit_ev, *stop_ev, *doom_ev;
    pthread_t io_thread;
    bool io_started;

    struct event *guard_ev; /* every CLI_GUARD_MS: enters directly sent calls */
    pthread_mutex_t mu; /* guards the submit list, `closed`, and changes to `conns` */
    cli_call *sub_head, *sub_tail;
    cli_doomed *doomed; /* mu: addresses rpc_client_fail_addr named, for the I/O thread */
    bool closed;

    _Atomic uint32_t next_id;
    _Atomic uint64_t outstanding; /* calls submitted and not yet completed */
    uint64_t next_gen;            /* I/O thread only */
    cli_conn *conns; /* changed by the I/O thread under mu; searched by callers under mu */

    struct {
        _Atomic uint64_t connects, failures, calls, timeouts, late;
    } stats;
};

#define CLI_STAT_ADD(c, field) atomic_fetch_add_explicit(&(c)->stats.field, 1, memory_order_relaxed)

#define CLI_GUARD_MS 1000

/* rpc_client_conn.c (I/O thread) */
void cli_submit_cb(evutil_socket_t fd, short what, void *arg);
/* Any thread, mu held: the connection to addr, if any. */
cli_conn *cli_conn_find(struct rpc_client *c, const char *addr);
/* Caller thread, mu held: if k is established with an idle output, sends what it can of
 * the frame without blocking: CLI_SENT_NONE (use the normal path), CLI_SENT_ALL, or
 * CLI_SENT_PART (the tail is in k->carry and the I/O thread must be woken). */
enum { CLI_SENT_NONE, CLI_SENT_ALL, CLI_SENT_PART };
int cli_conn_send_direct(cli_conn *k, const buf_t *frame);
/* Completes every call in flight on every connection with `code` and frees the connections. */
void cli_conns_close_all(struct rpc_client *c, int code, const char *reason);
/* I/O thread: closes the connection to addr, if any, completing its calls in flight with
 * ST_CONNECTION and why; calls submitted and not yet started to addr fail the same way. */
void cli_conns_fail_addr(struct rpc_client *c, const char *addr, const char *why);
/* Runs the call's callback with a failure and frees the call. */
void cli_call_fail(cli_call *call, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void cli_call_free(cli_call *call);

#endif
