/*
 * admin_descriptor.c - table and column-family descriptors (strata/admin.h) and their
 * conversion to and from admin.proto's TableSchema.
 *
 * A descriptor keeps each attribute as an int64 and a "set" bit; values are range-checked
 * only when converted for sending, so the setters cannot fail. Families are separately
 * allocated and held by pointer, so a family handle stays valid while others are added.
 * Table values and configuration entries are two lists of malloc'ed key/value strings in
 * the order first set (admin.proto's repeated NameStringPair value and configuration).
 *
 * Thread-safety: a descriptor belongs to one thread at a time; conversions are reentrant.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "client/admin_internal.h"
#include "common/status.h"

#define N_FAMILY_ATTRS 10
#define N_TABLE_ATTRS 4

struct strata_family_descriptor {
    char *name;
    int64_t value[N_FAMILY_ATTRS];
    bool set[N_FAMILY_ATTRS];
};

struct strata_table_descriptor {
    char *name;
    strata_family_descriptor_t **family;
    size_t n_family;
    int64_t value[N_TABLE_ATTRS];
    bool set[N_TABLE_ATTRS];
    admin_pairs values; /* METADATA */
    admin_pairs config; /* CONFIGURATION */
};

/* HBase's defaults (regionserver/storage/schema.h); the table sizes default to the
 * cluster's settings, reported as 0. */
static const int64_t FAMILY_DEFAULT[N_FAMILY_ATTRS] = {
    [STRATA_FAMILY_VERSIONS] = 1,
    [STRATA_FAMILY_MIN_VERSIONS] = 0,
    [STRATA_FAMILY_TTL] = STRATA_TTL_FOREVER,
    [STRATA_FAMILY_BLOOMFILTER] = STRATA_BLOOM_ROW,
    [STRATA_FAMILY_COMPRESSION] = STRATA_COMPRESSION_NONE,
    [STRATA_FAMILY_BLOCKSIZE] = 65536,
    [STRATA_FAMILY_KEEP_DELETED_CELLS] = STRATA_KEEP_DELETED_FALSE,
    [STRATA_FAMILY_DATA_BLOCK_ENCODING] = STRATA_BLOCK_ENCODING_PREFIX,
    [STRATA_FAMILY_IN_MEMORY] = 0,
    [STRATA_FAMILY_BLOCKCACHE] = 1,
};

static const char *const FAMILY_ATTR_NAME[N_FAMILY_ATTRS] = {
    [STRATA_FAMILY_VERSIONS] = "VERSIONS",
    [STRATA_FAMILY_MIN_VERSIONS] = "MIN_VERSIONS",
    [STRATA_FAMILY_TTL] = "TTL",
    [STRATA_FAMILY_BLOOMFILTER] = "BLOOMFILTER",
    [STRATA_FAMILY_COMPRESSION] = "COMPRESSION",
    [STRATA_FAMILY_BLOCKSIZE] = "BLOCKSIZE",
    [STRATA_FAMILY_KEEP_DELETED_CELLS] = "KEEP_DELETED_CELLS",
    [STRATA_FAMILY_DATA_BLOCK_ENCODING] = "DATA_BLOCK_ENCODING",
    [STRATA_FAMILY_IN_MEMORY] = "IN_MEMORY",
    [STRATA_FAMILY_BLOCKCACHE] = "BLOCKCACHE",
};

static const char *const TABLE_ATTR_NAME[N_TABLE_ATTRS] = {
    [STRATA_TABLE_MAX_FILESIZE] = "MAX_FILESIZE",
    [STRATA_TABLE_MEMSTORE_FLUSHSIZE] = "MEMSTORE_FLUSHSIZE",
    [STRATA_TABLE_DURABILITY] = "DURABILITY",
    [STRATA_TABLE_READONLY] = "READONLY",
};

/* ---- families ---- */

static void family_free(strata_family_descriptor_t *f)
{
    if (!f)
        return;
    free(f->name);
    free(f);
}

const char *strata_family_descriptor_name(const strata_family_descriptor_t *f)
{
    return f->name;
}

static bool family_attr_ok(strata_family_attr attr)
{
    return (unsigned)attr < N_FAMILY_ATTRS;
}

void strata_family_descriptor_set(strata_family_descriptor_t *f, strata_family_attr attr,
                                  int64_t value)
{
    if (!family_attr_ok(attr))
        return;
    f->value[attr] = value;
    f->set[attr] = true;
}

