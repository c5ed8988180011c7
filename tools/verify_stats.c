/*
 * verify_stats.c - per-thread records of the verifiers (verify_stats.h): counters, the
 * gaps between successful calls, and the stall questions a report asks of them.
 *
 * Thread-safety: see verify_stats.h. last_ok_ns and ok are written by the owner with
 * release and read anywhere with acquire; everything else belongs to the owner until
 * vstats_stop.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/verify_stats.h"

#define FIRST_GAPS 256

void vstats_init(vstats_thread *t, const char *name)
{
    memset(t, 0, sizeof(*t));
    size_t n = strlen(name);
    if (n >= sizeof(t->name))
        n = sizeof(t->name) - 1;
    memcpy(t->name, name, n);
}

void vstats_free(vstats_thread *t)
{
    if (!t)
        return;
    free(t->gaps);
    memset(t, 0, sizeof(*t));
}

void vstats_start(vstats_thread *t, uint64_t now_ns)
{
    t->start_ns = now_ns;
}

static void keep_gap(vstats_thread *t, uint64_t from_ns, uint64_t to_ns)
{
    if (t->ngaps == t->gaps_cap) {
        size_t nc = t->gaps_cap ? t->gaps_cap * 2 : FIRST_GAPS;
        vstats_gap *ng = realloc(t->gaps, nc * sizeof(*ng));
        if (!ng) {
            t->gaps_dropped++;
            return;
        }
        t->gaps = ng;
        t->gaps_cap = nc;
    }
    t->gaps[t->ngaps++] = (vstats_gap){from_ns, to_ns};
}

void vstats_ok(vstats_thread *t, uint64_t now_ns)
{
    uint64_t last = atomic_load_explicit(&t->last_ok_ns, memory_order_relaxed);
    if (!t->first_ok_ns)
        t->first_ok_ns = now_ns;
    else if (now_ns - last >= VSTATS_GAP_KEEP_NS)
        keep_gap(t, last, now_ns);
    atomic_store_explicit(&t->last_ok_ns, now_ns, memory_order_release);
    atomic_fetch_add_explicit(&t->ok, 1, memory_order_release);
}

void vstats_error(vstats_thread *t, strata_code code)
{
    if (code == STRATA_OK)
        return;
    if ((int)code < 0 || (int)code >= VSTATS_CODES)
        code = STRATA_ERR_INTERNAL;
    t->errors[code]++;
}

void vstats_retry(vstats_thread *t)
{
    t->retries++;
}

void vstats_stop(vstats_thread *t, uint64_t now_ns)
{
    t->stop_ns = now_ns;
}

bool vstats_resumed_since(const vstats_thread *t, uint64_t t_ns)
{
    uint64_t last = atomic_load_explicit(&t->last_ok_ns, memory_order_acquire);
    return last != 0 && last >= t_ns;
}

uint64_t vstats_ok_count(const vstats_thread *t)
{
    return atomic_load_explicit(&t->ok, memory_order_acquire);
}

uint64_t vstats_error_total(const vstats_thread *t)
{
    uint64_t n = 0;
    for (int c = 0; c < VSTATS_CODES; c++)
        n += t->errors[c];
    return n;
}

/* The kept gap with from_ns <= t_ns < to_ns, or NULL (gaps are in time order). */
static const vstats_gap *gap_holding(const vstats_thread *t, uint64_t t_ns)
{
    size_t lo = 0, hi = t->ngaps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->gaps[mid].to_ns <= t_ns)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* gaps[lo] is the first that ends after t_ns */
    return lo < t->ngaps && t->gaps[lo].from_ns <= t_ns ? &t->gaps[lo] : NULL;
}

uint64_t vstats_stall_after(const vstats_thread *t, uint64_t t_ns)
{
    uint64_t last = atomic_load_explicit(&t->last_ok_ns, memory_order_acquire);
    if (t_ns >= t->stop_ns)
        return 0;
    if (!t->first_ok_ns || t_ns >= last)
        return t->stop_ns - t_ns;
    if (t_ns < t->first_ok_ns)
        return t->first_ok_ns - t_ns;
    const vstats_gap *g = gap_holding(t, t_ns);
    return g ? g->to_ns - t_ns : 0;
}

uint64_t vstats_longest_gap(const vstats_thread *t, uint64_t *from_ns)
{
    uint64_t best = 0, at = t->start_ns;
    uint64_t last = atomic_load_explicit(&t->last_ok_ns, memory_order_acquire);
    if (t->stop_ns < t->start_ns || !t->stop_ns) {
        best = 0;
    } else if (!t->first_ok_ns) {
        best = t->stop_ns - t->start_ns;
    } else {
        if (t->first_ok_ns > t->start_ns)
            best = t->first_ok_ns - t->start_ns;
        for (size_t i = 0; i < t->ngaps; i++)
            if (t->gaps[i].to_ns - t->gaps[i].from_ns > best) {
                best = t->gaps[i].to_ns - t->gaps[i].from_ns;
                at = t->gaps[i].from_ns;
            }
        if (t->stop_ns > last && t->stop_ns - last > best) {
            best = t->stop_ns - last;
            at = last;
        }
    }
    if (from_ns)
        *from_ns = at;
    return best;
}

bool vstats_code_retryable(strata_code code)
{
    switch (code) {
    case STRATA_ERR_INVALID_ARGUMENT:
    case STRATA_ERR_NO_SUCH_FAMILY:
    case STRATA_ERR_PERMISSION:
    case STRATA_ERR_UNSUPPORTED:
        return false;
    default:
        return true;
    }
}
