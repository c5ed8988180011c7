/*
 * bench_splits.h - what `strata bench` sees of one table's region splits in a cluster
 * run (tools/bench_cluster.c): a watcher thread that asks the active master every
 * interval for its procedures (ListProcedures: running ones and the last that ended) and
 * the table's regions (GetTableRegions), and keeps every split procedure of the table it
 * has seen, with its window (submitted to last update, wall-clock ms) and the key range
 * of its parent as last listed before the split replaced it.
 *
 * The master keeps only the last 64 ended procedures, so the interval must be short
 * against the rate of splits (100 ms: hundreds per second). A parent the watcher never
 * saw (split within one interval of appearing) keeps range_known false.
 *
 * Thread-safety: one watcher thread per bench_splits; bench_splits_poll and
 * bench_splits_list may be called from any thread (a mutex guards what was seen).
 */
#ifndef STRATA_TOOLS_BENCH_SPLITS_H
#define STRATA_TOOLS_BENCH_SPLITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BENCH_SPLIT_KEY_MAX 64

typedef struct bench_splits bench_splits;

/* One split procedure of the table. */
typedef struct bench_split {
    uint64_t id;
    int64_t submitted_ms, updated_ms; /* wall clock; updated_ms is the end once ended */
    bool ended, succeeded;
    bool range_known; /* the parent's keys below are known */
    uint8_t start[BENCH_SPLIT_KEY_MAX], end[BENCH_SPLIT_KEY_MAX];
    size_t start_len, end_len; /* 0: unbounded */
} bench_split;

/* Starts watching table on the cluster at quorum (parent NULL: "/strata"), polling every
 * interval_ms. ST_OK and *out, or the failure (ST_NOMEM, ST_INTERNAL, a bad quorum);
 * *out NULL on failure. Failed polls are skipped silently (the next one tries again). */
int bench_splits_start(const char *quorum, const char *parent, const char *table, int interval_ms,
                       bench_splits **out);
/* Stops the thread and frees everything. NULL is a no-op. */
void bench_splits_free(bench_splits *w);
/* Polls once now, in the calling thread (after a workload, so its last splits count). */
void bench_splits_poll(bench_splits *w);
/* The table's regions at the last successful poll (0 before one). */
size_t bench_splits_regions(bench_splits *w);
/* A copy of every split seen so far, oldest first. ST_OK and *out (free(); NULL when *n
 * is 0), or ST_NOMEM. */
int bench_splits_list(bench_splits *w, bench_split **out, size_t *n);
/* Whether an operation on key that ran from from_ms to to_ms (wall clock) overlapped s
 * while s had the key's region closed or splitting: their windows intersect and the key
 * is in s's parent (any key when the parent's range is unknown). */
bool bench_split_covers(const bench_split *s, const uint8_t *key, size_t key_len, int64_t from_ms,
                        int64_t to_ms);

#endif
