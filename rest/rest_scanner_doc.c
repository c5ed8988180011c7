/*
 * rest_scanner_doc.c - HBase's Scanner document (docs/rest.md, "Scanner"), the body of
 * PUT/POST /<table>/scanner, read from JSON, XML or protobuf:
 *
 *   JSON {"startRow":"<b64>","endRow":"<b64>","column":["<b64>",...],"batch":10,
 *         "caching":100,"startTime":0,"endTime":N,"maxVersions":1,"filter":"<JSON filter>",
 *         "reversed":false}
 *   XML  <Scanner startRow="<b64>" batch="10" ...><column>b64</column><filter>...</filter></Scanner>
 *
 * "reversed" is Strata's addition (protobuf field 100). Visibility labels are refused
 * (Strata has none); cacheBlocks is a hint and accepted either way. Unknown members and
 * attributes are refused.
 * Thread-safety: reentrant.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/base64.h"
#include "common/http/json_value.h"
#include "common/http/xml.h"
#include "common/proto/rest.pb-c.h"
#include "common/status.h"
#include "rest/rest_internal.h"

void rest_scanner_doc_free(rest_scanner_doc *d)
{
    free(d->start_row.data);
    free(d->end_row.data);
    for (size_t i = 0; i < d->ncolumns; i++)
        free(d->columns[i].data);
    free(d->columns);
    free(d->filter);
    memset(d, 0, sizeof(*d));
}

static int b64(rest_bytes *out, const char *t, size_t n, const char *what)
{
    buf_t b = {0};
    int rc = base64_decode(&b, t, n);
    if (rc != ST_OK) {
        buf_free(&b);
        return st_error(rc, "Scanner %s is not valid base64: %s", what, st_errmsg());
    }
    if (!b.data && !(b.data = malloc(1)))
        return st_error(ST_NOMEM, "out of memory reading a Scanner");
    free(out->data);
    out->data = b.data;
    out->len = b.len;
    return ST_OK;
}

static int add_column(rest_scanner_doc *d, const char *t, size_t n)
{
    rest_bytes *v = realloc(d->columns, (d->ncolumns + 1) * sizeof(*v));
    if (!v)
        return st_error(ST_NOMEM, "out of memory reading a Scanner");
    d->columns = v;
    memset(&v[d->ncolumns], 0, sizeof(v[0]));
    int rc = b64(&v[d->ncolumns], t, n, "column");
    if (rc == ST_OK && (v[d->ncolumns].len == 0 || v[d->ncolumns].data[0] == ':')) {
        free(v[d->ncolumns].data);
        return st_error(ST_INVALID_ARGUMENT, "Scanner column %zu names no family", d->ncolumns);
    }
    if (rc == ST_OK)
        d->ncolumns++;
    return rc;
}

static int int_of(const char *name, const char *t, size_t n, int64_t min, int64_t max,
                  int64_t *out)
{
    char tmp[32];
    if (n == 0 || n >= sizeof(tmp))
        return st_error(ST_INVALID_ARGUMENT, "Scanner %s is not an integer", name);
    memcpy(tmp, t, n);
    tmp[n] = '\0';
    char *end = NULL;
    errno = 0;
    long long v = strtoll(tmp, &end, 10);
    if (errno || *end || end == tmp || v < min || v > max ||
        !(tmp[0] == '-' || (tmp[0] >= '0' && tmp[0] <= '9')))
        return st_error(ST_INVALID_ARGUMENT, "Scanner %s '%s' is not an integer in [%lld, %lld]",
                        name, tmp, (long long)min, (long long)max);
    *out = v;
    return ST_OK;
}

/* One scalar field by name (JSON member or XML attribute). */
static int set_field(rest_scanner_doc *d, const char *name, const char *t, size_t n, bool *known)
{
    int64_t v = 0;
    int rc = ST_OK;
    *known = true;
    if (strcmp(name, "startRow") == 0) {
        rc = b64(&d->start_row, t, n, "startRow");
    } else if (strcmp(name, "endRow") == 0) {
        rc = b64(&d->end_row, t, n, "endRow");
    } else if (strcmp(name, "batch") == 0 || strcmp(name, "caching") == 0 ||
               strcmp(name, "maxVersions") == 0) {
        rc = int_of(name, t, n, 0, INT32_MAX, &v);
        if (rc == ST_OK && name[0] == 'b')
            d->batch = (int32_t)v;
        else if (rc == ST_OK && name[0] == 'c')
            d->caching = (int32_t)v;
        else if (rc == ST_OK)
            d->max_versions = (int32_t)v;
    } else if (strcmp(name, "startTime") == 0 || strcmp(name, "endTime") == 0) {
        rc = int_of(name, t, n, 0, INT64_MAX, &v);
        if (rc == ST_OK && name[0] == 's')
            d->start_time = v;
        else if (rc == ST_OK)
            d->end_time = v;
    } else if (strcmp(name, "filter") == 0) {
        free(d->filter);
        d->filter = n ? strndup(t, n) : NULL;
        if (n && !d->filter)
            rc = st_error(ST_NOMEM, "out of memory reading a Scanner");
    } else if (strcmp(name, "reversed") == 0 || strcmp(name, "cacheBlocks") == 0) {
        bool b = n == 4 && strncasecmp(t, "true", 4) == 0;
        if (!b && !(n == 5 && strncasecmp(t, "false", 5) == 0))
            rc = st_error(ST_INVALID_ARGUMENT, "Scanner %s must be true or false", name);
        else if (name[0] == 'r')
            d->reversed = b;
        else
            d->cache_blocks = b;
    } else {
        *known = false;
    }
    return rc;
}

