/*
 * filter_parse.h - HBase's filter language (the shell's and REST's filter strings);
 * docs/filters.md is the reference, with every filter and its semantics.
 *
 * Grammar (SKIP and WHILE bind tighter than AND, AND tighter than OR; names and the
 * operators AND, OR, SKIP and WHILE are case-sensitive as in HBase):
 *   expr     := and_expr { "OR" and_expr }
 *   and_expr := unary { "AND" unary }
 *   unary    := "SKIP" unary | "WHILE" unary | primary
 *   primary  := "(" expr ")" | Name "(" [ arg { "," arg } ] ")"
 *   arg      := 'string' (a quote inside is written '') | compare op (< <= = != >= >)
 *             | true | false (any case) | integer
 * A comparator argument is a string 'type:value' with type binary, binaryprefix,
 * substring or regexstring (everything after the first ':' is the value); substring and
 * regexstring take only = and !=.
 * Filters (see filter.h), as HBase 2.x's ParseFilter takes them:
 *   RowFilter, FamilyFilter, QualifierFilter, ValueFilter (op, cmp);
 *   PrefixFilter('p'), ColumnPrefixFilter('p'), InclusiveStopFilter('row');
 *   SingleColumnValueFilter and SingleColumnValueExcludeFilter ('fam', 'qual', op, cmp
 *     [, filter_if_missing, latest_version_only]) (defaults false, true);
 *   PageFilter(n >= 0), ColumnCountGetFilter(n), ColumnPaginationFilter(limit, offset)
 *     (counts 0 .. 2^31-1);
 *   FirstKeyOnlyFilter(), KeyOnlyFilter([len_as_value]), TimestampsFilter(ts, ...) (ts >= 0);
 *   ColumnRangeFilter('min', min_incl, 'max', max_incl) ('' is unbounded);
 *   MultipleColumnPrefixFilter('p', ...) (distinct);
 *   DependentColumnFilter('fam', 'qual'[, drop[, op, cmp]]);
 *   ColumnValueFilter('fam', 'qual', op, cmp);
 * and three that HBase's parser lacks (its Java API has them):
 *   FirstKeyValueMatchingQualifiersFilter('q', ...);
 *   MultiRowRangeFilter('start', start_incl, 'stop', stop_incl, ...) (one group of four
 *     per range, '' unbounded);
 *   FuzzyRowFilter('key', 'mask', ...) (pairs; the mask is as long as its key, '0' for a
 *     fixed byte and '1' for any byte).
 * "a AND b AND c" becomes one MUST_PASS_ALL list of three, "a OR b" a MUST_PASS_ONE list;
 * a lone filter is returned as itself; "SKIP a" a SkipFilter, "WHILE a" a WhileMatchFilter.
 *
 * Example: "(PrefixFilter('a') OR PrefixFilter('b')) AND KeyOnlyFilter()".
 * Thread-safety: reentrant.
 */
#ifndef STRATA_REGIONSERVER_FILTER_PARSE_H
#define STRATA_REGIONSERVER_FILTER_PARSE_H

#include "regionserver/storage/filter.h"

/* Parses text into a new filter (*out, owned by the caller, freed with filter_free).
 * Returns ST_OK; ST_INVALID_ARGUMENT for malformed input (unknown filter name, wrong
 * argument count or type, bad comparator or regex, unterminated string, unbalanced
 * parentheses, nesting deeper than 64, trailing characters) or ST_NOMEM. On failure
 * *out is NULL and st_errmsg() names the problem and its position: "... at position N
 * (near "...")", N a 0-based byte offset into text; an argument error names the filter
 * and the argument. */
int filter_parse(const char *text, filter **out);

#endif
