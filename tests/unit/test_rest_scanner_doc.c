/*
 * test_rest_scanner_doc.c - HBase's Scanner document (rest/rest_scanner_doc.c), the body
 * that opens a scanner, in JSON, XML and protobuf: start and end rows in base64, columns
 * as an array or a single string, batch, caching, maxVersions, startTime and endTime as
 * numbers or strings, the JSON filter string, reversed and cacheBlocks, null members
 * ignored, visibility labels refused as unsupported unless empty, and refusals of unknown
 * members, attributes and elements, negative or non-integer numbers, bad base64, columns
 * without a family and an empty time range.
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

#include "common/proto/rest.pb-c.h"
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

static void decode_ok(rest_media m, const void *body, size_t len, rest_scanner_doc *d)
{
    st_clear();
    int rc = rest_scanner_doc_decode(m, body, len, d);
    if (rc != ST_OK)
        fail_msg("Scanner '%.*s' refused: %s: %s", (int)len, (const char *)body, st_strerror(rc),
                 st_errmsg());
}

#define DECODE_OK(m, s, d) decode_ok((m), (s), strlen(s), (d))

/* Decoding must fail with code and a message holding frag; the document is left empty. */
static void decode_bad(rest_media m, const void *body, size_t len, int code, const char *frag)
{
    rest_scanner_doc d;
    st_clear();
    int rc = rest_scanner_doc_decode(m, body, len, &d);
    if (rc != code)
        fail_msg("Scanner '%.*s': got %s, want %s", (int)len, (const char *)body, st_strerror(rc),
                 st_strerror(code));
    if (!strstr(st_errmsg(), frag))
        fail_msg("Scanner '%.*s': message \"%s\" lacks \"%s\"", (int)len, (const char *)body,
                 st_errmsg(), frag);
    assert_null(d.start_row.data);
    assert_null(d.end_row.data);
    assert_null(d.columns);
    assert_null(d.filter);
}

#define DECODE_BAD(m, s, code, frag) decode_bad((m), (s), strlen(s), (code), (frag))

static void expect_defaults(const rest_scanner_doc *d)
{
    assert_null(d->start_row.data);
    assert_null(d->end_row.data);
    assert_int_equal(d->ncolumns, 0);
    assert_int_equal(d->batch, 0);
    assert_int_equal(d->caching, 0);
    assert_int_equal(d->max_versions, 0);
    assert_int_equal(d->start_time, 0);
    assert_int_equal(d->end_time, 0);
    assert_null(d->filter);
    assert_false(d->reversed);
    assert_true(d->cache_blocks);
}

/* ---- JSON ---- */

static void test_json_every_member(void **state)
{
    rest_scanner_doc d;
    DECODE_OK(REST_MEDIA_JSON,
              "{\"startRow\":\"YQ==\",\"endRow\":\"AP8=\",\"column\":[\"Y2Y6YQ==\",\"Y2Y=\"],"
              "\"batch\":10,\"caching\":\"100\",\"maxVersions\":2,\"startTime\":\"5\","
              "\"endTime\":1700000000000,\"filter\":\"{\\\"type\\\":\\\"KeyOnlyFilter\\\"}\","
              "\"reversed\":true,\"cacheBlocks\":false}",
              &d);
    EXPECT_STR(&d.start_row, "a");
    expect_bytes(&d.end_row, "\0\xff", 2);
    assert_int_equal(d.ncolumns, 2);
    EXPECT_STR(&d.columns[0], "cf:a");
    EXPECT_STR(&d.columns[1], "cf");
    assert_int_equal(d.batch, 10);
    assert_int_equal(d.caching, 100);
    assert_int_equal(d.max_versions, 2);
    assert_int_equal(d.start_time, 5);
    assert_int_equal(d.end_time, 1700000000000);
    assert_string_equal(d.filter, "{\"type\":\"KeyOnlyFilter\"}");
    assert_true(d.reversed);
    assert_false(d.cache_blocks);
    assert_int_equal(d.nlabels, 0);
    rest_scanner_doc_free(&d);
    assert_null(d.filter);
}

