/*
 * verify_linkedlist.c - HBase's IntegrationTestBigLinkedList on Strata (verify.h, vll_*;
 * docs/reliability.md "Verifiers"): the generator's loaders, the verify accounting over
 * a full scan, and the walk along the prev pointers.
 *
 * What a loader writes, one circular list at a time (HBase's GeneratorMapper):
 *
 *   batch 0        width random 16-byte keys, meta:prev = NO_KEY (one zero byte)
 *   batch b >= 1   width new keys, node (b, i) -> meta:prev = key (b-1, i)
 *   close          node (0, i+1 mod width) -> meta:prev = key (wrap-1, i) (prev only)
 *
 * so the width lists of wrap nodes join into one cycle of width * wrap nodes. Each batch
 * is one strata_table_batch call sent only after the previous batch was acknowledged in
 * full, so a node is written only once the node it points to is stored. Nodes also carry
 * meta:count (the loader's running count, 8 bytes big endian) and meta:client (its id).
 *
 * Stopping: a loader checks --iterations, --duration and vll_generate_stop only between
 * lists, so a run that ends by itself or by a stop leaves only closed lists. A list is
 * left open (batch 0 still pointing at NO_KEY, the last batch written unreferenced) only
 * when a write failed for good: a non-retryable code (vstats_code_retryable), or its
 * retry deadline passed (vll_opts.grace_s). Failed actions of a batch are never counted
 * as written; they are sent again (every RETRY_PAUSE_MS) until acknowledged.
 *
 * Thread-safety: each loader owns its buffers and its record; the run's stop flag and
 * done counter are atomics; err_mu guards the first error message.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/status.h"
#include "tools/verify.h"
#include "tools/verify_internal.h"

#define RETRY_PAUSE_MS 100
#define SCAN_CACHING 1000
#define NO_KEY_LEN 1 /* HBase's NO_KEY: new byte[1] */
#define NS_PER_S 1e9

/* ---- generator ---- */

typedef struct loader {
    vll_run *r;
    int id;
    pthread_t th;
    bool started;
    vstats_thread st;
    verify_rng rng;
    uint8_t *first, *prev, *cur, *closing; /* width keys each */
    size_t *pending;                       /* indexes of actions still to write */
    uint64_t count;                        /* nodes written: the next meta:count */
    uint64_t lists, calls;
    bool failed;
    char client[64];
} loader;

struct vll_run {
    vll_opts o;
    verify_conn conn;
    loader *l;
    size_t n;
    atomic_bool stop;
    _Atomic size_t ended;
    uint64_t start_ns, stop_ns;
    pthread_mutex_t err_mu;
    char error[400];
};

typedef struct node_batch {
    const uint8_t *rows;  /* n keys */
    const uint8_t *prevs; /* n keys, or NULL: NO_KEY */
    size_t n;
    bool with_count; /* meta:count and meta:client too (not for the close) */
} node_batch;

void vll_opts_default(vll_opts *o)
{
    *o = (vll_opts){
        .regions = 8, .loaders = 2, .width = 1000, .wrap = 25, .iterations = 1, .grace_s = 60};
}

static void keep_error(vll_run *r, const char *fmt, const char *a, const char *b)
{
    pthread_mutex_lock(&r->err_mu);
    if (!r->error[0])
        snprintf(r->error, sizeof(r->error), fmt, a, b);
    pthread_mutex_unlock(&r->err_mu);
}

static void random_keys(loader *ld, uint8_t *keys)
{
    for (int i = 0; i < ld->r->o.width; i++) {
        uint64_t a = verify_rng_next(&ld->rng), b = verify_rng_next(&ld->rng);
        memcpy(keys + (size_t)i * VLL_KEY_LEN, &a, 8);
        memcpy(keys + (size_t)i * VLL_KEY_LEN + 8, &b, 8);
    }
}

