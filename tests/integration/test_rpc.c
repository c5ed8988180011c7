/*
 * test_rpc.c - the RPC server and client together over loopback (port 0): echo, errors,
 * 16 threads x 500 calls in flight on one connection answered out of order, deadlines on
 * both sides, the busy queue, connections sending garbage / oversized / truncated frames
 * being closed while a normal client keeps working, stop with calls in flight, reconnect
 * after a server restart on the same port, a big request whose direct send a full socket
 * cuts short.
 *
 * Thread-safety: completion callbacks run on the client's I/O thread and only record into
 * atomics and condition variables; every assertion runs on the test's main thread.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/clock.h"
#include "common/proto/rpc.pb-c.h"
#include "common/rpc/rpc_client.h"
#include "common/rpc/rpc_frame.h"
#include "common/rpc/rpc_header.h"
#include "common/rpc/rpc_server.h"
#include "common/status.h"
#include "tests/support/testutil.h"

/* ---- test services ---- */

typedef struct services {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool gate_open;
    int blocked; /* Test.Block calls that entered */
    atomic_int echo_calls;
} services;

static services svc;

/* I/O loops of every test server: main runs the whole group with one, then with three. */
static int server_io_threads = 1;

/* Distinct I/O threads Test.Inline ran on (io_seen). */
#define IO_SEEN_MAX 8
static pthread_t io_seen[IO_SEEN_MAX];
static int io_seen_n;

static void note_io_thread(void)
{
    pthread_t self = pthread_self();
    pthread_mutex_lock(&svc.mu);
    bool known = false;
    for (int i = 0; i < io_seen_n; i++)
        known = known || pthread_equal(io_seen[i], self);
    if (!known && io_seen_n < IO_SEEN_MAX)
        io_seen[io_seen_n++] = self;
    pthread_mutex_unlock(&svc.mu);
}

static void svc_reset(void)
{
    pthread_mutex_lock(&svc.mu);
    svc.gate_open = false;
    svc.blocked = 0;
    io_seen_n = 0;
    pthread_mutex_unlock(&svc.mu);
    atomic_store(&svc.echo_calls, 0);
}

static void gate_open(void)
{
    pthread_mutex_lock(&svc.mu);
    svc.gate_open = true;
    pthread_cond_broadcast(&svc.cv);
    pthread_mutex_unlock(&svc.mu);
}

/* Waits (at most 5 s) until n Test.Block calls have entered. */
static void wait_blocked(int n)
{
    struct timespec until = clock_realtime_after_ms(5000);
    pthread_mutex_lock(&svc.mu);
    while (svc.blocked < n && pthread_cond_timedwait(&svc.cv, &svc.mu, &until) == 0)
        ;
    int got = svc.blocked;
    pthread_mutex_unlock(&svc.mu);
    assert_int_equal(got, n);
}

static int h_echo(void *ctx, const rpc_request *req, rpc_reply *reply)
{
    atomic_fetch_add(&svc.echo_calls, 1);
    return buf_append(&reply->body, req->body, req->body_len);
}

/* Body: u32 milliseconds to sleep; answers the same body. */
static int h_sleep(void *ctx, const rpc_request *req, rpc_reply *reply)
{
    if (req->body_len != 4)
        return st_error(ST_INVALID_ARGUMENT, "Test.Sleep wants 4 bytes, got %zu", req->body_len);
    clock_sleep_ms(be32_get(req->body));
    return buf_append(&reply->body, req->body, 4);
}

/* Sleeps 0..199 microseconds chosen by the call id, then echoes. */
static int h_jitter(void *ctx, const rpc_request *req, rpc_reply *reply)
{
    uint32_t us = (uint32_t)((req->call_id * 2654435761u) >> 16) % 200;
    struct timespec ts = {0, (long)us * 1000};
    nanosleep(&ts, NULL);
    return buf_append(&reply->body, req->body, req->body_len);
}

static int h_block(void *ctx, const rpc_request *req, rpc_reply *reply)
{
    pthread_mutex_lock(&svc.mu);
    svc.blocked++;
    pthread_cond_broadcast(&svc.cv);
    while (!svc.gate_open)
        pthread_cond_wait(&svc.cv, &svc.mu);
    pthread_mutex_unlock(&svc.mu);
    return buf_append(&reply->body, "ok", 2);
}

/* Inline: answers "io" on the I/O thread unless the body is "slow", which would block
 * there and so must come back on a handler, answering "handler". */
static int h_inline(void *ctx, const rpc_request *req, rpc_reply *reply)
{
    bool slow = req->body_len == 4 && memcmp(req->body, "slow", 4) == 0;
    if (rpc_server_on_io_thread()) {
        note_io_thread();
        return slow ? ST_WOULD_BLOCK : buf_append(&reply->body, "io", 2);
    }
    return buf_append(&reply->body, "handler", 7);
}

static int h_fail(void *ctx, const rpc_request *req, rpc_reply *reply)
{
    reply->retry_after_ms = 42;
    return st_error(ST_NOT_SERVING, "region r1 not serving (call %u from %s)", req->call_id,
                    req->peer);
}

typedef struct test_server {
    rpc_server *srv;
    int port;
    char addr[64];
} test_server;

