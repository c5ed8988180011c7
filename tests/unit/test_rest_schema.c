/*
 * test_rest_schema.c - HBase's TableSchema document (rest/rest_schema.c). Reading JSON
 * (attributes as strings, numbers and booleans; "ColumnSchema" as an array or a single
 * object), XML and protobuf (whose ttl, maxVersions, compression, readOnly and inMemory
 * fields become attributes), a family without a name refused. The mapping onto Strata's
 * descriptors: every family attribute (VERSIONS, MIN_VERSIONS, TTL with FOREVER,
 * BLOCKSIZE, BLOOMFILTER, COMPRESSION, KEEP_DELETED_CELLS), HBase attributes accepted only
 * at their defaults (IN_MEMORY ...), the table's MAX_FILESIZE, MEMSTORE_FLUSHSIZE and
 * DURABILITY, READONLY, unknown table attributes kept as METADATA values, the document's
 * table name against the path's, a family given twice. Writing a descriptor built with
 * the public admin API in JSON, XML, protobuf and text: HBase's shapes, "default:t" shown
 * as "t", and the first three decoding back to the same descriptor.
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

static void decode_ok(rest_media m, const void *body, size_t len, rest_table_schema *s)
{
    st_clear();
    int rc = rest_schema_decode(m, body, len, s);
    if (rc != ST_OK)
        fail_msg("TableSchema refused: %s: %s", st_strerror(rc), st_errmsg());
}

#define DECODE_OK(m, str, s) decode_ok((m), (str), strlen(str), (s))

static void decode_bad(rest_media m, const void *body, size_t len, const char *frag)
{
    rest_table_schema s;
    st_clear();
    int rc = rest_schema_decode(m, body, len, &s);
    if (rc != ST_INVALID_ARGUMENT)
        fail_msg("TableSchema '%.*s': got %s, want invalid argument", (int)len, (const char *)body,
                 st_strerror(rc));
    if (!strstr(st_errmsg(), frag))
        fail_msg("TableSchema '%.*s': message \"%s\" lacks \"%s\"", (int)len, (const char *)body,
                 st_errmsg(), frag);
    assert_null(s.name);
    assert_null(s.families);
    assert_null(s.attrs);
}

#define DECODE_BAD(m, str, frag) decode_bad((m), (str), strlen(str), (frag))

static const char *attr(const rest_attr *v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].name, name) == 0)
            return v[i].value;
    return NULL;
}

static void expect_attr(const rest_attr *v, size_t n, const char *name, const char *want)
{
    const char *got = attr(v, n, name);
    if (!got)
        fail_msg("attribute %s missing", name);
    if (strcmp(got, want) != 0)
        fail_msg("attribute %s is '%s', want '%s'", name, got, want);
}

/* Maps a JSON document for table "t"; must succeed. */
static strata_table_descriptor_t *map_json(const char *doc, const char *table)
{
    rest_table_schema s;
    DECODE_OK(REST_MEDIA_JSON, doc, &s);
    strata_table_descriptor_t *td = (strata_table_descriptor_t *)&s; /* must be reset */
    st_clear();
    int rc = rest_schema_to_descriptor(&s, table, &td);
    if (rc != ST_OK)
        fail_msg("'%s' not mapped: %s: %s", doc, st_strerror(rc), st_errmsg());
    assert_non_null(td);
    rest_schema_free(&s);
    return td;
}

/* Maps a JSON document, which must be refused naming frag. */
static void map_bad(const char *doc, const char *table, const char *frag)
{
    rest_table_schema s;
    DECODE_OK(REST_MEDIA_JSON, doc, &s);
    strata_table_descriptor_t *td = (strata_table_descriptor_t *)&s;
    st_clear();
    int rc = rest_schema_to_descriptor(&s, table, &td);
    if (rc != ST_INVALID_ARGUMENT)
        fail_msg("'%s' mapped: %s", doc, st_strerror(rc));
    assert_null(td);
    if (!strstr(st_errmsg(), frag))
        fail_msg("'%s': message \"%s\" lacks \"%s\"", doc, st_errmsg(), frag);
    rest_schema_free(&s);
}

/* A one-family document for table t with the family's attributes fam_attrs (JSON members,
 * "" for none) and the table's tab_attrs. */
static char *doc_with(const char *fam_attrs, const char *tab_attrs)
{
    static char doc[1024];
    snprintf(doc, sizeof(doc), "{\"name\":\"t\"%s%s,\"ColumnSchema\":[{\"name\":\"cf\"%s%s}]}",
             tab_attrs[0] ? "," : "", tab_attrs, fam_attrs[0] ? "," : "", fam_attrs);
    return doc;
}

static int64_t fam_get(const strata_table_descriptor_t *td, strata_family_attr a)
{
    assert_int_equal(strata_table_descriptor_family_count(td), 1);
    return strata_family_descriptor_get(strata_table_descriptor_family(td, 0), a);
}

/* ---- reading ---- */

