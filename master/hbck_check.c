/*
 * hbck_check.c - the checks of `strata hbck` (docs/hbck.md) over what the master read:
 * region chains, deployment against meta, directories against meta, split and merge
 * parents the janitor left, WAL directories, table states and procedures. Pure
 * functions of an hbck_input; nothing here reads a file, ZooKeeper or the network.
 *
 * In transition, not inconsistent: a region an operation holds, whose state changed after
 * the report began, or whose transitional state is younger than stuck_ms is reported
 * IN_TRANSITION (informational); older, it is an error of the kind it shows.
 * Thread-safety: none needed (no shared state).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/server_name.h"
#include "common/status.h"
#include "master/hbck.h"
#include "regionserver/storage/layout.h"

static const char *const kind_names[HBCK_KIND_COUNT] = {
    [HBCK_HOLE_IN_REGION_CHAIN] = "HOLE_IN_REGION_CHAIN",
    [HBCK_OVERLAP_IN_REGION_CHAIN] = "OVERLAP_IN_REGION_CHAIN",
    [HBCK_NOT_DEPLOYED] = "NOT_DEPLOYED",
    [HBCK_MULTI_DEPLOYED] = "MULTI_DEPLOYED",
    [HBCK_SERVER_DOES_NOT_MATCH_META] = "SERVER_DOES_NOT_MATCH_META",
    [HBCK_SHOULD_NOT_BE_DEPLOYED] = "SHOULD_NOT_BE_DEPLOYED",
    [HBCK_NOT_IN_META] = "NOT_IN_META",
    [HBCK_ORPHAN_REGION_DIR] = "ORPHAN_REGION_DIR",
    [HBCK_NOT_IN_HDFS] = "NOT_IN_HDFS",
    [HBCK_LINGERING_SPLIT_PARENT] = "LINGERING_SPLIT_PARENT",
    [HBCK_LINGERING_MERGE_PARENT] = "LINGERING_MERGE_PARENT",
    [HBCK_LINGERING_REFERENCE_FILE] = "LINGERING_REFERENCE_FILE",
    [HBCK_ORPHAN_WAL_DIR] = "ORPHAN_WAL_DIR",
    [HBCK_UNSPLIT_WAL] = "UNSPLIT_WAL",
    [HBCK_TABLE_STUCK_ENABLING] = "TABLE_STUCK_ENABLING",
    [HBCK_TABLE_STUCK_DISABLING] = "TABLE_STUCK_DISABLING",
    [HBCK_STUCK_PROCEDURE] = "STUCK_PROCEDURE",
    [HBCK_IN_TRANSITION] = "IN_TRANSITION",
    [HBCK_SERVER_UNREACHABLE] = "SERVER_UNREACHABLE",
};

const char *hbck_kind_name(hbck_kind k)
{
    return (unsigned)k < HBCK_KIND_COUNT ? kind_names[k] : "?";
}

void hbck_report_free(hbck_report *r)
{
    free(r->v);
    memset(r, 0, sizeof(*r));
}

static void copy(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
}

void hbck_add(hbck_report *r, hbck_kind k, bool error, const char *table, const char *region,
              const char *server, const char *path, const char *fmt, ...)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        hbck_finding *v = realloc(r->v, cap * sizeof(*v));
        if (!v) {
            r->oom = true;
            return;
        }
        r->v = v;
        r->cap = cap;
    }
    hbck_finding *f = &r->v[r->n++];
    memset(f, 0, sizeof(*f));
    f->kind = k;
    f->error = error;
    copy(f->table, sizeof(f->table), table);
    copy(f->region, sizeof(f->region), region);
    copy(f->server, sizeof(f->server), server);
    copy(f->path, sizeof(f->path), path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->detail, sizeof(f->detail), fmt, ap);
    va_end(ap);
}

size_t hbck_errors(const hbck_report *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++)
        n += r->v[i].error;
    return n + r->oom;
}

/* Keys: lexicographic bytes, shorter first on a common prefix. */
static int keycmp(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    if (c)
        return c;
    return alen < blen ? -1 : alen > blen;
}

