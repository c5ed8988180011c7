/*
 * test_filter.c - comparators, every filter through the scanner protocol
 * (tests/support/filter_drive.c plays the scanner), and FilterList AND/OR including
 * nesting, PageFilter inside lists, short-circuiting, skip memory and transforms.
 * A scripted "probe" filter (built on filter_internal.h) records what a list passes it.
 * Thread-safety: single-threaded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "regionserver/storage/filter.h"
#include "regionserver/storage/filter_internal.h"
#include "tests/support/filter_drive.h"
#include "tests/support/testutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define B(s) (const uint8_t *)(s), strlen(s)

static char out[8192];

static const char *scan(filter *f, const tcell *cells, size_t n)
{
    filter_drive_scan(f, cells, n, out, sizeof(out));
    return out;
}

/* ---- comparators ---- */

static const compare_op ops[] = {CMP_LESS,      CMP_LESS_OR_EQUAL,    CMP_EQUAL,
                                 CMP_NOT_EQUAL, CMP_GREATER_OR_EQUAL, CMP_GREATER};
static const char *op_names[] = {"<", "<=", "=", "!=", ">=", ">"};

/* expect[i] is the answer for ops[i], written as a string of six 0/1. */
typedef struct cmp_case {
    const char *data;
    size_t len; /* 0: strlen(data) */
    const char *expect;
} cmp_case;

static const char LESS[] = "110100", EQUAL[] = "011010", GREATER[] = "000111";
static const char FOUND[] = "001000", NOT_FOUND[] = "000100";

static void check_comparator(comparator_type type, const char *value, const cmp_case *cases,
                             size_t n)
{
    comparator *c = comparator_new(type, B(value));
    assert_non_null(c);
    for (size_t i = 0; i < n; i++) {
        size_t len = cases[i].len ? cases[i].len : strlen(cases[i].data);
        for (size_t k = 0; k < N(ops); k++) {
            bool got = comparator_matches(c, ops[k], (const uint8_t *)cases[i].data, len);
            bool want = cases[i].expect[k] == '1';
            if (got != want)
                fail_msg("comparator %d '%s': '%s' %s value gave %d, want %d", (int)type, value,
                         cases[i].data, op_names[k], got, want);
        }
        assert_false(comparator_matches(c, CMP_NO_OP, (const uint8_t *)cases[i].data, len));
    }
    comparator_free(c);
}

static void test_comparator_binary_every_op(void **state)
{
    static const cmp_case m[] = {
        {"a", 0, LESS},       {"", 0, LESS},      {"m", 0, EQUAL},
        {"z", 0, GREATER},    {"ma", 0, GREATER}, /* value is a prefix of the data: data sorts after
                                                   */
        {"\xff", 0, GREATER},                     /* unsigned bytes */
        {"M", 0, LESS},
    };
    check_comparator(COMPARATOR_BINARY, "m", m, N(m));
    static const cmp_case mn[] = {{"m", 0, LESS}, {"mn", 0, EQUAL}, {"mo", 0, GREATER}};
    check_comparator(COMPARATOR_BINARY, "mn", mn, N(mn));
}

static void test_comparator_binary_prefix_every_op(void **state)
{
    static const cmp_case ab[] = {
        {"abz", 0, EQUAL}, {"ab", 0, EQUAL},  {"aa", 0, LESS},    {"a", 0, LESS},
        {"", 0, LESS},     {"b", 0, GREATER}, {"ac", 0, GREATER}, {"ab\0", 3, EQUAL},
    };
    check_comparator(COMPARATOR_BINARY_PREFIX, "ab", ab, N(ab));
}

static void test_comparator_substring_case_insensitive_eq_ne_only(void **state)
{
    static const cmp_case bc[] = {
        {"xxBCyy", 0, FOUND},  {"abc", 0, FOUND},  {"bC", 0, FOUND},
        {"abd", 0, NOT_FOUND}, {"", 0, NOT_FOUND}, {"b", 0, NOT_FOUND},
    };
    check_comparator(COMPARATOR_SUBSTRING, "Bc", bc, N(bc));
    static const cmp_case empty[] = {{"", 0, FOUND}, {"x", 0, FOUND}};
    check_comparator(COMPARATOR_SUBSTRING, "", empty, N(empty));
    /* case folding is ASCII only: other bytes compare exactly */
    static const cmp_case high[] = {{"x\xc4y", 0, FOUND}, {"\xe4", 0, NOT_FOUND}};
    check_comparator(COMPARATOR_SUBSTRING, "\xc4", high, N(high));
}

static void test_comparator_regex_found_anywhere_eq_ne_only(void **state)
{
    static const cmp_case re[] = {
        {"abbc", 0, FOUND},  {"bc", 0, FOUND},       {"bcx", 0, NOT_FOUND},
        {"c", 0, NOT_FOUND}, {"ABBC", 0, NOT_FOUND}, {"", 0, NOT_FOUND},
    };
    check_comparator(COMPARATOR_REGEX, "b+c$", re, N(re));
    static const cmp_case anchored[] = {{"ab", 0, FOUND}, {"ba", 0, NOT_FOUND}};
    check_comparator(COMPARATOR_REGEX, "^a", anchored, N(anchored));
    static const cmp_case alt[] = {
        {"xx-cat-yy", 0, FOUND}, {"dog", 0, FOUND}, {"cow", 0, NOT_FOUND}};
    check_comparator(COMPARATOR_REGEX, "(cat|dog)", alt, N(alt));
#ifdef REG_STARTEND
    static const cmp_case nul[] = {{"a\0b", 3, FOUND}, {"a\0c", 3, NOT_FOUND}};
    check_comparator(COMPARATOR_REGEX, "b", nul, N(nul));
#endif
}

