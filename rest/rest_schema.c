/*
 * rest_schema.c - HBase's TableSchema document (docs/rest.md, "TableSchema"): a table's
 * name, attributes and column families with theirs, read from JSON, XML or protobuf and
 * written in those and text/plain, and its mapping onto Strata's table descriptors.
 *
 *   JSON {"name":"t","ColumnSchema":[{"name":"cf","VERSIONS":"3",...}],"IS_META":"false",...}
 *   XML  <TableSchema name="t" IS_META="false"><ColumnSchema name="cf" VERSIONS="3"/></TableSchema>
 *
 * Attribute names are HBase's. Every attribute is honoured or refused: Strata's own
 * (VERSIONS, TTL, BLOOMFILTER ... MAX_FILESIZE, DURABILITY), HBase attributes Strata does
 * not have are accepted only at HBase's default value (IN_MEMORY => false ...), and other
 * table attributes become METADATA values as in HBase.
 * Thread-safety: reentrant.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/http/json.h"
#include "common/http/json_value.h"
#include "common/http/xml.h"
#include "common/proto/rest.pb-c.h"
#include "common/status.h"
#include "rest/rest_internal.h"

#define HBASE_TTL_FOREVER "2147483647" /* HConstants.FOREVER, seconds */

/* ---- the document in memory ---- */

static int add_attr(rest_attr **v, size_t *n, const char *name, const char *value, size_t vlen)
{
    rest_attr *a = realloc(*v, (*n + 1) * sizeof(**v));
    if (!a)
        return st_error(ST_NOMEM, "out of memory reading a TableSchema");
    *v = a;
    a[*n].name = strdup(name);
    a[*n].value = strndup(value, vlen);
    if (!a[*n].name || !a[*n].value) {
        free(a[*n].name);
        free(a[*n].value);
        return st_error(ST_NOMEM, "out of memory reading a TableSchema");
    }
    (*n)++;
    return ST_OK;
}

static void free_attrs(rest_attr *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].name);
        free(v[i].value);
    }
    free(v);
}

void rest_schema_free(rest_table_schema *s)
{
    free(s->name);
    free_attrs(s->attrs, s->nattrs);
    for (size_t i = 0; i < s->nfamilies; i++) {
        free(s->families[i].name);
        free_attrs(s->families[i].attrs, s->families[i].nattrs);
    }
    free(s->families);
    memset(s, 0, sizeof(*s));
}

static rest_family_schema *new_family(rest_table_schema *s, const char *name)
{
    rest_family_schema *f = realloc(s->families, (s->nfamilies + 1) * sizeof(*f));
    if (!f)
        return NULL;
    s->families = f;
    f = &s->families[s->nfamilies];
    memset(f, 0, sizeof(*f));
    if (name && !(f->name = strdup(name)))
        return NULL;
    s->nfamilies++;
    return f;
}

/* ---- reading ---- */

static int json_family(const json_value *jf, rest_table_schema *s, size_t i)
{
    if (jf->type != JSON_OBJECT)
        return st_error(ST_INVALID_ARGUMENT, "ColumnSchema %zu is not an object", i);
    rest_family_schema *f = new_family(s, NULL);
    if (!f)
        return st_error(ST_NOMEM, "out of memory reading a TableSchema");
    for (size_t k = 0; k < jf->n; k++) {
        size_t len = 0;
        const char *text = json_value_text(jf->items[k], &len);
        if (!text)
            return st_error(ST_INVALID_ARGUMENT, "ColumnSchema %zu: attribute %s must be a "
                                                 "string, number or boolean",
                            i, jf->keys[k]);
        if (strcmp(jf->keys[k], "name") == 0) {
            free(f->name);
            if (!(f->name = strndup(text, len)))
                return st_error(ST_NOMEM, "out of memory reading a TableSchema");
            continue;
        }
        int rc = add_attr(&f->attrs, &f->nattrs, jf->keys[k], text, len);
        if (rc != ST_OK)
            return rc;
    }
    return ST_OK;
}

