/*
 * bench_cluster.c - `strata bench` cluster mode: HBase PerformanceEvaluation's shapes
 * (which follow Bigtable's §7) against one region server through the C client.
 *
 *   strata bench [--rows N] [--threads T] [--value-size B] [--json]
 *                [--server host:port | --zk.quorum Q [--zk.parent P] | --dir D]
 *                [--regions R] [--rate OPS] [--concurrent] [--autoflush]
 *                [--table NAME] [--split-policy NAME] [--max-filesize SIZE]
 *                [--flush-size SIZE] [--table-value KEY=VALUE]... WORKLOAD...
 *   WORKLOAD: sequentialWrite randomWrite sequentialRead randomRead scan
 *
 * Keys are 26-byte zero-padded decimals (PE's format), values incompressible random
 * bytes, one column info:0 in table TestTable (--table); writes go through the buffered
 * mutator (2 MB). Without --server a private region server is started on a free loopback port
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
 *
 * --split-policy, --max-filesize and --flush-size set the table's SPLIT_POLICY value,
 * MAX_FILESIZE and MEMSTORE_FLUSHSIZE, --table-value any other value (a policy's
 * parameters); on the private server too, where nothing splits (splits need a master).
 * Against a cluster a watcher (bench_splits.h) polls the master's procedures and the
 * table's regions every 100 ms, and each workload also reports the regions after it, the
 * splits that ended during it, and p50/p99/max of the operations that overlapped a split
 * of their row's region (every latency is recorded with its row and start time).
 * --concurrent runs every workload at once, each with its own threads (puts and gets
 * during the same splits); --autoflush sends each put on its own (one Put call), so a
 * put's latency is its round trip rather than a buffer append.
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
#include "common/config.h"
#include "common/fileio.h"
#include "common/proto/admin.pb-c.h"
#include "common/rpc/rpc_client.h"
#include "common/status.h"
#include "strata/strata.h"
#include "tools/bench_redis.h"
#include "tools/bench_splits.h"
#include "tools/tools.h"

#define KEY_LEN 26
#define DEFAULT_TABLE "TestTable"
#define MAX_TABLE_VALUES 8
#define FAMILY "info"
#define QUALIFIER "0"
#define READY_WAIT_MS 20000
#define MAX_REGIONS 64
#define WATCH_INTERVAL_MS 100

#define MAX_CONNECTIONS 256 /* = the most threads */

typedef struct cluster_opts {
    long rows;
    int threads;
    int connections; /* clients (each its own connections and I/O thread); threads dealt out */
    int value_size;
    bool json;
    const char *server;
    const char *quorum; /* cluster target: ZooKeeper quorum */
    const char *parent;
    const char *dir; /* cluster target: a local cluster directory */
    char dir_quorum[128];
    int regions;
    double rate;              /* total ops/s to pace gets and puts at; 0 = as fast as possible */
    bool concurrent;          /* run every workload at the same time */
    bool autoflush;           /* one Put call per row instead of the buffered mutator */
    const char *table;        /* the table (default TestTable) */
    const char *split_policy; /* its SPLIT_POLICY value; NULL: not set */
    const char *values[MAX_TABLE_VALUES]; /* --table-value KEY=VALUE, as given */
    int nvalues;
    uint64_t max_filesize; /* its MAX_FILESIZE; 0: not set */
    uint64_t flush_size;   /* its MEMSTORE_FLUSHSIZE; 0: not set */
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
    double p50_us, p95_us, p99_us, p999_us, max_us;
    long errors;
    long found;
    /* cluster runs: what the split watcher saw (bench_splits.h) */
    bool watched;
    size_t regions; /* the table's regions after the workload */
    size_t splits;  /* split procedures that ended well during the workload */
    long split_ops; /* operations that overlapped a split of their row's region */
    double split_p50_us, split_p99_us, split_max_us;
} workload_result;

