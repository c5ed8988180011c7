/*
 * test_json_value.c - common/http/json_value.h: every value type and nesting, members in
 * document order with duplicates kept (json_value_member returns the first), string
 * escapes (\u0000 kept inside a string of the right length, surrogate pairs decoded to
 * 4-byte UTF-8), and the strict rejections: lone surrogates, invalid UTF-8, control
 * characters, malformed numbers, trailing commas, comments, trailing garbage, nesting
 * past JSON_VALUE_MAX_DEPTH; each ST_INVALID_ARGUMENT with *out NULL and a message naming
 * the line, column and offset (checked exactly on a multi-line document). A UTF-8 BOM is
 * tolerated. The accessors json_value_text, json_value_int64 (only '-' and digits, in
 * range) and json_value_bool. Randomized (tu_seed): documents written by json_writer
 * (common/http/json.h), with and without whitespace added between tokens, parse back to
 * the structure written, and random mutations of valid documents never crash the parser
 * (each one parsed from a buffer of exactly its length, so the sanitizer build catches a
 * read past the end).
 * Thread-safety: single-threaded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/http/json.h"
#include "common/http/json_value.h"
#include "common/status.h"
#include "tests/support/testutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* splitmix64: a small deterministic generator for the seeded cases. */
static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Parses text[0..len), copied into a buffer of exactly len bytes; must succeed. */
static json_value *parse_ok_n(const char *text, size_t len)
{
    char *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, text, len);
    json_value *v = NULL;
    int rc = json_value_parse(copy, len, &v);
    free(copy);
    if (rc != ST_OK)
        fail_msg("parse \"%.*s\": %s: %s", (int)len, text, st_strerror(rc), st_errmsg());
    assert_non_null(v);
    return v;
}

static json_value *parse_ok(const char *text)
{
    return parse_ok_n(text, strlen(text));
}

/* Parses text[0..len), which must fail with ST_INVALID_ARGUMENT, *out NULL, and a message
 * holding "line", "column", "offset" and frag (if not NULL). */
static void expect_error_n(const char *text, size_t len, const char *frag)
{
    char *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, text, len);
    json_value *v = (json_value *)&v; /* must be reset to NULL */
    st_clear();
    int rc = json_value_parse(copy, len, &v);
    free(copy);
    if (rc != ST_INVALID_ARGUMENT)
        fail_msg("parse \"%.*s\": got %s (%s), want ST_INVALID_ARGUMENT", (int)len, text,
                 st_strerror(rc), st_errmsg());
    assert_null(v);
    const char *msg = st_errmsg();
    const char *frags[] = {"JSON: ", " at line ", ", column ", " (offset ", frag};
    for (size_t i = 0; i < N(frags); i++)
        if (frags[i] && strstr(msg, frags[i]) == NULL)
            fail_msg("parse \"%.*s\": message \"%s\" lacks \"%s\"", (int)len, text, msg, frags[i]);
}

static void expect_error(const char *text, const char *frag)
{
    expect_error_n(text, strlen(text), frag);
}

/* The error of text must name exactly this position. */
static void expect_error_at(const char *text, const char *frag, size_t line, size_t col,
                            size_t offset)
{
    expect_error(text, frag);
    char want[96];
    snprintf(want, sizeof(want), " at line %zu, column %zu (offset %zu)", line, col, offset);
    if (strstr(st_errmsg(), want) == NULL)
        fail_msg("parse \"%s\": message \"%s\" lacks \"%s\"", text, st_errmsg(), want);
}

static void check_string(const json_value *v, const char *want, size_t want_len)
{
    assert_non_null(v);
    assert_int_equal(v->type, JSON_STRING);
    assert_int_equal(v->len, want_len);
    assert_memory_equal(v->str, want, want_len);
    assert_int_equal(v->str[want_len], '\0');
}

/* The one string of a document "[<text>]". */
static void check_string_doc(const char *doc, const char *want, size_t want_len)
{
    json_value *v = parse_ok(doc);
    assert_int_equal(v->type, JSON_ARRAY);
    assert_int_equal(v->n, 1);
    check_string(v->items[0], want, want_len);
    json_value_free(v);
}

/* ---- values ---- */

static void test_every_value_type(void **state)
{
    json_value *v = parse_ok("null");
    assert_int_equal(v->type, JSON_NULL);
    json_value_free(v);
    v = parse_ok("true");
    assert_int_equal(v->type, JSON_BOOL);
    assert_true(v->b);
    json_value_free(v);
    v = parse_ok(" false ");
    assert_int_equal(v->type, JSON_BOOL);
    assert_false(v->b);
    json_value_free(v);
    v = parse_ok("\"s\"");
    check_string(v, "s", 1);
    json_value_free(v);
    v = parse_ok("\"\"");
    check_string(v, "", 0);
    json_value_free(v);
    v = parse_ok("[]");
    assert_int_equal(v->type, JSON_ARRAY);
    assert_int_equal(v->n, 0);
    json_value_free(v);
    v = parse_ok("{}");
    assert_int_equal(v->type, JSON_OBJECT);
    assert_int_equal(v->n, 0);
    assert_null(json_value_member(v, "a"));
    json_value_free(v);
    /* numbers are kept as written */
    static const char *nums[] = {"0",
                                 "-0",
                                 "7",
                                 "-12",
                                 "3.25",
                                 "-0.5",
                                 "1e3",
                                 "1E+3",
                                 "2e-3",
                                 "1.5E-10",
                                 "0e0",
                                 "10.01e01",
                                 "123456789012345678901234567890",
                                 "-9223372036854775809"};
    for (size_t i = 0; i < N(nums); i++) {
        v = parse_ok(nums[i]);
        assert_int_equal(v->type, JSON_NUMBER);
        assert_int_equal(v->len, strlen(nums[i]));
        assert_string_equal(v->str, nums[i]);
        json_value_free(v);
    }
    /* whitespace of all four kinds around the value */
    v = parse_ok(" \t\r\n 42 \t\r\n ");
    assert_int_equal(v->type, JSON_NUMBER);
    assert_string_equal(v->str, "42");
    json_value_free(v);
    assert_string_equal(json_type_name(JSON_NULL), "null");
    assert_string_equal(json_type_name(JSON_BOOL), "boolean");
    assert_string_equal(json_type_name(JSON_NUMBER), "number");
    assert_string_equal(json_type_name(JSON_STRING), "string");
    assert_string_equal(json_type_name(JSON_ARRAY), "array");
    assert_string_equal(json_type_name(JSON_OBJECT), "object");
}

