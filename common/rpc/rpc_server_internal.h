/*
 * rpc_server_internal.h - the RPC server's private structs, shared by rpc_server.c
 * (lifecycle and stop), rpc_server_conn.c (connections, on the I/O thread) and
 * rpc_server_pool.c (call queue, handler threads, answer handoff).
 *
 * Threads: opts.io_threads I/O loops (srv_loop), each a thread with its own event_base,
 * done list and connection list. The listener lives on loop 0; each accepted socket is
 * given to the loops in turn (handed over through the loop's accept list and accept_ev),
 * and from then on only that loop's thread touches the connection, its bufferevent and
 * its loop's connection list. Handler threads touch the calls they pop, read the
 * immutable conn->peer and conn->loop, and write answers straight to the socket under
 * the connection's out_mu (below). Reference counts and `inflight` are atomic: the last
 * holder frees.
 * Locks: q_mu (the bounded queue) and accept_mu (a loop's handed-over sockets) are
 * leaves; out_mu (per connection) may be held while taking its loop's done_mu (answers
 * waiting for the I/O thread), never the other way; stop_mu is taken only by
 * rpc_server_stop, outside all of them.
 *
 * Answer output (out_mu guards fd, out_io, out_queued, partial): while out_io is false
 * the connection's output evbuffer is empty and no answer waits for the I/O thread, so a
 * handler may send() its whole frame directly (non-blocking). Otherwise - or when the
 * send would block or is short - the answer goes to the done list (out_queued counts
 * them; a short send leaves its unsent tail as `partial`, which the I/O thread writes
 * before any other byte) and the I/O thread writes it through the bufferevent. The I/O
 * thread sets out_io before it writes to the evbuffer and clears it in write_cb once the
 * evbuffer is empty and out_queued is 0. fd becomes -1 when the connection closes.
 *
 * Call path: conn_read (the connection's loop) -> pool_submit (queue, or busy answer at
 * once) -> handler thread runs it -> direct send, or the loop's done list + event_active
 * -> pool_done_cb (that loop) writes the answer if the connection is still open -> call
 * freed, conn reference dropped (on whichever thread finished the call).
 */
#ifndef STRATA_COMMON_RPC_SERVER_INTERNAL_H
#define STRATA_COMMON_RPC_SERVER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <event2/event.h>
#include <event2/listener.h>

#include "common/rpc/rpc_frame.h"
#include "common/rpc/rpc_header.h"
#include "common/rpc/rpc_server.h"

typedef struct srv_method {
    char name[RPC_METHOD_MAX + 1];
    rpc_handler_fn fn;
    void *ctx;
    bool inline_first; /* rpc_server_register_inline */
} srv_method;

/* Connection states; transitions:
 *   PREAMBLE --preamble decoded (conn_drain_frames)--> FRAMES
 *   PREAMBLE/FRAMES --stop (srv_conn_begin_drain)--> DRAINING
 *   any --bad bytes, EOF, error (conn_fail/conn_close), or drained at stop--> CLOSED */
typedef enum srv_conn_state {
    CONN_PREAMBLE,
    CONN_FRAMES,
    CONN_DRAINING,
    CONN_CLOSED
} srv_conn_state;

struct srv_loop;

typedef struct srv_conn {
    struct rpc_server *srv;
    struct srv_loop *loop; /* immutable: the I/O loop that owns the connection */
    struct bufferevent *bev; /* NULL once CLOSED */
    rpc_frame_decoder dec;
    char peer[64]; /* immutable after accept */
    srv_conn_state state;
    atomic_int refs;  /* 1 while open + 1 per call not yet answered */
    bool read_paused; /* too many unsent answers */
    pthread_mutex_t out_mu;   /* guards the four fields below (see above) */
    int fd;                   /* -1 once CLOSED */
    bool out_io;              /* the I/O thread owns the output */
    size_t out_queued;        /* answers of this connection on the done list */
    struct srv_call *partial; /* answer whose tail must be written first */
    buf_t inline_out;         /* I/O thread: inline answers of this read, sent at its end */
    struct srv_conn *prev, *next;
} srv_conn;

typedef struct srv_call {
    srv_conn *conn;
    const srv_method *m;
    rpc_request_header hdr;
    uint8_t *body;
    size_t body_len;
    uint64_t deadline_ns; /* 0 = none */
    buf_t out;            /* the encoded answer frame */
    struct srv_call *next;
} srv_call;

/* A socket accepted on loop 0 for another loop (accept_mu). */
typedef struct srv_accepted {
    evutil_socket_t fd;
    struct sockaddr_storage sa;
    int salen;
    struct srv_accepted *next;
} srv_accepted;

/* One I/O loop: a thread, its event base and the connections it owns. */
typedef struct srv_loop {
    struct rpc_server *srv;
    int index;
    struct event_base *base;
    struct event *done_ev, *stop_ev, *stop_timer, *accept_ev;
    pthread_t thread;
    bool running;
    bool draining; /* this loop's thread: its stop_cb ran (srv_check_stop may end it) */

    /* answers for this loop (done_mu) */
    pthread_mutex_t done_mu;
    srv_call *done_head, *done_tail;

    /* sockets handed over by loop 0 (accept_mu) */
    pthread_mutex_t accept_mu;
    srv_accepted *accepted;

    srv_conn *conns;         /* this loop's thread only */
    _Atomic size_t inflight; /* its calls queued, running or answered but not yet written */
} srv_loop;

struct rpc_server {
    rpc_server_opts opts;
    srv_method *methods;
    size_t n_methods;
    bool started, stopped;
    _Atomic int port;

    srv_loop *loops;
    int n_loops;
    unsigned next_loop; /* loop 0 only: where the next accepted socket goes */
    struct evconnlistener *listener; /* on loop 0 */
    pthread_t *handlers;
    int n_handlers;
    pthread_mutex_t stop_mu;

    /* bounded call queue (q_mu) */
    pthread_mutex_t q_mu;
    pthread_cond_t q_cv;
    srv_call **q;
    size_t q_head, q_len;
    bool q_closed;

    _Atomic bool stopping;

    struct {
        _Atomic uint64_t accepted, open, received, handled, busy, expired, unknown, protocol,
            paused, inlined, deferred;
    } stats;
};

#define SRV_STAT_ADD(s, field, n)                                                                  \
    atomic_fetch_add_explicit(&(s)->stats.field, (n), memory_order_relaxed)

/* rpc_server_conn.c (I/O threads) */
void srv_conn_accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
                        int salen, void *arg);
void srv_conn_accept_error_cb(struct evconnlistener *l, void *arg);
/* A loop's accept_ev: sets up the sockets loop 0 handed over. */
void srv_conn_handover_cb(evutil_socket_t fd, short what, void *arg);
void srv_conn_write(srv_conn *c, const buf_t *frame);
/* Hands the output back to direct sends if nothing is buffered or waiting for it. */
void srv_conn_out_settled(srv_conn *c);
void srv_conn_begin_drain(srv_conn *c);
void srv_conn_close(srv_conn *c);
void srv_conn_unref(srv_conn *c);

/* rpc_server_pool.c */
int srv_pool_start(struct rpc_server *s);
void srv_pool_stop(struct rpc_server *s);
/* I/O thread: queues a decoded call, or answers it busy at once. Takes ownership. */
void srv_pool_submit(struct rpc_server *s, srv_call *call);
void srv_pool_done_cb(evutil_socket_t fd, short what, void *arg);
void srv_call_free(srv_call *call);

/* rpc_server.c (the loop's thread): closes what can be closed while stopping, ends the
 * loop when nothing is left. */
void srv_check_stop(srv_loop *lp);

#endif
