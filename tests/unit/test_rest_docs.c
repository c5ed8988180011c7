/*
 * test_rest_docs.c - HBase's NamespaceProperties document as the REST gateway reads it
 * (rest_props_decode in rest/rest_docs.c): JSON {"properties":{"k":"v"}}, XML
 * <NamespaceProperties><properties><entry><key>k</key><value>v</value></entry>
 * </properties></NamespaceProperties> and the protobuf NamespaceProperties message, each
 * keeping the properties in document order; duplicate keys, unknown members and elements,
 * wrong types and broken bodies refused; and what rest_doc_props writes for a namespace
 * descriptor reading back to the same properties in all three media.
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
#include "common/proto/rest.pb-c.h"
#include "common/status.h"
#include "rest/rest_internal.h"
#include "strata/admin.h"
#include "tests/support/testutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void decode_ok(rest_media m, const void *body, size_t len, rest_props *p)
{
    st_clear();
    int rc = rest_props_decode(m, body, len, p);
    if (rc != ST_OK)
        fail_msg("NamespaceProperties '%.*s' refused: %s: %s", (int)len, (const char *)body,
                 st_strerror(rc), st_errmsg());
}

#define DECODE_OK(m, s, p) decode_ok((m), (s), strlen(s), (p))

static void decode_bad(rest_media m, const void *body, size_t len, const char *frag)
{
    rest_props p;
    st_clear();
    int rc = rest_props_decode(m, body, len, &p);
    if (rc != ST_INVALID_ARGUMENT)
        fail_msg("NamespaceProperties '%.*s': got %s, want invalid argument", (int)len,
                 (const char *)body, st_strerror(rc));
    if (!strstr(st_errmsg(), frag))
        fail_msg("NamespaceProperties '%.*s': message \"%s\" lacks \"%s\"", (int)len,
                 (const char *)body, st_errmsg(), frag);
    assert_null(p.items);
    assert_int_equal(p.n, 0);
}

#define DECODE_BAD(m, s, frag) decode_bad((m), (s), strlen(s), (frag))

/* p holds exactly the pairs kv[0..2n) (key, value, key, value ...) in order */
static void expect_props(const rest_props *p, const char *const *kv, size_t n)
{
    assert_int_equal(p->n, n);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(p->items[i].name, kv[2 * i]);
        assert_string_equal(p->items[i].value, kv[2 * i + 1]);
    }
}

/* ---- JSON ---- */

static void test_json_properties_in_order(void **state)
{
    rest_props p;
    DECODE_OK(REST_MEDIA_JSON,
              "{\"properties\":{\"zeta\":\"1\",\"alpha\":\"two words\",\"k\":\"\"}}", &p);
    static const char *const want[] = {"zeta", "1", "alpha", "two words", "k", ""};
    expect_props(&p, want, 3);
    rest_props_free(&p);
    assert_null(p.items);
    assert_int_equal(p.n, 0);

    /* scalars are taken as their text, as Jackson coerces them */
    DECODE_OK(REST_MEDIA_JSON, "{\"properties\":{\"n\":5,\"b\":true,\"u\":\"\\u00e9\"}}", &p);
    static const char *const coerced[] = {"n", "5", "b", "true", "u", "\xc3\xa9"};
    expect_props(&p, coerced, 3);
    rest_props_free(&p);
}

static void test_json_empty(void **state)
{
    static const char *const docs[] = {"{}", "{\"properties\":null}", "{\"properties\":{}}"};
    for (size_t i = 0; i < N(docs); i++) {
        rest_props p;
        DECODE_OK(REST_MEDIA_JSON, docs[i], &p);
        assert_int_equal(p.n, 0);
        rest_props_free(&p);
    }
}

