/*
 * test_region_split.c - splits and merges on disk and the regions made of them
 * (region_fs.h, region_split.c; docs/formats/reference.md): a parent with several files
 * in two families split into daughters opened on the same engine, each seeing exactly
 * its half (forward, reversed and raw scans, ranges across the split row, gets on both
 * sides, also when a daughter is opened over the whole key space); writes to daughters;
 * the compaction that rewrites references into a real file and leaves the parent's files;
 * region_fs_references before and after; the parent removed afterwards; split rows
 * before the first and after the last row; a merge of two adjacent regions; the split
 * point; crash_* (a split run twice, a daughter lost, a leftover .tmp); refusals; the
 * after_maint hook.
 *
 * Background compactions are held off where a test needs the references to stay by
 * failing file creation under the daughters' directories (fio_fault), then let go.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "common/status.h"
#include "regionserver/storage/layout.h"
#include "regionserver/storage/reference.h"
#include "regionserver/storage/region_fs.h"
#include "regionserver/storage/storefile.h"
#include "tests/support/testutil.h"

#define NROWS 100
#define TABLE "default:t"
#define DAUGHTERS_MATCH "/t/d" /* <root>/data/default/t/d... : the daughters' paths */

typedef struct fixture {
    char *dir;
    engine *eng;
    table_schema schema;
    atomic_int flushes_seen; /* after_maint calls */
    atomic_int compactions_seen;
} fixture;

static void count_maint(void *arg, region *r, bool compaction)
{
    fixture *f = arg;
    assert_non_null(r);
    atomic_fetch_add(compaction ? &f->compactions_seen : &f->flushes_seen, 1);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    f->dir = tu_tempdir("split");
    tu_schema(&f->schema, "a,b");
    f->schema.families[1].bloom = BLOOM_ROWCOL;
    f->schema.families[0].block_size = 1024; /* several blocks: a real mid row */
    engine_options o;
    engine_options_init(&o);
    o.root_dir = f->dir;
    o.compaction_min_files = 10; /* the parent keeps its files */
    o.compaction_max_files = 20;
    o.after_maint = count_maint;
    o.after_maint_arg = f;
    assert_int_equal(engine_open(&o, &f->eng), ST_OK);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    fio_fault_clear();
    engine_close(f->eng);
    tu_rmdir(f->dir);
    free(f);
    return 0;
}

static region *open_region(fixture *f, const char *encoded, const char *start, const char *end)
{
    region_info info = tu_whole_region();
    snprintf(info.encoded_name, sizeof(info.encoded_name), "%s", encoded);
    info.start_key = (const uint8_t *)start;
    info.start_key_len = start ? strlen(start) : 0;
    info.end_key = (const uint8_t *)end;
    info.end_key_len = end ? strlen(end) : 0;
    region *r = NULL;
    assert_int_equal(region_open(f->eng, &f->schema, &info, &r), ST_OK);
    return r;
}

static void put(region *r, const char *row, const char *fam, const char *qual, const char *v)
{
    assert_int_equal(tu_put(r, row, fam, qual, v, CELL_LATEST_TIMESTAMP), ST_OK);
}

static void del_column(region *r, const char *row, const char *fam, const char *qual)
{
    cell_t c = tu_cell(fam, qual, NULL, CELL_LATEST_TIMESTAMP, CELL_TYPE_DELETE_COLUMN);
    mutation m = {(const uint8_t *)row, strlen(row), &c, 1, DURABILITY_USE_DEFAULT};
    assert_int_equal(region_mutate(r, &m), ST_OK);
}

/* Rows row<first>..row<last-1> (3 digits) in three flushes and two families: versions,
 * a second column, deletes. */
static void fill(region *r, int first, int last)
{
    char row[16], v[32];
    for (int i = first; i < last; i++) {
        snprintf(row, sizeof(row), "row%03d", i);
        snprintf(v, sizeof(v), "a1-%d", i);
        put(r, row, "a", "q", v);
        if (i % 2 == 0) {
            snprintf(v, sizeof(v), "b1-%d", i);
            put(r, row, "b", "q", v);
        }
    }
    assert_int_equal(region_flush(r), ST_OK);
    for (int i = first; i < last; i += 3) {
        snprintf(row, sizeof(row), "row%03d", i);
        snprintf(v, sizeof(v), "a2-%d", i);
        put(r, row, "a", "q", v);
        put(r, row, "a", "r", v);
    }
    assert_int_equal(region_flush(r), ST_OK);
    for (int i = first; i < last; i++) {
        snprintf(row, sizeof(row), "row%03d", i);
        if (i % 10 == 7)
            del_column(r, row, "a", "q");
        if (i % 4 == 0) {
            snprintf(v, sizeof(v), "b3-%d", i);
            put(r, row, "b", "z", v);
        }
    }
    assert_int_equal(region_flush(r), ST_OK);
}

