/*
 * bench_peers.c - RocksDB and LevelDB behind bench.h, through their C APIs, so that
 * `strata bench engine` can run db_bench's workloads on them with the settings Strata
 * gets: WAL on (a plain write(2) per write, fsync only when the workload asks), no
 * compression, an LRU block cache of the same budget, the same write buffer size, the
 * same block size and a 10 bits/key bloom filter. Everything else keeps each
 * library's defaults (RocksDB: 2 background jobs; LevelDB: 1 background thread).
 * Each peer is compiled only when CMake found it (STRATA_HAVE_ROCKSDB,
 * STRATA_HAVE_LEVELDB); otherwise its ops getter returns NULL.
 * Thread-safety: as bench.h; both libraries' handles are thread-safe and no peer needs
 * per-thread state.
 */
#include <stdlib.h>

#include "common/status.h"
#include "tools/bench.h"

#ifdef STRATA_HAVE_ROCKSDB
#include <rocksdb/c.h>
#endif
#ifdef STRATA_HAVE_LEVELDB
#include <leveldb/c.h>
#endif

#if defined(STRATA_HAVE_ROCKSDB) || defined(STRATA_HAVE_LEVELDB)
static int peer_ctx_new(void *db, void **ctx)
{
    *ctx = NULL;
    return ST_OK;
}

static void peer_ctx_free(void *ctx) {}
#endif

#ifdef STRATA_HAVE_ROCKSDB

typedef struct rocks_db {
    rocksdb_t *db;
    rocksdb_options_t *opts;
    rocksdb_block_based_table_options_t *topts;
    rocksdb_cache_t *cache;
    rocksdb_writeoptions_t *wo;
    rocksdb_writeoptions_t *wo_sync;
    rocksdb_readoptions_t *ro;
} rocks_db;

/* Turns a RocksDB error string into a status (freeing it); ST_OK if there was none. */
static int rocks_status(char *err, const char *what)
{
    if (err == NULL)
        return ST_OK;
    int rc = st_error(ST_IO, "rocksdb %s: %s", what, err);
    rocksdb_free(err);
    return rc;
}

static void rocks_close(void *p)
{
    rocks_db *d = p;
    if (d == NULL)
        return;
    if (d->db != NULL)
        rocksdb_close(d->db);
    if (d->ro != NULL)
        rocksdb_readoptions_destroy(d->ro);
    if (d->wo != NULL)
        rocksdb_writeoptions_destroy(d->wo);
    if (d->wo_sync != NULL)
        rocksdb_writeoptions_destroy(d->wo_sync);
    if (d->opts != NULL)
        rocksdb_options_destroy(d->opts);
    if (d->topts != NULL)
        rocksdb_block_based_options_destroy(d->topts);
    if (d->cache != NULL)
        rocksdb_cache_destroy(d->cache);
    free(d);
}

static void rocks_configure(rocks_db *d, const bench_db_config *cfg)
{
    d->cache = rocksdb_cache_create_lru(cfg->block_cache_bytes);
    d->topts = rocksdb_block_based_options_create();
    rocksdb_block_based_options_set_block_cache(d->topts, d->cache);
    rocksdb_block_based_options_set_block_size(d->topts, cfg->block_size);
    /* The table options take ownership of the filter policy. */
    rocksdb_block_based_options_set_filter_policy(
        d->topts, rocksdb_filterpolicy_create_bloom_full(cfg->bloom_bits_per_key));
    d->opts = rocksdb_options_create();
    rocksdb_options_set_create_if_missing(d->opts, 1);
    rocksdb_options_set_write_buffer_size(d->opts, cfg->write_buffer_bytes);
    rocksdb_options_set_compression(d->opts, rocksdb_no_compression);
    rocksdb_options_set_block_based_table_factory(d->opts, d->topts);
    d->wo = rocksdb_writeoptions_create();
    d->wo_sync = rocksdb_writeoptions_create();
    rocksdb_writeoptions_set_sync(d->wo_sync, 1);
    d->ro = rocksdb_readoptions_create();
}

