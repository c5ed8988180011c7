/*
 * test_admin.c - the public admin API (strata/admin.h; client/admin*.c) without a
 * server:
 *   - STRATA_DEFAULT_ZK_PARENT is the parent the cluster uses (common/zk/znodes.h);
 *   - open and table names: failures come back through errptr with their codes;
 *   - descriptors: defaults, set / is set / unset, family add (replacing), find, remove,
 *     handles that stay valid, and the round trip to admin.TableSchema and back with
 *     every attribute; out-of-range values refused naming table, family and attribute;
 *     table values and configuration entries (set, replace, remove, order, lookups, the
 *     round trip, an empty key refused);
 *   - every call refuses bad arguments before sending (the quorum is dead, so anything
 *     sent would come back retryable instead), and a good call that is sent fails
 *     STRATA_ERR_RETRYABLE within the handle's timeout;
 *   - results over fabricated answers: regions (keys, ids, servers, states, a located
 *     one and an empty locate), name lists, the cluster status with server and region
 *     loads, regions in transition, and out-of-range indexes.
 * The calls against a real cluster are tests/integration/test_admin_api.c and the shell's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/admin_internal.h"
#include "common/clock.h"
#include "common/status.h"
#include "common/zk/znodes.h"
#include "strata/admin.h"
#include "strata/strata.h"
#include "tests/support/testutil.h"

#define DEAD_QUORUM "127.0.0.1:1"

/* Asserts err holds a message of code that contains part, and clears it. */
static void expect_error(char **err, strata_code code, const char *part)
{
    const char *want = part ? part : "";
    if (!*err)
        fail_msg("expected a %s error containing '%s', got none", strata_code_name(code), want);
    if (strata_error_code(*err) != code || !strstr(*err, want))
        fail_msg("expected a %s error containing '%s', got '%s'", strata_code_name(code), want,
                 *err);
    strata_free(*err);
    *err = NULL;
}

static void default_parent(void **state)
{
    assert_string_equal(STRATA_DEFAULT_ZK_PARENT, ZNODES_DEFAULT_PARENT);
}

static void open_and_names(void **state)
{
    char *err = NULL;
    assert_null(strata_admin_open("host", NULL, &err));
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, "quorum");
    assert_null(strata_admin_open(NULL, NULL, &err));
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, "quorum");
    assert_null(strata_admin_open("h:1", "/strata/", &err));
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, "/strata/");
    strata_admin_t *a = strata_admin_open(DEAD_QUORUM, NULL, &err);
    assert_null(err);
    assert_non_null(a);
    strata_admin_close(a);
    strata_admin_close(NULL);

    static const char *good[] = {"t", "ns:t", "default:a.b-c_d"};
    static const char *bad[] = {NULL, "", "a b", ".t", "ns:t:u"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        assert_int_equal(strata_admin_check_table_name(good[i], &err), 1);
        assert_null(err);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(strata_admin_check_table_name(bad[i], &err), 0);
        expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, NULL);
    }
}

