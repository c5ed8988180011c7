/*
 * verify_acid.c - HBase's TestAcidGuarantees on Strata (verify.h, vacid_*;
 * docs/reliability.md "Verifiers"): row atomicity seen through gets and scans while
 * writers overwrite whole rows, and counters that must never go back.
 *
 *   writer       picks a row test_row_<k>, puts the value "w<id>-<seq>" (unique per
 *                writer) into every column col0..col<N-1> of families A, B and C in one
 *                put; a put that failed is sent again with the same value
 *   getter       gets a row (with incrementers, now and then counter_row) and checks it
 *                with vacid_check_row: one value everywhere, no column missing; an empty
 *                row is fine until a write to it was acknowledged, torn after
 *   scanner      scans the whole table: every test row as a getter checks it, counter_row
 *                as below, and every row acknowledged before the scan began must be in it
 *   incrementer  strata_table_increment(counter_row, A:counter, 1): the value returned
 *                must be above the one it returned before
 *
 * A reader (getter, scanner) keeps the last counter it read: a lower one (or none after
 * one) is a decrease. Threads run until the duration is over or vacid_stop.
 *
 * Thread-safety: each thread owns its record and buffers; the acknowledged-row flags are
 * atomics; viol_mu guards the kept violation messages.
 */
#include <ctype.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/status.h"
#include "tools/verify.h"
#include "tools/verify_internal.h"

#define NFAM 3
#define SCAN_CACHING 100
#define ERROR_PAUSE_MS 20
#define ROW_MAX 32
#define QUAL_MAX 16
#define NS_PER_S 1e9

typedef enum kind { WRITER, GETTER, SCANNER, INCREMENTER } kind;

typedef struct athread {
    vacid_run *r;
    kind k;
    int id;
    pthread_t th;
    bool started;
    vstats_thread st;
    verify_rng rng;
    uint64_t seq;
    int64_t last_counter;
    bool have_counter;
    uint64_t torn, counter_reads, decreases, scanned_rows, fatal;
    vacid_cell *cells;
    size_t cells_cap;
    uint8_t *scan_seen;
} athread;

struct vacid_run {
    vacid_opts o;
    verify_conn conn;
    athread *t;
    size_t n;
    atomic_bool stop;
    _Atomic size_t ended;
    _Atomic uint8_t *acked; /* per row: a write to it was acknowledged */
    char (*quals)[QUAL_MAX];
    uint64_t start_ns, end_ns, stop_ns;
    pthread_mutex_t viol_mu;
    char *viol[VACID_KEEP];
    size_t nviol;
};

void vacid_opts_default(vacid_opts *o)
{
    *o = (vacid_opts){.columns = 10,
                      .rows = 3,
                      .writers = 2,
                      .getters = 2,
                      .scanners = 1,
                      .incrementers = 1,
                      .duration_s = 20};
}

/* ---- the row check (pure) ---- */

/* The family index of a one-letter family of VACID_FAMILIES, or -1. */
static int family_index(const char *f, size_t len)
{
    const char *p = len == 1 ? strchr(VACID_FAMILIES, f[0]) : NULL;
    return p && f[0] ? (int)(p - VACID_FAMILIES) : -1;
}

/* k of "col<k>" with k < columns and no leading zero, or -1. */
static int column_index(const char *q, size_t len, int columns)
{
    size_t pl = strlen(VACID_COL_PREFIX);
    if (len <= pl || len > pl + 6 || memcmp(q, VACID_COL_PREFIX, pl) != 0)
        return -1;
    if (q[pl] == '0' && len > pl + 1)
        return -1;
    int k = 0;
    for (size_t i = pl; i < len; i++) {
        if (!isdigit((unsigned char)q[i]))
            return -1;
        k = k * 10 + (q[i] - '0');
    }
    return k < columns ? k : -1;
}

static void printable(char *out, size_t cap, const char *v, size_t len)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 5 < cap; i++) {
        unsigned char c = (unsigned char)v[i];
        if (isprint(c) && c != '\\')
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
    }
    out[o] = 0;
}

