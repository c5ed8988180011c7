/*
 * shell_schema.c - table and column-family descriptors for create, alter and describe:
 * HBase's family dictionaries ({NAME => 'f', VERSIONS => 3, TTL => 86400, BLOOMFILTER =>
 * 'ROW', COMPRESSION => 'ZSTD', ...}), table attributes (MAX_FILESIZE,
 * MEMSTORE_FLUSHSIZE, DURABILITY), table values (SPLIT_POLICY, NORMALIZATION_ENABLED,
 * METADATA => {...}) and configuration (CONFIGURATION => {...}) onto strata/admin.h's
 * descriptors, and back into describe's text: HBase's TableDescriptor layout, the
 * attributes, then the values under METADATA (SPLIT_POLICY and NORMALIZATION_ENABLED are
 * values there, as in HBase 2), each sorted by key, and the configuration after them as
 * HBase 1 printed it. Alter edits the descriptor describe returned in place.
 *
 * Thread-safety: reentrant.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/status.h"
#include "shell/shell_internal.h"

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
    int rc = v->kind == SHELL_V_STR && strlen(v->s) == v->len ? shell_ttl_parse(v->s, &ttl)
                                                               : positive(v, "TTL", 1, &ttl);
    if (rc == ST_OK && ttl < 1)
        rc = st_error(ST_INVALID_ARGUMENT, "TTL must be at least 1 second");
    if (rc == ST_OK)
        strata_family_descriptor_set(f, STRATA_FAMILY_TTL, ttl);
    return rc;
}

/* KEEP_DELETED_CELLS: true, false, or 'TRUE', 'FALSE', 'TTL' (HBase's
 * KeepDeletedCells.valueOf(to_s.upcase)). */
static int set_keep_deleted(strata_family_descriptor_t *f, const shell_value *v)
{
    bool b;
    if (v->kind == SHELL_V_STR && strcasecmp(v->s, "TTL") == 0) {
        strata_family_descriptor_set(f, STRATA_FAMILY_KEEP_DELETED_CELLS, STRATA_KEEP_DELETED_TTL);
        return ST_OK;
    }
    int rc = shell_bool_value(v, "KEEP_DELETED_CELLS", &b);
    if (rc == ST_OK)
        strata_family_descriptor_set(f, STRATA_FAMILY_KEEP_DELETED_CELLS, b);
    return rc;
}

/* IN_MEMORY or BLOCKCACHE: true or false. */
static int set_flag(strata_family_descriptor_t *f, strata_family_attr attr, const char *key,
                    const shell_value *v)
{
    bool b;
    int rc = shell_bool_value(v, key, &b);
    if (rc == ST_OK)
        strata_family_descriptor_set(f, attr, b);
    return rc;
}

/* HBase's PrettyPrinter byte sizes: "65536", "65536 B (64KB)", "64KB", "1MB 512KB". */
static int parse_byte_size(const char *text, int64_t *out)
{
    const char *p = text;
    char *end;
    int64_t total = 0;
    bool any = false;
    while (*p) {
        while (*p == ' ')
            p++;
        if (*p == '(' && any) /* "N B (...)": the part before the brackets says it all */
            break;
        if (*p < '0' || *p > '9')
            return st_error(ST_INVALID_ARGUMENT, "BLOCKSIZE '%s' is not a size", text);
        long long n = strtoll(p, &end, 10);
        p = end;
        while (*p == ' ')
            p++;
        static const struct {
            const char *unit;
            int shift;
        } units[] = {{"TB", 40}, {"GB", 30}, {"MB", 20}, {"KB", 10}, {"B", 0}};
        int shift = -1;
        for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
            if (strncasecmp(p, units[i].unit, strlen(units[i].unit)) == 0) {
                shift = units[i].shift;
                p += strlen(units[i].unit);
                break;
            }
        if (shift < 0 && *p)
            return st_error(ST_INVALID_ARGUMENT, "BLOCKSIZE '%s' is not a size", text);
        if (n < 0 || n > (INT64_MAX >> 41))
            return st_error(ST_INVALID_ARGUMENT, "BLOCKSIZE '%s' is too large", text);
        total += (int64_t)n << (shift < 0 ? 0 : shift);
        any = true;
    }
    if (!any)
        return st_error(ST_INVALID_ARGUMENT, "BLOCKSIZE '%s' is not a size", text);
    *out = total;
    return ST_OK;
}

