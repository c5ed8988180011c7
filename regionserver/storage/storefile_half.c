/*
 * storefile_half.c - a store file opened through a reference file
 * (docs/formats/reference.md): the referenced (target) file clamped to the half the
 * reference names.
 *
 * storefile_open_reference: reference_read -> reference_target_path -> storefile_open
 * of the target -> a storefile whose path is the reference's, whose info is a copy of
 * the target's (its first/last views stay valid: the target lives as long as the
 * half), and which holds the target until its last reference goes. The block cache is
 * the target's business; the half has no descriptor or blocks of its own.
 *
 * The half iterator wraps an iterator over the target. The boundary is
 * K = cell_first_on_row(split row), which sorts before every real cell of the split
 * row (a real cell has a family), so no cell equals it:
 *   BOTTOM (cells < K)                     TOP (cells >= K)
 *   seek(k):   k >= K: none; else seek(k)  seek(max(k, K))
 *   seek_for_prev(k): seek_for_prev(min(k, K))   seek_for_prev(k), none if < K
 *   seek_to_first: seek_to_first           seek(K)
 *   next: next, none once >= K             next
 * After every move `in_half` records whether the target iterator sits on a cell of
 * the half; valid() is that. A target error makes the target iterator invalid, so the
 * half is invalid too, and status() is the target iterator's.
 * Thread-safety: as storefile.h; one iterator is used by one thread at a time.
 */
#include "regionserver/storage/storefile_internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/status.h"

/* ---- open ---- */

static int open_target(const char *ref_path, const storefile_open_options *o,
                       storefile **target)
{
    char *target_path = NULL;
    int rc = reference_target_path(ref_path, &target_path);
    if (rc != ST_OK)
        return rc;
    rc = storefile_open_with(target_path, o, target);
    if (rc != ST_OK) {
        LOG_ERROR("reference %s: referenced store file %s cannot be opened: %s", ref_path,
                  target_path, st_errmsg());
        rc = st_error(rc, "reference %s: referenced store file %s cannot be opened: %s", ref_path,
                      target_path, st_errmsg());
    }
    free(target_path);
    return rc;
}

int storefile_open_reference(const char *ref_path, blockcache *cache, storefile **out)
{
    storefile_open_options o = {.cache = cache};
    return storefile_open_reference_with(ref_path, &o, out);
}

int storefile_open_reference_with(const char *ref_path, const storefile_open_options *o,
                                  storefile **out)
{
    *out = NULL;
    reference ref = {0};
    storefile *target = NULL;
    int rc = reference_read(ref_path, &ref);
    if (rc == ST_OK)
        rc = open_target(ref_path, o, &target);
    if (rc != ST_OK) {
        reference_free(&ref);
        return rc;
    }
    storefile *f = calloc(1, sizeof(*f));
    if (!f || !(f->path = strdup(ref_path))) {
        free(f);
        storefile_unref(target);
        reference_free(&ref);
        return st_error(ST_NOMEM, "reference %s: out of memory opening", ref_path);
    }
    f->target = target;
    f->info = target->info;
    f->range = ref.range;
    f->split_len = ref.split_row.len;
    f->split_row = ref.split_row.data; /* taken over: allocated even when empty */
    atomic_init(&f->refs, 1);
    atomic_init(&f->deleted, false);
    *out = f;
    return ST_OK;
}

bool storefile_is_reference(const storefile *f)
{
    return f->target != NULL;
}

bool storefile_half_has_row(const storefile *f, const uint8_t *row, size_t row_len)
{
    int c = cell_compare_rows(row, row_len, f->split_row, f->split_len);
    return f->range == REFERENCE_TOP ? c >= 0 : c < 0;
}

/* ---- the half iterator ---- */

typedef struct half_iter {
    kv_iter base;
    storefile *f; /* the half (holds the target) */
    kv_iter *in;  /* over the target */
    cell_t boundary;
    bool top;
    bool in_half;
} half_iter;

static bool below(const half_iter *it, const cell_t *c)
{
    return cell_compare(c, &it->boundary) < 0;
}

/* Records whether the target iterator, just moved, sits on a cell of the half. */
static void settle(half_iter *it)
{
    it->in_half = kv_iter_valid(it->in) && below(it, kv_iter_cell(it->in)) != it->top;
}

static void half_seek(kv_iter *base, const cell_t *key)
{
    half_iter *it = (half_iter *)base;
    if (it->top) {
        kv_iter_seek(it->in, below(it, key) ? &it->boundary : key);
    } else if (below(it, key)) {
        kv_iter_seek(it->in, key);
    } else {
        it->in_half = false; /* every cell of the half is < key */
        return;
    }
    settle(it);
}

static void half_seek_for_prev(kv_iter *base, const cell_t *key)
{
    half_iter *it = (half_iter *)base;
    if (it->top || below(it, key))
        kv_iter_seek_for_prev(it->in, key);
    else
        kv_iter_seek_for_prev(it->in, &it->boundary); /* the last cell < K */
    settle(it);
}

static void half_seek_to_first(kv_iter *base)
{
    half_iter *it = (half_iter *)base;
    if (it->top)
        kv_iter_seek(it->in, &it->boundary);
    else
        kv_iter_seek_to_first(it->in);
    settle(it);
}

static void half_next(kv_iter *base)
{
    half_iter *it = (half_iter *)base;
    if (!it->in_half)
        return;
    kv_iter_next(it->in);
    settle(it);
}

static bool half_valid(const kv_iter *base)
{
    return ((const half_iter *)base)->in_half;
}

static const cell_t *half_cell(const kv_iter *base)
{
    return kv_iter_cell(((const half_iter *)base)->in);
}

static int half_status(const kv_iter *base)
{
    return kv_iter_status(((const half_iter *)base)->in);
}

static void half_destroy(kv_iter *base)
{
    half_iter *it = (half_iter *)base;
    kv_iter_destroy(it->in);
    storefile_unref(it->f);
    free(it);
}

static const kv_iter_ops half_iter_ops = {
    .seek = half_seek,
    .seek_for_prev = half_seek_for_prev,
    .seek_to_first = half_seek_to_first,
    .next = half_next,
    .valid = half_valid,
    .cell = half_cell,
    .status = half_status,
    .destroy = half_destroy,
};

kv_iter *storefile_half_iter(storefile *f, unsigned flags)
{
    half_iter *it = calloc(1, sizeof(*it));
    if (!it)
        return NULL;
    if (!(it->in = storefile_iter_flags(f->target, flags))) {
        free(it);
        return NULL;
    }
    it->base.ops = &half_iter_ops;
    it->f = f;
    it->boundary = cell_first_on_row(f->split_row, f->split_len);
    it->top = f->range == REFERENCE_TOP;
    storefile_ref(f);
    return &it->base;
}
