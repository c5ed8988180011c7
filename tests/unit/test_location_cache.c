/*
 * test_location_cache.c - the client's region location cache: the floor rule at every
 * boundary (row == start key, just below and at the end key, empty start and end
 * keys, one whole-table region, gaps), overlapping inserts after a split and a merge,
 * invalidation of one entry (and not of a newer one), of a whole server, update in
 * place after a move, clearing a table, pinned entries outliving replacement, bad
 * arguments, and readers racing a writer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/location_cache.h"
#include "common/status.h"
#include "tests/support/testutil.h"

#define K(s) (const uint8_t *)(s), strlen(s)

/* An entry with C-string keys ("" is empty) on host:port, start code 1. */
static loccache_entry ent(const char *table, const char *region, const char *start, const char *end,
                          const char *host, uint16_t port)
{
    loccache_entry e = {.table = table,
                        .region = region,
                        .start_key = (const uint8_t *)start,
                        .start_len = strlen(start),
                        .end_key = (const uint8_t *)end,
                        .end_len = strlen(end),
                        .host = host,
                        .port = port,
                        .start_code = 1,
                        .seqnum = 5};
    return e;
}

static void put(loccache *c, const char *table, const char *region, const char *start,
                const char *end, const char *host, uint16_t port)
{
    loccache_entry e = ent(table, region, start, end, host, port);
    assert_int_equal(loccache_insert(c, &e), ST_OK);
}

/* The region name cached for row, or NULL on a miss (the string is static). */
static const char *where(loccache *c, const char *table, const uint8_t *row, size_t len)
{
    static char name[64];
    const loccache_entry *e = NULL;
    int rc = loccache_lookup(c, table, row, len, &e);
    if (rc == ST_NOT_FOUND) {
        assert_null(e);
        return NULL;
    }
    assert_int_equal(rc, ST_OK);
    snprintf(name, sizeof(name), "%s", e->region);
    loccache_entry_release(e);
    return name;
}

static const char *at(loccache *c, const char *table, const char *row)
{
    return where(c, table, K(row));
}

static void assert_at(loccache *c, const char *table, const char *row, const char *region)
{
    const char *got = at(c, table, row);
    if (!region && got)
        fail_msg("row '%s' of %s: expected a miss, got %s", row, table, got);
    if (region && (!got || strcmp(got, region) != 0))
        fail_msg("row '%s' of %s: expected %s, got %s", row, table, region, got ? got : "miss");
}

/* t: ["", "b") r1, ["b", "d") r2, ["d", "") r3 */
static loccache *three_regions(void)
{
    loccache *c = loccache_new();
    assert_non_null(c);
    put(c, "t", "r2", "b", "d", "rs2", 2);
    put(c, "t", "r3", "d", "", "rs3", 3);
    put(c, "t", "r1", "", "b", "rs1", 1);
    assert_int_equal(loccache_count(c, "t"), 3);
    return c;
}

static void boundaries_start_end_and_empty_keys(void **state)
{
    loccache *c = three_regions();
    assert_at(c, "t", "", "r1"); /* the empty row is in the first region */
    assert_at(c, "t", "a", "r1");
    assert_at(c, "t", "azzzz", "r1");
    const uint8_t below_b[] = {'a', 0xff, 0xff, 0xff};
    assert_string_equal(where(c, "t", below_b, sizeof(below_b)), "r1");
    assert_at(c, "t", "b", "r2"); /* row == start key */
    const uint8_t b0[] = {'b', 0};
    assert_string_equal(where(c, "t", b0, sizeof(b0)), "r2");
    assert_at(c, "t", "czz", "r2"); /* just below the end key */
    assert_at(c, "t", "d", "r3");   /* row == end key: the next region */
    assert_at(c, "t", "zzzzzzzz", "r3");
    const uint8_t high[] = {0xff, 0xff, 0xff};
    assert_string_equal(where(c, "t", high, sizeof(high)), "r3");
    assert_at(c, "other", "b", NULL);
    loccache_free(c);
}

