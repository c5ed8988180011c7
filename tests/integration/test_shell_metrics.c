/*
 * test_shell_metrics.c - operation attributes and scan metrics through `strata shell`
 * (docs/shell.md "scan", docs/client.md "Operation attributes", "Scan metrics") against a
 * local cluster of 1 master and 2 region servers:
 *
 *   - scan ALL_METRICS => true over a table pre-split into 3 regions with a filter that
 *     drops 2 of 5 rows: the rows, "N row(s)", an empty line, "METRIC  VALUE" and the 11
 *     metrics in alphabetical order, as HBase 2.6's shell prints them; ROWS_SCANNED 5,
 *     ROWS_FILTERED 2, REGIONS_SCANNED 3, RPC_CALLS at least 3, no retries, no
 *     not-serving answers, nothing remote on loopback, BYTES_IN_RESULTS as HBase estimates
 *     the cells; the same reversed, and with a start row in the second region;
 *   - METRICS => [...]: only the names listed (an unknown name skipped, as in HBase), an
 *     empty list or a String as Ruby's include? reads it; ALL_METRICS => false alone
 *     prints none; metrics refused on strata:meta and by count;
 *   - ATTRIBUTES on put (with and without a timestamp), get, scan, count, delete,
 *     deleteall (of a row and by ROWPREFIXFILTER), incr (with and without an amount) and
 *     append: accepted, the data written as without them, and each operation's
 *     attributes in the region servers' debug log (the servers run at log.level debug);
 *   - attributes past their bounds (a 65537-byte value, a 257-byte name, 65 names), a
 *     nil value and a non-Hash refused with the attribute named, and nothing written.
 *
 * Needs STRATA_BIN (set by CTest); skipped without it (exit 77).
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
#include <unistd.h>

#include "common/buf.h"
#include "common/status.h"
#include "tests/support/cluster.h"
#include "tests/support/shell_script.h"
#include "tests/support/testutil.h"

static tc_cluster *cluster;
static char tmpdir[256];

/* The value printed for metric name in out (after the "METRIC  VALUE" header), or -1. */
static long long metric(const char *out, const char *name)
{
    const char *p = strstr(out, "\nMETRIC  VALUE\n");
    char key[64];
    if (!p)
        return -1;
    snprintf(key, sizeof(key), "\n %s ", name);
    const char *m = strstr(p, key);
    return m ? strtoll(m + strlen(key), NULL, 10) : -1;
}

/* Runs script, which must succeed; its normalised output (the caller frees it). */
static char *run_ok(const char *script)
{
    ssh_result r = ssh_run_dir(script);
    if (r.status != 0)
        fail_msg("script failed (%d): %s\nstdout: %s", r.status, r.err, r.out);
    char *out = r.out;
    r.out = NULL;
    ssh_result_free(&r);
    return out;
}

static const char *const ALL_NAMES[] = {"BYTES_IN_REMOTE_RESULTS",
                                        "BYTES_IN_RESULTS",
                                        "MILLIS_BETWEEN_NEXTS",
                                        "NOT_SERVING_REGION_EXCEPTION",
                                        "REGIONS_SCANNED",
                                        "REMOTE_RPC_CALLS",
                                        "REMOTE_RPC_RETRIES",
                                        "ROWS_FILTERED",
                                        "ROWS_SCANNED",
                                        "RPC_CALLS",
                                        "RPC_RETRIES"};

/* out ends with the metrics block holding every name, in order, then "Took". */
static void expect_all_names(const char *out)
{
    const char *p = strstr(out, " row(s)\n\nMETRIC  VALUE\n");
    if (!p)
        fail_msg("no metrics block after the rows: %s", out);
    p = strchr(p + 1, '\n') + 1; /* the empty line */
    p = strchr(p + 1, '\n') + 1; /* the header */
    for (size_t i = 0; i < sizeof(ALL_NAMES) / sizeof(ALL_NAMES[0]); i++) {
        char want[64];
        snprintf(want, sizeof(want), " %s ", ALL_NAMES[i]);
        if (strncmp(p, want, strlen(want)) != 0)
            fail_msg("metric %zu is not %s: %s", i, ALL_NAMES[i], p);
        p = strchr(p, '\n') + 1;
    }
    if (strncmp(p, "Took X seconds\n", 15) != 0)
        fail_msg("the metrics are not followed by Took: %s", p);
}

