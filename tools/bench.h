/*
 * bench.h - internals of `strata bench engine`: the settings every engine gets and the
 * small interface each engine adapter implements (Strata's region engine in
 * bench_strata.c, RocksDB and LevelDB in bench_peers.c when compiled in).
 *
 * The harness (bench_engine.c) drives every engine through these calls only, so all
 * engines see the same keys, values, options and loops. An adapter's db handle is
 * shared by all threads of a workload; each thread gets its own ctx (a reusable result
 * buffer, ...). Errors are st_code statuses with a message set by st_error().
 * Thread-safety: put/get/scan may run from many threads at once, each with its own ctx;
 * open/close/ctx_new/ctx_free from one thread.
 */
#ifndef STRATA_TOOLS_BENCH_H
#define STRATA_TOOLS_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BENCH_KEY_LEN 16

/* What every engine is configured with (the same numbers for all). */
typedef struct bench_db_config {
    size_t block_cache_bytes;  /* LRU block cache budget */
    size_t write_buffer_bytes; /* memtable / memstore flush size */
    size_t block_size;         /* data block size */
    int bloom_bits_per_key;    /* bloom filter bits per key (ROW bloom for Strata) */
} bench_db_config;

/* Called for each entry a scan visits; returns false to stop the scan. */
typedef bool (*bench_scan_fn)(void *arg, const uint8_t *key, size_t key_len, size_t value_len);

typedef struct bench_db_ops {
    const char *name;
    /* Opens (creating) a database in the existing empty directory dir. */
    int (*open)(const char *dir, const bench_db_config *cfg, void **db);
    void (*close)(void *db);
    /* Per-thread state; *ctx may be set to NULL when the engine needs none. */
    int (*ctx_new)(void *db, void **ctx);
    void (*ctx_free)(void *ctx);
    /* One put; sync asks for an fsync'ed WAL write, else a plain WAL write. */
    int (*put)(void *db, void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
               size_t value_len, bool sync);
    /* One point read; *found and *value_len tell what was read. */
    int (*get)(void *db, void *ctx, const uint8_t *key, size_t key_len, bool *found,
               size_t *value_len);
    /* Positions at the first key >= start (start NULL: the first key) and calls fn for up
     * to max_entries entries in ascending order. */
    int (*scan)(void *db, void *ctx, const uint8_t *start, size_t start_len, uint64_t max_entries,
                bench_scan_fn fn, void *arg);
} bench_db_ops;

/* db_bench's workloads; a workload is one kind with a name and a writer count. */
typedef enum bench_kind {
    BENCH_FILLSEQ = 0, /* N puts, keys 0..N-1 in order, fresh DB */
    BENCH_FILLRANDOM,  /* N puts of uniform random keys in [0,N), fresh DB */
    BENCH_OVERWRITE,   /* N random puts over the current DB */
    BENCH_READRANDOM,  /* N random gets */
    BENCH_READSEQ,     /* one forward scan over every entry */
    BENCH_SEEKRANDOM,  /* N/10 random seeks, each followed by up to 100 nexts */
    BENCH_FILLSYNC,    /* N/100 random synced puts split over `threads` writers, fresh DB */
} bench_kind;

#define BENCH_MAX_WORKLOADS 32
#define BENCH_MAX_THREADS 64
#define BENCH_SEEK_NEXTS 100

typedef struct bench_workload {
    char name[24];
    bench_kind kind;
    int threads;
} bench_workload;

/* Everything one engine's run needs; identical for every engine. */
typedef struct bench_plan {
    uint64_t num;
    size_t value_size;
    bench_db_config db;
    bench_workload workloads[BENCH_MAX_WORKLOADS];
    size_t nworkloads;
    const char *run_dir;   /* existing directory; each DB is a fresh subdirectory */
    const uint8_t *values; /* value pool (bench_value_pool) */
    size_t values_len;
} bench_plan;

/* One workload's outcome on one engine, sent from the engine's process over a pipe. */
typedef struct bench_result {
    char workload[24];
    int status; /* ST_OK, or the failure (message in error) */
    char error[200];
    uint64_t ops;
    uint64_t bytes; /* key + value bytes written or read */
    double seconds;
    uint64_t found;    /* reads: keys found (seekrandom: seeks landing on the key) */
    uint64_t expected; /* reads: how many of those keys were written */
    uint64_t errors;   /* reads: results that disagree with what was written */
    long peak_rss_kb;  /* peak resident set size during the workload */
} bench_result;

/* Builds db_bench's value pool: max(1 MiB, value_size) bytes of pieces that are half
 * random printable bytes and half a repeat of them (compressible to 50%). Fixed seed;
 * the caller frees *out. */
int bench_value_pool(size_t value_size, uint8_t **out, size_t *len);

/* Prints s on stdout as a JSON string (quoted; quotes, backslashes and control bytes
 * escaped). */
void bench_json_string(const char *s);

/* Runs every workload of p on one engine in this process and writes one bench_result
 * per workload to fd; a failed workload does not stop the later ones (a fill starts a
 * fresh DB; reads of a DB whose writes failed report what they find). Returns ST_OK or
 * the first failure. */
int bench_run_engine(const bench_plan *p, const bench_db_ops *ops, int fd);

/* Strata's region engine: one table, one family "cf", one region over all keys. */
const bench_db_ops *bench_strata_ops(void);
/* The peers; NULL when the library was not found at build time. */
const bench_db_ops *bench_rocksdb_ops(void);
const bench_db_ops *bench_leveldb_ops(void);

/* The engines this build can run, Strata first: count and names ("strata", ...). */
size_t bench_engine_count(void);
const char *bench_engine_name(size_t i);
const bench_db_ops *bench_engine_ops(size_t i);

#endif
