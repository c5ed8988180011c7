/*
 * rest_http.c - the REST gateway's HTTP side (rest_http.h) and the response writer of
 * rest_internal.h.
 *
 * Each loop thread owns an event_base and an evhttp listening on its own dup of one
 * bound socket. A request is captured into a rest_resp (method, raw path and query, the
 * headers the API reads, the body) and queued for a worker; /healthz and /metrics are
 * answered on the loop itself so that health checks never wait behind busy workers. The
 * worker runs the handler, then posts the answer to the request's loop (its inbox and an
 * event made active), which sends it. A long answer is posted as chunks: the first
 * (START) sends the status line and headers for a chunked reply, each chunk is written
 * with a completion callback, and the worker waits for it before producing more. The
 * loop learns of a client that went away from evhttp's close callback; the worker then
 * stops and posts END, which frees evhttp's request.
 *
 *   call states:  captured --submit--> queued --worker--> running
 *                 running --post REPLY--> sent (freed by the loop)
 *                 running --post START/CHUNK--> streaming --wait written|gone--> running
 *                 streaming --post END | ABORT--> sent (freed by the loop)
 *
 * evhttp's requests are touched only on their loop's thread. evhttp answers by itself
 * what never reaches a handler: a request line or headers it cannot read or past
 * rest.max.header.size (400), a body past rest.max.body.size (413), each with its own
 * small HTML page. While a worker holds a request evhttp reads nothing more from its
 * connection, so the only failure it can meet is the client going away while an answer
 * streams (the close callback).
 *
 * Thread-safety: lock order: a loop's mu and a call's mu are never held together; both
 * are leaves.
 */
#include "rest/rest_http.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/http/http_server.h"
#include "common/log.h"
#include "common/net.h"
#include "common/status.h"
#include "rest/rest_internal.h"
#include "rest/rest_work.h"

enum post_kind { POST_NONE = 0, POST_REPLY, POST_START, POST_CHUNK, POST_END, POST_ABORT };

typedef struct rest_loop rest_loop;

typedef struct header {
    char *name;
    char *value;
} header;

struct rest_resp {
    rest_req req;
    rest_server *s;
    rest_loop *loop;
    struct evhttp_request *ev; /* NULL once evhttp gave it up (loop thread only) */
    bool head;
    int status;
    char ctype[128];
    header *hdrs;
    size_t nhdrs;
    buf_t body;
    bool streaming;
    bool aborted;
    /* hand-off to the loop */
    enum post_kind post;
    struct evbuffer *chunk;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool written, gone;
    struct rest_resp *next;            /* in the loop's inbox */
    int64_t t0_ms;
};

struct rest_loop {
    rest_http *h;
    int index;
    struct event_base *base;
    struct evhttp *http;
    struct evhttp_bound_socket *bound;
    struct event *wake_ev, *stop_ev, *unlisten_ev;
    pthread_t thread;
    bool started;
    pthread_mutex_t mu; /* guards inbox */
    rest_resp *inbox_head, *inbox_tail;
};

struct rest_http {
    rest_server *s;
    rest_loop *loops;
    int nloops;
    int listen_fd;
    int port;
    atomic_size_t in_flight;
};

/* ---- requests ---- */

static const char *method_name(enum evhttp_cmd_type t, rest_method *m)
{
    switch (t) {
    case EVHTTP_REQ_GET: *m = REST_GET; return "GET";
    case EVHTTP_REQ_HEAD: *m = REST_HEAD; return "HEAD";
    case EVHTTP_REQ_POST: *m = REST_POST; return "POST";
    case EVHTTP_REQ_PUT: *m = REST_PUT; return "PUT";
    case EVHTTP_REQ_DELETE: *m = REST_DELETE; return "DELETE";
    case EVHTTP_REQ_OPTIONS: *m = REST_OPTIONS; return "OPTIONS";
    case EVHTTP_REQ_TRACE: *m = REST_OTHER; return "TRACE";
    case EVHTTP_REQ_CONNECT: *m = REST_OTHER; return "CONNECT";
    case EVHTTP_REQ_PATCH: *m = REST_OTHER; return "PATCH";
    default: *m = REST_OTHER; return "?";
    }
}

