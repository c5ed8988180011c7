/*
 * arena.c - thread-safe bump allocator for memstore cells.
 *
 * Memory comes from a singly linked list of blocks. The current block is published
 * through an atomic pointer and each block's fill level is an atomic counter, so the
 * common case is one atomic fetch-add with no lock. When a request does not fit, the
 * thread takes the arena mutex, installs a fresh block (unless another thread already
 * did) and retries. Requests larger than block_size/4 get a block of their own and
 * leave the current block in place, so a large cell wastes no space.
 *
 * Invariants: every block is linked into `blocks` (under `lock`) before it becomes
 * reachable through `current`; a block is never freed before arena_free(), which must
 * not race with arena_alloc(). Offsets are multiples of 8 and block data is 8-aligned,
 * so every returned pointer is 8-aligned.
 * Thread-safety: arena_alloc() and arena_memory_usage() from any thread.
 * Lock order: `lock` is a leaf lock (held only to link a block and install `current`).
 */
#include "common/arena.h"

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define ARENA_ALIGN 8
#define ARENA_HUGE_PAGE (2u * 1024 * 1024)
#define ARENA_DEFAULT_BLOCK (64 * 1024)

typedef struct arena_block {
    struct arena_block *next;
    size_t size;
    bool mapped; /* a huge-page block from map_huge(), released with munmap */
    _Atomic size_t used;
    alignas(16) unsigned char data[];
} arena_block;

struct arena {
    size_t block_size;
    size_t huge_after; /* 0: never; else usage from which blocks are huge pages */
    _Atomic(arena_block *) current;
    _Atomic size_t usage;
    pthread_mutex_t lock; /* guards `blocks` and the replacement of `current` */
    arena_block *blocks;
};

/* A 2 MiB mapping aligned to 2 MiB, advised for huge pages; NULL if none. */
static void *map_huge(void)
{
    size_t span = 2 * (size_t)ARENA_HUGE_PAGE;
    uint8_t *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    uintptr_t at = ((uintptr_t)p + ARENA_HUGE_PAGE - 1) & ~(uintptr_t)(ARENA_HUGE_PAGE - 1);
    size_t head = at - (uintptr_t)p;
    if (head)
        munmap(p, head);
    if (span - head > ARENA_HUGE_PAGE)
        munmap((uint8_t *)at + ARENA_HUGE_PAGE, span - head - ARENA_HUGE_PAGE);
    (void)madvise((void *)at, ARENA_HUGE_PAGE, MADV_HUGEPAGE);
    return (void *)at;
}

/* Allocates a block of `size` data bytes and links it in; the caller holds a->lock. */
static arena_block *block_new_locked(arena *a, size_t size)
{
    arena_block *b = NULL;
    size_t usage = atomic_load_explicit(&a->usage, memory_order_relaxed);
    if (a->huge_after && usage >= a->huge_after && size == a->block_size) {
        /* One 2 MiB page-aligned block the kernel may back with a huge page: random
         * searches over a large memstore then miss the TLB far less. */
        if ((b = map_huge()) != NULL) {
            b->mapped = true;
            size = ARENA_HUGE_PAGE - sizeof(*b);
        }
    }
    if (!b && (b = malloc(sizeof(*b) + size)) != NULL)
        b->mapped = false;
    if (!b)
        return NULL;
    b->size = size;
    atomic_init(&b->used, 0);
    b->next = a->blocks;
    a->blocks = b;
    atomic_fetch_add_explicit(&a->usage, sizeof(*b) + size, memory_order_relaxed);
    return b;
}

arena *arena_new(size_t block_size)
{
    arena *a = calloc(1, sizeof(*a));
    if (!a)
        return NULL;
    if (block_size < 64)
        block_size = block_size ? 64 : ARENA_DEFAULT_BLOCK;
    a->block_size = (block_size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    atomic_init(&a->current, NULL);
    atomic_init(&a->usage, 0);
    pthread_mutex_init(&a->lock, NULL);
    return a;
}

void arena_use_huge_pages(arena *a, size_t after)
{
    a->huge_after = after;
}

/* Bumps b's fill level by n; returns the memory or NULL if b is full. */
static void *block_take(arena_block *b, size_t n)
{
    if (!b)
        return NULL;
    size_t off = atomic_fetch_add_explicit(&b->used, n, memory_order_relaxed);
    if (off > b->size || b->size - off < n)
        return NULL;
    return b->data + off;
}

/* Slow path: installs a new current block unless another thread already has. */
static void *alloc_refill(arena *a, arena_block *seen, size_t n)
{
    void *p = NULL;
    pthread_mutex_lock(&a->lock);
    arena_block *cur = atomic_load_explicit(&a->current, memory_order_acquire);
    if (cur != seen)
        p = block_take(cur, n);
    if (!p) {
        arena_block *b = block_new_locked(a, a->block_size);
        if (b) {
            p = block_take(b, n);
            atomic_store_explicit(&a->current, b, memory_order_release);
        }
    }
    pthread_mutex_unlock(&a->lock);
    return p;
}

void *arena_alloc(arena *a, size_t n)
{
    if (n > SIZE_MAX - 2 * ARENA_ALIGN)
        return NULL;
    n = n ? (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1) : ARENA_ALIGN;
    if (n > a->block_size / 4) {
        pthread_mutex_lock(&a->lock);
        arena_block *b = block_new_locked(a, n);
        pthread_mutex_unlock(&a->lock);
        return b ? b->data : NULL;
    }
    arena_block *cur = atomic_load_explicit(&a->current, memory_order_acquire);
    void *p = block_take(cur, n);
    return p ? p : alloc_refill(a, cur, n);
}

size_t arena_memory_usage(const arena *a)
{
    return atomic_load_explicit(&((arena *)a)->usage, memory_order_relaxed);
}

void arena_free(arena *a)
{
    if (!a)
        return;
    arena_block *b = a->blocks;
    while (b) {
        arena_block *next = b->next;
        if (b->mapped)
            munmap(b, ARENA_HUGE_PAGE);
        else
            free(b);
        b = next;
    }
    pthread_mutex_destroy(&a->lock);
    free(a);
}
