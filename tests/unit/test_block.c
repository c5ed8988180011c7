/*
 * test_block.c - data blocks: builder/reader round trip, binary-search seek and
 * seek_for_prev at every key and between keys, the on-disk frame (zstd or not,
 * CRC), and corrupt_* layouts the reader must refuse.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/crc32c.h"
#include "common/status.h"
#include "regionserver/storage/block.h"
#include "tests/support/testutil.h"

#define NROWS 60
#define NQUALS 2
#define NVERS 3
#define NCELLS (NROWS * NQUALS * NVERS)

typedef struct tcell {
    char row[16];
    char qual[4];
    char value[32];
    cell_t c;
} tcell;

static tcell cells[NCELLS];

/* rows r000..r059, family f, qualifiers a/b, timestamps 100, 98, 96 (even, so an odd
 * timestamp falls strictly between two versions). */
static void make_cells(void)
{
    size_t n = 0;
    for (int r = 0; r < NROWS; r++)
        for (int q = 0; q < NQUALS; q++)
            for (int v = 0; v < NVERS; v++, n++) {
                tcell *t = &cells[n];
                snprintf(t->row, sizeof(t->row), "r%03d", r);
                snprintf(t->qual, sizeof(t->qual), "%c", 'a' + q);
                snprintf(t->value, sizeof(t->value), "value-%zu", n * 7919 % 1000);
                t->c = (cell_t){.row = (uint8_t *)t->row,
                                .row_len = (uint32_t)strlen(t->row),
                                .family = (uint8_t *)"f",
                                .family_len = 1,
                                .qualifier = (uint8_t *)t->qual,
                                .qualifier_len = 1,
                                .value = (uint8_t *)t->value,
                                .value_len = (uint32_t)strlen(t->value),
                                .ts = 100 - 2 * v,
                                .type = CELL_TYPE_PUT,
                                .seq = (uint64_t)n + 1};
            }
}

static void build(buf_t *out, size_t n)
{
    block_builder b;
    block_builder_init(&b);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(block_builder_add(&b, &cells[i].c), ST_OK);
    size_t expect = block_builder_size(&b);
    assert_int_equal(block_builder_finish(&b, out), ST_OK);
    assert_int_equal(out->len, expect);
    assert_true(block_builder_empty(&b));
    block_builder_free(&b);
}

static void assert_cell_eq(const cell_t *a, const cell_t *b)
{
    assert_int_equal(cell_compare(a, b), 0);
    assert_int_equal(a->value_len, b->value_len);
    assert_memory_equal(a->value, b->value, a->value_len);
}

static void roundtrip_all_cells(void **state)
{
    buf_t raw = {0};
    block_t blk;
    build(&raw, NCELLS);
    assert_int_equal(block_init(&blk, raw.data, raw.len), ST_OK);
    assert_int_equal(blk.count, NCELLS);
    for (uint32_t i = 0; i < blk.count; i++) {
        cell_t c;
        block_cell(&blk, i, &c);
        assert_cell_eq(&c, &cells[i].c);
    }
    /* layout: the count is the last u32, offset 0 is 0 */
    assert_int_equal(be32_get(raw.data + raw.len - 4), NCELLS);
    assert_int_equal(be32_get(raw.data + raw.len - 4 - 4 * NCELLS), 0);
    buf_free(&raw);
}

static void seek_every_key_and_between(void **state)
{
    buf_t raw = {0};
    block_t blk;
    build(&raw, NCELLS);
    assert_int_equal(block_init(&blk, raw.data, raw.len), ST_OK);
    for (uint32_t i = 0; i < NCELLS; i++) {
        const cell_t *k = &cells[i].c;
        assert_int_equal(block_seek(&blk, k), i);
        assert_int_equal(block_seek_for_prev(&blk, k), i);
        /* just after cell i: same column, odd timestamp below it */
        cell_t between = *k;
        between.ts = k->ts - 1;
        between.value_len = 0;
        assert_int_equal(block_seek(&blk, &between), i + 1);
        assert_int_equal(block_seek_for_prev(&blk, &between), i);
        /* first on the row sorts before every cell of the row */
        cell_t fr = cell_first_on_row(k->row, k->row_len);
        uint32_t row_start = i - i % (NQUALS * NVERS);
        assert_int_equal(block_seek(&blk, &fr), row_start);
        assert_int_equal(block_seek_for_prev(&blk, &fr), (int64_t)row_start - 1);
    }
    buf_free(&raw);
}

