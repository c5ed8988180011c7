/*
 * retry.c - HBase's client retry policy (see retry.h).
 *
 * retry_next_at decides in this order: not retryable -> give up with the status;
 * deadline reached -> give up with ST_TIMEOUT; retries spent -> give up with the
 * status; otherwise pause = backoff + jitter, clamped to end at the deadline.
 * Jitter comes from a splitmix64 generator private to the retry_state.
 * Thread-safety: no shared state; a retry_state is used by one thread at a time.
 */
#include "client/retry.h"

#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/status.h"

#define NS_PER_MS 1000000ull
#define MAX_PAUSE_MS (24 * 3600 * 1000LL)

/* HBase's HConstants.RETRY_BACKOFF. */
static const int backoff_factor[] = {1, 2, 3, 5, 10, 20, 40, 100, 100, 100, 100, 200, 200};
#define BACKOFF_STEPS ((int)(sizeof(backoff_factor) / sizeof(backoff_factor[0])))

void retry_config_default(retry_config *cfg)
{
    cfg->pause_ms = RETRY_DEFAULT_PAUSE_MS;
    cfg->jitter = RETRY_DEFAULT_JITTER;
    cfg->max_retries = RETRY_DEFAULT_MAX_RETRIES;
    cfg->operation_timeout_ms = RETRY_DEFAULT_OPERATION_TIMEOUT_MS;
    cfg->seed = 0;
}

retry_class retry_classify(int status)
{
    switch (status) {
    case ST_OK:
        return RETRY_SUCCESS;
    case ST_NOT_SERVING: /* the region closed or moved: look it up again */
    case ST_REGION_MOVED: /* closed for a move, split or merge: the caller caches the hint
                           * the answer carries (client/moved_hint.c); without one, look
                           * it up again */
    case ST_CONNECTION:  /* connection refused, lost or reset */
    case ST_IO:          /* a socket error not mapped to ST_CONNECTION */
    case ST_CLOSED:      /* the connection closed under the call */
    case ST_TIMEOUT:     /* one call timed out: the server may be paused or dead and its
                          * regions reassigned (HBase drops the location on a socket
                          * timeout too); the operation may have time left */
        return RETRY_INVALIDATE;
    case ST_REGION_OPENING:
    case ST_REGION_TOO_BUSY:
    case ST_SERVER_BUSY:
        return RETRY_KEEP;
    case ST_PROTOCOL: /* broken framing or headers: a bug, not a passing state */
    default:
        return RETRY_FATAL;
    }
}

int64_t retry_backoff_ms(int64_t pause_ms, int n)
{
    if (n < 0)
        n = 0;
    if (n >= BACKOFF_STEPS)
        n = BACKOFF_STEPS - 1;
    return pause_ms * backoff_factor[n];
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A uniform double in [0, 1). */
static double next_unit(retry_state *r)
{
    return (double)(splitmix64(&r->rng) >> 11) * (1.0 / 9007199254740992.0);
}

static int config_check(const retry_config *cfg)
{
    if (cfg->pause_ms < 0 || cfg->pause_ms > MAX_PAUSE_MS)
        return st_error(ST_INVALID_ARGUMENT, "retry: pause %lld ms out of range",
                        (long long)cfg->pause_ms);
    if (!(cfg->jitter >= 0.0 && cfg->jitter <= 1.0))
        return st_error(ST_INVALID_ARGUMENT, "retry: jitter %g is not in [0, 1]", cfg->jitter);
    if (cfg->max_retries < 0)
        return st_error(ST_INVALID_ARGUMENT, "retry: max retries %d is negative", cfg->max_retries);
    if (cfg->operation_timeout_ms < 0 ||
        cfg->operation_timeout_ms > INT64_MAX / 2 / (int64_t)NS_PER_MS)
        return st_error(ST_INVALID_ARGUMENT, "retry: operation timeout %lld ms out of range",
                        (long long)cfg->operation_timeout_ms);
    return ST_OK;
}

int retry_begin_at(retry_state *r, const retry_config *cfg, uint64_t now_ns)
{
    memset(r, 0, sizeof(*r));
    if (cfg) {
        int rc = config_check(cfg);
        if (rc != ST_OK)
            return rc;
        r->cfg = *cfg;
    } else {
        retry_config_default(&r->cfg);
    }
    if (r->cfg.operation_timeout_ms > 0)
        r->deadline_ns = now_ns + (uint64_t)r->cfg.operation_timeout_ms * NS_PER_MS;
    r->rng = r->cfg.seed ? r->cfg.seed : (clock_mono_ns() ^ (uint64_t)(uintptr_t)r);
    return ST_OK;
}

int retry_begin(retry_state *r, const retry_config *cfg)
{
    return retry_begin_at(r, cfg, clock_mono_ns());
}

int64_t retry_remaining_ms_at(const retry_state *r, uint64_t now_ns)
{
    if (!r->deadline_ns)
        return -1;
    if (now_ns >= r->deadline_ns)
        return 0;
    return (int64_t)((r->deadline_ns - now_ns + NS_PER_MS - 1) / NS_PER_MS);
}

int64_t retry_remaining_ms(const retry_state *r)
{
    return retry_remaining_ms_at(r, clock_mono_ns());
}

int retry_attempts(const retry_state *r)
{
    return 1 + r->retries;
}

/* Records why the operation stopped, keeping the last failure's message. */
static int give_up(const retry_state *r, int code, int status, const char *why)
{
    char last[512];
    snprintf(last, sizeof(last), "%s", st_errmsg());
    return st_error(code, "gave up after %d attempts (%s); last failure: %s: %s", retry_attempts(r),
                    why, st_strerror(status), last);
}

int retry_next_at(retry_state *r, int status, uint64_t now_ns, int64_t *pause_ms)
{
    *pause_ms = 0;
    retry_class cls = retry_classify(status);
    if (cls == RETRY_SUCCESS)
        return st_error(ST_INVALID_ARGUMENT, "retry: asked to retry a successful call");
    if (cls == RETRY_FATAL)
        return status;
    int64_t left = retry_remaining_ms_at(r, now_ns);
    if (left == 0)
        return give_up(r, ST_TIMEOUT, status, "operation timeout passed");
    if (r->retries >= r->cfg.max_retries)
        return give_up(r, status, status, "retries exhausted");
    int64_t pause = retry_backoff_ms(r->cfg.pause_ms, r->retries);
    pause += (int64_t)((double)pause * r->cfg.jitter * next_unit(r));
    if (left > 0 && pause > left)
        pause = left;
    r->retries++;
    *pause_ms = pause;
    return ST_OK;
}

int retry_next(retry_state *r, int status, int64_t *pause_ms)
{
    return retry_next_at(r, status, clock_mono_ns(), pause_ms);
}