static void test_json_defaults_and_nulls(void **state)
{
    rest_scanner_doc d;
    DECODE_OK(REST_MEDIA_JSON, "{}", &d);
    expect_defaults(&d);
    rest_scanner_doc_free(&d);
    /* Jackson writes unset members as null */
    DECODE_OK(REST_MEDIA_JSON,
              "{\"startRow\":null,\"endRow\":null,\"batch\":null,\"caching\":null,\"filter\":null,"
              "\"startTime\":null,\"endTime\":null,\"maxVersions\":null,\"reversed\":null,"
              "\"cacheBlocks\":null,\"labels\":null}",
              &d);
    expect_defaults(&d);
    rest_scanner_doc_free(&d);
    /* an empty startRow is the first row, an empty filter none */
    DECODE_OK(REST_MEDIA_JSON, "{\"startRow\":\"\",\"filter\":\"\",\"labels\":[]}", &d);
    expect_bytes(&d.start_row, "", 0);
    assert_null(d.filter);
    rest_scanner_doc_free(&d);
}

static void test_json_single_column_string(void **state)
{
    rest_scanner_doc d;
    DECODE_OK(REST_MEDIA_JSON, "{\"column\":\"Y2Y6YQ==\"}", &d);
    assert_int_equal(d.ncolumns, 1);
    EXPECT_STR(&d.columns[0], "cf:a");
    rest_scanner_doc_free(&d);
    DECODE_OK(REST_MEDIA_JSON, "{\"column\":[]}", &d);
    assert_int_equal(d.ncolumns, 0);
    rest_scanner_doc_free(&d);
}

static void test_json_booleans_as_strings(void **state)
{
    rest_scanner_doc d;
    DECODE_OK(REST_MEDIA_JSON, "{\"reversed\":\"TRUE\",\"cacheBlocks\":\"false\"}", &d);
    assert_true(d.reversed);
    assert_false(d.cache_blocks);
    rest_scanner_doc_free(&d);
    DECODE_BAD(REST_MEDIA_JSON, "{\"reversed\":1}", ST_INVALID_ARGUMENT,
               "reversed must be true or false");
    DECODE_BAD(REST_MEDIA_JSON, "{\"cacheBlocks\":\"yes\"}", ST_INVALID_ARGUMENT,
               "cacheBlocks must be true or false");
}

static void test_json_labels_refused_unless_empty(void **state)
{
    DECODE_BAD(REST_MEDIA_JSON, "{\"labels\":[\"secret\"]}", ST_UNSUPPORTED, "visibility labels");
    DECODE_BAD(REST_MEDIA_JSON, "{\"labels\":\"secret\"}", ST_UNSUPPORTED, "visibility labels");
    DECODE_BAD(REST_MEDIA_JSON, "{\"startRow\":\"YQ==\",\"labels\":[\"\"]}", ST_UNSUPPORTED,
               "not supported by Strata");
}

static void test_json_unknown_members_refused(void **state)
{
    DECODE_BAD(REST_MEDIA_JSON, "{\"startrow\":\"YQ==\"}", ST_INVALID_ARGUMENT,
               "unknown Scanner member \"startrow\"");
    DECODE_BAD(REST_MEDIA_JSON, "{\"batch\":1,\"limit\":5}", ST_INVALID_ARGUMENT,
               "unknown Scanner member \"limit\"");
    DECODE_BAD(REST_MEDIA_JSON, "[]", ST_INVALID_ARGUMENT, "a Scanner is a JSON object");
    DECODE_BAD(REST_MEDIA_JSON, "{\"filter\":{\"type\":\"KeyOnlyFilter\"}}", ST_INVALID_ARGUMENT,
               "filter must be a string, number or boolean");
    DECODE_BAD(REST_MEDIA_JSON, "{\"batch\":", ST_INVALID_ARGUMENT, "JSON");
}

