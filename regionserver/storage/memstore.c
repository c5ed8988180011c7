/*
 * memstore.c - one store's in-memory cells: a concurrent skiplist over an arena.
 *
 * The skiplist follows LevelDB's memtable (max height 12, branching factor 4), with
 * RocksDB's InlineSkipList concurrent insert so that writers need no lock:
 *
 *   add(c): pick a random height h, raise max_height to h (CAS), find the splice
 *           (prev[i] < c <= next[i] at every level), return if next[0] == c
 *           (duplicate), allocate the node, then for level 0..h-1:
 *           CAS(prev[i]->next[i], next[i] -> node); on failure re-find the splice
 *           at level i starting from prev[i] (and re-check for a duplicate at 0).
 *
 * A node is one arena allocation holding its tower of links and the cell encoded
 * with cell_encode() (docs/formats/cell.md), laid out as in RocksDB's InlineSkipList
 * so that the level-0 link and the start of the row share a cache line:
 *
 *   [link h-1] ... [link 1] [link 0] [seq u64] [encoded cell: klen vlen rowlen row ...]
 *                           ^ node address
 *
 * The sequence id is kept beside link 0 as well as in the cell (where it follows the
 * value), so the read-point check of an iterator touches no other cache line.
 *
 * A search compares the row straight from the encoded bytes and decodes the rest
 * only when the rows are equal. The cell is written before the node is published
 * by a release CAS; readers follow links with acquire loads, so a reader that
 * reaches a node sees it whole. Nodes are never removed or changed after
 * publication; the arena frees them all with the memstore.
 *
 * Row bloom: a blocked bloom filter over the rows added (one 64-bit word per row, four
 * bits set in it from the row's MurmurHash64A), sized from the flush size it was made
 * for (memstore_new_sized). An add sets its row's bits before the node is published, so
 * a reader whose read point covers the cell (taken after the writer's MVCC release) or
 * that can see the node sees the bits; a Get of a row whose bits are not all set skips
 * this memstore. The bitmap is calloc'd (untouched pages cost no memory) and is not
 * counted in memstore_size().
 *
 * Statistics (count, size, max seq, min/max ts) are relaxed atomics updated after
 * a node is linked. Reference counting: the owner and every iterator hold one
 * reference; the last memstore_unref() frees the arena.
 * Thread-safety: every function is safe from any thread; no locks are taken.
 */
#include "regionserver/storage/memstore.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/bytes.h"
#include "common/log.h"
#include "common/status.h"
#include "regionserver/storage/bloom.h"

#define MS_MAX_HEIGHT 12
#define MS_BRANCHING 4
#define MS_ARENA_BLOCK (256 * 1024)
#define MS_HUGE_AFTER (4u * 1024 * 1024) /* a memstore this big gets huge-page blocks */

/* A node's address is that of its level-0 link; see the layout above. */
typedef struct ms_node ms_node;
typedef _Atomic(ms_node *) ms_link;

struct memstore {
    arena *arena;
    _Atomic uint64_t *row_bloom; /* row_bloom_mask + 1 words, a power of two */
    uint64_t row_bloom_mask;
    ms_node *head; /* sentinel: MS_MAX_HEIGHT links and no cell */
    atomic_int max_height;
    atomic_uint refs;
    atomic_size_t size;
    atomic_uint_fast64_t count;
    atomic_uint_fast64_t max_seq;
    _Atomic int64_t min_ts;
    _Atomic int64_t max_ts;
};

typedef struct ms_iter {
    kv_iter base;
    memstore *m;
    uint64_t read_point;
    ms_node *cur;
    cell_t cell; /* cur decoded */
} ms_iter;

static inline ms_link *link_at(ms_node *x, int level)
{
    return (ms_link *)x - level;
}

static inline ms_node *next_at(ms_node *x, int level)
{
    return atomic_load_explicit(link_at(x, level), memory_order_acquire);
}

#define MS_SEQ_LEN sizeof(uint64_t)

static inline const uint8_t *node_bytes(const ms_node *x)
{
    return (const uint8_t *)x + sizeof(ms_link) + MS_SEQ_LEN;
}

static inline uint64_t node_seq(const ms_node *x)
{
    uint64_t seq;
    memcpy(&seq, (const uint8_t *)x + sizeof(ms_link), sizeof(seq));
    return seq;
}

/* Decodes x's cell; the bytes were written by cell_encode, so they always decode. */
static inline void node_cell(const ms_node *x, cell_t *out)
{
    size_t used;
    (void)cell_decode(node_bytes(x), SIZE_MAX, out, &used);
}

