/*
 * test_retry.c - the client retry policy: HBase's exact pause schedule, jitter bounds
 * and spread, max retries, operation-timeout clamping and give-up, config checks, and
 * the class of every status code. Time is passed in (the *_at functions), so nothing
 * sleeps.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "client/retry.h"
#include "common/status.h"
#include "tests/support/testutil.h"

#define MS 1000000ull

static const int64_t hbase_schedule[] = {100,   200,   300,   500,   1000,  2000,  4000, 10000,
                                         10000, 10000, 10000, 20000, 20000, 20000, 20000};

/* Defaults with no jitter and no deadline: pauses are exact. */
static retry_config exact_config(void)
{
    retry_config cfg;
    retry_config_default(&cfg);
    cfg.jitter = 0;
    cfg.operation_timeout_ms = 0;
    return cfg;
}

static void defaults_are_hbase(void **state)
{
    retry_config cfg;
    retry_config_default(&cfg);
    assert_int_equal(cfg.pause_ms, 100);
    assert_true(cfg.jitter == 0.01);
    assert_int_equal(cfg.max_retries, 15);
    assert_int_equal(cfg.operation_timeout_ms, 20 * 60 * 1000);
}

static void backoff_table_with_last_factor_repeating(void **state)
{
    static const int factors[] = {1, 2, 3, 5, 10, 20, 40, 100, 100, 100, 100, 200, 200};
    for (int n = 0; n < 13; n++)
        assert_int_equal(retry_backoff_ms(100, n), 100 * factors[n]);
    for (int n = 13; n < 40; n++)
        assert_int_equal(retry_backoff_ms(100, n), 20000);
    assert_int_equal(retry_backoff_ms(7, 0), 7);
    assert_int_equal(retry_backoff_ms(7, 6), 280);
    assert_int_equal(retry_backoff_ms(0, 12), 0);
}

static void exact_pause_schedule_then_retries_exhausted(void **state)
{
    retry_config cfg = exact_config();
    retry_state r;
    assert_int_equal(retry_begin_at(&r, &cfg, 0), ST_OK);
    int64_t pause = -1;
    for (int i = 0; i < 15; i++) {
        assert_int_equal(retry_attempts(&r), i + 1);
        assert_int_equal(retry_next_at(&r, ST_NOT_SERVING, 0, &pause), ST_OK);
        assert_int_equal(pause, hbase_schedule[i]);
    }
    assert_int_equal(retry_attempts(&r), 16);
    st_error(ST_NOT_SERVING, "region abc not served by rs1");
    assert_int_equal(retry_next_at(&r, ST_NOT_SERVING, 0, &pause), ST_NOT_SERVING);
    assert_int_equal(pause, 0);
    assert_non_null(strstr(st_errmsg(), "16 attempts"));
    assert_non_null(strstr(st_errmsg(), "region abc not served by rs1"));
    /* Still given up on the next call. */
    assert_int_equal(retry_next_at(&r, ST_SERVER_BUSY, 0, &pause), ST_SERVER_BUSY);
}

static void configurable_base_pause(void **state)
{
    retry_config cfg = exact_config();
    cfg.pause_ms = 10;
    retry_state r;
    assert_int_equal(retry_begin_at(&r, &cfg, 0), ST_OK);
    int64_t pause;
    for (int i = 0; i < 15; i++) {
        assert_int_equal(retry_next_at(&r, ST_REGION_OPENING, 0, &pause), ST_OK);
        assert_int_equal(pause, hbase_schedule[i] / 10);
    }
}

/* Over many seeds, every pause lies in [base, base + base * jitter], and the jitter
 * really spreads them (not all equal, some above base). */
