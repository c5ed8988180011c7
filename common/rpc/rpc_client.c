/*
 * rpc_client.c - the RPC client's API: options, start and stop of its I/O thread, call
 * submission (encoded on the caller's thread, sent directly when the client is otherwise
 * idle, handed over under `mu`), sync wrappers.
 * Thread-safety: see rpc_client.h; the lock is described in rpc_client_internal.h.
 */
#include "common/rpc/rpc_client.h"

#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/rpc/rpc_client_internal.h"
#include "common/net.h"
#include "common/status.h"

void rpc_client_opts_default(rpc_client_opts *o)
{
    o->max_frame = RPC_FRAME_MAX_DEFAULT;
    o->default_timeout_ms = 60000;
    o->connect_timeout_ms = 5000;
}

static void *io_main(void *arg)
{
    rpc_client *c = arg;
    net_block_sigpipe();
    event_base_loop(c->base, EVLOOP_NO_EXIT_ON_EMPTY);
    return NULL;
}

/* I/O thread, at rpc_client_free: every call submitted or in flight completes ST_CLOSED. */
static void stop_cb(evutil_socket_t fd, short what, void *arg)
{
    rpc_client *c = arg;
    pthread_mutex_lock(&c->mu);
    cli_call *call = c->sub_head;
    c->sub_head = c->sub_tail = NULL;
    pthread_mutex_unlock(&c->mu);
    while (call) {
        cli_call *next = call->next;
        cli_call_fail(call, ST_CLOSED, "rpc call %u %s to %s: client closed", call->id,
                      call->method, call->addr);
        call = next;
    }
    cli_conns_close_all(c, ST_CLOSED, "client closed");
    event_base_loopbreak(c->base);
}

/* I/O thread: the addresses rpc_client_fail_addr named lose their connections. */
static void doom_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    rpc_client *c = arg;
    pthread_mutex_lock(&c->mu);
    cli_doomed *d = c->doomed;
    c->doomed = NULL;
    pthread_mutex_unlock(&c->mu);
    cli_submit_cb(-1, 0, c); /* calls submitted before the doom are entered first */
    while (d) {
        cli_doomed *next = d->next;
        cli_conns_fail_addr(c, d->addr, d->why);
        free(d);
        d = next;
    }
}

static void destroy(rpc_client *c)
{
    while (c->doomed) {
        cli_doomed *next = c->doomed->next;
        free(c->doomed);
        c->doomed = next;
    }
    if (c->doom_ev)
        event_free(c->doom_ev);
    if (c->guard_ev)
        event_free(c->guard_ev);
    if (c->submit_ev)
        event_free(c->submit_ev);
    if (c->stop_ev)
        event_free(c->stop_ev);
    if (c->base)
        event_base_free(c->base);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

int rpc_client_new(const rpc_client_opts *opts, rpc_client **out)
{
    *out = NULL;
    int rc = net_init_threads();
    if (rc != ST_OK)
        return rc;
    rpc_client *c = calloc(1, sizeof(*c));
    if (!c)
        return st_error(ST_NOMEM, "rpc client: out of memory");
    rpc_client_opts_default(&c->opts);
    if (opts)
        c->opts = *opts;
    if (c->opts.max_frame == 0)
        c->opts.max_frame = RPC_FRAME_MAX_DEFAULT;
    if (c->opts.default_timeout_ms <= 0)
        c->opts.default_timeout_ms = 60000;
    if (c->opts.connect_timeout_ms <= 0)
        c->opts.connect_timeout_ms = 5000;
    pthread_mutex_init(&c->mu, NULL);
    c->base = event_base_new();
    if (c->base) {
        c->submit_ev = event_new(c->base, -1, 0, cli_submit_cb, c);
        c->stop_ev = event_new(c->base, -1, 0, stop_cb, c);
        c->doom_ev = event_new(c->base, -1, 0, doom_cb, c);
        c->guard_ev = event_new(c->base, -1, EV_PERSIST, cli_submit_cb, c);
    }
    struct timeval guard = {CLI_GUARD_MS / 1000, (CLI_GUARD_MS % 1000) * 1000};
    if (!c->base || !c->submit_ev || !c->stop_ev || !c->doom_ev || !c->guard_ev ||
        event_add(c->guard_ev, &guard) != 0) {
        destroy(c);
        return st_error(ST_NOMEM, "rpc client: cannot create its event loop");
    }
    if (pthread_create(&c->io_thread, NULL, io_main, c) != 0) {
        destroy(c);
        return st_error(ST_INTERNAL, "rpc client: cannot start its I/O thread");
    }
    c->io_started = true;
    *out = c;
    return ST_OK;
}

void rpc_client_free(rpc_client *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->mu);
    c->closed = true;
    pthread_mutex_unlock(&c->mu);
    event_active(c->stop_ev, EV_READ, 0);
    pthread_join(c->io_thread, NULL);
    destroy(c);
}

