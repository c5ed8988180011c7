/*
 * json.h - a small streaming JSON writer into a buf_t (RFC 8259), for status documents.
 *
 *   json_writer w;
 *   json_init(&w, &buf);
 *   json_object_begin(&w);
 *   json_key(&w, "servers"); json_array_begin(&w); json_string(&w, "a"); json_array_end(&w);
 *   json_key(&w, "load"); json_double(&w, 1.5);
 *   json_object_end(&w);
 *   if (json_finish(&w) != ST_OK) ...
 *
 * Commas and nesting are tracked by the writer. Strings are escaped: '"', '\\' and the
 * control characters (as \n, \t ... or \u00XX), and '<', '>', '&' as \u003c ... (so a
 * document is safe inside HTML); valid UTF-8 passes through, each byte of an invalid
 * sequence becomes U+FFFD. NaN and infinities are written as null.
 * Errors (out of memory, a key outside an object, a value where a key is due, nesting
 * past JSON_MAX_DEPTH, unbalanced ends) are sticky: later calls do nothing and
 * json_finish returns the first one (ST_NOMEM or ST_INVALID_ARGUMENT).
 * Thread-safety: none; one writer per thread.
 */
#ifndef STRATA_COMMON_JSON_H
#define STRATA_COMMON_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

#define JSON_MAX_DEPTH 32

typedef struct json_writer {
    buf_t *out;
    int depth;
    bool is_object[JSON_MAX_DEPTH]; /* per open level: object (true) or array */
    bool has_items[JSON_MAX_DEPTH]; /* per open level: something was written */
    bool key_pending;               /* a key was written; its value is due */
    bool done;                      /* a complete top-level value was written */
    int rc;
} json_writer;

void json_init(json_writer *w, buf_t *out);
void json_object_begin(json_writer *w);
void json_object_end(json_writer *w);
void json_array_begin(json_writer *w);
void json_array_end(json_writer *w);
/* A member name inside an object. */
void json_key(json_writer *w, const char *key);
void json_string(json_writer *w, const char *s); /* NULL writes null */
void json_string_n(json_writer *w, const void *s, size_t n);
void json_u64(json_writer *w, uint64_t v);
void json_i64(json_writer *w, int64_t v);
void json_double(json_writer *w, double v);
void json_bool(json_writer *w, bool v);
void json_null(json_writer *w);
/* ST_OK if one complete value was written and nothing failed, else the first error. */
int json_finish(json_writer *w);

/* Appends s (n bytes) as a quoted, escaped JSON string to b: ST_OK or ST_NOMEM. */
int json_append_string(buf_t *b, const void *s, size_t n);

#endif
