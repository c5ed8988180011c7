/*
 * test_rest_media.c - the REST gateway's media types (rest/rest_media.c): Content-Type
 * parsing (parameters ignored, case-insensitive, application/xml read as XML) and content
 * negotiation against Accept: an absent or blank header gives the server's first choice,
 * q-values, the wildcards "* / *" and "type/ *", the most specific range deciding a type's
 * q wherever it stands in the header, q=0 excluding a type, ties kept in the server's
 * order, REST_MEDIA_NONE when nothing offered is acceptable, and malformed q-values.
 * Thread-safety: single-threaded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "rest/rest_internal.h"
#include "tests/support/testutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const rest_media JSON_FIRST[] = {REST_MEDIA_JSON, REST_MEDIA_XML, REST_MEDIA_TEXT,
                                        REST_MEDIA_PROTOBUF};
static const rest_media XML_FIRST[] = {REST_MEDIA_XML, REST_MEDIA_JSON, REST_MEDIA_TEXT,
                                       REST_MEDIA_PROTOBUF};

/* choose over JSON_FIRST, failing with the header when the answer differs */
static void expect_choice(const char *accept, const rest_media *offered, size_t n, rest_media want)
{
    rest_media got = rest_media_choose(accept, offered, n);
    if (got != want)
        fail_msg("Accept \"%s\": chose %s (%d), want %s (%d)", accept ? accept : "(null)",
                 got == REST_MEDIA_NONE ? "none" : rest_media_name(got), (int)got,
                 want == REST_MEDIA_NONE ? "none" : rest_media_name(want), (int)want);
}

/* ---- Content-Type ---- */

static void test_parse_every_name(void **state)
{
    static const struct {
        const char *ct;
        rest_media want;
    } cases[] = {
        {"text/plain", REST_MEDIA_TEXT},
        {"text/xml", REST_MEDIA_XML},
        {"application/xml", REST_MEDIA_XML},
        {"application/json", REST_MEDIA_JSON},
        {"application/x-protobuf", REST_MEDIA_PROTOBUF},
        {"application/protobuf", REST_MEDIA_PROTOBUF_IETF},
        {"application/octet-stream", REST_MEDIA_BINARY},
    };
    for (size_t i = 0; i < N(cases); i++) {
        assert_int_equal(rest_media_parse(cases[i].ct), cases[i].want);
        /* the name of what was parsed parses back to the same type */
        assert_int_equal(rest_media_parse(rest_media_name(cases[i].want)), cases[i].want);
    }
    assert_string_equal(rest_media_name(REST_MEDIA_XML), "text/xml");
    assert_string_equal(rest_media_name(REST_MEDIA_JSON), "application/json");
    assert_true(rest_media_is_protobuf(REST_MEDIA_PROTOBUF));
    assert_true(rest_media_is_protobuf(REST_MEDIA_PROTOBUF_IETF));
    assert_false(rest_media_is_protobuf(REST_MEDIA_BINARY));
    assert_false(rest_media_is_protobuf(REST_MEDIA_JSON));
}

static void test_parse_ignores_parameters_and_case(void **state)
{
    assert_int_equal(rest_media_parse("application/json; charset=UTF-8"), REST_MEDIA_JSON);
    assert_int_equal(rest_media_parse("application/json;charset=utf-8;q=1"), REST_MEDIA_JSON);
    assert_int_equal(rest_media_parse("  text/xml ; charset=utf-8"), REST_MEDIA_XML);
    assert_int_equal(rest_media_parse("Application/JSON"), REST_MEDIA_JSON);
    assert_int_equal(rest_media_parse("TEXT/XML"), REST_MEDIA_XML);
    assert_int_equal(rest_media_parse("Application/Xml;charset=utf-8"), REST_MEDIA_XML);
    assert_int_equal(rest_media_parse("APPLICATION/X-PROTOBUF"), REST_MEDIA_PROTOBUF);
}

