/*
 * rest_filter.c - HBase REST's JSON filter form (ScannerModel.FilterModel: {"type":
 * "PrefixFilter","value":"<base64>"}, {"type":"FilterList","op":"MUST_PASS_ALL",
 * "filters":[...]} ...) turned into Strata's filter language (filter_parse.h), which the
 * region servers evaluate.
 *
 * Mapped: RowFilter, FamilyFilter, QualifierFilter, ValueFilter (Binary,
 * BinaryPrefix, Substring and RegexString comparators), PrefixFilter, ColumnPrefixFilter,
 * SingleColumnValueFilter, SingleColumnValueExcludeFilter, PageFilter, FirstKeyOnlyFilter,
 * KeyOnlyFilter, TimestampsFilter, ColumnCountGetFilter, ColumnPaginationFilter (limit and
 * offset), DependentColumnFilter, SkipFilter (SKIP), WhileMatchFilter (WHILE),
 * FuzzyRowFilter, FilterList, and by equivalent expressions ColumnRangeFilter
 * (QualifierFilter bounds), MultipleColumnPrefixFilter (ColumnPrefixFilters OR'ed),
 * MultiRowRangeFilter (RowFilter ranges OR'ed) and InclusiveStopFilter (a RowFilter bound).
 * The other filters and comparators (RandomRowFilter, BitComparator, NullComparator, ...)
 * are refused as unsupported, naming them.
 * Thread-safety: reentrant.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/base64.h"
#include "common/http/json_value.h"
#include "common/status.h"
#include "rest/rest_internal.h"

#define MAX_FILTER_DEPTH 32

static int put(buf_t *b, const char *s)
{
    return buf_append(b, s, strlen(s)) == ST_OK ? ST_OK
                                                : st_error(ST_NOMEM, "out of memory writing a filter");
}

/* Appends 'bytes' quoted for the filter language (a quote doubled); NUL cannot be carried. */
static int quoted(buf_t *b, const void *p, size_t n, const char *what)
{
    const char *s = p;
    if (n && memchr(s, 0, n)) /* s is NULL for an empty value */
        return st_error(ST_INVALID_ARGUMENT,
                        "%s holds a zero byte, which Strata's filter language cannot carry", what);
    int rc = put(b, "'");
    for (size_t i = 0; rc == ST_OK && i < n; i++)
        rc = s[i] == '\'' ? put(b, "''")
                          : (buf_append_u8(b, (uint8_t)s[i]) == ST_OK
                                 ? ST_OK
                                 : st_error(ST_NOMEM, "out of memory writing a filter"));
    return rc == ST_OK ? put(b, "'") : rc;
}

/* A member that must be a string (or absent when optional). */
static const char *str_member(const json_value *f, const char *name, size_t *len)
{
    *len = 0;
    const json_value *v = json_value_member(f, name);
    if (!v || v->type != JSON_STRING)
        return NULL;
    *len = v->len;
    return v->str;
}

static int need_str(const json_value *f, const char *type, const char *name, const char **s,
                    size_t *len)
{
    *s = str_member(f, name, len);
    if (!*s)
        return st_error(ST_INVALID_ARGUMENT, "%s needs a string \"%s\"", type, name);
    return ST_OK;
}

/* Decodes base64 member name of f into b. */
static int b64_member(const json_value *f, const char *type, const char *name, buf_t *b)
{
    const char *s = NULL;
    size_t len = 0;
    int rc = need_str(f, type, name, &s, &len);
    if (rc == ST_OK && base64_decode(b, s, len) != ST_OK)
        rc = st_error(ST_INVALID_ARGUMENT, "%s: \"%s\" is not valid base64: %s", type, name,
                      st_errmsg());
    return rc;
}