/* A key printably: bytes outside 0x20..0x7e (and '\') as \xNN; "" for the empty key. */
static const char *keystr(const uint8_t *k, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = 0;
    for (size_t i = 0; i < n && o + 5 < cap; i++) {
        if (k[i] >= 0x20 && k[i] < 0x7f && k[i] != '\\')
            out[o++] = (char)k[i];
        else
            o += (size_t)snprintf(out + o, cap - o, "\\x%02x", k[i]);
    }
    out[o < cap ? o : cap - 1] = 0;
    return out;
}

static bool is_split_parent(const meta_region *r)
{
    return r->offline && r->split;
}

static const hbck_table *find_table(const hbck_input *in, const char *name)
{
    for (size_t i = 0; i < in->ntables; i++)
        if (strcmp(in->tables[i].name, name) == 0)
            return &in->tables[i];
    return NULL;
}

static const hbck_region *find_region(const hbck_input *in, const char *encoded)
{
    for (size_t i = 0; i < in->nregions; i++)
        if (strcmp(in->regions[i].mr->encoded_name, encoded) == 0)
            return &in->regions[i];
    return NULL;
}

static int chain_cmp(const void *a, const void *b)
{
    const meta_region *x = *(const meta_region *const *)a, *y = *(const meta_region *const *)b;
    int c = keycmp(x->start_key, x->start_len, y->start_key, y->start_len);
    if (c)
        return c;
    return x->region_id < y->region_id ? -1 : x->region_id > y->region_id;
}

void hbck_check_chain(const hbck_input *in, const char *table, hbck_report *out)
{
    const meta_region **v = calloc(in->nregions ? in->nregions : 1, sizeof(*v));
    if (!v) {
        out->oom = true;
        return;
    }
    size_t n = 0;
    for (size_t i = 0; i < in->nregions; i++) {
        const meta_region *r = in->regions[i].mr;
        if (strcmp(r->table, table) == 0 && !is_split_parent(r))
            v[n++] = r;
    }
    qsort(v, n, sizeof(*v), chain_cmp);
    char a[160], b[160];
    const uint8_t *reach = NULL; /* the chain covers [ "", reach ) */
    size_t reach_len = 0;
    bool reach_end = false; /* it covers up to the end of the key space */
    const meta_region *owner = NULL;
    for (size_t i = 0; i < n; i++) {
        const meta_region *r = v[i];
        int c = reach_end ? -1 : keycmp(r->start_key, r->start_len, reach, reach_len);
        if (c > 0)
            hbck_add(out, HBCK_HOLE_IN_REGION_CHAIN, true, table, r->encoded_name, NULL, NULL,
                     "no region holds [\"%s\", \"%s\")", keystr(reach, reach_len, a, sizeof(a)),
                     keystr(r->start_key, r->start_len, b, sizeof(b)));
        else if (c < 0 && owner)
            hbck_add(out, HBCK_OVERLAP_IN_REGION_CHAIN, true, table, r->encoded_name, NULL, NULL,
                     "starts at \"%s\", inside region %s",
                     keystr(r->start_key, r->start_len, a, sizeof(a)), owner->encoded_name);
        if (!r->end_len) {
            reach_end = true;
            owner = r;
        } else if (!reach_end && keycmp(r->end_key, r->end_len, reach, reach_len) > 0) {
            reach = r->end_key;
            reach_len = r->end_len;
            owner = r;
        }
    }
    if (!reach_end)
        hbck_add(out, HBCK_HOLE_IN_REGION_CHAIN, true, table, owner ? owner->encoded_name : NULL,
                 NULL, NULL, "no region holds [\"%s\", end of table)",
                 keystr(reach, reach_len, a, sizeof(a)));
    free(v);
}

/* A change during the report or an operation holding the region: in transition. */
static bool changing(const hbck_input *in, const hbck_region *r)
{
    return r->busy || (r->since_ms && r->since_ms >= in->started_ms);
}

