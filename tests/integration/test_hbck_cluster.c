/*
 * test_hbck_cluster.c - `strata hbck` against a real local cluster (docs/hbck.md): a fresh cluster
 * with a table is consistent; then each inconsistency is made in the real cluster, the
 * report (the real `strata hbck` binary, exit status and lines) names it, the repair mends
 * it and the report is OK again:
 *
 *   a meta row removed (setRegionState --remove-row)  HOLE + ORPHAN_REGION_DIR -> fixMeta
 *   an empty orphan region directory                  ORPHAN_REGION_DIR        -> fixMeta
 *   a region closed on its server behind the master   NOT_DEPLOYED             -> assigns
 *   the table state set by hand (setTableState)       regions follow it        -> ENABLED
 *   a reference file to a region that never was       LINGERING_REFERENCE_FILE -> filesystem --fix
 *   a WAL directory of a server that never ran        ORPHAN_WAL_DIR           ->
 * scheduleRecoveries
 *
 * and the refusals (unknown region, unknown procedure, a live server's recovery) exit 1.
 * The rows written before stay readable throughout. Needs STRATA_BIN (ctest sets it).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/admin_rpc.h"
#include "common/buf.h"
#include "common/fileio.h"
#include "common/rpc/rpc_client.h"
#include "common/status.h"
#include "tests/support/cluster.h"
#include "tests/support/testutil.h"

static const char *const FLAGS[] = {
    /* the chore would otherwise reopen a region closed behind its back within seconds */
    "--master.reconcile.grace.ms=600000",
    "--regionserver.report.interval.ms=500",
    NULL,
};

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
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(OUT, 1, sizeof(OUT) - 1, p);
    OUT[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int hbck(const char *args)
{
    return run_strata("hbck --zk.quorum %s --zk.parent %s %s", tc_quorum(C), tc_parent(C), args);
}

/* Waits (up to 20 s) until the report is OK. */
static void wait_ok(const char *what)
{
    for (int i = 0; i < 80; i++) {
        if (hbck("") == 0)
            return;
        usleep(250 * 1000);
    }
    fail_msg("%s: hbck never became consistent:\n%s", what, OUT);
}

static void expect(int status, const char *needle, const char *what)
{
    if (!strstr(OUT, needle))
        fail_msg("%s: expected \"%s\" in:\n%s", what, needle, OUT);
    (void)status;
}

static void shell(const char *cmd)
{
    int st = run_strata("shell --zk.quorum %s --zk.parent %s -e \"%s\"", tc_quorum(C), tc_parent(C),
                        cmd);
    if (st != 0)
        fail_msg("shell %s: %d\n%s", cmd, st, OUT);
}

/* The table's regions (encoded names, servers) by start key "", "g", "p". */
static void regions(char enc[3][64], char addr[3][300])
{
    admin_rpc *a = NULL;
    assert_int_equal(admin_rpc_open(tc_quorum(C), tc_parent(C), &a), ST_OK);
    Strata__Master__GetTableRegionsResponse *r = NULL;
    assert_int_equal(admin_rpc_table_regions(a, "t", &r), ST_OK);
    assert_int_equal(r->n_location, 3);
    for (size_t i = 0; i < 3; i++) {
        snprintf(enc[i], 64, "%s", r->location[i]->region->encoded_name);
        addr[i][0] = 0;
        if (r->location[i]->server)
            snprintf(addr[i], 300, "%s:%u", r->location[i]->server->host,
                     r->location[i]->server->port);
    }
    admin_rpc_free_msg(r);
    admin_rpc_close(a);
}

static void check_rows(const char *what)
{
    shell("get 't', 'a'");
    if (!strstr(OUT, "value=va"))
        fail_msg("%s: row a lost:\n%s", what, OUT);
    shell("get 't', 'h'");
    if (!strstr(OUT, "value=vh"))
        fail_msg("%s: row h lost:\n%s", what, OUT);
}

static void fresh_cluster_is_consistent(void)
{
    shell("create 't', 'cf', SPLITS => ['g', 'p']");
    shell("put 't', 'a', 'cf:q', 'va'");
    shell("put 't', 'h', 'cf:q', 'vh'");
    shell("flush 't'");
    assert_int_equal(hbck(""), 0);
    expect(0, "Status: OK", "fresh");
    assert_int_equal(hbck("--json t"), 0);
    expect(0, "\"status\":\"OK\"", "json");
    assert_int_equal(
        run_strata("shell --zk.quorum %s --zk.parent %s -e hbck", tc_quorum(C), tc_parent(C)), 0);
    expect(0, "Status: OK", "shell hbck");
}

static void missing_meta_row(void)
{
    char enc[3][64], addr[3][300], args[256];
    regions(enc, addr);
    snprintf(args, sizeof(args), "setRegionState %s --remove-row", enc[1]);
    assert_int_equal(hbck(args), 0);
    assert_int_equal(hbck(""), 1);
    expect(1, "ERROR: HOLE_IN_REGION_CHAIN table=default:t", "hole");
    char orphan[128];
    snprintf(orphan, sizeof(orphan), "ORPHAN_REGION_DIR table=default:t region=%s", enc[1]);
    expect(1, orphan, "orphan of the removed row");
    expect(1, "Status: INCONSISTENT", "hole");
    assert_int_equal(hbck("fixMeta"), 0);
    expect(0, "added the row of orphan directory", "fixMeta");
    wait_ok("missing meta row");
    char now[3][64];
    regions(now, addr);
    assert_string_equal(now[1], enc[1]); /* the same region, with its data */
    check_rows("missing meta row");
}

static void orphan_dir(void)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/root/data/default/t/0123456789abcdef0123456789abcdef/cf",
             tc_dir(C));
    assert_int_equal(fio_mkdirs(path), ST_OK);
    assert_int_equal(hbck(""), 1);
    expect(1, "ORPHAN_REGION_DIR table=default:t region=0123456789abcdef0123456789abcdef",
           "orphan dir");
    assert_int_equal(hbck("fixMeta"), 0);
    expect(0, "removed empty orphan directory", "fixMeta");
    wait_ok("orphan dir");
    assert_false(fio_exists(path));
    /* Regression: an orphan holding only a flush's .tmp counts as empty for the report,
     * but fixMeta must not delete the file with the directory. */
    char tmpf[1100];
    snprintf(tmpf, sizeof(tmpf), "%s/x.tmp", path);
    assert_int_equal(fio_mkdirs(path), ST_OK);
    assert_int_equal(fio_write_atomic(tmpf, "partial", 7), ST_OK);
    hbck("fixMeta");
    expect(1, "is no longer empty", "fixMeta with a .tmp in the orphan");
    assert_true(fio_exists(tmpf));
    assert_int_equal(fio_unlink(tmpf), ST_OK);
    hbck("fixMeta");
    expect(0, "removed empty orphan directory", "fixMeta after the .tmp went");
    wait_ok("orphan dir emptied");
    assert_false(fio_exists(path));
}

