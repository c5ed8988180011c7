/*
 * admin.h - Strata cluster administration, the other half of libstrata's public API
 * (strata.h is the data half): tables (create, alter, enable, disable, truncate, drop,
 * describe, list), namespaces, regions (list, locate, move, assign, unassign, flush,
 * compact) and the cluster's status, all through the cluster's active master. The
 * contract in full: docs/client.md; linking: strata.h.
 *
 * The contract is strata.h's: opaque handles; byte strings as (pointer, length) pairs,
 * copied by the call that takes them; `const` results borrowed from the object they came
 * from; `char *` results malloc'ed for the caller to free with strata_free(); result
 * objects freed with their *_destroy (NULL is a no-op everywhere); and `char **errptr` on
 * every function that can fail, with a message whose strata_code strata_error_code()
 * gives. A function that fails returns NULL (or 0) and sets *errptr; its outputs are left
 * untouched.
 *
 * Every call checks its arguments before anything is sent (STRATA_ERR_INVALID_ARGUMENT
 * naming the bad name, key or attribute). The master's answers keep their meaning:
 * STRATA_ERR_NOT_FOUND for an unknown table, namespace or region, STRATA_ERR_EXISTS for a
 * table or namespace already there, STRATA_ERR_INVALID_ARGUMENT for a request the master
 * refuses (drop or truncate of a table that is not disabled, a non-empty namespace ...).
 *
 * Finding the master: the handle reads <parent>/master in ZooKeeper on first use and
 * follows a master change: a call that meets an unreachable master, a backup, or no
 * active master at all re-reads the znode and is retried with a short backoff (50 ms
 * doubling to 1 s) until the handle's timeout (default 60 s) is spent, then fails with
 * STRATA_ERR_RETRYABLE. A call retried after a master died half-way may find its work
 * done: a repeated create then reports STRATA_ERR_EXISTS.
 *
 *   char *err = NULL;
 *   strata_admin_t *a = strata_admin_open("127.0.0.1:2181", NULL, &err);
 *   strata_table_descriptor_t *td = strata_table_descriptor_create("users");
 *   strata_family_descriptor_t *f = strata_table_descriptor_add_family(td, "info");
 *   strata_family_descriptor_set(f, STRATA_FAMILY_VERSIONS, 3);
 *   const char *splits[] = {"g", "n"};
 *   const size_t split_lens[] = {1, 1};
 *   strata_admin_create_table(a, td, splits, split_lens, 2, &err);
 *   if (err && strata_error_code(err) == STRATA_ERR_EXISTS) ...
 *   strata_table_descriptor_destroy(td);
 *   strata_admin_close(a);
 *
 * Thread-safety: an admin handle may be used from any number of threads at once (set its
 * timeout before sharing it; close it when no thread uses it). Descriptors belong to one
 * thread at a time; a result object may be read from several threads at once.
 */
#ifndef STRATA_ADMIN_H
#define STRATA_ADMIN_H

#include <stddef.h>
#include <stdint.h>

#include "strata.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct strata_admin strata_admin_t;
typedef struct strata_table_descriptor strata_table_descriptor_t;
typedef struct strata_family_descriptor strata_family_descriptor_t;
typedef struct strata_name_list strata_name_list_t;
typedef struct strata_region strata_region_t;
typedef struct strata_region_list strata_region_list_t;
typedef struct strata_cluster_status strata_cluster_status_t;
typedef struct strata_server_load strata_server_load_t;
typedef struct strata_region_load strata_region_load_t;

/* ---- the handle ---- */

/* A handle on the cluster whose ZooKeeper quorum is "host:port[,host:port...]" and whose
 * parent znode is parent (NULL or "": STRATA_DEFAULT_ZK_PARENT). Nothing is contacted
 * until the first call. NULL on failure (a bad quorum or parent). */
strata_admin_t *strata_admin_open(const char *quorum, const char *parent, char **errptr);
/* NULL is a no-op. */
void strata_admin_close(strata_admin_t *a);
/* The time each call may take, retries included (default 60000 ms; <= 0 restores it). */
void strata_admin_set_timeout_ms(strata_admin_t *a, int64_t ms);
/* The active master as ZooKeeper has it now: "host,port,startcode" (malloc'ed), and its
 * HTTP port in *http_port if http_port is not NULL. NULL on failure; no active master
 * is STRATA_ERR_RETRYABLE. */
char *strata_admin_active_master(strata_admin_t *a, uint32_t *http_port, char **errptr);
/* Whether name is a valid table name: "table" or "namespace:table"; the namespace of
 * letters, digits and '_', the table of letters, digits, '_', '-' and '.', not starting
 * with '.' or '-', at most 255 bytes. 1, or 0 with *errptr naming what is wrong. */
unsigned char strata_admin_check_table_name(const char *name, char **errptr);

