/*
 * test_znodes.c - the znode names (common/zk/znodes.c) are exactly those docs/znodes.md
 * lists, under any parent; bad children are refused; child paths are recognised.
 * This file is the one place outside znodes.c that spells the names: it pins the layout.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "common/zk/znodes.h"
#include "tests/support/testutil.h"

static void check(const char *parent, znode_id node, const char *child, const char *want)
{
    char *p = znodes_path(parent, node, child);
    if (!want) {
        assert_null(p);
        return;
    }
    assert_non_null(p);
    assert_string_equal(p, want);
    free(p);
}

static void test_names_match_the_documented_layout(void **state)
{
    check(NULL, ZNODE_PARENT, NULL, "/strata");
    check("", ZNODE_CLUSTER_ID, NULL, "/strata/clusterid");
    check(NULL, ZNODE_MASTER, NULL, "/strata/master");
    check(NULL, ZNODE_BACKUP_MASTERS, "h,17000,5", "/strata/backup-masters/h,17000,5");
    check(NULL, ZNODE_RS, NULL, "/strata/rs");
    check(NULL, ZNODE_RS, "h,17020,7", "/strata/rs/h,17020,7");
    check(NULL, ZNODE_REGION_OWNER, "0123abcd", "/strata/region-owner/0123abcd");
    check(NULL, ZNODE_TABLE, "ns:t", "/strata/table/ns:t");
    check(NULL, ZNODE_SPLIT_WAL, "h,1,2", "/strata/splitWAL/h,1,2");
    check(NULL, ZNODE_BALANCER, NULL, "/strata/balancer");
    check(NULL, ZNODE_SWITCH, "split", "/strata/switch/split");
    check(NULL, ZNODE_SWITCH, "merge", "/strata/switch/merge");
    check(NULL, ZNODE_NORMALIZER, NULL, "/strata/normalizer");
    assert_string_equal(ZNODES_DEFAULT_PARENT, "/strata");
}

static void test_other_parents(void **state)
{
    check("/test/strata", ZNODE_RS, "x", "/test/strata/rs/x");
    check("/c2/", ZNODE_MASTER, NULL, "/c2/master");
    check("/c2", ZNODE_PARENT, NULL, "/c2");
}

static void test_bad_children_are_refused(void **state)
{
    check(NULL, ZNODE_MASTER, "x", NULL);   /* a leaf has no children */
    check(NULL, ZNODE_BALANCER, "x", NULL);
    check(NULL, ZNODE_RS, "", NULL);        /* empty */
    check(NULL, ZNODE_RS, "a/b", NULL);     /* would reach below the child */
    check(NULL, (znode_id)99, NULL, NULL);  /* no such node */
}

static void test_child_of(void **state)
{
    assert_string_equal(znodes_child_of(NULL, ZNODE_RS, "/strata/rs/h,1,2"), "h,1,2");
    assert_string_equal(znodes_child_of("/p", ZNODE_REGION_OWNER, "/p/region-owner/abc"), "abc");
    assert_null(znodes_child_of(NULL, ZNODE_RS, "/strata/rs"));
    assert_null(znodes_child_of(NULL, ZNODE_RS, "/strata/rs/"));
    assert_null(znodes_child_of(NULL, ZNODE_RS, "/strata/rsx/a"));
    assert_null(znodes_child_of(NULL, ZNODE_RS, "/strata/rs/a/b"));
    assert_null(znodes_child_of(NULL, ZNODE_MASTER, "/strata/master/a"));
    assert_null(znodes_child_of("/other", ZNODE_RS, "/strata/rs/a"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_match_the_documented_layout),
        cmocka_unit_test(test_other_parents),
        cmocka_unit_test(test_bad_children_are_refused),
        cmocka_unit_test(test_child_of),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
