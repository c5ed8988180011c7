/*
 * cluster_internal.h - what the files of `strata cluster` share (docs/cluster.md): the
 * state of a local cluster as kept in <dir>/cluster.state, and the processes' life:
 * free ports, detached starts, liveness, signals.
 *
 * State file (text, rewritten atomically on every change):
 *
 *   # strata cluster state (docs/cluster.md)
 *   quorum 127.0.0.1:41001
 *   parent /strata
 *   session_timeout_ms 6000
 *   arg --regionserver.block.cache.size=16m       (one line per extra server flag)
 *   rs_cpu_quota 0.4                              (only with a CPU cap)
 *   zk 2001 41001 0                               (name pid rpc_port http_port)
 *   master-1 2002 41002 41003
 *   rs-1 2004 41006 41007
 *   rest-1 2006 41010 41010                       (REST gateways: the HTTP port twice)
 *
 * Process names: `zk` (its rpc port is the client port; no http port), `master-1..M`,
 * `rs-1..N`, `rest-1..K` (REST gateways, --rest K). A pid counts as alive only if the process runs, is not a zombie (any of its
 * threads is neither a zombie nor dead: a main thread that exited leaves the others
 * holding the ports), and its command line is the one this cluster started (it names the
 * cluster's directory), so a recycled pid is never signalled.
 *
 * Thread-safety: a cluster's state is used from one thread at a time (`strata cluster`,
 * or the chaos monkey's thread beside a load's threads). cluster_spawn keeps the argv
 * strings in static storage and is not reentrant; the child it forks runs only
 * async-signal-safe calls before exec, so other threads of the process cannot deadlock it.
 */
#ifndef STRATA_TOOLS_CLUSTER_INTERNAL_H
#define STRATA_TOOLS_CLUSTER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "client/admin_rpc.h"
#include "common/server_name.h"
#include "common/zk/zk.h"
#include "common/zk/znodes.h"

#define CLUSTER_STATE_FILE "cluster.state"
#define CLUSTER_MAX_PROCS 66
#define CLUSTER_MAX_ARGS 64
#define CLUSTER_DIR_MAX 900 /* longest cluster directory path */
#define CLUSTER_PATH_MAX 1024

typedef enum cluster_kind {
    CLUSTER_ZK = 0,
    CLUSTER_MASTER = 1,
    CLUSTER_RS = 2,
    CLUSTER_REST = 3, /* a REST gateway: its rpc and http ports are the one HTTP port */
} cluster_kind;

typedef struct cluster_proc {
    char name[32];
    cluster_kind kind;
    pid_t pid; /* 0: never started */
    int rpc_port;
    int http_port;
} cluster_proc;

typedef struct cluster_state {
    char dir[CLUSTER_DIR_MAX]; /* absolute */
    char quorum[64];
    char parent[128];
    int session_timeout_ms;
    char *args[CLUSTER_MAX_ARGS]; /* extra "--key=value" flags for the servers (owned) */
    size_t nargs;
    double rs_cpu_quota; /* each region server's CPU cap in CPUs; 0: none (cluster_caps.c) */
    cluster_proc procs[CLUSTER_MAX_PROCS];
    size_t nprocs;
} cluster_state;

/* ---- state (cluster_state.c) ---- */

/* Frees the owned arguments; the struct can be reused. */
void cluster_state_clear(cluster_state *s);
/* Reads <dir>/cluster.state into s (dir made absolute). ST_OK, ST_NOT_FOUND if there is
 * no state file (no cluster was started there), ST_CORRUPTION naming the line. */
int cluster_state_read(const char *dir, cluster_state *s);
/* Writes s to <s->dir>/cluster.state atomically. */
int cluster_state_write(const cluster_state *s);
/* The process called name, or NULL. */
cluster_proc *cluster_state_find(cluster_state *s, const char *name);
/* How many processes of kind the cluster has. */
size_t cluster_state_count(const cluster_state *s, cluster_kind kind);
/* Parses a process name: kind and 1-based index (0 for zk). ST_OK or ST_INVALID_ARGUMENT. */
int cluster_name_parse(const char *name, cluster_kind *kind, int *index);
/* <dir>/logs/<name>.log, <dir>/run/<name>.ready into out. */
void cluster_log_path(const cluster_state *s, const char *name, char *out, size_t cap);
void cluster_ready_path(const cluster_state *s, const char *name, char *out, size_t cap);

/* ---- processes (cluster_proc.c) ---- */

/* n distinct loopback ports nobody listens on now (each bound to port 0, read, closed). */
int cluster_free_ports(int *ports, size_t n);
/* Writes <dir>/zk/zoo.cfg for the client port. */
int cluster_write_zoo_cfg(const cluster_state *s, int port);
/* Starts p detached (own session, output appended to its log, stdin /dev/null) with the
 * command line its kind needs; sets p->pid. */
int cluster_spawn(const cluster_state *s, cluster_proc *p);
/* Whether pid runs: one of its threads (/proc/<pid>/task/<tid>) is neither a zombie nor
 * dead. Reaps pid if it is our own child that ended. */
