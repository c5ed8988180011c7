/*
 * rest_cellset.c - HBase's CellSet document (docs/rest.md, "CellSet") read from and
 * written to JSON, XML and protobuf:
 *
 *   JSON  {"Row":[{"key":"<b64>","Cell":[{"column":"<b64>","timestamp":N,"$":"<b64>"}]}]}
 *   XML   <CellSet><Row key="<b64>"><Cell column="<b64>" timestamp="N">b64</Cell></Row></CellSet>
 *   pb    CellSet { repeated Row rows = 1 }, Row { key = 1; repeated Cell values = 2 },
 *         Cell { column = 2; timestamp = 3; data = 4 } (common/proto/rest.proto)
 *
 * The writer emits rows as they come, so a long answer can be sent in pieces: a CellSet
 * protobuf is a sequence of `rows` fields, so the bytes up to any row boundary are a
 * valid prefix; the stateless scan's protobuf answer is instead HBase's stream of
 * CellSets each preceded by its 4-byte big-endian length.
 * Thread-safety: reentrant; a writer belongs to one thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"
#include "common/http/json_value.h"
#include "common/http/xml.h"
#include "common/proto/rest.pb-c.h"
#include "common/status.h"
#include "rest/rest_internal.h"

/* ---- reading ---- */

static int copy_bytes(rest_bytes *out, const void *p, size_t n)
{
    out->data = malloc(n ? n : 1);
    if (!out->data)
        return st_error(ST_NOMEM, "out of memory reading a CellSet");
    if (n) /* p is NULL for an empty protobuf field */
        memcpy(out->data, p, n);
    out->len = n;
    return ST_OK;
}

static int b64_field(rest_bytes *out, const char *text, size_t len, const char *what)
{
    buf_t b = {0};
    int rc = base64_decode(&b, text, len);
    if (rc != ST_OK) {
        buf_free(&b);
        return st_error(rc, "%s is not valid base64: %s", what, st_errmsg());
    }
    if (!b.data && !(b.data = malloc(1)))
        return st_error(ST_NOMEM, "out of memory reading a CellSet");
    out->data = b.data;
    out->len = b.len;
    return ST_OK;
}

static int parse_ts_text(const char *t, size_t n, int64_t *out, const char *where)
{
    char tmp[32];
    if (n == 0 || n >= sizeof(tmp))
        return st_error(ST_INVALID_ARGUMENT, "%s: timestamp '%.*s' is not an integer", where,
                        (int)(n > 40 ? 40 : n), t);
    memcpy(tmp, t, n);
    tmp[n] = '\0';
    char *end = NULL;
    errno = 0;
    long long v = strtoll(tmp, &end, 10);
    if (errno || *end || end == tmp || (tmp[0] != '-' && (tmp[0] < '0' || tmp[0] > '9')))
        return st_error(ST_INVALID_ARGUMENT, "%s: timestamp '%s' is not an integer", where, tmp);
    *out = v;
    return ST_OK;
}

static void init_cell(rest_cell *c)
{
    memset(c, 0, sizeof(*c));
    c->ts = INT64_MAX;
}

/* A JSON member that should be an array: its length and element i (a single object is
 * taken as an array of one, as lenient clients send). */
static size_t json_len(const json_value *v)
{
    return v->type == JSON_ARRAY ? v->n : 1;
}

static const json_value *json_at(const json_value *v, size_t i)
{
    return v->type == JSON_ARRAY ? v->items[i] : v;
}

