/*
 * test_ycsb_series.c - tools/bench_ycsb_series.c: the CSV's header and rows (a server
 * that appears later gets its columns, empty cells while it was not live or the status
 * call failed), the SVG (one document, balanced tags, a polyline per unbroken run of a
 * server's samples, names escaped), an empty series still drawn, and a file that cannot
 * be written reported with its path.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "common/status.h"
#include "tests/support/testutil.h"
#include "tools/bench_ycsb.h"

static int count(const char *s, const char *needle)
{
    int n = 0;
    for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

/* Four samples: server h:1 in each, server h<2> from the second on but absent from the
 * third. */
static void fill(ycsb_series *s)
{
    ycsb_series_init(s);
    s->run_start_s = 1.5;
    ycsb_sample *x = ycsb_series_add(s);
    x->time_s = 1.0, x->ops_per_s = 100, x->p99_us = 900, x->phase = YCSB_PHASE_LOAD;
    x->servers_ok = true;
    x->rps[ycsb_series_server(s, "h:1")] = 50, x->regions[0] = 3;
    x = ycsb_series_add(s);
    x->time_s = 2.0, x->ops_per_s = 200, x->p99_us = 800, x->phase = YCSB_PHASE_RUN;
    x->servers_ok = true;
    x->rps[ycsb_series_server(s, "h:1")] = 60, x->regions[0] = 2;
    x->rps[ycsb_series_server(s, "h<2>")] = 70, x->regions[1] = 1;
    x = ycsb_series_add(s);
    x->time_s = 3.0, x->ops_per_s = 150, x->p99_us = 1000, x->phase = YCSB_PHASE_RUN;
    x->servers_ok = true;
    x->rps[0] = 65, x->regions[0] = 3;
    x = ycsb_series_add(s);
    x->time_s = 4.0, x->ops_per_s = 120, x->p99_us = 1100, x->phase = YCSB_PHASE_RUN;
    x->servers_ok = true;
    x->rps[0] = 61, x->regions[0] = 2;
    x->rps[1] = 59, x->regions[1] = 1;
}

static void csv_is_wide_with_empty_cells_for_absent_servers(void **state)
{
    (void)state;
    ycsb_series s;
    fill(&s);
    char *dir = tu_tempdir("ycsb-series");
    char path[512];
    snprintf(path, sizeof(path), "%s/s.csv", dir);
    assert_int_equal(ycsb_series_write_csv(&s, path), ST_OK);
    buf_t b = {0};
    assert_int_equal(fio_read_all(path, &b), ST_OK);
    assert_int_equal(buf_append_u8(&b, 0), ST_OK);
    assert_string_equal((char *)b.data, "time_s,ops_per_s,p99_us,h:1_rps,h:1_regions,h<2>_rps,"
                                        "h<2>_regions\n"
                                        "1.000,100.0,900,50.0,3,,\n"
                                        "2.000,200.0,800,60.0,2,70.0,1\n"
                                        "3.000,150.0,1000,65.0,3,,\n"
                                        "4.000,120.0,1100,61.0,2,59.0,1\n");
    buf_free(&b);
    snprintf(path, sizeof(path), "%s/no/such/dir/s.csv", dir);
    assert_int_equal(ycsb_series_write_csv(&s, path), ST_IO);
    assert_non_null(strstr(st_errmsg(), path));
    tu_rmdir(dir);
    ycsb_series_free(&s);
}

static void svg_is_one_document_with_a_line_per_run(void **state)
{
    (void)state;
    ycsb_series s;
    fill(&s);
    buf_t b = {0};
    assert_int_equal(ycsb_series_svg(&s, "workload a & <b>", &b), ST_OK);
    assert_int_equal(buf_append_u8(&b, 0), ST_OK);
    const char *svg = (const char *)b.data;
    assert_true(strncmp(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39) == 0);
    assert_int_equal(count(svg, "<svg"), 1);
    assert_int_equal(count(svg, "</svg>"), 1);
    assert_int_equal(count(svg, "<"), count(svg, ">"));
    assert_non_null(strstr(svg, "workload a &amp; &lt;b&gt;"));
    assert_non_null(strstr(svg, "h&lt;2&gt; (1 regions)"));
    assert_non_null(strstr(svg, "h:1 (2 regions)"));
    /* throughput 1, p99 1, server a 1, server b 2 (absent in the third sample) */
    assert_int_equal(count(svg, "<polyline"), 5);
    assert_non_null(strstr(svg, ">run</text>"));
    buf_free(&b);
    ycsb_series_free(&s);

    ycsb_series_init(&s);
    assert_int_equal(ycsb_series_svg(&s, "empty", &b), ST_OK);
    assert_int_equal(buf_append_u8(&b, 0), ST_OK);
    assert_non_null(strstr((char *)b.data, "run with --servers"));
    assert_int_equal(count((char *)b.data, "<polyline"), 0);
    assert_int_equal(count((char *)b.data, "</svg>"), 1);
    buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(csv_is_wide_with_empty_cells_for_absent_servers),
        cmocka_unit_test(svg_is_one_document_with_a_line_per_run),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
