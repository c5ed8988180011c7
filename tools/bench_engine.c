/*
 * bench_engine.c - `strata bench engine`: db_bench's workloads on Strata's region
 * engine and, when compiled in, on RocksDB and LevelDB, through one harness.
 *
 *   strata bench engine [--num N] [--workloads w1,w2,...] [--value-size B] [--json]
 *                       [--threads T] [--dir D] [--engines e1,e2,...]
 *                       [--repeat N] [--compare FILE.json [--spread PCT]]
 *
 * Every engine gets the same settings (bench_db_config: 64 MiB LRU block cache, 64 MiB
 * write buffer / memstore flush size, 4 KiB blocks, 10 bits/key bloom filters, no
 * compression, WAL on with fsync only in fillsync), the same keys and the same values
 * (bench_run.c). Each engine runs alone in a forked child process, one after the
 * other, so that its peak RSS (wait4's ru_maxrss) is its own; the child sends one
 * bench_result per workload over a pipe. The parent prints a table per workload
 * (ops/s, MB/s, seconds, Strata's ops/s divided by each peer's, peak RSS) or, with
 * --json, one JSON object per line per (workload, engine). All DBs live in a fresh
 * directory under --dir (default /tmp), removed at the end.
 * --repeat N runs every engine's whole workload sequence N times, round by round (each
 * run a new child on fresh DBs); a workload's ops/s is then the median over the runs
 * (for an even N the mean of the middle two), reported with the min, the max and
 * spread = (max - min) / median * 100 / 2 percent (JSON: runs, ops_min, ops_max,
 * spread_pct; the table gets a spread column); a failure in any run is the result.
 * --compare FILE.json reads a baseline saved from an earlier --json run before running,
 * and after the report prints this run against it (bench_compare.c): REGRESSED when
 * ops/s fell by more than max(--spread, default 10%, the baseline's spread_pct).
 * Exit status: 0 if every engine ran every workload, every read checked out and nothing
 * regressed, 1 otherwise, 2 for a usage error (an unreadable or malformed baseline too).
 * Thread-safety: the parent is single-threaded (it forks); see bench_run.c for a child.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/log.h"
#include "common/status.h"
#include "tools/bench.h"
#include "tools/bench_compare.h"
#include "tools/tools.h"

#define DEFAULT_NUM 1000000
#define DEFAULT_VALUE_SIZE 100
#define DEFAULT_SYNC_THREADS 8
#define MAX_NUM 100000000ull
#define MAX_VALUE_SIZE (1u << 20)
#define MIB (1024.0 * 1024.0)
#define MAX_ENGINES 3
#define MAX_REPEAT 100
#define DEFAULT_SPREAD_PCT 10.0

typedef struct cli {
    bench_plan plan;
    bool json;
    int threads;
    int repeat;            /* runs of each engine's workload sequence */
    const char *workloads; /* NULL: every workload */
    const char *engines;   /* NULL: every engine built in */
    const char *parent_dir;
    const char *compare;      /* --compare: the baseline file, or NULL */
    double spread_pct;        /* --spread */
    bench_baseline *baseline; /* loaded from compare before anything runs */
    const bench_db_ops *eng[MAX_ENGINES];
    size_t neng;
} cli;

/* One engine's results; with --repeat, res[w] holds the first run's counts (or a later
 * run's failure) and seconds at the median rate (see outcome_finish). */
typedef struct outcome {
    const bench_db_ops *ops;
    bench_result res[BENCH_MAX_WORKLOADS];
    size_t nres;
    long peak_rss_kb;
    bool failed;
    size_t runs;                                  /* runs folded in */
    double rate[MAX_REPEAT][BENCH_MAX_WORKLOADS]; /* ops/s of each run */
    double ops_min[BENCH_MAX_WORKLOADS], ops_max[BENCH_MAX_WORKLOADS];
    double spread_pct[BENCH_MAX_WORKLOADS]; /* (max - min) / median * 100 / 2 */
} outcome;

