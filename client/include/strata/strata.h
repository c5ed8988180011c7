/*
 * strata.h - the Strata C client, libstrata: the public data API (tables, rows, cells,
 * scans, batches, the buffered mutator) and the error contract it shares with
 * strata/admin.h (administration). The contract in full: docs/client.md.
 *
 * Modelled on LevelDB's C API: every object is an opaque handle made by a *_create or
 * *_open function and given back with the matching *_destroy / *_close; byte strings
 * are (pointer, length) pairs and are copied by the call that takes them; booleans are
 * unsigned char. What a function returns as `const` is borrowed from the object it came
 * from and lives as long as that object; what it returns as `char *` is malloc'ed and
 * the caller's, to free with strata_free(). Every *_destroy and *_close accepts NULL;
 * a *_create returns NULL only when out of memory.
 *
 * Errors: functions that can fail take `char **errptr`. The caller passes a pointer to
 * a NULL char*; on success it is left unchanged, on failure it receives a malloc'ed
 * message that the caller frees with strata_free(). A message already there is freed and
 * replaced. A message names what failed (table, region, row) and begins with a token
 * naming its cause, then ": " and the details (or the end of the string), e.g.
 * "not found: table users does not exist". strata_error_code() turns any message the
 * library produced (or a copy of one) into a strata_code to switch on; the token table is
 * at strata_code below.
 *
 * Retries: every operation retries what can be retried (a region that moved or is
 * opening, a busy or unreachable server, a call that timed out) with HBase's backoff
 * (100 ms x 1, 2, 3, 5, 10, 20, 40, 100, ...) within the operation timeout, dropping
 * cached region locations where the error says so. A retryable error
 * (STRATA_ERR_RETRYABLE) reaches the caller only once the operation timeout or the
 * retries are spent.
 *
 *   char *err = NULL;
 *   strata_options_t *o = strata_options_create();
 *   strata_options_set_zk_quorum(o, "127.0.0.1:2181");
 *   strata_client_t *c = strata_client_open(o, &err);
 *   strata_table_t *t = strata_table_open(c, "users");
 *   strata_mutation_t *m = strata_put_create("row1", 4);
 *   strata_put_add(m, "f", 1, "q", 1, STRATA_LATEST_TIMESTAMP, "v", 1);
 *   strata_table_mutate(t, m, &err);
 *   if (err && strata_error_code(err) == STRATA_ERR_NO_SUCH_FAMILY) ...
 *
 * Finding regions: with a ZooKeeper quorum set (strata_options_set_zk_quorum) the client
 * asks the cluster's active master (MasterService.LocateRegion, prefetching the next 8
 * regions; GetTableRegions for scans) and caches the answers; without one it reads a
 * region location file or a fixed list given in code. Administration - tables,
 * namespaces, moves, flushes, cluster status - is strata/admin.h (strata_admin_open with
 * the same quorum); `strata cluster` starts a local cluster to try both on
 * (docs/cluster.md).
 *
 * Linking: `cc app.c $(pkg-config --cflags --libs strata)` against an installed copy
 * (`cmake --install build --prefix P`: P/lib/libstrata.so and libstrata.a,
 * P/include/strata/, P/lib/pkgconfig/strata.pc). The library defines no global symbol
 * outside the strata_ prefix, so an application's own names never clash with it.
 *
 * Thread-safety: a client and its tables may be used from any number of threads at
 * once. Builders (options, mutations, gets, scans, batches), results, scanners and
 * buffered mutators belong to one thread at a time. The error functions are pure.
 */
#ifndef STRATA_CLIENT_STRATA_H
#define STRATA_CLIENT_STRATA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STRATA_LATEST_TIMESTAMP INT64_MAX /* put: the server assigns; delete: newest */
/* The parent znode of a cluster when none is given (strata_options_set_zk_parent,
 * strata_admin_open). */
#define STRATA_DEFAULT_ZK_PARENT "/strata"

