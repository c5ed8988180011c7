/*
 * schema.c - table and column-family descriptors: defaults and validation (schema.h).
 *
 * A valid family: name 1..255 characters of [A-Za-z0-9_-] not starting with '-',
 * VERSIONS >= 1, 0 <= MIN_VERSIONS <= VERSIONS, TTL > 0, BLOCKSIZE 1 KiB..16 MiB, a
 * known BLOOMFILTER and COMPRESSION. A valid table: a name accepted by
 * layout_split_table_name, 1..SCHEMA_MAX_FAMILIES families with unique names, a real
 * DURABILITY, a positive MEMSTORE_FLUSHSIZE, and values and configuration entries within
 * the limits of schema.h, none named like an attribute, NORMALIZATION_ENABLED true or
 * false, split settings split_policy_validate accepts. MAX_FILESIZE 0 means not set.
 * Thread-safety: pure functions over caller-owned structs.
 */
#include "regionserver/storage/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/status.h"
#include "regionserver/storage/layout.h"
#include "regionserver/storage/split_policy.h"

#define SCHEMA_MIN_BLOCK_SIZE 1024u
#define SCHEMA_MAX_BLOCK_SIZE (16u * 1024 * 1024)

void family_schema_init(family_schema *f, const char *name)
{
    memset(f, 0, sizeof(*f));
    snprintf(f->name, sizeof(f->name), "%s", name ? name : "");
    f->versions = 1;
    f->min_versions = 0;
    f->ttl_sec = SCHEMA_TTL_FOREVER;
    f->bloom = BLOOM_ROW;
    f->compression = COMPRESSION_NONE;
    f->block_size = 65536;
    f->keep_deleted_cells = KEEP_DELETED_FALSE;
    f->encoding = BLOCK_ENCODING_PREFIX;
    f->in_memory = false;
    f->block_cache = true;
}

void table_schema_init(table_schema *t, const char *name)
{
    memset(t, 0, sizeof(*t));
    snprintf(t->name, sizeof(t->name), "%s", name ? name : "");
    t->nfamilies = 0;
    t->durability = DURABILITY_SYNC_WAL;
    t->memstore_flushsize = 128ull * 1024 * 1024;
    t->max_filesize = 0;
}

