/*
 * text.c - UTF-8 sequences and line/column positions (text.h).
 */
#include "common/text.h"

size_t text_utf8_decode(const uint8_t *s, size_t avail, uint32_t *cp_out)
{
    uint8_t c = s[0];
    size_t n;
    uint32_t cp;
    if (c < 0x80) {
        n = 1;
        cp = c;
    } else if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (avail < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    /* overlong forms, surrogates, past U+10FFFF */
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    if (cp_out)
        *cp_out = cp;
    return n;
}

size_t text_utf8_encode(uint32_t cp, uint8_t u[4])
{
    if (cp < 0x80) {
        u[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        u[0] = (uint8_t)(0xc0 | cp >> 6);
        u[1] = (uint8_t)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        u[0] = (uint8_t)(0xe0 | cp >> 12);
        u[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (uint8_t)(0x80 | (cp & 0x3f));
        return 3;
    }
    u[0] = (uint8_t)(0xf0 | cp >> 18);
    u[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
    u[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
    u[3] = (uint8_t)(0x80 | (cp & 0x3f));
    return 4;
}

void text_line_col(const char *t, size_t len, size_t at, size_t *line, size_t *col)
{
    size_t l = 1, c = 1;
    for (size_t i = 0; i < at && i < len; i++) {
        if (t[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}
