/*
 * test_filter_parse.c - HBase's filter language: valid strings build filters that behave
 * as expected on sample rows (driven through tests/support/filter_drive.c), AND/OR
 * precedence and parentheses, quote escaping, every comparator and operator, and each
 * kind of error with its message and position.
 * Thread-safety: single-threaded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "regionserver/storage/filter.h"
#include "regionserver/storage/filter_parse.h"
#include "tests/support/filter_drive.h"
#include "tests/support/testutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const tcell rows[] = {
    {"a1", "cf", "name", 1, "ann"}, {"a1", "cf", "st", 1, "on"},  {"b1", "cf", "name", 1, "bob"},
    {"b1", "cf", "st", 1, "off"},   {"b2", "cf", "name", 1, "x"}, {"u1", "cf", "name", 1, "x"},
    {"u1", "cf", "st", 2, "it's"},  {"u1", "cf", "st", 1, "on"},  {"u2", "cf", "name", 1, "y"},
    {"u2", "cf2", "zip", 1, "x"},
};

/* Parses text (which must succeed) and scans rows through the result. */
static const char *run(const char *text)
{
    static char out[4096];
    filter *f = NULL;
    int rc = filter_parse(text, &f);
    if (rc != ST_OK)
        fail_msg("parse \"%s\": %s: %s", text, st_strerror(rc), st_errmsg());
    assert_non_null(f);
    filter_drive_scan(f, rows, N(rows), out, sizeof(out));
    filter_free(f);
    return out;
}

/* Parses text, which must fail with code and a message containing each of the
 * NULL-terminated fragments. */
static void expect_error(const char *text, int code, ...)
{
    filter *f = (filter *)&f; /* must be reset to NULL */
    st_clear();
    int rc = filter_parse(text, &f);
    if (rc != code)
        fail_msg("parse \"%s\": got %s (%s), want %s", text, st_strerror(rc), st_errmsg(),
                 st_strerror(code));
    assert_null(f);
    va_list ap;
    va_start(ap, code);
    for (const char *frag = va_arg(ap, const char *); frag; frag = va_arg(ap, const char *)) {
        if (strstr(st_errmsg(), frag) == NULL)
            fail_msg("parse \"%s\": message \"%s\" lacks \"%s\"", text, st_errmsg(), frag);
    }
    va_end(ap);
}

/* ---- valid strings ---- */

static void test_parse_prefix_and_value(void **state)
{
    assert_string_equal(run("PrefixFilter('u1') AND ValueFilter(=, 'binary:x')"), "u1/cf:name=x");
    assert_string_equal(run("PrefixFilter('b')"), "b1/cf:name=bob,b1/cf:st=off b2/cf:name=x");
}

static void test_parse_every_compare_filter(void **state)
{
    assert_string_equal(run("RowFilter(>=, 'binary:u1')"),
                        "u1/cf:name=x,u1/cf:st=it's,u1/cf:st=on u2/cf:name=y,u2/cf2:zip=x");
    assert_string_equal(run("FamilyFilter(=, 'binary:cf2')"), "u2/cf2:zip=x");
    assert_string_equal(run("QualifierFilter(<, 'binary:st') AND RowFilter(<, 'binary:b')"),
                        "a1/cf:name=ann");
    assert_string_equal(run("ColumnPrefixFilter('zi')"), "u2/cf2:zip=x");
}

static void test_parse_every_operator(void **state)
{
    static const struct {
        const char *text;
        const char *want;
    } cases[] = {
        {"ValueFilter(<, 'binary:bob') AND QualifierFilter(=, 'binary:name')", "a1/cf:name=ann"},
        {"ValueFilter(<=, 'binary:bob') AND QualifierFilter(=, 'binary:name')",
         "a1/cf:name=ann b1/cf:name=bob"},
        {"ValueFilter(=, 'binary:bob')", "b1/cf:name=bob"},
        {"ValueFilter(!=, 'binary:x') AND RowFilter(=, 'binary:u2')", "u2/cf:name=y"},
        {"ValueFilter(>=, 'binary:x') AND QualifierFilter(=, 'binary:name')",
         "b2/cf:name=x u1/cf:name=x u2/cf:name=y"},
        {"ValueFilter(>, 'binary:x')", "u2/cf:name=y"},
    };
    for (size_t i = 0; i < N(cases); i++) {
        const char *got = run(cases[i].text);
        if (strcmp(got, cases[i].want) != 0)
            fail_msg("\"%s\" kept \"%s\", want \"%s\"", cases[i].text, got, cases[i].want);
    }
}

