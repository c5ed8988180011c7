/*
 * master_proc.c - persisted procedures (docs/procedures.md): their ids, their rows in meta
 * (written before each step acts, with the step's region rows in the same batch), the
 * in-memory listing of running and recently ended ones, resuming them on a new active
 * master, the test hooks that kill or pause the master at a step, and the master's
 * switches (split, merge and normalizer mirrored in ZooKeeper; the janitor's in memory,
 * as in HBase).
 *
 * Thread-safety: the listing is under mu; a procedure's row is written only by the thread
 * running it.
 */
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fileio.h"
#include "common/log.h"
#include "common/status.h"
#include "master/master_internal.h"

static const char *const state_names[] = {
    [M_PROC_RUNNABLE] = "RUNNABLE",
    [M_PROC_SUCCESS] = "SUCCESS",
    [M_PROC_ROLLEDBACK] = "ROLLEDBACK",
    [M_PROC_FAILED] = "FAILED",
};

const char *master_proc_state_name(m_proc_state s)
{
    return (unsigned)s <= M_PROC_FAILED ? state_names[s] : "?";
}

/* mu held */
static m_proc *find_proc(master *m, uint64_t id)
{
    for (size_t i = 0; i < m->nprocs; i++)
        if (m->procs[i]->id == id)
            return m->procs[i];
    return NULL;
}

/* Drops the oldest ended procedures beyond MASTER_PROCS_KEPT (mu held). */
static void trim(master *m)
{
    size_t ended = 0;
    for (size_t i = 0; i < m->nprocs; i++)
        ended += m->procs[i]->state != M_PROC_RUNNABLE;
    for (size_t i = 0; i < m->nprocs && ended > MASTER_PROCS_KEPT;) {
        if (m->procs[i]->state == M_PROC_RUNNABLE) {
            i++;
            continue;
        }
        free(m->procs[i]);
        memmove(m->procs + i, m->procs + i + 1, (m->nprocs - i - 1) * sizeof(*m->procs));
        m->nprocs--;
        ended--;
    }
}

/* Adds a listing entry with this id (mu held). */
static m_proc *track(master *m, uint64_t id, const char *type, const char *table,
                     const char *const *regions, size_t n)
{
    if (m->nprocs == m->procs_cap) {
        size_t nc = m->procs_cap ? m->procs_cap * 2 : 16;
        m_proc **p = realloc(m->procs, nc * sizeof(*p));
        if (!p)
            return NULL;
        m->procs = p;
        m->procs_cap = nc;
    }
    m_proc *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->id = id;
    p->type = type;
    p->step = "PREPARE";
    p->state = M_PROC_RUNNABLE;
    snprintf(p->table, sizeof(p->table), "%s", table);
    for (size_t i = 0; i < n && i < META_MERGE_MAX; i++)
        snprintf(p->regions[p->nregions++], sizeof(p->regions[0]), "%s", regions[i]);
    p->submitted_ms = p->updated_ms = clock_now_ms();
    m->procs[m->nprocs++] = p;
    return p;
}

uint64_t master_proc_begin(master *m, const char *type, const char *table,
                           const char *const *regions, size_t n)
{
    pthread_mutex_lock(&m->mu);
    uint64_t now = (uint64_t)clock_now_ms();
    uint64_t id = m->last_proc_id + 1 > now ? m->last_proc_id + 1 : now;
    m->last_proc_id = id;
    m_proc *p = track(m, id, type, table, regions, n);
    pthread_mutex_unlock(&m->mu);
    return p ? id : 0;
}

void master_proc_set_step(master *m, uint64_t id, const char *step)
{
    pthread_mutex_lock(&m->mu);
    m_proc *p = find_proc(m, id);
    if (p) {
        p->step = step;
        p->updated_ms = clock_now_ms();
    }
    pthread_mutex_unlock(&m->mu);
}

/* Whether spec (a comma-separated list of "<type>:<step>") names type at step. */
static bool inject_matches(const char *spec, const char *type, const char *step)
{
    size_t tl = strlen(type), sl = strlen(step);
    for (const char *p = spec; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == tl + 1 + sl && strncmp(p, type, tl) == 0 && p[tl] == ':' &&
            strncmp(p + tl + 1, step, sl) == 0)
            return true;
        p += len + (end ? 1 : 0);
    }
    return false;
}

