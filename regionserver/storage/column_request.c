/*
 * column_request.c - sorted, merged set of requested columns (column_request.h).
 * Thread-safety: immutable after build.
 */
#include "regionserver/storage/column_request.h"

#include <stdlib.h>
#include <string.h>

#include "common/status.h"

int column_bytes_compare(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int c = n ? memcmp(a, b, n) : 0;
    if (c)
        return c;
    return alen < blen ? -1 : alen > blen ? 1 : 0;
}

static int bytes_dup(column_bytes *dst, const uint8_t *src, size_t len)
{
    dst->p = malloc(len ? len : 1);
    if (!dst->p)
        return st_error(ST_NOMEM, "column request: no memory");
    if (len)
        memcpy(dst->p, src, len);
    dst->len = len;
    return ST_OK;
}

static int cmp_bytes_entry(const void *a, const void *b)
{
    const column_bytes *x = a, *y = b;
    return column_bytes_compare(x->p, x->len, y->p, y->len);
}

static int cmp_family_entry(const void *a, const void *b)
{
    const column_family_req *x = a, *y = b;
    return column_bytes_compare(x->name.p, x->name.len, y->name.p, y->name.len);
}

static column_family_req *find_or_add(column_request *r, const scan_column *c, int *rc)
{
    for (size_t i = 0; i < r->nfams; i++)
        if (column_bytes_compare(r->fams[i].name.p, r->fams[i].name.len, c->family,
                                 c->family_len) == 0)
            return &r->fams[i];
    column_family_req *f = &r->fams[r->nfams];
    memset(f, 0, sizeof(*f));
    *rc = bytes_dup(&f->name, c->family, c->family_len);
    if (*rc != ST_OK)
        return NULL;
    r->nfams++;
    return f;
}

static int add_qual(column_family_req *f, const scan_column *c, size_t cap)
{
    for (size_t i = 0; i < f->nquals; i++)
        if (column_bytes_compare(f->quals[i].p, f->quals[i].len, c->qualifier, c->qualifier_len) ==
            0)
            return ST_OK;
    if (!f->quals) {
        f->quals = calloc(cap, sizeof(*f->quals));
        if (!f->quals)
            return st_error(ST_NOMEM, "column request: no memory");
    }
    int rc = bytes_dup(&f->quals[f->nquals], c->qualifier, c->qualifier_len);
    if (rc == ST_OK)
        f->nquals++;
    return rc;
}

static int add_column(column_request *r, const scan_column *c, size_t n)
{
    if (c->family_len == 0 || !c->family)
        return st_error(ST_INVALID_ARGUMENT, "scan column with an empty family");
    int rc = ST_OK;
    column_family_req *f = find_or_add(r, c, &rc);
    if (!f)
        return rc;
    if (!c->qualifier) {
        f->whole = true;
        return ST_OK;
    }
    return add_qual(f, c, n);
}

int column_request_build(column_request *r, const scan_column *cols, size_t n)
{
    memset(r, 0, sizeof(*r));
    if (!cols || n == 0)
        return ST_OK;
    r->fams = calloc(n, sizeof(*r->fams));
    if (!r->fams)
        return st_error(ST_NOMEM, "column request: no memory for %zu columns", n);
    int rc = ST_OK;
    for (size_t i = 0; i < n && rc == ST_OK; i++)
        rc = add_column(r, &cols[i], n);
    if (rc != ST_OK) {
        column_request_free(r);
        return rc;
    }
    for (size_t i = 0; i < r->nfams; i++) {
        column_family_req *f = &r->fams[i];
        if (f->whole) {
            for (size_t q = 0; q < f->nquals; q++)
                free(f->quals[q].p);
            free(f->quals);
            f->quals = NULL;
            f->nquals = 0;
        } else {
            qsort(f->quals, f->nquals, sizeof(*f->quals), cmp_bytes_entry);
        }
    }
    qsort(r->fams, r->nfams, sizeof(*r->fams), cmp_family_entry);
    return ST_OK;
}

void column_request_free(column_request *r)
{
    for (size_t i = 0; i < r->nfams; i++) {
        free(r->fams[i].name.p);
        for (size_t q = 0; q < r->fams[i].nquals; q++)
            free(r->fams[i].quals[q].p);
        free(r->fams[i].quals);
    }
    free(r->fams);
    memset(r, 0, sizeof(*r));
}

/* Index of the first family >= fam. */
static size_t lower_family(const column_request *r, const uint8_t *fam, size_t len)
{
    size_t lo = 0, hi = r->nfams;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const column_bytes *b = &r->fams[mid].name;
        if (column_bytes_compare(b->p, b->len, fam, len) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const column_family_req *column_request_find(const column_request *r, const uint8_t *fam,
                                             size_t len)
{
    size_t i = lower_family(r, fam, len);
    if (i < r->nfams && column_bytes_compare(r->fams[i].name.p, r->fams[i].name.len, fam, len) == 0)
        return &r->fams[i];
    return NULL;
}

const column_family_req *column_request_next_family(const column_request *r, const uint8_t *fam,
                                                    size_t len)
{
    size_t i = lower_family(r, fam, len);
    if (i < r->nfams && column_bytes_compare(r->fams[i].name.p, r->fams[i].name.len, fam, len) == 0)
        i++;
    return i < r->nfams ? &r->fams[i] : NULL;
}

size_t column_request_seek_qual(const column_family_req *f, size_t from, const uint8_t *q,
                                size_t len)
{
    size_t i = from;
    while (i < f->nquals && column_bytes_compare(f->quals[i].p, f->quals[i].len, q, len) < 0)
        i++;
    return i;
}
