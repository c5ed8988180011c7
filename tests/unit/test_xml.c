/*
 * test_xml.c - common/http/xml.h: elements, attributes in single and double quotes
 * (whitespace normalized, references kept), child elements in document order, text
 * concatenated across CDATA sections, entity and character references (&#N; &#xH; up to
 * 4-byte characters), an XML declaration, comments and processing instructions skipped,
 * a BOM tolerated, namespace prefixes kept in names; and the refusals, each
 * ST_INVALID_ARGUMENT with *out NULL and a message naming the line, column and offset
 * (checked exactly on multi-line documents): a DOCTYPE (entity expansion), unknown
 * entities, '&' without ';', mismatched end tags, unclosed elements, duplicate
 * attributes, '<' in or no quotes around an attribute value, text before or after the
 * root, two roots, references to characters XML forbids, invalid UTF-8 (in text,
 * attributes, CDATA and names), control bytes, nesting past XML_MAX_DEPTH. The accessors
 * xml_attr, xml_child, xml_text_blank; xml_append_escaped in text and attribute mode, and
 * seeded random strings escaped both ways parsing back to themselves. Random mutations of
 * valid documents (tu_seed) never crash the parser (each parsed from a buffer of exactly
 * its length, so the sanitizer build catches a read past the end).
 * Thread-safety: single-threaded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/http/xml.h"
#include "common/status.h"
#include "tests/support/testutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* splitmix64: a small deterministic generator for the seeded cases. */
static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Parses text[0..len), copied into a buffer of exactly len bytes; must succeed. */
static xml_node *parse_ok_n(const char *text, size_t len)
{
    char *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, text, len);
    xml_node *n = NULL;
    int rc = xml_parse(copy, len, &n);
    free(copy);
    if (rc != ST_OK)
        fail_msg("parse \"%.*s\": %s: %s", (int)len, text, st_strerror(rc), st_errmsg());
    assert_non_null(n);
    return n;
}

static xml_node *parse_ok(const char *text)
{
    return parse_ok_n(text, strlen(text));
}

/* Parses text[0..len), which must fail with ST_INVALID_ARGUMENT, *out NULL, and a message
 * holding "line", "column", "offset" and frag (if not NULL). */
static void expect_error_n(const char *text, size_t len, const char *frag)
{
    char *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, text, len);
    xml_node *n = (xml_node *)&n; /* must be reset to NULL */
    st_clear();
    int rc = xml_parse(copy, len, &n);
    free(copy);
    if (rc != ST_INVALID_ARGUMENT)
        fail_msg("parse \"%.*s\": got %s (%s), want ST_INVALID_ARGUMENT", (int)len, text,
                 st_strerror(rc), st_errmsg());
    assert_null(n);
    const char *msg = st_errmsg();
    const char *frags[] = {"XML: ", " at line ", ", column ", " (offset ", frag};
    for (size_t i = 0; i < N(frags); i++)
        if (frags[i] && strstr(msg, frags[i]) == NULL)
            fail_msg("parse \"%.*s\": message \"%s\" lacks \"%s\"", (int)len, text, msg, frags[i]);
}

static void expect_error(const char *text, const char *frag)
{
    expect_error_n(text, strlen(text), frag);
}

/* The error of text must name exactly this position. */
static void expect_error_at(const char *text, const char *frag, size_t line, size_t col,
                            size_t offset)
{
    expect_error(text, frag);
    char want[96];
    snprintf(want, sizeof(want), " at line %zu, column %zu (offset %zu)", line, col, offset);
    if (strstr(st_errmsg(), want) == NULL)
        fail_msg("parse \"%s\": message \"%s\" lacks \"%s\"", text, st_errmsg(), want);
}

static void check_text(const xml_node *n, const char *want, size_t want_len)
{
    assert_non_null(n);
    if (n->text_len != want_len || memcmp(n->text, want, want_len) != 0)
        fail_msg("<%s> has text \"%.*s\" (%zu bytes), want \"%.*s\" (%zu bytes)", n->name,
                 (int)n->text_len, n->text, n->text_len, (int)want_len, want, want_len);
    assert_int_equal(n->text[want_len], '\0');
}

/* The text of the root of doc. */
static void expect_root_text(const char *doc, const char *want, size_t want_len)
{
    xml_node *n = parse_ok(doc);
    check_text(n, want, want_len);
    xml_node_free(n);
}

/* The value of attribute v of the root of doc. */
static void expect_attr(const char *doc, const char *want)
{
    xml_node *n = parse_ok(doc);
    const char *got = xml_attr(n, "v");
    assert_non_null(got);
    if (strcmp(got, want) != 0)
        fail_msg("parse \"%s\": v=\"%s\", want \"%s\"", doc, got, want);
    xml_node_free(n);
}

/* ---- what it reads ---- */

