/*
 * test_bench_compare.c - `strata bench engine --compare FILE.json` and `--repeat N`:
 * a baseline saved with --json compares clean against the next run; a baseline 100x
 * this machine's figures flags the workload REGRESSED and exits 1; a malformed, empty or
 * missing baseline exits 2 naming the file (and the line) before anything runs; --repeat
 * reports runs, ops_min, ops_max and spread_pct; and, in process, the baseline reader
 * on lines of every shape the tool prints and on corrupt ones, and the spread rule
 * (the larger of --spread and the baseline's spread_pct).
 * The runs use $STRATA_BIN (set by CMake) when present, else bench_main() in a child; an
 * integration test because each run is a separate `strata bench` process on real files.
 * Thread-safety: single-threaded; bench runs happen in child processes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/status.h"
#include "tests/support/proc.h"
#include "tests/support/testutil.h"
#include "tools/bench_compare.h"
#include "tools/tools.h"

#define OUT_CAP (1 << 20)

static char bench_out[OUT_CAP]; /* a bench run's stdout */
static char bench_err[OUT_CAP]; /* its stderr */

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static int setup_dir(void **state)
{
    char *dir = strdup("/tmp/strata-test-bench-compare-XXXXXX");
    assert_non_null(dir);
    assert_non_null(mkdtemp(dir));
    *state = dir;
    return 0;
}

static int teardown_dir(void **state)
{
    nftw(*state, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(*state);
    return 0;
}

static void path_in(const char *dir, const char *name, char *out, size_t cap)
{
    assert_true(snprintf(out, cap, "%s/%s", dir, name) < (int)cap);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

static void read_file(const char *path, char *out, size_t cap)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(out, 1, cap - 1, f);
    out[n] = '\0';
    fclose(f);
}

/* Runs `strata bench engine <args...> --dir dir`, stdout into bench_out and stderr into
 * bench_err; returns the exit status. Without STRATA_BIN this executable runs
 * bench_main() in the child (see main). */
static int run_engine(const char *dir, const char *const *args)
{
    int fds[2], status = 0, n = 2;
    size_t len = 0;
    char err_path[512];
    const char *argv[40] = {"strata", "bench", "engine"};
    const char *bin = getenv("STRATA_BIN");
    for (const char *const *a = args; *a != NULL && n < 35; a++)
        argv[++n] = *a;
    argv[++n] = "--dir";
    argv[++n] = dir;
    path_in(dir, "stderr.log", err_path, sizeof(err_path));
    assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
    proc_spec spec = {.argv = argv,
                      .path = bin != NULL && *bin != '\0' ? bin : "/proc/self/exe",
                      .stdout_fd = fds[1],
                      .log = err_path,
                      .log_truncate = true,
                      .kill_at_exit = true};
    pid_t pid = 0;
    assert_int_equal(proc_spawn(&spec, &pid), ST_OK);
    close(fds[1]);
    for (ssize_t r = 1; r > 0 && len + 1 < OUT_CAP; len += (size_t)(r > 0 ? r : 0))
        r = read(fds[0], bench_out + len, OUT_CAP - 1 - len);
    bench_out[len] = '\0';
    close(fds[0]);
    assert_int_equal(proc_wait(pid, PROC_FOREVER, &status), ST_OK);
    read_file(err_path, bench_err, OUT_CAP);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s != '\0'; s++)
        n += *s == '\n';
    return n;
}

/* The first line of out that starts with prefix, copied into line; false if none. */
static bool find_line(const char *out, const char *prefix, char *line, size_t cap)
{
    for (const char *p = out; p != NULL && *p != '\0';) {
        const char *eol = strchr(p, '\n');
        size_t len = eol != NULL ? (size_t)(eol - p) : strlen(p);
        if (strncmp(p, prefix, strlen(prefix)) == 0 && len < cap) {
            memcpy(line, p, len);
            line[len] = '\0';
            return true;
        }
        p = eol != NULL ? eol + 1 : NULL;
    }
    return false;
}

static void result_line(const char *out, const char *workload, char *line, size_t cap)
{
    char prefix[128];
    snprintf(prefix, sizeof(prefix), "{\"workload\":\"%s\",\"engine\":\"strata\",", workload);
    if (!find_line(out, prefix, line, cap))
        fail_msg("no result line for %s in:\n%s", workload, out);
}

static void compare_line(const char *out, const char *workload, char *line, size_t cap)
{
    char prefix[128];
    snprintf(prefix, sizeof(prefix), "{\"compare\":true,\"workload\":\"%s\",\"engine\":\"strata\",",
             workload);
    if (!find_line(out, prefix, line, cap))
        fail_msg("no compare line for %s in:\n%s", workload, out);
}

