/*
 * taskmon.c - the process's monitored tasks: a fixed table under one mutex, slots reused
 * as tasks end. Ids grow from 1 and are never reused, so a late taskmon_end of an old id
 * cannot end a newer task.
 */
#include "common/taskmon.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static taskmon_task tasks[TASKMON_MAX]; /* id 0: a free slot */
static uint64_t next_id = 1;

uint64_t taskmon_begin(const char *fmt, ...)
{
    char text[TASKMON_TEXT];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    int64_t now = clock_now_ms();
    uint64_t id = 0;
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < TASKMON_MAX; i++)
        if (tasks[i].id == 0) {
            id = next_id++;
            tasks[i].id = id;
            memcpy(tasks[i].description, text, sizeof(text));
            tasks[i].status[0] = '\0';
            tasks[i].start_ms = now;
            break;
        }
    pthread_mutex_unlock(&mu);
    return id;
}

static taskmon_task *find_locked(uint64_t id)
{
    for (size_t i = 0; id && i < TASKMON_MAX; i++)
        if (tasks[i].id == id)
            return &tasks[i];
    return NULL;
}

void taskmon_status(uint64_t id, const char *fmt, ...)
{
    if (!id)
        return;
    char text[TASKMON_TEXT];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&mu);
    taskmon_task *t = find_locked(id);
    if (t)
        memcpy(t->status, text, sizeof(text));
    pthread_mutex_unlock(&mu);
}

void taskmon_end(uint64_t id)
{
    pthread_mutex_lock(&mu);
    taskmon_task *t = find_locked(id);
    if (t)
        t->id = 0;
    pthread_mutex_unlock(&mu);
}

static int by_id(const void *a, const void *b)
{
    uint64_t x = ((const taskmon_task *)a)->id, y = ((const taskmon_task *)b)->id;
    return (x > y) - (x < y);
}

size_t taskmon_list(taskmon_task *out, size_t cap)
{
    size_t n = 0;
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < TASKMON_MAX && n < cap; i++)
        if (tasks[i].id)
            out[n++] = tasks[i];
    pthread_mutex_unlock(&mu);
    if (n > 1)
        qsort(out, n, sizeof(*out), by_id);
    return n;
}
