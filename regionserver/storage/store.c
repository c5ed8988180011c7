/*
 * store.c - one column family of a region: memstores, store files, flush and
 * compaction of that family (see store.h).
 *
 * References (docs/formats/reference.md): a file name "<file>.<parent>" is opened with
 * storefile_open_reference. While any is held the store needs compaction, and its
 * compactions take every file as a major one, whose output is a real file; the
 * references are then unlinked like any input (their paths are their own).
 *
 * Thread-safety: `mu` guards active, snapshot, files and compacting; byte counters are
 * atomics. The mutex is never held across file I/O.
 */
#include "regionserver/storage/store.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/fileio.h"
#include "common/log.h"
#include "common/status.h"
#include "regionserver/storage/memstore.h"
#include "regionserver/storage/reference.h"
#include "regionserver/storage/scanner.h"
#include "regionserver/storage/storefile.h"

/* Bytes charged per memstore cell beyond its encoding (skiplist node and links). */
#define STORE_CELL_OVERHEAD 48

struct store {
    family_schema fam;
    char *dir;
    blockcache *cache;
    pthread_mutex_t mu;
    memstore *active;
    memstore *snapshot;
    uint64_t memstore_flushsize; /* sizes each new memstore's row bloom */
    uint64_t snapshot_seq;
    storefile **files; /* oldest first */
    size_t nfiles;
    size_t files_cap;
    bool compacting;
    bool compacting_major; /* the running compaction is a major one */
    _Atomic uint64_t active_bytes;
    _Atomic uint64_t snapshot_bytes;
    _Atomic uint64_t max_flushed_seq;
};

static _Atomic uint32_t store_file_counter;

static int make_file_path(const store *s, char **out)
{
    uint32_t n = atomic_fetch_add(&store_file_counter, 1);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
    if (asprintf(out, "%s/%016" PRIx64 "%08" PRIx32, s->dir, ns, n) < 0) {
        *out = NULL;
        return ST_NOMEM;
    }
    return ST_OK;
}

static int files_reserve(store *s, size_t extra)
{
    if (s->nfiles + extra <= s->files_cap)
        return ST_OK;
    size_t cap = s->files_cap ? s->files_cap * 2 : 8;
    while (cap < s->nfiles + extra)
        cap *= 2;
    storefile **f = realloc(s->files, cap * sizeof(*f));
    if (!f)
        return ST_NOMEM;
    s->files = f;
    s->files_cap = cap;
    return ST_OK;
}

static int cmp_file_age(const void *a, const void *b)
{
    const storefile_info *x = storefile_get_info(*(storefile *const *)a);
    const storefile_info *y = storefile_get_info(*(storefile *const *)b);
    return x->max_seq < y->max_seq ? -1 : x->max_seq > y->max_seq ? 1 : 0;
}

/* How the store's files use the block cache: the family's BLOCKCACHE and IN_MEMORY. */
static storefile_open_options open_options(const store *s)
{
    return (storefile_open_options){.cache = s->cache,
                                    .no_data_cache = !s->fam.block_cache,
                                    .in_memory = s->fam.in_memory};
}

static bool is_tmp_name(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, ".tmp") == 0;
}

static int load_files(store *s)
{
    char **names = NULL;
    size_t count = 0;
    int rc = fio_list_dir(s->dir, &names, &count);
    if (rc != ST_OK)
        return rc;
    for (size_t i = 0; i < count && rc == ST_OK; i++) {
        char *path = NULL;
        if (asprintf(&path, "%s/%s", s->dir, names[i]) < 0) {
            rc = ST_NOMEM;
            break;
        }
        if (is_tmp_name(names[i])) {
            LOG_INFO("store %s: removing unfinished file %s", s->dir, path);
            rc = fio_unlink(path);
        } else {
            storefile *f = NULL;
            storefile_open_options oo = open_options(s);
            if (reference_is_name(names[i]))
                rc = storefile_open_reference_with(path, &oo, &f);
            else
                rc = storefile_open_with(path, &oo, &f);
            if (rc == ST_OK && (rc = files_reserve(s, 1)) == ST_OK)
                s->files[s->nfiles++] = f;
            else if (f)
                storefile_unref(f);
        }
        free(path);
    }
    fio_free_list(names, count);
    if (rc != ST_OK)
        return rc;
    if (s->nfiles > 1)
        qsort(s->files, s->nfiles, sizeof(*s->files), cmp_file_age);
    uint64_t max = 0;
    for (size_t i = 0; i < s->nfiles; i++) {
        uint64_t m = storefile_get_info(s->files[i])->max_seq;
        if (m > max)
            max = m;
    }
    atomic_store(&s->max_flushed_seq, max);
    return ST_OK;
}

