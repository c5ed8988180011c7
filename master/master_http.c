/*
 * master_http.c - the master's HTTP endpoints (docs/http.md), on common/http_server.h:
 *
 *   /healthz      200 "ok" while the process runs
 *   /readyz       200 only on the active master once meta is loaded; else 503 with the
 *                 reason ("backup master; active is host,port,startcode")
 *   /metrics      Prometheus text: cluster figures, and per-server series labelled
 *                 {server} (from the heartbeats), per-table region counts {table}
 *   / and /status an HTML page: masters, region servers (requests per second, regions,
 *                 memstore, store files), dead servers, tables, regions in transition,
 *                 and a bar chart of how regions spread over servers by table
 *   /status.json  the same data as JSON
 *
 * Every page first copies what it shows (mh_snap): the active and backup masters from
 * ZooKeeper (no lock held), then tables, regions and servers under m->mu (briefly, no
 * call made while holding it); rendering runs without locks.
 *
 * Thread-safety: handlers run on the HTTP thread; they read m's atomics, its settings
 * (fixed before HTTP starts), m->z (open from before HTTP starts until after it stops)
 * and, under mu, the in-memory tables and servers. cluster_id and active_since_ms are
 * read only once `active` is seen set (activate writes them before).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/http/html.h"
#include "common/http/json.h"
#include "common/log.h"
#include "common/http/prom.h"
#include "common/status.h"
#include "common/zk/znodes.h"
#include "master/master_internal.h"

#define MH_RIT_THRESHOLD_MS 60000 /* rit_count_over_threshold, as HBase's default */

/* ---- the snapshot ---- */

typedef struct mh_master {
    char name[SERVER_NAME_MAX];
    char host[256];
    uint32_t http_port;
} mh_master;

typedef struct mh_server {
    char name[SERVER_NAME_MAX];
    char host[256];
    uint32_t http_port;
    bool stopping;
    bool has_report;
    uint64_t read, write, memstore, store_files, store_file_size;
    double rps;
    int64_t report_ms;
    size_t regions; /* regions meta places on it */
} mh_server;

typedef struct mh_table {
    char name[256];
    meta_table_state state;
    size_t regions, open;
} mh_table;

typedef struct mh_rit {
    char table[256];
    char encoded[64];
    meta_region_state state;
    char server[SERVER_NAME_MAX];
    int64_t since_ms;
} mh_rit;

typedef struct mh_snap {
    bool active;
    bool ready;
    char why[SERVER_NAME_MAX * 2 + 64];
    int64_t now_ms;
    int64_t active_since_ms;
    char cluster_id[40];
    bool have_active;
    mh_master active_master;
    mh_master *backups;
    size_t nbackups;
    mh_server *servers;
    size_t nservers;
    char (*dead)[SERVER_NAME_MAX];
    size_t ndead;
    mh_table *tables;
    size_t ntables;
    mh_rit *rits;
    size_t nrits;
    size_t nregions;
    size_t *spread; /* nservers x ntables: regions of table t on server s at [s * ntables + t] */
} mh_snap;

static void snap_free(mh_snap *sn)
{
    free(sn->backups);
    free(sn->servers);
    free(sn->dead);
    free(sn->tables);
    free(sn->rits);
    free(sn->spread);
    memset(sn, 0, sizeof(*sn));
}

static void master_from(const server_name *sn, uint32_t http_port, mh_master *out)
{
    server_name_format(sn, out->name, sizeof(out->name));
    snprintf(out->host, sizeof(out->host), "%s", sn->host);
    out->http_port = http_port;
}

static int read_backups(master *m, mh_snap *sn)
{
    char *dir = znodes_path(m->parent, ZNODE_BACKUP_MASTERS, NULL);
    char **names = NULL;
    size_t n = 0;
    int rc = dir ? zk_children(m->z, dir, &names, &n) : st_error(ST_NOMEM, "out of memory");
    if (rc == ST_OK && n && !(sn->backups = calloc(n, sizeof(*sn->backups))))
        rc = st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        uint8_t *data = NULL;
        size_t len = 0;
        server_name s;
        uint32_t http = 0;
        char *p = znodes_path(m->parent, ZNODE_BACKUP_MASTERS, names[i]);
        if (!p)
            continue;
        if (zk_get(m->z, p, &data, &len, NULL) == ST_OK &&
            server_info_decode(data, len, &s, &http) == ST_OK)
            master_from(&s, http, &sn->backups[sn->nbackups++]);
        free(data);
        free(p);
    }
    zk_names_free(names, n);
    free(dir);
    return rc == ST_NOT_FOUND ? ST_OK : rc;
}

