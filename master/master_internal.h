/*
 * master_internal.h - the master's private parts, shared by master.c (lifecycle,
 * election, activation), master_servers.c (region-server tracking, heartbeats, crash
 * recovery), master_assign.c (the region state machine), master_ddl.c (tables and
 * namespaces), master_service.c (MasterService handlers), master_chore.c (the
 * background loop that keeps every region of an enabled table open) and master_http.c
 * (status pages and metrics).
 *
 * In memory the master mirrors meta: tables, each with its regions sorted by start key,
 * plus the live region servers. Every change of a region's state is written to meta
 * first (master_persist) and then made visible in memory.
 *
 * Region ownership inside the master: an operation on a region (assign, unassign, move,
 * crash recovery, DDL) first takes the region with master_region_take (waits while another
 * operation has it: `busy`) and gives it back with master_region_give. A DDL also marks its
 * table busy so that two DDLs on one table do not interleave. The state of a region may
 * only be changed by the operation that has it.
 *
 * Locks: `mu` guards the tables, regions' in-memory fields, servers and queues. It is never
 * held across an RPC, a ZooKeeper call or a meta write.
 */
#ifndef STRATA_MASTER_MASTER_INTERNAL_H
#define STRATA_MASTER_MASTER_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/http/http_server.h"
#include "common/http/status_pages.h"
#include "common/proto/admin.pb-c.h"
#include "common/proto/master.pb-c.h"
#include "common/rpc/rpc_client.h"
#include "common/rpc/rpc_server.h"
#include "common/server_name.h"
#include "common/zk/zk.h"
#include "common/zk/znodes.h"
#include "master/balancer.h"
#include "master/master.h"
#include "meta/meta.h"
#include "regionserver/storage/engine.h"
#include "regionserver/storage/schema.h"

#define MASTER_VERSION "0.1.0"

/* What the master calls outside its process (master_ops.c). Each function has the
 * contract of the rpc_proto.h / zk.h call it stands for; ctx is the table's context. */
typedef struct master_ops {
    /* One call of method on a region server at addr; on ST_OK the answer is unpacked as
     * resp_desc into *resp when both are given. */
    int (*rs_call)(void *ctx, const char *addr, const char *method, const ProtobufCMessage *req,
                   int timeout_ms, const ProtobufCMessageDescriptor *resp_desc,
                   ProtobufCMessage **resp);
    int (*zk_get)(void *ctx, const char *path, uint8_t **data, size_t *len, zk_stat *st);
    int (*zk_set)(void *ctx, const char *path, const void *data, size_t len); /* any version */
    int (*zk_create)(void *ctx, const char *path, const void *data, size_t len, int flags);
    int (*zk_delete)(void *ctx, const char *path); /* any version */
    int (*zk_children)(void *ctx, const char *path, char ***names, size_t *n);
    int (*zk_ping)(void *ctx);
    int (*zk_session_timeout_ms)(void *ctx);
} master_ops;

/* One heartbeat's request counters of a region (the balancer's load window). */
typedef struct m_load_sample {
    int64_t ms;
    uint64_t reads, writes;
} m_load_sample;
#define M_LOAD_SAMPLES 32

typedef struct m_region {
    meta_region mr;      /* the row as last written to meta */
    bool busy;           /* an operation has it (master_region_take) */
    int64_t since_ms;    /* wall-clock ms the current state began */
    int64_t retry_at_ms; /* FAILED_OPEN: the chore tries again from then on */
    char target[SERVER_NAME_MAX]; /* server picked for an open not yet written to meta */
    /* Left the table's regions (a split parent, a merged parent): whoever takes it by a
     * pointer read before leaves it alone (master_assign, master_unassign, master_repair). */
    bool retired;
    /* Request counters from the last heartbeats of the server in load_server (a hash of its
     * name), oldest first in the ring (master_balancer.c); mu. */
    m_load_sample load[M_LOAD_SAMPLES];
    unsigned nload, load_head;
    uint64_t load_server;
} m_region;

