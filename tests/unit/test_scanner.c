/*
 * test_scanner.c - the query matcher and row driver (regionserver/storage/scanner.c): one test
 * per row of HBase's version / delete / TTL / time-range behaviour, raw and
 * KEEP_DELETED_CELLS (FALSE, TRUE, and TTL judging each marker by its age), compaction modes, columns and families, forward and reversed row
 * bounds, limit, batch, filters through the filter.h protocol, the number of iterator
 * moves on the hot paths, and scan_result's memory.
 *
 * Inputs are sorted-array iterators (tests/support/vec_iter.h) split over three children
 * of a merge_iter, as a memstore and store files would be. Results are rendered as
 *   "row: fam:qual@ts=value fam:qual@ts/DC+ | row2: ..."
 * one "|"-separated entry per scanner_next() result; markers show their type
 * (/D /DC /DF /DFV); a trailing '+' marks a partial result.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "regionserver/storage/filter.h"
#include "regionserver/storage/filter_internal.h"
#include "regionserver/storage/scanner.h"
#include "tests/support/testutil.h"
#include "tests/support/vec_iter.h"

#define NOW 1000000

typedef struct tc {
    const char *row;
    const char *fam;
    const char *qual;
    int64_t ts;
    uint8_t type;
    uint64_t seq;
    const char *val;
} tc;

#define P(r, f, q, ts, seq, v)                                                                     \
    {                                                                                              \
        r, f, q, ts, CELL_TYPE_PUT, seq, v                                                         \
    }
#define D(r, f, q, ts, seq)                                                                        \
    {                                                                                              \
        r, f, q, ts, CELL_TYPE_DELETE, seq, ""                                                     \
    }
#define DC(r, f, q, ts, seq)                                                                       \
    {                                                                                              \
        r, f, q, ts, CELL_TYPE_DELETE_COLUMN, seq, ""                                              \
    }
#define DF(r, f, ts, seq)                                                                          \
    {                                                                                              \
        r, f, "", ts, CELL_TYPE_DELETE_FAMILY, seq, ""                                             \
    }
#define DFV(r, f, ts, seq)                                                                         \
    {                                                                                              \
        r, f, "", ts, CELL_TYPE_DELETE_FAMILY_VERSION, seq, ""                                     \
    }
#define N(a) (sizeof(a) / sizeof((a)[0]))

static char out[16384];

static cell_t to_cell(const tc *t)
{
    cell_t c = {0};
    c.row = (const uint8_t *)t->row;
    c.row_len = (uint32_t)strlen(t->row);
    c.family = (const uint8_t *)t->fam;
    c.family_len = (uint32_t)strlen(t->fam);
    c.qualifier = (const uint8_t *)t->qual;
    c.qualifier_len = (uint32_t)strlen(t->qual);
    c.value = (const uint8_t *)t->val;
    c.value_len = (uint32_t)strlen(t->val);
    c.ts = t->ts;
    c.type = t->type;
    c.seq = t->seq;
    return c;
}

/* The cells spread round-robin over three children of a merge_iter. */
static kv_iter *input_of(const tc *cells, size_t n)
{
    enum { KIDS = 3 };
    cell_t *parts[KIDS];
    size_t counts[KIDS] = {0};
    for (int k = 0; k < KIDS; k++)
        parts[k] = calloc(n + 1, sizeof(cell_t));
    for (size_t i = 0; i < n; i++)
        parts[i % KIDS][counts[i % KIDS]++] = to_cell(&cells[i]);
    kv_iter *kids[KIDS];
    for (int k = 0; k < KIDS; k++) {
        kids[k] = vec_iter_new(parts[k], counts[k]);
        assert_non_null(kids[k]);
        free(parts[k]);
    }
    kv_iter *m = merge_iter_new(kids, KIDS);
    assert_non_null(m);
    return m;
}

static family_schema fam(const char *name, int versions)
{
    family_schema f;
    family_schema_init(&f, name);
    f.versions = versions;
    return f;
}

static const char *type_tag(uint8_t t)
{
    switch (t) {
    case CELL_TYPE_DELETE:
        return "/D";
    case CELL_TYPE_DELETE_COLUMN:
        return "/DC";
    case CELL_TYPE_DELETE_FAMILY:
        return "/DF";
    case CELL_TYPE_DELETE_FAMILY_VERSION:
        return "/DFV";
    default:
        return "/?";
    }
}

static void append(char *o, const char *fmt_s, const uint8_t *p, size_t n)
{
    size_t len = strlen(o);
    snprintf(o + len, sizeof(out) - len, fmt_s, (int)n, (const char *)p);
}

static void append_cell(char *o, const cell_t *c)
{
    append(o, "%.*s:", c->family, c->family_len);
    append(o, "%.*s", c->qualifier, c->qualifier_len);
    size_t len = strlen(o);
    snprintf(o + len, sizeof(out) - len, "@%lld", (long long)c->ts);
    if (c->type == CELL_TYPE_PUT)
        append(o, "=%.*s", c->value, c->value_len);
    else
        append(o, "%.*s", (const uint8_t *)type_tag(c->type), strlen(type_tag(c->type)));
}

static void append_result(char *o, const scan_result *r)
{
    if (o[0])
        strcat(o, " | ");
    append(o, "%.*s:", r->cells[0].row, r->cells[0].row_len);
    for (size_t i = 0; i < r->ncells; i++) {
        strcat(o, " ");
        append_cell(o, &r->cells[i]);
    }
    if (r->partial)
        strcat(o, "+");
}

/* Runs a scan over input and renders every result. */
static const char *scan_input(kv_iter *input, const family_schema *fams, size_t nfams,
                              const scan_spec *spec, int64_t now)
{
    scanner *s = NULL;
    assert_int_equal(scanner_new(input, fams, nfams, spec, now, &s), ST_OK);
    scan_result r;
    scan_result_init(&r);
    out[0] = '\0';
    int rc, guard = 0;
    while ((rc = scanner_next(s, &r)) == 1 && guard++ < 1000) {
        assert_true(r.ncells > 0);
        append_result(out, &r);
    }
    assert_int_equal(rc, 0);
    scan_result_free(&r);
    scanner_free(s);
    return out;
}

static const char *scan(const tc *cells, size_t n, const family_schema *fams, size_t nfams,
                        const scan_spec *spec)
{
    return scan_input(input_of(cells, n), fams, nfams, spec, NOW);
}

/* Runs a compaction scanner; kept cells are rendered "row/fam:qual@ts..." and, if keep
 * is given, copied into it. */
