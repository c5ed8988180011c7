/*
 * column_request.h - the columns a scan asked for, sorted the way cells are, so the
 * scanner can seek straight to the next wanted family or qualifier (HBase's
 * ExplicitColumnTracker hints, and skipping families that were not asked for).
 *
 * Built once from scan_spec.columns: entries of one family are merged; a family named
 * without a qualifier anywhere is wanted whole. No entries means every family.
 * Thread-safety: immutable after column_request_build.
 */
#ifndef STRATA_REGIONSERVER_COLUMN_REQUEST_H
#define STRATA_REGIONSERVER_COLUMN_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "regionserver/storage/scanner.h"

typedef struct column_bytes {
    uint8_t *p;
    size_t len;
} column_bytes;

typedef struct column_family_req {
    column_bytes name;
    bool whole;          /* every qualifier */
    column_bytes *quals; /* sorted, unique; only when !whole */
    size_t nquals;
} column_family_req;

typedef struct column_request {
    column_family_req *fams; /* sorted by name, unique */
    size_t nfams;            /* 0: every family */
} column_request;

/* Builds r from cols (copied). ST_OK, ST_NOMEM or ST_INVALID_ARGUMENT (empty family). */
int column_request_build(column_request *r, const scan_column *cols, size_t n);
void column_request_free(column_request *r);
/* The entry for family fam, or NULL (also NULL when every family is wanted). */
const column_family_req *column_request_find(const column_request *r, const uint8_t *fam,
                                             size_t len);
/* The first wanted family sorting after fam, or NULL. */
const column_family_req *column_request_next_family(const column_request *r, const uint8_t *fam,
                                                    size_t len);
/* Index of the first qualifier of f that sorts at or after q, from index `from` on;
 * f->nquals if none. */
size_t column_request_seek_qual(const column_family_req *f, size_t from, const uint8_t *q,
                                size_t len);
/* Byte-string order of cells (memcmp, then shorter first). */
int column_bytes_compare(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);

#endif