/* ---- errors ----
 *
 * What a failure means to the caller. The numbers are stable: they are never renumbered
 * or reused, and new codes are only added at the end. A message begins with one of the
 * tokens below (also stable, never reworded) and maps to its code; a message that begins
 * with none of them (not one of the library's) is STRATA_ERR_INTERNAL.
 *
 *   code                         tokens a message may begin with
 *   STRATA_ERR_RETRYABLE         "timeout", "connection error", "region not serving",
 *                                "region opening", "region too busy", "server busy",
 *                                "closed"
 *   STRATA_ERR_NOT_FOUND         "not found"
 *   STRATA_ERR_EXISTS            "already exists"
 *   STRATA_ERR_TABLE_DISABLED    "table disabled"
 *   STRATA_ERR_INVALID_ARGUMENT  "invalid argument", "out of order"
 *   STRATA_ERR_NO_SUCH_FAMILY    "unknown column family"
 *   STRATA_ERR_CORRUPTION        "corruption", "protocol error"
 *   STRATA_ERR_IO                "I/O error", "no space left"
 *   STRATA_ERR_PERMISSION        "permission denied"
 *   STRATA_ERR_UNSUPPORTED       "unsupported"
 *   STRATA_ERR_INTERNAL          "internal error"
 *   STRATA_ERR_NO_MEMORY         "out of memory"
 */
typedef enum strata_code {
    STRATA_OK = 0,
    /* Timeouts, unreachable or busy servers, regions moving or opening, no active
     * master: the library retried until the operation timeout or the retries were spent.
     * The same call may succeed later; a write that timed out may have been applied. */
    STRATA_ERR_RETRYABLE = 1,
    /* No such table, namespace, region (or row's region), or column in a request. */
    STRATA_ERR_NOT_FOUND = 2,
    /* The table or namespace to create exists (also when a create was retried after a
     * master failover and the first attempt had succeeded). */
    STRATA_ERR_EXISTS = 3,
    /* The table is disabled: enable it first. */
    STRATA_ERR_TABLE_DISABLED = 4,
    /* A bad name, key, attribute or request, or a table in the wrong state for the call
     * (dropping an enabled table). Not retried. */
    STRATA_ERR_INVALID_ARGUMENT = 5,
    /* The request names a column family the table does not have. */
    STRATA_ERR_NO_SUCH_FAMILY = 6,
    /* Stored or received bytes that do not decode. */
    STRATA_ERR_CORRUPTION = 7,
    /* An I/O failure: a server's disk, or a socket error that outlasted the retries. */
    STRATA_ERR_IO = 8,
    STRATA_ERR_PERMISSION = 9,
    STRATA_ERR_UNSUPPORTED = 10,
    /* A bug, or a message not produced by this library. */
    STRATA_ERR_INTERNAL = 11,
    STRATA_ERR_NO_MEMORY = 12,
} strata_code;

/* The code of an error message this library produced (or a copy of it): STRATA_OK for
 * NULL, STRATA_ERR_INTERNAL for a message that does not begin with a known token. Works
 * on errptr messages and on strata_batch_error / strata_mutator_failed_error alike. */
strata_code strata_error_code(const char *errmsg);
/* The enumerator's name, e.g. "STRATA_ERR_NOT_FOUND" (static; "unknown strata_code" for
 * a value outside the enum). */
const char *strata_code_name(strata_code code);

typedef struct strata_options strata_options_t;
typedef struct strata_client strata_client_t;
typedef struct strata_table strata_table_t;
typedef struct strata_mutation strata_mutation_t;
typedef struct strata_get strata_get_t;
typedef struct strata_result strata_result_t;
typedef struct strata_scan strata_scan_t;
typedef struct strata_scanner strata_scanner_t;
typedef struct strata_batch strata_batch_t;
typedef struct strata_mutator strata_mutator_t;

/* Comparison of CheckAndMutate: `value <op> existing`, as in HBase. */
typedef enum strata_compare_op {
    STRATA_LESS = 0,
    STRATA_LESS_OR_EQUAL = 1,
    STRATA_EQUAL = 2,
    STRATA_NOT_EQUAL = 3,
    STRATA_GREATER_OR_EQUAL = 4,
    STRATA_GREATER = 5,
} strata_compare_op;

