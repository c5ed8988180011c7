/*
 * test_schema.c - table and family descriptors (regionserver/storage/schema.c): HBase defaults,
 * and validation of names and attributes, with messages naming what is wrong; table values
 * and configuration entries (set, replace, remove, limits, lookups, a value overriding a
 * configuration entry, NORMALIZATION_ENABLED) and their trip through admin.TableSchema
 * (schema_proto.c).
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
#include "regionserver/storage/schema_proto.h"
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
    assert_int_equal(f.keep_deleted_cells, KEEP_DELETED_FALSE);
    assert_int_equal(f.encoding, BLOCK_ENCODING_PREFIX);
    assert_false(f.in_memory);
    assert_true(f.block_cache);
    memset(&t, 0x5A, sizeof(t));
    table_schema_init(&t, "ns:t");
    assert_string_equal(t.name, "ns:t");
    assert_int_equal(t.nfamilies, 0);
    assert_int_equal(t.durability, DURABILITY_SYNC_WAL);
    assert_true(t.memstore_flushsize == 128ull * 1024 * 1024);
    assert_int_equal(t.max_filesize, 0); /* not set: the cluster's */
    assert_int_equal(t.values.n, 0);
    assert_int_equal(t.config.n, 0);
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
    f.compression = COMPRESSION_GZ;
    assert_int_equal(table_schema_add_family(&t, &f), ST_OK);
    family_schema_init(&f, "cf2");
    f.encoding = (block_encoding)5;
    assert_int_equal(table_schema_add_family(&t, &f), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "DATA_BLOCK_ENCODING 5"));
    f.encoding = BLOCK_ENCODING_ROW_INDEX_V1;
    f.keep_deleted_cells = (keep_deleted_mode)3;
    assert_int_equal(table_schema_add_family(&t, &f), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "KEEP_DELETED_CELLS 3"));
    f.keep_deleted_cells = KEEP_DELETED_TTL;
    assert_int_equal(table_schema_add_family(&t, &f), ST_OK);
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
    t.max_filesize = 0; /* not set */
    assert_int_equal(table_schema_validate(&t), ST_OK);
}

static void values_and_config_are_set_replaced_and_removed(void **state)
{
    (void)state;
    family_schema f;
    family_schema_init(&f, "cf");
    one_family_table("t", &f);
    assert_int_equal(table_schema_set_value(&t, "a", "1"), ST_OK);
    assert_int_equal(table_schema_set_value(&t, "b", ""), ST_OK);
    assert_int_equal(table_schema_set_value(&t, "a", "2"), ST_OK);
    assert_int_equal(t.values.n, 2);
    assert_string_equal(table_schema_value(&t, "a"), "2");
    assert_string_equal(table_schema_value(&t, "b"), "");
    assert_null(table_schema_value(&t, "c"));
    assert_null(table_schema_config(&t, "a"));
    assert_int_equal(table_schema_set_value(&t, "a", NULL), ST_OK);
    assert_int_equal(table_schema_set_value(&t, "nosuch", NULL), ST_OK);
    assert_int_equal(t.values.n, 1);
    assert_string_equal(t.values.pair[0].key, "b");
    /* A value overrides a configuration entry of the same name. */
    assert_int_equal(table_schema_set_config(&t, "k", "conf"), ST_OK);
    assert_string_equal(table_schema_setting(&t, "k"), "conf");
    assert_int_equal(table_schema_set_value(&t, "k", "value"), ST_OK);
    assert_string_equal(table_schema_setting(&t, "k"), "value");
    assert_string_equal(table_schema_config(&t, "k"), "conf");
    assert_null(table_schema_setting(&t, "zz"));
    assert_int_equal(table_schema_validate(&t), ST_OK);
    /* A copy by value carries them. */
    static table_schema copy;
    copy = t;
    assert_string_equal(table_schema_value(&copy, "k"), "value");
}

static void values_past_the_limits_are_refused(void **state)
{
    (void)state;
    char key[SCHEMA_MAX_KEY_LEN + 2], value[SCHEMA_MAX_VALUE_LEN + 2];
    family_schema f;
    family_schema_init(&f, "cf");
    one_family_table("t", &f);
    memset(key, 'k', sizeof(key) - 1);
    key[sizeof(key) - 1] = '\0';
    memset(value, 'v', sizeof(value) - 1);
    value[sizeof(value) - 1] = '\0';
    assert_int_equal(table_schema_set_value(&t, key, "v"), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "'t'"));
    assert_int_equal(table_schema_set_config(&t, "", "v"), ST_INVALID_ARGUMENT);
    assert_int_equal(table_schema_set_value(&t, "k", value), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "'k'"));
    key[SCHEMA_MAX_KEY_LEN] = '\0';
    value[SCHEMA_MAX_VALUE_LEN] = '\0';
    assert_int_equal(table_schema_set_value(&t, key, value), ST_OK);
    assert_int_equal(table_schema_set_config(&t, key, value), ST_OK);
    for (int i = 1; i < SCHEMA_MAX_PAIRS; i++) {
        char k[16];
        snprintf(k, sizeof(k), "k%d", i);
        assert_int_equal(table_schema_set_config(&t, k, "v"), ST_OK);
        assert_int_equal(table_schema_set_value(&t, k, "v"), ST_OK);
    }
    assert_int_equal(table_schema_set_value(&t, "onemore", "v"), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "onemore"));
    assert_int_equal(table_schema_set_config(&t, "onemore", "v"), ST_INVALID_ARGUMENT);
    assert_int_equal(table_schema_set_value(&t, "k1", "replaced"), ST_OK);
    assert_int_equal(t.values.n, SCHEMA_MAX_PAIRS);
    assert_int_equal(table_schema_validate(&t), ST_OK);
    /* Filled in by hand: a key given twice, an empty key, an attribute's name. */
    snprintf(t.values.pair[2].key, sizeof(t.values.pair[2].key), "k1");
    assert_int_equal(table_schema_validate(&t), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "'k1' is given twice"));
    t.values.pair[2].key[0] = '\0';
    assert_int_equal(table_schema_validate(&t), ST_INVALID_ARGUMENT);
    one_family_table("t", &f);
    assert_int_equal(table_schema_set_value(&t, "MAX_FILESIZE", "5"), ST_OK);
    assert_int_equal(table_schema_validate(&t), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "MAX_FILESIZE is a table attribute"));
}

