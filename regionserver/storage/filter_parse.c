/*
 * filter_parse.c - a recursive-descent parser for HBase's filter language
 * (grammar in filter_parse.h), building the filters of filter.h as it goes.
 *
 * The lexer turns the text into tokens: ( ) , 'string' compare-op and words (names,
 * keywords, booleans, integers: runs of letters, digits, '_', '.', '+', '-'). The parser
 * keeps one token of lookahead; every error names what was expected, what was found and
 * its byte offset. Arguments are checked here, before a constructor sees them, so that
 * each refusal names the filter, the argument and its position; a constructor then
 * fails only for memory. Partly built filters are freed on every error path.
 * Parentheses, SKIP and WHILE together nest at most MAX_DEPTH deep (the recursion is
 * bounded). Thread-safety: reentrant (all state is in the parser struct on the caller's
 * stack).
 */
#include "regionserver/storage/filter_parse.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/status.h"
#include "regionserver/storage/filter_internal.h"

#define MAX_DEPTH 64 /* nested parentheses, SKIP and WHILE */

typedef enum tok_kind {
    TOK_END,
    TOK_LPAREN,
    TOK_RPAREN,
    TOK_COMMA,
    TOK_STRING,
    TOK_WORD,
    TOK_OP,
} tok_kind;

typedef struct token {
    tok_kind kind;
    size_t pos; /* offset of the first byte */
    size_t len; /* raw length, quotes included */
    compare_op op;
} token;

typedef struct parser {
    const char *text;
    size_t len;
    size_t next; /* first byte after tok */
    token tok;   /* the lookahead */
    int depth;
} parser;

/* One filter call being built: its name token and argument tokens. */
typedef struct call {
    const char *name;
    size_t name_pos;
    const struct filter_kind *kind;
    token *args;
    size_t nargs;
    size_t cap;
} call;

typedef int (*build_fn)(parser *p, const call *c, filter **out);

typedef struct filter_kind {
    const char *name;
    const char *usage;
    build_fn build;
    filter *(*cmp_ctor)(compare_op op, comparator *cmp); /* CompareFilter kinds */
} filter_kind;

/* ---- errors ---- */