/* cell_compare(x's cell, key), reading the row without decoding the cell. */
static inline int node_compare(const ms_node *x, const cell_t *key)
{
    const uint8_t *p = node_bytes(x);
    int r = cell_compare_rows(p + 10, be16_get(p + 8), key->row, key->row_len);
    if (r)
        return r;
    cell_t c;
    node_cell(x, &c);
    return cell_compare(&c, key);
}

static size_t node_links_size(int height)
{
    return (size_t)height * sizeof(ms_link);
}

static int random_height(void)
{
    static atomic_uint_fast64_t seed_counter = 0x9E3779B97F4A7C15ull;
    static _Thread_local uint64_t state;
    if (state == 0)
        state = atomic_fetch_add_explicit(&seed_counter, 0x9E3779B97F4A7C15ull,
                                          memory_order_relaxed) | 1;
    int h = 1;
    for (;;) {
        state ^= state << 13; /* xorshift64 */
        state ^= state >> 7;
        state ^= state << 17;
        if (h >= MS_MAX_HEIGHT || (state >> 32) % MS_BRANCHING != 0)
            return h;
        h++;
    }
}

size_t memstore_row_bloom_bytes(uint64_t flush_size)
{
    if (flush_size == 0)
        flush_size = MEMSTORE_DEFAULT_FLUSH_SIZE;
    uint64_t want = flush_size / MEMSTORE_ROW_BLOOM_RATIO;
    size_t bytes = MEMSTORE_ROW_BLOOM_MIN;
    while (bytes < want && bytes < MEMSTORE_ROW_BLOOM_MAX)
        bytes *= 2;
    return bytes;
}

/* The word and the four bits of a row hash. */
static uint64_t bloom_bits(uint64_t h)
{
    return (1ull << ((h >> 40) & 63)) | (1ull << ((h >> 46) & 63)) |
           (1ull << ((h >> 52) & 63)) | (1ull << ((h >> 58) & 63));
}

/* The word of the row bloom a row hash falls in. */
static _Atomic uint64_t *bloom_word(memstore *m, uint64_t h)
{
    return &m->row_bloom[h & m->row_bloom_mask];
}

static void row_bloom_set(memstore *m, uint64_t h)
{
    _Atomic uint64_t *w = bloom_word(m, h);
    uint64_t bits = bloom_bits(h);
    if ((atomic_load_explicit(w, memory_order_relaxed) & bits) != bits)
        atomic_fetch_or_explicit(w, bits, memory_order_relaxed);
}

bool memstore_may_contain_row(const memstore *m, const uint8_t *row, size_t len)
{
    uint64_t h = bloom_row_hash(row, len);
    uint64_t bits = bloom_bits(h);
    return (atomic_load_explicit(bloom_word((memstore *)m, h), memory_order_relaxed) & bits) ==
           bits;
}

memstore *memstore_new(void)
{
    return memstore_new_sized(0);
}

memstore *memstore_new_sized(uint64_t flush_size)
{
    memstore *m = calloc(1, sizeof(*m));
    if (!m)
        goto fail;
    size_t bloom_bytes = memstore_row_bloom_bytes(flush_size);
    m->row_bloom = calloc(bloom_bytes / sizeof(uint64_t), sizeof(uint64_t));
    if (!m->row_bloom)
        goto fail;
    m->row_bloom_mask = bloom_bytes / sizeof(uint64_t) - 1;
    m->arena = arena_new(MS_ARENA_BLOCK);
    if (!m->arena)
        goto fail;
    arena_use_huge_pages(m->arena, MS_HUGE_AFTER);
    uint8_t *head = arena_alloc(m->arena, node_links_size(MS_MAX_HEIGHT));
    if (!head)
        goto fail;
    m->head = (ms_node *)(head + node_links_size(MS_MAX_HEIGHT - 1));
    for (int i = 0; i < MS_MAX_HEIGHT; i++)
        atomic_init(link_at(m->head, i), NULL);
    atomic_init(&m->max_height, 1);
    atomic_init(&m->refs, 1);
    atomic_init(&m->size, 0);
    atomic_init(&m->count, 0);
    atomic_init(&m->max_seq, 0);
    atomic_init(&m->min_ts, INT64_MAX);
    atomic_init(&m->max_ts, INT64_MIN);
    return m;
fail:
    LOG_ERROR("memstore: out of memory creating a memstore");
    if (m && m->arena)
        arena_free(m->arena);
    if (m)
        free((void *)m->row_bloom);
    free(m);
    return NULL;
}

void memstore_ref(memstore *m)
{
    atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
}

void memstore_unref(memstore *m)
{
    if (!m)
        return;
    if (atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) != 1)
        return;
    arena_free(m->arena);
    free((void *)m->row_bloom);
    free(m);
}

/* Walks level `level` from `before` (which sorts before key) and sets *prev to the
 * last node < key there and *next to its successor (the first node >= key or NULL). */