static bool young(const hbck_input *in, int64_t since_ms)
{
    return since_ms && in->now_ms - since_ms < in->stuck_ms;
}

static bool in_list(const char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0)
            return true;
    return false;
}

static const hbck_server *find_server(const hbck_input *in, const char *name)
{
    for (size_t i = 0; i < in->nservers; i++)
        if (strcmp(in->servers[i].name, name) == 0)
            return &in->servers[i];
    return NULL;
}

/* Servers serving encoded: how many, and the first into first. */
static size_t serving(const hbck_input *in, const char *encoded, const char **first)
{
    size_t k = 0;
    *first = NULL;
    for (size_t i = 0; i < in->nservers; i++) {
        const hbck_server *s = &in->servers[i];
        if (s->reached && in_list(s->regions, s->nregions, encoded) && k++ == 0)
            *first = s->name;
    }
    return k;
}

/* Reports k, or IN_TRANSITION (informational) while r is changing or young. */
static void region_finding(const hbck_input *in, const hbck_region *r, hbck_kind k,
                           const char *server, const char *what, hbck_report *out)
{
    const meta_region *mr = r->mr;
    /* OPEN is written after the server opened it: an OPEN region is in transition only
     * while held or changed during the report. */
    bool transit = changing(in, r) || (mr->state != META_OPEN && young(in, r->since_ms));
    if (r->busy && r->since_ms && !young(in, r->since_ms))
        transit = false; /* held too long: stuck */
    /* A DDL (enable, disable, a split or merge) moving the table's regions: what it has
     * not reached yet is in transition. The table's own state check says when it is stuck. */
    const hbck_table *t = find_table(in, mr->table);
    if (t && t->ddl)
        transit = true;
    if (transit)
        hbck_add(out, HBCK_IN_TRANSITION, false, mr->table, mr->encoded_name, server, NULL,
                 "%s (%s in meta; would be %s)", what, meta_region_state_name(mr->state),
                 hbck_kind_name(k));
    else
        hbck_add(out, k, true, mr->table, mr->encoded_name, server, NULL, "%s (%s in meta)", what,
                 meta_region_state_name(mr->state));
}

static void check_region_deploy(const hbck_input *in, const hbck_region *r, hbck_report *out)
{
    const meta_region *mr = r->mr;
    const hbck_table *t = find_table(in, mr->table);
    bool wants_open = !t || meta_table_state_wants_open(t->state);
    const char *at = NULL;
    size_t k = serving(in, mr->encoded_name, &at);
    const hbck_server *ms = mr->server[0] ? find_server(in, mr->server) : NULL;
    if (ms && !ms->reached)
        return; /* SERVER_UNREACHABLE says it */
    if (is_split_parent(mr) || !wants_open) {
        if (k)
            region_finding(in, r, HBCK_SHOULD_NOT_BE_DEPLOYED, at,
                           is_split_parent(mr) ? "a split parent is served"
                                               : "served while its table is disabled",
                           out);
        return;
    }
    if (k > 1) {
        region_finding(in, r, HBCK_MULTI_DEPLOYED, at, "served by more than one server", out);
        return;
    }
    if (mr->state == META_OPEN && mr->server[0] && !ms) {
        if (in_list(in->recovering, in->nrecovering, mr->server))
            hbck_add(out, HBCK_IN_TRANSITION, false, mr->table, mr->encoded_name, mr->server, NULL,
                     "its server is being recovered");
        else
            region_finding(in, r, HBCK_NOT_DEPLOYED, mr->server,
                           "meta places it on a server "
                           "that is not live",
                           out);
        return;
    }
    if (mr->state == META_OPEN && k == 0) {
        region_finding(in, r, HBCK_NOT_DEPLOYED, mr->server, "no live server serves it", out);
        return;
    }
    if (k == 1 && strcmp(at, mr->server) != 0) {
        region_finding(in, r, HBCK_SERVER_DOES_NOT_MATCH_META, at,
                       mr->server[0] ? "served by another server than meta names"
                                     : "served, but meta places it on no server",
                       out);
        return;
    }
    if (mr->state != META_OPEN)
        region_finding(in, r, HBCK_NOT_DEPLOYED, mr->server[0] ? mr->server : NULL,
                       "its table is enabled but it is not open", out);
}

