/*
 * master_servers.c - region-server tracking: the live set follows the children of
 * <parent>/rs (docs/znodes.md); heartbeats (RegionServerReport) carry each server's load;
 * a server whose znode goes, or that is superseded by a newer start code on the same
 * host and port, is dead, and its recovery (master_crash_recover) runs on the chore:
 *
 *   fence: rename <root>/WALs/<server> to <server>-splitting (a paused server can no
 *          longer roll a WAL there), with <parent>/splitWAL/<server> marking the work
 *   split: wal_split the fenced directory into per-region recovered edits, remove it
 *   owners: delete the dead server's region-owner znodes (gone already if its session
 *          expired)
 *   close: every region meta places on that server becomes CLOSED
 *   assign: the regions of enabled tables are opened elsewhere (they replay the edits)
 *
 * No region of a dead server is opened elsewhere before its WALs are split.
 * Thread-safety: functions marked "mu held" need m->mu; the others take it themselves.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fileio.h"
#include "common/log.h"
#include "common/status.h"
#include "master/master_internal.h"
#include "regionserver/storage/layout.h"
#include "regionserver/storage/wal.h"

void master_server_free(m_server *s)
{
    if (!s)
        return;
    if (s->report)
        strata__master__region_server_report_request__free_unpacked(s->report, NULL);
    free(s);
}

m_server *master_server_find(master *m, const char *addr_or_name)
{
    for (size_t i = 0; i < m->nservers; i++)
        if (strcmp(m->servers[i]->name, addr_or_name) == 0 ||
            strcmp(m->servers[i]->addr, addr_or_name) == 0)
            return m->servers[i];
    return NULL;
}

size_t master_server_region_count(master *m, const char *name)
{
    size_t n = 0;
    for (size_t i = 0; i < m->ntables; i++)
        for (size_t j = 0; j < m->tables[i]->n; j++)
            if (strcmp(m->tables[i]->regions[j]->mr.server, name) == 0 ||
                strcmp(m->tables[i]->regions[j]->target, name) == 0)
                n++;
    return n;
}

int master_server_pick(master *m, const char *avoid, char *out, size_t cap)
{
    m_server *best = NULL, *fallback = NULL;
    size_t best_n = SIZE_MAX;
    for (size_t i = 0; i < m->nservers; i++) {
        m_server *s = m->servers[i];
        if (s->stopping || !s->reported)
            continue;
        if (avoid && strcmp(s->name, avoid) == 0) {
            fallback = s;
            continue;
        }
        size_t n = master_server_region_count(m, s->name);
        if (n < best_n) {
            best = s;
            best_n = n;
        }
    }
    if (!best)
        best = fallback;
    if (!best)
        return st_error(ST_NOT_SERVING, "no live region server can take a region (%zu live)",
                        m->nservers);
    snprintf(out, cap, "%s", best->name);
    return ST_OK;
}

bool master_crash_pending(master *m, const char *name)
{
    for (size_t i = 0; i < m->ncrash; i++)
        if (strcmp(m->crash[i], name) == 0)
            return true;
    return false;
}

static void remember_dead(master *m, const char *name)
{
    for (size_t i = 0; i < m->ndead; i++)
        if (strcmp(m->dead[i], name) == 0)
            return;
    char *copy = strdup(name);
    if (!copy)
        return;
    if (!m->dead)
        m->dead = calloc(MASTER_DEAD_KEPT, sizeof(*m->dead));
    if (!m->dead) {
        free(copy);
        return;
    }
    if (m->ndead == MASTER_DEAD_KEPT) {
        free(m->dead[0]);
        memmove(m->dead, m->dead + 1, (MASTER_DEAD_KEPT - 1) * sizeof(*m->dead));
        m->ndead--;
    }
    m->dead[m->ndead++] = copy;
}

void master_server_dead(master *m, const char *name_in)
{
    char name[SERVER_NAME_MAX]; /* name_in may point into the server freed below */
    snprintf(name, sizeof(name), "%s", name_in);
    for (size_t i = 0; i < m->nservers; i++)
        if (strcmp(m->servers[i]->name, name) == 0) {
            master_server_free(m->servers[i]);
            memmove(m->servers + i, m->servers + i + 1, (m->nservers - i - 1) * sizeof(*m->servers));
            m->nservers--;
            break;
        }
    remember_dead(m, name);
    if (master_crash_pending(m, name))
        return;
    if (m->ncrash == m->ccap) {
        size_t cap = m->ccap ? m->ccap * 2 : 8;
        char **v = realloc(m->crash, cap * sizeof(*v));
        if (!v)
            return;
        m->crash = v;
        m->ccap = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return;
    m->crash[m->ncrash++] = copy;
    m->crash_queued = true;
    LOG_INFO("master %s: region server %s is dead; its recovery is queued", m->name, name);
    pthread_cond_broadcast(&m->chore_cv);
}