static void test_nesting(void **state)
{
    json_value *v = parse_ok("{\"Row\":[{\"key\":\"cm93\",\"Cell\":[{\"column\":\"Y2Y6YQ==\","
                             "\"timestamp\":1,\"$\":\"dg==\"},{\"column\":\"Y2Y6Yg==\",\"$\":"
                             "null}]},{\"key\":\"cjI=\",\"Cell\":[]}],\"x\":[[[]],{\"y\":{}}]}");
    assert_int_equal(v->type, JSON_OBJECT);
    assert_int_equal(v->n, 2);
    const json_value *rows = json_value_member(v, "Row");
    assert_non_null(rows);
    assert_int_equal(rows->type, JSON_ARRAY);
    assert_int_equal(rows->n, 2);
    const json_value *r0 = rows->items[0];
    check_string(json_value_member(r0, "key"), "cm93", 4);
    const json_value *cells = json_value_member(r0, "Cell");
    assert_int_equal(cells->n, 2);
    check_string(json_value_member(cells->items[0], "column"), "Y2Y6YQ==", 8);
    assert_string_equal(json_value_member(cells->items[0], "timestamp")->str, "1");
    check_string(json_value_member(cells->items[0], "$"), "dg==", 4);
    assert_int_equal(json_value_member(cells->items[1], "$")->type, JSON_NULL);
    assert_null(json_value_member(cells->items[1], "timestamp"));
    assert_int_equal(json_value_member(rows->items[1], "Cell")->n, 0);
    const json_value *x = json_value_member(v, "x");
    assert_int_equal(x->n, 2);
    assert_int_equal(x->items[0]->type, JSON_ARRAY);
    assert_int_equal(x->items[0]->n, 1);
    assert_int_equal(x->items[0]->items[0]->type, JSON_ARRAY);
    assert_int_equal(x->items[0]->items[0]->n, 0);
    assert_int_equal(json_value_member(x->items[1], "y")->type, JSON_OBJECT);
    /* json_value_member on what is not an object */
    assert_null(json_value_member(rows, "key"));
    assert_null(json_value_member(NULL, "key"));
    json_value_free(v);
    json_value_free(NULL);
}

static void test_members_in_order_duplicates_kept(void **state)
{
    json_value *v = parse_ok("{\"b\":1, \"a\":2, \"b\":3, \"\":4, \"c\\u0000d\":5, \"c\":6}");
    assert_int_equal(v->n, 6);
    static const char *keys[] = {"b", "a", "b", "", "c\0d", "c"};
    static const size_t lens[] = {1, 1, 1, 0, 3, 1};
    static const char *vals[] = {"1", "2", "3", "4", "5", "6"};
    for (size_t i = 0; i < N(keys); i++) {
        assert_int_equal(v->key_lens[i], lens[i]);
        assert_memory_equal(v->keys[i], keys[i], lens[i]);
        assert_int_equal(v->keys[i][lens[i]], '\0');
        assert_string_equal(v->items[i]->str, vals[i]);
    }
    assert_string_equal(json_value_member(v, "b")->str, "1");
    assert_string_equal(json_value_member(v, "a")->str, "2");
    assert_string_equal(json_value_member(v, "")->str, "4");
    /* "c" is the sixth member, not the key with a NUL after "c" */
    assert_string_equal(json_value_member(v, "c")->str, "6");
    assert_null(json_value_member(v, "B"));
    assert_null(json_value_member(v, "d"));
    json_value_free(v);
}

/* ---- strings ---- */

static void test_escapes(void **state)
{
    check_string_doc("[\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t\"]", "\" \\ / \b \f \n \r \t", 15);
    check_string_doc("[\"\\u0041\\u00e9\\u00E9\\u20ac\\uFFFF\"]",
                     "A\xc3\xa9\xc3\xa9\xe2\x82\xac\xef\xbf\xbf", 11);
    check_string_doc("[\"\\u007f\\u0080\\u07ff\\u0800\"]", "\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80", 8);
    /* an escaped NUL is kept: the string carries its length */
    check_string_doc("[\"a\\u0000b\"]", "a\0b", 3);
    check_string_doc("[\"\\u0000\"]", "\0", 1);
    /* raw multi-byte UTF-8 and DEL pass through */
    check_string_doc("[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\x7f\xf4\x8f\xbf\xbf\"]",
                     "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\x7f\xf4\x8f\xbf\xbf", 14);
    expect_error("[\"\\x\"]", "unknown escape");
    expect_error("[\"\\a\"]", "unknown escape");
    expect_error("[\"\\U0041\"]", "unknown escape");
    expect_error("[\"\\'\"]", "unknown escape");
    expect_error_n("[\"\\\0\"]", 5, "unknown escape");
    expect_error("[\"\\u12\"]", "four hex digits");
    expect_error("[\"\\u12g4\"]", "four hex digits");
    expect_error("\"\\u12", "four hex digits");
    expect_error("\"\\", "unterminated string");
    expect_error("\"abc", "unterminated string");
    expect_error("[\"abc]", "unterminated string");
}

