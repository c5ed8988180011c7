/*
 * test_rest_cellset.c - HBase's CellSet document (rest/rest_cellset.c). Reading, in JSON,
 * XML and protobuf (bodies built with the generated protobuf-c code of
 * common/proto/rest.proto): rows without keys, cells without columns (the path's column
 * then applies), timestamps as numbers and strings, keys, columns and values of every
 * byte value through base64, a single object where JSON has an array, the empty CellSet,
 * and refusals (unknown members, attributes and elements, wrong JSON types, bad base64
 * with a message naming the row and cell, bad timestamps, broken protobuf). Writing, in
 * the three media: what the writer emits decodes back to the cells given (binary keys,
 * qualifiers and values, several rows and cells per row, a row continued after a flush
 * point as a new row element), HBase's JSON shape, the XML declaration, the empty
 * document, and the protobuf stream of 4-byte big-endian lengths each followed by a
 * CellSet message that protobuf-c unpacks.
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

#include "common/base64.h"
#include "common/buf.h"
#include "common/proto/rest.pb-c.h"
#include "common/status.h"
#include "rest/rest_internal.h"
#include "tests/support/testutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define XML_DECL "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>"

static const char *media_label(rest_media m)
{
    return m == REST_MEDIA_JSON ? "JSON" : m == REST_MEDIA_XML ? "XML" : "protobuf";
}

static void expect_bytes(const rest_bytes *b, const void *want, size_t n)
{
    assert_non_null(b->data);
    assert_int_equal(b->len, n);
    if (n)
        assert_memory_equal(b->data, want, n);
}

#define EXPECT_STR(b, s) expect_bytes((b), (s), sizeof(s) - 1)

/* Decodes body (a C string), which must succeed. */
static void decode_ok(rest_media m, const void *body, size_t len, rest_cellset *cs)
{
    st_clear();
    int rc = rest_cellset_decode(m, body, len, cs);
    if (rc != ST_OK)
        fail_msg("%s CellSet refused: %s: %s", media_label(m), st_strerror(rc), st_errmsg());
}

#define DECODE_OK(m, s, cs) decode_ok((m), (s), strlen(s), (cs))

/* Decodes body, which must fail with ST_INVALID_ARGUMENT and a message holding each of
 * the NULL-terminated fragments; the CellSet is left empty. */
static void decode_bad(rest_media m, const void *body, size_t len, ...)
{
    rest_cellset cs;
    st_clear();
    int rc = rest_cellset_decode(m, body, len, &cs);
    if (rc != ST_INVALID_ARGUMENT)
        fail_msg("%s CellSet '%.*s': got %s, want invalid argument", media_label(m), (int)len,
                 (const char *)body, st_strerror(rc));
    assert_null(cs.rows);
    assert_int_equal(cs.nrows, 0);
    va_list ap;
    va_start(ap, len);
    for (const char *frag = va_arg(ap, const char *); frag; frag = va_arg(ap, const char *))
        if (!strstr(st_errmsg(), frag))
            fail_msg("%s CellSet '%.*s': message \"%s\" lacks \"%s\"", media_label(m), (int)len,
                     (const char *)body, st_errmsg(), frag);
    va_end(ap);
}

#define DECODE_BAD(m, s, ...) decode_bad((m), (s), strlen(s), __VA_ARGS__, NULL)

/* base64 of p[0..n) as a malloc'ed C string */
static char *b64(const void *p, size_t n)
{
    buf_t b = {0};
    assert_int_equal(base64_encode(&b, p, n), ST_OK);
    assert_int_equal(buf_append_u8(&b, 0), ST_OK);
    return (char *)b.data;
}

/* the bytes 0..255, in order or reversed */
static void all_bytes(uint8_t *out, bool reversed)
{
    for (int i = 0; i < 256; i++)
        out[i] = (uint8_t)(reversed ? 255 - i : i);
}

/* ---- reading JSON ---- */

static void test_json_basic(void **state)
{
    rest_cellset cs;
    DECODE_OK(REST_MEDIA_JSON,
              "{\"Row\":[{\"key\":\"cm93\",\"Cell\":[{\"column\":\"Y2Y6YQ==\",\"timestamp\":5,"
              "\"$\":\"dg==\"},{\"column\":\"Y2Y6Yg==\",\"$\":\"\"}]},"
              "{\"key\":\"cjE=\",\"Cell\":[]}]}",
              &cs);
    assert_int_equal(cs.nrows, 2);
    rest_row *r = &cs.rows[0];
    assert_true(r->has_key);
    EXPECT_STR(&r->key, "row");
    assert_int_equal(r->ncells, 2);
    assert_true(r->cells[0].has_column);
    EXPECT_STR(&r->cells[0].column, "cf:a");
    assert_int_equal(r->cells[0].ts, 5);
    assert_true(r->cells[0].has_value);
    EXPECT_STR(&r->cells[0].value, "v");
    EXPECT_STR(&r->cells[1].column, "cf:b");
    assert_true(r->cells[1].ts == INT64_MAX); /* not given */
    assert_true(r->cells[1].has_value);
    EXPECT_STR(&r->cells[1].value, "");
    EXPECT_STR(&cs.rows[1].key, "r1");
    assert_int_equal(cs.rows[1].ncells, 0);
    rest_cellset_free(&cs);
    assert_null(cs.rows);
    assert_int_equal(cs.nrows, 0);
}

