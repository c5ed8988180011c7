/*
 * test_regionserver.c - a real `strata regionserver` process ($STRATA_BIN) driven over
 * RPC: two regions of a table (split at "m", families a and b); every data operation
 * (Put, Get with columns / versions / time range / filter, the Delete kinds, Increment,
 * Append, CheckAndMutate, Multi across regions, Scan with caching, batch and reversed);
 * the errors a client acts on; CloseRegion and reopen; a scanner abandoned by a client
 * killed with SIGKILL expiring after its lease; SIGTERM (exit 0, regions flushed) and
 * SIGKILL (WAL split on restart) followed by a restart on the same root.
 *
 * The tests run in order on one server. Every child process is killed at the end even
 * on failure (group teardown and an atexit handler); every wait is bounded.
 * Needs STRATA_BIN (set by CTest); skipped without it (exit 77).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/bytes.h"
#include "common/clock.h"
#include "common/fileio.h"
#include "common/proto/admin.pb-c.h"
#include "common/proto/client.pb-c.h"
#include "common/rpc/rpc_client.h"
#include "common/rpc/rpc_proto.h"
#include "common/status.h"
#include "tests/support/proc.h"
#include "tests/support/testutil.h"

#define R1 "r1aaaa" /* ["", "m") */
#define R2 "r2bbbb" /* ["m", "") */
#define TIMEOUT_MS 15000

static struct {
    char *tmp;
    char root[512], ready[512], log[512];
    pid_t pid;
    int port;
    char addr[64];
    rpc_client *client;
} F;

/* ---- the server process ---- */

static pid_t spawn_server(int port)
{
    const char *bin = getenv("STRATA_BIN");
    assert_non_null(bin);
    unlink(F.ready);
    char a_root[600], a_port[64], a_ready[600];
    snprintf(a_root, sizeof(a_root), "--root.dir=%s", F.root);
    snprintf(a_port, sizeof(a_port), "--regionserver.port=%d", port);
    snprintf(a_ready, sizeof(a_ready), "--regionserver.ready.file=%s", F.ready);
    const char *argv[] = {"strata",
                          "regionserver",
                          a_root,
                          a_port,
                          a_ready,
                          "--regionserver.scanner.lease.ms=1000",
                          "--regionserver.handler.threads=4",
                          NULL};
    proc_spec spec = {.argv = argv, .path = bin, .log = F.log, .kill_at_exit = true};
    pid_t pid = 0;
    assert_int_equal(proc_spawn(&spec, &pid), ST_OK);
    return pid;
}

/* Waits (bounded) for the ready file; returns the port. */
static int wait_ready(pid_t pid)
{
    uint64_t end = clock_mono_ns() + 15000000000ull;
    while (clock_mono_ns() < end) {
        buf_t b = {0};
        if (fio_exists(F.ready) && fio_read_all(F.ready, &b) == ST_OK && b.len > 0 &&
            b.data[b.len - 1] == '\n') {
            char text[128] = "";
            memcpy(text, b.data, b.len < sizeof(text) - 1 ? b.len : sizeof(text) - 1);
            buf_free(&b);
            char *colon = strrchr(text, ':');
            assert_non_null(colon);
            return atoi(colon + 1);
        }
        buf_free(&b);
        assert_int_equal(proc_wait(pid, 0, NULL), ST_TIMEOUT); /* still alive */
        clock_sleep_ms(20);
    }
    fail_msg("the region server did not become ready within 15 s (log: %s)", F.log);
    return -1;
}

static void start_server(int port)
{
    F.pid = spawn_server(port);
    F.port = wait_ready(F.pid);
    snprintf(F.addr, sizeof(F.addr), "127.0.0.1:%d", F.port);
}

/* Waits (bounded) for the server to exit; returns its wait status. */
static int wait_exit(pid_t pid, int timeout_ms)
{
    int status = 0;
    if (proc_wait(pid, timeout_ms, &status) != ST_OK)
        fail_msg("process %d did not exit within %d ms", (int)pid, timeout_ms);
    return status;
}

/* ---- calls ---- */

static int call(const char *method, const ProtobufCMessage *req,
                const ProtobufCMessageDescriptor *rdesc, ProtobufCMessage **resp)
{
    buf_t body = {0}, out = {0};
    assert_int_equal(buf_reserve(&body, protobuf_c_message_get_packed_size(req)), ST_OK);
    body.len = protobuf_c_message_pack(req, body.data);
    int rc = rpc_client_call(F.client, F.addr, method, body.data, body.len, TIMEOUT_MS, &out);
    buf_free(&body);
    if (rc == ST_OK && resp) {
        *resp = protobuf_c_message_unpack(rdesc, NULL, out.len, out.data);
        assert_non_null(*resp);
    }
    buf_free(&out);
    return rc;
}

static ProtobufCBinaryData bin(const char *s)
{
    return (ProtobufCBinaryData){strlen(s), (uint8_t *)s};
}

static Strata__Client__RegionSpecifier *spec_of(const char *region)
{
    static Strata__Client__RegionSpecifier rs[4];
    static int next;
    Strata__Client__RegionSpecifier *r = &rs[next++ % 4];
    strata__client__region_specifier__init(r);
    r->encoded_name = (char *)region;
    return r;
}

static void cell_init(Strata__Client__Cell *c, const char *fam, const char *qual, const char *value,
                      int64_t ts, int type)
{
    strata__client__cell__init(c);
    c->has_family = 1;
    c->family = bin(fam);
    if (qual) {
        c->has_qualifier = 1;
        c->qualifier = bin(qual);
    }
    if (value) {
        c->has_value = 1;
        c->value = bin(value);
    }
    if (ts >= 0) {
        c->has_timestamp = 1;
        c->timestamp = ts;
    }
    if (type >= 0) {
        c->has_type = 1;
        c->type = (uint32_t)type;
    }
}