static void col_name(char *out, size_t cap, int f, int k)
{
    snprintf(out, cap, "%c:%s%d", VACID_FAMILIES[f], VACID_COL_PREFIX, k);
}

vacid_row_state vacid_check_row(const vacid_cell *cells, size_t n, int columns, vacid_tear *why)
{
    uint8_t seen[(NFAM * VACID_MAX_COLUMNS + 7) / 8];
    if (columns > VACID_MAX_COLUMNS)
        columns = VACID_MAX_COLUMNS;
    memset(seen, 0, sizeof(seen));
    const vacid_cell *first = NULL;
    int first_f = 0, first_k = 0;
    size_t present = 0;
    for (size_t i = 0; i < n; i++) {
        const vacid_cell *c = &cells[i];
        int f = family_index(c->family, c->family_len);
        int k = f < 0 ? -1 : column_index(c->qualifier, c->qualifier_len, columns);
        if (k < 0)
            continue;
        size_t bit = (size_t)f * (size_t)columns + (size_t)k;
        if (seen[bit / 8] & (1u << (bit % 8)))
            continue; /* an older version of a column already counted */
        seen[bit / 8] |= (uint8_t)(1u << (bit % 8));
        present++;
        if (!first) {
            first = c;
            first_f = f;
            first_k = k;
        } else if (c->value_len != first->value_len ||
                   memcmp(c->value, first->value, c->value_len) != 0) {
            if (why) {
                memset(why, 0, sizeof(*why));
                col_name(why->col_a, sizeof(why->col_a), first_f, first_k);
                col_name(why->col_b, sizeof(why->col_b), f, k);
                printable(why->value_a, sizeof(why->value_a), first->value, first->value_len);
                printable(why->value_b, sizeof(why->value_b), c->value, c->value_len);
            }
            return VACID_ROW_TORN;
        }
    }
    if (present == 0)
        return VACID_ROW_EMPTY;
    if (present == (size_t)NFAM * (size_t)columns)
        return VACID_ROW_OK;
    if (why) {
        memset(why, 0, sizeof(*why));
        col_name(why->col_a, sizeof(why->col_a), first_f, first_k);
        printable(why->value_a, sizeof(why->value_a), first->value, first->value_len);
        for (size_t bit = 0; bit < (size_t)NFAM * (size_t)columns; bit++)
            if (!(seen[bit / 8] & (1u << (bit % 8)))) {
                col_name(why->col_b, sizeof(why->col_b), (int)(bit / (size_t)columns),
                         (int)(bit % (size_t)columns));
                break;
            }
        why->missing_b = true;
    }
    return VACID_ROW_PARTIAL;
}

bool vacid_passed(const vacid_result *res)
{
    return res->torn_gets == 0 && res->torn_scans == 0 && res->counter_decreases == 0;
}

/* ---- violations and records ---- */

static void violation(athread *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void violation(athread *t, const char *fmt, ...)
{
    char msg[400];
    int o = snprintf(msg, sizeof(msg), "%s: ", t->st.name);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + o, sizeof(msg) - (size_t)o, fmt, ap);
    va_end(ap);
    vacid_run *r = t->r;
    pthread_mutex_lock(&r->viol_mu);
    if (r->nviol < VACID_KEEP)
        r->viol[r->nviol++] = strdup(msg);
    pthread_mutex_unlock(&r->viol_mu);
}

static bool running(const athread *t)
{
    return !atomic_load(&t->r->stop) && clock_mono_ns() < t->r->end_ns;
}

/* A call failed with err (freed): counted; false if no retry can help (the caller then
 * stops the run). */
static bool failed(athread *t, char *err)
{
    strata_code code = strata_error_code(err);
    vstats_error(&t->st, code);
    bool again = vstats_code_retryable(code);
    if (!again) {
        t->fatal++;
        violation(t, "stopped: %s", err);
    }
    strata_free(err);
    if (again)
        verify_sleep_ms(ERROR_PAUSE_MS, &t->r->stop);
    return again;
}