static void entry_fields_are_copied(void **state)
{
    loccache *c = loccache_new();
    char table[] = "ns:t", region[] = "abc123", start[] = "k1", end[] = "k5", host[] = "h1";
    loccache_entry e = ent(table, region, start, end, host, 16020);
    e.start_code = 1234567;
    e.seqnum = 99;
    assert_int_equal(loccache_insert(c, &e), ST_OK);
    memset(region, 'x', 6), memset(start, 'x', 2), memset(end, 'x', 2), memset(host, 'x', 2);
    const loccache_entry *got;
    assert_int_equal(loccache_lookup(c, "ns:t", K("k3"), &got), ST_OK);
    assert_string_equal(got->table, "ns:t");
    assert_string_equal(got->region, "abc123");
    assert_int_equal(got->start_len, 2);
    assert_memory_equal(got->start_key, "k1", 2);
    assert_int_equal(got->end_len, 2);
    assert_memory_equal(got->end_key, "k5", 2);
    assert_string_equal(got->host, "h1");
    assert_int_equal(got->port, 16020);
    assert_int_equal(got->start_code, 1234567);
    assert_int_equal(got->seqnum, 99);
    loccache_entry_release(got);
    loccache_free(c);
}

static void single_whole_table_region(void **state)
{
    loccache *c = loccache_new();
    put(c, "t", "all", "", "", "rs1", 1);
    assert_at(c, "t", "", "all");
    assert_at(c, "t", "m", "all");
    const uint8_t high[] = {0xff, 0xff};
    assert_string_equal(where(c, "t", high, sizeof(high)), "all");
    assert_int_equal(loccache_count(c, NULL), 1);
    loccache_free(c);
}

static void gaps_miss(void **state)
{
    loccache *c = loccache_new();
    put(c, "t", "r2", "c", "e", "rs", 1);
    put(c, "t", "r4", "g", "i", "rs", 1);
    assert_at(c, "t", "", NULL); /* before the first cached region */
    assert_at(c, "t", "b", NULL);
    assert_at(c, "t", "c", "r2");
    assert_at(c, "t", "e", NULL); /* the end of r2 is a gap */
    assert_at(c, "t", "f", NULL);
    assert_at(c, "t", "g", "r4");
    assert_at(c, "t", "i", NULL); /* past the last cached region */
    assert_at(c, "t", "z", NULL);
    const loccache_entry *e = (const loccache_entry *)1;
    assert_int_equal(loccache_lookup(c, "t", K("f"), &e), ST_NOT_FOUND);
    assert_null(e);
    loccache_free(c);
}

static void split_daughters_replace_parent(void **state)
{
    loccache *c = three_regions();
    /* r2 [b, d) splits at c into r2a [b, c) and r2b [c, d). */
    put(c, "t", "r2a", "b", "c", "rs2", 2);
    assert_int_equal(loccache_count(c, "t"), 3); /* the parent is gone */
    assert_at(c, "t", "b", "r2a");
    assert_at(c, "t", "c", NULL); /* not yet known: a miss, not the stale parent */
    put(c, "t", "r2b", "c", "d", "rs4", 4);
    assert_int_equal(loccache_count(c, "t"), 4);
    assert_at(c, "t", "bz", "r2a");
    assert_at(c, "t", "c", "r2b");
    assert_at(c, "t", "cz", "r2b");
    assert_at(c, "t", "a", "r1");
    assert_at(c, "t", "d", "r3");
    /* Daughter first from the right side this time: r3 [d, "") splits at f. */
    put(c, "t", "r3b", "f", "", "rs3", 3);
    assert_at(c, "t", "d", NULL);
    assert_at(c, "t", "f", "r3b");
    loccache_free(c);
}

