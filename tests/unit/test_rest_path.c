/*
 * test_rest_path.c - the pieces of a REST URL (rest/rest_path.c): percent-decoding as
 * Java's URLDecoder ('+' a space when asked, %XX of every byte from %00 to %FF, bad
 * escapes refused with a message), percent-encoding that round-trips every byte, query
 * parameters (the n-th occurrence, missing, empty and '='-less values, decoding), HBase's
 * row specification (a row, a "start,end" range split before decoding, suffix globs and
 * their end row, column lists, a timestamp or a time range, and every malformed part
 * refused naming it), and the split of "family:qualifier" columns.
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

#include "common/buf.h"
#include "common/status.h"
#include "rest/rest_internal.h"
#include "tests/support/testutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void expect_bytes(const rest_bytes *b, const void *want, size_t n)
{
    assert_non_null(b->data);
    assert_int_equal(b->len, n);
    if (n)
        assert_memory_equal(b->data, want, n);
}

#define EXPECT_STR(b, s) expect_bytes((b), (s), sizeof(s) - 1)

/* Parses segs, which must succeed. */
static void parse_ok(const char *const *segs, size_t n, rest_rowspec *spec)
{
    st_clear();
    int rc = rest_rowspec_parse(segs, n, spec);
    if (rc != ST_OK)
        fail_msg("rowspec '%s': %s: %s", segs[0], st_strerror(rc), st_errmsg());
}

/* Parses segs, which must fail with ST_INVALID_ARGUMENT and a message holding frag; the
 * spec is left empty. */
static void parse_bad(const char *const *segs, size_t n, const char *frag)
{
    rest_rowspec spec;
    st_clear();
    int rc = rest_rowspec_parse(segs, n, &spec);
    if (rc != ST_INVALID_ARGUMENT)
        fail_msg("rowspec '%s'%s%s: got %s, want invalid argument", n ? segs[0] : "",
                 n > 1 ? " / " : "", n > 1 ? segs[1] : "", st_strerror(rc));
    if (strstr(st_errmsg(), frag) == NULL)
        fail_msg("rowspec '%s': message \"%s\" lacks \"%s\"", n ? segs[0] : "", st_errmsg(), frag);
    assert_null(spec.row.data);
    assert_null(spec.end_row.data);
    assert_null(spec.columns);
    assert_int_equal(spec.ncolumns, 0);
}

/* ---- percent-decoding and encoding ---- */

static void test_decode_plus_as_space_when_asked(void **state)
{
    buf_t b = {0};
    assert_int_equal(rest_url_decode(&b, "a+b+%2B", 7, true), ST_OK);
    assert_int_equal(b.len, 5);
    assert_memory_equal(b.data, "a b +", 5);
    assert_int_equal(b.data[b.len], 0); /* a terminator past len */
    buf_reset(&b);
    assert_int_equal(rest_url_decode(&b, "a+b+%2B", 7, false), ST_OK);
    assert_int_equal(b.len, 5);
    assert_memory_equal(b.data, "a+b++", 5);
    buf_free(&b);
}

static void test_decode_every_byte_escape(void **state)
{
    static const char hex_upper[] = "0123456789ABCDEF", hex_lower[] = "0123456789abcdef";
    for (int c = 0; c < 256; c++) {
        for (int lower = 0; lower < 2; lower++) {
            const char *hex = lower ? hex_lower : hex_upper;
            char esc[4] = {'%', hex[c >> 4], hex[c & 15], 0};
            buf_t b = {0};
            assert_int_equal(rest_url_decode(&b, esc, 3, lower), ST_OK);
            assert_int_equal(b.len, 1);
            assert_int_equal(b.data[0], c);
            buf_free(&b);
        }
    }
    /* %00 and %FF inside a key, raw bytes above 0x7f kept */
    buf_t b = {0};
    const char in[] = "a%00b%FF\xc3\xa9";
    assert_int_equal(rest_url_decode(&b, in, strlen(in), true), ST_OK);
    assert_int_equal(b.len, 6);
    assert_memory_equal(b.data, "a\0b\xff\xc3\xa9", 6);
    buf_free(&b);
}

static void test_decode_appends_and_honours_length(void **state)
{
    buf_t b = {0};
    assert_int_equal(buf_append(&b, "xy", 2), ST_OK);
    assert_int_equal(rest_url_decode(&b, "%41%42zzz", 6, true), ST_OK);
    assert_int_equal(b.len, 4);
    assert_memory_equal(b.data, "xyAB", 4);
    buf_reset(&b);
    assert_int_equal(rest_url_decode(&b, "", 0, true), ST_OK);
    assert_int_equal(b.len, 0);
    buf_free(&b);
}