static const struct {
    const char *name;
    bench_kind kind;
} workload_names[] = {
    {"fillseq", BENCH_FILLSEQ},     {"fillrandom", BENCH_FILLRANDOM},
    {"overwrite", BENCH_OVERWRITE}, {"readrandom", BENCH_READRANDOM},
    {"readseq", BENCH_READSEQ},     {"seekrandom", BENCH_SEEKRANDOM},
    {"fillsync", BENCH_FILLSYNC},
};

/* ---- engines ---- */

static size_t engine_list(const bench_db_ops **out)
{
    const bench_db_ops *all[MAX_ENGINES] = {bench_strata_ops(), bench_rocksdb_ops(),
                                            bench_leveldb_ops()};
    size_t n = 0;
    for (size_t i = 0; i < MAX_ENGINES; i++)
        if (all[i] != NULL)
            out[n++] = all[i];
    return n;
}

size_t bench_engine_count(void)
{
    const bench_db_ops *e[MAX_ENGINES];
    return engine_list(e);
}

const bench_db_ops *bench_engine_ops(size_t i)
{
    const bench_db_ops *e[MAX_ENGINES];
    return i < engine_list(e) ? e[i] : NULL;
}

const char *bench_engine_name(size_t i)
{
    const bench_db_ops *o = bench_engine_ops(i);
    return o != NULL ? o->name : NULL;
}

/* ---- arguments ---- */

static void usage(FILE *f, bool full)
{
    fprintf(f, "usage: strata bench engine [--num N] [--workloads w1,w2,...] [--value-size B]\n"
               "                           [--json] [--threads T] [--dir D] [--engines e1,...]\n"
               "                           [--repeat N] [--compare FILE.json [--spread PCT]]\n");
    if (!full) {
        fprintf(f, "(strata bench engine --help for details)\n");
        return;
    }
    fprintf(f,
            "  db_bench's workloads on Strata's region engine and on RocksDB/LevelDB when\n"
            "  built in, with equal settings (64 MiB block cache, 64 MiB write buffer, 4 KiB\n"
            "  blocks, bloom 10 bits/key, no compression, WAL on, fsync only in fillsync).\n"
            "  --num N         entries (default %d); 16-byte keys\n"
            "  --workloads     any of fillseq fillrandom overwrite readrandom readseq\n"
            "                  seekrandom fillsync fillsync<T> (default: all, in that order,\n"
            "                  with fillsync<T> for --threads)\n"
            "  --value-size B  value bytes (default %d), db_bench's 50%%-compressible data\n"
            "  --threads T     concurrent writers of the group-commit fillsync (default %d)\n"
            "  --dir D         parent of the benchmark's temporary directory (default /tmp)\n"
            "  --engines       which engines to run (default: all built in)\n"
            "  --json          one JSON object per line per (workload, engine)\n"
            "  --repeat N      run each engine's workloads N times (default 1, at most %d),\n"
            "                  each on fresh DBs; ops/s is the median, with the min, max and\n"
            "                  spread = (max - min) / median / 2 (shown as +-x%%)\n"
            "  --compare F     compare with F, the saved --json output of an earlier run:\n"
            "                  per (workload, engine) the baseline's ops/s, this run's, the\n"
            "                  change, and REGRESSED when it fell by more than the spread;\n"
            "                  with --json, also one {\"compare\":true,...} object per pair.\n"
            "                  Exit 1 if anything regressed or failed\n"
            "  --spread PCT    the allowed fall in percent (default %.0f); a baseline line's\n"
            "                  own spread_pct (from --repeat) is used when larger\n",
            DEFAULT_NUM, DEFAULT_VALUE_SIZE, DEFAULT_SYNC_THREADS, MAX_REPEAT, DEFAULT_SPREAD_PCT);
}

static bool parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    char *end = NULL;
    if (s == NULL || *s < '0' || *s > '9')
        return false;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < min || v > max)
        return false;
    *out = v;
    return true;
}

/* Sets *out to the percentage s, a decimal number in [0, 100]. */
static bool parse_pct(const char *s, double *out)
{
    char *end = NULL;
    if (s == NULL || *s < '0' || *s > '9')
        return false;
    errno = 0;
    double v = strtod(s, &end);
    if (errno != 0 || *end != '\0' || !(v >= 0 && v <= 100))
        return false;
    *out = v;
    return true;
}

