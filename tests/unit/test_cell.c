/*
 * test_cell.c - the cell comparator (DESIGN.md §1), seek keys, the encoding of
 * docs/formats/cell.md, rejection of truncated and garbage encodings, and limits.
 * Thread-safety: single-threaded tests.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "common/cell.h"
#include "common/status.h"
#include "tests/support/testutil.h"

static cell_t mk(const char *row, size_t rlen, const char *fam, const char *qual, int64_t ts,
                 uint8_t type, uint64_t seq)
{
    cell_t c = {0};
    c.row = (const uint8_t *)row;
    c.row_len = (uint32_t)rlen;
    c.family = (const uint8_t *)fam;
    c.family_len = (uint32_t)strlen(fam);
    c.qualifier = (const uint8_t *)qual;
    c.qualifier_len = (uint32_t)strlen(qual);
    c.value = (const uint8_t *)"v";
    c.value_len = 1;
    c.ts = ts;
    c.type = type;
    c.seq = seq;
    return c;
}
#define MK(row, fam, qual, ts, type, seq) mk(row, sizeof(row) - 1, fam, qual, ts, type, seq)

static int sgn(int x)
{
    return (x > 0) - (x < 0);
}

/* Every pair in an array that is expected to be strictly ascending. */
static void check_strictly_ascending(const cell_t *cells, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            int want = i < j ? -1 : i > j ? 1 : 0;
            if (sgn(cell_compare(&cells[i], &cells[j])) != want)
                fail_msg("cell_compare(#%zu, #%zu) != %d", i, j, want);
        }
}

/* Expected order: row (unsigned bytes, prefix first), family, qualifier, ts desc,
 * type code desc, seq desc. */
static cell_t *ordered_cells(size_t *n)
{
    static cell_t c[32];
    size_t k = 0;
    c[k++] = MK("a", "f", "q", INT64_MAX, CELL_TYPE_PUT, 1);
    c[k++] = MK("a", "f", "q", 20, CELL_TYPE_PUT, 5);
    c[k++] = MK("a", "f", "q", 10, CELL_TYPE_DELETE_FAMILY, 1);
    c[k++] = MK("a", "f", "q", 10, CELL_TYPE_DELETE_COLUMN, 9);
    c[k++] = MK("a", "f", "q", 10, CELL_TYPE_DELETE_COLUMN, 1);
    c[k++] = MK("a", "f", "q", 10, CELL_TYPE_DELETE_FAMILY_VERSION, 100);
    c[k++] = MK("a", "f", "q", 10, CELL_TYPE_DELETE, 1);
    c[k++] = MK("a", "f", "q", 10, CELL_TYPE_PUT, UINT64_MAX);
    c[k++] = MK("a", "f", "q", 10, CELL_TYPE_PUT, 9);
    c[k++] = MK("a", "f", "q", 10, CELL_TYPE_PUT, 0);
    c[k++] = MK("a", "f", "q", 0, CELL_TYPE_PUT, 9);
    c[k++] = MK("a", "f", "q", -5, CELL_TYPE_PUT, 9);
    c[k++] = MK("a", "f", "q", INT64_MIN, CELL_TYPE_PUT, 9);
    c[k] = MK("a", "f", "q\x00", 10, CELL_TYPE_PUT, 1);
    c[k++].qualifier_len = 2; /* "q\0": strlen stops at the NUL */
    c[k++] = MK("a", "f", "qq", 10, CELL_TYPE_PUT, 1);
    c[k++] = MK("a", "f", "r", 10, CELL_TYPE_PUT, 1);
    c[k++] = MK("a", "f", "\xff", 10, CELL_TYPE_PUT, 1);
    c[k++] = MK("a", "ff", "", 10, CELL_TYPE_PUT, 1);
    c[k++] = MK("a", "g", "", 10, CELL_TYPE_PUT, 1);
    c[k++] = MK("a\x00", "a", "a", 10, CELL_TYPE_PUT, 1);
    c[k++] = MK("a\x00\x00", "a", "a", 10, CELL_TYPE_PUT, 1);
    c[k++] = MK("ab", "a", "a", 10, CELL_TYPE_PUT, 1);
    c[k++] = MK("a\x7f", "a", "a", 10, CELL_TYPE_PUT, 1);
    c[k++] = MK("a\x80", "a", "a", 10, CELL_TYPE_PUT, 1);
    c[k++] = MK("a\xff", "a", "a", 10, CELL_TYPE_PUT, 1);
    c[k++] = MK("a\xff\xff", "a", "a", 10, CELL_TYPE_PUT, 1);
    c[k++] = MK("b", "a", "a", 10, CELL_TYPE_PUT, 1);
    c[k++] = MK("\x80", "a", "a", 10, CELL_TYPE_PUT, 1);
    *n = k;
    return c;
}

