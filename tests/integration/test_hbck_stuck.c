/*
 * test_hbck_stuck.c - `strata hbck` against states a real local cluster gets stuck in
 * (docs/hbck.md), made with the master's test hooks (master.inject.pause and
 * master.inject.crash at the steps of docs/procedures.md):
 *
 *   held_recovery_refuses_assigns: rows are written (not flushed), the region server of
 *   one region is killed (SIGKILL) and its recovery is held at
 *   ServerCrashProcedure:SERVER_CRASH_SPLIT_LOGS. While it is held, the report names the
 *   region on the dead server and its unsplit WAL directory (informational: a recovery
 *   runs), STUCK_PROCEDURE past --stuck-ms, and `assigns REGION` and
 *   `setRegionState REGION CLOSED --clear-server` exit 1 naming the region and the unsplit
 *   WALs, changing nothing. Then the recovery goes on, every row is readable and the
 *   report is OK.
 *
 *   table_stuck_after_master_crash: with one master, which dies at
 *   DisableTableProcedure:DISABLE_TABLE_MARK_REGIONS_OFFLINE (the table DISABLING in
 *   meta) while a region server of the table is killed; the next master cannot finish
 *   the state while that server's recovery is held: TABLE_STUCK_DISABLING, until the
 *   recovery ends and the master finishes DISABLED itself. Then the master dies at
 *   EnableTableProcedure:ENABLE_TABLE_MARK_REGIONS_ONLINE (ENABLING) while a region's
 *   open is held on its server (regionserver.inject.open.pause.ms): TABLE_STUCK_ENABLING,
 *   mended by `setTableState t ENABLED`. Every row stays readable.
 *
 * Needs STRATA_BIN (ctest sets it) and ZooKeeper.
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

#include "client/admin_rpc.h"
#include "common/fileio.h"
#include "common/status.h"
#include "tests/support/cluster.h"
#include "tests/support/proc.h"
#include "tests/support/testutil.h"

#define SESSION_MS 6000

static tc_cluster *C;
static char OUT[65536];

/* Runs `$STRATA_BIN <args>` (args: one shell-quoted string); OUT gets stdout+stderr. */
static int run_strata(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run_strata(const char *fmt, ...)
{
    char args[2048], cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof(args), fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof(cmd), "'%s' %s 2>&1", getenv("STRATA_BIN"), args);
    char *out = NULL;
    int st = tu_capture(cmd, &out);
    snprintf(OUT, sizeof(OUT), "%s", out);
    free(out);
    return st;
}

static int hbckf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int hbckf(const char *fmt, ...)
{
    char args[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof(args), fmt, ap);
    va_end(ap);
    return run_strata("hbck --zk.quorum %s --zk.parent %s %s", tc_quorum(C), tc_parent(C), args);
}

static int hbck(const char *args)
{
    return hbckf("%s", args);
}

static void expect(const char *needle, const char *what)
{
    if (!strstr(OUT, needle))
        fail_msg("%s: expected \"%s\" in:\n%s", what, needle, OUT);
}

/* Waits (up to secs) until the report (with args) exits 0 and says OK with no
 * informational line either (nothing in transition). */
static void wait_ok(const char *args, int secs, const char *what)
{
    for (int i = 0; i < secs * 4; i++) {
        if (hbckf("%s", args) == 0 && strstr(OUT, "Status: OK") && !strstr(OUT, "INFO: "))
            return;
        usleep(250 * 1000);
    }
    fail_msg("%s: hbck never became consistent:\n%s", what, OUT);
}

/* Waits (up to secs) until the report (with args) exits status and holds needle. */
static void wait_finding(const char *args, int status, const char *needle, int secs,
                         const char *what)
{
    for (int i = 0; i < secs * 4; i++) {
        if (hbckf("%s", args) == status && strstr(OUT, needle))
            return;
        usleep(250 * 1000);
    }
    fail_msg("%s: no \"%s\" (exit %d) within %d s; last report:\n%s", what, needle, status, secs,
             OUT);
}

static void shell(const char *cmd)
{
    int st = run_strata("shell --zk.quorum %s --zk.parent %s -e \"%s\"", tc_quorum(C), tc_parent(C),
                        cmd);
    if (st != 0)
        fail_msg("shell %s: %d\n%s", cmd, st, OUT);
}

typedef struct region_at {
    char enc[64];
    char server[320]; /* host,port,startcode; "" if none */
    int port;
} region_at;

