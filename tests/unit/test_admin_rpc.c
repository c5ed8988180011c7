/*
 * test_admin_rpc.c - the client's side of the master: the proto-level admin API
 * (client/admin_rpc.h), the master link under it (client/master_link.h) and the master
 * locator (locator.h, locator_master_open).
 *
 * Argument handling is checked without any server: a bad quorum, parent, table name,
 * family, split key list, split algorithm, region or destination is refused before
 * anything is sent (the quorum of those handles points at a closed port, so a call that
 * got through would fail with a connection error instead).
 *
 * Lookups, prefetch, unknown tables and following a master change run against a real
 * cluster in tests/integration/test_cluster.c and test_cluster_tool.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client/admin_rpc.h"
#include "client/client_internal.h"
#include "client/locator.h"
#include "client/master_link.h"
#include "common/clock.h"
#include "common/proto/master.pb-c.h"
#include "common/rpc/rpc_server.h"
#include "common/server_name.h"
#include "common/status.h"
#include "common/zk/zk.h"
#include "tests/support/testutil.h"
#include "tests/support/zkserver.h"

/* A quorum nobody listens on: any call that gets past the argument checks fails there. */
#define DEAD_QUORUM "127.0.0.1:1"

/* ---- arguments, no server ---- */

static void args_bad_quorum_and_parent(void **state)
{
    static const char *bad[] = {NULL,     "",           "host", "host:",    ":2181",
                                "host:0", "host:99999", "h:1,", "h:1,,h:2", "h:x1"};
    admin_rpc *a = (admin_rpc *)1;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(admin_rpc_open(bad[i], NULL, &a), ST_INVALID_ARGUMENT);
        assert_null(a);
        assert_non_null(strstr(st_errmsg(), "quorum"));
    }
    assert_int_equal(admin_rpc_open("h:1", "strata", &a), ST_INVALID_ARGUMENT);
    assert_int_equal(admin_rpc_open("h:1", "/strata/", &a), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "/strata/"));
    assert_int_equal(admin_rpc_open("127.0.0.1:2181,10.0.0.1:2182/chroot", "/x", &a), ST_OK);
    admin_rpc_close(a);
    locator *l = NULL;
    assert_int_equal(locator_master_open("nope", NULL, 0, &l), ST_INVALID_ARGUMENT);
    assert_null(l);

    char *err = NULL;
    strata_options_t *o = strata_options_create();
    strata_options_set_zk_quorum(o, "no-port");
    assert_null(strata_client_open(o, &err));
    assert_non_null(err);
    assert_non_null(strstr(err, "no-port"));
    strata_free(err);
    strata_options_destroy(o);
}

static void args_table_names(void **state)
{
    static const char *good[] = {"t", "users", "ns:t", "default:a.b-c_d", "strata:meta", "T9"};
    static const char *bad[] = {NULL, "",   ":t",    "ns:",    "a b",  "a,b",
                                ".t", "-t", "n-s:t", "ns:t:u", "ns:.t"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        assert_int_equal(admin_rpc_check_table_name(good[i]), ST_OK);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(admin_rpc_check_table_name(bad[i]), ST_INVALID_ARGUMENT);
}

static void args_schema(void **state)
{
    Strata__Admin__TableSchema *s = NULL;
    assert_int_equal(admin_rpc_schema_new("t", "a,b", &s), ST_OK);
    assert_string_equal(s->name, "t");
    assert_int_equal(s->n_family, 2);
    assert_string_equal(s->family[1]->name, "b");
    admin_rpc_schema_free(s);
    static const char *bad[] = {"", NULL, "a,,b", "a,a", "a:b", "a b", ","};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(admin_rpc_schema_new("t", bad[i], &s), ST_INVALID_ARGUMENT);
        assert_null(s);
    }
    assert_int_equal(admin_rpc_schema_new("bad name", "a", &s), ST_INVALID_ARGUMENT);
}

/* Every bad request is refused before it is sent: the handle's quorum is dead, so a sent
 * one would come back ST_CONNECTION / ST_NOT_SERVING / ST_TIMEOUT instead. */
