/*
 * bench_ycsb.c - `strata bench ycsb`: YCSB's core workloads A-F against a cluster through
 * the public C client (strata.h for the data, admin.h for the table and the cluster
 * status), as a load-balancing experiment kit. docs/performance.md, "YCSB workloads",
 * has the options, the output, the CSV and the chart; bench_ycsb.h the files.
 *
 *   start --find_cluster--> --ensure_table--> [load phase] --> [run phase] --> report
 *
 *   find_cluster  --dir D: the quorum and parent of D/cluster.state (docs/cluster.md);
 *                 --zk.quorum Q [--zk.parent P] as given
 *   ensure_table  the table is created if missing, family "family", split into --regions
 *                 regions at quantiles of the keys (ycsb_split_keys); then every
 *                 region must be OPEN on a server (polled, at most TABLE_WAIT_MS)
 *   load phase    T threads insert record numbers 0..recordcount-1, taken from one
 *                 atomic counter, each as one put of every field (YCSB's doInsert)
 *   run phase     T threads share operationcount operations (YCSB's doTransaction):
 *                 reads and updates of key numbers the chooser draws among the
 *                 acknowledged ones, inserts numbered by the acknowledged counter from
 *                 recordcount on, scans, read-modify-writes
 *
 * Each phase is bounded by its operation count and by --max-seconds (threads stop at
 * the deadline); --target paces each thread at target/T operations per second from the
 * phase's start. While a phase runs the main thread samples every --interval seconds
 * (throughput and p99 of the operations that ended in the interval, and with --servers
 * the master's cluster status); otherwise it only waits for the threads.
 *
 * Return codes, as YCSB's: a call that failed is ERROR; a read (or the read of a
 * read-modify-write) of an acknowledged key that finds no row is NOT_FOUND; a failed
 * insert is ERROR and its key is never chosen again (it was not acknowledged). Every one
 * is counted in the report, and any makes the exit status 1.
 *
 * Thread-safety: the client and the table are shared by the threads (strata.h allows
 * it); each thread owns its generators, value buffer and stats; the key counters are
 * atomics; the first error message of each operation type is kept under err_mu.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/status.h"
#include "strata/admin.h"
#include "strata/strata.h"
#include "tools/bench_ycsb.h"
#include "tools/tools.h"

#define FAMILY "family"
#define FIELD_PREFIX "field"
#define DDL_TIMEOUT_MS 60000
#define POLL_TIMEOUT_MS 2000
#define TABLE_WAIT_MS 60000
#define SPLIT_SAMPLE 100000
#define SPLIT_MIN_DIGITS 4
#define FAILED_REDRAWS 100
#define TICK_MS 20

typedef struct bench bench;

typedef struct worker {
    bench *b;
    int id;
    int64_t todo; /* operations of this thread in this phase */
    ycsb_rng rng;
    ycsb_chooser chooser;
    ycsb_opchooser opc;
    ycsb_opstat *stats; /* YCSB_OPS of them */
    ycsb_hist *txn;     /* each operation's latency once (the sampler's p99) */
    _Atomic uint64_t done;
    uint64_t end_ns;
    bool timed_out;
    char *value; /* field_length bytes */
    char (*fields)[16];
} worker;

struct bench {
    ycsb_opts o;
    char quorum[300], parent[300];
    strata_admin_t *admin, *poll;
    strata_client_t *client;
    strata_table_t *table;
    _Atomic int64_t keyseq;  /* load phase: the next record number */
    ycsb_ack_counter ack;    /* run phase: inserts */
    _Atomic uint8_t *failed; /* run phase: inserts that failed, a bit per number past recordcount */
    int64_t failed_bits;
    int phase; /* YCSB_PHASE_LOAD or YCSB_PHASE_RUN */
    uint64_t phase_start_ns, t0_ns;
    _Atomic uint64_t deadline_ns; /* lowered to 0 when the threads must stop at once */
    worker *w;
    int nthreads_started;
    _Atomic int running;
    pthread_mutex_t err_mu;
    char first_error[YCSB_OPS][300];
    ycsb_series series;
    ycsb_phase_result res[2];
    int nres;
    /* the sampler's previous look */
    uint64_t last_ns, last_done;
    uint64_t *prev_hist, *cur_hist;
};

/* ---- the cluster and the table ---- */

