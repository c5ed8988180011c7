/*
 * bench_failover_load.c - the writers and readers of `strata bench failover`
 * (bench_failover.h): unique rows put through the C client and logged once
 * acknowledged, random reads of logged rows, per-thread gaps between successful calls,
 * and the read-back of every logged row at the end.
 *
 * Thread-safety: see bench_failover.h. Each thread writes only its own bfo_thread; a
 * reader reads the writers' logs through their published counts (acquire), never past
 * them; err_mu guards the kept messages.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/status.h"
#include "tools/bench_failover.h"

#define LOG_CHUNK 65536u
#define LOG_CHUNKS 4096u /* 268M rows per writer at most */
#define SCAN_CACHING 1000
#define EMPTY_WAIT_MS 2

typedef struct gap {
    uint64_t from_ns, to_ns;
} gap;

/* One writer's acknowledged sequence numbers, in chunks that never move. */
typedef struct ack_log {
    uint32_t *chunks[LOG_CHUNKS];
    _Atomic size_t n;
} ack_log;

typedef struct bfo_thread {
    bfo_load *l;
    int id; /* writers 0..W-1, readers W.. */
    bool writer;
    pthread_t th;
    bool started;
    uint64_t rng;
    uint32_t next_seq; /* writers: the next row's sequence number */
    ack_log log;
    gap *gaps;
    size_t ngaps, gaps_cap;
    _Atomic uint64_t last_ok_ns; /* read live by bfo_load_resumed_since */
    uint64_t calls, reads, misses, retryable, fatal;
} bfo_thread;

struct bfo_load {
    bfo_load_opts o;
    bfo_thread *t;
    size_t n;
    atomic_bool stop;
    pthread_mutex_t err_mu;
    char *errors[BFO_KEEP_ERRORS], *miss_msgs[BFO_KEEP_ERRORS];
    size_t nerrors, nmisses;
};

static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static uint32_t mix32(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return (uint32_t)x;
}

/* Row of writer w's seq-th put into out (BFO_ROW_MAX); its length. */
static size_t format_row(int w, uint32_t seq, char *out)
{
    uint32_t h = mix32(((uint64_t)(uint32_t)w << 32) | seq);
    return (size_t)snprintf(out, BFO_ROW_MAX, "%08" PRIx32 "-%03d-%010" PRIu32, h, w, seq);
}

/* Parses a row format_row wrote: true and w, seq. */
static bool parse_row(const char *row, size_t len, int *w, uint32_t *seq)
{
    char buf[BFO_ROW_MAX], check[BFO_ROW_MAX];
    unsigned x, ww;
    unsigned long s;
    if (len == 0 || len >= sizeof(buf))
        return false;
    memcpy(buf, row, len);
    buf[len] = 0;
    if (sscanf(buf, "%8x-%3u-%10lu", &x, &ww, &s) != 3 || s > UINT32_MAX)
        return false;
    *w = (int)ww;
    *seq = (uint32_t)s;
    return format_row(*w, *seq, check) == len && memcmp(check, buf, len) == 0;
}

/* The value of a row: the row, then '.' up to value_size. */
static void fill_value(const char *row, size_t row_len, char *value, size_t value_len)
{
    memset(value, '.', value_len);
    memcpy(value, row, row_len < value_len ? row_len : value_len);
}

static bool value_ok(const char *row, size_t row_len, const char *v, size_t len, size_t want)
{
    return v && len == want && memcmp(v, row, row_len) == 0;
}

/* ---- per-thread records ---- */

static void keep_msg(bfo_load *l, char **v, size_t *n, const char *msg)
{
    pthread_mutex_lock(&l->err_mu);
    if (*n < BFO_KEEP_ERRORS)
        v[(*n)++] = strdup(msg);
    pthread_mutex_unlock(&l->err_mu);
}

/* A successful call returned at now: ends the current gap. */
static void note_ok(bfo_thread *t, uint64_t now)
{
    if (now - t->last_ok_ns >= BFO_GAP_KEEP_NS) {
        if (t->ngaps == t->gaps_cap) {
            size_t nc = t->gaps_cap ? t->gaps_cap * 2 : 1024;
            gap *ng = realloc(t->gaps, nc * sizeof(*ng));
            if (ng) {
                t->gaps = ng;
                t->gaps_cap = nc;
            }
        }
        if (t->ngaps < t->gaps_cap)
            t->gaps[t->ngaps++] = (gap){t->last_ok_ns, now};
    }
    t->last_ok_ns = now;
}

