/*
 * base64.c - RFC 4648 base64 encoding and strict decoding (base64.h).
 * Thread-safety: pure functions over caller buffers.
 */
#include "common/base64.h"

#include "common/status.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t base64_encoded_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

int base64_encode(buf_t *out, const void *data, size_t n)
{
    if (buf_reserve(out, base64_encoded_len(n)) != ST_OK)
        return st_error(ST_NOMEM, "base64: out of memory encoding %zu bytes", n);
    const uint8_t *p = data;
    char *o = (char *)out->data + out->len;
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        *o++ = alphabet[v >> 18];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = alphabet[(v >> 6) & 63];
        *o++ = alphabet[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
        *o++ = alphabet[v >> 18];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = i + 1 < n ? alphabet[(v >> 6) & 63] : '=';
        *o++ = '=';
    }
    out->len = (size_t)((uint8_t *)o - out->data);
    return ST_OK;
}

static int sextet(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

int base64_decode(buf_t *out, const char *text, size_t len)
{
    size_t data = len; /* characters before the padding */
    while (data > 0 && text[data - 1] == '=' && len - data < 2)
        data--;
    if (data != len && len % 4 != 0)
        return st_error(ST_INVALID_ARGUMENT, "base64: padded text of %zu characters is not a "
                                             "multiple of 4 (the padding at offset %zu)",
                        len, data);
    if (data % 4 == 1)
        return st_error(ST_INVALID_ARGUMENT, "base64: %zu characters cannot end a group (the "
                                             "text is truncated after offset %zu)",
                        data, data - 1);
    if (buf_reserve(out, data / 4 * 3 + 2) != ST_OK)
        return st_error(ST_NOMEM, "base64: out of memory decoding %zu characters", len);
    uint8_t *o = out->data + out->len;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < data; i++) {
        int v = sextet(text[i]);
        if (v < 0) {
            unsigned char c = (unsigned char)text[i];
            if (c >= 0x20 && c < 0x7f)
                return st_error(ST_INVALID_ARGUMENT,
                                "base64: character '%c' at offset %zu is not base64", c, i);
            return st_error(ST_INVALID_ARGUMENT,
                            "base64: byte 0x%02x at offset %zu is not base64", c, i);
        }
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            *o++ = (uint8_t)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    if (acc != 0)
        return st_error(ST_INVALID_ARGUMENT,
                        "base64: the last character at offset %zu has unused bits set", data - 1);
    out->len = (size_t)(o - out->data);
    return ST_OK;
}
