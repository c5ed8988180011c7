/*
 * client_internal.h - what the client's files share behind strata.h: the handle
 * structs, the mutation/get builders' storage and their protobuf encoding, results, and
 * the region-call loop (locate through the cache, call, classify the failure, back off,
 * retry within the operation timeout).
 *
 * Thread-safety: a strata_client's rpc client, location cache and locator are each
 * safe from any thread; the client struct itself is immutable after open. Builders and
 * results are single-owner.
 */
#ifndef STRATA_CLIENT_CLIENT_INTERNAL_H
#define STRATA_CLIENT_CLIENT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "client/location_cache.h"
#include "client/locator.h"
#include "client/retry.h"
#include "client/server_tracker.h"
#include "common/buf.h"
#include "common/proto/client.pb-c.h"
#include "common/rpc/rpc_client.h"
#include "strata/strata.h"

#define CLIENT_DEFAULT_OPERATION_TIMEOUT_MS 60000
#define CLIENT_DEFAULT_RPC_TIMEOUT_MS 10000
#define CLIENT_DEFAULT_CACHING 100
#define CLIENT_DEFAULT_MUTATOR_BUFFER (2u * 1024 * 1024)
/* How long a server whose call timed out or whose connection failed stays suspect (the
 * RPC timeout if that is shorter). */
#define CLIENT_DEFAULT_SUSPECT_MS 2000
/* Consecutive failures of one operation retried at once, following the cluster's recovery
 * (a lookup that waits on the master), before the backoff table takes over. */
#define CLIENT_FOLLOW_RETRIES 8
/* A region answering "opening" is polled this often, at most CLIENT_OPENING_POLLS times
 * an operation (2 s), before the backoff table takes over. */
#define CLIENT_OPENING_PAUSE_MS 10
#define CLIENT_OPENING_POLLS 200

typedef struct opt_region {
    char *table, *name, *host_port;
    buf_t start, end;
} opt_region;

struct strata_options {
    char *zk_quorum; /* set: the master locator (takes precedence over the others) */
    char *zk_parent;
    char *locator_file;
    opt_region *regions; /* a fixed list given in code */
    size_t nregions;
    int operation_timeout_ms;
    int rpc_timeout_ms;
    int retries;
    int pause_ms;
};

struct strata_client {
    rpc_client *rpc;
    loccache *cache;
    locator *loc;
    srvtrack *track; /* region-server health (ZooKeeper watch when there is a quorum) */
    retry_config retry;
    int rpc_timeout_ms;
    int suspect_ms;
    pthread_mutex_t tables_mu; /* guards tables_loaded */
    bool tables_mu_init;
    char **tables_loaded;      /* tables whose whole region list was cached once */
    size_t ntables_loaded;
    _Atomic uint64_t moved_followed;  /* RegionMoved hints cached (moved_hint.c) */
    _Atomic uint64_t locator_lookups; /* cache misses sent to the locator (client_locate) */
};

/* A location an operation will not use again: the server (and region) its last attempt
 * failed on, so the next lookup waits on the master for a newer one. */
typedef struct client_avoid {
    bool set;
    char host[256];     /* "": no server (the region was not there): wait for it anywhere */
    uint16_t port;
    uint64_t start_code;
    char region[128]; /* encoded name */
} client_avoid;

struct strata_table {
    strata_client_t *c;
    char *name;
};

/* ---- operation attributes (op_attrs.c; bounds and checks: common/op_attr.h) ---- */

typedef struct op_attr_entry {
    char *name; /* NUL-terminated */
    uint8_t *value;
    size_t len;
} op_attr_entry;

/* A builder's attributes, in the order they were first set. */
typedef struct op_attrs {
    op_attr_entry *v;
    size_t n;
} op_attrs;

/* Sets name to value[0..len) (value NULL: removes name), replacing its value if set.
 * reserved (may be NULL) names an attribute that always has a place: other names fill at
 * most OP_ATTR_MAX_COUNT - 1 places while it is not set. ST_OK; ST_INVALID_ARGUMENT (a
 * bound of op_attr_check, too many names) or ST_NOMEM with st_errmsg() naming the
 * attribute, and a unchanged. */
