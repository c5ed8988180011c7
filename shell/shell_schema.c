/*
 * shell_schema.c - table and column-family descriptors for create, alter and describe:
 * HBase's family dictionaries ({NAME => 'f', VERSIONS => 3, TTL => 86400, BLOOMFILTER =>
 * 'ROW', COMPRESSION => 'ZSTD', ...}) and table attributes (MAX_FILESIZE,
 * MEMSTORE_FLUSHSIZE, DURABILITY) onto strata/admin.h's descriptors, and back into
 * describe's text. Alter edits the descriptor describe returned in place.
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

static int set_ttl(strata_family_descriptor_t *f, const shell_value *v)
{
    int64_t ttl;
    if (v->kind == SHELL_V_STR && strcasecmp(v->s, "FOREVER") == 0) {
        strata_family_descriptor_unset(f, STRATA_FAMILY_TTL);
        return ST_OK;
    }
    int rc = positive(v, "TTL", 1, &ttl);
    if (rc == ST_OK)
        strata_family_descriptor_set(f, STRATA_FAMILY_TTL, ttl);
    return rc;
}

static int set_keep_deleted(strata_family_descriptor_t *f, const shell_value *v)
{
    bool b;
    int rc = shell_bool_value(v, "KEEP_DELETED_CELLS", &b);
    if (rc == ST_OK)
        strata_family_descriptor_set(f, STRATA_FAMILY_KEEP_DELETED_CELLS, b);
    return rc;
}

/* A count attribute: at least min, at most UINT32_MAX. */
static int set_count(strata_family_descriptor_t *f, strata_family_attr attr, const char *key,
                     const shell_value *v, int64_t min)
{
    int64_t n = 0;
    int rc = positive(v, key, min, &n);
    if (rc == ST_OK && n > UINT32_MAX)
        rc = st_error(ST_INVALID_ARGUMENT, "%s %lld is too large", key, (long long)n);
    if (rc == ST_OK)
        strata_family_descriptor_set(f, attr, n);
    return rc;
}

/* An attribute named by one of names (any case). */
static int set_choice(strata_family_descriptor_t *f, strata_family_attr attr, const char *what,
                      const shell_value *v, const char *const *names, size_t n)
{
    uint32_t code = 0;
    int rc = pick(v, what, names, n, &code);
    if (rc == ST_OK)
        strata_family_descriptor_set(f, attr, code);
    return rc;
}

/* One family attribute; *known false when key is not one. */
static int family_attr(strata_family_descriptor_t *f, const char *key, const shell_value *v,
                       bool *known)
{
    *known = true;
    if (strcmp(key, "VERSIONS") == 0)
        return set_count(f, STRATA_FAMILY_VERSIONS, key, v, 1);
    if (strcmp(key, "MIN_VERSIONS") == 0)
        return set_count(f, STRATA_FAMILY_MIN_VERSIONS, key, v, 0);
    if (strcmp(key, "BLOCKSIZE") == 0)
        return set_count(f, STRATA_FAMILY_BLOCKSIZE, key, v, 1);
    if (strcmp(key, "BLOOMFILTER") == 0)
        return set_choice(f, STRATA_FAMILY_BLOOMFILTER, "BloomFilter type", v, BLOOMS, 3);
    if (strcmp(key, "COMPRESSION") == 0)
        return set_choice(f, STRATA_FAMILY_COMPRESSION, "Compression", v, COMPRESSIONS, 2);
    if (strcmp(key, "TTL") == 0)
        return set_ttl(f, v);
    if (strcmp(key, "KEEP_DELETED_CELLS") == 0)
        return set_keep_deleted(f, v);
    *known = false;
    return ST_OK;
}

int shell_family_apply(shell_session *s, strata_family_descriptor_t *f, const shell_value *spec)
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
            fprintf(s->out, "Unknown argument ignored for column family %s: %s\n",
                    strata_family_descriptor_name(f), k->s);
    }
    return ST_OK;
}

