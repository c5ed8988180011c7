/*
 * test_blockcache.c - the sharded LRU: eviction in LRU order under the byte budget,
 * pinned entries outliving eviction, the deleter called exactly once, stats,
 * replace, erase_file, capacity 0, the in-memory priority (its own list and stats;
 * normal entries evicted first; in-memory ones only beyond their share or when no
 * normal one is left), and 4 threads hammering lookups and inserts of both priorities.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "regionserver/storage/blockcache.h"
#include "tests/support/testutil.h"

#define MAXV 64

/* Values are small ints whose deletions are counted per value. */
static int deleted[MAXV];
static int values[MAXV];

static void count_deleter(void *v)
{
    deleted[*(int *)v]++;
}

static void reset_counts(void)
{
    memset(deleted, 0, sizeof(deleted));
    for (int i = 0; i < MAXV; i++)
        values[i] = i;
}

/* Inserts value i under (1, i) with the given charge and releases the handle. */
static void put(blockcache *bc, int i, size_t charge)
{
    blockcache_handle *h = blockcache_insert(bc, 1, (uint64_t)i, &values[i], charge, count_deleter);
    assert_non_null(h);
    assert_ptr_equal(blockcache_value(h), &values[i]);
    blockcache_release(bc, h);
}

/* The same with in-memory priority. */
static void put_mem(blockcache *bc, int i, size_t charge)
{
    blockcache_handle *h = blockcache_insert_priority(bc, 1, (uint64_t)i, &values[i], charge,
                                                      count_deleter, BLOCKCACHE_PRIORITY_IN_MEMORY);
    assert_non_null(h);
    blockcache_release(bc, h);
}

static bool cached(blockcache *bc, int i)
{
    blockcache_handle *h = blockcache_lookup(bc, 1, (uint64_t)i);
    if (h)
        blockcache_release(bc, h);
    return h != NULL;
}

static void lru_order_eviction_under_budget(void **state)
{
    reset_counts();
    blockcache *bc = blockcache_new(100, 1);
    for (int i = 0; i < 10; i++)
        put(bc, i, 10);
    blockcache_stats st;
    blockcache_get_stats(bc, &st);
    assert_int_equal(st.usage, 100);
    assert_int_equal(st.entries, 10);
    assert_int_equal(st.evictions, 0);
    assert_true(cached(bc, 0)); /* 0 becomes the newest; 1 is now the oldest */
    put(bc, 10, 10);
    assert_false(cached(bc, 1));
    assert_int_equal(deleted[1], 1);
    assert_true(cached(bc, 0));
    /* a 25-byte entry pushes out the three oldest: 2, 3, 4 */
    put(bc, 11, 25);
    for (int i = 2; i <= 4; i++) {
        assert_false(cached(bc, i));
        assert_int_equal(deleted[i], 1);
    }
    assert_true(cached(bc, 5));
    blockcache_get_stats(bc, &st);
    assert_true(st.usage <= 100);
    assert_int_equal(st.usage, 95);
    assert_int_equal(st.evictions, 4);
    blockcache_free(bc);
    for (int i = 0; i <= 11; i++)
        assert_int_equal(deleted[i], 1);
}

static void pinned_entry_survives_eviction(void **state)
{
    reset_counts();
    blockcache *bc = blockcache_new(20, 1);
    blockcache_handle *pin = blockcache_insert(bc, 1, 0, &values[0], 10, count_deleter);
    put(bc, 1, 10);
    put(bc, 2, 10); /* evicts 0 although pinned: the budget is strict */
    assert_false(cached(bc, 0));
    assert_int_equal(deleted[0], 0); /* still alive for its holder */
    assert_int_equal(*(int *)blockcache_value(pin), 0);
    blockcache_stats st;
    blockcache_get_stats(bc, &st);
    assert_int_equal(st.usage, 20);
    blockcache_release(bc, pin);
    assert_int_equal(deleted[0], 1);
    blockcache_free(bc);
    for (int i = 0; i <= 2; i++)
        assert_int_equal(deleted[i], 1);
}