static void server_start(test_server *t, int handlers, int queue, uint32_t max_frame, int port)
{
    rpc_server_opts o;
    rpc_server_opts_default(&o);
    o.handler_threads = handlers;
    o.io_threads = server_io_threads;
    o.queue_capacity = queue;
    if (max_frame)
        o.max_frame = max_frame;
    assert_int_equal(rpc_server_new(&o, &t->srv), ST_OK);
    assert_int_equal(rpc_server_register(t->srv, "Test.Echo", h_echo, NULL), ST_OK);
    assert_int_equal(rpc_server_register(t->srv, "Test.Sleep", h_sleep, NULL), ST_OK);
    assert_int_equal(rpc_server_register(t->srv, "Test.Jitter", h_jitter, NULL), ST_OK);
    assert_int_equal(rpc_server_register(t->srv, "Test.Block", h_block, NULL), ST_OK);
    assert_int_equal(rpc_server_register(t->srv, "Test.Fail", h_fail, NULL), ST_OK);
    assert_int_equal(rpc_server_register_inline(t->srv, "Test.Inline", h_inline, NULL), ST_OK);
    assert_int_equal(rpc_server_register(t->srv, "Test.Echo", h_echo, NULL), ST_EXISTS);
    assert_int_equal(rpc_server_start(t->srv, "127.0.0.1", port), ST_OK);
    t->port = rpc_server_port(t->srv);
    assert_true(t->port > 0);
    if (port)
        assert_int_equal(t->port, port);
    snprintf(t->addr, sizeof(t->addr), "127.0.0.1:%d", t->port);
}

static rpc_client *client_new(uint32_t max_frame)
{
    rpc_client_opts o;
    rpc_client_opts_default(&o);
    if (max_frame)
        o.max_frame = max_frame;
    rpc_client *c = NULL;
    assert_int_equal(rpc_client_new(&o, &c), ST_OK);
    return c;
}

static int setup(void **state)
{
    svc_reset();
    return 0;
}

static int teardown(void **state)
{
    gate_open(); /* never leave a handler blocked */
    return 0;
}

static void sleep_body(uint8_t b[4], uint32_t ms)
{
    be32_put(b, ms);
}

/* ---- async completion recording ---- */

typedef struct waiter {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
    int status[64];
    int order[64]; /* completion order of each slot */
    char message[64][512];
} waiter;

typedef struct slot {
    waiter *w;
    int i;
} slot;

static void waiter_init(waiter *w)
{
    memset(w, 0, sizeof(*w));
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
}

static void slot_done(void *arg, rpc_result *res)
{
    slot *s = arg;
    waiter *w = s->w;
    pthread_mutex_lock(&w->mu);
    w->status[s->i] = res->status;
    w->order[s->i] = w->done++;
    memcpy(w->message[s->i], res->message, sizeof(w->message[0]));
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* Waits (at most ms) until n completions; returns how many came. */
static int waiter_wait(waiter *w, int n, int ms)
{
    struct timespec until = clock_realtime_after_ms(ms);
    pthread_mutex_lock(&w->mu);
    while (w->done < n && pthread_cond_timedwait(&w->cv, &w->mu, &until) == 0)
        ;
    int got = w->done;
    pthread_mutex_unlock(&w->mu);
    return got;
}

/* ---- raw sockets that break the protocol ---- */

static int raw_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    return fd;
}

static void raw_send(int fd, const void *p, size_t n)
{
    assert_int_equal(send(fd, p, n, MSG_NOSIGNAL), (ssize_t)n);
}

static void raw_preamble(int fd)
{
    uint8_t p[RPC_PREAMBLE_LEN];
    rpc_frame_preamble(p);
    raw_send(fd, p, sizeof(p));
}

/* Asserts the server closes fd (EOF or reset) within the receive timeout. */
static void raw_expect_closed(int fd)
{
    uint8_t b[256];
    for (;;) {
        ssize_t n = recv(fd, b, sizeof(b), 0);
        if (n == 0 || (n < 0 && errno == ECONNRESET))
            break;
        if (n < 0)
            fail_msg("server did not close the connection: %s", strerror(errno));
    }
    close(fd);
}

/* Reads one answer frame from fd into h (and the body into body). */
static void raw_read_answer(int fd, rpc_frame_decoder *d, rpc_response_header *h, buf_t *body)
{
    rpc_frame f;
    int rc;
    while ((rc = rpc_frame_decoder_next(d, &f)) == 0) {
        uint8_t b[4096];
        ssize_t n = recv(fd, b, sizeof(b), 0);
        if (n <= 0)
            fail_msg("no answer from the server: %zd %s", n, strerror(errno));
        assert_int_equal(rpc_frame_decoder_feed(d, b, (size_t)n), ST_OK);
    }
    assert_int_equal(rc, 1);
    assert_int_equal(rpc_header_decode_response(f.header, f.header_len, h), ST_OK);
    assert_int_equal(buf_set(body, f.body, f.body_len), ST_OK);
}

/* ---- tests ---- */

static void test_echo_roundtrip_and_sizes(void **state)
{
    test_server t;
    server_start(&t, 2, 64, 0, 0);
    rpc_client *c = client_new(0);
    buf_t resp = {0};
    assert_int_equal(rpc_client_call(c, t.addr, "Test.Echo", "hello", 5, 2000, &resp), ST_OK);
    assert_int_equal(resp.len, 5);
    assert_memory_equal(resp.data, "hello", 5);
    assert_int_equal(rpc_client_call(c, t.addr, "Test.Echo", NULL, 0, 2000, &resp), ST_OK);
    assert_int_equal(resp.len, 0);
    size_t big = 3u << 20;
    uint8_t *p = malloc(big);
    assert_non_null(p);
    for (size_t i = 0; i < big; i++)
        p[i] = (uint8_t)(i * 31 + 7);
    assert_int_equal(rpc_client_call(c, t.addr, "Test.Echo", p, big, 5000, &resp), ST_OK);
    assert_int_equal(resp.len, big);
    assert_memory_equal(resp.data, p, big);
    free(p);
    buf_free(&resp);
    rpc_client_stats cs;
    rpc_client_stats_get(c, &cs);
    assert_int_equal(cs.connects, 1);
    rpc_client_free(c);
    rpc_server_free(t.srv);
}

/* An inline method runs on the I/O thread; one that would block there runs again on a
 * handler; ordinary methods never run on the I/O thread. */