static void test_json_row_without_key_cell_without_column(void **state)
{
    rest_cellset cs;
    DECODE_OK(REST_MEDIA_JSON, "{\"Row\":[{\"Cell\":[{\"$\":\"dg==\"},{\"column\":\"Y2Y=\"}]}]}",
              &cs);
    assert_int_equal(cs.nrows, 1);
    assert_false(cs.rows[0].has_key);
    assert_null(cs.rows[0].key.data);
    assert_int_equal(cs.rows[0].ncells, 2);
    rest_cell *c = &cs.rows[0].cells[0];
    assert_false(c->has_column);
    assert_null(c->column.data);
    assert_true(c->has_value);
    EXPECT_STR(&c->value, "v");
    c = &cs.rows[0].cells[1];
    assert_true(c->has_column);
    EXPECT_STR(&c->column, "cf");
    assert_false(c->has_value); /* no "$" */
    rest_cellset_free(&cs);

    /* a row with only a key */
    DECODE_OK(REST_MEDIA_JSON, "{\"Row\":[{\"key\":\"cg==\"}]}", &cs);
    assert_int_equal(cs.nrows, 1);
    EXPECT_STR(&cs.rows[0].key, "r");
    assert_int_equal(cs.rows[0].ncells, 0);
    rest_cellset_free(&cs);
}

static void test_json_timestamps_numbers_and_strings(void **state)
{
    static const struct {
        const char *ts;
        int64_t want;
    } ok[] = {{"7", 7},         {"\"7\"", 7},
              {"0", 0},         {"\"1700000000000\"", 1700000000000},
              {"-5", -5},       {"9223372036854775806", INT64_MAX - 1},
              {"\"-12\"", -12}, {"1700000000001", 1700000000001}};
    for (size_t i = 0; i < N(ok); i++) {
        char doc[256];
        snprintf(doc, sizeof(doc),
                 "{\"Row\":[{\"key\":\"cg==\",\"Cell\":[{\"column\":\"Y2Y6YQ==\",\"timestamp\":%s,"
                 "\"$\":\"dg==\"}]}]}",
                 ok[i].ts);
        rest_cellset cs;
        DECODE_OK(REST_MEDIA_JSON, doc, &cs);
        if (cs.rows[0].cells[0].ts != ok[i].want)
            fail_msg("timestamp %s read as %lld", ok[i].ts, (long long)cs.rows[0].cells[0].ts);
        rest_cellset_free(&cs);
    }
}

static void test_json_bad_timestamps_refused(void **state)
{
    static const struct {
        const char *ts;
        const char *frag;
    } bad[] = {
        {"1.5", "is not an integer"},
        {"1e3", "is not an integer"},
        {"\"x\"", "is not an integer"},
        {"\"\"", "is not an integer"},
        {"\" 5\"", "is not an integer"},
        {"\"5 \"", "is not an integer"},
        {"\"+5\"", "is not an integer"},
        {"99999999999999999999", "is not an integer"},
        {"-99999999999999999999", "is not an integer"},
        {"true", "timestamp must be a number"},
        {"null", "timestamp must be a number"},
        {"[1]", "timestamp must be a number"},
    };
    for (size_t i = 0; i < N(bad); i++) {
        char doc[256];
        snprintf(doc, sizeof(doc),
                 "{\"Row\":[{\"key\":\"cg==\",\"Cell\":[{\"column\":\"Y2Y6YQ==\",\"timestamp\":%s,"
                 "\"$\":\"dg==\"}]}]}",
                 bad[i].ts);
        DECODE_BAD(REST_MEDIA_JSON, doc, "Row 0, Cell 0", bad[i].frag);
    }
}

static void test_json_single_object_for_array(void **state)
{
    rest_cellset cs;
    DECODE_OK(REST_MEDIA_JSON,
              "{\"Row\":{\"key\":\"cm93\",\"Cell\":{\"column\":\"Y2Y6YQ==\",\"timestamp\":\"3\","
              "\"$\":\"dg==\"}}}",
              &cs);
    assert_int_equal(cs.nrows, 1);
    EXPECT_STR(&cs.rows[0].key, "row");
    assert_int_equal(cs.rows[0].ncells, 1);
    EXPECT_STR(&cs.rows[0].cells[0].column, "cf:a");
    assert_int_equal(cs.rows[0].cells[0].ts, 3);
    EXPECT_STR(&cs.rows[0].cells[0].value, "v");
    rest_cellset_free(&cs);
}

static void test_json_empty_cellset(void **state)
{
    static const char *const docs[] = {"{}", "{\"Row\":[]}", " { \"Row\" : [ ] } "};
    for (size_t i = 0; i < N(docs); i++) {
        rest_cellset cs;
        DECODE_OK(REST_MEDIA_JSON, docs[i], &cs);
        assert_int_equal(cs.nrows, 0);
        rest_cellset_free(&cs);
    }
}

static void test_json_every_byte_round_trips_base64(void **state)
{
    uint8_t key[256], val[256];
    all_bytes(key, false);
    all_bytes(val, true);
    uint8_t col[3 + 256] = {'c', 'f', ':'};
    all_bytes(col + 3, false);
    char *bk = b64(key, sizeof(key)), *bc = b64(col, sizeof(col)), *bv = b64(val, sizeof(val));
    size_t cap = strlen(bk) + strlen(bc) + strlen(bv) + 128;
    char *doc = malloc(cap);
    assert_non_null(doc);
    snprintf(doc, cap, "{\"Row\":[{\"key\":\"%s\",\"Cell\":[{\"column\":\"%s\",\"$\":\"%s\"}]}]}",
             bk, bc, bv);
    rest_cellset cs;
    DECODE_OK(REST_MEDIA_JSON, doc, &cs);
    expect_bytes(&cs.rows[0].key, key, sizeof(key));
    expect_bytes(&cs.rows[0].cells[0].column, col, sizeof(col));
    expect_bytes(&cs.rows[0].cells[0].value, val, sizeof(val));
    rest_cellset_free(&cs);

    /* one value per byte */
    for (int c = 0; c < 256; c++) {
        uint8_t one = (uint8_t)c;
        char *bo = b64(&one, 1);
        snprintf(doc, cap,
                 "{\"Row\":[{\"key\":\"%s\",\"Cell\":[{\"column\":\"Y2Y6YQ==\",\"$\":"
                 "\"%s\"}]}]}",
                 bo, bo);
        DECODE_OK(REST_MEDIA_JSON, doc, &cs);
        expect_bytes(&cs.rows[0].key, &one, 1);
        expect_bytes(&cs.rows[0].cells[0].value, &one, 1);
        rest_cellset_free(&cs);
        free(bo);
    }
    free(doc);
    free(bk);
    free(bc);
    free(bv);
}

