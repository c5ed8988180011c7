/*
 * bench_cluster.c - `strata bench` cluster mode: HBase PerformanceEvaluation's shapes
 * (which follow Bigtable's §7) against one region server through the C client.
 *
 *   strata bench [--rows N] [--threads T] [--value-size B] [--json]
 *                [--server host:port | --zk.quorum Q [--zk.parent P] | --dir D]
 *                [--regions R] [--rate OPS] WORKLOAD...
 *   WORKLOAD: sequentialWrite randomWrite sequentialRead randomRead scan
 *
 * Keys are 26-byte zero-padded decimals (PE's format), values incompressible random
 * bytes, one column info:0 in table TestTable; writes go through the buffered mutator
 * (2 MB). Without --server a private region server is started on a free loopback port
 * with its own root directory and a 2 GiB block cache (reads from memory, as in
 * Bigtable's figures), and stopped at the end. The table's regions (R, split
 * evenly over the key space) are opened on the server with AdminService.OpenRegion.
 * Each workload prints ops/s and p50/p95/p99/p999 latency of one operation (a get, a
 * buffered put, a scanner next). When redis-server and redis-benchmark are installed,
 * GET and SET with the same value size and concurrency run against a private Redis
 * and Strata/Redis ratios are printed. --rate paces the gets and puts to a total
 * number of operations per second (for latency at a given load, e.g. half of the
 * peak). Every loop is bounded by --rows.
 *
 * With --zk.quorum (or --dir D, a local cluster from `strata cluster`), the benchmark runs
 * against a whole cluster instead: it (re)creates TestTable through the master with the R
 * regions split at the same keys, lets the master place them over the region servers, and
 * finds them through the master like any client.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "client/admin_rpc.h"
#include "common/clock.h"
#include "common/fileio.h"
#include "common/proto/admin.pb-c.h"
#include "common/rpc/rpc_client.h"
#include "common/status.h"
#include "strata/strata.h"
#include "tools/bench_redis.h"
#include "tools/tools.h"

#define KEY_LEN 26
#define TABLE "TestTable"
#define FAMILY "info"
#define QUALIFIER "0"
#define READY_WAIT_MS 20000
#define MAX_REGIONS 64

typedef struct cluster_opts {
    long rows;
    int threads;
    int value_size;
    bool json;
    const char *server;
    const char *quorum; /* cluster target: ZooKeeper quorum */
    const char *parent;
    const char *dir; /* cluster target: a local cluster directory */
    char dir_quorum[128];
    int regions;
    double rate; /* total ops/s to pace gets and puts at; 0 = as fast as possible */
    const char *workloads[8];
    int nworkloads;
} cluster_opts;

typedef struct private_server {
    pid_t pid;
    char dir[256];
    char addr[128];
} private_server;

typedef struct workload_result {
    const char *name;
    long ops;
    double seconds;
    double p50_us, p95_us, p99_us, p999_us;
    long errors;
    long found;
} workload_result;

static void usage(FILE *out)
{
    fprintf(out, "usage: strata bench [--rows N] [--threads T] [--value-size B] [--json]\n"
                 "                    [--server host:port | --zk.quorum Q [--zk.parent P] | --dir D]\n"
                 "                    [--regions R] [--rate OPS] WORKLOAD...\n"
                 "  WORKLOAD: sequentialWrite randomWrite sequentialRead randomRead scan\n"
                 "  (strata bench engine ... runs the storage-engine benchmark)\n");
}

static const char *const known_workloads[] = {"sequentialWrite", "randomWrite", "sequentialRead",
                                              "randomRead", "scan"};

static bool known(const char *w)
{
    for (size_t i = 0; i < sizeof(known_workloads) / sizeof(known_workloads[0]); i++)
        if (strcmp(w, known_workloads[i]) == 0)
            return true;
    return false;
}