static void descriptor_defaults_and_edits(void **state)
{
    strata_table_descriptor_t *td = strata_table_descriptor_create("ns:t");
    assert_string_equal(strata_table_descriptor_name(td), "ns:t");
    assert_int_equal(strata_table_descriptor_family_count(td), 0);
    assert_null(strata_table_descriptor_family(td, 0));

    strata_family_descriptor_t *a = strata_table_descriptor_add_family(td, "a");
    static const int64_t defaults[] = {
        1, 0, STRATA_TTL_FOREVER, STRATA_BLOOM_ROW, STRATA_COMPRESSION_NONE, 65536, 0};
    for (int i = 0; i <= STRATA_FAMILY_KEEP_DELETED_CELLS; i++) {
        assert_int_equal(strata_family_descriptor_get(a, (strata_family_attr)i), defaults[i]);
        assert_false(strata_family_descriptor_is_set(a, (strata_family_attr)i));
    }
    strata_family_descriptor_set(a, STRATA_FAMILY_VERSIONS, 5);
    assert_true(strata_family_descriptor_is_set(a, STRATA_FAMILY_VERSIONS));
    assert_int_equal(strata_family_descriptor_get(a, STRATA_FAMILY_VERSIONS), 5);
    strata_family_descriptor_unset(a, STRATA_FAMILY_VERSIONS);
    assert_int_equal(strata_family_descriptor_get(a, STRATA_FAMILY_VERSIONS), 1);
    strata_family_descriptor_set(a, (strata_family_attr)99, 1); /* ignored */
    assert_int_equal(strata_family_descriptor_get(a, (strata_family_attr)99), 0);

    /* handles stay valid while others are added; add replaces and moves to the end */
    strata_family_descriptor_set(a, STRATA_FAMILY_TTL, 60);
    for (int i = 0; i < 40; i++) {
        char name[8];
        snprintf(name, sizeof(name), "f%d", i);
        assert_non_null(strata_table_descriptor_add_family(td, name));
    }
    assert_int_equal(strata_family_descriptor_get(a, STRATA_FAMILY_TTL), 60);
    assert_ptr_equal(strata_table_descriptor_find_family(td, "a"), a);
    strata_family_descriptor_t *a2 = strata_table_descriptor_add_family(td, "a");
    assert_int_equal(strata_table_descriptor_family_count(td), 41);
    assert_ptr_equal(strata_table_descriptor_family(td, 40), a2);
    assert_false(strata_family_descriptor_is_set(a2, STRATA_FAMILY_TTL));
    assert_string_equal(strata_family_descriptor_name(strata_table_descriptor_family(td, 0)), "f0");
    assert_int_equal(strata_table_descriptor_remove_family(td, "f0"), 1);
    assert_int_equal(strata_table_descriptor_remove_family(td, "f0"), 0);
    assert_null(strata_table_descriptor_find_family(td, "f0"));
    assert_int_equal(strata_table_descriptor_family_count(td), 40);

    /* table attributes */
    for (int i = 0; i <= STRATA_TABLE_DURABILITY; i++) {
        assert_int_equal(strata_table_descriptor_get(td, (strata_table_attr)i), 0);
        assert_false(strata_table_descriptor_is_set(td, (strata_table_attr)i));
    }
    strata_table_descriptor_set(td, STRATA_TABLE_DURABILITY, STRATA_DURABILITY_ASYNC_WAL);
    assert_true(strata_table_descriptor_is_set(td, STRATA_TABLE_DURABILITY));
    strata_table_descriptor_set(td, STRATA_TABLE_DURABILITY, STRATA_DURABILITY_USE_DEFAULT);
    assert_false(strata_table_descriptor_is_set(td, STRATA_TABLE_DURABILITY));
    strata_table_descriptor_set(td, STRATA_TABLE_MAX_FILESIZE, 1 << 20);
    assert_int_equal(strata_table_descriptor_get(td, STRATA_TABLE_MAX_FILESIZE), 1 << 20);
    strata_table_descriptor_unset(td, STRATA_TABLE_MAX_FILESIZE);
    assert_false(strata_table_descriptor_is_set(td, STRATA_TABLE_MAX_FILESIZE));
    strata_table_descriptor_destroy(td);
    strata_table_descriptor_destroy(NULL);
}

