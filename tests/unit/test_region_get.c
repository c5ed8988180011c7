/*
 * test_region_get.c - the Get fast path (region_read.c) against the full merge.
 *
 * A Get that names its columns reads its sources newest first and stops early; a scan
 * of the same row merges every source. Random puts and deletes with client timestamps
 * (older sources then hold newer versions and markers), flushes between them, and for
 * every row several column requests, version counts and time ranges: the two must
 * return the same cells.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "tests/support/testutil.h"

#define ROWS 6
#define QUALS 3

typedef struct fixture {
    char *dir;
    engine *eng;
    region *reg;
    table_schema schema;
} fixture;

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11) % n;
}

static void open_region(fixture *f)
{
    engine_options o;
    engine_options_init(&o);
    o.root_dir = f->dir;
    assert_int_equal(engine_open(&o, &f->eng), ST_OK);
    region_info info = tu_whole_region();
    assert_int_equal(region_open(f->eng, &f->schema, &info, &f->reg), ST_OK);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    f->dir = tu_tempdir("region_get");
    tu_schema(&f->schema, "a,b");
    f->schema.families[0].versions = 1;
    f->schema.families[1].versions = 3;
    open_region(f);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    if (f->reg)
        region_close(f->reg, false);
    engine_close(f->eng);
    tu_rmdir(f->dir);
    free(f);
    return 0;
}

static const char *fam_name(int i)
{
    return i ? "b" : "a";
}

static void random_write(fixture *f, int i)
{
    char row[8], qual[8], value[32];
    snprintf(row, sizeof(row), "r%u", rnd(ROWS));
    snprintf(qual, sizeof(qual), "q%u", rnd(QUALS));
    snprintf(value, sizeof(value), "v%d", i);
    const char *fam = fam_name((int)rnd(2));
    int64_t ts = rnd(8) == 0 ? CELL_LATEST_TIMESTAMP : (int64_t)(1 + rnd(40));
    uint32_t kind = rnd(10);
    if (kind < 6) {
        assert_int_equal(tu_put(f->reg, row, fam, qual, value, ts), ST_OK);
        return;
    }
    static const uint8_t types[4] = {CELL_TYPE_DELETE, CELL_TYPE_DELETE_COLUMN,
                                     CELL_TYPE_DELETE_FAMILY, CELL_TYPE_DELETE_FAMILY_VERSION};
    uint8_t type = types[kind - 6];
    bool family_scope = type == CELL_TYPE_DELETE_FAMILY || type == CELL_TYPE_DELETE_FAMILY_VERSION;
    if (ts == CELL_LATEST_TIMESTAMP && type != CELL_TYPE_DELETE)
        ts = 1 + rnd(40);
    cell_t d = tu_cell(fam, family_scope ? "" : qual, NULL, ts, type);
    mutation m = {(const uint8_t *)row, strlen(row), &d, 1, DURABILITY_USE_DEFAULT};
    assert_int_equal(region_mutate(f->reg, &m), ST_OK);
}

/* The same row read through a scanner: every source merged. */
static void read_by_scan(fixture *f, const char *row, const scan_spec *get, scan_result *out)
{
    char stop[16];
    size_t len = strlen(row);
    memcpy(stop, row, len);
    stop[len] = 0;
    scan_spec s = *get;
    s.start_row = (const uint8_t *)row;
    s.start_row_len = len;
    s.stop_row = (const uint8_t *)stop;
    s.stop_row_len = len + 1;
    region_scanner *sc = NULL;
    assert_int_equal(region_scanner_open(f->reg, &s, &sc), ST_OK);
    scan_result_clear(out);
    int rc = region_scanner_next(sc, out);
    assert_true(rc >= 0);
    if (rc == 0)
        scan_result_clear(out);
    region_scanner_close(sc);
}

