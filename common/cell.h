/*
 * cell.h - the cell (one version of one column) and Strata's one comparator.
 *
 * Sort order (DESIGN.md §1, the same in memstore, store files, scanners, meta):
 *   row ascending (unsigned bytes), family ascending, qualifier ascending,
 *   timestamp DESCENDING, type DESCENDING, sequence id DESCENDING.
 *
 * The encoded form is specified in docs/formats/cell.md; the type codes below are
 * on-disk constants and are never renumbered.
 *
 * A cell_t is a view: its pointers borrow memory owned by someone else (a block,
 * a memstore arena, a WAL buffer). Thread-safety: pure functions.
 */
#ifndef STRATA_COMMON_CELL_H
#define STRATA_COMMON_CELL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/bytes.h"

/* Cell types (docs/formats/cell.md). Never renumber. */
enum {
    CELL_TYPE_MINIMUM = 0, /* seek keys only: sorts after every real type */
    CELL_TYPE_PUT = 4,
    CELL_TYPE_DELETE = 8,                /* one version, exact timestamp */
    CELL_TYPE_DELETE_FAMILY_VERSION = 10, /* all columns of the family at exactly ts */
    CELL_TYPE_DELETE_COLUMN = 12,        /* all versions of a column with ts' <= ts */
    CELL_TYPE_DELETE_FAMILY = 14,        /* all columns of the family with ts' <= ts */
    CELL_TYPE_MAXIMUM = 255,             /* seek keys only: sorts before every real type */
};

#define CELL_LATEST_TIMESTAMP INT64_MAX /* "server assigns the timestamp" */
#define CELL_MAX_ROW_LEN 32767
#define CELL_MAX_FAMILY_LEN 255

typedef struct cell {
    const uint8_t *row;
    const uint8_t *family;
    const uint8_t *qualifier;
    const uint8_t *value;
    uint32_t row_len;
    uint32_t family_len;
    uint32_t qualifier_len;
    uint32_t value_len;
    int64_t ts;
    uint64_t seq;
    uint8_t type;
} cell_t;

/* Full comparator: <0, 0, >0. */
int cell_compare(const cell_t *a, const cell_t *b);
/* Compares rows only. */
int cell_compare_rows(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen);
/* Compares row, family and qualifier (not timestamp/type/seq). */
int cell_compare_column(const cell_t *a, const cell_t *b);
bool cell_same_row(const cell_t *a, const cell_t *b);
bool cell_same_family(const cell_t *a, const cell_t *b);
bool cell_is_delete(uint8_t type);

/* Seek keys: synthetic cells that sort before (first) / after (last) every real cell
 * of a row or column. */
cell_t cell_first_on_row(const uint8_t *row, size_t row_len);
cell_t cell_first_on_column(const uint8_t *row, size_t row_len, const uint8_t *fam,
                            size_t fam_len, const uint8_t *qual, size_t qual_len);
cell_t cell_last_on_column(const uint8_t *row, size_t row_len, const uint8_t *fam,
                           size_t fam_len, const uint8_t *qual, size_t qual_len);

/* Key length as encoded: 2 + row + 1 + family + qualifier + 8 + 1. */
size_t cell_key_len(const cell_t *c);
/* Total encoded size (docs/formats/cell.md): 4 + 4 + key + value + 8. */
size_t cell_encoded_len(const cell_t *c);
/* Encodes c into dst (cell_encoded_len(c) bytes); returns bytes written. */
size_t cell_encode(const cell_t *c, uint8_t *dst);
/* Decodes one cell from [src, src+n) as a view into src. Returns ST_OK and sets *used,
 * or ST_CORRUPTION if the bytes do not hold a well-formed cell (lengths out of range). */
int cell_decode(const uint8_t *src, size_t n, cell_t *out, size_t *used);
/* Points out's row, family, qualifier, ts and type into a cell key (the key_len bytes
 * after the two length words: row_len, row, family_len, family, qualifier, ts, type)
 * whose lengths are known to be consistent; value and seq are left alone. */
static inline void cell_key_view(const uint8_t *k, uint32_t klen, cell_t *out)
{
    uint32_t rlen = be16_get(k);
    uint32_t flen = k[2 + rlen];
    out->row = k + 2;
    out->row_len = rlen;
    out->family = k + 3 + rlen;
    out->family_len = flen;
    out->qualifier = out->family + flen;
    out->qualifier_len = klen - (2 + rlen + 1 + flen + 9);
    const uint8_t *t = k + klen - 9;
    out->ts = (int64_t)be64_get(t);
    out->type = t[8];
}

/* Checks the limits a stored cell must respect (row 1..32767 bytes, family 1..255). */
int cell_validate(const cell_t *c);

/* Writes a printable form "row/fam:qual/ts/Type/seq" with bytes escaped as \xNN. */
void cell_format(const cell_t *c, char *out, size_t out_len);
const char *cell_type_name(uint8_t type);

#endif