/* ---- table descriptors ----
 *
 * A descriptor is a table's name, its column families, its table attributes and its
 * string values and configuration entries, built here for create and modify, or returned
 * by describe (and then editable: alter is describe, change, modify). An attribute not
 * set takes the server's default; "is set" tells the two apart. Values are checked when
 * the descriptor is sent: an out-of-range value fails that call with
 * STRATA_ERR_INVALID_ARGUMENT naming the table, the family and the attribute. The
 * attribute numbers are stable (never renumbered).
 */

typedef enum strata_family_attr {
    STRATA_FAMILY_VERSIONS = 0,           /* versions kept; default 1 */
    STRATA_FAMILY_MIN_VERSIONS = 1,       /* versions kept past the TTL; default 0 */
    STRATA_FAMILY_TTL = 2,                /* seconds; default STRATA_TTL_FOREVER */
    STRATA_FAMILY_BLOOMFILTER = 3,        /* a strata_bloom_type; default ROW */
    STRATA_FAMILY_COMPRESSION = 4,        /* a strata_compression_type; default NONE */
    STRATA_FAMILY_BLOCKSIZE = 5,          /* data block bytes; default 65536 */
    STRATA_FAMILY_KEEP_DELETED_CELLS = 6, /* a strata_keep_deleted; default FALSE */
    STRATA_FAMILY_DATA_BLOCK_ENCODING = 7, /* a strata_block_encoding; default PREFIX */
    STRATA_FAMILY_IN_MEMORY = 8,           /* 0 or 1: the family's blocks are cached with
                                              in-memory priority; default 0 */
    STRATA_FAMILY_BLOCKCACHE = 9,          /* 0 or 1: data blocks go through the block
                                              cache; default 1 */
} strata_family_attr;

typedef enum strata_table_attr {
    STRATA_TABLE_MAX_FILESIZE = 0,       /* bytes before a region splits; default: 0, the
                                            cluster's setting (10 GiB) */
    STRATA_TABLE_MEMSTORE_FLUSHSIZE = 1, /* bytes before a memstore flushes; default: 0, the
                                            cluster's setting (128 MiB) */
    STRATA_TABLE_DURABILITY = 2,         /* a strata_durability; default USE_DEFAULT */
    STRATA_TABLE_READONLY = 3,           /* 0 or 1: the regions refuse every write (puts,
                                            deletes, increments, appends, checks); default 0 */
} strata_table_attr;

#define STRATA_TTL_FOREVER INT64_MAX

typedef enum strata_bloom_type {
    STRATA_BLOOM_NONE = 0,
    STRATA_BLOOM_ROW = 1,
    STRATA_BLOOM_ROWCOL = 2,
} strata_bloom_type;

/* Each block records its own codec (docs/formats/storefile.md). */
typedef enum strata_compression_type {
    STRATA_COMPRESSION_NONE = 0,
    STRATA_COMPRESSION_ZSTD = 1,
    STRATA_COMPRESSION_SNAPPY = 2,
    STRATA_COMPRESSION_LZ4 = 3,
    STRATA_COMPRESSION_GZ = 4,
} strata_compression_type;

/* HBase's DATA_BLOCK_ENCODING names, each mapped to the nearest Strata block form
 * (docs/formats/storefile.md): NONE and ROW_INDEX_V1 write whole keys with an offsets
 * index (block type 1); PREFIX, DIFF and FAST_DIFF write prefix-shared keys with restart
 * points (block type 2). */
typedef enum strata_block_encoding {
    STRATA_BLOCK_ENCODING_NONE = 0,
    STRATA_BLOCK_ENCODING_PREFIX = 1,
    STRATA_BLOCK_ENCODING_DIFF = 2,
    STRATA_BLOCK_ENCODING_FAST_DIFF = 3,
    STRATA_BLOCK_ENCODING_ROW_INDEX_V1 = 4,
} strata_block_encoding;

/* HBase's KeepDeletedCells: FALSE drops deleted cells and markers at major compaction;
 * TRUE keeps them for time-range reads until VERSIONS or TTL remove them; TTL keeps them
 * too, but the delete markers expire with the family's TTL even where MIN_VERSIONS
 * would keep the cells. */
typedef enum strata_keep_deleted {
    STRATA_KEEP_DELETED_FALSE = 0,
    STRATA_KEEP_DELETED_TRUE = 1,
    STRATA_KEEP_DELETED_TTL = 2,
} strata_keep_deleted;

/* HBase's durability levels; USE_DEFAULT is the table default, SYNC_WAL. */
typedef enum strata_durability {
    STRATA_DURABILITY_USE_DEFAULT = 0,
    STRATA_DURABILITY_SKIP_WAL = 1,
    STRATA_DURABILITY_ASYNC_WAL = 2,
    STRATA_DURABILITY_SYNC_WAL = 3,
    STRATA_DURABILITY_FSYNC_WAL = 4,
} strata_durability;

/* A descriptor of table name ("table" or "namespace:table"; checked when it is sent),
 * without families or attributes. NULL only when out of memory. */
strata_table_descriptor_t *strata_table_descriptor_create(const char *name);
void strata_table_descriptor_destroy(strata_table_descriptor_t *td);
const char *strata_table_descriptor_name(const strata_table_descriptor_t *td);