/* The regions of t by start key "", "g", "p". */
static void regions(region_at at[3])
{
    admin_rpc *a = NULL;
    assert_int_equal(admin_rpc_open(tc_quorum(C), tc_parent(C), &a), ST_OK);
    Strata__Master__GetTableRegionsResponse *r = NULL;
    assert_int_equal(admin_rpc_table_regions(a, "t", &r), ST_OK);
    assert_int_equal(r->n_location, 3);
    for (size_t i = 0; i < 3; i++) {
        snprintf(at[i].enc, sizeof(at[i].enc), "%s", r->location[i]->region->encoded_name);
        at[i].server[0] = 0;
        at[i].port = 0;
        const Strata__Master__ServerName *s = r->location[i]->server;
        if (s) {
            snprintf(at[i].server, sizeof(at[i].server), "%s,%u,%llu", s->host, s->port,
                     (unsigned long long)s->start_code);
            at[i].port = (int)s->port;
        }
    }
    admin_rpc_free_msg(r);
    admin_rpc_close(a);
}

/* The name (rs-N) of the cluster's region server listening on port, from its state. */
static void rs_name_of_port(int port, char *out, size_t cap)
{
    char path[1024], line[256], name[64];
    snprintf(path, sizeof(path), "%s/cluster.state", tc_dir(C));
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    out[0] = '\0';
    long pid;
    int rpc, http;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "%63s %ld %d %d", name, &pid, &rpc, &http) == 4 && rpc == port &&
            strncmp(name, "rs-", 3) == 0)
            snprintf(out, cap, "%s", name);
    fclose(f);
    assert_true(out[0] != '\0');
}

static void write_rows(void)
{
    shell("create 't', 'cf', SPLITS => ['g', 'p']");
    /* Not flushed: after a kill the edits are only in the dead server's WAL. */
    shell("put 't', 'a', 'cf:q', 'va'");
    shell("put 't', 'h', 'cf:q', 'vh'");
    shell("put 't', 'q', 'cf:q', 'vq'");
}

static void check_rows(const char *what)
{
    static const char *const rows[][2] = {{"a", "va"}, {"h", "vh"}, {"q", "vq"}};
    for (size_t i = 0; i < 3; i++) {
        char cmd[128], want[32];
        snprintf(cmd, sizeof(cmd), "get 't', '%s'", rows[i][0]);
        snprintf(want, sizeof(want), "value=%s", rows[i][1]);
        shell(cmd);
        if (!strstr(OUT, want))
            fail_msg("%s: row %s lost:\n%s", what, rows[i][0], OUT);
    }
}

static void start(const char *const *flags)
{
    tc_options o = {
        .masters = 1, .regionservers = 3, .session_timeout_ms = SESSION_MS, .flags = flags};
    if (tc_start(&o, &C) != ST_OK)
        fail_msg("cluster start: %s", st_errmsg());
}

static void held_recovery_refuses_assigns(void **state)
{
    (void)state;
    static const char *const flags[] = {
        "--master.inject.pause=ServerCrashProcedure:SERVER_CRASH_SPLIT_LOGS",
        "--master.inject.pause.ms=12000", "--regionserver.report.interval.ms=500", NULL};
    start(flags);
    write_rows();
    region_at at[3];
    regions(at);
    assert_true(at[1].server[0] != 0);
    char victim[64];
    rs_name_of_port(at[1].port, victim, sizeof(victim));
    assert_int_equal(tc_kill(C, victim), ST_OK);

    /* Held: the region on the dead server and its WAL directory, both in transition
     * while the recovery runs (exit 0: informational). */
    char line[512];
    snprintf(line, sizeof(line),
             "INFO: IN_TRANSITION table=default:t region=%s server=%s: its "
             "server is being recovered",
             at[1].enc, at[1].server);
    wait_finding("", 0, line, 20, "held recovery");
    snprintf(line, sizeof(line), "INFO: IN_TRANSITION server=%s path=", at[1].server);
    expect(line, "unsplit WAL directory");
    snprintf(line, sizeof(line), "/WALs/%s: the WALs of a dead server being recovered",
             at[1].server);
    expect(line, "unsplit WAL directory");
    /* Past the threshold the held recovery is a stuck procedure. */
    wait_finding("--stuck-ms 1000", 1, "ERROR: STUCK_PROCEDURE", 5,
                 "held recovery past --stuck-ms");
    expect("ServerCrashProcedure RUNNABLE", "held recovery past --stuck-ms");

    /* Assigning it now would open it without the edits in the unsplit WAL: refused. */
    char want[512];
    if (hbckf("assigns %s", at[1].enc) != 1)
        fail_msg("assigns of %s (on %s) was not refused:\n%s", at[1].enc, at[1].server, OUT);
    snprintf(want, sizeof(want),
             "region %s is on dead server %s, which is not recovered yet (its "
             "WALs may not be split",
             at[1].enc, at[1].server);
    expect(want, "assigns");
    if (hbckf("setRegionState %s CLOSED --clear-server", at[1].enc) != 1)
        fail_msg("setRegionState --clear-server of %s was not refused:\n%s", at[1].enc, OUT);
    snprintf(want, sizeof(want),
             "region %s is on %s, which is not live and whose WALs are not "
             "split yet",
             at[1].enc, at[1].server);
    expect(want, "setRegionState --clear-server");
    /* Nothing changed (meta still places the region on the dead server), and the recovery
     * is still held: the refusals were against it. */
    assert_int_equal(hbck(""), 0);
    snprintf(line, sizeof(line), "region=%s server=%s: its server is being recovered", at[1].enc,
             at[1].server);
    expect(line, "still held after the refusals");

    /* The pause ends: the WALs are split, the region reopens elsewhere with its rows. */
    wait_ok("", 40, "after the recovery");
    region_at now[3];
    regions(now);
    assert_true(now[1].server[0] != 0 && strcmp(now[1].server, at[1].server) != 0);
    check_rows("after the recovery");
    assert_int_equal(tc_stop(C), ST_OK);
    C = NULL;
}

