/*
 * test_rest_filter.c - HBase REST's JSON filters turned into Strata's filter language
 * (rest/rest_filter.c): the text produced for every mapped filter and comparator and
 * every compare op, each text parsed by regionserver/storage/filter_parse.h and driven
 * over sample rows (tests/support/filter_drive.h) to keep what HBase's filter would keep;
 * the equivalent expressions (ColumnRangeFilter, MultipleColumnPrefixFilter,
 * MultiRowRangeFilter, InclusiveStopFilter forwards and reversed), FilterList nesting,
 * filters that pass everything (an empty FilterList, an unbounded MultiRowRangeFilter)
 * giving NULL, quotes doubled and zero bytes refused, ColumnCountGetFilter,
 * ColumnPaginationFilter, SingleColumnValueExcludeFilter, DependentColumnFilter, SkipFilter,
 * WhileMatchFilter and FuzzyRowFilter, unsupported filters and comparators refused naming
 * them (ST_UNSUPPORTED), and unknown types and malformed fields (ST_INVALID_ARGUMENT).
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
#include "rest/rest_internal.h"
#include "tests/support/filter_drive.h"
#include "tests/support/testutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* the rows of test_filter_parse.c */
static const tcell rows[] = {
    {"a1", "cf", "name", 1, "ann"}, {"a1", "cf", "st", 1, "on"},  {"b1", "cf", "name", 1, "bob"},
    {"b1", "cf", "st", 1, "off"},   {"b2", "cf", "name", 1, "x"}, {"u1", "cf", "name", 1, "x"},
    {"u1", "cf", "st", 2, "it's"},  {"u1", "cf", "st", 1, "on"},  {"u2", "cf", "name", 1, "y"},
    {"u2", "cf2", "zip", 1, "x"},
};

#define ALL_ROWS                                                                                   \
    "a1/cf:name=ann,a1/cf:st=on b1/cf:name=bob,b1/cf:st=off b2/cf:name=x "                         \
    "u1/cf:name=x,u1/cf:st=it's,u1/cf:st=on u2/cf:name=y,u2/cf2:zip=x"

/* JSON written with single quotes (a literal quote inside a string is \u0027) */
static const char *jq(const char *s)
{
    static char out[4096];
    size_t n = strlen(s);
    assert_true(n < sizeof(out));
    for (size_t i = 0; i <= n; i++)
        out[i] = s[i] == '\'' ? '"' : s[i];
    return out;
}

/* The filter text of json (which must convert to a filter). */
static char *convert(const char *json, bool reversed)
{
    const char *j = jq(json);
    char *text = (char *)&text; /* must be reset */
    st_clear();
    int rc = rest_filter_from_json(j, strlen(j), reversed, &text);
    if (rc != ST_OK)
        fail_msg("%s: %s: %s", j, st_strerror(rc), st_errmsg());
    if (!text)
        fail_msg("%s: no filter", j);
    return text;
}

/* Parses text and drives it over rows. */
static const char *drive(const char *text)
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

/* json converts to want_text, which parses and keeps want_rows of the sample rows. */
static void expect_filter(const char *json, bool reversed, const char *want_text,
                          const char *want_rows)
{
    char *text = convert(json, reversed);
    if (strcmp(text, want_text) != 0)
        fail_msg("%s: \"%s\", want \"%s\"", jq(json), text, want_text);
    const char *got = drive(text);
    if (want_rows && strcmp(got, want_rows) != 0)
        fail_msg("%s (\"%s\") kept \"%s\", want \"%s\"", jq(json), text, got, want_rows);
    free(text);
}

/* json converts to no filter (passes everything). */
static void expect_none(const char *json)
{
    const char *j = jq(json);
    char *text = (char *)&text;
    int rc = rest_filter_from_json(j, strlen(j), false, &text);
    if (rc != ST_OK)
        fail_msg("%s: %s: %s", j, st_strerror(rc), st_errmsg());
    if (text)
        fail_msg("%s: \"%s\", want no filter", j, text);
}

/* json is refused with code and a message holding frag. */
static void expect_error(const char *json, int code, const char *frag)
{
    const char *j = jq(json);
    char *text = (char *)&text;
    st_clear();
    int rc = rest_filter_from_json(j, strlen(j), false, &text);
    if (rc != code)
        fail_msg("%s: got %s (%s), want %s", j, st_strerror(rc), st_errmsg(), st_strerror(code));
    assert_null(text);
    if (!strstr(st_errmsg(), frag))
        fail_msg("%s: message \"%s\" lacks \"%s\"", j, st_errmsg(), frag);
}

/* ---- comparison filters ---- */