static int perr(int code, const parser *p, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int perr(int code, const parser *p, size_t pos, const char *fmt, ...)
{
    char what[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    if (pos >= p->len)
        return st_error(code, "filter: %s at position %zu (end of input)", what, pos);
    int near = (int)(p->len - pos < 24 ? p->len - pos : 24);
    return st_error(code, "filter: %s at position %zu (near \"%.*s\")", what, pos, near,
                    p->text + pos);
}

/* A printable description of the lookahead, e.g. "'AND'" or "end of input". */
static const char *tok_desc(const parser *p, const token *t, char *buf, size_t n)
{
    if (t->kind == TOK_END)
        return "end of input";
    int len = (int)(t->len < 40 ? t->len : 40);
    snprintf(buf, n, "'%.*s'%s", len, p->text + t->pos, t->len > 40 ? "..." : "");
    return buf;
}

/* ---- lexer ---- */

static bool is_word_char(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_' || ch == '.' || ch == '+' || ch == '-';
}

static int lex_string(parser *p, size_t start)
{
    size_t i = start + 1;
    for (;;) {
        if (i >= p->len)
            return perr(ST_INVALID_ARGUMENT, p, start,
                        "unterminated string (no closing quote; write a quote inside as '')");
        if (p->text[i] == '\'') {
            if (i + 1 < p->len && p->text[i + 1] == '\'') {
                i += 2;
                continue;
            }
            break;
        }
        i++;
    }
    p->tok = (token){.kind = TOK_STRING, .pos = start, .len = i + 1 - start};
    return ST_OK;
}

static int lex_op(parser *p, size_t start)
{
    const char *s = p->text + start;
    bool eq_next = start + 1 < p->len && s[1] == '=';
    token t = {.kind = TOK_OP, .pos = start, .len = eq_next ? 2 : 1};
    switch (s[0]) {
    case '<':
        t.op = eq_next ? CMP_LESS_OR_EQUAL : CMP_LESS;
        break;
    case '>':
        t.op = eq_next ? CMP_GREATER_OR_EQUAL : CMP_GREATER;
        break;
    case '=':
        t.op = CMP_EQUAL, t.len = 1;
        break;
    default: /* '!' */
        if (!eq_next)
            return perr(ST_INVALID_ARGUMENT, p, start, "unexpected '!' (did you mean '!='?)");
        t.op = CMP_NOT_EQUAL;
        break;
    }
    p->tok = t;
    return ST_OK;
}

/* Reads the next token into p->tok. */
static int advance(parser *p)
{
    size_t i = p->next;
    while (i < p->len && isspace((unsigned char)p->text[i]))
        i++;
    int rc = ST_OK;
    char ch = i < p->len ? p->text[i] : '\0';
    if (i >= p->len) {
        p->tok = (token){.kind = TOK_END, .pos = p->len};
    } else if (ch == '(' || ch == ')' || ch == ',') {
        tok_kind k = ch == '(' ? TOK_LPAREN : ch == ')' ? TOK_RPAREN : TOK_COMMA;
        p->tok = (token){.kind = k, .pos = i, .len = 1};
    } else if (ch == '\'') {
        rc = lex_string(p, i);
    } else if (strchr("<>=!", ch)) {
        rc = lex_op(p, i);
    } else if (is_word_char(ch)) {
        size_t j = i;
        while (j < p->len && is_word_char(p->text[j]))
            j++;
        p->tok = (token){.kind = TOK_WORD, .pos = i, .len = j - i};
    } else if (isprint((unsigned char)ch)) {
        rc = perr(ST_INVALID_ARGUMENT, p, i, "unexpected character '%c'", ch);
    } else {
        rc = perr(ST_INVALID_ARGUMENT, p, i, "unexpected byte 0x%02x", (unsigned char)ch);
    }
    if (rc == ST_OK)
        p->next = p->tok.pos + p->tok.len;
    return rc;
}

static bool tok_is_word(const parser *p, const token *t, const char *w, bool any_case)
{
    size_t n = strlen(w);
    if (t->kind != TOK_WORD || t->len != n)
        return false;
    return any_case ? strncasecmp(p->text + t->pos, w, n) == 0
                    : strncmp(p->text + t->pos, w, n) == 0;
}

/* Copies a string token's content with '' turned into '. */
static int unquote(const parser *p, const token *t, buf_t *out)
{
    buf_reset(out);
    const char *s = p->text + t->pos + 1;
    size_t n = t->len - 2;
    for (size_t i = 0; i < n; i++) {
        if (buf_append_u8(out, (uint8_t)s[i]) != ST_OK)
            return st_error(ST_NOMEM, "filter: out of memory reading a string");
        if (s[i] == '\'')
            i++; /* the second quote of '' */
    }
    return ST_OK;
}

/* ---- arguments ---- */

static int bad_arg(const parser *p, const call *c, size_t i, const char *want)
{
    char buf[64];
    return perr(ST_INVALID_ARGUMENT, p, c->args[i].pos, "argument %zu of %s must be %s, got %s",
                i + 1, c->name, want, tok_desc(p, &c->args[i], buf, sizeof(buf)));
}

static int count_error(const parser *p, const call *c, const char *expected)
{
    return perr(ST_INVALID_ARGUMENT, p, c->name_pos,
                "wrong number of arguments for %s: got %zu, expected %s (usage: %s)", c->name,
                c->nargs, expected, c->kind->usage);
}

static int want_args(const parser *p, const call *c, size_t lo, size_t hi)
{
    if (c->nargs >= lo && c->nargs <= hi)
        return ST_OK;
    char expected[48];
    if (lo == hi)
        snprintf(expected, sizeof(expected), "%zu", lo);
    else
        snprintf(expected, sizeof(expected), "%zu or %zu", lo, hi);
    return count_error(p, c, expected);
}

static int arg_bytes(const parser *p, const call *c, size_t i, buf_t *out)
{
    if (c->args[i].kind != TOK_STRING)
        return bad_arg(p, c, i, "a quoted string");
    return unquote(p, &c->args[i], out);
}

static int arg_op(const parser *p, const call *c, size_t i, compare_op *out)
{
    if (c->args[i].kind != TOK_OP)
        return bad_arg(p, c, i, "a compare operator (<, <=, =, !=, >=, >)");
    *out = c->args[i].op;
    return ST_OK;
}

static int arg_bool(const parser *p, const call *c, size_t i, bool *out)
{
    const token *t = &c->args[i];
    if (tok_is_word(p, t, "true", true) || tok_is_word(p, t, "false", true)) {
        *out = t->len == 4;
        return ST_OK;
    }
    return bad_arg(p, c, i, "true or false");
}

static int arg_int(const parser *p, const call *c, size_t i, int64_t *out)
{
    const token *t = &c->args[i];
    const char *s = p->text + t->pos;
    size_t k = t->kind == TOK_WORD && t->len > 1 && s[0] == '-' ? 1 : 0;
    if (t->kind != TOK_WORD || k == t->len)
        return bad_arg(p, c, i, "an integer");
    uint64_t v = 0, limit = k ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; k < t->len; k++) {
        if (!isdigit((unsigned char)s[k]))
            return bad_arg(p, c, i, "an integer");
        if (v > (limit - (uint64_t)(s[k] - '0')) / 10)
            return perr(ST_INVALID_ARGUMENT, p, t->pos, "argument %zu of %s: integer out of range",
                        i + 1, c->name);
        v = v * 10 + (uint64_t)(s[k] - '0');
    }
    *out = s[0] == '-' ? (int64_t)(0 - v) : (int64_t)v;
    return ST_OK;
}

static int arg_non_negative(const parser *p, const call *c, size_t i, int64_t *out)
{
    int rc = arg_int(p, c, i, out);
    if (rc == ST_OK && *out < 0)
        rc = perr(ST_INVALID_ARGUMENT, p, c->args[i].pos, "argument %zu of %s must not be negative",
                  i + 1, c->name);
    return rc;
}

/* Argument i as a count 0 .. INT32_MAX (HBase reads these as Java ints). */
static int arg_count(const parser *p, const call *c, size_t i, int32_t *out)
{
    int64_t v = 0;
    int rc = arg_non_negative(p, c, i, &v);
    if (rc == ST_OK && v > INT32_MAX)
        rc = perr(ST_INVALID_ARGUMENT, p, c->args[i].pos,
                  "argument %zu of %s: integer out of range (at most %d)", i + 1, c->name,
                  INT32_MAX);
    if (rc == ST_OK)
        *out = (int32_t)v;
    return rc;
}

/* Arguments from..nargs-1 as byte strings: v[k] is argument from+k, p/len view them. */
typedef struct str_args {
    buf_t *v;
    const uint8_t **p;
    size_t *len;
    size_t n;
} str_args;

static void str_args_free(str_args *a)
{
    for (size_t i = 0; a->v != NULL && i < a->n; i++)
        buf_free(&a->v[i]);
    free(a->v);
    free(a->p);
    free(a->len);
}

static int arg_strings(const parser *p, const call *c, size_t from, str_args *a)
{
    a->n = c->nargs - from;
    a->v = calloc(a->n ? a->n : 1, sizeof(*a->v));
    a->p = calloc(a->n ? a->n : 1, sizeof(*a->p));
    a->len = calloc(a->n ? a->n : 1, sizeof(*a->len));
    if (a->v == NULL || a->p == NULL || a->len == NULL)
        return st_error(ST_NOMEM, "filter: out of memory reading the arguments of %s", c->name);
    for (size_t i = 0; i < a->n; i++) {
        int rc = arg_bytes(p, c, from + i, &a->v[i]);
        if (rc != ST_OK)
            return rc;
        a->p[i] = a->v[i].data ? a->v[i].data : (const uint8_t *)"";
        a->len[i] = a->v[i].len;
    }
    return ST_OK;
}

static const struct {
    const char *name;
    comparator_type type;
} comparator_types[] = {
    {"binary", COMPARATOR_BINARY},
    {"binaryprefix", COMPARATOR_BINARY_PREFIX},
    {"substring", COMPARATOR_SUBSTRING},
    {"regexstring", COMPARATOR_REGEX},
};

/* Argument i as 'type:value', to be used with operator op (the argument before it). */
static int arg_comparator(const parser *p, const call *c, size_t i, compare_op op, comparator **out)
{
    buf_t b = {0};
    int rc = arg_bytes(p, c, i, &b);
    if (rc != ST_OK)
        goto done;
    uint8_t *colon = b.len ? memchr(b.data, ':', b.len) : NULL;
    if (colon == NULL) {
        rc = bad_arg(p, c, i, "a comparator 'type:value' (no ':' found)");
        goto done;
    }
    size_t tlen = (size_t)(colon - b.data);
    size_t n = sizeof(comparator_types) / sizeof(comparator_types[0]), k = 0;
    while (k < n && !(strlen(comparator_types[k].name) == tlen &&
                      memcmp(comparator_types[k].name, b.data, tlen) == 0))
        k++;
    if (k == n) {
        rc = perr(ST_INVALID_ARGUMENT, p, c->args[i].pos,
                  "unknown comparator type '%.*s' in argument %zu of %s (expected binary, "
                  "binaryprefix, substring or regexstring)",
                  (int)(tlen < 40 ? tlen : 40), (const char *)b.data, i + 1, c->name);
        goto done;
    }
    comparator_type type = comparator_types[k].type;
    if ((type == COMPARATOR_SUBSTRING || type == COMPARATOR_REGEX) && op != CMP_EQUAL &&
        op != CMP_NOT_EQUAL) {
        rc =
            perr(ST_INVALID_ARGUMENT, p, c->args[i - 1].pos,
                 "%s: a %s comparator works only with = and !=", c->name, comparator_types[k].name);
        goto done;
    }
    rc = comparator_create(type, colon + 1, b.len - tlen - 1, out);
    if (rc == ST_INVALID_ARGUMENT) {
        char why[512];
        snprintf(why, sizeof(why), "%s", st_errmsg());
        rc = perr(rc, p, c->args[i].pos, "argument %zu of %s: %s", i + 1, c->name, why);
    }
done:
    buf_free(&b);
    return rc;
}

/* ---- builders, one per filter name ---- */

static int built(const call *c, filter *f, filter **out)
{
    *out = f;
    return f ? ST_OK : st_error(ST_NOMEM, "filter: out of memory building %s", c->name);
}

static int build_compare(parser *p, const call *c, filter **out)
{
    compare_op op = CMP_EQUAL;
    comparator *cmp = NULL;
    int rc = want_args(p, c, 2, 2);
    if (rc == ST_OK)
        rc = arg_op(p, c, 0, &op);
    if (rc == ST_OK)
        rc = arg_comparator(p, c, 1, op, &cmp);
    return rc == ST_OK ? built(c, c->kind->cmp_ctor(op, cmp), out) : rc;
}

static int build_prefix(parser *p, const call *c, filter **out)
{
    buf_t b = {0};
    int rc = want_args(p, c, 1, 1);
    if (rc == ST_OK)
        rc = arg_bytes(p, c, 0, &b);
    if (rc == ST_OK) {
        bool row = strcmp(c->name, "PrefixFilter") == 0;
        filter *f =
            row ? filter_prefix_new(b.data, b.len) : filter_column_prefix_new(b.data, b.len);
        rc = built(c, f, out);
    }
    buf_free(&b);
    return rc;
}

static int build_scv(parser *p, const call *c, filter **out)
{
    buf_t fam = {0}, qual = {0};
    compare_op op = CMP_EQUAL;
    comparator *cmp = NULL;
    bool if_missing = false, latest_only = true;
    int rc = c->nargs == 4 || c->nargs == 6 ? ST_OK : count_error(p, c, "4 or 6");
    if (rc == ST_OK)
        rc = arg_bytes(p, c, 0, &fam);
    if (rc == ST_OK)
        rc = arg_bytes(p, c, 1, &qual);
    if (rc == ST_OK)
        rc = arg_op(p, c, 2, &op);
    if (rc == ST_OK && c->nargs == 6)
        rc = arg_bool(p, c, 4, &if_missing);
    if (rc == ST_OK && c->nargs == 6)
        rc = arg_bool(p, c, 5, &latest_only);
    if (rc == ST_OK)
        rc = arg_comparator(p, c, 3, op, &cmp);
    bool exclude = strcmp(c->name, "SingleColumnValueExcludeFilter") == 0;
    if (rc == ST_OK && exclude)
        rc = built(c,
                   filter_single_column_value_exclude_new(fam.data, fam.len, qual.data, qual.len,
                                                          op, cmp, if_missing, latest_only),
                   out);
    else if (rc == ST_OK)
        rc = built(c,
                   filter_single_column_value_new(fam.data, fam.len, qual.data, qual.len, op, cmp,
                                                  if_missing, latest_only),
                   out);
    buf_free(&fam);
    buf_free(&qual);
    return rc;
}

static int build_page(parser *p, const call *c, filter **out)
{
    int64_t n = 0;
    int rc = want_args(p, c, 1, 1);
    if (rc == ST_OK)
        rc = arg_non_negative(p, c, 0, &n);
    return rc == ST_OK ? built(c, filter_page_new(n), out) : rc;
}

static int build_first_key(parser *p, const call *c, filter **out)
{
    int rc = want_args(p, c, 0, 0);
    return rc == ST_OK ? built(c, filter_first_key_only_new(), out) : rc;
}

static int build_key_only(parser *p, const call *c, filter **out)
{
    bool len_as_value = false;
    int rc = want_args(p, c, 0, 1);
    if (rc == ST_OK && c->nargs == 1)
        rc = arg_bool(p, c, 0, &len_as_value);
    return rc == ST_OK ? built(c, filter_key_only_new(len_as_value), out) : rc;
}

static int build_timestamps(parser *p, const call *c, filter **out)
{
    int rc = ST_OK;
    int64_t *ts = calloc(c->nargs ? c->nargs : 1, sizeof(int64_t));
    if (ts == NULL)
        return st_error(ST_NOMEM, "filter: out of memory for %zu timestamps", c->nargs);
    for (size_t i = 0; i < c->nargs && rc == ST_OK; i++)
        rc = arg_non_negative(p, c, i, &ts[i]);
    if (rc == ST_OK)
        rc = built(c, filter_timestamps_new(ts, c->nargs), out);
    free(ts);
    return rc;
}

static int build_column_count_get(parser *p, const call *c, filter **out)
{
    int32_t n = 0;
    int rc = want_args(p, c, 1, 1);
    if (rc == ST_OK)
        rc = arg_count(p, c, 0, &n);
    return rc == ST_OK ? built(c, filter_column_count_get_new(n), out) : rc;
}

static int build_column_pagination(parser *p, const call *c, filter **out)
{
    int32_t limit = 0, offset = 0;
    int rc = want_args(p, c, 2, 2);
    if (rc == ST_OK)
        rc = arg_count(p, c, 0, &limit);
    if (rc == ST_OK && c->args[1].kind == TOK_STRING)
        rc = bad_arg(p, c, 1,
                     "an integer offset (HBase's filter language has no column-offset "
                     "form)");
    if (rc == ST_OK)
        rc = arg_count(p, c, 1, &offset);
    return rc == ST_OK ? built(c, filter_column_pagination_new(limit, offset), out) : rc;
}

static int build_column_range(parser *p, const call *c, filter **out)
{
    buf_t lo = {0}, hi = {0};
    bool lo_incl = false, hi_incl = false;
    int rc = want_args(p, c, 4, 4);
    if (rc == ST_OK)
        rc = arg_bytes(p, c, 0, &lo);
    if (rc == ST_OK)
        rc = arg_bool(p, c, 1, &lo_incl);
    if (rc == ST_OK)
        rc = arg_bytes(p, c, 2, &hi);
    if (rc == ST_OK)
        rc = arg_bool(p, c, 3, &hi_incl);
    if (rc == ST_OK)
        rc = built(c,
                   filter_column_range_new(lo.data, lo.len, lo.len > 0, lo_incl, hi.data, hi.len,
                                           hi.len > 0, hi_incl),
                   out);
    buf_free(&lo);
    buf_free(&hi);
    return rc;
}

/* The index of the first string that repeats an earlier one, or 0. */
static size_t repeated_arg(const str_args *a)
{
    for (size_t i = 1; i < a->n; i++) {
        for (size_t k = 0; k < i; k++) {
            if (a->len[i] == a->len[k] && memcmp(a->p[i], a->p[k], a->len[i]) == 0)
                return i;
        }
    }
    return 0;
}

static int build_column_prefixes(parser *p, const call *c, filter **out)
{
    str_args a = {0};
    int rc = arg_strings(p, c, 0, &a);
    size_t dup = rc == ST_OK ? repeated_arg(&a) : 0;
    if (dup)
        rc = perr(ST_INVALID_ARGUMENT, p, c->args[dup].pos,
                  "argument %zu of %s repeats a prefix (they must be distinct)", dup + 1, c->name);
    if (rc == ST_OK)
        rc = built(c, filter_multiple_column_prefix_new(a.p, a.len, a.n), out);
    str_args_free(&a);
    return rc;
}

static int build_first_matching(parser *p, const call *c, filter **out)
{
    str_args a = {0};
    int rc = arg_strings(p, c, 0, &a);
    if (rc == ST_OK)
        rc = built(c, filter_first_key_value_matching_qualifiers_new(a.p, a.len, a.n), out);
    str_args_free(&a);
    return rc;
}

static int build_dependent(parser *p, const call *c, filter **out)
{
    buf_t fam = {0}, qual = {0};
    bool drop = false;
    compare_op op = CMP_NO_OP;
    comparator *cmp = NULL;
    int rc =
        c->nargs == 2 || c->nargs == 3 || c->nargs == 5 ? ST_OK : count_error(p, c, "2, 3 or 5");
    if (rc == ST_OK)
        rc = arg_bytes(p, c, 0, &fam);
    if (rc == ST_OK)
        rc = arg_bytes(p, c, 1, &qual);
    if (rc == ST_OK && c->nargs >= 3)
        rc = arg_bool(p, c, 2, &drop);
    if (rc == ST_OK && c->nargs == 5)
        rc = arg_op(p, c, 3, &op);
    if (rc == ST_OK && c->nargs == 5)
        rc = arg_comparator(p, c, 4, op, &cmp);
    if (rc == ST_OK)
        rc = built(
            c, filter_dependent_column_new(fam.data, fam.len, qual.data, qual.len, drop, op, cmp),
            out);
    buf_free(&fam);
    buf_free(&qual);
    return rc;
}

static int build_column_value(parser *p, const call *c, filter **out)
{
    buf_t fam = {0}, qual = {0};
    compare_op op = CMP_EQUAL;
    comparator *cmp = NULL;
    int rc = want_args(p, c, 4, 4);
    if (rc == ST_OK)
        rc = arg_bytes(p, c, 0, &fam);
    if (rc == ST_OK)
        rc = arg_bytes(p, c, 1, &qual);
    if (rc == ST_OK)
        rc = arg_op(p, c, 2, &op);
    if (rc == ST_OK)
        rc = arg_comparator(p, c, 3, op, &cmp);
    if (rc == ST_OK)
        rc =
            built(c, filter_column_value_new(fam.data, fam.len, qual.data, qual.len, op, cmp), out);
    buf_free(&fam);
    buf_free(&qual);
    return rc;
}

static int build_inclusive_stop(parser *p, const call *c, filter **out)
{
    buf_t b = {0};
    int rc = want_args(p, c, 1, 1);
    if (rc == ST_OK)
        rc = arg_bytes(p, c, 0, &b);
    if (rc == ST_OK)
        rc = built(c, filter_inclusive_stop_new(b.data, b.len), out);
    buf_free(&b);
    return rc;
}

/* Range k of MultiRowRangeFilter (arguments 4k .. 4k+3) into r, its bytes in s and e. */
static int arg_row_range(const parser *p, const call *c, size_t k, buf_t *s, buf_t *e,
                         filter_row_range *r)
{
    size_t i = 4 * k;
    int rc = arg_bytes(p, c, i, s);
    if (rc == ST_OK)
        rc = arg_bool(p, c, i + 1, &r->start_inclusive);
    if (rc == ST_OK)
        rc = arg_bytes(p, c, i + 2, e);
    if (rc == ST_OK)
        rc = arg_bool(p, c, i + 3, &r->stop_inclusive);
    if (rc != ST_OK)
        return rc;
    r->start = s->data;
    r->start_len = s->len;
    r->stop = e->data;
    r->stop_len = e->len;
    int cmp = s->len && e->len ? filter_bytes_compare(s->data, s->len, e->data, e->len) : -1;
    if (cmp > 0 || (cmp == 0 && !r->stop_inclusive))
        return perr(ST_INVALID_ARGUMENT, p, c->args[i].pos,
                    "range %zu of %s is empty: its start row sorts %s its stop row", k + 1, c->name,
                    cmp > 0 ? "after" : "equal to (exclusive)");
    return ST_OK;
}

static int build_row_ranges(parser *p, const call *c, filter **out)
{
    if (c->nargs == 0 || c->nargs % 4 != 0)
        return count_error(p, c,
                           "a multiple of 4: start, startInclusive, stop, stopInclusive "
                           "per range");
    size_t n = c->nargs / 4;
    buf_t *bytes = calloc(2 * n, sizeof(*bytes));
    filter_row_range *r = calloc(n, sizeof(*r));
    int rc = bytes && r ? ST_OK : st_error(ST_NOMEM, "filter: out of memory for %zu ranges", n);
    for (size_t k = 0; rc == ST_OK && k < n; k++)
        rc = arg_row_range(p, c, k, &bytes[2 * k], &bytes[2 * k + 1], &r[k]);
    if (rc == ST_OK)
        rc = built(c, filter_multi_row_range_new(r, n), out);
    for (size_t i = 0; bytes && i < 2 * n; i++)
        buf_free(&bytes[i]);
    free(bytes);
    free(r);
    return rc;
}

/* Checks that mask argument i is '0' and '1' characters as long as the key before it,
 * and turns it into mask bytes 0 and 1. */
static int fuzzy_mask(const parser *p, const call *c, size_t i, const buf_t *key, buf_t *mask)
{
    if (mask->len != key->len)
        return perr(ST_INVALID_ARGUMENT, p, c->args[i].pos,
                    "argument %zu of %s: the mask must be as long as its key (%zu bytes), "
                    "got %zu",
                    i + 1, c->name, key->len, mask->len);
    for (size_t k = 0; k < mask->len; k++) {
        uint8_t m = mask->data[k];
        if (m != '0' && m != '1')
            return perr(ST_INVALID_ARGUMENT, p, c->args[i].pos,
                        "argument %zu of %s: a mask holds '0' (fixed byte) and '1' (any byte), "
                        "got byte 0x%02x at offset %zu",
                        i + 1, c->name, m, k);
        mask->data[k] = (uint8_t)(m - '0');
    }
    return ST_OK;
}

static int build_fuzzy(parser *p, const call *c, filter **out)
{
    if (c->nargs == 0 || c->nargs % 2 != 0)
        return count_error(p, c, "pairs of 'key', 'mask' (at least one)");
    str_args a = {0};
    int rc = arg_strings(p, c, 0, &a);
    size_t n = c->nargs / 2;
    const uint8_t **keys = calloc(n, sizeof(*keys));
    const uint8_t **masks = calloc(n, sizeof(*masks));
    size_t *lens = calloc(n, sizeof(*lens));
    if (rc == ST_OK && (keys == NULL || masks == NULL || lens == NULL))
        rc = st_error(ST_NOMEM, "filter: out of memory for %zu fuzzy keys", n);
    for (size_t k = 0; rc == ST_OK && k < n; k++) {
        rc = fuzzy_mask(p, c, 2 * k + 1, &a.v[2 * k], &a.v[2 * k + 1]);
        keys[k] = a.p[2 * k];
        masks[k] = a.p[2 * k + 1];
        lens[k] = a.len[2 * k];
    }
    if (rc == ST_OK)
        rc = built(c, filter_fuzzy_row_new(keys, masks, lens, n), out);
    free(keys);
    free(masks);
    free(lens);
    str_args_free(&a);
    return rc;
}

static const filter_kind kinds[] = {
    {"RowFilter", "RowFilter(op, 'type:value')", build_compare, filter_row_new},
    {"FamilyFilter", "FamilyFilter(op, 'type:value')", build_compare, filter_family_new},
    {"QualifierFilter", "QualifierFilter(op, 'type:value')", build_compare, filter_qualifier_new},
    {"ValueFilter", "ValueFilter(op, 'type:value')", build_compare, filter_value_new},
    {"PrefixFilter", "PrefixFilter('prefix')", build_prefix, NULL},
    {"ColumnPrefixFilter", "ColumnPrefixFilter('prefix')", build_prefix, NULL},
    {"SingleColumnValueFilter",
     "SingleColumnValueFilter('family', 'qualifier', op, 'type:value'[, filterIfMissing, "
     "latestVersionOnly])",
     build_scv, NULL},
    {"PageFilter", "PageFilter(n)", build_page, NULL},
    {"FirstKeyOnlyFilter", "FirstKeyOnlyFilter()", build_first_key, NULL},
    {"KeyOnlyFilter", "KeyOnlyFilter([lenAsValue])", build_key_only, NULL},
    {"TimestampsFilter", "TimestampsFilter(ts, ...)", build_timestamps, NULL},
    {"SingleColumnValueExcludeFilter",
     "SingleColumnValueExcludeFilter('family', 'qualifier', op, 'type:value'[, "
     "filterIfMissing, latestVersionOnly])",
     build_scv, NULL},
    {"ColumnCountGetFilter", "ColumnCountGetFilter(limit)", build_column_count_get, NULL},
    {"ColumnPaginationFilter", "ColumnPaginationFilter(limit, offset)", build_column_pagination,
     NULL},
    {"ColumnRangeFilter",
     "ColumnRangeFilter('minColumn', minColumnInclusive, 'maxColumn', maxColumnInclusive)",
     build_column_range, NULL},
    {"MultipleColumnPrefixFilter", "MultipleColumnPrefixFilter('prefix', ...)",
     build_column_prefixes, NULL},
    {"FirstKeyValueMatchingQualifiersFilter",
     "FirstKeyValueMatchingQualifiersFilter('qualifier', ...)", build_first_matching, NULL},
    {"DependentColumnFilter",
     "DependentColumnFilter('family', 'qualifier'[, dropDependentColumn[, op, "
     "'type:value']])",
     build_dependent, NULL},
    {"ColumnValueFilter", "ColumnValueFilter('family', 'qualifier', op, 'type:value')",
     build_column_value, NULL},
    {"InclusiveStopFilter", "InclusiveStopFilter('stopRow')", build_inclusive_stop, NULL},
    {"MultiRowRangeFilter",
     "MultiRowRangeFilter('startRow', startInclusive, 'stopRow', stopInclusive, ...)",
     build_row_ranges, NULL},
    {"FuzzyRowFilter", "FuzzyRowFilter('key', 'mask', ...) (mask: '0' fixed, '1' any)", build_fuzzy,
     NULL},
};

/* "RowFilter, FamilyFilter, ..." into buf. */
static const char *kind_names(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && used < n; i++) {
        int w = snprintf(buf + used, n - used, "%s%s", i ? ", " : "", kinds[i].name);
        used += w > 0 ? (size_t)w : 0;
    }
    return buf;
}