static void merge_replaces_every_overlapped_region(void **state)
{
    loccache *c = three_regions();
    put(c, "t", "m", "a", "e", "rs9", 9); /* overlaps r1's tail, all of r2, r3's head */
    assert_int_equal(loccache_count(c, "t"), 1);
    assert_at(c, "t", "", NULL);
    assert_at(c, "t", "a", "m");
    assert_at(c, "t", "d", "m");
    assert_at(c, "t", "e", NULL);
    put(c, "t", "whole", "", "", "rs9", 9);
    assert_int_equal(loccache_count(c, "t"), 1);
    assert_at(c, "t", "zz", "whole");
    /* [e, "") overlaps the tail of "whole", so "whole" goes. */
    put(c, "t", "tail", "e", "", "rs1", 1);
    assert_int_equal(loccache_count(c, "t"), 1);
    put(c, "t", "head", "", "e", "rs1", 1);
    assert_int_equal(loccache_count(c, "t"), 2); /* touching at e, not overlapping */
    assert_at(c, "t", "d", "head");
    assert_at(c, "t", "e", "tail");
    /* Re-inserting the same region replaces it. */
    put(c, "t", "head", "", "e", "rs7", 7);
    assert_int_equal(loccache_count(c, "t"), 2);
    loccache_free(c);
}

static void tables_are_separate(void **state)
{
    loccache *c = loccache_new();
    put(c, "b", "b1", "", "", "rs1", 1);
    put(c, "a", "a1", "", "m", "rs1", 1);
    put(c, "c", "c1", "m", "", "rs2", 2);
    put(c, "ns:a", "x1", "", "", "rs2", 2);
    assert_at(c, "a", "b", "a1");
    assert_at(c, "a", "n", NULL);
    assert_at(c, "b", "n", "b1");
    assert_at(c, "c", "n", "c1");
    assert_at(c, "ns:a", "n", "x1");
    assert_int_equal(loccache_count(c, NULL), 4);
    assert_int_equal(loccache_clear_table(c, "b"), 1);
    assert_at(c, "b", "n", NULL);
    assert_at(c, "a", "b", "a1");
    assert_at(c, "c", "n", "c1");
    assert_int_equal(loccache_clear_table(c, "b"), 0);
    assert_int_equal(loccache_count(c, NULL), 3);
    put(c, "b", "b2", "", "", "rs1", 1); /* a cleared table can be cached again */
    assert_at(c, "b", "n", "b2");
    loccache_free(c);
}

static void invalidate_one_by_row(void **state)
{
    loccache *c = three_regions();
    assert_int_equal(loccache_invalidate(c, "t", K("c")), ST_OK);
    assert_at(c, "t", "b", NULL);
    assert_at(c, "t", "a", "r1");
    assert_at(c, "t", "d", "r3");
    assert_int_equal(loccache_invalidate(c, "t", K("c")), ST_NOT_FOUND);
    assert_int_equal(loccache_invalidate(c, "none", K("c")), ST_NOT_FOUND);
    assert_int_equal(loccache_count(c, "t"), 2);
    loccache_free(c);
}

/* NotServingRegion from the server a pinned entry named drops it; a late one from
 * the old server after the cache learned a newer location does not. */
static void invalidate_entry_only_if_still_current(void **state)
{
    loccache *c = three_regions();
    const loccache_entry *old;
    assert_int_equal(loccache_lookup(c, "t", K("b"), &old), ST_OK);
    put(c, "t", "r2", "b", "d", "rs5", 5); /* the region moved meanwhile */
    assert_int_equal(loccache_invalidate_entry(c, old), ST_NOT_FOUND);
    assert_at(c, "t", "c", "r2");
    loccache_entry_release(old);

    assert_int_equal(loccache_lookup(c, "t", K("b"), &old), ST_OK);
    assert_int_equal(loccache_invalidate_entry(c, old), ST_OK);
    assert_at(c, "t", "c", NULL);
    assert_int_equal(loccache_invalidate_entry(c, old), ST_NOT_FOUND);
    loccache_entry_release(old);

    /* A caller-built description works too; a different start code does not match. */
    loccache_entry e = ent("t", "r1", "", "b", "rs1", 1);
    e.start_code = 2;
    assert_int_equal(loccache_invalidate_entry(c, &e), ST_NOT_FOUND);
    e.start_code = 1;
    assert_int_equal(loccache_invalidate_entry(c, &e), ST_OK);
    assert_at(c, "t", "a", NULL);
    assert_at(c, "t", "d", "r3");
    loccache_free(c);
}

