/*
 * master_balancer.c - the load balancer in the master (docs/balancer.md): region loads
 * from heartbeats as rates over a sliding window, runs on the chore's period and on
 * demand, each planned by master/balancer.h over a copy of the cluster and carried out as
 * throttled moves, each one a move procedure (master_move_region).
 *
 * A run is skipped while the balancer switch is off (a dry run still plans), while regions
 * are in transition or a dead server's recovery is queued (unless forced). Only servers
 * that have sent a heartbeat and are not stopping take part; regions in the system
 * namespace ("strata:") and regions another operation has are left where they are.
 * Thread-safety: one run at a time per master (balancer_mu); the cluster is copied under mu.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/status.h"
#include "master/master_internal.h"

/* ---- settings ---- */

static const config_key balancer_keys[] = {
    {"master.balancer.class", CONFIG_STRING, "StochasticLoadBalancer",
     "StochasticLoadBalancer or SimpleLoadBalancer"},
    {"master.balancer.period.ms", CONFIG_INT, "300000", "how often the balancer runs"},
    {"master.balancer.max.run.ms", CONFIG_INT, "300000",
     "no move of a run starts later than this after the run began (the rest waits for the "
     "next run)"},
    {"master.balancer.moves.per.server", CONFIG_INT, "1",
     "moves one region server takes part in at once (as source or destination)"},
    {"master.balancer.load.window.ms", CONFIG_INT, "60000",
     "request rates are over this much of the heartbeats"},
    {"master.balancer.slop", CONFIG_DOUBLE, "0.2",
     "SimpleLoadBalancer: every server within [floor(avg*(1-slop)), ceil(avg*(1+slop))]"},
    {"master.balancer.bytable", CONFIG_BOOL, "false", "balance each table on its own"},
    {"master.balancer.seed", CONFIG_INT, "0",
     "seed of the stochastic search (0: a new one each run)"},
    {"master.balancer.stochastic.max.steps", CONFIG_INT, "1000000", "search steps at most"},
    {"master.balancer.stochastic.steps.per.region", CONFIG_INT, "800",
     "search steps per region and server (at most max.steps)"},
    {"master.balancer.stochastic.max.running.time.ms", CONFIG_INT, "30000",
     "the search stops after this"},
    {"master.balancer.stochastic.min.cost.need", CONFIG_DOUBLE, "0.025",
     "a cluster whose cost is below this is left alone"},
    {"master.balancer.stochastic.min.improvement", CONFIG_DOUBLE, "0",
     "a plan is carried out only if it lowers the cost by more than this"},
    {"master.balancer.stochastic.max.move.fraction", CONFIG_DOUBLE, "0.25",
     "moves beyond max(this x regions, 600) are never planned"},
    {"master.balancer.cost.region_count", CONFIG_DOUBLE, "500", "weight of region count skew"},
    {"master.balancer.cost.table_skew", CONFIG_DOUBLE, "35", "weight of per-table skew"},
    {"master.balancer.cost.move", CONFIG_DOUBLE, "7", "weight of the moves made"},
    {"master.balancer.cost.read_request", CONFIG_DOUBLE, "5", "weight of read request rate skew"},
    {"master.balancer.cost.write_request", CONFIG_DOUBLE, "5", "weight of write request rate skew"},
    {"master.balancer.cost.memstore_size", CONFIG_DOUBLE, "5", "weight of memstore size skew"},
    {"master.balancer.cost.storefile_size", CONFIG_DOUBLE, "5", "weight of store file size skew"},
};

int master_balancer_define(config *c)
{
    return config_define_all(c, balancer_keys, sizeof(balancer_keys) / sizeof(balancer_keys[0]));
}

