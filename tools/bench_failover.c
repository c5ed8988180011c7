/*
 * bench_failover.c - `strata bench failover`: a failover drill against a local cluster
 * (`strata cluster`, docs/cluster.md). Writers and readers run through the C client
 * (bench_failover_load.c) while faults of one kind are injected one after the other; for
 * each fault the drill reports the stall every client thread saw (from its own monotonic
 * timestamps) and how long until the table's regions were open again (polled from the
 * master), and at the end every acknowledged row is read back. docs/performance.md,
 * "Failover drill", has the options, the output and the figures.
 *
 * One fault, as driven by run_fault():
 *
 *   settled --inject()--> faulted --poll_until(recovered)--> recovered
 *      ^                                                          |
 *      |                                         after_fault(): restart what was killed,
 *      +------ wait_settled() <--- resume a paused server, restart it if it exited
 *
 *   inject     kill             SIGKILL a region server holding regions of the table
 *              pause            SIGSTOP one (SIGCONT after --pause-ms, from the poll loop)
 *              master           SIGKILL the active master (/strata/master names it)
 *              move             strata_admin_move of a random region to another server
 *              kill-after-move  a move, then at once SIGKILL of its destination
 *              split, merge     strata_admin_split_region at the middle of a region's keys,
 *                               strata_admin_merge_regions of two adjacent regions
 *   recovered  every region of the table OPEN on a server the master lists live, other
 *              than the faulted one (kill, pause while stopped, kill-after-move); for a
 *              move also the region on its destination; for a split the parent gone, for
 *              a merge both parents gone and the merged region there. For a master kill
 *              this is when a master answers again (the regions never closed).
 *   settled    recovered, no region in transition, every process of the cluster running
 *              and every region server live at the master. The next fault then also
 *              waits until every client thread has succeeded again (wait_resumed), and
 *              --interval-ms more.
 *
 * The fault's instant is the monotonic time just before its signal or admin call; its
 * window, over which each thread's longest gap counts, runs from there to the next
 * fault's instant (or the end of the load, one --interval-ms after the last fault
 * settled), so that a stall a thread meets only after the master shows the regions open
 * (a stale cached location found later) still counts.
 * Polls run on this (the main) thread, every --poll-ms, through their own admin handle
 * with a POLL_TIMEOUT_MS timeout, independently of the client threads; a poll that fails
 * (no master) counts as not recovered. A recovery is the end of the first poll that saw
 * the state, so it is late by at most one poll's length.
 *
 * Thread-safety: the drill is single-threaded; only the load has threads.
 */
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/status.h"
#include "strata/admin.h"
#include "strata/strata.h"
#include "tools/bench.h"
#include "tools/bench_failover.h"
#include "tools/cluster_internal.h"
#include "tools/tools.h"

#define FAMILY "f"
#define QUALIFIER "q"
#define DEFAULT_TABLE "FailoverTable"
#define MAX_REGIONS 256
#define POLL_TIMEOUT_MS 1000
#define DDL_TIMEOUT_MS 60000
#define RESTART_TIMEOUT_MS 60000
#define KEY_HEX 8
#define KEY_SPACE 0x100000000ull
#define PICK_TRIES 8

typedef enum fault_kind {
    FAULT_KILL = 0,
    FAULT_PAUSE,
    FAULT_MASTER,
    FAULT_MOVE,
    FAULT_KILL_AFTER_MOVE,
    FAULT_SPLIT,
    FAULT_MERGE,
    FAULT_KINDS
} fault_kind;

static const char *const kind_names[FAULT_KINDS] = {
    "kill", "pause", "master", "move", "kill-after-move", "split", "merge"};

typedef struct fo_opts {
    const char *dir, *table;
    fault_kind kind;
    int faults, interval_ms, writers, readers, batch, regions, value_size;
    double rate;
    int pause_ms;                      /* 0: session timeout + 2 s */
    int rpc_timeout_ms, op_timeout_ms; /* 0: the client's defaults */
    int recovery_timeout_ms, settle_timeout_ms, poll_ms;
    bool json;
} fo_opts;

typedef struct region_view {
    char name[64], server[128];
    strata_region_state state;
    char start[KEY_HEX + 1], end[KEY_HEX + 1];
    size_t start_len, end_len; /* 0: unbounded; > KEY_HEX: not one of our keys */
} region_view;

/* One poll of the master: the table's regions and the live servers. */
typedef struct snapshot {
    bool ok;
    char error[300];
    region_view r[MAX_REGIONS];
    size_t n;
    char live[CLUSTER_MAX_PROCS][128];
    size_t nlive, rit;
} snapshot;

/* What a fault did and what recovery means for it. */
typedef struct fault_rec {
    char target[64];     /* rs-2, master-1, or a region's encoded name */
    char server[128];    /* the faulted server instance ("host,port,startcode"), if any */
    char dest[128];      /* move: where the region went */
    char regions[2][64]; /* split: the parent; merge: the parents */
    char merged[64];
    cluster_proc *proc;                       /* the process signalled, if any */
    uint64_t t_fault, t_recovered, t_settled; /* monotonic ns; 0: did not happen */
    bool failed;
    char error[300];
} fault_rec;

typedef struct drill {
    fo_opts o;
    cluster_state cs;
    strata_admin_t *admin; /* DDL, moves, splits, merges */
    strata_admin_t *poll;  /* polls, short timeout */
    snapshot *snap;
    uint64_t rng;
    cluster_proc *paused; /* stopped, to be resumed at resume_ns */
    uint64_t resume_ns;
} drill;

/* ---- arguments ---- */