static int decode_json(const void *body, size_t len, rest_table_schema *s)
{
    json_value *doc = NULL;
    int rc = json_value_parse(body, len, &doc);
    if (rc != ST_OK)
        return rc;
    if (doc->type != JSON_OBJECT)
        rc = st_error(ST_INVALID_ARGUMENT, "a TableSchema is a JSON object");
    for (size_t k = 0; rc == ST_OK && k < doc->n; k++) {
        const char *key = doc->keys[k];
        const json_value *v = doc->items[k];
        if (strcmp(key, "ColumnSchema") == 0) {
            if (v->type == JSON_OBJECT) {
                rc = json_family(v, s, 0);
            } else if (v->type == JSON_ARRAY) {
                for (size_t i = 0; rc == ST_OK && i < v->n; i++)
                    rc = json_family(v->items[i], s, i);
            } else {
                rc = st_error(ST_INVALID_ARGUMENT, "ColumnSchema must be an array of families");
            }
            continue;
        }
        size_t tl = 0;
        const char *text = json_value_text(v, &tl);
        if (!text) {
            rc = st_error(ST_INVALID_ARGUMENT,
                          "TableSchema attribute %s must be a string, number or boolean", key);
        } else if (strcmp(key, "name") == 0) {
            free(s->name);
            s->name = strndup(text, tl);
            if (!s->name)
                rc = st_error(ST_NOMEM, "out of memory reading a TableSchema");
        } else {
            rc = add_attr(&s->attrs, &s->nattrs, key, text, tl);
        }
    }
    json_value_free(doc);
    return rc;
}

static int decode_xml(const void *body, size_t len, rest_table_schema *s)
{
    xml_node *doc = NULL;
    int rc = xml_parse(body, len, &doc);
    if (rc != ST_OK)
        return rc;
    if (strcmp(doc->name, "TableSchema") != 0)
        rc = st_error(ST_INVALID_ARGUMENT, "the root element is <%s>, not <TableSchema>",
                      doc->name);
    for (size_t i = 0; rc == ST_OK && i < doc->nattrs; i++) {
        const char *n = doc->attr_names[i], *v = doc->attr_values[i];
        if (strcmp(n, "name") == 0) {
            if (!(s->name = strdup(v)))
                rc = st_error(ST_NOMEM, "out of memory reading a TableSchema");
        } else {
            rc = add_attr(&s->attrs, &s->nattrs, n, v, strlen(v));
        }
    }
    for (size_t i = 0; rc == ST_OK && i < doc->nchildren; i++) {
        const xml_node *c = doc->children[i];
        if (strcmp(c->name, "ColumnSchema") != 0) {
            rc = st_error(ST_INVALID_ARGUMENT, "unexpected element <%s> in <TableSchema>",
                          c->name);
            break;
        }
        if (c->nchildren || !xml_text_blank(c)) {
            rc = st_error(ST_INVALID_ARGUMENT, "<ColumnSchema> takes attributes only, no elements "
                                               "or text");
            break;
        }
        rest_family_schema *f = new_family(s, xml_attr(c, "name"));
        if (!f) {
            rc = st_error(ST_NOMEM, "out of memory reading a TableSchema");
            break;
        }
        for (size_t k = 0; rc == ST_OK && k < c->nattrs; k++)
            if (strcmp(c->attr_names[k], "name") != 0)
                rc = add_attr(&f->attrs, &f->nattrs, c->attr_names[k], c->attr_values[k],
                              strlen(c->attr_values[k]));
    }
    xml_node_free(doc);
    return rc;
}

static int decode_pb(const void *body, size_t len, rest_table_schema *s)
{
    Strata__Rest__TableSchema *m = strata__rest__table_schema__unpack(NULL, len, body);
    if (!m)
        return st_error(ST_INVALID_ARGUMENT, "the body is not a protobuf TableSchema message");
    int rc = ST_OK;
    char num[32];
    if (m->name && !(s->name = strdup(m->name)))
        rc = st_error(ST_NOMEM, "out of memory reading a TableSchema");
    for (size_t i = 0; rc == ST_OK && i < m->n_attrs; i++)
        rc = add_attr(&s->attrs, &s->nattrs, m->attrs[i]->name, m->attrs[i]->value,
                      strlen(m->attrs[i]->value));
    if (rc == ST_OK && m->has_readonly)
        rc = add_attr(&s->attrs, &s->nattrs, "READONLY", m->readonly ? "true" : "false",
                      m->readonly ? 4 : 5);
    if (rc == ST_OK && m->has_inmemory)
        rc = add_attr(&s->attrs, &s->nattrs, "IN_MEMORY", m->inmemory ? "true" : "false",
                      m->inmemory ? 4 : 5);
    for (size_t i = 0; rc == ST_OK && i < m->n_columns; i++) {
        const Strata__Rest__ColumnSchema *c = m->columns[i];
        rest_family_schema *f = new_family(s, c->name);
        if (!f) {
            rc = st_error(ST_NOMEM, "out of memory reading a TableSchema");
            break;
        }
        for (size_t k = 0; rc == ST_OK && k < c->n_attrs; k++)
            rc = add_attr(&f->attrs, &f->nattrs, c->attrs[k]->name, c->attrs[k]->value,
                          strlen(c->attrs[k]->value));
        if (rc == ST_OK && c->has_ttl) {
            snprintf(num, sizeof(num), "%d", c->ttl);
            rc = add_attr(&f->attrs, &f->nattrs, "TTL", num, strlen(num));
        }
        if (rc == ST_OK && c->has_maxversions) {
            snprintf(num, sizeof(num), "%d", c->maxversions);
            rc = add_attr(&f->attrs, &f->nattrs, "VERSIONS", num, strlen(num));
        }
        if (rc == ST_OK && c->compression)
            rc = add_attr(&f->attrs, &f->nattrs, "COMPRESSION", c->compression,
                          strlen(c->compression));
    }
    strata__rest__table_schema__free_unpacked(m, NULL);
    return rc;
}

