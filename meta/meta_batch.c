/*
 * meta_batch.c - the two primitives every meta operation is built on: a batch that
 * applies a multi-row catalog change as one atomic region write (one WAL record, one
 * timestamp from the meta clock), and row scans/gets over the meta region.
 *
 * Thread-safety: a meta_batch belongs to one thread; meta_batch_commit() runs under
 * the caller's m->write_mu (see meta_internal.h). meta_scan() and meta_get_row() take
 * no meta lock.
 */
#include "meta/meta_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/status.h"

/* ---------------------------------------------------------------- building */

void meta_batch_init(meta_batch *b)
{
    memset(b, 0, sizeof(*b));
}

void meta_batch_free(meta_batch *b)
{
    for (size_t i = 0; i < b->nrows; i++) {
        free(b->rows[i].row);
        free(b->rows[i].cells);
    }
    for (size_t i = 0; i < b->nowned; i++)
        free(b->owned[i]);
    free(b->rows);
    free(b->owned);
    memset(b, 0, sizeof(*b));
}

static bool grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t nc = *cap ? *cap * 2 : 8;
    while (nc < need)
        nc *= 2;
    void *p = realloc(*arr, nc * elem);
    if (!p)
        return false;
    *arr = p;
    *cap = nc;
    return true;
}

static void *own_copy(meta_batch *b, const void *data, size_t len)
{
    if (!grow((void **)&b->owned, &b->owned_cap, b->nowned + 1, sizeof(*b->owned)))
        return NULL;
    void *p = malloc(len ? len : 1);
    if (!p)
        return NULL;
    if (len)
        memcpy(p, data, len);
    b->owned[b->nowned++] = p;
    return p;
}

void meta_batch_row(meta_batch *b, const uint8_t *row, size_t len)
{
    if (b->rc != ST_OK)
        return;
    if (!grow((void **)&b->rows, &b->cap, b->nrows + 1, sizeof(*b->rows))) {
        b->rc = ST_NOMEM;
        return;
    }
    meta_row_edit *e = &b->rows[b->nrows];
    memset(e, 0, sizeof(*e));
    e->row = malloc(len ? len : 1);
    if (!e->row) {
        b->rc = ST_NOMEM;
        return;
    }
    memcpy(e->row, row, len);
    e->row_len = len;
    b->nrows++;
}

static void add_cell(meta_batch *b, const char *fam, const char *qual, const void *value,
                     size_t len, uint8_t type)
{
    if (b->rc != ST_OK)
        return;
    if (b->nrows == 0) {
        b->rc = st_error(ST_INTERNAL, "meta: cell added before any row");
        return;
    }
    meta_row_edit *e = &b->rows[b->nrows - 1];
    const void *v = type == CELL_TYPE_PUT ? own_copy(b, value, len) : NULL;
    if ((type == CELL_TYPE_PUT && !v) ||
        !grow((void **)&e->cells, &e->cap, e->ncells + 1, sizeof(*e->cells))) {
        b->rc = ST_NOMEM;
        return;
    }
    cell_t *c = &e->cells[e->ncells++];
    memset(c, 0, sizeof(*c));
    c->family = (const uint8_t *)fam;
    c->family_len = (uint32_t)strlen(fam);
    c->qualifier = (const uint8_t *)qual;
    c->qualifier_len = (uint32_t)strlen(qual);
    c->value = v;
    c->value_len = type == CELL_TYPE_PUT ? (uint32_t)len : 0;
    c->type = type;
}

void meta_batch_put(meta_batch *b, const char *fam, const char *qual, const void *value, size_t len)
{
    add_cell(b, fam, qual, value, len, CELL_TYPE_PUT);
}

void meta_batch_delete_column(meta_batch *b, const char *fam, const char *qual)
{
    add_cell(b, fam, qual, NULL, 0, CELL_TYPE_DELETE_COLUMN);
}

void meta_batch_delete_row(meta_batch *b, const uint8_t *row, size_t len)
{
    meta_batch_row(b, row, len);
    add_cell(b, META_FAM_INFO, "", NULL, 0, CELL_TYPE_DELETE_FAMILY);
    add_cell(b, META_FAM_TABLE, "", NULL, 0, CELL_TYPE_DELETE_FAMILY);
    add_cell(b, META_FAM_NS, "", NULL, 0, CELL_TYPE_DELETE_FAMILY);
    add_cell(b, META_FAM_PROC, "", NULL, 0, CELL_TYPE_DELETE_FAMILY);
}

bool meta_batch_has_row(const meta_batch *b, const uint8_t *row, size_t len)
{
    for (size_t i = 0; i < b->nrows; i++)
        if (b->rows[i].row_len == len && memcmp(b->rows[i].row, row, len) == 0)
            return true;
    return false;
}

/* ---------------------------------------------------------------- committing */

static int cmp_edit_ptr(const void *a, const void *b)
{
    const meta_row_edit *x = *(const meta_row_edit *const *)a;
    const meta_row_edit *y = *(const meta_row_edit *const *)b;
    return cell_compare_rows(x->row, x->row_len, y->row, y->row_len);
}

/* Everything the region could refuse for one row is checked here, so that the region
 * never applies part of the batch: rows are distinct, 1..CELL_MAX_ROW_LEN bytes, and
 * carry cells. */