/* A scan as text: "<row>{<fam>:<qual>=<value>/<type>;...}" per row, in scan order. */
typedef struct scan_opts {
    const char *start;
    const char *stop;
    bool reversed;
    bool raw;
} scan_opts;

/* assert_string_equal that shows where two long texts first differ. */
static void assert_text_equal(const char *got, const char *want)
{
    size_t i = 0;
    while (got[i] && got[i] == want[i])
        i++;
    if (got[i] == want[i])
        return;
    size_t from = i > 80 ? i - 80 : 0;
    fail_msg("texts differ at byte %zu (lengths %zu, %zu):\n  got  ...%.160s\n  want ...%.160s", i,
             strlen(got), strlen(want), got + from, want + from);
}

static char *scan_text(region *r, scan_opts o)
{
    scan_spec spec;
    memset(&spec, 0, sizeof(spec));
    spec.reversed = o.reversed;
    spec.raw = o.raw;
    spec.max_versions = 10;
    if (o.start) {
        spec.start_row = (const uint8_t *)o.start;
        spec.start_row_len = strlen(o.start);
    }
    if (o.stop) {
        spec.stop_row = (const uint8_t *)o.stop;
        spec.stop_row_len = strlen(o.stop);
    }
    region_scanner *s = NULL;
    assert_int_equal(region_scanner_open(r, &spec, &s), ST_OK);
    scan_result res;
    scan_result_init(&res);
    size_t cap = 1 << 16, len = 0;
    char *out = calloc(1, cap);
    int rc;
    while ((rc = region_scanner_next(s, &res)) == 1) {
        const cell_t *c0 = &res.cells[0];
        len += (size_t)snprintf(out + len, cap - len, "%.*s{", (int)c0->row_len,
                                (const char *)c0->row);
        for (size_t i = 0; i < res.ncells; i++) {
            const cell_t *c = &res.cells[i];
            len += (size_t)snprintf(out + len, cap - len, "%.*s:%.*s=%.*s/%d;", (int)c->family_len,
                                    (const char *)c->family, (int)c->qualifier_len,
                                    (const char *)c->qualifier, (int)c->value_len,
                                    (const char *)c->value, c->type);
            assert_true(len < cap - 256);
        }
        len += (size_t)snprintf(out + len, cap - len, "}");
    }
    assert_int_equal(rc, 0);
    scan_result_free(&res);
    region_scanner_close(s);
    return out;
}

/* What the parent shows on each side of the split row: [0] rows < split, [1] rows >=
 * split, forward and raw (a reversed scan is checked against the forward rows reversed). */
typedef struct snapshot {
    char *fwd[2], *raw[2];
} snapshot;

static void take_snapshot(region *parent, const char *split, snapshot *s)
{
    for (int h = 0; h < 2; h++) {
        const char *start = h ? split : NULL, *stop = h ? NULL : split;
        s->fwd[h] = scan_text(parent, (scan_opts){start, stop, false, false});
        s->raw[h] = scan_text(parent, (scan_opts){start, stop, false, true});
    }
}

static void free_snapshot(snapshot *s)
{
    for (int h = 0; h < 2; h++) {
        free(s->fwd[h]);
        free(s->raw[h]);
    }
}

/* The rows of a forward scan's text in reverse order (cells within a row unchanged). */
static char *reverse_rows(const char *fwd)
{
    size_t len = strlen(fwd);
    char *out = calloc(1, len + 1);
    size_t w = 0;
    /* Walk rows from the end: each row ends with '}' and starts after the previous '}'. */
    size_t end = len;
    while (end > 0) {
        size_t start = end - 1;
        while (start > 0 && fwd[start - 1] != '}')
            start--;
        memcpy(out + w, fwd + start, end - start);
        w += end - start;
        end = start;
    }
    out[w] = '\0';
    return out;
}

static void check_half(region *r, const snapshot *s, int h)
{
    char *fwd = scan_text(r, (scan_opts){0});
    assert_string_equal(fwd, s->fwd[h]);
    char *raw = scan_text(r, (scan_opts){.raw = true});
    assert_string_equal(raw, s->raw[h]);
    char *rev = scan_text(r, (scan_opts){.reversed = true});
    char *want_rev = reverse_rows(s->fwd[h]);
    assert_string_equal(rev, want_rev);
    free(fwd);
    free(raw);
    free(rev);
    free(want_rev);
}

static size_t count_files(fixture *f, const char *encoded, const char *family, bool refs)
{
    char *dir = layout_store_dir(f->dir, TABLE, encoded, family);
    size_t n = 0, count = 0;
    char **names = NULL;
    if (fio_exists(dir)) {
        assert_int_equal(fio_list_dir(dir, &names, &n), ST_OK);
        for (size_t i = 0; i < n; i++)
            count += reference_is_name(names[i]) == refs;
        fio_free_list(names, n);
    }
    free(dir);
    return count;
}