static void test_surrogate_pairs(void **state)
{
    check_string_doc("[\"\\ud83d\\ude00\"]", "\xf0\x9f\x98\x80", 4);
    check_string_doc("[\"\\uD834\\uDD1E\"]", "\xf0\x9d\x84\x9e", 4);
    check_string_doc("[\"\\ud800\\udc00\"]", "\xf0\x90\x80\x80", 4);
    check_string_doc("[\"\\udbff\\udfff\"]", "\xf4\x8f\xbf\xbf", 4);
    check_string_doc("[\"x\\ud83d\\ude00y\"]", "x\xf0\x9f\x98\x80y", 6);
    /* lone or misordered surrogates */
    expect_error("[\"\\ud83d\"]", "high surrogate");
    expect_error("[\"\\ud83dx\"]", "high surrogate");
    expect_error("[\"\\ud83d\\n\"]", "high surrogate");
    expect_error("[\"\\ud83d\\u0041\"]", "high surrogate");
    expect_error("[\"\\ud83d\\ud83d\"]", "high surrogate");
    expect_error("[\"\\ud83d\\ude0", "high surrogate");
    expect_error("\"\\ud83d", "high surrogate");
    expect_error("[\"\\ude00\"]", "low surrogate");
    expect_error("[\"\\udfff\\ud83d\"]", "low surrogate");
    expect_error("{\"\\udc00\":1}", "low surrogate");
}

static void test_invalid_utf8_rejected(void **state)
{
    static const char *bad[] = {
        "[\"\xff\"]",             /* never in UTF-8 */
        "[\"\xfe\"]",             /* never in UTF-8 */
        "[\"\x80\"]",             /* a continuation byte alone */
        "[\"\xc3\"]",             /* a lead byte without its continuation */
        "[\"\xc3(\"]",            /* a lead byte before ASCII */
        "[\"\xc0\xaf\"]",         /* overlong '/' */
        "[\"\xc1\xbf\"]",         /* overlong */
        "[\"\xe0\x80\xaf\"]",     /* overlong, three bytes */
        "[\"\xe2\x82\"]",         /* truncated three-byte sequence */
        "[\"\xed\xa0\x80\"]",     /* an encoded surrogate */
        "[\"\xed\xbf\xbf\"]",     /* an encoded surrogate */
        "[\"\xf0\x80\x80\xaf\"]", /* overlong, four bytes */
        "[\"\xf4\x90\x80\x80\"]", /* past U+10FFFF */
        "[\"\xf5\x80\x80\x80\"]", /* past U+10FFFF */
        "[\"\xf0\x9f\x98\"]",     /* truncated four-byte sequence */
        "{\"k\xff\":1}",          /* in a key */
    };
    for (size_t i = 0; i < N(bad); i++)
        expect_error(bad[i], "invalid UTF-8");
    /* truncated at the very end of the text */
    expect_error_n("\"\xe2\x82", 3, "invalid UTF-8");
    expect_error_n("\"\xf0", 2, "invalid UTF-8");
    /* outside a string it is no value */
    expect_error("\xc3\xa9", "expected a value");
    expect_error("[1,\xff]", "expected a value");
}

static void test_control_characters_rejected(void **state)
{
    for (int c = 0; c < 0x20; c++) {
        char doc[8] = {'[', '"', 'a', (char)c, 'b', '"', ']', 0};
        expect_error_n(doc, 7, "control byte");
    }
    /* also in a key */
    expect_error("{\"a\tb\":1}", "control byte");
    /* DEL is no control character to JSON */
    check_string_doc("[\"\x7f\"]", "\x7f", 1);
}

/* ---- syntax ---- */

static void test_malformed_numbers_rejected(void **state)
{
    expect_error("01", "leading zero");
    expect_error("-01", "leading zero");
    expect_error("00", "leading zero");
    expect_error("[0123]", "leading zero");
    expect_error("1.", "after '.'");
    expect_error("[1.]", "after '.'");
    expect_error("1.e5", "after '.'");
    expect_error("-", "needs a digit");
    expect_error("[-]", "needs a digit");
    expect_error("-a", "needs a digit");
    expect_error("- 1", "needs a digit");
    expect_error("1e", "exponent");
    expect_error("1E+", "exponent");
    expect_error("[1e-]", "exponent");
    expect_error(".5", "expected a value, found '.'");
    expect_error("+1", "expected a value, found '+'");
    expect_error("0x10", "after the document");
    expect_error("1.5.2", "after the document");
    expect_error("12abc", "after the document");
    expect_error("-Infinity", "needs a digit");
    expect_error("Infinity", "expected a value");
    expect_error("NaN", "expected a value");
    expect_error("[1 2]", "expected ',' or ']'");
}

