/*
 * region_rmw.c - read-modify-write operations on one row: CheckAndMutate, Increment
 * and Append. Each reads the row's current values and writes the result under the
 * row lock, so concurrent callers on the same row serialise and none is lost.
 * Thread-safety: safe from any thread; lock order as in region_internal.h.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/clock.h"
#include "common/status.h"
#include "regionserver/storage/region_internal.h"

/* Reads the newest visible cell of one column into res (ncells 0 if absent). */
static int read_column(region *r, const uint8_t *row, size_t row_len, const uint8_t *fam,
                       size_t fam_len, const uint8_t *qual, size_t qual_len, scan_result *res)
{
    scan_column col = {fam, fam_len, qual, qual_len};
    scan_spec spec = {0};
    spec.columns = &col;
    spec.ncolumns = 1;
    spec.max_versions = 1;
    return region_read_row(r, row, row_len, &spec, res);
}

/* HBase's rule: the given value is compared with the existing one, `value op existing`.
 * A NULL or empty value asks about absence: it matches an absent or empty cell for
 * every op but != (and a present, non-empty cell only for !=). An absent cell never
 * matches a non-empty value. */
static bool check_matches(const scan_result *cur, compare_op op, const uint8_t *value,
                          size_t value_len)
{
    bool empty = cur->ncells == 0 || cur->cells[0].value_len == 0;
    if (!value || value_len == 0)
        return empty == (op != CMP_NOT_EQUAL);
    if (cur->ncells == 0)
        return false;
    const cell_t *c = &cur->cells[0];
    int cmp = cell_compare_rows(value, value_len, c->value, c->value_len);
    switch (op) {
    case CMP_LESS: return cmp < 0;
    case CMP_LESS_OR_EQUAL: return cmp <= 0;
    case CMP_EQUAL: return cmp == 0;
    case CMP_NOT_EQUAL: return cmp != 0;
    case CMP_GREATER_OR_EQUAL: return cmp >= 0;
    case CMP_GREATER: return cmp > 0;
    default: return false;
    }
}

static int admit(region *r, const uint8_t *row, size_t row_len)
{
    int rc = region_check_row(r, row, row_len);
    return rc == ST_OK ? region_admit_write(r) : rc;
}

int region_check_and_mutate(region *r, const uint8_t *row, size_t row_len, const uint8_t *fam,
                            size_t fam_len, const uint8_t *qual, size_t qual_len, compare_op op,
                            const uint8_t *value, size_t value_len, const mutation *m,
                            bool *applied)
{
    *applied = false;
    if (m->row_len != row_len || memcmp(m->row, row, row_len) != 0)
        return st_error(ST_INVALID_ARGUMENT,
                        "region %s: check-and-mutate row differs from the mutation's row",
                        r->info.encoded_name);
    if (op > CMP_GREATER)
        return st_error(ST_INVALID_ARGUMENT, "region %s: bad compare operator %d",
                        r->info.encoded_name, (int)op);
    if (!region_find_store(r, fam, fam_len))
        return st_error(ST_UNKNOWN_FAMILY, "region %s: unknown column family '%.*s'",
                        r->info.encoded_name, (int)fam_len, (const char *)fam);
    int rc = admit(r, row, row_len);
    pthread_mutex_t *lock = NULL;
    if (rc == ST_OK)
        rc = region_lock_row(r, row, row_len, &lock);
    if (rc != ST_OK)
        return rc;
    scan_result cur;
    scan_result_init(&cur);
    rc = read_column(r, row, row_len, fam, fam_len, qual, qual_len, &cur);
    if (rc == ST_OK && check_matches(&cur, op, value, value_len)) {
        rc = region_apply_locked(r, m, clock_now_ms());
        *applied = rc == ST_OK;
    }
    pthread_mutex_unlock(lock);
    scan_result_free(&cur);
    atomic_fetch_add(&r->read_requests, 1);
    region_maybe_request_flush(r);
    return rc;
}

/* Shared shape of Increment and Append: for each column read the newest value, let
 * `combine` compute the new one into vals[i], then write all new cells as one Put. */
typedef int (*combine_fn)(region *r, size_t i, const cell_t *col, const scan_result *cur,
                          void *ctx, buf_t *val);