/* One mutation of one cell (cell NULL: no cells). */
static int mutate1(const char *region, const char *row, int mtype, Strata__Client__Cell *cell,
                   const Strata__Client__Condition *cond, Strata__Client__MutateResponse **resp)
{
    Strata__Client__MutationProto m = STRATA__CLIENT__MUTATION_PROTO__INIT;
    Strata__Client__Cell *cells[1] = {cell};
    m.row = bin(row);
    m.mutate_type = mtype;
    m.n_cell = cell ? 1 : 0;
    m.cell = cells;
    Strata__Client__MutateRequest req = STRATA__CLIENT__MUTATE_REQUEST__INIT;
    req.region = spec_of(region);
    req.mutation = &m;
    req.condition = (Strata__Client__Condition *)cond;
    Strata__Client__MutateResponse *r = NULL;
    int rc = call("ClientService.Mutate", &req.base, &strata__client__mutate_response__descriptor,
                  (ProtobufCMessage **)&r);
    if (resp)
        *resp = r;
    else if (r)
        strata__client__mutate_response__free_unpacked(r, NULL);
    return rc;
}

static int put(const char *region, const char *row, const char *fam, const char *qual,
               const char *value, int64_t ts)
{
    Strata__Client__Cell c;
    cell_init(&c, fam, qual, value, ts, -1);
    return mutate1(region, row, STRATA__CLIENT__MUTATION_PROTO__MUTATION_TYPE__PUT, &c, NULL,
                   NULL);
}

typedef struct get_opts {
    const char *fam, *qual; /* one column, or NULL */
    uint32_t versions;      /* 0: default */
    int64_t from, to;       /* to 0: open */
    const char *filter;
} get_opts;

static int get(const char *region, const char *row, const get_opts *o,
               Strata__Client__GetResponse **resp)
{
    Strata__Client__Get g = STRATA__CLIENT__GET__INIT;
    Strata__Client__Column col = STRATA__CLIENT__COLUMN__INIT;
    Strata__Client__Column *cols[1] = {&col};
    Strata__Client__TimeRange tr = STRATA__CLIENT__TIME_RANGE__INIT;
    g.row = bin(row);
    if (o && o->fam) {
        col.family = bin(o->fam);
        if (o->qual) {
            col.has_qualifier = 1;
            col.qualifier = bin(o->qual);
        }
        g.n_column = 1;
        g.column = cols;
    }
    if (o && o->versions) {
        g.has_max_versions = 1;
        g.max_versions = o->versions;
    }
    if (o && (o->from || o->to)) {
        tr.has_from = 1;
        tr.from = o->from;
        tr.has_to = o->to != 0;
        tr.to = o->to;
        g.time_range = &tr;
    }
    if (o && o->filter)
        g.filter = (char *)o->filter;
    Strata__Client__GetRequest req = STRATA__CLIENT__GET_REQUEST__INIT;
    req.region = spec_of(region);
    req.get = &g;
    return call("ClientService.Get", &req.base, &strata__client__get_response__descriptor,
                (ProtobufCMessage **)resp);
}

static const Strata__Client__Cell *find_cell(const Strata__Client__Result *r, const char *fam,
                                             const char *qual)
{
    for (size_t i = 0; r && i < r->n_cell; i++) {
        const Strata__Client__Cell *c = r->cell[i];
        if (c->family.len == strlen(fam) && memcmp(c->family.data, fam, c->family.len) == 0 &&
            c->qualifier.len == strlen(qual) && memcmp(c->qualifier.data, qual, c->qualifier.len) == 0)
            return c;
    }
    return NULL;
}

static bool value_is(const Strata__Client__Cell *c, const char *v)
{
    return c && c->value.len == strlen(v) && memcmp(c->value.data, v, c->value.len) == 0;
}

/* The newest value of row/fam:qual into out ("" if absent); returns 1 if found. */
static int get_value(const char *region, const char *row, const char *fam, const char *qual,
                     char *out, size_t cap)
{
    Strata__Client__GetResponse *r = NULL;
    get_opts o = {.fam = fam, .qual = qual};
    assert_int_equal(get(region, row, &o, &r), ST_OK);
    const Strata__Client__Cell *c = find_cell(r->result, fam, qual);
    out[0] = 0;
    if (c)
        snprintf(out, cap, "%.*s", (int)c->value.len, (const char *)c->value.data);
    strata__client__get_response__free_unpacked(r, NULL);
    return c != NULL;
}

static void open_regions2(int expect1, int expect2)
{
    Strata__Admin__ColumnFamilySchema fa = STRATA__ADMIN__COLUMN_FAMILY_SCHEMA__INIT;
    Strata__Admin__ColumnFamilySchema fb = STRATA__ADMIN__COLUMN_FAMILY_SCHEMA__INIT;
    fa.name = "a";
    fa.has_versions = 1;
    fa.versions = 3;
    fb.name = "b";
    Strata__Admin__ColumnFamilySchema *fams[2] = {&fa, &fb};
    Strata__Admin__TableSchema ts = STRATA__ADMIN__TABLE_SCHEMA__INIT;
    ts.name = "default:t";
    ts.n_family = 2;
    ts.family = fams;
    Strata__Admin__RegionInfo i1 = STRATA__ADMIN__REGION_INFO__INIT;
    Strata__Admin__RegionInfo i2 = STRATA__ADMIN__REGION_INFO__INIT;
    i1.table = i2.table = "default:t";
    i1.encoded_name = R1;
    i1.has_end_key = 1;
    i1.end_key = bin("m");
    i2.encoded_name = R2;
    i2.has_start_key = 1;
    i2.start_key = bin("m");
    Strata__Admin__OpenRegionRequest__RegionOpenInfo o1 =
        STRATA__ADMIN__OPEN_REGION_REQUEST__REGION_OPEN_INFO__INIT;
    Strata__Admin__OpenRegionRequest__RegionOpenInfo o2 =
        STRATA__ADMIN__OPEN_REGION_REQUEST__REGION_OPEN_INFO__INIT;
    o1.region = &i1;
    o2.region = &i2;
    o1.schema = o2.schema = &ts;
    Strata__Admin__OpenRegionRequest__RegionOpenInfo *infos[2] = {&o1, &o2};
    Strata__Admin__OpenRegionRequest req = STRATA__ADMIN__OPEN_REGION_REQUEST__INIT;
    req.n_open_info = 2;
    req.open_info = infos;
    Strata__Admin__OpenRegionResponse *resp = NULL;
    assert_int_equal(call("AdminService.OpenRegion", &req.base,
                          &strata__admin__open_region_response__descriptor,
                          (ProtobufCMessage **)&resp),
                     ST_OK);
    assert_int_equal(resp->n_opening_state, 2);
    assert_int_equal(resp->opening_state[0], expect1);
    assert_int_equal(resp->opening_state[1], expect2);
    strata__admin__open_region_response__free_unpacked(resp, NULL);
}

