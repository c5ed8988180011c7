/*
 * cluster.h - a whole local cluster for tests, through `$STRATA_BIN cluster ...`
 * (docs/cluster.md): a private ZooKeeper, masters and region servers in a fresh mkdtemp
 * directory.
 *
 * tc_start() runs `strata cluster start` (which returns once a master is active, every
 * region server registered and no region in transition) and reads the state file; the
 * other calls run `strata cluster kill|restart|status|stop` on it. A cluster never
 * outlives its test: an atexit handler stops every cluster still running and SIGKILLs
 * every process its state file records, and a watchdog process (its own session, waiting
 * on a pipe from the test) runs `strata cluster stop` and removes the directory if the
 * test dies without exiting (a crash, SIGKILL from a timeout).
 *
 * Every function returns a Strata status (ST_OK, or a negative code with st_error() and,
 * for a failed command, the command's output printed to stderr).
 * Thread-safety: drive a cluster from one thread (the test's main thread).
 */
#ifndef STRATA_TESTS_CLUSTER_H
#define STRATA_TESTS_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct tc_cluster tc_cluster;

typedef struct tc_options {
    int masters;              /* 0: 1 */
    int regionservers;        /* 0: 3 */
    int session_timeout_ms;   /* 0: 6000 */
    int rest;                 /* REST gateways (rest-1..N, `--rest N`); 0: none */
    const char *const *flags; /* extra --KEY=VALUE for the servers, NULL-terminated; may be NULL */
} tc_options;

/* Starts a cluster (o NULL: the defaults). ST_OK and *out; ST_NOT_FOUND if STRATA_BIN is
 * not set (skip the test); the start's failure otherwise (nothing is left running). */
int tc_start(const tc_options *o, tc_cluster **out);
/* Stops the cluster (`strata cluster stop`), SIGKILLs anything recorded still alive,
 * removes its directory and frees c. ST_OK if every process is gone. NULL: ST_OK. */
int tc_stop(tc_cluster *c);

/* "127.0.0.1:<port>" of the cluster's ZooKeeper; "/strata"; the cluster directory. */
const char *tc_quorum(const tc_cluster *c);
const char *tc_parent(const tc_cluster *c);
const char *tc_dir(const tc_cluster *c);

/* The pid the state file records for name (zk, master-N, rs-N), read now; 0 if none
 * (proc_alive in tests/support/proc.h tells whether it runs). */
pid_t tc_pid(tc_cluster *c, const char *name);

/* The HTTP port of process name (a REST gateway's port, a server's status port), read
 * from the state file now; 0 if none. */
int tc_http_port(tc_cluster *c, const char *name);

/* `strata cluster kill NAME` / `restart NAME` (NAME may be master-active). */
int tc_kill(tc_cluster *c, const char *name);
int tc_restart(tc_cluster *c, const char *name);
/* `strata cluster add`: one more region server (the next rs-N). */
int tc_add(tc_cluster *c);
/* `strata cluster status`: its exit code (0 healthy, 1 not), its output in *out
 * (malloc'ed; may be NULL if out is NULL). Negative status if it could not run. */
int tc_status(tc_cluster *c, char **out);
/* The name of the active master as status prints it ("master-2") into name, or "" if
 * none is active and running (a killed master's znode stays until its session expires):
 * ST_OK, or the failure to run status. */
int tc_active_master(tc_cluster *c, char *name, size_t cap);

#endif
