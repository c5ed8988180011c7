/*
 * test_failover.c - `strata bench failover` end to end (docs/performance.md, "Failover
 * drill"): one local cluster of 2 masters and 3 region servers (session timeout 6 s,
 * tests/support/cluster.h), and the drill run against it for every fault kind with small
 * counts: kill -9 of a region server (twice, and once with batches of 100), a pause past
 * the session timeout, a pause of 3.5 s against a client RPC timeout of 1 s (longer than
 * three RPC timeouts), kill -9 of the active master, moves, a move followed by kill -9 of
 * its destination, splits and merges.
 *
 * Each run must exit 0, with every acknowledged row read back, no read missing a row and
 * no non-retryable client error; its figures (stall, recovery) are printed, never
 * asserted: the client's failover is being made faster, and a 2-core machine's timing is
 * not a test. The cluster is started by the group setup and stopped by the group
 * teardown, which cmocka runs also when a case fails (and tests/support/cluster.c stops
 * it if the process dies). Needs STRATA_BIN (CTest); skipped without it (exit 77).
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

#include "common/status.h"
#include "tests/support/cluster.h"
#include "tests/support/testutil.h"

#define SESSION_MS 6000
#define MAX_FIGURES 16

static tc_cluster *cluster;
static char figures[MAX_FIGURES][512];
static int nfigures;

static long json_long(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\":", key);
    const char *p = strstr(line, pat);
    return p ? atol(p + strlen(pat)) : -1;
}

static double json_double(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof(pat), "\"%s\":", key);
    const char *p = strstr(line, pat);
    return p ? atof(p + strlen(pat)) : -1;
}

/* Runs the drill with args, prints its lines, checks its correctness, keeps its figures. */
static void drill(const char *label, const char *args)
{
    const char *bin = getenv("STRATA_BIN");
    char cmd[2048], err_path[1024];
    snprintf(err_path, sizeof(err_path), "%s/failover-%d.err", tc_dir(cluster), nfigures);
    snprintf(cmd, sizeof(cmd),
             "%s bench failover --dir %s --json --interval-ms 1000 --writers 2 --readers 2 %s "
             "2>%s",
             bin, tc_dir(cluster), args, err_path);
    printf("# %s: strata bench failover %s\n", label, args);
    fflush(stdout);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[4096], summary[4096] = "";
    int faults = 0;
    while (fgets(line, sizeof(line), p)) {
        printf("  %s", line);
        if (strstr(line, "\"fault\":"))
            faults++;
        if (strstr(line, "\"summary\":"))
            snprintf(summary, sizeof(summary), "%s", line);
    }
    int status = pclose(p);
    fflush(stdout);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !summary[0]) {
        char tail[1200];
        snprintf(tail, sizeof(tail), "grep -v ' INFO \\| WARN ' %s | tail -20 >&2", err_path);
        if (system(tail) != 0)
            fprintf(stderr, "(no error output)\n");
        fail_msg("%s: strata bench failover exited with %d", label,
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    }
    assert_true(faults > 0);
    assert_int_equal(json_long(summary, "faults"), faults);
    assert_int_equal(json_long(summary, "failed_faults"), 0);
    assert_int_equal(json_long(summary, "missing"), 0);
    assert_int_equal(json_long(summary, "misses"), 0);
    assert_int_equal(json_long(summary, "non_retryable"), 0);
    assert_true(json_long(summary, "acked") > 0);
    assert_int_equal(json_long(summary, "read_back"), json_long(summary, "acked"));
    assert_non_null(strstr(summary, "\"ok\":true"));
    if (nfigures < MAX_FIGURES)
        snprintf(figures[nfigures++], sizeof(figures[0]),
                 "%-34s faults %ld  stall median %8.1f ms max %8.1f ms  recovery median %8.1f "
                 "ms max %8.1f ms  rows %ld  retryable %ld",
                 label, json_long(summary, "faults"), json_double(summary, "stall_median_ms"),
                 json_double(summary, "stall_max_ms"), json_double(summary, "recovery_median_ms"),
                 json_double(summary, "recovery_max_ms"), json_long(summary, "acked"),
                 json_long(summary, "retryable"));
}

static void kill_regionserver(void **state)
{
    (void)state;
    drill("kill", "--fault kill --faults 2");
}

static void kill_regionserver_batch_100(void **state)
{
    (void)state;
    drill("kill, batch 100", "--fault kill --faults 1 --batch 100");
}

static void pause_past_session_timeout(void **state)
{
    (void)state;
    drill("pause (session + 2 s)", "--fault pause --faults 1");
}

static void pause_past_three_rpc_timeouts(void **state)
{
    (void)state;
    drill("pause 3.5 s, rpc timeout 1 s", "--fault pause --faults 1 --pause-ms 3500 "
                                          "--rpc-timeout-ms 1000");
}

static void kill_active_master(void **state)
{
    (void)state;
    drill("master", "--fault master --faults 1");
}

static void move_region(void **state)
{
    (void)state;
    drill("move", "--fault move --faults 2");
}

static void kill_after_move(void **state)
{
    (void)state;
    drill("kill-after-move (destination)", "--fault kill-after-move --faults 1");
}

static void split_region(void **state)
{
    (void)state;
    drill("split", "--fault split --faults 2");
}

static void merge_regions(void **state)
{
    (void)state;
    drill("merge", "--fault merge --faults 2");
}

static void bad_arguments_are_refused(void **state)
{
    (void)state;
    const char *bin = getenv("STRATA_BIN");
    const char *bad[] = {"--fault kill", "--dir /nonexistent", "--dir /tmp --fault nosuch",
                         "--dir /tmp --fault kill --faults 0", "--dir /tmp --fault kill --batch x"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char cmd[512];
        snprintf(cmd, sizeof(cmd), "%s bench failover %s >/dev/null 2>&1", bin, bad[i]);
        int status = system(cmd);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 2);
    }
}

static int start_cluster(void **state)
{
    (void)state;
    tc_options o = {.masters = 2, .regionservers = 3, .session_timeout_ms = SESSION_MS};
    if (tc_start(&o, &cluster) != ST_OK) {
        fprintf(stderr, "cluster start: %s\n", st_errmsg());
        return -1;
    }
    return 0;
}

static int stop_cluster(void **state)
{
    (void)state;
    printf("# failover figures (session timeout %d ms; not asserted)\n", SESSION_MS);
    for (int i = 0; i < nfigures; i++)
        printf("#   %s\n", figures[i]);
    fflush(stdout);
    int rc = tc_stop(cluster);
    cluster = NULL;
    return rc == ST_OK ? 0 : -1;
}

int main(void)
{
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_failover", "STRATA_BIN is not set (ctest sets it)");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_arguments_are_refused),
        cmocka_unit_test(move_region),
        cmocka_unit_test(split_region),
        cmocka_unit_test(merge_regions),
        cmocka_unit_test(kill_regionserver),
        cmocka_unit_test(kill_regionserver_batch_100),
        cmocka_unit_test(pause_past_session_timeout),
        cmocka_unit_test(pause_past_three_rpc_timeouts),
        cmocka_unit_test(kill_active_master),
        cmocka_unit_test(kill_after_move),
    };
    return tu_run_group_tests(tests, start_cluster, stop_cluster);
}