static void test_inline_method_on_io_thread_or_handler(void **state)
{
    test_server t;
    server_start(&t, 2, 64, 0, 0);
    rpc_client *c = client_new(0);
    buf_t resp = {0};
    for (int i = 0; i < 10; i++) {
        assert_int_equal(rpc_client_call(c, t.addr, "Test.Inline", "fast", 4, 2000, &resp), ST_OK);
        assert_int_equal(resp.len, 2);
        assert_memory_equal(resp.data, "io", 2);
        assert_int_equal(rpc_client_call(c, t.addr, "Test.Inline", "slow", 4, 2000, &resp), ST_OK);
        assert_int_equal(resp.len, 7);
        assert_memory_equal(resp.data, "handler", 7);
    }
    assert_int_equal(rpc_client_call(c, t.addr, "Test.Echo", "x", 1, 2000, &resp), ST_OK);
    rpc_server_stats ss;
    rpc_server_stats_get(t.srv, &ss);
    assert_int_equal(ss.calls_inline, 10);
    assert_int_equal(ss.calls_deferred, 10);
    assert_int_equal(ss.calls_handled, 21);
    buf_free(&resp);
    rpc_client_free(c);
    rpc_server_free(t.srv);
}

static void test_unknown_method_and_handler_error(void **state)
{
    test_server t;
    server_start(&t, 2, 64, 0, 0);
    rpc_client *c = client_new(0);
    rpc_result res;
    assert_int_equal(rpc_client_call_result(c, t.addr, "Test.Nope", "x", 1, 2000, &res),
                     ST_UNSUPPORTED);
    assert_false(res.retryable);
    assert_non_null(strstr(res.message, "unknown method Test.Nope"));
    assert_non_null(strstr(st_errmsg(), t.addr)); /* names the server */

    assert_int_equal(rpc_client_call_result(c, t.addr, "Test.Fail", NULL, 0, 2000, &res),
                     ST_NOT_SERVING);
    assert_true(res.retryable);
    assert_int_equal(res.retry_after_ms, 42);
    assert_non_null(strstr(res.message, "region r1 not serving"));
    assert_non_null(strstr(res.message, "Test.Fail"));

    uint8_t three[3] = {0};
    assert_int_equal(rpc_client_call_result(c, t.addr, "Test.Sleep", three, 3, 2000, &res),
                     ST_INVALID_ARGUMENT);
    assert_false(res.retryable);

    /* the connection survived all of it */
    buf_t resp = {0};
    assert_int_equal(rpc_client_call(c, t.addr, "Test.Echo", "a", 1, 2000, &resp), ST_OK);
    buf_free(&resp);
    rpc_client_stats cs;
    rpc_client_stats_get(c, &cs);
    assert_int_equal(cs.connects, 1);
    rpc_server_stats ss;
    rpc_server_stats_get(t.srv, &ss);
    assert_int_equal(ss.unknown_methods, 1);
    assert_int_equal(ss.connections_accepted, 1);
    rpc_client_free(c);
    rpc_server_free(t.srv);
}

static void test_bad_calls_rejected_before_sending(void **state)
{
    test_server t;
    server_start(&t, 1, 8, 0, 0);
    rpc_client *c = client_new(1024);
    buf_t resp = {0};
    uint8_t big[2000] = {0};
    assert_int_equal(rpc_client_call(c, t.addr, "Test.Echo", big, sizeof(big), 1000, &resp),
                     ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "exceeds the maximum 1024"));
    assert_int_equal(rpc_client_call(c, "no-port", "Test.Echo", "x", 1, 1000, &resp),
                     ST_INVALID_ARGUMENT);
    assert_int_equal(rpc_client_call(c, t.addr, "", "x", 1, 1000, &resp), ST_INVALID_ARGUMENT);
    rpc_client_stats cs;
    rpc_client_stats_get(c, &cs);
    assert_int_equal(cs.calls, 0);
    rpc_client_free(c);
    rpc_server_free(t.srv);
}

static void test_answers_out_of_order(void **state)
{
    test_server t;
    server_start(&t, 2, 64, 0, 0);
    rpc_client *c = client_new(0);
    waiter w;
    waiter_init(&w);
    slot s0 = {&w, 0}, s1 = {&w, 1};
    uint8_t slow[4];
    sleep_body(slow, 300);
    assert_int_equal(rpc_client_call_async(c, t.addr, "Test.Sleep", slow, 4, 3000, slot_done, &s0),
                     ST_OK);
    assert_int_equal(rpc_client_call_async(c, t.addr, "Test.Echo", "q", 1, 3000, slot_done, &s1),
                     ST_OK);
    assert_int_equal(waiter_wait(&w, 2, 5000), 2);
    assert_int_equal(w.status[0], ST_OK);
    assert_int_equal(w.status[1], ST_OK);
    assert_int_equal(w.order[1], 0); /* sent second, answered first */
    assert_int_equal(w.order[0], 1);
    rpc_client_free(c);
    rpc_server_free(t.srv);
}

/* 16 threads x 500 async calls on one connection. */
#define MT_THREADS 16
#define MT_CALLS 500

typedef struct mt_call {
    struct mt_thread *th;
    uint32_t seq;
} mt_call;

typedef struct mt_thread {
    rpc_client *c;
    const char *addr;
    int id;
    mt_call calls[MT_CALLS];
    int finished_at[MT_CALLS]; /* global completion index */
    atomic_int done, bad, failed;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} mt_thread;

static atomic_int mt_completions;

static size_t mt_body(int thread, uint32_t seq, uint8_t *out)
{
    be32_put(out, (uint32_t)thread);
    be32_put(out + 4, seq);
    size_t extra = seq % 50;
    for (size_t i = 0; i < extra; i++)
        out[8 + i] = (uint8_t)(thread * 7 + seq + i);
    return 8 + extra;
}

static void mt_done(void *arg, rpc_result *res)
{
    mt_call *mc = arg;
    mt_thread *th = mc->th;
    uint8_t want[64];
    size_t n = mt_body(th->id, mc->seq, want);
    if (res->status != ST_OK)
        atomic_fetch_add(&th->failed, 1);
    else if (res->body.len != n || memcmp(res->body.data, want, n) != 0)
        atomic_fetch_add(&th->bad, 1);
    th->finished_at[mc->seq] = atomic_fetch_add(&mt_completions, 1);
    pthread_mutex_lock(&th->mu);
    atomic_fetch_add(&th->done, 1);
    pthread_cond_signal(&th->cv);
    pthread_mutex_unlock(&th->mu);
}

