/*
 * region.c - a region's lifecycle (open with recovered-edits replay, close), its write
 * path (row locks, sequence ids, WAL, memstores, MVCC) and its read path (gets and
 * scanners over memstores and store files).
 *
 * Thread-safety and lock order: see region_internal.h. Reads take no locks beyond
 * the stores' short mutexes; writes hold their rows' striped locks, then the update
 * lock for reading while they append to the WAL and the memstores.
 */
#include "regionserver/storage/region_internal.h"

#include <errno.h>
#include <sched.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/fileio.h"
#include "common/log.h"
#include "common/status.h"
#include "regionserver/storage/layout.h"
#include "regionserver/storage/wal.h"

/* ---------------------------------------------------------------- helpers */

static uint32_t row_hash(const uint8_t *row, size_t len)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < len; i++) {
        h ^= row[i];
        h *= 16777619u;
    }
    return h;
}

pthread_mutex_t *region_row_lock_for(region *r, const uint8_t *row, size_t row_len)
{
    return &r->row_locks[row_hash(row, row_len) % REGION_ROW_LOCKS];
}

static int lock_with_timeout(region *r, pthread_mutex_t *m)
{
    struct timespec ts = clock_realtime_after_ms(REGION_ROW_LOCK_WAIT_MS);
    int err = pthread_mutex_timedlock(m, &ts);
    if (err == ETIMEDOUT)
        return st_error(ST_TIMEOUT, "region %s: timed out after %d ms waiting for a row lock",
                        r->info.encoded_name, REGION_ROW_LOCK_WAIT_MS);
    return err ? st_error(ST_INTERNAL, "region %s: row lock failed", r->info.encoded_name)
               : ST_OK;
}

int region_lock_row(region *r, const uint8_t *row, size_t row_len, pthread_mutex_t **held)
{
    *held = NULL;
    pthread_mutex_t *m = region_row_lock_for(r, row, row_len);
    int rc = lock_with_timeout(r, m);
    if (rc == ST_OK)
        *held = m;
    return rc;
}

int region_check_row(const region *r, const uint8_t *row, size_t row_len)
{
    if (row_len == 0 || row_len > CELL_MAX_ROW_LEN)
        return st_error(ST_INVALID_ARGUMENT, "region %s: row length %zu out of range 1..%d",
                        r->info.encoded_name, row_len, CELL_MAX_ROW_LEN);
    const region_info *i = &r->info;
    if (i->start_key_len && cell_compare_rows(row, row_len, i->start_key, i->start_key_len) < 0)
        return st_error(ST_NOT_SERVING, "region %s of %s does not hold row (before its start)",
                        i->encoded_name, i->table);
    if (i->end_key_len && cell_compare_rows(row, row_len, i->end_key, i->end_key_len) >= 0)
        return st_error(ST_NOT_SERVING, "region %s of %s does not hold row (at or after its end)",
                        i->encoded_name, i->table);
    return ST_OK;
}

store *region_find_store(region *r, const uint8_t *fam, size_t fam_len)
{
    int i = table_schema_find_family(&r->schema, fam, fam_len);
    return i < 0 ? NULL : r->stores[i];
}

/* ---------------------------------------------------------------- references */

bool region_try_ref(region *r)
{
    pthread_mutex_lock(&r->maint_mu);
    bool ok = !r->closing;
    if (ok)
        r->refs++;
    pthread_mutex_unlock(&r->maint_mu);
    return ok;
}

void region_unref(region *r)
{
    pthread_mutex_lock(&r->maint_mu);
    r->refs--;
    pthread_cond_broadcast(&r->maint_cv);
    pthread_mutex_unlock(&r->maint_mu);
}

/* ---------------------------------------------------------------- open / close */

typedef struct replay_ctx {
    region *r;
    uint64_t max_seq;
    uint64_t applied;
    int rc;
} replay_ctx;

