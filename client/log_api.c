/*
 * log_api.c - the public logging settings of strata.h ("logging"): strata_set_log_level
 * and strata_set_log_sink over common/log.h. The public levels are the internal ones
 * plus one (STRATA_LOG_OFF is LOG_LEVEL_OFF). A sink is registered with common/log.c
 * through a trampoline whose argument is a node holding the application's function and
 * argument; log_set_sink returns only once the previous sink is no longer running, so
 * the previous node is freed then.
 *
 * Thread-safety: any thread; setters are serialised by api_mu (never taken by a logging
 * thread: a sink must not call into the library).
 */
#include <pthread.h>
#include <stdlib.h>

#include "common/log.h"
#include "strata/strata.h"

typedef struct api_sink {
    strata_log_sink fn;
    void *arg;
} api_sink;

static pthread_mutex_t api_mu = PTHREAD_MUTEX_INITIALIZER;
static api_sink *api_current; /* under api_mu; NULL: stderr */

static void trampoline(void *arg, log_level level, const char *line)
{
    const api_sink *s = arg;
    s->fn(s->arg, (strata_log_level)(level + 1), line);
}

void strata_set_log_level(strata_log_level level)
{
    if (level < STRATA_LOG_OFF || level > STRATA_LOG_DEBUG)
        return;
    log_set_level((log_level)((int)level - 1));
}

strata_log_level strata_get_log_level(void)
{
    return (strata_log_level)((int)log_get_level() + 1);
}

void strata_set_log_sink(strata_log_sink fn, void *arg)
{
    api_sink *s = fn ? malloc(sizeof(*s)) : NULL;
    if (fn && !s) {
        LOG_ERROR("strata_set_log_sink: out of memory; the log sink is unchanged");
        return;
    }
    if (s)
        *s = (api_sink){fn, arg};
    pthread_mutex_lock(&api_mu);
    bool set = s ? log_set_sink(trampoline, s) : log_set_sink(NULL, NULL);
    api_sink *old = set ? api_current : s;
    if (set)
        api_current = s;
    pthread_mutex_unlock(&api_mu);
    if (!set)
        LOG_ERROR("strata_set_log_sink: out of memory; the log sink is unchanged");
    free(old); /* the sink replaced (nobody runs it any more), or the one not set */
}
