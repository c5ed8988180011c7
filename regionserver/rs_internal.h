/*
 * rs_internal.h - the region server's private parts, shared by rs_server.c (lifecycle),
 * rs_regions.c (the table of online regions), rs_scanners.c (server-side scanners and
 * their leases), rs_client_service.c, rs_admin_service.c, rs_convert.c, rs_attrs.c
 * (operation attributes), rs_cluster.c and rs_http.c (status pages and metrics).
 *
 * Region states (rs_regions.c):
 *
 *     (absent) --rs_region_open--> OPENING --region_open ok--> OPEN
 *        ^                            |                          |
 *        +------ region_open failed --+            rs_region_close: CLOSING
 *        +------------------------------ region_close ok --------+
 *                                       (region_close failed: back to OPEN)
 *
 * A call on a region holds it with rs_region_acquire/rs_region_release (inflight count);
 * an open scanner holds it too (scanners count). rs_region_close marks the region
 * CLOSING (new calls get ST_NOT_SERVING), kills the region's scanners (waiting for a
 * scanner's call in progress), waits until inflight and scanners are 0, then
 * region_close()s it: region_close requires that nothing else uses the region.
 *
 * Cluster mode (zk.quorum set; rs_cluster.c): rs_region_open creates the region's
 * ownership znode once the OPENING entry is in the table and deletes it again if the open
 * fails; rs_region_close deletes it after a flushed close, while the entry is still
 * CLOSING (so no open of the same name can start in between).
 *
 * Locks: scan_mu (scanner table) is taken before mu (region table); neither is held
 * while calling into a region, except that scanners are freed under scan_mu. cl.mu
 * (the cluster thread's wake-up) is taken alone. No lock is held over a ZooKeeper call.
 * The HTTP page lock (rs_http.c) is taken before mu and scan_mu, each of those briefly.
 */
#ifndef STRATA_REGIONSERVER_RS_INTERNAL_H
#define STRATA_REGIONSERVER_RS_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/config.h"
#include "common/scratch.h"
#include "common/rpc/rpc_client.h"
#include "common/zk/zk.h"
#include "common/proto/admin.pb-c.h"
#include "common/proto/client.pb-c.h"
#include "common/rpc/rpc_server.h"
#include "regionserver/storage/engine.h"
#include "regionserver/storage/region.h"
#include "regionserver/storage/schema_proto.h"
#include "regionserver/storage/split_policy.h"
#include "regionserver/rs_moved.h"
#include "regionserver/rs_server.h"

typedef enum rs_region_state {
    RS_REGION_OPENING = 0,
    RS_REGION_OPEN = 1,
    RS_REGION_CLOSING = 2,
} rs_region_state;

typedef struct rs_region {
    char name[64]; /* encoded name */
    region *r;     /* NULL while OPENING */
    rs_region_state state;
    int inflight; /* calls holding the region (under rs_server.mu) */
    int scanners; /* open scanners on it (under rs_server.mu) */
} rs_region;

typedef struct rs_scanner rs_scanner;

/* Cluster membership (rs_cluster.c). Everything stays zero while quorum is "". */
typedef struct rs_cluster {
    /* settings */
    char quorum[1024];
    char parent[256];
    int session_timeout_ms;
    int http_port;
    int report_interval_ms;
    double fence_fraction;

    zk *z;          /* open from rs_cluster_join to rs_cluster_finish */
    char *rs_path;  /* <parent>/rs/<server name> once created */
    _Atomic int64_t heard_ns; /* send time of the last ping ZooKeeper answered */
    atomic_bool stopping;     /* a graceful stop began: no more opens, no more reports */
    atomic_bool fenced;       /* the last write check failed (logged once per episode) */
    /* Write calls (Mutate, a Multi holding a mutation) answered OK and refused by the
     * fence, and the wall time (ms) of the last one answered OK: a partitioned server's
     * last acknowledgement can be compared with when its regions reopened elsewhere. */
    _Atomic uint64_t writes_acked, writes_fenced;
    _Atomic int64_t last_ack_ms;
    rpc_client *master;       /* to the active master */

    /* the cluster thread: pings and heartbeats */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    pthread_t thread;
    bool thread_started;
    bool thread_stop;              /* under mu */
    char master_addr[300];         /* cluster thread only: "host:port", "" = look it up */
    atomic_bool report_inflight;   /* a heartbeat awaits its answer */
    atomic_bool master_stale;      /* the last heartbeat failed: look the master up again */
    atomic_bool registered;        /* <parent>/rs/<server name> exists (register .. finish) */
    _Atomic int session_ms;        /* negotiated session timeout, set when registered */
} rs_cluster;

