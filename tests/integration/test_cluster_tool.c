/*
 * test_cluster_tool.c - `strata cluster` (docs/cluster.md) through tests/support/cluster.h,
 * and the client reaching a real cluster through its master.
 *
 * Tests:
 *   - failover drill: a cluster of 2 masters and 2 region servers; status lists every
 *     process alive and both region servers registered; `kill master-active` ends the
 *     active master and the backup becomes active (status names it); `restart rs-1` gives
 *     a new process on the same port that registers again; `stop` leaves no recorded
 *     process alive (kill(pid, 0) and /proc state).
 *   - client through the master: the admin API creates a table split at "m", the client
 *     (zk quorum set, no locator file) writes and reads rows on both sides of the split and
 *     scans across them; describe, disable and delete go through the admin API.
 *   - CPU caps (--regionserver.cpu.quota 0.3): each region server in a cpu cgroup of its
 *     own with a 30000 us quota, also after a restart and for a server added later; the
 *     master uncapped; stop removes the cgroups. Skipped without a writable cgroup v1
 *     cpu hierarchy.
 *
 * Waits are bounded. Clusters are stopped at the end, on failure too (tests/support/
 * cluster.c: atexit and a watchdog). Needs STRATA_BIN (set by CTest); skipped without it (exit 77).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/admin_rpc.h"
#include "common/clock.h"
#include "common/status.h"
#include "strata/strata.h"
#include "tests/support/cluster.h"
#include "tests/support/proc.h"
#include "tests/support/testutil.h"

#define WAIT_MS 30000

static tc_cluster *start_cluster(int masters, int regionservers)
{
    tc_options o = {.masters = masters, .regionservers = regionservers};
    tc_cluster *c = NULL;
    int rc = tc_start(&o, &c);
    if (rc != ST_OK)
        fail_msg("cluster start: %s", st_errmsg());
    return c;
}

/* The line of status output that starts with name (copied into line). */
static int status_line(const char *text, const char *name, char *line, size_t cap)
{
    size_t n = strlen(name);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, name, n) == 0 && p[n] == ' ') {
            snprintf(line, cap, "%.*s", (int)strcspn(p, "\n"), p);
            return 1;
        }
    line[0] = '\0';
    return 0;
}

/* Polls status until name's line contains want, at most WAIT_MS. */
static int wait_status(tc_cluster *c, const char *name, const char *want)
{
    char line[600];
    uint64_t deadline = clock_mono_ns() + WAIT_MS * 1000000ull;
    do {
        char *text = NULL;
        tc_status(c, &text);
        int found = text && status_line(text, name, line, sizeof(line)) && strstr(line, want);
        free(text);
        if (found)
            return 1;
        clock_sleep_ms(200);
    } while (clock_mono_ns() < deadline);
    fprintf(stderr, "status of %s never showed '%s'; last: %s\n", name, want, line);
    return 0;
}

static void failover_restart_and_stop(void **state)
{
    static const char *names[] = {"zk", "master-1", "master-2", "rs-1", "rs-2"};
    tc_cluster *c = start_cluster(2, 2);
    char *text = NULL, line[600], active[32], now[32];
    pid_t pids[8];
    assert_int_equal(tc_status(c, &text), 0);
    for (size_t i = 0; i < 5; i++) {
        assert_true(status_line(text, names[i], line, sizeof(line)));
        assert_non_null(strstr(line, " alive "));
        pids[i] = tc_pid(c, names[i]);
        assert_true(proc_alive(pids[i]));
    }
    assert_non_null(strstr(text, "region servers registered: 2 of 2"));
    assert_non_null(strstr(text, tc_quorum(c)));
    free(text);

    assert_int_equal(tc_active_master(c, active, sizeof(active)), ST_OK);
    assert_true(strcmp(active, "master-1") == 0 || strcmp(active, "master-2") == 0);
    pid_t old = tc_pid(c, active);
    assert_int_equal(tc_kill(c, "master-active"), ST_OK);
    assert_false(proc_alive(old));
    uint64_t deadline = clock_mono_ns() + WAIT_MS * 1000000ull;
    do {
        clock_sleep_ms(200);
        assert_int_equal(tc_active_master(c, now, sizeof(now)), ST_OK);
    } while ((!now[0] || strcmp(now, active) == 0) && clock_mono_ns() < deadline);
    assert_true(now[0] && strcmp(now, active) != 0);
    assert_true(wait_status(c, now, " active "));

    pid_t rs1 = tc_pid(c, "rs-1");
    assert_int_equal(tc_restart(c, "rs-1"), ST_OK);
    pid_t rs1_new = tc_pid(c, "rs-1");
    assert_int_not_equal(rs1_new, rs1);
    assert_false(proc_alive(rs1));
    assert_true(proc_alive(rs1_new));
    assert_true(wait_status(c, "rs-1", " registered "));

    for (size_t i = 0; i < 5; i++)
        pids[i] = tc_pid(c, names[i]);
    assert_int_equal(tc_stop(c), ST_OK);
    for (size_t i = 0; i < 5; i++)
        assert_false(proc_alive(pids[i]));
}

