/*
 * test_client.c - the C client (strata/strata.h) against two real `strata regionserver`
 * processes on loopback sharing one root directory. Table "t" (families f and g) is split
 * into four regions at "g", "n", "t", placed r1, r3 on server 0 and r2, r4 on server 1 by
 * AdminService.OpenRegion, and found through a region location file.
 *
 * Tests: every single-row operation (put, get with versions / time range / columns /
 * filter, the four deletes, check-and-mutate, increment, append, a non-retryable error
 * surfacing at once); scans crossing all four regions on both servers, forward and
 * reversed, clamped by start/stop, limited, and with batch (partial rows); a batch over
 * all regions with a per-action failure; the buffered mutator; scan metrics over the four
 * regions (rows scanned and filtered by the servers, regions, RPCs, retries, bytes) and
 * operation attributes on every kind of operation, a region server refusing raw calls
 * whose attribute set passes a bound; and the move drill: a thread writes and reads
 * through the client for 3 s while region r1 is closed on server 0, opened on server 1
 * and the location file rewritten; the client must surface no error
 * and every acknowledged write must be readable afterwards. (The example program,
 * examples/put_get.c, creates its own table through the master: test_install.c runs it
 * on a whole cluster.) Scans that are mid-row (batch) or between rows when their region moves resume without
 * an error, a lost cell or a repeated one, forward and reversed.
 *
 * The servers are killed at the end, on failure too (group teardown, and at exit with
 * SIGKILL: tests/support/proc.h). Waits are bounded. Needs STRATA_BIN (set by CTest): skipped
 * without it (exit 77), as is the example without its program built.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/proto/admin.pb-c.h"
#include "common/proto/client.pb-c.h"
#include "common/rpc/rpc_client.h"
#include "common/status.h"
#include "strata/strata.h"
#include "tests/support/proc.h"
#include "tests/support/testutil.h"

#define NSERVERS 2
#define NREGIONS 4

typedef struct region_def {
    const char *name, *start, *end; /* keys as strings, "" = unbounded */
    int server;
} region_def;

static region_def regions[NREGIONS] = {
    {"r1", "", "g", 0}, {"r2", "g", "n", 1}, {"r3", "n", "t", 0}, {"r4", "t", "", 1}};

static struct {
    char *dir;
    char locfile[600];
    pid_t pid[NSERVERS];
    char addr[NSERVERS][64];
    rpc_client *admin;
    strata_client_t *client;
    strata_table_t *table;
} g;

/* ---- processes ---- */

static void kill_servers(void)
{
    for (int i = 0; i < NSERVERS; i++) {
        proc_kill(g.pid[i], NULL);
        g.pid[i] = 0;
    }
}

static pid_t spawn_server(int i)
{
    char root[700], ready[700], log[600];
    snprintf(root, sizeof(root), "--root.dir=%s/root", g.dir);
    snprintf(ready, sizeof(ready), "--regionserver.ready.file=%s/ready%d", g.dir, i);
    snprintf(log, sizeof(log), "%s/server%d.log", g.dir, i);
    const char *argv[] = {getenv("STRATA_BIN"),
                          "regionserver",
                          root,
                          "--regionserver.host=127.0.0.1",
                          "--regionserver.port=0",
                          "--regionserver.scanner.lease.ms=1500",
                          ready,
                          NULL};
    proc_spec spec = {.argv = argv, .log = log, .log_truncate = true, .kill_at_exit = true};
    pid_t pid = 0;
    if (proc_spawn(&spec, &pid) != ST_OK)
        fprintf(stderr, "spawn server %d: %s\n", i, st_errmsg());
    return pid;
}

/* Waits (at most 20 s) for server i's ready file; ST_OK, or a failure with the reason. */
static int wait_ready(int i)
{
    char ready[600], log[600];
    snprintf(ready, sizeof(ready), "%s/ready%d", g.dir, i);
    snprintf(log, sizeof(log), "%s/server%d.log", g.dir, i);
    for (int waited = 0; waited < 20000; waited += 20) {
        FILE *f = fopen(ready, "r");
        if (f) {
            char line[64] = "";
            bool ok = fgets(line, sizeof(line), f) && strchr(line, '\n');
            fclose(f);
            if (ok) {
                line[strcspn(line, "\n")] = '\0';
                snprintf(g.addr[i], sizeof(g.addr[i]), "%s", line);
                return ST_OK;
            }
        }
        if (g.pid[i] <= 0 || proc_wait(g.pid[i], 0, NULL) == ST_OK) {
            g.pid[i] = 0;
            return st_error(ST_IO, "server %d exited before it was ready (log %s)", i, log);
        }
        clock_sleep_ms(20);
    }
    return st_error(ST_TIMEOUT, "server %d not ready after 20 s (log %s)", i, log);
}

/* ---- admin calls ---- */

static void hexkey(const char *k, char *out)
{
    if (!k[0]) {
        strcpy(out, "-");
        return;
    }
    for (; *k; k++, out += 2)
        sprintf(out, "%02x", (unsigned char)*k);
}

/* Writes the location file (atomically: temp file + rename). */
static void write_locations(void)
{
    char tmp[700];
    snprintf(tmp, sizeof(tmp), "%s.tmp", g.locfile);
    FILE *f = fopen(tmp, "w");
    assert_non_null(f);
    fprintf(f, "# table encoded_name start end server\n");
    for (int i = 0; i < NREGIONS; i++) {
        char s[64], e[64];
        hexkey(regions[i].start, s);
        hexkey(regions[i].end, e);
        fprintf(f, "t %s %s %s %s\n", regions[i].name, s, e, g.addr[regions[i].server]);
    }
    assert_int_equal(fclose(f), 0);
    assert_int_equal(rename(tmp, g.locfile), 0);
}

static int admin_call(int server, const char *method, const ProtobufCMessage *req, buf_t *resp)
{
    size_t n = protobuf_c_message_get_packed_size(req);
    uint8_t *body = malloc(n + 1);
    protobuf_c_message_pack(req, body);
    int rc = rpc_client_call(g.admin, g.addr[server], method, body, n, 30000, resp);
    free(body);
    return rc;
}