static int decode_json(const void *body, size_t len, rest_scanner_doc *d)
{
    json_value *doc = NULL;
    int rc = json_value_parse(body, len, &doc);
    if (rc != ST_OK)
        return rc;
    if (doc->type != JSON_OBJECT)
        rc = st_error(ST_INVALID_ARGUMENT, "a Scanner is a JSON object");
    for (size_t k = 0; rc == ST_OK && k < doc->n; k++) {
        const char *key = doc->keys[k];
        const json_value *v = doc->items[k];
        if (strcmp(key, "column") == 0) {
            if (v->type == JSON_STRING) {
                rc = add_column(d, v->str, v->len);
                continue;
            }
            if (v->type != JSON_ARRAY) {
                rc = st_error(ST_INVALID_ARGUMENT, "Scanner column must be an array of base64 "
                                                   "strings");
                continue;
            }
            for (size_t i = 0; rc == ST_OK && i < v->n; i++)
                rc = v->items[i]->type == JSON_STRING
                         ? add_column(d, v->items[i]->str, v->items[i]->len)
                         : st_error(ST_INVALID_ARGUMENT, "Scanner column %zu is not a string", i);
            continue;
        }
        if (strcmp(key, "labels") == 0) {
            bool empty = v->type == JSON_NULL || (v->type == JSON_ARRAY && v->n == 0);
            if (!empty)
                rc = st_error(ST_UNSUPPORTED, "Scanner labels (visibility labels) are not "
                                              "supported by Strata");
            continue;
        }
        if (v->type == JSON_NULL)
            continue; /* Jackson writes unset fields as null */
        size_t tl = 0;
        const char *text = json_value_text(v, &tl);
        bool known = false;
        if (!text)
            rc = st_error(ST_INVALID_ARGUMENT, "Scanner %s must be a string, number or boolean",
                          key);
        else
            rc = set_field(d, key, text, tl, &known);
        if (rc == ST_OK && !known)
            rc = st_error(ST_INVALID_ARGUMENT, "unknown Scanner member \"%s\"", key);
    }
    json_value_free(doc);
    return rc;
}

static int decode_xml(const void *body, size_t len, rest_scanner_doc *d)
{
    xml_node *doc = NULL;
    int rc = xml_parse(body, len, &doc);
    if (rc != ST_OK)
        return rc;
    if (strcmp(doc->name, "Scanner") != 0)
        rc = st_error(ST_INVALID_ARGUMENT, "the root element is <%s>, not <Scanner>", doc->name);
    for (size_t i = 0; rc == ST_OK && i < doc->nattrs; i++) {
        bool known = false;
        const char *v = doc->attr_values[i];
        rc = set_field(d, doc->attr_names[i], v, strlen(v), &known);
        if (rc == ST_OK && !known)
            rc = st_error(ST_INVALID_ARGUMENT, "unknown Scanner attribute %s",
                          doc->attr_names[i]);
    }
    for (size_t i = 0; rc == ST_OK && i < doc->nchildren; i++) {
        const xml_node *c = doc->children[i];
        if (strcmp(c->name, "column") == 0) {
            rc = add_column(d, c->text, c->text_len);
        } else if (strcmp(c->name, "filter") == 0) {
            bool known;
            rc = set_field(d, "filter", c->text, c->text_len, &known);
        } else if (strcmp(c->name, "labels") == 0) {
            if (c->text_len)
                rc = st_error(ST_UNSUPPORTED, "Scanner labels (visibility labels) are not "
                                              "supported by Strata");
        } else {
            rc = st_error(ST_INVALID_ARGUMENT, "unexpected element <%s> in <Scanner>", c->name);
        }
    }
    xml_node_free(doc);
    return rc;
}

