/*
 * bench_compare.c - `strata bench engine --compare FILE.json`: reads a baseline saved
 * from an earlier `--json` run and prints this run's ops/s against it (bench_compare.h).
 *
 * Each baseline line is parsed as one flat JSON object (RFC 8259 strings with their
 * escapes, numbers, true, false, null; a nested object or array is malformed), which is
 * every line the tool prints. The tree has a JSON writer (common/http/json.c) but no
 * reader outside the tests, hence this small one for exactly that shape. Of the members
 * only workload, engine, ops_per_sec, spread_pct, error and compare are read; the others
 * (ops, seconds, runs, ops_min, ...) are checked for syntax and ignored, so baselines from
 * older and newer versions of the tool parse alike.
 *
 * change_pct = (ops/s now - baseline ops/s) / baseline ops/s * 100; a pair is REGRESSED
 * when change_pct < -spread, spread = max(--spread, the baseline line's spread_pct).
 * Thread-safety: none (one thread reads and reports).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "tools/bench.h"
#include "tools/bench_compare.h"

#define NAME_CAP 32    /* workload and engine names */
#define STRING_CAP 512 /* other strings: only checked, so truncation is harmless */

typedef struct base_entry {
    char workload[NAME_CAP];
    char engine[NAME_CAP];
    double ops_per_sec;
    double spread_pct; /* 0 when the line has none */
} base_entry;

struct bench_baseline {
    char *path;
    base_entry *e;
    size_t n, cap;
};

/* ---- one line as a flat JSON object ---- */

typedef struct jline {
    const char *p;
    const char *err; /* what is wrong; NULL while the line parses */
} jline;

typedef enum jkind { JK_STRING, JK_NUMBER, JK_BOOL, JK_NULL } jkind;

typedef struct jvalue {
    jkind kind;
    char str[STRING_CAP]; /* JK_STRING: decoded, NUL-terminated, truncated at the cap */
    size_t len;           /* JK_STRING: the decoded length, even when truncated */
    double num;
    bool b;
} jvalue;

/* What a baseline line holds. */
typedef struct jfields {
    jvalue workload, engine, ops, spread;
    bool has_workload, has_engine, has_ops, has_spread, has_error, is_compare;
} jfields;

static bool jfail(jline *j, const char *what)
{
    if (j->err == NULL)
        j->err = what;
    return false;
}

