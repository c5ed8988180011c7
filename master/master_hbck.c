/*
 * master_hbck.c - the master's side of `strata hbck` (docs/hbck.md): the report (meta as
 * stored, the live servers from the master and ZooKeeper, each live server's
 * AdminService.GetOnlineRegion, the root directory, the procedures) checked by
 * hbck_check.c, and HBCK2's repairs as MasterService calls: HbckReport,
 * HbckSetRegionState, HbckSetTableState, HbckFixMeta, HbckScheduleRecoveries, HbckBypass,
 * HbckSideline.
 *
 * Repairs respect the master's ownership rules (master_internal.h): a region is changed
 * only when taken, a table only when no DDL, split or merge has it; they refuse (and change
 * nothing) where an operation holds what they would touch. Nothing here removes a
 * directory holding data: fixMeta removes only empty orphan directories, the sideline
 * moves reference files aside.
 *
 * Thread-safety: handlers run on RPC handler threads; mu is never held across an RPC, a
 * ZooKeeper call, a meta write or file-system work. One fixMeta at a time (fix_mu).
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fileio.h"
#include "common/log.h"
#include "common/rpc/rpc_proto.h"
#include "common/status.h"
#include "master/hbck.h"
#include "master/master_internal.h"
#include "regionserver/storage/layout.h"
#include "regionserver/storage/region_fs.h"

#define HBCK_DEFAULT_STUCK_MS 60000

static pthread_mutex_t fix_mu = PTHREAD_MUTEX_INITIALIZER;

/* Everything one report read; freed by gathered_free. */
typedef struct gathered {
    char **tables_q; /* the tables asked for, qualified */
    size_t nq;
    meta_region *rows;
    size_t nrows;
    meta_table *tables;
    size_t ntables;
    hbck_region *regions;
    hbck_table *htables;
    hbck_server *servers;
    char **snames, **saddrs;
    char ***online;
    size_t nservers;
    char **recovering;
    size_t nrecovering;
    hbck_proc *procs;
    size_t nprocs;
    m_proc *mprocs;
    meta_proc *prow;
    size_t nprow;
    char (*prow_types)[64];
    hbck_fs fs;
    bool have_fs;
    hbck_input in;
} gathered;

static void free_strv(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

static void gathered_free(gathered *g)
{
    free_strv(g->tables_q, g->nq);
    meta_regions_free(g->rows, g->nrows);
    meta_tables_free(g->tables, g->ntables);
    free(g->regions);
    free(g->htables);
    for (size_t i = 0; i < g->nservers; i++)
        free_strv(g->online ? g->online[i] : NULL, g->servers ? g->servers[i].nregions : 0);
    free(g->online);
    free(g->servers);
    free_strv(g->snames, g->nservers);
    free_strv(g->saddrs, g->nservers);
    free_strv(g->recovering, g->nrecovering);
    free(g->procs);
    free(g->mprocs);
    meta_procs_free(g->prow, g->nprow);
    free(g->prow_types);
    if (g->have_fs)
        hbck_fs_free(&g->fs);
    memset(g, 0, sizeof(*g));
}

static bool str_in(char **v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0)
            return true;
    return false;
}

static int push_str(char ***v, size_t *n, const char *s)
{
    char **nv = realloc(*v, (*n + 1) * sizeof(*nv));
    if (!nv)
        return st_error(ST_NOMEM, "out of memory");
    *v = nv;
    if (!(nv[*n] = strdup(s)))
        return st_error(ST_NOMEM, "out of memory");
    (*n)++;
    return ST_OK;
}

static bool table_wanted(const gathered *g, const char *table)
{
    if (strcmp(table, META_TABLE_NAME) == 0)
        return false;
    return g->nq == 0 || str_in(g->tables_q, g->nq, table);
}

/* Adds a server's name and address; on failure neither (the two lists stay as long). */
static int push_server(gathered *g, const char *name, const char *addr)
{
    int rc = push_str(&g->snames, &g->nservers, name);
    size_t n = g->nservers - 1;
    if (rc == ST_OK && (rc = push_str(&g->saddrs, &n, addr)) != ST_OK)
        free(g->snames[--g->nservers]);
    return rc;
}

/* Whether the znode name at i is an older instance of a server on the same host and
 * port: one already gathered (the master's set), or another znode with a newer start
 * code. Its znode lives until its session expires, but its address now reaches the newer
 * process, whose regions must not be counted twice (as HBase drops a previous instance). */
static bool superseded(const gathered *g, char *const *names, size_t nn, size_t i,
                       const char *addr, const server_name *sn)
{
    if (str_in(g->saddrs, g->nservers, addr))
        return true;
    for (size_t j = 0; j < nn; j++) {
        server_name o;
        if (j != i && server_name_parse(names[j], &o) == ST_OK &&
            server_name_same_addr(&o, sn) && o.start_code > sn->start_code)
            return true;
    }
    return false;
}

/* The live servers: the master's set and <parent>/rs (a server the master has not heard
 * from yet still serves what it serves; an instance superseded on its host and port does
 * not). */
static int gather_servers(master *m, gathered *g)
{
    int rc = ST_OK;
    pthread_mutex_lock(&m->mu);
    for (size_t i = 0; rc == ST_OK && i < m->nservers; i++) {
        rc = push_server(g, m->servers[i]->name, m->servers[i]->addr);
    }
    for (size_t i = 0; rc == ST_OK && i < m->ncrash; i++)
        rc = push_str(&g->recovering, &g->nrecovering, m->crash[i]);
    pthread_mutex_unlock(&m->mu);
    char *path = znodes_path(m->parent, ZNODE_RS, NULL);
    char **names = NULL;
    size_t nn = 0;
    if (rc == ST_OK && path && master_zk_children(m, path, &names, &nn) == ST_OK) {
        for (size_t i = 0; rc == ST_OK && i < nn; i++) {
            server_name sn;
            if (str_in(g->snames, g->nservers, names[i]) || server_name_parse(names[i], &sn))
                continue;
            char addr[300];
            server_name_addr(&sn, addr, sizeof(addr));
            if (!superseded(g, names, nn, i, addr, &sn))
                rc = push_server(g, names[i], addr);
        }
    }
    free_strv(names, nn);
    free(path);
    path = znodes_path(m->parent, ZNODE_SPLIT_WAL, NULL);
    names = NULL;
    nn = 0;
    if (rc == ST_OK && path && master_zk_children(m, path, &names, &nn) == ST_OK)
        for (size_t i = 0; rc == ST_OK && i < nn; i++)
            if (!str_in(g->recovering, g->nrecovering, names[i]))
                rc = push_str(&g->recovering, &g->nrecovering, names[i]);
    free_strv(names, nn);
    free(path);
    return rc;
}