/* A server that registers again on the same host and port with a newer start code
 * replaces its earlier instances in the dead list, as HBase's cleanPreviousInstance (mu
 * held). Their recoveries, if still queued or running, go on. */
static void forget_previous_instances(master *m, const server_name *sn)
{
    for (size_t i = 0; i < m->ndead;) {
        server_name d;
        if (server_name_parse(m->dead[i], &d) == ST_OK && server_name_same_addr(&d, sn) &&
            d.start_code < sn->start_code) {
            LOG_INFO("master %s: %s replaces the dead %s", m->name, sn->host, m->dead[i]);
            free(m->dead[i]);
            memmove(m->dead + i, m->dead + i + 1, (m->ndead - i - 1) * sizeof(*m->dead));
            m->ndead--;
        } else {
            i++;
        }
    }
}

int master_clear_dead_servers(master *m, char *const *names, size_t n, char ***not_cleared,
                              size_t *n_not)
{
    *not_cleared = NULL;
    *n_not = 0;
    pthread_mutex_lock(&m->mu);
    size_t want = n ? n : m->ndead;
    /* n 0: every server of the list as it is now (copied: clearing changes the list) */
    char(*ask)[SERVER_NAME_MAX] = calloc(want ? want : 1, sizeof(*ask));
    char **out = calloc(want ? want : 1, sizeof(*out));
    int rc = ask && out ? ST_OK : st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; rc == ST_OK && i < want; i++)
        snprintf(ask[i], sizeof(ask[i]), "%s", n ? names[i] : m->dead[i]);
    /* As HBase: while any dead server's recovery is queued or running, none is cleared. */
    bool busy = m->ncrash > 0;
    for (size_t i = 0; rc == ST_OK && i < want; i++) {
        size_t k = 0;
        while (k < m->ndead && strcmp(m->dead[k], ask[i]) != 0)
            k++;
        if (!busy && k < m->ndead) {
            LOG_INFO("master %s: dead server %s cleared", m->name, ask[i]);
            free(m->dead[k]);
            memmove(m->dead + k, m->dead + k + 1, (m->ndead - k - 1) * sizeof(*m->dead));
            m->ndead--;
        } else if ((out[*n_not] = strdup(ask[i]))) {
            (*n_not)++;
        } else {
            rc = st_error(ST_NOMEM, "out of memory");
        }
    }
    pthread_mutex_unlock(&m->mu);
    free(ask);
    if (rc != ST_OK) {
        for (size_t i = 0; out && i < *n_not; i++)
            free(out[i]);
        free(out);
        *n_not = 0;
        return rc;
    }
    *not_cleared = out;
    return ST_OK;
}

static int add_server(master *m, const char *name, const uint8_t *data, size_t len)
{
    m_server *s = calloc(1, sizeof(*s));
    if (!s)
        return st_error(ST_NOMEM, "out of memory");
    int rc = server_info_decode(data, len, &s->sn, &s->http_port);
    if (rc != ST_OK) {
        free(s);
        return rc;
    }
    server_name_format(&s->sn, s->name, sizeof(s->name));
    server_name_addr(&s->sn, s->addr, sizeof(s->addr));
    if (strcmp(s->name, name) != 0) {
        LOG_WARN("master %s: znode rs/%s holds the record of %s; ignored", m->name, name, s->name);
        free(s);
        return ST_OK;
    }
    if (m->nservers == m->scap) {
        size_t cap = m->scap ? m->scap * 2 : 8;
        m_server **v = realloc(m->servers, cap * sizeof(*v));
        if (!v) {
            free(s);
            return st_error(ST_NOMEM, "out of memory");
        }
        m->servers = v;
        m->scap = cap;
    }
    /* Two start codes on one host and port: the older process is gone. */
    for (size_t i = 0; i < m->nservers; i++) {
        if (!server_name_same_addr(&m->servers[i]->sn, &s->sn))
            continue;
        if (m->servers[i]->sn.start_code > s->sn.start_code) {
            master_server_dead(m, s->name);
            free(s);
            return ST_OK;
        }
        master_server_dead(m, m->servers[i]->name);
        break;
    }
    m->servers[m->nservers++] = s;
    forget_previous_instances(m, &s->sn);
    LOG_INFO("master %s: region server %s registered", m->name, s->name);
    return ST_OK;
}