static void closed_behind_the_masters_back(void)
{
    char enc[3][64], addr[3][300];
    regions(enc, addr);
    rpc_client *rpc = NULL;
    assert_int_equal(rpc_client_new(NULL, &rpc), ST_OK);
    Strata__Admin__CloseRegionRequest req = STRATA__ADMIN__CLOSE_REGION_REQUEST__INIT;
    req.encoded_name = enc[2];
    buf_t body = {0}, out = {0};
    assert_int_equal(buf_reserve(&body, protobuf_c_message_get_packed_size(&req.base)), ST_OK);
    body.len = protobuf_c_message_pack(&req.base, body.data);
    assert_int_equal(
        rpc_client_call(rpc, addr[2], "AdminService.CloseRegion", body.data, body.len, 10000, &out),
        ST_OK);
    buf_free(&body);
    buf_free(&out);
    rpc_client_free(rpc);
    assert_int_equal(hbck(""), 1);
    char line[128];
    snprintf(line, sizeof(line), "ERROR: NOT_DEPLOYED table=default:t region=%s", enc[2]);
    expect(1, line, "not deployed");
    char args[128];
    snprintf(args, sizeof(args), "assigns %s", enc[2]);
    assert_int_equal(hbck(args), 0);
    wait_ok("assigns");
}