int op_attrs_set(op_attrs *a, const char *name, const void *value, size_t len,
                 const char *reserved);
/* The attribute called name, or NULL. */
const op_attr_entry *op_attrs_find(const op_attrs *a, const char *name);
/* A deep copy of src into dst (empty before); aborts when out of memory, as builders do. */
void op_attrs_copy(op_attrs *dst, const op_attrs *src);
void op_attrs_clear(op_attrs *a);
/* Bytes the set takes (for the mutator's size accounting). */
size_t op_attrs_size(const op_attrs *a);

/* A protobuf view of a set (pointing into it): *n and *out for a message's attribute
 * field; op_attrs_pb_clear frees only what the view allocated. */
typedef struct op_attrs_pb {
    Strata__Client__NameBytesPair *pairs;
    Strata__Client__NameBytesPair **ptrs;
} op_attrs_pb;
int op_attrs_pb_build(op_attrs_pb *pb, const op_attrs *a, size_t *n,
                      Strata__Client__NameBytesPair ***out);
void op_attrs_pb_clear(op_attrs_pb *pb);

/* ---- builders (mutation.c) ---- */

typedef enum mut_kind { MUT_PUT = 0, MUT_DELETE = 1, MUT_INCREMENT = 2, MUT_APPEND = 3 } mut_kind;

typedef struct mut_cell {
    size_t fam, fam_len, qual, qual_len, val, val_len; /* offsets into data */
    int64_t ts;
    uint8_t type;
    bool has_qual;
} mut_cell;

struct strata_mutation {
    mut_kind kind;
    buf_t row;
    buf_t data;
    mut_cell *cells;
    size_t ncells, cap;
    op_attrs attrs;
};

typedef struct get_column {
    size_t fam, fam_len, qual, qual_len; /* offsets into data */
    bool has_qual;
} get_column;

/* Columns, versions, time range, filter and attributes: shared by gets and scans. */
typedef struct read_spec {
    buf_t data;
    get_column *cols;
    size_t ncols, cap;
    uint32_t max_versions; /* 0: server default */
    bool has_range;
    int64_t from, to;
    char *filter;
    op_attrs attrs;
} read_spec;

struct strata_get {
    buf_t row;
    read_spec spec;
};

/* A scan's options (scan.c; also read by admin_meta.c for the catalog's scans). */
struct strata_scan {
    buf_t start, stop;
    read_spec spec;
    bool reversed, raw;
    uint32_t caching, batch;
    uint64_t limit;
};

strata_mutation_t *mutation_new(mut_kind kind, const void *row, size_t row_len);
/* Adds one cell; value may be NULL for deletes. */
void mutation_add(strata_mutation_t *m, const void *fam, size_t fam_len, const void *qual,
                  size_t qual_len, bool has_qual, int64_t ts, uint8_t type, const void *val,
                  size_t val_len);
strata_mutation_t *mutation_copy(const strata_mutation_t *m);
/* Bytes the mutation takes in a buffer (for the mutator's size accounting). */
size_t mutation_size(const strata_mutation_t *m);
strata_get_t *get_copy(const strata_get_t *g);

void read_spec_clear(read_spec *s);
int read_spec_copy(read_spec *dst, const read_spec *src);
void read_spec_add_column(read_spec *s, const void *fam, size_t fam_len, const void *qual,
                          size_t qual_len);

/* Protobuf views of the builders: the messages point into the builder, which must
 * outlive them; *_pb_clear frees only what the view allocated. */
typedef struct mutation_pb {
    Strata__Client__MutationProto msg;
    Strata__Client__Cell *cells;
    Strata__Client__Cell **ptrs;
    op_attrs_pb attrs;
} mutation_pb;

typedef struct read_pb {
    Strata__Client__Column *cols;
    Strata__Client__Column **ptrs;
    Strata__Client__TimeRange range;
} read_pb;