static void seek_before_first_and_after_last(void **state)
{
    buf_t raw = {0};
    block_t blk;
    build(&raw, NCELLS);
    assert_int_equal(block_init(&blk, raw.data, raw.len), ST_OK);
    cell_t before = cell_first_on_row((const uint8_t *)"a", 1);
    cell_t after = cell_first_on_row((const uint8_t *)"zzz", 3);
    assert_int_equal(block_seek(&blk, &before), 0);
    assert_int_equal(block_seek_for_prev(&blk, &before), -1);
    assert_int_equal(block_seek(&blk, &after), NCELLS);
    assert_int_equal(block_seek_for_prev(&blk, &after), NCELLS - 1);
    buf_free(&raw);
}

static void single_cell_block(void **state)
{
    buf_t raw = {0};
    block_t blk;
    build(&raw, 1);
    assert_int_equal(block_init(&blk, raw.data, raw.len), ST_OK);
    assert_int_equal(blk.count, 1);
    assert_int_equal(block_seek(&blk, &cells[0].c), 0);
    assert_int_equal(block_seek(&blk, &cells[1].c), 1);
    assert_int_equal(block_seek_for_prev(&blk, &cells[1].c), 0);
    buf_free(&raw);
}

/* Frame round trip; returns the compression code the header recorded. */
static int frame_roundtrip(const buf_t *raw, int compression)
{
    buf_t stored = {0};
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    assert_int_equal(block_frame_encode(raw->data, raw->len, compression, cctx, 3, &stored), ST_OK);
    assert_int_equal(stored.data[0], BLOCK_TYPE_DATA);
    assert_int_equal(be32_get(stored.data + 4) + BLOCK_HEADER_LEN, stored.len);
    assert_int_equal(be32_get(stored.data + 8), raw->len);
    uint8_t *dec = NULL;
    size_t dec_len = 0;
    const char *why = NULL;
    assert_int_equal(block_frame_decode(stored.data, stored.len, &dec, &dec_len, &why), ST_OK);
    assert_int_equal(dec_len, raw->len);
    assert_memory_equal(dec, raw->data, raw->len);
    int code = stored.data[1];
    free(dec);
    ZSTD_freeCCtx(cctx);
    buf_free(&stored);
    return code;
}

static void frame_none_and_zstd(void **state)
{
    buf_t raw = {0};
    build(&raw, NCELLS);
    assert_int_equal(frame_roundtrip(&raw, BLOCK_COMPRESSION_NONE), BLOCK_COMPRESSION_NONE);
    /* cells with repetitive keys compress */
    assert_int_equal(frame_roundtrip(&raw, BLOCK_COMPRESSION_ZSTD), BLOCK_COMPRESSION_ZSTD);
    buf_free(&raw);
}

static void frame_zstd_incompressible_stored_raw(void **state)
{
    buf_t raw = {0};
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 4096; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        buf_append_u8(&raw, (uint8_t)x);
    }
    assert_int_equal(frame_roundtrip(&raw, BLOCK_COMPRESSION_ZSTD), BLOCK_COMPRESSION_NONE);
    buf_free(&raw);
}

