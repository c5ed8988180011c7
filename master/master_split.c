/*
 * master_split.c - the split procedure (docs/procedures.md, docs/split-merge.md):
 *
 *   PREPARE -> CLOSE_PARENT -> CREATE_DAUGHTERS -> UPDATE_META -> OPEN_DAUGHTERS
 *
 * Each step is written to the procedure's meta row before it acts. Until UPDATE_META
 * (one meta batch: the parent offline and split with its daughters named, the daughters
 * CLOSED, the procedure at OPEN_DAUGHTERS) a failure rolls back: the daughters'
 * directories go and the parent opens again. After it the split only goes forward; what
 * the procedure cannot open the chore opens. The parent is held (busy) from PREPARE to
 * the end, the daughters from UPDATE_META until they are open.
 *
 * Thread-safety: one procedure per thread; mu only for in-memory changes.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/status.h"
#include "master/master_internal.h"
#include "regionserver/storage/region_fs.h"

#define SPLIT_TYPE "SplitTableRegionProcedure"

enum {
    SPLIT_PREPARE = 0,
    SPLIT_CLOSE_PARENT = 1,
    SPLIT_CREATE_DAUGHTERS = 2,
    SPLIT_UPDATE_META = 3,
    SPLIT_OPEN_DAUGHTERS = 4,
};

static const char *const step_names[] = {"PREPARE", "CLOSE_PARENT", "CREATE_DAUGHTERS",
                                         "UPDATE_META", "OPEN_DAUGHTERS"};

typedef struct split_job {
    master *m;
    m_table *t;        /* held: users + 1 */
    m_region *parent;  /* taken */
    m_region *kids[2]; /* in the table from UPDATE_META on, taken */
    meta_region d[2];  /* the daughters' rows */
    uint8_t *row;
    size_t row_len;
    char server[SERVER_NAME_MAX]; /* where the parent was open */
    /* Where each daughter will open, picked before the parent closes and given to it as a
     * moved hint; "" (a resumed split): pick when opening. */
    char kid_server[2][SERVER_NAME_MAX];
    uint64_t id;
    bool written; /* the procedure row exists */
    Strata__Master__Procedure p;
    Strata__Admin__RegionInfo parent_ri, kid_ri[2];
    Strata__Admin__RegionInfo *parent_v[1], *kid_v[2];
} split_job;

static bool in_region(const meta_region *r, const uint8_t *row, size_t len)
{
    if (cell_compare_rows(row, len, r->start_key, r->start_len) < 0)
        return false;
    return r->end_len == 0 || cell_compare_rows(row, len, r->end_key, r->end_len) < 0;
}

/* Asks the parent's server whether and where it can split (GetRegionInfo with
 * best_split_row). *row is malloc'ed when the server proposes one. */
static int ask_server(master *m, const m_region *r, const char *addr, uint8_t **row,
                      size_t *row_len, bool *has_refs, bool *disabled, char *why, size_t why_cap)
{
    *row = NULL;
    *row_len = 0;
    *has_refs = *disabled = false;
    why[0] = 0;
    Strata__Admin__GetRegionInfoRequest req = STRATA__ADMIN__GET_REGION_INFO_REQUEST__INIT;
    req.encoded_name = (char *)r->mr.encoded_name;
    req.has_best_split_row = 1;
    req.best_split_row = 1;
    Strata__Admin__GetRegionInfoResponse *resp = NULL;
    int rc = master_rs_call(m, addr, "AdminService.GetRegionInfo", &req.base,
                            &strata__admin__get_region_info_response__descriptor,
                            (ProtobufCMessage **)&resp);
    if (rc != ST_OK)
        return st_error(rc, "split %s: asking %s where to split failed: %s", r->mr.encoded_name,
                        addr, st_errmsg());
    *has_refs = resp->has_has_references && resp->has_references;
    *disabled = resp->has_split_disabled && resp->split_disabled;
    if (resp->not_splittable)
        snprintf(why, why_cap, "%s", resp->not_splittable);
    if (resp->has_best_split_row && resp->best_split_row.len) {
        *row = malloc(resp->best_split_row.len);
        if (!*row)
            rc = st_error(ST_NOMEM, "out of memory");
        else {
            memcpy(*row, resp->best_split_row.data, resp->best_split_row.len);
            *row_len = resp->best_split_row.len;
        }
    }
    strata__admin__get_region_info_response__free_unpacked(resp, NULL);
    return rc;
}

static void job_free(split_job *j)
{
    free(j->row);
    meta_region_clear(&j->d[0]);
    meta_region_clear(&j->d[1]);
}