static void test_parse_unknown_is_none(void **state)
{
    assert_int_equal(rest_media_parse(NULL), REST_MEDIA_NONE);
    assert_int_equal(rest_media_parse(""), REST_MEDIA_NONE);
    assert_int_equal(rest_media_parse("   "), REST_MEDIA_NONE);
    assert_int_equal(rest_media_parse("text/html"), REST_MEDIA_NONE);
    assert_int_equal(rest_media_parse("application/jsonx"), REST_MEDIA_NONE);
    assert_int_equal(rest_media_parse("application"), REST_MEDIA_NONE);
    assert_int_equal(rest_media_parse("*/*"), REST_MEDIA_NONE);
    assert_int_equal(rest_media_parse("text/*"), REST_MEDIA_NONE);
    assert_int_equal(rest_media_parse("application/json, text/xml"), REST_MEDIA_NONE);
}

/* ---- Accept ---- */

static void test_choose_absent_or_blank_gives_first(void **state)
{
    expect_choice(NULL, JSON_FIRST, N(JSON_FIRST), REST_MEDIA_JSON);
    expect_choice("", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_JSON);
    expect_choice(" \t ", XML_FIRST, N(XML_FIRST), REST_MEDIA_XML);
    expect_choice(NULL, XML_FIRST, N(XML_FIRST), REST_MEDIA_XML);
    /* nothing offered: nothing to choose */
    expect_choice(NULL, JSON_FIRST, 0, REST_MEDIA_NONE);
    expect_choice("*/*", JSON_FIRST, 0, REST_MEDIA_NONE);
}

static void test_choose_exact_types(void **state)
{
    expect_choice("application/json", XML_FIRST, N(XML_FIRST), REST_MEDIA_JSON);
    expect_choice("text/xml", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_XML);
    expect_choice("application/xml", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_XML);
    expect_choice("text/plain", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_TEXT);
    expect_choice("application/x-protobuf", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_PROTOBUF);
    /* parameters and case of a range do not matter */
    expect_choice("Application/JSON; charset=utf-8", XML_FIRST, N(XML_FIRST), REST_MEDIA_JSON);
    expect_choice("  text/plain  ", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_TEXT);
    /* empty list elements are skipped */
    expect_choice(",,application/json,", XML_FIRST, N(XML_FIRST), REST_MEDIA_JSON);
}

static void test_choose_q_values(void **state)
{
    expect_choice("application/json;q=0.5, text/xml", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_XML);
    expect_choice("text/xml;q=0.2, application/json;q=0.8", XML_FIRST, N(XML_FIRST),
                  REST_MEDIA_JSON);
    expect_choice("text/xml; q=0.9, application/json; q=0.85", JSON_FIRST, N(JSON_FIRST),
                  REST_MEDIA_XML);
    /* three decimals count; upper-case Q and parameters around q are fine */
    expect_choice("application/json;q=0.501, text/xml;q=0.5", XML_FIRST, N(XML_FIRST),
                  REST_MEDIA_JSON);
    expect_choice("application/json;Q=0.1, text/plain;level=1;q=0.2;x=y", JSON_FIRST, N(JSON_FIRST),
                  REST_MEDIA_TEXT);
    expect_choice("application/json;q=1.0, text/xml;q=1", XML_FIRST, N(XML_FIRST), REST_MEDIA_XML);
}

static void test_choose_wildcards(void **state)
{
    expect_choice("*/*", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_JSON);
    expect_choice("*/*", XML_FIRST, N(XML_FIRST), REST_MEDIA_XML);
    expect_choice("*", XML_FIRST, N(XML_FIRST), REST_MEDIA_XML);
    /* text/ * matches text/xml and text/plain: the server's order decides */
    expect_choice("text/*", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_XML);
    static const rest_media text_first[] = {REST_MEDIA_JSON, REST_MEDIA_TEXT, REST_MEDIA_XML};
    expect_choice("text/*", text_first, N(text_first), REST_MEDIA_TEXT);
    static const rest_media text_json[] = {REST_MEDIA_TEXT, REST_MEDIA_JSON};
    expect_choice("application/*", text_json, N(text_json), REST_MEDIA_JSON);
    /* XML is also application/xml, so application/ * takes it too */
    expect_choice("application/*", XML_FIRST, N(XML_FIRST), REST_MEDIA_XML);
    expect_choice("application/*;q=0.4, text/*;q=0.5", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_XML);
    /* a wildcard type name is no prefix match */
    expect_choice("tex/*", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_NONE);
    expect_choice("text/x*", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_NONE);
}