static size_t row_name(int k, char *out)
{
    return (size_t)snprintf(out, ROW_MAX, "%s%d", VACID_ROW_PREFIX, k);
}

/* ---- writers and incrementers ---- */

static strata_mutation_t *row_put(const athread *t, int row, const char *value, size_t vlen)
{
    char name[ROW_MAX];
    size_t rl = row_name(row, name);
    strata_mutation_t *m = strata_put_create(name, rl);
    for (int f = 0; m && f < NFAM; f++)
        for (int k = 0; k < t->r->o.columns; k++)
            strata_put_add(m, &VACID_FAMILIES[f], 1, t->r->quals[k], strlen(t->r->quals[k]),
                           STRATA_LATEST_TIMESTAMP, value, vlen);
    return m;
}

static void write_one(athread *t)
{
    int row = (int)(verify_rng_next(&t->rng) % (uint64_t)t->r->o.rows);
    char value[48];
    int vl = snprintf(value, sizeof(value), "w%d-%" PRIu64, t->id, t->seq++);
    strata_mutation_t *m = row_put(t, row, value, (size_t)vl);
    if (!m) {
        t->fatal++;
        atomic_store(&t->r->stop, true);
        return;
    }
    for (bool first = true; running(t); first = false) {
        char *err = NULL;
        if (!first)
            vstats_retry(&t->st);
        strata_table_put(t->r->conn.t, m, &err);
        if (!err) {
            vstats_ok(&t->st, clock_mono_ns());
            atomic_store(&t->r->acked[row], 1);
            break;
        }
        if (!failed(t, err)) {
            atomic_store(&t->r->stop, true); /* no retry fixes it: every thread ends */
            break;
        }
    }
    strata_mutation_destroy(m);
}

static void increment_one(athread *t)
{
    char *err = NULL;
    const char *row = VACID_COUNTER_ROW;
    int64_t v = strata_table_increment(t->r->conn.t, row, strlen(row), "A", 1, VACID_COUNTER_COL,
                                       strlen(VACID_COUNTER_COL), 1, &err);
    if (err) {
        if (!failed(t, err))
            atomic_store(&t->r->stop, true);
        return;
    }
    vstats_ok(&t->st, clock_mono_ns());
    if (t->have_counter && v <= t->last_counter) {
        t->decreases++;
        violation(t, "increment returned %" PRId64 " after %" PRId64, v, t->last_counter);
    }
    t->last_counter = v;
    t->have_counter = true;
}

/* ---- readers ---- */

/* A reader's look at the counter: value (have false: no counter cell). */
static void check_counter(athread *t, bool have, int64_t v)
{
    t->counter_reads++;
    if (t->have_counter && (!have || v < t->last_counter)) {
        t->decreases++;
        if (have)
            violation(t, "%s read %" PRId64 " after %" PRId64, VACID_COUNTER_ROW, v,
                      t->last_counter);
        else
            violation(t, "%s has no counter after %" PRId64, VACID_COUNTER_ROW, t->last_counter);
    }
    if (have) {
        t->last_counter = v;
        t->have_counter = true;
    }
}

static void check_counter_result(athread *t, const strata_result_t *res)
{
    size_t len = 0;
    const char *v =
        strata_result_value(res, "A", 1, VACID_COUNTER_COL, strlen(VACID_COUNTER_COL), &len);
    int64_t x = 0;
    for (size_t i = 0; v && i < len && len == 8; i++)
        x = (int64_t)((uint64_t)x << 8 | (uint8_t)v[i]);
    check_counter(t, v && len == 8, x);
}

/* The result's cells as vacid_cells (borrowed from res). false when out of memory. */
static bool result_cells(athread *t, const strata_result_t *res, size_t *n)
{
    *n = strata_result_cell_count(res);
    if (*n > t->cells_cap) {
        vacid_cell *nc = realloc(t->cells, *n * sizeof(*nc));
        if (!nc)
            return false;
        t->cells = nc;
        t->cells_cap = *n;
    }
    for (size_t i = 0; i < *n; i++) {
        vacid_cell *c = &t->cells[i];
        c->family = strata_result_cell_family(res, i, &c->family_len);
        c->qualifier = strata_result_cell_qualifier(res, i, &c->qualifier_len);
        c->value = strata_result_cell_value(res, i, &c->value_len);
    }
    return true;
}