int rest_schema_decode(rest_media media, const void *body, size_t len, rest_table_schema *out)
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
        rc = st_error(ST_INVALID_ARGUMENT, "a TableSchema cannot be read from %s",
                      rest_media_name(media));
    for (size_t i = 0; rc == ST_OK && i < out->nfamilies; i++)
        if (!out->families[i].name || !out->families[i].name[0])
            rc = st_error(ST_INVALID_ARGUMENT, "ColumnSchema %zu has no name", i);
    if (rc != ST_OK)
        rest_schema_free(out);
    return rc;
}

/* ---- onto Strata's descriptors ---- */

/* HBase attributes Strata does not have, accepted at HBase's default only. */
static const struct {
    const char *name;
    const char *def; /* the accepted value (compared case-insensitively) */
} FAMILY_DEFAULT_ONLY[] = {
    {"REPLICATION_SCOPE", "0"},
    {"CACHE_DATA_ON_WRITE", "false"}, {"CACHE_INDEX_ON_WRITE", "false"},
    {"CACHE_BLOOMS_ON_WRITE", "false"}, {"EVICT_BLOCKS_ON_CLOSE", "false"},
    {"PREFETCH_BLOCKS_ON_OPEN", "false"}, {"NEW_VERSION_BEHAVIOR", "false"},
    {"COMPRESS_TAGS", "true"},       {"IS_MOB", "false"},
    {"MOB_COMPACT_PARTITION_POLICY", "DAILY"},
}, TABLE_DEFAULT_ONLY[] = {
    {"IS_META", "false"},         {"IS_ROOT", "false"},
    {"REGION_REPLICATION", "1"},
    {"COMPACTION_ENABLED", "true"}, {"SPLIT_ENABLED", "true"},
    {"MERGE_ENABLED", "true"},    {"REGION_MEMSTORE_REPLICATION", "true"},
};

static int check_default_only(const char *what, const char *name, const char *value,
                              bool family, bool *handled)
{
    size_t n = family ? sizeof(FAMILY_DEFAULT_ONLY) / sizeof(FAMILY_DEFAULT_ONLY[0])
                      : sizeof(TABLE_DEFAULT_ONLY) / sizeof(TABLE_DEFAULT_ONLY[0]);
    for (size_t i = 0; i < n; i++) {
        const char *an = family ? FAMILY_DEFAULT_ONLY[i].name : TABLE_DEFAULT_ONLY[i].name;
        const char *def = family ? FAMILY_DEFAULT_ONLY[i].def : TABLE_DEFAULT_ONLY[i].def;
        if (strcasecmp(name, an) != 0)
            continue;
        *handled = true;
        if (strcasecmp(value, def) != 0)
            return st_error(ST_INVALID_ARGUMENT,
                            "%s: %s => '%s' is not supported by Strata (only %s, HBase's "
                            "default)",
                            what, an, value, def);
        return ST_OK;
    }
    return ST_OK;
}

static int parse_i64(const char *what, const char *name, const char *v, int64_t min, int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end || x < min || !(isdigit((unsigned char)v[0]) || v[0] == '-'))
        return st_error(ST_INVALID_ARGUMENT, "%s: %s => '%s' is not an integer >= %lld", what,
                        name, v, (long long)min);
    *out = x;
    return ST_OK;
}

/* The enumerated family attribute HBase calls name (one of the four family_attr takes). */
static strata_family_attr enum_attr(const char *name)
{
    static const strata_family_attr attrs[] = {
        STRATA_FAMILY_BLOOMFILTER, STRATA_FAMILY_COMPRESSION, STRATA_FAMILY_KEEP_DELETED_CELLS,
        STRATA_FAMILY_DATA_BLOCK_ENCODING};
    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
        if (strcasecmp(name, strata_family_attr_name(attrs[i])) == 0)
            return attrs[i];
    return STRATA_FAMILY_BLOOMFILTER;
}

