/*
 * test_verify_stats.c - tools/verify_stats.c: gaps kept only from VSTATS_GAP_KEEP_NS on
 * and in time order, errors by code (an unknown code counted as internal), the stall after
 * an instant inside a kept gap, inside an unkept one, before the first success, after
 * the last one and after the stop, the longest gap including the run's edges, a thread
 * that never succeeded, the live resumed check, and which codes are retried.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "tests/support/testutil.h"
#include "tools/verify_stats.h"

#define MS 1000000ull

static void gaps_are_kept_from_one_ms(void **state)
{
    (void)state;
    vstats_thread t;
    vstats_init(&t, "loader 0 with a name longer than the record keeps");
    assert_int_equal(strlen(t.name), VSTATS_NAME_MAX - 1);
    vstats_start(&t, 1000 * MS);
    vstats_ok(&t, 1001 * MS);          /* first success: no gap in the list */
    vstats_ok(&t, 1001 * MS + MS / 2); /* 0.5 ms: not kept */
    vstats_ok(&t, 1002 * MS + MS / 2); /* exactly 1 ms: kept */
    vstats_ok(&t, 1010 * MS);          /* 7.5 ms: kept */
    vstats_stop(&t, 1011 * MS);
    assert_int_equal(vstats_ok_count(&t), 4);
    assert_int_equal(t.ngaps, 2);
    assert_true(t.gaps[0].from_ns == 1001 * MS + MS / 2 && t.gaps[0].to_ns == 1002 * MS + MS / 2);
    assert_true(t.gaps[1].from_ns == 1002 * MS + MS / 2 && t.gaps[1].to_ns == 1010 * MS);
    assert_int_equal(t.gaps_dropped, 0);
    vstats_free(&t);
    assert_null(t.gaps);
    vstats_free(NULL);
}

static void many_gaps_grow_the_list(void **state)
{
    (void)state;
    vstats_thread t;
    vstats_init(&t, "writer 1");
    vstats_start(&t, 0);
    for (uint64_t i = 1; i <= 5000; i++)
        vstats_ok(&t, i * 2 * MS);
    vstats_stop(&t, 10001 * MS);
    assert_int_equal(t.ngaps, 4999);
    for (size_t i = 1; i < t.ngaps; i++)
        assert_true(t.gaps[i].from_ns == t.gaps[i - 1].to_ns);
    assert_int_equal(vstats_stall_after(&t, 5001 * MS), 1 * MS);
    vstats_free(&t);
}

static void errors_by_code(void **state)
{
    (void)state;
    vstats_thread t;
    vstats_init(&t, "getter 0");
    vstats_error(&t, STRATA_ERR_RETRYABLE);
    vstats_error(&t, STRATA_ERR_RETRYABLE);
    vstats_error(&t, STRATA_ERR_IO);
    vstats_error(&t, (strata_code)99);
    vstats_error(&t, (strata_code)-3);
    vstats_error(&t, STRATA_OK);
    vstats_retry(&t);
    assert_int_equal(t.errors[STRATA_ERR_RETRYABLE], 2);
    assert_int_equal(t.errors[STRATA_ERR_IO], 1);
    assert_int_equal(t.errors[STRATA_ERR_INTERNAL], 2);
    assert_int_equal(t.errors[STRATA_OK], 0);
    assert_int_equal(vstats_error_total(&t), 5);
    assert_int_equal(t.retries, 1);
    vstats_free(&t);
}

/* start 100, successes at 110, 110.5, 150, 151, stop 200 (ms) */
static void run_with_a_stall(vstats_thread *t)
{
    vstats_init(t, "loader 1");
    vstats_start(t, 100 * MS);
    vstats_ok(t, 110 * MS);
    vstats_ok(t, 110 * MS + MS / 2);
    vstats_ok(t, 150 * MS);
    vstats_ok(t, 151 * MS);
    vstats_stop(t, 200 * MS);
}

