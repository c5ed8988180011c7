/*
 * rpc_client.h - the RPC client: one multiplexed connection per server address, many
 * calls in flight on it matched by call id (docs/rpc.md), async calls with a completion
 * callback and sync wrappers, per-call timeouts, reconnect on the next call after a
 * connection error.
 *
 * A client owns one I/O thread (a libevent loop) that opens connections, writes calls,
 * reads answers and runs timers. Connections are keyed by the address string as given
 * ("host:port"); host names are resolved on the I/O thread (use numeric addresses or
 * /etc/hosts names where latency matters).
 *
 * Completion: every call accepted by rpc_client_call_async() completes exactly once: with
 * the answer, the server's error (code, message, retryable, retry hint), ST_TIMEOUT when
 * its timer fires first (a later answer is dropped), ST_CONNECTION (retryable) when its
 * connection fails, or ST_CLOSED when the client is freed.
 * Thread-safety: all functions may be called from any number of threads, except that
 * rpc_client_free must not race with calls on the same client nor run in a completion
 * callback, and the sync calls must not be made from a completion callback (they return
 * ST_INVALID_ARGUMENT there). Async calls may be made from a callback.
 */
#ifndef STRATA_COMMON_RPC_CLIENT_H
#define STRATA_COMMON_RPC_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

typedef struct rpc_client rpc_client;

typedef struct rpc_result {
    int status;              /* ST_OK or the failure */
    bool retryable;          /* on failure: may the same call be retried */
    uint32_t retry_after_ms; /* on failure: server's hint, 0 = none */
    char message[512];       /* on failure: what failed, naming address, method and call id */
    buf_t body;              /* on ST_OK: the response body */
    buf_t hint;              /* on failure: ExceptionResponse.hint (empty: none), e.g. the
                              * packed RegionMovedHint of ST_REGION_MOVED (docs/rpc.md) */
} rpc_result;

/* Runs on the client's I/O thread; must not block. It may take res->body and res->hint
 * (leave a zeroed buf_t behind); anything left in res is freed when it returns. */
typedef void (*rpc_done_fn)(void *arg, rpc_result *res);

typedef struct rpc_client_opts {
    uint32_t max_frame;     /* largest frame sent or accepted; default RPC_FRAME_MAX_DEFAULT */
    int default_timeout_ms; /* for calls given timeout_ms <= 0; default 60000 (HBase's) */
    int connect_timeout_ms; /* default 5000 */
} rpc_client_opts;

typedef struct rpc_client_stats {
    uint64_t connects;      /* connections established */
    uint64_t conn_failures; /* connections that failed or were lost */
    uint64_t calls;         /* calls accepted */
    uint64_t timeouts;      /* calls completed ST_TIMEOUT by their timer */
    uint64_t late_answers;  /* answers that came after their call had completed */
} rpc_client_stats;

void rpc_client_opts_default(rpc_client_opts *o);

/* Creates a client and starts its I/O thread (opts NULL = defaults). ST_OK and *out, or a
 * status with *out = NULL. */
int rpc_client_new(const rpc_client_opts *opts, rpc_client **out);

/* Completes every call in flight with ST_CLOSED, closes the connections, joins the I/O
 * thread and frees the client. NULL is allowed. */
void rpc_client_free(rpc_client *c);

/* Sends method(req) to addr ("host:port"). ST_OK: done(arg, result) will run exactly once
 * on the I/O thread. Otherwise (ST_INVALID_ARGUMENT: bad method name or request over
 * max_frame; ST_CLOSED; ST_NOMEM) done never runs. The request bytes are copied. */
int rpc_client_call_async(rpc_client *c, const char *addr, const char *method, const void *req,
                          size_t req_len, int timeout_ms, rpc_done_fn done, void *arg);

/* Sync call filling the whole result (res->body on success, res->hint on a failure that
 * carries one, each to be freed with buf_free).
 * Returns res->status, with the message also in st_errmsg(). */
int rpc_client_call_result(rpc_client *c, const char *addr, const char *method, const void *req,
                           size_t req_len, int timeout_ms, rpc_result *res);

/* Sync call: ST_OK with *resp replaced by the response body (its old content freed), or
 * the failure status with st_errmsg() set (*resp untouched); rpc_status_retryable() tells
 * whether to retry. */
int rpc_client_call(rpc_client *c, const char *addr, const char *method, const void *req,
                    size_t req_len, int timeout_ms, buf_t *resp);

/* Fails every call in flight to addr at once with ST_CONNECTION (retryable) and closes
 * the connection, as if the server had reset it (a caller that learnt the server is dead
 * does not wait for the calls' timeouts); why goes into each call's message. The next
 * call to addr opens a new connection. Asynchronous: done on the I/O thread soon after.
 * ST_OK, ST_INVALID_ARGUMENT (bad address), ST_CLOSED or ST_NOMEM. */
int rpc_client_fail_addr(rpc_client *c, const char *addr, const char *why);

void rpc_client_stats_get(const rpc_client *c, rpc_client_stats *out);

#endif
