/*
 * crc32c_internal.h - the hardware CRC-32C path, private to common/crc32c*.c.
 *
 * crc32c_extend_hw() lives in crc32c_sse42.c, the only file compiled with -msse4.2;
 * crc32c.c calls it only after checking at run time that the CPU has SSE4.2.
 * Thread-safety: pure function.
 */
#ifndef STRATA_COMMON_CRC32C_INTERNAL_H
#define STRATA_COMMON_CRC32C_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True when this build contains the SSE4.2 path (x86 targets only). */
bool crc32c_hw_compiled(void);
/* Same contract as crc32c_extend(); must only run on a CPU with SSE4.2. */
uint32_t crc32c_extend_hw(uint32_t crc, const void *data, size_t n);

#endif
