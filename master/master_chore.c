/*
 * master_chore.c - the active master's background loop. Each pass (every
 * master.chore.interval.ms, or at once when woken): re-read the live region servers if
 * their znodes changed, run the recovery of every dead server queued, then repair every
 * region that is not where its table state wants it (master_repair): unassigned regions of
 * enabled tables are opened, open regions of disabled tables closed, OPENING/CLOSING left
 * by an earlier master finished, FAILED_OPEN retried after master.failed.open.retry.ms.
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

static void run_recoveries(master *m)
{
    for (;;) {
        pthread_mutex_lock(&m->mu);
        char *name = m->ncrash ? strdup(m->crash[0]) : NULL;
        pthread_mutex_unlock(&m->mu);
        if (!name)
            return;
        int rc = master_crash_recover(m, name);
        if (rc != ST_OK)
            LOG_ERROR("master %s: recovery of %s failed (retried next pass): %s", m->name, name,
                      st_errmsg());
        free(name);
        if (rc != ST_OK || atomic_load(&m->stopping))
            return;
    }
}

/* Whether r looks out of place (mu held); master_repair decides once it has r. */
static bool needs_repair(master *m, const m_table *t, const m_region *r, int64_t now)
{
    bool enabled = t->state == META_TABLE_ENABLED || t->state == META_TABLE_ENABLING;
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
    master_tables_release(m, tables, nt);
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
        pthread_mutex_lock(&m->mu);
        bool sync = m->rs_changed || first;
        pthread_mutex_unlock(&m->mu);
        if (sync)
            master_servers_sync(m);
        else
            master_ping(m); /* keeps the lease fresh */
        first = false;
        run_recoveries(m);
        repair_regions(m);
        pthread_mutex_lock(&m->mu);
        if (!m->chore_stop && !m->rs_changed) {
            struct timespec until = clock_realtime_after_ms(m->chore_ms);
            pthread_cond_timedwait(&m->chore_cv, &m->mu, &until);
        }
        pthread_mutex_unlock(&m->mu);
    }
    return NULL;
}