static void test_json_refusals(void **state)
{
    /* regression: an <entry> with more than <key> and <value> was read, the rest ignored */
    DECODE_BAD(REST_MEDIA_XML,
               "<NamespaceProperties><properties><entry><key>k</key><value>v</value>"
               "<extra/></entry></properties></NamespaceProperties>",
               "nothing else");
    DECODE_BAD(REST_MEDIA_XML,
               "<NamespaceProperties><properties><entry owner=\"x\"><key>k</key></entry>"
               "</properties></NamespaceProperties>",
               "nothing else");
    DECODE_BAD(REST_MEDIA_JSON, "{\"properties\":{\"k\":\"a\",\"x\":\"y\",\"k\":\"b\"}}",
               "namespace property k is given twice");
    DECODE_BAD(REST_MEDIA_JSON, "{\"props\":{}}", "unknown NamespaceProperties member \"props\"");
    DECODE_BAD(REST_MEDIA_JSON, "{\"properties\":{},\"name\":\"ns\"}",
               "unknown NamespaceProperties member \"name\"");
    DECODE_BAD(REST_MEDIA_JSON, "[]", "NamespaceProperties is a JSON object");
    DECODE_BAD(REST_MEDIA_JSON, "{\"properties\":[]}", "properties must be an object");
    DECODE_BAD(REST_MEDIA_JSON, "{\"properties\":\"k=v\"}", "properties must be an object");
    DECODE_BAD(REST_MEDIA_JSON, "{\"properties\":{\"k\":{\"v\":1}}}",
               "namespace property k must be a string");
    DECODE_BAD(REST_MEDIA_JSON, "{\"properties\":{\"k\":null}}",
               "namespace property k must be a string");
    DECODE_BAD(REST_MEDIA_JSON, "{\"properties\":", "JSON");
    decode_bad(REST_MEDIA_TEXT, "k=v", 3, "cannot be read from text/plain");
}

/* ---- XML ---- */

static void test_xml_properties(void **state)
{
    rest_props p;
    DECODE_OK(REST_MEDIA_XML,
              "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><NamespaceProperties>"
              "<properties><entry><key>k</key><value>v</value></entry>\n<entry><key>a &amp; b"
              "</key><value>&lt;x&gt;</value></entry><entry><key>novalue</key></entry>"
              "</properties></NamespaceProperties>",
              &p);
    static const char *const want[] = {"k", "v", "a & b", "<x>", "novalue", ""};
    expect_props(&p, want, 3);
    rest_props_free(&p);

    static const char *const empty[] = {"<NamespaceProperties/>",
                                        "<NamespaceProperties><properties/></NamespaceProperties>"};
    for (size_t i = 0; i < N(empty); i++) {
        DECODE_OK(REST_MEDIA_XML, empty[i], &p);
        assert_int_equal(p.n, 0);
        rest_props_free(&p);
    }
}

static void test_xml_refusals(void **state)
{
    DECODE_BAD(REST_MEDIA_XML,
               "<NamespaceProperties><properties><entry><key>k</key><value>1</value></entry>"
               "<entry><key>k</key><value>2</value></entry></properties></NamespaceProperties>",
               "namespace property k is given twice");
    DECODE_BAD(REST_MEDIA_XML, "<NamespaceProperties><property/></NamespaceProperties>",
               "unexpected element <property> in <NamespaceProperties>");
    DECODE_BAD(REST_MEDIA_XML,
               "<NamespaceProperties><properties><item><key>k</key></item></properties>"
               "</NamespaceProperties>",
               "<properties> holds <entry>");
    DECODE_BAD(REST_MEDIA_XML,
               "<NamespaceProperties><properties><entry><value>v</value></entry></properties>"
               "</NamespaceProperties>",
               "<properties> holds <entry>");
    DECODE_BAD(REST_MEDIA_XML, "<Properties/>", "not <NamespaceProperties>");
    DECODE_BAD(REST_MEDIA_XML, "<NamespaceProperties>", "XML");
}

/* ---- protobuf ---- */