static void test_json_unknown_members_refused(void **state)
{
    DECODE_BAD(REST_MEDIA_JSON, "{\"Row\":[],\"Extra\":1}", "unknown member \"Extra\"");
    DECODE_BAD(REST_MEDIA_JSON, "{\"row\":[]}", "unknown member \"row\"");
    DECODE_BAD(REST_MEDIA_JSON, "{\"Row\":[{\"key\":\"cg==\",\"Cells\":[]}]}", "Row 0",
               "unknown member \"Cells\"");
    DECODE_BAD(REST_MEDIA_JSON,
               "{\"Row\":[{\"key\":\"cg==\"},{\"key\":\"cg==\",\"Cell\":[{\"$\":\"dg==\"},"
               "{\"$\":\"dg==\",\"ts\":1}]}]}",
               "Row 1, Cell 1", "unknown member \"ts\"");
}

static void test_json_wrong_types_refused(void **state)
{
    DECODE_BAD(REST_MEDIA_JSON, "[]", "a CellSet is a JSON object");
    DECODE_BAD(REST_MEDIA_JSON, "{\"Row\":5}", "Row must be an array");
    DECODE_BAD(REST_MEDIA_JSON, "{\"Row\":[5]}", "Row 0 is a JSON number");
    DECODE_BAD(REST_MEDIA_JSON, "{\"Row\":[{\"key\":5}]}", "Row 0: key must be a base64 string");
    DECODE_BAD(REST_MEDIA_JSON, "{\"Row\":[{\"Cell\":\"x\"}]}", "Row 0: Cell must be an array");
    DECODE_BAD(REST_MEDIA_JSON, "{\"Row\":[{\"Cell\":[[]]}]}", "Row 0, Cell 0 is a JSON array");
    DECODE_BAD(REST_MEDIA_JSON, "{\"Row\":[{\"Cell\":[{\"column\":1}]}]}",
               "\"column\" must be a base64 string");
    DECODE_BAD(REST_MEDIA_JSON, "{\"Row\":[{\"Cell\":[{\"$\":null}]}]}",
               "\"$\" must be a base64 string");
    DECODE_BAD(REST_MEDIA_JSON, "{\"Row\":[{\"Cell\":[],\"Cell\":[]}]}", "Cell is given twice");
    DECODE_BAD(REST_MEDIA_JSON, "{\"Row\":[", "JSON");
    DECODE_BAD(REST_MEDIA_JSON, "", "JSON");
}

static void test_json_duplicate_members_refused(void **state)
{
    /* a repeated key, column or value would replace the first (and leaked it) */
    DECODE_BAD(REST_MEDIA_JSON, "{\"Row\":[{\"key\":\"cg==\",\"key\":\"eA==\"}]}", "Row 0",
               "key is given twice");
    DECODE_BAD(REST_MEDIA_JSON,
               "{\"Row\":[{\"Cell\":[{\"column\":\"Y2Y6YQ==\",\"column\":\"Y2Y6Yg==\"}]}]}",
               "Row 0, Cell 0", "column is given twice");
    DECODE_BAD(REST_MEDIA_JSON, "{\"Row\":[{\"Cell\":[{\"$\":\"dg==\",\"$\":\"eA==\"}]}]}",
               "Row 0, Cell 0", "$ is given twice");
    DECODE_BAD(REST_MEDIA_JSON,
               "{\"Row\":[{\"Cell\":[{\"timestamp\":1,\"$\":\"dg==\",\"timestamp\":2}]}]}",
               "Row 0, Cell 0", "timestamp is given twice");
    /* rows in a second "Row" member would be dropped silently */
    DECODE_BAD(REST_MEDIA_JSON, "{\"Row\":[{\"key\":\"cg==\"}],\"Row\":[{\"key\":\"eA==\"}]}",
               "Row is given twice");
}

static void test_json_bad_base64_names_row_and_cell(void **state)
{
    DECODE_BAD(REST_MEDIA_JSON, "{\"Row\":[{\"key\":\"cg==\"},{\"key\":\"c!==\"}]}",
               "Row 1: key is not valid base64");
    DECODE_BAD(REST_MEDIA_JSON,
               "{\"Row\":[{\"key\":\"cg==\"},{\"key\":\"cg==\",\"Cell\":[{\"$\":\"dg==\"},"
               "{\"$\":\"dg==\"},{\"column\":\"Y2Y6YQ\",\"$\":\"d g==\"}]}]}",
               "Row 1, Cell 2: value ($) is not valid base64");
    DECODE_BAD(REST_MEDIA_JSON, "{\"Row\":[{\"Cell\":[{\"column\":\"Y2Y6YQ=x\"}]}]}",
               "Row 0, Cell 0: column is not valid base64");
}

/* ---- reading XML ---- */

static void test_xml_basic(void **state)
{
    rest_cellset cs;
    DECODE_OK(REST_MEDIA_XML,
              XML_DECL "<CellSet><Row key=\"cm93\"><Cell column=\"Y2Y6YQ==\" timestamp=\"5\">dg=="
                       "</Cell><Cell column=\"Y2Y6Yg==\">\n  djE=\n</Cell><Cell column=\"Y2Y=\"/>"
                       "</Row>\n<Row key=\"cjE=\"></Row></CellSet>",
              &cs);
    assert_int_equal(cs.nrows, 2);
    rest_row *r = &cs.rows[0];
    EXPECT_STR(&r->key, "row");
    assert_int_equal(r->ncells, 3);
    EXPECT_STR(&r->cells[0].column, "cf:a");
    assert_int_equal(r->cells[0].ts, 5);
    EXPECT_STR(&r->cells[0].value, "v");
    EXPECT_STR(&r->cells[1].column, "cf:b");
    assert_true(r->cells[1].ts == INT64_MAX);
    EXPECT_STR(&r->cells[1].value, "v1"); /* whitespace around the text is not base64 */
    EXPECT_STR(&r->cells[2].column, "cf");
    assert_true(r->cells[2].has_value);
    EXPECT_STR(&r->cells[2].value, "");
    EXPECT_STR(&cs.rows[1].key, "r1");
    assert_int_equal(cs.rows[1].ncells, 0);
    rest_cellset_free(&cs);
}

