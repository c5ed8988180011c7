/*
 * chaos.h - the chaos monkey (`strata chaos`, docs/chaos.md): breaks a running cluster on
 * a schedule, one action at a time, and records what each action did and how long the
 * cluster took to serve again.
 *
 * A monkey runs on its own thread (chaos_start) beside whatever load the caller drives
 * (`strata verify linkedlist|acid --monkey POLICY`), or on the caller's thread through
 * chaos_run (`strata chaos`). Each action is:
 *
 *   pick a target from a snapshot of the cluster (the master's regions of the tables the
 *   monkey acts on, its live servers, ZooKeeper's master znode)
 *     -> the fault (its instant t_start: just before the signal or admin call)
 *     -> recovery: the regions the fault took away open again on live servers (t_recovered,
 *        the MTTR's end; a master kill: a master active and answering again)
 *     -> restore: every process the monkey stopped resumed, every one that is not running
 *        started again
 *     -> settled: every process running, every region open, none in transition, every
 *        region server live at the master (t_end)
 *
 * and is logged when it starts and when it ends, with the wall time and its target. The
 * actions run one after the other; the next is due one period after the previous one
 * started (or at once if it took longer). A run ends after --actions actions or
 * --duration, whichever comes first, or when chaos_stop is called (the action under way
 * finishes its restore first), and leaves the cluster settled if it can.
 *
 * Processes are controlled through a backend: "local" (the pids of a `strata cluster`
 * directory's state file), or "script:PATH" (a user's program run as
 * `PATH VERB ROLE NAME HOST PORT`, VERB one of kill stop cont term start alive, and for
 * the partitions cut-zk cut heal), of which deploy/chaos-docker.sh is the one for the
 * compose deployment ("docker"); deploy/netns-cluster.sh writes one for its namespaces.
 * A kind the backend cannot do (the local backend cuts no network) is left out of the
 * run, and the first line says so.
 *
 * Thread-safety: a monkey is driven from one thread (start, stop, events, free); its own
 * thread is the only one that touches the cluster through it. Events are read after
 * chaos_stop or chaos_wait returned.
 */
#ifndef STRATA_TOOLS_CHAOS_H
#define STRATA_TOOLS_CHAOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum chaos_kind {
    CHAOS_KILL_RS = 0, /* kill -9 a region server, restart it once its regions reopened */
    CHAOS_KILL_MASTER, /* kill -9 the active master, restart it after a backup took over */
    CHAOS_RESTART_BACKUP_MASTER, /* kill -9 a backup master and start it again */
    CHAOS_PAUSE_RS,              /* SIGSTOP a region server past the session timeout, SIGCONT */
    CHAOS_RESTART_ZK,            /* kill -9 ZooKeeper, start it again within the session timeout */
    CHAOS_MOVE,                  /* move a random region to another server */
    CHAOS_FLUSH,                 /* flush a random region */
    CHAOS_COMPACT,               /* major-compact a random region */
    CHAOS_BALANCE,               /* run the balancer (force) */
    CHAOS_SPLIT,                 /* split a random region where its server suggests */
    CHAOS_MERGE,                 /* merge two adjacent regions */
    CHAOS_ROLLING_RESTART,       /* restart every region server, one after the other */
    CHAOS_KILL_MOVE_SOURCE,      /* move a region and kill -9 its source while it moves */
    CHAOS_KILL_MOVE_DEST,        /* move a region and kill -9 its destination while it moves */
    CHAOS_KILL_DURING_FLUSH,     /* flush a region and kill -9 its server while it flushes */
    CHAOS_KILL_DURING_COMPACT,   /* major-compact a region, kill -9 its server while it compacts */
    CHAOS_KILL_RS_THEN_MASTER,   /* kill -9 a region server, then the active master seconds later */
    CHAOS_KILL_ALL_RS,           /* kill -9 every region server at once */
    CHAOS_PARTITION_RS_ZK,       /* cut a region server off from ZooKeeper (not from clients),
                                  * heal once its regions reopened elsewhere */
    CHAOS_PARTITION_MASTER,      /* cut the active master off from everyone, heal after a
                                  * backup took over */
    CHAOS_KINDS
} chaos_kind;

/* "kill-rs", "kill-master", ... (docs/chaos.md); NULL for a value out of range. */
const char *chaos_kind_name(chaos_kind k);
/* The kind called name: ST_OK, or ST_INVALID_ARGUMENT. */
int chaos_kind_parse(const char *name, chaos_kind *out);

