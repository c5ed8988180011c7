/*
 * test_rest_input.c - the REST gateway against bad input and hard conditions (docs/rest.md,
 * "Bad input"), with a real cluster (`strata cluster start --rest 1`, the gateway started
 * with small limits) and further `strata rest` processes of the test's own:
 *
 *   - malformed JSON, XML (a DOCTYPE too) and protobuf bodies, wrong base64, unknown
 *     members, paths with missing or bad parts, bad table names, bad query values: 400,
 *     each body saying what was wrong, nothing written;
 *   - 405 with Allow, 406 for an Accept nothing satisfies, 415 for a Content-Type the
 *     resource cannot read, 413 for a body past rest.max.body.size and for a CellSet of
 *     more rows than rest.max.rows;
 *   - unknown families: 404 naming the family, nothing written;
 *   - scanners: idle ones expire (410 Gone), hundreds of idle ones stay bounded by
 *     rest.scanner.max (the oldest expire);
 *   - a read-only gateway answers 403 to every write and serves reads;
 *   - a gateway whose cluster cannot answer (ZooKeeper unreachable) answers 503;
 *   - a slow client (headers trickling in, a body never finished) is cut off after
 *     rest.timeout.s while the gateway keeps serving everyone else;
 *   - SIGTERM drains: the request in flight is answered, the gateway exits 0 and stops
 *     listening.
 *
 * Needs STRATA_BIN, curl and ZooKeeper; skipped without them (exit 77).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/base64.h"
#include "common/clock.h"
#include "common/http/json_value.h"
#include "common/status.h"
#include "tests/support/cluster.h"
#include "tests/support/proc.h"
#include "tests/support/rest_curl.h"
#include "tests/support/testutil.h"

static tc_cluster *cluster;
static int port;
static char *tmp;

/* ---- helpers ---- */

static void expect(int p, const char *method, const char *path, const char *ctype,
                   const char *accept, const void *body, size_t len, int want, const char *says)
{
    char h1[300], h2[300];
    const char *hs[3] = {NULL, NULL, NULL};
    int n = 0;
    if (ctype) {
        snprintf(h1, sizeof(h1), "Content-Type: %s", ctype);
        hs[n++] = h1;
    }
    if (accept) {
        snprintf(h2, sizeof(h2), "Accept: %s", accept);
        hs[n++] = h2;
    }
    rc_resp r;
    rc_request(p, method, path, hs, body, len, &r);
    if (r.status != want || (says && !strstr(r.body, says)))
        fail_msg("%s %s: status %d (want %d), body '%.*s' (want it to say '%s'); curl: %s", method,
                 path, r.status, want, (int)(r.body_len > 500 ? 500 : r.body_len), r.body,
                 says ? says : "", r.curl_out);
    rc_free(&r);
}

static void expect_text(const char *method, const char *path, const char *ctype,
                        const char *body, int want, const char *says)
{
    expect(port, method, path, ctype, NULL, body, body ? strlen(body) : 0, want, says);
}

/* A `strata rest` of the test's own with extra flags; waits for its ready file. */
static pid_t start_gateway(const char *name, const char *quorum, const char *const *flags,
                           int *gport)
{
    char ready[600], log[600], rf[700], zk[300];
    snprintf(ready, sizeof(ready), "%s/%s.ready", tmp, name);
    snprintf(log, sizeof(log), "%s/%s.log", tmp, name);
    snprintf(rf, sizeof(rf), "--rest.ready.file=%s", ready);
    snprintf(zk, sizeof(zk), "--zk.quorum=%s", quorum);
    const char *argv[32];
    int n = 0;
    argv[n++] = getenv("STRATA_BIN");
    argv[n++] = "rest";
    argv[n++] = zk;
    argv[n++] = "--rest.host=127.0.0.1";
    argv[n++] = "--rest.port=0";
    argv[n++] = rf;
    for (const char *const *f = flags; f && *f; f++)
        argv[n++] = *f;
    argv[n] = NULL;
    proc_spec spec = {.argv = argv, .log = log, .stdin_null = true, .kill_at_exit = true};
    pid_t pid = 0;
    assert_int_equal(proc_spawn(&spec, &pid), ST_OK);
    for (int i = 0; i < 200; i++) {
        FILE *f = fopen(ready, "r");
        if (f) {
            int ok = fscanf(f, "%d", gport);
            fclose(f);
            if (ok == 1 && *gport > 0)
                return pid;
        }
        if (proc_wait(pid, 50, NULL) == ST_OK)
            fail_msg("gateway %s exited at start (log %s)", name, log);
    }
    fail_msg("gateway %s did not write %s", name, ready);
    return 0;
}