static void descriptor_round_trip(void **state)
{
    strata_table_descriptor_t *td = strata_table_descriptor_create("t");
    strata_family_descriptor_t *f = strata_table_descriptor_add_family(td, "f");
    strata_table_descriptor_add_family(td, "plain");
    static const int64_t values[] = {3,     1, 86400, STRATA_BLOOM_ROWCOL, STRATA_COMPRESSION_LZ4,
                                     16384, STRATA_KEEP_DELETED_TTL, STRATA_BLOCK_ENCODING_FAST_DIFF,
                                     1,     0};
    for (int i = 0; i <= STRATA_FAMILY_BLOCKCACHE; i++)
        strata_family_descriptor_set(f, (strata_family_attr)i, values[i]);
    strata_table_descriptor_set(td, STRATA_TABLE_MAX_FILESIZE, 1073741824);
    strata_table_descriptor_set(td, STRATA_TABLE_MEMSTORE_FLUSHSIZE, 4194304);
    strata_table_descriptor_set(td, STRATA_TABLE_DURABILITY, STRATA_DURABILITY_FSYNC_WAL);

    Strata__Admin__TableSchema *s = NULL;
    assert_int_equal(admin_descriptor_to_schema(td, &s), ST_OK);
    assert_string_equal(s->name, "t");
    assert_int_equal(s->n_family, 2);
    const Strata__Admin__ColumnFamilySchema *p = s->family[0];
    assert_true(p->has_versions && p->versions == 3);
    assert_true(p->has_min_versions && p->min_versions == 1);
    assert_true(p->has_ttl_sec && p->ttl_sec == 86400);
    assert_true(p->has_bloom && p->bloom == 2);
    assert_true(p->has_compression && p->compression == 3);
    assert_true(p->has_block_size && p->block_size == 16384);
    assert_true(p->has_keep_deleted_cells && p->keep_deleted_cells);
    assert_true(p->has_keep_deleted_mode && p->keep_deleted_mode == 2);
    assert_true(p->has_data_block_encoding && p->data_block_encoding == 3);
    assert_true(p->has_in_memory && p->in_memory);
    assert_true(p->has_block_cache && !p->block_cache);
    p = s->family[1];
    assert_false(p->has_versions || p->has_min_versions || p->has_ttl_sec || p->has_bloom ||
                 p->has_compression || p->has_block_size || p->has_keep_deleted_cells ||
                 p->has_keep_deleted_mode || p->has_data_block_encoding || p->has_in_memory ||
                 p->has_block_cache);
    assert_true(s->has_max_filesize && s->max_filesize == 1073741824);
    assert_true(s->has_memstore_flushsize && s->memstore_flushsize == 4194304);
    assert_true(s->has_durability && s->durability == 4);

    strata_table_descriptor_t *back = NULL;
    assert_int_equal(admin_descriptor_from_schema(s, &back), ST_OK);
    admin_rpc_schema_free(s);
    assert_int_equal(strata_table_descriptor_family_count(back), 2);
    const strata_family_descriptor_t *g = strata_table_descriptor_family(back, 0);
    for (int i = 0; i <= STRATA_FAMILY_BLOCKCACHE; i++) {
        assert_true(strata_family_descriptor_is_set(g, (strata_family_attr)i));
        assert_int_equal(strata_family_descriptor_get(g, (strata_family_attr)i), values[i]);
    }
    g = strata_table_descriptor_family(back, 1);
    for (int i = 0; i <= STRATA_FAMILY_BLOCKCACHE; i++)
        assert_false(strata_family_descriptor_is_set(g, (strata_family_attr)i));
    assert_int_equal(strata_table_descriptor_get(back, STRATA_TABLE_MAX_FILESIZE), 1073741824);
    assert_int_equal(strata_table_descriptor_get(back, STRATA_TABLE_MEMSTORE_FLUSHSIZE), 4194304);
    assert_int_equal(strata_table_descriptor_get(back, STRATA_TABLE_DURABILITY),
                     STRATA_DURABILITY_FSYNC_WAL);
    strata_table_descriptor_destroy(back);

    /* out of range: refused, naming table, family and attribute */
    strata_family_descriptor_set(f, STRATA_FAMILY_VERSIONS, -1);
    assert_int_equal(admin_descriptor_to_schema(td, &s), ST_INVALID_ARGUMENT);
    assert_null(s);
    assert_non_null(strstr(st_errmsg(), "table t, family f: VERSIONS -1"));
    strata_family_descriptor_set(f, STRATA_FAMILY_VERSIONS, 3);
    strata_family_descriptor_set(f, STRATA_FAMILY_KEEP_DELETED_CELLS, 3);
    assert_int_equal(admin_descriptor_to_schema(td, &s), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "KEEP_DELETED_CELLS"));
    strata_family_descriptor_set(f, STRATA_FAMILY_KEEP_DELETED_CELLS, 0);
    strata_family_descriptor_set(f, STRATA_FAMILY_IN_MEMORY, 2);
    assert_int_equal(admin_descriptor_to_schema(td, &s), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "IN_MEMORY 2"));
    strata_family_descriptor_set(f, STRATA_FAMILY_IN_MEMORY, 0);
    strata_family_descriptor_set(f, STRATA_FAMILY_KEEP_DELETED_CELLS, 0);
    strata_table_descriptor_set(td, STRATA_TABLE_DURABILITY, 7);
    assert_int_equal(admin_descriptor_to_schema(td, &s), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "table t: DURABILITY 7"));
    strata_table_descriptor_destroy(td);
}

