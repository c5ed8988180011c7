/*
 * chaos_internal.h - what the files of the chaos monkey share (tools/chaos.h): the
 * control backends (chaos_backend.c), the snapshots of the cluster and the polls for
 * recovery (chaos_view.c), the actions (chaos_actions.c) and the schedule
 * (chaos_policy.c).
 *
 * Processes. Every process the monkey can act on is a chaos_proc: its role, a name
 * (rs-2, master-1, zk for a local cluster; host:port otherwise) and where it listens.
 * The local backend lists them from the cluster's state file; the script backend from
 * ZooKeeper (the master znode and backup masters), the master's live servers, the
 * quorum string, and those it took down itself (kept, so that they are started again).
 *
 * Thread-safety: everything here runs on the monkey's thread; the events are read by the
 * driver only after the thread ended (chaos_events).
 */
#ifndef STRATA_TOOLS_CHAOS_INTERNAL_H
#define STRATA_TOOLS_CHAOS_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "strata/admin.h"
#include "tools/chaos.h"
#include "tools/cluster_internal.h"

#define CHAOS_MAX_PROCS 64
#define CHAOS_MAX_REGIONS 4096
#define CHAOS_SERVER_MAX 128
#define CHAOS_REGION_MAX 64

typedef enum chaos_role { CHAOS_ROLE_ZK = 0, CHAOS_ROLE_MASTER, CHAOS_ROLE_RS } chaos_role;

typedef struct chaos_proc {
    chaos_role role;
    char name[64];
    char host[64];
    int port;  /* rpc port (ZooKeeper: its client port) */
    bool down; /* the monkey stopped or killed it and has not started it again */
    bool paused;
    bool cut; /* the monkey cut its network and has not healed it */
} chaos_proc;

typedef struct chaos_backend chaos_backend;

/* Opens the backend o->control names. Local needs o->dir. */
int chaos_backend_open(const chaos_opts *o, chaos_backend **out);
void chaos_backend_close(chaos_backend *b);
/* The quorum and parent to reach the cluster through. */
const char *chaos_backend_quorum(const chaos_backend *b);
const char *chaos_backend_parent(const chaos_backend *b);
int chaos_backend_session_timeout_ms(const chaos_backend *b);
/* Refreshes the list of processes (the script backend asks the cluster: zk is the
 * quorum's first host, masters from ZooKeeper, region servers the master's live ones). */
int chaos_backend_list(chaos_backend *b, const strata_cluster_status_t *st);
size_t chaos_backend_count(const chaos_backend *b);
chaos_proc *chaos_backend_proc(chaos_backend *b, size_t i);
/* The region server listening where server ("host,port,startcode" or "host:port")
 * does, the active master (ZooKeeper's master znode), or NULL. */
chaos_proc *chaos_backend_rs_of(chaos_backend *b, const char *server);
chaos_proc *chaos_backend_active_master(chaos_backend *b);
/* Signals: SIGKILL, SIGSTOP, SIGCONT, SIGTERM. ST_OK, or why not (not running...). */
int chaos_backend_signal(chaos_backend *b, chaos_proc *p, int sig);
/* Starts p again (after it was killed or exited; SIGTERM first if it still runs) and
 * waits until it is ready. */
int chaos_backend_start(chaos_backend *b, chaos_proc *p, int timeout_ms);
bool chaos_backend_alive(chaos_backend *b, chaos_proc *p);
/* The network verbs "cut-zk" (p reaches ZooKeeper no more, everything else still),
 * "cut" (p reaches nobody) and "heal": ST_OK, ST_UNSUPPORTED (the local backend, or a
 * script that exits 2 for the verb), or ST_IO. */
int chaos_backend_net(chaos_backend *b, chaos_proc *p, const char *verb);
/* Whether the backend can cut networks at all (a script may still refuse a verb). */
bool chaos_backend_can_partition(const chaos_backend *b);