static void usage(FILE *f)
{
    fprintf(f, "usage: strata bench failover --dir D --fault KIND [--faults N] [--interval-ms MS]\n"
               "           [--writers W] [--readers R] [--batch B] [--regions N] [--rate OPS]\n"
               "           [--pause-ms MS] [--rpc-timeout-ms MS] [--operation-timeout-ms MS]\n"
               "           [--recovery-timeout-ms MS] [--settle-timeout-ms MS] [--poll-ms MS]\n"
               "           [--value-size B] [--table NAME] [--json]\n"
               "  KIND: kill pause master move kill-after-move split merge\n");
}

static void help(FILE *f)
{
    usage(f);
    fprintf(f,
            "  A failover drill on a local cluster (strata cluster start --dir D ...): writers\n"
            "  and readers through the C client while N faults of one kind are injected, each\n"
            "  after the cluster settled again. Per fault: the longest gap between successful\n"
            "  calls of each thread overlapping it, and the time until every region was open\n"
            "  again (polled from the master); then every acknowledged row is read back.\n"
            "  --fault KIND        kill: kill -9 a region server holding regions (restarted\n"
            "                      after recovery); pause: SIGSTOP one for --pause-ms, then\n"
            "                      SIGCONT (restarted if it exited); master: kill -9 the active\n"
            "                      master (restarted as a backup); move: a random region to\n"
            "                      another server; kill-after-move: a move, then kill -9 of its\n"
            "                      destination; split, merge: through the admin API\n"
            "  --faults N          faults (default 10)\n"
            "  --interval-ms MS    load before the first fault and between faults, after the\n"
            "                      cluster settled (default 3000)\n"
            "  --writers W, --readers R  client threads (default 2 and 2)\n"
            "  --batch B           rows per write call: 1 a put, > 1 a batch (default 1)\n"
            "  --regions N         the table's regions at creation (default 6)\n"
            "  --rate OPS          calls per second per thread, 0 unpaced (default 200)\n"
            "  --pause-ms MS       pause length (default the session timeout + 2000)\n"
            "  --rpc-timeout-ms MS, --operation-timeout-ms MS  the client's timeouts\n"
            "  --recovery-timeout-ms MS  per fault (default 60000); --settle-timeout-ms MS\n"
            "                      (default 90000); --poll-ms MS master polls (default 50)\n"
            "  --value-size B      value bytes (default 64); --table NAME (default %s,\n"
            "                      dropped and created again)\n"
            "  --json              one JSON object per fault, then a summary\n"
            "  Exit status: 0 if every fault recovered and settled, every acknowledged row\n"
            "  read back, and no read missed and no call failed with a non-retryable error;\n"
            "  1 otherwise; 2 for a usage error.\n",
            DEFAULT_TABLE);
}

static bool parse_kind(const char *v, fault_kind *k)
{
    for (int i = 0; i < FAULT_KINDS; i++)
        if (strcmp(v, kind_names[i]) == 0) {
            *k = (fault_kind)i;
            return true;
        }
    return false;
}

/* An integer flag's value in [lo, hi]. */
static bool int_arg(const char *flag, const char *v, int lo, int hi, int *out)
{
    char *end = NULL;
    long x = strtol(v, &end, 10);
    if (end == v || *end || x < lo || x > hi) {
        fprintf(stderr, "strata bench failover: %s needs a number in %d..%d, not '%s'\n", flag, lo,
                hi, v);
        return false;
    }
    *out = (int)x;
    return true;
}

typedef struct int_flag {
    const char *name;
    size_t off;
    int lo, hi;
} int_flag;

#define FLAG(n, field, lo, hi)                                                                     \
    {                                                                                              \
        n, offsetof(fo_opts, field), lo, hi                                                        \
    }
static const int_flag int_flags[] = {
    FLAG("--faults", faults, 1, 1000),
    FLAG("--interval-ms", interval_ms, 0, 3600000),
    FLAG("--writers", writers, 1, BFO_MAX_THREADS / 2),
    FLAG("--readers", readers, 0, BFO_MAX_THREADS / 2),
    FLAG("--batch", batch, 1, 10000),
    FLAG("--regions", regions, 2, 64),
    FLAG("--value-size", value_size, BFO_ROW_MAX, 1 << 20),
    FLAG("--pause-ms", pause_ms, 1, 600000),
    FLAG("--rpc-timeout-ms", rpc_timeout_ms, 1, 600000),
    FLAG("--operation-timeout-ms", op_timeout_ms, 1, 3600000),
    FLAG("--recovery-timeout-ms", recovery_timeout_ms, 100, 3600000),
    FLAG("--settle-timeout-ms", settle_timeout_ms, 100, 3600000),
    FLAG("--poll-ms", poll_ms, 10, 10000),
};

