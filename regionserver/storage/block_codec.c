/*
 * block_codec.c - zstd, Snappy, LZ4 and gzip for store-file data blocks
 * (docs/formats/storefile.md "Data block", "Version 3").
 *
 * Compression tries the codec into a buffer of its bound and reports 0 ("store it raw")
 * unless the result is smaller than the block. Decompression is strict and bounded:
 *   zstd, gzip  streamed into an output buffer that starts at up to 1 MiB and grows as
 *               bytes come out, one frame / member, nothing after it;
 *   Snappy      its length prefix must equal the raw length and the whole buffer must
 *               validate before the output is allocated;
 *   LZ4         a raw length beyond 255 bytes per payload byte (LZ4's largest expansion)
 *               is refused before anything is allocated; LZ4_decompress_safe must then
 *               consume the whole payload and yield exactly the raw length.
 *
 * Thread-safety: pure functions apart from the caller's zstd context.
 */
#define ZLIB_CONST /* z_stream's next_in is a const pointer */

#include "regionserver/storage/block_codec.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>

#include "common/status.h"
#include "regionserver/storage/block.h"

#define FIRST_CAP (1u << 20) /* first output buffer of a streamed decode (zstd, gzip) */
#define GZ_LEVEL 6
#define GZ_WINDOW_BITS 31   /* a 32 KiB window (15) with the gzip wrapper (+16) */
#define GZ_MEM_LEVEL 8      /* zlib's default */
#define GZ_WRAPPER_EXTRA 18 /* gzip header and trailer, beyond compressBound's zlib wrapper */
#define LZ4_MAX_RATIO 255   /* no byte of an LZ4 block yields more than 255 bytes */

/* ---- compression ---- */

size_t block_codec_bound(int code, size_t raw_len)
{
    size_t b = raw_len;
    if (code == BLOCK_COMPRESSION_ZSTD) {
        size_t z = ZSTD_compressBound(raw_len);
        b = ZSTD_isError(z) ? raw_len : z;
    } else if (code == BLOCK_COMPRESSION_SNAPPY) {
        b = snappy_max_compressed_length(raw_len);
    } else if (code == BLOCK_COMPRESSION_LZ4 && raw_len <= LZ4_MAX_INPUT_SIZE) {
        b = (size_t)LZ4_compressBound((int)raw_len);
    } else if (code == BLOCK_COMPRESSION_GZ) {
        b = compressBound((uLong)raw_len) + GZ_WRAPPER_EXTRA;
    }
    return b > raw_len ? b : raw_len;
}

static size_t zstd_compress(const uint8_t *raw, size_t raw_len, ZSTD_CCtx *cctx, int level,
                            uint8_t *dst, size_t cap)
{
    if (!cctx)
        return 0;
    size_t n = ZSTD_compressCCtx(cctx, dst, cap, raw, raw_len, level);
    return ZSTD_isError(n) ? 0 : n;
}

static size_t snappy_compress_block(const uint8_t *raw, size_t raw_len, uint8_t *dst, size_t cap)
{
    size_t n = cap;
    if (snappy_compress((const char *)raw, raw_len, (char *)dst, &n) != SNAPPY_OK)
        return 0;
    return n;
}

static size_t lz4_compress(const uint8_t *raw, size_t raw_len, uint8_t *dst, size_t cap)
{
    if (raw_len > LZ4_MAX_INPUT_SIZE)
        return 0;
    int n = LZ4_compress_default((const char *)raw, (char *)dst, (int)raw_len,
                                 cap > INT_MAX ? INT_MAX : (int)cap);
    return n > 0 ? (size_t)n : 0;
}

/* One gzip member (deflateInit2 with windowBits 31) of the whole input. */
static size_t gz_compress(const uint8_t *raw, size_t raw_len, uint8_t *dst, size_t cap)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (raw_len > UINT_MAX ||
        deflateInit2(&z, GZ_LEVEL, Z_DEFLATED, GZ_WINDOW_BITS, GZ_MEM_LEVEL,
                     Z_DEFAULT_STRATEGY) != Z_OK)
        return 0;
    z.next_in = raw;
    z.avail_in = (uInt)raw_len;
    z.next_out = dst;
    z.avail_out = cap > UINT_MAX ? UINT_MAX : (uInt)cap;
    size_t n = deflate(&z, Z_FINISH) == Z_STREAM_END ? (size_t)z.total_out : 0;
    deflateEnd(&z);
    return n;
}

size_t block_codec_compress(int code, const uint8_t *raw, size_t raw_len, ZSTD_CCtx *cctx,
                            int level, uint8_t *dst, size_t cap)
{
    size_t n = 0;
    if (code == BLOCK_COMPRESSION_ZSTD)
        n = zstd_compress(raw, raw_len, cctx, level, dst, cap);
    else if (code == BLOCK_COMPRESSION_SNAPPY)
        n = snappy_compress_block(raw, raw_len, dst, cap);
    else if (code == BLOCK_COMPRESSION_LZ4)
        n = lz4_compress(raw, raw_len, dst, cap);
    else if (code == BLOCK_COMPRESSION_GZ)
        n = gz_compress(raw, raw_len, dst, cap);
    return n < raw_len ? n : 0;
}

/* ---- decompression ---- */

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

/* The first buffer of a streamed decode toward rlen + 1 bytes (one more than the payload
 * may yield, so too much output shows). */
static size_t first_cap(size_t rlen)
{
    return rlen + 1 < FIRST_CAP ? rlen + 1 : FIRST_CAP;
}