static const filter_kind *find_kind(const parser *p, const token *t)
{
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        if (tok_is_word(p, t, kinds[i].name, false))
            return &kinds[i];
    }
    return NULL;
}

/* ---- grammar ---- */

static int parse_or(parser *p, filter **out);
static int unexpected_after(const parser *p, const char *expected);

static int push_arg(call *c, const token *t)
{
    if (c->nargs == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 8;
        token *a = realloc(c->args, cap * sizeof(*a));
        if (a == NULL)
            return st_error(ST_NOMEM, "filter: out of memory reading arguments of %s", c->name);
        c->args = a;
        c->cap = cap;
    }
    c->args[c->nargs++] = *t;
    return ST_OK;
}

/* Reads "( arg, ... )" after a filter name; the lookahead ends on the ')'. */
static int parse_args(parser *p, call *c)
{
    char buf[64];
    int rc = p->tok.kind == TOK_LPAREN
                 ? advance(p)
                 : perr(ST_INVALID_ARGUMENT, p, p->tok.pos, "expected '(' after %s, got %s",
                        c->name, tok_desc(p, &p->tok, buf, sizeof(buf)));
    if (rc != ST_OK || p->tok.kind == TOK_RPAREN)
        return rc;
    for (;;) {
        tok_kind k = p->tok.kind;
        if (k != TOK_STRING && k != TOK_WORD && k != TOK_OP)
            return perr(ST_INVALID_ARGUMENT, p, p->tok.pos, "expected an argument of %s, got %s",
                        c->name, tok_desc(p, &p->tok, buf, sizeof(buf)));
        if ((rc = push_arg(c, &p->tok)) != ST_OK || (rc = advance(p)) != ST_OK)
            return rc;
        if (p->tok.kind == TOK_RPAREN)
            return ST_OK;
        if (p->tok.kind != TOK_COMMA)
            return perr(ST_INVALID_ARGUMENT, p, p->tok.pos,
                        "expected ',' or ')' in the arguments of %s, got %s", c->name,
                        tok_desc(p, &p->tok, buf, sizeof(buf)));
        if ((rc = advance(p)) != ST_OK)
            return rc;
    }
}

