/*
 * balancer_plan.c - the two planners (docs/balancer.md "Policies"): HBase's
 * SimpleLoadBalancer (region counts within the slop, fewest moves) and its
 * StochasticLoadBalancer (a seeded random neighbour search over moves and swaps that keeps
 * only steps lowering the weighted cost).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdatomic.h>

#include "common/clock.h"
#include "common/status.h"
#include "master/balancer.h"

/* splitmix64: a small seeded generator, the same sequence on every machine. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int64_t mono_ms(void)
{
    return (int64_t)(clock_mono_ns() / 1000000u);
}

static size_t rng_below(uint64_t *s, size_t n)
{
    return n ? (size_t)(rng_next(s) % n) : 0;
}

static int check_cluster(const bal_cluster *c)
{
    for (size_t i = 0; i < c->nregions; i++) {
        const bal_region *r = &c->regions[i];
        if (r->server < 0 || (size_t)r->server >= c->nservers || r->table < 0 ||
            (size_t)r->table >= (c->ntables ? c->ntables : 1))
            return st_error(ST_INVALID_ARGUMENT,
                            "balancer: region %s has server %d / table %d out of range", r->name,
                            r->server, r->table);
        if (!(r->read_rate >= 0) || !(r->write_rate >= 0) || !(r->memstore_mb >= 0) ||
            !(r->storefile_mb >= 0))
            return st_error(ST_INVALID_ARGUMENT, "balancer: region %s has a negative load",
                            r->name);
    }
    return ST_OK;
}

/* The plan that takes c's assignment to assign (moves in region order). */
static int plan_from(const bal_cluster *c, const int *assign, bal_plan *out)
{
    size_t n = 0;
    for (size_t i = 0; i < c->nregions; i++)
        n += assign[i] != c->regions[i].server;
    out->moves = n ? calloc(n, sizeof(*out->moves)) : NULL;
    if (n && !out->moves)
        return st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; i < c->nregions; i++)
        if (assign[i] != c->regions[i].server) {
            bal_move *m = &out->moves[out->nmoves++];
            m->region = i;
            m->from = c->regions[i].server;
            m->to = assign[i];
        }
    return ST_OK;
}

/* ---- StochasticLoadBalancer ---- */

typedef struct search {
    const bal_cluster *c;
    const bal_config *cfg;
    int *assign;
    size_t **on; /* on[s]: indices of regions on server s */
    size_t *non, *cap;
    size_t nmoves; /* regions not where they started */
    uint64_t rng;
} search;

static int search_init(search *s, const bal_cluster *c, const bal_config *cfg)
{
    memset(s, 0, sizeof(*s));
    s->c = c;
    s->cfg = cfg;
    s->rng = cfg->seed ? cfg->seed : 1;
    size_t S = c->nservers;
    s->assign = calloc(c->nregions ? c->nregions : 1, sizeof(int));
    s->on = calloc(S, sizeof(*s->on));
    s->non = calloc(S, sizeof(size_t));
    s->cap = calloc(S, sizeof(size_t));
    if (!s->assign || !s->on || !s->non || !s->cap)
        return st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; i < S; i++) {
        s->cap[i] = c->nregions ? c->nregions : 1;
        s->on[i] = calloc(s->cap[i], sizeof(size_t));
        if (!s->on[i])
            return st_error(ST_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < c->nregions; i++) {
        int sv = c->regions[i].server;
        s->assign[i] = sv;
        s->on[sv][s->non[sv]++] = i;
    }
    return ST_OK;
}

static void search_free(search *s)
{
    for (size_t i = 0; s->on && i < s->c->nservers; i++)
        free(s->on[i]);
    free(s->on);
    free(s->non);
    free(s->cap);
    free(s->assign);
}

/* Moves region r (at position pos of its server's list) to server to. */
static void move_region(search *s, size_t r, int to)
{
    int from = s->assign[r];
    size_t *v = s->on[from];
    for (size_t i = 0; i < s->non[from]; i++)
        if (v[i] == r) {
            v[i] = v[--s->non[from]];
            break;
        }
    s->on[to][s->non[to]++] = r;
    bool was = from != s->c->regions[r].server, now = to != s->c->regions[r].server;
    s->nmoves = s->nmoves - was + now;
    s->assign[r] = to;
}

static double region_rate(const bal_region *r)
{
    return r->read_rate + r->write_rate;
}

/* An action: up to two region moves (a swap is two). */
typedef struct action {
    size_t region[2];
    int to[2];
    int n;
} action;