static void open_regions(int expect_state)
{
    open_regions2(expect_state, expect_state);
}

static Strata__Admin__GetServerLoadResponse *server_load(void)
{
    Strata__Admin__GetServerLoadRequest req = STRATA__ADMIN__GET_SERVER_LOAD_REQUEST__INIT;
    Strata__Admin__GetServerLoadResponse *resp = NULL;
    assert_int_equal(call("AdminService.GetServerLoad", &req.base,
                          &strata__admin__get_server_load_response__descriptor,
                          (ProtobufCMessage **)&resp),
                     ST_OK);
    return resp;
}

static uint64_t open_scanners(void)
{
    Strata__Admin__GetServerLoadResponse *l = server_load();
    uint64_t n = l->open_scanners;
    strata__admin__get_server_load_response__free_unpacked(l, NULL);
    return n;
}

/* ---- scans ---- */

typedef struct scan_opts {
    const char *start, *stop;
    uint32_t rows, batch;
    bool reversed;
} scan_opts;

static int scan_open(const char *region, const scan_opts *o, Strata__Client__ScanResponse **resp)
{
    Strata__Client__Scan sc = STRATA__CLIENT__SCAN__INIT;
    if (o->start) {
        sc.has_start_row = 1;
        sc.start_row = bin(o->start);
    }
    if (o->stop) {
        sc.has_stop_row = 1;
        sc.stop_row = bin(o->stop);
    }
    sc.has_batch = o->batch != 0;
    sc.batch = o->batch;
    sc.has_reversed = 1;
    sc.reversed = o->reversed;
    Strata__Client__ScanRequest req = STRATA__CLIENT__SCAN_REQUEST__INIT;
    req.region = spec_of(region);
    req.scan = &sc;
    req.has_number_of_rows = 1;
    req.number_of_rows = o->rows;
    return call("ClientService.Scan", &req.base, &strata__client__scan_response__descriptor,
                (ProtobufCMessage **)resp);
}

static int scan_next(uint64_t id, uint32_t rows, bool close, Strata__Client__ScanResponse **resp)
{
    Strata__Client__ScanRequest req = STRATA__CLIENT__SCAN_REQUEST__INIT;
    req.has_scanner_id = 1;
    req.scanner_id = id;
    req.has_number_of_rows = 1;
    req.number_of_rows = rows;
    req.has_close_scanner = close;
    req.close_scanner = close;
    return call("ClientService.Scan", &req.base, &strata__client__scan_response__descriptor,
                (ProtobufCMessage **)resp);
}

/* Runs a whole scan; appends "row/fam:qual=value;" per cell ('+' after a partial result)
 * to out and returns the number of results. */
static size_t scan_all(const char *region, const scan_opts *o, char *out, size_t cap)
{
    Strata__Client__ScanResponse *r = NULL;
    assert_int_equal(scan_open(region, o, &r), ST_OK);
    size_t nresults = 0, len = 0, calls = 0;
    out[0] = 0;
    for (;;) {
        assert_true(r->n_results <= o->rows);
        for (size_t i = 0; i < r->n_results; i++, nresults++) {
            const Strata__Client__Result *res = r->results[i];
            for (size_t j = 0; j < res->n_cell; j++) {
                const Strata__Client__Cell *c = res->cell[j];
                len += (size_t)snprintf(out + len, cap - len, "%.*s/%.*s:%.*s=%.*s;",
                                        (int)c->row.len, c->row.data, (int)c->family.len,
                                        c->family.data, (int)c->qualifier.len, c->qualifier.data,
                                        (int)c->value.len, c->value.data);
            }
            if (res->has_partial && res->partial)
                len += (size_t)snprintf(out + len, cap - len, "+");
        }
        bool more = r->more_results_in_region;
        uint64_t id = r->scanner_id;
        strata__client__scan_response__free_unpacked(r, NULL);
        if (!more)
            break;
        assert_true(++calls < 1000);
        assert_int_equal(scan_next(id, o->rows, false, &r), ST_OK);
    }
    return nresults;
}

/* ---- fixture ---- */

static int group_setup(void **state)
{
    F.tmp = tu_tempdir("regionserver");
    snprintf(F.root, sizeof(F.root), "%s/root", F.tmp);
    snprintf(F.ready, sizeof(F.ready), "%s/ready", F.tmp);
    snprintf(F.log, sizeof(F.log), "%s/rs.log", F.tmp);
    if (rpc_client_new(NULL, &F.client) != ST_OK)
        return -1;
    start_server(0);
    return 0;
}

static int group_teardown(void **state)
{
    proc_kill_all();
    F.pid = 0;
    rpc_client_free(F.client);
    F.client = NULL;
    if (F.tmp) {
        char cmd[700];
        snprintf(cmd, sizeof(cmd), "tail -n 20 %s 1>&2", F.log);
        if (getenv("STRATA_TEST_SHOW_LOG") && system(cmd) != 0)
            fprintf(stderr, "(no log)\n");
        tu_rmdir(F.tmp);
        F.tmp = NULL;
    }
    return 0;
}

/* ---- tests ---- */