static int parse_args(int argc, char **argv, cluster_opts *o)
{
    *o = (cluster_opts){.rows = 100000, .threads = 4, .value_size = 1000, .regions = 1};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--json") == 0) {
            o->json = true;
        } else if (v && strcmp(a, "--rows") == 0) {
            o->rows = atol(v), i++;
        } else if (v && strcmp(a, "--threads") == 0) {
            o->threads = atoi(v), i++;
        } else if (v && strcmp(a, "--value-size") == 0) {
            o->value_size = atoi(v), i++;
        } else if (v && strcmp(a, "--server") == 0) {
            o->server = v, i++;
        } else if (v && strcmp(a, "--zk.quorum") == 0) {
            o->quorum = v, i++;
        } else if (v && strcmp(a, "--zk.parent") == 0) {
            o->parent = v, i++;
        } else if (v && strcmp(a, "--dir") == 0) {
            o->dir = v, i++;
        } else if (v && strcmp(a, "--regions") == 0) {
            o->regions = atoi(v), i++;
        } else if (v && strcmp(a, "--rate") == 0) {
            o->rate = atof(v), i++;
        } else if (a[0] != '-' && known(a) && o->nworkloads < 8) {
            o->workloads[o->nworkloads++] = a;
        } else {
            fprintf(stderr, "strata bench: bad argument '%s'\n", a);
            return 2;
        }
    }
    if (o->rows <= 0 || o->threads <= 0 || o->threads > 256 || o->value_size <= 0 || o->rate < 0 ||
        o->regions <= 0 || o->regions > MAX_REGIONS || o->nworkloads == 0) {
        fprintf(stderr, "strata bench: need rows > 0, 1..256 threads, value size > 0, "
                        "1..%d regions and at least one workload\n",
                MAX_REGIONS);
        return 2;
    }
    if ((o->server != NULL) + (o->quorum != NULL) + (o->dir != NULL) > 1) {
        fprintf(stderr, "strata bench: give one of --server, --zk.quorum and --dir\n");
        return 2;
    }
    return 0;
}

/* ---------------------------------------------------------------- private server */

static int start_private_server(private_server *ps)
{
    snprintf(ps->dir, sizeof(ps->dir), "/tmp/strata-bench-rs-XXXXXX");
    if (!mkdtemp(ps->dir))
        return st_error(ST_IO, "bench: mkdtemp: %s", strerror(errno));
    char root[320], ready[320], log[320];
    snprintf(root, sizeof(root), "--root.dir=%s/root", ps->dir);
    snprintf(ready, sizeof(ready), "%s/ready", ps->dir);
    snprintf(log, sizeof(log), "%s/regionserver.log", ps->dir);
    char ready_arg[400];
    snprintf(ready_arg, sizeof(ready_arg), "--regionserver.ready.file=%s", ready);
    ps->pid = fork();
    if (ps->pid < 0)
        return st_error(ST_IO, "bench: fork: %s", strerror(errno));
    if (ps->pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
        }
        /* A block cache that holds the whole table: PE's reads are "from memory". */
        execl("/proc/self/exe", "strata", "regionserver", root, "--regionserver.port=0",
              "--regionserver.block.cache.size=2g", ready_arg, (char *)NULL);
        _exit(127);
    }
    uint64_t end = clock_mono_ns() + (uint64_t)READY_WAIT_MS * 1000000ull;
    buf_t b = {0};
    while (clock_mono_ns() < end) {
        if (fio_exists(ready) && fio_read_all(ready, &b) == ST_OK && b.len > 1) {
            snprintf(ps->addr, sizeof(ps->addr), "%.*s", (int)strcspn((char *)b.data, "\n"),
                     (char *)b.data);
            buf_free(&b);
            return ST_OK;
        }
        if (waitpid(ps->pid, NULL, WNOHANG) == ps->pid) {
            ps->pid = 0;
            break;
        }
        clock_sleep_ms(20);
    }
    buf_free(&b);
    return st_error(ST_TIMEOUT, "bench: the private region server did not become ready (log %s)",
                    log);
}