/* Expects pattern to be refused before regcomp() with a message holding `why`. */
static void expect_regex_refused(const char *pattern, const char *why)
{
    comparator *c = (comparator *)&c;
    st_clear();
    assert_int_equal(comparator_create(COMPARATOR_REGEX, B(pattern), &c), ST_INVALID_ARGUMENT);
    assert_null(c);
    if (strstr(st_errmsg(), why) == NULL)
        fail_msg("pattern '%.60s': message \"%s\" lacks \"%s\"", pattern, st_errmsg(), why);
}

/* "((...(a)...))" with depth groups, malloc'ed. */
static char *nested_groups(size_t depth)
{
    char *p = malloc(2 * depth + 2);
    assert_non_null(p);
    memset(p, '(', depth);
    p[depth] = 'a';
    memset(p + depth + 1, ')', depth);
    p[2 * depth + 1] = '\0';
    return p;
}

/* Found by fuzz_filter_parse: stacked repetitions ("x" and 31 '+') made glibc's regcomp
 * copy the subexpression 2^31 times and run the process out of memory; stacked ones
 * around a '*' ("x+++*+++++++++"), and a repeated group of empty alternatives, kept it
 * computing closures for seconds to minutes; tens of thousands of nested groups overflow
 * its recursive parser's stack. Patterns of more than 2048 nodes, nested deeper than 64
 * groups, or repeating a part that can match the empty string are refused. */
static void test_comparator_regex_too_complex_refused(void **state)
{
    char p[64];
    snprintf(p, sizeof(p), "x%s", "+++++++++++++++++++++++++++++++");
    expect_regex_refused(p, "too complex");
    expect_regex_refused("(true)+++++++++++++++++++++++++++++++ru1c", "too complex");
    expect_regex_refused("((a{100}){100}){100}", "too complex");
    expect_regex_refused("a{2}{3}{4}{5}{6}{7}{8}", "too complex");
    expect_regex_refused("(a|b|c){1,20000}", "too complex");
    expect_regex_refused("a{2048}", "needs more than 2048 nodes");
    static const char *const empty_repeated[] = {
        "x+++*+++++++++",
        "(||||||||||||||||)+++++(||||||||||||||||)+++++",
        "(tpue||9|||2||)+++g",
        "(x*){1000}",
        "(a|)+",
        "(x*)*",
        ".*?",
        "^*",
        "(a*b*){2}",
        "x{0,3}+",
        "(\\b)+",
        "x{,3}+", /* glibc reads {,3} as {0,3} */
        "(|0|||||||)||)+++|1|)||)||)+++|1|){,3}++{,3}+++++", /* ran 110 s before */
    };
    for (size_t i = 0; i < N(empty_repeated); i++)
        expect_regex_refused(empty_repeated[i], "repeats a part that can match the empty string");
    expect_regex_refused("x+++*+++++++++", "(at byte 5 of");
    char *deep = nested_groups(20000);
    expect_regex_refused(deep, "nests groups deeper than 64 (at byte 64)");
    free(deep);
    deep = nested_groups(65);
    expect_regex_refused(deep, "deeper than 64");
    free(deep);
    deep = nested_groups(64); /* 64 levels are fine */
    comparator *c = comparator_new(COMPARATOR_REGEX, B(deep));
    assert_non_null(c);
    assert_true(comparator_matches(c, CMP_EQUAL, B("xay")));
    comparator_free(c);
    free(deep);
    /* Ordinary patterns, and the largest ones allowed, still compile. */
    char alternatives[1600] = "^(user0";
    for (int i = 1; i < 150; i++)
        snprintf(alternatives + strlen(alternatives), sizeof(alternatives) - strlen(alternatives),
                 "|user%d", i);
    strcat(alternatives, ")$");
    const char *const fine[] = {
        "^user[0-9]{1,10}$",
        "[a-z]{1,255}",
        "^([0-9]{1,3}\\.){3}[0-9]{1,3}$",
        "(a{40}){40}",
        "a{2047}",
        "x++++++++++",
        "[]{}(+*]{2}",
        "\\(+{3}",
        "a{,5}",
        "(cat|dog)+$",
        "(ab*)+c?",
        "(a|b|)c",
        "x*y*z?",
        alternatives,
    };
    for (size_t i = 0; i < N(fine); i++) {
        st_clear();
        c = comparator_new(COMPARATOR_REGEX, B(fine[i]));
        if (c == NULL)
            fail_msg("pattern '%.60s' refused: %s", fine[i], st_errmsg());
        comparator_free(c);
    }
}

static void test_comparator_invalid_regex_is_null_with_message(void **state)
{
    st_clear();
    assert_null(comparator_new(COMPARATOR_REGEX, B("a(b")));
    assert_non_null(strstr(st_errmsg(), "a(b"));
    comparator *c = NULL;
    assert_int_equal(comparator_create(COMPARATOR_REGEX, B("[z-a]"), &c), ST_INVALID_ARGUMENT);
    assert_null(c);
    assert_int_equal(comparator_create(COMPARATOR_REGEX, (const uint8_t *)"a\0b", 3, &c),
                     ST_INVALID_ARGUMENT);
    assert_int_equal(comparator_create((comparator_type)9, B("x"), &c), ST_INVALID_ARGUMENT);
    comparator *empty = comparator_new(COMPARATOR_BINARY, NULL, 0);
    assert_non_null(empty);
    assert_true(comparator_matches(empty, CMP_EQUAL, NULL, 0));
    assert_true(comparator_matches(empty, CMP_GREATER, B("a")));
    comparator_free(empty);
}

static void test_constructor_with_null_comparator_is_null(void **state)
{
    assert_null(filter_value_new(CMP_EQUAL, NULL));
    assert_null(filter_row_new(CMP_EQUAL, comparator_new(COMPARATOR_REGEX, B("("))));
    assert_null(filter_single_column_value_new(B("cf"), B("q"), CMP_EQUAL, NULL, false, true));
    /* a bad operator frees the comparator it was given (ASan checks the leak) */
    assert_null(filter_value_new((compare_op)42, comparator_new(COMPARATOR_BINARY, B("x"))));
    filter_free(NULL);
}

