/*
 * filter_parse.h - HBase's filter language (the shell's and REST's filter strings).
 *
 * Grammar (AND binds tighter than OR; names, AND and OR are case-sensitive as in HBase):
 *   expr     := and_expr { "OR" and_expr }
 *   and_expr := primary { "AND" primary }
 *   primary  := "(" expr ")" | Name "(" [ arg { "," arg } ] ")"
 *   arg      := 'string' (a quote inside is written '') | compare op (< <= = != >= >)
 *             | true | false (any case) | integer
 * A comparator argument is a string 'type:value' with type binary, binaryprefix,
 * substring or regexstring (everything after the first ':' is the value); substring and
 * regexstring take only = and !=.
 * Filters (see filter.h): RowFilter(op, cmp), FamilyFilter(op, cmp),
 * QualifierFilter(op, cmp), ValueFilter(op, cmp), PrefixFilter('p'),
 * ColumnPrefixFilter('p'), SingleColumnValueFilter('fam', 'qual', op, cmp
 * [, filter_if_missing, latest_version_only]) (defaults false, true), PageFilter(n >= 0),
 * FirstKeyOnlyFilter(), KeyOnlyFilter([len_as_value]), TimestampsFilter(ts, ...) (ts >= 0).
 * "a AND b AND c" becomes one MUST_PASS_ALL list of three, "a OR b" a MUST_PASS_ONE list;
 * a lone filter is returned as itself.
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
 * parentheses, trailing characters), ST_UNSUPPORTED for the SKIP and WHILE operators,
 * or ST_NOMEM. On failure *out is NULL and st_errmsg() names the problem and its
 * position: "... at position N (near "...")", N a 0-based byte offset into text. */
int filter_parse(const char *text, filter **out);

#endif