static int rocks_open(const char *dir, const bench_db_config *cfg, void **out)
{
    char *err = NULL;
    rocks_db *d = calloc(1, sizeof(*d));
    *out = NULL;
    if (d == NULL)
        return st_error(ST_NOMEM, "bench: out of memory opening rocksdb in %s", dir);
    rocks_configure(d, cfg);
    d->db = rocksdb_open(d->opts, dir, &err);
    int rc = rocks_status(err, dir);
    if (rc != ST_OK) {
        rocks_close(d);
        return rc;
    }
    *out = d;
    return ST_OK;
}

static int rocks_put(void *p, void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                     size_t value_len, bool sync)
{
    rocks_db *d = p;
    char *err = NULL;
    rocksdb_put(d->db, sync ? d->wo_sync : d->wo, (const char *)key, key_len, (const char *)value,
                value_len, &err);
    return rocks_status(err, "put");
}

static int rocks_get(void *p, void *ctx, const uint8_t *key, size_t key_len, bool *found,
                     size_t *value_len)
{
    rocks_db *d = p;
    char *err = NULL;
    size_t len = 0;
    char *v = rocksdb_get(d->db, d->ro, (const char *)key, key_len, &len, &err);
    *found = v != NULL;
    *value_len = v != NULL ? len : 0;
    rocksdb_free(v);
    return rocks_status(err, "get");
}

static int rocks_scan(void *p, void *ctx, const uint8_t *start, size_t start_len,
                      uint64_t max_entries, bench_scan_fn fn, void *arg)
{
    rocks_db *d = p;
    char *err = NULL;
    rocksdb_iterator_t *it = rocksdb_create_iterator(d->db, d->ro);
    if (start != NULL)
        rocksdb_iter_seek(it, (const char *)start, start_len);
    else
        rocksdb_iter_seek_to_first(it);
    for (uint64_t n = 0; n < max_entries && rocksdb_iter_valid(it); n++) {
        size_t klen = 0, vlen = 0;
        const char *k = rocksdb_iter_key(it, &klen);
        (void)rocksdb_iter_value(it, &vlen);
        if (!fn(arg, (const uint8_t *)k, klen, vlen))
            break;
        rocksdb_iter_next(it);
    }
    rocksdb_iter_get_error(it, &err);
    rocksdb_iter_destroy(it);
    return rocks_status(err, "iterator");
}

static const bench_db_ops rocks_ops = {
    .name = "rocksdb",
    .open = rocks_open,
    .close = rocks_close,
    .ctx_new = peer_ctx_new,
    .ctx_free = peer_ctx_free,
    .put = rocks_put,
    .get = rocks_get,
    .scan = rocks_scan,
};

const bench_db_ops *bench_rocksdb_ops(void)
{
    return &rocks_ops;
}

#else

const bench_db_ops *bench_rocksdb_ops(void)
{
    return NULL;
}

#endif /* STRATA_HAVE_ROCKSDB */

#ifdef STRATA_HAVE_LEVELDB

typedef struct level_db {
    leveldb_t *db;
    leveldb_options_t *opts;
    leveldb_cache_t *cache;
    leveldb_filterpolicy_t *filter;
    leveldb_writeoptions_t *wo;
    leveldb_writeoptions_t *wo_sync;
    leveldb_readoptions_t *ro;
} level_db;

/* Turns a LevelDB error string into a status (freeing it); ST_OK if there was none. */
static int level_status(char *err, const char *what)
{
    if (err == NULL)
        return ST_OK;
    int rc = st_error(ST_IO, "leveldb %s: %s", what, err);
    leveldb_free(err);
    return rc;
}

static void level_close(void *p)
{
    level_db *d = p;
    if (d == NULL)
        return;
    if (d->db != NULL)
        leveldb_close(d->db);
    if (d->ro != NULL)
        leveldb_readoptions_destroy(d->ro);
    if (d->wo != NULL)
        leveldb_writeoptions_destroy(d->wo);
    if (d->wo_sync != NULL)
        leveldb_writeoptions_destroy(d->wo_sync);
    if (d->opts != NULL)
        leveldb_options_destroy(d->opts);
    if (d->filter != NULL)
        leveldb_filterpolicy_destroy(d->filter);
    if (d->cache != NULL)
        leveldb_cache_destroy(d->cache);
    free(d);
}

