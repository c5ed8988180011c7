/*
 * clock.h - time, behind a layer tests can steer.
 *
 * clock_now_ms() is wall-clock milliseconds since the epoch (cell timestamps, TTL);
 * tests may pin or advance it with clock_set_fake_ms(). clock_mono_ns() is
 * CLOCK_MONOTONIC (timeouts, intervals, rates) and is never faked.
 * Thread-safety: safe from any thread.
 */
#ifndef STRATA_COMMON_CLOCK_H
#define STRATA_COMMON_CLOCK_H

#include <stdint.h>
#include <time.h>

int64_t clock_now_ms(void);
uint64_t clock_mono_ns(void);
/* Pins clock_now_ms() to ms; 0 returns to the real clock. */
void clock_set_fake_ms(int64_t ms);
/* The CLOCK_REALTIME instant ms milliseconds from now, for pthread_cond_timedwait and
 * pthread_mutex_timedlock. */
struct timespec clock_realtime_after_ms(int64_t ms);
/* Sleeps for ms milliseconds (restarting on EINTR). */
void clock_sleep_ms(int64_t ms);

#endif