static int compare_op(const json_value *f, const char *type, const char **out)
{
    static const struct {
        const char *hbase;
        const char *strata;
    } ops[] = {{"LESS", "<"},          {"LESS_OR_EQUAL", "<="},    {"EQUAL", "="},
               {"NOT_EQUAL", "!="},    {"GREATER_OR_EQUAL", ">="}, {"GREATER", ">"}};
    size_t len;
    const char *op = str_member(f, "op", &len);
    if (!op)
        return st_error(ST_INVALID_ARGUMENT, "%s needs an \"op\" (LESS, EQUAL, GREATER ...)", type);
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (strcmp(op, ops[i].hbase) == 0) {
            *out = ops[i].strata;
            return ST_OK;
        }
    if (strcmp(op, "NO_OP") == 0)
        return st_error(ST_UNSUPPORTED, "%s: the NO_OP comparison is not supported", type);
    return st_error(ST_INVALID_ARGUMENT, "%s: op '%s' is not a comparison (LESS, LESS_OR_EQUAL, "
                                         "EQUAL, NOT_EQUAL, GREATER_OR_EQUAL, GREATER)",
                    type, op);
}

/* The comparator as the filter language's quoted 'type:value'. */
static int comparator(const json_value *f, const char *type, buf_t *b)
{
    const json_value *c = json_value_member(f, "comparator");
    if (!c || c->type != JSON_OBJECT)
        return st_error(ST_INVALID_ARGUMENT, "%s needs a \"comparator\" object", type);
    size_t len;
    const char *ct = str_member(c, "type", &len);
    if (!ct)
        return st_error(ST_INVALID_ARGUMENT, "%s: the comparator needs a \"type\"", type);
    buf_t v = {0};
    const char *prefix = NULL;
    int rc = ST_OK;
    if (strcmp(ct, "BinaryComparator") == 0 || strcmp(ct, "BinaryPrefixComparator") == 0) {
        prefix = ct[6] == 'P' ? "binaryprefix:" : "binary:";
        rc = b64_member(c, ct, "value", &v);
    } else if (strcmp(ct, "SubstringComparator") == 0 || strcmp(ct, "RegexStringComparator") == 0) {
        prefix = ct[0] == 'S' ? "substring:" : "regexstring:";
        const char *s;
        rc = need_str(c, ct, "value", &s, &len);
        if (rc == ST_OK && buf_append(&v, s, len) != ST_OK)
            rc = st_error(ST_NOMEM, "out of memory writing a filter");
    } else if (strcmp(ct, "BitComparator") == 0 || strcmp(ct, "NullComparator") == 0) {
        rc = st_error(ST_UNSUPPORTED, "%s: the %s is not supported by Strata", type, ct);
    } else {
        rc = st_error(ST_INVALID_ARGUMENT, "%s: unknown comparator type '%s'", type, ct);
    }
    if (rc == ST_OK) {
        buf_t all = {0};
        if (buf_append(&all, prefix, strlen(prefix)) != ST_OK ||
            buf_append(&all, v.data, v.len) != ST_OK)
            rc = st_error(ST_NOMEM, "out of memory writing a filter");
        if (rc == ST_OK)
            rc = quoted(b, all.data, all.len, type);
        buf_free(&all);
    }
    buf_free(&v);
    return rc;
}

static int build(const json_value *f, bool reversed, int depth, buf_t *b, bool *empty);

/* One bound: <kind>(<op>, 'binary:<bytes>'). */
static int bound(buf_t *b, const char *kind, const char *op, const buf_t *v, const char *type)
{
    int rc = put(b, kind);
    if (rc == ST_OK)
        rc = put(b, "(");
    if (rc == ST_OK)
        rc = put(b, op);
    if (rc == ST_OK)
        rc = put(b, ", ");
    buf_t q = {0};
    if (rc == ST_OK && (buf_append(&q, "binary:", 7) != ST_OK || buf_append(&q, v->data, v->len) != ST_OK))
        rc = st_error(ST_NOMEM, "out of memory writing a filter");
    if (rc == ST_OK)
        rc = quoted(b, q.data, q.len, type);
    buf_free(&q);
    return rc == ST_OK ? put(b, ")") : rc;
}

/* A range [lo, hi) (inclusive flags as given; an absent or empty end is unbounded) as
 * bounds of kind joined by AND; *empty when both ends are unbounded. */