static void stop_private_server(private_server *ps)
{
    if (ps->pid > 0) {
        kill(ps->pid, SIGTERM);
        uint64_t end = clock_mono_ns() + 30000ull * 1000000ull;
        while (clock_mono_ns() < end && waitpid(ps->pid, NULL, WNOHANG) != ps->pid)
            clock_sleep_ms(20);
        if (kill(ps->pid, 0) == 0) {
            kill(ps->pid, SIGKILL);
            waitpid(ps->pid, NULL, 0);
        }
    }
    if (ps->dir[0])
        fio_remove_tree(ps->dir);
}

/* ---------------------------------------------------------------- keys and regions */

static void format_key(long k, char *out)
{
    char tmp[KEY_LEN + 8];
    snprintf(tmp, sizeof(tmp), "%026ld", k);
    memcpy(out, tmp, KEY_LEN);
}

/* Region i covers [split(i), split(i+1)) with split(0) = split(R) = unbounded. */
static void region_bounds(const cluster_opts *o, int i, char *start, size_t *slen, char *end,
                          size_t *elen)
{
    *slen = *elen = 0;
    if (i > 0) {
        format_key(o->rows * i / o->regions, start);
        *slen = KEY_LEN;
    }
    if (i + 1 < o->regions) {
        format_key(o->rows * (i + 1) / o->regions, end);
        *elen = KEY_LEN;
    }
}

static int open_regions(const cluster_opts *o, const char *addr)
{
    rpc_client *rc = NULL;
    int st = rpc_client_new(NULL, &rc);
    if (st != ST_OK)
        return st;
    for (int i = 0; i < o->regions && st == ST_OK; i++) {
        char start[KEY_LEN], end[KEY_LEN], name[64];
        size_t slen, elen;
        region_bounds(o, i, start, &slen, end, &elen);
        snprintf(name, sizeof(name), "bench%04d", i);
        Strata__Admin__ColumnFamilySchema fam = STRATA__ADMIN__COLUMN_FAMILY_SCHEMA__INIT;
        fam.name = (char *)FAMILY;
        Strata__Admin__ColumnFamilySchema *fams[1] = {&fam};
        Strata__Admin__TableSchema schema = STRATA__ADMIN__TABLE_SCHEMA__INIT;
        schema.name = (char *)TABLE;
        schema.n_family = 1;
        schema.family = fams;
        Strata__Admin__RegionInfo ri = STRATA__ADMIN__REGION_INFO__INIT;
        ri.table = (char *)TABLE;
        ri.encoded_name = name;
        ri.has_start_key = slen > 0;
        ri.start_key = (ProtobufCBinaryData){slen, (uint8_t *)start};
        ri.has_end_key = elen > 0;
        ri.end_key = (ProtobufCBinaryData){elen, (uint8_t *)end};
        ri.has_region_id = 1;
        ri.region_id = (uint64_t)i + 1;
        Strata__Admin__OpenRegionRequest__RegionOpenInfo info =
            STRATA__ADMIN__OPEN_REGION_REQUEST__REGION_OPEN_INFO__INIT;
        info.region = &ri;
        info.schema = &schema;
        Strata__Admin__OpenRegionRequest__RegionOpenInfo *infos[1] = {&info};
        Strata__Admin__OpenRegionRequest req = STRATA__ADMIN__OPEN_REGION_REQUEST__INIT;
        req.n_open_info = 1;
        req.open_info = infos;
        size_t n = strata__admin__open_region_request__get_packed_size(&req);
        uint8_t *bytes = malloc(n);
        strata__admin__open_region_request__pack(&req, bytes);
        buf_t resp = {0};
        st = rpc_client_call(rc, addr, "AdminService.OpenRegion", bytes, n, 60000, &resp);
        free(bytes);
        if (st == ST_OK) {
            Strata__Admin__OpenRegionResponse *r =
                strata__admin__open_region_response__unpack(NULL, resp.len, resp.data);
            if (!r || r->n_opening_state != 1 ||
                r->opening_state[0] ==
                    STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__FAILED_OPENING)
                st = st_error(ST_IO, "bench: region %s did not open on %s", name, addr);
            if (r)
                strata__admin__open_region_response__free_unpacked(r, NULL);
        }
        buf_free(&resp);
    }
    rpc_client_free(rc);
    return st;
}