/* ---- single filters through the protocol ---- */

static const tcell people[] = {
    {"a1", "cf", "name", 1, "ann"}, {"a1", "cf", "zip", 1, "111"},  {"b1", "cf", "name", 1, "bob"},
    {"b1", "cf", "zip", 1, "222"},  {"b2", "cf", "name", 1, "bea"}, {"c1", "cf", "name", 1, "cid"},
    {"c1", "cf", "zip", 1, "333"},
};

static void test_row_filter_compares_row_key(void **state)
{
    filter *f = filter_row_new(CMP_GREATER, comparator_new(COMPARATOR_BINARY, B("b1")));
    assert_string_equal(scan(f, people, N(people)), "b2/cf:name=bea c1/cf:name=cid,c1/cf:zip=333");
    filter_free(f);
    f = filter_row_new(CMP_LESS_OR_EQUAL, comparator_new(COMPARATOR_BINARY, B("b1")));
    assert_string_equal(scan(f, people, N(people)),
                        "a1/cf:name=ann,a1/cf:zip=111 b1/cf:name=bob,b1/cf:zip=222");
    filter_free(f);
    f = filter_row_new(CMP_NOT_EQUAL, comparator_new(COMPARATOR_REGEX, B("^b")));
    assert_string_equal(scan(f, people, N(people)),
                        "a1/cf:name=ann,a1/cf:zip=111 c1/cf:name=cid,c1/cf:zip=333");
    filter_free(f);
}

static void test_row_filter_no_op_drops_everything(void **state)
{
    filter *f = filter_row_new(CMP_NO_OP, comparator_new(COMPARATOR_BINARY, B("b1")));
    assert_string_equal(scan(f, people, N(people)), "");
    filter_free(f);
}

static void test_prefix_filter_keeps_prefixed_rows_and_ends_scan(void **state)
{
    filter *f = filter_prefix_new(B("b"));
    int rows = filter_drive_scan(f, people, N(people), out, sizeof(out));
    assert_string_equal(out, "b1/cf:name=bob,b1/cf:zip=222 b2/cf:name=bea");
    assert_int_equal(rows, 4); /* a1 b1 b2 c1; c1 is past the prefix */
    assert_true(filter_all_remaining(f));
    filter_free(f);

    /* more rows after c1 are never looked at */
    static const tcell more[] = {{"a", "cf", "q", 1, "1"},
                                 {"b", "cf", "q", 1, "2"},
                                 {"c", "cf", "q", 1, "3"},
                                 {"d", "cf", "q", 1, "4"},
                                 {"e", "cf", "q", 1, "5"}};
    f = filter_prefix_new(B("b"));
    assert_int_equal(filter_drive_scan(f, more, N(more), out, sizeof(out)), 3);
    assert_string_equal(out, "b/cf:q=2");
    filter_free(f);
}

static void test_prefix_filter_reversed_scan_does_not_end_early(void **state)
{
    static const tcell rev[] = {{"c1", "cf", "q", 1, "3"},
                                {"b2", "cf", "q", 1, "2"},
                                {"b1", "cf", "q", 1, "1"},
                                {"a1", "cf", "q", 1, "0"},
                                {"a0", "cf", "q", 1, "9"}};
    filter *f = filter_prefix_new(B("b"));
    int rows = filter_drive_scan(f, rev, N(rev), out, sizeof(out));
    assert_string_equal(out, "b2/cf:q=2 b1/cf:q=1");
    assert_int_equal(rows, 4); /* ends after a1, the first row before the prefix */
    assert_true(filter_all_remaining(f));
    filter_free(f);
}

static void test_prefix_filter_short_rows_and_empty_prefix(void **state)
{
    static const tcell rows[] = {{"a", "cf", "q", 1, "1"},
                                 {"ab", "cf", "q", 1, "2"},
                                 {"abc", "cf", "q", 1, "3"},
                                 {"b", "cf", "q", 1, "4"}};
    filter *f = filter_prefix_new(B("ab"));
    assert_string_equal(scan(f, rows, N(rows)), "ab/cf:q=2 abc/cf:q=3");
    filter_free(f);
    f = filter_prefix_new(B(""));
    assert_string_equal(scan(f, rows, N(rows)), "a/cf:q=1 ab/cf:q=2 abc/cf:q=3 b/cf:q=4");
    assert_false(filter_all_remaining(f));
    filter_free(f);
}

static const tcell cols[] = {
    {"r1", "cf", "a", 1, "1"},   {"r1", "cf", "ab", 2, "2"}, {"r1", "cf", "ab", 1, "2old"},
    {"r1", "cf", "abc", 1, "3"}, {"r1", "cf", "b", 1, "4"},  {"r1", "cf2", "ab", 1, "5"},
    {"r2", "cf", "x", 1, "6"},
};

static void test_column_prefix_filter_on_qualifiers_across_families(void **state)
{
    filter *f = filter_column_prefix_new(B("ab"));
    assert_string_equal(scan(f, cols, N(cols)), "r1/cf:ab=2,r1/cf:ab=2old,r1/cf:abc=3,r1/cf2:ab=5");
    cell_t c = filter_drive_cell(&cols[4]); /* cf:b sorts after the prefix */
    filter_reset(f);
    assert_int_equal(filter_cell(f, &c), FILTER_NEXT_COL); /* not NEXT_ROW: cf2 follows */
    filter_free(f);
}

static void test_qualifier_filter_ops(void **state)
{
    filter *f =
        filter_qualifier_new(CMP_GREATER_OR_EQUAL, comparator_new(COMPARATOR_BINARY, B("abc")));
    assert_string_equal(scan(f, cols, N(cols)), "r1/cf:abc=3,r1/cf:b=4 r2/cf:x=6");
    filter_free(f);
    f = filter_qualifier_new(CMP_EQUAL, comparator_new(COMPARATOR_BINARY_PREFIX, B("a")));
    assert_string_equal(scan(f, cols, N(cols)),
                        "r1/cf:a=1,r1/cf:ab=2,r1/cf:ab=2old,r1/cf:abc=3,r1/cf2:ab=5");
    filter_free(f);
}