static void test_compare_total_order(void **state)
{
    size_t n;
    cell_t *c = ordered_cells(&n);
    check_strictly_ascending(c, n);
}

static void test_compare_type_descending(void **state)
{
    /* Type codes descending, as HBase's comparator: DeleteFamily (14) > DeleteColumn (12)
     * > DeleteFamilyVersion (10) > Delete (8) > Put (4), then seek-only Minimum last. */
    static const uint8_t types[] = {CELL_TYPE_DELETE_FAMILY, CELL_TYPE_DELETE_COLUMN,
                                    CELL_TYPE_DELETE_FAMILY_VERSION, CELL_TYPE_DELETE,
                                    CELL_TYPE_PUT};
    cell_t c[5];
    for (int i = 0; i < 5; i++)
        c[i] = MK("r", "f", "q", 7, types[i], 3);
    check_strictly_ascending(c, 5);
}

static int qsort_cmp(const void *a, const void *b)
{
    return cell_compare(a, b);
}

static void test_compare_sort_shuffled(void **state)
{
    size_t n;
    cell_t *want = ordered_cells(&n);
    cell_t got[32];
    unsigned seed = 3;
    for (int round = 0; round < 50; round++) {
        memcpy(got, want, n * sizeof(cell_t));
        for (size_t i = n - 1; i > 0; i--) {
            size_t j = (size_t)rand_r(&seed) % (i + 1);
            cell_t t = got[i];
            got[i] = got[j];
            got[j] = t;
        }
        qsort(got, n, sizeof(cell_t), qsort_cmp);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(cell_compare(&got[i], &want[i]), 0);
    }
}

static void test_compare_helpers(void **state)
{
    assert_true(cell_compare_rows((const uint8_t *)"a", 1, (const uint8_t *)"ab", 2) < 0);
    assert_true(cell_compare_rows((const uint8_t *)"\x80", 1, (const uint8_t *)"\x7f", 1) > 0);
    assert_int_equal(cell_compare_rows((const uint8_t *)"ab", 2, (const uint8_t *)"ab", 2), 0);
    assert_int_equal(cell_compare_rows(NULL, 0, NULL, 0), 0);
    cell_t a = MK("r", "f", "q", 5, CELL_TYPE_PUT, 1);
    cell_t b = MK("r", "f", "q", 9, CELL_TYPE_DELETE, 7);
    cell_t c = MK("r", "f", "q2", 5, CELL_TYPE_PUT, 1);
    cell_t d = MK("r", "g", "q", 5, CELL_TYPE_PUT, 1);
    cell_t e = MK("s", "f", "q", 5, CELL_TYPE_PUT, 1);
    assert_int_equal(cell_compare_column(&a, &b), 0);
    assert_true(cell_compare(&a, &b) > 0);
    assert_true(cell_compare_column(&a, &c) < 0);
    assert_true(cell_compare_column(&d, &c) > 0);
    assert_true(cell_same_row(&a, &d));
    assert_false(cell_same_row(&a, &e));
    assert_true(cell_same_family(&a, &c));
    assert_false(cell_same_family(&a, &d));
    assert_false(cell_is_delete(CELL_TYPE_PUT));
    assert_false(cell_is_delete(CELL_TYPE_MINIMUM));
    assert_false(cell_is_delete(CELL_TYPE_MAXIMUM));
    assert_true(cell_is_delete(CELL_TYPE_DELETE));
    assert_true(cell_is_delete(CELL_TYPE_DELETE_COLUMN));
    assert_true(cell_is_delete(CELL_TYPE_DELETE_FAMILY));
    assert_true(cell_is_delete(CELL_TYPE_DELETE_FAMILY_VERSION));
}