/* Every bad request is refused at once, before anything is sent. */
static void descriptor_values_and_config(void **state)
{
    (void)state;
    strata_table_descriptor_t *td = strata_table_descriptor_create("t");
    strata_table_descriptor_add_family(td, "f");
    assert_int_equal(strata_table_descriptor_value_count(td), 0);
    assert_null(strata_table_descriptor_get_value(td, STRATA_TABLE_SPLIT_POLICY));
    assert_null(strata_table_descriptor_value_key(td, 0));
    assert_true(strata_table_descriptor_set_value(td, STRATA_TABLE_SPLIT_POLICY,
                                                  "ConstantSizeRegionSplitPolicy"));
    assert_true(strata_table_descriptor_set_value(td, "a", "1"));
    assert_true(strata_table_descriptor_set_value(td, "b", ""));
    assert_true(strata_table_descriptor_set_value(td, STRATA_TABLE_SPLIT_POLICY,
                                                  "KeyPrefixRegionSplitPolicy"));
    assert_true(strata_table_descriptor_set_value(td, "a", NULL));
    assert_true(strata_table_descriptor_set_value(td, "nosuch", NULL));
    assert_false(strata_table_descriptor_set_value(td, NULL, "x"));
    assert_int_equal(strata_table_descriptor_value_count(td), 2);
    assert_string_equal(strata_table_descriptor_value_key(td, 0), "SPLIT_POLICY");
    assert_string_equal(strata_table_descriptor_value_key(td, 1), "b");
    assert_null(strata_table_descriptor_value_key(td, 2));
    assert_string_equal(strata_table_descriptor_get_value(td, "SPLIT_POLICY"),
                        "KeyPrefixRegionSplitPolicy");
    assert_string_equal(strata_table_descriptor_get_value(td, "b"), "");
    assert_null(strata_table_descriptor_get_value(td, "a"));
    assert_true(strata_table_descriptor_set_config(td, "hbase.hregion.max.filesize.jitter", "0"));
    assert_int_equal(strata_table_descriptor_config_count(td), 1);
    assert_string_equal(strata_table_descriptor_config_key(td, 0),
                        "hbase.hregion.max.filesize.jitter");
    assert_null(strata_table_descriptor_get_config(td, "b"));
    assert_null(strata_table_descriptor_config_key(td, 1));

    Strata__Admin__TableSchema *s = NULL;
    assert_int_equal(admin_descriptor_to_schema(td, &s), ST_OK);
    assert_int_equal(s->n_value, 2);
    assert_string_equal(s->value[0]->name, "SPLIT_POLICY");
    assert_string_equal(s->value[0]->value, "KeyPrefixRegionSplitPolicy");
    assert_string_equal(s->value[1]->value, "");
    assert_int_equal(s->n_configuration, 1);
    assert_string_equal(s->configuration[0]->value, "0");
    /* through the wire format too */
    size_t len = protobuf_c_message_get_packed_size(&s->base);
    uint8_t *buf = malloc(len);
    protobuf_c_message_pack(&s->base, buf);
    admin_rpc_schema_free(s);
    Strata__Admin__TableSchema *u = strata__admin__table_schema__unpack(NULL, len, buf);
    free(buf);
    assert_non_null(u);
    strata_table_descriptor_t *back = NULL;
    assert_int_equal(admin_descriptor_from_schema(u, &back), ST_OK);
    strata__admin__table_schema__free_unpacked(u, NULL);
    assert_int_equal(strata_table_descriptor_value_count(back), 2);
    assert_string_equal(strata_table_descriptor_get_value(back, "SPLIT_POLICY"),
                        "KeyPrefixRegionSplitPolicy");
    assert_string_equal(strata_table_descriptor_value_key(back, 1), "b");
    assert_string_equal(
        strata_table_descriptor_get_config(back, "hbase.hregion.max.filesize.jitter"), "0");
    assert_true(
        strata_table_descriptor_set_config(back, "hbase.hregion.max.filesize.jitter", NULL));
    assert_int_equal(strata_table_descriptor_config_count(back), 0);
    strata_table_descriptor_destroy(back);

    /* an empty key is refused when sent, naming the table */
    assert_true(strata_table_descriptor_set_config(td, "", "v"));
    assert_int_equal(admin_descriptor_to_schema(td, &s), ST_INVALID_ARGUMENT);
    assert_null(s);
    assert_non_null(strstr(st_errmsg(), "table t: a CONFIGURATION key is empty"));
    strata_table_descriptor_destroy(td);
}