static int set_block_size(strata_family_descriptor_t *f, const shell_value *v)
{
    int64_t n = 0;
    int rc;
    if (v->kind == SHELL_V_STR && strlen(v->s) == v->len)
        rc = parse_byte_size(v->s, &n);
    else
        rc = shell_int_value(v, "BLOCKSIZE", &n);
    if (rc == ST_OK && (n < 1 || n > UINT32_MAX))
        rc = st_error(ST_INVALID_ARGUMENT, "BLOCKSIZE %lld is out of range", (long long)n);
    if (rc == ST_OK)
        strata_family_descriptor_set(f, STRATA_FAMILY_BLOCKSIZE, n);
    return rc;
}

/* A key HBase knows and Strata does not have: the value that is Strata's behaviour anyway
 * (accepted, nothing stored; NULL: none) and why any other is refused. */
typedef struct unsupported {
    const char *key;
    const char *same; /* compared with the value's to_s, any case */
    const char *why;
} unsupported;

static const unsupported FAMILY_UNSUPPORTED[] = {
    {"INDEX_BLOCK_ENCODING", NULL, "the block index has one encoding"},
    {"REPLICATION_SCOPE", "0", "Strata has no replication"},
    {"CACHE_DATA_ON_WRITE", "false", "blocks are cached when read, not when written"},
    {"CACHE_INDEX_ON_WRITE", "false", "blocks are cached when read, not when written"},
    {"CACHE_BLOOMS_ON_WRITE", "false", "blocks are cached when read, not when written"},
    {"EVICT_BLOCKS_ON_CLOSE", "false", "a closed store file's blocks age out of the cache"},
    {"PREFETCH_BLOCKS_ON_OPEN", "false", "blocks are read when needed"},
    {"COMPRESSION_COMPACT", NULL, "compactions write the family's COMPRESSION"},
    {"COMPRESSION_COMPACT_MAJOR", NULL, "compactions write the family's COMPRESSION"},
    {"COMPRESSION_COMPACT_MINOR", NULL, "compactions write the family's COMPRESSION"},
    {"ENCRYPTION", NULL, "Strata has no encryption at rest"},
    {"ENCRYPTION_KEY", NULL, "Strata has no encryption at rest"},
    {"IS_MOB", "false", "Strata has no MOB storage"},
    {"MOB_THRESHOLD", NULL, "Strata has no MOB storage"},
    {"MOB_COMPACT_PARTITION_POLICY", NULL, "Strata has no MOB storage"},
    {"DFS_REPLICATION", NULL, "store files live on the region server's file system"},
    {"STORAGE_POLICY", NULL, "store files live on the region server's file system"},
    {"NEW_VERSION_BEHAVIOR", "false", "deletes mask versions as HBase's default does"},
    {"METADATA", NULL, "families keep no METADATA (a table's METADATA is kept)"},
    {"CONFIGURATION", NULL, "families keep no CONFIGURATION (a table's CONFIGURATION is kept)"},
    {NULL, NULL, NULL}};

static const unsupported TABLE_UNSUPPORTED[] = {
    {"OWNER", NULL, "Strata has no access control"},
    {"REGION_REPLICATION", "1", "Strata has no region replicas"},
    {"REGION_MEMSTORE_REPLICATION", NULL, "Strata has no region replicas"},
    {"COMPACTION_ENABLED", "true", "compactions cannot be switched off per table"},
    {"SPLIT_ENABLED", "true",
     "splits cannot be switched off per table (split_switch, or SPLIT_POLICY => "
     "'DisabledRegionSplitPolicy')"},
    {"MERGE_ENABLED", "true", "merges cannot be switched off per table (merge_switch)"},
    {"PRIORITY", NULL, "Strata has no request priorities"},
    {"FLUSH_POLICY", NULL, "the flush policy is not configurable"},
    {"NORMALIZER_TARGET_REGION_COUNT", NULL,
     "the normalizer aims at the table's average region size"},
    {"NORMALIZER_TARGET_REGION_SIZE", NULL,
     "the normalizer aims at the table's average region size"},
    {"NORMALIZER_TARGET_REGION_SIZE_MB", NULL,
     "the normalizer aims at the table's average region size"},
    {"COPROCESSOR", NULL, "Strata has no coprocessors"},
    {NULL, NULL, NULL}};

/* key in list: ST_OK with *known (the value is Strata's behaviour), or the refusal; *known
 * false when the list does not hold key. where: "table t" or "column family f". */