static void test_elements_and_attributes(void **state)
{
    xml_node *n = parse_ok("<CellSet a=\"1\" b='two' c = \"it's\"\td='say \"hi\"'\n"
                           "e=\"\"><Row/><Row key='k'></Row ></CellSet>");
    assert_string_equal(n->name, "CellSet");
    assert_int_equal(n->nattrs, 5);
    static const char *names[] = {"a", "b", "c", "d", "e"};
    static const char *values[] = {"1", "two", "it's", "say \"hi\"", ""};
    for (size_t i = 0; i < N(names); i++) {
        assert_string_equal(n->attr_names[i], names[i]);
        assert_string_equal(n->attr_values[i], values[i]);
        assert_string_equal(xml_attr(n, names[i]), values[i]);
    }
    assert_null(xml_attr(n, "f"));
    assert_null(xml_attr(n, "A"));
    assert_int_equal(n->nchildren, 2);
    assert_string_equal(n->children[0]->name, "Row");
    assert_int_equal(n->children[0]->nattrs, 0);
    assert_int_equal(n->children[0]->nchildren, 0);
    check_text(n->children[0], "", 0);
    assert_string_equal(xml_attr(n->children[1], "key"), "k");
    check_text(n, "", 0);
    xml_node_free(n);
    xml_node_free(NULL);
    /* a root alone, self-closed or not; names with the characters XML allows */
    n = parse_ok("<a/>");
    assert_string_equal(n->name, "a");
    assert_int_equal(n->nattrs + n->nchildren + n->text_len, 0);
    xml_node_free(n);
    n = parse_ok("<_x.y-z9 :k='v' ></_x.y-z9>");
    assert_string_equal(n->name, "_x.y-z9");
    assert_string_equal(xml_attr(n, ":k"), "v");
    xml_node_free(n);
    n = parse_ok("<\xc3\xa9l\xc3\xa9ment \xe2\x82\xac='1'/>");
    assert_string_equal(n->name, "\xc3\xa9l\xc3\xa9ment");
    assert_string_equal(xml_attr(n, "\xe2\x82\xac"), "1");
    xml_node_free(n);
    /* namespace prefixes are part of the names */
    n = parse_ok("<ns:a xmlns:ns=\"urn:x\" ns:k='v'><ns:b/></ns:a>");
    assert_string_equal(n->name, "ns:a");
    assert_string_equal(xml_attr(n, "xmlns:ns"), "urn:x");
    assert_string_equal(xml_attr(n, "ns:k"), "v");
    assert_non_null(xml_child(n, "ns:b"));
    assert_null(xml_child(n, "b"));
    xml_node_free(n);
}

static void test_attribute_values(void **state)
{
    /* whitespace characters become spaces; references to them are kept */
    expect_attr("<a v=\"x\ty\nz\r.\"/>", "x y z .");
    expect_attr("<a v=\"&#9;&#10;&#13;&#x20;\"/>", "\t\n\r ");
    expect_attr("<a v='&lt;&gt;&amp;&quot;&apos;'/>", "<>&\"'");
    expect_attr("<a v='\"' w=\"'\"/>", "\"");
    expect_attr("<a v=\">\"/>", ">");
    expect_attr("<a v='\xc3\xa9\xf0\x9f\x98\x80\x7f'/>", "\xc3\xa9\xf0\x9f\x98\x80\x7f");
    expect_attr("<a v='&#x1F600;&#233;'/>", "\xf0\x9f\x98\x80\xc3\xa9");
    expect_attr("<a v\n=\n'1'/>", "1");
}

static void test_children_in_order(void **state)
{
    xml_node *n = parse_ok("<r>\n  <c i='0'/>\n  <d i='1'><e/></d>\n  <c i='2'>x</c>\n"
                           "  <!-- skipped -->\n  <c i='3'/>\n</r>");
    assert_int_equal(n->nchildren, 4);
    static const char *names[] = {"c", "d", "c", "c"};
    for (size_t i = 0; i < N(names); i++) {
        assert_string_equal(n->children[i]->name, names[i]);
        char want[4];
        snprintf(want, sizeof(want), "%zu", i);
        assert_string_equal(xml_attr(n->children[i], "i"), want);
    }
    /* xml_child returns the first of a name */
    assert_ptr_equal(xml_child(n, "c"), n->children[0]);
    assert_ptr_equal(xml_child(n, "d"), n->children[1]);
    assert_null(xml_child(n, "e"));
    assert_non_null(xml_child(xml_child(n, "d"), "e"));
    check_text(n->children[2], "x", 1);
    assert_true(xml_text_blank(n));
    xml_node_free(n);
    /* many children */
    buf_t b = {0};
    assert_int_equal(buf_append(&b, "<r>", 3), ST_OK);
    for (int i = 0; i < 1000; i++) {
        char t[32];
        int len = snprintf(t, sizeof(t), "<c n='%d'/>", i);
        assert_int_equal(buf_append(&b, t, (size_t)len), ST_OK);
    }
    assert_int_equal(buf_append(&b, "</r>", 4), ST_OK);
    n = parse_ok_n((const char *)b.data, b.len);
    assert_int_equal(n->nchildren, 1000);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(atoi(xml_attr(n->children[i], "n")), i);
    xml_node_free(n);
    buf_free(&b);
}

