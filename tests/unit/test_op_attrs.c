/*
 * test_op_attrs.c - operation attributes and scan metrics on the client side
 * (client/op_attrs.c, client/scan_metrics.c) and the bounds both sides share
 * (common/op_attr.c): setters replace and remove, getters lend; names and values past
 * their bounds and a 65th name are refused with STRATA_ERR_INVALID_ARGUMENT naming the
 * attribute and change nothing; a scan keeps a place for the metrics attribute; the
 * attributes reach MutationProto and Get on the wire (and survive the copies batches and
 * the mutator make); a received set that is too large, holds a name twice or an oversized
 * value is refused; scan metrics count a response's bytes as HBase estimates them and add
 * the server's counters; loopback and this host's names are local.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/client_internal.h"
#include "common/op_attr.h"
#include "common/rpc/rpc_proto.h"
#include "common/status.h"
#include "strata/strata.h"
#include "tests/support/testutil.h"

static void expect_invalid(char **err, const char *fragment)
{
    assert_non_null(*err);
    assert_int_equal(strata_error_code(*err), STRATA_ERR_INVALID_ARGUMENT);
    if (!strstr(*err, fragment))
        fail_msg("'%s' lacks '%s'", *err, fragment);
    strata_free(*err);
    *err = NULL;
}

static void set_replace_remove(void **state)
{
    (void)state;
    char *err = NULL;
    size_t len = 99;
    strata_mutation_t *m = strata_put_create("r", 1);
    assert_null(strata_mutation_attribute(m, "k", &len));
    assert_int_equal(len, 0);
    strata_mutation_set_attribute(m, "k", "v1", 2, &err);
    strata_mutation_set_attribute(m, "k", "value2", 6, &err);
    strata_mutation_set_attribute(m, "e", "", 0, &err);
    assert_null(err);
    assert_memory_equal(strata_mutation_attribute(m, "k", &len), "value2", 6);
    assert_int_equal(len, 6);
    assert_non_null(strata_mutation_attribute(m, "e", &len));
    assert_int_equal(len, 0);
    strata_mutation_set_attribute(m, "k", NULL, 0, &err);
    strata_mutation_set_attribute(m, "never-set", NULL, 0, &err);
    assert_null(err);
    assert_null(strata_mutation_attribute(m, "k", NULL));
    strata_mutation_destroy(m);

    strata_get_t *g = strata_get_create("r", 1);
    strata_get_set_attribute(g, "a", "\x00\x01", 2, &err);
    assert_null(err);
    assert_memory_equal(strata_get_attribute(g, "a", &len), "\x00\x01", 2);
    strata_get_destroy(g);

    strata_scan_t *s = strata_scan_create();
    strata_scan_set_attribute(s, "a", "x", 1, &err);
    assert_null(err);
    assert_memory_equal(strata_scan_attribute(s, "a", &len), "x", 1);
    strata_scan_destroy(s);
}

static void bounds_refused_naming_the_attribute(void **state)
{
    (void)state;
    char *err = NULL, name[OP_ATTR_MAX_NAME + 2];
    char *big = calloc(1, OP_ATTR_MAX_VALUE + 1);
    assert_non_null(big);
    strata_mutation_t *m = strata_delete_create("r", 1);
    strata_mutation_set_attribute(m, "", "v", 1, &err);
    expect_invalid(&err, "operation attribute ''");
    strata_mutation_set_attribute(m, NULL, "v", 1, &err);
    expect_invalid(&err, "name is NULL");
    memset(name, 'n', OP_ATTR_MAX_NAME + 1);
    name[OP_ATTR_MAX_NAME + 1] = '\0';
    strata_mutation_set_attribute(m, name, "v", 1, &err);
    expect_invalid(&err, "its name has 257 bytes, more than 256");
    name[OP_ATTR_MAX_NAME] = '\0'; /* 256 bytes: fits */
    strata_mutation_set_attribute(m, name, "v", 1, &err);
    assert_null(err);
    strata_mutation_set_attribute(m, "big", big, OP_ATTR_MAX_VALUE + 1, &err);
    expect_invalid(&err, "operation attribute 'big': its value has 65537 bytes, more than 65536");
    strata_mutation_set_attribute(m, "ok", "v", 1, &err);
    strata_mutation_set_attribute(m, "ok", big, OP_ATTR_MAX_VALUE + 1, &err);
    expect_invalid(&err, "'ok'");
    size_t len;
    assert_memory_equal(strata_mutation_attribute(m, "ok", &len), "v", 1); /* unchanged */
    strata_mutation_set_attribute(m, "max", big, OP_ATTR_MAX_VALUE, &err);
    assert_null(err);
    strata_mutation_set_attribute(m, "bin\x01'", big, OP_ATTR_MAX_VALUE + 1, &err);
    expect_invalid(&err, "operation attribute 'bin\\x01\\x27'");
    assert_null(strata_mutation_attribute(m, "big", NULL));
    strata_mutation_destroy(m);
    free(big);
}

