/*
 * bench_ycsb.h - internals of `strata bench ycsb`: YCSB's CoreWorkload (workloads A-F)
 * through the public C client, as a load-balancing experiment kit (docs/performance.md,
 * "YCSB workloads").
 *
 * The files:
 *   bench_ycsb_gen.c     keys (user + fnvhash64), YCSB's number generators (uniform,
 *                        zipfian, scrambled zipfian, skewed latest, hotspot), the
 *                        acknowledged insert counter, the operation chooser and the table
 *                        of workloads A-F
 *   bench_ycsb_opts.c    the command line into a ycsb_opts
 *   bench_ycsb_stats.c   latency histograms, YCSB's text report and the JSON document
 *   bench_ycsb_series.c  the time series (--interval): the CSV and the SVG chart
 *   bench_ycsb.c         the cluster, the table, the load and run phases, the sampler
 *
 * Generators follow YCSB's Java classes (site.ycsb.generator.*) number for number; the
 * random source is ours (xoshiro256**, seeded per thread), not java.util.Random, so the
 * sequences differ from YCSB's while their distributions are the same.
 *
 * Thread-safety: a ycsb_rng, a ycsb_chooser and a ycsb_opchooser belong to one thread
 * (each client thread has its own copies); a ycsb_ack_counter is shared by every thread
 * (its calls are thread-safe); a ycsb_hist is written by one thread and may be read by
 * another at the same time (relaxed atomics; a reader sees each bucket whole).
 */
#ifndef STRATA_TOOLS_BENCH_YCSB_H
#define STRATA_TOOLS_BENCH_YCSB_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/buf.h"

/* ---- random numbers, keys ---- */

typedef struct ycsb_rng {
    uint64_t s[4];
} ycsb_rng;

/* Seeds r from seed (any value; splitmix64 expands it). */
void ycsb_rng_seed(ycsb_rng *r, uint64_t seed);
uint64_t ycsb_rng_next(ycsb_rng *r);
/* Uniform in [0, 1), 53 bits. */
double ycsb_rng_double(ycsb_rng *r);
/* Uniform in [0, n) (n > 0). */
uint64_t ycsb_rng_below(ycsb_rng *r, uint64_t n);

/* YCSB's Utils.fnvhash64: FNV-1a 64 over the 8 bytes of val, low byte first, then
 * Math.abs (which leaves INT64_MIN as it is). */
int64_t ycsb_fnvhash64(int64_t val);

#define YCSB_KEY_MAX 32
/* CoreWorkload.buildKeyName with insertorder=hashed and zeropadding 1: "user" followed
 * by the decimal of fnvhash64(keynum). Writes it NUL-terminated into out (at least
 * YCSB_KEY_MAX bytes) and returns its length. */
size_t ycsb_key(int64_t keynum, char *out);
/* buildKeyName with insertorder=ordered: "user" and the decimal of keynum, zero-padded to
 * zeropadding digits, so that keys sort as their numbers (within that many digits). */
size_t ycsb_key_ordered(int64_t keynum, int zeropadding, char *out);

/* ---- generators ---- */

#define YCSB_ZIPFIAN_CONSTANT 0.99
/* ScrambledZipfianGenerator's item count and its precomputed zeta for 0.99. */
#define YCSB_SCRAMBLED_ITEM_COUNT 10000000000000000LL
#define YCSB_SCRAMBLED_ZETAN 26.46902820178302

/* ZipfianGenerator (Gray et al., "Quickly Generating Billion-Record Synthetic
 * Databases", SIGMOD 1994): items base..base+items-1, item base the most popular. */
typedef struct ycsb_zipf {
    int64_t items, base, countforzeta;
    double theta, zeta2theta, alpha, zetan, eta;
} ycsb_zipf;

/* The sum of 1/(i+1)^theta for i in [st, n), added to initial. */
double ycsb_zeta(int64_t st, int64_t n, double theta, double initial);
/* Items min..max (max >= min); zeta is computed (O(items)) unless zetan > 0 is given. */
void ycsb_zipf_init(ycsb_zipf *z, int64_t min, int64_t max, double theta, double zetan);
/* The next item of a distribution over itemcount items: as YCSB's nextLong(itemcount),
 * zeta is extended incrementally when itemcount grew (and kept when it shrank). */
