/*
 * test_layout.c - the root directory's names (regionserver/storage/layout.c): WAL
 * directories of region servers and masters, fenced directories, tables, regions and
 * their subdirectories. This file pins the layout docs/architecture.md documents.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "regionserver/storage/layout.h"
#include "tests/support/testutil.h"

static void eq_free(char *got, const char *want)
{
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void test_wal_directories(void **state)
{
    eq_free(layout_wals_dir("/r"), "/r/WALs");
    eq_free(layout_wal_dir("/r", "h,17020,5"), "/r/WALs/h,17020,5");
    char name[400];
    layout_master_wal_name("h,17000,9", name, sizeof(name));
    assert_string_equal(name, "master-h,17000,9");
    assert_true(layout_is_master_wal_name(name));
    assert_false(layout_is_master_wal_name("h,17020,5"));
    assert_false(layout_is_master_wal_name("master"));
}

static void test_fenced_names(void **state)
{
    eq_free(layout_fenced_wal_dir("/r", "h,1,2"), "/r/WALs/h,1,2-splitting");
    eq_free(layout_fenced_wal_dir("/r", "h,1,2-splitting"), "/r/WALs/h,1,2-splitting");
    assert_true(layout_is_fenced_wal_name("h,1,2-splitting"));
    assert_false(layout_is_fenced_wal_name("h,1,2"));
    assert_false(layout_is_fenced_wal_name("-splitting"));
    char owner[400];
    layout_wal_name_owner("h,1,2-splitting", owner, sizeof(owner));
    assert_string_equal(owner, "h,1,2");
    layout_wal_name_owner("h,1,2", owner, sizeof(owner));
    assert_string_equal(owner, "h,1,2");
    layout_wal_name_owner("master-h,1,2-splitting", owner, sizeof(owner));
    assert_string_equal(owner, "master-h,1,2");
}

static void test_table_and_region_directories(void **state)
{
    eq_free(layout_table_dir("/r", "t"), "/r/data/default/t");
    eq_free(layout_table_dir("/r", "ns:t"), "/r/data/ns/t");
    eq_free(layout_region_dir("/r", "ns:t", "abc"), "/r/data/ns/t/abc");
    eq_free(layout_store_dir("/r", "t", "abc", "f"), "/r/data/default/t/abc/f");
    eq_free(layout_recovered_edits_dir("/r", "t", "abc"), "/r/data/default/t/abc/recovered.edits");
    assert_null(layout_table_dir("/r", "bad name"));
    assert_null(layout_region_dir("/r", ".t", "abc"));
}

static void test_name_parts(void **state)
{
    (void)state;
    const char *good[] = {"t", "ns_1", "a.b-c", "5f0e1c2b3a49586776a5b4c3d2e1f0a9"};
    const char *bad[] = {"", ".t", "-t", "a b", "a/b", "a:b"};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        assert_true(layout_name_part_ok(good[i]));
        assert_int_equal(layout_validate_name_part(good[i]), ST_OK);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        st_clear();
        assert_false(layout_name_part_ok(bad[i]));
        assert_string_equal(st_errmsg(), ""); /* records nothing */
        assert_int_equal(layout_validate_name_part(bad[i]), ST_INVALID_ARGUMENT);
    }
    char long_name[130];
    memset(long_name, 'a', sizeof(long_name) - 1);
    long_name[129] = '\0';
    assert_false(layout_name_part_ok(long_name));
    long_name[128] = '\0';
    assert_true(layout_name_part_ok(long_name));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wal_directories),
        cmocka_unit_test(test_fenced_names),
        cmocka_unit_test(test_table_and_region_directories),
        cmocka_unit_test(test_name_parts),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
