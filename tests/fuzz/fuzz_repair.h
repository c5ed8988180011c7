/*
 * fuzz_repair.h - makes the checksums of a fuzz input match its bytes, so that a mutated
 * input gets past the CRC32C checks of the WAL and store-file formats and reaches the
 * parsing behind them. The targets run every input twice: as it is (the checksum paths)
 * and repaired (the structure paths). Only checksum fields are rewritten, wherever the
 * input's own lengths and offsets locate them; what they do not locate is left alone.
 * Formats: docs/formats/wal.md, docs/formats/storefile.md.
 * Thread-safety: pure functions on the caller's buffer.
 */
#ifndef STRATA_TESTS_FUZZ_REPAIR_H
#define STRATA_TESTS_FUZZ_REPAIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A WAL file: the file header's CRC and, record by record while the lengths fit, each
 * record's payload and header CRCs. Returns whether any byte changed. */
bool fuzz_repair_wal(uint8_t *p, size_t n);

/* A store file: the CRC of every data block the index locates, of every section the
 * trailer locates, and of the trailer. Returns whether any byte changed. */
bool fuzz_repair_storefile(uint8_t *p, size_t n);

/* One data block frame (header + payload): stored_len and the CRC. Returns whether any
 * byte changed. */
bool fuzz_repair_block_frame(uint8_t *p, size_t n);

#endif