static int check_unsupported(const unsupported *list, const char *key, const shell_value *v,
                             const char *where, bool *known)
{
    *known = false;
    for (const unsupported *u = list; u->key; u++) {
        if (strcasecmp(u->key, key) != 0)
            continue;
        *known = true;
        buf_t b = {0};
        if (u->same && v->kind != SHELL_V_ARRAY && v->kind != SHELL_V_HASH &&
            shell_to_s(v, key, &b) == ST_OK && strcasecmp((char *)b.data, u->same) == 0) {
            buf_free(&b);
            return ST_OK;
        }
        buf_reset(&b);
        shell_value_inspect(v, &b);
        int rc = st_error(ST_UNSUPPORTED, "%s => %s for %s is not supported: %s", u->key,
                          b.data ? (char *)b.data : "?", where, u->why);
        buf_free(&b);
        return rc;
    }
    return ST_OK;
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

/* An enumerated attribute named by HBase's name of its value (any case). */
static int set_choice(strata_family_descriptor_t *f, strata_family_attr attr, const char *what,
                      const shell_value *v)
{
    const char *names[8];
    size_t n = 0;
    while (n < 8 && (names[n] = strata_family_value_name(attr, (int64_t)n)))
        n++;
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
        return set_block_size(f, v);
    if (strcmp(key, "BLOOMFILTER") == 0)
        return set_choice(f, STRATA_FAMILY_BLOOMFILTER, "BloomFilter type", v);
    if (strcmp(key, "COMPRESSION") == 0)
        return set_choice(f, STRATA_FAMILY_COMPRESSION, "Compression", v);
    if (strcmp(key, "DATA_BLOCK_ENCODING") == 0)
        return set_choice(f, STRATA_FAMILY_DATA_BLOCK_ENCODING, "DataBlockEncoding", v);
    if (strcmp(key, "IN_MEMORY") == 0)
        return set_flag(f, STRATA_FAMILY_IN_MEMORY, key, v);
    if (strcmp(key, "BLOCKCACHE") == 0)
        return set_flag(f, STRATA_FAMILY_BLOCKCACHE, key, v);
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
        if (rc == ST_OK && !known) {
            char where[300];
            snprintf(where, sizeof(where), "column family %s", strata_family_descriptor_name(f));
            rc = check_unsupported(FAMILY_UNSUPPORTED, k->s, shell_hash_val(spec, i), where,
                                   &known);
        }
        if (rc != ST_OK)
            return rc;
        if (!known)
            fprintf(s->out, "Unknown argument ignored for column family %s: %s\n",
                    strata_family_descriptor_name(f), k->s);
    }
    return ST_OK;
}

/* MAX_FILESIZE or MEMSTORE_FLUSHSIZE: a positive integer. */
static int set_size(strata_table_descriptor_t *t, strata_table_attr attr, const char *key,
                    const shell_value *v)
{
    int64_t n = 0;
    int rc = positive(v, key, 1, &n);
    if (rc == ST_OK)
        strata_table_descriptor_set(t, attr, n);
    return rc;
}

static int set_durability(strata_table_descriptor_t *t, const shell_value *v)
{
    uint32_t code = 0;
    int rc = pick(v, "Durability", DURABILITIES, 5, &code);
    if (rc == ST_OK)
        strata_table_descriptor_set(t, STRATA_TABLE_DURABILITY, code); /* USE_DEFAULT unsets */
    return rc;
}

static int nomem_unless(unsigned char ok)
{
    return ok ? ST_OK : st_error(ST_NOMEM, "out of memory");
}

/* SPLIT_POLICY: a class name, kept as given (the master checks it). */
static int set_split_policy(strata_table_descriptor_t *t, const shell_value *v)
{
    if (v->kind != SHELL_V_STR || strlen(v->s) != v->len)
        return st_error(ST_INVALID_ARGUMENT, "SPLIT_POLICY must be a String (a class name)");
    return nomem_unless(strata_table_descriptor_set_value(t, STRATA_TABLE_SPLIT_POLICY, v->s));
}

/* NORMALIZATION_ENABLED: true or false, kept as the value 'true' / 'false' as HBase does. */
static int set_normalization(strata_table_descriptor_t *t, const shell_value *v)
{
    bool b = false;
    int rc = shell_bool_value(v, "NORMALIZATION_ENABLED", &b);
    if (rc == ST_OK)
        rc = nomem_unless(strata_table_descriptor_set_value(t, STRATA_TABLE_NORMALIZATION_ENABLED,
                                                            b ? "true" : "false"));
    return rc;
}