static int open_region(const region_def *r, int server)
{
    Strata__Admin__OpenRegionRequest req = STRATA__ADMIN__OPEN_REGION_REQUEST__INIT;
    Strata__Admin__OpenRegionRequest__RegionOpenInfo oi =
        STRATA__ADMIN__OPEN_REGION_REQUEST__REGION_OPEN_INFO__INIT;
    Strata__Admin__OpenRegionRequest__RegionOpenInfo *ois[1] = {&oi};
    Strata__Admin__RegionInfo info = STRATA__ADMIN__REGION_INFO__INIT;
    Strata__Admin__TableSchema schema = STRATA__ADMIN__TABLE_SCHEMA__INIT;
    Strata__Admin__ColumnFamilySchema f = STRATA__ADMIN__COLUMN_FAMILY_SCHEMA__INIT;
    Strata__Admin__ColumnFamilySchema gf = STRATA__ADMIN__COLUMN_FAMILY_SCHEMA__INIT;
    Strata__Admin__ColumnFamilySchema *fams[2] = {&f, &gf};
    buf_t resp = {0};
    info.table = "t";
    info.encoded_name = (char *)r->name;
    info.has_start_key = info.has_end_key = 1;
    info.start_key = (ProtobufCBinaryData){strlen(r->start), (uint8_t *)r->start};
    info.end_key = (ProtobufCBinaryData){strlen(r->end), (uint8_t *)r->end};
    info.has_region_id = 1;
    info.region_id = 1;
    f.name = "f";
    f.has_versions = 1;
    f.versions = 3;
    gf.name = "g";
    schema.name = "t";
    schema.n_family = 2;
    schema.family = fams;
    oi.region = &info;
    oi.schema = &schema;
    req.n_open_info = 1;
    req.open_info = ois;
    int rc = admin_call(server, "AdminService.OpenRegion", &req.base, &resp);
    if (rc == ST_OK) {
        Strata__Admin__OpenRegionResponse * or
            = strata__admin__open_region_response__unpack(NULL, resp.len, resp.data);
        if (! or || or->n_opening_state != 1 ||
            or
                ->opening_state[0] !=
                    STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__OPENED)
            rc = st_error(ST_INTERNAL, "OpenRegion %s on server %d did not open it", r->name,
                          server);
        if (or)
            strata__admin__open_region_response__free_unpacked(or, NULL);
    }
    buf_free(&resp);
    return rc;
}

static int close_region(const region_def *r, int server)
{
    Strata__Admin__CloseRegionRequest req = STRATA__ADMIN__CLOSE_REGION_REQUEST__INIT;
    buf_t resp = {0};
    req.encoded_name = (char *)r->name;
    req.has_flush = 1;
    req.flush = 1;
    int rc = admin_call(server, "AdminService.CloseRegion", &req.base, &resp);
    buf_free(&resp);
    return rc;
}

/* ---- setup ---- */

static int group_setup(void **state)
{
    signal(SIGPIPE, SIG_IGN);
    g.dir = tu_tempdir("client-it");
    snprintf(g.locfile, sizeof(g.locfile), "%s/regions.txt", g.dir);
    for (int i = 0; i < NSERVERS; i++)
        g.pid[i] = spawn_server(i);
    for (int i = 0; i < NSERVERS; i++)
        if (wait_ready(i) != ST_OK) {
            fprintf(stderr, "setup: %s\n", st_errmsg());
            return -1;
        }
    if (rpc_client_new(NULL, &g.admin) != ST_OK)
        return -1;
    for (int i = 0; i < NREGIONS; i++)
        if (open_region(&regions[i], regions[i].server) != ST_OK) {
            fprintf(stderr, "setup: %s\n", st_errmsg());
            return -1;
        }
    write_locations();
    char *err = NULL;
    strata_options_t *o = strata_options_create();
    strata_options_set_locator_file(o, g.locfile);
    strata_options_set_operation_timeout_ms(o, 30000);
    strata_options_set_rpc_timeout_ms(o, 5000);
    g.client = strata_client_open(o, &err);
    strata_options_destroy(o);
    if (!g.client) {
        fprintf(stderr, "setup: %s\n", err);
        strata_free(err);
        return -1;
    }
    g.table = strata_table_open(g.client, "t");
    return 0;
}

/* SIGTERM, then kill -9 if it has not exited within 10 s. */
static void stop_server(int i)
{
    if (g.pid[i] <= 0)
        return;
    proc_signal(g.pid[i], SIGTERM);
    if (proc_wait(g.pid[i], 10000, NULL) != ST_OK)
        proc_kill(g.pid[i], NULL);
    g.pid[i] = 0;
}

static int group_teardown(void **state)
{
    strata_table_close(g.table);
    strata_client_close(g.client);
    rpc_client_free(g.admin);
    for (int i = 0; i < NSERVERS; i++)
        stop_server(i);
    kill_servers();
    tu_rmdir(g.dir);
    return 0;
}

/* ---- helpers ---- */

static void check_ok(char **err, const char *what)
{
    if (*err)
        fail_msg("%s: %s", what, *err);
}

static void put1(const char *row, const char *fam, const char *qual, int64_t ts, const char *val)
{
    char *err = NULL;
    strata_mutation_t *m = strata_put_create(row, strlen(row));
    strata_put_add(m, fam, strlen(fam), qual, strlen(qual), ts, val, strlen(val));
    strata_table_put(g.table, m, &err);
    strata_mutation_destroy(m);
    check_ok(&err, row);
}

static strata_result_t *get1(strata_get_t *gt)
{
    char *err = NULL;
    strata_result_t *r = strata_table_get(g.table, gt, &err);
    check_ok(&err, "get");
    assert_non_null(r);
    strata_get_destroy(gt);
    return r;
}

/* The newest value of row fam:qual as a C string ("" if absent), into buf. */
static const char *value_of(const char *row, const char *fam, const char *qual, char *buf,
                            size_t cap)
{
    strata_result_t *r = get1(strata_get_create(row, strlen(row)));
    size_t len = 0;
    const char *v = strata_result_value(r, fam, strlen(fam), qual, strlen(qual), &len);
    snprintf(buf, cap, "%.*s", v ? (int)len : 0, v ? v : "");
    strata_result_destroy(r);
    return buf;
}

static void mutate(strata_mutation_t *m)
{
    char *err = NULL;
    strata_table_mutate(g.table, m, &err);
    strata_mutation_destroy(m);
    check_ok(&err, "mutate");
}

/* ---- single-row operations ---- */