static void usage(FILE *out)
{
    fprintf(out, "usage: strata bench [--rows N] [--threads T] [--connections K] [--value-size B]\n"
                 "                    [--json]\n"
                 "                    [--server host:port | --zk.quorum Q [--zk.parent P] | --dir D]\n"
                 "                    [--regions R] [--rate OPS] [--concurrent] [--autoflush]\n"
                 "                    [--table NAME] [--split-policy NAME] [--max-filesize SIZE]\n"
                 "                    [--flush-size SIZE] [--table-value KEY=VALUE]... WORKLOAD...\n"
                 "  WORKLOAD: sequentialWrite randomWrite sequentialRead randomRead scan\n"
                 "  (strata bench engine ... runs the storage-engine benchmark,\n"
                 "   strata bench failover ... a failover drill on a local cluster,\n"
                 "   strata bench ycsb ... YCSB's workloads A-F against a cluster)\n");
}

static void help(FILE *out)
{
    usage(out);
    fprintf(out,
            "  PerformanceEvaluation's workloads through the C client on one table\n"
            "  (26-byte keys, one column info:0), one line of ops/s and latency per workload.\n"
            "  --rows N            operations per workload (default 100000)\n"
            "  --threads T         client threads per workload (default 4)\n"
            "  --value-size B      value bytes (default 1000), incompressible\n"
            "  --connections K     K clients, each with its own connection to every server\n"
            "                      and its own I/O thread, the threads dealt out to them\n"
            "                      (default 1: all threads share one client, as with\n"
            "                      PerformanceEvaluation --oneCon=true)\n"
            "  --server H:P        an existing region server (default: a private one)\n"
            "  --zk.quorum Q, --zk.parent P, --dir D\n"
            "                      a whole cluster (--dir: a `strata cluster` directory);\n"
            "                      TestTable is dropped and created through the master\n"
            "  --regions R         TestTable's regions at creation, split evenly (default 1)\n"
            "  --rate OPS          pace each workload's gets and puts to OPS per second\n"
            "  --concurrent        run all the workloads at the same time, each with its\n"
            "                      own T threads (e.g. randomWrite and randomRead together)\n"
            "  --autoflush         send each put on its own (one Put call per row) instead\n"
            "                      of through the 2 MB buffered mutator\n"
            "  --table NAME        the table (default TestTable); dropped and created again\n"
            "  --split-policy NAME its SPLIT_POLICY (SteppingSplitPolicy,\n"
            "                      IncreasingToUpperBoundRegionSplitPolicy,\n"
            "                      ConstantSizeRegionSplitPolicy, KeyPrefixRegionSplitPolicy,\n"
            "                      DelimitedKeyPrefixRegionSplitPolicy,\n"
            "                      DisabledRegionSplitPolicy)\n"
            "  --max-filesize SIZE its MAX_FILESIZE (bytes; k, m, g suffixes)\n"
            "  --flush-size SIZE   its MEMSTORE_FLUSHSIZE (bytes; k, m, g suffixes)\n"
            "  --table-value KEY=VALUE\n"
            "                      any other table value (METADATA), up to 8, e.g.\n"
            "                      KeyPrefixRegionSplitPolicy.prefix_length=24\n"
            "  --json              one JSON object per workload\n"
            "  Each line: ops/s, p50/p95/p99/p999/max latency of one operation (a get, a put\n"
            "  or buffered mutate, a scanner next). Against a cluster also the table's\n"
            "  regions after the workload, the splits that ended during it, and the latency\n"
            "  of the operations that overlapped a split of their row's region (polled from\n"
            "  the master every 100 ms). Regions split only with a master (--dir, --zk.quorum).\n");
}

