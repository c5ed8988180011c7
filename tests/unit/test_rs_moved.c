/*
 * test_rs_moved.c - the region server's moved-regions map (regionserver/rs_moved.h):
 * put/get/replace, expiry after the TTL, the bound (expired pruned first, then the
 * oldest dropped), forget (a region reopened here), and bad input refused.
 * Thread-safety: single-threaded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/status.h"
#include "regionserver/rs_moved.h"
#include "tests/support/testutil.h"

#define MS 1000000ull

static void put(rs_moved *m, const char *name, const char *hint, uint64_t now_ns)
{
    assert_int_equal(rs_moved_put(m, name, (const uint8_t *)hint, strlen(hint), now_ns), ST_OK);
}

static void assert_hint(rs_moved *m, const char *name, uint64_t now_ns, const char *want)
{
    buf_t b = {0};
    bool found = rs_moved_get(m, name, now_ns, &b);
    if (!want) {
        assert_false(found);
    } else {
        assert_true(found);
        assert_int_equal(b.len, strlen(want));
        assert_memory_equal(b.data, want, b.len);
    }
    buf_free(&b);
}

static void test_put_get_replace(void **state)
{
    rs_moved *m = rs_moved_new(8, 1000);
    assert_non_null(m);
    put(m, "r1", "to-a", 10 * MS);
    put(m, "r2", "to-b", 10 * MS);
    assert_hint(m, "r1", 11 * MS, "to-a");
    assert_hint(m, "r2", 11 * MS, "to-b");
    assert_hint(m, "r3", 11 * MS, NULL);
    put(m, "r1", "to-c", 20 * MS); /* moved again: the newer hint wins */
    assert_hint(m, "r1", 21 * MS, "to-c");
    assert_int_equal(rs_moved_prune(m, 21 * MS), 2);
    rs_moved_free(m);
}

static void test_expiry(void **state)
{
    rs_moved *m = rs_moved_new(8, 1000);
    put(m, "r1", "h1", 0);
    put(m, "r2", "h2", 500 * MS);
    assert_hint(m, "r1", 999 * MS, "h1");
    assert_hint(m, "r1", 1000 * MS, NULL); /* expired: dropped */
    assert_int_equal(rs_moved_prune(m, 1000 * MS), 1);
    assert_hint(m, "r2", 1499 * MS, "h2");
    assert_int_equal(rs_moved_prune(m, 1500 * MS), 0);
    assert_hint(m, "r2", 1500 * MS, NULL);
    rs_moved_free(m);
}

static void test_bound_prunes_then_drops_oldest(void **state)
{
    rs_moved *m = rs_moved_new(3, 1000);
    put(m, "a", "ha", 0);
    put(m, "b", "hb", 600 * MS);
    put(m, "c", "hc", 700 * MS);
    put(m, "d", "hd", 1100 * MS); /* full: "a" has expired and goes */
    assert_int_equal(rs_moved_prune(m, 1100 * MS), 3);
    assert_hint(m, "a", 1100 * MS, NULL);
    put(m, "e", "he", 1200 * MS); /* full, nothing expired: the oldest ("b") goes */
    assert_hint(m, "b", 1200 * MS, NULL);
    assert_hint(m, "c", 1200 * MS, "hc");
    assert_hint(m, "d", 1200 * MS, "hd");
    assert_hint(m, "e", 1200 * MS, "he");
    assert_int_equal(rs_moved_prune(m, 1200 * MS), 3);
    rs_moved_free(m);
}

static void test_forget_on_reopen(void **state)
{
    rs_moved *m = rs_moved_new(4, RS_MOVED_TTL_MS);
    put(m, "r1", "h1", 0);
    put(m, "r2", "h2", 0);
    rs_moved_forget(m, "r1");
    rs_moved_forget(m, "nope");
    assert_hint(m, "r1", MS, NULL);
    assert_hint(m, "r2", MS, "h2");
    assert_hint(m, "r2", (uint64_t)(RS_MOVED_TTL_MS - 1) * MS, "h2");
    rs_moved_free(m);
}

static void test_bad_input_refused(void **state)
{
    rs_moved *m = rs_moved_new(4, 1000);
    assert_int_equal(rs_moved_put(m, "", (const uint8_t *)"h", 1, 0), ST_INVALID_ARGUMENT);
    assert_int_equal(rs_moved_put(m, "r", NULL, 0, 0), ST_INVALID_ARGUMENT);
    assert_int_equal(rs_moved_prune(m, 0), 0);
    rs_moved_free(m);
    rs_moved_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_get_replace),
        cmocka_unit_test(test_expiry),
        cmocka_unit_test(test_bound_prunes_then_drops_oldest),
        cmocka_unit_test(test_forget_on_reopen),
        cmocka_unit_test(test_bad_input_refused),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