/* Each live server's online regions (of the tables asked for). */
static int gather_online(master *m, gathered *g)
{
    size_t n = g->nservers;
    g->servers = calloc(n ? n : 1, sizeof(*g->servers));
    g->online = calloc(n ? n : 1, sizeof(*g->online));
    if (!g->servers || !g->online)
        return st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        hbck_server *s = &g->servers[i];
        s->name = g->snames[i];
        Strata__Admin__GetOnlineRegionRequest req = STRATA__ADMIN__GET_ONLINE_REGION_REQUEST__INIT;
        Strata__Admin__GetOnlineRegionResponse *resp = NULL;
        int rc = master_rs_call(m, g->saddrs[i], "AdminService.GetOnlineRegion", &req.base,
                                &strata__admin__get_online_region_response__descriptor,
                                (ProtobufCMessage **)&resp);
        if (rc != ST_OK) {
            LOG_WARN("master %s: hbck: GetOnlineRegion on %s: %s", m->name, s->name, st_errmsg());
            continue;
        }
        s->reached = true;
        size_t k = 0;
        for (size_t j = 0; rc == ST_OK && j < resp->n_region; j++)
            if (table_wanted(g, resp->region[j]->table))
                rc = push_str(&g->online[i], &k, resp->region[j]->encoded_name);
        s->regions = (const char *const *)g->online[i];
        s->nregions = k;
        strata__admin__get_online_region_response__free_unpacked(resp, NULL);
        if (rc != ST_OK)
            return rc;
    }
    return ST_OK;
}

