/*
 * balancer_cost.c - the balancer's configuration and cost functions (docs/balancer.md
 * "Costs"): each cost is HBase's, normalised to [0, 1], and the total is their weighted
 * mean.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/status.h"
#include "master/balancer.h"

static const char *const cost_names[BAL_COSTS] = {
    "region_count",  "table_skew",    "move",           "read_request",
    "write_request", "memstore_size", "storefile_size",
};

const char *bal_cost_name(bal_cost_kind k)
{
    return k < BAL_COSTS ? cost_names[k] : "?";
}

void bal_config_default(bal_config *c)
{
    memset(c, 0, sizeof(*c));
    c->policy = BAL_STOCHASTIC;
    c->slop = 0.2;
    c->weight[BAL_COST_REGION_COUNT] = 500;
    c->weight[BAL_COST_TABLE_SKEW] = 35;
    c->weight[BAL_COST_MOVE] = 7;
    c->weight[BAL_COST_READ_REQUEST] = 5;
    c->weight[BAL_COST_WRITE_REQUEST] = 5;
    c->weight[BAL_COST_MEMSTORE_SIZE] = 5;
    c->weight[BAL_COST_STOREFILE_SIZE] = 5;
    c->max_steps = 1000000;
    c->steps_per_region = 800;
    c->max_ms = 30000;
    c->min_cost_need = 0.025;
    c->min_improvement = 0;
    c->max_move_fraction = 0.25;
    c->seed = 1;
}

int bal_config_set_weight(bal_config *c, const char *cost, double weight)
{
    for (int k = 0; k < BAL_COSTS; k++)
        if (cost && strcmp(cost, cost_names[k]) == 0) {
            if (!isfinite(weight) || weight < 0)
                return st_error(ST_INVALID_ARGUMENT,
                                "balancer cost %s: weight %g must be a number >= 0", cost, weight);
            c->weight[k] = weight;
            return ST_OK;
        }
    return st_error(ST_INVALID_ARGUMENT,
                    "unknown balancer cost '%s' (region_count, table_skew, move, read_request, "
                    "write_request, memstore_size or storefile_size)",
                    cost ? cost : "");
}

int bal_config_check(const bal_config *c)
{
    if (c->policy != BAL_STOCHASTIC && c->policy != BAL_SIMPLE)
        return st_error(ST_INVALID_ARGUMENT, "balancer: unknown policy %d", (int)c->policy);
    if (!isfinite(c->slop) || c->slop < 0 || c->slop > 1)
        return st_error(ST_INVALID_ARGUMENT, "balancer slop %g: must be in [0, 1]", c->slop);
    double sum = 0;
    for (int k = 0; k < BAL_COSTS; k++) {
        if (!isfinite(c->weight[k]) || c->weight[k] < 0)
            return st_error(ST_INVALID_ARGUMENT, "balancer cost %s: weight %g must be >= 0",
                            cost_names[k], c->weight[k]);
        sum += c->weight[k];
    }
    if (c->policy == BAL_STOCHASTIC && sum <= 0)
        return st_error(ST_INVALID_ARGUMENT, "balancer: every cost weight is 0");
    if (c->max_steps < 0 || c->steps_per_region < 0 || c->max_ms < 0)
        return st_error(ST_INVALID_ARGUMENT, "balancer: steps and time bounds must be >= 0");
    if (!isfinite(c->min_cost_need) || c->min_cost_need < 0 || c->min_cost_need > 1)
        return st_error(ST_INVALID_ARGUMENT, "balancer min cost need %g: must be in [0, 1]",
                        c->min_cost_need);
    if (!isfinite(c->min_improvement) || c->min_improvement < 0 || c->min_improvement > 1)
        return st_error(ST_INVALID_ARGUMENT, "balancer min improvement %g: must be in [0, 1]",
                        c->min_improvement);
    if (!isfinite(c->max_move_fraction) || c->max_move_fraction <= 0 || c->max_move_fraction > 1)
        return st_error(ST_INVALID_ARGUMENT, "balancer max move fraction %g: must be in (0, 1]",
                        c->max_move_fraction);
    return ST_OK;
}

int bal_policy_parse(const char *name, bal_policy *out)
{
    if (name &&
        (strcasecmp(name, "stochastic") == 0 || strcasecmp(name, "StochasticLoadBalancer") == 0)) {
        *out = BAL_STOCHASTIC;
        return ST_OK;
    }
    if (name && (strcasecmp(name, "simple") == 0 || strcasecmp(name, "SimpleLoadBalancer") == 0)) {
        *out = BAL_SIMPLE;
        return ST_OK;
    }
    return st_error(ST_INVALID_ARGUMENT,
                    "unknown balancer class '%s' (StochasticLoadBalancer or SimpleLoadBalancer)",
                    name ? name : "");
}

const char *bal_policy_name(bal_policy p)
{
    return p == BAL_SIMPLE ? "SimpleLoadBalancer" : "StochasticLoadBalancer";
}

static double scale(double min, double max, double v)
{
    if (max <= min || v <= min)
        return 0;
    double x = (v - min) / (max - min);
    return x < 0 ? 0 : x > 1 ? 1 : x;
}

double bal_array_cost(const double *stats, size_t n, bool integral)
{
    if (n < 2)
        return 0;
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += stats[i];
    if (total <= 0)
        return 0;
    double count = (double)n, mean = total / count;
    /* The worst case: one entry has everything, the others 0. */
    double max = (count - 1) * mean + (total - mean);
    double min = 0;
    if (integral) {
        if (count > total) {
            min = (count - total) * mean + (1 - mean) * total;
        } else {
            double high = total - floor(mean) * count, low = count - high;
            min = high * (ceil(mean) - mean) + low * (mean - floor(mean));
        }
        if (min < 0)
            min = 0;
    }
    double dev = 0;
    for (size_t i = 0; i < n; i++)
        dev += fabs(mean - stats[i]);
    return scale(min, max, dev);
}

