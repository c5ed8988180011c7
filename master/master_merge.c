/*
 * master_merge.c - the merge procedure (docs/procedures.md, docs/split-merge.md):
 *
 *   PREPARE -> CLOSE_PARENTS -> CREATE_MERGED -> UPDATE_META -> OPEN_MERGED
 *
 * The merged region is [min start, max end) with id max(parent ids) + 1 and a reference
 * to every store file of every parent. UPDATE_META is one meta batch: the parents' rows
 * deleted, the merged region CLOSED naming them (info:mergeNNNN), the procedure at
 * OPEN_MERGED. Before it a failure rolls back (the merged directory goes, the parents open
 * again); after it the merge only goes forward. Every parent is held (busy) from PREPARE
 * to the end, the merged region from UPDATE_META until it is open.
 *
 * Thread-safety: one procedure per thread; mu only for in-memory changes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/status.h"
#include "master/master_internal.h"
#include "regionserver/storage/region_fs.h"

#define MERGE_TYPE "MergeTableRegionsProcedure"

enum {
    MERGE_PREPARE = 0,
    MERGE_CLOSE_PARENTS = 1,
    MERGE_CREATE_MERGED = 2,
    MERGE_UPDATE_META = 3,
    MERGE_OPEN_MERGED = 4,
};

static const char *const step_names[] = {"PREPARE", "CLOSE_PARENTS", "CREATE_MERGED", "UPDATE_META",
                                         "OPEN_MERGED"};

typedef struct merge_job {
    master *m;
    m_table *t;                        /* held: users + 1 */
    m_region *parents[META_MERGE_MAX]; /* taken, in start-key order */
    size_t n;
    m_region *kid; /* in the table from UPDATE_META on, taken */
    meta_region merged;
    char server[SERVER_NAME_MAX]; /* where the first parent was open */
    /* Where the merged region will open, picked before the parents close and given to
     * them as a moved hint; "" (a resumed merge): pick when opening. */
    char kid_server[SERVER_NAME_MAX];
    uint64_t id;
    bool written;
    Strata__Master__Procedure p;
    Strata__Admin__RegionInfo parent_ri[META_MERGE_MAX], kid_ri;
    Strata__Admin__RegionInfo *parent_v[META_MERGE_MAX], *kid_v[1];
} merge_job;

static int cmp_keys_end(const meta_region *a, const meta_region *b)
{
    /* An empty end key is the table's end: above every other. */
    if (!a->end_len || !b->end_len)
        return (a->end_len == 0) - (b->end_len == 0);
    return cell_compare_rows(a->end_key, a->end_len, b->end_key, b->end_len);
}

static void give_all(merge_job *j)
{
    for (size_t i = 0; i < j->n; i++)
        master_region_give(j->m, j->parents[i]);
    if (j->kid)
        master_region_give(j->m, j->kid);
    j->kid = NULL;
    if (j->t) {
        pthread_mutex_lock(&j->m->mu);
        j->t->users--;
        j->t->procs--;
        pthread_cond_broadcast(&j->m->cv);
        pthread_mutex_unlock(&j->m->mu);
    }
}