static void open_two_regions(void **state)
{
    open_regions(STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__OPENED);
    open_regions(STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__ALREADY_OPENED);
    Strata__Admin__GetOnlineRegionRequest req = STRATA__ADMIN__GET_ONLINE_REGION_REQUEST__INIT;
    Strata__Admin__GetOnlineRegionResponse *resp = NULL;
    assert_int_equal(call("AdminService.GetOnlineRegion", &req.base,
                          &strata__admin__get_online_region_response__descriptor,
                          (ProtobufCMessage **)&resp),
                     ST_OK);
    assert_int_equal(resp->n_region, 2);
    strata__admin__get_online_region_response__free_unpacked(resp, NULL);
}

static void put_and_get(void **state)
{
    assert_int_equal(put(R1, "a1", "a", "q1", "v1", 100), ST_OK);
    assert_int_equal(put(R1, "a1", "a", "q1", "v2", 200), ST_OK);
    assert_int_equal(put(R1, "a1", "b", "q", "bv", -1), ST_OK);
    Strata__Client__GetResponse *r = NULL;
    assert_int_equal(get(R1, "a1", NULL, &r), ST_OK);
    assert_int_equal(r->result->n_cell, 2);
    assert_true(value_is(find_cell(r->result, "a", "q1"), "v2"));
    assert_true(value_is(find_cell(r->result, "b", "q"), "bv"));
    assert_int_equal(find_cell(r->result, "a", "q1")->timestamp, 200);
    strata__client__get_response__free_unpacked(r, NULL);

    get_opts versions = {.fam = "a", .qual = "q1", .versions = 2};
    assert_int_equal(get(R1, "a1", &versions, &r), ST_OK);
    assert_int_equal(r->result->n_cell, 2);
    assert_true(value_is(r->result->cell[0], "v2") && value_is(r->result->cell[1], "v1"));
    strata__client__get_response__free_unpacked(r, NULL);

    get_opts range = {.fam = "a", .versions = 3, .from = 50, .to = 150};
    assert_int_equal(get(R1, "a1", &range, &r), ST_OK);
    assert_int_equal(r->result->n_cell, 1);
    assert_true(value_is(r->result->cell[0], "v1"));
    strata__client__get_response__free_unpacked(r, NULL);

    get_opts family = {.fam = "b"};
    assert_int_equal(get(R1, "a1", &family, &r), ST_OK);
    assert_int_equal(r->result->n_cell, 1);
    strata__client__get_response__free_unpacked(r, NULL);

    get_opts filt = {.filter = "ValueFilter(=, 'binary:bv') OR QualifierFilter(=, 'binary:zz')"};
    assert_int_equal(get(R1, "a1", &filt, &r), ST_OK);
    assert_int_equal(r->result->n_cell, 1);
    assert_true(value_is(find_cell(r->result, "b", "q"), "bv"));
    strata__client__get_response__free_unpacked(r, NULL);

    assert_int_equal(get(R1, "b-nothing", NULL, &r), ST_OK);
    assert_true(!r->result || r->result->n_cell == 0);
    strata__client__get_response__free_unpacked(r, NULL);
}

static void deletes(void **state)
{
    char v[64];
    int del = STRATA__CLIENT__MUTATION_PROTO__MUTATION_TYPE__DELETE;
    assert_int_equal(put(R1, "d1", "a", "q", "old", 10), ST_OK);
    assert_int_equal(put(R1, "d1", "a", "q", "new", 20), ST_OK);
    assert_int_equal(put(R1, "d1", "b", "q", "bv", 20), ST_OK);
    Strata__Client__Cell c;
    cell_init(&c, "a", "q", NULL, 20, 8); /* Delete: one version */
    assert_int_equal(mutate1(R1, "d1", del, &c, NULL, NULL), ST_OK);
    assert_int_equal(get_value(R1, "d1", "a", "q", v, sizeof(v)), 1);
    assert_string_equal(v, "old");
    cell_init(&c, "a", "q", NULL, -1, 12); /* DeleteColumn: all versions */
    assert_int_equal(mutate1(R1, "d1", del, &c, NULL, NULL), ST_OK);
    assert_int_equal(get_value(R1, "d1", "a", "q", v, sizeof(v)), 0);
    cell_init(&c, "b", "", NULL, -1, 14); /* DeleteFamily */
    assert_int_equal(mutate1(R1, "d1", del, &c, NULL, NULL), ST_OK);
    assert_int_equal(get_value(R1, "d1", "b", "q", v, sizeof(v)), 0);
    /* a whole row: a Delete without cells */
    assert_int_equal(put(R1, "d2", "a", "q", "x", -1), ST_OK);
    assert_int_equal(put(R1, "d2", "b", "q", "y", -1), ST_OK);
    assert_int_equal(mutate1(R1, "d2", del, NULL, NULL, NULL), ST_OK);
    Strata__Client__GetResponse *r = NULL;
    assert_int_equal(get(R1, "d2", NULL, &r), ST_OK);
    assert_true(!r->result || r->result->n_cell == 0);
    strata__client__get_response__free_unpacked(r, NULL);
    /* a Put type in a Delete is refused */
    cell_init(&c, "a", "q", NULL, -1, 4);
    assert_int_equal(mutate1(R1, "d2", del, &c, NULL, NULL), ST_INVALID_ARGUMENT);
}