double bal_cost(const bal_cluster *c, const bal_config *cfg, const int *assign, size_t nmoves,
                double part[BAL_COSTS])
{
    size_t S = c->nservers, T = c->ntables ? c->ntables : 1;
    double *per = calloc(S * 6 + S * T + 1, sizeof(double));
    for (int k = 0; k < BAL_COSTS; k++)
        part[k] = 0;
    if (S == 0) {
        free(per);
        return 0;
    }
    if (!per)
        return HUGE_VAL; /* out of memory: never better than anything */
    double *count = per, *rd = per + S, *wr = per + 2 * S, *mem = per + 3 * S, *sf = per + 4 * S;
    double *tmp = per + 5 * S, *tc = per + 6 * S;
    for (size_t i = 0; i < c->nregions; i++) {
        int s = assign[i];
        if (s < 0 || (size_t)s >= S)
            continue;
        const bal_region *r = &c->regions[i];
        count[s] += 1;
        rd[s] += r->read_rate;
        wr[s] += r->write_rate;
        mem[s] += r->memstore_mb;
        sf[s] += r->storefile_mb;
        if (r->table >= 0 && (size_t)r->table < T)
            tc[(size_t)r->table * S + (size_t)s] += 1;
    }
    part[BAL_COST_REGION_COUNT] = bal_array_cost(count, S, true);
    double tsum = 0;
    size_t tables = 0;
    for (size_t t = 0; t < T; t++) {
        double n = 0;
        for (size_t s = 0; s < S; s++) {
            tmp[s] = tc[t * S + s];
            n += tmp[s];
        }
        if (n > 0) {
            tsum += bal_array_cost(tmp, S, true);
            tables++;
        }
    }
    part[BAL_COST_TABLE_SKEW] = tables ? tsum / (double)tables : 0;
    double max_moves = (double)c->nregions * cfg->max_move_fraction;
    if (max_moves < 600)
        max_moves = 600;
    double bound = (double)c->nregions < max_moves ? (double)c->nregions : max_moves;
    part[BAL_COST_MOVE] = (double)nmoves > max_moves ? 1e6 : scale(0, bound, (double)nmoves);
    part[BAL_COST_READ_REQUEST] = bal_array_cost(rd, S, false);
    part[BAL_COST_WRITE_REQUEST] = bal_array_cost(wr, S, false);
    part[BAL_COST_MEMSTORE_SIZE] = bal_array_cost(mem, S, false);
    part[BAL_COST_STOREFILE_SIZE] = bal_array_cost(sf, S, false);
    free(per);
    double total = 0, wsum = 0;
    for (int k = 0; k < BAL_COSTS; k++) {
        total += cfg->weight[k] * part[k];
        wsum += cfg->weight[k];
    }
    return wsum > 0 ? total / wsum : 0;
}

void bal_plan_free(bal_plan *p)
{
    if (!p)
        return;
    free(p->moves);
    p->moves = NULL;
    p->nmoves = 0;
}

size_t bal_schedule(const bal_plan *p, size_t nservers, int per_server, size_t *wave)
{
    if (p->nmoves == 0)
        return 0;
    if (per_server < 1)
        per_server = 1;
    size_t S = nservers ? nservers : 1;
    /* At most one wave per move. load[w * S + s]: moves of server s in wave w; last[s]:
     * 1 + the last wave s took part in, so that a server's moves keep their order. */
    int *load = calloc(p->nmoves * S, sizeof(int));
    size_t *last = calloc(S, sizeof(size_t));
    if (!load || !last) {
        free(load);
        free(last);
        for (size_t i = 0; i < p->nmoves; i++)
            wave[i] = i; /* out of memory: one move per wave */
        return p->nmoves;
    }
    size_t nwaves = 0;
    for (size_t i = 0; i < p->nmoves; i++) {
        size_t from = (size_t)p->moves[i].from, to = (size_t)p->moves[i].to;
        size_t w = 0;
        if (from < S && last[from] > w + 1)
            w = last[from] - 1;
        if (to < S && last[to] > w + 1)
            w = last[to] - 1;
        for (; w < p->nmoves; w++) {
            int *row = load + w * S;
            if ((from >= S || row[from] < per_server) && (to >= S || row[to] < per_server))
                break;
        }
        int *row = load + w * S;
        if (from < S) {
            row[from]++;
            last[from] = w + 1;
        }
        if (to < S) {
            row[to]++;
            last[to] = w + 1;
        }
        wave[i] = w;
        if (w + 1 > nwaves)
            nwaves = w + 1;
    }
    free(load);
    free(last);
    return nwaves;
}