static strata_mutation_t *node_put(const loader *ld, const node_batch *nb, size_t i)
{
    static const uint8_t no_key[NO_KEY_LEN] = {0};
    const char *fam = VLL_FAMILY;
    strata_mutation_t *m = strata_put_create((const char *)nb->rows + i * VLL_KEY_LEN, VLL_KEY_LEN);
    if (!m)
        return NULL;
    const uint8_t *prev = nb->prevs ? nb->prevs + i * VLL_KEY_LEN : no_key;
    strata_put_add(m, fam, strlen(fam), VLL_COL_PREV, strlen(VLL_COL_PREV), STRATA_LATEST_TIMESTAMP,
                   (const char *)prev, nb->prevs ? VLL_KEY_LEN : NO_KEY_LEN);
    if (nb->with_count) {
        uint64_t c = ld->count + i;
        uint8_t be[8];
        for (int k = 0; k < 8; k++)
            be[k] = (uint8_t)(c >> (56 - 8 * k));
        strata_put_add(m, fam, strlen(fam), VLL_COL_COUNT, strlen(VLL_COL_COUNT),
                       STRATA_LATEST_TIMESTAMP, (const char *)be, sizeof(be));
        strata_put_add(m, fam, strlen(fam), VLL_COL_CLIENT, strlen(VLL_COL_CLIENT),
                       STRATA_LATEST_TIMESTAMP, ld->client, strlen(ld->client));
    }
    return m;
}

/* The time after which a write failing since first_fail_ns is given up. */
static uint64_t retry_deadline(const vll_run *r, uint64_t first_fail_ns)
{
    uint64_t grace = (uint64_t)(r->o.grace_s * NS_PER_S);
    uint64_t own = first_fail_ns + grace;
    if (r->o.duration_s > 0) {
        /* A list still being written at the end of the run gets its grace too. */
        uint64_t run_end = r->start_ns + (uint64_t)(r->o.duration_s * NS_PER_S) + grace;
        return run_end > own ? run_end : own;
    }
    return own;
}

/* Sends the pending actions once: ST_OK when all were acknowledged, else ST_IO with
 * pending[0..*np) the failed ones, *code the first failure's code and *msg its message
 * (the caller's, strata_free). */
static int send_once(loader *ld, const node_batch *nb, size_t *np, strata_code *code, char **msg)
{
    strata_batch_t *b = strata_batch_create();
    char *err = NULL;
    for (size_t k = 0; b && k < *np; k++) {
        strata_mutation_t *m = node_put(ld, nb, ld->pending[k]);
        if (!m) {
            strata_batch_destroy(b);
            b = NULL;
            break;
        }
        strata_batch_add_mutation(b, m);
        strata_mutation_destroy(m);
    }
    if (!b) {
        *code = STRATA_ERR_NO_MEMORY;
        *msg = NULL;
        return ST_NOMEM;
    }
    strata_table_batch(ld->r->conn.t, b, &err);
    ld->calls++;
    uint64_t now = clock_mono_ns();
    if (!err) {
        vstats_ok(&ld->st, now);
        strata_batch_destroy(b);
        return ST_OK;
    }
    size_t nf = 0;
    *code = strata_error_code(err);
    for (size_t k = 0; k < *np; k++) {
        const char *e = strata_batch_error(b, k);
        if (!e)
            continue;
        if (nf == 0)
            *code = strata_error_code(e);
        if (!vstats_code_retryable(strata_error_code(e)))
            *code = strata_error_code(e);
        ld->pending[nf++] = ld->pending[k];
    }
    if (nf > 0) /* else the call failed as a whole: every action is sent again */
        *np = nf;
    *msg = err;
    strata_batch_destroy(b);
    return ST_IO;
}

/* Writes every node of nb, sending failed actions again until all are acknowledged.
 * ST_OK, or ST_IO with the loader failed (a non-retryable code, the deadline passed). */
/* --rate: sleeps until the loader's written count is due (count / rate seconds after
 * its start), so that a paced run spans its whole duration; unpaced with rate 0. A stop
 * ends the wait. */
static void pace(loader *ld)
{
    const vll_run *r = ld->r;
    if (r->o.rate <= 0)
        return;
    uint64_t due = ld->st.start_ns + (uint64_t)((double)ld->count / r->o.rate * NS_PER_S);
    uint64_t now = clock_mono_ns();
    if (due > now)
        verify_sleep_ms((int64_t)((due - now) / 1000000ull), &r->stop);
}