typedef struct m_table {
    char name[256];
    uint8_t *schema; /* packed strata.admin.TableSchema */
    size_t schema_len;
    meta_table_state state;
    int64_t state_ms;   /* wall-clock ms state was last set (hbck's TABLE_STUCK_*) */
    m_region **regions; /* sorted by start key; they tile the table's key space */
    size_t n, cap;
    m_region **parents; /* split parents the catalog janitor has not removed yet */
    size_t nparents, parents_cap;
    /* Regions that left the table (split parents cleaned, merged parents): an operation
     * that read a pointer before may still wait to take one, so they are freed with the
     * table. */
    m_region **gone;
    size_t ngone, gone_cap;
    bool busy; /* a DDL has the table */
    /* An alter reopening the regions (mu): alter_done of alter_total reopened so far. */
    bool altering;
    size_t alter_done, alter_total;
    int procs; /* splits and merges running on it (mu); a DDL waits for 0 */
    int users; /* chore/recovery passes holding a pointer to it (mu); free waits for 0 */
} m_table;

typedef struct m_server {
    server_name sn;
    char name[SERVER_NAME_MAX]; /* "host,port,startcode" */
    char addr[300];             /* "host:port" */
    uint32_t http_port;
    bool stopping; /* it reported a graceful stop: no new regions */
    bool reported; /* it has sent this master a heartbeat: it really runs */
    Strata__Master__RegionServerReportRequest *report; /* last heartbeat (owned) */
    int64_t report_ms;
    uint64_t prev_total;
    int64_t prev_ms;
    double rps;
} m_server;

struct master {
    /* settings */
    char host[256];
    char advertised_host[256];
    int port_cfg;
    int http_port; /* master.http.port until HTTP starts, then the bound port (0: none) */
    char ready_file[PATH_MAX];
    char root[PATH_MAX];
    char quorum[1024];
    char parent[256];
    int session_timeout_ms;
    int chore_ms;
    int rpc_timeout_ms;
    int assign_attempts;
    int64_t failed_open_retry_ms;
    double fence_fraction;
    int64_t reconcile_grace_ms;
    int handler_threads;
    uint64_t block_cache_bytes;

    server_name sn;
    char name[SERVER_NAME_MAX];
    uint64_t start_code;

    rpc_server *rpc;
    http_server *http; /* status pages and metrics (master_http.c); NULL if none */
    status_pages pages; /* their binding to http */
    rpc_client *rpcc;
    zk *z;
    const master_ops *ops; /* region servers and ZooKeeper (master_ops.c) */
    void *ops_ctx;
    engine *eng;
    meta *meta;
    atomic_bool active;
    atomic_bool stopping;
    _Atomic int64_t lease_ns; /* send time (clock_mono_ns) of the last answered ping */
    int64_t active_since_ms;
    char cluster_id[40];

    pthread_mutex_t sync_mu; /* one master_servers_sync at a time (taken before mu) */
    pthread_mutex_t mu;
    pthread_cond_t cv;       /* a region or table was given back; the queue changed */
    pthread_cond_t chore_cv; /* wakes the chore or the election */
    m_table **tables;        /* sorted by name */
    size_t ntables, tcap;
    m_server **servers; /* live region servers */
    size_t nservers, scap;
    char **dead; /* dead servers (names), newest last, at most MASTER_DEAD_KEPT */
    size_t ndead;
    char **crash; /* dead servers whose recovery has not finished */
    size_t ncrash, ccap;
    bool rs_changed;        /* the rs children watch fired */
    bool crash_queued;      /* a recovery was queued since the chore took the queue */
    bool master_node_gone;  /* the master znode went (election) */
    bool chore_stop;
    pthread_t election_thr, chore_thr;
    bool election_started, chore_started;