static void test_compare_filters_and_comparators(void **state)
{
    expect_filter("{'type':'RowFilter','op':'GREATER_OR_EQUAL','comparator':{'type':"
                  "'BinaryComparator','value':'dTE='}}",
                  false, "RowFilter(>=, 'binary:u1')",
                  "u1/cf:name=x,u1/cf:st=it's,u1/cf:st=on u2/cf:name=y,u2/cf2:zip=x");
    expect_filter("{'type':'FamilyFilter','op':'EQUAL','comparator':{'type':'BinaryComparator',"
                  "'value':'Y2Yy'}}",
                  false, "FamilyFilter(=, 'binary:cf2')", "u2/cf2:zip=x");
    expect_filter("{'type':'QualifierFilter','op':'EQUAL','comparator':{'type':"
                  "'BinaryPrefixComparator','value':'emk='}}",
                  false, "QualifierFilter(=, 'binaryprefix:zi')", "u2/cf2:zip=x");
    expect_filter("{'type':'ValueFilter','op':'EQUAL','comparator':{'type':"
                  "'BinaryPrefixComparator','value':'bw=='}}",
                  false, "ValueFilter(=, 'binaryprefix:o')",
                  "a1/cf:st=on b1/cf:st=off u1/cf:st=on");
    /* substring and regex values are plain strings, not base64 */
    expect_filter("{'type':'ValueFilter','op':'EQUAL','comparator':{'type':'SubstringComparator',"
                  "'value':'O'}}",
                  false, "ValueFilter(=, 'substring:O')",
                  "a1/cf:st=on b1/cf:name=bob,b1/cf:st=off u1/cf:st=on");
    expect_filter("{'type':'RowFilter','op':'EQUAL','comparator':{'type':'RegexStringComparator',"
                  "'value':'^[ab][0-9]$'}}",
                  false, "RowFilter(=, 'regexstring:^[ab][0-9]$')",
                  "a1/cf:name=ann,a1/cf:st=on b1/cf:name=bob,b1/cf:st=off b2/cf:name=x");
    expect_filter("{'type':'ValueFilter','op':'NOT_EQUAL','comparator':{'type':"
                  "'RegexStringComparator','value':'^(x|y)$'}}",
                  false, "ValueFilter(!=, 'regexstring:^(x|y)$')",
                  "a1/cf:name=ann,a1/cf:st=on b1/cf:name=bob,b1/cf:st=off "
                  "u1/cf:st=it's,u1/cf:st=on");
}

static void test_every_compare_op(void **state)
{
    static const struct {
        const char *op;
        const char *sym;
        const char *rows;
    } ops[] = {
        {"LESS", "<", "a1/cf:name=ann,a1/cf:st=on"},
        {"LESS_OR_EQUAL", "<=", "a1/cf:name=ann,a1/cf:st=on b1/cf:name=bob,b1/cf:st=off"},
        {"EQUAL", "=", "b1/cf:name=bob,b1/cf:st=off"},
        {"NOT_EQUAL", "!=",
         "a1/cf:name=ann,a1/cf:st=on b2/cf:name=x u1/cf:name=x,u1/cf:st=it's,u1/cf:st=on "
         "u2/cf:name=y,u2/cf2:zip=x"},
        {"GREATER_OR_EQUAL", ">=",
         "b1/cf:name=bob,b1/cf:st=off b2/cf:name=x u1/cf:name=x,u1/cf:st=it's,u1/cf:st=on "
         "u2/cf:name=y,u2/cf2:zip=x"},
        {"GREATER", ">",
         "b2/cf:name=x u1/cf:name=x,u1/cf:st=it's,u1/cf:st=on u2/cf:name=y,u2/cf2:zip=x"},
    };
    for (size_t i = 0; i < N(ops); i++) {
        char json[256], text[64];
        snprintf(json, sizeof(json),
                 "{'type':'RowFilter','op':'%s','comparator':{'type':'BinaryComparator','value':"
                 "'YjE='}}",
                 ops[i].op);
        snprintf(text, sizeof(text), "RowFilter(%s, 'binary:b1')", ops[i].sym);
        expect_filter(json, false, text, ops[i].rows);
    }
}

/* ---- the other mapped filters ---- */

static void test_prefix_and_column_prefix(void **state)
{
    expect_filter("{'type':'PrefixFilter','value':'Yg=='}", false, "PrefixFilter('b')",
                  "b1/cf:name=bob,b1/cf:st=off b2/cf:name=x");
    expect_filter("{'type':'ColumnPrefixFilter','value':'emk='}", false, "ColumnPrefixFilter('zi')",
                  "u2/cf2:zip=x");
    /* an empty prefix passes everything */
    expect_filter("{'type':'PrefixFilter','value':''}", false, "PrefixFilter('')", ALL_ROWS);
    /* binary bytes pass through the quotes */
    expect_filter("{'type':'PrefixFilter','value':'/w=='}", false, "PrefixFilter('\xff')", "");
}