static bool references(fixture *f, const char *encoded, const char *parent)
{
    bool yes = false;
    assert_int_equal(region_fs_references(f->dir, &f->schema, encoded, parent, &yes), ST_OK);
    return yes;
}

static void hold_daughter_compactions(void)
{
    fio_fault fault = {.op = FIO_OP_CREATE, .path_match = DAUGHTERS_MATCH, .count = -1};
    fio_fault_set(&fault);
}

/* A parent region "parent" filled with rows row000..row099, snapshotted at split and
 * closed. */
static void make_parent(fixture *f, const char *split, snapshot *s)
{
    region *p = open_region(f, "parent", NULL, NULL);
    fill(p, 0, NROWS);
    take_snapshot(p, split, s);
    assert_int_equal(region_close(p, true), ST_OK);
    assert_int_equal(count_files(f, "parent", "a", false), 3);
    assert_int_equal(count_files(f, "parent", "b", false), 2);
}

static void get_one(region *r, const char *row, const char *fam, const char *qual, int want,
                    const char *want_value)
{
    char v[64];
    int got = tu_get(r, row, fam, qual, v, sizeof(v));
    assert_int_equal(got, want);
    if (want == 1)
        assert_string_equal(v, want_value);
}

/* ---- split ---- */

static void split_daughters_see_their_halves(void **state)
{
    fixture *f = *state;
    snapshot snap;
    make_parent(f, "row050", &snap);
    assert_int_equal(region_fs_split(f->dir, &f->schema, "parent", "da", "db",
                                     (const uint8_t *)"row050", 6, NULL),
                     ST_OK);
    assert_true(references(f, "da", "parent"));
    assert_true(references(f, "db", "parent"));
    assert_false(references(f, "da", "other"));
    assert_int_equal(count_files(f, "da", "a", true), 3);
    assert_int_equal(count_files(f, "db", "a", true), 3);
    assert_int_equal(count_files(f, "da", "b", true), 2);
    assert_int_equal(count_files(f, "db", "b", true), 2);

    hold_daughter_compactions();
    region *da = open_region(f, "da", NULL, "row050");
    region *db = open_region(f, "db", "row050", NULL);
    assert_true(region_has_references(da));
    assert_true(region_has_references(db));
    check_half(da, &snap, 0);
    check_half(db, &snap, 1);
    /* Ranges across the split row are clamped by each daughter. */
    char *t = scan_text(da, (scan_opts){.start = "row045", .stop = "row055"});
    assert_non_null(strstr(t, "row049{"));
    assert_null(strstr(t, "row050{"));
    assert_null(strstr(t, "row044{"));
    free(t);
    t = scan_text(db, (scan_opts){.start = "row045", .stop = "row055"});
    assert_true(strncmp(t, "row050{", 7) == 0);
    assert_non_null(strstr(t, "row054{"));
    assert_null(strstr(t, "row055{"));
    free(t);
    /* Reversed scans starting across the split row. */
    t = scan_text(da, (scan_opts){.start = "row052", .reversed = true});
    assert_true(strncmp(t, "row049{", 7) == 0);
    assert_non_null(strstr(t, "}row000{"));
    free(t);
    t = scan_text(db, (scan_opts){.start = "row052", .stop = "row040", .reversed = true});
    assert_true(strncmp(t, "row052{", 7) == 0);
    assert_non_null(strstr(t, "}row050{"));
    assert_null(strstr(t, "row049{"));
    free(t);
    /* Gets on both sides. */
    get_one(da, "row000", "a", "q", 1, "a2-0");
    get_one(da, "row049", "a", "q", 1, "a1-49");
    get_one(da, "row047", "a", "q", 0, NULL); /* deleted */
    get_one(da, "row048", "b", "z", 1, "b3-48");
    get_one(db, "row050", "a", "q", 1, "a1-50");
    get_one(db, "row051", "a", "r", 1, "a2-51");
    get_one(db, "row099", "a", "q", 1, "a2-99");
    get_one(db, "row052", "b", "q", 1, "b1-52");
    get_one(db, "row053", "b", "q", 0, NULL);
    assert_int_equal(tu_get(da, "row050", "a", "q", NULL, 0), ST_NOT_SERVING);
    assert_int_equal(tu_get(db, "row049", "a", "q", NULL, 0), ST_NOT_SERVING);
    buf_t row = {0};
    assert_int_equal(region_best_split_row(da, &row), ST_NOT_FOUND);
    assert_non_null(strstr(st_errmsg(), "da"));

    /* Writes to the daughters, read with the references. */
    put(da, "row010", "a", "new", "da-new");
    put(db, "row070", "b", "new", "db-new");
    put(db, "row100", "a", "q", "db-row100");
    get_one(da, "row010", "a", "new", 1, "da-new");
    get_one(db, "row070", "b", "new", 1, "db-new");
    get_one(db, "row100", "a", "q", 1, "db-row100");

    /* Compaction rewrites da's references into real files, the parent's stay (db's
     * compactions still held). */
    fio_fault hold_db = {.op = FIO_OP_CREATE, .path_match = "/t/db/", .count = -1};
    fio_fault_set(&hold_db);
    int compactions_before = atomic_load(&f->compactions_seen);
    assert_int_equal(region_compact(da, false), ST_OK);
    assert_false(region_has_references(da));
    assert_true(atomic_load(&f->compactions_seen) > compactions_before);
    assert_false(references(f, "da", "parent"));
    assert_int_equal(count_files(f, "da", "a", true), 0);
    assert_int_equal(count_files(f, "da", "a", false), 1);
    assert_int_equal(count_files(f, "da", "b", false), 1);
    assert_int_equal(count_files(f, "parent", "a", false), 3);
    assert_int_equal(count_files(f, "parent", "b", false), 2);
    assert_true(references(f, "db", "parent")); /* until db compacts too */
    get_one(da, "row010", "a", "new", 1, "da-new");
    get_one(da, "row049", "a", "q", 1, "a1-49");
    assert_int_equal(region_best_split_row(da, &row), ST_OK);
    assert_true(row.len > 0);
    buf_free(&row);

    fio_fault_clear();
    assert_int_equal(region_compact(db, false), ST_OK);
    assert_false(region_has_references(db));
    assert_false(references(f, "db", "parent"));

    /* The janitor may now remove the parent; the daughters no longer need it. */
    assert_int_equal(region_fs_remove(f->dir, TABLE, "parent"), ST_OK);
    assert_int_equal(region_close(da, true), ST_OK);
    assert_int_equal(region_close(db, true), ST_OK);
    da = open_region(f, "da", NULL, "row050");
    db = open_region(f, "db", "row050", NULL);
    char *fwd = scan_text(da, (scan_opts){0});
    assert_non_null(strstr(fwd, "a:new=da-new"));
    assert_non_null(strstr(fwd, "row049{"));
    assert_null(strstr(fwd, "row050{"));
    free(fwd);
    get_one(db, "row051", "a", "r", 1, "a2-51");
    get_one(db, "row100", "a", "q", 1, "db-row100");
    assert_int_equal(region_close(da, true), ST_OK);
    assert_int_equal(region_close(db, true), ST_OK);
    free_snapshot(&snap);
}