static void test_xml_row_without_key_cell_without_column(void **state)
{
    rest_cellset cs;
    DECODE_OK(REST_MEDIA_XML, "<CellSet><Row><Cell timestamp=\"-3\">dg==</Cell></Row></CellSet>",
              &cs);
    assert_int_equal(cs.nrows, 1);
    assert_false(cs.rows[0].has_key);
    assert_false(cs.rows[0].cells[0].has_column);
    assert_int_equal(cs.rows[0].cells[0].ts, -3);
    EXPECT_STR(&cs.rows[0].cells[0].value, "v");
    rest_cellset_free(&cs);
}

static void test_xml_empty_cellset(void **state)
{
    static const char *const docs[] = {"<CellSet/>", XML_DECL "<CellSet></CellSet>",
                                       "<CellSet>\n  <!-- nothing -->\n</CellSet>"};
    for (size_t i = 0; i < N(docs); i++) {
        rest_cellset cs;
        DECODE_OK(REST_MEDIA_XML, docs[i], &cs);
        assert_int_equal(cs.nrows, 0);
        rest_cellset_free(&cs);
    }
}

static void test_xml_every_byte_round_trips_base64(void **state)
{
    uint8_t key[256], val[256];
    all_bytes(key, true);
    all_bytes(val, false);
    uint8_t col[3 + 256] = {'c', 'f', ':'};
    all_bytes(col + 3, true);
    char *bk = b64(key, sizeof(key)), *bc = b64(col, sizeof(col)), *bv = b64(val, sizeof(val));
    size_t cap = strlen(bk) + strlen(bc) + strlen(bv) + 128;
    char *doc = malloc(cap);
    assert_non_null(doc);
    snprintf(doc, cap, "<CellSet><Row key=\"%s\"><Cell column=\"%s\">%s</Cell></Row></CellSet>", bk,
             bc, bv);
    rest_cellset cs;
    DECODE_OK(REST_MEDIA_XML, doc, &cs);
    expect_bytes(&cs.rows[0].key, key, sizeof(key));
    expect_bytes(&cs.rows[0].cells[0].column, col, sizeof(col));
    expect_bytes(&cs.rows[0].cells[0].value, val, sizeof(val));
    rest_cellset_free(&cs);
    free(doc);
    free(bk);
    free(bc);
    free(bv);
}

static void test_xml_unknown_parts_refused(void **state)
{
    DECODE_BAD(REST_MEDIA_XML, "<Cells/>", "not <CellSet>");
    DECODE_BAD(REST_MEDIA_XML, "<CellSet version=\"1\"/>", "takes no attributes");
    DECODE_BAD(REST_MEDIA_XML, "<CellSet>text</CellSet>", "takes no attributes or text");
    DECODE_BAD(REST_MEDIA_XML, "<CellSet><Rows/></CellSet>", "unexpected element <Rows>");
    DECODE_BAD(REST_MEDIA_XML, "<CellSet><Row key=\"cg==\" foo=\"x\"/></CellSet>", "Row 0",
               "unknown attribute foo");
    DECODE_BAD(REST_MEDIA_XML, "<CellSet><Row/><Row>dg==</Row></CellSet>", "Row 1",
               "text directly inside <Row>");
    DECODE_BAD(REST_MEDIA_XML, "<CellSet><Row><Cell>dg==</Cell><Value/></Row></CellSet>", "Row 0",
               "unexpected element <Value>");
    DECODE_BAD(REST_MEDIA_XML, "<CellSet><Row><Cell column=\"Y2Y=\" ts=\"1\"/></Row></CellSet>",
               "Row 0, Cell 0", "unknown attribute ts");
    DECODE_BAD(REST_MEDIA_XML, "<CellSet><Row><Cell><b64>dg==</b64></Cell></Row></CellSet>",
               "Row 0, Cell 0", "unexpected element <b64> inside a cell");
    DECODE_BAD(REST_MEDIA_XML, "<CellSet><Row></CellSet>", "XML");
    DECODE_BAD(REST_MEDIA_XML, "<CellSet><Row><Cell timestamp=\"1.5\"/></Row></CellSet>",
               "Row 0, Cell 0", "not an integer");
    DECODE_BAD(REST_MEDIA_XML, "<CellSet><Row><Cell timestamp=\"\"/></Row></CellSet>",
               "Row 0, Cell 0", "not an integer");
}

static void test_xml_bad_base64_names_row_and_cell(void **state)
{
    DECODE_BAD(REST_MEDIA_XML, "<CellSet><Row key=\"cg==\"/><Row key=\"cg=\"/></CellSet>",
               "Row 1: key is not valid base64");
    DECODE_BAD(REST_MEDIA_XML,
               "<CellSet><Row/><Row><Cell/><Cell column=\"*\">dg==</Cell></Row></CellSet>",
               "Row 1, Cell 1: column is not valid base64");
    DECODE_BAD(REST_MEDIA_XML,
               "<CellSet><Row><Cell column=\"Y2Y=\">dg==</Cell><Cell>d g==</Cell></Row></CellSet>",
               "Row 0, Cell 1: value is not valid base64");
}

/* ---- reading protobuf ---- */