static void at_most_64_names_a_scan_keeps_one_for_metrics(void **state)
{
    (void)state;
    char *err = NULL, name[32];
    strata_mutation_t *m = strata_increment_create("r", 1);
    for (int i = 0; i < OP_ATTR_MAX_COUNT; i++) {
        snprintf(name, sizeof(name), "k%d", i);
        strata_mutation_set_attribute(m, name, "v", 1, &err);
        assert_null(err);
    }
    strata_mutation_set_attribute(m, "one-more", "v", 1, &err);
    expect_invalid(&err, "operation attribute 'one-more': an operation has at most 64");
    strata_mutation_set_attribute(m, "k3", "replaced", 8, &err); /* replacing fits */
    assert_null(err);
    strata_mutation_destroy(m);

    strata_scan_t *s = strata_scan_create();
    for (int i = 0; i < OP_ATTR_MAX_COUNT - 1; i++) {
        snprintf(name, sizeof(name), "k%d", i);
        strata_scan_set_attribute(s, name, "v", 1, &err);
        assert_null(err);
    }
    strata_scan_set_attribute(s, "one-more", "v", 1, &err);
    expect_invalid(&err, "one place kept for scan.attributes.metrics.enable");
    strata_scan_set_metrics_enabled(s, 1); /* its place is there */
    assert_int_equal(strata_scan_metrics_enabled(s), 1);
    strata_scan_destroy(s);
}

static void metrics_attribute_as_hbase_writes_it(void **state)
{
    (void)state;
    char *err = NULL;
    size_t len;
    strata_scan_t *s = strata_scan_create();
    assert_int_equal(strata_scan_metrics_enabled(s), 0);
    strata_scan_set_metrics_enabled(s, 1);
    const char *v = strata_scan_attribute(s, STRATA_SCAN_METRICS_ATTRIBUTE, &len);
    assert_int_equal(len, 1);
    assert_int_equal((unsigned char)v[0], 0xFF);
    assert_int_equal(strata_scan_metrics_enabled(s), 1);
    strata_scan_set_metrics_enabled(s, 0);
    v = strata_scan_attribute(s, STRATA_SCAN_METRICS_ATTRIBUTE, &len);
    assert_int_equal(len, 1);
    assert_int_equal(v[0], 0);
    assert_int_equal(strata_scan_metrics_enabled(s), 0);
    strata_scan_set_attribute(s, STRATA_SCAN_METRICS_ATTRIBUTE, "\x01", 1, &err);
    assert_null(err);
    assert_int_equal(strata_scan_metrics_enabled(s), 1);
    strata_scan_set_attribute(s, STRATA_SCAN_METRICS_ATTRIBUTE, "", 0, &err);
    assert_int_equal(strata_scan_metrics_enabled(s), 0);
    strata_scan_destroy(s);
}