/* What ZooKeeper says about masters (no lock held). */
static int snap_masters(master *m, mh_snap *sn)
{
    server_name act;
    uint32_t http = 0;
    if (m->z && znodes_active_master(m->z, m->parent, &act, &http) == ST_OK) {
        master_from(&act, http, &sn->active_master);
        sn->have_active = true;
    }
    return m->z ? read_backups(m, sn) : ST_OK;
}

static bool ready_check(master *m, char *why, size_t cap)
{
    if (atomic_load(&m->stopping)) {
        snprintf(why, cap, "master %s is stopping", m->name);
        return false;
    }
    if (atomic_load(&m->active)) {
        snprintf(why, cap, "ok: active master %s", m->name);
        return true;
    }
    server_name act;
    char who[SERVER_NAME_MAX] = "";
    if (m->z && znodes_active_master(m->z, m->parent, &act, NULL) == ST_OK)
        server_name_format(&act, who, sizeof(who));
    if (!who[0])
        snprintf(why, cap, "backup master %s; no master is active", m->name);
    else if (strcmp(who, m->name) == 0)
        snprintf(why, cap, "master %s is becoming active (loading meta)", m->name);
    else
        snprintf(why, cap, "backup master %s; active is %s", m->name, who);
    return false;
}

/* Regions not where their table's state wants them (as GetClusterStatus counts them). mu held. */
static bool in_transition(master *m, const m_table *t, const m_region *r)
{
    bool enabled = t->state == META_TABLE_ENABLED || t->state == META_TABLE_ENABLING;
    if (enabled)
        return !(r->mr.state == META_OPEN && r->mr.server[0] && master_server_find(m, r->mr.server));
    return !(!r->mr.server[0] && (r->mr.state == META_CLOSED || r->mr.state == META_OFFLINE));
}

static void copy_server(master *m, const m_server *s, mh_server *out)
{
    snprintf(out->name, sizeof(out->name), "%s", s->name);
    snprintf(out->host, sizeof(out->host), "%s", s->sn.host);
    out->http_port = s->http_port;
    out->stopping = s->stopping;
    out->rps = s->rps;
    if (s->report) {
        out->has_report = true;
        out->read = s->report->read_requests;
        out->write = s->report->write_requests;
        out->memstore = s->report->memstore_size;
        out->store_files = s->report->store_files;
        out->store_file_size = s->report->store_file_size;
        out->report_ms = s->report_ms;
    }
}

static int server_index(const mh_snap *sn, const char *name)
{
    for (size_t i = 0; i < sn->nservers; i++)
        if (strcmp(sn->servers[i].name, name) == 0)
            return (int)i;
    return -1;
}

static void copy_rit(const m_region *r, mh_rit *out)
{
    snprintf(out->table, sizeof(out->table), "%s", r->mr.table);
    snprintf(out->encoded, sizeof(out->encoded), "%s", r->mr.encoded_name);
    snprintf(out->server, sizeof(out->server), "%s", r->mr.server);
    out->state = r->mr.state;
    out->since_ms = r->since_ms;
}

/* Tables, regions, transitions and the spread (mu held; the arrays are allocated). */
static void copy_tables(master *m, mh_snap *sn)
{
    for (size_t i = 0; i < m->ntables; i++) {
        const m_table *t = m->tables[i];
        mh_table *ot = &sn->tables[i];
        snprintf(ot->name, sizeof(ot->name), "%s", t->name);
        ot->state = t->state;
        ot->regions = t->n;
        for (size_t j = 0; j < t->n; j++) {
            const m_region *r = t->regions[j];
            ot->open += r->mr.state == META_OPEN;
            int si = r->mr.server[0] ? server_index(sn, r->mr.server) : -1;
            if (si >= 0) {
                sn->servers[si].regions++;
                sn->spread[(size_t)si * m->ntables + i]++;
            }
            if (in_transition(m, t, r))
                copy_rit(r, &sn->rits[sn->nrits++]);
        }
        sn->nregions += t->n;
    }
    sn->ntables = m->ntables;
}

