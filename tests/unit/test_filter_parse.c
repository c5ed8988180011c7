/*
 * test_filter_parse.c - HBase's filter language: valid strings build filters that behave
 * as expected on sample rows (driven through tests/support/filter_drive.c), every filter
 * name and argument form, SKIP/WHILE/AND/OR precedence and parentheses, quote escaping,
 * every comparator and operator, and each kind of error (wrong argument counts and types
 * for every filter) with its message and position. The filters' own semantics, seeks
 * and row edits are tested in test_filter.c.
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
    expect_error("RandomRowFilter(0.5)", ST_INVALID_ARGUMENT, "unknown filter 'RandomRowFilter'",
                 "ColumnRangeFilter, MultipleColumnPrefixFilter", "FuzzyRowFilter", NULL);
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

/* ---- the filters HBase's ParseFilter added after the first ones, and Strata's three ---- */

static void test_parse_column_filters(void **state)
{
    /* a1 has two columns: the second ends the scan */
    assert_string_equal(run("ColumnCountGetFilter(1)"), "a1/cf:name=ann");
    assert_string_equal(run("ColumnCountGetFilter(0)"), "");
    assert_string_equal(run("ColumnPaginationFilter(1, 1)"),
                        "a1/cf:st=on b1/cf:st=off u1/cf:st=it's u2/cf2:zip=x");
    assert_string_equal(run("ColumnPaginationFilter(5, 0) AND PrefixFilter('u1')"),
                        "u1/cf:name=x,u1/cf:st=it's");
    assert_string_equal(run("ColumnRangeFilter('n', true, 'st', false)"),
                        "a1/cf:name=ann b1/cf:name=bob b2/cf:name=x u1/cf:name=x u2/cf:name=y");
    assert_string_equal(run("ColumnRangeFilter('', false, 'st', TRUE) AND RowFilter(=, "
                            "'binary:a1')"),
                        "a1/cf:name=ann,a1/cf:st=on");
    assert_string_equal(run("ColumnRangeFilter('st', false, '', true)"), "u2/cf2:zip=x");
    assert_string_equal(run("MultipleColumnPrefixFilter('z', 's')"),
                        "a1/cf:st=on b1/cf:st=off u1/cf:st=it's,u1/cf:st=on u2/cf2:zip=x");
    assert_string_equal(run("MultipleColumnPrefixFilter() AND PrefixFilter('b')"),
                        "b1/cf:name=bob,b1/cf:st=off b2/cf:name=x");
    assert_string_equal(run("FirstKeyValueMatchingQualifiersFilter('name') AND PrefixFilter('a')"),
                        "a1/cf:name=ann");
    assert_string_equal(run("FirstKeyValueMatchingQualifiersFilter('st', 'zip') AND "
                            "PrefixFilter('u')"),
                        "u1/cf:name=x,u1/cf:st=it's u2/cf:name=y,u2/cf2:zip=x");
}

static void test_parse_column_value_and_dependent(void **state)
{
    assert_string_equal(run("ColumnValueFilter('cf', 'st', =, 'binary:on')"),
                        "a1/cf:st=on u1/cf:st=on");
    assert_string_equal(run("ColumnValueFilter('cf', 'st', !=, 'substring:O')"), "u1/cf:st=it's");
    /* drop: the column itself is skipped; (filter_drive runs no filter_row_cells) */
    assert_string_equal(run("DependentColumnFilter('cf', 'st', true) AND PrefixFilter('a')"),
                        "a1/cf:name=ann");
    assert_string_equal(run("DependentColumnFilter('cf', 'st') AND PrefixFilter('a')"),
                        "a1/cf:name=ann,a1/cf:st=on");
    /* the 5-argument form: u1's st@1 is "on", so only the cells at ts 1 stay */
    filter *f = NULL;
    assert_int_equal(filter_parse("DependentColumnFilter('cf', 'st', false, =, 'binary:on')", &f),
                     ST_OK);
    cell_t u1[3] = {filter_drive_cell(&rows[5]), filter_drive_cell(&rows[6]),
                    filter_drive_cell(&rows[7])};
    filter_reset(f);
    assert_false(filter_row_key(f, u1[0].row, u1[0].row_len));
    assert_int_equal(filter_cell(f, &u1[0]), FILTER_INCLUDE);
    assert_int_equal(filter_cell(f, &u1[1]), FILTER_SKIP);
    assert_int_equal(filter_cell(f, &u1[2]), FILTER_INCLUDE);
    assert_int_equal(filter_row_cells(f, u1, 3), 2);
    assert_int_equal(u1[1].ts, 1);
    filter_free(f);
}

