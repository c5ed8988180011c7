/*
 * test_cluster.c - the cluster as a whole (docs/master.md): real ZooKeeper, masters and
 * region servers started by `strata cluster` (tests/support/cluster.h), driven through the
 * admin API (client/admin_rpc.h) and the client (strata/strata.h) with the master-backed
 * locator.
 *
 * Tests:
 *   - a 16-region pre-split table on 3 region servers: every region open exactly once;
 *     meta, the ownership znodes and the servers' own lists (GetOnlineRegion) agree;
 *   - regions moved back and forth under a continuous writer/reader: no error reaches the
 *     client, every acknowledged write is read back;
 *   - a region server stopped gracefully (SIGTERM): its regions reopen elsewhere, data
 *     intact; a region server killed (SIGKILL): its WAL is split and its regions reopen
 *     with every acknowledged write;
 *   - a region of a killed region server is not assigned elsewhere (not even by an explicit
 *     AssignRegion) before that server's WAL is split;
 *   - heartbeats carry each server's regions and request counts to the master; a region
 *     server paused past its session is declared dead, its regions reopen elsewhere with
 *     every write, and once resumed it exits;
 *   - the active master killed (SIGKILL): a backup is active within the session timeout
 *     plus a few seconds, reads and writes on cached locations never fail, DDL works after;
 *   - the active master killed in the middle of a create and of a disable: the next one
 *     finishes both from meta (every region open exactly once / closed, table state final);
 *   - the whole cluster stopped and started again: tables, regions and data come back,
 *     rows are found in regions whose meta rows are not in start-key order;
 *   - DDL: namespaces, create/describe/list/alter/disable/enable/truncate/drop, flush,
 *     compact, assign/unassign, status; and every kind of bad input answered with a clear
 *     error that changes nothing.
 *
 * Every cluster is stopped at the end of its test, and by tests/support/cluster.c's atexit
 * handler and watchdog if the test fails. Waits are bounded. Needs STRATA_BIN (CTest).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client/admin_rpc.h"
#include "common/clock.h"
#include "common/proto/admin.pb-c.h"
#include "common/proto/master.pb-c.h"
#include "common/rpc/rpc_client.h"
#include "common/server_name.h"
#include "common/status.h"
#include "common/zk/zk.h"
#include "strata/strata.h"
#include "tests/support/cluster.h"
#include "tests/support/proc.h"
#include "tests/support/testutil.h"

#define SESSION_MS 4000

/* ---- helpers ---- */

static tc_cluster *start_cluster(int masters, int rs)
{
    tc_options o = {.masters = masters, .regionservers = rs, .session_timeout_ms = SESSION_MS};
    tc_cluster *c = NULL;
    int rc = tc_start(&o, &c);
    if (rc != ST_OK)
        fail_msg("cluster start: %s", st_errmsg());
    return c;
}

static admin_rpc *admin_for(tc_cluster *c)
{
    admin_rpc *a = NULL;
    assert_int_equal(admin_rpc_open(tc_quorum(c), tc_parent(c), &a), ST_OK);
    return a;
}

static strata_client_t *client_for(tc_cluster *c)
{
    strata_options_t *o = strata_options_create();
    strata_options_set_zk_quorum(o, tc_quorum(c));
    strata_options_set_zk_parent(o, tc_parent(c));
    strata_options_set_operation_timeout_ms(o, 60000);
    char *err = NULL;
    strata_client_t *cl = strata_client_open(o, &err);
    strata_options_destroy(o);
    if (!cl)
        fail_msg("client open: %s", err ? err : "?");
    return cl;
}

static void create_table(admin_rpc *a, const char *name, const char *families, uint32_t nregions)
{
    Strata__Admin__TableSchema *s = NULL;
    assert_int_equal(admin_rpc_schema_new(name, families, &s), ST_OK);
    int rc = nregions > 1 ? admin_rpc_create_table_presplit(a, s, nregions, NULL)
                          : admin_rpc_create_table(a, s, NULL, 0);
    admin_rpc_schema_free(s);
    if (rc != ST_OK)
        fail_msg("create table %s: %s", name, st_errmsg());
}

/* Every region of table open on a server (bounded wait). */
static void wait_all_open(admin_rpc *a, const char *table, int64_t timeout_ms)
{
    int64_t until = clock_now_ms() + timeout_ms;
    for (;;) {
        Strata__Master__GetTableRegionsResponse *r = NULL;
        int rc = admin_rpc_table_regions(a, table, &r);
        size_t open = 0, n = r ? r->n_location : 0;
        for (size_t i = 0; i < n; i++)
            if (r->location[i]->server && r->location[i]->state == STRATA__MASTER__REGION_STATE__OPEN)
                open++;
        admin_rpc_free_msg(r);
        if (rc == ST_OK && n > 0 && open == n)
            return;
        if (clock_now_ms() > until)
            fail_msg("table %s: %zu of %zu regions open after %lld ms (%s)", table, open, n,
                     (long long)timeout_ms, rc == ST_OK ? "" : st_errmsg());
        clock_sleep_ms(100);
    }
}


/* Row i's key: 8 hex digits spread over the HexStringSplit regions. */
static void row_key(uint32_t i, char out[16])
{
    uint32_t h = i * 2654435761u;
    snprintf(out, 16, "%08x-%u", h, i);
}

static void put_row(strata_table_t *t, uint32_t i, char **err)
{
    char row[16], val[32];
    row_key(i, row);
    int vl = snprintf(val, sizeof(val), "v%u", i);
    strata_mutation_t *m = strata_put_create(row, strlen(row));
    strata_put_add(m, "cf", 2, "q", 1, STRATA_LATEST_TIMESTAMP, val, (size_t)vl);
    strata_table_put(t, m, err);
    strata_mutation_destroy(m);
}

/* 1 if row i reads back with its value, 0 if missing or wrong; -1 on an error (in *err). */
static int check_row(strata_table_t *t, uint32_t i, char **err)
{
    char row[16], val[32];
    row_key(i, row);
    snprintf(val, sizeof(val), "v%u", i);
    strata_get_t *g = strata_get_create(row, strlen(row));
    strata_result_t *res = strata_table_get(t, g, err);
    strata_get_destroy(g);
    if (*err)
        return -1;
    size_t len = 0;
    const char *v = res ? strata_result_value(res, "cf", 2, "q", 1, &len) : NULL;
    int ok = v && len == strlen(val) && memcmp(v, val, len) == 0;
    strata_result_destroy(res);
    return ok;
}

static void write_rows(strata_client_t *cl, const char *table, uint32_t from, uint32_t to)
{
    strata_table_t *t = strata_table_open(cl, table);
    for (uint32_t i = from; i < to; i++) {
        char *err = NULL;
        put_row(t, i, &err);
        if (err)
            fail_msg("put %u: %s", i, err);
    }
    strata_table_close(t);
}

