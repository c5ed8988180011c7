/*
 * log.c - leveled logging to stderr or to a sink function.
 *
 * Thread-safety: the level is an atomic. The sink is an atomic pointer to an immutable
 * node (function, argument) with a count of the threads inside it: a writer counts
 * itself in, then checks the node is still current (else it counts out and retries),
 * so log_set_sink, after swapping the pointer, waits until the old node's count is
 * zero and no thread can enter it again. Nodes are never freed (a writer may still
 * touch the count of one it loaded before the swap); they stay reachable from the
 * list of nodes made. Setters are serialised by sink_mu. On stderr each line goes out
 * in one write(2).
 */
#include "common/log.h"

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LOG_LEVEL_UNSET (-2) /* STRATA_LOG_LEVEL is read at first use */

typedef struct sink_node {
    log_sink_fn fn; /* NULL: stderr */
    void *arg;
    atomic_int users; /* threads inside fn now */
    struct sink_node *made_before;
} sink_node;

static atomic_int log_level_cur = LOG_LEVEL_UNSET;
static sink_node stderr_sink;
static _Atomic(sink_node *) sink_cur = &stderr_sink;
static sink_node *sinks_made; /* every node made, newest first (under sink_mu) */
static pthread_mutex_t sink_mu = PTHREAD_MUTEX_INITIALIZER;

int log_parse_level(const char *name)
{
    static const char *names[] = {"error", "warn", "info", "debug"};
    for (int i = 0; i < 4; i++)
        if (name && strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

void log_set_level(log_level level)
{
    atomic_store(&log_level_cur, (int)level);
}

log_level log_get_level(void)
{
    int l = atomic_load(&log_level_cur);
    if (l == LOG_LEVEL_UNSET) {
        l = log_parse_level(getenv("STRATA_LOG_LEVEL"));
        if (l < 0)
            l = LOG_LEVEL_WARN;
        atomic_store(&log_level_cur, l);
    }
    return (log_level)l;
}

static const char *short_path(const char *file)
{
    /* Keep "folder/file.c": the part after the second-to-last slash. */
    const char *last = strrchr(file, '/');
    if (!last)
        return file;
    for (const char *p = last - 1; p >= file; p--)
        if (*p == '/')
            return p + 1;
    return file;
}

bool log_set_sink(log_sink_fn fn, void *arg)
{
    sink_node *n = &stderr_sink;
    if (fn && !(n = calloc(1, sizeof(*n))))
        return false;
    pthread_mutex_lock(&sink_mu);
    if (fn) {
        n->fn = fn;
        n->arg = arg;
        n->made_before = sinks_made;
        sinks_made = n;
    }
    sink_node *old = atomic_exchange(&sink_cur, n);
    pthread_mutex_unlock(&sink_mu);
    while (old != n && atomic_load(&old->users) > 0)
        sched_yield();
    return true;
}

/* The current sink, counted in (see the file comment). */
static sink_node *sink_enter(void)
{
    for (;;) {
        sink_node *n = atomic_load(&sink_cur);
        atomic_fetch_add(&n->users, 1);
        if (atomic_load(&sink_cur) == n)
            return n;
        atomic_fetch_sub(&n->users, 1);
    }
}

/* Hands the line (len bytes in buf, which has room for two more) to the sink. */
static void emit(log_level level, char *buf, size_t len)
{
    sink_node *n = sink_enter();
    if (n->fn) {
        buf[len] = '\0';
        n->fn(n->arg, level, buf);
    } else {
        buf[len] = '\n';
        ssize_t w = write(STDERR_FILENO, buf, len + 1);
        (void)w;
    }
    atomic_fetch_sub(&n->users, 1);
}

void log_write(log_level level, const char *file, int line, const char *fmt, ...)
{
    static const char *tags[] = {"ERROR", "WARN ", "INFO ", "DEBUG"};
    char buf[2048];
    if (level < LOG_LEVEL_ERROR || level > LOG_LEVEL_DEBUG)
        return;
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    int n = snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s [%s:%d] ",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                     tm.tm_sec, ts.tv_nsec / 1000000, tags[level], short_path(file), line);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof(buf))
        n += vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof(buf) - 1)
        n = (int)sizeof(buf) - 2;
    emit(level, buf, (size_t)n);
}