static int parse_call(parser *p, filter **out)
{
    const token name = p->tok;
    call c = {.name_pos = name.pos, .kind = find_kind(p, &name)};
    char names[640];
    if (c.kind == NULL)
        return perr(ST_INVALID_ARGUMENT, p, name.pos, "unknown filter '%.*s' (supported: %s)",
                    (int)(name.len < 40 ? name.len : 40), p->text + name.pos,
                    kind_names(names, sizeof(names)));
    c.name = c.kind->name;
    int rc = advance(p);
    if (rc == ST_OK)
        rc = parse_args(p, &c);
    if (rc == ST_OK)
        rc = c.kind->build(p, &c, out);
    if (rc == ST_OK && (rc = advance(p)) != ST_OK) {
        filter_free(*out);
        *out = NULL;
    }
    free(c.args);
    return rc;
}

static int parse_group(parser *p, filter **out)
{
    size_t open = p->tok.pos;
    if (++p->depth > MAX_DEPTH)
        return perr(ST_INVALID_ARGUMENT, p, open, "parentheses nested deeper than %d", MAX_DEPTH);
    int rc = advance(p);
    if (rc == ST_OK)
        rc = parse_or(p, out);
    if (rc == ST_OK && p->tok.kind == TOK_END)
        rc = perr(ST_INVALID_ARGUMENT, p, p->tok.pos, "missing ')' for the '(' at position %zu",
                  open);
    else if (rc == ST_OK && p->tok.kind != TOK_RPAREN)
        rc = unexpected_after(p, "')'");
    if (rc == ST_OK)
        rc = advance(p);
    if (rc != ST_OK) {
        filter_free(*out);
        *out = NULL;
    }
    p->depth--;
    return rc;
}