static double field(const char *line, const char *name)
{
    char key[128];
    snprintf(key, sizeof(key), "\"%.100s\":", name);
    const char *p = strstr(line, key);
    if (p == NULL || strncmp(p + strlen(key), "null", 4) == 0)
        fail_msg("no number %s in %s", name, line);
    return strtod(p + strlen(key), NULL);
}

/* The text table's comparison row for workload on strata, or fails. */
static void text_row(const char *out, const char *workload, char *line, size_t cap)
{
    char prefix[64];
    snprintf(prefix, sizeof(prefix), "  %-12s strata ", workload);
    if (!find_line(out, prefix, line, cap))
        fail_msg("no comparison row for %s in:\n%s", workload, out);
}

static void test_compare_with_own_baseline_passes(void **state)
{
    char base_path[512], line[1024], row[1024];
    path_in(*state, "baseline.json", base_path, sizeof(base_path));
    const char *save[] = {"--num",  "2000",        "--engines",
                          "strata", "--workloads", "fillseq,readrandom,readseq",
                          "--json", NULL};
    int rc = run_engine(*state, save);
    if (rc != 0)
        fail_msg("baseline run exited %d:\n%s%s", rc, bench_out, bench_err);
    write_file(base_path, bench_out);
    static char saved[OUT_CAP];
    snprintf(saved, sizeof(saved), "%s", bench_out);

    /* The text comparison: fillseq and readrandom compared, readseq not run, fillrandom
     * new; a spread of 100% lets nothing regress. */
    const char *text[] = {"--num",     "2000",        "--engines",
                          "strata",    "--workloads", "fillseq,readrandom,fillrandom",
                          "--compare", base_path,     "--spread",
                          "100",       NULL};
    rc = run_engine(*state, text);
    if (rc != 0)
        fail_msg("compare run exited %d:\n%s%s", rc, bench_out, bench_err);
    assert_non_null(strstr(bench_out, "compared with baseline "));
    assert_non_null(strstr(bench_out, base_path));
    text_row(bench_out, "fillseq", row, sizeof(row));
    assert_non_null(strstr(row, "±100.0%  ok"));
    text_row(bench_out, "readrandom", row, sizeof(row));
    assert_non_null(strstr(row, "  ok"));
    text_row(bench_out, "readseq", row, sizeof(row));
    assert_non_null(strstr(row, "not run"));
    text_row(bench_out, "fillrandom", row, sizeof(row));
    assert_non_null(strstr(row, "new"));
    assert_non_null(strstr(bench_out, "compare: 0 regressed, 0 failed, 2 ok; 1 not run, 1 new"));

    /* The same as JSON: the figures are the baseline's and this run's. */
    const char *json[] = {"--num",     "2000",        "--engines",
                          "strata",    "--workloads", "fillseq,readrandom,fillrandom",
                          "--compare", base_path,     "--spread",
                          "100",       "--json",      NULL};
    rc = run_engine(*state, json);
    if (rc != 0)
        fail_msg("JSON compare run exited %d:\n%s%s", rc, bench_out, bench_err);
    result_line(saved, "fillseq", line, sizeof(line));
    double base_ops = field(line, "ops_per_sec");
    result_line(bench_out, "fillseq", line, sizeof(line));
    double now_ops = field(line, "ops_per_sec");
    compare_line(bench_out, "fillseq", line, sizeof(line));
    assert_true(fabs(field(line, "baseline_ops") - base_ops) < 0.06);
    assert_true(fabs(field(line, "ops") - now_ops) < 0.06);
    assert_true(fabs(field(line, "change_pct") - (now_ops - base_ops) / base_ops * 100) < 0.01);
    assert_true(field(line, "spread_pct") == 100.0);
    assert_non_null(strstr(line, "\"regressed\":false,\"status\":\"ok\""));
    compare_line(bench_out, "readseq", line, sizeof(line));
    assert_non_null(strstr(line, "\"ops\":null"));
    assert_non_null(strstr(line, "\"status\":\"not run\""));
    compare_line(bench_out, "fillrandom", line, sizeof(line));
    assert_non_null(strstr(line, "\"baseline_ops\":null"));
    assert_non_null(strstr(line, "\"status\":\"new\""));
}