static void put_get_versions_ranges_filters(void **state)
{
    char v[64];
    put1("b1", "f", "q1", 100, "v100");
    put1("b1", "f", "q1", 200, "v200");
    put1("b1", "f", "q1", 300, "v300");
    put1("b1", "g", "x", STRATA_LATEST_TIMESTAMP, "gx");
    assert_string_equal(value_of("b1", "f", "q1", v, sizeof(v)), "v300");

    strata_get_t *gt = strata_get_create("b1", 2);
    strata_get_add_column(gt, "f", 1, "q1", 2);
    strata_get_set_max_versions(gt, 3);
    strata_result_t *r = get1(gt);
    assert_int_equal(strata_result_cell_count(r), 3);
    assert_int_equal(strata_result_cell_timestamp(r, 0), 300);
    assert_int_equal(strata_result_cell_timestamp(r, 2), 100);
    size_t len;
    assert_memory_equal(strata_result_row(r, &len), "b1", 2);
    strata_result_destroy(r);

    gt = strata_get_create("b1", 2);
    strata_get_set_max_versions(gt, 3);
    strata_get_set_time_range(gt, 150, 250);
    r = get1(gt);
    assert_int_equal(strata_result_cell_count(r), 1);
    assert_memory_equal(strata_result_cell_value(r, 0, &len), "v200", 4);
    strata_result_destroy(r);

    gt = strata_get_create("b1", 2);
    strata_get_add_column(gt, "g", 1, NULL, 0);
    r = get1(gt);
    assert_int_equal(strata_result_cell_count(r), 1);
    assert_memory_equal(strata_result_cell_family(r, 0, &len), "g", 1);
    strata_result_destroy(r);

    put1("b2", "f", "q1", STRATA_LATEST_TIMESTAMP, "apple");
    put1("b2", "f", "q2", STRATA_LATEST_TIMESTAMP, "banana");
    gt = strata_get_create("b2", 2);
    strata_get_set_filter(gt, "QualifierFilter(=, 'binary:q2')");
    r = get1(gt);
    assert_int_equal(strata_result_cell_count(r), 1);
    assert_memory_equal(strata_result_cell_value(r, 0, &len), "banana", 6);
    strata_result_destroy(r);

    r = get1(strata_get_create("nothing-here", 12));
    assert_int_equal(strata_result_cell_count(r), 0);
    strata_result_destroy(r);
}

static void deletes_version_column_family_row(void **state)
{
    char v[64];
    strata_mutation_t *d = strata_delete_create("b1", 2);
    strata_delete_version(d, "f", 1, "q1", 2, 300);
    mutate(d);
    assert_string_equal(value_of("b1", "f", "q1", v, sizeof(v)), "v200");

    d = strata_delete_create("b1", 2);
    strata_delete_column(d, "f", 1, "q1", 2, STRATA_LATEST_TIMESTAMP);
    mutate(d);
    assert_string_equal(value_of("b1", "f", "q1", v, sizeof(v)), "");
    assert_string_equal(value_of("b1", "g", "x", v, sizeof(v)), "gx");

    d = strata_delete_create("b1", 2);
    strata_delete_family(d, "g", 1, STRATA_LATEST_TIMESTAMP);
    mutate(d);
    assert_string_equal(value_of("b1", "g", "x", v, sizeof(v)), "");

    put1("b3", "g", "y", STRATA_LATEST_TIMESTAMP, "gy");
    put1("b3", "f", "z", STRATA_LATEST_TIMESTAMP, "fz");
    mutate(strata_delete_create("b3", 2)); /* the whole row */
    strata_result_t *r = get1(strata_get_create("b3", 2));
    assert_int_equal(strata_result_cell_count(r), 0);
    strata_result_destroy(r);
}

static void check_and_mutate_increment_append(void **state)
{
    char *err = NULL, v[64];
    strata_mutation_t *m = strata_put_create("c1", 2);
    strata_put_add(m, "f", 1, "q", 1, STRATA_LATEST_TIMESTAMP, "v1", 2);
    assert_int_equal(
        strata_table_check_and_mutate(g.table, "f", 1, "q", 1, STRATA_EQUAL, NULL, 0, m, &err), 1);
    check_ok(&err, "cam absent");
    assert_int_equal(
        strata_table_check_and_mutate(g.table, "f", 1, "q", 1, STRATA_EQUAL, NULL, 0, m, &err), 0);
    strata_mutation_destroy(m);
    m = strata_put_create("c1", 2);
    strata_put_add(m, "f", 1, "q", 1, STRATA_LATEST_TIMESTAMP, "v2", 2);
    assert_int_equal(
        strata_table_check_and_mutate(g.table, "f", 1, "q", 1, STRATA_EQUAL, "zz", 2, m, &err), 0);
    assert_int_equal(
        strata_table_check_and_mutate(g.table, "f", 1, "q", 1, STRATA_EQUAL, "v1", 2, m, &err), 1);
    strata_mutation_destroy(m);
    check_ok(&err, "cam");
    assert_string_equal(value_of("c1", "f", "q", v, sizeof(v)), "v2");

    assert_int_equal(strata_table_increment(g.table, "i1", 2, "f", 1, "n", 1, 5, &err), 5);
    assert_int_equal(strata_table_increment(g.table, "i1", 2, "f", 1, "n", 1, 10, &err), 15);
    assert_int_equal(strata_table_increment(g.table, "i1", 2, "f", 1, "n", 1, -3, &err), 12);
    check_ok(&err, "increment");

    size_t len = 0;
    char *s = strata_table_append(g.table, "a1", 2, "f", 1, "ap", 2, "ab", 2, &len, &err);
    check_ok(&err, "append");
    assert_int_equal(len, 2);
    strata_free(s);
    s = strata_table_append(g.table, "a1", 2, "f", 1, "ap", 2, "cd", 2, &len, &err);
    check_ok(&err, "append");
    assert_int_equal(len, 4);
    assert_memory_equal(s, "abcd", 4);
    strata_free(s);
}

/* A final error (unknown family) surfaces at once, not after the retries. */
static void unknown_family_fails_without_retry(void **state)
{
    char *err = NULL;
    uint64_t t0 = clock_mono_ns();
    strata_mutation_t *m = strata_put_create("u1", 2);
    strata_put_add(m, "nofam", 5, "q", 1, STRATA_LATEST_TIMESTAMP, "v", 1);
    strata_table_put(g.table, m, &err);
    strata_mutation_destroy(m);
    assert_non_null(err);
    assert_non_null(strstr(err, "unknown column family"));
    strata_free(err);
    assert_true(clock_mono_ns() - t0 < 2000000000ull);
}

/* ---- scans ---- */

/* Rows "<letter>-scan-<k>" for every letter and k < 2, each with f:s = row, and every
 * k = 0 row with five cells g:c0..g:c4: 52 rows over all four regions. */