/* ---------------------------------------------------------------- workloads */

typedef struct worker {
    const cluster_opts *o;
    strata_table_t *table;
    const char *workload;
    int id;
    long first, count; /* this thread's share of the key space */
    uint32_t *lat_us;  /* one per op */
    long ops;
    long errors;
    long found;
    uint64_t rng;
} worker;

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* With --rate, waits until this thread's i-th operation is due. */
static void pace(worker *w, uint64_t start_ns, long i)
{
    if (w->o->rate <= 0)
        return;
    double per_thread = w->o->rate / w->o->threads;
    uint64_t due = start_ns + (uint64_t)((double)i * 1e9 / per_thread);
    uint64_t now = clock_mono_ns();
    if (due > now) {
        struct timespec ts = {(time_t)((due - now) / 1000000000ull),
                              (long)((due - now) % 1000000000ull)};
        nanosleep(&ts, NULL);
    }
}

static void record(worker *w, uint64_t t0)
{
    uint64_t us = (clock_mono_ns() - t0) / 1000;
    if (w->ops < w->count)
        w->lat_us[w->ops] = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
    w->ops++;
}

static void run_writes(worker *w, bool random)
{
    strata_mutator_t *m = strata_mutator_create(w->table, 2u << 20);
    char *value = malloc((size_t)w->o->value_size);
    char key[KEY_LEN];
    char *err = NULL;
    uint64_t start = clock_mono_ns();
    for (long i = 0; i < w->count; i++) {
        long k = random ? (long)(next_rand(&w->rng) % (uint64_t)w->o->rows) : w->first + i;
        format_key(k, key);
        pace(w, start, i);
        for (int b = 0; b + 8 <= w->o->value_size; b += 8) {
            uint64_t r = next_rand(&w->rng);
            memcpy(value + b, &r, 8);
        }
        strata_mutation_t *put = strata_put_create(key, KEY_LEN);
        strata_put_add(put, FAMILY, strlen(FAMILY), QUALIFIER, 1, STRATA_LATEST_TIMESTAMP, value,
                       (size_t)w->o->value_size);
        uint64_t t0 = clock_mono_ns();
        strata_mutator_mutate(m, put, &err);
        record(w, t0);
        strata_mutation_destroy(put);
        if (err) {
            w->errors++;
            strata_free(err);
            err = NULL;
        }
    }
    strata_mutator_close(m, &err);
    if (err) {
        w->errors++;
        strata_free(err);
    }
    free(value);
}

static void run_reads(worker *w, bool random)
{
    char key[KEY_LEN];
    char *err = NULL;
    uint64_t start = clock_mono_ns();
    for (long i = 0; i < w->count; i++) {
        long k = random ? (long)(next_rand(&w->rng) % (uint64_t)w->o->rows) : w->first + i;
        format_key(k, key);
        pace(w, start, i);
        strata_get_t *g = strata_get_create(key, KEY_LEN);
        uint64_t t0 = clock_mono_ns();
        strata_result_t *r = strata_table_get(w->table, g, &err);
        record(w, t0);
        if (err) {
            w->errors++;
            strata_free(err);
            err = NULL;
        } else if (r && strata_result_cell_count(r) > 0) {
            w->found++;
        }
        strata_result_destroy(r);
        strata_get_destroy(g);
    }
}