/* Extreme real cells of column (r, f, q): the first and last a store could hold. */
static void column_extremes(const char *r, size_t rl, const char *f, const char *q, cell_t *first,
                            cell_t *last)
{
    *first = mk(r, rl, f, q, INT64_MAX, CELL_TYPE_DELETE_FAMILY, UINT64_MAX);
    *last = mk(r, rl, f, q, INT64_MIN, CELL_TYPE_PUT, 0);
}

static void test_seek_first_on_row(void **state)
{
    cell_t k = cell_first_on_row((const uint8_t *)"r", 1);
    cell_t first, last;
    column_extremes("r", 1, "a", "", &first, &last);
    assert_true(cell_compare(&k, &first) < 0);
    assert_true(cell_compare(&k, &last) < 0);
    column_extremes("r", 1, "\xff", "\xff\xff", &first, &last);
    assert_true(cell_compare(&k, &first) < 0);
    column_extremes("q\xff\xff", 3, "\xff", "\xff", &first, &last);
    assert_true(cell_compare(&k, &last) > 0);
    column_extremes("r\x00", 2, "a", "", &first, &last);
    assert_true(cell_compare(&k, &first) < 0);
    column_extremes("", 0, "z", "z", &first, &last);
    assert_true(cell_compare(&k, &last) > 0);
}

static void test_seek_first_and_last_on_column(void **state)
{
    const uint8_t *r = (const uint8_t *)"row", *f = (const uint8_t *)"cf",
                  *q = (const uint8_t *)"q";
    cell_t fk = cell_first_on_column(r, 3, f, 2, q, 1);
    cell_t lk = cell_last_on_column(r, 3, f, 2, q, 1);
    cell_t first, last, pf, pl, nf, nl;
    column_extremes("row", 3, "cf", "q", &first, &last);
    column_extremes("row", 3, "cf", "", &pf, &pl);      /* previous column */
    column_extremes("row", 3, "cf", "q\x01", &nf, &nl); /* next column */
    cell_t want[] = {pf, pl, fk, first, last, lk, nf, nl};
    check_strictly_ascending(want, sizeof(want) / sizeof(want[0]));
    /* the next column's first-on-column key sorts after this column's last-on-column */
    cell_t nk = cell_first_on_column(r, 3, f, 2, (const uint8_t *)"q\x01", 2);
    assert_true(cell_compare(&lk, &nk) < 0);
    assert_true(cell_compare(&nk, &nf) < 0);
    /* first-on-row sorts before first-on-column of the first column */
    cell_t rk = cell_first_on_row(r, 3);
    assert_true(cell_compare(&rk, &fk) < 0);
    assert_true(cell_compare(&rk, &pf) < 0);
    /* a cell at the seek timestamp: first-on-column is still first, last still last */
    cell_t mid = mk("row", 3, "cf", "q", 0, CELL_TYPE_DELETE_FAMILY, 0);
    assert_true(cell_compare(&fk, &mid) < 0);
    assert_true(cell_compare(&lk, &mid) > 0);
}

/* docs/formats/cell.md worked example. */
static const uint8_t doc_example[] = {
    0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x01, 0x00, 0x02, 0x72, 0x31,
    0x02, 0x63, 0x66, 0x71, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xe8,
    0x04, 0x76, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07,
};