static int json_cell(const json_value *jc, rest_cell *c, size_t r, size_t i)
{
    char where[64];
    snprintf(where, sizeof(where), "Row %zu, Cell %zu", r, i);
    if (jc->type != JSON_OBJECT)
        return st_error(ST_INVALID_ARGUMENT, "%s is a JSON %s, not an object", where,
                        json_type_name(jc->type));
    for (size_t k = 0; k < jc->n; k++) {
        const char *key = jc->keys[k];
        const json_value *v = jc->items[k];
        size_t len = 0;
        const char *text = json_value_text(v, &len);
        int rc = ST_OK;
        if (json_value_member(jc, key) != v) /* a repeated member would replace the first */
            return st_error(ST_INVALID_ARGUMENT, "%s: %s is given twice", where, key);
        if (strcmp(key, "column") == 0 || strcmp(key, "$") == 0) {
            if (!v || v->type != JSON_STRING)
                return st_error(ST_INVALID_ARGUMENT, "%s: \"%s\" must be a base64 string", where,
                                key);
            bool col = key[0] == 'c';
            char what[96];
            snprintf(what, sizeof(what), "%s: %s", where, col ? "column" : "value ($)");
            rc = b64_field(col ? &c->column : &c->value, text, len, what);
            if (col)
                c->has_column = rc == ST_OK;
            else
                c->has_value = rc == ST_OK;
        } else if (strcmp(key, "timestamp") == 0) {
            if (!text || v->type == JSON_BOOL)
                return st_error(ST_INVALID_ARGUMENT, "%s: timestamp must be a number", where);
            rc = parse_ts_text(text, len, &c->ts, where);
        } else {
            return st_error(ST_INVALID_ARGUMENT,
                            "%s: unknown member \"%s\" (a cell has column, timestamp and $)",
                            where, key);
        }
        if (rc != ST_OK)
            return rc;
    }
    return ST_OK;
}

static int json_row(const json_value *jr, rest_row *row, size_t r)
{
    if (jr->type != JSON_OBJECT)
        return st_error(ST_INVALID_ARGUMENT, "Row %zu is a JSON %s, not an object", r,
                        json_type_name(jr->type));
    for (size_t k = 0; k < jr->n; k++) {
        const char *key = jr->keys[k];
        const json_value *v = jr->items[k];
        if (json_value_member(jr, key) != v) /* a repeated member would replace the first */
            return st_error(ST_INVALID_ARGUMENT, "Row %zu: %s is given twice", r, key);
        if (strcmp(key, "key") == 0) {
            if (v->type != JSON_STRING)
                return st_error(ST_INVALID_ARGUMENT, "Row %zu: key must be a base64 string", r);
            char what[48];
            snprintf(what, sizeof(what), "Row %zu: key", r);
            int rc = b64_field(&row->key, v->str, v->len, what);
            if (rc != ST_OK)
                return rc;
            row->has_key = true;
        } else if (strcmp(key, "Cell") == 0) {
            if (v->type != JSON_ARRAY && v->type != JSON_OBJECT)
                return st_error(ST_INVALID_ARGUMENT, "Row %zu: Cell must be an array of cells", r);
            size_t n = json_len(v);
            if (row->cells)
                return st_error(ST_INVALID_ARGUMENT, "Row %zu: Cell is given twice", r);
            row->cells = calloc(n ? n : 1, sizeof(*row->cells));
            if (!row->cells)
                return st_error(ST_NOMEM, "out of memory reading a CellSet");
            for (size_t i = 0; i < n; i++) {
                init_cell(&row->cells[i]);
                row->ncells++;
                int rc = json_cell(json_at(v, i), &row->cells[i], r, i);
                if (rc != ST_OK)
                    return rc;
            }
        } else {
            return st_error(ST_INVALID_ARGUMENT,
                            "Row %zu: unknown member \"%s\" (a row has key and Cell)", r, key);
        }
    }
    return ST_OK;
}

static int decode_json(const void *body, size_t len, rest_cellset *cs)
{
    json_value *doc = NULL;
    int rc = json_value_parse(body, len, &doc);
    if (rc != ST_OK)
        return rc;
    if (doc->type != JSON_OBJECT)
        rc = st_error(ST_INVALID_ARGUMENT, "a CellSet is a JSON object with a \"Row\" array");
    for (size_t k = 0; rc == ST_OK && k < doc->n; k++)
        if (strcmp(doc->keys[k], "Row") != 0)
            rc = st_error(ST_INVALID_ARGUMENT, "unknown member \"%s\" in a CellSet (it has Row)",
                          doc->keys[k]);
        else if (json_value_member(doc, "Row") != doc->items[k])
            rc = st_error(ST_INVALID_ARGUMENT, "a CellSet's Row is given twice");
    const json_value *rows = rc == ST_OK ? json_value_member(doc, "Row") : NULL;
    if (rc == ST_OK && rows && rows->type != JSON_ARRAY && rows->type != JSON_OBJECT)
        rc = st_error(ST_INVALID_ARGUMENT, "a CellSet's Row must be an array of rows");
    if (rc == ST_OK && rows) {
        size_t n = json_len(rows);
        cs->rows = calloc(n ? n : 1, sizeof(*cs->rows));
        if (!cs->rows)
            rc = st_error(ST_NOMEM, "out of memory reading a CellSet");
        for (size_t i = 0; rc == ST_OK && i < n; i++) {
            cs->nrows++;
            rc = json_row(json_at(rows, i), &cs->rows[i], i);
        }
    }
    json_value_free(doc);
    return rc;
}

