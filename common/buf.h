/*
 * buf.h - a growable byte buffer.
 *
 * A zeroed buf_t is an empty buffer. buf_* functions that grow return ST_OK or
 * ST_NOMEM (the buffer is unchanged on failure). The caller owns the buffer and
 * frees it with buf_free(). Thread-safety: none; one owner at a time.
 */
#ifndef STRATA_COMMON_BUF_H
#define STRATA_COMMON_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct buf {
    uint8_t *data;
    size_t len;
    size_t cap;
} buf_t;

int buf_reserve(buf_t *b, size_t extra);
int buf_append(buf_t *b, const void *data, size_t n);
int buf_append_u8(buf_t *b, uint8_t v);
int buf_append_be16(buf_t *b, uint16_t v);
int buf_append_be32(buf_t *b, uint32_t v);
int buf_append_be64(buf_t *b, uint64_t v);
int buf_append_varint(buf_t *b, uint64_t v);
/* Replaces the content with a copy of data. */
int buf_set(buf_t *b, const void *data, size_t n);
void buf_reset(buf_t *b); /* len = 0, keeps memory */
void buf_free(buf_t *b);  /* frees memory, leaves an empty buffer */

#endif
