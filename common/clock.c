/*
 * clock.c - wall and monotonic clocks with a test override for the wall clock.
 * Thread-safety: the override is an atomic.
 */
#include "common/clock.h"

#include <errno.h>
#include <stdatomic.h>
#include <time.h>

static _Atomic int64_t clock_fake_ms;

int64_t clock_now_ms(void)
{
    int64_t f = atomic_load_explicit(&clock_fake_ms, memory_order_relaxed);
    if (f)
        return f;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t clock_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void clock_set_fake_ms(int64_t ms)
{
    atomic_store(&clock_fake_ms, ms);
}

struct timespec clock_realtime_after_ms(int64_t ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += (time_t)(ms / 1000);
    ts.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

void clock_sleep_ms(int64_t ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
        ;
}