static void test_decode_json_attribute_kinds(void **state)
{
    rest_table_schema s;
    DECODE_OK(REST_MEDIA_JSON,
              "{\"name\":\"t\",\"IS_META\":\"false\",\"MAX_FILESIZE\":1048576,\"READONLY\":false,"
              "\"ColumnSchema\":[{\"name\":\"cf\",\"VERSIONS\":3,\"TTL\":\"86400\",\"IN_MEMORY\":"
              "false,\"BLOCKCACHE\":true},{\"name\":\"cf2\"}]}",
              &s);
    assert_string_equal(s.name, "t");
    assert_int_equal(s.nattrs, 3);
    assert_string_equal(s.attrs[0].name, "IS_META"); /* in document order */
    expect_attr(s.attrs, s.nattrs, "IS_META", "false");
    expect_attr(s.attrs, s.nattrs, "MAX_FILESIZE", "1048576");
    expect_attr(s.attrs, s.nattrs, "READONLY", "false");
    assert_int_equal(s.nfamilies, 2);
    rest_family_schema *f = &s.families[0];
    assert_string_equal(f->name, "cf");
    assert_int_equal(f->nattrs, 4);
    expect_attr(f->attrs, f->nattrs, "VERSIONS", "3");
    expect_attr(f->attrs, f->nattrs, "TTL", "86400");
    expect_attr(f->attrs, f->nattrs, "IN_MEMORY", "false");
    expect_attr(f->attrs, f->nattrs, "BLOCKCACHE", "true");
    assert_string_equal(s.families[1].name, "cf2");
    assert_int_equal(s.families[1].nattrs, 0);
    rest_schema_free(&s);
    assert_null(s.name);
}

static void test_decode_json_single_family_object(void **state)
{
    rest_table_schema s;
    DECODE_OK(REST_MEDIA_JSON, "{\"name\":\"t\",\"ColumnSchema\":{\"name\":\"cf\",\"VERSIONS\":2}}",
              &s);
    assert_int_equal(s.nfamilies, 1);
    assert_string_equal(s.families[0].name, "cf");
    expect_attr(s.families[0].attrs, s.families[0].nattrs, "VERSIONS", "2");
    rest_schema_free(&s);
    /* no name, no families */
    DECODE_OK(REST_MEDIA_JSON, "{}", &s);
    assert_null(s.name);
    assert_int_equal(s.nfamilies, 0);
    rest_schema_free(&s);
}

static void test_decode_json_refusals(void **state)
{
    DECODE_BAD(REST_MEDIA_JSON, "{\"name\":\"t\",\"ColumnSchema\":[{\"VERSIONS\":1}]}",
               "ColumnSchema 0 has no name");
    DECODE_BAD(REST_MEDIA_JSON, "{\"ColumnSchema\":[{\"name\":\"a\"},{\"name\":\"\"}]}",
               "ColumnSchema 1 has no name");
    DECODE_BAD(REST_MEDIA_JSON, "[]", "a TableSchema is a JSON object");
    DECODE_BAD(REST_MEDIA_JSON, "{\"ColumnSchema\":\"cf\"}", "ColumnSchema must be an array");
    DECODE_BAD(REST_MEDIA_JSON, "{\"ColumnSchema\":[\"cf\"]}", "ColumnSchema 0 is not an object");
    DECODE_BAD(REST_MEDIA_JSON, "{\"OWNER\":null}", "OWNER must be a string, number or boolean");
    DECODE_BAD(REST_MEDIA_JSON, "{\"ColumnSchema\":[{\"name\":\"cf\",\"TTL\":[1]}]}",
               "attribute TTL must be a string, number or boolean");
    DECODE_BAD(REST_MEDIA_JSON, "{\"name\":", "JSON");
    decode_bad(REST_MEDIA_TEXT, "x", 1, "cannot be read from text/plain");
}

static void test_decode_xml(void **state)
{
    rest_table_schema s;
    DECODE_OK(
        REST_MEDIA_XML,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><TableSchema name=\"t\" IS_META=\"false\" "
        "OWNER=\"a &amp; b\"><ColumnSchema name=\"cf\" VERSIONS=\"3\" BLOOMFILTER=\"ROWCOL\"/>"
        "<ColumnSchema name=\"cf2\"></ColumnSchema></TableSchema>",
        &s);
    assert_string_equal(s.name, "t");
    assert_int_equal(s.nattrs, 2);
    expect_attr(s.attrs, s.nattrs, "OWNER", "a & b");
    assert_int_equal(s.nfamilies, 2);
    assert_string_equal(s.families[0].name, "cf");
    assert_int_equal(s.families[0].nattrs, 2); /* name is not an attribute */
    expect_attr(s.families[0].attrs, 2, "VERSIONS", "3");
    expect_attr(s.families[0].attrs, 2, "BLOOMFILTER", "ROWCOL");
    assert_string_equal(s.families[1].name, "cf2");
    rest_schema_free(&s);

    DECODE_BAD(REST_MEDIA_XML,
               "<TableSchema name=\"t\"><ColumnSchema VERSIONS=\"1\"/></TableSchema>",
               "ColumnSchema 0 has no name");
    DECODE_BAD(REST_MEDIA_XML, "<TableSchema><Column name=\"cf\"/></TableSchema>",
               "unexpected element <Column>");
    DECODE_BAD(REST_MEDIA_XML, "<Schema name=\"t\"/>", "not <TableSchema>");
    DECODE_BAD(REST_MEDIA_XML, "<TableSchema>", "XML");
}

