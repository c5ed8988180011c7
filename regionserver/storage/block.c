/*
 * block.c - data block builder, reader (binary search over the offsets array) and
 * the on-disk frame (header, CRC32C, the payload compressed by one of block_codec.c's
 * codecs or not). Layout: docs/formats/storefile.md.
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
#include "regionserver/storage/block_codec.h"

/* ---- building ---- */

void block_builder_init(block_builder *b)
{
    memset(b, 0, sizeof(*b));
}

void block_builder_init_type(block_builder *b, uint8_t type)
{
    block_builder_init(b);
    b->type = type;
}

static bool is_v1(const block_builder *b)
{
    return b->type == BLOCK_TYPE_DATA;
}

/* The key of c (docs/formats/storefile.md, "Data block, version 2") into dst. */
static void key_encode(const cell_t *c, uint8_t *dst)
{
    be16_put(dst, (uint16_t)c->row_len);
    memcpy(dst + 2, c->row, c->row_len);
    uint8_t *p = dst + 2 + c->row_len;
    *p++ = (uint8_t)c->family_len;
    memcpy(p, c->family, c->family_len);
    p += c->family_len;
    if (c->qualifier_len)
        memcpy(p, c->qualifier, c->qualifier_len);
    p += c->qualifier_len;
    be64_put(p, (uint64_t)c->ts);
    p[8] = c->type;
}

static size_t key_len_of(const cell_t *c)
{
    return 2 + (size_t)c->row_len + 1 + c->family_len + c->qualifier_len + 9;
}

static int add_v1(block_builder *b, const cell_t *c)
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

static int add_v2(block_builder *b, const cell_t *c)
{
    size_t klen = key_len_of(c);
    size_t off = b->cells.len;
    size_t worst = 15 + klen + 10 + c->value_len;
    if (klen > UINT32_MAX || off > UINT32_MAX || worst > UINT32_MAX - off)
        return st_error(ST_INVALID_ARGUMENT, "data block would exceed 4 GiB");
    bool restart = b->count % BLOCK_RESTART_INTERVAL == 0;
    /* The key is built after the previous one in last_key, compared, then moved down. */
    size_t prev = restart ? 0 : b->last_key.len;
    if (buf_reserve(&b->cells, worst) != ST_OK || buf_reserve(&b->offsets, 4) != ST_OK ||
        buf_reserve(&b->last_key, prev + klen) != ST_OK)
        return ST_NOMEM;
    uint8_t *key = b->last_key.data + prev;
    key_encode(c, key);
    size_t shared = 0, lim = prev < klen ? prev : klen;
    while (shared < lim && b->last_key.data[shared] == key[shared])
        shared++;
    uint8_t *p = b->cells.data + off;
    p += varint_put(p, shared);
    p += varint_put(p, klen - shared);
    p += varint_put(p, c->value_len);
    memcpy(p, key + shared, klen - shared);
    p += klen - shared;
    p += varint_put(p, c->seq);
    if (c->value_len)
        memcpy(p, c->value, c->value_len);
    p += c->value_len;
    b->cells.len = (size_t)(p - b->cells.data);
    if (restart)
        buf_append_be32(&b->offsets, (uint32_t)off); /* cannot fail: reserved */
    memmove(b->last_key.data, key, klen);
    b->last_key.len = klen;
    if (klen > b->max_key)
        b->max_key = (uint32_t)klen;
    b->count++;
    return ST_OK;
}

int block_builder_add(block_builder *b, const cell_t *c)
{
    return is_v1(b) ? add_v1(b, c) : add_v2(b, c);
}

size_t block_builder_size(const block_builder *b)
{
    return b->cells.len + b->offsets.len + (is_v1(b) ? 4 : BLOCK_V2_FOOTER_LEN);
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
    if (!is_v1(b)) {
        buf_append_be32(out, (uint32_t)(b->offsets.len / 4));
        buf_append_be32(out, b->max_key);
    }
    buf_append_be32(out, b->count);
    buf_reset(&b->cells);
    buf_reset(&b->offsets);
    buf_reset(&b->last_key);
    b->max_key = 0;
    b->count = 0;
    return ST_OK;
}

void block_builder_free(block_builder *b)
{
    buf_free(&b->cells);
    buf_free(&b->offsets);
    buf_free(&b->last_key);
    b->count = 0;
    b->max_key = 0;
}

