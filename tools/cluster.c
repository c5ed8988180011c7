/*
 * cluster.c - `strata cluster`: a whole cluster on loopback for development and tests
 * (docs/cluster.md). This file holds the dispatch and `start`; status, stop, kill and
 * restart are in cluster_ops.c, the state file in cluster_state.c, the processes in
 * cluster_proc.c.
 *
 * start:
 *   make <dir>/{zk,root,logs,run} -> pick every port (free loopback ports, kept for
 *   restarts) -> zoo.cfg, start ZooKeeper, wait for "imok" -> start the masters, then the
 *   region servers (each detached; the state file is rewritten after each start) -> wait
 *   until <parent>/master names a master, every region server is registered under
 *   <parent>/rs and GetClusterStatus shows no region in transition -> print the cluster.
 *   A start that fails kills what it started (logs stay in <dir>/logs) and exits 1.
 *
 * Thread-safety: none needed; one command on one thread.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fileio.h"
#include "common/log.h"
#include "common/status.h"
#include "tools/cluster_internal.h"
#include "tools/tools.h"

#define DEFAULT_DIR "./strata-cluster"
#define DEFAULT_RS 3
#define DEFAULT_MASTERS 1
#define DEFAULT_SESSION_MS 6000
#define DEFAULT_START_WAIT_MS 60000
#define DEFAULT_STOP_WAIT_MS 30000
#define ZK_START_WAIT_MS 30000
#define READY_POLL_MS 200

static void usage(FILE *out)
{
    fprintf(out,
            "usage: strata cluster start [--regionservers N (3)] [--masters M (1)] [--dir D]\n"
            "                            [--session-timeout-ms T (6000)] [--timeout-ms W (60000)]\n"
            "                            [--regionserver.cpu.quota F] [--rest K (0)]\n"
            "                            [--KEY=VALUE ...]\n"
            "       strata cluster status  [--dir D]\n"
            "       strata cluster stop    [--dir D] [--timeout-ms W (30000)]\n"
            "       strata cluster kill    [--dir D] NAME\n"
            "       strata cluster restart [--dir D] [--timeout-ms W (60000)] NAME\n"
            "       strata cluster add     [--dir D] [--timeout-ms W (60000)]\n"
            "  a local cluster on 127.0.0.1: a private ZooKeeper, masters and region servers,\n"
            "  each a detached process logging to D/logs/NAME.log (D defaults to %s).\n"
            "  NAME: zk, master-N, rs-N, rest-N, or master-active (the one ZooKeeper names).\n"
            "  --rest K starts K REST gateways (docs/rest.md). --KEY=VALUE goes to every\n"
            "  server; --master.* only to masters, --regionserver.* only to region servers,\n"
            "  --rest.* only to REST gateways. --regionserver.cpu.quota F caps each\n"
            "  region server at F CPUs (a cgroup v1 CPU quota). add starts one more region\n"
            "  server. docs/cluster.md\n",
            DEFAULT_DIR);
}

/* ---- options ---- */

typedef struct start_opts {
    int rs, masters, session_ms, wait_ms, rest;
    double cpu_quota;
    const char *dir;
    const char *extra[CLUSTER_MAX_ARGS];
    size_t nextra;
} start_opts;

/* "--name V" or "--name=V": the value (advancing *i past it), or NULL if argv[*i] is not
 * this option. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] == '\0' && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

static int parse_int_opt(const char *name, const char *v, long lo, long hi, int *out)
{
    char *end = NULL;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi)
        return st_error(ST_INVALID_ARGUMENT, "%s %s: want a number in %ld..%ld", name, v, lo, hi);
    *out = (int)x;
    return ST_OK;
}

/* "--key=value" with a key and no blanks (it is written to the state file as one word). */
static bool is_server_flag(const char *a)
{
    return strncmp(a, "--", 2) == 0 && a[2] != '=' && strchr(a, '=') && !strpbrk(a, " \t\r\n");
}

static int add_extra(start_opts *o, const char *flag)
{
    if (o->nextra == CLUSTER_MAX_ARGS)
        return st_error(ST_INVALID_ARGUMENT, "more than %d server flags", CLUSTER_MAX_ARGS);
    o->extra[o->nextra++] = flag;
    return ST_OK;
}