static int replay_edit(const wal_edit *e, void *arg)
{
    replay_ctx *ctx = arg;
    region *r = ctx->r;
    if (strcmp(e->region, r->info.encoded_name) != 0)
        return 0;
    for (size_t i = 0; i < e->ncells; i++) {
        const cell_t *c = &e->cells[i];
        store *s = region_find_store(r, c->family, c->family_len);
        if (!s) {
            LOG_WARN("region %s: recovered edit seq %" PRIu64 " names a family not in the "
                     "table; skipped",
                     r->info.encoded_name, e->seq);
            continue;
        }
        if (e->seq <= store_max_flushed_seq(s))
            continue;
        cell_t copy = *c;
        copy.seq = e->seq;
        int rc = store_add(s, &copy);
        if (rc != ST_OK) {
            ctx->rc = rc;
            return 1;
        }
        size_t charge = store_cell_charge(&copy);
        atomic_fetch_add(&r->memstore_bytes, charge);
        engine_memstore_add(r->eng, (int64_t)charge);
        ctx->applied++;
    }
    if (e->seq > ctx->max_seq)
        ctx->max_seq = e->seq;
    return 0;
}

/* Replays recovered.edits files into the memstores; *max_seq is raised to the
 * highest sequence id seen. The files are deleted by the caller after a flush. */
static int replay_recovered_edits(region *r, char ***paths, size_t *npaths, uint64_t *max_seq)
{
    *paths = NULL;
    *npaths = 0;
    char *dir = layout_recovered_edits_dir(r->eng ? engine_get_options(r->eng)->root_dir : "",
                                           r->info.table, r->info.encoded_name);
    if (!dir)
        return ST_NOMEM;
    if (!fio_exists(dir)) {
        free(dir);
        return ST_OK;
    }
    char **names = NULL;
    size_t n = 0;
    int rc = fio_list_dir(dir, &names, &n);
    char **full = rc == ST_OK && n ? calloc(n, sizeof(*full)) : NULL;
    replay_ctx ctx = {r, *max_seq, 0, ST_OK};
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        if (asprintf(&full[i], "%s/%s", dir, names[i]) < 0) {
            full[i] = NULL;
            rc = ST_NOMEM;
            break;
        }
        size_t len = strlen(names[i]);
        if (len > 4 && strcmp(names[i] + len - 4, ".tmp") == 0)
            continue; /* an unfinished split output; its WAL was not deleted */
        rc = wal_read_file(full[i], false, replay_edit, &ctx, NULL);
        if (rc == ST_OK && ctx.rc != ST_OK)
            rc = ctx.rc;
    }
    fio_free_list(names, n);
    free(dir);
    if (rc != ST_OK) {
        fio_free_list(full, n);
        return rc;
    }
    if (ctx.applied)
        LOG_INFO("region %s: replayed %" PRIu64 " recovered cells up to seq %" PRIu64,
                 r->info.encoded_name, ctx.applied, ctx.max_seq);
    *paths = full;
    *npaths = n;
    *max_seq = ctx.max_seq;
    return ST_OK;
}

static int copy_info(region *r, const region_info *info)
{
    r->info = *info;
    r->start_key = malloc(info->start_key_len + 1);
    r->end_key = malloc(info->end_key_len + 1);
    if (!r->start_key || !r->end_key)
        return ST_NOMEM;
    if (info->start_key_len)
        memcpy(r->start_key, info->start_key, info->start_key_len);
    if (info->end_key_len)
        memcpy(r->end_key, info->end_key, info->end_key_len);
    r->info.start_key = r->start_key;
    r->info.end_key = r->end_key;
    return ST_OK;
}

static void region_free(region *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->schema.nfamilies; i++)
        store_free(r->stores[i]);
    if (r->mvcc)
        mvcc_free(r->mvcc);
    for (int i = 0; i < REGION_ROW_LOCKS; i++)
        pthread_mutex_destroy(&r->row_locks[i]);
    pthread_rwlock_destroy(&r->update_lock);
    pthread_mutex_destroy(&r->maint_mu);
    pthread_mutex_destroy(&r->flush_mu);
    pthread_cond_destroy(&r->maint_cv);
    free(r->start_key);
    free(r->end_key);
    free(r->dir);
    free(r);
}