static int parse_args(int argc, char **argv, fo_opts *o)
{
    *o = (fo_opts){.table = DEFAULT_TABLE,
                   .kind = FAULT_KINDS,
                   .faults = 10,
                   .interval_ms = 3000,
                   .writers = 2,
                   .readers = 2,
                   .batch = 1,
                   .regions = 6,
                   .value_size = 64,
                   .rate = 200,
                   .recovery_timeout_ms = 60000,
                   .settle_timeout_ms = 90000,
                   .poll_ms = 50};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool done = false;
        for (size_t f = 0; v && f < sizeof(int_flags) / sizeof(int_flags[0]); f++)
            if (strcmp(a, int_flags[f].name) == 0) {
                if (!int_arg(a, v, int_flags[f].lo, int_flags[f].hi,
                             (int *)((char *)o + int_flags[f].off)))
                    return 2;
                done = true;
                i++;
            }
        if (done)
            continue;
        if (strcmp(a, "--json") == 0) {
            o->json = true;
        } else if (v && strcmp(a, "--dir") == 0) {
            o->dir = v, i++;
        } else if (v && strcmp(a, "--table") == 0) {
            o->table = v, i++;
        } else if (v && strcmp(a, "--rate") == 0) {
            o->rate = atof(v), i++;
        } else if (v && strcmp(a, "--fault") == 0) {
            if (!parse_kind(v, &o->kind)) {
                fprintf(stderr, "strata bench failover: unknown fault '%s'\n", v);
                return 2;
            }
            i++;
        } else {
            fprintf(stderr, "strata bench failover: bad argument '%s'\n", a);
            return 2;
        }
    }
    if (!o->dir || o->kind == FAULT_KINDS || o->rate < 0) {
        fprintf(stderr, "strata bench failover: need --dir D and --fault KIND (rate >= 0)\n");
        return 2;
    }
    return 0;
}

/* ---- small helpers ---- */

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static double ms_between(uint64_t from, uint64_t to)
{
    return to >= from ? (double)(to - from) / 1e6 : 0;
}

static void sleep_until(uint64_t t)
{
    uint64_t now = clock_mono_ns();
    if (t > now) {
        uint64_t d = t - now;
        struct timespec ts = {(time_t)(d / 1000000000ull), (long)(d % 1000000000ull)};
        nanosleep(&ts, NULL);
    }
}

static void fail(fault_rec *f, const char *what, const char *why)
{
    if (!f->failed)
        snprintf(f->error, sizeof(f->error), "%.40s: %.250s", what, why ? why : "?");
    f->failed = true;
}

/* The rpc port of "host,port,startcode" (or "host:port"), or -1. */
static int port_of(const char *server)
{
    const char *p = server ? strpbrk(server, ",:") : NULL;
    return p ? atoi(p + 1) : -1;
}

/* The cluster's region server process listening where server does, or NULL. */
static cluster_proc *rs_of(drill *d, const char *server)
{
    int port = port_of(server);
    for (size_t i = 0; i < d->cs.nprocs; i++)
        if (d->cs.procs[i].kind == CLUSTER_RS && d->cs.procs[i].rpc_port == port)
            return &d->cs.procs[i];
    return NULL;
}

/* ---- polls ---- */

static void copy_key(const char *k, size_t len, char *out, size_t *out_len)
{
    *out_len = len;
    if (len <= KEY_HEX)
        memcpy(out, k, len);
    out[len <= KEY_HEX ? len : 0] = 0;
}

static void read_regions(const strata_region_list_t *l, snapshot *s)
{
    s->n = 0;
    for (size_t i = 0; i < strata_region_list_count(l) && s->n < MAX_REGIONS; i++) {
        const strata_region_t *r = strata_region_list_get(l, i);
        region_view *v = &s->r[s->n++];
        const char *srv = strata_region_server(r);
        size_t len = 0;
        snprintf(v->name, sizeof(v->name), "%s", strata_region_encoded_name(r));
        snprintf(v->server, sizeof(v->server), "%s", srv ? srv : "");
        v->state = strata_region_state_of(r);
        const char *k = strata_region_start_key(r, &len);
        copy_key(k, len, v->start, &v->start_len);
        k = strata_region_end_key(r, &len);
        copy_key(k, len, v->end, &v->end_len);
    }
}

static void read_status(const strata_cluster_status_t *st, snapshot *s)
{
    s->nlive = 0;
    for (size_t i = 0;
         i < strata_cluster_status_live_server_count(st) && s->nlive < CLUSTER_MAX_PROCS; i++)
        snprintf(s->live[s->nlive++], sizeof(s->live[0]), "%s",
                 strata_server_load_name(strata_cluster_status_live_server(st, i)));
    s->rit = strata_cluster_status_in_transition_count(st);
}

/* Asks the master for the table's regions and the cluster status into s. */
static void take_snapshot(drill *d, snapshot *s)
{
    char *err = NULL;
    s->ok = false;
    strata_region_list_t *l = strata_admin_table_regions(d->poll, d->o.table, &err);
    strata_cluster_status_t *st = err ? NULL : strata_admin_cluster_status(d->poll, &err);
    if (err) {
        snprintf(s->error, sizeof(s->error), "%s", err);
    } else {
        read_regions(l, s);
        read_status(st, s);
        s->ok = true;
    }
    strata_free(err);
    strata_region_list_destroy(l);
    strata_cluster_status_destroy(st);
}

static bool is_live(const snapshot *s, const char *server)
{
    for (size_t i = 0; i < s->nlive; i++)
        if (strcmp(s->live[i], server) == 0)
            return true;
    return false;
}

static const region_view *find_region(const snapshot *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->r[i].name, name) == 0)
            return &s->r[i];
    return NULL;
}

/* Every region OPEN on a live server other than excluded (NULL: any). */
static bool all_open(const snapshot *s, const char *excluded)
{
    if (!s->ok || s->n == 0)
        return false;
    for (size_t i = 0; i < s->n; i++) {
        const region_view *r = &s->r[i];
        if (r->state != STRATA_REGION_OPEN || !r->server[0] || !is_live(s, r->server) ||
            (excluded && excluded[0] && strcmp(r->server, excluded) == 0))
            return false;
    }
    return true;
}

static bool settled(drill *d, const snapshot *s)
{
    if (!all_open(s, NULL) || s->rit > 0 || s->nlive != cluster_state_count(&d->cs, CLUSTER_RS))
        return false;
    for (size_t i = 0; i < d->cs.nprocs; i++)
        if (!cluster_alive(&d->cs, &d->cs.procs[i]))
            return false;
    return true;
}