/* A size flag's value: bytes with an optional k/m/g/t suffix, > 0. */
static bool parse_size(const char *flag, const char *v, uint64_t *out)
{
    if (config_parse_size(v, out) == ST_OK && *out > 0)
        return true;
    fprintf(stderr, "strata bench: %s needs a size > 0 (e.g. 65536, 64k, 1m), not '%s'\n", flag, v);
    return false;
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
    *o = (cluster_opts){
        .rows = 100000, .threads = 4, .connections = 1, .value_size = 1000, .regions = 1,
        .table = DEFAULT_TABLE};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--json") == 0) {
            o->json = true;
        } else if (v && strcmp(a, "--rows") == 0) {
            o->rows = atol(v), i++;
        } else if (v && strcmp(a, "--threads") == 0) {
            o->threads = atoi(v), i++;
        } else if (v && strcmp(a, "--connections") == 0) {
            o->connections = atoi(v), i++;
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
        } else if (strcmp(a, "--concurrent") == 0) {
            o->concurrent = true;
        } else if (strcmp(a, "--autoflush") == 0) {
            o->autoflush = true;
        } else if (v && strcmp(a, "--table") == 0) {
            o->table = v, i++;
        } else if (v && strcmp(a, "--table-value") == 0) {
            if (!strchr(v, '=') || v[0] == '=' || o->nvalues == MAX_TABLE_VALUES) {
                fprintf(stderr, "strata bench: --table-value needs KEY=VALUE (at most %d)\n",
                        MAX_TABLE_VALUES);
                return 2;
            }
            o->values[o->nvalues++] = v, i++;
        } else if (v && strcmp(a, "--split-policy") == 0) {
            o->split_policy = v, i++;
        } else if (v && strcmp(a, "--max-filesize") == 0) {
            if (!parse_size(a, v, &o->max_filesize))
                return 2;
            i++;
        } else if (v && strcmp(a, "--flush-size") == 0) {
            if (!parse_size(a, v, &o->flush_size))
                return 2;
            i++;
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
    if (o->connections < 1 || o->connections > o->threads) {
        fprintf(stderr, "strata bench: --connections must be 1..threads (%d)\n", o->threads);
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

/* Adds the value name = value (len bytes of it) to a schema from admin_rpc_schema_new,
 * whose values are malloc'ed and freed by admin_rpc_schema_free. */
static int add_value(Strata__Admin__TableSchema *s, const char *name, size_t name_len,
                     const char *value)
{
    Strata__Admin__NameStringPair **v = realloc(s->value, (s->n_value + 1) * sizeof(*v));
    if (!v)
        return st_error(ST_NOMEM, "bench: out of memory building the table's schema");
    s->value = v;
    Strata__Admin__NameStringPair *pair = calloc(1, sizeof(*pair));
    if (pair)
        strata__admin__name_string_pair__init(pair);
    char *n = strndup(name, name_len), *val = strdup(value);
    if (!pair || !n || !val) {
        free(pair);
        free(n);
        free(val);
        return st_error(ST_NOMEM, "bench: out of memory building the table's schema");
    }
    pair->name = n;
    pair->value = val;
    s->value[s->n_value++] = pair;
    return ST_OK;
}

/* The table's schema: family info, MAX_FILESIZE, MEMSTORE_FLUSHSIZE, SPLIT_POLICY and the
 * --table-value values from the options. ST_OK and *out (free with
 * admin_rpc_schema_free), or the failure with *out NULL. */
static int build_schema(const cluster_opts *o, Strata__Admin__TableSchema **out)
{
    Strata__Admin__TableSchema *s = NULL;
    int st = admin_rpc_schema_new(o->table, FAMILY, &s);
    if (st == ST_OK && o->max_filesize) {
        s->has_max_filesize = 1;
        s->max_filesize = o->max_filesize;
    }
    if (st == ST_OK && o->flush_size) {
        s->has_memstore_flushsize = 1;
        s->memstore_flushsize = o->flush_size;
    }
    if (st == ST_OK && o->split_policy)
        st = add_value(s, "SPLIT_POLICY", strlen("SPLIT_POLICY"), o->split_policy);
    for (int i = 0; st == ST_OK && i < o->nvalues; i++) {
        const char *eq = strchr(o->values[i], '=');
        st = add_value(s, o->values[i], (size_t)(eq - o->values[i]), eq + 1);
    }
    if (st != ST_OK) {
        admin_rpc_schema_free(s);
        s = NULL;
    }
    *out = s;
    return st;
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
        Strata__Admin__TableSchema *schema = NULL;
        st = build_schema(o, &schema);
        if (st != ST_OK)
            break;
        Strata__Admin__RegionInfo ri = STRATA__ADMIN__REGION_INFO__INIT;
        ri.table = (char *)o->table;
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
        info.schema = schema;
        Strata__Admin__OpenRegionRequest__RegionOpenInfo *infos[1] = {&info};
        Strata__Admin__OpenRegionRequest req = STRATA__ADMIN__OPEN_REGION_REQUEST__INIT;
        req.n_open_info = 1;
        req.open_info = infos;
        size_t n = strata__admin__open_region_request__get_packed_size(&req);
        uint8_t *bytes = malloc(n);
        strata__admin__open_region_request__pack(&req, bytes);
        admin_rpc_schema_free(schema);
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

/* One operation as recorded: its row's key number, when it started (ms after the
 * workload's start) and how long it took. */
typedef struct op_rec {
    int64_t key;
    uint32_t start_ms;
    uint32_t lat_us;
} op_rec;

typedef struct worker {
    const cluster_opts *o;
    strata_table_t *table;
    const char *workload;
    int id;
    long first, count; /* this thread's share of the key space */
    uint64_t base_ns;  /* the workload's start (monotonic) */
    op_rec *recs;      /* one per op, up to count */
    long ops;
    long errors;
    long found;
    uint64_t end_ns; /* when this thread finished */
    uint64_t rng;
} worker;

/* The threads of one workload. */
typedef struct workload_run {
    const char *name;
    worker *ws;
    pthread_t *th;
    int nthreads, started;
    uint64_t base_ns;
    int64_t base_wall_ms; /* clock_now_ms() at base_ns */
} workload_run;

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

static void record(worker *w, long key, uint64_t t0)
{
    uint64_t us = (clock_mono_ns() - t0) / 1000;
    if (w->ops < w->count) {
        op_rec *r = &w->recs[w->ops];
        r->key = key;
        r->start_ms = (uint32_t)((t0 - w->base_ns) / 1000000ull);
        r->lat_us = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
    }
    w->ops++;
}

static void count_error(worker *w, char **err)
{
    if (*err) {
        w->errors++;
        strata_free(*err);
        *err = NULL;
    }
}

static void run_writes(worker *w, bool random)
{
    strata_mutator_t *m = w->o->autoflush ? NULL : strata_mutator_create(w->table, 2u << 20);
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
        if (m)
            strata_mutator_mutate(m, put, &err);
        else
            strata_table_put(w->table, put, &err);
        record(w, k, t0);
        strata_mutation_destroy(put);
        count_error(w, &err);
    }
    if (m)
        strata_mutator_close(m, &err);
    count_error(w, &err);
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
        record(w, k, t0);
        if (!err && r && strata_result_cell_count(r) > 0)
            w->found++;
        count_error(w, &err);
        strata_result_destroy(r);
        strata_get_destroy(g);
    }
}

/* A scanner next is recorded against the row it should return (first + n: exact when
 * every row of the range exists). */
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
        record(w, w->first + w->ops, t0);
        w->found++;
        strata_result_destroy(r);
    }
    count_error(w, &err);
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
    w->end_ns = clock_mono_ns();
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

