/*
 * rest_work.h - the REST gateway's worker pool (rest_work.c): a bounded queue of jobs run
 * by a fixed number of threads.
 *
 * Lifecycle: rest_work_start -> rest_work_submit (any number, any thread) ->
 * rest_work_stop, which runs every job already queued before it joins the threads.
 */
#ifndef STRATA_REST_REST_WORK_H
#define STRATA_REST_REST_WORK_H

#include <stddef.h>

typedef struct rest_work rest_work;

/* Runs one job on a worker thread. */
typedef void (*rest_work_fn)(void *arg, void *job);

/* threads workers and room for queue waiting jobs. ST_OK and *out, or the failure. */
int rest_work_start(int threads, size_t queue, rest_work_fn fn, void *arg, rest_work **out);
/* Queues a job: ST_OK, ST_SERVER_BUSY when the queue is full, ST_CLOSED once stopping
 * (the job was not taken in either case). */
int rest_work_submit(rest_work *w, void *job);
/* Jobs waiting for a worker now. */
size_t rest_work_queued(rest_work *w);
/* Runs what is queued, joins the threads and frees w. NULL: no-op. */
void rest_work_stop(rest_work *w);

#endif