/* Resumes the paused server once it is due (or now, with force). */
static void resume_due(drill *d, bool force)
{
    if (d->paused && (force || clock_mono_ns() >= d->resume_ns)) {
        cluster_signal(&d->cs, d->paused, SIGCONT);
        d->paused = NULL;
    }
}

typedef bool (*snap_pred)(drill *d, const snapshot *s, const fault_rec *f);

/* Polls every poll_ms until pred holds (true, *when the end of that poll) or the
 * deadline passes (false). Resumes a paused server when due. */
static bool poll_until(drill *d, snap_pred pred, const fault_rec *f, uint64_t deadline,
                       uint64_t *when)
{
    for (;;) {
        resume_due(d, false);
        uint64_t start = clock_mono_ns();
        take_snapshot(d, d->snap);
        uint64_t end = clock_mono_ns();
        if (pred(d, d->snap, f)) {
            *when = end;
            return true;
        }
        if (end >= deadline)
            return false;
        uint64_t next = start + (uint64_t)d->o.poll_ms * 1000000ull;
        if (d->paused && d->resume_ns < next)
            next = d->resume_ns;
        sleep_until(next < deadline ? next : deadline);
    }
}

static bool pred_settled(drill *d, const snapshot *s, const fault_rec *f)
{
    (void)f;
    return settled(d, s);
}

static bool pred_recovered(drill *d, const snapshot *s, const fault_rec *f)
{
    bool excluding = d->o.kind == FAULT_KILL || d->o.kind == FAULT_KILL_AFTER_MOVE ||
                     (d->o.kind == FAULT_PAUSE && d->paused);
    if (!all_open(s, excluding ? f->server : NULL))
        return false;
    switch (d->o.kind) {
    case FAULT_MOVE: {
        const region_view *r = find_region(s, f->target);
        return r &&
               (f->dest[0] ? strcmp(r->server, f->dest) == 0 : strcmp(r->server, f->server) != 0);
    }
    case FAULT_SPLIT:
        return !find_region(s, f->regions[0]);
    case FAULT_MERGE:
        return !find_region(s, f->regions[0]) && !find_region(s, f->regions[1]) &&
               (!f->merged[0] || find_region(s, f->merged));
    default:
        return true;
    }
}

static int wait_settled(drill *d, uint64_t *when)
{
    uint64_t deadline = clock_mono_ns() + (uint64_t)d->o.settle_timeout_ms * 1000000ull;
    uint64_t t = 0;
    if (poll_until(d, pred_settled, NULL, deadline, &t)) {
        if (when)
            *when = t;
        return ST_OK;
    }
    return st_error(ST_TIMEOUT, "the cluster did not settle within %d ms (%s)",
                    d->o.settle_timeout_ms,
                    d->snap->ok ? "regions not all open, in transition or servers not all live"
                                : d->snap->error);
}

/* ---- the table ---- */

static int create_table(drill *d)
{
    char *err = NULL;
    strata_table_state state;
    strata_table_descriptor_t *old =
        strata_admin_describe_table(d->admin, d->o.table, &state, NULL, &err);
    strata_free(err);
    err = NULL;
    if (old && state != STRATA_TABLE_DISABLED)
        strata_admin_disable_table(d->admin, d->o.table, &err);
    if (old && !err)
        strata_admin_delete_table(d->admin, d->o.table, &err);
    strata_table_descriptor_destroy(old);
    char keys[64][16];
    const char *kp[64];
    size_t kl[64];
    for (int i = 1; i < d->o.regions; i++) {
        snprintf(keys[i - 1], sizeof(keys[0]), "%08x",
                 (unsigned)((uint64_t)i * KEY_SPACE / (uint64_t)d->o.regions));
        kp[i - 1] = keys[i - 1];
        kl[i - 1] = KEY_HEX;
    }
    strata_table_descriptor_t *td = err ? NULL : strata_table_descriptor_create(d->o.table);
    if (td && strata_table_descriptor_add_family(td, FAMILY))
        strata_admin_create_table(d->admin, td, kp, kl, (size_t)d->o.regions - 1, &err);
    strata_table_descriptor_destroy(td);
    int rc = err ? st_error(ST_IO, "table %s: %s", d->o.table, err) : ST_OK;
    strata_free(err);
    return rc;
}

/* ---- faults ---- */

/* A random region server process holding regions of the table, its instance in
 * server. */
static cluster_proc *pick_holder(drill *d, char *server, size_t cap)
{
    const snapshot *s = d->snap;
    if (s->n == 0)
        return NULL;
    size_t start = (size_t)(next_rand(&d->rng) % s->n);
    for (size_t k = 0; k < s->n; k++) {
        const region_view *r = &s->r[(start + k) % s->n];
        cluster_proc *p = r->server[0] ? rs_of(d, r->server) : NULL;
        if (p && cluster_alive(&d->cs, p)) {
            snprintf(server, cap, "%s", r->server);
            return p;
        }
    }
    return NULL;
}

static void inject_signal(drill *d, fault_rec *f, int sig)
{
    cluster_proc *p = pick_holder(d, f->server, sizeof(f->server));
    if (!p) {
        fail(f, kind_names[d->o.kind], "no running region server holds a region of the table");
        return;
    }
    f->proc = p;
    snprintf(f->target, sizeof(f->target), "%s", p->name);
    f->t_fault = clock_mono_ns();
    if (!cluster_signal(&d->cs, p, sig)) {
        fail(f, p->name, "not running");
        return;
    }
    if (sig == SIGSTOP) {
        int ms = d->o.pause_ms ? d->o.pause_ms : d->cs.session_timeout_ms + 2000;
        d->paused = p;
        d->resume_ns = f->t_fault + (uint64_t)ms * 1000000ull;
    }
}

