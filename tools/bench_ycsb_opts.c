/*
 * bench_ycsb_opts.c - the command line of `strata bench ycsb` into a ycsb_opts
 * (bench_ycsb.h): defaults, the workload and its overrides, and the checks that turn bad
 * input into one message naming the flag and the value.
 *
 * Thread-safety: none needed; parsing runs on the main thread before anything starts.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "tools/bench_ycsb.h"

#define DEFAULT_TABLE "usertable"

void ycsb_usage(FILE *out)
{
    fprintf(out,
            "usage: strata bench ycsb (--dir D | --zk.quorum Q [--zk.parent P])\n"
            "           [--workload a|b|c|d|e|f] [--phase load|run|both] [--recordcount N]\n"
            "           [--operationcount N] [--threads T] [--target OPS] [--max-seconds S]\n"
            "           [--requestdistribution uniform|zipfian|latest|hotspot]\n"
            "           [--hot-fraction F] [--hot-ops-fraction F] [--readproportion F]\n"
            "           [--updateproportion F] [--insertproportion F] [--scanproportion F]\n"
            "           [--readmodifywriteproportion F] [--minscanlength N] [--maxscanlength N]\n"
            "           [--table NAME] [--regions R] [--field-count N] [--field-length B]\n"
            "           [--interval S [--servers] [--csv FILE] [--plot FILE.svg]] [--json]\n"
            "           [--insertorder hashed|ordered [--zeropadding N]] [--seed N]\n");
}

void ycsb_help(FILE *out)
{
    ycsb_usage(out);
    fprintf(out,
            "  YCSB's CoreWorkload through the C client: table usertable, family 'family',\n"
            "  fields field0..field9 of 100 random bytes, keys user<fnvhash64(n)>.\n"
            "  --workload W        a: 50/50 read/update; b: 95/5 read/update; c: read only;\n"
            "                      d: 95/5 read/insert, latest; e: 95/5 scan/insert, scans of\n"
            "                      1..100 rows; f: 50/50 read/read-modify-write. a, b, c, e, f\n"
            "                      zipfian (scrambled). Default a.\n"
            "  --phase P           load: insert recordcount records; run: operationcount\n"
            "                      operations; both (default): load, then run\n"
            "  --recordcount N     records loaded / assumed present (default 1000)\n"
            "  --operationcount N  operations of the run phase (default 1000)\n"
            "  --threads T         client threads (default 1)\n"
            "  --target OPS        total operations per second, spread over the threads\n"
            "                      (0, the default: as fast as they go)\n"
            "  --max-seconds S     a phase stops after S seconds even if not done (default 3600)\n"
            "  --requestdistribution D  override the workload's (uniform, zipfian, latest,\n"
            "                      hotspot); --hot-fraction F (hotspotdatafraction, default 0.2)\n"
            "                      and --hot-ops-fraction F (hotspotopnfraction, default 0.8)\n"
            "  --readproportion F ... --readmodifywriteproportion F, --minscanlength N,\n"
            "  --maxscanlength N   override the workload's proportions and scan lengths\n"
            "  --table NAME        the table (default usertable), created if missing with\n"
            "  --regions R         regions split evenly over the hashed keys (default 12)\n"
            "  --field-count N, --field-length B  fields per record and bytes per field\n"
            "  --interval S        every S seconds sample throughput and p99 latency;\n"
            "  --servers           also each live region server's requests/s and regions,\n"
            "                      from the master's cluster status\n"
            "  --csv FILE          write the samples as CSV (time_s,ops_per_s,p99_us, then\n"
            "                      <host:port>_rps,<host:port>_regions per server)\n"
            "  --plot FILE.svg     draw them as an SVG chart\n"
            "  --json              one JSON document instead of YCSB's text report\n"
            "  --insertorder O     hashed (default): keys user<fnvhash64(n)>; ordered: user<n>\n"
            "                      zero-padded to --zeropadding N digits (default 1), so a\n"
            "                      hotspot is a range of keys, held by a few regions\n"
            "  --seed N            seed of the client threads' random numbers (default: clock)\n"
            "  Exit status: 0 if no operation failed, 1 if any did (or the run could not be\n"
            "  done), 2 for a usage error.\n");
}

/* ---- values ---- */

static int bad_value(const char *flag, const char *v, const char *want)
{
    return st_error(ST_INVALID_ARGUMENT, "%s needs %s, not '%s'", flag, want, v);
}

static int int_value(const char *flag, const char *v, int64_t lo, int64_t hi, int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end || errno || x < lo || x > hi) {
        char want[96];
        snprintf(want, sizeof(want), "an integer in %lld..%lld", (long long)lo, (long long)hi);
        return bad_value(flag, v, want);
    }
    *out = x;
    return ST_OK;
}