static void test_parse_scv_exclude(void **state)
{
    assert_string_equal(run("SingleColumnValueExcludeFilter('cf', 'st', =, 'binary:on', true, "
                            "false)"),
                        "a1/cf:name=ann,a1/cf:st=on u1/cf:name=x,u1/cf:st=it's,u1/cf:st=on");
    filter *f = NULL;
    assert_int_equal(filter_parse("SingleColumnValueExcludeFilter('cf','st',=,'binary:on')", &f),
                     ST_OK);
    cell_t a1[2] = {filter_drive_cell(&rows[0]), filter_drive_cell(&rows[1])};
    filter_reset(f);
    assert_int_equal(filter_cell(f, &a1[0]), FILTER_INCLUDE);
    assert_int_equal(filter_cell(f, &a1[1]), FILTER_INCLUDE);
    assert_int_equal(filter_row_cells(f, a1, 2), 1); /* st leaves the row */
    assert_false(filter_row(f, a1, 1));
    filter_free(f);
}

static void test_parse_row_filters(void **state)
{
    assert_string_equal(run("InclusiveStopFilter('b2')"),
                        "a1/cf:name=ann,a1/cf:st=on b1/cf:name=bob,b1/cf:st=off b2/cf:name=x");
    assert_string_equal(run("InclusiveStopFilter('b1') AND KeyOnlyFilter()"),
                        "a1/cf:name=,a1/cf:st= b1/cf:name=,b1/cf:st=");
    assert_string_equal(run("MultiRowRangeFilter('a', true, 'b1', true, 'u2', true, '', false)"),
                        "a1/cf:name=ann,a1/cf:st=on b1/cf:name=bob,b1/cf:st=off "
                        "u2/cf:name=y,u2/cf2:zip=x");
    assert_string_equal(run("MultiRowRangeFilter('b1', false, 'u1', false) AND "
                            "FirstKeyOnlyFilter()"),
                        "b2/cf:name=x");
    assert_string_equal(run("FuzzyRowFilter('?1', '10') AND FirstKeyOnlyFilter()"),
                        "a1/cf:name=ann b1/cf:name=bob u1/cf:name=x");
    assert_string_equal(run("FuzzyRowFilter('b?', '01', 'u2', '00') AND FirstKeyOnlyFilter()"),
                        "b1/cf:name=bob b2/cf:name=x u2/cf:name=y");
    /* a quote in a fuzzy key is a byte like any other (here under a wildcard) */
    assert_string_equal(run("FuzzyRowFilter('''1', '10') AND FirstKeyOnlyFilter()"),
                        "a1/cf:name=ann b1/cf:name=bob u1/cf:name=x");
}

static void test_parse_skip_and_while(void **state)
{
    assert_string_equal(run("SKIP ValueFilter(!=, 'binary:x')"),
                        "a1/cf:name=ann,a1/cf:st=on b1/cf:name=bob,b1/cf:st=off");
    assert_string_equal(run("SKIP(ValueFilter(!=, 'binary:x'))"),
                        "a1/cf:name=ann,a1/cf:st=on b1/cf:name=bob,b1/cf:st=off");
    assert_string_equal(run("(SKIP ValueFilter(!=, 'binary:x'))"),
                        "a1/cf:name=ann,a1/cf:st=on b1/cf:name=bob,b1/cf:st=off");
    assert_string_equal(run("SKIP SKIP ValueFilter(!=, 'binary:x')"),
                        "a1/cf:name=ann,a1/cf:st=on b1/cf:name=bob,b1/cf:st=off");
    assert_string_equal(run("WHILE ValueFilter(!=, 'binary:x')"),
                        "a1/cf:name=ann,a1/cf:st=on b1/cf:name=bob,b1/cf:st=off");
    assert_string_equal(run("WHILE RowFilter(<, 'binary:u')"),
                        "a1/cf:name=ann,a1/cf:st=on b1/cf:name=bob,b1/cf:st=off b2/cf:name=x");
}