static const char *compact(kv_iter *input, const family_schema *f, scan_mode mode, int64_t now,
                           scan_result *keep)
{
    scan_spec spec = {0};
    spec.mode = mode;
    spec.max_versions = INT_MAX;
    scanner *s = NULL;
    assert_int_equal(scanner_new(input, f, 1, &spec, now, &s), ST_OK);
    out[0] = '\0';
    cell_t c;
    int rc;
    while ((rc = scanner_next_cell(s, &c)) == 1) {
        if (out[0])
            strcat(out, " ");
        append(out, "%.*s/", c.row, c.row_len);
        append_cell(out, &c);
        if (keep)
            assert_int_equal(scan_result_add(keep, &c), ST_OK);
    }
    assert_int_equal(rc, 0);
    assert_int_equal(scanner_next_cell(s, &c), 0);
    scanner_free(s);
    return out;
}

static scan_spec versions(int max_versions)
{
    scan_spec s = {0};
    s.max_versions = max_versions;
    return s;
}

/* ------------------------------------------------------------- versions */

static void put_get_latest(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "a", 10, 1, "v1"), P("r1", "f", "a", 20, 2, "v2")};
    family_schema f = fam("f", 1);
    scan_spec s = versions(5);
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:a@20=v2");
}

static void versions_three_keeps_three_newest(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "a", 1, 1, "v1"), P("r1", "f", "a", 2, 2, "v2"),
               P("r1", "f", "a", 3, 3, "v3"), P("r1", "f", "a", 4, 4, "v4"),
               P("r1", "f", "a", 5, 5, "v5")};
    family_schema f = fam("f", 3);
    scan_spec s = versions(10);
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:a@5=v5 f:a@4=v4 f:a@3=v3");
    s = versions(0); /* 0 means 1 */
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:a@5=v5");
}

static void max_versions_below_family_versions(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "a", 1, 1, "v1"), P("r1", "f", "a", 2, 2, "v2"),
               P("r1", "f", "a", 3, 3, "v3"), P("r1", "f", "b", 9, 4, "b9"),
               P("r1", "f", "b", 8, 5, "b8")};
    family_schema f = fam("f", 5);
    scan_spec s = versions(2);
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:a@3=v3 f:a@2=v2 f:b@9=b9 f:b@8=b8");
}

static void same_timestamp_newest_write_wins(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "a", 5, 1, "old"), P("r1", "f", "a", 5, 2, "new"),
               P("r1", "f", "a", 4, 3, "v4"), P("r1", "f", "a", 4, 3, "v4")};
    family_schema f = fam("f", 3);
    scan_spec s = versions(3);
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:a@5=new f:a@4=v4");
}

/* -------------------------------------------------------------- deletes */

static void delete_exact_version_reveals_older(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "a", 5, 1, "v5"), P("r1", "f", "a", 3, 2, "v3"),
               D("r1", "f", "a", 5, 3)};
    family_schema f = fam("f", 3);
    scan_spec s = versions(1);
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:a@3=v3");
    s = versions(3);
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:a@3=v3");
}

static void delete_of_missing_timestamp_hides_nothing(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "a", 5, 1, "v5"), P("r1", "f", "a", 3, 2, "v3"),
               D("r1", "f", "a", 4, 3)};
    family_schema f = fam("f", 3);
    scan_spec s = versions(3);
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:a@5=v5 f:a@3=v3");
}

static void delete_column_hides_older_keeps_newer(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "a", 7, 1, "v7"), P("r1", "f", "a", 5, 2, "v5"),
               P("r1", "f", "a", 3, 3, "v3"), DC("r1", "f", "a", 5, 4),
               P("r1", "f", "b", 1, 5, "b1")};
    family_schema f = fam("f", 3);
    scan_spec s = versions(3);
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:a@7=v7 f:b@1=b1");
    /* a later, narrower Delete does not lift the DeleteColumn */
    tc in2[] = {P("r1", "f", "a", 9, 1, "v9"), DC("r1", "f", "a", 7, 2), D("r1", "f", "a", 5, 3),
                P("r1", "f", "a", 4, 4, "v4")};
    assert_string_equal(scan(in2, N(in2), &f, 1, &s), "r1: f:a@9=v9");
}

static void delete_family_hides_all_columns_up_to_ts(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "a", 3, 1, "a3"), P("r1", "f", "a", 7, 2, "a7"),
               P("r1", "f", "b", 3, 3, "b3"), P("r1", "f", "b", 7, 4, "b7"),
               P("r1", "f", "b", 5, 5, "b5"), DF("r1", "f", 5, 6),
               P("r1", "g", "a", 3, 7, "g3")};
    family_schema fs[] = {fam("f", 3), fam("g", 3)};
    scan_spec s = versions(3);
    assert_string_equal(scan(in, N(in), fs, 2, &s), "r1: f:a@7=a7 f:b@7=b7 g:a@3=g3");
}

static void delete_family_version_hides_exact_ts_only(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "a", 5, 1, "a5"), P("r1", "f", "a", 3, 2, "a3"),
               P("r1", "f", "b", 5, 3, "b5"), P("r1", "f", "b", 4, 4, "b4"),
               P("r1", "f", "c", 6, 5, "c6"), DFV("r1", "f", 5, 6)};
    family_schema f = fam("f", 3);
    scan_spec s = versions(3);
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:a@3=a3 f:b@4=b4 f:c@6=c6");
}

static void delete_masks_puts_written_after_it(void **state)
{
    (void)state;
    tc in[] = {DC("r1", "f", "a", 5, 10),
               P("r1", "f", "a", 4, 20, "late4"),
               P("r1", "f", "a", 5, 21, "late5"),
               P("r1", "f", "a", 6, 22, "a6"),
               D("r1", "f", "b", 5, 10),
               P("r1", "f", "b", 5, 30, "late"),
               DF("r1", "f", 2, 10),
               P("r1", "f", "c", 2, 40, "late"),
               P("r1", "f", "c", 3, 41, "c3")};
    family_schema f = fam("f", 3);
    scan_spec s = versions(3);
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:a@6=a6 f:c@3=c3");
}

static void row_with_everything_deleted_is_not_returned(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "a", 1, 1, "x"), P("r2", "f", "a", 1, 2, "y"), DF("r2", "f", 9, 3),
               P("r3", "f", "a", 1, 4, "z")};
    family_schema f = fam("f", 1);
    scan_spec s = versions(1);
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:a@1=x | r3: f:a@1=z");
}

static void family_marker_in_empty_qualifier_column_is_never_skipped(void **state)
{
    (void)state;
    /* versions of the empty qualifier run out before the marker is reached */
    tc in[] = {P("r1", "f", "", 10, 1, "e10"), P("r1", "f", "", 9, 2, "e9"),
               P("r1", "f", "", 8, 3, "e8"),   DF("r1", "f", 5, 4),
               P("r1", "f", "b", 3, 5, "b3"),  P("r1", "f", "c", 7, 6, "c7")};
    family_schema f = fam("f", 1);
    scan_spec s = versions(1);
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:@10=e10 f:c@7=c7");
    /* explicit columns skip the empty qualifier but still see its markers */
    scan_column cols[] = {{(const uint8_t *)"f", 1, (const uint8_t *)"b", 1},
                          {(const uint8_t *)"f", 1, (const uint8_t *)"c", 1}};
    s.columns = cols;
    s.ncolumns = 2;
    s.max_versions = 3;
    f.versions = 3;
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:c@7=c7");
}