/* Adds family name (checked when the descriptor is sent) at the end, every attribute
 * unset; a family of that name already there is removed first. Returns the family,
 * borrowed from td until it is removed or td destroyed; NULL when out of memory. */
strata_family_descriptor_t *strata_table_descriptor_add_family(strata_table_descriptor_t *td,
                                                               const char *name);
/* The family called name (borrowed, editable), or NULL. */
strata_family_descriptor_t *strata_table_descriptor_find_family(strata_table_descriptor_t *td,
                                                                const char *name);
/* Removes family name: 1 if it was there, else 0. */
unsigned char strata_table_descriptor_remove_family(strata_table_descriptor_t *td,
                                                    const char *name);
/* The families in order: count, then family i (borrowed; NULL when i is out of range). */
size_t strata_table_descriptor_family_count(const strata_table_descriptor_t *td);
const strata_family_descriptor_t *
strata_table_descriptor_family(const strata_table_descriptor_t *td, size_t i);

/* Table attributes: set (DURABILITY USE_DEFAULT unsets it), the value (the default when
 * not set), whether it is set, and unset. */
void strata_table_descriptor_set(strata_table_descriptor_t *td, strata_table_attr attr,
                                 int64_t value);
int64_t strata_table_descriptor_get(const strata_table_descriptor_t *td, strata_table_attr attr);
unsigned char strata_table_descriptor_is_set(const strata_table_descriptor_t *td,
                                             strata_table_attr attr);
void strata_table_descriptor_unset(strata_table_descriptor_t *td, strata_table_attr attr);

/* Table values (HBase's TableDescriptor values, the shell's METADATA: SPLIT_POLICY,
 * NORMALIZATION_ENABLED, a split policy's parameters such as
 * "KeyPrefixRegionSplitPolicy.prefix_length") and configuration entries (the shell's
 * CONFIGURATION: the table's overrides of region-server settings such as
 * "hbase.hregion.max.filesize.jitter"); where both name a setting, the value wins. Keys
 * and values are strings, copied. set replaces key's value, or with value NULL removes
 * it: 1, or 0 when out of memory or key is NULL (td unchanged). get: key's value
 * (borrowed from td until key is set again or removed, or td destroyed) or NULL. count and
 * key i list them in the order they were first set (NULL when i is out of range). Keys
 * and values are checked when the descriptor is sent: an empty key fails that call, and
 * the master refuses what docs/regionserver.md ("Split policies") lists with
 * STRATA_ERR_INVALID_ARGUMENT naming the table and the key. */
#define STRATA_TABLE_SPLIT_POLICY "SPLIT_POLICY"                   /* a split policy's class */
#define STRATA_TABLE_NORMALIZATION_ENABLED "NORMALIZATION_ENABLED" /* "true" or "false" */
unsigned char strata_table_descriptor_set_value(strata_table_descriptor_t *td, const char *key,
                                                const char *value);
const char *strata_table_descriptor_get_value(const strata_table_descriptor_t *td, const char *key);
size_t strata_table_descriptor_value_count(const strata_table_descriptor_t *td);
const char *strata_table_descriptor_value_key(const strata_table_descriptor_t *td, size_t i);
unsigned char strata_table_descriptor_set_config(strata_table_descriptor_t *td, const char *key,
                                                 const char *value);
const char *strata_table_descriptor_get_config(const strata_table_descriptor_t *td,
                                               const char *key);
size_t strata_table_descriptor_config_count(const strata_table_descriptor_t *td);
const char *strata_table_descriptor_config_key(const strata_table_descriptor_t *td, size_t i);

/* Family attributes, the same way. */
const char *strata_family_descriptor_name(const strata_family_descriptor_t *f);
void strata_family_descriptor_set(strata_family_descriptor_t *f, strata_family_attr attr,
                                  int64_t value);
int64_t strata_family_descriptor_get(const strata_family_descriptor_t *f, strata_family_attr attr);
unsigned char strata_family_descriptor_is_set(const strata_family_descriptor_t *f,
                                              strata_family_attr attr);
void strata_family_descriptor_unset(strata_family_descriptor_t *f, strata_family_attr attr);
/* HBase's name of an attribute ("VERSIONS", "DATA_BLOCK_ENCODING", ...; static), or NULL. */
const char *strata_family_attr_name(strata_family_attr attr);
/* HBase's name of an enumerated attribute's value (static): BLOOMFILTER NONE ROW ROWCOL,
 * COMPRESSION NONE ZSTD SNAPPY LZ4 GZ, KEEP_DELETED_CELLS FALSE TRUE TTL,
 * DATA_BLOCK_ENCODING NONE PREFIX DIFF FAST_DIFF ROW_INDEX_V1; NULL for another attribute
 * or a value out of range. */
