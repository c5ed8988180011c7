/*
 * mvcc.h - multi-version concurrency control for one region.
 *
 * Write numbers are the region's sequence ids. A writer calls mvcc_begin() (which
 * assigns the next number and queues it), writes the WAL and the memstore with that
 * number, then mvcc_complete(). The read point is the highest number n such that
 * every number <= n has completed; readers open with mvcc_read_point() and so see
 * only whole transactions. mvcc_complete_and_wait() also waits until the read point
 * covers the writer's own number ("a successful write is visible at once").
 *
 *   begin ──> pending ──complete──> done ──(all earlier done)──> read point advances
 *
 * Thread-safety: all functions are safe from any thread (one mutex + condvar).
 */
#ifndef STRATA_REGIONSERVER_MVCC_H
#define STRATA_REGIONSERVER_MVCC_H

#include <stdint.h>

typedef struct mvcc mvcc;

/* A new tracker whose read point is `start` and whose next write number is start+1. */
mvcc *mvcc_new(uint64_t start);
void mvcc_free(mvcc *m);
/* Assigns and returns the next write number; 0 if out of memory (numbers are >= 1). */
uint64_t mvcc_begin(mvcc *m);
/* Marks write number w complete and advances the read point if it can. A number
 * that is not in flight is logged and ignored. */
void mvcc_complete(mvcc *m, uint64_t w);
/* mvcc_complete() then waits until the read point >= w. */
void mvcc_complete_and_wait(mvcc *m, uint64_t w);
uint64_t mvcc_read_point(mvcc *m);
/* Raises the next write number past seq (used after WAL replay): seq counts
 * as used, so the next write number becomes max(current, seq + 1) and, once the writes
 * in flight complete, the read point is at least seq (HBase's advanceTo). */
void mvcc_advance_to(mvcc *m, uint64_t seq);
/* Waits until every begun write has completed (flush uses it). */
void mvcc_wait_all(mvcc *m);

#endif
