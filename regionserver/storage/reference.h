/*
 * reference.h - reference files: a record in a region's family directory standing for
 * the bottom or top half of a store file of another region (split daughters) or for
 * the whole of it (a merged region), so splits and merges copy no data (HBase's
 * Reference).
 *
 * Format (docs/formats/reference.md): magic, version, range, split row, CRC32C; the
 * name is "<store file>.<parent encoded name>" and the referenced file lives at
 * "<table dir>/<parent>/<family>/<store file>", derived from the reference's own path.
 * BOTTOM holds the rows < split row, TOP the rows >= split row (an empty split row
 * with TOP is the whole file). A store opens a reference with storefile_open_reference
 * (storefile.h); region_fs.h writes them for splits and merges.
 *
 * Functions returning a status set their outputs only on success (NULL / empty on
 * failure) and record a message naming the file or name involved.
 * Thread-safety: pure functions, apart from the file I/O of reference_write/read.
 */
#ifndef STRATA_REGIONSERVER_REFERENCE_H
#define STRATA_REGIONSERVER_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/* On-disk constants (docs/formats/reference.md). Never renumber. */
#define REFERENCE_MAGIC "STRATARF"
#define REFERENCE_MAGIC_LEN 8
#define REFERENCE_VERSION 1u
#define REFERENCE_HEADER_LEN 20 /* magic, version, range, reserved, split_len */
#define REFERENCE_CRC_LEN 4
#define REFERENCE_MAX_SPLIT_LEN 32767 /* CELL_MAX_ROW_LEN */

typedef enum reference_range {
    REFERENCE_BOTTOM = 1, /* rows < split row */
    REFERENCE_TOP = 2,    /* rows >= split row */
} reference_range;

/* A decoded reference; split_row is owned (free with reference_free). */
typedef struct reference {
    reference_range range;
    buf_t split_row;
} reference;

/* "BOTTOM" / "TOP" ("?" for anything else). */
const char *reference_range_name(reference_range range);

/* Appends the record of (range, split row) to out. ST_INVALID_ARGUMENT for an unknown
 * range, a split row longer than REFERENCE_MAX_SPLIT_LEN, or BOTTOM with an empty
 * split row (it would present nothing); ST_NOMEM. */
int reference_encode(reference_range range, const uint8_t *split_row, size_t split_len, buf_t *out);
/* Decodes the n bytes of a reference file; `path` only names it in messages.
 * ST_CORRUPTION (naming path: torn, bad magic, lengths, checksum, range),
 * ST_UNSUPPORTED for an unknown version with a valid checksum, ST_NOMEM. out must be
 * zeroed or freed; it is left empty on failure. */
int reference_decode(const char *path, const uint8_t *p, size_t n, reference *out);
void reference_free(reference *r);

/* Writes the reference durably at path: <path>.tmp, fsync, rename, directory fsync. An
 * existing reference (or leftover .tmp) at path is replaced. */
int reference_write(const char *path, reference_range range, const uint8_t *split_row,
                    size_t split_len);
/* Reads and decodes the reference at path (reference_decode's errors, or the file
 * layer's, e.g. ST_NOT_FOUND). */
int reference_read(const char *path, reference *out);

/* "<file>.<parent>" into *out (malloc'ed). ST_INVALID_ARGUMENT naming both if file is
 * empty or holds '.' or '/', or parent is not a valid encoded region name. */
int reference_name(const char *file, const char *parent, char **out);
/* Whether a name listed in a family directory is a reference: a non-empty store-file
 * part without '.', a '.', then a valid encoded region name, and not a *.tmp name. */
bool reference_is_name(const char *name);
/* Splits a reference name into its store-file and parent parts (each malloc'ed).
 * ST_INVALID_ARGUMENT if reference_is_name(name) is false. */
int reference_parse_name(const char *name, char **file, char **parent);
/* The referenced store file of the reference at ref_path:
 * "<dir of dir of dir of ref_path>/<parent>/<family>/<file>" (malloc'ed).
 * ST_INVALID_ARGUMENT naming ref_path if its name is not a reference name or the path
 * has fewer than three directories above the file. */
int reference_target_path(const char *ref_path, char **out);

#endif