/* Packs msg's view and unpacks it as a MutationProto. */
static Strata__Client__MutationProto *wire_mutation(const strata_mutation_t *m)
{
    mutation_pb pb;
    buf_t b = {0};
    assert_int_equal(mutation_pb_build(&pb, m), ST_OK);
    assert_int_equal(rpc_proto_pack(&pb.msg.base, &b), ST_OK);
    mutation_pb_clear(&pb);
    Strata__Client__MutationProto *u = strata__client__mutation_proto__unpack(NULL, b.len, b.data);
    buf_free(&b);
    assert_non_null(u);
    return u;
}

static void attributes_on_the_wire_and_through_copies(void **state)
{
    (void)state;
    char *err = NULL;
    strata_mutation_t *m = strata_append_create("row", 3);
    strata_append_add(m, "f", 1, "q", 1, "x", 1);
    strata_mutation_set_attribute(m, "first", "1", 1, &err);
    strata_mutation_set_attribute(m, "second", "\x00\xff", 2, &err);
    assert_null(err);
    strata_mutation_t *copy = mutation_copy(m); /* what batches and the mutator keep */
    strata_mutation_destroy(m);
    Strata__Client__MutationProto *u = wire_mutation(copy);
    assert_int_equal(u->n_attribute, 2);
    assert_string_equal(u->attribute[0]->name, "first");
    assert_memory_equal(u->attribute[0]->value.data, "1", 1);
    assert_string_equal(u->attribute[1]->name, "second");
    assert_int_equal(u->attribute[1]->value.len, 2);
    assert_memory_equal(u->attribute[1]->value.data, "\x00\xff", 2);
    assert_int_equal(op_attr_check_set(u->attribute, u->n_attribute), ST_OK);
    assert_true(mutation_size(copy) > 3 + 2 + 2 + 6 + 2); /* the mutator's accounting */
    strata__client__mutation_proto__free_unpacked(u, NULL);
    strata_mutation_destroy(copy);

    strata_mutation_t *none = strata_put_create("r", 1);
    strata_put_add(none, "f", 1, "q", 1, STRATA_LATEST_TIMESTAMP, "v", 1);
    u = wire_mutation(none);
    assert_int_equal(u->n_attribute, 0);
    strata__client__mutation_proto__free_unpacked(u, NULL);
    strata_mutation_destroy(none);

    strata_get_t *g = strata_get_create("row", 3);
    strata_get_add_column(g, "f", 1, NULL, 0);
    strata_get_set_attribute(g, "g", "gv", 2, &err);
    strata_get_t *gc = get_copy(g);
    strata_get_destroy(g);
    get_pb gp;
    buf_t b = {0};
    assert_int_equal(get_pb_build(&gp, gc), ST_OK);
    assert_int_equal(rpc_proto_pack(&gp.msg.base, &b), ST_OK);
    get_pb_clear(&gp);
    Strata__Client__Get *ug = strata__client__get__unpack(NULL, b.len, b.data);
    assert_non_null(ug);
    assert_int_equal(ug->n_column, 1);
    assert_int_equal(ug->n_attribute, 1);
    assert_string_equal(ug->attribute[0]->name, "g");
    assert_memory_equal(ug->attribute[0]->value.data, "gv", 2);
    strata__client__get__free_unpacked(ug, NULL);
    buf_free(&b);
    strata_get_destroy(gc);
}

