/*
 * test_memstore.c - the memstore skiplist against a sorted-array reference.
 *
 * Random cells (varied rows, families, qualifiers, timestamps, types, seqs) are added
 * in random order and must come out in cell_compare() order; seek/seek_for_prev on
 * present and absent keys and on synthetic seek keys must match binary search over
 * the reference, with and without a read point. Concurrent writers and readers check
 * ordering and well-formedness while the list grows. Run under ASan to prove that an
 * iterator keeps its memstore alive.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cell.h"
#include "common/status.h"
#include "regionserver/storage/memstore.h"
#include "tests/support/testutil.h"

#define N_CELLS 100000
#define N_ROWS 3000
#define N_PROBES 20000

static const char *const families[] = {"a", "cf", "cf2", "z"};
static const char *const qualifiers[] = {"", "q", "q1", "q\x00", "qq", "\xff"};
static const size_t qualifier_lens[] = {0, 1, 2, 2, 2, 1};
static const uint8_t types[] = {CELL_TYPE_PUT, CELL_TYPE_DELETE, CELL_TYPE_DELETE_FAMILY_VERSION,
                                CELL_TYPE_DELETE_COLUMN, CELL_TYPE_DELETE_FAMILY};

/* A cell with its own storage; the value is a checksum of the key. */
typedef struct tcell {
    cell_t c;
    uint8_t row[24];
    uint8_t value[8];
} tcell;

static _Thread_local uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static uint64_t key_hash(const cell_t *c)
{
    uint64_t h = 14695981039346656037ull;
    h = fnv(h, c->row, c->row_len);
    h = fnv(h, &c->family_len, sizeof(c->family_len));
    h = fnv(h, c->family, c->family_len);
    h = fnv(h, c->qualifier, c->qualifier_len);
    h = fnv(h, &c->ts, sizeof(c->ts));
    h = fnv(h, &c->type, 1);
    return fnv(h, &c->seq, sizeof(c->seq));
}

/* Row id i gives a row of varied length, some rows prefixes of others, some binary. */
static size_t make_row(uint8_t *row, uint64_t i)
{
    int n = snprintf((char *)row, 24, "r%llu", (unsigned long long)i);
    if (i % 7 == 0)
        row[n++] = 0x00;
    if (i % 11 == 0)
        row[n++] = 0xff;
    return (size_t)n;
}

static void fill_cell(tcell *t, uint64_t row_id, int fam, int qual, int64_t ts, int type,
                      uint64_t seq)
{
    memset(t, 0, sizeof(*t));
    t->c.row = t->row;
    t->c.row_len = (uint32_t)make_row(t->row, row_id);
    t->c.family = (const uint8_t *)families[fam];
    t->c.family_len = (uint32_t)strlen(families[fam]);
    t->c.qualifier = (const uint8_t *)qualifiers[qual];
    t->c.qualifier_len = (uint32_t)qualifier_lens[qual];
    t->c.ts = ts;
    t->c.type = types[type];
    t->c.seq = seq;
    uint64_t h = key_hash(&t->c);
    memcpy(t->value, &h, sizeof(h));
    t->c.value = t->value;
    t->c.value_len = (uint32_t)(row_id % 5 == 0 ? 0 : sizeof(h));
}

static void random_cell(tcell *t, uint64_t max_seq)
{
    int64_t ts = (int64_t)(rnd() % 50) - 5;
    if (rnd() % 100 == 0)
        ts = rnd() % 2 ? INT64_MAX - 1 : INT64_MIN + 1;
    fill_cell(t, rnd() % N_ROWS, (int)(rnd() % 4), (int)(rnd() % 6), ts, (int)(rnd() % 5),
              1 + rnd() % max_seq);
}

static bool well_formed(const cell_t *c)
{
    if (c->row_len == 0 || c->row_len > 24 || c->family_len == 0 || c->family_len > 3)
        return false;
    if (c->value_len != 0 && c->value_len != 8)
        return false;
    uint64_t h = key_hash(c);
    return c->value_len == 0 || memcmp(c->value, &h, sizeof(h)) == 0;
}

static int cmp_ptr(const void *a, const void *b)
{
    return cell_compare(*(const cell_t *const *)a, *(const cell_t *const *)b);
}

