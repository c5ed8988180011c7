/*
 * base64.h - RFC 4648 base64 (the standard alphabet, '=' padding), as HBase's REST API
 * carries row keys, columns and values in JSON and XML (docs/rest.md).
 *
 * Decoding is strict: only the alphabet and trailing '=' padding, the length a multiple
 * of four (padding may be left out: a final group of 2 or 3 characters is accepted, as
 * Java's decoder does), no whitespace, no data after padding, and unused low bits of the
 * last character zero. Anything else is ST_INVALID_ARGUMENT with a message naming the
 * offset of the first bad character.
 * Thread-safety: pure functions.
 */
#ifndef STRATA_COMMON_BASE64_H
#define STRATA_COMMON_BASE64_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/* The encoded length of n bytes (with padding), without a terminator. */
size_t base64_encoded_len(size_t n);
/* Appends the encoding of data[0..n) to out: ST_OK or ST_NOMEM. */
int base64_encode(buf_t *out, const void *data, size_t n);
/* Appends the bytes text[0..len) encodes to out: ST_OK, ST_INVALID_ARGUMENT (out
 * unchanged; the message names the offset), or ST_NOMEM. */
int base64_decode(buf_t *out, const char *text, size_t len);

#endif
