/*
 * rpc_server_pool.c - the RPC server's bounded call queue, its handler threads, and the
 * handoff of encoded answers back to the I/O thread.
 *
 * The queue is a ring of opts.queue_capacity calls under q_mu; a call that does not fit
 * is answered ST_SERVER_BUSY at once (the queue never grows). A handler thread pops a
 * call, answers ST_TIMEOUT without running it if its deadline has passed, else runs the
 * method and encodes the answer frame itself. If the connection's output is idle it
 * sends the frame straight to the socket (non-blocking) and frees the call; otherwise,
 * or if the send is short or would block, it appends the call to the done list (done_mu)
 * of the connection's I/O loop and wakes that loop with event_active(), which writes it
 * in srv_pool_done_cb().
 * Thread-safety: q_mu is a leaf; done_mu is taken inside a connection's out_mu, never
 * the other way (rules in rpc_server_internal.h). Conn reference counts and `inflight`
 * are atomic; whichever thread finishes a call frees it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/event.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/rpc/rpc_server_internal.h"
#include "common/status.h"

void srv_call_free(srv_call *call)
{
    if (!call)
        return;
    atomic_fetch_sub(&call->conn->loop->inflight, 1);
    srv_conn_unref(call->conn);
    free(call->body);
    buf_free(&call->out);
    free(call);
}

/* Encodes an error answer into call->out; on failure the call goes unanswered. */
static void answer_error(srv_call *c, int code, const char *msg, uint32_t retry_after_ms,
                         const buf_t *hint)
{
    buf_reset(&c->out);
    if (rpc_header_encode_error_hint(&c->out, c->hdr.call_id, code, msg,
                                     rpc_status_retryable(code), retry_after_ms,
                                     hint ? hint->data : NULL, hint ? hint->len : 0) != ST_OK)
        LOG_ERROR("rpc server: call %u %s from %s: cannot encode error answer: %s", c->hdr.call_id,
                  c->hdr.method, c->conn->peer, st_errmsg());
}

void srv_pool_submit(rpc_server *s, srv_call *call)
{
    size_t cap = (size_t)s->opts.queue_capacity;
    pthread_mutex_lock(&s->q_mu);
    bool full = s->q_len == cap;
    if (!full) {
        s->q[(s->q_head + s->q_len) % cap] = call;
        s->q_len++;
        pthread_cond_signal(&s->q_cv);
    }
    pthread_mutex_unlock(&s->q_mu);
    if (!full)
        return;
    SRV_STAT_ADD(s, busy, 1);
    char msg[256];
    snprintf(msg, sizeof(msg), "server busy: call %u %s from %s rejected, %zu calls queued",
             call->hdr.call_id, call->hdr.method, call->conn->peer, cap);
    answer_error(call, ST_SERVER_BUSY, msg, s->opts.busy_retry_after_ms, NULL);
    srv_conn_write(call->conn, &call->out);
    srv_call_free(call);
}

/* Blocks for the next call; NULL once the queue is closed and empty. */
static srv_call *pop(rpc_server *s)
{
    srv_call *c = NULL;
    pthread_mutex_lock(&s->q_mu);
    while (s->q_len == 0 && !s->q_closed)
        pthread_cond_wait(&s->q_cv, &s->q_mu);
    if (s->q_len > 0) {
        c = s->q[s->q_head];
        s->q_head = (s->q_head + 1) % (size_t)s->opts.queue_capacity;
        s->q_len--;
    }
    pthread_mutex_unlock(&s->q_mu);
    return c;
}

static void run_call(rpc_server *s, srv_call *c)
{
    if (c->deadline_ns && clock_mono_ns() >= c->deadline_ns) {
        char msg[256];
        SRV_STAT_ADD(s, expired, 1);
        snprintf(msg, sizeof(msg), "call %u %s from %s: deadline of %u ms passed while queued",
                 c->hdr.call_id, c->hdr.method, c->conn->peer, c->hdr.deadline_ms);
        answer_error(c, ST_TIMEOUT, msg, 0, NULL);
        return;
    }
    rpc_request req = {.method = c->hdr.method,
                       .body = c->body,
                       .body_len = c->body_len,
                       .call_id = c->hdr.call_id,
                       .peer = c->conn->peer,
                       .deadline_ns = c->deadline_ns};
    rpc_reply reply;
    memset(&reply, 0, sizeof(reply));
    st_clear();
    int rc = c->m->fn(c->m->ctx, &req, &reply);
    SRV_STAT_ADD(s, handled, 1);
    if (rc == ST_OK)
        rc = rpc_header_encode_reply(&c->out, c->hdr.call_id, reply.body.data, reply.body.len,
                                     s->opts.max_frame);
    if (rc != ST_OK)
        answer_error(c, rc < 0 ? rc : ST_INTERNAL, st_errmsg(), reply.retry_after_ms,
                     &reply.hint);
    buf_free(&reply.body);
    buf_free(&reply.hint);
}

/* Answers are sent from the handler thread only while at most this many calls of the
 * connection's I/O loop are in the server (queued, running or unwritten). */
#ifndef SRV_DIRECT_MAX_INFLIGHT
#define SRV_DIRECT_MAX_INFLIGHT 1
#endif