/* The daughters' rows: [start, row) and [row, end), id max(now, parent id + 1). */
static int make_daughters(split_job *j)
{
    const meta_region *p = &j->parent->mr;
    uint64_t id = (uint64_t)clock_now_ms();
    if (id <= p->region_id)
        id = p->region_id + 1;
    for (int i = 0; i < 2; i++) {
        meta_region *d = &j->d[i];
        memset(d, 0, sizeof(*d));
        snprintf(d->table, sizeof(d->table), "%s", p->table);
        d->region_id = id;
        d->state = META_CLOSED;
        int rc = i == 0 ? meta_region_set_keys(d, p->start_key, p->start_len, j->row, j->row_len)
                        : meta_region_set_keys(d, j->row, j->row_len, p->end_key, p->end_len);
        if (rc != ST_OK)
            return st_error(rc, "out of memory");
        meta_encoded_name(d->table, d->start_key, d->start_len, d->region_id, d->encoded_name);
    }
    return ST_OK;
}

static void build_proc(split_job *j, unsigned step)
{
    Strata__Master__Procedure *p = &j->p;
    strata__master__procedure__init(p);
    p->id = j->id;
    p->type = SPLIT_TYPE;
    p->step = step;
    p->table = j->parent->mr.table;
    master_region_info_proto(&j->parent->mr, &j->parent_ri);
    j->parent_v[0] = &j->parent_ri;
    p->n_parent = 1;
    p->parent = j->parent_v;
    for (int i = 0; i < 2; i++) {
        master_region_info_proto(&j->d[i], &j->kid_ri[i]);
        j->kid_v[i] = &j->kid_ri[i];
    }
    p->n_child = 2;
    p->child = j->kid_v;
    p->has_split_row = 1;
    p->split_row = (ProtobufCBinaryData){j->row_len, j->row};
    p->server = j->server;
    p->has_submitted_ms = 1;
    p->submitted_ms = (uint64_t)clock_now_ms();
}

static int write_step(split_job *j, unsigned step, const meta_region *put, size_t nput)
{
    j->p.step = step;
    bool maybe = false;
    int rc = master_proc_write(j->m, &j->p, step_names[step], put, nput, NULL, 0, &maybe);
    if (rc == ST_OK || maybe)
        j->written = true;
    /* Past this write only forward is safe, and whether it happened is unknown. */
    if (rc != ST_OK && maybe && nput)
        master_proc_unsure(j->m, j->id, st_errmsg());
    return rc;
}

/* Before UPDATE_META: the daughters' directories go, the parent opens again (or is left
 * to recovery or the chore), the row is deleted. */
static void roll_back(split_job *j, const char *why)
{
    master *m = j->m;
    for (int i = 0; i < 2; i++)
        if (region_fs_remove(m->root, j->d[i].table, j->d[i].encoded_name) != ST_OK)
            LOG_WARN("master %s: split %llu: removing daughter %s failed: %s", m->name,
                     (unsigned long long)j->id, j->d[i].encoded_name, st_errmsg());
    int rc = master_repair(m, j->t, j->parent);
    if (rc != ST_OK)
        LOG_WARN("master %s: split %llu: reopening parent %s failed: %s; the chore retries",
                 m->name, (unsigned long long)j->id, j->parent->mr.encoded_name, st_errmsg());
    master_proc_end(m, j->id, j->written, M_PROC_ROLLEDBACK, why);
    LOG_WARN("master %s: split %llu of region %s rolled back: %s", m->name,
             (unsigned long long)j->id, j->parent->mr.encoded_name, why);
}