static int xml_only_attrs(const xml_node *n, const char *const *allowed, const char *where)
{
    for (size_t i = 0; i < n->nattrs; i++) {
        bool ok = false;
        for (size_t k = 0; allowed[k]; k++)
            ok = ok || strcmp(n->attr_names[i], allowed[k]) == 0;
        if (!ok)
            return st_error(ST_INVALID_ARGUMENT, "%s: unknown attribute %s", where,
                            n->attr_names[i]);
    }
    return ST_OK;
}

static int xml_cell(const xml_node *xc, rest_cell *c, size_t r, size_t i)
{
    char where[64];
    snprintf(where, sizeof(where), "Row %zu, Cell %zu", r, i);
    static const char *const attrs[] = {"column", "timestamp", NULL};
    int rc = xml_only_attrs(xc, attrs, where);
    if (rc == ST_OK && xc->nchildren)
        rc = st_error(ST_INVALID_ARGUMENT, "%s: unexpected element <%s> inside a cell", where,
                      xc->children[0]->name);
    const char *col = xml_attr(xc, "column"), *ts = xml_attr(xc, "timestamp");
    if (rc == ST_OK && col) {
        char what[96];
        snprintf(what, sizeof(what), "%s: column", where);
        rc = b64_field(&c->column, col, strlen(col), what);
        c->has_column = rc == ST_OK;
    }
    if (rc == ST_OK && ts)
        rc = parse_ts_text(ts, strlen(ts), &c->ts, where);
    if (rc == ST_OK) {
        /* the value is the element's text, surrounding whitespace aside */
        const char *t = xc->text;
        size_t n = xc->text_len;
        while (n && (*t == ' ' || *t == '\n' || *t == '\r' || *t == '\t'))
            t++, n--;
        while (n && (t[n - 1] == ' ' || t[n - 1] == '\n' || t[n - 1] == '\r' || t[n - 1] == '\t'))
            n--;
        char what[96];
        snprintf(what, sizeof(what), "%s: value", where);
        rc = b64_field(&c->value, t, n, what);
        c->has_value = rc == ST_OK;
    }
    return rc;
}

static int xml_row(const xml_node *xr, rest_row *row, size_t r)
{
    char where[32];
    snprintf(where, sizeof(where), "Row %zu", r);
    if (strcmp(xr->name, "Row") != 0)
        return st_error(ST_INVALID_ARGUMENT, "unexpected element <%s> in a CellSet (it holds "
                                             "<Row> elements)",
                        xr->name);
    static const char *const attrs[] = {"key", NULL};
    int rc = xml_only_attrs(xr, attrs, where);
    if (rc == ST_OK && !xml_text_blank(xr))
        rc = st_error(ST_INVALID_ARGUMENT, "%s: text directly inside <Row>", where);
    const char *key = xml_attr(xr, "key");
    if (rc == ST_OK && key) {
        char what[48];
        snprintf(what, sizeof(what), "%s: key", where);
        rc = b64_field(&row->key, key, strlen(key), what);
        row->has_key = rc == ST_OK;
    }
    if (rc == ST_OK && !(row->cells = calloc(xr->nchildren ? xr->nchildren : 1, sizeof(*row->cells))))
        rc = st_error(ST_NOMEM, "out of memory reading a CellSet");
    for (size_t i = 0; rc == ST_OK && i < xr->nchildren; i++) {
        if (strcmp(xr->children[i]->name, "Cell") != 0)
            return st_error(ST_INVALID_ARGUMENT, "%s: unexpected element <%s> (a row holds <Cell> "
                                                 "elements)",
                            where, xr->children[i]->name);
        init_cell(&row->cells[i]);
        row->ncells++;
        rc = xml_cell(xr->children[i], &row->cells[i], r, i);
    }
    return rc;
}