static void test_text_concatenated(void **state)
{
    expect_root_text("<a>x<![CDATA[<y>&amp;]]>z&lt;w<!-- c -->v<?pi?>u</a>", "x<y>&amp;z<wvu", 14);
    /* text around child elements belongs to the parent */
    xml_node *n = parse_ok("<a>1<b>in</b>2<c/>3</a>");
    check_text(n, "123", 3);
    check_text(n->children[0], "in", 2);
    xml_node_free(n);
    expect_root_text("<a><![CDATA[]]></a>", "", 0);
    expect_root_text("<a><![CDATA[]]]]><![CDATA[>]]></a>", "]]>", 3);
    expect_root_text("<a><![CDATA[\n\t\xc3\xa9 ]] ] >]]></a>", "\n\t\xc3\xa9 ]] ] >", 11);
    expect_root_text("<a> \t\n </a>", " \t\n ", 4);
    expect_root_text("<a>\xe2\x82\xac\xf0\x9f\x98\x80\x7f</a>", "\xe2\x82\xac\xf0\x9f\x98\x80\x7f",
                     8);
    expect_root_text("<a>\"'></a>", "\"'>", 3);
}

static void test_predefined_entities(void **state)
{
    expect_root_text("<a>&lt;&gt;&amp;&quot;&apos;</a>", "<>&\"'", 5);
    expect_root_text("<a>&amp;lt;</a>", "&lt;", 4);
    expect_root_text("<a>a&amp;b</a>", "a&b", 3);
    expect_attr("<a v='&amp;amp;'/>", "&amp;");
}

static void test_character_references(void **state)
{
    expect_root_text("<a>&#65;&#x41;&#x6a;&#x6A;&#0065;&#x0041;</a>", "AAjjAA", 6);
    expect_root_text("<a>&#233;&#xe9;</a>", "\xc3\xa9\xc3\xa9", 4);
    expect_root_text("<a>&#8364;&#x20AC;</a>", "\xe2\x82\xac\xe2\x82\xac", 6);
    expect_root_text("<a>&#128512;&#x1F600;</a>", "\xf0\x9f\x98\x80\xf0\x9f\x98\x80", 8);
    expect_root_text("<a>&#x10FFFF;&#xFFFD;&#xE000;&#xD7FF;</a>",
                     "\xf4\x8f\xbf\xbf\xef\xbf\xbd\xee\x80\x80\xed\x9f\xbf", 13);
    expect_root_text("<a>&#9;&#10;&#13;&#32;</a>", "\t\n\r ", 4);
    expect_root_text("<a>&#x7F;&#x80;&#x7FF;&#x800;</a>", "\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80", 8);
}

static void test_prolog_and_misc_skipped(void **state)
{
    static const char doc[] = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
                              "<!-- a comment -->\n<?xml-stylesheet href='x'?>\n"
                              "<r k='v'/>\n<!-- after -->\n<?pi?>\n \t\r\n";
    xml_node *n = parse_ok(doc);
    assert_string_equal(n->name, "r");
    assert_string_equal(xml_attr(n, "k"), "v");
    xml_node_free(n);
    /* a BOM before all of it, or before the root alone */
    n = parse_ok("\xef\xbb\xbf<?xml version='1.0'?><r/>");
    assert_string_equal(n->name, "r");
    xml_node_free(n);
    n = parse_ok("\xef\xbb\xbf<r>\xef\xbb\xbf</r>");
    check_text(n, "\xef\xbb\xbf", 3);
    xml_node_free(n);
    n = parse_ok("<!----><r/><!---->");
    assert_string_equal(n->name, "r");
    xml_node_free(n);
    /* a comment may hold markup */
    n = parse_ok("<!-- <x> &foo; <!DOCTYPE y> --><r><!-- </r> --></r>");
    assert_int_equal(n->nchildren, 0);
    xml_node_free(n);
    expect_error("\xef\xbb\xbf\xef\xbb\xbf<r/>", "text before the root");
    expect_error(" \xef\xbb\xbf<r/>", "text before the root");
    expect_error("<r/><!-- open", "unterminated comment");
    expect_error("<!-- open <r/>", "unterminated comment");
    expect_error("<r><!-- open</r>", "unterminated comment");
    expect_error("<?xml version='1.0'<r/>", "unterminated processing instruction");
    expect_error("<r><?pi </r>", "unterminated processing instruction");
    expect_error("<r><![CDATA[x</r>", "unterminated CDATA");
}

/* ---- what it refuses ---- */