/* Appends the workload named by tok[0..len): a name of workload_names, or fillsync<T>. */
static int add_workload(bench_plan *p, const char *tok, size_t len)
{
    bench_workload *w = &p->workloads[p->nworkloads];
    if (p->nworkloads == BENCH_MAX_WORKLOADS || len == 0 || len >= sizeof(w->name))
        return -1;
    memcpy(w->name, tok, len);
    w->name[len] = '\0';
    w->threads = 1;
    for (size_t i = 0; i < sizeof(workload_names) / sizeof(workload_names[0]); i++) {
        size_t n = strlen(workload_names[i].name);
        uint64_t t = 0;
        bool exact = strcmp(w->name, workload_names[i].name) == 0;
        bool sync_n = workload_names[i].kind == BENCH_FILLSYNC && len > n &&
                      strncmp(w->name, "fillsync", n) == 0 &&
                      parse_u64(w->name + n, 1, BENCH_MAX_THREADS, &t);
        if (exact || sync_n) {
            w->kind = workload_names[i].kind;
            w->threads = sync_n ? (int)t : 1;
            p->nworkloads++;
            return 0;
        }
    }
    return -1;
}

static int parse_workloads(cli *c)
{
    char def[256];
    const char *s = c->workloads;
    if (s == NULL) {
        int n = snprintf(def, sizeof(def), "%s",
                         "fillseq,fillrandom,overwrite,readrandom,readseq,seekrandom,fillsync");
        if (c->threads > 1)
            snprintf(def + n, sizeof(def) - (size_t)n, ",fillsync%d", c->threads);
        s = def;
    }
    while (*s != '\0') {
        size_t len = strcspn(s, ",");
        if (add_workload(&c->plan, s, len) != 0) {
            fprintf(stderr, "strata bench engine: unknown workload '%.*s'\n", (int)len, s);
            return -1;
        }
        s += len + (s[len] == ',');
    }
    return c->plan.nworkloads > 0 ? 0 : -1;
}

/* Selects the engines named in c->engines, kept in the built-in order (Strata first). */
static int parse_engines(cli *c)
{
    const bench_db_ops *all[MAX_ENGINES];
    bool chosen[MAX_ENGINES] = {false};
    size_t nall = engine_list(all);
    for (const char *s = c->engines; s != NULL && *s != '\0';) {
        size_t len = strcspn(s, ","), i = 0;
        while (i < nall && !(strlen(all[i]->name) == len && strncmp(all[i]->name, s, len) == 0))
            i++;
        if (i == nall) {
            fprintf(stderr, "strata bench engine: engine '%.*s' is unknown or not built in\n",
                    (int)len, s);
            return -1;
        }
        chosen[i] = true;
        s += len + (s[len] == ',');
    }
    for (size_t i = 0; i < nall; i++)
        if (c->engines == NULL || chosen[i])
            c->eng[c->neng++] = all[i];
    return c->neng > 0 ? 0 : -1;
}

/* Sets *val to the option's value ("--opt=v" or the next argument). */
static bool option_value(int argc, char **argv, int *i, const char *eq, const char **val)
{
    if (eq != NULL) {
        *val = eq + 1;
        return true;
    }
    if (*i + 1 >= argc)
        return false;
    *val = argv[++*i];
    return true;
}

static int parse_option(cli *c, const char *name, const char *val)
{
    uint64_t v = 0;
    if (strcmp(name, "--num") == 0 && parse_u64(val, 1, MAX_NUM, &v))
        c->plan.num = v;
    else if (strcmp(name, "--value-size") == 0 && parse_u64(val, 1, MAX_VALUE_SIZE, &v))
        c->plan.value_size = (size_t)v;
    else if (strcmp(name, "--threads") == 0 && parse_u64(val, 1, BENCH_MAX_THREADS, &v))
        c->threads = (int)v;
    else if (strcmp(name, "--repeat") == 0 && parse_u64(val, 1, MAX_REPEAT, &v))
        c->repeat = (int)v;
    else if (strcmp(name, "--compare") == 0 && *val != '\0')
        c->compare = val;
    else if (strcmp(name, "--spread") == 0)
        return parse_pct(val, &c->spread_pct) ? 0 : -1;
    else if (strcmp(name, "--workloads") == 0)
        c->workloads = val;
    else if (strcmp(name, "--engines") == 0)
        c->engines = val;
    else if (strcmp(name, "--dir") == 0 && *val != '\0')
        c->parent_dir = val;
    else
        return -1;
    return 0;
}

