/*
 * test_cluster_cmd.c - the pieces of `strata cluster` that need no running cluster
 * (tools/cluster_internal.h): the state file written and read back, corrupt state lines
 * named by number, process names, free ports, liveness that refuses a pid running some
 * other program, and the command's argument errors (exit 2 before anything starts).
 * The whole tool runs in tests/integration/test_cluster_tool.c.
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
#include <unistd.h>

#include "common/fileio.h"
#include "common/status.h"
#include "tests/support/testutil.h"
#include "tools/cluster_internal.h"
#include "tools/tools.h"

static void state_roundtrip(void **state)
{
    char *dir = tu_tempdir("clstate");
    cluster_state s, r;
    memset(&s, 0, sizeof(s));
    snprintf(s.dir, sizeof(s.dir), "%s", dir);
    snprintf(s.quorum, sizeof(s.quorum), "127.0.0.1:4000");
    snprintf(s.parent, sizeof(s.parent), "/strata");
    s.session_timeout_ms = 6000;
    s.args[s.nargs++] = strdup("--log.level=debug");
    s.args[s.nargs++] = strdup("--regionserver.block.cache.size=16m");
    s.procs[0] = (cluster_proc){"zk", CLUSTER_ZK, 11, 4000, 0};
    s.procs[1] = (cluster_proc){"master-1", CLUSTER_MASTER, 12, 4001, 4002};
    s.procs[2] = (cluster_proc){"rs-10", CLUSTER_RS, 0, 4003, 4004};
    s.nprocs = 3;
    assert_int_equal(cluster_state_write(&s), ST_OK);
    assert_int_equal(cluster_state_read(dir, &r), ST_OK);
    assert_string_equal(r.quorum, "127.0.0.1:4000");
    assert_string_equal(r.parent, "/strata");
    assert_int_equal(r.session_timeout_ms, 6000);
    assert_int_equal(r.nargs, 2);
    assert_string_equal(r.args[1], "--regionserver.block.cache.size=16m");
    assert_int_equal(r.nprocs, 3);
    cluster_proc *p = cluster_state_find(&r, "rs-10");
    assert_non_null(p);
    assert_int_equal(p->kind, CLUSTER_RS);
    assert_int_equal(p->rpc_port, 4003);
    assert_int_equal(p->http_port, 4004);
    assert_int_equal(cluster_state_find(&r, "master-1")->pid, 12);
    assert_null(cluster_state_find(&r, "rs-1"));
    assert_int_equal(cluster_state_count(&r, CLUSTER_RS), 1);
    cluster_state_clear(&s);
    cluster_state_clear(&r);
    tu_rmdir(dir);
}

static void corrupt_state_lines_named(void **state)
{
    static const char *bad[] = {
        "quorum 127.0.0.1:1\nzk 1 2\n",                           /* 3 fields */
        "quorum 127.0.0.1:1\nzk 1 2 3\nworker-1 1 2 3\n",         /* not a process name */
        "quorum 127.0.0.1:1\nzk 1 2 3\nrs-1 x 2 3\n",             /* pid */
        "quorum 127.0.0.1:1\nzk 1 2 3\nrs-1 1 70000 3\n",         /* port */
        "quorum 127.0.0.1:1\nzk 1 2 3\nrs-1 1 2 3\nrs-1 1 2 3\n", /* twice */
        "zk 1 2 3\n",                                             /* no quorum */
    };
    static const int line[] = {2, 3, 3, 3, 4, 0};
    char *dir = tu_tempdir("clstate");
    char path[600], want[32];
    cluster_state s;
    snprintf(path, sizeof(path), "%s/cluster.state", dir);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(fio_write_atomic(path, bad[i], strlen(bad[i])), ST_OK);
        assert_int_equal(cluster_state_read(dir, &s), ST_CORRUPTION);
        snprintf(want, sizeof(want), "state:%d:", line[i]);
        if (line[i])
            assert_non_null(strstr(st_errmsg(), want));
    }
    unlink(path);
    assert_int_equal(cluster_state_read(dir, &s), ST_NOT_FOUND);
    assert_non_null(strstr(st_errmsg(), "no cluster"));
    tu_rmdir(dir);
}