static void increment_and_append(void **state)
{
    uint8_t amount[8];
    char v[64];
    Strata__Client__Cell c;
    Strata__Client__MutateResponse *r = NULL;
    int inc = STRATA__CLIENT__MUTATION_PROTO__MUTATION_TYPE__INCREMENT;
    cell_init(&c, "a", "cnt", NULL, -1, -1);
    c.has_value = 1;
    c.value = (ProtobufCBinaryData){8, amount};
    be64_put(amount, 5);
    assert_int_equal(mutate1(R1, "c1", inc, &c, NULL, &r), ST_OK);
    assert_int_equal(r->result->n_cell, 1);
    assert_int_equal(be64_get(r->result->cell[0]->value.data), 5);
    strata__client__mutate_response__free_unpacked(r, NULL);
    be64_put(amount, (uint64_t)-2);
    assert_int_equal(mutate1(R1, "c1", inc, &c, NULL, &r), ST_OK);
    assert_int_equal(be64_get(r->result->cell[0]->value.data), 3);
    strata__client__mutate_response__free_unpacked(r, NULL);
    c.value.len = 3; /* not an 8-byte amount */
    assert_int_equal(mutate1(R1, "c1", inc, &c, NULL, NULL), ST_INVALID_ARGUMENT);

    int app = STRATA__CLIENT__MUTATION_PROTO__MUTATION_TYPE__APPEND;
    cell_init(&c, "a", "s", "ab", -1, -1);
    assert_int_equal(mutate1(R1, "c1", app, &c, NULL, NULL), ST_OK);
    cell_init(&c, "a", "s", "cd", -1, -1);
    assert_int_equal(mutate1(R1, "c1", app, &c, NULL, &r), ST_OK);
    assert_true(value_is(r->result->cell[0], "abcd"));
    strata__client__mutate_response__free_unpacked(r, NULL);
    assert_int_equal(get_value(R1, "c1", "a", "s", v, sizeof(v)), 1);
    assert_string_equal(v, "abcd");
}

static bool check_and_put(const char *fam, const char *qual, int op, const char *value,
                          const char *put_qual)
{
    Strata__Client__Condition cond = STRATA__CLIENT__CONDITION__INIT;
    cond.family = bin(fam);
    cond.qualifier = bin(qual);
    cond.compare_op = op;
    if (value) {
        cond.has_value = 1;
        cond.value = bin(value);
    }
    Strata__Client__Cell c;
    cell_init(&c, "a", put_qual, "set", -1, -1);
    Strata__Client__MutateResponse *r = NULL;
    assert_int_equal(mutate1(R1, "c1", STRATA__CLIENT__MUTATION_PROTO__MUTATION_TYPE__PUT, &c,
                             &cond, &r),
                     ST_OK);
    bool done = r->has_processed && r->processed;
    strata__client__mutate_response__free_unpacked(r, NULL);
    return done;
}

static void check_and_mutate(void **state)
{
    char v[64];
    /* c1/a:s is "abcd"; HBase's rule: value <op> existing */
    assert_true(check_and_put("a", "s", STRATA__CLIENT__COMPARE_OP__EQUAL, "abcd", "x1"));
    assert_int_equal(get_value(R1, "c1", "a", "x1", v, sizeof(v)), 1);
    assert_false(check_and_put("a", "s", STRATA__CLIENT__COMPARE_OP__EQUAL, "zz", "x2"));
    assert_int_equal(get_value(R1, "c1", "a", "x2", v, sizeof(v)), 0);
    assert_true(check_and_put("a", "s", STRATA__CLIENT__COMPARE_OP__GREATER, "zzzz", "x3"));
    assert_false(check_and_put("a", "s", STRATA__CLIENT__COMPARE_OP__LESS, "zzzz", "x4"));
    assert_true(check_and_put("a", "s", STRATA__CLIENT__COMPARE_OP__NOT_EQUAL, "q", "x5"));
    assert_true(check_and_put("a", "none", STRATA__CLIENT__COMPARE_OP__EQUAL, NULL, "x6"));
    assert_false(check_and_put("a", "s", STRATA__CLIENT__COMPARE_OP__EQUAL, NULL, "x7"));
    assert_int_equal(get_value(R1, "c1", "a", "x7", v, sizeof(v)), 0);
    /* a Delete under a condition */
    Strata__Client__Condition cond = STRATA__CLIENT__CONDITION__INIT;
    cond.family = bin("a");
    cond.qualifier = bin("x1");
    cond.compare_op = STRATA__CLIENT__COMPARE_OP__EQUAL;
    cond.has_value = 1;
    cond.value = bin("set");
    Strata__Client__Cell c;
    cell_init(&c, "a", "x1", NULL, -1, 12);
    assert_int_equal(mutate1(R1, "c1", STRATA__CLIENT__MUTATION_PROTO__MUTATION_TYPE__DELETE, &c,
                             &cond, NULL),
                     ST_OK);
    assert_int_equal(get_value(R1, "c1", "a", "x1", v, sizeof(v)), 0);
}

