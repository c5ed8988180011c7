/*
 * rpc_server.h - the RPC server: libevent I/O threads (opts.io_threads, each with its own
 * event base; connections are dealt out to them in turn as they are accepted) that read
 * and decode calls (docs/rpc.md), a bounded call queue, and a pool of handler threads that
 * run the registered methods.
 *
 * Lifecycle: rpc_server_new -> rpc_server_register (any number, before start) ->
 * rpc_server_start -> ... -> rpc_server_stop (graceful) -> rpc_server_free.
 *
 * Handlers run on the handler threads, never on the I/O thread, so they may block on
 * disk and fsync; they must return in bounded time (a handler that never returns makes
 * rpc_server_stop wait forever).
 * Thread-safety: rpc_server_port and rpc_server_stats may be called from any thread at
 * any time; rpc_server_stop from any thread except a handler; the rest from one owner.
 */
#ifndef STRATA_COMMON_RPC_SERVER_H
#define STRATA_COMMON_RPC_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

typedef struct rpc_server rpc_server;

/* What a handler is given. Everything points at memory owned by the server, valid for
 * the duration of the handler call. */
typedef struct rpc_request {
    const char *method;  /* "Service.Method" */
    const uint8_t *body; /* request body (may be NULL when body_len is 0) */
    size_t body_len;
    uint32_t call_id;
    const char *peer;     /* "ip:port" of the client */
    uint64_t deadline_ns; /* clock_mono_ns() instant the client stops waiting, 0 = none */
} rpc_request;

/* What a handler fills. body starts empty and is sent on success; retry_after_ms is a
 * retry hint sent with an error, and hint (starts empty) the bytes sent with an error as
 * ExceptionResponse.hint (a packed RegionMovedHint with ST_REGION_MOVED, docs/rpc.md).
 * The server frees both. */
typedef struct rpc_reply {
    buf_t body;
    uint32_t retry_after_ms;
    buf_t hint;
} rpc_reply;

/* A method. Returns ST_OK with the response in reply->body, or a negative status with the
 * message set by st_error() on the handler's thread (sent to the client as code and
 * message; retryable as rpc_status_retryable() says). Runs on a handler thread. */
typedef int (*rpc_handler_fn)(void *ctx, const rpc_request *req, rpc_reply *reply);

typedef struct rpc_server_opts {
    int handler_threads;          /* default 8 */
    int io_threads;               /* I/O loops, 1..RPC_SERVER_IO_THREADS_MAX; default 1 */
    int queue_capacity;           /* calls waiting for a handler; default 1024; full -> busy */
    uint32_t max_frame;           /* largest frame accepted; default RPC_FRAME_MAX_DEFAULT */
    int stop_timeout_ms;          /* how long stop waits to write answers out; default 5000 */
    uint32_t busy_retry_after_ms; /* retry hint sent with ST_SERVER_BUSY; default 100 */
} rpc_server_opts;

/* Counters since start (monotonic). */
typedef struct rpc_server_stats {
    uint64_t connections_accepted;
    uint64_t connections_open;
    uint64_t calls_received;   /* well-formed calls, including those rejected below */
    uint64_t calls_handled;    /* calls a handler ran */
    uint64_t busy_rejections;  /* answered ST_SERVER_BUSY: queue full */
    uint64_t deadline_expired; /* answered ST_TIMEOUT without running */
    uint64_t unknown_methods;  /* answered ST_UNSUPPORTED */
    uint64_t protocol_errors;  /* connections closed for a bad preamble/frame/header */
    uint64_t read_pauses;      /* times a connection's reads paused for unread answers */
    uint64_t calls_inline;     /* answered on the I/O thread (rpc_server_register_inline) */
    uint64_t calls_deferred;   /* tried there, would have blocked, queued for a handler */
    uint64_t io_threads;       /* I/O loops (a setting, not a counter) */
} rpc_server_stats;

#define RPC_SERVER_IO_THREADS_MAX 64

/* Largest amount of unsent answers one connection may hold before the server stops
 * reading its calls (resumed when the client has read them). */
#define RPC_SERVER_OUT_HIGH (8u << 20)

void rpc_server_opts_default(rpc_server_opts *o);

/* Creates a stopped server (opts NULL = defaults). ST_OK and *out, or ST_NOMEM /
 * ST_INVALID_ARGUMENT with *out = NULL. */
int rpc_server_new(const rpc_server_opts *opts, rpc_server **out);

/* Registers a method under "Service.Method" (at most RPC_METHOD_MAX bytes). ctx is passed
 * to every call. Only before rpc_server_start. ST_EXISTS if the name is taken. */
int rpc_server_register(rpc_server *s, const char *method, rpc_handler_fn fn, void *ctx);
/* The same for a short method that is first tried on the I/O thread that read the call
 * (no hand-off to a handler and back; with several I/O threads several such calls may run
 * at once): there fn must not block, and rpc_server_on_io_thread() is true; if it would need to (a disk read), it returns ST_WOULD_BLOCK having changed
 * nothing, and the call is queued for a handler as any other. */
int rpc_server_register_inline(rpc_server *s, const char *method, rpc_handler_fn fn, void *ctx);
/* True while this thread runs a method on one of the server's I/O threads (see above). */
bool rpc_server_on_io_thread(void);

/* Binds host:port (port 0 = any free port; host NULL = "127.0.0.1"), starts the I/O thread
 * and the handler threads. ST_OK; ST_IO (bind/listen failed, message names the address);
 * ST_INVALID_ARGUMENT if already started. */
int rpc_server_start(rpc_server *s, const char *host, int port);

/* The bound TCP port once started, else 0. */
int rpc_server_port(const rpc_server *s);

/* Graceful stop: closes the listener, stops reading calls, finishes and answers every call
 * already received, writes the answers out (at most stop_timeout_ms), closes connections
 * and joins all threads. Idempotent. The server can't be started again. */
void rpc_server_stop(rpc_server *s);

/* Stops the server if running and frees it. NULL is allowed. */
void rpc_server_free(rpc_server *s);

void rpc_server_stats_get(const rpc_server *s, rpc_server_stats *out);

#endif
