/*
 * filter.h - server-side scan filters (DESIGN.md §1), following HBase's Filter protocol.
 * docs/filters.md describes every filter, its arguments and its semantics.
 *
 * Before a scan the scanner calls filter_set_reversed(); then, for each row, in order:
 *   reset()                     a new row starts
 *   filter_row_key(row)         true: skip the whole row
 *   filter_cell(cell)           per visible cell (after versions/deletes/TTL/time range):
 *                               INCLUDE, SKIP (drop this cell), NEXT_COL (drop it and the
 *                               rest of its column), NEXT_ROW (drop it and the rest of the
 *                               row), SEEK_HINT (drop it; filter_next_hint says where the
 *                               next cell that can pass is)
 *   transform_cell(cell)        on each included cell (KeyOnlyFilter strips the value)
 *   filter_row_cells(cells, n)  once the row is assembled: may remove cells
 *                               (DependentColumnFilter, SingleColumnValueExcludeFilter)
 *   filter_row(cells, n)        then, if cells remain; true: drop the row
 *                               (SingleColumnValueFilter, PageFilter's count)
 *   filter_all_remaining()      checked before each row; true: the scan ends
 *
 * Filters: RowFilter, PrefixFilter, ColumnPrefixFilter, QualifierFilter, FamilyFilter,
 * ValueFilter, SingleColumnValueFilter, SingleColumnValueExcludeFilter, PageFilter,
 * FirstKeyOnlyFilter, KeyOnlyFilter, TimestampsFilter, ColumnCountGetFilter,
 * ColumnPaginationFilter, ColumnRangeFilter, MultipleColumnPrefixFilter,
 * FirstKeyValueMatchingQualifiersFilter, DependentColumnFilter, ColumnValueFilter,
 * InclusiveStopFilter, MultiRowRangeFilter, FuzzyRowFilter, the wrappers SkipFilter and
 * WhileMatchFilter, and FilterList (MUST_PASS_ALL / MUST_PASS_ONE); comparators binary,
 * binaryprefix, substring and regexstring with operators <, <=, =, !=, >=, >.
 * A filter object owns what it is given (comparators, sub-filters) and is used by one
 * scanner at a time. Constructors return NULL only when out of memory (or, for regex,
 * an invalid pattern, or an invalid argument named in the comment of the constructor,
 * with st_error() set). Ownership passes at the call even when it fails: a constructor
 * or filter_list_add that fails frees what it was given, and a constructor given a NULL
 * comparator or sub-filter (a failed comparator_new) returns NULL, so
 * `filter_value_new(CMP_EQUAL, comparator_new(...))` needs no extra cleanup.
 *
 * Semantics follow HBase 2.x (details at the top of filter.c, filter_simple.c,
 * filter_compare.c, filter_column.c, filter_rows.c, filter_wrap.c, comparator.c), except
 * that a filter never answers NEXT_ROW to mean "the rest of this family": Strata's
 * scanner merges all families of a row, so where HBase answers NEXT_ROW for the rest of
 * one family (FamilyFilter, ColumnPrefixFilter, ColumnRangeFilter,
 * MultipleColumnPrefixFilter) Strata answers NEXT_COL or seeks to the next family.
 * HBase's INCLUDE_AND_NEXT_COL is not an answer here: ColumnCountGetFilter and
 * ColumnPaginationFilter include the first version of a column and answer NEXT_COL for
 * the versions after it, which keeps the same cells.
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
    FILTER_SEEK_HINT = 4, /* drop this cell; see filter_next_hint */
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
/* SingleColumnValueFilter that also removes the tested column from the rows it keeps. */
filter *filter_single_column_value_exclude_new(const uint8_t *fam, size_t fam_len,
                                               const uint8_t *qual, size_t qual_len, compare_op op,
                                               comparator *cmp, bool filter_if_missing,
                                               bool latest_version_only);
/* The first `limit` columns of each row; once a row has more, the scan ends after them
 * (HBase's ColumnCountGetFilter, meant for Gets). limit < 0 is ST_INVALID_ARGUMENT. */
filter *filter_column_count_get_new(int32_t limit);
/* Columns offset .. offset+limit-1 of each row (counted across its families). Negative
 * limit or offset is ST_INVALID_ARGUMENT. */
filter *filter_column_pagination_new(int32_t limit, int32_t offset);
/* The same starting at the first column whose qualifier is >= column (seeks to it);
 * HBase's Java form ColumnPaginationFilter(limit, columnOffset). */
filter *filter_column_pagination_at_new(int32_t limit, const uint8_t *column, size_t len);
/* Cells whose qualifier lies between min and max; a NULL bound (or has_* false) is open.
 * Seeks to min, and past the family once beyond max. */
filter *filter_column_range_new(const uint8_t *min, size_t min_len, bool has_min,
                                bool min_inclusive, const uint8_t *max, size_t max_len,
                                bool has_max, bool max_inclusive);
/* Cells whose qualifier starts with any of n prefixes (none: every cell); seeks to the
 * next prefix. A repeated prefix is ST_INVALID_ARGUMENT. */