int shell_table_attr(strata_table_descriptor_t *t, const char *key, const shell_value *v,
                     bool *known)
{
    int64_t n = 0;
    uint32_t code = 0;
    int rc = ST_OK;
    *known = true;
    if (strcmp(key, "MAX_FILESIZE") == 0 && (rc = positive(v, key, 1, &n)) == ST_OK)
        strata_table_descriptor_set(t, STRATA_TABLE_MAX_FILESIZE, n);
    else if (strcmp(key, "MEMSTORE_FLUSHSIZE") == 0 && (rc = positive(v, key, 1, &n)) == ST_OK)
        strata_table_descriptor_set(t, STRATA_TABLE_MEMSTORE_FLUSHSIZE, n);
    else if (strcmp(key, "DURABILITY") == 0 &&
             (rc = pick(v, "Durability", DURABILITIES, 5, &code)) == ST_OK)
        strata_table_descriptor_set(t, STRATA_TABLE_DURABILITY, code); /* USE_DEFAULT unsets */
    else if (strcmp(key, "MAX_FILESIZE") && strcmp(key, "MEMSTORE_FLUSHSIZE") &&
             strcmp(key, "DURABILITY"))
        *known = false;
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

void shell_family_describe(const strata_family_descriptor_t *f, buf_t *b)
{
    char num[64];
    int64_t v;
    buf_reset(b);
    buf_append_u8(b, '{');
    attr(b, "NAME", strata_family_descriptor_name(f));
    snprintf(num, sizeof(num), "%lld",
             (long long)strata_family_descriptor_get(f, STRATA_FAMILY_VERSIONS));
    attr(b, "VERSIONS", num);
    attr(b, "KEEP_DELETED_CELLS",
         strata_family_descriptor_get(f, STRATA_FAMILY_KEEP_DELETED_CELLS) ? "TRUE" : "FALSE");
    shell_ttl_string(strata_family_descriptor_is_set(f, STRATA_FAMILY_TTL)
                         ? strata_family_descriptor_get(f, STRATA_FAMILY_TTL)
                         : 0,
                     num, sizeof(num));
    attr(b, "TTL", num);
    snprintf(num, sizeof(num), "%lld",
             (long long)strata_family_descriptor_get(f, STRATA_FAMILY_MIN_VERSIONS));
    attr(b, "MIN_VERSIONS", num);
    v = strata_family_descriptor_get(f, STRATA_FAMILY_BLOOMFILTER);
    attr(b, "BLOOMFILTER", BLOOMS[v >= 0 && v < 3 ? v : 1]);
    v = strata_family_descriptor_get(f, STRATA_FAMILY_COMPRESSION);
    attr(b, "COMPRESSION", COMPRESSIONS[v >= 0 && v < 2 ? v : 0]);
    snprintf(num, sizeof(num), "%lld",
             (long long)strata_family_descriptor_get(f, STRATA_FAMILY_BLOCKSIZE));
    attr(b, "BLOCKSIZE", num);
    buf_append(b, "}", 2);
    b->len--;
}

void shell_table_attrs_describe(const strata_table_descriptor_t *t, buf_t *b)
{
    char num[64];
    bool durability = strata_table_descriptor_is_set(t, STRATA_TABLE_DURABILITY);
    bool max_filesize = strata_table_descriptor_is_set(t, STRATA_TABLE_MAX_FILESIZE);
    bool flushsize = strata_table_descriptor_is_set(t, STRATA_TABLE_MEMSTORE_FLUSHSIZE);
    buf_reset(b);
    if (!durability && !max_filesize && !flushsize) {
        buf_append_u8(b, '\0');
        b->len = 0;
        return;
    }
    buf_append(b, ", {TABLE_ATTRIBUTES => {", 24);
    int64_t d = strata_table_descriptor_get(t, STRATA_TABLE_DURABILITY);
    if (durability && d >= 0 && d < 5)
        attr(b, "DURABILITY", DURABILITIES[d]);
    if (max_filesize) {
        snprintf(num, sizeof(num), "%llu",
                 (unsigned long long)strata_table_descriptor_get(t, STRATA_TABLE_MAX_FILESIZE));
        attr(b, "MAX_FILESIZE", num);
    }
    if (flushsize) {
        snprintf(
            num, sizeof(num), "%llu",
            (unsigned long long)strata_table_descriptor_get(t, STRATA_TABLE_MEMSTORE_FLUSHSIZE));
        attr(b, "MEMSTORE_FLUSHSIZE", num);
    }
    buf_append(b, "}}", 3);
    b->len--;
}