/* Opened over the whole key space, a daughter still sees only its half: the
 * references, not the region's range, hold the rows back. */
static void daughter_over_whole_range_sees_only_its_half(void **state)
{
    fixture *f = *state;
    snapshot snap;
    make_parent(f, "row050", &snap);
    assert_int_equal(region_fs_split(f->dir, &f->schema, "parent", "da", "db",
                                     (const uint8_t *)"row050", 6, NULL),
                     ST_OK);
    hold_daughter_compactions();
    region *da = open_region(f, "da", NULL, NULL);
    region *db = open_region(f, "db", NULL, NULL);
    check_half(da, &snap, 0);
    check_half(db, &snap, 1);
    get_one(da, "row050", "a", "q", 0, NULL);
    get_one(da, "row099", "a", "q", 0, NULL);
    get_one(da, "row050", "b", "q", 0, NULL); /* ROWCOL bloom family */
    get_one(db, "row049", "a", "q", 0, NULL);
    get_one(db, "row000", "b", "q", 0, NULL);
    get_one(db, "row050", "b", "q", 1, "b1-50");
    fio_fault_clear();
    assert_int_equal(region_close(da, false), ST_OK);
    assert_int_equal(region_close(db, false), ST_OK);
    free_snapshot(&snap);
}

static void split_row_outside_the_files(void **state)
{
    fixture *f = *state;
    snapshot lo, hi;
    make_parent(f, "a", &lo);
    region *p = open_region(f, "parent", NULL, NULL);
    take_snapshot(p, "zzz", &hi);
    assert_int_equal(region_close(p, false), ST_OK);

    /* Before the first row: the lower daughter gets no reference at all. */
    assert_int_equal(
        region_fs_split(f->dir, &f->schema, "parent", "d1", "d2", (const uint8_t *)"a", 1, NULL),
        ST_OK);
    assert_int_equal(count_files(f, "d1", "a", true) + count_files(f, "d1", "b", true), 0);
    assert_int_equal(count_files(f, "d2", "a", true), 3);
    assert_false(references(f, "d1", "parent"));
    assert_true(references(f, "d2", "parent"));
    /* After the last row: the upper daughter gets none. */
    assert_int_equal(
        region_fs_split(f->dir, &f->schema, "parent", "d3", "d4", (const uint8_t *)"zzz", 3, NULL),
        ST_OK);
    assert_int_equal(count_files(f, "d3", "a", true), 3);
    assert_int_equal(count_files(f, "d4", "a", true) + count_files(f, "d4", "b", true), 0);
    /* On a row inside: both. */
    hold_daughter_compactions();
    region *d1 = open_region(f, "d1", NULL, "a");
    region *d2 = open_region(f, "d2", "a", NULL);
    region *d3 = open_region(f, "d3", NULL, "zzz");
    region *d4 = open_region(f, "d4", "zzz", NULL);
    assert_false(region_has_references(d1));
    assert_false(region_has_references(d4));
    check_half(d1, &lo, 0);
    check_half(d2, &lo, 1);
    check_half(d3, &hi, 0);
    check_half(d4, &hi, 1);
    assert_string_equal(lo.fwd[0], "");
    assert_string_equal(hi.fwd[1], "");
    fio_fault_clear();
    region *all[4] = {d1, d2, d3, d4};
    for (int i = 0; i < 4; i++)
        assert_int_equal(region_close(all[i], false), ST_OK);
    free_snapshot(&lo);
    free_snapshot(&hi);
}

