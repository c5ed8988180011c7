/*
 * bench_failover.h - internals of `strata bench failover` (tools/bench_failover.c, the
 * drill: faults, recovery polling, report; docs/performance.md "Failover drill").
 *
 * This header is the load the drill runs beside its faults (bench_failover_load.c):
 * writer and reader threads through the public C client, each keeping its own record of
 * when its operations succeeded, and the log of every acknowledged row, read back at the
 * end.
 *
 *   writer w  puts rows "<hash8>-<w:03>-<seq:010>" (hash8: 8 hex digits of a hash of w
 *             and seq, so rows spread over a table split at 8-hex-digit keys), one per
 *             call or --batch B per strata_table_batch; a row is acknowledged when its
 *             put (or its action of the batch) succeeded, and only then logged.
 *   reader r  gets a random acknowledged row; a row not found, or not holding the value
 *             its writer wrote, is a miss.
 *
 * Stalls: each thread notes the monotonic time each successful call returned; a gap is
 * the time between two such returns (the first measured from the thread's start, the
 * last to its stop). Gaps under BFO_GAP_KEEP_NS are not kept, so a stall below it reads
 * as 0. A failed call (an error the library gave back after its retries) does not end a
 * gap.
 *
 * Thread-safety: bfo_load_start/stop/free and the readers of results run on one thread;
 * results are read only after bfo_load_stop. The threads share the acknowledged-row log
 * lock-free (a writer appends to its own fixed-chunk log and publishes the count with
 * release; readers load it with acquire) and take err_mu only to keep error messages.
 */
#ifndef STRATA_TOOLS_BENCH_FAILOVER_H
#define STRATA_TOOLS_BENCH_FAILOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strata/strata.h"

#define BFO_GAP_KEEP_NS 1000000ull /* 1 ms */
#define BFO_MAX_THREADS 64
#define BFO_ROW_MAX 32
#define BFO_KEEP_ERRORS 8 /* messages kept of each kind */

typedef struct bfo_load bfo_load;

typedef struct bfo_load_opts {
    strata_table_t *table; /* shared by every thread; the caller's */
    const char *family, *qualifier;
    int writers, readers;
    int batch;      /* rows per writer call: 1 strata_table_put, > 1 strata_table_batch */
    int value_size; /* >= the row's length; the value starts with the row */
    double rate;    /* calls per second per thread; 0: as fast as they go */
} bfo_load_opts;

/* What the threads did, summed (bfo_load_totals). */
typedef struct bfo_totals {
    uint64_t write_calls, reads;
    uint64_t acked;     /* rows acknowledged */
    uint64_t misses;    /* reads of an acknowledged row that did not find it intact */
    uint64_t retryable; /* calls (or batch actions) failed with STRATA_ERR_RETRYABLE */
    uint64_t fatal;     /* failed with any other code */
} bfo_totals;

/* What the read-back found (bfo_load_verify). */
typedef struct bfo_verify {
    uint64_t acked;        /* rows acknowledged */
    uint64_t scanned;      /* of them, seen intact by the full scan */
    uint64_t got;          /* of the others, found intact by a get */
    uint64_t missing;      /* neither */
    uint64_t foreign_rows; /* scanned rows that are no writer's (bad row or value) */
    bool scan_failed;      /* the scan ended in an error (gets covered the rest) */
    strata_code scan_code; /* its code */
    char first_missing[BFO_ROW_MAX];
    char error[300]; /* the scan's or a get's error, when there was one */
} bfo_verify;

/* Starts the threads. ST_OK and *out, or ST_NOMEM / ST_INTERNAL with nothing running. */
int bfo_load_start(const bfo_load_opts *o, bfo_load **out);
/* Tells every thread to stop, waits for them (each finishes the call it is in). */
void bfo_load_stop(bfo_load *l);
void bfo_load_free(bfo_load *l);

/* While running: whether every thread had a successful call that returned at t_ns or
 * later (the drill waits for it before the next fault). */
bool bfo_load_resumed_since(const bfo_load *l, uint64_t t_ns);
size_t bfo_load_threads(const bfo_load *l); /* writers first, then readers */
bool bfo_load_is_writer(const bfo_load *l, size_t i);
/* After stop: thread i's longest kept gap that ends in (from_ns, to_ns] (monotonic), in
 * ns; 0 if none. A gap that spans the next fault's instant is that fault's. */
uint64_t bfo_load_stall_ns(const bfo_load *l, size_t i, uint64_t from_ns, uint64_t to_ns);
/* After stop: every thread's counters summed. */
void bfo_load_totals(const bfo_load *l, bfo_totals *t);
/* After stop: the kept messages of non-retryable errors and misses (at most
 * BFO_KEEP_ERRORS each), i-th or NULL. */
const char *bfo_load_error(const bfo_load *l, size_t i);
const char *bfo_load_miss(const bfo_load *l, size_t i);
/* After stop: reads every acknowledged row back through table t: one full scan, then a
 * get for each row the scan did not return. ST_OK (r filled, whatever it found) or
 * ST_NOMEM. */
int bfo_load_verify(const bfo_load *l, strata_table_t *t, bfo_verify *r);

#endif