static void test_encode_matches_format_doc(void **state)
{
    cell_t c = MK("r1", "cf", "q", 1000, CELL_TYPE_PUT, 7);
    uint8_t out[64];
    assert_int_equal(cell_key_len(&c), 17);
    assert_int_equal(cell_encoded_len(&c), sizeof(doc_example));
    assert_int_equal(cell_encode(&c, out), sizeof(doc_example));
    assert_memory_equal(out, doc_example, sizeof(doc_example));

    cell_t d;
    size_t used = 0;
    assert_int_equal(cell_decode(doc_example, sizeof(doc_example), &d, &used), ST_OK);
    assert_int_equal(used, sizeof(doc_example));
    assert_int_equal(cell_compare(&c, &d), 0);
    assert_int_equal(d.value_len, 1);
    assert_memory_equal(d.value, "v", 1);
    assert_ptr_equal(d.row, doc_example + 10); /* a view into the source */
}

static void check_round_trip(const cell_t *c)
{
    size_t len = cell_encoded_len(c);
    uint8_t *buf = malloc(len + 5);
    assert_non_null(buf);
    assert_int_equal(cell_encode(c, buf), len);
    memcpy(buf + len, "extra", 5);
    cell_t d;
    size_t used = 0;
    assert_int_equal(cell_decode(buf, len + 5, &d, &used), ST_OK);
    assert_int_equal(used, len);
    assert_int_equal(cell_compare(c, &d), 0);
    assert_int_equal(d.ts, c->ts);
    assert_int_equal(d.type, c->type);
    assert_true(d.seq == c->seq);
    assert_int_equal(d.row_len, c->row_len);
    assert_int_equal(d.family_len, c->family_len);
    assert_int_equal(d.qualifier_len, c->qualifier_len);
    assert_int_equal(d.value_len, c->value_len);
    if (c->value_len)
        assert_memory_equal(d.value, c->value, c->value_len);
    free(buf);
}

static void test_encode_decode_round_trip(void **state)
{
    static uint8_t big[70000];
    for (size_t i = 0; i < sizeof(big); i++)
        big[i] = (uint8_t)(i * 31 + 7);
    cell_t c = MK("r", "f", "", -1, CELL_TYPE_DELETE_FAMILY, 0);
    c.value_len = 0;
    check_round_trip(&c);
    c = MK("row", "family", "qualifier", INT64_MIN, CELL_TYPE_DELETE, UINT64_MAX);
    check_round_trip(&c);
    c.ts = INT64_MAX;
    c.type = CELL_TYPE_DELETE_FAMILY_VERSION;
    check_round_trip(&c);
    c.row = big;
    c.row_len = CELL_MAX_ROW_LEN;
    c.family = big + 1;
    c.family_len = CELL_MAX_FAMILY_LEN;
    c.qualifier = big + 2;
    c.qualifier_len = 1000;
    c.value = big + 3;
    c.value_len = 65537;
    check_round_trip(&c);
}

static void test_decode_consecutive_cells(void **state)
{
    cell_t in[3] = {MK("a", "f", "q1", 1, CELL_TYPE_PUT, 1),
                    MK("b", "ff", "", 2, CELL_TYPE_DELETE, 2),
                    MK("c", "f", "q3", 3, CELL_TYPE_PUT, 3)};
    uint8_t buf[256];
    size_t off = 0;
    for (int i = 0; i < 3; i++)
        off += cell_encode(&in[i], buf + off);
    size_t pos = 0;
    for (int i = 0; i < 3; i++) {
        cell_t d;
        size_t used;
        assert_int_equal(cell_decode(buf + pos, off - pos, &d, &used), ST_OK);
        assert_int_equal(cell_compare(&d, &in[i]), 0);
        pos += used;
    }
    assert_int_equal(pos, off);
}

/* Every proper prefix of a valid encoding is rejected; a copy of exactly that many
 * bytes lets ASan catch any read past the end. */