int64_t strata_family_descriptor_get(const strata_family_descriptor_t *f, strata_family_attr attr)
{
    if (!family_attr_ok(attr))
        return 0;
    return f->set[attr] ? f->value[attr] : FAMILY_DEFAULT[attr];
}

unsigned char strata_family_descriptor_is_set(const strata_family_descriptor_t *f,
                                              strata_family_attr attr)
{
    return family_attr_ok(attr) && f->set[attr];
}

void strata_family_descriptor_unset(strata_family_descriptor_t *f, strata_family_attr attr)
{
    if (family_attr_ok(attr))
        f->set[attr] = false;
}

static const char *const BLOOM_NAMES[] = {"NONE", "ROW", "ROWCOL", NULL};
static const char *const COMPRESSION_NAMES[] = {"NONE", "ZSTD", "SNAPPY", "LZ4", "GZ", NULL};
static const char *const KEEP_DELETED_NAMES[] = {"FALSE", "TRUE", "TTL", NULL};
static const char *const ENCODING_NAMES[] = {"NONE",      "PREFIX",       "DIFF",
                                             "FAST_DIFF", "ROW_INDEX_V1", NULL};

/* The NULL-terminated names of an enumerated attribute's values, or NULL. */
static const char *const *value_names(strata_family_attr attr)
{
    switch (attr) {
    case STRATA_FAMILY_BLOOMFILTER:
        return BLOOM_NAMES;
    case STRATA_FAMILY_COMPRESSION:
        return COMPRESSION_NAMES;
    case STRATA_FAMILY_KEEP_DELETED_CELLS:
        return KEEP_DELETED_NAMES;
    case STRATA_FAMILY_DATA_BLOCK_ENCODING:
        return ENCODING_NAMES;
    default:
        return NULL;
    }
}

const char *strata_family_attr_name(strata_family_attr attr)
{
    return family_attr_ok(attr) ? FAMILY_ATTR_NAME[attr] : NULL;
}

const char *strata_family_value_name(strata_family_attr attr, int64_t value)
{
    const char *const *names = value_names(attr);
    for (int64_t i = 0; names && names[i]; i++)
        if (i == value)
            return names[i];
    return NULL;
}

int strata_family_value_parse(strata_family_attr attr, const char *name, int64_t *out)
{
    const char *const *names = value_names(attr);
    if (!names)
        return st_error(ST_INVALID_ARGUMENT, "%s is not an enumerated family attribute",
                        family_attr_ok(attr) ? FAMILY_ATTR_NAME[attr] : "?");
    char list[100] = "";
    for (int64_t i = 0; names[i]; i++) {
        if (name && strcasecmp(name, names[i]) == 0) {
            *out = i;
            return ST_OK;
        }
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? " " : "",
                 names[i]);
    }
    return st_error(ST_INVALID_ARGUMENT, "%s '%s' is not supported. Use one of %s",
                    FAMILY_ATTR_NAME[attr], name ? name : "", list);
}

/* ---- values and configuration ---- */

static ptrdiff_t pairs_index(const admin_pairs *ps, const char *key)
{
    for (size_t i = 0; key && i < ps->n; i++)
        if (strcmp(ps->key[i], key) == 0)
            return (ptrdiff_t)i;
    return -1;
}

void admin_pairs_clear(admin_pairs *ps)
{
    for (size_t i = 0; i < ps->n; i++) {
        free(ps->key[i]);
        free(ps->value[i]);
    }
    free(ps->key);
    free(ps->value);
    memset(ps, 0, sizeof(*ps));
}

static void pairs_remove(admin_pairs *ps, size_t i)
{
    free(ps->key[i]);
    free(ps->value[i]);
    memmove(ps->key + i, ps->key + i + 1, (ps->n - i - 1) * sizeof(*ps->key));
    memmove(ps->value + i, ps->value + i + 1, (ps->n - i - 1) * sizeof(*ps->value));
    ps->n--;
}

/* Appends a new key (both arrays grown first, so a failure changes nothing). */
static bool pairs_append(admin_pairs *ps, const char *key, char *value)
{
    char **k = realloc(ps->key, (ps->n + 1) * sizeof(*k));
    if (k)
        ps->key = k;
    char **v = k ? realloc(ps->value, (ps->n + 1) * sizeof(*v)) : NULL;
    if (v)
        ps->value = v;
    char *kcopy = v ? strdup(key) : NULL;
    if (!kcopy)
        return false;
    ps->key[ps->n] = kcopy;
    ps->value[ps->n++] = value;
    return true;
}