static void find_splice_level(const cell_t *key, ms_node *before, int level, ms_node **prev,
                              ms_node **next)
{
    ms_node *x = before;
    ms_node *n = next_at(x, level);
    while (n && node_compare(n, key) < 0) {
        x = n;
        n = next_at(n, level);
    }
    *prev = x;
    *next = n;
}

static void find_splice(memstore *m, const cell_t *key, int top, ms_node **prev, ms_node **next)
{
    ms_node *x = m->head;
    for (int level = top - 1; level >= 0; level--) {
        find_splice_level(key, x, level, &prev[level], &next[level]);
        x = prev[level];
    }
}

static void raise_max_height(memstore *m, int height)
{
    int cur = atomic_load_explicit(&m->max_height, memory_order_relaxed);
    while (height > cur &&
           !atomic_compare_exchange_weak_explicit(&m->max_height, &cur, height,
                                                  memory_order_relaxed, memory_order_relaxed))
        ;
}

static ms_node *node_new(memstore *m, const cell_t *c, int height)
{
    size_t links = node_links_size(height);
    size_t enc = cell_encoded_len(c);
    uint8_t *p = arena_alloc(m->arena, links + MS_SEQ_LEN + enc);
    if (!p)
        return NULL;
    ms_node *x = (ms_node *)(p + links - sizeof(ms_link));
    uint64_t seq = c->seq;
    memcpy(p + links, &seq, sizeof(seq));
    cell_encode(c, p + links + MS_SEQ_LEN);
    atomic_fetch_add_explicit(&m->size, links + MS_SEQ_LEN + enc, memory_order_relaxed);
    return x;
}

/* Links x at every level below height; returns false if level 0 already holds an
 * equal cell (a concurrent duplicate), in which case x is left unlinked. */
static bool link_node(ms_node *x, const cell_t *key, int height, ms_node **prev, ms_node **next)
{
    for (int level = 0; level < height; level++) {
        for (;;) {
            if (level == 0 && next[0] && node_compare(next[0], key) == 0)
                return false;
            atomic_store_explicit(link_at(x, level), next[level], memory_order_relaxed);
            if (atomic_compare_exchange_strong_explicit(link_at(prev[level], level), &next[level],
                                                        x, memory_order_release,
                                                        memory_order_relaxed))
                break;
            find_splice_level(key, prev[level], level, &prev[level], &next[level]);
        }
    }
    return true;
}

static void update_stats(memstore *m, const cell_t *c)
{
    atomic_fetch_add_explicit(&m->count, 1, memory_order_relaxed);
    uint_fast64_t seq = atomic_load_explicit(&m->max_seq, memory_order_relaxed);
    while (c->seq > seq && !atomic_compare_exchange_weak_explicit(
                               &m->max_seq, &seq, c->seq, memory_order_relaxed,
                               memory_order_relaxed))
        ;
    int64_t lo = atomic_load_explicit(&m->min_ts, memory_order_relaxed);
    while (c->ts < lo && !atomic_compare_exchange_weak_explicit(
                             &m->min_ts, &lo, c->ts, memory_order_relaxed, memory_order_relaxed))
        ;
    int64_t hi = atomic_load_explicit(&m->max_ts, memory_order_relaxed);
    while (c->ts > hi && !atomic_compare_exchange_weak_explicit(
                             &m->max_ts, &hi, c->ts, memory_order_relaxed, memory_order_relaxed))
        ;
}

int memstore_add(memstore *m, const cell_t *c)
{
    ms_node *prev[MS_MAX_HEIGHT];
    ms_node *next[MS_MAX_HEIGHT];
    /* The bloom word is fetched while the skiplist is searched. */
    uint64_t h = bloom_row_hash(c->row, c->row_len);
    __builtin_prefetch((const void *)bloom_word(m, h), 1);
    int height = random_height();
    raise_max_height(m, height);
    int top = atomic_load_explicit(&m->max_height, memory_order_relaxed);
    find_splice(m, c, top, prev, next);
    if (next[0] && node_compare(next[0], c) == 0)
        return ST_OK;
    row_bloom_set(m, h); /* before the node is published */
    ms_node *x = node_new(m, c, height);
    if (!x) {
        LOG_ERROR("memstore: out of memory adding a %zu-byte cell", cell_encoded_len(c));
        return st_error(ST_NOMEM, "memstore: out of memory adding a %zu-byte cell",
                        cell_encoded_len(c));
    }
    if (link_node(x, c, height, prev, next))
        update_stats(m, c);
    return ST_OK;
}

size_t memstore_size(const memstore *m)
{
    return atomic_load_explicit(&((memstore *)m)->size, memory_order_relaxed);
}