static void test_decode_bad_escapes_refused(void **state)
{
    static const struct {
        const char *in;
        const char *offset;
    } bad[] = {
        {"%", "offset 0"},    {"%4", "offset 0"},   {"%zz", "offset 0"},  {"ab%g1", "offset 2"},
        {"%%41", "offset 0"}, {"x%4-", "offset 1"}, {"%41%", "offset 3"}, {"%+1", "offset 0"},
    };
    for (size_t i = 0; i < N(bad); i++) {
        buf_t b = {0};
        st_clear();
        int rc = rest_url_decode(&b, bad[i].in, strlen(bad[i].in), true);
        if (rc != ST_INVALID_ARGUMENT)
            fail_msg("'%s' decoded: %s", bad[i].in, st_strerror(rc));
        if (!strstr(st_errmsg(), "bad percent-escape") || !strstr(st_errmsg(), bad[i].offset) ||
            !strstr(st_errmsg(), bad[i].in))
            fail_msg("'%s': message \"%s\" lacks the escape or %s", bad[i].in, st_errmsg(),
                     bad[i].offset);
        buf_free(&b);
    }
    /* the length bounds the escape: "%41" cut to two characters is bad */
    buf_t b = {0};
    assert_int_equal(rest_url_decode(&b, "%41", 2, true), ST_INVALID_ARGUMENT);
    buf_free(&b);
}

static void test_encode_round_trips_every_byte(void **state)
{
    uint8_t all[256];
    for (int c = 0; c < 256; c++)
        all[c] = (uint8_t)c;
    buf_t enc = {0}, dec = {0};
    assert_int_equal(rest_url_encode(&enc, all, sizeof(all)), ST_OK);
    /* only unreserved characters stay plain: nothing a path or a query treats specially */
    for (size_t i = 0; i < enc.len; i++) {
        uint8_t c = enc.data[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_' || c == '.' || c == '~' || c == '%';
        if (!ok)
            fail_msg("encoding holds '%c' (0x%02x) at %zu", c, c, i);
    }
    for (int plus = 0; plus < 2; plus++) {
        buf_reset(&dec);
        assert_int_equal(rest_url_decode(&dec, (const char *)enc.data, enc.len, plus), ST_OK);
        assert_int_equal(dec.len, sizeof(all));
        assert_memory_equal(dec.data, all, sizeof(all));
    }
    /* one byte at a time too */
    for (int c = 0; c < 256; c++) {
        buf_reset(&enc);
        buf_reset(&dec);
        uint8_t one = (uint8_t)c;
        assert_int_equal(rest_url_encode(&enc, &one, 1), ST_OK);
        assert_int_equal(rest_url_decode(&dec, (const char *)enc.data, enc.len, true), ST_OK);
        assert_int_equal(dec.len, 1);
        assert_int_equal(dec.data[0], c);
    }
    buf_reset(&enc);
    assert_int_equal(rest_url_encode(&enc, "a b/c,d+e*~", 11), ST_OK);
    assert_int_equal(enc.len, strlen("a%20b%2Fc%2Cd%2Be%2A~"));
    assert_memory_equal(enc.data, "a%20b%2Fc%2Cd%2Be%2A~", enc.len);
    buf_free(&enc);
    buf_free(&dec);
}

/* ---- queries ---- */

static void expect_query(const char *query, const char *name, size_t index, const char *want)
{
    int err = 0;
    char *v = rest_query_get(query, name, index, &err);
    assert_int_equal(err, 0);
    if (!want) {
        if (v)
            fail_msg("query '%s': %s[%zu] is '%s', want absent", query, name, index, v);
        return;
    }
    if (!v)
        fail_msg("query '%s': %s[%zu] absent, want '%s'", query, name, index, want);
    assert_string_equal(v, want);
    free(v);
}

static void test_query_nth_occurrence_and_missing(void **state)
{
    const char *q = "a=1&b=2&a=3&ab=4&a=5";
    expect_query(q, "a", 0, "1");
    expect_query(q, "a", 1, "3");
    expect_query(q, "a", 2, "5");
    expect_query(q, "a", 3, NULL);
    expect_query(q, "b", 0, "2");
    expect_query(q, "ab", 0, "4");
    expect_query(q, "c", 0, NULL);
    expect_query(q, "", 0, NULL);
    expect_query("", "a", 0, NULL);
    expect_query(NULL, "a", 0, NULL);
    assert_true(rest_query_has(q, "ab"));
    assert_false(rest_query_has(q, "x"));
    assert_false(rest_query_has(NULL, "x"));
}

static void test_query_empty_and_bare_values(void **state)
{
    expect_query("a=", "a", 0, "");
    expect_query("a", "a", 0, "");
    expect_query("x=1&a&y=2", "a", 0, "");
    expect_query("x=1&a&y=2", "y", 0, "2");
    expect_query("&&a=1&&", "a", 0, "1");
    expect_query("f=a=b", "f", 0, "a=b");
    assert_true(rest_query_has("v", "v"));
    assert_true(rest_query_has("v=", "v"));
}

static void test_query_values_decoded(void **state)
{
    expect_query("q=a%20b+c%2B%26", "q", 0, "a b c+&");
    expect_query("x=%7Bjson%7D", "x", 0, "{json}");
    /* the name is matched as sent */
    expect_query("a%62=1", "ab", 0, NULL);
    int err = 0;
    st_clear();
    assert_null(rest_query_get("k=ok&k=%zz", "k", 1, &err));
    assert_int_equal(err, ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "bad percent-escape"));
    /* a value that cannot be decoded is still there */
    assert_true(rest_query_has("k=%zz", "k"));
}