void master_inject_crash(master *m, const char *type, const char *step)
{
    if (inject_matches(m->inject_pause, type, step)) {
        LOG_WARN("master %s: inject: pausing at %s:%s for %lld ms", m->name, type, step,
                 (long long)m->inject_pause_ms);
        clock_sleep_ms(m->inject_pause_ms);
    }
    if (inject_matches(m->inject_crash, type, step)) {
        /* Once per root directory: the master that takes over (same configuration) goes
         * on where this one died. */
        char mark[PATH_MAX + 160];
        snprintf(mark, sizeof(mark), "%s/inject-crash-%s-%s", m->root, type, step);
        if (fio_exists(mark))
            return;
        if (fio_write_atomic(mark, "", 0) != ST_OK)
            return;
        LOG_WARN("master %s: inject: crashing at %s:%s", m->name, type, step);
        raise(SIGKILL);
    }
}

int master_proc_write(master *m, Strata__Master__Procedure *p, const char *step_name,
                      const meta_region *put, size_t nput, const meta_region *del, size_t ndel,
                      bool *maybe_written)
{
    if (maybe_written)
        *maybe_written = false;
    pthread_mutex_lock(&m->mu);
    m_proc *bp = find_proc(m, p->id);
    bool bypassed = bp && bp->bypassed;
    pthread_mutex_unlock(&m->mu);
    if (bypassed) /* hbck bypass: no further step is written, so none acts */
        return st_error(ST_INVALID_ARGUMENT, "procedure %llu was bypassed (hbck)",
                        (unsigned long long)p->id);
    p->has_updated_ms = 1;
    p->updated_ms = (uint64_t)clock_now_ms();
    size_t len = strata__master__procedure__get_packed_size(p);
    uint8_t *data = malloc(len ? len : 1);
    if (!data)
        return st_error(ST_NOMEM, "out of memory writing procedure %llu",
                        (unsigned long long)p->id);
    strata__master__procedure__pack(p, data);
    meta_change c = {.put = put,
                     .nput = nput,
                     .del = del,
                     .ndel = ndel,
                     .proc_id = p->id,
                     .proc_data = data,
                     .proc_len = len};
    int rc = master_check_lease(m);
    if (rc == ST_OK) {
        rc = meta_apply(m->meta, &c);
        /* A failed WAL sync may still have reached the file; a lapsed lease after the
         * write means another master may act on it already. */
        if (maybe_written && rc != ST_INVALID_ARGUMENT && rc != ST_NOMEM)
            *maybe_written = true;
        if (rc == ST_OK)
            rc = master_check_lease(m);
    }
    free(data);
    if (rc != ST_OK) {
        LOG_ERROR("master %s: procedure %llu (%s): writing step %s failed: %s", m->name,
                  (unsigned long long)p->id, p->type, step_name, st_errmsg());
        return rc;
    }
    pthread_mutex_lock(&m->mu);
    m_proc *mp = find_proc(m, p->id);
    if (mp) {
        mp->step = step_name;
        mp->updated_ms = (int64_t)p->updated_ms;
    }
    pthread_mutex_unlock(&m->mu);
    LOG_DEBUG("master %s: procedure %llu (%s) at step %s", m->name, (unsigned long long)p->id,
              p->type, step_name);
    return ST_OK;
}

void master_proc_unsure(master *m, uint64_t id, const char *why)
{
    LOG_ERROR("master %s: procedure %llu: its catalog change may or may not be in meta (%s); "
              "exiting so that the next active master resumes it from meta",
              m->name, (unsigned long long)id, why);
    _exit(70);
}

void master_proc_end(master *m, uint64_t id, bool written, m_proc_state st, const char *error)
{
    if (written) {
        meta_change c = {.proc_id = id, .proc_delete = true};
        if (meta_apply(m->meta, &c) != ST_OK)
            LOG_ERROR("master %s: procedure %llu ended but its row stays in meta: %s; the next "
                      "master resumes it (every step is idempotent)",
                      m->name, (unsigned long long)id, st_errmsg());
    }
    pthread_mutex_lock(&m->mu);
    m_proc *p = find_proc(m, id);
    if (p) {
        p->state = st;
        p->updated_ms = clock_now_ms();
        if (error)
            snprintf(p->error, sizeof(p->error), "%s", error);
        trim(m);
    }
    pthread_mutex_unlock(&m->mu);
}