    /* procedures (master_proc.c), under mu */
    struct m_proc **procs; /* running ones and the last MASTER_PROCS_KEPT that ended */
    size_t nprocs, procs_cap;
    uint64_t last_proc_id;
    int proc_threads; /* threads finishing procedures or normalizing (master_stop waits) */
    /* switches (master_proc.c): split/merge/normalizer mirrored in ZooKeeper */
    atomic_bool switch_split, switch_merge, switch_normalizer, switch_janitor, switch_balancer;
    /* the balancer (master_balancer.c) */
    pthread_mutex_t balancer_mu; /* one run at a time (held for the whole run) */
    bal_config bal_cfg;
    int64_t balancer_period_ms;
    int64_t balancer_max_run_ms;   /* no move starts later than this into a run */
    int balancer_moves_per_server; /* moves one server takes part in at once */
    int64_t load_window_ms;        /* request rates are over this much of the heartbeats */
    int64_t balancer_last_ms;      /* when the chore last started a run (mu) */
    struct master_balance_run *bal_last; /* the last run that ran (mu); NULL before */
    _Atomic uint64_t balancer_runs, balancer_moves;
    /* split and merge (master_split.c, master_janitor.c) */
    int64_t janitor_interval_ms;
    _Atomic int64_t janitor_last_ms;
    bool children_on_parent_server; /* master.split.daughters.on.parent.server */
    /* the normalizer (master_normalizer.c) */
    int64_t normalizer_period_ms;
    int normalizer_min_regions;
    int64_t normalizer_min_age_ms;
    char normalizer_plan[4096]; /* the last run's plan (mu) */
    int64_t normalizer_last_ms; /* when it ran (mu) */
    /* LocateRegion calls waiting for a region to open (master_service.c); at most
     * MASTER_LOCATE_WAITERS(m) at once so that waiters never hold every handler. */
    atomic_int locate_waiters;
    char inject_crash[256]; /* master.inject.crash: "<type>:<step>"[,...] to die at (tests) */
    char inject_pause[256]; /* master.inject.pause: "<type>:<step>"[,...] to sleep at (tests) */
    int64_t inject_pause_ms;
};

#define MASTER_DEAD_KEPT 64
#define MASTER_LOCATE_WAIT_MAX_MS 10000
#define MASTER_LOCATE_WAITERS(m) ((m)->handler_threads > 2 ? (m)->handler_threads / 2 : 1)
#define MASTER_PROCS_KEPT 64 /* ended procedures kept for list_procedures */

/* ---- master.c ---- */
/* Makes m the active master (the election's winner runs it): the cluster id, the WALs of
 * earlier masters fenced and split, meta opened and loaded, live and dead servers found,
 * then the chore thread unless start_chore is false (tests run passes themselves). */
int master_activate(master *m, bool start_chore);
/* ST_NOT_SERVING naming the active master unless this one is active. */
int master_check_active(master *m);
/* Self-fencing: ST_OK if ZooKeeper answered a ping SENT recently enough (pinging it if
 * not); else ST_NOT_SERVING. */
int master_check_lease(master *m);
/* Pings ZooKeeper; on an answer, the ping's send time renews the lease (lease_ns). */
int master_ping(master *m);
/* Writes regions to meta (atomically) after the lease check. */
int master_persist(master *m, const meta_region *rows, size_t n);
/* The table's schema unpacked (free with strata__admin__table_schema__free_unpacked). */
Strata__Admin__TableSchema *master_table_schema(const m_table *t);
/* The table's schema as the storage engine sees it (mu NOT held): ST_OK and *out, or the
 * failure naming the table. */
int master_table_storage_schema(master *m, const m_table *t, table_schema *out);
/* Finds a table by name (mu held): NULL if unknown. */
m_table *master_find_table(master *m, const char *name);
/* Finds a region by encoded name (mu held), and its table. */
m_region *master_find_region(master *m, const char *encoded, m_table **table);
/* Adds a table (mu held; takes ownership). */
int master_add_table(master *m, m_table *t);
/* Removes and frees a table and its regions (mu held). */
void master_remove_table(master *m, m_table *t);
void master_table_free(m_table *t);
/* Every table, each held (users + 1) so it stays allocated: release with
 * master_tables_release. NULL/0 if none or out of memory. */
m_table **master_tables_hold(master *m, size_t *n);
void master_tables_release(master *m, m_table **v, size_t n);
/* Waits (mu held) until at most `own` holders (the caller's own) hold t and no operation
 * has one of its regions (busy). */
void master_table_wait_unused(master *m, m_table *t, int own);
/* Normalises a table name: "t" -> "default:t". ST_INVALID_ARGUMENT for a bad name. */
int master_qualify(const char *name, char *out, size_t cap);