static void load_scan_rows(void)
{
    char *err = NULL;
    strata_batch_t *b = strata_batch_create();
    for (char c = 'a'; c <= 'z'; c++)
        for (int k = 0; k < 2; k++) {
            char row[32];
            snprintf(row, sizeof(row), "%c-scan-%d", c, k);
            strata_mutation_t *m = strata_put_create(row, strlen(row));
            strata_put_add(m, "f", 1, "s", 1, STRATA_LATEST_TIMESTAMP, row, strlen(row));
            for (int q = 0; k == 0 && q < 5; q++) {
                char qual[4] = {'c', (char)('0' + q), 0};
                strata_put_add(m, "g", 1, qual, 2, STRATA_LATEST_TIMESTAMP, "x", 1);
            }
            strata_batch_add_mutation(b, m);
            strata_mutation_destroy(m);
        }
    strata_table_batch(g.table, b, &err);
    strata_batch_destroy(b);
    check_ok(&err, "load scan rows");
}

/* Scans column f:s with the given bounds; the rows' names go into rows (joined by ',')
 * and the count is returned. */
static int scan_rows(const char *start, const char *stop, bool reversed, uint64_t limit, char *rows,
                     size_t cap)
{
    char *err = NULL;
    strata_scan_t *s = strata_scan_create();
    strata_scan_add_column(s, "f", 1, "s", 1);
    if (start)
        strata_scan_set_start(s, start, strlen(start));
    if (stop)
        strata_scan_set_stop(s, stop, strlen(stop));
    strata_scan_set_reversed(s, reversed);
    strata_scan_set_limit(s, limit);
    strata_scan_set_caching(s, 3);
    strata_scanner_t *sc = strata_table_scan(g.table, s, &err);
    strata_scan_destroy(s);
    check_ok(&err, "scan open");
    int n = 0;
    strata_result_t *r;
    rows[0] = '\0';
    while ((r = strata_scanner_next(sc, &err)) != NULL) {
        size_t len, used = strlen(rows);
        const char *row = strata_result_row(r, &len);
        snprintf(rows + used, cap - used, "%s%.*s", n ? "," : "", (int)len, row);
        n++;
        strata_result_destroy(r);
    }
    strata_scanner_close(sc);
    check_ok(&err, "scan");
    return n;
}

static void scan_crosses_regions_forward_and_reversed(void **state)
{
    static char rows[4096], want[4096];
    load_scan_rows();
    want[0] = '\0';
    for (char c = 'a'; c <= 'z'; c++)
        for (int k = 0; k < 2; k++)
            snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s%c-scan-%d",
                     want[0] ? "," : "", c, k);
    assert_int_equal(scan_rows(NULL, NULL, false, 0, rows, sizeof(rows)), 52);
    assert_string_equal(rows, want);

    assert_int_equal(scan_rows(NULL, NULL, true, 0, rows, sizeof(rows)), 52);
    assert_true(strncmp(rows, "z-scan-1,z-scan-0,y-scan-1", 26) == 0);
    assert_non_null(strstr(rows, "n-scan-0,m-scan-1,m-scan-0,l-scan-1"));
    assert_non_null(strstr(rows, "t-scan-0,s-scan-1"));
    assert_int_equal(strcmp(rows + strlen(rows) - 8, "a-scan-0"), 0);

    /* [f-scan-1, u) forward: f1 g0 g1 ... t0 t1 = 1 + 2*14 rows; reversed from u
     * (inclusive, not a row) down to f-scan-1 (exclusive). */
    assert_int_equal(scan_rows("f-scan-1", "u", false, 0, rows, sizeof(rows)), 29);
    assert_true(strncmp(rows, "f-scan-1,g-scan-0", 17) == 0);
    assert_int_equal(strcmp(rows + strlen(rows) - 8, "t-scan-1"), 0);
    assert_int_equal(scan_rows("u", "f-scan-1", true, 0, rows, sizeof(rows)), 28);
    assert_true(strncmp(rows, "t-scan-1,t-scan-0,s-scan-1", 26) == 0);
    assert_int_equal(strcmp(rows + strlen(rows) - 8, "g-scan-0"), 0);

    /* Start and stop on region boundaries. */
    assert_int_equal(scan_rows("g", "t", false, 0, rows, sizeof(rows)), 26);
    assert_int_equal(scan_rows("t", "g", true, 0, rows, sizeof(rows)), 26);
    assert_true(strncmp(rows, "s-scan-1", 8) == 0);

    /* Limits across regions. */
    assert_int_equal(scan_rows("e", NULL, false, 7, rows, sizeof(rows)), 7);
    assert_int_equal(strcmp(rows + strlen(rows) - 8, "h-scan-0"), 0);
    assert_int_equal(scan_rows("p", NULL, true, 5, rows, sizeof(rows)), 5);
    assert_string_equal(rows, "o-scan-1,o-scan-0,n-scan-1,n-scan-0,m-scan-1");
}

/* Regression: a caller slower than the scanner lease does not get an error: the
 * client reopens the expired server scanner at the exact row (servers here run with a
 * 1.5 s lease). */
static void scan_survives_expired_server_scanner(void **state)
{
    char *err = NULL;
    strata_scan_t *s = strata_scan_create();
    strata_scan_add_column(s, "f", 1, "s", 1);
    strata_scan_set_start(s, "a", 1);
    strata_scan_set_stop(s, "c", 1);
    strata_scan_set_caching(s, 1);
    strata_scanner_t *sc = strata_table_scan(g.table, s, &err);
    strata_scan_destroy(s);
    check_ok(&err, "scan open");
    const char *want[] = {"a-scan-0", "a-scan-1", "b-scan-0", "b-scan-1"};
    for (int i = 0; i < 4; i++) {
        strata_result_t *r = strata_scanner_next(sc, &err);
        check_ok(&err, "scan next");
        assert_non_null(r);
        size_t len;
        const char *row = strata_result_row(r, &len);
        assert_int_equal(len, strlen(want[i]));
        assert_memory_equal(row, want[i], len);
        strata_result_destroy(r);
        if (i == 1)
            clock_sleep_ms(2500); /* the lease runs out; the reaper closes the scanner */
    }
    assert_null(strata_scanner_next(sc, &err));
    check_ok(&err, "scan end");
    strata_scanner_close(sc);
}

/* ---- scan metrics and operation attributes ---- */