/* ---- CPU caps ---- */

#define CGROUP_CPU "/sys/fs/cgroup/cpu"

/* The cpu cgroup of pid ("/strata-...-rs-1") from /proc/<pid>/cgroup, or "". */
static void cpu_cgroup_of(pid_t pid, char *out, size_t cap)
{
    char path[64], line[512];
    out[0] = '\0';
    snprintf(path, sizeof(path), "/proc/%ld/cgroup", (long)pid);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof(line), f)) {
        char *c = strstr(line, ":cpu:");
        if (!c)
            c = strstr(line, ":cpu,cpuacct:");
        if (c) {
            c = strchr(c + 1, ':') + 1;
            c[strcspn(c, "\n")] = '\0';
            snprintf(out, cap, "%s", c);
        }
    }
    if (f)
        fclose(f);
}

static long read_long(const char *dir, const char *file)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f && fscanf(f, "%ld", &v) != 1)
        v = -1;
    if (f)
        fclose(f);
    return v;
}

/* Checks that name's process runs in its own cgroup with a 30000 us quota; copies the
 * cgroup's directory into dir. */
static void check_capped(tc_cluster *c, const char *name, char *dir, size_t cap)
{
    pid_t pid = tc_pid(c, name);
    assert_true(proc_alive(pid));
    char cg[512];
    cpu_cgroup_of(pid, cg, sizeof(cg));
    char suffix[64];
    snprintf(suffix, sizeof(suffix), "-%s", name);
    if (!strstr(cg, "/strata-") || strlen(cg) < strlen(suffix) ||
        strcmp(cg + strlen(cg) - strlen(suffix), suffix) != 0)
        fail_msg("%s (pid %ld) is in cpu cgroup '%s', not its own", name, (long)pid, cg);
    snprintf(dir, cap, "%s%s", CGROUP_CPU, cg);
    assert_int_equal(read_long(dir, "cpu.cfs_quota_us"), 30000);
    assert_int_equal(read_long(dir, "cpu.cfs_period_us"), 100000);
}

static void cpu_capped_region_servers(void **state)
{
    (void)state;
    if (access(CGROUP_CPU, W_OK) != 0)
        skip(); /* no writable cgroup v1 cpu hierarchy here */
    static const char *const flags[] = {"--regionserver.cpu.quota=0.3", NULL};
    tc_options o = {.masters = 1, .regionservers = 2, .flags = flags};
    tc_cluster *c = NULL;
    if (tc_start(&o, &c) != ST_OK)
        fail_msg("cluster start: %s", st_errmsg());
    char d1[600], d2[600], d3[600], again[600];
    check_capped(c, "rs-1", d1, sizeof(d1));
    check_capped(c, "rs-2", d2, sizeof(d2));
    assert_string_not_equal(d1, d2);
    char *text = NULL;
    tc_status(c, &text);
    assert_non_null(text);
    assert_non_null(strstr(text, "region server CPU cap: 0.30 CPU each"));
    free(text);
    /* A restarted and an added server are capped too. */
    pid_t old = tc_pid(c, "rs-1");
    assert_int_equal(tc_restart(c, "rs-1"), ST_OK);
    assert_int_not_equal(tc_pid(c, "rs-1"), old);
    check_capped(c, "rs-1", again, sizeof(again));
    assert_string_equal(again, d1);
    assert_int_equal(tc_add(c), ST_OK);
    check_capped(c, "rs-3", d3, sizeof(d3));
    assert_true(wait_status(c, "rs-3", " registered "));
    /* The master is not capped. */
    char cg[512];
    cpu_cgroup_of(tc_pid(c, "master-1"), cg, sizeof(cg));
    assert_null(strstr(cg, "strata-"));
    assert_int_equal(tc_stop(c), ST_OK);
    assert_int_not_equal(access(d1, F_OK), 0);
    assert_int_not_equal(access(d2, F_OK), 0);
    assert_int_not_equal(access(d3, F_OK), 0);
}