static void received_sets_checked(void **state)
{
    (void)state;
    Strata__Client__NameBytesPair p[OP_ATTR_MAX_COUNT + 1], *v[OP_ATTR_MAX_COUNT + 1];
    char names[OP_ATTR_MAX_COUNT + 1][16];
    for (int i = 0; i <= OP_ATTR_MAX_COUNT; i++) {
        strata__client__name_bytes_pair__init(&p[i]);
        snprintf(names[i], sizeof(names[i]), "n%d", i);
        p[i].name = names[i];
        p[i].has_value = 1;
        p[i].value = (ProtobufCBinaryData){1, (uint8_t *)"v"};
        v[i] = &p[i];
    }
    assert_int_equal(op_attr_check_set(v, OP_ATTR_MAX_COUNT), ST_OK);
    assert_int_equal(op_attr_check_set(v, OP_ATTR_MAX_COUNT + 1), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "65 operation attributes, more than 64"));
    p[2].name = "n1";
    assert_int_equal(op_attr_check_set(v, 3), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "operation attribute 'n1' is given twice"));
    p[2].name = "";
    assert_int_equal(op_attr_check_set(v, 3), ST_INVALID_ARGUMENT);
    p[2].name = names[2];
    p[2].value.len = OP_ATTR_MAX_VALUE + 1;
    assert_int_equal(op_attr_check_set(v, 3), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "'n2': its value has 65537 bytes"));
    p[2].value.len = 1;
    assert_ptr_equal(op_attr_find(v, 3, "n2"), &p[2]);
    assert_null(op_attr_find(v, 3, "n9"));
    assert_true(op_attr_true((const uint8_t *)"\xff", 1));
    assert_true(op_attr_true((const uint8_t *)"\x01\x00", 2));
    assert_false(op_attr_true((const uint8_t *)"\x00\x01", 2));
    assert_false(op_attr_true(NULL, 0));
}

static void metrics_from_a_response(void **state)
{
    (void)state;
    scan_metrics m;
    scan_metrics_start(&m, true);
    Strata__Client__Cell c1 = STRATA__CLIENT__CELL__INIT, c2 = STRATA__CLIENT__CELL__INIT;
    c1.row = (ProtobufCBinaryData){2, (uint8_t *)"r1"};
    c1.family = (ProtobufCBinaryData){1, (uint8_t *)"f"};
    c1.qualifier = (ProtobufCBinaryData){1, (uint8_t *)"a"};
    c1.value = (ProtobufCBinaryData){5, (uint8_t *)"hello"};
    c2 = c1;
    c2.value.len = 0;
    Strata__Client__Cell *cells[2] = {&c1, &c2};
    Strata__Client__Result r = STRATA__CLIENT__RESULT__INIT, *rs[1] = {&r};
    r.cell = cells;
    r.n_cell = 2;
    Strata__Client__NameInt64Pair p[3] = {STRATA__CLIENT__NAME_INT64_PAIR__INIT,
                                          STRATA__CLIENT__NAME_INT64_PAIR__INIT,
                                          STRATA__CLIENT__NAME_INT64_PAIR__INIT};
    Strata__Client__NameInt64Pair *pp[3] = {&p[0], &p[1], &p[2]};
    p[0].name = "ROWS_SCANNED", p[0].has_value = 1, p[0].value = 7;
    p[1].name = "ROWS_FILTERED", p[1].has_value = 1, p[1].value = 3;
    p[2].name = "SOMETHING_NEW", p[2].has_value = 1, p[2].value = 1000;
    Strata__Client__ScanMetrics sm = STRATA__CLIENT__SCAN_METRICS__INIT;
    sm.metrics = pp;
    sm.n_metrics = 3;
    Strata__Client__ScanResponse resp = STRATA__CLIENT__SCAN_RESPONSE__INIT;
    resp.results = rs;
    resp.n_results = 1;
    resp.scan_metrics = &sm;
    scan_metrics_call(&m, false);
    scan_metrics_response(&m, &resp, false);
    scan_metrics_call(&m, true);
    scan_metrics_response(&m, &resp, true);
    scan_metrics_failed(&m, ST_REGION_MOVED);
    scan_metrics_failed(&m, ST_TIMEOUT);
    scan_metrics_retry(&m, true);
    scan_metrics_region(&m);
    /* each cell: 24 + row + family + qualifier + value, HBase's estimate */
    int64_t bytes = (24 + 2 + 1 + 1 + 5) + (24 + 2 + 1 + 1);
    assert_int_equal(m.v[SM_BYTES_IN_RESULTS], 2 * bytes);
    assert_int_equal(m.v[SM_BYTES_IN_REMOTE_RESULTS], bytes);
    assert_int_equal(m.v[SM_ROWS_SCANNED], 14);
    assert_int_equal(m.v[SM_ROWS_FILTERED], 6);
    assert_int_equal(m.v[SM_RPC_CALLS], 2);
    assert_int_equal(m.v[SM_REMOTE_RPC_CALLS], 1);
    assert_int_equal(m.v[SM_NOT_SERVING_REGION_EXCEPTION], 1);
    assert_int_equal(m.v[SM_RPC_RETRIES], 1);
    assert_int_equal(m.v[SM_REMOTE_RPC_RETRIES], 1);
    assert_int_equal(m.v[SM_REGIONS_SCANNED], 1);
    for (int i = 1; i < SM_COUNT; i++) /* alphabetical, as the shell prints them */
        assert_true(strcmp(scan_metrics_name(i - 1), scan_metrics_name(i)) < 0);

    scan_metrics off;
    scan_metrics_start(&off, false);
    scan_metrics_call(&off, true);
    scan_metrics_response(&off, &resp, true);
    assert_int_equal(off.v[SM_RPC_CALLS], 0);
    assert_int_equal(off.v[SM_ROWS_SCANNED], 0);
}