static int double_value(const char *flag, const char *v, double lo, double hi, double *out)
{
    char *end = NULL;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end || errno || !isfinite(x) || x < lo || x > hi) {
        char want[96];
        snprintf(want, sizeof(want), "a number in [%g, %g]", lo, hi);
        return bad_value(flag, v, want);
    }
    *out = x;
    return ST_OK;
}

/* ---- flags ---- */

typedef enum flag_kind { F_I64, F_INT, F_DOUBLE, F_PROP } flag_kind;

typedef struct num_flag {
    const char *name;
    flag_kind kind;
    size_t off; /* into ycsb_opts; F_PROP: the ycsb_op */
    double lo, hi;
} num_flag;

#define OPT(f) offsetof(ycsb_opts, f)
static const num_flag num_flags[] = {
    {"--recordcount", F_I64, OPT(recordcount), 1, 1e12},
    {"--operationcount", F_I64, OPT(operationcount), 0, 1e12},
    {"--threads", F_INT, OPT(threads), 1, YCSB_MAX_THREADS},
    {"--regions", F_INT, OPT(regions), 1, YCSB_MAX_REGIONS},
    {"--field-count", F_INT, OPT(field_count), 1, 1000},
    {"--field-length", F_INT, OPT(field_length), 1, 1 << 20},
    {"--minscanlength", F_INT, OPT(wl.min_scan), 1, 1000000},
    {"--maxscanlength", F_INT, OPT(wl.max_scan), 1, 1000000},
    {"--target", F_DOUBLE, OPT(target), 0, 1e9},
    {"--hot-fraction", F_DOUBLE, OPT(hot_data), 0, 1},
    {"--hot-ops-fraction", F_DOUBLE, OPT(hot_ops), 0, 1},
    {"--interval", F_DOUBLE, OPT(interval_s), 0, 3600},
    {"--max-seconds", F_DOUBLE, OPT(max_seconds), 0.001, 30 * 86400},
    {"--zeropadding", F_INT, OPT(zeropadding), 1, 20},
    {"--readproportion", F_PROP, YCSB_READ, 0, 1},
    {"--updateproportion", F_PROP, YCSB_UPDATE, 0, 1},
    {"--insertproportion", F_PROP, YCSB_INSERT, 0, 1},
    {"--scanproportion", F_PROP, YCSB_SCAN, 0, 1},
    {"--readmodifywriteproportion", F_PROP, YCSB_RMW, 0, 1},
};

/* What the workload flags said, applied once every flag is read (so that --workload
 * may come after its overrides). */
typedef struct overrides {
    const char *workload, *dist;
    double prop[YCSB_OPS];
    bool prop_set[YCSB_OPS];
    int64_t min_scan, max_scan; /* 0: not given */
} overrides;

static int num_flag_set(const num_flag *f, const char *v, ycsb_opts *o, overrides *ov)
{
    int64_t i = 0;
    double d = 0;
    int rc = f->kind == F_I64 || f->kind == F_INT
                 ? int_value(f->name, v, (int64_t)f->lo, (int64_t)f->hi, &i)
                 : double_value(f->name, v, f->lo, f->hi, &d);
    if (rc != ST_OK)
        return rc;
    if (f->off == OPT(wl.min_scan) && f->kind == F_INT)
        ov->min_scan = i;
    else if (f->off == OPT(wl.max_scan) && f->kind == F_INT)
        ov->max_scan = i;
    else if (f->kind == F_I64)
        *(int64_t *)((char *)o + f->off) = i;
    else if (f->kind == F_INT)
        *(int *)((char *)o + f->off) = (int)i;
    else if (f->kind == F_DOUBLE)
        *(double *)((char *)o + f->off) = d;
    else {
        ov->prop[f->off] = d;
        ov->prop_set[f->off] = true;
    }
    return ST_OK;
}

static int phase_parse(const char *v, ycsb_phase *out)
{
    static const char *const names[] = {"load", "run", "both"};
    static const ycsb_phase phases[] = {YCSB_PHASE_LOAD, YCSB_PHASE_RUN, YCSB_PHASE_BOTH};
    for (int i = 0; i < 3; i++)
        if (strcmp(v, names[i]) == 0) {
            *out = phases[i];
            return ST_OK;
        }
    return bad_value("--phase", v, "load, run or both");
}