/* ---- merge ---- */

static void merge_of_adjacent_regions_sees_both(void **state)
{
    fixture *f = *state;
    region *p1 = open_region(f, "p1", NULL, "row050");
    region *p2 = open_region(f, "p2", "row050", NULL);
    fill(p1, 0, 50);
    fill(p2, 50, NROWS);
    char *want1 = scan_text(p1, (scan_opts){0}), *want2 = scan_text(p2, (scan_opts){0});
    char *raw1 = scan_text(p1, (scan_opts){.raw = true});
    char *raw2 = scan_text(p2, (scan_opts){.raw = true});
    assert_int_equal(region_close(p1, true), ST_OK);
    assert_int_equal(region_close(p2, true), ST_OK);
    const char *parents[2] = {"p1", "p2"};
    assert_int_equal(region_fs_merge(f->dir, &f->schema, parents, 2, "merged", NULL), ST_OK);
    assert_true(references(f, "merged", "p1"));
    assert_true(references(f, "merged", "p2"));
    assert_int_equal(count_files(f, "merged", "a", true), 6);
    assert_int_equal(count_files(f, "merged", "b", true), 4);
    /* Running it again changes nothing. */
    assert_int_equal(region_fs_merge(f->dir, &f->schema, parents, 2, "merged", NULL), ST_OK);
    assert_int_equal(count_files(f, "merged", "a", true), 6);

    /* Hold off the compaction the open queues (it rewrites the references and drops the
     * versions the raw scans below must still see) until the test compacts itself. */
    fio_fault hold = {.op = FIO_OP_CREATE, .path_match = "/t/merged/", .count = -1};
    fio_fault_set(&hold);
    region *m = open_region(f, "merged", NULL, NULL);
    char *both = NULL, *raw_both = NULL;
    assert_true(asprintf(&both, "%s%s", want1, want2) > 0);
    assert_true(asprintf(&raw_both, "%s%s", raw1, raw2) > 0);
    char *got = scan_text(m, (scan_opts){0});
    assert_text_equal(got, both);
    free(got);
    got = scan_text(m, (scan_opts){.raw = true});
    assert_text_equal(got, raw_both);
    free(got);
    got = scan_text(m, (scan_opts){.reversed = true});
    char *want_rev = reverse_rows(both);
    assert_text_equal(got, want_rev);
    free(got);
    free(want_rev);
    get_one(m, "row049", "a", "q", 1, "a1-49");
    get_one(m, "row053", "a", "r", 1, "a2-53");
    assert_true(region_has_references(m));
    fio_fault_clear();
    assert_int_equal(region_compact(m, false), ST_OK);
    assert_false(region_has_references(m));
    assert_false(references(f, "merged", "p1"));
    assert_false(references(f, "merged", "p2"));
    got = scan_text(m, (scan_opts){0});
    assert_text_equal(got, both);
    free(got);
    assert_int_equal(region_close(m, true), ST_OK);
    free(both);
    free(raw_both);
    free(want1);
    free(want2);
    free(raw1);
    free(raw2);
}

/* ---- refusals ---- */