/* One poll of the master. */
typedef struct chaos_region {
    char name[CHAOS_REGION_MAX];
    char table[128];
    char server[CHAOS_SERVER_MAX];
    strata_region_state state;
} chaos_region;

typedef struct chaos_snapshot {
    bool ok;
    char error[300];
    chaos_region *r; /* CHAOS_MAX_REGIONS */
    size_t n;
    char live[CHAOS_MAX_PROCS][CHAOS_SERVER_MAX];
    size_t nlive, rit;
    strata_cluster_status_t *status; /* the last status (owned) */
} chaos_snapshot;

struct chaos_monkey {
    chaos_opts o;
    chaos_backend *b;
    strata_admin_t *admin; /* actions */
    strata_admin_t *poll;  /* polls, short timeout */
    chaos_snapshot snap;
    uint64_t rng;      /* targets */
    uint64_t kind_rng; /* the order of the kinds: apart, so that a seed replays it */
    uint64_t seed;
    int nrs_expected; /* region servers the cluster should have live */
    chaos_event *ev;
    size_t nev, cap;
    pthread_t thread;
    bool started;
    atomic_bool stop;
    atomic_bool done;
    pthread_mutex_t mu; /* guards ev/nev (chaos_events reads them after the thread ended) */
};

/* ---- the view (chaos_view.c) ---- */

int chaos_snapshot_init(chaos_snapshot *s);
void chaos_snapshot_free(chaos_snapshot *s);
/* The regions of the monkey's tables and the cluster status into m->snap. */
void chaos_take_snapshot(chaos_monkey *m);
bool chaos_is_live(const chaos_snapshot *s, const char *server);
/* Every region OPEN on a live server that is none of excluded[0..nex). */
bool chaos_all_open(const chaos_snapshot *s, char (*excluded)[CHAOS_SERVER_MAX], size_t nex);
/* Settled: all open, none in transition, every process up, the expected region servers
 * live. */
bool chaos_settled(chaos_monkey *m);
/* Polls (every 100 ms) until every region is open elsewhere than excluded, a master
 * answering; true and *when, or false at the deadline. */
bool chaos_wait_recovered(chaos_monkey *m, char (*excluded)[CHAOS_SERVER_MAX], size_t nex,
                          uint64_t deadline, uint64_t *when);
/* Resumes paused and starts down processes, then polls until settled (or the settle
 * timeout): ST_OK, or ST_TIMEOUT with the reason. */
int chaos_restore(chaos_monkey *m, chaos_event *e);
/* The servers (instances) holding regions now; a random one's region server into out. */
chaos_proc *chaos_pick_holder(chaos_monkey *m, char *server, size_t cap);
uint64_t chaos_rand(chaos_monkey *m);
/* One xorshift64 step of *s (never 0 when *s is not): the monkey's random streams. */
uint64_t chaos_xorshift(uint64_t *s);
/* The nearest-rank percentile p (0..1) of sorted[0..n): the smallest value with at least
 * p of the values at or below it; 0 for none. */
double chaos_rank(const double *sorted, size_t n, double p);
void chaos_fail(chaos_event *e, const char *what, const char *why);
void chaos_sleep_ms(chaos_monkey *m, int ms); /* returns early when asked to stop */

/* ---- the actions (chaos_actions.c) ---- */

/* Runs one action of kind into e (fault, recovery, restore). */
void chaos_action_run(chaos_monkey *m, chaos_kind kind, chaos_event *e);
/* Whether the cluster has what the kind needs (two masters, two servers, ...). */
bool chaos_action_possible(chaos_monkey *m, chaos_kind kind);

/* ---- policies (chaos_policy.c) ---- */

typedef struct chaos_policy {
    const char *name;
    uint32_t kinds;     /* mask of the kinds it draws from */
    int period_ms;      /* default period */
    bool deterministic; /* rotate through its kinds in a seeded order; else random */
} chaos_policy;

const chaos_policy *chaos_policy_find(const char *name);

#endif