static void calls_refused_before_sending(void **state)
{
    char *err = NULL;
    strata_admin_t *a = strata_admin_open(DEAD_QUORUM, NULL, &err);
    strata_admin_set_timeout_ms(a, 300);
    strata_table_descriptor_t *td = strata_table_descriptor_create("t");
    strata_table_descriptor_add_family(td, "f");
    strata_table_descriptor_t *nofam = strata_table_descriptor_create("t");
    strata_table_descriptor_t *badname = strata_table_descriptor_create("a b");
    strata_table_descriptor_add_family(badname, "f");
    strata_table_descriptor_t *badfam = strata_table_descriptor_create("t");
    strata_table_descriptor_add_family(badfam, "f:x");
    const char *unsorted[] = {"m", "c"};
    const size_t lens[] = {1, 1};
    uint64_t t0 = clock_mono_ns();

    strata_admin_create_table(a, td, unsorted, lens, 2, &err);
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, "sorted");
    strata_admin_create_table(a, td, NULL, NULL, 2, &err);
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, "split keys");
    strata_admin_create_table(a, NULL, NULL, NULL, 0, &err);
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, "descriptor");
    strata_admin_create_table(NULL, td, NULL, NULL, 0, &err);
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, "handle");
    strata_admin_create_table(a, nofam, NULL, NULL, 0, &err);
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, "family");
    strata_admin_create_table(a, badname, NULL, NULL, 0, &err);
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, "a b");
    strata_admin_modify_table(a, badfam, &err);
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, "f:x");
    strata_admin_create_table_presplit(a, td, 4, "MD5Split", &err);
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, "MD5Split");
    strata_admin_delete_table(a, "a b", &err);
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, NULL);
    assert_null(strata_admin_describe_table(a, "", NULL, NULL, &err));
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, NULL);
    assert_int_equal(strata_admin_table_exists(a, ".t", &err), 0);
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, NULL);
    assert_null(strata_admin_list_tables(a, "bad ns", &err));
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, "bad ns");
    strata_admin_create_namespace(a, "my-ns", &err);
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, "my-ns");
    assert_null(strata_admin_table_regions(a, "", &err));
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, NULL);
    assert_null(strata_admin_locate_region(a, "a b", "r", 1, &err));
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, NULL);
    assert_null(strata_admin_locate_region(a, "t", NULL, 3, &err));
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, "row");
    assert_null(strata_admin_move(a, "abc", "host:0", &err));
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, "host:0");
    assert_null(strata_admin_assign(a, "", &err));
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, NULL);
    strata_admin_flush_region(a, NULL, &err);
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, NULL);
    strata_admin_compact_table(a, "", 1, &err);
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, NULL);
    assert_null(strata_admin_cluster_status(NULL, &err));
    expect_error(&err, STRATA_ERR_INVALID_ARGUMENT, "handle");
    assert_true(clock_mono_ns() - t0 < 200000000ull); /* nothing waited on a connection */

    /* A good call is sent: no master answers, a retryable failure within the timeout. */
    strata_admin_delete_table(a, "t", &err);
    expect_error(&err, STRATA_ERR_RETRYABLE, "delete table t");
    assert_true(clock_mono_ns() - t0 < 5000000000ull);

    strata_table_descriptor_destroy(td);
    strata_table_descriptor_destroy(nofam);
    strata_table_descriptor_destroy(badname);
    strata_table_descriptor_destroy(badfam);
    strata_admin_close(a);
}