int64_t ycsb_zipf_next_n(ycsb_zipf *z, ycsb_rng *r, int64_t itemcount);
int64_t ycsb_zipf_next(ycsb_zipf *z, ycsb_rng *r);

/* ScrambledZipfianGenerator: zipfian over 0..YCSB_SCRAMBLED_ITEM_COUNT, the item hashed
 * with fnvhash64 into min..max, so the popular items are spread over the range. */
typedef struct ycsb_scrambled {
    ycsb_zipf z;
    int64_t min, itemcount;
} ycsb_scrambled;
void ycsb_scrambled_init(ycsb_scrambled *s, int64_t min, int64_t max);
int64_t ycsb_scrambled_next(ycsb_scrambled *s, ycsb_rng *r);

/* HotspotIntegerGenerator: hot_ops of the draws fall uniformly in the lowest hot_data of
 * lower..upper, the rest uniformly in the others. Fractions in [0, 1] (checked by the
 * caller; YCSB sets a bad one to 0). */
typedef struct ycsb_hotspot {
    int64_t lower, hot, cold;
    double hot_ops;
} ycsb_hotspot;
void ycsb_hotspot_init(ycsb_hotspot *h, int64_t lower, int64_t upper, double hot_data,
                       double hot_ops);
int64_t ycsb_hotspot_next(ycsb_hotspot *h, ycsb_rng *r);

/* SkewedLatestGenerator: last - zipfian(last), so the most recent items are the most
 * popular. z is a ZipfianGenerator made over the items there were at the start. */
int64_t ycsb_latest_next(ycsb_zipf *z, ycsb_rng *r, int64_t last);

/* AcknowledgedCounterGenerator: insert key numbers from start on; ycsb_ack_last is the
 * highest number below which every insert was acknowledged (start - 1 at first). A
 * window of YCSB_ACK_WINDOW numbers may be outstanding. */
#define YCSB_ACK_WINDOW (1 << 20)
typedef struct ycsb_ack_counter {
    _Atomic int64_t next;
    _Atomic int64_t limit;
    pthread_mutex_t mu;
    bool *window; /* YCSB_ACK_WINDOW slots, under mu */
} ycsb_ack_counter;
/* ST_OK, or ST_NOMEM. */
int ycsb_ack_init(ycsb_ack_counter *c, int64_t start);
void ycsb_ack_free(ycsb_ack_counter *c);
int64_t ycsb_ack_next(ycsb_ack_counter *c);
/* Marks value done and advances the limit over every contiguous done number: ST_OK, or
 * ST_INTERNAL when the window is full ("too many unacknowledged insertion keys"). */
int ycsb_ack_acknowledge(ycsb_ack_counter *c, int64_t value);
int64_t ycsb_ack_last(ycsb_ack_counter *c);

/* ---- workloads ---- */

typedef enum ycsb_op {
    YCSB_READ = 0,
    YCSB_UPDATE,
    YCSB_INSERT,
    YCSB_SCAN,
    YCSB_RMW, /* read-modify-write */
    YCSB_OPS
} ycsb_op;

typedef enum ycsb_dist {
    YCSB_UNIFORM = 0,
    YCSB_ZIPFIAN,
    YCSB_LATEST,
    YCSB_HOTSPOT,
    YCSB_DISTS
} ycsb_dist;

/* "READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE" (YCSB's measurement names). */
const char *ycsb_op_name(ycsb_op op);
/* "uniform", "zipfian", "latest", "hotspot". */
const char *ycsb_dist_name(ycsb_dist d);
/* ST_OK and *out, or ST_INVALID_ARGUMENT naming s. */
int ycsb_dist_parse(const char *s, ycsb_dist *out);

/* One of workloads/workloada..f: operation proportions, request distribution, scan
 * lengths (uniform in min..max). */
typedef struct ycsb_workload {
    char name[2]; /* "a".."f" */
    double prop[YCSB_OPS];
    ycsb_dist dist;
    int min_scan, max_scan;
} ycsb_workload;

/* The workload called name ("a".."f", "A".."F", or "workloada".."workloadf"): ST_OK and
 * *out, or ST_INVALID_ARGUMENT naming it. */
int ycsb_workload_lookup(const char *name, ycsb_workload *out);

