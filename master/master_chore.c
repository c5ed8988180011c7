/*
 * master_chore.c - the active master's background loop. Each pass (every
 * master.chore.interval.ms, or at once when woken): re-read the live region servers if
 * their znodes changed, run the recovery of every dead server queued, then repair every
 * region that is not where its table state wants it (master_repair): unassigned regions of
 * enabled tables are opened, open regions of disabled tables closed, OPENING/CLOSING left
 * by an earlier master finished, FAILED_OPEN retried after master.failed.open.retry.ms.
 * Before the repair, each live server's last report is compared with meta (reconcile):
 * a region meta places on a server that no longer serves it is closed in meta (and so
 * reopened), a region a server serves that meta places nowhere is adopted.
 * Regions a DDL or another operation has (busy) and tables a DDL has are skipped.
 *
 * Thread-safety: one chore thread per active master.
 */
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/status.h"
#include "master/master_internal.h"

void master_chore_wake(master *m)
{
    pthread_mutex_lock(&m->mu);
    pthread_cond_broadcast(&m->chore_cv);
    pthread_mutex_unlock(&m->mu);
}

/* Runs every queued recovery once. One that fails stays queued for the next pass and does
 * not hold back the others (a corrupt WAL of one dead server must not keep every later
 * dead server's regions offline). Recoveries queued meanwhile run on the next pass. */