static void test_single_column_value_filter(void **state)
{
    /* defaults: filterIfMissing false, latestVersion true */
    expect_filter("{'type':'SingleColumnValueFilter','family':'Y2Y=','qualifier':'c3Q=','op':"
                  "'EQUAL','comparator':{'type':'BinaryComparator','value':'b24='}}",
                  false, "SingleColumnValueFilter('cf', 'st', =, 'binary:on', false, true)",
                  "a1/cf:name=ann,a1/cf:st=on b2/cf:name=x u2/cf:name=y,u2/cf2:zip=x");
    expect_filter("{'type':'SingleColumnValueFilter','family':'Y2Y=','qualifier':'c3Q=','op':"
                  "'EQUAL','comparator':{'type':'BinaryComparator','value':'b24='},'ifMissing':"
                  "true,'latestVersion':true}",
                  false, "SingleColumnValueFilter('cf', 'st', =, 'binary:on', true, true)",
                  "a1/cf:name=ann,a1/cf:st=on");
    expect_filter("{'type':'SingleColumnValueFilter','family':'Y2Y=','qualifier':'c3Q=','op':"
                  "'EQUAL','comparator':{'type':'BinaryComparator','value':'b24='},'ifMissing':"
                  "'true','latestVersion':false}",
                  false, "SingleColumnValueFilter('cf', 'st', =, 'binary:on', true, false)",
                  "a1/cf:name=ann,a1/cf:st=on u1/cf:name=x,u1/cf:st=it's,u1/cf:st=on");
    /* no qualifier (null or absent): the empty qualifier */
    expect_filter("{'type':'SingleColumnValueFilter','family':'Y2Y=','qualifier':null,'op':"
                  "'EQUAL','comparator':{'type':'BinaryComparator','value':'b24='},'ifMissing':"
                  "true}",
                  false, "SingleColumnValueFilter('cf', '', =, 'binary:on', true, true)", "");
    expect_filter("{'type':'SingleColumnValueFilter','family':'Y2Y=','op':'EQUAL','comparator':"
                  "{'type':'BinaryComparator','value':'b24='}}",
                  false, "SingleColumnValueFilter('cf', '', =, 'binary:on', false, true)",
                  ALL_ROWS);
}

static void test_page_first_key_key_only_timestamps(void **state)
{
    expect_filter("{'type':'PageFilter','value':'2'}", false, "PageFilter(2)",
                  "a1/cf:name=ann,a1/cf:st=on b1/cf:name=bob,b1/cf:st=off");
    expect_filter("{'type':'PageFilter','value':0}", false, "PageFilter(0)", "");
    expect_filter("{'type':'FirstKeyOnlyFilter'}", false, "FirstKeyOnlyFilter()",
                  "a1/cf:name=ann b1/cf:name=bob b2/cf:name=x u1/cf:name=x u2/cf:name=y");
    expect_filter("{'type':'KeyOnlyFilter'}", false, "KeyOnlyFilter()",
                  "a1/cf:name=,a1/cf:st= b1/cf:name=,b1/cf:st= b2/cf:name= "
                  "u1/cf:name=,u1/cf:st=,u1/cf:st= u2/cf:name=,u2/cf2:zip=");
    expect_filter("{'type':'TimestampsFilter','timestamps':[2,7]}", false, "TimestampsFilter(2, 7)",
                  "u1/cf:st=it's");
    expect_filter("{'type':'TimestampsFilter','timestamps':['1']}", false, "TimestampsFilter(1)",
                  "a1/cf:name=ann,a1/cf:st=on b1/cf:name=bob,b1/cf:st=off b2/cf:name=x "
                  "u1/cf:name=x,u1/cf:st=on u2/cf:name=y,u2/cf2:zip=x");
}