/* The value of metric name among m[0..n), or -1. */
static int64_t metric_of(const strata_scan_metric *m, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(m[i].name, name) == 0)
            return m[i].value;
    return -1;
}

/* Scans f:s (reversed or not, caching rows a call) with metrics on: the rows seen, the
 * bytes of their cells as HBase estimates them, and the metrics at the end. */
static int scan_with_metrics(bool reversed, uint32_t caching, int sleep_after, int64_t *bytes,
                             strata_scan_metric *m, size_t *n)
{
    char *err = NULL;
    strata_scan_t *s = strata_scan_create();
    strata_scan_add_column(s, "f", 1, "s", 1);
    strata_scan_set_reversed(s, reversed);
    strata_scan_set_caching(s, caching);
    strata_scan_set_metrics_enabled(s, 1);
    strata_scan_set_attribute(s, "trace", "t-1", 3, &err);
    check_ok(&err, "scan attribute");
    strata_scanner_t *sc = strata_table_scan(g.table, s, &err);
    strata_scan_destroy(s);
    check_ok(&err, "scan open");
    int rows = 0;
    strata_result_t *r;
    *bytes = 0;
    while ((r = strata_scanner_next(sc, &err)) != NULL) {
        for (size_t i = 0; i < strata_result_cell_count(r); i++) {
            size_t rl, fl, ql, vl;
            strata_result_cell_row(r, i, &rl);
            strata_result_cell_family(r, i, &fl);
            strata_result_cell_qualifier(r, i, &ql);
            strata_result_cell_value(r, i, &vl);
            *bytes += (int64_t)(24 + rl + fl + ql + vl);
        }
        strata_result_destroy(r);
        if (++rows == sleep_after)
            clock_sleep_ms(2500); /* the lease runs out; the reaper closes the scanner */
    }
    check_ok(&err, "scan");
    *n = strata_scanner_metrics(sc, m, STRATA_SCAN_METRICS_COUNT);
    strata_scanner_close(sc);
    return rows;
}

/* HBase's ScanMetrics over the four regions on two servers: rows scanned and filtered from
 * the servers (rows without f:s are scanned and filtered), a region each, an RPC at least
 * per region, nothing remote on loopback, the result bytes; a reopen after an expired
 * server scanner is a retry; a scan without metrics has none. */
static void scan_metrics_across_regions(void **state)
{
    strata_scan_metric m[STRATA_SCAN_METRICS_COUNT];
    size_t n;
    int64_t bytes;
    load_scan_rows();
    for (int reversed = 0; reversed < 2; reversed++) {
        int rows = scan_with_metrics(reversed, 5, -1, &bytes, m, &n);
        assert_int_equal(rows, 52);
        assert_int_equal(n, STRATA_SCAN_METRICS_COUNT);
        int64_t scanned = metric_of(m, n, "ROWS_SCANNED");
        assert_true(scanned >= 52);
        assert_int_equal(scanned - metric_of(m, n, "ROWS_FILTERED"), 52);
        assert_int_equal(metric_of(m, n, "REGIONS_SCANNED"), NREGIONS);
        assert_true(metric_of(m, n, "RPC_CALLS") >= (52 + 4) / 5); /* at most 5 rows a call */
        assert_int_equal(metric_of(m, n, "REMOTE_RPC_CALLS"), 0);
        assert_int_equal(metric_of(m, n, "RPC_RETRIES"), 0);
        assert_int_equal(metric_of(m, n, "NOT_SERVING_REGION_EXCEPTION"), 0);
        assert_int_equal(metric_of(m, n, "BYTES_IN_RESULTS"), bytes);
        assert_int_equal(metric_of(m, n, "BYTES_IN_REMOTE_RESULTS"), 0);
    }
    assert_int_equal(scan_with_metrics(false, 1, 2, &bytes, m, &n), 52);
    assert_true(metric_of(m, n, "RPC_RETRIES") >= 1);
    assert_int_equal(metric_of(m, n, "REMOTE_RPC_RETRIES"), 0);

    char *err = NULL;
    strata_scan_t *s = strata_scan_create();
    strata_scanner_t *sc = strata_table_scan(g.table, s, &err);
    strata_scan_destroy(s);
    strata_result_destroy(strata_scanner_next(sc, &err));
    check_ok(&err, "scan without metrics");
    assert_int_equal(strata_scanner_metrics(sc, m, STRATA_SCAN_METRICS_COUNT), 0);
    strata_scanner_close(sc);
}

/* Attributes on every kind of operation reach the servers and change nothing there. */
static void attributes_on_every_operation(void **state)
{
    char *err = NULL;
    size_t len;
    strata_mutation_t *m = strata_put_create("attr-1", 6);
    strata_put_add(m, "f", 1, "q", 1, STRATA_LATEST_TIMESTAMP, "v1", 2);
    strata_mutation_set_attribute(m, "trace", "abc", 3, &err);
    strata_table_put(g.table, m, &err);
    check_ok(&err, "put with attributes");
    strata_batch_t *b = strata_batch_create();
    strata_mutation_t *m2 = strata_put_create("attr-u", 6); /* another region */
    strata_put_add(m2, "f", 1, "q", 1, STRATA_LATEST_TIMESTAMP, "v2", 2);
    strata_mutation_set_attribute(m2, "trace", "def", 3, &err);
    strata_batch_add_mutation(b, m2);
    strata_get_t *gt = strata_get_create("attr-1", 6);
    strata_get_set_attribute(gt, "trace", "ghi", 3, &err);
    strata_batch_add_get(b, gt);
    strata_table_batch(g.table, b, &err);
    check_ok(&err, "batch with attributes");
    assert_memory_equal(strata_result_value(strata_batch_result(b, 1), "f", 1, "q", 1, &len),
                        "v1", 2);
    strata_batch_destroy(b);
    strata_mutator_t *bm = strata_mutator_create(g.table, 0);
    strata_mutation_set_attribute(m, "trace", "jkl", 3, &err);
    strata_mutator_mutate(bm, m, &err);
    strata_mutator_close(bm, &err);
    check_ok(&err, "mutator with attributes");
    strata_mutation_t *inc = strata_increment_create("attr-1", 6);
    strata_increment_add(inc, "f", 1, "n", 1, 4);
    strata_mutation_set_attribute(inc, "trace", "mno", 3, &err);
    strata_result_t *r = strata_table_read_modify_write(g.table, inc, &err);
    check_ok(&err, "increment with attributes");
    strata_result_destroy(r);
    strata_mutation_t *del = strata_delete_create("attr-u", 6);
    strata_mutation_set_attribute(del, "trace", "pqr", 3, &err);
    strata_table_delete(g.table, del, &err);
    check_ok(&err, "delete with attributes");
    r = strata_table_get(g.table, gt, &err);
    check_ok(&err, "get with attributes");
    assert_memory_equal(strata_result_value(r, "f", 1, "q", 1, &len), "v1", 2);
    assert_int_equal(strata_result_cell_count(r), 2); /* f:n = 4, f:q */
    strata_result_destroy(r);
    strata_get_t *gu = strata_get_create("attr-u", 6);
    r = strata_table_get(g.table, gu, &err);
    check_ok(&err, "get");
    assert_int_equal(strata_result_cell_count(r), 0);
    strata_result_destroy(r);
    strata_get_destroy(gu);
    strata_get_destroy(gt);
    strata_mutation_destroy(del);
    strata_mutation_destroy(inc);
    strata_mutation_destroy(m2);
    strata_mutation_destroy(m);
}