/* ----------------------------------------------------------- compaction */

static const tc compaction_in[] = {
    P("r1", "f", "a", 7, 1, "a7"), P("r1", "f", "a", 5, 2, "a5"), P("r1", "f", "a", 3, 3, "a3"),
    DC("r1", "f", "a", 5, 4),      D("r1", "f", "b", 4, 5),       P("r1", "f", "b", 4, 6, "b4"),
    P("r1", "f", "b", 3, 7, "b3"), DF("r2", "f", 9, 8),           P("r2", "f", "x", 8, 9, "x8"),
};

static void major_compaction_drops_markers_and_masked_cells(void **state)
{
    (void)state;
    family_schema f = fam("f", 3);
    scan_result kept;
    scan_result_init(&kept);
    assert_string_equal(
        compact(input_of(compaction_in, N(compaction_in)), &f, SCAN_MODE_COMPACT_MAJOR, NOW, &kept),
        "r1/f:a@7=a7 r1/f:b@3=b3");
    /* before compaction a re-put at an old timestamp stays masked ... */
    tc more[N(compaction_in) + 1];
    memcpy(more, compaction_in, sizeof(compaction_in));
    more[N(compaction_in)] = (tc)P("r1", "f", "a", 5, 100, "again");
    scan_spec s = versions(3);
    assert_string_equal(scan(more, N(more), &f, 1, &s), "r1: f:a@7=a7 f:b@3=b3");
    /* ... after it, the marker is gone and the re-put shows */
    cell_t again = to_cell(&more[N(compaction_in)]);
    kv_iter *kids[] = {vec_iter_new(kept.cells, kept.ncells), vec_iter_new(&again, 1)};
    assert_string_equal(scan_input(merge_iter_new(kids, 2), &f, 1, &s, NOW),
                        "r1: f:a@7=a7 f:a@5=again f:b@3=b3");
    scan_result_free(&kept);
}

static void minor_compaction_keeps_everything(void **state)
{
    (void)state;
    family_schema f = fam("f", 1);
    assert_string_equal(
        compact(input_of(compaction_in, N(compaction_in)), &f, SCAN_MODE_COMPACT_MINOR, NOW, NULL),
        "r1/f:a@7=a7 r1/f:a@5/DC r1/f:a@5=a5 r1/f:a@3=a3 r1/f:b@4/D "
        "r1/f:b@4=b4 r1/f:b@3=b3 r2/f:@9/DF r2/f:x@8=x8");
}

static void major_compaction_applies_versions_and_ttl(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "a", 999000, 1, "a1"), P("r1", "f", "a", 998000, 2, "a2"),
               P("r1", "f", "a", 997000, 3, "a3"), P("r1", "f", "b", 900000, 4, "b1"),
               P("r1", "f", "b", 890000, 5, "b2"), P("r1", "f", "c", 900000, 6, "c1")};
    family_schema f = fam("f", 2);
    f.min_versions = 1;
    f.ttl_sec = 10;
    assert_string_equal(compact(input_of(in, N(in)), &f, SCAN_MODE_COMPACT_MAJOR, NOW, NULL),
                        "r1/f:a@999000=a1 r1/f:a@998000=a2 r1/f:b@900000=b1 r1/f:c@900000=c1");
    f.min_versions = 0;
    assert_string_equal(compact(input_of(in, N(in)), &f, SCAN_MODE_COMPACT_MAJOR, NOW, NULL),
                        "r1/f:a@999000=a1 r1/f:a@998000=a2");
}

static void major_compaction_keep_deleted_cells_keeps_markers(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "a", 10, 1, "a10"), P("r1", "f", "a", 20, 2, "a20"),
               DC("r1", "f", "a", 25, 3), P("r1", "f", "a", 5, 4, "a5")};
    family_schema f = fam("f", 2);
    f.keep_deleted_cells = true;
    assert_string_equal(compact(input_of(in, N(in)), &f, SCAN_MODE_COMPACT_MAJOR, NOW, NULL),
                        "r1/f:a@25/DC r1/f:a@20=a20 r1/f:a@10=a10");
    f.keep_deleted_cells = false;
    assert_string_equal(compact(input_of(in, N(in)), &f, SCAN_MODE_COMPACT_MAJOR, NOW, NULL), "");
}

/* ------------------------------------------------------ TTL, time range */

static void ttl_expired_cells_are_hidden(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "a", 995000, 1, "new"), P("r1", "f", "a", 980000, 2, "old"),
               P("r1", "f", "b", 980000, 3, "old"), P("r2", "f", "a", 989999, 4, "old")};
    family_schema f = fam("f", 3);
    f.ttl_sec = 10; /* cutoff 990000 */
    scan_spec s = versions(3);
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:a@995000=new");
}

static void min_versions_keeps_expired_cells(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "a", 980000, 1, "a1"), P("r1", "f", "a", 970000, 2, "a2"),
               P("r1", "f", "b", 995000, 3, "b1"), P("r1", "f", "b", 980000, 4, "b2")};
    family_schema f = fam("f", 3);
    f.ttl_sec = 10;
    f.min_versions = 1;
    scan_spec s = versions(3);
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:a@980000=a1 f:b@995000=b1");
    f.min_versions = 2;
    assert_string_equal(scan(in, N(in), &f, 1, &s),
                        "r1: f:a@980000=a1 f:a@970000=a2 f:b@995000=b1 f:b@980000=b2");
}

static void time_range_selects_and_counts_versions_inside(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "a", 10, 1, "v10"), P("r1", "f", "a", 20, 2, "v20"),
               P("r1", "f", "a", 30, 3, "v30"), P("r1", "f", "a", 40, 4, "v40")};
    family_schema f = fam("f", 5);
    scan_spec s = versions(1);
    s.min_ts = 15;
    s.max_ts = 35;
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:a@30=v30");
    s.max_versions = 5;
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:a@30=v30 f:a@20=v20");
    s.min_ts = 0;
    s.max_ts = 30; /* exclusive */
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:a@20=v20 f:a@10=v10");
    s.min_ts = 41;
    s.max_ts = 50;
    assert_string_equal(scan(in, N(in), &f, 1, &s), "");
}

