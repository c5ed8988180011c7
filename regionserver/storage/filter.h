/*
 * filter.h - server-side scan filters (DESIGN.md §1), following HBase's Filter protocol.
 *
 * For each row the scanner calls, in order:
 *   reset()                     a new row starts
 *   filter_row_key(row)         true: skip the whole row
 *   filter_cell(cell)           per visible cell (after versions/deletes/TTL/time range):
 *                               INCLUDE, SKIP (drop this cell), NEXT_COL (drop it and the
 *                               rest of its column), NEXT_ROW (drop it and the rest of the row)
 *   transform_cell(cell)        on each included cell (KeyOnlyFilter strips the value)
 *   filter_row(cells, n)        once the row is assembled; true: drop the row
 *                               (SingleColumnValueFilter, PageFilter's count)
 *   filter_all_remaining()      checked before each row; true: the scan ends
 *
 * Filters: RowFilter, PrefixFilter, ColumnPrefixFilter, QualifierFilter, FamilyFilter,
 * ValueFilter, SingleColumnValueFilter, PageFilter, FirstKeyOnlyFilter, KeyOnlyFilter,
 * TimestampsFilter and FilterList (MUST_PASS_ALL / MUST_PASS_ONE); comparators binary,
 * binaryprefix, substring and regexstring with operators <, <=, =, !=, >=, >.
 * A filter object owns what it is given (comparators, sub-filters) and is used by one
 * scanner at a time. Constructors return NULL only when out of memory (or, for regex,
 * an invalid pattern, with st_error() set). Ownership passes at the call even when it
 * fails: a constructor or filter_list_add that fails frees what it was given, and a
 * constructor given a NULL comparator (a failed comparator_new) returns NULL, so
 * `filter_value_new(CMP_EQUAL, comparator_new(...))` needs no extra cleanup.
 *
 * Semantics follow HBase 2.x (details at the top of filter.c, filter_simple.c,
 * filter_compare.c, comparator.c), except that a filter never answers NEXT_ROW to mean
 * "the rest of this family": Strata's scanner merges all families of a row, so FamilyFilter
 * and ColumnPrefixFilter answer NEXT_COL where HBase answers NEXT_ROW.
 * The parser for HBase's filter language is in filter_parse.h.
 */
#ifndef STRATA_REGIONSERVER_FILTER_H
#define STRATA_REGIONSERVER_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/cell.h"

typedef enum filter_return {
    FILTER_INCLUDE = 0,
    FILTER_SKIP = 1,
    FILTER_NEXT_COL = 2,
    FILTER_NEXT_ROW = 3,
} filter_return;

/* Compare operators (never renumber: they travel over the wire later). */
typedef enum compare_op {
    CMP_LESS = 0,
    CMP_LESS_OR_EQUAL = 1,
    CMP_EQUAL = 2,
    CMP_NOT_EQUAL = 3,
    CMP_GREATER_OR_EQUAL = 4,
    CMP_GREATER = 5,
    CMP_NO_OP = 6,
} compare_op;

typedef enum comparator_type {
    COMPARATOR_BINARY = 0,
    COMPARATOR_BINARY_PREFIX = 1,
    COMPARATOR_SUBSTRING = 2,
    COMPARATOR_REGEX = 3,
} comparator_type;

typedef struct comparator comparator;
typedef struct filter filter;

comparator *comparator_new(comparator_type type, const uint8_t *value, size_t len);
void comparator_free(comparator *c);
/* True when `data op comparator-value` holds (HBase semantics: binary compares the cell
 * bytes to the value; substring/regex support only = and !=). */
bool comparator_matches(const comparator *c, compare_op op, const uint8_t *data, size_t len);

/* Each constructor takes ownership of its comparator / sub-filters. */
filter *filter_row_new(compare_op op, comparator *cmp);
filter *filter_prefix_new(const uint8_t *prefix, size_t len);
filter *filter_column_prefix_new(const uint8_t *prefix, size_t len);
filter *filter_qualifier_new(compare_op op, comparator *cmp);
filter *filter_family_new(compare_op op, comparator *cmp);
filter *filter_value_new(compare_op op, comparator *cmp);
filter *filter_single_column_value_new(const uint8_t *fam, size_t fam_len,
                                       const uint8_t *qual, size_t qual_len, compare_op op,
                                       comparator *cmp, bool filter_if_missing,
                                       bool latest_version_only);
filter *filter_page_new(int64_t page_size);
filter *filter_first_key_only_new(void);
filter *filter_key_only_new(bool len_as_value);
filter *filter_timestamps_new(const int64_t *ts, size_t n);

typedef enum filter_list_op { FILTER_MUST_PASS_ALL = 0, FILTER_MUST_PASS_ONE = 1 } filter_list_op;
filter *filter_list_new(filter_list_op op);
/* Adds child to list (taking ownership; on failure child is freed). ST_OK or ST_NOMEM
 * (ST_INVALID_ARGUMENT if list is not a list or child is NULL). */
int filter_list_add(filter *list, filter *child);

/* The protocol (see top of file). transform may rewrite c's pointers to memory the
 * filter owns until the next call. filter_row with n == 0 returns true without consulting
 * the filter (HBase calls filterRow only for rows that kept cells; PageFilter does not
 * count them). filter_free(NULL) does nothing. */
void filter_reset(filter *f);
bool filter_row_key(filter *f, const uint8_t *row, size_t len);
filter_return filter_cell(filter *f, const cell_t *c);
void filter_transform_cell(filter *f, cell_t *c);
bool filter_row(filter *f, const cell_t *cells, size_t n);
bool filter_all_remaining(filter *f);
void filter_free(filter *f);

#endif
