/*
 * retry.h - the client's retry policy: which failures to retry, how long to pause,
 * and when to give up.
 *
 * HBase's policy: the pause before retry n (0-based) is the base pause (100 ms) times
 * RETRY_BACKOFF[n] = 1, 2, 3, 5, 10, 20, 40, 100, 100, 100, 100, 200, 200 (the last
 * factor repeats), plus a random jitter of up to 1 % of it; at most 15 retries
 * (16 attempts); and an operation timeout (20 min) over all attempts: a pause is cut
 * short to end at the deadline, and a failure at or past the deadline gives up with
 * ST_TIMEOUT. The policy computes pauses; the caller sleeps.
 *
 * Usage, one retry_state per operation (on the stack):
 *
 *   retry_state r;
 *   retry_begin(&r, &cfg);                      // cfg NULL: the defaults
 *   for (;;) {
 *       rc = attempt(..., retry_remaining_ms(&r));
 *       if (rc == ST_OK) break;
 *       if (retry_classify(rc) == RETRY_INVALIDATE) drop the cached location;
 *       int64_t pause;
 *       if ((rc = retry_next(&r, rc, &pause)) != ST_OK) break;   // give up with rc
 *       clock_sleep_ms(pause);
 *   }
 *
 * Deadlines use the monotonic clock (clock_mono_ns); the *_at variants take the
 * current time from the caller, for tests and for callers that already read it.
 * Thread-safety: a retry_state belongs to one operation and is not shared; the other
 * functions are pure.
 */
#ifndef STRATA_CLIENT_RETRY_H
#define STRATA_CLIENT_RETRY_H

#include <stdint.h>

#define RETRY_DEFAULT_PAUSE_MS 100
#define RETRY_DEFAULT_JITTER 0.01
#define RETRY_DEFAULT_MAX_RETRIES 15
#define RETRY_DEFAULT_OPERATION_TIMEOUT_MS (20 * 60 * 1000)

/* What a failed attempt's status calls for. */
typedef enum retry_class {
    RETRY_SUCCESS = 0, /* ST_OK: nothing to retry */
    RETRY_INVALIDATE,  /* retry after dropping the cached location (the region is
                          elsewhere or the server is unreachable) */
    RETRY_KEEP,        /* retry at the same location (opening, busy) */
    RETRY_FATAL,       /* do not retry: the request itself is wrong or cannot succeed */
} retry_class;

typedef struct retry_config {
    int64_t pause_ms;             /* base pause, 0..86400000 */
    double jitter;                /* up to this fraction of each pause is added, 0..1 */
    int max_retries;              /* retries after the first attempt, >= 0 */
    int64_t operation_timeout_ms; /* deadline over all attempts; 0: none */
    uint64_t seed;                /* jitter random seed; 0: seeded from the clock */
} retry_config;

/* One operation's progress. Fields are the module's own; read them through the
 * functions below. */
typedef struct retry_state {
    retry_config cfg;
    int retries;          /* retries granted so far */
    uint64_t deadline_ns; /* monotonic; 0: none */
    uint64_t rng;
} retry_state;

/* Fills cfg with HBase's defaults (the RETRY_DEFAULT_* values, seed 0). */
void retry_config_default(retry_config *cfg);

/* The failure class of a status. Unknown codes are RETRY_FATAL. */
retry_class retry_classify(int status);

/* The pause before retry n (0-based) without jitter: pause_ms * RETRY_BACKOFF[n],
 * the last factor repeating. */
int64_t retry_backoff_ms(int64_t pause_ms, int n);

/* Starts an operation now (or at now_ns). cfg NULL: the defaults. Returns ST_OK, or
 * ST_INVALID_ARGUMENT for a config out of range (r is then unusable). */
int retry_begin(retry_state *r, const retry_config *cfg);
int retry_begin_at(retry_state *r, const retry_config *cfg, uint64_t now_ns);

/* After an attempt failed with status: returns ST_OK and sets *pause_ms to how long to
 * sleep before the next attempt (clamped to the time left), or gives up: returns
 * status itself if it is not retryable (its message left as it is) or the retries are
 * spent, and ST_TIMEOUT once the operation deadline has passed; *pause_ms is then 0.
 * A give-up on retries or time records a message naming the attempts and the last
 * failure. status ST_OK is a misuse: ST_INVALID_ARGUMENT. */
int retry_next(retry_state *r, int status, int64_t *pause_ms);
int retry_next_at(retry_state *r, int status, uint64_t now_ns, int64_t *pause_ms);

/* Milliseconds left before the operation deadline (rounded up, 0 once passed), for
 * the next attempt's call timeout; -1 if there is no deadline. */
int64_t retry_remaining_ms(const retry_state *r);
int64_t retry_remaining_ms_at(const retry_state *r, uint64_t now_ns);

/* Attempts made so far, counting the first: 1 + retries granted. */
int retry_attempts(const retry_state *r);

#endif