static uint8_t *pack_cellset(const Strata__Rest__CellSet *m, size_t *len)
{
    *len = strata__rest__cell_set__get_packed_size(m);
    uint8_t *p = malloc(*len ? *len : 1);
    assert_non_null(p);
    assert_int_equal(strata__rest__cell_set__pack(m, p), *len);
    return p;
}

static ProtobufCBinaryData bin(const void *p, size_t n)
{
    return (ProtobufCBinaryData){.len = n, .data = (uint8_t *)p};
}

static void test_pb_basic(void **state)
{
    uint8_t val[256];
    all_bytes(val, false);
    Strata__Rest__Cell c1 = STRATA__REST__CELL__INIT, c2 = STRATA__REST__CELL__INIT,
                       c3 = STRATA__REST__CELL__INIT;
    c1.has_column = c1.has_timestamp = c1.has_data = true;
    c1.column = bin("cf:a", 4);
    c1.timestamp = 42;
    c1.data = bin(val, sizeof(val));
    c2.has_data = true; /* no column, no timestamp */
    c2.data = bin("v", 1);
    c3.has_column = c3.has_timestamp = true; /* no value */
    c3.column = bin("cf:\0\xff", 5);
    c3.timestamp = 0;
    Strata__Rest__Cell *cells1[] = {&c1, &c2};
    Strata__Rest__Cell *cells2[] = {&c3};
    Strata__Rest__CellSet__Row r1 = STRATA__REST__CELL_SET__ROW__INIT,
                               r2 = STRATA__REST__CELL_SET__ROW__INIT,
                               r3 = STRATA__REST__CELL_SET__ROW__INIT;
    r1.key = bin("\0row", 4);
    r1.values = cells1;
    r1.n_values = 2;
    r2.key = bin("r2", 2);
    r2.values = cells2;
    r2.n_values = 1;
    r3.key = bin("r3", 2); /* no cells */
    Strata__Rest__CellSet__Row *rows[] = {&r1, &r2, &r3};
    Strata__Rest__CellSet m = STRATA__REST__CELL_SET__INIT;
    m.rows = rows;
    m.n_rows = 3;
    size_t len;
    uint8_t *body = pack_cellset(&m, &len);

    static const rest_media pbs[] = {REST_MEDIA_PROTOBUF, REST_MEDIA_PROTOBUF_IETF};
    for (size_t k = 0; k < N(pbs); k++) {
        rest_cellset cs;
        decode_ok(pbs[k], body, len, &cs);
        assert_int_equal(cs.nrows, 3);
        assert_true(cs.rows[0].has_key);
        expect_bytes(&cs.rows[0].key, "\0row", 4);
        assert_int_equal(cs.rows[0].ncells, 2);
        rest_cell *c = &cs.rows[0].cells[0];
        EXPECT_STR(&c->column, "cf:a");
        assert_int_equal(c->ts, 42);
        expect_bytes(&c->value, val, sizeof(val));
        c = &cs.rows[0].cells[1];
        assert_false(c->has_column);
        assert_true(c->ts == INT64_MAX);
        EXPECT_STR(&c->value, "v");
        c = &cs.rows[1].cells[0];
        expect_bytes(&c->column, "cf:\0\xff", 5);
        assert_int_equal(c->ts, 0);
        assert_false(c->has_value);
        EXPECT_STR(&cs.rows[2].key, "r3");
        assert_int_equal(cs.rows[2].ncells, 0);
        rest_cellset_free(&cs);
    }
    free(body);
}

static void test_pb_empty_fields(void **state)
{
    /* an empty key, column and value are present but hold no bytes */
    Strata__Rest__Cell c = STRATA__REST__CELL__INIT;
    c.has_column = c.has_data = true;
    c.column = bin("", 0);
    c.data = bin("", 0);
    Strata__Rest__Cell *cells[] = {&c};
    Strata__Rest__CellSet__Row r = STRATA__REST__CELL_SET__ROW__INIT;
    r.key = bin("", 0);
    r.values = cells;
    r.n_values = 1;
    Strata__Rest__CellSet__Row *rows[] = {&r};
    Strata__Rest__CellSet m = STRATA__REST__CELL_SET__INIT;
    m.rows = rows;
    m.n_rows = 1;
    size_t len;
    uint8_t *body = pack_cellset(&m, &len);
    rest_cellset cs;
    decode_ok(REST_MEDIA_PROTOBUF, body, len, &cs);
    assert_int_equal(cs.nrows, 1);
    EXPECT_STR(&cs.rows[0].key, "");
    assert_true(cs.rows[0].cells[0].has_column);
    EXPECT_STR(&cs.rows[0].cells[0].column, "");
    assert_true(cs.rows[0].cells[0].has_value);
    EXPECT_STR(&cs.rows[0].cells[0].value, "");
    rest_cellset_free(&cs);
    free(body);
}

static void test_pb_empty_and_broken(void **state)
{
    rest_cellset cs;
    decode_ok(REST_MEDIA_PROTOBUF, "", 0, &cs);
    assert_int_equal(cs.nrows, 0);
    rest_cellset_free(&cs);
    decode_bad(REST_MEDIA_PROTOBUF, "\xff\xff\xff", 3, "not a protobuf CellSet", NULL);
    /* a row without its required key: field 1 of CellSet holding an empty Row */
    decode_bad(REST_MEDIA_PROTOBUF, "\x0a\x00", 2, "not a protobuf CellSet", NULL);
    /* a truncated row */
    decode_bad(REST_MEDIA_PROTOBUF, "\x0a\x05\x0a\x01r", 5, "not a protobuf CellSet", NULL);
    /* other media cannot carry a CellSet */
    decode_bad(REST_MEDIA_TEXT, "x", 1, "cannot be read from text/plain", NULL);
    decode_bad(REST_MEDIA_BINARY, "x", 1, "cannot be read", NULL);
}

/* ---- writing ---- */