/* ---- master_servers.c ---- */
/* Re-reads <parent>/rs: adds new servers, declares vanished (or superseded) ones dead. */
void master_servers_sync(master *m);
/* The live server named (mu held), or NULL. addr_or_name: "host,port,sc" or "host:port". */
m_server *master_server_find(master *m, const char *addr_or_name);
/* Picks the live, not stopping server with the fewest regions that has sent this master a
 * heartbeat (a znode alone may be left by a process that died moments ago), avoiding
 * `avoid` (may be NULL) when another exists. Copies its name to out. ST_NOT_SERVING if
 * none. mu held. */
int master_server_pick(master *m, const char *avoid, char *out, size_t cap);
/* Clears dead servers from the dead list (n 0: all), as HBase's clearDeadServers: none
 * while a recovery is queued or running. *not_cleared (malloc'ed names, each malloc'ed)
 * gets those that stayed: every one asked while busy, and names not in the list. */
int master_clear_dead_servers(master *m, char *const *names, size_t n, char ***not_cleared,
                              size_t *n_not);
/* Declares a server dead (mu held): removes it from the live set, queues recovery. */
void master_server_dead(master *m, const char *name);
/* Whether recovery of name is queued or running (mu held). */
bool master_crash_pending(master *m, const char *name);
/* Fences <root>/WALs/<dir_name> (renames it to ...-splitting unless it is already), splits
 * it into recovered edits and removes it. ST_OK if there was nothing to split. */
int master_fence_and_split(master *m, const char *dir_name);
/* Recovers one dead server: fences and splits its WALs, drops its ownership znodes,
 * closes its regions in meta and reassigns those of enabled tables. */
int master_crash_recover(master *m, const char *name);
/* Queues recovery of every WAL directory under <root>/WALs with no live server (except
 * those of servers started within two session timeouts: they may not have registered
 * yet), of half-done splits, and of servers meta names that are not live. The chore runs
 * it every 5 s. */
void master_servers_find_dead(master *m);
int master_handle_report(master *m, const Strata__Master__RegionServerReportRequest *req);
int master_handle_region_closed(master *m, const Strata__Master__ReportRegionClosedRequest *req);
void master_server_free(m_server *s);
/* Number of regions a server has in memory (mu held). */
size_t master_server_region_count(master *m, const char *name);

/* ---- master_assign.c ---- */
/* Takes a region by encoded name, waiting while another operation has it. ST_NOT_FOUND
 * naming it. *table may be NULL. */
int master_region_take(master *m, const char *encoded, m_region **out, m_table **table);
/* Takes r (mu NOT held), waiting while busy. */
void master_region_take_ptr(master *m, m_region *r);
/* Tries to take r without waiting (mu held): true if taken. */
bool master_region_try_take(master *m, m_region *r);
void master_region_give(master *m, m_region *r);
/* Opens r (taken) on `target` (a server name or address; NULL: pick one). Retries other
 * servers up to assign_attempts times; leaves FAILED_OPEN on failure. */
int master_assign(master *m, m_table *t, m_region *r, const char *target);
/* Closes r (taken) where it is open: CLOSED in meta. */
int master_unassign(master *m, m_region *r);
/* The same, telling the server where r goes (hint NULL: nothing), so that it answers
 * later calls for r ST_REGION_MOVED with it (docs/rpc.md "RegionMoved hints"). */
int master_unassign_moved(master *m, m_region *r, const Strata__Client__RegionMovedHint *hint);
/* Where a region will be: one MovedRegion of a hint, pointing into r and sn (which must
 * outlive it). server is "host,port,startcode"; ST_INVALID_ARGUMENT if it does not parse. */
typedef struct master_moved {
    Strata__Client__MovedRegion msg;
    server_name sn;
} master_moved;
int master_moved_init(master_moved *out, const meta_region *r, const char *server);
/* Moves a region (encoded name) to dest (a server name or address; NULL or "": the least
 * loaded other server), as HBase's TransitRegionStateProcedure (MOVE): closed where it is
 * (telling that server where it goes), then opened at dest. With expect_from, only if the
 * region is still open there (ST_NOT_SERVING if not): the balancer's moves, which also pass
 * the test hook "LoadBalancer:MOVE_OPEN" (master.inject.crash) between the close and the
 * open. *where (may be NULL) gets the server it is on afterwards. Takes the region itself. */