/* A raw call whose attribute set passes a bound (bypassing the library's own check) is
 * refused by the region server, not retried, and nothing of it is applied; in a Multi,
 * only that action. */
static void server_refuses_bad_attribute_sets(void **state)
{
    Strata__Client__NameBytesPair p[65], *pp[65];
    char names[65][8];
    for (int i = 0; i < 65; i++) {
        strata__client__name_bytes_pair__init(&p[i]);
        snprintf(names[i], sizeof(names[i]), "k%d", i);
        p[i].name = names[i];
        pp[i] = &p[i];
    }
    Strata__Client__Cell c = STRATA__CLIENT__CELL__INIT, *cp[1] = {&c};
    c.has_family = c.has_qualifier = c.has_value = 1;
    c.family = (ProtobufCBinaryData){1, (uint8_t *)"f"};
    c.qualifier = (ProtobufCBinaryData){1, (uint8_t *)"q"};
    c.value = (ProtobufCBinaryData){1, (uint8_t *)"v"};
    Strata__Client__MutationProto mp = STRATA__CLIENT__MUTATION_PROTO__INIT;
    mp.mutate_type = STRATA__CLIENT__MUTATION_PROTO__MUTATION_TYPE__PUT;
    mp.n_cell = 1;
    mp.cell = cp;
    mp.n_attribute = 65;
    mp.attribute = pp;
    Strata__Client__RegionSpecifier rs = STRATA__CLIENT__REGION_SPECIFIER__INIT;
    rs.encoded_name = "r4"; /* [t, ...) on server 1 */
    mp.row = (ProtobufCBinaryData){5, (uint8_t *)"x-raw"};
    Strata__Client__MutateRequest mr = STRATA__CLIENT__MUTATE_REQUEST__INIT;
    mr.region = &rs;
    mr.mutation = &mp;
    buf_t resp = {0};
    assert_int_equal(admin_call(1, "ClientService.Mutate", &mr.base, &resp), ST_INVALID_ARGUMENT);
    if (!strstr(st_errmsg(), "Put refused: 65 operation attributes, more than 64"))
        fail_msg("message: %s", st_errmsg());
    /* a name given twice, in a Multi beside a good action */
    mp.n_attribute = 2;
    p[1].name = "k0";
    Strata__Client__MutationProto good = mp;
    good.n_attribute = 1;
    good.row = (ProtobufCBinaryData){6, (uint8_t *)"x-raw2"};
    Strata__Client__Action a0 = STRATA__CLIENT__ACTION__INIT, a1 = STRATA__CLIENT__ACTION__INIT;
    Strata__Client__Action *as[2] = {&a0, &a1};
    a0.mutation = &mp;
    a1.mutation = &good;
    Strata__Client__RegionAction ra = STRATA__CLIENT__REGION_ACTION__INIT, *ras[1] = {&ra};
    ra.region = &rs;
    ra.n_action = 2;
    ra.action = as;
    Strata__Client__MultiRequest multi = STRATA__CLIENT__MULTI_REQUEST__INIT;
    multi.n_region_action = 1;
    multi.region_action = ras;
    buf_reset(&resp);
    assert_int_equal(admin_call(1, "ClientService.Multi", &multi.base, &resp), ST_OK);
    Strata__Client__MultiResponse *mu =
        strata__client__multi_response__unpack(NULL, resp.len, resp.data);
    assert_non_null(mu);
    assert_int_equal(mu->n_region_action_result, 1);
    Strata__Client__RegionActionResult *rar = mu->region_action_result[0];
    assert_int_equal(rar->n_result, 2);
    assert_non_null(rar->result[0]->error);
    assert_int_equal(rar->result[0]->error->code, ST_INVALID_ARGUMENT);
    assert_non_null(
        strstr(rar->result[0]->error->message, "operation attribute 'k0' is given twice"));
    assert_null(rar->result[1]->error);
    strata__client__multi_response__free_unpacked(mu, NULL);
    /* a Scan with an empty name */
    p[0].name = "";
    Strata__Client__Scan scan = STRATA__CLIENT__SCAN__INIT;
    scan.n_attribute = 1;
    scan.attribute = pp;
    Strata__Client__ScanRequest sr = STRATA__CLIENT__SCAN_REQUEST__INIT;
    sr.region = &rs;
    sr.scan = &scan;
    buf_reset(&resp);
    assert_int_equal(admin_call(1, "ClientService.Scan", &sr.base, &resp), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "Scan refused: operation attribute ''"));
    buf_free(&resp);

    char *err = NULL;
    size_t len;
    strata_get_t *gx = strata_get_create("x-raw", 5);
    strata_result_t *r = strata_table_get(g.table, gx, &err);
    check_ok(&err, "get x-raw");
    assert_int_equal(strata_result_cell_count(r), 0); /* refused: nothing written */
    strata_result_destroy(r);
    strata_get_destroy(gx);
    gx = strata_get_create("x-raw2", 6);
    r = strata_table_get(g.table, gx, &err);
    check_ok(&err, "get x-raw2");
    assert_memory_equal(strata_result_value(r, "f", 1, "q", 1, &len), "v", 1);
    strata_result_destroy(r);
    strata_get_destroy(gx);
}