static int parse_primary(parser *p, filter **out)
{
    char buf[64];
    const token *t = &p->tok;
    *out = NULL;
    if (t->kind == TOK_LPAREN)
        return parse_group(p, out);
    if (tok_is_word(p, t, "SKIP", true) || tok_is_word(p, t, "WHILE", true))
        return perr(ST_INVALID_ARGUMENT, p, t->pos, "operators are upper case: write %s as %s",
                    tok_desc(p, t, buf, sizeof(buf)), t->len == 4 ? "SKIP" : "WHILE");
    if (tok_is_word(p, t, "AND", true) || tok_is_word(p, t, "OR", true))
        return perr(ST_INVALID_ARGUMENT, p, t->pos, "expected a filter before %s",
                    tok_desc(p, t, buf, sizeof(buf)));
    if (t->kind == TOK_WORD)
        return parse_call(p, out);
    return perr(ST_INVALID_ARGUMENT, p, t->pos, "expected a filter name or '(', got %s",
                tok_desc(p, t, buf, sizeof(buf)));
}

/* unary := ("SKIP" | "WHILE") unary | primary: SKIP and WHILE bind tighter than AND. */
static int parse_unary(parser *p, filter **out)
{
    const token t = p->tok;
    bool skip = tok_is_word(p, &t, "SKIP", false);
    if (!skip && !tok_is_word(p, &t, "WHILE", false))
        return parse_primary(p, out);
    *out = NULL;
    if (p->depth + 1 > MAX_DEPTH)
        return perr(ST_INVALID_ARGUMENT, p, t.pos,
                    "SKIP, WHILE and parentheses nested deeper "
                    "than %d",
                    MAX_DEPTH);
    filter *inner = NULL;
    p->depth++;
    int rc = advance(p);
    if (rc == ST_OK)
        rc = parse_unary(p, &inner);
    p->depth--;
    if (rc != ST_OK)
        return rc;
    *out = skip ? filter_skip_new(inner) : filter_while_new(inner);
    return *out ? ST_OK
                : st_error(ST_NOMEM, "filter: out of memory for %s", skip ? "SKIP" : "WHILE");
}