static void keep_deleted_cells_time_travel(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "a", 10, 1, "a10"), P("r1", "f", "a", 20, 2, "a20"),
               DC("r1", "f", "a", 25, 3), P("r1", "f", "b", 20, 4, "b20"), DF("r1", "f", 30, 5)};
    family_schema f = fam("f", 3);
    f.keep_deleted_cells = true;
    scan_spec s = versions(3);
    assert_string_equal(scan(in, N(in), &f, 1, &s), "");
    s.max_ts = 25; /* ends at the DeleteColumn: sees what it deleted */
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:a@20=a20 f:a@10=a10 f:b@20=b20");
    s.max_ts = 26;
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:b@20=b20");
    s.max_ts = 31;
    assert_string_equal(scan(in, N(in), &f, 1, &s), "");
    f.keep_deleted_cells = false; /* without it a time range cannot see behind a delete */
    s.max_ts = 25;
    assert_string_equal(scan(in, N(in), &f, 1, &s), "");
}

/* KEEP_DELETED_CELLS TTL with MIN_VERSIONS (the case HBase documents it for). TTL 10 s
 * at NOW: a marker at or after 990000 is young. Rows: r1 a: a young DeleteColumn over
 * puts older than the TTL (kept by MIN_VERSIONS); r1 b: an expired DeleteColumn with a
 * newer put above it; r2: a young DeleteFamily; r3: an expired one with a newer column. */
static const tc kdc_ttl_in[] = {
    P("r1", "f", "a", 985000, 1, "a1"), P("r1", "f", "a", 980000, 2, "a2"),
    DC("r1", "f", "a", 995000, 3),      P("r1", "f", "b", 986000, 4, "b3"),
    DC("r1", "f", "b", 985000, 5),      P("r1", "f", "b", 980000, 6, "b2"),
    P("r1", "f", "b", 970000, 7, "b1"), DF("r2", "f", 992000, 8),
    P("r2", "f", "x", 984000, 9, "x1"), DF("r3", "f", 984000, 10),
    P("r3", "f", "x", 983000, 11, "x3"), P("r3", "f", "y", 986000, 12, "y1"),
};

static family_schema kdc_ttl_family(keep_deleted_mode mode)
{
    family_schema f = fam("f", 3);
    f.ttl_sec = 10;
    f.min_versions = 2;
    f.keep_deleted_cells = mode;
    return f;
}

/* User reads treat TTL as TRUE: a time range ending before a marker sees what it masks,
 * whatever the marker's age (HBase's seePastDeleteMarkers: KEEP_DELETED_CELLS != FALSE). */
static void keep_deleted_cells_ttl_reads_as_true(void **state)
{
    (void)state;
    family_schema f = kdc_ttl_family(KEEP_DELETED_TTL);
    scan_spec s = versions(3);
    assert_string_equal(scan(kdc_ttl_in, N(kdc_ttl_in), &f, 1, &s),
                        "r1: f:b@986000=b3 | r3: f:y@986000=y1");
    s.max_ts = 985000;
    const char *before = "r1: f:a@980000=a2 f:b@980000=b2 f:b@970000=b1 | r2: f:x@984000=x1";
    assert_string_equal(scan(kdc_ttl_in, N(kdc_ttl_in), &f, 1, &s), before);
    f.keep_deleted_cells = KEEP_DELETED_TRUE;
    assert_string_equal(scan(kdc_ttl_in, N(kdc_ttl_in), &f, 1, &s), before);
    f.keep_deleted_cells = KEEP_DELETED_FALSE; /* every marker not older than the range */
    assert_string_equal(scan(kdc_ttl_in, N(kdc_ttl_in), &f, 1, &s), "");
}

/* A major compaction judges each marker by its age: a young one stays with the cells it
 * masks (TRUE), an expired one goes with them (FALSE). Afterwards a time range still sees
 * behind the young markers only. */
static void keep_deleted_cells_ttl_major_compaction(void **state)
{
    (void)state;
    family_schema f = kdc_ttl_family(KEEP_DELETED_TTL);
    scan_result kept;
    scan_result_init(&kept);
    assert_string_equal(compact(input_of(kdc_ttl_in, N(kdc_ttl_in)), &f, SCAN_MODE_COMPACT_MAJOR,
                                NOW, &kept),
                        "r1/f:a@995000/DC r1/f:a@985000=a1 r1/f:a@980000=a2 r1/f:b@986000=b3 "
                        "r2/f:@992000/DF r2/f:x@984000=x1 r3/f:y@986000=y1");
    scan_spec s = versions(3);
    s.max_ts = 985000;
    assert_string_equal(scan_input(vec_iter_new(kept.cells, kept.ncells), &f, 1, &s, NOW),
                        "r1: f:a@980000=a2 | r2: f:x@984000=x1");
    s = versions(3);
    assert_string_equal(scan_input(vec_iter_new(kept.cells, kept.ncells), &f, 1, &s, NOW),
                        "r1: f:b@986000=b3 | r3: f:y@986000=y1");
    scan_result_free(&kept);
    /* TRUE keeps every marker (MIN_VERSIONS and VERSIONS still bound the puts) ... */
    f.keep_deleted_cells = KEEP_DELETED_TRUE;
    assert_string_equal(compact(input_of(kdc_ttl_in, N(kdc_ttl_in)), &f, SCAN_MODE_COMPACT_MAJOR,
                                NOW, NULL),
                        "r1/f:a@995000/DC r1/f:a@985000=a1 r1/f:a@980000=a2 r1/f:b@986000=b3 "
                        "r1/f:b@985000/DC r1/f:b@980000=b2 r2/f:@992000/DF r2/f:x@984000=x1 "
                        "r3/f:@984000/DF r3/f:x@983000=x3 r3/f:y@986000=y1");
    /* ... FALSE none */
    f.keep_deleted_cells = KEEP_DELETED_FALSE;
    assert_string_equal(compact(input_of(kdc_ttl_in, N(kdc_ttl_in)), &f, SCAN_MODE_COMPACT_MAJOR,
                                NOW, NULL),
                        "r1/f:b@986000=b3 r3/f:y@986000=y1");
    /* a TTL of forever: every marker is young, as TRUE */
    f.keep_deleted_cells = KEEP_DELETED_TTL;
    f.ttl_sec = SCHEMA_TTL_FOREVER;
    assert_string_equal(compact(input_of(kdc_ttl_in, N(kdc_ttl_in)), &f, SCAN_MODE_COMPACT_MAJOR,
                                NOW, NULL),
                        "r1/f:a@995000/DC r1/f:a@985000=a1 r1/f:a@980000=a2 r1/f:b@986000=b3 "
                        "r1/f:b@985000/DC r1/f:b@980000=b2 r1/f:b@970000=b1 r2/f:@992000/DF "
                        "r2/f:x@984000=x1 r3/f:@984000/DF r3/f:x@983000=x3 r3/f:y@986000=y1");
}

/* ------------------------------------------------------------------ raw */