static void test_compare_against_100x_baseline_regresses(void **state)
{
    char base_path[512], line[1024], text[2048];
    path_in(*state, "fast.json", base_path, sizeof(base_path));
    const char *measure[] = {"--num",  "2000",        "--engines",
                             "strata", "--workloads", "fillseq,readrandom",
                             "--json", NULL};
    int rc = run_engine(*state, measure);
    if (rc != 0)
        fail_msg("measuring run exited %d:\n%s%s", rc, bench_out, bench_err);
    result_line(bench_out, "fillseq", line, sizeof(line));
    double fillseq = field(line, "ops_per_sec");
    result_line(bench_out, "readrandom", line, sizeof(line));
    double readrandom = field(line, "ops_per_sec");
    assert_true(fillseq > 0 && readrandom > 0);
    /* fillseq at 100x what this machine does; readrandom at 1/100 of it. */
    snprintf(text, sizeof(text),
             "{\"workload\":\"fillseq\",\"engine\":\"strata\",\"ops_per_sec\":%.1f}\n"
             "{\"workload\":\"readrandom\",\"engine\":\"strata\",\"ops_per_sec\":%.1f}\n",
             fillseq * 100, readrandom / 100);
    write_file(base_path, text);
    const char *cmp[] = {"--num",     "2000",        "--engines",
                         "strata",    "--workloads", "fillseq,readrandom",
                         "--compare", base_path,     NULL};
    rc = run_engine(*state, cmp);
    if (rc != 1)
        fail_msg("compare run exited %d, not 1:\n%s%s", rc, bench_out, bench_err);
    text_row(bench_out, "fillseq", line, sizeof(line));
    assert_non_null(strstr(line, "REGRESSED"));
    text_row(bench_out, "readrandom", line, sizeof(line));
    assert_null(strstr(line, "REGRESSED"));
    assert_non_null(strstr(line, "  ok"));
    assert_non_null(strstr(bench_out, "compare: 1 regressed, 0 failed, 1 ok; 0 not run, 0 new"));
}

static void test_corrupt_baseline_exits_2_naming_file_and_line(void **state)
{
    char path[512], want[600];
    path_in(*state, "broken.json", path, sizeof(path));
    write_file(path, "{\"workload\":\"fillseq\",\"engine\":\"strata\",\"ops_per_sec\":5.0}\n"
                     "{\"workload\":\"readrandom\",\"engine\":\"strata\",\"ops_per_sec\":}\n");
    const char *args[] = {"--num", "2000", "--engines", "strata", "--compare", path, NULL};
    assert_int_equal(run_engine(*state, args), 2);
    snprintf(want, sizeof(want), "baseline %s:2: ", path);
    if (strstr(bench_err, want) == NULL)
        fail_msg("stderr does not name %s:2:\n%s", path, bench_err);
    assert_int_equal(count_lines(bench_err), 1); /* one line, no usage text */
    assert_string_equal(bench_out, "");          /* nothing ran */

    write_file(path, "");
    assert_int_equal(run_engine(*state, args), 2);
    snprintf(want, sizeof(want), "baseline %s: no results", path);
    assert_non_null(strstr(bench_err, want));

    path_in(*state, "missing.json", path, sizeof(path));
    assert_int_equal(run_engine(*state, args), 2);
    assert_non_null(strstr(bench_err, path));
    assert_string_equal(bench_out, "");
}

static void test_repeat_reports_runs_min_max_spread(void **state)
{
    char line[1024];
    const char *json[] = {
        "--num",    "2000", "--engines", "strata", "--workloads", "fillseq,readrandom",
        "--repeat", "2",    "--json",    NULL};
    int rc = run_engine(*state, json);
    if (rc != 0)
        fail_msg("--repeat 2 exited %d:\n%s%s", rc, bench_out, bench_err);
    for (int i = 0; i < 2; i++) {
        result_line(bench_out, i == 0 ? "fillseq" : "readrandom", line, sizeof(line));
        double ops = field(line, "ops_per_sec"), lo = field(line, "ops_min"),
               hi = field(line, "ops_max"), spread = field(line, "spread_pct");
        assert_true(field(line, "runs") == 2);
        assert_true(lo > 0 && lo <= ops && ops <= hi);
        assert_true(fabs(ops - (lo + hi) / 2) < 0.1); /* the median of two */
        assert_true(fabs(spread - (hi - lo) / ops * 100 / 2) < 0.01);
        assert_true(field(line, "ops") == 2000); /* the old fields stay */
        assert_true(fabs(field(line, "ops") / field(line, "seconds") - ops) / ops < 0.01);
    }
    const char *text[] = {"--num",   "2000",     "--engines", "strata", "--workloads",
                          "fillseq", "--repeat", "2",         NULL};
    assert_int_equal(run_engine(*state, text), 0);
    const char *table = strstr(bench_out, "\nfillseq  (");
    assert_non_null(table);
    assert_true(find_line(table + 1, "  engine ", line, sizeof(line)));
    assert_non_null(strstr(line, " ops/s   spread "));
    assert_true(find_line(table + 1, "  strata ", line, sizeof(line)));
    assert_non_null(strstr(line, "%")); /* the ±x% column */
    assert_non_null(strstr(line, "±"));
    assert_non_null(strstr(bench_out, "2 runs of each engine"));
    assert_non_null(strstr(bench_err, "run 2 of 2"));
}