static void test_json_bad_numbers_refused(void **state)
{
    static const struct {
        const char *doc;
        const char *frag;
    } bad[] = {
        {"{\"batch\":-1}", "batch '-1' is not an integer in [0, 2147483647]"},
        {"{\"caching\":\"-5\"}", "caching '-5'"},
        {"{\"maxVersions\":2147483648}", "maxVersions '2147483648'"},
        {"{\"startTime\":-1}", "startTime '-1'"},
        {"{\"endTime\":\"-1\"}", "endTime '-1'"},
        {"{\"batch\":1.5}", "batch '1.5'"},
        {"{\"batch\":\"ten\"}", "batch 'ten'"},
        {"{\"batch\":\"\"}", "batch is not an integer"},
        {"{\"batch\":true}", "batch 'true'"},
        {"{\"startTime\":99999999999999999999}", "is not an integer"},
        /* regression: strtoll's leading blanks and '+' are not integers here */
        {"{\"batch\":\" 5\"}", "batch ' 5'"},
        {"{\"caching\":\"+5\"}", "caching '+5'"},
        {"{\"column\":5}", "column must be an array"},
        {"{\"column\":[\"Y2Y=\",5]}", "column 1 is not a string"},
        {"{\"column\":[\"OnE=\"]}", "column 0 names no family"},
        {"{\"column\":[\"\"]}", "column 0 names no family"},
        {"{\"startRow\":\"YQ\"}", ""},
        {"{\"startRow\":\"Y!==\"}", "startRow is not valid base64"},
        {"{\"endRow\":5}", "endRow is not valid base64"},
        {"{\"column\":\"Y2Y6YQ=\"}", "column is not valid base64"},
    };
    for (size_t i = 0; i < N(bad); i++) {
        if (!bad[i].frag[0]) { /* unpadded base64 is accepted, as Java's decoder does */
            rest_scanner_doc d;
            DECODE_OK(REST_MEDIA_JSON, bad[i].doc, &d);
            EXPECT_STR(&d.start_row, "a");
            rest_scanner_doc_free(&d);
            continue;
        }
        DECODE_BAD(REST_MEDIA_JSON, bad[i].doc, ST_INVALID_ARGUMENT, bad[i].frag);
    }
}

static void test_time_range_empty_refused(void **state)
{
    DECODE_BAD(REST_MEDIA_JSON, "{\"startTime\":10,\"endTime\":10}", ST_INVALID_ARGUMENT,
               "time range [10, 10) is empty");
    DECODE_BAD(REST_MEDIA_JSON, "{\"startTime\":10,\"endTime\":5}", ST_INVALID_ARGUMENT,
               "is empty");
    DECODE_BAD(REST_MEDIA_XML, "<Scanner startTime=\"7\" endTime=\"3\"/>", ST_INVALID_ARGUMENT,
               "is empty");
    /* an end of 0 is no end */
    rest_scanner_doc d;
    DECODE_OK(REST_MEDIA_JSON, "{\"startTime\":10,\"endTime\":0}", &d);
    assert_int_equal(d.start_time, 10);
    assert_int_equal(d.end_time, 0);
    rest_scanner_doc_free(&d);
    DECODE_OK(REST_MEDIA_JSON, "{\"startTime\":10,\"endTime\":11}", &d);
    assert_int_equal(d.end_time, 11);
    rest_scanner_doc_free(&d);
}

/* ---- XML ---- */

static void test_xml_every_member(void **state)
{
    rest_scanner_doc d;
    DECODE_OK(REST_MEDIA_XML,
              "<?xml version=\"1.0\"?><Scanner startRow=\"YQ==\" endRow=\"eg==\" batch=\"10\" "
              "caching=\"20\" maxVersions=\"3\" startTime=\"1\" endTime=\"9\" reversed=\"true\" "
              "cacheBlocks=\"false\"><column>Y2Y6YQ==</column><column>Y2Y=</column>"
              "<filter>{\"type\":\"PrefixFilter\",\"value\":\"YQ==\"}</filter><labels/></Scanner>",
              &d);
    EXPECT_STR(&d.start_row, "a");
    EXPECT_STR(&d.end_row, "z");
    assert_int_equal(d.ncolumns, 2);
    EXPECT_STR(&d.columns[0], "cf:a");
    EXPECT_STR(&d.columns[1], "cf");
    assert_int_equal(d.batch, 10);
    assert_int_equal(d.caching, 20);
    assert_int_equal(d.max_versions, 3);
    assert_int_equal(d.start_time, 1);
    assert_int_equal(d.end_time, 9);
    assert_true(d.reversed);
    assert_false(d.cache_blocks);
    assert_string_equal(d.filter, "{\"type\":\"PrefixFilter\",\"value\":\"YQ==\"}");
    rest_scanner_doc_free(&d);

    DECODE_OK(REST_MEDIA_XML, "<Scanner/>", &d);
    expect_defaults(&d);
    rest_scanner_doc_free(&d);
    /* entities in the filter text are decoded */
    DECODE_OK(REST_MEDIA_XML,
              "<Scanner><filter>{&quot;type&quot;:&quot;KeyOnlyFilter&quot;}"
              "</filter></Scanner>",
              &d);
    assert_string_equal(d.filter, "{\"type\":\"KeyOnlyFilter\"}");
    rest_scanner_doc_free(&d);
}