static void assert_same(const scan_result *a, const scan_result *b, const char *what)
{
    bool same = a->ncells == b->ncells;
    for (size_t i = 0; same && i < a->ncells; i++) {
        const cell_t *x = &a->cells[i], *y = &b->cells[i];
        same = x->ts == y->ts && x->type == y->type && x->family_len == y->family_len &&
               x->qualifier_len == y->qualifier_len && x->value_len == y->value_len &&
               memcmp(x->family, y->family, x->family_len) == 0 &&
               memcmp(x->qualifier, y->qualifier, x->qualifier_len) == 0 &&
               memcmp(x->value, y->value, x->value_len) == 0;
    }
    if (!same) {
        print_error("%s: get returned %zu cells, the scan %zu\n", what, a->ncells, b->ncells);
        for (size_t i = 0; i < a->ncells; i++)
            print_error("  get  %.*s:%.*s ts %lld = %.*s\n", (int)a->cells[i].family_len,
                        (const char *)a->cells[i].family, (int)a->cells[i].qualifier_len,
                        (const char *)a->cells[i].qualifier, (long long)a->cells[i].ts,
                        (int)a->cells[i].value_len, (const char *)a->cells[i].value);
        for (size_t i = 0; i < b->ncells; i++)
            print_error("  scan %.*s:%.*s ts %lld = %.*s\n", (int)b->cells[i].family_len,
                        (const char *)b->cells[i].family, (int)b->cells[i].qualifier_len,
                        (const char *)b->cells[i].qualifier, (long long)b->cells[i].ts,
                        (int)b->cells[i].value_len, (const char *)b->cells[i].value);
        fail();
    }
}

/* Every row, with one column, two columns of two families, and a whole family beside a
 * named column (not the fast path), at 1..3 versions, with and without a time range. */
static void compare_all(fixture *f, int round)
{
    scan_result got, want;
    scan_result_init(&got);
    scan_result_init(&want);
    char quals[QUALS][4];
    for (int q = 0; q < QUALS; q++)
        snprintf(quals[q], sizeof(quals[q]), "q%d", q);
    for (int r = 0; r < ROWS; r++) {
        char row[8];
        snprintf(row, sizeof(row), "r%d", r);
        for (int shape = 0; shape < 6; shape++) {
            scan_column cols[2];
            int qa = (r + shape) % QUALS, qb = (r + 2 * shape + 1) % QUALS;
            cols[0] = (scan_column){(const uint8_t *)fam_name(shape & 1), 1,
                                    (const uint8_t *)quals[qa], 2};
            cols[1] = (scan_column){(const uint8_t *)fam_name(!(shape & 1)), 1,
                                    shape == 5 ? NULL : (const uint8_t *)quals[qb], 2};
            scan_spec s = {0};
            s.columns = cols;
            s.ncolumns = shape < 2 ? 1 : 2;
            s.max_versions = 1 + shape % 3;
            if (shape == 3) {
                s.min_ts = 10;
                s.max_ts = 30;
            }
            char what[96];
            snprintf(what, sizeof(what), "round %d row %s shape %d", round, row, shape);
            assert_int_equal(region_get(f->reg, (const uint8_t *)row, strlen(row), &s, &got),
                             ST_OK);
            read_by_scan(f, row, &s, &want);
            assert_same(&got, &want, what);
        }
    }
    scan_result_free(&got);
    scan_result_free(&want);
}

static void get_matches_full_merge(void **state)
{
    fixture *f = *state;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        rng_state = 0x9E3779B97F4A7C15ull * seed;
        for (int i = 0; i < 400; i++) {
            random_write(f, i);
            if (rnd(40) == 0)
                assert_int_equal(region_flush(f->reg), ST_OK);
            if (rnd(400) == 0)
                assert_int_equal(region_compact(f->reg, false), ST_OK);
            if (i % 50 == 49)
                compare_all(f, (int)(seed * 1000 + (uint64_t)i));
        }
        assert_int_equal(region_flush(f->reg), ST_OK);
        compare_all(f, (int)(seed * 1000 + 999));
        assert_int_equal(region_compact(f->reg, true), ST_OK);
        compare_all(f, (int)(seed * 1000 + 1000));
    }
}

/* The case the fast path exists for, spelled out: the newest source answers, and an
 * older file with a newer client timestamp still wins. */
static void older_file_with_newer_timestamp_wins(void **state)
{
    fixture *f = *state;
    char v[16];
    assert_int_equal(tu_put(f->reg, "k", "a", "q", "late-ts", 500), ST_OK);
    assert_int_equal(region_flush(f->reg), ST_OK);
    assert_int_equal(tu_put(f->reg, "k", "a", "q", "early-ts", 100), ST_OK);
    assert_int_equal(tu_get(f->reg, "k", "a", "q", v, sizeof(v)), 1);
    assert_string_equal(v, "late-ts");
    /* A column delete in an old file with a timestamp above the memstore's put. */
    assert_int_equal(tu_put(f->reg, "m", "a", "q", "masked", 200), ST_OK);
    cell_t d = tu_cell("a", "q", NULL, 300, CELL_TYPE_DELETE_COLUMN);
    mutation m = {(const uint8_t *)"m", 1, &d, 1, DURABILITY_USE_DEFAULT};
    assert_int_equal(region_mutate(f->reg, &m), ST_OK);
    assert_int_equal(region_flush(f->reg), ST_OK);
    assert_int_equal(tu_put(f->reg, "m", "a", "q", "also-masked", 250), ST_OK);
    assert_int_equal(tu_get(f->reg, "m", "a", "q", v, sizeof(v)), 0);
    assert_int_equal(tu_put(f->reg, "m", "a", "q", "visible", 301), ST_OK);
    assert_int_equal(tu_get(f->reg, "m", "a", "q", v, sizeof(v)), 1);
    assert_string_equal(v, "visible");
}

