/*
 * cluster_ops.c - `strata cluster status | stop | kill | restart` on a local cluster
 * recorded in <dir>/cluster.state (docs/cluster.md).
 *
 *   status   prints every process (alive or dead, address, role), the active master,
 *            the region servers registered and the master's GetClusterStatus summary;
 *            exits 0 when every process runs and a master is active, else 1.
 *   stop     SIGTERM to the region servers, then the masters, then ZooKeeper; each group
 *            gets the timeout to exit before SIGKILL. Exits 0.
 *   kill     SIGKILL to one process (master-active: the one ZooKeeper names).
 *   restart  SIGTERM (SIGKILL after 30 s), then the same command line and ports again;
 *            waits until ZooKeeper answers "imok" or the server's ready file appears.
 *   add      one more region server (the next rs-N, new ports), started and waited for
 *            as restart does; stop, kill and restart know it from then on.
 *
 * Thread-safety: none needed; one command on one thread.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/status.h"
#include "tools/cluster_internal.h"

#define RESTART_STOP_WAIT_MS 30000
#define KILL_WAIT_MS 5000
#define STATUS_TIMEOUT_MS 3000

static int read_state(const char *cmd, const char *dir, cluster_state *s)
{
    int rc = cluster_state_read(dir, s);
    if (rc != ST_OK)
        fprintf(stderr, "strata cluster %s: %s\n", cmd, st_errmsg());
    return rc;
}

/* ---- status ---- */

int cluster_status_main(const char *dir)
{
    cluster_state s;
    cluster_view v;
    zk *z = NULL;
    admin_rpc *a = NULL;
    if (read_state("status", dir, &s) != ST_OK)
        return 1;
    if (cluster_alive(&s, cluster_state_find(&s, "zk")) &&
        cluster_zk_open(&s, STATUS_TIMEOUT_MS, &z) != ST_OK)
        z = NULL;
    if (z && admin_rpc_open(s.quorum, s.parent, &a) == ST_OK)
        admin_rpc_set_timeout_ms(a, STATUS_TIMEOUT_MS);
    cluster_view_read(&s, z, a, &v);
    cluster_view_print(&s, &v, stdout);
    bool healthy = v.active >= 0;
    for (size_t i = 0; i < s.nprocs; i++)
        healthy = healthy && cluster_alive(&s, &s.procs[i]);
    admin_rpc_close(a);
    zk_close(z);
    cluster_state_clear(&s);
    return healthy ? 0 : 1;
}

/* ---- stop ---- */

/* SIGTERM to every process of kind, then waits; prints what happened. */
static void stop_kind(cluster_state *s, cluster_kind kind, int timeout_ms)
{
    cluster_proc *group[CLUSTER_MAX_PROCS];
    size_t n = 0;
    for (size_t i = 0; i < s->nprocs; i++) {
        cluster_proc *p = &s->procs[i];
        if (p->kind == kind && cluster_signal(s, p, SIGTERM))
            group[n++] = p;
    }
    if (n == 0)
        return;
    int killed = cluster_wait_dead(s, group, n, timeout_ms);
    for (size_t i = 0; i < n; i++)
        printf("stopped %s (pid %ld)\n", group[i]->name, (long)group[i]->pid);
    if (killed)
        printf("  %d of them did not exit within %d ms after SIGTERM: killed (SIGKILL)\n", killed,
               timeout_ms);
}

int cluster_stop_main(const char *dir, int timeout_ms)
{
    cluster_state s;
    if (read_state("stop", dir, &s) != ST_OK)
        return 1;
    stop_kind(&s, CLUSTER_REST, timeout_ms);
    stop_kind(&s, CLUSTER_RS, timeout_ms);
    stop_kind(&s, CLUSTER_MASTER, timeout_ms);
    stop_kind(&s, CLUSTER_ZK, timeout_ms);
    if (s.rs_cpu_quota > 0 && cluster_caps_remove(&s) != ST_OK)
        fprintf(stderr, "strata cluster stop: %s\n", st_errmsg());
    printf("cluster in %s stopped\n", s.dir);
    cluster_state_clear(&s);
    return 0;
}

/* ---- kill ---- */

int cluster_kill_main(const char *dir, const char *name)
{
    cluster_state s;
    int status = 1;
    if (read_state("kill", dir, &s) != ST_OK)
        return 1;
    cluster_proc *p = cluster_resolve(&s, name);
    if (!p)
        fprintf(stderr, "strata cluster kill: %s\n", st_errmsg());
    else if (!cluster_signal(&s, p, SIGKILL))
        fprintf(stderr, "strata cluster kill: %s (pid %ld) is not running\n", p->name,
                (long)p->pid);
    else {
        cluster_wait_dead(&s, &p, 1, KILL_WAIT_MS);
        printf("killed %s (pid %ld)\n", p->name, (long)p->pid);
        status = 0;
    }
    cluster_state_clear(&s);
    return status;
}

/* ---- restart ---- */

