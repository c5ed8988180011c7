/*
 * test_rest.c - the REST gateway (`strata rest`, docs/rest.md) against a real cluster (one
 * master, two region servers, one gateway: `strata cluster start --rest 1`), every
 * endpoint driven with curl:
 *
 *   - /version, /version/cluster, /status/cluster, / in text, XML, JSON and protobuf;
 *   - namespaces: list, create with properties (POST), alter (PUT), describe in every
 *     media type, the tables of one, drop; 403 for creating one that exists or altering
 *     one that does not, 404 for a missing one, 409 for dropping one that holds tables;
 *   - schema: create (PUT, 201), describe in every media type, update (POST adds a
 *     family), replace (PUT), refusals of attributes Strata does not have, drop; regions
 *     and exists;
 *   - rows: CellSets in JSON, XML and protobuf with binary keys, columns and values (every
 *     byte value) round-tripping through base64 and percent-encoded paths; one value as
 *     application/octet-stream with X-Timestamp; versions (?v=), one timestamp and time
 *     ranges in the path, row ranges and suffix globs, multiget, HEAD;
 *   - check=put / check=delete (200 applied, 304 not), check=increment and check=append
 *     with returnResult; DELETE of a column, a family, a row, at a timestamp;
 *   - scanners in all three document forms: 201 and Location, batches, 204 at the end,
 *     DELETE, JSON filters (and a refused one), binary answers with X-Row/X-Column, and
 *     the stateless scan (prefix, startrow/endrow, limit, reversed, column, filter, the
 *     protobuf stream of length-prefixed CellSets);
 *   - /metrics counts what was done and /healthz answers.
 *
 * Bad input, limits, read-only gateways, slow clients and draining are test_rest_input.c;
 * load while regions move is test_rest_load.c. Needs STRATA_BIN and curl; skipped without
 * them (exit 77).
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
#include "common/http/json_value.h"
#include "common/http/xml.h"
#include "common/proto/rest.pb-c.h"
#include "common/status.h"
#include "tests/support/cluster.h"
#include "tests/support/rest_curl.h"
#include "tests/support/testutil.h"

static tc_cluster *cluster;
static int port;

/* ---- helpers ---- */

static void must(int status, const rc_resp *r, int want, const char *what)
{
    if (status != 0 || r->status != want)
        fail_msg("%s: status %d, want %d; body: %.*s; curl: %s", what, r->status, want,
                 (int)(r->body_len > 600 ? 600 : r->body_len), r->body, r->curl_out);
}

static void req(const char *method, const char *path, const char *ctype, const char *accept,
                const void *body, size_t len, int want, rc_resp *out)
{
    char h1[200], h2[200];
    const char *hs[3] = {NULL, NULL, NULL};
    int n = 0;
    if (ctype) {
        snprintf(h1, sizeof(h1), "Content-Type: %s", ctype);
        hs[n++] = h1;
    }
    if (accept) {
        snprintf(h2, sizeof(h2), "Accept: %s", accept);
        hs[n++] = h2;
    }
    char what[300];
    snprintf(what, sizeof(what), "%s %s", method, path);
    int st = rc_request(port, method, path, hs, body, len, out);
    must(st, out, want, what);
}

static void req_text(const char *method, const char *path, const char *ctype, const char *body,
                     int want)
{
    rc_resp r;
    req(method, path, ctype, NULL, body, body ? strlen(body) : 0, want, &r);
    rc_free(&r);
}

static json_value *get_json(const char *path, int want)
{
    rc_resp r;
    req("GET", path, NULL, "application/json", NULL, 0, want, &r);
    json_value *doc = NULL;
    if (json_value_parse(r.body, r.body_len, &doc) != ST_OK)
        fail_msg("GET %s: not JSON (%s): %s", path, st_errmsg(), r.body);
    rc_free(&r);
    return doc;
}

static xml_node *get_xml(const char *path)
{
    rc_resp r;
    req("GET", path, NULL, "text/xml", NULL, 0, 200, &r);
    xml_node *doc = NULL;
    if (xml_parse(r.body, r.body_len, &doc) != ST_OK)
        fail_msg("GET %s: not XML (%s): %s", path, st_errmsg(), r.body);
    if (strncmp(r.body, "<?xml", 5) != 0)
        fail_msg("GET %s: no XML declaration: %s", path, r.body);
    rc_free(&r);
    return doc;
}

static char *b64(const void *p, size_t n)
{
    buf_t b = {0};
    assert_int_equal(base64_encode(&b, p, n), ST_OK);
    buf_append_u8(&b, 0);
    return (char *)b.data;
}

/* Decodes a base64 JSON string member into out (malloc'ed); its length. */
static size_t unb64(const json_value *v, char **out)
{
    assert_non_null(v);
    assert_int_equal(v->type, JSON_STRING);
    buf_t b = {0};
    assert_int_equal(base64_decode(&b, v->str, v->len), ST_OK);
    buf_append_u8(&b, 0);
    *out = (char *)b.data;
    return b.len - 1;
}

static char *pct(const void *p, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    char *o = malloc(n * 3 + 1), *q = o;
    const uint8_t *s = p;
    for (size_t i = 0; i < n; i++) {
        *q++ = '%';
        *q++ = hex[s[i] >> 4];
        *q++ = hex[s[i] & 15];
    }
    *q = '\0';
    return o;
}

static void create_table(const char *name, const char *families_json)
{
    char path[300], body[1024];
    snprintf(path, sizeof(path), "/%s/schema", name);
    snprintf(body, sizeof(body), "{\"name\":\"%s\",\"ColumnSchema\":[%s]}", name, families_json);
    req_text("PUT", path, "application/json", body, 201);
}

/* PUTs one cell (text row, column, value) as a JSON CellSet. */
static void put_cell(const char *table, const char *row, const char *col, const char *value)
{
    char *k = b64(row, strlen(row)), *c = b64(col, strlen(col)), *v = b64(value, strlen(value));
    char path[300], body[2048];
    snprintf(path, sizeof(path), "/%s/fakerow", table);
    snprintf(body, sizeof(body), "{\"Row\":[{\"key\":\"%s\",\"Cell\":[{\"column\":\"%s\",\"$\":\"%s\"}]}]}",
             k, c, v);
    req_text("PUT", path, "application/json", body, 200);
    free(k);
    free(c);
    free(v);
}

/* The value of the only cell of a one-row JSON CellSet at path. */
static char *get_value(const char *path)
{
    json_value *doc = get_json(path, 200);
    const json_value *rows = json_value_member(doc, "Row");
    assert_non_null(rows);
    assert_int_equal(rows->n, 1);
    const json_value *cells = json_value_member(rows->items[0], "Cell");
    assert_non_null(cells);
    char *v = NULL;
    unb64(json_value_member(cells->items[0], "$"), &v);
    json_value_free(doc);
    return v;
}