static int parse_start(int argc, char **argv, start_opts *o)
{
    *o = (start_opts){.rs = DEFAULT_RS,
                      .masters = DEFAULT_MASTERS,
                      .session_ms = DEFAULT_SESSION_MS,
                      .wait_ms = DEFAULT_START_WAIT_MS,
                      .rest = 0,
                      .cpu_quota = 0,
                      .dir = DEFAULT_DIR};
    int rc = ST_OK;
    for (int i = 1; i < argc && rc == ST_OK; i++) {
        const char *v;
        if ((v = opt_value(argc, argv, &i, "--regionservers")))
            rc = parse_int_opt("--regionservers", v, 1, 32, &o->rs);
        else if ((v = opt_value(argc, argv, &i, "--rest")))
            rc = parse_int_opt("--rest", v, 0, 8, &o->rest);
        else if ((v = opt_value(argc, argv, &i, "--masters")))
            rc = parse_int_opt("--masters", v, 1, 32, &o->masters);
        else if ((v = opt_value(argc, argv, &i, "--session-timeout-ms")))
            rc = parse_int_opt("--session-timeout-ms", v, 400, 120000, &o->session_ms);
        else if ((v = opt_value(argc, argv, &i, "--timeout-ms")))
            rc = parse_int_opt("--timeout-ms", v, 1000, 3600000, &o->wait_ms);
        else if ((v = opt_value(argc, argv, &i, "--dir")))
            o->dir = v;
        else if ((v = opt_value(argc, argv, &i, "--regionserver.cpu.quota")))
            rc = cluster_cap_parse(v, &o->cpu_quota);
        else if (is_server_flag(argv[i]))
            rc = add_extra(o, argv[i]);
        else
            rc = st_error(ST_INVALID_ARGUMENT, "unknown argument '%s'", argv[i]);
    }
    if (rc == ST_OK && strlen(o->dir) > CLUSTER_DIR_MAX - 64)
        rc = st_error(ST_INVALID_ARGUMENT, "--dir %s: path too long", o->dir);
    return rc;
}

/* ---- start ---- */

/* Makes the directories; fails if a cluster recorded there still runs. */
static int prepare_dir(const char *dir, cluster_state *s)
{
    cluster_state old;
    int rc = cluster_state_read(dir, &old);
    if (rc == ST_OK) {
        for (size_t i = 0; i < old.nprocs; i++)
            if (cluster_alive(&old, &old.procs[i])) {
                cluster_state_clear(&old);
                return st_error(ST_EXISTS,
                                "a cluster is running in %s (%s is alive); stop it first: "
                                "strata cluster stop --dir %s",
                                dir, old.procs[i].name, dir);
            }
        cluster_state_clear(&old);
    }
    if ((rc = fio_mkdirs(dir)) != ST_OK)
        return rc;
    if (!realpath(dir, s->dir))
        return st_error(st_from_errno(errno), "cluster: %s: %s", dir, strerror(errno));
    const char *subs[] = {"zk/data", "root", "logs", "run"};
    for (size_t i = 0; rc == ST_OK && i < sizeof(subs) / sizeof(subs[0]); i++) {
        char path[CLUSTER_PATH_MAX];
        snprintf(path, sizeof(path), "%s/%s", s->dir, subs[i]);
        rc = fio_mkdirs(path);
    }
    return rc;
}

static void add_proc(cluster_state *s, cluster_kind kind, int index, int rpc, int http)
{
    cluster_proc *p = &s->procs[s->nprocs++];
    memset(p, 0, sizeof(*p));
    p->kind = kind;
    p->rpc_port = rpc;
    p->http_port = http;
    if (kind == CLUSTER_ZK)
        snprintf(p->name, sizeof(p->name), "zk");
    else
        snprintf(p->name, sizeof(p->name), "%s-%d",
                 kind == CLUSTER_MASTER ? "master" : kind == CLUSTER_REST ? "rest" : "rs", index);
}

/* Names, ports and settings of every process (nothing started yet). */
static int plan(const start_opts *o, cluster_state *s)
{
    int ports[CLUSTER_MAX_PROCS * 2];
    size_t need = 1 + 2 * (size_t)(o->masters + o->rs) + (size_t)o->rest, k = 0;
    int rc = cluster_free_ports(ports, need);
    if (rc != ST_OK)
        return rc;
    snprintf(s->quorum, sizeof(s->quorum), "127.0.0.1:%d", ports[0]);
    snprintf(s->parent, sizeof(s->parent), "%s", ZNODES_DEFAULT_PARENT);
    s->session_timeout_ms = o->session_ms;
    s->rs_cpu_quota = o->cpu_quota;
    add_proc(s, CLUSTER_ZK, 0, ports[k++], 0);
    for (int i = 1; i <= o->masters; i++, k += 2)
        add_proc(s, CLUSTER_MASTER, i, ports[k], ports[k + 1]);
    for (int i = 1; i <= o->rs; i++, k += 2)
        add_proc(s, CLUSTER_RS, i, ports[k], ports[k + 1]);
    for (int i = 1; i <= o->rest; i++, k++)
        add_proc(s, CLUSTER_REST, i, ports[k], ports[k]);
    for (size_t i = 0; i < o->nextra; i++)
        if (!(s->args[s->nargs++] = strdup(o->extra[i])))
            return st_error(ST_NOMEM, "cluster: out of memory");
    return ST_OK;
}