static void test_doctype_refused(void **state)
{
    /* the billion laughs */
    expect_error("<?xml version=\"1.0\"?>\n"
                 "<!DOCTYPE lolz [\n"
                 " <!ENTITY lol \"lol\">\n"
                 " <!ENTITY lol2 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n"
                 " <!ENTITY lol3 \"&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;\">\n"
                 "]>\n"
                 "<lolz>&lol3;</lolz>",
                 "DOCTYPE is not accepted");
    /* an external entity */
    expect_error("<!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><r>&x;</r>", "DOCTYPE");
    expect_error("<!doctype r><r/>", "DOCTYPE");
    expect_error("<!DOCTYPE r>", "DOCTYPE");
    expect_error("\xef\xbb\xbf<!-- c --><!DOCTYPE r><r/>", "DOCTYPE");
    expect_error("<r/><!DOCTYPE r>", "DOCTYPE");
    /* other spellings and declarations are no element either */
    expect_error("<!DocType r><r/>", "expected a name");
    expect_error("<!ENTITY x 'y'><r/>", "expected a name");
    expect_error("<r><!DOCTYPE r></r>", "declaration is not accepted");
    expect_error("<r><!ENTITY x 'y'></r>", "declaration is not accepted");
}

static void test_references_rejected(void **state)
{
    expect_error("<a>&foo;</a>", "unknown entity '&foo;'");
    expect_error("<a>&nbsp;</a>", "unknown entity");
    expect_error("<a>&AMP;</a>", "unknown entity");
    expect_error("<a>&lol3;</a>", "unknown entity");
    expect_error("<a>&;</a>", "unknown entity");
    expect_error("<a>&#;</a>", "unknown entity");
    expect_error("<a v='&foo;'/>", "unknown entity");
    /* '&' not ending in ';' */
    expect_error("<a>a & b</a>", "ending in ';'");
    expect_error("<a>&amp</a>", "ending in ';'");
    expect_error("<a>&</a>", "ending in ';'");
    expect_error("<a v='&'/>", "ending in ';'");
    expect_error("<a v='x&y'/>", "ending in ';'");
    expect_error_n("<a>&lt", 6, "ending in ';'");
    /* malformed character references */
    expect_error("<a>&#x;</a>", "empty character reference");
    expect_error("<a>&#X41;</a>", "malformed");
    expect_error("<a>&#12a;</a>", "malformed");
    expect_error("<a>&#xG1;</a>", "malformed");
    expect_error("<a>&#-1;</a>", "malformed");
    expect_error("<a>&# 65;</a>", "malformed");
    expect_error("<a>&#x110000;</a>", "beyond U+10FFFF");
    expect_error("<a>&#99999999999;</a>", "beyond U+10FFFF");
    expect_error("<a>&#xFFFFFFFFFFFF;</a>", "beyond U+10FFFF");
    /* references to characters XML forbids */
    static const char *forbidden[] = {"&#0;",     "&#x0;",    "&#1;",     "&#8;",
                                      "&#x1F;",   "&#11;",    "&#xD800;", "&#xdbff;",
                                      "&#xDC00;", "&#57343;", "&#xFFFE;", "&#xFFFF;"};
    for (size_t i = 0; i < N(forbidden); i++) {
        char doc[64];
        snprintf(doc, sizeof(doc), "<a>%s</a>", forbidden[i]);
        expect_error(doc, "which XML forbids");
        snprintf(doc, sizeof(doc), "<a v='%s'/>", forbidden[i]);
        expect_error(doc, "which XML forbids");
    }
}

static void test_structure_rejected(void **state)
{
    /* mismatched end tags */
    expect_error("<a></b>", "expected </a>");
    expect_error("<a><b></a></b>", "expected </b>");
    expect_error("<a></A>", "expected </a>");
    expect_error("<a></ab>", "expected </a>");
    expect_error("<ab></a>", "expected </ab>");
    expect_error("<a></a b>", "expected </a>");
    expect_error("<a></>", "expected a name");
    /* unclosed elements and tags */
    expect_error("<a>", "element <a> is not closed");
    expect_error("<a><b></b>", "element <a> is not closed");
    expect_error("<a><b>text", "element <b> is not closed");
    expect_error("<a></a", "expected </a>");
    expect_error("<a", "unterminated start tag <a");
    expect_error("<a x='1'", "unterminated start tag");
    expect_error("<a/", "expected whitespace, '>' or '/>'");
    expect_error("<a /", "expected a name");
    expect_error("< a/>", "expected a name");
    expect_error("<1a/>", "expected a name");
    expect_error("<-a/>", "expected a name");
    expect_error("<a><</a>", "expected a name");
    /* text before or after the root, two roots, no root */
    expect_error("x<a/>", "text before the root element");
    expect_error("  x <a/>", "text before the root element");
    expect_error("&amp;<a/>", "text before the root element");
    expect_error("<a/>x", "content after the root element");
    expect_error("<a/>\n&amp;", "content after the root element");
    expect_error("<a/><b/>", "content after the root element");
    expect_error("<a></a><a></a>", "content after the root element");
    expect_error("<a/></a>", "content after the root element");
    expect_error("<![CDATA[x]]><a/>", "expected a name");
    expect_error("<a/><![CDATA[x]]>", "content after the root element");
    expect_error("", "no root element");
    expect_error(" \n\t", "no root element");
    expect_error("<!-- c -->", "no root element");
    expect_error("<?xml version='1.0'?>", "no root element");
    expect_error("</a>", "expected a name");
}