/* A call failed with err (the library's message). */
static void note_error(bfo_thread *t, const char *err)
{
    if (strata_error_code(err) == STRATA_ERR_RETRYABLE) {
        t->retryable++;
        return;
    }
    t->fatal++;
    char msg[400];
    snprintf(msg, sizeof(msg), "%s %d: %s", t->writer ? "writer" : "reader", t->id, err);
    keep_msg(t->l, t->l->errors, &t->l->nerrors, msg);
}

static bool log_append(ack_log *g, uint32_t seq)
{
    size_t n = atomic_load_explicit(&g->n, memory_order_relaxed);
    size_t c = n / LOG_CHUNK;
    if (c >= LOG_CHUNKS)
        return false;
    if (!g->chunks[c] && !(g->chunks[c] = malloc(LOG_CHUNK * sizeof(uint32_t))))
        return false;
    g->chunks[c][n % LOG_CHUNK] = seq;
    atomic_store_explicit(&g->n, n + 1, memory_order_release);
    return true;
}

static uint32_t log_at(const ack_log *g, size_t i)
{
    return g->chunks[i / LOG_CHUNK][i % LOG_CHUNK];
}

/* With a rate, waits until the next call is due; a late call does not make the next
 * ones come faster. */
static void pace(const bfo_load *l, uint64_t *due)
{
    if (l->o.rate <= 0)
        return;
    uint64_t period = (uint64_t)(1e9 / l->o.rate);
    uint64_t now = clock_mono_ns();
    *due = *due + period < now ? now : *due + period;
    if (*due > now) {
        uint64_t d = *due - now;
        struct timespec ts = {(time_t)(d / 1000000000ull), (long)(d % 1000000000ull)};
        nanosleep(&ts, NULL);
    }
}

/* ---- writers ---- */

static strata_mutation_t *make_put(const bfo_load *l, int w, uint32_t seq, char *value)
{
    char row[BFO_ROW_MAX];
    size_t rl = format_row(w, seq, row);
    fill_value(row, rl, value, (size_t)l->o.value_size);
    strata_mutation_t *m = strata_put_create(row, rl);
    if (m)
        strata_put_add(m, l->o.family, strlen(l->o.family), l->o.qualifier, strlen(l->o.qualifier),
                       STRATA_LATEST_TIMESTAMP, value, (size_t)l->o.value_size);
    return m;
}

static void write_one(bfo_thread *t, char *value)
{
    char *err = NULL;
    uint32_t seq = t->next_seq++;
    strata_mutation_t *m = make_put(t->l, t->id, seq, value);
    strata_table_put(t->l->o.table, m, &err);
    uint64_t now = clock_mono_ns();
    strata_mutation_destroy(m);
    t->calls++;
    if (err) {
        note_error(t, err);
        strata_free(err);
        return;
    }
    note_ok(t, now);
    log_append(&t->log, seq);
}

static void write_batch(bfo_thread *t, char *value)
{
    char *err = NULL;
    strata_batch_t *b = strata_batch_create();
    uint32_t first = t->next_seq;
    for (int i = 0; i < t->l->o.batch; i++) {
        strata_mutation_t *m = make_put(t->l, t->id, t->next_seq++, value);
        strata_batch_add_mutation(b, m);
        strata_mutation_destroy(m);
    }
    strata_table_batch(t->l->o.table, b, &err);
    uint64_t now = clock_mono_ns();
    t->calls++;
    if (!err)
        note_ok(t, now);
    size_t failed = 0;
    for (size_t i = 0; i < strata_batch_count(b); i++) {
        const char *e = strata_batch_error(b, i);
        if (!e) {
            log_append(&t->log, first + (uint32_t)i);
        } else {
            note_error(t, e);
            failed++;
        }
    }
    if (err && failed == 0)
        note_error(t, err);
    strata_free(err);
    strata_batch_destroy(b);
}

/* ---- readers ---- */

static void read_one(bfo_thread *t)
{
    bfo_load *l = t->l;
    int w = (int)(next_rand(&t->rng) % (uint64_t)l->o.writers);
    const ack_log *g = &l->t[w].log;
    size_t n = atomic_load_explicit(&g->n, memory_order_acquire);
    if (n == 0) {
        clock_sleep_ms(EMPTY_WAIT_MS);
        return;
    }
    uint32_t seq = log_at(g, (size_t)(next_rand(&t->rng) % n));
    char row[BFO_ROW_MAX], *err = NULL;
    size_t rl = format_row(w, seq, row);
    strata_get_t *get = strata_get_create(row, rl);
    strata_result_t *r = strata_table_get(l->o.table, get, &err);
    uint64_t now = clock_mono_ns();
    strata_get_destroy(get);
    t->reads++;
    if (err) {
        note_error(t, err);
        strata_free(err);
        strata_result_destroy(r);
        return;
    }
    size_t vl = 0;
    const char *v = r ? strata_result_value(r, l->o.family, strlen(l->o.family), l->o.qualifier,
                                            strlen(l->o.qualifier), &vl)
                      : NULL;
    if (value_ok(row, rl, v, vl, (size_t)l->o.value_size)) {
        note_ok(t, now);
    } else {
        t->misses++;
        char msg[200];
        snprintf(msg, sizeof(msg), "reader %d: acknowledged row %s %s", t->id, row,
                 v ? "has a wrong value" : "not found");
        keep_msg(l, l->miss_msgs, &l->nmisses, msg);
    }
    strata_result_destroy(r);
}