static void verify_rows(strata_client_t *cl, const char *table, uint32_t from, uint32_t to)
{
    strata_table_t *t = strata_table_open(cl, table);
    for (uint32_t i = from; i < to; i++) {
        char *err = NULL;
        int ok = check_row(t, i, &err);
        if (err)
            fail_msg("get %u: %s", i, err);
        if (ok != 1)
            fail_msg("row %u of %s lost or wrong", i, table);
    }
    strata_table_close(t);
}

/* ---- a continuous writer/reader ---- */

typedef struct load {
    strata_client_t *cl;
    const char *table;
    atomic_bool stop;
    atomic_uint acked; /* rows 0..acked-1 were acknowledged */
    atomic_uint reads;
    atomic_uint errors;
    char first_error[512];
    pthread_t th;
} load;

static void *load_main(void *arg)
{
    load *l = arg;
    strata_table_t *t = strata_table_open(l->cl, l->table);
    uint32_t i = atomic_load(&l->acked);
    while (!atomic_load(&l->stop)) {
        char *err = NULL;
        put_row(t, i, &err);
        if (!err) {
            atomic_store(&l->acked, ++i);
            /* read back an earlier row too */
            int ok = check_row(t, (i * 7919u) % i, &err);
            if (!err && ok != 1) {
                err = strdup("an acknowledged row read back wrong or missing");
            }
            if (!err)
                atomic_fetch_add(&l->reads, 1);
        }
        if (err) {
            if (atomic_fetch_add(&l->errors, 1) == 0)
                snprintf(l->first_error, sizeof(l->first_error), "row %u: %s", i, err);
            strata_free(err);
        }
    }
    strata_table_close(t);
    return NULL;
}

static void load_start(load *l, strata_client_t *cl, const char *table, uint32_t first)
{
    memset(l, 0, sizeof(*l));
    l->cl = cl;
    l->table = table;
    atomic_store(&l->acked, first);
    assert_int_equal(pthread_create(&l->th, NULL, load_main, l), 0);
}

static void load_stop(load *l)
{
    atomic_store(&l->stop, true);
    pthread_join(l->th, NULL);
    if (atomic_load(&l->errors))
        fail_msg("%u errors reached the client; first: %s", atomic_load(&l->errors), l->first_error);
}

/* ---- agreement of meta, ownership znodes and the servers' own lists ---- */

static void check_open_once(tc_cluster *c, admin_rpc *a, const char *table, size_t nregions)
{
    Strata__Master__GetTableRegionsResponse *r = NULL;
    assert_int_equal(admin_rpc_table_regions(a, table, &r), ST_OK);
    assert_int_equal(r->n_location, nregions);

    zk *z = NULL;
    zk_options zo = {.quorum = tc_quorum(c), .session_timeout_ms = 10000, .connect_timeout_ms = 10000};
    assert_int_equal(zk_open(&zo, &z), ST_OK);
    Strata__Master__GetClusterStatusResponse *st = NULL;
    assert_int_equal(admin_rpc_cluster_status(a, &st), ST_OK);
    rpc_client *rpc = NULL;
    assert_int_equal(rpc_client_new(NULL, &rpc), ST_OK);

    /* Each server's own list of online regions. */
    size_t nserv = st->n_live_server;
    char (*names)[SERVER_NAME_MAX] = calloc(nserv, sizeof(*names));
    Strata__Admin__GetOnlineRegionResponse **online = calloc(nserv, sizeof(*online));
    for (size_t s = 0; s < nserv; s++) {
        server_name_format_proto(st->live_server[s]->name, names[s], sizeof(names[s]));
        char addr[300];
        snprintf(addr, sizeof(addr), "%s:%u", st->live_server[s]->name->host,
                 st->live_server[s]->name->port);
        Strata__Admin__GetOnlineRegionRequest req = STRATA__ADMIN__GET_ONLINE_REGION_REQUEST__INIT;
        uint8_t body[16];
        size_t len = strata__admin__get_online_region_request__pack(&req, body);
        buf_t out = {0};
        assert_int_equal(rpc_client_call(rpc, addr, "AdminService.GetOnlineRegion", body, len, 10000,
                                         &out), ST_OK);
        online[s] = strata__admin__get_online_region_response__unpack(NULL, out.len, out.data);
        assert_non_null(online[s]);
        buf_free(&out);
    }
    for (size_t i = 0; i < r->n_location; i++) {
        const Strata__Master__RegionLocation *l = r->location[i];
        const char *enc = l->region->encoded_name;
        assert_int_equal(l->state, STRATA__MASTER__REGION_STATE__OPEN);
        assert_non_null(l->server);
        char meta_server[SERVER_NAME_MAX];
        server_name_format_proto(l->server, meta_server, sizeof(meta_server));
        /* the ownership znode names the same server */
        char path[256];
        snprintf(path, sizeof(path), "%s/region-owner/%s", tc_parent(c), enc);
        uint8_t *data = NULL;
        size_t dlen = 0;
        assert_int_equal(zk_get(z, path, &data, &dlen, NULL), ST_OK);
        Strata__Master__RegionOwner *o = strata__master__region_owner__unpack(NULL, dlen, data);
        assert_non_null(o);
        char owner[SERVER_NAME_MAX];
        server_name_format_proto(o->server, owner, sizeof(owner));
        assert_string_equal(owner, meta_server);
        strata__master__region_owner__free_unpacked(o, NULL);
        free(data);
        /* exactly one server lists it, the one meta names */
        int listed = 0;
        for (size_t s = 0; s < nserv; s++)
            for (size_t k = 0; k < online[s]->n_region; k++)
                if (strcmp(online[s]->region[k]->encoded_name, enc) == 0) {
                    listed++;
                    assert_string_equal(names[s], meta_server);
                }
        if (listed != 1)
            fail_msg("region %s is online on %d servers", enc, listed);
    }
    for (size_t s = 0; s < nserv; s++)
        strata__admin__get_online_region_response__free_unpacked(online[s], NULL);
    free(online);
    free(names);
    rpc_client_free(rpc);
    admin_rpc_free_msg(st);
    admin_rpc_free_msg(r);
    zk_close(z);
}

static bool log_has(tc_cluster *c, const char *name, const char *needle);

/* ---- tests ---- */

static void test_presplit_open_exactly_once(void **state)
{
    tc_cluster *c = start_cluster(1, 3);
    admin_rpc *a = admin_for(c);
    create_table(a, "t16", "cf", 16);
    wait_all_open(a, "t16", 30000);
    check_open_once(c, a, "default:t16", 16);
    /* Every server got some of them. */
    Strata__Master__GetClusterStatusResponse *st = NULL;
    assert_int_equal(admin_rpc_cluster_status(a, &st), ST_OK);
    assert_int_equal(st->n_live_server, 3);
    for (size_t i = 0; i < st->n_live_server; i++)
        assert_true(st->live_server[i]->region_count >= 4);
    assert_int_equal(st->n_in_transition, 0);
    admin_rpc_free_msg(st);
    admin_rpc_close(a);
    assert_int_equal(tc_stop(c), ST_OK);
}

