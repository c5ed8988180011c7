/*
 * master_snapshot.c - one copy of the cluster as the active master sees it, taken for a
 * GetClusterStatus answer and for every status page and metrics scrape, so that all of
 * them count the same way (master_internal.h, "cluster snapshot"):
 *
 *   masters   the active master and the backups, from ZooKeeper (no lock held; what
 *             cannot be read is left out)
 *   servers   every live region server the master has heard from (a server whose znode
 *             is there but that never answered is not live yet): its last heartbeat (a
 *             copy), the regions meta places on it
 *   dead      the servers declared dead that are not live again
 *   tables    name, state, regions, open regions
 *   rits      every region not settled where its table's state wants it
 *             (master_region_settled)
 *   spread    regions of each table on each server
 *
 * The in-memory state is copied under m->mu in one go (heartbeats are copied by packing
 * and unpacking them); no RPC or ZooKeeper call is made while it is held.
 * Thread-safety: any thread; master_snapshot_take takes mu itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/status.h"
#include "master/master_internal.h"

bool master_region_settled(master *m, const m_table *t, const m_region *r)
{
    if (meta_table_state_wants_open(t->state)) {
        const m_server *on = r->mr.server[0] ? master_server_find(m, r->mr.server) : NULL;
        return r->mr.state == META_OPEN && on && on->reported;
    }
    return !r->mr.server[0] && (r->mr.state == META_CLOSED || r->mr.state == META_OFFLINE);
}

void master_snapshot_free(master_snap *sn)
{
    free(sn->backups);
    for (size_t i = 0; sn->servers && i < sn->nservers; i++)
        if (sn->servers[i].report)
            strata__master__region_server_report_request__free_unpacked(sn->servers[i].report,
                                                                        NULL);
    free(sn->servers);
    free(sn->dead);
    free(sn->tables);
    for (size_t i = 0; sn->rits && i < sn->nrits; i++)
        meta_region_clear(&sn->rits[i].region);
    free(sn->rits);
    free(sn->spread);
    memset(sn, 0, sizeof(*sn));
}

static void master_from(const server_name *sn, uint32_t http_port, master_snap_master *out)
{
    out->sn = *sn;
    server_name_format(sn, out->name, sizeof(out->name));
    out->http_port = http_port;
}

/* The backup masters from <parent>/backup-masters: every child whose name parses, with the
 * HTTP port from its record when that reads. ZooKeeper failures leave the list short (the
 * status is still worth answering); ST_NOMEM only. */
static int read_backups(master *m, master_snap *sn)
{
    char *dir = znodes_path(m->parent, ZNODE_BACKUP_MASTERS, NULL);
    char **names = NULL;
    size_t n = 0;
    if (!dir)
        return st_error(ST_NOMEM, "out of memory");
    if (master_zk_children(m, dir, &names, &n) != ST_OK)
        n = 0;
    int rc = n && !(sn->backups = calloc(n, sizeof(*sn->backups)))
                 ? st_error(ST_NOMEM, "out of memory")
                 : ST_OK;
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        server_name s;
        if (server_name_parse(names[i], &s) != ST_OK)
            continue;
        uint8_t *data = NULL;
        size_t len = 0;
        server_name rec;
        uint32_t http = 0;
        char *p = znodes_path(m->parent, ZNODE_BACKUP_MASTERS, names[i]);
        if (!(p && master_zk_get(m, p, &data, &len, NULL) == ST_OK &&
              server_info_decode(data, len, &rec, &http) == ST_OK))
            http = 0;
        master_from(&s, http, &sn->backups[sn->nbackups++]);
        free(data);
        free(p);
    }
    zk_names_free(names, n);
    free(dir);
    return rc;
}

/* What ZooKeeper says about masters (no lock held). */
static int snap_masters(master *m, master_snap *sn)
{
    server_name act;
    uint32_t http = 0;
    if (master_active_master(m, &act, &http) == ST_OK) {
        master_from(&act, http, &sn->active_master);
        sn->have_active = true;
    }
    return read_backups(m, sn);
}

/* A private copy of a heartbeat, for answers built after mu is released. */
static Strata__Master__RegionServerReportRequest *copy_report(
    const Strata__Master__RegionServerReportRequest *r)
{
    size_t len = protobuf_c_message_get_packed_size(&r->base);
    uint8_t *tmp = malloc(len ? len : 1);
    if (!tmp)
        return NULL;
    protobuf_c_message_pack(&r->base, tmp);
    Strata__Master__RegionServerReportRequest *copy =
        strata__master__region_server_report_request__unpack(NULL, len, tmp);
    free(tmp);
    return copy;
}