/* ---- results over fabricated answers ---- */

static Strata__Master__ServerName *server(const char *host, uint32_t port, uint64_t code)
{
    Strata__Master__ServerName *n = malloc(sizeof(*n));
    strata__master__server_name__init(n);
    n->host = strdup(host);
    n->port = port;
    n->start_code = code;
    return n;
}

static Strata__Admin__RegionInfo *info(const char *table, const char *enc, const char *start,
                                       const char *end, uint64_t id)
{
    Strata__Admin__RegionInfo *r = malloc(sizeof(*r));
    strata__admin__region_info__init(r);
    r->table = strdup(table);
    r->encoded_name = strdup(enc);
    r->has_start_key = start != NULL;
    r->start_key.len = start ? strlen(start) : 0;
    r->start_key.data = start ? (uint8_t *)strdup(start) : NULL;
    r->has_end_key = end != NULL;
    r->end_key.len = end ? strlen(end) : 0;
    r->end_key.data = end ? (uint8_t *)strdup(end) : NULL;
    r->has_region_id = 1;
    r->region_id = id;
    return r;
}

static Strata__Master__RegionLocation *location(Strata__Admin__RegionInfo *ri,
                                                Strata__Master__ServerName *sn,
                                                Strata__Master__RegionState st)
{
    Strata__Master__RegionLocation *l = malloc(sizeof(*l));
    strata__master__region_location__init(l);
    l->region = ri;
    l->server = sn;
    l->has_state = 1;
    l->state = st;
    return l;
}

static void region_results(void **state)
{
    Strata__Master__GetTableRegionsResponse *r = malloc(sizeof(*r));
    strata__master__get_table_regions_response__init(r);
    r->n_location = 2;
    r->location = malloc(2 * sizeof(*r->location));
    r->location[0] = location(info("default:t", "e0", NULL, "m", 100), server("h1", 17020, 5),
                              STRATA__MASTER__REGION_STATE__OPEN);
    r->location[1] = location(info("default:t", "e1", "m", NULL, 101), NULL,
                              STRATA__MASTER__REGION_STATE__OPENING);
    strata_region_list_t *l = admin_region_list_new(r);
    assert_int_equal(strata_region_list_count(l), 2);
    const strata_region_t *a = strata_region_list_get(l, 0), *b = strata_region_list_get(l, 1);
    assert_null(strata_region_list_get(l, 2));
    size_t len;
    assert_string_equal(strata_region_encoded_name(a), "e0");
    assert_string_equal(strata_region_table(a), "default:t");
    strata_region_start_key(a, &len);
    assert_int_equal(len, 0);
    assert_memory_equal(strata_region_end_key(a, &len), "m", 1);
    assert_int_equal(len, 1);
    assert_int_equal(strata_region_id(a), 100);
    assert_string_equal(strata_region_server(a), "h1,17020,5");
    assert_int_equal(strata_region_state_of(a), STRATA_REGION_OPEN);
    assert_string_equal(strata_region_state_name(strata_region_state_of(a)), "OPEN");
    assert_null(strata_region_server(b));
    assert_int_equal(strata_region_state_of(b), STRATA_REGION_OPENING);
    strata_region_end_key(b, &len);
    assert_int_equal(len, 0);
    strata_region_destroy((strata_region_t *)a); /* borrowed: a no-op */
    strata_region_list_destroy(l);
    strata_region_list_destroy(NULL);

    Strata__Master__LocateRegionResponse *lr = malloc(sizeof(*lr));
    strata__master__locate_region_response__init(lr);
    lr->n_location = 1;
    lr->location = malloc(sizeof(*lr->location));
    lr->location[0] = location(info("t", "e2", "a", "b", 7), server("h2", 1, 2),
                               STRATA__MASTER__REGION_STATE__OPEN);
    strata_region_t *one = NULL;
    assert_int_equal(admin_region_located(lr, &one), ST_OK);
    assert_string_equal(strata_region_encoded_name(one), "e2");
    assert_string_equal(strata_region_server(one), "h2,1,2");
    strata_region_destroy(one);
    lr = malloc(sizeof(*lr));
    strata__master__locate_region_response__init(lr);
    assert_int_equal(admin_region_located(lr, &one), ST_OK);
    assert_null(one);

    assert_string_equal(strata_region_state_name((strata_region_state)42), "UNKNOWN");
    assert_string_equal(strata_table_state_name(STRATA_TABLE_DISABLING), "DISABLING");
    assert_string_equal(strata_table_state_name((strata_table_state)9), "UNKNOWN");
}