static void test_decode_protobuf_fields_become_attributes(void **state)
{
    Strata__Rest__ColumnSchema__Attribute fa = STRATA__REST__COLUMN_SCHEMA__ATTRIBUTE__INIT;
    fa.name = "BLOOMFILTER";
    fa.value = "ROWCOL";
    Strata__Rest__ColumnSchema__Attribute *fas[] = {&fa};
    Strata__Rest__ColumnSchema c = STRATA__REST__COLUMN_SCHEMA__INIT;
    c.name = "cf";
    c.attrs = fas;
    c.n_attrs = 1;
    c.has_ttl = c.has_maxversions = true;
    c.ttl = 86400;
    c.maxversions = 5;
    c.compression = "ZSTD";
    Strata__Rest__ColumnSchema c2 = STRATA__REST__COLUMN_SCHEMA__INIT;
    c2.name = "cf2";
    Strata__Rest__ColumnSchema *cols[] = {&c, &c2};
    Strata__Rest__TableSchema__Attribute ta = STRATA__REST__TABLE_SCHEMA__ATTRIBUTE__INIT;
    ta.name = "OWNER";
    ta.value = "bob";
    Strata__Rest__TableSchema__Attribute *tas[] = {&ta};
    Strata__Rest__TableSchema m = STRATA__REST__TABLE_SCHEMA__INIT;
    m.name = "t";
    m.attrs = tas;
    m.n_attrs = 1;
    m.columns = cols;
    m.n_columns = 2;
    m.has_readonly = m.has_inmemory = true;
    m.readonly = true;
    m.inmemory = false;
    size_t len = strata__rest__table_schema__get_packed_size(&m);
    uint8_t *body = malloc(len);
    assert_non_null(body);
    strata__rest__table_schema__pack(&m, body);

    rest_table_schema s;
    decode_ok(REST_MEDIA_PROTOBUF, body, len, &s);
    assert_string_equal(s.name, "t");
    expect_attr(s.attrs, s.nattrs, "OWNER", "bob");
    expect_attr(s.attrs, s.nattrs, "READONLY", "true");
    expect_attr(s.attrs, s.nattrs, "IN_MEMORY", "false");
    assert_int_equal(s.nfamilies, 2);
    rest_family_schema *f = &s.families[0];
    assert_string_equal(f->name, "cf");
    expect_attr(f->attrs, f->nattrs, "BLOOMFILTER", "ROWCOL");
    expect_attr(f->attrs, f->nattrs, "TTL", "86400");
    expect_attr(f->attrs, f->nattrs, "VERSIONS", "5");
    expect_attr(f->attrs, f->nattrs, "COMPRESSION", "ZSTD");
    assert_int_equal(s.families[1].nattrs, 0);
    /* readOnly true maps onto READONLY */
    strata_table_descriptor_t *td = NULL;
    assert_int_equal(rest_schema_to_descriptor(&s, "t", &td), ST_OK);
    assert_int_equal(strata_table_descriptor_get(td, STRATA_TABLE_READONLY), 1);
    strata_table_descriptor_destroy(td);
    td = NULL;
    rest_schema_free(&s);

    /* readOnly false maps, the fields applied */
    m.readonly = false;
    strata__rest__table_schema__pack(&m, body);
    decode_ok(REST_MEDIA_PROTOBUF_IETF, body, len, &s);
    assert_int_equal(rest_schema_to_descriptor(&s, "t", &td), ST_OK);
    const strata_family_descriptor_t *fd = strata_table_descriptor_family(td, 0);
    assert_int_equal(strata_family_descriptor_get(fd, STRATA_FAMILY_TTL), 86400);
    assert_int_equal(strata_family_descriptor_get(fd, STRATA_FAMILY_VERSIONS), 5);
    assert_int_equal(strata_family_descriptor_get(fd, STRATA_FAMILY_COMPRESSION),
                     STRATA_COMPRESSION_ZSTD);
    assert_int_equal(strata_family_descriptor_get(fd, STRATA_FAMILY_BLOOMFILTER),
                     STRATA_BLOOM_ROWCOL);
    assert_string_equal(strata_table_descriptor_get_value(td, "OWNER"), "bob");
    strata_table_descriptor_destroy(td);
    rest_schema_free(&s);

    /* a family without a name */
    c2.name = NULL;
    len = strata__rest__table_schema__get_packed_size(&m);
    body = realloc(body, len);
    assert_non_null(body);
    strata__rest__table_schema__pack(&m, body);
    decode_bad(REST_MEDIA_PROTOBUF, body, len, "ColumnSchema 1 has no name");
    free(body);
    decode_bad(REST_MEDIA_PROTOBUF, "\x12\x02\x0a", 3, "not a protobuf TableSchema");
    /* regression: elements inside <ColumnSchema> were ignored */
    DECODE_BAD(REST_MEDIA_XML,
               "<TableSchema name=\"t\"><ColumnSchema name=\"cf\"><VERSIONS>3</VERSIONS>"
               "</ColumnSchema></TableSchema>",
               "attributes only");
}

/* ---- onto descriptors: families ---- */

static void test_map_family_numbers(void **state)
{
    strata_table_descriptor_t *td =
        map_json(doc_with("\"VERSIONS\":\"5\",\"MIN_VERSIONS\":2,\"TTL\":\"3600\","
                          "\"BLOCKSIZE\":\"8192\"",
                          ""),
                 "t");
    assert_string_equal(strata_table_descriptor_name(td), "t");
    assert_int_equal(fam_get(td, STRATA_FAMILY_VERSIONS), 5);
    assert_int_equal(fam_get(td, STRATA_FAMILY_MIN_VERSIONS), 2);
    assert_int_equal(fam_get(td, STRATA_FAMILY_TTL), 3600);
    assert_int_equal(fam_get(td, STRATA_FAMILY_BLOCKSIZE), 8192);
    strata_table_descriptor_destroy(td);
    /* attribute names are case-insensitive, as HBase's shell */
    td = map_json(doc_with("\"versions\":\"4\",\"min_versions\":0", ""), "t");
    assert_int_equal(fam_get(td, STRATA_FAMILY_VERSIONS), 4);
    assert_int_equal(fam_get(td, STRATA_FAMILY_MIN_VERSIONS), 0);
    strata_table_descriptor_destroy(td);

    map_bad(doc_with("\"VERSIONS\":0", ""), "t", "VERSIONS => '0' is not an integer >= 1");
    map_bad(doc_with("\"VERSIONS\":\"three\"", ""), "t", "VERSIONS => 'three'");
    map_bad(doc_with("\"MIN_VERSIONS\":-1", ""), "t", "MIN_VERSIONS => '-1'");
    map_bad(doc_with("\"BLOCKSIZE\":\"64k\"", ""), "t", "BLOCKSIZE => '64k'");
    map_bad(doc_with("\"BLOCKSIZE\":\" 1\"", ""), "t", "BLOCKSIZE => ' 1'");
    map_bad(doc_with("\"TTL\":0", ""), "t", "TTL => '0'");
    map_bad(doc_with("\"TTL\":\"99999999999999999999\"", ""), "t", "TTL");
    map_bad(doc_with("\"TTL\":1.5", ""), "t", "table t, column family cf: TTL => '1.5'");
}