/* Builds a call with its request frame encoded; ST_OK and *out, or a status. */
static int call_new(rpc_client *c, const char *addr, const char *method, const void *req,
                    size_t req_len, int timeout_ms, cli_call **out)
{
    *out = NULL;
    size_t alen = addr ? strlen(addr) : 0;
    char host[RPC_ADDR_MAX];
    int port = 0;
    if (alen == 0 || alen >= RPC_ADDR_MAX ||
        net_split_addr(addr, host, sizeof(host), &port) != ST_OK)
        return st_error(ST_INVALID_ARGUMENT, "rpc call %s: bad address '%s' (want host:port)",
                        method ? method : "?", addr ? addr : "");
    cli_call *call = calloc(1, sizeof(*call));
    if (!call)
        return st_error(ST_NOMEM, "rpc call %s to %s: out of memory", method ? method : "?", addr);
    uint32_t id = atomic_fetch_add(&c->next_id, 1) + 1;
    if (id == 0) /* 0 is never used, so a zeroed header is never mistaken for a call */
        id = atomic_fetch_add(&c->next_id, 1) + 1;
    call->cli = c;
    call->id = id;
    call->timeout_ms = timeout_ms > 0 ? timeout_ms : c->opts.default_timeout_ms;
    int rc = rpc_header_encode_request(&call->frame, id, method, (uint32_t)call->timeout_ms, req,
                                       req_len, c->opts.max_frame);
    if (rc != ST_OK) {
        char why[256];
        snprintf(why, sizeof(why), "%s", st_errmsg());
        free(call);
        return st_error(rc, "rpc call %s to %s: %s", method ? method : "?", addr, why);
    }
    snprintf(call->method, sizeof(call->method), "%s", method);
    memcpy(call->addr, addr, alen + 1);
    *out = call;
    return ST_OK;
}

/* mu held: writes the call's frame straight to its established, idle connection if it
 * can; false when the I/O thread need not be woken for it. */
static bool send_direct(rpc_client *c, cli_call *call)
{
    cli_conn *k = cli_conn_find(c, call->addr);
    int sent = k ? cli_conn_send_direct(k, &call->frame) : CLI_SENT_NONE;
    if (sent == CLI_SENT_NONE)
        return true;
    call->direct_gen = k->gen;
    call->sent_ns = clock_mono_ns();
    buf_free(&call->frame);
    return sent == CLI_SENT_PART;
}

int rpc_client_call_async(rpc_client *c, const char *addr, const char *method, const void *req,
                          size_t req_len, int timeout_ms, rpc_done_fn done, void *arg)
{
    if (!done)
        return st_error(ST_INVALID_ARGUMENT, "rpc call %s: no completion callback",
                        method ? method : "?");
    cli_call *call = NULL;
    int rc = call_new(c, addr, method, req, req_len, timeout_ms, &call);
    if (rc != ST_OK)
        return rc;
    call->done = done;
    call->arg = arg;
    bool lone = atomic_fetch_add(&c->outstanding, 1) == 0;
    bool wake = true;
    pthread_mutex_lock(&c->mu);
    bool closed = c->closed;
    if (!closed) {
        if (lone && call->timeout_ms >= CLI_GUARD_MS)
            wake = send_direct(c, call);
        if (c->sub_tail)
            c->sub_tail->next = call;
        else
            c->sub_head = call;
        c->sub_tail = call;
    }
    pthread_mutex_unlock(&c->mu);
    if (closed) {
        atomic_fetch_sub(&c->outstanding, 1);
        cli_call_free(call);
        return st_error(ST_CLOSED, "rpc call %s to %s: client closed", method, addr);
    }
    CLI_STAT_ADD(c, calls);
    if (wake)
        event_active(c->submit_ev, EV_READ, 0);
    return ST_OK;
}

