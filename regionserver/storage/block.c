/*
 * block.c - data block builder, reader (binary search over the offsets array) and
 * the on-disk frame (header, CRC32C, optional zstd). Layout: docs/formats/storefile.md.
 *
 * Thread-safety: builders have one owner; block_t readers are immutable; the frame
 * functions are pure apart from the caller's zstd context.
 */
#include "regionserver/storage/block.h"

#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/crc32c.h"
#include "common/status.h"

/* First output buffer of a zstd block decode; normal blocks (64 KiB) fit at once. */
#define ZSTD_FIRST_CAP (1u << 20)

/* ---- building ---- */

void block_builder_init(block_builder *b)
{
    memset(b, 0, sizeof(*b));
}

int block_builder_add(block_builder *b, const cell_t *c)
{
    size_t n = cell_encoded_len(c);
    size_t off = b->cells.len;
    if (off > UINT32_MAX || n > UINT32_MAX - off)
        return st_error(ST_INVALID_ARGUMENT, "data block would exceed 4 GiB");
    if (buf_reserve(&b->cells, n) != ST_OK || buf_reserve(&b->offsets, 4) != ST_OK)
        return ST_NOMEM;
    cell_encode(c, b->cells.data + off);
    b->cells.len += n;
    buf_append_be32(&b->offsets, (uint32_t)off); /* cannot fail: reserved */
    b->count++;
    return ST_OK;
}

size_t block_builder_size(const block_builder *b)
{
    return b->cells.len + b->offsets.len + 4;
}

bool block_builder_empty(const block_builder *b)
{
    return b->count == 0;
}

int block_builder_finish(block_builder *b, buf_t *out)
{
    buf_reset(out);
    int rc = buf_reserve(out, block_builder_size(b));
    if (rc != ST_OK)
        return rc;
    buf_append(out, b->cells.data, b->cells.len);
    buf_append(out, b->offsets.data, b->offsets.len);
    buf_append_be32(out, b->count);
    buf_reset(&b->cells);
    buf_reset(&b->offsets);
    b->count = 0;
    return ST_OK;
}

void block_builder_free(block_builder *b)
{
    buf_free(&b->cells);
    buf_free(&b->offsets);
    b->count = 0;
}

/* ---- reading ---- */

int block_init(block_t *blk, const uint8_t *data, size_t len)
{
    if (len < 4)
        return ST_CORRUPTION;
    uint32_t count = be32_get(data + len - 4);
    if (count == 0 || count > (len - 4) / 4)
        return ST_CORRUPTION;
    size_t cells_end = len - 4 - (size_t)count * 4;
    const uint8_t *offs = data + cells_end;
    size_t expect = 0;
    for (uint32_t i = 0; i < count; i++) {
        cell_t c;
        size_t used = 0;
        if (be32_get(offs + 4 * (size_t)i) != expect || expect >= cells_end)
            return ST_CORRUPTION;
        if (cell_decode(data + expect, cells_end - expect, &c, &used) != ST_OK)
            return ST_CORRUPTION;
        expect += used;
    }
    if (expect != cells_end)
        return ST_CORRUPTION;
    blk->data = data;
    blk->len = len;
    blk->offsets = offs;
    blk->count = count;
    return ST_OK;
}

void block_view(block_t *blk, const uint8_t *data, size_t len)
{
    uint32_t count = be32_get(data + len - 4);
    blk->data = data;
    blk->len = len;
    blk->offsets = data + len - 4 - (size_t)count * 4;
    blk->count = count;
}

void block_cell(const block_t *blk, uint32_t i, cell_t *out)
{
    size_t off = be32_get(blk->offsets + 4 * (size_t)i);
    size_t end = (size_t)(blk->offsets - blk->data);
    size_t used;
    /* block_init() decoded every cell once; this cannot fail. */
    (void)cell_decode(blk->data + off, end - off, out, &used);
}

