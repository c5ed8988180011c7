/*
 * test_rest_load.c - the REST gateway under concurrent load while regions move
 * (docs/rest.md, "Conformance"): a cluster of one master and three region servers with two
 * gateways used as a load balancer would (the writers' requests alternate between them: the
 * gateways share no state); a table of four regions; eight writer threads PUT CellSets of
 * ten rows each (binary-safe keys and values) and two reader threads run stateless scans
 * and stateful scanners (each reader on one gateway: a scanner lives in the gateway that
 * made it), while the main thread moves the table's regions between servers again and
 * again. Every request must succeed (0 errors: the gateway's client
 * retries moved regions within its operation timeout) and afterwards every row written
 * must come back through a scanner with its value.
 *
 * Needs STRATA_BIN and ZooKeeper; skipped without them (exit 77).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"
#include "common/clock.h"
#include "common/http/json_value.h"
#include "common/status.h"
#include "strata/admin.h"
#include "tests/support/cluster.h"
#include "tests/support/http_client.h"
#include "tests/support/testutil.h"

#define WRITERS 8
#define READERS 2
#define ROWS_PER_WRITER 400   /* at least this many rows each ... */
#define MAX_ROWS_PER_WRITER 20000 /* ... and on until MIN_MOVES moves happened, at most this */
#define ROWS_PER_PUT 10
#define MIN_MOVES 5

static tc_cluster *cluster;
static int ports[2]; /* rest-1, rest-2 */
static int port;     /* rest-1: the final read-back */
static atomic_int errors;
static atomic_int writers_done;
static atomic_long reads_done;
static atomic_int moves_done;
static int written[WRITERS]; /* rows each writer wrote (its thread's, read after join) */

static void record_error(const char *what, const thc_response *r)
{
    atomic_fetch_add(&errors, 1);
    fprintf(stderr, "test_rest_load: %s: status %d: %.*s\n", what, r ? r->status : -1,
            r && r->body ? (int)(r->body_len > 300 ? 300 : r->body_len) : 0,
            r && r->body ? r->body : "");
}

static void b64(buf_t *out, const void *p, size_t n)
{
    base64_encode(out, p, n);
}

/* The key and value of writer w's row i: a byte outside ASCII in each. */
static void row_of(int w, int i, char *key, size_t kcap, char *val, size_t vcap)
{
    snprintf(key, kcap, "%c-w%d-%05d", "abcd"[(w + i) % 4], w, i);
    snprintf(val, vcap, "v%d.%d\xe9", w, i);
}

static void *writer(void *arg)
{
    int w = (int)(intptr_t)arg;
    int i = 0;
    for (; i < MAX_ROWS_PER_WRITER && (i < ROWS_PER_WRITER || atomic_load(&moves_done) < MIN_MOVES);
         i += ROWS_PER_PUT) {
        buf_t body = {0};
        buf_append(&body, "{\"Row\":[", 8);
        for (int k = 0; k < ROWS_PER_PUT; k++) {
            char key[64], val[64];
            row_of(w, i + k, key, sizeof(key), val, sizeof(val));
            buf_append(&body, k ? ",{\"key\":\"" : "{\"key\":\"", k ? 9 : 8);
            b64(&body, key, strlen(key));
            buf_append(&body, "\",\"Cell\":[{\"column\":\"Y2Y6cQ==\",\"$\":\"", 36);
            b64(&body, val, strlen(val));
            buf_append(&body, "\"}]}", 4);
        }
        buf_append(&body, "]}", 2);
        thc_response r;
        int gw = ports[(i / ROWS_PER_PUT) % 2];
        int rc = thc_request(gw, "PUT", "/load/batch", "Content-Type: application/json\r\n",
                             (const char *)body.data, body.len, 90000, &r);
        if (rc != 0 || r.status != 200)
            record_error("PUT of a CellSet", rc == 0 ? &r : NULL);
        if (rc == 0)
            thc_response_free(&r);
        buf_free(&body);
    }
    written[w] = i;
    atomic_fetch_add(&writers_done, 1);
    return NULL;
}