#define CHAOS_MAX_TABLES 16

typedef struct chaos_opts {
    /* The cluster: a local cluster directory, or a quorum and parent with a control
     * backend other than local. */
    const char *dir;
    const char *zk_quorum, *zk_parent;
    const char *control; /* NULL or "local", "docker", "script:PATH" */
    /* The schedule. */
    const char *policy; /* calm, slowDeterministic (default), serverKilling,
                         * serverAndDependenciesKilling, noKill */
    uint32_t kinds;     /* a mask of 1u << kind: only these (0: the policy's) */
    int period_ms;      /* between action starts; 0: the policy's */
    int duration_ms;    /* 0: no limit */
    int actions;        /* 0: no limit (a run needs one of duration and actions) */
    uint64_t seed;      /* 0: from the clock (printed, so a run can be replayed) */
    /* What the actions act on: these tables (NULL-terminated prefix of tables[]); none:
     * every user table. */
    const char *tables[CHAOS_MAX_TABLES];
    size_t ntables;
    /* Timings; 0: the defaults of docs/chaos.md. */
    int pause_ms;            /* pause-rs: how long; session timeout + 2000 */
    int zk_down_ms;          /* restart-zk: down time; a third of the session timeout */
    int master_delay_ms;     /* kill-rs-then-master: the delay; 2000 */
    int recovery_timeout_ms; /* per action; 90000 */
    int settle_timeout_ms;   /* per action; 120000 */
    int session_timeout_ms;  /* when not local (a local cluster's is in its state); 6000 */
    FILE *log;               /* the action log; NULL: stderr */
    bool json_log;           /* each event also as one JSON line */
} chaos_opts;

/* Sets an option by its flag name without the leading "--" ("policy", "period-ms", ...;
 * docs/chaos.md lists them): ST_OK, ST_NOT_FOUND if name is no monkey option, or
 * ST_INVALID_ARGUMENT for a bad value. */
int chaos_opt_set(chaos_opts *o, const char *name, const char *value);
/* The options' help lines (for a tool that takes them with a prefix, e.g. "monkey-"). */
void chaos_opts_help(FILE *f, const char *prefix);

typedef struct chaos_event {
    chaos_kind kind;
    int seq;          /* 1, 2, ... */
    char target[96];  /* rs-2, master-1, zk, a region's encoded name, "3 servers" ... */
    char server[128]; /* the server instance hit ("host,port,startcode"), if one */
    int64_t wall_ms;  /* the fault's wall time */
    uint64_t t_start, t_recovered, t_end; /* monotonic ns; 0: did not happen */
    bool kills;       /* the action killed or stopped a server (an MTTR is measured) */
    bool skipped;     /* nothing to act on (no backup master, one region ...) */
    bool failed;      /* the action, its recovery or the settle failed */
    char detail[300]; /* what happened, or why it failed or was skipped */
} chaos_event;

typedef struct chaos_monkey chaos_monkey;

/* Checks the options, opens the cluster and starts the monkey's thread. ST_OK and *out,
 * or the failure (nothing runs). */
int chaos_start(const chaos_opts *o, chaos_monkey **out);
/* Whether the run ended by its own bounds (chaos_wait then returns at once). */
bool chaos_finished(const chaos_monkey *m);
/* Waits until the run ended by its own bounds. */
void chaos_wait(chaos_monkey *m);
/* Asks the monkey to stop after the action under way (and its restore) and waits. */
void chaos_stop(chaos_monkey *m);
/* The events so far (valid until chaos_free). */
size_t chaos_events(const chaos_monkey *m, const chaos_event **out);
/* The seed the run used. */
uint64_t chaos_seed(const chaos_monkey *m);
void chaos_free(chaos_monkey *m);

/* The summary of a run: actions by kind (done, skipped, failed) and the MTTR of the
 * kinds that kill (median, p90, max), as text or one JSON object. */
void chaos_summary(FILE *f, const chaos_event *ev, size_t n, bool json);
/* Whether every action that was not skipped recovered and settled. */
bool chaos_all_ok(const chaos_event *ev, size_t n);

/* `strata chaos ...` (tools/chaos_main.c). */
int chaos_main(int argc, char **argv);

#endif