static void test_moves_under_load(void **state)
{
    tc_cluster *c = start_cluster(1, 3);
    admin_rpc *a = admin_for(c);
    create_table(a, "moves", "cf", 8);
    strata_client_t *cl = client_for(c);
    write_rows(cl, "moves", 0, 200);
    load l;
    load_start(&l, cl, "moves", 200);
    Strata__Master__GetTableRegionsResponse *r = NULL;
    assert_int_equal(admin_rpc_table_regions(a, "moves", &r), ST_OK);
    for (int round = 0; round < 24; round++) {
        const char *enc = r->location[round % r->n_location]->region->encoded_name;
        server_name to;
        int rc = admin_rpc_move(a, enc, NULL, &to);
        if (rc != ST_OK)
            fail_msg("move %s: %s", enc, st_errmsg());
        clock_sleep_ms(50);
    }
    clock_sleep_ms(300);
    load_stop(&l);
    assert_true(atomic_load(&l.acked) > 250);
    verify_rows(cl, "moves", 0, atomic_load(&l.acked));
    check_open_once(c, a, "default:moves", 8);
    admin_rpc_free_msg(r);
    strata_client_close(cl);
    admin_rpc_close(a);
    assert_int_equal(tc_stop(c), ST_OK);
}

static void wait_pid_gone(pid_t pid, int64_t timeout_ms)
{
    int64_t until = clock_now_ms() + timeout_ms;
    while (proc_alive(pid)) {
        if (clock_now_ms() > until)
            fail_msg("process %d did not exit within %lld ms", (int)pid, (long long)timeout_ms);
        clock_sleep_ms(50);
    }
}

/* Waits until every region of table is open and none on a server named "prefix...". */
static void wait_moved_off(admin_rpc *a, const char *table, const char *prefix, int64_t timeout_ms)
{
    int64_t until = clock_now_ms() + timeout_ms;
    for (;;) {
        Strata__Master__GetTableRegionsResponse *r = NULL;
        int rc = admin_rpc_table_regions(a, table, &r);
        size_t good = 0, n = r ? r->n_location : 0;
        for (size_t i = 0; i < n; i++) {
            char s[SERVER_NAME_MAX] = "";
            if (r->location[i]->server)
                server_name_format_proto(r->location[i]->server, s, sizeof(s));
            if (s[0] && strncmp(s, prefix, strlen(prefix)) != 0 &&
                r->location[i]->state == STRATA__MASTER__REGION_STATE__OPEN)
                good++;
        }
        admin_rpc_free_msg(r);
        if (rc == ST_OK && n > 0 && good == n)
            return;
        if (clock_now_ms() > until)
            fail_msg("table %s: %zu of %zu regions open off %s after %lld ms", table, good, n,
                     prefix, (long long)timeout_ms);
        clock_sleep_ms(100);
    }
}

static void server_prefix_of(admin_rpc *a, const char *table, size_t idx, char *out, size_t cap)
{
    Strata__Master__GetTableRegionsResponse *r = NULL;
    assert_int_equal(admin_rpc_table_regions(a, table, &r), ST_OK);
    snprintf(out, cap, "%s,%u,", r->location[idx]->server->host, r->location[idx]->server->port);
    admin_rpc_free_msg(r);
}

/* The rs-N whose port is in prefix "host,port,". */
static int rs_index_of(tc_cluster *c, admin_rpc *a, const char *prefix)
{
    Strata__Master__GetClusterStatusResponse *st = NULL;
    assert_int_equal(admin_rpc_cluster_status(a, &st), ST_OK);
    int found = -1;
    for (int i = 1; i <= 3 && found < 0; i++) {
        char path[1200];
        snprintf(path, sizeof(path), "%s/run/rs-%d.ready", tc_dir(c), i);
        FILE *f = fopen(path, "r");
        char line[300] = "";
        if (f) {
            if (!fgets(line, sizeof(line), f))
                line[0] = 0;
            fclose(f);
        }
        char *colon = strrchr(line, ':');
        if (!colon)
            continue;
        char want[300];
        snprintf(want, sizeof(want), "%.*s,%d,", (int)(colon - line), line, atoi(colon + 1));
        if (strcmp(want, prefix) == 0)
            found = i;
    }
    admin_rpc_free_msg(st);
    if (found < 0)
        fail_msg("no rs-N serves %s", prefix);
    return found;
}

static void test_graceful_stop_and_crash(void **state)
{
    tc_cluster *c = start_cluster(1, 3);
    admin_rpc *a = admin_for(c);
    create_table(a, "gs", "cf", 6);
    strata_client_t *cl = client_for(c);
    write_rows(cl, "gs", 0, 300);

    /* Graceful stop: regions closed with a flush and reopened elsewhere. */
    char prefix[300], name[16];
    server_prefix_of(a, "gs", 0, prefix, sizeof(prefix));
    snprintf(name, sizeof(name), "rs-%d", rs_index_of(c, a, prefix));
    pid_t pid = tc_pid(c, name);
    assert_true(pid > 0);
    assert_int_equal(kill(pid, SIGTERM), 0);
    wait_pid_gone(pid, 30000);
    wait_moved_off(a, "gs", prefix, 30000);
    assert_true(log_has(c, "master-1", "(stopping)")); /* ReportRegionClosed reached it */
    verify_rows(cl, "gs", 0, 300);
    write_rows(cl, "gs", 300, 400);

    /* Crash: SIGKILL; unflushed edits come back from the split WAL. */
    server_prefix_of(a, "gs", 0, prefix, sizeof(prefix));
    snprintf(name, sizeof(name), "rs-%d", rs_index_of(c, a, prefix));
    assert_int_equal(tc_kill(c, name), ST_OK);
    wait_moved_off(a, "gs", prefix, SESSION_MS + 30000);
    verify_rows(cl, "gs", 0, 400);
    check_open_once(c, a, "default:gs", 6);

    strata_client_close(cl);
    admin_rpc_close(a);
    assert_int_equal(tc_stop(c), ST_OK);
}

/* Whether the master lists name among the dead servers. */
static bool master_says_dead(admin_rpc *a, const char *name)
{
    Strata__Master__GetClusterStatusResponse *st = NULL;
    if (admin_rpc_cluster_status(a, &st) != ST_OK)
        return false;
    bool dead = false;
    for (size_t i = 0; i < st->n_dead_server && !dead; i++) {
        char s[SERVER_NAME_MAX];
        server_name_format_proto(st->dead_server[i], s, sizeof(s));
        dead = strcmp(s, name) == 0;
    }
    admin_rpc_free_msg(st);
    return dead;
}

/* A region of a dead server whose WALs are not split yet is not opened elsewhere, not even
 * on an explicit AssignRegion: it would serve without the edits only that WAL holds. */