/* ---- row specifications ---- */

static void test_rowspec_row_only(void **state)
{
    const char *segs[] = {"row1"};
    rest_rowspec s;
    parse_ok(segs, 1, &s);
    EXPECT_STR(&s.row, "row1");
    assert_false(s.has_end);
    assert_false(s.glob);
    assert_int_equal(s.ncolumns, 0);
    assert_false(s.has_time);
    assert_false(s.has_timestamp);
    assert_int_equal(s.start_time, 0);
    assert_true(s.end_time == INT64_MAX);
    assert_int_equal(s.max_versions, 1);
    assert_int_equal(s.max_values, 0);
    rest_rowspec_free(&s);
    assert_null(s.row.data);

    const char *bin[] = {"a%00b%FF+%2F"};
    parse_ok(bin, 1, &s);
    EXPECT_STR(&s.row, "a\0b\xff /");
    rest_rowspec_free(&s);
}

static void test_rowspec_range_split_before_decoding(void **state)
{
    rest_rowspec s;
    const char *range[] = {"a,b"};
    parse_ok(range, 1, &s);
    EXPECT_STR(&s.row, "a");
    EXPECT_STR(&s.end_row, "b");
    assert_true(s.has_end);
    assert_false(s.glob);
    rest_rowspec_free(&s);

    /* %2C is a comma inside a key, not the separator */
    const char *escaped[] = {"a%2C1"};
    parse_ok(escaped, 1, &s);
    EXPECT_STR(&s.row, "a,1");
    assert_false(s.has_end);
    rest_rowspec_free(&s);

    const char *both[] = {"a%2C1,b%2C2"};
    parse_ok(both, 1, &s);
    EXPECT_STR(&s.row, "a,1");
    EXPECT_STR(&s.end_row, "b,2");
    assert_true(s.has_end);
    rest_rowspec_free(&s);

    /* an empty start: from the first row */
    const char *open[] = {",z"};
    parse_ok(open, 1, &s);
    EXPECT_STR(&s.row, "");
    EXPECT_STR(&s.end_row, "z");
    assert_true(s.has_end);
    rest_rowspec_free(&s);
}

static void test_rowspec_suffix_glob(void **state)
{
    rest_rowspec s;
    const char *ab[] = {"ab*"};
    parse_ok(ab, 1, &s);
    assert_true(s.glob);
    assert_true(s.has_end);
    EXPECT_STR(&s.row, "ab");
    EXPECT_STR(&s.end_row, "ac");
    rest_rowspec_free(&s);

    /* trailing 0xff bytes are dropped before the increment */
    const char *ff[] = {"a%FF*"};
    parse_ok(ff, 1, &s);
    EXPECT_STR(&s.row, "a\xff");
    EXPECT_STR(&s.end_row, "b");
    rest_rowspec_free(&s);

    const char *ff2[] = {"a%FE%FF%FF*"};
    parse_ok(ff2, 1, &s);
    EXPECT_STR(&s.row, "a\xfe\xff\xff");
    EXPECT_STR(&s.end_row, "a\xff");
    rest_rowspec_free(&s);

    /* all 0xff: no successor, the end is unbounded (empty) */
    const char *allff[] = {"%FF%FF*"};
    parse_ok(allff, 1, &s);
    EXPECT_STR(&s.row, "\xff\xff");
    EXPECT_STR(&s.end_row, "");
    assert_true(s.glob);
    rest_rowspec_free(&s);

    /* "*" alone: every row */
    const char *star[] = {"*"};
    parse_ok(star, 1, &s);
    assert_true(s.glob);
    EXPECT_STR(&s.row, "");
    EXPECT_STR(&s.end_row, "");
    rest_rowspec_free(&s);

    /* a glob row with columns */
    const char *cols[] = {"u*", "cf:a"};
    parse_ok(cols, 2, &s);
    EXPECT_STR(&s.row, "u");
    EXPECT_STR(&s.end_row, "v");
    assert_int_equal(s.ncolumns, 1);
    EXPECT_STR(&s.columns[0], "cf:a");
    rest_rowspec_free(&s);
}