unsigned char admin_pairs_set(admin_pairs *ps, const char *key, const char *value)
{
    if (!key)
        return 0;
    ptrdiff_t i = pairs_index(ps, key);
    if (!value) {
        if (i >= 0)
            pairs_remove(ps, (size_t)i);
        return 1;
    }
    char *copy = strdup(value);
    if (!copy)
        return 0;
    if (i >= 0) {
        free(ps->value[i]);
        ps->value[i] = copy;
        return 1;
    }
    if (!pairs_append(ps, key, copy)) {
        free(copy);
        return 0;
    }
    return 1;
}

const char *admin_pairs_get(const admin_pairs *ps, const char *key)
{
    ptrdiff_t i = pairs_index(ps, key);
    return i < 0 ? NULL : ps->value[i];
}

unsigned char strata_table_descriptor_set_value(strata_table_descriptor_t *td, const char *key,
                                                const char *value)
{
    return admin_pairs_set(&td->values, key, value);
}

const char *strata_table_descriptor_get_value(const strata_table_descriptor_t *td, const char *key)
{
    return admin_pairs_get(&td->values, key);
}

size_t strata_table_descriptor_value_count(const strata_table_descriptor_t *td)
{
    return td->values.n;
}

const char *strata_table_descriptor_value_key(const strata_table_descriptor_t *td, size_t i)
{
    return i < td->values.n ? td->values.key[i] : NULL;
}

unsigned char strata_table_descriptor_set_config(strata_table_descriptor_t *td, const char *key,
                                                 const char *value)
{
    return admin_pairs_set(&td->config, key, value);
}

const char *strata_table_descriptor_get_config(const strata_table_descriptor_t *td, const char *key)
{
    return admin_pairs_get(&td->config, key);
}

size_t strata_table_descriptor_config_count(const strata_table_descriptor_t *td)
{
    return td->config.n;
}

const char *strata_table_descriptor_config_key(const strata_table_descriptor_t *td, size_t i)
{
    return i < td->config.n ? td->config.key[i] : NULL;
}

/* ---- tables ---- */

strata_table_descriptor_t *strata_table_descriptor_create(const char *name)
{
    strata_table_descriptor_t *td = calloc(1, sizeof(*td));
    if (!td || !(td->name = strdup(name ? name : ""))) {
        free(td);
        return NULL;
    }
    return td;
}

void strata_table_descriptor_destroy(strata_table_descriptor_t *td)
{
    if (!td)
        return;
    for (size_t i = 0; i < td->n_family; i++)
        family_free(td->family[i]);
    free(td->family);
    admin_pairs_clear(&td->values);
    admin_pairs_clear(&td->config);
    free(td->name);
    free(td);
}

const char *strata_table_descriptor_name(const strata_table_descriptor_t *td)
{
    return td->name;
}

static ptrdiff_t family_index(const strata_table_descriptor_t *td, const char *name)
{
    for (size_t i = 0; name && i < td->n_family; i++)
        if (strcmp(td->family[i]->name, name) == 0)
            return (ptrdiff_t)i;
    return -1;
}

strata_family_descriptor_t *strata_table_descriptor_add_family(strata_table_descriptor_t *td,
                                                               const char *name)
{
    strata_family_descriptor_t **v = realloc(td->family, (td->n_family + 1) * sizeof(*v));
    if (!v)
        return NULL;
    td->family = v;
    strata_family_descriptor_t *f = calloc(1, sizeof(*f));
    if (!f || !(f->name = strdup(name ? name : ""))) {
        free(f);
        return NULL;
    }
    strata_table_descriptor_remove_family(td, f->name);
    td->family[td->n_family++] = f;
    return f;
}

strata_family_descriptor_t *strata_table_descriptor_find_family(strata_table_descriptor_t *td,
                                                                const char *name)
{
    ptrdiff_t i = family_index(td, name);
    return i < 0 ? NULL : td->family[i];
}

unsigned char strata_table_descriptor_remove_family(strata_table_descriptor_t *td, const char *name)
{
    ptrdiff_t i = family_index(td, name);
    if (i < 0)
        return 0;
    family_free(td->family[i]);
    memmove(td->family + i, td->family + i + 1,
            (td->n_family - (size_t)i - 1) * sizeof(*td->family));
    td->n_family--;
    return 1;
}

