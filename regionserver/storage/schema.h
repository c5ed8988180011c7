/*
 * schema.h - table and column-family descriptors as the engine sees them.
 *
 * Defaults follow HBase (DESIGN.md §1): VERSIONS 1, MIN_VERSIONS 0, TTL forever,
 * BLOOMFILTER ROW, COMPRESSION NONE, BLOCKSIZE 65536, KEEP_DELETED_CELLS false;
 * table DURABILITY SYNC_WAL, MEMSTORE_FLUSHSIZE 128 MiB, MAX_FILESIZE 10 GiB.
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

typedef struct family_schema {
    char name[CELL_MAX_FAMILY_LEN + 1]; /* printable, [A-Za-z0-9_-] */
    int versions;                       /* VERSIONS */
    int min_versions;                   /* MIN_VERSIONS */
    int64_t ttl_sec;                    /* TTL in seconds; SCHEMA_TTL_FOREVER */
    bloom_type bloom;                   /* BLOOMFILTER */
    compression_type compression;       /* COMPRESSION */
    uint32_t block_size;                /* BLOCKSIZE */
    bool keep_deleted_cells;            /* KEEP_DELETED_CELLS */
} family_schema;

typedef struct table_schema {
    char name[256]; /* "ns:table" */
    family_schema families[SCHEMA_MAX_FAMILIES];
    size_t nfamilies;
    durability durability;       /* DURABILITY (never USE_DEFAULT here) */
    uint64_t memstore_flushsize; /* MEMSTORE_FLUSHSIZE, bytes */
    uint64_t max_filesize;       /* MAX_FILESIZE, bytes */
} table_schema;

/* Fills f with the defaults and the given name. */
void family_schema_init(family_schema *f, const char *name);
/* Fills t with the defaults, the given name and no families. */
void table_schema_init(table_schema *t, const char *name);
/* Adds a family (copied); ST_EXISTS if the name is taken, ST_INVALID_ARGUMENT if invalid. */
int table_schema_add_family(table_schema *t, const family_schema *f);
/* Index of the named family or -1. */
int table_schema_find_family(const table_schema *t, const uint8_t *name, size_t len);
/* Checks names and values; the message names the table/family and the bad attribute. */
int table_schema_validate(const table_schema *t);

#endif
