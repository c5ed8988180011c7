/*
 * rpc_server.c - the RPC server's lifecycle: options, method registry, start (listener,
 * I/O thread, handler pool), graceful stop, statistics.
 *
 * Stop sequence (rpc_server_stop, on the caller's thread, under stop_mu):
 *   1. event_active(stop_ev) -> stop_cb on the I/O thread: free the listener, stop reading
 *      every connection (DRAINING), arm the stop timer.
 *   2. Handlers finish the queued calls; srv_check_stop closes each connection whose
 *      answers are all written once no call is in flight, and ends the loop when none is
 *      left. The stop timer closes whatever remains after opts.stop_timeout_ms.
 *   3. Join the I/O thread, then close the queue and join the handlers (srv_pool_stop),
 *      then free the event base.
 * Thread-safety: see rpc_server.h; the locks are described in rpc_server_internal.h.
 */
#include "common/rpc/rpc_server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "common/log.h"
#include "common/net.h"
#include "common/rpc/rpc_server_internal.h"
#include "common/status.h"

void rpc_server_opts_default(rpc_server_opts *o)
{
    o->handler_threads = 8;
    o->queue_capacity = 1024;
    o->max_frame = RPC_FRAME_MAX_DEFAULT;
    o->stop_timeout_ms = 5000;
    o->busy_retry_after_ms = 100;
}

int rpc_server_new(const rpc_server_opts *opts, rpc_server **out)
{
    *out = NULL;
    rpc_server_opts o;
    rpc_server_opts_default(&o);
    if (opts)
        o = *opts;
    if (o.handler_threads < 1 || o.handler_threads > 1024 || o.queue_capacity < 1 ||
        o.stop_timeout_ms < 0)
        return st_error(ST_INVALID_ARGUMENT,
                        "rpc server: bad options: %d handler threads, queue of %d",
                        o.handler_threads, o.queue_capacity);
    if (o.max_frame == 0)
        o.max_frame = RPC_FRAME_MAX_DEFAULT;
    rpc_server *s = calloc(1, sizeof(*s));
    if (!s)
        return st_error(ST_NOMEM, "rpc server: out of memory");
    s->opts = o;
    pthread_mutex_init(&s->stop_mu, NULL);
    pthread_mutex_init(&s->q_mu, NULL);
    pthread_cond_init(&s->q_cv, NULL);
    pthread_mutex_init(&s->done_mu, NULL);
    *out = s;
    return ST_OK;
}

static int register_method(rpc_server *s, const char *method, rpc_handler_fn fn, void *ctx,
                           bool inline_first);

int rpc_server_register(rpc_server *s, const char *method, rpc_handler_fn fn, void *ctx)
{
    return register_method(s, method, fn, ctx, false);
}

int rpc_server_register_inline(rpc_server *s, const char *method, rpc_handler_fn fn, void *ctx)
{
    return register_method(s, method, fn, ctx, true);
}

static int register_method(rpc_server *s, const char *method, rpc_handler_fn fn, void *ctx,
                           bool inline_first)
{
    size_t len = method ? strlen(method) : 0;
    if (s->started || !fn || len == 0 || len > RPC_METHOD_MAX)
        return st_error(ST_INVALID_ARGUMENT, "rpc server: cannot register method '%s'",
                        method ? method : "");
    for (size_t i = 0; i < s->n_methods; i++)
        if (strcmp(s->methods[i].name, method) == 0)
            return st_error(ST_EXISTS, "rpc server: method %s registered twice", method);
    srv_method *m = realloc(s->methods, (s->n_methods + 1) * sizeof(*m));
    if (!m)
        return st_error(ST_NOMEM, "rpc server: out of memory registering %s", method);
    s->methods = m;
    memcpy(m[s->n_methods].name, method, len + 1);
    m[s->n_methods].fn = fn;
    m[s->n_methods].ctx = ctx;
    m[s->n_methods].inline_first = inline_first;
    s->n_methods++;
    return ST_OK;
}

void srv_check_stop(rpc_server *s)
{
    if (!atomic_load(&s->stopping) || atomic_load(&s->inflight) > 0)
        return;
    srv_conn *next;
    for (srv_conn *c = s->conns; c; c = next) {
        next = c->next;
        if (evbuffer_get_length(bufferevent_get_output(c->bev)) == 0)
            srv_conn_close(c);
    }
    if (!s->conns)
        event_base_loopbreak(s->base);
}

static void stop_cb(evutil_socket_t fd, short what, void *arg)
{
    rpc_server *s = arg;
    atomic_store(&s->stopping, true);
    if (s->listener) {
        evconnlistener_free(s->listener);
        s->listener = NULL;
    }
    for (srv_conn *c = s->conns; c; c = c->next)
        srv_conn_begin_drain(c);
    struct timeval tv = {s->opts.stop_timeout_ms / 1000, (s->opts.stop_timeout_ms % 1000) * 1000};
    evtimer_add(s->stop_timer, &tv);
    srv_check_stop(s);
}

static void stop_timer_cb(evutil_socket_t fd, short what, void *arg)
{
    rpc_server *s = arg;
    LOG_WARN("rpc server on port %d: stop timed out after %d ms with %zu calls unanswered; "
             "closing the remaining connections",
             rpc_server_port(s), s->opts.stop_timeout_ms, atomic_load(&s->inflight));
    while (s->conns)
        srv_conn_close(s->conns);
    event_base_loopbreak(s->base);
}