#define RS_SPLIT_QUEUE_MAX 256
#define RS_SPLIT_RECENT 64

struct rs_server {
    /* settings */
    char host[256];
    char advertised_host[256];
    int port_cfg;
    char ready_file[PATH_MAX];
    int64_t lease_ms;
    uint64_t max_result_size;
    uint64_t default_flushsize;
    split_defaults split; /* for split_policy_configure of each region (regionserver.split.*,
                             max.filesize*, increasing.policy.initial.size) */
    uint64_t start_code;
    char server_name[512]; /* "<advertised host>,<port>,<start code>": the WAL dir name */
    engine_options eopts;
    rpc_server_opts ropts;
    char root[PATH_MAX];
    int64_t inject_open_pause_ms; /* tests only (regionserver.inject.open.pause.ms) */

    engine *eng;
    rpc_server *rpc;
    atomic_bool serving;

    /* online regions */
    pthread_mutex_t mu;
    pthread_cond_t cv; /* inflight/scanners reached 0, or a state changed */
    rs_region **regions;
    size_t nregions, cap;
    rs_moved *moved; /* regions closed here for a move, split or merge (rs_moved.h) */

    /* scanners */
    pthread_mutex_t scan_mu;
    pthread_cond_t scan_cv; /* a scanner stopped being busy */
    rs_scanner **scanners;
    size_t nscanners, scap;
    uint64_t next_scanner_id;
    pthread_t reaper;
    bool reaper_started;
    bool reaper_stop;
    pthread_cond_t reaper_cv;

    rs_cluster cl;
    struct rs_http *http; /* status pages and metrics (rs_http.c); NULL if not serving HTTP */

    /* the split trigger (rs_split.c) */
    pthread_mutex_t split_mu;
    pthread_cond_t split_cv;
    pthread_t split_thread;
    bool split_started, split_stop;
    char split_queue[RS_SPLIT_QUEUE_MAX][64]; /* regions to check, under split_mu */
    size_t split_n;
    struct {
        char name[64];
        int64_t ms;
    } split_recent[RS_SPLIT_RECENT]; /* splitter thread only */
};

/* ---- allocation pool for building one response (freed together) ---- */
typedef struct rs_pool_result_node rs_pool_result_node;
typedef struct rs_pool {
    scratch_t mem;                 /* every allocation (common/scratch.h) */
    rs_pool_result_node *results;  /* in mem; their cells are freed with the pool */
} rs_pool;

void *rs_pool_alloc(rs_pool *p, size_t size); /* zeroed; NULL when out of memory */
scan_result *rs_pool_result(rs_pool *p);      /* an initialised result freed with the pool */
void rs_pool_free(rs_pool *p);

/* ---- regions (rs_regions.c) ---- */
int rs_region_acquire(rs_server *s, const char *name, rs_region **out);
/* The same for a client call: a region that is not online (or closing) here but was
 * closed for a move, split or merge fails ST_REGION_MOVED "region R moved from S" with the
 * packed RegionMovedHint in *hint (its old content replaced; hint NULL: ST_NOT_SERVING as
 * rs_region_acquire). */
int rs_region_acquire_hint(rs_server *s, const char *name, rs_region **out, buf_t *hint);
void rs_region_release(rs_server *s, rs_region *reg);
/* Opens one region: OPENED, ALREADY_OPENED, or FAILED_OPENING (error logged). */
int rs_region_open(rs_server *s, const table_schema *schema, const region_info *info);
/* The same, with the status behind a FAILED_OPENING in *why (ST_OK otherwise) and its
 * message in st_errmsg(): ST_EXISTS when another server owns the region. */
int rs_region_open_status(rs_server *s, const table_schema *schema, const region_info *info,
                          int *why);
