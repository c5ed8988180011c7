/*
 * fuzz_rest_docs.c - fuzz target for the documents the REST gateway reads (rest/,
 * docs/rest.md) and the parsers under them (common/http/json_value.c, common/http/xml.c,
 * common/base64.c, protobuf-c): the first byte picks the reader, the rest is the body.
 *
 *   byte % 8: 0 CellSet, 1 TableSchema, 2 Scanner, 3 NamespaceProperties, 4 a JSON filter,
 *             5 a row path (split on '/'), 6 an Accept header, 7 a Content-Type;
 *   (byte / 8) % 3: JSON, XML, protobuf (for the documents)
 *
 * It asserts: each reader returns ST_OK or ST_INVALID_ARGUMENT / ST_UNSUPPORTED (never
 * another code, never a crash), with a message on failure; a CellSet that reads is
 * written back in all three media by the gateway's writer and reads back the same rows,
 * keys, columns, timestamps and values; a TableSchema that reads either maps onto a
 * descriptor or is refused naming why; a filter that converts is text that Strata's filter
 * parser accepts (the gateway never sends the region servers a filter they cannot read).
 * Leaks, memory errors and undefined behaviour are caught by the sanitizers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "regionserver/storage/filter.h"
#include "regionserver/storage/filter_parse.h"
#include "rest/rest_internal.h"
#include "tests/fuzz/fuzz_support.h"

#define MAX_BODY 65536

static const rest_media MEDIA[] = {REST_MEDIA_JSON, REST_MEDIA_XML, REST_MEDIA_PROTOBUF};

static void expect_code(int rc, const char *what)
{
    FUZZ_CHECK(rc == ST_OK || rc == ST_INVALID_ARGUMENT || rc == ST_UNSUPPORTED, "%s: %s (%s)",
               what, st_strerror(rc), st_errmsg());
    if (rc != ST_OK)
        FUZZ_CHECK(st_errmsg()[0] != '\0', "%s failed without a message", what);
}

static bool bytes_eq(const rest_bytes *a, const rest_bytes *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

/* Writes a CellSet (with its keys and columns complete) in media and reads it back. */
static void cellset_round_trip(const rest_cellset *cs, rest_media media)
{
    buf_t out = {0};
    rest_cellset_writer w;
    FUZZ_CHECK(rest_cellset_begin(&w, media, &out, false) == ST_OK, "begin: %s", st_errmsg());
    size_t written = 0;
    for (size_t i = 0; i < cs->nrows; i++) {
        const rest_row *r = &cs->rows[i];
        for (size_t k = 0; k < r->ncells; k++) {
            const rest_cell *c = &r->cells[k];
            const uint8_t *colon = memchr(c->column.data, ':', c->column.len);
            size_t fl = (size_t)(colon - c->column.data);
            FUZZ_CHECK(rest_cellset_add_cell(&w, r->key.data, r->key.len, c->column.data, fl,
                                             colon + 1, c->column.len - fl - 1, c->ts,
                                             c->value.data, c->value.len) == ST_OK,
                       "add_cell: %s", st_errmsg());
            written++;
        }
        FUZZ_CHECK(rest_cellset_flush_point(&w) == ST_OK, "flush_point: %s", st_errmsg());
    }
    FUZZ_CHECK(rest_cellset_end(&w) == ST_OK, "end: %s", st_errmsg());
    rest_cellset back;
    int rc = rest_cellset_decode(media, out.data, out.len, &back);
    FUZZ_CHECK(rc == ST_OK, "a written CellSet reads back: %s: %s", rest_media_name(media),
               st_errmsg());
    /* each flush point ends a row: the rows read back are the input's rows with cells */
    size_t ri = 0, cells = 0;
    for (size_t i = 0; i < cs->nrows; i++) {
        if (cs->rows[i].ncells == 0)
            continue;
        FUZZ_CHECK(ri < back.nrows, "rows read back: %zu of %zu", back.nrows, cs->nrows);
        const rest_row *a = &cs->rows[i], *b = &back.rows[ri++];
        FUZZ_CHECK(bytes_eq(&a->key, &b->key), "the key reads back: row %zu", i);
        FUZZ_CHECK(a->ncells == b->ncells, "the cells read back: row %zu: %zu vs %zu", i,
                   a->ncells, b->ncells);
        for (size_t k = 0; k < a->ncells; k++) {
            FUZZ_CHECK(bytes_eq(&a->cells[k].column, &b->cells[k].column), "column: %zu", k);
            FUZZ_CHECK(bytes_eq(&a->cells[k].value, &b->cells[k].value), "value: %zu", k);
            FUZZ_CHECK(a->cells[k].ts == b->cells[k].ts, "timestamp: %zu", k);
            cells++;
        }
    }
    FUZZ_CHECK(cells == written && ri == back.nrows, "nothing more reads back: %zu", cells);
    rest_cellset_free(&back);
    buf_free(&out);
}

