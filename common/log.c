/*
 * log.c - leveled logging to stderr.
 * Thread-safety: the level is an atomic; each line goes out in one write(2).
 */
#include "common/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static atomic_int log_level_cur = -1;

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
    if (l < 0) {
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

void log_write(log_level level, const char *file, int line, const char *fmt, ...)
{
    static const char *tags[] = {"ERROR", "WARN ", "INFO ", "DEBUG"};
    char buf[2048];
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
    buf[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, buf, (size_t)n);
    (void)w;
}