int master_move_region(master *m, const char *encoded, const char *dest, const char *expect_from,
                       char *where, size_t cap);
/* Changes r's state/server in meta then in memory (r taken). */
int master_set_state(master *m, m_region *r, meta_region_state st, const char *server);
typedef enum master_bulk_op {
    MASTER_BULK_CLOSE = 0,  /* unassign */
    MASTER_BULK_OPEN = 1,   /* assign */
    MASTER_BULK_REPAIR = 2, /* once taken, do what the table state asks (master_repair) */
} master_bulk_op;
/* Runs op on many regions with a few worker threads; each region is taken and given back
 * by the workers. Returns the first failure. The caller keeps t alive (t->users). */
int master_assign_many(master *m, m_table *t, m_region **v, size_t n, master_bulk_op op);
/* With r taken: opens it if its table is enabled and it is not open on a live server,
 * closes it if the table is disabled, finishes an interrupted OPENING/CLOSING. A region
 * on a server that is neither live nor being recovered is left to recovery. */
int master_repair(master *m, m_table *t, m_region *r);
/* r's region as a RegionInfo message borrowing r's strings and keys. */
void master_region_info_proto(const meta_region *r, Strata__Admin__RegionInfo *out);
/* Asks the region server serving r to flush or compact it. */
int master_region_admin(master *m, m_region *r, const char *method, bool major,
                        const char *family);

/* ---- master_proc.c: persisted procedures (docs/procedures.md) and switches ---- */
typedef enum m_proc_state {
    M_PROC_RUNNABLE = 0,
    M_PROC_SUCCESS,
    M_PROC_ROLLEDBACK,
    M_PROC_FAILED,
} m_proc_state;

typedef struct m_proc {
    uint64_t id;
    const char *type; /* static */
    const char *step; /* static step name */
    m_proc_state state;
    char table[256];
    char regions[META_MERGE_MAX][64];
    size_t nregions;
    int64_t submitted_ms, updated_ms;
    char error[256];
    bool bypassed; /* hbck bypass: its next step's write fails (master_proc_write) */
} m_proc;

const char *master_proc_state_name(m_proc_state s);
/* The name of step (docs/procedures.md) of a procedure type; static. */
const char *master_proc_step_name(const char *type, unsigned step);
/* Registers a new running procedure (in memory) and returns its id (0: out of memory). */
uint64_t master_proc_begin(master *m, const char *type, const char *table,
                           const char *const *regions, size_t n);
/* Writes p (its step and updated_ms set by the caller) to meta with region rows put and
 * deleted in the same atomic batch, after the lease check; step_name shows in listings.
 * Dies here first if master.inject.crash names "<type>:<step_name>". */
int master_proc_write(master *m, Strata__Master__Procedure *p, const char *step_name,
                      const meta_region *put, size_t nput, const meta_region *del, size_t ndel,
                      bool *maybe_written);
/* A step whose catalog change may or may not have been written (the write failed or the
 * lease lapsed after it): this master cannot tell, so it exits (status 70) and the next
 * active master decides from meta. */
void master_proc_unsure(master *m, uint64_t id, const char *why) __attribute__((noreturn));
/* Sets the step shown in listings (static string) of a procedure whose state lives
 * elsewhere (move, assign, unassign, server crash: region rows, WAL dirs, znodes). */
void master_proc_set_step(master *m, uint64_t id, const char *step);
/* Ends a procedure: deletes its row (if written) and records state and error. */
void master_proc_end(master *m, uint64_t id, bool written, m_proc_state st, const char *error);
/* hbck bypass of a running procedure: its next step's write fails, so it stops there (a
 * failure before its catalog change rolls back); its regions are given back when its
 * thread returns. */
void master_proc_bypass(master *m, uint64_t id);
/* Copies the listing (free with free()). */
int master_procs_list(master *m, m_proc **out, size_t *n);
/* Reads every procedure row after meta is loaded: rolls back those before their catalog
 * change, finishes the others (master_split.c, master_merge.c). Before the chore runs. */
int master_procs_resume(master *m);
/* Past a procedure's catalog change: a thread opens its children (encoded names) on server
 * (another if it is gone), then ends the procedure. */
