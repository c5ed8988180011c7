/*
 * test_net.c - address splitting and the default advertised host (common/net.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>
#include <unistd.h>

#include "common/net.h"
#include "common/status.h"

static void test_split_addr(void **state)
{
    (void)state;
    char host[64];
    int port = 0;
    assert_int_equal(net_split_addr("rs1:17020", host, sizeof(host), &port), ST_OK);
    assert_string_equal(host, "rs1");
    assert_int_equal(port, 17020);
    assert_int_equal(net_split_addr("[::1]:9", host, sizeof(host), &port), ST_OK);
    assert_string_equal(host, "::1");
    assert_int_equal(port, 9);
    assert_int_equal(net_split_addr("rs1", host, sizeof(host), &port), ST_INVALID_ARGUMENT);
}

/* A wildcard bind host advertises the machine's host name; any other host itself. */
static void test_default_advertised_host(void **state)
{
    (void)state;
    char want[256], got[256];
    assert_int_equal(gethostname(want, sizeof(want)), 0);
    const char *wild[] = {"", "0.0.0.0", "::"};
    for (size_t i = 0; i < sizeof(wild) / sizeof(wild[0]); i++) {
        assert_int_equal(net_default_advertised_host(wild[i], got, sizeof(got)), ST_OK);
        assert_string_equal(got, want);
    }
    assert_int_equal(net_default_advertised_host("127.0.0.2", got, sizeof(got)), ST_OK);
    assert_string_equal(got, "127.0.0.2");
    assert_int_equal(net_default_advertised_host("rs1.example.net", got, 4),
                     ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "rs1.example.net"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_addr),
        cmocka_unit_test(test_default_advertised_host),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
