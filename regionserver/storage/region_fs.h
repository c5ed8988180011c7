/*
 * region_fs.h - regions as directories under the root, for the master's split and
 * merge procedures and the catalog janitor: creating a split's daughters and a merge's
 * region out of reference files (docs/formats/reference.md), removing a region's
 * directory, and asking whether a region still references another's files.
 *
 * The regions given as parents must be closed (flushed: their edits are in store
 * files) and stay closed meanwhile; the regions created are opened afterwards with
 * region_open, whose stores read the references, and whose first compactions rewrite
 * them into real files. Nothing here touches a parent's files.
 *
 * Crash safety: each reference is written atomically and every directory created is
 * fsynced before a function returns ST_OK; running a split or merge again with the same
 * arguments after a crash part-way (or after a failure) writes the same references
 * again (replacing those already there, and any leftover .tmp), so the result is the
 * same as one uninterrupted run. A failed run may leave some references behind: the
 * caller runs it again or removes the created regions with region_fs_remove.
 *
 * Errors name the region (and the file) involved; ST_INVALID_ARGUMENT for bad names or
 * rows, for a parent that still holds references (a reference never points at a
 * reference) and for one with recovered edits not replayed yet (they are in no store
 * file: open and close it first); ST_NOT_FOUND for a parent without a directory.
 * Thread-safety: safe from any thread; callers keep one procedure per region at a time.
 */
#ifndef STRATA_REGIONSERVER_REGION_FS_H
#define STRATA_REGIONSERVER_REGION_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "regionserver/storage/blockcache.h"
#include "regionserver/storage/schema.h"

/* Creates daughters A (rows < split_row) and B (rows >= split_row) of parent: their
 * region and family directories, and for every family and every store file of the
 * parent with cells a BOTTOM reference in A and a TOP reference in B, except into a
 * daughter whose half of the file is empty (split row <= the file's first row: only
 * B's; split row > its last row: only A's). split_len must be 1..32767; comparing the
 * split row with the parent's start and end keys is the caller's. The parent's files
 * are opened (cache may be NULL) to read their first and last rows. */
int region_fs_split(const char *root, const table_schema *schema, const char *parent_encoded,
                    const char *daughter_a_encoded, const char *daughter_b_encoded,
                    const uint8_t *split_row, size_t split_len, blockcache *cache);

/* Creates region merged_encoded from n >= 2 distinct parents: for every parent, family
 * and store file with cells, a TOP reference with an empty split row (the whole file;
 * a parent's files hold only its own rows). Adjacency of the parents is the caller's.
 * The files are opened (cache may be NULL) to check them and skip empty ones. */
int region_fs_merge(const char *root, const table_schema *schema,
                    const char *const *parents_encoded, size_t n, const char *merged_encoded,
                    blockcache *cache);

/* Removes the region's directory and everything in it (rollback of a split or merge,
 * the janitor's removal of a parent). A missing directory is not an error. */
int region_fs_remove(const char *root, const char *table, const char *encoded);

/* Sets *referenced to whether region `encoded` holds a reference (or one being
 * written, *.tmp) to a file of region `parent_encoded` in any family of schema. A
 * missing region or family directory holds none. */
int region_fs_references(const char *root, const table_schema *schema, const char *encoded,
                         const char *parent_encoded, bool *referenced);

#endif