int master_balancer_settings(master *m, const config *c)
{
    bal_config *b = &m->bal_cfg;
    bal_config_default(b);
    int rc = bal_policy_parse(config_get_string(c, "master.balancer.class"), &b->policy);
    if (rc != ST_OK)
        return st_error(rc, "master.balancer.class: %s", st_errmsg());
    b->slop = config_get_double(c, "master.balancer.slop");
    b->per_table = config_get_bool(c, "master.balancer.bytable");
    b->seed = (uint64_t)config_get_int64(c, "master.balancer.seed");
    b->max_steps = (long)config_get_int64(c, "master.balancer.stochastic.max.steps");
    b->steps_per_region = (long)config_get_int64(c, "master.balancer.stochastic.steps.per.region");
    b->max_ms = config_get_int64(c, "master.balancer.stochastic.max.running.time.ms");
    b->min_cost_need = config_get_double(c, "master.balancer.stochastic.min.cost.need");
    b->min_improvement = config_get_double(c, "master.balancer.stochastic.min.improvement");
    b->max_move_fraction = config_get_double(c, "master.balancer.stochastic.max.move.fraction");
    for (int k = 0; k < BAL_COSTS && rc == ST_OK; k++) {
        char key[96];
        snprintf(key, sizeof(key), "master.balancer.cost.%s", bal_cost_name((bal_cost_kind)k));
        rc = bal_config_set_weight(b, bal_cost_name((bal_cost_kind)k), config_get_double(c, key));
        if (rc != ST_OK)
            return st_error(rc, "%s: %s", key, st_errmsg());
    }
    rc = bal_config_check(b);
    if (rc != ST_OK)
        return rc;
    m->balancer_period_ms = config_get_int64(c, "master.balancer.period.ms");
    m->balancer_max_run_ms = config_get_int64(c, "master.balancer.max.run.ms");
    m->balancer_moves_per_server = (int)config_get_int64(c, "master.balancer.moves.per.server");
    m->load_window_ms = config_get_int64(c, "master.balancer.load.window.ms");
    if (m->balancer_period_ms < 100 || m->balancer_max_run_ms < 0 ||
        m->balancer_moves_per_server < 1 || m->balancer_moves_per_server > 64 ||
        m->load_window_ms < 100)
        return st_error(ST_INVALID_ARGUMENT,
                        "balancer settings out of range (period >= 100 ms, max run >= 0 ms, "
                        "1..64 moves per server, load window >= 100 ms)");
    m->balancer_last_ms = clock_now_ms();
    return ST_OK;
}

/* ---- the load window ---- */

static uint64_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h;
}

static const m_load_sample *sample_at(const m_region *r, unsigned i)
{
    return &r->load[(r->load_head + i) % M_LOAD_SAMPLES];
}

/* A report's region loads by encoded name (qsort / bsearch). */
static int load_cmp(const void *a, const void *b)
{
    const Strata__Admin__RegionLoad *x = *(const Strata__Admin__RegionLoad *const *)a;
    const Strata__Admin__RegionLoad *y = *(const Strata__Admin__RegionLoad *const *)b;
    return strcmp(x->encoded_name, y->encoded_name);
}

static void record_one(m_region *r, const Strata__Admin__RegionLoad *l, uint64_t who,
                       int64_t now_ms)
{
    /* Counters start again where a region opens: a new server, or counters that went back,
     * start a new window. */
    bool restart = r->load_server != who;
    if (!restart && r->nload > 0) {
        const m_load_sample *last = sample_at(r, r->nload - 1);
        restart = l->read_requests < last->reads || l->write_requests < last->writes;
    }
    if (restart) {
        r->nload = 0;
        r->load_head = 0;
        r->load_server = who;
    }
    if (r->nload == M_LOAD_SAMPLES) {
        r->load_head = (r->load_head + 1) % M_LOAD_SAMPLES;
        r->nload--;
    }
    m_load_sample *x = &r->load[(r->load_head + r->nload) % M_LOAD_SAMPLES];
    x->ms = now_ms;
    x->reads = l->read_requests;
    x->writes = l->write_requests;
    r->nload++;
}