/* Checks one test row; acked: a write to it was acknowledged before the read began.
 * Returns whether it was torn. */
static bool check_test_row(athread *t, const char *row, const strata_result_t *res, bool acked)
{
    size_t n = 0;
    vacid_tear why;
    if (!result_cells(t, res, &n))
        return false;
    vacid_row_state s = vacid_check_row(t->cells, n, t->r->o.columns, &why);
    if (s == VACID_ROW_OK || (s == VACID_ROW_EMPTY && !acked))
        return false;
    if (s == VACID_ROW_EMPTY)
        violation(t, "row %s is empty after a write to it was acknowledged", row);
    else if (s == VACID_ROW_TORN)
        violation(t, "row %s torn: %s = '%s', %s = '%s'", row, why.col_a, why.value_a, why.col_b,
                  why.value_b);
    else
        violation(t, "row %s torn: %s = '%s', %s missing", row, why.col_a, why.value_a, why.col_b);
    t->torn++;
    return true;
}

static void get_one(athread *t)
{
    const vacid_run *r = t->r;
    uint64_t pick = verify_rng_next(&t->rng) % (uint64_t)(r->o.rows + (r->o.incrementers > 0));
    bool counter = pick == (uint64_t)r->o.rows;
    char name[ROW_MAX], *err = NULL;
    size_t rl = counter ? (size_t)snprintf(name, sizeof(name), "%s", VACID_COUNTER_ROW)
                        : row_name((int)pick, name);
    bool acked = !counter && atomic_load(&r->acked[pick]);
    strata_get_t *g = strata_get_create(name, rl);
    strata_result_t *res = g ? strata_table_get(r->conn.t, g, &err) : NULL;
    strata_get_destroy(g);
    if (err) {
        if (!failed(t, err))
            atomic_store(&t->r->stop, true);
        return;
    }
    if (!res)
        return;
    vstats_ok(&t->st, clock_mono_ns());
    if (counter)
        check_counter_result(t, res);
    else
        check_test_row(t, name, res, acked);
    strata_result_destroy(res);
}

/* The test row number of a row name, or -1. */
static int test_row_index(const char *row, size_t len, int rows)
{
    size_t pl = strlen(VACID_ROW_PREFIX);
    if (len <= pl || len > pl + 9 || memcmp(row, VACID_ROW_PREFIX, pl) != 0)
        return -1;
    int k = 0;
    for (size_t i = pl; i < len; i++) {
        if (!isdigit((unsigned char)row[i]))
            return -1;
        k = k * 10 + (row[i] - '0');
    }
    return k < rows ? k : -1;
}

static void scan_row(athread *t, const strata_result_t *res)
{
    size_t rl = 0;
    const char *row = strata_result_row(res, &rl);
    char name[ROW_MAX + 8];
    t->scanned_rows++;
    if (rl == strlen(VACID_COUNTER_ROW) && memcmp(row, VACID_COUNTER_ROW, rl) == 0) {
        check_counter_result(t, res);
        return;
    }
    int k = test_row_index(row, rl, t->r->o.rows);
    if (k < 0)
        return;
    t->scan_seen[k] = 1;
    snprintf(name, sizeof(name), "%.*s", (int)rl, row);
    check_test_row(t, name, res, true);
}