static void test_corrupt_decode_truncated_every_length(void **state)
{
    cell_t c = MK("row1", "fam", "qual", 12345, CELL_TYPE_PUT, 99);
    c.value = (const uint8_t *)"value-bytes";
    c.value_len = 11;
    uint8_t full[128];
    size_t len = cell_encode(&c, full);
    for (size_t n = 0; n < len; n++) {
        uint8_t *p = malloc(n ? n : 1);
        memcpy(p, full, n);
        cell_t d;
        size_t used = 777;
        assert_int_equal(cell_decode(p, n, &d, &used), ST_CORRUPTION);
        assert_int_equal(used, 777);
        free(p);
    }
}

static void test_corrupt_decode_bad_lengths(void **state)
{
    cell_t c = MK("row1", "fam", "qual", 1, CELL_TYPE_PUT, 1);
    uint8_t good[64], b[64];
    size_t len = cell_encode(&c, good);
    cell_t d;
    size_t used;
    /* key_len below the minimum */
    memcpy(b, good, len);
    b[3] = 11;
    assert_int_equal(cell_decode(b, len, &d, &used), ST_CORRUPTION);
    /* row_len overruns the key */
    memcpy(b, good, len);
    b[8] = 0x00;
    b[9] = 30;
    assert_int_equal(cell_decode(b, len, &d, &used), ST_CORRUPTION);
    /* row_len beyond the format's limit */
    memcpy(b, good, len);
    b[8] = 0xff;
    b[9] = 0xff;
    assert_int_equal(cell_decode(b, len, &d, &used), ST_CORRUPTION);
    /* family_len overruns the key */
    memcpy(b, good, len);
    b[8 + 2 + 4] = 200;
    assert_int_equal(cell_decode(b, len, &d, &used), ST_CORRUPTION);
    /* value_len overruns the buffer, also near 2^32 */
    memcpy(b, good, len);
    b[7] = 40;
    assert_int_equal(cell_decode(b, len, &d, &used), ST_CORRUPTION);
    memset(b + 4, 0xff, 4);
    assert_int_equal(cell_decode(b, len, &d, &used), ST_CORRUPTION);
    /* key_len near 2^32 */
    memcpy(b, good, len);
    memset(b, 0xff, 4);
    assert_int_equal(cell_decode(b, len, &d, &used), ST_CORRUPTION);
}

/* Random garbage never reads outside the buffer and any accepted cell lies inside it. */
static void test_corrupt_decode_garbage(void **state)
{
    unsigned seed = 1234;
    for (int round = 0; round < 200000; round++) {
        size_t n = (size_t)rand_r(&seed) % 64;
        uint8_t *p = malloc(n ? n : 1);
        for (size_t i = 0; i < n; i++)
            p[i] = (uint8_t)rand_r(&seed);
        if (n >= 8 && (round & 1)) { /* plausible lengths so deeper checks run */
            p[0] = p[1] = p[2] = 0;
            p[3] = (uint8_t)(rand_r(&seed) % (n + 4));
            p[4] = p[5] = p[6] = 0;
            p[7] = (uint8_t)(rand_r(&seed) % 4);
            if (n > 10)
                p[8] = 0;
        }
        cell_t d;
        size_t used = 0;
        if (cell_decode(p, n, &d, &used) == ST_OK) {
            assert_true(used <= n);
            assert_true(d.row + d.row_len <= p + n);
            assert_true(d.family + d.family_len <= p + n);
            assert_true(d.qualifier + d.qualifier_len <= p + n);
            assert_true(d.value + d.value_len <= p + n);
            assert_int_equal(cell_encoded_len(&d), used);
        }
        free(p);
    }
}

