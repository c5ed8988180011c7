/*
 * test_schema.c - table and family descriptors (regionserver/storage/schema.c): HBase defaults,
 * and validation of names and attributes, with messages naming what is wrong.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "common/status.h"
#include "regionserver/storage/schema.h"
#include "tests/support/testutil.h"

static table_schema t;

static void one_family_table(const char *table, const family_schema *f)
{
    table_schema_init(&t, table);
    assert_int_equal(table_schema_add_family(&t, f), ST_OK);
}

static void defaults_follow_hbase(void **state)
{
    (void)state;
    family_schema f;
    memset(&f, 0x5A, sizeof(f));
    family_schema_init(&f, "cf");
    assert_string_equal(f.name, "cf");
    assert_int_equal(f.versions, 1);
    assert_int_equal(f.min_versions, 0);
    assert_true(f.ttl_sec == SCHEMA_TTL_FOREVER);
    assert_int_equal(f.bloom, BLOOM_ROW);
    assert_int_equal(f.compression, COMPRESSION_NONE);
    assert_int_equal(f.block_size, 65536);
    assert_false(f.keep_deleted_cells);
    memset(&t, 0x5A, sizeof(t));
    table_schema_init(&t, "ns:t");
    assert_string_equal(t.name, "ns:t");
    assert_int_equal(t.nfamilies, 0);
    assert_int_equal(t.durability, DURABILITY_SYNC_WAL);
    assert_true(t.memstore_flushsize == 128ull * 1024 * 1024);
    assert_true(t.max_filesize == 10ull * 1024 * 1024 * 1024);
}

static void valid_table_passes(void **state)
{
    (void)state;
    family_schema f, g;
    family_schema_init(&f, "cf");
    family_schema_init(&g, "Info_2-x");
    g.versions = 5;
    g.min_versions = 5;
    g.ttl_sec = 1;
    g.block_size = 1024;
    g.bloom = BLOOM_ROWCOL;
    g.compression = COMPRESSION_ZSTD;
    one_family_table("ns:t", &f);
    assert_int_equal(table_schema_add_family(&t, &g), ST_OK);
    assert_int_equal(table_schema_validate(&t), ST_OK);
    assert_int_equal(table_schema_find_family(&t, (const uint8_t *)"Info_2-x", 8), 1);
    assert_int_equal(table_schema_find_family(&t, (const uint8_t *)"cf", 2), 0);
    assert_int_equal(table_schema_find_family(&t, (const uint8_t *)"c", 1), -1);
    assert_int_equal(table_schema_find_family(&t, (const uint8_t *)"cfx", 3), -1);
    g.block_size = 16u * 1024 * 1024;
    table_schema_init(&t, "plain");
    assert_int_equal(table_schema_add_family(&t, &g), ST_OK);
    assert_int_equal(table_schema_validate(&t), ST_OK);
}

static void invalid_family_names_are_refused(void **state)
{
    (void)state;
    const char *bad[] = {"", "-cf", "c.f", "c:f", "c f", "c/f", "caf\xc3\xa9"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        family_schema f;
        family_schema_init(&f, bad[i]);
        table_schema_init(&t, "t");
        assert_int_equal(table_schema_add_family(&t, &f), ST_INVALID_ARGUMENT);
        assert_int_equal(t.nfamilies, 0);
        t.families[0] = f; /* bypassing add: validate catches it too */
        t.nfamilies = 1;
        assert_int_equal(table_schema_validate(&t), ST_INVALID_ARGUMENT);
    }
    family_schema f;
    family_schema_init(&f, "x");
    memset(f.name, 'a', CELL_MAX_FAMILY_LEN);
    f.name[CELL_MAX_FAMILY_LEN] = '\0'; /* 255 characters: fine */
    one_family_table("t", &f);
    assert_int_equal(table_schema_validate(&t), ST_OK);
    memset(f.name, 'a', sizeof(f.name)); /* no terminator: 256+ characters */
    table_schema_init(&t, "t");
    assert_int_equal(table_schema_add_family(&t, &f), ST_INVALID_ARGUMENT);
    family_schema_init(&f, "_ok9");
    one_family_table("t", &f);
    assert_int_equal(table_schema_validate(&t), ST_OK);
}

/* Sets one attribute of an otherwise valid family and returns validate's verdict. */
static int validate_with(int versions, int min_versions, int64_t ttl, uint32_t block_size)
{
    family_schema f;
    family_schema_init(&f, "cf");
    table_schema_init(&t, "t");
    assert_int_equal(table_schema_add_family(&t, &f), ST_OK);
    t.families[0].versions = versions;
    t.families[0].min_versions = min_versions;
    t.families[0].ttl_sec = ttl;
    t.families[0].block_size = block_size;
    return table_schema_validate(&t);
}

