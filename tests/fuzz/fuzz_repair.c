/*
 * fuzz_repair.c - the checksum repairs of fuzz_repair.h.
 * Thread-safety: pure functions.
 */
#include "tests/fuzz/fuzz_repair.h"

#include "common/bytes.h"
#include "common/cell.h"
#include "common/crc32c.h"
#include "regionserver/storage/block.h"
#include "regionserver/storage/storefile_internal.h"
#include "regionserver/storage/wal_internal.h"

/* Stores v at p; returns whether that changed the bytes. */
static bool put32(uint8_t *p, uint32_t v)
{
    if (be32_get(p) == v)
        return false;
    be32_put(p, v);
    return true;
}

bool fuzz_repair_wal(uint8_t *p, size_t n)
{
    bool changed = false;
    if (n < WAL_FILE_HEADER_LEN)
        return false;
    changed |= put32(p + 32, crc32c_value(p, 32));
    size_t off = WAL_FILE_HEADER_LEN;
    while (n - off >= WAL_RECORD_HEADER_LEN) {
        uint8_t *h = p + off;
        uint32_t len = be32_get(h);
        if (len > n - off - WAL_RECORD_HEADER_LEN)
            break;
        changed |= put32(h + 4, crc32c_value(h + WAL_RECORD_HEADER_LEN, len));
        changed |= put32(h + 8, crc32c_value(h, 8));
        off += WAL_RECORD_HEADER_LEN + len;
    }
    return changed;
}

bool fuzz_repair_block_frame(uint8_t *p, size_t n)
{
    if (n < BLOCK_HEADER_LEN || n - BLOCK_HEADER_LEN > UINT32_MAX)
        return false;
    bool changed = put32(p + 4, (uint32_t)(n - BLOCK_HEADER_LEN));
    uint32_t crc =
        crc32c_extend(crc32c_extend(0, p, 12), p + BLOCK_HEADER_LEN, n - BLOCK_HEADER_LEN);
    return put32(p + 12, crc) || changed;
}

/* Repairs the data blocks the index section [idx, idx+len) (CRC excluded) locates in
 * the data region [0, data_end). */
static bool repair_blocks(uint8_t *p, uint64_t data_end, const uint8_t *idx, size_t len)
{
    bool changed = false;
    size_t pos = 4;
    if (len < 4)
        return false;
    for (uint32_t i = 0, count = be32_get(idx); i < count && len - pos >= 12; i++) {
        uint64_t off = be64_get(idx + pos);
        uint32_t size = be32_get(idx + pos + 8);
        cell_t key;
        size_t used = 0;
        pos += 12;
        if (off <= data_end && size >= BLOCK_HEADER_LEN && size <= data_end - off)
            changed |= fuzz_repair_block_frame(p + off, size);
        if (cell_decode(idx + pos, len - pos, &key, &used) != 0)
            break;
        pos += used;
    }
    return changed;
}

bool fuzz_repair_storefile(uint8_t *p, size_t n)
{
    if (n < SF_TRAILER_LEN)
        return false;
    bool changed = false;
    uint8_t *t = p + n - SF_TRAILER_LEN;
    uint64_t limit = n - SF_TRAILER_LEN, off[3], size[3];
    for (int i = 0; i < 3; i++) {
        off[i] = be64_get(t + 16 * i);
        size[i] = be64_get(t + 16 * i + 8);
    }
    /* Data blocks first: the index section's own CRC does not cover them. */
    if (off[1] <= limit && size[1] >= SF_SECTION_CRC_LEN && size[1] <= limit - off[1])
        changed |= repair_blocks(p, off[0] <= limit ? off[0] : limit, p + off[1],
                                 (size_t)size[1] - SF_SECTION_CRC_LEN);
    for (int i = 0; i < 3; i++) {
        if (off[i] > limit || size[i] < SF_SECTION_CRC_LEN || size[i] > limit - off[i])
            continue;
        uint8_t *s = p + off[i];
        size_t body = (size_t)size[i] - SF_SECTION_CRC_LEN;
        changed |= put32(s + body, crc32c_value(s, body));
    }
    uint32_t crc = crc32c_extend(0, t, SF_TRAILER_CRC_OFF);
    crc = crc32c_extend(crc, t + SF_TRAILER_MAGIC_OFF, SF_TRAILER_LEN - SF_TRAILER_MAGIC_OFF);
    changed |= put32(t + SF_TRAILER_CRC_OFF, crc);
    return changed;
}
