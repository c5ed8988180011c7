/*
 * rpc_server.c - the RPC server's lifecycle: options, method registry, start (listener,
 * I/O loops, handler pool), graceful stop, statistics.
 *
 * Stop sequence (rpc_server_stop, on the caller's thread, under stop_mu):
 *   1. stopping = true (sockets accepted from now on are closed), event_active(stop_ev) of
 *      every loop -> stop_cb on each loop's thread: loop 0 frees the listener; each stops
 *      reading its connections (DRAINING) and arms its stop timer.
 *   2. Handlers finish the queued calls; srv_check_stop closes each connection whose
 *      answers are all written once none of its loop's calls is in flight, and ends the
 *      loop when none is left. A loop's stop timer closes whatever of it remains after
 *      opts.stop_timeout_ms.
 *   3. Join the loops' threads, then close the queue and join the handlers
 *      (srv_pool_stop), then free the event bases.
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
    o->io_threads = 1;
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
    if (o.handler_threads < 1 || o.handler_threads > 1024 || o.io_threads < 1 ||
        o.io_threads > RPC_SERVER_IO_THREADS_MAX || o.queue_capacity < 1 || o.stop_timeout_ms < 0)
        return st_error(ST_INVALID_ARGUMENT,
                        "rpc server: bad options: %d handler threads, %d I/O threads, queue of %d",
                        o.handler_threads, o.io_threads, o.queue_capacity);
    if (o.max_frame == 0)
        o.max_frame = RPC_FRAME_MAX_DEFAULT;
    rpc_server *s = calloc(1, sizeof(*s));
    if (!s)
        return st_error(ST_NOMEM, "rpc server: out of memory");
    s->opts = o;
    s->loops = calloc((size_t)o.io_threads, sizeof(*s->loops));
    if (!s->loops) {
        free(s);
        return st_error(ST_NOMEM, "rpc server: out of memory");
    }
    s->n_loops = o.io_threads;
    for (int i = 0; i < s->n_loops; i++) {
        s->loops[i].srv = s;
        s->loops[i].index = i;
        pthread_mutex_init(&s->loops[i].done_mu, NULL);
        pthread_mutex_init(&s->loops[i].accept_mu, NULL);
    }
    pthread_mutex_init(&s->stop_mu, NULL);
    pthread_mutex_init(&s->q_mu, NULL);
    pthread_cond_init(&s->q_cv, NULL);
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

void srv_check_stop(srv_loop *lp)
{
    if (!lp->draining || atomic_load(&lp->inflight) > 0)
        return;
    srv_conn *next;
    for (srv_conn *c = lp->conns; c; c = next) {
        next = c->next;
        if (evbuffer_get_length(bufferevent_get_output(c->bev)) == 0)
            srv_conn_close(c);
    }
    if (!lp->conns)
        event_base_loopbreak(lp->base);
}

static void stop_cb(evutil_socket_t fd, short what, void *arg)
{
    srv_loop *lp = arg;
    rpc_server *s = lp->srv;
    lp->draining = true;
    if (lp->index == 0 && s->listener) {
        evconnlistener_free(s->listener);
        s->listener = NULL;
    }
    for (srv_conn *c = lp->conns; c; c = c->next)
        srv_conn_begin_drain(c);
    struct timeval tv = {s->opts.stop_timeout_ms / 1000, (s->opts.stop_timeout_ms % 1000) * 1000};
    evtimer_add(lp->stop_timer, &tv);
    srv_check_stop(lp);
}

static void stop_timer_cb(evutil_socket_t fd, short what, void *arg)
{
    srv_loop *lp = arg;
    LOG_WARN("rpc server on port %d: stop timed out after %d ms with %zu calls of I/O loop %d "
             "unanswered; closing its remaining connections",
             rpc_server_port(lp->srv), lp->srv->opts.stop_timeout_ms, atomic_load(&lp->inflight),
             lp->index);
    while (lp->conns)
        srv_conn_close(lp->conns);
    event_base_loopbreak(lp->base);
}

static void *io_main(void *arg)
{
    srv_loop *lp = arg;
    net_block_sigpipe();
    event_base_loop(lp->base, EVLOOP_NO_EXIT_ON_EMPTY);
    return NULL;
}

/* Frees the listener, every loop's connections, handed-over sockets, events and base
 * (threads already joined or never started). */