static void *mt_main(void *arg)
{
    mt_thread *th = arg;
    for (uint32_t i = 0; i < MT_CALLS; i++) {
        uint8_t body[64];
        size_t n = mt_body(th->id, i, body);
        th->calls[i].th = th;
        th->calls[i].seq = i;
        if (rpc_client_call_async(th->c, th->addr, "Test.Jitter", body, n, 20000, mt_done,
                                  &th->calls[i]) != ST_OK) {
            atomic_fetch_add(&th->failed, 1);
            atomic_fetch_add(&th->done, 1);
        }
    }
    struct timespec until = clock_realtime_after_ms(30000);
    pthread_mutex_lock(&th->mu);
    while (atomic_load(&th->done) < MT_CALLS &&
           pthread_cond_timedwait(&th->cv, &th->mu, &until) == 0)
        ;
    pthread_mutex_unlock(&th->mu);
    return NULL;
}

static void test_16_threads_500_calls_in_flight_one_connection(void **state)
{
    test_server t;
    server_start(&t, 4, MT_THREADS * MT_CALLS, 0, 0);
    rpc_client *c = client_new(0);
    static mt_thread th[MT_THREADS];
    pthread_t tid[MT_THREADS];
    atomic_store(&mt_completions, 0);
    for (int i = 0; i < MT_THREADS; i++) {
        memset(&th[i], 0, sizeof(th[i]));
        th[i].c = c;
        th[i].addr = t.addr;
        th[i].id = i;
        pthread_mutex_init(&th[i].mu, NULL);
        pthread_cond_init(&th[i].cv, NULL);
        assert_int_equal(pthread_create(&tid[i], NULL, mt_main, &th[i]), 0);
    }
    long inversions = 0;
    for (int i = 0; i < MT_THREADS; i++) {
        pthread_join(tid[i], NULL);
        assert_int_equal(atomic_load(&th[i].done), MT_CALLS);
        assert_int_equal(atomic_load(&th[i].failed), 0);
        assert_int_equal(atomic_load(&th[i].bad), 0);
        for (int k = 0; k + 1 < MT_CALLS; k++)
            inversions += th[i].finished_at[k] > th[i].finished_at[k + 1];
    }
    assert_true(inversions > 0); /* answered out of order */
    rpc_client_stats cs;
    rpc_client_stats_get(c, &cs);
    assert_int_equal(cs.connects, 1);
    assert_int_equal(cs.calls, MT_THREADS * MT_CALLS);
    rpc_server_stats ss;
    rpc_server_stats_get(t.srv, &ss);
    assert_int_equal(ss.connections_accepted, 1);
    assert_int_equal(ss.calls_handled, MT_THREADS * MT_CALLS);
    assert_int_equal(ss.busy_rejections, 0);
    rpc_client_free(c);
    rpc_server_free(t.srv);
}

static void test_client_timeout_drops_late_answer(void **state)
{
    test_server t;
    server_start(&t, 2, 64, 0, 0);
    rpc_client *c = client_new(0);
    uint8_t slow[4];
    sleep_body(slow, 1000);
    buf_t resp = {0};
    uint64_t t0 = clock_mono_ns();
    rpc_result res;
    assert_int_equal(rpc_client_call_result(c, t.addr, "Test.Sleep", slow, 4, 100, &res),
                     ST_TIMEOUT);
    uint64_t ms = (clock_mono_ns() - t0) / 1000000;
    assert_true(ms >= 90 && ms < 900); /* the timer, not the answer */
    assert_true(res.retryable);
    assert_non_null(strstr(res.message, "timed out after 100 ms"));
    rpc_client_stats cs;
    for (int i = 0; i < 300; i++) { /* the answer arrives and is dropped */
        rpc_client_stats_get(c, &cs);
        if (cs.late_answers > 0)
            break;
        clock_sleep_ms(10);
    }
    assert_int_equal(cs.timeouts, 1);
    assert_int_equal(cs.late_answers, 1);
    assert_int_equal(rpc_client_call(c, t.addr, "Test.Echo", "z", 1, 2000, &resp), ST_OK);
    assert_memory_equal(resp.data, "z", 1);
    buf_free(&resp);
    rpc_client_stats_get(c, &cs);
    assert_int_equal(cs.connects, 1); /* same connection throughout */
    rpc_client_free(c);
    rpc_server_free(t.srv);
}

/* A caller that learnt the server is gone fails its calls in flight at once, as retryable
 * connection failures, long before their timeouts; the next call reconnects. */
static void test_fail_addr_fails_calls_in_flight_at_once(void **state)
{
    test_server t;
    server_start(&t, 4, 64, 0, 0);
    rpc_client *c = client_new(0);
    waiter w;
    waiter_init(&w);
    slot s[3];
    for (int i = 0; i < 3; i++) {
        s[i] = (slot){&w, i};
        assert_int_equal(
            rpc_client_call_async(c, t.addr, "Test.Block", NULL, 0, 30000, slot_done, &s[i]),
            ST_OK);
    }
    wait_blocked(3);
    uint64_t t0 = clock_mono_ns();
    assert_int_equal(rpc_client_fail_addr(c, t.addr, "server declared dead"), ST_OK);
    assert_int_equal(waiter_wait(&w, 3, 5000), 3);
    uint64_t ms = (clock_mono_ns() - t0) / 1000000;
    assert_true(ms < 1000);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(w.status[i], ST_CONNECTION);
        assert_non_null(strstr(w.message[i], "server declared dead"));
    }
    assert_int_equal(rpc_client_fail_addr(c, "127.0.0.1:1", "no such connection"), ST_OK);
    assert_int_equal(rpc_client_fail_addr(c, "", "bad"), ST_INVALID_ARGUMENT);
    gate_open();
    buf_t resp = {0};
    assert_int_equal(rpc_client_call(c, t.addr, "Test.Echo", "z", 1, 2000, &resp), ST_OK);
    buf_free(&resp);
    rpc_client_stats cs;
    rpc_client_stats_get(c, &cs);
    assert_int_equal(cs.connects, 2); /* a new connection after the failed one */
    rpc_client_free(c);
    rpc_server_free(t.srv);
}