static void test_trailing_commas_comments_garbage_rejected(void **state)
{
    expect_error("[1,]", "trailing ','");
    expect_error("[1, \n ]", "trailing ','");
    expect_error("{\"a\":1,}", "trailing ','");
    expect_error("{\"a\":1 , }", "trailing ','");
    expect_error("[,]", "expected a value");
    expect_error("[,1]", "expected a value");
    expect_error("[1,,2]", "expected a value");
    expect_error("{,}", "member name");
    expect_error("{\"a\":1,,\"b\":2}", "member name");
    expect_error("{\"a\" 1}", "expected ':'");
    expect_error("{\"a\"}", "expected ':'");
    expect_error("{\"a\":}", "expected a value");
    expect_error("{a:1}", "member name");
    expect_error("{'a':1}", "member name");
    expect_error("{1:1}", "member name");
    expect_error("{\"a\":1 \"b\":2}", "expected ',' or '}'");
    expect_error("['a']", "expected a value");
    /* comments */
    expect_error("// c\n1", "expected a value, found '/'");
    expect_error("/* c */ 1", "expected a value, found '/'");
    expect_error("[1 /* c */]", "expected ',' or ']'");
    expect_error("[1] // c", "after the document");
    expect_error("{\"a\":1 # c\n}", "expected ',' or '}'");
    /* trailing garbage and a second value */
    expect_error("{}x", "unexpected 'x' after the document");
    expect_error("[1]]", "unexpected ']'");
    expect_error("1 2", "after the document");
    expect_error("\"a\" \"b\"", "after the document");
    expect_error("{} {}", "after the document");
    expect_error("true false", "after the document");
    expect_error("nulll", "after the document");
    expect_error_n("1\0", 2, "byte 0x00");
    expect_error("[1]\xef\xbb\xbf", "byte 0xef");
    /* no value, or half of one */
    expect_error("", "the end of the text");
    expect_error(" \n\t\r ", "the end of the text");
    expect_error("tru", "expected a value");
    expect_error("nul", "expected a value");
    expect_error("True", "expected a value");
    expect_error("NULL", "expected a value");
    expect_error("[", "the end of the text");
    expect_error("[1", "unterminated array");
    expect_error("[1,", "the end of the text");
    expect_error("{", "unterminated object");
    expect_error("{\"a\":1", "unterminated object");
    expect_error("{\"a\"", "expected ':'");
    expect_error("]", "expected a value, found ']'");
    expect_error("\v1", "byte 0x0b");
    expect_error("\f1", "byte 0x0c");
}

static void test_bom_tolerated(void **state)
{
    json_value *v = parse_ok("\xef\xbb\xbf{\"a\":[1]}");
    assert_int_equal(v->type, JSON_OBJECT);
    assert_int_equal(json_value_member(v, "a")->n, 1);
    json_value_free(v);
    v = parse_ok("\xef\xbb\xbf \n 7 ");
    assert_string_equal(v->str, "7");
    json_value_free(v);
    /* only one, only first, and not alone */
    expect_error("\xef\xbb\xbf\xef\xbb\xbf{}", "byte 0xef");
    expect_error(" \xef\xbb\xbf{}", "byte 0xef");
    expect_error("\xef\xbb\xbf", "the end of the text");
    expect_error("\xef\xbb", "byte 0xef");
}

/* A document of depth nested arrays (objects when obj) around a 1. */
static char *nested(int depth, bool obj, size_t *len)
{
    buf_t b = {0};
    for (int i = 0; i < depth; i++)
        assert_int_equal(buf_append(&b, obj ? "{\"k\":" : "[", obj ? 5 : 1), ST_OK);
    assert_int_equal(buf_append(&b, "1", 1), ST_OK);
    for (int i = 0; i < depth; i++)
        assert_int_equal(buf_append(&b, obj ? "}" : "]", 1), ST_OK);
    *len = b.len;
    return (char *)b.data;
}

static void test_depth_limit(void **state)
{
    for (int obj = 0; obj <= 1; obj++) {
        size_t len;
        char *doc = nested(JSON_VALUE_MAX_DEPTH, obj, &len);
        json_value *v = parse_ok_n(doc, len);
        const json_value *at = v;
        for (int i = 0; i < JSON_VALUE_MAX_DEPTH; i++) {
            assert_int_equal(at->type, obj ? JSON_OBJECT : JSON_ARRAY);
            assert_int_equal(at->n, 1);
            at = at->items[0];
        }
        assert_string_equal(at->str, "1");
        json_value_free(v);
        free(doc);
        doc = nested(JSON_VALUE_MAX_DEPTH + 1, obj, &len);
        expect_error_n(doc, len, "nesting deeper than");
        /* the offset of the bracket one too deep */
        char want[32];
        snprintf(want, sizeof(want), "(offset %d)", JSON_VALUE_MAX_DEPTH * (obj ? 5 : 1));
        assert_non_null(strstr(st_errmsg(), want));
        free(doc);
    }
    /* a long run of brackets stops at the limit, without recursing further */
    size_t big = 1 << 20;
    char *doc = malloc(big);
    assert_non_null(doc);
    memset(doc, '[', big);
    expect_error_n(doc, big, "nesting deeper than");
    free(doc);
}