static void name_lists(void **state)
{
    char *names[] = {"default:a", "ns:b"};
    strata_name_list_t *l = admin_name_list_new(names, 2);
    assert_int_equal(strata_name_list_count(l), 2);
    assert_string_equal(strata_name_list_get(l, 1), "ns:b");
    assert_null(strata_name_list_get(l, 2));
    strata_name_list_destroy(l);
    l = admin_name_list_new(NULL, 0);
    assert_int_equal(strata_name_list_count(l), 0);
    strata_name_list_destroy(l);
    strata_name_list_destroy(NULL);
}

static Strata__Admin__RegionLoad *region_load(const char *enc, const char *table)
{
    Strata__Admin__RegionLoad *l = malloc(sizeof(*l));
    strata__admin__region_load__init(l);
    l->encoded_name = strdup(enc);
    l->table = table ? strdup(table) : NULL;
    l->read_requests = 11;
    l->write_requests = 12;
    l->store_files = 13;
    l->store_file_size = 14;
    l->memstore_size = 15;
    return l;
}

static Strata__Master__ServerInfo *server_info(Strata__Master__ServerName *n)
{
    Strata__Master__ServerInfo *i = malloc(sizeof(*i));
    strata__master__server_info__init(i);
    i->name = n;
    return i;
}