int master_proc_resume_open(master *m, uint64_t id, const char *const *kids, size_t n,
                            const char *server);
/* Runs fn(m) on a detached thread that master_stop waits for (proc_threads); nothing once
 * the master is stopping or if no thread can be made. */
void master_run_detached(master *m, void (*fn)(master *m));
/* Test hook: pauses (master.inject.pause) and dies (SIGKILL to itself, master.inject.crash)
 * at "<type>:<step>". */
void master_inject_crash(master *m, const char *type, const char *step);

typedef enum master_switch {
    MASTER_SWITCH_SPLIT = 0,
    MASTER_SWITCH_MERGE,
    MASTER_SWITCH_NORMALIZER,
    MASTER_SWITCH_CATALOG_JANITOR,
    MASTER_SWITCH_BALANCER,
} master_switch;
/* Parses "SPLIT", "MERGE", "NORMALIZER", "CATALOG_JANITOR", "BALANCER" (any case). */
int master_switch_parse(const char *name, master_switch *out);
bool master_switch_get(master *m, master_switch s);
/* Sets a switch (persisted in ZooKeeper but for the janitor's); *prev gets the old state. */
int master_switch_set(master *m, master_switch s, bool on, bool *prev);
/* Reads the persisted switches (activation). */
void master_switches_load(master *m);

/* ---- master_split.c: split (docs/split-merge.md) ---- */
/* Splits region encoded at row (NULL: the region server's best split point). Returns once
 * the daughters are open (or left to the chore); *daughters (may be NULL) gets copies of
 * both (free with meta_regions_free). */
int master_split_region(master *m, const char *encoded, const uint8_t *row, size_t row_len,
                        meta_region **daughters);
/* Resumes a split read from meta (master_procs_resume). */
int master_split_resume(master *m, Strata__Master__Procedure *p);

/* ---- master_merge.c: merge (docs/split-merge.md) ---- */
/* Merges n regions (encoded names) of one table; adjacent unless force (then only gaps,
 * no other region, may lie between them). *merged (may be NULL) gets a copy of the
 * merged region (free with meta_region_clear). */
int master_merge_regions(master *m, const char *const *encoded, size_t n, bool force,
                         meta_region *merged);
int master_merge_resume(master *m, Strata__Master__Procedure *p);

/* ---- master_normalizer.c ---- */
/* One normalizer run over every table (only_table NULL) or one: *ran false when the switch
 * is off or a run is under way. */
int master_normalize(master *m, const char *only_table, bool *ran);
/* The same on a thread of its own (the chore's periodic run); master_stop waits for it. */
void master_normalize_async(master *m);

/* ---- master_balancer.c: the load balancer (docs/balancer.md) ---- */
/* What one balancer run did: shown on the page, in /metrics and answered to the shell. */
typedef struct master_balance_run {
    int64_t started_ms, duration_ms;
    bool ran;     /* false: skipped (why says so) */
    bool forced, dry_run;
    bal_policy policy;
    size_t servers, regions;
    double cost_before, cost_after;
    double part_before[BAL_COSTS], part_after[BAL_COSTS];
    double max_mean_before, max_mean_after; /* busiest server's request rate / the mean */
    size_t planned, done, failed;
    long steps;
    char why[256];
    char plan[8192]; /* one line per move: planned, then what each did */
} master_balance_run;

/* Defines the balancer's keys (master_config_define). */
int master_balancer_define(config *c);
/* Reads the balancer's settings (master_new): ST_INVALID_ARGUMENT names a bad one. */
int master_balancer_settings(master *m, const config *c);
/* One run (docs/balancer.md "A run"): not while the switch is off (unless dry_run), regions
 * are in transition or a dead server is being recovered (unless force). *out gets what it
 * did (also when it did not run). One run at a time: a second one answers ran = false. */
int master_balance(master *m, bool force, bool dry_run, master_balance_run *out);
/* The same on a thread of its own (the chore's periodic run). */
void master_balance_async(master *m);
/* Records a heartbeat's region counters in the load window (mu held). */
void master_load_record(master *m, const m_server *s,
                        const Strata__Master__RegionServerReportRequest *rep, int64_t now_ms);