static void invalidate_all_of_a_server(void **state)
{
    loccache *c = loccache_new();
    put(c, "t", "r1", "", "b", "rs1", 1);
    put(c, "t", "r2", "b", "d", "rs2", 1);
    put(c, "t", "r3", "d", "f", "rs1", 1);
    put(c, "t", "r4", "f", "", "rs1", 2); /* same host, other port */
    put(c, "u", "u1", "", "k", "rs1", 1);
    put(c, "u", "u2", "k", "", "rs2", 1);
    assert_int_equal(loccache_invalidate_server(c, "rs1", 1), 3);
    assert_at(c, "t", "a", NULL);
    assert_at(c, "t", "c", "r2");
    assert_at(c, "t", "e", NULL);
    assert_at(c, "t", "g", "r4");
    assert_at(c, "u", "a", NULL);
    assert_at(c, "u", "x", "u2");
    assert_int_equal(loccache_invalidate_server(c, "rs1", 1), 0);
    assert_int_equal(loccache_invalidate_server(c, "nobody", 1), 0);
    assert_int_equal(loccache_count(c, NULL), 3);
    loccache_free(c);
}

/* RegionMoved: the same region, keys kept, now on another server. */
static void update_server_in_place(void **state)
{
    loccache *c = three_regions();
    const loccache_entry *before;
    assert_int_equal(loccache_lookup(c, "t", K("c"), &before), ST_OK);
    assert_int_equal(loccache_update_server(c, before, "rs7", 7007, 77), ST_OK);
    assert_string_equal(before->host, "rs2"); /* a pinned entry is immutable */
    const loccache_entry *after;
    assert_int_equal(loccache_lookup(c, "t", K("c"), &after), ST_OK);
    assert_string_equal(after->region, "r2");
    assert_string_equal(after->host, "rs7");
    assert_int_equal(after->port, 7007);
    assert_int_equal(after->start_code, 77);
    assert_int_equal(after->seqnum, 5);
    assert_memory_equal(after->start_key, "b", 1);
    assert_memory_equal(after->end_key, "d", 1);
    loccache_entry_release(after);
    loccache_entry_release(before);
    assert_int_equal(loccache_count(c, "t"), 3);
    assert_int_equal(loccache_invalidate_server(c, "rs2", 2), 0);
    assert_int_equal(loccache_invalidate_server(c, "rs7", 7007), 1);

    /* A region no longer cached, or one with another name at that start key. */
    loccache_entry gone = ent("t", "r2", "b", "d", "rs2", 2);
    assert_int_equal(loccache_update_server(c, &gone, "rs8", 8, 8), ST_NOT_FOUND);
    loccache_entry other = ent("t", "r1x", "", "b", NULL, 0);
    assert_int_equal(loccache_update_server(c, &other, "rs8", 8, 8), ST_NOT_FOUND);
    other.region = "r1";
    assert_int_equal(loccache_update_server(c, &other, "rs8", 8, 8), ST_OK);
    assert_int_equal(loccache_update_server(c, &other, NULL, 8, 8), ST_INVALID_ARGUMENT);
    loccache_free(c);
}

static void pinned_entry_outlives_replacement_and_free(void **state)
{
    loccache *c = three_regions();
    const loccache_entry *e;
    assert_int_equal(loccache_lookup(c, "t", K("c"), &e), ST_OK);
    put(c, "t", "big", "", "", "rs9", 9);
    assert_int_equal(loccache_clear_table(c, "t"), 1);
    loccache_free(c);
    assert_string_equal(e->region, "r2"); /* ASan would catch a use after free */
    assert_memory_equal(e->start_key, "b", 1);
    loccache_entry_release(e);
    loccache_entry_release(NULL);
    loccache_free(NULL);
}