void hbck_check_deploy(const hbck_input *in, hbck_report *out)
{
    bool procs = false;
    for (size_t i = 0; i < in->nprocs; i++)
        procs |= strcmp(in->procs[i].state, "RUNNABLE") == 0;
    for (size_t i = 0; i < in->nservers; i++)
        if (!in->servers[i].reached)
            hbck_add(out, HBCK_SERVER_UNREACHABLE, true, NULL, NULL, in->servers[i].name, NULL,
                     "a live server did not answer GetOnlineRegion");
    for (size_t i = 0; i < in->nregions; i++)
        check_region_deploy(in, &in->regions[i], out);
    for (size_t i = 0; i < in->nservers; i++) {
        const hbck_server *s = &in->servers[i];
        for (size_t j = 0; s->reached && j < s->nregions; j++)
            if (!find_region(in, s->regions[j]))
                hbck_add(out, procs ? HBCK_IN_TRANSITION : HBCK_NOT_IN_META, !procs, NULL,
                         s->regions[j], s->name, NULL, "served, but meta has no row for it%s",
                         procs ? " (a procedure is running)" : "");
    }
}

/* Whether some merged region of table names encoded as a parent. */
static const meta_region *merged_child_of(const hbck_input *in, const char *table,
                                          const char *encoded)
{
    for (size_t i = 0; i < in->nregions; i++) {
        const meta_region *r = in->regions[i].mr;
        if (strcmp(r->table, table) != 0)
            continue;
        for (size_t j = 0; j < r->nmerged; j++)
            if (strcmp(r->merged[j], encoded) == 0)
                return r;
    }
    return NULL;
}

static const hbck_dir *find_dir(const hbck_fs *fs, const char *table, const char *encoded)
{
    for (size_t i = 0; i < fs->ndirs; i++)
        if (strcmp(fs->dirs[i].region, encoded) == 0 && strcmp(fs->dirs[i].table, table) == 0)
            return &fs->dirs[i];
    return NULL;
}

/* A legitimate reference: its parent is a split parent of the region, or a merge parent
 * the region names. */
static bool ref_expected(const hbck_input *in, const hbck_ref *f)
{
    const hbck_region *p = find_region(in, f->parent);
    if (p && is_split_parent(p->mr) &&
        (strcmp(p->mr->split_a, f->region) == 0 || strcmp(p->mr->split_b, f->region) == 0))
        return true;
    const hbck_region *c = find_region(in, f->region);
    for (size_t j = 0; c && j < c->mr->nmerged; j++)
        if (strcmp(c->mr->merged[j], f->parent) == 0)
            return true;
    return false;
}

