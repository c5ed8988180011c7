/*
 * rpc_server_conn.c - one server-side connection: accept, read and decode calls, hand them
 * to the pool, write answers, close with a logged reason.
 *
 * State machine (srv_conn_state in rpc_server_internal.h):
 *
 *   accept (srv_conn_accept_cb) -> PREAMBLE --good preamble (drain_frames)--> FRAMES
 *   FRAMES --frame (dispatch)--> FRAMES: queued, or answered busy/unsupported at once
 *   PREAMBLE|FRAMES --stop (srv_conn_begin_drain)--> DRAINING: no more reads
 *   any --bad bytes (fail) | EOF | socket error (event_cb) | drained at stop--> CLOSED
 *
 * A bad preamble, frame or header closes only this connection; the reason is logged with
 * the peer address and counted in protocol_errors. A CLOSED connection's struct lives on
 * until its last call is answered (refs, atomic: a handler thread may drop the last one).
 * Thread-safety: the connection's I/O loop only, except srv_conn_unref; handler threads
 * read conn->peer and send answers under out_mu (see rpc_server_internal.h), which srv_conn_close and
 * srv_conn_write take too.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/net.h"
#include "common/rpc/rpc_server_internal.h"
#include "common/status.h"

static void conn_link(srv_loop *lp, srv_conn *c)
{
    c->next = lp->conns;
    if (lp->conns)
        lp->conns->prev = c;
    lp->conns = c;
}

static void conn_unlink(srv_loop *lp, srv_conn *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        lp->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
}

void srv_conn_unref(srv_conn *c)
{
    if (atomic_fetch_sub(&c->refs, 1) == 1) {
        pthread_mutex_destroy(&c->out_mu);
        free(c);
    }
}

void srv_conn_close(srv_conn *c)
{
    if (c->state == CONN_CLOSED)
        return;
    c->state = CONN_CLOSED;
    pthread_mutex_lock(&c->out_mu);
    c->fd = -1; /* no handler sends from here on; the socket closes below */
    c->partial = NULL;
    pthread_mutex_unlock(&c->out_mu);
    buf_free(&c->inline_out);
    bufferevent_free(c->bev);
    c->bev = NULL;
    conn_unlink(c->loop, c);
    rpc_frame_decoder_free(&c->dec);
    atomic_fetch_sub_explicit(&c->srv->stats.open, 1, memory_order_relaxed);
    srv_conn_unref(c);
}

/* Closes the connection for bytes that break the protocol. */
static void fail(srv_conn *c, const char *reason)
{
    LOG_WARN("rpc server: closing connection from %s: %s", c->peer, reason);
    SRV_STAT_ADD(c->srv, protocol, 1);
    srv_conn_close(c);
}

void srv_conn_begin_drain(srv_conn *c)
{
    if (c->state != CONN_PREAMBLE && c->state != CONN_FRAMES)
        return;
    c->state = CONN_DRAINING;
    bufferevent_disable(c->bev, EV_READ);
}

/* Queues bytes on the output evbuffer; out_mu held, I/O thread. */
static void queue_out(srv_conn *c, const buf_t *b)
{
    if (b->len == 0)
        return;
    c->out_io = true;
    if (bufferevent_write(c->bev, b->data, b->len) != 0)
        LOG_ERROR("rpc server: cannot queue %zu answer bytes to %s", b->len, c->peer);
}

void srv_conn_write(srv_conn *c, const buf_t *frame)
{
    if (c->state == CONN_CLOSED)
        return;
    pthread_mutex_lock(&c->out_mu);
    if (c->partial) { /* the unsent tail of a short direct send goes first */
        queue_out(c, &c->partial->out);
        buf_reset(&c->partial->out);
        c->partial = NULL;
    }
    queue_out(c, frame);
    pthread_mutex_unlock(&c->out_mu);
    size_t pending = evbuffer_get_length(bufferevent_get_output(c->bev));
    if (!c->read_paused && pending > RPC_SERVER_OUT_HIGH && c->state != CONN_DRAINING) {
        LOG_DEBUG("rpc server: %s has %zu unread answer bytes; pausing its reads", c->peer,
                  pending);
        bufferevent_disable(c->bev, EV_READ);
        c->read_paused = true;
        SRV_STAT_ADD(c->srv, paused, 1);
    }
}

