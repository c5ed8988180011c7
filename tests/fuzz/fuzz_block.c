/*
 * fuzz_block.c - fuzz target for the store file's data blocks and bloom section
 * (regionserver/storage/block.c, bloom.c; docs/formats/storefile.md "Data block",
 * "Bloom section"): the input is decoded as an on-disk block frame
 * (block_frame_decode; again with its stored length and CRC repaired, fuzz_repair.h, so
 * mutations reach the decompression), as a decoded block (block_init, then every cell
 * and seeks to each), and as a bloom section (bloom_parse, then probes).
 *
 * It asserts: a frame decodes to ST_OK or ST_CORRUPTION with a reason, and a decoded
 * frame re-encodes (uncompressed and with zstd) to a frame that decodes to the same
 * bytes; a block that block_init accepts is rebuilt by block_builder from its cells to
 * exactly the input bytes, and when its cells are strictly increasing, block_seek and
 * block_seek_for_prev find each cell at its own index; seek results stay in range for
 * any block; a bloom built from hashes taken from the input answers "maybe" for each of
 * them after bloom_parse. Memory errors, leaks and undefined behaviour are caught by the
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
    for (int compression = BLOCK_COMPRESSION_NONE; compression <= BLOCK_COMPRESSION_ZSTD;
         compression++) {
        buf_t frame = {0};
        uint8_t *back = NULL;
        size_t back_len = 0;
        const char *why = NULL;
        FUZZ_CHECK(block_frame_encode(raw, raw_len, compression, cctx, 1, &frame) == ST_OK,
                   "encode of %zu bytes", raw_len);
        int rc = block_frame_decode(frame.data, frame.len, &back, &back_len, &why);
        FUZZ_CHECK(rc == ST_OK, "re-encoded frame does not decode: %s", why ? why : "?");
        FUZZ_CHECK(back_len == raw_len && (raw_len == 0 || memcmp(back, raw, raw_len) == 0),
                   "re-encoded frame decodes to other bytes");
        free(back);
        buf_free(&frame);
    }
}

static void check_frame(ZSTD_CCtx *cctx, const uint8_t *data, size_t size)
{
    uint8_t *raw = NULL;
    size_t raw_len = 0;
    const char *why = NULL;
    int rc = block_frame_decode(data, size, &raw, &raw_len, &why);
    if (rc != ST_OK) {
        FUZZ_CHECK(rc == ST_CORRUPTION && why != NULL && raw == NULL, "frame: %d", rc);
        return;
    }
    FUZZ_CHECK(size >= BLOCK_HEADER_LEN && raw_len == be32_get(data + 8),
               "raw length %zu, header says %u", raw_len, size >= 12 ? be32_get(data + 8) : 0);
    check_reencode(cctx, raw, raw_len);
    block_t blk;
    (void)block_init(&blk, raw, raw_len);
    free(raw);
}

static void check_block(const uint8_t *data, size_t size)
{
    block_t blk;
    if (block_init(&blk, data, size) != ST_OK)
        return;
    FUZZ_CHECK(blk.count >= 1 && blk.len == size, "count %u len %zu", blk.count, blk.len);
    block_builder b;
    block_builder_init(&b);
    bool sorted = true;
    cell_t prev = {0};
    for (uint32_t i = 0; i < blk.count; i++) {
        cell_t c;
        block_cell(&blk, i, &c);
        if (i && cell_compare(&prev, &c) >= 0)
            sorted = false;
        prev = c;
        FUZZ_CHECK(block_builder_add(&b, &c) == ST_OK, "builder add %u", i);
    }
    buf_t rebuilt = {0};
    FUZZ_CHECK(block_builder_finish(&b, &rebuilt) == ST_OK, "builder finish");
    FUZZ_CHECK(rebuilt.len == size && memcmp(rebuilt.data, data, size) == 0,
               "cells rebuild to %zu other bytes (of %zu)", rebuilt.len, size);
    buf_free(&rebuilt);
    block_builder_free(&b);
    for (uint32_t i = 0; i < blk.count; i++) {
        cell_t c;
        block_cell(&blk, i, &c);
        uint32_t at = block_seek(&blk, &c);
        int64_t before = block_seek_for_prev(&blk, &c);
        FUZZ_CHECK(at <= blk.count && before >= -1 && before < (int64_t)blk.count,
                   "seek %u / %lld of %u", at, (long long)before, blk.count);
        FUZZ_CHECK(!sorted || (at == i && before == (int64_t)i),
                   "cell %u of a sorted block: seek %u, seek_for_prev %lld", i, at,
                   (long long)before);
        cell_t k = cell_first_on_row(c.row, c.row_len);
        at = block_seek(&blk, &k);
        FUZZ_CHECK(at <= blk.count && (!sorted || at <= i), "seek to the row's start: %u", at);
        k = cell_last_on_column(c.row, c.row_len, c.family, c.family_len, c.qualifier,
                                c.qualifier_len);
        before = block_seek_for_prev(&blk, &k);
        FUZZ_CHECK(before < (int64_t)blk.count && (!sorted || before >= (int64_t)i),
                   "seek_for_prev past the column: %lld", (long long)before);
    }
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