static void scan_once(athread *t)
{
    vacid_run *r = t->r;
    char *err = NULL;
    memset(t->scan_seen, 0, (size_t)r->o.rows);
    uint8_t *acked = malloc((size_t)r->o.rows);
    strata_scan_t *s = acked ? strata_scan_create() : NULL;
    if (!s) {
        free(acked);
        return;
    }
    for (int k = 0; k < r->o.rows; k++)
        acked[k] = atomic_load(&r->acked[k]);
    strata_scan_set_caching(s, SCAN_CACHING);
    strata_scanner_t *sc = strata_table_scan(r->conn.t, s, &err);
    strata_result_t *res = NULL;
    while (sc && !err && (res = strata_scanner_next(sc, &err)) != NULL) {
        scan_row(t, res);
        strata_result_destroy(res);
    }
    strata_scanner_close(sc);
    strata_scan_destroy(s);
    if (err) {
        if (!failed(t, err))
            atomic_store(&r->stop, true);
    } else {
        vstats_ok(&t->st, clock_mono_ns());
        for (int k = 0; k < r->o.rows; k++)
            if (acked[k] && !t->scan_seen[k]) {
                t->torn++;
                violation(t, "row %s%d missing from a scan after a write to it was acknowledged",
                          VACID_ROW_PREFIX, k);
            }
    }
    free(acked);
}

static void *thread_main(void *arg)
{
    athread *t = arg;
    vstats_start(&t->st, clock_mono_ns());
    while (running(t)) {
        if (t->k == WRITER)
            write_one(t);
        else if (t->k == GETTER)
            get_one(t);
        else if (t->k == SCANNER)
            scan_once(t);
        else
            increment_one(t);
    }
    vstats_stop(&t->st, clock_mono_ns());
    atomic_fetch_add(&t->r->ended, 1);
    return NULL;
}

/* ---- start, stop, results ---- */

static int check_opts(const vacid_opts *o)
{
    int threads = o->writers + o->getters + o->scanners + o->incrementers;
    if (o->columns < 1 || o->columns > VACID_MAX_COLUMNS)
        return st_error(ST_INVALID_ARGUMENT, "columns must be in 1..%d", VACID_MAX_COLUMNS);
    if (o->rows < 1 || o->rows > VACID_MAX_ROWS)
        return st_error(ST_INVALID_ARGUMENT, "rows must be in 1..%d", VACID_MAX_ROWS);
    if (o->writers < 0 || o->getters < 0 || o->scanners < 0 || o->incrementers < 0 || threads < 1 ||
        threads > VACID_MAX_THREADS)
        return st_error(ST_INVALID_ARGUMENT, "1..%d threads in all", VACID_MAX_THREADS);
    if (o->duration_s <= 0)
        return st_error(ST_INVALID_ARGUMENT, "the duration must be above 0");
    return ST_OK;
}

static int threads_init(vacid_run *r)
{
    const int counts[] = {r->o.writers, r->o.getters, r->o.scanners, r->o.incrementers};
    static const char *const names[] = {"writer", "getter", "scanner", "incrementer"};
    size_t i = 0;
    for (int k = 0; k < 4; k++)
        for (int id = 0; id < counts[k]; id++, i++) {
            athread *t = &r->t[i];
            char name[VSTATS_NAME_MAX];
            snprintf(name, sizeof(name), "%s %d", names[k], id);
            t->r = r;
            t->k = (kind)k;
            t->id = id;
            vstats_init(&t->st, name);
            verify_rng_seed(&t->rng, 0, i);
            if (t->k == SCANNER && !(t->scan_seen = calloc((size_t)r->o.rows, 1)))
                return st_error(ST_NOMEM, "out of memory for scanner %d", id);
        }
    return ST_OK;
}

static int setup(vacid_run *r)
{
    static const char *const fams[] = {"A", "B", "C"};
    r->acked = calloc((size_t)r->o.rows, sizeof(*r->acked));
    r->quals = calloc((size_t)r->o.columns, sizeof(*r->quals));
    if (!r->acked || !r->quals || !(r->t = calloc(r->n, sizeof(*r->t))))
        return st_error(ST_NOMEM, "out of memory for %zu threads", r->n);
    for (int k = 0; k < r->o.columns; k++)
        snprintf(r->quals[k], QUAL_MAX, "%s%d", VACID_COL_PREFIX, k);
    int rc = verify_conn_open(&r->conn, r->o.quorum, r->o.parent,
                              r->o.table ? r->o.table : VACID_DEFAULT_TABLE);
    if (rc == ST_OK)
        rc = verify_ensure_table(&r->conn, fams, NFAM, NULL, NULL, 0, NULL);
    return rc == ST_OK ? threads_init(r) : rc;
}