static int copy_pb(rest_bytes *out, const ProtobufCBinaryData *b)
{
    out->data = malloc(b->len ? b->len : 1);
    if (!out->data)
        return st_error(ST_NOMEM, "out of memory reading a Scanner");
    if (b->len) /* data is NULL for an empty field */
        memcpy(out->data, b->data, b->len);
    out->len = b->len;
    return ST_OK;
}

static int decode_pb(const void *body, size_t len, rest_scanner_doc *d)
{
    Strata__Rest__Scanner *m = strata__rest__scanner__unpack(NULL, len, body);
    if (!m)
        return st_error(ST_INVALID_ARGUMENT, "the body is not a protobuf Scanner message");
    int rc = ST_OK;
    if (m->has_startrow)
        rc = copy_pb(&d->start_row, &m->startrow);
    if (rc == ST_OK && m->has_endrow)
        rc = copy_pb(&d->end_row, &m->endrow);
    for (size_t i = 0; rc == ST_OK && i < m->n_columns; i++) {
        rest_bytes *v = realloc(d->columns, (d->ncolumns + 1) * sizeof(*v));
        if (!v) {
            rc = st_error(ST_NOMEM, "out of memory reading a Scanner");
            break;
        }
        d->columns = v;
        rc = copy_pb(&v[d->ncolumns], &m->columns[i]);
        if (rc == ST_OK && (v[d->ncolumns].len == 0 || v[d->ncolumns].data[0] == ':')) {
            free(v[d->ncolumns].data);
            rc = st_error(ST_INVALID_ARGUMENT, "Scanner column %zu names no family", i);
        }
        if (rc == ST_OK)
            d->ncolumns++;
    }
    if (rc == ST_OK && ((m->has_batch && m->batch < 0) || (m->has_caching && m->caching < 0) ||
                        (m->has_maxversions && m->maxversions < 0) ||
                        (m->has_starttime && m->starttime < 0) || (m->has_endtime && m->endtime < 0)))
        rc = st_error(ST_INVALID_ARGUMENT, "Scanner batch, caching, maxVersions and times must "
                                           "not be negative");
    if (rc == ST_OK) {
        d->batch = m->has_batch ? m->batch : 0;
        d->caching = m->has_caching ? m->caching : 0;
        d->max_versions = m->has_maxversions ? m->maxversions : 0;
        d->start_time = m->has_starttime ? m->starttime : 0;
        d->end_time = m->has_endtime ? m->endtime : 0;
        d->reversed = m->has_reversed && m->reversed;
        d->cache_blocks = !m->has_cacheblocks || m->cacheblocks;
        if (m->n_labels)
            rc = st_error(ST_UNSUPPORTED, "Scanner labels (visibility labels) are not supported "
                                          "by Strata");
    }
    if (rc == ST_OK && m->filter && m->filter[0] && !(d->filter = strdup(m->filter)))
        rc = st_error(ST_NOMEM, "out of memory reading a Scanner");
    strata__rest__scanner__free_unpacked(m, NULL);
    return rc;
}

int rest_scanner_doc_decode(rest_media media, const void *body, size_t len,
                            rest_scanner_doc *out)
{
    memset(out, 0, sizeof(*out));
    out->cache_blocks = true;
    int rc;
    if (media == REST_MEDIA_JSON)
        rc = decode_json(body, len, out);
    else if (media == REST_MEDIA_XML)
        rc = decode_xml(body, len, out);
    else if (rest_media_is_protobuf(media))
        rc = decode_pb(body, len, out);
    else
        rc = st_error(ST_INVALID_ARGUMENT, "a Scanner cannot be read from %s",
                      rest_media_name(media));
    if (rc == ST_OK && out->end_time && out->end_time <= out->start_time)
        rc = st_error(ST_INVALID_ARGUMENT,
                      "Scanner time range [%lld, %lld) is empty (endTime is exclusive)",
                      (long long)out->start_time, (long long)out->end_time);
    if (rc != ST_OK)
        rest_scanner_doc_free(out);
    return rc;
}
