/*
 * shell_format.c - results in the layout of HBase's shell formatter (rows, headers,
 * footers), HBase's human-readable TTL, and binary-safe printing.
 *
 * Not a terminal (width 0): header "c1  c2", row " c1 c2", one-column rows as is. On a
 * terminal of W columns: column 1 padded to W/4, column 2 to W - W/4 - 2, both cut into
 * pieces of that width printed side by side on as many lines as needed.
 *
 * Thread-safety: a session belongs to one thread.
 */
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "shell/shell_internal.h"

/* Prints piece k (of width w) of str, padded to w; the whole string when w is 0. */
static void piece(FILE *out, const char *str, size_t k, int w)
{
    size_t len = strlen(str);
    if (w <= 0) {
        if (k == 0)
            fputs(str, out);
        return;
    }
    size_t off = k * (size_t)w;
    size_t n = off < len ? len - off : 0;
    if (n > (size_t)w)
        n = (size_t)w;
    fprintf(out, "%-*.*s", w, (int)n, off < len ? str + off : "");
}

static size_t pieces(const char *str, int w)
{
    size_t len = strlen(str);
    if (w <= 0 || len == 0)
        return 1;
    return (len + (size_t)w - 1) / (size_t)w;
}

static void two_columns(shell_session *s, const char *c1, const char *c2, bool inset)
{
    int w1 = s->width > 0 ? s->width / 4 : 0;
    int w2 = s->width > 0 ? s->width - w1 - 2 : 0;
    size_t n1 = pieces(c1, w1), n2 = pieces(c2, w2);
    size_t n = n1 > n2 ? n1 : n2;
    for (size_t k = 0; k < n; k++) {
        if (inset)
            fputc(' ', s->out);
        piece(s->out, c1, k, w1);
        fputs(inset ? " " : "  ", s->out);
        piece(s->out, c2, k, w2);
        fputc('\n', s->out);
    }
}

void shell_header(shell_session *s, const char *c1, const char *c2)
{
    if (c2)
        two_columns(s, c1, c2, false);
    else if (c1)
        shell_row1(s, c1);
    s->rows = 0;
}

void shell_row1(shell_session *s, const char *text)
{
    size_t n = pieces(text, s->width);
    for (size_t k = 0; k < n; k++) {
        piece(s->out, text, k, s->width);
        fputc('\n', s->out);
    }
    s->rows++;
}

void shell_row2(shell_session *s, const char *c1, const char *c2)
{
    two_columns(s, c1, c2, true);
    s->rows++;
}

void shell_footer(shell_session *s, long rows)
{
    fprintf(s->out, "%ld row(s)\n", rows >= 0 ? rows : (long)s->rows);
}

static void unit(char *out, size_t cap, size_t *at, long n, const char *name)
{
    if (n <= 0 || *at >= cap)
        return;
    *at += (size_t)snprintf(out + *at, cap - *at, "%s%ld %s%s", out[*at - 1] == '(' ? "" : " ", n,
                            name, n == 1 ? "" : "S");
}

void shell_ttl_string(int64_t ttl, char *out, size_t cap)
{
    if (ttl <= 0 || ttl >= INT32_MAX) {
        snprintf(out, cap, "FOREVER");
        return;
    }
    if (ttl < 60) {
        snprintf(out, cap, "%lld SECOND%s", (long long)ttl, ttl == 1 ? "" : "S");
        return;
    }
    size_t at = (size_t)snprintf(out, cap, "%lld SECONDS (", (long long)ttl);
    unit(out, cap, &at, (long)(ttl / 86400), "DAY");
    unit(out, cap, &at, (long)(ttl % 86400 / 3600), "HOUR");
    unit(out, cap, &at, (long)(ttl % 3600 / 60), "MINUTE");
    unit(out, cap, &at, (long)(ttl % 60), "SECOND");
    if (at < cap)
        snprintf(out + at, cap - at, ")");
}

char *shell_binary(const void *data, size_t len)
{
    buf_t b = {0};
    if (shell_escape_binary(&b, data, len) != ST_OK) {
        buf_free(&b);
        return NULL;
    }
    return (char *)b.data ? (char *)b.data : strdup("");
}
