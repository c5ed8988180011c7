/*
 * block.h - store-file data blocks: building, reading and the on-disk frame.
 *
 * A decoded block is cells in the cell encoding followed by a u32 offset per cell
 * and a u32 cell count, so seek and seek_for_prev are binary searches. On disk a
 * block is a 16-byte header (type, compression, stored and decoded lengths, CRC32C)
 * and the payload, zstd-compressed when that makes it smaller.
 * Byte layout: docs/formats/storefile.md ("Data block"). The constants below are
 * on-disk values and are never renumbered.
 *
 * Thread-safety: a block_builder has one owner; a block_t is read-only after
 * block_init() and may be shared by any number of threads.
 */
#ifndef STRATA_REGIONSERVER_BLOCK_H
#define STRATA_REGIONSERVER_BLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zstd.h>

#include "common/buf.h"
#include "common/cell.h"

#define BLOCK_TYPE_DATA 1
#define BLOCK_HEADER_LEN 16
#define BLOCK_COMPRESSION_NONE 0 /* = COMPRESSION_NONE */
#define BLOCK_COMPRESSION_ZSTD 1 /* = COMPRESSION_ZSTD */

/* ---- building ---- */

typedef struct block_builder {
    buf_t cells;   /* encoded cells */
    buf_t offsets; /* u32 big-endian offset of each cell */
    uint32_t count;
} block_builder;

/* A zeroed block_builder is an empty one too. */
void block_builder_init(block_builder *b);
/* Appends c (the caller keeps the order). ST_NOMEM on failure, b unchanged. */
int block_builder_add(block_builder *b, const cell_t *c);
/* Decoded size the block would have if finished now. */
size_t block_builder_size(const block_builder *b);
bool block_builder_empty(const block_builder *b);
/* Replaces out with the decoded block and resets b for the next block. */
int block_builder_finish(block_builder *b, buf_t *out);
void block_builder_free(block_builder *b);

/* ---- reading a decoded block ---- */

typedef struct block_t {
    const uint8_t *data; /* borrowed */
    size_t len;
    const uint8_t *offsets; /* count big-endian u32 */
    uint32_t count;
} block_t;

/* Checks the layout of [data, data+len) (offsets increasing, every cell decodes and
 * ends where the next begins) and fills blk. ST_CORRUPTION (no message) if not. */
int block_init(block_t *blk, const uint8_t *data, size_t len);
/* block_init without the checks, for bytes that already passed them. */
void block_view(block_t *blk, const uint8_t *data, size_t len);
/* Cell i (< count) as a view into the block. */
void block_cell(const block_t *blk, uint32_t i, cell_t *out);
/* Index of the first cell >= key, or count if none. */
uint32_t block_seek(const block_t *blk, const cell_t *key);
/* Index of the last cell <= key, or -1 if none. */
int64_t block_seek_for_prev(const block_t *blk, const cell_t *key);

/* ---- the on-disk frame ---- */

/* Appends header + payload for the decoded block raw to out. compression is
 * BLOCK_COMPRESSION_*; with ZSTD, cctx and level are used and the block is stored
 * uncompressed if zstd does not shrink it. ST_NOMEM / ST_INTERNAL on failure. */
int block_frame_encode(const uint8_t *raw, size_t raw_len, int compression, ZSTD_CCtx *cctx,
                       int level, buf_t *out);
/* Verifies a whole stored block (header + payload, n bytes) and returns its decoded
 * bytes in *raw (malloc'd, caller frees) and their length. A zstd payload must be one
 * frame that decodes to exactly the header's raw length; its output buffer grows as the
 * frame yields bytes, so a raw length the frame does not back costs no memory. On
 * ST_CORRUPTION *why says what failed; ST_NOMEM if out of memory. */
int block_frame_decode(const uint8_t *stored, size_t n, uint8_t **raw, size_t *raw_len,
                       const char **why);
/* The same checks without a copy: an uncompressed payload is returned in place
 * (*raw points into stored, *decoded = NULL); a zstd payload is decoded into *decoded
 * (malloc'd, caller frees) and *raw = *decoded. */
int block_frame_open(const uint8_t *stored, size_t n, const uint8_t **raw, size_t *raw_len,
                     uint8_t **decoded, const char **why);

#endif