static int write_nodes(loader *ld, const node_batch *nb)
{
    pace(ld);
    size_t np = nb->n;
    uint64_t first_fail = 0;
    for (size_t i = 0; i < np; i++)
        ld->pending[i] = i;
    for (;;) {
        strata_code code = STRATA_OK;
        char *msg = NULL;
        if (send_once(ld, nb, &np, &code, &msg) == ST_OK)
            return ST_OK;
        vstats_error(&ld->st, code);
        uint64_t now = clock_mono_ns();
        if (!first_fail)
            first_fail = now;
        bool give_up = !vstats_code_retryable(code) || now >= retry_deadline(ld->r, first_fail);
        if (give_up) {
            keep_error(ld->r, "%s: %s", ld->st.name, msg ? msg : "out of memory");
            strata_free(msg);
            return ST_IO;
        }
        strata_free(msg);
        verify_sleep_ms(RETRY_PAUSE_MS, NULL);
        vstats_retry(&ld->st);
    }
}

/* One circular list of width * wrap nodes (the file's head). */
static int write_list(loader *ld)
{
    const vll_opts *o = &ld->r->o;
    size_t w = (size_t)o->width;
    random_keys(ld, ld->first);
    node_batch nb = {.rows = ld->first, .prevs = NULL, .n = w, .with_count = true};
    int rc = write_nodes(ld, &nb);
    if (rc == ST_OK)
        ld->count += w;
    memcpy(ld->prev, ld->first, w * VLL_KEY_LEN);
    for (int b = 1; rc == ST_OK && b < o->wrap; b++) {
        random_keys(ld, ld->cur);
        nb = (node_batch){.rows = ld->cur, .prevs = ld->prev, .n = w, .with_count = true};
        if ((rc = write_nodes(ld, &nb)) == ST_OK)
            ld->count += w;
        uint8_t *t = ld->prev;
        ld->prev = ld->cur;
        ld->cur = t;
    }
    if (rc != ST_OK)
        return rc;
    /* close: node (0, i+1) points to (wrap-1, i); prev holds the last batch */
    for (size_t i = 0; i < w; i++)
        memcpy(ld->closing + ((i + 1) % w) * VLL_KEY_LEN, ld->prev + i * VLL_KEY_LEN, VLL_KEY_LEN);
    nb = (node_batch){.rows = ld->first, .prevs = ld->closing, .n = w, .with_count = false};
    if ((rc = write_nodes(ld, &nb)) == ST_OK)
        ld->lists++;
    return rc;
}

static bool more_lists(const loader *ld)
{
    const vll_run *r = ld->r;
    if (atomic_load(&r->stop))
        return false;
    if (r->o.iterations && ld->lists >= r->o.iterations)
        return false;
    if (r->o.duration_s > 0 &&
        clock_mono_ns() >= r->start_ns + (uint64_t)(r->o.duration_s * NS_PER_S))
        return false;
    return true;
}

static void *loader_main(void *arg)
{
    loader *ld = arg;
    vstats_start(&ld->st, clock_mono_ns());
    while (more_lists(ld))
        if (write_list(ld) != ST_OK) {
            ld->failed = true;
            break;
        }
    vstats_stop(&ld->st, clock_mono_ns());
    atomic_fetch_add(&ld->r->ended, 1);
    return NULL;
}

/* regions - 1 keys of 16 bytes, the first 8 bytes i * 2^64 / regions (big endian). */
static void split_keys(int regions, uint8_t (*keys)[VLL_KEY_LEN])
{
    uint64_t n = (uint64_t)regions, q = UINT64_MAX / n, rem = UINT64_MAX % n + 1;
    if (rem == n) {
        q++;
        rem = 0;
    }
    for (uint64_t i = 1; i < n; i++) {
        uint64_t hi = i * q + i * rem / n;
        memset(keys[i - 1], 0, VLL_KEY_LEN);
        for (int k = 0; k < 8; k++)
            keys[i - 1][k] = (uint8_t)(hi >> (56 - 8 * k));
    }
}

static int ensure_table(vll_run *r)
{
    size_t n = (size_t)r->o.regions - 1;
    uint8_t(*keys)[VLL_KEY_LEN] = malloc((n ? n : 1) * sizeof(*keys));
    const char **kp = malloc((n ? n : 1) * sizeof(*kp));
    size_t *lens = malloc((n ? n : 1) * sizeof(*lens));
    const char *fam[] = {VLL_FAMILY};
    int rc = keys && kp && lens ? ST_OK : st_error(ST_NOMEM, "out of memory for split keys");
    if (rc == ST_OK) {
        split_keys(r->o.regions, keys);
        for (size_t i = 0; i < n; i++) {
            kp[i] = (const char *)keys[i];
            lens[i] = VLL_KEY_LEN;
        }
        rc = verify_ensure_table(&r->conn, fam, 1, kp, lens, n, NULL);
    }
    free(keys);
    free(kp);
    free(lens);
    return rc;
}