static void corrupt_frame_every_bit_detected(void **state)
{
    buf_t raw = {0}, stored = {0};
    build(&raw, 20);
    for (int comp = 0; comp <= 1; comp++) {
        ZSTD_CCtx *cctx = ZSTD_createCCtx();
        buf_reset(&stored);
        assert_int_equal(block_frame_encode(raw.data, raw.len, comp, cctx, 3, &stored), ST_OK);
        for (size_t bit = 0; bit < stored.len * 8; bit += 3) {
            uint8_t *dec = NULL;
            size_t dec_len = 0;
            const char *why = NULL;
            stored.data[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            assert_int_equal(block_frame_decode(stored.data, stored.len, &dec, &dec_len, &why),
                             ST_CORRUPTION);
            assert_null(dec);
            assert_non_null(why);
            stored.data[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        /* a stored size that disagrees with the index entry's */
        uint8_t *dec = NULL;
        size_t dec_len = 0;
        const char *why = NULL;
        assert_int_equal(block_frame_decode(stored.data, stored.len - 1, &dec, &dec_len, &why),
                         ST_CORRUPTION);
        ZSTD_freeCCtx(cctx);
    }
    buf_free(&raw);
    buf_free(&stored);
}

/* Re-seals a stored frame's CRC after its header or payload was edited. */
static void reseal(buf_t *stored)
{
    uint8_t *h = stored->data;
    uint32_t crc = crc32c_extend(crc32c_extend(0, h, 12), h + BLOCK_HEADER_LEN,
                                 stored->len - BLOCK_HEADER_LEN);
    be32_put(h + 12, crc);
}

static int decode_status(const buf_t *stored)
{
    uint8_t *dec = NULL;
    size_t dec_len = 0;
    const char *why = NULL;
    int rc = block_frame_decode(stored->data, stored->len, &dec, &dec_len, &why);
    if (rc == ST_CORRUPTION)
        assert_non_null(strstr(why, "zstd payload does not decode to its raw length"));
    free(dec);
    return rc;
}

/* Found by fuzz_storefile: a zstd block whose raw length says 2 GiB (CRC intact, as a
 * writer bug or a crafted file would leave it) made the reader allocate that much before
 * decompressing the few bytes the frame holds. The output now grows only as the frame
 * yields bytes: with the address space limited to far less than the raw length, the
 * decode still ends in ST_CORRUPTION, not ST_NOMEM. Exact raw lengths are enforced in
 * both directions, a frame must be alone in its payload, and large blocks still decode. */
static void corrupt_frame_raw_length_zstd(void **state)
{
    buf_t raw = {0}, stored = {0};
    build(&raw, 40);
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    assert_int_equal(block_frame_encode(raw.data, raw.len, 1, cctx, 3, &stored), ST_OK);
    assert_int_equal(stored.data[1], BLOCK_COMPRESSION_ZSTD);
    uint32_t rlen = be32_get(stored.data + 8);
    for (int delta = -1; delta <= 1; delta += 2) {
        be32_put(stored.data + 8, rlen + (uint32_t)delta);
        reseal(&stored);
        assert_int_equal(decode_status(&stored), ST_CORRUPTION);
    }
    be32_put(stored.data + 8, rlen);
    buf_append_u8(&stored, 0); /* a byte after the frame */
    be32_put(stored.data + 4, (uint32_t)(stored.len - BLOCK_HEADER_LEN));
    reseal(&stored);
    assert_int_equal(decode_status(&stored), ST_CORRUPTION);
    stored.len--;
    be32_put(stored.data + 4, (uint32_t)(stored.len - BLOCK_HEADER_LEN));
    be32_put(stored.data + 8, 0x80000000u);
    reseal(&stored);
#if defined(__SANITIZE_ADDRESS__)
    assert_int_equal(decode_status(&stored), ST_CORRUPTION); /* ASan needs its address space */
#else
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        unsigned long pages = 0; /* the address space in use, then 256 MiB more at most */
        FILE *f = fopen("/proc/self/statm", "r");
        if (!f || fscanf(f, "%lu", &pages) != 1)
            _exit(2);
        fclose(f);
        rlim_t cap = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (256u << 20);
        struct rlimit lim = {cap, cap};
        setrlimit(RLIMIT_AS, &lim);
        _exit(decode_status(&stored) == ST_CORRUPTION ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
#endif
    /* 3 MiB of one cell value: past the first output buffer, still decoded */
    buf_t big = {0};
    buf_reserve(&big, 3u << 20);
    memset(big.data, 'v', 3u << 20);
    big.len = 3u << 20;
    assert_int_equal(frame_roundtrip(&big, BLOCK_COMPRESSION_ZSTD), BLOCK_COMPRESSION_ZSTD);
    buf_free(&big);
    ZSTD_freeCCtx(cctx);
    buf_free(&raw);
    buf_free(&stored);
}

static void corrupt_layout_rejected(void **state)
{
    buf_t raw = {0};
    block_t blk;
    build(&raw, 10);
    size_t n = raw.len;
    /* count too large */
    be32_put(raw.data + n - 4, 100000);
    assert_int_equal(block_init(&blk, raw.data, n), ST_CORRUPTION);
    /* count zero */
    be32_put(raw.data + n - 4, 0);
    assert_int_equal(block_init(&blk, raw.data, n), ST_CORRUPTION);
    be32_put(raw.data + n - 4, 10);
    assert_int_equal(block_init(&blk, raw.data, n), ST_OK);
    /* an offset that does not point at the next cell */
    uint8_t *off3 = raw.data + n - 4 - 4 * 10 + 4 * 3;
    uint32_t saved = be32_get(off3);
    be32_put(off3, saved + 1);
    assert_int_equal(block_init(&blk, raw.data, n), ST_CORRUPTION);
    be32_put(off3, saved);
    /* a cell whose key length runs past the cells */
    be32_put(raw.data, 0x7fffffff);
    assert_int_equal(block_init(&blk, raw.data, n), ST_CORRUPTION);
    assert_int_equal(block_init(&blk, raw.data, 3), ST_CORRUPTION);
    buf_free(&raw);
}

int main(void)
{
    make_cells();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(roundtrip_all_cells),
        cmocka_unit_test(seek_every_key_and_between),
        cmocka_unit_test(seek_before_first_and_after_last),
        cmocka_unit_test(single_cell_block),
        cmocka_unit_test(frame_none_and_zstd),
        cmocka_unit_test(frame_zstd_incompressible_stored_raw),
        cmocka_unit_test(corrupt_frame_every_bit_detected),
        cmocka_unit_test(corrupt_frame_raw_length_zstd),
        cmocka_unit_test(corrupt_layout_rejected),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