/* A raw TCP connection to the gateway. */
static int connect_to(int p)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)p)};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    return fd;
}

static void create_table(const char *name)
{
    char path[200], body[400];
    snprintf(path, sizeof(path), "/%s/schema", name);
    snprintf(body, sizeof(body), "{\"ColumnSchema\":[{\"name\":\"cf\"}]}");
    expect_text("PUT", path, "application/json", body, 201, NULL);
}

/* ---- setup ---- */

static int setup(void **state)
{
    static const char *const flags[] = {"--rest.max.body.size=64k", "--rest.max.rows=50",
                                        "--rest.scanner.idle.timeout.ms=1500",
                                        "--rest.scanner.max=100", "--rest.timeout.s=2", NULL};
    tc_options o = {.masters = 1, .regionservers = 2, .rest = 1, .flags = flags};
    if (tc_start(&o, &cluster) != ST_OK) {
        fprintf(stderr, "test_rest_input: cluster start failed: %s\n", st_errmsg());
        return -1;
    }
    port = tc_http_port(cluster, "rest-1");
    tmp = tu_tempdir("rest-input");
    create_table("t");
    return port > 0 ? 0 : -1;
}

static int teardown(void **state)
{
    proc_kill_all();
    tu_rmdir(tmp);
    return tc_stop(cluster) == ST_OK ? 0 : -1;
}

/* ---- malformed documents ---- */

static void test_malformed_bodies(void **state)
{
    expect_text("PUT", "/t/r", "application/json", "{\"Row\":[", 400, "malformed CellSet: JSON");
    expect_text("PUT", "/t/r", "application/json", "{\"Row\":[{\"key\":\"cjE=\",\"Cell\":[{\"column\":"
                                                   "\"Y2Y6YQ==\",\"$\":\"not base64!\"}]}]}",
                400, "not valid base64");
    expect_text("PUT", "/t/r", "application/json",
                "{\"Row\":[{\"key\":\"cjE=\",\"Cel\":[]}]}", 400, "unknown member \"Cel\"");
    expect_text("PUT", "/t/r", "application/json", "[1,2]", 400, "JSON object");
    expect_text("PUT", "/t/r", "text/xml", "<CellSet><Row key=\"cjE=\"></CellSet>", 400,
                "expected </Row>");
    expect_text("PUT", "/t/r", "text/xml",
                "<!DOCTYPE lol [<!ENTITY a \"aaaa\">]><CellSet>&a;</CellSet>", 400, "DOCTYPE");
    expect_text("PUT", "/t/r", "text/xml", "<Cells/>", 400, "not <CellSet>");
    expect(port, "PUT", "/t/r", "application/x-protobuf", NULL, "\x0a\xff\xff\xff", 4, 400,
           "not a protobuf CellSet");
    /* a cell without a column, or a column without a qualifier */
    expect_text("PUT", "/t/r", "application/json",
                "{\"Row\":[{\"key\":\"cjE=\",\"Cell\":[{\"$\":\"eA==\"}]}]}", 400, "no column");
    expect_text("PUT", "/t/r", "application/json",
                "{\"Row\":[{\"key\":\"cjE=\",\"Cell\":[{\"column\":\"Y2Y=\",\"$\":\"eA==\"}]}]}",
                400, "not family:qualifier");
    expect_text("PUT", "/t/schema", "application/json", "{\"ColumnSchema\":[{\"VERSIONS\":1}]}",
                400, "has no name");
    expect_text("PUT", "/t/scanner", "text/xml", "<Scanner batch=\"-1\"/>", 400, "batch");
    expect_text("POST", "/namespaces/nsx", "application/json", "{\"props\":{}}", 400,
                "unknown NamespaceProperties member");
    /* nothing was written by any of them */
    expect(port, "GET", "/t/r1", NULL, NULL, NULL, 0, 404, NULL);
    expect(port, "GET", "/namespaces/nsx", NULL, "application/json", NULL, 0, 404, NULL);
}