/* ---- setup ---- */

static int setup(void **state)
{
    tc_options o = {.masters = 1, .regionservers = 2, .rest = 1};
    int rc = tc_start(&o, &cluster);
    if (rc != ST_OK) {
        fprintf(stderr, "test_rest: cluster start failed: %s\n", st_errmsg());
        return -1;
    }
    port = tc_http_port(cluster, "rest-1");
    return port > 0 ? 0 : -1;
}

static int teardown(void **state)
{
    return tc_stop(cluster) == ST_OK ? 0 : -1;
}

/* ---- version, status, tables ---- */

static void test_version_and_status(void **state)
{
    rc_resp r;
    req("GET", "/version", NULL, NULL, NULL, 0, 200, &r);
    assert_non_null(strstr(r.body, "rest 0.0.3 [JVM: "));
    rc_free(&r);
    json_value *v = get_json("/version", 200);
    assert_string_equal(json_value_member(v, "REST")->str, "0.0.3");
    assert_non_null(json_value_member(v, "Server"));
    json_value_free(v);
    xml_node *x = get_xml("/version/rest");
    assert_string_equal(x->name, "Version");
    assert_string_equal(xml_attr(x, "REST"), "0.0.3");
    xml_node_free(x);
    req("GET", "/version", NULL, "application/x-protobuf", NULL, 0, 200, &r);
    Strata__Rest__Version *pv = strata__rest__version__unpack(NULL, r.body_len, (uint8_t *)r.body);
    assert_non_null(pv);
    assert_string_equal(pv->restversion, "0.0.3");
    strata__rest__version__free_unpacked(pv, NULL);
    rc_free(&r);

    v = get_json("/version/cluster", 200);
    assert_non_null(json_value_member(v, "Version"));
    json_value_free(v);
    x = get_xml("/version/cluster");
    assert_string_equal(x->name, "ClusterVersion");
    assert_non_null(xml_attr(x, "Version"));
    xml_node_free(x);
    req("GET", "/version/cluster", NULL, "application/x-protobuf", NULL, 0, 406, &r);
    assert_non_null(strstr(r.body, "Not Acceptable"));
    rc_free(&r);

    v = get_json("/status/cluster", 200);
    const json_value *live = json_value_member(v, "LiveNodes");
    assert_non_null(live);
    assert_int_equal(live->n, 2);
    assert_non_null(json_value_member(live->items[0], "name"));
    assert_non_null(json_value_member(live->items[0], "startCode"));
    assert_int_equal(json_value_member(v, "DeadNodes")->n, 0);
    json_value_free(v);
    x = get_xml("/status/cluster");
    assert_string_equal(x->name, "ClusterStatus");
    assert_int_equal(xml_child(x, "LiveNodes")->nchildren, 2);
    xml_node_free(x);
    req("GET", "/status/cluster", NULL, "application/protobuf", NULL, 0, 200, &r);
    Strata__Rest__StorageClusterStatus *ps =
        strata__rest__storage_cluster_status__unpack(NULL, r.body_len, (uint8_t *)r.body);
    assert_non_null(ps);
    assert_int_equal(ps->n_livenodes, 2);
    strata__rest__storage_cluster_status__free_unpacked(ps, NULL);
    rc_free(&r);
    req("GET", "/status/cluster", NULL, "text/plain", NULL, 0, 200, &r);
    assert_non_null(strstr(r.body, "2 live servers, 0 dead servers"));
    rc_free(&r);
}

static void test_table_list(void **state)
{
    create_table("listed", "{\"name\":\"cf\"}");
    rc_resp r;
    req("GET", "/", NULL, NULL, NULL, 0, 200, &r); /* text: one name a line */
    assert_non_null(strstr(r.body, "listed\n"));
    rc_free(&r);
    json_value *v = get_json("/", 200);
    const json_value *t = json_value_member(v, "table");
    bool found = false;
    for (size_t i = 0; t && i < t->n; i++)
        found = found || strcmp(json_value_member(t->items[i], "name")->str, "listed") == 0;
    assert_true(found);
    json_value_free(v);
    xml_node *x = get_xml("/");
    assert_string_equal(x->name, "TableList");
    assert_non_null(xml_child(x, "table"));
    xml_node_free(x);
    req("GET", "/", NULL, "application/x-protobuf", NULL, 0, 200, &r);
    Strata__Rest__TableList *tl = strata__rest__table_list__unpack(NULL, r.body_len, (uint8_t *)r.body);
    assert_non_null(tl);
    assert_true(tl->n_name >= 1);
    strata__rest__table_list__free_unpacked(tl, NULL);
    rc_free(&r);
}

/* ---- namespaces ---- */

static void test_namespaces(void **state)
{
    json_value *v = get_json("/namespaces", 200);
    const json_value *l = json_value_member(v, "Namespace");
    assert_true(l && l->n >= 2);
    assert_string_equal(l->items[0]->str, "default");
    json_value_free(v);

    req_text("POST", "/namespaces/ns1", "application/json", "{\"properties\":{\"owner\":\"ann\"}}",
             201);
    req_text("POST", "/namespaces/ns1", "application/json", "{}", 403);
    v = get_json("/namespaces/ns1", 200);
    assert_string_equal(json_value_member(json_value_member(v, "properties"), "owner")->str, "ann");
    json_value_free(v);
    req_text("PUT", "/namespaces/ns1", "text/xml",
             "<NamespaceProperties><properties><entry><key>owner</key><value>bob</value></entry>"
             "<entry><key>team</key><value>ops</value></entry></properties></NamespaceProperties>",
             200);
    xml_node *x = get_xml("/namespaces/ns1");
    assert_string_equal(x->name, "NamespaceProperties");
    const xml_node *props = xml_child(x, "properties");
    assert_non_null(props);
    assert_int_equal(props->nchildren, 2);
    assert_string_equal(xml_child(props->children[0], "value")->text, "bob");
    xml_node_free(x);
    rc_resp r;
    req("GET", "/namespaces/ns1", NULL, "application/x-protobuf", NULL, 0, 200, &r);
    Strata__Rest__NamespaceProperties *np =
        strata__rest__namespace_properties__unpack(NULL, r.body_len, (uint8_t *)r.body);
    assert_non_null(np);
    assert_int_equal(np->n_props, 2);
    strata__rest__namespace_properties__free_unpacked(np, NULL);
    rc_free(&r);
    req("GET", "/namespaces/ns1", NULL, "text/plain", NULL, 0, 200, &r);
    assert_non_null(strstr(r.body, "{NAME => 'ns1', owner => 'bob', team => 'ops'}"));
    rc_free(&r);

    req_text("PUT", "/namespaces/nosuch", "application/json", "{}", 403);
    req("GET", "/namespaces/nosuch", NULL, "application/json", NULL, 0, 404, &r);
    rc_free(&r);
    req("GET", "/namespaces/nosuch/tables", NULL, "application/json", NULL, 0, 404, &r);
    rc_free(&r);

    create_table("ns1:inns", "{\"name\":\"cf\"}");
    v = get_json("/namespaces/ns1/tables", 200);
    const json_value *t = json_value_member(v, "table");
    assert_int_equal(t->n, 1);
    assert_string_equal(json_value_member(t->items[0], "name")->str, "inns");
    json_value_free(v);
    req_text("DELETE", "/namespaces/ns1", NULL, NULL, 409); /* it holds a table */
    req_text("DELETE", "/ns1:inns/schema", NULL, NULL, 200);
    req_text("DELETE", "/namespaces/ns1", NULL, NULL, 200);
    req_text("DELETE", "/namespaces/ns1", NULL, NULL, 404);
    /* a create with no body: no properties */
    req_text("POST", "/namespaces/ns2", NULL, NULL, 201);
    v = get_json("/namespaces/ns2", 200);
    assert_null(json_value_member(v, "properties"));
    json_value_free(v);
    req_text("DELETE", "/namespaces/ns2", NULL, NULL, 200);
}