/* Closes a region; in cluster mode a flushed close also gives up its ownership znode. */
int rs_region_close(rs_server *s, const char *name, bool flush);
/* The same for a close that the master sent with where the region goes (hint: a packed
 * RegionMovedHint, NULL/0 for none): the hint is kept from the start of the close, so
 * calls that find the region closing or gone get ST_REGION_MOVED; it is dropped if the
 * close fails. */
int rs_region_close_moved(rs_server *s, const char *name, const uint8_t *hint, size_t hint_len);
/* Closes every region (flush; on a failed flush the region is closed without one and its
 * edits stay in the WAL). Returns the number of regions that could not be flushed. */
int rs_region_close_all(rs_server *s);
/* Copies the online regions (state OPEN), each acquired; release each with
 * rs_region_release and free the array. */
int rs_region_list(rs_server *s, rs_region ***out, size_t *n);

/* ---- split (rs_split.c) ---- */
/* Where r would split: the best split row adjusted by the table's policy into row (empty
 * when it cannot split, with the reason in why), whether a store holds references, and
 * whether the policy refuses every split (DisabledRegionSplitPolicy). */
int rs_split_point(rs_server *s, region *r, buf_t *row, bool *has_refs, bool *disabled,
                   char *why, size_t cap);
/* The engine's after-maintenance hook (arg: the server): queues r for a policy check. */
void rs_split_after_maint(void *arg, region *r, bool compaction);
/* The splitter thread (cluster mode only). */
int rs_split_start(rs_server *s);
void rs_split_stop(rs_server *s);

/* ---- scanners (rs_scanners.c) ---- */
int rs_scanners_start(rs_server *s);
void rs_scanners_stop(rs_server *s); /* joins the reaper and frees every scanner */
/* Kills the scanners of reg (waiting for a call in progress on one); later calls on
 * them get ST_NOT_SERVING. */
void rs_scanners_kill_region(rs_server *s, rs_region *reg);
uint64_t rs_scanners_count(rs_server *s);
int rs_handle_scan(void *ctx, const rpc_request *req, rpc_reply *reply);

/* ---- cluster membership (rs_cluster.c); each is a no-op returning ST_OK standalone ---- */
/* Reads zk.*, regionserver.http.port, .report.interval.ms and .fence.fraction, and
 * initialises cl's lock. ST_INVALID_ARGUMENT naming a key out of range. */
int rs_cluster_init(const config *c, rs_server *s);
void rs_cluster_destroy(rs_server *s); /* after rs_cluster_finish */
bool rs_cluster_enabled(const rs_server *s);
/* Opens the ZooKeeper session (an expiry later aborts the process with status 70) and
 * creates <parent>, <parent>/rs and <parent>/region-owner. ST_TIMEOUT naming the quorum
 * if ZooKeeper cannot be reached. */
int rs_cluster_join(rs_server *s);
/* Once serving: creates the ephemeral <parent>/rs/<server name> and starts the thread
 * that pings ZooKeeper and heartbeats to the active master. */
int rs_cluster_register(rs_server *s);
/* One call of method on the active master (looked up in ZooKeeper), no answer kept. */
int rs_cluster_master_call(rs_server *s, const char *method, const ProtobufCMessage *req,
                           int timeout_ms);
/* Creates <parent>/region-owner/<encoded name> under this session: ST_OK if made or
 * already ours, ST_EXISTS "region R is owned by server S", or the ZooKeeper failure. */
int rs_cluster_claim(rs_server *s, const region_info *info);
/* Deletes the region's ownership znode (a missing one is fine; failures are logged). */
void rs_cluster_disclaim(rs_server *s, const char *encoded_name);
/* Self-fencing, for every write before it is applied and again before it is answered:
 * ST_OK while ZooKeeper was heard from within fence.fraction x the session timeout,
 * else ST_NOT_SERVING "region server S is fenced: ...". Reads no ZooKeeper. */
int rs_cluster_check_fence(rs_server *s);
/* Counts a write call answered OK (writes_acked, last_ack_ms). */
void rs_cluster_note_ack(rs_server *s);
/* ST_OK, or ST_CLOSED while a graceful stop runs (no region may be opened any more). */
int rs_cluster_check_open(rs_server *s);
/* First step of a graceful stop, while RPC still serves: refuses new opens, stops the
 * cluster thread, then closes each open region with a flush, gives up its ownership
 * znode and reports it closed to the active master (server_stopping). A region whose
 * flush fails stays open and keeps its znode. */
