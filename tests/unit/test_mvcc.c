/*
 * test_mvcc.c - write numbers and the read point.
 *
 * The read point must cover exactly the completed prefix of write numbers (never an
 * incomplete one, never going backwards), complete_and_wait must block until every
 * earlier write completes, advance_to must skip numbers, and wait_all must wait for
 * every write begun before it.
 *
 * The concurrent stress test has its writers yield at random points, drawn from a seed it
 * prints ("seed N"); STRATA_TEST_SEED=N draws the same points again (the interleaving
 * itself is still the scheduler's). A failure says "rerun with STRATA_TEST_SEED=N".
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "regionserver/storage/mvcc.h"
#include "tests/support/testutil.h"

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Waits up to 5 s for *flag; a waiter that never returns fails instead of hanging. */
static bool eventually(atomic_int *flag)
{
    for (int i = 0; i < 500 && !atomic_load(flag); i++)
        sleep_ms(10);
    return atomic_load(flag) != 0;
}

static void test_read_point_covers_completed_prefix(void **state)
{
    mvcc *m = mvcc_new(10);
    assert_non_null(m);
    assert_int_equal(mvcc_read_point(m), 10);
    uint64_t w1 = mvcc_begin(m), w2 = mvcc_begin(m), w3 = mvcc_begin(m), w4 = mvcc_begin(m);
    assert_int_equal(w1, 11);
    assert_int_equal(w2, 12);
    assert_int_equal(w3, 13);
    assert_int_equal(w4, 14);
    mvcc_complete(m, w3);
    assert_int_equal(mvcc_read_point(m), 10);
    mvcc_complete(m, w2);
    assert_int_equal(mvcc_read_point(m), 10);
    mvcc_complete(m, w1);
    assert_int_equal(mvcc_read_point(m), 13);
    uint64_t w5 = mvcc_begin(m);
    assert_int_equal(w5, 15);
    mvcc_complete(m, w5);
    assert_int_equal(mvcc_read_point(m), 13);
    mvcc_complete(m, w4);
    assert_int_equal(mvcc_read_point(m), 15);
    mvcc_complete(m, w4); /* not in flight any more: ignored */
    mvcc_complete(m, 99); /* never begun: ignored */
    assert_int_equal(mvcc_read_point(m), 15);
    assert_int_equal(mvcc_begin(m), 16);
    mvcc_free(m);
}

/* The ring grows past its initial size with many writes in flight. */
static void test_many_in_flight_complete_in_reverse(void **state)
{
    enum { N = 5000 };
    mvcc *m = mvcc_new(0);
    assert_non_null(m);
    for (uint64_t i = 1; i <= N; i++)
        assert_int_equal(mvcc_begin(m), i);
    for (uint64_t i = N; i >= 2; i--) {
        mvcc_complete(m, i);
        assert_int_equal(mvcc_read_point(m), 0);
    }
    mvcc_complete(m, 1);
    assert_int_equal(mvcc_read_point(m), N);
    mvcc_free(m);
}

typedef struct waiter_arg {
    mvcc *m;
    uint64_t w;
    atomic_int returned;
    uint64_t read_point_after;
} waiter_arg;

static void *complete_and_wait_main(void *p)
{
    waiter_arg *a = p;
    mvcc_complete_and_wait(a->m, a->w);
    a->read_point_after = mvcc_read_point(a->m);
    atomic_store(&a->returned, 1);
    return NULL;
}

static void test_complete_and_wait_blocks_for_earlier_writes(void **state)
{
    mvcc *m = mvcc_new(0);
    assert_non_null(m);
    uint64_t w1 = mvcc_begin(m), w2 = mvcc_begin(m), w3 = mvcc_begin(m);
    waiter_arg a = {.m = m, .w = w3};
    atomic_init(&a.returned, 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, complete_and_wait_main, &a), 0);
    sleep_ms(100);
    assert_int_equal(atomic_load(&a.returned), 0);
    mvcc_complete(m, w2);
    sleep_ms(100);
    assert_int_equal(atomic_load(&a.returned), 0);
    assert_int_equal(mvcc_read_point(m), 0);
    mvcc_complete(m, w1);
    assert_true(eventually(&a.returned));
    pthread_join(t, NULL);
    assert_true(a.read_point_after >= w3);
    /* with nothing earlier in flight it returns at once */
    uint64_t w4 = mvcc_begin(m);
    mvcc_complete_and_wait(m, w4);
    assert_int_equal(mvcc_read_point(m), w4);
    mvcc_free(m);
}

#define STRESS_THREADS 8
#define STRESS_PER_THREAD 10000
#define STRESS_START 1000

typedef struct stress_ctx {
    mvcc *m;
    atomic_uchar *begun; /* indexed by write number */
    atomic_uchar *done;
    atomic_int writers_left;
    atomic_int failures;
    uint64_t checks;
    unsigned seed;           /* writer i draws from seed + i */
    atomic_uint next_writer; /* hands out i */
} stress_ctx;

