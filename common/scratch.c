/*
 * scratch.c - the per-call bump allocator (see scratch.h).
 * Thread-safety: each thread's spare first blocks are its value of a pthread key (freed by
 * the key's destructor when the thread ends); nothing is shared.
 */
#include "common/scratch.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct scratch_block {
    scratch_block *next; /* older blocks */
    size_t size;         /* usable bytes after the header */
    size_t used;
    _Alignas(16) unsigned char data[];
};

/* Each thread's recycled first-size blocks: a few, as scratches nest (a call's request
 * and its answer's pool). Kept as the value of a pthread key, freed at thread exit. */
#define SCRATCH_SPARES 4

typedef struct spare_set {
    int n;
    scratch_block *b[SCRATCH_SPARES];
} spare_set;

static pthread_key_t spare_key;
static pthread_once_t spare_once = PTHREAD_ONCE_INIT;
static int spare_ok; /* the key exists */

static void spare_set_free(void *p)
{
    spare_set *set = p;
    for (int i = 0; i < set->n; i++)
        free(set->b[i]);
    free(set);
}

static void spare_key_make(void)
{
    spare_ok = pthread_key_create(&spare_key, spare_set_free) == 0;
}

/* This thread's set, made on first use; NULL if it cannot be. */
static spare_set *spares(void)
{
    pthread_once(&spare_once, spare_key_make);
    if (!spare_ok)
        return NULL;
    spare_set *set = pthread_getspecific(spare_key);
    if (!set && (set = calloc(1, sizeof(*set))) && pthread_setspecific(spare_key, set) != 0) {
        free(set);
        set = NULL;
    }
    return set;
}

static scratch_block *spare_take(void)
{
    spare_set *set = spares();
    return set && set->n > 0 ? set->b[--set->n] : NULL;
}

/* Keeps b as one of this thread's spares; false if there is no room. */
static int spare_keep(scratch_block *b)
{
    spare_set *set = spares();
    if (!set || set->n == SCRATCH_SPARES)
        return 0;
    set->b[set->n++] = b;
    return 1;
}

static scratch_block *block_new(size_t size)
{
    scratch_block *b = size == SCRATCH_BLOCK ? spare_take() : NULL;
    if (!b) {
        if (size > SIZE_MAX - sizeof(*b))
            return NULL;
        b = malloc(sizeof(*b) + size);
        if (!b)
            return NULL;
        b->size = size;
    }
    b->used = 0;
    b->next = NULL;
    return b;
}

void *scratch_alloc_raw(scratch_t *s, size_t n)
{
    size_t need = n ? (n + 15) & ~(size_t)15 : 16;
    if (need < n)
        return NULL; /* overflow */
    scratch_block *b = s->head;
    if (!b || b->size - b->used < need) {
        size_t size = b ? b->size * 2 : SCRATCH_BLOCK;
        if (size < need)
            size = need;
        scratch_block *nb = block_new(size);
        if (!nb)
            return NULL;
        nb->next = b;
        s->head = b = nb;
    }
    void *p = b->data + b->used;
    b->used += need;
    s->bytes += n;
    return p;
}

void *scratch_alloc(scratch_t *s, size_t n)
{
    void *p = scratch_alloc_raw(s, n);
    if (p)
        memset(p, 0, n);
    return p;
}

void scratch_free(scratch_t *s)
{
    scratch_block *b = s->head;
    while (b) {
        scratch_block *next = b->next;
        if (b->size != SCRATCH_BLOCK || !spare_keep(b))
            free(b);
        b = next;
    }
    s->head = NULL;
    s->bytes = 0;
}

static void *pb_alloc(void *data, size_t n)
{
    return scratch_alloc_raw(data, n);
}

static void pb_free(void *data, void *p)
{
    (void)data;
    (void)p; /* released with the scratch */
}

ProtobufCAllocator scratch_protobuf_allocator(scratch_t *s)
{
    return (ProtobufCAllocator){pb_alloc, pb_free, s};
}