/* Meta as stored, with what memory adds (since, busy, DDLs). */
static int gather_meta(master *m, gathered *g)
{
    meta_region *all = NULL;
    size_t na = 0;
    int rc = meta_all_regions(m->meta, &all, &na);
    if (rc != ST_OK)
        return rc;
    g->rows = calloc(na ? na : 1, sizeof(*g->rows));
    if (!g->rows) {
        meta_regions_free(all, na);
        return st_error(ST_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < na; i++) {
        if (table_wanted(g, all[i].table)) {
            g->rows[g->nrows++] = all[i];
            memset(&all[i], 0, sizeof(all[i]));
        }
    }
    meta_regions_free(all, na);
    meta_table *tabs = NULL;
    size_t nt = 0;
    rc = meta_list_tables(m->meta, NULL, &tabs, &nt);
    if (rc != ST_OK)
        return rc;
    g->tables = calloc(nt ? nt : 1, sizeof(*g->tables));
    g->htables = calloc(nt ? nt : 1, sizeof(*g->htables));
    g->regions = calloc(g->nrows ? g->nrows : 1, sizeof(*g->regions));
    if (!g->tables || !g->htables || !g->regions) {
        meta_tables_free(tabs, nt);
        return st_error(ST_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < nt; i++)
        if (table_wanted(g, tabs[i].name)) {
            g->tables[g->ntables++] = tabs[i];
            memset(&tabs[i], 0, sizeof(tabs[i]));
        }
    meta_tables_free(tabs, nt);
    for (size_t i = 0; i < g->nq; i++) {
        bool found = false;
        for (size_t j = 0; j < g->ntables; j++)
            found |= strcmp(g->tables[j].name, g->tables_q[i]) == 0;
        if (!found)
            return st_error(ST_NOT_FOUND, "hbck: table %s does not exist", g->tables_q[i]);
    }
    pthread_mutex_lock(&m->mu);
    for (size_t i = 0; i < g->ntables; i++) {
        hbck_table *h = &g->htables[i];
        h->name = g->tables[i].name;
        h->state = g->tables[i].state;
        m_table *t = master_find_table(m, h->name);
        h->ddl = t && (t->busy || t->procs > 0);
        h->since_ms = t ? t->state_ms : 0;
    }
    for (size_t i = 0; i < g->nrows; i++) {
        hbck_region *h = &g->regions[i];
        h->mr = &g->rows[i];
        m_table *t = master_find_table(m, g->rows[i].table);
        m_region *r = master_find_region(m, g->rows[i].encoded_name, NULL);
        for (size_t j = 0; !r && t && j < t->nparents; j++)
            if (strcmp(t->parents[j]->mr.encoded_name, g->rows[i].encoded_name) == 0)
                r = t->parents[j];
        if (r) {
            h->since_ms = r->since_ms;
            h->busy = r->busy;
        }
    }
    pthread_mutex_unlock(&m->mu);
    return ST_OK;
}

/* Running procedures, and procedure rows no thread of this master runs. */
static int gather_procs(master *m, gathered *g, bool all_tables)
{
    size_t nm = 0;
    int rc = master_procs_list(m, &g->mprocs, &nm);
    if (rc == ST_OK)
        rc = meta_list_procs(m->meta, &g->prow, &g->nprow);
    if (rc != ST_OK)
        return rc;
    g->procs = calloc(nm + g->nprow + 1, sizeof(*g->procs));
    g->prow_types = calloc(g->nprow + 1, sizeof(*g->prow_types));
    if (!g->procs || !g->prow_types)
        return st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; i < nm; i++) {
        m_proc *p = &g->mprocs[i];
        if (p->state != M_PROC_RUNNABLE || (!all_tables && !table_wanted(g, p->table)))
            continue;
        g->procs[g->nprocs++] = (hbck_proc){.id = p->id,
                                            .type = p->type,
                                            .state = master_proc_state_name(p->state),
                                            .updated_ms = p->updated_ms};
    }
    for (size_t i = 0; i < g->nprow; i++) {
        bool running = false;
        for (size_t j = 0; j < nm; j++)
            running |= g->mprocs[j].id == g->prow[i].id && g->mprocs[j].state == M_PROC_RUNNABLE;
        if (running)
            continue;
        Strata__Master__Procedure *p =
            strata__master__procedure__unpack(NULL, g->prow[i].len, g->prow[i].data);
        snprintf(g->prow_types[i], sizeof(g->prow_types[i]), "%s", p ? p->type : "?");
        bool want = all_tables || (p && p->table && table_wanted(g, p->table));
        /* A procedure that began between the listing above and the read of its row has a
         * fresh updated_ms: it counts as stuck only once that is older than the threshold. */
        int64_t updated = p && p->has_updated_ms ? (int64_t)p->updated_ms : 0;
        if (p)
            strata__master__procedure__free_unpacked(p, NULL);
        if (want)
            g->procs[g->nprocs++] = (hbck_proc){.id = g->prow[i].id,
                                                .type = g->prow_types[i],
                                                .state = "RUNNABLE",
                                                .updated_ms = updated,
                                                .row_only = true};
    }
    return ST_OK;
}

/* Reads everything a report checks (see the file comment) into g and its input. */
static int gather(master *m, char **tables, size_t ntables, int64_t stuck_ms, bool skip_fs,
                  gathered *g)
{
    memset(g, 0, sizeof(*g));
    int rc = master_check_active(m);
    int64_t started = clock_now_ms();
    for (size_t i = 0; rc == ST_OK && i < ntables; i++) {
        char q[256];
        rc = master_qualify(tables[i], q, sizeof(q));
        if (rc == ST_OK)
            rc = push_str(&g->tables_q, &g->nq, q);
    }
    if (rc == ST_OK)
        rc = gather_servers(m, g);
    if (rc == ST_OK)
        rc = gather_online(m, g); /* before meta: a change after it is newer than started */
    if (rc == ST_OK)
        rc = gather_meta(m, g);
    if (rc == ST_OK)
        rc = gather_procs(m, g, ntables == 0);
    if (rc == ST_OK && !skip_fs) {
        rc = hbck_scan_root(m->root, (const char *const *)g->tables_q, g->nq, &g->fs);
        g->have_fs = rc == ST_OK;
    }
    if (rc != ST_OK) {
        gathered_free(g);
        return rc;
    }
    hbck_input *in = &g->in;
    in->now_ms = clock_now_ms();
    in->stuck_ms = stuck_ms > 0 ? stuck_ms : HBCK_DEFAULT_STUCK_MS;
    in->started_ms = started;
    in->janitor_grace_ms =
        2 * m->janitor_interval_ms > in->stuck_ms ? 2 * m->janitor_interval_ms : in->stuck_ms;
    in->regions = g->regions;
    in->nregions = g->nrows;
    in->tables = g->htables;
    in->ntables = g->ntables;
    in->servers = g->servers;
    in->nservers = g->nservers;
    in->recovering = (const char *const *)g->recovering;
    in->nrecovering = g->nrecovering;
    in->procs = g->procs;
    in->nprocs = g->nprocs;
    in->fs = g->have_fs ? &g->fs : NULL;
    in->root = m->root;
    in->session_timeout_ms = m->session_timeout_ms;
    return ST_OK;
}

int master_hbck_report(master *m, char **tables, size_t ntables, int64_t stuck_ms, bool skip_fs,
                       hbck_report *out, size_t *nregions)
{
    memset(out, 0, sizeof(*out));
    gathered g;
    int rc = gather(m, tables, ntables, stuck_ms, skip_fs, &g);
    if (rc != ST_OK)
        return rc;
    hbck_check_all(&g.in, out);
    if (nregions)
        *nregions = g.nrows;
    gathered_free(&g);
    if (out->oom) {
        hbck_report_free(out);
        return st_error(ST_NOMEM, "out of memory");
    }
    return ST_OK;
}

/* ---- HbckReport ---- */

static int report_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__HbckReportRequest *req = (Strata__Master__HbckReportRequest *)msg;
    gathered g;
    bool skip_fs = req->has_skip_fs && req->skip_fs;
    int rc = gather(m, req->table, req->n_table, req->has_stuck_ms ? (int64_t)req->stuck_ms : 0,
                    skip_fs, &g);
    if (rc != ST_OK)
        return rc;
    hbck_report rep = {0};
    hbck_check_all(&g.in, &rep);
    Strata__Master__HbckFinding *f = calloc(rep.n + 1, sizeof(*f));
    Strata__Master__HbckFinding **fp = calloc(rep.n + 1, sizeof(*fp));
    Strata__Master__MetaRegionInfo *mi = calloc(g.nrows + 1, sizeof(*mi));
    Strata__Master__MetaRegionInfo **mip = calloc(g.nrows + 1, sizeof(*mip));
    Strata__Admin__RegionInfo *ri = calloc(g.nrows + 1, sizeof(*ri));
    if (!f || !fp || !mi || !mip || !ri || rep.oom) {
        rc = st_error(ST_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < rep.n; i++) {
        hbck_finding *h = &rep.v[i];
        strata__master__hbck_finding__init(&f[i]);
        f[i].kind = (char *)hbck_kind_name(h->kind);
        f[i].error = h->error;
        f[i].table = h->table[0] ? h->table : NULL;
        f[i].region = h->region[0] ? h->region : NULL;
        f[i].server = h->server[0] ? h->server : NULL;
        f[i].path = h->path[0] ? h->path : NULL;
        f[i].detail = h->detail[0] ? h->detail : NULL;
        f[i].has_proc_id = h->proc_id != 0;
        f[i].proc_id = h->proc_id;
        fp[i] = &f[i];
    }
    for (size_t i = 0; i < g.nrows; i++) {
        strata__master__meta_region_info__init(&mi[i]);
        master_region_info_proto(&g.rows[i], &ri[i]);
        mi[i].region = &ri[i];
        mi[i].has_offline = mi[i].has_split = 1;
        mi[i].offline = g.rows[i].offline;
        mi[i].split = g.rows[i].split;
        mip[i] = &mi[i];
    }
    Strata__Master__HbckReportResponse resp = STRATA__MASTER__HBCK_REPORT_RESPONSE__INIT;
    resp.finding = fp;
    resp.n_finding = rep.n;
    resp.root = m->root;
    resp.has_tables = resp.has_regions = resp.has_servers = 1;
    resp.tables = (uint32_t)g.ntables;
    resp.regions = (uint32_t)g.nrows;
    resp.servers = (uint32_t)g.nservers;
    resp.meta_region = mip;
    resp.n_meta_region = skip_fs ? g.nrows : 0;
    rc = rpc_proto_reply(reply, &resp.base);
done:
    free(f);
    free(fp);
    free(mi);
    free(mip);
    free(ri);
    hbck_report_free(&rep);
    gathered_free(&g);
    return rc;
}

/* ---- region rows in memory ---- */

/* Removes region r (taken) from meta and from its table in memory. */
static int remove_row(master *m, m_table *t, m_region *r)
{
    meta_change c = {.del = &r->mr, .ndel = 1};
    int rc = master_check_lease(m);
    if (rc == ST_OK)
        rc = meta_apply(m->meta, &c);
    if (rc != ST_OK)
        return rc;
    pthread_mutex_lock(&m->mu);
    r->retired = true;
    if (master_table_drop_region(t, r) && master_table_bury(t, r) != ST_OK)
        LOG_WARN("master %s: hbck: out of memory keeping %s; leaked", m->name, r->mr.encoded_name);
    pthread_mutex_unlock(&m->mu);
    LOG_INFO("master %s: hbck: removed the meta row of region %s of %s", m->name,
             r->mr.encoded_name, t->name);
    return ST_OK;
}

/* Writes a new region row (CLOSED, no server) and adds it to t in memory. */
static int add_row(master *m, m_table *t, const meta_region *row)
{
    m_region *r = calloc(1, sizeof(*r));
    if (!r)
        return st_error(ST_NOMEM, "out of memory");
    int rc = meta_region_copy(&r->mr, row);
    if (rc == ST_OK)
        rc = master_persist(m, &r->mr, 1);
    if (rc != ST_OK) {
        meta_region_clear(&r->mr);
        free(r);
        return rc;
    }
    pthread_mutex_lock(&m->mu);
    r->since_ms = clock_now_ms();
    rc = master_table_add_region(t, r);
    pthread_mutex_unlock(&m->mu);
    if (rc != ST_OK) {
        meta_region_clear(&r->mr);
        free(r);
        return rc;
    }
    LOG_INFO("master %s: hbck: added the meta row of region %s of %s", m->name, row->encoded_name,
             t->name);
    return ST_OK;
}

/* Removes dir if it holds only (empty) directories, depth at most 4: ST_OK, or why not
 * (a file found, rmdir failed) with what was already empty removed. Never unlinks. */
static int remove_empty_tree(const char *dir, int depth)
{
    if (depth > 4)
        return st_error(ST_EXISTS, "%s is nested too deep", dir);
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? ST_OK : st_error(ST_IO, "%s: %s", dir, strerror(errno));
    int rc = ST_OK;
    for (struct dirent *e; rc == ST_OK && (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char sub[PATH_MAX];
        snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(sub, &st) != 0)
            continue; /* gone meanwhile */
        rc = S_ISDIR(st.st_mode) ? remove_empty_tree(sub, depth + 1)
                                 : st_error(ST_EXISTS, "it holds %s", sub);
    }
    closedir(d);
    if (rc == ST_OK && rmdir(dir) != 0 && errno != ENOENT)
        rc = st_error(ST_IO, "rmdir %s: %s", dir, strerror(errno));
    return rc;
}

/* ---- HbckSetRegionState ---- */

/* Whether server is not live at the master and a WAL directory of it (plain or fenced
 * for splitting) is still in the root directory: a region it held may have edits only
 * there, so forgetting the region's server would let it open without them. */
static bool unrecovered_wals(master *m, const char *server)
{
    pthread_mutex_lock(&m->mu);
    bool live = master_server_find(m, server) != NULL;
    pthread_mutex_unlock(&m->mu);
    if (live)
        return false;
    char *plain = layout_wal_dir(m->root, server);
    char *fenced = layout_fenced_wal_dir(m->root, server);
    bool left = !plain || !fenced || fio_exists(plain) || fio_exists(fenced);
    free(plain);
    free(fenced);
    return left;
}

static int set_region_state_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__HbckSetRegionStateRequest *req =
        (Strata__Master__HbckSetRegionStateRequest *)msg;
    bool remove = req->has_remove_row && req->remove_row;
    meta_region_state st = META_CLOSED;
    if (!remove && (!req->state || meta_region_state_parse(req->state, &st) != ST_OK))
        return st_error(ST_INVALID_ARGUMENT,
                        "setRegionState: unknown state %s (OFFLINE, OPENING, OPEN, CLOSING, "
                        "CLOSED, FAILED_OPEN)",
                        req->state ? req->state : "(none)");
    pthread_mutex_lock(&m->mu);
    m_table *t = NULL;
    m_region *r = master_find_region(m, req->encoded_name, &t);
    bool taken = r && master_region_try_take(m, r);
    bool table_busy = t && t->busy;
    pthread_mutex_unlock(&m->mu);
    if (!r)
        return st_error(ST_NOT_FOUND, "setRegionState: region %s is unknown", req->encoded_name);
    if (!taken)
        return st_error(ST_INVALID_ARGUMENT,
                        "setRegionState: an operation holds region %s; try again when it ends",
                        req->encoded_name);
    char prev[32];
    snprintf(prev, sizeof(prev), "%s", meta_region_state_name(r->mr.state));
    int rc = ST_OK;
    if (remove) {
        if (table_busy)
            rc = st_error(ST_INVALID_ARGUMENT, "setRegionState: a DDL has table %s", t->name);
        else {
            /* Closed with a flush first (held, so the chore cannot reopen it): its edits
             * are in its directory, which fixMeta can add back. */
            if (r->mr.server[0] && (rc = master_unassign(m, r)) != ST_OK)
                rc = st_error(rc,
                              "setRegionState: closing region %s before removing its row "
                              "failed (row kept): %s",
                              r->mr.encoded_name, st_errmsg());
            if (rc == ST_OK)
                rc = remove_row(m, t, r);
        }
    } else {
        bool clear = req->has_clear_server && req->clear_server;
        char server[SERVER_NAME_MAX];
        snprintf(server, sizeof(server), "%s", clear ? "" : r->mr.server);
        if (clear && r->mr.server[0] && unrecovered_wals(m, r->mr.server))
            rc = st_error(ST_INVALID_ARGUMENT,
                          "setRegionState: region %s is on %s, which is not live and whose WALs "
                          "are not split yet (its edits may be only there); run "
                          "`strata hbck scheduleRecoveries %s` first",
                          r->mr.encoded_name, r->mr.server, r->mr.server);
        else
            rc = master_set_state(m, r, st, server);
    }
    master_region_give(m, r);
    if (rc != ST_OK)
        return rc;
    master_chore_wake(m);
    Strata__Master__HbckSetRegionStateResponse resp =
        STRATA__MASTER__HBCK_SET_REGION_STATE_RESPONSE__INIT;
    resp.previous = prev;
    return rpc_proto_reply(reply, &resp.base);
}

