/*
 * test_bench_cluster.c - `strata bench` cluster mode end to end: a private region
 * server is started, PerformanceEvaluation's workloads run through the C client, and
 * every workload reports operations, no errors, and reads that found every row; and the
 * same against a whole local cluster (tests/support/cluster.h) through --dir, twice (the
 * second run replaces the table), with the table's regions spread over every server;
 * and with --split-policy, --max-filesize, --flush-size and --table-value: TestTable
 * carries them, a small table splits during the run (the watcher reports the regions and
 * the splits) at the key prefixes KeyPrefixRegionSplitPolicy allows, with no error and
 * every row read back, and a --table under DisabledRegionSplitPolicy keeps one region.
 * Needs STRATA_BIN (set by CTest); skipped without it (exit 77).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "client/admin_rpc.h"
#include "common/status.h"
#include "tests/support/cluster.h"
#include "tests/support/testutil.h"

static long json_long(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\":", key);
    const char *p = strstr(line, pat);
    return p ? atol(p + strlen(pat)) : -1;
}

static void cluster_bench_runs_every_workload(void **state)
{
    (void)state;
    const char *bin = getenv("STRATA_BIN");
    assert_non_null(bin);
    char cmd[1024];
    snprintf(cmd, sizeof(cmd),
             "%s bench --rows 3000 --threads 2 --connections 2 --value-size 200 --regions 3 "
             "--json sequentialWrite randomWrite sequentialRead randomRead scan",
             bin);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[2048];
    int workloads = 0;
    while (fgets(line, sizeof(line), p)) {
        if (strstr(line, "\"workload\":\"redis\""))
            continue;
        if (!strstr(line, "\"workload\":"))
            continue;
        workloads++;
        assert_int_equal(json_long(line, "connections"), 2); /* a client per thread */
        long ops = json_long(line, "ops");
        assert_true(ops >= 3000);
        assert_int_equal(json_long(line, "errors"), 0);
        if (strstr(line, "Read\"") || strstr(line, "\"scan\""))
            assert_int_equal(json_long(line, "found"), ops);
    }
    int status = pclose(p);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(workloads, 5);
}

/* Runs cmd, checks every workload line: ops >= rows, no errors, reads found every row. */
static void run_and_check(const char *cmd, long rows, int want_workloads)
{
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[2048];
    int workloads = 0;
    while (fgets(line, sizeof(line), p)) {
        if (strstr(line, "\"workload\":\"redis\"") || !strstr(line, "\"workload\":"))
            continue;
        workloads++;
        long ops = json_long(line, "ops");
        assert_true(ops >= rows);
        assert_int_equal(json_long(line, "errors"), 0);
        if (strstr(line, "Read\"") || strstr(line, "\"scan\""))
            assert_int_equal(json_long(line, "found"), ops);
    }
    int status = pclose(p);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(workloads, want_workloads);
}

static void bench_against_a_local_cluster(void **state)
{
    (void)state;
    const char *bin = getenv("STRATA_BIN");
    tc_options o = {.masters = 1, .regionservers = 3};
    tc_cluster *c = NULL;
    if (tc_start(&o, &c) != ST_OK)
        fail_msg("cluster start: %s", st_errmsg());
    char cmd[2048];
    snprintf(cmd, sizeof(cmd),
             "%s bench --dir %s --rows 2000 --threads 2 --value-size 100 --regions 6 --json "
             "sequentialWrite randomRead scan",
             bin, tc_dir(c));
    run_and_check(cmd, 2000, 3);
    run_and_check(cmd, 2000, 3); /* TestTable exists now: it is dropped and created again */
    admin_rpc *a = NULL;
    assert_int_equal(admin_rpc_open(tc_quorum(c), tc_parent(c), &a), ST_OK);
    Strata__Master__GetClusterStatusResponse *st = NULL;
    assert_int_equal(admin_rpc_cluster_status(a, &st), ST_OK);
    assert_int_equal(st->n_live_server, 3);
    for (size_t i = 0; i < st->n_live_server; i++)
        assert_int_equal(st->live_server[i]->region_count, 2);
    admin_rpc_free_msg(st);
    admin_rpc_close(a);
    assert_int_equal(tc_stop(c), ST_OK);
}

/* Runs cmd (JSON lines), checks every workload as run_and_check, and returns the last
 * workload's "regions" and the sum of its "splits" over every workload. */
static void run_split_bench(const char *cmd, long rows, int want_workloads, long *regions,
                            long *splits)
{
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[2048];
    int workloads = 0;
    *regions = -1;
    *splits = 0;
    while (fgets(line, sizeof(line), p)) {
        if (strstr(line, "\"workload\":\"redis\"") || !strstr(line, "\"workload\":"))
            continue;
        workloads++;
        long ops = json_long(line, "ops");
        assert_true(ops >= rows);
        assert_int_equal(json_long(line, "errors"), 0);
        if (strstr(line, "Read\"") || strstr(line, "\"scan\""))
            assert_int_equal(json_long(line, "found"), ops);
        assert_true(json_long(line, "max_ms") >= 0);
        assert_true(json_long(line, "split_ops") >= 0);
        *regions = json_long(line, "regions");
        *splits += json_long(line, "splits");
    }
    int status = pclose(p);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(workloads, want_workloads);
}

/* The value of TestTable's schema named key, or NULL. */
static const char *schema_value(const Strata__Admin__TableSchema *s, const char *key)
{
    for (size_t i = 0; i < s->n_value; i++)
        if (strcmp(s->value[i]->name, key) == 0)
            return s->value[i]->value;
    return NULL;
}