static void test_choose_most_specific_range_decides(void **state)
{
    /* the exact range lowers JSON below what * / * gives the rest, wherever it stands */
    expect_choice("*/*;q=0.9, application/json;q=0.1", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_XML);
    expect_choice("application/json;q=0.1, */*;q=0.9", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_XML);
    /* and raises it */
    expect_choice("*/*;q=0.1, application/json", XML_FIRST, N(XML_FIRST), REST_MEDIA_JSON);
    /* type/ * beats * / * */
    static const rest_media text_json[] = {REST_MEDIA_TEXT, REST_MEDIA_JSON};
    expect_choice("*/*;q=0.8, text/*;q=0.3, application/json;q=0.5", text_json, N(text_json),
                  REST_MEDIA_JSON);
    expect_choice("text/*;q=0.3, */*;q=0.2", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_XML);
    /* the exact text/plain beats text/ *;q=0 */
    static const rest_media xml_text[] = {REST_MEDIA_XML, REST_MEDIA_TEXT};
    expect_choice("text/*;q=0, text/plain", xml_text, N(xml_text), REST_MEDIA_TEXT);
}

static void test_choose_q_zero_excludes(void **state)
{
    static const rest_media json_only[] = {REST_MEDIA_JSON};
    expect_choice("application/json;q=0", json_only, N(json_only), REST_MEDIA_NONE);
    expect_choice("application/json;q=0.000", json_only, N(json_only), REST_MEDIA_NONE);
    expect_choice("application/json;q=0, */*", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_XML);
    expect_choice("*/*, application/json;q=0, text/xml;q=0, application/xml;q=0", JSON_FIRST,
                  N(JSON_FIRST), REST_MEDIA_TEXT);
    expect_choice("*/*;q=0", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_NONE);
    /* XML asked for under either name */
    expect_choice("text/xml;q=0, application/xml", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_XML);
}

static void test_choose_ties_keep_server_order(void **state)
{
    expect_choice("application/json, text/xml", XML_FIRST, N(XML_FIRST), REST_MEDIA_XML);
    expect_choice("application/json, text/xml", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_JSON);
    expect_choice("text/xml;q=0.5, application/json;q=0.5", JSON_FIRST, N(JSON_FIRST),
                  REST_MEDIA_JSON);
    expect_choice("application/x-protobuf, text/plain", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_TEXT);
}

static void test_choose_nothing_acceptable(void **state)
{
    expect_choice("image/png", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_NONE);
    expect_choice("text/html, image/*", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_NONE);
    static const rest_media json_only[] = {REST_MEDIA_JSON};
    expect_choice("text/*", json_only, N(json_only), REST_MEDIA_NONE);
    expect_choice("application/protobuf", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_NONE);
}

static void test_choose_malformed_q(void **state)
{
    /* a range with a malformed q accepts nothing (q 0) */
    static const char *const bad[] = {
        "application/json;q=abc",  "application/json;q=",
        "application/json;q=1.5",  "application/json;q=-0.5",
        "application/json;q=0.5x", "application/json;q=nan",
        "application/json;q=inf",  "application/json;q=0.12345678901234567",
    };
    static const rest_media json_only[] = {REST_MEDIA_JSON};
    for (size_t i = 0; i < N(bad); i++)
        expect_choice(bad[i], json_only, N(json_only), REST_MEDIA_NONE);
    /* and being the most specific match, it also hides a wildcard's q */
    expect_choice("application/json;q=abc, */*;q=0.1", JSON_FIRST, N(JSON_FIRST), REST_MEDIA_XML);
    expect_choice("application/json;q=NaN, text/xml;q=0.1", JSON_FIRST, N(JSON_FIRST),
                  REST_MEDIA_XML);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_every_name),
        cmocka_unit_test(test_parse_ignores_parameters_and_case),
        cmocka_unit_test(test_parse_unknown_is_none),
        cmocka_unit_test(test_choose_absent_or_blank_gives_first),
        cmocka_unit_test(test_choose_exact_types),
        cmocka_unit_test(test_choose_q_values),
        cmocka_unit_test(test_choose_wildcards),
        cmocka_unit_test(test_choose_most_specific_range_decides),
        cmocka_unit_test(test_choose_q_zero_excludes),
        cmocka_unit_test(test_choose_ties_keep_server_order),
        cmocka_unit_test(test_choose_nothing_acceptable),
        cmocka_unit_test(test_choose_malformed_q),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
