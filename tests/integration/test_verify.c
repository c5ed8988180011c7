/*
 * test_verify.c - `strata verify` end to end against a 3-server local cluster
 * (tests/support/cluster.h): linkedlist generate (2 loaders, lists of 5 x 200 nodes)
 * closes every list and verify finds REFERENCED equal to the nodes written, with exit
 * status 0; a second generate bounded by --duration still leaves only closed lists (the
 * sum of both runs' expected counts); a walk from the first row goes round its cycle;
 * then one node is deleted through the client and verify exits 1 with UNDEFINED=1 naming
 * it and the node that points to it, UNREFERENCED=1 (the node it pointed to), and the
 * walk from that node reports the break; acid runs 5 s with no torn row and no counter
 * decrease, exit status 0; bad command lines exit 2 with one line.
 * Needs STRATA_BIN (set by CTest) and ZooKeeper (java and /usr/share/java/zookeeper*.jar);
 * skipped without them (exit 77).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/status.h"
#include "strata/strata.h"
#include "tests/support/cluster.h"
#include "tests/support/testutil.h"
#include "tools/verify.h"

static tc_cluster *cluster;
static char *tmp;
static uint64_t expected; /* REFERENCED after the generate cases */

/* Runs `$STRATA_BIN verify ARGS --dir <cluster>`; stdout into *out (malloc'ed), stderr
 * into <tmp>/stderr (printed on an exit status of 3 or more); returns the exit status. */
static int run_verify(const char *args, char **out)
{
    char cmd[2048];
    snprintf(cmd, sizeof(cmd), "%s verify %s --dir %s 2>%s/stderr", getenv("STRATA_BIN"), args,
             tc_dir(cluster), tmp);
    int status = tu_capture(cmd, out);
    assert_true(status >= 0);
    if (status >= 3) {
        char path[512];
        buf_t e = {0};
        snprintf(path, sizeof(path), "%s/stderr", tmp);
        if (fio_read_all(path, &e) == ST_OK && e.len)
            fprintf(stderr, "%.*s", (int)e.len, (char *)e.data);
        buf_free(&e);
    }
    return status;
}

static char *read_stderr(void)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/stderr", tmp);
    buf_t b = {0};
    if (fio_read_all(path, &b) != ST_OK)
        fail_msg("cannot read %s: %s", path, st_errmsg());
    assert_int_equal(buf_append_u8(&b, 0), ST_OK);
    return (char *)b.data;
}

/* The number after "key": in a JSON document; -1 if none. */
static double json_num(const char *doc, const char *key)
{
    char pat[96];
    snprintf(pat, sizeof(pat), "\"%s\":", key);
    const char *p = strstr(doc, pat);
    return p ? atof(p + strlen(pat)) : -1;
}

/* The number after "NAME=" at the start of a line of verify's text report; -1 if none. */
static long long counter(const char *out, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = out; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, name, n) == 0 && p[n] == '=')
            return atoll(p + n + 1);
    return -1;
}

static void hex(const char *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", (unsigned char)b[i]);
    out[2 * n] = 0;
}

static void generate_then_verify(void **state)
{
    (void)state;
    char *out = NULL;
    assert_int_equal(
        run_verify("linkedlist generate --width 200 --wrap 5 --loaders 2 --json", &out), 0);
    assert_true(out[0] == '{');
    assert_true(json_num(out, "nodes") == 2000);
    assert_true(json_num(out, "lists") == 2);
    assert_true(json_num(out, "expected") == 2000);
    assert_true(json_num(out, "retries") == 0);
    assert_non_null(strstr(out, "\"errors\":{}"));
    assert_non_null(strstr(out, "\"failed\":false"));
    assert_non_null(strstr(out, "\"longest_stall_ms\":"));
    free(out);
    expected = 2000;
    assert_int_equal(run_verify("linkedlist verify --expected 2000", &out), 0);
    assert_int_equal(counter(out, "REFERENCED"), 2000);
    assert_int_equal(counter(out, "UNREFERENCED"), 0);
    assert_int_equal(counter(out, "UNDEFINED"), 0);
    assert_non_null(strstr(out, "verify: OK"));
    free(out);
    /* a wrong expectation fails the check */
    assert_int_equal(run_verify("linkedlist verify --expected 1999", &out), 1);
    assert_non_null(strstr(out, "expected REFERENCED=1999, found 2000"));
    free(out);
}