static void table_state_by_hand(void)
{
    assert_int_equal(hbck("setTableState t DISABLED"), 0);
    expect(0, "previous state ENABLED", "setTableState");
    wait_ok("disabled by hand"); /* the chore closes every region */
    assert_int_equal(hbck("setTableState t ENABLED"), 0);
    wait_ok("enabled by hand");
    assert_int_equal(hbck("setTableState t NOSUCH"), 1);
    check_rows("table state");
}

static void lingering_reference(void)
{
    char enc[3][64], addr[3][300], path[1024];
    regions(enc, addr);
    snprintf(
        path, sizeof(path),
        "%s/root/data/default/t/%s/cf/00000000000000010000000a.fedcba9876543210fedcba9876543210",
        tc_dir(C), enc[0]);
    assert_int_equal(fio_write_atomic(path, "x", 1), ST_OK);
    assert_int_equal(hbck(""), 1);
    expect(1, "LINGERING_REFERENCE_FILE table=default:t", "reference");
    assert_int_equal(hbck("filesystem --fix"), 0);
    expect(0, "sidelined", "filesystem --fix");
    wait_ok("reference");
    assert_false(fio_exists(path));
}

static void orphan_wal_dir(void)
{
    char path[1024];
    snprintf(path, sizeof(path), "%s/root/WALs/127.0.0.1,1,1000", tc_dir(C));
    assert_int_equal(fio_mkdirs(path), ST_OK);
    /* The master's chore also finds such directories (every 5 s): either may act first. */
    if (hbck("") == 1)
        expect(1, "ORPHAN_WAL_DIR server=127.0.0.1,1,1000", "orphan WAL");
    assert_int_equal(hbck("scheduleRecoveries 127.0.0.1,1,1000"), 0);
    wait_ok("orphan WAL");
    assert_false(fio_exists(path));
}

static void refusals(void)
{
    assert_int_equal(hbck("setRegionState 00000000000000000000000000000000 CLOSED"), 1);
    expect(1, "unknown", "unknown region");
    assert_int_equal(hbck("bypass 12345"), 1);
    expect(1, "neither running nor in meta", "bypass");
    char enc[3][64], addr[3][300];
    regions(enc, addr);
    admin_rpc *a = NULL;
    assert_int_equal(admin_rpc_open(tc_quorum(C), tc_parent(C), &a), ST_OK);
    Strata__Master__GetTableRegionsResponse *r = NULL;
    assert_int_equal(admin_rpc_table_regions(a, "t", &r), ST_OK);
    char live[400], args[512];
    snprintf(live, sizeof(live), "%s,%u,%llu", r->location[0]->server->host,
             r->location[0]->server->port, (unsigned long long)r->location[0]->server->start_code);
    admin_rpc_free_msg(r);
    admin_rpc_close(a);
    snprintf(args, sizeof(args), "scheduleRecoveries %s", live);
    assert_int_equal(hbck(args), 1);
    expect(1, "is live", "live server");
    assert_int_equal(hbck("nosuchtable"), 2);
    wait_ok("after refusals");
}

/* A split held at its CLOSE_PARENT step (master.inject.pause) is a running procedure
 * that does not move: hbck reports it STUCK_PROCEDURE past --stuck-ms; `bypass` refuses it
 * without --override and marks it bypassed with; the split then stops before the parent
 * changes, and the cluster is consistent with every row. */
