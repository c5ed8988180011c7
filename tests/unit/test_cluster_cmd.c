/*
 * test_cluster_cmd.c - the pieces of `strata cluster` that need no running cluster
 * (tools/cluster_internal.h): the state file written and read back, corrupt state lines
 * named by number, process names, free ports, liveness that refuses a pid running some
 * other program, liveness that waits for every thread of a process whose main thread
 * exited, the CPU caps (parsing, cgroup names and quota, the state line, a missing
 * hierarchy refused), and the command's argument errors (exit 2 before anything starts).
 * The whole tool runs in tests/integration/test_cluster_tool.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

/* ---- a process whose main thread exited while another holds a port ---- */

#define ZOMBIE_LEADER_ARG "--zombie-leader-child"

/* In the helper: the other thread. Holds the listening socket until stdin ends. */
static void *hold_port(void *arg)
{
    int fd = *(int *)arg;
    char c;
    while (read(0, &c, 1) > 0) {
    }
    close(fd);
    return NULL;
}

/* The helper (this test re-executed with ZOMBIE_LEADER_ARG): listens on a loopback port,
 * writes it to stdout, and ends its main thread with pthread_exit while hold_port runs. */
static int zombie_leader_main(void)
{
    static int fd;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof(a);
    pthread_t t;
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fd, 1) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &alen) != 0)
        return 1;
    dprintf(1, "%d\n", ntohs(a.sin_port));
    if (pthread_create(&t, NULL, hold_port, &fd) != 0)
        return 1;
    pthread_exit(NULL);
}

/* The state letter of pid's main thread (/proc/<pid>/stat), or 0. */
static char main_thread_state(pid_t pid)
{
    char path[64], text[512];
    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *rp = strrchr(text, ')');
    return rp && rp[1] == ' ' ? rp[2] : 0;
}

/* Starts the helper as this cluster's rs-1 (its command line carries rs-1's identity
 * argument) and waits until its main thread is a zombie: its pid, the port it holds and
 * the write end of its stdin (closing it ends the helper). */
