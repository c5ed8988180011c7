/*
 * rest_work.c - the REST gateway's worker threads: a bounded FIFO of jobs and the threads
 * that run them. A full queue refuses a job at once (the caller answers 503), so a burst
 * never grows memory without limit.
 *
 * Thread-safety: submit from any thread; start and stop from the owner. Lock: mu guards
 * the queue and the stopping flag.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/log.h"
#include "common/net.h"
#include "common/status.h"
#include "rest/rest_internal.h"
#include "rest/rest_work.h"

struct rest_work {
    rest_work_fn fn;
    void *arg;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    void **ring;
    size_t cap, head, count;
    bool stopping;
    pthread_t *threads;
    int nthreads;
};

static void *worker_main(void *arg)
{
    rest_work *w = arg;
    net_block_sigpipe();
    for (;;) {
        pthread_mutex_lock(&w->mu);
        while (w->count == 0 && !w->stopping)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->count == 0) { /* stopping and drained */
            pthread_mutex_unlock(&w->mu);
            return NULL;
        }
        void *job = w->ring[w->head];
        w->head = (w->head + 1) % w->cap;
        w->count--;
        pthread_mutex_unlock(&w->mu);
        w->fn(w->arg, job);
    }
}

int rest_work_start(int threads, size_t queue, rest_work_fn fn, void *arg, rest_work **out)
{
    *out = NULL;
    rest_work *w = calloc(1, sizeof(*w));
    if (!w)
        return st_error(ST_NOMEM, "rest: out of memory starting the workers");
    w->fn = fn;
    w->arg = arg;
    w->cap = queue ? queue : 1;
    w->ring = calloc(w->cap, sizeof(*w->ring));
    w->threads = calloc((size_t)(threads > 0 ? threads : 1), sizeof(*w->threads));
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (!w->ring || !w->threads) {
        rest_work_stop(w);
        return st_error(ST_NOMEM, "rest: out of memory starting the workers");
    }
    for (int i = 0; i < (threads > 0 ? threads : 1); i++) {
        if (pthread_create(&w->threads[i], NULL, worker_main, w) != 0) {
            rest_work_stop(w);
            return st_error(ST_INTERNAL, "rest: cannot start worker thread %d", i);
        }
        w->nthreads++;
    }
    *out = w;
    return ST_OK;
}

int rest_work_submit(rest_work *w, void *job)
{
    pthread_mutex_lock(&w->mu);
    int rc = ST_OK;
    if (w->stopping)
        rc = ST_CLOSED;
    else if (w->count == w->cap)
        rc = ST_SERVER_BUSY;
    else {
        w->ring[(w->head + w->count) % w->cap] = job;
        w->count++;
        pthread_cond_signal(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return rc;
}

size_t rest_work_queued(rest_work *w)
{
    pthread_mutex_lock(&w->mu);
    size_t n = w->count;
    pthread_mutex_unlock(&w->mu);
    return n;
}

void rest_work_stop(rest_work *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->stopping = true;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    for (int i = 0; i < w->nthreads; i++)
        pthread_join(w->threads[i], NULL);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w->threads);
    free(w->ring);
    free(w);
}
