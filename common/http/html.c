/*
 * html.c - the HTML document writer of html.h: escaping, sizes, the page frame and
 * toStringBinary.
 *
 * Thread-safety: none beyond the buffer's owner.
 */
#include "common/http/html.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"

void html_init(html_doc *d, buf_t *out)
{
    d->out = out;
    d->rc = ST_OK;
}

static void put(html_doc *d, const void *p, size_t n)
{
    if (d->rc == ST_OK && n && buf_append(d->out, p, n) != ST_OK)
        d->rc = ST_NOMEM;
}

void html_raw(html_doc *d, const char *s)
{
    if (s)
        put(d, s, strlen(s));
}

void html_text_n(html_doc *d, const char *s, size_t n)
{
    size_t run = 0; /* bytes before i needing no escape, not yet written */
    for (size_t i = 0; i < n; i++) {
        const char *ref = NULL;
        switch (s[i]) {
        case '&': ref = "&amp;"; break;
        case '<': ref = "&lt;"; break;
        case '>': ref = "&gt;"; break;
        case '"': ref = "&quot;"; break;
        case '\'': ref = "&#39;"; break;
        default: break;
        }
        if (!ref) {
            run++;
            continue;
        }
        put(d, s + i - run, run);
        run = 0;
        put(d, ref, strlen(ref));
    }
    put(d, s + n - run, run);
}

void html_text(html_doc *d, const char *s)
{
    if (s)
        html_text_n(d, s, strlen(s));
}

/* vsnprintf into a malloc'ed string (NULL on failure, d->rc set). */
static char *format(html_doc *d, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s)
        vsnprintf(s, (size_t)n + 1, fmt, again);
    else if (d->rc == ST_OK)
        d->rc = n < 0 ? ST_INVALID_ARGUMENT : ST_NOMEM;
    va_end(again);
    return s;
}

void html_rawf(html_doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = format(d, fmt, ap);
    va_end(ap);
    html_raw(d, s);
    free(s);
}

void html_textf(html_doc *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = format(d, fmt, ap);
    va_end(ap);
    html_text(d, s);
    free(s);
}

void html_bytes(html_doc *d, uint64_t n)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    char t[32];
    if (n < 1024) {
        snprintf(t, sizeof(t), "%llu B", (unsigned long long)n);
    } else {
        double v = (double)n;
        size_t u = 0;
        while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
            v /= 1024;
            u++;
        }
        snprintf(t, sizeof(t), "%.1f %s", v, units[u]);
    }
    html_raw(d, t);
}

void html_binary(html_doc *d, const uint8_t *p, size_t n)
{
    buf_t t = {0};
    if (d->rc == ST_OK && html_string_binary(&t, p, n) != ST_OK)
        d->rc = ST_NOMEM;
    if (t.len)
        html_text_n(d, (const char *)t.data, t.len);
    buf_free(&t);
}

static const char page_style[] =
    "body{font-family:sans-serif;margin:1.5em;color:#222}"
    "h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}"
    "table{border-collapse:collapse;margin:.4em 0}"
    "th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left;vertical-align:top}"
    "th{background:#eee}td.n{text-align:right;font-variant-numeric:tabular-nums}"
    ".key{font-family:monospace}.ok{color:#070}.bad{color:#b00}.muted{color:#777}"
    ".bar{display:flex;height:1.1em;min-width:1px}.bar span{display:block;height:100%}"
    ".legend span{display:inline-block;width:.9em;height:.9em;margin:0 .3em 0 1em;"
    "vertical-align:middle}";

void html_page_begin(html_doc *d, const char *title)
{
    html_raw(d, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
    html_text(d, title);
    html_raw(d, "</title><style>");
    html_raw(d, page_style);
    html_raw(d, "</style></head>\n<body>\n");
}

int html_page_end(html_doc *d)
{
    html_raw(d, "</body></html>\n");
    return d->rc;
}

static bool binary_plain(uint8_t c)
{
    static const char punct[] = " `~!@#$%^&*()-_=+[]{}|;:'\",.<>/?";
    if ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))
        return true;
    return c != 0 && memchr(punct, c, sizeof(punct) - 1) != NULL;
}

int html_string_binary(buf_t *b, const uint8_t *p, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    int rc = ST_OK;
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        if (binary_plain(p[i])) {
            rc = buf_append(b, &p[i], 1);
        } else {
            char e[4] = {'\\', 'x', hex[p[i] >> 4], hex[p[i] & 15]};
            rc = buf_append(b, e, 4);
        }
    }
    return rc;
}