static pid_t start_zombie_leader(const cluster_state *s, int *port, int *stdin_wr)
{
    char ready[CLUSTER_PATH_MAX], id[CLUSTER_PATH_MAX + 64], line[32] = {0};
    int in[2], out[2];
    cluster_ready_path(s, "rs-1", ready, sizeof(ready));
    snprintf(id, sizeof(id), "--regionserver.ready.file=%s", ready);
    assert_int_equal(pipe(in), 0);
    assert_int_equal(pipe(out), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char *argv[] = {"test_cluster_cmd", ZOMBIE_LEADER_ARG, id, NULL};
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        execv("/proc/self/exe", argv);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    assert_true(read(out[0], line, sizeof(line) - 1) > 0);
    close(out[0]);
    *port = atoi(line);
    *stdin_wr = in[1];
    assert_true(*port > 0);
    for (int i = 0; i < 100 && main_thread_state(pid) != 'Z'; i++)
        usleep(20000);
    assert_int_equal(main_thread_state(pid), 'Z');
    return pid;
}

/* Whether 127.0.0.1:port can be bound now. */
static bool port_free(int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    bool ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

/* Regression: a process whose main thread exited (a zombie leader) while another thread
 * still holds its port counted as dead, and `restart` started the new one into "Address
 * already in use". It is alive until its last thread is gone. */
static void alive_while_any_thread_runs(void **state)
{
    cluster_state s;
    int port = 0, wr = -1;
    memset(&s, 0, sizeof(s));
    char *dir = tu_tempdir("clthreads");
    snprintf(s.dir, sizeof(s.dir), "%s", dir);
    pid_t pid = start_zombie_leader(&s, &port, &wr);
    cluster_proc p = {"rs-1", CLUSTER_RS, pid, port, 0};
    assert_false(port_free(port));
    assert_true(cluster_pid_running(pid));
    assert_true(cluster_alive(&s, &p));
    close(wr); /* the other thread ends, and the process with it */
    for (int i = 0; i < 250 && cluster_pid_running(pid); i++)
        usleep(20000);
    assert_false(cluster_pid_running(pid));
    assert_false(cluster_alive(&s, &p));
    assert_true(port_free(port));
    tu_rmdir(dir);
}

/* The kill waiting sees such a process too: cluster_wait_dead SIGKILLs it once its
 * timeout passed, and returns only once every thread is gone. */
static void wait_dead_waits_for_every_thread(void **state)
{
    cluster_state s;
    int port = 0, wr = -1;
    memset(&s, 0, sizeof(s));
    char *dir = tu_tempdir("clthreads");
    snprintf(s.dir, sizeof(s.dir), "%s", dir);
    pid_t pid = start_zombie_leader(&s, &port, &wr);
    cluster_proc p = {"rs-1", CLUSTER_RS, pid, port, 0}, *pp = &p;
    assert_int_equal(cluster_wait_dead(&s, &pp, 1, 200), 1);
    assert_false(cluster_pid_running(pid));
    assert_true(port_free(port));
    close(wr);
    tu_rmdir(dir);
}

/* The CPU cap: parsing, quota, cgroup names, the state line, and a start refused with a
 * clear error when the hierarchy is not writable. */
static void cpu_caps(void **state)
{
    (void)state;
    double q = 0;
    assert_int_equal(cluster_cap_parse("0.4", &q), ST_OK);
    assert_true(q == 0.4);
    assert_int_equal(cluster_cap_quota_us(q), 40000);
    assert_int_equal(cluster_cap_quota_us(1.5), 150000);
    const char *bad[] = {"0", "-1", "x", "0.4x", "", "1e9", "0.001", "nan"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(cluster_cap_parse(bad[i], &q), ST_INVALID_ARGUMENT);
        assert_non_null(strstr(st_errmsg(), "--regionserver.cpu.quota"));
    }
    char *dir = tu_tempdir("clcaps");
    cluster_state s, r;
    memset(&s, 0, sizeof(s));
    snprintf(s.dir, sizeof(s.dir), "%s", dir);
    snprintf(s.quorum, sizeof(s.quorum), "127.0.0.1:4000");
    snprintf(s.parent, sizeof(s.parent), "/strata");
    s.session_timeout_ms = 6000;
    s.rs_cpu_quota = 0.25;
    s.procs[0] = (cluster_proc){"zk", CLUSTER_ZK, 0, 4000, 0};
    s.procs[1] = (cluster_proc){"rs-1", CLUSTER_RS, 0, 4003, 4004};
    s.nprocs = 2;
    assert_int_equal(cluster_state_write(&s), ST_OK);
    assert_int_equal(cluster_state_read(dir, &r), ST_OK);
    assert_true(r.rs_cpu_quota == 0.25);
    char a[CLUSTER_PATH_MAX], b[CLUSTER_PATH_MAX];
    cluster_cgroup_path(&r, "rs-1", a, sizeof(a));
    cluster_cgroup_path(&r, "rs-2", b, sizeof(b));
    assert_string_not_equal(a, b);
    assert_non_null(strstr(a, "/strata-"));
    assert_non_null(strstr(a, "-rs-1"));
    /* A hierarchy that does not exist: preparing a capped server fails, naming it; the
     * others (and an uncapped cluster) need nothing. */
    setenv("STRATA_CGROUP_CPU_ROOT", "/nonexistent/cpu", 1);
    char procs[CLUSTER_PATH_MAX + 32];
    assert_int_equal(cluster_cap_prepare(&r, &r.procs[1], procs, sizeof(procs)), ST_UNSUPPORTED);
    assert_non_null(strstr(st_errmsg(), "/nonexistent/cpu"));
    assert_int_equal(cluster_cap_prepare(&r, &r.procs[0], procs, sizeof(procs)), ST_OK);
    assert_string_equal(procs, "");
    /* A private directory standing in for the hierarchy: the cgroup is made with its
     * period and quota, and removed again. */
    char root[CLUSTER_PATH_MAX];
    snprintf(root, sizeof(root), "%s/cpu", dir);
    assert_int_equal(fio_mkdirs(root), ST_OK);
    setenv("STRATA_CGROUP_CPU_ROOT", root, 1);
    cluster_cgroup_path(&r, "rs-1", a, sizeof(a));
    assert_int_equal(fio_mkdirs(a), ST_OK);
    char f[CLUSTER_PATH_MAX + 64];
    const char *files[] = {"cpu.cfs_period_us", "cpu.cfs_quota_us"};
    for (int i = 0; i < 2; i++) {
        snprintf(f, sizeof(f), "%s/%s", a, files[i]);
        assert_int_equal(fio_write_atomic(f, "", 0), ST_OK);
    }
    assert_int_equal(cluster_cap_prepare(&r, &r.procs[1], procs, sizeof(procs)), ST_OK);
    assert_non_null(strstr(procs, "cgroup.procs"));
    buf_t text = {0};
    snprintf(f, sizeof(f), "%s/cpu.cfs_quota_us", a);
    assert_int_equal(fio_read_all(f, &text), ST_OK);
    assert_int_equal(text.len, 5);
    assert_memory_equal(text.data, "25000", 5);
    buf_free(&text);
    for (int i = 0; i < 2; i++) {
        snprintf(f, sizeof(f), "%s/%s", a, files[i]);
        unlink(f);
    }
    assert_int_equal(cluster_caps_remove(&r), ST_OK);
    assert_false(fio_exists(a));
    unsetenv("STRATA_CGROUP_CPU_ROOT");
    cluster_state_clear(&s);
    cluster_state_clear(&r);
    tu_rmdir(dir);
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
        {"cluster", "start", "--regionserver.cpu.quota", "0", NULL},
        {"cluster", "start", "--regionserver.cpu.quota=lots", NULL},
        {"cluster", "add", "rs-9", NULL},
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

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], ZOMBIE_LEADER_ARG) == 0)
        return zombie_leader_main();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(state_roundtrip),
        cmocka_unit_test(corrupt_state_lines_named),
        cmocka_unit_test(process_names),
        cmocka_unit_test(free_ports_distinct),
        cmocka_unit_test(alive_refuses_other_programs),
        cmocka_unit_test(alive_while_any_thread_runs),
        cmocka_unit_test(wait_dead_waits_for_every_thread),
        cmocka_unit_test(bad_arguments_exit_2),
        cmocka_unit_test(cpu_caps),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