static void free_run(workload_run *run)
{
    for (int i = 0; run->ws && i < run->nthreads; i++)
        free(run->ws[i].recs);
    free(run->ws);
    free(run->th);
    memset(run, 0, sizeof(*run));
}

/* Starts wl's threads (base: the start shared by a concurrent run). ST_OK, or ST_NOMEM /
 * ST_INTERNAL with nothing left running. */
static int start_workload(const cluster_opts *o, strata_table_t *const *tables, const char *wl,
                          uint64_t base_ns, int64_t base_wall_ms, workload_run *run)
{
    memset(run, 0, sizeof(*run));
    run->name = wl;
    run->nthreads = o->threads;
    run->base_ns = base_ns;
    run->base_wall_ms = base_wall_ms;
    run->ws = calloc((size_t)o->threads, sizeof(*run->ws));
    run->th = calloc((size_t)o->threads, sizeof(*run->th));
    int rc = run->ws && run->th ? ST_OK : ST_NOMEM;
    long per = o->rows / o->threads;
    for (int i = 0; rc == ST_OK && i < o->threads; i++) {
        worker *w = &run->ws[i];
        *w = (worker){.o = o, .table = tables[i % o->connections], .workload = wl, .id = i,
                      .first = per * i,
                      .count = i + 1 == o->threads ? o->rows - per * i : per,
                      .base_ns = base_ns,
                      .rng = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1) ^ clock_mono_ns()};
        w->recs = calloc((size_t)w->count + 1, sizeof(op_rec));
        if (!w->recs)
            rc = ST_NOMEM;
    }
    if (rc != ST_OK) {
        free_run(run);
        return st_error(ST_NOMEM, "bench: out of memory for %s's %d threads", wl, o->threads);
    }
    for (; run->started < o->threads; run->started++)
        if (pthread_create(&run->th[run->started], NULL, worker_main, &run->ws[run->started]))
            break;
    if (run->started < o->threads) {
        for (int i = 0; i < run->started; i++)
            pthread_join(run->th[i], NULL);
        free_run(run);
        return st_error(ST_INTERNAL, "bench: cannot start a thread for %s", wl);
    }
    return ST_OK;
}

