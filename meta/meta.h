/*
 * meta.h - the meta table `strata:meta` (docs/formats/meta.md): one region on the active
 * master's storage engine holding every region's boundaries and assignment, every table's
 * schema and state, and the namespaces.
 *
 * Every write is one atomic batch on the meta region with SYNC_WAL durability: a change
 * that touches several rows (create a table, delete a table) is all or nothing, also
 * across a crash (one WAL record).
 * Thread-safety: every function may be called from many threads at once.
 */
#ifndef STRATA_MASTER_META_H
#define STRATA_MASTER_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/proto/master.pb-c.h"
#include "regionserver/storage/engine.h"
#include "regionserver/storage/scanner.h"

#define META_TABLE_NAME "strata:meta"
#define META_ENCODED_NAME "1588230740"

/* Most regions one merge may join (info:merge0000 ... info:merge0007). */
#define META_MERGE_MAX 8

typedef enum meta_region_state {
    META_OFFLINE = 0,
    META_OPENING = 1,
    META_OPEN = 2,
    META_CLOSING = 3,
    META_CLOSED = 4,
    META_FAILED_OPEN = 5,
} meta_region_state;

typedef enum meta_table_state {
    META_TABLE_ENABLED = 0,
    META_TABLE_DISABLED = 1,
    META_TABLE_ENABLING = 2,
    META_TABLE_DISABLING = 3,
} meta_table_state;

const char *meta_region_state_name(meta_region_state s);   /* "OPEN" ... */
int meta_region_state_parse(const char *s, meta_region_state *out);
const char *meta_table_state_name(meta_table_state s);     /* "ENABLED" ... */
int meta_table_state_parse(const char *s, meta_table_state *out);
/* Whether a table in this state wants its regions open (ENABLED or ENABLING). */
bool meta_table_state_wants_open(meta_table_state s);

/* One region row. Keys and strings are owned (meta_region_clear frees them). */
typedef struct meta_region {
    char table[256];       /* "ns:table", fully qualified */
    char encoded_name[64]; /* 32 hex digits (MD5) */
    uint8_t *start_key;    /* inclusive; NULL/0: unbounded */
    size_t start_len;
    uint8_t *end_key; /* exclusive; NULL/0: unbounded */
    size_t end_len;
    uint64_t region_id;
    bool offline;
    bool split;
    meta_region_state state;
    char server[320]; /* "host,port,startcode" it is open / opening / closing on; "" none */
    uint64_t seqnum;
    int failures; /* failed opens since the last success */
    /* A split parent (offline and split): its daughters' encoded names (info:splitA/B). */
    char split_a[64];
    char split_b[64];
    /* A merged region: its parents' encoded names until the janitor cleans them
     * (info:merge0000 ...). */
    char merged[META_MERGE_MAX][64];
    size_t nmerged;
} meta_region;

void meta_region_clear(meta_region *r);
void meta_regions_free(meta_region *v, size_t n);
/* Deep copy: ST_OK or ST_NOMEM. */
int meta_region_copy(meta_region *dst, const meta_region *src);
/* Sets r's keys (copied). ST_OK or ST_NOMEM. */
int meta_region_set_keys(meta_region *r, const uint8_t *start, size_t start_len,
                         const uint8_t *end, size_t end_len);

/* The encoded name: MD5 hex (32 digits + NUL) of "<table>,<start key>,<region id>". */
void meta_encoded_name(const char *table, const uint8_t *start, size_t start_len,
                       uint64_t region_id, char out[33]);
/* The row key "<table>,<start key>,<region id>" (malloc'ed, *len bytes). */
uint8_t *meta_region_row(const char *table, const uint8_t *start, size_t start_len,
                         uint64_t region_id, size_t *len);

/* One table row. schema is a packed strata.admin.TableSchema (owned). */
typedef struct meta_table {
    char name[256]; /* "ns:table" */
    uint8_t *schema;
    size_t schema_len;
    meta_table_state state;
} meta_table;

void meta_table_clear(meta_table *t);
void meta_tables_free(meta_table *v, size_t n);

typedef struct meta meta;

/* Opens the meta region on e (creating it on first use) and makes sure the namespaces
 * "default" and "strata" exist. */
int meta_open(engine *e, meta **out);
/* Closes the meta region with a flush. NULL is a no-op. */
void meta_close(meta *m);

/* ---- regions ---- */
/* Writes the rows of v (every column; an empty server deletes info:server,
 * info:serverstartcode and info:sn) in one atomic batch. */
int meta_put_regions(meta *m, const meta_region *v, size_t n);
int meta_put_region(meta *m, const meta_region *r);
/* Deletes the rows of v in one atomic batch. */
int meta_delete_regions(meta *m, const meta_region *v, size_t n);
/* The regions of table sorted by start key (ST_OK with n 0 if none). */
int meta_table_regions(meta *m, const char *table, meta_region **out, size_t *n);
/* Every region of every table, in row order. */
int meta_all_regions(meta *m, meta_region **out, size_t *n);
/* The region with this encoded name: ST_OK or ST_NOT_FOUND naming it. */
int meta_find_region(meta *m, const char *encoded_name, meta_region *out);