static void test_validate_limits(void **state)
{
    static uint8_t big[CELL_MAX_ROW_LEN + 1];
    cell_t c = MK("r", "f", "", 1, CELL_TYPE_PUT, 1);
    assert_int_equal(cell_validate(&c), ST_OK);
    c.row_len = 0;
    assert_int_equal(cell_validate(&c), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "row length"));
    c.row = big;
    c.row_len = CELL_MAX_ROW_LEN;
    assert_int_equal(cell_validate(&c), ST_OK);
    c.row_len = CELL_MAX_ROW_LEN + 1;
    assert_int_equal(cell_validate(&c), ST_INVALID_ARGUMENT);
    c.row_len = 1;
    c.family_len = 0;
    assert_int_equal(cell_validate(&c), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "family length"));
    c.family = big;
    c.family_len = CELL_MAX_FAMILY_LEN;
    assert_int_equal(cell_validate(&c), ST_OK);
    c.family_len = CELL_MAX_FAMILY_LEN + 1;
    assert_int_equal(cell_validate(&c), ST_INVALID_ARGUMENT);
    c.family_len = 1;
    static const uint8_t ok_types[] = {CELL_TYPE_PUT, CELL_TYPE_DELETE, CELL_TYPE_DELETE_COLUMN,
                                       CELL_TYPE_DELETE_FAMILY, CELL_TYPE_DELETE_FAMILY_VERSION};
    for (size_t i = 0; i < sizeof(ok_types); i++) {
        c.type = ok_types[i];
        assert_int_equal(cell_validate(&c), ST_OK);
    }
    static const uint8_t bad_types[] = {CELL_TYPE_MINIMUM, CELL_TYPE_MAXIMUM, 1, 5, 13, 15};
    for (size_t i = 0; i < sizeof(bad_types); i++) {
        c.type = bad_types[i];
        assert_int_equal(cell_validate(&c), ST_INVALID_ARGUMENT);
    }
}

static void test_format_and_type_names(void **state)
{
    char out[128];
    cell_t c = MK("r\x01\\", "cf", "q", 1000, CELL_TYPE_PUT, 7);
    cell_format(&c, out, sizeof(out));
    assert_string_equal(out, "r\\x01\\x5C/cf:q/1000/Put/7");
    c = MK("r", "f", "", -3, CELL_TYPE_DELETE_FAMILY, 0);
    cell_format(&c, out, sizeof(out));
    assert_string_equal(out, "r/f:/-3/DeleteFamily/0");
    cell_format(&c, out, 5);
    assert_string_equal(out, "r/f:");
    static uint8_t big[1000];
    memset(big, 0xee, sizeof(big));
    c.row = big;
    c.row_len = sizeof(big);
    cell_format(&c, out, sizeof(out)); /* bounded, terminated */
    assert_true(strlen(out) < sizeof(out));
    assert_string_equal(cell_type_name(CELL_TYPE_DELETE), "Delete");
    assert_string_equal(cell_type_name(CELL_TYPE_DELETE_COLUMN), "DeleteColumn");
    assert_string_equal(cell_type_name(CELL_TYPE_DELETE_FAMILY_VERSION), "DeleteFamilyVersion");
    assert_string_equal(cell_type_name(CELL_TYPE_MINIMUM), "Minimum");
    assert_string_equal(cell_type_name(CELL_TYPE_MAXIMUM), "Maximum");
    assert_string_equal(cell_type_name(3), "Unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_total_order),
        cmocka_unit_test(test_compare_type_descending),
        cmocka_unit_test(test_compare_sort_shuffled),
        cmocka_unit_test(test_compare_helpers),
        cmocka_unit_test(test_seek_first_on_row),
        cmocka_unit_test(test_seek_first_and_last_on_column),
        cmocka_unit_test(test_encode_matches_format_doc),
        cmocka_unit_test(test_encode_decode_round_trip),
        cmocka_unit_test(test_decode_consecutive_cells),
        cmocka_unit_test(test_corrupt_decode_truncated_every_length),
        cmocka_unit_test(test_corrupt_decode_bad_lengths),
        cmocka_unit_test(test_corrupt_decode_garbage),
        cmocka_unit_test(test_validate_limits),
        cmocka_unit_test(test_format_and_type_names),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
