/*
 * test_bench.c - `strata bench engine`: a small JSON run in which every engine built in
 * must report every workload with ops_per_sec > 0 and reads that find exactly the keys
 * written; usage errors; the human-readable tables; and a fake engine that loses writes
 * or fails reads, which the harness must report rather than time.
 * The runs use $STRATA_BIN (set by CMake) when present, else bench_main() in a child; an
 * integration test because each run is a separate `strata bench` process on real files.
 * Thread-safety: single-threaded; bench runs happen in child processes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/status.h"
#include "tests/support/proc.h"
#include "tests/support/testutil.h"
#include "tools/bench.h"
#include "tools/tools.h"

#define OUT_CAP (1 << 20)

static char bench_out[OUT_CAP]; /* a bench run's stdout */

static const char *const default_workloads[] = {
    "fillseq", "fillrandom", "overwrite", "readrandom",
    "readseq", "seekrandom", "fillsync",  "fillsync8",
};

static char *make_tempdir(void)
{
    char *dir = strdup("/tmp/strata-test-bench-XXXXXX");
    assert_non_null(dir);
    assert_non_null(mkdtemp(dir));
    return dir;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void remove_tempdir(char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(dir);
}

static int setup_dir(void **state)
{
    *state = make_tempdir();
    return 0;
}

static int teardown_dir(void **state)
{
    remove_tempdir(*state);
    return 0;
}

static size_t dir_entries(const char *dir)
{
    size_t n = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d))
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* Runs `strata bench <args...>` with stdout captured into out; returns the exit status.
 * Without STRATA_BIN this executable runs bench_main() in the child (see main). */
