/*
 * test_json.c - common/http/json.h: nesting and commas, string escaping (quotes, backslashes,
 * control characters, HTML-sensitive characters, invalid UTF-8), numbers (exact integers,
 * shortest round-tripping doubles, NaN/Inf as null), and misuse reported by json_finish.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/http/json.h"
#include "common/status.h"
#include "tests/support/testutil.h"

static void expect_doc(buf_t *b, const char *want)
{
    assert_int_equal(b->len, strlen(want));
    assert_memory_equal(b->data, want, b->len);
    buf_free(b);
}

static void nested_document_has_commas_in_place(void **state)
{
    buf_t b = {0};
    json_writer w;
    json_init(&w, &b);
    json_object_begin(&w);
    json_key(&w, "a");
    json_array_begin(&w);
    json_u64(&w, 1);
    json_i64(&w, -2);
    json_object_begin(&w);
    json_object_end(&w);
    json_array_begin(&w);
    json_array_end(&w);
    json_null(&w);
    json_bool(&w, true);
    json_array_end(&w);
    json_key(&w, "b");
    json_string(&w, "x");
    json_key(&w, "c");
    json_string(&w, NULL);
    json_object_end(&w);
    assert_int_equal(json_finish(&w), ST_OK);
    expect_doc(&b, "{\"a\":[1,-2,{},[],null,true],\"b\":\"x\",\"c\":null}");
}

static void strings_escape_controls_quotes_html_and_bad_utf8(void **state)
{
    buf_t b = {0};
    const char in[] = "q\"b\\n\n\t\x01<a>&\x7f" "\xc3\xa9" "\xe2\x82\xac" "\xf0\x9f\x98\x80"
                      "\xff" "\xc3" "(\xed\xa0\x80)\xc0\xaf";
    assert_int_equal(json_append_string(&b, in, sizeof(in) - 1), ST_OK);
    expect_doc(&b, "\"q\\\"b\\\\n\\n\\t\\u0001\\u003ca\\u003e\\u0026\\u007f\xc3\xa9\xe2\x82\xac"
                   "\xf0\x9f\x98\x80\\ufffd\\ufffd(\\ufffd\\ufffd\\ufffd)\\ufffd\\ufffd\"");
    /* a NUL inside is kept as \u0000 */
    assert_int_equal(json_append_string(&b, "a\0b", 3), ST_OK);
    expect_doc(&b, "\"a\\u0000b\"");
}

static void numbers_exact_and_shortest(void **state)
{
    buf_t b = {0};
    json_writer w;
    json_init(&w, &b);
    json_array_begin(&w);
    json_u64(&w, UINT64_MAX);
    json_i64(&w, INT64_MIN);
    json_double(&w, 0.1);
    json_double(&w, 2.0);
    json_double(&w, 1.0 / 3.0);
    json_double(&w, NAN);
    json_double(&w, -INFINITY);
    json_double(&w, 1e300);
    json_array_end(&w);
    assert_int_equal(json_finish(&w), ST_OK);
    expect_doc(&b, "[18446744073709551615,-9223372036854775808,0.1,2,0.33333333333333331,"
                   "null,null,1e+300]");
}

static void misuse_is_reported(void **state)
{
    buf_t b = {0};
    json_writer w;
    /* a value where a key is due */
    json_init(&w, &b);
    json_object_begin(&w);
    json_u64(&w, 1);
    json_object_end(&w);
    assert_int_equal(json_finish(&w), ST_INVALID_ARGUMENT);
    buf_free(&b);
    /* a key in an array, then everything after is ignored */
    json_init(&w, &b);
    json_array_begin(&w);
    json_key(&w, "k");
    json_array_end(&w);
    assert_int_equal(json_finish(&w), ST_INVALID_ARGUMENT);
    buf_free(&b);
    /* unbalanced, mismatched, two top-level values, a dangling key */
    json_init(&w, &b);
    json_array_begin(&w);
    assert_int_equal(json_finish(&w), ST_INVALID_ARGUMENT);
    buf_free(&b);
    json_init(&w, &b);
    json_array_begin(&w);
    json_object_end(&w);
    assert_int_equal(json_finish(&w), ST_INVALID_ARGUMENT);
    buf_free(&b);
    json_init(&w, &b);
    json_u64(&w, 1);
    json_u64(&w, 2);
    assert_int_equal(json_finish(&w), ST_INVALID_ARGUMENT);
    buf_free(&b);
    json_init(&w, &b);
    json_object_begin(&w);
    json_key(&w, "k");
    json_object_end(&w);
    assert_int_equal(json_finish(&w), ST_INVALID_ARGUMENT);
    buf_free(&b);
    /* nesting past the limit */
    json_init(&w, &b);
    for (int i = 0; i <= JSON_MAX_DEPTH; i++)
        json_array_begin(&w);
    assert_int_equal(json_finish(&w), ST_INVALID_ARGUMENT);
    buf_free(&b);
    /* an empty writer has no document */
    json_init(&w, &b);
    assert_int_equal(json_finish(&w), ST_INVALID_ARGUMENT);
    buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nested_document_has_commas_in_place),
        cmocka_unit_test(strings_escape_controls_quotes_html_and_bad_utf8),
        cmocka_unit_test(numbers_exact_and_shortest),
        cmocka_unit_test(misuse_is_reported),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