/* Sorts pointers to the cells and drops exact duplicates; returns the unique count. */
static size_t sorted_unique(tcell *cells, size_t n, const cell_t **out, uint64_t read_point)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (cells[i].c.seq <= read_point)
            out[k++] = &cells[i].c;
    qsort(out, k, sizeof(*out), cmp_ptr);
    size_t u = 0;
    for (size_t i = 0; i < k; i++)
        if (u == 0 || cell_compare(out[u - 1], out[i]) != 0)
            out[u++] = out[i];
    return u;
}

static void assert_same_cell(const cell_t *got, const cell_t *want)
{
    if (cell_compare(got, want) != 0) {
        char a[256], b[256];
        cell_format(got, a, sizeof(a));
        cell_format(want, b, sizeof(b));
        fail_msg("got %s want %s", a, b);
    }
    assert_int_equal(got->value_len, want->value_len);
    assert_memory_equal(got->value, want->value, want->value_len);
}

static void assert_iter_matches(kv_iter *it, const cell_t **ref, size_t n)
{
    size_t i = 0;
    for (kv_iter_seek_to_first(it); kv_iter_valid(it); kv_iter_next(it), i++) {
        assert_true(i < n);
        assert_same_cell(kv_iter_cell(it), ref[i]);
    }
    assert_int_equal(i, n);
    assert_int_equal(kv_iter_status(it), ST_OK);
}

