/*
 * schema_proto.c - table schemas and region identities to and from their protobuf
 * messages (strata.admin.TableSchema, RegionInfo; common/proto/admin.proto): the one
 * conversion the region server and the master share (see schema_proto.h).
 *
 * Thread-safety: pure functions.
 */
#include "regionserver/storage/schema_proto.h"

#include <string.h>

#include "common/cell.h"
#include "common/status.h"

typedef int (*pair_setter)(table_schema *t, const char *key, const char *value);
typedef const char *(*pair_getter)(const table_schema *t, const char *key);

/* Copies the pairs of a repeated NameStringPair field (each name once) into out. */
static int pairs_from_proto(Strata__Admin__NameStringPair *const *v, size_t n, const char *what,
                            pair_setter set, pair_getter get, table_schema *out)
{
    for (size_t i = 0; i < n; i++) {
        if (get(out, v[i]->name))
            return st_error(ST_INVALID_ARGUMENT, "table '%s': %s '%s' is given twice", out->name,
                            what, v[i]->name);
        int rc = set(out, v[i]->name, v[i]->value);
        if (rc != ST_OK)
            return rc;
    }
    return ST_OK;
}

/* The table attributes, values and configuration of p into out. */
static int table_from_proto(const Strata__Admin__TableSchema *p, uint64_t default_flushsize,
                            table_schema *out)
{
    out->memstore_flushsize = p->has_memstore_flushsize ? p->memstore_flushsize : default_flushsize;
    if (p->has_max_filesize && p->max_filesize == 0)
        return st_error(ST_INVALID_ARGUMENT, "table '%s': MAX_FILESIZE must be > 0", p->name);
    if (p->has_max_filesize)
        out->max_filesize = p->max_filesize;
    out->read_only = p->has_read_only && p->read_only;
    if (p->has_durability && p->durability >= DURABILITY_SKIP_WAL &&
        p->durability <= DURABILITY_FSYNC_WAL)
        out->durability = (durability)p->durability;
    else if (p->has_durability)
        return st_error(ST_INVALID_ARGUMENT, "table %s: durability %u is not 1..4", p->name,
                        p->durability);
    int rc = pairs_from_proto(p->value, p->n_value, "METADATA", table_schema_set_value,
                              table_schema_value, out);
    if (rc == ST_OK)
        rc = pairs_from_proto(p->configuration, p->n_configuration, "CONFIGURATION",
                              table_schema_set_config, table_schema_config, out);
    return rc;
}

int schema_from_proto(const Strata__Admin__TableSchema *p, uint64_t default_flushsize,
                      table_schema *out)
{
    if (strlen(p->name) >= sizeof(out->name))
        return st_error(ST_INVALID_ARGUMENT, "table name of %zu bytes is too long",
                        strlen(p->name));
    table_schema_init(out, p->name);
    int rc = table_from_proto(p, default_flushsize, out);
    if (rc != ST_OK)
        return rc;
    for (size_t i = 0; i < p->n_family; i++) {
        const Strata__Admin__ColumnFamilySchema *fp = p->family[i];
        if (strlen(fp->name) > CELL_MAX_FAMILY_LEN)
            return st_error(ST_INVALID_ARGUMENT, "table %s: family name too long", p->name);
        family_schema f;
        family_schema_init(&f, fp->name);
        if (fp->has_versions)
            f.versions = (int)fp->versions;
        if (fp->has_min_versions)
            f.min_versions = (int)fp->min_versions;
        if (fp->has_ttl_sec)
            f.ttl_sec = fp->ttl_sec;
        if (fp->has_bloom)
            f.bloom = (bloom_type)fp->bloom;
        if (fp->has_compression)
            f.compression = (compression_type)fp->compression;
        if (fp->has_block_size)
            f.block_size = fp->block_size;
        if (fp->has_keep_deleted_mode)
            f.keep_deleted_cells = (keep_deleted_mode)fp->keep_deleted_mode;
        else if (fp->has_keep_deleted_cells)
            f.keep_deleted_cells = fp->keep_deleted_cells ? KEEP_DELETED_TRUE : KEEP_DELETED_FALSE;
        if (fp->has_data_block_encoding)
            f.encoding = (block_encoding)fp->data_block_encoding;
        if (fp->has_in_memory)
            f.in_memory = fp->in_memory;
        if (fp->has_block_cache)
            f.block_cache = fp->block_cache;
        rc = table_schema_add_family(out, &f);
        if (rc != ST_OK)
            return rc;
    }
    return table_schema_validate(out);
}

int region_info_from_proto(const Strata__Admin__RegionInfo *p, region_info *out)
{
    memset(out, 0, sizeof(*out));
    if (strlen(p->table) >= sizeof(out->table) ||
        strlen(p->encoded_name) >= sizeof(out->encoded_name) || !p->encoded_name[0])
        return st_error(ST_INVALID_ARGUMENT, "region '%s' of table '%s': name too long or empty",
                        p->encoded_name, p->table);
    memcpy(out->table, p->table, strlen(p->table) + 1);
    memcpy(out->encoded_name, p->encoded_name, strlen(p->encoded_name) + 1);
    if (p->has_start_key) {
        out->start_key = p->start_key.data;
        out->start_key_len = p->start_key.len;
    }
    if (p->has_end_key) {
        out->end_key = p->end_key.data;
        out->end_key_len = p->end_key.len;
    }
    out->region_id = p->has_region_id ? p->region_id : 0;
    return ST_OK;
}

void region_info_to_proto(const region_info *i, Strata__Admin__RegionInfo *out)
{
    strata__admin__region_info__init(out);
    out->table = (char *)i->table;
    out->encoded_name = (char *)i->encoded_name;
    out->has_start_key = out->has_end_key = out->has_region_id = 1;
    out->start_key.data = (uint8_t *)i->start_key;
    out->start_key.len = i->start_key_len;
    out->end_key.data = (uint8_t *)i->end_key;
    out->end_key.len = i->end_key_len;
    out->region_id = i->region_id;
}