/* ---- HbckSetTableState ---- */

static int set_table_state_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__HbckSetTableStateRequest *req = (Strata__Master__HbckSetTableStateRequest *)msg;
    meta_table_state st;
    char table[256];
    int rc = master_qualify(req->table, table, sizeof(table));
    if (rc != ST_OK)
        return rc;
    if (meta_table_state_parse(req->state, &st) != ST_OK)
        return st_error(ST_INVALID_ARGUMENT,
                        "setTableState: unknown state %s (ENABLED, DISABLED, ENABLING, DISABLING)",
                        req->state);
    pthread_mutex_lock(&m->mu);
    m_table *t = master_find_table(m, table);
    bool busy = t && (t->busy || t->procs > 0);
    char prev[32] = "";
    if (t && !busy) {
        t->busy = true; /* as a DDL would, while the state is written */
        snprintf(prev, sizeof(prev), "%s", meta_table_state_name(t->state));
    }
    pthread_mutex_unlock(&m->mu);
    if (!t)
        return st_error(ST_NOT_FOUND, "setTableState: table %s does not exist", table);
    if (busy)
        return st_error(ST_INVALID_ARGUMENT,
                        "setTableState: a DDL, split or merge has table %s; try again when it ends",
                        table);
    rc = master_check_lease(m);
    if (rc == ST_OK)
        rc = meta_set_table_state(m->meta, table, st);
    pthread_mutex_lock(&m->mu);
    if (rc == ST_OK) {
        t->state = st;
        t->state_ms = clock_now_ms();
    }
    t->busy = false;
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
    if (rc != ST_OK)
        return rc;
    master_mirror_table_state(m, table, st);
    master_chore_wake(m);
    LOG_INFO("master %s: hbck: table %s set %s (was %s)", m->name, table, meta_table_state_name(st),
             prev);
    Strata__Master__HbckSetTableStateResponse resp =
        STRATA__MASTER__HBCK_SET_TABLE_STATE_RESPONSE__INIT;
    resp.previous = prev;
    return rpc_proto_reply(reply, &resp.base);
}