static void test_bad_paths_and_queries(void **state)
{
    expect_text("GET", "/t/r1/cf:a/notanumber", NULL, NULL, 400, "timestamp 'notanumber'");
    expect_text("GET", "/t/r1/cf:a/20,10", NULL, NULL, 400, "empty");
    expect_text("GET", "/t/r1/cf:a/1/extra", NULL, NULL, 400, "a row path is");
    expect_text("GET", "/t/r1/cf:a,,cf:b", NULL, NULL, 400, "empty column");
    expect_text("GET", "/t/r%zz", NULL, NULL, 400, "percent-escape");
    expect_text("GET", "/t/a*,b", NULL, NULL, 400, NULL);
    expect_text("GET", "/bad%20name/r1", NULL, NULL, 400, "bad table name");
    expect_text("GET", "/t/r1?v=0", NULL, NULL, 400, "versions");
    expect_text("GET", "/t/*?maxversions=abc", NULL, NULL, 400, "maxversions");
    expect_text("GET", "/t/*?reversed=maybe", NULL, NULL, 400, "reversed");
    expect_text("GET", "/t/multiget", NULL, NULL, 400, "at least one row");
    expect_text("GET", "/t", NULL, NULL, 404, "name one under the table");
    expect_text("GET", "/version/bogus", NULL, NULL, 404, NULL);
    expect_text("PUT", "/t/r1?check=sideways", "application/json", "{\"Row\":[]}", 400,
                "invalid check value");
}

static void test_status_codes(void **state)
{
    rc_resp r;
    const char *hs[] = {NULL};
    rc_request(port, "POST", "/version", hs, "x", 1, &r);
    assert_int_equal(r.status, 405);
    char allow[64];
    assert_true(rc_header(&r, "Allow", allow, sizeof(allow)));
    assert_string_equal(allow, "GET, HEAD");
    rc_free(&r);
    expect_text("PATCH", "/t/r1", "application/json", "{}", 405, "not allowed");
    expect(port, "GET", "/version", NULL, "image/png", NULL, 0, 406, "image/png");
    expect(port, "GET", "/t/r1", NULL, "application/json;q=0, text/xml;q=0, */*;q=0", NULL, 0, 406,
           NULL);
    expect_text("PUT", "/t/r1/cf:a", "text/csv", "a,b", 415, "text/csv");
    expect_text("PUT", "/t/schema", "application/octet-stream", "x", 415, NULL);
    /* 413: a body past 64k, a CellSet of more than 50 rows */
    size_t big = 100 * 1024;
    char *body = malloc(big);
    memset(body, 'x', big);
    /* evhttp refuses it before any handler runs (with its own small page, which the
     * client may not read whole: the connection closes while it still sends) */
    expect(port, "PUT", "/t/r1/cf:a", "application/octet-stream", NULL, body, big, 413, NULL);
    free(body);
    buf_t cs = {0};
    buf_append(&cs, "{\"Row\":[", 8);
    for (int i = 0; i < 51; i++) {
        char row[200];
        int n = snprintf(row, sizeof(row), "%s{\"key\":\"cjE=\",\"Cell\":[{\"column\":\"Y2Y6YQ==\","
                                           "\"$\":\"eA==\"}]}",
                         i ? "," : "");
        buf_append(&cs, row, (size_t)n);
    }
    buf_append(&cs, "]}", 2);
    expect(port, "PUT", "/t/r1", "application/json", NULL, cs.data, cs.len, 413, "rest.max.rows");
    buf_free(&cs);
    /* an unknown family: 404 naming it, nothing written */
    expect_text("PUT", "/t/r9", "application/json",
                "{\"Row\":[{\"key\":\"cjk=\",\"Cell\":[{\"column\":\"bm9wZTpx\",\"$\":\"eA==\"}]}]}",
                404, "nope");
    expect(port, "GET", "/t/r9", NULL, NULL, NULL, 0, 404, NULL);
    /* a put into a missing table */
    expect_text("PUT", "/nosuch/r/cf:a", "application/octet-stream", "x", 404, "nosuch");
}