static int parse_args(cli *c, int argc, char **argv)
{
    for (int i = 2; i < argc; i++) {
        char name[32];
        const char *arg = argv[i], *val = NULL, *eq = strchr(arg, '=');
        size_t nlen = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
        if (strcmp(arg, "--json") == 0) {
            c->json = true;
            continue;
        }
        if (nlen >= sizeof(name) || strncmp(arg, "--", 2) != 0) {
            fprintf(stderr, "strata bench engine: unexpected argument '%s'\n", arg);
            return -1;
        }
        memcpy(name, arg, nlen);
        name[nlen] = '\0';
        if (!option_value(argc, argv, &i, eq, &val) || parse_option(c, name, val) != 0) {
            fprintf(stderr, "strata bench engine: bad option %s%s%s\n", name,
                    val != NULL ? " " : "", val != NULL ? val : " (missing value)");
            return -1;
        }
    }
    if (parse_workloads(c) != 0 || parse_engines(c) != 0)
        return -1;
    return 0;
}

static void cli_defaults(cli *c)
{
    memset(c, 0, sizeof(*c));
    c->plan.num = DEFAULT_NUM;
    c->plan.value_size = DEFAULT_VALUE_SIZE;
    c->plan.db.block_cache_bytes = 64u << 20;
    c->plan.db.write_buffer_bytes = 64u << 20;
    c->plan.db.block_size = 4096;
    c->plan.db.bloom_bits_per_key = 10;
    c->threads = DEFAULT_SYNC_THREADS;
    c->repeat = 1;
    c->spread_pct = DEFAULT_SPREAD_PCT;
    c->parent_dir = "/tmp";
}

/* ---- running the engines ---- */

static double ops_per_sec(const bench_result *r)
{
    return r->seconds > 0 ? (double)r->ops / r->seconds : 0.0;
}

static double mb_per_sec(const bench_result *r)
{
    return r->seconds > 0 ? (double)r->bytes / MIB / r->seconds : 0.0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path) == 0 ? 0 : -1;
}

static void child_main(const cli *c, const bench_db_ops *ops, int fd)
{
    if (getenv("STRATA_LOG_LEVEL") == NULL)
        log_set_level(LOG_LEVEL_WARN);
    int rc = bench_run_engine(&c->plan, ops, fd);
    close(fd);
    _exit(rc == ST_OK ? 0 : 1);
}