/* Frees anything the library malloc'ed for the caller (error messages, values). */
void strata_free(void *ptr);

/* ---- logging ----
 *
 * The library logs what it recovers from by itself (a region location file that read
 * torn, a ZooKeeper session it reopened, retries at debug) as one line per event:
 *   2026-11-29T22:40:01.123Z WARN  [client/locator.c:508] region location file ...
 * By default the lines at WARN and above go to stderr (the environment variable
 * STRATA_LOG_LEVEL=error|warn|info|debug, read at the first line, sets another level).
 * The level and the sink below are process-wide: they apply to every client and admin
 * handle. */

/* Levels, from quietest; the numbers are stable. */
typedef enum strata_log_level {
    STRATA_LOG_OFF = 0, /* nothing is logged */
    STRATA_LOG_ERROR = 1,
    STRATA_LOG_WARN = 2,
    STRATA_LOG_INFO = 3,
    STRATA_LOG_DEBUG = 4,
} strata_log_level;

/* Logs the lines at level and above from now on (STRATA_LOG_OFF: none). A value outside
 * the enum is ignored. Safe from any thread at any time. */
void strata_set_log_level(strata_log_level level);
/* The level in force (STRATA_LOG_LEVEL's or the default if never set). */
strata_log_level strata_get_log_level(void);

/* Receives each line logged at or above the level: line is the whole line as stderr
 * would have shown it, without the newline, NUL-terminated; it is borrowed for the
 * call only. The sink is called on the thread that logs, possibly on several threads
 * at once, and must not call back into the library (no strata_* call). */
typedef void (*strata_log_sink)(void *arg, strata_log_level level, const char *line);
/* Sends the lines to fn(arg, level, line) from now on instead of stderr; fn NULL
 * restores stderr. When it returns, the previous sink is no longer running on any
 * thread and is never called again, so its arg may be freed. Must not be called from
 * inside a sink. */
void strata_set_log_sink(strata_log_sink fn, void *arg);

/* ---- options and client ---- */

/* Options with the defaults below; the setters copy their strings. */
strata_options_t *strata_options_create(void);
void strata_options_destroy(strata_options_t *o);
/* Region locations from the cluster's active master, found through ZooKeeper: quorum
 * "host:port[,host:port...]" and the parent znode of the cluster (NULL or "":
 * STRATA_DEFAULT_ZK_PARENT). The client asks the master where a row's region is (with the next 8
 * regions, cached at once) and where all of a table's regions are (scans); it follows a master
 * change (re-reading <parent>/master on a connection error or a backup's refusal, for up to 30 s
 * per lookup). Reads and writes go to the region servers only. A quorum takes precedence over a
 * locator file and a fixed list. Administration (create a table ...) is strata/admin.h. */
void strata_options_set_zk_quorum(strata_options_t *o, const char *quorum);
void strata_options_set_zk_parent(strata_options_t *o, const char *parent);
/* Region locations from a text file: lines `table encoded_name start_hex end_hex
 * host:port`, `-` for an empty key, `#` comments; re-read when it changes. */
void strata_options_set_locator_file(strata_options_t *o, const char *path);
/* Or a fixed list given in code: one region of table [start, end) (empty = unbounded)
 * served at host:port. */
void strata_options_add_region(strata_options_t *o, const char *table, const char *encoded_name,
                               const char *start, size_t start_len, const char *end, size_t end_len,
                               const char *host_port);
/* Overall time for one operation including retries (default 60000 ms). */
void strata_options_set_operation_timeout_ms(strata_options_t *o, int ms);
/* Time for one RPC (default 10000 ms; capped by the time left in the operation). */
void strata_options_set_rpc_timeout_ms(strata_options_t *o, int ms);
/* Retries after the first attempt (default 15) and the base pause (default 100 ms). */
void strata_options_set_retries(strata_options_t *o, int retries);
void strata_options_set_pause_ms(strata_options_t *o, int ms);

/* Opens a client with the options (copied; o may be destroyed at once). No connection is
 * made until the first call. NULL on failure (no way to find regions, bad options). */