static int range(const json_value *f, const char *type, const char *lo_name, const char *hi_name,
                 const char *lo_incl_name, const char *hi_incl_name, const char *kind, buf_t *b,
                 bool *empty)
{
    if (!f || f->type != JSON_OBJECT)
        return st_error(ST_INVALID_ARGUMENT, "%s: a range is a JSON object", type);
    buf_t lo = {0}, hi = {0};
    bool lo_incl = true, hi_incl = false;
    int rc = ST_OK;
    const json_value *m = json_value_member(f, lo_name);
    if (m && m->type != JSON_NULL)
        rc = b64_member(f, type, lo_name, &lo);
    m = json_value_member(f, hi_name);
    if (rc == ST_OK && m && m->type != JSON_NULL)
        rc = b64_member(f, type, hi_name, &hi);
    m = json_value_member(f, lo_incl_name);
    if (rc == ST_OK && m && m->type != JSON_NULL && !json_value_bool(m, &lo_incl))
        rc = st_error(ST_INVALID_ARGUMENT, "%s: %s must be true or false", type, lo_incl_name);
    m = json_value_member(f, hi_incl_name);
    if (rc == ST_OK && m && m->type != JSON_NULL && !json_value_bool(m, &hi_incl))
        rc = st_error(ST_INVALID_ARGUMENT, "%s: %s must be true or false", type, hi_incl_name);
    if (rc == ST_OK && lo.len)
        rc = bound(b, kind, lo_incl ? ">=" : ">", &lo, type);
    if (rc == ST_OK && lo.len && hi.len)
        rc = put(b, " AND ");
    if (rc == ST_OK && hi.len)
        rc = bound(b, kind, hi_incl ? "<=" : "<", &hi, type);
    *empty = rc == ST_OK && !lo.len && !hi.len;
    buf_free(&lo);
    buf_free(&hi);
    return rc;
}

/* A list of sub-filters joined by AND / OR, each in parentheses; empty ones are left out
 * (an empty one in an OR makes the whole list empty). */
static int join(const json_value *list, const char *type, const char *glue, bool reversed,
                int depth, buf_t *b, bool *empty)
{
    if (!list || list->type != JSON_ARRAY)
        return st_error(ST_INVALID_ARGUMENT, "%s needs a \"filters\" array", type);
    size_t written = 0;
    bool all = false; /* an OR member passes everything: so does the OR (as in HBase) */
    int rc = ST_OK;
    for (size_t i = 0; rc == ST_OK && i < list->n; i++) {
        buf_t sub = {0};
        bool sub_empty = false;
        rc = build(list->items[i], reversed, depth + 1, &sub, &sub_empty);
        all = all || (rc == ST_OK && sub_empty && strcmp(glue, " OR ") == 0);
        if (rc == ST_OK && !sub_empty) {
            rc = put(b, written ? glue : "(");
            if (rc == ST_OK && written)
                rc = put(b, "(");
            if (rc == ST_OK && buf_append(b, sub.data, sub.len) != ST_OK)
                rc = st_error(ST_NOMEM, "out of memory writing a filter");
            if (rc == ST_OK)
                rc = put(b, ")");
            written++;
        }
        buf_free(&sub);
    }
    *empty = written == 0 || all;
    return rc;
}

/* <type>(n[, m]) from the integer members a (and b); both >= 0. */
static int limit_filter(const json_value *f, const char *type, const char *a, const char *bn,
                        buf_t *b)
{
    int64_t x = 0, y = 0;
    if (!json_value_int64(json_value_member(f, a), &x) || x < 0)
        return st_error(ST_INVALID_ARGUMENT, "%s needs \"%s\", an integer >= 0", type, a);
    if (bn && (!json_value_int64(json_value_member(f, bn), &y) || y < 0))
        return st_error(ST_INVALID_ARGUMENT, "%s needs \"%s\", an integer >= 0", type, bn);
    char text[128];
    if (bn)
        snprintf(text, sizeof(text), "%s(%lld, %lld)", type, (long long)x, (long long)y);
    else
        snprintf(text, sizeof(text), "%s(%lld)", type, (long long)x);
    return put(b, text);
}