/* ---- schema, regions, exists ---- */

static void test_schema(void **state)
{
    req_text("PUT", "/sch/schema", "application/json",
             "{\"name\":\"sch\",\"ColumnSchema\":[{\"name\":\"a\",\"VERSIONS\":3,\"TTL\":\"FOREVER\","
             "\"BLOOMFILTER\":\"ROWCOL\",\"IN_MEMORY\":\"false\"}],\"DURABILITY\":\"ASYNC_WAL\"}",
             201);
    json_value *v = get_json("/sch/schema", 200);
    assert_string_equal(json_value_member(v, "name")->str, "sch");
    const json_value *cols = json_value_member(v, "ColumnSchema");
    assert_int_equal(cols->n, 1);
    assert_string_equal(json_value_member(cols->items[0], "VERSIONS")->str, "3");
    assert_string_equal(json_value_member(cols->items[0], "BLOOMFILTER")->str, "ROWCOL");
    assert_string_equal(json_value_member(cols->items[0], "TTL")->str, "2147483647");
    assert_string_equal(json_value_member(v, "DURABILITY")->str, "ASYNC_WAL");
    assert_string_equal(json_value_member(v, "IS_META")->str, "false");
    json_value_free(v);

    /* POST adds a family and keeps the other */
    req_text("POST", "/sch/schema", "text/xml",
             "<TableSchema name=\"sch\"><ColumnSchema name=\"b\" VERSIONS=\"2\"/></TableSchema>", 200);
    xml_node *x = get_xml("/sch/schema");
    assert_string_equal(x->name, "TableSchema");
    assert_int_equal(x->nchildren, 2);
    assert_string_equal(xml_attr(x->children[1], "name"), "b");
    xml_node_free(x);

    /* protobuf both ways: PUT replaces (a drops out) */
    Strata__Rest__TableSchema m = STRATA__REST__TABLE_SCHEMA__INIT;
    Strata__Rest__ColumnSchema c = STRATA__REST__COLUMN_SCHEMA__INIT, *cp = &c;
    m.name = "sch";
    c.name = "b";
    c.has_maxversions = true;
    c.maxversions = 5;
    m.columns = &cp;
    m.n_columns = 1;
    uint8_t pb[256];
    size_t pl = strata__rest__table_schema__pack(&m, pb);
    rc_resp r;
    req("PUT", "/sch/schema", "application/x-protobuf", NULL, pb, pl, 201, &r);
    rc_free(&r);
    req("GET", "/sch/schema", NULL, "application/x-protobuf", NULL, 0, 200, &r);
    Strata__Rest__TableSchema *got =
        strata__rest__table_schema__unpack(NULL, r.body_len, (uint8_t *)r.body);
    assert_non_null(got);
    assert_int_equal(got->n_columns, 1);
    assert_string_equal(got->columns[0]->name, "b");
    assert_int_equal(got->columns[0]->maxversions, 5);
    strata__rest__table_schema__free_unpacked(got, NULL);
    rc_free(&r);
    req("GET", "/sch/schema", NULL, NULL, NULL, 0, 200, &r); /* text first, as HBase */
    assert_non_null(strstr(r.body, "{ NAME=> 'sch'"));
    assert_non_null(strstr(r.body, "NAME => 'b', BLOOMFILTER => 'ROW', VERSIONS => '5'"));
    rc_free(&r);

    /* what Strata does not have is refused, naming it, and changes nothing */
    const char *lzo = "{\"ColumnSchema\":[{\"name\":\"b\",\"COMPRESSION\":\"LZO\"}]}";
    req("PUT", "/sch/schema", "application/json", NULL, lzo, strlen(lzo), 400, &r);
    assert_non_null(strstr(r.body, "COMPRESSION 'LZO' is not supported"));
    rc_free(&r);
    /* the family attributes Strata honours round-trip with HBase's names */
    req_text("PUT", "/sch2/schema", "application/json",
             "{\"ColumnSchema\":[{\"name\":\"f\",\"COMPRESSION\":\"SNAPPY\",\"IN_MEMORY\":true,"
             "\"BLOCKCACHE\":\"false\",\"DATA_BLOCK_ENCODING\":\"FAST_DIFF\","
             "\"KEEP_DELETED_CELLS\":\"TTL\"}]}",
             201);
    v = get_json("/sch2/schema", 200);
    const json_value *f2 = json_value_member(v, "ColumnSchema")->items[0];
    assert_string_equal(json_value_member(f2, "COMPRESSION")->str, "SNAPPY");
    assert_string_equal(json_value_member(f2, "IN_MEMORY")->str, "true");
    assert_string_equal(json_value_member(f2, "BLOCKCACHE")->str, "false");
    assert_string_equal(json_value_member(f2, "DATA_BLOCK_ENCODING")->str, "FAST_DIFF");
    assert_string_equal(json_value_member(f2, "KEEP_DELETED_CELLS")->str, "TTL");
    json_value_free(v);
    const char *rep = "{\"ColumnSchema\":[{\"name\":\"b\"}],\"REGION_REPLICATION\":\"3\"}";
    req("PUT", "/sch/schema", "application/json", NULL, rep, strlen(rep), 400, &r);
    assert_non_null(strstr(r.body, "REGION_REPLICATION"));
    rc_free(&r);
    /* READONLY is honoured: the regions refuse writes, the gateway answers 403 */
    const char *ro = "{\"ColumnSchema\":[{\"name\":\"b\"}],\"READONLY\":\"true\"}";
    req("PUT", "/rot/schema", "application/json", NULL, ro, strlen(ro), 201, &r);
    rc_free(&r);
    req("PUT", "/rot/r1/b:q", "application/octet-stream", NULL, "v", 1, 403, &r);
    assert_non_null(strstr(r.body, "read-only"));
    rc_free(&r);
    req("GET", "/rot/schema", NULL, "application/json", NULL, 0, 200, &r);
    assert_non_null(strstr(r.body, "\"READONLY\":\"true\""));
    rc_free(&r);
    const char *other = "{\"name\":\"other\",\"ColumnSchema\":[{\"name\":\"b\"}]}";
    req("PUT", "/sch/schema", "application/json", NULL, other, strlen(other), 400, &r);
    assert_non_null(strstr(r.body, "'other'"));
    rc_free(&r);
    v = get_json("/sch/schema", 200);
    assert_string_equal(json_value_member(json_value_member(v, "ColumnSchema")->items[0], "VERSIONS")->str,
                        "5");
    json_value_free(v);

    /* regions and exists */
    v = get_json("/sch/regions", 200);
    assert_string_equal(json_value_member(v, "name")->str, "sch");
    const json_value *regs = json_value_member(v, "Region");
    assert_int_equal(regs->n, 1);
    assert_non_null(strchr(json_value_member(regs->items[0], "location")->str, ':'));
    assert_non_null(strstr(json_value_member(regs->items[0], "name")->str, "sch,,"));
    json_value_free(v);
    x = get_xml("/sch/regions");
    assert_string_equal(x->name, "TableInfo");
    assert_non_null(xml_child(x, "Region"));
    xml_node_free(x);
    req("GET", "/sch/regions", NULL, "application/x-protobuf", NULL, 0, 200, &r);
    Strata__Rest__TableInfo *ti = strata__rest__table_info__unpack(NULL, r.body_len, (uint8_t *)r.body);
    assert_non_null(ti);
    assert_int_equal(ti->n_regions, 1);
    strata__rest__table_info__free_unpacked(ti, NULL);
    rc_free(&r);
    req_text("GET", "/sch/exists", NULL, NULL, 200);
    req_text("DELETE", "/sch/schema", NULL, NULL, 200);
    req_text("GET", "/sch/exists", NULL, NULL, 404);
    req("GET", "/sch/schema", NULL, "application/json", NULL, 0, 404, &r);
    assert_non_null(strstr(r.body, "sch"));
    rc_free(&r);
    req_text("GET", "/sch/regions", NULL, NULL, 404);
    req_text("DELETE", "/sch/schema", NULL, NULL, 404);
}