/* ---- ALL_METRICS ---- */

static const char *const SETUP = "create 'sm', 'f', SPLITS => ['c', 'e']\n"
                                 "put 'sm', 'a', 'f:q', 'keep', 10\n"
                                 "put 'sm', 'b', 'f:q', 'drop', 10\n"
                                 "put 'sm', 'c', 'f:q', 'keep', 10\n"
                                 "put 'sm', 'd', 'f:q', 'drop', 10\n"
                                 "put 'sm', 'e', 'f:q', 'keep', 10\n";

static void test_all_metrics(void **state)
{
    (void)state;
    char *out = run_ok(SETUP);
    free(out);
    out = run_ok("scan 'sm', {ALL_METRICS => true, FILTER => \"ValueFilter(=, 'binary:keep')\"}\n");
    const char *rows = "ROW  COLUMN+CELL\n"
                       " a column=f:q, timestamp=10, value=keep\n"
                       " c column=f:q, timestamp=10, value=keep\n"
                       " e column=f:q, timestamp=10, value=keep\n"
                       "3 row(s)\n"
                       "\n"
                       "METRIC  VALUE\n";
    if (strncmp(out, rows, strlen(rows)) != 0)
        fail_msg("output: %s", out);
    expect_all_names(out);
    assert_int_equal(metric(out, "ROWS_SCANNED"), 5);
    assert_int_equal(metric(out, "ROWS_FILTERED"), 2);
    assert_int_equal(metric(out, "REGIONS_SCANNED"), 3);
    assert_true(metric(out, "RPC_CALLS") >= 3);
    assert_int_equal(metric(out, "RPC_RETRIES"), 0);
    assert_int_equal(metric(out, "NOT_SERVING_REGION_EXCEPTION"), 0);
    /* the cluster is on loopback: nothing is remote */
    assert_int_equal(metric(out, "REMOTE_RPC_CALLS"), 0);
    assert_int_equal(metric(out, "REMOTE_RPC_RETRIES"), 0);
    assert_int_equal(metric(out, "BYTES_IN_REMOTE_RESULTS"), 0);
    /* 3 cells, each 24 + row 1 + family 1 + qualifier 1 + value 4 (HBase's estimate) */
    assert_int_equal(metric(out, "BYTES_IN_RESULTS"), 3 * 31);
    assert_true(metric(out, "MILLIS_BETWEEN_NEXTS") >= 0);
    free(out);

    out = run_ok("scan 'sm', {ALL_METRICS => true, REVERSED => true, "
                 "FILTER => \"ValueFilter(=, 'binary:drop')\"}\n");
    if (!strstr(out, " d column=f:q, timestamp=10, value=drop\n"
                     " b column=f:q, timestamp=10, value=drop\n"
                     "2 row(s)\n"))
        fail_msg("reversed: %s", out);
    expect_all_names(out);
    assert_int_equal(metric(out, "ROWS_SCANNED"), 5);
    assert_int_equal(metric(out, "ROWS_FILTERED"), 3);
    assert_int_equal(metric(out, "REGIONS_SCANNED"), 3);
    free(out);

    /* from the second region on: two regions, three rows; a row key filter counts too */
    out = run_ok("scan 'sm', {ALL_METRICS => true, STARTROW => 'c', "
                 "FILTER => \"RowFilter(!=, 'binary:d')\"}\n");
    expect_all_names(out);
    assert_int_equal(metric(out, "REGIONS_SCANNED"), 2);
    assert_int_equal(metric(out, "ROWS_SCANNED"), 3);
    assert_int_equal(metric(out, "ROWS_FILTERED"), 1);
    free(out);
}