static void refusals(void **state)
{
    fixture *f = *state;
    snapshot snap;
    make_parent(f, "row050", &snap);
    const uint8_t *row = (const uint8_t *)"row050";
    assert_int_equal(region_fs_split(f->dir, &f->schema, "nosuch", "da", "db", row, 6, NULL),
                     ST_NOT_FOUND);
    assert_non_null(strstr(st_errmsg(), "nosuch"));
    assert_int_equal(region_fs_split(f->dir, &f->schema, "parent", "da", "db", row, 0, NULL),
                     ST_INVALID_ARGUMENT);
    assert_int_equal(region_fs_split(f->dir, &f->schema, "parent", "da", "da", row, 6, NULL),
                     ST_INVALID_ARGUMENT);
    assert_int_equal(region_fs_split(f->dir, &f->schema, "parent", "parent", "db", row, 6, NULL),
                     ST_INVALID_ARGUMENT);
    assert_int_equal(region_fs_split(f->dir, &f->schema, "parent", "../x", "db", row, 6, NULL),
                     ST_INVALID_ARGUMENT);
    assert_int_equal(count_files(f, "da", "a", true), 0);
    /* A region holding references is neither split nor merged. */
    assert_int_equal(region_fs_split(f->dir, &f->schema, "parent", "da", "db", row, 6, NULL),
                     ST_OK);
    assert_int_equal(
        region_fs_split(f->dir, &f->schema, "da", "da1", "da2", (const uint8_t *)"row020", 6, NULL),
        ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "da"));
    assert_non_null(strstr(st_errmsg(), "reference"));
    assert_int_equal(count_files(f, "da1", "a", true), 0);
    const char *parents[2] = {"da", "db"};
    assert_int_equal(region_fs_merge(f->dir, &f->schema, parents, 2, "m", NULL),
                     ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "reference"));
    assert_int_equal(region_fs_merge(f->dir, &f->schema, parents, 1, "m", NULL),
                     ST_INVALID_ARGUMENT);
    const char *twice[2] = {"parent", "parent"};
    assert_int_equal(region_fs_merge(f->dir, &f->schema, twice, 2, "m", NULL), ST_INVALID_ARGUMENT);
    const char *self[2] = {"parent", "m"};
    assert_int_equal(region_fs_merge(f->dir, &f->schema, self, 2, "m", NULL), ST_INVALID_ARGUMENT);
    /* Edits of the parent still to replay are in no store file: refused. */
    char *edits = layout_recovered_edits_dir(f->dir, TABLE, "parent"), *edit = NULL;
    assert_true(asprintf(&edit, "%s/00000000000000000042", edits) > 0);
    assert_int_equal(fio_mkdirs(edits), ST_OK);
    assert_int_equal(fio_write_atomic(edit, "x", 1), ST_OK);
    assert_int_equal(region_fs_split(f->dir, &f->schema, "parent", "dx", "dy", row, 6, NULL),
                     ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "recovered edits"));
    const char *with_edits[2] = {"parent", "other"};
    assert_int_equal(region_fs_merge(f->dir, &f->schema, with_edits, 2, "m", NULL),
                     ST_INVALID_ARGUMENT);
    assert_int_equal(fio_unlink(edit), ST_OK);
    /* An unfinished WAL split output is no edit. */
    free(edit);
    assert_true(asprintf(&edit, "%s/.split-1-1.tmp", edits) > 0);
    assert_int_equal(fio_write_atomic(edit, "x", 1), ST_OK);
    assert_int_equal(region_fs_split(f->dir, &f->schema, "parent", "dx", "dy", row, 6, NULL),
                     ST_OK);
    free(edit);
    free(edits);
    /* The janitor's question of a region without a directory. */
    assert_false(references(f, "nosuch", "parent"));
    assert_int_equal(region_fs_remove(f->dir, TABLE, "nosuch"), ST_OK);
    assert_int_equal(region_fs_remove(f->dir, TABLE, ".."), ST_INVALID_ARGUMENT);
    assert_int_equal(region_fs_remove(f->dir, TABLE, ""), ST_INVALID_ARGUMENT);
    /* Rollback: the daughters go, the parent stays. */
    assert_int_equal(region_fs_remove(f->dir, TABLE, "da"), ST_OK);
    assert_int_equal(region_fs_remove(f->dir, TABLE, "db"), ST_OK);
    char *dir = layout_region_dir(f->dir, TABLE, "da");
    assert_false(fio_exists(dir));
    free(dir);
    assert_int_equal(count_files(f, "parent", "a", false), 3);
    free_snapshot(&snap);
}

/* A daughter whose parent files are gone before its compaction fails to open, naming
 * the reference and the missing file. */