/* ---- reading ---- */

static int init_v1(block_t *blk, const uint8_t *data, size_t len)
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
    block_view(blk, BLOCK_TYPE_DATA, data, len);
    return ST_OK;
}

/* Whether the klen-byte key k parses (as cell_decode's checks of a cell's key). */
static bool key_check(const uint8_t *k, uint64_t klen)
{
    if (klen < 12 || klen > UINT32_MAX)
        return false;
    uint32_t rlen = be16_get(k);
    if (rlen > CELL_MAX_ROW_LEN || 3u + rlen > klen)
        return false;
    return 2u + rlen + 1 + k[2 + rlen] + 9 <= klen;
}

/* varint_get that also refuses an over-long form (a last byte of 0 after the first):
 * a varint has one encoding, so a checked block has one byte string. */
static size_t get_canonical(const uint8_t *p, size_t len, uint64_t *out)
{
    size_t n = varint_get(p, len, out);
    return n > 1 && p[n - 1] == 0 ? 0 : n;
}

/* Reads a varint below 2^32 of at most 5 bytes from [*p, end); false if there is none. */
static bool get_u32(const uint8_t **p, const uint8_t *end, uint32_t *out)
{
    uint64_t v;
    size_t n = get_canonical(*p, (size_t)(end - *p) < 5 ? (size_t)(end - *p) : 5, &v);
    if (!n || v > UINT32_MAX)
        return false;
    *p += n;
    *out = (uint32_t)v;
    return true;
}

/* Walks every entry of a type-2 block with the checks of the format page. */
static int check_v2(const block_t *blk)
{
    const uint8_t *base = blk->data, *end = base + blk->entries_end;
    uint8_t stack[1024];
    uint8_t *key = blk->max_key <= sizeof(stack) ? stack : malloc(blk->max_key);
    if (!key)
        return ST_NOMEM;
    int rc = ST_CORRUPTION;
    const uint8_t *p = base;
    uint32_t key_len = 0, longest = 0, i = 0;
    for (; i < blk->count && p < end; i++) {
        uint32_t shared, unshared, vlen;
        bool restart = i % BLOCK_RESTART_INTERVAL == 0;
        if (restart && be32_get(blk->offsets + 4 * (size_t)(i / BLOCK_RESTART_INTERVAL)) !=
                           (uint64_t)(p - base))
            goto out;
        if (!get_u32(&p, end, &shared) || !get_u32(&p, end, &unshared) || !get_u32(&p, end, &vlen))
            goto out;
        uint64_t klen = (uint64_t)shared + unshared;
        if ((restart && shared) || shared > key_len || klen > blk->max_key ||
            unshared > (size_t)(end - p))
            goto out;
        /* canonical: shared is the whole common prefix */
        if (!restart && unshared && shared < key_len && key[shared] == p[0])
            goto out;
        memcpy(key + shared, p, unshared);
        p += unshared;
        key_len = (uint32_t)klen;
        if (!key_check(key, klen))
            goto out;
        if (key_len > longest)
            longest = key_len;
        uint64_t seq;
        size_t n = get_canonical(p, (size_t)(end - p), &seq);
        if (!n || vlen > (size_t)(end - p) - n)
            goto out;
        p += n + vlen;
    }
    if (i == blk->count && p == end && longest == blk->max_key)
        rc = ST_OK;
out:
    if (key != stack)
        free(key);
    return rc;
}

static int init_v2(block_t *blk, const uint8_t *data, size_t len)
{
    if (len < BLOCK_V2_FOOTER_LEN)
        return ST_CORRUPTION;
    uint32_t count = be32_get(data + len - 4);
    uint32_t restarts = be32_get(data + len - 12);
    uint64_t want = ((uint64_t)count + BLOCK_RESTART_INTERVAL - 1) / BLOCK_RESTART_INTERVAL;
    if (count == 0 || restarts != want || want > (len - BLOCK_V2_FOOTER_LEN) / 4)
        return ST_CORRUPTION;
    block_t b;
    block_view(&b, BLOCK_TYPE_DATA_V2, data, len);
    if (b.max_key > b.entries_end)
        return ST_CORRUPTION; /* every key's bytes are in the block */
    int rc = check_v2(&b);
    if (rc == ST_OK)
        *blk = b;
    return rc;
}