static void normalization_enabled_is_a_boolean(void **state)
{
    (void)state;
    family_schema f;
    family_schema_init(&f, "cf");
    one_family_table("t", &f);
    assert_false(table_schema_normalization_enabled(&t));
    const char *good[] = {"true", "TRUE", "false", "False"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        assert_int_equal(table_schema_set_value(&t, SCHEMA_NORMALIZATION_ENABLED, good[i]), ST_OK);
        assert_int_equal(table_schema_validate(&t), ST_OK);
        assert_int_equal(table_schema_normalization_enabled(&t), i < 2);
    }
    const char *bad[] = {"yes", "1", "", "truex"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(table_schema_set_value(&t, SCHEMA_NORMALIZATION_ENABLED, bad[i]), ST_OK);
        assert_int_equal(table_schema_validate(&t), ST_INVALID_ARGUMENT);
        assert_non_null(strstr(st_errmsg(), "table 't': NORMALIZATION_ENABLED"));
    }
}

/* A TableSchema with values and configuration: copied in order; MAX_FILESIZE absent stays
 * 0, present is kept, 0 is refused; a name given twice is refused. */
static void values_and_config_come_from_the_proto(void **state)
{
    (void)state;
    Strata__Admin__ColumnFamilySchema cf = STRATA__ADMIN__COLUMN_FAMILY_SCHEMA__INIT;
    Strata__Admin__ColumnFamilySchema *fams[] = {&cf};
    Strata__Admin__NameStringPair v1 = STRATA__ADMIN__NAME_STRING_PAIR__INIT;
    Strata__Admin__NameStringPair v2 = STRATA__ADMIN__NAME_STRING_PAIR__INIT;
    Strata__Admin__NameStringPair c1 = STRATA__ADMIN__NAME_STRING_PAIR__INIT;
    Strata__Admin__NameStringPair *vals[] = {&v1, &v2}, *confs[] = {&c1};
    Strata__Admin__TableSchema p = STRATA__ADMIN__TABLE_SCHEMA__INIT;
    cf.name = "cf";
    v1.name = "NORMALIZATION_ENABLED";
    v1.value = "true";
    v2.name = "x.y";
    v2.value = "z";
    c1.name = "hbase.hregion.max.filesize.jitter";
    c1.value = "0";
    p.name = "ns:t";
    p.family = fams;
    p.n_family = 1;
    p.value = vals;
    p.n_value = 2;
    p.configuration = confs;
    p.n_configuration = 1;
    assert_int_equal(schema_from_proto(&p, 4096, &t), ST_OK);
    assert_int_equal(t.max_filesize, 0);
    assert_int_equal(t.memstore_flushsize, 4096);
    assert_int_equal(t.values.n, 2);
    assert_string_equal(t.values.pair[0].key, "NORMALIZATION_ENABLED");
    assert_string_equal(t.values.pair[1].value, "z");
    assert_string_equal(table_schema_config(&t, "hbase.hregion.max.filesize.jitter"), "0");
    assert_true(table_schema_normalization_enabled(&t));
    p.has_max_filesize = 1;
    p.max_filesize = 1048576;
    assert_int_equal(schema_from_proto(&p, 4096, &t), ST_OK);
    assert_int_equal(t.max_filesize, 1048576);
    p.max_filesize = 0;
    assert_int_equal(schema_from_proto(&p, 4096, &t), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "MAX_FILESIZE"));
    p.has_max_filesize = 0;
    v2.name = "NORMALIZATION_ENABLED";
    assert_int_equal(schema_from_proto(&p, 4096, &t), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "'NORMALIZATION_ENABLED' is given twice"));
    v2.name = "x.y";
    v1.value = "maybe";
    assert_int_equal(schema_from_proto(&p, 4096, &t), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "table 'ns:t': NORMALIZATION_ENABLED 'maybe'"));
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
        cmocka_unit_test(values_and_config_are_set_replaced_and_removed),
        cmocka_unit_test(values_past_the_limits_are_refused),
        cmocka_unit_test(normalization_enabled_is_a_boolean),
        cmocka_unit_test(values_and_config_come_from_the_proto),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