static void inject_master(drill *d, fault_rec *f)
{
    cluster_proc *p = cluster_resolve(&d->cs, "master-active");
    if (!p) {
        fail(f, "master-active", st_errmsg());
        return;
    }
    f->proc = p;
    snprintf(f->target, sizeof(f->target), "%s", p->name);
    f->t_fault = clock_mono_ns();
    if (!cluster_signal(&d->cs, p, SIGKILL))
        fail(f, p->name, "not running");
}

/* A live server other than the region's: "host,port,startcode" into out. */
static bool pick_dest(drill *d, const char *source, char *out, size_t cap)
{
    const snapshot *s = d->snap;
    if (s->nlive < 2)
        return false;
    size_t start = (size_t)(next_rand(&d->rng) % s->nlive);
    for (size_t k = 0; k < s->nlive; k++) {
        const char *c = s->live[(start + k) % s->nlive];
        if (strcmp(c, source) != 0) {
            snprintf(out, cap, "%s", c);
            return true;
        }
    }
    return false;
}

static void inject_move(drill *d, fault_rec *f)
{
    const snapshot *s = d->snap;
    const region_view *r = s->n ? &s->r[next_rand(&d->rng) % s->n] : NULL;
    char dest[128], *err = NULL;
    if (!r || !pick_dest(d, r->server, dest, sizeof(dest))) {
        fail(f, "move", "no region, or no other live server");
        return;
    }
    snprintf(f->target, sizeof(f->target), "%s", r->name);
    snprintf(f->server, sizeof(f->server), "%s", r->server);
    f->t_fault = clock_mono_ns();
    char *to = strata_admin_move(d->admin, r->name, dest, &err);
    snprintf(f->dest, sizeof(f->dest), "%s", to && to[0] ? to : dest);
    strata_free(to);
    if (err) {
        fail(f, "move", err);
        strata_free(err);
        return;
    }
    if (d->o.kind != FAULT_KILL_AFTER_MOVE)
        return;
    /* The destination: the moved region is hit a second time, just opened, with the
     * edits written since the move only in the destination's WAL, and the clients that
     * followed the move find the new location dead. */
    f->proc = rs_of(d, f->dest);
    snprintf(f->server, sizeof(f->server), "%s", f->dest);
    if (f->proc)
        snprintf(f->target, sizeof(f->target), "%.32s->%.16s", r->name, f->proc->name);
    if (!f->proc || !cluster_signal(&d->cs, f->proc, SIGKILL))
        fail(f, "kill-after-move", "the destination is not one of the cluster's running servers");
}

/* The 8-hex-digit key of a region bound (empty: the space's start or end). */
static bool key_value(const char *k, size_t len, uint64_t empty, uint64_t *v)
{
    if (len == 0) {
        *v = empty;
        return true;
    }
    char *end = NULL;
    if (len != KEY_HEX)
        return false;
    *v = strtoull(k, &end, 16);
    return end == k + KEY_HEX;
}

static void inject_split(drill *d, fault_rec *f)
{
    const snapshot *s = d->snap;
    char *err = NULL;
    for (int tries = 0; tries < PICK_TRIES && s->n; tries++) {
        const region_view *r = &s->r[next_rand(&d->rng) % s->n];
        uint64_t lo, hi;
        if (!key_value(r->start, r->start_len, 0, &lo) ||
            !key_value(r->end, r->end_len, KEY_SPACE, &hi) || hi - lo < 2)
            continue;
        char mid[16];
        snprintf(mid, sizeof(mid), "%08x", (unsigned)(lo + (hi - lo) / 2));
        snprintf(f->target, sizeof(f->target), "%s", r->name);
        snprintf(f->regions[0], sizeof(f->regions[0]), "%s", r->name);
        strata_free(err);
        err = NULL;
        f->t_fault = clock_mono_ns();
        strata_admin_split_region(d->admin, r->name, (const unsigned char *)mid, KEY_HEX, &err);
        /* A daughter holding references is refused; another region may not be. */
        if (!err || strata_error_code(err) != STRATA_ERR_INVALID_ARGUMENT)
            break;
    }
    if (err || !f->t_fault)
        fail(f, "split", err ? err : "no region to split");
    strata_free(err);
}

static void inject_merge(drill *d, fault_rec *f)
{
    const snapshot *s = d->snap;
    char *err = NULL;
    for (int tries = 0; tries < PICK_TRIES && s->n >= 2; tries++) {
        size_t i = (size_t)(next_rand(&d->rng) % (s->n - 1));
        const char *names[2] = {s->r[i].name, s->r[i + 1].name};
        snprintf(f->target, sizeof(f->target), "%s", names[0]);
        snprintf(f->regions[0], sizeof(f->regions[0]), "%s", names[0]);
        snprintf(f->regions[1], sizeof(f->regions[1]), "%s", names[1]);
        strata_free(err);
        err = NULL;
        f->t_fault = clock_mono_ns();
        char *merged = strata_admin_merge_regions(d->admin, names, 2, 0, &err);
        snprintf(f->merged, sizeof(f->merged), "%s", merged ? merged : "");
        strata_free(merged);
        if (!err || strata_error_code(err) != STRATA_ERR_INVALID_ARGUMENT)
            break;
    }
    if (err || !f->t_fault)
        fail(f, "merge", err ? err : "fewer than two regions");
    strata_free(err);
}

