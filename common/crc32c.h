/*
 * crc32c.h - CRC-32C (Castagnoli), the checksum of every WAL record and store-file block.
 *
 * Uses the SSE4.2 crc32 instruction when the CPU has it (checked once at run time),
 * else a table-driven software path; both give identical results and are checked
 * against the published test vectors (RFC 3720 B.4) in tests/unit/test_crc32c.c.
 * Thread-safety: pure functions.
 */
#ifndef STRATA_COMMON_CRC32C_H
#define STRATA_COMMON_CRC32C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Extends a running crc (start with 0) over n bytes; crc32c_extend(0, "123456789", 9) == 0xE3069283. */
uint32_t crc32c_extend(uint32_t crc, const void *data, size_t n);
static inline uint32_t crc32c_value(const void *data, size_t n)
{
    return crc32c_extend(0, data, n);
}
/* The software path, for tests that compare both. */
uint32_t crc32c_extend_sw(uint32_t crc, const void *data, size_t n);
/* True when the hardware path is in use. */
bool crc32c_hw_available(void);

#endif