static void test_parse_every_comparator(void **state)
{
    assert_string_equal(run("ValueFilter(=, 'binaryprefix:o')"),
                        "a1/cf:st=on b1/cf:st=off u1/cf:st=on");
    assert_string_equal(run("ValueFilter(=, 'substring:O')"),
                        "a1/cf:st=on b1/cf:name=bob,b1/cf:st=off u1/cf:st=on");
    assert_string_equal(run("ValueFilter(!=, 'substring:o') AND RowFilter(=, 'binary:u1')"),
                        "u1/cf:name=x,u1/cf:st=it's");
    assert_string_equal(
        run("RowFilter(=, 'regexstring:^[ab][0-9]$') AND ValueFilter(=, 'regexstring:n+$')"),
        "a1/cf:name=ann,a1/cf:st=on");
    /* everything after the first ':' is the value */
    assert_string_equal(
        run("ValueFilter(=, 'regexstring:^(x|y:z)$') AND RowFilter(=, 'binary:u1')"),
        "u1/cf:name=x");
}

static void test_parse_quote_escaping(void **state)
{
    assert_string_equal(run("ValueFilter(=, 'binary:it''s')"), "u1/cf:st=it's");
    assert_string_equal(run("ValueFilter(=, 'substring:''')"), "u1/cf:st=it's");
    /* parentheses, commas and keywords inside quotes are plain bytes */
    assert_string_equal(run("ValueFilter(=, 'binary:a,(b) AND '' OR c')"), "");
    assert_string_equal(run("ValueFilter(!=, 'binary:a,(b) AND '' OR c') AND PrefixFilter('b2')"),
                        "b2/cf:name=x");
    assert_string_equal(run("PrefixFilter('') AND QualifierFilter(=, 'binary:zip')"),
                        "u2/cf2:zip=x");
}

static void test_parse_scv_four_and_six_args(void **state)
{
    /* four: filter_if_missing false, latest only true: b1 (off) goes, rows without st stay;
     * u1's latest st is "it's" so it goes too */
    assert_string_equal(run("SingleColumnValueFilter('cf','st',=,'binary:on')"),
                        "a1/cf:name=ann,a1/cf:st=on b2/cf:name=x u2/cf:name=y,u2/cf2:zip=x");
    assert_string_equal(run("SingleColumnValueFilter('cf', 'st', =, 'binary:on', true, true)"),
                        "a1/cf:name=ann,a1/cf:st=on");
    assert_string_equal(run("SingleColumnValueFilter('cf', 'st', =, 'binary:on', TRUE, False)"),
                        "a1/cf:name=ann,a1/cf:st=on u1/cf:name=x,u1/cf:st=it's,u1/cf:st=on");
}

static void test_parse_page_first_key_key_only_timestamps(void **state)
{
    assert_string_equal(run("PageFilter(2)"),
                        "a1/cf:name=ann,a1/cf:st=on b1/cf:name=bob,b1/cf:st=off");
    assert_string_equal(run("PageFilter(0)"), "");
    assert_string_equal(run("FirstKeyOnlyFilter() AND PrefixFilter('u')"),
                        "u1/cf:name=x u2/cf:name=y");
    assert_string_equal(run("KeyOnlyFilter() AND PrefixFilter('a')"), "a1/cf:name=,a1/cf:st=");
    assert_string_equal(run("KeyOnlyFilter(true) AND RowFilter(=, 'binary:b2')"),
                        "b2/cf:name=\\x00\\x00\\x00\\x01");
    assert_string_equal(run("TimestampsFilter(2, 7)"), "u1/cf:st=it's");
    assert_string_equal(run("TimestampsFilter()"), "");
}

