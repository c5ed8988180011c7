/*
 * bench_strata.c - the Strata side of `strata bench engine`: one engine (WAL, block
 * cache, flush and compaction threads) serving one region of table "bench" that spans
 * every key, with one family "cf" (VERSIONS 1, BLOOMFILTER ROW, COMPRESSION NONE).
 *
 * A benchmark key is the row; each row holds one cell cf:q (qualifier "q") whose value
 * is the benchmark value. Puts use DURABILITY_SYNC_WAL (a write(2) of the WAL batch,
 * surviving a process crash), or DURABILITY_FSYNC_WAL when the workload asks for sync.
 * Gets use region_get of the column cf:q (a key's value, as a peer's Get returns it);
 * scans open a region scanner at the start row.
 * Thread-safety: as bench.h; the region and engine are thread-safe, a ctx is per thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "regionserver/storage/engine.h"
#include "regionserver/storage/region.h"
#include "tools/bench.h"

#define FAMILY "cf"
#define QUALIFIER "q"

typedef struct strata_db {
    engine *e;
    region *r;
    table_schema schema;
    region_info info;
} strata_db;

typedef struct strata_ctx {
    scan_result res;
} strata_ctx;

static int build_schema(table_schema *t, const bench_db_config *cfg)
{
    family_schema f;
    table_schema_init(t, "bench");
    family_schema_init(&f, FAMILY);
    f.versions = 1;
    f.bloom = BLOOM_ROW;
    f.compression = COMPRESSION_NONE;
    f.block_size = (uint32_t)cfg->block_size;
    t->durability = DURABILITY_SYNC_WAL;
    t->memstore_flushsize = cfg->write_buffer_bytes;
    int rc = table_schema_add_family(t, &f);
    return rc == ST_OK ? table_schema_validate(t) : rc;
}

static void strata_close(void *p)
{
    strata_db *db = p;
    if (db == NULL)
        return;
    if (db->r != NULL)
        region_close(db->r, false);
    engine_close(db->e);
    free(db);
}

static int strata_open(const char *dir, const bench_db_config *cfg, void **out)
{
    engine_options o;
    strata_db *db = calloc(1, sizeof(*db));
    int rc = db == NULL ? st_error(ST_NOMEM, "bench: out of memory opening %s", dir) : ST_OK;
    *out = NULL;
    if (rc != ST_OK)
        goto out;
    engine_options_init(&o);
    o.root_dir = dir;
    o.block_cache_bytes = cfg->block_cache_bytes;
    rc = build_schema(&db->schema, cfg);
    if (rc == ST_OK)
        rc = engine_open(&o, &db->e);
    if (rc != ST_OK)
        goto out;
    snprintf(db->info.table, sizeof(db->info.table), "%s", db->schema.name);
    snprintf(db->info.encoded_name, sizeof(db->info.encoded_name), "%s",
             "62656e63680000000000000000000001");
    db->info.region_id = 1;
    rc = region_open(db->e, &db->schema, &db->info, &db->r);
out:
    if (rc != ST_OK) {
        strata_close(db);
        return rc;
    }
    *out = db;
    return ST_OK;
}

static int strata_ctx_new(void *db, void **out)
{
    strata_ctx *c = malloc(sizeof(*c));
    *out = c;
    if (c == NULL)
        return st_error(ST_NOMEM, "bench: out of memory for a strata reader");
    scan_result_init(&c->res);
    return ST_OK;
}

static void strata_ctx_free(void *p)
{
    strata_ctx *c = p;
    if (c == NULL)
        return;
    scan_result_free(&c->res);
    free(c);
}

static int strata_put(void *p, void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                      size_t value_len, bool sync)
{
    strata_db *db = p;
    cell_t c;
    memset(&c, 0, sizeof(c));
    c.family = (const uint8_t *)FAMILY;
    c.family_len = sizeof(FAMILY) - 1;
    c.qualifier = (const uint8_t *)QUALIFIER;
    c.qualifier_len = sizeof(QUALIFIER) - 1;
    c.value = value;
    c.value_len = (uint32_t)value_len;
    c.ts = CELL_LATEST_TIMESTAMP;
    c.type = CELL_TYPE_PUT;
    mutation m = {
        .row = key,
        .row_len = key_len,
        .cells = &c,
        .ncells = 1,
        .durability = sync ? DURABILITY_FSYNC_WAL : DURABILITY_SYNC_WAL,
    };
    return region_mutate(db->r, &m);
}

static int strata_get(void *p, void *ctx, const uint8_t *key, size_t key_len, bool *found,
                      size_t *value_len)
{
    strata_db *db = p;
    strata_ctx *c = ctx;
    static const scan_column col = {(const uint8_t *)FAMILY, sizeof(FAMILY) - 1,
                                    (const uint8_t *)QUALIFIER, sizeof(QUALIFIER) - 1};
    scan_spec spec = {.columns = &col, .ncolumns = 1};
    int rc = region_get(db->r, key, key_len, &spec, &c->res);
    *found = rc == ST_OK && c->res.ncells > 0;
    *value_len = *found ? c->res.cells[0].value_len : 0;
    return rc;
}

static int strata_scan(void *p, void *ctx, const uint8_t *start, size_t start_len,
                       uint64_t max_entries, bench_scan_fn fn, void *arg)
{
    strata_db *db = p;
    strata_ctx *c = ctx;
    region_scanner *s = NULL;
    scan_spec spec;
    memset(&spec, 0, sizeof(spec));
    spec.start_row = start;
    spec.start_row_len = start == NULL ? 0 : start_len;
    int rc = region_scanner_open(db->r, &spec, &s);
    for (uint64_t n = 0; rc == ST_OK && n < max_entries; n++) {
        int more = region_scanner_next(s, &c->res);
        if (more <= 0) {
            rc = more;
            break;
        }
        if (c->res.ncells == 0)
            continue;
        const cell_t *cell = &c->res.cells[0];
        if (!fn(arg, cell->row, cell->row_len, cell->value_len))
            break;
    }
    if (s != NULL)
        region_scanner_close(s);
    return rc;
}

static const bench_db_ops strata_ops = {
    .name = "strata",
    .open = strata_open,
    .close = strata_close,
    .ctx_new = strata_ctx_new,
    .ctx_free = strata_ctx_free,
    .put = strata_put,
    .get = strata_get,
    .scan = strata_scan,
};

const bench_db_ops *bench_strata_ops(void)
{
    return &strata_ops;
}