/* ---- METRICS ---- */

static void test_metrics_subset(void **state)
{
    (void)state;
    ssh_expect("scan 'sm', {METRICS => ['RPC_RETRIES', 'ROWS_FILTERED', 'NO_SUCH_METRIC'], "
               "FILTER => \"ValueFilter(=, 'binary:keep')\", STARTROW => 'b'}\n"
               "scan 'sm', {METRICS => 'ROWS_SCANNED', STOPROW => 'b'}\n"
               "scan 'sm', {ALL_METRICS => true, METRICS => ['REGIONS_SCANNED'], LIMIT => 1}\n"
               "scan 'sm', {ALL_METRICS => false, LIMIT => 1}\n",
               "ROW  COLUMN+CELL\n"
               " c column=f:q, timestamp=10, value=keep\n"
               " e column=f:q, timestamp=10, value=keep\n"
               "2 row(s)\n"
               "\n"
               "METRIC  VALUE\n"
               " ROWS_FILTERED 2\n"
               " RPC_RETRIES 0\n"
               "Took X seconds\n"
               "ROW  COLUMN+CELL\n"
               " a column=f:q, timestamp=10, value=keep\n"
               "1 row(s)\n"
               "\n"
               "METRIC  VALUE\n"
               " ROWS_SCANNED 1\n"
               "Took X seconds\n"
               "ROW  COLUMN+CELL\n"
               " a column=f:q, timestamp=10, value=keep\n"
               "1 row(s)\n"
               "\n"
               "METRIC  VALUE\n"
               " REGIONS_SCANNED 1\n"
               "Took X seconds\n"
               "ROW  COLUMN+CELL\n"
               " a column=f:q, timestamp=10, value=keep\n"
               "1 row(s)\n"
               "Took X seconds\n");
    char *out = run_ok("scan 'sm', {METRICS => []}\n");
    expect_all_names(out);
    assert_int_equal(metric(out, "ROWS_SCANNED"), 5);
    free(out);
    /* ATTRIBUTES come after the switch, as in HBase: the metrics attribute decides */
    ssh_expect("scan 'sm', {ALL_METRICS => true, LIMIT => 1, "
               "ATTRIBUTES => {'scan.attributes.metrics.enable' => \"\\x00\"}}\n",
               "ROW  COLUMN+CELL\n"
               " a column=f:q, timestamp=10, value=keep\n"
               "1 row(s)\n"
               "Took X seconds\n");
    out = run_ok("scan 'sm', {ATTRIBUTES => {'scan.attributes.metrics.enable' => \"\\xff\"}}\n");
    expect_all_names(out);
    assert_int_equal(metric(out, "ROWS_SCANNED"), 5);
    free(out);
    ssh_expect_fail("scan 'sm', {METRICS => 5}\n", "METRICS must be an Array of metric names");
    ssh_expect_fail("scan 'strata:meta', {ALL_METRICS => true}\n",
                    "strata:meta is read through the master");
    ssh_expect_fail("count 'sm', {ALL_METRICS => true}\n", "Unknown argument ALL_METRICS");
}

/* ---- ATTRIBUTES ---- */