/* ---- rows ---- */

static void test_binary_round_trip(void **state)
{
    create_table("bin", "{\"name\":\"cf\",\"VERSIONS\":\"1\"}");
    /* a key, qualifier and value holding every byte value */
    uint8_t key[256], qual[255], val[512];
    for (int i = 0; i < 256; i++)
        key[i] = (uint8_t)(255 - i);
    for (int i = 0; i < 255; i++)
        qual[i] = (uint8_t)(i + 1);
    for (int i = 0; i < 512; i++)
        val[i] = (uint8_t)(i * 7);
    uint8_t col[258];
    memcpy(col, "cf:", 3);
    memcpy(col + 3, qual, sizeof(qual));
    char *k64 = b64(key, sizeof(key)), *c64 = b64(col, sizeof(col)), *v64 = b64(val, sizeof(val));
    /* in JSON */
    size_t bl = strlen(k64) + strlen(c64) + strlen(v64) + 200;
    char *body = malloc(bl);
    snprintf(body, bl, "{\"Row\":[{\"key\":\"%s\",\"Cell\":[{\"column\":\"%s\",\"$\":\"%s\"}]}]}",
             k64, c64, v64);
    req_text("PUT", "/bin/x", "application/json", body, 200);
    /* read back by a path with every byte percent-encoded */
    char *kp = pct(key, sizeof(key));
    char path[2048];
    snprintf(path, sizeof(path), "/bin/%s", kp);
    json_value *doc = get_json(path, 200);
    const json_value *row = json_value_member(doc, "Row")->items[0];
    char *gk = NULL, *gc = NULL, *gv = NULL;
    assert_int_equal(unb64(json_value_member(row, "key"), &gk), sizeof(key));
    assert_memory_equal(gk, key, sizeof(key));
    const json_value *cell = json_value_member(row, "Cell")->items[0];
    assert_int_equal(unb64(json_value_member(cell, "column"), &gc), sizeof(col));
    assert_memory_equal(gc, col, sizeof(col));
    assert_int_equal(unb64(json_value_member(cell, "$"), &gv), sizeof(val));
    assert_memory_equal(gv, val, sizeof(val));
    free(gk);
    free(gc);
    free(gv);
    json_value_free(doc);
    /* and as XML */
    xml_node *x = get_xml(path);
    assert_string_equal(x->name, "CellSet");
    assert_string_equal(xml_attr(x->children[0], "key"), k64);
    assert_string_equal(xml_attr(x->children[0]->children[0], "column"), c64);
    assert_string_equal(x->children[0]->children[0]->text, v64);
    xml_node_free(x);
    /* and as protobuf */
    rc_resp r;
    req("GET", path, NULL, "application/x-protobuf", NULL, 0, 200, &r);
    Strata__Rest__CellSet *cs = strata__rest__cell_set__unpack(NULL, r.body_len, (uint8_t *)r.body);
    assert_non_null(cs);
    assert_int_equal(cs->n_rows, 1);
    assert_int_equal(cs->rows[0]->key.len, sizeof(key));
    assert_memory_equal(cs->rows[0]->key.data, key, sizeof(key));
    assert_int_equal(cs->rows[0]->values[0]->data.len, sizeof(val));
    assert_memory_equal(cs->rows[0]->values[0]->data.data, val, sizeof(val));
    strata__rest__cell_set__free_unpacked(cs, NULL);
    rc_free(&r);
    /* one value as application/octet-stream, through a percent-encoded column */
    char *cp = pct(col, sizeof(col));
    char vpath[4096];
    snprintf(vpath, sizeof(vpath), "/bin/%s/%s", kp, cp);
    req("GET", vpath, NULL, "application/octet-stream", NULL, 0, 200, &r);
    assert_int_equal(r.body_len, sizeof(val));
    assert_memory_equal(r.body, val, sizeof(val));
    char ts[40];
    assert_true(rc_header(&r, "X-Timestamp", ts, sizeof(ts)));
    assert_true(atoll(ts) > 0);
    rc_free(&r);
    /* a protobuf CellSet put of a second binary row */
    uint8_t key2[3] = {0, 0xff, '/'};
    Strata__Rest__Cell pc = STRATA__REST__CELL__INIT, *pcp = &pc;
    pc.has_column = pc.has_data = true;
    pc.column.data = col;
    pc.column.len = sizeof(col);
    pc.data.data = (uint8_t *)"\x00\x01\x02";
    pc.data.len = 3;
    Strata__Rest__CellSet__Row prow = STRATA__REST__CELL_SET__ROW__INIT, *prowp = &prow;
    prow.key.data = key2;
    prow.key.len = sizeof(key2);
    prow.values = &pcp;
    prow.n_values = 1;
    Strata__Rest__CellSet pset = STRATA__REST__CELL_SET__INIT;
    pset.rows = &prowp;
    pset.n_rows = 1;
    uint8_t pb[1024];
    size_t pl = strata__rest__cell_set__pack(&pset, pb);
    req("PUT", "/bin/x", "application/x-protobuf", NULL, pb, pl, 200, &r);
    rc_free(&r);
    char *k2p = pct(key2, sizeof(key2));
    snprintf(vpath, sizeof(vpath), "/bin/%s/%s", k2p, cp);
    req("GET", vpath, NULL, "application/octet-stream", NULL, 0, 200, &r);
    assert_int_equal(r.body_len, 3);
    assert_memory_equal(r.body, "\x00\x01\x02", 3);
    rc_free(&r);
    free(k2p);
    free(cp);
    free(kp);
    free(body);
    free(k64);
    free(c64);
    free(v64);
}