static char *header_copy(struct evhttp_request *ev, const char *name)
{
    const char *v = evhttp_find_header(evhttp_request_get_input_headers(ev), name);
    return v ? strdup(v) : NULL;
}

static void call_free(rest_resp *c)
{
    if (!c)
        return;
    free(c->req.path);
    free(c->req.query);
    free(c->req.accept);
    free(c->req.content_type);
    free(c->req.host);
    free(c->req.x_timestamp);
    free(c->req.x_row);
    free(c->req.x_column);
    buf_free(&c->req.body);
    for (size_t i = 0; i < c->nhdrs; i++) {
        free(c->hdrs[i].name);
        free(c->hdrs[i].value);
    }
    free(c->hdrs);
    buf_free(&c->body);
    if (c->chunk)
        evbuffer_free(c->chunk);
    pthread_mutex_destroy(&c->mu);
    pthread_cond_destroy(&c->cv);
    free(c);
}

/* Copies what a worker needs out of evhttp's request. NULL when out of memory. */
static rest_resp *capture(rest_loop *l, struct evhttp_request *ev)
{
    rest_resp *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    c->s = l->h->s;
    c->loop = l;
    c->ev = ev;
    c->status = 200;
    c->t0_ms = clock_now_ms();
    snprintf(c->ctype, sizeof(c->ctype), "text/plain");
    c->req.method_name = method_name(evhttp_request_get_command(ev), &c->req.method);
    c->head = c->req.method == REST_HEAD;
    const struct evhttp_uri *u = evhttp_request_get_evhttp_uri(ev);
    const char *path = u ? evhttp_uri_get_path(u) : NULL;
    const char *query = u ? evhttp_uri_get_query(u) : NULL;
    c->req.path = strdup(path && *path ? path : "/");
    c->req.query = strdup(query ? query : "");
    c->req.accept = header_copy(ev, "Accept");
    c->req.content_type = header_copy(ev, "Content-Type");
    c->req.host = header_copy(ev, "Host");
    c->req.x_timestamp = header_copy(ev, "X-Timestamp");
    c->req.x_row = header_copy(ev, "X-Row");
    c->req.x_column = header_copy(ev, "X-Column");
    struct evhttp_connection *evcon = evhttp_request_get_connection(ev);
    char *addr = NULL;
    ev_uint16_t port = 0;
    if (evcon) {
        evhttp_connection_get_peer(evcon, &addr, &port);
        /* answers are written whole: no need to wait for the client's ACK (Nagle) */
        struct bufferevent *bev = evhttp_connection_get_bufferevent(evcon);
        if (bev)
            net_nodelay(bufferevent_getfd(bev));
    }
    snprintf(c->req.peer, sizeof(c->req.peer), "%s:%u", addr ? addr : "?", (unsigned)port);
    struct evbuffer *in = evhttp_request_get_input_buffer(ev);
    size_t n = evbuffer_get_length(in);
    bool ok = c->req.path && c->req.query;
    if (ok && n) {
        ok = buf_reserve(&c->req.body, n) == ST_OK;
        if (ok) {
            evbuffer_copyout(in, c->req.body.data, n);
            c->req.body.len = n;
        }
    }
    if (!ok) {
        call_free(c);
        return NULL;
    }
    return c;
}

/* ---- sending (loop thread) ---- */

static void add_headers(struct evhttp_request *ev, const rest_resp *c, bool body_known)
{
    struct evkeyvalq *h = evhttp_request_get_output_headers(ev);
    if (c->status != 204 && c->status != 304)
        evhttp_add_header(h, "Content-Type", c->ctype);
    for (size_t i = 0; i < c->nhdrs; i++)
        evhttp_add_header(h, c->hdrs[i].name, c->hdrs[i].value);
    if (body_known && c->head) {
        char len[32];
        snprintf(len, sizeof(len), "%zu", c->body.len);
        evhttp_add_header(h, "Content-Length", len);
    }
    if (atomic_load(&c->s->draining))
        evhttp_add_header(h, "Connection", "close");
}