static void scanner_metrics_only_when_enabled(void **state)
{
    (void)state;
    char *err = NULL;
    strata_options_t *o = strata_options_create();
    strata_options_add_region(o, "t", "r1", "", 0, "", 0, "127.0.0.1:1");
    strata_client_t *c = strata_client_open(o, &err);
    strata_options_destroy(o);
    assert_non_null(c);
    strata_table_t *t = strata_table_open(c, "t");
    strata_scan_t *s = strata_scan_create();
    strata_scanner_t *sc = strata_table_scan(t, s, &err);
    assert_int_equal(strata_scanner_metrics(sc, NULL, 0), 0);
    strata_scanner_close(sc);
    strata_scan_set_metrics_enabled(s, 1);
    sc = strata_table_scan(t, s, &err);
    strata_scan_metric out[STRATA_SCAN_METRICS_COUNT + 2];
    assert_int_equal(strata_scanner_metrics(sc, NULL, 0), STRATA_SCAN_METRICS_COUNT);
    assert_int_equal(strata_scanner_metrics(sc, out, 3), STRATA_SCAN_METRICS_COUNT);
    assert_string_equal(out[0].name, "BYTES_IN_REMOTE_RESULTS");
    assert_int_equal(strata_scanner_metrics(sc, out, STRATA_SCAN_METRICS_COUNT + 2),
                     STRATA_SCAN_METRICS_COUNT);
    assert_string_equal(out[STRATA_SCAN_METRICS_COUNT - 1].name, "RPC_RETRIES");
    for (int i = 0; i < STRATA_SCAN_METRICS_COUNT; i++)
        assert_int_equal(out[i].value, 0);
    strata_scanner_close(sc);
    strata_scan_destroy(s);
    strata_table_close(t);
    strata_client_close(c);
}

static void local_hosts(void **state)
{
    (void)state;
    char host[256];
    assert_true(client_host_is_local("127.0.0.1"));
    assert_true(client_host_is_local("127.3.4.5"));
    assert_true(client_host_is_local("::1"));
    assert_true(client_host_is_local("LOCALHOST"));
    assert_false(client_host_is_local("strata-test-host.invalid"));
    assert_false(client_host_is_local("192.0.2.1")); /* TEST-NET-1, on no machine */
    assert_false(client_host_is_local(""));
    if (gethostname(host, sizeof(host)) == 0 && host[0])
        assert_true(client_host_is_local(host));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(set_replace_remove),
        cmocka_unit_test(bounds_refused_naming_the_attribute),
        cmocka_unit_test(at_most_64_names_a_scan_keeps_one_for_metrics),
        cmocka_unit_test(metrics_attribute_as_hbase_writes_it),
        cmocka_unit_test(attributes_on_the_wire_and_through_copies),
        cmocka_unit_test(received_sets_checked),
        cmocka_unit_test(metrics_from_a_response),
        cmocka_unit_test(scanner_metrics_only_when_enabled),
        cmocka_unit_test(local_hosts),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