/* Takes every region (all or none) and checks what mu can tell. mu NOT held. */
static int take_parents(master *m, const char *const *encoded, size_t n, bool force, merge_job *j)
{
    if (n < 2 || n > META_MERGE_MAX)
        return st_error(ST_INVALID_ARGUMENT, "merge: name 2 to %d regions, not %zu", META_MERGE_MAX,
                        n);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < i; k++)
            if (strcmp(encoded[i], encoded[k]) == 0)
                return st_error(ST_INVALID_ARGUMENT, "merge: region %s is named twice", encoded[i]);
    int rc = ST_OK;
    pthread_mutex_lock(&m->mu);
    m_table *t = NULL;
    for (size_t i = 0; i < n && rc == ST_OK; i++) {
        m_table *ti = NULL;
        m_region *r = master_find_region(m, encoded[i], &ti);
        if (!r)
            rc = st_error(ST_NOT_FOUND, "merge: region %s is unknown", encoded[i]);
        else if (t && ti != t)
            rc =
                st_error(ST_INVALID_ARGUMENT, "merge: regions %s and %s are of two tables (%s, %s)",
                         encoded[0], encoded[i], t->name, ti->name);
        else if (ti->state != META_TABLE_ENABLED)
            rc = st_error(ST_TABLE_DISABLED, "merge: table %s is not enabled", ti->name);
        else if (ti->busy || r->busy)
            rc = st_error(ST_INVALID_ARGUMENT, "merge: region %s is in transition", encoded[i]);
        else if (r->mr.state != META_OPEN || !master_server_find(m, r->mr.server))
            rc = st_error(ST_INVALID_ARGUMENT, "merge: region %s is in transition (%s)", encoded[i],
                          meta_region_state_name(r->mr.state));
        t = ti;
        if (rc == ST_OK)
            j->parents[j->n++] = r;
    }
    if (rc == ST_OK) {
        /* Start-key order; then adjacency, or with force at least no region in between. */
        qsort(j->parents, j->n, sizeof(*j->parents), master_region_cmp);
        for (size_t i = 0; i + 1 < j->n && rc == ST_OK; i++) {
            const meta_region *a = &j->parents[i]->mr, *b = &j->parents[i + 1]->mr;
            bool adjacent = a->end_len && cell_compare_rows(a->end_key, a->end_len, b->start_key,
                                                            b->start_len) == 0;
            if (!adjacent && !force)
                rc = st_error(ST_INVALID_ARGUMENT,
                              "merge: regions %s and %s are not adjacent (use force to merge "
                              "regions with a gap between them)",
                              a->encoded_name, b->encoded_name);
            else if (!adjacent)
                for (size_t k = 0; k < t->n && rc == ST_OK; k++) {
                    const meta_region *o = &t->regions[k]->mr;
                    bool between = o != a && o != b && a->end_len &&
                                   cell_compare_rows(o->start_key, o->start_len, a->end_key,
                                                     a->end_len) >= 0 &&
                                   cell_compare_rows(o->start_key, o->start_len, b->start_key,
                                                     b->start_len) < 0;
                    if (between)
                        rc = st_error(ST_INVALID_ARGUMENT,
                                      "merge: region %s lies between %s and %s; merging them "
                                      "would overlap it",
                                      o->encoded_name, a->encoded_name, b->encoded_name);
                }
        }
    }
    if (rc == ST_OK) {
        for (size_t i = 0; i < j->n; i++)
            j->parents[i]->busy = true;
        t->users++;
        t->procs++; /* a DDL waits for it (master_ddl.c) */
        j->t = t;
        snprintf(j->server, sizeof(j->server), "%s", j->parents[0]->mr.server);
    } else {
        j->n = 0;
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

/* No parent may hold reference files (it has not finished its own split or merge). */
static int check_references(merge_job *j)
{
    master *m = j->m;
    for (size_t i = 0; i < j->n; i++) {
        char addr[300] = "";
        pthread_mutex_lock(&m->mu);
        m_server *s = master_server_find(m, j->parents[i]->mr.server);
        if (s)
            snprintf(addr, sizeof(addr), "%s", s->addr);
        pthread_mutex_unlock(&m->mu);
        if (!addr[0])
            return st_error(ST_INVALID_ARGUMENT, "merge: the server of %s is not live",
                            j->parents[i]->mr.encoded_name);
        Strata__Admin__GetRegionInfoRequest req = STRATA__ADMIN__GET_REGION_INFO_REQUEST__INIT;
        req.encoded_name = j->parents[i]->mr.encoded_name;
        Strata__Admin__GetRegionInfoResponse *resp = NULL;
        int rc = master_rs_call(m, addr, "AdminService.GetRegionInfo", &req.base,
                                &strata__admin__get_region_info_response__descriptor,
                                (ProtobufCMessage **)&resp);
        if (rc != ST_OK)
            return st_error(rc, "merge: asking %s about %s failed: %s", addr,
                            j->parents[i]->mr.encoded_name, st_errmsg());
        bool refs = resp->has_has_references && resp->has_references;
        strata__admin__get_region_info_response__free_unpacked(resp, NULL);
        if (refs)
            return st_error(ST_INVALID_ARGUMENT,
                            "merge: region %s still holds reference files (compact it first)",
                            j->parents[i]->mr.encoded_name);
    }
    return ST_OK;
}

static int make_merged(merge_job *j)
{
    meta_region *d = &j->merged;
    memset(d, 0, sizeof(*d));
    const meta_region *first = &j->parents[0]->mr;
    const meta_region *last = first;
    uint64_t id = 0;
    for (size_t i = 0; i < j->n; i++) {
        const meta_region *p = &j->parents[i]->mr;
        if (cmp_keys_end(p, last) > 0)
            last = p;
        if (p->region_id > id)
            id = p->region_id;
        snprintf(d->merged[d->nmerged++], sizeof(d->merged[0]), "%s", p->encoded_name);
    }
    snprintf(d->table, sizeof(d->table), "%s", first->table);
    d->region_id = id + 1;
    d->state = META_CLOSED;
    if (meta_region_set_keys(d, first->start_key, first->start_len, last->end_key, last->end_len) !=
        ST_OK)
        return st_error(ST_NOMEM, "out of memory");
    meta_encoded_name(d->table, d->start_key, d->start_len, d->region_id, d->encoded_name);
    return ST_OK;
}

static void build_proc(merge_job *j, bool force)
{
    Strata__Master__Procedure *p = &j->p;
    strata__master__procedure__init(p);
    p->id = j->id;
    p->type = MERGE_TYPE;
    p->table = j->t->name;
    for (size_t i = 0; i < j->n; i++) {
        master_region_info_proto(&j->parents[i]->mr, &j->parent_ri[i]);
        j->parent_v[i] = &j->parent_ri[i];
    }
    p->n_parent = j->n;
    p->parent = j->parent_v;
    master_region_info_proto(&j->merged, &j->kid_ri);
    j->kid_v[0] = &j->kid_ri;
    p->n_child = 1;
    p->child = j->kid_v;
    p->server = j->server;
    p->has_submitted_ms = p->has_force = 1;
    p->submitted_ms = (uint64_t)clock_now_ms();
    p->force = force;
}

static int write_step(merge_job *j, unsigned step, const meta_region *put, size_t nput,
                      const meta_region *del, size_t ndel)
{
    j->p.step = step;
    bool maybe = false;
    int rc = master_proc_write(j->m, &j->p, step_names[step], put, nput, del, ndel, &maybe);
    if (rc == ST_OK || maybe)
        j->written = true;
    /* Past this write only forward is safe, and whether it happened is unknown. */
    if (rc != ST_OK && maybe && (nput || ndel))
        master_proc_unsure(j->m, j->id, st_errmsg());
    return rc;
}

static void roll_back(merge_job *j, const char *why)
{
    master *m = j->m;
    if (region_fs_remove(m->root, j->merged.table, j->merged.encoded_name) != ST_OK)
        LOG_WARN("master %s: merge %llu: removing %s failed: %s", m->name,
                 (unsigned long long)j->id, j->merged.encoded_name, st_errmsg());
    for (size_t i = 0; i < j->n; i++)
        if (master_repair(m, j->t, j->parents[i]) != ST_OK)
            LOG_WARN("master %s: merge %llu: reopening %s failed: %s; the chore retries", m->name,
                     (unsigned long long)j->id, j->parents[i]->mr.encoded_name, st_errmsg());
    master_proc_end(m, j->id, j->written, M_PROC_ROLLEDBACK, why);
    LOG_WARN("master %s: merge %llu rolled back: %s", m->name, (unsigned long long)j->id, why);
}

static int update_meta(merge_job *j)
{
    master *m = j->m;
    meta_region del[META_MERGE_MAX];
    for (size_t i = 0; i < j->n; i++)
        del[i] = j->parents[i]->mr; /* shallow: only keys and ids are read */
    master_inject_crash(m, MERGE_TYPE, "UPDATE_META");
    int rc = write_step(j, MERGE_OPEN_MERGED, &j->merged, 1, del, j->n);
    if (rc != ST_OK)
        return rc;
    m_region *kid = calloc(1, sizeof(*kid));
    pthread_mutex_lock(&m->mu);
    for (size_t i = 0; i < j->n; i++) {
        master_table_drop_region(j->t, j->parents[i]);
        j->parents[i]->retired = true;
        j->parents[i]->mr.offline = true;
        j->parents[i]->mr.state = META_OFFLINE;
        j->parents[i]->mr.server[0] = 0;
        if (master_table_bury(j->t, j->parents[i]) != ST_OK)
            LOG_WARN("master %s: merge: out of memory keeping %s; leaked", m->name,
                     j->parents[i]->mr.encoded_name);
    }
    int prc = ST_NOMEM;
    if (kid && meta_region_copy(&kid->mr, &j->merged) == ST_OK) {
        kid->busy = true;
        kid->since_ms = clock_now_ms();
        prc = master_table_add_region(j->t, kid);
        if (prc == ST_OK)
            j->kid = kid;
        else
            meta_region_clear(&kid->mr);
    }
    if (prc != ST_OK)
        free(kid);
    pthread_mutex_unlock(&m->mu);
    if (prc != ST_OK)
        LOG_ERROR("master %s: merge %llu: out of memory mirroring meta; the master must be "
                  "restarted to see region %s",
                  m->name, (unsigned long long)j->id, j->merged.encoded_name);
    LOG_INFO("master %s: merge %llu: %zu regions of %s are now %s", m->name,
             (unsigned long long)j->id, j->n, j->t->name, j->merged.encoded_name);
    return ST_OK;
}

static void open_merged(merge_job *j)
{
    master *m = j->m;
    master_inject_crash(m, MERGE_TYPE, "OPEN_MERGED");
    if (!j->kid)
        return;
    pthread_mutex_lock(&m->mu);
    const char *want = j->kid_server[0] ? j->kid_server : j->server;
    m_server *s = master_server_find(m, want);
    bool there = (j->kid_server[0] || m->children_on_parent_server) && s && !s->stopping;
    pthread_mutex_unlock(&m->mu);
    int rc = master_assign(m, j->t, j->kid, there ? want : NULL);
    if (rc != ST_OK && there)
        rc = master_assign(m, j->t, j->kid, NULL);
    if (rc != ST_OK)
        LOG_WARN("master %s: merge %llu: opening %s failed: %s; the chore retries", m->name,
                 (unsigned long long)j->id, j->kid->mr.encoded_name, st_errmsg());
}

/* Picks the merged region's server (the first parent's with
 * master.split.daughters.on.parent.server, else the least loaded) into j->kid_server and
 * closes the parents, telling their servers where it will open. */
static int close_parents(merge_job *j)
{
    master *m = j->m;
    pthread_mutex_lock(&m->mu);
    m_server *s = master_server_find(m, j->server);
    if (m->children_on_parent_server && s && !s->stopping)
        snprintf(j->kid_server, sizeof(j->kid_server), "%s", j->server);
    else if (master_server_pick(m, NULL, j->kid_server, sizeof(j->kid_server)) != ST_OK)
        j->kid_server[0] = '\0';
    pthread_mutex_unlock(&m->mu);
    master_moved kid;
    Strata__Client__MovedRegion *v[1] = {&kid.msg};
    Strata__Client__RegionMovedHint hint = STRATA__CLIENT__REGION_MOVED_HINT__INIT;
    bool hinted = j->kid_server[0] && master_moved_init(&kid, &j->merged, j->kid_server) == ST_OK;
    hint.n_region = 1;
    hint.region = v;
    int rc = ST_OK;
    for (size_t i = 0; rc == ST_OK && i < j->n; i++)
        rc = master_unassign_moved(m, j->parents[i], hinted ? &hint : NULL);
    return rc;
}

int master_merge_regions(master *m, const char *const *encoded, size_t n, bool force,
                         meta_region *merged)
{
    if (merged)
        memset(merged, 0, sizeof(*merged));
    int rc = master_check_active(m);
    if (rc != ST_OK)
        return rc;
    if (!master_switch_get(m, MASTER_SWITCH_MERGE))
        return st_error(ST_INVALID_ARGUMENT, "merge: the merge switch is off");
    /* Merged regions still naming their parents: the janitor may clean them right now. */
    bool named = false;
    pthread_mutex_lock(&m->mu);
    for (size_t i = 0; i < n && i < META_MERGE_MAX; i++) {
        m_region *cur = master_find_region(m, encoded[i], NULL);
        named = named || (cur && cur->mr.nmerged);
    }
    pthread_mutex_unlock(&m->mu);
    if (named)
        master_janitor_run(m, NULL);
    merge_job j;
    memset(&j, 0, sizeof(j));
    j.m = m;
    rc = take_parents(m, encoded, n, force, &j);
    if (rc != ST_OK)
        return rc;
    rc = check_references(&j);
    if (rc == ST_OK)
        rc = make_merged(&j);
    const char *names[META_MERGE_MAX];
    for (size_t i = 0; i < j.n; i++)
        names[i] = j.parents[i]->mr.encoded_name;
    if (rc == ST_OK && !(j.id = master_proc_begin(m, MERGE_TYPE, j.t->name, names, j.n)))
        rc = st_error(ST_NOMEM, "out of memory");
    if (rc != ST_OK) {
        give_all(&j);
        meta_region_clear(&j.merged);
        return rc;
    }
    build_proc(&j, force);
    LOG_INFO("master %s: merge %llu: %zu regions of %s into %s", m->name, (unsigned long long)j.id,
             j.n, j.t->name, j.merged.encoded_name);
    rc = write_step(&j, MERGE_CLOSE_PARENTS, NULL, 0, NULL, 0);
    if (rc == ST_OK)
        master_inject_crash(m, MERGE_TYPE, "CLOSE_PARENTS");
    if (rc == ST_OK)
        rc = close_parents(&j);
    if (rc == ST_OK)
        rc = write_step(&j, MERGE_CREATE_MERGED, NULL, 0, NULL, 0);
    table_schema schema;
    if (rc == ST_OK) {
        master_inject_crash(m, MERGE_TYPE, "CREATE_MERGED");
        rc = master_table_storage_schema(m, j.t, &schema);
    }
    if (rc == ST_OK)
        rc = region_fs_merge(m->root, &schema, names, j.n, j.merged.encoded_name, NULL);
    if (rc == ST_OK)
        rc = update_meta(&j);
    if (rc != ST_OK) {
        char why[512];
        snprintf(why, sizeof(why), "%s", st_errmsg());
        roll_back(&j, why);
        give_all(&j);
        meta_region_clear(&j.merged);
        return st_error(rc, "merge: %s (rolled back)", why);
    }
    open_merged(&j);
    master_proc_end(m, j.id, j.written, M_PROC_SUCCESS, NULL);
    give_all(&j);
    if (merged)
        *merged = j.merged;
    else
        meta_region_clear(&j.merged);
    return ST_OK;
}

int master_merge_resume(master *m, Strata__Master__Procedure *p)
{
    if (p->n_child != 1 || p->n_parent < 2 || !p->table)
        return st_error(ST_CORRUPTION, "merge procedure %llu: malformed row",
                        (unsigned long long)p->id);
    if (p->step < MERGE_OPEN_MERGED) {
        if (region_fs_remove(m->root, p->table, p->child[0]->encoded_name) != ST_OK)
            LOG_WARN("master %s: merge %llu: removing %s failed: %s", m->name,
                     (unsigned long long)p->id, p->child[0]->encoded_name, st_errmsg());
        master_proc_end(m, p->id, true, M_PROC_ROLLEDBACK,
                        "a master failover came before the catalog change");
        LOG_INFO("master %s: merge %llu rolled back (step %s); the chore reopens the parents",
                 m->name, (unsigned long long)p->id, master_proc_step_name(MERGE_TYPE, p->step));
        return ST_OK;
    }
    const char *kid = p->child[0]->encoded_name;
    return master_proc_resume_open(m, p->id, &kid, 1, p->server ? p->server : "");
}
