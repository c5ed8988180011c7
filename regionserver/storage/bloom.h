/*
 * bloom.h - the store-file bloom filter: key hashing, building from remembered
 * hashes, and probing a stored filter.
 *
 * Keys are row keys ('R' | row) and, for ROWCOL, column keys ('C' | row_len | row |
 * family_len | family | qualifier), hashed with MurmurHash64A; k probes by double
 * hashing over m bits (10 bits per key, k = 7, about 0.8 % false positives).
 * Byte layout and hash: docs/formats/storefile.md ("Bloom section"); the constants
 * below are on-disk values and are never renumbered.
 *
 * Thread-safety: pure functions; a bloom_filter is read-only after bloom_parse().
 */
#ifndef STRATA_REGIONSERVER_BLOOM_H
#define STRATA_REGIONSERVER_BLOOM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

#define BLOOM_HASH_MURMUR64A 1
#define BLOOM_HASH_SEED 0x5354524154415346ULL /* "STRATASF" */
#define BLOOM_BITS_PER_KEY 10
#define BLOOM_PROBES 7
#define BLOOM_SECTION_HEADER_LEN 20

/* MurmurHash64A of [data, data+n) with BLOOM_HASH_SEED, chunks read little-endian. */
uint64_t bloom_hash64(const void *data, size_t n);
/* Hash of the row key of row. */
uint64_t bloom_row_hash(const uint8_t *row, size_t row_len);
/* Hash of the column key of (row, family, qualifier). */
uint64_t bloom_column_hash(const uint8_t *row, size_t row_len, const uint8_t *fam, size_t fam_len,
                           const uint8_t *qual, size_t qual_len);

/* Appends a bloom section without its CRC (header and bitmap) built from n key
 * hashes to out. type is the bloom_type code (1 ROW, 2 ROWCOL). ST_NOMEM on failure. */
int bloom_build(const uint64_t *hashes, size_t n, uint8_t type, buf_t *out);

typedef struct bloom_filter {
    uint8_t type;
    uint8_t k;
    uint64_t keys;
    uint64_t m;            /* bits */
    const uint8_t *bitmap; /* borrowed from the section bytes */
} bloom_filter;

/* Parses a bloom section without its CRC ([p, p+n)); ST_CORRUPTION (no message) if
 * the header is invalid or the bitmap length disagrees with n. */
int bloom_parse(const uint8_t *p, size_t n, bloom_filter *out);
/* False means the key with this hash was definitely not added. */
bool bloom_may_contain(const bloom_filter *b, uint64_t hash);

#endif