static void test_parse_and_binds_tighter_than_or(void **state)
{
    /* a OR (b AND value=x) */
    assert_string_equal(
        run("PrefixFilter('a') OR PrefixFilter('b') AND ValueFilter(=, 'binary:x')"),
        "a1/cf:name=ann,a1/cf:st=on b2/cf:name=x");
    /* (b AND value=x) OR a: the same */
    assert_string_equal(
        run("PrefixFilter('b') AND ValueFilter(=, 'binary:x') OR PrefixFilter('a')"),
        "a1/cf:name=ann,a1/cf:st=on b2/cf:name=x");
    /* parentheses override */
    assert_string_equal(
        run("(PrefixFilter('a') OR PrefixFilter('b')) AND ValueFilter(=, 'binary:x')"),
        "b2/cf:name=x");
}

static void test_parse_parenthesised_or_with_key_only(void **state)
{
    assert_string_equal(run("(PrefixFilter('a') OR PrefixFilter('b')) AND KeyOnlyFilter()"),
                        "a1/cf:name=,a1/cf:st= b1/cf:name=,b1/cf:st= b2/cf:name=");
    assert_string_equal(run("((( PrefixFilter('b2') )))"), "b2/cf:name=x");
    assert_string_equal(
        run(" \tPrefixFilter ( 'a' )\nOR(PrefixFilter('u2'))AND(FamilyFilter(=,'binary:cf2'))"),
        "a1/cf:name=ann,a1/cf:st=on u2/cf2:zip=x");
}

static void test_parse_and_chain_is_one_list(void **state)
{
    filter *f = NULL;
    assert_int_equal(filter_parse("PageFilter(1) AND PageFilter(1) AND PageFilter(1)", &f), ST_OK);
    /* "a AND b AND c" is a list (more can be added); a lone filter is not */
    assert_int_equal(filter_list_add(f, filter_key_only_new(false)), ST_OK);
    filter_free(f);
    assert_int_equal(filter_parse("PageFilter(1)", &f), ST_OK);
    assert_int_equal(filter_list_add(f, filter_key_only_new(false)), ST_INVALID_ARGUMENT);
    filter_free(f);
}

/* ---- errors ---- */

static void test_parse_error_unknown_filter_name(void **state)
{
    expect_error("FooFilter('a')", ST_INVALID_ARGUMENT, "unknown filter 'FooFilter'",
                 "at position 0", NULL);
    expect_error("PrefixFilter('a') AND prefixfilter('b')", ST_INVALID_ARGUMENT,
                 "unknown filter 'prefixfilter'", "at position 22", NULL);
    expect_error("ColumnRangeFilter('a', true, 'b', false)", ST_INVALID_ARGUMENT, "unknown filter",
                 NULL);
}

static void test_parse_error_wrong_argument_count(void **state)
{
    expect_error("PrefixFilter()", ST_INVALID_ARGUMENT,
                 "wrong number of arguments for PrefixFilter: got 0, expected 1", "at position 0",
                 NULL);
    expect_error("ValueFilter(=, 'binary:a', 'x')", ST_INVALID_ARGUMENT,
                 "ValueFilter: got 3, expected 2", NULL);
    expect_error("  SingleColumnValueFilter('cf', 'q', =, 'binary:v', true)", ST_INVALID_ARGUMENT,
                 "got 5, expected 4 or 6", "at position 2", NULL);
    expect_error("FirstKeyOnlyFilter(1)", ST_INVALID_ARGUMENT, "got 1, expected 0", NULL);
    expect_error("KeyOnlyFilter(true, true)", ST_INVALID_ARGUMENT, "expected 0 or 1", NULL);
}

static void test_parse_error_wrong_argument_type(void **state)
{
    expect_error("PrefixFilter(abc)", ST_INVALID_ARGUMENT,
                 "argument 1 of PrefixFilter must be a quoted string, got 'abc'", "at position 13",
                 NULL);
    expect_error("ValueFilter('=', 'binary:a')", ST_INVALID_ARGUMENT,
                 "argument 1 of ValueFilter must be a compare operator", "at position 12", NULL);
    expect_error("ValueFilter(=, binary)", ST_INVALID_ARGUMENT,
                 "argument 2 of ValueFilter must be a quoted string", NULL);
    expect_error("PageFilter('2')", ST_INVALID_ARGUMENT, "must be an integer", NULL);
    expect_error("PageFilter(2x)", ST_INVALID_ARGUMENT, "must be an integer", NULL);
    expect_error("PageFilter(-)", ST_INVALID_ARGUMENT, "must be an integer", NULL);
    expect_error("PageFilter(-1)", ST_INVALID_ARGUMENT, "must not be negative", NULL);
    expect_error("PageFilter(99999999999999999999)", ST_INVALID_ARGUMENT, "integer out of range",
                 NULL);
    expect_error("TimestampsFilter(5, -3)", ST_INVALID_ARGUMENT,
                 "argument 2 of TimestampsFilter must not be negative", "at position 20", NULL);
    expect_error("KeyOnlyFilter(yes)", ST_INVALID_ARGUMENT, "must be true or false", NULL);
    expect_error("SingleColumnValueFilter('cf', 'q', =, 'binary:v', 1, true)", ST_INVALID_ARGUMENT,
                 "argument 5 of SingleColumnValueFilter must be true or false", NULL);
}