static int check_rows(const meta_batch *b)
{
    const meta_row_edit **sorted = malloc(b->nrows * sizeof(*sorted));
    if (!sorted)
        return ST_NOMEM;
    for (size_t i = 0; i < b->nrows; i++)
        sorted[i] = &b->rows[i];
    qsort(sorted, b->nrows, sizeof(*sorted), cmp_edit_ptr);
    int rc = ST_OK;
    for (size_t i = 0; i < b->nrows && rc == ST_OK; i++) {
        const meta_row_edit *e = sorted[i];
        if (e->row_len == 0 || e->row_len > CELL_MAX_ROW_LEN)
            rc = st_error(ST_INVALID_ARGUMENT, "meta: row key of %zu bytes (limit %d)", e->row_len,
                          CELL_MAX_ROW_LEN);
        else if (e->ncells == 0)
            rc = st_error(ST_INTERNAL, "meta: row '%.*s' without cells", (int)e->row_len,
                          (const char *)e->row);
        else if (i > 0 && cmp_edit_ptr(&sorted[i - 1], &sorted[i]) == 0)
            rc = st_error(ST_INVALID_ARGUMENT, "meta: row '%.*s' given twice in one change",
                          (int)e->row_len, (const char *)e->row);
    }
    free(sorted);
    return rc;
}

static int64_t next_ts(meta *m)
{
    int64_t now = clock_now_ms();
    m->last_ts = now > m->last_ts ? now : m->last_ts + 1;
    return m->last_ts;
}

int meta_batch_commit(meta *m, meta_batch *b)
{
    if (b->rc != ST_OK)
        return b->rc;
    if (b->nrows == 0)
        return ST_OK;
    int rc = check_rows(b);
    if (rc != ST_OK)
        return rc;
    mutation *ms = calloc(b->nrows, sizeof(*ms));
    int *results = calloc(b->nrows, sizeof(*results));
    if (!ms || !results) {
        free(ms);
        free(results);
        return ST_NOMEM;
    }
    int64_t ts = next_ts(m);
    for (size_t i = 0; i < b->nrows; i++) {
        meta_row_edit *e = &b->rows[i];
        for (size_t j = 0; j < e->ncells; j++)
            e->cells[j].ts = ts;
        ms[i] = (mutation){e->row, e->row_len, e->cells, e->ncells, DURABILITY_SYNC_WAL};
    }
    rc = region_batch_mutate(m->reg, ms, b->nrows, results);
    if (rc != ST_OK)
        LOG_ERROR("meta: writing %zu rows at ts %" PRId64 " failed: %s (%s)", b->nrows, ts,
                  st_strerror(rc), st_errmsg());
    free(ms);
    free(results);
    return rc;
}

/* ---------------------------------------------------------------- reading */

int meta_scan(meta *m, const uint8_t *start, size_t start_len, const uint8_t *stop, size_t stop_len,
              const char *fam, meta_row_fn fn, void *arg)
{
    scan_column col = {(const uint8_t *)fam, fam ? strlen(fam) : 0, NULL, 0};
    scan_spec spec = {0};
    spec.start_row = start;
    spec.start_row_len = start_len;
    spec.stop_row = stop;
    spec.stop_row_len = stop_len;
    if (fam) {
        spec.columns = &col;
        spec.ncolumns = 1;
    }
    return meta_scan_rows(m, &spec, fn, arg);
}

int meta_scan_rows(meta *m, const scan_spec *spec, meta_row_fn fn, void *arg)
{
    const table_schema *schema = region_get_schema(m->reg);
    for (size_t i = 0; i < spec->ncolumns; i++)
        if (table_schema_find_family(schema, spec->columns[i].family,
                                     spec->columns[i].family_len) < 0)
            return st_error(ST_UNKNOWN_FAMILY,
                            "%s: unknown column family '%.*s' (its families: %s, %s, %s, %s)",
                            META_TABLE_NAME, (int)spec->columns[i].family_len,
                            (const char *)spec->columns[i].family, META_FAM_INFO, META_FAM_TABLE,
                            META_FAM_NS, META_FAM_PROC);
    region_scanner *s = NULL;
    scan_spec sp = *spec;
    sp.mode = SCAN_MODE_USER;
    int rc = region_scanner_open(m->reg, &sp, &s);
    if (rc != ST_OK)
        return rc;
    scan_result res;
    scan_result_init(&res);
    for (;;) {
        int got = region_scanner_next(s, &res);
        if (got <= 0) {
            rc = got;
            break;
        }
        if (res.ncells && (rc = fn(&res, arg)) != ST_OK)
            break;
    }
    scan_result_free(&res);
    region_scanner_close(s);
    return rc;
}

int meta_get_row(meta *m, const uint8_t *row, size_t len, const char *fam, scan_result *out)
{
    scan_column col = {(const uint8_t *)fam, strlen(fam), NULL, 0};
    scan_spec spec = {0};
    spec.columns = &col;
    spec.ncolumns = 1;
    return region_get(m->reg, row, len, &spec, out);
}

bool meta_cell_is(const cell_t *c, const char *fam, const char *qual)
{
    size_t fl = strlen(fam), ql = strlen(qual);
    return c->family_len == fl && memcmp(c->family, fam, fl) == 0 && c->qualifier_len == ql &&
           memcmp(c->qualifier, qual, ql) == 0;
}