static void test_usage_errors_exit_2(void **state)
{
    char *bad[][5] = {
        {"bench", "engine", "--repeat", "0"},
        {"bench", "engine", "--repeat", "101"},
        {"bench", "engine", "--repeat", "x"},
        {"bench", "engine", "--spread", "-1"},
        {"bench", "engine", "--spread", "101"},
        {"bench", "engine", "--spread", "ten"},
        {"bench", "engine", "--compare", ""},
        {"bench", "engine", "--compare", NULL},
        {"bench", "engine", "--compare", "/nonexistent/strata-baseline.json"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int argc = 0;
        while (argc < 4 && bad[i][argc] != NULL)
            argc++;
        assert_int_equal(bench_main(argc, bad[i]), 2);
    }
}

/* ---- in process: the baseline reader and the spread rule ---- */

static const char good_line[] =
    "{\"workload\":\"fillseq\",\"engine\":\"strata\",\"ops_per_sec\":1}\n";

static void test_corrupt_baseline_lines_are_rejected(void **state)
{
    static const char *const bad[] = {
        "fillseq strata 5\n",
        "{\"workload\":\"w\",\"engine\":\"strata\"}\n",
        "{\"workload\":\"w\",\"engine\":\"strata\",\"ops_per_sec\":\"5\"}\n",
        "{\"workload\":7,\"engine\":\"strata\",\"ops_per_sec\":5}\n",
        "{\"workload\":\"w\",\"engine\":\"strata\",\"ops_per_sec\":5} trailing\n",
        "{\"workload\":\"w\",\"engine\":\"strata\",\"ops_per_sec\":5,}\n",
        "{\"workload\":\"w\",\"engine\":\"strata\",\"ops_per_sec\":5\n",
        "{\"workload\":\"w\",\"engine\":\"strata\",\"ops_per_sec\":05}\n",
        "{\"workload\":\"w\",\"engine\":\"strata\",\"ops_per_sec\":1e999}\n",
        "{\"workload\":\"w\",\"engine\":\"strata\",\"ops_per_sec\":-1}\n",
        "{\"workload\":\"w\",\"engine\":\"strata\",\"ops_per_sec\":5,\"spread_pct\":-2}\n",
        "{\"workload\":\"w\\q\",\"engine\":\"strata\",\"ops_per_sec\":5}\n",
        "{\"workload\":\"w\\ud800\",\"engine\":\"strata\",\"ops_per_sec\":5}\n",
        "{\"workload\":\"w\",\"workload\":\"v\",\"engine\":\"strata\",\"ops_per_sec\":5}\n",
        "{\"workload\":\"w\",\"engine\":\"strata\",\"ops_per_sec\":5,\"x\":[1]}\n",
        "{\"workload\":\"\",\"engine\":\"strata\",\"ops_per_sec\":5}\n",
        "{\"workload\":\"fillseq\",\"engine\":\"strata\",\"ops_per_sec\":2}\n", /* twice */
        "{\"workload\":\"w\",\"engine\":\"strata\",\"ops_per_sec\":5,\"b\":tru}\n",
    };
    char path[512], text[1024], want[600];
    path_in(*state, "bad.json", path, sizeof(path));
    snprintf(want, sizeof(want), "baseline %s:3: ", path);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        bench_baseline *b = (bench_baseline *)path;                /* must be reset to NULL */
        snprintf(text, sizeof(text), "%s\n%s", good_line, bad[i]); /* the bad one is line 3 */
        write_file(path, text);
        int rc = bench_compare_load(path, &b);
        if (rc != ST_INVALID_ARGUMENT || b != NULL || strstr(st_errmsg(), want) != st_errmsg())
            fail_msg("line %s: rc %d, message '%s'", bad[i], rc, st_errmsg());
    }
}