/* Moves *first into a new list of kind op. */
static int start_list(filter_list_op op, filter **first, filter **list)
{
    *list = filter_list_new(op);
    if (*list == NULL)
        return ST_NOMEM;
    int rc = filter_list_add(*list, *first);
    *first = NULL;
    return rc;
}

/* operand { kw operand }, joined into one list when kw appears. */
static int parse_chain(parser *p, const char *kw, filter_list_op op,
                       int (*operand)(parser *, filter **), filter **out)
{
    filter *first = NULL, *list = NULL;
    int rc = operand(p, &first);
    while (rc == ST_OK && tok_is_word(p, &p->tok, kw, false)) {
        filter *next = NULL;
        rc = advance(p);
        if (rc == ST_OK)
            rc = operand(p, &next);
        if (rc == ST_OK && list == NULL)
            rc = start_list(op, &first, &list);
        if (rc == ST_OK)
            rc = filter_list_add(list, next);
        else
            filter_free(next);
    }
    if (rc != ST_OK) {
        filter_free(first);
        filter_free(list);
        *out = NULL;
        return rc;
    }
    *out = list ? list : first;
    return ST_OK;
}

static int parse_and(parser *p, filter **out)
{
    return parse_chain(p, "AND", FILTER_MUST_PASS_ALL, parse_unary, out);
}