/* Waits until p's ready file exists (servers) or ZooKeeper answers (zk). */
static int wait_started(const cluster_state *s, const cluster_proc *p, int timeout_ms)
{
    char ready[CLUSTER_PATH_MAX];
    if (p->kind == CLUSTER_ZK)
        return cluster_wait_zk(s, p, timeout_ms);
    cluster_ready_path(s, p->name, ready, sizeof(ready));
    uint64_t deadline = clock_mono_ns() + (uint64_t)timeout_ms * 1000000ull;
    while (access(ready, F_OK) != 0) {
        if (!cluster_alive(s, p))
            return cluster_exited(s, p);
        if (clock_mono_ns() >= deadline)
            return st_error(ST_TIMEOUT, "%s did not write %s within %d ms", p->name, ready,
                            timeout_ms);
        clock_sleep_ms(100);
    }
    return ST_OK;
}

int cluster_restart_proc(cluster_state *s, cluster_proc *p, int timeout_ms)
{
    char ready[CLUSTER_PATH_MAX];
    int rc = ST_OK;
    /* Also when it is no longer ours to signal: one on its way out (its main thread gone)
     * still holds its ports, and a new one started now could not listen. */
    bool termed = cluster_signal(s, p, SIGTERM);
    if (cluster_wait_dead(s, &p, 1, RESTART_STOP_WAIT_MS) > 0)
        fprintf(stderr, "%s did not exit within %d ms%s: killed (SIGKILL)\n", p->name,
                RESTART_STOP_WAIT_MS, termed ? " after SIGTERM" : "");
    cluster_ready_path(s, p->name, ready, sizeof(ready));
    unlink(ready);
    if (p->kind == CLUSTER_ZK)
        rc = cluster_write_zoo_cfg(s, p->rpc_port);
    if (rc == ST_OK)
        rc = cluster_spawn(s, p);
    if (rc == ST_OK)
        rc = cluster_state_write(s);
    if (rc == ST_OK)
        rc = wait_started(s, p, timeout_ms);
    return rc;
}

int cluster_restart_main(const char *dir, const char *name, int timeout_ms)
{
    cluster_state s;
    int status = 1;
    if (read_state("restart", dir, &s) != ST_OK)
        return 1;
    cluster_proc *p = cluster_resolve(&s, name);
    if (!p)
        fprintf(stderr, "strata cluster restart: %s\n", st_errmsg());
    else if (cluster_restart_proc(&s, p, timeout_ms) != ST_OK)
        fprintf(stderr, "strata cluster restart: %s\n", st_errmsg());
    else {
        printf("restarted %s (pid %ld) on 127.0.0.1:%d\n", p->name, (long)p->pid, p->rpc_port);
        status = 0;
    }
    cluster_state_clear(&s);
    return status;
}

/* ---- add ---- */

int cluster_add_main(const char *dir, int timeout_ms)
{
    cluster_state s;
    if (read_state("add", dir, &s) != ST_OK)
        return 1;
    int status = 1, index = 0, ports[2];
    for (size_t i = 0; i < s.nprocs; i++) {
        cluster_kind k;
        int x = 0;
        if (cluster_name_parse(s.procs[i].name, &k, &x) == ST_OK && k == CLUSTER_RS && x > index)
            index = x;
    }
    int rc = s.nprocs < CLUSTER_MAX_PROCS
                 ? cluster_free_ports(ports, 2)
                 : st_error(ST_INVALID_ARGUMENT, "%d processes already", CLUSTER_MAX_PROCS);
    cluster_proc *p = NULL;
    if (rc == ST_OK) {
        p = &s.procs[s.nprocs++];
        memset(p, 0, sizeof(*p));
        p->kind = CLUSTER_RS;
        p->rpc_port = ports[0];
        p->http_port = ports[1];
        snprintf(p->name, sizeof(p->name), "rs-%d", index + 1);
        char ready[CLUSTER_PATH_MAX];
        cluster_ready_path(&s, p->name, ready, sizeof(ready));
        unlink(ready);
        rc = cluster_spawn(&s, p);
    }
    bool spawned = rc == ST_OK;
    if (rc == ST_OK)
        rc = cluster_state_write(&s);
    if (rc != ST_OK && spawned) {
        /* Not recorded: nothing could stop it later. Gone again, with its cgroup. */
        char why[512];
        snprintf(why, sizeof(why), "%s", st_errmsg());
        cluster_signal(&s, p, SIGKILL);
        cluster_wait_dead(&s, &p, 1, KILL_WAIT_MS);
        if (s.rs_cpu_quota > 0)
            cluster_cap_remove_one(&s, p);
        st_error(rc, "%s", why);
    }
    if (rc == ST_OK)
        rc = wait_started(&s, p, timeout_ms);
    if (rc != ST_OK)
        fprintf(stderr, "strata cluster add: %s\n", st_errmsg());
    else {
        printf("added %s (pid %ld) on 127.0.0.1:%d\n", p->name, (long)p->pid, p->rpc_port);
        status = 0;
    }
    cluster_state_clear(&s);
    return status;
}