static void check_jitter(double jitter)
{
    retry_config cfg = exact_config();
    cfg.jitter = jitter;
    int64_t min_extra = INT64_MAX, max_extra = -1;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        cfg.seed = seed;
        retry_state r;
        assert_int_equal(retry_begin_at(&r, &cfg, 0), ST_OK);
        for (int i = 0; i < 15; i++) {
            int64_t pause;
            assert_int_equal(retry_next_at(&r, ST_SERVER_BUSY, 0, &pause), ST_OK);
            int64_t base = hbase_schedule[i];
            assert_in_range(pause, base, base + (int64_t)((double)base * jitter));
            if (base == 20000) {
                min_extra = pause - base < min_extra ? pause - base : min_extra;
                max_extra = pause - base > max_extra ? pause - base : max_extra;
            }
        }
    }
    assert_true(max_extra > min_extra);
    assert_true(max_extra >= (int64_t)(20000 * jitter * 0.9));
}

static void jitter_within_bounds_and_spread(void **state)
{
    check_jitter(0.01);
    check_jitter(0.5);
}

static void same_seed_same_pauses(void **state)
{
    retry_config cfg = exact_config();
    cfg.jitter = 0.01;
    cfg.seed = 42;
    retry_state a, b;
    assert_int_equal(retry_begin_at(&a, &cfg, 0), ST_OK);
    assert_int_equal(retry_begin_at(&b, &cfg, 0), ST_OK);
    for (int i = 0; i < 15; i++) {
        int64_t pa, pb;
        assert_int_equal(retry_next_at(&a, ST_IO, 0, &pa), ST_OK);
        assert_int_equal(retry_next_at(&b, ST_IO, 0, &pb), ST_OK);
        assert_int_equal(pa, pb);
    }
}

static void max_retries_zero_and_three(void **state)
{
    retry_config cfg = exact_config();
    cfg.max_retries = 0;
    retry_state r;
    int64_t pause;
    assert_int_equal(retry_begin_at(&r, &cfg, 0), ST_OK);
    assert_int_equal(retry_next_at(&r, ST_REGION_TOO_BUSY, 0, &pause), ST_REGION_TOO_BUSY);
    assert_non_null(strstr(st_errmsg(), "1 attempts"));

    cfg.max_retries = 3;
    assert_int_equal(retry_begin_at(&r, &cfg, 0), ST_OK);
    for (int i = 0; i < 3; i++)
        assert_int_equal(retry_next_at(&r, ST_CLOSED, 0, &pause), ST_OK);
    assert_int_equal(retry_next_at(&r, ST_CLOSED, 0, &pause), ST_CLOSED);
    assert_int_equal(retry_attempts(&r), 4);
}

static void fatal_status_returned_at_once_with_its_message(void **state)
{
    retry_state r;
    int64_t pause = -1;
    assert_int_equal(retry_begin_at(&r, NULL, 0), ST_OK);
    st_error(ST_UNKNOWN_FAMILY, "family zz of table t");
    assert_int_equal(retry_next_at(&r, ST_UNKNOWN_FAMILY, 0, &pause), ST_UNKNOWN_FAMILY);
    assert_int_equal(pause, 0);
    assert_string_equal(st_errmsg(), "family zz of table t");
    assert_int_equal(retry_attempts(&r), 1);
    /* A fatal status does not use up a retry. */
    assert_int_equal(retry_next_at(&r, ST_SERVER_BUSY, 0, &pause), ST_OK);
    assert_int_equal(retry_attempts(&r), 2);
}

static void success_is_not_retried(void **state)
{
    retry_state r;
    int64_t pause = -1;
    assert_int_equal(retry_begin_at(&r, NULL, 0), ST_OK);
    assert_int_equal(retry_next_at(&r, ST_OK, 0, &pause), ST_INVALID_ARGUMENT);
    assert_int_equal(pause, 0);
}