static void skip_ws(jline *j)
{
    while (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' || *j->p == '\n')
        j->p++;
}

static void put_byte(jvalue *v, unsigned char c)
{
    if (v->len < sizeof(v->str) - 1)
        v->str[v->len] = (char)c;
    v->len++;
}

/* Appends code point cp as UTF-8. */
static void put_utf8(jvalue *v, uint32_t cp)
{
    if (cp < 0x80) {
        put_byte(v, (unsigned char)cp);
    } else if (cp < 0x800) {
        put_byte(v, (unsigned char)(0xc0 | cp >> 6));
        put_byte(v, (unsigned char)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        put_byte(v, (unsigned char)(0xe0 | cp >> 12));
        put_byte(v, (unsigned char)(0x80 | (cp >> 6 & 0x3f)));
        put_byte(v, (unsigned char)(0x80 | (cp & 0x3f)));
    } else {
        put_byte(v, (unsigned char)(0xf0 | cp >> 18));
        put_byte(v, (unsigned char)(0x80 | (cp >> 12 & 0x3f)));
        put_byte(v, (unsigned char)(0x80 | (cp >> 6 & 0x3f)));
        put_byte(v, (unsigned char)(0x80 | (cp & 0x3f)));
    }
}

static bool hex4(jline *j, uint32_t *out)
{
    uint32_t cp = 0;
    for (int i = 0; i < 4; i++, j->p++) {
        char c = *j->p;
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return jfail(j, "bad \\u escape in a string");
        cp = cp << 4 | (uint32_t)d;
    }
    *out = cp;
    return true;
}

/* \uXXXX (j->p past the 'u'), with a surrogate pair as one code point. */
static bool unicode_escape(jline *j, jvalue *v)
{
    uint32_t hi = 0, lo = 0;
    if (!hex4(j, &hi))
        return false;
    if (hi >= 0xdc00 && hi <= 0xdfff)
        return jfail(j, "lone low surrogate in a string");
    if (hi >= 0xd800 && hi <= 0xdbff) {
        if (j->p[0] != '\\' || j->p[1] != 'u')
            return jfail(j, "lone high surrogate in a string");
        j->p += 2;
        if (!hex4(j, &lo) || lo < 0xdc00 || lo > 0xdfff)
            return jfail(j, "bad surrogate pair in a string");
        hi = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
    }
    put_utf8(v, hi);
    return true;
}

static bool parse_escape(jline *j, jvalue *v)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *k = *j->p != '\0' ? strchr(from, *j->p) : NULL;
    if (*j->p == 'u') {
        j->p++;
        return unicode_escape(j, v);
    }
    if (k == NULL)
        return jfail(j, "bad escape in a string");
    put_byte(v, (unsigned char)to[k - from]);
    j->p++;
    return true;
}

/* A string at j->p (its opening quote) into v. */
static bool parse_string(jline *j, jvalue *v)
{
    v->kind = JK_STRING;
    v->len = 0;
    if (*j->p != '"')
        return jfail(j, "expected a string");
    for (j->p++; *j->p != '"';) {
        unsigned char c = (unsigned char)*j->p;
        if (c == '\0')
            return jfail(j, "unterminated string");
        if (c < 0x20)
            return jfail(j, "control character in a string");
        if (c == '\\') {
            j->p++;
            if (!parse_escape(j, v))
                return false;
            continue;
        }
        put_byte(v, c);
        j->p++;
    }
    j->p++;
    v->str[v->len < sizeof(v->str) ? v->len : sizeof(v->str) - 1] = '\0';
    return true;
}

static void skip_digits(jline *j)
{
    while (*j->p >= '0' && *j->p <= '9')
        j->p++;
}

/* A number in JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool parse_number(jline *j, jvalue *v)
{
    const char *start = j->p;
    if (*j->p != '-' && !(*j->p >= '0' && *j->p <= '9'))
        return jfail(j, "expected a value (string, number, true, false or null)");
    j->p += *j->p == '-';
    bool ok = *j->p >= '0' && *j->p <= '9';
    if (*j->p == '0')
        j->p++;
    else
        skip_digits(j);
    if (ok && *j->p == '.') {
        j->p++;
        ok = *j->p >= '0' && *j->p <= '9';
        skip_digits(j);
    }
    if (ok && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        j->p += *j->p == '+' || *j->p == '-';
        ok = *j->p >= '0' && *j->p <= '9';
        skip_digits(j);
    }
    v->kind = JK_NUMBER;
    v->num = ok ? strtod(start, NULL) : 0;
    if (!ok || !isfinite(v->num))
        return jfail(j, "bad number");
    return true;
}

static bool parse_word(jline *j, const char *word)
{
    size_t n = strlen(word);
    if (strncmp(j->p, word, n) != 0)
        return jfail(j, "expected a value (string, number, true, false or null)");
    j->p += n;
    return true;
}

static bool parse_value(jline *j, jvalue *v)
{
    memset(v, 0, sizeof(*v));
    switch (*j->p) {
    case '"':
        return parse_string(j, v);
    case 't':
        v->kind = JK_BOOL;
        v->b = true;
        return parse_word(j, "true");
    case 'f':
        v->kind = JK_BOOL;
        return parse_word(j, "false");
    case 'n':
        v->kind = JK_NULL;
        return parse_word(j, "null");
    case '{':
    case '[':
        return jfail(j, "nested object or array (a baseline line is one flat object)");
    default:
        return parse_number(j, v);
    }
}

/* Records member name=v in f if it is one the comparison reads; the kinds are checked
 * once the line is known to be a result (a comparison line has "spread_pct":null). */
static bool take_member(jline *j, const char *name, const jvalue *v, jfields *f)
{
    struct {
        const char *name;
        jvalue *dst;
        bool *has;
    } wanted[] = {
        {"workload", &f->workload, &f->has_workload},
        {"engine", &f->engine, &f->has_engine},
        {"ops_per_sec", &f->ops, &f->has_ops},
        {"spread_pct", &f->spread, &f->has_spread},
    };
    if (strcmp(name, "error") == 0)
        f->has_error = true;
    if (strcmp(name, "compare") == 0)
        f->is_compare = v->kind == JK_BOOL && v->b;
    for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++) {
        if (strcmp(name, wanted[i].name) != 0)
            continue;
        if (*wanted[i].has)
            return jfail(j, "a member appears twice");
        *wanted[i].dst = *v;
        *wanted[i].has = true;
    }
    return true;
}

