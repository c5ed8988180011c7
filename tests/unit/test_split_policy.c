/*
 * test_split_policy.c - the region split policies (regionserver/storage/split_policy.c),
 * after HBase's TestRegionSplitPolicy: IncreasingToUpperBound growing with 0, 1, 2, 3 and
 * 101 regions of the table on the server; Stepping splitting first at 2 x the flush size,
 * then at the max file size; ConstantSize with and without jitter (the bounds, the same
 * threshold for the same region, no overflow near the top); the initial size from the
 * table, the server or the flush size; KeyPrefix and DelimitedKeyPrefix split points;
 * Disabled; reference files blocking any split; names with and without the class prefix;
 * bad settings refused through table_schema_validate.
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
#include "regionserver/storage/split_policy.h"
#include "tests/support/testutil.h"

#define MB (1024ull * 1024)

static table_schema t;
static split_defaults d;

/* Table "t" with one family, the given policy (NULL: none) and no jitter. */
static void table_with(const char *policy)
{
    family_schema f;
    family_schema_init(&f, "cf");
    table_schema_init(&t, "t");
    assert_int_equal(table_schema_add_family(&t, &f), ST_OK);
    if (policy)
        assert_int_equal(table_schema_set_value(&t, SCHEMA_SPLIT_POLICY, policy), ST_OK);
    assert_int_equal(table_schema_set_config(&t, SPLIT_POLICY_JITTER_KEY, "0"), ST_OK);
    split_defaults_init(&d);
}

static split_policy configured(void)
{
    split_policy p;
    assert_int_equal(split_policy_configure(&t, &d, "7babd7110704c4b96d7f32e9eb40511a", &p), ST_OK);
    return p;
}

static bool splits(const split_policy *p, unsigned regions, uint64_t store_size)
{
    uint64_t sizes[] = {1, store_size};
    return split_policy_should_split(p, regions, sizes, 2, false);
}

static void defaults_are_hbase_s(void **state)
{
    (void)state;
    split_defaults_init(&d);
    assert_int_equal(d.policy, SPLIT_POLICY_STEPPING);
    assert_true(d.max_filesize == 10ull * 1024 * MB);
    assert_true(d.flushsize == 128 * MB);
    assert_int_equal(d.initial_size, 0);
    assert_true(d.jitter == 0.25);
    /* A table without settings: the server's defaults, initial 2 x the flush size. */
    table_with(NULL);
    t.memstore_flushsize = 0;
    split_policy p = configured();
    assert_int_equal(p.kind, SPLIT_POLICY_STEPPING);
    assert_true(p.desired_max_filesize == 10ull * 1024 * MB);
    assert_true(p.initial_size == 256 * MB);
    assert_true(split_policy_allows_split(&p));
}

static void increasing_to_upper_bound_grows_with_regions(void **state)
{
    (void)state;
    const uint64_t max = 1024, flush = max / 8;
    table_with("IncreasingToUpperBoundRegionSplitPolicy");
    t.max_filesize = max;
    t.memstore_flushsize = flush;
    split_policy p = configured();
    assert_int_equal(p.kind, SPLIT_POLICY_INCREASING_TO_UPPER_BOUND);
    assert_int_equal(p.initial_size, 2 * flush);
    /* No region on the server: constant size. */
    assert_int_equal(split_policy_size_to_check(&p, 0), max);
    assert_false(split_policy_should_split(&p, 0, NULL, 0, false));
    assert_true(splits(&p, 0, 2000));
    /* One region: 2 x flush size. */
    assert_int_equal(split_policy_size_to_check(&p, 1), 2 * flush);
    assert_false(splits(&p, 1, flush));
    assert_false(splits(&p, 1, 2 * flush));
    assert_true(splits(&p, 1, 2 * flush + 1));
    /* Two regions: min(max, 2 x flush x 8) = max. */
    assert_int_equal(split_policy_size_to_check(&p, 2), max);
    assert_false(splits(&p, 2, 2 * flush + 1));
    assert_true(splits(&p, 2, max + 1));
    /* A larger max shows the cube: 8 and 27 x initial. */
    t.max_filesize = 1000 * max;
    p = configured();
    assert_int_equal(split_policy_size_to_check(&p, 2), 8 * 2 * flush);
    assert_int_equal(split_policy_size_to_check(&p, 3), 27 * 2 * flush);
    /* Past 100 regions (and for 0): max again. */
    assert_int_equal(split_policy_size_to_check(&p, 100), 1000 * max);
    assert_int_equal(split_policy_size_to_check(&p, 101), 1000 * max);
    assert_int_equal(split_policy_size_to_check(&p, 1000), 1000 * max);
    /* initial x n^3 past 64 bits stays max. */
    t.max_filesize = UINT64_MAX - 1;
    assert_int_equal(
        table_schema_set_value(&t, SPLIT_POLICY_INITIAL_SIZE_KEY, "9223372036854775807"), ST_OK);
    p = configured();
    assert_true(split_policy_size_to_check(&p, 2) == UINT64_MAX - 1);
    assert_true(split_policy_size_to_check(&p, 1) == INT64_MAX);
}