static void test_rowspec_glob_with_end_refused(void **state)
{
    const char *segs[] = {"ab*,c"};
    parse_bad(segs, 1, "wildcard");
    const char *segs2[] = {"*,"};
    parse_bad(segs2, 1, "wildcard");
}

static void test_rowspec_columns(void **state)
{
    rest_rowspec s;
    const char *three[] = {"r", "cf:a,cf:b,cf"};
    parse_ok(three, 2, &s);
    assert_int_equal(s.ncolumns, 3);
    EXPECT_STR(&s.columns[0], "cf:a");
    EXPECT_STR(&s.columns[1], "cf:b");
    EXPECT_STR(&s.columns[2], "cf");
    rest_rowspec_free(&s);

    /* a trailing comma is tolerated */
    const char *trailing[] = {"r", "cf:a,"};
    parse_ok(trailing, 2, &s);
    assert_int_equal(s.ncolumns, 1);
    EXPECT_STR(&s.columns[0], "cf:a");
    rest_rowspec_free(&s);

    /* decoded, after the split: %2C and %3A inside a qualifier */
    const char *esc[] = {"r", "cf:a%2Cb,cf:x%3Ay,cf:"};
    parse_ok(esc, 2, &s);
    assert_int_equal(s.ncolumns, 3);
    EXPECT_STR(&s.columns[0], "cf:a,b");
    EXPECT_STR(&s.columns[1], "cf:x:y");
    EXPECT_STR(&s.columns[2], "cf:");
    rest_rowspec_free(&s);

    /* an empty column segment: no columns (the whole row) */
    const char *none[] = {"r", ""};
    parse_ok(none, 2, &s);
    assert_int_equal(s.ncolumns, 0);
    assert_null(s.columns);
    rest_rowspec_free(&s);
}

static void test_rowspec_bad_columns_refused(void **state)
{
    const char *inner[] = {"r", "cf:a,,cf:b"};
    parse_bad(inner, 2, "an empty column");
    const char *leading[] = {"r", ",cf:a"};
    parse_bad(leading, 2, "an empty column");
    const char *only_comma[] = {"r", ","};
    parse_bad(only_comma, 2, "an empty column");
    const char *nofam[] = {"r", ":q"};
    parse_bad(nofam, 2, "names no family");
    const char *nofam2[] = {"r", "cf:a,%3Aq"};
    parse_bad(nofam2, 2, "names no family");
    const char *badesc[] = {"r", "cf:a,cf:%zz"};
    parse_bad(badesc, 2, "column: bad percent-escape");
}

static void test_rowspec_timestamp(void **state)
{
    rest_rowspec s;
    const char *one[] = {"r", "cf:a", "1500"};
    parse_ok(one, 3, &s);
    assert_true(s.has_timestamp);
    assert_true(s.has_time);
    assert_int_equal(s.timestamp, 1500);
    assert_int_equal(s.start_time, 1500);
    assert_int_equal(s.end_time, 1501);
    rest_rowspec_free(&s);

    const char *zero[] = {"r", "", "0"};
    parse_ok(zero, 3, &s);
    assert_true(s.has_timestamp);
    assert_int_equal(s.start_time, 0);
    assert_int_equal(s.end_time, 1);
    assert_int_equal(s.ncolumns, 0);
    rest_rowspec_free(&s);

    const char *range[] = {"r", "cf", "5,10"};
    parse_ok(range, 3, &s);
    assert_false(s.has_timestamp);
    assert_true(s.has_time);
    assert_int_equal(s.start_time, 5);
    assert_int_equal(s.end_time, 10);
    rest_rowspec_free(&s);

    const char *big[] = {"r", "cf", "0,9223372036854775807"};
    parse_ok(big, 3, &s);
    assert_true(s.end_time == INT64_MAX);
    rest_rowspec_free(&s);
}