static int run_bench(char **args, int nargs, char *out, size_t cap)
{
    int fds[2], status = 0;
    size_t len = 0;
    const char *argv[32] = {"strata", "bench"};
    const char *bin = getenv("STRATA_BIN");
    for (int i = 0; i < nargs && i < 29; i++)
        argv[2 + i] = args[i];
    assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
    proc_spec spec = {.argv = argv,
                      .path = bin != NULL && *bin != '\0' ? bin : "/proc/self/exe",
                      .stdout_fd = fds[1],
                      .kill_at_exit = true};
    pid_t pid = 0;
    assert_int_equal(proc_spawn(&spec, &pid), ST_OK);
    close(fds[1]);
    for (ssize_t n = 1; n > 0 && len + 1 < cap; len += (size_t)(n > 0 ? n : 0))
        n = read(fds[0], out + len, cap - 1 - len);
    out[len] = '\0';
    close(fds[0]);
    assert_int_equal(proc_wait(pid, PROC_FOREVER, &status), ST_OK);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* The JSON line for (workload, engine), copied into line; false if absent. */
static bool find_line(const char *out, const char *workload, const char *engine, char *line,
                      size_t cap)
{
    char prefix[128];
    snprintf(prefix, sizeof(prefix), "{\"workload\":\"%s\",\"engine\":\"%s\"", workload, engine);
    for (const char *p = out; p != NULL && *p != '\0';) {
        const char *eol = strchr(p, '\n');
        size_t len = eol != NULL ? (size_t)(eol - p) : strlen(p);
        if (strncmp(p, prefix, strlen(prefix)) == 0 && p[strlen(prefix)] == ',' && len < cap) {
            memcpy(line, p, len);
            line[len] = '\0';
            return true;
        }
        p = eol != NULL ? eol + 1 : NULL;
    }
    return false;
}

static double field(const char *line, const char *name)
{
    char key[128];
    if (snprintf(key, sizeof(key), "\"%.100s\":", name) >= (int)sizeof(key))
        fail_msg("field name %s too long", name);
    const char *p = strstr(line, key);
    if (p == NULL)
        fail_msg("field %s missing in %s", name, line);
    return strtod(p + strlen(key), NULL);
}

static void check_engine_line(const char *out, const char *w, const char *e)
{
    char line[1024];
    if (!find_line(out, w, e, line, sizeof(line)))
        fail_msg("no JSON line for workload %s on engine %s", w, e);
    if (strstr(line, "\"error\"") != NULL)
        fail_msg("%s on %s failed: %s", w, e, line);
    assert_true(field(line, "ops") > 0);
    assert_true(field(line, "seconds") > 0);
    assert_true(field(line, "ops_per_sec") > 0);
    assert_true(field(line, "peak_rss_kb") > 0);
    assert_true(field(line, "errors") == 0);
    if (strcmp(w, "readrandom") == 0 || strcmp(w, "readseq") == 0 || strcmp(w, "seekrandom") == 0) {
        assert_true(field(line, "expected") > 0);
        assert_true(field(line, "found") == field(line, "expected"));
    }
    if (strcmp(w, "readrandom") == 0)
        assert_true(field(line, "ops") == 2000);
}

static void test_json_every_engine_every_workload(void **state)
{
    char *dir = *state;
    char *args[] = {"engine", "--num", "2000", "--json", "--dir", dir};
    int rc = run_bench(args, 6, bench_out, OUT_CAP);
    if (rc != 0)
        fail_msg("bench exited %d; output:\n%s", rc, bench_out);
    assert_true(bench_engine_count() >= 1);
    assert_string_equal(bench_engine_name(0), "strata");
    for (size_t e = 0; e < bench_engine_count(); e++)
        for (size_t w = 0; w < sizeof(default_workloads) / sizeof(default_workloads[0]); w++)
            check_engine_line(bench_out, default_workloads[w], bench_engine_name(e));
    char line[1024];
    assert_true(find_line(bench_out, "fillsync8", "strata", line, sizeof(line)));
    assert_non_null(strstr(line, "\"speedup_vs_fillsync\":"));
    for (size_t e = 1; e < bench_engine_count(); e++) {
        char key[64];
        assert_true(find_line(bench_out, "readrandom", "strata", line, sizeof(line)));
        snprintf(key, sizeof(key), "ratio_vs_%s", bench_engine_name(e));
        assert_true(field(line, key) > 0);
    }
    assert_int_equal(dir_entries(dir), 0); /* every DB directory removed */
}

static void test_table_output_names_engines_and_found(void **state)
{
    char *dir = *state;
    char *args[] = {"engine", "--num", "500", "--workloads", "fillseq,readrandom", "--dir", dir};
    assert_int_equal(run_bench(args, 7, bench_out, OUT_CAP), 0);
    assert_non_null(strstr(bench_out, "\nfillseq  ("));
    assert_non_null(strstr(bench_out, "\nreadrandom  ("));
    assert_non_null(strstr(bench_out, "found 500/500"));
    for (size_t e = 0; e < bench_engine_count(); e++)
        assert_non_null(strstr(bench_out, bench_engine_name(e)));
    assert_int_equal(dir_entries(dir), 0);
}

static void test_usage_errors_exit_2(void **state)
{
    char *bad[][4] = {
        {"bench", NULL},
        {"bench", "cluster", NULL},
        {"bench", "engine", "--num", "0"},
        {"bench", "engine", "--workloads", "fillseq,bogus"},
        {"bench", "engine", "--threads", "65"},
        {"bench", "engine", "--engines", "nosuchdb"},
        {"bench", "engine", "--value-size", "x"},
        {"bench", "engine", "--num", NULL},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int argc = 0;
        while (argc < 4 && bad[i][argc] != NULL)
            argc++;
        assert_int_equal(bench_main(argc, bad[i]), 2);
    }
}

/* A fake engine over key numbers 0..FAKE_KEYS-1 that, when fake_drop_writes is set,
 * silently drops every 7th key written and, when fake_fail_gets is set, fails every get. */
#define FAKE_KEYS 4000
static bool fake_present[FAKE_KEYS];
static bool fake_drop_writes;
static bool fake_fail_gets;

static uint64_t fake_keyno(const uint8_t *key)
{
    uint64_t k = 0;
    for (int i = 0; i < BENCH_KEY_LEN; i++)
        k = k * 10 + (uint64_t)(key[i] - '0');
    return k;
}

static int fake_open(const char *dir, const bench_db_config *cfg, void **db)
{
    memset(fake_present, 0, sizeof(fake_present));
    *db = fake_present;
    return ST_OK;
}

static void fake_close(void *db) {}

static int fake_ctx_new(void *db, void **ctx)
{
    *ctx = NULL;
    return ST_OK;
}

static void fake_ctx_free(void *ctx) {}

static int fake_put(void *db, void *ctx, const uint8_t *key, size_t key_len, const uint8_t *value,
                    size_t value_len, bool sync)
{
    uint64_t k = fake_keyno(key);
    fake_present[k] = fake_present[k] || !fake_drop_writes || k % 7 != 3;
    return ST_OK;
}

static int fake_get(void *db, void *ctx, const uint8_t *key, size_t key_len, bool *found,
                    size_t *value_len)
{
    *found = fake_present[fake_keyno(key)];
    *value_len = 100;
    return fake_fail_gets ? st_error(ST_IO, "fake get fails") : ST_OK;
}

static int fake_scan(void *db, void *ctx, const uint8_t *start, size_t start_len,
                     uint64_t max_entries, bench_scan_fn fn, void *arg)
{
    uint8_t key[BENCH_KEY_LEN];
    uint64_t n = 0;
    for (uint64_t k = start != NULL ? fake_keyno(start) : 0; k < FAKE_KEYS && n < max_entries;
         k++) {
        if (!fake_present[k])
            continue;
        for (uint64_t i = BENCH_KEY_LEN, v = k; i-- > 0; v /= 10)
            key[i] = (uint8_t)('0' + v % 10);
        n++;
        if (!fn(arg, key, sizeof(key), 100))
            break;
    }
    return ST_OK;
}

static const bench_db_ops fake_ops = {
    .name = "fake",
    .open = fake_open,
    .close = fake_close,
    .ctx_new = fake_ctx_new,
    .ctx_free = fake_ctx_free,
    .put = fake_put,
    .get = fake_get,
    .scan = fake_scan,
};

/* Runs fillrandom, readrandom, readseq, seekrandom on the fake engine; returns how many
 * results came back into res. */
static size_t run_fake(const char *dir, bench_result *res, size_t cap, int *rc)
{
    int fds[2];
    size_t n = 0;
    bench_plan p;
    memset(&p, 0, sizeof(p));
    p.num = FAKE_KEYS;
    p.value_size = 100;
    p.run_dir = dir;
    const char *names[] = {"fillrandom", "readrandom", "readseq", "seekrandom"};
    const bench_kind kinds[] = {BENCH_FILLRANDOM, BENCH_READRANDOM, BENCH_READSEQ,
                                BENCH_SEEKRANDOM};
    for (size_t i = 0; i < 4; i++) {
        snprintf(p.workloads[i].name, sizeof(p.workloads[i].name), "%s", names[i]);
        p.workloads[i].kind = kinds[i];
        p.workloads[i].threads = 1;
    }
    p.nworkloads = 4;
    uint8_t *values = NULL;
    assert_int_equal(bench_value_pool(p.value_size, &values, &p.values_len), ST_OK);
    p.values = values;
    assert_int_equal(pipe(fds), 0);
    *rc = bench_run_engine(&p, &fake_ops, fds[1]);
    close(fds[1]);
    while (n < cap && read(fds[0], &res[n], sizeof(res[n])) == (ssize_t)sizeof(res[n]))
        n++;
    close(fds[0]);
    free(values);
    assert_int_equal(dir_entries(dir), 0);
    return n;
}

static void test_corrupt_engine_losing_writes_is_reported(void **state)
{
    bench_result res[8];
    int rc = ST_OK;
    fake_drop_writes = true;
    size_t n = run_fake(*state, res, 8, &rc);
    fake_drop_writes = false;
    assert_int_equal(rc, ST_CORRUPTION);
    assert_int_equal(n, 4);
    assert_int_equal(res[0].status, ST_OK);
    assert_int_equal(res[0].ops, FAKE_KEYS);
    for (size_t i = 1; i < 4; i++) {
        assert_int_equal(res[i].status, ST_CORRUPTION);
        assert_true(res[i].errors > 0);
        assert_true(res[i].found < res[i].expected);
        assert_non_null(strstr(res[i].error, "disagree"));
    }
    assert_string_equal(res[1].workload, "readrandom");
}

static void test_fault_engine_failing_gets_is_reported(void **state)
{
    bench_result res[8];
    int rc = ST_OK;
    fake_fail_gets = true;
    size_t n = run_fake(*state, res, 8, &rc);
    fake_fail_gets = false;
    assert_int_equal(rc, ST_IO);
    assert_int_equal(n, 4);
    assert_int_equal(res[1].status, ST_IO);
    assert_non_null(strstr(res[1].error, "fake get fails"));
    /* The later workloads still run and check out. */
    assert_int_equal(res[2].status, ST_OK);
    assert_int_equal(res[2].found, res[2].expected);
    assert_int_equal(res[3].status, ST_OK);
    assert_true(res[3].found > 0);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "bench") == 0) /* run_bench's child without STRATA_BIN */
        return bench_main(argc - 1, argv + 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_usage_errors_exit_2),
        cmocka_unit_test_setup_teardown(test_corrupt_engine_losing_writes_is_reported, setup_dir,
                                        teardown_dir),
        cmocka_unit_test_setup_teardown(test_fault_engine_failing_gets_is_reported, setup_dir,
                                        teardown_dir),
        cmocka_unit_test_setup_teardown(test_table_output_names_engines_and_found, setup_dir,
                                        teardown_dir),
        cmocka_unit_test_setup_teardown(test_json_every_engine_every_workload, setup_dir,
                                        teardown_dir),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