void master_proc_bypass(master *m, uint64_t id)
{
    pthread_mutex_lock(&m->mu);
    m_proc *p = find_proc(m, id);
    if (p) {
        p->bypassed = true;
        snprintf(p->error, sizeof(p->error), "bypassed (hbck)");
    }
    pthread_mutex_unlock(&m->mu);
}

int master_procs_list(master *m, m_proc **out, size_t *n)
{
    pthread_mutex_lock(&m->mu);
    *n = m->nprocs;
    *out = malloc((m->nprocs ? m->nprocs : 1) * sizeof(**out));
    if (*out)
        for (size_t i = 0; i < m->nprocs; i++)
            (*out)[i] = *m->procs[i];
    pthread_mutex_unlock(&m->mu);
    if (!*out) {
        *n = 0;
        return st_error(ST_NOMEM, "out of memory");
    }
    return ST_OK;
}

int master_procs_resume(master *m)
{
    meta_proc *v = NULL;
    size_t n = 0;
    int rc = meta_list_procs(m->meta, &v, &n);
    if (rc != ST_OK)
        return rc;
    for (size_t i = 0; i < n; i++) {
        Strata__Master__Procedure *p = strata__master__procedure__unpack(NULL, v[i].len, v[i].data);
        if (!p || p->id != v[i].id) {
            LOG_ERROR("master %s: procedure row %llu in meta does not parse; left there", m->name,
                      (unsigned long long)v[i].id);
            if (p)
                strata__master__procedure__free_unpacked(p, NULL);
            continue;
        }
        const char *regions[META_MERGE_MAX];
        size_t nr = 0;
        for (size_t j = 0; j < p->n_parent && nr < META_MERGE_MAX; j++)
            regions[nr++] = p->parent[j]->encoded_name;
        pthread_mutex_lock(&m->mu);
        if (p->id > m->last_proc_id)
            m->last_proc_id = p->id;
        m_proc *mp =
            track(m, p->id,
                  strcmp(p->type, "SplitTableRegionProcedure") == 0 ? "SplitTableRegionProcedure"
                                                                    : "MergeTableRegionsProcedure",
                  p->table ? p->table : "", regions, nr);
        if (mp && p->has_submitted_ms)
            mp->submitted_ms = (int64_t)p->submitted_ms;
        if (mp)
            mp->step = master_proc_step_name(mp->type, p->step);
        pthread_mutex_unlock(&m->mu);
        LOG_INFO("master %s: resuming procedure %llu (%s) at step %u", m->name,
                 (unsigned long long)p->id, p->type, p->step);
        int r = ST_OK;
        if (strcmp(p->type, "SplitTableRegionProcedure") == 0)
            r = master_split_resume(m, p);
        else if (strcmp(p->type, "MergeTableRegionsProcedure") == 0)
            r = master_merge_resume(m, p);
        else
            r = st_error(ST_UNSUPPORTED, "procedure %llu: unknown type %s",
                         (unsigned long long)p->id, p->type);
        if (r != ST_OK)
            LOG_ERROR("master %s: resuming procedure %llu failed: %s", m->name,
                      (unsigned long long)p->id, st_errmsg());
        strata__master__procedure__free_unpacked(p, NULL);
    }
    meta_procs_free(v, n);
    return ST_OK;
}

const char *master_proc_step_name(const char *type, unsigned step)
{
    static const char *const split[] = {"PREPARE", "CLOSE_PARENT", "CREATE_DAUGHTERS",
                                        "UPDATE_META", "OPEN_DAUGHTERS"};
    static const char *const merge[] = {"PREPARE", "CLOSE_PARENTS", "CREATE_MERGED", "UPDATE_META",
                                        "OPEN_MERGED"};
    if (step >= 5)
        return "?";
    return strcmp(type, "SplitTableRegionProcedure") == 0 ? split[step] : merge[step];
}