static void cluster_status_results(void **state)
{
    Strata__Master__GetClusterStatusResponse *r = malloc(sizeof(*r));
    strata__master__get_cluster_status_response__init(r);
    r->cluster_id = strdup("cid");
    r->active_master = server_info(server("m1", 17000, 1));
    r->n_backup_master = 1;
    r->backup_master = malloc(sizeof(*r->backup_master));
    r->backup_master[0] = server_info(server("m2", 17001, 2));
    r->n_live_server = 1;
    r->live_server = malloc(sizeof(*r->live_server));
    Strata__Master__ServerStatus *st = malloc(sizeof(*st));
    strata__master__server_status__init(st);
    st->name = server("rs1", 17020, 3);
    st->http_port = 17030;
    st->n_region = 2;
    st->region = malloc(2 * sizeof(*st->region));
    st->region[0] = region_load("e0", "default:t");
    st->region[1] = region_load("e1", NULL);
    st->requests_per_second = 2.5;
    st->read_requests = 1;
    st->write_requests = 2;
    st->total_requests = 3;
    st->store_files = 4;
    st->store_file_size = 5;
    st->memstore_size = 6;
    st->last_report_ms = 7;
    r->live_server[0] = st;
    r->n_dead_server = 1;
    r->dead_server = malloc(sizeof(*r->dead_server));
    r->dead_server[0] = server("rs0", 17020, 1);
    r->n_in_transition = 1;
    r->in_transition = malloc(sizeof(*r->in_transition));
    Strata__Master__RegionInTransition *t = malloc(sizeof(*t));
    strata__master__region_in_transition__init(t);
    t->region = info("default:t", "e9", NULL, NULL, 9);
    t->state = STRATA__MASTER__REGION_STATE__CLOSING;
    t->since_ms = 1234;
    r->in_transition[0] = t;
    r->tables = 4;
    r->regions = 8;

    strata_cluster_status_t *s = admin_cluster_status_new(r);
    assert_non_null(s);
    assert_string_equal(strata_cluster_status_cluster_id(s), "cid");
    assert_null(strata_cluster_status_version(s));
    assert_string_equal(strata_cluster_status_active_master(s), "m1,17000,1");
    assert_int_equal(strata_cluster_status_backup_master_count(s), 1);
    assert_string_equal(strata_cluster_status_backup_master(s, 0), "m2,17001,2");
    assert_null(strata_cluster_status_backup_master(s, 1));
    assert_int_equal(strata_cluster_status_dead_server_count(s), 1);
    assert_string_equal(strata_cluster_status_dead_server(s, 0), "rs0,17020,1");
    assert_int_equal(strata_cluster_status_table_count(s), 4);
    assert_int_equal(strata_cluster_status_region_count(s), 8);

    assert_int_equal(strata_cluster_status_live_server_count(s), 1);
    assert_null(strata_cluster_status_live_server(s, 1));
    const strata_server_load_t *l = strata_cluster_status_live_server(s, 0);
    assert_string_equal(strata_server_load_name(l), "rs1,17020,3");
    assert_int_equal(strata_server_load_http_port(l), 17030);
    assert_int_equal(strata_server_load_region_count(l), 2); /* no region_count: the list */
    assert_true(strata_server_load_requests_per_second(l) == 2.5);
    assert_int_equal(strata_server_load_read_requests(l), 1);
    assert_int_equal(strata_server_load_write_requests(l), 2);
    assert_int_equal(strata_server_load_total_requests(l), 3);
    assert_int_equal(strata_server_load_store_files(l), 4);
    assert_int_equal(strata_server_load_store_file_size(l), 5);
    assert_int_equal(strata_server_load_memstore_size(l), 6);
    assert_int_equal(strata_server_load_last_report_ms(l), 7);
    assert_int_equal(strata_server_load_region_load_count(l), 2);
    assert_null(strata_server_load_region_load(l, 2));
    const strata_region_load_t *rl = strata_server_load_region_load(l, 0);
    assert_string_equal(strata_region_load_encoded_name(rl), "e0");
    assert_string_equal(strata_region_load_table(rl), "default:t");
    assert_int_equal(strata_region_load_read_requests(rl), 11);
    assert_int_equal(strata_region_load_write_requests(rl), 12);
    assert_int_equal(strata_region_load_store_files(rl), 13);
    assert_int_equal(strata_region_load_store_file_size(rl), 14);
    assert_int_equal(strata_region_load_memstore_size(rl), 15);
    assert_null(strata_region_load_table(strata_server_load_region_load(l, 1)));

    assert_int_equal(strata_cluster_status_in_transition_count(s), 1);
    const strata_region_t *rit = strata_cluster_status_in_transition(s, 0);
    assert_string_equal(strata_region_encoded_name(rit), "e9");
    assert_int_equal(strata_region_state_of(rit), STRATA_REGION_CLOSING);
    assert_null(strata_region_server(rit));
    assert_int_equal(strata_cluster_status_in_transition_since_ms(s, 0), 1234);
    assert_null(strata_cluster_status_in_transition(s, 1));
    strata_cluster_status_destroy(s);
    strata_cluster_status_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_parent),
        cmocka_unit_test(open_and_names),
        cmocka_unit_test(descriptor_defaults_and_edits),
        cmocka_unit_test(descriptor_round_trip),
        cmocka_unit_test(descriptor_values_and_config),
        cmocka_unit_test(calls_refused_before_sending),
        cmocka_unit_test(region_results),
        cmocka_unit_test(name_lists),
        cmocka_unit_test(cluster_status_results),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