static void raw_scan_returns_markers_and_deleted_cells(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "a", 5, 1, "v5"), D("r1", "f", "a", 5, 2),
               P("r1", "f", "a", 3, 3, "v3"), D("r1", "f", "a", 3, 5), DF("r1", "f", 4, 4)};
    family_schema f = fam("f", 1);
    scan_spec s = versions(10);
    s.raw = true;
    assert_string_equal(scan(in, N(in), &f, 1, &s),
                        "r1: f:@4/DF f:a@5/D f:a@5=v5 f:a@3/D f:a@3=v3");
    s.max_versions = 1; /* markers are not versions: the older marker still shows */
    assert_string_equal(scan(in, N(in), &f, 1, &s), "r1: f:@4/DF f:a@5/D f:a@5=v5 f:a@3/D");
    s.raw = false;
    assert_string_equal(scan(in, N(in), &f, 1, &s), "");
}

/* ------------------------------------------------------ columns, families */

static const tc wide_row[] = {
    P("r1", "f", "a", 1, 1, "fa"), P("r1", "f", "b", 1, 2, "fb"),  P("r1", "f", "c", 1, 3, "fc"),
    P("r1", "f", "d", 1, 4, "fd"), P("r1", "g", "x", 1, 5, "gx"),  P("r1", "g", "y", 1, 6, "gy"),
    P("r1", "h", "z", 1, 7, "hz"), P("r2", "f", "c", 1, 8, "fc2"), P("r2", "h", "z", 1, 9, "hz2"),
};

static void explicit_columns_and_whole_families(void **state)
{
    (void)state;
    family_schema fs[] = {fam("f", 1), fam("g", 1), fam("h", 1)};
    scan_column cols[] = {{(const uint8_t *)"f", 1, (const uint8_t *)"c", 1},
                          {(const uint8_t *)"g", 1, NULL, 0},
                          {(const uint8_t *)"f", 1, (const uint8_t *)"a", 1},
                          {(const uint8_t *)"f", 1, (const uint8_t *)"a", 1}};
    scan_spec s = versions(1);
    s.columns = cols;
    s.ncolumns = N(cols);
    assert_string_equal(scan(wide_row, N(wide_row), fs, 3, &s),
                        "r1: f:a@1=fa f:c@1=fc g:x@1=gx g:y@1=gy | r2: f:c@1=fc2");
    s.ncolumns = 0;
    assert_string_equal(scan(wide_row, N(wide_row), fs, 3, &s),
                        "r1: f:a@1=fa f:b@1=fb f:c@1=fc f:d@1=fd g:x@1=gx g:y@1=gy h:z@1=hz | "
                        "r2: f:c@1=fc2 h:z@1=hz2");
    scan_column only_h[] = {{(const uint8_t *)"h", 1, NULL, 0},
                            {(const uint8_t *)"f", 1, (const uint8_t *)"zz", 2}};
    s.columns = only_h;
    s.ncolumns = 2;
    assert_string_equal(scan(wide_row, N(wide_row), fs, 3, &s), "r1: h:z@1=hz | r2: h:z@1=hz2");
}

static void explicit_columns_seek_past_long_unwanted_columns(void **state)
{
    (void)state;
    tc in[30];
    size_t n = 0;
    in[n++] = (tc)P("r1", "f", "a", 1, 1, "a1");
    for (int i = 0; i < 20; i++)
        in[n++] = (tc)P("r1", "f", "b", 100 + i, 10 + (uint64_t)i, "b");
    in[n++] = (tc)P("r1", "f", "c", 1, 2, "c1");
    in[n++] = (tc)P("r1", "f", "d", 1, 3, "d1");
    in[n++] = (tc)P("r2", "f", "c", 1, 4, "c2");
    family_schema f = fam("f", 3);
    scan_column cols[] = {{(const uint8_t *)"f", 1, (const uint8_t *)"a", 1},
                          {(const uint8_t *)"f", 1, (const uint8_t *)"c", 1}};
    scan_spec s = versions(3);
    s.columns = cols;
    s.ncolumns = 2;
    assert_string_equal(scan(in, n, &f, 1, &s), "r1: f:a@1=a1 f:c@1=c1 | r2: f:c@1=c2");
}

static void several_families_in_one_row_use_their_own_schema(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "a", 2, 1, "f2"), P("r1", "f", "a", 1, 2, "f1"),
               P("r1", "g", "a", 2, 3, "g2"), P("r1", "g", "a", 1, 4, "g1"), DF("r1", "g", 1, 5)};
    family_schema fs[] = {fam("f", 1), fam("g", 2)};
    scan_spec s = versions(5);
    assert_string_equal(scan(in, N(in), fs, 2, &s), "r1: f:a@2=f2 g:a@2=g2");
    tc in2[] = {P("r1", "f", "a", 2, 1, "f2"), P("r1", "f", "a", 1, 2, "f1"),
                P("r1", "g", "a", 2, 3, "g2"), P("r1", "g", "a", 1, 4, "g1")};
    assert_string_equal(scan(in2, N(in2), fs, 2, &s), "r1: f:a@2=f2 g:a@2=g2 g:a@1=g1");
}

/* ------------------------------------------------------------------ rows */

static const tc rows_in[] = {
    P("a", "f", "q", 1, 1, "1"), P("ab", "f", "q", 1, 2, "2"), P("b", "f", "x", 1, 3, "3"),
    P("b", "f", "y", 1, 4, "4"), P("c", "f", "q", 1, 5, "5"),
};

static const char *rows_scan(const char *start, const char *stop, bool reversed)
{
    family_schema f = fam("f", 1);
    scan_spec s = versions(1);
    s.start_row = (const uint8_t *)start;
    s.start_row_len = strlen(start);
    s.stop_row = (const uint8_t *)stop;
    s.stop_row_len = strlen(stop);
    s.reversed = reversed;
    return scan(rows_in, N(rows_in), &f, 1, &s);
}

static void start_stop_rows_forward(void **state)
{
    (void)state;
    assert_string_equal(rows_scan("", "", false),
                        "a: f:q@1=1 | ab: f:q@1=2 | b: f:x@1=3 f:y@1=4 | c: f:q@1=5");
    assert_string_equal(rows_scan("ab", "c", false), "ab: f:q@1=2 | b: f:x@1=3 f:y@1=4");
    assert_string_equal(rows_scan("a", "ab", false), "a: f:q@1=1");
    assert_string_equal(rows_scan("aa", "", false),
                        "ab: f:q@1=2 | b: f:x@1=3 f:y@1=4 | c: f:q@1=5");
    assert_string_equal(rows_scan("", "b", false), "a: f:q@1=1 | ab: f:q@1=2");
    assert_string_equal(rows_scan("b", "b", false), "");
    assert_string_equal(rows_scan("c", "a", false), "");
    assert_string_equal(rows_scan("d", "", false), "");
}