/* Dead servers that are not live again (mu held; the array is allocated). */
static void copy_dead(master *m, mh_snap *sn)
{
    for (size_t i = 0; i < m->ndead; i++)
        if (!master_server_find(m, m->dead[i]))
            snprintf(sn->dead[sn->ndead++], SERVER_NAME_MAX, "%s", m->dead[i]);
}

static int snap_state(master *m, mh_snap *sn)
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
        rc = st_error(ST_NOMEM, "master %s: out of memory for the status page", m->name);
    if (rc == ST_OK) {
        for (size_t i = 0; i < m->nservers; i++)
            copy_server(m, m->servers[i], &sn->servers[i]);
        sn->nservers = m->nservers;
        copy_dead(m, sn);
        copy_tables(m, sn);
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

static int snap_take(master *m, mh_snap *sn)
{
    memset(sn, 0, sizeof(*sn));
    sn->now_ms = clock_now_ms();
    sn->ready = ready_check(m, sn->why, sizeof(sn->why));
    sn->active = atomic_load(&m->active) && !atomic_load(&m->stopping);
    int rc = snap_masters(m, sn);
    if (rc == ST_OK && sn->active) {
        sn->active_since_ms = m->active_since_ms;
        snprintf(sn->cluster_id, sizeof(sn->cluster_id), "%s", m->cluster_id);
        rc = snap_state(m, sn);
    }
    if (rc != ST_OK)
        snap_free(sn);
    return rc;
}

static void fail_page(http_response *resp)
{
    buf_reset(&resp->body);
    http_response_set(resp, 500, "text/plain; charset=utf-8");
    http_response_printf(resp, "internal error: %s\n", st_errmsg());
}

/* ---- /healthz, /readyz ---- */

static void h_healthz(void *arg, const http_request *req, http_response *resp)
{
    http_response_printf(resp, "ok\n");
}

static void h_readyz(void *arg, const http_request *req, http_response *resp)
{
    char why[SERVER_NAME_MAX * 2 + 64];
    bool ok = ready_check(arg, why, sizeof(why));
    http_response_set(resp, ok ? 200 : 503, NULL);
    http_response_printf(resp, "%s\n", ok ? "ok" : why);
}

/* ---- /metrics ---- */

static int family(buf_t *b, const char *name, const char *type, const char *help, double total,
                  bool with_total)
{
    int rc = prom_family(b, name, type, help);
    if (rc == ST_OK && with_total)
        rc = prom_sample_double(b, name, NULL, 0, total);
    return rc;
}

typedef enum mh_field {
    MH_REGIONS,
    MH_READ,
    MH_WRITE,
    MH_MEMSTORE,
    MH_STORE_FILES,
    MH_STORE_FILE_SIZE,
    MH_RPS,
    MH_REPORT_AGE,
} mh_field;

typedef struct mh_metric {
    const char *name;
    const char *type;
    const char *help;
    mh_field field;
    bool total; /* an unlabelled cluster total too */
} mh_metric;

static const mh_metric server_metrics[] = {
    {"region_count", "gauge",
     "Regions meta places on each live region server; the unlabelled series counts every "
     "region of every table", MH_REGIONS, true},
    {"read_request_count", "counter",
     "Rows read on each live region server (last heartbeat); unlabelled: their sum", MH_READ, true},
    {"write_request_count", "counter",
     "Rows written on each live region server (last heartbeat); unlabelled: their sum", MH_WRITE,
     true},
    {"memstore_size", "gauge", "Memstore bytes per live region server; unlabelled: their sum",
     MH_MEMSTORE, true},
    {"store_file_count", "gauge", "Store files per live region server; unlabelled: their sum",
     MH_STORE_FILES, true},
    {"store_file_size", "gauge", "Store file bytes per live region server; unlabelled: their sum",
     MH_STORE_FILE_SIZE, true},
    {"requests_per_second", "gauge",
     "Read and write requests per second between each server's last two heartbeats; "
     "unlabelled: their sum", MH_RPS, true},
    {"last_report_age", "gauge", "Milliseconds since each live region server's last heartbeat",
     MH_REPORT_AGE, false},
};

static double server_value(const mh_snap *sn, const mh_server *s, mh_field f)
{
    switch (f) {
    case MH_REGIONS: return (double)s->regions;
    case MH_READ: return (double)s->read;
    case MH_WRITE: return (double)s->write;
    case MH_MEMSTORE: return (double)s->memstore;
    case MH_STORE_FILES: return (double)s->store_files;
    case MH_STORE_FILE_SIZE: return (double)s->store_file_size;
    case MH_RPS: return s->rps;
    case MH_REPORT_AGE: return s->has_report ? (double)(sn->now_ms - s->report_ms) : -1;
    }
    return 0;
}

static int metric_servers(buf_t *b, const mh_snap *sn, const mh_metric *mt)
{
    double total = 0;
    for (size_t i = 0; i < sn->nservers; i++)
        total += server_value(sn, &sn->servers[i], mt->field);
    if (mt->field == MH_REGIONS)
        total = (double)sn->nregions;
    int rc = family(b, mt->name, mt->type, mt->help, total, mt->total);
    for (size_t i = 0; rc == ST_OK && i < sn->nservers; i++) {
        if (mt->field == MH_REPORT_AGE && !sn->servers[i].has_report)
            continue;
        prom_label l = {"server", sn->servers[i].name};
        rc = prom_sample_double(b, mt->name, &l, 1, server_value(sn, &sn->servers[i], mt->field));
    }
    return rc;
}

static int metrics_cluster(buf_t *b, const mh_snap *sn)
{
    int64_t oldest = 0;
    size_t over = 0;
    for (size_t i = 0; i < sn->nrits; i++) {
        int64_t age = sn->now_ms - sn->rits[i].since_ms;
        oldest = age > oldest ? age : oldest;
        over += age > MH_RIT_THRESHOLD_MS;
    }
    double avg = sn->nservers ? (double)sn->nregions / (double)sn->nservers : 0;
    int rc = family(b, "live_region_servers", "gauge", "Region servers registered and alive",
                    (double)sn->nservers, true);
    if (rc == ST_OK)
        rc = family(b, "dead_region_servers", "gauge",
                    "Region servers declared dead (the last 64, not live again)",
                    (double)sn->ndead, true);
    if (rc == ST_OK)
        rc = family(b, "average_load", "gauge", "Regions per live region server", avg, true);
    if (rc == ST_OK)
        rc = family(b, "table_count", "gauge", "User tables", (double)sn->ntables, true);
    if (rc == ST_OK)
        rc = family(b, "rit_count", "gauge",
                    "Regions in transition: not open on a live server (enabled tables) or not "
                    "closed (disabled tables)", (double)sn->nrits, true);
    if (rc == ST_OK)
        rc = family(b, "rit_oldest_age", "gauge",
                    "Milliseconds the oldest region in transition has been in its state",
                    (double)oldest, true);
    if (rc == ST_OK)
        rc = family(b, "rit_count_over_threshold", "gauge",
                    "Regions in transition for more than 60000 ms", (double)over, true);
    return rc;
}

static int metrics_tables(buf_t *b, const mh_snap *sn)
{
    int rc = family(b, "table_region_count", "gauge", "Regions of each table (any state)", 0, false);
    for (size_t i = 0; rc == ST_OK && i < sn->ntables; i++) {
        prom_label l = {"table", sn->tables[i].name};
        rc = prom_sample_u64(b, "table_region_count", &l, 1, sn->tables[i].regions);
    }
    return rc;
}

static int render_metrics(master *m, const mh_snap *sn, buf_t *b)
{
    int rc = family(b, "is_active_master", "gauge", "1 on the active master, 0 on a backup",
                    sn->active ? 1 : 0, true);
    if (rc == ST_OK)
        rc = family(b, "ready", "gauge", "1 while /readyz answers 200, else 0", sn->ready ? 1 : 0,
                    true);
    if (rc == ST_OK)
        rc = family(b, "master_start_time", "gauge", "When this master started (ms since the epoch)",
                    (double)m->start_code, true);
    if (rc != ST_OK || !sn->active)
        return rc;
    rc = family(b, "master_active_time", "gauge",
                "When this master became active (ms since the epoch)",
                (double)sn->active_since_ms, true);
    if (rc == ST_OK)
        rc = metrics_cluster(b, sn);
    for (size_t i = 0; rc == ST_OK && i < sizeof(server_metrics) / sizeof(server_metrics[0]); i++)
        rc = metric_servers(b, sn, &server_metrics[i]);
    if (rc == ST_OK)
        rc = metrics_tables(b, sn);
    return rc;
}

static void h_metrics(void *arg, const http_request *req, http_response *resp)
{
    master *m = arg;
    mh_snap sn;
    int rc = snap_take(m, &sn);
    http_response_set(resp, 200, PROM_CONTENT_TYPE);
    if (rc == ST_OK)
        rc = render_metrics(m, &sn, &resp->body);
    if (rc != ST_OK)
        fail_page(resp);
    snap_free(&sn);
}

/* ---- /status.json ---- */

static void json_master(json_writer *w, const mh_master *x)
{
    json_object_begin(w);
    json_key(w, "name");
    json_string(w, x->name);
    json_key(w, "http_port");
    json_u64(w, x->http_port);
    json_object_end(w);
}

static void json_masters(json_writer *w, const mh_snap *sn)
{
    json_key(w, "active_master");
    if (sn->have_active)
        json_master(w, &sn->active_master);
    else
        json_null(w);
    json_key(w, "backup_masters");
    json_array_begin(w);
    for (size_t i = 0; i < sn->nbackups; i++)
        json_master(w, &sn->backups[i]);
    json_array_end(w);
}

static void json_server(json_writer *w, const mh_snap *sn, size_t i)
{
    const mh_server *s = &sn->servers[i];
    json_object_begin(w);
    json_key(w, "name");
    json_string(w, s->name);
    json_key(w, "http_port");
    json_u64(w, s->http_port);
    json_key(w, "stopping");
    json_bool(w, s->stopping);
    json_key(w, "region_count");
    json_u64(w, s->regions);
    json_key(w, "regions_by_table");
    json_object_begin(w);
    for (size_t t = 0; t < sn->ntables; t++)
        if (sn->spread[i * sn->ntables + t]) {
            json_key(w, sn->tables[t].name);
            json_u64(w, sn->spread[i * sn->ntables + t]);
        }
    json_object_end(w);
    json_key(w, "requests_per_second");
    json_double(w, s->rps);
    json_key(w, "read_request_count");
    json_u64(w, s->read);
    json_key(w, "write_request_count");
    json_u64(w, s->write);
    json_key(w, "memstore_size");
    json_u64(w, s->memstore);
    json_key(w, "store_file_count");
    json_u64(w, s->store_files);
    json_key(w, "store_file_size");
    json_u64(w, s->store_file_size);
    json_key(w, "last_report_age_ms");
    if (s->has_report)
        json_i64(w, sn->now_ms - s->report_ms);
    else
        json_null(w);
    json_object_end(w);
}

static void json_tables(json_writer *w, const mh_snap *sn)
{
    json_key(w, "tables");
    json_array_begin(w);
    for (size_t i = 0; i < sn->ntables; i++) {
        json_object_begin(w);
        json_key(w, "name");
        json_string(w, sn->tables[i].name);
        json_key(w, "state");
        json_string(w, meta_table_state_name(sn->tables[i].state));
        json_key(w, "region_count");
        json_u64(w, sn->tables[i].regions);
        json_key(w, "open_region_count");
        json_u64(w, sn->tables[i].open);
        json_object_end(w);
    }
    json_array_end(w);
}

static void json_rits(json_writer *w, const mh_snap *sn)
{
    json_key(w, "regions_in_transition");
    json_array_begin(w);
    for (size_t i = 0; i < sn->nrits; i++) {
        const mh_rit *r = &sn->rits[i];
        json_object_begin(w);
        json_key(w, "table");
        json_string(w, r->table);
        json_key(w, "encoded_name");
        json_string(w, r->encoded);
        json_key(w, "state");
        json_string(w, meta_region_state_name(r->state));
        json_key(w, "server");
        json_string(w, r->server);
        json_key(w, "age_ms");
        json_i64(w, sn->now_ms - r->since_ms);
        json_object_end(w);
    }
    json_array_end(w);
}

static void json_cluster(json_writer *w, const mh_snap *sn)
{
    json_key(w, "cluster_id");
    json_string(w, sn->cluster_id);
    json_key(w, "active_since_ms");
    json_i64(w, sn->active_since_ms);
    json_key(w, "region_count");
    json_u64(w, sn->nregions);
    json_key(w, "average_load");
    json_double(w, sn->nservers ? (double)sn->nregions / (double)sn->nservers : 0);
    json_key(w, "live_servers");
    json_array_begin(w);
    for (size_t i = 0; i < sn->nservers; i++)
        json_server(w, sn, i);
    json_array_end(w);
    json_key(w, "dead_servers");
    json_array_begin(w);
    for (size_t i = 0; i < sn->ndead; i++)
        json_string(w, sn->dead[i]);
    json_array_end(w);
    json_tables(w, sn);
    json_rits(w, sn);
}

static int render_json(master *m, const mh_snap *sn, buf_t *b)
{
    json_writer w;
    json_init(&w, b);
    json_object_begin(&w);
    json_key(&w, "server");
    json_string(&w, m->name);
    json_key(&w, "role");
    json_string(&w, sn->active ? "active" : "backup");
    json_key(&w, "ready");
    json_bool(&w, sn->ready);
    json_key(&w, "ready_reason");
    json_string(&w, sn->why);
    json_key(&w, "version");
    json_string(&w, MASTER_VERSION);
    json_key(&w, "start_code");
    json_u64(&w, m->start_code);
    json_masters(&w, sn);
    if (sn->active)
        json_cluster(&w, sn);
    json_object_end(&w);
    int rc = json_finish(&w);
    if (rc == ST_OK)
        rc = buf_append(b, "\n", 1);
    return rc;
}

static void h_status_json(void *arg, const http_request *req, http_response *resp)
{
    master *m = arg;
    mh_snap sn;
    int rc = snap_take(m, &sn);
    http_response_set(resp, 200, "application/json");
    if (rc == ST_OK)
        rc = render_json(m, &sn, &resp->body);
    if (rc != ST_OK)
        fail_page(resp);
    snap_free(&sn);
}

/* ---- / (HTML) ---- */

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
#define PALETTE_N (sizeof(palette) / sizeof(palette[0]))

/* A server name, linked to its status page when it serves HTTP. */
static void server_link(html_doc *d, const char *name, const char *host, uint32_t http_port)
{
    if (http_port) {
        html_raw(d, "<a href=\"");
        html_textf(d, "http://%s:%u/", host, (unsigned)http_port);
        html_raw(d, "\">");
    }
    html_text(d, name);
    if (http_port)
        html_raw(d, "</a>");
}

static void page_masters(master *m, const mh_snap *sn, html_doc *d)
{
    html_raw(d, "<h2>Masters</h2><table><tr><th>Role</th><th>Server</th></tr>\n");
    html_raw(d, "<tr><td>active</td><td>");
    if (sn->have_active)
        server_link(d, sn->active_master.name, sn->active_master.host, sn->active_master.http_port);
    else
        html_raw(d, "<span class=\"bad\">none</span>");
    html_raw(d, "</td></tr>\n");
    for (size_t i = 0; i < sn->nbackups; i++) {
        html_raw(d, "<tr><td>backup</td><td>");
        server_link(d, sn->backups[i].name, sn->backups[i].host, sn->backups[i].http_port);
        html_raw(d, "</td></tr>\n");
    }
    html_raw(d, "</table>\n");
}

static void page_server_row(const mh_snap *sn, const mh_server *s, html_doc *d)
{
    html_raw(d, "<tr><td>");
    server_link(d, s->name, s->host, s->http_port);
    if (s->stopping)
        html_raw(d, " <span class=\"muted\">(stopping)</span>");
    html_rawf(d, "</td><td class=\"n\">%zu</td><td class=\"n\">%.1f</td><td class=\"n\">%" PRIu64
              "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">", s->regions, s->rps, s->read,
              s->write);
    html_bytes(d, s->memstore);
    html_rawf(d, "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">", s->store_files);
    html_bytes(d, s->store_file_size);
    if (s->has_report)
        html_rawf(d, "</td><td class=\"n\">%.1f s</td></tr>\n",
                  (double)(sn->now_ms - s->report_ms) / 1000.0);
    else
        html_raw(d, "</td><td class=\"muted\">none yet</td></tr>\n");
}

static void page_servers(const mh_snap *sn, html_doc *d)
{
    html_rawf(d, "<h2>Region servers (%zu live, %zu dead)</h2>\n", sn->nservers, sn->ndead);
    html_raw(d, "<table><tr><th>Server</th><th>Regions</th><th>Requests/s</th>"
                "<th>Read requests</th><th>Write requests</th><th>Memstore</th>"
                "<th>Store files</th><th>Store file size</th><th>Last report</th></tr>\n");
    for (size_t i = 0; i < sn->nservers; i++)
        page_server_row(sn, &sn->servers[i], d);
    html_raw(d, "</table>\n");
    if (!sn->ndead)
        return;
    html_raw(d, "<h3>Dead region servers</h3><ul>\n");
    for (size_t i = 0; i < sn->ndead; i++) {
        html_raw(d, "<li>");
        html_text(d, sn->dead[i]);
        html_raw(d, "</li>\n");
    }
    html_raw(d, "</ul>\n");
}

static void page_tables(const mh_snap *sn, html_doc *d)
{
    html_rawf(d, "<h2>Tables (%zu)</h2>\n", sn->ntables);
    html_raw(d, "<table><tr><th>Table</th><th>State</th><th>Regions</th><th>Open</th></tr>\n");
    for (size_t i = 0; i < sn->ntables; i++) {
        const mh_table *t = &sn->tables[i];
        html_raw(d, "<tr><td>");
        html_text(d, t->name);
        html_raw(d, "</td><td>");
        html_text(d, meta_table_state_name(t->state));
        html_rawf(d, "</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td></tr>\n", t->regions,
                  t->open);
    }
    html_raw(d, "</table>\n");
}

static void page_rits(const mh_snap *sn, html_doc *d)
{
    html_rawf(d, "<h2>Regions in transition (%zu)</h2>\n", sn->nrits);
    if (!sn->nrits) {
        html_raw(d, "<p class=\"muted\">None.</p>\n");
        return;
    }
    html_raw(d, "<table><tr><th>Region</th><th>Table</th><th>State</th><th>Server</th>"
                "<th>For</th></tr>\n");
    for (size_t i = 0; i < sn->nrits; i++) {
        const mh_rit *r = &sn->rits[i];
        html_raw(d, "<tr><td class=\"key\">");
        html_text(d, r->encoded);
        html_raw(d, "</td><td>");
        html_text(d, r->table);
        html_raw(d, "</td><td>");
        html_text(d, meta_region_state_name(r->state));
        html_raw(d, "</td><td>");
        html_text(d, r->server[0] ? r->server : "-");
        html_rawf(d, "</td><td class=\"n\">%.1f s</td></tr>\n",
                  (double)(sn->now_ms - r->since_ms) / 1000.0);
    }
    html_raw(d, "</table>\n");
}

static void spread_bar(const mh_snap *sn, size_t si, double px, html_doc *d)
{
    html_raw(d, "<div class=\"bar\">");
    for (size_t t = 0; t < sn->ntables; t++) {
        size_t n = sn->spread[si * sn->ntables + t];
        if (!n)
            continue;
        html_rawf(d, "<span style=\"width:%.0fpx;background:%s\" title=\"", px * (double)n,
                  palette[t % PALETTE_N]);
        html_textf(d, "%s: %zu regions", sn->tables[t].name, n);
        html_raw(d, "\"></span>");
    }
    html_raw(d, "</div>");
}

static void page_spread(const mh_snap *sn, html_doc *d)
{
    html_raw(d, "<h2>Region distribution</h2>\n");
    size_t most = 0;
    for (size_t i = 0; i < sn->nservers; i++)
        most = sn->servers[i].regions > most ? sn->servers[i].regions : most;
    if (!sn->nservers || !most) {
        html_raw(d, "<p class=\"muted\">No region is placed on a live server.</p>\n");
        return;
    }
    double px = 480.0 / (double)most;
    html_raw(d, "<p class=\"legend\">");
    for (size_t t = 0; t < sn->ntables; t++) {
        html_rawf(d, "<span style=\"background:%s\"></span>", palette[t % PALETTE_N]);
        html_text(d, sn->tables[t].name);
    }
    html_raw(d, "</p>\n<table><tr><th>Server</th><th>Regions by table</th><th>Regions</th></tr>\n");
    for (size_t i = 0; i < sn->nservers; i++) {
        html_raw(d, "<tr><td>");
        html_text(d, sn->servers[i].name);
        html_raw(d, "</td><td style=\"width:500px\">");
        spread_bar(sn, i, px, d);
        html_rawf(d, "</td><td class=\"n\">%zu</td></tr>\n", sn->servers[i].regions);
    }
    html_raw(d, "</table>\n");
}

static void page_summary(master *m, const mh_snap *sn, html_doc *d)
{
    html_rawf(d, "<p class=\"%s\">", sn->ready ? "ok" : "bad");
    html_text(d, sn->why);
    html_raw(d, "</p>\n<p>");
    if (sn->active) {
        html_textf(d, "Cluster %s, version %s, active for %" PRId64 " s. %zu tables, %zu regions, "
                      "%zu live region servers, average load %.2f.",
                   sn->cluster_id, MASTER_VERSION, (sn->now_ms - sn->active_since_ms) / 1000,
                   sn->ntables, sn->nregions, sn->nservers,
                   sn->nservers ? (double)sn->nregions / (double)sn->nservers : 0.0);
    } else {
        html_textf(d, "Version %s. This master is not active: the cluster's state is on the "
                      "active master's page.", MASTER_VERSION);
    }
    html_raw(d, "</p>\n<p><a href=\"/status.json\">status.json</a> &middot; <a href=\"/metrics\">"
                "metrics</a> &middot; <a href=\"/readyz\">readyz</a></p>\n");
}

static int render_page(master *m, const mh_snap *sn, buf_t *b)
{
    char title[SERVER_NAME_MAX + 64];
    snprintf(title, sizeof(title), "Strata %s master %s", sn->active ? "active" : "backup",
             m->name);
    html_doc d;
    html_init(&d, b);
    html_page_begin(&d, title);
    html_raw(&d, "<h1>");
    html_text(&d, title);
    html_raw(&d, "</h1>\n");
    page_summary(m, sn, &d);
    page_masters(m, sn, &d);
    if (sn->active) {
        page_servers(sn, &d);
        page_tables(sn, &d);
        page_rits(sn, &d);
        page_spread(sn, &d);
    }
    return html_page_end(&d);
}

static void h_page(void *arg, const http_request *req, http_response *resp)
{
    master *m = arg;
    mh_snap sn;
    int rc = snap_take(m, &sn);
    http_response_set(resp, 200, "text/html; charset=utf-8");
    if (rc == ST_OK)
        rc = render_page(m, &sn, &resp->body);
    if (rc != ST_OK)
        fail_page(resp);
    snap_free(&sn);
}

/* ---- lifecycle ---- */

int master_http_start(master *m)
{
    static const struct {
        const char *path;
        http_handler_fn fn;
    } routes[] = {
        {"/healthz", h_healthz}, {"/readyz", h_readyz},        {"/metrics", h_metrics},
        {"/", h_page},           {"/status", h_page},          {"/status.json", h_status_json},
    };
    int port = m->http_port;
    m->http_port = 0;
    if (port < 0 || m->http)
        return ST_OK;
    int rc = http_server_new(NULL, &m->http);
    for (size_t i = 0; rc == ST_OK && i < sizeof(routes) / sizeof(routes[0]); i++)
        rc = http_server_handle(m->http, routes[i].path, routes[i].fn, m);
    if (rc == ST_OK)
        rc = http_server_start(m->http, m->host, port);
    if (rc == ST_OK) {
        m->http_port = http_server_port(m->http);
        LOG_INFO("master %s: status pages and metrics on http://%s:%d/", m->name,
                 m->advertised_host, m->http_port);
        return ST_OK;
    }
    if (rc != ST_NOMEM)
        LOG_ERROR("master %s: no HTTP status pages or metrics: %s", m->name, st_errmsg());
    master_http_stop(m);
    return rc == ST_NOMEM ? rc : ST_OK;
}

void master_http_stop(master *m)
{
    http_server_free(m->http);
    m->http = NULL;
}