static int set_readonly(strata_table_descriptor_t *t, const shell_value *v)
{
    bool b = false;
    int rc = shell_bool_value(v, "READONLY", &b);
    if (rc == ST_OK)
        strata_table_descriptor_set(t, STRATA_TABLE_READONLY, b); /* false unsets */
    return rc;
}

typedef unsigned char (*pair_setter)(strata_table_descriptor_t *t, const char *key,
                                     const char *value);

/* Ruby's to_s of a scalar without NUL bytes into b; what names it. */
static int text_of(const shell_value *v, const char *what, buf_t *b)
{
    int rc = shell_to_s(v, what, b);
    if (rc == ST_OK && strlen((char *)b->data) != b->len)
        rc = st_error(ST_INVALID_ARGUMENT, "%s must not hold a NUL byte", what);
    return rc;
}

/* METADATA => {k => v, ...} or CONFIGURATION => {...}: each pair set (a nil value
 * removes the key). */
static int set_pairs(strata_table_descriptor_t *t, const char *what, const shell_value *h,
                     pair_setter set)
{
    if (h->kind != SHELL_V_HASH)
        return st_error(ST_INVALID_ARGUMENT, "%s must be a Hash type", what);
    char kwhat[64], vwhat[64];
    snprintf(kwhat, sizeof(kwhat), "A %s key", what);
    snprintf(vwhat, sizeof(vwhat), "A %s value", what);
    buf_t k = {0}, v = {0};
    int rc = ST_OK;
    for (size_t i = 0; rc == ST_OK && i < h->n; i++) {
        const shell_value *val = shell_hash_val(h, i);
        rc = text_of(shell_hash_key(h, i), kwhat, &k);
        if (rc == ST_OK && val->kind != SHELL_V_NIL)
            rc = text_of(val, vwhat, &v);
        if (rc == ST_OK)
            rc = nomem_unless(
                set(t, (char *)k.data, val->kind == SHELL_V_NIL ? NULL : (char *)v.data));
    }
    buf_free(&k);
    buf_free(&v);
    return rc;
}

int shell_table_attr(strata_table_descriptor_t *t, const char *key, const shell_value *v,
                     bool *known)
{
    *known = true;
    if (strcmp(key, "MAX_FILESIZE") == 0)
        return set_size(t, STRATA_TABLE_MAX_FILESIZE, key, v);
    if (strcmp(key, "MEMSTORE_FLUSHSIZE") == 0)
        return set_size(t, STRATA_TABLE_MEMSTORE_FLUSHSIZE, key, v);
    if (strcmp(key, "DURABILITY") == 0)
        return set_durability(t, v);
    if (strcmp(key, "SPLIT_POLICY") == 0)
        return set_split_policy(t, v);
    if (strcmp(key, "NORMALIZATION_ENABLED") == 0)
        return set_normalization(t, v);
    if (strcmp(key, "READONLY") == 0)
        return set_readonly(t, v);
    if (strcmp(key, "METADATA") == 0)
        return set_pairs(t, key, v, strata_table_descriptor_set_value);
    if (strcmp(key, "CONFIGURATION") == 0)
        return set_pairs(t, key, v, strata_table_descriptor_set_config);
    char where[300];
    snprintf(where, sizeof(where), "table %s",
             shell_display_name(strata_table_descriptor_name(t)));
    return check_unsupported(TABLE_UNSUPPORTED, key, v, where, known);
}

/* Unsets one table attribute or value (config false) or configuration entry (true). */
static int unset_one(strata_table_descriptor_t *t, const shell_value *name, bool config)
{
    static const char *const attrs[] = {"MAX_FILESIZE", "MEMSTORE_FLUSHSIZE", "DURABILITY",
                                        "READONLY"};
    if (name->kind != SHELL_V_STR || strlen(name->s) != name->len)
        return st_error(ST_INVALID_ARGUMENT, "NAME must be a String or an Array of Strings");
    for (size_t a = 0; !config && a < sizeof(attrs) / sizeof(attrs[0]); a++)
        if (strcmp(name->s, attrs[a]) == 0) {
            if (!strata_table_descriptor_is_set(t, (strata_table_attr)a))
                break;
            strata_table_descriptor_unset(t, (strata_table_attr)a);
            return ST_OK;
        }
    if (config ? !strata_table_descriptor_get_config(t, name->s)
               : !strata_table_descriptor_get_value(t, name->s))
        return st_error(ST_INVALID_ARGUMENT, "Could not find %s: %s",
                        config ? "configuration" : "attribute", name->s);
    return nomem_unless(config ? strata_table_descriptor_set_config(t, name->s, NULL)
                               : strata_table_descriptor_set_value(t, name->s, NULL));
}