/* ---- finishing a procedure past its catalog change ---- */

typedef struct resume_arg {
    master *m;
    uint64_t id;
    char kids[META_MERGE_MAX][64];
    size_t nkids;
    char server[SERVER_NAME_MAX];
} resume_arg;

/* Opens the children (taking each in turn) on the server if it is live, else anywhere;
 * then ends the procedure. What is still closed after two minutes the chore opens. */
static void *resume_open(void *arg)
{
    resume_arg *a = arg;
    master *m = a->m;
    int64_t deadline = clock_now_ms() + 120000;
    bool open[META_MERGE_MAX] = {false};
    size_t left = a->nkids;
    while (left && clock_now_ms() < deadline && !atomic_load(&m->stopping) &&
           atomic_load(&m->active)) {
        for (size_t i = 0; i < a->nkids; i++) {
            if (open[i])
                continue;
            m_region *r = NULL;
            m_table *t = NULL;
            if (master_region_take(m, a->kids[i], &r, &t) != ST_OK) {
                open[i] = true; /* gone: split or merged again already */
                left--;
                continue;
            }
            pthread_mutex_lock(&m->mu);
            t->users++;
            m_server *s = master_server_find(m, a->server);
            bool there = m->children_on_parent_server && s && s->reported && !s->stopping;
            pthread_mutex_unlock(&m->mu);
            if (r->mr.state == META_OPEN ||
                master_assign(m, t, r, there ? a->server : NULL) == ST_OK) {
                open[i] = true;
                left--;
            }
            master_region_give(m, r);
            pthread_mutex_lock(&m->mu);
            t->users--;
            pthread_cond_broadcast(&m->cv);
            pthread_mutex_unlock(&m->mu);
        }
        if (left)
            clock_sleep_ms(500);
    }
    master_proc_end(m, a->id, true, left ? M_PROC_FAILED : M_PROC_SUCCESS,
                    left ? "regions not open in time; the chore opens them" : NULL);
    free(a);
    pthread_mutex_lock(&m->mu);
    m->proc_threads--;
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
    return NULL;
}

int master_proc_resume_open(master *m, uint64_t id, const char *const *kids, size_t n,
                            const char *server)
{
    resume_arg *a = calloc(1, sizeof(*a));
    if (!a)
        return st_error(ST_NOMEM, "out of memory");
    a->m = m;
    a->id = id;
    for (size_t i = 0; i < n && i < META_MERGE_MAX; i++)
        snprintf(a->kids[a->nkids++], sizeof(a->kids[0]), "%s", kids[i]);
    snprintf(a->server, sizeof(a->server), "%s", server);
    pthread_t th;
    pthread_mutex_lock(&m->mu);
    m->proc_threads++;
    pthread_mutex_unlock(&m->mu);
    if (pthread_create(&th, NULL, resume_open, a) != 0) {
        free(a);
        pthread_mutex_lock(&m->mu);
        m->proc_threads--;
        pthread_mutex_unlock(&m->mu);
        return st_error(ST_NOMEM, "procedure %llu: no thread to finish it", (unsigned long long)id);
    }
    pthread_detach(th);
    return ST_OK;
}

typedef struct detached {
    master *m;
    void (*fn)(master *m);
} detached;

static void *detached_main(void *arg)
{
    detached d = *(detached *)arg;
    free(arg);
    d.fn(d.m);
    pthread_mutex_lock(&d.m->mu);
    d.m->proc_threads--;
    pthread_cond_broadcast(&d.m->cv);
    pthread_mutex_unlock(&d.m->mu);
    return NULL;
}

void master_run_detached(master *m, void (*fn)(master *m))
{
    if (atomic_load(&m->stopping))
        return;
    detached *d = malloc(sizeof(*d));
    if (!d)
        return;
    d->m = m;
    d->fn = fn;
    pthread_mutex_lock(&m->mu);
    m->proc_threads++;
    pthread_mutex_unlock(&m->mu);
    pthread_t th;
    if (pthread_create(&th, NULL, detached_main, d) == 0) {
        pthread_detach(th);
        return;
    }
    free(d);
    pthread_mutex_lock(&m->mu);
    m->proc_threads--;
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
}

/* ---- switches ---- */

