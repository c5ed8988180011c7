/*
 * taskmon.h - the process's monitored tasks (HBase's TaskMonitor): what a server is busy
 * with now (a flush, a compaction, a region opening), each with a description, a status
 * that changes as it goes and its start time. Region servers send the running ones with
 * their reports and the master adds its own, so `status 'tasks'` shows them.
 *
 * At most TASKMON_MAX run at once; beyond that taskmon_begin returns 0 and the task goes
 * unlisted (the work itself is not affected). Texts are cut to TASKMON_TEXT - 1 bytes.
 *
 * Thread-safety: every function may be called from any thread.
 */
#ifndef STRATA_COMMON_TASKMON_H
#define STRATA_COMMON_TASKMON_H

#include <stddef.h>
#include <stdint.h>

#define TASKMON_MAX 256
#define TASKMON_TEXT 256

typedef struct taskmon_task {
    uint64_t id;
    char description[TASKMON_TEXT];
    char status[TASKMON_TEXT];
    int64_t start_ms; /* wall clock */
} taskmon_task;

/* Registers a running task (printf-style description); its id, or 0 when the table is full. */
uint64_t taskmon_begin(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Sets a running task's status; id 0 or an ended id is a no-op. */
void taskmon_status(uint64_t id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The task is done: it leaves the list. id 0 is a no-op. */
void taskmon_end(uint64_t id);
/* Copies up to cap running tasks, oldest first, into out; returns how many were copied. */
size_t taskmon_list(taskmon_task *out, size_t cap);

#endif