/* One stateless scan of a quarter of the table; and one scanner paged to its end. */
static void *reader(void *arg)
{
    int port = ports[(intptr_t)arg % 2];
    int n = 0;
    while (atomic_load(&writers_done) < WRITERS || n < 2) {
        thc_response r;
        char path[64];
        snprintf(path, sizeof(path), "/load/%c*?limit=500", "abcd"[n % 4]);
        int rc = thc_request(port, "GET", path, "Accept: application/json\r\n", NULL, 0, 90000, &r);
        json_value *doc = NULL;
        if (rc != 0 || r.status != 200 || json_value_parse(r.body, r.body_len, &doc) != ST_OK)
            record_error("a stateless scan", rc == 0 ? &r : NULL);
        json_value_free(doc);
        if (rc == 0)
            thc_response_free(&r);
        rc = thc_request(port, "PUT", "/load/scanner", "Content-Type: application/json\r\n",
                         "{\"batch\":200}", 13, 90000, &r);
        char loc[300] = "";
        if (rc != 0 || r.status != 201 || thc_header(&r, "Location", loc, sizeof(loc)) != 0)
            record_error("a scanner's creation", rc == 0 ? &r : NULL);
        if (rc == 0)
            thc_response_free(&r);
        const char *sp = loc[0] ? strchr(strstr(loc, "://") + 3, '/') : NULL;
        for (int page = 0; sp && page < 100; page++) {
            rc = thc_request(port, "GET", sp, "Accept: application/json\r\n", NULL, 0, 90000, &r);
            int st = rc == 0 ? r.status : -1;
            if (st != 200 && st != 204)
                record_error("a scanner's page", rc == 0 ? &r : NULL);
            if (rc == 0)
                thc_response_free(&r);
            if (st != 200)
                break;
        }
        if (sp && thc_request(port, "DELETE", sp, NULL, NULL, 0, 90000, &r) == 0)
            thc_response_free(&r);
        atomic_fetch_add(&reads_done, 1);
        n++;
    }
    return NULL;
}

static int setup(void **state)
{
    tc_options o = {.masters = 1, .regionservers = 3, .rest = 2};
    if (tc_start(&o, &cluster) != ST_OK) {
        fprintf(stderr, "test_rest_load: cluster start failed: %s\n", st_errmsg());
        return -1;
    }
    ports[0] = port = tc_http_port(cluster, "rest-1");
    ports[1] = tc_http_port(cluster, "rest-2");
    return ports[0] > 0 && ports[1] > 0 ? 0 : -1;
}

static int teardown(void **state)
{
    return tc_stop(cluster) == ST_OK ? 0 : -1;
}

/* Moves one region of the table to another server: 1 if it moved. */
static int move_one(strata_admin_t *a, unsigned seed)
{
    char *err = NULL;
    strata_region_list_t *l = strata_admin_table_regions(a, "load", &err);
    if (!l) {
        fprintf(stderr, "test_rest_load: regions: %s\n", err);
        strata_free(err);
        return 0;
    }
    size_t n = strata_region_list_count(l);
    const strata_region_t *r = strata_region_list_get(l, seed % n);
    char *to = strata_admin_move(a, strata_region_encoded_name(r), NULL, &err);
    int moved = to != NULL;
    if (!to) {
        fprintf(stderr, "test_rest_load: move of %s: %s\n", strata_region_encoded_name(r), err);
        strata_free(err);
    }
    strata_free(to);
    strata_region_list_destroy(l);
    return moved;
}