static void test_family_filter_keeps_later_families(void **state)
{
    filter *f = filter_family_new(CMP_EQUAL, comparator_new(COMPARATOR_BINARY, B("cf2")));
    assert_string_equal(scan(f, cols, N(cols)), "r1/cf2:ab=5");
    filter_free(f);
    f = filter_family_new(CMP_LESS, comparator_new(COMPARATOR_BINARY, B("cf2")));
    assert_string_equal(scan(f, cols, N(cols)),
                        "r1/cf:a=1,r1/cf:ab=2,r1/cf:ab=2old,r1/cf:abc=3,r1/cf:b=4 r2/cf:x=6");
    filter_free(f);
}

static void test_value_filter_ops_and_semantics(void **state)
{
    static const tcell vals[] = {{"r", "cf", "a", 1, "k"},
                                 {"r", "cf", "b", 1, "m"},
                                 {"r", "cf", "c", 1, "n"},
                                 {"r", "cf", "d", 1, "mm"}};
    static const char *want[] = {"r/cf:a=k",
                                 "r/cf:a=k,r/cf:b=m",
                                 "r/cf:b=m",
                                 "r/cf:a=k,r/cf:c=n,r/cf:d=mm",
                                 "r/cf:b=m,r/cf:c=n,r/cf:d=mm",
                                 "r/cf:c=n,r/cf:d=mm"};
    for (size_t k = 0; k < N(ops); k++) {
        filter *f = filter_value_new(ops[k], comparator_new(COMPARATOR_BINARY, B("m")));
        if (strcmp(scan(f, vals, N(vals)), want[k]) != 0)
            fail_msg("ValueFilter(%s, binary:m) kept '%s', want '%s'", op_names[k], out, want[k]);
        filter_free(f);
    }
    filter *f = filter_value_new(CMP_EQUAL, comparator_new(COMPARATOR_SUBSTRING, B("M")));
    assert_string_equal(scan(f, vals, N(vals)), "r/cf:b=m,r/cf:d=mm");
    filter_free(f);
}

static const tcell scv_rows[] = {
    {"r1", "cf", "a", 1, "x"}, {"r1", "cf", "st", 5, "on"},  {"r1", "cf", "st", 3, "off"},
    {"r2", "cf", "a", 1, "y"}, {"r2", "cf", "st", 5, "off"}, {"r2", "cf", "st", 3, "on"},
    {"r3", "cf", "a", 1, "z"}, {"r4", "cf2", "st", 1, "on"},
};

static filter *scv(const char *val, bool if_missing, bool latest)
{
    return filter_single_column_value_new(
        B("cf"), B("st"), CMP_EQUAL, comparator_new(COMPARATOR_BINARY, B(val)), if_missing, latest);
}

static void test_scv_filter_present_matching_rows_keep_all_cells(void **state)
{
    filter *f = scv("on", false, true);
    /* r1 matches on the latest version; r2's latest is off; r3 lacks the column; r4 has
     * st only in another family */
    assert_string_equal(scan(f, scv_rows, N(scv_rows)),
                        "r1/cf:a=x,r1/cf:st=on,r1/cf:st=off r3/cf:a=z r4/cf2:st=on");
    filter_free(f);
}

static void test_scv_filter_if_missing_drops_rows_without_column(void **state)
{
    filter *f = scv("on", true, true);
    assert_string_equal(scan(f, scv_rows, N(scv_rows)), "r1/cf:a=x,r1/cf:st=on,r1/cf:st=off");
    filter_free(f);
}

static void test_scv_filter_all_versions_when_not_latest_only(void **state)
{
    filter *f = scv("on", true, false);
    assert_string_equal(scan(f, scv_rows, N(scv_rows)),
                        "r1/cf:a=x,r1/cf:st=on,r1/cf:st=off r2/cf:a=y,r2/cf:st=off,r2/cf:st=on");
    filter_free(f);
}

static void test_scv_filter_decides_in_filter_row(void **state)
{
    filter *f = scv("on", false, true);
    cell_t c = filter_drive_cell(&scv_rows[3]);
    filter_reset(f);
    assert_false(filter_row_key(f, B("r2")));
    assert_int_equal(filter_cell(f, &c), FILTER_INCLUDE);
    c = filter_drive_cell(&scv_rows[4]);
    assert_int_equal(filter_cell(f, &c), FILTER_NEXT_ROW);
    assert_true(filter_row(f, &c, 1));
    filter_reset(f); /* a new row forgets */
    c = filter_drive_cell(&scv_rows[6]);
    assert_int_equal(filter_cell(f, &c), FILTER_INCLUDE);
    assert_false(filter_row(f, &c, 1));
    filter_free(f);
}

static const tcell five[] = {{"r1", "cf", "q", 1, "a"},
                             {"r2", "cf", "q", 1, "b"},
                             {"r3", "cf", "q", 1, "a"},
                             {"r4", "cf", "q", 1, "b"},
                             {"r5", "cf", "q", 1, "a"}};

static void test_page_filter_limits_rows_and_ends_scan(void **state)
{
    filter *f = filter_page_new(2);
    assert_false(filter_all_remaining(f));
    int rows = filter_drive_scan(f, five, N(five), out, sizeof(out));
    assert_string_equal(out, "r1/cf:q=a r2/cf:q=b");
    assert_int_equal(rows, 2);
    assert_true(filter_all_remaining(f));
    filter_free(f);
    f = filter_page_new(0);
    assert_true(filter_all_remaining(f));
    assert_string_equal(scan(f, five, N(five)), "");
    filter_free(f);
}

