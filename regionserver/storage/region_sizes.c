/*
 * region_sizes.c - the per-store sizes a split policy decides on (split_policy.h): the
 * bytes of each store's files, in schema order.
 *
 * Thread-safety: as region_get_stats.
 */
#include "regionserver/storage/region_internal.h"

size_t region_store_sizes(region *r, uint64_t *sizes, size_t cap)
{
    size_t n = r->schema.nfamilies < cap ? r->schema.nfamilies : cap;
    for (size_t i = 0; i < n; i++)
        sizes[i] = store_file_bytes(r->stores[i]);
    return n;
}