strata_client_t *strata_client_open(const strata_options_t *o, char **errptr);
/* Closes the client; its tables must be closed first. NULL is a no-op. */
void strata_client_close(strata_client_t *c);

/* A handle on table `name` (nothing is checked until the first call; an unknown table
 * fails that call with STRATA_ERR_NOT_FOUND). NULL only when out of memory. */
strata_table_t *strata_table_open(strata_client_t *c, const char *name);
void strata_table_close(strata_table_t *t);

/* ---- mutations ---- */

/* A put of one row: add cells with strata_put_add. */
strata_mutation_t *strata_put_create(const char *row, size_t row_len);
/* A delete of one row: with nothing added it deletes the whole row. */
strata_mutation_t *strata_delete_create(const char *row, size_t row_len);
void strata_mutation_destroy(strata_mutation_t *m);

void strata_put_add(strata_mutation_t *m, const char *family, size_t family_len,
                    const char *qualifier, size_t qualifier_len, int64_t ts, const char *value,
                    size_t value_len);
/* Every column of family with timestamps <= ts (STRATA_LATEST_TIMESTAMP: all). */
void strata_delete_family(strata_mutation_t *m, const char *family, size_t family_len, int64_t ts);
/* Every version of one column with timestamps <= ts (STRATA_LATEST_TIMESTAMP: all). */
void strata_delete_column(strata_mutation_t *m, const char *family, size_t family_len,
                          const char *qualifier, size_t qualifier_len, int64_t ts);
/* One version of a column: exactly ts (STRATA_LATEST_TIMESTAMP: the newest). */
void strata_delete_version(strata_mutation_t *m, const char *family, size_t family_len,
                           const char *qualifier, size_t qualifier_len, int64_t ts);

/* Increments and appends of one row, applied atomically to every column they name (HBase's
 * Increment and Append): build with the adds below, run with
 * strata_table_read_modify_write (or strata_table_mutate when the new values are not
 * needed). An increment adds amount to an 8-byte big-endian counter (absent: 0); an append
 * adds bytes at the end of the newest value (absent: empty). */
strata_mutation_t *strata_increment_create(const char *row, size_t row_len);
void strata_increment_add(strata_mutation_t *m, const char *family, size_t family_len,
                          const char *qualifier, size_t qualifier_len, int64_t amount);
strata_mutation_t *strata_append_create(const char *row, size_t row_len);
void strata_append_add(strata_mutation_t *m, const char *family, size_t family_len,
                       const char *qualifier, size_t qualifier_len, const char *value,
                       size_t value_len);

/* ---- operation attributes ----
 *
 * HBase's OperationWithAttributes: a mutation (put, delete, increment, append), a get or a
 * scan carries name -> bytes pairs to the region server (client.proto NameBytesPair),
 * in single calls, batches and the buffered mutator alike. Strata has no coprocessors:
 * a server checks the pairs and logs them at debug level with the request, and acts on
 * one only, STRATA_SCAN_METRICS_ATTRIBUTE (scan metrics, below).
 *
 * Setting a name replaces its value; value NULL removes it (value_len ignored); an empty
 * value is a value. A set is bounded: at most STRATA_ATTRIBUTE_MAX_COUNT names (a scan
 * keeps one of the places for STRATA_SCAN_METRICS_ATTRIBUTE), each of 1 to
 * STRATA_ATTRIBUTE_MAX_NAME bytes, values of at most STRATA_ATTRIBUTE_MAX_VALUE bytes. A
 * call past a bound fails with STRATA_ERR_INVALID_ARGUMENT naming the attribute
 * ("invalid argument: operation attribute 'k': its value has 70000 bytes, more than
 * 65536") and changes nothing; the region servers refuse a set past them the same way
 * and run nothing of that operation. */
#define STRATA_ATTRIBUTE_MAX_COUNT 64
#define STRATA_ATTRIBUTE_MAX_NAME 256
#define STRATA_ATTRIBUTE_MAX_VALUE 65536

void strata_mutation_set_attribute(strata_mutation_t *m, const char *name, const char *value,
                                   size_t value_len, char **errptr);
