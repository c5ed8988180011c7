/*
 * test_ycsb.c - `strata bench ycsb` end to end against a 2-server local cluster
 * (tests/support/cluster.h, heartbeats every second): workload A loaded and run with a
 * time series (--interval 1 --servers --csv --plot --json, paced by --target so the run
 * spans several intervals) ends with no error, a JSON document with both phases and
 * the operations' figures, a CSV whose rows carry both servers' columns and the table's
 * 12 regions, and an SVG chart; workloads E and D run briefly on tables of their own;
 * hotspot and uniform requests run, and --max-seconds stops a paced run before its count;
 * reads of records that were never loaded are reported as NOT_FOUND errors with exit
 * status 1; bad arguments are refused with one line and exit status 2.
 * Needs STRATA_BIN (set by CTest) and ZooKeeper (java and /usr/share/java/zookeeper*.jar);
 * skipped without them (exit 77).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/status.h"
#include "tests/support/cluster.h"
#include "tests/support/testutil.h"

static tc_cluster *cluster;
static char *tmp;

/* The number after "key": at the first occurrence of key at or after from; -1 if none. */
static double json_num(const char *doc, const char *from, const char *key)
{
    char pat[96];
    snprintf(pat, sizeof(pat), "\"%s\":", key);
    const char *p = strstr(from ? from : doc, pat);
    return p ? atof(p + strlen(pat)) : -1;
}

/* Runs `$STRATA_BIN bench ycsb --dir <cluster> ARGS`; stdout into *out (malloc'ed),
 * stderr into <tmp>/stderr; returns the exit status. */
static int run_ycsb(const char *args, char **out)
{
    char cmd[2048];
    snprintf(cmd, sizeof(cmd), "%s bench ycsb --dir %s %s 2>%s/stderr", getenv("STRATA_BIN"),
             tc_dir(cluster), args, tmp);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    buf_t b = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
        assert_int_equal(buf_append(&b, chunk, n), ST_OK);
    assert_int_equal(buf_append_u8(&b, 0), ST_OK);
    int status = pclose(p);
    *out = (char *)b.data;
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 1) {
        char path[512];
        buf_t e = {0};
        snprintf(path, sizeof(path), "%s/stderr", tmp);
        if (fio_read_all(path, &e) == ST_OK && e.len)
            fprintf(stderr, "%.*s", (int)e.len, (char *)e.data);
        buf_free(&e);
    }
    return WEXITSTATUS(status);
}

static char *read_file(const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", tmp, name);
    buf_t b = {0};
    if (fio_read_all(path, &b) != ST_OK)
        fail_msg("cannot read %s: %s", path, st_errmsg());
    assert_int_equal(buf_append_u8(&b, 0), ST_OK);
    return (char *)b.data;
}

static int count_char(const char *s, size_t len, char c)
{
    int n = 0;
    for (size_t i = 0; i < len; i++)
        n += s[i] == c;
    return n;
}

/* The CSV: header, >= 3 rows of the header's width, both servers' columns, and a row
 * where the servers hold the table's 12 regions. */
static void check_csv(const char *csv)
{
    assert_true(strncmp(csv, "time_s,ops_per_s,p99_us,", 24) == 0);
    size_t hlen = strcspn(csv, "\n");
    int cols = count_char(csv, hlen, ',');
    assert_int_equal(cols, 2 + 2 * 2); /* two servers: _rps and _regions each */
    int nrps = 0;
    for (const char *p = csv; (p = strstr(p, "_rps")) && p < csv + hlen; p++)
        nrps++;
    assert_int_equal(nrps, 2);
    int rows = 0, full = 0;
    for (const char *line = csv + hlen + 1; *line; line += strcspn(line, "\n") + 1) {
        size_t len = strcspn(line, "\n");
        assert_int_equal(count_char(line, len, ','), cols);
        rows++;
        double rps1, rps2;
        int reg1, reg2;
        double t, ops, p99;
        if (sscanf(line, "%lf,%lf,%lf,%lf,%d,%lf,%d", &t, &ops, &p99, &rps1, &reg1, &rps2, &reg2) ==
            7) {
            assert_true(t > 0 && ops >= 0);
            full += reg1 + reg2 == 12 && reg1 > 0 && reg2 > 0;
        }
        if (!line[len])
            break;
    }
    assert_true(rows >= 3);
    assert_true(full >= 1);
}