/* Appends c to its loop's done list; the caller wakes the loop. */
static void push_done(srv_loop *lp, srv_call *c)
{
    pthread_mutex_lock(&lp->done_mu);
    c->next = NULL;
    if (lp->done_tail)
        lp->done_tail->next = c;
    else
        lp->done_head = c;
    lp->done_tail = c;
    pthread_mutex_unlock(&lp->done_mu);
}

/* out_mu held, output idle: sends what it can of c->out without blocking; true if done
 * with it. A socket error drops the answer: the I/O thread sees the broken connection on
 * its next read (or closes it at stop) and writing more would only raise SIGPIPE. */
static bool send_direct(srv_conn *conn, srv_call *c)
{
    size_t off = 0;
    while (off < c->out.len) {
        ssize_t n = send(conn->fd, c->out.data + off, c->out.len - off, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            LOG_DEBUG("rpc server: dropped the answer to call %u for %s: %s", c->hdr.call_id,
                      conn->peer, strerror(errno));
            return true;
        }
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    if (off == c->out.len)
        return true;
    if (off > 0) {
        memmove(c->out.data, c->out.data + off, c->out.len - off);
        c->out.len -= off;
    }
    conn->partial = c;
    return false;
}

/* Handler thread: sends the answer directly when the connection's output is idle and the
 * server is nearly idle, else hands it to the I/O thread. The call is freed here unless handed over. */
static void complete(rpc_server *s, srv_call *c)
{
    srv_conn *conn = c->conn;
    srv_loop *lp = conn->loop; /* outlives the connection */
    bool handed = false;
    pthread_mutex_lock(&conn->out_mu);
    /* Under load the I/O thread's path wins: it writes many answers per system call. */
    bool lone = atomic_load(&lp->inflight) <= SRV_DIRECT_MAX_INFLIGHT;
    if (conn->fd >= 0 && c->out.len > 0 && (!lone || conn->out_io || !send_direct(conn, c))) {
        conn->out_io = true;
        conn->out_queued++;
        push_done(lp, c);
        handed = true;
    }
    pthread_mutex_unlock(&conn->out_mu);
    if (handed) {
        event_active(lp->done_ev, EV_READ, 0);
        return;
    }
    srv_call_free(c);
    if (atomic_load(&s->stopping))
        event_active(lp->done_ev, EV_READ, 0); /* let the loop see the call finish */
}

static void *handler_main(void *arg)
{
    rpc_server *s = arg;
    srv_call *c;
    while ((c = pop(s)) != NULL) {
        run_call(s, c);
        complete(s, c);
    }
    return NULL;
}

void srv_pool_done_cb(evutil_socket_t fd, short what, void *arg)
{
    srv_loop *lp = arg;
    pthread_mutex_lock(&lp->done_mu);
    srv_call *c = lp->done_head;
    lp->done_head = lp->done_tail = NULL;
    pthread_mutex_unlock(&lp->done_mu);
    while (c) {
        srv_call *next = c->next;
        srv_conn *conn = c->conn;
        if (conn->state != CONN_CLOSED)
            srv_conn_write(conn, &c->out);
        pthread_mutex_lock(&conn->out_mu);
        conn->out_queued--;
        pthread_mutex_unlock(&conn->out_mu);
        srv_conn_out_settled(conn);
        srv_call_free(c);
        c = next;
    }
    srv_check_stop(lp);
}

int srv_pool_start(rpc_server *s)
{
    s->q = calloc((size_t)s->opts.queue_capacity, sizeof(*s->q));
    s->handlers = calloc((size_t)s->opts.handler_threads, sizeof(*s->handlers));
    if (!s->q || !s->handlers)
        return st_error(ST_NOMEM, "rpc server: out of memory for %d handlers and a queue of %d",
                        s->opts.handler_threads, s->opts.queue_capacity);
    for (int i = 0; i < s->opts.handler_threads; i++) {
        if (pthread_create(&s->handlers[i], NULL, handler_main, s) != 0) {
            srv_pool_stop(s);
            return st_error(ST_INTERNAL, "rpc server: cannot start handler thread %d", i);
        }
        s->n_handlers++;
    }
    return ST_OK;
}

/* Closes the queue, joins the handlers, and frees calls that never ran (only after a
 * forced stop) and answers the I/O loops did not write. The loops' threads have exited. */
void srv_pool_stop(rpc_server *s)
{
    srv_call *left = NULL;
    pthread_mutex_lock(&s->q_mu);
    s->q_closed = true;
    for (; s->q_len > 0; s->q_len--) {
        srv_call *c = s->q[s->q_head];
        s->q_head = (s->q_head + 1) % (size_t)s->opts.queue_capacity;
        c->next = left;
        left = c;
    }
    pthread_cond_broadcast(&s->q_cv);
    pthread_mutex_unlock(&s->q_mu);
    for (int i = 0; i < s->n_handlers; i++)
        pthread_join(s->handlers[i], NULL);
    s->n_handlers = 0;
    while (left) {
        srv_call *next = left->next;
        srv_call_free(left);
        left = next;
    }
    for (int i = 0; i < s->n_loops; i++) {
        srv_loop *lp = &s->loops[i];
        srv_call *c = lp->done_head;
        lp->done_head = lp->done_tail = NULL;
        while (c) {
            srv_call *next = c->next;
            srv_call_free(c);
            c = next;
        }
    }
}
