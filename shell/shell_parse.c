/*
 * shell_parse.c - the shell's Ruby-ish argument parser, statement splitting and
 * HBase's binary-string escaping (contract in shell_parse.h).
 *
 * A recursive-descent parser over the statement text: stmt -> name [ '(' ] list [ ')' ];
 * list -> element { ',' element }; element -> value [ '=>' value ]; value -> string |
 * number | identifier | array | hash. Pairs at the top level are gathered into one
 * trailing hash argument. The first error stops the parse; its message names the
 * 1-based column.
 *
 * Thread-safety: reentrant (all state is on the stack).
 */
#include "shell/shell_parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"

#define MAX_DEPTH 32

typedef struct parser {
    const char *text;
    const char *p;
    int depth;
    int line0;     /* the line of text[0] (0: do not name lines) */
    int col0;      /* the column of text[0] on that line */
    int rc;        /* first failure, ST_OK while none */
    char err[300]; /* its message */
} parser;

/* ---- values ---- */

void shell_value_free(shell_value *v)
{
    if (!v)
        return;
    free(v->s);
    size_t k = v->kind == SHELL_V_HASH ? 2 * v->n : v->n;
    for (size_t i = 0; v->items && i < k; i++)
        shell_value_free(&v->items[i]);
    free(v->items);
    memset(v, 0, sizeof(*v));
}

void shell_stmt_free(shell_stmt *st)
{
    if (!st)
        return;
    free(st->name);
    free(st->assign);
    free(st->receiver);
    shell_value_free(&st->args);
    memset(st, 0, sizeof(*st));
}

/* Appends item (an ARRAY's) or item and val (a HASH's pair) and counts them in list->n;
 * the values move into the list. */
static int push_item(shell_value *list, shell_value *item, shell_value *val)
{
    size_t slots = list->kind == SHELL_V_HASH ? 2 * list->n : list->n;
    shell_value *nv = realloc(list->items, (slots + (val ? 2 : 1)) * sizeof(*nv));
    if (!nv)
        return ST_NOMEM;
    list->items = nv;
    list->items[slots] = *item;
    memset(item, 0, sizeof(*item));
    if (val) {
        list->items[slots + 1] = *val;
        memset(val, 0, sizeof(*val));
    }
    list->n++;
    return ST_OK;
}

const shell_value *shell_hash_key(const shell_value *hash, size_t i)
{
    return &hash->items[2 * i];
}

const shell_value *shell_hash_val(const shell_value *hash, size_t i)
{
    return &hash->items[2 * i + 1];
}

const shell_value *shell_hash_get(const shell_value *hash, const char *key)
{
    if (!hash || hash->kind != SHELL_V_HASH)
        return NULL;
    size_t klen = strlen(key);
    for (size_t i = hash->n; i-- > 0;) {
        const shell_value *k = shell_hash_key(hash, i);
        if (k->kind == SHELL_V_STR && k->len == klen && memcmp(k->s, key, klen) == 0)
            return shell_hash_val(hash, i);
    }
    return NULL;
}

const char *shell_value_type(const shell_value *v)
{
    switch (v->kind) {
    case SHELL_V_NIL:
        return "nil";
    case SHELL_V_BOOL:
        return v->b ? "true" : "false";
    case SHELL_V_INT:
        return "Integer";
    case SHELL_V_FLOAT:
        return "Float";
    case SHELL_V_STR:
        return "String";
    case SHELL_V_ARRAY:
        return "Array";
    case SHELL_V_HASH:
        return "Hash";
    }
    return "?";
}

static int append_str(buf_t *b, const char *s)
{
    return buf_append(b, s, strlen(s));
}

