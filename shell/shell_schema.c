/*
 * shell_schema.c - table and column-family schemas for create, alter and describe:
 * HBase's family dictionaries ({NAME => 'f', VERSIONS => 3, TTL => 86400, BLOOMFILTER =>
 * 'ROW', COMPRESSION => 'ZSTD', ...}) and table attributes (MAX_FILESIZE,
 * MEMSTORE_FLUSHSIZE, DURABILITY) onto admin.proto's TableSchema, and back into
 * describe's text.
 *
 * Schemas built here are allocated with malloc field by field, like one protobuf-c
 * unpacked, so shell_schema_free (protobuf_c_message_free_unpacked) frees both kinds;
 * alter edits the schema describe returned in place.
 *
 * Thread-safety: reentrant.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/status.h"
#include "shell/shell_internal.h"

static const char *const BLOOMS[] = {"NONE", "ROW", "ROWCOL"};
static const char *const COMPRESSIONS[] = {"NONE", "ZSTD"};
static const char *const DURABILITIES[] = {"USE_DEFAULT", "SKIP_WAL", "ASYNC_WAL", "SYNC_WAL",
                                           "FSYNC_WAL"};

int shell_schema_new(const char *table, Strata__Admin__TableSchema **out)
{
    Strata__Admin__TableSchema *t = calloc(1, sizeof(*t));
    if (t)
        strata__admin__table_schema__init(t);
    if (!t || !(t->name = strdup(table))) {
        free(t);
        *out = NULL;
        return st_error(ST_NOMEM, "out of memory");
    }
    *out = t;
    return ST_OK;
}

void shell_schema_free(Strata__Admin__TableSchema *t)
{
    if (t)
        protobuf_c_message_free_unpacked(&t->base, NULL);
}

Strata__Admin__ColumnFamilySchema *shell_schema_find(const Strata__Admin__TableSchema *t,
                                                     const char *name)
{
    for (size_t i = 0; i < t->n_family; i++)
        if (strcmp(t->family[i]->name, name) == 0)
            return t->family[i];
    return NULL;
}

int shell_schema_add(Strata__Admin__TableSchema *t, const char *name,
                     Strata__Admin__ColumnFamilySchema **out)
{
    Strata__Admin__ColumnFamilySchema **v = realloc(t->family, (t->n_family + 1) * sizeof(*v));
    if (!v)
        return st_error(ST_NOMEM, "out of memory");
    t->family = v;
    Strata__Admin__ColumnFamilySchema *f = calloc(1, sizeof(*f));
    if (f)
        strata__admin__column_family_schema__init(f);
    if (!f || !(f->name = strdup(name))) {
        free(f);
        return st_error(ST_NOMEM, "out of memory");
    }
    t->family[t->n_family++] = f;
    *out = f;
    return ST_OK;
}

int shell_schema_remove(Strata__Admin__TableSchema *t, const char *name)
{
    for (size_t i = 0; i < t->n_family; i++) {
        if (strcmp(t->family[i]->name, name) != 0)
            continue;
        protobuf_c_message_free_unpacked(&t->family[i]->base, NULL);
        memmove(t->family + i, t->family + i + 1, (t->n_family - i - 1) * sizeof(*t->family));
        t->n_family--;
        return ST_OK;
    }
    return ST_NOT_FOUND;
}

/* The index of v (a string, any case) in names[0..n), or an error listing them. */
static int pick(const shell_value *v, const char *what, const char *const *names, size_t n,
                uint32_t *out)
{
    for (size_t i = 0; v->kind == SHELL_V_STR && i < n; i++)
        if (strcasecmp(v->s, names[i]) == 0) {
            *out = (uint32_t)i;
            return ST_OK;
        }
    char list[200] = "";
    for (size_t i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? " " : "", names[i]);
    buf_t b = {0};
    shell_value_inspect(v, &b);
    int rc = st_error(ST_INVALID_ARGUMENT, "%s %s is not supported. Use one of %s", what,
                      b.data ? (char *)b.data : "?", list);
    buf_free(&b);
    return rc;
}

