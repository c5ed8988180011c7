/*
 * delete_tracker.c - delete-marker bookkeeping for one family of one row
 * (delete_tracker.h). Thread-safety: none.
 */
#include "regionserver/storage/delete_tracker.h"

#include <stdlib.h>
#include <string.h>

#include "common/cell.h"
#include "common/status.h"

void delete_tracker_init(delete_tracker *d)
{
    memset(d, 0, sizeof(*d));
}

void delete_tracker_free(delete_tracker *d)
{
    free(d->version_ts);
    delete_tracker_init(d);
}

void delete_tracker_reset_family(delete_tracker *d)
{
    d->has_family = false;
    d->nversion = 0;
    d->has_column = false;
}

void delete_tracker_reset_column(delete_tracker *d)
{
    d->has_column = false;
}

static int add_version(delete_tracker *d, int64_t ts)
{
    for (size_t i = 0; i < d->nversion; i++)
        if (d->version_ts[i] == ts)
            return ST_OK;
    if (d->nversion == d->version_cap) {
        size_t cap = d->version_cap ? d->version_cap * 2 : 8;
        int64_t *p = realloc(d->version_ts, cap * sizeof(*p));
        if (!p)
            return st_error(ST_NOMEM, "delete tracker: no memory for %zu stamps", cap);
        d->version_ts = p;
        d->version_cap = cap;
    }
    d->version_ts[d->nversion++] = ts;
    return ST_OK;
}

int delete_tracker_add(delete_tracker *d, uint8_t type, int64_t ts)
{
    if (d->has_family && ts <= d->family_ts)
        return ST_OK; /* already covered by a newer DeleteFamily */
    switch (type) {
    case CELL_TYPE_DELETE_FAMILY:
        d->has_family = true;
        d->family_ts = ts;
        return ST_OK;
    case CELL_TYPE_DELETE_FAMILY_VERSION:
        return add_version(d, ts);
    case CELL_TYPE_DELETE:
    case CELL_TYPE_DELETE_COLUMN:
        /* a DeleteColumn already held covers any later (older) marker of the column */
        if (d->has_column && type < d->column_type)
            return ST_OK;
        d->has_column = true;
        d->column_type = type;
        d->column_ts = ts;
        return ST_OK;
    default:
        return ST_OK;
    }
}

delete_result delete_tracker_check(delete_tracker *d, int64_t ts)
{
    if (d->has_family && ts <= d->family_ts)
        return DELETE_COLUMN;
    for (size_t i = 0; i < d->nversion; i++)
        if (d->version_ts[i] == ts)
            return DELETE_VERSION;
    if (!d->has_column)
        return DELETE_NONE;
    if (d->column_type == CELL_TYPE_DELETE_COLUMN)
        return ts <= d->column_ts ? DELETE_COLUMN : DELETE_NONE;
    if (ts == d->column_ts)
        return DELETE_VERSION;
    if (ts < d->column_ts)
        d->has_column = false; /* puts only get older: this Delete can match no more */
    return DELETE_NONE;
}
