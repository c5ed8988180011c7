/*
 * testutil.h - helpers shared by Strata's tests: private temp directories, and a
 * one-family or two-family region on a fresh engine.
 */
#ifndef STRATA_TESTS_TESTUTIL_H
#define STRATA_TESTS_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "regionserver/storage/engine.h"
#include "regionserver/storage/region.h"

/* mkdtemp under $TMPDIR or /tmp; the caller frees and removes it with tu_rmdir. */
char *tu_tempdir(const char *tag);
void tu_rmdir(char *dir);

/* A table "default:t" with the given families (comma separated, e.g. "a,b"), every
 * family at the defaults, durability SYNC_WAL. */
void tu_schema(table_schema *t, const char *families);
/* region_info for the whole key space, encoded name "r1". */
region_info tu_whole_region(void);

/* A cell of the given column (C strings), timestamp and type; row unset. */
cell_t tu_cell(const char *fam, const char *qual, const char *value, int64_t ts, uint8_t type);
/* Puts one cell (family, qualifier, value as C strings); asserts on failure. */
int tu_put(region *r, const char *row, const char *fam, const char *qual, const char *value,
           int64_t ts);
/* Gets the newest value of row/fam:qual into buf (NUL-terminated); returns 1 if found,
 * 0 if absent, negative on error. */
int tu_get(region *r, const char *row, const char *fam, const char *qual, char *buf,
           size_t cap);

#endif