static void test_attributes_rejected(void **state)
{
    expect_error("<a x='1' x=\"2\"/>", "attribute 'x' appears twice");
    expect_error("<a x='1' y='2' x='1'/>", "appears twice");
    expect_error("<a x='<'/>", "'<' inside an attribute value");
    expect_error("<a x=\"a<b\"/>", "'<' inside an attribute value");
    expect_error("<a x=1/>", "must be quoted");
    expect_error("<a x=/>", "must be quoted");
    expect_error("<a x=`1`/>", "must be quoted");
    expect_error("<a x/>", "expected '=' after attribute 'x'");
    expect_error("<a x y='1'/>", "expected '=' after attribute 'x'");
    expect_error("<a x='1\"/>", "unterminated attribute value");
    expect_error("<a x=\"1'/>", "unterminated attribute value");
    expect_error("<a x='1'y='2'/>", "expected whitespace");
    expect_error("<a x='1'/y='2'/>", "expected whitespace");
    expect_error("<a 1x='1'/>", "expected a name");
    expect_error("<a x='1' ='2'/>", "expected a name");
}

static void test_bad_bytes_rejected(void **state)
{
    static const char *bad_utf8[] = {
        "\xff",
        "\xfe",
        "\x80",
        "\xc3",
        "\xc3(",
        "\xc0\xaf",
        "\xe0\x80\xaf",
        "\xed\xa0\x80",
        "\xed\xbf\xbf",
        "\xef\xbf\xbe",
        "\xef\xbf\xbf",
        "\xf0\x80\x80\xaf",
        "\xf4\x90\x80\x80",
        "\xf8\x88\x80\x80\x80",
        "\xe2\x82",
    };
    static const char *wraps[] = {"<a>%s</a>", "<a v='%s'/>", "<a v=\"x%sy\"/>",
                                  "<a><![CDATA[%s]]></a>", "<a>x<b/>%s</a>"};
    for (size_t i = 0; i < N(bad_utf8); i++)
        for (size_t w = 0; w < N(wraps); w++) {
            char doc[64];
            snprintf(doc, sizeof(doc), wraps[w], bad_utf8[i]);
            expect_error(doc, "not valid UTF-8");
        }
    /* control bytes (all but tab, newline and carriage return) */
    for (int c = 0; c < 0x20; c++) {
        if (c == '\t' || c == '\n' || c == '\r')
            continue;
        for (size_t w = 0; w < N(wraps); w++) {
            char doc[64];
            int len = snprintf(doc, sizeof(doc), wraps[w], "x");
            char *x = strchr(doc + 2, 'x');
            assert_non_null(x);
            *x = (char)c;
            expect_error_n(doc, (size_t)len, "a character XML allows");
        }
    }
    /* truncated at the very end of the text */
    expect_error_n("<a>\xe2\x82", 5, "not valid UTF-8");
    expect_error_n("<a v='\xf0\x9f", 8, "not valid UTF-8");
    /* in names */
    expect_error("<a\xff/>", "not valid UTF-8");
    expect_error("<\xc3/>", "not valid UTF-8");
    expect_error("<a b\xed\xa0\x80='1'/>", "not valid UTF-8");
    expect_error("<a></a\xff>", "not valid UTF-8");
}

static void test_depth_limit(void **state)
{
    for (int extra = 0; extra <= 1; extra++) {
        int depth = XML_MAX_DEPTH + extra;
        buf_t b = {0};
        for (int i = 0; i < depth; i++)
            assert_int_equal(buf_append(&b, "<e>", 3), ST_OK);
        assert_int_equal(buf_append(&b, "x", 1), ST_OK);
        for (int i = 0; i < depth; i++)
            assert_int_equal(buf_append(&b, "</e>", 4), ST_OK);
        if (extra == 0) {
            xml_node *n = parse_ok_n((const char *)b.data, b.len);
            const xml_node *at = n;
            for (int i = 1; i < depth; i++) {
                assert_int_equal(at->nchildren, 1);
                at = at->children[0];
            }
            assert_int_equal(at->nchildren, 0);
            check_text(at, "x", 1);
            xml_node_free(n);
        } else {
            expect_error_n((const char *)b.data, b.len, "nesting deeper than");
            char want[32];
            snprintf(want, sizeof(want), "(offset %d)", XML_MAX_DEPTH * 3);
            assert_non_null(strstr(st_errmsg(), want));
        }
        buf_free(&b);
    }
    /* self-closed at the last level counts too */
    buf_t b = {0};
    for (int i = 0; i < XML_MAX_DEPTH; i++)
        assert_int_equal(buf_append(&b, "<e>", 3), ST_OK);
    assert_int_equal(buf_append(&b, "<e/>", 4), ST_OK);
    for (int i = 0; i < XML_MAX_DEPTH; i++)
        assert_int_equal(buf_append(&b, "</e>", 4), ST_OK);
    expect_error_n((const char *)b.data, b.len, "nesting deeper than");
    buf_free(&b);
    /* a long run of open tags stops at the limit */
    size_t big = 3 << 18;
    char *doc = malloc(big);
    assert_non_null(doc);
    for (size_t i = 0; i < big; i += 3)
        memcpy(doc + i, "<e>", 3);
    expect_error_n(doc, big, "nesting deeper than");
    free(doc);
}

