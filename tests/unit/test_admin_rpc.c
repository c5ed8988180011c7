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

int main(void)
{
    const struct CMUnitTest args[] = {
        cmocka_unit_test(args_bad_quorum_and_parent),
        cmocka_unit_test(args_table_names),
        cmocka_unit_test(args_schema),
        cmocka_unit_test(args_refused_before_sending),
        cmocka_unit_test(method_names),
    };
    return tu_exit_status(cmocka_run_group_tests_name("args", args, NULL, NULL));
}