static void test_assign_waits_for_wal_split(void **state)
{
    tc_cluster *c = start_cluster(1, 2);
    admin_rpc *a = admin_for(c);
    create_table(a, "ws", "cf", 1);
    wait_all_open(a, "ws", 30000);
    strata_client_t *cl = client_for(c);
    write_rows(cl, "ws", 0, 50); /* unflushed: only in the server's WAL */

    Strata__Master__GetTableRegionsResponse *r = NULL;
    assert_int_equal(admin_rpc_table_regions(a, "ws", &r), ST_OK);
    char enc[64], victim[SERVER_NAME_MAX], prefix[300], name[16];
    snprintf(enc, sizeof(enc), "%s", r->location[0]->region->encoded_name);
    server_name_format_proto(r->location[0]->server, victim, sizeof(victim));
    admin_rpc_free_msg(r);
    server_prefix_of(a, "ws", 0, prefix, sizeof(prefix));
    snprintf(name, sizeof(name), "rs-%d", rs_index_of(c, a, prefix));

    /* A non-empty directory where the fence would rename the WAL directory: the split
     * fails (and is retried) until it goes. */
    char blocker[1400], fenced[1300];
    snprintf(fenced, sizeof(fenced), "%s/root/WALs/%s-splitting", tc_dir(c), victim);
    snprintf(blocker, sizeof(blocker), "%s/blocker", fenced);
    assert_int_equal(mkdir(fenced, 0755), 0);
    assert_int_equal(mkdir(blocker, 0755), 0);

    assert_int_equal(tc_kill(c, name), ST_OK);
    int64_t until = clock_now_ms() + SESSION_MS + 20000;
    while (!master_says_dead(a, victim)) {
        if (clock_now_ms() > until)
            fail_msg("the master did not declare %s dead", victim);
        clock_sleep_ms(100);
    }
    clock_sleep_ms(300); /* a recovery pass has failed on the blocker */

    Strata__Master__AssignRegionRequest req = STRATA__MASTER__ASSIGN_REGION_REQUEST__INIT;
    req.encoded_name = enc;
    ProtobufCMessage *resp = NULL;
    int rc = admin_rpc_call(a, "MasterService.AssignRegion", &req.base,
                            &strata__master__assign_region_response__descriptor, 2000, &resp);
    admin_rpc_free_msg(resp);
    if (rc == ST_OK)
        fail_msg("region %s of dead server %s was assigned before its WAL was split", enc, victim);

    assert_int_equal(rmdir(blocker), 0);
    assert_int_equal(rmdir(fenced), 0);
    wait_moved_off(a, "ws", prefix, 30000);
    verify_rows(cl, "ws", 0, 50);
    strata_client_close(cl);
    admin_rpc_close(a);
    assert_int_equal(tc_stop(c), ST_OK);
}

static bool log_has(tc_cluster *c, const char *name, const char *needle)
{
    char path[1200];
    snprintf(path, sizeof(path), "%s/logs/%s.log", tc_dir(c), name);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof(line), f))
        found = strstr(line, needle) != NULL;
    fclose(f);
    return found;
}

/* One AdminService call straight to a region server. */
static int rs_call(const char *addr, const char *method, const ProtobufCMessage *req)
{
    rpc_client *rpc = NULL;
    assert_int_equal(rpc_client_new(NULL, &rpc), ST_OK);
    size_t len = protobuf_c_message_get_packed_size(req);
    uint8_t *body = malloc(len + 1);
    protobuf_c_message_pack(req, body);
    buf_t out = {0};
    int rc = rpc_client_call(rpc, addr, method, body, len, 10000, &out);
    free(body);
    buf_free(&out);
    rpc_client_free(rpc);
    return rc;
}

/* Whether the region server at addr lists the region among its online ones. */
static bool online_on(const char *addr, const char *enc)
{
    Strata__Admin__GetRegionInfoRequest req = STRATA__ADMIN__GET_REGION_INFO_REQUEST__INIT;
    req.encoded_name = (char *)enc;
    return rs_call(addr, "AdminService.GetRegionInfo", &req.base) == ST_OK;
}

/* Waits until meta places the region OPEN on a server that serves it. */
static void wait_online_somewhere(tc_cluster *c, admin_rpc *a, const char *enc, int64_t timeout_ms)
{
    (void)c;
    int64_t until = clock_now_ms() + timeout_ms;
    for (;;) {
        Strata__Master__GetClusterStatusResponse *st = NULL;
        bool found = false;
        if (admin_rpc_cluster_status(a, &st) == ST_OK)
            for (size_t i = 0; i < st->n_live_server && !found; i++) {
                char addr[300];
                snprintf(addr, sizeof(addr), "%s:%u", st->live_server[i]->name->host,
                         st->live_server[i]->name->port);
                found = online_on(addr, enc);
            }
        admin_rpc_free_msg(st);
        if (found)
            return;
        if (clock_now_ms() > until)
            fail_msg("region %s was not reopened within %lld ms", enc, (long long)timeout_ms);
        clock_sleep_ms(100);
    }
}

