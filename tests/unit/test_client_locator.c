/*
 * test_client_locator.c - the client's locators (client/locator.h): the file format's
 * parser (keys, `-` for empty, comments, bad lines reported with their line numbers,
 * overlapping regions), lookups at region boundaries and empty start/end keys, the fixed
 * list, the file locator re-reading a file that changed, and (regression) a client whose
 * ZooKeeper cannot be reached failing a read within its operation timeout, not after the
 * master locator's own 30 s per lookup.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "client/locator.h"
#include "common/clock.h"
#include "strata/strata.h"
#include "common/status.h"
#include "tests/support/testutil.h"

static const char *GOOD = "# table encoded start end server\n"
                          "t r1 - 6d 127.0.0.1:1000\n"
                          "\n"
                          "t\tr2\t6d\t7a  127.0.0.1:2000   # [m, z)\n"
                          "t r3 7A - host.example:3000\n"
                          "u u1 - - 10.0.0.1:1\n";

static int parse(const char *text, locator_region **v, size_t *n)
{
    return locator_parse(text, strlen(text), "regions.txt", v, n);
}

static void parse_good_file(void **state)
{
    locator_region *v = NULL;
    size_t n = 0;
    assert_int_equal(parse(GOOD, &v, &n), ST_OK);
    assert_int_equal(n, 4);
    assert_string_equal(v[0].encoded_name, "r1");
    assert_int_equal(v[0].start_len, 0);
    assert_int_equal(v[0].end_len, 1);
    assert_int_equal(v[0].end_key[0], 'm');
    assert_string_equal(v[0].host, "127.0.0.1");
    assert_int_equal(v[0].port, 1000);
    assert_string_equal(v[1].encoded_name, "r2");
    assert_int_equal(v[1].end_key[0], 'z');
    assert_string_equal(v[2].host, "host.example");
    assert_int_equal(v[2].start_key[0], 'z');
    assert_int_equal(v[2].end_len, 0);
    assert_string_equal(v[3].table, "u");
    locator_regions_free(v, n);
}

/* Each bad line is rejected with the file name and its line number. */
static void corrupt_lines_report_line_numbers(void **state)
{
    static const struct {
        const char *text;
        const char *want;
    } cases[] = {
        {"t r1 - - 127.0.0.1:1\nt r2 - -\n", "regions.txt:2: want 5 fields"},
        {"\n\nt r1 6 - h:1\n", "regions.txt:3: bad hex key"},
        {"t r1 zz - h:1\n", "regions.txt:1: bad hex key"},
        {"# c\nt r1 - - h\n", "regions.txt:2: bad address"},
        {"t r1 - - h:0\n", "regions.txt:1: bad address"},
        {"t r1 - - h:70000\n", "regions.txt:1: bad address"},
        {"t r1 - - :80\n", "regions.txt:1: bad address"},
        {"t r1 62 61 h:1\n", "regions.txt:1: region r1 ends at or before its start"},
        {"t r1 61 61 h:1\n", "regions.txt:1: region r1 ends at or before its start"},
        {"t r1 - - h:1 extra\n", "regions.txt:1: want 5 fields"},
        {"t r1 - 6d h:1\nt r2 6c - h:2\n", "regions.txt: regions r1 and r2 of table t overlap"},
        {"t r1 - - h:1\nt r2 61 - h:2\n", "overlap"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        locator_region *v = (locator_region *)1;
        size_t n = 7;
        assert_int_equal(parse(cases[i].text, &v, &n), ST_CORRUPTION);
        assert_null(v);
        assert_int_equal(n, 0);
        if (!strstr(st_errmsg(), cases[i].want))
            fail_msg("case %zu: message '%s' lacks '%s'", i, st_errmsg(), cases[i].want);
    }
}

static void corrupt_nul_byte_named_by_line(void **state)
{
    const char text[] = "t r1 - 6d h:1\nt r2 6d\0 - h:2\n";
    locator_region *v = NULL;
    size_t n = 0;
    assert_int_equal(locator_parse(text, sizeof(text) - 1, "f", &v, &n), ST_CORRUPTION);
    assert_non_null(strstr(st_errmsg(), "f:2: contains a NUL byte"));
}

/* A region holds [start, end): the end key belongs to the next region; empty keys are
 * unbounded; a row in a gap is retryable NOT_SERVING, an unknown table NOT_FOUND. */
static void lookup_boundaries(void **state)
{
    locator *l = locator_fixed_new();
    locator_region r = {0};
    assert_int_equal(locator_fixed_add(l, "t", "mid", (const uint8_t *)"m", 1, (const uint8_t *)"t",
                                       1, "127.0.0.1:2"),
                     ST_OK);
    assert_int_equal(
        locator_fixed_add(l, "t", "first", NULL, 0, (const uint8_t *)"m", 1, "127.0.0.1:1"), ST_OK);
    assert_int_equal(
        locator_fixed_add(l, "t", "last", (const uint8_t *)"x", 1, NULL, 0, "127.0.0.1:3"), ST_OK);
    const struct {
        const char *row;
        size_t len;
        const char *want;
    } cases[] = {{"", 0, "first"},    {"\0", 1, "first"}, {"l\xff", 2, "first"},  {"m", 1, "mid"},
                 {"s\xff", 2, "mid"}, {"x", 1, "last"},   {"\xff\xff", 2, "last"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(locator_locate(l, "t", (const uint8_t *)cases[i].row, cases[i].len, &r),
                         ST_OK);
        assert_string_equal(r.encoded_name, cases[i].want);
        locator_region_clear(&r);
    }
    assert_int_equal(locator_locate(l, "t", (const uint8_t *)"t", 1, &r), ST_NOT_SERVING);
    assert_int_equal(locator_locate(l, "t", (const uint8_t *)"w", 1, &r), ST_NOT_SERVING);
    assert_int_equal(locator_locate(l, "nope", (const uint8_t *)"a", 1, &r), ST_NOT_FOUND);

    locator_region *all = NULL;
    size_t n = 0;
    assert_int_equal(locator_locate_all(l, "t", &all, &n), ST_OK);
    assert_int_equal(n, 3);
    assert_string_equal(all[0].encoded_name, "first");
    assert_string_equal(all[1].encoded_name, "mid");
    assert_string_equal(all[2].encoded_name, "last");
    locator_regions_free(all, n);
    assert_int_equal(locator_locate_all(l, "nope", &all, &n), ST_NOT_FOUND);

    /* Overlaps and bad addresses are refused and leave the list as it was. */
    assert_int_equal(
        locator_fixed_add(l, "t", "bad", (const uint8_t *)"s", 1, (const uint8_t *)"y", 1, "h:1"),
        ST_INVALID_ARGUMENT);
    assert_int_equal(
        locator_fixed_add(l, "t", "bad", (const uint8_t *)"u", 1, (const uint8_t *)"v", 1, "h"),
        ST_INVALID_ARGUMENT);
    assert_int_equal(locator_locate_all(l, "t", &all, &n), ST_OK);
    assert_int_equal(n, 3);
    locator_regions_free(all, n);
    locator_free(l);
}

static void write_file(const char *path, const char *text)
{
    char tmp[600];
    assert_true(snprintf(tmp, sizeof(tmp), "%.500s.tmp", path) < (int)sizeof(tmp));
    FILE *f = fopen(tmp, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(rename(tmp, path), 0);
}

/* The file locator sees a rewritten file on the next lookup, and keeps the last good
 * locations when the file turns bad. */
static void file_reread_on_change(void **state)
{
    char *dir = tu_tempdir("locator");
    char path[512];
    locator *l = NULL;
    locator_region r = {0};
    snprintf(path, sizeof(path), "%s/regions.txt", dir);
    assert_int_equal(locator_file_open(path, &l), ST_NOT_FOUND);
    write_file(path, "t r1 - - 127.0.0.1:1000\n");
    assert_int_equal(locator_file_open(path, &l), ST_OK);
    assert_int_equal(locator_locate(l, "t", (const uint8_t *)"k", 1, &r), ST_OK);
    assert_int_equal(r.port, 1000);
    locator_region_clear(&r);

    write_file(path, "t r1 - - 127.0.0.1:2000\n");
    assert_int_equal(locator_locate(l, "t", (const uint8_t *)"k", 1, &r), ST_OK);
    assert_int_equal(r.port, 2000);
    locator_region_clear(&r);

    write_file(path, "t r1 - - 127.0.0.1\n"); /* bad: keeps the last good set */
    assert_int_equal(locator_locate(l, "t", (const uint8_t *)"k", 1, &r), ST_OK);
    assert_int_equal(r.port, 2000);
    locator_region_clear(&r);

    write_file(path, "t r1 - 6d 127.0.0.1:3000\nt r2 6d - 127.0.0.1:4000\n");
    assert_int_equal(locator_locate(l, "t", (const uint8_t *)"q", 1, &r), ST_OK);
    assert_string_equal(r.encoded_name, "r2");
    assert_int_equal(r.port, 4000);
    locator_region_clear(&r);
    locator_free(l);

    write_file(path, "t r1 - - nohost\n");
    assert_int_equal(locator_file_open(path, &l), ST_CORRUPTION);
    assert_null(l);
    tu_rmdir(dir);
}

static void split_addr(void **state)
{
    char *host = NULL;
    uint16_t port = 0;
    assert_int_equal(locator_split_addr("::1:80", &host, &port), ST_OK);
    assert_string_equal(host, "::1");
    assert_int_equal(port, 80);
    free(host);
    assert_int_equal(locator_split_addr("h:8x", &host, &port), ST_INVALID_ARGUMENT);
    assert_null(host);
    assert_int_equal(locator_split_addr(NULL, &host, &port), ST_INVALID_ARGUMENT);
}

/* A loopback port nothing listens on. */
static int dead_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    socklen_t al = sizeof(a);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    getsockname(fd, (struct sockaddr *)&a, &al);
    close(fd);
    return ntohs(a.sin_port);
}

/* Regression: with ZooKeeper unreachable a get took 60 s (two master lookups of 30 s
 * each) whatever the operation timeout; it must fail within about that timeout. */
static void unreachable_master_honours_operation_timeout(void **state)
{
    char quorum[64], *err = NULL;
    snprintf(quorum, sizeof(quorum), "127.0.0.1:%d", dead_port());
    strata_options_t *o = strata_options_create();
    strata_options_set_zk_quorum(o, quorum);
    strata_options_set_operation_timeout_ms(o, 1500);
    strata_client_t *c = strata_client_open(o, &err);
    strata_options_destroy(o);
    assert_non_null(c);
    strata_table_t *t = strata_table_open(c, "t");
    strata_get_t *g = strata_get_create("r", 1);
    int64_t t0 = clock_now_ms();
    strata_result_t *r = strata_table_get(t, g, &err);
    int64_t took = clock_now_ms() - t0;
    assert_null(r);
    assert_non_null(err);
    assert_int_equal(strata_error_code(err), STRATA_ERR_RETRYABLE);
    if (took > 8000)
        fail_msg("the get failed after %lld ms with a 1500 ms operation timeout: %s",
                 (long long)took, err);
    strata_free(err);
    strata_get_destroy(g);
    strata_table_close(t);
    strata_client_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_good_file),
        cmocka_unit_test(corrupt_lines_report_line_numbers),
        cmocka_unit_test(corrupt_nul_byte_named_by_line),
        cmocka_unit_test(lookup_boundaries),
        cmocka_unit_test(file_reread_on_change),
        cmocka_unit_test(split_addr),
        cmocka_unit_test(unreachable_master_honours_operation_timeout),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