static void test_parse_error_bad_comparator(void **state)
{
    expect_error("ValueFilter(=, 'binary')", ST_INVALID_ARGUMENT, "no ':' found", "at position 15",
                 NULL);
    expect_error("ValueFilter(=, 'bin:x')", ST_INVALID_ARGUMENT, "unknown comparator type 'bin'",
                 NULL);
    expect_error("RowFilter(<, 'substring:x')", ST_INVALID_ARGUMENT,
                 "substring comparator works only with = and !=", "at position 10", NULL);
    expect_error("SingleColumnValueFilter('cf', 'q', >=, 'regexstring:x')", ST_INVALID_ARGUMENT,
                 "regexstring comparator works only with = and !=", NULL);
    expect_error("ValueFilter(=, 'regexstring:a(b')", ST_INVALID_ARGUMENT,
                 "argument 2 of ValueFilter: invalid regexstring pattern 'a(b'", "at position 15",
                 NULL);
}

/* Found by fuzz_filter_parse: a regexstring of stacked repetitions ran the parsing
 * process out of memory inside regcomp(); now it is an argument error with a position. */
static void test_parse_error_regex_too_complex(void **state)
{
    expect_error("RowFilter(=, 'regexstring:(true)+++++++++++++++++++++++++++++++ru1c')",
                 ST_INVALID_ARGUMENT, "argument 2 of RowFilter: regexstring pattern is too complex",
                 "at position 13", NULL);
}

static void test_parse_error_unterminated_string(void **state)
{
    expect_error("PrefixFilter('abc)", ST_INVALID_ARGUMENT, "unterminated string", "at position 13",
                 NULL);
    expect_error("PrefixFilter('it''s)", ST_INVALID_ARGUMENT, "unterminated string",
                 "at position 13", NULL);
}

static void test_parse_error_trailing_garbage(void **state)
{
    expect_error("PrefixFilter('a') xyz", ST_INVALID_ARGUMENT, "unexpected 'xyz'", "at position 18",
                 NULL);
    expect_error("PrefixFilter('a') PrefixFilter('b')", ST_INVALID_ARGUMENT,
                 "after a complete filter", "at position 18", NULL);
    expect_error("PrefixFilter('a'))", ST_INVALID_ARGUMENT, "unbalanced ')'", "at position 17",
                 NULL);
    expect_error("PrefixFilter('a') and PrefixFilter('b')", ST_INVALID_ARGUMENT,
                 "operators are upper case", "at position 18", NULL);
}