static region *region_alloc(engine *e, const table_schema *schema)
{
    region *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->eng = e;
    r->schema = *schema;
    pthread_rwlockattr_t attr;
    pthread_rwlockattr_init(&attr);
    /* A flush must not starve behind a steady stream of writers. */
    pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
    pthread_rwlock_init(&r->update_lock, &attr);
    pthread_rwlockattr_destroy(&attr);
    for (int i = 0; i < REGION_ROW_LOCKS; i++)
        pthread_mutex_init(&r->row_locks[i], NULL);
    pthread_mutex_init(&r->maint_mu, NULL);
    pthread_mutex_init(&r->flush_mu, NULL);
    pthread_cond_init(&r->maint_cv, NULL);
    r->refs = 1;
    return r;
}

static int open_stores(region *r, uint64_t *max_seq)
{
    const char *root = engine_get_options(r->eng)->root_dir;
    *max_seq = 0;
    for (size_t i = 0; i < r->schema.nfamilies; i++) {
        const family_schema *f = &r->schema.families[i];
        char *dir = layout_store_dir(root, r->info.table, r->info.encoded_name, f->name);
        if (!dir)
            return ST_NOMEM;
        int rc = store_open(dir, f, engine_block_cache(r->eng), &r->stores[i]);
        free(dir);
        if (rc != ST_OK)
            return rc;
        uint64_t m = store_max_flushed_seq(r->stores[i]);
        *max_seq = m > *max_seq ? m : *max_seq;
    }
    return ST_OK;
}

static void remove_edit_files(region *r, char **paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (paths[i] && fio_unlink(paths[i]) != ST_OK)
            LOG_WARN("region %s: could not remove %s: %s", r->info.encoded_name, paths[i],
                     st_errmsg());
}

/* Marks the region closing and waits until only the owner's reference is left. */
static void drain_refs(region *r)
{
    pthread_mutex_lock(&r->maint_mu);
    r->closing = true;
    while (r->refs > 1)
        pthread_cond_wait(&r->maint_cv, &r->maint_mu);
    pthread_mutex_unlock(&r->maint_mu);
}

int region_open(engine *e, const table_schema *schema, const region_info *info, region **out)
{
    *out = NULL;
    int rc = table_schema_validate(schema);
    if (rc != ST_OK)
        return rc;
    if (layout_validate_name_part(info->encoded_name) != ST_OK)
        return st_error(ST_INVALID_ARGUMENT, "region name '%s' is invalid: %s",
                        info->encoded_name, st_errmsg());
    region *r = region_alloc(e, schema);
    if (!r)
        return ST_NOMEM;
    char **edits = NULL;
    size_t nedits = 0;
    uint64_t max_seq = 0;
    if ((rc = copy_info(r, info)) != ST_OK)
        goto fail;
    r->dir = layout_region_dir(engine_get_options(e)->root_dir, info->table, info->encoded_name);
    if (!r->dir) {
        rc = ST_NOMEM;
        goto fail;
    }
    if ((rc = fio_mkdirs(r->dir)) != ST_OK || (rc = open_stores(r, &max_seq)) != ST_OK)
        goto fail;
    atomic_store(&r->max_flushed_seq, max_seq);
    if ((rc = replay_recovered_edits(r, &edits, &nedits, &max_seq)) != ST_OK)
        goto fail;
    if (!(r->mvcc = mvcc_new(max_seq))) {
        rc = ST_NOMEM;
        goto fail;
    }
    engine_register_region(e, r);
    if (nedits) {
        /* Recovered edits become store files before they are deleted. */
        if ((rc = region_flush_internal(r)) != ST_OK) {
            drain_refs(r); /* background work queued meanwhile holds references */
            engine_unregister_region(e, r);
            goto fail;
        }
        remove_edit_files(r, edits, nedits);
    }
    fio_free_list(edits, nedits);
    engine_request_compaction(e, r); /* files left by an earlier life may need it */
    LOG_INFO("region %s of %s opened at seq %" PRIu64, info->encoded_name, info->table, max_seq);
    *out = r;
    return ST_OK;
fail:
    LOG_ERROR("region %s of %s failed to open: %s (%s)", info->encoded_name, info->table,
              st_strerror(rc), st_errmsg());
    fio_free_list(edits, nedits);
    int64_t bytes = (int64_t)atomic_load(&r->memstore_bytes);
    if (bytes)
        engine_memstore_add(e, -bytes);
    region_free(r);
    return rc;
}