static int read_modify_write(region *r, const uint8_t *row, size_t row_len, const cell_t *cols,
                             size_t n, durability d, combine_fn combine, void *ctx,
                             scan_result *out)
{
    if (n == 0)
        return st_error(ST_INVALID_ARGUMENT, "region %s: no columns given", r->info.encoded_name);
    int rc = admit(r, row, row_len);
    pthread_mutex_t *lock = NULL;
    if (rc == ST_OK)
        rc = region_lock_row(r, row, row_len, &lock);
    if (rc != ST_OK)
        return rc;
    cell_t *cells = calloc(n, sizeof(*cells));
    buf_t *vals = calloc(n, sizeof(*vals));
    scan_result cur;
    scan_result_init(&cur);
    int64_t now = clock_now_ms();
    if (!cells || !vals)
        rc = ST_NOMEM;
    for (size_t i = 0; i < n && rc == ST_OK; i++) {
        if (!region_find_store(r, cols[i].family, cols[i].family_len)) {
            rc = st_error(ST_UNKNOWN_FAMILY, "region %s: unknown column family '%.*s'",
                          r->info.encoded_name, (int)cols[i].family_len,
                          (const char *)cols[i].family);
            break;
        }
        rc = read_column(r, row, row_len, cols[i].family, cols[i].family_len,
                         cols[i].qualifier, cols[i].qualifier_len, &cur);
        if (rc == ST_OK)
            rc = combine(r, i, &cols[i], &cur, ctx, &vals[i]);
        if (rc != ST_OK)
            break;
        cells[i] = cols[i];
        cells[i].type = CELL_TYPE_PUT;
        /* Never go back in time: a new version must sort before the old one. */
        cells[i].ts = cur.ncells && cur.cells[0].ts >= now ? cur.cells[0].ts + 1 : now;
    }
    for (size_t i = 0; i < n && rc == ST_OK; i++) {
        cells[i].value = vals[i].data;
        cells[i].value_len = (uint32_t)vals[i].len;
    }
    if (rc == ST_OK) {
        mutation m = {row, row_len, cells, n, d};
        rc = region_apply_locked(r, &m, now);
    }
    pthread_mutex_unlock(lock);
    if (rc == ST_OK && out) {
        scan_result_clear(out);
        for (size_t i = 0; i < n && rc == ST_OK; i++) {
            cell_t c = cells[i];
            c.row = row;
            c.row_len = (uint32_t)row_len;
            rc = scan_result_add(out, &c);
        }
    }
    for (size_t i = 0; vals && i < n; i++)
        buf_free(&vals[i]);
    free(vals);
    free(cells);
    scan_result_free(&cur);
    atomic_fetch_add(&r->read_requests, 1);
    region_maybe_request_flush(r);
    return rc;
}

typedef struct incr_ctx {
    const int64_t *amounts;
    int64_t *results;
} incr_ctx;

static int combine_increment(region *r, size_t i, const cell_t *col, const scan_result *cur,
                             void *arg, buf_t *val)
{
    incr_ctx *ctx = arg;
    int64_t old = 0;
    if (cur->ncells) {
        const cell_t *c = &cur->cells[0];
        if (c->value_len != 8)
            return st_error(ST_INVALID_ARGUMENT,
                            "region %s: column %.*s:%.*s holds %u bytes, not an 8-byte counter",
                            r->info.encoded_name, (int)col->family_len,
                            (const char *)col->family, (int)col->qualifier_len,
                            (const char *)col->qualifier, c->value_len);
        old = (int64_t)be64_get(c->value);
    }
    int64_t now = (int64_t)((uint64_t)old + (uint64_t)ctx->amounts[i]);
    ctx->results[i] = now;
    buf_reset(val);
    return buf_append_be64(val, (uint64_t)now);
}

int region_increment(region *r, const uint8_t *row, size_t row_len, const cell_t *cols,
                     const int64_t *amounts, size_t n, durability d, int64_t *results)
{
    incr_ctx ctx = {amounts, results};
    return read_modify_write(r, row, row_len, cols, n, d, combine_increment, &ctx, NULL);
}

static int combine_append(region *r, size_t i, const cell_t *col, const scan_result *cur,
                          void *arg, buf_t *val)
{
    (void)r;
    (void)i;
    (void)arg;
    buf_reset(val);
    int rc = ST_OK;
    if (cur->ncells)
        rc = buf_append(val, cur->cells[0].value, cur->cells[0].value_len);
    if (rc == ST_OK)
        rc = buf_append(val, col->value, col->value_len);
    return rc;
}

int region_append(region *r, const uint8_t *row, size_t row_len, const cell_t *cols, size_t n,
                  durability d, scan_result *out)
{
    return read_modify_write(r, row, row_len, cols, n, d, combine_append, NULL, out);
}