static void stepping_splits_at_twice_the_flush_size_then_at_max(void **state)
{
    (void)state;
    table_with(NULL); /* the default */
    t.max_filesize = 10ull * 1024 * MB;
    t.memstore_flushsize = 128 * MB;
    split_policy p = configured();
    assert_int_equal(p.kind, SPLIT_POLICY_STEPPING);
    assert_true(split_policy_size_to_check(&p, 1) == 256 * MB);
    assert_false(splits(&p, 1, 256 * MB));
    assert_true(splits(&p, 1, 256 * MB + 1));
    for (unsigned n = 0; n <= 200; n += n == 0 ? 2 : 99) {
        assert_true(split_policy_size_to_check(&p, n) == 10ull * 1024 * MB);
        assert_false(splits(&p, n, 256 * MB + 1));
    }
    assert_true(splits(&p, 2, 10ull * 1024 * MB + 1));
    /* The policy by name, with the prefix, does the same. */
    assert_int_equal(table_schema_set_value(&t, SCHEMA_SPLIT_POLICY,
                                            SPLIT_POLICY_CLASS_PREFIX "SteppingSplitPolicy"),
                     ST_OK);
    p = configured();
    assert_true(split_policy_size_to_check(&p, 1) == 256 * MB);
}

static void initial_size_from_table_server_or_flush_size(void **state)
{
    (void)state;
    table_with("SteppingSplitPolicy");
    t.memstore_flushsize = 4 * MB;
    assert_int_equal(configured().initial_size, 8 * MB);
    t.memstore_flushsize = 0; /* engine-built schema without one: the server's */
    d.flushsize = 3 * MB;
    assert_int_equal(configured().initial_size, 6 * MB);
    d.initial_size = 5 * MB;
    assert_int_equal(configured().initial_size, 5 * MB);
    assert_int_equal(table_schema_set_config(&t, SPLIT_POLICY_INITIAL_SIZE_KEY, "7000"), ST_OK);
    assert_int_equal(configured().initial_size, 7000);
    assert_int_equal(table_schema_set_value(&t, SPLIT_POLICY_INITIAL_SIZE_KEY, "9000"), ST_OK);
    assert_int_equal(configured().initial_size, 9000);
}

static void constant_size_splits_past_max(void **state)
{
    (void)state;
    table_with("ConstantSizeRegionSplitPolicy");
    t.max_filesize = 1024;
    split_policy p = configured();
    assert_int_equal(p.kind, SPLIT_POLICY_CONSTANT_SIZE);
    assert_int_equal(p.desired_max_filesize, 1024);
    assert_false(split_policy_should_split(&p, 1, NULL, 0, false));
    for (unsigned n = 0; n < 5; n++) {
        assert_int_equal(split_policy_size_to_check(&p, n), 1024);
        assert_false(splits(&p, n, 1024));
        assert_true(splits(&p, n, 2000));
    }
    /* Without MAX_FILESIZE: the server's. */
    t.max_filesize = 0;
    d.max_filesize = 1234;
    assert_int_equal(configured().desired_max_filesize, 1234);
    d.max_filesize = 0;
    assert_true(configured().desired_max_filesize == SPLIT_POLICY_DEFAULT_MAX_FILESIZE);
}