static void inject(drill *d, fault_rec *f)
{
    switch (d->o.kind) {
    case FAULT_KILL:
        inject_signal(d, f, SIGKILL);
        break;
    case FAULT_PAUSE:
        inject_signal(d, f, SIGSTOP);
        break;
    case FAULT_MASTER:
        inject_master(d, f);
        break;
    case FAULT_MOVE:
    case FAULT_KILL_AFTER_MOVE:
        inject_move(d, f);
        break;
    case FAULT_SPLIT:
        inject_split(d, f);
        break;
    default:
        inject_merge(d, f);
        break;
    }
}

/* A paused server is resumed (when due); it finds its session expired and exits. */
static void wait_exit_after_pause(drill *d, cluster_proc *p)
{
    sleep_until(d->resume_ns);
    resume_due(d, true);
    uint64_t deadline = clock_mono_ns() + (uint64_t)(d->cs.session_timeout_ms + 5000) * 1000000ull;
    int ms = d->o.pause_ms ? d->o.pause_ms : d->cs.session_timeout_ms + 2000;
    if (ms <= d->cs.session_timeout_ms)
        return; /* its session did not expire: it goes on serving */
    while (cluster_alive(&d->cs, p) && clock_mono_ns() < deadline)
        clock_sleep_ms(100);
}

/* Restarts what the fault took down, once the regions recovered. */
static void after_fault(drill *d, fault_rec *f)
{
    cluster_proc *p = f->proc;
    if (d->o.kind == FAULT_PAUSE && p)
        wait_exit_after_pause(d, p);
    if (p && !cluster_alive(&d->cs, p) &&
        cluster_restart_proc(&d->cs, p, RESTART_TIMEOUT_MS) != ST_OK)
        fail(f, "restart", st_errmsg());
}

static void run_fault(drill *d, fault_rec *f)
{
    take_snapshot(d, d->snap); /* what the fault picks from: the cluster now */
    inject(d, f);
    if (!f->failed) {
        uint64_t deadline = f->t_fault + (uint64_t)d->o.recovery_timeout_ms * 1000000ull;
        if (!poll_until(d, pred_recovered, f, deadline, &f->t_recovered)) {
            f->t_recovered = 0;
            fail(f, "recovery", d->snap->ok ? "regions not open again in time" : d->snap->error);
        }
    }
    after_fault(d, f);
    if (wait_settled(d, &f->t_settled) != ST_OK) {
        f->t_settled = 0;
        fail(f, "settle", st_errmsg());
    }
    resume_due(d, true); /* never leave a server stopped */
}

/* ---- figures ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median and max of v[0..n) (sorted in place); 0 for none. */
static void med_max(double *v, size_t n, double *med, double *max)
{
    *med = *max = 0;
    if (n == 0)
        return;
    qsort(v, n, sizeof(*v), cmp_double);
    *med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    *max = v[n - 1];
}

typedef struct fault_figs {
    double stall, w_med, w_max, r_med, r_max;
    double thread[BFO_MAX_THREADS];
    double recovery, settled; /* ms after the fault; -1: never */
} fault_figs;

/* The fault's figures; its window ends at to (the next fault, or the end of the load). */
static void figures(const bfo_load *l, const fault_rec *f, uint64_t to, fault_figs *g)
{
    double w[BFO_MAX_THREADS], r[BFO_MAX_THREADS];
    size_t nw = 0, nr = 0, n = bfo_load_threads(l);
    memset(g, 0, sizeof(*g));
    for (size_t i = 0; i < n && f->t_fault; i++) {
        double ms = (double)bfo_load_stall_ns(l, i, f->t_fault, to) / 1e6;
        g->thread[i] = ms;
        if (bfo_load_is_writer(l, i))
            w[nw++] = ms;
        else
            r[nr++] = ms;
        g->stall = ms > g->stall ? ms : g->stall;
    }
    med_max(w, nw, &g->w_med, &g->w_max);
    med_max(r, nr, &g->r_med, &g->r_max);
    g->recovery = f->t_recovered ? ms_between(f->t_fault, f->t_recovered) : -1;
    g->settled = f->t_settled ? ms_between(f->t_fault, f->t_settled) : -1;
}

static void print_fault(const drill *d, const bfo_load *l, int i, const fault_rec *f,
                        const fault_figs *g)
{
    const char *kind = kind_names[d->o.kind];
    if (d->o.json) {
        printf("{\"fault\":\"%s\",\"index\":%d,\"target\":\"%s\",\"server\":\"%s\",\"dest\":\"%s\","
               "\"batch\":%d,\"stall_ms\":%.1f,\"writer_stall_median_ms\":%.1f,"
               "\"writer_stall_max_ms\":%.1f,\"reader_stall_median_ms\":%.1f,"
               "\"reader_stall_max_ms\":%.1f,\"thread_stall_ms\":[",
               kind, i + 1, f->target, f->server, f->dest, d->o.batch, g->stall, g->w_med, g->w_max,
               g->r_med, g->r_max);
        for (size_t t = 0; t < bfo_load_threads(l); t++)
            printf("%s%.1f", t ? "," : "", g->thread[t]);
        printf("],\"recovery_ms\":%.1f,\"settled_ms\":%.1f,\"ok\":%s", g->recovery, g->settled,
               f->failed ? "false" : "true");
        if (f->failed) {
            printf(",\"error\":");
            bench_json_string(f->error);
        }
        printf("}\n");
        return;
    }
    printf("fault %d/%d %-15s %-10s stall %8.1f ms (writers median %.1f max %.1f, readers "
           "median %.1f max %.1f)  recovered %8.1f ms  settled %8.1f ms%s%s\n",
           i + 1, d->o.faults, kind, f->target, g->stall, g->w_med, g->w_max, g->r_med, g->r_max,
           g->recovery, g->settled, f->failed ? "  FAILED: " : "", f->failed ? f->error : "");
}