/* The value of attribute name (borrowed: valid until the attribute changes or the object
 * goes), or NULL when it is not set; *len gets its length. */
const char *strata_mutation_attribute(const strata_mutation_t *m, const char *name, size_t *len);

/* ---- gets and results ---- */

strata_get_t *strata_get_create(const char *row, size_t row_len);
void strata_get_destroy(strata_get_t *g);
/* Restricts to a column, or with qualifier NULL to a whole family. */
void strata_get_add_column(strata_get_t *g, const char *family, size_t family_len,
                           const char *qualifier, size_t qualifier_len);
void strata_get_set_max_versions(strata_get_t *g, uint32_t n);
/* [from, to) in ms. */
void strata_get_set_time_range(strata_get_t *g, int64_t from, int64_t to);
/* HBase's filter language, e.g. "ValueFilter(=, 'binary:x')". */
void strata_get_set_filter(strata_get_t *g, const char *filter);
/* Operation attributes of the get (see "operation attributes" above). */
void strata_get_set_attribute(strata_get_t *g, const char *name, const char *value,
                              size_t value_len, char **errptr);
const char *strata_get_attribute(const strata_get_t *g, const char *name, size_t *len);

/* A cell's type: what strata_result_cell_type answers. Only a raw scan
 * (strata_scan_set_raw) returns delete markers; every other read returns puts only. The
 * numbers are HBase's KeyValue type codes (docs/formats/cell.md), stable, never
 * renumbered. */
typedef enum strata_cell_type {
    STRATA_CELL_PUT = 4,
    STRATA_CELL_DELETE = 8,                 /* one version: exactly its timestamp */
    STRATA_CELL_DELETE_FAMILY_VERSION = 10, /* every column of the family at exactly ts */
    STRATA_CELL_DELETE_COLUMN = 12,         /* every version of the column up to ts */
    STRATA_CELL_DELETE_FAMILY = 14,         /* every column of the family up to ts */
} strata_cell_type;

/* HBase's name of a cell type: "Put", "Delete", "DeleteFamilyVersion", "DeleteColumn",
 * "DeleteFamily", or "Unknown" (static). */
const char *strata_cell_type_name(strata_cell_type type);

/* A row's cells in HBase order (family, qualifier, newest first; in a raw scan a delete
 * marker comes before the puts of its timestamp). */
void strata_result_destroy(strata_result_t *r);
size_t strata_result_cell_count(const strata_result_t *r);
/* The row (of the first cell; the requested row for an empty Get result). */
const char *strata_result_row(const strata_result_t *r, size_t *len);
const char *strata_result_cell_row(const strata_result_t *r, size_t i, size_t *len);
const char *strata_result_cell_family(const strata_result_t *r, size_t i, size_t *len);
const char *strata_result_cell_qualifier(const strata_result_t *r, size_t i, size_t *len);
int64_t strata_result_cell_timestamp(const strata_result_t *r, size_t i);
const char *strata_result_cell_value(const strata_result_t *r, size_t i, size_t *len);
/* Cell i's type (STRATA_CELL_PUT past the end); a delete marker's value is empty. */
strata_cell_type strata_result_cell_type(const strata_result_t *r, size_t i);
/* The newest value of family:qualifier, or NULL (borrowed from r; delete markers of a
 * raw result are skipped). */
const char *strata_result_value(const strata_result_t *r, const char *family, size_t family_len,
                                const char *qualifier, size_t qualifier_len, size_t *len);
/* Whether more cells of this row follow in the next result (scans with batch). */
unsigned char strata_result_partial(const strata_result_t *r);

/* ---- single-row operations ---- */

/* Applies a put or delete (one row, atomically). */
void strata_table_mutate(strata_table_t *t, const strata_mutation_t *m, char **errptr);
/* The same, by the names HBase users look for. */
void strata_table_put(strata_table_t *t, const strata_mutation_t *put, char **errptr);
void strata_table_delete(strata_table_t *t, const strata_mutation_t *del, char **errptr);
/* The row's cells (an empty result if none), or NULL on failure. */
strata_result_t *strata_table_get(strata_table_t *t, const strata_get_t *g, char **errptr);
/* Applies m (same row) if `value <op> existing value of family:qualifier`; value NULL:
 * if the cell is absent. Returns 1 if applied, 0 if not (or on failure). */