int store_open(const char *dir, const family_schema *fam, blockcache *cache,
               uint64_t memstore_flushsize, store **out)
{
    *out = NULL;
    store *s = calloc(1, sizeof(*s));
    if (!s)
        return ST_NOMEM;
    s->fam = *fam;
    s->cache = cache;
    s->memstore_flushsize = memstore_flushsize;
    pthread_mutex_init(&s->mu, NULL);
    int rc = ST_NOMEM;
    s->dir = strdup(dir);
    s->active = memstore_new_sized(memstore_flushsize);
    if (!s->dir || !s->active)
        goto fail;
    rc = fio_mkdirs(dir);
    if (rc == ST_OK)
        rc = load_files(s);
    if (rc != ST_OK)
        goto fail;
    *out = s;
    return ST_OK;
fail:
    store_free(s);
    return rc;
}

void store_free(store *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nfiles; i++)
        storefile_unref(s->files[i]);
    free(s->files);
    if (s->active)
        memstore_unref(s->active);
    if (s->snapshot)
        memstore_unref(s->snapshot);
    pthread_mutex_destroy(&s->mu);
    free(s->dir);
    free(s);
}

const family_schema *store_family(const store *s)
{
    return &s->fam;
}

uint64_t store_max_flushed_seq(store *s)
{
    return atomic_load(&s->max_flushed_seq);
}

size_t store_cell_charge(const cell_t *c)
{
    return cell_encoded_len(c) + STORE_CELL_OVERHEAD;
}

int store_add(store *s, const cell_t *c)
{
    /* The active pointer only changes under the region's update write lock, which
     * excludes writers, so reading it here without the mutex is safe. */
    int rc = memstore_add(s->active, c);
    if (rc == ST_OK)
        atomic_fetch_add(&s->active_bytes, store_cell_charge(c));
    return rc;
}

size_t store_memstore_size(store *s)
{
    return (size_t)(atomic_load(&s->active_bytes) + atomic_load(&s->snapshot_bytes));
}

size_t store_file_count(store *s)
{
    pthread_mutex_lock(&s->mu);
    size_t n = s->nfiles;
    pthread_mutex_unlock(&s->mu);
    return n;
}

uint64_t store_file_bytes(store *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t total = 0;
    for (size_t i = 0; i < s->nfiles; i++)
        total += storefile_get_info(s->files[i])->file_size;
    pthread_mutex_unlock(&s->mu);
    return total;
}

static int push_source(read_source **srcs, size_t *n, size_t *cap, kv_iter *it, int64_t max_ts)
{
    if (!it)
        return ST_NOMEM;
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 8;
        read_source *p = realloc(*srcs, c * sizeof(*p));
        if (!p) {
            kv_iter_destroy(it);
            return ST_NOMEM;
        }
        *srcs = p;
        *cap = c;
    }
    (*srcs)[(*n)++] = (read_source){it, max_ts};
    return ST_OK;
}

static bool file_passes(const store *s, const storefile *f, const store_read_hint *h)
{
    const storefile_info *info = storefile_get_info(f);
    if (info->entries == 0)
        return false;
    if (!h)
        return true;
    bool all_time = h->min_ts == 0 && h->max_ts == 0;
    int64_t max_ts = h->max_ts == 0 ? INT64_MAX : h->max_ts; /* 0: no upper bound */
    /* Cells all older than the range: their delete markers can only mask cells that
     * are older still, so the file cannot change the answer. */
    if (!all_time && info->max_ts < h->min_ts)
        return false;
    /* Cells all newer than the range matter only through delete markers. */
    if (!all_time && info->min_ts >= max_ts && info->delete_count == 0)
        return false;
    if (h->row) {
        if (h->qualifier) {
            /* Family-wide delete markers sit under the empty qualifier. */
            const uint8_t *fam = (const uint8_t *)s->fam.name;
            size_t fam_len = strlen(s->fam.name);
            return storefile_may_contain_column(f, h->row, h->row_len, fam, fam_len,
                                                h->qualifier, h->qualifier_len) ||
                   storefile_may_contain_column(f, h->row, h->row_len, fam, fam_len,
                                                (const uint8_t *)"", 0);
        }
        return storefile_may_contain_row(f, h->row, h->row_len);
    }
    return true;
}