/* ---- HbckFixMeta ---- */

typedef struct fix_log {
    char **done, **refused;
    size_t ndone, nrefused;
} fix_log;

static void logf_line(char ***v, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void logf_line(char ***v, size_t *n, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    push_str(v, n, line);
}

/* The oldest time (ms) the directory shows: its birth time where the file system keeps
 * one, else the oldest modification time of it and what is directly in it. */
static int64_t dir_age_ms(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0;
    int64_t oldest = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
    char **names = NULL;
    size_t n = 0;
    if (fio_list_dir(path, &names, &n) == ST_OK)
        for (size_t i = 0; i < n; i++) {
            char sub[2200];
            snprintf(sub, sizeof(sub), "%s/%s", path, names[i]);
            if (stat(sub, &st) == 0) {
                int64_t t = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
                oldest = t < oldest ? t : oldest;
            }
        }
    fio_free_list(names, n);
    return oldest;
}

/* Whether encoded is the region of table starting at start: the id among the ids meta
 * holds (and each + 1, a merge's), else within 15 minutes before the directory's oldest
 * time (a new region's id is the time it was planned). *id gets it. */
static bool find_region_id(const char *table, const uint8_t *start, size_t start_len,
                           const char *encoded, const meta_region *rows, size_t nrows,
                           const char *dir, uint64_t *id)
{
    char e[33];
    for (size_t i = 0; i < nrows; i++)
        for (uint64_t d = 0; d < 2; d++) {
            meta_encoded_name(table, start, start_len, rows[i].region_id + d, e);
            if (strcmp(e, encoded) == 0) {
                *id = rows[i].region_id + d;
                return true;
            }
        }
    int64_t t = dir_age_ms(dir);
    for (int64_t c = t + 60000; t > 0 && c > t - 15 * 60000; c--) {
        meta_encoded_name(table, start, start_len, (uint64_t)c, e);
        if (strcmp(e, encoded) == 0) {
            *id = (uint64_t)c;
            return true;
        }
    }
    return false;
}

static int keycmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    return c ? c : (alen < blen ? -1 : alen > blen);
}

static int row_cmp(const void *a, const void *b)
{
    const meta_region *x = a, *y = b;
    return keycmp(x->start_key, x->start_len, y->start_key, y->start_len);
}

typedef struct hole {
    uint8_t *start, *end; /* borrowed from rows */
    size_t start_len, end_len;
} hole;