void srv_conn_out_settled(srv_conn *c)
{
    if (c->state == CONN_CLOSED)
        return;
    pthread_mutex_lock(&c->out_mu);
    if (c->out_queued == 0 && !c->partial &&
        evbuffer_get_length(bufferevent_get_output(c->bev)) == 0)
        c->out_io = false; /* handlers may send directly again */
    pthread_mutex_unlock(&c->out_mu);
}

static const srv_method *find_method(const rpc_server *s, const char *name)
{
    for (size_t i = 0; i < s->n_methods; i++)
        if (strcmp(s->methods[i].name, name) == 0)
            return &s->methods[i];
    return NULL;
}

/* Answers a call on the I/O thread without queueing it. */
static void answer_now(srv_conn *c, uint32_t call_id, int code, const char *msg)
{
    buf_t out = {0};
    if (rpc_header_encode_error(&out, call_id, code, msg, rpc_status_retryable(code), 0) == ST_OK)
        srv_conn_write(c, &out);
    buf_free(&out);
}

static srv_call *call_new(srv_conn *c, const rpc_request_header *h, const srv_method *m,
                          const rpc_frame *f)
{
    srv_call *call = calloc(1, sizeof(*call));
    if (!call)
        return NULL;
    if (f->body_len && !(call->body = malloc(f->body_len))) {
        free(call);
        return NULL;
    }
    if (f->body_len)
        memcpy(call->body, f->body, f->body_len);
    call->body_len = f->body_len;
    call->hdr = *h;
    call->m = m;
    call->conn = c;
    if (h->deadline_ms)
        call->deadline_ns = clock_mono_ns() + (uint64_t)h->deadline_ms * 1000000u;
    atomic_fetch_add(&c->refs, 1);
    atomic_fetch_add(&c->loop->inflight, 1);
    return call;
}

static _Thread_local bool on_io_thread;

bool rpc_server_on_io_thread(void)
{
    return on_io_thread;
}

/* Tries an inline method on the I/O thread; true if it answered (the answer joins the
 * connection's output, so answers to calls read together leave in one write), false if
 * it would block and must go to a handler. */
static bool run_inline(srv_conn *c, const rpc_request_header *h, const srv_method *m,
                       const rpc_frame *f)
{
    rpc_server *s = c->srv;
    rpc_request req = {.method = h->method,
                       .body = f->body,
                       .body_len = f->body_len,
                       .call_id = h->call_id,
                       .peer = c->peer,
                       .deadline_ns = h->deadline_ms
                                          ? clock_mono_ns() + (uint64_t)h->deadline_ms * 1000000u
                                          : 0};
    rpc_reply reply;
    memset(&reply, 0, sizeof(reply));
    st_clear();
    on_io_thread = true;
    int rc = m->fn(m->ctx, &req, &reply);
    on_io_thread = false;
    if (rc == ST_WOULD_BLOCK) {
        buf_free(&reply.body);
        buf_free(&reply.hint);
        SRV_STAT_ADD(s, deferred, 1);
        return false;
    }
    SRV_STAT_ADD(s, handled, 1);
    SRV_STAT_ADD(s, inlined, 1);
    buf_t out = {0};
    if (rc == ST_OK)
        rc = rpc_header_encode_reply(&out, h->call_id, reply.body.data, reply.body.len,
                                     s->opts.max_frame);
    if (rc != ST_OK) {
        buf_reset(&out);
        if (rpc_header_encode_error_hint(&out, h->call_id, rc < 0 ? rc : ST_INTERNAL,
                                         st_errmsg(), rpc_status_retryable(rc),
                                         reply.retry_after_ms, reply.hint.data,
                                         reply.hint.len) != ST_OK)
            LOG_ERROR("rpc server: call %u %s from %s: cannot encode error answer: %s",
                      h->call_id, h->method, c->peer, st_errmsg());
    }
    if (buf_append(&c->inline_out, out.data, out.len) != ST_OK)
        srv_conn_write(c, &out);
    buf_free(&out);
    buf_free(&reply.body);
    buf_free(&reply.hint);
    return true;
}