/* UPDATE_META: one batch; then the same change in memory. */
static int update_meta(split_job *j)
{
    master *m = j->m;
    meta_region rows[3];
    int rc = meta_region_copy(&rows[0], &j->parent->mr);
    if (rc != ST_OK)
        return st_error(rc, "out of memory");
    rows[0].offline = rows[0].split = true;
    rows[0].state = META_OFFLINE;
    rows[0].server[0] = 0;
    snprintf(rows[0].split_a, sizeof(rows[0].split_a), "%s", j->d[0].encoded_name);
    snprintf(rows[0].split_b, sizeof(rows[0].split_b), "%s", j->d[1].encoded_name);
    rows[1] = j->d[0];
    rows[2] = j->d[1];
    master_inject_crash(m, SPLIT_TYPE, "UPDATE_META");
    rc = write_step(j, SPLIT_OPEN_DAUGHTERS, rows, 3);
    if (rc != ST_OK) {
        meta_region_clear(&rows[0]);
        return rc;
    }
    m_region *kids[2] = {calloc(1, sizeof(m_region)), calloc(1, sizeof(m_region))};
    pthread_mutex_lock(&m->mu);
    meta_region old = j->parent->mr;
    j->parent->mr = rows[0];
    meta_region_clear(&old);
    j->parent->since_ms = clock_now_ms();
    j->parent->retired = true;
    master_table_drop_region(j->t, j->parent);
    int prc = ST_OK;
    if (j->t->nparents == j->t->parents_cap) {
        size_t nc = j->t->parents_cap ? j->t->parents_cap * 2 : 4;
        m_region **pv = realloc(j->t->parents, nc * sizeof(*pv));
        if (pv) {
            j->t->parents = pv;
            j->t->parents_cap = nc;
        }
    }
    if (j->t->nparents < j->t->parents_cap)
        j->t->parents[j->t->nparents++] = j->parent;
    else
        prc = master_table_bury(j->t, j->parent); /* cleaned after the next master's start */
    for (int i = 0; i < 2; i++) {
        if (kids[i] && meta_region_copy(&kids[i]->mr, &j->d[i]) == ST_OK) {
            kids[i]->busy = true;
            kids[i]->since_ms = clock_now_ms();
            if (master_table_add_region(j->t, kids[i]) == ST_OK) {
                j->kids[i] = kids[i];
                continue;
            }
            meta_region_clear(&kids[i]->mr);
        }
        free(kids[i]);
        prc = ST_NOMEM;
    }
    pthread_mutex_unlock(&m->mu);
    if (prc != ST_OK)
        LOG_ERROR("master %s: split %llu: out of memory mirroring meta; the master must be "
                  "restarted to see the daughters",
                  m->name, (unsigned long long)j->id);
    LOG_INFO("master %s: split %llu: region %s of %s is now %s and %s", m->name,
             (unsigned long long)j->id, j->parent->mr.encoded_name, j->t->name,
             j->d[0].encoded_name, j->d[1].encoded_name);
    return ST_OK;
}

/* Picks the daughters' servers (the parent's with master.split.daughters.on.parent.server,
 * else the least loaded, the second avoiding the first's) into j->kid_server. */
static void plan_daughters(split_job *j)
{
    master *m = j->m;
    pthread_mutex_lock(&m->mu);
    m_server *s = master_server_find(m, j->server);
    bool there = m->children_on_parent_server && s && !s->stopping;
    for (int i = 0; i < 2; i++) {
        char *out = j->kid_server[i];
        if (there)
            snprintf(out, SERVER_NAME_MAX, "%s", j->server);
        else if (master_server_pick(m, i ? j->kid_server[0] : NULL, out, SERVER_NAME_MAX) != ST_OK)
            out[0] = '\0';
    }
    pthread_mutex_unlock(&m->mu);
}

/* Closes the parent, telling its server where the daughters will open. */
static int close_parent(split_job *j)
{
    plan_daughters(j);
    master_moved kid[2];
    Strata__Client__MovedRegion *v[2];
    Strata__Client__RegionMovedHint hint = STRATA__CLIENT__REGION_MOVED_HINT__INIT;
    for (int i = 0; i < 2; i++)
        if (j->kid_server[i][0] && master_moved_init(&kid[i], &j->d[i], j->kid_server[i]) == ST_OK)
            v[hint.n_region++] = &kid[i].msg;
    hint.region = v;
    return master_unassign_moved(j->m, j->parent, hint.n_region == 2 ? &hint : NULL);
}

static void open_daughters(split_job *j)
{
    master *m = j->m;
    master_inject_crash(m, SPLIT_TYPE, "OPEN_DAUGHTERS");
    for (int i = 0; i < 2; i++) {
        m_region *k = j->kids[i];
        if (!k)
            continue;
        pthread_mutex_lock(&m->mu);
        const char *want = j->kid_server[i][0] ? j->kid_server[i] : j->server;
        m_server *s = master_server_find(m, want);
        bool there = (j->kid_server[i][0] || m->children_on_parent_server) && s && !s->stopping;
        pthread_mutex_unlock(&m->mu);
        int rc = master_assign(m, j->t, k, there ? want : NULL);
        if (rc != ST_OK && there)
            rc = master_assign(m, j->t, k, NULL);
        if (rc != ST_OK)
            LOG_WARN("master %s: split %llu: opening daughter %s failed: %s; the chore retries",
                     m->name, (unsigned long long)j->id, k->mr.encoded_name, st_errmsg());
        master_region_give(m, k);
        j->kids[i] = NULL;
    }
}

