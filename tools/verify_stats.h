/*
 * verify_stats.h - what one thread of a verifier did, kept so that a report (the
 * verifier's own, or a chaos run's) can say when that thread stalled and why: calls that
 * succeeded, errors by strata_code, retries, the thread's start and stop, and every gap of
 * at least VSTATS_GAP_KEEP_NS between two consecutive successful calls.
 *
 *   vstats_init -> vstats_start --(vstats_ok | vstats_error | vstats_retry)*--> vstats_stop
 *                                                             -> readers ... -> vstats_free
 *
 * A "successful call" is what the verifier counts as progress (a batch of linked-list
 * nodes every action of which was acknowledged, one put of an ACID writer, one get or scan
 * of a reader). Gaps are appended in time order; the edges of the run (start to first
 * success, last success to stop) are not in the list but are counted by
 * vstats_longest_gap and vstats_stall_after. A stall under VSTATS_GAP_KEEP_NS is not kept
 * and reads as 0.
 *
 * Thread-safety: only the owning thread calls vstats_start/ok/error/retry/stop. The other
 * readers run after vstats_stop, except vstats_resumed_since and vstats_ok_count, which
 * read atomics and may run at any time from any thread.
 */
#ifndef STRATA_TOOLS_VERIFY_STATS_H
#define STRATA_TOOLS_VERIFY_STATS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strata/strata.h"

#define VSTATS_GAP_KEEP_NS 1000000ull /* 1 ms */
#define VSTATS_CODES (STRATA_ERR_NO_MEMORY + 1)
#define VSTATS_NAME_MAX 32

typedef struct vstats_gap {
    uint64_t from_ns, to_ns; /* monotonic: the two successful calls around the gap */
} vstats_gap;

typedef struct vstats_thread {
    char name[VSTATS_NAME_MAX]; /* "loader 0", "writer 1", "getter 0" ... */
    uint64_t start_ns, stop_ns; /* monotonic; 0 until set */
    uint64_t first_ok_ns;       /* 0: no success yet */
    _Atomic uint64_t last_ok_ns;
    _Atomic uint64_t ok;           /* successful calls */
    uint64_t errors[VSTATS_CODES]; /* failed calls by code (index STRATA_OK unused) */
    uint64_t retries;              /* calls sent again after a failure */
    vstats_gap *gaps;
    size_t ngaps, gaps_cap;
    uint64_t gaps_dropped; /* gaps not kept for want of memory */
} vstats_thread;

/* A zeroed record named name (truncated to VSTATS_NAME_MAX - 1). */
void vstats_init(vstats_thread *t, const char *name);
/* Frees the gaps; the record is zeroed. NULL is a no-op. */
void vstats_free(vstats_thread *t);

/* The thread begins (now_ns monotonic). */
void vstats_start(vstats_thread *t, uint64_t now_ns);
/* A successful call returned at now_ns: keeps the gap since the previous one if it is at
 * least VSTATS_GAP_KEEP_NS (a gap that cannot be kept for want of memory is counted in
 * gaps_dropped). */
void vstats_ok(vstats_thread *t, uint64_t now_ns);
/* A call failed with code (a value outside the enum counts as STRATA_ERR_INTERNAL;
 * STRATA_OK is ignored). */
void vstats_error(vstats_thread *t, strata_code code);
/* A failed call is sent again. */
void vstats_retry(vstats_thread *t);
/* The thread ends (now_ns monotonic). */
void vstats_stop(vstats_thread *t, uint64_t now_ns);

/* Whether the thread had a successful call that returned at t_ns or later. Any time. */
bool vstats_resumed_since(const vstats_thread *t, uint64_t t_ns);
/* Successful calls so far. Any time. */
uint64_t vstats_ok_count(const vstats_thread *t);

/* After stop: failed calls, all codes. */
uint64_t vstats_error_total(const vstats_thread *t);
/* After stop: ns from t_ns until the first successful call that returned after t_ns (the
 * stop time if there was none; 0 if t_ns is at or after the stop). When that call came
 * within VSTATS_GAP_KEEP_NS of the one before it, the stall was not kept: 0. */
uint64_t vstats_stall_after(const vstats_thread *t, uint64_t t_ns);
/* After stop: the longest time the thread went without a successful call: the kept gaps,
 * start to the first success and the last success to stop (start to stop if none
 * succeeded). *from_ns (if not NULL) receives when it began. 0 before start and stop. */
uint64_t vstats_longest_gap(const vstats_thread *t, uint64_t *from_ns);

/* Whether a verifier should send a call that failed with code again: every code except
 * those that no retry can change (invalid argument, no such family, permission,
 * unsupported). */
bool vstats_code_retryable(strata_code code);

#endif
