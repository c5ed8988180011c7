/*
 * bench_splits.c - the split watcher of `strata bench` (bench_splits.h): a thread polls
 * the active master's ListProcedures and GetTableRegions every interval and records, for
 * the benchmark's table, every region it has listed (name and keys) and every split
 * procedure (id, window, end state). A split's parent range is looked up among the
 * regions listed when bench_splits_list copies the splits out.
 *
 * Thread-safety: mu guards regions, splits, nregions_now and stop; the admin_rpc handle is
 * thread-safe, so a poll from the caller may run beside the thread's.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client/admin_rpc.h"
#include "common/cell.h"
#include "common/clock.h"
#include "common/status.h"
#include "tools/bench_splits.h"

#define POLL_TIMEOUT_MS 2000
#define SPLIT_TYPE "SplitTableRegionProcedure"

typedef struct seen_region {
    char name[64];
    uint8_t start[BENCH_SPLIT_KEY_MAX], end[BENCH_SPLIT_KEY_MAX];
    size_t start_len, end_len;
    bool fits; /* both keys fit the arrays */
} seen_region;

typedef struct seen_split {
    bench_split s;
    char parent[64];
} seen_split;

struct bench_splits {
    admin_rpc *a;
    char table[256];
    int interval_ms;
    pthread_t thread;
    bool running;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* signalled on stop */
    bool stop;
    seen_region *regions;
    size_t nregions, regions_cap;
    seen_split *splits;
    size_t nsplits, splits_cap;
    size_t nregions_now;
};

/* "TestTable" and "default:TestTable" are the same table. */
static bool same_table(const char *a, const char *b)
{
    const char *dflt = "default:";
    size_t dl = strlen(dflt);
    if (strncmp(a, dflt, dl) == 0)
        a += dl;
    if (strncmp(b, dflt, dl) == 0)
        b += dl;
    return strcmp(a, b) == 0;
}

static bool grow(void **v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return true;
    size_t nc = *cap ? *cap * 2 : 32;
    void *nv = realloc(*v, nc * size);
    if (!nv)
        return false;
    *v = nv;
    *cap = nc;
    return true;
}

static void copy_key(const Strata__Admin__RegionInfo *ri, bool end, seen_region *r)
{
    bool has = end ? ri->has_end_key : ri->has_start_key;
    const ProtobufCBinaryData *k = end ? &ri->end_key : &ri->start_key;
    size_t len = has ? k->len : 0;
    if (len > BENCH_SPLIT_KEY_MAX) {
        r->fits = false;
        len = 0;
    }
    if (len) /* an absent key has no data at all */
        memcpy(end ? r->end : r->start, k->data, len);
    *(end ? &r->end_len : &r->start_len) = len;
}

/* Records the regions listed (mu held); a region already seen keeps its first keys. */
static void note_regions(bench_splits *w, const Strata__Master__GetTableRegionsResponse *resp)
{
    w->nregions_now = resp->n_location;
    for (size_t i = 0; i < resp->n_location; i++) {
        const Strata__Admin__RegionInfo *ri = resp->location[i]->region;
        bool known = false;
        for (size_t j = 0; j < w->nregions && !known; j++)
            known = strcmp(w->regions[j].name, ri->encoded_name) == 0;
        if (known || !grow((void **)&w->regions, &w->regions_cap, w->nregions, sizeof(*w->regions)))
            continue;
        seen_region *r = &w->regions[w->nregions++];
        memset(r, 0, sizeof(*r));
        r->fits = true;
        snprintf(r->name, sizeof(r->name), "%s", ri->encoded_name);
        copy_key(ri, false, r);
        copy_key(ri, true, r);
    }
}

/* Records the table's split procedures (mu held); a known one gets its new state. */
static void note_procs(bench_splits *w, const Strata__Master__ListProceduresResponse *resp)
{
    for (size_t i = 0; i < resp->n_procedure; i++) {
        const Strata__Master__ProcedureInfo *p = resp->procedure[i];
        if (strcmp(p->type, SPLIT_TYPE) != 0 || !p->table || !same_table(p->table, w->table))
            continue;
        seen_split *s = NULL;
        for (size_t j = 0; j < w->nsplits && !s; j++)
            if (w->splits[j].s.id == p->id)
                s = &w->splits[j];
        if (!s) {
            if (!grow((void **)&w->splits, &w->splits_cap, w->nsplits, sizeof(*w->splits)))
                continue;
            s = &w->splits[w->nsplits++];
            memset(s, 0, sizeof(*s));
            s->s.id = p->id;
            snprintf(s->parent, sizeof(s->parent), "%s", p->n_region ? p->region[0] : "");
        }
        s->s.submitted_ms = (int64_t)p->submitted_ms;
        s->s.updated_ms = (int64_t)p->updated_ms;
        s->s.ended = strcmp(p->state, "RUNNABLE") != 0;
        s->s.succeeded = strcmp(p->state, "SUCCESS") == 0;
    }
}

