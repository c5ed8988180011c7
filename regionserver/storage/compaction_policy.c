/*
 * compaction_policy.c - exploring compaction selection (see compaction.h).
 * Thread-safety: pure functions.
 */
#include "regionserver/storage/compaction.h"

static bool window_in_ratio(const uint64_t *sizes, size_t start, size_t count, uint64_t total,
                            double ratio)
{
    for (size_t i = start; i < start + count; i++) {
        uint64_t others = total - sizes[i];
        if ((double)sizes[i] > ratio * (double)others)
            return false;
    }
    return true;
}

bool compaction_select(const compaction_policy *p, const uint64_t *sizes, size_t n,
                       size_t *start, size_t *count)
{
    size_t min_files = p->min_files > 1 ? (size_t)p->min_files : 2;
    size_t max_files = p->max_files >= (int)min_files ? (size_t)p->max_files : min_files;
    bool found = false, smallest_found = false;
    size_t best_start = 0, best_count = 0, small_start = 0;
    uint64_t best_total = 0, small_total = 0;

    for (size_t s = 0; s + min_files <= n; s++) {
        uint64_t total = 0;
        for (size_t c = 1; c <= max_files && s + c <= n; c++) {
            total += sizes[s + c - 1];
            if (c < min_files)
                continue;
            if (c == min_files && (!smallest_found || total < small_total)) {
                smallest_found = true;
                small_start = s;
                small_total = total;
            }
            if (total > p->max_size)
                break;
            if (total > p->min_size && !window_in_ratio(sizes, s, c, total, p->ratio))
                continue;
            if (!found || c > best_count || (c == best_count && total < best_total)) {
                found = true;
                best_start = s;
                best_count = c;
                best_total = total;
            }
        }
    }
    if (found) {
        *start = best_start;
        *count = best_count;
        return true;
    }
    if (smallest_found && p->blocking_files > 0 && n >= (size_t)p->blocking_files) {
        *start = small_start;
        *count = min_files;
        return true;
    }
    return false;
}
