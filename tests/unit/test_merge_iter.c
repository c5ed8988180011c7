/*
 * test_merge_iter.c - the merging iterator (regionserver/storage/merge_iter.c): the merged
 * stream equals the sorted union of its children (duplicates included, lower child
 * first), seek / seek_for_prev land where a binary search over the union says, next()
 * after seek_for_prev switches direction correctly, and child errors propagate.
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
#include "regionserver/storage/scanner.h"
#include "tests/support/testutil.h"
#include "tests/support/vec_iter.h"

#define NKIDS 5
#define MAXCELLS 4000

typedef struct tagged {
    cell_t c;
    size_t kid;
    char bytes[48]; /* row(8) fam(4) qual(8) value(16) */
} tagged;

typedef struct world {
    tagged all[MAXCELLS];
    size_t n;
    kv_iter *merged;
} world;

static uint64_t rng_state;

static uint32_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 33);
}

static void make_cell(tagged *t, size_t kid, unsigned row, unsigned fam, unsigned qual, int64_t ts,
                      uint8_t type, uint64_t seq)
{
    memset(t, 0, sizeof(*t));
    snprintf(t->bytes, 9, "r%07u", row);
    snprintf(t->bytes + 8, 5, "f%03u", fam);
    snprintf(t->bytes + 12, 9, "q%07u", qual);
    snprintf(t->bytes + 20, 17, "v%zu-%llu", kid, (unsigned long long)seq);
    t->kid = kid;
    t->c.row = (const uint8_t *)t->bytes;
    t->c.row_len = 8;
    t->c.family = (const uint8_t *)t->bytes + 8;
    t->c.family_len = 4;
    t->c.qualifier = (const uint8_t *)t->bytes + 12;
    t->c.qualifier_len = 8;
    t->c.value = (const uint8_t *)t->bytes + 20;
    t->c.value_len = (uint32_t)strlen(t->bytes + 20);
    t->c.ts = ts;
    t->c.type = type;
    t->c.seq = seq;
}

/* Points t's cell at t's own bytes (after t was copied or moved). */
static void fix_pointers(tagged *t)
{
    t->c.row = (const uint8_t *)t->bytes;
    t->c.family = (const uint8_t *)t->bytes + 8;
    t->c.qualifier = (const uint8_t *)t->bytes + 12;
    t->c.value = (const uint8_t *)t->bytes + 20;
}

static int cmp_tagged(const void *a, const void *b)
{
    tagged *x = (tagged *)a, *y = (tagged *)b;
    fix_pointers(x);
    fix_pointers(y);
    int c = cell_compare(&x->c, &y->c);
    if (c)
        return c;
    return x->kid < y->kid ? -1 : x->kid > y->kid;
}

/* Builds n random cells over NKIDS children, some copied into two children. */
static world *build_world(size_t n, uint64_t seed)
{
    static const uint8_t types[] = {CELL_TYPE_PUT, CELL_TYPE_PUT, CELL_TYPE_PUT, CELL_TYPE_DELETE,
                                    CELL_TYPE_DELETE_COLUMN};
    world *w = calloc(1, sizeof(*w));
    assert_non_null(w);
    rng_state = seed;
    for (size_t i = 0; i < n; i++) {
        tagged *t = &w->all[w->n++];
        make_cell(t, rnd() % NKIDS, rnd() % 200, rnd() % 3, rnd() % 10, (int64_t)(rnd() % 50),
                  types[rnd() % 5], i + 1);
        if (rnd() % 10 == 0 && w->n < MAXCELLS) { /* the same cell in another child */
            tagged *d = &w->all[w->n++];
            *d = *t;
            d->kid = (t->kid + 1) % NKIDS;
            fix_pointers(d);
        }
    }
    kv_iter *kids[NKIDS];
    for (size_t k = 0; k < NKIDS; k++) {
        cell_t *cs = calloc(w->n, sizeof(*cs));
        size_t m = 0;
        for (size_t i = 0; i < w->n; i++)
            if (w->all[i].kid == k)
                cs[m++] = w->all[i].c;
        kids[k] = vec_iter_new(cs, m);
        assert_non_null(kids[k]);
        free(cs);
    }
    qsort(w->all, w->n, sizeof(w->all[0]), cmp_tagged);
    for (size_t i = 0; i < w->n; i++)
        fix_pointers(&w->all[i]);
    w->merged = merge_iter_new(kids, NKIDS);
    assert_non_null(w->merged);
    return w;
}

static void free_world(world *w)
{
    kv_iter_destroy(w->merged);
    free(w);
}

