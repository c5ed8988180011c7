/*
 * test_bench_cluster.c - `strata bench` cluster mode end to end: a private region
 * server is started, PerformanceEvaluation's workloads run through the C client, and
 * every workload reports operations, no errors, and reads that found every row.
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
             "%s bench --rows 3000 --threads 2 --value-size 200 --regions 3 --json "
             "sequentialWrite randomWrite sequentialRead randomRead scan",
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

static void cluster_bench_rejects_bad_arguments(void **state)
{
    (void)state;
    const char *bin = getenv("STRATA_BIN");
    const char *bad[] = {"bench --rows 0 randomRead", "bench noSuchWorkload",
                         "bench --threads 0 scan", "bench --regions 1000 scan"};
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
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cluster_bench_runs_every_workload),
        cmocka_unit_test(cluster_bench_rejects_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
