/*
 * block.h - store-file data blocks: building, reading and the on-disk frame.
 *
 * A decoded block of type 1 is cells in the cell encoding followed by a u32 offset
 * per cell and a u32 cell count, so seek and seek_for_prev are binary searches. Type 2
 * (version-2 files) stores each key as the bytes it does not share with the previous
 * one, with the whole key at a restart point every 16 cells: a seek binary searches
 * the restarts and steps through at most 16 entries. A block_cursor reads either. On disk a
 * block is a 16-byte header (type, compression, stored and decoded lengths, CRC32C)
 * and the payload, compressed (zstd; from version 3 also Snappy, LZ4 or gzip:
 * block_codec.h) when that makes it smaller.
 * Byte layout: docs/formats/storefile.md ("Data block", "Version 3"). The constants below
 * are on-disk values and are never renumbered.
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

#define BLOCK_TYPE_DATA 1    /* version 1 (and 3): whole cells and an offset per cell */
#define BLOCK_TYPE_DATA_V2 2 /* version 2 (and 3): prefix-compressed keys, restart points */
#define BLOCK_HEADER_LEN 16
#define BLOCK_COMPRESSION_NONE 0   /* = COMPRESSION_NONE */
#define BLOCK_COMPRESSION_ZSTD 1   /* = COMPRESSION_ZSTD; the last code of versions 1, 2 */
#define BLOCK_COMPRESSION_SNAPPY 2 /* = COMPRESSION_SNAPPY; version 3 */
#define BLOCK_COMPRESSION_LZ4 3    /* = COMPRESSION_LZ4; version 3 */
#define BLOCK_COMPRESSION_GZ 4     /* = COMPRESSION_GZ; version 3 */
#define BLOCK_COMPRESSION_LAST BLOCK_COMPRESSION_GZ
#define BLOCK_RESTART_INTERVAL 16 /* type 2: entries per restart point */
#define BLOCK_V2_FOOTER_LEN 12    /* type 2: r, max_key, n */

/* ---- building ---- */

typedef struct block_builder {
    uint8_t type;  /* BLOCK_TYPE_DATA or BLOCK_TYPE_DATA_V2; 0 (zeroed) means V2 */
    buf_t cells;   /* encoded cells (type 1) or entries (type 2) */
    buf_t offsets; /* u32 big-endian offset of each cell (type 1) or restart (type 2) */
    uint32_t count;
    buf_t last_key; /* type 2: the previous entry's key */
    uint32_t max_key;
} block_builder;

/* A zeroed block_builder is an empty type-2 one too. */
void block_builder_init(block_builder *b);
/* An empty builder of blocks of the given type (BLOCK_TYPE_DATA or BLOCK_TYPE_DATA_V2). */
void block_builder_init_type(block_builder *b, uint8_t type);
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
    const uint8_t *offsets; /* type 1: count big-endian u32; type 2: the restart array */
    uint32_t count;         /* cells */
    uint8_t type;
    uint32_t restarts; /* type 2 */
    uint32_t max_key;  /* type 2: longest key */
    size_t entries_end; /* where the cells (entries) end */
} block_t;

/* Checks the layout of [data, data+len) as a block of `type` (type 1: offsets increasing,
 * every cell decodes and ends where the next begins; type 2: every entry decodes, the
 * restarts, max_key and the canonical form, docs/formats/storefile.md) and fills blk.
 * ST_CORRUPTION (no message) if not, ST_NOMEM if a key buffer cannot be had. */
int block_init(block_t *blk, uint8_t type, const uint8_t *data, size_t len);
/* block_init without the checks, for bytes that already passed them. */
void block_view(block_t *blk, uint8_t type, const uint8_t *data, size_t len);
/* The first cell, a view into the block (either type). */
void block_first_cell(const block_t *blk, cell_t *out);
/* Type 1 only: cell i (< count) as a view into the block. */
void block_cell(const block_t *blk, uint32_t i, cell_t *out);
/* Type 1 only: index of the first cell >= key, or count if none. */
uint32_t block_seek(const block_t *blk, const cell_t *key);
/* Type 1 only: index of the last cell <= key, or -1 if none. */
int64_t block_seek_for_prev(const block_t *blk, const cell_t *key);

/* ---- a position in a block (either type) ---- */

/* The cell is a view valid until the cursor moves or is attached elsewhere: its row,
 * family and qualifier live in the cursor's key buffer (type 2) or the block (type 1),
 * its value in the block. */
typedef struct block_cursor {
    const block_t *blk;
    uint32_t pos;  /* index of the current cell */
    size_t off;    /* type 2: offset of the current entry */
    size_t next;   /* type 2: offset of the entry after it */
    uint8_t *key;  /* type 2: the current key */
    size_t key_cap;
    uint32_t key_len;
    cell_t cell;
} block_cursor;

/* A zeroed cursor is an unattached one too. */
void block_cursor_init(block_cursor *c);
void block_cursor_free(block_cursor *c);
/* Attaches c to blk (unpositioned), growing its key buffer to blk's longest key.
 * ST_NOMEM (message set) if that fails. */
int block_cursor_attach(block_cursor *c, const block_t *blk);
/* Positions on the first cell. */
void block_cursor_first(block_cursor *c);
/* Steps to the next cell; false (the position unchanged) at the block's last one. */
bool block_cursor_next(block_cursor *c);
/* Whether the current cell is the block's last. */
bool block_cursor_at_last(const block_cursor *c);
/* Positions on the first cell >= key; false if every cell is < key. */
bool block_cursor_seek(block_cursor *c, const cell_t *key);
/* Positions on the last cell <= key; false if every cell is > key. */
bool block_cursor_seek_for_prev(block_cursor *c, const cell_t *key);

/* ---- the on-disk frame ---- */

/* Appends header + payload for the decoded block raw (of block type `type`) to out.
 * compression is BLOCK_COMPRESSION_* (any code 0..LAST: the caller keeps to its file's
 * version); with ZSTD, cctx and level are used. A block the codec does not shrink is
 * stored uncompressed (code 0). ST_INVALID_ARGUMENT for an unknown code or a block of
 * 4 GiB or more, ST_NOMEM. */
int block_frame_encode(const uint8_t *raw, size_t raw_len, uint8_t type, int compression,
                       ZSTD_CCtx *cctx, int level, buf_t *out);
/* Verifies a whole stored block (header + payload, n bytes; block type 1 or 2, which the
 * caller checks against its file: stored[0]) whose compression code may be at most
 * max_compression (BLOCK_COMPRESSION_ZSTD in version-1 and -2 files, _LAST in version 3)
 * and returns its decoded bytes in *raw (malloc'd, caller frees) and their length. A
 * compressed payload must decode to exactly the header's raw length (block_codec_decode:
 * a raw length the payload does not back costs no memory). On ST_CORRUPTION *why says
 * what failed; ST_NOMEM if out of memory. */
int block_frame_decode(const uint8_t *stored, size_t n, int max_compression, uint8_t **raw,
                       size_t *raw_len, const char **why);
/* The same checks without a copy: an uncompressed payload is returned in place
 * (*raw points into stored, *decoded = NULL); a compressed payload is decoded into
 * *decoded (malloc'd, caller frees) and *raw = *decoded. */
int block_frame_open(const uint8_t *stored, size_t n, int max_compression, const uint8_t **raw,
                     size_t *raw_len, uint8_t **decoded, const char **why);

#endif
