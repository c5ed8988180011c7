/*
 * test_bloom.c - the bloom filter: the hash against reference vectors (computed from
 * the algorithm in docs/formats/storefile.md), no false negatives on 100k keys, a
 * measured false-positive rate below 2 % on 100k absent keys, ROWCOL row and column
 * keys kept apart, and corrupt_* section headers refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/status.h"
#include "regionserver/storage/bloom.h"
#include "tests/support/testutil.h"

#define NKEYS 100000

static void hash_matches_reference_vectors(void **state)
{
    uint8_t seq[100];
    for (int i = 0; i < 100; i++)
        seq[i] = (uint8_t)i;
    assert_true(bloom_hash64("", 0) == 0xa9010ba574869384ULL);
    assert_true(bloom_hash64("a", 1) == 0x9a722b40241473cdULL);
    assert_true(bloom_hash64("abcdefgh", 8) == 0x5442beaa29000de7ULL);
    assert_true(bloom_hash64("abcdefghi", 9) == 0x963e0a82bd4d01bdULL);
    assert_true(bloom_hash64(seq, sizeof(seq)) == 0x5db1b01c13779c30ULL);
    /* keys: 'R' row, and 'C' row_len row fam_len family qualifier */
    assert_true(bloom_row_hash((const uint8_t *)"row00001", 8) == 0x72a96a8a3bd1cd20ULL);
    assert_true(bloom_column_hash((const uint8_t *)"r1", 2, (const uint8_t *)"cf", 2,
                                  (const uint8_t *)"q", 1) == 0x2bc69352e509309dULL);
}

static void streamed_keys_equal_assembled_keys(void **state)
{
    /* long parts cross the 8-byte chunk boundaries at every alignment */
    uint8_t row[40], fam[20], qual[33], key[200];
    for (size_t i = 0; i < sizeof(row); i++)
        row[i] = (uint8_t)(i * 31 + 7);
    for (size_t i = 0; i < sizeof(fam); i++)
        fam[i] = (uint8_t)('a' + i);
    for (size_t i = 0; i < sizeof(qual); i++)
        qual[i] = (uint8_t)(i * 13);
    for (size_t rl = 1; rl <= sizeof(row); rl += 3)
        for (size_t ql = 0; ql <= sizeof(qual); ql += 4) {
            size_t n = 0;
            key[n++] = 'C';
            be16_put(key + n, (uint16_t)rl), n += 2;
            memcpy(key + n, row, rl), n += rl;
            key[n++] = 5;
            memcpy(key + n, fam, 5), n += 5;
            memcpy(key + n, qual, ql), n += ql;
            assert_true(bloom_column_hash(row, rl, fam, 5, qual, ql) == bloom_hash64(key, n));
            key[0] = 'R';
            memcpy(key + 1, row, rl);
            assert_true(bloom_row_hash(row, rl) == bloom_hash64(key, rl + 1));
        }
}

static uint64_t key_hash(int i)
{
    char k[32];
    int n = snprintf(k, sizeof(k), "user%08d", i);
    return bloom_row_hash((const uint8_t *)k, (size_t)n);
}

static void build_filter(const uint64_t *h, size_t n, uint8_t type, buf_t *sec, bloom_filter *f)
{
    buf_reset(sec);
    assert_int_equal(bloom_build(h, n, type, sec), ST_OK);
    assert_int_equal(bloom_parse(sec->data, sec->len, f), ST_OK);
    assert_int_equal(f->type, type);
    assert_int_equal(f->k, BLOOM_PROBES);
    assert_int_equal(f->keys, n);
}

static void no_false_negatives_and_fp_below_2pct(void **state)
{
    uint64_t *h = malloc(NKEYS * sizeof(*h));
    buf_t sec = {0};
    bloom_filter f;
    assert_non_null(h);
    for (int i = 0; i < NKEYS; i++)
        h[i] = key_hash(2 * i);
    build_filter(h, NKEYS, 1, &sec, &f);
    assert_true(f.m >= (uint64_t)NKEYS * BLOOM_BITS_PER_KEY);
    for (int i = 0; i < NKEYS; i++)
        assert_true(bloom_may_contain(&f, h[i]));
    int fp = 0;
    for (int i = 0; i < NKEYS; i++)
        fp += bloom_may_contain(&f, key_hash(2 * i + 1));
    double rate = (double)fp / NKEYS;
    print_message("false positives: %d of %d (%.3f%%)\n", fp, NKEYS, rate * 100);
    assert_true(rate < 0.02);
    free(h);
    buf_free(&sec);
}