static int decode_xml(const void *body, size_t len, rest_cellset *cs)
{
    xml_node *doc = NULL;
    int rc = xml_parse(body, len, &doc);
    if (rc != ST_OK)
        return rc;
    if (strcmp(doc->name, "CellSet") != 0)
        rc = st_error(ST_INVALID_ARGUMENT, "the root element is <%s>, not <CellSet>", doc->name);
    if (rc == ST_OK && (doc->nattrs || !xml_text_blank(doc)))
        rc = st_error(ST_INVALID_ARGUMENT, "<CellSet> takes no attributes or text, only <Row> "
                                           "elements");
    if (rc == ST_OK && !(cs->rows = calloc(doc->nchildren ? doc->nchildren : 1, sizeof(*cs->rows))))
        rc = st_error(ST_NOMEM, "out of memory reading a CellSet");
    for (size_t i = 0; rc == ST_OK && i < doc->nchildren; i++) {
        cs->nrows++;
        rc = xml_row(doc->children[i], &cs->rows[i], i);
    }
    xml_node_free(doc);
    return rc;
}

static int decode_pb(const void *body, size_t len, rest_cellset *cs)
{
    Strata__Rest__CellSet *m = strata__rest__cell_set__unpack(NULL, len, body);
    if (!m)
        return st_error(ST_INVALID_ARGUMENT, "the body is not a protobuf CellSet message (%zu "
                                             "bytes)",
                        len);
    int rc = ST_OK;
    if (!(cs->rows = calloc(m->n_rows ? m->n_rows : 1, sizeof(*cs->rows))))
        rc = st_error(ST_NOMEM, "out of memory reading a CellSet");
    for (size_t i = 0; rc == ST_OK && i < m->n_rows; i++) {
        const Strata__Rest__CellSet__Row *pr = m->rows[i];
        rest_row *row = &cs->rows[i];
        cs->nrows++;
        rc = copy_bytes(&row->key, pr->key.data, pr->key.len);
        row->has_key = true;
        if (rc == ST_OK && !(row->cells = calloc(pr->n_values ? pr->n_values : 1, sizeof(*row->cells))))
            rc = st_error(ST_NOMEM, "out of memory reading a CellSet");
        for (size_t k = 0; rc == ST_OK && k < pr->n_values; k++) {
            const Strata__Rest__Cell *pc = pr->values[k];
            rest_cell *c = &row->cells[k];
            init_cell(c);
            row->ncells++;
            if (pc->has_column) {
                rc = copy_bytes(&c->column, pc->column.data, pc->column.len);
                c->has_column = true;
            }
            if (rc == ST_OK && pc->has_data) {
                rc = copy_bytes(&c->value, pc->data.data, pc->data.len);
                c->has_value = true;
            }
            if (pc->has_timestamp)
                c->ts = pc->timestamp;
        }
    }
    strata__rest__cell_set__free_unpacked(m, NULL);
    return rc;
}

int rest_cellset_decode(rest_media media, const void *body, size_t len, rest_cellset *out)
{
    memset(out, 0, sizeof(*out));
    int rc;
    if (media == REST_MEDIA_JSON)
        rc = decode_json(body, len, out);
    else if (media == REST_MEDIA_XML)
        rc = decode_xml(body, len, out);
    else if (rest_media_is_protobuf(media))
        rc = decode_pb(body, len, out);
    else
        rc = st_error(ST_INVALID_ARGUMENT, "a CellSet cannot be read from %s",
                      rest_media_name(media));
    if (rc != ST_OK)
        rest_cellset_free(out);
    return rc;
}

void rest_cellset_free(rest_cellset *cs)
{
    for (size_t i = 0; i < cs->nrows; i++) {
        rest_row *r = &cs->rows[i];
        free(r->key.data);
        for (size_t k = 0; k < r->ncells; k++) {
            free(r->cells[k].column.data);
            free(r->cells[k].value.data);
        }
        free(r->cells);
    }
    free(cs->rows);
    memset(cs, 0, sizeof(*cs));
}

