/*
 * rpc_client_conn.c - the RPC client's connections, on its I/O thread: open (preamble
 * first), write calls, match answers to calls in flight by call id, per-call timers,
 * failure of every call in flight when the connection breaks.
 *
 * Connection life:
 *   first call to an address (start_call) -> conn_open: CONNECTING (preamble and calls
 *   queued in the output) --BEV_EVENT_CONNECTED (event_cb)--> CONNECTED
 *   any --EOF, socket error, connect timeout, undecodable answer (conn_fail)--> gone: its
 *   calls complete ST_CONNECTION; the next call to the address opens a new connection.
 * Thread-safety: I/O thread only, except cli_conn_find and cli_conn_send_direct (callers,
 * under mu); the I/O thread links and unlinks connections under mu and touches a
 * connection's output under its out_mu (rules in rpc_client_internal.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/rpc/rpc_client_internal.h"
#include "common/net.h"
#include "common/status.h"

#define TABLE_MIN 64

/* ---- the table of calls in flight, by id ---- */

static int table_grow(cli_conn *k)
{
    size_t n = k->nbuckets ? k->nbuckets * 2 : TABLE_MIN;
    cli_call **t = calloc(n, sizeof(*t));
    if (!t)
        return ST_NOMEM;
    for (size_t i = 0; i < k->nbuckets; i++) {
        cli_call *call = k->table[i], *next;
        for (; call; call = next) {
            next = call->next;
            call->next = t[call->id & (n - 1)];
            t[call->id & (n - 1)] = call;
        }
    }
    free(k->table);
    k->table = t;
    k->nbuckets = n;
    return ST_OK;
}

static int table_put(cli_conn *k, cli_call *call)
{
    if (k->count >= k->nbuckets && table_grow(k) != ST_OK)
        return st_error(ST_NOMEM, "rpc call %u %s to %s: out of memory", call->id, call->method,
                        k->addr);
    cli_call **head = &k->table[call->id & (k->nbuckets - 1)];
    for (cli_call *o = *head; o; o = o->next)
        if (o->id == call->id)
            return st_error(ST_INTERNAL, "rpc call %u %s to %s: call id still in flight", call->id,
                            call->method, k->addr);
    call->next = *head;
    *head = call;
    k->count++;
    return ST_OK;
}

static cli_call *table_take(cli_conn *k, uint32_t id)
{
    if (!k->nbuckets)
        return NULL;
    for (cli_call **p = &k->table[id & (k->nbuckets - 1)]; *p; p = &(*p)->next) {
        if ((*p)->id == id) {
            cli_call *call = *p;
            *p = call->next;
            call->next = NULL;
            k->count--;
            return call;
        }
    }
    return NULL;
}

static cli_call *table_take_any(cli_conn *k)
{
    for (size_t i = 0; i < k->nbuckets && k->count; i++)
        if (k->table[i])
            return table_take(k, k->table[i]->id);
    return NULL;
}

/* ---- completion ---- */

void cli_call_free(cli_call *call)
{
    if (call->timer)
        event_free(call->timer);
    buf_free(&call->frame);
    free(call);
}

static void complete(cli_call *call, rpc_result *res)
{
    atomic_fetch_sub(&call->cli->outstanding, 1);
    if (call->timer) {
        event_free(call->timer);
        call->timer = NULL;
    }
    call->done(call->arg, res);
    buf_free(&res->body);
    buf_free(&res->hint);
    cli_call_free(call);
}

void cli_call_fail(cli_call *call, int code, const char *fmt, ...)
{
    rpc_result res;
    memset(&res, 0, sizeof(res));
    res.status = code;
    res.retryable = rpc_status_retryable(code);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(res.message, sizeof(res.message), fmt, ap);
    va_end(ap);
    complete(call, &res);
}

/* ---- connections ---- */

/* Unlinks and frees k, completing its calls in flight with code. */
static void conn_close(cli_conn *k, int code, const char *why)
{
    char reason[256];
    snprintf(reason, sizeof(reason), "%s", why); /* why may live in k or in st_errmsg() */
    rpc_client *c = k->cli;
    pthread_mutex_lock(&c->mu);
    for (cli_conn **p = &c->conns; *p; p = &(*p)->next) {
        if (*p == k) {
            *p = k->next;
            break;
        }
    }
    pthread_mutex_unlock(&c->mu);
    pthread_mutex_lock(&k->out_mu); /* waits out a direct send in progress */
    k->fd = -1;
    pthread_mutex_unlock(&k->out_mu);
    if (k->bev)
        bufferevent_free(k->bev);
    rpc_frame_decoder_free(&k->dec);
    cli_call *call;
    while ((call = table_take_any(k)) != NULL)
        cli_call_fail(call, code, "rpc call %u %s to %s: %s", call->id, call->method, k->addr,
                      reason);
    free(k->table);
    buf_free(&k->carry);
    pthread_mutex_destroy(&k->out_mu);
    free(k);
}