static void missing_parent_file_fails_the_open(void **state)
{
    fixture *f = *state;
    snapshot snap;
    make_parent(f, "row050", &snap);
    assert_int_equal(region_fs_split(f->dir, &f->schema, "parent", "da", "db",
                                     (const uint8_t *)"row050", 6, NULL),
                     ST_OK);
    assert_int_equal(region_fs_remove(f->dir, TABLE, "parent"), ST_OK);
    region_info info = tu_whole_region();
    snprintf(info.encoded_name, sizeof(info.encoded_name), "da");
    region *r = NULL;
    assert_int_equal(region_open(f->eng, &f->schema, &info, &r), ST_NOT_FOUND);
    assert_null(r);
    assert_non_null(strstr(st_errmsg(), "/da/"));
    assert_non_null(strstr(st_errmsg(), "/parent/"));
    free_snapshot(&snap);
}

/* ---- crashes ---- */

/* Every file of a region directory with its bytes, as one text. */
static char *dir_text(fixture *f, const char *encoded)
{
    size_t cap = 1 << 16, len = 0;
    char *out = calloc(1, cap);
    for (size_t i = 0; i < f->schema.nfamilies; i++) {
        char *dir = layout_store_dir(f->dir, TABLE, encoded, f->schema.families[i].name);
        char **names = NULL;
        size_t n = 0;
        if (fio_exists(dir))
            assert_int_equal(fio_list_dir(dir, &names, &n), ST_OK);
        for (size_t j = 0; j < n; j++) {
            char *p = NULL;
            assert_true(asprintf(&p, "%s/%s", dir, names[j]) > 0);
            buf_t b = {0};
            assert_int_equal(fio_read_all(p, &b), ST_OK);
            len += (size_t)snprintf(out + len, cap - len, "%s/%s:", f->schema.families[i].name,
                                    names[j]);
            for (size_t k = 0; k < b.len && len < cap - 8; k++)
                len += (size_t)snprintf(out + len, cap - len, "%02x", b.data[k]);
            len += (size_t)snprintf(out + len, cap - len, "\n");
            buf_free(&b);
            free(p);
        }
        fio_free_list(names, n);
        free(dir);
    }
    return out;
}

static void crash_split_run_again_gives_the_same(void **state)
{
    fixture *f = *state;
    snapshot snap;
    make_parent(f, "row050", &snap);
    const uint8_t *row = (const uint8_t *)"row050";
    assert_int_equal(region_fs_split(f->dir, &f->schema, "parent", "da", "db", row, 6, NULL),
                     ST_OK);
    char *a1 = dir_text(f, "da"), *b1 = dir_text(f, "db");
    /* Twice in a row. */
    assert_int_equal(region_fs_split(f->dir, &f->schema, "parent", "da", "db", row, 6, NULL),
                     ST_OK);
    char *a2 = dir_text(f, "da"), *b2 = dir_text(f, "db");
    assert_string_equal(a1, a2);
    assert_string_equal(b1, b2);
    free(a2);
    free(b2);
    /* A crash that left daughter B unwritten and a torn temp file in A. */
    assert_int_equal(region_fs_remove(f->dir, TABLE, "db"), ST_OK);
    char *adir = layout_store_dir(f->dir, TABLE, "da", "a"), *names_first = NULL;
    char **names = NULL;
    size_t n = 0;
    assert_int_equal(fio_list_dir(adir, &names, &n), ST_OK);
    assert_true(n > 0);
    assert_true(asprintf(&names_first, "%s/%s.tmp", adir, names[0]) > 0);
    fio_free_list(names, n);
    assert_int_equal(fio_write_atomic(names_first, "STRA", 4), ST_OK);
    /* A write that failed part-way (after some references) and was retried. */
    fio_fault fault = {.op = FIO_OP_RENAME, .path_match = "/t/db/", .skip = 2, .count = 1};
    fio_fault_set(&fault);
    assert_int_not_equal(region_fs_split(f->dir, &f->schema, "parent", "da", "db", row, 6, NULL),
                         ST_OK);
    fio_fault_clear();
    assert_int_equal(region_fs_split(f->dir, &f->schema, "parent", "da", "db", row, 6, NULL),
                     ST_OK);
    assert_false(fio_exists(names_first)); /* replaced by the reference written again */
    a2 = dir_text(f, "da");
    b2 = dir_text(f, "db");
    assert_string_equal(a1, a2);
    assert_string_equal(b1, b2);
    /* A leftover .tmp after a complete split: the daughter opens, removes it, reads. */
    assert_int_equal(fio_write_atomic(names_first, "STRA", 4), ST_OK);
    hold_daughter_compactions();
    region *da = open_region(f, "da", NULL, "row050");
    assert_false(fio_exists(names_first));
    check_half(da, &snap, 0);
    fio_fault_clear();
    assert_int_equal(region_close(da, false), ST_OK);
    free(names_first);
    free(adir);
    free(a1);
    free(b1);
    free(a2);
    free(b2);
    free_snapshot(&snap);
}

/* ---- split point ---- */