/* Ends a decode: on success hands dst over, otherwise frees it and sets *why. */
static int finish(int rc, uint8_t *dst, uint8_t **out, const char **why, const char *mismatch)
{
    if (rc != ST_OK) {
        free(dst);
        *why = rc == ST_CORRUPTION ? mismatch : NULL;
        return rc;
    }
    *out = dst;
    return ST_OK;
}

/* One zstd frame that decodes to exactly rlen bytes. */
static int zstd_decode(const uint8_t *src, size_t n, size_t rlen, uint8_t **out, const char **why)
{
    size_t limit = rlen + 1, cap = first_cap(rlen);
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
    return finish(rc, dst, out, why, "zstd payload does not decode to its raw length");
}

/* One raw Snappy buffer whose length prefix is rlen; validated before the output is
 * allocated. */
static int snappy_decode(const uint8_t *src, size_t n, size_t rlen, uint8_t **out,
                         const char **why)
{
    static const char mismatch[] = "snappy payload does not decode to its raw length";
    size_t len = 0;
    if (snappy_uncompressed_length((const char *)src, n, &len) != SNAPPY_OK || len != rlen ||
        snappy_validate_compressed_buffer((const char *)src, n) != SNAPPY_OK)
        return finish(ST_CORRUPTION, NULL, out, why, mismatch);
    uint8_t *dst = malloc(rlen ? rlen : 1);
    if (!dst)
        return finish(ST_NOMEM, NULL, out, why, mismatch);
    len = rlen;
    int rc = snappy_uncompress((const char *)src, n, (char *)dst, &len) == SNAPPY_OK && len == rlen
                 ? ST_OK
                 : ST_CORRUPTION;
    return finish(rc, dst, out, why, mismatch);
}

/* One LZ4 block (no size prefix) that decodes to exactly rlen bytes. */
static int lz4_decode(const uint8_t *src, size_t n, size_t rlen, uint8_t **out, const char **why)
{
    static const char mismatch[] = "LZ4 payload does not decode to its raw length";
    if (n > LZ4_MAX_INPUT_SIZE || rlen > INT_MAX || (uint64_t)rlen > (uint64_t)n * LZ4_MAX_RATIO)
        return finish(ST_CORRUPTION, NULL, out, why, mismatch);
    uint8_t *dst = malloc(rlen ? rlen : 1);
    if (!dst)
        return finish(ST_NOMEM, NULL, out, why, mismatch);
    int got = LZ4_decompress_safe((const char *)src, (char *)dst, (int)n, (int)rlen);
    return finish(got >= 0 && (size_t)got == rlen ? ST_OK : ST_CORRUPTION, dst, out, why, mismatch);
}

/* One inflate step into dst[*pos, cap): ST_OK (progress, or the member's end: *end),
 * ST_CORRUPTION (bad data, or the input ended inside the member), ST_NOMEM. */
static int gz_step(z_stream *z, uint8_t *dst, size_t cap, size_t *pos, bool *end)
{
    size_t room = cap - *pos;
    z->next_out = dst + *pos;
    z->avail_out = room > UINT_MAX ? UINT_MAX : (uInt)room;
    int zrc = inflate(z, Z_NO_FLUSH);
    *pos = (size_t)(z->next_out - dst);
    *end = zrc == Z_STREAM_END;
    if (zrc == Z_OK || zrc == Z_STREAM_END)
        return ST_OK;
    return zrc == Z_MEM_ERROR ? ST_NOMEM : ST_CORRUPTION; /* Z_BUF_ERROR: input cut short */
}

/* One gzip member that inflates to exactly rlen bytes, nothing after it. */
static int gz_decode(const uint8_t *src, size_t n, size_t rlen, uint8_t **out, const char **why)
{
    static const char mismatch[] = "gzip payload does not decode to its raw length";
    size_t limit = rlen + 1, cap = first_cap(rlen), pos = 0;
    bool end = false;
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (n > UINT_MAX)
        return finish(ST_CORRUPTION, NULL, out, why, mismatch);
    uint8_t *dst = malloc(cap);
    if (!dst || inflateInit2(&z, GZ_WINDOW_BITS) != Z_OK) {
        free(dst);
        return finish(ST_NOMEM, NULL, out, why, mismatch);
    }
    z.next_in = src;
    z.avail_in = (uInt)n;
    int rc = ST_OK;
    while (rc == ST_OK && !end) {
        if (pos == cap && cap == limit)
            rc = ST_CORRUPTION; /* more than rlen bytes */
        else if (pos == cap && !grow(&dst, &cap, limit))
            rc = ST_NOMEM;
        else
            rc = gz_step(&z, dst, cap, &pos, &end);
    }
    if (rc == ST_OK && (pos != rlen || z.avail_in != 0))
        rc = ST_CORRUPTION; /* too little or too much output, or bytes after the member */
    inflateEnd(&z);
    return finish(rc, dst, out, why, mismatch);
}

int block_codec_decode(int code, const uint8_t *src, size_t n, size_t rlen, uint8_t **out,
                       const char **why)
{
    *out = NULL;
    *why = NULL;
    if (code == BLOCK_COMPRESSION_ZSTD)
        return zstd_decode(src, n, rlen, out, why);
    if (code == BLOCK_COMPRESSION_SNAPPY)
        return snappy_decode(src, n, rlen, out, why);
    if (code == BLOCK_COMPRESSION_LZ4)
        return lz4_decode(src, n, rlen, out, why);
    if (code == BLOCK_COMPRESSION_GZ)
        return gz_decode(src, n, rlen, out, why);
    *why = "unknown compression code";
    return ST_CORRUPTION;
}
