/*
 * bench_run.c - runs db_bench's workloads on one engine, in the process that
 * `strata bench engine` forked for that engine, and sends one bench_result per
 * workload back over a pipe.
 *
 * Keys are 16 bytes, the zero-padded decimal of the key number (db_bench's format);
 * values are slices of db_bench's value pool (bench_value_pool). Random key numbers
 * come from splitmix64 seeded by (workload kind, thread), so every engine sees the
 * same key sequence. A bitmap of the key numbers written to the current DB lets the
 * read workloads check every result: readrandom and seekrandom must find exactly the
 * keys written, readseq must return them all, in order, each with a full value.
 *
 * DB reuse follows db_bench: fill workloads start a fresh DB (a new empty directory
 * under the run directory, removed when the next DB starts or the run ends); overwrite
 * and the reads use the current one. Only the workload's loop is timed, not open/close.
 * Peak RSS per workload: /proc/self/clear_refs "5" resets the high-water mark before a
 * workload and VmHWM is read after it (without that, the peak since the process began);
 * closing a DB ends with malloc_trim() so a fresh DB's peak does not count freed heap.
 *
 * Thread-safety: one run per process; fillsync's writers run in threads that share
 * the engine handle and the bitmap (atomic bit sets); each has its own ctx and RNG.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/status.h"
#include "tools/bench.h"

#define VALUE_POOL_MIN (1u << 20)
#define VALUE_PIECE 100

typedef struct run_state {
    const bench_plan *p;
    const bench_db_ops *ops;
    void *db;
    char dir[PATH_MAX];
    unsigned ndbs;             /* fresh DBs made so far */
    _Atomic uint64_t *written; /* bit k: key k was written to the current DB */
    size_t nwords;
} run_state;

/* The start gate: workers wait on it so that the clock starts when all are ready. */
typedef struct gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool open;
} gate;

typedef struct worker {
    run_state *rs;
    const bench_workload *w;
    gate *start;
    void *ctx;
    uint64_t todo; /* operations (readseq: the most entries to read) */
    uint64_t rng;
    size_t value_pos;
    uint64_t ops, bytes, found, expected, errors;
    int status;
    char error[200];
} worker;

/* What a scan callback checks: order, key and value sizes, the first key. */
typedef struct scan_check {
    worker *wk;
    const uint8_t *target; /* seekrandom: the key sought */
    uint8_t prev[BENCH_KEY_LEN];
    uint64_t entries;
    bool first_is_target;
} scan_check;

void bench_json_string(const char *s)
{
    putchar('"');
    for (; *s != '\0'; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            printf("\\%c", ch);
        else if (ch < 0x20)
            printf("\\u%04x", ch);
        else
            putchar(ch);
    }
    putchar('"');
}

int bench_value_pool(size_t value_size, uint8_t **out, size_t *len)
{
    size_t n = value_size > VALUE_POOL_MIN ? value_size : VALUE_POOL_MIN;
    uint64_t rng = 301;
    uint8_t *pool = malloc(n);
    *out = NULL;
    *len = 0;
    if (pool == NULL)
        return st_error(ST_NOMEM, "bench: out of memory for a %zu-byte value pool", n);
    for (size_t off = 0; off < n; off += VALUE_PIECE) {
        size_t piece = n - off < VALUE_PIECE ? n - off : VALUE_PIECE;
        size_t raw = piece / 2 > 0 ? piece / 2 : 1;
        for (size_t i = 0; i < raw; i++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            pool[off + i] = (uint8_t)(' ' + (rng >> 33) % 95);
        }
        for (size_t i = raw; i < piece; i++)
            pool[off + i] = pool[off + i - raw];
    }
    *out = pool;
    *len = n;
    return ST_OK;
}

static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void make_key(uint64_t k, uint8_t *key)
{
    for (int i = BENCH_KEY_LEN - 1; i >= 0; i--) {
        key[i] = (uint8_t)('0' + k % 10);
        k /= 10;
    }
}

static const uint8_t *next_value(worker *wk)
{
    const bench_plan *p = wk->rs->p;
    if (wk->value_pos + p->value_size > p->values_len)
        wk->value_pos = 0;
    const uint8_t *v = p->values + wk->value_pos;
    wk->value_pos += p->value_size;
    return v;
}