static const char *const switch_names[] = {"SPLIT", "MERGE", "NORMALIZER", "CATALOG_JANITOR",
                                           "BALANCER"};

int master_switch_parse(const char *name, master_switch *out)
{
    for (size_t i = 0; i < sizeof(switch_names) / sizeof(switch_names[0]); i++)
        if (name && strcasecmp(name, switch_names[i]) == 0) {
            *out = (master_switch)i;
            return ST_OK;
        }
    return st_error(ST_INVALID_ARGUMENT,
                    "unknown switch '%s' (SPLIT, MERGE, NORMALIZER, CATALOG_JANITOR or BALANCER)",
                    name ? name : "");
}

static atomic_bool *switch_var(master *m, master_switch s)
{
    switch (s) {
    case MASTER_SWITCH_SPLIT:
        return &m->switch_split;
    case MASTER_SWITCH_MERGE:
        return &m->switch_merge;
    case MASTER_SWITCH_NORMALIZER:
        return &m->switch_normalizer;
    case MASTER_SWITCH_BALANCER:
        return &m->switch_balancer;
    default:
        return &m->switch_janitor;
    }
}

/* The znode of a persisted switch, or NULL (the janitor's is not persisted). */
static char *switch_path(master *m, master_switch s)
{
    if (s == MASTER_SWITCH_SPLIT)
        return znodes_path(m->parent, ZNODE_SWITCH, "split");
    if (s == MASTER_SWITCH_MERGE)
        return znodes_path(m->parent, ZNODE_SWITCH, "merge");
    if (s == MASTER_SWITCH_NORMALIZER)
        return znodes_path(m->parent, ZNODE_NORMALIZER, NULL);
    if (s == MASTER_SWITCH_BALANCER)
        return znodes_path(m->parent, ZNODE_BALANCER, NULL);
    return NULL;
}

bool master_switch_get(master *m, master_switch s)
{
    return atomic_load(switch_var(m, s));
}

int master_switch_set(master *m, master_switch s, bool on, bool *prev)
{
    int rc = master_check_active(m);
    if (rc != ST_OK)
        return rc;
    char *path = switch_path(m, s);
    if (path) {
        const char *v = on ? "true" : "false";
        rc = master_zk_set(m, path, v, strlen(v));
        if (rc == ST_NOT_FOUND)
            rc = master_zk_create(m, path, v, strlen(v), ZK_PERSISTENT);
        if (rc == ST_NOT_FOUND && s != MASTER_SWITCH_NORMALIZER && s != MASTER_SWITCH_BALANCER) {
            /* <parent>/switch itself is missing (a cluster made before it existed). */
            char *dir = znodes_path(m->parent, ZNODE_SWITCH, NULL);
            int d = dir ? master_zk_create(m, dir, NULL, 0, ZK_PERSISTENT) : ST_NOMEM;
            free(dir);
            if (d == ST_OK || d == ST_EXISTS)
                rc = master_zk_create(m, path, v, strlen(v), ZK_PERSISTENT);
        }
        if (rc == ST_EXISTS)
            rc = master_zk_set(m, path, v, strlen(v));
        free(path);
        if (rc != ST_OK)
            return st_error(rc, "switch %s: writing it to ZooKeeper failed: %s", switch_names[s],
                            st_errmsg());
    }
    *prev = atomic_exchange(switch_var(m, s), on);
    LOG_INFO("master %s: switch %s %s (was %s)", m->name, switch_names[s], on ? "on" : "off",
             *prev ? "on" : "off");
    return ST_OK;
}

void master_switches_load(master *m)
{
    atomic_store(&m->switch_janitor, true);
    for (master_switch s = MASTER_SWITCH_SPLIT; s <= MASTER_SWITCH_BALANCER; s++) {
        if (s == MASTER_SWITCH_CATALOG_JANITOR)
            continue;
        bool on = true;
        char *path = switch_path(m, s);
        uint8_t *data = NULL;
        size_t len = 0;
        if (path && master_zk_get(m, path, &data, &len, NULL) == ST_OK)
            on = !(len == 5 && memcmp(data, "false", 5) == 0);
        free(data);
        free(path);
        atomic_store(switch_var(m, s), on);
    }
}