static int positive(const shell_value *v, const char *what, int64_t min, int64_t *out)
{
    int rc = shell_int_value(v, what, out);
    if (rc == ST_OK && *out < min)
        rc = st_error(ST_INVALID_ARGUMENT, "%s must be at least %lld, not %lld", what,
                      (long long)min, (long long)*out);
    return rc;
}

static int set_ttl(Strata__Admin__ColumnFamilySchema *f, const shell_value *v)
{
    int64_t ttl;
    if (v->kind == SHELL_V_STR && strcasecmp(v->s, "FOREVER") == 0) {
        f->has_ttl_sec = 0;
        return ST_OK;
    }
    int rc = positive(v, "TTL", 1, &ttl);
    if (rc == ST_OK) {
        f->has_ttl_sec = 1;
        f->ttl_sec = ttl;
    }
    return rc;
}

static int set_keep_deleted(Strata__Admin__ColumnFamilySchema *f, const shell_value *v)
{
    bool b;
    int rc = shell_bool_value(v, "KEEP_DELETED_CELLS", &b);
    if (rc == ST_OK) {
        f->has_keep_deleted_cells = 1;
        f->keep_deleted_cells = b;
    }
    return rc;
}

/* One family attribute; *known false when key is not one. */
static int family_attr(Strata__Admin__ColumnFamilySchema *f, const char *key, const shell_value *v,
                       bool *known)
{
    int64_t n = 0;
    uint32_t code = 0;
    int rc = ST_OK;
    *known = true;
    if (strcmp(key, "VERSIONS") == 0 && (rc = positive(v, key, 1, &n)) == ST_OK) {
        f->has_versions = 1;
        f->versions = (uint32_t)n;
    } else if (strcmp(key, "MIN_VERSIONS") == 0 && (rc = positive(v, key, 0, &n)) == ST_OK) {
        f->has_min_versions = 1;
        f->min_versions = (uint32_t)n;
    } else if (strcmp(key, "BLOCKSIZE") == 0 && (rc = positive(v, key, 1, &n)) == ST_OK) {
        f->has_block_size = 1;
        f->block_size = (uint32_t)n;
    } else if (strcmp(key, "BLOOMFILTER") == 0 &&
               (rc = pick(v, "BloomFilter type", BLOOMS, 3, &code)) == ST_OK) {
        f->has_bloom = 1;
        f->bloom = code;
    } else if (strcmp(key, "COMPRESSION") == 0 &&
               (rc = pick(v, "Compression", COMPRESSIONS, 2, &code)) == ST_OK) {
        f->has_compression = 1;
        f->compression = code;
    } else if (strcmp(key, "TTL") == 0) {
        rc = set_ttl(f, v);
    } else if (strcmp(key, "KEEP_DELETED_CELLS") == 0) {
        rc = set_keep_deleted(f, v);
    } else if (strcmp(key, "VERSIONS") && strcmp(key, "MIN_VERSIONS") && strcmp(key, "BLOCKSIZE") &&
               strcmp(key, "BLOOMFILTER") && strcmp(key, "COMPRESSION")) {
        *known = false;
    }
    if (rc == ST_OK && (n > UINT32_MAX))
        rc = st_error(ST_INVALID_ARGUMENT, "%s %lld is too large", key, (long long)n);
    return rc;
}

int shell_family_apply(shell_session *s, Strata__Admin__ColumnFamilySchema *f,
                       const shell_value *spec)
{
    for (size_t i = 0; spec && i < spec->n; i++) {
        const shell_value *k = shell_hash_key(spec, i);
        if (k->kind != SHELL_V_STR || strcmp(k->s, "NAME") == 0 || strcmp(k->s, "METHOD") == 0)
            continue;
        bool known;
        int rc = family_attr(f, k->s, shell_hash_val(spec, i), &known);
        if (rc != ST_OK)
            return rc;
        if (!known)
            fprintf(s->out, "Unknown argument ignored for column family %s: %s\n", f->name, k->s);
    }
    return ST_OK;
}