/* Polls the admin API until every region of table has a server, at most WAIT_MS. */
static void wait_assigned(admin_rpc *a, const char *table, size_t want)
{
    uint64_t deadline = clock_mono_ns() + WAIT_MS * 1000000ull;
    for (;;) {
        Strata__Master__GetTableRegionsResponse *r = NULL;
        size_t assigned = 0, n = 0;
        if (admin_rpc_table_regions(a, table, &r) == ST_OK) {
            n = r->n_location;
            for (size_t i = 0; i < n; i++)
                assigned += r->location[i]->server != NULL &&
                            r->location[i]->state == STRATA__MASTER__REGION_STATE__OPEN;
        }
        admin_rpc_free_msg(r);
        if (n == want && assigned == want)
            return;
        if (clock_mono_ns() >= deadline)
            fail_msg("table %s: %zu of %zu regions open after %d ms", table, assigned, want,
                     WAIT_MS);
        clock_sleep_ms(200);
    }
}

static void put_row(strata_table_t *t, const char *row, const char *value)
{
    char *err = NULL;
    strata_mutation_t *m = strata_put_create(row, strlen(row));
    strata_put_add(m, "f", 1, "q", 1, STRATA_LATEST_TIMESTAMP, value, strlen(value));
    strata_table_put(t, m, &err);
    if (err)
        fail_msg("put %s: %s", row, err);
    strata_mutation_destroy(m);
}

static void check_row(strata_table_t *t, const char *row, const char *value)
{
    char *err = NULL;
    size_t len = 0;
    strata_get_t *g = strata_get_create(row, strlen(row));
    strata_result_t *r = strata_table_get(t, g, &err);
    if (err)
        fail_msg("get %s: %s", row, err);
    const char *v = strata_result_value(r, "f", 1, "q", 1, &len);
    assert_non_null(v);
    assert_int_equal(len, strlen(value));
    assert_memory_equal(v, value, len);
    strata_result_destroy(r);
    strata_get_destroy(g);
}

static void client_through_master(void **state)
{
    tc_cluster *c = start_cluster(1, 2);
    admin_rpc *a = NULL;
    Strata__Admin__TableSchema *s = NULL;
    assert_int_equal(admin_rpc_open(tc_quorum(c), tc_parent(c), &a), ST_OK);
    assert_int_equal(admin_rpc_schema_new("t", "f", &s), ST_OK);
    ProtobufCBinaryData split[] = {{1, (uint8_t *)"m"}};
    if (admin_rpc_create_table(a, s, split, 1) != ST_OK)
        fail_msg("%s", st_errmsg());
    assert_int_equal(admin_rpc_create_table(a, s, split, 1), ST_EXISTS);
    admin_rpc_schema_free(s);
    wait_assigned(a, "t", 2);

    char *err = NULL;
    strata_options_t *o = strata_options_create();
    strata_options_set_zk_quorum(o, tc_quorum(c));
    strata_options_set_zk_parent(o, tc_parent(c));
    strata_client_t *cl = strata_client_open(o, &err);
    assert_non_null(cl);
    strata_table_t *t = strata_table_open(cl, "t");
    put_row(t, "apple", "1");
    put_row(t, "zebra", "2");
    check_row(t, "apple", "1");
    check_row(t, "zebra", "2");

    strata_scan_t *sc = strata_scan_create();
    strata_scanner_t *it = strata_table_scan(t, sc, &err);
    assert_non_null(it);
    size_t rows = 0;
    strata_result_t *r;
    while ((r = strata_scanner_next(it, &err))) {
        rows++;
        strata_result_destroy(r);
    }
    assert_null(err);
    assert_int_equal(rows, 2);
    strata_scanner_close(it);
    strata_scan_destroy(sc);

    Strata__Master__DescribeTableResponse *d = NULL;
    assert_int_equal(admin_rpc_describe_table(a, "t", &d), ST_OK);
    assert_int_equal(d->table->state, STRATA__MASTER__TABLE_STATE__ENABLED);
    admin_rpc_free_msg(d);
    assert_int_equal(admin_rpc_delete_table(a, "t"), ST_INVALID_ARGUMENT); /* enabled */
    assert_int_equal(admin_rpc_disable_table(a, "t"), ST_OK);
    assert_int_equal(admin_rpc_delete_table(a, "t"), ST_OK);
    assert_int_equal(admin_rpc_describe_table(a, "t", &d), ST_NOT_FOUND);

    strata_table_close(t);
    strata_client_close(cl);
    strata_options_destroy(o);
    admin_rpc_close(a);
    assert_int_equal(tc_stop(c), ST_OK);
}

int main(void)
{
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_cluster_tool", "STRATA_BIN is not set (ctest sets it)");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(failover_restart_and_stop),
        cmocka_unit_test(client_through_master),
        cmocka_unit_test(cpu_capped_region_servers),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