const char *strata_family_value_name(strata_family_attr attr, int64_t value);
/* The value HBase's name stands for (any case) in *out, or STRATA_ERR_INVALID_ARGUMENT
 * ("COMPRESSION 'LZO' is not supported. Use one of NONE ZSTD SNAPPY LZ4 GZ"); also for an
 * attribute that is not enumerated. */
int strata_family_value_parse(strata_family_attr attr, const char *name, int64_t *out);

/* ---- tables ---- */

typedef enum strata_table_state {
    STRATA_TABLE_ENABLED = 0,
    STRATA_TABLE_DISABLED = 1,
    STRATA_TABLE_ENABLING = 2,
    STRATA_TABLE_DISABLING = 3,
} strata_table_state;

/* "ENABLED", "DISABLED", "ENABLING", "DISABLING", or "UNKNOWN" (static). */
const char *strata_table_state_name(strata_table_state state);

/* Creates the table td describes (at least one family), split at split_keys[0..n)
 * (split_key_lens[i] bytes each; sorted, distinct, non-empty; n 0: one region). */
void strata_admin_create_table(strata_admin_t *a, const strata_table_descriptor_t *td,
                               const char *const *split_keys, const size_t *split_key_lens,
                               size_t n, char **errptr);
/* Creates table dst with src's descriptor (families, attributes, values, configuration)
 * and, with preserve_splits, src's split keys; no data is copied (HBase's
 * cloneTableSchema). STRATA_ERR_NOT_FOUND if src does not exist, STRATA_ERR_EXISTS if dst
 * does. */
void strata_admin_clone_table_schema(strata_admin_t *a, const char *src, const char *dst,
                                     unsigned char preserve_splits, char **errptr);
/* Creates it as num_regions regions (>= 1) cut by split_algo: "HexStringSplit" (NULL:
 * the default), "DecimalStringSplit" (8 decimal digits) or "UniformSplit". */
void strata_admin_create_table_presplit(strata_admin_t *a, const strata_table_descriptor_t *td,
                                        uint32_t num_regions, const char *split_algo,
                                        char **errptr);
/* Replaces the table's descriptor (alter): changed attributes, added and removed
 * families. An enabled table's regions are reopened with it, one at a time. */
void strata_admin_modify_table(strata_admin_t *a, const strata_table_descriptor_t *td,
                               char **errptr);
/* The same; with async the call returns once the new descriptor is stored and the
 * regions are reopened after it (alter_async; strata_admin_alter_status says how far). */
void strata_admin_modify_table_async(strata_admin_t *a, const strata_table_descriptor_t *td,
                                     unsigned char async, char **errptr);
/* How far an alter is (HBase's getAlterStatus): *updated of *total regions reopened with
 * the newest descriptor; *running (may be NULL) while an alter still reopens them. */
void strata_admin_alter_status(strata_admin_t *a, const char *table, uint32_t *updated,
                               uint32_t *total, unsigned char *running, char **errptr);
/* Drops the table (it must be disabled): its regions and data go. */
void strata_admin_delete_table(strata_admin_t *a, const char *table, char **errptr);
void strata_admin_enable_table(strata_admin_t *a, const char *table, char **errptr);
void strata_admin_disable_table(strata_admin_t *a, const char *table, char **errptr);
/* Empties the table (it must be disabled); it comes back enabled, with its old split
 * points if preserve_splits, else as one region. */
void strata_admin_truncate_table(strata_admin_t *a, const char *table,
                                 unsigned char preserve_splits, char **errptr);
/* The table's descriptor (the caller's: destroy it), and if not NULL its state in *state
 * and its number of regions in *regions. NULL on failure (STRATA_ERR_NOT_FOUND: no such
 * table). */
strata_table_descriptor_t *strata_admin_describe_table(strata_admin_t *a, const char *table,
                                                       strata_table_state *state, uint32_t *regions,
                                                       char **errptr);
/* 1 if the table exists, 0 if not or on failure (*errptr tells which). */
unsigned char strata_admin_table_exists(strata_admin_t *a, const char *table, char **errptr);
/* The names of the tables of namespace ns ("ns:table", "default:t" ...), or of every
 * namespace with ns NULL (system tables excluded). NULL on failure. */
strata_name_list_t *strata_admin_list_tables(strata_admin_t *a, const char *ns, char **errptr);

/* ---- namespaces ---- */

void strata_admin_create_namespace(strata_admin_t *a, const char *name, char **errptr);
/* The namespace must be empty. */
void strata_admin_delete_namespace(strata_admin_t *a, const char *name, char **errptr);
strata_name_list_t *strata_admin_list_namespaces(strata_admin_t *a, char **errptr);

/* A namespace's descriptor: its name and properties (HBase's namespace configuration,
 * the shell's create_namespace 'ns', {'key' => 'value'}): string keys and values, keys
 * distinct, kept in the order first set. The master checks them when they are sent: keys
 * non-empty, at most 256 properties, keys up to 1 KiB and values up to 64 KiB. */