static void conn_fail(cli_conn *k, const char *why)
{
    LOG_WARN("rpc client: connection to %s failed: %s; %zu calls in flight fail", k->addr, why,
             k->count);
    CLI_STAT_ADD(k->cli, failures);
    conn_close(k, ST_CONNECTION, why);
}

void cli_conns_fail_addr(rpc_client *c, const char *addr, const char *why)
{
    cli_conn *k = cli_conn_find(c, addr); /* the I/O thread owns the list: no lock needed */
    if (!k)
        return;
    LOG_INFO("rpc client: connection to %s closed: %s; %zu calls in flight fail", addr, why,
             k->count);
    CLI_STAT_ADD(c, failures);
    conn_close(k, ST_CONNECTION, why);
}

void cli_conns_close_all(rpc_client *c, int code, const char *reason)
{
    while (c->conns)
        conn_close(c->conns, code, reason);
}

/* I/O thread: queues bytes on k's output after any carried tail of a direct send. */
static int queue_out(cli_conn *k, const void *data, size_t len)
{
    int rc = 0;
    pthread_mutex_lock(&k->out_mu);
    k->out_io = true;
    if (k->carry.len) {
        rc = bufferevent_write(k->bev, k->carry.data, k->carry.len);
        buf_free(&k->carry);
    }
    if (rc == 0 && len)
        rc = bufferevent_write(k->bev, data, len);
    pthread_mutex_unlock(&k->out_mu);
    return rc;
}

static void write_cb(struct bufferevent *bev, void *arg)
{
    cli_conn *k = arg;
    pthread_mutex_lock(&k->out_mu);
    if (k->carry.len == 0 && evbuffer_get_length(bufferevent_get_output(bev)) == 0)
        k->out_io = false; /* callers may send directly again */
    pthread_mutex_unlock(&k->out_mu);
}

cli_conn *cli_conn_find(rpc_client *c, const char *addr)
{
    for (cli_conn *k = c->conns; k; k = k->next)
        if (strcmp(k->addr, addr) == 0)
            return k;
    return NULL;
}