/* Index of the first ref >= key (n if none). */
static size_t lower_bound(const cell_t **ref, size_t n, const cell_t *key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cell_compare(ref[mid], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Index of the first ref > key (n if none). */
static size_t upper_bound(const cell_t **ref, size_t n, const cell_t *key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cell_compare(ref[mid], key) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A probe key: an existing cell, a perturbed (usually absent) cell, or a seek key. */
static cell_t probe_key(tcell *cells, size_t n, tcell *scratch)
{
    static const uint8_t lowest[] = {0x00}, highest[] = {0xff, 0xff};
    const cell_t *base = &cells[rnd() % n].c;
    switch (rnd() % 8) {
    case 0:
        return *base;
    case 1:
        return cell_first_on_row(base->row, base->row_len);
    case 2:
        return cell_first_on_column(base->row, base->row_len, base->family, base->family_len,
                                    base->qualifier, base->qualifier_len);
    case 3:
        return cell_last_on_column(base->row, base->row_len, base->family, base->family_len,
                                   base->qualifier, base->qualifier_len);
    case 4:
        random_cell(scratch, 1000);
        if (rnd() % 4 == 0) /* a row that is never written */
            scratch->c.row_len = (uint32_t)make_row(scratch->row, N_ROWS + rnd() % 100);
        return scratch->c;
    case 5:
        return cell_first_on_row(lowest, rnd() % 2);
    case 6:
        return cell_first_on_row(highest, 2);
    default: {
        cell_t k = *base;
        k.seq = rnd() % 1002;
        k.ts += (int64_t)(rnd() % 3) - 1;
        return k;
    }
    }
}

static void check_seeks(kv_iter *it, tcell *cells, size_t n, const cell_t **ref, size_t nref,
                        int probes)
{
    tcell scratch;
    for (int p = 0; p < probes; p++) {
        cell_t key = probe_key(cells, n, &scratch);
        size_t ge = lower_bound(ref, nref, &key);
        kv_iter_seek(it, &key);
        if (ge == nref) {
            assert_false(kv_iter_valid(it));
        } else {
            assert_true(kv_iter_valid(it));
            assert_same_cell(kv_iter_cell(it), ref[ge]);
            kv_iter_next(it);
            if (ge + 1 < nref)
                assert_same_cell(kv_iter_cell(it), ref[ge + 1]);
            else
                assert_false(kv_iter_valid(it));
        }
        size_t le = upper_bound(ref, nref, &key);
        kv_iter_seek_for_prev(it, &key);
        if (le == 0) {
            assert_false(kv_iter_valid(it));
        } else {
            assert_true(kv_iter_valid(it));
            assert_same_cell(kv_iter_cell(it), ref[le - 1]);
        }
    }
}

static tcell *make_cells(size_t n, uint64_t max_seq)
{
    tcell *cells = malloc(n * sizeof(*cells));
    assert_non_null(cells);
    for (size_t i = 0; i < n; i++) {
        random_cell(&cells[i], max_seq);
        if (i > 0 && rnd() % 100 == 0) { /* an exact duplicate of an earlier cell */
            cells[i] = cells[rnd() % i];
            cells[i].c.row = cells[i].row;
            cells[i].c.value = cells[i].value;
        }
    }
    return cells;
}

static void test_random_inserts_come_out_sorted(void **state)
{
    tcell *cells = make_cells(N_CELLS, 1000);
    const cell_t **ref = malloc(N_CELLS * sizeof(*ref));
    assert_non_null(ref);
    memstore *m = memstore_new();
    assert_non_null(m);
    for (size_t i = 0; i < N_CELLS; i++)
        assert_int_equal(memstore_add(m, &cells[i].c), ST_OK);
    size_t nref = sorted_unique(cells, N_CELLS, ref, UINT64_MAX);
    assert_true(nref < N_CELLS); /* the generator produces some exact duplicates */
    assert_int_equal(memstore_count(m), nref);
    kv_iter *it = memstore_iter(m, UINT64_MAX);
    assert_non_null(it);
    assert_iter_matches(it, ref, nref);
    check_seeks(it, cells, N_CELLS, ref, nref, N_PROBES);
    kv_iter_destroy(it);
    memstore_unref(m);
    free(ref);
    free(cells);
}

static void test_read_point_hides_newer_cells(void **state)
{
    enum { N = 30000 };
    tcell *cells = make_cells(N, 1000);
    const cell_t **ref = malloc(N * sizeof(*ref));
    assert_non_null(ref);
    memstore *m = memstore_new();
    assert_non_null(m);
    for (size_t i = 0; i < N; i++)
        assert_int_equal(memstore_add(m, &cells[i].c), ST_OK);
    const uint64_t points[] = {0, 1, 37, 500, 990, 1000};
    for (size_t p = 0; p < sizeof(points) / sizeof(points[0]); p++) {
        size_t nref = sorted_unique(cells, N, ref, points[p]);
        kv_iter *it = memstore_iter(m, points[p]);
        assert_non_null(it);
        assert_iter_matches(it, ref, nref);
        for (kv_iter_seek_to_first(it); kv_iter_valid(it); kv_iter_next(it))
            assert_true(kv_iter_cell(it)->seq <= points[p]);
        /* a low read point hides almost everything, so each seek walks far */
        check_seeks(it, cells, N, ref, nref, points[p] < 100 ? 300 : N_PROBES);
        kv_iter_destroy(it);
    }
    memstore_unref(m);
    free(ref);
    free(cells);
}

/* Many versions of one column that only differ in seq: seek_for_prev must walk back
 * over a long run of invisible cells. */
static void test_seek_for_prev_skips_invisible_run(void **state)
{
    memstore *m = memstore_new();
    assert_non_null(m);
    tcell t;
    fill_cell(&t, 1, 1, 0, 100, 0, 3); /* empty qualifier: sorts before column "q" */
    assert_int_equal(memstore_add(m, &t.c), ST_OK);
    for (uint64_t seq = 1; seq <= 200; seq++) {
        fill_cell(&t, 1, 1, 1, 100, 0, seq);
        assert_int_equal(memstore_add(m, &t.c), ST_OK);
    }
    fill_cell(&t, 1, 1, 1, 100, 0, 1);
    cell_t after = cell_last_on_column(t.c.row, t.c.row_len, t.c.family, t.c.family_len,
                                       t.c.qualifier, t.c.qualifier_len);
    kv_iter *it = memstore_iter(m, 7);
    kv_iter_seek_for_prev(it, &after);
    assert_true(kv_iter_valid(it));
    assert_int_equal(kv_iter_cell(it)->seq, 1); /* seq descending: seq 1 sorts last */
    fill_cell(&t, 1, 1, 1, 100, 0, 150);
    /* last visible <= seq 150: seqs 150..200 are hidden, so the empty-qualifier cell */
    kv_iter_seek_for_prev(it, &t.c);
    assert_true(kv_iter_valid(it));
    assert_int_equal(kv_iter_cell(it)->qualifier_len, 0);
    assert_int_equal(kv_iter_cell(it)->seq, 3);
    kv_iter_seek(it, &t.c); /* first visible >= seq 150: seq 7 */
    assert_true(kv_iter_valid(it));
    assert_int_equal(kv_iter_cell(it)->seq, 7);
    kv_iter_destroy(it);
    it = memstore_iter(m, 2); /* now the empty-qualifier cell is hidden too */
    kv_iter_seek_for_prev(it, &t.c);
    assert_false(kv_iter_valid(it));
    kv_iter_destroy(it);
    memstore_unref(m);
}

static void test_duplicates_are_noop(void **state)
{
    memstore *m = memstore_new();
    assert_non_null(m);
    tcell t;
    fill_cell(&t, 5, 0, 1, 10, 0, 3);
    assert_int_equal(memstore_add(m, &t.c), ST_OK);
    size_t size = memstore_size(m);
    tcell other = t;
    other.c.row = other.row;
    other.c.value = (const uint8_t *)"different-value";
    other.c.value_len = 15;
    assert_int_equal(memstore_add(m, &t.c), ST_OK);
    assert_int_equal(memstore_add(m, &other.c), ST_OK);
    assert_int_equal(memstore_count(m), 1);
    assert_int_equal(memstore_size(m), size);
    kv_iter *it = memstore_iter(m, UINT64_MAX);
    kv_iter_seek_to_first(it);
    assert_true(kv_iter_valid(it));
    assert_same_cell(kv_iter_cell(it), &t.c);
    kv_iter_next(it);
    assert_false(kv_iter_valid(it));
    fill_cell(&other, 5, 0, 1, 10, 0, 4); /* same column/ts/type, other seq: distinct */
    assert_int_equal(memstore_add(m, &other.c), ST_OK);
    assert_int_equal(memstore_count(m), 2);
    kv_iter_destroy(it);
    memstore_unref(m);
}

static void test_stats(void **state)
{
    memstore *m = memstore_new();
    assert_non_null(m);
    assert_int_equal(memstore_count(m), 0);
    assert_int_equal(memstore_size(m), 0);
    assert_int_equal(memstore_max_seq(m), 0);
    assert_true(memstore_min_ts(m) == INT64_MAX);
    assert_true(memstore_max_ts(m) == INT64_MIN);
    kv_iter *it = memstore_iter(m, UINT64_MAX);
    kv_iter_seek_to_first(it);
    assert_false(kv_iter_valid(it));
    kv_iter_destroy(it);

    const int64_t ts[] = {50, -3, 1000, 7};
    const uint64_t seq[] = {9, 4, 2, 30};
    size_t last = 0;
    size_t encoded = 0;
    tcell t;
    for (int i = 0; i < 4; i++) {
        fill_cell(&t, (uint64_t)i + 1, 1, 1, ts[i], 0, seq[i]);
        encoded += cell_encoded_len(&t.c);
        assert_int_equal(memstore_add(m, &t.c), ST_OK);
        assert_true(memstore_size(m) > last);
        last = memstore_size(m);
    }
    assert_true(memstore_size(m) >= encoded);
    assert_true(memstore_size(m) < encoded + 4 * 256);
    assert_int_equal(memstore_count(m), 4);
    assert_int_equal(memstore_max_seq(m), 30);
    assert_true(memstore_min_ts(m) == -3);
    assert_true(memstore_max_ts(m) == 1000);
    memstore_unref(m);
}

static void test_iterator_keeps_memstore_alive(void **state)
{
    memstore *m = memstore_new();
    assert_non_null(m);
    tcell cells[64];
    for (int i = 0; i < 64; i++) {
        fill_cell(&cells[i], (uint64_t)i, i % 4, i % 6, i, 0, (uint64_t)i + 1);
        cells[i].c.row = cells[i].row;
        cells[i].c.value = cells[i].value;
        assert_int_equal(memstore_add(m, &cells[i].c), ST_OK);
    }
    kv_iter *it = memstore_iter(m, UINT64_MAX);
    kv_iter *it2 = memstore_iter(m, UINT64_MAX);
    memstore_unref(m); /* the owner lets go; the iterators still hold references */
    kv_iter_destroy(it2);
    const cell_t *ref[64];
    size_t n = sorted_unique(cells, 64, ref, UINT64_MAX);
    assert_int_equal(n, 64);
    assert_iter_matches(it, ref, n);
    kv_iter_destroy(it);
}

/* ---- concurrency ---- */

#define N_WRITERS 4
#define N_READERS 2
#define PER_WRITER 25000

typedef struct conc_ctx {
    memstore *m;
    tcell *cells; /* N_WRITERS * PER_WRITER, writer w owns slice w */
    atomic_int writers_left;
    atomic_int reader_passes;
    atomic_int failures;
} conc_ctx;

typedef struct conc_arg {
    conc_ctx *ctx;
    int id;
} conc_arg;

static void *writer_main(void *p)
{
    conc_arg *a = p;
    tcell *mine = a->ctx->cells + (size_t)a->id * PER_WRITER;
    tcell *theirs = a->ctx->cells + (size_t)((a->id + 1) % N_WRITERS) * PER_WRITER;
    for (size_t i = 0; i < PER_WRITER; i++) {
        if (memstore_add(a->ctx->m, &mine[i].c) != ST_OK)
            atomic_fetch_add(&a->ctx->failures, 1);
        /* racing duplicates: the neighbour adds this same cell at about the same time */
        if (memstore_add(a->ctx->m, &theirs[i].c) != ST_OK)
            atomic_fetch_add(&a->ctx->failures, 1);
    }
    atomic_fetch_sub(&a->ctx->writers_left, 1);
    return NULL;
}

/* One full pass: every cell well-formed and strictly increasing; returns false on error. */
static bool reader_pass(memstore *m, uint64_t *seen)
{
    kv_iter *it = memstore_iter(m, UINT64_MAX);
    if (!it)
        return false;
    const cell_t *prev = NULL;
    cell_t prev_copy;
    bool ok = true;
    *seen = 0;
    for (kv_iter_seek_to_first(it); ok && kv_iter_valid(it); kv_iter_next(it)) {
        const cell_t *c = kv_iter_cell(it);
        ok = well_formed(c) && (!prev || cell_compare(prev, c) < 0);
        /* a node a reader can reach has its row's bloom bits set already */
        ok = ok && memstore_may_contain_row(m, c->row, c->row_len);
        prev_copy = *c; /* cells live in the arena, which outlives the pass */
        prev = &prev_copy;
        (*seen)++;
    }
    for (int i = 0; ok && i < 200; i++) {
        tcell probe;
        fill_cell(&probe, rnd() % N_ROWS, 1, 2, 5, 0, 1);
        kv_iter_seek(it, &probe.c);
        ok = !kv_iter_valid(it) || cell_compare(kv_iter_cell(it), &probe.c) >= 0;
        kv_iter_seek_for_prev(it, &probe.c);
        ok = ok && (!kv_iter_valid(it) || cell_compare(kv_iter_cell(it), &probe.c) <= 0);
    }
    kv_iter_destroy(it);
    return ok;
}

static void *reader_main(void *p)
{
    conc_ctx *ctx = p;
    uint64_t last = 0, seen = 0;
    for (;;) {
        bool writers_done = atomic_load(&ctx->writers_left) == 0;
        if (!reader_pass(ctx->m, &seen) || seen < last)
            atomic_fetch_add(&ctx->failures, 1);
        last = seen;
        atomic_fetch_add(&ctx->reader_passes, 1);
        if (writers_done)
            break;
    }
    return NULL;
}

static void test_concurrent_writers_and_readers(void **state)
{
    size_t total = (size_t)N_WRITERS * PER_WRITER;
    conc_ctx ctx = {.m = memstore_new(), .cells = malloc(total * sizeof(tcell))};
    assert_non_null(ctx.m);
    assert_non_null(ctx.cells);
    for (size_t i = 0; i < total; i++) {
        /* distinct cells: the (row, family, qualifier, ts, type) grid holds no duplicate */
        uint64_t k = (i * 2654435761u) % total;
        fill_cell(&ctx.cells[i], k % N_ROWS, (int)(k / N_ROWS % 4), (int)(k / N_ROWS / 4 % 6),
                  (int64_t)(k / N_ROWS / 24), (int)(i % 5), 1 + i);
        ctx.cells[i].c.row = ctx.cells[i].row;
        ctx.cells[i].c.value = ctx.cells[i].value;
    }
    atomic_init(&ctx.writers_left, N_WRITERS);
    atomic_init(&ctx.reader_passes, 0);
    atomic_init(&ctx.failures, 0);
    pthread_t writers[N_WRITERS], readers[N_READERS];
    conc_arg args[N_WRITERS];
    for (int r = 0; r < N_READERS; r++)
        assert_int_equal(pthread_create(&readers[r], NULL, reader_main, &ctx), 0);
    for (int w = 0; w < N_WRITERS; w++) {
        args[w] = (conc_arg){.ctx = &ctx, .id = w};
        assert_int_equal(pthread_create(&writers[w], NULL, writer_main, &args[w]), 0);
    }
    for (int w = 0; w < N_WRITERS; w++)
        pthread_join(writers[w], NULL);
    for (int r = 0; r < N_READERS; r++)
        pthread_join(readers[r], NULL);
    assert_int_equal(atomic_load(&ctx.failures), 0);
    assert_true(atomic_load(&ctx.reader_passes) >= N_READERS * 2);
    assert_int_equal(memstore_count(ctx.m), total);
    assert_int_equal(memstore_max_seq(ctx.m), total);
    const cell_t **ref = malloc(total * sizeof(*ref));
    assert_non_null(ref);
    assert_int_equal(sorted_unique(ctx.cells, total, ref, UINT64_MAX), total);
    kv_iter *it = memstore_iter(ctx.m, UINT64_MAX);
    assert_iter_matches(it, ref, total);
    kv_iter_destroy(it);
    memstore_unref(ctx.m);
    free(ref);
    free(ctx.cells);
}

/* The row bloom: sized from the flush size, never a false negative (every row added,
 * delete markers included), and few false positives at the rows a memstore holds. */
static void test_row_bloom(void **state)
{
    (void)state;
    assert_int_equal(memstore_row_bloom_bytes(0), MEMSTORE_ROW_BLOOM_MAX); /* 1 MiB, capped */
    assert_int_equal(memstore_row_bloom_bytes(16u << 20), 128u << 10);
    assert_int_equal(memstore_row_bloom_bytes(1u << 20), 8u << 10);
    assert_int_equal(memstore_row_bloom_bytes(256u << 10), MEMSTORE_ROW_BLOOM_MIN);
    assert_int_equal(memstore_row_bloom_bytes(1ull << 40), MEMSTORE_ROW_BLOOM_MAX);
    memstore *m = memstore_new_sized(64u << 20); /* capped: 2 Mi bits */
    assert_non_null(m);
    enum { ROWS = 100000 };
    tcell t;
    char row[32];
    for (int i = 0; i < ROWS; i++) {
        fill_cell(&t, 0, 1, 1, 7, i % 5 == 0 ? 4 : 0, 1 + (uint64_t)i); /* some are markers */
        int n = snprintf(row, sizeof(row), "bloomrow%08d", i * 2);
        t.c.row = (const uint8_t *)row;
        t.c.row_len = (uint32_t)n;
        t.c.value = t.value;
        assert_int_equal(memstore_add(m, &t.c), ST_OK);
    }
    int fp = 0;
    for (int i = 0; i < ROWS; i++) {
        int n = snprintf(row, sizeof(row), "bloomrow%08d", i * 2);
        assert_true(memstore_may_contain_row(m, (const uint8_t *)row, (size_t)n));
        n = snprintf(row, sizeof(row), "bloomrow%08d", i * 2 + 1); /* never added */
        fp += memstore_may_contain_row(m, (const uint8_t *)row, (size_t)n);
    }
    assert_true(fp < ROWS / 50); /* under 2 % at 21 bits per row */
    memstore_unref(m);
    memstore *empty = memstore_new();
    assert_false(memstore_may_contain_row(empty, (const uint8_t *)"r", 1));
    memstore_unref(empty);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_row_bloom),
        cmocka_unit_test(test_random_inserts_come_out_sorted),
        cmocka_unit_test(test_read_point_hides_newer_cells),
        cmocka_unit_test(test_seek_for_prev_skips_invisible_run),
        cmocka_unit_test(test_duplicates_are_noop),
        cmocka_unit_test(test_stats),
        cmocka_unit_test(test_iterator_keeps_memstore_alive),
        cmocka_unit_test(test_concurrent_writers_and_readers),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