static void process_names(void **state)
{
    static const char *good[] = {"zk", "master-1", "rs-1", "rs-32"};
    static const char *bad[] = {"",     "zk1",   "master-",  "master-0",     "rs-01",
                                "rs-x", "rs-1a", "worker-1", "master-active"};
    cluster_kind kind;
    int index;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        assert_int_equal(cluster_name_parse(good[i], &kind, &index), ST_OK);
    assert_int_equal(cluster_name_parse("rs-32", &kind, &index), ST_OK);
    assert_int_equal(kind, CLUSTER_RS);
    assert_int_equal(index, 32);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(cluster_name_parse(bad[i], &kind, &index), ST_INVALID_ARGUMENT);
}

static void free_ports_distinct(void **state)
{
    int ports[20];
    assert_int_equal(cluster_free_ports(ports, 20), ST_OK);
    for (int i = 0; i < 20; i++) {
        assert_true(ports[i] > 0 && ports[i] < 65536);
        for (int j = 0; j < i; j++)
            assert_int_not_equal(ports[i], ports[j]);
    }
}

/* A pid that runs but is not this cluster's process (here: the test itself, and a
 * zombie child) is not alive for the cluster and is never signalled. */
static void alive_refuses_other_programs(void **state)
{
    cluster_state s;
    memset(&s, 0, sizeof(s));
    snprintf(s.dir, sizeof(s.dir), "/tmp/no-such-cluster");
    cluster_proc me = {"rs-1", CLUSTER_RS, getpid(), 1, 2};
    assert_false(cluster_alive(&s, &me));
    assert_false(cluster_signal(&s, &me, SIGKILL));
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    usleep(100000);
    cluster_proc z = {"zk", CLUSTER_ZK, child, 1, 0};
    assert_false(cluster_alive(&s, &z)); /* reaped or a zombie */
    waitpid(child, NULL, WNOHANG);
}

static int run_main(const char *const *args)
{
    char *argv[16];
    int n = 0;
    for (; args[n]; n++)
        argv[n] = (char *)args[n];
    argv[n] = NULL;
    return cluster_main(n, argv);
}

static void bad_arguments_exit_2(void **state)
{
    const char *const cases[][8] = {
        {"cluster", NULL},
        {"cluster", "bogus", NULL},
        {"cluster", "start", "--masters", "0", NULL},
        {"cluster", "start", "--regionservers", "x", NULL},
        {"cluster", "start", "--session-timeout-ms", "10", NULL},
        {"cluster", "start", "positional", NULL},
        {"cluster", "start", "--key with space=1", NULL},
        {"cluster", "kill", "--dir", "/tmp", NULL},
        {"cluster", "restart", NULL},
        {"cluster", "status", "extra", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_int_equal(run_main(cases[i]), 2);
    const char *help[] = {"cluster", "help", NULL};
    assert_int_equal(run_main(help), 0);
    /* A directory without a cluster: a clear failure, exit 1. */
    char *dir = tu_tempdir("clnone");
    const char *status[] = {"cluster", "status", "--dir", dir, NULL};
    const char *kill_[] = {"cluster", "kill", "--dir", dir, "rs-1", NULL};
    assert_int_equal(run_main(status), 1);
    assert_int_equal(run_main(kill_), 1);
    tu_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(state_roundtrip),
        cmocka_unit_test(corrupt_state_lines_named),
        cmocka_unit_test(process_names),
        cmocka_unit_test(free_ports_distinct),
        cmocka_unit_test(alive_refuses_other_programs),
        cmocka_unit_test(bad_arguments_exit_2),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