/* Timeout 250 ms from t = 1 s: 100 ms, then 200 clamped to the 150 left, then gone. */
static void timeout_clamps_pause_then_gives_up(void **state)
{
    retry_config cfg = exact_config();
    cfg.operation_timeout_ms = 250;
    uint64_t t0 = 1000 * MS;
    retry_state r;
    int64_t pause;
    assert_int_equal(retry_begin_at(&r, &cfg, t0), ST_OK);
    assert_int_equal(retry_remaining_ms_at(&r, t0), 250);
    assert_int_equal(retry_next_at(&r, ST_NOT_SERVING, t0, &pause), ST_OK);
    assert_int_equal(pause, 100);
    assert_int_equal(retry_next_at(&r, ST_NOT_SERVING, t0 + 100 * MS, &pause), ST_OK);
    assert_int_equal(pause, 150);
    assert_int_equal(retry_remaining_ms_at(&r, t0 + 250 * MS), 0);
    st_error(ST_NOT_SERVING, "region r9");
    assert_int_equal(retry_next_at(&r, ST_NOT_SERVING, t0 + 250 * MS, &pause), ST_TIMEOUT);
    assert_int_equal(pause, 0);
    assert_non_null(strstr(st_errmsg(), "timeout"));
    assert_non_null(strstr(st_errmsg(), "region r9"));
    /* Past the deadline it stays given up, even for a status that keeps the cache. */
    assert_int_equal(retry_next_at(&r, ST_REGION_OPENING, t0 + 900 * MS, &pause), ST_TIMEOUT);
}

/* The clamped pause is rounded up so that sleeping it reaches the deadline. */
static void timeout_clamp_rounds_up_to_the_deadline(void **state)
{
    retry_config cfg = exact_config();
    cfg.operation_timeout_ms = 1000;
    retry_state r;
    int64_t pause;
    assert_int_equal(retry_begin_at(&r, &cfg, 0), ST_OK);
    uint64_t now = 999 * MS + 500000; /* 0.5 ms left */
    assert_int_equal(retry_remaining_ms_at(&r, now), 1);
    assert_int_equal(retry_next_at(&r, ST_IO, now, &pause), ST_OK);
    assert_int_equal(pause, 1);
    assert_int_equal(retry_next_at(&r, ST_IO, now + (uint64_t)pause * MS, &pause), ST_TIMEOUT);
}

/* The clamp also bounds a jittered pause. */
static void timeout_clamps_jittered_pause(void **state)
{
    retry_config cfg = exact_config();
    cfg.jitter = 1.0;
    cfg.seed = 7;
    cfg.operation_timeout_ms = 150;
    retry_state r;
    int64_t pause;
    assert_int_equal(retry_begin_at(&r, &cfg, 0), ST_OK);
    assert_int_equal(retry_next_at(&r, ST_IO, 0, &pause), ST_OK);
    assert_in_range(pause, 100, 150);
    assert_int_equal(retry_next_at(&r, ST_IO, 100 * MS, &pause), ST_OK);
    assert_int_equal(pause, 50);
}

static void no_deadline_means_no_timeout(void **state)
{
    retry_config cfg = exact_config();
    retry_state r;
    int64_t pause;
    assert_int_equal(retry_begin_at(&r, &cfg, 0), ST_OK);
    assert_int_equal(retry_remaining_ms_at(&r, UINT64_MAX / 2), -1);
    assert_int_equal(retry_next_at(&r, ST_TIMEOUT, UINT64_MAX / 2, &pause), ST_OK);
    assert_int_equal(pause, 100);
}

static void real_clock_deadline(void **state)
{
    retry_state r;
    int64_t pause;
    assert_int_equal(retry_begin(&r, NULL), ST_OK);
    int64_t left = retry_remaining_ms(&r);
    assert_in_range(left, RETRY_DEFAULT_OPERATION_TIMEOUT_MS - 1000,
                    RETRY_DEFAULT_OPERATION_TIMEOUT_MS);
    assert_int_equal(retry_next(&r, ST_SERVER_BUSY, &pause), ST_OK);
    assert_in_range(pause, 100, 101);
}