static void test_map_family_ttl_forever(void **state)
{
    static const char *const forever[] = {"\"TTL\":\"FOREVER\"", "\"TTL\":\"forever\"",
                                          "\"TTL\":2147483647", "\"TTL\":\"2147483647\""};
    for (size_t i = 0; i < N(forever); i++) {
        strata_table_descriptor_t *td = map_json(doc_with(forever[i], ""), "t");
        assert_true(fam_get(td, STRATA_FAMILY_TTL) == STRATA_TTL_FOREVER);
        strata_table_descriptor_destroy(td);
    }
    strata_table_descriptor_t *td = map_json(doc_with("\"TTL\":2147483646", ""), "t");
    assert_int_equal(fam_get(td, STRATA_FAMILY_TTL), 2147483646);
    strata_table_descriptor_destroy(td);
}

static void test_map_family_enums(void **state)
{
    static const struct {
        const char *attrs;
        strata_family_attr a;
        int64_t want;
    } ok[] = {
        {"\"BLOOMFILTER\":\"NONE\"", STRATA_FAMILY_BLOOMFILTER, STRATA_BLOOM_NONE},
        {"\"BLOOMFILTER\":\"ROW\"", STRATA_FAMILY_BLOOMFILTER, STRATA_BLOOM_ROW},
        {"\"BLOOMFILTER\":\"rowcol\"", STRATA_FAMILY_BLOOMFILTER, STRATA_BLOOM_ROWCOL},
        {"\"COMPRESSION\":\"NONE\"", STRATA_FAMILY_COMPRESSION, STRATA_COMPRESSION_NONE},
        {"\"COMPRESSION\":\"zstd\"", STRATA_FAMILY_COMPRESSION, STRATA_COMPRESSION_ZSTD},
        {"\"KEEP_DELETED_CELLS\":\"TRUE\"", STRATA_FAMILY_KEEP_DELETED_CELLS, 1},
        {"\"KEEP_DELETED_CELLS\":true", STRATA_FAMILY_KEEP_DELETED_CELLS, 1},
        {"\"KEEP_DELETED_CELLS\":\"false\"", STRATA_FAMILY_KEEP_DELETED_CELLS, 0},
        {"\"KEEP_DELETED_CELLS\":\"TTL\"", STRATA_FAMILY_KEEP_DELETED_CELLS, 2},
        {"\"COMPRESSION\":\"SNAPPY\"", STRATA_FAMILY_COMPRESSION, STRATA_COMPRESSION_SNAPPY},
        {"\"COMPRESSION\":\"lz4\"", STRATA_FAMILY_COMPRESSION, STRATA_COMPRESSION_LZ4},
        {"\"COMPRESSION\":\"GZ\"", STRATA_FAMILY_COMPRESSION, STRATA_COMPRESSION_GZ},
        {"\"DATA_BLOCK_ENCODING\":\"none\"", STRATA_FAMILY_DATA_BLOCK_ENCODING, 0},
        {"\"DATA_BLOCK_ENCODING\":\"FAST_DIFF\"", STRATA_FAMILY_DATA_BLOCK_ENCODING, 3},
        {"\"IN_MEMORY\":true", STRATA_FAMILY_IN_MEMORY, 1},
        {"\"BLOCKCACHE\":\"false\"", STRATA_FAMILY_BLOCKCACHE, 0},
    };
    for (size_t i = 0; i < N(ok); i++) {
        strata_table_descriptor_t *td = map_json(doc_with(ok[i].attrs, ""), "t");
        const strata_family_descriptor_t *f = strata_table_descriptor_family(td, 0);
        assert_true(strata_family_descriptor_is_set(f, ok[i].a));
        if (strata_family_descriptor_get(f, ok[i].a) != ok[i].want)
            fail_msg("%s mapped to %lld", ok[i].attrs,
                     (long long)strata_family_descriptor_get(f, ok[i].a));
        strata_table_descriptor_destroy(td);
    }
    map_bad(doc_with("\"BLOOMFILTER\":\"ROWPREFIX_FIXED_LENGTH\"", ""), "t",
            "table t, column family cf: BLOOMFILTER 'ROWPREFIX_FIXED_LENGTH' is not supported. "
            "Use one of NONE ROW ROWCOL");
    map_bad(doc_with("\"COMPRESSION\":\"LZO\"", ""), "t",
            "COMPRESSION 'LZO' is not supported. Use one of NONE ZSTD SNAPPY LZ4 GZ");
    map_bad(doc_with("\"KEEP_DELETED_CELLS\":\"SOMETIMES\"", ""), "t",
            "KEEP_DELETED_CELLS 'SOMETIMES' is not supported. Use one of FALSE TRUE TTL");
    map_bad(doc_with("\"DATA_BLOCK_ENCODING\":\"PREFIX_TREE\"", ""), "t",
            "DATA_BLOCK_ENCODING 'PREFIX_TREE' is not supported. Use one of NONE PREFIX DIFF "
            "FAST_DIFF ROW_INDEX_V1");
    map_bad(doc_with("\"IN_MEMORY\":\"yes\"", ""), "t", "IN_MEMORY => 'yes' is not true or false");
}