int block_init(block_t *blk, uint8_t type, const uint8_t *data, size_t len)
{
    if (type == BLOCK_TYPE_DATA)
        return init_v1(blk, data, len);
    if (type == BLOCK_TYPE_DATA_V2)
        return init_v2(blk, data, len);
    return ST_CORRUPTION;
}

void block_view(block_t *blk, uint8_t type, const uint8_t *data, size_t len)
{
    uint32_t count = be32_get(data + len - 4);
    blk->data = data;
    blk->len = len;
    blk->count = count;
    blk->type = type;
    if (type == BLOCK_TYPE_DATA) {
        blk->offsets = data + len - 4 - (size_t)count * 4;
        blk->restarts = 0;
        blk->max_key = 0;
    } else {
        blk->restarts = be32_get(data + len - 12);
        blk->max_key = be32_get(data + len - 8);
        blk->offsets = data + len - BLOCK_V2_FOOTER_LEN - (size_t)blk->restarts * 4;
    }
    blk->entries_end = (size_t)(blk->offsets - data);
}

void block_cell(const block_t *blk, uint32_t i, cell_t *out)
{
    size_t off = be32_get(blk->offsets + 4 * (size_t)i);
    size_t end = (size_t)(blk->offsets - blk->data);
    size_t used;
    /* block_init() decoded every cell once; this cannot fail. */
    (void)cell_decode(blk->data + off, end - off, out, &used);
}

/* Reads a varint of a checked block (no bounds: block_init walked it). */
static inline const uint8_t *vget(const uint8_t *p, uint64_t *v)
{
    uint64_t r = 0;
    for (unsigned s = 0;; s += 7) {
        uint8_t b = *p++;
        r |= (uint64_t)(b & 0x7f) << s;
        if (!(b & 0x80))
            break;
    }
    *v = r;
    return p;
}

static inline const uint8_t *vget32(const uint8_t *p, uint32_t *v)
{
    if (*p < 0x80) { /* the usual case: one byte */
        *v = *p;
        return p + 1;
    }
    uint64_t r;
    p = vget(p, &r);
    *v = (uint32_t)r;
    return p;
}

/* The restart entry at off (shared 0: its key is whole in the block) as a view; returns
 * the offset of the entry after it. */
static size_t restart_view(const block_t *blk, size_t off, cell_t *out)
{
    const uint8_t *p = blk->data + off;
    uint32_t shared, unshared, vlen;
    p = vget32(p, &shared);
    p = vget32(p, &unshared);
    p = vget32(p, &vlen);
    cell_key_view(p, unshared, out);
    p += unshared;
    p = vget(p, &out->seq);
    out->value = p;
    out->value_len = vlen;
    return (size_t)(p + vlen - blk->data);
}