/* One atomic catalog change: region rows written (every column) and deleted, and a
 * procedure row (docs/procedures.md) written (proc_data) or deleted (proc_delete), all in
 * one batch. Rows must be distinct. */
typedef struct meta_change {
    const meta_region *put;
    size_t nput;
    const meta_region *del;
    size_t ndel;
    uint64_t proc_id; /* 0: no procedure row */
    const uint8_t *proc_data;
    size_t proc_len;
    bool proc_delete;
} meta_change;
int meta_apply(meta *m, const meta_change *c);

/* ---- procedures ---- */
typedef struct meta_proc {
    uint64_t id;
    uint8_t *data; /* packed strata.master.Procedure (owned) */
    size_t len;
} meta_proc;
/* Every procedure row, by id. */
int meta_list_procs(meta *m, meta_proc **out, size_t *n);
void meta_procs_free(meta_proc *v, size_t n);

/* ---- tables ---- */
/* Writes the table row (schema and state). */
int meta_put_table(meta *m, const meta_table *t);
/* Writes only the state column: ST_NOT_FOUND naming the table if it has no row. */
int meta_set_table_state(meta *m, const char *table, meta_table_state st);
/* ST_OK and *out, or ST_NOT_FOUND naming the table. */
int meta_get_table(meta *m, const char *table, meta_table *out);
/* Every table (namespace NULL) or those of one namespace, sorted by name. */
int meta_list_tables(meta *m, const char *ns, meta_table **out, size_t *n);
/* Creates a table in one atomic batch: the table row and its region rows. The regions
 * (n >= 1, all of t's table) must tile the key space (ST_INVALID_ARGUMENT); ST_NOT_FOUND
 * if the namespace is missing, ST_EXISTS if the table (or any region row of it) is there. */
int meta_create_table(meta *m, const meta_table *t, const meta_region *regions, size_t n);
/* Deletes the table row and every region row of the table in one atomic batch;
 * ST_NOT_FOUND if there is neither. */
int meta_delete_table(meta *m, const char *table);
/* Replaces every region row of a table by regions (truncate), atomically; regions must
 * tile the key space; ST_NOT_FOUND if the table has no row. */
int meta_replace_regions(meta *m, const char *table, const meta_region *regions, size_t n);

/* ---- namespaces ---- */
int meta_create_namespace(meta *m, const char *ns); /* ST_EXISTS naming it */
/* The same with properties props[0..n) (HBase's namespace configuration; checked by the
 * caller: keys non-empty and distinct). */
int meta_create_namespace_props(meta *m, const char *ns,
                                Strata__Master__NamespaceProperty *const *props, size_t n);
/* Replaces the properties of an existing namespace: ST_NOT_FOUND naming it if absent. */
int meta_modify_namespace(meta *m, const char *ns,
                          Strata__Master__NamespaceProperty *const *props, size_t n);
/* The namespace's descriptor (*out the caller's: strata__master__namespace_descriptor__
 * free_unpacked(*out, NULL)); ST_NOT_FOUND naming it, ST_CORRUPTION for a value that does
 * not decode. */
int meta_get_namespace(meta *m, const char *ns, Strata__Master__NamespaceDescriptor **out);
/* ST_NOT_FOUND; ST_INVALID_ARGUMENT for "default", "strata" or a namespace with tables. */
int meta_delete_namespace(meta *m, const char *ns);
int meta_namespace_exists(meta *m, const char *ns); /* ST_OK or ST_NOT_FOUND */
/* Sorted names (free with meta_names_free). */
int meta_list_namespaces(meta *m, char ***out, size_t *n);
void meta_names_free(char **v, size_t n);

/* ---- reading meta as rows (MasterService.ScanMeta; docs/formats/meta.md) ---- */
/* Called for each row read; ST_OK goes on, any other status stops the read and is
 * returned. row is valid for the call only. */
typedef int (*meta_row_fn)(const scan_result *row, void *arg);
/* Runs spec (any user scan: bounds, columns, versions, time range, raw, reversed, limit,
 * a filter borrowed for the call) over the meta region as stored, calling fn for each
 * row that has cells. Takes no meta lock: the read is one region scanner's snapshot. */
int meta_scan_rows(meta *m, const scan_spec *spec, meta_row_fn fn, void *arg);

/* ---- split points (create table with NUMREGIONS) ---- */
/* n - 1 split keys dividing the key space into n regions: "HexStringSplit" (8-digit
 * lower-case hex strings between 00000000 and ffffffff, as HBase) or "UniformSplit"
 * (8-byte big-endian values); docs/formats/meta.md. ST_INVALID_ARGUMENT for an unknown
 * algorithm or n outside 1..100000. keys/lens malloc'ed (free with meta_keys_free);
 * both NULL for n == 1. */
int meta_split_keys(const char *algo, unsigned n, uint8_t ***keys, size_t **lens);
void meta_keys_free(uint8_t **keys, size_t *lens, size_t n);

#endif