/* End of a read: sends the inline answers it produced, all in one system call when the
 * output is idle (else, or for what the socket does not take, through the bufferevent,
 * after any bytes already there). */
static void flush_inline(srv_conn *c)
{
    buf_t *b = &c->inline_out;
    size_t off = 0;
    pthread_mutex_lock(&c->out_mu);
    bool direct = !c->out_io && !c->partial && c->fd >= 0;
    while (direct && off < b->len) {
        ssize_t n = send(c->fd, b->data + off, b->len - off, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* full, or broken: the bufferevent takes the rest and sees the error */
        off += (size_t)n;
    }
    if (direct && off < b->len) {
        buf_t rest = {b->data + off, b->len - off, 0};
        queue_out(c, &rest);
    }
    pthread_mutex_unlock(&c->out_mu);
    if (!direct)
        srv_conn_write(c, b);
    buf_reset(b);
}

static void dispatch(srv_conn *c, const rpc_frame *f)
{
    rpc_server *s = c->srv;
    rpc_request_header h;
    char msg[256];
    if (rpc_header_decode_request(f->header, f->header_len, &h) != ST_OK) {
        fail(c, st_errmsg());
        return;
    }
    SRV_STAT_ADD(s, received, 1);
    const srv_method *m = find_method(s, h.method);
    if (!m) {
        SRV_STAT_ADD(s, unknown, 1);
        snprintf(msg, sizeof(msg), "unknown method %s (call %u from %s)", h.method, h.call_id,
                 c->peer);
        answer_now(c, h.call_id, ST_UNSUPPORTED, msg);
        return;
    }
    if (m->inline_first && c->state == CONN_FRAMES && run_inline(c, &h, m, f))
        return;
    srv_call *call = call_new(c, &h, m, f);
    if (!call) {
        snprintf(msg, sizeof(msg), "out of memory for call %u %s (%zu bytes) from %s", h.call_id,
                 h.method, f->body_len, c->peer);
        answer_now(c, h.call_id, ST_NOMEM, msg);
        return;
    }
    srv_pool_submit(s, call);
}

static void drain_frames(srv_conn *c)
{
    rpc_frame f;
    while (c->state == CONN_PREAMBLE || c->state == CONN_FRAMES) {
        int rc = rpc_frame_decoder_next(&c->dec, &f);
        if (rc < 0) {
            fail(c, rpc_frame_decoder_reason(&c->dec));
            return;
        }
        if (c->state == CONN_PREAMBLE && !c->dec.want_preamble)
            c->state = CONN_FRAMES;
        if (rc == 0)
            return;
        dispatch(c, &f);
    }
}

static void read_cb(struct bufferevent *bev, void *arg)
{
    srv_conn *c = arg;
    struct evbuffer *in = bufferevent_get_input(bev);
    struct evbuffer_iovec v;
    atomic_fetch_add(&c->refs, 1); /* c may be closed below; keep the struct until we are done with it */
    while (c->state == CONN_PREAMBLE || c->state == CONN_FRAMES) {
        if (evbuffer_peek(in, -1, NULL, &v, 1) < 1 || v.iov_len == 0)
            break;
        int rc = rpc_frame_decoder_feed(&c->dec, v.iov_base, v.iov_len);
        evbuffer_drain(in, v.iov_len);
        if (rc != ST_OK) {
            fail(c, st_errmsg());
            break;
        }
        drain_frames(c);
    }
    if (c->state != CONN_CLOSED && c->inline_out.len)
        flush_inline(c);
    srv_conn_unref(c);
}

static void write_cb(struct bufferevent *bev, void *arg)
{
    srv_conn *c = arg;
    srv_loop *lp = c->loop;
    srv_conn_out_settled(c);
    if (c->read_paused) {
        c->read_paused = false;
        if (c->state == CONN_PREAMBLE || c->state == CONN_FRAMES)
            bufferevent_enable(bev, EV_READ);
    }
    srv_check_stop(lp);
}

static void event_cb(struct bufferevent *bev, short what, void *arg)
{
    srv_conn *c = arg;
    srv_loop *lp = c->loop; /* c may be freed below */
    if (what & BEV_EVENT_EOF) {
        if (rpc_frame_decoder_finish(&c->dec) != ST_OK) {
            fail(c, rpc_frame_decoder_reason(&c->dec));
        } else {
            LOG_DEBUG("rpc server: %s closed its connection", c->peer);
            srv_conn_close(c);
        }
    } else if (what & BEV_EVENT_ERROR) {
        int err = EVUTIL_SOCKET_ERROR();
        LOG_INFO("rpc server: closing connection from %s: %s error: %s", c->peer,
                 (what & BEV_EVENT_READING) ? "read" : "write", evutil_socket_error_to_string(err));
        srv_conn_close(c);
    }
    srv_check_stop(lp);
}

/* On lp's thread: makes the connection for an accepted socket. */
static void conn_setup(srv_loop *lp, evutil_socket_t fd, const struct sockaddr *sa)
{
    rpc_server *s = lp->srv;
    if (atomic_load(&s->stopping)) {
        evutil_closesocket(fd);
        return;
    }
    srv_conn *c = calloc(1, sizeof(*c));
    if (!c) {
        LOG_ERROR("rpc server: out of memory accepting a connection");
        evutil_closesocket(fd);
        return;
    }
    c->srv = s;
    c->loop = lp;
    atomic_init(&c->refs, 1);
    pthread_mutex_init(&c->out_mu, NULL);
    c->fd = fd;
    c->state = CONN_PREAMBLE;
    net_format_addr(sa, c->peer, sizeof(c->peer));
    c->bev = bufferevent_socket_new(lp->base, fd, BEV_OPT_CLOSE_ON_FREE);
    if (!c->bev) {
        LOG_ERROR("rpc server: cannot set up the connection from %s", c->peer);
        evutil_closesocket(fd);
        pthread_mutex_destroy(&c->out_mu);
        free(c);
        return;
    }
    net_nodelay(fd);
    rpc_frame_decoder_init(&c->dec, s->opts.max_frame, true);
    bufferevent_setcb(c->bev, read_cb, write_cb, event_cb, c);
    bufferevent_enable(c->bev, EV_READ | EV_WRITE);
    conn_link(lp, c);
    SRV_STAT_ADD(s, accepted, 1);
    SRV_STAT_ADD(s, open, 1);
    LOG_DEBUG("rpc server: connection from %s on I/O loop %d", c->peer, lp->index);
}

/* Loop 0: gives the socket to the loops in turn. */
void srv_conn_accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
                        int salen, void *arg)
{
    rpc_server *s = arg;
    srv_loop *lp = &s->loops[s->next_loop++ % (unsigned)s->n_loops];
    if (lp->index == 0) {
        conn_setup(lp, fd, sa);
        return;
    }
    srv_accepted *a = calloc(1, sizeof(*a));
    if (!a || salen < 0 || (size_t)salen > sizeof(a->sa)) {
        LOG_ERROR("rpc server: cannot hand a connection over to I/O loop %d", lp->index);
        free(a);
        evutil_closesocket(fd);
        return;
    }
    a->fd = fd;
    memcpy(&a->sa, sa, (size_t)salen);
    a->salen = salen;
    pthread_mutex_lock(&lp->accept_mu);
    a->next = lp->accepted;
    lp->accepted = a;
    pthread_mutex_unlock(&lp->accept_mu);
    event_active(lp->accept_ev, EV_READ, 0);
}

void srv_conn_handover_cb(evutil_socket_t fd, short what, void *arg)
{
    srv_loop *lp = arg;
    pthread_mutex_lock(&lp->accept_mu);
    srv_accepted *a = lp->accepted;
    lp->accepted = NULL;
    pthread_mutex_unlock(&lp->accept_mu);
    while (a) {
        srv_accepted *next = a->next;
        conn_setup(lp, a->fd, (const struct sockaddr *)&a->sa);
        free(a);
        a = next;
    }
}

void srv_conn_accept_error_cb(struct evconnlistener *l, void *arg)
{
    int err = EVUTIL_SOCKET_ERROR();
    LOG_WARN("rpc server: accept failed: %s", evutil_socket_error_to_string(err));
}