typedef struct strata_namespace_descriptor strata_namespace_descriptor_t;
/* A descriptor of namespace name without properties; NULL only when out of memory. */
strata_namespace_descriptor_t *strata_namespace_descriptor_create(const char *name);
void strata_namespace_descriptor_destroy(strata_namespace_descriptor_t *nd);
const char *strata_namespace_descriptor_name(const strata_namespace_descriptor_t *nd);
/* Sets key to value (copied; NULL removes key): 1, or 0 when out of memory or key is NULL. */
unsigned char strata_namespace_descriptor_set(strata_namespace_descriptor_t *nd, const char *key,
                                              const char *value);
/* key's value (borrowed until it is set again or nd destroyed), or NULL. */
const char *strata_namespace_descriptor_get(const strata_namespace_descriptor_t *nd,
                                            const char *key);
/* The properties: count, then key i (NULL out of range). */
size_t strata_namespace_descriptor_count(const strata_namespace_descriptor_t *nd);
const char *strata_namespace_descriptor_key(const strata_namespace_descriptor_t *nd, size_t i);
/* Creates the namespace with nd's name and properties. */
void strata_admin_create_namespace_descriptor(strata_admin_t *a,
                                              const strata_namespace_descriptor_t *nd,
                                              char **errptr);
/* Replaces the properties of the existing namespace nd names with nd's (alter_namespace):
 * STRATA_ERR_NOT_FOUND if it does not exist. */
void strata_admin_modify_namespace(strata_admin_t *a, const strata_namespace_descriptor_t *nd,
                                   char **errptr);
/* The namespace's descriptor (the caller's: destroy it); NULL on failure
 * (STRATA_ERR_NOT_FOUND: no such namespace). */
strata_namespace_descriptor_t *strata_admin_describe_namespace(strata_admin_t *a,
                                                               const char *name, char **errptr);

/* A list of names (tables or namespaces): count, name i (borrowed; NULL out of range). */
size_t strata_name_list_count(const strata_name_list_t *l);
const char *strata_name_list_get(const strata_name_list_t *l, size_t i);
void strata_name_list_destroy(strata_name_list_t *l);

/* ---- regions ---- */

/* The master's view of a region (HBase's names); the numbers are stable. */
typedef enum strata_region_state {
    STRATA_REGION_OFFLINE = 0,
    STRATA_REGION_OPENING = 1,
    STRATA_REGION_OPEN = 2,
    STRATA_REGION_CLOSING = 3,
    STRATA_REGION_CLOSED = 4,
    STRATA_REGION_FAILED_OPEN = 5,
} strata_region_state;

/* "OFFLINE", "OPENING", "OPEN", "CLOSING", "CLOSED", "FAILED_OPEN", or "UNKNOWN". */
const char *strata_region_state_name(strata_region_state state);

/* Every region of the table in key order, with its server and state. NULL on failure. */
strata_region_list_t *strata_admin_table_regions(strata_admin_t *a, const char *table,
                                                 char **errptr);
/* The region of table holding row (the caller's: strata_region_destroy). NULL with
 * *errptr on failure (STRATA_ERR_NOT_FOUND: no such table); NULL with *errptr untouched
 * when no region holds the row (only while the master rewrites the table's regions). */
strata_region_t *strata_admin_locate_region(strata_admin_t *a, const char *table, const char *row,
                                            size_t row_len, char **errptr);

size_t strata_region_list_count(const strata_region_list_t *l);
/* Region i (borrowed from l; NULL out of range). */
const strata_region_t *strata_region_list_get(const strata_region_list_t *l, size_t i);
void strata_region_list_destroy(strata_region_list_t *l);
/* Frees a region strata_admin_locate_region returned (never one borrowed from a list). */
void strata_region_destroy(strata_region_t *r);

/* The encoded name (the MD5 hex suffix of the region name), its table, its keys ([start,
 * end); empty: unbounded), its region id, the server serving it ("host,port,startcode";
 * NULL when not assigned) and its state. */
const char *strata_region_encoded_name(const strata_region_t *r);
const char *strata_region_table(const strata_region_t *r);
const char *strata_region_start_key(const strata_region_t *r, size_t *len);
const char *strata_region_end_key(const strata_region_t *r, size_t *len);
uint64_t strata_region_id(const strata_region_t *r);
const char *strata_region_server(const strata_region_t *r);
strata_region_state strata_region_state_of(const strata_region_t *r);

/* Decodes the info:regioninfo value of a strata:meta region row (strata_admin_scan_meta;
 * docs/formats/meta.md): a region without a server, in state OFFLINE (the row's
 * info:state and info:sn say more), the caller's to free with strata_region_destroy.
 * NULL with *errptr (STRATA_ERR_CORRUPTION) for a value that does not decode. */
strata_region_t *strata_region_from_meta(const char *value, size_t len, char **errptr);
/* The flags of a region decoded by strata_region_from_meta: a split parent is offline
 * and split (0 for a region from any other call). */
unsigned char strata_region_offline(const strata_region_t *r);
unsigned char strata_region_split(const strata_region_t *r);
/* Moves the region (encoded name) to dest ("host,port,startcode" or "host:port"; NULL:
 * any other live server). Returns the server it went to ("host,port,startcode",
 * malloc'ed; "" if the master did not say), NULL on failure. */
