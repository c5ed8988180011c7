/*
 * balancer.h - the region load balancer's planners (docs/balancer.md): pure functions
 * from a cluster state (servers, regions with their loads, tables) to a plan of moves.
 *
 * Two policies, as HBase's:
 *   - SimpleLoadBalancer: every server's region count within
 *     [floor(avg * (1 - slop)), ceil(avg * (1 + slop))], by the fewest moves (whole
 *     cluster, or each table on its own when per_table).
 *   - StochasticLoadBalancer: a random neighbour search over moves and swaps, bounded by
 *     steps and time, minimising a weighted sum of costs each normalised to [0, 1] (region
 *     count skew, per-table skew, move cost, read and write request rate, memstore size,
 *     store-file size). It acts only when the cluster's cost is at least min_cost_need and
 *     the plan improves it by at least min_improvement.
 *
 * Everything here is deterministic for a given seed (the stochastic search also stops at
 * max_ms; tests give it a step bound only). Thread-safety: none needed; no globals.
 */
#ifndef STRATA_MASTER_BALANCER_H
#define STRATA_MASTER_BALANCER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum bal_policy {
    BAL_STOCHASTIC = 0,
    BAL_SIMPLE = 1,
} bal_policy;

/* The costs, in the order of bal_weights and of the breakdowns. */
typedef enum bal_cost_kind {
    BAL_COST_REGION_COUNT = 0,
    BAL_COST_TABLE_SKEW,
    BAL_COST_MOVE,
    BAL_COST_READ_REQUEST,
    BAL_COST_WRITE_REQUEST,
    BAL_COST_MEMSTORE_SIZE,
    BAL_COST_STOREFILE_SIZE,
    BAL_COSTS
} bal_cost_kind;

/* The configuration name of a cost ("region_count", "table_skew", "move",
 * "read_request", "write_request", "memstore_size", "storefile_size"); static. */
const char *bal_cost_name(bal_cost_kind k);

typedef struct bal_region {
    char name[64];                /* encoded name */
    int table;                    /* index into the cluster's tables */
    int server;                   /* index of the server it is on */
    double read_rate, write_rate; /* requests per second over the load window */
    double memstore_mb, storefile_mb;
} bal_region;

typedef struct bal_cluster {
    size_t nservers;
    size_t ntables;
    bal_region *regions;
    size_t nregions;
} bal_cluster;

typedef struct bal_config {
    bal_policy policy;
    double slop;              /* Simple: 0.2 */
    bool per_table;           /* balance each table on its own */
    double weight[BAL_COSTS]; /* Stochastic: >= 0 each */
    long max_steps;           /* Stochastic: upper bound of search steps */
    long steps_per_region;    /* Stochastic: steps = min(max_steps, this x regions x servers) */
    int64_t max_ms;           /* Stochastic: search time bound (0: none) */
    double min_cost_need;     /* Stochastic: a cluster cheaper than this is left alone */
    double min_improvement;   /* a plan must lower the total cost by at least this */
    double max_move_fraction; /* move cost: moves beyond max(fraction x regions, 600) forbidden */
    uint64_t seed;
    /* When not NULL and true, the search stops as at its time bound (a stopping master). */
    const atomic_bool *cancel;
} bal_config;

/* HBase's defaults: Stochastic, slop 0.2, weights region count 500, table skew 35, move 7,
 * read 5, write 5, memstore 5, store file 5; 1,000,000 steps, 800 per region and server,
 * 30 s; min cost need 0.025; min improvement 0; 25% of the regions moved at most. */
void bal_config_default(bal_config *c);
/* Sets a cost's weight by its name (bal_cost_name). ST_INVALID_ARGUMENT for an unknown
 * name or a weight that is negative or not finite. */
int bal_config_set_weight(bal_config *c, const char *cost, double weight);
/* Checks the whole configuration: ST_OK or ST_INVALID_ARGUMENT naming the setting. */
int bal_config_check(const bal_config *c);
/* "stochastic"/"StochasticLoadBalancer" or "simple"/"SimpleLoadBalancer" (any case). */
int bal_policy_parse(const char *name, bal_policy *out);
const char *bal_policy_name(bal_policy p);

typedef struct bal_move {
    size_t region; /* index into the cluster's regions */
    int from, to;
} bal_move;

typedef struct bal_plan {
    bal_move *moves;
    size_t nmoves;
    double cost_before, cost_after; /* weighted totals */
    double part_before[BAL_COSTS];  /* each cost in [0, 1] */
    double part_after[BAL_COSTS];
    long steps;    /* Stochastic: steps searched */
    bool needed;   /* the cluster was worth balancing */
    char why[160]; /* when no moves: why not */
} bal_plan;

/* Computes a plan for cluster c under cfg: ST_OK and *out (free with bal_plan_free), or
 * ST_INVALID_ARGUMENT (a bad configuration or cluster) / ST_NOMEM. An empty plan carries
 * the reason in why. */
int bal_plan_compute(const bal_cluster *c, const bal_config *cfg, bal_plan *out);
void bal_plan_free(bal_plan *p);

/* The cost parts of an assignment (assign[i]: server of region i) with nmoves moves made
 * from c's assignment, and their weighted total (returned; HUGE_VAL when out of memory). */
double bal_cost(const bal_cluster *c, const bal_config *cfg, const int *assign, size_t nmoves,
                double part[BAL_COSTS]);

/* HBase's DoubleArrayCost: the sum of |x - mean| over stats scaled to [0, 1] between the
 * best spread possible (integers when integral) and everything on one entry. */
double bal_array_cost(const double *stats, size_t n, bool integral);

/* Splits plan moves into waves: in each wave every server takes part (as source or
 * destination) in at most per_server moves. wave[i] gets the wave number of move i;
 * returns the number of waves. A server's moves never run in an earlier wave than one
 * planned before them (with per_server > 1, several of them may share a wave). */
size_t bal_schedule(const bal_plan *p, size_t nservers, int per_server, size_t *wave);

#endif