static void test_rows(void **state)
{
    create_table("rows", "{\"name\":\"cf\",\"VERSIONS\":\"5\"},{\"name\":\"g\"}");
    /* XML CellSet with explicit timestamps: three versions of one column */
    char *c = b64("cf:a", 4);
    char body[4096];
    snprintf(body, sizeof(body),
             "<CellSet><Row key=\"%s\"><Cell column=\"%s\" timestamp=\"100\">%s</Cell>"
             "<Cell column=\"%s\" timestamp=\"200\">%s</Cell><Cell column=\"%s\" "
             "timestamp=\"300\">%s</Cell></Row></CellSet>",
             "cjE=", c, "djE=", c, "djI=", c, "djM="); /* r1; v1 v2 v3 */
    req_text("PUT", "/rows/r1", "text/xml", body, 200);
    /* one version by default, the newest */
    char *v = get_value("/rows/r1/cf:a");
    assert_string_equal(v, "v3");
    free(v);
    /* ?v=3 all three, newest first */
    json_value *doc = get_json("/rows/r1/cf:a?v=3", 200);
    const json_value *cells = json_value_member(json_value_member(doc, "Row")->items[0], "Cell");
    assert_int_equal(cells->n, 3);
    assert_string_equal(json_value_member(cells->items[2], "timestamp")->str, "100");
    json_value_free(doc);
    /* one timestamp: exactly that version; a range [150, 301): two versions */
    v = get_value("/rows/r1/cf:a/200");
    assert_string_equal(v, "v2");
    free(v);
    doc = get_json("/rows/r1/cf:a/150,301?v=5", 200);
    assert_int_equal(json_value_member(json_value_member(doc, "Row")->items[0], "Cell")->n, 2);
    json_value_free(doc);
    req_text("GET", "/rows/r1/cf:a/50", NULL, NULL, 404);

    /* binary put with X-Timestamp */
    const char *hs[] = {"Content-Type: application/octet-stream", "X-Timestamp: 777", NULL};
    rc_resp r;
    assert_int_equal(rc_request(port, "PUT", "/rows/r2/g:b", hs, "raw\nbytes", 9, &r), 0);
    assert_int_equal(r.status, 200);
    rc_free(&r);
    req("GET", "/rows/r2/g:b", NULL, "application/octet-stream", NULL, 0, 200, &r);
    assert_int_equal(r.body_len, 9);
    assert_memory_equal(r.body, "raw\nbytes", 9);
    char ts[32];
    assert_true(rc_header(&r, "X-Timestamp", ts, sizeof(ts)));
    assert_string_equal(ts, "777");
    rc_free(&r);
    /* octet-stream needs exactly one column */
    req("GET", "/rows/r2", NULL, "application/octet-stream", NULL, 0, 400, &r);
    assert_non_null(strstr(r.body, "exactly one cell"));
    rc_free(&r);

    /* several rows: ranges, globs, multiget */
    put_cell("rows", "s1", "cf:x", "1");
    put_cell("rows", "s2", "cf:x", "2");
    put_cell("rows", "s3", "cf:x", "3");
    put_cell("rows", "t1", "cf:x", "4");
    doc = get_json("/rows/s1,s3/cf", 200);
    assert_int_equal(json_value_member(doc, "Row")->n, 2);
    json_value_free(doc);
    doc = get_json("/rows/s*/cf:x", 200);
    assert_int_equal(json_value_member(doc, "Row")->n, 3);
    json_value_free(doc);
    doc = get_json("/rows/multiget?row=s1&row=t1&row=nope", 200);
    assert_int_equal(json_value_member(doc, "Row")->n, 2);
    json_value_free(doc);
    doc = get_json("/rows/multiget/cf:x?row=s2&row=s3", 200);
    assert_int_equal(json_value_member(doc, "Row")->n, 2);
    json_value_free(doc);
    req_text("GET", "/rows/multiget?row=nope1&row=nope2", NULL, NULL, 404);
    req_text("GET", "/rows/nope", NULL, NULL, 404);
    req_text("GET", "/nosuchtable/r1", NULL, NULL, 404);
    req("GET", "/rows/r1/zz:q", NULL, "application/json", NULL, 0, 404, &r);
    assert_non_null(strstr(r.body, "zz"));
    rc_free(&r);
    /* HEAD: the headers, no body */
    req("HEAD", "/rows/r1/cf:a", NULL, "application/json", NULL, 0, 200, &r);
    assert_int_equal(r.body_len, 0);
    char len[32];
    assert_true(rc_header(&r, "Content-Length", len, sizeof(len)));
    assert_true(atoi(len) > 10);
    rc_free(&r);

    /* deletes: a version up to a timestamp, a column, a family, a row */
    req_text("DELETE", "/rows/r1/cf:a/200", NULL, NULL, 200); /* every version <= 200 */
    doc = get_json("/rows/r1/cf:a?v=5", 200);
    assert_int_equal(json_value_member(json_value_member(doc, "Row")->items[0], "Cell")->n, 1);
    json_value_free(doc);
    put_cell("rows", "d1", "cf:a", "1");
    put_cell("rows", "d1", "cf:b", "2");
    put_cell("rows", "d1", "g:c", "3");
    req_text("DELETE", "/rows/d1/cf:a", NULL, NULL, 200);
    doc = get_json("/rows/d1", 200);
    assert_int_equal(json_value_member(json_value_member(doc, "Row")->items[0], "Cell")->n, 2);
    json_value_free(doc);
    req_text("DELETE", "/rows/d1/cf", NULL, NULL, 200);
    doc = get_json("/rows/d1", 200);
    assert_int_equal(json_value_member(json_value_member(doc, "Row")->items[0], "Cell")->n, 1);
    json_value_free(doc);
    req_text("DELETE", "/rows/d1", NULL, NULL, 200);
    req_text("GET", "/rows/d1", NULL, NULL, 404);
    free(c);
}