static void *io_main(void *arg)
{
    rpc_server *s = arg;
    net_block_sigpipe();
    event_base_loop(s->base, EVLOOP_NO_EXIT_ON_EMPTY);
    return NULL;
}

/* Frees the listener, events and base (threads already joined or never started). */
static void teardown(rpc_server *s)
{
    while (s->conns)
        srv_conn_close(s->conns);
    if (s->listener)
        evconnlistener_free(s->listener);
    s->listener = NULL;
    if (s->done_ev)
        event_free(s->done_ev);
    if (s->stop_ev)
        event_free(s->stop_ev);
    if (s->stop_timer)
        event_free(s->stop_timer);
    s->done_ev = s->stop_ev = s->stop_timer = NULL;
    if (s->base)
        event_base_free(s->base);
    s->base = NULL;
}

static int listen_on(rpc_server *s, const char *host, int port)
{
    struct sockaddr_storage ss;
    socklen_t sslen = 0;
    int rc = net_resolve(host, port, &ss, &sslen);
    if (rc != ST_OK) {
        char why[256];
        snprintf(why, sizeof(why), "%s", st_errmsg());
        return st_error(ST_IO, "rpc server: %s", why);
    }
    s->listener =
        evconnlistener_new_bind(s->base, srv_conn_accept_cb, s,
                                LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC,
                                -1, (struct sockaddr *)&ss, (int)sslen);
    if (!s->listener) {
        int err = EVUTIL_SOCKET_ERROR();
        return st_error(ST_IO, "rpc server: cannot listen on %s:%d: %s", host, port,
                        evutil_socket_error_to_string(err));
    }
    evconnlistener_set_error_cb(s->listener, srv_conn_accept_error_cb);
    struct sockaddr_storage bound;
    socklen_t blen = sizeof(bound);
    if (getsockname(evconnlistener_get_fd(s->listener), (struct sockaddr *)&bound, &blen) != 0)
        return st_error(ST_IO, "rpc server: getsockname on %s:%d failed", host, port);
    char name[64];
    net_format_addr((struct sockaddr *)&bound, name, sizeof(name));
    const char *colon = strrchr(name, ':');
    atomic_store(&s->port, colon ? atoi(colon + 1) : 0);
    LOG_INFO("rpc server: listening on %s", name);
    return ST_OK;
}

static int make_events(rpc_server *s)
{
    s->base = event_base_new();
    if (!s->base)
        return st_error(ST_INTERNAL, "rpc server: cannot create an event base");
    s->done_ev = event_new(s->base, -1, 0, srv_pool_done_cb, s);
    s->stop_ev = event_new(s->base, -1, 0, stop_cb, s);
    s->stop_timer = evtimer_new(s->base, stop_timer_cb, s);
    if (!s->done_ev || !s->stop_ev || !s->stop_timer)
        return st_error(ST_NOMEM, "rpc server: cannot create events");
    return ST_OK;
}

int rpc_server_start(rpc_server *s, const char *host, int port)
{
    if (s->started)
        return st_error(ST_INVALID_ARGUMENT, "rpc server: already started");
    if (!host)
        host = "127.0.0.1";
    int rc = net_init_threads();
    if (rc == ST_OK)
        rc = make_events(s);
    if (rc == ST_OK)
        rc = listen_on(s, host, port);
    if (rc == ST_OK)
        rc = srv_pool_start(s);
    if (rc == ST_OK && pthread_create(&s->io_thread, NULL, io_main, s) != 0) {
        srv_pool_stop(s);
        rc = st_error(ST_INTERNAL, "rpc server: cannot start the I/O thread");
    }
    if (rc != ST_OK) {
        teardown(s);
        atomic_store(&s->port, 0);
        return rc;
    }
    s->started = true;
    return ST_OK;
}

int rpc_server_port(const rpc_server *s)
{
    return atomic_load(&((rpc_server *)s)->port);
}

void rpc_server_stop(rpc_server *s)
{
    pthread_mutex_lock(&s->stop_mu);
    if (s->started && !s->stopped) {
        event_active(s->stop_ev, EV_READ, 0);
        pthread_join(s->io_thread, NULL);
        srv_pool_stop(s);
        teardown(s);
        s->stopped = true;
        LOG_INFO("rpc server on port %d: stopped", rpc_server_port(s));
    }
    pthread_mutex_unlock(&s->stop_mu);
}

void rpc_server_free(rpc_server *s)
{
    if (!s)
        return;
    rpc_server_stop(s);
    free(s->q);
    free(s->handlers);
    free(s->methods);
    pthread_mutex_destroy(&s->stop_mu);
    pthread_mutex_destroy(&s->q_mu);
    pthread_cond_destroy(&s->q_cv);
    pthread_mutex_destroy(&s->done_mu);
    free(s);
}

void rpc_server_stats_get(const rpc_server *s, rpc_server_stats *out)
{
    rpc_server *m = (rpc_server *)s;
#define LOAD(f) atomic_load_explicit(&m->stats.f, memory_order_relaxed)
    out->connections_accepted = LOAD(accepted);
    out->connections_open = LOAD(open);
    out->calls_received = LOAD(received);
    out->calls_handled = LOAD(handled);
    out->busy_rejections = LOAD(busy);
    out->deadline_expired = LOAD(expired);
    out->unknown_methods = LOAD(unknown);
    out->protocol_errors = LOAD(protocol);
    out->read_pauses = LOAD(paused);
    out->calls_inline = LOAD(inlined);
    out->calls_deferred = LOAD(deferred);
#undef LOAD
}