static int string_flag(const char *a, const char *v, ycsb_opts *o, overrides *ov, bool *used)
{
    *used = true;
    if (strcmp(a, "--dir") == 0)
        o->dir = v;
    else if (strcmp(a, "--zk.quorum") == 0)
        o->quorum = v;
    else if (strcmp(a, "--zk.parent") == 0)
        o->parent = v;
    else if (strcmp(a, "--table") == 0)
        o->table = v;
    else if (strcmp(a, "--csv") == 0)
        o->csv = v;
    else if (strcmp(a, "--plot") == 0)
        o->plot = v;
    else if (strcmp(a, "--workload") == 0)
        ov->workload = v;
    else if (strcmp(a, "--requestdistribution") == 0)
        ov->dist = v;
    else if (strcmp(a, "--phase") == 0)
        return phase_parse(v, &o->phase);
    else if (strcmp(a, "--insertorder") == 0) {
        if (strcmp(v, "hashed") != 0 && strcmp(v, "ordered") != 0)
            return bad_value(a, v, "hashed or ordered");
        o->ordered = strcmp(v, "ordered") == 0;
    }
    else if (strcmp(a, "--seed") == 0) {
        int64_t s = 0;
        int rc = int_value(a, v, 0, INT64_MAX, &s);
        o->seed = (uint64_t)s;
        return rc;
    } else
        *used = false;
    return ST_OK;
}

static int one_flag(int argc, char **argv, int *i, ycsb_opts *o, overrides *ov)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    if (strcmp(a, "--json") == 0) {
        o->json = true;
        return ST_OK;
    }
    if (strcmp(a, "--servers") == 0) {
        o->servers = true;
        return ST_OK;
    }
    bool used = false;
    for (size_t f = 0; f < sizeof(num_flags) / sizeof(num_flags[0]); f++)
        if (strcmp(a, num_flags[f].name) == 0) {
            if (!v)
                return st_error(ST_INVALID_ARGUMENT, "%s needs a value", a);
            (*i)++;
            return num_flag_set(&num_flags[f], v, o, ov);
        }
    if (v) {
        int rc = string_flag(a, v, o, ov, &used);
        if (used) {
            (*i)++;
            return rc;
        }
    }
    if (strncmp(a, "--", 2) == 0 && !v)
        return st_error(ST_INVALID_ARGUMENT, "%s needs a value (or is unknown)", a);
    return st_error(ST_INVALID_ARGUMENT, "unknown argument '%s'", a);
}

/* The workload with the overrides, and the checks across flags. */
static int finish(ycsb_opts *o, const overrides *ov)
{
    int rc = ycsb_workload_lookup(ov->workload ? ov->workload : "a", &o->wl);
    if (rc == ST_OK && ov->dist)
        rc = ycsb_dist_parse(ov->dist, &o->wl.dist);
    if (rc != ST_OK)
        return rc;
    double sum = 0;
    for (int i = 0; i < YCSB_OPS; i++) {
        if (ov->prop_set[i])
            o->wl.prop[i] = ov->prop[i];
        sum += o->wl.prop[i];
    }
    if (ov->min_scan)
        o->wl.min_scan = (int)ov->min_scan;
    if (ov->max_scan)
        o->wl.max_scan = (int)ov->max_scan;
    if (o->wl.min_scan > o->wl.max_scan)
        return st_error(ST_INVALID_ARGUMENT, "--minscanlength %d is above --maxscanlength %d",
                        o->wl.min_scan, o->wl.max_scan);
    if ((o->phase & YCSB_PHASE_RUN) && sum <= 0)
        return st_error(ST_INVALID_ARGUMENT, "the operation proportions add up to 0");
    if ((o->dir != NULL) + (o->quorum != NULL) != 1)
        return st_error(ST_INVALID_ARGUMENT, "give one of --dir D and --zk.quorum Q");
    if (o->parent && !o->quorum)
        return st_error(ST_INVALID_ARGUMENT, "--zk.parent goes with --zk.quorum");
    if ((o->servers || o->csv || o->plot) && o->interval_s <= 0)
        return st_error(ST_INVALID_ARGUMENT, "--servers, --csv and --plot need --interval S > 0");
    if (o->interval_s > 0 && o->interval_s < 0.05)
        return st_error(ST_INVALID_ARGUMENT, "--interval needs at least 0.05 seconds");
    return ST_OK;
}

int ycsb_parse_args(int argc, char **argv, ycsb_opts *o)
{
    *o = (ycsb_opts){.table = DEFAULT_TABLE,
                     .recordcount = 1000,
                     .operationcount = 1000,
                     .threads = 1,
                     .regions = 12,
                     .field_count = 10,
                     .field_length = 100,
                     .hot_data = 0.2,
                     .hot_ops = 0.8,
                     .max_seconds = 3600,
                     .zeropadding = 1,
                     .phase = YCSB_PHASE_BOTH};
    overrides ov;
    memset(&ov, 0, sizeof(ov));
    for (int i = 1; i < argc; i++) {
        int rc = one_flag(argc, argv, &i, o, &ov);
        if (rc != ST_OK)
            return rc;
    }
    return finish(o, &ov);
}

size_t ycsb_key_of(const ycsb_opts *o, int64_t keynum, char *out)
{
    return o->ordered ? ycsb_key_ordered(keynum, o->zeropadding, out) : ycsb_key(keynum, out);
}