/* DependentColumnFilter('family', 'qualifier', drop[, op, 'comparator']). */
static int dependent_column(const json_value *f, const char *type, buf_t *b)
{
    buf_t fam = {0}, qual = {0};
    bool drop = false;
    const char *op = NULL;
    int rc = b64_member(f, type, "family", &fam);
    const json_value *m = json_value_member(f, "qualifier");
    if (rc == ST_OK && m && m->type != JSON_NULL)
        rc = b64_member(f, type, "qualifier", &qual);
    m = json_value_member(f, "dropDependentColumn");
    if (rc == ST_OK && m && m->type != JSON_NULL && !json_value_bool(m, &drop))
        rc = st_error(ST_INVALID_ARGUMENT, "%s: dropDependentColumn must be true or false", type);
    bool compare = json_value_member(f, "comparator") != NULL;
    if (rc == ST_OK && compare)
        rc = compare_op(f, type, &op);
    if (rc == ST_OK)
        rc = put(b, "DependentColumnFilter(");
    if (rc == ST_OK)
        rc = quoted(b, fam.data, fam.len, type);
    if (rc == ST_OK)
        rc = put(b, ", ");
    if (rc == ST_OK)
        rc = quoted(b, qual.data, qual.len, type);
    if (rc == ST_OK)
        rc = put(b, drop ? ", true" : ", false");
    if (rc == ST_OK && compare) {
        rc = put(b, ", ");
        if (rc == ST_OK)
            rc = put(b, op);
        if (rc == ST_OK)
            rc = put(b, ", ");
        if (rc == ST_OK)
            rc = comparator(f, type, b);
    }
    if (rc == ST_OK)
        rc = put(b, ")");
    buf_free(&fam);
    buf_free(&qual);
    return rc;
}

/* FuzzyRowFilter('key', 'mask', ...) from "fuzzyKeys": [{"key": b64, "value": b64}, ...],
 * HBase's mask bytes (0 fixed, 1 any) written as the characters '0' and '1'; a key byte
 * under a 1 does not matter and is written as '?', so only fixed bytes must not be 0. */
static int fuzzy_row(const json_value *f, const char *type, buf_t *b)
{
    const json_value *keys = json_value_member(f, "fuzzyKeys");
    if (!keys || keys->type != JSON_ARRAY || keys->n == 0)
        return st_error(ST_INVALID_ARGUMENT, "%s needs a non-empty \"fuzzyKeys\" array", type);
    int rc = put(b, "FuzzyRowFilter(");
    buf_t k = {0}, m = {0};
    for (size_t i = 0; rc == ST_OK && i < keys->n; i++) {
        buf_reset(&k);
        buf_reset(&m);
        const json_value *p = keys->items[i];
        rc = p && p->type == JSON_OBJECT
                 ? ST_OK
                 : st_error(ST_INVALID_ARGUMENT, "%s: fuzzy key %zu is not an object", type, i);
        if (rc == ST_OK)
            rc = b64_member(p, type, "key", &k);
        if (rc == ST_OK)
            rc = b64_member(p, type, "value", &m);
        if (rc == ST_OK && k.len != m.len)
            rc = st_error(ST_INVALID_ARGUMENT,
                          "%s: fuzzy key %zu has %zu bytes and a mask of %zu", type, i, k.len,
                          m.len);
        for (size_t j = 0; rc == ST_OK && j < m.len; j++) {
            if (m.data[j] > 1)
                rc = st_error(ST_INVALID_ARGUMENT,
                              "%s: fuzzy key %zu: mask byte %zu is %u, not 0 or 1", type, i, j,
                              m.data[j]);
            else if (m.data[j] == 1)
                k.data[j] = '?';
            m.data[j] = (uint8_t)('0' + m.data[j]);
        }
        if (rc == ST_OK && i)
            rc = put(b, ", ");
        if (rc == ST_OK)
            rc = quoted(b, k.data, k.len, type);
        if (rc == ST_OK)
            rc = put(b, ", ");
        if (rc == ST_OK)
            rc = quoted(b, m.data, m.len, type);
    }
    if (rc == ST_OK)
        rc = put(b, ")");
    buf_free(&k);
    buf_free(&m);
    return rc;
}