/* ---- scanners: expiry, bounds, conflicts ---- */

static char *open_scanner(void)
{
    rc_resp r;
    const char *hs[] = {"Content-Type: application/json", NULL};
    rc_request(port, "PUT", "/t/scanner", hs, "{}", 2, &r);
    assert_int_equal(r.status, 201);
    char loc[300];
    assert_true(rc_header(&r, "Location", loc, sizeof(loc)));
    rc_free(&r);
    return strdup(strchr(strstr(loc, "://") + 3, '/'));
}

static void test_scanner_expiry_and_bounds(void **state)
{
    expect(port, "PUT", "/t/e1/cf:a", "application/octet-stream", NULL, "x", 1, 200, NULL);
    char *s = open_scanner();
    sleep(3); /* idle past 1.5 s: the reaper expires it */
    expect(port, "GET", s, NULL, NULL, NULL, 0, 410, "expired");
    expect(port, "DELETE", s, NULL, NULL, NULL, 0, 410, NULL);
    free(s);
    /* 300 idle scanners against a bound of 100: the oldest expire, the newest work */
    char *ids[300];
    for (int i = 0; i < 300; i++)
        ids[i] = open_scanner();
    expect(port, "GET", ids[0], NULL, "application/json", NULL, 0, 410, NULL);
    expect(port, "GET", ids[299], NULL, "application/json", NULL, 0, 200, NULL);
    rc_resp r;
    rc_get(port, "/metrics", NULL, &r);
    const char *p = strstr(r.body, "\nrest_scanners_open ");
    assert_non_null(p);
    assert_true(atoi(p + 20) <= 100);
    rc_free(&r);
    for (int i = 0; i < 300; i++)
        free(ids[i]);
}

/* ---- gateways of the test's own ---- */

static void test_read_only(void **state)
{
    static const char *const flags[] = {"--rest.readonly=true", NULL};
    int gp = 0;
    pid_t pid = start_gateway("ro", tc_quorum(cluster), flags, &gp);
    expect(gp, "PUT", "/t/ro/cf:a", "application/octet-stream", NULL, "x", 1, 403, "read-only");
    expect(gp, "DELETE", "/t/e1", NULL, NULL, NULL, 0, 403, "read-only");
    expect(gp, "PUT", "/t/scanner", "application/json", NULL, "{}", 2, 403, NULL);
    expect(gp, "PUT", "/t/schema", "application/json", NULL, "{}", 2, 403, NULL);
    expect(gp, "POST", "/namespaces/x", NULL, NULL, NULL, 0, 403, NULL);
    expect(gp, "GET", "/t/e1/cf:a", NULL, "application/octet-stream", NULL, 0, 200, NULL);
    expect(port, "GET", "/t/ro", NULL, NULL, NULL, 0, 404, NULL);
    int st = 0;
    assert_int_equal(proc_signal(pid, SIGTERM), ST_OK);
    assert_int_equal(proc_wait(pid, 35000, &st), ST_OK);
    assert_int_equal(proc_exit_code(st), 0);
}

static void test_cluster_unreachable(void **state)
{
    /* a ZooKeeper port nothing listens on */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    socklen_t al = sizeof(a);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    getsockname(fd, (struct sockaddr *)&a, &al);
    close(fd);
    char q[64];
    snprintf(q, sizeof(q), "127.0.0.1:%d", ntohs(a.sin_port));
    static const char *const flags[] = {"--rest.client.operation.timeout.ms=1500", NULL};
    int gp = 0;
    pid_t pid = start_gateway("nozk", q, flags, &gp);
    expect(gp, "GET", "/status/cluster", NULL, NULL, NULL, 0, 503, "Service Unavailable");
    expect(gp, "GET", "/t/r1", NULL, NULL, NULL, 0, 503, NULL);
    expect(gp, "GET", "/healthz", NULL, NULL, NULL, 0, 200, "ok"); /* the gateway itself is up */
    proc_kill(pid, NULL);
}