static void level_configure(level_db *d, const bench_db_config *cfg)
{
    d->cache = leveldb_cache_create_lru(cfg->block_cache_bytes);
    d->filter = leveldb_filterpolicy_create_bloom(cfg->bloom_bits_per_key);
    d->opts = leveldb_options_create();
    leveldb_options_set_create_if_missing(d->opts, 1);
    leveldb_options_set_write_buffer_size(d->opts, cfg->write_buffer_bytes);
    leveldb_options_set_cache(d->opts, d->cache);
    leveldb_options_set_block_size(d->opts, cfg->block_size);
    leveldb_options_set_filter_policy(d->opts, d->filter);
    leveldb_options_set_compression(d->opts, leveldb_no_compression);
    d->wo = leveldb_writeoptions_create();
    d->wo_sync = leveldb_writeoptions_create();
    leveldb_writeoptions_set_sync(d->wo_sync, 1);
    d->ro = leveldb_readoptions_create();
}

static int level_open(const char *dir, const bench_db_config *cfg, void **out)
{
    char *err = NULL;
    level_db *d = calloc(1, sizeof(*d));
    *out = NULL;
    if (d == NULL)
        return st_error(ST_NOMEM, "bench: out of memory opening leveldb in %s", dir);
    level_configure(d, cfg);
    d->db = leveldb_open(d->opts, dir, &err);
    int rc = level_status(err, dir);
    if (rc != ST_OK) {
        level_close(d);
        return rc;
    }
    *out = d;
    return ST_OK;
}

static int level_put(void *p, void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                     size_t value_len, bool sync)
{
    level_db *d = p;
    char *err = NULL;
    leveldb_put(d->db, sync ? d->wo_sync : d->wo, (const char *)key, key_len, (const char *)value,
                value_len, &err);
    return level_status(err, "put");
}

static int level_get(void *p, void *ctx, const uint8_t *key, size_t key_len, bool *found,
                     size_t *value_len)
{
    level_db *d = p;
    char *err = NULL;
    size_t len = 0;
    char *v = leveldb_get(d->db, d->ro, (const char *)key, key_len, &len, &err);
    *found = v != NULL;
    *value_len = v != NULL ? len : 0;
    leveldb_free(v);
    return level_status(err, "get");
}

static int level_scan(void *p, void *ctx, const uint8_t *start, size_t start_len,
                      uint64_t max_entries, bench_scan_fn fn, void *arg)
{
    level_db *d = p;
    char *err = NULL;
    leveldb_iterator_t *it = leveldb_create_iterator(d->db, d->ro);
    if (start != NULL)
        leveldb_iter_seek(it, (const char *)start, start_len);
    else
        leveldb_iter_seek_to_first(it);
    for (uint64_t n = 0; n < max_entries && leveldb_iter_valid(it); n++) {
        size_t klen = 0, vlen = 0;
        const char *k = leveldb_iter_key(it, &klen);
        (void)leveldb_iter_value(it, &vlen);
        if (!fn(arg, (const uint8_t *)k, klen, vlen))
            break;
        leveldb_iter_next(it);
    }
    leveldb_iter_get_error(it, &err);
    leveldb_iter_destroy(it);
    return level_status(err, "iterator");
}

static const bench_db_ops level_ops = {
    .name = "leveldb",
    .open = level_open,
    .close = level_close,
    .ctx_new = peer_ctx_new,
    .ctx_free = peer_ctx_free,
    .put = level_put,
    .get = level_get,
    .scan = level_scan,
};

const bench_db_ops *bench_leveldb_ops(void)
{
    return &level_ops;
}

#else

const bench_db_ops *bench_leveldb_ops(void)
{
    return NULL;
}

#endif /* STRATA_HAVE_LEVELDB */