uint32_t block_seek(const block_t *blk, const cell_t *key)
{
    uint32_t lo = 0, hi = blk->count; /* answer in [lo, hi] */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        cell_t c;
        block_cell(blk, mid, &c);
        if (cell_compare(&c, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int64_t block_seek_for_prev(const block_t *blk, const cell_t *key)
{
    uint32_t lo = 0, hi = blk->count; /* first cell > key in [lo, hi] */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        cell_t c;
        block_cell(blk, mid, &c);
        if (cell_compare(&c, key) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (int64_t)lo - 1;
}

/* ---- the on-disk frame ---- */

static void put_header(uint8_t *h, int compression, size_t stored, size_t raw)
{
    h[0] = BLOCK_TYPE_DATA;
    h[1] = (uint8_t)compression;
    h[2] = h[3] = 0;
    be32_put(h + 4, (uint32_t)stored);
    be32_put(h + 8, (uint32_t)raw);
}

static void seal_header(uint8_t *h)
{
    uint32_t stored = be32_get(h + 4);
    uint32_t crc = crc32c_extend(0, h, 12);
    crc = crc32c_extend(crc, h + BLOCK_HEADER_LEN, stored);
    be32_put(h + 12, crc);
}

/* Tries zstd into out after the header; returns the compressed size or 0 if it did
 * not shrink the block (or failed). */
static size_t try_zstd(const uint8_t *raw, size_t raw_len, ZSTD_CCtx *cctx, int level, uint8_t *dst,
                       size_t cap)
{
    if (!cctx)
        return 0;
    size_t n = ZSTD_compressCCtx(cctx, dst, cap, raw, raw_len, level);
    if (ZSTD_isError(n) || n >= raw_len)
        return 0;
    return n;
}

int block_frame_encode(const uint8_t *raw, size_t raw_len, int compression, ZSTD_CCtx *cctx,
                       int level, buf_t *out)
{
    if (raw_len > UINT32_MAX)
        return st_error(ST_INVALID_ARGUMENT, "data block of %zu bytes is too large", raw_len);
    size_t bound = raw_len;
    if (compression == BLOCK_COMPRESSION_ZSTD && ZSTD_compressBound(raw_len) > bound)
        bound = ZSTD_compressBound(raw_len);
    if (buf_reserve(out, BLOCK_HEADER_LEN + bound) != ST_OK)
        return ST_NOMEM;
    uint8_t *h = out->data + out->len;
    size_t stored = 0;
    if (compression == BLOCK_COMPRESSION_ZSTD)
        stored = try_zstd(raw, raw_len, cctx, level, h + BLOCK_HEADER_LEN, bound);
    int code = stored ? BLOCK_COMPRESSION_ZSTD : BLOCK_COMPRESSION_NONE;
    if (!stored) {
        stored = raw_len;
        memcpy(h + BLOCK_HEADER_LEN, raw, raw_len);
    }
    put_header(h, code, stored, raw_len);
    seal_header(h);
    out->len += BLOCK_HEADER_LEN + stored;
    return ST_OK;
}

static int check_header(const uint8_t *h, size_t n, const char **why)
{
    *why = NULL;
    if (n < BLOCK_HEADER_LEN)
        *why = "shorter than its header";
    else if (h[0] != BLOCK_TYPE_DATA)
        *why = "bad block type";
    else if ((uint64_t)be32_get(h + 4) + BLOCK_HEADER_LEN != n)
        *why = "stored length disagrees with the index";
    else if (crc32c_extend(crc32c_extend(0, h, 12), h + BLOCK_HEADER_LEN, n - BLOCK_HEADER_LEN) !=
             be32_get(h + 12))
        *why = "checksum mismatch";
    else if (h[1] != BLOCK_COMPRESSION_NONE && h[1] != BLOCK_COMPRESSION_ZSTD)
        *why = "unknown compression code";
    else if (h[1] == BLOCK_COMPRESSION_NONE && be32_get(h + 4) != be32_get(h + 8))
        *why = "raw length disagrees with stored length";
    return *why ? ST_CORRUPTION : ST_OK;
}

/* Grows *dst (capacity *cap) toward limit, doubling; false if out of memory. */
static bool grow(uint8_t **dst, size_t *cap, size_t limit)
{
    size_t want = *cap > limit / 2 ? limit : *cap * 2;
    uint8_t *p = realloc(*dst, want);
    if (!p)
        return false;
    *dst = p;
    *cap = want;
    return true;
}

/* Decompresses the one zstd frame of [src, src+n), which must decode to exactly rlen
 * bytes, into *out (malloc'd). The output buffer starts at up to ZSTD_FIRST_CAP bytes
 * and grows as bytes come out, so a raw length that the frame does not back with data
 * (a damaged header whose CRC still matches) never allocates more than the frame yields.
 * ST_CORRUPTION with *why, or ST_NOMEM. */
static int zstd_decode(const uint8_t *src, size_t n, size_t rlen, uint8_t **out, const char **why)
{
    static const char mismatch[] = "zstd payload does not decode to its raw length";
    size_t limit = rlen + 1, cap = limit < ZSTD_FIRST_CAP ? limit : ZSTD_FIRST_CAP;
    uint8_t *dst = malloc(cap);
    ZSTD_DCtx *d = ZSTD_createDCtx();
    int rc = dst && d ? ST_OK : ST_NOMEM;
    ZSTD_inBuffer in = {src, n, 0};
    ZSTD_outBuffer o = {dst, cap, 0};
    size_t left = 1; /* ZSTD_decompressStream's hint: 0 once the frame is complete */
    while (rc == ST_OK && left != 0) {
        left = ZSTD_decompressStream(d, &o, &in);
        if (ZSTD_isError(left) || o.pos > rlen ||
            (left != 0 && in.pos == in.size && o.pos < o.size))
            rc = ST_CORRUPTION; /* bad data, too much output, or a frame cut short */
        else if (left != 0 && o.pos == o.size && !grow(&dst, &cap, limit))
            rc = ST_NOMEM;
        o.dst = dst;
        o.size = cap;
    }
    if (rc == ST_OK && (o.pos != rlen || in.pos != n))
        rc = ST_CORRUPTION; /* too little output, or bytes after the frame */
    ZSTD_freeDCtx(d);
    if (rc != ST_OK) {
        free(dst);
        *why = rc == ST_CORRUPTION ? mismatch : NULL;
        return rc;
    }
    *out = dst;
    return ST_OK;
}

int block_frame_open(const uint8_t *stored, size_t n, const uint8_t **raw, size_t *raw_len,
                     uint8_t **decoded, const char **why)
{
    *raw = NULL;
    *raw_len = 0;
    *decoded = NULL;
    int rc = check_header(stored, n, why);
    if (rc != ST_OK)
        return rc;
    size_t rlen = be32_get(stored + 8);
    const uint8_t *payload = stored + BLOCK_HEADER_LEN;
    if (stored[1] == BLOCK_COMPRESSION_ZSTD) {
        rc = zstd_decode(payload, n - BLOCK_HEADER_LEN, rlen, decoded, why);
        if (rc != ST_OK)
            return rc;
        payload = *decoded;
    }
    *raw = payload;
    *raw_len = rlen;
    return ST_OK;
}

int block_frame_decode(const uint8_t *stored, size_t n, uint8_t **raw, size_t *raw_len,
                       const char **why)
{
    *raw = NULL;
    *raw_len = 0;
    int rc = check_header(stored, n, why);
    if (rc != ST_OK)
        return rc;
    size_t rlen = be32_get(stored + 8);
    const uint8_t *payload = stored + BLOCK_HEADER_LEN;
    uint8_t *dst = NULL;
    if (stored[1] == BLOCK_COMPRESSION_ZSTD) {
        rc = zstd_decode(payload, n - BLOCK_HEADER_LEN, rlen, &dst, why);
        if (rc != ST_OK)
            return rc;
    } else {
        if (!(dst = malloc(rlen ? rlen : 1)))
            return ST_NOMEM;
        memcpy(dst, payload, rlen);
    }
    *raw = dst;
    *raw_len = rlen;
    return ST_OK;
}