size_t strata_table_descriptor_family_count(const strata_table_descriptor_t *td)
{
    return td->n_family;
}

const strata_family_descriptor_t *
strata_table_descriptor_family(const strata_table_descriptor_t *td, size_t i)
{
    return i < td->n_family ? td->family[i] : NULL;
}

static bool table_attr_ok(strata_table_attr attr)
{
    return (unsigned)attr < N_TABLE_ATTRS;
}

void strata_table_descriptor_set(strata_table_descriptor_t *td, strata_table_attr attr,
                                 int64_t value)
{
    if (!table_attr_ok(attr))
        return;
    td->value[attr] = value;
    td->set[attr] = !(attr == STRATA_TABLE_DURABILITY && value == STRATA_DURABILITY_USE_DEFAULT) &&
                    !(attr == STRATA_TABLE_READONLY && value == 0);
}

int64_t strata_table_descriptor_get(const strata_table_descriptor_t *td, strata_table_attr attr)
{
    if (!table_attr_ok(attr))
        return 0;
    return td->set[attr] ? td->value[attr] : 0;
}

unsigned char strata_table_descriptor_is_set(const strata_table_descriptor_t *td,
                                             strata_table_attr attr)
{
    return table_attr_ok(attr) && td->set[attr];
}

void strata_table_descriptor_unset(strata_table_descriptor_t *td, strata_table_attr attr)
{
    if (table_attr_ok(attr))
        td->set[attr] = false;
}

/* ---- to the wire ---- */

/* Checks that a set value fits [min, max]; what names it in the message. */
static int in_range(int64_t v, int64_t min, int64_t max, const char *table, const char *family,
                    const char *attr)
{
    if (v >= min && v <= max)
        return ST_OK;
    return st_error(ST_INVALID_ARGUMENT, "table %s%s%s: %s %lld is out of range (%lld..%lld)",
                    table, family ? ", family " : "", family ? family : "", attr, (long long)v,
                    (long long)min, (long long)max);
}

/* The range of each family attribute's field. */
static void family_range(strata_family_attr a, int64_t *min, int64_t *max)
{
    *min = 0;
    *max = UINT32_MAX;
    if (a == STRATA_FAMILY_TTL) {
        *min = INT64_MIN;
        *max = INT64_MAX;
    } else if (a == STRATA_FAMILY_KEEP_DELETED_CELLS) {
        *max = STRATA_KEEP_DELETED_TTL;
    } else if (a == STRATA_FAMILY_IN_MEMORY || a == STRATA_FAMILY_BLOCKCACHE) {
        *max = 1;
    }
}

static int family_to_proto(const strata_family_descriptor_t *f, const char *table,
                           Strata__Admin__ColumnFamilySchema *p)
{
    int64_t v[N_FAMILY_ATTRS];
    int rc = ST_OK;
    for (int a = 0; a < N_FAMILY_ATTRS && rc == ST_OK; a++) {
        int64_t min, max;
        family_range((strata_family_attr)a, &min, &max);
        v[a] = f->value[a];
        if (f->set[a])
            rc = in_range(v[a], min, max, table, f->name, FAMILY_ATTR_NAME[a]);
    }
    if (rc != ST_OK)
        return rc;
    p->has_versions = f->set[STRATA_FAMILY_VERSIONS];
    p->versions = (uint32_t)v[STRATA_FAMILY_VERSIONS];
    p->has_min_versions = f->set[STRATA_FAMILY_MIN_VERSIONS];
    p->min_versions = (uint32_t)v[STRATA_FAMILY_MIN_VERSIONS];
    p->has_ttl_sec = f->set[STRATA_FAMILY_TTL];
    p->ttl_sec = v[STRATA_FAMILY_TTL];
    p->has_bloom = f->set[STRATA_FAMILY_BLOOMFILTER];
    p->bloom = (uint32_t)v[STRATA_FAMILY_BLOOMFILTER];
    p->has_compression = f->set[STRATA_FAMILY_COMPRESSION];
    p->compression = (uint32_t)v[STRATA_FAMILY_COMPRESSION];
    p->has_block_size = f->set[STRATA_FAMILY_BLOCKSIZE];
    p->block_size = (uint32_t)v[STRATA_FAMILY_BLOCKSIZE];
    p->has_keep_deleted_cells = f->set[STRATA_FAMILY_KEEP_DELETED_CELLS];
    p->keep_deleted_cells = v[STRATA_FAMILY_KEEP_DELETED_CELLS] != 0;
    p->has_keep_deleted_mode = f->set[STRATA_FAMILY_KEEP_DELETED_CELLS];
    p->keep_deleted_mode = (uint32_t)v[STRATA_FAMILY_KEEP_DELETED_CELLS];
    p->has_data_block_encoding = f->set[STRATA_FAMILY_DATA_BLOCK_ENCODING];
    p->data_block_encoding = (uint32_t)v[STRATA_FAMILY_DATA_BLOCK_ENCODING];
    p->has_in_memory = f->set[STRATA_FAMILY_IN_MEMORY];
    p->in_memory = v[STRATA_FAMILY_IN_MEMORY] != 0;
    p->has_block_cache = f->set[STRATA_FAMILY_BLOCKCACHE];
    p->block_cache = v[STRATA_FAMILY_BLOCKCACHE] != 0;
    return ST_OK;
}