typedef struct run_result {
    bfo_totals tot;
    bfo_verify ver;
    int failed_faults;
    bool ok;
} run_result;

static void print_summary(const drill *d, double *stalls, double *recs, size_t n, size_t nrec,
                          const run_result *r)
{
    double sm, sx, rm, rx;
    med_max(stalls, n, &sm, &sx);
    med_max(recs, nrec, &rm, &rx);
    const bfo_totals *t = &r->tot;
    const bfo_verify *v = &r->ver;
    if (d->o.json) {
        printf("{\"summary\":\"%s\",\"faults\":%zu,\"failed_faults\":%d,\"batch\":%d,"
               "\"writers\":%d,\"readers\":%d,\"stall_median_ms\":%.1f,\"stall_max_ms\":%.1f,"
               "\"recovery_median_ms\":%.1f,\"recovery_max_ms\":%.1f,\"write_calls\":%" PRIu64
               ",\"acked\":%" PRIu64 ",\"reads\":%" PRIu64 ",\"misses\":%" PRIu64
               ",\"retryable\":%" PRIu64 ",\"non_retryable\":%" PRIu64 ",\"read_back\":%" PRIu64
               ",\"missing\":%" PRIu64 ",\"ok\":%s}\n",
               kind_names[d->o.kind], n, r->failed_faults, d->o.batch, d->o.writers, d->o.readers,
               sm, sx, rm, rx, t->write_calls, t->acked, t->reads, t->misses, t->retryable,
               t->fatal, v->scanned + v->got, v->missing, r->ok ? "true" : "false");
        return;
    }
    printf("failover %s: %zu fault(s), batch %d, %d writer(s), %d reader(s): stall median %.1f ms "
           "max %.1f ms; recovery median %.1f ms max %.1f ms\n",
           kind_names[d->o.kind], n, d->o.batch, d->o.writers, d->o.readers, sm, sx, rm, rx);
    printf("load: %" PRIu64 " write calls, %" PRIu64 " rows acknowledged, %" PRIu64
           " reads, %" PRIu64 " misses, %" PRIu64 " retryable errors, %" PRIu64 " non-retryable\n",
           t->write_calls, t->acked, t->reads, t->misses, t->retryable, t->fatal);
    printf("read-back: %" PRIu64 " of %" PRIu64 " acknowledged rows (%" PRIu64
           " by the scan, %" PRIu64 " by gets), %" PRIu64 " missing%s%s\n",
           v->scanned + v->got, v->acked, v->scanned, v->got, v->missing,
           v->missing ? ", first " : "", v->missing ? v->first_missing : "");
    printf("result: %s\n", r->ok ? "OK" : "FAILED");
}

/* Prints every fault and the summary; decides r->ok. */
static void report(drill *d, const bfo_load *l, const fault_rec *faults, size_t n,
                   uint64_t load_end, run_result *r)
{
    double stalls[1000], recs[1000];
    size_t nrec = 0;
    for (size_t i = 0; i < n; i++) {
        fault_figs g;
        uint64_t to = i + 1 < n && faults[i + 1].t_fault ? faults[i + 1].t_fault : load_end;
        figures(l, &faults[i], to, &g);
        print_fault(d, l, (int)i, &faults[i], &g);
        stalls[i] = g.stall;
        if (g.recovery >= 0)
            recs[nrec++] = g.recovery;
        r->failed_faults += faults[i].failed;
    }
    r->ok = r->failed_faults == 0 && (int)n == d->o.faults && r->tot.fatal == 0 &&
            r->tot.misses == 0 && r->ver.missing == 0 && r->ver.foreign_rows == 0 &&
            (!r->ver.scan_failed || r->ver.scan_code == STRATA_ERR_RETRYABLE);
    print_summary(d, stalls, recs, n, nrec, r);
    for (size_t i = 0; bfo_load_error(l, i); i++)
        fprintf(stderr, "strata bench failover: non-retryable error: %s\n", bfo_load_error(l, i));
    for (size_t i = 0; bfo_load_miss(l, i); i++)
        fprintf(stderr, "strata bench failover: miss: %s\n", bfo_load_miss(l, i));
    if (r->ver.error[0])
        fprintf(stderr, "strata bench failover: read-back: %s\n", r->ver.error);
    if (r->ver.foreign_rows)
        fprintf(stderr,
                "strata bench failover: read-back: %" PRIu64 " rows with a bad key or value\n",
                r->ver.foreign_rows);
}

/* ---- the run ---- */

static strata_client_t *open_client(const drill *d, char **err)
{
    strata_options_t *o = strata_options_create();
    strata_options_set_zk_quorum(o, d->cs.quorum);
    strata_options_set_zk_parent(o, d->cs.parent);
    if (d->o.rpc_timeout_ms)
        strata_options_set_rpc_timeout_ms(o, d->o.rpc_timeout_ms);
    if (d->o.op_timeout_ms)
        strata_options_set_operation_timeout_ms(o, d->o.op_timeout_ms);
    strata_client_t *c = strata_client_open(o, err);
    strata_options_destroy(o);
    return c;
}

