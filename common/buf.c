/*
 * buf.c - growable byte buffer (doubling growth).
 * Thread-safety: none.
 */
#include "common/buf.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/status.h"

int buf_reserve(buf_t *b, size_t extra)
{
    if (b->cap - b->len >= extra)
        return ST_OK;
    if (extra > SIZE_MAX - b->len)
        return ST_NOMEM;
    size_t need = b->len + extra;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    uint8_t *p = realloc(b->data, cap);
    if (!p)
        return ST_NOMEM;
    b->data = p;
    b->cap = cap;
    return ST_OK;
}

int buf_append(buf_t *b, const void *data, size_t n)
{
    /* data may point into b itself (buf_set(b, b->data + k, ...)): keep it valid. */
    const uint8_t *src = data;
    size_t off = (size_t)((uintptr_t)src - (uintptr_t)b->data);
    bool inside = n && b->data && off < b->cap;
    int rc = buf_reserve(b, n);
    if (rc != ST_OK)
        return rc;
    if (inside)
        src = b->data + off;
    if (n)
        memmove(b->data + b->len, src, n);
    b->len += n;
    return ST_OK;
}

int buf_append_u8(buf_t *b, uint8_t v)
{
    return buf_append(b, &v, 1);
}

int buf_append_be16(buf_t *b, uint16_t v)
{
    uint8_t t[2];
    be16_put(t, v);
    return buf_append(b, t, 2);
}

int buf_append_be32(buf_t *b, uint32_t v)
{
    uint8_t t[4];
    be32_put(t, v);
    return buf_append(b, t, 4);
}

int buf_append_be64(buf_t *b, uint64_t v)
{
    uint8_t t[8];
    be64_put(t, v);
    return buf_append(b, t, 8);
}

int buf_append_varint(buf_t *b, uint64_t v)
{
    uint8_t t[10];
    return buf_append(b, t, varint_put(t, v));
}

int buf_set(buf_t *b, const void *data, size_t n)
{
    b->len = 0;
    return buf_append(b, data, n);
}

void buf_reset(buf_t *b)
{
    b->len = 0;
}

void buf_free(buf_t *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