/* Reads results until the child closes the pipe. */
static void read_results(int fd, outcome *o)
{
    bench_result r;
    size_t got = 0;
    for (;;) {
        ssize_t n = read(fd, (char *)&r + got, sizeof(r) - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
        if (got < sizeof(r))
            continue;
        got = 0;
        if (o->nres < BENCH_MAX_WORKLOADS)
            o->res[o->nres++] = r;
    }
}

static void note_exit(const cli *c, outcome *o, int status)
{
    bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    for (size_t i = 0; i < o->nres; i++)
        o->failed |= o->res[i].status != ST_OK;
    if (WIFSIGNALED(status))
        fprintf(stderr,
                "strata bench engine: %s: process killed by signal %d after %zu of %zu "
                "workloads\n",
                o->ops->name, WTERMSIG(status), o->nres, c->plan.nworkloads);
    else if (!ok && !o->failed)
        fprintf(stderr, "strata bench engine: %s: process failed after %zu of %zu workloads\n",
                o->ops->name, o->nres, c->plan.nworkloads);
    o->failed |= !ok || o->nres < c->plan.nworkloads;
}

static void run_engine(const cli *c, outcome *o)
{
    int fds[2], status = 0;
    struct rusage ru;
    if (pipe2(fds, O_CLOEXEC) != 0) {
        fprintf(stderr, "strata bench engine: pipe: %s\n", strerror(errno));
        o->failed = true;
        return;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        child_main(c, o->ops, fds[1]);
    }
    close(fds[1]);
    if (pid < 0) {
        fprintf(stderr, "strata bench engine: fork: %s\n", strerror(errno));
        close(fds[0]);
        o->failed = true;
        return;
    }
    read_results(fds[0], o);
    close(fds[0]);
    memset(&ru, 0, sizeof(ru));
    while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
        ;
    o->peak_rss_kb = ru.ru_maxrss;
    for (size_t i = 0; i < o->nres; i++)
        o->peak_rss_kb =
            o->res[i].peak_rss_kb > o->peak_rss_kb ? o->res[i].peak_rss_kb : o->peak_rss_kb;
    note_exit(c, o, status);
}

/* ---- repeated runs ---- */

/* Folds one run of an engine (one) into its outcome acc: the first run's results, a
 * later run's failure in their place, the highest peak RSS, each run's ops/s. */
static void outcome_add(outcome *acc, const outcome *one)
{
    size_t run = acc->runs++;
    if (run == 0) {
        memcpy(acc->res, one->res, sizeof(acc->res));
        acc->nres = one->nres;
    }
    acc->nres = one->nres < acc->nres ? one->nres : acc->nres;
    acc->failed |= one->failed;
    acc->peak_rss_kb = one->peak_rss_kb > acc->peak_rss_kb ? one->peak_rss_kb : acc->peak_rss_kb;
    for (size_t w = 0; w < one->nres; w++) {
        bench_result *r = &acc->res[w];
        acc->rate[run][w] = ops_per_sec(&one->res[w]);
        if (w < acc->nres && r->status == ST_OK && one->res[w].status != ST_OK)
            *r = one->res[w];
        else if (w < acc->nres && one->res[w].peak_rss_kb > r->peak_rss_kb)
            r->peak_rss_kb = one->res[w].peak_rss_kb;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sets each succeeded workload's ops_min, ops_max and spread_pct over the runs and,
 * with more than one run, its seconds to ops / median ops/s, so that ops/s and MB/s
 * read from res[w] are the medians (for an even count, the mean of the middle two). */
static void outcome_finish(outcome *o)
{
    double v[MAX_REPEAT];
    for (size_t w = 0; w < o->nres && o->runs > 0; w++) {
        bench_result *r = &o->res[w];
        if (r->status != ST_OK)
            continue;
        for (size_t i = 0; i < o->runs; i++)
            v[i] = o->rate[i][w];
        qsort(v, o->runs, sizeof(v[0]), cmp_double);
        size_t mid = o->runs / 2;
        double median = o->runs % 2 != 0 ? v[mid] : (v[mid - 1] + v[mid]) / 2.0;
        o->ops_min[w] = v[0];
        o->ops_max[w] = v[o->runs - 1];
        o->spread_pct[w] = median > 0 ? (o->ops_max[w] - o->ops_min[w]) / median * 100.0 / 2.0 : 0;
        if (o->runs > 1 && median > 0)
            r->seconds = (double)r->ops / median;
    }
}

/* ---- output ---- */

/* The result of workload w on engine e, or NULL if it did not succeed. */
static const bench_result *result_at(const outcome *o, size_t w)
{
    if (w >= o->nres || o->res[w].status != ST_OK)
        return NULL;
    return &o->res[w];
}

/* Strata's ops/s over the peer's for workload w; 0 if either is missing. */
static double strata_ratio(const outcome *os, size_t e, size_t w)
{
    const bench_result *s = os[0].ops == bench_strata_ops() ? result_at(&os[0], w) : NULL;
    const bench_result *p = result_at(&os[e], w);
    if (s == NULL || p == NULL || ops_per_sec(p) <= 0)
        return 0.0;
    return ops_per_sec(s) / ops_per_sec(p);
}

/* This engine's fillsync<T> ops/s over its fillsync ops/s; 0 if not both ran. */
static double group_commit_speedup(const cli *c, const outcome *o, size_t w)
{
    const bench_workload *wl = &c->plan.workloads[w];
    const bench_result *multi = result_at(o, w);
    if (wl->kind != BENCH_FILLSYNC || wl->threads < 2 || multi == NULL)
        return 0.0;
    for (size_t i = 0; i < c->plan.nworkloads; i++) {
        const bench_result *one = result_at(o, i);
        bool single =
            c->plan.workloads[i].kind == BENCH_FILLSYNC && c->plan.workloads[i].threads == 1;
        if (single && one != NULL && ops_per_sec(one) > 0)
            return ops_per_sec(multi) / ops_per_sec(one);
    }
    return 0.0;
}

static void json_line(const cli *c, const outcome *os, size_t e, size_t w)
{
    const outcome *o = &os[e];
    const bench_result *r = w < o->nres ? &o->res[w] : NULL;
    printf("{\"workload\":");
    bench_json_string(c->plan.workloads[w].name);
    printf(",\"engine\":\"%s\"", o->ops->name);
    if (r == NULL || r->status != ST_OK) {
        printf(",\"error\":");
        bench_json_string(r != NULL ? r->error : "no result (the engine's process died)");
        printf("}\n");
        return;
    }
    printf(",\"ops\":%" PRIu64 ",\"seconds\":%.6f,\"ops_per_sec\":%.1f,\"mb_per_sec\":%.3f"
           ",\"peak_rss_kb\":%ld,\"engine_peak_rss_kb\":%ld,\"found\":%" PRIu64
           ",\"expected\":%" PRIu64 ",\"errors\":%" PRIu64,
           r->ops, r->seconds, ops_per_sec(r), mb_per_sec(r), r->peak_rss_kb, o->peak_rss_kb,
           r->found, r->expected, r->errors);
    printf(",\"runs\":%zu,\"ops_min\":%.1f,\"ops_max\":%.1f,\"spread_pct\":%.2f", o->runs,
           o->ops_min[w], o->ops_max[w], o->spread_pct[w]);
    for (size_t p = 1; e == 0 && p < c->neng; p++)
        if (strata_ratio(os, p, w) > 0)
            printf(",\"ratio_vs_%s\":%.3f", os[p].ops->name, strata_ratio(os, p, w));
    if (group_commit_speedup(c, o, w) > 0)
        printf(",\"speedup_vs_fillsync\":%.2f", group_commit_speedup(c, o, w));
    printf("}\n");
}

static void describe_workload(const cli *c, size_t w, char *out, size_t len)
{
    const bench_workload *wl = &c->plan.workloads[w];
    uint64_t n = c->plan.num;
    switch (wl->kind) {
    case BENCH_FILLSEQ:
        snprintf(out, len, "%" PRIu64 " puts, keys in order, fresh DB", n);
        break;
    case BENCH_FILLRANDOM:
        snprintf(out, len, "%" PRIu64 " puts, uniform random keys, fresh DB", n);
        break;
    case BENCH_OVERWRITE:
        snprintf(out, len, "%" PRIu64 " random puts over the current DB", n);
        break;
    case BENCH_READRANDOM:
        snprintf(out, len, "%" PRIu64 " random gets; found = keys present / keys written", n);
        break;
    case BENCH_READSEQ:
        snprintf(out, len, "one forward scan; ops = entries read");
        break;
    case BENCH_SEEKRANDOM:
        snprintf(out, len, "%" PRIu64 " random seeks, each + up to %d nexts; ops = seeks",
                 n / 10 > 0 ? n / 10 : 1, BENCH_SEEK_NEXTS);
        break;
    case BENCH_FILLSYNC:
        snprintf(out, len, "random puts, each fsync'ed, %d writer%s x %" PRIu64 ", fresh DB",
                 wl->threads, wl->threads > 1 ? "s" : "",
                 n / 100 / (uint64_t)wl->threads > 0 ? n / 100 / (uint64_t)wl->threads : 1);
        break;
    }
}

static void table_row(const cli *c, const outcome *os, size_t e, size_t w)
{
    const outcome *o = &os[e];
    const bench_result *r = w < o->nres ? &o->res[w] : NULL;
    char ratio[32] = "-";
    if (r == NULL || r->status != ST_OK) {
        printf("  %-8s FAILED: %s\n", o->ops->name,
               r != NULL ? r->error : "no result (the engine's process died)");
        return;
    }
    if (e > 0 && strata_ratio(os, e, w) > 0)
        snprintf(ratio, sizeof(ratio), "%.2fx", strata_ratio(os, e, w));
    printf("  %-8s %12.1f", o->ops->name, ops_per_sec(r));
    if (c->repeat > 1) {
        char spread[32];
        snprintf(spread, sizeof(spread), "±%.1f%%", o->spread_pct[w]);
        printf(" %9s", spread); /* 9 bytes: '±' is two of them, so 8 columns */
    }
    printf(" %9.2f %9.3f %12s %9.1f MiB", mb_per_sec(r), r->seconds, ratio,
           (double)r->peak_rss_kb / 1024.0);
    bench_kind k = c->plan.workloads[w].kind;
    if (k == BENCH_READRANDOM || k == BENCH_SEEKRANDOM || k == BENCH_READSEQ)
        printf("   found %" PRIu64 "/%" PRIu64, r->found, r->expected);
    printf("\n");
}

static void print_table(const cli *c, const outcome *os, size_t w)
{
    char what[160];
    describe_workload(c, w, what, sizeof(what));
    printf("\n%s  (%s)\n", c->plan.workloads[w].name, what);
    printf("  %-8s %12s", "engine", "ops/s");
    if (c->repeat > 1)
        printf(" %8s", "spread");
    printf(" %9s %9s %12s %13s\n", "MB/s", "seconds", "strata/this", "peak RSS");
    for (size_t e = 0; e < c->neng; e++)
        table_row(c, os, e, w);
}

static void print_header(const cli *c, const char *run_dir)
{
    printf("strata bench engine: %" PRIu64 " entries, %d-byte keys, %zu-byte values "
           "(db_bench data: half random, compressible to 50%%)\n",
           c->plan.num, BENCH_KEY_LEN, c->plan.value_size);
    printf("  every engine: WAL on (fsync only in fillsync), no compression, %zu MiB LRU block "
           "cache, %zu MiB write buffer,\n  %zu-byte blocks, bloom %d bits/key, its own "
           "process; Strata: one region, cf:q, SYNC_WAL puts\n",
           c->plan.db.block_cache_bytes >> 20, c->plan.db.write_buffer_bytes >> 20,
           c->plan.db.block_size, c->plan.db.bloom_bits_per_key);
    printf("  engines:");
    for (size_t e = 0; e < c->neng; e++)
        printf(" %s", c->eng[e]->name);
    printf("; dir %s\n", run_dir);
    if (c->repeat > 1)
        printf("  %d runs of each engine: ops/s and MB/s are the medians, seconds = ops / median "
               "ops/s,\n  spread = (max - min) / median / 2 of ops/s, peak RSS the highest\n",
               c->repeat);
}

static void print_summary(const cli *c, const outcome *os)
{
    printf("\npeak RSS over the whole run:");
    for (size_t e = 0; e < c->neng; e++)
        printf("  %s %.1f MiB", os[e].ops->name, (double)os[e].peak_rss_kb / 1024.0);
    printf("\n");
    for (size_t w = 0; w < c->plan.nworkloads; w++) {
        bool any = false;
        for (size_t e = 0; e < c->neng; e++) {
            double s = group_commit_speedup(c, &os[e], w);
            if (s > 0 && !any)
                printf("group commit (%s ops/s / fillsync ops/s, target >= 4x):",
                       c->plan.workloads[w].name);
            if (s > 0)
                printf("  %s %.2fx", os[e].ops->name, s);
            any |= s > 0;
        }
        if (any)
            printf("\n");
    }
}

static void report(const cli *c, const outcome *os)
{
    for (size_t w = 0; w < c->plan.nworkloads; w++) {
        if (!c->json)
            print_table(c, os, w);
        for (size_t e = 0; c->json && e < c->neng; e++)
            json_line(c, os, e, w);
    }
    if (!c->json)
        print_summary(c, os);
    fflush(stdout);
}

/* Prints the comparison with the baseline; returns how many pairs regressed or failed. */
static size_t compare(const cli *c, const outcome *os)
{
    static bench_compare_row rows[MAX_ENGINES * BENCH_MAX_WORKLOADS];
    size_t n = 0;
    for (size_t w = 0; w < c->plan.nworkloads; w++)
        for (size_t e = 0; e < c->neng; e++) {
            const bench_result *r = result_at(&os[e], w);
            rows[n++] = (bench_compare_row){.workload = c->plan.workloads[w].name,
                                            .engine = os[e].ops->name,
                                            .ok = r != NULL,
                                            .ops_per_sec = r != NULL ? ops_per_sec(r) : 0.0};
        }
    return bench_compare_report(c->baseline, rows, n, c->spread_pct, c->json);
}

/* Runs every engine c->repeat times, round by round (engine order within a round). */
static void run_rounds(const cli *c, outcome *os)
{
    static outcome one;
    for (int run = 1; run <= c->repeat; run++) {
        for (size_t e = 0; e < c->neng; e++) {
            memset(&one, 0, sizeof(one));
            one.ops = os[e].ops = c->eng[e];
            if (!c->json && c->repeat > 1)
                fprintf(stderr, "bench: running %s (run %d of %d) ...\n", c->eng[e]->name, run,
                        c->repeat);
            else if (!c->json)
                fprintf(stderr, "bench: running %s ...\n", c->eng[e]->name);
            run_engine(c, &one);
            outcome_add(&os[e], &one);
        }
    }
    for (size_t e = 0; e < c->neng; e++)
        outcome_finish(&os[e]);
}

static int run_all(cli *c, outcome *os)
{
    char run_dir[PATH_MAX];
    uint8_t *values = NULL;
    int failed = 0;
    snprintf(run_dir, sizeof(run_dir), "%s/strata-bench-XXXXXX", c->parent_dir);
    if (mkdtemp(run_dir) == NULL) {
        fprintf(stderr, "strata bench engine: mkdtemp %s: %s\n", run_dir, strerror(errno));
        return 1;
    }
    if (bench_value_pool(c->plan.value_size, &values, &c->plan.values_len) != ST_OK) {
        fprintf(stderr, "strata bench engine: %s\n", st_errmsg());
        nftw(run_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
        return 1;
    }
    c->plan.values = values;
    c->plan.run_dir = run_dir;
    if (!c->json)
        print_header(c, run_dir);
    run_rounds(c, os);
    for (size_t e = 0; e < c->neng; e++)
        failed |= os[e].failed;
    nftw(run_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    c->plan.values = NULL;
    c->plan.run_dir = NULL;
    free(values);
    report(c, os);
    if (c->baseline != NULL && compare(c, os) > 0)
        failed = 1;
    return failed ? 1 : 0;
}

static int bench_engine_main(int argc, char **argv)
{
    static cli c;
    static outcome os[MAX_ENGINES];
    cli_defaults(&c);
    memset(os, 0, sizeof(os));
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout, true);
            return 0;
        }
    }
    if (parse_args(&c, argc, argv) != 0) {
        usage(stderr, false);
        return 2;
    }
    if (c.compare != NULL && bench_compare_load(c.compare, &c.baseline) != ST_OK) {
        fprintf(stderr, "strata bench engine: %s\n", st_errmsg());
        return 2;
    }
    int rc = run_all(&c, os);
    bench_compare_free(c.baseline);
    c.baseline = NULL;
    return rc;
}

int bench_main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "engine") == 0)
        return bench_engine_main(argc, argv);
    if (argc >= 2 && strcmp(argv[1], "failover") == 0)
        return bench_failover_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "ycsb") == 0)
        return bench_ycsb_main(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "rest") == 0)
        return bench_rest_main(argc - 1, argv + 1);
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0)) {
        char *help_argv[] = {argv[0], (char *)"--help", NULL};
        bench_cluster_main(2, help_argv); /* the cluster benchmark's options first */
        printf("\n");
        usage(stdout, true);
        printf("\n");
        char *fo_argv[] = {(char *)"failover", (char *)"--help", NULL};
        bench_failover_main(2, fo_argv);
        printf("\n");
        char *ycsb_argv[] = {(char *)"ycsb", (char *)"--help", NULL};
        bench_ycsb_main(2, ycsb_argv);
        printf("\n");
        char *rest_argv[] = {(char *)"rest", (char *)"--help", NULL};
        bench_rest_main(2, rest_argv);
        return 0;
    }
    if (argc >= 2)
        return bench_cluster_main(argc, argv);
    usage(stderr, false);
    return 2;
}