static int check_opts(const vll_opts *o)
{
    if (o->loaders < 1 || o->loaders > VLL_MAX_LOADERS)
        return st_error(ST_INVALID_ARGUMENT, "loaders must be in 1..%d", VLL_MAX_LOADERS);
    if (o->regions < 1 || o->regions > VLL_MAX_REGIONS)
        return st_error(ST_INVALID_ARGUMENT, "regions must be in 1..%d", VLL_MAX_REGIONS);
    if (o->width < 1 || o->wrap < 1)
        return st_error(ST_INVALID_ARGUMENT, "width and wrap must be at least 1");
    if (o->duration_s < 0 || o->grace_s < 0)
        return st_error(ST_INVALID_ARGUMENT, "duration and grace must not be negative");
    return ST_OK;
}

static int loader_init(vll_run *r, size_t i)
{
    loader *ld = &r->l[i];
    size_t bytes = (size_t)r->o.width * VLL_KEY_LEN;
    char name[VSTATS_NAME_MAX];
    ld->r = r;
    ld->id = (int)i;
    snprintf(name, sizeof(name), "loader %zu", i);
    vstats_init(&ld->st, name);
    snprintf(ld->client, sizeof(ld->client), "pid %d loader %zu", (int)getpid(), i);
    verify_rng_seed(&ld->rng, r->o.seed, i);
    ld->first = malloc(bytes);
    ld->prev = malloc(bytes);
    ld->cur = malloc(bytes);
    ld->closing = malloc(bytes);
    ld->pending = malloc((size_t)r->o.width * sizeof(size_t));
    if (!ld->first || !ld->prev || !ld->cur || !ld->closing || !ld->pending)
        return st_error(ST_NOMEM, "out of memory for loader %zu", i);
    return ST_OK;
}

int vll_generate_start(const vll_opts *o, vll_run **out)
{
    *out = NULL;
    int rc = check_opts(o);
    if (rc != ST_OK)
        return rc;
    vll_run *r = calloc(1, sizeof(*r));
    if (!r || !(r->l = calloc((size_t)o->loaders, sizeof(*r->l)))) {
        free(r);
        return st_error(ST_NOMEM, "out of memory for %d loaders", o->loaders);
    }
    r->o = *o;
    r->n = (size_t)o->loaders;
    pthread_mutex_init(&r->err_mu, NULL);
    rc = verify_conn_open(&r->conn, o->quorum, o->parent, o->table ? o->table : VLL_DEFAULT_TABLE);
    if (rc == ST_OK)
        rc = ensure_table(r);
    for (size_t i = 0; rc == ST_OK && i < r->n; i++)
        rc = loader_init(r, i);
    r->start_ns = clock_mono_ns();
    for (size_t i = 0; rc == ST_OK && i < r->n; i++) {
        if (pthread_create(&r->l[i].th, NULL, loader_main, &r->l[i]) != 0)
            rc = st_error(ST_INTERNAL, "cannot start loader %zu", i);
        else
            r->l[i].started = true;
    }
    if (rc != ST_OK) {
        vll_generate_free(r);
        return rc;
    }
    *out = r;
    return ST_OK;
}

bool vll_generate_done(const vll_run *r)
{
    return atomic_load(&r->ended) == r->n;
}

void vll_generate_wait(vll_run *r)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->l[i].started) {
            pthread_join(r->l[i].th, NULL);
            r->l[i].started = false;
        }
    if (!r->stop_ns)
        r->stop_ns = clock_mono_ns();
}

void vll_generate_stop(vll_run *r)
{
    atomic_store(&r->stop, true);
    vll_generate_wait(r);
}

size_t vll_generate_loaders(const vll_run *r)
{
    return r->n;
}

const vstats_thread *vll_generate_thread(const vll_run *r, size_t i)
{
    return i < r->n ? &r->l[i].st : NULL;
}

void vll_generate_loader(const vll_run *r, size_t i, vll_loader_result *res)
{
    const loader *ld = &r->l[i];
    memset(res, 0, sizeof(*res));
    res->nodes = ld->count;
    res->lists = ld->lists;
    res->calls = ld->calls;
    res->retries = ld->st.retries;
    memcpy(res->errors, ld->st.errors, sizeof(res->errors));
    res->longest_stall_ns = vstats_longest_gap(&ld->st, &res->longest_stall_at_ns);
    res->failed = ld->failed;
}