char *strata_admin_move(strata_admin_t *a, const char *encoded_name, const char *dest,
                        char **errptr);
/* Opens a region that is not open on the least loaded server; returns that server as
 * strata_admin_move does. */
char *strata_admin_assign(strata_admin_t *a, const char *encoded_name, char **errptr);
/* Closes the region; the master reopens a region of an enabled table later on its own. */
void strata_admin_unassign(strata_admin_t *a, const char *encoded_name, char **errptr);
/* Flushes the memstores of every region of the table, or of one region. */
void strata_admin_flush_table(strata_admin_t *a, const char *table, char **errptr);
void strata_admin_flush_region(strata_admin_t *a, const char *encoded_name, char **errptr);
/* Compacts every region of the table, or one region: minor, or major if major. */
void strata_admin_compact_table(strata_admin_t *a, const char *table, unsigned char major,
                                char **errptr);
void strata_admin_compact_region(strata_admin_t *a, const char *encoded_name, unsigned char major,
                                 char **errptr);
/* The same for one column family of a table (encoded_name NULL) or of a region (table
 * NULL): only that family's store is flushed or compacted, as HBase's flush 't', 'cf'
 * (family NULL: every family). STRATA_ERR_NOT_FOUND naming the family when the table has
 * none of that name. */
void strata_admin_flush_family(strata_admin_t *a, const char *table, const char *encoded_name,
                               const char *family, char **errptr);
void strata_admin_compact_family(strata_admin_t *a, const char *table, const char *encoded_name,
                                 const char *family, unsigned char major, char **errptr);

/* What a table's open regions (or one region) are compacting now, HBase's
 * CompactionState: the union over the regions (NONE on failure, with *errptr set). */
typedef enum strata_compaction_state {
    STRATA_COMPACTION_NONE = 0,
    STRATA_COMPACTION_MINOR = 1,
    STRATA_COMPACTION_MAJOR = 2,
    STRATA_COMPACTION_MAJOR_AND_MINOR = 3,
} strata_compaction_state;
strata_compaction_state strata_admin_compaction_state(strata_admin_t *a, const char *table,
                                                      char **errptr);
strata_compaction_state strata_admin_region_compaction_state(strata_admin_t *a,
                                                             const char *encoded_name,
                                                             char **errptr);
/* "NONE", "MINOR", "MAJOR", "MAJOR_AND_MINOR" or "UNKNOWN" (static). */
const char *strata_compaction_state_name(strata_compaction_state state);
/* Rolls the WAL of the live region server named ("host,port,startcode" or "host:port"):
 * its current file is closed and a new one started; files every region has flushed
 * past are removed (HBase's wal_roll). STRATA_ERR_NOT_FOUND when it is not live. */
void strata_admin_roll_wal(strata_admin_t *a, const char *server, char **errptr);

/* ---- split, merge, switches, procedures (docs/split-merge.md, docs/procedures.md) ----
 *
 * A split or merge returns once its regions are open (or left for the master's chore to
 * open). Refusals (a key outside the region or equal to its start key, a disabled table,
 * a region in transition or holding reference files, a table whose SPLIT_POLICY is
 * DisabledRegionSplitPolicy, regions not adjacent without force, a switch off) are
 * STRATA_INVALID_ARGUMENT (or STRATA_TABLE_DISABLED) with the reason, and change nothing.
 */
/* Splits the region (encoded name) at key (NULL: where the region server suggests). */
void strata_admin_split_region(strata_admin_t *a, const char *encoded_name,
                               const unsigned char *key, size_t key_len, char **errptr);
/* Splits the region of table holding key, or (key NULL) every region of the table at its
 * own best point; succeeds if any region split. */
void strata_admin_split_table(strata_admin_t *a, const char *table, const unsigned char *key,
                              size_t key_len, char **errptr);
/* Merges n >= 2 regions (encoded names) of one table into one; they must be adjacent
 * unless force. Returns the merged region's encoded name (malloc'ed), NULL on failure. */
char *strata_admin_merge_regions(strata_admin_t *a, const char *const *encoded_names, size_t n,
                                 unsigned char force, char **errptr);

/* The master's switches: "SPLIT", "MERGE" (splitormerge_switch), "NORMALIZER",
 * "CATALOG_JANITOR", "BALANCER". Setting one returns its previous state; all but
 * CATALOG_JANITOR are kept in ZooKeeper, so a new active master keeps them. */
unsigned char strata_admin_set_switch(strata_admin_t *a, const char *name, unsigned char on,
                                      char **errptr);
unsigned char strata_admin_switch_enabled(strata_admin_t *a, const char *name, char **errptr);
/* Turns compactions on or off on every live region server (servers NULL / n 0) or on
 * the n named ("host,port,startcode" or "host:port"), as HBase's compaction_switch; not
 * kept across a server restart. Returns the servers (names) and sets *previous (malloc'ed,
 * one per server, free with strata_free) to their states before; NULL on failure. */