int region_close(region *r, bool flush)
{
    if (!r)
        return ST_OK;
    drain_refs(r);
    if (flush) {
        int rc = region_flush_internal(r);
        if (rc != ST_OK) {
            /* The memstore holds acknowledged edits that are not in files: keep the
             * region open so nothing is dropped; the caller retries or aborts. */
            pthread_mutex_lock(&r->maint_mu);
            r->closing = false;
            pthread_mutex_unlock(&r->maint_mu);
            LOG_ERROR("region %s of %s: close aborted, its flush failed: %s",
                      r->info.encoded_name, r->info.table, st_errmsg());
            return rc;
        }
    }
    engine_unregister_region(r->eng, r);
    /* Only a flushed region lets go of its WAL edits; otherwise they stay for replay. */
    if (flush)
        wal_region_closed(engine_wal(r->eng), r->info.encoded_name);
    int64_t bytes = (int64_t)atomic_load(&r->memstore_bytes);
    if (bytes)
        engine_memstore_add(r->eng, -bytes);
    LOG_INFO("region %s of %s closed", r->info.encoded_name, r->info.table);
    region_free(r);
    return ST_OK;
}

const table_schema *region_get_schema(const region *r)
{
    return &r->schema;
}

const region_info *region_get_info(const region *r)
{
    return &r->info;
}

/* ---------------------------------------------------------------- write path */

/* A mutation made ready to apply: its cells with row, timestamps and types settled. */
typedef struct prepared {
    cell_t *cells;
    size_t ncells;
    bool needs_latest; /* some Delete cell still has the LATEST timestamp */
} prepared;

/* The timestamp of the (skip+1)-th newest visible version of the cell's column, or
 * now_ms when there are not that many (HBase's Delete with LATEST_TIMESTAMP). */
static int latest_version_ts(region *r, const uint8_t *row, size_t row_len, const cell_t *c,
                             size_t skip, int64_t now_ms, int64_t *ts)
{
    scan_column col = {c->family, c->family_len, c->qualifier, c->qualifier_len};
    scan_spec spec = {0};
    spec.columns = &col;
    spec.ncolumns = 1;
    spec.max_versions = (int)(skip + 1);
    scan_result res;
    scan_result_init(&res);
    int rc = region_read_row(r, row, row_len, &spec, &res);
    *ts = (rc == ST_OK && res.ncells > skip) ? res.cells[skip].ts : now_ms;
    scan_result_free(&res);
    return rc;
}

/* Settles Delete cells with LATEST timestamps; runs with the row lock held so that
 * concurrent deletes of "the latest version" each take a different one. Several such
 * cells for one column in one mutation delete that many versions. */
static int resolve_latest_deletes(region *r, const uint8_t *row, size_t row_len, prepared *p,
                                  int64_t now_ms)
{
    if (!p->needs_latest)
        return ST_OK;
    /* Last to first, so the earlier cells of the same column are still unresolved and
     * count how many newer versions this one must skip. */
    for (size_t i = p->ncells; i-- > 0;) {
        cell_t *c = &p->cells[i];
        if (c->type != CELL_TYPE_DELETE || c->ts != CELL_LATEST_TIMESTAMP)
            continue;
        size_t skip = 0;
        for (size_t j = 0; j < i; j++)
            if (p->cells[j].type == CELL_TYPE_DELETE && p->cells[j].ts == CELL_LATEST_TIMESTAMP &&
                cell_compare_column(&p->cells[j], c) == 0)
                skip++;
        int rc = latest_version_ts(r, row, row_len, c, skip, now_ms, &c->ts);
        if (rc != ST_OK)
            return rc;
    }
    p->needs_latest = false;
    return ST_OK;
}