static int family_attr(strata_family_descriptor_t *fd, const char *what, const rest_attr *a)
{
    int64_t x = 0;
    int rc = ST_OK;
    const char *n = a->name, *v = a->value;
    if (strcasecmp(n, "VERSIONS") == 0 || strcasecmp(n, "MIN_VERSIONS") == 0) {
        rc = parse_i64(what, n, v, strcasecmp(n, "VERSIONS") == 0 ? 1 : 0, &x);
        if (rc == ST_OK)
            strata_family_descriptor_set(fd, strcasecmp(n, "VERSIONS") == 0
                                                 ? STRATA_FAMILY_VERSIONS
                                                 : STRATA_FAMILY_MIN_VERSIONS,
                                         x);
    } else if (strcasecmp(n, "TTL") == 0) {
        if (strcasecmp(v, "FOREVER") == 0 || strcmp(v, HBASE_TTL_FOREVER) == 0)
            x = STRATA_TTL_FOREVER;
        else
            rc = parse_i64(what, n, v, 1, &x);
        if (rc == ST_OK)
            strata_family_descriptor_set(fd, STRATA_FAMILY_TTL, x);
    } else if (strcasecmp(n, "BLOCKSIZE") == 0) {
        rc = parse_i64(what, n, v, 1, &x);
        if (rc == ST_OK)
            strata_family_descriptor_set(fd, STRATA_FAMILY_BLOCKSIZE, x);
    } else if (strcasecmp(n, "BLOOMFILTER") == 0 || strcasecmp(n, "COMPRESSION") == 0 ||
               strcasecmp(n, "KEEP_DELETED_CELLS") == 0 ||
               strcasecmp(n, "DATA_BLOCK_ENCODING") == 0) {
        strata_family_attr attr = enum_attr(n);
        rc = strata_family_value_parse(attr, v, &x);
        if (rc != ST_OK)
            rc = st_error(ST_INVALID_ARGUMENT, "%s: %s", what, st_errmsg());
        else
            strata_family_descriptor_set(fd, attr, x);
    } else if (strcasecmp(n, "IN_MEMORY") == 0 || strcasecmp(n, "BLOCKCACHE") == 0) {
        if (strcasecmp(v, "true") != 0 && strcasecmp(v, "false") != 0)
            rc = st_error(ST_INVALID_ARGUMENT, "%s: %s => '%s' is not true or false", what, n, v);
        else
            strata_family_descriptor_set(fd,
                                         strcasecmp(n, "IN_MEMORY") == 0 ? STRATA_FAMILY_IN_MEMORY
                                                                         : STRATA_FAMILY_BLOCKCACHE,
                                         strcasecmp(v, "true") == 0);
    } else {
        bool handled = false;
        rc = check_default_only(what, n, v, true, &handled);
        if (rc == ST_OK && !handled)
            rc = st_error(ST_INVALID_ARGUMENT, "%s: unknown column family attribute %s", what, n);
    }
    return rc;
}

static int table_attr(strata_table_descriptor_t *td, const char *what, const rest_attr *a)
{
    int64_t x = 0;
    int rc = ST_OK;
    const char *n = a->name, *v = a->value;
    if (strcasecmp(n, "MAX_FILESIZE") == 0 || strcasecmp(n, "MEMSTORE_FLUSHSIZE") == 0) {
        rc = parse_i64(what, n, v, 1, &x);
        if (rc == ST_OK)
            strata_table_descriptor_set(td, strcasecmp(n, "MAX_FILESIZE") == 0
                                                ? STRATA_TABLE_MAX_FILESIZE
                                                : STRATA_TABLE_MEMSTORE_FLUSHSIZE,
                                        x);
    } else if (strcasecmp(n, "READONLY") == 0) {
        if (strcasecmp(v, "true") == 0 || strcasecmp(v, "false") == 0)
            strata_table_descriptor_set(td, STRATA_TABLE_READONLY, strcasecmp(v, "true") == 0);
        else
            rc = st_error(ST_INVALID_ARGUMENT, "%s: READONLY => '%s' is not true or false", what,
                          v);
    } else if (strcasecmp(n, "DURABILITY") == 0) {
        static const char *const names[] = {"USE_DEFAULT", "SKIP_WAL", "ASYNC_WAL", "SYNC_WAL",
                                            "FSYNC_WAL"};
        rc = ST_INVALID_ARGUMENT;
        for (int i = 0; i < 5; i++)
            if (strcasecmp(v, names[i]) == 0) {
                strata_table_descriptor_set(td, STRATA_TABLE_DURABILITY, i);
                rc = ST_OK;
            }
        if (rc != ST_OK)
            rc = st_error(rc, "%s: DURABILITY => '%s' is not USE_DEFAULT, SKIP_WAL, ASYNC_WAL, "
                              "SYNC_WAL or FSYNC_WAL",
                          what, v);
    } else {
        bool handled = false;
        rc = check_default_only(what, n, v, false, &handled);
        /* anything else is a METADATA value, as HBase keeps unknown table attributes */
        if (rc == ST_OK && !handled && !strata_table_descriptor_set_value(td, n, v))
            rc = st_error(ST_NOMEM, "out of memory building the descriptor of %s", what);
    }
    return rc;
}