/* With batch 2, each k = 0 row's five g cells come as 2 + 2 + 1, the first two partial. */
static void scan_batch_gives_partial_rows(void **state)
{
    char *err = NULL;
    strata_scan_t *s = strata_scan_create();
    strata_scan_add_column(s, "g", 1, NULL, 0);
    strata_scan_set_batch(s, 2);
    strata_scan_set_caching(s, 4);
    strata_scan_set_start(s, "a-scan", 6);
    strata_scanner_t *sc = strata_table_scan(g.table, s, &err);
    strata_scan_destroy(s);
    strata_result_t *r;
    int results = 0, cells = 0, partial = 0;
    while ((r = strata_scanner_next(sc, &err)) != NULL) {
        size_t len;
        const char *row = strata_result_row(r, &len);
        if (len >= 6 && memcmp(row + 1, "-scan", 5) == 0) {
            results++;
            cells += (int)strata_result_cell_count(r);
            partial += strata_result_partial(r);
        }
        strata_result_destroy(r);
    }
    strata_scanner_close(sc);
    check_ok(&err, "batch scan");
    assert_int_equal(cells, 26 * 5);
    assert_int_equal(results, 26 * 3);
    assert_int_equal(partial, 26 * 2);
}

/* ---- batch and buffered mutator ---- */

static void batch_across_regions_with_a_failed_action(void **state)
{
    char *err = NULL;
    strata_batch_t *b = strata_batch_create();
    for (int i = 0; i < 100; i++) {
        char row[32], val[32];
        snprintf(row, sizeof(row), "%c-batch-%02d", 'a' + i % 26, i);
        snprintf(val, sizeof(val), "bv%d", i);
        strata_mutation_t *m = strata_put_create(row, strlen(row));
        strata_put_add(m, "f", 1, "b", 1, STRATA_LATEST_TIMESTAMP, val, strlen(val));
        strata_batch_add_mutation(b, m);
        strata_mutation_destroy(m);
    }
    strata_mutation_t *bad = strata_put_create("m-batch-bad", 11);
    strata_put_add(bad, "nofam", 5, "b", 1, STRATA_LATEST_TIMESTAMP, "x", 1);
    size_t bad_idx = strata_batch_add_mutation(b, bad);
    strata_mutation_destroy(bad);
    strata_table_batch(g.table, b, &err);
    assert_non_null(err);
    assert_non_null(strstr(err, "1 of 101 actions failed"));
    strata_free(err);
    err = NULL;
    for (size_t i = 0; i < 100; i++)
        assert_null(strata_batch_error(b, i));
    assert_non_null(strstr(strata_batch_error(b, bad_idx), "unknown column family"));
    strata_batch_destroy(b);

    b = strata_batch_create();
    for (int i = 0; i < 100; i++) {
        char row[32];
        snprintf(row, sizeof(row), "%c-batch-%02d", 'a' + i % 26, i);
        strata_get_t *gt = strata_get_create(row, strlen(row));
        strata_batch_add_get(b, gt);
        strata_get_destroy(gt);
    }
    strata_table_batch(g.table, b, &err);
    check_ok(&err, "batch get");
    for (size_t i = 0; i < 100; i++) {
        char val[32];
        size_t len = 0;
        snprintf(val, sizeof(val), "bv%zu", i);
        const strata_result_t *r = strata_batch_result(b, i);
        assert_non_null(r);
        const char *v = strata_result_value(r, "f", 1, "b", 1, &len);
        assert_non_null(v);
        assert_int_equal(len, strlen(val));
        assert_memory_equal(v, val, len);
    }
    strata_batch_destroy(b);
}

static int count_column(const char *fam, const char *qual)
{
    char *err = NULL;
    strata_scan_t *s = strata_scan_create();
    strata_scan_add_column(s, fam, strlen(fam), qual, strlen(qual));
    strata_scan_set_caching(s, 500);
    strata_scanner_t *sc = strata_table_scan(g.table, s, &err);
    strata_scan_destroy(s);
    int n = 0;
    strata_result_t *r;
    while ((r = strata_scanner_next(sc, &err)) != NULL) {
        n++;
        strata_result_destroy(r);
    }
    strata_scanner_close(sc);
    check_ok(&err, "count scan");
    return n;
}

static void buffered_mutator_flushes_on_size_and_reports_failures(void **state)
{
    char *err = NULL, val[100];
    memset(val, 'v', sizeof(val));
    strata_mutator_t *bm = strata_mutator_create(g.table, 4096);
    for (int i = 0; i < 600; i++) {
        char row[32];
        snprintf(row, sizeof(row), "%c-mut-%03d", 'a' + i % 26, i);
        strata_mutation_t *m = strata_put_create(row, strlen(row));
        strata_put_add(m, "f", 1, "m", 1, STRATA_LATEST_TIMESTAMP, val, sizeof(val));
        strata_mutator_mutate(bm, m, &err);
        strata_mutation_destroy(m);
        check_ok(&err, "mutator");
        assert_true(strata_mutator_buffered(bm) < 4096);
    }
    assert_true(count_column("f", "m") > 0); /* size flushes happened */
    strata_mutation_t *bad = strata_put_create("q-mut-bad", 9);
    strata_put_add(bad, "nofam", 5, "m", 1, STRATA_LATEST_TIMESTAMP, "x", 1);
    strata_mutator_mutate(bm, bad, &err);
    strata_mutation_destroy(bad);
    check_ok(&err, "mutator buffer bad");
    strata_mutator_flush(bm, &err);
    assert_non_null(err);
    strata_free(err);
    err = NULL;
    assert_int_equal(strata_mutator_failed_count(bm), 1);
    size_t len = 0;
    assert_memory_equal(strata_mutator_failed_row(bm, 0, &len), "q-mut-bad", 9);
    assert_non_null(strstr(strata_mutator_failed_error(bm, 0), "unknown column family"));
    assert_int_equal(strata_mutator_buffered(bm), 0);
    strata_mutator_close(bm, &err);
    check_ok(&err, "mutator close");
    assert_int_equal(count_column("f", "m"), 600);
}

/* ---- the move drill ---- */

typedef struct drill {
    atomic_bool stop;
    atomic_int errors;
    int acked; /* writes acknowledged (rows 0..acked-1) */
    char first_error[512];
} drill;

static void drill_row(int i, char *row, size_t cap)
{
    snprintf(row, cap, "%c-move-%06d", i % 2 ? 'h' : 'a', i); /* r1 (moving) and r2 */
}

static void drill_fail(drill *d, const char *what, char *err)
{
    if (atomic_fetch_add(&d->errors, 1) == 0)
        snprintf(d->first_error, sizeof(d->first_error), "%s: %s", what, err ? err : "mismatch");
    strata_free(err);
}