static void bad_configs_rejected(void **state)
{
    retry_state r;
    retry_config cfg = exact_config();
    cfg.pause_ms = -1;
    assert_int_equal(retry_begin_at(&r, &cfg, 0), ST_INVALID_ARGUMENT);
    cfg = exact_config();
    cfg.jitter = -0.1;
    assert_int_equal(retry_begin_at(&r, &cfg, 0), ST_INVALID_ARGUMENT);
    cfg.jitter = 1.5;
    assert_int_equal(retry_begin_at(&r, &cfg, 0), ST_INVALID_ARGUMENT);
    cfg.jitter = NAN;
    assert_int_equal(retry_begin_at(&r, &cfg, 0), ST_INVALID_ARGUMENT);
    cfg = exact_config();
    cfg.max_retries = -1;
    assert_int_equal(retry_begin_at(&r, &cfg, 0), ST_INVALID_ARGUMENT);
    cfg = exact_config();
    cfg.operation_timeout_ms = -5;
    assert_int_equal(retry_begin_at(&r, &cfg, 0), ST_INVALID_ARGUMENT);
    cfg.operation_timeout_ms = INT64_MAX;
    assert_int_equal(retry_begin_at(&r, &cfg, 0), ST_INVALID_ARGUMENT);
}

static void every_status_classified(void **state)
{
    static const struct {
        int status;
        retry_class cls;
    } table[] = {
        {ST_OK, RETRY_SUCCESS},
        {ST_IO, RETRY_INVALIDATE},
        {ST_NOSPACE, RETRY_FATAL},
        {ST_CORRUPTION, RETRY_FATAL},
        {ST_NOT_FOUND, RETRY_FATAL},
        {ST_EXISTS, RETRY_FATAL},
        {ST_INVALID_ARGUMENT, RETRY_FATAL},
        {ST_UNKNOWN_FAMILY, RETRY_FATAL},
        {ST_ORDER, RETRY_FATAL},
        {ST_NOT_SERVING, RETRY_INVALIDATE},
        {ST_REGION_OPENING, RETRY_KEEP},
        {ST_REGION_TOO_BUSY, RETRY_KEEP},
        {ST_SERVER_BUSY, RETRY_KEEP},
        {ST_CLOSED, RETRY_INVALIDATE},
        {ST_TABLE_DISABLED, RETRY_FATAL},
        {ST_REGION_MOVED, RETRY_INVALIDATE},
        {ST_TIMEOUT, RETRY_INVALIDATE},
        {ST_PERMISSION, RETRY_FATAL},
        {ST_NOMEM, RETRY_FATAL},
        {ST_UNSUPPORTED, RETRY_FATAL},
        {ST_INTERNAL, RETRY_FATAL},
        {ST_WOULD_BLOCK, RETRY_FATAL},
        {ST_CONNECTION, RETRY_INVALIDATE},
        {ST_PROTOCOL, RETRY_FATAL},
        {-999, RETRY_FATAL},
        {7, RETRY_FATAL},
    };
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        retry_class got = retry_classify(table[i].status);
        if (got != table[i].cls)
            fail_msg("status %d (%s): class %d, expected %d", table[i].status,
                     st_strerror(table[i].status), got, table[i].cls);
    }
    /* Every code status.h defines is in the table above (a new code needs a decision);
     * every other one is fatal. */
    for (int s = -1000; s < 0; s++) {
        bool listed = false;
        for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
            listed |= table[i].status == s;
        if (strcmp(st_strerror(s), "unknown status") != 0 && !listed)
            fail_msg("status %d (%s) has no expected class here", s, st_strerror(s));
        if (!listed)
            assert_int_equal(retry_classify(s), RETRY_FATAL);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_are_hbase),
        cmocka_unit_test(backoff_table_with_last_factor_repeating),
        cmocka_unit_test(exact_pause_schedule_then_retries_exhausted),
        cmocka_unit_test(configurable_base_pause),
        cmocka_unit_test(jitter_within_bounds_and_spread),
        cmocka_unit_test(same_seed_same_pauses),
        cmocka_unit_test(max_retries_zero_and_three),
        cmocka_unit_test(fatal_status_returned_at_once_with_its_message),
        cmocka_unit_test(success_is_not_retried),
        cmocka_unit_test(timeout_clamps_pause_then_gives_up),
        cmocka_unit_test(timeout_clamp_rounds_up_to_the_deadline),
        cmocka_unit_test(timeout_clamps_jittered_pause),
        cmocka_unit_test(no_deadline_means_no_timeout),
        cmocka_unit_test(real_clock_deadline),
        cmocka_unit_test(bad_configs_rejected),
        cmocka_unit_test(every_status_classified),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