/* The memstore's row bloom lets a Get skip it only for rows it never saw: a row whose
 * only memstore cell is a family delete marker still has it applied, and a row that is
 * only in a file is read from there while the memstore holds other rows. */
static void memstore_row_bloom_skips_only_unseen_rows(void **state)
{
    fixture *f = *state;
    char v[16];
    assert_int_equal(tu_put(f->reg, "gone", "a", "q", "old", 100), ST_OK);
    assert_int_equal(tu_put(f->reg, "kept", "a", "q", "in-file", 100), ST_OK);
    assert_int_equal(region_flush(f->reg), ST_OK);
    cell_t d = tu_cell("a", "", NULL, 200, CELL_TYPE_DELETE_FAMILY);
    mutation m = {(const uint8_t *)"gone", 4, &d, 1, DURABILITY_USE_DEFAULT};
    assert_int_equal(region_mutate(f->reg, &m), ST_OK);
    for (int i = 0; i < 200; i++) {
        char row[16];
        snprintf(row, sizeof(row), "other%03d", i);
        assert_int_equal(tu_put(f->reg, row, "a", "q", "x", 100), ST_OK);
    }
    assert_int_equal(tu_get(f->reg, "gone", "a", "q", v, sizeof(v)), 0);
    assert_int_equal(tu_get(f->reg, "kept", "a", "q", v, sizeof(v)), 1);
    assert_string_equal(v, "in-file");
    assert_int_equal(tu_get(f->reg, "never", "a", "q", v, sizeof(v)), 0);
}

static int get_cached_only(fixture *f, const char *row, bool cached_only, scan_result *res)
{
    scan_column col = {(const uint8_t *)"a", 1, (const uint8_t *)"q", 1};
    scan_spec s = {.columns = &col, .ncolumns = 1, .cached_only = cached_only};
    return region_get(f->reg, (const uint8_t *)row, strlen(row), &s, res);
}

/* A cached-only Get (the RPC I/O thread's) reads memstores and blocks already in
 * memory, and answers ST_WOULD_BLOCK, having read nothing, for a block it would have to
 * read: after a reopen no block has been read yet. */
static void cached_only_get_would_block_on_unread_blocks(void **state)
{
    fixture *f = *state;
    scan_result res;
    scan_result_init(&res);
    assert_int_equal(tu_put(f->reg, "cold", "a", "q", "on-disk", 10), ST_OK);
    assert_int_equal(region_close(f->reg, true), ST_OK);
    engine_close(f->eng);
    open_region(f);
    assert_int_equal(tu_put(f->reg, "warm", "a", "q", "in-memstore", 10), ST_OK);
    assert_int_equal(get_cached_only(f, "warm", true, &res), ST_OK);
    assert_int_equal(res.ncells, 1);
    assert_int_equal(get_cached_only(f, "cold", true, &res), ST_WOULD_BLOCK);
    assert_int_equal(get_cached_only(f, "cold", false, &res), ST_OK); /* reads the block */
    assert_int_equal(res.ncells, 1);
    assert_int_equal(get_cached_only(f, "cold", true, &res), ST_OK); /* now in memory */
    assert_int_equal(res.ncells, 1);
    assert_memory_equal(res.cells[0].value, "on-disk", 7);
    region_stats st;
    region_get_stats(f->reg, &st);
    assert_int_equal(st.read_requests, 3); /* the one that would block is not counted */
    scan_result_free(&res);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(get_matches_full_merge, setup, teardown),
        cmocka_unit_test_setup_teardown(older_file_with_newer_timestamp_wins, setup, teardown),
        cmocka_unit_test_setup_teardown(memstore_row_bloom_skips_only_unseen_rows, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(cached_only_get_would_block_on_unread_blocks, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
