/*
 * test_arena.c - the bump allocator: alignment, large allocations, memory accounting,
 * and many threads allocating at once without handing out overlapping memory.
 * Thread-safety: test_concurrent_* start several threads on one arena.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "tests/support/testutil.h"

static void test_alignment_every_size(void **state)
{
    arena *a = arena_new(4096);
    assert_non_null(a);
    for (size_t n = 0; n < 2000; n++) {
        uint8_t *p = arena_alloc(a, n % 1500);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 8, 0);
        memset(p, 0xab, n % 1500);
    }
    arena_free(a);
}

static void test_zero_size_distinct(void **state)
{
    arena *a = arena_new(1024);
    void *p = arena_alloc(a, 0), *q = arena_alloc(a, 0);
    assert_non_null(p);
    assert_non_null(q);
    assert_ptr_not_equal(p, q);
    arena_free(a);
}

static void test_sequential_patterns_intact(void **state)
{
    enum { N = 5000 };
    static uint8_t *ptrs[N];
    arena *a = arena_new(1000); /* not a multiple of 8 */
    for (int i = 0; i < N; i++) {
        ptrs[i] = arena_alloc(a, (size_t)(i % 37) + 1);
        assert_non_null(ptrs[i]);
        memset(ptrs[i], (uint8_t)i, (size_t)(i % 37) + 1);
    }
    for (int i = 0; i < N; i++)
        for (size_t k = 0; k < (size_t)(i % 37) + 1; k++)
            assert_int_equal(ptrs[i][k], (uint8_t)i);
    arena_free(a);
}

static void test_usage_accounting(void **state)
{
    arena *a = arena_new(4096);
    size_t base = arena_memory_usage(a);
    assert_true(base < 4096); /* nothing reserved before the first allocation */
    size_t total = 0;
    for (int i = 0; i < 1000; i++) {
        assert_non_null(arena_alloc(a, 100));
        total += 104;
    }
    size_t used = arena_memory_usage(a);
    assert_true(used >= total);
    /* ~39 allocations per 4 KB block: at most a block's worth of slack per block */
    size_t blocks = total / 4096 + 2;
    assert_true(used <= base + blocks * (4096 + 128));
    arena_free(a);
}

/* A large request gets its own block: usage grows by about its size, and the current
 * small-allocation block keeps being used afterwards. */
static void test_large_allocation_own_block(void **state)
{
    arena *a = arena_new(4096);
    uint8_t *s1 = arena_alloc(a, 16);
    size_t before = arena_memory_usage(a);
    uint8_t *big = arena_alloc(a, 1 << 20);
    assert_non_null(big);
    assert_int_equal((uintptr_t)big % 8, 0);
    memset(big, 0x5a, 1 << 20);
    size_t after = arena_memory_usage(a);
    assert_true(after - before >= (1 << 20));
    assert_true(after - before < (1 << 20) + 4096);
    uint8_t *s2 = arena_alloc(a, 16);
    assert_int_equal(arena_memory_usage(a), after); /* no new block for s2 */
    assert_ptr_equal(s2, s1 + 16);                  /* same block, next slot */
    /* just above a quarter block is "large" too */
    uint8_t *m = arena_alloc(a, 4096 / 4 + 8);
    assert_non_null(m);
    assert_true(arena_memory_usage(a) - after >= 4096 / 4 + 8);
    assert_ptr_equal(arena_alloc(a, 8), s2 + 16);
    arena_free(a);
}

static void test_impossible_size_returns_null(void **state)
{
    arena *a = arena_new(4096);
    assert_null(arena_alloc(a, SIZE_MAX));
    assert_null(arena_alloc(a, SIZE_MAX - 3));
    assert_non_null(arena_alloc(a, 8));
    arena_free(a);
    arena_free(NULL);
}

#define N_THREADS 8
#define N_ALLOCS 20000

typedef struct worker {
    arena *a;
    int id;
    uint8_t **ptrs;
    size_t *lens;
} worker;

static size_t worker_len(int id, int i)
{
    if (i % 997 == 0)
        return 3000 + (size_t)id; /* large: own block */
    return (size_t)((i * 7 + id * 13) % 120) + 1;
}

static void *worker_run(void *arg)
{
    worker *w = arg;
    for (int i = 0; i < N_ALLOCS; i++) {
        size_t n = worker_len(w->id, i);
        uint8_t *p = arena_alloc(w->a, n);
        if (!p)
            return NULL;
        memset(p, (uint8_t)(w->id * 31 + i), n);
        w->ptrs[i] = p;
        w->lens[i] = n;
    }
    return NULL;
}

typedef struct span {
    uintptr_t lo, hi;
} span;

static int span_cmp(const void *a, const void *b)
{
    const span *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void test_concurrent_allocations_intact(void **state)
{
    arena *a = arena_new(8192);
    worker w[N_THREADS];
    pthread_t t[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) {
        w[i] =
            (worker){a, i, calloc(N_ALLOCS, sizeof(uint8_t *)), calloc(N_ALLOCS, sizeof(size_t))};
        assert_int_equal(pthread_create(&t[i], NULL, worker_run, &w[i]), 0);
    }
    for (int i = 0; i < N_THREADS; i++)
        pthread_join(t[i], NULL);
    span *s = malloc(sizeof(span) * N_THREADS * N_ALLOCS);
    size_t ns = 0, total = 0;
    for (int i = 0; i < N_THREADS; i++)
        for (int j = 0; j < N_ALLOCS; j++) {
            uint8_t *p = w[i].ptrs[j];
            assert_non_null(p);
            assert_int_equal((uintptr_t)p % 8, 0);
            uint8_t want = (uint8_t)(i * 31 + j);
            for (size_t k = 0; k < w[i].lens[j]; k++)
                if (p[k] != want)
                    fail_msg("thread %d alloc %d byte %zu overwritten", i, j, k);
            s[ns++] = (span){(uintptr_t)p, (uintptr_t)p + w[i].lens[j]};
            total += w[i].lens[j];
        }
    qsort(s, ns, sizeof(span), span_cmp);
    for (size_t i = 1; i < ns; i++)
        assert_true(s[i].lo >= s[i - 1].hi);
    assert_true(arena_memory_usage(a) >= total);
    assert_true(arena_memory_usage(a) < total * 2 + 64 * 8192);
    for (int i = 0; i < N_THREADS; i++) {
        free(w[i].ptrs);
        free(w[i].lens);
    }
    free(s);
    arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alignment_every_size),
        cmocka_unit_test(test_zero_size_distinct),
        cmocka_unit_test(test_sequential_patterns_intact),
        cmocka_unit_test(test_usage_accounting),
        cmocka_unit_test(test_large_allocation_own_block),
        cmocka_unit_test(test_impossible_size_returns_null),
        cmocka_unit_test(test_concurrent_allocations_intact),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