static void test_error_positions(void **state)
{
    /* line 1 "{" at 0; line 2 at 2; line 3 at 17; line 4 at 34 */
    static const char doc[] = "{\n"
                              "  \"name\": \"t\",\n"
                              "  \"rows\": [1, 2,\n"
                              "           3 4]\n"
                              "}\n";
    assert_int_equal(doc[47], '4');
    expect_error_at(doc, "expected ',' or ']' in an array, found '4'", 4, 14, 47);
    static const char colon[] = "{\n  \"a\": 1,\n  \"b\" 2\n}";
    assert_int_equal(colon[18], '2');
    expect_error_at(colon, "expected ':' after an object key, found '2'", 3, 7, 18);
    /* an unterminated string names its opening quote */
    static const char unterminated[] = "[\n \"ok\",\n   \"open";
    assert_int_equal(unterminated[12], '"');
    expect_error_at(unterminated, "unterminated string", 3, 4, 12);
    /* a control byte names itself */
    static const char tab[] = "{\"a\":\n\n\"x\ty\"}";
    assert_int_equal(tab[9], '\t');
    expect_error_at(tab, "control byte 0x09", 3, 3, 9);
    /* a bad escape names its backslash */
    static const char esc[] = "[\"ab\",\n \"c\\qd\"]";
    assert_int_equal(esc[10], '\\');
    expect_error_at(esc, "unknown escape '\\q'", 2, 4, 10);
    /* invalid UTF-8 names the bad byte */
    static const char utf[] = "\n\n  [\"\xc3\xa9\xff\"]";
    assert_int_equal((unsigned char)utf[8], 0xff);
    expect_error_at(utf, "invalid UTF-8", 3, 7, 8);
    /* the end of the text, after a newline */
    expect_error_at("[1,\n", "found the end of the text", 2, 1, 4);
    expect_error_at("", "found the end of the text", 1, 1, 0);
    /* an unterminated array or object names its opening bracket */
    expect_error_at("\n [1,\n2", "unterminated array", 2, 2, 2);
    expect_error_at("[{\"a\":\n1\n", "unterminated object", 1, 2, 1);
    /* trailing garbage on a later line */
    expect_error_at("{}\n\n  x", "unexpected 'x' after the document", 3, 3, 6);
    expect_error_at("[1,\n\n]", "trailing ','", 3, 1, 5);
}

/* ---- accessors ---- */

static void test_text(void **state)
{
    json_value *v = parse_ok("[\"a\\u0000b\", 1.50e+3, true, false, null, [], {}, \"\"]");
    size_t len = 99;
    const char *t = json_value_text(v->items[0], &len);
    assert_int_equal(len, 3);
    assert_memory_equal(t, "a\0b", 3);
    t = json_value_text(v->items[1], &len);
    assert_int_equal(len, 7);
    assert_string_equal(t, "1.50e+3");
    t = json_value_text(v->items[2], &len);
    assert_int_equal(len, 4);
    assert_string_equal(t, "true");
    t = json_value_text(v->items[3], &len);
    assert_int_equal(len, 5);
    assert_string_equal(t, "false");
    assert_null(json_value_text(v->items[4], &len));
    assert_null(json_value_text(v->items[5], &len));
    assert_null(json_value_text(v->items[6], &len));
    t = json_value_text(v->items[7], &len);
    assert_int_equal(len, 0);
    assert_string_equal(t, "");
    assert_null(json_value_text(NULL, &len));
    assert_null(json_value_text(v, &len));
    json_value_free(v);
}

static void test_int64(void **state)
{
    static const struct {
        const char *json;
        int64_t want;
    } good[] = {
        {"0", 0},
        {"-0", 0},
        {"12", 12},
        {"-12", -12},
        {"9223372036854775807", INT64_MAX},
        {"-9223372036854775808", INT64_MIN},
        {"\"12\"", 12},
        {"\"-7\"", -7},
        {"\"0012\"", 12},
        {"\"9223372036854775807\"", INT64_MAX},
        {"\"-9223372036854775808\"", INT64_MIN},
    };
    for (size_t i = 0; i < N(good); i++) {
        json_value *v = parse_ok(good[i].json);
        int64_t x = 99;
        if (!json_value_int64(v, &x))
            fail_msg("json_value_int64(%s) refused", good[i].json);
        if (x != good[i].want)
            fail_msg("json_value_int64(%s) = %" PRId64 ", want %" PRId64, good[i].json, x,
                     good[i].want);
        json_value_free(v);
    }
    static const char *bad[] = {
        "9223372036854775808",
        "-9223372036854775809",
        "18446744073709551616",
        "\"9223372036854775808\"",
        "\"-9223372036854775809\"",
        "99999999999999999999999",
        "1.0",
        "1.5",
        "1e3",
        "-0.0",
        "1E2",
        "\"1.5\"",
        "\" 12\"",
        "\"12 \"",
        "\"\\t12\"",
        "\"\\n12\"",
        "\"+1\"",
        "\"+12\"",
        "\"12abc\"",
        "\"abc\"",
        "\"\"",
        "\"-\"",
        "\"--1\"",
        "\"- 1\"",
        "\"0x10\"",
        "\"1_000\"",
        "\"12\\u0000\"",
        "\"1\\u00002\"",
        "true",
        "false",
        "null",
        "[1]",
        "{\"a\":1}",
        "\"\xd9\xa1\"", /* ARABIC-INDIC DIGIT ONE */
    };
    for (size_t i = 0; i < N(bad); i++) {
        json_value *v = parse_ok(bad[i]);
        int64_t x = 99;
        if (json_value_int64(v, &x))
            fail_msg("json_value_int64(%s) accepted as %" PRId64, bad[i], x);
        assert_int_equal(x, 99);
        json_value_free(v);
    }
    int64_t x = 99;
    assert_false(json_value_int64(NULL, &x));
}