static void assert_at(kv_iter *it, const tagged *t)
{
    assert_true(kv_iter_valid(it));
    const cell_t *c = kv_iter_cell(it);
    assert_int_equal(cell_compare(c, &t->c), 0);
    assert_int_equal(c->value_len, t->c.value_len);
    assert_memory_equal(c->value, t->c.value, c->value_len); /* the right child's copy */
}

/* Checks that the merge, from union position i, yields the rest of the union. */
static void assert_tail(world *w, size_t i, size_t steps)
{
    for (size_t k = 0; k < steps && i < w->n; k++, i++) {
        assert_at(w->merged, &w->all[i]);
        kv_iter_next(w->merged);
    }
    if (i >= w->n)
        assert_false(kv_iter_valid(w->merged));
    assert_int_equal(kv_iter_status(w->merged), ST_OK);
}

static void merge_random_children_equals_sorted_union(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        world *w = build_world(1500, seed);
        kv_iter_seek_to_first(w->merged);
        assert_tail(w, 0, w->n + 1);
        free_world(w);
    }
}

static void random_key(tagged *t)
{
    make_cell(t, 0, rnd() % 210, rnd() % 4, rnd() % 11, (int64_t)(rnd() % 55), CELL_TYPE_PUT,
              rnd() % 3000);
    if (rnd() % 4 == 0) { /* a row-level seek key */
        t->c.family_len = 0;
        t->c.qualifier_len = 0;
        t->c.ts = INT64_MAX;
        t->c.type = CELL_TYPE_MAXIMUM;
        t->c.seq = UINT64_MAX;
    }
}

static void merge_seek_matches_lower_bound(void **state)
{
    (void)state;
    world *w = build_world(1500, 11);
    for (int k = 0; k < 300; k++) {
        tagged key;
        random_key(&key);
        size_t lo = 0;
        while (lo < w->n && cell_compare(&w->all[lo].c, &key.c) < 0)
            lo++;
        kv_iter_seek(w->merged, &key.c);
        assert_tail(w, lo, 5);
    }
    free_world(w);
}

static void merge_seek_for_prev_then_next_switches_direction(void **state)
{
    (void)state;
    world *w = build_world(1500, 12);
    for (int k = 0; k < 300; k++) {
        tagged key;
        random_key(&key);
        size_t up = 0; /* first index with cell > key */
        while (up < w->n && cell_compare(&w->all[up].c, &key.c) <= 0)
            up++;
        kv_iter_seek_for_prev(w->merged, &key.c);
        if (up == 0) {
            assert_false(kv_iter_valid(w->merged));
            continue;
        }
        /* the last of the equal cells in merged order is the current one */
        assert_tail(w, up - 1, 6);
    }
    free_world(w);
}

static cell_t simple(const char *row, const char *val, int64_t ts)
{
    cell_t c = {0};
    c.row = (const uint8_t *)row;
    c.row_len = (uint32_t)strlen(row);
    c.family = (const uint8_t *)"f";
    c.family_len = 1;
    c.qualifier = (const uint8_t *)"q";
    c.qualifier_len = 1;
    c.value = (const uint8_t *)val;
    c.value_len = (uint32_t)strlen(val);
    c.ts = ts;
    c.type = CELL_TYPE_PUT;
    c.seq = 7;
    return c;
}

static void merge_equal_keys_all_returned_in_child_order(void **state)
{
    (void)state;
    cell_t a[] = {simple("a", "0a", 1), simple("b", "0b", 1)};
    cell_t b[] = {simple("a", "1a", 1), simple("b", "1b", 1)};
    cell_t c[] = {simple("b", "2b", 1), simple("c", "2c", 1)};
    kv_iter *kids[] = {vec_iter_new(a, 2), vec_iter_new(b, 2), vec_iter_new(c, 2)};
    kv_iter *m = merge_iter_new(kids, 3);
    const char *want[] = {"0a", "1a", "0b", "1b", "2b", "2c"};
    kv_iter_seek_to_first(m);
    for (size_t i = 0; i < 6; i++, kv_iter_next(m)) {
        assert_true(kv_iter_valid(m));
        assert_memory_equal(kv_iter_cell(m)->value, want[i], 2);
    }
    assert_false(kv_iter_valid(m));
    /* seek_for_prev(b) lands on the last "b" (child 2), then next goes to "c" */
    cell_t key = cell_last_on_column((const uint8_t *)"b", 1, (const uint8_t *)"f", 1,
                                     (const uint8_t *)"q", 1);
    kv_iter_seek_for_prev(m, &key);
    assert_memory_equal(kv_iter_cell(m)->value, "2b", 2);
    kv_iter_next(m);
    assert_memory_equal(kv_iter_cell(m)->value, "2c", 2);
    /* seek_for_prev on the exact cell: the last equal one, then nothing equal repeats */
    cell_t exact = simple("b", "", 1);
    kv_iter_seek_for_prev(m, &exact);
    assert_memory_equal(kv_iter_cell(m)->value, "2b", 2);
    kv_iter_next(m);
    assert_memory_equal(kv_iter_cell(m)->value, "2c", 2);
    /* seek_for_prev before everything: invalid without error */
    cell_t first = cell_first_on_row((const uint8_t *)"a", 1);
    kv_iter_seek_for_prev(m, &first);
    assert_false(kv_iter_valid(m));
    assert_int_equal(kv_iter_status(m), ST_OK);
    kv_iter_destroy(m);
}