unsigned char strata_table_check_and_mutate(strata_table_t *t, const char *family,
                                            size_t family_len, const char *qualifier,
                                            size_t qualifier_len, strata_compare_op op,
                                            const char *value, size_t value_len,
                                            const strata_mutation_t *m, char **errptr);
/* Adds amount to the 8-byte big-endian counter and returns the new value. */
int64_t strata_table_increment(strata_table_t *t, const char *row, size_t row_len,
                               const char *family, size_t family_len, const char *qualifier,
                               size_t qualifier_len, int64_t amount, char **errptr);
/* Applies an increment or append (strata_increment_create / strata_append_create) to its
 * row atomically and returns the new values of its columns (the caller's result), NULL on
 * failure; a put or delete is STRATA_ERR_INVALID_ARGUMENT. */
strata_result_t *strata_table_read_modify_write(strata_table_t *t, const strata_mutation_t *m,
                                                char **errptr);
/* Appends to the cell; returns the new value (malloc'ed, free with strata_free). */
char *strata_table_append(strata_table_t *t, const char *row, size_t row_len, const char *family,
                          size_t family_len, const char *qualifier, size_t qualifier_len,
                          const char *value, size_t value_len, size_t *new_len, char **errptr);

/* ---- scans ---- */

strata_scan_t *strata_scan_create(void);
void strata_scan_destroy(strata_scan_t *s);
/* Forward: start inclusive, stop exclusive. Reversed: start is the upper bound
 * (inclusive), stop the lower (exclusive). Empty: unbounded. */
void strata_scan_set_start(strata_scan_t *s, const char *row, size_t len);
void strata_scan_set_stop(strata_scan_t *s, const char *row, size_t len);
void strata_scan_add_column(strata_scan_t *s, const char *family, size_t family_len,
                            const char *qualifier, size_t qualifier_len);
void strata_scan_set_reversed(strata_scan_t *s, unsigned char reversed);
void strata_scan_set_caching(strata_scan_t *s, uint32_t rows); /* rows per RPC, default 100 */
void strata_scan_set_batch(strata_scan_t *s, uint32_t cells);  /* cells per result, 0 = row */
void strata_scan_set_limit(strata_scan_t *s, uint64_t rows);   /* 0 = no limit */
void strata_scan_set_max_versions(strata_scan_t *s, uint32_t n);
void strata_scan_set_time_range(strata_scan_t *s, int64_t from, int64_t to);
void strata_scan_set_filter(strata_scan_t *s, const char *filter);
/* A raw scan (HBase's Scan.setRaw): also the delete markers and the versions they mask,
 * every stored version up to max_versions, each cell with its strata_result_cell_type.
 * What a major compaction has dropped is gone for raw scans too. Default 0. */
void strata_scan_set_raw(strata_scan_t *s, unsigned char raw);
/* Operation attributes of the scan (see "operation attributes" above), sent when each
 * region's server scanner opens. */
void strata_scan_set_attribute(strata_scan_t *s, const char *name, const char *value,
                               size_t value_len, char **errptr);
const char *strata_scan_attribute(const strata_scan_t *s, const char *name, size_t *len);

/* Scan metrics (HBase's ScanMetrics). A scan whose attribute STRATA_SCAN_METRICS_ATTRIBUTE
 * has a non-zero first byte has its metrics counted: by the scanner (RPCs, retries,
 * regions, result bytes, time between RPCs) and by the region servers (rows scanned and
 * filtered, sent back with each answer). strata_scan_set_metrics_enabled(s, 1) sets it to
 * the byte 0xFF, as HBase's Scan.setScanMetricsEnabled(true) does (0: the byte 0x00, off).
 * Default off. */
#define STRATA_SCAN_METRICS_ATTRIBUTE "scan.attributes.metrics.enable"
void strata_scan_set_metrics_enabled(strata_scan_t *s, unsigned char enabled);
unsigned char strata_scan_metrics_enabled(const strata_scan_t *s);