void vll_generate_result(const vll_run *r, vll_gen_result *res)
{
    memset(res, 0, sizeof(*res));
    for (size_t i = 0; i < r->n; i++) {
        vll_loader_result l;
        vll_generate_loader(r, i, &l);
        res->total.nodes += l.nodes;
        res->total.lists += l.lists;
        res->total.calls += l.calls;
        res->total.retries += l.retries;
        for (int c = 0; c < VSTATS_CODES; c++)
            res->total.errors[c] += l.errors[c];
        if (l.longest_stall_ns > res->total.longest_stall_ns) {
            res->total.longest_stall_ns = l.longest_stall_ns;
            res->total.longest_stall_at_ns = l.longest_stall_at_ns;
        }
        res->failed |= l.failed;
    }
    res->total.failed = res->failed;
    res->expected = res->total.lists * (uint64_t)r->o.width * (uint64_t)r->o.wrap;
    res->start_ns = r->start_ns;
    res->stop_ns = r->stop_ns;
    snprintf(res->error, sizeof(res->error), "%s", r->error);
}

void vll_generate_free(vll_run *r)
{
    if (!r)
        return;
    vll_generate_stop(r);
    for (size_t i = 0; i < r->n; i++) {
        loader *ld = &r->l[i];
        free(ld->first);
        free(ld->prev);
        free(ld->cur);
        free(ld->closing);
        free(ld->pending);
        vstats_free(&ld->st);
    }
    verify_conn_close(&r->conn);
    pthread_mutex_destroy(&r->err_mu);
    free(r->l);
    free(r);
}

/* ---- the graph and its accounting ---- */

typedef struct node {
    vll_key row, prev; /* prev.len 0: no meta:prev */
} node;

struct vll_graph {
    node *v;
    size_t n, cap;
    uint64_t foreign;
};

vll_graph *vll_graph_new(void)
{
    return calloc(1, sizeof(vll_graph));
}

void vll_graph_free(vll_graph *g)
{
    if (!g)
        return;
    free(g->v);
    free(g);
}

static bool key_set(vll_key *k, const void *b, size_t len)
{
    if (len == 0 || len > VLL_KEY_LEN)
        return false;
    memset(k, 0, sizeof(*k));
    k->len = (uint8_t)len;
    memcpy(k->b, b, len);
    return true;
}

int vll_graph_add(vll_graph *g, const void *row, size_t row_len, const void *prev, size_t prev_len)
{
    node x;
    memset(&x, 0, sizeof(x));
    if (!key_set(&x.row, row, row_len) || (prev && !key_set(&x.prev, prev, prev_len))) {
        g->foreign++;
        return ST_OK;
    }
    if (g->n == g->cap) {
        size_t nc = g->cap ? g->cap * 2 : 4096;
        node *nv = nc <= UINT32_MAX ? realloc(g->v, nc * sizeof(*nv)) : NULL;
        if (!nv)
            return st_error(ST_NOMEM, "out of memory for %zu nodes", nc);
        g->v = nv;
        g->cap = nc;
    }
    g->v[g->n++] = x;
    return ST_OK;
}

/* Byte order, a shorter key before the longer one it begins. */
static int key_cmp(const vll_key *a, const vll_key *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->b, b->b, n);
    return c ? c : (int)a->len - (int)b->len;
}

static int cmp_row(const void *a, const void *b)
{
    return key_cmp(&((const node *)a)->row, &((const node *)b)->row);
}

static int cmp_prev_idx(const void *a, const void *b, void *arg)
{
    const node *v = arg;
    return key_cmp(&v[*(const uint32_t *)a].prev, &v[*(const uint32_t *)b].prev);
}

/* One key of the union of rows and references: defs of it from v[*i..], refs from
 * idx[*j..]; advances both. */