static void test_page_filter_does_not_count_empty_rows(void **state)
{
    filter *f = filter_page_new(1);
    cell_t c = filter_drive_cell(&five[0]);
    assert_true(filter_row(f, &c, 0)); /* an empty row is dropped, not counted */
    assert_false(filter_all_remaining(f));
    assert_false(filter_row(f, &c, 1));
    assert_true(filter_all_remaining(f));
    assert_true(filter_row_key(f, B("r9")));
    assert_true(filter_row(f, &c, 1)); /* a row past the page is dropped */
    filter_free(f);
}

static void test_first_key_only_filter_first_cell_per_row(void **state)
{
    filter *f = filter_first_key_only_new();
    assert_string_equal(scan(f, cols, N(cols)), "r1/cf:a=1 r2/cf:x=6");
    filter_free(f);
}

static void test_key_only_filter_strips_value(void **state)
{
    filter *f = filter_key_only_new(false);
    assert_string_equal(scan(f, people, 2), "a1/cf:name=,a1/cf:zip=");
    filter_free(f);

    char big[301];
    memset(big, 'v', 300);
    big[300] = '\0';
    tcell rows[] = {{"r", "cf", "a", 1, big}, {"r", "cf", "b", 1, ""}};
    f = filter_key_only_new(true);
    assert_string_equal(scan(f, rows, N(rows)),
                        "r/cf:a=\\x00\\x00\\x01,,r/cf:b=\\x00\\x00\\x00\\x00");
    cell_t c = filter_drive_cell(&rows[0]);
    filter_transform_cell(f, &c);
    assert_int_equal(c.value_len, 4);
    assert_memory_equal(c.value, "\x00\x00\x01\x2c", 4);
    assert_ptr_not_equal(c.value, (const uint8_t *)big); /* filter-owned bytes */
    filter_free(f);
}

static void test_timestamps_filter_listed_versions_only(void **state)
{
    static const tcell v[] = {{"r", "cf", "a", 9, "v9"}, {"r", "cf", "a", 7, "v7"},
                              {"r", "cf", "a", 5, "v5"}, {"r", "cf", "a", 3, "v3"},
                              {"r", "cf", "a", 2, "v2"}, {"r", "cf", "b", 7, "b7"}};
    static const int64_t ts[] = {7, 3, 7};
    filter *f = filter_timestamps_new(ts, N(ts));
    assert_string_equal(scan(f, v, N(v)), "r/cf:a=v7,r/cf:a=v3,r/cf:b=b7");
    cell_t c = filter_drive_cell(&v[0]);
    assert_int_equal(filter_cell(f, &c), FILTER_SKIP);
    c = filter_drive_cell(&v[4]);
    assert_int_equal(filter_cell(f, &c), FILTER_NEXT_COL); /* older than every listed ts */
    filter_free(f);
    f = filter_timestamps_new(NULL, 0);
    assert_string_equal(scan(f, v, N(v)), "");
    filter_free(f);
}

/* ---- the probe: a scripted filter that records what it is asked ---- */

typedef struct probe {
    filter base;
    char codes[26]; /* by qualifier letter: I S C R; default I */
    bool row_key_result;
    bool row_result;
    bool all_remaining;
    char tag;
    char seen[256]; /* "qual@ts " per filter_cell */
    int rows;       /* filter_row calls */
    uint8_t value[64];
} probe;

static filter_return probe_cell(filter *f, const cell_t *c)
{
    probe *p = (probe *)f;
    size_t used = strlen(p->seen);
    snprintf(p->seen + used, sizeof(p->seen) - used, "%.*s@%lld ", (int)c->qualifier_len,
             (const char *)c->qualifier, (long long)c->ts);
    char code = p->codes[c->qualifier[0] - 'a'];
    return code == 'S'   ? FILTER_SKIP
           : code == 'C' ? FILTER_NEXT_COL
           : code == 'R' ? FILTER_NEXT_ROW
                         : FILTER_INCLUDE;
}

static void probe_transform(filter *f, cell_t *c)
{
    probe *p = (probe *)f;
    size_t n = c->value_len < sizeof(p->value) - 1 ? c->value_len : sizeof(p->value) - 1;
    memmove(p->value, c->value, n);
    p->value[n] = (uint8_t)p->tag;
    c->value = p->value;
    c->value_len = (uint32_t)n + 1;
}

static bool probe_row_key(filter *f, const uint8_t *row, size_t len)
{
    return ((probe *)f)->row_key_result;
}

static bool probe_row(filter *f, const cell_t *cells, size_t n)
{
    ((probe *)f)->rows++;
    return ((probe *)f)->row_result;
}

static bool probe_all_remaining(filter *f)
{
    return ((probe *)f)->all_remaining;
}

static const filter_ops probe_ops = {
    .name = "Probe",
    .row_key = probe_row_key,
    .cell = probe_cell,
    .transform = probe_transform,
    .row = probe_row,
    .all_remaining = probe_all_remaining,
};

static probe *probe_new(char tag, const char *codes)
{
    probe *p = filter_alloc(sizeof(probe), &probe_ops);
    assert_non_null(p);
    memset(p->codes, 'I', sizeof(p->codes));
    for (size_t i = 0; codes[i]; i++)
        p->codes[i] = codes[i];
    p->tag = tag;
    return p;
}

static filter *list_of(filter_list_op op, filter *a, filter *b, filter *c)
{
    filter *l = filter_list_new(op);
    assert_non_null(l);
    filter *kids[] = {a, b, c};
    for (size_t i = 0; i < 3; i++) {
        if (kids[i])
            assert_int_equal(filter_list_add(l, kids[i]), ST_OK);
    }
    return l;
}

static const tcell abc[] = {
    {"r", "cf", "a", 2, "a2"}, {"r", "cf", "a", 1, "a1"}, {"r", "cf", "b", 2, "b2"},
    {"r", "cf", "b", 1, "b1"}, {"r", "cf", "c", 1, "c1"}, {"r", "cf", "d", 1, "d1"},
};

/* ---- MUST_PASS_ALL ---- */