static int open_admins(drill *d)
{
    char *err = NULL;
    d->admin = strata_admin_open(d->cs.quorum, d->cs.parent, &err);
    if (d->admin)
        d->poll = strata_admin_open(d->cs.quorum, d->cs.parent, &err);
    int rc = err ? st_error(ST_INVALID_ARGUMENT, "admin: %s", err) : ST_OK;
    strata_free(err);
    if (rc == ST_OK) {
        strata_admin_set_timeout_ms(d->admin, DDL_TIMEOUT_MS);
        strata_admin_set_timeout_ms(d->poll, POLL_TIMEOUT_MS);
    }
    return rc;
}

/* Waits until every client thread succeeded again after the fault settled, so that the
 * next fault starts from a load that recovered too (a stall never spans two faults). */
static void wait_resumed(drill *d, const bfo_load *l, fault_rec *f)
{
    uint64_t deadline = clock_mono_ns() + (uint64_t)d->o.settle_timeout_ms * 1000000ull;
    while (f->t_settled && !bfo_load_resumed_since(l, f->t_settled)) {
        if (clock_mono_ns() >= deadline) {
            fail(f, "load", "a client thread had no successful call within the settle timeout");
            return;
        }
        clock_sleep_ms(10);
    }
}

/* Injects the faults one after the other into faults[]; returns how many ran. */
static size_t run_faults(drill *d, const bfo_load *l, fault_rec *faults)
{
    size_t n = 0;
    for (int i = 0; i < d->o.faults; i++) {
        sleep_until(clock_mono_ns() + (uint64_t)d->o.interval_ms * 1000000ull);
        fault_rec *f = &faults[n++];
        run_fault(d, f);
        wait_resumed(d, l, f);
        if (!d->o.json)
            fprintf(stderr, "strata bench failover: fault %d %s %s: recovered %s, %s\n", i + 1,
                    kind_names[d->o.kind], f->target, f->t_recovered ? "yes" : "no",
                    f->failed ? f->error : "settled");
        if (!f->t_settled)
            break; /* the next fault would not start from a settled cluster */
    }
    /* The load goes on for one more interval: a stall the last fault started shows. */
    sleep_until(clock_mono_ns() + (uint64_t)d->o.interval_ms * 1000000ull);
    return n;
}

static int drill_run(drill *d)
{
    char *err = NULL;
    strata_client_t *c = NULL;
    strata_table_t *t = NULL;
    bfo_load *l = NULL;
    fault_rec *faults = calloc((size_t)d->o.faults, sizeof(*faults));
    int rc = faults ? open_admins(d) : st_error(ST_NOMEM, "out of memory");
    if (rc == ST_OK)
        rc = create_table(d);
    if (rc == ST_OK)
        rc = wait_settled(d, NULL);
    if (rc == ST_OK && !(c = open_client(d, &err)))
        rc = st_error(ST_INVALID_ARGUMENT, "client: %s", err ? err : "?");
    if (rc == ST_OK && !(t = strata_table_open(c, d->o.table)))
        rc = st_error(ST_NOMEM, "out of memory");
    bfo_load_opts lo = {.table = t,
                        .family = FAMILY,
                        .qualifier = QUALIFIER,
                        .writers = d->o.writers,
                        .readers = d->o.readers,
                        .batch = d->o.batch,
                        .value_size = d->o.value_size,
                        .rate = d->o.rate};
    if (rc == ST_OK)
        rc = bfo_load_start(&lo, &l);
    if (rc != ST_OK)
        goto out;
    if (!d->o.json)
        printf("strata bench failover: %d %s fault(s) on %s, table %s (%zu regions), %d writer(s) "
               "(batch %d), %d reader(s), %.0f calls/s per thread\n",
               d->o.faults, kind_names[d->o.kind], d->cs.dir, d->o.table, d->snap->n, d->o.writers,
               d->o.batch, d->o.readers, d->o.rate);
    fflush(stdout);
    size_t n = run_faults(d, l, faults);
    uint64_t load_end = clock_mono_ns();
    bfo_load_stop(l);
    run_result r;
    memset(&r, 0, sizeof(r));
    bfo_load_totals(l, &r.tot);
    rc = bfo_load_verify(l, t, &r.ver);
    report(d, l, faults, n, load_end, &r);
    if (rc == ST_OK && !r.ok)
        rc = st_error(ST_IO, "the drill failed (see above)");
out:
    resume_due(d, true);
    bfo_load_free(l);
    strata_table_close(t);
    strata_client_close(c);
    strata_free(err);
    free(faults);
    return rc;
}

int bench_failover_main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            help(stdout);
            return 0;
        }
    drill d;
    memset(&d, 0, sizeof(d));
    if (parse_args(argc, argv, &d.o) != 0) {
        usage(stderr);
        return 2;
    }
    d.rng = clock_mono_ns() | 1;
    d.snap = calloc(1, sizeof(*d.snap));
    int rc = d.snap ? cluster_state_read(d.o.dir, &d.cs) : st_error(ST_NOMEM, "out of memory");
    if (rc == ST_OK && cluster_state_count(&d.cs, CLUSTER_RS) < 2)
        rc = st_error(ST_INVALID_ARGUMENT, "the cluster in %s has fewer than 2 region servers",
                      d.o.dir);
    if (rc == ST_OK && d.o.kind == FAULT_MASTER && cluster_state_count(&d.cs, CLUSTER_MASTER) < 2)
        rc = st_error(ST_INVALID_ARGUMENT, "a master drill needs a backup master (--masters 2)");
    if (rc == ST_OK)
        rc = drill_run(&d);
    if (rc != ST_OK)
        fprintf(stderr, "strata bench failover: %s\n", st_errmsg());
    strata_admin_close(d.poll);
    strata_admin_close(d.admin);
    cluster_state_clear(&d.cs);
    free(d.snap);
    return rc == ST_OK ? 0 : 1;
}