static void workload_a_with_time_series(void **state)
{
    (void)state;
    char args[1024], *doc = NULL;
    snprintf(args, sizeof(args),
             "--workload a --recordcount 2000 --operationcount 4000 --threads 4 --target 1500 "
             "--interval 1 --servers --csv %s/a.csv --plot %s/a.svg --json",
             tmp, tmp);
    assert_int_equal(run_ycsb(args, &doc), 0);
    assert_true(doc[0] == '{');
    assert_non_null(strstr(doc, "\"benchmark\":\"ycsb\""));
    assert_non_null(strstr(doc, "\"workload\":\"a\""));
    assert_non_null(strstr(doc, "\"requestdistribution\":\"zipfian\""));
    assert_true(json_num(doc, NULL, "errors") == 0);
    const char *load = strstr(doc, "\"phase\":\"load\"");
    const char *run = strstr(doc, "\"phase\":\"run\"");
    assert_non_null(load);
    assert_non_null(run);
    assert_true(json_num(doc, load, "operations") == 2000);
    assert_true(json_num(doc, load, "errors") == 0);
    const char *ins = strstr(load, "\"INSERT\":");
    assert_non_null(ins);
    assert_true(json_num(doc, ins, "OK") == 2000);
    assert_true(json_num(doc, run, "operations") == 4000);
    assert_true(json_num(doc, run, "throughput_ops_sec") > 0);
    const char *read = strstr(run, "\"READ\":"), *update = strstr(run, "\"UPDATE\":");
    assert_non_null(read);
    assert_non_null(update);
    double reads = json_num(doc, read, "operations"), updates = json_num(doc, update, "operations");
    assert_true(reads + updates == 4000);
    assert_true(reads > 1600 && updates > 1600); /* 50/50 */
    assert_true(json_num(doc, read, "p99_us") >= json_num(doc, read, "p95_us"));
    assert_true(json_num(doc, read, "max_us") >= json_num(doc, read, "p99_us"));
    assert_true(json_num(doc, read, "NOT_FOUND") == 0);
    assert_true(json_num(doc, read, "ERROR") == 0);
    assert_true(json_num(doc, NULL, "run_start_s") > 0);
    assert_non_null(strstr(doc, "\"series\":[{\"time_s\":"));
    assert_non_null(strstr(doc, "\"rps\":"));
    free(doc);

    char *csv = read_file("a.csv");
    check_csv(csv);
    free(csv);
    char *svg = read_file("a.svg");
    assert_true(strncmp(svg, "<svg", 4) == 0);
    assert_non_null(strstr(svg, "<polyline"));
    assert_non_null(strstr(svg, "regions)</text>"));
    assert_non_null(strstr(svg, "</svg>\n"));
    assert_int_equal(count_char(svg, strlen(svg), '<'), count_char(svg, strlen(svg), '>'));
    free(svg);
}

static void workloads_e_and_d_briefly(void **state)
{
    (void)state;
    char *doc = NULL;
    assert_int_equal(run_ycsb("--workload e --table ycsb_e --regions 4 --recordcount 1000 "
                              "--operationcount 600 --threads 2 --json",
                              &doc),
                     0);
    const char *run = strstr(doc, "\"phase\":\"run\"");
    assert_non_null(run);
    assert_true(json_num(doc, NULL, "errors") == 0);
    assert_non_null(strstr(run, "\"SCAN\":"));
    assert_true(json_num(doc, strstr(run, "\"SCAN\":"), "operations") > 500);
    free(doc);
    assert_int_equal(run_ycsb("--workload d --table ycsb_d --regions 4 --recordcount 1000 "
                              "--operationcount 2000 --threads 2 --json",
                              &doc),
                     0);
    run = strstr(doc, "\"phase\":\"run\"");
    assert_non_null(run);
    assert_true(json_num(doc, NULL, "errors") == 0);
    assert_non_null(strstr(run, "\"INSERT\":"));
    assert_true(json_num(doc, strstr(run, "\"READ\":"), "NOT_FOUND") == 0);
    free(doc);
    /* the text report, YCSB's way */
    assert_int_equal(run_ycsb("--workload d --table ycsb_d --phase run --recordcount 1000 "
                              "--operationcount 200",
                              &doc),
                     0);
    assert_non_null(strstr(doc, "[OVERALL], RunTime(ms), "));
    assert_non_null(strstr(doc, "[OVERALL], Throughput(ops/sec), "));
    assert_non_null(strstr(doc, "[READ], 99thPercentileLatency(us), "));
    assert_non_null(strstr(doc, "[READ], Return=NOT_FOUND, 0\n"));
    free(doc);
}