static void run_scan(worker *w)
{
    char start[KEY_LEN], stop[KEY_LEN];
    char *err = NULL;
    format_key(w->first, start);
    format_key(w->first + w->count, stop);
    strata_scan_t *s = strata_scan_create();
    strata_scan_set_start(s, start, KEY_LEN);
    strata_scan_set_stop(s, stop, KEY_LEN);
    strata_scan_set_caching(s, 100);
    strata_scanner_t *sc = strata_table_scan(w->table, s, &err);
    while (sc && !err && w->ops < w->count) {
        uint64_t t0 = clock_mono_ns();
        strata_result_t *r = strata_scanner_next(sc, &err);
        if (!r)
            break;
        record(w, t0);
        w->found++;
        strata_result_destroy(r);
    }
    if (err) {
        w->errors++;
        strata_free(err);
    }
    strata_scanner_close(sc);
    strata_scan_destroy(s);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    const char *wl = w->workload;
    if (strcmp(wl, "sequentialWrite") == 0)
        run_writes(w, false);
    else if (strcmp(wl, "randomWrite") == 0)
        run_writes(w, true);
    else if (strcmp(wl, "sequentialRead") == 0)
        run_reads(w, false);
    else if (strcmp(wl, "randomRead") == 0)
        run_reads(w, true);
    else
        run_scan(w);
    return NULL;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static double pct(const uint32_t *v, size_t n, double p)
{
    if (n == 0)
        return 0;
    size_t i = (size_t)(p * (double)(n - 1));
    return v[i];
}

static int run_workload(const cluster_opts *o, strata_table_t *t, const char *wl,
                        workload_result *res)
{
    worker *ws = calloc((size_t)o->threads, sizeof(*ws));
    pthread_t *th = calloc((size_t)o->threads, sizeof(*th));
    if (!ws || !th) {
        free(ws);
        free(th);
        return ST_NOMEM;
    }
    long per = o->rows / o->threads;
    for (int i = 0; i < o->threads; i++) {
        ws[i] = (worker){.o = o, .table = t, .workload = wl, .id = i, .first = per * i,
                         .count = i + 1 == o->threads ? o->rows - per * i : per,
                         .rng = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1) ^ clock_mono_ns()};
        ws[i].lat_us = calloc((size_t)ws[i].count + 1, sizeof(uint32_t));
    }
    uint64_t t0 = clock_mono_ns();
    for (int i = 0; i < o->threads; i++)
        pthread_create(&th[i], NULL, worker_main, &ws[i]);
    for (int i = 0; i < o->threads; i++)
        pthread_join(th[i], NULL);
    double secs = (double)(clock_mono_ns() - t0) / 1e9;
    size_t total = 0;
    memset(res, 0, sizeof(*res));
    res->name = wl;
    for (int i = 0; i < o->threads; i++) {
        total += (size_t)(ws[i].ops < ws[i].count ? ws[i].ops : ws[i].count);
        res->ops += ws[i].ops;
        res->errors += ws[i].errors;
        res->found += ws[i].found;
    }
    uint32_t *all = malloc((total ? total : 1) * sizeof(uint32_t));
    size_t k = 0;
    for (int i = 0; i < o->threads; i++) {
        long n = ws[i].ops < ws[i].count ? ws[i].ops : ws[i].count;
        memcpy(all + k, ws[i].lat_us, (size_t)n * sizeof(uint32_t));
        k += (size_t)n;
        free(ws[i].lat_us);
    }
    qsort(all, total, sizeof(uint32_t), cmp_u32);
    res->seconds = secs;
    res->p50_us = pct(all, total, 0.50);
    res->p95_us = pct(all, total, 0.95);
    res->p99_us = pct(all, total, 0.99);
    res->p999_us = pct(all, total, 0.999);
    free(all);
    free(ws);
    free(th);
    return ST_OK;
}