static void act_move(action *a, size_t r, int to)
{
    a->region[a->n] = r;
    a->to[a->n] = to;
    a->n++;
}

/* Random: a random region of a random server moves to another server, or swaps with a
 * random region there. */
static void gen_random(search *s, action *a)
{
    size_t S = s->c->nservers;
    size_t from = rng_below(&s->rng, S), to = rng_below(&s->rng, S - 1);
    if (to >= from)
        to++;
    if (s->non[from] == 0) {
        size_t t = from;
        from = to;
        to = t;
    }
    if (s->non[from] == 0)
        return;
    size_t r = s->on[from][rng_below(&s->rng, s->non[from])];
    act_move(a, r, (int)to);
    if (s->non[to] > 0 && rng_below(&s->rng, 2) == 0)
        act_move(a, s->on[to][rng_below(&s->rng, s->non[to])], (int)from);
}

/* Region count: a region of the server with the most regions moves to the one with the
 * fewest. */
static void gen_count(search *s, action *a)
{
    size_t S = s->c->nservers, hi = 0, lo = 0;
    for (size_t i = 1; i < S; i++) {
        if (s->non[i] > s->non[hi])
            hi = i;
        if (s->non[i] < s->non[lo])
            lo = i;
    }
    if (hi == lo || s->non[hi] == 0)
        return;
    act_move(a, s->on[hi][rng_below(&s->rng, s->non[hi])], (int)lo);
}

/* Load: the busiest server (read + write rate) gives a region to the least busy, or swaps
 * one of its regions with a region there. */
static void gen_load(search *s, action *a)
{
    size_t S = s->c->nservers, hi = 0, lo = 0;
    double *load = calloc(S, sizeof(double));
    if (!load)
        return;
    for (size_t i = 0; i < s->c->nregions; i++)
        load[s->assign[i]] += region_rate(&s->c->regions[i]);
    for (size_t i = 1; i < S; i++) {
        if (load[i] > load[hi])
            hi = i;
        if (load[i] < load[lo])
            lo = i;
    }
    free(load);
    if (hi == lo || s->non[hi] == 0)
        return;
    size_t r = s->on[hi][rng_below(&s->rng, s->non[hi])];
    act_move(a, r, (int)lo);
    if (s->non[lo] > 0 && rng_below(&s->rng, 2) == 0)
        act_move(a, s->on[lo][rng_below(&s->rng, s->non[lo])], (int)hi);
}

/* Table skew: a random table's region moves from the server with most of the table to the
 * one with fewest. */
static void gen_table(search *s, action *a)
{
    const bal_cluster *c = s->c;
    if (c->nregions == 0)
        return;
    int t = c->regions[rng_below(&s->rng, c->nregions)].table;
    size_t S = c->nservers, hi = 0, lo = 0;
    size_t *cnt = calloc(S, sizeof(size_t));
    if (!cnt)
        return;
    for (size_t i = 0; i < c->nregions; i++)
        if (c->regions[i].table == t)
            cnt[s->assign[i]]++;
    for (size_t i = 1; i < S; i++) {
        if (cnt[i] > cnt[hi])
            hi = i;
        if (cnt[i] < cnt[lo])
            lo = i;
    }
    size_t pick = cnt[hi] ? rng_below(&s->rng, cnt[hi]) : 0;
    free(cnt);
    if (hi == lo)
        return;
    for (size_t i = 0; i < s->non[hi]; i++) {
        size_t r = s->on[hi][i];
        if (c->regions[r].table == t && pick-- == 0) {
            act_move(a, r, (int)lo);
            return;
        }
    }
}