static void test_bool(void **state)
{
    static const struct {
        const char *json;
        bool want;
    } good[] = {
        {"true", true},     {"false", false},     {"\"true\"", true},   {"\"TRUE\"", true},
        {"\"True\"", true}, {"\"false\"", false}, {"\"FALSE\"", false}, {"\"fAlSe\"", false},
    };
    for (size_t i = 0; i < N(good); i++) {
        json_value *v = parse_ok(good[i].json);
        bool b = !good[i].want;
        if (!json_value_bool(v, &b))
            fail_msg("json_value_bool(%s) refused", good[i].json);
        assert_int_equal(b, good[i].want);
        json_value_free(v);
    }
    static const char *bad[] = {
        "1",      "0",         "\"1\"",     "\"yes\"",         "\"t\"",
        "\"\"",   "\" true\"", "\"true \"", "\"truex\"",       "null",
        "[true]", "{}",        "\"nul\"",   "\"true\\u0000\"", "\"false\\u0000x\"",
    };
    for (size_t i = 0; i < N(bad); i++) {
        json_value *v = parse_ok(bad[i]);
        bool b = true;
        if (json_value_bool(v, &b))
            fail_msg("json_value_bool(%s) accepted as %d", bad[i], b);
        json_value_free(v);
    }
    bool b;
    assert_false(json_value_bool(NULL, &b));
}

/* ---- randomized ---- */

/* Both passes of the random document test draw the same numbers: the first writes with
 * w, the second checks the parsed tree v. */
typedef struct gen {
    uint64_t s;
    int budget; /* values left to generate before only scalars */
    bool chain; /* one container in another down to max_depth */
} gen;

static uint32_t rnd(gen *g, uint32_t n)
{
    return (uint32_t)(next_rand(&g->s) % n);
}

/* A random valid UTF-8 string into out (cap >= 128 bytes); keys come from a small
 * alphabet (so duplicates happen) and hold no NUL. */
