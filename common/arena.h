/*
 * arena.h - a bump allocator for memstore cells.
 *
 * Memory comes from blocks of `block_size` bytes (larger requests get a block of
 * their own) and is released all at once by arena_free(). Allocations are 8-byte
 * aligned. Thread-safety: arena_alloc() may be called from many threads at once.
 */
#ifndef STRATA_COMMON_ARENA_H
#define STRATA_COMMON_ARENA_H

#include <stddef.h>

typedef struct arena arena;

/* Returns NULL if out of memory. */
arena *arena_new(size_t block_size);
/* From the time the arena holds `after` bytes (> 0), its ordinary blocks are 2 MiB,
 * aligned and madvise(MADV_HUGEPAGE)d, so large arenas use huge pages where the kernel
 * allows them. Call before the first arena_alloc(). */
void arena_use_huge_pages(arena *a, size_t after);
/* Returns n bytes of 8-byte aligned memory, or NULL if out of memory. */
void *arena_alloc(arena *a, size_t n);
/* Bytes reserved from the system (blocks), for memory accounting. */
size_t arena_memory_usage(const arena *a);
void arena_free(arena *a);

#endif