/* Takes the region for a split, or refuses: unknown, busy, not open, table not enabled. */
static int take_parent(master *m, const char *encoded, split_job *j)
{
    pthread_mutex_lock(&m->mu);
    m_table *t = NULL;
    m_region *r = master_find_region(m, encoded, &t);
    int rc = ST_OK;
    if (!r)
        rc = st_error(ST_NOT_FOUND, "split: region %s is unknown", encoded);
    else if (t->state != META_TABLE_ENABLED)
        rc = st_error(ST_TABLE_DISABLED, "split %s: table %s is not enabled", encoded, t->name);
    else if (t->busy || !master_region_try_take(m, r))
        rc = st_error(ST_INVALID_ARGUMENT, "split %s: the region is in transition", encoded);
    else if (r->mr.state != META_OPEN || !master_server_find(m, r->mr.server) ||
             r->mr.nmerged) {
        if (r->mr.nmerged)
            rc = st_error(ST_INVALID_ARGUMENT,
                          "split %s: the region still names its merge parents; the catalog "
                          "janitor removes them once nothing references them",
                          encoded);
        else
            rc = st_error(ST_INVALID_ARGUMENT, "split %s: the region is in transition (%s)",
                          encoded, meta_region_state_name(r->mr.state));
        r->busy = false;
        pthread_cond_broadcast(&m->cv);
    }
    if (rc == ST_OK) {
        t->users++;
        t->procs++; /* a DDL waits for it (master_ddl.c) */
        j->t = t;
        j->parent = r;
        snprintf(j->server, sizeof(j->server), "%s", r->mr.server);
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

static void release(split_job *j)
{
    master *m = j->m;
    for (int i = 0; i < 2; i++)
        if (j->kids[i])
            master_region_give(m, j->kids[i]);
    master_region_give(m, j->parent);
    pthread_mutex_lock(&m->mu);
    j->t->users--;
    j->t->procs--;
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
}

/* PREPARE's checks once the parent is taken; sets j->row. */
static int prepare(split_job *j, const uint8_t *row, size_t row_len)
{
    master *m = j->m;
    const meta_region *p = &j->parent->mr;
    char addr[300] = "";
    pthread_mutex_lock(&m->mu);
    m_server *s = master_server_find(m, j->server);
    if (s)
        snprintf(addr, sizeof(addr), "%s", s->addr);
    pthread_mutex_unlock(&m->mu);
    if (!addr[0])
        return st_error(ST_INVALID_ARGUMENT, "split %s: its server %s is not live", p->encoded_name,
                        j->server);
    uint8_t *best = NULL;
    size_t best_len = 0;
    bool refs = false, disabled = false;
    char why[256];
    int rc = ask_server(m, j->parent, addr, &best, &best_len, &refs, &disabled, why, sizeof(why));
    if (rc != ST_OK)
        return rc;
    if (disabled) {
        free(best);
        return st_error(ST_INVALID_ARGUMENT, "split %s: %s", p->encoded_name, why);
    }
    if (row && (row_len == 0 || !in_region(p, row, row_len) ||
                cell_compare_rows(row, row_len, p->start_key, p->start_len) == 0)) {
        free(best);
        return st_error(ST_INVALID_ARGUMENT,
                        "split %s: split key '%.*s' is not inside the region or is its start key",
                        p->encoded_name, (int)row_len, (const char *)row);
    }
    if (refs) {
        free(best);
        return st_error(ST_INVALID_ARGUMENT,
                        "split %s: the region still holds reference files (compact it first)",
                        p->encoded_name);
    }
    if (row) {
        free(best);
        j->row = malloc(row_len);
        if (!j->row)
            return st_error(ST_NOMEM, "out of memory");
        memcpy(j->row, row, row_len);
        j->row_len = row_len;
    } else {
        if (!best)
            return st_error(ST_INVALID_ARGUMENT, "split %s: no split point: %s", p->encoded_name,
                            why[0] ? why : "the region has no data");
        j->row = best;
        j->row_len = best_len;
        if (!in_region(p, best, best_len) ||
            cell_compare_rows(best, best_len, p->start_key, p->start_len) == 0)
            return st_error(ST_INVALID_ARGUMENT,
                            "split %s: the best split point is the region's start key",
                            p->encoded_name);
    }
    return make_daughters(j);
}

int master_split_region(master *m, const char *encoded, const uint8_t *row, size_t row_len,
                        meta_region **daughters)
{
    if (daughters)
        *daughters = NULL;
    int rc = master_check_active(m);
    if (rc != ST_OK)
        return rc;
    if (!master_switch_get(m, MASTER_SWITCH_SPLIT))
        return st_error(ST_INVALID_ARGUMENT, "split %s: the split switch is off", encoded);
    /* A merged region still naming its parents: the janitor may clean them right now. */
    pthread_mutex_lock(&m->mu);
    m_region *cur = master_find_region(m, encoded, NULL);
    bool merged = cur && cur->mr.nmerged;
    pthread_mutex_unlock(&m->mu);
    if (merged)
        master_janitor_run(m, NULL);
    split_job j;
    memset(&j, 0, sizeof(j));
    j.m = m;
    rc = take_parent(m, encoded, &j);
    if (rc != ST_OK)
        return rc;
    rc = prepare(&j, row, row_len);
    if (rc != ST_OK) {
        release(&j);
        job_free(&j);
        return rc;
    }
    const char *regions[1] = {encoded};
    j.id = master_proc_begin(m, SPLIT_TYPE, j.t->name, regions, 1);
    if (!j.id) {
        release(&j);
        job_free(&j);
        return st_error(ST_NOMEM, "out of memory");
    }
    build_proc(&j, SPLIT_CLOSE_PARENT);
    LOG_INFO("master %s: split %llu: region %s of %s at '%.*s'", m->name, (unsigned long long)j.id,
             encoded, j.t->name, (int)j.row_len, (const char *)j.row);
    char why[512] = "";
    table_schema schema;
    rc = write_step(&j, SPLIT_CLOSE_PARENT, NULL, 0);
    if (rc == ST_OK) {
        master_inject_crash(m, SPLIT_TYPE, "CLOSE_PARENT");
        rc = close_parent(&j);
    }
    if (rc == ST_OK)
        rc = write_step(&j, SPLIT_CREATE_DAUGHTERS, NULL, 0);
    if (rc == ST_OK) {
        master_inject_crash(m, SPLIT_TYPE, "CREATE_DAUGHTERS");
        rc = master_table_storage_schema(m, j.t, &schema);
    }
    if (rc == ST_OK)
        rc = region_fs_split(m->root, &schema, encoded, j.d[0].encoded_name, j.d[1].encoded_name,
                             j.row, j.row_len, NULL);
    if (rc == ST_OK)
        rc = update_meta(&j);
    if (rc != ST_OK) {
        snprintf(why, sizeof(why), "%s", st_errmsg());
        roll_back(&j, why);
        release(&j);
        job_free(&j);
        return st_error(rc, "split %s: %s (rolled back)", encoded, why);
    }
    open_daughters(&j);
    master_proc_end(m, j.id, j.written, M_PROC_SUCCESS, NULL);
    if (daughters) {
        *daughters = calloc(2, sizeof(meta_region));
        if (*daughters) {
            (*daughters)[0] = j.d[0];
            (*daughters)[1] = j.d[1];
            memset(j.d, 0, sizeof(j.d));
        }
    }
    release(&j);
    job_free(&j);
    return ST_OK;
}

/* ---- a new active master ---- */

int master_split_resume(master *m, Strata__Master__Procedure *p)
{
    if (p->n_child != 2 || p->n_parent != 1 || !p->table)
        return st_error(ST_CORRUPTION, "split procedure %llu: malformed row",
                        (unsigned long long)p->id);
    if (p->step < SPLIT_OPEN_DAUGHTERS) {
        /* Before the catalog change: nothing in meta names the daughters. */
        for (size_t i = 0; i < 2; i++)
            if (region_fs_remove(m->root, p->table, p->child[i]->encoded_name) != ST_OK)
                LOG_WARN("master %s: split %llu: removing daughter %s failed: %s", m->name,
                         (unsigned long long)p->id, p->child[i]->encoded_name, st_errmsg());
        master_proc_end(m, p->id, true, M_PROC_ROLLEDBACK,
                        "a master failover came before the catalog change");
        LOG_INFO("master %s: split %llu of %s rolled back (step %s); the chore reopens the parent",
                 m->name, (unsigned long long)p->id, p->parent[0]->encoded_name,
                 master_proc_step_name(SPLIT_TYPE, p->step));
        return ST_OK;
    }
    const char *kids[2] = {p->child[0]->encoded_name, p->child[1]->encoded_name};
    return master_proc_resume_open(m, p->id, kids, 2, p->server ? p->server : "");
}