static void multi_across_regions(void **state)
{
    Strata__Client__Cell c1, c2, c3;
    cell_init(&c1, "a", "q", "one", -1, -1);
    cell_init(&c2, "a", "q", "two", -1, -1);
    cell_init(&c3, "zz", "q", "bad", -1, -1);
    Strata__Client__Cell *p1[] = {&c1}, *p2[] = {&c2}, *p3[] = {&c3};
    Strata__Client__MutationProto m1 = STRATA__CLIENT__MUTATION_PROTO__INIT;
    Strata__Client__MutationProto m2 = STRATA__CLIENT__MUTATION_PROTO__INIT;
    Strata__Client__MutationProto m3 = STRATA__CLIENT__MUTATION_PROTO__INIT;
    m1.row = bin("e1"), m1.n_cell = 1, m1.cell = p1;
    m2.row = bin("x1"), m2.n_cell = 1, m2.cell = p2;
    m3.row = bin("x2"), m3.n_cell = 1, m3.cell = p3; /* unknown family */
    Strata__Client__Get g = STRATA__CLIENT__GET__INIT;
    g.row = bin("a1");
    Strata__Client__Action a[5];
    for (int i = 0; i < 5; i++) {
        strata__client__action__init(&a[i]);
        a[i].has_index = 1;
        a[i].index = (uint32_t)i;
    }
    a[0].mutation = &m1;
    a[1].get = &g;
    a[2].mutation = &m2;
    a[3].mutation = &m3;
    a[4].mutation = &m1;
    Strata__Client__Action *ra1[] = {&a[0], &a[1]}, *ra2[] = {&a[2], &a[3]}, *ra3[] = {&a[4]};
    Strata__Client__RegionAction r[3];
    for (int i = 0; i < 3; i++)
        strata__client__region_action__init(&r[i]);
    r[0].region = spec_of(R1), r[0].n_action = 2, r[0].action = ra1;
    r[1].region = spec_of(R2), r[1].n_action = 2, r[1].action = ra2;
    r[2].region = spec_of("nosuchregion"), r[2].n_action = 1, r[2].action = ra3;
    Strata__Client__RegionAction *rp[] = {&r[0], &r[1], &r[2]};
    Strata__Client__MultiRequest req = STRATA__CLIENT__MULTI_REQUEST__INIT;
    req.n_region_action = 3;
    req.region_action = rp;
    Strata__Client__MultiResponse *resp = NULL;
    assert_int_equal(call("ClientService.Multi", &req.base,
                          &strata__client__multi_response__descriptor, (ProtobufCMessage **)&resp),
                     ST_OK);
    assert_int_equal(resp->n_region_action_result, 3);
    Strata__Client__RegionActionResult **rr = resp->region_action_result;
    assert_null(rr[0]->error);
    assert_int_equal(rr[0]->n_result, 2);
    assert_null(rr[0]->result[0]->error);
    assert_int_equal(rr[0]->result[1]->index, 1);
    assert_true(value_is(find_cell(rr[0]->result[1]->result, "a", "q1"), "v2"));
    assert_int_equal(rr[1]->n_result, 2);
    assert_null(rr[1]->result[0]->error);
    assert_non_null(rr[1]->result[1]->error);
    assert_int_equal(rr[1]->result[1]->error->code, ST_UNKNOWN_FAMILY);
    assert_false(rr[1]->result[1]->error->retryable);
    assert_non_null(rr[2]->error);
    assert_int_equal(rr[2]->error->code, ST_NOT_SERVING);
    assert_true(rr[2]->error->retryable);
    assert_int_equal(rr[2]->n_result, 0);
    strata__client__multi_response__free_unpacked(resp, NULL);
    char v[64];
    assert_int_equal(get_value(R1, "e1", "a", "q", v, sizeof(v)), 1);
    assert_string_equal(v, "one");
    assert_int_equal(get_value(R2, "x1", "a", "q", v, sizeof(v)), 1);
    assert_string_equal(v, "two");
}

static void scans(void **state)
{
    char row[16], val[16];
    for (int i = 0; i < 20; i++) {
        snprintf(row, sizeof(row), "s%02d", i);
        snprintf(val, sizeof(val), "v%02d", i);
        assert_int_equal(put(R2, row, "a", "q", val, -1), ST_OK);
        assert_int_equal(put(R2, row, "b", "q", val, -1), ST_OK);
    }
    static char out[16384];
    scan_opts whole = {.start = "s", .stop = "t", .rows = 3};
    assert_int_equal(scan_all(R2, &whole, out, sizeof(out)), 20);
    assert_non_null(strstr(out, "s00/a:q=v00;s00/b:q=v00;s01/a:q=v01;"));
    assert_non_null(strstr(out, "s19/b:q=v19;"));
    assert_true(strstr(out, "s05") < strstr(out, "s06"));

    scan_opts batch = {.start = "s", .stop = "t", .rows = 7, .batch = 1};
    assert_int_equal(scan_all(R2, &batch, out, sizeof(out)), 40);
    assert_non_null(strstr(out, "s00/a:q=v00;+s00/b:q=v00;s01/a:q=v01;+"));

    scan_opts rev = {.start = "s19", .stop = "s0", .rows = 4, .reversed = true};
    assert_int_equal(scan_all(R2, &rev, out, sizeof(out)), 20); /* "s00" > "s0" */
    assert_true(strncmp(out, "s19/a:q=v19;s19/b:q=v19;s18/", 28) == 0);

    /* the whole region, clamped: rows of r1 never show up */
    scan_opts all = {.rows = 100};
    assert_int_equal(scan_all(R2, &all, out, sizeof(out)), 21); /* s00..s19, x1 */
    assert_null(strstr(out, "a1/"));

    /* close mid-way frees the scanner */
    Strata__Client__ScanResponse *r = NULL;
    assert_int_equal(scan_open(R2, &whole, &r), ST_OK);
    uint64_t id = r->scanner_id;
    assert_true(r->more_results_in_region);
    strata__client__scan_response__free_unpacked(r, NULL);
    assert_int_equal(open_scanners(), 1);
    assert_int_equal(scan_next(id, 0, true, &r), ST_OK);
    assert_false(r->more_results_in_region);
    strata__client__scan_response__free_unpacked(r, NULL);
    assert_int_equal(open_scanners(), 0);
    assert_int_equal(scan_next(id, 1, false, &r), ST_NOT_FOUND);
}

static void errors_clients_act_on(void **state)
{
    Strata__Client__GetResponse *r = NULL;
    assert_int_equal(get(R1, "zebra", NULL, &r), ST_NOT_SERVING);
    assert_non_null(strstr(st_errmsg(), R1));
    assert_int_equal(get(R2, "a1", NULL, &r), ST_NOT_SERVING);
    assert_int_equal(get("unknownregion", "a1", NULL, &r), ST_NOT_SERVING);
    assert_non_null(strstr(st_errmsg(), "unknownregion"));
    assert_int_equal(put(R1, "a1", "nofam", "q", "v", -1), ST_UNKNOWN_FAMILY);
    assert_non_null(strstr(st_errmsg(), "nofam"));
    get_opts badfam = {.fam = "nofam"};
    assert_int_equal(get(R1, "a1", &badfam, &r), ST_UNKNOWN_FAMILY);
    get_opts badfilter = {.filter = "NoSuchFilter('x')"};
    assert_int_equal(get(R1, "a1", &badfilter, &r), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "NoSuchFilter"));
    scan_opts so = {.rows = 1};
    Strata__Client__ScanResponse *sr = NULL;
    assert_int_equal(scan_open("unknownregion", &so, &sr), ST_NOT_SERVING);
    /* garbage body */
    buf_t out = {0};
    assert_int_equal(rpc_client_call(F.client, F.addr, "ClientService.Get", "\xff\xff", 2,
                                     TIMEOUT_MS, &out),
                     ST_INVALID_ARGUMENT);
    buf_free(&out);
}