static int inspect_into(const shell_value *v, buf_t *b)
{
    char num[64];
    int rc = ST_OK;
    switch (v->kind) {
    case SHELL_V_NIL:
        return append_str(b, "nil");
    case SHELL_V_BOOL:
        return append_str(b, v->b ? "true" : "false");
    case SHELL_V_INT:
        snprintf(num, sizeof(num), "%lld", (long long)v->i);
        return append_str(b, num);
    case SHELL_V_FLOAT:
        snprintf(num, sizeof(num), "%g", v->f);
        return append_str(b, num);
    case SHELL_V_STR:
        if (v->bare)
            return buf_append(b, v->s, v->len);
        rc = buf_append_u8(b, '\'');
        if (rc == ST_OK)
            rc = shell_escape_binary(b, v->s, v->len);
        return rc == ST_OK ? buf_append_u8(b, '\'') : rc;
    case SHELL_V_ARRAY:
    case SHELL_V_HASH:
        break;
    }
    bool hash = v->kind == SHELL_V_HASH;
    rc = buf_append_u8(b, hash ? '{' : '[');
    for (size_t i = 0; rc == ST_OK && i < v->n; i++) {
        if (i)
            rc = append_str(b, ", ");
        if (rc == ST_OK)
            rc = inspect_into(hash ? shell_hash_key(v, i) : &v->items[i], b);
        if (rc == ST_OK && hash)
            rc = append_str(b, " => ");
        if (rc == ST_OK && hash)
            rc = inspect_into(shell_hash_val(v, i), b);
    }
    return rc == ST_OK ? buf_append_u8(b, hash ? '}' : ']') : rc;
}

int shell_value_inspect(const shell_value *v, buf_t *b)
{
    int rc = inspect_into(v, b);
    if (rc == ST_OK)
        rc = buf_append_u8(b, '\0');
    if (rc == ST_OK)
        b->len--;
    return rc;
}

/* ---- binary strings ---- */