static int table_attrs_to_proto(const strata_table_descriptor_t *td, Strata__Admin__TableSchema *s)
{
    static const int64_t max[N_TABLE_ATTRS] = {INT64_MAX, INT64_MAX, STRATA_DURABILITY_FSYNC_WAL,
                                               1};
    for (int a = 0; a < N_TABLE_ATTRS; a++) {
        int rc = td->set[a] ? in_range(td->value[a], 0, max[a], td->name, NULL, TABLE_ATTR_NAME[a])
                            : ST_OK;
        if (rc != ST_OK)
            return rc;
    }
    s->has_max_filesize = td->set[STRATA_TABLE_MAX_FILESIZE];
    s->max_filesize = (uint64_t)td->value[STRATA_TABLE_MAX_FILESIZE];
    s->has_memstore_flushsize = td->set[STRATA_TABLE_MEMSTORE_FLUSHSIZE];
    s->memstore_flushsize = (uint64_t)td->value[STRATA_TABLE_MEMSTORE_FLUSHSIZE];
    s->has_durability = td->set[STRATA_TABLE_DURABILITY];
    s->durability = (uint32_t)td->value[STRATA_TABLE_DURABILITY];
    s->has_read_only = td->set[STRATA_TABLE_READONLY];
    s->read_only = td->value[STRATA_TABLE_READONLY] != 0;
    return ST_OK;
}

/* A repeated NameStringPair field of ps (names checked non-empty); what names it. */
static int pairs_to_proto(const admin_pairs *ps, const char *table, const char *what,
                          Strata__Admin__NameStringPair ***out, size_t *n)
{
    *out = calloc(ps->n ? ps->n : 1, sizeof(**out));
    if (!*out)
        return st_error(ST_NOMEM, "admin: out of memory building the schema of %s", table);
    for (size_t i = 0; i < ps->n; i++) {
        if (!ps->key[i][0])
            return st_error(ST_INVALID_ARGUMENT, "table %s: a %s key is empty", table, what);
        Strata__Admin__NameStringPair *p = calloc(1, sizeof(*p));
        if (p)
            strata__admin__name_string_pair__init(p);
        if (!p || !(p->name = strdup(ps->key[i])) || !(p->value = strdup(ps->value[i]))) {
            if (p)
                free(p->name);
            free(p);
            return st_error(ST_NOMEM, "admin: out of memory building the schema of %s", table);
        }
        (*out)[(*n)++] = p;
    }
    return ST_OK;
}

int admin_descriptor_to_schema(const strata_table_descriptor_t *td,
                               Strata__Admin__TableSchema **out)
{
    *out = NULL;
    Strata__Admin__TableSchema *s = calloc(1, sizeof(*s));
    if (!s)
        return st_error(ST_NOMEM, "admin: out of memory building the schema of %s", td->name);
    strata__admin__table_schema__init(s);
    s->name = strdup(td->name);
    s->family = calloc(td->n_family ? td->n_family : 1, sizeof(*s->family));
    int rc = s->name && s->family
                 ? table_attrs_to_proto(td, s)
                 : st_error(ST_NOMEM, "admin: out of memory building the schema of %s", td->name);
    for (size_t i = 0; rc == ST_OK && i < td->n_family; i++) {
        Strata__Admin__ColumnFamilySchema *p = calloc(1, sizeof(*p));
        if (p)
            strata__admin__column_family_schema__init(p);
        if (!p || !(p->name = strdup(td->family[i]->name))) {
            free(p);
            rc = st_error(ST_NOMEM, "admin: out of memory building the schema of %s", td->name);
            break;
        }
        s->family[s->n_family++] = p;
        rc = family_to_proto(td->family[i], td->name, p);
    }
    if (rc == ST_OK)
        rc = pairs_to_proto(&td->values, td->name, "METADATA", &s->value, &s->n_value);
    if (rc == ST_OK)
        rc = pairs_to_proto(&td->config, td->name, "CONFIGURATION", &s->configuration,
                            &s->n_configuration);
    if (rc != ST_OK) {
        admin_rpc_schema_free(s);
        return rc;
    }
    *out = s;
    return ST_OK;
}