static void deleter_once_on_replace_and_erase(void **state)
{
    reset_counts();
    blockcache *bc = blockcache_new(1000, 4);
    blockcache_handle *old = blockcache_insert(bc, 1, 5, &values[5], 10, count_deleter);
    put(bc, 6, 10);
    /* replace (1,5): the old value stays pinned, the new one is what lookups see */
    blockcache_handle *h = blockcache_insert(bc, 1, 5, &values[7], 10, count_deleter);
    blockcache_release(bc, h);
    h = blockcache_lookup(bc, 1, 5);
    assert_ptr_equal(blockcache_value(h), &values[7]);
    blockcache_release(bc, h);
    assert_int_equal(deleted[5], 0);
    blockcache_release(bc, old);
    assert_int_equal(deleted[5], 1);
    /* erase_file drops file 1 only; a pinned entry outlives the erase */
    h = blockcache_insert(bc, 2, 0, &values[8], 10, count_deleter);
    blockcache_handle *pin = blockcache_lookup(bc, 1, 6);
    assert_non_null(pin);
    blockcache_erase_file(bc, 1);
    assert_int_equal(deleted[7], 1);
    assert_int_equal(deleted[6], 0);
    assert_null(blockcache_lookup(bc, 1, 6));
    assert_null(blockcache_lookup(bc, 1, 5));
    blockcache_release(bc, pin);
    assert_int_equal(deleted[6], 1);
    blockcache_handle *h2 = blockcache_lookup(bc, 2, 0);
    assert_non_null(h2);
    blockcache_release(bc, h2);
    blockcache_release(bc, h);
    blockcache_stats st;
    blockcache_get_stats(bc, &st);
    assert_int_equal(st.entries, 1);
    assert_int_equal(st.usage, 10);
    blockcache_free(bc);
    for (int i = 5; i <= 8; i++)
        assert_int_equal(deleted[i], 1);
}

static void stats_count_hits_misses_inserts(void **state)
{
    reset_counts();
    blockcache *bc = blockcache_new(1 << 20, 0); /* 16 shards */
    for (int i = 0; i < 40; i++)
        put(bc, i, 100 + (size_t)i);
    for (int i = 0; i < 50; i++)
        cached(bc, i); /* 40 hits, 10 misses */
    blockcache_stats st;
    blockcache_get_stats(bc, &st);
    assert_int_equal(st.hits, 40);
    assert_int_equal(st.misses, 10);
    assert_int_equal(st.inserts, 40);
    assert_int_equal(st.evictions, 0);
    assert_int_equal(st.entries, 40);
    assert_int_equal(st.capacity, 1 << 20);
    assert_int_equal(st.usage, 40 * 100 + 39 * 40 / 2);
    blockcache_free(bc);
    for (int i = 0; i < 40; i++)
        assert_int_equal(deleted[i], 1);
}

static void capacity_zero_caches_nothing(void **state)
{
    reset_counts();
    blockcache *bc = blockcache_new(0, 0);
    blockcache_handle *h = blockcache_insert(bc, 1, 1, &values[1], 10, count_deleter);
    assert_non_null(h);
    assert_ptr_equal(blockcache_value(h), &values[1]);
    assert_false(cached(bc, 1));
    assert_int_equal(deleted[1], 0);
    blockcache_release(bc, h);
    assert_int_equal(deleted[1], 1);
    blockcache_stats st;
    blockcache_get_stats(bc, &st);
    assert_int_equal(st.entries, 0);
    assert_int_equal(st.usage, 0);
    assert_int_equal(st.misses, 1);
    blockcache_free(bc);
    assert_int_equal(deleted[1], 1);
}

static void file_ids_unique(void **state)
{
    uint64_t a = blockcache_new_file_id(), b = blockcache_new_file_id();
    assert_true(a != 0 && b > a);
}

/* ---- in-memory priority ---- */

static void memory_priority_insert_and_stats(void **state)
{
    reset_counts();
    blockcache *bc = blockcache_new(1000, 1);
    blockcache_stats st;
    blockcache_get_stats(bc, &st);
    assert_int_equal(st.memory_capacity, 250); /* BLOCKCACHE_MEMORY_SHARE_DEFAULT */
    put_mem(bc, 0, 10);
    put_mem(bc, 1, 20);
    put(bc, 2, 40);
    assert_true(cached(bc, 0) && cached(bc, 1) && cached(bc, 2));
    blockcache_get_stats(bc, &st);
    assert_int_equal(st.usage, 70);
    assert_int_equal(st.entries, 3);
    assert_int_equal(st.memory_usage, 30);
    assert_int_equal(st.memory_entries, 2);
    assert_int_equal(st.inserts, 3);
    assert_int_equal(st.hits, 3);
    /* a replacement takes the new entry's priority; an erase empties both lists */
    put(bc, 1, 20);
    blockcache_get_stats(bc, &st);
    assert_int_equal(st.memory_usage, 10);
    assert_int_equal(st.memory_entries, 1);
    blockcache_erase_file(bc, 1);
    blockcache_get_stats(bc, &st);
    assert_int_equal(st.usage, 0);
    assert_int_equal(st.memory_usage, 0);
    assert_int_equal(st.memory_entries, 0);
    assert_int_equal(deleted[0], 1);
    blockcache_free(bc);
}