static int prepare_mutation(region *r, const mutation *m, int64_t now_ms, prepared *p)
{
    memset(p, 0, sizeof(*p));
    int rc = region_check_row(r, m->row, m->row_len);
    if (rc != ST_OK)
        return rc;
    if (m->ncells == 0)
        return st_error(ST_INVALID_ARGUMENT, "region %s: mutation without cells",
                        r->info.encoded_name);
    p->cells = malloc(m->ncells * sizeof(*p->cells));
    if (!p->cells)
        return ST_NOMEM;
    for (size_t i = 0; i < m->ncells && rc == ST_OK; i++) {
        cell_t c = m->cells[i];
        c.row = m->row;
        c.row_len = (uint32_t)m->row_len;
        c.seq = 0;
        if (!region_find_store(r, c.family, c.family_len)) {
            rc = st_error(ST_UNKNOWN_FAMILY, "region %s of %s: unknown column family '%.*s'",
                          r->info.encoded_name, r->info.table, (int)c.family_len,
                          (const char *)c.family);
            break;
        }
        if ((rc = cell_validate(&c)) != ST_OK)
            break;
        if (c.type != CELL_TYPE_PUT)
            c.value_len = 0;
        /* Family-wide markers live in the empty qualifier, where scanners look for them. */
        if (c.type == CELL_TYPE_DELETE_FAMILY || c.type == CELL_TYPE_DELETE_FAMILY_VERSION)
            c.qualifier_len = 0;
        if (c.ts == CELL_LATEST_TIMESTAMP) {
            if (c.type == CELL_TYPE_DELETE)
                p->needs_latest = true; /* settled under the row lock */
            else
                c.ts = now_ms;
        } else if (c.ts < 0) {
            rc = st_error(ST_INVALID_ARGUMENT, "region %s: negative timestamp %" PRId64,
                          r->info.encoded_name, c.ts);
        }
        p->cells[p->ncells++] = c;
    }
    if (rc != ST_OK) {
        free(p->cells);
        memset(p, 0, sizeof(*p));
    }
    return rc;
}

/* Applies prepared mutations as one transaction (one sequence id, one WAL record).
 * The rows' locks are held by the caller. */
static int apply_prepared(region *r, prepared *ps, size_t n, durability d)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += ps[i].ncells;
    if (total == 0)
        return ST_OK;
    cell_t *all = malloc(total * sizeof(*all));
    if (!all)
        return ST_NOMEM;
    pthread_rwlock_rdlock(&r->update_lock);
    uint64_t seq = mvcc_begin(r->mvcc);
    if (seq == 0) {
        pthread_rwlock_unlock(&r->update_lock);
        free(all);
        return st_error(ST_NOMEM, "region %s: out of memory starting a write",
                        r->info.encoded_name);
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < ps[i].ncells; j++) {
            all[k] = ps[i].cells[j];
            all[k++].seq = seq;
        }
    int rc = ST_OK;
    if (d != DURABILITY_SKIP_WAL) {
        wal_edit e = {r->info.table, r->info.encoded_name, seq, all, total};
        rc = wal_append(engine_wal(r->eng), &e, d);
    }
    size_t charge = 0;
    /* Backwards, so a later cell with the same key as an earlier one wins. A failure
     * here (out of memory) after the WAL append leaves the outcome unknown to the
     * caller, as a timeout would: replay applies the whole edit. */
    for (size_t i = total; rc == ST_OK && i-- > 0;) {
        store *s = region_find_store(r, all[i].family, all[i].family_len);
        rc = store_add(s, &all[i]);
        charge += store_cell_charge(&all[i]);
    }
    pthread_rwlock_unlock(&r->update_lock);
    if (rc != ST_OK)
        LOG_ERROR("region %s: write at seq %" PRIu64 " failed: %s (%s)", r->info.encoded_name,
                  seq, st_strerror(rc), st_errmsg());
    mvcc_complete_and_wait(r->mvcc, seq);
    atomic_fetch_add(&r->memstore_bytes, charge);
    engine_memstore_add(r->eng, (int64_t)charge);
    free(all);
    return rc;
}

static durability effective_durability(const region *r, durability d)
{
    return d == DURABILITY_USE_DEFAULT ? r->schema.durability : d;
}