static void print_result(const cluster_opts *o, const workload_result *r, const char *addr)
{
    double rate = r->seconds > 0 ? (double)r->ops / r->seconds : 0;
    if (o->json) {
        printf("{\"workload\":\"%s\",\"server\":\"%s\",\"rows\":%ld,\"threads\":%d,"
               "\"value_size\":%d,\"ops\":%ld,\"seconds\":%.3f,\"ops_per_sec\":%.1f,"
               "\"p50_ms\":%.3f,\"p95_ms\":%.3f,\"p99_ms\":%.3f,\"p999_ms\":%.3f,"
               "\"errors\":%ld,\"found\":%ld}\n",
               r->name, addr, o->rows, o->threads, o->value_size, r->ops, r->seconds, rate,
               r->p50_us / 1000, r->p95_us / 1000, r->p99_us / 1000, r->p999_us / 1000,
               r->errors, r->found);
        return;
    }
    printf("%-16s %10.1f ops/s  %8.3f s  p50 %.3f ms  p95 %.3f ms  p99 %.3f ms  p999 %.3f ms"
           "  errors %ld%s",
           r->name, rate, r->seconds, r->p50_us / 1000, r->p95_us / 1000, r->p99_us / 1000,
           r->p999_us / 1000, r->errors, strstr(r->name, "Read") || !strcmp(r->name, "scan") ? "" : "\n");
    if (strstr(r->name, "Read") || !strcmp(r->name, "scan"))
        printf("  found %ld/%ld\n", r->found, r->ops);
}

static void print_redis(const cluster_opts *o, const workload_result *res, int n)
{
    bench_redis_result rr;
    if (o->rate > 0)
        return; /* a paced run is about latency, not a throughput comparison */
    if (!bench_redis_available()) {
        if (!o->json)
            printf("redis: redis-server/redis-benchmark not installed; no Redis comparison\n");
        return;
    }
    if (bench_redis_run(o->value_size, o->threads, o->rows, &rr) != ST_OK) {
        fprintf(stderr, "strata bench: redis comparison failed: %s\n", st_errmsg());
        return;
    }
    double read = 0, write = 0;
    for (int i = 0; i < n; i++) {
        double rate = res[i].seconds > 0 ? (double)res[i].ops / res[i].seconds : 0;
        if (!strcmp(res[i].name, "randomRead"))
            read = rate;
        if (!strcmp(res[i].name, "randomWrite"))
            write = rate;
    }
    if (o->json) {
        printf("{\"workload\":\"redis\",\"get_ops_per_sec\":%.1f,\"set_ops_per_sec\":%.1f,"
               "\"get_p50_ms\":%.3f,\"get_p99_ms\":%.3f,\"randomRead_over_get\":%.3f,"
               "\"randomWrite_over_set\":%.3f}\n",
               rr.get.ops_per_sec, rr.set.ops_per_sec, rr.get.p50_ms, rr.get.p99_ms,
               rr.get.ops_per_sec > 0 ? read / rr.get.ops_per_sec : 0,
               rr.set.ops_per_sec > 0 ? write / rr.set.ops_per_sec : 0);
        return;
    }
    printf("redis GET %10.1f ops/s (p50 %.3f ms, p99 %.3f ms)   SET %10.1f ops/s\n",
           rr.get.ops_per_sec, rr.get.p50_ms, rr.get.p99_ms, rr.set.ops_per_sec);
    if (read > 0)
        printf("randomRead / redis GET = %.2fx\n", read / rr.get.ops_per_sec);
    if (write > 0)
        printf("randomWrite / redis SET = %.2fx\n", write / rr.set.ops_per_sec);
}

/* ---------------------------------------------------------------- cluster target */

/* The quorum of a local cluster: the "quorum" line of D/cluster.state (docs/cluster.md). */
static int dir_quorum(cluster_opts *o)
{
    char path[1024], line[512];
    snprintf(path, sizeof(path), "%s/cluster.state", o->dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return st_error(ST_NOT_FOUND, "bench: no local cluster in %s (%s missing)", o->dir, path);
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "quorum %127s", o->dir_quorum) == 1)
            break;
    fclose(f);
    if (!o->dir_quorum[0])
        return st_error(ST_CORRUPTION, "bench: %s names no quorum", path);
    o->quorum = o->dir_quorum;
    return ST_OK;
}