static void test_error_positions(void **state)
{
    /* line 2 starts at 22, line 3 at 32, line 4 at 51 */
    static const char doc[] = "<?xml version=\"1.0\"?>\n"
                              "<CellSet>\n"
                              "  <Row key=\"cm93\">\n"
                              "    <Cell column=\"Y2Y6YQ==\">dg==</Cel>\n"
                              "  </Row>\n"
                              "</CellSet>\n";
    assert_memory_equal(doc + 83, "</Cel>", 6);
    expect_error_at(doc, "expected </Cell>", 4, 33, 83);
    expect_error_at("<a>\n  x &foo; y\n</a>", "unknown entity", 2, 5, 8);
    /* an unclosed element names its start tag */
    expect_error_at("<a>\n<b>\n", "element <b> is not closed", 2, 1, 4);
    expect_error_at("<?xml version=\"1.0\"?>\n<!DOCTYPE r [<!ENTITY a \"b\">]>\n<r/>", "DOCTYPE", 2,
                    1, 22);
    expect_error_at("<a\n x='1'\n x='2'/>", "appears twice", 3, 2, 11);
    expect_error_at("<a>\n\x01</a>", "a character XML allows", 2, 1, 4);
    expect_error_at("<a/>\n<b/>", "content after the root element", 2, 1, 5);
    expect_error_at("<a\n  v='x\n<'/>", "'<' inside an attribute value", 3, 1, 10);
    expect_error_at("<a>\n\n <![CDATA[ ok \xc3\xa9\n \xff", "unterminated CDATA", 3, 2, 6);
    expect_error_at("<a>\n\n <![CDATA[ ok \xc3\xa9\n \xff]]></a>", "not valid UTF-8", 4, 2, 23);
    expect_error_at("", "no root element", 1, 1, 0);
}

/* ---- accessors and escaping ---- */

static void test_accessors(void **state)
{
    xml_node *n = parse_ok("<r a='1' b='2'><x/><y t=' \t\n'> \t\r\n </y><z> a </z>"
                           "<w>&#160;</w><v><![CDATA[ ]]></v></r>");
    assert_string_equal(xml_attr(n, "a"), "1");
    assert_string_equal(xml_attr(n, "b"), "2");
    assert_null(xml_attr(n, "c"));
    assert_null(xml_attr(NULL, "a"));
    assert_null(xml_child(NULL, "x"));
    assert_null(xml_child(n, "q"));
    assert_true(xml_text_blank(n));
    assert_true(xml_text_blank(xml_child(n, "x")));
    assert_true(xml_text_blank(xml_child(n, "y")));
    assert_false(xml_text_blank(xml_child(n, "z")));
    assert_false(xml_text_blank(xml_child(n, "w"))); /* U+00A0 is not XML whitespace */
    assert_true(xml_text_blank(xml_child(n, "v")));
    assert_string_equal(xml_attr(xml_child(n, "y"), "t"), "   ");
    xml_node_free(n);
}

static void expect_escaped(const char *in, size_t n, bool attr, const char *want)
{
    buf_t b = {0};
    assert_int_equal(buf_append(&b, "pre", 3), ST_OK);
    assert_int_equal(xml_append_escaped(&b, in, n, attr), ST_OK);
    if (b.len != 3 + strlen(want) || memcmp(b.data, "pre", 3) != 0 ||
        memcmp(b.data + 3, want, strlen(want)) != 0)
        fail_msg("escaped (attr %d) \"%.*s\" as \"%.*s\", want \"pre%s\"", attr, (int)n, in,
                 (int)b.len, (const char *)b.data, want);
    buf_free(&b);
}