int shell_table_attr_unset(strata_table_descriptor_t *t, const shell_value *name, bool config)
{
    if (!name)
        return st_error(ST_INVALID_ARGUMENT, "NAME parameter missing for %s method",
                        config ? "table_conf_unset" : "table_att_unset");
    if (name->kind != SHELL_V_ARRAY)
        return unset_one(t, name, config);
    int rc = ST_OK;
    for (size_t i = 0; rc == ST_OK && i < name->n; i++)
        rc = unset_one(t, &name->items[i], config);
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

/* HBase's PrettyPrinter for a byte size: "512 B", "65536 B (64KB)", "1049600 B (1MB 1KB)". */
static void byte_size_string(int64_t size, char *out, size_t cap)
{
    if (size < 1024) {
        snprintf(out, cap, "%lld B", (long long)size);
        return;
    }
    static const char *const unit[] = {"TB", "GB", "MB", "KB", "B"};
    int n = snprintf(out, cap, "%lld B (", (long long)size);
    bool any = false;
    for (int i = 0; i < 5; i++) {
        int shift = 40 - 10 * i;
        int64_t part = (size >> shift) & (i == 0 ? INT64_MAX : 1023);
        if (part > 0 && n > 0 && (size_t)n < cap)
            n += snprintf(out + n, cap - (size_t)n, "%s%lld%s", any ? " " : "", (long long)part,
                          unit[i]);
        any = any || part > 0;
    }
    if (n > 0 && (size_t)n < cap)
        snprintf(out + n, cap - (size_t)n, ")");
}

static void attr_num(buf_t *b, const char *key, int64_t v)
{
    char num[32];
    snprintf(num, sizeof(num), "%lld", (long long)v);
    attr(b, key, num);
}

static void attr_enum(buf_t *b, const strata_family_descriptor_t *f, strata_family_attr a)
{
    const char *name = strata_family_value_name(a, strata_family_descriptor_get(f, a));
    attr(b, strata_family_attr_name(a), name ? name : "?");
}

/* HBase 2's order (its ColumnFamilyDescriptor values as the shell prints them). */
void shell_family_describe(const strata_family_descriptor_t *f, buf_t *b)
{
    char num[64];
    buf_reset(b);
    buf_append_u8(b, '{');
    attr(b, "NAME", strata_family_descriptor_name(f));
    attr_enum(b, f, STRATA_FAMILY_BLOOMFILTER);
    attr(b, "IN_MEMORY", strata_family_descriptor_get(f, STRATA_FAMILY_IN_MEMORY) ? "true" : "false");
    attr_num(b, "VERSIONS", strata_family_descriptor_get(f, STRATA_FAMILY_VERSIONS));
    attr_enum(b, f, STRATA_FAMILY_KEEP_DELETED_CELLS);
    attr_enum(b, f, STRATA_FAMILY_DATA_BLOCK_ENCODING);
    attr_enum(b, f, STRATA_FAMILY_COMPRESSION);
    shell_ttl_string(strata_family_descriptor_is_set(f, STRATA_FAMILY_TTL)
                         ? strata_family_descriptor_get(f, STRATA_FAMILY_TTL)
                         : 0,
                     num, sizeof(num));
    attr(b, "TTL", num);
    attr_num(b, "MIN_VERSIONS", strata_family_descriptor_get(f, STRATA_FAMILY_MIN_VERSIONS));
    attr(b, "BLOCKCACHE",
         strata_family_descriptor_get(f, STRATA_FAMILY_BLOCKCACHE) ? "true" : "false");
    byte_size_string(strata_family_descriptor_get(f, STRATA_FAMILY_BLOCKSIZE), num, sizeof(num));
    attr(b, "BLOCKSIZE", num);
    attr(b, "REPLICATION_SCOPE", "0");
    buf_append(b, "}", 2);
    b->len--;
}

static void append_str(buf_t *b, const char *text)
{
    buf_append(b, text, strlen(text));
}

/* KEY => 'value' (an attribute), after ", " unless it is the first. */
static void describe_attr(buf_t *b, bool *first, const char *key, const char *val)
{
    append_str(b, *first ? "" : ", ");
    *first = false;
    append_str(b, key);
    append_str(b, " => '");
    append_str(b, val);
    append_str(b, "'");
}

typedef const char *(*pair_key_fn)(const strata_table_descriptor_t *t, size_t i);
typedef const char *(*pair_get_fn)(const strata_table_descriptor_t *t, const char *key);

static int by_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* TITLE => {'k' => 'v', ...}: n pairs sorted by key, values as Bytes.toStringBinary. */
static void describe_pairs(buf_t *b, const strata_table_descriptor_t *t, const char *title,
                           size_t n, pair_key_fn key, pair_get_fn get)
{
    const char **keys = calloc(n ? n : 1, sizeof(*keys));
    if (!keys)
        return;
    for (size_t i = 0; i < n; i++)
        keys[i] = key(t, i);
    qsort(keys, n, sizeof(*keys), by_key);
    append_str(b, title);
    append_str(b, " => {");
    for (size_t i = 0; i < n; i++) {
        const char *v = get(t, keys[i]);
        append_str(b, i ? ", '" : "'");
        append_str(b, keys[i]);
        append_str(b, "' => '");
        shell_escape_binary(b, v, strlen(v));
        append_str(b, "'");
    }
    append_str(b, "}");
    free(keys);
}

/* The set attributes, in HBase's (sorted) order. */
static void describe_table_attrs(const strata_table_descriptor_t *t, buf_t *b, bool *first)
{
    char num[64];
    int64_t d = strata_table_descriptor_get(t, STRATA_TABLE_DURABILITY);
    if (strata_table_descriptor_is_set(t, STRATA_TABLE_DURABILITY) && d >= 0 && d < 5)
        describe_attr(b, first, "DURABILITY", DURABILITIES[d]);
    if (strata_table_descriptor_is_set(t, STRATA_TABLE_MAX_FILESIZE)) {
        snprintf(num, sizeof(num), "%llu",
                 (unsigned long long)strata_table_descriptor_get(t, STRATA_TABLE_MAX_FILESIZE));
        describe_attr(b, first, "MAX_FILESIZE", num);
    }
    if (strata_table_descriptor_is_set(t, STRATA_TABLE_MEMSTORE_FLUSHSIZE)) {
        snprintf(
            num, sizeof(num), "%llu",
            (unsigned long long)strata_table_descriptor_get(t, STRATA_TABLE_MEMSTORE_FLUSHSIZE));
        describe_attr(b, first, "MEMSTORE_FLUSHSIZE", num);
    }
    if (strata_table_descriptor_is_set(t, STRATA_TABLE_READONLY))
        describe_attr(b, first, "READONLY", "true");
}

void shell_table_attrs_describe(const strata_table_descriptor_t *t, buf_t *b)
{
    bool attrs = strata_table_descriptor_is_set(t, STRATA_TABLE_DURABILITY) ||
                 strata_table_descriptor_is_set(t, STRATA_TABLE_MAX_FILESIZE) ||
                 strata_table_descriptor_is_set(t, STRATA_TABLE_MEMSTORE_FLUSHSIZE) ||
                 strata_table_descriptor_is_set(t, STRATA_TABLE_READONLY);
    size_t nvalues = strata_table_descriptor_value_count(t);
    size_t nconfig = strata_table_descriptor_config_count(t);
    buf_reset(b);
    if (attrs || nvalues || nconfig)
        append_str(b, ", {");
    if (attrs || nvalues) {
        bool first = true;
        append_str(b, "TABLE_ATTRIBUTES => {");
        describe_table_attrs(t, b, &first);
        if (nvalues) {
            append_str(b, first ? "" : ", ");
            describe_pairs(b, t, "METADATA", nvalues, strata_table_descriptor_value_key,
                           strata_table_descriptor_get_value);
        }
        append_str(b, "}");
    }
    if (nconfig) {
        append_str(b, attrs || nvalues ? ", " : "");
        describe_pairs(b, t, "CONFIGURATION", nconfig, strata_table_descriptor_config_key,
                       strata_table_descriptor_get_config);
    }
    if (attrs || nvalues || nconfig)
        append_str(b, "}");
    buf_append_u8(b, '\0');
    b->len--;
}