typedef struct get_pb {
    Strata__Client__Get msg;
    read_pb rd;
    op_attrs_pb attrs;
} get_pb;

int mutation_pb_build(mutation_pb *pb, const strata_mutation_t *m);
void mutation_pb_clear(mutation_pb *pb);
int get_pb_build(get_pb *pb, const strata_get_t *g);
void get_pb_clear(get_pb *pb);
/* Fills columns, versions, time range and filter of a Get or Scan message. */
int read_pb_build(read_pb *pb, const read_spec *s, size_t *n_column,
                  Strata__Client__Column ***column, protobuf_c_boolean *has_max_versions,
                  uint32_t *max_versions, Strata__Client__TimeRange **time_range, char **filter);
void read_pb_clear(read_pb *pb);

/* ---- scan metrics (scan_metrics.c; docs/client.md "Scan metrics") ---- */

/* HBase's ScanMetrics names in alphabetical order (the order strata_scanner_metrics
 * gives them in). */
typedef enum scan_metric_id {
    SM_BYTES_IN_REMOTE_RESULTS = 0,
    SM_BYTES_IN_RESULTS,
    SM_MILLIS_BETWEEN_NEXTS,
    SM_NOT_SERVING_REGION_EXCEPTION,
    SM_REGIONS_SCANNED,
    SM_REMOTE_RPC_CALLS,
    SM_REMOTE_RPC_RETRIES,
    SM_ROWS_FILTERED,
    SM_ROWS_SCANNED,
    SM_RPC_CALLS,
    SM_RPC_RETRIES,
    SM_COUNT
} scan_metric_id;

/* One scanner's metrics; every update is a no-op unless on. */
typedef struct scan_metrics {
    bool on;
    int64_t v[SM_COUNT];
    uint64_t last_ms; /* the previous RPC for rows (or the scanner's start), clock_mono_ms */
} scan_metrics;

/* Whether the scan's attributes turn metrics on (OP_ATTR_SCAN_METRICS, a non-zero first
 * byte). */
bool scan_metrics_wanted(const op_attrs *a);
/* Starts counting (when on) from now. */
void scan_metrics_start(scan_metrics *m, bool on);
const char *scan_metrics_name(scan_metric_id id);
/* An RPC for rows is about to go: MILLIS_BETWEEN_NEXTS (time since the previous one). */
void scan_metrics_before_fetch(scan_metrics *m);
/* A Scan RPC (open, next or close) to a server, remote or not: RPC_CALLS and
 * REMOTE_RPC_CALLS. */
void scan_metrics_call(scan_metrics *m, bool remote);
/* A Scan RPC failed with status: NOT_SERVING_REGION_EXCEPTION for HBase's
 * NotServingRegionException and its subclasses (not serving, moved, opening). */
void scan_metrics_failed(scan_metrics *m, int status);
/* A call is tried again after a failure at a server: RPC_RETRIES, REMOTE_RPC_RETRIES. */
void scan_metrics_retry(scan_metrics *m, bool remote);
/* A region's scan begins: REGIONS_SCANNED. */
void scan_metrics_region(scan_metrics *m);
/* An answer: BYTES_IN_RESULTS (HBase's estimate: each cell's KeyValue size plus 4) and
 * BYTES_IN_REMOTE_RESULTS, and the server's counters (ROWS_SCANNED, ROWS_FILTERED) added. */
void scan_metrics_response(scan_metrics *m, const Strata__Client__ScanResponse *r, bool remote);
/* Whether host (a region server's, as the locator gives it) is this machine: a loopback
 * name or address, the host name, or an address of one of its interfaces. HBase's
 * ConnectionUtils.isRemote compares with the host name only. */
bool client_host_is_local(const char *host);

/* ---- results (result.c) ---- */

/* A copy of r's cells (r NULL: an empty result); cells without a row take row. NULL if
 * out of memory. */
strata_result_t *result_from_pb(const Strata__Client__Result *r, const void *row, size_t row_len);

/* ---- errors (error.c; the contract is strata.h's "Errors") ---- */