/* Starts every process of kind (removing stale ready files first). */
static int launch(cluster_state *s, cluster_kind kind)
{
    int rc = ST_OK;
    for (size_t i = 0; rc == ST_OK && i < s->nprocs; i++) {
        cluster_proc *p = &s->procs[i];
        char ready[CLUSTER_PATH_MAX];
        if (p->kind != kind)
            continue;
        cluster_ready_path(s, p->name, ready, sizeof(ready));
        unlink(ready);
        rc = cluster_spawn(s, p);
        if (rc == ST_OK)
            rc = cluster_state_write(s);
    }
    return rc;
}

/* A process that should run but does not: ST_IO naming it and quoting its log. */
static int check_running(const cluster_state *s)
{
    for (size_t i = 0; i < s->nprocs; i++) {
        const cluster_proc *p = &s->procs[i];
        if (p->pid > 0 && !cluster_alive(s, p))
            return cluster_exited(s, p);
    }
    return ST_OK;
}

/* What still keeps the cluster from being ready, into why ("" when ready). */
static void not_ready(const cluster_state *s, const cluster_view *v, char *why, size_t cap)
{
    why[0] = '\0';
    if (!v->zk_up)
        snprintf(why, cap, "no ZooKeeper session to %s", s->quorum);
    else if (v->active < 0)
        snprintf(why, cap, "no master of this cluster is active in %s/master", s->parent);
    else if (v->n_registered < cluster_state_count(s, CLUSTER_RS))
        snprintf(why, cap, "%zu of %zu region servers registered under %s/rs", v->n_registered,
                 cluster_state_count(s, CLUSTER_RS), s->parent);
    else if (!v->has_status)
        snprintf(why, cap, "the master did not answer GetClusterStatus: %s", v->status_error);
    else if (v->live < cluster_state_count(s, CLUSTER_RS))
        snprintf(why, cap, "the master has heard from %u of %zu region servers", v->live,
                 cluster_state_count(s, CLUSTER_RS));
    else if (v->rit > 0)
        snprintf(why, cap, "%u regions in transition", v->rit);
    for (size_t i = 0; !why[0] && i < s->nprocs; i++) {
        char ready[CLUSTER_PATH_MAX];
        cluster_ready_path(s, s->procs[i].name, ready, sizeof(ready));
        if (s->procs[i].kind == CLUSTER_REST && access(ready, F_OK) != 0)
            snprintf(why, cap, "REST gateway %s is not listening yet", s->procs[i].name);
    }
}

/* Waits until the cluster is ready (file comment), at most wait_ms; v is the last look. */
static int wait_ready(const cluster_state *s, int wait_ms, cluster_view *v)
{
    uint64_t deadline = clock_mono_ns() + (uint64_t)wait_ms * 1000000ull;
    zk *z = NULL;
    admin_rpc *a = NULL;
    char why[400] = "not looked yet";
    int rc = admin_rpc_open(s->quorum, s->parent, &a);
    if (rc == ST_OK)
        admin_rpc_set_timeout_ms(a, 2000);
    while (rc == ST_OK) {
        if (!z && cluster_zk_open(s, 2000, &z) != ST_OK)
            z = NULL;
        cluster_view_read(s, z, a, v);
        not_ready(s, v, why, sizeof(why));
        if (!why[0] || (rc = check_running(s)) != ST_OK)
            break;
        if (clock_mono_ns() >= deadline) {
            rc = st_error(ST_TIMEOUT, "the cluster was not ready within %d ms: %s", wait_ms, why);
            break;
        }
        clock_sleep_ms(READY_POLL_MS);
    }
    admin_rpc_close(a);
    zk_close(z);
    return rc;
}

/* Kills everything started (a failed start leaves nothing running). */
static void kill_all(cluster_state *s)
{
    cluster_proc *all[CLUSTER_MAX_PROCS];
    for (size_t i = 0; i < s->nprocs; i++) {
        all[i] = &s->procs[i];
        cluster_signal(s, all[i], SIGKILL);
    }
    cluster_wait_dead(s, all, s->nprocs, 5000);
}