void bench_splits_poll(bench_splits *w)
{
    Strata__Master__ListProceduresRequest req = STRATA__MASTER__LIST_PROCEDURES_REQUEST__INIT;
    Strata__Master__ListProceduresResponse *procs = NULL;
    Strata__Master__GetTableRegionsResponse *regions = NULL;
    /* Regions first: a parent listed now is still listed when its split shows up. */
    int rc = admin_rpc_table_regions(w->a, w->table, &regions);
    int prc = admin_rpc_call(w->a, "ListProcedures", &req.base,
                             &strata__master__list_procedures_response__descriptor, POLL_TIMEOUT_MS,
                             (ProtobufCMessage **)&procs);
    pthread_mutex_lock(&w->mu);
    if (rc == ST_OK)
        note_regions(w, regions);
    if (prc == ST_OK)
        note_procs(w, procs);
    pthread_mutex_unlock(&w->mu);
    admin_rpc_free_msg(regions);
    admin_rpc_free_msg(procs);
}

static void *watch_main(void *arg)
{
    bench_splits *w = arg;
    pthread_mutex_lock(&w->mu);
    while (!w->stop) {
        pthread_mutex_unlock(&w->mu);
        bench_splits_poll(w);
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t ns = ts.tv_nsec + (int64_t)w->interval_ms * 1000000;
        ts.tv_sec += (time_t)(ns / 1000000000);
        ts.tv_nsec = (long)(ns % 1000000000);
        pthread_mutex_lock(&w->mu);
        while (!w->stop && pthread_cond_timedwait(&w->cv, &w->mu, &ts) == 0) {
        }
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

int bench_splits_start(const char *quorum, const char *parent, const char *table, int interval_ms,
                       bench_splits **out)
{
    *out = NULL;
    bench_splits *w = calloc(1, sizeof(*w));
    if (!w)
        return st_error(ST_NOMEM, "bench: out of memory for the split watcher");
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, &ca);
    pthread_condattr_destroy(&ca);
    snprintf(w->table, sizeof(w->table), "%s", table);
    w->interval_ms = interval_ms > 0 ? interval_ms : 100;
    int rc = admin_rpc_open(quorum, parent, &w->a);
    if (rc == ST_OK) {
        admin_rpc_set_timeout_ms(w->a, POLL_TIMEOUT_MS);
        if (pthread_create(&w->thread, NULL, watch_main, w) != 0)
            rc = st_error(ST_INTERNAL, "bench: cannot start the split watcher thread");
        else
            w->running = true;
    }
    if (rc != ST_OK) {
        bench_splits_free(w);
        return rc;
    }
    *out = w;
    return ST_OK;
}

void bench_splits_free(bench_splits *w)
{
    if (!w)
        return;
    if (w->running) {
        pthread_mutex_lock(&w->mu);
        w->stop = true;
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->mu);
        pthread_join(w->thread, NULL);
    }
    admin_rpc_close(w->a);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w->regions);
    free(w->splits);
    free(w);
}

size_t bench_splits_regions(bench_splits *w)
{
    pthread_mutex_lock(&w->mu);
    size_t n = w->nregions_now;
    pthread_mutex_unlock(&w->mu);
    return n;
}

/* Fills s's parent range from the regions seen (mu held). */
static void find_range(const bench_splits *w, const char *parent, bench_split *s)
{
    for (size_t i = 0; i < w->nregions; i++) {
        const seen_region *r = &w->regions[i];
        if (strcmp(r->name, parent) != 0 || !r->fits)
            continue;
        memcpy(s->start, r->start, r->start_len);
        s->start_len = r->start_len;
        memcpy(s->end, r->end, r->end_len);
        s->end_len = r->end_len;
        s->range_known = true;
        return;
    }
}

int bench_splits_list(bench_splits *w, bench_split **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    pthread_mutex_lock(&w->mu);
    bench_split *v = w->nsplits ? malloc(w->nsplits * sizeof(*v)) : NULL;
    if (w->nsplits && !v) {
        pthread_mutex_unlock(&w->mu);
        return st_error(ST_NOMEM, "bench: out of memory listing splits");
    }
    for (size_t i = 0; i < w->nsplits; i++) {
        v[i] = w->splits[i].s;
        v[i].range_known = false;
        find_range(w, w->splits[i].parent, &v[i]);
    }
    *n = w->nsplits;
    pthread_mutex_unlock(&w->mu);
    *out = v;
    return ST_OK;
}

bool bench_split_covers(const bench_split *s, const uint8_t *key, size_t key_len, int64_t from_ms,
                        int64_t to_ms)
{
    if (to_ms < s->submitted_ms || (s->ended && from_ms > s->updated_ms))
        return false;
    if (!s->range_known)
        return true;
    if (cell_compare_rows(key, key_len, s->start, s->start_len) < 0)
        return false;
    return s->end_len == 0 || cell_compare_rows(key, key_len, s->end, s->end_len) < 0;
}