/* Asks a newly seen server for its load: one that answers really runs and may take
 * regions at once (a znode alone may outlive its process by a session timeout). */
static void probe(master *m, const char *name)
{
    char addr[300];
    pthread_mutex_lock(&m->mu);
    m_server *s = master_server_find(m, name);
    if (s)
        snprintf(addr, sizeof(addr), "%s", s->addr);
    pthread_mutex_unlock(&m->mu);
    if (!s)
        return;
    Strata__Admin__GetServerLoadRequest req = STRATA__ADMIN__GET_SERVER_LOAD_REQUEST__INIT;
    int rc = master_rs_call_timeout(m, addr, "AdminService.GetServerLoad", &req.base, 1000);
    if (rc != ST_OK) {
        LOG_INFO("master %s: region server %s registered but does not answer yet (%s)", m->name,
                 name, st_errmsg());
        return;
    }
    pthread_mutex_lock(&m->mu);
    if ((s = master_server_find(m, name)) && !s->reported) {
        s->reported = true;
        pthread_cond_broadcast(&m->chore_cv);
    }
    pthread_mutex_unlock(&m->mu);
}

static void servers_sync(master *m);

void master_servers_sync(master *m)
{
    /* Serialized: a sync that read the children before another added a server must not
     * apply its older list after it (it would declare the new server dead). */
    pthread_mutex_lock(&m->sync_mu);
    servers_sync(m);
    pthread_mutex_unlock(&m->sync_mu);
}

/* The children of <parent>/rs, read after clearing rs_changed (a change the watch reports
 * after the read started sets it again and is not lost). ST_OK, or the failure with
 * rs_changed set again so that the next pass reads again. */
static int list_rs_nodes(master *m, char ***names, size_t *n)
{
    char *rspath = znodes_path(m->parent, ZNODE_RS, NULL);
    pthread_mutex_lock(&m->mu);
    m->rs_changed = false;
    pthread_mutex_unlock(&m->mu);
    int rc = rspath ? master_zk_children(m, rspath, names, n)
                    : st_error(ST_NOMEM, "out of memory");
    if (rc != ST_OK) {
        LOG_WARN("master %s: cannot list region servers: %s", m->name, st_errmsg());
        pthread_mutex_lock(&m->mu);
        m->rs_changed = true;
        pthread_mutex_unlock(&m->mu);
    }
    free(rspath);
    return rc;
}

/* The ServerInfo records of the listed servers the master does not know yet, read without
 * mu: data[i] NULL for a known one or one whose record cannot be read. */
static void read_new_records(master *m, char **names, size_t n, uint8_t **data, size_t *lens)
{
    bool *known = calloc(n ? n : 1, sizeof(*known));
    if (!known)
        return;
    pthread_mutex_lock(&m->mu);
    for (size_t i = 0; i < n; i++)
        known[i] = master_server_find(m, names[i]) != NULL || master_crash_pending(m, names[i]);
    pthread_mutex_unlock(&m->mu);
    for (size_t i = 0; i < n; i++) {
        if (known[i])
            continue;
        char *p = znodes_path(m->parent, ZNODE_RS, names[i]);
        if (p && master_zk_get(m, p, &data[i], &lens[i], NULL) != ST_OK)
            data[i] = NULL;
        free(p);
    }
    free(known);
}

/* Live servers without a znode are dead (mu held). */
static void drop_vanished(master *m, char **names, size_t n)
{
    for (size_t i = 0; i < m->nservers;) {
        bool present = false;
        for (size_t j = 0; j < n && !present; j++)
            present = strcmp(names[j], m->servers[i]->name) == 0;
        if (present)
            i++;
        else
            master_server_dead(m, m->servers[i]->name); /* removes servers[i] */
    }
}

/* Adds the servers whose records were read (mu held); added[i] marks each one added. */
static void add_new(master *m, char **names, size_t n, uint8_t **data, const size_t *lens,
                    bool *added)
{
    for (size_t i = 0; i < n; i++) {
        if (!data[i] || master_server_find(m, names[i]))
            continue;
        if (add_server(m, names[i], data[i], lens[i]) != ST_OK)
            LOG_WARN("master %s: region server %s: %s", m->name, names[i], st_errmsg());
        else
            added[i] = true;
    }
}

