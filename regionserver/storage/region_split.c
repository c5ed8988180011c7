/*
 * region_split.c - what a region tells about splitting: whether it still holds
 * references (docs/formats/reference.md) and its split point.
 *
 * The split point is HBase's: the largest store (by store-file bytes), then the mid
 * row of that store's largest file (store_split_row -> storefile_mid_row). A region
 * holding references has none: its daughters' files are still halves of its parent's,
 * and split policies wait for the compaction that rewrites them.
 * Thread-safety: safe from any thread (the stores' mutexes; no I/O).
 */
#include "common/status.h"
#include "regionserver/storage/region_internal.h"

bool region_has_references(region *r)
{
    for (size_t i = 0; i < r->schema.nfamilies; i++)
        if (store_has_references(r->stores[i]))
            return true;
    return false;
}

int region_best_split_row(region *r, buf_t *row)
{
    if (region_has_references(r))
        return st_error(ST_NOT_FOUND,
                        "region %s of %s holds references: no split point until compacted",
                        r->info.encoded_name, r->info.table);
    store *largest = NULL;
    uint64_t largest_bytes = 0;
    for (size_t i = 0; i < r->schema.nfamilies; i++) {
        uint64_t bytes = store_file_bytes(r->stores[i]);
        if (store_file_count(r->stores[i]) > 0 && (!largest || bytes > largest_bytes)) {
            largest = r->stores[i];
            largest_bytes = bytes;
        }
    }
    if (!largest)
        return st_error(ST_NOT_FOUND, "region %s of %s has no store files: no split point",
                        r->info.encoded_name, r->info.table);
    int rc = store_split_row(largest, row);
    if (rc != ST_OK)
        return st_error(rc, "region %s of %s: %s", r->info.encoded_name, r->info.table,
                        st_errmsg());
    return ST_OK;
}