static void stall_after_an_instant(void **state)
{
    (void)state;
    vstats_thread t;
    run_with_a_stall(&t);
    /* before the first success (and before the start): until it */
    assert_int_equal(vstats_stall_after(&t, 90 * MS), 20 * MS);
    assert_int_equal(vstats_stall_after(&t, 105 * MS), 5 * MS);
    /* inside the kept gap 110.5 -> 150 */
    assert_int_equal(vstats_stall_after(&t, 120 * MS), 30 * MS);
    assert_int_equal(vstats_stall_after(&t, 110 * MS + MS / 2), 39 * MS + MS / 2);
    /* at a success that ends the kept gap: the next one came 1 ms later */
    assert_int_equal(vstats_stall_after(&t, 150 * MS), 1 * MS);
    /* inside the unkept 0.5 ms gap: reads as 0 */
    assert_int_equal(vstats_stall_after(&t, 110 * MS + 1000), 0);
    /* after the last success: until the stop; at or after the stop: 0 */
    assert_int_equal(vstats_stall_after(&t, 151 * MS), 49 * MS);
    assert_int_equal(vstats_stall_after(&t, 170 * MS), 30 * MS);
    assert_int_equal(vstats_stall_after(&t, 200 * MS), 0);
    assert_int_equal(vstats_stall_after(&t, 300 * MS), 0);
    vstats_free(&t);
}

static void longest_gap_counts_the_edges(void **state)
{
    (void)state;
    vstats_thread t;
    uint64_t from = 0;
    run_with_a_stall(&t);
    /* last success 151 -> stop 200: 49 ms beats the kept 39.5 ms */
    assert_int_equal(vstats_longest_gap(&t, &from), 49 * MS);
    assert_int_equal(from, 151 * MS);
    vstats_free(&t);

    vstats_init(&t, "loader 2");
    vstats_start(&t, 100 * MS);
    vstats_ok(&t, 130 * MS); /* start -> first: 30 ms */
    vstats_ok(&t, 140 * MS);
    vstats_stop(&t, 141 * MS);
    assert_int_equal(vstats_longest_gap(&t, &from), 30 * MS);
    assert_int_equal(from, 100 * MS);
    assert_int_equal(vstats_longest_gap(&t, NULL), 30 * MS);
    vstats_free(&t);

    vstats_init(&t, "loader 3");
    vstats_start(&t, 100 * MS);
    vstats_ok(&t, 101 * MS);
    vstats_ok(&t, 180 * MS); /* kept gap of 79 ms */
    vstats_stop(&t, 181 * MS);
    assert_int_equal(vstats_longest_gap(&t, &from), 79 * MS);
    assert_int_equal(from, 101 * MS);
    vstats_free(&t);
}

static void thread_that_never_succeeded(void **state)
{
    (void)state;
    vstats_thread t;
    vstats_init(&t, "writer 0");
    assert_int_equal(vstats_longest_gap(&t, NULL), 0); /* not started */
    vstats_start(&t, 100 * MS);
    assert_false(vstats_resumed_since(&t, 0));
    vstats_error(&t, STRATA_ERR_RETRYABLE);
    vstats_stop(&t, 400 * MS);
    assert_int_equal(vstats_longest_gap(&t, NULL), 300 * MS);
    assert_int_equal(vstats_stall_after(&t, 150 * MS), 250 * MS);
    assert_int_equal(vstats_ok_count(&t), 0);
    vstats_free(&t);
}

static void resumed_since(void **state)
{
    (void)state;
    vstats_thread t;
    vstats_init(&t, "writer 0");
    vstats_start(&t, 100 * MS);
    vstats_ok(&t, 120 * MS);
    assert_true(vstats_resumed_since(&t, 120 * MS));
    assert_false(vstats_resumed_since(&t, 121 * MS));
    vstats_ok(&t, 130 * MS);
    assert_true(vstats_resumed_since(&t, 121 * MS));
    vstats_free(&t);
}

static void retryable_codes(void **state)
{
    (void)state;
    assert_true(vstats_code_retryable(STRATA_ERR_RETRYABLE));
    assert_true(vstats_code_retryable(STRATA_ERR_IO));
    assert_true(vstats_code_retryable(STRATA_ERR_NOT_FOUND));
    assert_true(vstats_code_retryable(STRATA_ERR_TABLE_DISABLED));
    assert_false(vstats_code_retryable(STRATA_ERR_INVALID_ARGUMENT));
    assert_false(vstats_code_retryable(STRATA_ERR_NO_SUCH_FAMILY));
    assert_false(vstats_code_retryable(STRATA_ERR_PERMISSION));
    assert_false(vstats_code_retryable(STRATA_ERR_UNSUPPORTED));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gaps_are_kept_from_one_ms),
        cmocka_unit_test(many_gaps_grow_the_list),
        cmocka_unit_test(errors_by_code),
        cmocka_unit_test(stall_after_an_instant),
        cmocka_unit_test(longest_gap_counts_the_edges),
        cmocka_unit_test(thread_that_never_succeeded),
        cmocka_unit_test(resumed_since),
        cmocka_unit_test(retryable_codes),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