static int stochastic(const bal_cluster *c, const bal_config *cfg, bal_plan *out)
{
    search s;
    int rc = search_init(&s, c, cfg);
    if (rc != ST_OK) {
        search_free(&s);
        return rc;
    }
    double cur = bal_cost(c, cfg, s.assign, 0, out->part_before);
    out->cost_before = cur;
    if (cur < cfg->min_cost_need) {
        out->cost_after = cur;
        memcpy(out->part_after, out->part_before, sizeof(out->part_after));
        snprintf(out->why, sizeof(out->why), "cost %.4f is below the %.4f worth balancing", cur,
                 cfg->min_cost_need);
        search_free(&s);
        return ST_OK;
    }
    out->needed = true;
    double steps_d = (double)cfg->steps_per_region * (double)c->nregions * (double)c->nservers;
    long steps = steps_d < (double)cfg->max_steps ? (long)steps_d : cfg->max_steps;
    int64_t deadline = cfg->max_ms > 0 ? mono_ms() + cfg->max_ms : 0;
    double part[BAL_COSTS];
    long step = 0;
    for (; step < steps; step++) {
        if ((step & 255) == 0 &&
            ((deadline && mono_ms() > deadline) || (cfg->cancel && atomic_load(cfg->cancel))))
            break;
        action a = {.n = 0};
        switch (rng_below(&s.rng, 4)) {
        case 0:
            gen_random(&s, &a);
            break;
        case 1:
            gen_count(&s, &a);
            break;
        case 2:
            gen_load(&s, &a);
            break;
        default:
            gen_table(&s, &a);
            break;
        }
        if (a.n == 0)
            continue;
        int back[2];
        for (int i = 0; i < a.n; i++) {
            back[i] = s.assign[a.region[i]];
            move_region(&s, a.region[i], a.to[i]);
        }
        double cost = bal_cost(c, cfg, s.assign, s.nmoves, part);
        if (cost < cur) {
            cur = cost;
        } else {
            for (int i = a.n - 1; i >= 0; i--)
                move_region(&s, a.region[i], back[i]);
        }
    }
    out->steps = step;
    out->cost_after = bal_cost(c, cfg, s.assign, s.nmoves, out->part_after);
    if (out->cost_before - out->cost_after > cfg->min_improvement && s.nmoves > 0) {
        rc = plan_from(c, s.assign, out);
    } else {
        out->cost_after = out->cost_before;
        memcpy(out->part_after, out->part_before, sizeof(out->part_after));
        snprintf(out->why, sizeof(out->why),
                 "no plan lowers the cost %.4f by more than %.4f (%ld steps)", out->cost_before,
                 cfg->min_improvement, step);
    }
    search_free(&s);
    return rc;
}

/* HBase's balancing by table: each table is a cluster of its own (its regions only),
 * searched and held to min_cost_need and min_improvement by its own cost; the plan is
 * every table's moves. The breakdowns are the whole cluster's before and after, which
 * may rise (counts across tables are not looked at in this mode). */
static int stochastic_per_table(const bal_cluster *c, const bal_config *cfg, bal_plan *out)
{
    int *assign = calloc(c->nregions, sizeof(int));
    bal_region *sub = calloc(c->nregions, sizeof(*sub));
    size_t *idx = calloc(c->nregions, sizeof(size_t));
    int rc = assign && sub && idx ? ST_OK : st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; rc == ST_OK && i < c->nregions; i++)
        assign[i] = c->regions[i].server;
    if (rc == ST_OK)
        out->cost_before = bal_cost(c, cfg, assign, 0, out->part_before);
    long steps = 0;
    for (size_t t = 0; rc == ST_OK && t < c->ntables; t++) {
        bal_cluster one = {.nservers = c->nservers, .ntables = 1, .regions = sub};
        for (size_t i = 0; i < c->nregions; i++)
            if (c->regions[i].table == (int)t) {
                sub[one.nregions] = c->regions[i];
                sub[one.nregions].table = 0;
                idx[one.nregions++] = i;
            }
        if (one.nregions == 0)
            continue;
        bal_plan p;
        memset(&p, 0, sizeof(p));
        rc = stochastic(&one, cfg, &p);
        steps += p.steps;
        for (size_t k = 0; rc == ST_OK && k < p.nmoves; k++)
            assign[idx[p.moves[k].region]] = p.moves[k].to;
        out->needed |= p.needed;
        bal_plan_free(&p);
    }
    if (rc == ST_OK) {
        size_t moved = 0;
        for (size_t i = 0; i < c->nregions; i++)
            moved += assign[i] != c->regions[i].server;
        out->cost_after = bal_cost(c, cfg, assign, moved, out->part_after);
        out->steps = steps;
        if (moved)
            rc = plan_from(c, assign, out);
        else
            snprintf(out->why, sizeof(out->why),
                     "no table's cost is worth balancing or lowered by a plan");
    }
    free(assign);
    free(sub);
    free(idx);
    return rc;
}

/* ---- SimpleLoadBalancer ---- */

