/*
 * test_shell_cells.c - the shell's cell text without a cluster (shell/shell_cells.c):
 * puts and every delete marker type as HBase 2's to_string prints them, MAXLENGTH, binary
 * escaping; the catalog's decoded columns (info:regioninfo as HRegionInfo.toString, with
 * OFFLINE and SPLIT; info:serverstartcode and info:seqnum as numbers; a corrupt
 * regioninfo printed as bytes); and the client's cell types (strata_result_cell_type,
 * strata_cell_type_name, strata_result_value skipping markers).
 * Thread-safety: single-threaded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "client/client_internal.h"
#include "common/proto/master.pb-c.h"
#include "shell/shell_internal.h"
#include "strata/admin.h"

static const char *cell(int64_t ts, strata_cell_type type, const char *v, size_t len,
                        int64_t maxlength)
{
    static char out[512];
    buf_t b = {0};
    shell_cell_text(&b, ts, type, v, len, maxlength);
    snprintf(out, sizeof(out), "%s", (char *)b.data);
    buf_free(&b);
    return out;
}

static const char *meta_cell(const char *col, int64_t ts, strata_cell_type type, const void *v,
                             size_t len, int64_t maxlength)
{
    static char out[1024];
    buf_t b = {0};
    const char *colon = strchr(col, ':');
    shell_meta_cell_text(&b, col, (size_t)(colon - col), colon + 1, strlen(colon + 1), ts, type, v,
                         len, maxlength);
    snprintf(out, sizeof(out), "%s", (char *)b.data);
    buf_free(&b);
    return out;
}

static void test_put_and_every_marker_type(void **state)
{
    (void)state;
    assert_string_equal(cell(100, STRATA_CELL_PUT, "v1", 2, -1), "timestamp=100, value=v1");
    assert_string_equal(cell(7, STRATA_CELL_PUT, "", 0, -1), "timestamp=7, value=");
    assert_string_equal(cell(150, STRATA_CELL_DELETE, "", 0, -1), "timestamp=150, type=Delete");
    assert_string_equal(cell(150, STRATA_CELL_DELETE_COLUMN, "", 0, -1),
                        "timestamp=150, type=DeleteColumn");
    assert_string_equal(cell(150, STRATA_CELL_DELETE_FAMILY, "", 0, -1),
                        "timestamp=150, type=DeleteFamily");
    assert_string_equal(cell(150, STRATA_CELL_DELETE_FAMILY_VERSION, "", 0, -1),
                        "timestamp=150, type=DeleteFamilyVersion");
    /* A marker's value (never sent, but) is not printed. */
    assert_string_equal(cell(1, STRATA_CELL_DELETE, "x", 1, -1), "timestamp=1, type=Delete");
}

static void test_binary_values_and_maxlength(void **state)
{
    (void)state;
    assert_string_equal(cell(1, STRATA_CELL_PUT, "a\x00\xff\\", 4, -1),
                        "timestamp=1, value=a\\x00\\xFF\\x5C");
    /* MAXLENGTH cuts the whole text, timestamp included, as HBase's val[0, maxlength]. */
    assert_string_equal(cell(1, STRATA_CELL_PUT, "abcdef", 6, 22), "timestamp=1, value=abc");
    assert_string_equal(cell(1, STRATA_CELL_PUT, "abcdef", 6, 0), "");
    assert_string_equal(cell(150, STRATA_CELL_DELETE_COLUMN, "", 0, 19), "timestamp=150, type");
    /* Appended after what the buffer already holds, cut relative to its own start. */
    buf_t b = {0};
    buf_append(&b, "column=f:q, ", 12);
    shell_cell_text(&b, 5, STRATA_CELL_PUT, "xyz", 3, 20);
    assert_string_equal((char *)b.data, "column=f:q, timestamp=5, value=x");
    buf_free(&b);
}