static void other_distributions_and_the_time_bound(void **state)
{
    (void)state;
    char *doc = NULL;
    /* on workload A's table, loaded by the first case */
    assert_int_equal(run_ycsb("--workload b --requestdistribution hotspot --hot-fraction 0.1 "
                              "--hot-ops-fraction 0.9 --phase run --recordcount 2000 "
                              "--operationcount 1000 --threads 2 --json",
                              &doc),
                     0);
    assert_non_null(strstr(doc, "\"requestdistribution\":\"hotspot\""));
    assert_true(json_num(doc, NULL, "errors") == 0);
    free(doc);
    assert_int_equal(run_ycsb("--workload a --requestdistribution uniform --phase run "
                              "--recordcount 2000 --operationcount 1000 --threads 2 --json",
                              &doc),
                     0);
    assert_true(json_num(doc, NULL, "errors") == 0);
    free(doc);
    /* 100 ops/s for at most 1 s: stopped by the bound, not by the count */
    assert_int_equal(run_ycsb("--workload c --phase run --recordcount 2000 --operationcount "
                              "100000 --threads 2 --target 100 --max-seconds 1 --json",
                              &doc),
                     0);
    assert_non_null(strstr(doc, "\"timed_out\":true"));
    double ops = json_num(doc, strstr(doc, "\"phase\":\"run\""), "operations");
    assert_true(ops >= 50 && ops <= 150);
    assert_true(json_num(doc, NULL, "runtime_ms") < 2000);
    free(doc);
}

static void missing_records_are_not_found_errors(void **state)
{
    (void)state;
    char *doc = NULL;
    /* nothing was loaded into this table: every read misses */
    assert_int_equal(run_ycsb("--workload c --table ycsb_empty --regions 2 --phase run "
                              "--recordcount 100 --operationcount 50 --json",
                              &doc),
                     1);
    assert_true(json_num(doc, NULL, "errors") == 50);
    assert_true(json_num(doc, strstr(doc, "\"READ\":"), "NOT_FOUND") == 50);
    free(doc);
    char *err = read_file("stderr");
    assert_non_null(strstr(err, "50 operation(s) failed"));
    assert_non_null(strstr(err, "not found"));
    free(err);
}

static void bad_arguments_are_refused(void **state)
{
    (void)state;
    const char *bad[] = {"--workload g",       "--requestdistribution pareto",
                         "--hot-fraction 1.2", "--hot-ops-fraction -1",
                         "--recordcount -10",  "--operationcount -1",
                         "--threads 0",        "--csv x.csv",
                         "--phase sometimes",  "--zk.quorum 127.0.0.1:1"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *out = NULL;
        assert_int_equal(run_ycsb(bad[i], &out), 2);
        assert_string_equal(out, "");
        free(out);
        char *err = read_file("stderr");
        assert_int_equal(count_char(err, strlen(err), '\n'), 1);
        assert_true(strncmp(err, "strata bench ycsb: ", 19) == 0);
        free(err);
    }
}


static int start(void **state)
{
    (void)state;
    static const char *const flags[] = {"--regionserver.report.interval.ms=1000", NULL};
    tc_options o = {.masters = 1, .regionservers = 2, .flags = flags};
    tmp = tu_tempdir("ycsb");
    if (tc_start(&o, &cluster) != ST_OK) {
        fprintf(stderr, "cluster start: %s\n", st_errmsg());
        return -1;
    }
    return 0;
}

static int stop(void **state)
{
    (void)state;
    int rc = tc_stop(cluster);
    cluster = NULL;
    tu_rmdir(tmp);
    return rc == ST_OK ? 0 : -1;
}

int main(void)
{
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_ycsb", "STRATA_BIN is not set (ctest sets it)");
    if (!tu_have_zookeeper())
        return tu_skip_all("test_ycsb", "ZooKeeper is not installed (java, /usr/share/java)");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(workload_a_with_time_series),
        cmocka_unit_test(workloads_e_and_d_briefly),
        cmocka_unit_test(other_distributions_and_the_time_bound),
        cmocka_unit_test(missing_records_are_not_found_errors),
        cmocka_unit_test(bad_arguments_are_refused),
    };
    return tu_run_group_tests(tests, start, stop);
}