static void servers_sync(master *m)
{
    char **names = NULL;
    size_t n = 0;
    if (list_rs_nodes(m, &names, &n) != ST_OK)
        return;
    uint8_t **data = calloc(n ? n : 1, sizeof(*data));
    size_t *lens = calloc(n ? n : 1, sizeof(*lens));
    bool *added = calloc(n ? n : 1, sizeof(*added));
    if (data && lens && added)
        read_new_records(m, names, n, data, lens);
    pthread_mutex_lock(&m->mu);
    drop_vanished(m, names, n);
    if (data && lens && added)
        add_new(m, names, n, data, lens, added);
    pthread_cond_broadcast(&m->chore_cv);
    pthread_mutex_unlock(&m->mu);
    for (size_t i = 0; added && i < n; i++)
        if (added[i])
            probe(m, names[i]);
    for (size_t i = 0; data && i < n; i++)
        free(data[i]);
    free(data);
    free(lens);
    free(added);
    zk_names_free(names, n);
}

void master_servers_find_dead(master *m)
{
    char *wals = NULL, **names = NULL;
    size_t n = 0;
    if (!(wals = layout_wals_dir(m->root)))
        return;
    if (fio_list_dir(wals, &names, &n) == ST_OK) {
        pthread_mutex_lock(&m->mu);
        for (size_t i = 0; i < n; i++) {
            if (layout_is_master_wal_name(names[i]))
                continue;
            char owner[SERVER_NAME_MAX];
            layout_wal_name_owner(names[i], owner, sizeof(owner));
            server_name sn;
            if (server_name_parse(owner, &sn) != ST_OK)
                continue;
            /* A server that started moments ago may have made its WAL directory but not
             * registered yet: it is judged on a later pass. */
            if ((int64_t)sn.start_code + 2 * (int64_t)m->session_timeout_ms > clock_now_ms())
                continue;
            if (!master_server_find(m, owner) && !master_crash_pending(m, owner))
                master_server_dead(m, owner);
        }
        pthread_mutex_unlock(&m->mu);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(wals);
    /* Splits a previous master left half done. */
    char *sp = znodes_path(m->parent, ZNODE_SPLIT_WAL, NULL);
    char **tasks = NULL;
    size_t nt = 0;
    if (sp && master_zk_children(m, sp, &tasks, &nt) == ST_OK) {
        pthread_mutex_lock(&m->mu);
        for (size_t i = 0; i < nt; i++)
            if (!master_server_find(m, tasks[i]))
                master_server_dead(m, tasks[i]);
        pthread_mutex_unlock(&m->mu);
        zk_names_free(tasks, nt);
    }
    free(sp);
    /* Servers meta names that are not live. */
    pthread_mutex_lock(&m->mu);
    for (size_t i = 0; i < m->ntables; i++)
        for (size_t j = 0; j < m->tables[i]->n; j++) {
            const char *s = m->tables[i]->regions[j]->mr.server;
            if (s[0] && !master_server_find(m, s) && !master_crash_pending(m, s))
                master_server_dead(m, s);
        }
    pthread_mutex_unlock(&m->mu);
}

/* Fences and splits the WALs of a dead server. */
int master_fence_and_split(master *m, const char *dir_name)
{
    bool already = layout_is_fenced_wal_name(dir_name);
    char *dir = layout_wal_dir(m->root, dir_name);
    char *fenced = layout_fenced_wal_dir(m->root, dir_name);
    if (!dir || !fenced) {
        free(dir);
        free(fenced);
        return st_error(ST_NOMEM, "out of memory");
    }
    int rc = already ? ST_OK : fio_rename(dir, fenced);
    if (rc == ST_NOT_FOUND)
        rc = ST_OK; /* fenced already, or the server never wrote a WAL */
    if (rc == ST_OK && access(fenced, F_OK) == 0) {
        LOG_INFO("master %s: splitting the WALs in %s", m->name, fenced);
        rc = wal_split(fenced, m->root);
        if (rc == ST_OK)
            rc = fio_remove_tree(fenced);
    }
    free(dir);
    free(fenced);
    return rc;
}

static int split_wals(master *m, const char *name)
{
    char *task = NULL;
    int rc = ST_OK;
    if (!(task = znodes_path(m->parent, ZNODE_SPLIT_WAL, name))) {
        rc = st_error(ST_NOMEM, "out of memory");
        goto done;
    }
    rc = master_zk_create(m, task, NULL, 0, ZK_PERSISTENT);
    if (rc == ST_EXISTS)
        rc = ST_OK;
    if (rc == ST_OK)
        rc = master_fence_and_split(m, name);
    if (rc == ST_OK)
        rc = master_zk_delete(m, task);
    if (rc == ST_NOT_FOUND)
        rc = ST_OK;
done:
    if (rc != ST_OK)
        st_error(rc, "recovering the WALs of dead server %s: %s", name, st_errmsg());
    free(task);
    return rc;
}

/* Deletes the ownership znodes the dead server still holds (a superseded server's
 * session may not have expired yet). */
static void drop_owner_nodes(master *m, const char *name)
{
    char *dir = znodes_path(m->parent, ZNODE_REGION_OWNER, NULL);
    char **names = NULL;
    size_t n = 0;
    if (!dir || master_zk_children(m, dir, &names, &n) != ST_OK) {
        free(dir);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        uint8_t *data = NULL;
        size_t len = 0;
        char *p = znodes_path(m->parent, ZNODE_REGION_OWNER, names[i]);
        if (!p)
            continue;
        if (master_zk_get(m, p, &data, &len, NULL) == ST_OK) {
            Strata__Master__RegionOwner *o = strata__master__region_owner__unpack(NULL, len, data);
            if (o) {
                char owner[SERVER_NAME_MAX];
                server_name_format_proto(o->server, owner, sizeof(owner));
                if (strcmp(owner, name) == 0)
                    master_zk_delete(m, p);
                strata__master__region_owner__free_unpacked(o, NULL);
            }
        }
        free(data);
        free(p);
    }
    zk_names_free(names, n);
    free(dir);
}

/* Closes in meta every region of t that meta places on the dead server, then opens those
 * of an enabled table elsewhere (master_repair). The first meta failure, or ST_OK. */
static int reassign_table(master *m, m_table *t, const char *name)
{
    pthread_mutex_lock(&m->mu);
    size_t cnt = 0;
    m_region **mine = calloc(t->n ? t->n : 1, sizeof(*mine));
    for (size_t j = 0; mine && j < t->n; j++)
        if (strcmp(t->regions[j]->mr.server, name) == 0)
            mine[cnt++] = t->regions[j];
    pthread_mutex_unlock(&m->mu);
    if (!mine)
        return st_error(ST_NOMEM, "out of memory recovering %s", name);
    int rc = ST_OK;
    size_t closed = 0;
    for (size_t j = 0; j < cnt; j++) {
        master_region_take_ptr(m, mine[j]);
        if (strcmp(mine[j]->mr.server, name) == 0) {
            int c = master_set_state(m, mine[j], META_CLOSED, "");
            if (c != ST_OK)
                rc = c;
            else
                mine[closed++] = mine[j];
        }
        master_region_give(m, mine[j]);
    }
    master_assign_many(m, t, mine, closed, MASTER_BULK_REPAIR);
    free(mine);
    return rc;
}

/* Recovery of name is done: it leaves the queue. */
static void recovery_done(master *m, const char *name)
{
    pthread_mutex_lock(&m->mu);
    for (size_t i = 0; i < m->ncrash; i++)
        if (strcmp(m->crash[i], name) == 0) {
            free(m->crash[i]);
            memmove(m->crash + i, m->crash + i + 1, (m->ncrash - i - 1) * sizeof(*m->crash));
            m->ncrash--;
            break;
        }
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
    LOG_INFO("master %s: recovery of region server %s finished", m->name, name);
}

int master_crash_recover(master *m, const char *name)
{
    /* Listed as HBase's ServerCrashProcedure; its state is kept where it acts (the
     * splitWAL znode, the fenced WAL directory, the regions' rows: docs/procedures.md). */
    const char *servers[1] = {name};
    uint64_t id = master_proc_begin(m, "ServerCrashProcedure", "", servers, 1);
    master_proc_set_step(m, id, "SERVER_CRASH_SPLIT_LOGS");
    master_inject_crash(m, "ServerCrashProcedure", "SERVER_CRASH_SPLIT_LOGS");
    /* A master resumed after a pause may hold a stale live set (a server registered
     * meanwhile looks dead): it must not fence a WAL directory once its session may be gone. */
    int rc = master_check_lease(m);
    if (rc == ST_OK)
        rc = split_wals(m, name);
    if (rc != ST_OK) {
        master_proc_end(m, id, false, M_PROC_FAILED, st_errmsg());
        return rc;
    }
    master_proc_set_step(m, id, "SERVER_CRASH_ASSIGN");
    master_inject_crash(m, "ServerCrashProcedure", "SERVER_CRASH_ASSIGN");
    drop_owner_nodes(m, name);
    size_t nt = 0;
    m_table **tables = master_tables_hold(m, &nt);
    for (size_t ti = 0; ti < nt; ti++) {
        int c = reassign_table(m, tables[ti], name);
        if (c != ST_OK)
            rc = c;
    }
    master_tables_release(m, tables, nt);
    if (rc == ST_OK)
        recovery_done(m, name);
    master_proc_end(m, id, false, rc == ST_OK ? M_PROC_SUCCESS : M_PROC_FAILED,
                    rc == ST_OK ? NULL : st_errmsg());
    return rc;
}

static void report_totals(m_server *s, int64_t now)
{
    const Strata__Master__RegionServerReportRequest *r = s->report;
    uint64_t total = r->read_requests + r->write_requests;
    if (!total)
        total = r->total_requests;
    if (s->prev_ms && now > s->prev_ms && total >= s->prev_total)
        s->rps = (double)(total - s->prev_total) * 1000.0 / (double)(now - s->prev_ms);
    s->prev_total = total;
    s->prev_ms = now;
}

static int handle_report(master *m, const Strata__Master__RegionServerReportRequest *req,
                         bool may_sync);

int master_handle_report(master *m, const Strata__Master__RegionServerReportRequest *req)
{
    return handle_report(m, req, true);
}

static int handle_report(master *m, const Strata__Master__RegionServerReportRequest *req,
                         bool may_sync)
{
    char name[SERVER_NAME_MAX];
    server_name_format_proto(req->server, name, sizeof(name));
    /* Keep a private copy of the report. */
    size_t len = protobuf_c_message_get_packed_size(&req->base);
    uint8_t *tmp = malloc(len ? len : 1);
    if (!tmp)
        return st_error(ST_NOMEM, "out of memory");
    protobuf_c_message_pack(&req->base, tmp);
    Strata__Master__RegionServerReportRequest *copy =
        strata__master__region_server_report_request__unpack(NULL, len, tmp);
    free(tmp);
    if (!copy)
        return st_error(ST_NOMEM, "out of memory");
    int rc = ST_OK;
    pthread_mutex_lock(&m->mu);
    m_server *s = master_server_find(m, name);
    bool dead = false;
    for (size_t i = 0; i < m->ndead && !dead; i++)
        dead = strcmp(m->dead[i], name) == 0;
    if (s) {
        if (s->report)
            strata__master__region_server_report_request__free_unpacked(s->report, NULL);
        s->report = copy;
        copy = NULL;
        s->report_ms = clock_now_ms();
        report_totals(s, s->report_ms);
        master_load_record(m, s, s->report, s->report_ms);
        if (!s->reported) {
            s->reported = true;
            pthread_cond_broadcast(&m->chore_cv); /* it can take regions now */
        }
    } else if (dead) {
        rc = st_error(ST_CLOSED, "region server %s is dead to master %s: abort", name, m->name);
    } else if (!may_sync) {
        m->rs_changed = true; /* not seen yet: the watch will add it */
        pthread_cond_broadcast(&m->chore_cv);
    }
    bool unknown = !s && !dead;
    pthread_mutex_unlock(&m->mu);
    if (copy)
        strata__master__region_server_report_request__free_unpacked(copy, NULL);
    if (unknown && may_sync) {
        /* A server reporting before this master read its znode: read them now so the
         * report counts (the server can take regions from now on). */
        master_servers_sync(m);
        return handle_report(m, req, false);
    }
    return rc;
}

int master_handle_region_closed(master *m, const Strata__Master__ReportRegionClosedRequest *req)
{
    char name[SERVER_NAME_MAX];
    server_name_format_proto(req->server, name, sizeof(name));
    pthread_mutex_lock(&m->mu);
    m_server *s = master_server_find(m, name);
    if (s && req->server_stopping)
        s->stopping = true;
    pthread_mutex_unlock(&m->mu);
    m_region *r = NULL;
    m_table *t = NULL;
    int rc = master_region_take(m, req->encoded_name, &r, &t);
    if (rc != ST_OK)
        return rc;
    /* The server closed it with a flush: nothing of it is left in its WAL. */
    if (strcmp(r->mr.server, name) == 0)
        rc = master_set_state(m, r, META_CLOSED, "");
    master_region_give(m, r);
    LOG_INFO("master %s: region %s closed by %s%s", m->name, req->encoded_name, name,
             req->server_stopping ? " (stopping)" : "");
    master_chore_wake(m);
    return rc;
}