/* ---- from the wire ---- */

static void family_from_proto(const Strata__Admin__ColumnFamilySchema *p,
                              strata_family_descriptor_t *f)
{
    if (p->has_versions)
        strata_family_descriptor_set(f, STRATA_FAMILY_VERSIONS, p->versions);
    if (p->has_min_versions)
        strata_family_descriptor_set(f, STRATA_FAMILY_MIN_VERSIONS, p->min_versions);
    if (p->has_ttl_sec)
        strata_family_descriptor_set(f, STRATA_FAMILY_TTL, p->ttl_sec);
    if (p->has_bloom)
        strata_family_descriptor_set(f, STRATA_FAMILY_BLOOMFILTER, p->bloom);
    if (p->has_compression)
        strata_family_descriptor_set(f, STRATA_FAMILY_COMPRESSION, p->compression);
    if (p->has_block_size)
        strata_family_descriptor_set(f, STRATA_FAMILY_BLOCKSIZE, p->block_size);
    if (p->has_keep_deleted_mode)
        strata_family_descriptor_set(f, STRATA_FAMILY_KEEP_DELETED_CELLS, p->keep_deleted_mode);
    else if (p->has_keep_deleted_cells)
        strata_family_descriptor_set(f, STRATA_FAMILY_KEEP_DELETED_CELLS, p->keep_deleted_cells);
    if (p->has_data_block_encoding)
        strata_family_descriptor_set(f, STRATA_FAMILY_DATA_BLOCK_ENCODING, p->data_block_encoding);
    if (p->has_in_memory)
        strata_family_descriptor_set(f, STRATA_FAMILY_IN_MEMORY, p->in_memory);
    if (p->has_block_cache)
        strata_family_descriptor_set(f, STRATA_FAMILY_BLOCKCACHE, p->block_cache);
}

int admin_descriptor_from_schema(const Strata__Admin__TableSchema *s,
                                 strata_table_descriptor_t **out)
{
    strata_table_descriptor_t *td = strata_table_descriptor_create(s->name);
    *out = NULL;
    for (size_t i = 0; td && i < s->n_family; i++) {
        strata_family_descriptor_t *f = strata_table_descriptor_add_family(td, s->family[i]->name);
        if (!f) {
            strata_table_descriptor_destroy(td);
            td = NULL;
            break;
        }
        family_from_proto(s->family[i], f);
    }
    if (!td)
        return st_error(ST_NOMEM, "admin: out of memory reading the schema of %s", s->name);
    if (s->has_max_filesize)
        strata_table_descriptor_set(td, STRATA_TABLE_MAX_FILESIZE, (int64_t)s->max_filesize);
    if (s->has_memstore_flushsize)
        strata_table_descriptor_set(td, STRATA_TABLE_MEMSTORE_FLUSHSIZE,
                                    (int64_t)s->memstore_flushsize);
    if (s->has_durability)
        strata_table_descriptor_set(td, STRATA_TABLE_DURABILITY, s->durability);
    if (s->has_read_only)
        strata_table_descriptor_set(td, STRATA_TABLE_READONLY, s->read_only);
    bool ok = true;
    for (size_t i = 0; ok && i < s->n_value; i++)
        ok = admin_pairs_set(&td->values, s->value[i]->name, s->value[i]->value);
    for (size_t i = 0; ok && i < s->n_configuration; i++)
        ok = admin_pairs_set(&td->config, s->configuration[i]->name, s->configuration[i]->value);
    if (!ok) {
        strata_table_descriptor_destroy(td);
        return st_error(ST_NOMEM, "admin: out of memory reading the schema of %s", s->name);
    }
    *out = td;
    return ST_OK;
}