int cli_conn_send_direct(cli_conn *k, const buf_t *frame)
{
    size_t off = 0;
    pthread_mutex_lock(&k->out_mu);
    if (k->fd < 0 || k->out_io) {
        pthread_mutex_unlock(&k->out_mu);
        return CLI_SENT_NONE;
    }
    while (off < frame->len) {
        ssize_t n = send(k->fd, frame->data + off, frame->len - off, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* would block, or an error the I/O thread will meet and report */
        off += (size_t)n;
    }
    int sent = off == frame->len ? CLI_SENT_ALL : off == 0 ? CLI_SENT_NONE : CLI_SENT_PART;
    if (sent == CLI_SENT_PART) {
        k->out_io = true;
        if (buf_append(&k->carry, frame->data + off, frame->len - off) != ST_OK) {
            LOG_ERROR("rpc client: out of memory for %zu unsent bytes to %s; closing it",
                      frame->len - off, k->addr);
            shutdown(k->fd, SHUT_RDWR); /* the stream is torn: its calls fail ST_CONNECTION */
        }
    }
    pthread_mutex_unlock(&k->out_mu);
    return sent;
}

/* I/O thread: writes the carried tails of direct sends that were cut short. */
static void flush_carries(rpc_client *c)
{
    for (cli_conn *k = c->conns; k; k = k->next) {
        pthread_mutex_lock(&k->out_mu);
        bool has = k->carry.len > 0;
        pthread_mutex_unlock(&k->out_mu);
        if (has && queue_out(k, NULL, 0) != 0)
            LOG_ERROR("rpc client: cannot queue call bytes to %s", k->addr);
    }
}

/* Completes the call an answer frame belongs to; ST_PROTOCOL if the header is bad. */
static int on_answer(cli_conn *k, const rpc_frame *f)
{
    rpc_response_header h;
    if (rpc_header_decode_response(f->header, f->header_len, &h) != ST_OK)
        return ST_PROTOCOL;
    cli_call *call = table_take(k, h.call_id);
    if (!call) {
        CLI_STAT_ADD(k->cli, late);
        LOG_DEBUG("rpc client: dropped the late answer to call %u from %s", h.call_id, k->addr);
        rpc_header_response_free(&h);
        return ST_OK;
    }
    rpc_result res;
    memset(&res, 0, sizeof(res));
    res.status = h.code;
    if (h.code == ST_OK && buf_set(&res.body, f->body, f->body_len) != ST_OK)
        res.status = ST_NOMEM;
    if (res.status != ST_OK) {
        res.retryable = h.code != ST_OK && h.retryable;
        res.retry_after_ms = h.retry_after_ms;
        if (h.hint_len && buf_set(&res.hint, h.hint, h.hint_len) != ST_OK)
            buf_free(&res.hint); /* out of memory: a hint is only a hint */
        snprintf(res.message, sizeof(res.message), "rpc call %u %s to %s: %s", call->id,
                 call->method, k->addr, h.message ? h.message : "out of memory");
    }
    rpc_header_response_free(&h);
    complete(call, &res);
    return ST_OK;
}

static void read_cb(struct bufferevent *bev, void *arg)
{
    cli_conn *k = arg;
    /* Calls sent directly are entered in the table before their answers are matched. */
    cli_submit_cb(-1, 0, k->cli);
    struct evbuffer *in = bufferevent_get_input(bev);
    struct evbuffer_iovec v;
    rpc_frame f;
    while (evbuffer_peek(in, -1, NULL, &v, 1) >= 1 && v.iov_len > 0) {
        int rc = rpc_frame_decoder_feed(&k->dec, v.iov_base, v.iov_len);
        evbuffer_drain(in, v.iov_len);
        while (rc == ST_OK && (rc = rpc_frame_decoder_next(&k->dec, &f)) == 1)
            rc = on_answer(k, &f);
        if (rc < 0) {
            conn_fail(k, st_errmsg());
            return;
        }
    }
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
    cli_conn *k = arg;
    rpc_client *c = k->cli;
    char why[200];
    if (what & BEV_EVENT_CONNECTED) {
        k->connected = true;
        net_nodelay(bufferevent_getfd(bev));
        pthread_mutex_lock(&k->out_mu);
        k->fd = bufferevent_getfd(bev);
        pthread_mutex_unlock(&k->out_mu);
        bufferevent_set_timeouts(bev, NULL, NULL);
        CLI_STAT_ADD(c, connects);
        return;
    }
    cli_submit_cb(-1, 0, c); /* calls sent directly on k fail with k's reason below */
    if (what & BEV_EVENT_TIMEOUT)
        snprintf(why, sizeof(why), "%s timed out after %d ms", k->connected ? "write" : "connect",
                 c->opts.connect_timeout_ms);
    else if ((what & BEV_EVENT_EOF) && rpc_frame_decoder_finish(&k->dec) != ST_OK)
        snprintf(why, sizeof(why), "closed by the server: %s", rpc_frame_decoder_reason(&k->dec));
    else if (what & BEV_EVENT_EOF)
        snprintf(why, sizeof(why), "closed by the server");
    else
        snprintf(why, sizeof(why), "%s: %s", k->connected ? "socket error" : "connect failed",
                 evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
    conn_fail(k, why);
}

static int conn_connect(cli_conn *k, const struct sockaddr_storage *ss, socklen_t len)
{
    rpc_client *c = k->cli;
    k->bev = bufferevent_socket_new(c->base, -1, BEV_OPT_CLOSE_ON_FREE);
    if (!k->bev)
        return st_error(ST_NOMEM, "rpc client: cannot set up a connection to %s", k->addr);
    struct timeval ct = {c->opts.connect_timeout_ms / 1000,
                         (c->opts.connect_timeout_ms % 1000) * 1000};
    bufferevent_set_timeouts(k->bev, NULL, &ct);
    /* Callbacks are set after connecting: an immediate failure is reported here, once. */
    if (bufferevent_socket_connect(k->bev, (const struct sockaddr *)ss, (int)len) != 0) {
        int err = EVUTIL_SOCKET_ERROR();
        CLI_STAT_ADD(c, failures);
        return st_error(ST_CONNECTION, "connect to %s failed: %s", k->addr,
                        evutil_socket_error_to_string(err));
    }
    bufferevent_setcb(k->bev, read_cb, write_cb, event_cb, k);
    bufferevent_enable(k->bev, EV_READ | EV_WRITE);
    uint8_t pre[RPC_PREAMBLE_LEN];
    rpc_frame_preamble(pre);
    if (queue_out(k, pre, sizeof(pre)) != 0)
        return st_error(ST_NOMEM, "rpc client: cannot queue the preamble to %s", k->addr);
    return ST_OK;
}

/* Opens a connection to addr ("host:port") and links it; ST_OK and *out, or a status. */
static int conn_open(rpc_client *c, const char *addr, cli_conn **out)
{
    char host[RPC_ADDR_MAX];
    int port = 0;
    struct sockaddr_storage ss;
    socklen_t len = 0;
    int rc = net_split_addr(addr, host, sizeof(host), &port);
    if (rc == ST_OK)
        rc = net_resolve(host, port, &ss, &len);
    if (rc != ST_OK)
        return rc;
    cli_conn *k = calloc(1, sizeof(*k));
    if (!k)
        return st_error(ST_NOMEM, "rpc client: out of memory connecting to %s", addr);
    k->cli = c;
    k->gen = ++c->next_gen;
    k->fd = -1;
    pthread_mutex_init(&k->out_mu, NULL);
    snprintf(k->addr, sizeof(k->addr), "%s", addr);
    rpc_frame_decoder_init(&k->dec, c->opts.max_frame, false);
    rc = conn_connect(k, &ss, len);
    if (rc != ST_OK) {
        if (k->bev)
            bufferevent_free(k->bev);
        rpc_frame_decoder_free(&k->dec);
        buf_free(&k->carry);
        pthread_mutex_destroy(&k->out_mu);
        free(k);
        return rc;
    }
    pthread_mutex_lock(&c->mu);
    k->next = c->conns;
    c->conns = k;
    pthread_mutex_unlock(&c->mu);
    *out = k;
    return ST_OK;
}


static void timeout_cb(evutil_socket_t fd, short what, void *arg)
{
    cli_call *call = arg;
    cli_conn *k = call->conn;
    table_take(k, call->id);
    CLI_STAT_ADD(k->cli, timeouts);
    cli_call_fail(call, ST_TIMEOUT, "rpc call %u %s to %s timed out after %d ms", call->id,
                  call->method, k->addr, call->timeout_ms);
}

/* Enters a call in its connection's table, arms its timer and writes its frame (unless it
 * was sent directly). Never closes a connection (it may run inside one's read_cb). */
static void start_call(rpc_client *c, cli_call *call)
{
    char why[256];
    cli_conn *k = cli_conn_find(c, call->addr);
    if (call->direct_gen && (!k || k->gen != call->direct_gen)) {
        cli_call_fail(call, ST_CONNECTION, "rpc call %u %s to %s: connection closed", call->id,
                      call->method, call->addr);
        return;
    }
    int rc = k ? ST_OK : conn_open(c, call->addr, &k);
    if (rc == ST_OK && !(call->timer = evtimer_new(c->base, timeout_cb, call)))
        rc = st_error(ST_NOMEM, "out of memory for a timer");
    if (rc == ST_OK)
        rc = table_put(k, call);
    if (rc != ST_OK) {
        snprintf(why, sizeof(why), "%s", st_errmsg());
        cli_call_fail(call, rc, "rpc call %u %s to %s: %s", call->id, call->method, call->addr,
                      why);
        return;
    }
    call->conn = k;
    uint64_t left_us = (uint64_t)call->timeout_ms * 1000u;
    if (call->direct_gen) { /* entered late: its timeout started at the send */
        uint64_t spent_us = (clock_mono_ns() - call->sent_ns) / 1000u;
        left_us = spent_us < left_us ? left_us - spent_us : 0;
    }
    struct timeval tv = {(time_t)(left_us / 1000000u), (suseconds_t)(left_us % 1000000u)};
    evtimer_add(call->timer, &tv);
    if (call->direct_gen)
        return;
    if (queue_out(k, call->frame.data, call->frame.len) != 0) {
        table_take(k, call->id);
        cli_call_fail(call, ST_NOMEM, "rpc call %u %s to %s: cannot queue it for writing",
                      call->id, call->method, call->addr);
        return;
    }
    buf_free(&call->frame);
}

void cli_submit_cb(evutil_socket_t fd, short what, void *arg)
{
    rpc_client *c = arg;
    pthread_mutex_lock(&c->mu);
    cli_call *call = c->sub_head;
    c->sub_head = c->sub_tail = NULL;
    pthread_mutex_unlock(&c->mu);
    while (call) {
        cli_call *next = call->next;
        call->next = NULL;
        start_call(c, call);
        call = next;
    }
    flush_carries(c);
}