static void test_deadline_passed_in_queue_answered_timeout_without_running(void **state)
{
    test_server t;
    server_start(&t, 1, 8, 0, 0);
    int fd = raw_connect(t.port);
    raw_preamble(fd);
    buf_t b = {0};
    assert_int_equal(rpc_header_encode_request(&b, 1, "Test.Block", 0, NULL, 0, 0), ST_OK);
    raw_send(fd, b.data, b.len);
    wait_blocked(1); /* the only handler is busy */
    buf_reset(&b);
    assert_int_equal(rpc_header_encode_request(&b, 2, "Test.Echo", 50, "e", 1, 0), ST_OK);
    raw_send(fd, b.data, b.len);
    clock_sleep_ms(150);
    gate_open();
    rpc_frame_decoder d;
    rpc_frame_decoder_init(&d, 0, false);
    rpc_response_header h[2];
    buf_t body = {0};
    raw_read_answer(fd, &d, &h[0], &body);
    raw_read_answer(fd, &d, &h[1], &body);
    rpc_response_header *blk = h[0].call_id == 1 ? &h[0] : &h[1];
    rpc_response_header *echo = h[0].call_id == 2 ? &h[0] : &h[1];
    assert_int_equal(blk->code, ST_OK);
    assert_int_equal(echo->call_id, 2);
    assert_int_equal(echo->code, ST_TIMEOUT);
    assert_non_null(strstr(echo->message, "deadline of 50 ms passed while queued"));
    assert_int_equal(atomic_load(&svc.echo_calls), 0); /* never ran */
    rpc_server_stats ss;
    rpc_server_stats_get(t.srv, &ss);
    assert_int_equal(ss.deadline_expired, 1);
    rpc_header_response_free(&h[0]);
    rpc_header_response_free(&h[1]);
    rpc_frame_decoder_free(&d);
    buf_free(&body);
    buf_free(&b);
    close(fd);
    rpc_server_free(t.srv);
}