static void bad_entries_rejected(void **state)
{
    loccache *c = loccache_new();
    loccache_entry e = ent("t", "r", "m", "c", "h", 1); /* end below start */
    assert_int_equal(loccache_insert(c, &e), ST_INVALID_ARGUMENT);
    e = ent("t", "r", "m", "m", "h", 1); /* empty range */
    assert_int_equal(loccache_insert(c, &e), ST_INVALID_ARGUMENT);
    e = ent("", "r", "", "", "h", 1);
    assert_int_equal(loccache_insert(c, &e), ST_INVALID_ARGUMENT);
    e = ent("t", "r", "", "", "h", 1);
    e.host = NULL;
    assert_int_equal(loccache_insert(c, &e), ST_INVALID_ARGUMENT);
    e = ent("t", "r", "", "", "h", 1);
    e.region = NULL;
    assert_int_equal(loccache_insert(c, &e), ST_INVALID_ARGUMENT);
    e = ent("t", "r", "", "", "h", 1);
    e.start_key = NULL;
    e.start_len = 3;
    assert_int_equal(loccache_insert(c, &e), ST_INVALID_ARGUMENT);
    assert_int_equal(loccache_count(c, NULL), 0);
    loccache_free(c);
}

/* Many regions, inserted in a shuffled order: every row lands in the right one. */
static void many_regions_shuffled(void **state)
{
    enum { N = 2000 };
    loccache *c = loccache_new();
    int order[N];
    for (int i = 0; i < N; i++)
        order[i] = i;
    srand(11);
    for (int i = N - 1; i > 0; i--) {
        int j = rand() % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    char s[16], e[16], name[16];
    for (int k = 0; k < N; k++) {
        int i = order[k];
        snprintf(s, sizeof(s), i ? "row%05d" : "", i * 10);
        snprintf(e, sizeof(e), i < N - 1 ? "row%05d" : "", (i + 1) * 10);
        snprintf(name, sizeof(name), "r%d", i);
        put(c, "t", name, s, e, "rs", 1);
    }
    assert_int_equal(loccache_count(c, "t"), N);
    char row[16];
    for (int r = 0; r < N * 10; r += 3) {
        snprintf(row, sizeof(row), "row%05d", r);
        snprintf(name, sizeof(name), "r%d", r / 10);
        assert_at(c, "t", row, name);
    }
    loccache_free(c);
}

/* ---- readers racing one writer ---- */

/* Fixed regions [a, m) "left" and [t, "") "right" on rs1:1 never change. The writer
 * keeps splitting [m, t) at p and merging it back, and moving it between servers
 * rs<k>:port_of(k) with start code k, while readers check every answer. */
enum { READERS = 4, WRITER_ROUNDS = 100000 };

typedef struct race {
    loccache *c;
    atomic_bool stop;
    atomic_long lookups, hits;
    atomic_int errors;
} race;

/* The writer's server k listens on this port. */
static uint16_t port_of(int k)
{
    return (uint16_t)(1000 + k % 50000);
}

static int kcmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
    int c = memcmp(a, b, al < bl ? al : bl);
    return c ? c : (al > bl) - (al < bl);
}

/* Whether e is a possible answer for row: it holds row, has a known name, and a
 * server whose host, port and start code agree (no torn or stale-freed entry). */
static bool plausible(const loccache_entry *e, const char *row)
{
    size_t rl = strlen(row);
    if (kcmp(e->start_key, e->start_len, (const uint8_t *)row, rl) > 0)
        return false;
    if (e->end_len && kcmp((const uint8_t *)row, rl, e->end_key, e->end_len) >= 0)
        return false;
    if (!strcmp(e->region, "left") || !strcmp(e->region, "right"))
        return !strcmp(e->host, "rs1") && e->port == 1 && e->start_code == 1;
    int k = -1;
    if (sscanf(e->host, "rs%d", &k) != 1 || k < 2 || e->port != port_of(k) || e->start_code != k)
        return false;
    return !strcmp(e->region, "mid") || !strcmp(e->region, "mid_a") || !strcmp(e->region, "mid_b");
}