static void test_rowspec_bad_times_refused(void **state)
{
    static const char *const bad[] = {
        "-1", "abc", "1x", "+5", " 5", "1.5", "5,", ",5", "%zz", "1,-2", "99999999999999999999",
        "%095", "%0A5", "%205" /* regression: a decoded tab, newline or space before the digits */};
    for (size_t i = 0; i < N(bad); i++) {
        const char *segs[] = {"r", "cf", bad[i]};
        parse_bad(segs, 3, "not a non-negative integer");
    }
    const char *empty_range[] = {"r", "cf", "10,5"};
    parse_bad(empty_range, 3, "is empty");
    const char *equal[] = {"r", "cf", "5,5"};
    parse_bad(equal, 3, "is empty");
    const char *blank[] = {"r", "cf", ""};
    parse_bad(blank, 3, "an empty timestamp");
}

static void test_rowspec_structure_refused(void **state)
{
    const char *four[] = {"r", "cf", "1", "x"};
    parse_bad(four, 4, "4 parts");
    parse_bad(four, 0, "no row key");
    const char *empty[] = {""};
    parse_bad(empty, 1, "no row key");
    const char *empty_cols[] = {"", "cf"};
    parse_bad(empty_cols, 2, "no row key");
    const char *badrow[] = {"a%zz"};
    parse_bad(badrow, 1, "row key: bad percent-escape");
    const char *badend[] = {"a,b%4"};
    parse_bad(badend, 1, "end row key: bad percent-escape");
    /* a failure after the columns were read frees them (ASan) */
    const char *late[] = {"r", "cf:a,cf:b", "x"};
    parse_bad(late, 3, "timestamp 'x'");
}

/* ---- columns ---- */

static void split(const char *col, const char *fam, const char *qual)
{
    const uint8_t *f = NULL, *q = (const uint8_t *)"set";
    size_t fl = 99, ql = 99;
    bool has = !qual;
    rest_column_split((const uint8_t *)col, strlen(col), &f, &fl, &q, &ql, &has);
    assert_ptr_equal(f, col);
    assert_int_equal(fl, strlen(fam));
    assert_memory_equal(f, fam, fl);
    if (!qual) {
        assert_false(has);
        assert_null(q);
        assert_int_equal(ql, 0);
        return;
    }
    assert_true(has);
    assert_int_equal(ql, strlen(qual));
    assert_ptr_equal(q, col + fl + 1);
    if (ql)
        assert_memory_equal(q, qual, ql);
}

static void test_column_split(void **state)
{
    split("f", "f", NULL);
    split("f:", "f", "");
    split("f:q", "f", "q");
    split("f:q:r", "f", "q:r");
    split("family:", "family", "");
    split(":q", "", "q");
    split("", "", NULL);
    /* binary qualifier bytes after the first colon */
    const uint8_t bin[] = {'c', 'f', ':', 0, 0xff, ':'};
    const uint8_t *f, *q;
    size_t fl, ql;
    bool has;
    rest_column_split(bin, sizeof(bin), &f, &fl, &q, &ql, &has);
    assert_true(has);
    assert_int_equal(fl, 2);
    assert_int_equal(ql, 3);
    assert_memory_equal(q, bin + 3, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_plus_as_space_when_asked),
        cmocka_unit_test(test_decode_every_byte_escape),
        cmocka_unit_test(test_decode_appends_and_honours_length),
        cmocka_unit_test(test_decode_bad_escapes_refused),
        cmocka_unit_test(test_encode_round_trips_every_byte),
        cmocka_unit_test(test_query_nth_occurrence_and_missing),
        cmocka_unit_test(test_query_empty_and_bare_values),
        cmocka_unit_test(test_query_values_decoded),
        cmocka_unit_test(test_rowspec_row_only),
        cmocka_unit_test(test_rowspec_range_split_before_decoding),
        cmocka_unit_test(test_rowspec_suffix_glob),
        cmocka_unit_test(test_rowspec_glob_with_end_refused),
        cmocka_unit_test(test_rowspec_columns),
        cmocka_unit_test(test_rowspec_bad_columns_refused),
        cmocka_unit_test(test_rowspec_timestamp),
        cmocka_unit_test(test_rowspec_bad_times_refused),
        cmocka_unit_test(test_rowspec_structure_refused),
        cmocka_unit_test(test_column_split),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