static void test_column_range_filter(void **state)
{
    expect_filter("{'type':'ColumnRangeFilter','minColumn':'bmFtZQ==','minColumnInclusive':true,"
                  "'maxColumn':'c3Q=','maxColumnInclusive':false}",
                  false, "QualifierFilter(>=, 'binary:name') AND QualifierFilter(<, 'binary:st')",
                  "a1/cf:name=ann b1/cf:name=bob b2/cf:name=x u1/cf:name=x u2/cf:name=y");
    expect_filter("{'type':'ColumnRangeFilter','minColumn':'bmFtZQ==','minColumnInclusive':false,"
                  "'maxColumn':'c3Q=','maxColumnInclusive':true}",
                  false, "QualifierFilter(>, 'binary:name') AND QualifierFilter(<=, 'binary:st')",
                  "a1/cf:st=on b1/cf:st=off u1/cf:st=it's,u1/cf:st=on");
    /* one end open */
    expect_filter("{'type':'ColumnRangeFilter','minColumn':'c3Q=','minColumnInclusive':true}",
                  false, "QualifierFilter(>=, 'binary:st')",
                  "a1/cf:st=on b1/cf:st=off u1/cf:st=it's,u1/cf:st=on u2/cf2:zip=x");
    expect_filter("{'type':'ColumnRangeFilter','minColumn':'','maxColumn':'c3Q=',"
                  "'maxColumnInclusive':false}",
                  false, "QualifierFilter(<, 'binary:st')",
                  "a1/cf:name=ann b1/cf:name=bob b2/cf:name=x u1/cf:name=x u2/cf:name=y");
    /* both open: every column */
    expect_none("{'type':'ColumnRangeFilter','minColumn':null,'maxColumn':''}");
}

static void test_multiple_column_prefix_filter(void **state)
{
    expect_filter("{'type':'MultipleColumnPrefixFilter','prefixes':['c3Q=','emk=']}", false,
                  "ColumnPrefixFilter('st') OR ColumnPrefixFilter('zi')",
                  "a1/cf:st=on b1/cf:st=off u1/cf:st=it's,u1/cf:st=on u2/cf2:zip=x");
    expect_none("{'type':'MultipleColumnPrefixFilter','prefixes':[]}");
    /* inside a list it is one operand */
    expect_filter("{'type':'FilterList','op':'MUST_PASS_ALL','filters':[{'type':"
                  "'MultipleColumnPrefixFilter','prefixes':['c3Q=','emk=']},{'type':"
                  "'PrefixFilter','value':'dQ=='}]}",
                  false,
                  "(ColumnPrefixFilter('st') OR ColumnPrefixFilter('zi')) AND "
                  "(PrefixFilter('u'))",
                  "u1/cf:st=it's,u1/cf:st=on u2/cf2:zip=x");
}

static void test_multi_row_range_filter(void **state)
{
    expect_filter("{'type':'MultiRowRangeFilter','ranges':[{'startRow':'YTE=','startRowInclusive':"
                  "true,'stopRow':'YjI=','stopRowInclusive':false},{'startRow':'dTI=',"
                  "'startRowInclusive':true,'stopRow':'','stopRowInclusive':false}]}",
                  false,
                  "(RowFilter(>=, 'binary:a1') AND RowFilter(<, 'binary:b2')) OR "
                  "(RowFilter(>=, 'binary:u2'))",
                  "a1/cf:name=ann,a1/cf:st=on b1/cf:name=bob,b1/cf:st=off "
                  "u2/cf:name=y,u2/cf2:zip=x");
    expect_filter("{'type':'MultiRowRangeFilter','ranges':[{'startRow':'YTE=','startRowInclusive':"
                  "false,'stopRow':'YjI=','stopRowInclusive':true}]}",
                  false, "(RowFilter(>, 'binary:a1') AND RowFilter(<=, 'binary:b2'))",
                  "b1/cf:name=bob,b1/cf:st=off b2/cf:name=x");
    /* a range over every row makes the filter pass everything */
    expect_none("{'type':'MultiRowRangeFilter','ranges':[{'startRow':'YTE=','stopRow':'YjI='},"
                "{'startRow':'','stopRow':''}]}");
    expect_none("{'type':'MultiRowRangeFilter','ranges':[{}]}");
    expect_error("{'type':'MultiRowRangeFilter','ranges':[]}", ST_INVALID_ARGUMENT,
                 "needs at least one range");
    expect_error("{'type':'MultiRowRangeFilter'}", ST_INVALID_ARGUMENT, "needs a \"ranges\" array");
    expect_error("{'type':'MultiRowRangeFilter','ranges':[5]}", ST_INVALID_ARGUMENT,
                 "a range is a JSON object");
}

static void test_inclusive_stop_forward_and_reversed(void **state)
{
    expect_filter("{'type':'InclusiveStopFilter','value':'YjE='}", false,
                  "RowFilter(<=, 'binary:b1')",
                  "a1/cf:name=ann,a1/cf:st=on b1/cf:name=bob,b1/cf:st=off");
    /* a reversed scan stops below the bound, the bound included */
    expect_filter("{'type':'InclusiveStopFilter','value':'YjE='}", true,
                  "RowFilter(>=, 'binary:b1')",
                  "b1/cf:name=bob,b1/cf:st=off b2/cf:name=x "
                  "u1/cf:name=x,u1/cf:st=it's,u1/cf:st=on u2/cf:name=y,u2/cf2:zip=x");
    /* the direction reaches into lists */
    expect_filter("{'type':'FilterList','op':'MUST_PASS_ALL','filters':[{'type':"
                  "'InclusiveStopFilter','value':'dTE='}]}",
                  true, "(RowFilter(>=, 'binary:u1'))",
                  "u1/cf:name=x,u1/cf:st=it's,u1/cf:st=on u2/cf:name=y,u2/cf2:zip=x");
}

