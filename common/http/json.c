/*
 * json.c - the JSON writer of json.h: comma and nesting bookkeeping, string escaping
 * with UTF-8 validation, numbers.
 *
 * Thread-safety: none; a writer belongs to one thread.
 */
#include "common/http/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "common/status.h"

void json_init(json_writer *w, buf_t *out)
{
    memset(w, 0, sizeof(*w));
    w->out = out;
}

static void fail(json_writer *w, int rc)
{
    if (w->rc == ST_OK)
        w->rc = rc;
}

static void put(json_writer *w, const char *s, size_t n)
{
    if (w->rc == ST_OK && buf_append(w->out, s, n) != ST_OK)
        fail(w, ST_NOMEM);
}

/* Before any value: the comma, and checks that a value may come here. */
static bool before_value(json_writer *w)
{
    if (w->rc != ST_OK)
        return false;
    if (w->depth == 0) {
        if (w->done) {
            fail(w, ST_INVALID_ARGUMENT);
            return false;
        }
        return true;
    }
    int d = w->depth - 1;
    if (w->is_object[d]) {
        if (!w->key_pending) {
            fail(w, ST_INVALID_ARGUMENT);
            return false;
        }
        w->key_pending = false;
        return true;
    }
    if (w->has_items[d])
        put(w, ",", 1);
    w->has_items[d] = true;
    return w->rc == ST_OK;
}

/* After a complete value at the top level. */
static void after_value(json_writer *w)
{
    if (w->depth == 0)
        w->done = true;
}

static void open_level(json_writer *w, bool object)
{
    if (!before_value(w))
        return;
    if (w->depth == JSON_MAX_DEPTH) {
        fail(w, ST_INVALID_ARGUMENT);
        return;
    }
    w->is_object[w->depth] = object;
    w->has_items[w->depth] = false;
    w->depth++;
    put(w, object ? "{" : "[", 1);
}

static void close_level(json_writer *w, bool object)
{
    if (w->rc != ST_OK)
        return;
    if (w->depth == 0 || w->is_object[w->depth - 1] != object || w->key_pending) {
        fail(w, ST_INVALID_ARGUMENT);
        return;
    }
    w->depth--;
    put(w, object ? "}" : "]", 1);
    after_value(w);
}

void json_object_begin(json_writer *w) { open_level(w, true); }
void json_object_end(json_writer *w) { close_level(w, true); }
void json_array_begin(json_writer *w) { open_level(w, false); }
void json_array_end(json_writer *w) { close_level(w, false); }

void json_key(json_writer *w, const char *key)
{
    if (w->rc != ST_OK)
        return;
    int d = w->depth - 1;
    if (d < 0 || !w->is_object[d] || w->key_pending || !key) {
        fail(w, ST_INVALID_ARGUMENT);
        return;
    }
    if (w->has_items[d])
        put(w, ",", 1);
    w->has_items[d] = true;
    if (w->rc == ST_OK && json_append_string(w->out, key, strlen(key)) != ST_OK)
        fail(w, ST_NOMEM);
    put(w, ":", 1);
    w->key_pending = true;
}

static const char *short_escape(uint8_t c)
{
    switch (c) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    case '\b': return "\\b";
    case '\f': return "\\f";
    default: return NULL;
    }
}

int json_append_string(buf_t *b, const void *s, size_t n)
{
    const uint8_t *p = s;
    int rc = buf_append(b, "\"", 1);
    size_t i = 0;
    while (rc == ST_OK && i < n) {
        uint8_t c = p[i];
        const char *esc = short_escape(c);
        size_t len = esc ? 1 : text_utf8_decode(p + i, n - i, NULL);
        if (esc) {
            rc = buf_append(b, esc, strlen(esc));
        } else if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x7F) {
            char u[8];
            snprintf(u, sizeof(u), "\\u%04x", c);
            rc = buf_append(b, u, 6);
        } else if (len == 0) {
            rc = buf_append(b, "\\ufffd", 6);
            len = 1;
        } else {
            rc = buf_append(b, p + i, len);
        }
        i += len;
    }
    if (rc == ST_OK)
        rc = buf_append(b, "\"", 1);
    return rc;
}

void json_string_n(json_writer *w, const void *s, size_t n)
{
    if (!before_value(w))
        return;
    if (json_append_string(w->out, s, n) != ST_OK)
        fail(w, ST_NOMEM);
    after_value(w);
}

void json_string(json_writer *w, const char *s)
{
    if (!s)
        json_null(w);
    else
        json_string_n(w, s, strlen(s));
}

static void raw_value(json_writer *w, const char *text)
{
    if (!before_value(w))
        return;
    put(w, text, strlen(text));
    after_value(w);
}

void json_u64(json_writer *w, uint64_t v)
{
    char t[32];
    snprintf(t, sizeof(t), "%" PRIu64, v);
    raw_value(w, t);
}

void json_i64(json_writer *w, int64_t v)
{
    char t[32];
    snprintf(t, sizeof(t), "%" PRId64, v);
    raw_value(w, t);
}

void json_double(json_writer *w, double v)
{
    char t[40];
    if (!isfinite(v))
        snprintf(t, sizeof(t), "null");
    else if (v == floor(v) && fabs(v) < 1e15)
        snprintf(t, sizeof(t), "%.0f", v);
    else if (snprintf(t, sizeof(t), "%.15g", v) > 0 && strtod(t, NULL) != v)
        snprintf(t, sizeof(t), "%.17g", v);
    raw_value(w, t);
}

void json_bool(json_writer *w, bool v) { raw_value(w, v ? "true" : "false"); }
void json_null(json_writer *w) { raw_value(w, "null"); }

int json_finish(json_writer *w)
{
    if (w->rc != ST_OK)
        return st_error(w->rc, "json: %s", w->rc == ST_NOMEM ? "out of memory"
                                                             : "values and ends do not nest");
    if (w->depth != 0 || !w->done)
        return st_error(ST_INVALID_ARGUMENT, "json: the document is not complete");
    return ST_OK;
}
