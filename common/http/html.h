/*
 * html.h - writing the status pages (docs/http.md): an HTML document in a buf_t with
 * escaping, byte sizes, the page frame with its style sheet, and HBase's
 * Bytes.toStringBinary for binary row keys.
 *
 *   html_doc d;
 *   html_init(&d, &buf);
 *   html_page_begin(&d, "Strata master");
 *   html_raw(&d, "<h1>"); html_text(&d, name); html_raw(&d, "</h1>");
 *   if (html_page_end(&d) != ST_OK) ... (out of memory somewhere)
 *
 * A failure is sticky: once an append fails, later calls do nothing and html_page_end
 * (or d.rc) returns it.
 * Thread-safety: none beyond the buffer's owner.
 */
#ifndef STRATA_COMMON_HTML_H
#define STRATA_COMMON_HTML_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

typedef struct html_doc {
    buf_t *out;
    int rc; /* ST_OK, or the first failure */
} html_doc;

void html_init(html_doc *d, buf_t *out);
/* Markup as it is. */
void html_raw(html_doc *d, const char *s);
/* printf, as it is (for markup around numbers). */
void html_rawf(html_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Text with '&', '<', '>', '"' and '\'' as character references. NULL writes nothing. */
void html_text(html_doc *d, const char *s);
void html_text_n(html_doc *d, const char *s, size_t n);
/* printf, then escaped as text. */
void html_textf(html_doc *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A byte count for people: "512 B", "1.5 KiB", "3.2 GiB". */
void html_bytes(html_doc *d, uint64_t n);
/* Binary bytes as toStringBinary text, escaped. */
void html_binary(html_doc *d, const uint8_t *p, size_t n);

/* The head of a page (doctype, escaped title, the shared style sheet, <body>) and its
 * end; html_page_end returns d->rc. */
void html_page_begin(html_doc *d, const char *title);
int html_page_end(html_doc *d);

/* Appends HBase's Bytes.toStringBinary of p to b: letters, digits and the printable
 * punctuation ` ~!@#$%^&*()-_=+[]{}|;:'",.<>/?` (space included) as they are, every other
 * byte (backslash included) as \xNN in upper-case hex. Not HTML-escaped. ST_OK or
 * ST_NOMEM. */
int html_string_binary(buf_t *b, const uint8_t *p, size_t n);

#endif
