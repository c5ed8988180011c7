/*
 * test_block.c - data blocks: builder/reader round trip, binary-search seek and seek_for_prev at
 * every key and between keys, the on-disk frame (every codec: none, zstd, Snappy, LZ4, gzip; CRC;
 * payloads damaged behind a valid CRC; raw lengths the payload does not back), and corrupt_*
 * layouts the reader must refuse; type 2 (prefix-compressed keys): the cursor over both types, the
 * format page's worked example, odd keys, and the layouts (and non-canonical forms) its checks
 * refuse.
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
    block_builder_init_type(&b, BLOCK_TYPE_DATA);
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
    assert_int_equal(block_init(&blk, BLOCK_TYPE_DATA, raw.data, raw.len), ST_OK);
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
    assert_int_equal(block_init(&blk, BLOCK_TYPE_DATA, raw.data, raw.len), ST_OK);
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
    assert_int_equal(block_init(&blk, BLOCK_TYPE_DATA, raw.data, raw.len), ST_OK);
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
    assert_int_equal(block_init(&blk, BLOCK_TYPE_DATA, raw.data, raw.len), ST_OK);
    assert_int_equal(blk.count, 1);
    assert_int_equal(block_seek(&blk, &cells[0].c), 0);
    assert_int_equal(block_seek(&blk, &cells[1].c), 1);
    assert_int_equal(block_seek_for_prev(&blk, &cells[1].c), 0);
    buf_free(&raw);
}

/* ---- the on-disk frame ---- */

static const char *const CODEC_NAMES[] = {"none", "zstd", "snappy", "LZ4", "gzip"};

/* A block of `type` holding the first n cells. */
static void build_typed(uint8_t type, buf_t *out, size_t n)
{
    block_builder b;
    block_builder_init_type(&b, type);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(block_builder_add(&b, &cells[i].c), ST_OK);
    assert_int_equal(block_builder_finish(&b, out), ST_OK);
    block_builder_free(&b);
}

static void encode(const buf_t *raw, uint8_t type, int compression, buf_t *stored)
{
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    buf_reset(stored);
    assert_int_equal(block_frame_encode(raw->data, raw->len, type, compression, cctx, 3, stored),
                     ST_OK);
    ZSTD_freeCCtx(cctx);
}

/* Frame round trip of a block of `type` (through block_frame_decode and block_frame_open);
 * returns the compression code the header recorded. A code of version 3 is refused
 * where only versions 1 and 2's codes are allowed. */
static int frame_roundtrip_type(const buf_t *raw, uint8_t type, int compression)
{
    buf_t stored = {0};
    encode(raw, type, compression, &stored);
    assert_int_equal(stored.data[0], type);
    assert_int_equal(be32_get(stored.data + 4) + BLOCK_HEADER_LEN, stored.len);
    assert_int_equal(be32_get(stored.data + 8), raw->len);
    uint8_t *dec = NULL, *decoded = NULL;
    const uint8_t *view = NULL;
    size_t dec_len = 0;
    const char *why = NULL;
    assert_int_equal(block_frame_decode(stored.data, stored.len, BLOCK_COMPRESSION_LAST, &dec,
                                        &dec_len, &why),
                     ST_OK);
    assert_int_equal(dec_len, raw->len);
    assert_memory_equal(dec, raw->data, raw->len);
    free(dec);
    assert_int_equal(block_frame_open(stored.data, stored.len, BLOCK_COMPRESSION_LAST, &view,
                                      &dec_len, &decoded, &why),
                     ST_OK);
    assert_int_equal(dec_len, raw->len);
    assert_memory_equal(view, raw->data, raw->len);
    assert_true((decoded != NULL) == (stored.data[1] != BLOCK_COMPRESSION_NONE));
    free(decoded);
    int code = stored.data[1];
    int rc = block_frame_decode(stored.data, stored.len, BLOCK_COMPRESSION_ZSTD, &dec, &dec_len,
                                &why);
    if (code > BLOCK_COMPRESSION_ZSTD) {
        assert_int_equal(rc, ST_CORRUPTION);
        assert_null(dec);
        assert_string_equal(why, "compression code not allowed in the file's version");
    } else {
        assert_int_equal(rc, ST_OK);
        free(dec);
    }
    buf_free(&stored);
    return code;
}