/* ---- writing ---- */

#define XML_HEAD "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>"

static int put(buf_t *b, const char *s)
{
    return buf_append(b, s, strlen(s));
}

static int pb_tag(buf_t *b, unsigned field, unsigned wire)
{
    return buf_append_varint(b, (uint64_t)field << 3 | wire);
}

static int pb_bytes(buf_t *b, unsigned field, const void *p, size_t n)
{
    int rc = pb_tag(b, field, 2);
    if (rc == ST_OK)
        rc = buf_append_varint(b, n);
    return rc == ST_OK ? buf_append(b, p, n) : rc;
}

int rest_cellset_begin(rest_cellset_writer *w, rest_media media, buf_t *out, bool stream)
{
    memset(w, 0, sizeof(*w));
    w->media = media;
    w->out = out;
    w->stream = stream && rest_media_is_protobuf(media);
    int rc = ST_OK;
    if (media == REST_MEDIA_JSON)
        rc = put(out, "{\"Row\":[");
    else if (media == REST_MEDIA_XML)
        rc = put(out, XML_HEAD "<CellSet>");
    return rc == ST_OK ? ST_OK : st_error(ST_NOMEM, "out of memory writing a CellSet");
}

/* Ends the open row: JSON/XML close its elements; protobuf writes the buffered Row. */
static int end_row(rest_cellset_writer *w)
{
    if (!w->open_row)
        return ST_OK;
    w->open_row = false;
    int rc = ST_OK;
    if (w->media == REST_MEDIA_JSON) {
        rc = put(w->out, "]}");
    } else if (w->media == REST_MEDIA_XML) {
        rc = put(w->out, "</Row>");
    } else {
        if (w->stream && !w->open_set) {
            w->set_mark = w->out->len;
            rc = buf_append_be32(w->out, 0);
            w->open_set = rc == ST_OK;
        }
        if (rc == ST_OK)
            rc = pb_bytes(w->out, 1, w->row_pb.data, w->row_pb.len);
        buf_reset(&w->row_pb);
    }
    return rc;
}

static int begin_row(rest_cellset_writer *w, const void *row, size_t row_len)
{
    int rc = buf_set(&w->row_key, row, row_len);
    w->open_row = true;
    w->cells_in_row = 0;
    if (rc != ST_OK)
        return rc;
    buf_t *o = w->out;
    if (w->media == REST_MEDIA_JSON) {
        if (w->rows > 0)
            rc = put(o, ",");
        if (rc == ST_OK)
            rc = put(o, "{\"key\":\"");
        if (rc == ST_OK)
            rc = base64_encode(o, row, row_len);
        if (rc == ST_OK)
            rc = put(o, "\",\"Cell\":[");
    } else if (w->media == REST_MEDIA_XML) {
        rc = put(o, "<Row key=\"");
        if (rc == ST_OK)
            rc = base64_encode(o, row, row_len);
        if (rc == ST_OK)
            rc = put(o, "\">");
    } else {
        buf_reset(&w->row_pb);
        rc = pb_bytes(&w->row_pb, 1, row, row_len);
    }
    w->rows++;
    return rc;
}