/* The public code of a Strata status (STRATA_ERR_INTERNAL for a code not in the table). */
strata_code client_public_code(int status);
/* The status whose name (st_strerror) begins msg, followed by ':' or the end: ST_OK for
 * NULL, ST_INTERNAL when no name matches. */
int client_message_status(const char *msg);

/* ---- errors and calls (client.c) ---- */

/* Sets *errptr to "<status name>: <st_errmsg()>", or just "<status name>" when there is
 * no message (freeing any previous message). */
void client_set_error(char **errptr, int rc);
/* Sets *errptr from a message that already begins with a status name. */
void client_set_error_msg(char **errptr, const char *msg);

/* Builds a request for the given region (encoded name) into req (reset first). */
typedef int (*client_build_fn)(void *arg, const char *region, buf_t *req);

/* The region-call loop for one row: locate, build, call method, retry as the failure
 * calls for within the operation timeout. ST_OK with the response body in *resp (old
 * content freed), or the final status with st_errmsg() set. */
int client_region_call(strata_client_t *c, const char *table, const uint8_t *row, size_t row_len,
                       const char *method, client_build_fn build, void *arg, buf_t *resp);

/* r as a cache entry borrowing r's strings and keys. */
loccache_entry client_entry_of(const locator_region *r);
/* Caches r (a copy; the regions it overlaps are dropped): loccache_insert's status. */
int client_cache_region(strata_client_t *c, const locator_region *r);
/* The cached location of table's region holding row, asking the locator on a miss:
 * ST_OK with a pinned entry (release with loccache_entry_release). The first lookup of a
 * table caches all its regions. A location on a server the tracker knows dead is not
 * used: the lookup waits on the master for the region to reopen. */
int client_locate(strata_client_t *c, const char *table, const uint8_t *row, size_t row_len,
                  const loccache_entry **out);
/* The same, not using avoid's location (may be NULL): when the cache holds it, or no
 * newer one, the locator is asked to wait (up to left_ms, -1: no limit) until the region
 * is open elsewhere. *waited (may be NULL) tells whether the answer came from such a wait. */
int client_locate_avoid(strata_client_t *c, const char *table, const uint8_t *row, size_t row_len,
                        const client_avoid *avoid, int64_t left_ms, const loccache_entry **out,
                        bool *waited);
/* Drops what a failed call's status says is stale: the entry (not serving, connection)
 * and, on a connection failure or a timeout, every region of its server, which becomes
 * suspect for a while. */
void client_note_failure(strata_client_t *c, const loccache_entry *e, int status);
/* Records e as the location to avoid after a failure with status, if the failure says
 * the region is elsewhere or the server unreachable; with e NULL (the lookup itself
 * failed) and ST_NOT_SERVING (the region is in transition), an empty location: the next
 * lookup waits for the region to open anywhere. Else clears avoid. */
void client_avoid_set(client_avoid *avoid, const loccache_entry *e, int status);
/* The pause before the next attempt, or a give-up status (retry_next, honouring the
 * server's retry_after_ms hint within the time left). */
int client_next_pause(retry_state *r, int status, uint32_t retry_after_ms, int64_t *pause_ms);
/* One operation's quick retries (client_follow_pause), zeroed at its start. */
typedef struct client_follow {
    int follows;       /* retried at once into a waiting lookup */
    int opening_polls; /* "region opening" polled */
} client_follow;

/* The pause after a failed attempt that follows the cluster's recovery: none when follow
 * (the failure set a location to avoid, and that location had not itself come from a
 * wait: the next lookup waits on the master instead; at most CLIENT_FOLLOW_RETRIES an
 * operation), CLIENT_OPENING_PAUSE_MS after ST_REGION_OPENING (at most
 * CLIENT_OPENING_POLLS); otherwise client_next_pause. */
int client_follow_pause(retry_state *r, int status, bool follow, client_follow *f, uint32_t hint,
                        int64_t *pause_ms);
/* Per-call timeout: the rpc timeout capped by the operation time left. */
int client_call_timeout(const strata_client_t *c, const retry_state *r);

