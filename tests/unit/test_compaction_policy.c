/*
 * test_compaction_policy.c - exploring compaction selection: window sizes, the ratio
 * rule, preference for more files then smaller totals, the max-size cut-off, and the
 * blocking fallback.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "regionserver/storage/compaction.h"
#include "tests/support/testutil.h"

#define MB (1024ull * 1024ull)

static compaction_policy policy(void)
{
    compaction_policy p = {3, 10, 1.2, 0, UINT64_MAX, 16};
    return p;
}

static void too_few_files_selects_nothing(void **state)
{
    (void)state;
    compaction_policy p = policy();
    uint64_t sizes[] = {10, 10};
    size_t s, c;
    assert_false(compaction_select(&p, sizes, 2, &s, &c));
}

static void equal_files_are_all_taken(void **state)
{
    (void)state;
    compaction_policy p = policy();
    uint64_t sizes[] = {10, 10, 10, 10, 10};
    size_t s, c;
    assert_true(compaction_select(&p, sizes, 5, &s, &c));
    assert_int_equal(s, 0);
    assert_int_equal(c, 5);
}

static void at_most_max_files(void **state)
{
    (void)state;
    compaction_policy p = policy();
    uint64_t sizes[14];
    for (int i = 0; i < 14; i++)
        sizes[i] = 5;
    size_t s, c;
    assert_true(compaction_select(&p, sizes, 14, &s, &c));
    assert_int_equal(c, 10);
}

static void a_big_old_file_is_left_out_by_the_ratio(void **state)
{
    (void)state;
    compaction_policy p = policy();
    /* 1000 > 1.2 x (10+10+10): windows with the big file fail the ratio. */
    uint64_t sizes[] = {1000, 10, 10, 10};
    size_t s, c;
    assert_true(compaction_select(&p, sizes, 4, &s, &c));
    assert_int_equal(s, 1);
    assert_int_equal(c, 3);
}

static void small_windows_skip_the_ratio(void **state)
{
    (void)state;
    compaction_policy p = policy();
    p.min_size = 2000;
    uint64_t sizes[] = {1000, 10, 10, 10};
    size_t s, c;
    assert_true(compaction_select(&p, sizes, 4, &s, &c));
    assert_int_equal(s, 0);
    assert_int_equal(c, 4);
}

static void same_count_prefers_smaller_total(void **state)
{
    (void)state;
    compaction_policy p = policy();
    p.max_files = 3;
    uint64_t sizes[] = {50, 50, 50, 10, 10, 10};
    size_t s, c;
    assert_true(compaction_select(&p, sizes, 6, &s, &c));
    assert_int_equal(c, 3);
    assert_int_equal(s, 3);
}

static void over_max_size_is_never_chosen(void **state)
{
    (void)state;
    compaction_policy p = policy();
    p.max_size = 25;
    uint64_t sizes[] = {10, 10, 10};
    size_t s, c;
    assert_false(compaction_select(&p, sizes, 3, &s, &c));
}

static void stuck_at_blocking_count_takes_smallest_window(void **state)
{
    (void)state;
    compaction_policy p = policy();
    p.blocking_files = 4;
    /* Each file is much bigger than the next: no window is in ratio. */
    uint64_t sizes[] = {100000, 10000, 1000, 100, 10};
    size_t s, c;
    assert_true(compaction_select(&p, sizes, 5, &s, &c));
    assert_int_equal(c, 3);
    assert_int_equal(s, 2);
    p.blocking_files = 16;
    assert_false(compaction_select(&p, sizes, 5, &s, &c));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(too_few_files_selects_nothing),
        cmocka_unit_test(equal_files_are_all_taken),
        cmocka_unit_test(at_most_max_files),
        cmocka_unit_test(a_big_old_file_is_left_out_by_the_ratio),
        cmocka_unit_test(small_windows_skip_the_ratio),
        cmocka_unit_test(same_count_prefers_smaller_total),
        cmocka_unit_test(over_max_size_is_never_chosen),
        cmocka_unit_test(stuck_at_blocking_count_takes_smallest_window),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