int shell_escape_binary(buf_t *b, const void *data, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *p = data;
    int rc = buf_reserve(b, len + 1);
    for (size_t i = 0; rc == ST_OK && i < len; i++) {
        unsigned char c = p[i];
        if (c >= 0x20 && c <= 0x7E && c != '\\') {
            rc = buf_append_u8(b, c);
        } else {
            char esc[4] = {'\\', 'x', hex[c >> 4], hex[c & 15]};
            rc = buf_append(b, esc, 4);
        }
    }
    if (rc == ST_OK)
        rc = buf_append_u8(b, '\0');
    if (rc == ST_OK)
        b->len--;
    return rc;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int shell_unescape_binary(const char *s, size_t len, buf_t *out)
{
    buf_reset(out);
    int rc = buf_reserve(out, len + 1);
    for (size_t i = 0; rc == ST_OK && i < len; i++) {
        if (s[i] == '\\' && i + 3 < len && s[i + 1] == 'x' && hexval(s[i + 2]) >= 0 &&
            hexval(s[i + 3]) >= 0) {
            rc = buf_append_u8(out, (uint8_t)(hexval(s[i + 2]) * 16 + hexval(s[i + 3])));
            i += 3;
        } else {
            rc = buf_append_u8(out, (uint8_t)s[i]);
        }
    }
    if (rc == ST_OK)
        rc = buf_append_u8(out, '\0');
    if (rc == ST_OK)
        out->len--;
    return rc;
}

/* ---- parser helpers ---- */

static int fail(parser *ps, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(parser *ps, const char *fmt, ...)
{
    if (ps->rc != ST_OK)
        return ps->rc;
    char what[240];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    int line = ps->line0, col = ps->col0;
    for (const char *q = ps->text; q < ps->p; q++) {
        if (*q == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    if (ps->line0 > 0)
        snprintf(ps->err, sizeof(ps->err), "syntax error at line %d, column %d: %s", line, col,
                 what);
    else
        snprintf(ps->err, sizeof(ps->err), "syntax error at column %d: %s", col, what);
    ps->rc = ST_INVALID_ARGUMENT;
    return ps->rc;
}

static int nomem(parser *ps)
{
    if (ps->rc == ST_OK) {
        snprintf(ps->err, sizeof(ps->err), "out of memory parsing a statement");
        ps->rc = ST_NOMEM;
    }
    return ps->rc;
}

/* Skips blanks, line ends and comments ('#' to the end of its line). */
static void skip_ws(parser *ps)
{
    for (;;) {
        while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r' || *ps->p == '\n' ||
               (*ps->p == '\\' && ps->p[1] == '\n')) /* a line continued */
            ps->p += *ps->p == '\\' ? 2 : 1;
        if (*ps->p != '#')
            return;
        while (*ps->p && *ps->p != '\n')
            ps->p++;
    }
}

/* Whether the rest is empty or comments. */
static bool at_end(parser *ps)
{
    skip_ws(ps);
    return *ps->p == '\0';
}

static bool ident_start(char c)
{
    return isalpha((unsigned char)c) || c == '_';
}

static bool ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* A printable rendering of the character at p for messages. */
static const char *near(parser *ps, char *tmp, size_t cap)
{
    unsigned char c = (unsigned char)*ps->p;
    if (!c)
        return "end of line";
    if (c >= 0x21 && c <= 0x7E)
        snprintf(tmp, cap, "'%c'", c);
    else
        snprintf(tmp, cap, "byte 0x%02X", c);
    return tmp;
}

/* ---- strings ---- */

static int put_utf8(buf_t *b, unsigned long cp)
{
    uint8_t o[4];
    size_t n;
    if (cp < 0x80) {
        o[0] = (uint8_t)cp;
        n = 1;
    } else if (cp < 0x800) {
        o[0] = (uint8_t)(0xC0 | (cp >> 6));
        o[1] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 2;
    } else {
        o[0] = (uint8_t)(0xE0 | (cp >> 12));
        o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (uint8_t)(0x80 | (cp & 0x3F));
        n = 3;
    }
    return buf_append(b, o, n);
}

/* Reads up to max digits of base (8 or 16) at p; returns the count read. */
static int read_digits(const char *p, int base, int max, unsigned long *val)
{
    int n = 0;
    *val = 0;
    while (n < max) {
        int d = hexval(p[n]);
        if (d < 0 || d >= base)
            break;
        *val = *val * (unsigned)base + (unsigned)d;
        n++;
    }
    return n;
}

/* One escape of a double-quoted string; ps->p is just past the backslash. */
static int dq_escape(parser *ps, buf_t *b)
{
    static const char from[] = "ntr0sabefv";
    static const char to[] = "\n\t\r\0 \a\b\x1b\f\v";
    char c = *ps->p;
    unsigned long v;
    int n;
    if (c == '\0')
        return fail(ps, "unterminated string");
    const char *at = strchr(from, c);
    if (at && !(c == '0' && ps->p[1] >= '0' && ps->p[1] <= '7')) {
        ps->p++;
        return buf_append_u8(b, (uint8_t)to[at - from]);
    }
    if (c == 'x') {
        n = read_digits(ps->p + 1, 16, 2, &v);
        if (n == 0)
            return fail(ps, "invalid hex escape \\x");
        ps->p += 1 + n;
        return buf_append_u8(b, (uint8_t)v);
    }
    if (c >= '0' && c <= '7') {
        n = read_digits(ps->p, 8, 3, &v);
        ps->p += n;
        return buf_append_u8(b, (uint8_t)(v & 0xFF));
    }
    if (c == 'u') {
        n = read_digits(ps->p + 1, 16, 4, &v);
        if (n != 4)
            return fail(ps, "invalid unicode escape \\u (4 hex digits needed)");
        ps->p += 5;
        return put_utf8(b, v);
    }
    ps->p++;
    return buf_append_u8(b, (uint8_t)c); /* \" \\ \# \' and anything else: the char */
}

static int parse_string(parser *ps, shell_value *out)
{
    const char *open = ps->p;
    char quote = *ps->p++;
    buf_t b = {0};
    int rc = ST_OK;
    while (rc == ST_OK && ps->rc == ST_OK) {
        char c = *ps->p;
        if (c == '\0') {
            ps->p = open;
            rc = fail(ps, "unterminated string (missing %c)", quote);
        } else if (c == quote) {
            ps->p++;
            break;
        } else if (c == '\\' && quote == '\'') {
            char nx = ps->p[1];
            bool esc = nx == '\'' || nx == '\\';
            rc = buf_append_u8(&b, (uint8_t)(esc ? nx : '\\'));
            ps->p += esc ? 2 : 1;
        } else if (c == '\\') {
            ps->p++;
            rc = dq_escape(ps, &b);
        } else if (c == '#' && ps->p[1] == '{' && quote == '"') {
            rc = fail(ps, "string interpolation #{...} is not supported");
        } else {
            rc = buf_append_u8(&b, (uint8_t)c);
            ps->p++;
        }
    }
    if (rc == ST_OK && ps->rc == ST_OK)
        rc = buf_append_u8(&b, '\0');
    if (rc != ST_OK || ps->rc != ST_OK) {
        buf_free(&b);
        return rc == ST_NOMEM ? nomem(ps) : ps->rc;
    }
    out->kind = SHELL_V_STR;
    out->s = (char *)b.data;
    out->len = b.len - 1;
    return ST_OK;
}

/* ---- numbers ---- */

/* Copies the number's characters (without '_') into tmp; false if too long. */
static bool collect_number(parser *ps, char *tmp, size_t cap, bool *is_float, bool *is_hex)
{
    size_t n = 0;
    const char *p = ps->p;
    *is_float = *is_hex = false;
    if (*p == '-' || *p == '+')
        tmp[n++] = *p++;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        *is_hex = true;
        p += 2;
    }
    for (; n + 1 < cap; p++) {
        char c = *p;
        if (c == '_' && isxdigit((unsigned char)p[1]) && n > 0)
            continue;
        bool ok = *is_hex ? isxdigit((unsigned char)c) != 0 : isdigit((unsigned char)c) != 0;
        if (!*is_hex && c == '.' && isdigit((unsigned char)p[1]) && !*is_float)
            ok = *is_float = true;
        if (!*is_hex && (c == 'e' || c == 'E') &&
            (isdigit((unsigned char)p[1]) ||
             ((p[1] == '-' || p[1] == '+') && isdigit((unsigned char)p[2])))) {
            tmp[n++] = c;
            c = *++p;
            ok = *is_float = true;
        }
        if (!ok)
            break;
        tmp[n++] = c;
    }
    tmp[n] = '\0';
    ps->p = p;
    return n + 1 < cap;
}

static int parse_number(parser *ps, shell_value *out)
{
    char tmp[80];
    bool is_float, is_hex;
    const char *start = ps->p;
    if (!collect_number(ps, tmp, sizeof(tmp), &is_float, &is_hex))
        return fail(ps, "number too long");
    if (ident_char(*ps->p))
        return fail(ps, "malformed number");
    char *end = NULL;
    errno = 0;
    if (is_float) {
        out->kind = SHELL_V_FLOAT;
        out->f = strtod(tmp, &end);
    } else {
        out->kind = SHELL_V_INT;
        bool neg = tmp[0] == '-';
        const char *digits = tmp + (tmp[0] == '-' || tmp[0] == '+');
        unsigned long long u = strtoull(digits, &end, is_hex ? 16 : 10);
        if (errno == ERANGE || u > (unsigned long long)INT64_MAX + (neg ? 1u : 0u)) {
            ps->p = start;
            return fail(ps, "integer %s is out of range (64-bit signed)", tmp);
        }
        out->i = neg ? (int64_t)(0 - u) : (int64_t)u;
    }
    if (!end || *end || (is_float && !isfinite(out->f))) {
        ps->p = start;
        return fail(ps, "malformed number '%s'", tmp);
    }
    return ST_OK;
}

/* ---- identifiers, arrays, hashes ---- */

static int parse_value(parser *ps, shell_value *out);

static int parse_ident(parser *ps, shell_value *out)
{
    const char *s = ps->p;
    while (ident_char(*ps->p))
        ps->p++;
    size_t n = (size_t)(ps->p - s);
    if (n == 4 && memcmp(s, "true", 4) == 0) {
        out->kind = SHELL_V_BOOL;
        out->b = true;
    } else if (n == 5 && memcmp(s, "false", 5) == 0) {
        out->kind = SHELL_V_BOOL;
    } else if (n == 3 && memcmp(s, "nil", 3) == 0) {
        out->kind = SHELL_V_NIL;
    } else if (isupper((unsigned char)s[0])) {
        out->kind = SHELL_V_STR;
        out->bare = true;
        out->s = strndup(s, n);
        out->len = n;
        if (!out->s)
            return nomem(ps);
    } else {
        ps->p = s;
        return fail(ps, "undefined local variable or method '%.*s' (quote strings: '%.*s')", (int)n,
                    s, (int)n, s);
    }
    return ST_OK;
}

/* Elements up to close (']' or '}'), separated by commas, a trailing comma allowed. */
static int parse_seq(parser *ps, shell_value *out, char close)
{
    bool hash = close == '}';
    out->kind = hash ? SHELL_V_HASH : SHELL_V_ARRAY;
    ps->p++;
    for (;;) {
        skip_ws(ps);
        if (*ps->p == close) {
            ps->p++;
            return ST_OK;
        }
        shell_value k = {0}, v = {0};
        int rc = parse_value(ps, &k);
        if (rc == ST_OK && hash) {
            skip_ws(ps);
            if (ps->p[0] != '=' || ps->p[1] != '>')
                rc = fail(ps, "expected '=>' in a hash");
            ps->p += rc == ST_OK ? 2 : 0;
            if (rc == ST_OK)
                rc = parse_value(ps, &v);
        }
        if (rc == ST_OK && push_item(out, &k, hash ? &v : NULL) != ST_OK)
            rc = nomem(ps);
        shell_value_free(&k);
        shell_value_free(&v);
        if (rc != ST_OK)
            return rc;
        skip_ws(ps);
        if (*ps->p == ',')
            ps->p++;
        else if (*ps->p != close) {
            char tmp[16];
            return fail(ps, "expected ',' or '%c', found %s", close, near(ps, tmp, sizeof(tmp)));
        }
    }
}

/* ( value ): Ruby's parenthesized expression, as in `get ('t')`. */
static int parse_group(parser *ps, shell_value *out)
{
    char tmp[16];
    ps->p++;
    int rc = parse_value(ps, out);
    skip_ws(ps);
    if (rc == ST_OK && *ps->p != ')')
        rc = fail(ps, "expected ')', found %s", near(ps, tmp, sizeof(tmp)));
    ps->p += rc == ST_OK;
    return rc;
}

static int parse_value(parser *ps, shell_value *out)
{
    char tmp[16];
    memset(out, 0, sizeof(*out));
    skip_ws(ps);
    char c = *ps->p;
    if (++ps->depth > MAX_DEPTH)
        return fail(ps, "nesting deeper than %d", MAX_DEPTH);
    int rc;
    if (c == '\'' || c == '"')
        rc = parse_string(ps, out);
    else if (c == '[')
        rc = parse_seq(ps, out, ']');
    else if (c == '{')
        rc = parse_seq(ps, out, '}');
    else if (isdigit((unsigned char)c) ||
             ((c == '-' || c == '+') && isdigit((unsigned char)ps->p[1])))
        rc = parse_number(ps, out);
    else if (ident_start(c))
        rc = parse_ident(ps, out);
    else if (c == '(')
        rc = parse_group(ps, out);
    else if (c == ':' && ident_start(ps->p[1]))
        rc = fail(ps, "Ruby symbols are not supported; quote the name");
    else
        rc = fail(ps, "expected a value, found %s", near(ps, tmp, sizeof(tmp)));
    ps->depth--;
    if (rc != ST_OK)
        shell_value_free(out);
    return rc;
}

/* ---- statements ---- */

/* One top-level element: a value, or a `key => value` pair added to *trail. */
static int parse_element(parser *ps, shell_value *args, shell_value *trail)
{
    shell_value k = {0}, v = {0};
    int rc = parse_value(ps, &k);
    skip_ws(ps);
    bool pair = rc == ST_OK && ps->p[0] == '=' && ps->p[1] == '>';
    if (pair) {
        ps->p += 2;
        rc = parse_value(ps, &v);
    } else if (rc == ST_OK && trail->kind == SHELL_V_HASH) {
        rc = fail(ps, "a plain argument cannot follow key => value pairs");
    }
    if (rc == ST_OK && pair) {
        trail->kind = SHELL_V_HASH;
        if (push_item(trail, &k, &v) != ST_OK)
            rc = nomem(ps);
    } else if (rc == ST_OK && push_item(args, &k, NULL) != ST_OK) {
        rc = nomem(ps);
    }
    shell_value_free(&k);
    shell_value_free(&v);
    return rc;
}

static int parse_args(parser *ps, shell_value *args, bool parens)
{
    shell_value trail = {0};
    int rc = ST_OK;
    skip_ws(ps);
    bool empty = parens ? *ps->p == ')' : at_end(ps);
    while (rc == ST_OK && !empty) {
        rc = parse_element(ps, args, &trail);
        skip_ws(ps);
        if (rc == ST_OK && *ps->p != ',')
            break;
        ps->p++;
    }
    if (rc == ST_OK && trail.kind == SHELL_V_HASH && push_item(args, &trail, NULL) != ST_OK)
        rc = nomem(ps);
    shell_value_free(&trail);
    return rc;
}

static int parse_stmt(parser *ps, shell_stmt *out)
{
    char tmp[16];
    out->args.kind = SHELL_V_ARRAY;
    if (at_end(ps))
        return ST_OK;
    if (!ident_start(*ps->p))
        return fail(ps, "expected a command name, found %s", near(ps, tmp, sizeof(tmp)));
    const char *s = ps->p;
    while (ident_char(*ps->p))
        ps->p++;
    /* var = command ... */
    const char *after = ps->p;
    while (*after == ' ' || *after == '\t')
        after++;
    if (!out->assign && *after == '=' && after[1] != '=' && after[1] != '>' &&
        islower((unsigned char)*s)) {
        if (!(out->assign = strndup(s, (size_t)(ps->p - s))))
            return nomem(ps);
        ps->p = after + 1;
        skip_ws(ps);
        if (!ident_start(*ps->p))
            return fail(ps, "expected a command after '%s =', found %s", out->assign,
                        near(ps, tmp, sizeof(tmp)));
        s = ps->p;
        while (ident_char(*ps->p))
            ps->p++;
    }
    /* var.method ... */
    if (*ps->p == '.' && ident_start(ps->p[1]) && islower((unsigned char)*s)) {
        if (!(out->receiver = strndup(s, (size_t)(ps->p - s))))
            return nomem(ps);
        s = ++ps->p;
        while (ident_char(*ps->p))
            ps->p++;
    }
    if (*ps->p == '?' || *ps->p == '!')
        ps->p++;
    out->name = strndup(s, (size_t)(ps->p - s));
    if (!out->name)
        return nomem(ps);
    bool parens = *ps->p == '(';
    if (!parens && *ps->p && !isspace((unsigned char)*ps->p) && *ps->p != '#')
        return fail(ps, "unexpected %s after the command name", near(ps, tmp, sizeof(tmp)));
    ps->p += parens;
    int rc = parse_args(ps, &out->args, parens);
    if (rc == ST_OK && parens) {
        skip_ws(ps);
        if (*ps->p != ')')
            return fail(ps, "expected ')', found %s", near(ps, tmp, sizeof(tmp)));
        ps->p++;
    }
    if (rc == ST_OK && !at_end(ps))
        rc = fail(ps, "unexpected %s (arguments are separated by commas)",
                  near(ps, tmp, sizeof(tmp)));
    return rc;
}

int shell_parse_stmt(const char *text, shell_stmt *out)
{
    return shell_parse_stmt_at(text, 0, 1, out);
}

int shell_parse_stmt_at(const char *text, int line, int col, shell_stmt *out)
{
    parser ps = {.text = text, .p = text, .line0 = line, .col0 = col, .rc = ST_OK};
    memset(out, 0, sizeof(*out));
    int rc = parse_stmt(&ps, out);
    if (rc == ST_OK && ps.rc == ST_OK)
        return ST_OK;
    shell_stmt_free(out);
    rc = ps.rc != ST_OK ? ps.rc : rc;
    return st_error(rc, "%s", ps.err[0] ? ps.err : "out of memory parsing a statement");
}

/* ---- statement splitting ---- */

static int add_piece(char ***v, size_t *n, const char *s, size_t len)
{
    char **nv = realloc(*v, (*n + 1) * sizeof(*nv));
    if (!nv)
        return ST_NOMEM;
    *v = nv;
    if (!(nv[*n] = strndup(s, len)))
        return ST_NOMEM;
    (*n)++;
    return ST_OK;
}

/* Where the string starting at p (a quote) ends: just past its closing quote, or at
 * the NUL if unterminated. */
static const char *skip_string(const char *p)
{
    char q = *p++;
    while (*p && *p != q)
        p += (*p == '\\' && p[1]) ? 2 : 1;
    return *p ? p + 1 : p;
}

int shell_split_stmts(const char *line, char ***out, size_t *n)
{
    char **v = NULL;
    size_t k = 0;
    int depth = 0, rc = ST_OK;
    const char *start = line, *p = line;
    while (rc == ST_OK && *p) {
        if (*p == '\'' || *p == '"') {
            p = skip_string(p);
            continue;
        }
        if (*p == '#') {
            p += strcspn(p, "\n");
            continue;
        }
        if (*p == '[' || *p == '{' || *p == '(')
            depth++;
        else if ((*p == ']' || *p == '}' || *p == ')') && depth > 0)
            depth--;
        else if (*p == ';' && depth == 0) {
            rc = add_piece(&v, &k, start, (size_t)(p - start));
            start = p + 1;
        }
        p++;
    }
    if (rc == ST_OK)
        rc = add_piece(&v, &k, start, strlen(start));
    if (rc != ST_OK) {
        shell_split_free(v, k);
        *out = NULL;
        *n = 0;
        return st_error(ST_NOMEM, "out of memory splitting a line");
    }
    *out = v;
    *n = k;
    return ST_OK;
}

void shell_split_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* Like skip_string, and whether the string was closed. */
static const char *skip_string_closed(const char *p, bool *closed)
{
    char q = *p++;
    while (*p && *p != q)
        p += (*p == '\\' && p[1]) ? 2 : 1;
    *closed = *p == q;
    return *p ? p + 1 : p;
}

int shell_text_open(const char *text)
{
    int depth = 0;
    char last = 0, prev = 0; /* the last two characters outside strings and comments that
                                are not blanks */
    const char *p = text;
    while (*p) {
        if (*p == '\'' || *p == '"') {
            bool closed;
            p = skip_string_closed(p, &closed);
            if (!closed)
                return depth + 1;
            prev = last;
            last = '"';
            continue;
        }
        if (*p == '#') {
            p += strcspn(p, "\n");
            continue;
        }
        if (*p == '[' || *p == '{' || *p == '(')
            depth++;
        else if ((*p == ']' || *p == '}' || *p == ')') && depth > 0)
            depth--;
        if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
            prev = last;
            last = *p;
        }
        p++;
    }
    if (depth > 0)
        return depth;
    return last == ',' || last == '\\' || (prev == '=' && last == '>') ? 1 : 0;
}