bool cluster_pid_running(pid_t pid);
/* Whether p->pid runs and is this cluster's process p (see the file comment). */
bool cluster_alive(const cluster_state *s, const cluster_proc *p);
/* Sends sig to p if it is alive; true if it was. */
bool cluster_signal(const cluster_state *s, const cluster_proc *p, int sig);
/* Waits until none of procs[0..n) is alive, at most timeout_ms; SIGKILLs those still
 * alive then and waits for them (bounded). Returns how many needed SIGKILL. */
int cluster_wait_dead(const cluster_state *s, cluster_proc *const *procs, size_t n, int timeout_ms);
/* Asks ZooKeeper's "ruok" on its client port until "imok", at most timeout_ms. ST_OK,
 * ST_TIMEOUT, or cluster_exited()'s ST_IO if the process ended. */
int cluster_wait_zk(const cluster_state *s, const cluster_proc *zkp, int timeout_ms);
/* ST_IO with a message saying p exited, quoting the end of its log. */
int cluster_exited(const cluster_state *s, const cluster_proc *p);
/* The last lines of a log (at most cap bytes) into out, for error reports. */
void cluster_log_tail(const char *path, char *out, size_t cap);

/* ---- capacity caps (cluster_caps.c) ---- */

/* The cgroup v1 cpu hierarchy: /sys/fs/cgroup/cpu, or $STRATA_CGROUP_CPU_ROOT. */
const char *cluster_cgroup_root(void);
/* Parses a CPU cap (a fraction of one CPU, 0.01 up to the CPUs online). */
int cluster_cap_parse(const char *v, double *out);
/* cpu.cfs_quota_us for a cap (the period is 100000 us). */
long cluster_cap_quota_us(double quota);
/* <root>/strata-<hash of s->dir>-<name>. */
void cluster_cgroup_path(const cluster_state *s, const char *name, char *out, size_t cap);
/* For a region server of a capped cluster: makes its cgroup, writes period and quota,
 * and puts the path of its cgroup.procs in procs (the child writes its pid there before
 * exec); "" when p is not capped. ST_UNSUPPORTED when the hierarchy is not writable. */
int cluster_cap_prepare(const cluster_state *s, const cluster_proc *p, char *procs, size_t cap);
/* Removes p's cgroup (after its process is gone; waits up to 3 s for a dying one); ST_OK
 * if it is gone. */
int cluster_cap_remove_one(const cluster_state *s, const cluster_proc *p);
/* Removes every region server's cgroup (after the processes are gone); ST_OK if none is
 * left. */
int cluster_caps_remove(const cluster_state *s);

/* ---- what the cluster looks like (cluster_view.c) ---- */

typedef struct cluster_view {
    bool zk_up;                         /* a ZooKeeper session was had */
    int active;                         /* index in procs of the active master, -1 none */
    server_name active_name;            /* valid when has_active */
    bool has_active;                    /* <parent>/master names a master (ours or not) */
    bool registered[CLUSTER_MAX_PROCS]; /* per proc: a region server under <parent>/rs */
    size_t n_registered;                /* of this cluster's region servers */
    bool has_status;                    /* the master answered GetClusterStatus */
    uint32_t live, dead, tables, regions, rit;
    char status_error[300]; /* why not, when !has_status */
} cluster_view;

/* Opens a ZooKeeper session to the cluster's quorum (connect within timeout_ms). */
int cluster_zk_open(const cluster_state *s, int timeout_ms, zk **out);
/* Fills v from ZooKeeper (z may be NULL: nothing known) and, if a is not NULL, from the
 * master's GetClusterStatus (a's timeout applies). */
void cluster_view_read(const cluster_state *s, zk *z, admin_rpc *a, cluster_view *v);
/* Prints one line per process and the cluster's summary (docs/cluster.md). */
void cluster_view_print(const cluster_state *s, const cluster_view *v, FILE *out);
/* Resolves "master-active" through ZooKeeper, or checks a process name: the process, or
 * NULL with the message set. */
cluster_proc *cluster_resolve(cluster_state *s, const char *name);

/* ---- subcommands (cluster.c, cluster_ops.c) ---- */

int cluster_start_main(int argc, char **argv);
int cluster_status_main(const char *dir);
int cluster_stop_main(const char *dir, int timeout_ms);
int cluster_kill_main(const char *dir, const char *name);
int cluster_restart_main(const char *dir, const char *name, int timeout_ms);
/* `strata cluster add`: one more region server (rs-N+1) with new ports, waits until it
 * wrote its ready file. */
int cluster_add_main(const char *dir, int timeout_ms);
/* restart's work on one process of s, for callers that hold the state (`strata bench
 * failover`): SIGTERM if alive (SIGKILL after 30 s), the same command line and ports
 * again, the new pid recorded in s and its state file, then the wait for ZooKeeper's
 * "imok" or the ready file (at most timeout_ms). ST_OK or the failure with its message. */
int cluster_restart_proc(cluster_state *s, cluster_proc *p, int timeout_ms);

#endif