int shell_table_attr(Strata__Admin__TableSchema *t, const char *key, const shell_value *v,
                     bool *known)
{
    int64_t n = 0;
    uint32_t code = 0;
    int rc = ST_OK;
    *known = true;
    if (strcmp(key, "MAX_FILESIZE") == 0 && (rc = positive(v, key, 1, &n)) == ST_OK) {
        t->has_max_filesize = 1;
        t->max_filesize = (uint64_t)n;
    } else if (strcmp(key, "MEMSTORE_FLUSHSIZE") == 0 && (rc = positive(v, key, 1, &n)) == ST_OK) {
        t->has_memstore_flushsize = 1;
        t->memstore_flushsize = (uint64_t)n;
    } else if (strcmp(key, "DURABILITY") == 0 &&
               (rc = pick(v, "Durability", DURABILITIES, 5, &code)) == ST_OK) {
        t->has_durability = code != 0;
        t->durability = code;
    } else if (strcmp(key, "MAX_FILESIZE") && strcmp(key, "MEMSTORE_FLUSHSIZE") &&
               strcmp(key, "DURABILITY")) {
        *known = false;
    }
    return rc;
}

/* ---- describe ---- */

static void attr(buf_t *b, const char *key, const char *val)
{
    char tmp[200];
    bool first = b->len == 0 || b->data[b->len - 1] == '{';
    snprintf(tmp, sizeof(tmp), "%s%s => '%s'", first ? "" : ", ", key, val);
    buf_append(b, tmp, strlen(tmp));
}

void shell_family_describe(const Strata__Admin__ColumnFamilySchema *f, buf_t *b)
{
    char num[64];
    buf_reset(b);
    buf_append_u8(b, '{');
    attr(b, "NAME", f->name);
    snprintf(num, sizeof(num), "%u", f->has_versions ? f->versions : 1);
    attr(b, "VERSIONS", num);
    attr(b, "KEEP_DELETED_CELLS",
         f->has_keep_deleted_cells && f->keep_deleted_cells ? "TRUE" : "FALSE");
    shell_ttl_string(f->has_ttl_sec ? f->ttl_sec : 0, num, sizeof(num));
    attr(b, "TTL", num);
    snprintf(num, sizeof(num), "%u", f->has_min_versions ? f->min_versions : 0);
    attr(b, "MIN_VERSIONS", num);
    attr(b, "BLOOMFILTER", BLOOMS[f->has_bloom && f->bloom < 3 ? f->bloom : 1]);
    attr(b, "COMPRESSION",
         COMPRESSIONS[f->has_compression && f->compression < 2 ? f->compression : 0]);
    snprintf(num, sizeof(num), "%u", f->has_block_size ? f->block_size : 65536);
    attr(b, "BLOCKSIZE", num);
    buf_append(b, "}", 2);
    b->len--;
}

void shell_table_attrs_describe(const Strata__Admin__TableSchema *t, buf_t *b)
{
    char num[64];
    buf_reset(b);
    if (!t->has_durability && !t->has_max_filesize && !t->has_memstore_flushsize) {
        buf_append_u8(b, '\0');
        b->len = 0;
        return;
    }
    buf_append(b, ", {TABLE_ATTRIBUTES => {", 24);
    if (t->has_durability && t->durability < 5)
        attr(b, "DURABILITY", DURABILITIES[t->durability]);
    if (t->has_max_filesize) {
        snprintf(num, sizeof(num), "%llu", (unsigned long long)t->max_filesize);
        attr(b, "MAX_FILESIZE", num);
    }
    if (t->has_memstore_flushsize) {
        snprintf(num, sizeof(num), "%llu", (unsigned long long)t->memstore_flushsize);
        attr(b, "MEMSTORE_FLUSHSIZE", num);
    }
    buf_append(b, "}}", 3);
    b->len--;
}
