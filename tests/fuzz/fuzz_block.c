/*
 * fuzz_block.c - fuzz target for the store file's data blocks and bloom section
 * (regionserver/storage/block.c, bloom.c; docs/formats/storefile.md "Data block", "Bloom section"):
 * the input is decoded as an on-disk block frame (block_frame_decode; again with its stored length
 * and CRC repaired, fuzz_repair.h, so mutations reach the decompression), as a decoded block of
 * either type (block_init, then every cell through a block_cursor and seeks to each), and as a
 * bloom section (bloom_parse, then probes).
 *
 * It asserts: a frame decodes to ST_OK or ST_CORRUPTION with a reason (any code of version 3
 * allowed; a code of version 3 is refused where only versions 1 and 2's are, and a frame decodes
 * the same either way otherwise), and a decoded frame re-encodes with every codec (none, zstd,
 * Snappy, LZ4, gzip) to a frame of that code or of code 0 that decodes to the same bytes; a block
 * that block_init accepts (type 1 or type 2) is rebuilt by a block_builder of its type from its
 * cells to exactly the input bytes (both layouts are canonical), and when its cells are strictly
 * increasing, the cursor's seek and seek_for_prev find each cell at its own position; seek results
 * stay in range for any block; a bloom built from hashes taken from the input answers "maybe" for
 * each of them after bloom_parse. Memory errors, leaks and undefined behaviour are caught by the
 * sanitizers.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "common/buf.h"
#include "common/bytes.h"
#include "common/status.h"
#include "regionserver/storage/block.h"
#include "regionserver/storage/bloom.h"
#include "regionserver/storage/storefile.h"
#include "tests/fuzz/fuzz_repair.h"
#include "tests/fuzz/fuzz_support.h"

#define MAX_HASHES 64

static void check_reencode(ZSTD_CCtx *cctx, const uint8_t *raw, size_t raw_len)
{
    for (int compression = BLOCK_COMPRESSION_NONE; compression <= BLOCK_COMPRESSION_LAST;
         compression++) {
        buf_t frame = {0};
        uint8_t *back = NULL;
        size_t back_len = 0;
        const char *why = NULL;
        FUZZ_CHECK(block_frame_encode(raw, raw_len, BLOCK_TYPE_DATA_V2, compression, cctx, 1,
                                      &frame) == ST_OK,
                   "encode of %zu bytes", raw_len);
        FUZZ_CHECK(frame.data[1] == compression || frame.data[1] == BLOCK_COMPRESSION_NONE,
                   "codec %d encoded with code %u", compression, frame.data[1]);
        int rc = block_frame_decode(frame.data, frame.len, BLOCK_COMPRESSION_LAST, &back,
                                    &back_len, &why);
        FUZZ_CHECK(rc == ST_OK, "re-encoded frame does not decode: %s", why ? why : "?");
        FUZZ_CHECK(back_len == raw_len && (raw_len == 0 || memcmp(back, raw, raw_len) == 0),
                   "re-encoded frame decodes to other bytes");
        free(back);
        buf_free(&frame);
    }
}

static void check_block_type(uint8_t type, const uint8_t *data, size_t size);

/* The frame decoded as in a version-1 or -2 file (codes 0 and 1 only): the same answer
 * as with every code allowed (rc) for those codes, corruption for the others. */
static void check_old_versions(const uint8_t *data, size_t size, int rc)
{
    uint8_t *raw = NULL;
    size_t raw_len = 0;
    const char *why = NULL;
    int old = block_frame_decode(data, size, BLOCK_COMPRESSION_ZSTD, &raw, &raw_len, &why);
    free(raw);
    if (rc == ST_OK && data[1] > BLOCK_COMPRESSION_ZSTD)
        FUZZ_CHECK(old == ST_CORRUPTION, "code %u accepted in a version-2 file", data[1]);
    else
        FUZZ_CHECK(old == rc, "version 2 decodes %d, version 3 %d", old, rc);
}

static void check_frame(ZSTD_CCtx *cctx, const uint8_t *data, size_t size)
{
    uint8_t *raw = NULL;
    size_t raw_len = 0;
    const char *why = NULL;
    int rc = block_frame_decode(data, size, BLOCK_COMPRESSION_LAST, &raw, &raw_len, &why);
    check_old_versions(data, size, rc);
    if (rc != ST_OK) {
        FUZZ_CHECK(rc == ST_CORRUPTION && why != NULL && raw == NULL, "frame: %d", rc);
        return;
    }
    FUZZ_CHECK(size >= BLOCK_HEADER_LEN && raw_len == be32_get(data + 8),
               "raw length %zu, header says %u", raw_len, size >= 12 ? be32_get(data + 8) : 0);
    check_reencode(cctx, raw, raw_len);
    check_block_type(data[0], raw, raw_len);
    free(raw);
}

/* A block of `type` that block_init accepts: its cells (through a cursor) rebuild to the
 * same bytes, and seeks land in range (on each cell when the cells are increasing). */
