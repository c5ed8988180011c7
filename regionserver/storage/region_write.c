/*
 * region_write.c - a region's write path: mutations prepared (server timestamps, latest
 * deletes resolved), row locks taken in address order, one WAL append per group (group
 * commit) that assigns the sequence ids, then the memstores, then MVCC completes and the
 * rows become visible (HBase's order; docs/formats/wal.md).
 *
 * Thread-safety and lock order: see region_internal.h. Writes hold their rows' striped
 * locks, then the update lock for reading while they append to the WAL and the memstores.
 */
#include "regionserver/storage/region_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/status.h"

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
    if (r->schema.read_only) /* the default namespace's tables by their names, as HBase */
        return st_error(ST_PERMISSION, "table %s is read-only (READONLY => true): region %s "
                                       "refuses writes",
                        strncmp(r->schema.name, "default:", 8) == 0 ? r->schema.name + 8
                                                                    : r->schema.name,
                        r->info.encoded_name);
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
        rc = region_lock_timed(r, locks[i]);
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