/* The operations of run that overlapped a split of their row's region: their latencies
 * into res (split_*), and the splits that ended well between from and to. */
static void split_stats(const workload_run *run, bench_splits *watch, int64_t end_wall_ms,
                        workload_result *res)
{
    bench_split *sp = NULL;
    size_t nsp = 0;
    bench_splits_poll(watch);
    res->watched = true;
    res->regions = bench_splits_regions(watch);
    if (bench_splits_list(watch, &sp, &nsp) != ST_OK)
        return;
    for (size_t i = 0; i < nsp; i++)
        res->splits += sp[i].succeeded && sp[i].updated_ms >= run->base_wall_ms &&
                       sp[i].updated_ms <= end_wall_ms;
    size_t n = 0, cap = 0;
    uint32_t *lat = NULL;
    char key[KEY_LEN];
    for (int t = 0; t < run->nthreads; t++) {
        const worker *w = &run->ws[t];
        long nrec = w->ops < w->count ? w->ops : w->count;
        for (long i = 0; i < nrec; i++) {
            const op_rec *r = &w->recs[i];
            int64_t from = run->base_wall_ms + r->start_ms;
            int64_t to = from + r->lat_us / 1000 + 1;
            bool hit = false;
            format_key(r->key, key);
            for (size_t s = 0; s < nsp && !hit; s++)
                hit = bench_split_covers(&sp[s], (const uint8_t *)key, KEY_LEN, from, to);
            if (!hit)
                continue;
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 1024;
                uint32_t *nv = realloc(lat, nc * sizeof(*nv));
                if (!nv)
                    break;
                lat = nv;
                cap = nc;
            }
            lat[n++] = r->lat_us;
        }
    }
    if (n)
        qsort(lat, n, sizeof(uint32_t), cmp_u32);
    res->split_ops = (long)n;
    res->split_p50_us = pct(lat, n, 0.50);
    res->split_p99_us = pct(lat, n, 0.99);
    res->split_max_us = n ? lat[n - 1] : 0;
    free(lat);
    free(sp);
}

