/*
 * schema.h - table and column-family descriptors as the engine sees them.
 *
 * Defaults follow HBase (DESIGN.md §1): VERSIONS 1, MIN_VERSIONS 0, TTL forever,
 * BLOOMFILTER ROW, COMPRESSION NONE, BLOCKSIZE 65536, KEEP_DELETED_CELLS FALSE,
 * IN_MEMORY false, BLOCKCACHE true; DATA_BLOCK_ENCODING defaults to PREFIX (HBase: NONE),
 * Strata's faster block form (docs/formats/storefile.md);
 * table DURABILITY SYNC_WAL, MEMSTORE_FLUSHSIZE 128 MiB, MAX_FILESIZE not set (0: the
 * region server's regionserver.max.filesize, 10 GiB by default; split_policy.h).
 *
 * Besides its attributes a table has string values (HBase's TableDescriptor values, the
 * shell's METADATA: SPLIT_POLICY, NORMALIZATION_ENABLED, the split policies' parameters)
 * and configuration entries (the shell's CONFIGURATION: per-table overrides of server
 * settings). Both are kept in fixed arrays, so a schema stays a plain value that can be
 * copied with `=`: at most SCHEMA_MAX_PAIRS of each, keys of 1..SCHEMA_MAX_KEY_LEN bytes,
 * values of at most SCHEMA_MAX_VALUE_LEN bytes, each key at most once. Where both hold a
 * key, the value wins (table_schema_setting), as in HBase's CompoundConfiguration.
 *
 * Thread-safety: plain data; treat a schema as immutable once a region uses it.
 */
#ifndef STRATA_REGIONSERVER_SCHEMA_H
#define STRATA_REGIONSERVER_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "regionserver/storage/storefile.h"
#include "regionserver/storage/wal.h"

#define SCHEMA_TTL_FOREVER INT64_MAX
#define SCHEMA_MAX_FAMILIES 64
#define SCHEMA_MAX_PAIRS 32      /* values, and configuration entries, each */
#define SCHEMA_MAX_KEY_LEN 128   /* bytes of a value's or configuration entry's key */
#define SCHEMA_MAX_VALUE_LEN 256 /* bytes of its value */

/* Table values the engine knows (the split policies' own: split_policy.h). */
#define SCHEMA_SPLIT_POLICY "SPLIT_POLICY"                   /* a split policy's class name */
#define SCHEMA_NORMALIZATION_ENABLED "NORMALIZATION_ENABLED" /* "true" or "false" */

/* KEEP_DELETED_CELLS (HBase's KeepDeletedCells). */
typedef enum keep_deleted_mode {
    KEEP_DELETED_FALSE = 0, /* deleted cells and markers go at major compaction */
    KEEP_DELETED_TRUE = 1,  /* kept for time-range reads until VERSIONS/TTL remove them */
    KEEP_DELETED_TTL = 2,   /* as TRUE while the marker is younger than TTL, then FALSE */
} keep_deleted_mode;

/* DATA_BLOCK_ENCODING names; NONE and ROW_INDEX_V1 write block type 1, the others type 2. */
typedef enum block_encoding {
    BLOCK_ENCODING_NONE = 0,
    BLOCK_ENCODING_PREFIX = 1,
    BLOCK_ENCODING_DIFF = 2,
    BLOCK_ENCODING_FAST_DIFF = 3,
    BLOCK_ENCODING_ROW_INDEX_V1 = 4,
} block_encoding;

typedef struct family_schema {
    char name[CELL_MAX_FAMILY_LEN + 1]; /* printable, [A-Za-z0-9_-] */
    int versions;                       /* VERSIONS */
    int min_versions;                   /* MIN_VERSIONS */
    int64_t ttl_sec;                    /* TTL in seconds; SCHEMA_TTL_FOREVER */
    bloom_type bloom;                   /* BLOOMFILTER */
    compression_type compression;       /* COMPRESSION */
    uint32_t block_size;                /* BLOCKSIZE */
    keep_deleted_mode keep_deleted_cells; /* KEEP_DELETED_CELLS */
    block_encoding encoding;            /* DATA_BLOCK_ENCODING */
    bool in_memory;                     /* IN_MEMORY: in-memory block-cache priority */
    bool block_cache;                   /* BLOCKCACHE: data blocks go through the cache */
} family_schema;

/* One value or configuration entry. */
typedef struct schema_pair {
    char key[SCHEMA_MAX_KEY_LEN + 1];
    char value[SCHEMA_MAX_VALUE_LEN + 1];
} schema_pair;

/* Pairs in the order they were set. */
typedef struct schema_pairs {
    schema_pair pair[SCHEMA_MAX_PAIRS];
    size_t n;
} schema_pairs;

typedef struct table_schema {
    char name[256]; /* "ns:table" */
    family_schema families[SCHEMA_MAX_FAMILIES];
    size_t nfamilies;
    durability durability;       /* DURABILITY (never USE_DEFAULT here) */
    uint64_t memstore_flushsize; /* MEMSTORE_FLUSHSIZE, bytes */
    uint64_t max_filesize;       /* MAX_FILESIZE, bytes; 0: not set (the cluster's) */
    bool read_only;              /* READONLY: every write is refused */
    schema_pairs values;         /* METADATA: SPLIT_POLICY, NORMALIZATION_ENABLED, ... */
    schema_pairs config;         /* CONFIGURATION */
} table_schema;

/* Fills f with the defaults and the given name. */
void family_schema_init(family_schema *f, const char *name);
/* Fills t with the defaults, the given name and no families. */
void table_schema_init(table_schema *t, const char *name);
/* Adds a family (copied); ST_EXISTS if the name is taken, ST_INVALID_ARGUMENT if invalid. */
int table_schema_add_family(table_schema *t, const family_schema *f);
/* Index of the named family or -1. */
int table_schema_find_family(const table_schema *t, const uint8_t *name, size_t len);
/* Checks names and values; the message names the table/family and the bad attribute.
 * Besides the attributes: the keys and lengths of the values and configuration entries,
 * no value named like an attribute (MAX_FILESIZE, MEMSTORE_FLUSHSIZE, DURABILITY),
 * NORMALIZATION_ENABLED "true" or "false" (any case), and the split policy's settings
 * (split_policy_validate). ST_OK or ST_INVALID_ARGUMENT. */
int table_schema_validate(const table_schema *t);

/* Sets value key (replacing it; the value may be empty) or, with value NULL, removes it
 * (ST_OK also when it was not set). ST_OK, or ST_INVALID_ARGUMENT naming the table and
 * key for an empty or too long key, a too long value, or a new key when SCHEMA_MAX_PAIRS
 * are set; nothing changes then. */
int table_schema_set_value(table_schema *t, const char *key, const char *value);
/* The same for configuration entries. */
int table_schema_set_config(table_schema *t, const char *key, const char *value);
/* Value key / configuration entry key (borrowed from t), or NULL when not set. */
const char *table_schema_value(const table_schema *t, const char *key);
const char *table_schema_config(const table_schema *t, const char *key);
/* What the table says for a setting: value key if set, else configuration entry key, else
 * NULL (a value overrides a configuration entry, as in HBase). */
const char *table_schema_setting(const table_schema *t, const char *key);
/* NORMALIZATION_ENABLED (false when not set, as in HBase). */
bool table_schema_normalization_enabled(const table_schema *t);

#endif