/* A region's read and write requests per second over the load window (mu held); 0 when
 * fewer than two samples are in it. */
void master_load_rates(const master *m, const m_region *r, int64_t now_ms, double *reads,
                       double *writes);

/* ---- master_janitor.c: the catalog janitor ---- */
/* Removes every split parent and merge record no region references any more. *cleaned
 * (may be NULL) gets how many. Runs on the chore thread or under sync_mu. */
int master_janitor_run(master *m, unsigned *cleaned);

/* ---- master.c: regions in tables ---- */
/* Start-key order (then region id). */
int master_region_cmp(const void *a, const void *b);
/* Adds r to t's regions in order (mu held). */
int master_table_add_region(m_table *t, m_region *r);
/* Removes r from t's regions (mu held); false if it is not there. */
bool master_table_drop_region(m_table *t, m_region *r);
/* Keeps r (out of every list) until the table is freed (mu held). */
int master_table_bury(m_table *t, m_region *r);

/* ---- master_chore.c ---- */
void *master_chore_main(void *arg);
/* One pass of the chore: servers re-read when sync_servers (else ZooKeeper pinged), queued
 * recoveries run, heartbeats reconciled with meta, regions repaired, table states left by a
 * failover finished. */
void master_chore_pass(master *m, bool sync_servers);
void master_chore_wake(master *m);

/* ---- master_snapshot.c: the cluster snapshot ---- */
typedef struct master_snap_master {
    server_name sn;
    char name[SERVER_NAME_MAX];
    uint32_t http_port;
} master_snap_master;

typedef struct master_snap_server {
    server_name sn;
    char name[SERVER_NAME_MAX];
    uint32_t http_port;
    bool stopping;
    double rps;
    size_t regions; /* regions meta places on it */
    Strata__Master__RegionServerReportRequest *report; /* last heartbeat (owned); NULL if none */
    int64_t report_ms;
} master_snap_server;

typedef struct master_snap_table {
    char name[256];
    meta_table_state state;
    size_t regions, open;
} master_snap_table;

typedef struct master_snap_rit {
    meta_region region; /* a copy of the row as the master holds it */
    int64_t since_ms;
} master_snap_rit;

typedef struct master_snap {
    int64_t now_ms;
    bool active; /* the rest below have_active/backups is filled on the active master only */
    bool have_active;
    master_snap_master active_master;
    master_snap_master *backups;
    size_t nbackups;
    int64_t active_since_ms;
    char cluster_id[40];
    master_snap_server *servers; /* live: heard from */
    size_t nservers;
    char (*dead)[SERVER_NAME_MAX];
    size_t ndead;
    master_snap_table *tables;
    size_t ntables;
    master_snap_rit *rits;
    size_t nrits;
    size_t nregions;
    size_t *spread; /* nservers x ntables: regions of table t on server s at [s * ntables + t] */
} master_snap;

/* Copies the cluster (see master_snapshot.c): ST_OK and *out (free with
 * master_snapshot_free), or ST_NOMEM (*out emptied). ZooKeeper failures only leave masters
 * out. Takes mu itself. */
int master_snapshot_take(master *m, master_snap *out);
void master_snapshot_free(master_snap *sn);
/* Whether r is where its table's state wants it (mu held): open on a live server that the
 * master has heard from, for a table that wants its regions open; closed and on no server
 * otherwise. Every other region is in transition. */
bool master_region_settled(master *m, const m_table *t, const m_region *r);

/* ---- master_ddl.c ---- */
int master_create_table(master *m, const Strata__Master__CreateTableRequest *req);
int master_delete_table(master *m, const char *table);
int master_enable_table(master *m, const char *table);
int master_disable_table(master *m, const char *table);
int master_truncate_table(master *m, const char *table, bool preserve_splits);
int master_modify_table(master *m, const Strata__Admin__TableSchema *schema);
/* The same; with async the call returns once the schema is stored and the regions are
 * reopened by a thread (a ModifyTableProcedure in the listings; the table stays busy for
 * other DDL until it is done). */
int master_modify_table_async(master *m, const Strata__Admin__TableSchema *schema, bool async);
/* An alter's progress (HBase's getAlterStatus): regions reopened with the new schema and
 * the table's regions; *running false when no alter is reopening them (then *updated ==
 * *total). ST_NOT_FOUND for an unknown table. */