static bool parse_member(jline *j, jfields *f)
{
    jvalue name, v;
    if (!parse_string(j, &name))
        return false;
    skip_ws(j);
    if (*j->p != ':')
        return jfail(j, "expected ':' after a member name");
    j->p++;
    skip_ws(j);
    return parse_value(j, &v) && take_member(j, name.str, &v, f);
}

/* The line as one flat object; j->err says what is wrong when it returns false. */
static bool parse_object(jline *j, jfields *f)
{
    memset(f, 0, sizeof(*f));
    skip_ws(j);
    if (*j->p != '{')
        return jfail(j, "not a JSON object (a baseline is `strata bench engine --json` output)");
    j->p++;
    skip_ws(j);
    for (bool first = true; *j->p != '}'; first = false) {
        if (!first && *j->p != ',')
            return jfail(j, "expected ',' or '}' after a member");
        j->p += !first;
        skip_ws(j);
        if (!parse_member(j, f))
            return false;
        skip_ws(j);
    }
    j->p++;
    skip_ws(j);
    return *j->p == '\0' || jfail(j, "text after the object");
}

/* ---- the baseline file ---- */

static int line_error(const char *path, size_t lineno, const char *what)
{
    return st_error(ST_INVALID_ARGUMENT, "baseline %s:%zu: %s", path, lineno, what);
}

static const base_entry *find_entry(const bench_baseline *b, const char *w, const char *e)
{
    for (size_t i = 0; i < b->n; i++)
        if (strcmp(b->e[i].workload, w) == 0 && strcmp(b->e[i].engine, e) == 0)
            return &b->e[i];
    return NULL;
}

/* Checks the fields of a result line and appends its entry. */
static int add_entry(bench_baseline *b, const jfields *f, size_t lineno)
{
    if (!f->has_workload || !f->has_engine || !f->has_ops)
        return line_error(b->path, lineno, "needs \"workload\", \"engine\" and \"ops_per_sec\"");
    if (f->workload.kind != JK_STRING || f->engine.kind != JK_STRING)
        return line_error(b->path, lineno, "workload and engine must be strings");
    if (f->ops.kind != JK_NUMBER || (f->has_spread && f->spread.kind != JK_NUMBER))
        return line_error(b->path, lineno, "ops_per_sec and spread_pct must be numbers");
    if (f->workload.len == 0 || f->workload.len >= NAME_CAP || f->engine.len == 0 ||
        f->engine.len >= NAME_CAP)
        return line_error(b->path, lineno, "workload or engine name empty or too long");
    if (f->ops.num < 0 || (f->has_spread && f->spread.num < 0))
        return line_error(b->path, lineno, "negative ops_per_sec or spread_pct");
    if (find_entry(b, f->workload.str, f->engine.str) != NULL)
        return line_error(b->path, lineno, "a second line for the same workload and engine");
    if (b->n == b->cap) {
        size_t cap = b->cap > 0 ? 2 * b->cap : 16;
        base_entry *e = realloc(b->e, cap * sizeof(*e));
        if (e == NULL)
            return st_error(ST_NOMEM, "baseline %s: out of memory", b->path);
        b->e = e;
        b->cap = cap;
    }
    base_entry *e = &b->e[b->n++];
    memcpy(e->workload, f->workload.str, f->workload.len + 1); /* lengths checked above */
    memcpy(e->engine, f->engine.str, f->engine.len + 1);
    e->ops_per_sec = f->ops.num;
    e->spread_pct = f->has_spread ? f->spread.num : 0.0;
    return ST_OK;
}