static void check_block_type(uint8_t type, const uint8_t *data, size_t size)
{
    block_t blk;
    if (block_init(&blk, type, data, size) != ST_OK)
        return;
    FUZZ_CHECK(blk.count >= 1 && blk.len == size, "count %u len %zu", blk.count, blk.len);
    block_cursor cur, probe;
    block_cursor_init(&cur);
    block_cursor_init(&probe);
    FUZZ_CHECK(block_cursor_attach(&cur, &blk) == ST_OK && block_cursor_attach(&probe, &blk) == ST_OK,
               "attach");
    block_builder b;
    block_builder_init_type(&b, type);
    bool sorted = true;
    cell_t *cells = malloc(blk.count * sizeof(*cells));
    uint8_t **keys = calloc(blk.count, sizeof(*keys)); /* type 2 keys live in the cursor */
    FUZZ_CHECK(cells && keys, "out of memory");
    block_cursor_first(&cur);
    for (uint32_t i = 0; i < blk.count; i++) {
        cell_t c = cur.cell;
        size_t kl = c.row_len + c.family_len + c.qualifier_len;
        keys[i] = malloc(kl ? kl : 1);
        FUZZ_CHECK(keys[i] != NULL, "out of memory");
        memcpy(keys[i], c.row, c.row_len);
        memcpy(keys[i] + c.row_len, c.family, c.family_len);
        if (c.qualifier_len)
            memcpy(keys[i] + c.row_len + c.family_len, c.qualifier, c.qualifier_len);
        c.row = keys[i];
        c.family = keys[i] + c.row_len;
        c.qualifier = keys[i] + c.row_len + c.family_len;
        if (i && cell_compare(&cells[i - 1], &c) >= 0)
            sorted = false;
        cells[i] = c;
        FUZZ_CHECK(block_builder_add(&b, &c) == ST_OK, "builder add %u", i);
        FUZZ_CHECK(block_cursor_at_last(&cur) == (i + 1 == blk.count), "at_last at %u", i);
        FUZZ_CHECK(block_cursor_next(&cur) == (i + 1 < blk.count), "next at %u", i);
    }
    buf_t rebuilt = {0};
    FUZZ_CHECK(block_builder_finish(&b, &rebuilt) == ST_OK, "builder finish");
    FUZZ_CHECK(rebuilt.len == size && memcmp(rebuilt.data, data, size) == 0,
               "type %u: cells rebuild to %zu other bytes (of %zu)", type, rebuilt.len, size);
    buf_free(&rebuilt);
    block_builder_free(&b);
    for (uint32_t i = 0; i < blk.count; i++) {
        const cell_t *c = &cells[i];
        bool at = block_cursor_seek(&probe, c);
        FUZZ_CHECK(!at || probe.pos < blk.count, "seek %u of %u", probe.pos, blk.count);
        FUZZ_CHECK(!sorted || (at && probe.pos == i), "cell %u of a sorted block: seek %u", i,
                   probe.pos);
        bool before = block_cursor_seek_for_prev(&probe, c);
        FUZZ_CHECK(!before || probe.pos < blk.count, "seek_for_prev %u", probe.pos);
        FUZZ_CHECK(!sorted || (before && probe.pos == i),
                   "cell %u of a sorted block: seek_for_prev %u", i, probe.pos);
        cell_t k = cell_first_on_row(c->row, c->row_len);
        at = block_cursor_seek(&probe, &k);
        FUZZ_CHECK(!sorted || (at && probe.pos <= i), "seek to the row's start: %u", probe.pos);
        k = cell_last_on_column(c->row, c->row_len, c->family, c->family_len, c->qualifier,
                                c->qualifier_len);
        before = block_cursor_seek_for_prev(&probe, &k);
        FUZZ_CHECK(!sorted || (before && probe.pos >= i), "seek_for_prev past the column: %u",
                   probe.pos);
        if (type == BLOCK_TYPE_DATA) { /* the index-based searches agree with the cursor */
            uint32_t at1 = block_seek(&blk, c);
            int64_t before1 = block_seek_for_prev(&blk, c);
            FUZZ_CHECK(at1 <= blk.count && before1 >= -1 && before1 < (int64_t)blk.count,
                       "seek %u / %lld of %u", at1, (long long)before1, blk.count);
        }
    }
    for (uint32_t i = 0; i < blk.count; i++)
        free(keys[i]);
    free(keys);
    free(cells);
    block_cursor_free(&cur);
    block_cursor_free(&probe);
}

static void check_block(const uint8_t *data, size_t size)
{
    check_block_type(BLOCK_TYPE_DATA, data, size);
    check_block_type(BLOCK_TYPE_DATA_V2, data, size);
}

static void check_bloom(const uint8_t *data, size_t size)
{
    bloom_filter bf;
    if (bloom_parse(data, size, &bf) == ST_OK) {
        FUZZ_CHECK(bf.m >= 64 && bf.m / 8 == size - BLOOM_SECTION_HEADER_LEN, "m %llu",
                   (unsigned long long)bf.m);
        for (size_t i = 0; i + 8 <= size && i < 256; i += 8)
            (void)bloom_may_contain(&bf, be64_get(data + i));
        (void)bloom_may_contain(&bf, bloom_row_hash(data, size));
    }
    uint64_t hashes[MAX_HASHES];
    size_t n = 0;
    for (size_t i = 0; i + 8 <= size && n < MAX_HASHES; i += 8)
        hashes[n++] = bloom_hash64(data + i, size - i);
    buf_t built = {0};
    FUZZ_CHECK(bloom_build(hashes, n, BLOOM_ROW, &built) == ST_OK, "bloom build");
    FUZZ_CHECK(bloom_parse(built.data, built.len, &bf) == ST_OK, "a built bloom does not parse");
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK(bloom_may_contain(&bf, hashes[i]), "false negative for hash %zu of %zu", i, n);
    buf_free(&built);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static ZSTD_CCtx *cctx;
    if (!cctx) {
        cctx = ZSTD_createCCtx();
        FUZZ_CHECK(cctx != NULL, "out of memory");
    }
    check_frame(cctx, data, size);
    uint8_t *copy = malloc(size ? size : 1);
    FUZZ_CHECK(copy != NULL, "out of memory");
    if (size)
        memcpy(copy, data, size);
    if (fuzz_repair_block_frame(copy, size))
        check_frame(cctx, copy, size);
    free(copy);
    check_block(data, size);
    check_bloom(data, size);
    return 0;
}