/* Starts a DDL with a short timeout: the master kills itself at the hooked step, so the
 * call fails; waits until the master process is gone. */
static void ddl_kills_master(bool enable)
{
    admin_rpc *a = NULL;
    assert_int_equal(admin_rpc_open(tc_quorum(C), tc_parent(C), &a), ST_OK);
    admin_rpc_set_timeout_ms(a, 2000); /* no retry reaches the next master */
    int rc = enable ? admin_rpc_enable_table(a, "t") : admin_rpc_disable_table(a, "t");
    admin_rpc_close(a);
    assert_int_not_equal(rc, ST_OK);
    pid_t pid = tc_pid(C, "master-1");
    for (int i = 0; i < 100 && pid && proc_alive(pid); i++)
        usleep(100 * 1000);
    assert_false(pid && proc_alive(pid));
}

static void table_stuck_after_master_crash(void **state)
{
    (void)state;
    static const char *const flags[] = {
        "--master.inject.crash=DisableTableProcedure:DISABLE_TABLE_MARK_REGIONS_OFFLINE,"
        "EnableTableProcedure:ENABLE_TABLE_MARK_REGIONS_ONLINE",
        "--master.inject.pause=ServerCrashProcedure:SERVER_CRASH_SPLIT_LOGS",
        "--master.inject.pause.ms=12000",
        "--regionserver.inject.open.pause.ms=10000",
        "--regionserver.report.interval.ms=500",
        NULL};
    start(flags);
    write_rows();
    assert_int_equal(hbck(""), 0);
    region_at at[3];
    regions(at);
    char victim[64];
    rs_name_of_port(at[1].port, victim, sizeof(victim));

    /* DISABLING: the master dies after writing it; a server of the table dies too, and the
     * next master cannot close that server's region until its (held) recovery ends. */
    ddl_kills_master(false);
    assert_int_equal(tc_kill(C, victim), ST_OK);
    assert_int_equal(tc_restart(C, "master-1"), ST_OK);
    wait_finding("--stuck-ms 2000", 1,
                 "ERROR: TABLE_STUCK_DISABLING table=default:t: table "
                 "DISABLING for",
                 30, "stuck disabling");
    expect("with no DDL running", "stuck disabling");
    /* Below the threshold it is only in transition. */
    hbck("--stuck-ms 600000");
    expect("INFO: IN_TRANSITION table=default:t: table is DISABLING", "young disabling");
    /* The recovery ends; the master closes the rest and finishes the state itself. */
    wait_ok("--stuck-ms 2000", 40, "disabling finished");
    assert_int_equal(hbck("--json t"), 0);
    shell("is_disabled 't'");
    expect("true", "is_disabled");

    /* ENABLING: the master dies after writing it; the next master's open of one region is
     * held on its server. */
    char mark[1024];
    snprintf(mark, sizeof(mark), "%s/root/inject-open-pause", tc_dir(C));
    assert_int_equal(fio_write_atomic(mark, "", 0), ST_OK);
    ddl_kills_master(true);
    assert_int_equal(tc_restart(C, "master-1"), ST_OK);
    wait_finding("--stuck-ms 2000", 1,
                 "ERROR: TABLE_STUCK_ENABLING table=default:t: table "
                 "ENABLING for",
                 30, "stuck enabling");
    assert_true(!fio_exists(mark)); /* the held open took it */
    assert_int_equal(hbck("setTableState t ENABLED"), 0);
    expect("previous state ENABLING", "setTableState");
    wait_ok("--stuck-ms 2000", 40, "enabled by hand");
    shell("is_enabled 't'");
    expect("true", "is_enabled");
    check_rows("after enabling");
    assert_int_equal(tc_stop(C), ST_OK);
    C = NULL;
}

int main(void)
{
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_hbck_stuck", "STRATA_BIN is not set (ctest sets it)");
    if (!tu_have_zookeeper())
        return tu_skip_all("test_hbck_stuck", "no ZooKeeper");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(held_recovery_refuses_assigns),
        cmocka_unit_test(table_stuck_after_master_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