static void *reader(void *arg)
{
    race *r = arg;
    static const char *rows[] = {"a", "b", "lz", "m", "n", "p", "q", "sz", "t", "z"};
    unsigned i = 0;
    while (!atomic_load(&r->stop)) {
        const char *row = rows[i++ % 10];
        const loccache_entry *e;
        int rc = loccache_lookup(r->c, "t", K(row), &e);
        bool fixed = row[0] < 'm' || row[0] >= 't';
        if (rc == ST_OK) {
            if (!plausible(e, row))
                atomic_fetch_add(&r->errors, 1);
            atomic_fetch_add(&r->hits, 1);
            loccache_entry_release(e);
        } else if (rc != ST_NOT_FOUND || fixed) {
            atomic_fetch_add(&r->errors, 1); /* fixed regions never miss */
        }
        atomic_fetch_add(&r->lookups, 1);
    }
    return NULL;
}

static void writer_round(loccache *c, int k)
{
    char host[16];
    snprintf(host, sizeof(host), "rs%d", k);
    loccache_entry mid = ent("t", "mid", "m", "t", host, port_of(k));
    mid.start_code = k;
    switch (k % 4) {
    case 0:
        assert_int_equal(loccache_insert(c, &mid), ST_OK);
        break;
    case 1: {
        loccache_entry a = ent("t", "mid_a", "m", "p", host, port_of(k));
        loccache_entry b = ent("t", "mid_b", "p", "t", host, port_of(k));
        a.start_code = b.start_code = k;
        assert_int_equal(loccache_insert(c, &a), ST_OK);
        assert_int_equal(loccache_insert(c, &b), ST_OK);
        break;
    }
    case 2: {
        /* mid_a, cached by the round before, moves; a caller-built name suffices. */
        loccache_entry a = {
            .table = "t", .region = "mid_a", .start_key = (const uint8_t *)"m", .start_len = 1};
        assert_int_equal(loccache_update_server(c, &a, host, port_of(k), k), ST_OK);
        break;
    }
    default:
        loccache_invalidate(c, "t", K("q"));
        break;
    }
}

static void readers_race_writer(void **state)
{
    race r = {.c = loccache_new()};
    put(r.c, "t", "left", "a", "m", "rs1", 1);
    put(r.c, "t", "right", "t", "", "rs1", 1);
    pthread_t th[READERS];
    for (int i = 0; i < READERS; i++)
        assert_int_equal(pthread_create(&th[i], NULL, reader, &r), 0);
    while (atomic_load(&r.lookups) < 1000) /* the readers are running */
        sched_yield();
    long before = atomic_load(&r.lookups);
    for (int k = 4; k < WRITER_ROUNDS + 4; k++)
        writer_round(r.c, k);
    long during = atomic_load(&r.lookups) - before;
    atomic_store(&r.stop, true);
    for (int i = 0; i < READERS; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(atomic_load(&r.errors), 0);
    assert_true(during > 0);
    assert_true(atomic_load(&r.hits) > 0);
    assert_int_equal(loccache_count(r.c, "t") >= 2, 1);
    assert_at(r.c, "t", "b", "left");
    assert_at(r.c, "t", "z", "right");
    loccache_free(r.c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(boundaries_start_end_and_empty_keys),
        cmocka_unit_test(entry_fields_are_copied),
        cmocka_unit_test(single_whole_table_region),
        cmocka_unit_test(gaps_miss),
        cmocka_unit_test(split_daughters_replace_parent),
        cmocka_unit_test(merge_replaces_every_overlapped_region),
        cmocka_unit_test(tables_are_separate),
        cmocka_unit_test(invalidate_one_by_row),
        cmocka_unit_test(invalidate_entry_only_if_still_current),
        cmocka_unit_test(invalidate_all_of_a_server),
        cmocka_unit_test(update_server_in_place),
        cmocka_unit_test(pinned_entry_outlives_replacement_and_free),
        cmocka_unit_test(bad_entries_rejected),
        cmocka_unit_test(many_regions_shuffled),
        cmocka_unit_test(readers_race_writer),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
