/*
 * delete_tracker.h - the delete markers seen so far in one family of one row, and
 * whether they mask a put (HBase's ScanDeleteTracker rules).
 *
 * Cells arrive in cell_compare() order, so within a column every marker that can mask a
 * put is seen before it: markers sort before puts of the same timestamp and a column's
 * cells run newest first. The tracker keeps
 *   family scope  the newest DeleteFamily timestamp (masks ts <= it) and the set of
 *                 DeleteFamilyVersion timestamps (mask ts == it), for the whole family;
 *   column scope  the most general marker of the current column: DeleteColumn (masks the
 *                 rest of the column) or Delete (masks its exact timestamp).
 * The scanner resets the family scope when the family (or row) changes and the column
 * scope when the column changes. Thread-safety: none; owned by one scanner.
 */
#ifndef STRATA_REGIONSERVER_DELETE_TRACKER_H
#define STRATA_REGIONSERVER_DELETE_TRACKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum delete_result {
    DELETE_NONE = 0,    /* not masked */
    DELETE_VERSION = 1, /* this version is masked (Delete, DeleteFamilyVersion) */
    DELETE_COLUMN = 2,  /* this and every older version of the column are masked */
} delete_result;

typedef struct delete_tracker {
    bool has_family;
    int64_t family_ts;
    int64_t *version_ts; /* DeleteFamilyVersion stamps */
    size_t nversion;
    size_t version_cap;
    bool has_column;
    uint8_t column_type; /* CELL_TYPE_DELETE or CELL_TYPE_DELETE_COLUMN */
    int64_t column_ts;
} delete_tracker;

void delete_tracker_init(delete_tracker *d);
void delete_tracker_free(delete_tracker *d);
/* Forgets everything (a new family or row). Keeps memory. */
void delete_tracker_reset_family(delete_tracker *d);
/* Forgets the column-scope marker (a new column). */
void delete_tracker_reset_column(delete_tracker *d);
/* Records a marker of the given type and timestamp. ST_OK or ST_NOMEM. */
int delete_tracker_add(delete_tracker *d, uint8_t type, int64_t ts);
/* Whether a put at ts in the current column is masked. */
delete_result delete_tracker_check(delete_tracker *d, int64_t ts);
/* True when no marker is held (a fast path for the common case). */
static inline bool delete_tracker_empty(const delete_tracker *d)
{
    return !d->has_family && d->nversion == 0 && !d->has_column;
}

#endif