/* Balances the regions of table t (-1: all) by count over assign. */
static void simple_group(const bal_cluster *c, const bal_config *cfg, int t, int *assign,
                         bool *any_outside)
{
    size_t S = c->nservers, total = 0;
    size_t *cnt = calloc(S, sizeof(size_t));
    size_t *shed = calloc(c->nregions ? c->nregions : 1, sizeof(size_t));
    if (!cnt || !shed) {
        free(cnt);
        free(shed);
        return;
    }
    for (size_t i = 0; i < c->nregions; i++)
        if (t < 0 || c->regions[i].table == t) {
            cnt[assign[i]]++;
            total++;
        }
    double avg = (double)total / (double)S;
    size_t lo = (size_t)floor(avg * (1 - cfg->slop)), hi = (size_t)ceil(avg * (1 + cfg->slop));
    /* The band must hold every count of the even spread. */
    if (lo > (size_t)floor(avg))
        lo = (size_t)floor(avg);
    if (hi < (size_t)ceil(avg))
        hi = (size_t)ceil(avg);
    bool outside = false;
    for (size_t s = 0; s < S; s++)
        outside |= cnt[s] < lo || cnt[s] > hi;
    if (!outside) {
        free(cnt);
        free(shed);
        return;
    }
    *any_outside = true;
    /* Servers above hi shed their last regions down to hi. */
    size_t nshed = 0;
    for (size_t i = c->nregions; i-- > 0;) {
        if (t >= 0 && c->regions[i].table != t)
            continue;
        int s = assign[i];
        if (cnt[s] > hi) {
            cnt[s]--;
            shed[nshed++] = i;
        }
    }
    /* Servers below lo are filled up to lo: from the shed regions first, then from the
     * servers with the most regions as long as they stay above floor(avg). */
    for (size_t s = 0; s < S; s++) {
        while (cnt[s] < lo) {
            size_t r = SIZE_MAX;
            if (nshed > 0) {
                r = shed[--nshed];
            } else {
                size_t big = 0;
                for (size_t j = 1; j < S; j++)
                    if (cnt[j] > cnt[big])
                        big = j;
                if (cnt[big] <= (size_t)floor(avg) || cnt[big] <= cnt[s] + 1)
                    break;
                for (size_t i = c->nregions; i-- > 0;)
                    if ((t < 0 || c->regions[i].table == t) && (size_t)assign[i] == big) {
                        r = i;
                        break;
                    }
                if (r == SIZE_MAX)
                    break;
                cnt[big]--;
            }
            assign[r] = (int)s;
            cnt[s]++;
        }
    }
    /* What is left goes to the servers with the fewest regions. */
    while (nshed > 0) {
        size_t small = 0;
        for (size_t j = 1; j < S; j++)
            if (cnt[j] < cnt[small])
                small = j;
        size_t r = shed[--nshed];
        assign[r] = (int)small;
        cnt[small]++;
    }
    free(cnt);
    free(shed);
}

static int simple(const bal_cluster *c, const bal_config *cfg, bal_plan *out)
{
    int *assign = calloc(c->nregions ? c->nregions : 1, sizeof(int));
    if (!assign)
        return st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; i < c->nregions; i++)
        assign[i] = c->regions[i].server;
    out->cost_before = bal_cost(c, cfg, assign, 0, out->part_before);
    bool outside = false;
    if (cfg->per_table)
        for (size_t t = 0; t < (c->ntables ? c->ntables : 1); t++)
            simple_group(c, cfg, (int)t, assign, &outside);
    else
        simple_group(c, cfg, -1, assign, &outside);
    out->needed = outside;
    size_t moved = 0;
    for (size_t i = 0; i < c->nregions; i++)
        moved += assign[i] != c->regions[i].server;
    out->cost_after = bal_cost(c, cfg, assign, moved, out->part_after);
    int rc = ST_OK;
    if (moved)
        rc = plan_from(c, assign, out);
    else
        snprintf(out->why, sizeof(out->why),
                 "every server's region count is within the slop %.2f of the average", cfg->slop);
    free(assign);
    return rc;
}

int bal_plan_compute(const bal_cluster *c, const bal_config *cfg, bal_plan *out)
{
    memset(out, 0, sizeof(*out));
    int rc = bal_config_check(cfg);
    if (rc != ST_OK)
        return rc;
    if (c->nservers < 2 || c->nregions == 0) {
        snprintf(out->why, sizeof(out->why), "%zu servers and %zu regions: nothing to balance",
                 c->nservers, c->nregions);
        return ST_OK;
    }
    rc = check_cluster(c);
    if (rc != ST_OK)
        return rc;
    if (cfg->policy == BAL_SIMPLE)
        rc = simple(c, cfg, out);
    else if (cfg->per_table && c->ntables > 1)
        rc = stochastic_per_table(c, cfg, out);
    else
        rc = stochastic(c, cfg, out);
    if (rc != ST_OK)
        bal_plan_free(out);
    return rc;
}