/* Starts a scan over every region of the table in [start, stop); no RPC yet. The scan
 * options are copied. */
strata_scanner_t *strata_table_scan(strata_table_t *t, const strata_scan_t *s, char **errptr);
/* The next row (or part of a row, with batch); NULL at the end or on failure (*errptr
 * tells which). */
strata_result_t *strata_scanner_next(strata_scanner_t *sc, char **errptr);
/* One scan metric: HBase's name (static) and its value. */
typedef struct strata_scan_metric {
    const char *name;
    int64_t value;
} strata_scan_metric;

/* The metrics HBase's ScanMetrics has that Strata counts, in alphabetical order of their
 * names: BYTES_IN_REMOTE_RESULTS, BYTES_IN_RESULTS, MILLIS_BETWEEN_NEXTS,
 * NOT_SERVING_REGION_EXCEPTION, REGIONS_SCANNED, REMOTE_RPC_CALLS, REMOTE_RPC_RETRIES,
 * ROWS_FILTERED, ROWS_SCANNED, RPC_CALLS, RPC_RETRIES (their meaning: docs/client.md,
 * "Scan metrics"). Later versions may add names; size arrays by the return value. */
#define STRATA_SCAN_METRICS_COUNT 11
/* The scanner's metrics so far (at any point of the scan, also after its end): fills
 * out[0..min(cap, n)) and returns n, the number of metrics; 0 when the scan does not
 * have metrics enabled. out may be NULL with cap 0 to ask for n. */
size_t strata_scanner_metrics(const strata_scanner_t *sc, strata_scan_metric *out, size_t cap);
/* Closes the server-side scanner if one is open. NULL is a no-op. */
void strata_scanner_close(strata_scanner_t *sc);

/* ---- batches ---- */

strata_batch_t *strata_batch_create(void);
void strata_batch_destroy(strata_batch_t *b);
/* Adds an action (copied); returns its index. */
size_t strata_batch_add_mutation(strata_batch_t *b, const strata_mutation_t *m);
size_t strata_batch_add_get(strata_batch_t *b, const strata_get_t *g);
size_t strata_batch_count(const strata_batch_t *b);
/* Runs every action, grouped per server into one Multi call each, retrying failed
 * actions. On failure of any action *errptr names how many failed and the first, and
 * begins with the first failed action's token (so strata_error_code gives its code). */
void strata_table_batch(strata_table_t *t, strata_batch_t *b, char **errptr);
/* After strata_table_batch: action i's error (borrowed; NULL if it succeeded; its code
 * by strata_error_code) and, for a get, its result (borrowed from b; NULL for a mutation
 * or a failure). */
const char *strata_batch_error(const strata_batch_t *b, size_t i);
const strata_result_t *strata_batch_result(const strata_batch_t *b, size_t i);

/* ---- buffered mutator ---- */

/* Buffers mutations and sends them as batches when buffer_size bytes (0: 2 MB) are
 * buffered, on strata_mutator_flush, or on close. */
strata_mutator_t *strata_mutator_create(strata_table_t *t, size_t buffer_size);
/* Buffers a copy of m; may flush, and then reports that flush's failures. */
void strata_mutator_mutate(strata_mutator_t *bm, const strata_mutation_t *m, char **errptr);
/* Sends everything buffered; on failure *errptr names how many failed and begins with
 * the first failed mutation's token. */
void strata_mutator_flush(strata_mutator_t *bm, char **errptr);
/* The mutations that failed in the last flush: count, then row and error of each
 * (borrowed until the next flush; codes by strata_error_code). */
size_t strata_mutator_failed_count(const strata_mutator_t *bm);
const char *strata_mutator_failed_row(const strata_mutator_t *bm, size_t i, size_t *len);
const char *strata_mutator_failed_error(const strata_mutator_t *bm, size_t i);
/* Buffered bytes not yet sent. */
size_t strata_mutator_buffered(const strata_mutator_t *bm);
/* Flushes and frees. */
void strata_mutator_close(strata_mutator_t *bm, char **errptr);

#ifdef __cplusplus
}
#endif

#endif