int rest_schema_to_descriptor(const rest_table_schema *s, const char *name,
                              strata_table_descriptor_t **out)
{
    *out = NULL;
    if (s->name && s->name[0] && strcmp(s->name, name) != 0) {
        /* "t" and "default:t" are the same table */
        bool same = (strncmp(s->name, "default:", 8) == 0 && strcmp(s->name + 8, name) == 0) ||
                    (strncmp(name, "default:", 8) == 0 && strcmp(name + 8, s->name) == 0);
        if (!same)
            return st_error(ST_INVALID_ARGUMENT,
                            "the document names table '%s' but the path names '%s'", s->name,
                            name);
    }
    strata_table_descriptor_t *td = strata_table_descriptor_create(name);
    if (!td)
        return st_error(ST_NOMEM, "out of memory building the descriptor of %s", name);
    char what[512];
    snprintf(what, sizeof(what), "table %s", name);
    int rc = ST_OK;
    for (size_t i = 0; rc == ST_OK && i < s->nattrs; i++)
        rc = table_attr(td, what, &s->attrs[i]);
    for (size_t i = 0; rc == ST_OK && i < s->nfamilies; i++) {
        const rest_family_schema *f = &s->families[i];
        if (strata_table_descriptor_find_family(td, f->name)) {
            rc = st_error(ST_INVALID_ARGUMENT, "table %s: column family %s is given twice", name,
                          f->name);
            break;
        }
        strata_family_descriptor_t *fd = strata_table_descriptor_add_family(td, f->name);
        if (!fd) {
            rc = st_error(ST_NOMEM, "out of memory building the descriptor of %s", name);
            break;
        }
        snprintf(what, sizeof(what), "table %s, column family %s", name, f->name);
        for (size_t k = 0; rc == ST_OK && k < f->nattrs; k++)
            rc = family_attr(fd, what, &f->attrs[k]);
    }
    if (rc != ST_OK) {
        strata_table_descriptor_destroy(td);
        return rc;
    }
    *out = td;
    return ST_OK;
}

/* ---- writing ---- */

/* A table's name as HBase shows it: "default:t" is "t". */
static const char *shown_table(const strata_table_descriptor_t *td)
{
    const char *n = strata_table_descriptor_name(td);
    return strncmp(n, "default:", 8) == 0 ? n + 8 : n;
}

typedef struct kv {
    const char *k;
    char v[64];
    const char *vp; /* when the value is not in v */
} kv;

static const char *kv_value(const kv *a)
{
    return a->vp ? a->vp : a->v;
}

static kv enum_kv(const strata_family_descriptor_t *f, strata_family_attr a)
{
    const char *name = strata_family_value_name(a, strata_family_descriptor_get(f, a));
    return (kv){.k = strata_family_attr_name(a), .vp = name ? name : "?"};
}

static kv number_kv(const char *key, int64_t v)
{
    kv r = {.k = key};
    snprintf(r.v, sizeof(r.v), "%lld", (long long)v);
    return r;
}

static kv flag_kv(const strata_family_descriptor_t *f, strata_family_attr a)
{
    return (kv){.k = strata_family_attr_name(a),
                .vp = strata_family_descriptor_get(f, a) ? "true" : "false"};
}

/* The family's attributes, HBase's names, spellings and order (its REST schema's). */
static size_t family_kvs(const strata_family_descriptor_t *f, kv *out)
{
    size_t n = 0;
    out[n++] = enum_kv(f, STRATA_FAMILY_BLOOMFILTER);
    out[n++] = number_kv("VERSIONS", strata_family_descriptor_get(f, STRATA_FAMILY_VERSIONS));
    out[n++] = flag_kv(f, STRATA_FAMILY_IN_MEMORY);
    out[n++] = enum_kv(f, STRATA_FAMILY_KEEP_DELETED_CELLS);
    out[n++] = enum_kv(f, STRATA_FAMILY_DATA_BLOCK_ENCODING);
    int64_t ttl = strata_family_descriptor_get(f, STRATA_FAMILY_TTL);
    out[n] = (kv){.k = "TTL"};
    if (ttl == STRATA_TTL_FOREVER)
        snprintf(out[n++].v, 64, "%s", HBASE_TTL_FOREVER);
    else
        snprintf(out[n++].v, 64, "%lld", (long long)ttl);
    out[n++] = enum_kv(f, STRATA_FAMILY_COMPRESSION);
    out[n++] =
        number_kv("MIN_VERSIONS", strata_family_descriptor_get(f, STRATA_FAMILY_MIN_VERSIONS));
    out[n++] = flag_kv(f, STRATA_FAMILY_BLOCKCACHE);
    out[n++] = number_kv("BLOCKSIZE", strata_family_descriptor_get(f, STRATA_FAMILY_BLOCKSIZE));
    out[n++] = (kv){.k = "REPLICATION_SCOPE", .vp = "0"};
    return n;
}