static void test_list_and_every_child_must_include(void **state)
{
    filter *l =
        list_of(FILTER_MUST_PASS_ALL, filter_prefix_new(B("b")),
                filter_value_new(CMP_GREATER, comparator_new(COMPARATOR_BINARY, B("bc"))), NULL);
    /* b1's zip "222" sorts below "bc" */
    assert_string_equal(scan(l, people, N(people)), "b1/cf:name=bob b2/cf:name=bea");
    filter_free(l);
    l = list_of(FILTER_MUST_PASS_ALL, filter_prefix_new(B("b")),
                filter_value_new(CMP_EQUAL, comparator_new(COMPARATOR_REGEX, B("^b.b$"))), NULL);
    assert_string_equal(scan(l, people, N(people)), "b1/cf:name=bob");
    filter_free(l);
}

static void test_list_and_short_circuits_after_first_refusal(void **state)
{
    /* a SKIPs a, b NEXT_COLs b: a later child never sees refused cells (HBASE-20565) */
    probe *first = probe_new('1', "SC");
    probe *second = probe_new('2', "RR");
    filter *l = list_of(FILTER_MUST_PASS_ALL, &first->base, &second->base, NULL);
    cell_t c = filter_drive_cell(&abc[0]);
    filter_reset(l);
    assert_false(filter_row_key(l, B("r")));
    assert_int_equal(filter_cell(l, &c), FILTER_SKIP);
    c = filter_drive_cell(&abc[2]);
    assert_int_equal(filter_cell(l, &c), FILTER_NEXT_COL);
    assert_string_equal(second->seen, "");
    c = filter_drive_cell(&abc[4]);
    assert_int_equal(filter_cell(l, &c), FILTER_INCLUDE);
    filter_transform_cell(l, &c);
    assert_memory_equal(c.value, "c112", 4); /* both transforms, in order */
    assert_string_equal(second->seen, "c@1 ");
    filter_free(l);
}

static void test_list_and_stateful_child_and_row_key(void **state)
{
    probe *p = probe_new('p', "");
    filter *l = list_of(FILTER_MUST_PASS_ALL, &p->base, filter_first_key_only_new(), NULL);
    assert_string_equal(scan(l, abc, N(abc)), "r/cf:a=a2p");
    assert_string_equal(p->seen, "a@2 a@1 "); /* then FirstKeyOnly's NEXT_ROW ends the row */
    filter_free(l);

    /* a rejected row key: later children are still asked (each sees every row), so the
     * PrefixFilter notices it has passed its prefix and ends the scan */
    probe *q = probe_new('q', "");
    q->row_key_result = true;
    filter *prefix = filter_prefix_new(B("b"));
    l = list_of(FILTER_MUST_PASS_ALL, &q->base, prefix, NULL);
    assert_int_equal(filter_drive_scan(l, people, N(people), out, sizeof(out)), 4);
    assert_string_equal(out, "");
    assert_true(filter_all_remaining(prefix));
    assert_true(filter_all_remaining(l));
    filter_free(l);
}

static void test_list_and_all_remaining_any_child(void **state)
{
    probe *p = probe_new('p', "");
    filter *l = list_of(FILTER_MUST_PASS_ALL, &p->base, filter_page_new(5), NULL);
    assert_false(filter_all_remaining(l));
    p->all_remaining = true;
    assert_true(filter_all_remaining(l));
    cell_t c = filter_drive_cell(&abc[0]);
    assert_int_equal(filter_cell(l, &c), FILTER_NEXT_ROW);
    filter_free(l);
}

static void test_list_and_row_drops_on_first_child_and_short_circuits(void **state)
{
    probe *a = probe_new('a', "");
    probe *b = probe_new('b', "");
    a->row_result = true;
    filter *l = list_of(FILTER_MUST_PASS_ALL, &a->base, &b->base, NULL);
    cell_t c = filter_drive_cell(&abc[0]);
    assert_true(filter_row(l, &c, 1));
    assert_int_equal(b->rows, 0);
    a->row_result = false;
    assert_false(filter_row(l, &c, 1));
    assert_int_equal(b->rows, 1);
    filter_free(l);
}

static void test_list_and_page_counts_only_rows_passing_earlier_children(void **state)
{
    /* rows with value b are refused by the ValueFilter before the page counts them */
    filter *l = list_of(FILTER_MUST_PASS_ALL,
                        filter_value_new(CMP_EQUAL, comparator_new(COMPARATOR_BINARY, B("a"))),
                        filter_page_new(2), NULL);
    int rows = filter_drive_scan(l, five, N(five), out, sizeof(out));
    assert_string_equal(out, "r1/cf:q=a r3/cf:q=a");
    assert_int_equal(rows, 3);
    assert_true(filter_all_remaining(l));
    filter_free(l);

    static const tcell u[] = {{"u1", "cf", "q", 1, "1"},
                              {"v1", "cf", "q", 1, "2"},
                              {"u2", "cf", "q", 1, "3"},
                              {"u3", "cf", "q", 1, "4"}};
    l = list_of(FILTER_MUST_PASS_ALL, filter_page_new(2),
                filter_row_new(CMP_EQUAL, comparator_new(COMPARATOR_BINARY_PREFIX, B("u"))), NULL);
    assert_string_equal(scan(l, u, N(u)), "u1/cf:q=1 u2/cf:q=3");
    filter_free(l);
}

/* ---- MUST_PASS_ONE ---- */

static void test_list_or_union_of_children(void **state)
{
    filter *l =
        list_of(FILTER_MUST_PASS_ONE, filter_prefix_new(B("a")), filter_prefix_new(B("c")), NULL);
    assert_string_equal(scan(l, people, N(people)),
                        "a1/cf:name=ann,a1/cf:zip=111 c1/cf:name=cid,c1/cf:zip=333");
    assert_false(filter_all_remaining(l)); /* c1 was the last row: 'c' not yet passed */
    filter_free(l);

    l = list_of(FILTER_MUST_PASS_ONE,
                filter_value_new(CMP_EQUAL, comparator_new(COMPARATOR_BINARY, B("bob"))),
                filter_qualifier_new(CMP_EQUAL, comparator_new(COMPARATOR_BINARY, B("zip"))), NULL);
    assert_string_equal(scan(l, people, N(people)),
                        "a1/cf:zip=111 b1/cf:name=bob,b1/cf:zip=222 c1/cf:zip=333");
    assert_false(filter_all_remaining(l));
    filter_free(l);
}