/* The holes of a table's chain (rows sorted, split parents left out by the caller). */
static size_t find_holes(const meta_region *v, size_t n, hole *out, size_t cap, bool *overlap)
{
    size_t k = 0;
    const uint8_t *reach = NULL;
    size_t reach_len = 0;
    bool reach_end = false;
    *overlap = false;
    for (size_t i = 0; i < n; i++) {
        int c = reach_end ? -1 : keycmp(v[i].start_key, v[i].start_len, reach, reach_len);
        if (c > 0 && k < cap)
            out[k++] = (hole){(uint8_t *)reach, v[i].start_key, reach_len, v[i].start_len};
        if (c < 0 && i > 0)
            *overlap = true;
        if (!v[i].end_len)
            reach_end = true;
        else if (!reach_end && keycmp(v[i].end_key, v[i].end_len, reach, reach_len) > 0) {
            reach = v[i].end_key;
            reach_len = v[i].end_len;
        }
    }
    if (!reach_end && k < cap)
        out[k++] = (hole){(uint8_t *)reach, NULL, reach_len, 0};
    return k;
}

/* Whether some row of the table names encoded as a merge parent. */
static bool merge_parent(const meta_region *rows, size_t n, const char *encoded)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < rows[i].nmerged; j++)
            if (strcmp(rows[i].merged[j], encoded) == 0)
                return true;
    return false;
}

/* fixMeta for one table, held from DDLs (busy) by the caller. */
static int fix_table(master *m, m_table *t, bool dry, fix_log *log)
{
    meta_region *rows = NULL;
    size_t n = 0;
    hbck_fs fs;
    const char *one[] = {t->name};
    int rc = meta_table_regions(m->meta, t->name, &rows, &n);
    if (rc != ST_OK)
        return rc;
    rc = hbck_scan_root(m->root, one, 1, &fs);
    if (rc != ST_OK) {
        meta_regions_free(rows, n);
        return rc;
    }
    /* 1. rows of regions with no directory and on no server hold no data: removed. */
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        meta_region *r = &rows[i];
        bool dir = false;
        for (size_t j = 0; j < fs.ndirs; j++)
            dir |= strcmp(fs.dirs[j].region, r->encoded_name) == 0;
        if (dir || (r->offline && r->split))
            continue;
        if (r->server[0]) {
            logf_line(&log->refused, &log->nrefused,
                      "%s: region %s has no directory but is %s on %s; unassign it first", t->name,
                      r->encoded_name, meta_region_state_name(r->state), r->server);
            continue;
        }
        logf_line(&log->done, &log->ndone,
                  "%s: removed the row of region %s (no directory, "
                  "no data)",
                  t->name, r->encoded_name);
        if (!dry) {
            m_region *mr = NULL;
            m_table *tt = NULL;
            rc = master_region_take(m, r->encoded_name, &mr, &tt);
            if (rc == ST_NOT_FOUND) { /* in meta only: delete the row alone */
                meta_change c = {.del = r, .ndel = 1};
                rc = master_check_lease(m);
                if (rc == ST_OK)
                    rc = meta_apply(m->meta, &c);
            } else if (rc == ST_OK) {
                rc = remove_row(m, t, mr);
                master_region_give(m, mr);
            }
        }
        r->offline = r->split = true; /* out of the chain below */
        r->nmerged = 0;
    }
    /* 2. the holes: an orphan directory whose name proves it starts one fills it; an empty
     * region fills the rest. */
    meta_region *chain = calloc(n + 1, sizeof(*chain));
    size_t nc = 0;
    for (size_t i = 0; chain && i < n; i++)
        if (!(rows[i].offline && rows[i].split))
            chain[nc++] = rows[i]; /* shallow: borrows the keys */
    hole holes[64];
    bool overlap = false;
    size_t nh = chain ? (qsort(chain, nc, sizeof(*chain), row_cmp),
                         find_holes(chain, nc, holes, 64, &overlap))
                      : 0;
    if (!chain)
        rc = st_error(ST_NOMEM, "out of memory");
    if (overlap)
        logf_line(&log->refused, &log->nrefused,
                  "%s: regions overlap; merge them (merge_region ..., true) or remove the "
                  "extra row with setRegionState --remove-row",
                  t->name);
    bool *used = calloc(fs.ndirs + 1, sizeof(*used));
    for (size_t h = 0; rc == ST_OK && used && h < nh; h++) {
        meta_region row;
        memset(&row, 0, sizeof(row));
        snprintf(row.table, sizeof(row.table), "%s", t->name);
        row.state = META_CLOSED;
        bool found = false;
        for (size_t j = 0; !found && j < fs.ndirs; j++) {
            hbck_dir *d = &fs.dirs[j];
            bool known = false;
            for (size_t i = 0; i < n; i++)
                known |= strcmp(rows[i].encoded_name, d->region) == 0;
            if (known || used[j] || !d->has_data || merge_parent(rows, n, d->region))
                continue;
            found = find_region_id(t->name, holes[h].start, holes[h].start_len, d->region, rows, n,
                                   d->path, &row.region_id);
            if (found) {
                used[j] = true;
                snprintf(row.encoded_name, sizeof(row.encoded_name), "%s", d->region);
            }
        }
        if (!found) {
            row.region_id = (uint64_t)clock_now_ms();
            meta_encoded_name(t->name, holes[h].start, holes[h].start_len, row.region_id,
                              row.encoded_name);
        }
        rc = meta_region_set_keys(&row, holes[h].start, holes[h].start_len, holes[h].end,
                                  holes[h].end_len);
        if (rc == ST_OK) {
            logf_line(&log->done, &log->ndone, "%s: %s region %s for a hole", t->name,
                      found ? "added the row of orphan directory" : "created empty",
                      row.encoded_name);
            if (!dry)
                rc = add_row(m, t, &row);
        }
        meta_region_clear(&row);
    }
    /* 3. orphan directories left: removed if empty, else kept. */
    for (size_t j = 0; rc == ST_OK && used && j < fs.ndirs; j++) {
        hbck_dir *d = &fs.dirs[j];
        bool known = used[j] || merge_parent(rows, n, d->region);
        for (size_t i = 0; i < n && !known; i++)
            known = strcmp(rows[i].encoded_name, d->region) == 0;
        if (known)
            continue;
        if (d->has_data) {
            logf_line(&log->refused, &log->nrefused,
                      "%s: orphan directory %s holds data and starts no hole; left in place",
                      t->name, d->path);
            continue;
        }
        /* Removed only while it holds directories and nothing else, checked as it goes
         * (rmdir fails on anything left): a flush that began since the scan keeps it. */
        int er = dry ? ST_OK : remove_empty_tree(d->path, 0);
        if (er == ST_OK)
            logf_line(&log->done, &log->ndone, "%s: removed empty orphan directory %s", t->name,
                      d->path);
        else
            logf_line(&log->refused, &log->nrefused,
                      "%s: orphan directory %s is no longer empty (%s); left in place", t->name,
                      d->path, st_errmsg());
    }
    if (!used && rc == ST_OK)
        rc = st_error(ST_NOMEM, "out of memory");
    free(used);
    free(chain);
    hbck_fs_free(&fs);
    meta_regions_free(rows, n);
    return rc;
}