void master_load_record(master *m, const m_server *s,
                        const Strata__Master__RegionServerReportRequest *rep, int64_t now_ms)
{
    if (rep->n_region == 0)
        return;
    uint64_t who = name_hash(s->name);
    /* The report sorted by name, then every region looked up in it: n log n, not one
     * scan of every region per reported region (mu is held). */
    const Strata__Admin__RegionLoad **v = malloc(rep->n_region * sizeof(*v));
    if (!v)
        return; /* out of memory: this heartbeat's sample is skipped */
    size_t n = 0;
    for (size_t i = 0; i < rep->n_region; i++)
        if (rep->region[i]->encoded_name)
            v[n++] = rep->region[i];
    qsort(v, n, sizeof(*v), load_cmp);
    for (size_t t = 0; t < m->ntables; t++) {
        m_table *tab = m->tables[t];
        for (size_t j = 0; j < tab->n; j++) {
            m_region *r = tab->regions[j];
            Strata__Admin__RegionLoad key = STRATA__ADMIN__REGION_LOAD__INIT;
            key.encoded_name = r->mr.encoded_name;
            const Strata__Admin__RegionLoad *kp = &key;
            const Strata__Admin__RegionLoad **hit = bsearch(&kp, v, n, sizeof(*v), load_cmp);
            if (hit)
                record_one(r, *hit, who, now_ms);
        }
    }
    free(v);
}

void master_load_rates(const master *m, const m_region *r, int64_t now_ms, double *reads,
                       double *writes)
{
    *reads = *writes = 0;
    if (r->nload < 2)
        return;
    const m_load_sample *last = sample_at(r, r->nload - 1);
    if (last->ms < now_ms - m->load_window_ms)
        return; /* nothing heard within the window */
    /* The oldest sample still inside the window; fewer than two in it: no rate. */
    unsigned first = r->nload - 1;
    while (first > 0 && sample_at(r, first - 1)->ms >= now_ms - m->load_window_ms)
        first--;
    if (first == r->nload - 1)
        return;
    const m_load_sample *a = sample_at(r, first);
    double dt = (double)(last->ms - a->ms) / 1000.0;
    if (dt <= 0)
        return;
    *reads = (double)(last->reads - a->reads) / dt;
    *writes = (double)(last->writes - a->writes) / dt;
}

/* ---- a run ---- */

/* The cluster as the planner sees it (mu held). names: the regions' encoded names and
 * servers: the servers' names, both indexed as in c. */
typedef struct bal_copy {
    bal_cluster c;
    char (*servers)[SERVER_NAME_MAX];
} bal_copy;

static void copy_free(bal_copy *x)
{
    free(x->c.regions);
    free(x->servers);
    memset(x, 0, sizeof(*x));
}

static uint64_t region_size(const master *m, const m_server *s, const char *encoded,
                            uint64_t *memstore)
{
    *memstore = 0;
    (void)m;
    const Strata__Master__RegionServerReportRequest *r = s->report;
    for (size_t j = 0; r && j < r->n_region; j++)
        if (strcmp(r->region[j]->encoded_name, encoded) == 0) {
            *memstore = r->region[j]->memstore_size;
            return r->region[j]->store_file_size;
        }
    return 0;
}