static bool family_char_ok(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

static int validate_family_name(const char *table, const family_schema *f)
{
    size_t n = strnlen(f->name, sizeof(f->name));
    if (n == 0 || n > CELL_MAX_FAMILY_LEN)
        return st_error(ST_INVALID_ARGUMENT, "table '%s': family name must be 1..%d characters",
                        table, CELL_MAX_FAMILY_LEN);
    if (f->name[0] == '-')
        return st_error(ST_INVALID_ARGUMENT, "table '%s': family '%s' must not start with '-'",
                        table, f->name);
    for (size_t i = 0; i < n; i++)
        if (!family_char_ok(f->name[i]))
            return st_error(ST_INVALID_ARGUMENT,
                            "table '%s': family '%s' has illegal character 0x%02X", table, f->name,
                            (unsigned char)f->name[i]);
    return ST_OK;
}

static int validate_family_values(const char *table, const family_schema *f)
{
    const char *fam = f->name;
    if (f->versions < 1)
        return st_error(ST_INVALID_ARGUMENT, "table '%s' family '%s': VERSIONS %d must be >= 1",
                        table, fam, f->versions);
    if (f->min_versions < 0 || f->min_versions > f->versions)
        return st_error(ST_INVALID_ARGUMENT,
                        "table '%s' family '%s': MIN_VERSIONS %d must be 0..VERSIONS (%d)", table,
                        fam, f->min_versions, f->versions);
    if (f->ttl_sec <= 0)
        return st_error(ST_INVALID_ARGUMENT, "table '%s' family '%s': TTL %lld must be > 0", table,
                        fam, (long long)f->ttl_sec);
    if (f->block_size < SCHEMA_MIN_BLOCK_SIZE || f->block_size > SCHEMA_MAX_BLOCK_SIZE)
        return st_error(ST_INVALID_ARGUMENT, "table '%s' family '%s': BLOCKSIZE %u must be %u..%u",
                        table, fam, f->block_size, SCHEMA_MIN_BLOCK_SIZE, SCHEMA_MAX_BLOCK_SIZE);
    if (f->bloom != BLOOM_NONE && f->bloom != BLOOM_ROW && f->bloom != BLOOM_ROWCOL)
        return st_error(ST_INVALID_ARGUMENT, "table '%s' family '%s': unknown BLOOMFILTER %d",
                        table, fam, (int)f->bloom);
    if ((unsigned)f->compression > COMPRESSION_LAST)
        return st_error(ST_INVALID_ARGUMENT, "table '%s' family '%s': unknown COMPRESSION %d",
                        table, fam, (int)f->compression);
    if ((unsigned)f->encoding > BLOCK_ENCODING_ROW_INDEX_V1)
        return st_error(ST_INVALID_ARGUMENT,
                        "table '%s' family '%s': unknown DATA_BLOCK_ENCODING %d", table, fam,
                        (int)f->encoding);
    if ((unsigned)f->keep_deleted_cells > KEEP_DELETED_TTL)
        return st_error(ST_INVALID_ARGUMENT,
                        "table '%s' family '%s': unknown KEEP_DELETED_CELLS %d", table, fam,
                        (int)f->keep_deleted_cells);
    return ST_OK;
}

static int validate_family(const char *table, const family_schema *f)
{
    int rc = validate_family_name(table, f);
    return rc == ST_OK ? validate_family_values(table, f) : rc;
}

int table_schema_find_family(const table_schema *t, const uint8_t *name, size_t len)
{
    for (size_t i = 0; i < t->nfamilies; i++) {
        const char *n = t->families[i].name;
        if (strnlen(n, sizeof(t->families[i].name)) == len && memcmp(n, name, len) == 0)
            return (int)i;
    }
    return -1;
}

int table_schema_add_family(table_schema *t, const family_schema *f)
{
    int rc = validate_family(t->name, f);
    if (rc != ST_OK)
        return rc;
    size_t len = strnlen(f->name, sizeof(f->name));
    if (table_schema_find_family(t, (const uint8_t *)f->name, len) >= 0)
        return st_error(ST_EXISTS, "table '%s': family '%s' already exists", t->name, f->name);
    if (t->nfamilies >= SCHEMA_MAX_FAMILIES)
        return st_error(ST_INVALID_ARGUMENT, "table '%s': at most %d families", t->name,
                        SCHEMA_MAX_FAMILIES);
    t->families[t->nfamilies++] = *f;
    return ST_OK;
}

static int validate_table_name(const table_schema *t)
{
    if (strnlen(t->name, sizeof(t->name)) == sizeof(t->name))
        return st_error(ST_INVALID_ARGUMENT, "table name is not terminated");
    char *ns = NULL, *q = NULL;
    int rc = layout_split_table_name(t->name, &ns, &q);
    free(ns);
    free(q);
    return rc;
}

static int validate_table_values(const table_schema *t)
{
    if (t->durability < DURABILITY_SKIP_WAL || t->durability > DURABILITY_FSYNC_WAL)
        return st_error(ST_INVALID_ARGUMENT, "table '%s': DURABILITY %d is not a real level",
                        t->name, (int)t->durability);
    if (t->memstore_flushsize == 0)
        return st_error(ST_INVALID_ARGUMENT, "table '%s': MEMSTORE_FLUSHSIZE must be > 0", t->name);
    if (t->nfamilies == 0 || t->nfamilies > SCHEMA_MAX_FAMILIES)
        return st_error(ST_INVALID_ARGUMENT, "table '%s': needs 1..%d families, has %zu", t->name,
                        SCHEMA_MAX_FAMILIES, t->nfamilies);
    return ST_OK;
}

/* ---- values and configuration ---- */

/* The index of key in ps, or -1. */
static ptrdiff_t pairs_index(const schema_pairs *ps, const char *key)
{
    for (size_t i = 0; key && i < ps->n && i < SCHEMA_MAX_PAIRS; i++)
        if (strncmp(ps->pair[i].key, key, sizeof(ps->pair[i].key)) == 0)
            return (ptrdiff_t)i;
    return -1;
}

static const char *pairs_get(const schema_pairs *ps, const char *key)
{
    ptrdiff_t i = pairs_index(ps, key);
    return i < 0 ? NULL : ps->pair[i].value;
}

static int pairs_set(const char *table, const char *what, schema_pairs *ps, const char *key,
                     const char *value)
{
    size_t klen = key ? strlen(key) : 0;
    if (klen == 0 || klen > SCHEMA_MAX_KEY_LEN)
        return st_error(ST_INVALID_ARGUMENT, "table '%s': %s key '%.40s' must be 1..%d bytes",
                        table, what, key ? key : "", SCHEMA_MAX_KEY_LEN);
    if (value && strlen(value) > SCHEMA_MAX_VALUE_LEN)
        return st_error(ST_INVALID_ARGUMENT, "table '%s': %s '%s' is longer than %d bytes", table,
                        what, key, SCHEMA_MAX_VALUE_LEN);
    ptrdiff_t i = pairs_index(ps, key);
    if (!value) {
        if (i >= 0) {
            memmove(&ps->pair[i], &ps->pair[i + 1], (ps->n - (size_t)i - 1) * sizeof(ps->pair[0]));
            ps->n--;
        }
        return ST_OK;
    }
    if (i < 0 && ps->n >= SCHEMA_MAX_PAIRS)
        return st_error(ST_INVALID_ARGUMENT, "table '%s': at most %d %s entries, cannot add '%s'",
                        table, SCHEMA_MAX_PAIRS, what, key);
    if (i < 0) {
        i = (ptrdiff_t)ps->n++;
        memcpy(ps->pair[i].key, key, klen + 1);
    }
    memcpy(ps->pair[i].value, value, strlen(value) + 1);
    return ST_OK;
}

int table_schema_set_value(table_schema *t, const char *key, const char *value)
{
    return pairs_set(t->name, "METADATA", &t->values, key, value);
}

int table_schema_set_config(table_schema *t, const char *key, const char *value)
{
    return pairs_set(t->name, "CONFIGURATION", &t->config, key, value);
}

const char *table_schema_value(const table_schema *t, const char *key)
{
    return pairs_get(&t->values, key);
}

const char *table_schema_config(const table_schema *t, const char *key)
{
    return pairs_get(&t->config, key);
}

const char *table_schema_setting(const table_schema *t, const char *key)
{
    const char *v = table_schema_value(t, key);
    return v ? v : table_schema_config(t, key);
}

bool table_schema_normalization_enabled(const table_schema *t)
{
    const char *v = table_schema_value(t, SCHEMA_NORMALIZATION_ENABLED);
    return v && strcasecmp(v, "true") == 0;
}

/* Every pair terminated, within the limits, each key once. */
static int validate_pairs(const char *table, const char *what, const schema_pairs *ps)
{
    if (ps->n > SCHEMA_MAX_PAIRS)
        return st_error(ST_INVALID_ARGUMENT, "table '%s': %zu %s entries, at most %d", table, ps->n,
                        what, SCHEMA_MAX_PAIRS);
    for (size_t i = 0; i < ps->n; i++) {
        const schema_pair *p = &ps->pair[i];
        size_t klen = strnlen(p->key, sizeof(p->key));
        if (klen == 0 || klen == sizeof(p->key) ||
            strnlen(p->value, sizeof(p->value)) == sizeof(p->value))
            return st_error(ST_INVALID_ARGUMENT,
                            "table '%s': %s entry %zu has an empty or unterminated key or value",
                            table, what, i + 1);
        for (size_t j = 0; j < i; j++)
            if (strcmp(ps->pair[j].key, p->key) == 0)
                return st_error(ST_INVALID_ARGUMENT, "table '%s': %s '%s' is given twice", table,
                                what, p->key);
    }
    return ST_OK;
}

/* The values: no attribute under a value's name, NORMALIZATION_ENABLED a boolean, the
 * split settings (split_policy.c). */
static int validate_values(const table_schema *t)
{
    static const char *const attrs[] = {"MAX_FILESIZE", "MEMSTORE_FLUSHSIZE", "DURABILITY",
                                        "READONLY"};
    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
        if (table_schema_value(t, attrs[i]))
            return st_error(ST_INVALID_ARGUMENT,
                            "table '%s': %s is a table attribute, not a METADATA value", t->name,
                            attrs[i]);
    const char *v = table_schema_value(t, SCHEMA_NORMALIZATION_ENABLED);
    if (v && strcasecmp(v, "true") != 0 && strcasecmp(v, "false") != 0)
        return st_error(ST_INVALID_ARGUMENT,
                        "table '%s': NORMALIZATION_ENABLED '%s' must be true or false", t->name, v);
    return split_policy_validate(t);
}

int table_schema_validate(const table_schema *t)
{
    int rc = validate_table_name(t);
    if (rc == ST_OK)
        rc = validate_table_values(t);
    if (rc == ST_OK)
        rc = validate_pairs(t->name, "METADATA", &t->values);
    if (rc == ST_OK)
        rc = validate_pairs(t->name, "CONFIGURATION", &t->config);
    if (rc == ST_OK)
        rc = validate_values(t);
    for (size_t i = 0; i < t->nfamilies && rc == ST_OK; i++) {
        const family_schema *f = &t->families[i];
        rc = validate_family(t->name, f);
        for (size_t j = 0; j < i && rc == ST_OK; j++)
            if (strncmp(t->families[j].name, f->name, sizeof(f->name)) == 0)
                rc = st_error(ST_INVALID_ARGUMENT, "table '%s': family '%s' is declared twice",
                              t->name, f->name);
    }
    return rc;
}
