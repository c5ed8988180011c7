/*
 * test_admin_api.c - the public admin API (strata/admin.h) and the data API's error codes
 * against a local cluster of 1 master and 2 region servers (tests/support/cluster.h),
 * through the public headers only:
 *   - a table's life: namespace, create with attributes, values, configuration and split
 *     keys, describe (every attribute, value and configuration entry back, state,
 *     regions), exists, list, regions and locate, data through
 *     strata.h, flush and compact, modify (alter; a bad split policy refused),
 *     enable/disable, truncate keeping the
 *     splits, drop; a presplit create;
 *   - regions and status: move to the other server (the region list follows), unassign
 *     and assign, the active master, the cluster status with both servers and their loads;
 *   - codes: STRATA_ERR_EXISTS, _NOT_FOUND, _INVALID_ARGUMENT from the master, and
 *     _NO_SUCH_FAMILY and the disabled-table failure from the data path.
 * Needs STRATA_BIN (set by CTest); skipped without it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/status.h"
#include "strata/admin.h"
#include "strata/strata.h"
#include "tests/support/cluster.h"
#include "tests/support/testutil.h"

static tc_cluster *cluster;
static strata_admin_t *admin;
static strata_client_t *client;

/* Fails the test with the message if a call failed. */
#define OK(err)                                                                                    \
    do {                                                                                           \
        if (err)                                                                                   \
            fail_msg("%s:%d: unexpected failure: %s", __FILE__, __LINE__, err);                    \
    } while (0)

static void expect_code(char **err, strata_code code, const char *what)
{
    if (!*err)
        fail_msg("%s: expected %s, got success", what, strata_code_name(code));
    if (strata_error_code(*err) != code)
        fail_msg("%s: expected %s, got %s: %s", what, strata_code_name(code),
                 strata_code_name(strata_error_code(*err)), *err);
    strata_free(*err);
    *err = NULL;
}

static bool has_name(const strata_name_list_t *l, const char *name)
{
    for (size_t i = 0; i < strata_name_list_count(l); i++)
        if (strcmp(strata_name_list_get(l, i), name) == 0)
            return true;
    return false;
}

static void put_cell(const char *table, const char *row, const char *fam, const char *val,
                     char **err)
{
    strata_table_t *t = strata_table_open(client, table);
    strata_mutation_t *m = strata_put_create(row, strlen(row));
    strata_put_add(m, fam, strlen(fam), "q", 1, STRATA_LATEST_TIMESTAMP, val, strlen(val));
    strata_table_put(t, m, err);
    strata_mutation_destroy(m);
    strata_table_close(t);
}

