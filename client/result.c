/*
 * result.c - strata_result_t: one row's cells (or part of a row) copied out of a
 * protobuf Result into one allocation, with accessors by index and a newest-value
 * lookup by column.
 *
 * Thread-safety: a result is immutable after it is made; any thread may read it.
 */
#include <stdlib.h>
#include <string.h>

#include "client/client_internal.h"

typedef struct res_cell {
    const uint8_t *row, *fam, *qual, *val;
    size_t row_len, fam_len, qual_len, val_len;
    int64_t ts;
    uint8_t type;
} res_cell;

struct strata_result {
    size_t n;
    bool partial;
    res_cell *cells;
    const uint8_t *row; /* the result's row */
    size_t row_len;
    uint8_t *data;
};

static size_t pb_len(const Strata__Client__Result *r, size_t row_len)
{
    size_t total = row_len;
    for (size_t i = 0; r && i < r->n_cell; i++) {
        const Strata__Client__Cell *c = r->cell[i];
        total += c->row.len + c->family.len + c->qualifier.len + c->value.len;
    }
    return total;
}

static const uint8_t *put(uint8_t **p, const void *src, size_t n)
{
    const uint8_t *at = *p;
    if (n)
        memcpy(*p, src, n);
    *p += n;
    return at;
}

strata_result_t *result_from_pb(const Strata__Client__Result *r, const void *row, size_t row_len)
{
    size_t n = r ? r->n_cell : 0;
    strata_result_t *res = calloc(1, sizeof(*res));
    if (!res)
        return NULL;
    res->cells = calloc(n ? n : 1, sizeof(*res->cells));
    res->data = malloc(pb_len(r, row_len) + 1);
    if (!res->cells || !res->data) {
        strata_result_destroy(res);
        return NULL;
    }
    uint8_t *p = res->data;
    res->row = put(&p, row, row_len);
    res->row_len = row_len;
    for (size_t i = 0; i < n; i++) {
        const Strata__Client__Cell *c = r->cell[i];
        res_cell *d = &res->cells[i];
        d->row = c->row.len ? put(&p, c->row.data, c->row.len) : res->row;
        d->row_len = c->row.len ? c->row.len : row_len;
        d->fam = put(&p, c->family.data, d->fam_len = c->family.len);
        d->qual = put(&p, c->qualifier.data, d->qual_len = c->qualifier.len);
        d->val = put(&p, c->value.data, d->val_len = c->value.len);
        d->ts = c->timestamp;
        d->type = c->has_type ? (uint8_t)c->type : STRATA_CELL_PUT;
    }
    if (n) {
        res->row = res->cells[0].row;
        res->row_len = res->cells[0].row_len;
    }
    res->n = n;
    res->partial = r && r->has_partial && r->partial;
    return res;
}

void strata_result_destroy(strata_result_t *r)
{
    if (!r)
        return;
    free(r->cells);
    free(r->data);
    free(r);
}

size_t strata_result_cell_count(const strata_result_t *r)
{
    return r ? r->n : 0;
}

const char *strata_result_row(const strata_result_t *r, size_t *len)
{
    *len = r->row_len;
    return (const char *)r->row;
}

/* Field k (0 row, 1 family, 2 qualifier, 3 value) of cell i; NULL past the end. */
static const char *cell_field(const strata_result_t *r, size_t i, int k, size_t *len)
{
    if (i >= r->n) {
        *len = 0;
        return NULL;
    }
    const res_cell *c = &r->cells[i];
    const uint8_t *p[4] = {c->row, c->fam, c->qual, c->val};
    size_t l[4] = {c->row_len, c->fam_len, c->qual_len, c->val_len};
    *len = l[k];
    return (const char *)p[k];
}

const char *strata_result_cell_row(const strata_result_t *r, size_t i, size_t *len)
{
    return cell_field(r, i, 0, len);
}

const char *strata_result_cell_family(const strata_result_t *r, size_t i, size_t *len)
{
    return cell_field(r, i, 1, len);
}

const char *strata_result_cell_qualifier(const strata_result_t *r, size_t i, size_t *len)
{
    return cell_field(r, i, 2, len);
}

const char *strata_result_cell_value(const strata_result_t *r, size_t i, size_t *len)
{
    return cell_field(r, i, 3, len);
}

int64_t strata_result_cell_timestamp(const strata_result_t *r, size_t i)
{
    return i < r->n ? r->cells[i].ts : 0;
}

strata_cell_type strata_result_cell_type(const strata_result_t *r, size_t i)
{
    return i < r->n ? (strata_cell_type)r->cells[i].type : STRATA_CELL_PUT;
}

const char *strata_cell_type_name(strata_cell_type type)
{
    switch (type) {
    case STRATA_CELL_PUT:
        return "Put";
    case STRATA_CELL_DELETE:
        return "Delete";
    case STRATA_CELL_DELETE_FAMILY_VERSION:
        return "DeleteFamilyVersion";
    case STRATA_CELL_DELETE_COLUMN:
        return "DeleteColumn";
    case STRATA_CELL_DELETE_FAMILY:
        return "DeleteFamily";
    }
    return "Unknown";
}

static bool bytes_eq(const uint8_t *a, size_t al, const char *b, size_t bl)
{
    return al == bl && (al == 0 || memcmp(a, b, al) == 0);
}

const char *strata_result_value(const strata_result_t *r, const char *family, size_t family_len,
                                const char *qualifier, size_t qualifier_len, size_t *len)
{
    const res_cell *best = NULL;
    for (size_t i = 0; i < r->n; i++) {
        const res_cell *c = &r->cells[i];
        if (c->type == STRATA_CELL_PUT && bytes_eq(c->fam, c->fam_len, family, family_len) &&
            bytes_eq(c->qual, c->qual_len, qualifier, qualifier_len) && (!best || c->ts > best->ts))
            best = c;
    }
    *len = best ? best->val_len : 0;
    return best ? (const char *)best->val : NULL;
}

unsigned char strata_result_partial(const strata_result_t *r)
{
    return r->partial;
}
