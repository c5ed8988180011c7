/*
 * filter_internal.h - the layout shared by the filter sources (filter.c, filter_compare.c,
 * filter_simple.c, comparator.c, filter_parse.c); other modules use filter.h only.
 *
 * A filter is a struct whose first member is `struct filter` (the ops table); each kind
 * supplies the ops it needs and leaves the others NULL, which filter.c reads as HBase's
 * FilterBase defaults: reset does nothing, the row key passes, every cell is INCLUDEd,
 * transform leaves the cell alone, the row passes, and the scan never ends early.
 * Thread-safety: as filter.h (one scanner at a time).
 */
#ifndef STRATA_REGIONSERVER_FILTER_INTERNAL_H
#define STRATA_REGIONSERVER_FILTER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "regionserver/storage/filter.h"

typedef struct filter_ops {
    const char *name; /* HBase's class name, for messages */
    void (*reset)(filter *f);
    bool (*row_key)(filter *f, const uint8_t *row, size_t len);
    filter_return (*cell)(filter *f, const cell_t *c);
    void (*transform)(filter *f, cell_t *c);
    bool (*row)(filter *f, const cell_t *cells, size_t n);
    bool (*all_remaining)(filter *f);
    void (*destroy)(filter *f); /* frees what the filter owns, not the struct itself */
} filter_ops;

struct filter {
    const filter_ops *ops;
};

/* Allocates a zeroed filter of `size` bytes (at least sizeof(filter)) with its ops set;
 * NULL when out of memory (st_error set). */
void *filter_alloc(size_t size, const filter_ops *ops);

/* A malloc'd copy of n bytes (a valid pointer even for n == 0); NULL when out of memory. */
uint8_t *filter_dup_bytes(const uint8_t *p, size_t n);

/* Like comparator_new, but returns a status: ST_OK with *out set, ST_NOMEM, or
 * ST_INVALID_ARGUMENT for a regex that does not compile (message says why). */
int comparator_create(comparator_type type, const uint8_t *value, size_t len, comparator **out);

/* True for the substring and regexstring comparators, which only support = and !=. */
bool comparator_equality_only(const comparator *c);

#endif
