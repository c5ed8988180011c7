/*
 * test_scratch.c - the per-call bump allocator: alignment and zeroing, growth past the
 * first block, reuse of first blocks by the same thread, nested ones too (and not across
 * threads), huge and overflowing requests, and protobuf messages unpacked into a scratch.
 * Thread-safety: test_spare_is_per_thread starts a second thread.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/proto/rpc.pb-c.h"
#include "common/scratch.h"
#include "tests/support/testutil.h"

static void test_aligned_zeroed_and_distinct(void **state)
{
    (void)state;
    scratch_t s = {0};
    uint8_t *prev = NULL;
    for (size_t n = 0; n < 3000; n++) {
        uint8_t *p = scratch_alloc(&s, n % 700);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 16, 0);
        for (size_t i = 0; i < n % 700; i++)
            assert_int_equal(p[i], 0);
        memset(p, 0xab, n % 700); /* dirty it: the next scratch must still hand out zeros */
        assert_ptr_not_equal(p, prev);
        prev = p;
    }
    assert_true(s.bytes > 3 * SCRATCH_BLOCK); /* it grew past the first block */
    scratch_free(&s);
    assert_null(s.head);
    assert_int_equal(s.bytes, 0);
    /* reused at once: the recycled first block comes back zeroed */
    uint8_t *p = scratch_alloc(&s, 512);
    for (size_t i = 0; i < 512; i++)
        assert_int_equal(p[i], 0);
    scratch_free(&s);
}

static void test_first_block_recycled_by_the_thread(void **state)
{
    (void)state;
    scratch_t a = {0};
    void *first = scratch_alloc(&a, 64);
    scratch_free(&a);
    scratch_t b = {0};
    void *again = scratch_alloc(&b, 64);
    assert_ptr_equal(first, again); /* the same block, no malloc */
    /* a second scratch while the first holds the spare gets its own block */
    scratch_t c = {0};
    void *other = scratch_alloc(&c, 64);
    assert_ptr_not_equal(other, again);
    scratch_free(&c);
    scratch_free(&b);
}

/* Nested scratches (a request and its answer's pool) both reuse their blocks. */
static void test_nested_scratches_both_recycled(void **state)
{
    (void)state;
    scratch_t outer = {0}, inner = {0};
    void *o1 = scratch_alloc(&outer, 100);
    void *i1 = scratch_alloc(&inner, 100);
    scratch_free(&inner);
    scratch_free(&outer);
    scratch_t outer2 = {0}, inner2 = {0};
    void *o2 = scratch_alloc(&outer2, 100);
    void *i2 = scratch_alloc(&inner2, 100);
    assert_ptr_equal(o1, o2);
    assert_ptr_equal(i1, i2);
    scratch_free(&inner2);
    scratch_free(&outer2);
}

static void *grab_one(void *arg)
{
    scratch_t s = {0};
    *(void **)arg = scratch_alloc(&s, 64);
    scratch_free(&s); /* kept by this thread, freed when it ends */
    return NULL;
}

static void test_spare_is_per_thread(void **state)
{
    (void)state;
    scratch_t s = {0};
    void *mine = scratch_alloc(&s, 64);
    scratch_free(&s);
    void *theirs = NULL;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, grab_one, &theirs), 0);
    pthread_join(th, NULL);
    assert_non_null(theirs);
    assert_ptr_not_equal(mine, theirs); /* that thread did not take this one's block */
    void *again = scratch_alloc(&s, 64);
    assert_ptr_equal(mine, again);
    scratch_free(&s);
}

static void test_large_and_overflowing_requests(void **state)
{
    (void)state;
    scratch_t s = {0};
    uint8_t *small = scratch_alloc(&s, 10);
    uint8_t *big = scratch_alloc(&s, 5u << 20); /* a block of its own */
    assert_non_null(small);
    assert_non_null(big);
    big[(5u << 20) - 1] = 1;
    small[9] = 2;
    uint8_t *after = scratch_alloc(&s, 100);
    assert_non_null(after);
    assert_null(scratch_alloc(&s, SIZE_MAX));
    assert_null(scratch_alloc(&s, SIZE_MAX - 8));
    scratch_free(&s);
}

static void test_protobuf_unpack_into_scratch(void **state)
{
    (void)state;
    Strata__Rpc__RequestHeader h = STRATA__RPC__REQUEST_HEADER__INIT;
    h.has_call_id = 1;
    h.call_id = 77;
    h.method_name = "ClientService.Get";
    uint8_t buf[128];
    size_t n = strata__rpc__request_header__pack(&h, buf);
    for (int round = 0; round < 1000; round++) {
        scratch_t s = {0};
        ProtobufCAllocator al = scratch_protobuf_allocator(&s);
        Strata__Rpc__RequestHeader *u = strata__rpc__request_header__unpack(&al, n, buf);
        assert_non_null(u);
        assert_int_equal(u->call_id, 77);
        assert_string_equal(u->method_name, "ClientService.Get");
        assert_true(s.bytes > 0);
        /* a truncated message fails cleanly with the scratch's no-op free */
        assert_null(strata__rpc__request_header__unpack(&al, n - 3, buf));
        scratch_free(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aligned_zeroed_and_distinct),
        cmocka_unit_test(test_first_block_recycled_by_the_thread),
        cmocka_unit_test(test_nested_scratches_both_recycled),
        cmocka_unit_test(test_spare_is_per_thread),
        cmocka_unit_test(test_large_and_overflowing_requests),
        cmocka_unit_test(test_protobuf_unpack_into_scratch),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
