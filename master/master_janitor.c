/*
 * master_janitor.c - the catalog janitor (docs/split-merge.md): a split parent stays in
 * meta and on disk while either daughter holds a reference file to one of its store files;
 * a merged region names its parents (info:mergeNNNN) while it holds references to theirs.
 * Once nothing references them, the janitor removes the parents' directories and then
 * their traces in meta (the parent's row, or the merge columns). Nothing else deletes
 * them, and it never deletes one still referenced: the check reads the daughters'
 * directories on the shared root, where compaction is the only thing that removes a
 * reference, so a parent found unreferenced stays unreferenced.
 *
 * Thread-safety: one run at a time (janitor_mu); each parent or merged region is taken
 * (busy) while it is examined.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/status.h"
#include "master/master_internal.h"
#include "regionserver/storage/region_fs.h"

static pthread_mutex_t janitor_mu = PTHREAD_MUTEX_INITIALIZER;

/* Whether region `child` still references files of `parent`. */
static int referenced(master *m, const table_schema *schema, const char *child, const char *parent,
                      bool *out)
{
    *out = true;
    if (!child[0]) {
        *out = false;
        return ST_OK;
    }
    return region_fs_references(m->root, schema, child, parent, out);
}

/* One split parent (taken): cleaned if neither daughter references it. */
static int clean_split_parent(master *m, m_table *t, const table_schema *schema, m_region *p,
                              bool *done)
{
    *done = false;
    bool ra = true, rb = true;
    int rc = referenced(m, schema, p->mr.split_a, p->mr.encoded_name, &ra);
    if (rc == ST_OK)
        rc = referenced(m, schema, p->mr.split_b, p->mr.encoded_name, &rb);
    if (rc != ST_OK || ra || rb)
        return rc;
    rc = region_fs_remove(m->root, p->mr.table, p->mr.encoded_name);
    if (rc != ST_OK)
        return st_error(rc, "janitor: removing split parent %s failed: %s", p->mr.encoded_name,
                        st_errmsg());
    meta_change c = {.del = &p->mr, .ndel = 1};
    rc = master_check_lease(m);
    if (rc == ST_OK)
        rc = meta_apply(m->meta, &c);
    if (rc != ST_OK)
        return rc;
    pthread_mutex_lock(&m->mu);
    for (size_t i = 0; i < t->nparents; i++)
        if (t->parents[i] == p) {
            memmove(t->parents + i, t->parents + i + 1,
                    (t->nparents - i - 1) * sizeof(*t->parents));
            t->nparents--;
            break;
        }
    if (master_table_bury(t, p) != ST_OK)
        LOG_WARN("master %s: janitor: out of memory keeping %s; leaked", m->name,
                 p->mr.encoded_name);
    pthread_mutex_unlock(&m->mu);
    LOG_INFO("master %s: janitor: removed split parent %s of %s (daughters %s, %s)", m->name,
             p->mr.encoded_name, t->name, p->mr.split_a, p->mr.split_b);
    *done = true;
    return ST_OK;
}

/* One merged region (taken): its parents go once it references none of them. */
static int clean_merged(master *m, m_table *t, const table_schema *schema, m_region *r, bool *done)
{
    *done = false;
    for (size_t i = 0; i < r->mr.nmerged; i++) {
        bool ref = true;
        int rc = referenced(m, schema, r->mr.encoded_name, r->mr.merged[i], &ref);
        if (rc != ST_OK || ref)
            return rc;
    }
    for (size_t i = 0; i < r->mr.nmerged; i++) {
        int rc = region_fs_remove(m->root, r->mr.table, r->mr.merged[i]);
        if (rc != ST_OK)
            return st_error(rc, "janitor: removing merged parent %s failed: %s", r->mr.merged[i],
                            st_errmsg());
    }
    meta_region row;
    int rc = meta_region_copy(&row, &r->mr);
    if (rc != ST_OK)
        return rc;
    size_t n = row.nmerged;
    row.nmerged = 0;
    rc = master_persist(m, &row, 1);
    meta_region_clear(&row);
    if (rc != ST_OK)
        return rc;
    pthread_mutex_lock(&m->mu);
    r->mr.nmerged = 0;
    pthread_mutex_unlock(&m->mu);
    LOG_INFO("master %s: janitor: removed %zu merged parents of %s (%s)", m->name, n,
             r->mr.encoded_name, t->name);
    *done = true;
    return ST_OK;
}

/* Regions of t worth a look, each taken (mu held): split parents and merged regions. */
static m_region **candidates(master *m, m_table *t, size_t *n)
{
    *n = 0;
    m_region **v = calloc(t->nparents + t->n + 1, sizeof(*v));
    if (!v)
        return NULL;
    for (size_t i = 0; i < t->nparents; i++)
        if (master_region_try_take(m, t->parents[i]))
            v[(*n)++] = t->parents[i];
    for (size_t i = 0; i < t->n; i++)
        if (t->regions[i]->mr.nmerged && master_region_try_take(m, t->regions[i]))
            v[(*n)++] = t->regions[i];
    return v;
}

int master_janitor_run(master *m, unsigned *cleaned)
{
    unsigned count = 0;
    if (cleaned)
        *cleaned = 0;
    int rc = master_check_active(m);
    if (rc != ST_OK)
        return rc;
    if (!master_switch_get(m, MASTER_SWITCH_CATALOG_JANITOR))
        return ST_OK;
    pthread_mutex_lock(&janitor_mu);
    size_t nt = 0;
    m_table **tables = master_tables_hold(m, &nt);
    int first = ST_OK;
    char first_msg[512] = "";
    for (size_t i = 0; i < nt; i++) {
        m_table *t = tables[i];
        pthread_mutex_lock(&m->mu);
        bool want = !t->busy && (t->nparents > 0 || t->n > 0);
        size_t n = 0;
        m_region **v = want ? candidates(m, t, &n) : NULL;
        pthread_mutex_unlock(&m->mu);
        if (!v)
            continue;
        table_schema schema;
        rc = n ? master_table_storage_schema(m, t, &schema) : ST_OK;
        for (size_t j = 0; j < n; j++) {
            bool done = false;
            int r = ST_OK;
            if (rc == ST_OK)
                r = v[j]->mr.split && v[j]->mr.offline
                        ? clean_split_parent(m, t, &schema, v[j], &done)
                        : clean_merged(m, t, &schema, v[j], &done);
            else
                r = rc;
            if (r != ST_OK && first == ST_OK) {
                first = r;
                snprintf(first_msg, sizeof(first_msg), "%s", st_errmsg());
            }
            count += done;
            master_region_give(m, v[j]);
        }
        free(v);
    }
    master_tables_release(m, tables, nt);
    m->janitor_last_ms = clock_now_ms();
    pthread_mutex_unlock(&janitor_mu);
    if (cleaned)
        *cleaned = count;
    if (first != ST_OK) {
        LOG_WARN("master %s: janitor: %s", m->name, first_msg);
        return st_error(first, "%s", first_msg);
    }
    return ST_OK;
}