int master_alter_status(master *m, const char *table, size_t *updated, size_t *total,
                        bool *running);
int master_create_namespace(master *m, const char *ns);
/* With properties (HBase's namespace configuration): keys non-empty and distinct, at most
 * 256 of them. */
int master_create_namespace_props(master *m, const char *ns,
                                  Strata__Master__NamespaceProperty *const *props, size_t n);
/* Replaces the properties of an existing namespace (ST_NOT_FOUND naming it). */
int master_modify_namespace(master *m, const char *ns,
                            Strata__Master__NamespaceProperty *const *props, size_t n);
/* Mirrors a table's state into <parent>/table/<name> (docs/znodes.md); best effort. */
void master_mirror_table_state(master *m, const char *table, meta_table_state st);
int master_delete_namespace(master *m, const char *ns);

/* ---- master_http.c: status pages and metrics (docs/http.md) ---- */
/* Serves HTTP on master.host : master.http.port (0: any free port, -1: none) and sets
 * m->http_port to the bound port (0 without HTTP), which the master's ZooKeeper records
 * advertise. A port that cannot be bound is logged and the master runs without HTTP.
 * Call after zk_open and before the master registers in ZooKeeper. ST_OK or ST_NOMEM. */
int master_http_start(master *m);
/* Stops and frees the HTTP server (before the ZooKeeper session closes). Idempotent. */
void master_http_stop(master *m);

/* ---- master_service.c ---- */
int master_service_register(master *m);
/* master_service_procs.c: SplitRegion, ListProcedures, SetSwitch, RunCatalogJanitor. */
int master_service_register_procs(master *m);
/* The MasterService handlers' check: ST_OK on the active master, else its refusal with
 * a retry hint of 200 ms (master_service.c). */
int master_rpc_check_active(void *ctx, rpc_reply *reply);
/* GetCompactionState and RollWALWriter (master_service_maint.c). */
int master_service_register_maint(master *m);
/* master_hbck.c: HbckReport and the HBCK2 repairs (docs/hbck.md). */
int master_service_register_hbck(master *m);
/* The hbck report (docs/hbck.md) of every table (ntables 0) or those named: ST_OK and
 * *out (free with hbck_report_free), *nregions (may be NULL) the rows checked. */
struct hbck_report;
int master_hbck_report(master *m, char **tables, size_t ntables, int64_t stuck_ms, bool skip_fs,
                       struct hbck_report *out, size_t *nregions);
/* master_service_meta.c: ScanMeta (the catalog as rows, read-only). */
int master_service_register_meta(master *m);

/* ---- master_ops.c: region servers and ZooKeeper ---- */
/* Replaces the real calls by ops with ctx (NULL: the real ones again). Before
 * master_activate, while no other thread uses m. */
void master_set_ops(master *m, const master_ops *ops, void *ctx);
/* Calls method on addr with req (master.region.rpc.timeout.ms); on ST_OK *resp is unpacked
 * as resp_desc (both may be NULL). */
int master_rs_call(master *m, const char *addr, const char *method, const ProtobufCMessage *req,
                   const ProtobufCMessageDescriptor *resp_desc, ProtobufCMessage **resp);
/* The same with another timeout and no answer. */
int master_rs_call_timeout(master *m, const char *addr, const char *method,
                           const ProtobufCMessage *req, int timeout_ms);
/* zk.h's calls on the master's session (set and delete of any version). Without a session
 * ST_CONNECTION. */
int master_zk_get(master *m, const char *path, uint8_t **data, size_t *len, zk_stat *st);
int master_zk_set(master *m, const char *path, const void *data, size_t len);
int master_zk_create(master *m, const char *path, const void *data, size_t len, int flags);
int master_zk_delete(master *m, const char *path);
int master_zk_children(master *m, const char *path, char ***names, size_t *n);
int master_zk_ping(master *m);
int master_zk_session_timeout_ms(master *m);
/* The active master from <parent>/master (znodes_active_master through ops). */
int master_active_master(master *m, server_name *out, uint32_t *http_port);

#endif