static void fuzz_cellset(rest_media media, const uint8_t *body, size_t len)
{
    rest_cellset cs;
    int rc = rest_cellset_decode(media, body, len, &cs);
    expect_code(rc, "rest_cellset_decode");
    if (rc != ST_OK)
        return;
    /* round-trip what a put would accept: keys, columns with a ':' and values given */
    bool complete = true;
    for (size_t i = 0; i < cs.nrows && complete; i++) {
        complete = cs.rows[i].has_key;
        for (size_t k = 0; k < cs.rows[i].ncells && complete; k++) {
            const rest_cell *c = &cs.rows[i].cells[k];
            complete = c->has_column && c->has_value && memchr(c->column.data, ':', c->column.len);
        }
    }
    if (complete)
        for (size_t m = 0; m < 3; m++)
            cellset_round_trip(&cs, MEDIA[m]);
    rest_cellset_free(&cs);
}

static void fuzz_schema(rest_media media, const uint8_t *body, size_t len)
{
    rest_table_schema s;
    int rc = rest_schema_decode(media, body, len, &s);
    expect_code(rc, "rest_schema_decode");
    if (rc != ST_OK)
        return;
    strata_table_descriptor_t *td = NULL;
    rc = rest_schema_to_descriptor(&s, "t", &td);
    expect_code(rc, "rest_schema_to_descriptor");
    if (rc == ST_OK) {
        FUZZ_CHECK(td != NULL, "a descriptor: %s", "");
        buf_t out = {0};
        for (int m = 0; m < 4; m++) {
            static const rest_media all[] = {REST_MEDIA_JSON, REST_MEDIA_XML, REST_MEDIA_PROTOBUF,
                                             REST_MEDIA_TEXT};
            buf_reset(&out);
            FUZZ_CHECK(rest_schema_encode(all[m], td, STRATA_TABLE_ENABLED, &out) == ST_OK,
                       "rest_schema_encode: %s", st_errmsg());
        }
        buf_free(&out);
    }
    strata_table_descriptor_destroy(td);
    rest_schema_free(&s);
}

static void check_filter_text(const char *text)
{
    filter *f = NULL;
    int rc = filter_parse(text, &f);
    FUZZ_CHECK(rc == ST_OK, "a converted filter parses: '%s': %s", text, st_errmsg());
    filter_free(f);
}

static void fuzz_scanner(rest_media media, const uint8_t *body, size_t len)
{
    rest_scanner_doc d;
    int rc = rest_scanner_doc_decode(media, body, len, &d);
    expect_code(rc, "rest_scanner_doc_decode");
    if (rc != ST_OK)
        return;
    if (d.filter) {
        char *text = NULL;
        rc = rest_filter_from_json(d.filter, strlen(d.filter), d.reversed, &text);
        expect_code(rc, "rest_filter_from_json");
        if (text)
            check_filter_text(text);
        free(text);
    }
    rest_scanner_doc_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > MAX_BODY)
        return 0;
    unsigned sel = data[0];
    rest_media media = MEDIA[(sel / 8) % 3];
    const uint8_t *body = data + 1;
    size_t len = size - 1;
    st_clear();
    switch (sel % 8) {
    case 0:
        fuzz_cellset(media, body, len);
        break;
    case 1:
        fuzz_schema(media, body, len);
        break;
    case 2:
        fuzz_scanner(media, body, len);
        break;
    case 3: {
        rest_props p;
        int rc = rest_props_decode(media, body, len, &p);
        expect_code(rc, "rest_props_decode");
        if (rc == ST_OK)
            rest_props_free(&p);
        break;
    }
    case 4: {
        char *text = NULL;
        int rc = rest_filter_from_json((const char *)body, len, sel & 0x80, &text);
        expect_code(rc, "rest_filter_from_json");
        if (text)
            check_filter_text(text);
        free(text);
        break;
    }
    case 5: {
        /* a path after the table: up to four parts split on '/' (a NUL ends the text) */
        char *copy = strndup((const char *)body, len);
        FUZZ_CHECK(copy != NULL, "strndup: %zu bytes", len);
        const char *segs[4];
        size_t n = 0;
        for (char *p = copy; n < 4 && p;) {
            segs[n++] = p;
            p = strchr(p, '/');
            if (p)
                *p++ = '\0';
        }
        rest_rowspec spec;
        int rc = rest_rowspec_parse(segs, n, &spec);
        expect_code(rc, "rest_rowspec_parse");
        if (rc == ST_OK) {
            FUZZ_CHECK(spec.row.data != NULL, "a row: %s", "");
            FUZZ_CHECK(!spec.has_time || spec.start_time < spec.end_time, "a time range: [%lld, %lld)", (long long)spec.start_time, (long long)spec.end_time);
            rest_rowspec_free(&spec);
        }
        free(copy);
        break;
    }
    case 6: {
        char *accept = strndup((const char *)body, len);
        static const rest_media offered[] = {REST_MEDIA_XML, REST_MEDIA_JSON, REST_MEDIA_PROTOBUF,
                                             REST_MEDIA_PROTOBUF_IETF, REST_MEDIA_BINARY};
        rest_media m = rest_media_choose(accept, offered, 5);
        bool ok = m == REST_MEDIA_NONE;
        for (size_t i = 0; i < 5; i++)
            ok = ok || m == offered[i];
        FUZZ_CHECK(ok, "the choice is one offered: %d", (int)m);
        free(accept);
        break;
    }
    default: {
        char *ct = strndup((const char *)body, len);
        (void)rest_media_parse(ct);
        free(ct);
        break;
    }
    }
    return 0;
}