static void mark_written(run_state *rs, uint64_t k)
{
    atomic_fetch_or_explicit(&rs->written[k >> 6], 1ull << (k & 63), memory_order_relaxed);
}

static bool was_written(const run_state *rs, uint64_t k)
{
    return (atomic_load_explicit(&rs->written[k >> 6], memory_order_relaxed) >> (k & 63)) & 1;
}

static uint64_t count_written(const run_state *rs)
{
    uint64_t n = 0;
    for (size_t i = 0; i < rs->nwords; i++)
        n += (uint64_t)__builtin_popcountll(atomic_load(&rs->written[i]));
    return n;
}

static void worker_fail(worker *wk, int rc)
{
    wk->status = rc;
    snprintf(wk->error, sizeof(wk->error), "%s: %s (%s)", wk->w->name, st_errmsg(),
             st_strerror(rc));
}

static void fill_loop(worker *wk)
{
    run_state *rs = wk->rs;
    const bench_plan *p = rs->p;
    bool seq = wk->w->kind == BENCH_FILLSEQ;
    bool sync = wk->w->kind == BENCH_FILLSYNC;
    uint8_t key[BENCH_KEY_LEN];
    for (uint64_t i = 0; i < wk->todo; i++) {
        uint64_t k = seq ? i : rng_next(&wk->rng) % p->num;
        make_key(k, key);
        int rc =
            rs->ops->put(rs->db, wk->ctx, key, sizeof(key), next_value(wk), p->value_size, sync);
        if (rc != ST_OK) {
            worker_fail(wk, rc);
            return;
        }
        mark_written(rs, k);
        wk->ops++;
        wk->bytes += sizeof(key) + p->value_size;
    }
}

static void readrandom_loop(worker *wk)
{
    run_state *rs = wk->rs;
    uint8_t key[BENCH_KEY_LEN];
    for (uint64_t i = 0; i < wk->todo; i++) {
        uint64_t k = rng_next(&wk->rng) % rs->p->num;
        bool found = false, want = was_written(rs, k);
        size_t vlen = 0;
        make_key(k, key);
        int rc = rs->ops->get(rs->db, wk->ctx, key, sizeof(key), &found, &vlen);
        if (rc != ST_OK) {
            worker_fail(wk, rc);
            return;
        }
        wk->ops++;
        wk->expected += want;
        wk->found += found;
        wk->bytes += found ? sizeof(key) + vlen : 0;
        wk->errors += found != want || (found && vlen != rs->p->value_size);
    }
}

static bool scan_visit(void *arg, const uint8_t *key, size_t key_len, size_t value_len)
{
    scan_check *c = arg;
    worker *wk = c->wk;
    bool bad_size = key_len != BENCH_KEY_LEN || value_len != wk->rs->p->value_size;
    if (bad_size) {
        wk->errors++;
        return false;
    }
    if (c->entries == 0 && c->target != NULL) {
        int cmp = memcmp(key, c->target, BENCH_KEY_LEN);
        c->first_is_target = cmp == 0;
        wk->errors += cmp < 0;
    } else if (c->entries > 0 && memcmp(c->prev, key, BENCH_KEY_LEN) >= 0) {
        wk->errors++;
    }
    memcpy(c->prev, key, BENCH_KEY_LEN);
    c->entries++;
    wk->bytes += key_len + value_len;
    return true;
}

static void readseq_loop(worker *wk)
{
    run_state *rs = wk->rs;
    scan_check c = {.wk = wk};
    int rc = rs->ops->scan(rs->db, wk->ctx, NULL, 0, wk->todo, scan_visit, &c);
    if (rc != ST_OK) {
        worker_fail(wk, rc);
        return;
    }
    wk->ops = c.entries;
    wk->found = c.entries;
    wk->expected = count_written(rs);
    wk->errors += c.entries > wk->expected ? c.entries - wk->expected : wk->expected - c.entries;
}