/* One step of a writer script: a cell, or a flush point (row NULL). */
typedef struct wstep {
    const void *row;
    size_t row_len;
    const void *fam;
    size_t fam_len;
    const void *qual;
    size_t qual_len;
    int64_t ts;
    const void *val;
    size_t val_len;
    size_t row_elem; /* the row element the cell must land in */
} wstep;

#define CELL(r, f, q, t, v, e)                                                                     \
    {                                                                                              \
        r, sizeof(r) - 1, f, sizeof(f) - 1, q, sizeof(q) - 1, t, v, sizeof(v) - 1, e               \
    }
#define FLUSH                                                                                      \
    {                                                                                              \
        NULL, 0, NULL, 0, NULL, 0, 0, NULL, 0, 0                                                   \
    }

static void run_script(rest_media m, bool stream, const wstep *steps, size_t n, buf_t *out)
{
    rest_cellset_writer w;
    assert_int_equal(rest_cellset_begin(&w, m, out, stream), ST_OK);
    for (size_t i = 0; i < n; i++) {
        const wstep *s = &steps[i];
        if (!s->row)
            assert_int_equal(rest_cellset_flush_point(&w), ST_OK);
        else
            assert_int_equal(rest_cellset_add_cell(&w, s->row, s->row_len, s->fam, s->fam_len,
                                                   s->qual, s->qual_len, s->ts, s->val, s->val_len),
                             ST_OK);
    }
    assert_int_equal(rest_cellset_end(&w), ST_OK);
    /* ending twice only frees */
    assert_int_equal(rest_cellset_end(&w), ST_OK);
}

/* The decoded cs holds exactly the cells of steps, in their row elements. */
static void expect_script(const rest_cellset *cs, const wstep *steps, size_t n, size_t nrows)
{
    assert_int_equal(cs->nrows, nrows);
    size_t *seen = calloc(nrows ? nrows : 1, sizeof(*seen));
    assert_non_null(seen);
    for (size_t i = 0; i < n; i++) {
        const wstep *s = &steps[i];
        if (!s->row)
            continue;
        assert_true(s->row_elem < nrows);
        const rest_row *r = &cs->rows[s->row_elem];
        assert_true(r->has_key);
        expect_bytes(&r->key, s->row, s->row_len);
        size_t k = seen[s->row_elem]++;
        assert_true(k < r->ncells);
        const rest_cell *c = &r->cells[k];
        assert_true(c->has_column);
        assert_int_equal(c->column.len, s->fam_len + 1 + s->qual_len);
        assert_memory_equal(c->column.data, s->fam, s->fam_len);
        assert_int_equal(c->column.data[s->fam_len], ':');
        if (s->qual_len)
            assert_memory_equal(c->column.data + s->fam_len + 1, s->qual, s->qual_len);
        assert_true(c->ts == s->ts);
        assert_true(c->has_value);
        expect_bytes(&c->value, s->val, s->val_len);
    }
    for (size_t r = 0; r < nrows; r++)
        assert_int_equal(seen[r], cs->rows[r].ncells);
    free(seen);
}

static const wstep SAMPLE[] = {
    CELL("r1", "cf", "a", 1, "v1", 0),
    CELL("r1", "cf", "b", 2, "v2", 0),
    CELL("r2", "cf", "a", 3, "v3", 1),
};

static void test_write_json_shape(void **state)
{
    buf_t out = {0};
    run_script(REST_MEDIA_JSON, false, SAMPLE, N(SAMPLE), &out);
    const char *want =
        "{\"Row\":[{\"key\":\"cjE=\",\"Cell\":[{\"column\":\"Y2Y6YQ==\",\"timestamp\":1,\"$\":"
        "\"djE=\"},{\"column\":\"Y2Y6Yg==\",\"timestamp\":2,\"$\":\"djI=\"}]},{\"key\":\"cjI=\","
        "\"Cell\":[{\"column\":\"Y2Y6YQ==\",\"timestamp\":3,\"$\":\"djM=\"}]}]}";
    assert_int_equal(out.len, strlen(want));
    assert_memory_equal(out.data, want, out.len);
    buf_free(&out);
}

static void test_write_xml_shape(void **state)
{
    buf_t out = {0};
    run_script(REST_MEDIA_XML, false, SAMPLE, N(SAMPLE), &out);
    const char *want = XML_DECL "<CellSet><Row key=\"cjE=\"><Cell column=\"Y2Y6YQ==\" "
                                "timestamp=\"1\">djE=</Cell><Cell column=\"Y2Y6Yg==\" "
                                "timestamp=\"2\">djI=</Cell></Row><Row key=\"cjI=\"><Cell "
                                "column=\"Y2Y6YQ==\" timestamp=\"3\">djM=</Cell></Row></CellSet>";
    assert_int_equal(out.len, strlen(want));
    assert_memory_equal(out.data, want, out.len);
    assert_int_equal(memcmp(out.data, "<?xml ", 6), 0);
    buf_free(&out);
}

static void test_write_empty_documents(void **state)
{
    buf_t out = {0};
    run_script(REST_MEDIA_JSON, false, NULL, 0, &out);
    assert_int_equal(out.len, strlen("{\"Row\":[]}"));
    assert_memory_equal(out.data, "{\"Row\":[]}", out.len);
    buf_reset(&out);
    run_script(REST_MEDIA_XML, false, NULL, 0, &out);
    const char *xml = XML_DECL "<CellSet></CellSet>";
    assert_int_equal(out.len, strlen(xml));
    assert_memory_equal(out.data, xml, out.len);
    buf_reset(&out);
    /* protobuf: no rows is no bytes, an empty CellSet message */
    static const wstep flush_only[] = {FLUSH, FLUSH};
    run_script(REST_MEDIA_PROTOBUF, false, flush_only, N(flush_only), &out);
    assert_int_equal(out.len, 0);
    run_script(REST_MEDIA_PROTOBUF, true, flush_only, N(flush_only), &out);
    assert_int_equal(out.len, 0);
    Strata__Rest__CellSet *m = strata__rest__cell_set__unpack(NULL, 0, (const uint8_t *)"");
    assert_non_null(m);
    assert_int_equal(m->n_rows, 0);
    strata__rest__cell_set__free_unpacked(m, NULL);
    /* and each empty document decodes to no rows */
    static const rest_media ms[] = {REST_MEDIA_JSON, REST_MEDIA_XML, REST_MEDIA_PROTOBUF};
    for (size_t i = 0; i < N(ms); i++) {
        buf_reset(&out);
        run_script(ms[i], false, NULL, 0, &out);
        rest_cellset cs;
        decode_ok(ms[i], out.data ? (const void *)out.data : "", out.len, &cs);
        assert_int_equal(cs.nrows, 0);
        rest_cellset_free(&cs);
    }
    buf_free(&out);
}