/* A packed MetaRegionInfo (malloc'ed). */
static uint8_t *regioninfo(const char *table, const char *enc, const char *start, const char *end,
                           uint64_t id, bool offline, bool split, size_t *len)
{
    Strata__Admin__RegionInfo ri = STRATA__ADMIN__REGION_INFO__INIT;
    Strata__Master__MetaRegionInfo m = STRATA__MASTER__META_REGION_INFO__INIT;
    ri.table = (char *)table;
    ri.encoded_name = (char *)enc;
    ri.has_start_key = ri.has_end_key = 1;
    ri.start_key = (ProtobufCBinaryData){strlen(start), (uint8_t *)start};
    ri.end_key = (ProtobufCBinaryData){strlen(end), (uint8_t *)end};
    ri.has_region_id = 1;
    ri.region_id = id;
    m.region = &ri;
    m.has_offline = m.offline = offline;
    m.has_split = m.split = split;
    *len = strata__master__meta_region_info__get_packed_size(&m);
    uint8_t *out = malloc(*len);
    strata__master__meta_region_info__pack(&m, out);
    return out;
}

static void test_meta_regioninfo_as_hbase_prints_it(void **state)
{
    (void)state;
    size_t len;
    uint8_t *v = regioninfo("default:t", "1127cd6c4950ceb01395160fb36cf66a", "g", "p\x01",
                            1796280205655ull, false, false, &len);
    assert_string_equal(meta_cell("info:regioninfo", 9, STRATA_CELL_PUT, v, len, -1),
                        "timestamp=9, value={ENCODED => 1127cd6c4950ceb01395160fb36cf66a, NAME => "
                        "'t,g,1796280205655.1127cd6c4950ceb01395160fb36cf66a.', STARTKEY => 'g', "
                        "ENDKEY => 'p\\x01'}");
    free(v);
    v = regioninfo("app:u", "abc", "", "", 7, true, true, &len);
    assert_string_equal(meta_cell("info:regioninfo", 9, STRATA_CELL_PUT, v, len, -1),
                        "timestamp=9, value={ENCODED => abc, NAME => 'app:u,,7.abc.', STARTKEY => "
                        "'', ENDKEY => '', OFFLINE => true, SPLIT => true}");
    assert_string_equal(meta_cell("info:regioninfo", 9, STRATA_CELL_PUT, v, len, 27),
                        "timestamp=9, value={ENCODED");
    /* The region itself, decoded through the public API. */
    char *err = NULL;
    strata_region_t *r = strata_region_from_meta((const char *)v, len, &err);
    assert_non_null(r);
    assert_null(err);
    assert_string_equal(strata_region_table(r), "app:u");
    assert_int_equal(strata_region_id(r), 7);
    assert_int_equal(strata_region_offline(r), 1);
    assert_int_equal(strata_region_split(r), 1);
    assert_null(strata_region_server(r));
    strata_region_destroy(r);
    free(v);
}

static void test_corrupt_meta_values_print_as_bytes(void **state)
{
    (void)state;
    char *err = NULL;
    assert_null(strata_region_from_meta("\xff\xff", 2, &err));
    assert_non_null(err);
    assert_int_equal(strata_error_code(err), STRATA_ERR_CORRUPTION);
    strata_free(err);
    assert_string_equal(meta_cell("info:regioninfo", 3, STRATA_CELL_PUT, "\xff\xff", 2, -1),
                        "timestamp=3, value=\\xFF\\xFF");
    /* A start code that is not 8 bytes is not a number. */
    assert_string_equal(meta_cell("info:serverstartcode", 3, STRATA_CELL_PUT, "12", 2, -1),
                        "timestamp=3, value=12");
}