static void account_key(const vll_graph *g, const uint32_t *idx, size_t m, size_t *i, size_t *j,
                        vll_verify_result *r)
{
    const node *v = g->v;
    const vll_key *k = NULL;
    if (*i < g->n)
        k = &v[*i].row;
    if (*j < m && (!k || key_cmp(&v[idx[*j]].prev, k) < 0))
        k = &v[idx[*j]].prev;
    vll_key key = *k;
    size_t defs = 0, refs = 0, first_ref = *j;
    for (; *i < g->n && key_cmp(&v[*i].row, &key) == 0; (*i)++)
        defs++;
    for (; *j < m && key_cmp(&v[idx[*j]].prev, &key) == 0; (*j)++)
        refs++;
    if (defs == 0) {
        if (r->n_undefined_ex < VLL_EXAMPLES)
            r->undefined_ex[r->n_undefined_ex++] = (vll_dangling){v[idx[first_ref]].row, key};
        r->undefined++;
    } else if (refs == 0) {
        if (r->n_unreferenced_ex < VLL_EXAMPLES)
            r->unreferenced_ex[r->n_unreferenced_ex++] = key;
        r->unreferenced++;
    } else {
        r->referenced++;
        r->extra_references += refs - 1;
    }
}

int vll_graph_account(vll_graph *g, vll_verify_result *r)
{
    double scan_s = r->scan_s;
    memset(r, 0, sizeof(*r));
    r->scan_s = scan_s;
    r->rows = g->n;
    r->foreign_rows = g->foreign;
    uint32_t *idx = malloc((g->n ? g->n : 1) * sizeof(*idx));
    if (!idx)
        return st_error(ST_NOMEM, "out of memory for %zu references", g->n);
    qsort(g->v, g->n, sizeof(*g->v), cmp_row);
    size_t m = 0;
    for (size_t i = 0; i < g->n; i++) {
        if (g->v[i].prev.len)
            idx[m++] = (uint32_t)i;
        else
            r->no_prev++;
    }
    qsort_r(idx, m, sizeof(*idx), cmp_prev_idx, g->v);
    size_t i = 0, j = 0;
    while (i < g->n || j < m)
        account_key(g, idx, m, &i, &j, r);
    free(idx);
    return ST_OK;
}

bool vll_verify_passed(const vll_verify_result *r, int64_t expected)
{
    return r->undefined == 0 && r->unreferenced == 0 &&
           (expected < 0 || r->referenced == (uint64_t)expected);
}

static int scan_into(verify_conn *c, vll_graph *g)
{
    char *err = NULL;
    int rc = ST_OK;
    const char *fam = VLL_FAMILY;
    strata_scan_t *s = strata_scan_create();
    if (!s)
        return st_error(ST_NOMEM, "out of memory for a scan");
    strata_scan_set_caching(s, SCAN_CACHING);
    strata_scan_add_column(s, fam, strlen(fam), NULL, 0);
    strata_scanner_t *sc = strata_table_scan(c->t, s, &err);
    strata_result_t *res = NULL;
    while (rc == ST_OK && sc && !err && (res = strata_scanner_next(sc, &err)) != NULL) {
        size_t rl = 0, pl = 0;
        const char *row = strata_result_row(res, &rl);
        const char *prev =
            strata_result_value(res, fam, strlen(fam), VLL_COL_PREV, strlen(VLL_COL_PREV), &pl);
        rc = vll_graph_add(g, row, rl, prev, pl);
        strata_result_destroy(res);
    }
    if (err) {
        rc = st_error(ST_IO, "scan of %s: %s", c->table, err);
        strata_free(err);
    }
    strata_scanner_close(sc);
    strata_scan_destroy(s);
    return rc;
}

int vll_verify(const vll_opts *o, vll_verify_result *r)
{
    memset(r, 0, sizeof(*r));
    verify_conn c;
    vll_graph *g = vll_graph_new();
    int rc = g ? verify_conn_open(&c, o->quorum, o->parent, o->table ? o->table : VLL_DEFAULT_TABLE)
               : st_error(ST_NOMEM, "out of memory for the graph");
    if (!g)
        return rc;
    uint64_t t0 = clock_mono_ns();
    if (rc == ST_OK)
        rc = scan_into(&c, g);
    r->scan_s = (double)(clock_mono_ns() - t0) / NS_PER_S;
    if (rc == ST_OK)
        rc = vll_graph_account(g, r);
    verify_conn_close(&c);
    vll_graph_free(g);
    return rc;
}

/* ---- walk ---- */

void vll_key_hex(const vll_key *k, char *out)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < k->len; i++) {
        out[2 * i] = hex[k->b[i] >> 4];
        out[2 * i + 1] = hex[k->b[i] & 15];
    }
    out[2 * k->len] = 0;
}