static void start_stop_rows_reversed(void **state)
{
    (void)state;
    assert_string_equal(rows_scan("", "", true),
                        "c: f:q@1=5 | b: f:x@1=3 f:y@1=4 | ab: f:q@1=2 | a: f:q@1=1");
    assert_string_equal(rows_scan("b", "", true), "b: f:x@1=3 f:y@1=4 | ab: f:q@1=2 | a: f:q@1=1");
    assert_string_equal(rows_scan("bb", "", true), "b: f:x@1=3 f:y@1=4 | ab: f:q@1=2 | a: f:q@1=1");
    assert_string_equal(rows_scan("b", "a", true), "b: f:x@1=3 f:y@1=4 | ab: f:q@1=2");
    assert_string_equal(rows_scan("ab", "a", true), "ab: f:q@1=2");
    assert_string_equal(rows_scan("", "ab", true), "c: f:q@1=5 | b: f:x@1=3 f:y@1=4");
    assert_string_equal(rows_scan("b", "b", true), "");
    assert_string_equal(rows_scan("a", "b", true), "");
    assert_string_equal(rows_scan("0", "", true), "");
}

static void reversed_scan_applies_deletes_and_versions(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "a", 5, 1, "r1a5"),
               P("r1", "f", "a", 4, 2, "r1a4"),
               D("r1", "f", "a", 5, 3),
               P("r2", "f", "a", 1, 4, "r2a1"),
               DF("r2", "f", 2, 5),
               P("r3", "f", "a", 3, 6, "r3a3"),
               P("r3", "f", "a", 2, 7, "r3a2"),
               P("r3", "f", "a", 1, 8, "r3a1"),
               P("r3", "f", "b", 1, 9, "r3b1")};
    family_schema f = fam("f", 2);
    scan_spec s = versions(5);
    s.reversed = true;
    assert_string_equal(scan(in, N(in), &f, 1, &s),
                        "r3: f:a@3=r3a3 f:a@2=r3a2 f:b@1=r3b1 | r1: f:a@4=r1a4");
}

static void limit_counts_rows(void **state)
{
    (void)state;
    family_schema f = fam("f", 1);
    scan_spec s = versions(1);
    s.limit = 2;
    assert_string_equal(scan(rows_in, N(rows_in), &f, 1, &s), "a: f:q@1=1 | ab: f:q@1=2");
    s.reversed = true;
    s.limit = 1;
    assert_string_equal(scan(rows_in, N(rows_in), &f, 1, &s), "c: f:q@1=5");
}

static const tc batch_in[] = {
    P("r1", "f", "a", 1, 1, "1"), P("r1", "f", "b", 1, 2, "2"), P("r1", "f", "c", 1, 3, "3"),
    P("r1", "f", "d", 1, 4, "4"), P("r1", "f", "e", 1, 5, "5"), P("r2", "f", "a", 1, 6, "6"),
    P("r2", "f", "b", 1, 7, "7"),
};

static void batch_splits_rows_and_marks_partial(void **state)
{
    (void)state;
    family_schema f = fam("f", 1);
    scan_spec s = versions(1);
    s.batch = 2;
    assert_string_equal(scan(batch_in, N(batch_in), &f, 1, &s),
                        "r1: f:a@1=1 f:b@1=2+ | r1: f:c@1=3 f:d@1=4+ | r1: f:e@1=5 | "
                        "r2: f:a@1=6 f:b@1=7");
    s.batch = 5;
    assert_string_equal(scan(batch_in, N(batch_in), &f, 1, &s),
                        "r1: f:a@1=1 f:b@1=2 f:c@1=3 f:d@1=4 f:e@1=5 | r2: f:a@1=6 f:b@1=7");
    s.batch = 2;
    s.limit = 1; /* a row split in parts is still one row */
    assert_string_equal(scan(batch_in, N(batch_in), &f, 1, &s),
                        "r1: f:a@1=1 f:b@1=2+ | r1: f:c@1=3 f:d@1=4+ | r1: f:e@1=5");
    s.limit = 2;
    assert_string_equal(scan(batch_in, N(batch_in), &f, 1, &s),
                        "r1: f:a@1=1 f:b@1=2+ | r1: f:c@1=3 f:d@1=4+ | r1: f:e@1=5 | "
                        "r2: f:a@1=6 f:b@1=7");
    s.limit = 0;
    s.reversed = true;
    assert_string_equal(scan(batch_in, N(batch_in), &f, 1, &s),
                        "r2: f:a@1=6 f:b@1=7 | r1: f:a@1=1 f:b@1=2+ | r1: f:c@1=3 f:d@1=4+ | "
                        "r1: f:e@1=5");
}

/* ------------------------------------------------------------- filters */

static const tc filter_in[] = {
    P("r1", "f", "a", 2, 1, "x"), P("r1", "f", "a", 1, 2, "old"), P("r1", "f", "b", 1, 3, "1"),
    P("r2", "f", "a", 1, 4, "y"), P("r2", "f", "b", 1, 5, "2"),   P("s1", "f", "b", 1, 6, "3"),
    P("s2", "f", "a", 1, 7, "x"),
};

static const char *filter_scan(filter *flt, int max_versions, int batch)
{
    family_schema f = fam("f", 3);
    scan_spec s = versions(max_versions);
    s.filter = flt;
    s.batch = batch;
    const char *r = scan(filter_in, N(filter_in), &f, 1, &s);
    filter_free(flt);
    return r;
}

static comparator *bin(const char *v)
{
    return comparator_new(COMPARATOR_BINARY, (const uint8_t *)v, strlen(v));
}

static void filter_prefix_selects_rows(void **state)
{
    (void)state;
    assert_string_equal(filter_scan(filter_prefix_new((const uint8_t *)"s", 1), 1, 0),
                        "s1: f:b@1=3 | s2: f:a@1=x");
    assert_string_equal(filter_scan(filter_prefix_new((const uint8_t *)"r2", 2), 1, 0),
                        "r2: f:a@1=y f:b@1=2");
    /* filtered rows with batch are handed out in parts too */
    assert_string_equal(filter_scan(filter_prefix_new((const uint8_t *)"r", 1), 1, 1),
                        "r1: f:a@2=x+ | r1: f:b@1=1 | r2: f:a@1=y+ | r2: f:b@1=2");
}

static void filter_page_limits_rows(void **state)
{
    (void)state;
    assert_string_equal(filter_scan(filter_page_new(2), 1, 0),
                        "r1: f:a@2=x f:b@1=1 | r2: f:a@1=y f:b@1=2");
    assert_string_equal(filter_scan(filter_page_new(1), 1, 0), "r1: f:a@2=x f:b@1=1");
}