/* A flood of normal entries evicts normal ones only while the in-memory entries fit in
 * their share; one more in-memory entry beyond the share evicts the oldest in-memory one. */
static void normal_flood_keeps_memory_within_share(void **state)
{
    reset_counts();
    blockcache *bc = blockcache_new(100, 1); /* share 25 bytes */
    put_mem(bc, 0, 10);
    put_mem(bc, 1, 10);
    for (int i = 10; i < 40; i++)
        put(bc, i, 10);
    assert_true(cached(bc, 0) && cached(bc, 1));
    for (int i = 10; i < 32; i++)
        assert_int_equal(deleted[i], 1); /* the oldest normal ones, in LRU order */
    for (int i = 32; i < 40; i++)
        assert_int_equal(deleted[i], 0);
    blockcache_stats st;
    blockcache_get_stats(bc, &st);
    assert_int_equal(st.usage, 100);
    assert_int_equal(st.memory_usage, 20);
    assert_int_equal(st.evictions, 22);
    /* 30 in-memory bytes exceed the share: the oldest in-memory entry goes (0 was looked
     * up before 1 above, so 0 is the older) */
    put_mem(bc, 2, 10);
    assert_int_equal(deleted[0], 1);
    assert_true(cached(bc, 1) && cached(bc, 2));
    for (int i = 32; i < 40; i++)
        assert_true(cached(bc, i));
    blockcache_get_stats(bc, &st);
    assert_int_equal(st.memory_usage, 20);
    assert_int_equal(st.usage, 100);
    blockcache_free(bc);
}

/* In-memory entries may fill free room beyond their share; once the budget bites they
 * are evicted (oldest first) down to the share, and then normal entries go. */
static void memory_beyond_share_evicted_first(void **state)
{
    reset_counts();
    blockcache *bc = blockcache_new(100, 1);
    for (int i = 0; i < 8; i++)
        put_mem(bc, i, 10);
    blockcache_stats st;
    blockcache_get_stats(bc, &st);
    assert_int_equal(st.memory_usage, 80);
    assert_int_equal(st.evictions, 0);
    for (int i = 20; i < 30; i++)
        put(bc, i, 10);
    for (int i = 0; i < 6; i++)
        assert_int_equal(deleted[i], 1);
    assert_true(cached(bc, 6) && cached(bc, 7));
    for (int i = 20; i < 22; i++)
        assert_int_equal(deleted[i], 1); /* in-memory back at 20 <= 25: normal ones go */
    for (int i = 22; i < 30; i++)
        assert_true(cached(bc, i));
    blockcache_get_stats(bc, &st);
    assert_int_equal(st.memory_usage, 20);
    assert_int_equal(st.memory_entries, 2);
    assert_int_equal(st.usage, 100);
    blockcache_free(bc);
}

/* With no normal entry left the in-memory list is evicted in LRU order whatever its
 * share; share 0 makes in-memory entries the first to go, share 1 the last. */
static void memory_only_and_share_bounds(void **state)
{
    reset_counts();
    blockcache *bc = blockcache_new(50, 1);
    for (int i = 0; i < 5; i++)
        put_mem(bc, i, 10);
    assert_true(cached(bc, 0)); /* 1 is now the oldest */
    put_mem(bc, 5, 10);
    assert_int_equal(deleted[1], 1);
    assert_true(cached(bc, 0) && cached(bc, 5));
    blockcache_free(bc);

    reset_counts();
    bc = blockcache_new_with_memory_share(50, 1, 0.0);
    put_mem(bc, 0, 10);
    for (int i = 1; i < 6; i++)
        put(bc, i, 10);
    assert_int_equal(deleted[0], 1);
    assert_false(cached(bc, 0));
    blockcache_stats st;
    blockcache_get_stats(bc, &st);
    assert_int_equal(st.memory_capacity, 0);
    blockcache_free(bc);

    reset_counts();
    bc = blockcache_new_with_memory_share(50, 1, 7.5); /* clamped to 1 */
    put(bc, 0, 10);
    for (int i = 1; i < 6; i++)
        put_mem(bc, i, 10);
    assert_int_equal(deleted[0], 1);
    for (int i = 1; i < 6; i++)
        assert_true(cached(bc, i));
    blockcache_get_stats(bc, &st);
    assert_int_equal(st.memory_capacity, 50);
    blockcache_free(bc);
}

/* An in-memory entry evicted while pinned stays valid for its holder and is deleted
 * once, at the release; the stats no longer count it. */