static void seekrandom_loop(worker *wk)
{
    run_state *rs = wk->rs;
    uint8_t key[BENCH_KEY_LEN];
    for (uint64_t i = 0; i < wk->todo; i++) {
        uint64_t k = rng_next(&wk->rng) % rs->p->num;
        bool want = was_written(rs, k);
        make_key(k, key);
        scan_check c = {.wk = wk, .target = key};
        int rc =
            rs->ops->scan(rs->db, wk->ctx, key, sizeof(key), BENCH_SEEK_NEXTS + 1, scan_visit, &c);
        if (rc != ST_OK) {
            worker_fail(wk, rc);
            return;
        }
        wk->ops++;
        wk->expected += want;
        wk->found += c.first_is_target;
        wk->errors += c.first_is_target != want;
    }
}

static void *worker_main(void *arg)
{
    worker *wk = arg;
    if (wk->start != NULL) {
        pthread_mutex_lock(&wk->start->mu);
        while (!wk->start->open)
            pthread_cond_wait(&wk->start->cv, &wk->start->mu);
        pthread_mutex_unlock(&wk->start->mu);
    }
    switch (wk->w->kind) {
    case BENCH_READRANDOM:
        readrandom_loop(wk);
        break;
    case BENCH_READSEQ:
        readseq_loop(wk);
        break;
    case BENCH_SEEKRANDOM:
        seekrandom_loop(wk);
        break;
    default:
        fill_loop(wk);
        break;
    }
    return NULL;
}

static uint64_t workload_todo(const bench_workload *w, uint64_t num)
{
    uint64_t n;
    switch (w->kind) {
    case BENCH_READSEQ:
        return num + 1; /* more entries than keys exist shows up as an error */
    case BENCH_SEEKRANDOM:
        n = num / 10;
        break;
    case BENCH_FILLSYNC:
        n = num / 100 / (uint64_t)w->threads;
        break;
    default:
        n = num;
        break;
    }
    return n > 0 ? n : 1;
}

static void gate_open(gate *g)
{
    pthread_mutex_lock(&g->mu);
    g->open = true;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

/* Runs n workers (n > 1: in threads released together); returns the elapsed seconds. */
static double run_workers(worker *wk, int n, int *status)
{
    gate g = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    pthread_t tids[BENCH_MAX_THREADS];
    int started = 0;
    uint64_t t0 = clock_mono_ns();
    if (n == 1) {
        worker_main(&wk[0]);
        return (double)(clock_mono_ns() - t0) / 1e9;
    }
    for (; started < n; started++) {
        wk[started].start = &g;
        if (pthread_create(&tids[started], NULL, worker_main, &wk[started]) != 0)
            break;
    }
    if (started < n)
        *status = st_error(ST_INTERNAL, "bench: cannot start writer thread %d", started);
    t0 = clock_mono_ns();
    gate_open(&g);
    for (int i = 0; i < started; i++)
        pthread_join(tids[i], NULL);
    return (double)(clock_mono_ns() - t0) / 1e9;
}

static void collect(const worker *wk, int n, bench_result *res)
{
    for (int i = 0; i < n; i++) {
        res->ops += wk[i].ops;
        res->bytes += wk[i].bytes;
        res->found += wk[i].found;
        res->expected += wk[i].expected;
        res->errors += wk[i].errors;
        if (wk[i].status != ST_OK && res->status == ST_OK) {
            res->status = wk[i].status;
            snprintf(res->error, sizeof(res->error), "%s", wk[i].error);
        }
    }
    if (res->status == ST_OK && res->errors > 0) {
        res->status = ST_CORRUPTION;
        snprintf(res->error, sizeof(res->error),
                 "%s: %" PRIu64 " results disagree with the keys written (found %" PRIu64
                 ", expected %" PRIu64 ")",
                 res->workload, res->errors, res->found, res->expected);
    }
}

static void run_workload(run_state *rs, const bench_workload *w, bench_result *res)
{
    worker wk[BENCH_MAX_THREADS];
    int n = w->kind == BENCH_FILLSYNC ? w->threads : 1, made = 0, rc = ST_OK;
    for (; made < n; made++) {
        memset(&wk[made], 0, sizeof(wk[made]));
        wk[made].rs = rs;
        wk[made].w = w;
        wk[made].todo = workload_todo(w, rs->p->num);
        wk[made].rng = ((uint64_t)w->kind + 1) << 32 | (uint64_t)made;
        wk[made].value_pos = (size_t)made * rs->p->value_size * 7919 % rs->p->values_len;
        rc = rs->ops->ctx_new(rs->db, &wk[made].ctx);
        if (rc != ST_OK)
            break;
    }
    if (rc == ST_OK)
        res->seconds = run_workers(wk, n, &rc);
    if (rc != ST_OK) {
        res->status = rc;
        snprintf(res->error, sizeof(res->error), "%s: %s", w->name, st_errmsg());
    }
    collect(wk, made, res);
    for (int i = 0; i < made; i++)
        rs->ops->ctx_free(wk[i].ctx);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path) == 0 ? 0 : -1;
}