void rs_cluster_leave(rs_server *s);
/* Last step of a stop: deletes <parent>/rs/<server name>, closes the session and the
 * master client. Idempotent. */
void rs_cluster_finish(rs_server *s);

/* ---- HTTP: status pages and metrics (rs_http.c, docs/http.md) ---- */
/* Serves HTTP on regionserver.host : regionserver.http.port (0: any free port, -1: none)
 * and sets cl.http_port to the bound port (0 without HTTP), which is what ZooKeeper and
 * the heartbeats advertise. A port that cannot be bound is logged and the server runs
 * without HTTP. ST_OK, or ST_NOMEM. */
int rs_http_start(rs_server *s);
/* Before the engine closes: pages stop reading it (waits for a page in progress). */
void rs_http_engine_closing(rs_server *s);
/* Stops and frees the HTTP server. Idempotent. */
void rs_http_stop(rs_server *s);

/* ---- services ---- */
int rs_client_service_register(rs_server *s);
int rs_admin_service_register(rs_server *s);

/* ---- conversion (rs_convert.c) ---- */
/* ST_SERVER_BUSY while the server is starting or stopping. */
int rs_check_serving(rs_server *s, rpc_reply *reply);

void rs_load_to_proto(region *r, Strata__Admin__RegionLoad *out);
/* The load of every region open now and their sums (what GetServerLoad answers and the
 * heartbeat carries). The loads are allocated in pool and borrow the regions' names, so
 * the regions stay held until rs_loads_release (after the answer is packed). */
typedef struct rs_loads {
    Strata__Admin__RegionLoad **region;
    size_t n;
    uint64_t read_requests, write_requests, memstore_size, store_files, store_file_size;
    rs_region **held; /* the regions, held (rs_region_acquire) */
    size_t nheld;
} rs_loads;
int rs_server_loads(rs_server *s, rs_pool *pool, rs_loads *out);
/* Releases the regions rs_server_loads held. */
void rs_loads_release(rs_server *s, rs_loads *l);

/* Read options of a Get or Scan into spec (columns and filter allocated in pool / owned
 * by *flt). ST_UNKNOWN_FAMILY naming a family the region does not have,
 * ST_INVALID_ARGUMENT for a bad filter string. */
int rs_spec_from_get(region *r, const Strata__Client__Get *g, rs_pool *pool, scan_spec *spec,
                     filter **flt);
int rs_spec_from_scan(region *r, const Strata__Client__Scan *sc, rs_pool *pool,
                      scan_spec *spec, filter **flt);

/* Fills out (cells allocated in pool, bytes borrowed from res). */
int rs_result_to_proto(const scan_result *res, rs_pool *pool, Strata__Client__Result *out);

/* Runs one mutation (Put, Delete, Increment, Append; with cond: CheckAndMutate) on r;
 * *result (may be NULL) gets Increment/Append's new cells, *processed whether it was
 * applied. */
int rs_mutate(region *r, const Strata__Client__MutationProto *m,
              const Strata__Client__Condition *cond, rs_pool *pool, Strata__Client__Result **result,
              bool *processed);
/* Builds r's mutation struct for a Put or Delete (cells in pool). */
int rs_mutation_from_proto(region *r, const Strata__Client__MutationProto *m, rs_pool *pool,
                           mutation *out);
/* Appends "(region R, row 'X')" to this thread's error message and returns rc. */
int rs_error_ctx(int rc, const char *region_name, const uint8_t *row, size_t row_len);

/* ---- operation attributes (rs_attrs.c) ---- */

/* Checks the attributes of operation op ("Get", "Put", "Scan", ...) on r for row (a scan's
 * start row) before anything of it runs (op_attr_check_set: at most 64, names 1..256
 * bytes, values up to 64 KiB, each name once) and logs them at debug level. ST_OK, or
 * ST_INVALID_ARGUMENT naming the operation, the attribute, the region and the row. */
int rs_attrs_check(region *r, const char *op, const uint8_t *row, size_t row_len,
                   Strata__Client__NameBytesPair *const *attrs, size_t n);
/* "Put", "Delete", "Increment" or "Append". */
const char *rs_mutation_kind(const Strata__Client__MutationProto *m);

#endif