static void test_map_family_default_only_attributes(void **state)
{
    strata_table_descriptor_t *td =
        map_json(doc_with("\"REPLICATION_SCOPE\":0,\"IS_MOB\":\"FALSE\"", ""), "t");
    strata_table_descriptor_destroy(td);
    map_bad(doc_with("\"IS_MOB\":true", ""), "t",
            "table t, column family cf: IS_MOB => 'true' is not supported by Strata");
    map_bad(doc_with("\"REPLICATION_SCOPE\":1", ""), "t", "REPLICATION_SCOPE");
    map_bad(doc_with("\"METADATA\":\"x\"", ""), "t", "unknown column family attribute METADATA");
    map_bad(doc_with("\"FOO\":\"1\"", ""), "t",
            "table t, column family cf: unknown column family attribute FOO");
}

/* ---- onto descriptors: the table ---- */

static void test_map_table_attributes(void **state)
{
    strata_table_descriptor_t *td =
        map_json(doc_with("", "\"MAX_FILESIZE\":\"1073741824\",\"MEMSTORE_FLUSHSIZE\":134217728,"
                              "\"DURABILITY\":\"ASYNC_WAL\",\"IS_META\":\"false\",\"READONLY\":"
                              "false,\"REGION_REPLICATION\":1"),
                 "t");
    assert_true(strata_table_descriptor_is_set(td, STRATA_TABLE_MAX_FILESIZE));
    assert_int_equal(strata_table_descriptor_get(td, STRATA_TABLE_MAX_FILESIZE), 1073741824);
    assert_int_equal(strata_table_descriptor_get(td, STRATA_TABLE_MEMSTORE_FLUSHSIZE), 134217728);
    assert_int_equal(strata_table_descriptor_get(td, STRATA_TABLE_DURABILITY),
                     STRATA_DURABILITY_ASYNC_WAL);
    /* the accepted defaults are not kept as values */
    assert_int_equal(strata_table_descriptor_value_count(td), 0);
    strata_table_descriptor_destroy(td);

    static const char *const durs[] = {"SKIP_WAL", "ASYNC_WAL", "SYNC_WAL", "FSYNC_WAL"};
    for (size_t i = 0; i < N(durs); i++) {
        char tab[64];
        snprintf(tab, sizeof(tab), "\"DURABILITY\":\"%s\"", durs[i]);
        td = map_json(doc_with("", tab), "t");
        assert_int_equal(strata_table_descriptor_get(td, STRATA_TABLE_DURABILITY), (int64_t)i + 1);
        strata_table_descriptor_destroy(td);
    }
    td = map_json(doc_with("", "\"DURABILITY\":\"use_default\""), "t");
    assert_false(strata_table_descriptor_is_set(td, STRATA_TABLE_DURABILITY));
    strata_table_descriptor_destroy(td);

    /* READONLY is honoured */
    td = map_json(doc_with("", "\"READONLY\":true"), "t");
    assert_int_equal(strata_table_descriptor_get(td, STRATA_TABLE_READONLY), 1);
    strata_table_descriptor_destroy(td);
    map_bad(doc_with("", "\"READONLY\":\"maybe\""), "t", "READONLY => 'maybe' is not true or false");
    map_bad(doc_with("", "\"IS_META\":\"true\""), "t", "IS_META");
    map_bad(doc_with("", "\"DURABILITY\":\"WAL\""), "t", "DURABILITY => 'WAL'");
    map_bad(doc_with("", "\"MAX_FILESIZE\":0"), "t", "MAX_FILESIZE => '0'");
    map_bad(doc_with("", "\"MEMSTORE_FLUSHSIZE\":\"1MB\""), "t", "MEMSTORE_FLUSHSIZE => '1MB'");
}

static void test_map_unknown_table_attributes_are_metadata(void **state)
{
    strata_table_descriptor_t *td =
        map_json(doc_with("", "\"OWNER\":\"bob\",\"SPLIT_POLICY\":\"org.apache.hadoop.hbase."
                              "regionserver.KeyPrefixRegionSplitPolicy\",\"flag\":true,\"n\":7"),
                 "t");
    assert_int_equal(strata_table_descriptor_value_count(td), 4);
    assert_string_equal(strata_table_descriptor_value_key(td, 0), "OWNER");
    assert_string_equal(strata_table_descriptor_get_value(td, "OWNER"), "bob");
    assert_string_equal(strata_table_descriptor_get_value(td, STRATA_TABLE_SPLIT_POLICY),
                        "org.apache.hadoop.hbase.regionserver.KeyPrefixRegionSplitPolicy");
    assert_string_equal(strata_table_descriptor_get_value(td, "flag"), "true");
    assert_string_equal(strata_table_descriptor_get_value(td, "n"), "7");
    strata_table_descriptor_destroy(td);
}