static void *stress_writer(void *p)
{
    stress_ctx *c = p;
    unsigned seed = c->seed + atomic_fetch_add(&c->next_writer, 1);
    for (int i = 0; i < STRESS_PER_THREAD; i++) {
        uint64_t w = mvcc_begin(c->m);
        if (w <= STRESS_START || w > STRESS_START + STRESS_THREADS * STRESS_PER_THREAD ||
            atomic_exchange(&c->begun[w], 1) != 0) {
            atomic_fetch_add(&c->failures, 1);
            continue;
        }
        if (rand_r(&seed) % 8 == 0)
            sched_yield();
        atomic_store(&c->done[w], 1);
        if (i % 2)
            mvcc_complete(c->m, w);
        else {
            mvcc_complete_and_wait(c->m, w);
            if (mvcc_read_point(c->m) < w)
                atomic_fetch_add(&c->failures, 1);
        }
    }
    atomic_fetch_sub(&c->writers_left, 1);
    return NULL;
}

/* The read point never goes backwards and never covers a write not yet completed. */
static void *stress_checker(void *p)
{
    stress_ctx *c = p;
    uint64_t last = STRESS_START;
    for (;;) {
        bool finished = atomic_load(&c->writers_left) == 0;
        uint64_t rp = mvcc_read_point(c->m);
        if (rp < last)
            atomic_fetch_add(&c->failures, 1);
        for (uint64_t w = last + 1; w <= rp; w++)
            if (!atomic_load(&c->done[w]))
                atomic_fetch_add(&c->failures, 1);
        if (rp > last)
            last = rp;
        c->checks++;
        if (finished)
            break;
    }
    return NULL;
}

static void test_concurrent_begin_complete(void **state)
{
    size_t slots = STRESS_START + STRESS_THREADS * STRESS_PER_THREAD + 1;
    stress_ctx c = {.m = mvcc_new(STRESS_START),
                    .begun = calloc(slots, sizeof(atomic_uchar)),
                    .done = calloc(slots, sizeof(atomic_uchar))};
    assert_non_null(c.m);
    assert_non_null(c.begun);
    assert_non_null(c.done);
    atomic_init(&c.writers_left, STRESS_THREADS);
    atomic_init(&c.failures, 0);
    atomic_init(&c.next_writer, 0);
    c.seed = tu_seed(__func__);
    pthread_t writers[STRESS_THREADS], checker;
    assert_int_equal(pthread_create(&checker, NULL, stress_checker, &c), 0);
    for (int i = 0; i < STRESS_THREADS; i++)
        assert_int_equal(pthread_create(&writers[i], NULL, stress_writer, &c), 0);
    for (int i = 0; i < STRESS_THREADS; i++)
        pthread_join(writers[i], NULL);
    pthread_join(checker, NULL);
    if (atomic_load(&c.failures) != 0)
        fail_msg("%d violations; rerun with STRATA_TEST_SEED=%u", atomic_load(&c.failures), c.seed);
    assert_true(c.checks > 0);
    assert_int_equal(mvcc_read_point(c.m), STRESS_START + STRESS_THREADS * STRESS_PER_THREAD);
    mvcc_free(c.m);
    free(c.begun);
    free(c.done);
}

static void test_advance_to(void **state)
{
    mvcc *m = mvcc_new(0);
    assert_non_null(m);
    mvcc_advance_to(m, 100); /* e.g. the highest seq replayed from the WAL */
    assert_int_equal(mvcc_read_point(m), 100);
    mvcc_advance_to(m, 50); /* never lowers */
    assert_int_equal(mvcc_read_point(m), 100);
    uint64_t w = mvcc_begin(m);
    assert_int_equal(w, 101);
    mvcc_advance_to(m, 200); /* while w is in flight: w still bounds the read point */
    assert_int_equal(mvcc_read_point(m), 100);
    uint64_t w2 = mvcc_begin(m);
    assert_int_equal(w2, 201);
    mvcc_complete(m, w2);
    assert_int_equal(mvcc_read_point(m), 100);
    mvcc_complete(m, w);
    assert_int_equal(mvcc_read_point(m), 201);
    assert_int_equal(mvcc_begin(m), 202);
    mvcc_free(m);
}

typedef struct wait_all_arg {
    mvcc *m;
    atomic_int returned;
} wait_all_arg;

static void *wait_all_main(void *p)
{
    wait_all_arg *a = p;
    mvcc_wait_all(a->m);
    atomic_store(&a->returned, 1);
    return NULL;
}

static void test_wait_all(void **state)
{
    mvcc *m = mvcc_new(5);
    assert_non_null(m);
    mvcc_wait_all(m); /* nothing in flight: returns at once */
    uint64_t w1 = mvcc_begin(m), w2 = mvcc_begin(m), w3 = mvcc_begin(m);
    wait_all_arg a = {.m = m};
    atomic_init(&a.returned, 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, wait_all_main, &a), 0);
    sleep_ms(50);
    mvcc_complete(m, w3);
    mvcc_complete(m, w1);
    sleep_ms(100);
    assert_int_equal(atomic_load(&a.returned), 0);
    uint64_t late = mvcc_begin(m); /* begun after wait_all: not waited for */
    mvcc_complete(m, w2);
    assert_true(eventually(&a.returned));
    pthread_join(t, NULL);
    assert_int_equal(mvcc_read_point(m), w3);
    mvcc_complete(m, late);
    assert_int_equal(mvcc_read_point(m), late);
    mvcc_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_point_covers_completed_prefix),
        cmocka_unit_test(test_many_in_flight_complete_in_reverse),
        cmocka_unit_test(test_complete_and_wait_blocks_for_earlier_writes),
        cmocka_unit_test(test_concurrent_begin_complete),
        cmocka_unit_test(test_advance_to),
        cmocka_unit_test(test_wait_all),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
