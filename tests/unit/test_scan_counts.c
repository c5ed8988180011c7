/*
 * test_scan_counts.c - the row counts a user scanner keeps for HBase's server-side scan
 * metrics (scan_spec.counts, regionserver/storage/scanner.c): ROWS_SCANNED counts every
 * row begun, ROWS_FILTERED those that gave no result - skipped by the filter's row key
 * test, dropped by a cell or row filter, or with every cell deleted - forward, reversed
 * and with batch (a row in parts counts once); a scan without counts counts nothing.
 *
 * Inputs are sorted-array iterators (tests/support/vec_iter.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/status.h"
#include "regionserver/storage/filter.h"
#include "regionserver/storage/filter_parse.h"
#include "regionserver/storage/scanner.h"
#include "tests/support/testutil.h"
#include "tests/support/vec_iter.h"

#define NOW 1000000

static cell_t put(const char *row, const char *qual, const char *val)
{
    cell_t c = {0};
    c.row = (const uint8_t *)row;
    c.row_len = (uint32_t)strlen(row);
    c.family = (const uint8_t *)"f";
    c.family_len = 1;
    c.qualifier = (const uint8_t *)qual;
    c.qualifier_len = (uint32_t)strlen(qual);
    c.value = (const uint8_t *)val;
    c.value_len = (uint32_t)strlen(val);
    c.ts = 100;
    c.type = CELL_TYPE_PUT;
    c.seq = 1;
    return c;
}

/* Rows r1..r6: r3 has only a deleted cell, the rest a value "keep" or "drop". */
static kv_iter *input(void)
{
    cell_t cells[] = {
        put("r1", "a", "keep"), put("r1", "b", "keep"), put("r2", "a", "drop"),
        put("r3", "a", "gone"), put("r4", "a", "keep"), put("r5", "a", "drop"),
        put("r6", "a", "keep"),
    };
    cells[3].ts = 50;
    cell_t del = put("r3", "a", "");
    del.type = CELL_TYPE_DELETE_COLUMN;
    del.seq = 2;
    cell_t all[8];
    memcpy(all, cells, sizeof(cells));
    all[7] = del;
    kv_iter *it = vec_iter_new(all, 8);
    assert_non_null(it);
    return it;
}

/* Runs a scan to its end: the number of results into *results. */
static scan_row_counts run(const char *filter_text, bool reversed, int batch, int64_t limit,
                           size_t *results, bool counted)
{
    family_schema fam;
    family_schema_init(&fam, "f");
    filter *flt = NULL;
    if (filter_text)
        assert_int_equal(filter_parse(filter_text, &flt), ST_OK);
    scan_row_counts counts = {0};
    scan_spec spec = {.filter = flt,
                      .reversed = reversed,
                      .batch = batch,
                      .limit = limit,
                      .counts = counted ? &counts : NULL};
    scanner *s = NULL;
    assert_int_equal(scanner_new(input(), &fam, 1, &spec, NOW, &s), ST_OK);
    scan_result r;
    scan_result_init(&r);
    *results = 0;
    int rc;
    while ((rc = scanner_next(s, &r)) == 1)
        (*results)++;
    assert_int_equal(rc, 0);
    scan_result_free(&r);
    scanner_free(s);
    filter_free(flt);
    return counts;
}

static void counts_every_row_and_the_deleted_one(void **state)
{
    (void)state;
    size_t n;
    scan_row_counts c = run(NULL, false, 0, 0, &n, true);
    assert_int_equal(n, 5);
    assert_int_equal(c.scanned, 6);
    assert_int_equal(c.filtered, 1); /* r3: all deleted */
}

static void counts_rows_a_value_filter_drops(void **state)
{
    (void)state;
    size_t n;
    scan_row_counts c = run("ValueFilter(=, 'binary:keep')", false, 0, 0, &n, true);
    assert_int_equal(n, 3);
    assert_int_equal(c.scanned, 6);
    assert_int_equal(c.filtered, 3); /* r2, r3, r5 */
    c = run("ValueFilter(=, 'binary:keep')", true, 0, 0, &n, true);
    assert_int_equal(n, 3);
    assert_int_equal(c.scanned, 6);
    assert_int_equal(c.filtered, 3);
}

static void counts_rows_skipped_by_key(void **state)
{
    (void)state;
    size_t n;
    scan_row_counts c = run("RowFilter(!=, 'binary:r4')", false, 0, 0, &n, true);
    assert_int_equal(n, 4);
    assert_int_equal(c.scanned, 6);
    assert_int_equal(c.filtered, 2); /* r4 by key, r3 deleted */
}

static void a_row_in_parts_counts_once(void **state)
{
    (void)state;
    size_t n;
    scan_row_counts c = run(NULL, false, 1, 0, &n, true);
    assert_int_equal(n, 6); /* r1 in two parts */
    assert_int_equal(c.scanned, 6);
    assert_int_equal(c.filtered, 1);
    c = run("ValueFilter(=, 'binary:keep')", false, 1, 0, &n, true);
    assert_int_equal(n, 4);
    assert_int_equal(c.scanned, 6);
    assert_int_equal(c.filtered, 3);
}

static void a_limit_stops_counting(void **state)
{
    (void)state;
    size_t n;
    scan_row_counts c = run(NULL, false, 0, 2, &n, true);
    assert_int_equal(n, 2);
    assert_int_equal(c.scanned, 2);
    assert_int_equal(c.filtered, 0);
}

static void no_counts_without_a_place(void **state)
{
    (void)state;
    size_t n;
    scan_row_counts c = run("ValueFilter(=, 'binary:keep')", false, 0, 0, &n, false);
    assert_int_equal(n, 3);
    assert_int_equal(c.scanned, 0);
    assert_int_equal(c.filtered, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_every_row_and_the_deleted_one),
        cmocka_unit_test(counts_rows_a_value_filter_drops),
        cmocka_unit_test(counts_rows_skipped_by_key),
        cmocka_unit_test(a_row_in_parts_counts_once),
        cmocka_unit_test(a_limit_stops_counting),
        cmocka_unit_test(no_counts_without_a_place),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