void block_first_cell(const block_t *blk, cell_t *out)
{
    if (blk->type == BLOCK_TYPE_DATA)
        block_cell(blk, 0, out);
    else
        (void)restart_view(blk, 0, out);
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

/* ---- cursor ---- */

#define BLOCK_KEY_SLACK 16 /* spare key-buffer bytes for entry_load's chunked copy */

void block_cursor_init(block_cursor *c)
{
    memset(c, 0, sizeof(*c));
}

void block_cursor_free(block_cursor *c)
{
    free(c->key);
    block_cursor_init(c);
}

int block_cursor_attach(block_cursor *c, const block_t *blk)
{
    c->blk = blk;
    c->pos = 0;
    size_t need = (size_t)blk->max_key + BLOCK_KEY_SLACK;
    if (blk->type == BLOCK_TYPE_DATA_V2 && need > c->key_cap) {
        uint8_t *k = realloc(c->key, need);
        if (!k) {
            c->blk = NULL;
            return st_error(ST_NOMEM, "out of memory for a key of %u bytes", blk->max_key);
        }
        c->key = k;
        c->key_cap = need;
    }
    return ST_OK;
}

/* Decodes the type-2 entry at off into the cursor (the key buffer holds the previous
 * entry's key, or anything at a restart). */
static inline void entry_load(block_cursor *c, size_t off)
{
    const block_t *blk = c->blk;
    const uint8_t *p = blk->data + off;
    uint32_t shared, unshared, vlen;
    p = vget32(p, &shared);
    p = vget32(p, &unshared);
    p = vget32(p, &vlen);
    /* Copies in 16-byte chunks: a key's bytes end at least 16 bytes before the block
     * does (the restart array and footer follow the entries) and the key buffer has
     * BLOCK_KEY_SLACK spare bytes, so the over-read and over-write stay in bounds. */
    uint8_t *dst = c->key + shared;
    for (uint32_t i = 0; i < unshared; i += 16)
        memcpy(dst + i, p + i, 16);
    p += unshared;
    uint32_t klen = shared + unshared;
    c->key_len = klen;
    /* The previous entry's row and family (this cursor's cell) still hold when the
     * shared prefix covers them: only the qualifier's length, ts and type change. */
    uint32_t fam_end = 3 + c->cell.row_len + c->cell.family_len;
    if (shared >= fam_end) {
        c->cell.qualifier_len = klen - fam_end - 9;
        const uint8_t *t = c->key + klen - 9;
        c->cell.ts = (int64_t)be64_get(t);
        c->cell.type = t[8];
    } else {
        cell_key_view(c->key, klen, &c->cell);
    }
    p = vget(p, &c->cell.seq);
    c->cell.value = p;
    c->cell.value_len = vlen;
    c->off = off;
    c->next = (size_t)(p + vlen - blk->data);
}

static inline size_t restart_off(const block_t *blk, uint32_t r)
{
    return be32_get(blk->offsets + 4 * (size_t)r);
}

static void v2_at_restart(block_cursor *c, uint32_t r)
{
    c->pos = r * BLOCK_RESTART_INTERVAL;
    entry_load(c, restart_off(c->blk, r));
}

void block_cursor_first(block_cursor *c)
{
    if (c->blk->type == BLOCK_TYPE_DATA) {
        c->pos = 0;
        block_cell(c->blk, 0, &c->cell);
    } else {
        v2_at_restart(c, 0);
    }
}

bool block_cursor_at_last(const block_cursor *c)
{
    return c->pos + 1 >= c->blk->count;
}

bool block_cursor_next(block_cursor *c)
{
    if (c->pos + 1 >= c->blk->count)
        return false;
    c->pos++;
    if (c->blk->type == BLOCK_TYPE_DATA)
        block_cell(c->blk, c->pos, &c->cell);
    else
        entry_load(c, c->next);
    return true;
}

/* Type 2: the number of restarts whose key is < key (strict) or <= key (!strict). */
static uint32_t restarts_before(const block_t *blk, const cell_t *key, bool strict)
{
    uint32_t lo = 0, hi = blk->restarts;
    int limit = strict ? 0 : 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        cell_t rc;
        (void)restart_view(blk, restart_off(blk, mid), &rc);
        if (cell_compare(&rc, key) < limit)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool block_cursor_seek(block_cursor *c, const cell_t *key)
{
    const block_t *blk = c->blk;
    if (blk->type == BLOCK_TYPE_DATA) {
        uint32_t pos = block_seek(blk, key);
        if (pos >= blk->count)
            return false;
        c->pos = pos;
        block_cell(blk, pos, &c->cell);
        return true;
    }
    uint32_t r = restarts_before(blk, key, true);
    v2_at_restart(c, r ? r - 1 : 0);
    while (cell_compare(&c->cell, key) < 0)
        if (!block_cursor_next(c))
            return false;
    return true;
}

bool block_cursor_seek_for_prev(block_cursor *c, const cell_t *key)
{
    const block_t *blk = c->blk;
    if (blk->type == BLOCK_TYPE_DATA) {
        int64_t pos = block_seek_for_prev(blk, key);
        if (pos < 0)
            return false;
        c->pos = (uint32_t)pos;
        block_cell(blk, c->pos, &c->cell);
        return true;
    }
    uint32_t r = restarts_before(blk, key, false);
    if (r == 0)
        return false; /* the first cell is > key */
    /* The answer lies in restart run r-1: count its cells <= key, then go back to the
     * last of them (stepping on overwrote the key buffer). */
    v2_at_restart(c, r - 1);
    uint32_t steps = 0;
    while (block_cursor_next(c)) {
        if (cell_compare(&c->cell, key) > 0)
            break;
        steps++;
    }
    if (cell_compare(&c->cell, key) <= 0)
        return true; /* the block's last cell */
    v2_at_restart(c, r - 1);
    while (steps--)
        (void)block_cursor_next(c);
    return true;
}

/* ---- the on-disk frame ---- */

static void put_header(uint8_t *h, uint8_t type, int compression, size_t stored, size_t raw)
{
    h[0] = type;
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

int block_frame_encode(const uint8_t *raw, size_t raw_len, uint8_t type, int compression,
                       ZSTD_CCtx *cctx, int level, buf_t *out)
{
    if (raw_len > UINT32_MAX)
        return st_error(ST_INVALID_ARGUMENT, "data block of %zu bytes is too large", raw_len);
    if (compression < BLOCK_COMPRESSION_NONE || compression > BLOCK_COMPRESSION_LAST)
        return st_error(ST_INVALID_ARGUMENT, "unknown block compression code %d", compression);
    size_t bound = block_codec_bound(compression, raw_len);
    if (buf_reserve(out, BLOCK_HEADER_LEN + bound) != ST_OK)
        return ST_NOMEM;
    uint8_t *h = out->data + out->len;
    size_t stored = block_codec_compress(compression, raw, raw_len, cctx, level,
                                         h + BLOCK_HEADER_LEN, bound);
    int code = stored ? compression : BLOCK_COMPRESSION_NONE;
    if (!stored) {
        stored = raw_len;
        memcpy(h + BLOCK_HEADER_LEN, raw, raw_len);
    }
    put_header(h, type, code, stored, raw_len);
    seal_header(h);
    out->len += BLOCK_HEADER_LEN + stored;
    return ST_OK;
}

static int check_header(const uint8_t *h, size_t n, int max_compression, const char **why)
{
    *why = NULL;
    if (n < BLOCK_HEADER_LEN)
        *why = "shorter than its header";
    else if (h[0] != BLOCK_TYPE_DATA && h[0] != BLOCK_TYPE_DATA_V2)
        *why = "bad block type";
    else if ((uint64_t)be32_get(h + 4) + BLOCK_HEADER_LEN != n)
        *why = "stored length disagrees with the index";
    else if (crc32c_extend(crc32c_extend(0, h, 12), h + BLOCK_HEADER_LEN, n - BLOCK_HEADER_LEN) !=
             be32_get(h + 12))
        *why = "checksum mismatch";
    else if (h[1] > BLOCK_COMPRESSION_LAST)
        *why = "unknown compression code";
    else if (h[1] > max_compression)
        *why = "compression code not allowed in the file's version";
    else if (h[1] == BLOCK_COMPRESSION_NONE && be32_get(h + 4) != be32_get(h + 8))
        *why = "raw length disagrees with stored length";
    return *why ? ST_CORRUPTION : ST_OK;
}

int block_frame_open(const uint8_t *stored, size_t n, int max_compression, const uint8_t **raw,
                     size_t *raw_len, uint8_t **decoded, const char **why)
{
    *raw = NULL;
    *raw_len = 0;
    *decoded = NULL;
    int rc = check_header(stored, n, max_compression, why);
    if (rc != ST_OK)
        return rc;
    size_t rlen = be32_get(stored + 8);
    const uint8_t *payload = stored + BLOCK_HEADER_LEN;
    if (stored[1] != BLOCK_COMPRESSION_NONE) {
        rc = block_codec_decode(stored[1], payload, n - BLOCK_HEADER_LEN, rlen, decoded, why);
        if (rc != ST_OK)
            return rc;
        payload = *decoded;
    }
    *raw = payload;
    *raw_len = rlen;
    return ST_OK;
}

int block_frame_decode(const uint8_t *stored, size_t n, int max_compression, uint8_t **raw,
                       size_t *raw_len, const char **why)
{
    *raw = NULL;
    *raw_len = 0;
    const uint8_t *view = NULL;
    uint8_t *decoded = NULL;
    size_t rlen = 0;
    int rc = block_frame_open(stored, n, max_compression, &view, &rlen, &decoded, why);
    if (rc != ST_OK)
        return rc;
    if (!decoded) { /* uncompressed: copy the payload */
        if (!(decoded = malloc(rlen ? rlen : 1)))
            return ST_NOMEM;
        memcpy(decoded, view, rlen);
    }
    *raw = decoded;
    *raw_len = rlen;
    return ST_OK;
}