/* Drops TestTable if it exists and creates it with R regions through the master. */
static int create_cluster_table(const cluster_opts *o)
{
    admin_rpc *a = NULL;
    Strata__Admin__TableSchema *schema = NULL;
    int st = admin_rpc_open(o->quorum, o->parent, &a);
    if (st == ST_OK) {
        Strata__Master__DescribeTableResponse *d = NULL;
        if (admin_rpc_describe_table(a, TABLE, &d) == ST_OK) {
            if (d->table->state != STRATA__MASTER__TABLE_STATE__DISABLED)
                st = admin_rpc_disable_table(a, TABLE);
            if (st == ST_OK)
                st = admin_rpc_delete_table(a, TABLE);
        }
        admin_rpc_free_msg(d);
    }
    if (st == ST_OK)
        st = admin_rpc_schema_new(TABLE, FAMILY, &schema);
    char keys[MAX_REGIONS][KEY_LEN];
    ProtobufCBinaryData splits[MAX_REGIONS];
    for (int i = 1; i < o->regions; i++) {
        format_key(o->rows * i / o->regions, keys[i - 1]);
        splits[i - 1] = (ProtobufCBinaryData){KEY_LEN, (uint8_t *)keys[i - 1]};
    }
    if (st == ST_OK)
        st = admin_rpc_create_table(a, schema, splits, (size_t)(o->regions - 1));
    admin_rpc_schema_free(schema);
    admin_rpc_close(a);
    return st;
}

int bench_cluster_main(int argc, char **argv)
{
    cluster_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc != 0) {
        usage(stderr);
        return rc;
    }
    private_server ps = {0};
    const char *addr = o.server;
    bool cluster = o.quorum || o.dir;
    int st = o.dir ? dir_quorum(&o) : ST_OK;
    if (cluster) {
        addr = o.quorum;
        if (st == ST_OK)
            st = create_cluster_table(&o);
    } else if (!addr) {
        st = start_private_server(&ps);
        addr = ps.addr;
    }
    if (st == ST_OK && !cluster)
        st = open_regions(&o, addr);
    strata_options_t *opts = strata_options_create();
    if (cluster) {
        strata_options_set_zk_quorum(opts, o.quorum);
        if (o.parent)
            strata_options_set_zk_parent(opts, o.parent);
    }
    for (int i = 0; st == ST_OK && !cluster && i < o.regions; i++) {
        char start[KEY_LEN], end[KEY_LEN], name[64];
        size_t slen, elen;
        region_bounds(&o, i, start, &slen, end, &elen);
        snprintf(name, sizeof(name), "bench%04d", i);
        strata_options_add_region(opts, TABLE, name, start, slen, end, elen, addr);
    }
    char *err = NULL;
    strata_client_t *c = st == ST_OK ? strata_client_open(opts, &err) : NULL;
    strata_table_t *t = c ? strata_table_open(c, TABLE) : NULL;
    if (st != ST_OK || !t) {
        fprintf(stderr, "strata bench: %s\n", err ? err : st_errmsg());
        strata_free(err);
        rc = 1;
    } else {
        if (!o.json)
            printf("strata bench: %ld rows, %d threads, %d-byte values, %d region(s) on %s%s\n",
                   o.rows, o.threads, o.value_size, o.regions, cluster ? "the cluster at " : "",
                   addr);
        workload_result res[8];
        for (int i = 0; i < o.nworkloads; i++) {
            run_workload(&o, t, o.workloads[i], &res[i]);
            print_result(&o, &res[i], addr);
            if (res[i].errors)
                rc = 1;
        }
        print_redis(&o, res, o.nworkloads);
    }
    strata_table_close(t);
    strata_client_close(c);
    strata_options_destroy(opts);
    if (!o.server && !cluster)
        stop_private_server(&ps);
    return rc;
}