static void test_check_ops(void **state)
{
    create_table("chk", "{\"name\":\"cf\"}");
    put_cell("chk", "r", "cf:a", "old");
    char *k = b64("r", 1), *ca = b64("cf:a", 4), *cb = b64("cf:b", 4), *cn = b64("cf:n", 4);
    char *vold = b64("old", 3), *vnew = b64("new", 3), *vx = b64("x", 1);
    char body[2048];
    /* check=put: put cf:a=new and cf:b=x if cf:a is "old" */
    snprintf(body, sizeof(body),
             "{\"Row\":[{\"key\":\"%s\",\"Cell\":[{\"column\":\"%s\",\"$\":\"%s\"},"
             "{\"column\":\"%s\",\"$\":\"%s\"},{\"column\":\"%s\",\"$\":\"%s\"}]}]}",
             k, ca, vnew, cb, vx, ca, vold);
    req_text("PUT", "/chk/r?check=put", "application/json", body, 200);
    char *v = get_value("/chk/r/cf:a");
    assert_string_equal(v, "new");
    free(v);
    /* the same again: cf:a no longer holds "old" */
    req_text("PUT", "/chk/r?check=put", "application/json", body, 304);
    /* check=delete: delete cf:b if cf:a holds "new"; a wrong value first */
    snprintf(body, sizeof(body),
             "{\"Row\":[{\"key\":\"%s\",\"Cell\":[{\"column\":\"%s\",\"$\":\"\"},"
             "{\"column\":\"%s\",\"$\":\"%s\"}]}]}",
             k, cb, ca, vold);
    req_text("PUT", "/chk/r?check=delete", "application/json", body, 304);
    v = get_value("/chk/r/cf:b");
    assert_string_equal(v, "x");
    free(v);
    snprintf(body, sizeof(body),
             "{\"Row\":[{\"key\":\"%s\",\"Cell\":[{\"column\":\"%s\",\"$\":\"\"},"
             "{\"column\":\"%s\",\"$\":\"%s\"}]}]}",
             k, cb, ca, vnew);
    req_text("PUT", "/chk/r?check=delete", "application/json", body, 200);
    req_text("GET", "/chk/r/cf:b", NULL, NULL, 404);
    /* check=increment twice by 5: an 8-byte counter of 10; returnResult answers it */
    char *five = b64("5", 1);
    snprintf(body, sizeof(body),
             "{\"Row\":[{\"key\":\"%s\",\"Cell\":[{\"column\":\"%s\",\"$\":\"%s\"}]}]}", k, cn,
             five);
    req_text("PUT", "/chk/r?check=increment", "application/json", body, 200);
    rc_resp r;
    req("PUT", "/chk/r?check=increment&returnResult=true", "application/json", "application/json",
        body, strlen(body), 200, &r);
    json_value *doc = NULL;
    assert_int_equal(json_value_parse(r.body, r.body_len, &doc), ST_OK);
    char *counter = NULL;
    size_t cl = unb64(json_value_member(json_value_member(json_value_member(doc, "Row")->items[0],
                                                           "Cell")->items[0],
                                        "$"),
                      &counter);
    assert_int_equal(cl, 8);
    assert_memory_equal(counter, "\0\0\0\0\0\0\0\x0a", 8);
    free(counter);
    json_value_free(doc);
    rc_free(&r);
    /* an increment amount that is not a number */
    snprintf(body, sizeof(body),
             "{\"Row\":[{\"key\":\"%s\",\"Cell\":[{\"column\":\"%s\",\"$\":\"%s\"}]}]}", k, cn, vx);
    req_text("PUT", "/chk/r?check=increment", "application/json", body, 400);
    /* check=append, the column from the path */
    char *tail = b64("-tail", 5);
    snprintf(body, sizeof(body), "{\"Row\":[{\"key\":\"%s\",\"Cell\":[{\"$\":\"%s\"}]}]}", k, tail);
    req_text("POST", "/chk/r/cf:a?check=append", "application/json", body, 200);
    v = get_value("/chk/r/cf:a");
    assert_string_equal(v, "new-tail");
    free(v);
    req_text("PUT", "/chk/r?check=bogus", "application/json", body, 400);
    free(k);
    free(ca);
    free(cb);
    free(cn);
    free(vold);
    free(vnew);
    free(vx);
    free(five);
    free(tail);
}

/* ---- scanners ---- */

/* Creates a scanner with body (media ctype); its Location path ("/t/scanner/<id>"). */
static char *new_scanner(const char *table, const char *ctype, const void *body, size_t len)
{
    char path[300];
    snprintf(path, sizeof(path), "/%s/scanner", table);
    rc_resp r;
    req("PUT", path, ctype, NULL, body, len, 201, &r);
    char loc[512];
    assert_true(rc_header(&r, "Location", loc, sizeof(loc)));
    rc_free(&r);
    const char *p = strstr(loc, "://");
    assert_non_null(p);
    p = strchr(p + 3, '/');
    assert_non_null(p);
    assert_non_null(strstr(p, "/scanner/"));
    return strdup(p);
}

/* GETs batches of scanner sc as JSON until 204; the rows and cells seen. */
static void drain_scanner(const char *sc, size_t *rows, size_t *cells, size_t *answers)
{
    *rows = *cells = *answers = 0;
    for (int i = 0; i < 1000; i++) {
        rc_resp r;
        assert_int_equal(rc_get(port, sc, "application/json", &r), 0);
        if (r.status == 204) {
            rc_free(&r);
            return;
        }
        must(0, &r, 200, sc);
        json_value *doc = NULL;
        assert_int_equal(json_value_parse(r.body, r.body_len, &doc), ST_OK);
        const json_value *rw = json_value_member(doc, "Row");
        *rows += rw->n;
        for (size_t k = 0; k < rw->n; k++)
            *cells += json_value_member(rw->items[k], "Cell")->n;
        (*answers)++;
        json_value_free(doc);
        rc_free(&r);
    }
    fail_msg("scanner %s did not end", sc);
}

