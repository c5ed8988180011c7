/*
 * filter_internal.h - the layout shared by the filter sources (filter.c, filter_compare.c,
 * filter_simple.c, filter_column.c, filter_rows.c, filter_wrap.c, comparator.c,
 * filter_parse.c); other modules use filter.h only.
 *
 * A filter is a struct whose first member is `struct filter` (the ops table and the scan
 * direction); each kind supplies the ops it needs and leaves the others NULL, which
 * filter.c reads as HBase's FilterBase defaults: reset does nothing, the row key passes,
 * every cell is INCLUDEd, transform leaves the cell alone, no cell is removed from the
 * row, the row passes, the scan never ends early, there is no seek hint, and only the
 * base records the direction.
 *
 * Seek hints: a filter that answers FILTER_SEEK_HINT keeps the key in a filter_key and
 * hands out a view of it from its hint op; when it cannot build the key (out of memory)
 * it answers as if the hint were ignored (SKIP), which is always correct.
 * Thread-safety: as filter.h (one scanner at a time).
 */
#ifndef STRATA_REGIONSERVER_FILTER_INTERNAL_H
#define STRATA_REGIONSERVER_FILTER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "regionserver/storage/filter.h"

typedef struct filter_ops {
    const char *name; /* HBase's class name, for messages */
    void (*reset)(filter *f);
    bool (*row_key)(filter *f, const uint8_t *row, size_t len);
    filter_return (*cell)(filter *f, const cell_t *c);
    void (*transform)(filter *f, cell_t *c);
    size_t (*row_cells)(filter *f, cell_t *cells, size_t n);
    bool (*row)(filter *f, const cell_t *cells, size_t n);
    bool (*all_remaining)(filter *f);
    bool (*hint)(filter *f, cell_t *out);
    void (*set_reversed)(filter *f, bool reversed); /* sub-filters; base already set */
    void (*destroy)(filter *f); /* frees what the filter owns, not the struct itself */
} filter_ops;

struct filter {
    const filter_ops *ops;
    bool reversed; /* set by filter_set_reversed */
};

/* Allocates a zeroed filter of `size` bytes (at least sizeof(filter)) with its ops set;
 * NULL when out of memory (st_error set). */
void *filter_alloc(size_t size, const filter_ops *ops);

/* A malloc'd copy of n bytes (a valid pointer even for n == 0); NULL when out of memory. */
uint8_t *filter_dup_bytes(const uint8_t *p, size_t n);

/* Unsigned byte order, a shorter prefix first (the order of rows and qualifiers). */
int filter_bytes_compare(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

/* True when c is the column fam:qual. */
bool filter_is_column(const cell_t *c, const uint8_t *fam, size_t fam_len, const uint8_t *qual,
                      size_t qual_len);

/* A seek key owned by a filter: the first-on-row key of a row, or the first-on-column key
 * of row/family/qualifier. A zeroed filter_key is empty. */
typedef struct filter_key {
    buf_t bytes; /* row, then family, then qualifier */
    uint32_t row_len;
    uint32_t family_len; /* 0: a first-on-row key */
} filter_key;

/* first_on_row(row), with a zero byte appended to the row when `past` (the key just after
 * every cell of row). ST_OK or ST_NOMEM (k then empty). */
int filter_key_row(filter_key *k, const uint8_t *row, size_t len, bool past);
/* first_on_column(c's row, c's family, qual) ST_OK or ST_NOMEM. */
int filter_key_column(filter_key *k, const cell_t *c, const uint8_t *qual, size_t qual_len);
/* first_on_column(c's row, c's family + "\0", ""): the key after every cell of c's family
 * in its row, which is where the next family starts. ST_OK or ST_NOMEM. */
int filter_key_next_family(filter_key *k, const cell_t *c);
/* Copies a first-on-row or first-on-column key. ST_OK or ST_NOMEM. */
int filter_key_copy(filter_key *k, const cell_t *key);
/* The key as a cell view (valid until k changes). */
cell_t filter_key_cell(const filter_key *k);
void filter_key_free(filter_key *k);

/* The column of a cell, remembered (family bytes then qualifier bytes). */
typedef struct filter_col {
    buf_t bytes;
    uint32_t family_len;
    bool set;
} filter_col;

/* True when m is set and c is in its column. */
bool filter_col_is(const filter_col *m, const cell_t *c);
/* Remembers c's column. ST_OK, or ST_NOMEM with m cleared. */
int filter_col_set(filter_col *m, const cell_t *c);
void filter_col_free(filter_col *m);

/* Like comparator_new, but returns a status: ST_OK with *out set, ST_NOMEM, or
 * ST_INVALID_ARGUMENT for a regex that does not compile (message says why). */
int comparator_create(comparator_type type, const uint8_t *value, size_t len, comparator **out);

/* True for the substring and regexstring comparators, which only support = and !=. */
bool comparator_equality_only(const comparator *c);

#endif