static void teardown(rpc_server *s)
{
    if (s->listener)
        evconnlistener_free(s->listener);
    s->listener = NULL;
    for (int i = 0; i < s->n_loops; i++) {
        srv_loop *lp = &s->loops[i];
        while (lp->conns)
            srv_conn_close(lp->conns);
        while (lp->accepted) {
            srv_accepted *a = lp->accepted;
            lp->accepted = a->next;
            evutil_closesocket(a->fd);
            free(a);
        }
        struct event **evs[] = {&lp->done_ev, &lp->stop_ev, &lp->stop_timer, &lp->accept_ev};
        for (size_t k = 0; k < sizeof(evs) / sizeof(evs[0]); k++) {
            if (*evs[k])
                event_free(*evs[k]);
            *evs[k] = NULL;
        }
        if (lp->base)
            event_base_free(lp->base);
        lp->base = NULL;
    }
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
        evconnlistener_new_bind(s->loops[0].base, srv_conn_accept_cb, s,
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
    for (int i = 0; i < s->n_loops; i++) {
        srv_loop *lp = &s->loops[i];
        lp->base = event_base_new();
        if (!lp->base)
            return st_error(ST_INTERNAL, "rpc server: cannot create the event base of I/O loop %d",
                            i);
        lp->done_ev = event_new(lp->base, -1, 0, srv_pool_done_cb, lp);
        lp->stop_ev = event_new(lp->base, -1, 0, stop_cb, lp);
        lp->stop_timer = evtimer_new(lp->base, stop_timer_cb, lp);
        lp->accept_ev = event_new(lp->base, -1, 0, srv_conn_handover_cb, lp);
        if (!lp->done_ev || !lp->stop_ev || !lp->stop_timer || !lp->accept_ev)
            return st_error(ST_NOMEM, "rpc server: cannot create the events of I/O loop %d", i);
    }
    return ST_OK;
}

/* Joins the loops' threads that run (each ends once stop_ev has drained it). */
static void join_loops(rpc_server *s)
{
    for (int i = 0; i < s->n_loops; i++)
        if (s->loops[i].running) {
            pthread_join(s->loops[i].thread, NULL);
            s->loops[i].running = false;
        }
}

static int start_loops(rpc_server *s)
{
    for (int i = 0; i < s->n_loops; i++) {
        if (pthread_create(&s->loops[i].thread, NULL, io_main, &s->loops[i]) != 0) {
            /* loopexit, not loopbreak: a loop not yet entered would clear a break */
            for (int k = 0; k < i; k++)
                event_base_loopexit(s->loops[k].base, NULL);
            join_loops(s);
            return st_error(ST_INTERNAL, "rpc server: cannot start I/O thread %d", i);
        }
        s->loops[i].running = true;
    }
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
    if (rc == ST_OK && (rc = start_loops(s)) != ST_OK)
        srv_pool_stop(s);
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
        atomic_store(&s->stopping, true);
        for (int i = 0; i < s->n_loops; i++)
            event_active(s->loops[i].stop_ev, EV_READ, 0);
        join_loops(s);
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
    for (int i = 0; i < s->n_loops; i++) {
        pthread_mutex_destroy(&s->loops[i].done_mu);
        pthread_mutex_destroy(&s->loops[i].accept_mu);
    }
    free(s->loops);
    pthread_mutex_destroy(&s->stop_mu);
    pthread_mutex_destroy(&s->q_mu);
    pthread_cond_destroy(&s->q_cv);
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
    out->io_threads = (uint64_t)m->n_loops;
}