static void test_scanners(void **state)
{
    create_table("scn", "{\"name\":\"cf\"}");
    for (int i = 0; i < 10; i++) {
        char row[16];
        snprintf(row, sizeof(row), "row%02d", i);
        put_cell("scn", row, "cf:a", "x");
        put_cell("scn", row, "cf:b", "y");
    }
    /* JSON, batch 3: 20 cells in 7 answers, then 204; DELETE; then 404 */
    const char *js = "{\"batch\":3}";
    char *sc = new_scanner("scn", "application/json", js, strlen(js));
    size_t rows, cells, answers;
    drain_scanner(sc, &rows, &cells, &answers);
    assert_int_equal(cells, 20);
    assert_int_equal(answers, 7);
    req_text("GET", sc, NULL, NULL, 204); /* still open, still exhausted */
    req_text("DELETE", sc, NULL, NULL, 200);
    req_text("GET", sc, NULL, NULL, 404);
    req_text("DELETE", sc, NULL, NULL, 404);
    free(sc);
    /* XML with a range and a column: rows 02..05, cf:b only; whole rows per answer */
    char *s2 = b64("row02", 5), *e2 = b64("row06", 5), *cb = b64("cf:b", 4);
    char body[1024];
    snprintf(body, sizeof(body), "<Scanner startRow=\"%s\" endRow=\"%s\"><column>%s</column></Scanner>",
             s2, e2, cb);
    sc = new_scanner("scn", "text/xml", body, strlen(body));
    drain_scanner(sc, &rows, &cells, &answers);
    assert_int_equal(rows, 4);
    assert_int_equal(cells, 4);
    assert_int_equal(answers, 1);
    free(sc);
    /* protobuf with a JSON filter (PrefixFilter row07) */
    Strata__Rest__Scanner m = STRATA__REST__SCANNER__INIT;
    char *p7 = b64("row07", 5);
    char filter[256];
    snprintf(filter, sizeof(filter), "{\"type\":\"PrefixFilter\",\"value\":\"%s\"}", p7);
    m.filter = filter;
    m.has_batch = true;
    m.batch = 100;
    uint8_t pb[512];
    size_t pl = strata__rest__scanner__pack(&m, pb);
    sc = new_scanner("scn", "application/x-protobuf", pb, pl);
    rc_resp r;
    req("GET", sc, NULL, "application/x-protobuf", NULL, 0, 200, &r);
    Strata__Rest__CellSet *cs = strata__rest__cell_set__unpack(NULL, r.body_len, (uint8_t *)r.body);
    assert_non_null(cs);
    assert_int_equal(cs->n_rows, 1);
    assert_memory_equal(cs->rows[0]->key.data, "row07", 5);
    strata__rest__cell_set__free_unpacked(cs, NULL);
    rc_free(&r);
    req_text("DELETE", sc, NULL, NULL, 200);
    free(sc);
    /* a filter list, reversed, and ?n= rows per answer */
    snprintf(body, sizeof(body),
             "{\"reversed\":true,\"filter\":\"{\\\"type\\\":\\\"FilterList\\\",\\\"op\\\":"
             "\\\"MUST_PASS_ALL\\\",\\\"filters\\\":[{\\\"type\\\":\\\"QualifierFilter\\\","
             "\\\"op\\\":\\\"EQUAL\\\",\\\"comparator\\\":{\\\"type\\\":\\\"BinaryComparator\\\","
             "\\\"value\\\":\\\"YQ==\\\"}}]}\"}");
    sc = new_scanner("scn", "application/json", body, strlen(body));
    char paged[400];
    snprintf(paged, sizeof(paged), "%s?n=4", sc);
    json_value *doc = get_json(paged, 200);
    const json_value *rw = json_value_member(doc, "Row");
    assert_int_equal(rw->n, 4);
    char *k0 = NULL;
    unb64(json_value_member(rw->items[0], "key"), &k0);
    assert_string_equal(k0, "row09"); /* reversed */
    free(k0);
    assert_int_equal(json_value_member(rw->items[0], "Cell")->n, 1); /* only cf:a */
    json_value_free(doc);
    req_text("DELETE", sc, NULL, NULL, 200);
    free(sc);
    /* binary answers: one cell each, with X-Row, X-Column, X-Timestamp */
    sc = new_scanner("scn", "application/json", "{}", 2);
    req("GET", sc, NULL, "application/octet-stream", NULL, 0, 200, &r);
    assert_string_equal(r.body, "x");
    char hv[128];
    assert_true(rc_header(&r, "X-Row", hv, sizeof(hv)));
    assert_string_equal(hv, "cm93MDA="); /* row00 */
    assert_true(rc_header(&r, "X-Column", hv, sizeof(hv)));
    assert_string_equal(hv, "Y2Y6YQ=="); /* cf:a */
    assert_true(rc_header(&r, "X-Timestamp", hv, sizeof(hv)));
    rc_free(&r);
    req_text("DELETE", sc, NULL, NULL, 200);
    free(sc);
    /* refusals at creation: a missing table, an unsupported filter, a bad document */
    req_text("PUT", "/nosuch/scanner", "application/json", "{}", 404);
    const char *fuzzy = "{\"filter\":\"{\\\"type\\\":\\\"FuzzyRowFilter\\\"}\"}";
    req("PUT", "/scn/scanner", "application/json", NULL, fuzzy, strlen(fuzzy), 400, &r);
    assert_non_null(strstr(r.body, "FuzzyRowFilter"));
    rc_free(&r);
    req_text("PUT", "/scn/scanner", "application/json", "{\"batch\":\"many\"}", 400);
    req_text("PUT", "/scn/scanner", "application/json", "{\"colum\":[]}", 400);
    req_text("GET", "/scn/scanner/0123456789abcdef01234567", NULL, NULL, 404);
    free(s2);
    free(e2);
    free(cb);
    free(p7);
}