/* Keys seen by a walk: open addressing, power-of-two capacity. */
typedef struct key_set_t {
    vll_key *v;
    size_t n, cap;
} key_set_t;

static uint64_t key_hash(const vll_key *k)
{
    uint64_t h = 1469598103934665603ull ^ k->len;
    for (size_t i = 0; i < k->len; i++)
        h = (h ^ k->b[i]) * 1099511628211ull;
    return h;
}

/* Adds k: 1 if new, 0 if there already, negative when out of memory. */
static int seen_add(key_set_t *s, const vll_key *k)
{
    if ((s->n + 1) * 2 > s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 1024;
        key_set_t ns = {calloc(nc, sizeof(vll_key)), 0, nc};
        if (!ns.v)
            return st_error(ST_NOMEM, "out of memory for %zu walked keys", s->n);
        for (size_t i = 0; i < s->cap; i++)
            if (s->v[i].len)
                seen_add(&ns, &s->v[i]);
        free(s->v);
        *s = ns;
    }
    for (size_t i = key_hash(k) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (!s->v[i].len) {
            s->v[i] = *k;
            s->n++;
            return 1;
        }
        if (key_cmp(&s->v[i], k) == 0)
            return 0;
    }
}

typedef struct walk_node {
    bool found;
    vll_key prev; /* len 0: none */
    uint64_t count;
    bool has_count;
    char client[64];
} walk_node;

static int get_node(verify_conn *c, const vll_key *k, walk_node *n)
{
    char *err = NULL;
    const char *fam = VLL_FAMILY;
    memset(n, 0, sizeof(*n));
    strata_get_t *g = strata_get_create((const char *)k->b, k->len);
    if (!g)
        return st_error(ST_NOMEM, "out of memory for a get");
    strata_get_add_column(g, fam, strlen(fam), NULL, 0);
    strata_result_t *res = strata_table_get(c->t, g, &err);
    strata_get_destroy(g);
    if (err) {
        char hex[2 * VLL_KEY_LEN + 1];
        vll_key_hex(k, hex);
        int rc = st_error(ST_IO, "get %s: %s", hex, err);
        strata_free(err);
        return rc;
    }
    n->found = strata_result_cell_count(res) > 0;
    size_t len = 0;
    const char *v =
        strata_result_value(res, fam, strlen(fam), VLL_COL_PREV, strlen(VLL_COL_PREV), &len);
    if (v && !key_set(&n->prev, v, len))
        memset(&n->prev, 0, sizeof(n->prev));
    v = strata_result_value(res, fam, strlen(fam), VLL_COL_COUNT, strlen(VLL_COL_COUNT), &len);
    if (v && len == 8) {
        n->has_count = true;
        for (int i = 0; i < 8; i++)
            n->count = n->count << 8 | (uint8_t)v[i];
    }
    v = strata_result_value(res, fam, strlen(fam), VLL_COL_CLIENT, strlen(VLL_COL_CLIENT), &len);
    if (v)
        snprintf(n->client, sizeof(n->client), "%.*s", (int)len, v);
    strata_result_destroy(res);
    return ST_OK;
}

/* The table's first row into k. */
static int first_row(verify_conn *c, vll_key *k)
{
    char *err = NULL;
    int rc = ST_NOT_FOUND;
    strata_scan_t *s = strata_scan_create();
    if (!s)
        return st_error(ST_NOMEM, "out of memory for a scan");
    strata_scan_set_limit(s, 1);
    strata_scan_set_caching(s, 1);
    strata_scanner_t *sc = strata_table_scan(c->t, s, &err);
    strata_result_t *res = sc && !err ? strata_scanner_next(sc, &err) : NULL;
    if (res) {
        size_t len = 0;
        const char *row = strata_result_row(res, &len);
        rc = key_set(k, row, len)
                 ? ST_OK
                 : st_error(ST_NOT_FOUND, "the first row of %s is no node", c->table);
    } else if (err) {
        rc = st_error(ST_IO, "scan of %s: %s", c->table, err);
    } else {
        rc = st_error(ST_NOT_FOUND, "table %s is empty", c->table);
    }
    strata_free(err);
    strata_result_destroy(res);
    strata_scanner_close(sc);
    strata_scan_destroy(s);
    return rc;
}