static void duration_stops_between_lists(void **state)
{
    (void)state;
    char *out = NULL;
    assert_int_equal(
        run_verify("linkedlist generate --width 100 --wrap 3 --loaders 2 --duration 1 --json",
                   &out),
        0);
    double lists = json_num(out, "lists"), nodes = json_num(out, "nodes");
    assert_true(lists >= 2);
    assert_true(nodes == lists * 300);
    assert_true(json_num(out, "expected") == nodes);
    free(out);
    expected += (uint64_t)nodes;
    char args[128];
    snprintf(args, sizeof(args), "linkedlist verify --expected %llu --json",
             (unsigned long long)expected);
    assert_int_equal(run_verify(args, &out), 0);
    assert_true(json_num(out, "UNDEFINED") == 0);
    assert_true(json_num(out, "UNREFERENCED") == 0);
    assert_non_null(strstr(out, "\"passed\":true"));
    free(out);
    /* the walk from the first row goes round its cycle */
    assert_int_equal(run_verify("linkedlist walk", &out), 0);
    const char *end = strstr(out, "cycle closed at ");
    assert_non_null(end);
    long long len = atoll(strstr(end, "length ") + 7);
    assert_true(len == 1000 || len == 300);
    free(out);
}

static void deleted_node_is_undefined(void **state)
{
    (void)state;
    char *err = NULL;
    strata_options_t *o = strata_options_create();
    strata_options_set_zk_quorum(o, tc_quorum(cluster));
    strata_client_t *c = strata_client_open(o, &err);
    strata_options_destroy(o);
    assert_null(err);
    strata_table_t *t = strata_table_open(c, VLL_DEFAULT_TABLE);
    /* D: the table's first row; P: the node D points to */
    strata_scan_t *s = strata_scan_create();
    strata_scan_set_limit(s, 1);
    strata_scanner_t *sc = strata_table_scan(t, s, &err);
    strata_result_t *r = strata_scanner_next(sc, &err);
    assert_null(err);
    assert_non_null(r);
    size_t dl = 0, pl = 0;
    const char *d = strata_result_row(r, &dl);
    const char *p = strata_result_value(r, VLL_FAMILY, 4, VLL_COL_PREV, 4, &pl);
    assert_int_equal(dl, VLL_KEY_LEN);
    assert_int_equal(pl, VLL_KEY_LEN);
    char dhex[40], phex[40];
    hex(d, dl, dhex);
    hex(p, pl, phex);
    strata_mutation_t *del = strata_delete_create(d, dl);
    strata_table_delete(t, del, &err);
    assert_null(err);
    strata_mutation_destroy(del);
    strata_result_destroy(r);
    strata_scanner_close(sc);
    strata_scan_destroy(s);
    strata_table_close(t);
    strata_client_close(c);

    char *out = NULL, line[128];
    assert_int_equal(run_verify("linkedlist verify", &out), 1);
    assert_int_equal(counter(out, "UNDEFINED"), 1);
    assert_int_equal(counter(out, "UNREFERENCED"), 1);
    assert_int_equal(counter(out, "REFERENCED"), (long long)expected - 2);
    snprintf(line, sizeof(line), "UNDEFINED %s referenced by ", dhex);
    assert_non_null(strstr(out, line));
    snprintf(line, sizeof(line), "UNREFERENCED %s\n", phex);
    assert_non_null(strstr(out, line));
    assert_non_null(strstr(out, "verify: FAILED"));
    free(out);
    /* --json says the same */
    assert_int_equal(run_verify("linkedlist verify --json", &out), 1);
    assert_true(json_num(out, "UNDEFINED") == 1);
    assert_non_null(strstr(out, "\"passed\":false"));
    free(out);
    /* walking from P goes round the list to the node that points to D */
    char args[128];
    snprintf(args, sizeof(args), "linkedlist walk --start %s", phex);
    assert_int_equal(run_verify(args, &out), 1);
    snprintf(line, sizeof(line), "references %s which is UNDEFINED", dhex);
    assert_non_null(strstr(out, line));
    free(out);
    snprintf(args, sizeof(args), "linkedlist walk --start %s --max 3", phex);
    assert_int_equal(run_verify(args, &out), 0);
    assert_non_null(strstr(out, "stopped after 3 steps"));
    free(out);
    /* the deleted node itself is no start */
    snprintf(args, sizeof(args), "linkedlist walk --start %s", dhex);
    assert_int_equal(run_verify(args, &out), 3);
    free(out);
    char *e = read_stderr();
    assert_non_null(strstr(e, "is not defined"));
    free(e);
}

