/*
 * cluster_view.c - what a local cluster looks like now: which of its processes run, which
 * master ZooKeeper names active, which region servers are registered under <parent>/rs,
 * and the master's own summary (GetClusterStatus); printed by `strata cluster start` and
 * `strata cluster status` (format in docs/cluster.md).
 *
 * Thread-safety: none needed; one command on one thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "common/zk/znodes.h"
#include "tools/cluster_internal.h"

int cluster_zk_open(const cluster_state *s, int timeout_ms, zk **out)
{
    zk_options o = {.quorum = s->quorum,
                    .session_timeout_ms = s->session_timeout_ms > 0 ? s->session_timeout_ms : 6000,
                    .connect_timeout_ms = timeout_ms};
    return zk_open(&o, out);
}

/* The index of this cluster's process of kind listening on port, or -1. */
static int proc_by_port(const cluster_state *s, cluster_kind kind, int port)
{
    for (size_t i = 0; i < s->nprocs; i++)
        if (s->procs[i].kind == kind && s->procs[i].rpc_port == port)
            return (int)i;
    return -1;
}

static void read_registered(const cluster_state *s, zk *z, cluster_view *v)
{
    char **names = NULL;
    size_t n = 0;
    char *path = znodes_path(s->parent, ZNODE_RS, NULL);
    if (path && zk_children(z, path, &names, &n) == ST_OK) {
        for (size_t i = 0; i < n; i++) {
            server_name sn;
            int at = server_name_parse(names[i], &sn) == ST_OK
                         ? proc_by_port(s, CLUSTER_RS, sn.port)
                         : -1;
            if (at >= 0 && !v->registered[at]) {
                v->registered[at] = true;
                v->n_registered++;
            }
        }
        zk_names_free(names, n);
    }
    free(path);
}

static void read_status(admin_rpc *a, cluster_view *v)
{
    Strata__Master__GetClusterStatusResponse *st = NULL;
    if (admin_rpc_cluster_status(a, &st) != ST_OK) {
        snprintf(v->status_error, sizeof(v->status_error), "%s", st_errmsg());
        return;
    }
    v->has_status = true;
    v->live = (uint32_t)st->n_live_server;
    v->dead = (uint32_t)st->n_dead_server;
    v->rit = (uint32_t)st->n_in_transition;
    v->tables = st->has_tables ? st->tables : 0;
    v->regions = st->has_regions ? st->regions : 0;
    admin_rpc_free_msg(st);
}

void cluster_view_read(const cluster_state *s, zk *z, admin_rpc *a, cluster_view *v)
{
    memset(v, 0, sizeof(*v));
    v->active = -1;
    snprintf(v->status_error, sizeof(v->status_error), "not asked");
    if (z && zk_get_state(z) == ZK_CONNECTED) {
        v->zk_up = true;
        if (znodes_active_master(z, s->parent, &v->active_name, NULL) == ST_OK) {
            v->has_active = true;
            v->active = proc_by_port(s, CLUSTER_MASTER, v->active_name.port);
        }
        read_registered(s, z, v);
    }
    if (a)
        read_status(a, v);
}

static const char *role(const cluster_state *s, const cluster_view *v, size_t i, bool alive)
{
    const cluster_proc *p = &s->procs[i];
    if (p->kind == CLUSTER_MASTER && v->active == (int)i)
        return alive ? "active" : "stale-active"; /* its znode lives until its session ends */
    if (p->kind == CLUSTER_MASTER)
        return alive ? "backup" : "-";
    if (p->kind == CLUSTER_RS)
        return v->registered[i] ? "registered" : "unregistered";
    if (p->kind == CLUSTER_REST)
        return alive ? "rest" : "-";
    return v->zk_up ? "serving" : "-";
}

void cluster_view_print(const cluster_state *s, const cluster_view *v, FILE *out)
{
    char log[CLUSTER_PATH_MAX], addr[64], http[32], sn[SERVER_NAME_MAX];
    for (size_t i = 0; i < s->nprocs; i++) {
        const cluster_proc *p = &s->procs[i];
        bool alive = cluster_alive(s, p);
        cluster_log_path(s, p->name, log, sizeof(log));
        snprintf(addr, sizeof(addr), "127.0.0.1:%d", p->rpc_port);
        if (p->http_port)
            snprintf(http, sizeof(http), "http %d", p->http_port);
        else
            snprintf(http, sizeof(http), "-");
        fprintf(out, "%-10s pid %-8ld %-5s %-16s %-10s %-12s log %s\n", p->name, (long)p->pid,
                alive ? "alive" : "dead", addr, http, role(s, v, i, alive), log);
    }
    fprintf(out, "zookeeper: %s (parent %s)%s\n", s->quorum, s->parent,
            v->zk_up ? "" : " not reachable");
    if (v->has_active) {
        server_name_format(&v->active_name, sn, sizeof(sn));
        bool gone = v->active >= 0 && !cluster_alive(s, &s->procs[v->active]);
        fprintf(out, "active master: %s (%s)%s\n",
                v->active >= 0 ? s->procs[v->active].name : "not of this cluster", sn,
                gone ? " not running: its znode goes when its session expires" : "");
    } else {
        fprintf(out, "active master: none\n");
    }
    fprintf(out, "region servers registered: %zu of %zu\n", v->n_registered,
            cluster_state_count(s, CLUSTER_RS));
    if (s->rs_cpu_quota > 0) {
        char cg[CLUSTER_PATH_MAX];
        cluster_cgroup_path(s, "rs-N", cg, sizeof(cg));
        fprintf(out, "region server CPU cap: %.2f CPU each (cpu.cfs_quota_us %ld of 100000 in %s)\n",
                s->rs_cpu_quota, cluster_cap_quota_us(s->rs_cpu_quota), cg);
    }
    if (v->has_status)
        fprintf(out,
                "master status: %u live servers, %u dead, %u tables, %u regions, "
                "%u in transition\n",
                v->live, v->dead, v->tables, v->regions, v->rit);
    else
        fprintf(out, "master status: unavailable (%s)\n", v->status_error);
}

cluster_proc *cluster_resolve(cluster_state *s, const char *name)
{
    if (strcmp(name, "master-active") != 0) {
        cluster_kind kind;
        int index;
        if (cluster_name_parse(name, &kind, &index) != ST_OK)
            return NULL;
        cluster_proc *p = cluster_state_find(s, name);
        if (!p)
            st_error(ST_NOT_FOUND, "this cluster has no process %s", name);
        return p;
    }
    zk *z = NULL;
    cluster_view v;
    if (cluster_zk_open(s, 5000, &z) != ST_OK) {
        st_error(ST_CONNECTION, "master-active: ZooKeeper %s is not reachable", s->quorum);
        return NULL;
    }
    cluster_view_read(s, z, NULL, &v);
    zk_close(z);
    if (v.active < 0) {
        st_error(ST_NOT_FOUND, "master-active: %s",
                 v.has_active ? "the active master is not "
                                "one of this cluster's"
                              : "no master is active");
        return NULL;
    }
    return &s->procs[v.active];
}