/* --dir D: the "quorum" and "parent" lines of D/cluster.state (docs/cluster.md). */
static int find_cluster(bench *b)
{
    if (!b->o.dir) {
        snprintf(b->quorum, sizeof(b->quorum), "%s", b->o.quorum);
        snprintf(b->parent, sizeof(b->parent), "%s", b->o.parent ? b->o.parent : "");
        return ST_OK;
    }
    char path[1024], line[512], word[64], val[256];
    snprintf(path, sizeof(path), "%s/cluster.state", b->o.dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return st_error(ST_NOT_FOUND, "no local cluster in %s (%s: %s)", b->o.dir, path,
                        strerror(errno));
    while (fgets(line, sizeof(line), f)) {
        if (sscanf(line, "%63s %255s", word, val) != 2)
            continue;
        if (strcmp(word, "quorum") == 0)
            snprintf(b->quorum, sizeof(b->quorum), "%s", val);
        else if (strcmp(word, "parent") == 0)
            snprintf(b->parent, sizeof(b->parent), "%s", val);
    }
    fclose(f);
    if (!b->quorum[0])
        return st_error(ST_CORRUPTION, "%s names no quorum", path);
    return ST_OK;
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The split keys of regions evenly over the keys: quantiles of the keys of SPLIT_SAMPLE
 * record numbers spread over max(recordcount, SPLIT_SAMPLE) (hashed keys), or over the
 * recordcount records themselves (ordered keys, whose ranges are the records' numbers).
 * A hashed key is cut to its shortest prefix (at least "user" and SPLIT_MIN_DIGITS digits)
 * above the previous split; an ordered one is kept whole. Fills keys[0..*n) (malloc'ed strings). ST_OK or ST_NOMEM. */
int ycsb_split_keys(const ycsb_opts *o, char **keys, size_t *n)
{
    int64_t space = o->recordcount > SPLIT_SAMPLE || o->ordered ? o->recordcount : SPLIT_SAMPLE;
    char *pool = malloc((size_t)SPLIT_SAMPLE * YCSB_KEY_MAX);
    char **v = malloc(SPLIT_SAMPLE * sizeof(char *));
    int rc = pool && v ? ST_OK : st_error(ST_NOMEM, "out of memory for the split keys");
    *n = 0;
    for (int64_t i = 0; rc == ST_OK && i < SPLIT_SAMPLE; i++) {
        v[i] = pool + i * YCSB_KEY_MAX;
        ycsb_key_of(o, (int64_t)((double)i * (double)space / SPLIT_SAMPLE), v[i]);
    }
    if (rc == ST_OK)
        qsort(v, SPLIT_SAMPLE, sizeof(char *), cmp_str);
    const char *prev = "";
    for (int r = 1; rc == ST_OK && r < o->regions; r++) {
        const char *q = v[(size_t)r * SPLIT_SAMPLE / (size_t)o->regions];
        /* An ordered key is cut nowhere: its digits are zero-padded, so a prefix of it
         * sorts before every key of the range it would stand for. */
        size_t len = o->ordered ? strlen(q) : strlen("user") + SPLIT_MIN_DIGITS;
        while (len < strlen(q) && strncmp(q, prev, len) <= 0)
            len++;
        if (strncmp(q, prev, len) <= 0 && prev[0])
            continue; /* not above the previous one: fewer regions */
        if (!(keys[*n] = strndup(q, len))) {
            rc = st_error(ST_NOMEM, "out of memory for the split keys");
            break;
        }
        prev = keys[(*n)++];
    }
    free(v);
    free(pool);
    return rc;
}

static int create_table(bench *b)
{
    char *keys[YCSB_MAX_REGIONS];
    size_t lens[YCSB_MAX_REGIONS], n = 0;
    char *err = NULL;
    int rc = ycsb_split_keys(&b->o, keys, &n);
    for (size_t i = 0; i < n; i++)
        lens[i] = strlen(keys[i]);
    strata_table_descriptor_t *td = rc == ST_OK ? strata_table_descriptor_create(b->o.table) : NULL;
    if (rc == ST_OK && (!td || !strata_table_descriptor_add_family(td, FAMILY)))
        rc = st_error(ST_NOMEM, "out of memory for the table's descriptor");
    if (rc == ST_OK)
        strata_admin_create_table(b->admin, td, (const char *const *)keys, lens, n, &err);
    if (err && strata_error_code(err) != STRATA_ERR_EXISTS)
        rc = st_error(ST_IO, "creating table %s: %s", b->o.table, err);
    if (rc == ST_OK)
        fprintf(stderr, "strata bench ycsb: created table %s with %zu regions\n", b->o.table,
                n + 1);
    strata_free(err);
    strata_table_descriptor_destroy(td);
    for (size_t i = 0; i < n; i++)
        free(keys[i]);
    return rc;
}

/* Whether every region of the table is OPEN on a server; *n its regions. */
static bool table_open(bench *b, size_t *n, char **err)
{
    strata_region_list_t *l = strata_admin_table_regions(b->poll, b->o.table, err);
    bool ok = l && strata_region_list_count(l) > 0;
    *n = l ? strata_region_list_count(l) : 0;
    for (size_t i = 0; ok && i < *n; i++) {
        const strata_region_t *r = strata_region_list_get(l, i);
        ok = strata_region_state_of(r) == STRATA_REGION_OPEN && strata_region_server(r);
    }
    strata_region_list_destroy(l);
    return ok;
}

static int ensure_table(bench *b)
{
    char *err = NULL;
    unsigned char exists = strata_admin_table_exists(b->admin, b->o.table, &err);
    int rc = err ? st_error(ST_IO, "table %s: %s", b->o.table, err) : ST_OK;
    strata_free(err);
    err = NULL;
    if (rc == ST_OK && !exists)
        rc = create_table(b);
    uint64_t end = clock_mono_ns() + (uint64_t)TABLE_WAIT_MS * 1000000ull;
    size_t n = 0;
    while (rc == ST_OK && !table_open(b, &n, &err)) {
        if (clock_mono_ns() > end) {
            rc = st_error(ST_TIMEOUT, "table %s: its regions were not all open within %d ms%s%s",
                          b->o.table, TABLE_WAIT_MS, err ? ": " : "", err ? err : "");
            break;
        }
        strata_free(err);
        err = NULL;
        clock_sleep_ms(100);
    }
    strata_free(err);
    if (rc == ST_OK && exists)
        fprintf(stderr, "strata bench ycsb: table %s exists, %zu regions\n", b->o.table, n);
    return rc;
}

static int open_cluster(bench *b)
{
    char *err = NULL;
    const char *parent = b->parent[0] ? b->parent : NULL;
    b->admin = strata_admin_open(b->quorum, parent, &err);
    if (b->admin)
        b->poll = strata_admin_open(b->quorum, parent, &err);
    strata_options_t *opts = err ? NULL : strata_options_create();
    if (opts) {
        strata_options_set_zk_quorum(opts, b->quorum);
        if (parent)
            strata_options_set_zk_parent(opts, parent);
        b->client = strata_client_open(opts, &err);
        strata_options_destroy(opts);
    }
    int rc = err ? st_error(ST_INVALID_ARGUMENT, "cluster %s: %s", b->quorum, err) : ST_OK;
    strata_free(err);
    if (rc == ST_OK && !b->client)
        rc = st_error(ST_NOMEM, "out of memory opening the client");
    if (rc == ST_OK) {
        strata_admin_set_timeout_ms(b->admin, DDL_TIMEOUT_MS);
        strata_admin_set_timeout_ms(b->poll, POLL_TIMEOUT_MS);
        rc = ensure_table(b);
    }
    if (rc == ST_OK && !(b->table = strata_table_open(b->client, b->o.table)))
        rc = st_error(ST_NOMEM, "out of memory opening table %s", b->o.table);
    return rc;
}

/* ---- operations ---- */

static void keep_error(bench *b, ycsb_op op, const char *key, const char *err)
{
    pthread_mutex_lock(&b->err_mu);
    if (!b->first_error[op][0])
        snprintf(b->first_error[op], sizeof(b->first_error[op]), "%s %s: %s", ycsb_op_name(op), key,
                 err);
    pthread_mutex_unlock(&b->err_mu);
}

/* The outcome of a call that set err (or not); err is freed. */
static ycsb_ret outcome(worker *w, ycsb_op op, const char *key, char **err)
{
    if (!*err)
        return YCSB_OK;
    keep_error(w->b, op, key, *err);
    strata_free(*err);
    *err = NULL;
    return YCSB_ERROR;
}

/* RandomByteIterator: printable random bytes. */
static void fill_value(worker *w)
{
    int len = w->b->o.field_length;
    for (int i = 0; i < len; i += 8) {
        uint64_t r = ycsb_rng_next(&w->rng);
        for (int k = 0; k < 8 && i + k < len; k++, r >>= 8)
            w->value[i + k] = (char)(' ' + (r & 0xff) % 95);
    }
}

static void add_field(worker *w, strata_mutation_t *m, int field)
{
    fill_value(w);
    strata_put_add(m, FAMILY, strlen(FAMILY), w->fields[field], strlen(w->fields[field]),
                   STRATA_LATEST_TIMESTAMP, w->value, (size_t)w->b->o.field_length);
}

/* A put of every field (all) or of one random field. */
static ycsb_ret do_put(worker *w, ycsb_op op, const char *key, size_t len, bool all)
{
    char *err = NULL;
    strata_mutation_t *m = strata_put_create(key, len);
    if (!m)
        return YCSB_ERROR;
    if (all)
        for (int f = 0; f < w->b->o.field_count; f++)
            add_field(w, m, f);
    else
        add_field(w, m, (int)ycsb_rng_below(&w->rng, (uint64_t)w->b->o.field_count));
    strata_table_put(w->b->table, m, &err);
    strata_mutation_destroy(m);
    return outcome(w, op, key, &err);
}

/* A read of every field (readallfields=true). */
static ycsb_ret do_read(worker *w, const char *key, size_t len)
{
    char *err = NULL;
    strata_get_t *g = strata_get_create(key, len);
    if (!g)
        return YCSB_ERROR;
    strata_get_add_column(g, FAMILY, strlen(FAMILY), NULL, 0);
    strata_result_t *r = strata_table_get(w->b->table, g, &err);
    ycsb_ret ret = outcome(w, YCSB_READ, key, &err);
    if (ret == YCSB_OK && (!r || strata_result_cell_count(r) == 0)) {
        keep_error(w->b, YCSB_READ, key, "not found (an acknowledged record)");
        ret = YCSB_NOT_FOUND;
    }
    strata_result_destroy(r);
    strata_get_destroy(g);
    return ret;
}

static ycsb_ret do_scan(worker *w, const char *key, size_t len, int rows)
{
    char *err = NULL;
    strata_scan_t *s = strata_scan_create();
    if (!s)
        return YCSB_ERROR;
    strata_scan_set_start(s, key, len);
    strata_scan_add_column(s, FAMILY, strlen(FAMILY), NULL, 0);
    strata_scan_set_caching(s, (uint32_t)rows);
    strata_scan_set_limit(s, (uint64_t)rows);
    strata_scanner_t *sc = strata_table_scan(w->b->table, s, &err);
    for (int i = 0; sc && !err && i < rows; i++) {
        strata_result_t *r = strata_scanner_next(sc, &err);
        if (!r)
            break;
        strata_result_destroy(r);
    }
    strata_scanner_close(sc);
    strata_scan_destroy(s);
    return outcome(w, YCSB_SCAN, key, &err);
}

static uint64_t now_us(void)
{
    return clock_mono_ns() / 1000;
}

static void measure(worker *w, ycsb_op op, uint64_t t0_us, ycsb_ret ret)
{
    uint64_t t1 = now_us();
    ycsb_opstat_add(&w->stats[op], t1 > t0_us ? t1 - t0_us : 0, ret);
}

/* An insert of record number k (both phases). */
static ycsb_ret insert(worker *w, int64_t k)
{
    char key[YCSB_KEY_MAX];
    size_t len = ycsb_key_of(&w->b->o, k, key);
    uint64_t t0 = now_us();
    ycsb_ret ret = do_put(w, YCSB_INSERT, key, len, true);
    measure(w, YCSB_INSERT, t0, ret);
    return ret;
}

static bool insert_failed(bench *b, int64_t k)
{
    int64_t i = k - b->o.recordcount;
    if (i < 0 || i >= b->failed_bits)
        return false;
    return atomic_load_explicit(&b->failed[i / 8], memory_order_relaxed) & (1u << (i % 8));
}

/* nextKeynum: an acknowledged record, not one whose insert failed (drawn again, a
 * bounded number of times). */
static int64_t next_keynum(worker *w)
{
    int64_t k = 0;
    for (int i = 0; i < FAILED_REDRAWS; i++) {
        k = ycsb_chooser_next(&w->chooser, &w->rng, ycsb_ack_last(&w->b->ack));
        if (!insert_failed(w->b, k))
            break;
    }
    return k;
}

static void run_insert(worker *w)
{
    bench *b = w->b;
    int64_t k = ycsb_ack_next(&b->ack);
    if (insert(w, k) != YCSB_OK) {
        int64_t i = k - b->o.recordcount;
        if (i >= 0 && i < b->failed_bits)
            atomic_fetch_or(&b->failed[i / 8], (uint8_t)(1u << (i % 8)));
    }
    if (ycsb_ack_acknowledge(&b->ack, k) != ST_OK)
        keep_error(b, YCSB_INSERT, "-", st_errmsg());
}

/* One operation of the run phase (doTransaction). */
static void transaction(worker *w)
{
    ycsb_op op = ycsb_opchooser_next(&w->opc, &w->rng);
    if (op == YCSB_INSERT) {
        run_insert(w);
        return;
    }
    char key[YCSB_KEY_MAX];
    size_t len = ycsb_key_of(&w->b->o, next_keynum(w), key);
    uint64_t t0 = now_us();
    ycsb_ret ret;
    if (op == YCSB_READ) {
        ret = do_read(w, key, len);
    } else if (op == YCSB_UPDATE) {
        ret = do_put(w, YCSB_UPDATE, key, len, false);
    } else if (op == YCSB_SCAN) {
        const ycsb_workload *wl = &w->b->o.wl;
        int rows = wl->min_scan +
                   (int)ycsb_rng_below(&w->rng, (uint64_t)(wl->max_scan - wl->min_scan + 1));
        ret = do_scan(w, key, len, rows);
    } else { /* read-modify-write: the read and the update are measured too */
        ret = do_read(w, key, len);
        measure(w, YCSB_READ, t0, ret);
        if (ret == YCSB_OK) {
            uint64_t t1 = now_us();
            ret = do_put(w, YCSB_UPDATE, key, len, false);
            measure(w, YCSB_UPDATE, t1, ret);
        }
    }
    measure(w, op, t0, ret);
}

/* --target: waits until this thread's i-th operation is due. */
static void pace(worker *w, int64_t i)
{
    const ycsb_opts *o = &w->b->o;
    if (o->target <= 0)
        return;
    double per_thread = o->target / o->threads;
    uint64_t due = w->b->phase_start_ns + (uint64_t)((double)i * 1e9 / per_thread);
    uint64_t now = clock_mono_ns();
    while (due > now && now < atomic_load(&w->b->deadline_ns)) {
        uint64_t d = due - now;
        if (d > 100000000ull)
            d = 100000000ull; /* wake at least every 100 ms for the deadline */
        struct timespec ts = {(time_t)(d / 1000000000ull), (long)(d % 1000000000ull)};
        nanosleep(&ts, NULL);
        now = clock_mono_ns();
    }
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    bench *b = w->b;
    for (int64_t i = 0; i < w->todo; i++) {
        pace(w, i);
        if (clock_mono_ns() >= atomic_load(&b->deadline_ns)) {
            w->timed_out = true;
            break;
        }
        uint64_t t0 = now_us();
        if (b->phase == YCSB_PHASE_LOAD)
            insert(w, atomic_fetch_add(&b->keyseq, 1));
        else
            transaction(w);
        ycsb_hist_add(w->txn, now_us() - t0);
        atomic_fetch_add_explicit(&w->done, 1, memory_order_release);
    }
    w->end_ns = clock_mono_ns();
    atomic_fetch_sub(&b->running, 1);
    return NULL;
}

/* ---- threads ---- */

static void free_workers(bench *b)
{
    for (int i = 0; b->w && i < b->o.threads; i++) {
        free(b->w[i].stats);
        free(b->w[i].txn);
        free(b->w[i].value);
        free(b->w[i].fields);
    }
    free(b->w);
    b->w = NULL;
}

static int make_workers(bench *b, int64_t total, const ycsb_chooser *proto)
{
    int T = b->o.threads;
    b->w = calloc((size_t)T, sizeof(worker));
    if (!b->w)
        return st_error(ST_NOMEM, "out of memory for %d threads", T);
    uint64_t seed = b->o.seed ? b->o.seed : clock_mono_ns();
    for (int i = 0; i < T; i++) {
        worker *w = &b->w[i];
        w->b = b;
        w->id = i;
        /* YCSB: opcount / threads each, the remainder to the first threads */
        w->todo = total / T + (i < total % T ? 1 : 0);
        ycsb_rng_seed(&w->rng, seed * 1000003u + (uint64_t)i + (uint64_t)b->phase * 7919u);
        w->chooser = *proto;
        ycsb_opchooser_init(&w->opc, &b->o.wl);
        w->stats = calloc(YCSB_OPS, sizeof(ycsb_opstat));
        w->txn = calloc(1, sizeof(ycsb_hist));
        w->value = malloc((size_t)b->o.field_length);
        w->fields = calloc((size_t)b->o.field_count, sizeof(*w->fields));
        if (!w->stats || !w->txn || !w->value || !w->fields)
            return st_error(ST_NOMEM, "out of memory for thread %d", i);
        for (int f = 0; f < b->o.field_count; f++)
            snprintf(w->fields[f], sizeof(w->fields[f]), FIELD_PREFIX "%d", f);
        atomic_init(&w->done, 0);
    }
    return ST_OK;
}

/* ---- the sampler (--interval) ---- */

/* "host,port,startcode" -> "host:port" (a restarted server keeps its column). */
static void server_column(const char *name, char *out, size_t cap)
{
    const char *c1 = strchr(name, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
    if (c1 && c2)
        snprintf(out, cap, "%.*s:%.*s", (int)(c1 - name), name, (int)(c2 - c1 - 1), c1 + 1);
    else
        snprintf(out, cap, "%s", name);
}

static void sample_servers(bench *b, ycsb_sample *s)
{
    char *err = NULL;
    strata_cluster_status_t *st = strata_admin_cluster_status(b->poll, &err);
    if (!st) {
        fprintf(stderr, "strata bench ycsb: cluster status at %.1f s: %s\n", s->time_s,
                err ? err : "?");
        strata_free(err);
        return;
    }
    s->servers_ok = true;
    for (size_t i = 0; i < strata_cluster_status_live_server_count(st); i++) {
        const strata_server_load_t *l = strata_cluster_status_live_server(st, i);
        char col[YCSB_SERVER_MAX];
        server_column(strata_server_load_name(l), col, sizeof(col));
        int c = ycsb_series_server(&b->series, col);
        if (c < 0)
            continue;
        s->rps[c] = strata_server_load_requests_per_second(l);
        s->regions[c] = (int)strata_server_load_region_count(l);
    }
    strata_cluster_status_destroy(st);
}

/* One sample: the operations that ended since the last one. */
static void take_sample(bench *b, uint64_t now)
{
    uint64_t done = 0;
    memset(b->cur_hist, 0, YCSB_HIST_BUCKETS * sizeof(uint64_t));
    for (int i = 0; i < b->nthreads_started; i++) {
        done += atomic_load_explicit(&b->w[i].done, memory_order_acquire);
        ycsb_hist_collect(b->w[i].txn, b->cur_hist);
    }
    for (size_t i = 0; i < YCSB_HIST_BUCKETS; i++) {
        uint64_t c = b->cur_hist[i];
        b->prev_hist[i] = c >= b->prev_hist[i] ? c - b->prev_hist[i] : 0;
    }
    uint64_t p99 = ycsb_hist_percentile(b->prev_hist, 99);
    memcpy(b->prev_hist, b->cur_hist, YCSB_HIST_BUCKETS * sizeof(uint64_t));
    ycsb_sample *s = ycsb_series_add(&b->series);
    double dt = (double)(now - b->last_ns) / 1e9;
    uint64_t ops = done - b->last_done;
    b->last_ns = now;
    b->last_done = done;
    if (!s)
        return;
    s->time_s = (double)(now - b->t0_ns) / 1e9;
    s->phase = b->phase;
    s->ops_per_s = dt > 0 ? (double)ops / dt : 0;
    s->p99_us = p99;
    if (b->o.servers)
        sample_servers(b, s);
    fprintf(stderr,
            "strata bench ycsb: %7.1f s %s: %" PRIu64 " operations; %.1f current ops/sec; "
            "p99 %" PRIu64 " us\n",
            s->time_s, b->phase == YCSB_PHASE_LOAD ? "load" : "run", done, s->ops_per_s, p99);
}

/* Samples every --interval until the phase's threads are done; the last, shorter
 * interval too if it lasted a fifth of one. */
static void sample_phase(bench *b)
{
    if (b->o.interval_s <= 0)
        return;
    uint64_t step = (uint64_t)(b->o.interval_s * 1e9);
    uint64_t next = b->phase_start_ns + step;
    b->last_ns = b->phase_start_ns;
    b->last_done = 0;
    memset(b->prev_hist, 0, YCSB_HIST_BUCKETS * sizeof(uint64_t));
    while (atomic_load(&b->running) > 0) {
        uint64_t now = clock_mono_ns();
        if (now >= next) {
            take_sample(b, now);
            next += step;
            if (next <= now) /* a slow status call: skip the missed ticks */
                next = now + step;
            continue;
        }
        uint64_t wait_ms = (next - now) / 1000000ull;
        clock_sleep_ms(wait_ms < TICK_MS ? (wait_ms ? (int64_t)wait_ms : 1) : TICK_MS);
    }
    uint64_t now = clock_mono_ns();
    if (now - b->last_ns >= step / 5)
        take_sample(b, now);
}

/* ---- phases ---- */

/* Starts the threads, samples while they run, joins them. */
static int start_workers(bench *b)
{
    atomic_store(&b->running, b->o.threads);
    b->phase_start_ns = clock_mono_ns();
    atomic_store(&b->deadline_ns, b->phase_start_ns + (uint64_t)(b->o.max_seconds * 1e9));
    pthread_t *th = malloc((size_t)b->o.threads * sizeof(pthread_t));
    if (!th)
        return st_error(ST_NOMEM, "out of memory for the threads");
    int started = 0, rc = ST_OK;
    for (; started < b->o.threads; started++)
        if (pthread_create(&th[started], NULL, worker_main, &b->w[started]))
            break;
    if (started < b->o.threads) {
        atomic_fetch_sub(&b->running, b->o.threads - started);
        atomic_store(&b->deadline_ns, 0); /* the started ones stop at once */
        rc = st_error(ST_INTERNAL, "cannot start client thread %d", started);
    }
    b->nthreads_started = started;
    sample_phase(b);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    return rc;
}

/* The phase's figures from its threads into b->res. */
static int collect(bench *b, ycsb_phase_result *r)
{
    ycsb_opstat **stats = malloc((size_t)b->nthreads_started * sizeof(*stats) + 1);
    if (!stats)
        return st_error(ST_NOMEM, "out of memory for the results");
    uint64_t end = b->phase_start_ns;
    for (int i = 0; i < b->nthreads_started; i++) {
        const worker *w = &b->w[i];
        stats[i] = w->stats;
        r->ops += atomic_load(&w->done);
        r->timed_out |= w->timed_out;
        end = w->end_ns > end ? w->end_ns : end;
    }
    r->runtime_ms = (double)(end - b->phase_start_ns) / 1e6;
    int rc = ycsb_merge(stats, (size_t)b->nthreads_started, r);
    free(stats);
    return rc;
}

static int run_phase(bench *b, int phase)
{
    ycsb_phase_result *r = &b->res[b->nres];
    memset(r, 0, sizeof(*r));
    r->phase = phase == YCSB_PHASE_LOAD ? "load" : "run";
    b->phase = phase;
    const ycsb_opts *o = &b->o;
    ycsb_chooser proto; /* the load phase chooses no keys */
    memset(&proto, 0, sizeof(proto));
    if (phase == YCSB_PHASE_RUN)
        ycsb_chooser_init(&proto, o->wl.dist, o->recordcount, o->operationcount,
                          o->wl.prop[YCSB_INSERT], o->hot_data, o->hot_ops);
    int rc = make_workers(b, phase == YCSB_PHASE_LOAD ? o->recordcount : o->operationcount, &proto);
    if (rc == ST_OK && phase == YCSB_PHASE_RUN)
        b->series.run_start_s = (double)(clock_mono_ns() - b->t0_ns) / 1e9;
    if (rc == ST_OK)
        rc = start_workers(b);
    if (b->nthreads_started > 0) {
        int crc = collect(b, r);
        rc = rc != ST_OK ? rc : crc;
        b->nres++;
    }
    free_workers(b);
    b->nthreads_started = 0;
    return rc;
}

/* The run phase's shared state: the acknowledged counter from recordcount, and a bit per
 * possible insert for the ones that failed. */
static int prepare_run(bench *b)
{
    int rc = ycsb_ack_init(&b->ack, b->o.recordcount);
    if (rc == ST_OK && b->o.wl.prop[YCSB_INSERT] > 0) {
        b->failed_bits = b->o.operationcount;
        b->failed = calloc((size_t)(b->failed_bits / 8 + 1), 1);
        if (!b->failed)
            rc = st_error(ST_NOMEM, "out of memory for %" PRId64 " inserts", b->failed_bits);
    }
    return rc;
}

/* ---- the report ---- */

static uint64_t total_errors(const bench *b)
{
    uint64_t n = 0;
    for (int i = 0; i < b->nres; i++)
        n += ycsb_errors(&b->res[i]);
    return n;
}

static int write_outputs(const bench *b)
{
    int rc = ST_OK;
    if (b->o.json)
        rc = ycsb_print_json(stdout, &b->o, b->res, (size_t)b->nres, &b->series);
    else
        ycsb_print_report(stdout, &b->o, b->res, (size_t)b->nres);
    fflush(stdout);
    for (int op = 0; op < YCSB_OPS; op++)
        if (b->first_error[op][0])
            fprintf(stderr, "strata bench ycsb: first %s error: %s\n", ycsb_op_name((ycsb_op)op),
                    b->first_error[op]);
    if (rc == ST_OK && b->o.csv)
        rc = ycsb_series_write_csv(&b->series, b->o.csv);
    if (rc == ST_OK && b->o.plot) {
        char title[256];
        snprintf(title, sizeof(title),
                 "strata bench ycsb: workload %s (%s), %" PRId64 " records, %" PRId64
                 " operations, %d threads",
                 b->o.wl.name, ycsb_dist_name(b->o.wl.dist), b->o.recordcount, b->o.operationcount,
                 b->o.threads);
        rc = ycsb_series_write_svg(&b->series, title, b->o.plot);
    }
    return rc;
}

/* ---- main ---- */

static int bench_run(bench *b)
{
    int rc = find_cluster(b);
    if (rc == ST_OK)
        rc = open_cluster(b);
    if (rc != ST_OK)
        return rc;
    fprintf(stderr, "strata bench ycsb: workload %s (%s) on %s, table %s, %d threads\n",
            b->o.wl.name, ycsb_dist_name(b->o.wl.dist), b->quorum, b->o.table, b->o.threads);
    b->t0_ns = clock_mono_ns();
    if (b->o.phase & YCSB_PHASE_LOAD)
        rc = run_phase(b, YCSB_PHASE_LOAD);
    if (rc == ST_OK && (b->o.phase & YCSB_PHASE_RUN)) {
        rc = prepare_run(b);
        if (rc == ST_OK)
            rc = run_phase(b, YCSB_PHASE_RUN);
    }
    int orc = b->nres > 0 ? write_outputs(b) : ST_OK;
    return rc != ST_OK ? rc : orc;
}

static void bench_free(bench *b)
{
    strata_table_close(b->table);
    strata_client_close(b->client);
    strata_admin_close(b->poll);
    strata_admin_close(b->admin);
    ycsb_ack_free(&b->ack);
    free(b->failed);
    free(b->prev_hist);
    free(b->cur_hist);
    ycsb_series_free(&b->series);
    pthread_mutex_destroy(&b->err_mu);
    free(b);
}

int bench_ycsb_main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            ycsb_help(stdout);
            return 0;
        }
    bench *b = calloc(1, sizeof(*b));
    if (!b) {
        fprintf(stderr, "strata bench ycsb: out of memory\n");
        return 1;
    }
    pthread_mutex_init(&b->err_mu, NULL);
    ycsb_series_init(&b->series);
    if (ycsb_parse_args(argc, argv, &b->o) != ST_OK) {
        fprintf(stderr, "strata bench ycsb: %s (strata bench ycsb --help lists the options)\n",
                st_errmsg());
        bench_free(b);
        return 2;
    }
    b->prev_hist = calloc(YCSB_HIST_BUCKETS, sizeof(uint64_t));
    b->cur_hist = calloc(YCSB_HIST_BUCKETS, sizeof(uint64_t));
    int rc = b->prev_hist && b->cur_hist ? bench_run(b) : st_error(ST_NOMEM, "out of memory");
    if (rc != ST_OK)
        fprintf(stderr, "strata bench ycsb: %s\n", st_errmsg());
    uint64_t errors = total_errors(b);
    if (errors)
        fprintf(stderr, "strata bench ycsb: %" PRIu64 " operation(s) failed\n", errors);
    bench_free(b);
    return rc != ST_OK || errors ? 1 : 0;
}