static void test_map_table_names(void **state)
{
    /* no name in the document: the path's */
    strata_table_descriptor_t *td = map_json("{\"ColumnSchema\":[{\"name\":\"cf\"}]}", "ns:t");
    assert_string_equal(strata_table_descriptor_name(td), "ns:t");
    strata_table_descriptor_destroy(td);
    td = map_json("{\"name\":\"\",\"ColumnSchema\":[{\"name\":\"cf\"}]}", "t");
    strata_table_descriptor_destroy(td);
    /* "t" and "default:t" are one table */
    td = map_json("{\"name\":\"default:t\",\"ColumnSchema\":[{\"name\":\"cf\"}]}", "t");
    assert_string_equal(strata_table_descriptor_name(td), "t");
    strata_table_descriptor_destroy(td);
    td = map_json("{\"name\":\"t\",\"ColumnSchema\":[{\"name\":\"cf\"}]}", "default:t");
    assert_string_equal(strata_table_descriptor_name(td), "default:t");
    strata_table_descriptor_destroy(td);
    td = map_json("{\"name\":\"ns:t\"}", "ns:t");
    assert_int_equal(strata_table_descriptor_family_count(td), 0);
    strata_table_descriptor_destroy(td);

    map_bad("{\"name\":\"u\"}", "t", "the document names table 'u' but the path names 't'");
    map_bad("{\"name\":\"ns:t\"}", "t", "names table 'ns:t'");
    map_bad("{\"name\":\"t\"}", "ns:t", "names table 't'");
    map_bad("{\"name\":\"default:t\"}", "default:u", "names table 'default:t'");
    map_bad("{\"name\":\"default:\"}", "default", "names table 'default:'");
}

static void test_map_family_given_twice(void **state)
{
    map_bad("{\"name\":\"t\",\"ColumnSchema\":[{\"name\":\"cf\"},{\"name\":\"x\"},"
            "{\"name\":\"cf\",\"VERSIONS\":2}]}",
            "t", "table t: column family cf is given twice");
    map_bad(
        "{\"name\":\"t\",\"ColumnSchema\":{\"name\":\"cf\"},\"ColumnSchema\":{\"name\":\"cf\"}}",
        "t", "column family cf is given twice");
}

/* ---- writing ---- */

/* table t: family cf with every attribute away from its default, family cf2 at the
 * defaults, the table's sizes and durability and two METADATA values */
static strata_table_descriptor_t *sample_descriptor(const char *name)
{
    strata_table_descriptor_t *td = strata_table_descriptor_create(name);
    assert_non_null(td);
    strata_family_descriptor_t *f = strata_table_descriptor_add_family(td, "cf");
    assert_non_null(f);
    strata_family_descriptor_set(f, STRATA_FAMILY_VERSIONS, 3);
    strata_family_descriptor_set(f, STRATA_FAMILY_MIN_VERSIONS, 1);
    strata_family_descriptor_set(f, STRATA_FAMILY_TTL, 86400);
    strata_family_descriptor_set(f, STRATA_FAMILY_BLOOMFILTER, STRATA_BLOOM_ROWCOL);
    strata_family_descriptor_set(f, STRATA_FAMILY_COMPRESSION, STRATA_COMPRESSION_ZSTD);
    strata_family_descriptor_set(f, STRATA_FAMILY_BLOCKSIZE, 16384);
    strata_family_descriptor_set(f, STRATA_FAMILY_KEEP_DELETED_CELLS, 1);
    assert_non_null(strata_table_descriptor_add_family(td, "cf2"));
    strata_table_descriptor_set(td, STRATA_TABLE_MAX_FILESIZE, 1 << 30);
    strata_table_descriptor_set(td, STRATA_TABLE_MEMSTORE_FLUSHSIZE, 64 << 20);
    strata_table_descriptor_set(td, STRATA_TABLE_DURABILITY, STRATA_DURABILITY_FSYNC_WAL);
    assert_true(strata_table_descriptor_set_value(td, "OWNER", "bob \"the\" <builder> & co"));
    assert_true(strata_table_descriptor_set_value(td, STRATA_TABLE_NORMALIZATION_ENABLED, "true"));
    return td;
}

/* a and b describe the same table (attributes compared by value) */
static void expect_same_descriptor(const strata_table_descriptor_t *a,
                                   const strata_table_descriptor_t *b)
{
    size_t nf = strata_table_descriptor_family_count(a);
    assert_int_equal(strata_table_descriptor_family_count(b), nf);
    for (size_t i = 0; i < nf; i++) {
        const strata_family_descriptor_t *fa = strata_table_descriptor_family(a, i);
        const strata_family_descriptor_t *fb = strata_table_descriptor_family(b, i);
        assert_string_equal(strata_family_descriptor_name(fa), strata_family_descriptor_name(fb));
        for (int k = STRATA_FAMILY_VERSIONS; k <= STRATA_FAMILY_KEEP_DELETED_CELLS; k++)
            if (strata_family_descriptor_get(fa, k) != strata_family_descriptor_get(fb, k))
                fail_msg("family %s attribute %d: %lld != %lld", strata_family_descriptor_name(fa),
                         k, (long long)strata_family_descriptor_get(fa, k),
                         (long long)strata_family_descriptor_get(fb, k));
    }
    for (int k = STRATA_TABLE_MAX_FILESIZE; k <= STRATA_TABLE_DURABILITY; k++) {
        assert_int_equal(strata_table_descriptor_get(a, k), strata_table_descriptor_get(b, k));
        assert_int_equal(strata_table_descriptor_is_set(a, k),
                         strata_table_descriptor_is_set(b, k));
    }
    size_t nv = strata_table_descriptor_value_count(a);
    assert_int_equal(strata_table_descriptor_value_count(b), nv);
    for (size_t i = 0; i < nv; i++) {
        const char *key = strata_table_descriptor_value_key(a, i);
        assert_string_equal(strata_table_descriptor_value_key(b, i), key);
        assert_string_equal(strata_table_descriptor_get_value(b, key),
                            strata_table_descriptor_get_value(a, key));
    }
}