static int start_all(cluster_state *s, const start_opts *o, cluster_view *v)
{
    cluster_proc *zkp = &s->procs[0];
    int rc = cluster_write_zoo_cfg(s, zkp->rpc_port);
    if (rc == ST_OK)
        rc = launch(s, CLUSTER_ZK);
    if (rc == ST_OK)
        rc = cluster_wait_zk(s, zkp, ZK_START_WAIT_MS);
    if (rc == ST_OK)
        rc = launch(s, CLUSTER_MASTER);
    if (rc == ST_OK)
        rc = launch(s, CLUSTER_RS);
    if (rc == ST_OK)
        rc = launch(s, CLUSTER_REST);
    if (rc == ST_OK)
        rc = wait_ready(s, o->wait_ms, v);
    return rc;
}

int cluster_start_main(int argc, char **argv)
{
    start_opts o;
    cluster_state s;
    cluster_view v;
    memset(&s, 0, sizeof(s));
    int rc = parse_start(argc, argv, &o);
    if (rc != ST_OK) {
        fprintf(stderr, "strata cluster start: %s\n", st_errmsg());
        usage(stderr);
        return 2;
    }
    rc = prepare_dir(o.dir, &s);
    if (rc == ST_OK)
        rc = plan(&o, &s);
    if (rc == ST_OK)
        rc = start_all(&s, &o, &v);
    if (rc != ST_OK) {
        fprintf(stderr, "strata cluster start: %s\n", st_errmsg());
        if (s.nprocs) {
            kill_all(&s);
            cluster_caps_remove(&s);
            fprintf(stderr, "strata cluster start: stopped what was started; logs in %s/logs\n",
                    s.dir);
        }
        cluster_state_clear(&s);
        return 1;
    }
    cluster_view_print(&s, &v, stdout);
    printf("cluster directory: %s (state %s/%s); stop it with: strata cluster stop --dir %s\n",
           s.dir, s.dir, CLUSTER_STATE_FILE, s.dir);
    cluster_state_clear(&s);
    return 0;
}

/* ---- dispatch ---- */

/* The options of status/stop/kill/restart: --dir, --timeout-ms, and one NAME. */
static int parse_common(int argc, char **argv, const char **dir, int *timeout_ms, const char **name)
{
    for (int i = 1; i < argc; i++) {
        const char *v;
        if ((v = opt_value(argc, argv, &i, "--dir")))
            *dir = v;
        else if ((v = opt_value(argc, argv, &i, "--timeout-ms"))) {
            if (parse_int_opt("--timeout-ms", v, 100, 3600000, timeout_ms) != ST_OK)
                return ST_INVALID_ARGUMENT;
        } else if (name && !*name && argv[i][0] != '-')
            *name = argv[i];
        else
            return st_error(ST_INVALID_ARGUMENT, "unknown argument '%s'", argv[i]);
    }
    if (name && !*name)
        return st_error(ST_INVALID_ARGUMENT, "a process NAME is needed");
    return ST_OK;
}

int cluster_main(int argc, char **argv)
{
    if (!getenv("STRATA_LOG_LEVEL")) /* the tool reports what matters itself */
        log_set_level(LOG_LEVEL_ERROR);
    const char *sub = argc > 1 ? argv[1] : "";
    const char *dir = DEFAULT_DIR, *name = NULL;
    bool needs_name = strcmp(sub, "kill") == 0 || strcmp(sub, "restart") == 0;
    bool starts = strcmp(sub, "restart") == 0 || strcmp(sub, "add") == 0;
    int timeout_ms = starts ? DEFAULT_START_WAIT_MS : DEFAULT_STOP_WAIT_MS;
    if (strcmp(sub, "help") == 0 || strcmp(sub, "--help") == 0 || strcmp(sub, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(sub, "start") == 0)
        return cluster_start_main(argc - 1, argv + 1);
    if (strcmp(sub, "status") != 0 && strcmp(sub, "stop") != 0 && strcmp(sub, "add") != 0 &&
        !needs_name) {
        fprintf(stderr, "strata cluster: unknown subcommand '%s'\n", sub);
        usage(stderr);
        return 2;
    }
    if (parse_common(argc - 1, argv + 1, &dir, &timeout_ms, needs_name ? &name : NULL) != ST_OK) {
        fprintf(stderr, "strata cluster %s: %s\n", sub, st_errmsg());
        usage(stderr);
        return 2;
    }
    if (strcmp(sub, "status") == 0)
        return cluster_status_main(dir);
    if (strcmp(sub, "stop") == 0)
        return cluster_stop_main(dir, timeout_ms);
    if (strcmp(sub, "kill") == 0)
        return cluster_kill_main(dir, name);
    if (strcmp(sub, "add") == 0)
        return cluster_add_main(dir, timeout_ms);
    return cluster_restart_main(dir, name, timeout_ms);
}