/* Writes steps in each medium, decodes the result and compares. */
static void round_trip(const wstep *steps, size_t n, size_t nrows)
{
    static const rest_media ms[] = {REST_MEDIA_JSON, REST_MEDIA_XML, REST_MEDIA_PROTOBUF,
                                    REST_MEDIA_PROTOBUF_IETF};
    for (size_t i = 0; i < N(ms); i++) {
        buf_t out = {0};
        run_script(ms[i], false, steps, n, &out);
        rest_cellset cs;
        decode_ok(ms[i], out.data ? (const void *)out.data : "", out.len, &cs);
        expect_script(&cs, steps, n, nrows);
        rest_cellset_free(&cs);
        buf_free(&out);
    }
}

static void test_write_round_trip_several_rows(void **state)
{
    round_trip(SAMPLE, N(SAMPLE), 2);
    static const wstep many[] = {
        CELL("a", "cf", "x", 10, "1", 0),
        CELL("a", "cf", "x", 9, "2", 0),
        CELL("a", "cf2", "", 8, "", 0),
        CELL("b", "cf", "q:r", 0, "3", 1),
        CELL("c", "f", "q", INT64_MAX - 1, "it's <&> \"quoted\"", 2),
        CELL("", "f", "q", 5, "empty row key", 3),
        CELL("d", "f", "q", 5, "4", 4),
    };
    round_trip(many, N(many), 5);
}

static void test_write_round_trip_binary(void **state)
{
    uint8_t bytes[256], rev[256], big[300];
    all_bytes(bytes, false);
    all_bytes(rev, true);
    for (size_t i = 0; i < sizeof(big); i++)
        big[i] = (uint8_t)(i * 7);
    /* the qualifier past 256 bytes takes the writer's allocated column buffer */
    const wstep steps[] = {
        {bytes, 256, "cf", 2, rev, 256, 1, bytes, 256, 0},
        {bytes, 256, "cf", 2, bytes, 1, 2, rev, 1, 0},
        {rev, 256, "\xff", 1, big, sizeof(big), 3, big, sizeof(big), 1},
        {"\0", 1, "f", 1, ":", 1, 4, "\0\0", 2, 2},
        {"\0\0", 2, "f", 1, "", 0, 5, "", 0, 3},
    };
    round_trip(steps, N(steps), 4);
    /* one row per byte value, each with a value of that byte */
    wstep per[256];
    for (int c = 0; c < 256; c++)
        per[c] = (wstep){&bytes[c], 1, "cf", 2, &bytes[c], 1, c, &bytes[c], 1, (size_t)c};
    round_trip(per, N(per), 256);
}

static void test_write_flush_point_starts_new_row_element(void **state)
{
    static const wstep steps[] = {
        CELL("r", "cf", "a", 1, "1", 0),
        FLUSH,
        CELL("r", "cf", "b", 1, "2", 1),
        CELL("r", "cf", "c", 1, "3", 1),
        FLUSH,
        FLUSH,
        CELL("s", "cf", "a", 1, "4", 2),
        CELL("r", "cf", "d", 1, "5", 3),
    };
    round_trip(steps, N(steps), 4);
    /* in JSON the continuation is a second element with the same key */
    buf_t out = {0};
    run_script(REST_MEDIA_JSON, false, steps, 3, &out);
    const char *want = "{\"Row\":[{\"key\":\"cg==\",\"Cell\":[{\"column\":\"Y2Y6YQ==\","
                       "\"timestamp\":1,\"$\":\"MQ==\"}]},{\"key\":\"cg==\",\"Cell\":[{\"column\":"
                       "\"Y2Y6Yg==\",\"timestamp\":1,\"$\":\"Mg==\"}]}]}";
    assert_int_equal(out.len, strlen(want));
    assert_memory_equal(out.data, want, out.len);
    buf_free(&out);
}

static void test_write_protobuf_unpacks(void **state)
{
    buf_t out = {0};
    run_script(REST_MEDIA_PROTOBUF, false, SAMPLE, N(SAMPLE), &out);
    Strata__Rest__CellSet *m = strata__rest__cell_set__unpack(NULL, out.len, out.data);
    assert_non_null(m);
    assert_int_equal(m->n_rows, 2);
    assert_int_equal(m->rows[0]->key.len, 2);
    assert_memory_equal(m->rows[0]->key.data, "r1", 2);
    assert_int_equal(m->rows[0]->n_values, 2);
    Strata__Rest__Cell *c = m->rows[0]->values[1];
    assert_true(c->has_column && c->has_timestamp && c->has_data);
    assert_false(c->has_row);
    assert_int_equal(c->column.len, 4);
    assert_memory_equal(c->column.data, "cf:b", 4);
    assert_int_equal(c->timestamp, 2);
    assert_int_equal(c->data.len, 2);
    assert_memory_equal(c->data.data, "v2", 2);
    assert_int_equal(m->rows[1]->n_values, 1);
    assert_int_equal(m->rows[1]->values[0]->timestamp, 3);
    strata__rest__cell_set__free_unpacked(m, NULL);
    buf_free(&out);

    /* a negative timestamp travels as int64 */
    static const wstep neg[] = {CELL("r", "f", "q", -7, "v", 0)};
    run_script(REST_MEDIA_PROTOBUF, false, neg, 1, &out);
    m = strata__rest__cell_set__unpack(NULL, out.len, out.data);
    assert_non_null(m);
    assert_int_equal(m->rows[0]->values[0]->timestamp, -7);
    strata__rest__cell_set__free_unpacked(m, NULL);
    buf_free(&out);
}