static void test_encode_decodes_back(void **state)
{
    static const rest_media ms[] = {REST_MEDIA_JSON, REST_MEDIA_XML, REST_MEDIA_PROTOBUF,
                                    REST_MEDIA_PROTOBUF_IETF};
    strata_table_descriptor_t *td = sample_descriptor("t");
    for (size_t i = 0; i < N(ms); i++) {
        buf_t out = {0};
        assert_int_equal(rest_schema_encode(ms[i], td, STRATA_TABLE_ENABLED, &out), ST_OK);
        rest_table_schema s;
        decode_ok(ms[i], out.data, out.len, &s);
        assert_string_equal(s.name, "t");
        assert_int_equal(s.nfamilies, 2);
        const rest_family_schema *f = &s.families[0];
        assert_string_equal(f->name, "cf");
        expect_attr(f->attrs, f->nattrs, "VERSIONS", "3");
        expect_attr(f->attrs, f->nattrs, "MIN_VERSIONS", "1");
        expect_attr(f->attrs, f->nattrs, "TTL", "86400");
        expect_attr(f->attrs, f->nattrs, "BLOOMFILTER", "ROWCOL");
        expect_attr(f->attrs, f->nattrs, "COMPRESSION", "ZSTD");
        expect_attr(f->attrs, f->nattrs, "BLOCKSIZE", "16384");
        expect_attr(f->attrs, f->nattrs, "KEEP_DELETED_CELLS", "TRUE");
        f = &s.families[1];
        expect_attr(f->attrs, f->nattrs, "TTL", "2147483647"); /* FOREVER, as HBase shows it */
        expect_attr(f->attrs, f->nattrs, "BLOOMFILTER", "ROW");
        expect_attr(s.attrs, s.nattrs, "IS_META", "false");
        expect_attr(s.attrs, s.nattrs, "MAX_FILESIZE", "1073741824");
        expect_attr(s.attrs, s.nattrs, "MEMSTORE_FLUSHSIZE", "67108864");
        expect_attr(s.attrs, s.nattrs, "DURABILITY", "FSYNC_WAL");
        expect_attr(s.attrs, s.nattrs, "OWNER", "bob \"the\" <builder> & co");
        expect_attr(s.attrs, s.nattrs, "NORMALIZATION_ENABLED", "true");
        strata_table_descriptor_t *back = NULL;
        int rc = rest_schema_to_descriptor(&s, "t", &back);
        if (rc != ST_OK)
            fail_msg("medium %d: %s", (int)ms[i], st_errmsg());
        expect_same_descriptor(td, back);
        strata_table_descriptor_destroy(back);
        rest_schema_free(&s);
        buf_free(&out);
    }
    strata_table_descriptor_destroy(td);

    /* a bare descriptor too */
    td = strata_table_descriptor_create("bare");
    assert_non_null(strata_table_descriptor_add_family(td, "f"));
    for (size_t i = 0; i < N(ms); i++) {
        buf_t out = {0};
        assert_int_equal(rest_schema_encode(ms[i], td, STRATA_TABLE_DISABLED, &out), ST_OK);
        rest_table_schema s;
        decode_ok(ms[i], out.data, out.len, &s);
        strata_table_descriptor_t *back = NULL;
        assert_int_equal(rest_schema_to_descriptor(&s, "bare", &back), ST_OK);
        expect_same_descriptor(td, back);
        strata_table_descriptor_destroy(back);
        rest_schema_free(&s);
        buf_free(&out);
    }
    strata_table_descriptor_destroy(td);
}

static void test_encode_json_shape(void **state)
{
    strata_table_descriptor_t *td = strata_table_descriptor_create("t");
    assert_non_null(strata_table_descriptor_add_family(td, "cf"));
    buf_t out = {0};
    assert_int_equal(rest_schema_encode(REST_MEDIA_JSON, td, STRATA_TABLE_ENABLED, &out), ST_OK);
    const char *want = "{\"name\":\"t\",\"ColumnSchema\":[{\"name\":\"cf\",\"BLOOMFILTER\":\"ROW\","
                       "\"VERSIONS\":\"1\",\"IN_MEMORY\":\"false\",\"KEEP_DELETED_CELLS\":\"FALSE\","
                       "\"DATA_BLOCK_ENCODING\":\"PREFIX\",\"TTL\":\"2147483647\","
                       "\"COMPRESSION\":\"NONE\",\"MIN_VERSIONS\":\"0\",\"BLOCKCACHE\":\"true\","
                       "\"BLOCKSIZE\":\"65536\",\"REPLICATION_SCOPE\":\"0\"}],\"IS_META\":\"false\"}";
    assert_int_equal(out.len, strlen(want));
    assert_memory_equal(out.data, want, out.len);
    buf_free(&out);
    strata_table_descriptor_destroy(td);
}