/* DiscreteGenerator over the operations with proportion > 0. */
typedef struct ycsb_opchooser {
    double prop[YCSB_OPS];
    double sum;
} ycsb_opchooser;
void ycsb_opchooser_init(ycsb_opchooser *c, const ycsb_workload *w);
ycsb_op ycsb_opchooser_next(const ycsb_opchooser *c, ycsb_rng *r);

/* CoreWorkload's keychooser and nextKeynum for the run phase: a key number of a record
 * whose insert was acknowledged (<= last). */
typedef struct ycsb_chooser {
    ycsb_dist dist;
    int64_t lo, hi; /* uniform */
    ycsb_scrambled scrambled;
    ycsb_zipf latest;
    ycsb_hotspot hotspot;
} ycsb_chooser;
/* As CoreWorkload.init: records 0..recordcount-1 exist; zipfian spans them and
 * operationcount * insert proportion * 2 expected inserts; latest starts over
 * recordcount - 1 items. recordcount >= 1. */
void ycsb_chooser_init(ycsb_chooser *c, ycsb_dist dist, int64_t recordcount, int64_t operationcount,
                       double insert_prop, double hot_data, double hot_ops);
/* The next key number <= last (the acknowledged limit): drawn again while above it, as
 * YCSB does, at most YCSB_REDRAWS times, then folded into 0..last. */
#define YCSB_REDRAWS 1000
int64_t ycsb_chooser_next(ycsb_chooser *c, ycsb_rng *r, int64_t last);

/* ---- options ---- */

typedef enum ycsb_phase { YCSB_PHASE_LOAD = 1, YCSB_PHASE_RUN = 2, YCSB_PHASE_BOTH = 3 } ycsb_phase;

#define YCSB_MAX_THREADS 256
#define YCSB_MAX_REGIONS 1024

typedef struct ycsb_opts {
    const char *dir, *quorum, *parent, *table;
    ycsb_workload wl; /* with the overrides applied */
    int64_t recordcount, operationcount;
    int threads, regions, field_count, field_length;
    double target;     /* total ops/s, 0: unthrottled */
    double hot_data;   /* hotspotdatafraction */
    double hot_ops;    /* hotspotopnfraction */
    double interval_s; /* 0: no time series */
    double max_seconds;
    ycsb_phase phase;
    bool servers, json;
    bool ordered;    /* insertorder=ordered: keys in record order, not hashed */
    int zeropadding; /* digits of an ordered key's number (YCSB's zeropadding) */
    const char *csv, *plot;
    uint64_t seed; /* 0: from the clock */
} ycsb_opts;

/* Parses argv[1..argc) (argv[0] is "ycsb") into o, defaults first. ST_OK, or
 * ST_INVALID_ARGUMENT with a message naming the bad argument (st_errmsg). */
int ycsb_parse_args(int argc, char **argv, ycsb_opts *o);
/* The key of record keynum under o's insert order. */
size_t ycsb_key_of(const ycsb_opts *o, int64_t keynum, char *out);
/* The split keys of o->regions regions holding equal shares of the records' keys (at most
 * regions - 1, ascending, malloc'ed into keys[0..*n)). ST_OK or ST_NOMEM. */
int ycsb_split_keys(const ycsb_opts *o, char **keys, size_t *n);
void ycsb_usage(FILE *out);
void ycsb_help(FILE *out);

/* ---- latency histograms (bench_ycsb_stats.c) ---- */

/* Microseconds: exact below 256, then 128 buckets per power of two (within 0.8%), up to
 * 2^36 us; larger values count in the last bucket. */
#define YCSB_HIST_BUCKETS (256 + 28 * 128)

typedef struct ycsb_hist {
    _Atomic uint64_t b[YCSB_HIST_BUCKETS];
} ycsb_hist;

size_t ycsb_hist_index(uint64_t us);
/* The highest value counted in bucket i. */
uint64_t ycsb_hist_upper(size_t i);
/* Relaxed increment (one writer per histogram). */
void ycsb_hist_add(ycsb_hist *h, uint64_t us);
/* Adds every bucket of h into sum (plain counters, YCSB_HIST_BUCKETS of them). */
void ycsb_hist_collect(const ycsb_hist *h, uint64_t *sum);
/* The value at percentile p (0..100] of counts (HdrHistogram's getValueAtPercentile: the
 * first bucket whose running count reaches ceil(p/100 * total)), 0 when empty. */
uint64_t ycsb_hist_percentile(const uint64_t *counts, double p);