int rest_cellset_add_cell(rest_cellset_writer *w, const void *row, size_t row_len,
                          const void *fam, size_t fam_len, const void *qual, size_t qual_len,
                          int64_t ts, const void *value, size_t value_len)
{
    int rc = ST_OK;
    if (!w->open_row || w->row_key.len != row_len ||
        (row_len && memcmp(w->row_key.data, row, row_len) != 0)) {
        rc = end_row(w);
        if (rc == ST_OK)
            rc = begin_row(w, row, row_len);
    }
    /* the column is family ':' qualifier */
    uint8_t small[256];
    size_t col_len = fam_len + 1 + qual_len;
    uint8_t *col = col_len <= sizeof(small) ? small : malloc(col_len);
    if (!col)
        return st_error(ST_NOMEM, "out of memory writing a CellSet");
    memcpy(col, fam, fam_len);
    col[fam_len] = ':';
    if (qual_len)
        memcpy(col + fam_len + 1, qual, qual_len);
    buf_t *o = w->out;
    char num[32];
    snprintf(num, sizeof(num), "%lld", (long long)ts);
    if (rc != ST_OK) {
        /* fall through to the cleanup */
    } else if (w->media == REST_MEDIA_JSON) {
        rc = put(o, w->cells_in_row ? ",{\"column\":\"" : "{\"column\":\"");
        if (rc == ST_OK)
            rc = base64_encode(o, col, col_len);
        if (rc == ST_OK)
            rc = put(o, "\",\"timestamp\":");
        if (rc == ST_OK)
            rc = put(o, num);
        if (rc == ST_OK)
            rc = put(o, ",\"$\":\"");
        if (rc == ST_OK)
            rc = base64_encode(o, value, value_len);
        if (rc == ST_OK)
            rc = put(o, "\"}");
    } else if (w->media == REST_MEDIA_XML) {
        rc = put(o, "<Cell column=\"");
        if (rc == ST_OK)
            rc = base64_encode(o, col, col_len);
        if (rc == ST_OK)
            rc = put(o, "\" timestamp=\"");
        if (rc == ST_OK)
            rc = put(o, num);
        if (rc == ST_OK)
            rc = put(o, "\">");
        if (rc == ST_OK)
            rc = base64_encode(o, value, value_len);
        if (rc == ST_OK)
            rc = put(o, "</Cell>");
    } else {
        buf_t cell = {0};
        rc = pb_bytes(&cell, 2, col, col_len);
        if (rc == ST_OK)
            rc = pb_tag(&cell, 3, 0);
        if (rc == ST_OK)
            rc = buf_append_varint(&cell, (uint64_t)ts);
        if (rc == ST_OK)
            rc = pb_bytes(&cell, 4, value, value_len);
        if (rc == ST_OK)
            rc = pb_bytes(&w->row_pb, 2, cell.data, cell.len);
        buf_free(&cell);
    }
    if (col != small)
        free(col);
    w->cells_in_row++;
    return rc == ST_OK ? ST_OK : st_error(ST_NOMEM, "out of memory writing a CellSet");
}

int rest_cellset_add_result(rest_cellset_writer *w, const strata_result_t *r)
{
    size_t n = strata_result_cell_count(r);
    for (size_t i = 0; i < n; i++) {
        size_t rl, fl, ql, vl;
        const char *row = strata_result_cell_row(r, i, &rl);
        const char *fam = strata_result_cell_family(r, i, &fl);
        const char *qual = strata_result_cell_qualifier(r, i, &ql);
        const char *val = strata_result_cell_value(r, i, &vl);
        int rc = rest_cellset_add_cell(w, row, rl, fam, fl, qual, ql,
                                       strata_result_cell_timestamp(r, i), val, vl);
        if (rc != ST_OK)
            return rc;
    }
    return ST_OK;
}

int rest_cellset_flush_point(rest_cellset_writer *w)
{
    int rc = end_row(w);
    if (rc == ST_OK && w->stream && w->open_set) {
        size_t len = w->out->len - w->set_mark - 4;
        uint8_t *p = w->out->data + w->set_mark;
        p[0] = (uint8_t)(len >> 24);
        p[1] = (uint8_t)(len >> 16);
        p[2] = (uint8_t)(len >> 8);
        p[3] = (uint8_t)len;
        w->open_set = false;
    }
    return rc == ST_OK ? ST_OK : st_error(ST_NOMEM, "out of memory writing a CellSet");
}

int rest_cellset_end(rest_cellset_writer *w)
{
    int rc = ST_OK;
    if (w->out) {
        rc = rest_cellset_flush_point(w);
        if (rc == ST_OK && w->media == REST_MEDIA_JSON)
            rc = put(w->out, "]}");
        else if (rc == ST_OK && w->media == REST_MEDIA_XML)
            rc = put(w->out, "</CellSet>");
    }
    buf_free(&w->row_key);
    buf_free(&w->row_pb);
    w->out = NULL;
    return rc == ST_OK ? ST_OK : st_error(ST_NOMEM, "out of memory writing a CellSet");
}
