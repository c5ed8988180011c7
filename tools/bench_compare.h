/*
 * bench_compare.h - `strata bench engine --compare FILE.json`: a baseline saved from an
 * earlier `--json` run, and this run's figures held up against it.
 *
 *   bench_baseline *b = NULL;
 *   if (bench_compare_load("baseline.json", &b) != ST_OK) ... st_errmsg() names file:line
 *   size_t bad = bench_compare_report(b, rows, nrows, 10.0, json);
 *   bench_compare_free(b);
 *
 * A baseline is the tool's own JSON output: one object per line per (workload, engine)
 * with at least "workload", "engine" and "ops_per_sec", and "spread_pct" when it was
 * made with --repeat. Lines carrying "error" (a workload that failed) or "compare":true
 * (the comparison lines of a --compare --json run) are skipped, as are blank lines.
 * A pair fell by more than the spread when its ops/s is below the baseline's by more
 * than max(--spread, the baseline line's spread_pct) percent: it is REGRESSED.
 * Thread-safety: none; a baseline is read and reported from one thread.
 */
#ifndef STRATA_TOOLS_BENCH_COMPARE_H
#define STRATA_TOOLS_BENCH_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct bench_baseline bench_baseline;

/* One (workload, engine) of this run. */
typedef struct bench_compare_row {
    const char *workload;
    const char *engine;
    bool ok;            /* false: the workload failed in this run */
    double ops_per_sec; /* this run's figure (the median with --repeat) */
} bench_compare_row;

/* Reads the baseline at path. On success sets *out (free with bench_compare_free) and
 * returns ST_OK. On failure sets *out to NULL and returns ST_IO (unreadable) or
 * ST_INVALID_ARGUMENT (malformed, duplicated or empty), with a one-line message naming
 * the file, and for a malformed line its number ("FILE:LINE: what"), in st_errmsg(). */
int bench_compare_load(const char *path, bench_baseline **out);

/* Frees b; NULL is a no-op. */
void bench_compare_free(bench_baseline *b);

/* Prints on stdout each row against the baseline (baseline ops/s, this run's, the change
 * in percent, the spread used, and "ok", "REGRESSED", "failed" or "new"), then each
 * baseline pair that this run did not have as "not run": a table, or with json one
 * object per line with "compare":true. spread_pct is --spread. Returns how many rows
 * present in both regressed or failed (0: nothing to flag). */
size_t bench_compare_report(const bench_baseline *b, const bench_compare_row *rows, size_t n,
                            double spread_pct, bool json);

#endif