static void close_then_reopen(void **state)
{
    Strata__Client__ScanResponse *sr = NULL;
    scan_opts so = {.rows = 1};
    assert_int_equal(scan_open(R1, &so, &sr), ST_OK); /* left open across the close */
    uint64_t id = sr->scanner_id;
    strata__client__scan_response__free_unpacked(sr, NULL);

    Strata__Admin__CloseRegionRequest req = STRATA__ADMIN__CLOSE_REGION_REQUEST__INIT;
    req.encoded_name = R1;
    Strata__Admin__CloseRegionResponse *resp = NULL;
    assert_int_equal(call("AdminService.CloseRegion", &req.base,
                          &strata__admin__close_region_response__descriptor,
                          (ProtobufCMessage **)&resp),
                     ST_OK);
    assert_true(resp->closed);
    strata__admin__close_region_response__free_unpacked(resp, NULL);
    Strata__Client__GetResponse *r = NULL;
    assert_int_equal(get(R1, "a1", NULL, &r), ST_NOT_SERVING);
    assert_int_equal(scan_next(id, 1, false, &sr), ST_NOT_SERVING);
    assert_int_equal(call("AdminService.CloseRegion", &req.base,
                          &strata__admin__close_region_response__descriptor, NULL),
                     ST_NOT_SERVING);

    /* R2 is still open, R1 opens again with its data (flushed by the close) */
    open_regions2(STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__OPENED,
                  STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__ALREADY_OPENED);
    char v[64];
    assert_int_equal(get_value(R1, "a1", "a", "q1", v, sizeof(v)), 1);
    assert_string_equal(v, "v2");
    Strata__Admin__GetRegionInfoRequest ir = STRATA__ADMIN__GET_REGION_INFO_REQUEST__INIT;
    ir.encoded_name = R1;
    Strata__Admin__GetRegionInfoResponse *info = NULL;
    assert_int_equal(call("AdminService.GetRegionInfo", &ir.base,
                          &strata__admin__get_region_info_response__descriptor,
                          (ProtobufCMessage **)&info),
                     ST_OK);
    assert_string_equal(info->region->encoded_name, R1);
    assert_true(info->load->store_files >= 1);
    strata__admin__get_region_info_response__free_unpacked(info, NULL);
}

/* GetServerLoad from another thread while R1 closes and reopens again and again. */
typedef struct load_poller {
    atomic_bool stop;
    int calls, failures, bad_names;
    char why[256];
} load_poller;

static void *poll_loads(void *arg)
{
    load_poller *p = arg;
    while (!atomic_load(&p->stop)) {
        Strata__Admin__GetServerLoadRequest req = STRATA__ADMIN__GET_SERVER_LOAD_REQUEST__INIT;
        Strata__Admin__GetServerLoadResponse *resp = NULL;
        int rc = rpc_proto_call(F.client, F.addr, "AdminService.GetServerLoad", &req.base,
                                TIMEOUT_MS, &strata__admin__get_server_load_response__descriptor,
                                (ProtobufCMessage **)&resp);
        p->calls++;
        if (rc != ST_OK) {
            p->failures++;
            snprintf(p->why, sizeof(p->why), "%s", st_errmsg());
            continue;
        }
        for (size_t i = 0; i < resp->n_region; i++) {
            const char *n = resp->region[i]->encoded_name;
            if (!n || (strcmp(n, R1) != 0 && strcmp(n, R2) != 0))
                p->bad_names++;
        }
        strata__admin__get_server_load_response__free_unpacked(resp, NULL);
    }
    return NULL;
}

/* Regression stress: GetServerLoad (and the heartbeat) packed region names after
 * releasing the regions, so a close finishing in that window freed them first. The window
 * is short: this catches it only sometimes, and only with a sanitized server (CI runs this
 * test with one); every answer must name only the two regions. */
static void server_load_during_close_and_reopen(void **state)
{
    load_poller p = {.stop = false};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, poll_loads, &p), 0);
    for (int round = 0; round < 40; round++) {
        Strata__Admin__CloseRegionRequest req = STRATA__ADMIN__CLOSE_REGION_REQUEST__INIT;
        req.encoded_name = R1;
        assert_int_equal(call("AdminService.CloseRegion", &req.base,
                              &strata__admin__close_region_response__descriptor, NULL),
                         ST_OK);
        open_regions2(STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__OPENED,
                      STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__ALREADY_OPENED);
    }
    atomic_store(&p.stop, true);
    pthread_join(th, NULL);
    print_message("GetServerLoad: %d calls during 40 closes and reopens\n", p.calls);
    if (p.failures)
        fail_msg("%d of %d GetServerLoad calls failed; last: %s", p.failures, p.calls, p.why);
    assert_int_equal(p.bad_names, 0);
    assert_true(p.calls > 0);
}

/* Regression: a CloseRegion asking for no flush must not strand acknowledged edits in
 * this server's WAL (a reopen here replays only recovered edits): the server flushes. */
static void close_without_flush_then_reopen_keeps_writes(void **state)
{
    (void)state;
    assert_int_equal(put(R1, "bnf", "a", "q1", "kept", 0), ST_OK);
    Strata__Admin__CloseRegionRequest req = STRATA__ADMIN__CLOSE_REGION_REQUEST__INIT;
    req.encoded_name = R1;
    req.has_flush = 1;
    req.flush = 0;
    assert_int_equal(call("AdminService.CloseRegion", &req.base,
                          &strata__admin__close_region_response__descriptor, NULL),
                     ST_OK);
    open_regions2(STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__OPENED,
                  STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__ALREADY_OPENED);
    char v[64];
    assert_int_equal(get_value(R1, "bnf", "a", "q1", v, sizeof(v)), 1);
    assert_string_equal(v, "kept");
}