strata_name_list_t *strata_admin_compaction_switch(strata_admin_t *a, unsigned char on,
                                                   const char *const *servers, size_t n,
                                                   unsigned char **previous, char **errptr);
/* The dead servers the master lists ("host,port,startcode"), as HBase's
 * list_deadservers: servers that died and did not come back on the same host and port
 * (a new start code there replaces the old one). NULL on failure. */
strata_name_list_t *strata_admin_list_dead_servers(strata_admin_t *a, char **errptr);
/* Removes the n named dead servers from the list (n 0: all), as HBase's
 * clear_deadservers; while a dead server's recovery is queued or running none is cleared.
 * Returns the servers that stayed (empty when all were cleared); NULL on failure. */
strata_name_list_t *strata_admin_clear_dead_servers(strata_admin_t *a, const char *const *servers,
                                                    size_t n, char **errptr);
/* Runs the balancer once (HBase's balancer): STRATA_BALANCE_FORCE also while regions are
 * in transition, STRATA_BALANCE_DRY_RUN plans and moves nothing. Sets *ran (false while the
 * BALANCER switch is off, regions are in transition, ...) and returns a text (malloc'ed,
 * free with strata_free): the policy, costs before and after and the moves planned and made,
 * or why it did not run; NULL on failure. */
#define STRATA_BALANCE_FORCE 1u
#define STRATA_BALANCE_DRY_RUN 2u
char *strata_admin_balance(strata_admin_t *a, unsigned flags, unsigned char *ran, char **errptr);
/* The consistency report of `strata hbck` (docs/hbck.md), made by the active master, of
 * every table (n 0) or those named: a text (malloc'ed, free with strata_free) with one line
 * per finding ("ERROR: NOT_DEPLOYED table=... region=..."), the counts and "Status: OK" or
 * "Status: INCONSISTENT"; *errors gets the number of errors. stuck_ms: regions in
 * transition, table states and procedures older than this are errors (0: 60000). NULL on
 * failure. */
char *strata_admin_hbck(strata_admin_t *a, const char *const *tables, size_t n,
                        unsigned long long stuck_ms, size_t *errors, char **errptr);
/* Runs the normalizer once over the tables with NORMALIZATION_ENABLED => true; returns
 * whether it ran (not while the NORMALIZER switch is off). */
unsigned char strata_admin_normalize(strata_admin_t *a, char **errptr);
/* Runs the catalog janitor once; returns how many split or merged parents it removed. */
unsigned strata_admin_run_catalog_janitor(strata_admin_t *a, char **errptr);

/* Running procedures and the last ones that ended, oldest first. */
typedef struct strata_procedure_list strata_procedure_list_t;
strata_procedure_list_t *strata_admin_list_procedures(strata_admin_t *a, char **errptr);
void strata_procedure_list_destroy(strata_procedure_list_t *l);
size_t strata_procedure_list_count(const strata_procedure_list_t *l);
unsigned long long strata_procedure_id(const strata_procedure_list_t *l, size_t i);
/* "SplitTableRegionProcedure", "MergeTableRegionsProcedure" */
const char *strata_procedure_type(const strata_procedure_list_t *l, size_t i);
/* "RUNNABLE", "SUCCESS", "ROLLEDBACK", "FAILED" */
const char *strata_procedure_state(const strata_procedure_list_t *l, size_t i);
const char *strata_procedure_step(const strata_procedure_list_t *l, size_t i);
const char *strata_procedure_table(const strata_procedure_list_t *l, size_t i);
/* Wall-clock ms of submission and of the last step. */
long long strata_procedure_submitted_ms(const strata_procedure_list_t *l, size_t i);
long long strata_procedure_updated_ms(const strata_procedure_list_t *l, size_t i);
size_t strata_procedure_region_count(const strata_procedure_list_t *l, size_t i);
const char *strata_procedure_region(const strata_procedure_list_t *l, size_t i, size_t j);
/* Why it rolled back or failed; "" otherwise. */
const char *strata_procedure_error(const strata_procedure_list_t *l, size_t i);

/* ---- cluster status ----
 *
 * What the master knows now: masters, live servers with their load (as their last
 * heartbeat reported it) and their regions' loads, dead servers, regions in transition.
 * Servers are named "host,port,startcode". Counts are followed by an accessor for item i
 * (NULL out of range); everything is borrowed from the status object.
 */

strata_cluster_status_t *strata_admin_cluster_status(strata_admin_t *a, char **errptr);
void strata_cluster_status_destroy(strata_cluster_status_t *s);
/* The cluster id and the master's version (NULL if the master did not say). */
const char *strata_cluster_status_cluster_id(const strata_cluster_status_t *s);
const char *strata_cluster_status_version(const strata_cluster_status_t *s);
/* The active master (NULL if none answered), then the backups. */
const char *strata_cluster_status_active_master(const strata_cluster_status_t *s);
size_t strata_cluster_status_backup_master_count(const strata_cluster_status_t *s);
const char *strata_cluster_status_backup_master(const strata_cluster_status_t *s, size_t i);
size_t strata_cluster_status_live_server_count(const strata_cluster_status_t *s);
const strata_server_load_t *strata_cluster_status_live_server(const strata_cluster_status_t *s,
                                                              size_t i);
