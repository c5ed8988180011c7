/*
 * json_value.h - a strict JSON parser (RFC 8259) into a tree of values, for documents
 * clients send (the REST gateway's CellSet, Scanner, TableSchema ...; docs/rest.md).
 * json.h is the writer.
 *
 *   json_value *doc = NULL;
 *   if (json_value_parse(text, len, &doc) != ST_OK) ... st_errmsg() says where and why
 *   const json_value *rows = json_value_member(doc, "Row");
 *   for (size_t i = 0; rows && i < rows->n; i++) ... rows->items[i]
 *   json_value_free(doc);
 *
 * Strict: one value with only whitespace around it, no comments, no trailing commas, no
 * leading zeros, no control characters or invalid UTF-8 inside strings, \u escapes with
 * surrogates paired (an escaped \u0000 is kept: strings carry their length), nesting at
 * most JSON_VALUE_MAX_DEPTH. An error is ST_INVALID_ARGUMENT with a message naming the
 * line, column and byte offset ("JSON: expected ':' after an object key at line 1,
 * column 9 (offset 8)"); out of memory is ST_NOMEM. Objects keep their members in
 * document order; duplicate keys are kept (json_value_member returns the first).
 * Thread-safety: a tree is immutable after parse and may be read from any thread.
 */
#ifndef STRATA_COMMON_JSON_VALUE_H
#define STRATA_COMMON_JSON_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_VALUE_MAX_DEPTH 64

typedef enum json_type {
    JSON_NULL = 0,
    JSON_BOOL = 1,
    JSON_NUMBER = 2,
    JSON_STRING = 3,
    JSON_ARRAY = 4,
    JSON_OBJECT = 5,
} json_type;

typedef struct json_value json_value;

struct json_value {
    json_type type;
    bool b;         /* JSON_BOOL */
    char *str;      /* JSON_STRING: the decoded UTF-8 (NUL-terminated, may hold NULs);
                     * JSON_NUMBER: the number as written */
    size_t len;     /* bytes of str */
    json_value **items; /* JSON_ARRAY: the elements; JSON_OBJECT: the member values */
    char **keys;        /* JSON_OBJECT: the member names (decoded, NUL-terminated) */
    size_t *key_lens;   /* JSON_OBJECT: their lengths */
    size_t n;           /* elements or members */
};

/* Parses text[0..len) into *out (the caller's; json_value_free). ST_OK, or
 * ST_INVALID_ARGUMENT / ST_NOMEM with *out NULL and the message set. */
int json_value_parse(const char *text, size_t len, json_value **out);
/* NULL is a no-op. */
void json_value_free(json_value *v);

/* The first member of object v called key, or NULL (also when v is not an object). */
const json_value *json_value_member(const json_value *v, const char *key);
/* The type's name: "null", "boolean", "number", "string", "array", "object". */
const char *json_type_name(json_type t);
/* A scalar as text, as Jackson coerces scalars: a string's bytes, a number as written,
 * "true"/"false"; NULL for null, arrays and objects. *len gets the length. */
const char *json_value_text(const json_value *v, size_t *len);
/* A number (or a string holding one, as Jackson coerces) that is an integer in range:
 * true and *out; false otherwise. */
bool json_value_int64(const json_value *v, int64_t *out);
/* A boolean, or a string "true"/"false" (any case): true and *out; false otherwise. */
bool json_value_bool(const json_value *v, bool *out);

#endif