static void test_parse_skip_while_bind_tighter_than_and(void **state)
{
    /* (SKIP value) AND qualifier: a1's st passes the value, so SKIP keeps a1 */
    assert_string_equal(run("SKIP ValueFilter(!=, 'binary:x') AND QualifierFilter(=, "
                            "'binary:name')"),
                        "a1/cf:name=ann b1/cf:name=bob");
    /* SKIP (value AND qualifier): st fails the list, so every row goes */
    assert_string_equal(run("SKIP (ValueFilter(!=, 'binary:x') AND QualifierFilter(=, "
                            "'binary:name'))"),
                        "");
    /* (WHILE row) AND value: bob is only skipped; WHILE (row AND value): bob ends the scan */
    assert_string_equal(run("WHILE RowFilter(<, 'binary:u') AND ValueFilter(!=, 'binary:bob')"),
                        "a1/cf:name=ann,a1/cf:st=on b1/cf:st=off b2/cf:name=x");
    assert_string_equal(run("WHILE (RowFilter(<, 'binary:u') AND ValueFilter(!=, "
                            "'binary:bob'))"),
                        "a1/cf:name=ann,a1/cf:st=on");
    /* prefix OR ((WHILE row) AND value) */
    assert_string_equal(run("PrefixFilter('a') OR WHILE RowFilter(<, 'binary:b2') AND "
                            "ValueFilter(!=, 'binary:bob')"),
                        "a1/cf:name=ann,a1/cf:st=on b1/cf:st=off");
    assert_string_equal(run("WHILE SKIP ValueFilter(!=, 'binary:off')"),
                        "a1/cf:name=ann,a1/cf:st=on");
}

static void test_parse_error_new_filter_arguments(void **state)
{
    static const struct {
        const char *text;
        const char *frag1, *frag2;
    } bad[] = {
        {"ColumnCountGetFilter()", "ColumnCountGetFilter: got 0, expected 1",
         "usage: ColumnCountGetFilter(limit)"},
        {"ColumnCountGetFilter(-1)", "argument 1 of ColumnCountGetFilter must not be negative",
         "at position 21"},
        {"ColumnCountGetFilter(2147483648)", "integer out of range (at most 2147483647)", NULL},
        {"ColumnCountGetFilter('1')", "argument 1 of ColumnCountGetFilter must be an integer",
         NULL},
        {"ColumnPaginationFilter(1)", "ColumnPaginationFilter: got 1, expected 2", NULL},
        {"ColumnPaginationFilter(1, 'q')",
         "argument 2 of ColumnPaginationFilter must be an integer offset", "no column-offset form"},
        {"ColumnPaginationFilter(1, -2)",
         "argument 2 of ColumnPaginationFilter must not be negative", NULL},
        {"ColumnPaginationFilter(true, 1)",
         "argument 1 of ColumnPaginationFilter must be an integer", NULL},
        {"ColumnRangeFilter('a', true, 'b')", "ColumnRangeFilter: got 3, expected 4", NULL},
        {"ColumnRangeFilter('a', yes, 'b', true)",
         "argument 2 of ColumnRangeFilter must be true or false", NULL},
        {"ColumnRangeFilter(a, true, 'b', true)",
         "argument 1 of ColumnRangeFilter must be a quoted string", NULL},
        {"ColumnRangeFilter('a', true, 'b', 1)",
         "argument 4 of ColumnRangeFilter must be true or false", NULL},
        {"MultipleColumnPrefixFilter('a', 'b', 'a')",
         "argument 3 of MultipleColumnPrefixFilter repeats a prefix", "at position 37"},
        {"MultipleColumnPrefixFilter('a', 1)",
         "argument 2 of MultipleColumnPrefixFilter must be a quoted string", NULL},
        {"FirstKeyValueMatchingQualifiersFilter(=)",
         "argument 1 of FirstKeyValueMatchingQualifiersFilter must be a quoted string", NULL},
        {"DependentColumnFilter('cf')", "DependentColumnFilter: got 1, expected 2, 3 or 5", NULL},
        {"DependentColumnFilter('cf', 'q', true, =)", "got 4, expected 2, 3 or 5", NULL},
        {"DependentColumnFilter('cf', 'q', 'x')",
         "argument 3 of DependentColumnFilter must be true or false", NULL},
        {"DependentColumnFilter('cf', 'q', true, 'x', 'binary:y')",
         "argument 4 of DependentColumnFilter must be a compare operator", NULL},
        {"DependentColumnFilter('cf', 'q', true, =, 'bin:x')", "unknown comparator type 'bin'",
         NULL},
        {"DependentColumnFilter('cf', 'q', true, <, 'substring:x')",
         "DependentColumnFilter: a substring comparator works only with = and !=", NULL},
        {"ColumnValueFilter('cf', 'q', =)", "ColumnValueFilter: got 3, expected 4", NULL},
        {"ColumnValueFilter('cf', 'q', 'x', 'binary:y')",
         "argument 3 of ColumnValueFilter must be a compare operator", NULL},
        {"ColumnValueFilter('cf', 'q', >, 'regexstring:y')",
         "a regexstring comparator works only with = and !=", NULL},
        {"ColumnValueFilter(cf, 'q', =, 'binary:y')",
         "argument 1 of ColumnValueFilter must be a quoted string", NULL},
        {"SingleColumnValueExcludeFilter('cf', 'q', =, 'binary:v', true)",
         "SingleColumnValueExcludeFilter: got 5, expected 4 or 6", NULL},
        {"SingleColumnValueExcludeFilter('cf', 'q', =, 'binary:v', true, 0)",
         "argument 6 of SingleColumnValueExcludeFilter must be true or false", NULL},
        {"InclusiveStopFilter()", "InclusiveStopFilter: got 0, expected 1", NULL},
        {"InclusiveStopFilter(b)", "argument 1 of InclusiveStopFilter must be a quoted string",
         NULL},
        {"MultiRowRangeFilter()", "MultiRowRangeFilter: got 0, expected a multiple of 4", NULL},
        {"MultiRowRangeFilter('a', true, 'b')", "got 3, expected a multiple of 4", NULL},
        {"MultiRowRangeFilter('a', true, 'b', true, 'c')", "got 5", NULL},
        {"MultiRowRangeFilter('a', true, 'b', true, 'd', true, 'c', true)",
         "range 2 of MultiRowRangeFilter is empty: its start row sorts after its stop row",
         "at position 42"},
        {"MultiRowRangeFilter('a', true, 'a', false)", "range 1 of MultiRowRangeFilter is empty",
         "equal to (exclusive)"},
        {"MultiRowRangeFilter('a', 1, 'b', true)",
         "argument 2 of MultiRowRangeFilter must be true or false", NULL},
        {"FuzzyRowFilter()", "FuzzyRowFilter: got 0, expected pairs of 'key', 'mask'", NULL},
        {"FuzzyRowFilter('ab')", "FuzzyRowFilter: got 1", NULL},
        {"FuzzyRowFilter('ab', '0')",
         "argument 2 of FuzzyRowFilter: the mask must be as long as its key (2 bytes), got 1",
         "at position 21"},
        {"FuzzyRowFilter('ab', '00', 'cd', '0x')",
         "argument 4 of FuzzyRowFilter: a mask holds '0' (fixed byte) and '1' (any byte), got "
         "byte 0x78 at offset 1",
         NULL},
        {"FuzzyRowFilter('ab', 01)", "argument 2 of FuzzyRowFilter must be a quoted string", NULL},
    };
    for (size_t i = 0; i < N(bad); i++)
        expect_error(bad[i].text, ST_INVALID_ARGUMENT, bad[i].frag1, bad[i].frag2, NULL);
}