static void test_heartbeats_and_paused_server(void **state)
{
    static const char *const flags[] = {"--regionserver.report.interval.ms=300",
                                        "--master.reconcile.grace.ms=1000", NULL};
    tc_options o = {.masters = 1, .regionservers = 3, .session_timeout_ms = SESSION_MS,
                    .flags = flags};
    tc_cluster *c = NULL;
    if (tc_start(&o, &c) != ST_OK)
        fail_msg("cluster start: %s", st_errmsg());
    admin_rpc *a = admin_for(c);
    create_table(a, "hb", "cf", 6);
    strata_client_t *cl = client_for(c);
    write_rows(cl, "hb", 0, 300);

    /* Heartbeats carry each server's regions and request counts to the master. */
    int64_t until = clock_now_ms() + 10000;
    for (;;) {
        Strata__Master__GetClusterStatusResponse *st = NULL;
        assert_int_equal(admin_rpc_cluster_status(a, &st), ST_OK);
        uint64_t writes = 0;
        size_t regions = 0;
        for (size_t i = 0; i < st->n_live_server; i++) {
            writes += st->live_server[i]->write_requests;
            regions += st->live_server[i]->n_region;
        }
        admin_rpc_free_msg(st);
        if (writes >= 300 && regions == 6)
            break;
        if (clock_now_ms() > until)
            fail_msg("heartbeats show %llu writes over %zu regions", (unsigned long long)writes,
                     regions);
        clock_sleep_ms(200);
    }

    /* A region closed behind the master's back (straight on its server) is noticed in the
     * server's reports and reopened. */
    Strata__Master__GetTableRegionsResponse *r = NULL;
    assert_int_equal(admin_rpc_table_regions(a, "hb", &r), ST_OK);
    char addr[300], enc[64];
    snprintf(addr, sizeof(addr), "%s:%u", r->location[2]->server->host, r->location[2]->server->port);
    snprintf(enc, sizeof(enc), "%s", r->location[2]->region->encoded_name);
    admin_rpc_free_msg(r);
    Strata__Admin__CloseRegionRequest creq = STRATA__ADMIN__CLOSE_REGION_REQUEST__INIT;
    creq.encoded_name = enc;
    assert_int_equal(rs_call(addr, "AdminService.CloseRegion", &creq.base), ST_OK);
    assert_false(online_on(addr, enc));
    wait_online_somewhere(c, a, enc, 20000);
    verify_rows(cl, "hb", 0, 300);
    check_open_once(c, a, "default:hb", 6);

    /* A region opened straight on a server while meta places it nowhere (its table is
     * disabled) is adopted and then closed by the master. */
    create_table(a, "adopt", "cf", 1);
    assert_int_equal(admin_rpc_table_regions(a, "adopt", &r), ST_OK);
    Strata__Admin__RegionInfo ri = *r->location[0]->region;
    snprintf(enc, sizeof(enc), "%s", ri.encoded_name);
    ri.encoded_name = enc;
    char table[64];
    snprintf(table, sizeof(table), "%s", ri.table);
    ri.table = table;
    uint8_t sk[1], ek[1];
    ri.start_key.data = sk;
    ri.end_key.data = ek;
    snprintf(addr, sizeof(addr), "%s:%u", r->location[0]->server->host, r->location[0]->server->port);
    admin_rpc_free_msg(r);
    assert_int_equal(admin_rpc_disable_table(a, "adopt"), ST_OK);
    assert_false(online_on(addr, enc));
    Strata__Admin__TableSchema *schema = NULL;
    assert_int_equal(admin_rpc_schema_new("default:adopt", "cf", &schema), ST_OK);
    Strata__Admin__OpenRegionRequest__RegionOpenInfo oi =
        STRATA__ADMIN__OPEN_REGION_REQUEST__REGION_OPEN_INFO__INIT;
    oi.region = &ri;
    oi.schema = schema;
    Strata__Admin__OpenRegionRequest__RegionOpenInfo *ois[1] = {&oi};
    Strata__Admin__OpenRegionRequest oreq = STRATA__ADMIN__OPEN_REGION_REQUEST__INIT;
    oreq.n_open_info = 1;
    oreq.open_info = ois;
    assert_int_equal(rs_call(addr, "AdminService.OpenRegion", &oreq.base), ST_OK);
    admin_rpc_schema_free(schema);
    assert_true(online_on(addr, enc));
    int64_t deadline = clock_now_ms() + 20000;
    while (online_on(addr, enc)) {
        if (clock_now_ms() > deadline)
            fail_msg("region %s opened behind the master's back is still open on %s", enc, addr);
        clock_sleep_ms(100);
    }

    /* A paused server: declared dead, its regions reopen elsewhere with every write; once
     * resumed it learns it is dead and exits. */
    char prefix[300], name[16];
    server_prefix_of(a, "hb", 0, prefix, sizeof(prefix));
    snprintf(name, sizeof(name), "rs-%d", rs_index_of(c, a, prefix));
    pid_t pid = tc_pid(c, name);
    assert_int_equal(kill(pid, SIGSTOP), 0);
    wait_moved_off(a, "hb", prefix, SESSION_MS + 30000);
    verify_rows(cl, "hb", 0, 300);
    write_rows(cl, "hb", 300, 400);
    assert_int_equal(kill(pid, SIGCONT), 0);
    wait_pid_gone(pid, 15000);
    assert_true(log_has(c, name, "ZooKeeper session expired") || log_has(c, name, "is dead"));
    verify_rows(cl, "hb", 0, 400);
    check_open_once(c, a, "default:hb", 6);
    strata_client_close(cl);
    admin_rpc_close(a);
    assert_int_equal(tc_stop(c), ST_OK);
}

static void test_kill_active_master(void **state)
{
    tc_cluster *c = start_cluster(2, 3);
    admin_rpc *a = admin_for(c);
    create_table(a, "km", "cf", 6);
    strata_client_t *cl = client_for(c);
    write_rows(cl, "km", 0, 300); /* caches every region's location */
    verify_rows(cl, "km", 0, 300);
    char before[32] = "", after[32] = "";
    assert_int_equal(tc_active_master(c, before, sizeof(before)), ST_OK);
    assert_true(before[0]);

    load l;
    load_start(&l, cl, "km", 300);
    clock_sleep_ms(200);
    int64_t t0 = clock_now_ms();
    assert_int_equal(tc_kill(c, "master-active"), ST_OK);
    /* With no master active, a whole-table scan goes by the cached locations: it needs no
     * master (it used to ask for the table's regions at every region, and so waited for
     * the takeover, which cannot come before the dead master's session expires). */
    {
        char *err = NULL;
        strata_table_t *t = strata_table_open(cl, "km");
        strata_scan_t *sc = strata_scan_create();
        strata_scanner_t *it = strata_table_scan(t, sc, &err);
        strata_scan_destroy(sc);
        assert_null(err);
        int rows = 0;
        strata_result_t *r;
        while ((r = strata_scanner_next(it, &err)) != NULL) {
            rows++;
            strata_result_destroy(r);
        }
        strata_scanner_close(it);
        strata_table_close(t);
        if (err)
            fail_msg("scan while no master is active: %s", err);
        int64_t took = clock_now_ms() - t0;
        print_message("scanned %d rows %lld ms after the master's kill\n", rows, (long long)took);
        assert_true(rows >= 300);
        assert_true(took < SESSION_MS);
    }
    int64_t limit = SESSION_MS + 8000;
    for (;;) {
        assert_int_equal(tc_active_master(c, after, sizeof(after)), ST_OK);
        if (after[0] && strcmp(after, before) != 0)
            break;
        if (clock_now_ms() - t0 > limit)
            fail_msg("no backup became active within %lld ms", (long long)limit);
        clock_sleep_ms(100);
    }
    int64_t took = clock_now_ms() - t0;
    print_message("backup %s active %lld ms after the kill of %s (session timeout %d ms)\n", after,
                  (long long)took, before, SESSION_MS);
    unsigned reads_before = atomic_load(&l.reads);
    clock_sleep_ms(500);
    load_stop(&l);
    assert_true(atomic_load(&l.reads) > reads_before);

    /* DDL works through the new master. */
    create_table(a, "km2", "cf", 3);
    wait_all_open(a, "km2", 30000);
    write_rows(cl, "km2", 0, 50);
    verify_rows(cl, "km2", 0, 50);
    verify_rows(cl, "km", 0, atomic_load(&l.acked));
    strata_client_close(cl);
    admin_rpc_close(a);
    assert_int_equal(tc_stop(c), ST_OK);
}

typedef struct ddl_call {
    tc_cluster *c;
    const char *table;
    int what; /* 0 create (24 regions), 1 disable */
    int rc;
    pthread_t th;
} ddl_call;

static void *ddl_main(void *arg)
{
    ddl_call *d = arg;
    admin_rpc *a = NULL;
    if (admin_rpc_open(tc_quorum(d->c), tc_parent(d->c), &a) != ST_OK)
        return NULL;
    if (d->what == 0) {
        Strata__Admin__TableSchema *s = NULL;
        if (admin_rpc_schema_new(d->table, "cf", &s) == ST_OK)
            d->rc = admin_rpc_create_table_presplit(a, s, 24, NULL);
        admin_rpc_schema_free(s);
    } else {
        d->rc = admin_rpc_disable_table(a, d->table);
    }
    admin_rpc_close(a);
    return NULL;
}