static int build(const json_value *f, bool reversed, int depth, buf_t *b, bool *empty)
{
    *empty = false;
    if (depth > MAX_FILTER_DEPTH)
        return st_error(ST_INVALID_ARGUMENT, "filter nesting deeper than %d", MAX_FILTER_DEPTH);
    if (!f || f->type != JSON_OBJECT)
        return st_error(ST_INVALID_ARGUMENT, "a filter is a JSON object with a \"type\"");
    size_t len;
    const char *type = str_member(f, "type", &len);
    if (!type)
        return st_error(ST_INVALID_ARGUMENT, "a filter needs a string \"type\"");
    const char *op = NULL;
    int rc = ST_OK;
    buf_t v = {0};
    if (strcmp(type, "RowFilter") == 0 || strcmp(type, "FamilyFilter") == 0 ||
        strcmp(type, "QualifierFilter") == 0 || strcmp(type, "ValueFilter") == 0) {
        rc = compare_op(f, type, &op);
        if (rc == ST_OK)
            rc = put(b, type);
        if (rc == ST_OK)
            rc = put(b, "(");
        if (rc == ST_OK)
            rc = put(b, op);
        if (rc == ST_OK)
            rc = put(b, ", ");
        if (rc == ST_OK)
            rc = comparator(f, type, b);
        if (rc == ST_OK)
            rc = put(b, ")");
    } else if (strcmp(type, "PrefixFilter") == 0 || strcmp(type, "ColumnPrefixFilter") == 0) {
        rc = b64_member(f, type, "value", &v);
        if (rc == ST_OK)
            rc = put(b, type);
        if (rc == ST_OK)
            rc = put(b, "(");
        if (rc == ST_OK)
            rc = quoted(b, v.data, v.len, type);
        if (rc == ST_OK)
            rc = put(b, ")");
    } else if (strcmp(type, "InclusiveStopFilter") == 0) {
        rc = b64_member(f, type, "value", &v);
        if (rc == ST_OK)
            rc = put(b, reversed ? "RowFilter(>=, " : "RowFilter(<=, ");
        if (rc == ST_OK) {
            buf_t q = {0};
            if (buf_append(&q, "binary:", 7) != ST_OK || buf_append(&q, v.data, v.len) != ST_OK)
                rc = st_error(ST_NOMEM, "out of memory writing a filter");
            if (rc == ST_OK)
                rc = quoted(b, q.data, q.len, type);
            buf_free(&q);
        }
        if (rc == ST_OK)
            rc = put(b, ")");
    } else if (strcmp(type, "PageFilter") == 0) {
        const json_value *pv = json_value_member(f, "value");
        int64_t n = 0;
        if (!json_value_int64(pv, &n) || n < 0)
            rc = st_error(ST_INVALID_ARGUMENT, "PageFilter needs a \"value\" that is a page size "
                                               ">= 0");
        char num[64];
        snprintf(num, sizeof(num), "PageFilter(%lld)", (long long)n);
        if (rc == ST_OK)
            rc = put(b, num);
    } else if (strcmp(type, "FirstKeyOnlyFilter") == 0 || strcmp(type, "KeyOnlyFilter") == 0) {
        rc = put(b, type);
        if (rc == ST_OK)
            rc = put(b, "()");
    } else if (strcmp(type, "TimestampsFilter") == 0) {
        const json_value *ts = json_value_member(f, "timestamps");
        if (!ts || ts->type != JSON_ARRAY || ts->n == 0)
            rc = st_error(ST_INVALID_ARGUMENT, "TimestampsFilter needs a non-empty \"timestamps\" "
                                               "array");
        if (rc == ST_OK)
            rc = put(b, "TimestampsFilter(");
        for (size_t i = 0; rc == ST_OK && i < ts->n; i++) {
            int64_t t = 0;
            if (!json_value_int64(ts->items[i], &t) || t < 0) {
                rc = st_error(ST_INVALID_ARGUMENT, "TimestampsFilter: timestamp %zu is not a "
                                                   "non-negative integer",
                              i);
                break;
            }
            char num[40];
            snprintf(num, sizeof(num), "%s%lld", i ? ", " : "", (long long)t);
            rc = put(b, num);
        }
        if (rc == ST_OK)
            rc = put(b, ")");
    } else if (strcmp(type, "SingleColumnValueFilter") == 0 ||
               strcmp(type, "SingleColumnValueExcludeFilter") == 0) {
        buf_t q = {0};
        rc = b64_member(f, type, "family", &v);
        const json_value *jq = json_value_member(f, "qualifier");
        if (rc == ST_OK && jq && jq->type != JSON_NULL)
            rc = b64_member(f, type, "qualifier", &q);
        if (rc == ST_OK)
            rc = compare_op(f, type, &op);
        bool if_missing = false, latest = true;
        const json_value *m = json_value_member(f, "ifMissing");
        if (rc == ST_OK && m && m->type != JSON_NULL && !json_value_bool(m, &if_missing))
            rc = st_error(ST_INVALID_ARGUMENT, "%s: ifMissing must be true or false", type);
        m = json_value_member(f, "latestVersion");
        if (rc == ST_OK && m && m->type != JSON_NULL && !json_value_bool(m, &latest))
            rc = st_error(ST_INVALID_ARGUMENT, "%s: latestVersion must be true or false", type);
        if (rc == ST_OK)
            rc = put(b, type);
        if (rc == ST_OK)
            rc = put(b, "(");
        if (rc == ST_OK)
            rc = quoted(b, v.data, v.len, type);
        if (rc == ST_OK)
            rc = put(b, ", ");
        if (rc == ST_OK)
            rc = quoted(b, q.data, q.len, type);
        if (rc == ST_OK)
            rc = put(b, ", ");
        if (rc == ST_OK)
            rc = put(b, op);
        if (rc == ST_OK)
            rc = put(b, ", ");
        if (rc == ST_OK)
            rc = comparator(f, type, b);
        if (rc == ST_OK)
            rc = put(b, if_missing ? ", true" : ", false");
        if (rc == ST_OK)
            rc = put(b, latest ? ", true)" : ", false)");
        buf_free(&q);
    } else if (strcmp(type, "FilterList") == 0) {
        size_t ol;
        const char *lop = str_member(f, "op", &ol);
        if (!lop || (strcmp(lop, "MUST_PASS_ALL") != 0 && strcmp(lop, "MUST_PASS_ONE") != 0))
            rc = st_error(ST_INVALID_ARGUMENT, "FilterList needs an \"op\": MUST_PASS_ALL or "
                                               "MUST_PASS_ONE");
        if (rc == ST_OK)
            rc = join(json_value_member(f, "filters"), type,
                      strcmp(lop, "MUST_PASS_ALL") == 0 ? " AND " : " OR ", reversed, depth, b,
                      empty);
    } else if (strcmp(type, "MultipleColumnPrefixFilter") == 0) {
        const json_value *pv = json_value_member(f, "prefixes");
        if (!pv || pv->type != JSON_ARRAY)
            rc = st_error(ST_INVALID_ARGUMENT, "%s needs a \"prefixes\" array", type);
        for (size_t i = 0; rc == ST_OK && i < pv->n; i++) {
            buf_reset(&v);
            if (pv->items[i]->type != JSON_STRING ||
                base64_decode(&v, pv->items[i]->str, pv->items[i]->len) != ST_OK) {
                rc = st_error(ST_INVALID_ARGUMENT, "%s: prefix %zu is not a base64 string", type, i);
                break;
            }
            rc = put(b, i ? " OR ColumnPrefixFilter(" : "ColumnPrefixFilter(");
            if (rc == ST_OK)
                rc = quoted(b, v.data, v.len, type);
            if (rc == ST_OK)
                rc = put(b, ")");
        }
        *empty = rc == ST_OK && pv->n == 0;
    } else if (strcmp(type, "ColumnRangeFilter") == 0) {
        rc = range(f, type, "minColumn", "maxColumn", "minColumnInclusive", "maxColumnInclusive",
                   "QualifierFilter", b, empty);
    } else if (strcmp(type, "MultiRowRangeFilter") == 0) {
        const json_value *rv = json_value_member(f, "ranges");
        if (!rv || rv->type != JSON_ARRAY)
            rc = st_error(ST_INVALID_ARGUMENT, "%s needs a \"ranges\" array", type);
        bool unbounded = false; /* a range over every row: the filter passes everything */
        for (size_t i = 0; rc == ST_OK && i < rv->n; i++) {
            buf_t one = {0};
            bool one_empty = false;
            rc = range(rv->items[i], type, "startRow", "stopRow", "startRowInclusive",
                       "stopRowInclusive", "RowFilter", &one, &one_empty);
            unbounded = unbounded || one_empty;
            if (rc == ST_OK && !one_empty) {
                rc = put(b, i ? " OR (" : "(");
                if (rc == ST_OK && buf_append(b, one.data, one.len) != ST_OK)
                    rc = st_error(ST_NOMEM, "out of memory writing a filter");
                if (rc == ST_OK)
                    rc = put(b, ")");
            }
            buf_free(&one);
        }
        if (rc == ST_OK && rv->n == 0)
            rc = st_error(ST_INVALID_ARGUMENT, "%s needs at least one range", type);
        if (rc == ST_OK && unbounded) {
            buf_reset(b);
            *empty = true;
        }
    } else if (strcmp(type, "ColumnCountGetFilter") == 0) {
        rc = limit_filter(f, type, "limit", NULL, b);
    } else if (strcmp(type, "ColumnPaginationFilter") == 0) {
        const json_value *co = json_value_member(f, "value");
        if (co && co->type != JSON_NULL)
            rc = st_error(ST_UNSUPPORTED, "%s: a column offset (\"value\") is not supported by "
                                          "Strata; give \"offset\"",
                          type);
        else
            rc = limit_filter(f, type, "limit", "offset", b);
    } else if (strcmp(type, "DependentColumnFilter") == 0) {
        rc = dependent_column(f, type, b);
    } else if (strcmp(type, "SkipFilter") == 0 || strcmp(type, "WhileMatchFilter") == 0) {
        const json_value *list = json_value_member(f, "filters");
        if (!list || list->type != JSON_ARRAY || list->n != 1)
            rc = st_error(ST_INVALID_ARGUMENT, "%s needs a \"filters\" array of one filter",
                          type);
        buf_t sub = {0};
        bool sub_empty = false;
        if (rc == ST_OK)
            rc = build(list->items[0], reversed, depth + 1, &sub, &sub_empty);
        /* SKIP or WHILE of a filter that passes everything passes everything */
        if (rc == ST_OK && sub_empty)
            *empty = true;
        if (rc == ST_OK && !sub_empty)
            rc = put(b, type[0] == 'S' ? "SKIP (" : "WHILE (");
        if (rc == ST_OK && !sub_empty && buf_append(b, sub.data, sub.len) != ST_OK)
            rc = st_error(ST_NOMEM, "out of memory writing a filter");
        if (rc == ST_OK && !sub_empty)
            rc = put(b, ")");
        buf_free(&sub);
    } else if (strcmp(type, "FuzzyRowFilter") == 0) {
        rc = fuzzy_row(f, type, b);
    } else {
        static const char *const unsupported[] = {"RandomRowFilter", NULL};
        for (size_t i = 0; unsupported[i]; i++)
            if (strcmp(type, unsupported[i]) == 0)
                rc = st_error(ST_UNSUPPORTED, "the %s is not supported by Strata yet", type);
        if (rc == ST_OK)
            rc = st_error(ST_INVALID_ARGUMENT, "unknown filter type '%s'", type);
    }
    buf_free(&v);
    return rc;
}

int rest_filter_from_json(const char *json, size_t len, bool reversed, char **out)
{
    *out = NULL;
    json_value *doc = NULL;
    int rc = json_value_parse(json, len, &doc);
    if (rc != ST_OK)
        return st_error(rc, "the filter is not JSON: %s", st_errmsg());
    buf_t b = {0};
    bool empty = false;
    rc = build(doc, reversed, 0, &b, &empty);
    json_value_free(doc);
    if (rc == ST_OK && !empty) {
        if (buf_append_u8(&b, 0) != ST_OK)
            rc = st_error(ST_NOMEM, "out of memory writing a filter");
        else
            *out = (char *)b.data;
        return rc;
    }
    buf_free(&b);
    return rc;
}