static void test_load_while_regions_move(void **state)
{
    char *err = NULL;
    strata_admin_t *a = strata_admin_open(tc_quorum(cluster), tc_parent(cluster), &err);
    assert_non_null(a);
    strata_table_descriptor_t *td = strata_table_descriptor_create("load");
    strata_table_descriptor_add_family(td, "cf");
    const char *splits[] = {"b", "c", "d"};
    const size_t lens[] = {1, 1, 1};
    strata_admin_create_table(a, td, splits, lens, 3, &err);
    assert_null(err);
    strata_table_descriptor_destroy(td);

    pthread_t w[WRITERS], r[READERS];
    for (int i = 0; i < WRITERS; i++)
        pthread_create(&w[i], NULL, writer, (void *)(intptr_t)i);
    for (int i = 0; i < READERS; i++)
        pthread_create(&r[i], NULL, reader, (void *)(intptr_t)i);
    unsigned seed = tu_seed("test_rest_load");
    int moves = 0;
    while (atomic_load(&writers_done) < WRITERS) {
        moves += move_one(a, seed++);
        atomic_store(&moves_done, moves);
        clock_sleep_ms(200);
    }
    for (int i = 0; i < WRITERS; i++)
        pthread_join(w[i], NULL);
    for (int i = 0; i < READERS; i++)
        pthread_join(r[i], NULL);
    fprintf(stderr, "test_rest_load: %d region moves during the load, %ld reader rounds\n", moves,
            atomic_load(&reads_done));
    assert_true(moves >= MIN_MOVES);
    assert_int_equal(atomic_load(&errors), 0);

    /* every row back, with its value, through one scanner paged to the end */
    thc_response resp;
    assert_int_equal(thc_request(port, "PUT", "/load/scanner", "Content-Type: application/json\r\n",
                                 "{\"batch\":1000}", 14, 60000, &resp),
                     0);
    assert_int_equal(resp.status, 201);
    char loc[300];
    assert_int_equal(thc_header(&resp, "Location", loc, sizeof(loc)), 0);
    thc_response_free(&resp);
    const char *sp = strchr(strstr(loc, "://") + 3, '/');
    size_t rows = 0;
    size_t want = 0;
    for (int i = 0; i < WRITERS; i++)
        want += (size_t)written[i];
    bool *seen = calloc(WRITERS * MAX_ROWS_PER_WRITER, sizeof(*seen));
    for (;;) {
        assert_int_equal(thc_request(port, "GET", sp, "Accept: application/json\r\n", NULL, 0, 60000,
                                     &resp),
                         0);
        if (resp.status == 204) {
            thc_response_free(&resp);
            break;
        }
        assert_int_equal(resp.status, 200);
        json_value *doc = NULL;
        assert_int_equal(json_value_parse(resp.body, resp.body_len, &doc), ST_OK);
        const json_value *rw = json_value_member(doc, "Row");
        for (size_t i = 0; i < rw->n; i++) {
            const json_value *k = json_value_member(rw->items[i], "key");
            const json_value *v = json_value_member(json_value_member(rw->items[i], "Cell")->items[0], "$");
            buf_t key = {0}, val = {0};
            assert_int_equal(base64_decode(&key, k->str, k->len), ST_OK);
            assert_int_equal(base64_decode(&val, v->str, v->len), ST_OK);
            int wi = -1, ri = -1;
            buf_append_u8(&key, 0);
            assert_int_equal(sscanf((const char *)key.data + 2, "w%d-%d", &wi, &ri), 2);
            char ek[64], ev[64];
            row_of(wi, ri, ek, sizeof(ek), ev, sizeof(ev));
            assert_string_equal((const char *)key.data, ek);
            assert_int_equal(val.len, strlen(ev));
            assert_memory_equal(val.data, ev, val.len);
            assert_true(wi >= 0 && wi < WRITERS && ri >= 0 && ri < written[wi]);
            assert_false(seen[wi * MAX_ROWS_PER_WRITER + ri]);
            seen[wi * MAX_ROWS_PER_WRITER + ri] = true;
            rows++;
            buf_free(&key);
            buf_free(&val);
        }
        json_value_free(doc);
        thc_response_free(&resp);
    }
    fprintf(stderr, "test_rest_load: %zu rows written through the gateway, %zu read back\n", want,
            rows);
    assert_int_equal(rows, want);
    free(seen);
    strata_admin_close(a);
}

int main(void)
{
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_rest_load", "STRATA_BIN is not set");
    if (!tu_have_zookeeper())
        return tu_skip_all("test_rest_load", "ZooKeeper (the zookeeper package and java) is "
                                             "missing");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_while_regions_move),
    };
    return tu_run_group_tests(tests, setup, teardown);
}