/* ---- RegionMoved hints (moved_hint.c; docs/client.md "Moved regions") ---- */

#define MOVED_QUICK_PAUSE_MS 15    /* retry pause at a hinted server not yet serving */
#define MOVED_QUICK_WINDOW_MS 2000 /* how long after a hint those quick retries go on */
#define MOVED_MAX_IMMEDIATE 16     /* hints followed without a pause, per operation */
#define MOVED_MAX_SERVERS 4

/* One operation's hint-following state (on its stack; moved_follow_init). */
typedef struct moved_follow {
    int immediate;          /* hints followed at once so far */
    uint64_t window_end_ns; /* quick retries at the hinted servers until then; 0: none */
    char servers[MOVED_MAX_SERVERS][300]; /* "host:port" the last hint named */
    size_t nservers;
    uint64_t newest_ms; /* issued_ms of the newest hint followed; older ones are stale */
} moved_follow;

void moved_follow_init(moved_follow *f);
/* A packed RegionMovedHint (or the message) as regions of table: ST_OK with *out (*n >= 1,
 * free with locator_regions_free), or ST_PROTOCOL (undecodable, no region, a region
 * without a name or server) / ST_NOMEM with *out NULL. */
int moved_hint_decode(const char *table, const uint8_t *hint, size_t len, locator_region **out,
                      size_t *n);
int moved_hint_decode_msg(const char *table, const Strata__Client__RegionMovedHint *h,
                          locator_region **out, size_t *n);
/* Caches the hinted regions of table (each insert drops the regions it overlaps) and, in
 * f (may be NULL), notes their servers and opens the quick-retry window. ST_OK if at
 * least one was cached; else the decode failure or ST_NOT_SERVING (nothing changed),
 * also for a hint older (issued_ms) than one f already followed: a server the region left
 * earlier keeps its old hint until the region opens there again. */
int moved_hint_apply(strata_client_t *c, const char *table, const uint8_t *hint, size_t len,
                     moved_follow *f);
int moved_hint_apply_msg(strata_client_t *c, const char *table,
                         const Strata__Client__RegionMovedHint *h, moved_follow *f);
/* After an attempt at addr ("host:port") failed with status (hinted: its hint was just
 * cached by moved_hint_apply): true when the next attempt goes without a backoff step,
 * keeping the cached location, after *pause_ms (0 for a followed hint,
 * MOVED_QUICK_PAUSE_MS at a hinted server not serving yet). False: the usual path. */
bool moved_follow_retry(moved_follow *f, const char *addr, int status, bool hinted,
                        int64_t *pause_ms);
/* Takes one of the operation's MOVED_MAX_IMMEDIATE unpaced retries: false once they are
 * spent or the operation deadline has passed (then the usual backoff path runs). */
bool moved_follow_step(moved_follow *f, const retry_state *r);
/* The single-call form for client_region_call: after an attempt at e failed with status
 * and result res, caches res's hint (freeing it) and, when moved_follow_retry and
 * moved_follow_step allow, sleeps its short pause and returns true: retry at once,
 * without client_note_failure or a backoff step. */
bool client_moved_retry(strata_client_t *c, const char *table, moved_follow *f,
                        const loccache_entry *e, int status, rpc_result *res, const retry_state *r);
/* Counters since open, for tests and stats: hints cached, locator lookups. */
uint64_t client_moved_hints_followed(strata_client_t *c);
uint64_t client_locator_lookups(strata_client_t *c);

/* ---- batches (batch.c), shared with the mutator ---- */

typedef struct batch_action {
    strata_mutation_t *mut; /* exactly one of mut and get */
    strata_get_t *get;
    strata_result_t *result; /* a get's result */
    char *error;             /* NULL: succeeded (or not run) */
    bool done;
    client_avoid avoid; /* where its last attempt failed */
} batch_action;

/* Runs actions[0..n) of table, filling each action's result or error; returns how many
 * failed. */
size_t batch_run(strata_client_t *c, const char *table, batch_action *actions, size_t n);

#endif