static void test_stateless_scan(void **state)
{
    create_table("sls", "{\"name\":\"cf\"}");
    for (int i = 0; i < 250; i++) {
        char row[16];
        snprintf(row, sizeof(row), "%s%03d", i % 2 ? "b" : "a", i);
        put_cell("sls", row, "cf:q", "v");
    }
    json_value *doc = get_json("/sls/*", 200);
    assert_int_equal(json_value_member(doc, "Row")->n, 250);
    json_value_free(doc);
    doc = get_json("/sls/a*", 200);
    assert_int_equal(json_value_member(doc, "Row")->n, 125);
    json_value_free(doc);
    doc = get_json("/sls/*?limit=7&startrow=b", 200);
    const json_value *rw = json_value_member(doc, "Row");
    assert_int_equal(rw->n, 7);
    char *k = NULL;
    unb64(json_value_member(rw->items[0], "key"), &k);
    assert_string_equal(k, "b001");
    free(k);
    json_value_free(doc);
    doc = get_json("/sls/*?startrow=a010&endrow=a020", 200);
    assert_int_equal(json_value_member(doc, "Row")->n, 5);
    json_value_free(doc);
    doc = get_json("/sls/b*?reversed=true&limit=2", 200);
    rw = json_value_member(doc, "Row");
    assert_int_equal(rw->n, 2);
    unb64(json_value_member(rw->items[0], "key"), &k);
    assert_string_equal(k, "b249");
    free(k);
    json_value_free(doc);
    doc = get_json("/sls/*?filter=RowFilter(%3D%2C%20'binary%3Aa100')", 200);
    assert_int_equal(json_value_member(doc, "Row")->n, 1);
    json_value_free(doc);
    doc = get_json("/sls/*?column=cf:none", 200);
    assert_int_equal(json_value_member(doc, "Row")->n, 0); /* {"Row":[]} */
    json_value_free(doc);
    xml_node *x = get_xml("/sls/a*?limit=3");
    assert_string_equal(x->name, "CellSet");
    assert_int_equal(x->nchildren, 3);
    xml_node_free(x);
    /* protobuf: HBase's stream of CellSets, each after its 4-byte big-endian length */
    rc_resp r;
    req("GET", "/sls/*", NULL, "application/x-protobuf", NULL, 0, 200, &r);
    size_t off = 0, total = 0, sets = 0;
    while (off + 4 <= r.body_len) {
        const uint8_t *p = (const uint8_t *)r.body + off;
        size_t len = (size_t)p[0] << 24 | (size_t)p[1] << 16 | (size_t)p[2] << 8 | p[3];
        assert_true(off + 4 + len <= r.body_len);
        Strata__Rest__CellSet *cs = strata__rest__cell_set__unpack(NULL, len, p + 4);
        assert_non_null(cs);
        total += cs->n_rows;
        strata__rest__cell_set__free_unpacked(cs, NULL);
        off += 4 + len;
        sets++;
    }
    assert_int_equal(off, r.body_len);
    assert_int_equal(total, 250);
    assert_true(sets >= 3);
    rc_free(&r);
    req("GET", "/sls/*?limit=x", NULL, "application/json", NULL, 0, 400, &r);
    assert_non_null(strstr(r.body, "limit"));
    rc_free(&r);
    req("GET", "/sls/*?filter=NoSuchFilter()", NULL, "application/json", NULL, 0, 400, &r);
    assert_non_null(strstr(r.body, "NoSuchFilter"));
    rc_free(&r);
    req_text("GET", "/nosuch/*", NULL, NULL, 404);
}

/* A scan of many rows streams (chunked) and arrives whole. */
static void test_streamed_answer(void **state)
{
    create_table("big", "{\"name\":\"cf\"}");
    /* 3000 rows of 400-byte values: about 1.6 MB of JSON, several chunks */
    char val[401];
    memset(val, 'v', 400);
    val[400] = '\0';
    char *v64 = b64(val, 400);
    buf_t body = {0};
    for (int batch = 0; batch < 3; batch++) {
        buf_reset(&body);
        buf_append(&body, "{\"Row\":[", 8);
        for (int i = 0; i < 1000; i++) {
            char row[32], *k;
            snprintf(row, sizeof(row), "r%05d", batch * 1000 + i);
            k = b64(row, strlen(row));
            char cell[1024];
            int n = snprintf(cell, sizeof(cell),
                             "%s{\"key\":\"%s\",\"Cell\":[{\"column\":\"Y2Y6cQ==\",\"$\":\"%s\"}]}",
                             i ? "," : "", k, v64);
            buf_append(&body, cell, (size_t)n);
            free(k);
        }
        buf_append(&body, "]}", 2);
        rc_resp r;
        req("PUT", "/big/x", "application/json", NULL, body.data, body.len, 200, &r);
        rc_free(&r);
    }
    buf_free(&body);
    rc_resp r;
    req("GET", "/big/*", NULL, "application/json", NULL, 0, 200, &r);
    char te[64];
    assert_true(rc_header(&r, "Transfer-Encoding", te, sizeof(te)));
    assert_string_equal(te, "chunked");
    json_value *doc = NULL;
    assert_int_equal(json_value_parse(r.body, r.body_len, &doc), ST_OK);
    assert_int_equal(json_value_member(doc, "Row")->n, 3000);
    json_value_free(doc);
    rc_free(&r);
    /* a row range in the path streams too */
    req("GET", "/big/r00000,r02500", NULL, "text/xml", NULL, 0, 200, &r);
    xml_node *x = NULL;
    assert_int_equal(xml_parse(r.body, r.body_len, &x), ST_OK);
    assert_int_equal(x->nchildren, 2500);
    xml_node_free(x);
    rc_free(&r);
    free(v64);
}

static void test_metrics_and_health(void **state)
{
    rc_resp r;
    req("GET", "/healthz", NULL, NULL, NULL, 0, 200, &r);
    assert_string_equal(r.body, "ok\n");
    rc_free(&r);
    req("GET", "/metrics", NULL, NULL, NULL, 0, 200, &r);
    assert_non_null(strstr(r.body, "# TYPE rest_requests_total counter"));
    assert_non_null(strstr(r.body, "rest_operations_total{op=\"get\",outcome=\"success\"}"));
    assert_non_null(strstr(r.body, "rest_responses_total{code=\"2xx\"}"));
    assert_non_null(strstr(r.body, "rest_scanners_open"));
    const char *p = strstr(r.body, "\nrest_requests_total ");
    assert_non_null(p);
    assert_true(atoll(p + 21) > 50);
    rc_free(&r);
}

int main(void)
{
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_rest", "STRATA_BIN is not set");
    if (!tu_have_zookeeper())
        return tu_skip_all("test_rest", "ZooKeeper (the zookeeper package and java) is missing");
    if (!rc_have_curl())
        return tu_skip_all("test_rest", "curl is not installed");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_and_status),
        cmocka_unit_test(test_table_list),
        cmocka_unit_test(test_namespaces),
        cmocka_unit_test(test_schema),
        cmocka_unit_test(test_binary_round_trip),
        cmocka_unit_test(test_rows),
        cmocka_unit_test(test_check_ops),
        cmocka_unit_test(test_scanners),
        cmocka_unit_test(test_stateless_scan),
        cmocka_unit_test(test_streamed_answer),
        cmocka_unit_test(test_metrics_and_health),
    };
    return tu_run_group_tests(tests, setup, teardown);
}
