/*
 * json_value.c - the strict recursive-descent JSON parser of json_value.h.
 *
 * One pass over the text with a cursor; every value is one malloc'ed json_value, strings
 * and member arrays grow by doubling. On an error the partial tree is freed and the
 * message names the position (line and column counted from 1, the offset from 0).
 * Thread-safety: reentrant (the parser's state is on the caller's stack).
 */
#include "common/http/json_value.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/text.h"
#include "common/status.h"

typedef struct jparser {
    const char *t;
    size_t len;
    size_t pos;
    int depth;
} jparser;

static int jerr(const jparser *p, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int jerr(const jparser *p, size_t at, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    size_t line, col;
    text_line_col(p->t, p->len, at, &line, &col);
    return st_error(ST_INVALID_ARGUMENT, "JSON: %s at line %zu, column %zu (offset %zu)", what,
                    line, col, at);
}

static int nomem(void)
{
    return st_error(ST_NOMEM, "JSON: out of memory");
}

static void skip_ws(jparser *p)
{
    while (p->pos < p->len) {
        char c = p->t[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            break;
        p->pos++;
    }
}

static const char *describe(const jparser *p, char *tmp, size_t cap)
{
    if (p->pos >= p->len)
        return "the end of the text";
    unsigned char c = (unsigned char)p->t[p->pos];
    if (c >= 0x20 && c < 0x7f)
        snprintf(tmp, cap, "'%c'", c);
    else
        snprintf(tmp, cap, "byte 0x%02x", c);
    return tmp;
}

static int parse_value(jparser *p, json_value **out);

static json_value *new_value(json_type t)
{
    json_value *v = calloc(1, sizeof(*v));
    if (v)
        v->type = t;
    return v;
}

/* ---- strings ---- */

static int hex4(jparser *p, size_t at, unsigned *out)
{
    if (p->len - at < 4)
        return jerr(p, at, "a \\u escape needs four hex digits");
    unsigned v = 0;
    for (size_t i = 0; i < 4; i++) {
        char c = p->t[at + i];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return jerr(p, at + i, "a \\u escape needs four hex digits");
        v = v << 4 | d;
    }
    *out = v;
    return ST_OK;
}

static int put_utf8(buf_t *b, unsigned cp)
{
    uint8_t u[4];
    size_t n = text_utf8_encode(cp, u);
    return buf_append(b, u, n);
}

static int parse_escape(jparser *p, buf_t *b)
{
    size_t at = p->pos; /* the backslash */
    if (at + 1 >= p->len)
        return jerr(p, at, "unterminated string");
    char e = p->t[at + 1];
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *k = e ? strchr(from, e) : NULL;
    if (k) {
        p->pos += 2;
        return buf_append_u8(b, (uint8_t)to[k - from]) == ST_OK ? ST_OK : nomem();
    }
    if (e != 'u')
        return jerr(p, at, "unknown escape '\\%c'", e >= 0x20 && e < 0x7f ? e : '?');
    unsigned cp;
    int rc = hex4(p, at + 2, &cp);
    if (rc != ST_OK)
        return rc;
    p->pos = at + 6;
    if (cp >= 0xdc00 && cp <= 0xdfff)
        return jerr(p, at, "a low surrogate \\u%04x without a high one", cp);
    if (cp >= 0xd800 && cp <= 0xdbff) {
        unsigned lo;
        if (p->pos + 1 >= p->len || p->t[p->pos] != '\\' || p->t[p->pos + 1] != 'u' ||
            hex4(p, p->pos + 2, &lo) != ST_OK || lo < 0xdc00 || lo > 0xdfff)
            return jerr(p, at, "a high surrogate \\u%04x without a low one after it", cp);
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        p->pos += 6;
    }
    return put_utf8(b, cp) == ST_OK ? ST_OK : nomem();
}

/* Parses a string at p->pos ('"') into a malloc'ed NUL-terminated copy. */
static int parse_string(jparser *p, char **out, size_t *out_len)
{
    buf_t b = {0};
    size_t start = p->pos;
    p->pos++;
    for (;;) {
        if (p->pos >= p->len) {
            buf_free(&b);
            return jerr(p, start, "unterminated string");
        }
        unsigned char c = (unsigned char)p->t[p->pos];
        int rc = ST_OK;
        if (c == '"') {
            p->pos++;
            break;
        } else if (c == '\\') {
            rc = parse_escape(p, &b);
        } else if (c < 0x20) {
            rc = jerr(p, p->pos, "control byte 0x%02x inside a string (escape it)", c);
        } else {
            /* copy the run of plain bytes, checking UTF-8 */
            size_t run = p->pos;
            while (run < p->len) {
                unsigned char d = (unsigned char)p->t[run];
                if (d == '"' || d == '\\' || d < 0x20)
                    break;
                size_t n = text_utf8_decode((const uint8_t *)p->t + run, p->len - run, NULL);
                if (n == 0) {
                    rc = jerr(p, run, "invalid UTF-8 inside a string");
                    break;
                }
                run += n;
            }
            if (rc == ST_OK && buf_append(&b, p->t + p->pos, run - p->pos) != ST_OK)
                rc = nomem();
            p->pos = run;
        }
        if (rc != ST_OK) {
            buf_free(&b);
            return rc;
        }
    }
    if (buf_append_u8(&b, 0) != ST_OK) {
        buf_free(&b);
        return nomem();
    }
    *out = (char *)b.data;
    *out_len = b.len - 1;
    return ST_OK;
}

/* ---- numbers and literals ---- */

static int parse_number(jparser *p, json_value **out)
{
    size_t s = p->pos, i = s;
    const char *t = p->t;
    if (i < p->len && t[i] == '-')
        i++;
    if (i >= p->len || t[i] < '0' || t[i] > '9')
        return jerr(p, i, "a number needs a digit here");
    if (t[i] == '0' && i + 1 < p->len && t[i + 1] >= '0' && t[i + 1] <= '9')
        return jerr(p, i, "a number may not have a leading zero");
    while (i < p->len && t[i] >= '0' && t[i] <= '9')
        i++;
    if (i < p->len && t[i] == '.') {
        i++;
        if (i >= p->len || t[i] < '0' || t[i] > '9')
            return jerr(p, i, "a fraction needs a digit after '.'");
        while (i < p->len && t[i] >= '0' && t[i] <= '9')
            i++;
    }
    if (i < p->len && (t[i] == 'e' || t[i] == 'E')) {
        i++;
        if (i < p->len && (t[i] == '+' || t[i] == '-'))
            i++;
        if (i >= p->len || t[i] < '0' || t[i] > '9')
            return jerr(p, i, "an exponent needs a digit");
        while (i < p->len && t[i] >= '0' && t[i] <= '9')
            i++;
    }
    json_value *v = new_value(JSON_NUMBER);
    if (!v || !(v->str = strndup(t + s, i - s))) {
        free(v);
        return nomem();
    }
    v->len = i - s;
    p->pos = i;
    *out = v;
    return ST_OK;
}

static int parse_literal(jparser *p, json_value **out)
{
    static const struct {
        const char *word;
        json_type type;
        bool b;
    } lits[] = {{"true", JSON_BOOL, true}, {"false", JSON_BOOL, false}, {"null", JSON_NULL, false}};
    for (size_t k = 0; k < sizeof(lits) / sizeof(lits[0]); k++) {
        size_t n = strlen(lits[k].word);
        if (p->len - p->pos >= n && memcmp(p->t + p->pos, lits[k].word, n) == 0) {
            json_value *v = new_value(lits[k].type);
            if (!v)
                return nomem();
            v->b = lits[k].b;
            p->pos += n;
            *out = v;
            return ST_OK;
        }
    }
    char tmp[16];
    return jerr(p, p->pos, "expected a value, found %s", describe(p, tmp, sizeof(tmp)));
}

/* ---- arrays and objects ---- */

static int grow(json_value *v, size_t *cap, bool object)
{
    if (v->n < *cap)
        return ST_OK;
    size_t nc = *cap ? *cap * 2 : 4;
    json_value **items = realloc(v->items, nc * sizeof(*items));
    if (!items)
        return nomem();
    v->items = items;
    if (object) {
        char **keys = realloc(v->keys, nc * sizeof(*keys));
        if (!keys)
            return nomem();
        v->keys = keys;
        size_t *lens = realloc(v->key_lens, nc * sizeof(*lens));
        if (!lens)
            return nomem();
        v->key_lens = lens;
    }
    *cap = nc;
    return ST_OK;
}

static int parse_array(jparser *p, json_value *v)
{
    size_t cap = 0, open = p->pos;
    p->pos++;
    skip_ws(p);
    if (p->pos < p->len && p->t[p->pos] == ']') {
        p->pos++;
        return ST_OK;
    }
    for (;;) {
        int rc = grow(v, &cap, false);
        if (rc != ST_OK)
            return rc;
        skip_ws(p);
        rc = parse_value(p, &v->items[v->n]);
        if (rc != ST_OK)
            return rc;
        v->n++;
        skip_ws(p);
        if (p->pos >= p->len)
            return jerr(p, open, "unterminated array");
        char c = p->t[p->pos];
        if (c == ']') {
            p->pos++;
            return ST_OK;
        }
        if (c != ',') {
            char tmp[16];
            return jerr(p, p->pos, "expected ',' or ']' in an array, found %s",
                        describe(p, tmp, sizeof(tmp)));
        }
        p->pos++;
        skip_ws(p);
        if (p->pos < p->len && p->t[p->pos] == ']')
            return jerr(p, p->pos, "a trailing ',' before ']'");
    }
}

static int parse_object(jparser *p, json_value *v)
{
    size_t cap = 0, open = p->pos;
    p->pos++;
    skip_ws(p);
    if (p->pos < p->len && p->t[p->pos] == '}') {
        p->pos++;
        return ST_OK;
    }
    for (;;) {
        char tmp[16];
        skip_ws(p);
        if (p->pos >= p->len)
            return jerr(p, open, "unterminated object");
        if (p->t[p->pos] != '"')
            return jerr(p, p->pos, "expected a member name in quotes, found %s",
                        describe(p, tmp, sizeof(tmp)));
        int rc = grow(v, &cap, true);
        if (rc != ST_OK)
            return rc;
        char *key = NULL;
        size_t key_len = 0;
        rc = parse_string(p, &key, &key_len);
        if (rc != ST_OK)
            return rc;
        skip_ws(p);
        if (p->pos >= p->len || p->t[p->pos] != ':') {
            free(key);
            return jerr(p, p->pos, "expected ':' after an object key, found %s",
                        describe(p, tmp, sizeof(tmp)));
        }
        p->pos++;
        skip_ws(p);
        json_value *val = NULL;
        rc = parse_value(p, &val);
        if (rc != ST_OK) {
            free(key);
            return rc;
        }
        v->keys[v->n] = key;
        v->key_lens[v->n] = key_len;
        v->items[v->n] = val;
        v->n++;
        skip_ws(p);
        if (p->pos >= p->len)
            return jerr(p, open, "unterminated object");
        char c = p->t[p->pos];
        if (c == '}') {
            p->pos++;
            return ST_OK;
        }
        if (c != ',')
            return jerr(p, p->pos, "expected ',' or '}' in an object, found %s",
                        describe(p, tmp, sizeof(tmp)));
        p->pos++;
        skip_ws(p);
        if (p->pos < p->len && p->t[p->pos] == '}')
            return jerr(p, p->pos, "a trailing ',' before '}'");
    }
}

static int parse_value(jparser *p, json_value **out)
{
    *out = NULL;
    if (p->pos >= p->len)
        return jerr(p, p->pos, "expected a value, found the end of the text");
    char c = p->t[p->pos];
    if (c == '"') {
        json_value *v = new_value(JSON_STRING);
        if (!v)
            return nomem();
        int rc = parse_string(p, &v->str, &v->len);
        if (rc != ST_OK) {
            free(v);
            return rc;
        }
        *out = v;
        return ST_OK;
    }
    if (c == '-' || (c >= '0' && c <= '9'))
        return parse_number(p, out);
    if (c != '[' && c != '{')
        return parse_literal(p, out);
    if (p->depth >= JSON_VALUE_MAX_DEPTH)
        return jerr(p, p->pos, "nesting deeper than %d", JSON_VALUE_MAX_DEPTH);
    json_value *v = new_value(c == '[' ? JSON_ARRAY : JSON_OBJECT);
    if (!v)
        return nomem();
    p->depth++;
    int rc = c == '[' ? parse_array(p, v) : parse_object(p, v);
    p->depth--;
    if (rc != ST_OK) {
        json_value_free(v);
        return rc;
    }
    *out = v;
    return ST_OK;
}

int json_value_parse(const char *text, size_t len, json_value **out)
{
    *out = NULL;
    jparser p = {.t = text, .len = len};
    /* a UTF-8 byte order mark is tolerated, as Jackson does */
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        p.pos = 3;
    skip_ws(&p);
    json_value *v = NULL;
    int rc = parse_value(&p, &v);
    if (rc != ST_OK)
        return rc;
    skip_ws(&p);
    if (p.pos != len) {
        char tmp[16];
        rc = jerr(&p, p.pos, "unexpected %s after the document", describe(&p, tmp, sizeof(tmp)));
        json_value_free(v);
        return rc;
    }
    *out = v;
    return ST_OK;
}

void json_value_free(json_value *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++) {
        json_value_free(v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->key_lens);
    free(v->str);
    free(v);
}

const json_value *json_value_member(const json_value *v, const char *key)
{
    if (!v || v->type != JSON_OBJECT)
        return NULL;
    size_t kl = strlen(key);
    for (size_t i = 0; i < v->n; i++)
        if (v->key_lens[i] == kl && memcmp(v->keys[i], key, kl) == 0)
            return v->items[i];
    return NULL;
}

const char *json_type_name(json_type t)
{
    switch (t) {
    case JSON_NULL:
        return "null";
    case JSON_BOOL:
        return "boolean";
    case JSON_NUMBER:
        return "number";
    case JSON_STRING:
        return "string";
    case JSON_ARRAY:
        return "array";
    case JSON_OBJECT:
        return "object";
    }
    return "unknown";
}

const char *json_value_text(const json_value *v, size_t *len)
{
    if (!v)
        return NULL;
    switch (v->type) {
    case JSON_STRING:
    case JSON_NUMBER:
        *len = v->len;
        return v->str;
    case JSON_BOOL:
        *len = v->b ? 4 : 5;
        return v->b ? "true" : "false";
    default:
        return NULL;
    }
}

bool json_value_int64(const json_value *v, int64_t *out)
{
    if (!v || (v->type != JSON_NUMBER && v->type != JSON_STRING) || v->len == 0 ||
        v->len > 20 || strlen(v->str) != v->len)
        return false;
    /* only an optional '-' and digits: strtoll alone would take spaces and a '+' */
    for (size_t i = v->str[0] == '-'; i < v->len; i++)
        if (v->str[i] < '0' || v->str[i] > '9')
            return false;
    char *end = NULL;
    errno = 0;
    long long x = strtoll(v->str, &end, 10);
    if (errno != 0 || *end != '\0' || end == v->str)
        return false;
    *out = x;
    return true;
}

bool json_value_bool(const json_value *v, bool *out)
{
    if (!v)
        return false;
    if (v->type == JSON_BOOL) {
        *out = v->b;
        return true;
    }
    if (v->type == JSON_STRING && strlen(v->str) == v->len &&
        (strcasecmp(v->str, "true") == 0 || strcasecmp(v->str, "false") == 0)) {
        *out = strcasecmp(v->str, "true") == 0;
        return true;
    }
    return false;
}
