/*
 * xml.c - the XML parser and escaping of xml.h.
 *
 * A recursive-descent parser over the text with a cursor: prolog (declaration, comments,
 * processing instructions, whitespace), the root element, then trailing misc. Each
 * element is a malloc'ed xml_node; its text accumulates in a buf_t. Errors free the
 * partial tree and name the position (line and column from 1, offset from 0).
 * Thread-safety: reentrant.
 */
#include "common/http/xml.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "common/status.h"

typedef struct xparser {
    const char *t;
    size_t len;
    size_t pos;
    int depth;
} xparser;

static int xerr(const xparser *p, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int xerr(const xparser *p, size_t at, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    size_t line, col;
    text_line_col(p->t, p->len, at, &line, &col);
    return st_error(ST_INVALID_ARGUMENT, "XML: %s at line %zu, column %zu (offset %zu)", what,
                    line, col, at);
}

static int nomem(void)
{
    return st_error(ST_NOMEM, "XML: out of memory");
}

static bool starts(const xparser *p, const char *s)
{
    size_t n = strlen(s);
    return p->len - p->pos >= n && memcmp(p->t + p->pos, s, n) == 0;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void skip_ws(xparser *p)
{
    while (p->pos < p->len && is_space(p->t[p->pos]))
        p->pos++;
}

static bool name_start(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c == ':' || c >= 0x80;
}

static bool name_char(unsigned char c)
{
    return name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

static size_t char_len(const xparser *p, size_t at);

static int parse_name(xparser *p, char **out)
{
    size_t s = p->pos;
    if (s >= p->len || !name_start((unsigned char)p->t[s]))
        return xerr(p, s, "expected a name");
    while (p->pos < p->len && name_char((unsigned char)p->t[p->pos])) {
        /* bytes >= 0x80 are name characters only as valid UTF-8 */
        size_t n = (unsigned char)p->t[p->pos] < 0x80 ? 1 : char_len(p, p->pos);
        if (n == 0)
            return xerr(p, p->pos, "a byte that is not valid UTF-8 in a name");
        p->pos += n;
    }
    *out = strndup(p->t + s, p->pos - s);
    return *out ? ST_OK : nomem();
}

/* Checks one UTF-8 character of a text at p->pos (a byte >= 0x80 or a control byte):
 * its length, or 0 for one XML forbids. */
static size_t char_len(const xparser *p, size_t at)
{
    const uint8_t *s = (const uint8_t *)p->t + at;
    if (s[0] < 0x80)
        return (s[0] >= 0x20 || s[0] == '\t' || s[0] == '\n' || s[0] == '\r') ? 1 : 0;
    uint32_t cp;
    size_t n = text_utf8_decode(s, p->len - at, &cp);
    return (n == 0 || cp == 0xfffe || cp == 0xffff) ? 0 : n;
}

static int put_utf8(buf_t *b, unsigned cp)
{
    uint8_t u[4];
    size_t n = text_utf8_encode(cp, u);
    return buf_append(b, u, n) == ST_OK ? ST_OK : nomem();
}

/* An entity or character reference at p->pos ('&'), appended decoded to b. */
static int parse_reference(xparser *p, buf_t *b)
{
    size_t at = p->pos;
    size_t end = at + 1;
    while (end < p->len && end - at < 16 && p->t[end] != ';')
        end++;
    if (end >= p->len || p->t[end] != ';')
        return xerr(p, at, "'&' must start a reference ending in ';' (write &amp;)");
    const char *r = p->t + at + 1;
    size_t rl = end - at - 1;
    static const struct {
        const char *name;
        char c;
    } predefined[] = {{"lt", '<'}, {"gt", '>'}, {"amp", '&'}, {"quot", '"'}, {"apos", '\''}};
    for (size_t i = 0; i < sizeof(predefined) / sizeof(predefined[0]); i++)
        if (strlen(predefined[i].name) == rl && memcmp(r, predefined[i].name, rl) == 0) {
            p->pos = end + 1;
            return buf_append_u8(b, (uint8_t)predefined[i].c) == ST_OK ? ST_OK : nomem();
        }
    if (rl >= 2 && r[0] == '#') {
        unsigned long cp = 0;
        bool hex = r[1] == 'x';
        size_t i = hex ? 2 : 1;
        if (i >= rl)
            return xerr(p, at, "an empty character reference");
        for (; i < rl; i++) {
            char c = r[i];
            unsigned d;
            if (c >= '0' && c <= '9')
                d = (unsigned)(c - '0');
            else if (hex && c >= 'a' && c <= 'f')
                d = (unsigned)(c - 'a' + 10);
            else if (hex && c >= 'A' && c <= 'F')
                d = (unsigned)(c - 'A' + 10);
            else
                return xerr(p, at, "a malformed character reference");
            cp = cp * (hex ? 16 : 10) + d;
            if (cp > 0x10ffff)
                return xerr(p, at, "a character reference beyond U+10FFFF");
        }
        bool ok = cp == 0x9 || cp == 0xa || cp == 0xd || (cp >= 0x20 && cp <= 0xd7ff) ||
                  (cp >= 0xe000 && cp <= 0xfffd) || cp >= 0x10000;
        if (!ok)
            return xerr(p, at, "character reference to U+%04lX, which XML forbids", cp);
        p->pos = end + 1;
        return put_utf8(b, (unsigned)cp);
    }
    return xerr(p, at, "unknown entity '&%.*s;' (only the five predefined ones are accepted)",
                (int)rl, r);
}

static int skip_comment(xparser *p)
{
    size_t at = p->pos;
    const char *end = memmem(p->t + p->pos + 4, p->len - p->pos - 4, "-->", 3);
    if (!end)
        return xerr(p, at, "unterminated comment");
    p->pos = (size_t)(end - p->t) + 3;
    return ST_OK;
}

static int skip_pi(xparser *p)
{
    size_t at = p->pos;
    const char *end = memmem(p->t + p->pos + 2, p->len - p->pos - 2, "?>", 2);
    if (!end)
        return xerr(p, at, "unterminated processing instruction");
    p->pos = (size_t)(end - p->t) + 2;
    return ST_OK;
}

/* Comments, processing instructions and whitespace between elements. */
static int skip_misc(xparser *p)
{
    for (;;) {
        skip_ws(p);
        int rc = ST_OK;
        if (starts(p, "<!--"))
            rc = skip_comment(p);
        else if (starts(p, "<?"))
            rc = skip_pi(p);
        else if (starts(p, "<!DOCTYPE") || starts(p, "<!doctype"))
            return xerr(p, p->pos, "a DOCTYPE is not accepted");
        else
            return ST_OK;
        if (rc != ST_OK)
            return rc;
    }
}

static void free_attrs(char **names, char **values, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(names[i]);
        free(values[i]);
    }
}

static int parse_attr_value(xparser *p, char **out)
{
    if (p->pos >= p->len || (p->t[p->pos] != '"' && p->t[p->pos] != '\''))
        return xerr(p, p->pos, "an attribute value must be quoted");
    char q = p->t[p->pos];
    size_t open = p->pos++;
    buf_t b = {0};
    int rc = ST_OK;
    for (;;) {
        if (p->pos >= p->len) {
            rc = xerr(p, open, "unterminated attribute value");
            break;
        }
        char c = p->t[p->pos];
        if (c == q) {
            p->pos++;
            break;
        }
        if (c == '<') {
            rc = xerr(p, p->pos, "'<' inside an attribute value (write &lt;)");
            break;
        }
        if (c == '&') {
            rc = parse_reference(p, &b);
            if (rc != ST_OK)
                break;
            continue;
        }
        size_t n = char_len(p, p->pos);
        if (n == 0) {
            rc = xerr(p, p->pos, "a byte that is not valid UTF-8 or a character XML allows");
            break;
        }
        /* attribute-value normalization: whitespace characters become spaces */
        if (n == 1 && is_space(c))
            rc = buf_append_u8(&b, ' ') == ST_OK ? ST_OK : nomem();
        else
            rc = buf_append(&b, p->t + p->pos, n) == ST_OK ? ST_OK : nomem();
        if (rc != ST_OK)
            break;
        p->pos += n;
    }
    if (rc == ST_OK && buf_append_u8(&b, 0) != ST_OK)
        rc = nomem();
    if (rc != ST_OK) {
        buf_free(&b);
        return rc;
    }
    *out = (char *)b.data;
    return ST_OK;
}

static int add_attr(xparser *p, xml_node *n, size_t *cap, size_t at)
{
    char *name = NULL, *value = NULL;
    int rc = parse_name(p, &name);
    if (rc != ST_OK)
        return rc;
    for (size_t i = 0; i < n->nattrs; i++)
        if (strcmp(n->attr_names[i], name) == 0) {
            rc = xerr(p, at, "attribute '%s' appears twice", name);
            free(name);
            return rc;
        }
    skip_ws(p);
    if (p->pos >= p->len || p->t[p->pos] != '=') {
        rc = xerr(p, p->pos, "expected '=' after attribute '%s'", name);
        free(name);
        return rc;
    }
    p->pos++;
    skip_ws(p);
    rc = parse_attr_value(p, &value);
    if (rc != ST_OK) {
        free(name);
        return rc;
    }
    if (n->nattrs == *cap) {
        size_t nc = *cap ? *cap * 2 : 4;
        char **names = realloc(n->attr_names, nc * sizeof(*names));
        if (names)
            n->attr_names = names;
        char **values = names ? realloc(n->attr_values, nc * sizeof(*values)) : NULL;
        if (values)
            n->attr_values = values;
        if (!names || !values) {
            free(name);
            free(value);
            return nomem();
        }
        *cap = nc;
    }
    n->attr_names[n->nattrs] = name;
    n->attr_values[n->nattrs] = value;
    n->nattrs++;
    return ST_OK;
}

static int parse_element(xparser *p, xml_node **out);

static int add_child(xml_node *n, size_t *cap, xml_node *child)
{
    if (n->nchildren == *cap) {
        size_t nc = *cap ? *cap * 2 : 4;
        xml_node **v = realloc(n->children, nc * sizeof(*v));
        if (!v)
            return nomem();
        n->children = v;
        *cap = nc;
    }
    n->children[n->nchildren++] = child;
    return ST_OK;
}

/* The content of n up to and including its end tag. */
static int parse_content(xparser *p, xml_node *n, size_t open)
{
    buf_t text = {0};
    size_t cap = 0;
    int rc = ST_OK;
    for (;;) {
        if (p->pos >= p->len) {
            rc = xerr(p, open, "element <%s> is not closed", n->name);
            break;
        }
        char c = p->t[p->pos];
        if (c == '<') {
            if (starts(p, "</")) {
                size_t at = p->pos;
                p->pos += 2;
                char *name = NULL;
                rc = parse_name(p, &name);
                if (rc != ST_OK)
                    break;
                bool same = strcmp(name, n->name) == 0;
                free(name);
                skip_ws(p);
                if (!same || p->pos >= p->len || p->t[p->pos] != '>') {
                    rc = xerr(p, at, "expected </%s>", n->name);
                    break;
                }
                p->pos++;
                break;
            }
            if (starts(p, "<!--")) {
                rc = skip_comment(p);
            } else if (starts(p, "<![CDATA[")) {
                size_t at = p->pos;
                const char *end = memmem(p->t + p->pos + 9, p->len - p->pos - 9, "]]>", 3);
                if (!end) {
                    rc = xerr(p, at, "unterminated CDATA section");
                    break;
                }
                for (size_t i = p->pos + 9; rc == ST_OK && i < (size_t)(end - p->t);) {
                    size_t cl = char_len(p, i);
                    if (cl == 0)
                        rc = xerr(p, i, "a byte that is not valid UTF-8 or a character XML "
                                        "allows");
                    i += cl ? cl : 1;
                }
                if (rc == ST_OK && buf_append(&text, p->t + p->pos + 9,
                                              (size_t)(end - p->t) - p->pos - 9) != ST_OK)
                    rc = nomem();
                p->pos = (size_t)(end - p->t) + 3;
            } else if (starts(p, "<?")) {
                rc = skip_pi(p);
            } else if (starts(p, "<!")) {
                rc = xerr(p, p->pos, "a declaration is not accepted inside an element");
            } else {
                xml_node *child = NULL;
                rc = parse_element(p, &child);
                if (rc == ST_OK) {
                    rc = add_child(n, &cap, child);
                    if (rc != ST_OK)
                        xml_node_free(child);
                }
            }
        } else if (c == '&') {
            rc = parse_reference(p, &text);
        } else {
            size_t cl = char_len(p, p->pos);
            if (cl == 0)
                rc = xerr(p, p->pos, "a byte that is not valid UTF-8 or a character XML allows");
            else if (buf_append(&text, p->t + p->pos, cl) != ST_OK)
                rc = nomem();
            p->pos += cl;
        }
        if (rc != ST_OK)
            break;
    }
    if (rc == ST_OK && buf_append_u8(&text, 0) != ST_OK)
        rc = nomem();
    if (rc != ST_OK) {
        buf_free(&text);
        return rc;
    }
    n->text = (char *)text.data;
    n->text_len = text.len - 1;
    return ST_OK;
}

static int parse_element(xparser *p, xml_node **out)
{
    *out = NULL;
    size_t open = p->pos;
    if (p->depth >= XML_MAX_DEPTH)
        return xerr(p, open, "nesting deeper than %d", XML_MAX_DEPTH);
    p->pos++; /* '<' */
    xml_node *n = calloc(1, sizeof(*n));
    if (!n)
        return nomem();
    int rc = parse_name(p, &n->name);
    size_t cap = 0;
    while (rc == ST_OK) {
        size_t before = p->pos;
        skip_ws(p);
        if (p->pos >= p->len) {
            rc = xerr(p, open, "unterminated start tag <%s", n->name);
        } else if (starts(p, "/>")) {
            p->pos += 2;
            break;
        } else if (p->t[p->pos] == '>') {
            p->pos++;
            p->depth++;
            rc = parse_content(p, n, open);
            p->depth--;
            break;
        } else if (before == p->pos) {
            rc = xerr(p, p->pos, "expected whitespace, '>' or '/>' in <%s>", n->name);
        } else {
            rc = add_attr(p, n, &cap, p->pos);
        }
    }
    if (rc == ST_OK && !n->text) {
        n->text = strdup("");
        if (!n->text)
            rc = nomem();
    }
    if (rc != ST_OK) {
        xml_node_free(n);
        return rc;
    }
    *out = n;
    return ST_OK;
}

int xml_parse(const char *text, size_t len, xml_node **out)
{
    *out = NULL;
    xparser p = {.t = text, .len = len};
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
        p.pos = 3;
    int rc = skip_misc(&p);
    if (rc != ST_OK)
        return rc;
    if (p.pos >= len || text[p.pos] != '<')
        return xerr(&p, p.pos, p.pos >= len ? "no root element" : "text before the root element");
    xml_node *root = NULL;
    rc = parse_element(&p, &root);
    if (rc != ST_OK)
        return rc;
    rc = skip_misc(&p);
    if (rc == ST_OK && p.pos != len)
        rc = xerr(&p, p.pos, "content after the root element");
    if (rc != ST_OK) {
        xml_node_free(root);
        return rc;
    }
    *out = root;
    return ST_OK;
}

void xml_node_free(xml_node *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->nchildren; i++)
        xml_node_free(n->children[i]);
    free(n->children);
    free_attrs(n->attr_names, n->attr_values, n->nattrs);
    free(n->attr_names);
    free(n->attr_values);
    free(n->name);
    free(n->text);
    free(n);
}

const char *xml_attr(const xml_node *n, const char *name)
{
    for (size_t i = 0; n && i < n->nattrs; i++)
        if (strcmp(n->attr_names[i], name) == 0)
            return n->attr_values[i];
    return NULL;
}

const xml_node *xml_child(const xml_node *n, const char *name)
{
    for (size_t i = 0; n && i < n->nchildren; i++)
        if (strcmp(n->children[i]->name, name) == 0)
            return n->children[i];
    return NULL;
}

bool xml_text_blank(const xml_node *n)
{
    for (size_t i = 0; n && i < n->text_len; i++)
        if (!is_space(n->text[i]))
            return false;
    return true;
}

int xml_append_escaped(buf_t *b, const char *s, size_t n, bool attr)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        const char *rep = NULL;
        switch (s[i]) {
        case '&':
            rep = "&amp;";
            break;
        case '<':
            rep = "&lt;";
            break;
        case '>':
            rep = "&gt;";
            break;
        case '"':
            rep = attr ? "&quot;" : NULL;
            break;
        case '\t':
            rep = attr ? "&#9;" : NULL;
            break;
        case '\n':
            rep = attr ? "&#10;" : NULL;
            break;
        case '\r':
            rep = "&#13;";
            break;
        default:
            break;
        }
        if (!rep)
            continue;
        if (buf_append(b, s + run, i - run) != ST_OK || buf_append(b, rep, strlen(rep)) != ST_OK)
            return nomem();
        run = i + 1;
    }
    return buf_append(b, s + run, n - run) == ST_OK ? ST_OK : nomem();
}