static void table_life(void **state)
{
    if (!cluster)
        tu_skip(__func__, "%s", "no cluster could start (STRATA_BIN not set; ctest sets it)");
    char *err = NULL;
    strata_admin_create_namespace(admin, "app", &err);
    OK(err);
    strata_admin_create_namespace(admin, "app", &err);
    expect_code(&err, STRATA_ERR_EXISTS, "create an existing namespace");
    strata_name_list_t *ns = strata_admin_list_namespaces(admin, &err);
    OK(err);
    assert_true(has_name(ns, "app") && has_name(ns, "default"));
    strata_name_list_destroy(ns);

    strata_table_descriptor_t *td = strata_table_descriptor_create("app:users");
    strata_family_descriptor_t *f = strata_table_descriptor_add_family(td, "info");
    strata_family_descriptor_set(f, STRATA_FAMILY_VERSIONS, 3);
    strata_family_descriptor_set(f, STRATA_FAMILY_TTL, 86400);
    strata_family_descriptor_set(f, STRATA_FAMILY_BLOOMFILTER, STRATA_BLOOM_ROWCOL);
    strata_family_descriptor_set(f, STRATA_FAMILY_COMPRESSION, STRATA_COMPRESSION_ZSTD);
    strata_family_descriptor_set(f, STRATA_FAMILY_BLOCKSIZE, 16384);
    strata_family_descriptor_set(f, STRATA_FAMILY_KEEP_DELETED_CELLS, 1);
    strata_family_descriptor_set(f, STRATA_FAMILY_MIN_VERSIONS, 1);
    strata_table_descriptor_add_family(td, "data");
    strata_table_descriptor_set(td, STRATA_TABLE_DURABILITY, STRATA_DURABILITY_ASYNC_WAL);
    strata_table_descriptor_set(td, STRATA_TABLE_MAX_FILESIZE, 1073741824);
    assert_true(strata_table_descriptor_set_value(td, STRATA_TABLE_SPLIT_POLICY,
                                                  "ConstantSizeRegionSplitPolicy"));
    assert_true(strata_table_descriptor_set_value(td, STRATA_TABLE_NORMALIZATION_ENABLED, "true"));
    assert_true(strata_table_descriptor_set_config(td, "hbase.hregion.max.filesize.jitter", "0"));
    const char *splits[] = {"g", "n"};
    const size_t lens[] = {1, 1};
    strata_admin_create_table(admin, td, splits, lens, 2, &err);
    OK(err);
    strata_admin_create_table(admin, td, splits, lens, 2, &err);
    expect_code(&err, STRATA_ERR_EXISTS, "create an existing table");
    strata_table_descriptor_destroy(td);

    strata_table_state st = STRATA_TABLE_DISABLED;
    uint32_t regions = 0;
    td = strata_admin_describe_table(admin, "app:users", &st, &regions, &err);
    OK(err);
    assert_int_equal(st, STRATA_TABLE_ENABLED);
    assert_int_equal(regions, 3);
    assert_int_equal(strata_table_descriptor_family_count(td), 2);
    f = strata_table_descriptor_find_family(td, "info");
    assert_non_null(f);
    assert_int_equal(strata_family_descriptor_get(f, STRATA_FAMILY_VERSIONS), 3);
    assert_int_equal(strata_family_descriptor_get(f, STRATA_FAMILY_TTL), 86400);
    assert_int_equal(strata_family_descriptor_get(f, STRATA_FAMILY_BLOOMFILTER),
                     STRATA_BLOOM_ROWCOL);
    assert_int_equal(strata_family_descriptor_get(f, STRATA_FAMILY_COMPRESSION),
                     STRATA_COMPRESSION_ZSTD);
    assert_int_equal(strata_family_descriptor_get(f, STRATA_FAMILY_BLOCKSIZE), 16384);
    assert_int_equal(strata_family_descriptor_get(f, STRATA_FAMILY_KEEP_DELETED_CELLS), 1);
    assert_int_equal(strata_family_descriptor_get(f, STRATA_FAMILY_MIN_VERSIONS), 1);
    f = strata_table_descriptor_find_family(td, "data");
    assert_false(strata_family_descriptor_is_set(f, STRATA_FAMILY_VERSIONS));
    assert_int_equal(strata_table_descriptor_get(td, STRATA_TABLE_DURABILITY),
                     STRATA_DURABILITY_ASYNC_WAL);
    assert_int_equal(strata_table_descriptor_get(td, STRATA_TABLE_MAX_FILESIZE), 1073741824);
    assert_false(strata_table_descriptor_is_set(td, STRATA_TABLE_MEMSTORE_FLUSHSIZE));
    assert_int_equal(strata_table_descriptor_value_count(td), 2);
    assert_string_equal(strata_table_descriptor_get_value(td, STRATA_TABLE_SPLIT_POLICY),
                        "ConstantSizeRegionSplitPolicy");
    assert_string_equal(strata_table_descriptor_get_value(td, "NORMALIZATION_ENABLED"), "true");
    assert_int_equal(strata_table_descriptor_config_count(td), 1);
    assert_string_equal(strata_table_descriptor_config_key(td, 0),
                        "hbase.hregion.max.filesize.jitter");

    assert_int_equal(strata_admin_table_exists(admin, "app:users", &err), 1);
    OK(err);
    assert_int_equal(strata_admin_table_exists(admin, "app:nosuch", &err), 0);
    OK(err);
    strata_name_list_t *tl = strata_admin_list_tables(admin, "app", &err);
    OK(err);
    assert_int_equal(strata_name_list_count(tl), 1);
    assert_string_equal(strata_name_list_get(tl, 0), "app:users");
    strata_name_list_destroy(tl);
    tl = strata_admin_list_tables(admin, NULL, &err);
    OK(err);
    assert_true(has_name(tl, "app:users"));
    strata_name_list_destroy(tl);

    /* regions in key order, all open; locate agrees */
    strata_region_list_t *rl = strata_admin_table_regions(admin, "app:users", &err);
    OK(err);
    assert_int_equal(strata_region_list_count(rl), 3);
    size_t len;
    const strata_region_t *mid = strata_region_list_get(rl, 1);
    assert_memory_equal(strata_region_start_key(mid, &len), "g", 1);
    assert_memory_equal(strata_region_end_key(mid, &len), "n", 1);
    for (size_t i = 0; i < 3; i++) {
        const strata_region_t *r = strata_region_list_get(rl, i);
        assert_string_equal(strata_region_table(r), "app:users");
        assert_non_null(strata_region_server(r));
        assert_int_equal(strata_region_state_of(r), STRATA_REGION_OPEN);
        assert_true(strata_region_id(r) > 0);
    }
    strata_region_t *loc = strata_admin_locate_region(admin, "app:users", "hello", 5, &err);
    OK(err);
    assert_string_equal(strata_region_encoded_name(loc), strata_region_encoded_name(mid));
    strata_region_destroy(loc);

    /* data, then maintenance */
    put_cell("app:users", "hello", "info", "v1", &err);
    OK(err);
    strata_admin_flush_table(admin, "app:users", &err);
    OK(err);
    strata_admin_compact_table(admin, "app:users", 1, &err);
    OK(err);
    strata_admin_flush_region(admin, strata_region_encoded_name(mid), &err);
    OK(err);
    strata_admin_compact_region(admin, strata_region_encoded_name(mid), 0, &err);
    OK(err);
    strata_region_list_destroy(rl);

    /* alter: a bad split policy is refused; a new family, a changed attribute */
    strata_table_descriptor_set_value(td, STRATA_TABLE_SPLIT_POLICY, "NoSuchSplitPolicy");
    strata_admin_modify_table(admin, td, &err);
    expect_code(&err, STRATA_ERR_INVALID_ARGUMENT, "SPLIT_POLICY 'NoSuchSplitPolicy'");
    strata_table_descriptor_set_value(td, STRATA_TABLE_SPLIT_POLICY, "SteppingSplitPolicy");
    strata_table_descriptor_add_family(td, "extra");
    strata_family_descriptor_set(strata_table_descriptor_find_family(td, "info"),
                                 STRATA_FAMILY_VERSIONS, 5);
    strata_admin_modify_table(admin, td, &err);
    OK(err);
    strata_table_descriptor_destroy(td);
    td = strata_admin_describe_table(admin, "app:users", NULL, NULL, &err);
    OK(err);
    assert_int_equal(strata_table_descriptor_family_count(td), 3);
    assert_int_equal(strata_family_descriptor_get(strata_table_descriptor_find_family(td, "info"),
                                                  STRATA_FAMILY_VERSIONS),
                     5);
    assert_string_equal(strata_table_descriptor_get_value(td, STRATA_TABLE_SPLIT_POLICY),
                        "SteppingSplitPolicy");
    strata_table_descriptor_destroy(td);
    put_cell("app:users", "a", "extra", "v", &err);
    OK(err);

    /* state changes */
    strata_admin_delete_table(admin, "app:users", &err);
    expect_code(&err, STRATA_ERR_INVALID_ARGUMENT, "drop an enabled table");
    strata_admin_delete_namespace(admin, "app", &err);
    expect_code(&err, STRATA_ERR_INVALID_ARGUMENT, "drop a non-empty namespace");
    strata_admin_disable_table(admin, "app:users", &err);
    OK(err);
    td = strata_admin_describe_table(admin, "app:users", &st, NULL, &err);
    OK(err);
    strata_table_descriptor_destroy(td);
    assert_int_equal(st, STRATA_TABLE_DISABLED);
    strata_admin_enable_table(admin, "app:users", &err);
    OK(err);
    strata_admin_disable_table(admin, "app:users", &err);
    OK(err);
    strata_admin_truncate_table(admin, "app:users", 1, &err);
    OK(err);
    td = strata_admin_describe_table(admin, "app:users", &st, &regions, &err);
    OK(err);
    strata_table_descriptor_destroy(td);
    assert_int_equal(st, STRATA_TABLE_ENABLED);
    assert_int_equal(regions, 3);
    strata_admin_disable_table(admin, "app:users", &err);
    OK(err);
    strata_admin_delete_table(admin, "app:users", &err);
    OK(err);
    assert_null(strata_admin_describe_table(admin, "app:users", NULL, NULL, &err));
    expect_code(&err, STRATA_ERR_NOT_FOUND, "describe a dropped table");
    strata_admin_delete_namespace(admin, "app", &err);
    OK(err);

    /* presplit */
    td = strata_table_descriptor_create("hex");
    strata_table_descriptor_add_family(td, "f");
    strata_admin_create_table_presplit(admin, td, 4, "HexStringSplit", &err);
    OK(err);
    strata_table_descriptor_destroy(td);
    rl = strata_admin_table_regions(admin, "hex", &err);
    OK(err);
    assert_int_equal(strata_region_list_count(rl), 4);
    strata_region_list_destroy(rl);
}

