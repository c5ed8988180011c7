/*
 * test_bench_redis.c - the Redis peer of the cluster benchmark: a private redis-server
 * comes up on a free port, redis-benchmark's figures are read, and the server is gone
 * afterwards (an integration test: it runs real redis-server and redis-benchmark). Skipped (exit 77) when redis-server / redis-benchmark are not installed (they
 * are benchmark peers, not build dependencies; deploy/deps.sh installs them for CI).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

#include "common/status.h"
#include "tests/support/testutil.h"
#include "tools/bench_redis.h"

static void redis_peer_reports_get_and_set(void **state)
{
    (void)state;
    if (!bench_redis_available())
        tu_skip(__func__,
                "redis-server/redis-benchmark not installed (deploy/deps.sh installs them)");
    bench_redis_result r;
    int rc = bench_redis_run(100, 4, 2000, &r);
    if (rc != ST_OK)
        fprintf(stderr, "%s\n", st_errmsg());
    assert_int_equal(rc, ST_OK);
    assert_true(r.set.ops_per_sec > 0);
    assert_true(r.get.ops_per_sec > 0);
    assert_true(r.get.p50_ms > 0 && r.get.p99_ms >= r.get.p50_ms);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(redis_peer_reports_get_and_set),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
