/*
 * scan_result.c - the result of one scanner_next() (scanner.h): an array of cells whose
 * bytes live in one growable buffer owned by the result.
 *
 * Each added cell copies its row, family, qualifier and value into r->data; a cell of
 * the same row (and family) as the previous one shares the previous cell's bytes, so a
 * wide row stores its key once. When r->data must grow it is moved to a new allocation
 * and every cell pointer is rebased onto it while the old block is still alive, so the
 * cells stay valid until the next clear or free. Growth doubles (amortised O(1)).
 * Thread-safety: none; one owner at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "regionserver/storage/scanner.h"

void scan_result_init(scan_result *r)
{
    memset(r, 0, sizeof(*r));
}

void scan_result_clear(scan_result *r)
{
    r->ncells = 0;
    r->partial = false;
    buf_reset(&r->data);
}

void scan_result_free(scan_result *r)
{
    free(r->cells);
    buf_free(&r->data);
    scan_result_init(r);
}

static const uint8_t *rebase(const uint8_t *p, const uint8_t *old, uint8_t *new_base)
{
    return new_base + (p - old);
}

/* Moves the bytes to a block of at least `need` free bytes, fixing every cell. */
static int grow_data(scan_result *r, size_t need)
{
    size_t cap = r->data.cap ? r->data.cap : 256;
    while (cap - r->data.len < need)
        cap *= 2;
    uint8_t *p = malloc(cap);
    if (!p)
        return st_error(ST_NOMEM, "scan result: no memory for %zu bytes", cap);
    uint8_t *old = r->data.data;
    if (old) {
        memcpy(p, old, r->data.len);
        for (size_t i = 0; i < r->ncells; i++) {
            cell_t *c = &r->cells[i];
            c->row = rebase(c->row, old, p);
            c->family = rebase(c->family, old, p);
            c->qualifier = rebase(c->qualifier, old, p);
            c->value = rebase(c->value, old, p);
        }
    }
    free(old);
    r->data.data = p;
    r->data.cap = cap;
    return ST_OK;
}

static int grow_cells(scan_result *r)
{
    size_t cap = r->cap ? r->cap * 2 : 16;
    cell_t *p = realloc(r->cells, cap * sizeof(*p));
    if (!p)
        return st_error(ST_NOMEM, "scan result: no memory for %zu cells", cap);
    r->cells = p;
    r->cap = cap;
    return ST_OK;
}

static const uint8_t *put_bytes(scan_result *r, const uint8_t *src, size_t n)
{
    uint8_t *dst = r->data.data + r->data.len;
    if (n)
        memcpy(dst, src, n);
    r->data.len += n;
    return dst;
}

int scan_result_add(scan_result *r, const cell_t *c)
{
    const cell_t *prev = r->ncells ? &r->cells[r->ncells - 1] : NULL;
    bool same_row = prev && cell_same_row(prev, c);
    bool same_fam = same_row && cell_same_family(prev, c);
    size_t need = (size_t)c->qualifier_len + c->value_len + 1;
    if (!same_row)
        need += c->row_len;
    if (!same_fam)
        need += c->family_len;
    int rc = ST_OK;
    if (r->ncells == r->cap && (rc = grow_cells(r)) != ST_OK)
        return rc;
    if (r->data.cap - r->data.len < need && (rc = grow_data(r, need)) != ST_OK)
        return rc;
    /* prev may have moved with the data; re-read it */
    prev = r->ncells ? &r->cells[r->ncells - 1] : NULL;
    cell_t *d = &r->cells[r->ncells];
    *d = *c;
    d->row = same_row ? prev->row : put_bytes(r, c->row, c->row_len);
    d->family = same_fam ? prev->family : put_bytes(r, c->family, c->family_len);
    d->qualifier = put_bytes(r, c->qualifier, c->qualifier_len);
    d->value = put_bytes(r, c->value, c->value_len);
    r->ncells++;
    return ST_OK;
}