static void *drill_writer(void *arg)
{
    drill *d = arg;
    for (int i = 0; !atomic_load(&d->stop); i++) {
        char row[32], *err = NULL;
        drill_row(i, row, sizeof(row));
        strata_mutation_t *m = strata_put_create(row, strlen(row));
        strata_put_add(m, "f", 1, "mv", 2, STRATA_LATEST_TIMESTAMP, row, strlen(row));
        strata_table_put(g.table, m, &err);
        strata_mutation_destroy(m);
        if (err) {
            drill_fail(d, row, err);
            continue;
        }
        d->acked = i + 1;
        strata_get_t *gt = strata_get_create(row, strlen(row));
        strata_result_t *r = strata_table_get(g.table, gt, &err);
        strata_get_destroy(gt);
        size_t len = 0;
        const char *v = r ? strata_result_value(r, "f", 1, "mv", 2, &len) : NULL;
        if (err || !v || len != strlen(row) || memcmp(v, row, len) != 0)
            drill_fail(d, row, err);
        strata_result_destroy(r);
    }
    return NULL;
}

static void move_region_while_writing(void **state)
{
    drill d = {0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, drill_writer, &d), 0);
    clock_sleep_ms(700);
    /* Closed on server 0, a gap, opened on server 1, a gap, then the file says so: the
     * client sees NOT_SERVING from the old server until the file changes. */
    int rc = close_region(&regions[0], 0);
    clock_sleep_ms(300);
    if (rc == ST_OK)
        rc = open_region(&regions[0], 1);
    char why[512];
    snprintf(why, sizeof(why), "%s", rc == ST_OK ? "" : st_errmsg());
    clock_sleep_ms(200);
    if (rc == ST_OK) {
        regions[0].server = 1;
        write_locations();
    }
    clock_sleep_ms(1800);
    atomic_store(&d.stop, true);
    pthread_join(th, NULL);
    if (rc != ST_OK)
        fail_msg("moving r1: %s", why);
    if (atomic_load(&d.errors))
        fail_msg("%d client errors during the move; first: %s", atomic_load(&d.errors),
                 d.first_error);
    assert_true(d.acked > 20);
    print_message("move drill: %d writes acknowledged and read back\n", d.acked);

    /* Every acknowledged write is there, read one by one and by a scan. */
    char v[64];
    for (int i = 0; i < d.acked; i++) {
        char row[32];
        drill_row(i, row, sizeof(row));
        if (strcmp(value_of(row, "f", "mv", v, sizeof(v)), row) != 0)
            fail_msg("acknowledged write %s is missing after the move", row);
    }
    assert_int_equal(count_column("f", "mv"), d.acked);
}

/* ---- scans that outlive a region move ---- */

static int move_region(int idx, int to)
{
    int rc = close_region(&regions[idx], regions[idx].server);
    if (rc == ST_OK)
        rc = open_region(&regions[idx], to);
    if (rc == ST_OK) {
        regions[idx].server = to;
        write_locations();
    }
    return rc;
}

/* Reads `before` results of a batch-2, caching-1 scan of family g, moves region idx to
 * the other server, and reads on: no error, every cell exactly once. */
static void scan_across_move(bool reversed, const char *start, int idx, int before)
{
    char *err = NULL, last[64] = "";
    strata_scan_t *s = strata_scan_create();
    strata_scan_add_column(s, "g", 1, NULL, 0);
    strata_scan_set_batch(s, 2);
    strata_scan_set_caching(s, 1);
    strata_scan_set_reversed(s, reversed);
    strata_scan_set_start(s, start, strlen(start));
    strata_scan_set_metrics_enabled(s, 1);
    strata_scanner_t *sc = strata_table_scan(g.table, s, &err);
    strata_scan_destroy(s);
    strata_result_t *r;
    strata_scan_metric m[STRATA_SCAN_METRICS_COUNT];
    int results = 0, cells = 0, rows = 0;
    while ((r = strata_scanner_next(sc, &err)) != NULL) {
        size_t len;
        const char *row = strata_result_row(r, &len);
        if (strlen(last) != len || memcmp(last, row, len) != 0) {
            rows++;
            snprintf(last, sizeof(last), "%.*s", (int)len, row);
        }
        results++;
        cells += (int)strata_result_cell_count(r);
        strata_result_destroy(r);
        if (results == before && move_region(idx, 1 - regions[idx].server) != ST_OK)
            fail_msg("moving %s: %s", regions[idx].name, st_errmsg());
    }
    size_t n = strata_scanner_metrics(sc, m, STRATA_SCAN_METRICS_COUNT);
    strata_scanner_close(sc);
    check_ok(&err, "scan across a move");
    /* the scanner's region closed under it: HBase's NotServingRegionException, a retry */
    assert_true(metric_of(m, n, "NOT_SERVING_REGION_EXCEPTION") >= 1);
    assert_true(metric_of(m, n, "RPC_RETRIES") >= 1);
    assert_int_equal(rows, 13);
    assert_int_equal(cells, 13 * 5);
    assert_int_equal(results, 13 * 3);
}

static void scan_resumes_after_region_moves(void **state)
{
    scan_across_move(false, "n", 2, 2); /* forward, r3 moves inside row n-scan-0 */
    scan_across_move(true, "m~", 1, 1); /* reversed, r2 moves inside row m-scan-0 */
    scan_across_move(false, "n", 2, 3); /* forward, between rows */
}

int main(void)
{
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_client", "STRATA_BIN is not set (ctest sets it)");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(put_get_versions_ranges_filters),
        cmocka_unit_test(deletes_version_column_family_row),
        cmocka_unit_test(check_and_mutate_increment_append),
        cmocka_unit_test(unknown_family_fails_without_retry),
        cmocka_unit_test(scan_crosses_regions_forward_and_reversed),
        cmocka_unit_test(scan_batch_gives_partial_rows),
        cmocka_unit_test(scan_survives_expired_server_scanner),
        cmocka_unit_test(scan_metrics_across_regions),
        cmocka_unit_test(attributes_on_every_operation),
        cmocka_unit_test(server_refuses_bad_attribute_sets),
        cmocka_unit_test(batch_across_regions_with_a_failed_action),
        cmocka_unit_test(buffered_mutator_flushes_on_size_and_reports_failures),
        cmocka_unit_test(move_region_while_writing),
        cmocka_unit_test(scan_resumes_after_region_moves),
    };
    return tu_run_group_tests(tests, group_setup, group_teardown);
}