static void invalid_family_attributes_are_refused(void **state)
{
    (void)state;
    assert_int_equal(validate_with(1, 0, SCHEMA_TTL_FOREVER, 65536), ST_OK);
    assert_int_equal(validate_with(0, 0, SCHEMA_TTL_FOREVER, 65536), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "VERSIONS"));
    assert_non_null(strstr(st_errmsg(), "cf"));
    assert_int_equal(validate_with(-3, 0, SCHEMA_TTL_FOREVER, 65536), ST_INVALID_ARGUMENT);
    assert_int_equal(validate_with(3, 3, SCHEMA_TTL_FOREVER, 65536), ST_OK);
    assert_int_equal(validate_with(3, 4, SCHEMA_TTL_FOREVER, 65536), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "MIN_VERSIONS"));
    assert_int_equal(validate_with(3, -1, SCHEMA_TTL_FOREVER, 65536), ST_INVALID_ARGUMENT);
    assert_int_equal(validate_with(1, 0, 0, 65536), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "TTL"));
    assert_int_equal(validate_with(1, 0, -5, 65536), ST_INVALID_ARGUMENT);
    assert_int_equal(validate_with(1, 0, 1, 1024), ST_OK);
    assert_int_equal(validate_with(1, 0, 1, 1023), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "BLOCKSIZE"));
    assert_int_equal(validate_with(1, 0, 1, 16u * 1024 * 1024), ST_OK);
    assert_int_equal(validate_with(1, 0, 1, 16u * 1024 * 1024 + 1), ST_INVALID_ARGUMENT);
    assert_int_equal(validate_with(1, 0, 1, 0), ST_INVALID_ARGUMENT);
    /* an invalid attribute is refused by add as well */
    family_schema f;
    family_schema_init(&f, "cf");
    f.versions = 0;
    table_schema_init(&t, "t");
    assert_int_equal(table_schema_add_family(&t, &f), ST_INVALID_ARGUMENT);
    family_schema_init(&f, "cf");
    f.bloom = (bloom_type)7;
    assert_int_equal(table_schema_add_family(&t, &f), ST_INVALID_ARGUMENT);
    family_schema_init(&f, "cf");
    f.compression = (compression_type)9;
    assert_int_equal(table_schema_add_family(&t, &f), ST_INVALID_ARGUMENT);
}

static void duplicate_and_missing_families_are_refused(void **state)
{
    (void)state;
    family_schema f;
    family_schema_init(&f, "cf");
    one_family_table("t", &f);
    assert_int_equal(table_schema_add_family(&t, &f), ST_EXISTS);
    assert_int_equal(t.nfamilies, 1);
    t.families[1] = f; /* bypassing add */
    t.nfamilies = 2;
    assert_int_equal(table_schema_validate(&t), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "cf"));
    table_schema_init(&t, "t");
    assert_int_equal(table_schema_validate(&t), ST_INVALID_ARGUMENT);
}

static void too_many_families_are_refused(void **state)
{
    (void)state;
    table_schema_init(&t, "t");
    for (int i = 0; i < SCHEMA_MAX_FAMILIES; i++) {
        char name[16];
        snprintf(name, sizeof(name), "f%d", i);
        family_schema f;
        family_schema_init(&f, name);
        assert_int_equal(table_schema_add_family(&t, &f), ST_OK);
    }
    family_schema f;
    family_schema_init(&f, "onemore");
    assert_int_equal(table_schema_add_family(&t, &f), ST_INVALID_ARGUMENT);
    assert_int_equal(t.nfamilies, SCHEMA_MAX_FAMILIES);
    assert_int_equal(table_schema_validate(&t), ST_OK);
}

static void invalid_table_names_and_values_are_refused(void **state)
{
    (void)state;
    family_schema f;
    family_schema_init(&f, "cf");
    const char *good[] = {"t", "ns:t", "default:t-1", "a_b.c"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        one_family_table(good[i], &f);
        assert_int_equal(table_schema_validate(&t), ST_OK);
    }
    const char *bad[] = {"", ".t", "-t", "ns:", ":t", "a:b:c", "t!", "ns:.t"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        one_family_table(bad[i], &f);
        assert_int_equal(table_schema_validate(&t), ST_INVALID_ARGUMENT);
    }
    one_family_table("t", &f);
    t.durability = DURABILITY_USE_DEFAULT;
    assert_int_equal(table_schema_validate(&t), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "DURABILITY"));
    t.durability = DURABILITY_FSYNC_WAL;
    assert_int_equal(table_schema_validate(&t), ST_OK);
    t.memstore_flushsize = 0;
    assert_int_equal(table_schema_validate(&t), ST_INVALID_ARGUMENT);
    t.memstore_flushsize = 1;
    t.max_filesize = 0;
    assert_int_equal(table_schema_validate(&t), ST_INVALID_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_follow_hbase),
        cmocka_unit_test(valid_table_passes),
        cmocka_unit_test(invalid_family_names_are_refused),
        cmocka_unit_test(invalid_family_attributes_are_refused),
        cmocka_unit_test(duplicate_and_missing_families_are_refused),
        cmocka_unit_test(too_many_families_are_refused),
        cmocka_unit_test(invalid_table_names_and_values_are_refused),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