/* Return codes, as YCSB's Status names them. */
typedef enum ycsb_ret { YCSB_OK = 0, YCSB_ERROR, YCSB_NOT_FOUND, YCSB_RETS } ycsb_ret;

/* One operation type's measurements in one thread. */
typedef struct ycsb_opstat {
    ycsb_hist h;
    uint64_t count, sum_us, min_us, max_us;
    uint64_t ret[YCSB_RETS];
} ycsb_opstat;

void ycsb_opstat_add(ycsb_opstat *s, uint64_t us, ycsb_ret ret);

/* One phase's figures, merged over the threads. */
typedef struct ycsb_phase_result {
    const char *phase; /* "load", "run" */
    double runtime_ms;
    uint64_t ops; /* operations done (a read-modify-write is one) */
    uint64_t count[YCSB_OPS], sum_us[YCSB_OPS], min_us[YCSB_OPS], max_us[YCSB_OPS];
    uint64_t p95_us[YCSB_OPS], p99_us[YCSB_OPS];
    uint64_t ret[YCSB_OPS][YCSB_RETS];
    bool timed_out; /* --max-seconds ended it */
} ycsb_phase_result;

/* Merges n per-thread stats (stats[t][op]) into r (ops and runtime_ms left to the
 * caller). ST_OK or ST_NOMEM. */
int ycsb_merge(ycsb_opstat *const *stats, size_t n, ycsb_phase_result *r);
/* Errors of r: every Return= other than OK. */
uint64_t ycsb_errors(const ycsb_phase_result *r);
/* YCSB's text report of one phase: [OVERALL] and one block per operation type that ran. */
void ycsb_print_text(FILE *out, const ycsb_phase_result *r);

/* The report of n phases: for each a '#' line naming it (and one if --max-seconds ended
 * it), then ycsb_print_text. */
void ycsb_print_report(FILE *out, const ycsb_opts *o, const ycsb_phase_result *res, size_t n);

typedef struct ycsb_series ycsb_series;
/* The whole run as one JSON document on one line (docs/performance.md, "Output"): the
 * settings, the phases and the samples of series. ST_OK, or the JSON writer's failure. */
int ycsb_print_json(FILE *out, const ycsb_opts *o, const ycsb_phase_result *res, size_t n,
                    const ycsb_series *series);

/* ---- the time series (bench_ycsb_series.c) ---- */

#define YCSB_MAX_SERVERS 64
#define YCSB_SERVER_MAX 96

/* One sample: the interval ending at time_s (seconds since the first phase began). */
typedef struct ycsb_sample {
    double time_s, ops_per_s;
    uint64_t p99_us;
    int phase; /* YCSB_PHASE_LOAD or YCSB_PHASE_RUN */
    bool servers_ok;
    double rps[YCSB_MAX_SERVERS]; /* per server column; < 0: not live then */
    int regions[YCSB_MAX_SERVERS];
} ycsb_sample;

struct ycsb_series {
    ycsb_sample *s;
    size_t n, cap;
    char servers[YCSB_MAX_SERVERS][YCSB_SERVER_MAX]; /* host:port, in order of appearance */
    size_t nservers;
    double run_start_s; /* when the run phase began (-1: no run phase) */
};

void ycsb_series_init(ycsb_series *s);
void ycsb_series_free(ycsb_series *s);
/* A new sample at the end (every server not live); NULL when out of memory. */
ycsb_sample *ycsb_series_add(ycsb_series *s);
/* The column of server (host:port), added if new: its index, or -1 when
 * YCSB_MAX_SERVERS are there already. */
int ycsb_series_server(ycsb_series *s, const char *server);
/* Writes the CSV (wide: time_s,ops_per_s,p99_us,<server>_rps,<server>_regions...; a
 * server not live at a sample has empty cells). ST_OK or ST_IO naming path. */
int ycsb_series_write_csv(const ycsb_series *s, const char *path);
/* Writes the SVG chart: throughput and p99 over time, then each server's requests per
 * second; title names the run. ST_OK or ST_IO naming path. */
int ycsb_series_write_svg(const ycsb_series *s, const char *title, const char *path);
/* Builds the SVG into b (for tests). ST_OK or ST_NOMEM. */
int ycsb_series_svg(const ycsb_series *s, const char *title, buf_t *b);

#endif