static size_t gen_string(gen *g, char *out, bool key)
{
    static const char key_chars[] = "ab\"\\\xc3\xa9";
    size_t n = rnd(g, key ? 4 : 24), len = 0;
    for (size_t i = 0; i < n; i++) {
        if (key) {
            uint32_t k = rnd(g, 5);
            if (k == 4) { /* é as two bytes */
                out[len++] = key_chars[4];
                out[len++] = key_chars[5];
            } else {
                out[len++] = key_chars[k];
            }
            continue;
        }
        uint32_t cp;
        switch (rnd(g, 8)) {
        case 0:
            cp = rnd(g, 0x20); /* control characters, NUL included */
            break;
        case 1: {
            static const char special[] = "\"\\/<>&'\x7f";
            cp = (unsigned char)special[rnd(g, sizeof(special) - 1)];
            break;
        }
        case 2:
            cp = 0x80 + rnd(g, 0x800 - 0x80);
            break;
        case 3:
            cp = 0x800 + rnd(g, 0x10000 - 0x800);
            if (cp >= 0xd800 && cp <= 0xdfff)
                cp = 0x2028;
            break;
        case 4:
            cp = 0x10000 + rnd(g, 0x110000 - 0x10000);
            break;
        default:
            cp = 0x20 + rnd(g, 0x5f);
            break;
        }
        uint8_t *u = (uint8_t *)out + len;
        if (cp < 0x80) {
            u[0] = (uint8_t)cp;
            len += 1;
        } else if (cp < 0x800) {
            u[0] = (uint8_t)(0xc0 | cp >> 6);
            u[1] = (uint8_t)(0x80 | (cp & 0x3f));
            len += 2;
        } else if (cp < 0x10000) {
            u[0] = (uint8_t)(0xe0 | cp >> 12);
            u[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
            u[2] = (uint8_t)(0x80 | (cp & 0x3f));
            len += 3;
        } else {
            u[0] = (uint8_t)(0xf0 | cp >> 18);
            u[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
            u[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
            u[3] = (uint8_t)(0x80 | (cp & 0x3f));
            len += 4;
        }
    }
    out[len] = '\0';
    return len;
}

static double gen_double(gen *g)
{
    switch (rnd(g, 3)) {
    case 0:
        return (double)((int64_t)rnd(g, 2000000) - 1000000) / 1000.0;
    case 1:
        return ldexp((double)rnd(g, 1u << 30) + 0.5, (int)rnd(g, 200) - 100) * (rnd(g, 2) ? 1 : -1);
    default:
        for (;;) {
            uint64_t bits = next_rand(&g->s);
            double d;
            memcpy(&d, &bits, sizeof(d));
            if (isfinite(d))
                return d;
        }
    }
}

static void gen_value(gen *g, int depth, int max_depth, json_writer *w, const json_value *v)
{
    char s[128], num[32];
    g->budget--;
    bool chain = g->chain && depth < max_depth;
    uint32_t kind = chain ? 6 + rnd(g, 2) : rnd(g, depth < max_depth && g->budget > 0 ? 8 : 6);
    switch (kind) {
    case 0:
        if (w)
            json_null(w);
        else
            assert_int_equal(v->type, JSON_NULL);
        break;
    case 1: {
        bool b = rnd(g, 2);
        if (w) {
            json_bool(w, b);
        } else {
            assert_int_equal(v->type, JSON_BOOL);
            assert_int_equal(v->b, b);
        }
        break;
    }
    case 2: {
        int64_t x = (int64_t)(next_rand(&g->s) >> rnd(g, 64));
        if (rnd(g, 2))
            x = x == INT64_MIN ? x : -x;
        if (rnd(g, 16) == 0)
            x = rnd(g, 2) ? INT64_MIN : INT64_MAX;
        if (w) {
            json_i64(w, x);
        } else {
            assert_int_equal(v->type, JSON_NUMBER);
            snprintf(num, sizeof(num), "%" PRId64, x);
            assert_string_equal(v->str, num);
            int64_t got = 0;
            assert_true(json_value_int64(v, &got));
            assert_true(got == x);
        }
        break;
    }
    case 3: {
        uint64_t x = next_rand(&g->s) >> rnd(g, 64);
        if (w) {
            json_u64(w, x);
        } else {
            assert_int_equal(v->type, JSON_NUMBER);
            snprintf(num, sizeof(num), "%" PRIu64, x);
            assert_string_equal(v->str, num);
            int64_t got = 0;
            assert_int_equal(json_value_int64(v, &got), x <= INT64_MAX);
        }
        break;
    }
    case 4: {
        double d = gen_double(g);
        if (w) {
            json_double(w, d);
        } else {
            assert_int_equal(v->type, JSON_NUMBER);
            if (strtod(v->str, NULL) != d)
                fail_msg("%.17g came back as %s", d, v->str);
        }
        break;
    }
    case 5: {
        size_t n = gen_string(g, s, false);
        if (w)
            json_string_n(w, s, n);
        else
            check_string(v, s, n);
        break;
    }
    case 6: {
        size_t n = chain ? 1 : rnd(g, 6);
        if (w)
            json_array_begin(w);
        else
            assert_int_equal(v->type, JSON_ARRAY);
        if (v)
            assert_int_equal(v->n, n);
        for (size_t i = 0; i < n; i++)
            gen_value(g, depth + 1, max_depth, w, v ? v->items[i] : NULL);
        if (w)
            json_array_end(w);
        break;
    }
    default: {
        size_t n = chain ? 1 : rnd(g, 6);
        if (w)
            json_object_begin(w);
        else
            assert_int_equal(v->type, JSON_OBJECT);
        if (v)
            assert_int_equal(v->n, n);
        for (size_t i = 0; i < n; i++) {
            size_t kl = gen_string(g, s, true);
            if (w) {
                json_key(w, s);
            } else {
                assert_int_equal(v->key_lens[i], kl);
                assert_memory_equal(v->keys[i], s, kl);
            }
            gen_value(g, depth + 1, max_depth, w, v ? v->items[i] : NULL);
        }
        if (v && n > 0) {
            /* json_value_member finds the first member of each name */
            for (size_t i = 0; i < n; i++) {
                const json_value *m = json_value_member(v, v->keys[i]);
                size_t first = 0;
                while (strcmp(v->keys[first], v->keys[i]) != 0)
                    first++;
                assert_ptr_equal(m, v->items[first]);
            }
        }
        if (w)
            json_object_end(w);
        break;
    }
    }
}

/* Copies doc into out with random JSON whitespace after structural characters outside
 * strings. */
static void add_whitespace(uint64_t *s, const buf_t *doc, buf_t *out)
{
    static const char ws[] = " \t\r\n";
    bool in_str = false, esc = false;
    buf_reset(out);
    for (size_t i = 0; i < doc->len; i++) {
        char c = (char)doc->data[i];
        assert_int_equal(buf_append_u8(out, (uint8_t)c), ST_OK);
        if (in_str) {
            if (esc)
                esc = false;
            else if (c == '\\')
                esc = true;
            else if (c == '"')
                in_str = false;
        } else if (c == '"') {
            in_str = true;
        }
        if (!in_str && strchr("{}[],:\"", c) != NULL) {
            for (uint64_t k = next_rand(s) % 4; k > 0; k--)
                assert_int_equal(buf_append_u8(out, (uint8_t)ws[next_rand(s) % 4]), ST_OK);
        }
    }
}

static void test_random_documents_round_trip(void **state)
{
    uint64_t seed = tu_seed(__func__), ws_seed = seed ^ 0x5555;
    buf_t doc = {0}, spaced = {0};
    for (int round = 0; round < 2000; round++) {
        /* now and then a chain as deep as the writer allows */
        bool chain = round % 50 == 0;
        gen g = {.s = seed + (uint64_t)round * 0x10001, .budget = 60, .chain = chain};
        int max_depth = chain ? JSON_MAX_DEPTH : 6;
        gen replay = g;
        json_writer w;
        buf_reset(&doc);
        json_init(&w, &doc);
        gen_value(&g, 0, max_depth, &w, NULL);
        if (json_finish(&w) != ST_OK)
            fail_msg("round %d: json_finish: %s", round, st_errmsg());
        for (int pass = 0; pass < 2; pass++) {
            const buf_t *text = &doc;
            if (pass == 1) {
                add_whitespace(&ws_seed, &doc, &spaced);
                text = &spaced;
            }
            json_value *v = parse_ok_n((const char *)text->data, text->len);
            gen check = replay;
            gen_value(&check, 0, max_depth, NULL, v);
            assert_true(check.s == g.s);
            json_value_free(v);
        }
    }
    buf_free(&doc);
    buf_free(&spaced);
}

/* Walks a parsed tree checking what the header promises of it. */
static size_t walk(const json_value *v, int depth)
{
    assert_true(depth <= JSON_VALUE_MAX_DEPTH);
    size_t nodes = 1;
    switch (v->type) {
    case JSON_NULL:
    case JSON_BOOL:
        break;
    case JSON_NUMBER:
        assert_true(v->len > 0);
        assert_int_equal(strlen(v->str), v->len);
        break;
    case JSON_STRING:
        assert_int_equal(v->str[v->len], '\0');
        break;
    case JSON_ARRAY:
    case JSON_OBJECT:
        for (size_t i = 0; i < v->n; i++) {
            if (v->type == JSON_OBJECT)
                assert_int_equal(v->keys[i][v->key_lens[i]], '\0');
            nodes += walk(v->items[i], depth + 1);
        }
        break;
    default:
        fail_msg("type %d", (int)v->type);
    }
    return nodes;
}

static void test_mutations_never_crash(void **state)
{
    static const char *seeds[] = {
        "{\"Row\":[{\"key\":\"cm93\",\"Cell\":[{\"column\":\"Y2Y6YQ==\",\"timestamp\":1,"
        "\"$\":\"dg==\"}]}]}",
        "[1, -2.5e+10, 0, true, false, null, \"a\\u0000\\ud83d\\ude00\\n\\\"\", {}, []]",
        "{\"a\":{\"b\":{\"c\":[[[\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"]]]}}}",
        "\xef\xbb\xbf {\"type\":\"ScannerModel\",\"batch\":10,\"startRow\":\"YQ==\"}\n",
        "\"\\u00e9\\uD834\\uDD1E\\/\\b\\f\\r\\t\"",
        "-0.0e-0",
    };
    static const char *tokens[] = {
        "\\u",  "\\ud800",  "\\udc00",      "[",        "]",
        "{",    "}",        "\"",           ",",        ":",
        "\\",   "{\"a\":",  "1e",           "-",        "0",
        "/*",   "//",       "tru",          ".",        "\xef\xbb\xbf",
        "\xff", "\xc3",     "\xed\xa0\x80", "\xf4\x90", "\x00",
        "\n",   "[[[[[[[[", "null",
    };
    uint64_t s = tu_seed(__func__);
    buf_t doc = {0};
    size_t ok = 0, failed = 0;
    /* some documents from the writer among the seeds */
    buf_t written[8];
    for (size_t k = 0; k < N(written); k++) {
        written[k] = (buf_t){0};
        gen g = {.s = s + k, .budget = 30};
        json_writer w;
        json_init(&w, &written[k]);
        gen_value(&g, 0, 5, &w, NULL);
        assert_int_equal(json_finish(&w), ST_OK);
    }
    for (int round = 0; round < 30000; round++) {
        size_t pick = next_rand(&s) % (N(seeds) + N(written));
        buf_reset(&doc);
        if (pick < N(seeds))
            assert_int_equal(buf_append(&doc, seeds[pick], strlen(seeds[pick])), ST_OK);
        else
            assert_int_equal(
                buf_append(&doc, written[pick - N(seeds)].data, written[pick - N(seeds)].len),
                ST_OK);
        for (uint64_t m = 1 + next_rand(&s) % 4; m > 0; m--) {
            size_t at = doc.len ? next_rand(&s) % (doc.len + 1) : 0;
            switch (next_rand(&s) % 6) {
            case 0: /* replace a byte with any byte */
                if (at < doc.len)
                    doc.data[at] = (uint8_t)next_rand(&s);
                break;
            case 1: { /* insert a token */
                const char *t = tokens[next_rand(&s) % N(tokens)];
                size_t tl = t[0] ? strlen(t) : 1;
                assert_int_equal(buf_reserve(&doc, tl), ST_OK);
                memmove(doc.data + at + tl, doc.data + at, doc.len - at);
                memcpy(doc.data + at, t, tl);
                doc.len += tl;
                break;
            }
            case 2: { /* delete a range */
                size_t n = at < doc.len ? 1 + next_rand(&s) % (doc.len - at) % 8 : 0;
                memmove(doc.data + at, doc.data + at + n, doc.len - at - n);
                doc.len -= n;
                break;
            }
            case 3: /* truncate */
                doc.len = at;
                break;
            case 4: { /* duplicate a range */
                size_t n = at < doc.len ? 1 + next_rand(&s) % (doc.len - at) % 16 : 0;
                assert_int_equal(buf_reserve(&doc, n), ST_OK);
                memmove(doc.data + at + n, doc.data + at, doc.len - at);
                doc.len += n;
                break;
            }
            default: /* flip one bit */
                if (at < doc.len)
                    doc.data[at] ^= (uint8_t)(1u << (next_rand(&s) % 8));
                break;
            }
        }
        /* an exact-length copy, so a read past the end is the sanitizer's to catch */
        char *text = malloc(doc.len ? doc.len : 1);
        assert_non_null(text);
        memcpy(text, doc.data, doc.len);
        json_value *v = (json_value *)&v;
        st_clear();
        int rc = json_value_parse(text, doc.len, &v);
        if (rc == ST_OK) {
            assert_non_null(v);
            walk(v, 0);
            json_value_free(v);
            ok++;
        } else {
            if (rc != ST_INVALID_ARGUMENT)
                fail_msg("round %d: %s: %s", round, st_strerror(rc), st_errmsg());
            assert_null(v);
            assert_non_null(strstr(st_errmsg(), " (offset "));
            failed++;
        }
        free(text);
    }
    /* the mutations made both kinds */
    assert_true(ok > 100);
    assert_true(failed > 100);
    for (size_t k = 0; k < N(written); k++)
        buf_free(&written[k]);
    buf_free(&doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_value_type),
        cmocka_unit_test(test_nesting),
        cmocka_unit_test(test_members_in_order_duplicates_kept),
        cmocka_unit_test(test_escapes),
        cmocka_unit_test(test_surrogate_pairs),
        cmocka_unit_test(test_invalid_utf8_rejected),
        cmocka_unit_test(test_control_characters_rejected),
        cmocka_unit_test(test_malformed_numbers_rejected),
        cmocka_unit_test(test_trailing_commas_comments_garbage_rejected),
        cmocka_unit_test(test_bom_tolerated),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_error_positions),
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_int64),
        cmocka_unit_test(test_bool),
        cmocka_unit_test(test_random_documents_round_trip),
        cmocka_unit_test(test_mutations_never_crash),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