/* ---- lists ---- */

static void test_filter_lists(void **state)
{
    expect_filter("{'type':'FilterList','op':'MUST_PASS_ALL','filters':[{'type':'QualifierFilter',"
                  "'op':'LESS','comparator':{'type':'BinaryComparator','value':'c3Q='}},{'type':"
                  "'RowFilter','op':'LESS','comparator':{'type':'BinaryComparator','value':"
                  "'Yg=='}}]}",
                  false, "(QualifierFilter(<, 'binary:st')) AND (RowFilter(<, 'binary:b'))",
                  "a1/cf:name=ann");
    expect_filter("{'type':'FilterList','op':'MUST_PASS_ONE','filters':[{'type':'PrefixFilter',"
                  "'value':'YQ=='},{'type':'PrefixFilter','value':'dTI='}]}",
                  false, "(PrefixFilter('a')) OR (PrefixFilter('u2'))",
                  "a1/cf:name=ann,a1/cf:st=on u2/cf:name=y,u2/cf2:zip=x");
    /* nested: (a OR b) AND value x */
    expect_filter("{'type':'FilterList','op':'MUST_PASS_ALL','filters':[{'type':'FilterList',"
                  "'op':'MUST_PASS_ONE','filters':[{'type':'PrefixFilter','value':'YQ=='},{'type':"
                  "'PrefixFilter','value':'Yg=='}]},{'type':'ValueFilter','op':'EQUAL',"
                  "'comparator':{'type':'BinaryComparator','value':'eA=='}}]}",
                  false,
                  "((PrefixFilter('a')) OR (PrefixFilter('b'))) AND "
                  "(ValueFilter(=, 'binary:x'))",
                  "b2/cf:name=x");
    /* pass-everything members of an AND are left out */
    expect_filter("{'type':'FilterList','op':'MUST_PASS_ALL','filters':[{'type':'FilterList','op':"
                  "'MUST_PASS_ONE','filters':[]},{'type':'PrefixFilter','value':'YjI='},{'type':"
                  "'MultipleColumnPrefixFilter','prefixes':[]}]}",
                  false, "(PrefixFilter('b2'))", "b2/cf:name=x");
}

static void test_filter_lists_passing_everything(void **state)
{
    expect_none("{'type':'FilterList','op':'MUST_PASS_ALL','filters':[]}");
    expect_none("{'type':'FilterList','op':'MUST_PASS_ONE','filters':[]}");
    expect_none("{'type':'FilterList','op':'MUST_PASS_ALL','filters':[{'type':'FilterList','op':"
                "'MUST_PASS_ONE','filters':[]}]}");
    /* an OR with a member that passes everything passes everything, as in HBase */
    expect_none("{'type':'FilterList','op':'MUST_PASS_ONE','filters':[{'type':'PrefixFilter',"
                "'value':'YQ=='},{'type':'FilterList','op':'MUST_PASS_ALL','filters':[]}]}");
    expect_none("{'type':'FilterList','op':'MUST_PASS_ONE','filters':[{'type':"
                "'MultiRowRangeFilter','ranges':[{}]},{'type':'PrefixFilter','value':'YQ=='}]}");
    /* ... and as an AND's member it is left out */
    expect_filter("{'type':'FilterList','op':'MUST_PASS_ALL','filters':[{'type':'PrefixFilter',"
                  "'value':'dQ=='},{'type':'FilterList','op':'MUST_PASS_ONE','filters':[{'type':"
                  "'PrefixFilter','value':'YQ=='},{'type':'ColumnRangeFilter'}]}]}",
                  false, "(PrefixFilter('u'))",
                  "u1/cf:name=x,u1/cf:st=it's,u1/cf:st=on u2/cf:name=y,u2/cf2:zip=x");
}

/* ---- quoting ---- */