static void test_xml_refusals(void **state)
{
    DECODE_BAD(REST_MEDIA_XML, "<Scanner><labels>secret</labels></Scanner>", ST_UNSUPPORTED,
               "visibility labels");
    DECODE_BAD(REST_MEDIA_XML, "<Scanner limit=\"5\"/>", ST_INVALID_ARGUMENT,
               "unknown Scanner attribute limit");
    DECODE_BAD(REST_MEDIA_XML, "<Scanner><startRow>YQ==</startRow></Scanner>", ST_INVALID_ARGUMENT,
               "unexpected element <startRow>");
    DECODE_BAD(REST_MEDIA_XML, "<Scan/>", ST_INVALID_ARGUMENT, "not <Scanner>");
    DECODE_BAD(REST_MEDIA_XML, "<Scanner batch=\"-2\"/>", ST_INVALID_ARGUMENT, "batch '-2'");
    DECODE_BAD(REST_MEDIA_XML, "<Scanner startTime=\"-2\"/>", ST_INVALID_ARGUMENT,
               "startTime '-2'");
    DECODE_BAD(REST_MEDIA_XML, "<Scanner><column>OnE=</column></Scanner>", ST_INVALID_ARGUMENT,
               "names no family");
    DECODE_BAD(REST_MEDIA_XML, "<Scanner reversed=\"1\"/>", ST_INVALID_ARGUMENT,
               "reversed must be true or false");
    DECODE_BAD(REST_MEDIA_XML, "<Scanner startRow=\"%%%%\"/>", ST_INVALID_ARGUMENT,
               "startRow is not valid base64");
    decode_bad(REST_MEDIA_TEXT, "x", 1, ST_INVALID_ARGUMENT, "cannot be read from text/plain");
}

/* ---- protobuf ---- */

static uint8_t *pack_scanner(const Strata__Rest__Scanner *m, size_t *len)
{
    *len = strata__rest__scanner__get_packed_size(m);
    uint8_t *p = malloc(*len ? *len : 1);
    assert_non_null(p);
    assert_int_equal(strata__rest__scanner__pack(m, p), *len);
    return p;
}

static void test_pb_every_field(void **state)
{
    ProtobufCBinaryData cols[] = {{4, (uint8_t *)"cf:a"}, {2, (uint8_t *)"cf"}};
    Strata__Rest__Scanner m = STRATA__REST__SCANNER__INIT;
    m.has_startrow = m.has_endrow = true;
    m.startrow = (ProtobufCBinaryData){1, (uint8_t *)"a"};
    m.endrow = (ProtobufCBinaryData){2, (uint8_t *)"\0\xff"};
    m.columns = cols;
    m.n_columns = 2;
    m.has_batch = m.has_caching = m.has_maxversions = m.has_starttime = m.has_endtime = true;
    m.batch = 10;
    m.caching = 100;
    m.maxversions = 4;
    m.starttime = 2;
    m.endtime = 1700000000000;
    m.filter = "{\"type\":\"FirstKeyOnlyFilter\"}";
    m.has_reversed = m.has_cacheblocks = true;
    m.reversed = true;
    m.cacheblocks = false;
    size_t len;
    uint8_t *body = pack_scanner(&m, &len);
    static const rest_media pbs[] = {REST_MEDIA_PROTOBUF, REST_MEDIA_PROTOBUF_IETF};
    for (size_t k = 0; k < N(pbs); k++) {
        rest_scanner_doc d;
        decode_ok(pbs[k], body, len, &d);
        EXPECT_STR(&d.start_row, "a");
        expect_bytes(&d.end_row, "\0\xff", 2);
        assert_int_equal(d.ncolumns, 2);
        EXPECT_STR(&d.columns[0], "cf:a");
        EXPECT_STR(&d.columns[1], "cf");
        assert_int_equal(d.batch, 10);
        assert_int_equal(d.caching, 100);
        assert_int_equal(d.max_versions, 4);
        assert_int_equal(d.start_time, 2);
        assert_int_equal(d.end_time, 1700000000000);
        assert_string_equal(d.filter, "{\"type\":\"FirstKeyOnlyFilter\"}");
        assert_true(d.reversed);
        assert_false(d.cache_blocks);
        rest_scanner_doc_free(&d);
    }
    free(body);

    /* an empty message: the defaults */
    rest_scanner_doc d;
    decode_ok(REST_MEDIA_PROTOBUF, "", 0, &d);
    expect_defaults(&d);
    rest_scanner_doc_free(&d);
}