static void args_refused_before_sending(void **state)
{
    admin_rpc *a = NULL;
    Strata__Admin__TableSchema *s = NULL;
    assert_int_equal(admin_rpc_open(DEAD_QUORUM, NULL, &a), ST_OK);
    admin_rpc_set_timeout_ms(a, 300);
    assert_int_equal(admin_rpc_schema_new("t", "f", &s), ST_OK);
    ProtobufCBinaryData unsorted[] = {{1, (uint8_t *)"m"}, {1, (uint8_t *)"c"}};
    ProtobufCBinaryData dup[] = {{1, (uint8_t *)"m"}, {1, (uint8_t *)"m"}};
    ProtobufCBinaryData empty[] = {{0, NULL}};
    uint64_t t0 = clock_mono_ns();
    assert_int_equal(admin_rpc_create_table(a, s, unsorted, 2), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "sorted"));
    assert_int_equal(admin_rpc_create_table(a, s, dup, 2), ST_INVALID_ARGUMENT);
    assert_int_equal(admin_rpc_create_table(a, s, empty, 1), ST_INVALID_ARGUMENT);
    assert_int_equal(admin_rpc_create_table(a, NULL, NULL, 0), ST_INVALID_ARGUMENT);
    assert_int_equal(admin_rpc_create_table_presplit(a, s, 0, NULL), ST_INVALID_ARGUMENT);
    assert_int_equal(admin_rpc_create_table_presplit(a, s, 4, "MD5Split"), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "MD5Split"));
    assert_int_equal(admin_rpc_delete_table(a, "a b"), ST_INVALID_ARGUMENT);
    assert_int_equal(admin_rpc_disable_table(a, ""), ST_INVALID_ARGUMENT);
    assert_int_equal(admin_rpc_flush_region(a, ""), ST_INVALID_ARGUMENT);
    assert_int_equal(admin_rpc_compact_region(a, NULL, true), ST_INVALID_ARGUMENT);
    assert_int_equal(admin_rpc_create_namespace(a, "my-ns"), ST_INVALID_ARGUMENT);
    assert_int_equal(admin_rpc_move(a, "abc", "host", NULL), ST_INVALID_ARGUMENT);
    assert_int_equal(admin_rpc_move(a, "abc", "host:0", NULL), ST_INVALID_ARGUMENT);
    assert_int_equal(admin_rpc_move(a, "abc", "h,1", NULL), ST_INVALID_ARGUMENT);
    assert_int_equal(admin_rpc_move(a, "", NULL, NULL), ST_INVALID_ARGUMENT);
    assert_int_equal(admin_rpc_describe_table(a, "t", NULL), ST_INVALID_ARGUMENT);
    assert_int_equal(admin_rpc_list_tables(a, "bad ns", &(Strata__Master__ListTablesResponse *){0}),
                     ST_INVALID_ARGUMENT);
    Strata__Master__GetClusterStatusRequest req = STRATA__MASTER__GET_CLUSTER_STATUS_REQUEST__INIT;
    ProtobufCMessage *resp = NULL;
    assert_int_equal(admin_rpc_call(a, "", &req.base,
                                    &strata__master__get_cluster_status_response__descriptor, 0,
                                    &resp),
                     ST_INVALID_ARGUMENT);
    assert_int_equal(admin_rpc_call(a, "GetClusterStatus", &req.base, NULL, 0, &resp),
                     ST_INVALID_ARGUMENT);
    assert_int_equal(admin_rpc_call(NULL, "GetClusterStatus", &req.base,
                                    &strata__master__get_cluster_status_response__descriptor, 0,
                                    &resp),
                     ST_INVALID_ARGUMENT);
    assert_true(clock_mono_ns() - t0 < 200000000ull); /* nothing waited on a connection */
    /* A good request does try: the dead quorum answers with a retryable failure. */
    int rc = admin_rpc_delete_table(a, "t");
    assert_true(rc == ST_CONNECTION || rc == ST_TIMEOUT || rc == ST_NOT_SERVING);
    assert_non_null(strstr(st_errmsg(), "delete table t"));
    admin_rpc_schema_free(s);
    admin_rpc_close(a);
}