/* Splits a protobuf stream into its CellSets: the row keys of each, joined by ',' and the
 * sets by ' ' ("r1 r2,r3"). */
static void stream_rows(const buf_t *out, char *desc, size_t cap)
{
    size_t off = 0, d = 0;
    desc[0] = '\0';
    while (off < out->len) {
        assert_true(out->len - off >= 4);
        const uint8_t *p = out->data + off;
        size_t len = (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3];
        assert_true(len <= out->len - off - 4);
        Strata__Rest__CellSet *m = strata__rest__cell_set__unpack(NULL, len, p + 4);
        assert_non_null(m);
        assert_true(m->n_rows > 0); /* no empty sets in the stream */
        for (size_t i = 0; i < m->n_rows; i++)
            d += (size_t)snprintf(desc + d, cap - d, "%s%.*s",
                                  i     ? ","
                                  : off ? " "
                                        : "",
                                  (int)m->rows[i]->key.len, (const char *)m->rows[i]->key.data);
        strata__rest__cell_set__free_unpacked(m, NULL);
        off += 4 + len;
    }
}

static void test_write_protobuf_stream(void **state)
{
    static const wstep steps[] = {
        CELL("r1", "cf", "a", 1, "v1", 0),
        CELL("r1", "cf", "b", 1, "v2", 0),
        FLUSH,
        CELL("r2", "cf", "a", 1, "v3", 1),
        CELL("r3", "cf", "a", 1, "v4", 2),
        FLUSH,
        FLUSH,
        CELL("r4", "cf", "a", 1, "v5", 3),
    };
    static const rest_media pbs[] = {REST_MEDIA_PROTOBUF, REST_MEDIA_PROTOBUF_IETF};
    for (size_t k = 0; k < N(pbs); k++) {
        buf_t out = {0};
        run_script(pbs[k], true, steps, N(steps), &out);
        char desc[128];
        stream_rows(&out, desc, sizeof(desc));
        assert_string_equal(desc, "r1 r2,r3 r4");
        /* the first length is the first set's size, big-endian */
        Strata__Rest__CellSet *m = strata__rest__cell_set__unpack(
            NULL, (size_t)out.data[0] << 24 | out.data[1] << 16 | out.data[2] << 8 | out.data[3],
            out.data + 4);
        assert_non_null(m);
        assert_int_equal(m->n_rows, 1);
        assert_int_equal(m->rows[0]->n_values, 2);
        assert_memory_equal(m->rows[0]->values[1]->data.data, "v2", 2);
        strata__rest__cell_set__free_unpacked(m, NULL);
        buf_free(&out);
    }

    /* a set bigger than 64 KiB needs every byte of its length */
    uint8_t *val = malloc(70000);
    assert_non_null(val);
    memset(val, 'x', 70000);
    const wstep big[] = {
        {"k", 1, "f", 1, "q", 1, 1, val, 70000, 0}, FLUSH, {"l", 1, "f", 1, "q", 1, 1, "y", 1, 1}};
    buf_t out = {0};
    run_script(REST_MEDIA_PROTOBUF, true, big, N(big), &out);
    char desc[64];
    stream_rows(&out, desc, sizeof(desc));
    assert_string_equal(desc, "k l");
    buf_free(&out);
    free(val);

    /* stream asks nothing of JSON: a plain document */
    run_script(REST_MEDIA_JSON, true, SAMPLE, 1, &out);
    assert_int_equal(out.data[0], '{');
    rest_cellset cs;
    decode_ok(REST_MEDIA_JSON, out.data, out.len, &cs);
    assert_int_equal(cs.nrows, 1);
    rest_cellset_free(&cs);
    buf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_basic),
        cmocka_unit_test(test_json_row_without_key_cell_without_column),
        cmocka_unit_test(test_json_timestamps_numbers_and_strings),
        cmocka_unit_test(test_json_bad_timestamps_refused),
        cmocka_unit_test(test_json_single_object_for_array),
        cmocka_unit_test(test_json_empty_cellset),
        cmocka_unit_test(test_json_every_byte_round_trips_base64),
        cmocka_unit_test(test_json_unknown_members_refused),
        cmocka_unit_test(test_json_wrong_types_refused),
        cmocka_unit_test(test_json_duplicate_members_refused),
        cmocka_unit_test(test_json_bad_base64_names_row_and_cell),
        cmocka_unit_test(test_xml_basic),
        cmocka_unit_test(test_xml_row_without_key_cell_without_column),
        cmocka_unit_test(test_xml_empty_cellset),
        cmocka_unit_test(test_xml_every_byte_round_trips_base64),
        cmocka_unit_test(test_xml_unknown_parts_refused),
        cmocka_unit_test(test_xml_bad_base64_names_row_and_cell),
        cmocka_unit_test(test_pb_basic),
        cmocka_unit_test(test_pb_empty_fields),
        cmocka_unit_test(test_pb_empty_and_broken),
        cmocka_unit_test(test_write_json_shape),
        cmocka_unit_test(test_write_xml_shape),
        cmocka_unit_test(test_write_empty_documents),
        cmocka_unit_test(test_write_round_trip_several_rows),
        cmocka_unit_test(test_write_round_trip_binary),
        cmocka_unit_test(test_write_flush_point_starts_new_row_element),
        cmocka_unit_test(test_write_protobuf_unpacks),
        cmocka_unit_test(test_write_protobuf_stream),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