#define MAX_TABLE_KVS 8

/* The table's attributes (fixed ones first); the METADATA values follow separately. */
static size_t table_kvs(const strata_table_descriptor_t *td, strata_table_state state, kv *out)
{
    static const char *const dur[] = {"USE_DEFAULT", "SKIP_WAL", "ASYNC_WAL", "SYNC_WAL",
                                      "FSYNC_WAL"};
    size_t n = 0;
    out[n++] = (kv){.k = "IS_META", .vp = "false"};
    if (strata_table_descriptor_is_set(td, STRATA_TABLE_MAX_FILESIZE)) {
        out[n] = (kv){.k = "MAX_FILESIZE"};
        snprintf(out[n++].v, 64, "%lld",
                 (long long)strata_table_descriptor_get(td, STRATA_TABLE_MAX_FILESIZE));
    }
    if (strata_table_descriptor_is_set(td, STRATA_TABLE_MEMSTORE_FLUSHSIZE)) {
        out[n] = (kv){.k = "MEMSTORE_FLUSHSIZE"};
        snprintf(out[n++].v, 64, "%lld",
                 (long long)strata_table_descriptor_get(td, STRATA_TABLE_MEMSTORE_FLUSHSIZE));
    }
    if (strata_table_descriptor_is_set(td, STRATA_TABLE_DURABILITY)) {
        int64_t d = strata_table_descriptor_get(td, STRATA_TABLE_DURABILITY);
        out[n++] = (kv){.k = "DURABILITY", .vp = d >= 0 && d <= 4 ? dur[d] : "USE_DEFAULT"};
    }
    if (strata_table_descriptor_is_set(td, STRATA_TABLE_READONLY))
        out[n++] = (kv){.k = "READONLY", .vp = "true"};
    (void)state;
    return n;
}

static int put(buf_t *b, const char *s)
{
    return buf_append(b, s, strlen(s));
}

static int json_str(buf_t *b, const char *s)
{
    return json_append_string(b, s, strlen(s));
}

static int json_kv(buf_t *b, const char *k, const char *v)
{
    int rc = json_str(b, k);
    if (rc == ST_OK)
        rc = put(b, ":");
    return rc == ST_OK ? json_str(b, v) : rc;
}

static int encode_json(const strata_table_descriptor_t *td, strata_table_state state, buf_t *b)
{
    int rc = put(b, "{\"name\":");
    if (rc == ST_OK)
        rc = json_str(b, shown_table(td));
    if (rc == ST_OK)
        rc = put(b, ",\"ColumnSchema\":[");
    size_t nf = strata_table_descriptor_family_count(td);
    for (size_t i = 0; rc == ST_OK && i < nf; i++) {
        const strata_family_descriptor_t *f = strata_table_descriptor_family(td, i);
        kv a[16];
        size_t n = family_kvs(f, a);
        rc = put(b, i ? ",{\"name\":" : "{\"name\":");
        if (rc == ST_OK)
            rc = json_str(b, strata_family_descriptor_name(f));
        for (size_t k = 0; rc == ST_OK && k < n; k++) {
            rc = put(b, ",");
            if (rc == ST_OK)
                rc = json_kv(b, a[k].k, kv_value(&a[k]));
        }
        if (rc == ST_OK)
            rc = put(b, "}");
    }
    if (rc == ST_OK)
        rc = put(b, "]");
    kv t[MAX_TABLE_KVS];
    size_t nt = table_kvs(td, state, t);
    for (size_t k = 0; rc == ST_OK && k < nt; k++) {
        rc = put(b, ",");
        if (rc == ST_OK)
            rc = json_kv(b, t[k].k, kv_value(&t[k]));
    }
    size_t nv = strata_table_descriptor_value_count(td);
    for (size_t k = 0; rc == ST_OK && k < nv; k++) {
        const char *key = strata_table_descriptor_value_key(td, k);
        rc = put(b, ",");
        if (rc == ST_OK)
            rc = json_kv(b, key, strata_table_descriptor_get_value(td, key));
    }
    return rc == ST_OK ? put(b, "}") : rc;
}

