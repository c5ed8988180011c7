/*
 * http_server.c - the HTTP server of http_server.h: one event_base and one evhttp on a
 * thread of their own, a generic callback that routes by exact path, and the answers the
 * server gives by itself (404, 405, 413).
 *
 * Thread-safety: the route table is written before start only and read by the server's
 * thread; `port` is atomic; stop breaks the loop from the owner's thread (libevent's
 * pthread locking is on, net_init_threads) and joins the thread before freeing.
 */
#include "common/http/http_server.h"

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/log.h"
#include "common/net.h"
#include "common/status.h"

#define HTTP_DEFAULT_TYPE "text/plain; charset=utf-8"

typedef struct route {
    char *path;
    http_handler_fn fn;
    void *arg;
} route;

struct http_server {
    http_server_opts opts;
    route *routes;
    size_t nroutes, cap;
    struct event_base *base;
    struct evhttp *http;
    struct event *stop_ev; /* activated by stop: breaks the loop (even one not yet running) */
    pthread_t thread;
    bool started;
    bool stopped;
    atomic_int port;
};

void http_server_opts_default(http_server_opts *o)
{
    o->max_header_bytes = 16384;
    o->max_body_bytes = 4096;
    o->timeout_s = 30;
}

int http_server_new(const http_server_opts *o, http_server **out)
{
    *out = NULL;
    http_server *s = calloc(1, sizeof(*s));
    if (!s)
        return st_error(ST_NOMEM, "http server: out of memory");
    http_server_opts_default(&s->opts);
    if (o) {
        if (o->max_header_bytes)
            s->opts.max_header_bytes = o->max_header_bytes;
        if (o->max_body_bytes)
            s->opts.max_body_bytes = o->max_body_bytes;
        if (o->timeout_s > 0)
            s->opts.timeout_s = o->timeout_s;
    }
    *out = s;
    return ST_OK;
}

int http_server_handle(http_server *s, const char *path, http_handler_fn fn, void *arg)
{
    if (s->started)
        return st_error(ST_INVALID_ARGUMENT, "http server: handler for %s added after start", path);
    if (!path || path[0] != '/' || !fn)
        return st_error(ST_INVALID_ARGUMENT, "http server: bad handler path '%s'",
                        path ? path : "(null)");
    for (size_t i = 0; i < s->nroutes; i++)
        if (strcmp(s->routes[i].path, path) == 0) {
            s->routes[i].fn = fn;
            s->routes[i].arg = arg;
            return ST_OK;
        }
    if (s->nroutes == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        route *v = realloc(s->routes, cap * sizeof(*v));
        if (!v)
            return st_error(ST_NOMEM, "http server: out of memory");
        s->routes = v;
        s->cap = cap;
    }
    char *copy = strdup(path);
    if (!copy)
        return st_error(ST_NOMEM, "http server: out of memory");
    s->routes[s->nroutes++] = (route){copy, fn, arg};
    return ST_OK;
}

/* ---- responses ---- */

void http_response_set(http_response *r, int status, const char *content_type)
{
    r->status = status;
    if (content_type)
        snprintf(r->content_type, sizeof(r->content_type), "%s", content_type);
}

int http_response_printf(http_response *r, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        return st_error(ST_INVALID_ARGUMENT, "http response: bad format");
    if ((size_t)n < sizeof(small))
        return buf_append(&r->body, small, (size_t)n);
    int rc = buf_reserve(&r->body, (size_t)n + 1);
    if (rc != ST_OK)
        return rc;
    va_start(ap, fmt);
    vsnprintf((char *)r->body.data + r->body.len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    r->body.len += (size_t)n;
    return ST_OK;
}

const char *http_reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    default: return "Unknown";
    }
}