static int frame_roundtrip(const buf_t *raw, int compression)
{
    return frame_roundtrip_type(raw, BLOCK_TYPE_DATA, compression);
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

/* Every codec over blocks of both types: compressible blocks keep the codec's code. */
static void frame_every_codec_both_types(void **state)
{
    buf_t raw = {0};
    for (uint8_t type = BLOCK_TYPE_DATA; type <= BLOCK_TYPE_DATA_V2; type++) {
        build_typed(type, &raw, NCELLS);
        for (int c = BLOCK_COMPRESSION_NONE; c <= BLOCK_COMPRESSION_LAST; c++)
            assert_int_equal(frame_roundtrip_type(&raw, type, c), c);
    }
    buf_free(&raw);
}

/* Bytes no codec shrinks are stored raw (code 0) whatever the codec, in frames of
 * either type. */
static void frame_incompressible_stored_raw_every_codec(void **state)
{
    buf_t raw = {0};
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 4096; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        buf_append_u8(&raw, (uint8_t)x);
    }
    for (uint8_t type = BLOCK_TYPE_DATA; type <= BLOCK_TYPE_DATA_V2; type++)
        for (int c = BLOCK_COMPRESSION_ZSTD; c <= BLOCK_COMPRESSION_LAST; c++)
            assert_int_equal(frame_roundtrip_type(&raw, type, c), BLOCK_COMPRESSION_NONE);
    buf_free(&raw);
}

/* Re-seals a stored frame's CRC after its header or payload was edited. */
static void reseal(buf_t *stored)
{
    uint8_t *h = stored->data;
    be32_put(h + 4, (uint32_t)(stored->len - BLOCK_HEADER_LEN));
    uint32_t crc = crc32c_extend(crc32c_extend(0, h, 12), h + BLOCK_HEADER_LEN,
                                 stored->len - BLOCK_HEADER_LEN);
    be32_put(h + 12, crc);
}

/* The status of decoding stored (any code allowed); a corruption's reason is checked to
 * contain `reason` when that is not NULL. */
static int decode_status_why(const buf_t *stored, const char *reason)
{
    uint8_t *dec = NULL;
    size_t dec_len = 0;
    const char *why = NULL;
    int rc = block_frame_decode(stored->data, stored->len, BLOCK_COMPRESSION_LAST, &dec, &dec_len,
                                &why);
    if (rc == ST_CORRUPTION) {
        assert_null(dec);
        assert_non_null(why);
        if (reason && !strstr(why, reason))
            fail_msg("reason '%s' does not say '%s'", why, reason);
    } else if (rc == ST_OK) {
        assert_int_equal(dec_len, be32_get(stored->data + 8));
    }
    free(dec);
    return rc;
}

static int decode_status(const buf_t *stored)
{
    return decode_status_why(stored, "zstd payload does not decode to its raw length");
}

/* An unknown code is refused by the encoder, and as corruption by the decoder. */
static void frame_unknown_code_refused(void **state)
{
    buf_t raw = {0}, stored = {0};
    build(&raw, 20);
    assert_int_equal(block_frame_encode(raw.data, raw.len, BLOCK_TYPE_DATA,
                                        BLOCK_COMPRESSION_LAST + 1, NULL, 3, &stored),
                     ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "unknown block compression code 5"));
    encode(&raw, BLOCK_TYPE_DATA, BLOCK_COMPRESSION_NONE, &stored);
    stored.data[1] = BLOCK_COMPRESSION_LAST + 1;
    reseal(&stored);
    assert_int_equal(decode_status_why(&stored, "unknown compression code"), ST_CORRUPTION);
    buf_free(&raw);
    buf_free(&stored);
}