static void test_pb_empty_rows(void **state)
{
    /* present but empty start and end rows */
    Strata__Rest__Scanner m = STRATA__REST__SCANNER__INIT;
    m.has_startrow = m.has_endrow = true;
    m.startrow = (ProtobufCBinaryData){0, NULL};
    m.endrow = (ProtobufCBinaryData){0, NULL};
    m.filter = "";
    size_t len;
    uint8_t *body = pack_scanner(&m, &len);
    rest_scanner_doc d;
    decode_ok(REST_MEDIA_PROTOBUF, body, len, &d);
    expect_bytes(&d.start_row, "", 0);
    expect_bytes(&d.end_row, "", 0);
    assert_null(d.filter);
    rest_scanner_doc_free(&d);
    free(body);
}

static void test_pb_refusals(void **state)
{
    Strata__Rest__Scanner m = STRATA__REST__SCANNER__INIT;
    size_t len;
    uint8_t *body;
    /* each negative field */
    for (int f = 0; f < 5; f++) {
        Strata__Rest__Scanner n = m;
        if (f == 0)
            n.has_batch = true, n.batch = -1;
        else if (f == 1)
            n.has_caching = true, n.caching = -1;
        else if (f == 2)
            n.has_maxversions = true, n.maxversions = -1;
        else if (f == 3)
            n.has_starttime = true, n.starttime = -1;
        else
            n.has_endtime = true, n.endtime = -1;
        body = pack_scanner(&n, &len);
        decode_bad(REST_MEDIA_PROTOBUF, body, len, ST_INVALID_ARGUMENT, "must not be negative");
        free(body);
    }
    char *labels[] = {"secret"};
    Strata__Rest__Scanner l = m;
    l.labels = labels;
    l.n_labels = 1;
    body = pack_scanner(&l, &len);
    decode_bad(REST_MEDIA_PROTOBUF, body, len, ST_UNSUPPORTED, "visibility labels");
    free(body);

    ProtobufCBinaryData nofam[] = {{2, (uint8_t *)":q"}};
    Strata__Rest__Scanner c = m;
    c.columns = nofam;
    c.n_columns = 1;
    body = pack_scanner(&c, &len);
    decode_bad(REST_MEDIA_PROTOBUF, body, len, ST_INVALID_ARGUMENT, "column 0 names no family");
    free(body);

    Strata__Rest__Scanner t = m;
    t.has_starttime = t.has_endtime = true;
    t.starttime = 9;
    t.endtime = 9;
    body = pack_scanner(&t, &len);
    decode_bad(REST_MEDIA_PROTOBUF, body, len, ST_INVALID_ARGUMENT, "is empty");
    free(body);

    decode_bad(REST_MEDIA_PROTOBUF, "\x0a\x05YQ", 4, ST_INVALID_ARGUMENT, "not a protobuf Scanner");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_every_member),
        cmocka_unit_test(test_json_defaults_and_nulls),
        cmocka_unit_test(test_json_single_column_string),
        cmocka_unit_test(test_json_booleans_as_strings),
        cmocka_unit_test(test_json_labels_refused_unless_empty),
        cmocka_unit_test(test_json_unknown_members_refused),
        cmocka_unit_test(test_json_bad_numbers_refused),
        cmocka_unit_test(test_time_range_empty_refused),
        cmocka_unit_test(test_xml_every_member),
        cmocka_unit_test(test_xml_refusals),
        cmocka_unit_test(test_pb_every_field),
        cmocka_unit_test(test_pb_empty_rows),
        cmocka_unit_test(test_pb_refusals),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