static void test_list_or_least_restrictive_and_skip_memory(void **state)
{
    /* x: NEXT_COL on a, SKIP on b, NEXT_ROW on c; y: SKIP on a, NEXT_COL on b, INCLUDE d */
    probe *x = probe_new('x', "CSR");
    probe *y = probe_new('y', "SCI");
    filter *l = list_of(FILTER_MUST_PASS_ONE, &x->base, &y->base, NULL);
    filter_reset(l);
    assert_false(filter_row_key(l, B("r")));
    filter_return want[] = {FILTER_SKIP, FILTER_SKIP,    FILTER_SKIP,
                            FILTER_SKIP, FILTER_INCLUDE, FILTER_INCLUDE};
    for (size_t i = 0; i < N(abc); i++) {
        cell_t c = filter_drive_cell(&abc[i]);
        filter_return got = filter_cell(l, &c);
        if (got != want[i])
            fail_msg("cell %zu: got %d want %d", i, got, want[i]);
    }
    /* x is not asked again about a (NEXT_COL) nor after c (NEXT_ROW) */
    assert_string_equal(x->seen, "a@2 b@2 b@1 c@1 ");
    /* y is not asked again about b after its NEXT_COL */
    assert_string_equal(y->seen, "a@2 a@1 b@2 c@1 d@1 ");
    filter_free(l);
}

static void test_list_or_all_children_done_is_next_row(void **state)
{
    probe *x = probe_new('x', "RC");
    probe *y = probe_new('y', "RC");
    filter *l = list_of(FILTER_MUST_PASS_ONE, &x->base, &y->base, NULL);
    filter_reset(l);
    cell_t c = filter_drive_cell(&abc[0]);
    assert_int_equal(filter_cell(l, &c), FILTER_NEXT_ROW);
    c = filter_drive_cell(&abc[2]);
    assert_int_equal(filter_cell(l, &c), FILTER_NEXT_ROW); /* nobody asked */
    filter_reset(l);                                       /* a new row asks everyone again */
    assert_int_equal(filter_cell(l, &c), FILTER_NEXT_COL);
    c = filter_drive_cell(&abc[3]);
    assert_int_equal(filter_cell(l, &c), FILTER_NEXT_COL); /* same column: nobody asked */
    c = filter_drive_cell(&abc[4]);
    assert_int_equal(filter_cell(l, &c), FILTER_INCLUDE);
    assert_string_equal(x->seen, "a@2 b@2 c@1 ");
    assert_string_equal(y->seen, "a@2 b@2 c@1 ");
    filter_free(l);
}

static void test_list_or_child_with_all_remaining_counts_as_rejecting(void **state)
{
    probe *done = probe_new('d', "");
    done->all_remaining = true; /* its row key would pass, but it is finished */
    probe *no = probe_new('n', "");
    no->row_key_result = true;
    filter *l = list_of(FILTER_MUST_PASS_ONE, &done->base, &no->base, NULL);
    filter_reset(l);
    assert_true(filter_row_key(l, B("r")));
    assert_false(filter_all_remaining(l));
    no->all_remaining = true;
    assert_true(filter_all_remaining(l));
    filter_free(l);
}

static void test_list_or_transform_only_children_that_included(void **state)
{
    /* OR(Qualifier = a, AND(Qualifier = b, KeyOnly)): b's value is stripped, a's kept */
    filter *inner =
        list_of(FILTER_MUST_PASS_ALL,
                filter_qualifier_new(CMP_EQUAL, comparator_new(COMPARATOR_BINARY, B("b"))),
                filter_key_only_new(false), NULL);
    filter *l = list_of(FILTER_MUST_PASS_ONE,
                        filter_qualifier_new(CMP_EQUAL, comparator_new(COMPARATOR_BINARY, B("a"))),
                        inner, NULL);
    assert_string_equal(scan(l, abc, N(abc)), "r/cf:a=a2,r/cf:a=a1,r/cf:b=,r/cf:b=");
    filter_free(l);
}

static void test_list_or_row_kept_if_any_accepting_child_keeps(void **state)
{
    probe *a = probe_new('a', "");
    probe *b = probe_new('b', "");
    probe *c = probe_new('c', "");
    a->row_key_result = true; /* rejects the key: its filter_row is never asked */
    b->row_result = true;
    filter *l = list_of(FILTER_MUST_PASS_ONE, &a->base, &b->base, &c->base);
    assert_string_equal(scan(l, abc, 1), "r/cf:a=a2bc");
    assert_string_equal(a->seen, "");
    assert_int_equal(a->rows, 0);
    assert_int_equal(b->rows, 1);
    assert_int_equal(c->rows, 1);
    c->row_result = true;
    assert_string_equal(scan(l, abc, 1), "");
    filter_free(l);
}

static void test_list_or_scv_either_column(void **state)
{
    filter *l = list_of(
        FILTER_MUST_PASS_ONE,
        filter_single_column_value_new(B("cf"), B("name"), CMP_EQUAL,
                                       comparator_new(COMPARATOR_BINARY, B("ann")), true, true),
        filter_single_column_value_new(B("cf"), B("zip"), CMP_EQUAL,
                                       comparator_new(COMPARATOR_BINARY, B("333")), true, true),
        NULL);
    assert_string_equal(scan(l, people, N(people)),
                        "a1/cf:name=ann,a1/cf:zip=111 c1/cf:name=cid,c1/cf:zip=333");
    filter_free(l);
}