static void test_escape(void **state)
{
    static const char in[] = "a&b<c>d\"e'f\tg\nh\ri]]>";
    expect_escaped(in, sizeof(in) - 1, false, "a&amp;b&lt;c&gt;d\"e'f\tg\nh&#13;i]]&gt;");
    expect_escaped(in, sizeof(in) - 1, true, "a&amp;b&lt;c&gt;d&quot;e'f&#9;g&#10;h&#13;i]]&gt;");
    expect_escaped("", 0, false, "");
    expect_escaped("", 0, true, "");
    expect_escaped("plain \xc3\xa9", 8, true, "plain \xc3\xa9");
    expect_escaped("&&", 2, false, "&amp;&amp;");
    expect_escaped("<", 1, true, "&lt;");
    /* only n bytes */
    expect_escaped("ab<", 2, false, "ab");
}

/* A random string of characters XML allows, NUL-terminated, into out (cap >= 256). */
static size_t random_xml_string(uint64_t *s, char *out)
{
    size_t n = next_rand(s) % 48, len = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t cp;
        switch (next_rand(s) % 6) {
        case 0: {
            static const char special[] = "&<>\"'\t\n\r ;#]";
            cp = (unsigned char)special[next_rand(s) % (sizeof(special) - 1)];
            break;
        }
        case 1:
            cp = 0x80 + (uint32_t)(next_rand(s) % (0x800 - 0x80));
            break;
        case 2:
            cp = 0x800 + (uint32_t)(next_rand(s) % (0xfffe - 0x800));
            if (cp >= 0xd800 && cp <= 0xdfff)
                cp = 0xfffd;
            break;
        case 3:
            cp = 0x10000 + (uint32_t)(next_rand(s) % (0x110000 - 0x10000));
            break;
        default:
            cp = 0x20 + (uint32_t)(next_rand(s) % 0x5f);
            break;
        }
        uint8_t *u = (uint8_t *)out + len;
        if (cp < 0x80) {
            u[0] = (uint8_t)cp;
            len += 1;
        } else if (cp < 0x800) {
            u[0] = (uint8_t)(0xc0 | cp >> 6);
            u[1] = (uint8_t)(0x80 | (cp & 0x3f));
            len += 2;
        } else if (cp < 0x10000) {
            u[0] = (uint8_t)(0xe0 | cp >> 12);
            u[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
            u[2] = (uint8_t)(0x80 | (cp & 0x3f));
            len += 3;
        } else {
            u[0] = (uint8_t)(0xf0 | cp >> 18);
            u[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
            u[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
            u[3] = (uint8_t)(0x80 | (cp & 0x3f));
            len += 4;
        }
    }
    out[len] = '\0';
    return len;
}

static void test_escaped_round_trip(void **state)
{
    uint64_t s = tu_seed(__func__);
    buf_t doc = {0};
    char str[256];
    for (int round = 0; round < 3000; round++) {
        size_t n = random_xml_string(&s, str);
        /* <r v="attr-escaped" w="attr-escaped">text-escaped<c>attr-escaped</c></r> */
        buf_reset(&doc);
        assert_int_equal(buf_append(&doc, "<r v=\"", 6), ST_OK);
        assert_int_equal(xml_append_escaped(&doc, str, n, true), ST_OK);
        assert_int_equal(buf_append(&doc, "\">", 2), ST_OK);
        assert_int_equal(xml_append_escaped(&doc, str, n, false), ST_OK);
        assert_int_equal(buf_append(&doc, "<c>", 3), ST_OK);
        assert_int_equal(xml_append_escaped(&doc, str, n, true), ST_OK);
        assert_int_equal(buf_append(&doc, "</c></r>", 8), ST_OK);
        xml_node *r = parse_ok_n((const char *)doc.data, doc.len);
        const char *v = xml_attr(r, "v");
        assert_non_null(v);
        if (strlen(v) != n || memcmp(v, str, n) != 0)
            fail_msg("round %d: attribute \"%s\" came back as \"%s\"", round, str, v);
        check_text(r, str, n);
        check_text(xml_child(r, "c"), str, n);
        xml_node_free(r);
    }
    buf_free(&doc);
}

/* Walks a parsed tree checking what the header promises of it. */
static void walk(const xml_node *n, int depth)
{
    assert_true(depth < XML_MAX_DEPTH);
    assert_non_null(n->name);
    assert_true(n->name[0] != '\0');
    assert_non_null(n->text);
    assert_int_equal(n->text[n->text_len], '\0');
    for (size_t i = 0; i < n->nattrs; i++) {
        assert_non_null(n->attr_names[i]);
        assert_non_null(n->attr_values[i]);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(n->attr_names[i], n->attr_names[j]);
    }
    for (size_t i = 0; i < n->nchildren; i++)
        walk(n->children[i], depth + 1);
}

static void test_mutations_never_crash(void **state)
{
    static const char *seeds[] = {
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><CellSet><Row "
        "key=\"cm93\"><Cell column=\"Y2Y6YQ==\" timestamp=\"1\">dg==</Cell></Row></CellSet>",
        "<Scanner batch=\"10\" startRow='YQ=='><column>Y2Y6</column><filter>{&quot;type&quot;:"
        "&quot;PrefixFilter&quot;}</filter></Scanner>",
        "\xef\xbb\xbf<!-- c --><a x='&lt;&#x1F600;&#233;'>t<![CDATA[<&>]]>&amp;<b/><?pi x?>"
        "<c>\xc3\xa9</c></a>\n",
        "<ns:a xmlns:ns=\"u\">\n  <ns:b k='1'/>\n  <ns:b k='2'>&#10;</ns:b>\n</ns:a>",
        "<TableSchema name=\"t\"><ColumnSchema name=\"cf\" VERSIONS=\"3\"/></TableSchema>",
    };
    static const char *tokens[] = {
        "<",
        ">",
        "/",
        "</",
        "/>",
        "<!--",
        "-->",
        "<![CDATA[",
        "]]>",
        "<?",
        "?>",
        "&",
        ";",
        "&#",
        "&#x",
        "&amp;",
        "&foo;",
        "=",
        "\"",
        "'",
        "<!DOCTYPE",
        "\xff",
        "\xc3",
        "\x00",
        "\n",
        "<a>",
        "</a>",
        "<a><a><a><a>",
        " x='1'",
        "&#xD800;",
        "\xef\xbb\xbf",
    };
    uint64_t s = tu_seed(__func__);
    buf_t doc = {0};
    size_t ok = 0, failed = 0;
    for (int round = 0; round < 30000; round++) {
        const char *seed = seeds[next_rand(&s) % N(seeds)];
        buf_reset(&doc);
        assert_int_equal(buf_append(&doc, seed, strlen(seed)), ST_OK);
        for (uint64_t m = 1 + next_rand(&s) % 4; m > 0; m--) {
            size_t at = doc.len ? next_rand(&s) % (doc.len + 1) : 0;
            switch (next_rand(&s) % 6) {
            case 0: /* replace a byte with any byte */
                if (at < doc.len)
                    doc.data[at] = (uint8_t)next_rand(&s);
                break;
            case 1: { /* insert a token */
                const char *t = tokens[next_rand(&s) % N(tokens)];
                size_t tl = t[0] ? strlen(t) : 1;
                assert_int_equal(buf_reserve(&doc, tl), ST_OK);
                memmove(doc.data + at + tl, doc.data + at, doc.len - at);
                memcpy(doc.data + at, t, tl);
                doc.len += tl;
                break;
            }
            case 2: { /* delete a range */
                size_t n = at < doc.len ? 1 + next_rand(&s) % (doc.len - at) % 8 : 0;
                memmove(doc.data + at, doc.data + at + n, doc.len - at - n);
                doc.len -= n;
                break;
            }
            case 3: /* truncate */
                doc.len = at;
                break;
            case 4: { /* duplicate a range */
                size_t n = at < doc.len ? 1 + next_rand(&s) % (doc.len - at) % 24 : 0;
                assert_int_equal(buf_reserve(&doc, n), ST_OK);
                memmove(doc.data + at + n, doc.data + at, doc.len - at);
                doc.len += n;
                break;
            }
            default: /* flip one bit */
                if (at < doc.len)
                    doc.data[at] ^= (uint8_t)(1u << (next_rand(&s) % 8));
                break;
            }
        }
        /* an exact-length copy, so a read past the end is the sanitizer's to catch */
        char *text = malloc(doc.len ? doc.len : 1);
        assert_non_null(text);
        memcpy(text, doc.data, doc.len);
        xml_node *n = (xml_node *)&n;
        st_clear();
        int rc = xml_parse(text, doc.len, &n);
        if (rc == ST_OK) {
            assert_non_null(n);
            walk(n, 0);
            xml_node_free(n);
            ok++;
        } else {
            if (rc != ST_INVALID_ARGUMENT)
                fail_msg("round %d: %s: %s", round, st_strerror(rc), st_errmsg());
            assert_null(n);
            assert_non_null(strstr(st_errmsg(), " (offset "));
            failed++;
        }
        free(text);
    }
    /* the mutations made both kinds */
    assert_true(ok > 100);
    assert_true(failed > 100);
    buf_free(&doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_elements_and_attributes),
        cmocka_unit_test(test_attribute_values),
        cmocka_unit_test(test_children_in_order),
        cmocka_unit_test(test_text_concatenated),
        cmocka_unit_test(test_predefined_entities),
        cmocka_unit_test(test_character_references),
        cmocka_unit_test(test_prolog_and_misc_skipped),
        cmocka_unit_test(test_doctype_refused),
        cmocka_unit_test(test_references_rejected),
        cmocka_unit_test(test_structure_rejected),
        cmocka_unit_test(test_attributes_rejected),
        cmocka_unit_test(test_bad_bytes_rejected),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_error_positions),
        cmocka_unit_test(test_accessors),
        cmocka_unit_test(test_escape),
        cmocka_unit_test(test_escaped_round_trip),
        cmocka_unit_test(test_mutations_never_crash),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