static void test_parse_error_skip_while(void **state)
{
    expect_error("skip ValueFilter(=, 'binary:x')", ST_INVALID_ARGUMENT,
                 "operators are upper case: write 'skip' as SKIP", "at position 0", NULL);
    expect_error("PrefixFilter('a') AND While RowFilter(=, 'binary:a')", ST_INVALID_ARGUMENT,
                 "write 'While' as WHILE", "at position 22", NULL);
    expect_error("SKIP", ST_INVALID_ARGUMENT, "expected a filter name or '(', got end of input",
                 NULL);
    expect_error("WHILE AND PrefixFilter('a')", ST_INVALID_ARGUMENT,
                 "expected a filter before 'AND'", "at position 6", NULL);
    expect_error("PrefixFilter('a') SKIP ValueFilter(=, 'binary:x')", ST_INVALID_ARGUMENT,
                 "SKIP and WHILE go before the filter they wrap", "at position 18", NULL);
    expect_error("SKIP SKIP Bad()", ST_INVALID_ARGUMENT, "unknown filter 'Bad'", NULL);
    char text[700];
    size_t n = 0;
    for (int i = 0; i < 100; i++)
        n += (size_t)snprintf(text + n, sizeof(text) - n, "SKIP ");
    snprintf(text + n, sizeof(text) - n, "PageFilter(1)");
    expect_error(text, ST_INVALID_ARGUMENT, "SKIP, WHILE and parentheses nested deeper than 64",
                 "at position 320", NULL);
    n = 0;
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(text + n, sizeof(text) - n, "(WHILE ");
    expect_error(text, ST_INVALID_ARGUMENT, "nested deeper than 64", NULL);
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
        cmocka_unit_test(test_parse_error_skip_while),
        cmocka_unit_test(test_parse_column_filters),
        cmocka_unit_test(test_parse_column_value_and_dependent),
        cmocka_unit_test(test_parse_scv_exclude),
        cmocka_unit_test(test_parse_row_filters),
        cmocka_unit_test(test_parse_skip_and_while),
        cmocka_unit_test(test_parse_skip_while_bind_tighter_than_and),
        cmocka_unit_test(test_parse_error_new_filter_arguments),
        cmocka_unit_test(test_parse_error_nesting_too_deep),
        cmocka_unit_test(test_parse_error_frees_partial_filters),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
