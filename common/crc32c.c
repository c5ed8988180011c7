/*
 * crc32c.c - CRC-32C (Castagnoli, reflected polynomial 0x82F63B78).
 *
 * The software path is slicing-by-8 over eight 256-entry tables built once
 * (pthread_once). crc32c_extend() uses the SSE4.2 path from crc32c_sse42.c when the
 * CPU supports it; the check runs once and its answer is cached in an atomic.
 * Both paths invert the running value on entry and exit (LevelDB's crc32c::Extend
 * convention), so a crc starts at 0 and extending in pieces equals one pass.
 * Thread-safety: pure functions; the one-time initialisations are race-free.
 */
#include "common/crc32c.h"

#include <pthread.h>
#include <stdatomic.h>

#include "common/crc32c_internal.h"

#define CRC32C_POLY 0x82F63B78u

static uint32_t crc_table[8][256];
static pthread_once_t crc_table_once = PTHREAD_ONCE_INIT;
static atomic_int crc_hw_state = -1; /* -1 unknown, 0 software, 1 hardware */

static void crc_table_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ CRC32C_POLY : c >> 1;
        crc_table[0][i] = c;
    }
    for (int t = 1; t < 8; t++)
        for (int i = 0; i < 256; i++)
            crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
}

static inline uint32_t le32_load(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t crc_slice8(uint32_t l, const uint8_t *p)
{
    uint32_t lo = le32_load(p) ^ l;
    uint32_t hi = le32_load(p + 4);
    return crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^
           crc_table[5][(lo >> 16) & 0xff] ^ crc_table[4][lo >> 24] ^ crc_table[3][hi & 0xff] ^
           crc_table[2][(hi >> 8) & 0xff] ^ crc_table[1][(hi >> 16) & 0xff] ^
           crc_table[0][hi >> 24];
}

uint32_t crc32c_extend_sw(uint32_t crc, const void *data, size_t n)
{
    pthread_once(&crc_table_once, crc_table_init);
    const uint8_t *p = data;
    uint32_t l = ~crc;
    while (n >= 8) {
        l = crc_slice8(l, p);
        p += 8;
        n -= 8;
    }
    while (n--)
        l = crc_table[0][(l ^ *p++) & 0xff] ^ (l >> 8);
    return ~l;
}

bool crc32c_hw_available(void)
{
    int s = atomic_load_explicit(&crc_hw_state, memory_order_relaxed);
    if (s < 0) {
        s = 0;
#if defined(__x86_64__) || defined(__i386__)
        __builtin_cpu_init();
        s = crc32c_hw_compiled() && __builtin_cpu_supports("sse4.2");
#endif
        atomic_store_explicit(&crc_hw_state, s, memory_order_relaxed);
    }
    return s == 1;
}

uint32_t crc32c_extend(uint32_t crc, const void *data, size_t n)
{
    if (crc32c_hw_available())
        return crc32c_extend_hw(crc, data, n);
    return crc32c_extend_sw(crc, data, n);
}