static uint8_t *pack_props(const char *const *kv, size_t n, size_t *len)
{
    Strata__Rest__NamespaceProperties__Property ps[8];
    Strata__Rest__NamespaceProperties__Property *pp[8];
    assert_true(n <= 8);
    for (size_t i = 0; i < n; i++) {
        Strata__Rest__NamespaceProperties__Property init =
            STRATA__REST__NAMESPACE_PROPERTIES__PROPERTY__INIT;
        ps[i] = init;
        ps[i].key = (char *)kv[2 * i];
        ps[i].value = (char *)kv[2 * i + 1];
        pp[i] = &ps[i];
    }
    Strata__Rest__NamespaceProperties m = STRATA__REST__NAMESPACE_PROPERTIES__INIT;
    m.props = pp;
    m.n_props = n;
    *len = strata__rest__namespace_properties__get_packed_size(&m);
    uint8_t *body = malloc(*len ? *len : 1);
    assert_non_null(body);
    strata__rest__namespace_properties__pack(&m, body);
    return body;
}

static void test_pb_properties(void **state)
{
    static const char *const kv[] = {"b", "2", "a", "1", "empty", ""};
    size_t len;
    uint8_t *body = pack_props(kv, 3, &len);
    static const rest_media pbs[] = {REST_MEDIA_PROTOBUF, REST_MEDIA_PROTOBUF_IETF};
    for (size_t k = 0; k < N(pbs); k++) {
        rest_props p;
        decode_ok(pbs[k], body, len, &p);
        expect_props(&p, kv, 3);
        rest_props_free(&p);
    }
    free(body);

    rest_props p;
    decode_ok(REST_MEDIA_PROTOBUF, "", 0, &p);
    assert_int_equal(p.n, 0);
    rest_props_free(&p);

    static const char *const dup[] = {"k", "1", "k", "2"};
    body = pack_props(dup, 2, &len);
    decode_bad(REST_MEDIA_PROTOBUF, body, len, "namespace property k is given twice");
    free(body);
    /* a property without its required value */
    decode_bad(REST_MEDIA_PROTOBUF, "\x0a\x03\x0a\x01k", 5, "not a protobuf NamespaceProperties");
    decode_bad(REST_MEDIA_PROTOBUF, "\xff", 1, "not a protobuf NamespaceProperties");
}

/* ---- what the gateway writes reads back ---- */

static void test_written_properties_read_back(void **state)
{
    strata_namespace_descriptor_t *nd = strata_namespace_descriptor_create("ns");
    assert_non_null(nd);
    static const char *const kv[] = {"quota", "10", "owner", "a \"b\" <c> & 'd'", "e", ""};
    for (size_t i = 0; i < 3; i++)
        assert_true(strata_namespace_descriptor_set(nd, kv[2 * i], kv[2 * i + 1]));
    static const rest_media ms[] = {REST_MEDIA_JSON, REST_MEDIA_XML, REST_MEDIA_PROTOBUF};
    for (size_t i = 0; i < N(ms); i++) {
        buf_t out = {0};
        assert_int_equal(rest_doc_props(ms[i], nd, &out), ST_OK);
        rest_props p;
        decode_ok(ms[i], out.data, out.len, &p);
        expect_props(&p, kv, 3);
        rest_props_free(&p);
        buf_free(&out);
    }
    strata_namespace_descriptor_destroy(nd);

    /* no properties */
    nd = strata_namespace_descriptor_create("empty");
    for (size_t i = 0; i < N(ms); i++) {
        buf_t out = {0};
        assert_int_equal(rest_doc_props(ms[i], nd, &out), ST_OK);
        rest_props p;
        decode_ok(ms[i], out.data ? (const void *)out.data : "", out.len, &p);
        assert_int_equal(p.n, 0);
        rest_props_free(&p);
        buf_free(&out);
    }
    strata_namespace_descriptor_destroy(nd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_properties_in_order),
        cmocka_unit_test(test_json_empty),
        cmocka_unit_test(test_json_refusals),
        cmocka_unit_test(test_xml_properties),
        cmocka_unit_test(test_xml_refusals),
        cmocka_unit_test(test_pb_properties),
        cmocka_unit_test(test_written_properties_read_back),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
