/*
 * test_http_server.c - common/http/http_server.h over real sockets (tests/support/http_client.h):
 *
 *   - a handler's status, content type and body reach the client; the query string is
 *     given to the handler and not part of the match; HEAD keeps Content-Length, no body;
 *   - unknown paths are 404, other methods on a known path 405 with "Allow", unknown
 *     methods 501, and no handler runs for any of them;
 *   - oversized request headers (400) and bodies (413) are refused without a handler;
 *   - many clients at once all get their own answer; the server keeps serving after
 *     clients that vanish mid-request;
 *   - port 0 binds a free port; a port in use fails with ST_IO; handlers cannot be added
 *     after start; stop returns with idle connections open, and twice is harmless.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/http/http_server.h"
#include "common/status.h"
#include "tests/support/http_client.h"
#include "tests/support/testutil.h"

static atomic_int calls;

static void h_hello(void *arg, const http_request *req, http_response *resp)
{
    atomic_fetch_add(&calls, 1);
    http_response_printf(resp, "hello %s %s q=%s\n", req->method, req->path, req->query);
}

static void h_unavailable(void *arg, const http_request *req, http_response *resp)
{
    atomic_fetch_add(&calls, 1);
    http_response_set(resp, 503, "application/json");
    http_response_printf(resp, "{\"why\":\"%s\"}", (const char *)arg);
}

/* Echoes the number in the query ("n=17") in a body of that many kilobytes. */
static void h_sized(void *arg, const http_request *req, http_response *resp)
{
    atomic_fetch_add(&calls, 1);
    int n = atoi(req->query + 2);
    http_response_printf(resp, "%d:", n);
    for (int i = 0; i < n; i++)
        http_response_printf(resp, "%01023d", i % 10);
}

static http_server *start_server(const http_server_opts *o)
{
    http_server *s = NULL;
    assert_int_equal(http_server_new(o, &s), ST_OK);
    assert_int_equal(http_server_handle(s, "/hello", h_hello, NULL), ST_OK);
    assert_int_equal(http_server_handle(s, "/down", h_unavailable, "maintenance"), ST_OK);
    assert_int_equal(http_server_handle(s, "/sized", h_sized, NULL), ST_OK);
    assert_int_equal(http_server_start(s, "127.0.0.1", 0), ST_OK);
    assert_true(http_server_port(s) > 0);
    atomic_store(&calls, 0);
    return s;
}

static void get_expect(int port, const char *path, int status, const char *type, const char *body)
{
    thc_response r;
    assert_int_equal(thc_get(port, path, &r), 0);
    assert_int_equal(r.status, status);
    if (type)
        assert_string_equal(r.content_type, type);
    if (body)
        assert_string_equal(r.body, body);
    assert_int_equal(r.content_length, (long)r.body_len);
    thc_response_free(&r);
}

static void handler_answer_reaches_client(void **state)
{
    http_server *s = start_server(NULL);
    int port = http_server_port(s);
    get_expect(port, "/hello", 200, "text/plain; charset=utf-8", "hello GET /hello q=\n");
    get_expect(port, "/hello?a=1&b=%20x", 200, NULL, "hello GET /hello q=a=1&b=%20x\n");
    get_expect(port, "/down", 503, "application/json", "{\"why\":\"maintenance\"}");
    get_expect(port, "/sized?n=300", 200, NULL, NULL); /* 300 KiB body, whole */
    thc_response r;
    assert_int_equal(thc_get(port, "/sized?n=300", &r), 0);
    assert_int_equal(r.body_len, 4 + 300 * 1023);
    thc_response_free(&r);
    /* HEAD: the length of the GET body, no body. */
    assert_int_equal(thc_request(port, "HEAD", "/hello", NULL, NULL, 0, 5000, &r), 0);
    assert_int_equal(r.status, 200);
    assert_int_equal(r.content_length, (long)strlen("hello HEAD /hello q=\n"));
    assert_int_equal(r.body_len, 0);
    thc_response_free(&r);
    assert_int_equal(atomic_load(&calls), 6);
    http_server_free(s);
}

static void unknown_path_404_and_other_methods_405(void **state)
{
    http_server *s = start_server(NULL);
    int port = http_server_port(s);
    get_expect(port, "/nope", 404, NULL, NULL);
    get_expect(port, "/hello/", 404, NULL, NULL);
    get_expect(port, "/", 404, NULL, NULL);
    static const char *const methods[] = {"POST", "PUT", "DELETE", "OPTIONS", "PATCH"};
    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
        thc_response r;
        assert_int_equal(thc_request(port, methods[i], "/hello", NULL, "x", 1, 5000, &r), 0);
        assert_int_equal(r.status, 405);
        char allow[64];
        assert_int_equal(thc_header(&r, "Allow", allow, sizeof(allow)), 0);
        assert_string_equal(allow, "GET, HEAD");
        thc_response_free(&r);
    }
    /* a method evhttp does not know */
    thc_response u;
    assert_int_equal(thc_request(port, "FROB", "/hello", NULL, NULL, 0, 5000, &u), 0);
    assert_int_equal(u.status, 501);
    thc_response_free(&u);
    /* an unknown path stays 404 whatever the method */
    thc_response r;
    assert_int_equal(thc_request(port, "POST", "/nope", NULL, "x", 1, 5000, &r), 0);
    assert_int_equal(r.status, 404);
    thc_response_free(&r);
    assert_int_equal(atomic_load(&calls), 0);
    http_server_free(s);
}