void hbck_check_dirs(const hbck_input *in, hbck_report *out)
{
    const hbck_fs *fs = in->fs;
    if (!fs)
        return;
    for (size_t i = 0; i < fs->ndirs; i++) {
        const hbck_dir *d = &fs->dirs[i];
        if (find_region(in, d->region) || merged_child_of(in, d->table, d->region))
            continue;
        const hbck_table *t = find_table(in, d->table);
        if (t && t->ddl)
            hbck_add(out, HBCK_IN_TRANSITION, false, d->table, d->region, NULL, d->path,
                     "a directory without a meta row while a procedure or DDL runs");
        else
            hbck_add(out, HBCK_ORPHAN_REGION_DIR, true, d->table, d->region, NULL, d->path,
                     "a region directory without a meta row (%s)",
                     d->has_data ? "holds data" : "empty");
    }
    for (size_t i = 0; i < in->nregions; i++) {
        const hbck_region *r = &in->regions[i];
        if (is_split_parent(r->mr) || find_dir(fs, r->mr->table, r->mr->encoded_name))
            continue;
        char *path =
            layout_region_dir(in->root ? in->root : "<root>", r->mr->table, r->mr->encoded_name);
        size_t before = out->n;
        region_finding(in, r, HBCK_NOT_IN_HDFS, r->mr->server[0] ? r->mr->server : NULL,
                       "a meta row without a region directory", out);
        if (path && out->n > before)
            copy(out->v[out->n - 1].path, sizeof(out->v[0].path), path);
        free(path);
    }
    for (size_t i = 0; i < fs->nrefs; i++) {
        const hbck_ref *f = &fs->refs[i];
        if (!find_region(in, f->region))
            continue; /* its directory is an orphan: said above */
        if (!f->target_exists)
            hbck_add(out, HBCK_LINGERING_REFERENCE_FILE, true, f->table, f->region, NULL, f->path,
                     "a reference to a file of region %s that is gone", f->parent);
        else if (!in->refs_targets_only && !ref_expected(in, f))
            hbck_add(out, HBCK_LINGERING_REFERENCE_FILE, true, f->table, f->region, NULL, f->path,
                     "a reference to region %s, which is neither its split nor merge parent",
                     f->parent);
    }
}

static void parent_finding(const hbck_input *in, hbck_kind k, const meta_region *about,
                           int64_t since_ms, const char *what, hbck_report *out)
{
    int64_t grace = in->janitor_grace_ms ? in->janitor_grace_ms : in->stuck_ms;
    if (since_ms && in->now_ms - since_ms < grace)
        hbck_add(out, HBCK_IN_TRANSITION, false, about->table, about->encoded_name, NULL, NULL,
                 "%s; the catalog janitor removes it at its next run", what);
    else
        hbck_add(out, k, true, about->table, about->encoded_name, NULL, NULL,
                 "%s, and the catalog janitor has not removed it", what);
}

/* Whether region child holds a reference to a file of parent. */
static bool references(const hbck_input *in, const char *child, const char *parent)
{
    for (size_t i = 0; child[0] && i < in->fs->nrefs; i++)
        if (strcmp(in->fs->refs[i].region, child) == 0 &&
            strcmp(in->fs->refs[i].parent, parent) == 0)
            return true;
    return false;
}

void hbck_check_parents(const hbck_input *in, hbck_report *out)
{
    if (!in->fs)
        return;
    for (size_t i = 0; i < in->nregions; i++) {
        const hbck_region *r = &in->regions[i];
        const meta_region *mr = r->mr;
        if (is_split_parent(mr)) {
            if (!references(in, mr->split_a, mr->encoded_name) &&
                !references(in, mr->split_b, mr->encoded_name))
                parent_finding(in, HBCK_LINGERING_SPLIT_PARENT, mr, r->since_ms,
                               "a split parent no daughter references", out);
        }
        bool any = false;
        for (size_t j = 0; j < mr->nmerged && !any; j++)
            any = references(in, mr->encoded_name, mr->merged[j]);
        if (mr->nmerged && !any)
            parent_finding(in, HBCK_LINGERING_MERGE_PARENT, mr, r->since_ms,
                           "a merged region still names parents it no longer references", out);
    }
}

void hbck_check_wals(const hbck_input *in, hbck_report *out)
{
    if (!in->fs)
        return;
    for (size_t i = 0; i < in->fs->nwals; i++) {
        const char *name = in->fs->wals[i];
        if (layout_is_master_wal_name(name))
            continue; /* a master's meta WAL: split by the next master to activate */
        char owner[320];
        layout_wal_name_owner(name, owner, sizeof(owner));
        bool fenced = layout_is_fenced_wal_name(name);
        char *path = layout_wal_dir(in->root ? in->root : "<root>", name);
        server_name sn;
        bool parsed = server_name_parse(owner, &sn) == ST_OK;
        if (in_list(in->recovering, in->nrecovering, owner)) {
            hbck_add(out, HBCK_IN_TRANSITION, false, NULL, NULL, owner, path,
                     "the WALs of a dead server being recovered");
        } else if (fenced) {
            hbck_add(out, HBCK_UNSPLIT_WAL, true, NULL, NULL, owner, path,
                     "a fenced WAL directory that no recovery is splitting");
        } else if (find_server(in, owner)) {
            /* a live server's own WAL */
        } else if (parsed && (int64_t)sn.start_code > in->now_ms - 2 * in->session_timeout_ms) {
            hbck_add(out, HBCK_IN_TRANSITION, false, NULL, NULL, owner, path,
                     "the WAL of a server that started moments ago and may still register");
        } else {
            hbck_add(out, HBCK_ORPHAN_WAL_DIR, true, NULL, NULL, owner, path,
                     "the WAL directory of a server that is neither live nor being recovered");
        }
        free(path);
    }
}