static int copy_server(master *m, const m_server *s, master_snap_server *out)
{
    out->sn = s->sn;
    snprintf(out->name, sizeof(out->name), "%s", s->name);
    out->http_port = s->http_port;
    out->stopping = s->stopping;
    out->rps = s->rps;
    if (!s->report)
        return ST_OK;
    out->report = copy_report(s->report);
    if (!out->report)
        return st_error(ST_NOMEM, "out of memory copying the heartbeat of %s", s->name);
    out->report_ms = s->report_ms;
    return ST_OK;
}

static int server_index(const master_snap *sn, const char *name)
{
    for (size_t i = 0; i < sn->nservers; i++)
        if (strcmp(sn->servers[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* Tables, transitions and the spread (mu held; the arrays are allocated). */
static int copy_tables(master *m, master_snap *sn)
{
    int rc = ST_OK;
    for (size_t i = 0; rc == ST_OK && i < m->ntables; i++) {
        const m_table *t = m->tables[i];
        master_snap_table *ot = &sn->tables[i];
        snprintf(ot->name, sizeof(ot->name), "%s", t->name);
        ot->state = t->state;
        ot->regions = t->n;
        for (size_t j = 0; rc == ST_OK && j < t->n; j++) {
            const m_region *r = t->regions[j];
            ot->open += r->mr.state == META_OPEN;
            int si = r->mr.server[0] ? server_index(sn, r->mr.server) : -1;
            if (si >= 0) {
                sn->servers[si].regions++;
                sn->spread[(size_t)si * m->ntables + i]++;
            }
            if (master_region_settled(m, t, r))
                continue;
            master_snap_rit *x = &sn->rits[sn->nrits];
            rc = meta_region_copy(&x->region, &r->mr);
            if (rc == ST_OK) {
                x->since_ms = r->since_ms;
                sn->nrits++;
            }
        }
        sn->nregions += t->n;
    }
    sn->ntables = m->ntables;
    return rc;
}

/* Dead servers that are not live again (mu held; the array is allocated). */
static void copy_dead(master *m, master_snap *sn)
{
    for (size_t i = 0; i < m->ndead; i++)
        if (!master_server_find(m, m->dead[i]))
            snprintf(sn->dead[sn->ndead++], SERVER_NAME_MAX, "%s", m->dead[i]);
}

static int snap_state(master *m, master_snap *sn)
{
    int rc = ST_OK;
    pthread_mutex_lock(&m->mu);
    size_t nr = 0;
    for (size_t i = 0; i < m->ntables; i++)
        nr += m->tables[i]->n;
    sn->servers = calloc(m->nservers + 1, sizeof(*sn->servers));
    sn->dead = calloc(m->ndead + 1, sizeof(*sn->dead));
    sn->tables = calloc(m->ntables + 1, sizeof(*sn->tables));
    sn->rits = calloc(nr + 1, sizeof(*sn->rits));
    sn->spread = calloc(m->nservers * m->ntables + 1, sizeof(*sn->spread));
    if (!sn->servers || !sn->dead || !sn->tables || !sn->rits || !sn->spread)
        rc = st_error(ST_NOMEM, "master %s: out of memory for the cluster snapshot", m->name);
    for (size_t i = 0; rc == ST_OK && i < m->nservers; i++)
        if (m->servers[i]->reported)
            rc = copy_server(m, m->servers[i], &sn->servers[sn->nservers++]);
    if (rc == ST_OK) {
        copy_dead(m, sn);
        rc = copy_tables(m, sn);
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

int master_snapshot_take(master *m, master_snap *sn)
{
    memset(sn, 0, sizeof(*sn));
    sn->now_ms = clock_now_ms();
    sn->active = atomic_load(&m->active) && !atomic_load(&m->stopping);
    int rc = snap_masters(m, sn);
    if (rc == ST_OK && sn->active) {
        sn->active_since_ms = m->active_since_ms;
        snprintf(sn->cluster_id, sizeof(sn->cluster_id), "%s", m->cluster_id);
        rc = snap_state(m, sn);
    }
    if (rc != ST_OK)
        master_snapshot_free(sn);
    return rc;
}
