/*
 * scratch.h - a bump allocator for the short-lived memory of one call: a decoded request,
 * the pieces of its answer. Everything is released at once by scratch_free().
 *
 * The first block (SCRATCH_BLOCK bytes) is kept by the thread that frees it (up to four
 * per thread, as scratches nest) and handed to that thread's next scratch, so a call
 * whose scratches fit in their first blocks makes no malloc at all; larger
 * needs take further blocks, each twice the last (or the request's size), freed with the
 * scratch. Allocations are 16-byte aligned.
 *
 * A zeroed scratch_t is an empty one (`scratch_t s = {0};`). Thread-safety: a scratch has
 * one owner at a time; it may be freed on another thread than the one that filled it.
 */
#ifndef STRATA_COMMON_SCRATCH_H
#define STRATA_COMMON_SCRATCH_H

#include <stddef.h>

#include <protobuf-c/protobuf-c.h>

#define SCRATCH_BLOCK 8192

typedef struct scratch_block scratch_block;

typedef struct scratch_t {
    scratch_block *head; /* newest block; its `used` is where the next allocation goes */
    size_t bytes;        /* handed out, for tests and accounting */
} scratch_t;

/* n zeroed bytes (n = 0 gives a valid unique pointer), or NULL if out of memory. */
void *scratch_alloc(scratch_t *s, size_t n);
/* The same without the zeroing. */
void *scratch_alloc_raw(scratch_t *s, size_t n);
/* Releases everything; s is empty again and may be reused. */
void scratch_free(scratch_t *s);
/* A protobuf-c allocator over s: unpack with it and the message lives until
 * scratch_free(s); its free is a no-op (never call free_unpacked with another). */
ProtobufCAllocator scratch_protobuf_allocator(scratch_t *s);

#endif