static void filter_single_column_value_drops_rows(void **state)
{
    (void)state;
    filter *scv = filter_single_column_value_new((const uint8_t *)"f", 1, (const uint8_t *)"a", 1,
                                                 CMP_EQUAL, bin("x"), false, true);
    assert_string_equal(filter_scan(scv, 1, 0), "r1: f:a@2=x f:b@1=1 | s1: f:b@1=3 | s2: f:a@1=x");
    scv = filter_single_column_value_new((const uint8_t *)"f", 1, (const uint8_t *)"a", 1,
                                         CMP_EQUAL, bin("x"), true, true);
    assert_string_equal(filter_scan(scv, 1, 0), "r1: f:a@2=x f:b@1=1 | s2: f:a@1=x");
}

static void filter_key_only_strips_values(void **state)
{
    (void)state;
    assert_string_equal(filter_scan(filter_key_only_new(false), 1, 0),
                        "r1: f:a@2= f:b@1= | r2: f:a@1= f:b@1= | s1: f:b@1= | s2: f:a@1=");
}

static void filter_list_combines(void **state)
{
    (void)state;
    filter *all = filter_list_new(FILTER_MUST_PASS_ALL);
    assert_int_equal(filter_list_add(all, filter_prefix_new((const uint8_t *)"r", 1)), ST_OK);
    assert_int_equal(filter_list_add(all, filter_key_only_new(false)), ST_OK);
    assert_string_equal(filter_scan(all, 1, 0), "r1: f:a@2= f:b@1= | r2: f:a@1= f:b@1=");
    filter *one = filter_list_new(FILTER_MUST_PASS_ONE);
    assert_int_equal(filter_list_add(one, filter_value_new(CMP_EQUAL, bin("x"))), ST_OK);
    assert_int_equal(filter_list_add(one, filter_value_new(CMP_EQUAL, bin("3"))), ST_OK);
    assert_string_equal(filter_scan(one, 1, 0), "r1: f:a@2=x | s1: f:b@1=3 | s2: f:a@1=x");
}

static void filter_first_key_only_moves_to_next_row(void **state)
{
    (void)state;
    assert_string_equal(filter_scan(filter_first_key_only_new(), 1, 0),
                        "r1: f:a@2=x | r2: f:a@1=y | s1: f:b@1=3 | s2: f:a@1=x");
}

static void filter_versions_counted_after_filter(void **state)
{
    (void)state;
    /* HBase 2: the newest version that passes the filter is returned */
    assert_string_equal(filter_scan(filter_value_new(CMP_EQUAL, bin("old")), 1, 0),
                        "r1: f:a@1=old");
}

/* Regression: when the family's VERSIONS equals the versions a column holds, the last
 * version looked at ends the column (INCLUDE_NEXT_COL) and was kept by the filter without
 * being counted against max_versions, so a filtered read returned every version. */
static void filter_counts_the_last_version_looked_at(void **state)
{
    (void)state;
    family_schema f = fam("f", 2);
    scan_spec s = versions(1);
    s.filter = filter_prefix_new((const uint8_t *)"r1", 2);
    assert_string_equal(scan(filter_in, N(filter_in), &f, 1, &s), "r1: f:a@2=x f:b@1=1");
    filter_free(s.filter);
    s = versions(2);
    s.filter = filter_prefix_new((const uint8_t *)"r1", 2);
    assert_string_equal(scan(filter_in, N(filter_in), &f, 1, &s), "r1: f:a@2=x f:a@1=old f:b@1=1");
    filter_free(s.filter);
}

/* A filter answering NEXT_COL for the first cell of each column and INCLUDE after. */
typedef struct first_next_col {
    filter base;
    char last[32];
} first_next_col;

static filter_return first_next_col_cell(filter *f, const cell_t *c)
{
    first_next_col *x = (first_next_col *)f;
    char col[32];
    snprintf(col, sizeof(col), "%.*s/%.*s:%.*s", (int)c->row_len, (const char *)c->row,
             (int)c->family_len, (const char *)c->family, (int)c->qualifier_len,
             (const char *)c->qualifier);
    if (strcmp(col, x->last) == 0)
        return FILTER_INCLUDE;
    strcpy(x->last, col);
    return FILTER_NEXT_COL;
}

static const filter_ops first_next_col_ops = {.name = "FirstNextCol", .cell = first_next_col_cell};

static void filter_next_col_drops_rest_of_column(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "", 3, 1, "e3"), P("r1", "f", "", 2, 2, "e2"),
               P("r1", "f", "a", 3, 3, "a3"), P("r1", "f", "a", 2, 4, "a2"),
               P("r2", "f", "a", 3, 5, "x")};
    family_schema f = fam("f", 3);
    scan_spec s = versions(3);
    s.filter = filter_alloc(sizeof(first_next_col), &first_next_col_ops);
    assert_string_equal(scan(in, N(in), &f, 1, &s), "");
    filter_free(s.filter);
}

/* ------------------------------------------------------------ efficiency */

static kv_iter *plain_input(const cell_t *cells, size_t n)
{
    kv_iter *it = vec_iter_new(cells, n);
    assert_non_null(it);
    return it;
}

static void many_versions_are_skipped_by_seeking(void **state)
{
    (void)state;
    enum { V = 1000 };
    cell_t *cells = calloc(V + 1, sizeof(*cells));
    for (int i = 0; i < V; i++) {
        tc t = P("r1", "f", "a", i + 1, (uint64_t)i + 1, "v");
        cells[i] = to_cell(&t);
    }
    tc b = P("r1", "f", "b", 1, 5000, "b");
    cells[V] = to_cell(&b);
    kv_iter *it = plain_input(cells, V + 1);
    family_schema f = fam("f", 1);
    scan_spec s = versions(1);
    scanner *sc = NULL;
    assert_int_equal(scanner_new(it, &f, 1, &s, NOW, &sc), ST_OK);
    scan_result r;
    scan_result_init(&r);
    assert_int_equal(scanner_next(sc, &r), 1);
    assert_int_equal(r.ncells, 2);
    assert_int_equal(r.cells[0].ts, V);
    assert_int_equal(scanner_next(sc, &r), 0);
    assert_true(vec_iter_moves(it) < 40);
    scan_result_free(&r);
    scanner_free(sc);
    free(cells);
}

static void unwanted_family_is_skipped_by_seeking(void **state)
{
    (void)state;
    enum { Q = 1000 };
    cell_t *cells = calloc(Q + 1, sizeof(*cells));
    char(*quals)[8] = calloc(Q, 8);
    for (int i = 0; i < Q; i++) {
        snprintf(quals[i], 8, "q%05d", i);
        tc t = P("r1", "a", quals[i], 1, (uint64_t)i + 1, "v");
        cells[i] = to_cell(&t);
    }
    tc b = P("r1", "b", "x", 1, 5000, "b");
    cells[Q] = to_cell(&b);
    kv_iter *it = plain_input(cells, Q + 1);
    family_schema fs[] = {fam("a", 1), fam("b", 1)};
    scan_column col = {(const uint8_t *)"b", 1, NULL, 0};
    scan_spec s = versions(1);
    s.columns = &col;
    s.ncolumns = 1;
    scanner *sc = NULL;
    assert_int_equal(scanner_new(it, fs, 2, &s, NOW, &sc), ST_OK);
    scan_result r;
    scan_result_init(&r);
    assert_int_equal(scanner_next(sc, &r), 1);
    assert_int_equal(r.ncells, 1);
    assert_memory_equal(r.cells[0].family, "b", 1);
    assert_int_equal(scanner_next(sc, &r), 0);
    assert_true(vec_iter_moves(it) < 20);
    scan_result_free(&r);
    scanner_free(sc);
    free(cells);
    free(quals);
}

