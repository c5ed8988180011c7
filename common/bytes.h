/*
 * bytes.h - big-endian fixed-width encoders and LEB128 varints.
 *
 * All on-disk and wire integers in Strata are big-endian unless a format page
 * says otherwise; these helpers are the only place that knows how.
 * Thread-safety: pure functions.
 */
#ifndef STRATA_COMMON_BYTES_H
#define STRATA_COMMON_BYTES_H

#include <stddef.h>
#include <stdint.h>

static inline void be16_put(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static inline void be32_put(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}
static inline void be64_put(uint8_t *p, uint64_t v)
{
    be32_put(p, (uint32_t)(v >> 32));
    be32_put(p + 4, (uint32_t)v);
}
static inline uint16_t be16_get(const uint8_t *p)
{
    return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}
static inline uint32_t be32_get(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t be64_get(const uint8_t *p)
{
    return (uint64_t)be32_get(p) << 32 | be32_get(p + 4);
}

/* Writes v as an unsigned LEB128 varint (1..10 bytes); returns bytes written. */
static inline size_t varint_put(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* Reads a varint from [p, p+len); returns bytes consumed, or 0 if truncated or over-long
 * (more than 10 bytes, or a 10th byte carrying bits beyond 64). */
static inline size_t varint_get(const uint8_t *p, size_t len, uint64_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < len && i < 10; i++) {
        if (i == 9 && p[i] > 1)
            return 0; /* bits beyond 64 */
        v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            *out = v;
            return i + 1;
        }
    }
    return 0;
}

static inline size_t varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

#endif