size_t strata_cluster_status_dead_server_count(const strata_cluster_status_t *s);
const char *strata_cluster_status_dead_server(const strata_cluster_status_t *s, size_t i);
/* Regions in transition: each with its state, its server if it has one, and since when
 * (ms since the epoch) it has been in that state. */
size_t strata_cluster_status_in_transition_count(const strata_cluster_status_t *s);
const strata_region_t *strata_cluster_status_in_transition(const strata_cluster_status_t *s,
                                                           size_t i);
uint64_t strata_cluster_status_in_transition_since_ms(const strata_cluster_status_t *s, size_t i);
/* Tables and regions the master knows of. */
uint32_t strata_cluster_status_table_count(const strata_cluster_status_t *s);
uint32_t strata_cluster_status_region_count(const strata_cluster_status_t *s);

/* A live region server's load. region_count is the regions it serves (also when the
 * per-region loads are not all listed). */
const char *strata_server_load_name(const strata_server_load_t *l);
uint32_t strata_server_load_http_port(const strata_server_load_t *l);
uint32_t strata_server_load_region_count(const strata_server_load_t *l);
double strata_server_load_requests_per_second(const strata_server_load_t *l);
uint64_t strata_server_load_total_requests(const strata_server_load_t *l);
uint64_t strata_server_load_read_requests(const strata_server_load_t *l);
uint64_t strata_server_load_write_requests(const strata_server_load_t *l);
uint64_t strata_server_load_store_files(const strata_server_load_t *l);
uint64_t strata_server_load_store_file_size(const strata_server_load_t *l);
uint64_t strata_server_load_memstore_size(const strata_server_load_t *l);
/* When its last heartbeat arrived (ms since the epoch). */
uint64_t strata_server_load_last_report_ms(const strata_server_load_t *l);
size_t strata_server_load_region_load_count(const strata_server_load_t *l);
const strata_region_load_t *strata_server_load_region_load(const strata_server_load_t *l, size_t i);

/* Running tasks (HBase's ServerTask, status 'tasks'): the active master's (its
 * procedures and its own flushes and compactions of the catalog) and a live server's as
 * of its last report (flushes, compactions). Task i's description, status, state
 * ("RUNNING") and start time (ms since the epoch) are borrowed from the status; any out
 * pointer may be NULL. 0, or -1 when i is out of range. */
size_t strata_cluster_status_master_task_count(const strata_cluster_status_t *s);
int strata_cluster_status_master_task(const strata_cluster_status_t *s, size_t i,
                                      const char **description, const char **status,
                                      const char **state, uint64_t *start_ms);
size_t strata_server_load_task_count(const strata_server_load_t *l);
int strata_server_load_task(const strata_server_load_t *l, size_t i, const char **description,
                            const char **status, const char **state, uint64_t *start_ms);

/* One region's load on its server: its encoded name, its table (NULL if not reported),
 * requests, store files and sizes in bytes. */
const char *strata_region_load_encoded_name(const strata_region_load_t *l);
const char *strata_region_load_table(const strata_region_load_t *l);
uint64_t strata_region_load_read_requests(const strata_region_load_t *l);
uint64_t strata_region_load_write_requests(const strata_region_load_t *l);
uint64_t strata_region_load_store_files(const strata_region_load_t *l);
uint64_t strata_region_load_store_file_size(const strata_region_load_t *l);
uint64_t strata_region_load_memstore_size(const strata_region_load_t *l);

/* ---- the catalog (strata:meta; docs/formats/meta.md) ----
 *
 * The master's catalog read as rows, cells as stored (region rows, table rows, namespace
 * and procedure rows), for operators: what the shell's scan 'strata:meta' prints. It is
 * read-only: nothing in this API writes it. */
typedef struct strata_meta_rows strata_meta_rows_t;
/* The rows s selects (NULL: every row): its start and stop rows, columns, max versions,
 * time range, filter, reversed, raw and limit; its caching and batch are ignored. The
 * master answers in pages of up to 1000 rows, all gathered here: set a limit on a large
 * catalog. NULL on failure (STRATA_ERR_NO_SUCH_FAMILY for a family meta does not have:
 * info, table, ns, proc). */
strata_meta_rows_t *strata_admin_scan_meta(strata_admin_t *a, const strata_scan_t *s,
                                           char **errptr);
size_t strata_meta_rows_count(const strata_meta_rows_t *l);
/* Row i (borrowed from l; NULL out of range), read with strata.h's strata_result_*. */
const strata_result_t *strata_meta_rows_get(const strata_meta_rows_t *l, size_t i);
void strata_meta_rows_destroy(strata_meta_rows_t *l);

#ifdef __cplusplus
}
#endif

#endif