static void get_touches_only_its_row(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "a", 3, 1, "a3"), P("r1", "f", "a", 2, 2, "a2"),
               P("r1", "f", "b", 1, 3, "b1"), P("r2", "f", "a", 1, 4, "x")};
    cell_t cells[N(in)];
    for (size_t i = 0; i < N(in); i++)
        cells[i] = to_cell(&in[i]);
    kv_iter *it = plain_input(cells, N(in));
    /* moving onto r2 (index 3) would fail the scan */
    vec_iter_fail_after(it, 2, ST_CORRUPTION);
    family_schema f = fam("f", 1);
    scan_column col = {(const uint8_t *)"f", 1, (const uint8_t *)"a", 1};
    scan_spec s = versions(1);
    s.columns = &col;
    s.ncolumns = 1;
    s.start_row = (const uint8_t *)"r1";
    s.start_row_len = 2;
    s.stop_row = (const uint8_t *)"r1\0";
    s.stop_row_len = 3;
    assert_string_equal(scan_input(it, &f, 1, &s, NOW), "r1: f:a@3=a3");
}

/* ------------------------------------------------------------- results */

static void scan_result_keeps_cells_valid_while_growing(void **state)
{
    (void)state;
    enum { C = 300 };
    char val[700];
    memset(val, 'v', sizeof(val) - 1);
    val[sizeof(val) - 1] = '\0';
    scan_result r;
    scan_result_init(&r);
    char quals[C][8];
    for (int i = 0; i < C; i++) {
        snprintf(quals[i], sizeof(quals[i]), "q%04d", i);
        val[0] = (char)('a' + i % 26);
        tc t = P(i < C / 2 ? "row-one" : "row-two", "f", quals[i], i, 1, val);
        cell_t c = to_cell(&t);
        assert_int_equal(scan_result_add(&r, &c), ST_OK);
    }
    assert_int_equal(r.ncells, C);
    for (int i = 0; i < C; i++) {
        const cell_t *c = &r.cells[i];
        assert_memory_equal(c->row, i < C / 2 ? "row-one" : "row-two", 7);
        assert_memory_equal(c->qualifier, quals[i], 5);
        assert_int_equal(c->value_len, sizeof(val) - 1);
        assert_int_equal(c->value[0], 'a' + i % 26);
        assert_int_equal(c->value[c->value_len - 1], 'v');
        assert_int_equal(c->ts, i);
    }
    scan_result_clear(&r);
    assert_int_equal(r.ncells, 0);
    assert_false(r.partial);
    scan_result_free(&r);
}

static void next_cell_is_refused_for_user_scans(void **state)
{
    (void)state;
    tc in[] = {P("r1", "f", "a", 1, 1, "x")};
    family_schema f = fam("f", 1);
    scan_spec s = versions(1);
    scanner *sc = NULL;
    assert_int_equal(scanner_new(input_of(in, 1), &f, 1, &s, NOW, &sc), ST_OK);
    cell_t c;
    assert_int_equal(scanner_next_cell(sc, &c), ST_INVALID_ARGUMENT);
    scanner_free(sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(put_get_latest),
        cmocka_unit_test(versions_three_keeps_three_newest),
        cmocka_unit_test(max_versions_below_family_versions),
        cmocka_unit_test(same_timestamp_newest_write_wins),
        cmocka_unit_test(delete_exact_version_reveals_older),
        cmocka_unit_test(delete_of_missing_timestamp_hides_nothing),
        cmocka_unit_test(delete_column_hides_older_keeps_newer),
        cmocka_unit_test(delete_family_hides_all_columns_up_to_ts),
        cmocka_unit_test(delete_family_version_hides_exact_ts_only),
        cmocka_unit_test(delete_masks_puts_written_after_it),
        cmocka_unit_test(row_with_everything_deleted_is_not_returned),
        cmocka_unit_test(family_marker_in_empty_qualifier_column_is_never_skipped),
        cmocka_unit_test(major_compaction_drops_markers_and_masked_cells),
        cmocka_unit_test(minor_compaction_keeps_everything),
        cmocka_unit_test(major_compaction_applies_versions_and_ttl),
        cmocka_unit_test(major_compaction_keep_deleted_cells_keeps_markers),
        cmocka_unit_test(ttl_expired_cells_are_hidden),
        cmocka_unit_test(min_versions_keeps_expired_cells),
        cmocka_unit_test(time_range_selects_and_counts_versions_inside),
        cmocka_unit_test(keep_deleted_cells_time_travel),
        cmocka_unit_test(keep_deleted_cells_ttl_reads_as_true),
        cmocka_unit_test(keep_deleted_cells_ttl_major_compaction),
        cmocka_unit_test(raw_scan_returns_markers_and_deleted_cells),
        cmocka_unit_test(explicit_columns_and_whole_families),
        cmocka_unit_test(explicit_columns_seek_past_long_unwanted_columns),
        cmocka_unit_test(several_families_in_one_row_use_their_own_schema),
        cmocka_unit_test(start_stop_rows_forward),
        cmocka_unit_test(start_stop_rows_reversed),
        cmocka_unit_test(reversed_scan_applies_deletes_and_versions),
        cmocka_unit_test(limit_counts_rows),
        cmocka_unit_test(batch_splits_rows_and_marks_partial),
        cmocka_unit_test(filter_prefix_selects_rows),
        cmocka_unit_test(filter_page_limits_rows),
        cmocka_unit_test(filter_single_column_value_drops_rows),
        cmocka_unit_test(filter_key_only_strips_values),
        cmocka_unit_test(filter_list_combines),
        cmocka_unit_test(filter_first_key_only_moves_to_next_row),
        cmocka_unit_test(filter_versions_counted_after_filter),
        cmocka_unit_test(filter_counts_the_last_version_looked_at),
        cmocka_unit_test(filter_next_col_drops_rest_of_column),
        cmocka_unit_test(many_versions_are_skipped_by_seeking),
        cmocka_unit_test(unwanted_family_is_skipped_by_seeking),
        cmocka_unit_test(get_touches_only_its_row),
        cmocka_unit_test(scan_result_keeps_cells_valid_while_growing),
        cmocka_unit_test(next_cell_is_refused_for_user_scans),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
