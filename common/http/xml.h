/*
 * xml.h - a small XML 1.0 parser into a tree of elements, and escaping for writers: the
 * documents HBase's REST API exchanges as text/xml (CellSet, Scanner, TableSchema,
 * NamespaceProperties; docs/rest.md).
 *
 *   xml_node *doc = NULL;
 *   if (xml_parse(text, len, &doc) != ST_OK) ... st_errmsg() says where and why
 *   for (size_t i = 0; i < doc->nchildren; i++) ... xml_attr(doc->children[i], "key")
 *   xml_node_free(doc);
 *
 * What it reads: an optional XML declaration, comments and processing instructions
 * (skipped), one root element with attributes, child elements, character data and CDATA
 * sections; the five predefined entities and character references (&#N; &#xH;). What it
 * refuses, with ST_INVALID_ARGUMENT naming the line, column and offset: a DOCTYPE (so no
 * entity expansion can blow up), other entity references, mismatched or unclosed tags,
 * duplicate attributes, invalid UTF-8 or characters XML forbids, text outside the root,
 * nesting past XML_MAX_DEPTH. Namespace prefixes are kept as part of the names.
 * Thread-safety: a tree is immutable after parse; the functions are reentrant.
 */
#ifndef STRATA_COMMON_XML_H
#define STRATA_COMMON_XML_H

#include <stdbool.h>
#include <stddef.h>

#include "common/buf.h"

#define XML_MAX_DEPTH 64

typedef struct xml_node xml_node;

struct xml_node {
    char *name;
    char **attr_names;
    char **attr_values; /* decoded, NUL-terminated */
    size_t nattrs;
    xml_node **children; /* child elements in document order */
    size_t nchildren;
    char *text; /* the character data directly inside (decoded, concatenated; "" if none) */
    size_t text_len;
};

/* Parses text[0..len) into *out (the root element; the caller's, xml_node_free). ST_OK,
 * or ST_INVALID_ARGUMENT / ST_NOMEM with *out NULL and the message set. */
int xml_parse(const char *text, size_t len, xml_node **out);
void xml_node_free(xml_node *n);

/* The value of attribute name of n, or NULL. */
const char *xml_attr(const xml_node *n, const char *name);
/* The first child element of n called name, or NULL. */
const xml_node *xml_child(const xml_node *n, const char *name);
/* Whether the text of n is only whitespace. */
bool xml_text_blank(const xml_node *n);

/* Appends s[0..n) escaped for character data (attr false: & < >) or for a double-quoted
 * attribute value (attr true: also " and tab, newline, carriage return as references).
 * ST_OK or ST_NOMEM. */
int xml_append_escaped(buf_t *b, const char *s, size_t n, bool attr);

#endif