static void corrupt_frame_every_bit_detected(void **state)
{
    buf_t raw = {0}, stored = {0};
    build(&raw, 20);
    for (int comp = 0; comp <= BLOCK_COMPRESSION_LAST; comp++) {
        encode(&raw, BLOCK_TYPE_DATA, comp, &stored);
        for (size_t bit = 0; bit < stored.len * 8; bit += 3) {
            uint8_t *dec = NULL;
            size_t dec_len = 0;
            const char *why = NULL;
            stored.data[bit / 8] ^= (uint8_t)(1u << (bit % 8));
            assert_int_equal(block_frame_decode(stored.data, stored.len, BLOCK_COMPRESSION_LAST,
                                                &dec, &dec_len, &why),
                             ST_CORRUPTION);
            assert_null(dec);
            assert_non_null(why);
            stored.data[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        }
        /* a stored size that disagrees with the index entry's */
        uint8_t *dec = NULL;
        size_t dec_len = 0;
        const char *why = NULL;
        assert_int_equal(block_frame_decode(stored.data, stored.len - 1, BLOCK_COMPRESSION_LAST,
                                            &dec, &dec_len, &why),
                         ST_CORRUPTION);
    }
    buf_free(&raw);
    buf_free(&stored);
}

/* Payloads damaged behind a valid CRC (a writer bug, a crafted file): each codec refuses
 * a raw length off by one, a payload cut short or followed by a byte, and one overwritten
 * with 0xff, naming itself; any single damaged byte decodes to exactly the raw length or
 * is refused, and never crashes or reads past the payload (ASan builds check that). */
static void corrupt_frame_payload_every_codec(void **state)
{
    buf_t raw = {0}, good = {0}, bad = {0};
    build_typed(BLOCK_TYPE_DATA_V2, &raw, 40);
    for (int c = BLOCK_COMPRESSION_ZSTD; c <= BLOCK_COMPRESSION_LAST; c++) {
        char reason[64];
        snprintf(reason, sizeof(reason), "%s payload does not decode to its raw length",
                 CODEC_NAMES[c]);
        encode(&raw, BLOCK_TYPE_DATA_V2, c, &good);
        assert_int_equal(good.data[1], c);
        uint32_t rlen = be32_get(good.data + 8);
        for (int delta = -1; delta <= 1; delta += 2) {
            buf_set(&bad, good.data, good.len);
            be32_put(bad.data + 8, rlen + (uint32_t)delta);
            reseal(&bad);
            assert_int_equal(decode_status_why(&bad, reason), ST_CORRUPTION);
        }
        buf_set(&bad, good.data, good.len - 1); /* cut short */
        reseal(&bad);
        assert_int_equal(decode_status_why(&bad, reason), ST_CORRUPTION);
        buf_set(&bad, good.data, good.len); /* a byte after the payload */
        buf_append_u8(&bad, 0);
        reseal(&bad);
        assert_int_equal(decode_status_why(&bad, reason), ST_CORRUPTION);
        buf_set(&bad, good.data, good.len);
        memset(bad.data + BLOCK_HEADER_LEN, 0xff, bad.len - BLOCK_HEADER_LEN);
        reseal(&bad);
        assert_int_equal(decode_status_why(&bad, reason), ST_CORRUPTION);
        size_t refused = 0;
        for (size_t i = BLOCK_HEADER_LEN; i < good.len; i++) {
            buf_set(&bad, good.data, good.len);
            bad.data[i] ^= 0x5a;
            reseal(&bad);
            int rc = decode_status_why(&bad, reason);
            assert_true(rc == ST_OK || rc == ST_CORRUPTION);
            refused += rc == ST_CORRUPTION;
        }
        assert_true(refused > 0);
    }
    buf_free(&raw);
    buf_free(&good);
    buf_free(&bad);
}

/* Decodes stored with the address space limited to 256 MiB more than in use (in a child;
 * under ASan, which needs its address space, directly): a raw length the payload does not
 * back must end in ST_CORRUPTION, not ST_NOMEM. */
static void expect_corrupt_within_memory(const buf_t *stored, const char *reason)
{
#if defined(__SANITIZE_ADDRESS__)
    assert_int_equal(decode_status_why(stored, reason), ST_CORRUPTION);
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
        _exit(decode_status_why(stored, reason) == ST_CORRUPTION ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
#endif
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
    encode(&raw, BLOCK_TYPE_DATA, BLOCK_COMPRESSION_ZSTD, &stored);
    assert_int_equal(stored.data[1], BLOCK_COMPRESSION_ZSTD);
    uint32_t rlen = be32_get(stored.data + 8);
    for (int delta = -1; delta <= 1; delta += 2) {
        be32_put(stored.data + 8, rlen + (uint32_t)delta);
        reseal(&stored);
        assert_int_equal(decode_status(&stored), ST_CORRUPTION);
    }
    be32_put(stored.data + 8, rlen);
    buf_append_u8(&stored, 0); /* a byte after the frame */
    reseal(&stored);
    assert_int_equal(decode_status(&stored), ST_CORRUPTION);
    stored.len--;
    be32_put(stored.data + 8, 0x80000000u);
    reseal(&stored);
    expect_corrupt_within_memory(&stored, "zstd payload does not decode to its raw length");
    /* 3 MiB of one cell value: past the first output buffer, still decoded */
    buf_t big = {0};
    buf_reserve(&big, 3u << 20);
    memset(big.data, 'v', 3u << 20);
    big.len = 3u << 20;
    assert_int_equal(frame_roundtrip(&big, BLOCK_COMPRESSION_ZSTD), BLOCK_COMPRESSION_ZSTD);
    buf_free(&big);
    buf_free(&raw);
    buf_free(&stored);
}

/* The same for Snappy, LZ4 and gzip: raw lengths of 2 GiB and 4 GiB - 1 that the payload
 * does not back cost no memory (Snappy's length prefix disagrees, LZ4 cannot expand that
 * far, gzip's output grows as it inflates), and large highly compressible blocks (LZ4
 * near its largest expansion) still decode. */
static void corrupt_frame_raw_length_every_codec(void **state)
{
    buf_t raw = {0}, stored = {0}, big = {0};
    build(&raw, 40);
    buf_reserve(&big, 3u << 20);
    memset(big.data, 'v', 3u << 20);
    big.len = 3u << 20;
    for (int c = BLOCK_COMPRESSION_SNAPPY; c <= BLOCK_COMPRESSION_LAST; c++) {
        char reason[64];
        snprintf(reason, sizeof(reason), "%s payload does not decode to its raw length",
                 CODEC_NAMES[c]);
        encode(&raw, BLOCK_TYPE_DATA, c, &stored);
        assert_int_equal(stored.data[1], c);
        be32_put(stored.data + 8, 0x80000000u);
        reseal(&stored);
        expect_corrupt_within_memory(&stored, reason);
        be32_put(stored.data + 8, 0xffffffffu);
        reseal(&stored);
        expect_corrupt_within_memory(&stored, reason);
        assert_int_equal(frame_roundtrip(&big, c), c);
    }
    buf_free(&big);
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
    assert_int_equal(block_init(&blk, BLOCK_TYPE_DATA, raw.data, n), ST_CORRUPTION);
    /* count zero */
    be32_put(raw.data + n - 4, 0);
    assert_int_equal(block_init(&blk, BLOCK_TYPE_DATA, raw.data, n), ST_CORRUPTION);
    be32_put(raw.data + n - 4, 10);
    assert_int_equal(block_init(&blk, BLOCK_TYPE_DATA, raw.data, n), ST_OK);
    /* an offset that does not point at the next cell */
    uint8_t *off3 = raw.data + n - 4 - 4 * 10 + 4 * 3;
    uint32_t saved = be32_get(off3);
    be32_put(off3, saved + 1);
    assert_int_equal(block_init(&blk, BLOCK_TYPE_DATA, raw.data, n), ST_CORRUPTION);
    be32_put(off3, saved);
    /* a cell whose key length runs past the cells */
    be32_put(raw.data, 0x7fffffff);
    assert_int_equal(block_init(&blk, BLOCK_TYPE_DATA, raw.data, n), ST_CORRUPTION);
    assert_int_equal(block_init(&blk, BLOCK_TYPE_DATA, raw.data, 3), ST_CORRUPTION);
    buf_free(&raw);
}

/* ---- type 2 (prefix-compressed keys) and the cursor, for both types ---- */

static void build_type(uint8_t type, buf_t *out, const cell_t *const *cs, size_t n)
{
    block_builder b;
    block_builder_init_type(&b, type);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(block_builder_add(&b, cs[i]), ST_OK);
    size_t expect = block_builder_size(&b);
    assert_int_equal(block_builder_finish(&b, out), ST_OK);
    assert_int_equal(out->len, expect);
    block_builder_free(&b);
}

static void build_cells_type(uint8_t type, buf_t *out, size_t n)
{
    const cell_t *cs[NCELLS];
    for (size_t i = 0; i < n; i++)
        cs[i] = &cells[i].c;
    build_type(type, out, cs, n);
}

static const uint8_t types[] = {BLOCK_TYPE_DATA, BLOCK_TYPE_DATA_V2};

static void cursor_walks_every_cell_both_types(void **state)
{
    for (size_t t = 0; t < 2; t++) {
        buf_t raw = {0};
        block_t blk;
        block_cursor cur;
        block_cursor_init(&cur);
        build_cells_type(types[t], &raw, NCELLS);
        assert_int_equal(block_init(&blk, types[t], raw.data, raw.len), ST_OK);
        assert_int_equal(blk.count, NCELLS);
        assert_int_equal(block_cursor_attach(&cur, &blk), ST_OK);
        block_cursor_first(&cur);
        for (uint32_t i = 0; i < NCELLS; i++) {
            assert_cell_eq(&cur.cell, &cells[i].c);
            assert_int_equal(cur.cell.seq, cells[i].c.seq);
            assert_int_equal(block_cursor_at_last(&cur), i + 1 == NCELLS);
            assert_int_equal(block_cursor_next(&cur), i + 1 < NCELLS);
        }
        assert_cell_eq(&cur.cell, &cells[NCELLS - 1].c); /* next at the end left it */
        cell_t first;
        block_first_cell(&blk, &first);
        assert_cell_eq(&first, &cells[0].c);
        /* a view over already-checked bytes reads the same */
        block_t view;
        block_view(&view, types[t], raw.data, raw.len);
        assert_int_equal(view.count, blk.count);
        assert_int_equal(view.entries_end, blk.entries_end);
        assert_int_equal(view.max_key, blk.max_key);
        block_cursor_free(&cur);
        buf_free(&raw);
    }
}

static void cursor_seek_every_key_and_between_both_types(void **state)
{
    for (size_t t = 0; t < 2; t++) {
        buf_t raw = {0};
        block_t blk;
        block_cursor cur;
        block_cursor_init(&cur);
        build_cells_type(types[t], &raw, NCELLS);
        assert_int_equal(block_init(&blk, types[t], raw.data, raw.len), ST_OK);
        assert_int_equal(block_cursor_attach(&cur, &blk), ST_OK);
        for (uint32_t i = 0; i < NCELLS; i++) {
            const cell_t *k = &cells[i].c;
            assert_true(block_cursor_seek(&cur, k));
            assert_int_equal(cur.pos, i);
            assert_cell_eq(&cur.cell, k);
            assert_true(block_cursor_seek_for_prev(&cur, k));
            assert_int_equal(cur.pos, i);
            assert_cell_eq(&cur.cell, k);
            cell_t between = *k;
            between.ts = k->ts - 1;
            between.value_len = 0;
            assert_int_equal(block_cursor_seek(&cur, &between), i + 1 < NCELLS);
            if (i + 1 < NCELLS) {
                assert_int_equal(cur.pos, i + 1);
                assert_cell_eq(&cur.cell, &cells[i + 1].c);
            }
            assert_true(block_cursor_seek_for_prev(&cur, &between));
            assert_int_equal(cur.pos, i);
            assert_cell_eq(&cur.cell, k);
            /* stepping on from a seek continues in order */
            if (i + 1 < NCELLS) {
                assert_true(block_cursor_next(&cur));
                assert_cell_eq(&cur.cell, &cells[i + 1].c);
            }
            cell_t fr = cell_first_on_row(k->row, k->row_len);
            uint32_t row_start = i - i % (NQUALS * NVERS);
            assert_true(block_cursor_seek(&cur, &fr));
            assert_int_equal(cur.pos, row_start);
            assert_int_equal(block_cursor_seek_for_prev(&cur, &fr), row_start > 0);
            if (row_start > 0)
                assert_int_equal(cur.pos, row_start - 1);
        }
        cell_t before = cell_first_on_row((const uint8_t *)"a", 1);
        cell_t after = cell_first_on_row((const uint8_t *)"zzz", 3);
        assert_true(block_cursor_seek(&cur, &before));
        assert_int_equal(cur.pos, 0);
        assert_false(block_cursor_seek_for_prev(&cur, &before));
        assert_false(block_cursor_seek(&cur, &after));
        assert_true(block_cursor_seek_for_prev(&cur, &after));
        assert_int_equal(cur.pos, NCELLS - 1);
        assert_true(block_cursor_at_last(&cur));
        block_cursor_free(&cur);
        buf_free(&raw);
    }
}

/* Type 2 is smaller for cells sharing rows and columns. */
static void v2_smaller_than_v1(void **state)
{
    buf_t a = {0}, b = {0};
    build_cells_type(BLOCK_TYPE_DATA, &a, NCELLS);
    build_cells_type(BLOCK_TYPE_DATA_V2, &b, NCELLS);
    print_message("%d cells: type 1 %zu bytes, type 2 %zu bytes\n", NCELLS, a.len, b.len);
    assert_true(b.len * 10 < a.len * 7);
    buf_free(&a);
    buf_free(&b);
}

static cell_t mk(const char *row, const char *qual, int64_t ts, uint64_t seq, const char *v)
{
    return (cell_t){.row = (const uint8_t *)row, .row_len = (uint32_t)strlen(row),
                    .family = (const uint8_t *)"cf", .family_len = 2,
                    .qualifier = (const uint8_t *)qual, .qualifier_len = (uint32_t)strlen(qual),
                    .ts = ts, .type = CELL_TYPE_PUT, .seq = seq,
                    .value = (const uint8_t *)v, .value_len = (uint32_t)strlen(v)};
}

/* The worked example of docs/formats/storefile.md, byte for byte. */
static void v2_worked_example(void **state)
{
    cell_t c1 = mk("r1", "a", 5, 9, "x"), c2 = mk("r1", "b", 5, 9, "yz");
    const cell_t *cs[] = {&c1, &c2};
    static const uint8_t want[] = {
        0x00, 0x11, 0x01, 0x00, 0x02, 0x72, 0x31, 0x02, 0x63, 0x66, 0x61, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x05, 0x04, 0x09, 0x78,
        0x07, 0x0a, 0x02, 0x62, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x04, 0x09,
        0x79, 0x7a,
        0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x02};
    buf_t raw = {0};
    build_type(BLOCK_TYPE_DATA_V2, &raw, cs, 2);
    assert_int_equal(raw.len, sizeof(want));
    assert_memory_equal(raw.data, want, sizeof(want));
    block_t blk;
    assert_int_equal(block_init(&blk, BLOCK_TYPE_DATA_V2, raw.data, raw.len), ST_OK);
    assert_int_equal(blk.max_key, 17);
    buf_free(&raw);
}

/* Keys longer than the checker's stack buffer, keys that shrink and grow, a qualifier
 * that is a prefix of the next, empty values and qualifiers, equal keys (seq only). */
static void v2_odd_keys(void **state)
{
    static char longrow[3000];
    memset(longrow, 'k', sizeof(longrow) - 1);
    char shortrow[] = "k";
    cell_t cs[40];
    size_t n = 0;
    cs[n++] = mk(shortrow, "", 7, 1, "");
    cs[n++] = mk(longrow, "", 9, 3, "v");
    cs[n++] = mk(longrow, "", 9, 2, "");   /* same key, lower seq */
    cs[n++] = mk(longrow, "q", 1, 1, "w");
    cs[n++] = mk(longrow, "qq", 1, 1, "");
    for (int i = 0; i < 30; i++) {
        static char rows[30][8];
        snprintf(rows[i], sizeof(rows[i]), "m%02d", i);
        cs[n++] = mk(rows[i], i % 2 ? "x" : "", i, (uint64_t)i << 40, "val");
    }
    const cell_t *ps[40];
    for (size_t i = 0; i < n; i++)
        ps[i] = &cs[i];
    /* order as the comparator says (the builder does not check it) */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && cell_compare(ps[j - 1], ps[j]) > 0; j--) {
            const cell_t *x = ps[j];
            ps[j] = ps[j - 1];
            ps[j - 1] = x;
        }
    buf_t raw = {0};
    build_type(BLOCK_TYPE_DATA_V2, &raw, ps, n);
    block_t blk;
    block_cursor cur;
    block_cursor_init(&cur);
    assert_int_equal(block_init(&blk, BLOCK_TYPE_DATA_V2, raw.data, raw.len), ST_OK);
    assert_int_equal(blk.restarts, (n + 15) / 16);
    assert_int_equal(block_cursor_attach(&cur, &blk), ST_OK);
    block_cursor_first(&cur);
    for (size_t i = 0; i < n; i++) {
        assert_cell_eq(&cur.cell, ps[i]);
        assert_int_equal(cur.cell.seq, ps[i]->seq);
        block_cursor_next(&cur);
    }
    for (size_t i = 0; i < n; i++) {
        assert_true(block_cursor_seek(&cur, ps[i]));
        assert_int_equal(cell_compare(&cur.cell, ps[i]), 0);
        assert_int_equal(cur.cell.seq, ps[i]->seq);
    }
    block_cursor_free(&cur);
    buf_free(&raw);
}

/* Corruptions the type-2 checks must refuse: each is applied to a fresh copy. */
static void v2_corrupt_layout_rejected(void **state)
{
    buf_t raw = {0};
    build_cells_type(BLOCK_TYPE_DATA_V2, &raw, 40); /* 3 restarts */
    block_t blk;
    size_t n = raw.len;
    assert_int_equal(block_init(&blk, BLOCK_TYPE_DATA_V2, raw.data, n), ST_OK);
    assert_int_equal(blk.restarts, 3);
    uint8_t *copy = malloc(n);
    size_t restarts_at = n - 12 - 12;
    struct {
        const char *what;
        size_t at;
        int delta;
    } cases[] = {
        {"count", n - 1, 1},
        {"count zero", n - 4, 0}, /* handled below */
        {"max_key", n - 5, 1},
        {"max_key smaller", n - 5, -1},
        {"restart count", n - 9, 1},
        {"restart 1 offset", restarts_at + 4 + 3, 1},
        {"restart 0 offset", restarts_at + 3, 1},
        {"entry 0 shared", 0, 1},
        {"entry 1 shared (not the whole prefix)", 0, 0}, /* found below */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        memcpy(copy, raw.data, n);
        if (i == 1) {
            be32_put(copy + n - 4, 0);
        } else if (i == 8) {
            /* entry 1 starts after entry 0: shared, unshared, value_len, key, seq, value */
            cell_t c;
            size_t e1 = 0;
            block_cursor cur;
            block_cursor_init(&cur);
            assert_int_equal(block_cursor_attach(&cur, &blk), ST_OK);
            block_cursor_first(&cur);
            e1 = cur.next;
            c = cur.cell;
            (void)c;
            block_cursor_free(&cur);
            assert_true(copy[e1] > 0);
            copy[e1]--;      /* shares one byte less */
            copy[e1 + 1]++;  /* stores one more: the byte it still shares */
            /* the entry no longer fits its bytes; the checks fail either way */
        } else {
            copy[cases[i].at] = (uint8_t)(copy[cases[i].at] + cases[i].delta);
        }
        block_t b2;
        int rc = block_init(&b2, BLOCK_TYPE_DATA_V2, copy, n);
        if (rc != ST_CORRUPTION)
            fail_msg("%s: accepted (%d)", cases[i].what, rc);
    }
    /* truncated anywhere */
    for (size_t len = 0; len < n; len += 7) {
        block_t b2;
        assert_int_equal(block_init(&b2, BLOCK_TYPE_DATA_V2, raw.data, len), ST_CORRUPTION);
    }
    /* a type-1 block is not a type-2 one, nor the reverse; unknown types are refused */
    buf_t v1 = {0};
    build_cells_type(BLOCK_TYPE_DATA, &v1, 40);
    assert_int_equal(block_init(&blk, BLOCK_TYPE_DATA_V2, v1.data, v1.len), ST_CORRUPTION);
    assert_int_equal(block_init(&blk, BLOCK_TYPE_DATA, raw.data, raw.len), ST_CORRUPTION);
    assert_int_equal(block_init(&blk, 3, raw.data, raw.len), ST_CORRUPTION);
    buf_free(&v1);
    free(copy);
    buf_free(&raw);
}

/* A non-canonical but otherwise well-formed entry (shared shorter than the common
 * prefix) is refused: one byte string per sequence of cells. */
static void v2_non_canonical_rejected(void **state)
{
    cell_t c1 = mk("r1", "a", 5, 9, "x"), c2 = mk("r1", "b", 5, 9, "yz");
    const cell_t *cs[] = {&c1, &c2};
    buf_t raw = {0};
    build_type(BLOCK_TYPE_DATA_V2, &raw, cs, 2);
    /* re-encode entry 1 with shared 6, unshared 11 (the key bytes from 6 on) */
    buf_t bad = {0};
    buf_append(&bad, raw.data, 22);
    static const uint8_t e1[] = {0x06, 0x0b, 0x02, 0x66, 0x62, 0x00, 0x00, 0x00, 0x00, 0x00,
                                 0x00, 0x00, 0x05, 0x04, 0x09, 0x79, 0x7a};
    buf_append(&bad, e1, sizeof(e1));
    buf_append(&bad, raw.data + raw.len - 16, 16);
    block_t blk;
    assert_int_equal(block_init(&blk, BLOCK_TYPE_DATA_V2, bad.data, bad.len), ST_CORRUPTION);
    /* with shared 7 it is the canonical block */
    assert_int_equal(block_init(&blk, BLOCK_TYPE_DATA_V2, raw.data, raw.len), ST_OK);
    buf_free(&bad);
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
        cmocka_unit_test(frame_every_codec_both_types),
        cmocka_unit_test(frame_incompressible_stored_raw_every_codec),
        cmocka_unit_test(frame_unknown_code_refused),
        cmocka_unit_test(corrupt_frame_every_bit_detected),
        cmocka_unit_test(corrupt_frame_payload_every_codec),
        cmocka_unit_test(corrupt_frame_raw_length_zstd),
        cmocka_unit_test(corrupt_frame_raw_length_every_codec),
        cmocka_unit_test(corrupt_layout_rejected),
        cmocka_unit_test(cursor_walks_every_cell_both_types),
        cmocka_unit_test(cursor_seek_every_key_and_between_both_types),
        cmocka_unit_test(v2_smaller_than_v1),
        cmocka_unit_test(v2_worked_example),
        cmocka_unit_test(v2_odd_keys),
        cmocka_unit_test(v2_corrupt_layout_rejected),
        cmocka_unit_test(v2_non_canonical_rejected),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