/* Waits for run's threads and fills res (watch NULL: no split figures); frees run. */
static void finish_workload(workload_run *run, bench_splits *watch, workload_result *res)
{
    uint64_t end_ns = run->base_ns;
    memset(res, 0, sizeof(*res));
    res->name = run->name;
    for (int i = 0; i < run->started; i++)
        pthread_join(run->th[i], NULL);
    size_t total = 0;
    for (int i = 0; i < run->nthreads; i++) {
        const worker *w = &run->ws[i];
        total += (size_t)(w->ops < w->count ? w->ops : w->count);
        res->ops += w->ops;
        res->errors += w->errors;
        res->found += w->found;
        end_ns = w->end_ns > end_ns ? w->end_ns : end_ns;
    }
    uint32_t *all = malloc((total ? total : 1) * sizeof(uint32_t));
    size_t k = 0;
    for (int i = 0; all && i < run->nthreads; i++) {
        const worker *w = &run->ws[i];
        long n = w->ops < w->count ? w->ops : w->count;
        for (long j = 0; j < n; j++)
            all[k++] = w->recs[j].lat_us;
    }
    qsort(all, k, sizeof(uint32_t), cmp_u32);
    res->seconds = (double)(end_ns - run->base_ns) / 1e9;
    res->p50_us = pct(all, k, 0.50);
    res->p95_us = pct(all, k, 0.95);
    res->p99_us = pct(all, k, 0.99);
    res->p999_us = pct(all, k, 0.999);
    res->max_us = k ? all[k - 1] : 0;
    free(all);
    if (watch)
        split_stats(run, watch, run->base_wall_ms + (int64_t)((end_ns - run->base_ns) / 1000000),
                    res);
    free_run(run);
}

static void print_json(const cluster_opts *o, const workload_result *r, const char *addr)
{
    double rate = r->seconds > 0 ? (double)r->ops / r->seconds : 0;
    printf("{\"workload\":\"%s\",\"server\":\"%s\",\"rows\":%ld,\"threads\":%d,"
           "\"connections\":%d,\"value_size\":%d,\"ops\":%ld,\"seconds\":%.3f,\"ops_per_sec\":%.1f,"
           "\"p50_ms\":%.3f,\"p95_ms\":%.3f,\"p99_ms\":%.3f,\"p999_ms\":%.3f,\"max_ms\":%.3f,"
           "\"errors\":%ld,\"found\":%ld",
           r->name, addr, o->rows, o->threads, o->connections, o->value_size, r->ops, r->seconds, rate,
           r->p50_us / 1000, r->p95_us / 1000, r->p99_us / 1000, r->p999_us / 1000,
           r->max_us / 1000, r->errors, r->found);
    if (r->watched)
        printf(",\"regions\":%zu,\"splits\":%zu,\"split_ops\":%ld,\"split_p50_ms\":%.3f,"
               "\"split_p99_ms\":%.3f,\"split_max_ms\":%.3f",
               r->regions, r->splits, r->split_ops, r->split_p50_us / 1000, r->split_p99_us / 1000,
               r->split_max_us / 1000);
    printf("}\n");
}

static void print_result(const cluster_opts *o, const workload_result *r, const char *addr)
{
    if (o->json) {
        print_json(o, r, addr);
        return;
    }
    double rate = r->seconds > 0 ? (double)r->ops / r->seconds : 0;
    bool reads = strstr(r->name, "Read") || !strcmp(r->name, "scan");
    printf("%-16s %10.1f ops/s  %8.3f s  p50 %.3f ms  p95 %.3f ms  p99 %.3f ms  p999 %.3f ms"
           "  max %.3f ms  errors %ld",
           r->name, rate, r->seconds, r->p50_us / 1000, r->p95_us / 1000, r->p99_us / 1000,
           r->p999_us / 1000, r->max_us / 1000, r->errors);
    if (reads)
        printf("  found %ld/%ld", r->found, r->ops);
    printf("\n");
    if (r->watched)
        printf("%-16s %zu region(s) after, %zu split(s) ended; %ld op(s) during a split of "
               "their region: p50 %.3f ms  p99 %.3f ms  max %.3f ms\n",
               "", r->regions, r->splits, r->split_ops, r->split_p50_us / 1000,
               r->split_p99_us / 1000, r->split_max_us / 1000);
}