static void acid_five_seconds(void **state)
{
    (void)state;
    char *out = NULL;
    assert_int_equal(run_verify("acid --duration 5 --json", &out), 0);
    assert_true(json_num(out, "torn_gets") == 0);
    assert_true(json_num(out, "torn_scans") == 0);
    assert_true(json_num(out, "counter_decreases") == 0);
    assert_true(json_num(out, "writes") > 100);
    assert_true(json_num(out, "gets") > 100);
    assert_true(json_num(out, "scans") > 10);
    assert_true(json_num(out, "increments") > 10);
    assert_true(json_num(out, "counter_reads") > 0);
    assert_non_null(strstr(out, "\"violations\":[]"));
    assert_non_null(strstr(out, "\"passed\":true"));
    assert_non_null(strstr(out, "\"name\":\"writer 0\""));
    free(out);
}

static void bad_arguments_are_refused(void **state)
{
    (void)state;
    const char *bad[] = {"linkedlist generate --width 0",
                         "linkedlist generate --duration -1",
                         "linkedlist verify --start 00",
                         "linkedlist walk --start xyz",
                         "linkedlist walk --expected 1",
                         "linkedlist sideways",
                         "acid --rows 0",
                         "acid --bogus 1",
                         "acid --zk.quorum 127.0.0.1:1"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *out = NULL;
        assert_int_equal(run_verify(bad[i], &out), 2);
        assert_string_equal(out, "");
        free(out);
        char *e = read_stderr();
        size_t lines = 0;
        for (const char *q = e; *q; q++)
            lines += *q == '\n';
        assert_int_equal(lines, 1);
        assert_true(strncmp(e, "strata verify", 13) == 0);
        free(e);
    }
}


static int start(void **state)
{
    (void)state;
    tc_options o = {.masters = 1, .regionservers = 3};
    tmp = tu_tempdir("verify");
    if (tc_start(&o, &cluster) != ST_OK) {
        fprintf(stderr, "cluster start: %s\n", st_errmsg());
        return -1;
    }
    return 0;
}

static int stop(void **state)
{
    (void)state;
    int rc = tc_stop(cluster);
    cluster = NULL;
    tu_rmdir(tmp);
    return rc == ST_OK ? 0 : -1;
}

int main(void)
{
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_verify", "STRATA_BIN is not set (ctest sets it)");
    if (!tu_have_zookeeper())
        return tu_skip_all("test_verify", "ZooKeeper is not installed (java, /usr/share/java)");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(generate_then_verify),      cmocka_unit_test(duration_stops_between_lists),
        cmocka_unit_test(deleted_node_is_undefined), cmocka_unit_test(acid_five_seconds),
        cmocka_unit_test(bad_arguments_are_refused),
    };
    return tu_run_group_tests(tests, start, stop);
}
