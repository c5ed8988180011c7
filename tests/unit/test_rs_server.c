/*
 * test_rs_server.c - the region server's settings (regionserver/rs_server.c), read by
 * rs_server_new without starting anything: the cluster-wide split settings
 * (regionserver.split.policy, regionserver.max.filesize, regionserver.max.filesize.jitter,
 * regionserver.increasing.policy.initial.size, the flush size) with HBase's defaults, and
 * bad values refused naming the key.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/config.h"
#include "common/status.h"
#include "regionserver/rs_internal.h"
#include "tests/support/testutil.h"

#define MB (1024ull * 1024)

/* A server made from root.dir and the n given {key, value} flags. */
static int server_with(rs_server **out, const char *const (*kv)[2], size_t n)
{
    config *c = NULL;
    assert_int_equal(config_new(&c), ST_OK);
    assert_int_equal(rs_config_define(c), ST_OK);
    assert_int_equal(config_set(c, "root.dir", "/nonexistent/strata-root", CONFIG_SRC_FLAG), ST_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(config_set(c, kv[i][0], kv[i][1], CONFIG_SRC_FLAG), ST_OK);
    int rc = rs_server_new(c, out);
    config_free(c);
    return rc;
}

static void split_defaults_are_hbase_s(void **state)
{
    (void)state;
    rs_server *s = NULL;
    assert_int_equal(server_with(&s, NULL, 0), ST_OK);
    assert_int_equal(s->split.policy, SPLIT_POLICY_STEPPING);
    assert_true(s->split.max_filesize == 10ull * 1024 * MB);
    assert_true(s->split.flushsize == 128 * MB);
    assert_int_equal(s->split.initial_size, 0);
    assert_true(s->split.jitter == 0.25);
    rs_server_free(s);
}

static void split_settings_are_read(void **state)
{
    (void)state;
    static const char *const kv[][2] = {
        {"regionserver.split.policy", SPLIT_POLICY_CLASS_PREFIX "DisabledRegionSplitPolicy"},
        {"regionserver.max.filesize", "1g"},
        {"regionserver.max.filesize.jitter", "0"},
        {"regionserver.increasing.policy.initial.size", "64m"},
        {"regionserver.memstore.flush.size", "16m"},
    };
    rs_server *s = NULL;
    assert_int_equal(server_with(&s, kv, 5), ST_OK);
    assert_int_equal(s->split.policy, SPLIT_POLICY_DISABLED);
    assert_true(s->split.max_filesize == 1024 * MB);
    assert_true(s->split.jitter == 0);
    assert_true(s->split.initial_size == 64 * MB);
    assert_true(s->split.flushsize == 16 * MB);
    rs_server_free(s);
    static const char *const kv2[][2] = {
        {"regionserver.split.policy", "KeyPrefixRegionSplitPolicy"},
        {"regionserver.max.filesize.jitter", "1"},
    };
    assert_int_equal(server_with(&s, kv2, 2), ST_OK);
    assert_int_equal(s->split.policy, SPLIT_POLICY_KEY_PREFIX);
    assert_true(s->split.jitter == 1);
    rs_server_free(s);
}

static void bad_split_settings_are_refused(void **state)
{
    (void)state;
    static const struct {
        const char *key, *value, *msg;
    } bad[] = {
        {"regionserver.split.policy", "BusyRegionSplitPolicy",
         "regionserver.split.policy = 'BusyRegionSplitPolicy' is unknown"},
        {"regionserver.split.policy", "", "regionserver.split.policy = '' is unknown"},
        {"regionserver.max.filesize", "0", "regionserver.max.filesize must be > 0"},
        {"regionserver.max.filesize.jitter", "-0.5", "regionserver.max.filesize.jitter = -0.5"},
        {"regionserver.max.filesize.jitter", "1.01", "out of range 0..1"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *const kv[][2] = {{bad[i].key, bad[i].value}};
        rs_server *s = (rs_server *)1;
        assert_int_equal(server_with(&s, kv, 1), ST_INVALID_ARGUMENT);
        assert_null(s);
        if (!strstr(st_errmsg(), bad[i].msg))
            fail_msg("'%s' lacks '%s'", st_errmsg(), bad[i].msg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(split_defaults_are_hbase_s),
        cmocka_unit_test(split_settings_are_read),
        cmocka_unit_test(bad_split_settings_are_refused),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