static void print_redis(const cluster_opts *o, const workload_result *res, int n)
{
    bench_redis_result rr;
    if (o->rate > 0 || o->concurrent)
        return; /* a paced or mixed run is about latency, not a throughput comparison */
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

/* Drops the table if it exists and creates it with R regions through the master, with
 * the attributes and values the options give. */
static int create_cluster_table(const cluster_opts *o)
{
    admin_rpc *a = NULL;
    Strata__Admin__TableSchema *schema = NULL;
    int st = admin_rpc_open(o->quorum, o->parent, &a);
    if (st == ST_OK) {
        Strata__Master__DescribeTableResponse *d = NULL;
        if (admin_rpc_describe_table(a, o->table, &d) == ST_OK) {
            if (d->table->state != STRATA__MASTER__TABLE_STATE__DISABLED)
                st = admin_rpc_disable_table(a, o->table);
            if (st == ST_OK)
                st = admin_rpc_delete_table(a, o->table);
        }
        admin_rpc_free_msg(d);
    }
    if (st == ST_OK)
        st = build_schema(o, &schema);
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

/* Runs the workloads one after the other, or all at once with --concurrent, into res
 * (a workload that could not start has no operations). */
static int run_all(const cluster_opts *o, strata_table_t *const *tables, bench_splits *watch,
                   workload_result *res)
{
    workload_run runs[8];
    int rc = ST_OK;
    memset(res, 0, sizeof(*res) * (size_t)o->nworkloads);
    uint64_t base_ns = clock_mono_ns();
    int64_t base_wall = clock_now_ms();
    for (int i = 0; i < o->nworkloads; i++) {
        if (!o->concurrent) {
            base_ns = clock_mono_ns();
            base_wall = clock_now_ms();
        }
        int st = start_workload(o, tables, o->workloads[i], base_ns, base_wall, &runs[i]);
        rc = rc != ST_OK ? rc : st;
        if (st != ST_OK)
            res[i].name = o->workloads[i];
        if (!o->concurrent && st == ST_OK)
            finish_workload(&runs[i], watch, &res[i]);
    }
    for (int i = 0; o->concurrent && i < o->nworkloads; i++)
        if (runs[i].ws)
            finish_workload(&runs[i], watch, &res[i]);
    return rc;
}

int bench_cluster_main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            help(stdout);
            return 0;
        }
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
        strata_options_add_region(opts, o.table, name, start, slen, end, elen, addr);
    }
    char *err = NULL;
    strata_client_t *clients[MAX_CONNECTIONS] = {0};
    strata_table_t *tables[MAX_CONNECTIONS] = {0};
    bool opened = st == ST_OK;
    for (int i = 0; opened && i < o.connections; i++) {
        clients[i] = strata_client_open(opts, &err);
        tables[i] = clients[i] ? strata_table_open(clients[i], o.table) : NULL;
        opened = tables[i] != NULL;
    }
    if (!opened) {
        fprintf(stderr, "strata bench: %s\n", err ? err : st_errmsg());
        strata_free(err);
        rc = 1;
    } else {
        if (!o.json)
            printf("strata bench: %ld rows, %d threads on %d connection(s), %d-byte values, "
                   "%d region(s) on %s%s\n",
                   o.rows, o.threads, o.connections, o.value_size, o.regions,
                   cluster ? "the cluster at " : "", addr);
        bench_splits *watch = NULL;
        if (cluster &&
            bench_splits_start(o.quorum, o.parent, o.table, WATCH_INTERVAL_MS, &watch) != ST_OK)
            fprintf(stderr, "strata bench: no split figures: %s\n", st_errmsg());
        workload_result res[8];
        if (run_all(&o, tables, watch, res) != ST_OK) {
            fprintf(stderr, "strata bench: %s\n", st_errmsg());
            rc = 1;
        }
        for (int i = 0; i < o.nworkloads; i++) {
            print_result(&o, &res[i], addr);
            if (res[i].errors)
                rc = 1;
        }
        bench_splits_free(watch);
        print_redis(&o, res, o.nworkloads);
    }
    for (int i = 0; i < o.connections; i++) {
        strata_table_close(tables[i]);
        strata_client_close(clients[i]);
    }
    strata_options_destroy(opts);
    if (!o.server && !cluster)
        stop_private_server(&ps);
    return rc;
}