static void stuck_split_is_bypassed(void **state)
{
    (void)state;
    static const char *const flags[] = {
        "--master.inject.pause=SplitTableRegionProcedure:CLOSE_PARENT",
        "--master.inject.pause.ms=12000", NULL};
    tc_options o = {.regionservers = 2, .flags = flags};
    if (tc_start(&o, &C) != ST_OK)
        fail_msg("cluster start: %s", st_errmsg());
    shell("create 't', 'cf'");
    shell("put 't', 'a', 'cf:q', 'va'");
    shell("put 't', 'h', 'cf:q', 'vh'");
    char cmd[2048];
    snprintf(cmd, sizeof(cmd),
             "'%s' shell -n --zk.quorum %s --zk.parent %s -e \"split 't', 'm'\" "
             ">/dev/null 2>&1 &",
             getenv("STRATA_BIN"), tc_quorum(C), tc_parent(C));
    assert_int_equal(system(cmd), 0);
    unsigned long long id = 0;
    for (int i = 0; i < 40 && !id; i++) {
        usleep(250 * 1000);
        if (hbck("--stuck-ms 1000") == 1) {
            const char *p = strstr(OUT, "STUCK_PROCEDURE");
            p = p ? strstr(p, "procedure ") : NULL;
            if (p)
                id = strtoull(p + 10, NULL, 10);
        }
    }
    if (!id)
        fail_msg("no STUCK_PROCEDURE reported:\n%s", OUT);
    char args[128];
    snprintf(args, sizeof(args), "bypass %llu", id);
    assert_int_equal(hbck(args), 1);
    expect(1, "--override", "bypass of a running procedure");
    snprintf(args, sizeof(args), "bypass %llu --override", id);
    assert_int_equal(hbck(args), 0);
    /* The pause ends; the split's next write fails and it stops: no procedure is left, and
     * the table is whole. */
    for (int i = 0; i < 120; i++) {
        if (hbck("--stuck-ms 1000") == 0)
            break;
        usleep(250 * 1000);
    }
    assert_int_equal(hbck("--stuck-ms 1000"), 0);
    check_rows("after the bypass");
    assert_int_equal(tc_stop(C), ST_OK);
    C = NULL;
}

static void hbck_finds_and_mends(void **state)
{
    (void)state;
    tc_options o = {.regionservers = 3, .flags = FLAGS};
    if (tc_start(&o, &C) != ST_OK)
        fail_msg("cluster start: %s", st_errmsg());
    fresh_cluster_is_consistent();
    missing_meta_row();
    orphan_dir();
    closed_behind_the_masters_back();
    table_state_by_hand();
    lingering_reference();
    orphan_wal_dir();
    refusals();
    assert_int_equal(tc_stop(C), ST_OK);
    C = NULL;
}

/* A region server killed and started again on its host and port: its old znode lives until
 * its session expires (20 s here), but its address reaches the new process, so hbck must
 * not ask it as a second server (every region it serves would be MULTI_DEPLOYED). */
static void restarted_server_is_not_counted_twice(void **state)
{
    (void)state;
    tc_options o = {.regionservers = 2, .flags = FLAGS, .session_timeout_ms = 20000};
    if (tc_start(&o, &C) != ST_OK)
        fail_msg("cluster start: %s", st_errmsg());
    fresh_cluster_is_consistent();
    assert_int_equal(tc_kill(C, "rs-1"), ST_OK);
    assert_int_equal(tc_restart(C, "rs-1"), ST_OK);
    bool ok = false;
    for (int i = 0; i < 60 && !ok; i++) { /* 15 s: well inside the old session */
        ok = hbck("") == 0;
        if (strstr(OUT, "MULTI_DEPLOYED"))
            fail_msg("a restarted server counted twice:\n%s", OUT);
        if (!ok)
            usleep(250 * 1000);
    }
    if (!ok)
        fail_msg("hbck never became consistent after the restart:\n%s", OUT);
    assert_int_equal(tc_stop(C), ST_OK);
    C = NULL;
}

int main(void)
{
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_hbck_cluster", "STRATA_BIN is not set (ctest sets it)");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hbck_finds_and_mends),
        cmocka_unit_test(stuck_split_is_bypassed),
        cmocka_unit_test(restarted_server_is_not_counted_twice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