static void memory_pinned_survives_eviction(void **state)
{
    reset_counts();
    blockcache *bc = blockcache_new(40, 1); /* share 10 bytes */
    blockcache_handle *pin = blockcache_insert_priority(bc, 1, 0, &values[0], 10, count_deleter,
                                                        BLOCKCACHE_PRIORITY_IN_MEMORY);
    put_mem(bc, 1, 10); /* 20 in-memory bytes: over the share */
    put(bc, 2, 10);
    put(bc, 3, 10);
    put(bc, 4, 10); /* evicts 0, the oldest in-memory entry, although pinned */
    assert_false(cached(bc, 0));
    assert_int_equal(deleted[0], 0);
    assert_int_equal(*(int *)blockcache_value(pin), 0);
    blockcache_stats st;
    blockcache_get_stats(bc, &st);
    assert_int_equal(st.memory_usage, 10);
    assert_int_equal(st.memory_entries, 1);
    assert_int_equal(st.usage, 40);
    blockcache_release(bc, pin);
    assert_int_equal(deleted[0], 1);
    assert_true(cached(bc, 1));
    blockcache_free(bc);
    for (int i = 0; i <= 4; i++)
        assert_int_equal(deleted[i], 1);
}

/* ---- threads ---- */

#define NTHREADS 4
#define OPS 100000
#define KEYS 3000

typedef struct tval {
    uint64_t file, off;
} tval;

static atomic_long created, destroyed;

static void tval_free(void *v)
{
    atomic_fetch_add(&destroyed, 1);
    free(v);
}

typedef struct hammer_arg {
    blockcache *bc;
    int seed;
    int bad;
} hammer_arg;

static void *hammer_run(void *p)
{
    hammer_arg *a = p;
    uint64_t x = (uint64_t)a->seed * 0x9e3779b97f4a7c15ULL + 1;
    for (int i = 0; i < OPS; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t file = x % 3 + 1, off = (x >> 8) % KEYS;
        blockcache_handle *h = blockcache_lookup(a->bc, file, off);
        if (!h) {
            tval *v = malloc(sizeof(*v));
            v->file = file;
            v->off = off;
            atomic_fetch_add(&created, 1);
            h = blockcache_insert_priority(a->bc, file, off, v, 16 + (x >> 40) % 200, tval_free,
                                           file == 2 ? BLOCKCACHE_PRIORITY_IN_MEMORY
                                                     : BLOCKCACHE_PRIORITY_NORMAL);
        }
        tval *v = blockcache_value(h);
        if (v->file != file || v->off != off)
            a->bad++;
        blockcache_release(a->bc, h);
        if (i % 20000 == 0)
            blockcache_erase_file(a->bc, 3);
    }
    return NULL;
}

static void threads_hammer_lookups_and_inserts(void **state)
{
    blockcache *bc = blockcache_new(64 * 1024, 0);
    pthread_t t[NTHREADS];
    hammer_arg args[NTHREADS];
    atomic_store(&created, 0);
    atomic_store(&destroyed, 0);
    for (int i = 0; i < NTHREADS; i++) {
        args[i] = (hammer_arg){.bc = bc, .seed = i + 1};
        assert_int_equal(pthread_create(&t[i], NULL, hammer_run, &args[i]), 0);
    }
    for (int i = 0; i < NTHREADS; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(args[i].bad, 0);
    }
    blockcache_stats st;
    blockcache_get_stats(bc, &st);
    assert_true(st.usage <= st.capacity + 16); /* per-shard capacity rounds up */
    assert_int_equal(st.hits + st.misses, (uint64_t)NTHREADS * OPS);
    assert_true(st.hits > 0 && st.evictions > 0);
    assert_int_equal(atomic_load(&created) - atomic_load(&destroyed), (long)st.entries);
    assert_true(st.memory_entries > 0 && st.memory_entries < st.entries);
    assert_true(st.memory_usage < st.usage);
    blockcache_free(bc);
    assert_int_equal(atomic_load(&created), atomic_load(&destroyed));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lru_order_eviction_under_budget),
        cmocka_unit_test(pinned_entry_survives_eviction),
        cmocka_unit_test(deleter_once_on_replace_and_erase),
        cmocka_unit_test(stats_count_hits_misses_inserts),
        cmocka_unit_test(capacity_zero_caches_nothing),
        cmocka_unit_test(file_ids_unique),
        cmocka_unit_test(memory_priority_insert_and_stats),
        cmocka_unit_test(normal_flood_keeps_memory_within_share),
        cmocka_unit_test(memory_beyond_share_evicted_first),
        cmocka_unit_test(memory_only_and_share_bounds),
        cmocka_unit_test(memory_pinned_survives_eviction),
        cmocka_unit_test(threads_hammer_lookups_and_inserts),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