static void test_quotes_doubled_zero_refused(void **state)
{
    expect_filter("{'type':'ValueFilter','op':'EQUAL','comparator':{'type':'BinaryComparator',"
                  "'value':'aXQncw=='}}",
                  false, "ValueFilter(=, 'binary:it''s')", "u1/cf:st=it's");
    expect_filter("{'type':'ValueFilter','op':'EQUAL','comparator':{'type':'SubstringComparator',"
                  "'value':'\\u0027'}}",
                  false, "ValueFilter(=, 'substring:''')", "u1/cf:st=it's");
    expect_filter("{'type':'PrefixFilter','value':'Jw=='}", false, "PrefixFilter('''')", "");
    expect_error("{'type':'PrefixFilter','value':'YQBi'}", ST_INVALID_ARGUMENT,
                 "PrefixFilter holds a zero byte");
    expect_error("{'type':'RowFilter','op':'EQUAL','comparator':{'type':'BinaryComparator',"
                 "'value':'YQBi'}}",
                 ST_INVALID_ARGUMENT, "RowFilter holds a zero byte");
    expect_error("{'type':'ValueFilter','op':'EQUAL','comparator':{'type':'SubstringComparator',"
                 "'value':'a\\u0000b'}}",
                 ST_INVALID_ARGUMENT, "zero byte");
    expect_error("{'type':'InclusiveStopFilter','value':'AA=='}", ST_INVALID_ARGUMENT,
                 "InclusiveStopFilter holds a zero byte");
    expect_error("{'type':'MultiRowRangeFilter','ranges':[{'startRow':'AA=='}]}",
                 ST_INVALID_ARGUMENT, "zero byte");
}

/* ---- refusals ---- */

static void test_unsupported_filters_and_comparators(void **state)
{
    static const char *const types[] = {
        "RandomRowFilter",
    };
    for (size_t i = 0; i < N(types); i++) {
        char json[128];
        snprintf(json, sizeof(json), "{'type':'%s','limit':1}", types[i]);
        expect_error(json, ST_UNSUPPORTED, types[i]);
    }
    expect_error("{'type':'RowFilter','op':'EQUAL','comparator':{'type':'BitComparator','value':"
                 "'YQ==','op':'AND'}}",
                 ST_UNSUPPORTED, "the BitComparator is not supported");
    expect_error("{'type':'ValueFilter','op':'EQUAL','comparator':{'type':'NullComparator'}}",
                 ST_UNSUPPORTED, "the NullComparator is not supported");
    expect_error("{'type':'RowFilter','op':'NO_OP','comparator':{'type':'BinaryComparator',"
                 "'value':'YQ=='}}",
                 ST_UNSUPPORTED, "NO_OP");
    /* inside a list too */
    expect_error("{'type':'FilterList','op':'MUST_PASS_ALL','filters':[{'type':'PrefixFilter',"
                 "'value':'YQ=='},{'type':'RandomRowFilter','chance':0.5}]}",
                 ST_UNSUPPORTED, "RandomRowFilter");
    expect_error("{'type':'ColumnPaginationFilter','limit':1,'value':'YQ=='}", ST_UNSUPPORTED,
                 "a column offset");
}

/* ---- the filters the language gained: counts, pages, dependent columns, SKIP, WHILE,
 * fuzzy rows ---- */

static void test_more_filters(void **state)
{
    expect_filter("{'type':'ColumnCountGetFilter','limit':1}", false, "ColumnCountGetFilter(1)",
                  NULL);
    expect_filter("{'type':'ColumnPaginationFilter','limit':1,'offset':1}", false,
                  "ColumnPaginationFilter(1, 1)", NULL);
    expect_filter("{'type':'SingleColumnValueExcludeFilter','family':'Y2Y=','qualifier':"
                  "'bmFtZQ==','op':'EQUAL','comparator':{'type':'BinaryComparator','value':"
                  "'eA=='}}",
                  false,
                  "SingleColumnValueExcludeFilter('cf', 'name', =, 'binary:x', false, true)",
                  NULL);
    expect_filter("{'type':'DependentColumnFilter','family':'Y2Y=','qualifier':'c3Q=',"
                  "'dropDependentColumn':true}",
                  false, "DependentColumnFilter('cf', 'st', true)", NULL);
    expect_filter("{'type':'DependentColumnFilter','family':'Y2Y=','qualifier':'c3Q=','op':"
                  "'EQUAL','comparator':{'type':'BinaryComparator','value':'b24='}}",
                  false, "DependentColumnFilter('cf', 'st', false, =, 'binary:on')", NULL);
    /* SKIP: rows with no cell equal to x; WHILE: until the first row not before b */
    expect_filter("{'type':'SkipFilter','filters':[{'type':'ValueFilter','op':'NOT_EQUAL',"
                  "'comparator':{'type':'BinaryComparator','value':'eA=='}}]}",
                  false, "SKIP (ValueFilter(!=, 'binary:x'))",
                  "a1/cf:name=ann,a1/cf:st=on b1/cf:name=bob,b1/cf:st=off");
    expect_filter("{'type':'WhileMatchFilter','filters':[{'type':'RowFilter','op':'LESS',"
                  "'comparator':{'type':'BinaryComparator','value':'Yg=='}}]}",
                  false, "WHILE (RowFilter(<, 'binary:b'))", "a1/cf:name=ann,a1/cf:st=on");
    expect_none("{'type':'SkipFilter','filters':[{'type':'FilterList','op':'MUST_PASS_ALL',"
                "'filters':[]}]}");
    /* fuzzy keys: mask bytes 0 (fixed) and 1 (any); a byte under a 1 is written as '?' */
    expect_filter("{'type':'FuzzyRowFilter','fuzzyKeys':[{'key':'eDE=','value':'AQA='},{'key':"
                  "'dTI=','value':'AAA='}]}",
                  false, "FuzzyRowFilter('?1', '10', 'u2', '00')", NULL);
    expect_filter("{'type':'FuzzyRowFilter','fuzzyKeys':[{'key':'AGI=','value':'AQA='}]}", false,
                  "FuzzyRowFilter('?b', '10')", NULL); /* a zero byte under a 1 is fine */
    expect_error("{'type':'FuzzyRowFilter','fuzzyKeys':[{'key':'eDE=','value':'AgA='}]}",
                 ST_INVALID_ARGUMENT, "mask byte 0 is 2, not 0 or 1");
    expect_error("{'type':'FuzzyRowFilter','fuzzyKeys':[{'key':'eDE=','value':'AQ=='}]}",
                 ST_INVALID_ARGUMENT, "has 2 bytes and a mask of 1");
    expect_error("{'type':'FuzzyRowFilter','fuzzyKeys':[]}", ST_INVALID_ARGUMENT,
                 "non-empty \"fuzzyKeys\"");
    expect_error("{'type':'SkipFilter','filters':[]}", ST_INVALID_ARGUMENT,
                 "array of one filter");
    expect_error("{'type':'ColumnCountGetFilter','limit':-1}", ST_INVALID_ARGUMENT,
                 "an integer >= 0");
    expect_error("{'type':'ColumnPaginationFilter','limit':1}", ST_INVALID_ARGUMENT, "offset");
}

