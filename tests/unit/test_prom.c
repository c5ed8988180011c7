/*
 * test_prom.c - common/http/prom.h: family headers with escaped HELP text, samples with and
 * without labels, label value escaping, number formatting (integers exact, doubles
 * shortest, NaN/+Inf/-Inf), and bad metric or label names refused with nothing written.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "common/http/prom.h"
#include "common/status.h"
#include "tests/support/testutil.h"

static void expect_text(buf_t *b, const char *want)
{
    assert_int_equal(b->len, strlen(want));
    assert_memory_equal(b->data, want, b->len);
    buf_free(b);
}

static void family_and_samples(void **state)
{
    buf_t b = {0};
    prom_label l[2] = {{"table", "default:t"}, {"region", "abc"}};
    assert_int_equal(prom_family(&b, "read_request_count", "counter", "Rows read\nper \\region"),
                     ST_OK);
    assert_int_equal(prom_sample_u64(&b, "read_request_count", NULL, 0, UINT64_MAX), ST_OK);
    assert_int_equal(prom_sample_u64(&b, "read_request_count", l, 2, 7), ST_OK);
    assert_int_equal(prom_sample_i64(&b, "read_request_count", l, 1, -3), ST_OK);
    expect_text(&b, "# HELP read_request_count Rows read\\nper \\\\region\n"
                    "# TYPE read_request_count counter\n"
                    "read_request_count 18446744073709551615\n"
                    "read_request_count{table=\"default:t\",region=\"abc\"} 7\n"
                    "read_request_count{table=\"default:t\"} -3\n");
}

static void label_values_escaped(void **state)
{
    buf_t b = {0};
    prom_label l = {"server", "a\"b\\c\nd,e}"};
    assert_int_equal(prom_sample_u64(&b, "x", &l, 1, 1), ST_OK);
    expect_text(&b, "x{server=\"a\\\"b\\\\c\\nd,e}\"} 1\n");
}

static void doubles(void **state)
{
    buf_t b = {0};
    assert_int_equal(prom_sample_double(&b, "a", NULL, 0, 0.1), ST_OK);
    assert_int_equal(prom_sample_double(&b, "a", NULL, 0, 12345678.0), ST_OK);
    assert_int_equal(prom_sample_double(&b, "a", NULL, 0, NAN), ST_OK);
    assert_int_equal(prom_sample_double(&b, "a", NULL, 0, INFINITY), ST_OK);
    assert_int_equal(prom_sample_double(&b, "a", NULL, 0, -INFINITY), ST_OK);
    assert_int_equal(prom_sample_double(&b, "a", NULL, 0, 2.5e-7), ST_OK);
    expect_text(&b, "a 0.1\na 12345678\na NaN\na +Inf\na -Inf\na 2.5e-07\n");
}

static void bad_names_refused(void **state)
{
    buf_t b = {0};
    prom_label bad[] = {{"1x", "v"}, {"a-b", "v"}, {"__reserved", "v"}, {"", "v"}, {"a:b", "v"}};
    assert_int_equal(prom_family(&b, "9lives", "gauge", "h"), ST_INVALID_ARGUMENT);
    assert_int_equal(prom_family(&b, "a b", "gauge", "h"), ST_INVALID_ARGUMENT);
    assert_int_equal(prom_family(&b, "ok", "", "h"), ST_INVALID_ARGUMENT);
    assert_int_equal(prom_sample_u64(&b, "with-dash", NULL, 0, 1), ST_INVALID_ARGUMENT);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(prom_sample_u64(&b, "ok", &bad[i], 1, 1), ST_INVALID_ARGUMENT);
    assert_int_equal(b.len, 0);
    /* colons are fine in metric names */
    assert_int_equal(prom_sample_u64(&b, "job:rate_5m", NULL, 0, 1), ST_OK);
    expect_text(&b, "job:rate_5m 1\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(family_and_samples),
        cmocka_unit_test(label_values_escaped),
        cmocka_unit_test(doubles),
        cmocka_unit_test(bad_names_refused),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