int region_apply_locked(region *r, const mutation *m, int64_t now_ms)
{
    prepared p;
    int rc = prepare_mutation(r, m, now_ms, &p);
    if (rc == ST_OK)
        rc = resolve_latest_deletes(r, m->row, m->row_len, &p, now_ms);
    if (rc == ST_OK)
        rc = apply_prepared(r, &p, 1, effective_durability(r, m->durability));
    free(p.cells);
    if (rc == ST_OK)
        atomic_fetch_add(&r->write_requests, 1);
    return rc;
}

int region_admit_write(region *r)
{
    pthread_mutex_lock(&r->maint_mu);
    bool closing = r->closing;
    pthread_mutex_unlock(&r->maint_mu);
    if (closing)
        return st_error(ST_NOT_SERVING, "region %s is closing", r->info.encoded_name);
    int rc = engine_memstore_admit(r->eng);
    if (rc == ST_OK)
        rc = region_wait_store_files(r);
    return rc;
}

static int cmp_lock_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (pthread_mutex_t *const *)a;
    uintptr_t y = (uintptr_t) * (pthread_mutex_t *const *)b;
    return x < y ? -1 : x > y;
}

/* Applies the prepared mutations ms[i]/ps[i] of one group (rows distinct) whose
 * results[i] are still ST_OK, as one transaction under their row locks. */
static void apply_group(region *r, const mutation *ms, prepared *ps, size_t n, int *results,
                        int64_t now_ms)
{
    pthread_mutex_t **locks = malloc((n ? n : 1) * sizeof(*locks));
    prepared *live = malloc((n ? n : 1) * sizeof(*live));
    int rc = locks && live ? ST_OK : ST_NOMEM;
    durability d = DURABILITY_SKIP_WAL;
    size_t nl = 0, held = 0, nlive = 0;
    for (size_t i = 0; i < n && rc == ST_OK; i++) {
        if (results[i] != ST_OK)
            continue;
        durability di = effective_durability(r, ms[i].durability);
        d = di > d ? di : d;
        locks[nl++] = region_row_lock_for(r, ms[i].row, ms[i].row_len);
    }
    if (rc == ST_OK)
        qsort(locks, nl, sizeof(*locks), cmp_lock_ptr);
    for (size_t i = 0; i < nl && rc == ST_OK; i++) {
        if (held && locks[held - 1] == locks[i])
            continue;
        rc = lock_with_timeout(r, locks[i]);
        if (rc == ST_OK)
            locks[held++] = locks[i];
    }
    for (size_t i = 0; i < n && rc == ST_OK; i++) {
        if (results[i] != ST_OK)
            continue;
        results[i] = resolve_latest_deletes(r, ms[i].row, ms[i].row_len, &ps[i], now_ms);
        if (results[i] == ST_OK)
            live[nlive++] = ps[i];
    }
    if (rc == ST_OK)
        rc = apply_prepared(r, live, nlive, d);
    for (size_t i = 0; i < held; i++)
        pthread_mutex_unlock(locks[i]);
    free(locks);
    free(live);
    size_t done = 0;
    for (size_t i = 0; i < n; i++)
        if (results[i] == ST_OK) {
            results[i] = rc;
            done++;
        }
    if (rc == ST_OK)
        atomic_fetch_add(&r->write_requests, done);
}

/* A set of row hashes, to cut a batch into groups without a repeated row. Entries
 * belong to the current group when their generation matches; a new group just bumps
 * the generation. A hash collision only starts a new group early. */
typedef struct row_set {
    uint64_t *hashes;
    uint32_t *gens;
    size_t mask;
    uint32_t gen;
} row_set;