static void large_request_refused_without_handler(void **state)
{
    http_server_opts o;
    http_server_opts_default(&o);
    o.max_header_bytes = 2048;
    o.max_body_bytes = 1024;
    http_server *s = start_server(&o);
    int port = http_server_port(s);
    size_t big = 64 * 1024;
    char *hdr = malloc(big + 32);
    assert_non_null(hdr);
    snprintf(hdr, 32, "X-Big: ");
    memset(hdr + 7, 'a', big);
    memcpy(hdr + 7 + big, "\r\n", 3);
    thc_response r;
    assert_int_equal(thc_request(port, "GET", "/hello", hdr, NULL, 0, 5000, &r), 0);
    assert_int_equal(r.status, 400);
    thc_response_free(&r);
    /* a long URI counts against the same limit */
    char *path = malloc(big + 16);
    assert_non_null(path);
    memcpy(path, "/hello?", 7);
    memset(path + 7, 'q', big);
    path[7 + big] = 0;
    assert_int_equal(thc_request(port, "GET", path, NULL, NULL, 0, 5000, &r), 0);
    assert_int_equal(r.status, 400);
    thc_response_free(&r);
    /* a body past the limit */
    assert_int_equal(thc_request(port, "GET", "/hello", NULL, hdr, big, 5000, &r), 0);
    assert_int_equal(r.status, 413);
    thc_response_free(&r);
    assert_int_equal(atomic_load(&calls), 0);
    /* just under the limits still works */
    hdr[7 + 1500] = 0;
    strcat(hdr, "\r\n");
    assert_int_equal(thc_request(port, "GET", "/hello", hdr, NULL, 0, 5000, &r), 0);
    assert_int_equal(r.status, 200);
    thc_response_free(&r);
    free(hdr);
    free(path);
    http_server_free(s);
}

typedef struct client_arg {
    int port;
    int id;
    int ok;
} client_arg;

static void *client_main(void *p)
{
    client_arg *a = p;
    for (int i = 0; i < 25; i++) {
        char path[64], want[96];
        snprintf(path, sizeof(path), "/hello?c=%d&i=%d", a->id, i);
        snprintf(want, sizeof(want), "hello GET /hello q=c=%d&i=%d\n", a->id, i);
        thc_response r;
        if (thc_request(a->port, "GET", path, NULL, NULL, 0, 20000, &r) == 0 && r.status == 200 &&
            strcmp(r.body, want) == 0)
            a->ok++;
        thc_response_free(&r);
    }
    return NULL;
}

/* Opens a connection, sends half a request and closes it. */
static void vanish(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_true(fd >= 0);
    assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_true(send(fd, "GET /hel", 8, MSG_NOSIGNAL) == 8);
    close(fd);
}

static void concurrent_clients_each_get_their_answer(void **state)
{
    http_server *s = start_server(NULL);
    enum { N = 8 };
    pthread_t t[N];
    client_arg args[N];
    for (int i = 0; i < N; i++) {
        args[i] = (client_arg){.port = http_server_port(s), .id = i};
        assert_int_equal(pthread_create(&t[i], NULL, client_main, &args[i]), 0);
    }
    for (int i = 0; i < 20; i++)
        vanish(http_server_port(s));
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(args[i].ok, 25);
    }
    assert_int_equal(atomic_load(&calls), N * 25);
    get_expect(http_server_port(s), "/hello", 200, NULL, "hello GET /hello q=\n");
    http_server_free(s);
}

static void lifecycle_port_in_use_late_handler_idle_stop(void **state)
{
    http_server *s = start_server(NULL);
    int port = http_server_port(s);
    assert_int_equal(http_server_handle(s, "/late", h_hello, NULL), ST_INVALID_ARGUMENT);
    assert_int_equal(http_server_start(s, "127.0.0.1", 0), ST_INVALID_ARGUMENT);

    http_server *t = NULL;
    assert_int_equal(http_server_new(NULL, &t), ST_OK);
    assert_int_equal(http_server_handle(t, "relative", h_hello, NULL), ST_INVALID_ARGUMENT);
    assert_int_equal(http_server_start(t, "127.0.0.1", port), ST_IO);
    assert_int_equal(http_server_port(t), 0);
    http_server_free(t);

    /* an idle keep-alive connection does not hold up stop */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    const char *req = "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n";
    assert_true(send(fd, req, strlen(req), MSG_NOSIGNAL) == (ssize_t)strlen(req));
    char buf[512];
    assert_true(recv(fd, buf, sizeof(buf), 0) > 0);
    int64_t t0 = clock_now_ms();
    http_server_stop(s);
    http_server_stop(s);
    assert_true(clock_now_ms() - t0 < 2000);
    thc_response r;
    assert_int_equal(thc_get(port, "/hello", &r), -1);
    close(fd);
    http_server_free(s);
    http_server_free(NULL);
}

static void response_helpers(void **state)
{
    http_response r = {.status = 200};
    http_response_set(&r, 404, "text/html");
    assert_int_equal(r.status, 404);
    assert_string_equal(r.content_type, "text/html");
    http_response_set(&r, 500, NULL);
    assert_string_equal(r.content_type, "text/html");
    char big[2000];
    memset(big, 'z', sizeof(big) - 1);
    big[sizeof(big) - 1] = 0;
    assert_int_equal(http_response_printf(&r, "%s|%d", big, 7), ST_OK);
    assert_int_equal(r.body.len, sizeof(big) - 1 + 2);
    assert_memory_equal(r.body.data + sizeof(big) - 1, "|7", 2);
    buf_free(&r.body);
    assert_string_equal(http_reason(405), "Method Not Allowed");
    assert_string_equal(http_reason(799), "Unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handler_answer_reaches_client),
        cmocka_unit_test(unknown_path_404_and_other_methods_405),
        cmocka_unit_test(large_request_refused_without_handler),
        cmocka_unit_test(concurrent_clients_each_get_their_answer),
        cmocka_unit_test(lifecycle_port_in_use_late_handler_idle_stop),
        cmocka_unit_test(response_helpers),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