static void *thread_main(void *arg)
{
    bfo_thread *t = arg;
    bfo_load *l = t->l;
    char *value = t->writer ? malloc((size_t)l->o.value_size) : NULL;
    uint64_t due = clock_mono_ns();
    t->last_ok_ns = due;
    while (!atomic_load(&l->stop) && (!t->writer || value)) {
        pace(l, &due);
        if (!t->writer)
            read_one(t);
        else if (l->o.batch > 1)
            write_batch(t, value);
        else
            write_one(t, value);
    }
    /* The gap the run's end cut off, so that a thread stuck until the end shows it. */
    uint64_t end = clock_mono_ns();
    uint64_t last = t->last_ok_ns;
    note_ok(t, end);
    t->last_ok_ns = last;
    free(value);
    return NULL;
}

/* ---- start, stop, results ---- */

int bfo_load_start(const bfo_load_opts *o, bfo_load **out)
{
    *out = NULL;
    size_t n = (size_t)o->writers + (size_t)o->readers;
    bfo_load *l = calloc(1, sizeof(*l));
    if (!l || !(l->t = calloc(n, sizeof(*l->t)))) {
        free(l);
        return st_error(ST_NOMEM, "bench failover: out of memory for %zu threads", n);
    }
    l->o = *o;
    l->n = n;
    pthread_mutex_init(&l->err_mu, NULL);
    uint64_t seed = clock_mono_ns();
    for (size_t i = 0; i < n; i++) {
        bfo_thread *t = &l->t[i];
        t->l = l;
        t->writer = i < (size_t)o->writers;
        t->id = (int)i;
        t->rng = (0x9E3779B97F4A7C15ull * (i + 1)) ^ seed;
        if (!t->rng)
            t->rng = 1;
    }
    for (size_t i = 0; i < n; i++) {
        if (pthread_create(&l->t[i].th, NULL, thread_main, &l->t[i]) != 0) {
            bfo_load_stop(l);
            bfo_load_free(l);
            return st_error(ST_INTERNAL, "bench failover: cannot start thread %zu", i);
        }
        l->t[i].started = true;
    }
    *out = l;
    return ST_OK;
}

void bfo_load_stop(bfo_load *l)
{
    atomic_store(&l->stop, true);
    for (size_t i = 0; i < l->n; i++)
        if (l->t[i].started) {
            pthread_join(l->t[i].th, NULL);
            l->t[i].started = false;
        }
}

void bfo_load_free(bfo_load *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++) {
        for (size_t c = 0; c < LOG_CHUNKS; c++)
            free(l->t[i].log.chunks[c]);
        free(l->t[i].gaps);
    }
    for (size_t i = 0; i < BFO_KEEP_ERRORS; i++) {
        free(l->errors[i]);
        free(l->miss_msgs[i]);
    }
    pthread_mutex_destroy(&l->err_mu);
    free(l->t);
    free(l);
}

bool bfo_load_resumed_since(const bfo_load *l, uint64_t t_ns)
{
    for (size_t i = 0; i < l->n; i++)
        if (atomic_load(&l->t[i].last_ok_ns) < t_ns)
            return false;
    return true;
}

size_t bfo_load_threads(const bfo_load *l)
{
    return l->n;
}

bool bfo_load_is_writer(const bfo_load *l, size_t i)
{
    return i < l->n && l->t[i].writer;
}

uint64_t bfo_load_stall_ns(const bfo_load *l, size_t i, uint64_t from_ns, uint64_t to_ns)
{
    uint64_t best = 0;
    const bfo_thread *t = &l->t[i];
    for (size_t k = 0; k < t->ngaps; k++) {
        const gap *g = &t->gaps[k];
        /* A gap belongs to the window it ends in: the next fault's gap starts before
         * that fault, inside this window, but is that fault's. */
        if (g->to_ns > from_ns && g->to_ns <= to_ns && g->to_ns - g->from_ns > best)
            best = g->to_ns - g->from_ns;
    }
    return best;
}