static void test_malformed_filters_refused(void **state)
{
    static const struct {
        const char *json;
        const char *frag;
    } bad[] = {
        {"{'type':'FooFilter'}", "unknown filter type 'FooFilter'"},
        {"{'value':'YQ=='}", "a filter needs a string \"type\""},
        {"{'type':5}", "a filter needs a string \"type\""},
        {"[]", "a filter is a JSON object"},
        {"{'type':'PrefixFilter'", "the filter is not JSON"},
        {"", "the filter is not JSON"},
        {"{'type':'PrefixFilter'}", "PrefixFilter needs a string \"value\""},
        {"{'type':'PrefixFilter','value':5}", "PrefixFilter needs a string \"value\""},
        {"{'type':'PrefixFilter','value':'Y!=='}", "PrefixFilter: \"value\" is not valid base64"},
        {"{'type':'RowFilter','comparator':{'type':'BinaryComparator','value':'YQ=='}}",
         "RowFilter needs an \"op\""},
        {"{'type':'RowFilter','op':'BIGGER','comparator':{'type':'BinaryComparator','value':"
         "'YQ=='}}",
         "op 'BIGGER' is not a comparison"},
        {"{'type':'RowFilter','op':'EQUAL'}", "RowFilter needs a \"comparator\" object"},
        {"{'type':'RowFilter','op':'EQUAL','comparator':'binary:a'}", "needs a \"comparator\""},
        {"{'type':'RowFilter','op':'EQUAL','comparator':{'value':'YQ=='}}",
         "the comparator needs a \"type\""},
        {"{'type':'RowFilter','op':'EQUAL','comparator':{'type':'LongComparator','value':'1'}}",
         "unknown comparator type 'LongComparator'"},
        {"{'type':'RowFilter','op':'EQUAL','comparator':{'type':'BinaryComparator'}}",
         "BinaryComparator needs a string \"value\""},
        {"{'type':'RowFilter','op':'EQUAL','comparator':{'type':'BinaryComparator','value':'*'}}",
         "not valid base64"},
        {"{'type':'ValueFilter','op':'EQUAL','comparator':{'type':'SubstringComparator',"
         "'value':5}}",
         "SubstringComparator needs a string \"value\""},
        {"{'type':'PageFilter'}", "PageFilter needs a \"value\""},
        {"{'type':'PageFilter','value':-1}", "PageFilter needs a \"value\""},
        {"{'type':'PageFilter','value':'ten'}", "PageFilter needs a \"value\""},
        {"{'type':'PageFilter','value':1.5}", "PageFilter needs a \"value\""},
        {"{'type':'TimestampsFilter'}", "non-empty \"timestamps\" array"},
        {"{'type':'TimestampsFilter','timestamps':[]}", "non-empty \"timestamps\" array"},
        {"{'type':'TimestampsFilter','timestamps':[1,-2]}", "timestamp 1 is not a non-negative"},
        {"{'type':'TimestampsFilter','timestamps':['x']}", "timestamp 0 is not"},
        {"{'type':'SingleColumnValueFilter','qualifier':'c3Q=','op':'EQUAL','comparator':{"
         "'type':'BinaryComparator','value':'b24='}}",
         "SingleColumnValueFilter needs a string \"family\""},
        {"{'type':'SingleColumnValueFilter','family':'Y2Y=','op':'EQUAL','comparator':{'type':"
         "'BinaryComparator','value':'b24='},'ifMissing':'maybe'}",
         "ifMissing must be true or false"},
        {"{'type':'SingleColumnValueFilter','family':'Y2Y=','op':'EQUAL','comparator':{'type':"
         "'BinaryComparator','value':'b24='},'latestVersion':1}",
         "latestVersion must be true or false"},
        {"{'type':'FilterList','filters':[]}", "FilterList needs an \"op\""},
        {"{'type':'FilterList','op':'AND','filters':[]}", "FilterList needs an \"op\""},
        {"{'type':'FilterList','op':'MUST_PASS_ALL'}", "FilterList needs a \"filters\" array"},
        {"{'type':'FilterList','op':'MUST_PASS_ALL','filters':{}}", "needs a \"filters\" array"},
        {"{'type':'FilterList','op':'MUST_PASS_ONE','filters':[5]}", "a filter is a JSON object"},
        {"{'type':'MultipleColumnPrefixFilter'}", "needs a \"prefixes\" array"},
        {"{'type':'MultipleColumnPrefixFilter','prefixes':['c3Q=',5]}",
         "prefix 1 is not a base64 string"},
        {"{'type':'ColumnRangeFilter','minColumn':'c3Q=','minColumnInclusive':'maybe'}",
         "minColumnInclusive must be true or false"},
        {"{'type':'ColumnRangeFilter','maxColumn':'!'}", "\"maxColumn\" is not valid base64"},
        {"{'type':'MultiRowRangeFilter','ranges':[{'startRow':'YQ==','stopRowInclusive':2}]}",
         "stopRowInclusive must be true or false"},
    };
    for (size_t i = 0; i < N(bad); i++)
        expect_error(bad[i].json, ST_INVALID_ARGUMENT, bad[i].frag);
}