/* Runs bench_compare_report with stdout captured into bench_out; returns its result. */
static size_t report_captured(const char *dir, const bench_baseline *b,
                              const bench_compare_row *rows, size_t n, double spread, bool json)
{
    char path[512];
    path_in(dir, "report.txt", path, sizeof(path));
    fflush(stdout);
    int saved = dup(1), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 1);
    close(fd);
    size_t bad = bench_compare_report(b, rows, n, spread, json);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    read_file(path, bench_out, OUT_CAP);
    return bad;
}

static void test_baseline_shapes_and_spread_rule(void **state)
{
    char path[512], line[1024];
    path_in(*state, "shapes.json", path, sizeof(path));
    /* A --repeat result, a failed workload, a comparison line, a blank line and a
     * name with escapes, as the tool writes them. */
    write_file(
        path,
        "{\"workload\":\"fillseq\",\"engine\":\"strata\",\"ops\":2000,\"seconds\":0.5,"
        "\"ops_per_sec\":1000.0,\"found\":0,\"runs\":3,\"ops_min\":900.0,"
        "\"ops_max\":1100.0,\"spread_pct\":30.00,\"ratio_vs_rocksdb\":1.2}\n"
        "{\"workload\":\"readrandom\",\"engine\":\"strata\",\"error\":\"corrupt: \\\"x\\\"\"}\n"
        "{\"compare\":true,\"workload\":\"readseq\",\"engine\":\"strata\",\"baseline_ops\":1,"
        "\"ops\":null,\"change_pct\":null,\"spread_pct\":null,\"regressed\":false,"
        "\"status\":\"not run\"}\n"
        "   \n"
        "{ \"workload\" : \"fill\\u0073ync\" , \"engine\" : \"strata\", \"ops_per_sec\" : "
        "2.5e3, \"note\": \"\\u00e9\\ud83d\\ude00\\/\\t\" }\n");
    bench_baseline *b = NULL;
    if (bench_compare_load(path, &b) != ST_OK)
        fail_msg("load: %s", st_errmsg());
    bench_compare_row rows[] = {
        {"fillseq", "strata", true, 750.0},   /* -25%: within the baseline's 30% */
        {"fillsync", "strata", true, 2000.0}, /* -20%: past --spread 10 */
        {"readrandom", "strata", true, 10.0}, /* its baseline line failed: new */
    };
    assert_int_equal(report_captured(*state, b, rows, 3, 10.0, false), 1);
    text_row(bench_out, "fillseq", line, sizeof(line));
    assert_non_null(strstr(line, "-25.0%"));
    assert_non_null(strstr(line, "±30.0%  ok"));
    text_row(bench_out, "fillsync", line, sizeof(line));
    assert_non_null(strstr(line, "2500.0"));
    assert_non_null(strstr(line, "±10.0%  REGRESSED"));
    text_row(bench_out, "readrandom", line, sizeof(line));
    assert_non_null(strstr(line, "new"));
    assert_null(strstr(bench_out, "readseq")); /* a comparison line is no baseline */

    rows[0].ops_per_sec = 650.0; /* -35%: past the baseline's 30% */
    rows[1].ok = false;          /* failed this run */
    assert_int_equal(report_captured(*state, b, rows, 2, 10.0, true), 2);
    compare_line(bench_out, "fillseq", line, sizeof(line));
    assert_true(field(line, "spread_pct") == 30.0);
    assert_true(field(line, "change_pct") == -35.0);
    assert_non_null(strstr(line, "\"regressed\":true,\"status\":\"REGRESSED\""));
    compare_line(bench_out, "fillsync", line, sizeof(line));
    assert_non_null(strstr(line, "\"ops\":null"));
    assert_non_null(strstr(line, "\"regressed\":false,\"status\":\"failed\""));
    bench_compare_free(b);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "bench") == 0) /* run_engine's child without STRATA_BIN */
        return bench_main(argc - 1, argv + 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_usage_errors_exit_2),
        cmocka_unit_test_setup_teardown(test_corrupt_baseline_lines_are_rejected, setup_dir,
                                        teardown_dir),
        cmocka_unit_test_setup_teardown(test_baseline_shapes_and_spread_rule, setup_dir,
                                        teardown_dir),
        cmocka_unit_test_setup_teardown(test_corrupt_baseline_exits_2_naming_file_and_line,
                                        setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_compare_with_own_baseline_passes, setup_dir,
                                        teardown_dir),
        cmocka_unit_test_setup_teardown(test_compare_against_100x_baseline_regresses, setup_dir,
                                        teardown_dir),
        cmocka_unit_test_setup_teardown(test_repeat_reports_runs_min_max_spread, setup_dir,
                                        teardown_dir),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