/* With jitter 0.25 every region's threshold is within +-12.5% of max, the same on every
 * configure, and not all regions share one. */
static void jitter_is_bounded_and_fixed_per_region(void **state)
{
    (void)state;
    table_with("ConstantSizeRegionSplitPolicy");
    assert_int_equal(table_schema_set_config(&t, SPLIT_POLICY_JITTER_KEY, NULL), ST_OK);
    t.max_filesize = 1000000;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < 200; i++) {
        char name[40];
        snprintf(name, sizeof(name), "%032x", (unsigned)i * 2654435761u);
        split_policy p, again;
        assert_int_equal(split_policy_configure(&t, &d, name, &p), ST_OK);
        assert_int_equal(split_policy_configure(&t, &d, name, &again), ST_OK);
        assert_int_equal(p.desired_max_filesize, again.desired_max_filesize);
        assert_true(p.jitter_rate >= -0.125 && p.jitter_rate < 0.125);
        assert_true(p.desired_max_filesize >= 875000 && p.desired_max_filesize <= 1125000);
        lo = p.desired_max_filesize < lo ? p.desired_max_filesize : lo;
        hi = p.desired_max_filesize > hi ? p.desired_max_filesize : hi;
    }
    assert_true(lo < 900000 && hi > 1100000);
    /* The table's jitter (value over configuration entry) and the server's. */
    split_policy p;
    assert_int_equal(table_schema_set_config(&t, SPLIT_POLICY_JITTER_KEY, "0"), ST_OK);
    assert_int_equal(split_policy_configure(&t, &d, "00ff", &p), ST_OK);
    assert_int_equal(p.desired_max_filesize, 1000000);
    assert_int_equal(table_schema_set_value(&t, SPLIT_POLICY_JITTER_KEY, "1"), ST_OK);
    assert_int_equal(split_policy_configure(&t, &d, "00ff", &p), ST_OK);
    assert_true(p.desired_max_filesize >= 500000 && p.desired_max_filesize < 1500000);
    assert_int_equal(table_schema_set_value(&t, SPLIT_POLICY_JITTER_KEY, NULL), ST_OK);
    assert_int_equal(table_schema_set_config(&t, SPLIT_POLICY_JITTER_KEY, NULL), ST_OK);
    d.jitter = 0;
    assert_int_equal(split_policy_configure(&t, &d, "00ff", &p), ST_OK);
    assert_int_equal(p.desired_max_filesize, 1000000);
    /* No encoded name: no jitter. */
    d.jitter = 0.25;
    assert_int_equal(split_policy_configure(&t, &d, NULL, &p), ST_OK);
    assert_int_equal(p.desired_max_filesize, 1000000);
}

/* HBase's testConstantSizePolicyWithJitter: a positive jitter on the largest max does
 * not wrap around. */
static void jitter_does_not_overflow(void **state)
{
    (void)state;
    table_with("ConstantSizeRegionSplitPolicy");
    assert_int_equal(table_schema_set_config(&t, SPLIT_POLICY_JITTER_KEY, NULL), ST_OK);
    const uint64_t maxes[] = {INT64_MAX, UINT64_MAX};
    for (size_t m = 0; m < 2; m++) {
        t.max_filesize = maxes[m];
        split_policy p = {0};
        for (int i = 0; p.jitter_rate <= 0 && i < 100; i++) {
            char name[40];
            snprintf(name, sizeof(name), "region%d", i);
            assert_int_equal(split_policy_configure(&t, &d, name, &p), ST_OK);
        }
        assert_true(p.jitter_rate > 0);
        assert_true(p.desired_max_filesize >= maxes[m]);
        assert_false(splits(&p, 1, 2000));
    }
}