static void test_nesting_limit(void **state)
{
    /* 40 nested lists around a PrefixFilter: deeper than JSON's limit of 64 levels, which
     * comes before the converter's own limit of 32 lists */
    char json[4096];
    size_t n = 0;
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(json + n, sizeof(json) - n,
                              "{'type':'FilterList','op':'MUST_PASS_ALL','filters':[");
    n += (size_t)snprintf(json + n, sizeof(json) - n, "{'type':'PrefixFilter','value':'YQ=='}");
    for (int i = 0; i < 40; i++)
        n += (size_t)snprintf(json + n, sizeof(json) - n, "]}");
    assert_true(n < sizeof(json));
    expect_error(json, ST_INVALID_ARGUMENT, "nesting deeper than");
    /* thirty levels are fine and still parse */
    n = 0;
    for (int i = 0; i < 30; i++)
        n += (size_t)snprintf(json + n, sizeof(json) - n,
                              "{'type':'FilterList','op':'MUST_PASS_ONE','filters':[");
    n += (size_t)snprintf(json + n, sizeof(json) - n, "{'type':'PrefixFilter','value':'YQ=='}");
    for (int i = 0; i < 30; i++)
        n += (size_t)snprintf(json + n, sizeof(json) - n, "]}");
    char *text = convert(json, false);
    assert_string_equal(drive(text), "a1/cf:name=ann,a1/cf:st=on");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_filters_and_comparators),
        cmocka_unit_test(test_every_compare_op),
        cmocka_unit_test(test_prefix_and_column_prefix),
        cmocka_unit_test(test_single_column_value_filter),
        cmocka_unit_test(test_page_first_key_key_only_timestamps),
        cmocka_unit_test(test_column_range_filter),
        cmocka_unit_test(test_multiple_column_prefix_filter),
        cmocka_unit_test(test_multi_row_range_filter),
        cmocka_unit_test(test_inclusive_stop_forward_and_reversed),
        cmocka_unit_test(test_filter_lists),
        cmocka_unit_test(test_filter_lists_passing_everything),
        cmocka_unit_test(test_quotes_doubled_zero_refused),
        cmocka_unit_test(test_unsupported_filters_and_comparators),
        cmocka_unit_test(test_more_filters),
        cmocka_unit_test(test_malformed_filters_refused),
        cmocka_unit_test(test_nesting_limit),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
