/*
 * text.h - small helpers of text formats (JSON, XML, the shell's converters): UTF-8
 * sequences and the line and column of an offset, for error messages.
 *
 * Thread-safety: all functions are pure.
 */
#ifndef STRATA_COMMON_TEXT_H
#define STRATA_COMMON_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* The length (1-4) of the valid UTF-8 sequence at s[0..avail), or 0 when it is not one:
 * a bad lead or continuation byte, a sequence cut short, an overlong form, a surrogate or
 * a code point past U+10FFFF. The code point goes to *cp when cp is not NULL.
 * avail must be at least 1. */
size_t text_utf8_decode(const uint8_t *s, size_t avail, uint32_t *cp);

/* Writes the UTF-8 form of code point cp (at most U+10FFFF) to out; returns its length. */
size_t text_utf8_encode(uint32_t cp, uint8_t out[4]);

/* The line and column (both from 1; a column counts bytes) of offset at in t[0..len). */
void text_line_col(const char *t, size_t len, size_t at, size_t *line, size_t *col);

#endif