static int fix_meta(master *m, char **tables, size_t ntables, bool dry, fix_log *log)
{
    size_t nt = 0;
    m_table **all = master_tables_hold(m, &nt);
    int rc = ST_OK;
    for (size_t i = 0; rc == ST_OK && i < ntables; i++) {
        char q[256];
        rc = master_qualify(tables[i], q, sizeof(q));
        bool found = false;
        for (size_t j = 0; rc == ST_OK && j < nt; j++)
            found |= strcmp(all[j]->name, q) == 0;
        if (rc == ST_OK && !found)
            rc = st_error(ST_NOT_FOUND, "fixMeta: table %s does not exist", q);
    }
    for (size_t i = 0; rc == ST_OK && i < nt; i++) {
        m_table *t = all[i];
        bool want = ntables == 0;
        for (size_t j = 0; j < ntables && !want; j++) {
            char q[256];
            want = master_qualify(tables[j], q, sizeof(q)) == ST_OK && strcmp(q, t->name) == 0;
        }
        if (!want)
            continue;
        pthread_mutex_lock(&m->mu);
        bool busy = t->busy || t->procs > 0;
        if (!busy)
            t->busy = true;
        pthread_mutex_unlock(&m->mu);
        if (busy) {
            logf_line(&log->refused, &log->nrefused,
                      "%s: a DDL, split or merge has the table; run fixMeta again when it ends",
                      t->name);
            continue;
        }
        rc = fix_table(m, t, dry, log);
        pthread_mutex_lock(&m->mu);
        t->busy = false;
        pthread_cond_broadcast(&m->cv);
        pthread_mutex_unlock(&m->mu);
    }
    master_tables_release(m, all, nt);
    master_chore_wake(m);
    return rc;
}

static int fix_meta_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__HbckFixMetaRequest *req = (Strata__Master__HbckFixMetaRequest *)msg;
    fix_log log = {0};
    pthread_mutex_lock(&fix_mu);
    int rc = fix_meta(m, req->table, req->n_table, req->has_dry_run && req->dry_run, &log);
    pthread_mutex_unlock(&fix_mu);
    if (rc == ST_OK) {
        Strata__Master__HbckFixMetaResponse resp = STRATA__MASTER__HBCK_FIX_META_RESPONSE__INIT;
        resp.done = log.done;
        resp.n_done = log.ndone;
        resp.refused = log.refused;
        resp.n_refused = log.nrefused;
        rc = rpc_proto_reply(reply, &resp.base);
    }
    free_strv(log.done, log.ndone);
    free_strv(log.refused, log.nrefused);
    return rc;
}

/* ---- HbckScheduleRecoveries ---- */

static int recoveries_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__HbckScheduleRecoveriesRequest *req =
        (Strata__Master__HbckScheduleRecoveriesRequest *)msg;
    for (size_t i = 0; i < req->n_server; i++) {
        server_name sn;
        if (server_name_parse(req->server[i], &sn) != ST_OK)
            return st_error(ST_INVALID_ARGUMENT,
                            "scheduleRecoveries: %s is not a server name (host,port,startcode)",
                            req->server[i]);
    }
    pthread_mutex_lock(&m->mu);
    int rc = ST_OK;
    for (size_t i = 0; i < req->n_server && rc == ST_OK; i++)
        if (master_server_find(m, req->server[i]) &&
            strcmp(master_server_find(m, req->server[i])->name, req->server[i]) == 0)
            rc = st_error(ST_INVALID_ARGUMENT,
                          "scheduleRecoveries: %s is live; its WALs are in use", req->server[i]);
    pthread_mutex_unlock(&m->mu);
    /* A server registered in ZooKeeper that the master has not heard from yet is live
     * too: fencing its WALs would abort it. */
    for (size_t i = 0; i < req->n_server && rc == ST_OK; i++) {
        char *path = znodes_path(m->parent, ZNODE_RS, req->server[i]);
        uint8_t *data = NULL;
        size_t len = 0;
        int zr = path ? master_zk_get(m, path, &data, &len, NULL) : ST_NOMEM;
        free(data);
        free(path);
        if (zr == ST_OK)
            rc = st_error(ST_INVALID_ARGUMENT,
                          "scheduleRecoveries: %s is registered in ZooKeeper; its WALs are in use",
                          req->server[i]);
        else if (zr != ST_NOT_FOUND)
            rc = st_error(zr, "scheduleRecoveries: reading %s's znode failed", req->server[i]);
    }
    if (rc != ST_OK)
        return rc;
    pthread_mutex_lock(&m->mu);
    for (size_t i = 0; i < req->n_server; i++)
        master_server_dead(m, req->server[i]);
    pthread_mutex_unlock(&m->mu);
    master_chore_wake(m);
    Strata__Master__HbckScheduleRecoveriesResponse resp =
        STRATA__MASTER__HBCK_SCHEDULE_RECOVERIES_RESPONSE__INIT;
    return rpc_proto_reply(reply, &resp.base);
}

/* ---- HbckBypass ---- */