/* Sends resp on req (the body left out for HEAD). */
static void send_response(struct evhttp_request *req, const http_response *resp, bool head)
{
    struct evkeyvalq *h = evhttp_request_get_output_headers(req);
    evhttp_add_header(h, "Content-Type", resp->content_type);
    evhttp_add_header(h, "Cache-Control", "no-store");
    evhttp_add_header(h, "X-Content-Type-Options", "nosniff");
    if (resp->status == 405)
        evhttp_add_header(h, "Allow", "GET, HEAD");
    struct evbuffer *out = evbuffer_new();
    if (head) {
        char len[32];
        snprintf(len, sizeof(len), "%zu", resp->body.len);
        evhttp_add_header(h, "Content-Length", len);
    } else if (out && resp->body.len) {
        evbuffer_add(out, resp->body.data, resp->body.len);
    }
    evhttp_send_reply(req, resp->status, http_reason(resp->status), out);
    if (out)
        evbuffer_free(out);
}

static const route *find_route(const http_server *s, const char *path)
{
    for (size_t i = 0; i < s->nroutes; i++)
        if (strcmp(s->routes[i].path, path) == 0)
            return &s->routes[i];
    return NULL;
}

static const char *method_name(enum evhttp_cmd_type t)
{
    switch (t) {
    case EVHTTP_REQ_GET: return "GET";
    case EVHTTP_REQ_HEAD: return "HEAD";
    case EVHTTP_REQ_POST: return "POST";
    case EVHTTP_REQ_PUT: return "PUT";
    case EVHTTP_REQ_DELETE: return "DELETE";
    case EVHTTP_REQ_OPTIONS: return "OPTIONS";
    case EVHTTP_REQ_TRACE: return "TRACE";
    case EVHTTP_REQ_CONNECT: return "CONNECT";
    case EVHTTP_REQ_PATCH: return "PATCH";
    default: return "?";
    }
}

static void peer_of(struct evhttp_request *req, char *out, size_t cap)
{
    struct evhttp_connection *c = evhttp_request_get_connection(req);
    char *addr = NULL;
    ev_uint16_t port = 0;
    if (c)
        evhttp_connection_get_peer(c, &addr, &port);
    snprintf(out, cap, "%s:%u", addr ? addr : "?", (unsigned)port);
}

/* Every request: route by path, check the method, run the handler, answer. */
static void on_request(struct evhttp_request *req, void *arg)
{
    http_server *s = arg;
    const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
    const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
    const char *query = uri ? evhttp_uri_get_query(uri) : NULL;
    enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
    bool head = cmd == EVHTTP_REQ_HEAD;
    char peer[96];
    peer_of(req, peer, sizeof(peer));
    http_response resp = {.status = 200};
    snprintf(resp.content_type, sizeof(resp.content_type), "%s", HTTP_DEFAULT_TYPE);
    const route *r = find_route(s, path && *path ? path : "/");
    if (!r) {
        http_response_set(&resp, 404, NULL);
        http_response_printf(&resp, "not found: %s\n", path ? path : "");
    } else if (cmd != EVHTTP_REQ_GET && !head) {
        http_response_set(&resp, 405, NULL);
        http_response_printf(&resp, "method %s not allowed on %s (GET or HEAD only)\n",
                             method_name(cmd), r->path);
    } else {
        http_request hr = {.method = head ? "HEAD" : "GET", .path = r->path,
                           .query = query ? query : "", .peer = peer};
        r->fn(r->arg, &hr, &resp);
        if (resp.status < 100 || resp.status > 599)
            resp.status = 500;
    }
    LOG_DEBUG("http server on port %d: %s %s from %s: %d", atomic_load(&s->port),
              method_name(cmd), path ? path : "", peer, resp.status);
    send_response(req, &resp, head);
    buf_free(&resp.body);
}

/* ---- lifecycle ---- */

static void *loop_main(void *arg)
{
    http_server *s = arg;
    net_block_sigpipe();
    event_base_loop(s->base, EVLOOP_NO_EXIT_ON_EMPTY);
    return NULL;
}