static void close_db(run_state *rs)
{
    if (rs->db != NULL)
        rs->ops->close(rs->db);
    rs->db = NULL;
    if (rs->dir[0] != '\0')
        nftw(rs->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    rs->dir[0] = '\0';
    malloc_trim(0); /* so the next workload's peak RSS does not count freed heap */
}

static int fresh_db(run_state *rs)
{
    close_db(rs);
    memset(rs->written, 0, rs->nwords * sizeof(rs->written[0]));
    snprintf(rs->dir, sizeof(rs->dir), "%s/%s.%u", rs->p->run_dir, rs->ops->name, rs->ndbs++);
    if (mkdir(rs->dir, 0755) != 0)
        return st_error(ST_IO, "bench: mkdir %s: %s", rs->dir, strerror(errno));
    return rs->ops->open(rs->dir, &rs->p->db, &rs->db);
}

static void rss_reset(void)
{
    int fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = write(fd, "5", 1);
    (void)n;
    close(fd);
}

static long rss_peak_kb(void)
{
    char line[256];
    long kb = -1;
    FILE *f = fopen("/proc/self/status", "re");
    while (f != NULL && kb < 0 && fgets(line, sizeof(line), f) != NULL)
        if (sscanf(line, "VmHWM: %ld kB", &kb) != 1)
            kb = -1;
    if (f != NULL)
        fclose(f);
    if (kb < 0) {
        struct rusage ru;
        kb = getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : 0;
    }
    return kb;
}

static int send_result(int fd, const bench_result *res)
{
    const char *p = (const char *)res;
    size_t left = sizeof(*res);
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return st_error(ST_IO, "bench: writing a result to the parent: %s", strerror(errno));
        p += n;
        left -= (size_t)n;
    }
    return ST_OK;
}

static bool wants_fresh_db(const run_state *rs, const bench_workload *w)
{
    return rs->db == NULL || w->kind == BENCH_FILLSEQ || w->kind == BENCH_FILLRANDOM ||
           w->kind == BENCH_FILLSYNC;
}

/* Runs one workload and sends its result; *status is the workload's status, the return
 * whether the result could be sent. */
static int run_one(run_state *rs, const bench_workload *w, int fd, int *status)
{
    bench_result res;
    memset(&res, 0, sizeof(res));
    snprintf(res.workload, sizeof(res.workload), "%s", w->name);
    int rc = wants_fresh_db(rs, w) ? fresh_db(rs) : ST_OK;
    if (rc == ST_OK) {
        rss_reset();
        run_workload(rs, w, &res);
        res.peak_rss_kb = rss_peak_kb();
    } else {
        res.status = rc;
        snprintf(res.error, sizeof(res.error), "%s: opening a fresh %s DB: %s", w->name,
                 rs->ops->name, st_errmsg());
    }
    *status = res.status;
    return send_result(fd, &res);
}

int bench_run_engine(const bench_plan *p, const bench_db_ops *ops, int fd)
{
    run_state rs;
    int rc = ST_OK;
    memset(&rs, 0, sizeof(rs));
    rs.p = p;
    rs.ops = ops;
    rs.nwords = (size_t)(p->num / 64 + 1);
    rs.written = calloc(rs.nwords, sizeof(rs.written[0]));
    if (rs.written == NULL)
        return st_error(ST_NOMEM, "bench: out of memory for a %" PRIu64 "-key bitmap", p->num);
    for (size_t i = 0; i < p->nworkloads; i++) {
        int st = ST_OK;
        if (run_one(&rs, &p->workloads[i], fd, &st) != ST_OK) {
            rc = rc != ST_OK ? rc : ST_IO;
            break;
        }
        rc = rc != ST_OK ? rc : st;
    }
    close_db(&rs);
    free(rs.written);
    return rc;
}