void bfo_load_totals(const bfo_load *l, bfo_totals *s)
{
    memset(s, 0, sizeof(*s));
    for (size_t i = 0; i < l->n; i++) {
        const bfo_thread *t = &l->t[i];
        s->write_calls += t->writer ? t->calls : 0;
        s->reads += t->reads;
        s->acked += atomic_load(&t->log.n);
        s->misses += t->misses;
        s->retryable += t->retryable;
        s->fatal += t->fatal;
    }
}

const char *bfo_load_error(const bfo_load *l, size_t i)
{
    return i < l->nerrors ? l->errors[i] : NULL;
}

const char *bfo_load_miss(const bfo_load *l, size_t i)
{
    return i < l->nmisses ? l->miss_msgs[i] : NULL;
}

/* ---- read-back ---- */

/* Marks in seen[w] every intact row of the writers that a full scan returns. */
static void scan_all(const bfo_load *l, strata_table_t *tb, uint8_t **seen, bfo_verify *r)
{
    char *err = NULL;
    strata_scan_t *s = strata_scan_create();
    strata_scan_set_caching(s, SCAN_CACHING);
    strata_scanner_t *sc = strata_table_scan(tb, s, &err);
    strata_result_t *res = NULL;
    while (sc && !err && (res = strata_scanner_next(sc, &err)) != NULL) {
        size_t rl = 0, vl = 0;
        const char *row = strata_result_row(res, &rl);
        const char *v = strata_result_value(res, l->o.family, strlen(l->o.family), l->o.qualifier,
                                            strlen(l->o.qualifier), &vl);
        int w;
        uint32_t seq;
        if (parse_row(row, rl, &w, &seq) && w < l->o.writers && seq < l->t[w].next_seq &&
            value_ok(row, rl, v, vl, (size_t)l->o.value_size))
            seen[w][seq / 8] |= (uint8_t)(1u << (seq % 8));
        else
            r->foreign_rows++;
        strata_result_destroy(res);
    }
    if (err) {
        r->scan_failed = true;
        r->scan_code = strata_error_code(err);
        snprintf(r->error, sizeof(r->error), "scan: %s", err);
        strata_free(err);
    }
    strata_scanner_close(sc);
    strata_scan_destroy(s);
}

/* Whether a get finds writer w's row seq intact. */
static bool get_row(const bfo_load *l, strata_table_t *tb, int w, uint32_t seq, bfo_verify *r)
{
    char row[BFO_ROW_MAX], *err = NULL;
    size_t rl = format_row(w, seq, row), vl = 0;
    strata_get_t *g = strata_get_create(row, rl);
    strata_result_t *res = strata_table_get(tb, g, &err);
    strata_get_destroy(g);
    const char *v = res ? strata_result_value(res, l->o.family, strlen(l->o.family), l->o.qualifier,
                                              strlen(l->o.qualifier), &vl)
                        : NULL;
    bool ok = !err && value_ok(row, rl, v, vl, (size_t)l->o.value_size);
    if (err && !r->error[0])
        snprintf(r->error, sizeof(r->error), "get %s: %s", row, err);
    strata_free(err);
    strata_result_destroy(res);
    return ok;
}

int bfo_load_verify(const bfo_load *l, strata_table_t *tb, bfo_verify *r)
{
    memset(r, 0, sizeof(*r));
    int rc = ST_OK;
    int nw = l->o.writers;
    uint8_t **seen = calloc((size_t)nw, sizeof(*seen));
    for (int w = 0; seen && w < nw; w++)
        if (!(seen[w] = calloc((size_t)l->t[w].next_seq / 8 + 1, 1)))
            rc = ST_NOMEM;
    if (!seen || rc != ST_OK) {
        rc = st_error(ST_NOMEM, "bench failover: out of memory for the read-back");
        goto out;
    }
    scan_all(l, tb, seen, r);
    for (int w = 0; w < nw; w++) {
        const ack_log *g = &l->t[w].log;
        size_t n = atomic_load(&g->n);
        for (size_t i = 0; i < n; i++) {
            uint32_t seq = log_at(g, i);
            r->acked++;
            if (seen[w][seq / 8] & (1u << (seq % 8)))
                r->scanned++;
            else if (get_row(l, tb, w, seq, r))
                r->got++;
            else if (r->missing++ == 0)
                format_row(w, seq, r->first_missing);
        }
    }
out:
    for (int w = 0; seen && w < nw; w++)
        free(seen[w]);
    free(seen);
    return rc;
}