static void key_prefix_cuts_the_split_point(void **state)
{
    (void)state;
    table_with("org.apache.hadoop.hbase.regionserver.KeyPrefixRegionSplitPolicy");
    assert_int_equal(table_schema_set_value(&t, SPLIT_POLICY_PREFIX_LENGTH_KEY, "2"), ST_OK);
    split_policy p = configured();
    assert_int_equal(p.kind, SPLIT_POLICY_KEY_PREFIX);
    assert_int_equal(p.prefix_length, 2);
    assert_int_equal(split_policy_adjust_point(&p, (const uint8_t *)"abcd", 4), 2);
    assert_int_equal(split_policy_adjust_point(&p, (const uint8_t *)"efgh", 4), 2);
    assert_int_equal(split_policy_adjust_point(&p, (const uint8_t *)"e", 1), 1);
    assert_int_equal(split_policy_adjust_point(&p, (const uint8_t *)"", 0), 0);
    /* It decides as IncreasingToUpperBound. */
    t.max_filesize = 1000 * MB;
    t.memstore_flushsize = MB;
    p = configured();
    assert_true(split_policy_size_to_check(&p, 2) == 16 * MB);
    assert_true(split_policy_size_to_check(&p, 0) == 1000 * MB);
    /* From the configuration, and under HBase's older key. */
    assert_int_equal(table_schema_set_value(&t, SPLIT_POLICY_PREFIX_LENGTH_KEY, NULL), ST_OK);
    assert_int_equal(table_schema_set_config(&t, SPLIT_POLICY_PREFIX_LENGTH_KEY, "3"), ST_OK);
    assert_int_equal(configured().prefix_length, 3);
    assert_int_equal(table_schema_set_config(&t, SPLIT_POLICY_PREFIX_LENGTH_KEY, NULL), ST_OK);
    assert_int_equal(table_schema_set_value(&t, SPLIT_POLICY_PREFIX_LENGTH_KEY_OLD, "1"), ST_OK);
    assert_int_equal(configured().prefix_length, 1);
    /* Another policy leaves split points whole whatever the table says. */
    assert_int_equal(table_schema_set_value(&t, SCHEMA_SPLIT_POLICY, "SteppingSplitPolicy"), ST_OK);
    p = configured();
    assert_int_equal(split_policy_adjust_point(&p, (const uint8_t *)"abcd", 4), 4);
}

static void delimited_key_prefix_cuts_before_the_delimiter(void **state)
{
    (void)state;
    table_with("DelimitedKeyPrefixRegionSplitPolicy");
    assert_int_equal(table_schema_set_value(&t, SPLIT_POLICY_DELIMITER_KEY, ","), ST_OK);
    split_policy p = configured();
    assert_int_equal(p.kind, SPLIT_POLICY_DELIMITED_KEY_PREFIX);
    assert_int_equal(split_policy_adjust_point(&p, (const uint8_t *)"ab,cd", 5), 2);
    assert_int_equal(split_policy_adjust_point(&p, (const uint8_t *)"efg,h", 5), 3);
    assert_int_equal(split_policy_adjust_point(&p, (const uint8_t *)"ijk", 3), 3);
    assert_int_equal(split_policy_adjust_point(&p, (const uint8_t *)",x", 2), 0);
    /* A longer delimiter, from the configuration; bytes past a NUL count. */
    assert_int_equal(table_schema_set_value(&t, SPLIT_POLICY_DELIMITER_KEY, NULL), ST_OK);
    assert_int_equal(table_schema_set_config(&t, SPLIT_POLICY_DELIMITER_KEY, "::"), ST_OK);
    p = configured();
    assert_int_equal(split_policy_adjust_point(&p, (const uint8_t *)"a\0b:c::d", 8), 5);
    assert_int_equal(split_policy_adjust_point(&p, (const uint8_t *)"a:", 2), 2);
    t.max_filesize = 1000 * MB;
    t.memstore_flushsize = MB;
    p = configured();
    assert_true(split_policy_size_to_check(&p, 3) == 54 * MB);
}