static void test_parse_error_structure(void **state)
{
    expect_error("", ST_INVALID_ARGUMENT, "empty filter string", NULL);
    expect_error("   ", ST_INVALID_ARGUMENT, "empty filter string", NULL);
    expect_error(NULL, ST_INVALID_ARGUMENT, "empty filter string", NULL);
    expect_error("PrefixFilter", ST_INVALID_ARGUMENT, "expected '(' after PrefixFilter",
                 "end of input", NULL);
    expect_error("PrefixFilter('a'", ST_INVALID_ARGUMENT, "expected ',' or ')'",
                 "at position 16 (end of input)", NULL);
    expect_error("PrefixFilter('a' 'b')", ST_INVALID_ARGUMENT, "expected ',' or ')'",
                 "at position 17", NULL);
    expect_error("ValueFilter(=, )", ST_INVALID_ARGUMENT, "expected an argument of ValueFilter",
                 "at position 15", NULL);
    expect_error("(PrefixFilter('a')", ST_INVALID_ARGUMENT, "missing ')' for the '(' at position 0",
                 NULL);
    expect_error("(PrefixFilter('a') PageFilter(1))", ST_INVALID_ARGUMENT,
                 "expected AND, OR or ')'", "at position 19", NULL);
    expect_error("PrefixFilter('a') AND", ST_INVALID_ARGUMENT, "expected a filter name or '('",
                 "end of input", NULL);
    expect_error("AND PrefixFilter('a')", ST_INVALID_ARGUMENT, "expected a filter before 'AND'",
                 "at position 0", NULL);
    expect_error("PrefixFilter('a') OR OR PrefixFilter('b')", ST_INVALID_ARGUMENT,
                 "expected a filter before 'OR'", "at position 21", NULL);
    expect_error("()", ST_INVALID_ARGUMENT, "expected a filter name or '(', got ')'", NULL);
    expect_error("ValueFilter(! 'binary:a')", ST_INVALID_ARGUMENT, "unexpected '!'",
                 "at position 12", NULL);
    expect_error("PrefixFilter('a') & PageFilter(1)", ST_INVALID_ARGUMENT,
                 "unexpected character '&'", "at position 18", NULL);
    expect_error("PrefixFilter(\"a\")", ST_INVALID_ARGUMENT, "unexpected character '\"'", NULL);
}

static void test_parse_error_skip_while_unsupported(void **state)
{
    expect_error("SKIP ValueFilter(=, 'binary:x')", ST_UNSUPPORTED,
                 "the SKIP operator is not supported", "at position 0", NULL);
    expect_error("PrefixFilter('a') AND WHILE RowFilter(=, 'binary:a')", ST_UNSUPPORTED,
                 "the WHILE operator is not supported", "at position 22", NULL);
}

static void test_parse_error_nesting_too_deep(void **state)
{
    char text[400];
    size_t n = 0;
    for (int i = 0; i < 100; i++)
        text[n++] = '(';
    snprintf(text + n, sizeof(text) - n, "PageFilter(1)");
    expect_error(text, ST_INVALID_ARGUMENT, "nested deeper than 64", "at position 64", NULL);
}

static void test_parse_error_frees_partial_filters(void **state)
{
    /* the first operands were built before the error: ASan reports any leak */
    expect_error("PrefixFilter('a') AND (ValueFilter(=, 'binary:x') OR PageFilter(1)) AND Bad()",
                 ST_INVALID_ARGUMENT, "unknown filter 'Bad'", "at position 72", NULL);
    expect_error("PrefixFilter('a') OR PrefixFilter('b') OR PageFilter(", ST_INVALID_ARGUMENT,
                 "expected an argument of PageFilter", NULL);
    expect_error("(PrefixFilter('a') OR PrefixFilter('b')) 'x'", ST_INVALID_ARGUMENT,
                 "unexpected ''x''", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_prefix_and_value),
        cmocka_unit_test(test_parse_every_compare_filter),
        cmocka_unit_test(test_parse_every_operator),
        cmocka_unit_test(test_parse_every_comparator),
        cmocka_unit_test(test_parse_quote_escaping),
        cmocka_unit_test(test_parse_scv_four_and_six_args),
        cmocka_unit_test(test_parse_page_first_key_key_only_timestamps),
        cmocka_unit_test(test_parse_and_binds_tighter_than_or),
        cmocka_unit_test(test_parse_parenthesised_or_with_key_only),
        cmocka_unit_test(test_parse_and_chain_is_one_list),
        cmocka_unit_test(test_parse_error_unknown_filter_name),
        cmocka_unit_test(test_parse_error_wrong_argument_count),
        cmocka_unit_test(test_parse_error_wrong_argument_type),
        cmocka_unit_test(test_parse_error_bad_comparator),
        cmocka_unit_test(test_parse_error_regex_too_complex),
        cmocka_unit_test(test_parse_error_unterminated_string),
        cmocka_unit_test(test_parse_error_trailing_garbage),
        cmocka_unit_test(test_parse_error_structure),
        cmocka_unit_test(test_parse_error_skip_while_unsupported),
        cmocka_unit_test(test_parse_error_nesting_too_deep),
        cmocka_unit_test(test_parse_error_frees_partial_filters),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