void hbck_check_tables(const hbck_input *in, hbck_report *out)
{
    for (size_t i = 0; i < in->ntables; i++) {
        const hbck_table *t = &in->tables[i];
        bool enabling = t->state == META_TABLE_ENABLING;
        if (!enabling && t->state != META_TABLE_DISABLING)
            continue;
        if (t->ddl || young(in, t->since_ms))
            hbck_add(out, HBCK_IN_TRANSITION, false, t->name, NULL, NULL, NULL, "table is %s",
                     meta_table_state_name(t->state));
        else
            hbck_add(out, enabling ? HBCK_TABLE_STUCK_ENABLING : HBCK_TABLE_STUCK_DISABLING, true,
                     t->name, NULL, NULL, NULL, "table %s for %lld ms with no DDL running",
                     meta_table_state_name(t->state), (long long)(in->now_ms - t->since_ms));
    }
}

void hbck_check_procs(const hbck_input *in, hbck_report *out)
{
    for (size_t i = 0; i < in->nprocs; i++) {
        const hbck_proc *p = &in->procs[i];
        bool running = strcmp(p->state, "RUNNABLE") == 0;
        if (!running && !p->row_only)
            continue;
        /* A row no thread runs is stuck unless it was written within the threshold (a
         * procedure that started while the report was gathered); one without a time is. */
        bool stuck = !young(in, p->updated_ms);
        size_t before = out->n;
        hbck_add(out, stuck ? HBCK_STUCK_PROCEDURE : HBCK_IN_TRANSITION, stuck, NULL, NULL, NULL,
                 NULL, "procedure %llu %s %s%s", (unsigned long long)p->id, p->type, p->state,
                 p->row_only ? ": a meta row no thread runs" : "");
        if (out->n > before)
            out->v[out->n - 1].proc_id = p->id;
    }
}

void hbck_check_all(const hbck_input *in, hbck_report *out)
{
    for (size_t i = 0; i < in->ntables; i++)
        hbck_check_chain(in, in->tables[i].name, out);
    hbck_check_deploy(in, out);
    hbck_check_dirs(in, out);
    hbck_check_parents(in, out);
    hbck_check_wals(in, out);
    hbck_check_tables(in, out);
    hbck_check_procs(in, out);
}

void hbck_format(const hbck_finding *f, char *out, size_t cap)
{
    int o = snprintf(out, cap, "%s: %s", f->error ? "ERROR" : "INFO", hbck_kind_name(f->kind));
    const struct {
        const char *k, *v;
    } parts[] = {
        {"table", f->table}, {"region", f->region}, {"server", f->server}, {"path", f->path}};
    for (size_t i = 0; i < 4 && o >= 0 && (size_t)o < cap; i++)
        if (parts[i].v[0])
            o += snprintf(out + o, cap - (size_t)o, " %s=%s", parts[i].k, parts[i].v);
    if (f->proc_id && o >= 0 && (size_t)o < cap)
        o += snprintf(out + o, cap - (size_t)o, " proc=%llu", (unsigned long long)f->proc_id);
    if (f->detail[0] && o >= 0 && (size_t)o < cap)
        snprintf(out + o, cap - (size_t)o, ": %s", f->detail);
}