static void disabled_never_splits(void **state)
{
    (void)state;
    table_with("DisabledRegionSplitPolicy");
    t.max_filesize = 1;
    split_policy p = configured();
    assert_int_equal(p.kind, SPLIT_POLICY_DISABLED);
    assert_false(split_policy_allows_split(&p));
    assert_true(split_policy_size_to_check(&p, 1) == UINT64_MAX);
    for (unsigned n = 0; n < 3; n++)
        assert_false(splits(&p, n, UINT64_MAX));
    /* The server's default policy applies to a table without SPLIT_POLICY. */
    table_with(NULL);
    d.policy = SPLIT_POLICY_DISABLED;
    p = configured();
    assert_int_equal(p.kind, SPLIT_POLICY_DISABLED);
    assert_false(split_policy_allows_split(&p));
}

/* HBase's testForceSplitRegionWithReference: a store with reference files blocks the
 * split whatever the sizes, under every policy. */
static void references_block_every_policy(void **state)
{
    (void)state;
    const char *names[] = {"SteppingSplitPolicy", "IncreasingToUpperBoundRegionSplitPolicy",
                           "ConstantSizeRegionSplitPolicy"};
    for (size_t i = 0; i < 3; i++) {
        table_with(names[i]);
        t.max_filesize = 1024;
        t.memstore_flushsize = 256;
        split_policy p = configured();
        uint64_t sizes[] = {2000, 2000};
        assert_true(split_policy_should_split(&p, 1, sizes, 2, false));
        assert_false(split_policy_should_split(&p, 1, sizes, 2, true));
    }
}

static void names_parse_with_and_without_prefix(void **state)
{
    (void)state;
    for (int k = SPLIT_POLICY_STEPPING; k <= SPLIT_POLICY_DISABLED; k++) {
        char full[200];
        split_policy_kind out = SPLIT_POLICY_DISABLED;
        const char *name = split_policy_name((split_policy_kind)k);
        assert_int_equal(split_policy_parse_name(name, &out), ST_OK);
        assert_int_equal(out, k);
        snprintf(full, sizeof(full), "%s%s", SPLIT_POLICY_CLASS_PREFIX, name);
        out = SPLIT_POLICY_DISABLED;
        assert_int_equal(split_policy_parse_name(full, &out), ST_OK);
        assert_int_equal(out, k);
    }
    assert_string_equal(split_policy_name(SPLIT_POLICY_CONSTANT_SIZE),
                        "ConstantSizeRegionSplitPolicy");
    assert_string_equal(split_policy_name((split_policy_kind)42), "unknown");
    const char *bad[] = {"",
                         "constantsizeregionsplitpolicy",
                         "org.apache.hadoop.hbase.ConstantSizeRegionSplitPolicy",
                         "BusyRegionSplitPolicy",
                         SPLIT_POLICY_CLASS_PREFIX,
                         "ConstantSizeRegionSplitPolicy "};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        split_policy_kind out = SPLIT_POLICY_STEPPING;
        assert_int_equal(split_policy_parse_name(bad[i], &out), ST_INVALID_ARGUMENT);
        assert_non_null(strstr(st_errmsg(), "SteppingSplitPolicy"));
        assert_int_equal(out, SPLIT_POLICY_STEPPING);
    }
}

/* Sets key in the values (or the configuration) and expects validation to refuse it
 * with a message naming the table and frag. */
static void refused(bool config, const char *key, const char *value, const char *frag)
{
    if (config)
        assert_int_equal(table_schema_set_config(&t, key, value), ST_OK);
    else
        assert_int_equal(table_schema_set_value(&t, key, value), ST_OK);
    assert_int_equal(table_schema_validate(&t), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "table 't'"));
    if (!strstr(st_errmsg(), frag))
        fail_msg("'%s' lacks '%s'", st_errmsg(), frag);
    split_policy p;
    p.kind = SPLIT_POLICY_DISABLED;
    assert_int_equal(split_policy_configure(&t, &d, "ab", &p), ST_INVALID_ARGUMENT);
    assert_int_equal(p.kind, 0);
    if (config)
        assert_int_equal(table_schema_set_config(&t, key, NULL), ST_OK);
    else
        assert_int_equal(table_schema_set_value(&t, key, NULL), ST_OK);
    assert_int_equal(table_schema_validate(&t), ST_OK);
}