static void print_step(FILE *out, uint64_t step, const vll_key *at, const walk_node *n)
{
    char a[2 * VLL_KEY_LEN + 1], p[2 * VLL_KEY_LEN + 1];
    if (!out)
        return;
    vll_key_hex(at, a);
    vll_key_hex(&n->prev, p);
    if (n->has_count)
        fprintf(out, "%8" PRIu64 " %s -> %s count %" PRIu64 " client %s\n", step, a, p, n->count,
                n->client);
    else
        fprintf(out, "%8" PRIu64 " %s -> %s\n", step, a, p);
}

/* Follows the pointers from r->start (already found as n) to the walk's end. */
static int walk_from(verify_conn *c, walk_node *n, uint64_t max, FILE *out, vll_walk_result *r)
{
    key_set_t seen = {0};
    vll_key at = r->start;
    int rc = seen_add(&seen, &at) < 0 ? ST_NOMEM : ST_OK;
    while (rc == ST_OK) {
        if (!n->prev.len) {
            r->end = VLL_WALK_NO_PREV;
            r->at = at;
            break;
        }
        vll_key p = n->prev;
        print_step(out, ++r->steps, &at, n);
        if (key_cmp(&p, &r->start) == 0) {
            r->end = VLL_WALK_CLOSED;
            break;
        }
        if (max && r->steps >= max) {
            r->end = VLL_WALK_MAX;
            r->at = p;
            break;
        }
        int added = seen_add(&seen, &p);
        if (added <= 0) {
            rc = added < 0 ? added : ST_OK;
            r->end = VLL_WALK_REVISIT;
            r->at = at;
            r->missing = p;
            break;
        }
        if ((rc = get_node(c, &p, n)) == ST_OK && !n->found) {
            r->end = VLL_WALK_UNDEFINED;
            r->at = at;
            r->missing = p;
            break;
        }
        at = p;
    }
    free(seen.v);
    return rc;
}

static void print_end(FILE *out, const vll_walk_result *r)
{
    char a[2 * VLL_KEY_LEN + 1], m[2 * VLL_KEY_LEN + 1], s[2 * VLL_KEY_LEN + 1];
    if (!out)
        return;
    vll_key_hex(&r->at, a);
    vll_key_hex(&r->missing, m);
    vll_key_hex(&r->start, s);
    switch (r->end) {
    case VLL_WALK_CLOSED:
        fprintf(out, "cycle closed at %s: length %" PRIu64 "\n", s, r->steps);
        break;
    case VLL_WALK_UNDEFINED:
        fprintf(out, "node %s references %s which is UNDEFINED (after %" PRIu64 " steps)\n", a, m,
                r->steps);
        break;
    case VLL_WALK_NO_PREV:
        fprintf(out, "node %s has no %s:%s (after %" PRIu64 " steps)\n", a, VLL_FAMILY,
                VLL_COL_PREV, r->steps);
        break;
    case VLL_WALK_REVISIT:
        fprintf(out, "node %s references %s, already walked: a cycle that does not pass %s\n", a, m,
                s);
        break;
    case VLL_WALK_MAX:
        fprintf(out, "stopped after %" PRIu64 " steps at %s (max)\n", r->steps, a);
        break;
    }
}

int vll_walk(const vll_opts *o, const void *start, size_t len, uint64_t max, FILE *out,
             vll_walk_result *r)
{
    memset(r, 0, sizeof(*r));
    verify_conn c;
    walk_node n;
    int rc = verify_conn_open(&c, o->quorum, o->parent, o->table ? o->table : VLL_DEFAULT_TABLE);
    if (rc == ST_OK && start && !key_set(&r->start, start, len))
        rc = st_error(ST_INVALID_ARGUMENT, "a start key has 1..%d bytes", VLL_KEY_LEN);
    else if (rc == ST_OK && !start)
        rc = first_row(&c, &r->start);
    if (rc == ST_OK && (rc = get_node(&c, &r->start, &n)) == ST_OK && !n.found) {
        char hex[2 * VLL_KEY_LEN + 1];
        vll_key_hex(&r->start, hex);
        rc = st_error(ST_NOT_FOUND, "node %s is not defined", hex);
    }
    if (rc == ST_OK)
        rc = walk_from(&c, &n, max, out, r);
    if (rc == ST_OK)
        print_end(out, r);
    verify_conn_close(&c);
    return rc;
}
