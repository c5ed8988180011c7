/*
 * crc32c_sse42.c - CRC-32C with the SSE4.2 crc32 instruction.
 *
 * This file alone is compiled with -msse4.2; crc32c.c calls crc32c_extend_hw() only
 * when __builtin_cpu_supports("sse4.2") says the CPU has it. The running value is
 * inverted on entry and exit, so the result matches crc32c_extend_sw() exactly.
 * Thread-safety: pure function.
 */
#include "common/crc32c_internal.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>

bool crc32c_hw_compiled(void)
{
    return true;
}

uint32_t crc32c_extend_hw(uint32_t crc, const void *data, size_t n)
{
    const uint8_t *p = data;
    uint32_t l = ~crc;
    while (n && ((uintptr_t)p & 7)) {
        l = _mm_crc32_u8(l, *p++);
        n--;
    }
#if defined(__x86_64__)
    uint64_t l64 = l;
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        l64 = _mm_crc32_u64(l64, v);
        p += 8;
        n -= 8;
    }
    l = (uint32_t)l64;
#endif
    while (n >= 4) {
        uint32_t v;
        memcpy(&v, p, 4);
        l = _mm_crc32_u32(l, v);
        p += 4;
        n -= 4;
    }
    while (n) {
        l = _mm_crc32_u8(l, *p++);
        n--;
    }
    return ~l;
}

#else

bool crc32c_hw_compiled(void)
{
    return false;
}

uint32_t crc32c_extend_hw(uint32_t crc, const void *data, size_t n)
{
    (void)crc;
    (void)data;
    (void)n;
    return 0;
}

#endif