/* The child of scanner_lease_*: opens a scanner, reads one batch, tells the parent, and
 * waits to be killed. */
static int scan_child(const char *addr)
{
    snprintf(F.addr, sizeof(F.addr), "%s", addr);
    if (rpc_client_new(NULL, &F.client) != ST_OK)
        return 2;
    Strata__Client__Scan sc = STRATA__CLIENT__SCAN__INIT;
    Strata__Client__ScanRequest req = STRATA__CLIENT__SCAN_REQUEST__INIT;
    Strata__Client__RegionSpecifier rs = STRATA__CLIENT__REGION_SPECIFIER__INIT;
    rs.encoded_name = R2;
    req.region = &rs;
    req.scan = &sc;
    req.has_number_of_rows = 1;
    req.number_of_rows = 2;
    Strata__Client__ScanResponse *r = NULL;
    if (call("ClientService.Scan", &req.base, &strata__client__scan_response__descriptor,
             (ProtobufCMessage **)&r) != ST_OK || r->n_results != 2 || !r->more_results_in_region)
        return 3;
    printf("scanning\n");
    fflush(stdout);
    for (;;)
        pause();
}

static void scanner_lease_expires_after_client_killed(void **state)
{
    int fds[2];
    assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
    const char *argv[] = {"test_regionserver", "--scan-child", F.addr, NULL};
    proc_spec spec = {
        .argv = argv, .path = "/proc/self/exe", .stdout_fd = fds[1], .kill_at_exit = true};
    pid_t pid = 0;
    assert_int_equal(proc_spawn(&spec, &pid), ST_OK);
    close(fds[1]);
    char line[32] = "";
    ssize_t n = read(fds[0], line, sizeof(line) - 1); /* bounded by the child's call timeout */
    close(fds[0]);
    assert_true(n > 0 && strncmp(line, "scanning", 8) == 0);
    assert_int_equal(open_scanners(), 1);
    assert_int_equal(proc_kill(pid, NULL), ST_OK);
    uint64_t start = clock_mono_ns(), left = 1;
    while ((left = open_scanners()) != 0 && clock_mono_ns() - start < 10000000000ull)
        clock_sleep_ms(50);
    assert_int_equal(left, 0);
    /* not before the lease (1000 ms) */
    assert_true(clock_mono_ns() - start >= 500000000ull);
}

static void sigterm_exits_zero_and_restart_serves_data(void **state)
{
    assert_int_equal(put(R2, "t1", "a", "q", "before-term", -1), ST_OK);
    proc_signal(F.pid, SIGTERM);
    int status = wait_exit(F.pid, 30000);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    start_server(0); /* any port: a clean stop leaves no WAL behind */
    open_regions(STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__OPENED);
    char v[64];
    assert_int_equal(get_value(R2, "t1", "a", "q", v, sizeof(v)), 1);
    assert_string_equal(v, "before-term");
    assert_int_equal(get_value(R1, "c1", "a", "s", v, sizeof(v)), 1);
    assert_string_equal(v, "abcd");
    Strata__Admin__GetServerLoadResponse *l = server_load();
    assert_int_equal(l->n_region, 2);
    assert_true(l->store_files >= 2);
    strata__admin__get_server_load_response__free_unpacked(l, NULL);
}

static void sigkill_then_restart_replays_the_wal(void **state)
{
    char row[16], v[64];
    /* rows k.. sort before "m" (R1), rows w.. after it (R2) */
    for (int i = 0; i < 50; i++) {
        snprintf(row, sizeof(row), "k%02d", i);
        assert_int_equal(put(R1, row, "a", "q", row, -1), ST_OK);
        snprintf(row, sizeof(row), "w%02d", i);
        assert_int_equal(put(R2, row, "b", "q", row, -1), ST_OK);
    }
    int port = F.port;
    proc_signal(F.pid, SIGKILL);
    wait_exit(F.pid, 10000);
    start_server(port); /* the same host:port: its old WAL dir is split on start */
    open_regions(STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__OPENED);
    for (int i = 0; i < 50; i++) {
        snprintf(row, sizeof(row), "k%02d", i);
        assert_int_equal(get_value(R1, row, "a", "q", v, sizeof(v)), 1);
        assert_string_equal(v, row);
    }
    for (int i = 0; i < 50; i++) {
        snprintf(row, sizeof(row), "w%02d", i);
        assert_int_equal(get_value(R2, row, "b", "q", v, sizeof(v)), 1);
        assert_string_equal(v, row);
    }
    assert_int_equal(get_value(R2, "t1", "a", "q", v, sizeof(v)), 1);
}

static void final_sigterm(void **state)
{
    proc_signal(F.pid, SIGTERM);
    int status = wait_exit(F.pid, 30000);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--scan-child") == 0)
        return scan_child(argv[2]);
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_regionserver", "STRATA_BIN is not set (ctest sets it)");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(open_two_regions),
        cmocka_unit_test(put_and_get),
        cmocka_unit_test(deletes),
        cmocka_unit_test(increment_and_append),
        cmocka_unit_test(check_and_mutate),
        cmocka_unit_test(multi_across_regions),
        cmocka_unit_test(scans),
        cmocka_unit_test(errors_clients_act_on),
        cmocka_unit_test(close_then_reopen),
        cmocka_unit_test(close_without_flush_then_reopen_keeps_writes),
        cmocka_unit_test(server_load_during_close_and_reopen),
        cmocka_unit_test(scanner_lease_expires_after_client_killed),
        cmocka_unit_test(sigterm_exits_zero_and_restart_serves_data),
        cmocka_unit_test(sigkill_then_restart_replays_the_wal),
        cmocka_unit_test(final_sigterm),
    };
    return tu_run_group_tests(tests, group_setup, group_teardown);
}
