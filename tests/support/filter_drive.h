/*
 * filter_drive.h - test helper: drives a filter over hand-built rows the way the scanner
 * does (filter.h protocol) and renders what survives as text, for test_filter and
 * test_filter_parse. Thread-safety: none needed (tests are single-threaded).
 */
#ifndef STRATA_TESTS_FILTER_DRIVE_H
#define STRATA_TESTS_FILTER_DRIVE_H

#include <stddef.h>
#include <stdint.h>

#include "common/cell.h"
#include "regionserver/storage/filter.h"

/* One input cell; rows must be given in cell order (row, family, qualifier, ts desc). */
typedef struct tcell {
    const char *row;
    const char *fam;
    const char *qual;
    int64_t ts;
    const char *val;
} tcell;

cell_t filter_drive_cell(const tcell *t);

/* Scans cells through f: before each row filter_all_remaining (true ends the scan),
 * filter_reset, filter_row_key, filter_cell per cell honouring SKIP / NEXT_COL /
 * NEXT_ROW, filter_transform_cell on included cells, then filter_row on the kept cells.
 * Writes the kept rows to out as "row/fam:qual=value,..." with rows separated by
 * " " (non-printable value bytes as \xNN), "" if nothing is kept. Returns the number of
 * rows for which filter_row_key was called. */
int filter_drive_scan(filter *f, const tcell *cells, size_t n, char *out, size_t out_len);

#endif