static void bad_settings_are_refused(void **state)
{
    (void)state;
    table_with(NULL);
    assert_int_equal(table_schema_validate(&t), ST_OK);
    refused(false, SCHEMA_SPLIT_POLICY, "NoSuchPolicy", "unknown SPLIT_POLICY 'NoSuchPolicy'");
    refused(false, SCHEMA_SPLIT_POLICY, "", "unknown SPLIT_POLICY ''");
    const char *lengths[] = {"0", "-1", "abc", "", "3x", "2147483648", " 3"};
    for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
        refused(false, SPLIT_POLICY_PREFIX_LENGTH_KEY, lengths[i],
                "METADATA KeyPrefixRegionSplitPolicy.prefix_length");
        refused(true, SPLIT_POLICY_PREFIX_LENGTH_KEY, lengths[i],
                "CONFIGURATION KeyPrefixRegionSplitPolicy.prefix_length");
        refused(false, SPLIT_POLICY_PREFIX_LENGTH_KEY_OLD, lengths[i],
                "prefix_split_key_policy.prefix_length");
    }
    const char *jitters[] = {"-0.1", "1.5", "x", "", "nan", "inf", "0.2x"};
    for (size_t i = 0; i < sizeof(jitters) / sizeof(jitters[0]); i++) {
        refused(false, SPLIT_POLICY_JITTER_KEY, jitters[i], "hbase.hregion.max.filesize.jitter");
        refused(true, SPLIT_POLICY_JITTER_KEY, jitters[i], "must be a number 0..1");
    }
    refused(true, SPLIT_POLICY_INITIAL_SIZE_KEY, "0", "hbase.increasing.policy.initial.size");
    refused(false, SPLIT_POLICY_INITIAL_SIZE_KEY, "-5", "must be a positive integer");
    /* A policy that needs a parameter, without it or with an empty delimiter. */
    refused(false, SCHEMA_SPLIT_POLICY, "KeyPrefixRegionSplitPolicy",
            "KeyPrefixRegionSplitPolicy needs KeyPrefixRegionSplitPolicy.prefix_length");
    refused(false, SCHEMA_SPLIT_POLICY, "DelimitedKeyPrefixRegionSplitPolicy",
            "needs a non-empty DelimitedKeyPrefixRegionSplitPolicy.delimiter");
    assert_int_equal(table_schema_set_value(&t, SPLIT_POLICY_DELIMITER_KEY, ""), ST_OK);
    refused(false, SCHEMA_SPLIT_POLICY, "DelimitedKeyPrefixRegionSplitPolicy",
            "non-empty DelimitedKeyPrefixRegionSplitPolicy.delimiter");
    /* An empty delimiter is harmless under another policy; good values pass. */
    assert_int_equal(table_schema_validate(&t), ST_OK);
    assert_int_equal(table_schema_set_value(&t, SPLIT_POLICY_PREFIX_LENGTH_KEY, "2147483647"),
                     ST_OK);
    assert_int_equal(table_schema_set_config(&t, SPLIT_POLICY_JITTER_KEY, "0.5"), ST_OK);
    assert_int_equal(table_schema_set_value(&t, SCHEMA_SPLIT_POLICY, "KeyPrefixRegionSplitPolicy"),
                     ST_OK);
    assert_int_equal(table_schema_validate(&t), ST_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_are_hbase_s),
        cmocka_unit_test(increasing_to_upper_bound_grows_with_regions),
        cmocka_unit_test(stepping_splits_at_twice_the_flush_size_then_at_max),
        cmocka_unit_test(initial_size_from_table_server_or_flush_size),
        cmocka_unit_test(constant_size_splits_past_max),
        cmocka_unit_test(jitter_is_bounded_and_fixed_per_region),
        cmocka_unit_test(jitter_does_not_overflow),
        cmocka_unit_test(key_prefix_cuts_the_split_point),
        cmocka_unit_test(delimited_key_prefix_cuts_before_the_delimiter),
        cmocka_unit_test(disabled_never_splits),
        cmocka_unit_test(references_block_every_policy),
        cmocka_unit_test(names_parse_with_and_without_prefix),
        cmocka_unit_test(bad_settings_are_refused),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
