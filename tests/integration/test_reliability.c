/*
 * test_reliability.c - the verifiers under the chaos monkey, as CI's short form of the
 * runs of docs/reliability.md, on a local cluster of 2 masters and 3 region servers
 * (session timeout 6 s):
 *   - `strata verify linkedlist generate` for 140 s (2 loaders, paced) beside
 *     `--monkey slowDeterministic` with a 1 s period: at least 15 actions, every kind of
 *     tools/chaos.h among them but the partitions (the local backend cuts no network;
 *     test_deploy drills them), none failed; then `verify` finds every node written
 *     REFERENCED and none UNDEFINED or UNREFERENCED;
 *   - `strata verify acid` for 45 s beside `--monkey serverKilling`: no torn row, no
 *     counter read lower than before, no action failed;
 *   - `strata hbck` afterwards: the cluster is consistent.
 * Each run's report goes to stderr, so a failure shows what the monkey did.
 * Needs STRATA_BIN (set by CTest) and ZooKeeper; skipped without them (exit 77).
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
#include "common/status.h"
#include "tests/support/cluster.h"
#include "tests/support/testutil.h"
#include "tools/chaos.h"

static tc_cluster *cluster;

/* Runs `$STRATA_BIN ARGS --dir <cluster>`: stdout into *out (malloc'ed), stderr passed
 * through; the exit status. */
static int run(const char *args, char **out)
{
    char cmd[2048];
    snprintf(cmd, sizeof(cmd), "%s %s --dir %s", getenv("STRATA_BIN"), args, tc_dir(cluster));
    int status = tu_capture(cmd, out);
    assert_true(status >= 0);
    return status;
}

/* The number after "key": at its first occurrence at or after from; -1 if none. */
static double num(const char *from, const char *key)
{
    char pat[96];
    snprintf(pat, sizeof(pat), "\"%s\":", key);
    const char *p = strstr(from, pat);
    return p ? atof(p + strlen(pat)) : -1;
}

static void linkedlist_under_chaos(void **state)
{
    (void)state;
    char *out = NULL;
    int rc = run("verify linkedlist generate --loaders 2 --width 200 --wrap 10 --duration 140 "
                 "--rate 1500 --monkey slowDeterministic --monkey-period-ms 1000 --json",
                 &out);
    fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    double expected = num(out, "expected");
    assert_true(expected > 100000);
    const char *mk = strstr(out, "\"monkey\":");
    assert_non_null(mk);
    assert_true(num(mk, "done") >= 15);
    assert_int_equal((int)num(mk, "failed"), 0);
    const char *kinds = strstr(mk, "\"kinds\":");
    assert_non_null(kinds);
    for (int k = 0; k < CHAOS_KINDS; k++) {
        /* The local backend cuts no network: the partitions are drilled in namespaces
         * (deploy/netns-cluster.sh --partition-drill, test_deploy). */
        if (k == CHAOS_PARTITION_RS_ZK || k == CHAOS_PARTITION_MASTER)
            continue;
        char pat[64];
        snprintf(pat, sizeof(pat), "\"%s\":{\"n\":", chaos_kind_name((chaos_kind)k));
        if (!strstr(kinds, pat))
            fail_msg("the monkey never ran %s", chaos_kind_name((chaos_kind)k));
    }
    free(out);

    char args[128];
    snprintf(args, sizeof(args), "verify linkedlist verify --expected %.0f --json", expected);
    rc = run(args, &out);
    fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    assert_true(num(out, "REFERENCED") == expected);
    assert_int_equal((int)num(out, "UNDEFINED"), 0);
    assert_int_equal((int)num(out, "UNREFERENCED"), 0);
    free(out);
}

static void acid_under_chaos(void **state)
{
    (void)state;
    char *out = NULL;
    int rc = run("verify acid --duration 45 --monkey serverKilling --monkey-period-ms 1000 "
                 "--monkey-table TestAcidGuarantees --json",
                 &out);
    fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    assert_true(num(out, "writes") > 100);
    assert_true(num(out, "gets") > 100);
    assert_true(num(out, "scans") > 10);
    assert_int_equal((int)num(out, "torn_gets"), 0);
    assert_int_equal((int)num(out, "torn_scans"), 0);
    assert_int_equal((int)num(out, "counter_decreases"), 0);
    const char *mk = strstr(out, "\"monkey\":");
    assert_non_null(mk);
    assert_true(num(mk, "done") >= 3);
    assert_int_equal((int)num(mk, "failed"), 0);
    free(out);
}

static void hbck_finds_it_consistent(void **state)
{
    (void)state;
    char *out = NULL;
    int rc = run("hbck", &out);
    fprintf(stderr, "%s\n", out);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "Status: OK"));
    free(out);
}


static int start(void **state)
{
    (void)state;
    tc_options o = {.masters = 2, .regionservers = 3};
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
    return rc == ST_OK ? 0 : -1;
}

int main(void)
{
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_reliability", "STRATA_BIN is not set (ctest sets it)");
    if (!tu_have_zookeeper())
        return tu_skip_all("test_reliability",
                           "ZooKeeper is not installed (java, /usr/share/java)");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(linkedlist_under_chaos),
        cmocka_unit_test(acid_under_chaos),
        cmocka_unit_test(hbck_finds_it_consistent),
    };
    return tu_run_group_tests(tests, start, stop);
}