int vacid_start(const vacid_opts *o, vacid_run **out)
{
    *out = NULL;
    int rc = check_opts(o);
    vacid_run *r = rc == ST_OK ? calloc(1, sizeof(*r)) : NULL;
    if (rc != ST_OK)
        return rc;
    if (!r)
        return st_error(ST_NOMEM, "out of memory for the run");
    r->o = *o;
    r->n = (size_t)(o->writers + o->getters + o->scanners + o->incrementers);
    pthread_mutex_init(&r->viol_mu, NULL);
    rc = setup(r);
    r->start_ns = clock_mono_ns();
    r->end_ns = r->start_ns + (uint64_t)(o->duration_s * NS_PER_S);
    for (size_t i = 0; rc == ST_OK && i < r->n; i++) {
        if (pthread_create(&r->t[i].th, NULL, thread_main, &r->t[i]) != 0)
            rc = st_error(ST_INTERNAL, "cannot start thread %zu", i);
        else
            r->t[i].started = true;
    }
    if (rc != ST_OK) {
        vacid_free(r);
        return rc;
    }
    *out = r;
    return ST_OK;
}

bool vacid_done(const vacid_run *r)
{
    return atomic_load(&r->ended) == r->n;
}

void vacid_wait(vacid_run *r)
{
    for (size_t i = 0; r->t && i < r->n; i++)
        if (r->t[i].started) {
            pthread_join(r->t[i].th, NULL);
            r->t[i].started = false;
        }
    if (!r->stop_ns)
        r->stop_ns = clock_mono_ns();
}

void vacid_stop(vacid_run *r)
{
    atomic_store(&r->stop, true);
    vacid_wait(r);
}

size_t vacid_threads(const vacid_run *r)
{
    return r->n;
}

const vstats_thread *vacid_thread(const vacid_run *r, size_t i)
{
    return i < r->n ? &r->t[i].st : NULL;
}

const char *vacid_violation(const vacid_run *r, size_t i)
{
    return i < r->nviol ? r->viol[i] : NULL;
}

void vacid_result_get(const vacid_run *r, vacid_result *res)
{
    memset(res, 0, sizeof(*res));
    for (size_t i = 0; i < r->n; i++) {
        const athread *t = &r->t[i];
        uint64_t ok = vstats_ok_count(&t->st);
        res->writes += t->k == WRITER ? ok : 0;
        res->gets += t->k == GETTER ? ok : 0;
        res->scans += t->k == SCANNER ? ok : 0;
        res->increments += t->k == INCREMENTER ? ok : 0;
        res->torn_gets += t->k == GETTER ? t->torn : 0;
        res->torn_scans += t->k == SCANNER ? t->torn : 0;
        res->scanned_rows += t->scanned_rows;
        res->counter_reads += t->counter_reads;
        res->counter_decreases += t->decreases;
        res->retries += t->st.retries;
        res->fatal += t->fatal;
        for (int c = 0; c < VSTATS_CODES; c++)
            res->errors[c] += t->st.errors[c];
    }
    res->start_ns = r->start_ns;
    res->stop_ns = r->stop_ns;
}

void vacid_free(vacid_run *r)
{
    if (!r)
        return;
    vacid_stop(r);
    for (size_t i = 0; r->t && i < r->n; i++) {
        vstats_free(&r->t[i].st);
        free(r->t[i].cells);
        free(r->t[i].scan_seen);
    }
    for (size_t i = 0; i < r->nviol; i++)
        free(r->viol[i]);
    verify_conn_close(&r->conn);
    pthread_mutex_destroy(&r->viol_mu);
    free(r->t);
    free(r->acked);
    free(r->quals);
    free(r);
}