static void test_attributes_on_every_command(void **state)
{
    (void)state;
    ssh_expect("create 'at', 'f'\n"
               "put 'at', 'r1', 'f:a', 'v1', {ATTRIBUTES => {'mykey' => 'myvalue'}}\n"
               "put 'at', 'r1', 'f:b', 'v2', 7, {ATTRIBUTES => {'k' => \"\\x00\\xff\", 5 => 6}}\n"
               "put 'at', 'r2', 'f:a', 'x', 7, {ATTRIBUTES => {}}\n"
               "put 'at', 'p1', 'f:a', 'x', 7\n"
               "put 'at', 'p2', 'f:a', 'x', 7\n"
               "incr 'at', 'r3', 'f:n', 5, {ATTRIBUTES => {'mykey' => 'myvalue'}}\n"
               "incr 'at', 'r3', 'f:n', {ATTRIBUTES => {'mykey' => 'myvalue'}}\n"
               "append 'at', 'r3', 'f:s', 'ab', ATTRIBUTES => {'mykey' => 'myvalue'}\n"
               "append 'at', 'r3', 'f:s', 'cd', {ATTRIBUTES => {'mykey' => 'myvalue'}}\n"
               "delete 'at', 'r1', 'f:b', 7, {ATTRIBUTES => {'mykey' => 'myvalue'}}\n"
               "deleteall 'at', 'r2', {ATTRIBUTES => {'mykey' => 'myvalue'}}\n"
               "deleteall 'at', {ROWPREFIXFILTER => 'p'}, 'f', {ATTRIBUTES => {'k' => 'v'}}\n"
               "get 'at', 'r1', {COLUMN => 'f:a', ATTRIBUTES => {'mykey' => 'myvalue'}}\n"
               "get 'at', 'r1', {ATTRIBUTES => {'mykey' => 'myvalue'}}\n"
               "count 'at', {ATTRIBUTES => {'mykey' => 'myvalue'}}\n"
               "scan 'at', {COLUMNS => ['f:a', 'f:s'], ATTRIBUTES => {'mykey' => 'myvalue'}}\n",
               "Created table at\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "COUNTER VALUE = 5\n"
               "Took X seconds\n"
               "COUNTER VALUE = 6\n"
               "Took X seconds\n"
               "CURRENT VALUE = ab\n"
               "Took X seconds\n"
               "CURRENT VALUE = abcd\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "COLUMN  CELL\n"
               " f:a timestamp=T, value=v1\n"
               "1 row(s)\n"
               "Took X seconds\n"
               "COLUMN  CELL\n"
               " f:a timestamp=T, value=v1\n"
               "1 row(s)\n"
               "Took X seconds\n"
               "2 row(s)\n"
               "Took X seconds\n"
               "ROW  COLUMN+CELL\n"
               " r1 column=f:a, timestamp=T, value=v1\n"
               " r3 column=f:s, timestamp=T, value=abcd\n"
               "2 row(s)\n"
               "Took X seconds\n");
}

/* Whether some line of the cluster's logs holds both a and b. */
static bool logged(const char *a, const char *b)
{
    char dir[600];
    snprintf(dir, sizeof(dir), "%s/logs", tc_dir(cluster));
    DIR *d = opendir(dir);
    bool found = false;
    for (struct dirent *e; d && !found && (e = readdir(d));) {
        char path[1200];
        if (!strstr(e->d_name, ".log"))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        char *text = ssh_slurp(path);
        for (char *line = strtok(text, "\n"); line && !found; line = strtok(NULL, "\n"))
            found = strstr(line, a) && strstr(line, b);
        free(text);
    }
    if (d)
        closedir(d);
    return found;
}

static void test_region_servers_receive_attributes(void **state)
{
    (void)state;
    static const char *const ops[] = {"Put on region ",    "Get on region ",
                                      "Scan on region ",   "Increment on region ",
                                      "Append on region ", "Delete on region "};
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (!logged(ops[i], "operation attribute(s): 'mykey'=7 bytes 'myvalue'"))
            fail_msg("no region server logged the attributes of a %s", ops[i]);
    assert_true(logged("Put on region ", "'k'=2 bytes '\\x00\\xFF', '5'=1 bytes '6'"));
}