/* The other live server than name. */
static const char *other_server(const strata_cluster_status_t *s, const char *name)
{
    for (size_t i = 0; i < strata_cluster_status_live_server_count(s); i++) {
        const char *n = strata_server_load_name(strata_cluster_status_live_server(s, i));
        if (strcmp(n, name) != 0)
            return n;
    }
    return NULL;
}

static void regions_and_status(void **state)
{
    if (!cluster)
        tu_skip(__func__, "%s", "no cluster could start (STRATA_BIN not set; ctest sets it)");
    char *err = NULL;
    strata_table_descriptor_t *td = strata_table_descriptor_create("moves");
    strata_table_descriptor_add_family(td, "f");
    strata_admin_create_table(admin, td, NULL, NULL, 0, &err);
    OK(err);
    strata_table_descriptor_destroy(td);

    uint32_t http = 0;
    char *master = strata_admin_active_master(admin, &http, &err);
    OK(err);
    assert_true(http > 0);
    strata_cluster_status_t *s = strata_admin_cluster_status(admin, &err);
    OK(err);
    assert_string_equal(strata_cluster_status_active_master(s), master);
    strata_free(master);
    assert_int_equal(strata_cluster_status_backup_master_count(s), 0);
    assert_int_equal(strata_cluster_status_live_server_count(s), 2);
    assert_int_equal(strata_cluster_status_dead_server_count(s), 0);
    assert_true(strata_cluster_status_region_count(s) >= 1);
    uint32_t served = 0; /* per-region loads follow with the next heartbeats */
    for (size_t i = 0; i < 2; i++) {
        const strata_server_load_t *l = strata_cluster_status_live_server(s, i);
        served += strata_server_load_region_count(l);
        assert_true(strata_server_load_http_port(l) > 0);
        assert_null(strata_server_load_region_load(l, strata_server_load_region_load_count(l)));
    }
    assert_true(served >= 1);

    strata_region_list_t *rl = strata_admin_table_regions(admin, "moves", &err);
    OK(err);
    char enc[64], from[320];
    snprintf(enc, sizeof(enc), "%s", strata_region_encoded_name(strata_region_list_get(rl, 0)));
    snprintf(from, sizeof(from), "%s", strata_region_server(strata_region_list_get(rl, 0)));
    strata_region_list_destroy(rl);
    const char *dest = other_server(s, from);
    assert_non_null(dest);
    char *to = strata_admin_move(admin, enc, dest, &err);
    OK(err);
    assert_string_equal(to, dest);
    strata_free(to);
    rl = strata_admin_table_regions(admin, "moves", &err);
    OK(err);
    assert_string_equal(strata_region_server(strata_region_list_get(rl, 0)), dest);
    strata_region_list_destroy(rl);
    strata_cluster_status_destroy(s);

    strata_admin_unassign(admin, enc, &err);
    OK(err);
    char *at = NULL;
    for (int i = 0; i < 300 && !at; i++) { /* the master reopens it; assign answers where */
        at = strata_admin_assign(admin, enc, &err);
        if (err) {
            strata_free(err);
            err = NULL;
            clock_sleep_ms(100);
        }
    }
    assert_non_null(at);
    assert_true(strchr(at, ',') != NULL);
    strata_free(at);
    put_cell("moves", "r", "f", "v", &err);
    OK(err);
}