static int parse_or(parser *p, filter **out)
{
    return parse_chain(p, "OR", FILTER_MUST_PASS_ONE, parse_and, out);
}

/* The lookahead cannot follow a complete filter; `expected` says what could. */
static int unexpected_after(const parser *p, const char *expected)
{
    char buf[64];
    const token *t = &p->tok;
    if (tok_is_word(p, t, "AND", true) || tok_is_word(p, t, "OR", true))
        return perr(ST_INVALID_ARGUMENT, p, t->pos, "operators are upper case: write %s as %s",
                    tok_desc(p, t, buf, sizeof(buf)), t->len == 3 ? "AND" : "OR");
    if (tok_is_word(p, t, "SKIP", true) || tok_is_word(p, t, "WHILE", true))
        return perr(ST_INVALID_ARGUMENT, p, t->pos,
                    "unexpected %s after a complete filter (SKIP and WHILE go before the "
                    "filter they wrap; expected AND, OR or %s)",
                    tok_desc(p, t, buf, sizeof(buf)), expected);
    if (t->kind == TOK_RPAREN && strcmp(expected, "the end") == 0)
        return perr(ST_INVALID_ARGUMENT, p, t->pos, "unbalanced ')'");
    return perr(ST_INVALID_ARGUMENT, p, t->pos,
                "unexpected %s after a complete filter (expected AND, OR or %s)",
                tok_desc(p, t, buf, sizeof(buf)), expected);
}

int filter_parse(const char *text, filter **out)
{
    parser p = {.text = text, .len = text ? strlen(text) : 0};
    filter *f = NULL;
    *out = NULL;
    int rc = advance(&p);
    if (rc == ST_OK && p.tok.kind == TOK_END)
        return st_error(ST_INVALID_ARGUMENT, "filter: empty filter string");
    if (rc == ST_OK)
        rc = parse_or(&p, &f);
    if (rc == ST_OK && p.tok.kind != TOK_END) {
        rc = unexpected_after(&p, "the end");
        filter_free(f);
        f = NULL;
    }
    *out = f;
    return rc;
}
