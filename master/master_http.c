/*
 * master_http.c - what the master's status pages show (docs/http.md), rendered from one
 * cluster snapshot (master_snapshot.c) inside the endpoints every server shares
 * (common/http/status_pages.h):
 *
 *   /readyz       200 only on the active master once meta is loaded; else 503 with the
 *                 reason ("backup master; active is host,port,startcode")
 *   /metrics      Prometheus text: cluster figures, and per-server series labelled
 *                 {server} (from the heartbeats), per-table region counts {table}
 *   / and /status an HTML page: masters, region servers (requests per second, regions,
 *                 memstore, store files), dead servers, tables, regions in transition,
 *                 and a bar chart of how regions spread over servers by table
 *   /status.json  the same data as JSON
 *
 * Thread-safety: the callbacks run on the HTTP thread; they read m's atomics, its settings
 * (fixed before HTTP starts), m->z (open from before HTTP starts until after it stops) and,
 * through master_snapshot_take, the in-memory state under mu.
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
#include "common/http/status_pages.h"
#include "common/status.h"
#include "common/zk/znodes.h"
#include "master/master_internal.h"

#define MH_RIT_THRESHOLD_MS 60000 /* rit_count_over_threshold, as HBase's default */

static bool ready_check(void *ctx, char *why, size_t cap)
{
    master *m = ctx;
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
    if (master_active_master(m, &act, NULL) == ST_OK)
        server_name_format(&act, who, sizeof(who));
    if (!who[0])
        snprintf(why, cap, "backup master %s; no master is active", m->name);
    else if (strcmp(who, m->name) == 0)
        snprintf(why, cap, "master %s is becoming active (loading meta)", m->name);
    else
        snprintf(why, cap, "backup master %s; active is %s", m->name, who);
    return false;
}

static int snap_fill(void *ctx, void *snap)
{
    return master_snapshot_take(ctx, snap);
}

static void snap_clear(void *ctx, void *snap)
{
    master_snapshot_free(snap);
}

static const char *self_name(void *ctx)
{
    return ((master *)ctx)->name;
}

static void page_title(void *ctx, const status_pages_view *v, char *out, size_t cap)
{
    const master_snap *sn = v->snap;
    snprintf(out, cap, "Strata %s master %s", sn->active ? "active" : "backup",
             ((master *)ctx)->name);
}