static int copy_cluster(master *m, bal_copy *x, int64_t now)
{
    memset(x, 0, sizeof(*x));
    size_t total = 0;
    for (size_t i = 0; i < m->ntables; i++)
        total += m->tables[i]->n;
    x->servers = calloc(m->nservers ? m->nservers : 1, sizeof(*x->servers));
    x->c.regions = calloc(total ? total : 1, sizeof(*x->c.regions));
    if (!x->servers || !x->c.regions) {
        copy_free(x);
        return st_error(ST_NOMEM, "out of memory");
    }
    int *index = calloc(m->nservers ? m->nservers : 1, sizeof(int)); /* m->servers -> c */
    if (!index) {
        copy_free(x);
        return st_error(ST_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < m->nservers; i++) {
        const m_server *s = m->servers[i];
        index[i] = -1;
        if (!s->reported || s->stopping)
            continue;
        index[i] = (int)x->c.nservers;
        snprintf(x->servers[x->c.nservers++], SERVER_NAME_MAX, "%s", s->name);
    }
    for (size_t ti = 0; ti < m->ntables; ti++) {
        const m_table *t = m->tables[ti];
        if (t->state != META_TABLE_ENABLED || t->busy || t->procs > 0 ||
            strncmp(t->name, "strata:", 7) == 0)
            continue;
        int table = (int)x->c.ntables++;
        for (size_t j = 0; j < t->n; j++) {
            const m_region *r = t->regions[j];
            if (r->busy || r->retired || r->mr.state != META_OPEN)
                continue;
            int sv = -1;
            const m_server *s = NULL;
            for (size_t k = 0; k < m->nservers && sv < 0; k++)
                if (index[k] >= 0 && strcmp(m->servers[k]->name, r->mr.server) == 0) {
                    sv = index[k];
                    s = m->servers[k];
                }
            if (sv < 0)
                continue;
            bal_region *b = &x->c.regions[x->c.nregions++];
            snprintf(b->name, sizeof(b->name), "%s", r->mr.encoded_name);
            b->table = table;
            b->server = sv;
            master_load_rates(m, r, now, &b->read_rate, &b->write_rate);
            uint64_t mem = 0, sf = region_size(m, s, r->mr.encoded_name, &mem);
            b->memstore_mb = (double)mem / 1048576.0;
            b->storefile_mb = (double)sf / 1048576.0;
        }
    }
    free(index);
    return ST_OK;
}

/* Why a run may not go ahead now (mu held): "" if it may. */
static void blocked_why(master *m, bool force, char *why, size_t cap)
{
    why[0] = 0;
    if (force)
        return;
    if (m->ncrash > 0) {
        snprintf(why, cap, "a dead server's recovery is pending (%.200s)", m->crash[0]);
        return;
    }
    for (size_t i = 0; i < m->ntables; i++) {
        const m_table *t = m->tables[i];
        for (size_t j = 0; j < t->n; j++)
            if (!master_region_settled(m, t, t->regions[j]) || t->regions[j]->busy) {
                snprintf(why, cap, "regions in transition (%.64s of table %.120s)",
                         t->regions[j]->mr.encoded_name, t->name);
                return;
            }
    }
}

static double max_mean(const bal_cluster *c, const int *assign)
{
    if (c->nservers == 0)
        return 0;
    double *load = calloc(c->nservers, sizeof(double));
    if (!load)
        return 0;
    double total = 0, max = 0;
    for (size_t i = 0; i < c->nregions; i++) {
        double x = c->regions[i].read_rate + c->regions[i].write_rate;
        load[assign ? assign[i] : c->regions[i].server] += x;
        total += x;
    }
    for (size_t s = 0; s < c->nservers; s++)
        max = load[s] > max ? load[s] : max;
    free(load);
    return total > 0 ? max / (total / (double)c->nservers) : 0;
}

static void plan_line(master_balance_run *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void plan_line(master_balance_run *out, const char *fmt, ...)
{
    size_t len = strlen(out->plan);
    if (len + 1 >= sizeof(out->plan))
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->plan + len, sizeof(out->plan) - len, fmt, ap);
    va_end(ap);
}

typedef struct move_job {
    master *m;
    char region[64], from[SERVER_NAME_MAX], to[SERVER_NAME_MAX];
    int rc;
    char err[200];
    int64_t ms;
    pthread_t th;
    bool started;
} move_job;

static void *move_main(void *arg)
{
    move_job *j = arg;
    int64_t t0 = clock_now_ms();
    j->rc = master_move_region(j->m, j->region, j->to, j->from, NULL, 0);
    if (j->rc != ST_OK)
        snprintf(j->err, sizeof(j->err), "%s", st_errmsg());
    j->ms = clock_now_ms() - t0;
    return NULL;
}

/* Carries the plan out, wave by wave (bal_schedule); no wave starts after the time budget. */
static void execute(master *m, const bal_copy *x, const bal_plan *p, master_balance_run *out)
{
    size_t *wave = calloc(p->nmoves, sizeof(size_t));
    move_job *jobs = calloc(p->nmoves, sizeof(*jobs));
    if (!wave || !jobs) {
        free(wave);
        free(jobs);
        snprintf(out->why, sizeof(out->why), "out of memory");
        return;
    }
    size_t nwaves = bal_schedule(p, x->c.nservers, m->balancer_moves_per_server, wave);
    for (size_t i = 0; i < p->nmoves; i++) {
        move_job *j = &jobs[i];
        j->m = m;
        snprintf(j->region, sizeof(j->region), "%s", x->c.regions[p->moves[i].region].name);
        snprintf(j->from, sizeof(j->from), "%s", x->servers[p->moves[i].from]);
        snprintf(j->to, sizeof(j->to), "%s", x->servers[p->moves[i].to]);
    }
    int64_t start = clock_now_ms();
    size_t left = 0;
    for (size_t w = 0; w < nwaves; w++) {
        if (atomic_load(&m->stopping) || !atomic_load(&m->active) ||
            (m->balancer_max_run_ms > 0 && clock_now_ms() - start > m->balancer_max_run_ms)) {
            for (size_t i = 0; i < p->nmoves; i++)
                left += wave[i] >= w;
            break;
        }
        for (size_t i = 0; i < p->nmoves; i++)
            if (wave[i] == w)
                jobs[i].started = pthread_create(&jobs[i].th, NULL, move_main, &jobs[i]) == 0;
        for (size_t i = 0; i < p->nmoves; i++) {
            if (wave[i] != w)
                continue;
            if (jobs[i].started) {
                pthread_join(jobs[i].th, NULL);
            } else {
                jobs[i].rc = ST_NOMEM;
                snprintf(jobs[i].err, sizeof(jobs[i].err), "no thread for the move");
            }
            move_job *j = &jobs[i];
            if (j->rc == ST_OK) {
                out->done++;
                atomic_fetch_add(&m->balancer_moves, 1);
                plan_line(out, "moved %s from %s to %s (%" PRId64 " ms)\n", j->region, j->from,
                          j->to, j->ms);
            } else {
                out->failed++;
                plan_line(out, "not moved %s from %s to %s: %s\n", j->region, j->from, j->to,
                          j->err);
            }
        }
    }
    if (left)
        plan_line(out, "%zu moves left for the next run (the run's %" PRId64 " ms are up)\n", left,
                  m->balancer_max_run_ms);
    free(wave);
    free(jobs);
}

static void record(master *m, const master_balance_run *out)
{
    pthread_mutex_lock(&m->mu);
    if (!m->bal_last)
        m->bal_last = malloc(sizeof(*m->bal_last));
    if (m->bal_last)
        *m->bal_last = *out;
    pthread_mutex_unlock(&m->mu);
}

int master_balance(master *m, bool force, bool dry_run, master_balance_run *out)
{
    memset(out, 0, sizeof(*out));
    out->started_ms = clock_now_ms();
    out->forced = force;
    out->dry_run = dry_run;
    out->policy = m->bal_cfg.policy;
    int rc = master_check_active(m);
    if (rc != ST_OK)
        return rc;
    if (!dry_run && !master_switch_get(m, MASTER_SWITCH_BALANCER)) {
        snprintf(out->why, sizeof(out->why), "the balancer switch is off");
        return ST_OK;
    }
    if (pthread_mutex_trylock(&m->balancer_mu) != 0) {
        snprintf(out->why, sizeof(out->why), "another balancer run is under way");
        return ST_OK;
    }
    bal_copy x;
    pthread_mutex_lock(&m->mu);
    blocked_why(m, force, out->why, sizeof(out->why));
    rc = out->why[0] ? ST_OK : copy_cluster(m, &x, out->started_ms);
    pthread_mutex_unlock(&m->mu);
    if (rc != ST_OK || out->why[0]) {
        pthread_mutex_unlock(&m->balancer_mu);
        if (out->why[0])
            LOG_INFO("master %s: balancer: not run: %s", m->name, out->why);
        return rc;
    }
    out->ran = true;
    out->servers = x.c.nservers;
    out->regions = x.c.nregions;
    bal_config cfg = m->bal_cfg;
    cfg.cancel = &m->stopping;
    if (cfg.seed == 0)
        cfg.seed = (uint64_t)clock_mono_ns() | 1;
    bal_plan p;
    rc = bal_plan_compute(&x.c, &cfg, &p);
    if (rc == ST_OK) {
        out->cost_before = p.cost_before;
        out->cost_after = p.cost_after;
        memcpy(out->part_before, p.part_before, sizeof(out->part_before));
        memcpy(out->part_after, p.part_after, sizeof(out->part_after));
        out->steps = p.steps;
        out->planned = p.nmoves;
        out->max_mean_before = max_mean(&x.c, NULL);
        int *assign = calloc(x.c.nregions ? x.c.nregions : 1, sizeof(int));
        if (assign) {
            for (size_t i = 0; i < x.c.nregions; i++)
                assign[i] = x.c.regions[i].server;
            for (size_t i = 0; i < p.nmoves; i++)
                assign[p.moves[i].region] = p.moves[i].to;
            out->max_mean_after = max_mean(&x.c, assign);
            free(assign);
        }
        snprintf(out->why, sizeof(out->why), "%s", p.why);
        for (size_t i = 0; i < p.nmoves; i++) {
            const bal_region *r = &x.c.regions[p.moves[i].region];
            plan_line(out, "plan: move %s from %s to %s (%.1f reads/s, %.1f writes/s)\n", r->name,
                      x.servers[p.moves[i].from], x.servers[p.moves[i].to], r->read_rate,
                      r->write_rate);
        }
        LOG_INFO("master %s: balancer (%s%s%s): %zu servers, %zu regions, cost %.4f -> %.4f, "
                 "%zu moves planned%s%s",
                 m->name, bal_policy_name(cfg.policy), force ? ", forced" : "",
                 dry_run ? ", dry run" : "", x.c.nservers, x.c.nregions, p.cost_before,
                 p.cost_after, p.nmoves, p.nmoves ? "" : ": ", p.nmoves ? "" : p.why);
        if (p.nmoves)
            LOG_INFO("master %s: balancer plan:\n%s", m->name, out->plan);
        if (!dry_run && p.nmoves)
            execute(m, &x, &p, out);
        bal_plan_free(&p);
    }
    copy_free(&x);
    out->duration_ms = clock_now_ms() - out->started_ms;
    if (rc == ST_OK && !dry_run) {
        atomic_fetch_add(&m->balancer_runs, 1);
        if (out->planned)
            LOG_INFO("master %s: balancer: %zu of %zu moves done, %zu failed, in %" PRId64 " ms",
                     m->name, out->done, out->planned, out->failed, out->duration_ms);
    }
    if (rc == ST_OK)
        record(m, out);
    pthread_mutex_unlock(&m->balancer_mu);
    return rc;
}

static void balance_main(master *m)
{
    master_balance_run *run = malloc(sizeof(*run));
    if (run) {
        master_balance(m, false, false, run);
        free(run);
    }
}

void master_balance_async(master *m)
{
    if (master_switch_get(m, MASTER_SWITCH_BALANCER))
        master_run_detached(m, balance_main);
}