static int bypass_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__HbckBypassRequest *req = (Strata__Master__HbckBypassRequest *)msg;
    bool override = req->has_override && req->override;
    m_proc *v = NULL;
    size_t n = 0;
    int rc = master_procs_list(m, &v, &n);
    if (rc != ST_OK)
        return rc;
    bool running = false;
    for (size_t i = 0; i < n; i++)
        running |= v[i].id == req->proc_id && v[i].state == M_PROC_RUNNABLE;
    free(v);
    meta_proc *rows = NULL;
    size_t nr = 0;
    rc = meta_list_procs(m->meta, &rows, &nr);
    if (rc != ST_OK)
        return rc;
    bool has_row = false;
    for (size_t i = 0; i < nr; i++)
        has_row |= rows[i].id == req->proc_id;
    meta_procs_free(rows, nr);
    if (!running && !has_row)
        return st_error(ST_NOT_FOUND, "bypass: procedure %llu is neither running nor in meta",
                        (unsigned long long)req->proc_id);
    if (running && !override)
        return st_error(ST_INVALID_ARGUMENT,
                        "bypass: procedure %llu is running on this master; --override to "
                        "bypass it anyway",
                        (unsigned long long)req->proc_id);
    if (has_row) {
        meta_change c = {.proc_id = req->proc_id, .proc_delete = true};
        rc = master_check_lease(m);
        if (rc == ST_OK)
            rc = meta_apply(m->meta, &c);
        if (rc != ST_OK)
            return rc;
    }
    if (running)
        master_proc_bypass(m, req->proc_id);
    LOG_WARN("master %s: hbck: procedure %llu bypassed (%s)", m->name,
             (unsigned long long)req->proc_id, running ? "running" : "row only");
    Strata__Master__HbckBypassResponse resp = STRATA__MASTER__HBCK_BYPASS_RESPONSE__INIT;
    resp.previous = running ? "RUNNABLE" : "ROW_ONLY";
    return rpc_proto_reply(reply, &resp.base);
}

/* ---- HbckSideline ---- */

static int sideline_one(master *m, const hbck_report *rep, const char *path, char **moved)
{
    bool lingering = false;
    for (size_t i = 0; i < rep->n; i++)
        lingering |=
            rep->v[i].kind == HBCK_LINGERING_REFERENCE_FILE && strcmp(rep->v[i].path, path) == 0;
    if (!lingering)
        return st_error(ST_INVALID_ARGUMENT,
                        "sideline: %s is no lingering reference file (the report does not name "
                        "it); it may still be in use",
                        path);
    size_t rl = strlen(m->root);
    char dst[PATH_MAX * 2 + 16];
    snprintf(dst, sizeof(dst), "%s/.hbck/%s", m->root, path + rl + strlen("/data/"));
    char *dir = fio_dir_of(dst);
    int rc = dir ? fio_mkdirs(dir) : st_error(ST_NOMEM, "out of memory");
    free(dir);
    if (rc == ST_OK)
        rc = fio_rename(path, dst);
    if (rc == ST_OK && !(*moved = strdup(dst)))
        rc = st_error(ST_NOMEM, "out of memory");
    if (rc == ST_OK)
        LOG_WARN("master %s: hbck: sidelined reference %s to %s", m->name, path, dst);
    return rc;
}

static int sideline_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__HbckSidelineRequest *req = (Strata__Master__HbckSidelineRequest *)msg;
    char prefix[PATH_MAX + 8];
    snprintf(prefix, sizeof(prefix), "%s/data/", m->root);
    for (size_t i = 0; i < req->n_path; i++)
        if (strncmp(req->path[i], prefix, strlen(prefix)) != 0 || strstr(req->path[i], "/../"))
            return st_error(ST_INVALID_ARGUMENT, "sideline: %s is not under %s", req->path[i],
                            prefix);
    hbck_report rep;
    int rc = master_hbck_report(m, NULL, 0, 0, false, &rep, NULL);
    if (rc != ST_OK)
        return rc;
    char **moved = calloc(req->n_path + 1, sizeof(*moved));
    size_t k = 0;
    if (!moved)
        rc = st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; rc == ST_OK && i < req->n_path; i++) {
        rc = sideline_one(m, &rep, req->path[i], &moved[k]);
        k += rc == ST_OK;
    }
    if (rc == ST_OK) {
        Strata__Master__HbckSidelineResponse resp = STRATA__MASTER__HBCK_SIDELINE_RESPONSE__INIT;
        resp.moved = moved;
        resp.n_moved = k;
        rc = rpc_proto_reply(reply, &resp.base);
    }
    free_strv(moved, k);
    hbck_report_free(&rep);
    return rc;
}

RPC_PROTO_HANDLER(h_report, master_rpc_check_active, strata__master__hbck_report_request__descriptor,
                  report_body)
RPC_PROTO_HANDLER(h_region_state, master_rpc_check_active,
                  strata__master__hbck_set_region_state_request__descriptor, set_region_state_body)
RPC_PROTO_HANDLER(h_table_state, master_rpc_check_active,
                  strata__master__hbck_set_table_state_request__descriptor, set_table_state_body)
RPC_PROTO_HANDLER(h_fix_meta, master_rpc_check_active, strata__master__hbck_fix_meta_request__descriptor,
                  fix_meta_body)
RPC_PROTO_HANDLER(h_recoveries, master_rpc_check_active,
                  strata__master__hbck_schedule_recoveries_request__descriptor, recoveries_body)
RPC_PROTO_HANDLER(h_bypass, master_rpc_check_active, strata__master__hbck_bypass_request__descriptor,
                  bypass_body)
RPC_PROTO_HANDLER(h_sideline, master_rpc_check_active, strata__master__hbck_sideline_request__descriptor,
                  sideline_body)

int master_service_register_hbck(master *m)
{
    static const struct {
        const char *name;
        rpc_handler_fn fn;
    } methods[] = {
        {"MasterService.HbckReport", h_report},
        {"MasterService.HbckSetRegionState", h_region_state},
        {"MasterService.HbckSetTableState", h_table_state},
        {"MasterService.HbckFixMeta", h_fix_meta},
        {"MasterService.HbckScheduleRecoveries", h_recoveries},
        {"MasterService.HbckBypass", h_bypass},
        {"MasterService.HbckSideline", h_sideline},
    };
    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
        int rc = rpc_server_register(m->rpc, methods[i].name, methods[i].fn, m);
        if (rc != ST_OK)
            return rc;
    }
    return ST_OK;
}
