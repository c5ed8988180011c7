/*
 * vec_iter.h - test fixture: a kv_iter over an array of cells.
 *
 * vec_iter_new() deep-copies the cells (the caller's memory may go away) and sorts them
 * with cell_compare(). Faults can be injected: after `moves` more positioning calls the
 * iterator turns invalid with status `code`, as a store file hitting corruption would.
 * Thread-safety: none.
 */
#ifndef STRATA_TESTS_VEC_ITER_H
#define STRATA_TESTS_VEC_ITER_H

#include <stddef.h>

#include "common/cell.h"
#include "regionserver/storage/kv_iter.h"

/* NULL when out of memory. */
kv_iter *vec_iter_new(const cell_t *cells, size_t n);
/* After `moves` further seek/next calls succeed, the next one fails with `code`. */
void vec_iter_fail_after(kv_iter *it, int moves, int code);
/* Number of positioning calls (seek, seek_for_prev, seek_to_first, next) so far. */
size_t vec_iter_moves(const kv_iter *it);
/* Number of seek/seek_for_prev/seek_to_first calls so far. */
size_t vec_iter_seeks(const kv_iter *it);

#endif