static void codes(void **state)
{
    if (!cluster)
        tu_skip(__func__, "%s", "no cluster could start (STRATA_BIN not set; ctest sets it)");
    char *err = NULL;
    assert_null(strata_admin_describe_table(admin, "nosuch", NULL, NULL, &err));
    expect_code(&err, STRATA_ERR_NOT_FOUND, "describe a missing table");
    strata_admin_disable_table(admin, "nosuch", &err);
    expect_code(&err, STRATA_ERR_NOT_FOUND, "disable a missing table");
    assert_null(strata_admin_move(admin, "0123456789abcdef0123456789abcdef", NULL, &err));
    expect_code(&err, STRATA_ERR_NOT_FOUND, "move a missing region");
    strata_table_descriptor_t *td = strata_table_descriptor_create("nons:t");
    strata_table_descriptor_add_family(td, "f");
    strata_admin_create_table(admin, td, NULL, NULL, 0, &err);
    expect_code(&err, STRATA_ERR_NOT_FOUND, "create in a missing namespace");
    strata_table_descriptor_destroy(td);
    assert_null(strata_admin_table_regions(admin, "nosuch", &err));
    expect_code(&err, STRATA_ERR_NOT_FOUND, "regions of a missing table");

    td = strata_table_descriptor_create("codes");
    strata_table_descriptor_add_family(td, "f");
    strata_admin_create_table(admin, td, NULL, NULL, 0, &err);
    OK(err);
    strata_table_descriptor_destroy(td);
    put_cell("codes", "r", "nofamily", "v", &err);
    expect_code(&err, STRATA_ERR_NO_SUCH_FAMILY, "a put to a missing family");
    strata_admin_disable_table(admin, "codes", &err);
    OK(err);
    put_cell("codes", "r", "f", "v", &err);
    assert_non_null(err);
    assert_non_null(strstr(err, "codes is disabled"));
    expect_code(&err, STRATA_ERR_TABLE_DISABLED, "a put to a disabled table");
}

static int setup(void **state)
{
    tc_options o = {.masters = 1, .regionservers = 2};
    int rc = tc_start(&o, &cluster);
    if (rc == ST_NOT_FOUND) {
        fprintf(stderr, "skipped: %s\n", st_errmsg());
        cluster = NULL;
        return 0;
    }
    if (rc != ST_OK) {
        fprintf(stderr, "cluster start: %s\n", st_errmsg());
        return -1;
    }
    char *err = NULL;
    admin = strata_admin_open(tc_quorum(cluster), tc_parent(cluster), &err);
    strata_options_t *opts = strata_options_create();
    strata_options_set_zk_quorum(opts, tc_quorum(cluster));
    strata_options_set_operation_timeout_ms(opts, 20000);
    client = strata_client_open(opts, err ? NULL : &err);
    strata_options_destroy(opts);
    if (err) {
        fprintf(stderr, "open: %s\n", err);
        strata_free(err);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    strata_client_close(client);
    strata_admin_close(admin);
    tc_stop(cluster);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(table_life),
        cmocka_unit_test(regions_and_status),
        cmocka_unit_test(codes),
    };
    return tu_run_group_tests(tests, setup, teardown);
}
