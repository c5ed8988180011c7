/*
 * meta_procs.c - procedure rows and combined catalog changes (docs/formats/meta.md,
 * docs/procedures.md): a procedure's state is one `proc:d` cell in row `~proc,<id>`, and
 * the step of a split or merge that rewrites region rows is written in the same atomic
 * batch as those rows (meta_apply), so a crash leaves either the old catalog and the old
 * step or the new catalog and the new step.
 *
 * Thread-safety: see meta_internal.h (writers under write_mu, readers lock-free).
 */
#include "meta/meta_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"

static size_t proc_row(uint64_t id, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%s%020" PRIu64, META_PROC_ROW_PREFIX, id);
    return n > 0 ? (size_t)n : 0;
}

/* Index of row in b's rows [from, b->nrows), or -1. */
static long find_row(const meta_batch *b, size_t from, const uint8_t *row, size_t len)
{
    for (size_t i = from; i < b->nrows; i++)
        if (b->rows[i].row_len == len && memcmp(b->rows[i].row, row, len) == 0)
            return (long)i;
    return -1;
}

int meta_apply(meta *m, const meta_change *c)
{
    meta_batch b;
    meta_batch_init(&b);
    int rc = ST_OK;
    for (size_t i = 0; i < c->nput && rc == ST_OK; i++)
        rc = meta_batch_region(&b, &c->put[i]);
    size_t puts = b.nrows;
    for (size_t i = 0; i < c->ndel && rc == ST_OK; i++) {
        rc = meta_check_table_name(c->del[i].table);
        size_t len = 0;
        uint8_t *row = rc == ST_OK ? meta_region_row(c->del[i].table, c->del[i].start_key,
                                                     c->del[i].start_len, c->del[i].region_id, &len)
                                   : NULL;
        if (rc == ST_OK && !row)
            rc = ST_NOMEM;
        long at = rc == ST_OK ? find_row(&b, 0, row, len) : -1;
        if (at >= 0 && (size_t)at < puts)
            rc = st_error(ST_INVALID_ARGUMENT, "meta: region %s is both written and deleted",
                          c->del[i].encoded_name);
        else if (rc == ST_OK && at < 0) /* a row named twice is deleted once */
            meta_batch_delete_row(&b, row, len);
        free(row);
    }
    if (rc == ST_OK && c->proc_id) {
        char row[64];
        size_t len = proc_row(c->proc_id, row, sizeof(row));
        if (c->proc_delete) {
            meta_batch_delete_row(&b, (const uint8_t *)row, len);
        } else {
            meta_batch_row(&b, (const uint8_t *)row, len);
            meta_batch_put(&b, META_FAM_PROC, META_Q_PROC, c->proc_data, c->proc_len);
        }
        rc = b.rc;
    }
    if (rc == ST_OK) {
        pthread_mutex_lock(&m->write_mu);
        rc = meta_batch_commit(m, &b);
        pthread_mutex_unlock(&m->write_mu);
    }
    meta_batch_free(&b);
    return rc;
}

typedef struct proc_vec {
    meta_proc *v;
    size_t n, cap;
} proc_vec;

static int collect_proc(const scan_result *row, void *arg)
{
    proc_vec *pv = arg;
    const cell_t *c = &row->cells[0];
    size_t plen = strlen(META_PROC_ROW_PREFIX);
    if (c->row_len != plen + 20 || !meta_cell_is(c, META_FAM_PROC, META_Q_PROC))
        return st_error(ST_CORRUPTION, "meta: row '%.*s' is not a procedure row", (int)c->row_len,
                        (const char *)c->row);
    uint64_t id = 0;
    for (size_t i = plen; i < c->row_len; i++) {
        if (c->row[i] < '0' || c->row[i] > '9')
            return st_error(ST_CORRUPTION, "meta: procedure row '%.*s' has a bad id",
                            (int)c->row_len, (const char *)c->row);
        id = id * 10 + (uint64_t)(c->row[i] - '0');
    }
    if (pv->n == pv->cap) {
        size_t nc = pv->cap ? pv->cap * 2 : 8;
        meta_proc *p = realloc(pv->v, nc * sizeof(*p));
        if (!p)
            return ST_NOMEM;
        pv->v = p;
        pv->cap = nc;
    }
    uint8_t *d = malloc(c->value_len ? c->value_len : 1);
    if (!d)
        return ST_NOMEM;
    memcpy(d, c->value, c->value_len);
    pv->v[pv->n++] = (meta_proc){id, d, c->value_len};
    return ST_OK;
}

int meta_list_procs(meta *m, meta_proc **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    proc_vec pv = {0};
    const char *start = META_PROC_ROW_PREFIX;
    char stop[16];
    snprintf(stop, sizeof(stop), "%s", META_PROC_ROW_PREFIX);
    stop[strlen(stop) - 1]++; /* "~proc-": just past every "~proc," row */
    int rc = meta_scan(m, (const uint8_t *)start, strlen(start), (const uint8_t *)stop,
                       strlen(stop), META_FAM_PROC, collect_proc, &pv);
    if (rc != ST_OK) {
        meta_procs_free(pv.v, pv.n);
        return rc;
    }
    *out = pv.v;
    *n = pv.n;
    return ST_OK;
}

void meta_procs_free(meta_proc *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i].data);
    free(v);
}