/* Waits until the table's state is want. */
static void wait_table_state(admin_rpc *a, const char *table, int want, int64_t timeout_ms)
{
    int64_t until = clock_now_ms() + timeout_ms;
    for (;;) {
        Strata__Master__DescribeTableResponse *d = NULL;
        int st = -1;
        if (admin_rpc_describe_table(a, table, &d) == ST_OK)
            st = d->table->state;
        admin_rpc_free_msg(d);
        if (st == want)
            return;
        if (clock_now_ms() > until)
            fail_msg("table %s: state %d, not %d after %lld ms", table, st, want,
                     (long long)timeout_ms);
        clock_sleep_ms(100);
    }
}

/* A master killed in the middle of a DDL: the next one finishes the regions' moves and the
 * table's state from what meta holds. */
static void test_master_killed_mid_ddl(void **state)
{
    tc_cluster *c = start_cluster(2, 3);
    admin_rpc *a = admin_for(c);
    ddl_call d = {.c = c, .table = "mid", .what = 0};
    assert_int_equal(pthread_create(&d.th, NULL, ddl_main, &d), 0);
    /* kill the active master once the table's row is in meta, while its regions open */
    int64_t until = clock_now_ms() + 20000;
    for (;;) {
        Strata__Master__DescribeTableResponse *dt = NULL;
        int rc = admin_rpc_describe_table(a, "mid", &dt);
        admin_rpc_free_msg(dt);
        if (rc == ST_OK)
            break;
        if (clock_now_ms() > until)
            fail_msg("table mid never appeared");
        clock_sleep_ms(2);
    }
    assert_int_equal(tc_kill(c, "master-active"), ST_OK);
    pthread_join(d.th, NULL);
    wait_table_state(a, "mid", STRATA__MASTER__TABLE_STATE__ENABLED, SESSION_MS + 30000);
    wait_all_open(a, "mid", 30000);
    check_open_once(c, a, "default:mid", 24);
    strata_client_t *cl = client_for(c);
    write_rows(cl, "mid", 0, 200);
    verify_rows(cl, "mid", 0, 200);

    /* and in the middle of a disable */
    tc_restart(c, "master-1");
    tc_restart(c, "master-2");
    d = (ddl_call){.c = c, .table = "mid", .what = 1};
    assert_int_equal(pthread_create(&d.th, NULL, ddl_main, &d), 0);
    clock_sleep_ms(20);
    assert_int_equal(tc_kill(c, "master-active"), ST_OK);
    pthread_join(d.th, NULL);
    wait_table_state(a, "mid", STRATA__MASTER__TABLE_STATE__DISABLED, SESSION_MS + 30000);
    Strata__Master__GetClusterStatusResponse *st = NULL;
    assert_int_equal(admin_rpc_cluster_status(a, &st), ST_OK);
    for (size_t i = 0; i < st->n_live_server; i++)
        for (size_t j = 0; j < st->live_server[i]->n_region; j++)
            assert_true(strcmp(st->live_server[i]->region[j]->table, "default:mid") != 0);
    admin_rpc_free_msg(st);
    strata_client_close(cl);
    admin_rpc_close(a);
    assert_int_equal(tc_stop(c), ST_OK);
}

static int run_tool(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    return system(cmd);
}

static int create_with_splits(admin_rpc *a, const char *name, const char *const *keys, size_t n);

/* Rows around split keys "a" < "a!" (meta sorts the row of "a!" before that of "a"). */
static const char *const ord_rows[] = {"0", "a", "a ", "a!", "a!x", "b"};

static void ord_put_all(strata_client_t *cl)
{
    strata_table_t *t = strata_table_open(cl, "ord");
    for (size_t i = 0; i < sizeof(ord_rows) / sizeof(ord_rows[0]); i++) {
        char *err = NULL;
        strata_mutation_t *m = strata_put_create(ord_rows[i], strlen(ord_rows[i]));
        strata_put_add(m, "cf", 2, "q", 1, STRATA_LATEST_TIMESTAMP, ord_rows[i], strlen(ord_rows[i]));
        strata_table_put(t, m, &err);
        strata_mutation_destroy(m);
        if (err)
            fail_msg("put '%s': %s", ord_rows[i], err);
    }
    strata_table_close(t);
}

/* Last row first: a lookup of "0" would prefetch (and cache) every region. */
static void ord_check_all(strata_client_t *cl)
{
    strata_table_t *t = strata_table_open(cl, "ord");
    for (size_t i = sizeof(ord_rows) / sizeof(ord_rows[0]); i-- > 0;) {
        char *err = NULL;
        strata_get_t *g = strata_get_create(ord_rows[i], strlen(ord_rows[i]));
        strata_result_t *res = strata_table_get(t, g, &err);
        strata_get_destroy(g);
        if (err)
            fail_msg("get '%s': %s", ord_rows[i], err);
        size_t len = 0;
        const char *v = res ? strata_result_value(res, "cf", 2, "q", 1, &len) : NULL;
        if (!v || len != strlen(ord_rows[i]) || memcmp(v, ord_rows[i], len) != 0)
            fail_msg("row '%s' of ord lost or wrong", ord_rows[i]);
        strata_result_destroy(res);
    }
    strata_table_close(t);
}

static void test_restart_whole_cluster(void **state)
{
    const char *bin = getenv("STRATA_BIN");
    tc_cluster *c = start_cluster(1, 3);
    admin_rpc *a = admin_for(c);
    create_table(a, "keep", "cf", 5);
    assert_int_equal(admin_rpc_create_namespace(a, "ns1"), ST_OK);
    create_table(a, "ns1:other", "cf,cg", 1);
    const char *ord_keys[] = {"a", "a!"};
    assert_int_equal(create_with_splits(a, "ord", ord_keys, 2), ST_OK);
    strata_client_t *cl = client_for(c);
    write_rows(cl, "keep", 0, 500);
    ord_put_all(cl);
    strata_client_close(cl);
    admin_rpc_close(a);

    assert_int_equal(run_tool("%s cluster stop --dir %s > /dev/null", bin, tc_dir(c)), 0);
    assert_int_equal(run_tool("%s cluster start --dir %s --masters 1 --regionservers 3 "
                              "--session-timeout-ms %d > /dev/null",
                              bin, tc_dir(c), SESSION_MS), 0);
    (void)tc_pid(c, "zk"); /* re-reads the state file: the quorum's port is new */
    a = admin_for(c);
    wait_all_open(a, "keep", 60000);
    wait_all_open(a, "ns1:other", 60000);
    Strata__Master__ListTablesResponse *lt = NULL;
    assert_int_equal(admin_rpc_list_tables(a, NULL, &lt), ST_OK);
    assert_int_equal(lt->n_table, 3);
    admin_rpc_free_msg(lt);
    Strata__Master__DescribeTableResponse *d = NULL;
    assert_int_equal(admin_rpc_describe_table(a, "ns1:other", &d), ST_OK);
    assert_int_equal(d->table->schema->n_family, 2);
    assert_int_equal(d->table->regions, 1);
    admin_rpc_free_msg(d);
    Strata__Master__GetTableRegionsResponse *r = NULL;
    assert_int_equal(admin_rpc_table_regions(a, "keep", &r), ST_OK);
    assert_int_equal(r->n_location, 5);
    admin_rpc_free_msg(r);
    cl = client_for(c);
    verify_rows(cl, "keep", 0, 500);
    /* The new master orders regions by start key, not by meta row: each row is found. */
    wait_all_open(a, "ord", 60000);
    ord_check_all(cl);
    check_open_once(c, a, "default:keep", 5);
    strata_client_close(cl);
    admin_rpc_close(a);
    assert_int_equal(tc_stop(c), ST_OK);
}

