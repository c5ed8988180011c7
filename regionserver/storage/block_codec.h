/*
 * block_codec.h - the compression codecs of store-file data blocks, by their on-disk
 * codes (BLOCK_COMPRESSION_* of block.h): zstd (1), Snappy (2), LZ4 block format (3) and
 * gzip (4). block.c puts their output in a block frame. Payload forms and the limits a
 * decoder keeps: docs/formats/storefile.md ("Data block", "Version 3").
 *
 * A decoder is strict: a payload decodes to exactly the raw length the block header gives,
 * with no bytes left over, or the block is corrupt; and it never allocates much more than
 * the payload can produce, so a damaged raw length costs no memory.
 *
 * Thread-safety: pure functions, apart from the caller's zstd compression context.
 */
#ifndef STRATA_REGIONSERVER_BLOCK_CODEC_H
#define STRATA_REGIONSERVER_BLOCK_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include <zstd.h>

/* Bytes a dst buffer needs for block_codec_compress() of raw_len bytes with `code`:
 * at least raw_len (exactly raw_len for BLOCK_COMPRESSION_NONE or an unknown code). */
size_t block_codec_bound(int code, size_t raw_len);

/* Compresses [raw, raw+raw_len) with codec `code` into dst (cap >= block_codec_bound()).
 * zstd uses cctx at `level` (a NULL cctx compresses nothing); the other codecs need no
 * context (gzip at level 6, LZ4 at its default acceleration). Returns the compressed
 * size, or 0 when the codec is NONE or unknown, failed, or did not make the block
 * smaller: the caller then stores the block raw. */
size_t block_codec_compress(int code, const uint8_t *raw, size_t raw_len, ZSTD_CCtx *cctx,
                            int level, uint8_t *dst, size_t cap);

/* Decodes the payload [src, src+n) of codec `code` (ZSTD, SNAPPY, LZ4 or GZ), which must
 * decode to exactly rlen bytes, into *out (malloc'd, the caller frees). ST_OK;
 * ST_CORRUPTION with *why (a static string naming the codec) when the payload is not
 * exactly one valid unit of the codec that decodes to rlen bytes, or the code is not a
 * codec; ST_NOMEM (*why NULL). *out is NULL on failure. */
int block_codec_decode(int code, const uint8_t *src, size_t n, size_t rlen, uint8_t **out,
                       const char **why);

#endif