/* The figures of a server's last heartbeat (zero without one). */
static uint64_t report_u64(const master_snap_server *s, size_t which)
{
    const Strata__Master__RegionServerReportRequest *r = s->report;
    if (!r)
        return 0;
    switch (which) {
    case 0: return r->read_requests;
    case 1: return r->write_requests;
    case 2: return r->memstore_size;
    case 3: return r->store_files;
    default: return r->store_file_size;
    }
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

static double server_value(const master_snap *sn, const master_snap_server *s, mh_field f)
{
    switch (f) {
    case MH_REGIONS: return (double)s->regions;
    case MH_READ: return (double)report_u64(s, 0);
    case MH_WRITE: return (double)report_u64(s, 1);
    case MH_MEMSTORE: return (double)report_u64(s, 2);
    case MH_STORE_FILES: return (double)report_u64(s, 3);
    case MH_STORE_FILE_SIZE: return (double)report_u64(s, 4);
    case MH_RPS: return s->rps;
    case MH_REPORT_AGE: return s->report ? (double)(sn->now_ms - s->report_ms) : -1;
    }
    return 0;
}

static int metric_servers(buf_t *b, const master_snap *sn, const mh_metric *mt)
{
    double total = 0;
    for (size_t i = 0; i < sn->nservers; i++)
        total += server_value(sn, &sn->servers[i], mt->field);
    if (mt->field == MH_REGIONS)
        total = (double)sn->nregions;
    int rc = family(b, mt->name, mt->type, mt->help, total, mt->total);
    for (size_t i = 0; rc == ST_OK && i < sn->nservers; i++) {
        if (mt->field == MH_REPORT_AGE && !sn->servers[i].report)
            continue;
        prom_label l = {"server", sn->servers[i].name};
        rc = prom_sample_double(b, mt->name, &l, 1, server_value(sn, &sn->servers[i], mt->field));
    }
    return rc;
}

static int metrics_cluster(buf_t *b, const master_snap *sn)
{
    int64_t oldest = 0;
    size_t over = 0;
    for (size_t i = 0; i < sn->nrits; i++) {
        int64_t age = sn->now_ms - sn->rits[i].since_ms;
        oldest = age > oldest ? age : oldest;
        over += age > MH_RIT_THRESHOLD_MS;
    }
    double avg = sn->nservers ? (double)sn->nregions / (double)sn->nservers : 0;
    int rc = family(b, "live_region_servers", "gauge", "Region servers registered that have answered this master",
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

static int metrics_tables(buf_t *b, const master_snap *sn)
{
    int rc = family(b, "table_region_count", "gauge", "Regions of each table (any state)", 0, false);
    for (size_t i = 0; rc == ST_OK && i < sn->ntables; i++) {
        prom_label l = {"table", sn->tables[i].name};
        rc = prom_sample_u64(b, "table_region_count", &l, 1, sn->tables[i].regions);
    }
    return rc;
}

static int metrics_balancer(buf_t *b, master *m)
{
    bool have = false;
    double cost = 0, part[BAL_COSTS] = {0};
    pthread_mutex_lock(&m->mu);
    if (m->bal_last && m->bal_last->ran) {
        have = true;
        cost = m->bal_last->cost_after;
        memcpy(part, m->bal_last->part_after, sizeof(part));
    }
    pthread_mutex_unlock(&m->mu);
    int rc = family(b, "balancer_enabled", "gauge", "1 while the balancer switch is on",
                    master_switch_get(m, MASTER_SWITCH_BALANCER) ? 1 : 0, true);
    if (rc == ST_OK)
        rc = family(b, "balancer_runs", "counter", "Balancer runs that planned (dry runs not counted)",
                    (double)atomic_load(&m->balancer_runs), true);
    if (rc == ST_OK)
        rc = family(b, "balancer_moves", "counter", "Region moves the balancer made",
                    (double)atomic_load(&m->balancer_moves), true);
    if (rc == ST_OK)
        rc = family(b, "balancer_cost", "gauge",
                    "The cluster's weighted balancer cost in [0, 1] after the last run's plan",
                    cost, true);
    if (rc == ST_OK)
        rc = family(b, "balancer_cost_part", "gauge",
                    "Each cost function's value in [0, 1] after the last run's plan", 0, false);
    for (int k = 0; rc == ST_OK && have && k < BAL_COSTS; k++) {
        prom_label l = {"cost", bal_cost_name((bal_cost_kind)k)};
        rc = prom_sample_double(b, "balancer_cost_part", &l, 1, part[k]);
    }
    return rc;
}

static int render_metrics(void *ctx, const status_pages_view *v, buf_t *b)
{
    master *m = ctx;
    const master_snap *sn = v->snap;
    int rc = family(b, "is_active_master", "gauge", "1 on the active master, 0 on a backup",
                    sn->active ? 1 : 0, true);
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
    if (rc == ST_OK)
        rc = metrics_balancer(b, m);
    return rc;
}

/* ---- /status.json ---- */

static void json_master(json_writer *w, const master_snap_master *x)
{
    json_object_begin(w);
    json_key(w, "name");
    json_string(w, x->name);
    json_key(w, "http_port");
    json_u64(w, x->http_port);
    json_object_end(w);
}

static void json_masters(json_writer *w, const master_snap *sn)
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

static void json_server(json_writer *w, const master_snap *sn, size_t i)
{
    const master_snap_server *s = &sn->servers[i];
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
    static const char *const keys[] = {"read_request_count", "write_request_count",
                                       "memstore_size", "store_file_count", "store_file_size"};
    for (size_t k = 0; k < 5; k++) {
        json_key(w, keys[k]);
        json_u64(w, report_u64(s, k));
    }
    json_key(w, "last_report_age_ms");
    if (s->report)
        json_i64(w, sn->now_ms - s->report_ms);
    else
        json_null(w);
    json_object_end(w);
}

static void json_tables(json_writer *w, const master_snap *sn)
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

static void json_rits(json_writer *w, const master_snap *sn)
{
    json_key(w, "regions_in_transition");
    json_array_begin(w);
    for (size_t i = 0; i < sn->nrits; i++) {
        const meta_region *r = &sn->rits[i].region;
        json_object_begin(w);
        json_key(w, "table");
        json_string(w, r->table);
        json_key(w, "encoded_name");
        json_string(w, r->encoded_name);
        json_key(w, "state");
        json_string(w, meta_region_state_name(r->state));
        json_key(w, "server");
        json_string(w, r->server);
        json_key(w, "age_ms");
        json_i64(w, sn->now_ms - sn->rits[i].since_ms);
        json_object_end(w);
    }
    json_array_end(w);
}

static void json_cluster(json_writer *w, const master_snap *sn)
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

/* Running procedures and the last ones that ended (docs/procedures.md). */
static void json_procs(json_writer *w, master *m, int64_t now_ms)
{
    m_proc *v = NULL;
    size_t n = 0;
    if (master_procs_list(m, &v, &n) != ST_OK)
        return;
    json_key(w, "procedures");
    json_array_begin(w);
    for (size_t i = 0; i < n; i++) {
        json_object_begin(w);
        json_key(w, "id");
        json_u64(w, v[i].id);
        json_key(w, "type");
        json_string(w, v[i].type);
        json_key(w, "state");
        json_string(w, master_proc_state_name(v[i].state));
        json_key(w, "step");
        json_string(w, v[i].step);
        json_key(w, "table");
        json_string(w, v[i].table);
        json_key(w, "regions");
        json_array_begin(w);
        for (size_t j = 0; j < v[i].nregions; j++)
            json_string(w, v[i].regions[j]);
        json_array_end(w);
        json_key(w, "age_ms");
        json_i64(w, now_ms - v[i].submitted_ms);
        json_key(w, "error");
        json_string(w, v[i].error);
        json_object_end(w);
    }
    json_array_end(w);
    free(v);
    json_key(w, "normalizer_plan");
    pthread_mutex_lock(&m->mu);
    json_string(w, m->normalizer_plan);
    pthread_mutex_unlock(&m->mu);
}

static void page_procs(master *m, const master_snap *sn, html_doc *d)
{
    m_proc *v = NULL;
    size_t n = 0;
    if (master_procs_list(m, &v, &n) != ST_OK)
        return;
    html_rawf(d, "<h2>Procedures (%zu)</h2>\n", n);
    if (n) {
        html_raw(d, "<table><tr><th>Id</th><th>Type</th><th>State</th><th>Step</th>"
                    "<th>Table</th><th>Regions</th><th>Age</th><th>Error</th></tr>\n");
        for (size_t i = n; i-- > 0;) {
            html_rawf(d, "<tr><td class=\"n\">%llu</td><td>", (unsigned long long)v[i].id);
            html_text(d, v[i].type);
            html_raw(d, "</td><td>");
            html_text(d, master_proc_state_name(v[i].state));
            html_raw(d, "</td><td>");
            html_text(d, v[i].step);
            html_raw(d, "</td><td>");
            html_text(d, v[i].table);
            html_raw(d, "</td><td>");
            for (size_t j = 0; j < v[i].nregions; j++) {
                html_text(d, v[i].regions[j]);
                html_raw(d, j + 1 < v[i].nregions ? ", " : "");
            }
            html_rawf(d, "</td><td class=\"n\">%.1f s</td><td>",
                      (double)(sn->now_ms - v[i].submitted_ms) / 1000.0);
            html_text(d, v[i].error);
            html_raw(d, "</td></tr>\n");
        }
        html_raw(d, "</table>\n");
    }
    free(v);
    pthread_mutex_lock(&m->mu);
    if (m->normalizer_plan[0]) {
        html_raw(d, "<h3>Last normalizer plan</h3><pre>");
        html_text(d, m->normalizer_plan);
        html_raw(d, "</pre>\n");
    }
    pthread_mutex_unlock(&m->mu);
}

/* The balancer: switch, policy, the last run with its cost breakdown and moves. */
static void page_balancer(master *m, const master_snap *sn, html_doc *d)
{
    master_balance_run *last = malloc(sizeof(*last));
    bool have = false;
    pthread_mutex_lock(&m->mu);
    if (last && m->bal_last) {
        *last = *m->bal_last;
        have = true;
    }
    pthread_mutex_unlock(&m->mu);
    html_raw(d, "<h2>Balancer</h2>\n<p>");
    html_textf(d, "%s, switch %s, every %.0f s; %llu runs, %llu moves.",
               bal_policy_name(m->bal_cfg.policy),
               master_switch_get(m, MASTER_SWITCH_BALANCER) ? "on" : "off",
               (double)m->balancer_period_ms / 1000.0,
               (unsigned long long)atomic_load(&m->balancer_runs),
               (unsigned long long)atomic_load(&m->balancer_moves));
    html_raw(d, "</p>\n");
    if (have) {
        html_raw(d, "<p>");
        html_textf(d, "Last run %.1f s ago%s%s, %.0f ms: ", (double)(sn->now_ms - last->started_ms) / 1000.0,
                   last->forced ? " (forced)" : "", last->dry_run ? " (dry run)" : "",
                   (double)last->duration_ms);
        if (last->ran)
            html_textf(d, "%zu servers, %zu regions, %zu moves planned, %zu done, %zu failed; "
                          "busiest server %.2f x the mean request rate before, %.2f after the plan.",
                       last->servers, last->regions, last->planned, last->done, last->failed,
                       last->max_mean_before, last->max_mean_after);
        if (last->why[0])
            html_textf(d, " %s", last->why);
        html_raw(d, "</p>\n");
        if (last->ran) {
            html_raw(d, "<table><tr><th>Cost</th><th>Weight</th><th>Before</th><th>After</th></tr>\n");
            for (int k = 0; k < BAL_COSTS; k++) {
                html_raw(d, "<tr><td>");
                html_text(d, bal_cost_name((bal_cost_kind)k));
                html_rawf(d, "</td><td class=\"n\">%g</td><td class=\"n\">%.4f</td><td class=\"n\">%.4f</td></tr>\n",
                          m->bal_cfg.weight[k], last->part_before[k], last->part_after[k]);
            }
            html_rawf(d, "<tr><th>total</th><td></td><td class=\"n\">%.4f</td><td class=\"n\">%.4f</td></tr>\n",
                      last->cost_before, last->cost_after);
            html_raw(d, "</table>\n");
        }
        if (last->plan[0]) {
            html_raw(d, "<h3>Last balancer plan and moves</h3><pre>");
            html_text(d, last->plan);
            html_raw(d, "</pre>\n");
        }
    }
    free(last);
}

/* Split parents and merged regions the janitor has not cleaned: their links (mu taken). */
static void page_lineage(master *m, html_doc *d)
{
    bool any = false;
    pthread_mutex_lock(&m->mu);
    for (size_t i = 0; i < m->ntables; i++) {
        const m_table *t = m->tables[i];
        for (size_t j = 0; j < t->nparents; j++) {
            if (!any)
                html_raw(d, "<h2>Split and merge parents not yet cleaned</h2><table><tr>"
                            "<th>Table</th><th>Region</th><th>Children / parents</th></tr>\n");
            any = true;
            html_raw(d, "<tr><td>");
            html_text(d, t->name);
            html_raw(d, "</td><td>");
            html_text(d, t->parents[j]->mr.encoded_name);
            html_raw(d, " (split)</td><td>daughters ");
            html_text(d, t->parents[j]->mr.split_a);
            html_raw(d, ", ");
            html_text(d, t->parents[j]->mr.split_b);
            html_raw(d, "</td></tr>\n");
        }
        for (size_t j = 0; j < t->n; j++) {
            const meta_region *r = &t->regions[j]->mr;
            if (!r->nmerged)
                continue;
            if (!any)
                html_raw(d, "<h2>Split and merge parents not yet cleaned</h2><table><tr>"
                            "<th>Table</th><th>Region</th><th>Children / parents</th></tr>\n");
            any = true;
            html_raw(d, "<tr><td>");
            html_text(d, t->name);
            html_raw(d, "</td><td>");
            html_text(d, r->encoded_name);
            html_raw(d, " (merged)</td><td>parents ");
            for (size_t k = 0; k < r->nmerged; k++) {
                html_text(d, r->merged[k]);
                html_raw(d, k + 1 < r->nmerged ? ", " : "");
            }
            html_raw(d, "</td></tr>\n");
        }
    }
    pthread_mutex_unlock(&m->mu);
    if (any)
        html_raw(d, "</table>\n");
}

/* "balancer": the switch, the policy, the counters and the last run. */
static void json_balancer(json_writer *w, master *m)
{
    master_balance_run *last = malloc(sizeof(*last));
    bool have = false;
    pthread_mutex_lock(&m->mu);
    if (last && m->bal_last) {
        *last = *m->bal_last;
        have = true;
    }
    pthread_mutex_unlock(&m->mu);
    json_key(w, "balancer");
    json_object_begin(w);
    json_key(w, "enabled");
    json_bool(w, master_switch_get(m, MASTER_SWITCH_BALANCER));
    json_key(w, "policy");
    json_string(w, bal_policy_name(m->bal_cfg.policy));
    json_key(w, "runs");
    json_u64(w, atomic_load(&m->balancer_runs));
    json_key(w, "moves");
    json_u64(w, atomic_load(&m->balancer_moves));
    json_key(w, "last_run");
    if (!have) {
        json_null(w);
    } else {
        json_object_begin(w);
        json_key(w, "started_ms");
        json_i64(w, last->started_ms);
        json_key(w, "ran");
        json_bool(w, last->ran);
        json_key(w, "dry_run");
        json_bool(w, last->dry_run);
        json_key(w, "cost_before");
        json_double(w, last->cost_before);
        json_key(w, "cost_after");
        json_double(w, last->cost_after);
        json_key(w, "cost_parts");
        json_object_begin(w);
        for (int k = 0; k < BAL_COSTS; k++) {
            json_key(w, bal_cost_name((bal_cost_kind)k));
            json_array_begin(w);
            json_double(w, last->part_before[k]);
            json_double(w, last->part_after[k]);
            json_array_end(w);
        }
        json_object_end(w);
        json_key(w, "planned");
        json_u64(w, last->planned);
        json_key(w, "done");
        json_u64(w, last->done);
        json_key(w, "failed");
        json_u64(w, last->failed);
        json_key(w, "why");
        json_string(w, last->why);
        json_key(w, "plan");
        json_string(w, last->plan);
        json_object_end(w);
    }
    json_object_end(w);
    free(last);
}

static void render_json(void *ctx, const status_pages_view *v, json_writer *w)
{
    master *m = ctx;
    const master_snap *sn = v->snap;
    json_key(w, "role");
    json_string(w, sn->active ? "active" : "backup");
    json_key(w, "version");
    json_string(w, MASTER_VERSION);
    json_key(w, "start_code");
    json_u64(w, m->start_code);
    json_masters(w, sn);
    if (sn->active) {
        json_cluster(w, sn);
        json_procs(w, m, sn->now_ms);
        json_balancer(w, m);
    }
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

static void page_masters(const master_snap *sn, html_doc *d)
{
    html_raw(d, "<h2>Masters</h2><table><tr><th>Role</th><th>Server</th></tr>\n");
    html_raw(d, "<tr><td>active</td><td>");
    if (sn->have_active)
        server_link(d, sn->active_master.name, sn->active_master.sn.host,
                    sn->active_master.http_port);
    else
        html_raw(d, "<span class=\"bad\">none</span>");
    html_raw(d, "</td></tr>\n");
    for (size_t i = 0; i < sn->nbackups; i++) {
        html_raw(d, "<tr><td>backup</td><td>");
        server_link(d, sn->backups[i].name, sn->backups[i].sn.host, sn->backups[i].http_port);
        html_raw(d, "</td></tr>\n");
    }
    html_raw(d, "</table>\n");
}

static void page_server_row(const master_snap *sn, const master_snap_server *s, html_doc *d)
{
    html_raw(d, "<tr><td>");
    server_link(d, s->name, s->sn.host, s->http_port);
    if (s->stopping)
        html_raw(d, " <span class=\"muted\">(stopping)</span>");
    html_rawf(d, "</td><td class=\"n\">%zu</td><td class=\"n\">%.1f</td><td class=\"n\">%" PRIu64
              "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">", s->regions, s->rps,
              report_u64(s, 0), report_u64(s, 1));
    html_bytes(d, report_u64(s, 2));
    html_rawf(d, "</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">", report_u64(s, 3));
    html_bytes(d, report_u64(s, 4));
    if (s->report)
        html_rawf(d, "</td><td class=\"n\">%.1f s</td></tr>\n",
                  (double)(sn->now_ms - s->report_ms) / 1000.0);
    else
        html_raw(d, "</td><td class=\"muted\">none yet</td></tr>\n");
}

static void page_servers(const master_snap *sn, html_doc *d)
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

static void page_tables(const master_snap *sn, html_doc *d)
{
    html_rawf(d, "<h2>Tables (%zu)</h2>\n", sn->ntables);
    html_raw(d, "<table><tr><th>Table</th><th>State</th><th>Regions</th><th>Open</th></tr>\n");
    for (size_t i = 0; i < sn->ntables; i++) {
        const master_snap_table *t = &sn->tables[i];
        html_raw(d, "<tr><td>");
        html_text(d, t->name);
        html_raw(d, "</td><td>");
        html_text(d, meta_table_state_name(t->state));
        html_rawf(d, "</td><td class=\"n\">%zu</td><td class=\"n\">%zu</td></tr>\n", t->regions,
                  t->open);
    }
    html_raw(d, "</table>\n");
}

static void page_rits(const master_snap *sn, html_doc *d)
{
    html_rawf(d, "<h2>Regions in transition (%zu)</h2>\n", sn->nrits);
    if (!sn->nrits) {
        html_raw(d, "<p class=\"muted\">None.</p>\n");
        return;
    }
    html_raw(d, "<table><tr><th>Region</th><th>Table</th><th>State</th><th>Server</th>"
                "<th>For</th></tr>\n");
    for (size_t i = 0; i < sn->nrits; i++) {
        const meta_region *r = &sn->rits[i].region;
        html_raw(d, "<tr><td class=\"key\">");
        html_text(d, r->encoded_name);
        html_raw(d, "</td><td>");
        html_text(d, r->table);
        html_raw(d, "</td><td>");
        html_text(d, meta_region_state_name(r->state));
        html_raw(d, "</td><td>");
        html_text(d, r->server[0] ? r->server : "-");
        html_rawf(d, "</td><td class=\"n\">%.1f s</td></tr>\n",
                  (double)(sn->now_ms - sn->rits[i].since_ms) / 1000.0);
    }
    html_raw(d, "</table>\n");
}

static void spread_bar(const master_snap *sn, size_t si, double px, html_doc *d)
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

static void page_spread(const master_snap *sn, html_doc *d)
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

static void page_summary(const master_snap *sn, html_doc *d)
{
    html_raw(d, "<p>");
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
    html_raw(d, "</p>\n");
}

static void render_page(void *ctx, const status_pages_view *v, html_doc *d)
{
    const master_snap *sn = v->snap;
    page_summary(sn, d);
    page_masters(sn, d);
    if (sn->active) {
        page_servers(sn, d);
        page_tables(sn, d);
        page_rits(sn, d);
        page_procs(ctx, sn, d);
        page_balancer(ctx, sn, d);
        page_lineage(ctx, d);
        page_spread(sn, d);
    }
}

/* ---- lifecycle ---- */

static const status_pages_ops master_pages = {
    .ready = ready_check,
    .snap_size = sizeof(master_snap),
    .snap_fill = snap_fill,
    .snap_clear = snap_clear,
    .name = self_name,
    .title = page_title,
    .metrics = render_metrics,
    .json = render_json,
    .page = render_page,
};

int master_http_start(master *m)
{
    int port = m->http_port;
    m->http_port = 0;
    if (port < 0 || m->http)
        return ST_OK;
    int rc = status_pages_serve(&m->pages, &master_pages, m, m->host, port, &m->http);
    if (rc == ST_OK) {
        m->http_port = http_server_port(m->http);
        LOG_INFO("master %s: status pages and metrics on http://%s:%d/", m->name,
                 m->advertised_host, m->http_port);
        return ST_OK;
    }
    if (rc != ST_NOMEM)
        LOG_ERROR("master %s: no HTTP status pages or metrics: %s", m->name, st_errmsg());
    return rc == ST_NOMEM ? rc : ST_OK;
}

void master_http_stop(master *m)
{
    http_server_free(m->http);
    m->http = NULL;
}