/* ---- DDL ---- */

static size_t table_count(admin_rpc *a)
{
    Strata__Master__ListTablesResponse *lt = NULL;
    assert_int_equal(admin_rpc_list_tables(a, NULL, &lt), ST_OK);
    size_t n = lt->n_table;
    admin_rpc_free_msg(lt);
    return n;
}

static void expect_fail(int rc, int want, const char *what)
{
    if (rc == ST_OK)
        fail_msg("%s: succeeded, expected an error", what);
    if (want && rc != want)
        fail_msg("%s: status %d (%s), expected %d", what, rc, st_errmsg(), want);
    assert_true(strlen(st_errmsg()) > 0);
}

static int create_with_splits(admin_rpc *a, const char *name, const char *const *keys, size_t n)
{
    Strata__Admin__TableSchema *s = NULL;
    int rc = admin_rpc_schema_new(name, "cf", &s);
    if (rc != ST_OK)
        return rc;
    ProtobufCBinaryData k[8];
    for (size_t i = 0; i < n; i++) {
        k[i].data = (uint8_t *)keys[i];
        k[i].len = strlen(keys[i]);
    }
    rc = admin_rpc_create_table(a, s, k, n);
    admin_rpc_schema_free(s);
    return rc;
}

static void write_one(strata_client_t *cl, const char *table, char **err)
{
    strata_table_t *t = strata_table_open(cl, table);
    put_row(t, 0, err);
    strata_table_close(t);
}

/* A raw CreateTable bypassing the admin library's own checks (the master must refuse). */
static int raw_create(admin_rpc *a, const char *name, const char *family, const char *const *keys,
                      size_t n)
{
    Strata__Admin__ColumnFamilySchema f = STRATA__ADMIN__COLUMN_FAMILY_SCHEMA__INIT;
    f.name = (char *)family;
    Strata__Admin__ColumnFamilySchema *fp[1] = {&f};
    Strata__Admin__TableSchema s = STRATA__ADMIN__TABLE_SCHEMA__INIT;
    s.name = (char *)name;
    s.n_family = family ? 1 : 0;
    s.family = fp;
    ProtobufCBinaryData k[8];
    for (size_t i = 0; i < n; i++) {
        k[i].data = (uint8_t *)keys[i];
        k[i].len = strlen(keys[i]);
    }
    Strata__Master__CreateTableRequest req = STRATA__MASTER__CREATE_TABLE_REQUEST__INIT;
    req.schema = &s;
    req.split_key = k;
    req.n_split_key = n;
    ProtobufCMessage *resp = NULL;
    int rc = admin_rpc_call(a, "MasterService.CreateTable", &req.base,
                            &strata__master__create_table_response__descriptor, 20000, &resp);
    admin_rpc_free_msg(resp);
    return rc;
}

