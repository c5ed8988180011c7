/*
 * master_normalizer.c - the region normalizer (docs/split-merge.md), HBase's
 * SimpleRegionNormalizer: for each enabled table whose NORMALIZATION_ENABLED value is
 * true and that has at least master.normalizer.min.region.count regions, with the
 * regions' sizes from the last heartbeats (store files plus memstore) and their average
 * A, it plans a split of every region larger than 2 x A, then merges of neighbours (in
 * key order, neither planned yet, both older than master.normalizer.merge.min.region.age.ms)
 * whose sizes add up to less than A, or of which one is empty. The plan is logged, kept
 * for the status page, and run: each split and merge is a procedure of its own.
 *
 * Runs every master.normalizer.period.ms on the chore thread while the normalizer switch
 * is on, and on demand (MasterService.Normalize, the shell's normalize).
 * Thread-safety: one run at a time (normalizer_mu); sizes are copied under mu.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/status.h"
#include "master/master_internal.h"

static pthread_mutex_t normalizer_mu = PTHREAD_MUTEX_INITIALIZER;

typedef struct norm_region {
    char name[64];
    uint64_t size;
    bool known;   /* a heartbeat reported it */
    bool young;   /* created less than the minimum age ago */
    bool planned; /* already in a split or merge of this run */
} norm_region;

/* Whether the table's NORMALIZATION_ENABLED value is "true" (mu held). */
static bool table_wants_it(const m_table *t)
{
    Strata__Admin__TableSchema *s = master_table_schema(t);
    bool on = false;
    for (size_t i = 0; s && i < s->n_value; i++)
        if (strcmp(s->value[i]->name, "NORMALIZATION_ENABLED") == 0)
            on = strcasecmp(s->value[i]->value, "true") == 0;
    if (s)
        strata__admin__table_schema__free_unpacked(s, NULL);
    return on;
}

/* The last reported size of region name (mu held): false if no server reported it. */
static bool reported_size(master *m, const char *name, uint64_t *size)
{
    for (size_t i = 0; i < m->nservers; i++) {
        const Strata__Master__RegionServerReportRequest *r = m->servers[i]->report;
        for (size_t j = 0; r && j < r->n_region; j++)
            if (strcmp(r->region[j]->encoded_name, name) == 0) {
                *size = r->region[j]->store_file_size + r->region[j]->memstore_size;
                return true;
            }
    }
    return false;
}

/* The regions of a table to plan over (mu held); NULL when it does not qualify. */
static norm_region *table_regions(master *m, m_table *t, size_t *n, char *why, size_t cap)
{
    *n = 0;
    if (t->state != META_TABLE_ENABLED || t->busy) {
        snprintf(why, cap, "not enabled or busy");
        return NULL;
    }
    if (!table_wants_it(t)) {
        snprintf(why, cap, "NORMALIZATION_ENABLED is not true");
        return NULL;
    }
    if (t->n < (size_t)m->normalizer_min_regions) {
        snprintf(why, cap, "%zu regions, fewer than %d", t->n, m->normalizer_min_regions);
        return NULL;
    }
    norm_region *v = calloc(t->n, sizeof(*v));
    if (!v)
        return NULL;
    int64_t now = clock_now_ms();
    for (size_t i = 0; i < t->n; i++) {
        const m_region *r = t->regions[i];
        snprintf(v[i].name, sizeof(v[i].name), "%s", r->mr.encoded_name);
        v[i].known = r->mr.state == META_OPEN && !r->busy &&
                     reported_size(m, r->mr.encoded_name, &v[i].size);
        v[i].young = (int64_t)r->mr.region_id > now - m->normalizer_min_age_ms;
    }
    *n = t->n;
    return v;
}

/* Appends one line to the plan text (bounded). */
static void plan_add(char *plan, size_t cap, const char *fmt, const char *a, const char *b,
                     uint64_t x, uint64_t y)
{
    size_t len = strlen(plan);
    if (len + 1 < cap)
        snprintf(plan + len, cap - len, fmt, a, b, (unsigned long long)x, (unsigned long long)y);
}