/* The mid row of the largest file of family fam of region encoded, opened directly. */
static void largest_file_mid_row(fixture *f, const char *encoded, const char *fam, buf_t *row)
{
    char *dir = layout_store_dir(f->dir, TABLE, encoded, fam);
    char **names = NULL;
    size_t n = 0;
    assert_int_equal(fio_list_dir(dir, &names, &n), ST_OK);
    uint64_t best = 0;
    for (size_t i = 0; i < n; i++) {
        char *p = NULL;
        assert_true(asprintf(&p, "%s/%s", dir, names[i]) > 0);
        storefile *sf = NULL;
        assert_int_equal(storefile_open(p, NULL, &sf), ST_OK);
        if (storefile_get_info(sf)->file_size > best) {
            best = storefile_get_info(sf)->file_size;
            assert_int_equal(storefile_mid_row(sf, row), ST_OK);
        }
        storefile_unref(sf);
        free(p);
    }
    fio_free_list(names, n);
    free(dir);
}

static void best_split_row_cases(void **state)
{
    fixture *f = *state;
    buf_t row = {0}, want = {0};
    region *r = open_region(f, "r1", NULL, NULL);
    assert_int_equal(region_best_split_row(r, &row), ST_NOT_FOUND);
    assert_non_null(strstr(st_errmsg(), "r1"));
    /* Only family b has files: its one file. */
    char k[16];
    for (int i = 0; i < 40; i++) {
        snprintf(k, sizeof(k), "k%03d", i);
        put(r, k, "b", "q", "small");
    }
    assert_int_equal(region_flush(r), ST_OK);
    assert_int_equal(region_best_split_row(r, &row), ST_OK);
    largest_file_mid_row(f, "r1", "b", &want);
    assert_int_equal(row.len, want.len);
    assert_memory_equal(row.data, want.data, row.len);
    /* Family a grows larger (in small blocks): the largest store's largest file. */
    char v[200];
    memset(v, 'x', sizeof(v) - 1);
    v[sizeof(v) - 1] = '\0';
    for (int i = 0; i < 60; i++) {
        snprintf(k, sizeof(k), "m%03d", i);
        put(r, k, "a", "q", "s");
    }
    assert_int_equal(region_flush(r), ST_OK);
    for (int i = 0; i < 300; i++) {
        snprintf(k, sizeof(k), "n%03d", i);
        put(r, k, "a", "q", v);
    }
    assert_int_equal(region_flush(r), ST_OK);
    assert_int_equal(region_best_split_row(r, &row), ST_OK);
    largest_file_mid_row(f, "r1", "a", &want);
    assert_int_equal(row.len, want.len);
    assert_memory_equal(row.data, want.data, row.len);
    assert_true(row.data[0] == 'n');              /* from the large file, not the first one */
    assert_true(memcmp(row.data, "n000", 4) > 0); /* a middle block's, not the first */
    assert_int_equal(region_close(r, true), ST_OK);
    buf_free(&row);
    buf_free(&want);
}

/* ---- the hook ---- */

static void after_maint_hook_runs_after_flush_and_compaction(void **state)
{
    fixture *f = *state;
    region *r = open_region(f, "r1", NULL, NULL);
    int flushes = atomic_load(&f->flushes_seen);
    assert_int_equal(region_flush(r), ST_OK); /* nothing to flush: no call */
    assert_int_equal(atomic_load(&f->flushes_seen), flushes);
    put(r, "x", "a", "q", "v");
    assert_int_equal(region_flush(r), ST_OK);
    assert_int_equal(atomic_load(&f->flushes_seen), flushes + 1);
    put(r, "y", "a", "q", "v");
    assert_int_equal(region_flush(r), ST_OK);
    int compactions = atomic_load(&f->compactions_seen);
    assert_int_equal(region_compact(r, true), ST_OK);
    assert_true(atomic_load(&f->compactions_seen) > compactions);
    put(r, "z", "a", "q", "v");
    flushes = atomic_load(&f->flushes_seen);
    assert_int_equal(region_close(r, true), ST_OK); /* the close's flush: no call */
    assert_int_equal(atomic_load(&f->flushes_seen), flushes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(split_daughters_see_their_halves, setup, teardown),
        cmocka_unit_test_setup_teardown(daughter_over_whole_range_sees_only_its_half, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(split_row_outside_the_files, setup, teardown),
        cmocka_unit_test_setup_teardown(merge_of_adjacent_regions_sees_both, setup, teardown),
        cmocka_unit_test_setup_teardown(refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_parent_file_fails_the_open, setup, teardown),
        cmocka_unit_test_setup_teardown(crash_split_run_again_gives_the_same, setup, teardown),
        cmocka_unit_test_setup_teardown(best_split_row_cases, setup, teardown),
        cmocka_unit_test_setup_teardown(after_maint_hook_runs_after_flush_and_compaction, setup,
                                        teardown),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