static unsigned iter_flags(const store_read_hint *h)
{
    unsigned flags = !h || h->fill_cache ? SF_ITER_FILL_CACHE : 0;
    if (h && h->cached_only)
        flags |= SF_ITER_CACHED_ONLY;
    return flags;
}

int store_collect_iters(store *s, uint64_t read_point, const store_read_hint *hint,
                        read_source **srcs, size_t *n, size_t *cap)
{
    /* Take references under the mutex, build iterators outside it. */
    storefile *stack_files[16];
    pthread_mutex_lock(&s->mu);
    memstore *mems[2] = {s->active, s->snapshot};
    for (int i = 0; i < 2; i++)
        if (mems[i])
            memstore_ref(mems[i]);
    size_t nf = s->nfiles;
    storefile **files = nf <= 16 ? stack_files : malloc(nf * sizeof(*files));
    if (files)
        for (size_t i = 0; i < nf; i++) {
            files[i] = s->files[i];
            storefile_ref(files[i]);
        }
    pthread_mutex_unlock(&s->mu);

    int rc = (nf && !files) ? ST_NOMEM : ST_OK;
    for (int i = 0; i < 2; i++) {
        if (!mems[i])
            continue;
        /* A Get of a row the memstore's row bloom never saw cannot find anything there. */
        bool wanted = !hint || !hint->row ||
                      memstore_may_contain_row(mems[i], hint->row, hint->row_len);
        if (rc == ST_OK && memstore_count(mems[i]) > 0 && wanted)
            rc = push_source(srcs, n, cap, memstore_iter(mems[i], read_point),
                             memstore_max_ts(mems[i]));
        memstore_unref(mems[i]);
    }
    for (size_t i = 0; files && i < nf; i++) {
        if (rc == ST_OK && file_passes(s, files[i], hint))
            rc = push_source(srcs, n, cap, storefile_iter_flags(files[i], iter_flags(hint)),
                             storefile_get_info(files[i])->max_ts);
        storefile_unref(files[i]);
    }
    if (files != stack_files)
        free(files);
    return rc;
}

bool store_has_snapshot(store *s)
{
    pthread_mutex_lock(&s->mu);
    bool have = s->snapshot != NULL;
    pthread_mutex_unlock(&s->mu);
    return have;
}