static void stop_cb(evutil_socket_t fd, short what, void *arg)
{
    http_server *s = arg;
    event_base_loopbreak(s->base);
}

static void teardown(http_server *s)
{
    if (s->stop_ev)
        event_free(s->stop_ev);
    s->stop_ev = NULL;
    if (s->http)
        evhttp_free(s->http);
    if (s->base)
        event_base_free(s->base);
    s->http = NULL;
    s->base = NULL;
}

static int bind_port(http_server *s, const char *host, int port)
{
    struct evhttp_bound_socket *bs = evhttp_bind_socket_with_handle(s->http, host, (ev_uint16_t)port);
    if (!bs) {
        int err = EVUTIL_SOCKET_ERROR();
        return st_error(ST_IO, "http server: cannot listen on %s:%d: %s", host, port,
                        evutil_socket_error_to_string(err));
    }
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    if (getsockname(evhttp_bound_socket_get_fd(bs), (struct sockaddr *)&ss, &len) != 0)
        return st_error(ST_IO, "http server: getsockname on %s:%d failed", host, port);
    char name[96];
    net_format_addr((struct sockaddr *)&ss, name, sizeof(name));
    const char *colon = strrchr(name, ':');
    atomic_store(&s->port, colon ? atoi(colon + 1) : 0);
    LOG_INFO("http server: listening on %s", name);
    return ST_OK;
}

static int setup(http_server *s)
{
    if (!(s->base = event_base_new()))
        return st_error(ST_INTERNAL, "http server: cannot create an event base");
    if (!(s->stop_ev = event_new(s->base, -1, 0, stop_cb, s)))
        return st_error(ST_NOMEM, "http server: cannot create its stop event");
    if (!(s->http = evhttp_new(s->base)))
        return st_error(ST_NOMEM, "http server: cannot create the evhttp server");
    evhttp_set_max_headers_size(s->http, (ev_ssize_t)s->opts.max_header_bytes);
    evhttp_set_max_body_size(s->http, (ev_ssize_t)s->opts.max_body_bytes);
    evhttp_set_timeout(s->http, s->opts.timeout_s);
    /* Every method evhttp knows reaches on_request, which answers 405 itself. */
    evhttp_set_allowed_methods(s->http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD | EVHTTP_REQ_POST |
                                            EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE |
                                            EVHTTP_REQ_OPTIONS | EVHTTP_REQ_TRACE |
                                            EVHTTP_REQ_CONNECT | EVHTTP_REQ_PATCH);
    evhttp_set_gencb(s->http, on_request, s);
    return ST_OK;
}

int http_server_start(http_server *s, const char *host, int port)
{
    if (s->started)
        return st_error(ST_INVALID_ARGUMENT, "http server: already started");
    if (!host || !*host)
        host = "127.0.0.1";
    int rc = net_init_threads();
    if (rc == ST_OK)
        rc = setup(s);
    if (rc == ST_OK)
        rc = bind_port(s, host, port);
    if (rc == ST_OK && pthread_create(&s->thread, NULL, loop_main, s) != 0)
        rc = st_error(ST_INTERNAL, "http server: cannot start its thread");
    if (rc != ST_OK) {
        teardown(s);
        atomic_store(&s->port, 0);
        return rc;
    }
    s->started = true;
    return ST_OK;
}

int http_server_port(const http_server *s)
{
    return s ? atomic_load(&((http_server *)s)->port) : 0;
}

void http_server_stop(http_server *s)
{
    if (!s || !s->started || s->stopped)
        return;
    event_active(s->stop_ev, EV_READ, 0);
    pthread_join(s->thread, NULL);
    teardown(s);
    s->stopped = true;
    LOG_INFO("http server on port %d: stopped", atomic_load(&s->port));
}

void http_server_free(http_server *s)
{
    if (!s)
        return;
    http_server_stop(s);
    for (size_t i = 0; i < s->nroutes; i++)
        free(s->routes[i].path);
    free(s->routes);
    free(s);
}