static void run_recoveries(master *m)
{
    pthread_mutex_lock(&m->mu);
    m->crash_queued = false; /* those queued from here on wait for the next pass */
    size_t n = m->ncrash;
    char **names = calloc(n ? n : 1, sizeof(*names));
    for (size_t i = 0; names && i < n; i++)
        names[i] = strdup(m->crash[i]);
    pthread_mutex_unlock(&m->mu);
    for (size_t i = 0; names && i < n && !atomic_load(&m->stopping); i++) {
        if (!names[i])
            continue;
        pthread_mutex_lock(&m->mu);
        bool pending = master_crash_pending(m, names[i]);
        pthread_mutex_unlock(&m->mu);
        if (pending && master_crash_recover(m, names[i]) != ST_OK)
            LOG_ERROR("master %s: recovery of %s failed (retried next pass): %s", m->name,
                      names[i], st_errmsg());
    }
    for (size_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}

/* Whether r looks out of place (mu held); master_repair decides once it has r. */
static bool needs_repair(master *m, const m_table *t, const m_region *r, int64_t now)
{
    bool enabled = meta_table_state_wants_open(t->state);
    bool has_server = r->mr.server[0] != 0;
    bool live = has_server && master_server_find(m, r->mr.server) != NULL;
    if (has_server && !live)
        return !master_crash_pending(m, r->mr.server);
    if (!enabled)
        return has_server;
    if (r->mr.state == META_OPEN && live)
        return false;
    if (r->mr.state == META_FAILED_OPEN && now < r->retry_at_ms)
        return false;
    for (size_t i = 0; i < m->nservers; i++)
        if (m->servers[i]->reported && !m->servers[i]->stopping)
            return true; /* a server can take it */
    return false;
}

/* A DDL cut off by a master failover leaves its table ENABLING or DISABLING: once no DDL has
 * the table and every region is where the state wants it, the state is finished. */
static void finish_table_states(master *m, m_table **tables, size_t nt)
{
    for (size_t i = 0; i < nt; i++) {
        m_table *t = tables[i];
        pthread_mutex_lock(&m->mu);
        bool enabling = t->state == META_TABLE_ENABLING, disabling = t->state == META_TABLE_DISABLING;
        bool done = !t->busy && (enabling || disabling);
        for (size_t j = 0; done && j < t->n; j++) {
            const m_region *r = t->regions[j];
            /* Disabling is done once nothing is placed or moving (a FAILED_OPEN region on
             * no server stays so while its table is disabled). */
            done = enabling ? master_region_settled(m, t, r)
                            : (!r->mr.server[0] && r->mr.state != META_OPENING &&
                               r->mr.state != META_CLOSING);
        }
        if (done)
            t->busy = true; /* as a DDL would, while the state is written */
        pthread_mutex_unlock(&m->mu);
        if (!done)
            continue;
        meta_table_state st = enabling ? META_TABLE_ENABLED : META_TABLE_DISABLED;
        int rc = master_check_lease(m);
        if (rc == ST_OK)
            rc = meta_set_table_state(m->meta, t->name, st);
        pthread_mutex_lock(&m->mu);
        if (rc == ST_OK) {
            t->state = st;
            t->state_ms = clock_now_ms();
        }
        t->busy = false;
        pthread_cond_broadcast(&m->cv);
        pthread_mutex_unlock(&m->mu);
        if (rc == ST_OK) {
            master_mirror_table_state(m, t->name, st);
            LOG_INFO("master %s: table %s is %s (finished after a master change)", m->name,
                     t->name, meta_table_state_name(st));
        }
        else
            LOG_WARN("master %s: table %s: %s", m->name, t->name, st_errmsg());
    }
}

static void repair_regions(master *m)
{
    size_t nt = 0;
    m_table **tables = master_tables_hold(m, &nt);
    for (size_t i = 0; i < nt && !atomic_load(&m->stopping); i++) {
        m_table *t = tables[i];
        pthread_mutex_lock(&m->mu);
        size_t cnt = 0;
        m_region **v = t->busy ? NULL : calloc(t->n ? t->n : 1, sizeof(*v));
        int64_t now = clock_now_ms();
        for (size_t j = 0; v && j < t->n; j++)
            if (!t->regions[j]->busy && needs_repair(m, t, t->regions[j], now))
                v[cnt++] = t->regions[j];
        pthread_mutex_unlock(&m->mu);
        if (cnt) {
            int rc = master_assign_many(m, t, v, cnt, MASTER_BULK_REPAIR);
            if (rc != ST_OK)
                LOG_WARN("master %s: table %s: %s", m->name, t->name, st_errmsg());
        }
        free(v);
    }
    finish_table_states(m, tables, nt);
    master_tables_release(m, tables, nt);
}

/* ---- reports against meta ---- */

typedef struct recon_job {
    char encoded[64];
    char server[SERVER_NAME_MAX];
    char addr[300];
    bool adopt; /* the server has it but meta does not say so (else: meta says so, it has not) */
} recon_job;

static bool in_report(const m_server *s, const char *encoded)
{
    for (size_t i = 0; i < s->report->n_region; i++)
        if (strcmp(s->report->region[i]->encoded_name, encoded) == 0)
            return true;
    return false;
}

/* Jobs for regions whose state is older than the grace and that a report contradicts
 * (mu held). */
static size_t collect_jobs(master *m, recon_job **out)
{
    size_t n = 0, cap = 0;
    recon_job *v = NULL;
    for (size_t si = 0; si < m->nservers; si++) {
        const m_server *s = m->servers[si];
        if (!s->reported || !s->report || s->stopping)
            continue;
        for (size_t ti = 0; ti < m->ntables; ti++) {
            const m_table *t = m->tables[ti];
            for (size_t j = 0; !t->busy && j < t->n; j++) {
                const m_region *r = t->regions[j];
                if (r->busy || r->since_ms + m->reconcile_grace_ms >= s->report_ms)
                    continue;
                bool here = r->mr.state == META_OPEN && strcmp(r->mr.server, s->name) == 0;
                bool reported = in_report(s, r->mr.encoded_name);
                bool adopt = reported && !here && !r->mr.server[0];
                if (!(here && !reported) && !adopt)
                    continue;
                if (n == cap) {
                    cap = cap ? cap * 2 : 8;
                    recon_job *nv = realloc(v, cap * sizeof(*v));
                    if (!nv)
                        break;
                    v = nv;
                }
                snprintf(v[n].encoded, sizeof(v[n].encoded), "%s", r->mr.encoded_name);
                snprintf(v[n].server, sizeof(v[n].server), "%s", s->name);
                snprintf(v[n].addr, sizeof(v[n].addr), "%s", s->addr);
                v[n].adopt = adopt;
                n++;
            }
        }
    }
    *out = v;
    return n;
}

/* Asks the server whether it serves the region now: ST_OK (it does), ST_NOT_SERVING (it
 * does not), or another failure (unknown). */
static int serves(master *m, const recon_job *j)
{
    Strata__Admin__GetRegionInfoRequest req = STRATA__ADMIN__GET_REGION_INFO_REQUEST__INIT;
    req.encoded_name = (char *)j->encoded;
    return master_rs_call(m, j->addr, "AdminService.GetRegionInfo", &req.base, NULL, NULL);
}

/* A region meta places on S that S's report lacks is checked with S and, if S does not
 * serve it, closed in meta (and reopened by the repair). A region a server reports that
 * meta places nowhere (an open whose answer was lost) is checked and adopted there; if its
 * table is disabled the repair then closes it. */
static void reconcile(master *m)
{
    recon_job *jobs = NULL;
    pthread_mutex_lock(&m->mu);
    size_t n = collect_jobs(m, &jobs);
    pthread_mutex_unlock(&m->mu);
    for (size_t i = 0; i < n && !atomic_load(&m->stopping); i++) {
        const recon_job *j = &jobs[i];
        m_region *r = NULL;
        if (master_region_take(m, j->encoded, &r, NULL) != ST_OK)
            continue;
        bool here = r->mr.state == META_OPEN && strcmp(r->mr.server, j->server) == 0;
        bool still = j->adopt ? !r->mr.server[0] : here;
        int rc = still ? serves(m, j) : ST_INTERNAL;
        if (still && j->adopt && rc == ST_OK) {
            LOG_WARN("master %s: region %s is open on %s though meta placed it nowhere; adopted",
                     m->name, j->encoded, j->server);
            master_set_state(m, r, META_OPEN, j->server);
        } else if (still && !j->adopt && (rc == ST_NOT_SERVING || rc == ST_NOT_FOUND)) {
            LOG_WARN("master %s: region %s is not on %s as meta says; closed in meta to reopen it",
                     m->name, j->encoded, j->server);
            master_set_state(m, r, META_CLOSED, "");
        }
        master_region_give(m, r);
    }
    free(jobs);
}

void master_chore_pass(master *m, bool sync_servers)
{
    if (sync_servers)
        master_servers_sync(m);
    else
        master_ping(m); /* keeps the lease fresh */
    run_recoveries(m);
    reconcile(m);
    repair_regions(m);
}

void *master_chore_main(void *arg)
{
    master *m = arg;
    bool first = true;
    int64_t next_wal_scan = clock_now_ms() + 5000;
    while (!atomic_load(&m->stopping)) {
        if (clock_now_ms() >= next_wal_scan) {
            /* WAL directories of servers that died without a znode this master saw go. */
            master_servers_find_dead(m);
            next_wal_scan = clock_now_ms() + 5000;
        }
        if (clock_now_ms() >= m->janitor_last_ms + m->janitor_interval_ms) {
            master_janitor_run(m, NULL); /* sets janitor_last_ms */
            m->janitor_last_ms = clock_now_ms();
        }
        pthread_mutex_lock(&m->mu);
        bool normalize = clock_now_ms() >= m->normalizer_last_ms + m->normalizer_period_ms;
        if (normalize)
            m->normalizer_last_ms = clock_now_ms();
        pthread_mutex_unlock(&m->mu);
        if (normalize)
            master_normalize_async(m); /* splits and merges take a while: not on the chore */
        pthread_mutex_lock(&m->mu);
        bool balance = clock_now_ms() >= m->balancer_last_ms + m->balancer_period_ms;
        if (balance)
            m->balancer_last_ms = clock_now_ms();
        pthread_mutex_unlock(&m->mu);
        if (balance)
            master_balance_async(m); /* moves take a while: not on the chore */
        pthread_mutex_lock(&m->mu);
        bool sync = m->rs_changed || first;
        pthread_mutex_unlock(&m->mu);
        master_chore_pass(m, sync);
        first = false;
        pthread_mutex_lock(&m->mu);
        if (!m->chore_stop) {
            /* Servers changed again (or reading them failed), or a recovery was queued
             * during the pass: look again soon, but never spin while ZooKeeper is
             * unreachable or a recovery keeps failing. */
            bool again = m->rs_changed || m->crash_queued; /* a recovery queued meanwhile */
            int64_t wait = again ? (m->chore_ms < 100 ? m->chore_ms : 100) : m->chore_ms;
            struct timespec until = clock_realtime_after_ms(wait);
            pthread_cond_timedwait(&m->chore_cv, &m->mu, &until);
        }
        pthread_mutex_unlock(&m->mu);
    }
    return NULL;
}