static void merge_no_children_is_empty(void **state)
{
    (void)state;
    kv_iter *m = merge_iter_new(NULL, 0);
    assert_non_null(m);
    kv_iter_seek_to_first(m);
    assert_false(kv_iter_valid(m));
    cell_t key = cell_first_on_row((const uint8_t *)"x", 1);
    kv_iter_seek_for_prev(m, &key);
    assert_false(kv_iter_valid(m));
    assert_int_equal(kv_iter_status(m), ST_OK);
    kv_iter_destroy(m);
}

static void fault_child_error_propagates_on_next(void **state)
{
    (void)state;
    cell_t a[] = {simple("a", "x", 1), simple("c", "x", 1), simple("e", "x", 1)};
    cell_t b[] = {simple("b", "y", 1), simple("d", "y", 1), simple("f", "y", 1)};
    kv_iter *bad = vec_iter_new(b, 3);
    kv_iter *kids[] = {vec_iter_new(a, 3), bad};
    kv_iter *m = merge_iter_new(kids, 2);
    vec_iter_fail_after(bad, 2, ST_CORRUPTION); /* seek ok, one next ok, then fail */
    kv_iter_seek_to_first(m);
    int seen = 0;
    while (kv_iter_valid(m) && seen < 10) {
        seen++;
        kv_iter_next(m);
    }
    assert_true(seen < 6);
    assert_false(kv_iter_valid(m));
    assert_int_equal(kv_iter_status(m), ST_CORRUPTION);
    kv_iter_destroy(m);
}

static void fault_child_error_propagates_on_seek(void **state)
{
    (void)state;
    cell_t a[] = {simple("a", "x", 1)};
    cell_t b[] = {simple("b", "y", 1)};
    kv_iter *bad = vec_iter_new(b, 1);
    kv_iter *kids[] = {vec_iter_new(a, 1), bad};
    kv_iter *m = merge_iter_new(kids, 2);
    vec_iter_fail_after(bad, 0, ST_IO);
    cell_t key = cell_first_on_row((const uint8_t *)"a", 1);
    kv_iter_seek(m, &key);
    assert_false(kv_iter_valid(m));
    assert_int_equal(kv_iter_status(m), ST_IO);
    kv_iter_seek_for_prev(m, &key);
    assert_false(kv_iter_valid(m));
    assert_int_equal(kv_iter_status(m), ST_IO);
    kv_iter_destroy(m);
}

static void fault_child_error_fails_the_scanner(void **state)
{
    (void)state;
    cell_t a[] = {simple("a", "x", 1), simple("c", "x", 1), simple("e", "x", 1)};
    cell_t b[] = {simple("b", "y", 1), simple("d", "y", 1), simple("f", "y", 1)};
    kv_iter *bad = vec_iter_new(b, 3);
    kv_iter *kids[] = {vec_iter_new(a, 3), bad};
    kv_iter *m = merge_iter_new(kids, 2);
    vec_iter_fail_after(bad, 3, ST_CORRUPTION);
    family_schema f;
    family_schema_init(&f, "f");
    scan_spec spec = {0};
    scanner *s = NULL;
    assert_int_equal(scanner_new(m, &f, 1, &spec, 1000, &s), ST_OK);
    scan_result r;
    scan_result_init(&r);
    int rc, rows = 0;
    while ((rc = scanner_next(s, &r)) == 1)
        rows++;
    assert_int_equal(rc, ST_CORRUPTION);
    assert_true(rows < 6);
    assert_int_equal(scanner_next(s, &r), ST_CORRUPTION); /* sticky */
    scan_result_free(&r);
    scanner_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(merge_random_children_equals_sorted_union),
        cmocka_unit_test(merge_seek_matches_lower_bound),
        cmocka_unit_test(merge_seek_for_prev_then_next_switches_direction),
        cmocka_unit_test(merge_equal_keys_all_returned_in_child_order),
        cmocka_unit_test(merge_no_children_is_empty),
        cmocka_unit_test(fault_child_error_propagates_on_next),
        cmocka_unit_test(fault_child_error_propagates_on_seek),
        cmocka_unit_test(fault_child_error_fails_the_scanner),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