static int xml_attr_out(buf_t *b, const char *k, const char *v)
{
    int rc = put(b, " ");
    if (rc == ST_OK)
        rc = xml_append_escaped(b, k, strlen(k), true);
    if (rc == ST_OK)
        rc = put(b, "=\"");
    if (rc == ST_OK)
        rc = xml_append_escaped(b, v, strlen(v), true);
    return rc == ST_OK ? put(b, "\"") : rc;
}

static int encode_xml(const strata_table_descriptor_t *td, strata_table_state state, buf_t *b)
{
    int rc = put(b, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?><TableSchema");
    if (rc == ST_OK)
        rc = xml_attr_out(b, "name", shown_table(td));
    kv t[MAX_TABLE_KVS];
    size_t nt = table_kvs(td, state, t);
    for (size_t k = 0; rc == ST_OK && k < nt; k++)
        rc = xml_attr_out(b, t[k].k, kv_value(&t[k]));
    size_t nv = strata_table_descriptor_value_count(td);
    for (size_t k = 0; rc == ST_OK && k < nv; k++) {
        const char *key = strata_table_descriptor_value_key(td, k);
        rc = xml_attr_out(b, key, strata_table_descriptor_get_value(td, key));
    }
    if (rc == ST_OK)
        rc = put(b, ">");
    size_t nf = strata_table_descriptor_family_count(td);
    for (size_t i = 0; rc == ST_OK && i < nf; i++) {
        const strata_family_descriptor_t *f = strata_table_descriptor_family(td, i);
        kv a[16];
        size_t n = family_kvs(f, a);
        rc = put(b, "<ColumnSchema");
        if (rc == ST_OK)
            rc = xml_attr_out(b, "name", strata_family_descriptor_name(f));
        for (size_t k = 0; rc == ST_OK && k < n; k++)
            rc = xml_attr_out(b, a[k].k, kv_value(&a[k]));
        if (rc == ST_OK)
            rc = put(b, "/>");
    }
    return rc == ST_OK ? put(b, "</TableSchema>") : rc;
}

static int encode_text(const strata_table_descriptor_t *td, strata_table_state state, buf_t *b)
{
    int rc = put(b, "{ NAME=> '");
    if (rc == ST_OK)
        rc = put(b, shown_table(td));
    if (rc == ST_OK)
        rc = put(b, "'");
    kv t[MAX_TABLE_KVS];
    size_t nt = table_kvs(td, state, t);
    for (size_t k = 0; rc == ST_OK && k < nt; k++) {
        rc = put(b, ", ");
        if (rc == ST_OK)
            rc = put(b, t[k].k);
        if (rc == ST_OK)
            rc = put(b, " => '");
        if (rc == ST_OK)
            rc = put(b, kv_value(&t[k]));
        if (rc == ST_OK)
            rc = put(b, "'");
    }
    size_t nv = strata_table_descriptor_value_count(td);
    for (size_t k = 0; rc == ST_OK && k < nv; k++) {
        const char *key = strata_table_descriptor_value_key(td, k);
        char line[512];
        snprintf(line, sizeof(line), ", %s => '%s'", key,
                 strata_table_descriptor_get_value(td, key));
        rc = put(b, line);
    }
    if (rc == ST_OK)
        rc = put(b, ", COLUMNS => [ ");
    size_t nf = strata_table_descriptor_family_count(td);
    for (size_t i = 0; rc == ST_OK && i < nf; i++) {
        const strata_family_descriptor_t *f = strata_table_descriptor_family(td, i);
        kv a[16];
        size_t n = family_kvs(f, a);
        rc = put(b, "{ NAME => '");
        if (rc == ST_OK)
            rc = put(b, strata_family_descriptor_name(f));
        if (rc == ST_OK)
            rc = put(b, "'");
        for (size_t k = 0; rc == ST_OK && k < n; k++) {
            char line[160];
            snprintf(line, sizeof(line), ", %s => '%s'", a[k].k, kv_value(&a[k]));
            rc = put(b, line);
        }
        if (rc == ST_OK)
            rc = put(b, i + 1 < nf ? " }, " : " } ");
    }
    return rc == ST_OK ? put(b, "] }\r\n") : rc;
}

static int encode_pb(const strata_table_descriptor_t *td, strata_table_state state, buf_t *b)
{
    Strata__Rest__TableSchema m = STRATA__REST__TABLE_SCHEMA__INIT;
    m.name = (char *)shown_table(td);
    kv t[MAX_TABLE_KVS];
    size_t nt = table_kvs(td, state, t);
    size_t nv = strata_table_descriptor_value_count(td);
    size_t nf = strata_table_descriptor_family_count(td);
    Strata__Rest__TableSchema__Attribute *tattr = calloc(nt + nv, sizeof(*tattr));
    Strata__Rest__TableSchema__Attribute **tptr = calloc(nt + nv, sizeof(*tptr));
    if (!tattr || !tptr) {
        free(tattr);
        free(tptr);
        return ST_NOMEM;
    }
    for (size_t k = 0; k < nt + nv; k++) {
        Strata__Rest__TableSchema__Attribute init = STRATA__REST__TABLE_SCHEMA__ATTRIBUTE__INIT;
        tattr[k] = init;
        if (k < nt) {
            tattr[k].name = (char *)t[k].k;
            tattr[k].value = (char *)kv_value(&t[k]);
        } else {
            const char *key = strata_table_descriptor_value_key(td, k - nt);
            tattr[k].name = (char *)key;
            tattr[k].value = (char *)strata_table_descriptor_get_value(td, key);
        }
        tptr[k] = &tattr[k];
    }
    m.attrs = tptr;
    m.n_attrs = nt + nv;
    m.has_readonly = true;
    m.readonly = strata_table_descriptor_get(td, STRATA_TABLE_READONLY) != 0;
    Strata__Rest__ColumnSchema *cols = calloc(nf ? nf : 1, sizeof(*cols));
    Strata__Rest__ColumnSchema **cptr = calloc(nf ? nf : 1, sizeof(*cptr));
    kv *fkv = calloc((nf ? nf : 1) * 16, sizeof(*fkv));
    Strata__Rest__ColumnSchema__Attribute *fattr = calloc((nf ? nf : 1) * 16, sizeof(*fattr));
    Strata__Rest__ColumnSchema__Attribute **fptr = calloc((nf ? nf : 1) * 16, sizeof(*fptr));
    int rc = cols && cptr && fkv && fattr && fptr ? ST_OK : ST_NOMEM;
    for (size_t i = 0; rc == ST_OK && i < nf; i++) {
        const strata_family_descriptor_t *f = strata_table_descriptor_family(td, i);
        Strata__Rest__ColumnSchema init = STRATA__REST__COLUMN_SCHEMA__INIT;
        cols[i] = init;
        cols[i].name = (char *)strata_family_descriptor_name(f);
        size_t n = family_kvs(f, fkv + i * 16);
        for (size_t k = 0; k < n; k++) {
            Strata__Rest__ColumnSchema__Attribute ai = STRATA__REST__COLUMN_SCHEMA__ATTRIBUTE__INIT;
            fattr[i * 16 + k] = ai;
            fattr[i * 16 + k].name = (char *)fkv[i * 16 + k].k;
            fattr[i * 16 + k].value = (char *)kv_value(&fkv[i * 16 + k]);
            fptr[i * 16 + k] = &fattr[i * 16 + k];
        }
        cols[i].attrs = fptr + i * 16;
        cols[i].n_attrs = n;
        /* the ttl field holds what fits (forever is 2147483647, as in HBase); a longer TTL
         * travels only in its exact TTL attribute */
        int64_t ttl = strata_family_descriptor_get(f, STRATA_FAMILY_TTL);
        cols[i].has_ttl = ttl == STRATA_TTL_FOREVER || ttl < 2147483647;
        cols[i].ttl = ttl == STRATA_TTL_FOREVER ? 2147483647 : (int32_t)ttl;
        cols[i].has_maxversions = true;
        cols[i].maxversions = (int32_t)strata_family_descriptor_get(f, STRATA_FAMILY_VERSIONS);
        const char *codec = strata_family_value_name(
            STRATA_FAMILY_COMPRESSION, strata_family_descriptor_get(f, STRATA_FAMILY_COMPRESSION));
        cols[i].compression = (char *)(codec ? codec : "NONE");
        cptr[i] = &cols[i];
    }
    m.columns = cptr;
    m.n_columns = nf;
    if (rc == ST_OK) {
        size_t len = strata__rest__table_schema__get_packed_size(&m);
        rc = buf_reserve(b, len);
        if (rc == ST_OK)
            b->len += strata__rest__table_schema__pack(&m, b->data + b->len);
    }
    free(tattr);
    free(tptr);
    free(cols);
    free(cptr);
    free(fkv);
    free(fattr);
    free(fptr);
    return rc;
}

int rest_schema_encode(rest_media media, const strata_table_descriptor_t *td,
                       strata_table_state state, buf_t *out)
{
    int rc;
    if (media == REST_MEDIA_JSON)
        rc = encode_json(td, state, out);
    else if (media == REST_MEDIA_XML)
        rc = encode_xml(td, state, out);
    else if (rest_media_is_protobuf(media))
        rc = encode_pb(td, state, out);
    else
        rc = encode_text(td, state, out);
    return rc == ST_OK ? ST_OK : st_error(ST_NOMEM, "out of memory writing a TableSchema");
}