static void test_encode_xml_text_and_protobuf_shapes(void **state)
{
    strata_table_descriptor_t *td = strata_table_descriptor_create("t");
    assert_non_null(strata_table_descriptor_add_family(td, "cf"));
    buf_t out = {0};
    assert_int_equal(rest_schema_encode(REST_MEDIA_XML, td, STRATA_TABLE_ENABLED, &out), ST_OK);
    const char *xml = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><TableSchema "
                      "name=\"t\" IS_META=\"false\"><ColumnSchema name=\"cf\" BLOOMFILTER=\"ROW\" "
                      "VERSIONS=\"1\" IN_MEMORY=\"false\" KEEP_DELETED_CELLS=\"FALSE\" "
                      "DATA_BLOCK_ENCODING=\"PREFIX\" TTL=\"2147483647\" COMPRESSION=\"NONE\" "
                      "MIN_VERSIONS=\"0\" BLOCKCACHE=\"true\" BLOCKSIZE=\"65536\" "
                      "REPLICATION_SCOPE=\"0\"/></TableSchema>";
    assert_int_equal(out.len, strlen(xml));
    assert_memory_equal(out.data, xml, out.len);
    buf_reset(&out);

    assert_int_equal(rest_schema_encode(REST_MEDIA_TEXT, td, STRATA_TABLE_ENABLED, &out), ST_OK);
    const char *text = "{ NAME=> 't', IS_META => 'false', COLUMNS => [ { NAME => 'cf', "
                       "BLOOMFILTER => 'ROW', VERSIONS => '1', IN_MEMORY => 'false', "
                       "KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'PREFIX', "
                       "TTL => '2147483647', COMPRESSION => 'NONE', MIN_VERSIONS => '0', "
                       "BLOCKCACHE => 'true', BLOCKSIZE => '65536', REPLICATION_SCOPE => '0' } ] }\r\n";
    assert_int_equal(out.len, strlen(text));
    assert_memory_equal(out.data, text, out.len);
    buf_reset(&out);

    assert_int_equal(rest_schema_encode(REST_MEDIA_PROTOBUF, td, STRATA_TABLE_ENABLED, &out),
                     ST_OK);
    Strata__Rest__TableSchema *m = strata__rest__table_schema__unpack(NULL, out.len, out.data);
    assert_non_null(m);
    assert_string_equal(m->name, "t");
    assert_true(m->has_readonly);
    assert_false(m->readonly);
    assert_int_equal(m->n_columns, 1);
    assert_string_equal(m->columns[0]->name, "cf");
    assert_true(m->columns[0]->has_ttl);
    assert_int_equal(m->columns[0]->ttl, 2147483647);
    assert_true(m->columns[0]->has_maxversions);
    assert_int_equal(m->columns[0]->maxversions, 1);
    assert_string_equal(m->columns[0]->compression, "NONE");
    assert_int_equal(m->n_attrs, 1);
    assert_string_equal(m->attrs[0]->name, "IS_META");
    strata__rest__table_schema__free_unpacked(m, NULL);
    buf_free(&out);
    strata_table_descriptor_destroy(td);
}

static void test_encode_default_namespace_shown_bare(void **state)
{
    strata_table_descriptor_t *td = sample_descriptor("default:t");
    static const rest_media ms[] = {REST_MEDIA_JSON, REST_MEDIA_XML, REST_MEDIA_PROTOBUF};
    for (size_t i = 0; i < N(ms); i++) {
        buf_t out = {0};
        assert_int_equal(rest_schema_encode(ms[i], td, STRATA_TABLE_ENABLED, &out), ST_OK);
        rest_table_schema s;
        decode_ok(ms[i], out.data, out.len, &s);
        assert_string_equal(s.name, "t");
        strata_table_descriptor_t *back = NULL;
        assert_int_equal(rest_schema_to_descriptor(&s, "default:t", &back), ST_OK);
        expect_same_descriptor(td, back);
        strata_table_descriptor_destroy(back);
        rest_schema_free(&s);
        buf_free(&out);
    }
    buf_t out = {0};
    assert_int_equal(rest_schema_encode(REST_MEDIA_TEXT, td, STRATA_TABLE_ENABLED, &out), ST_OK);
    assert_int_equal(memcmp(out.data, "{ NAME=> 't',", 13), 0);
    buf_free(&out);
    strata_table_descriptor_destroy(td);

    /* another namespace keeps its prefix */
    td = strata_table_descriptor_create("ns:t");
    assert_int_equal(rest_schema_encode(REST_MEDIA_JSON, td, STRATA_TABLE_ENABLED, &out), ST_OK);
    assert_int_equal(memcmp(out.data, "{\"name\":\"ns:t\",\"ColumnSchema\":[]", 31), 0);
    buf_free(&out);
    strata_table_descriptor_destroy(td);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_json_attribute_kinds),
        cmocka_unit_test(test_decode_json_single_family_object),
        cmocka_unit_test(test_decode_json_refusals),
        cmocka_unit_test(test_decode_xml),
        cmocka_unit_test(test_decode_protobuf_fields_become_attributes),
        cmocka_unit_test(test_map_family_numbers),
        cmocka_unit_test(test_map_family_ttl_forever),
        cmocka_unit_test(test_map_family_enums),
        cmocka_unit_test(test_map_family_default_only_attributes),
        cmocka_unit_test(test_map_table_attributes),
        cmocka_unit_test(test_map_unknown_table_attributes_are_metadata),
        cmocka_unit_test(test_map_table_names),
        cmocka_unit_test(test_map_family_given_twice),
        cmocka_unit_test(test_encode_decodes_back),
        cmocka_unit_test(test_encode_json_shape),
        cmocka_unit_test(test_encode_xml_text_and_protobuf_shapes),
        cmocka_unit_test(test_encode_default_namespace_shown_bare),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