static uint64_t row_set_hash(const uint8_t *row, size_t len)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a, 64-bit */
    for (size_t i = 0; i < len; i++) {
        h ^= row[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* Inserts the row; returns false if the current group already holds it. */
static bool row_set_add(row_set *s, const uint8_t *row, size_t len)
{
    uint64_t h = row_set_hash(row, len);
    for (size_t i = h & s->mask;; i = (i + 1) & s->mask) {
        if (s->gens[i] != s->gen) {
            s->gens[i] = s->gen;
            s->hashes[i] = h;
            return true;
        }
        if (s->hashes[i] == h)
            return false;
    }
}

int region_batch_mutate(region *r, const mutation *ms, size_t n, int *results)
{
    int rc = region_admit_write(r);
    if (rc != ST_OK) {
        for (size_t i = 0; i < n; i++)
            results[i] = rc;
        return rc;
    }
    size_t cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    row_set seen = {calloc(cap, sizeof(uint64_t)), calloc(cap, sizeof(uint32_t)), cap - 1, 1};
    prepared *ps = calloc(n ? n : 1, sizeof(*ps));
    if (!ps || !seen.hashes || !seen.gens) {
        free(ps);
        free(seen.hashes);
        free(seen.gens);
        for (size_t i = 0; i < n; i++)
            results[i] = ST_NOMEM;
        return ST_NOMEM;
    }
    int64_t now = clock_now_ms();
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        /* A repeated row starts a new group, so each row's mutations apply in order
         * with their own sequence ids. */
        if (!row_set_add(&seen, ms[i].row, ms[i].row_len)) {
            apply_group(r, ms + from, ps + from, i - from, results + from, now);
            seen.gen++;
            row_set_add(&seen, ms[i].row, ms[i].row_len);
            from = i;
        }
        results[i] = prepare_mutation(r, &ms[i], now, &ps[i]);
    }
    apply_group(r, ms + from, ps + from, n - from, results + from, now);
    int first = ST_OK;
    for (size_t i = 0; i < n; i++) {
        free(ps[i].cells);
        if (first == ST_OK && results[i] != ST_OK)
            first = results[i];
    }
    free(ps);
    free(seen.hashes);
    free(seen.gens);
    region_maybe_request_flush(r);
    return first;
}

int region_mutate(region *r, const mutation *m)
{
    int result = ST_OK;
    region_batch_mutate(r, m, 1, &result);
    return result;
}

/* ---------------------------------------------------------------- read path */

static bool family_wanted(const scan_spec *spec, const family_schema *f)
{
    if (!spec || spec->ncolumns == 0)
        return true;
    size_t len = strlen(f->name);
    for (size_t i = 0; i < spec->ncolumns; i++)
        if (spec->columns[i].family_len == len && memcmp(spec->columns[i].family, f->name, len) == 0)
            return true;
    return false;
}

/* Builds the merged input for a read: memstores at the read point and the store files
 * that may hold what the read wants. */
static int build_input(region *r, const scan_spec *spec, const store_read_hint *hint,
                       kv_iter **out)
{
    *out = NULL;
    uint64_t rp = mvcc_read_point(r->mvcc);
    kv_iter **iters = NULL;
    size_t n = 0, cap = 0;
    int rc = ST_OK;
    for (;;) {
        uint64_t gen = atomic_load(&r->flush_gen);
        if (gen & 1) {
            sched_yield(); /* a flush is swapping snapshots for files */
            continue;
        }
        for (size_t i = 0; i < r->schema.nfamilies && rc == ST_OK; i++)
            if (family_wanted(spec, &r->schema.families[i]))
                rc = store_collect_iters(r->stores[i], rp, hint, &iters, &n, &cap);
        if (rc != ST_OK || atomic_load(&r->flush_gen) == gen)
            break;
        for (size_t i = 0; i < n; i++)
            kv_iter_destroy(iters[i]);
        n = 0;
    }
    if (rc == ST_OK) {
        *out = merge_iter_new(iters, n);
        if (!*out)
            rc = ST_NOMEM;
    }
    if (rc != ST_OK)
        for (size_t i = 0; i < n; i++)
            kv_iter_destroy(iters[i]);
    free(iters);
    return rc;
}

int region_read_row(region *r, const uint8_t *row, size_t row_len, const scan_spec *spec,
                    scan_result *out)
{
    scan_result_clear(out);
    scan_spec s = {0};
    if (spec)
        s = *spec;
    uint8_t stop_small[256];
    uint8_t *stop = row_len < sizeof(stop_small) ? stop_small : malloc(row_len + 1);
    if (!stop)
        return ST_NOMEM;
    memcpy(stop, row, row_len);
    stop[row_len] = 0;
    s.start_row = row;
    s.start_row_len = row_len;
    s.stop_row = stop;
    s.stop_row_len = row_len + 1;
    s.reversed = false;
    s.limit = 1;
    s.batch = 0;
    s.mode = SCAN_MODE_USER;

    store_read_hint hint = {row, row_len, NULL, 0, s.min_ts, s.max_ts, true};
    if (s.ncolumns == 1 && s.columns[0].qualifier) {
        hint.qualifier = s.columns[0].qualifier;
        hint.qualifier_len = s.columns[0].qualifier_len;
    }
    kv_iter *input = NULL;
    scanner *sc = NULL;
    int rc = build_input(r, &s, &hint, &input);
    if (rc == ST_OK)
        rc = scanner_new(input, r->schema.families, r->schema.nfamilies, &s, clock_now_ms(), &sc);
    if (rc == ST_OK) {
        int got = scanner_next(sc, out);
        rc = got < 0 ? got : ST_OK;
        /* A batch-less get returns the whole row in one result. */
    }
    scanner_free(sc);
    if (stop != stop_small)
        free(stop);
    return rc;
}

int region_get(region *r, const uint8_t *row, size_t row_len, const scan_spec *spec,
               scan_result *out)
{
    int rc = region_check_row(r, row, row_len);
    if (rc != ST_OK)
        return rc;
    atomic_fetch_add(&r->read_requests, 1);
    return region_read_row(r, row, row_len, spec, out);
}

struct region_scanner {
    region *r;
    scanner *sc;
};

/* Clamps a forward scan's bounds to the region's [start_key, end_key). Rows outside
 * the range are never stored in the region (writes to them are refused), so the clamp
 * only saves seeks; a reversed scan needs none. */
static void clamp_spec(region *r, const scan_spec *in, scan_spec *s)
{
    *s = *in;
    const region_info *i = &r->info;
    if (s->reversed)
        return;
    if (i->start_key_len &&
        cell_compare_rows(s->start_row, s->start_row_len, i->start_key, i->start_key_len) < 0) {
        s->start_row = i->start_key;
        s->start_row_len = i->start_key_len;
    }
    if (i->end_key_len &&
        (s->stop_row_len == 0 ||
         cell_compare_rows(s->stop_row, s->stop_row_len, i->end_key, i->end_key_len) > 0)) {
        s->stop_row = i->end_key;
        s->stop_row_len = i->end_key_len;
    }
}

int region_scanner_open(region *r, const scan_spec *spec, region_scanner **out)
{
    *out = NULL;
    region_scanner *rs = calloc(1, sizeof(*rs));
    if (!rs)
        return ST_NOMEM;
    rs->r = r;
    scan_spec s;
    scan_spec dflt = {0};
    clamp_spec(r, spec ? spec : &dflt, &s);
    int rc = ST_OK;
    store_read_hint hint = {NULL, 0, NULL, 0, s.min_ts, s.max_ts, true};
    kv_iter *input = NULL;
    if (rc == ST_OK)
        rc = build_input(r, &s, &hint, &input);
    if (rc == ST_OK)
        rc = scanner_new(input, r->schema.families, r->schema.nfamilies, &s, clock_now_ms(),
                         &rs->sc);
    if (rc != ST_OK) {
        region_scanner_close(rs);
        return rc;
    }
    *out = rs;
    return ST_OK;
}

int region_scanner_next(region_scanner *s, scan_result *out)
{
    int rc = scanner_next(s->sc, out);
    if (rc == 1)
        atomic_fetch_add(&s->r->read_requests, 1);
    return rc;
}

void region_scanner_close(region_scanner *s)
{
    if (!s)
        return;
    scanner_free(s->sc);
    free(s);
}

void region_get_stats(region *r, region_stats *out)
{
    memset(out, 0, sizeof(*out));
    out->read_requests = atomic_load(&r->read_requests);
    out->write_requests = atomic_load(&r->write_requests);
    out->flushes = atomic_load(&r->flushes);
    out->compactions = atomic_load(&r->compactions);
    out->max_flushed_seq = atomic_load(&r->max_flushed_seq);
    for (size_t i = 0; i < r->schema.nfamilies; i++) {
        out->memstore_size += store_memstore_size(r->stores[i]);
        out->store_files += store_file_count(r->stores[i]);
        out->store_file_size += store_file_bytes(r->stores[i]);
    }
}