static void count_answer(rest_server *s, int status, size_t bytes)
{
    int cls = status / 100;
    if (cls >= 1 && cls <= 5)
        atomic_fetch_add(&s->metrics.status[cls], 1);
    atomic_fetch_add(&s->metrics.bytes_out, bytes);
}

/* The call is over: freed. */
static void finish(rest_loop *l, rest_resp *c)
{
    LOG_DEBUG("rest: %s %s from %s: %d (%lld ms)", c->req.method_name, c->req.path, c->req.peer,
              c->status, (long long)(clock_now_ms() - c->t0_ms));
    atomic_fetch_sub(&l->h->in_flight, 1);
    call_free(c);
}

static void signal_call(rest_resp *c, bool written, bool gone)
{
    pthread_mutex_lock(&c->mu);
    if (written)
        c->written = true;
    if (gone)
        c->gone = true;
    pthread_cond_signal(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

static void on_chunk_written(struct evhttp_connection *evcon, void *arg)
{
    signal_call(arg, true, false);
}

/* The connection is being freed (the client went away or was too slow). A request evhttp
 * detached from it first is still ours to free (by ending it); one still on it goes with
 * the connection. */
static void on_conn_close(struct evhttp_connection *evcon, void *arg)
{
    rest_resp *c = arg;
    if (c->ev && evhttp_request_get_connection(c->ev) != NULL)
        c->ev = NULL;
    signal_call(c, false, true);
}

static void send_chunk(rest_resp *c)
{
    struct evhttp_connection *evcon = c->ev ? evhttp_request_get_connection(c->ev) : NULL;
    if (!evcon) {
        signal_call(c, false, true);
        return;
    }
    evhttp_connection_set_closecb(evcon, on_conn_close, c);
    evhttp_send_reply_chunk_with_cb(c->ev, c->chunk, on_chunk_written, c);
}

static void handle_post(rest_loop *l, rest_resp *c)
{
    struct evhttp_connection *evcon = c->ev ? evhttp_request_get_connection(c->ev) : NULL;
    switch (c->post) {
    case POST_REPLY: {
        count_answer(c->s, c->status, c->head ? 0 : c->body.len);
        if (c->ev) {
            add_headers(c->ev, c, true);
            struct evbuffer *out = evbuffer_new();
            if (out && !c->head && c->body.len)
                evbuffer_add(out, c->body.data, c->body.len);
            evhttp_send_reply(c->ev, c->status, http_reason(c->status), out);
            if (out)
                evbuffer_free(out);
        }
        finish(l, c);
        return;
    }
    case POST_START:
        count_answer(c->s, c->status, 0);
        if (c->ev) {
            add_headers(c->ev, c, false);
            evhttp_send_reply_start(c->ev, c->status, http_reason(c->status));
        }
        send_chunk(c);
        return;
    case POST_CHUNK:
        send_chunk(c);
        return;
    case POST_END:
        if (evcon)
            evhttp_connection_set_closecb(evcon, NULL, NULL);
        if (c->ev)
            evhttp_send_reply_end(c->ev);
        finish(l, c);
        return;
    case POST_ABORT:
        if (evcon) {
            evhttp_connection_set_closecb(evcon, NULL, NULL);
            evhttp_connection_free(evcon); /* frees c->ev with it */
        } else if (c->ev) {
            evhttp_send_reply_end(c->ev); /* a detached request: this frees it */
        }
        finish(l, c);
        return;
    default:
        return;
    }
}

static void drain_inbox(rest_loop *l)
{
    pthread_mutex_lock(&l->mu);
    rest_resp *c = l->inbox_head;
    l->inbox_head = l->inbox_tail = NULL;
    pthread_mutex_unlock(&l->mu);
    while (c) {
        rest_resp *next = c->next;
        c->next = NULL;
        handle_post(l, c);
        c = next;
    }
}

static void on_wake(evutil_socket_t fd, short what, void *arg)
{
    drain_inbox(arg);
}

/* Worker side: queue c for its loop with what to do. */
static void post(rest_resp *c, enum post_kind kind)
{
    rest_loop *l = c->loop;
    c->post = kind;
    pthread_mutex_lock(&l->mu);
    if (l->inbox_tail)
        l->inbox_tail->next = c;
    else
        l->inbox_head = c;
    l->inbox_tail = c;
    pthread_mutex_unlock(&l->mu);
    event_active(l->wake_ev, EV_READ, 0);
}

/* ---- answers the loop gives by itself ---- */

static void reply_now(rest_http *h, struct evhttp_request *ev, int status, const char *ctype,
                      const buf_t *body, bool close)
{
    struct evkeyvalq *hd = evhttp_request_get_output_headers(ev);
    evhttp_add_header(hd, "Content-Type", ctype);
    if (close)
        evhttp_add_header(hd, "Connection", "close");
    struct evbuffer *out = evbuffer_new();
    if (out && body && body->len && evhttp_request_get_command(ev) != EVHTTP_REQ_HEAD)
        evbuffer_add(out, body->data, body->len);
    if (body && evhttp_request_get_command(ev) == EVHTTP_REQ_HEAD) {
        char len[32];
        snprintf(len, sizeof(len), "%zu", body->len);
        evhttp_add_header(hd, "Content-Length", len);
    }
    evhttp_send_reply(ev, status, http_reason(status), out);
    if (out)
        evbuffer_free(out);
    count_answer(h->s, status, body ? body->len : 0);
}

static void reply_text(rest_http *h, struct evhttp_request *ev, int status, bool close,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void reply_text(rest_http *h, struct evhttp_request *ev, int status, bool close,
                       const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    buf_t b = {0};
    char line[700];
    int n = snprintf(line, sizeof(line), "%s: %s\r\n", http_reason(status), msg);
    buf_append(&b, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
    reply_now(h, ev, status, "text/plain", &b, close);
    buf_free(&b);
}

static void on_request(struct evhttp_request *ev, void *arg)
{
    rest_loop *l = arg;
    rest_http *h = l->h;
    rest_server *s = h->s;
    if (!evhttp_request_get_uri(ev)) { /* evhttp answers failed requests itself */
        evhttp_send_error(ev, 400, NULL);
        return;
    }
    const struct evhttp_uri *u = evhttp_request_get_evhttp_uri(ev);
    const char *path = u ? evhttp_uri_get_path(u) : NULL;
    enum evhttp_cmd_type cmd = evhttp_request_get_command(ev);
    bool get = cmd == EVHTTP_REQ_GET || cmd == EVHTTP_REQ_HEAD;
    atomic_fetch_add(&s->metrics.bytes_in,
                     evbuffer_get_length(evhttp_request_get_input_buffer(ev)));
    if (get && path && (strcmp(path, "/healthz") == 0 || strcmp(path, "/metrics") == 0)) {
        rest_resp c = {.s = s, .status = 200, .head = cmd == EVHTTP_REQ_HEAD};
        snprintf(c.ctype, sizeof(c.ctype), "text/plain");
        if (path[1] == 'h')
            rest_health_page(s, &c);
        else
            rest_metrics_page(s, &c);
        atomic_fetch_add(&s->metrics.requests, 1);
        reply_now(h, ev, c.status, c.ctype, &c.body, false);
        buf_free(&c.body);
        return;
    }
    if (atomic_load(&s->draining)) {
        reply_text(h, ev, 503, true, "this gateway is shutting down; retry on another");
        return;
    }
    rest_resp *c = capture(l, ev);
    if (!c) {
        reply_text(h, ev, 503, false, "the gateway is out of memory");
        return;
    }
    atomic_fetch_add(&h->in_flight, 1);
    int rc = rest_work_submit(s->work, c);
    if (rc != ST_OK) {
        c->ev = NULL;
        finish(l, c);
        atomic_fetch_add(&s->metrics.rejected_busy, 1);
        reply_text(h, ev, 503, false,
                   "the gateway is busy: %zu requests are waiting for its %d workers; retry later",
                   s->set.queue_size, s->set.workers);
    }
}

/* ---- the response writer (worker thread) ---- */

void rest_resp_set(rest_resp *r, int status, const char *content_type)
{
    if (r->streaming)
        return;
    r->status = status;
    if (content_type)
        snprintf(r->ctype, sizeof(r->ctype), "%s", content_type);
}

int rest_resp_status(const rest_resp *r)
{
    return r->status;
}

int rest_resp_header(rest_resp *r, const char *name, const char *value)
{
    header *h = realloc(r->hdrs, (r->nhdrs + 1) * sizeof(*h));
    if (!h)
        return st_error(ST_NOMEM, "rest: out of memory adding a header");
    r->hdrs = h;
    h[r->nhdrs].name = strdup(name);
    h[r->nhdrs].value = strdup(value);
    if (!h[r->nhdrs].name || !h[r->nhdrs].value) {
        free(h[r->nhdrs].name);
        free(h[r->nhdrs].value);
        return st_error(ST_NOMEM, "rest: out of memory adding a header");
    }
    r->nhdrs++;
    return ST_OK;
}

buf_t *rest_resp_body(rest_resp *r)
{
    return &r->body;
}

int rest_resp_printf(rest_resp *r, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        return ST_INVALID_ARGUMENT;
    if ((size_t)n < sizeof(small))
        return buf_append(&r->body, small, (size_t)n);
    if (buf_reserve(&r->body, (size_t)n + 1) != ST_OK)
        return ST_NOMEM;
    va_start(ap, fmt);
    vsnprintf((char *)r->body.data + r->body.len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    r->body.len += (size_t)n;
    return ST_OK;
}

bool rest_resp_streaming(const rest_resp *r)
{
    return r->streaming;
}

/* Posts the body so far as a chunk and waits until it is written or the client is gone. */
static int flush_chunk(rest_resp *r)
{
    if (!r->chunk && !(r->chunk = evbuffer_new()))
        return st_error(ST_NOMEM, "rest: out of memory streaming an answer");
    if (evbuffer_add(r->chunk, r->body.data, r->body.len) != 0)
        return st_error(ST_NOMEM, "rest: out of memory streaming an answer");
    buf_reset(&r->body);
    pthread_mutex_lock(&r->mu);
    r->written = false;
    pthread_mutex_unlock(&r->mu);
    bool first = !r->streaming;
    r->streaming = true;
    post(r, first ? POST_START : POST_CHUNK);
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += r->s->set.timeout_s + 5;
    pthread_mutex_lock(&r->mu);
    int err = 0;
    while (!r->written && !r->gone && err != ETIMEDOUT)
        err = pthread_cond_timedwait(&r->cv, &r->mu, &deadline);
    bool gone = r->gone || !r->written;
    pthread_mutex_unlock(&r->mu);
    if (gone) {
        r->aborted = true;
        return st_error(ST_CLOSED, "rest: the client of %s %s went away", r->req.method_name,
                        r->req.path);
    }
    /* the chunk's bytes moved into the connection; the evbuffer is empty and reusable */
    return ST_OK;
}

int rest_resp_maybe_flush(rest_resp *r)
{
    if (r->aborted)
        return ST_CLOSED;
    if (r->head || r->body.len < REST_CHUNK_BYTES)
        return ST_OK;
    return flush_chunk(r);
}

void rest_resp_error(rest_resp *r, int status, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (r->streaming) {
        LOG_WARN("rest: %s %s from %s failed after its answer began (cut off): %s",
                 r->req.method_name, r->req.path, r->req.peer, msg);
        r->aborted = true;
        return;
    }
    r->status = status;
    snprintf(r->ctype, sizeof(r->ctype), "text/plain");
    for (size_t i = 0; i < r->nhdrs; i++) {
        free(r->hdrs[i].name);
        free(r->hdrs[i].value);
    }
    r->nhdrs = 0;
    buf_reset(&r->body);
    rest_resp_printf(r, "%s: %s\r\n", http_reason(status), msg);
    if (status >= 500)
        LOG_WARN("rest: %s %s from %s: %d %s", r->req.method_name, r->req.path, r->req.peer,
                 status, msg);
    else
        LOG_DEBUG("rest: %s %s from %s: %d %s", r->req.method_name, r->req.path, r->req.peer,
                  status, msg);
}

void rest_http_run(void *server, void *call)
{
    rest_server *s = server;
    rest_resp *c = call;
    rest_route(s, &c->req, c);
    if (c->aborted) {
        post(c, POST_ABORT);
        return;
    }
    if (!c->streaming) {
        post(c, POST_REPLY);
        return;
    }
    /* the rest of a streamed answer, then its end */
    if (c->body.len && flush_chunk(c) != ST_OK) {
        post(c, POST_ABORT);
        return;
    }
    post(c, POST_END);
}

/* ---- loops ---- */

static void on_stop(evutil_socket_t fd, short what, void *arg)
{
    rest_loop *l = arg;
    drain_inbox(l);
    event_base_loopbreak(l->base);
}

static void on_unlisten(evutil_socket_t fd, short what, void *arg)
{
    rest_loop *l = arg;
    if (l->bound) {
        evhttp_del_accept_socket(l->http, l->bound);
        l->bound = NULL;
    }
}

static void *loop_main(void *arg)
{
    rest_loop *l = arg;
    net_block_sigpipe();
    event_base_loop(l->base, EVLOOP_NO_EXIT_ON_EMPTY);
    return NULL;
}

static int loop_setup(rest_http *h, rest_loop *l, int index)
{
    rest_server *s = h->s;
    l->h = h;
    l->index = index;
    pthread_mutex_init(&l->mu, NULL);
    if (!(l->base = event_base_new()))
        return st_error(ST_INTERNAL, "rest: cannot create an event base");
    l->wake_ev = event_new(l->base, -1, 0, on_wake, l);
    l->stop_ev = event_new(l->base, -1, 0, on_stop, l);
    l->unlisten_ev = event_new(l->base, -1, 0, on_unlisten, l);
    if (!l->wake_ev || !l->stop_ev || !l->unlisten_ev || !(l->http = evhttp_new(l->base)))
        return st_error(ST_NOMEM, "rest: out of memory setting up an event loop");
    evhttp_set_max_headers_size(l->http, (ev_ssize_t)s->set.max_header_bytes);
    evhttp_set_max_body_size(l->http, (ev_ssize_t)s->set.max_body_bytes);
    evhttp_set_timeout(l->http, s->set.timeout_s);
    evhttp_set_allowed_methods(l->http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD | EVHTTP_REQ_POST |
                                            EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE |
                                            EVHTTP_REQ_OPTIONS | EVHTTP_REQ_TRACE |
                                            EVHTTP_REQ_PATCH);
    evhttp_set_gencb(l->http, on_request, l);
    int fd = dup(h->listen_fd);
    if (fd < 0)
        return st_error(ST_IO, "rest: dup of the listening socket failed: %s", strerror(errno));
    evutil_make_socket_nonblocking(fd);
    if (!(l->bound = evhttp_accept_socket_with_handle(l->http, fd))) {
        close(fd);
        return st_error(ST_IO, "rest: cannot accept on the listening socket");
    }
    return ST_OK;
}

static void loop_teardown(rest_loop *l)
{
    if (l->started) {
        event_active(l->stop_ev, EV_READ, 0);
        pthread_join(l->thread, NULL);
        l->started = false;
    }
    /* anything still posted (a worker that outlived the drain) is dropped with its call */
    rest_resp *c = l->inbox_head;
    while (c) {
        rest_resp *next = c->next;
        atomic_fetch_sub(&l->h->in_flight, 1);
        call_free(c);
        c = next;
    }
    l->inbox_head = l->inbox_tail = NULL;
    if (l->http)
        evhttp_free(l->http);
    if (l->wake_ev)
        event_free(l->wake_ev);
    if (l->stop_ev)
        event_free(l->stop_ev);
    if (l->unlisten_ev)
        event_free(l->unlisten_ev);
    if (l->base)
        event_base_free(l->base);
    pthread_mutex_destroy(&l->mu);
}

/* Binds the one listening socket the loops share. */
static int bind_listener(rest_http *h)
{
    rest_server *s = h->s;
    struct sockaddr_storage addr;
    socklen_t alen = 0;
    int rc = net_resolve(s->set.host, s->set.port, &addr, &alen);
    if (rc != ST_OK)
        return st_error(ST_IO, "rest: cannot resolve %s:%d: %s", s->set.host, s->set.port,
                        st_errmsg());
    int one = 1;
    h->listen_fd = socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (h->listen_fd < 0 ||
        setsockopt(h->listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
        bind(h->listen_fd, (struct sockaddr *)&addr, alen) != 0 || listen(h->listen_fd, 1024) != 0)
        return st_error(ST_IO, "rest: cannot listen on %s:%d: %s", s->set.host, s->set.port,
                        strerror(errno));
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    if (getsockname(h->listen_fd, (struct sockaddr *)&ss, &len) != 0)
        return st_error(ST_IO, "rest: getsockname on %s:%d failed", s->set.host, s->set.port);
    char name[96];
    net_format_addr((struct sockaddr *)&ss, name, sizeof(name));
    const char *colon = strrchr(name, ':');
    h->port = colon ? atoi(colon + 1) : 0;
    LOG_INFO("rest: listening on %s with %d I/O threads and %d workers", name, s->set.io_threads,
             s->set.workers);
    return ST_OK;
}

int rest_http_start(rest_server *s, rest_http **out)
{
    *out = NULL;
    rest_http *h = calloc(1, sizeof(*h));
    if (!h)
        return st_error(ST_NOMEM, "rest: out of memory");
    h->s = s;
    h->listen_fd = -1;
    int rc = net_init_threads();
    if (rc == ST_OK)
        rc = bind_listener(h);
    int n = s->set.io_threads > 0 ? s->set.io_threads : 1;
    if (rc == ST_OK && !(h->loops = calloc((size_t)n, sizeof(*h->loops))))
        rc = st_error(ST_NOMEM, "rest: out of memory");
    for (int i = 0; rc == ST_OK && i < n; i++) {
        h->nloops++;
        rc = loop_setup(h, &h->loops[i], i);
        if (rc == ST_OK && pthread_create(&h->loops[i].thread, NULL, loop_main, &h->loops[i]) != 0)
            rc = st_error(ST_INTERNAL, "rest: cannot start event loop thread %d", i);
        if (rc == ST_OK)
            h->loops[i].started = true;
    }
    if (rc != ST_OK) {
        rest_http_stop(h);
        return rc;
    }
    *out = h;
    return ST_OK;
}

int rest_http_port(const rest_http *h)
{
    return h ? h->port : 0;
}

void rest_http_stop_accepting(rest_http *h)
{
    if (!h)
        return;
    for (int i = 0; i < h->nloops; i++)
        if (h->loops[i].started)
            event_active(h->loops[i].unlisten_ev, EV_READ, 0);
    if (h->listen_fd >= 0) {
        close(h->listen_fd);
        h->listen_fd = -1;
    }
}

size_t rest_http_in_flight(const rest_http *h)
{
    return h ? atomic_load(&((rest_http *)h)->in_flight) : 0;
}

void rest_http_stop(rest_http *h)
{
    if (!h)
        return;
    for (int i = 0; i < h->nloops; i++)
        loop_teardown(&h->loops[i]);
    if (h->listen_fd >= 0)
        close(h->listen_fd);
    free(h->loops);
    free(h);
}