uint64_t memstore_count(const memstore *m)
{
    return atomic_load_explicit(&((memstore *)m)->count, memory_order_relaxed);
}

uint64_t memstore_max_seq(const memstore *m)
{
    return atomic_load_explicit(&((memstore *)m)->max_seq, memory_order_relaxed);
}

int64_t memstore_min_ts(const memstore *m)
{
    return atomic_load_explicit(&((memstore *)m)->min_ts, memory_order_relaxed);
}

int64_t memstore_max_ts(const memstore *m)
{
    return atomic_load_explicit(&((memstore *)m)->max_ts, memory_order_relaxed);
}

/* ---- searches used by the iterator ---- */

/* First node >= key, or NULL. Skips comparing a node already known to be >= key. */
static ms_node *find_ge(memstore *m, const cell_t *key)
{
    ms_node *x = m->head;
    ms_node *known_ge = NULL;
    for (int level = atomic_load_explicit(&m->max_height, memory_order_relaxed) - 1;; level--) {
        ms_node *n = next_at(x, level);
        while (n && n != known_ge && node_compare(n, key) < 0) {
            x = n;
            n = next_at(n, level);
        }
        if (level == 0)
            return n;
        known_ge = n;
    }
}

/* Last node < key (strict) or <= key (!strict), or NULL if there is none. */
static ms_node *find_before(memstore *m, const cell_t *key, bool strict)
{
    ms_node *x = m->head;
    int limit = strict ? 0 : 1; /* advance while compare(n, key) < limit */
    for (int level = atomic_load_explicit(&m->max_height, memory_order_relaxed) - 1; level >= 0;
         level--) {
        ms_node *n = next_at(x, level);
        while (n && node_compare(n, key) < limit) {
            x = n;
            n = next_at(n, level);
        }
    }
    return x == m->head ? NULL : x;
}

/* ---- iterator ---- */

static void iter_set(ms_iter *it, ms_node *x)
{
    it->cur = x;
    if (x)
        node_cell(x, &it->cell);
}

static void iter_skip_invisible(ms_iter *it, ms_node *x)
{
    while (x && node_seq(x) > it->read_point)
        x = next_at(x, 0);
    iter_set(it, x);
}

static void iter_seek(kv_iter *base, const cell_t *key)
{
    ms_iter *it = (ms_iter *)base;
    iter_skip_invisible(it, find_ge(it->m, key));
}

static void iter_seek_for_prev(kv_iter *base, const cell_t *key)
{
    ms_iter *it = (ms_iter *)base;
    ms_node *x = find_before(it->m, key, false);
    cell_t c;
    while (x && node_seq(x) > it->read_point) {
        node_cell(x, &c);
        x = find_before(it->m, &c, true);
    }
    iter_set(it, x);
}

static void iter_seek_to_first(kv_iter *base)
{
    ms_iter *it = (ms_iter *)base;
    iter_skip_invisible(it, next_at(it->m->head, 0));
}

static void iter_next(kv_iter *base)
{
    ms_iter *it = (ms_iter *)base;
    if (!it->cur)
        return;
    ms_node *n = next_at(it->cur, 0);
    if (n) {
        /* A scan walks nodes scattered over the arena: start fetching the node after
         * the next one (its link, seq and key) while this step's cell is used. */
        ms_node *after = next_at(n, 0);
        if (after) {
            __builtin_prefetch(after);
            __builtin_prefetch((const uint8_t *)after + 64);
        }
    }
    iter_skip_invisible(it, n);
}

static bool iter_valid(const kv_iter *base)
{
    return ((const ms_iter *)base)->cur != NULL;
}

static const cell_t *iter_cell(const kv_iter *base)
{
    const ms_iter *it = (const ms_iter *)base;
    return it->cur ? &it->cell : NULL;
}

static int iter_status(const kv_iter *base)
{
    return ST_OK;
}

static void iter_destroy(kv_iter *base)
{
    ms_iter *it = (ms_iter *)base;
    memstore_unref(it->m);
    free(it);
}

static const kv_iter_ops memstore_iter_ops = {
    .seek = iter_seek,
    .seek_for_prev = iter_seek_for_prev,
    .seek_to_first = iter_seek_to_first,
    .next = iter_next,
    .valid = iter_valid,
    .cell = iter_cell,
    .status = iter_status,
    .destroy = iter_destroy,
};

kv_iter *memstore_iter(memstore *m, uint64_t read_point)
{
    ms_iter *it = calloc(1, sizeof(*it));
    if (!it) {
        LOG_ERROR("memstore: out of memory opening an iterator");
        return NULL;
    }
    it->base.ops = &memstore_iter_ops;
    memstore_ref(m);
    it->m = m;
    it->read_point = read_point;
    it->cur = NULL;
    return &it->base;
}