static void bench_sets_split_attributes_and_regions_split(void **state)
{
    (void)state;
    const char *bin = getenv("STRATA_BIN");
    tc_options o = {.masters = 1, .regionservers = 1};
    tc_cluster *c = NULL;
    if (tc_start(&o, &c) != ST_OK)
        fail_msg("cluster start: %s", st_errmsg());
    /* 4000 rows of 1000 bytes (4 MB) against a 64 KiB flush size and a 256 KiB
     * MAX_FILESIZE, one put per call (so the writes last about a second): the one region
     * splits several times, at 24-byte prefixes (every 100 rows of the 26-byte keys). */
    char cmd[2048];
    snprintf(cmd, sizeof(cmd),
             "%s bench --dir %s --rows 4000 --threads 2 --value-size 1000 --json "
             "--split-policy KeyPrefixRegionSplitPolicy --max-filesize 256k --flush-size 64k "
             "--table-value KeyPrefixRegionSplitPolicy.prefix_length=24 --autoflush "
             "sequentialWrite randomRead scan",
             bin, tc_dir(c));
    long regions = 0, splits = 0;
    run_split_bench(cmd, 4000, 3, &regions, &splits);
    assert_true(regions > 1);
    assert_true(splits >= 1);
    admin_rpc *a = NULL;
    assert_int_equal(admin_rpc_open(tc_quorum(c), tc_parent(c), &a), ST_OK);
    Strata__Master__DescribeTableResponse *d = NULL;
    assert_int_equal(admin_rpc_describe_table(a, "TestTable", &d), ST_OK);
    const Strata__Admin__TableSchema *s = d->table->schema;
    assert_true(s->has_max_filesize);
    assert_int_equal(s->max_filesize, 256 * 1024);
    assert_true(s->has_memstore_flushsize);
    assert_int_equal(s->memstore_flushsize, 64 * 1024);
    assert_non_null(schema_value(s, "SPLIT_POLICY"));
    assert_string_equal(schema_value(s, "SPLIT_POLICY"), "KeyPrefixRegionSplitPolicy");
    assert_non_null(schema_value(s, "KeyPrefixRegionSplitPolicy.prefix_length"));
    assert_string_equal(schema_value(s, "KeyPrefixRegionSplitPolicy.prefix_length"), "24");
    assert_true(d->table->regions > 1);
    admin_rpc_free_msg(d);
    Strata__Master__GetTableRegionsResponse *r = NULL;
    assert_int_equal(admin_rpc_table_regions(a, "TestTable", &r), ST_OK);
    for (size_t i = 0; i < r->n_location; i++) {
        const Strata__Admin__RegionInfo *ri = r->location[i]->region;
        if (ri->has_start_key && ri->start_key.len > 0)
            assert_int_equal(ri->start_key.len, 24);
    }
    admin_rpc_free_msg(r);

    /* The same load under DisabledRegionSplitPolicy, concurrent and one put per call:
     * nothing splits. */
    snprintf(cmd, sizeof(cmd),
             "%s bench --dir %s --table unsplit --rows 4000 --threads 2 --value-size 1000 "
             "--json --split-policy DisabledRegionSplitPolicy --max-filesize 256k "
             "--flush-size 64k --concurrent --autoflush sequentialWrite scan",
             bin, tc_dir(c));
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[2048];
    int workloads = 0;
    while (fgets(line, sizeof(line), p)) {
        if (!strstr(line, "\"workload\":"))
            continue;
        workloads++;
        assert_int_equal(json_long(line, "errors"), 0);
        assert_int_equal(json_long(line, "regions"), 1);
        assert_int_equal(json_long(line, "splits"), 0);
        assert_int_equal(json_long(line, "split_ops"), 0);
    }
    int status = pclose(p);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(workloads, 2);
    assert_int_equal(admin_rpc_describe_table(a, "unsplit", &d), ST_OK);
    assert_string_equal(schema_value(d->table->schema, "SPLIT_POLICY"),
                        "DisabledRegionSplitPolicy");
    assert_int_equal(d->table->regions, 1);
    admin_rpc_free_msg(d);
    admin_rpc_close(a);
    assert_int_equal(tc_stop(c), ST_OK);
}

static void cluster_bench_rejects_bad_arguments(void **state)
{
    (void)state;
    const char *bin = getenv("STRATA_BIN");
    const char *bad[] = {"bench --rows 0 randomRead", "bench noSuchWorkload",
                         "bench --threads 0 scan", "bench --regions 1000 scan",
                         "bench --server 127.0.0.1:1 --dir /tmp scan",
                         "bench --max-filesize 0 scan", "bench --flush-size lots scan",
                         "bench --max-filesize scan", "bench --table-value novalue scan",
                         "bench --threads 2 --connections 3 scan", "bench --connections 0 scan"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char cmd[512];
        snprintf(cmd, sizeof(cmd), "%s %s >/dev/null 2>&1", bin, bad[i]);
        int status = system(cmd);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 2);
    }
}

int main(void)
{
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_bench_cluster", "STRATA_BIN is not set (ctest sets it)");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cluster_bench_runs_every_workload),
        cmocka_unit_test(bench_against_a_local_cluster),
        cmocka_unit_test(bench_sets_split_attributes_and_regions_split),
        cmocka_unit_test(cluster_bench_rejects_bad_arguments),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