filter *filter_multiple_column_prefix_new(const uint8_t *const *prefixes, const size_t *lens,
                                          size_t n);
/* Each row's cells up to and including the first whose qualifier is one of the n. */
filter *filter_first_key_value_matching_qualifiers_new(const uint8_t *const *quals,
                                                       const size_t *lens, size_t n);
/* Keeps the cells of a row whose timestamp is that of a version of fam:qual that
 * passes `op cmp` (cmp NULL with CMP_NO_OP: every version passes); drop removes that
 * column itself. */
filter *filter_dependent_column_new(const uint8_t *fam, size_t fam_len, const uint8_t *qual,
                                    size_t qual_len, bool drop, compare_op op, comparator *cmp);
/* Only the versions of fam:qual whose value passes `op cmp` (HBase 2's ColumnValueFilter). */
filter *filter_column_value_new(const uint8_t *fam, size_t fam_len, const uint8_t *qual,
                                size_t qual_len, compare_op op, comparator *cmp);
/* Rows up to and including stop (reversed: down to and including it); then the scan ends. */
filter *filter_inclusive_stop_new(const uint8_t *stop, size_t len);

/* One row range of MultiRowRangeFilter; an empty start or stop is unbounded. */
typedef struct filter_row_range {
    const uint8_t *start;
    size_t start_len;
    bool start_inclusive;
    const uint8_t *stop;
    size_t stop_len;
    bool stop_inclusive;
} filter_row_range;
/* Rows in any of the n ranges (copied, sorted and merged); seeks to the next range.
 * n == 0, or a range whose start sorts after its stop (or equals an exclusive stop), is
 * ST_INVALID_ARGUMENT naming the range. */
filter *filter_multi_row_range_new(const filter_row_range *ranges, size_t n);
/* Rows matching any of n (key, mask) pairs: mask[i] 0 means the row's byte i must be
 * key[i], 1 that it may be anything; a row shorter than a key is compared on its length
 * (HBase's rule). Seeks to the next row that can match. Different key and mask lengths,
 * a mask byte other than 0 or 1, or n == 0 is ST_INVALID_ARGUMENT. */
filter *filter_fuzzy_row_new(const uint8_t *const *keys, const uint8_t *const *masks,
                             const size_t *lens, size_t n);
/* SKIP: drops a whole row as soon as inner answers anything but INCLUDE for one of its
 * cells. inner's row key and row decisions are not asked (as HBase's SkipFilter). */
filter *filter_skip_new(filter *inner);
/* WHILE: ends the scan at the first cell, row key or row that inner refuses (cells of
 * that row before it are still returned). */
filter *filter_while_new(filter *inner);

typedef enum filter_list_op { FILTER_MUST_PASS_ALL = 0, FILTER_MUST_PASS_ONE = 1 } filter_list_op;
filter *filter_list_new(filter_list_op op);
/* Adds child to list (taking ownership; on failure child is freed). ST_OK or ST_NOMEM
 * (ST_INVALID_ARGUMENT if list is not a list or child is NULL). */
int filter_list_add(filter *list, filter *child);

/* The protocol (see top of file). transform may rewrite c's pointers to memory the
 * filter owns until the next call. filter_row_cells compacts cells in place, keeping
 * their order, and returns how many remain. filter_row with n == 0 returns true without
 * consulting the filter (HBase calls filterRow only for rows that kept cells; PageFilter
 * does not count them). filter_free(NULL) does nothing. */
void filter_reset(filter *f);
bool filter_row_key(filter *f, const uint8_t *row, size_t len);
filter_return filter_cell(filter *f, const cell_t *c);
void filter_transform_cell(filter *f, cell_t *c);
size_t filter_row_cells(filter *f, cell_t *cells, size_t n);
bool filter_row(filter *f, const cell_t *cells, size_t n);
bool filter_all_remaining(filter *f);
void filter_free(filter *f);

/* Tells f (and its sub-filters) the scan's direction; false (forward) until called.
 * Row filters need it (InclusiveStopFilter, MultiRowRangeFilter, FuzzyRowFilter). */
void filter_set_reversed(filter *f, bool reversed);

/* After filter_cell(f, c) answered FILTER_SEEK_HINT: sets *hint to a seek key (a view of
 * memory f owns until the next call on f) and returns true; false when f has none (treat
 * the answer as SKIP). Hints are first-on-row or first-on-column keys (cell.h).
 *   forward scans, and hints in c's row: no cell after c and before *hint can pass.
 *   reversed scans, a hint in an earlier row: no cell from *hint up to c can pass; the
 *     scan goes on with the row of the last cell that sorts before *hint.
 * A scanner may ignore a hint and go on as for SKIP: each filter answers correctly for
 * the cells a hint would have skipped (tests drive them that way), though in a list a
 * sibling that keeps state across cells (WHILE, FirstKeyOnlyFilter, the counting
 * filters) then sees cells a seek would have hidden from it, as HBase's would. */
bool filter_next_hint(filter *f, cell_t *hint);

#endif