/* A put whose ATTRIBUTES hash has n names, the first with a value of vlen bytes. */
static char *many_attrs_script(const char *cmd_head, int n, size_t vlen, size_t nlen)
{
    buf_t b = {0};
    buf_append(&b, cmd_head, strlen(cmd_head));
    buf_append(&b, "{ATTRIBUTES => {'", 17);
    for (size_t i = 0; i < nlen; i++)
        buf_append_u8(&b, 'n');
    buf_append(&b, "' => '", 6);
    for (size_t i = 0; i < vlen; i++)
        buf_append_u8(&b, 'v');
    buf_append_u8(&b, '\'');
    for (int i = 1; i < n; i++) {
        char kv[32];
        int w = snprintf(kv, sizeof(kv), ", 'k%d' => 'v'", i);
        buf_append(&b, kv, (size_t)w);
    }
    buf_append(&b, "}}\n", 4); /* with the NUL */
    return (char *)b.data;
}

static void test_oversized_attributes_write_nothing(void **state)
{
    (void)state;
    ssh_expect("create 'big', 'f'\n", "Created table big\nTook X seconds\n");
    char *s = many_attrs_script("put 'big', 'r', 'f:q', 'v', ", 1, 65537, 3);
    ssh_expect_fail(s, "operation attribute 'nnn': its value has 65537 bytes, more than 65536");
    free(s);
    s = many_attrs_script("incr 'big', 'r', 'f:c', 1, ", 1, 1, 257);
    ssh_expect_fail(s, "its name has 257 bytes, more than 256");
    free(s);
    s = many_attrs_script("append 'big', 'r', 'f:s', 'x', ", 65, 1, 1);
    ssh_expect_fail(s, "operation attribute 'k64': an operation has at most 64 attributes");
    free(s);
    s = many_attrs_script("delete 'big', 'r', 'f:q', ", 65, 1, 1);
    ssh_expect_fail(s, "an operation has at most 64 attributes");
    free(s);
    /* the bounds themselves are fine: 64 names, a 65536-byte value, a 256-byte name */
    s = many_attrs_script("put 'big', 'ok', 'f:q', 'v', 3, ", 64, 65536, 256);
    ssh_expect(s, "Took X seconds\n");
    free(s);
    ssh_expect_fail("put 'big', 'r', 'f:q', 'v', {ATTRIBUTES => {'k' => nil}}\n",
                    "ATTRIBUTES value of 'k' is nil");
    ssh_expect_fail("put 'big', 'r', 'f:q', 'v', {ATTRIBUTES => ['k', 'v']}\n",
                    "Attributes must be a Hash type");
    ssh_expect_fail("get 'big', 'r', {ATTRIBUTES => {'' => 'v'}}\n",
                    "operation attribute '': a name is 1..256 bytes");
    ssh_expect_fail("deleteall 'big', {ROWPREFIXFILTER => 'o'}, {ATTRIBUTES => {'' => 'v'}}\n",
                    "operation attribute ''");
    /* nothing of the refused writes is there; the prefix delete did not run */
    ssh_expect("scan 'big'\n", "ROW  COLUMN+CELL\n"
                               " ok column=f:q, timestamp=3, value=v\n"
                               "1 row(s)\n"
                               "Took X seconds\n");
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_shell_metrics.XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    static const char *const flags[] = {"--log.level=debug", NULL};
    tc_options o = {.masters = 1, .regionservers = 2, .flags = flags};
    int rc = tc_start(&o, &cluster);
    if (rc != ST_OK) {
        fprintf(stderr, "cluster start: %s\n", st_errmsg());
        return -1;
    }
    ssh_init(tmpdir, tc_dir(cluster));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tc_stop(cluster);
    cluster = NULL;
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return 0;
}

int main(void)
{
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_shell_metrics", "STRATA_BIN is not set (ctest sets it)");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_metrics),
        cmocka_unit_test(test_metrics_subset),
        cmocka_unit_test(test_attributes_on_every_command),
        cmocka_unit_test(test_region_servers_receive_attributes),
        cmocka_unit_test(test_oversized_attributes_write_nothing),
    };
    return tu_run_group_tests(tests, setup, teardown);
}