/* A sync call's wait: a futex word the completion sets to 1 and wakes. No mutex, so the
 * woken caller never queues behind the I/O thread for a lock it still holds. */
typedef struct sync_wait {
    _Atomic uint32_t done;
    rpc_result *res;
} sync_wait;

static void sync_done(void *arg, rpc_result *res)
{
    sync_wait *w = arg;
    *w->res = *res;
    memset(&res->body, 0, sizeof(res->body)); /* taken */
    memset(&res->hint, 0, sizeof(res->hint));
    atomic_store_explicit(&w->done, 1, memory_order_release);
    /* w may be gone once the caller saw done: a wake of its stale address is harmless
     * (at worst a spurious wake-up of whoever waits there next, who re-checks). */
    syscall(SYS_futex, &w->done, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void sync_wait_for(sync_wait *w)
{
    while (atomic_load_explicit(&w->done, memory_order_acquire) == 0)
        syscall(SYS_futex, &w->done, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
}

int rpc_client_call_result(rpc_client *c, const char *addr, const char *method, const void *req,
                           size_t req_len, int timeout_ms, rpc_result *res)
{
    memset(res, 0, sizeof(*res));
    if (pthread_equal(pthread_self(), c->io_thread)) {
        res->status =
            st_error(ST_INVALID_ARGUMENT, "rpc call %s to %s: sync call from a completion callback",
                     method ? method : "?", addr ? addr : "");
        snprintf(res->message, sizeof(res->message), "%s", st_errmsg());
        return res->status;
    }
    sync_wait w = {.done = 0, .res = res};
    int rc = rpc_client_call_async(c, addr, method, req, req_len, timeout_ms, sync_done, &w);
    if (rc != ST_OK) {
        res->status = rc;
        res->retryable = rpc_status_retryable(rc);
        snprintf(res->message, sizeof(res->message), "%s", st_errmsg());
    } else {
        sync_wait_for(&w);
    }
    if (res->status != ST_OK)
        return st_error(res->status, "%s", res->message);
    return ST_OK;
}

int rpc_client_call(rpc_client *c, const char *addr, const char *method, const void *req,
                    size_t req_len, int timeout_ms, buf_t *resp)
{
    rpc_result res;
    int rc = rpc_client_call_result(c, addr, method, req, req_len, timeout_ms, &res);
    buf_free(&res.hint);
    if (rc != ST_OK)
        return rc;
    buf_free(resp);
    *resp = res.body;
    return ST_OK;
}

int rpc_client_fail_addr(rpc_client *c, const char *addr, const char *why)
{
    if (!addr || !addr[0] || strlen(addr) >= RPC_ADDR_MAX)
        return st_error(ST_INVALID_ARGUMENT, "rpc client: bad address to fail '%s'",
                        addr ? addr : "");
    cli_doomed *d = calloc(1, sizeof(*d));
    if (!d)
        return st_error(ST_NOMEM, "rpc client: out of memory");
    snprintf(d->addr, sizeof(d->addr), "%s", addr);
    snprintf(d->why, sizeof(d->why), "%s", why && why[0] ? why : "the server is gone");
    pthread_mutex_lock(&c->mu);
    bool closed = c->closed;
    if (!closed) {
        d->next = c->doomed;
        c->doomed = d;
    }
    pthread_mutex_unlock(&c->mu);
    if (closed) {
        free(d);
        return st_error(ST_CLOSED, "rpc client: closed");
    }
    event_active(c->doom_ev, EV_READ, 0);
    return ST_OK;
}

void rpc_client_stats_get(const rpc_client *c, rpc_client_stats *out)
{
    rpc_client *m = (rpc_client *)c;
#define LOAD(f) atomic_load_explicit(&m->stats.f, memory_order_relaxed)
    out->connects = LOAD(connects);
    out->conn_failures = LOAD(failures);
    out->calls = LOAD(calls);
    out->timeouts = LOAD(timeouts);
    out->late_answers = LOAD(late);
#undef LOAD
}
