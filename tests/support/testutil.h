/*
 * testutil.h - helpers shared by Strata's tests: private temp directories, a one-family
 * or two-family region on a fresh engine, honest skips and exit codes, and the seeds of
 * randomized tests.
 *
 * Skips: a test that cannot run something it was meant to run (a tool not installed,
 * STRATA_BIN not set) calls tu_skip() in the case, or returns tu_skip_all() from main
 * when nothing can run; main returns tu_run_group_tests(). The executable then exits
 * TU_EXIT_SKIP (77), which CTest shows as "Skipped" (SKIP_RETURN_CODE in
 * CMakeLists.txt), when a case skipped and none failed; 1 when a case failed; 0
 * otherwise. Each skip prints one line "SKIP: <what>: <why>".
 *
 * Thread-safety: call tu_skip and tu_seed from the test's main thread (cmocka runs the
 * cases there).
 */
#ifndef STRATA_TESTS_TESTUTIL_H
#define STRATA_TESTS_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "regionserver/storage/engine.h"
#include "regionserver/storage/region.h"

/* mkdtemp under $TMPDIR or /tmp; the caller frees and removes it with tu_rmdir. */
char *tu_tempdir(const char *tag);
void tu_rmdir(char *dir);

/* A table "default:t" with the given families (comma separated, e.g. "a,b"), every
 * family at the defaults, durability SYNC_WAL. */
void tu_schema(table_schema *t, const char *families);
/* region_info for the whole key space, encoded name "r1". */
region_info tu_whole_region(void);

/* A cell of the given column (C strings), timestamp and type; row unset. */
cell_t tu_cell(const char *fam, const char *qual, const char *value, int64_t ts, uint8_t type);
/* Puts one cell (family, qualifier, value as C strings); asserts on failure. */
int tu_put(region *r, const char *row, const char *fam, const char *qual, const char *value,
           int64_t ts);
/* Gets the newest value of row/fam:qual into buf (NUL-terminated); returns 1 if found,
 * 0 if absent, negative on error. */
int tu_get(region *r, const char *row, const char *fam, const char *qual, char *buf,
           size_t cap);

/* The exit status of a test executable that skipped something it was meant to run. */
#define TU_EXIT_SKIP 77

/* Prints "SKIP: <what>: <why>" on stdout, records the skip and ends the running cmocka
 * case as skipped (cmocka's skip() jumps out of the case). what names the case (pass
 * __func__); why is a printf format. */
void tu_skip(const char *what, const char *why_fmt, ...) __attribute__((format(printf, 2, 3)));
/* For main when nothing can run: prints "SKIP: <what>: <why>" and returns TU_EXIT_SKIP. */
int tu_skip_all(const char *what, const char *why_fmt, ...) __attribute__((format(printf, 2, 3)));
/* main's exit status from the number of failed cases cmocka_run_group_tests returned:
 * 1 if any failed (printing "rerun with STRATA_TEST_SEED=N" if tu_seed gave a seed),
 * else TU_EXIT_SKIP if tu_skip was called, else 0. */
int tu_exit_status(int failed);
/* cmocka_run_group_tests, with tu_exit_status of its result. */
#define tu_run_group_tests(tests, setup, teardown)                                                 \
    tu_exit_status(cmocka_run_group_tests(tests, setup, teardown))

/* The seed of a randomized test: STRATA_TEST_SEED (decimal) if set, else one from the
 * clock. Prints "<what>: seed N (rerun with STRATA_TEST_SEED=N)" and keeps N for
 * tu_exit_status. A STRATA_TEST_SEED that is not a number fails the running case. */
unsigned tu_seed(const char *what);

/* Whether ZooKeeper can run here: a zookeeper jar in /usr/share/java and a `java`. */
bool tu_have_zookeeper(void);
/* Runs cmd through the shell: its stdout into *out (malloc'ed, NUL-terminated; failing
 * the running case if it cannot be read), returns its exit status, or -1 if it did not
 * exit normally. */
int tu_capture(const char *cmd, char **out);

/* Sets the shell command (printf-formatted, at most 16 KiB) that removes what the test
 * is about to make, and has it run once on any exit: at exit(), on SIGTERM and SIGINT
 * (then the signal is raised again), or by tu_cleanup_now(). A later call replaces the
 * command (which then runs once more). 0, or -1 if it is too long (then no command is
 * left to run). */
int tu_cleanup_on_exit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Runs the command now if it has not run yet (only fork, execve and waitpid). */
void tu_cleanup_now(void);

/* Whether an executable named name is on PATH. */
bool tu_on_path(const char *name);
/* The repository's directory from a test's __FILE__ (an absolute path ending in
 * "/tests/<dir>/<name>.c") into out: 0, or 1 (a message printed) when it is not one. */
int tu_repo_dir(const char *file, char *out, size_t cap);
/* Runs argv in its own process group, stdin /dev/null, stdout and stderr into *out
 * (malloc'ed, NUL-terminated, the last max bytes; out may be NULL). After limit_s seconds
 * it gets SIGTERM and 30 s later its whole group SIGKILL. Returns the exit status, 128 +
 * signal when killed, -1 when it could not run. */
int tu_run(const char *const argv[], int limit_s, size_t max, char **out);

#endif
