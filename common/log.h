/*
 * log.h - leveled logging with file/line, printf-checked.
 *
 * LOG_ERROR/WARN/INFO/DEBUG(fmt, ...) write one line to the sink, by default stderr:
 *   2026-11-29T22:40:01.123Z INFO  [storage/wal.c:120] message
 * The level comes from log_set_level() or, at first use, STRATA_LOG_LEVEL
 * (error, warn, info, debug; default warn); LOG_LEVEL_OFF writes nothing.
 * log_set_sink() sends the lines to a function instead (libstrata's
 * strata_set_log_sink, client/log_api.c).
 * Thread-safety: safe from any thread; the level and the sink are read atomically; on
 * stderr a line is written with one write(2).
 */
#ifndef STRATA_COMMON_LOG_H
#define STRATA_COMMON_LOG_H

#include <stdbool.h>

typedef enum log_level {
    LOG_LEVEL_OFF = -1, /* nothing is written; never returned by log_parse_level */
    LOG_LEVEL_ERROR = 0,
    LOG_LEVEL_WARN,
    LOG_LEVEL_INFO,
    LOG_LEVEL_DEBUG
} log_level;

void log_set_level(log_level level);
log_level log_get_level(void);
/* Parses "error", "warn", "info", "debug"; returns -1 if unknown. */
int log_parse_level(const char *name);

/* Receives every line written at or above the level: line is the whole line as stderr
 * would show it, without the newline, NUL-terminated, valid during the call. Called on
 * the thread that logs, possibly on several threads at once; it must not call
 * log_set_sink. */
typedef void (*log_sink_fn)(void *arg, log_level level, const char *line);
/* Sends the lines to fn(arg, ...) from now on; NULL restores stderr. Returns true once
 * no thread is still in the previous sink, which is never called again (its arg may be
 * freed then); false, with the previous sink kept, if memory ran out. */
bool log_set_sink(log_sink_fn fn, void *arg);

void log_write(log_level level, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define LOG_AT(lvl, ...)                                                                           \
    do {                                                                                           \
        if ((lvl) <= log_get_level())                                                              \
            log_write((lvl), __FILE__, __LINE__, __VA_ARGS__);                                     \
    } while (0)
#define LOG_ERROR(...) LOG_AT(LOG_LEVEL_ERROR, __VA_ARGS__)
#define LOG_WARN(...) LOG_AT(LOG_LEVEL_WARN, __VA_ARGS__)
#define LOG_INFO(...) LOG_AT(LOG_LEVEL_INFO, __VA_ARGS__)
#define LOG_DEBUG(...) LOG_AT(LOG_LEVEL_DEBUG, __VA_ARGS__)

#endif