static int normalize_table(master *m, m_table *t, char *plan, size_t cap, unsigned *actions)
{
    char why[128] = "";
    size_t n = 0;
    pthread_mutex_lock(&m->mu);
    norm_region *v = table_regions(m, t, &n, why, sizeof(why));
    char table[256];
    snprintf(table, sizeof(table), "%s", t->name);
    pthread_mutex_unlock(&m->mu);
    if (!v) {
        LOG_DEBUG("master %s: normalizer: table %s skipped: %s", m->name, table, why);
        return ST_OK;
    }
    uint64_t total = 0;
    size_t known = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].known) {
            total += v[i].size;
            known++;
        }
    if (known < n) {
        LOG_DEBUG("master %s: normalizer: table %s skipped: %zu of %zu regions without a "
                  "report or in transition",
                  m->name, table, n - known, n);
        free(v);
        return ST_OK;
    }
    uint64_t avg = total / n;
    /* Splits first, then merges among what is left. */
    for (size_t i = 0; i < n; i++)
        if (v[i].size > 2 * avg && avg > 0) {
            v[i].planned = true;
            plan_add(plan, cap, "split %s%s (%llu bytes, average %llu)\n", v[i].name, "", v[i].size,
                     avg);
        }
    for (size_t i = 0; i + 1 < n; i++) {
        norm_region *a = &v[i], *b = &v[i + 1];
        if (a->planned || b->planned || a->young || b->young)
            continue;
        if (a->size + b->size < avg || a->size == 0 || b->size == 0) {
            a->planned = b->planned = true;
            plan_add(plan, cap, "merge %s %s (%llu bytes, average %llu)\n", a->name, b->name,
                     a->size + b->size, avg);
            i++;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (!v[i].planned)
            continue;
        int rc;
        bool merge = i + 1 < n && v[i + 1].planned && !(v[i].size > 2 * avg && avg > 0);
        if (merge) {
            const char *pair[2] = {v[i].name, v[i + 1].name};
            rc = master_merge_regions(m, pair, 2, false, NULL);
            i++;
        } else {
            rc = master_split_region(m, v[i].name, NULL, 0, NULL);
        }
        if (rc == ST_OK)
            (*actions)++;
        else
            LOG_INFO("master %s: normalizer: %s of %s not done: %s", m->name,
                     merge ? "merge" : "split", v[merge ? i - 1 : i].name, st_errmsg());
    }
    free(v);
    return ST_OK;
}

int master_normalize(master *m, const char *only_table, bool *ran)
{
    *ran = false;
    int rc = master_check_active(m);
    if (rc != ST_OK)
        return rc;
    if (!master_switch_get(m, MASTER_SWITCH_NORMALIZER))
        return ST_OK; /* HBase: false while the switch is off */
    if (pthread_mutex_trylock(&normalizer_mu) != 0)
        return ST_OK; /* a run is under way */
    char plan[4096] = "";
    unsigned actions = 0;
    size_t nt = 0;
    m_table **tables = master_tables_hold(m, &nt);
    /* Each table is let go as soon as it is done: a DDL on it need not wait for the rest. */
    for (size_t i = 0; i < nt; i++) {
        if (!only_table || strcmp(only_table, tables[i]->name) == 0)
            normalize_table(m, tables[i], plan, sizeof(plan), &actions);
        pthread_mutex_lock(&m->mu);
        tables[i]->users--;
        pthread_cond_broadcast(&m->cv);
        pthread_mutex_unlock(&m->mu);
    }
    free(tables);
    if (plan[0])
        LOG_INFO("master %s: normalizer plan:\n%s(%u done)", m->name, plan, actions);
    pthread_mutex_lock(&m->mu);
    snprintf(m->normalizer_plan, sizeof(m->normalizer_plan), "%s", plan[0] ? plan : "(nothing)\n");
    m->normalizer_last_ms = clock_now_ms();
    pthread_mutex_unlock(&m->mu);
    pthread_mutex_unlock(&normalizer_mu);
    *ran = true;
    return ST_OK;
}

static void normalize_main(master *m)
{
    bool ran = false;
    master_normalize(m, NULL, &ran);
}

void master_normalize_async(master *m)
{
    if (master_switch_get(m, MASTER_SWITCH_NORMALIZER))
        master_run_detached(m, normalize_main);
}