static void test_list_or_page_inside(void **state)
{
    /* OR(Page(1), Prefix(r4)): r1 by the page, r4 by the prefix */
    filter *l = list_of(FILTER_MUST_PASS_ONE, filter_page_new(1), filter_prefix_new(B("r4")), NULL);
    assert_string_equal(scan(l, five, N(five)), "r1/cf:q=a r4/cf:q=b");
    assert_true(filter_all_remaining(l));
    filter_free(l);
}

/* ---- nesting and edges ---- */

static void test_list_nested_or_inside_and(void **state)
{
    filter *either =
        list_of(FILTER_MUST_PASS_ONE, filter_prefix_new(B("a")), filter_prefix_new(B("c")), NULL);
    filter *l =
        list_of(FILTER_MUST_PASS_ALL, either, filter_key_only_new(true),
                filter_qualifier_new(CMP_NOT_EQUAL, comparator_new(COMPARATOR_BINARY, B("zip"))));
    assert_string_equal(scan(l, people, N(people)),
                        "a1/cf:name=\\x00\\x00\\x00\\x03 c1/cf:name=\\x00\\x00\\x00\\x03");
    filter_free(l);
}

static void test_list_nested_and_inside_or_with_page(void **state)
{
    filter *paged =
        list_of(FILTER_MUST_PASS_ALL, filter_prefix_new(B("b")), filter_page_new(1), NULL);
    filter *l = list_of(FILTER_MUST_PASS_ONE, paged, filter_prefix_new(B("c")), NULL);
    assert_string_equal(scan(l, people, N(people)),
                        "b1/cf:name=bob,b1/cf:zip=222 c1/cf:name=cid,c1/cf:zip=333");
    filter_free(l);
}

static void test_list_empty_passes_everything(void **state)
{
    filter *l = filter_list_new(FILTER_MUST_PASS_ONE);
    assert_string_equal(scan(l, people, 3), "a1/cf:name=ann,a1/cf:zip=111 b1/cf:name=bob");
    assert_false(filter_all_remaining(l));
    filter_free(l);
    l = filter_list_new(FILTER_MUST_PASS_ALL);
    assert_string_equal(scan(l, people, 1), "a1/cf:name=ann");
    filter_free(l);
}

static void test_list_add_rejects_non_list_and_frees_child(void **state)
{
    filter *notlist = filter_page_new(1);
    assert_int_equal(filter_list_add(notlist, filter_key_only_new(false)), ST_INVALID_ARGUMENT);
    assert_int_equal(filter_list_add(notlist, NULL), ST_INVALID_ARGUMENT);
    filter_free(notlist);
    assert_null(filter_list_new((filter_list_op)7));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_comparator_binary_every_op),
        cmocka_unit_test(test_comparator_binary_prefix_every_op),
        cmocka_unit_test(test_comparator_substring_case_insensitive_eq_ne_only),
        cmocka_unit_test(test_comparator_regex_found_anywhere_eq_ne_only),
        cmocka_unit_test(test_comparator_invalid_regex_is_null_with_message),
        cmocka_unit_test(test_comparator_regex_too_complex_refused),
        cmocka_unit_test(test_constructor_with_null_comparator_is_null),
        cmocka_unit_test(test_row_filter_compares_row_key),
        cmocka_unit_test(test_row_filter_no_op_drops_everything),
        cmocka_unit_test(test_prefix_filter_keeps_prefixed_rows_and_ends_scan),
        cmocka_unit_test(test_prefix_filter_reversed_scan_does_not_end_early),
        cmocka_unit_test(test_prefix_filter_short_rows_and_empty_prefix),
        cmocka_unit_test(test_column_prefix_filter_on_qualifiers_across_families),
        cmocka_unit_test(test_qualifier_filter_ops),
        cmocka_unit_test(test_family_filter_keeps_later_families),
        cmocka_unit_test(test_value_filter_ops_and_semantics),
        cmocka_unit_test(test_scv_filter_present_matching_rows_keep_all_cells),
        cmocka_unit_test(test_scv_filter_if_missing_drops_rows_without_column),
        cmocka_unit_test(test_scv_filter_all_versions_when_not_latest_only),
        cmocka_unit_test(test_scv_filter_decides_in_filter_row),
        cmocka_unit_test(test_page_filter_limits_rows_and_ends_scan),
        cmocka_unit_test(test_page_filter_does_not_count_empty_rows),
        cmocka_unit_test(test_first_key_only_filter_first_cell_per_row),
        cmocka_unit_test(test_key_only_filter_strips_value),
        cmocka_unit_test(test_timestamps_filter_listed_versions_only),
        cmocka_unit_test(test_list_and_every_child_must_include),
        cmocka_unit_test(test_list_and_short_circuits_after_first_refusal),
        cmocka_unit_test(test_list_and_stateful_child_and_row_key),
        cmocka_unit_test(test_list_and_all_remaining_any_child),
        cmocka_unit_test(test_list_and_row_drops_on_first_child_and_short_circuits),
        cmocka_unit_test(test_list_and_page_counts_only_rows_passing_earlier_children),
        cmocka_unit_test(test_list_or_union_of_children),
        cmocka_unit_test(test_list_or_least_restrictive_and_skip_memory),
        cmocka_unit_test(test_list_or_all_children_done_is_next_row),
        cmocka_unit_test(test_list_or_child_with_all_remaining_counts_as_rejecting),
        cmocka_unit_test(test_list_or_transform_only_children_that_included),
        cmocka_unit_test(test_list_or_row_kept_if_any_accepting_child_keeps),
        cmocka_unit_test(test_list_or_scv_either_column),
        cmocka_unit_test(test_list_or_page_inside),
        cmocka_unit_test(test_list_nested_or_inside_and),
        cmocka_unit_test(test_list_nested_and_inside_or_with_page),
        cmocka_unit_test(test_list_empty_passes_everything),
        cmocka_unit_test(test_list_add_rejects_non_list_and_frees_child),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