static void test_meta_numbers_and_plain_columns(void **state)
{
    (void)state;
    const uint8_t code[8] = {0, 0, 0x01, 0xa2, 0x2e, 0x4f, 0x3e, 0x1b};
    const uint8_t seq[8] = {0, 0, 0, 0, 0, 0, 0x01, 0x02};
    assert_string_equal(meta_cell("info:serverstartcode", 5, STRATA_CELL_PUT, code, 8, -1),
                        "timestamp=5, value=1796073274907");
    assert_string_equal(meta_cell("info:seqnum", 5, STRATA_CELL_PUT, seq, 8, -1),
                        "timestamp=5, value=258");
    assert_string_equal(meta_cell("info:sn", 5, STRATA_CELL_PUT, "h,1,2", 5, -1),
                        "timestamp=5, value=h,1,2");
    assert_string_equal(meta_cell("table:state", 5, STRATA_CELL_PUT, "ENABLED", 7, -1),
                        "timestamp=5, value=ENABLED");
    /* The same qualifier in another family is not decoded; nor is a marker. */
    assert_string_equal(meta_cell("table:seqnum", 5, STRATA_CELL_PUT, seq, 8, -1),
                        "timestamp=5, value=\\x00\\x00\\x00\\x00\\x00\\x00\\x01\\x02");
    assert_string_equal(meta_cell("info:regioninfo", 5, STRATA_CELL_DELETE_COLUMN, "", 0, -1),
                        "timestamp=5, type=DeleteColumn");
}

static void test_result_cell_types(void **state)
{
    (void)state;
    Strata__Client__Cell c[3], *p[3];
    const char *vals[3] = {"new", "", "old"};
    const int64_t ts[3] = {200, 150, 100};
    const uint32_t types[3] = {4, 12, 4};
    for (int i = 0; i < 3; i++) {
        strata__client__cell__init(&c[i]);
        c[i].has_row = c[i].has_family = c[i].has_qualifier = c[i].has_value = 1;
        c[i].row = (ProtobufCBinaryData){2, (uint8_t *)"r1"};
        c[i].family = (ProtobufCBinaryData){1, (uint8_t *)"f"};
        c[i].qualifier = (ProtobufCBinaryData){1, (uint8_t *)"a"};
        c[i].value = (ProtobufCBinaryData){strlen(vals[i]), (uint8_t *)vals[i]};
        c[i].has_timestamp = 1;
        c[i].timestamp = ts[i];
        c[i].has_type = i != 0; /* absent = Put */
        c[i].type = types[i];
        p[i] = &c[i];
    }
    Strata__Client__Result pb = STRATA__CLIENT__RESULT__INIT;
    pb.cell = p;
    pb.n_cell = 3;
    strata_result_t *r = result_from_pb(&pb, NULL, 0);
    assert_non_null(r);
    assert_int_equal(strata_result_cell_type(r, 0), STRATA_CELL_PUT);
    assert_int_equal(strata_result_cell_type(r, 1), STRATA_CELL_DELETE_COLUMN);
    assert_int_equal(strata_result_cell_type(r, 2), STRATA_CELL_PUT);
    assert_int_equal(strata_result_cell_type(r, 3), STRATA_CELL_PUT); /* past the end */
    size_t len;
    assert_memory_equal(strata_result_value(r, "f", 1, "a", 1, &len), "new", 3);
    /* Only the marker is newest: the newest put is still the value. */
    c[0].timestamp = 50;
    strata_result_t *r2 = result_from_pb(&pb, NULL, 0);
    const char *v = strata_result_value(r2, "f", 1, "a", 1, &len);
    assert_int_equal(len, 3);
    assert_memory_equal(v, "old", 3);
    strata_result_destroy(r2);
    strata_result_destroy(r);
    assert_string_equal(strata_cell_type_name(STRATA_CELL_DELETE_FAMILY_VERSION),
                        "DeleteFamilyVersion");
    assert_string_equal(strata_cell_type_name((strata_cell_type)5), "Unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_and_every_marker_type),
        cmocka_unit_test(test_binary_values_and_maxlength),
        cmocka_unit_test(test_meta_regioninfo_as_hbase_prints_it),
        cmocka_unit_test(test_corrupt_meta_values_print_as_bytes),
        cmocka_unit_test(test_meta_numbers_and_plain_columns),
        cmocka_unit_test(test_result_cell_types),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