static void rowcol_rows_and_columns(void **state)
{
    const int rows = 10000;
    const char *quals[3] = {"a", "bb", "name"};
    uint64_t *h = malloc((size_t)rows * 4 * sizeof(*h));
    buf_t sec = {0};
    bloom_filter f;
    char row[32];
    size_t n = 0;
    assert_non_null(h);
    for (int r = 0; r < rows; r++) {
        int rl = snprintf(row, sizeof(row), "row%06d", 2 * r);
        h[n++] = bloom_row_hash((uint8_t *)row, (size_t)rl);
        for (int q = 0; q < 3; q++)
            h[n++] = bloom_column_hash((uint8_t *)row, (size_t)rl, (const uint8_t *)"cf", 2,
                                       (const uint8_t *)quals[q], strlen(quals[q]));
    }
    build_filter(h, n, 2, &sec, &f);
    int fp_rows = 0, fp_cols = 0, fp_fam = 0;
    for (int r = 0; r < rows; r++) {
        int rl = snprintf(row, sizeof(row), "row%06d", 2 * r);
        const uint8_t *rp = (const uint8_t *)row;
        assert_true(bloom_may_contain(&f, bloom_row_hash(rp, (size_t)rl)));
        for (int q = 0; q < 3; q++)
            assert_true(bloom_may_contain(
                &f, bloom_column_hash(rp, (size_t)rl, (const uint8_t *)"cf", 2,
                                      (const uint8_t *)quals[q], strlen(quals[q]))));
        fp_cols += bloom_may_contain(&f, bloom_column_hash(rp, (size_t)rl, (const uint8_t *)"cf", 2,
                                                           (const uint8_t *)"zz", 2));
        /* same bytes split differently: family "cfa", empty qualifier */
        fp_fam += bloom_may_contain(
            &f, bloom_column_hash(rp, (size_t)rl, (const uint8_t *)"cfa", 3, NULL, 0));
        rl = snprintf(row, sizeof(row), "row%06d", 2 * r + 1);
        fp_rows += bloom_may_contain(&f, bloom_row_hash(rp, (size_t)rl));
    }
    print_message("fp rows %d, columns %d, resplit %d of %d\n", fp_rows, fp_cols, fp_fam, rows);
    assert_true(fp_rows < rows / 50);
    assert_true(fp_cols < rows / 50);
    assert_true(fp_fam < rows / 50);
    free(h);
    buf_free(&sec);
}

static void row_and_column_keys_differ(void **state)
{
    /* a row that spells a column key must not hash like that column key */
    uint8_t fake[8] = {0x00, 0x02, 'r', '1', 0x02, 'c', 'f', 'q'};
    assert_true(bloom_row_hash(fake, sizeof(fake)) != bloom_column_hash((const uint8_t *)"r1", 2,
                                                                        (const uint8_t *)"cf", 2,
                                                                        (const uint8_t *)"q", 1));
    assert_true(bloom_column_hash((const uint8_t *)"ab", 2, (const uint8_t *)"c", 1,
                                  (const uint8_t *)"d", 1) !=
                bloom_column_hash((const uint8_t *)"a", 1, (const uint8_t *)"bc", 2,
                                  (const uint8_t *)"d", 1));
}

static void empty_filter_contains_nothing(void **state)
{
    buf_t sec = {0};
    bloom_filter f;
    build_filter(NULL, 0, 1, &sec, &f);
    assert_int_equal(f.m, 64);
    for (int i = 0; i < 1000; i++)
        assert_false(bloom_may_contain(&f, key_hash(i)));
    buf_free(&sec);
}

static void corrupt_header_rejected(void **state)
{
    uint64_t h[10];
    buf_t sec = {0};
    bloom_filter f;
    for (int i = 0; i < 10; i++)
        h[i] = key_hash(i);
    build_filter(h, 10, 1, &sec, &f);
    sec.data[1] = 2; /* unknown hash function */
    assert_int_equal(bloom_parse(sec.data, sec.len, &f), ST_CORRUPTION);
    sec.data[1] = BLOOM_HASH_MURMUR64A;
    sec.data[2] = 0; /* k = 0 */
    assert_int_equal(bloom_parse(sec.data, sec.len, &f), ST_CORRUPTION);
    sec.data[2] = BLOOM_PROBES;
    assert_int_equal(bloom_parse(sec.data, sec.len - 1, &f), ST_CORRUPTION);
    be64_put(sec.data + 12, 8 * (sec.len - BLOOM_SECTION_HEADER_LEN) + 8); /* m vs bytes */
    assert_int_equal(bloom_parse(sec.data, sec.len, &f), ST_CORRUPTION);
    assert_int_equal(bloom_parse(sec.data, 5, &f), ST_CORRUPTION);
    buf_free(&sec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hash_matches_reference_vectors),
        cmocka_unit_test(streamed_keys_equal_assembled_keys),
        cmocka_unit_test(no_false_negatives_and_fp_below_2pct),
        cmocka_unit_test(rowcol_rows_and_columns),
        cmocka_unit_test(row_and_column_keys_differ),
        cmocka_unit_test(empty_filter_contains_nothing),
        cmocka_unit_test(corrupt_header_rejected),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