static void method_names(void **state)
{
    char m[200];
    master_link_method("CreateTable", m, sizeof(m));
    assert_string_equal(m, "MasterService.CreateTable");
    master_link_method("Other.Method", m, sizeof(m));
    assert_string_equal(m, "Other.Method");
}

/* ---- following a master that went silent (a real ZooKeeper) ---- */

static int h_echo(void *ctx, const rpc_request *req, rpc_reply *reply)
{
    (void)ctx;
    (void)req;
    return buf_append(&reply->body, "ok", 2);
}

/* Points <parent>/master at 127.0.0.1:port. */
static void set_master(zk *z, const char *path, int port)
{
    server_name sn;
    char text[64];
    snprintf(text, sizeof(text), "127.0.0.1,%d,%d", port, port);
    assert_int_equal(server_name_parse(text, &sn), ST_OK);
    size_t len = 0;
    uint8_t *info = server_info_encode(&sn, 0, 1, &len);
    assert_non_null(info);
    int rc = zk_set(z, path, info, len, -1);
    if (rc == ST_NOT_FOUND)
        rc = zk_create(z, path, info, len, 0, NULL, 0);
    assert_int_equal(rc, ST_OK);
    free(info);
}

/* Regression: a master cut off by the network accepts connections (the kernel does)
 * but never answers, so every call to it timed out; the link kept its cached address
 * on a timeout and never found the master that took over. */
static void a_silent_master_is_left_for_the_new_one(void **state)
{
    (void)state;
    zkserver *zs = NULL;
    if (zks_start(&zs) != ST_OK) {
        tu_skip("a_silent_master_is_left_for_the_new_one", "no ZooKeeper: %s", st_errmsg());
        return;
    }
    zk_options zo = {.quorum = zks_quorum(zs), .session_timeout_ms = 6000,
                     .connect_timeout_ms = 5000};
    zk *z = NULL;
    assert_int_equal(zk_open(&zo, &z), ST_OK);
    assert_int_equal(zk_create_all(z, "/t"), ST_OK);
    /* The silent one: a listener nobody accepts from. */
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(listen(lfd, 16), 0);
    socklen_t sl = sizeof(sa);
    assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &sl), 0);
    rpc_server *live = NULL;
    assert_int_equal(rpc_server_new(NULL, &live), ST_OK);
    assert_int_equal(rpc_server_register(live, "MasterService.Echo", h_echo, NULL), ST_OK);
    assert_int_equal(rpc_server_start(live, NULL, 0), ST_OK);

    set_master(z, "/t/master", ntohs(sa.sin_port));
    master_link *m = NULL;
    assert_int_equal(master_link_open(zks_quorum(zs), "/t", 6000, &m), ST_OK);
    master_link_set_attempt_timeout_ms(m, 200);
    buf_t resp = {0};
    assert_int_equal(master_link_call(m, "Echo", NULL, 0, 500, &resp), ST_TIMEOUT);
    /* Another master takes over; the link must find it although the old one never
     * closed a connection. */
    set_master(z, "/t/master", rpc_server_port(live));
    uint64_t t0 = clock_mono_ns();
    assert_int_equal(master_link_call(m, "Echo", NULL, 0, 3000, &resp), ST_OK);
    assert_int_equal(resp.len, 2);
    assert_true(clock_mono_ns() - t0 < 2000000000ull);
    buf_free(&resp);
    master_link_close(m);
    rpc_server_free(live);
    close(lfd);
    zk_close(z);
    zks_stop(zs);
}

int main(void)
{
    const struct CMUnitTest args[] = {
        cmocka_unit_test(args_bad_quorum_and_parent),
        cmocka_unit_test(args_table_names),
        cmocka_unit_test(args_schema),
        cmocka_unit_test(args_refused_before_sending),
        cmocka_unit_test(method_names),
    };
    const struct CMUnitTest failover[] = {
        cmocka_unit_test(a_silent_master_is_left_for_the_new_one),
    };
    int failed = cmocka_run_group_tests_name("args", args, NULL, NULL);
    failed += cmocka_run_group_tests_name("failover", failover, NULL, NULL);
    return tu_exit_status(failed);
}
