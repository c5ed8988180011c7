/*
 * compaction.h - which store files to compact: HBase's exploring policy.
 *
 * Files are given oldest first (by max sequence id). A window is 3..10 contiguous
 * files (min_files..max_files). A window is eligible if its total is at most
 * max_size and either its total is at most min_size or every file in it is at most
 * ratio x the sum of the other files in it. The best eligible window has the most
 * files, then the smallest total. If none is eligible and the store is at or past
 * its blocking count, the smallest window of min_files files is taken so writes are
 * not blocked forever.
 * Thread-safety: pure functions.
 */
#ifndef STRATA_REGIONSERVER_COMPACTION_H
#define STRATA_REGIONSERVER_COMPACTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct compaction_policy {
    int min_files;       /* 3 */
    int max_files;       /* 10 */
    double ratio;        /* 1.2 */
    uint64_t min_size;   /* 128 MiB: windows this small skip the ratio test */
    uint64_t max_size;   /* windows larger than this are never chosen */
    int blocking_files;  /* 16 */
} compaction_policy;

/* Chooses a window among n files of the given sizes (oldest first). Returns true and
 * sets [*start, *start + *count) if one is chosen. */
bool compaction_select(const compaction_policy *p, const uint64_t *sizes, size_t n,
                       size_t *start, size_t *count);

#endif