static int parse_line(bench_baseline *b, const char *text, size_t lineno)
{
    jfields f;
    jline j = {text, NULL};
    if (strspn(text, " \t\r\n") == strlen(text))
        return ST_OK; /* blank */
    if (!parse_object(&j, &f))
        return line_error(b->path, lineno, j.err);
    if (f.has_error || f.is_compare)
        return ST_OK; /* a failed workload, or a comparison line */
    return add_entry(b, &f, lineno);
}

static int read_lines(bench_baseline *b, FILE *f)
{
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    int rc = ST_OK;
    ssize_t n = 0;
    while (rc == ST_OK && (n = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if ((size_t)n != strlen(line))
            rc = line_error(b->path, lineno, "NUL byte in the line");
        else
            rc = parse_line(b, line, lineno);
    }
    if (rc == ST_OK && ferror(f))
        rc = st_error(ST_IO, "baseline %s: read: %s", b->path, strerror(errno));
    if (rc == ST_OK && b->n == 0)
        rc = st_error(ST_INVALID_ARGUMENT, "baseline %s: no results in it (%zu lines)", b->path,
                      lineno);
    free(line);
    return rc;
}

int bench_compare_load(const char *path, bench_baseline **out)
{
    bench_baseline *b = calloc(1, sizeof(*b));
    FILE *f = NULL;
    int rc = ST_OK;
    *out = NULL;
    if (b == NULL || (b->path = strdup(path)) == NULL) {
        rc = st_error(ST_NOMEM, "baseline %s: out of memory", path);
        goto out;
    }
    f = fopen(path, "r");
    if (f == NULL) {
        rc = st_error(ST_IO, "baseline %s: %s", path, strerror(errno));
        goto out;
    }
    rc = read_lines(b, f);
out:
    if (f != NULL)
        fclose(f);
    if (rc != ST_OK)
        bench_compare_free(b);
    else
        *out = b;
    return rc;
}

void bench_compare_free(bench_baseline *b)
{
    if (b == NULL)
        return;
    free(b->e);
    free(b->path);
    free(b);
}

/* ---- the comparison ---- */

typedef enum verdict { V_OK, V_REGRESSED, V_FAILED, V_NEW, V_NOT_RUN } verdict;

static const char *const verdict_names[] = {"ok", "REGRESSED", "failed", "new", "not run"};

/* One line of the comparison; base or row may be NULL (not run / new). */
typedef struct pair {
    const char *workload, *engine;
    const base_entry *base;
    const bench_compare_row *row;
    double spread_pct; /* the threshold used */
    double change_pct;
    bool has_change;
    verdict v;
} pair;

static pair judge(const base_entry *base, const bench_compare_row *row, double spread_pct)
{
    pair p = {.base = base, .row = row, .spread_pct = spread_pct};
    p.workload = row != NULL ? row->workload : base->workload;
    p.engine = row != NULL ? row->engine : base->engine;
    if (base != NULL && base->spread_pct > p.spread_pct)
        p.spread_pct = base->spread_pct;
    if (base == NULL) {
        p.v = V_NEW;
    } else if (row == NULL) {
        p.v = V_NOT_RUN;
    } else if (!row->ok) {
        p.v = V_FAILED;
    } else {
        p.has_change = base->ops_per_sec > 0;
        p.change_pct =
            p.has_change ? (row->ops_per_sec - base->ops_per_sec) / base->ops_per_sec * 100.0 : 0.0;
        p.v = p.has_change && p.change_pct < -p.spread_pct ? V_REGRESSED : V_OK;
    }
    return p;
}

static void json_num_or_null(const char *key, bool has, double v, const char *fmt)
{
    printf(",\"%s\":", key);
    if (has)
        printf(fmt, v);
    else
        printf("null");
}

static void print_json(const pair *p)
{
    bool has_now = p->row != NULL && p->row->ok;
    printf("{\"compare\":true,\"workload\":");
    bench_json_string(p->workload);
    printf(",\"engine\":");
    bench_json_string(p->engine);
    json_num_or_null("baseline_ops", p->base != NULL, p->base ? p->base->ops_per_sec : 0, "%.1f");
    json_num_or_null("ops", has_now, has_now ? p->row->ops_per_sec : 0, "%.1f");
    json_num_or_null("change_pct", p->has_change, p->change_pct, "%.2f");
    json_num_or_null("spread_pct", p->base != NULL && p->row != NULL, p->spread_pct, "%.2f");
    printf(",\"regressed\":%s,\"status\":", p->v == V_REGRESSED ? "true" : "false");
    bench_json_string(verdict_names[p->v]);
    printf("}\n");
}

static void print_row(const pair *p)
{
    char base[32] = "-", now[32] = "-", change[32] = "-", spread[32] = "-";
    if (p->base != NULL)
        snprintf(base, sizeof(base), "%.1f", p->base->ops_per_sec);
    if (p->row != NULL && p->row->ok)
        snprintf(now, sizeof(now), "%.1f", p->row->ops_per_sec);
    if (p->has_change)
        snprintf(change, sizeof(change), "%+.1f%%", p->change_pct);
    if (p->base != NULL && p->row != NULL)
        snprintf(spread, sizeof(spread), "±%.1f%%", p->spread_pct);
    /* '±' is two bytes: a 9-byte field is 8 columns, as in the header */
    printf("  %-12s %-8s %15s %15s %9s %*s  %s\n", p->workload, p->engine, base, now, change,
           p->base != NULL && p->row != NULL ? 9 : 8, spread, verdict_names[p->v]);
}

static void print_pair(const pair *p, bool json, size_t *count)
{
    count[p->v]++;
    if (json)
        print_json(p);
    else
        print_row(p);
}

size_t bench_compare_report(const bench_baseline *b, const bench_compare_row *rows, size_t n,
                            double spread_pct, bool json)
{
    size_t count[V_NOT_RUN + 1] = {0};
    if (!json) {
        printf("\ncompared with baseline %s\n  REGRESSED: ops/s fell by more than the spread, "
               "--spread %.1f%% or the baseline line's spread_pct if larger\n",
               b->path, spread_pct);
        printf("  %-12s %-8s %15s %15s %9s %8s  %s\n", "workload", "engine", "baseline ops/s",
               "ops/s", "change", "spread", "verdict");
    }
    for (size_t i = 0; i < n; i++) {
        pair p = judge(find_entry(b, rows[i].workload, rows[i].engine), &rows[i], spread_pct);
        print_pair(&p, json, count);
    }
    for (size_t i = 0; i < b->n; i++) {
        bool ran = false;
        for (size_t k = 0; k < n && !ran; k++)
            ran = strcmp(rows[k].workload, b->e[i].workload) == 0 &&
                  strcmp(rows[k].engine, b->e[i].engine) == 0;
        if (!ran) {
            pair p = judge(&b->e[i], NULL, spread_pct);
            print_pair(&p, json, count);
        }
    }
    if (!json)
        printf("compare: %zu regressed, %zu failed, %zu ok; %zu not run, %zu new\n",
               count[V_REGRESSED], count[V_FAILED], count[V_OK], count[V_NOT_RUN], count[V_NEW]);
    fflush(stdout);
    return count[V_REGRESSED] + count[V_FAILED];
}