static void test_full_queue_answers_server_busy(void **state)
{
    test_server t;
    server_start(&t, 1, 2, 0, 0);
    rpc_client *c = client_new(0);
    waiter w;
    waiter_init(&w);
    slot s[3] = {{&w, 0}, {&w, 1}, {&w, 2}};
    assert_int_equal(
        rpc_client_call_async(c, t.addr, "Test.Block", NULL, 0, 10000, slot_done, &s[0]), ST_OK);
    wait_blocked(1);
    for (int i = 1; i < 3; i++) /* fill the queue of 2 */
        assert_int_equal(
            rpc_client_call_async(c, t.addr, "Test.Block", NULL, 0, 10000, slot_done, &s[i]),
            ST_OK);
    /* same connection, so the server reads it after the two queued calls */
    rpc_result res;
    uint64_t t0 = clock_mono_ns();
    assert_int_equal(rpc_client_call_result(c, t.addr, "Test.Echo", "b", 1, 5000, &res),
                     ST_SERVER_BUSY);
    assert_true((clock_mono_ns() - t0) / 1000000 < 2000); /* at once, not after the queue */
    assert_true(res.retryable);
    assert_int_equal(res.retry_after_ms, 100);
    assert_non_null(strstr(res.message, "server busy"));
    assert_int_equal(waiter_wait(&w, 1, 50), 0); /* the blocked calls are still waiting */
    gate_open();
    assert_int_equal(waiter_wait(&w, 3, 5000), 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(w.status[i], ST_OK);
    rpc_server_stats ss;
    rpc_server_stats_get(t.srv, &ss);
    assert_int_equal(ss.busy_rejections, 1);
    assert_int_equal(atomic_load(&svc.echo_calls), 0);
    rpc_client_free(c);
    rpc_server_free(t.srv);
}

/* A normal client calling in a loop while bad connections come and go. */
typedef struct bystander {
    rpc_client *c;
    const char *addr;
    atomic_bool stop;
    atomic_int ok, failed;
    char last_error[256];
} bystander;

static void *bystander_main(void *arg)
{
    bystander *b = arg;
    buf_t resp = {0};
    for (int i = 0; i < 100000 && !atomic_load(&b->stop); i++) {
        char msg[32];
        int n = snprintf(msg, sizeof(msg), "call-%d", i);
        int rc = rpc_client_call(b->c, b->addr, "Test.Echo", msg, (size_t)n, 5000, &resp);
        if (rc == ST_OK && resp.len == (size_t)n && memcmp(resp.data, msg, (size_t)n) == 0) {
            atomic_fetch_add(&b->ok, 1);
        } else {
            snprintf(b->last_error, sizeof(b->last_error), "%s", st_errmsg());
            atomic_fetch_add(&b->failed, 1);
        }
    }
    buf_free(&resp);
    return NULL;
}

static void test_corrupt_connections_closed_others_unharmed(void **state)
{
    test_server t;
    server_start(&t, 2, 64, 1u << 20, 0);
    bystander by = {.c = client_new(0), .addr = t.addr};
    pthread_t tid;
    assert_int_equal(pthread_create(&tid, NULL, bystander_main, &by), 0);

    /* 1. not our protocol at all */
    int fd = raw_connect(t.port);
    const char *http = "GET / HTTP/1.1\r\nHost: strata\r\n\r\n";
    raw_send(fd, http, strlen(http));
    raw_expect_closed(fd);
    /* 2. an oversized frame: only its length is sent */
    fd = raw_connect(t.port);
    raw_preamble(fd);
    const uint8_t huge[] = {0x7f, 0xff, 0xff, 0xf0};
    raw_send(fd, huge, sizeof(huge));
    raw_expect_closed(fd);
    /* 3. a truncated frame, then the client closes its side */
    fd = raw_connect(t.port);
    raw_preamble(fd);
    buf_t b = {0};
    assert_int_equal(rpc_header_encode_request(&b, 1, "Test.Echo", 0, "abcdef", 6, 0), ST_OK);
    raw_send(fd, b.data, b.len - 3);
    shutdown(fd, SHUT_WR);
    raw_expect_closed(fd);
    /* 4. a frame whose header is not a RequestHeader */
    fd = raw_connect(t.port);
    raw_preamble(fd);
    buf_reset(&b);
    assert_int_equal(rpc_frame_encode(&b, "\xff\xff\xff\xff", 4, "x", 1, 0), ST_OK);
    raw_send(fd, b.data, b.len);
    raw_expect_closed(fd);
    /* 5. a frame whose body delimiter lies */
    fd = raw_connect(t.port);
    raw_preamble(fd);
    const uint8_t lying[] = {0, 0, 0, 5, 1, 0x08, 9, 'x', 'y'};
    raw_send(fd, lying, sizeof(lying));
    raw_expect_closed(fd);
    buf_free(&b);

    clock_sleep_ms(100);
    atomic_store(&by.stop, true);
    pthread_join(tid, NULL);
    if (atomic_load(&by.failed))
        fail_msg("the normal client failed %d calls: %s", atomic_load(&by.failed), by.last_error);
    assert_true(atomic_load(&by.ok) > 0);
    rpc_server_stats ss;
    rpc_server_stats_get(t.srv, &ss);
    assert_int_equal(ss.protocol_errors, 5);
    assert_int_equal(ss.connections_accepted, 6);
    assert_int_equal(ss.connections_open, 1); /* only the normal client's */
    rpc_client_stats cs;
    rpc_client_stats_get(by.c, &cs);
    assert_int_equal(cs.connects, 1);
    rpc_client_free(by.c);
    rpc_server_free(t.srv);
}

/* Sends n Echo calls of BP_BODY bytes on a raw connection, without reading. */
#define BP_CALLS 400
#define BP_BODY (64u << 10)

static void *bp_sender(void *arg)
{
    int fd = *(int *)arg;
    uint8_t *body = malloc(BP_BODY);
    buf_t b = {0};
    for (uint32_t i = 1; body && i <= BP_CALLS; i++) {
        memset(body, (int)(i & 0xff), BP_BODY);
        buf_reset(&b);
        if (rpc_header_encode_request(&b, i, "Test.Echo", 0, body, BP_BODY, 0) != ST_OK ||
            send(fd, b.data, b.len, MSG_NOSIGNAL) != (ssize_t)b.len)
            break;
    }
    buf_free(&b);
    free(body);
    return NULL;
}

static void test_unread_answers_pause_reads_then_resume(void **state)
{
    test_server t;
    server_start(&t, 2, 1024, 0, 0);
    int fd = raw_connect(t.port);
    raw_preamble(fd);
    pthread_t tid;
    assert_int_equal(pthread_create(&tid, NULL, bp_sender, &fd), 0);
    /* nobody reads: answers pile up past RPC_SERVER_OUT_HIGH and the server stops reading */
    rpc_server_stats ss;
    for (int i = 0; i < 1000; i++) {
        rpc_server_stats_get(t.srv, &ss);
        if (ss.read_pauses > 0)
            break;
        clock_sleep_ms(10);
    }
    assert_true(ss.read_pauses > 0);
    rpc_frame_decoder d;
    rpc_frame_decoder_init(&d, 0, false);
    buf_t body = {0};
    bool seen[BP_CALLS + 1] = {false};
    for (int i = 0; i < BP_CALLS; i++) {
        rpc_response_header h;
        raw_read_answer(fd, &d, &h, &body);
        assert_int_equal(h.code, ST_OK);
        assert_true(h.call_id >= 1 && h.call_id <= BP_CALLS && !seen[h.call_id]);
        seen[h.call_id] = true;
        assert_int_equal(body.len, BP_BODY);
        assert_int_equal(body.data[0], h.call_id & 0xff);
        assert_int_equal(body.data[BP_BODY - 1], h.call_id & 0xff);
    }
    pthread_join(tid, NULL); /* reads resumed, or the sender would still be blocked */
    rpc_server_stats_get(t.srv, &ss);
    assert_true(ss.read_pauses >= 1);
    assert_int_equal(ss.busy_rejections, 0);
    assert_int_equal(ss.calls_handled, BP_CALLS);
    rpc_frame_decoder_free(&d);
    buf_free(&body);
    close(fd);
    rpc_server_free(t.srv);
}

static void test_server_stop_answers_calls_in_flight(void **state)
{
    test_server t;
    server_start(&t, 2, 64, 0, 0);
    rpc_client *c = client_new(0);
    waiter w;
    waiter_init(&w);
    slot s[6];
    uint8_t body[4];
    sleep_body(body, 150);
    for (int i = 0; i < 6; i++) {
        s[i] = (slot){&w, i};
        assert_int_equal(
            rpc_client_call_async(c, t.addr, "Test.Sleep", body, 4, 10000, slot_done, &s[i]),
            ST_OK);
    }
    rpc_server_stats ss;
    for (int i = 0; i < 500; i++) { /* until all six are received */
        rpc_server_stats_get(t.srv, &ss);
        if (ss.calls_received == 6)
            break;
        clock_sleep_ms(2);
    }
    assert_int_equal(ss.calls_received, 6);
    uint64_t t0 = clock_mono_ns();
    rpc_server_stop(t.srv);
    assert_true((clock_mono_ns() - t0) / 1000000 < 3000);
    assert_int_equal(waiter_wait(&w, 6, 2000), 6);
    for (int i = 0; i < 6; i++)
        if (w.status[i] != ST_OK)
            fail_msg("call %d: %s", i, w.message[i]);
    rpc_server_stats_get(t.srv, &ss);
    assert_int_equal(ss.calls_handled, 6);
    assert_int_equal(ss.connections_open, 0);
    /* nothing listens any more */
    buf_t resp = {0};
    int rc = rpc_client_call(c, t.addr, "Test.Echo", "x", 1, 2000, &resp);
    assert_int_equal(rc, ST_CONNECTION);
    assert_true(rpc_status_retryable(rc));
    rpc_server_stop(t.srv); /* idempotent */
    rpc_client_free(c);
    rpc_server_free(t.srv);
}

static void test_client_reconnects_after_server_restart(void **state)
{
    test_server t;
    server_start(&t, 2, 64, 0, 0);
    int port = t.port;
    rpc_client *c = client_new(0);
    buf_t resp = {0};
    assert_int_equal(rpc_client_call(c, t.addr, "Test.Echo", "1", 1, 2000, &resp), ST_OK);
    rpc_server_free(t.srv);

    int rc = rpc_client_call(c, t.addr, "Test.Echo", "2", 1, 2000, &resp);
    assert_int_equal(rc, ST_CONNECTION);
    assert_non_null(strstr(st_errmsg(), t.addr));

    test_server t2;
    server_start(&t2, 2, 64, 0, port);
    assert_int_equal(rpc_client_call(c, t2.addr, "Test.Echo", "3", 1, 2000, &resp), ST_OK);
    assert_memory_equal(resp.data, "3", 1);
    buf_free(&resp);
    rpc_client_stats cs;
    rpc_client_stats_get(c, &cs);
    assert_int_equal(cs.connects, 2);
    assert_true(cs.conn_failures >= 1);
    rpc_client_free(c);
    rpc_server_free(t2.srv);
}

static void test_client_free_completes_calls_closed(void **state)
{
    test_server t;
    server_start(&t, 1, 8, 0, 0);
    rpc_client *c = client_new(0);
    waiter w;
    waiter_init(&w);
    slot s[3] = {{&w, 0}, {&w, 1}, {&w, 2}};
    for (int i = 0; i < 3; i++)
        assert_int_equal(
            rpc_client_call_async(c, t.addr, "Test.Block", NULL, 0, 10000, slot_done, &s[i]),
            ST_OK);
    wait_blocked(1);
    rpc_client_free(c);
    assert_int_equal(waiter_wait(&w, 3, 0), 3); /* all completed during free */
    for (int i = 0; i < 3; i++) {
        assert_int_equal(w.status[i], ST_CLOSED);
        assert_non_null(strstr(w.message[i], "client closed"));
    }
    gate_open();
    rpc_server_free(t.srv); /* the blocked call finishes; its answer has nowhere to go */
}

static void test_connection_refused_is_retryable(void **state)
{
    /* a port nobody listens on: bind one, note it, close it */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(sa);
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
    close(fd);
    char addr[64];
    snprintf(addr, sizeof(addr), "127.0.0.1:%d", ntohs(sa.sin_port));
    rpc_client *c = client_new(0);
    rpc_result res;
    uint64_t t0 = clock_mono_ns();
    assert_int_equal(rpc_client_call_result(c, addr, "Test.Echo", "x", 1, 3000, &res),
                     ST_CONNECTION);
    assert_true((clock_mono_ns() - t0) / 1000000 < 2000);
    assert_true(res.retryable);
    assert_non_null(strstr(res.message, addr));
    rpc_client_free(c);
}

/* A raw server that stalls before reading the second call, so that the client's direct
 * send of a big request is cut short by a full socket and the rest goes out later. */
typedef struct stall_server {
    int lfd, port;
    int frames;       /* requests decoded */
    size_t big_len;   /* body length of the second request */
    bool big_ok;      /* its bytes were the expected pattern */
    char error[128];  /* what went wrong, "" if nothing */
} stall_server;

#define STALL_BIG (24u << 20)

static uint8_t stall_byte(size_t i)
{
    return (uint8_t)(i * 131 + (i >> 12));
}

static void *stall_main(void *arg)
{
    stall_server *ss = arg;
    int fd = accept(ss->lfd, NULL, NULL);
    rpc_frame_decoder d;
    rpc_frame_decoder_init(&d, 0, true);
    uint8_t *chunk = malloc(1u << 16);
    buf_t out = {0};
    while (fd >= 0 && chunk && ss->frames < 2 && !ss->error[0]) {
        rpc_frame f;
        int rc = rpc_frame_decoder_next(&d, &f);
        if (rc < 0) {
            snprintf(ss->error, sizeof(ss->error), "decode: %s", rpc_frame_decoder_reason(&d));
        } else if (rc == 0) {
            ssize_t n = recv(fd, chunk, 1u << 16, 0);
            if (n <= 0)
                snprintf(ss->error, sizeof(ss->error), "recv: %zd", n);
            else
                rpc_frame_decoder_feed(&d, chunk, (size_t)n);
        } else {
            rpc_request_header h;
            if (rpc_header_decode_request(f.header, f.header_len, &h) != ST_OK) {
                snprintf(ss->error, sizeof(ss->error), "bad request header");
                break;
            }
            if (++ss->frames == 2) {
                ss->big_len = f.body_len;
                ss->big_ok = f.body_len == STALL_BIG;
                for (size_t i = 0; ss->big_ok && i < f.body_len; i++)
                    ss->big_ok = f.body[i] == stall_byte(i);
            }
            buf_reset(&out);
            rpc_header_encode_reply(&out, h.call_id, "ok", 2, 0);
            send(fd, out.data, out.len, MSG_NOSIGNAL);
            if (ss->frames == 1)
                clock_sleep_ms(300); /* the client sends the big call meanwhile */
        }
    }
    buf_free(&out);
    free(chunk);
    rpc_frame_decoder_free(&d);
    if (fd >= 0)
        close(fd);
    return NULL;
}

static void test_big_direct_send_cut_short_by_full_socket_arrives_intact(void **state)
{
    stall_server ss = {.lfd = socket(AF_INET, SOCK_STREAM, 0)};
    int small = 4096;
    setsockopt(ss.lfd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(sa);
    assert_int_equal(bind(ss.lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(listen(ss.lfd, 4), 0);
    assert_int_equal(getsockname(ss.lfd, (struct sockaddr *)&sa, &len), 0);
    char addr[64];
    snprintf(addr, sizeof(addr), "127.0.0.1:%d", ntohs(sa.sin_port));
    pthread_t tid;
    assert_int_equal(pthread_create(&tid, NULL, stall_main, &ss), 0);
    rpc_client *c = client_new(0);
    buf_t resp = {0};
    assert_int_equal(rpc_client_call(c, addr, "Test.Echo", "x", 1, 5000, &resp), ST_OK);
    uint8_t *big = malloc(STALL_BIG);
    assert_non_null(big);
    for (size_t i = 0; i < STALL_BIG; i++)
        big[i] = stall_byte(i);
    assert_int_equal(rpc_client_call(c, addr, "Test.Echo", big, STALL_BIG, 20000, &resp), ST_OK);
    assert_int_equal(resp.len, 2);
    assert_memory_equal(resp.data, "ok", 2);
    pthread_join(tid, NULL);
    assert_string_equal(ss.error, "");
    assert_int_equal(ss.frames, 2);
    assert_int_equal(ss.big_len, STALL_BIG);
    assert_true(ss.big_ok);
    free(big);
    buf_free(&resp);
    rpc_client_free(c);
    close(ss.lfd);
}

typedef struct conn_worker {
    const char *addr;
    int calls;
    int failures;
    char why[256];
} conn_worker;

/* One connection (its own rpc_client) making inline, deferred and handler calls. */
static void *conn_worker_main(void *arg)
{
    conn_worker *w = arg;
    rpc_client *c = client_new(0);
    buf_t resp = {0};
    for (int i = 0; i < w->calls; i++) {
        const char *method = i % 3 == 2 ? "Test.Echo" : "Test.Inline";
        const char *body = i % 3 == 0 ? "fast" : "slow";
        const char *want = i % 3 == 0 ? "io" : i % 3 == 1 ? "handler" : "slow";
        int rc = rpc_client_call(c, w->addr, method, body, 4, 5000, &resp);
        if (rc != ST_OK || resp.len != strlen(want) || memcmp(resp.data, want, resp.len) != 0) {
            if (w->failures++ == 0)
                snprintf(w->why, sizeof(w->why), "call %d %s: %s", i, method,
                         rc == ST_OK ? "wrong answer" : st_errmsg());
        }
    }
    buf_free(&resp);
    rpc_client_free(c);
    return NULL;
}

/* Connections are dealt out to the I/O loops: six connections run their inline calls on
 * as many threads as the server has loops (one, or three), every call is answered right,
 * and stop closes them all. */
static void test_connections_spread_over_io_loops(void **state)
{
    test_server t;
    server_start(&t, 4, 256, 0, 0);
    enum { CONNS = 6, CALLS = 300 };
    conn_worker w[CONNS];
    pthread_t th[CONNS];
    for (int i = 0; i < CONNS; i++) {
        w[i] = (conn_worker){.addr = t.addr, .calls = CALLS};
        assert_int_equal(pthread_create(&th[i], NULL, conn_worker_main, &w[i]), 0);
    }
    for (int i = 0; i < CONNS; i++) {
        pthread_join(th[i], NULL);
        if (w[i].failures)
            fail_msg("connection %d: %d failed calls, first: %s", i, w[i].failures, w[i].why);
    }
    rpc_server_stats ss;
    rpc_server_stats_get(t.srv, &ss);
    assert_int_equal(ss.io_threads, (uint64_t)server_io_threads);
    assert_int_equal(ss.connections_accepted, CONNS);
    assert_int_equal(ss.calls_inline, CONNS * CALLS / 3);
    assert_int_equal(ss.calls_deferred, CONNS * CALLS / 3);
    assert_int_equal(ss.calls_handled, CONNS * CALLS);
    pthread_mutex_lock(&svc.mu);
    int seen = io_seen_n;
    pthread_mutex_unlock(&svc.mu);
    assert_int_equal(seen, server_io_threads);
    rpc_server_stop(t.srv);
    rpc_server_stats_get(t.srv, &ss);
    assert_int_equal(ss.connections_open, 0);
    rpc_server_free(t.srv);
}

int main(void)
{
    pthread_mutex_init(&svc.mu, NULL);
    pthread_cond_init(&svc.cv, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_echo_roundtrip_and_sizes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_inline_method_on_io_thread_or_handler, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_unknown_method_and_handler_error, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_calls_rejected_before_sending, setup, teardown),
        cmocka_unit_test_setup_teardown(test_answers_out_of_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_16_threads_500_calls_in_flight_one_connection, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_client_timeout_drops_late_answer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fail_addr_fails_calls_in_flight_at_once, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_deadline_passed_in_queue_answered_timeout_without_running, setup, teardown),
        cmocka_unit_test_setup_teardown(test_full_queue_answers_server_busy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_corrupt_connections_closed_others_unharmed, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_unread_answers_pause_reads_then_resume, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_server_stop_answers_calls_in_flight, setup, teardown),
        cmocka_unit_test_setup_teardown(test_client_reconnects_after_server_restart, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_client_free_completes_calls_closed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_connection_refused_is_retryable, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_big_direct_send_cut_short_by_full_socket_arrives_intact, setup, teardown),
        cmocka_unit_test_setup_teardown(test_connections_spread_over_io_loops, setup, teardown),
    };
    int failed = cmocka_run_group_tests_name("rpc, one I/O loop", tests, NULL, NULL);
    server_io_threads = 3;
    failed += cmocka_run_group_tests_name("rpc, three I/O loops", tests, NULL, NULL);
    return tu_exit_status(failed);
}