static void test_ddl(void **state)
{
    tc_cluster *c = start_cluster(1, 2);
    admin_rpc *a = admin_for(c);
    strata_client_t *cl = client_for(c);

    /* namespaces */
    assert_int_equal(admin_rpc_create_namespace(a, "app"), ST_OK);
    Strata__Master__ListNamespacesResponse *ns = NULL;
    assert_int_equal(admin_rpc_list_namespaces(a, &ns), ST_OK);
    assert_int_equal(ns->n_name, 3); /* app, default, strata */
    admin_rpc_free_msg(ns);

    /* create with split keys, describe, write */
    const char *keys[] = {"g", "p"};
    assert_int_equal(create_with_splits(a, "app:users", keys, 2), ST_OK);
    wait_all_open(a, "app:users", 30000);
    Strata__Master__DescribeTableResponse *d = NULL;
    assert_int_equal(admin_rpc_describe_table(a, "app:users", &d), ST_OK);
    assert_int_equal(d->table->regions, 3);
    assert_int_equal(d->table->state, STRATA__MASTER__TABLE_STATE__ENABLED);
    admin_rpc_free_msg(d);
    write_rows(cl, "app:users", 0, 100);

    /* alter: add a family, write to it */
    Strata__Admin__TableSchema *s = NULL;
    assert_int_equal(admin_rpc_schema_new("app:users", "cf,extra", &s), ST_OK);
    s->family[1]->has_versions = 1;
    s->family[1]->versions = 3;
    assert_int_equal(admin_rpc_modify_table(a, s), ST_OK);
    admin_rpc_schema_free(s);
    wait_all_open(a, "app:users", 30000);
    strata_table_t *t = strata_table_open(cl, "app:users");
    strata_mutation_t *m = strata_put_create("zz", 2);
    strata_put_add(m, "extra", 5, "q", 1, STRATA_LATEST_TIMESTAMP, "x", 1);
    char *err = NULL;
    strata_table_put(t, m, &err);
    strata_mutation_destroy(m);
    if (err)
        fail_msg("put to the added family: %s", err);
    /* unknown family: a clear error */
    m = strata_put_create("zz", 2);
    strata_put_add(m, "nosuch", 6, "q", 1, STRATA_LATEST_TIMESTAMP, "x", 1);
    strata_table_put(t, m, &err);
    strata_mutation_destroy(m);
    assert_non_null(err);
    assert_non_null(strstr(err, "nosuch"));
    strata_free(err);
    err = NULL;
    strata_table_close(t);
    verify_rows(cl, "app:users", 0, 100);
    /* a missing table: a clear error at once, naming it */
    t = strata_table_open(cl, "app:nosuch");
    m = strata_put_create("r", 1);
    strata_put_add(m, "cf", 2, "q", 1, STRATA_LATEST_TIMESTAMP, "x", 1);
    strata_table_put(t, m, &err);
    strata_mutation_destroy(m);
    assert_non_null(err);
    assert_non_null(strstr(err, "nosuch"));
    strata_free(err);
    err = NULL;
    strata_table_close(t);

    /* flush, compact, unassign (reopened), assign */
    assert_int_equal(admin_rpc_flush_table(a, "app:users"), ST_OK);
    assert_int_equal(admin_rpc_compact_table(a, "app:users", true), ST_OK);
    Strata__Master__GetTableRegionsResponse *r = NULL;
    assert_int_equal(admin_rpc_table_regions(a, "app:users", &r), ST_OK);
    char enc[64];
    snprintf(enc, sizeof(enc), "%s", r->location[1]->region->encoded_name);
    admin_rpc_free_msg(r);
    assert_int_equal(admin_rpc_flush_region(a, enc), ST_OK);
    assert_int_equal(admin_rpc_unassign(a, enc), ST_OK);
    wait_all_open(a, "app:users", 30000);
    server_name to;
    assert_int_equal(admin_rpc_assign(a, enc, &to), ST_OK);
    verify_rows(cl, "app:users", 0, 100);

    /* ---- bad input: a clear error and nothing changes ---- */
    size_t before = table_count(a);
    expect_fail(create_with_splits(a, "app:users", NULL, 0), ST_EXISTS, "create an existing table");
    expect_fail(admin_rpc_describe_table(a, "nosuch", &d), ST_NOT_FOUND,
                "describe a missing table");
    expect_fail(admin_rpc_disable_table(a, "nosuch"), ST_NOT_FOUND, "disable a missing table");
    expect_fail(admin_rpc_delete_table(a, "app:users"), ST_INVALID_ARGUMENT,
                "drop an enabled table");
    expect_fail(admin_rpc_truncate_table(a, "app:users", true), ST_INVALID_ARGUMENT,
                "truncate an enabled table");
    expect_fail(admin_rpc_enable_table(a, "app:users"), ST_INVALID_ARGUMENT,
                "enable an enabled table");
    const char *unsorted[] = {"p", "g"};
    const char *dup[] = {"g", "g"};
    const char *empty[] = {""};
    expect_fail(raw_create(a, "bad1", "cf", unsorted, 2), ST_INVALID_ARGUMENT, "unsorted split keys");
    expect_fail(raw_create(a, "bad2", "cf", dup, 2), ST_INVALID_ARGUMENT, "duplicate split keys");
    expect_fail(raw_create(a, "bad3", "cf", empty, 1), ST_INVALID_ARGUMENT, "an empty split key");
    expect_fail(raw_create(a, "bad name", "cf", NULL, 0), ST_INVALID_ARGUMENT, "an invalid table name");
    expect_fail(raw_create(a, ".hidden", "cf", NULL, 0), ST_INVALID_ARGUMENT, "a name starting with '.'");
    expect_fail(raw_create(a, "bad4", "c:f", NULL, 0), ST_INVALID_ARGUMENT, "an invalid family name");
    expect_fail(raw_create(a, "bad5", NULL, NULL, 0), ST_INVALID_ARGUMENT, "no family");
    expect_fail(raw_create(a, "nons:t", "cf", NULL, 0), ST_NOT_FOUND, "a missing namespace");
    expect_fail(raw_create(a, "strata:mine", "cf", NULL, 0), ST_INVALID_ARGUMENT,
                "a table in the system namespace");
    expect_fail(admin_rpc_create_namespace(a, "app"), ST_EXISTS, "an existing namespace");
    expect_fail(admin_rpc_create_namespace(a, "bad ns"), ST_INVALID_ARGUMENT,
                "an invalid namespace");
    expect_fail(admin_rpc_delete_namespace(a, "default"), ST_INVALID_ARGUMENT, "drop default");
    expect_fail(admin_rpc_delete_namespace(a, "app"), ST_INVALID_ARGUMENT,
                "drop a non-empty namespace");
    expect_fail(admin_rpc_delete_namespace(a, "nons"), ST_NOT_FOUND, "drop a missing namespace");
    expect_fail(admin_rpc_move(a, "0123456789abcdef0123456789abcdef", NULL, NULL), ST_NOT_FOUND,
                "move a missing region");
    expect_fail(admin_rpc_move(a, enc, "127.0.0.1:1", NULL), ST_NOT_FOUND,
                "move to a missing server");
    assert_int_equal(table_count(a), before);
    assert_int_equal(admin_rpc_describe_table(a, "app:users", &d), ST_OK);
    assert_int_equal(d->table->regions, 3);
    assert_int_equal(d->table->state, STRATA__MASTER__TABLE_STATE__ENABLED);
    admin_rpc_free_msg(d);
    verify_rows(cl, "app:users", 0, 100);

    /* disable: no region open, reads fail with a clear error; enable brings them back */
    assert_int_equal(admin_rpc_disable_table(a, "app:users"), ST_OK);
    expect_fail(admin_rpc_disable_table(a, "app:users"), ST_INVALID_ARGUMENT, "disable twice");
    /* a write to a disabled table fails at once, saying so (it is not retried) */
    int64_t t0 = clock_now_ms();
    char *derr = NULL;
    write_one(cl, "app:users", &derr);
    assert_non_null(derr);
    assert_non_null(strstr(derr, "disabled"));
    assert_true(clock_now_ms() - t0 < 5000);
    strata_free(derr);
    assert_int_equal(admin_rpc_enable_table(a, "app:users"), ST_OK);
    wait_all_open(a, "app:users", 30000);
    verify_rows(cl, "app:users", 0, 100);

    /* truncate keeps split points, drops data */
    assert_int_equal(admin_rpc_disable_table(a, "app:users"), ST_OK);
    assert_int_equal(admin_rpc_truncate_table(a, "app:users", true), ST_OK);
    wait_all_open(a, "app:users", 30000);
    assert_int_equal(admin_rpc_describe_table(a, "app:users", &d), ST_OK);
    assert_int_equal(d->table->regions, 3);
    admin_rpc_free_msg(d);
    strata_client_close(cl);
    cl = client_for(c); /* old locations are gone with the old regions */
    t = strata_table_open(cl, "app:users");
    assert_int_equal(check_row(t, 5, &err), 0);
    assert_null(err);
    strata_table_close(t);

    /* drop: meta rows and data go; the namespace can go after */
    assert_int_equal(admin_rpc_disable_table(a, "app:users"), ST_OK);
    assert_int_equal(admin_rpc_delete_table(a, "app:users"), ST_OK);
    char dir[1200];
    snprintf(dir, sizeof(dir), "%s/root/data/app/users", tc_dir(c));
    struct stat sb;
    assert_int_not_equal(stat(dir, &sb), 0);
    expect_fail(admin_rpc_describe_table(a, "app:users", &d), ST_NOT_FOUND,
                "describe a dropped table");
    assert_int_equal(admin_rpc_delete_namespace(a, "app"), ST_OK);

    strata_client_close(cl);
    admin_rpc_close(a);
    assert_int_equal(tc_stop(c), ST_OK);
}

int main(void)
{
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_cluster", "STRATA_BIN is not set (ctest sets it)");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_presplit_open_exactly_once),
        cmocka_unit_test(test_ddl),
        cmocka_unit_test(test_moves_under_load),
        cmocka_unit_test(test_graceful_stop_and_crash),
        cmocka_unit_test(test_assign_waits_for_wal_split),
        cmocka_unit_test(test_heartbeats_and_paused_server),
        cmocka_unit_test(test_kill_active_master),
        cmocka_unit_test(test_master_killed_mid_ddl),
        cmocka_unit_test(test_restart_whole_cluster),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
