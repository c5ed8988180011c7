/*
 * test_status_pages.c - the endpoints every server shares (common/http/status_pages.c),
 * over real sockets with a server of the test's own:
 *
 *   - /healthz is 200 "ok"; /readyz is 200 "ok" or 503 with the server's reason;
 *   - /metrics holds the server's families and `ready`; /status.json opens with server,
 *     ready and ready_reason, then the server's members; / and /status frame the page
 *     with the title, the readiness line and links;
 *   - a snapshot that fails answers 500 naming the failure, and every snapshot taken is
 *     cleared, failed ones too (one per page).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/http/http_server.h"
#include "common/http/status_pages.h"
#include "common/status.h"
#include "tests/support/http_client.h"
#include "tests/support/testutil.h"

typedef struct fake {
    bool ready;
    bool fail_snap;
    int taken, freed;
} fake;

static bool f_ready(void *ctx, char *why, size_t cap)
{
    fake *f = ctx;
    snprintf(why, cap, "%s", f->ready ? "ok: fake serving" : "fake is warming up");
    return f->ready;
}

static int f_snap_fill(void *ctx, void *snap)
{
    fake *f = ctx;
    f->taken++;
    if (f->fail_snap)
        return st_error(ST_NOMEM, "fake snapshot refused");
    *(int *)snap = 42;
    return ST_OK;
}

static void f_snap_clear(void *ctx, void *snap)
{
    ((fake *)ctx)->freed++;
}

static const char *f_name(void *ctx)
{
    return "fake,1,2";
}

static void f_title(void *ctx, const status_pages_view *v, char *out, size_t cap)
{
    snprintf(out, cap, "Fake server %d", *(const int *)v->snap);
}

static int f_metrics(void *ctx, const status_pages_view *v, buf_t *b)
{
    return status_pages_metric(b, "fake_answer", "gauge", "The answer", *(const int *)v->snap);
}

static void f_json(void *ctx, const status_pages_view *v, json_writer *w)
{
    json_key(w, "answer");
    json_i64(w, *(const int *)v->snap);
}

static void f_page(void *ctx, const status_pages_view *v, html_doc *d)
{
    html_rawf(d, "<p>answer %d</p>\n", *(const int *)v->snap);
}

static const status_pages_ops ops = {
    .ready = f_ready,   .snap_size = sizeof(int), .snap_fill = f_snap_fill,
    .snap_clear = f_snap_clear, .name = f_name,   .title = f_title,
    .metrics = f_metrics, .json = f_json,         .page = f_page,
};

typedef struct fixture {
    fake f;
    http_server *srv;
    status_pages sp;
    int port;
} fixture;

static int setup(void **state)
{
    fixture *x = calloc(1, sizeof(*x));
    assert_non_null(x);
    assert_int_equal(http_server_new(NULL, &x->srv), ST_OK);
    assert_int_equal(status_pages_register(x->srv, &x->sp, &ops, &x->f), ST_OK);
    assert_int_equal(http_server_start(x->srv, "127.0.0.1", 0), ST_OK);
    x->port = http_server_port(x->srv);
    *state = x;
    return 0;
}

static int teardown(void **state)
{
    fixture *x = *state;
    http_server_free(x->srv);
    assert_int_equal(x->f.taken, x->f.freed);
    free(x);
    return 0;
}

static void get(fixture *x, const char *path, int status, thc_response *r)
{
    assert_int_equal(thc_get(x->port, path, r), 0);
    if (r->status != status)
        fail_msg("%s: status %d, want %d: %s", path, r->status, status, r->body);
}

static void test_health_and_readiness(void **state)
{
    fixture *x = *state;
    thc_response r;
    get(x, "/healthz", 200, &r);
    assert_string_equal(r.body, "ok\n");
    thc_response_free(&r);
    get(x, "/readyz", 503, &r);
    assert_string_equal(r.body, "fake is warming up\n");
    thc_response_free(&r);
    x->f.ready = true;
    get(x, "/readyz", 200, &r);
    assert_string_equal(r.body, "ok\n");
    thc_response_free(&r);
}

static void test_metrics_json_and_page(void **state)
{
    fixture *x = *state;
    thc_response r;
    get(x, "/metrics", 200, &r);
    assert_non_null(strstr(r.body, "# TYPE fake_answer gauge\nfake_answer 42\n"));
    assert_non_null(strstr(r.body, "# TYPE ready gauge\nready 0\n"));
    thc_response_free(&r);
    get(x, "/status.json", 200, &r);
    assert_string_equal(r.content_type, "application/json");
    assert_string_equal(r.body, "{\"server\":\"fake,1,2\",\"ready\":false,"
                                "\"ready_reason\":\"fake is warming up\",\"answer\":42}\n");
    thc_response_free(&r);
    static const char *const pages[] = {"/", "/status"};
    for (size_t i = 0; i < 2; i++) {
        get(x, pages[i], 200, &r);
        assert_non_null(strstr(r.body, "<h1>Fake server 42</h1>"));
        assert_non_null(strstr(r.body, "<p class=\"bad\">fake is warming up</p>"));
        assert_non_null(strstr(r.body, "href=\"/metrics\""));
        assert_non_null(strstr(r.body, "<p>answer 42</p>"));
        thc_response_free(&r);
    }
    assert_int_equal(x->f.taken, 4);
}

static void test_failed_snapshot_is_500(void **state)
{
    fixture *x = *state;
    x->f.fail_snap = true;
    static const char *const paths[] = {"/metrics", "/status.json", "/"};
    for (size_t i = 0; i < 3; i++) {
        thc_response r;
        get(x, paths[i], 500, &r);
        assert_non_null(strstr(r.body, "fake snapshot refused"));
        thc_response_free(&r);
    }
    thc_response r;
    get(x, "/healthz", 200, &r); /* no snapshot needed */
    thc_response_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_health_and_readiness, setup, teardown),
        cmocka_unit_test_setup_teardown(test_metrics_json_and_page, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_snapshot_is_500, setup, teardown),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