static void test_slow_clients(void **state)
{
    /* a client that sends half a request line and stops; one that promises a body it
     * never sends: both are cut off after rest.timeout.s (2 s) */
    int slow1 = connect_to(port);
    assert_true(write(slow1, "GET /vers", 9) == 9);
    int slow2 = connect_to(port);
    const char *partial = "PUT /t/s/cf:a HTTP/1.1\r\nHost: x\r\nContent-Type: "
                          "application/octet-stream\r\nContent-Length: 1000\r\n\r\nabc";
    assert_true(write(slow2, partial, strlen(partial)) == (ssize_t)strlen(partial));
    /* meanwhile everyone else is served */
    for (int i = 0; i < 5; i++)
        expect(port, "GET", "/version", NULL, NULL, NULL, 0, 200, NULL);
    int64_t t0 = clock_now_ms();
    char buf[512];
    ssize_t n1 = read(slow1, buf, sizeof(buf)); /* returns once the gateway closes */
    ssize_t n2 = read(slow2, buf, sizeof(buf));
    int64_t waited = clock_now_ms() - t0;
    assert_true(n1 <= 0 || n2 >= 0);
    assert_true(waited < 10000);
    close(slow1);
    close(slow2);
    expect(port, "GET", "/t/s", NULL, NULL, NULL, 0, 404, NULL); /* nothing was written */
    /* many idle keep-alive connections do not stop the gateway either */
    int idle[200];
    for (int i = 0; i < 200; i++)
        idle[i] = connect_to(port);
    expect(port, "GET", "/version", NULL, NULL, NULL, 0, 200, NULL);
    for (int i = 0; i < 200; i++)
        close(idle[i]);
}

static void test_drain(void **state)
{
    int gp = 0;
    pid_t pid = start_gateway("drain", tc_quorum(cluster), NULL, &gp);
    expect(gp, "GET", "/healthz", NULL, NULL, NULL, 0, 200, "ok");
    /* a request taken before SIGTERM is answered; then nothing listens */
    int fd = connect_to(gp);
    const char *get = "GET /t/e1/cf:a HTTP/1.1\r\nHost: x\r\nAccept: application/octet-stream\r\n\r\n";
    assert_true(write(fd, get, strlen(get)) == (ssize_t)strlen(get));
    clock_sleep_ms(200); /* read by the gateway before the signal */
    assert_int_equal(proc_signal(pid, SIGTERM), ST_OK);
    char buf[2048];
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    assert_true(n > 0);
    buf[n] = '\0';
    assert_non_null(strstr(buf, "200 OK"));
    close(fd);
    int st = 0;
    assert_int_equal(proc_wait(pid, 35000, &st), ST_OK);
    assert_int_equal(proc_exit_code(st), 0);
    rc_resp r;
    rc_get(gp, "/healthz", NULL, &r);
    assert_int_equal(r.status, 0); /* nothing listens any more */
    rc_free(&r);
}

int main(void)
{
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_rest_input", "STRATA_BIN is not set");
    if (!tu_have_zookeeper())
        return tu_skip_all("test_rest_input", "ZooKeeper (the zookeeper package and java) is "
                                              "missing");
    if (!rc_have_curl())
        return tu_skip_all("test_rest_input", "curl is not installed");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_malformed_bodies),
        cmocka_unit_test(test_bad_paths_and_queries),
        cmocka_unit_test(test_status_codes),
        cmocka_unit_test(test_scanner_expiry_and_bounds),
        cmocka_unit_test(test_read_only),
        cmocka_unit_test(test_cluster_unreachable),
        cmocka_unit_test(test_slow_clients),
        cmocka_unit_test(test_drain),
    };
    return tu_run_group_tests(tests, setup, teardown);
}