int store_snapshot(store *s, uint64_t flush_seq, bool *took)
{
    *took = false;
    int rc = ST_OK;
    pthread_mutex_lock(&s->mu);
    if (!s->snapshot && memstore_count(s->active) > 0) {
        memstore *fresh = memstore_new_sized(s->memstore_flushsize);
        if (fresh) {
            s->snapshot = s->active;
            s->snapshot_seq = flush_seq;
            s->active = fresh;
            atomic_store(&s->snapshot_bytes, atomic_exchange(&s->active_bytes, 0));
            *took = true;
        } else {
            rc = st_error(ST_NOMEM, "store %s: out of memory starting a flush", s->dir);
        }
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

/* The data block form of a DATA_BLOCK_ENCODING: HBase's encodings mapped to the nearest
 * Strata block type (docs/formats/storefile.md, "Which version a writer writes"). NONE
 * and ROW_INDEX_V1 write whole cells with an offset per cell (binary searchable, as
 * ROW_INDEX_V1's row index makes HBase's blocks); PREFIX, DIFF and FAST_DIFF write keys
 * sharing their prefix with the previous key, with restart points. */
static storefile_block_type block_type_of(block_encoding e)
{
    return e == BLOCK_ENCODING_NONE || e == BLOCK_ENCODING_ROW_INDEX_V1 ? STOREFILE_BLOCKS_PLAIN
                                                                         : STOREFILE_BLOCKS_PREFIX;
}

/* The family's settings for the files a flush or compaction writes; the format version
 * follows from them under the process-wide cap (storefile_set_max_version). */
static storefile_options file_options(const store *s)
{
    storefile_options o = {0};
    o.block_size = s->fam.block_size;
    o.compression = s->fam.compression;
    o.bloom = s->fam.bloom;
    o.block_type = block_type_of(s->fam.encoding);
    return o;
}

/* Writes every cell of iterator `it` (positioned by the caller) through `sc` or
 * directly into a new file; on success *out is the opened file. */
static int write_file(store *s, kv_iter *it, scanner *sc, uint64_t max_seq, bool major,
                      storefile **out)
{
    *out = NULL;
    char *path = NULL;
    storefile_writer *w = NULL;
    storefile_options o = file_options(s);
    int rc = make_file_path(s, &path);
    if (rc == ST_OK)
        rc = storefile_writer_open(path, &o, &w);
    if (rc != ST_OK)
        goto done;
    if (sc) {
        /* The same cell (same key and sequence id) can sit in two inputs when a crash
         * came between a compaction's rename and the removal of its inputs: keep one. */
        cell_t c;
        buf_t prev = {0};
        int r;
        while ((r = scanner_next_cell(sc, &c)) == 1) {
            cell_t p;
            size_t used;
            if (prev.len && cell_decode(prev.data, prev.len, &p, &used) == ST_OK &&
                cell_compare(&p, &c) == 0)
                continue;
            if ((rc = storefile_writer_add(w, &c)) != ST_OK)
                break;
            if ((rc = buf_reserve(&prev, cell_encoded_len(&c))) != ST_OK)
                break;
            prev.len = cell_encode(&c, prev.data);
        }
        buf_free(&prev);
        if (r < 0 && rc == ST_OK)
            rc = r;
    } else {
        for (kv_iter_seek_to_first(it); kv_iter_valid(it); kv_iter_next(it))
            if ((rc = storefile_writer_add(w, kv_iter_cell(it))) != ST_OK)
                break;
        if (rc == ST_OK)
            rc = kv_iter_status(it);
    }
    if (rc != ST_OK) {
        storefile_writer_abort(w);
        goto done;
    }
    rc = storefile_writer_finish(w, max_seq, major);
    if (rc == ST_OK) {
        storefile_open_options oo = open_options(s);
        rc = storefile_open_with(path, &oo, out);
    }
done:
    free(path);
    return rc;
}

int store_flush_snapshot(store *s, size_t *flushed_bytes)
{
    *flushed_bytes = 0;
    pthread_mutex_lock(&s->mu);
    memstore *snap = s->snapshot;
    uint64_t flush_seq = s->snapshot_seq;
    if (snap)
        memstore_ref(snap);
    pthread_mutex_unlock(&s->mu);
    if (!snap)
        return ST_OK;

    storefile *f = NULL;
    kv_iter *it = memstore_iter(snap, UINT64_MAX);
    int rc = it ? write_file(s, it, NULL, flush_seq, false, &f) : ST_NOMEM;
    kv_iter_destroy(it);
    if (rc != ST_OK) {
        LOG_ERROR("store %s: flush failed: %s (%s); the snapshot is kept for a retry", s->dir,
                  st_strerror(rc), st_errmsg());
        memstore_unref(snap);
        return rc;
    }

    pthread_mutex_lock(&s->mu);
    rc = files_reserve(s, 1);
    if (rc == ST_OK) {
        s->files[s->nfiles++] = f;
        s->snapshot = NULL;
        *flushed_bytes = (size_t)atomic_exchange(&s->snapshot_bytes, 0);
        if (flush_seq > atomic_load(&s->max_flushed_seq))
            atomic_store(&s->max_flushed_seq, flush_seq);
    }
    pthread_mutex_unlock(&s->mu);
    if (rc == ST_OK) {
        memstore_unref(snap); /* the store's reference */
        LOG_DEBUG("store %s: flushed %s (%" PRIu64 " cells, seq %" PRIu64 ")", s->dir,
                  storefile_path(f), storefile_get_info(f)->entries, flush_seq);
    } else {
        storefile_mark_deleted(f);
        storefile_unref(f);
    }
    memstore_unref(snap);
    return rc;
}

static compaction_policy policy_for(const compaction_policy *p)
{
    compaction_policy q = *p;
    if (q.max_size == 0)
        q.max_size = UINT64_MAX;
    return q;
}

/* Under the mutex. */
static bool has_references_locked(const store *s)
{
    for (size_t i = 0; i < s->nfiles; i++)
        if (storefile_is_reference(s->files[i]))
            return true;
    return false;
}

/* Chooses input files under the mutex; sets compacting. Returns the count (0: none).
 * A store holding references takes every file as a major compaction (*major set). */
static size_t select_inputs(store *s, const compaction_policy *p, bool *major, storefile ***out)
{
    *out = NULL;
    size_t start = 0, count = 0;
    pthread_mutex_lock(&s->mu);
    if (!s->compacting && s->nfiles > 0) {
        if (!*major && has_references_locked(s))
            *major = true;
        if (*major) {
            count = s->nfiles;
        } else {
            uint64_t *sizes = malloc(s->nfiles * sizeof(*sizes));
            compaction_policy q = policy_for(p);
            if (sizes) {
                for (size_t i = 0; i < s->nfiles; i++)
                    sizes[i] = storefile_get_info(s->files[i])->file_size;
                if (!compaction_select(&q, sizes, s->nfiles, &start, &count))
                    count = 0;
                free(sizes);
            }
        }
    }
    storefile **in = count ? malloc(count * sizeof(*in)) : NULL;
    if (in) {
        for (size_t i = 0; i < count; i++) {
            in[i] = s->files[start + i];
            storefile_ref(in[i]);
        }
        s->compacting = true;
        s->compacting_major = *major;
    } else {
        count = 0;
    }
    pthread_mutex_unlock(&s->mu);
    *out = in;
    return count;
}

/* Replaces the inputs by out (NULL if everything was dropped) under the mutex; the
 * compaction stays marked running until its inputs are unlinked (end_compaction). */
static void install_compaction(store *s, storefile **in, size_t n, storefile *out)
{
    pthread_mutex_lock(&s->mu);
    size_t w = 0;
    for (size_t i = 0; i < s->nfiles; i++) {
        bool input = false;
        for (size_t j = 0; j < n && !input; j++)
            input = s->files[i] == in[j];
        if (input)
            storefile_unref(s->files[i]); /* the store's reference */
        else
            s->files[w++] = s->files[i];
    }
    s->nfiles = w;
    if (out)
        s->files[s->nfiles++] = out; /* fits: at least one input left */
    if (s->nfiles > 1)
        qsort(s->files, s->nfiles, sizeof(*s->files), cmp_file_age);
    pthread_mutex_unlock(&s->mu);
}

static void end_compaction(store *s)
{
    pthread_mutex_lock(&s->mu);
    s->compacting = false;
    pthread_mutex_unlock(&s->mu);
}

static int run_compaction(store *s, storefile **in, size_t n, bool major, int64_t now_ms,
                          storefile **out)
{
    *out = NULL;
    kv_iter **children = calloc(n, sizeof(*children));
    if (!children)
        return ST_NOMEM;
    uint64_t max_seq = 0;
    int rc = ST_OK;
    for (size_t i = 0; i < n; i++) {
        children[i] = storefile_iter(in[i], false);
        if (!children[i])
            rc = ST_NOMEM;
        uint64_t m = storefile_get_info(in[i])->max_seq;
        max_seq = m > max_seq ? m : max_seq;
    }
    kv_iter *merged = NULL;
    if (rc == ST_OK)
        merged = merge_iter_new(children, n);
    if (!merged) {
        for (size_t i = 0; i < n; i++)
            kv_iter_destroy(children[i]);
        free(children);
        return rc != ST_OK ? rc : ST_NOMEM;
    }
    free(children);
    scan_spec spec = {0};
    spec.mode = major ? SCAN_MODE_COMPACT_MAJOR : SCAN_MODE_COMPACT_MINOR;
    spec.max_versions = INT32_MAX;
    scanner *sc = NULL;
    rc = scanner_new(merged, &s->fam, 1, &spec, now_ms, &sc);
    if (rc != ST_OK)
        return rc;
    rc = write_file(s, NULL, sc, max_seq, major, out);
    scanner_free(sc);
    return rc;
}

int store_compact(store *s, const compaction_policy *p, bool major, int64_t now_ms, bool *did)
{
    *did = false;
    storefile **in = NULL;
    size_t n = select_inputs(s, p, &major, &in);
    if (n == 0)
        return ST_OK;
    if (n == 1 && !major) {
        end_compaction(s);
        storefile_unref(in[0]);
        free(in);
        return ST_OK;
    }
    storefile *out = NULL;
    int rc = run_compaction(s, in, n, major, now_ms, &out);
    if (rc == ST_OK) {
        /* An output with no cells is kept: it carries the store's max sequence id, so
         * edits it covers are not replayed from the WAL after a restart. */
        install_compaction(s, in, n, out);
        /* Unlink the inputs now: open readers keep their descriptors, and the sooner
         * the names are gone the smaller the window in which a crash leaves both. */
        for (size_t i = 0; i < n; i++)
            if (fio_unlink(storefile_path(in[i])) != ST_OK)
                storefile_mark_deleted(in[i]);
        /* Only now: whoever waits for the compaction (a requested one, the janitor's
         * question after it) finds the inputs' names gone. */
        end_compaction(s);
        *did = true;
        LOG_DEBUG("store %s: %s compaction of %zu files done", s->dir, major ? "major" : "minor",
                  n);
    } else {
        LOG_ERROR("store %s: compaction of %zu files failed: %s (%s)", s->dir, n,
                  st_strerror(rc), st_errmsg());
        end_compaction(s);
    }
    for (size_t i = 0; i < n; i++)
        storefile_unref(in[i]);
    free(in);
    return rc;
}

bool store_compacting(store *s)
{
    pthread_mutex_lock(&s->mu);
    bool busy = s->compacting;
    pthread_mutex_unlock(&s->mu);
    return busy;
}

store_compaction store_compaction_state(store *s)
{
    pthread_mutex_lock(&s->mu);
    store_compaction c = !s->compacting         ? STORE_COMPACTION_NONE
                         : s->compacting_major ? STORE_COMPACTION_MAJOR
                                               : STORE_COMPACTION_MINOR;
    pthread_mutex_unlock(&s->mu);
    return c;
}

bool store_needs_compaction(store *s, const compaction_policy *p)
{
    pthread_mutex_lock(&s->mu);
    bool need = !s->compacting && has_references_locked(s);
    if (!need && !s->compacting && s->nfiles >= (size_t)p->min_files) {
        uint64_t *sizes = malloc(s->nfiles * sizeof(*sizes));
        if (sizes) {
            compaction_policy q = policy_for(p);
            for (size_t i = 0; i < s->nfiles; i++)
                sizes[i] = storefile_get_info(s->files[i])->file_size;
            size_t a, b;
            need = compaction_select(&q, sizes, s->nfiles, &a, &b);
            free(sizes);
        }
    }
    pthread_mutex_unlock(&s->mu);
    return need;
}

bool store_has_references(store *s)
{
    pthread_mutex_lock(&s->mu);
    bool refs = has_references_locked(s);
    pthread_mutex_unlock(&s->mu);
    return refs;
}

int store_split_row(store *s, buf_t *row)
{
    pthread_mutex_lock(&s->mu);
    storefile *largest = NULL;
    bool refs = has_references_locked(s);
    for (size_t i = 0; !refs && i < s->nfiles; i++)
        if (!largest || storefile_get_info(s->files[i])->file_size >
                            storefile_get_info(largest)->file_size)
            largest = s->files[i];
    if (largest)
        storefile_ref(largest);
    pthread_mutex_unlock(&s->mu);
    if (refs)
        return st_error(ST_NOT_FOUND, "store %s holds references: no split point until compacted",
                        s->dir);
    if (!largest)
        return st_error(ST_NOT_FOUND, "store %s has no store files: no split point", s->dir);
    int rc = storefile_mid_row(largest, row);
    storefile_unref(largest);
    return rc;
}
