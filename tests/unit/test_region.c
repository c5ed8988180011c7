/*
 * test_region.c - the region on a real engine: writes and reads across families,
 * flush, compaction, reopen with WAL replay, row atomicity and read-modify-write
 * under concurrency, write blocking on store-file count, the families' BLOCKCACHE and
 * IN_MEMORY in the engine's block cache.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/clock.h"
#include "common/fileio.h"
#include "common/status.h"
#include "common/taskmon.h"
#include "tests/support/testutil.h"

typedef struct fixture {
    char *dir;
    engine *eng;
    region *reg;
    table_schema schema;
} fixture;

static void open_engine(fixture *f, engine_options *o)
{
    engine_options d;
    if (!o) {
        engine_options_init(&d);
        o = &d;
    }
    o->root_dir = f->dir;
    assert_int_equal(engine_open(o, &f->eng), ST_OK);
    region_info info = tu_whole_region();
    assert_int_equal(region_open(f->eng, &f->schema, &info, &f->reg), ST_OK);
}

static void close_engine(fixture *f, bool flush)
{
    assert_int_equal(region_close(f->reg, flush), ST_OK);
    f->reg = NULL;
    engine_close(f->eng);
    f->eng = NULL;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    f->dir = tu_tempdir("region");
    tu_schema(&f->schema, "a,b");
    open_engine(f, NULL);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    if (f->reg)
        region_close(f->reg, false);
    engine_close(f->eng);
    tu_rmdir(f->dir);
    free(f);
    return 0;
}

static void put_get_across_families(void **state)
{
    fixture *f = *state;
    char v[64];
    assert_int_equal(tu_put(f->reg, "row1", "a", "q", "va", CELL_LATEST_TIMESTAMP), ST_OK);
    assert_int_equal(tu_put(f->reg, "row1", "b", "q", "vb", CELL_LATEST_TIMESTAMP), ST_OK);
    assert_int_equal(tu_get(f->reg, "row1", "a", "q", v, sizeof(v)), 1);
    assert_string_equal(v, "va");
    assert_int_equal(tu_get(f->reg, "row1", "b", "q", v, sizeof(v)), 1);
    assert_string_equal(v, "vb");
    assert_int_equal(tu_get(f->reg, "row2", "a", "q", v, sizeof(v)), 0);
    /* Whole row. */
    scan_result res;
    scan_result_init(&res);
    assert_int_equal(region_get(f->reg, (const uint8_t *)"row1", 4, NULL, &res), ST_OK);
    assert_int_equal(res.ncells, 2);
    scan_result_free(&res);
}

static void unknown_family_is_refused(void **state)
{
    fixture *f = *state;
    assert_int_equal(tu_put(f->reg, "row1", "zz", "q", "v", CELL_LATEST_TIMESTAMP),
                     ST_UNKNOWN_FAMILY);
    assert_non_null(strstr(st_errmsg(), "zz"));
}

static void row_outside_region_is_refused(void **state)
{
    fixture *f = *state;
    region_info info = tu_whole_region();
    snprintf(info.encoded_name, sizeof(info.encoded_name), "r2");
    info.start_key = (const uint8_t *)"m";
    info.start_key_len = 1;
    region *r2 = NULL;
    assert_int_equal(region_open(f->eng, &f->schema, &info, &r2), ST_OK);
    assert_int_equal(tu_put(r2, "a", "a", "q", "v", CELL_LATEST_TIMESTAMP), ST_NOT_SERVING);
    assert_int_equal(tu_put(r2, "m", "a", "q", "v", CELL_LATEST_TIMESTAMP), ST_OK);
    assert_int_equal(region_close(r2, true), ST_OK);
}

static int count_rows(region *r, bool reversed, const char *start, const char *stop)
{
    scan_spec spec;
    memset(&spec, 0, sizeof(spec));
    spec.reversed = reversed;
    if (start) {
        spec.start_row = (const uint8_t *)start;
        spec.start_row_len = strlen(start);
    }
    if (stop) {
        spec.stop_row = (const uint8_t *)stop;
        spec.stop_row_len = strlen(stop);
    }
    region_scanner *s = NULL;
    assert_int_equal(region_scanner_open(r, &spec, &s), ST_OK);
    scan_result res;
    scan_result_init(&res);
    int n = 0, rc;
    char prev[64] = "";
    while ((rc = region_scanner_next(s, &res)) == 1) {
        char row[64];
        snprintf(row, sizeof(row), "%.*s", (int)res.cells[0].row_len,
                 (const char *)res.cells[0].row);
        if (n)
            assert_true(reversed ? strcmp(row, prev) < 0 : strcmp(row, prev) > 0);
        snprintf(prev, sizeof(prev), "%s", row);
        n++;
    }
    assert_int_equal(rc, 0);
    scan_result_free(&res);
    region_scanner_close(s);
    return n;
}

static void scan_over_memstore_and_files(void **state)
{
    fixture *f = *state;
    char row[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(row, sizeof(row), "row%05d", i);
        assert_int_equal(tu_put(f->reg, row, i % 2 ? "a" : "b", "q", row, CELL_LATEST_TIMESTAMP),
                         ST_OK);
        if (i == 400 || i == 700)
            assert_int_equal(region_flush(f->reg), ST_OK);
    }
    assert_int_equal(count_rows(f->reg, false, NULL, NULL), 1000);
    assert_int_equal(count_rows(f->reg, true, NULL, NULL), 1000);
    assert_int_equal(count_rows(f->reg, false, "row00100", "row00200"), 100);
    assert_int_equal(count_rows(f->reg, true, "row00199", "row00099"), 100);
    region_stats st;
    region_get_stats(f->reg, &st);
    assert_true(st.store_files >= 2);
    assert_int_equal(region_compact(f->reg, true), ST_OK);
    region_get_stats(f->reg, &st);
    assert_int_equal(st.store_files, 2); /* one per family */
    assert_int_equal(count_rows(f->reg, false, NULL, NULL), 1000);
}

static void reopen_replays_wal(void **state)
{
    fixture *f = *state;
    char row[32], v[64];
    for (int i = 0; i < 500; i++) {
        snprintf(row, sizeof(row), "k%04d", i);
        assert_int_equal(tu_put(f->reg, row, "a", "q", row, CELL_LATEST_TIMESTAMP), ST_OK);
        if (i == 200)
            assert_int_equal(region_flush(f->reg), ST_OK);
    }
    /* Close without a flush: the edits after seq 201 live only in the WAL. */
    close_engine(f, false);
    open_engine(f, NULL);
    for (int i = 0; i < 500; i++) {
        snprintf(row, sizeof(row), "k%04d", i);
        assert_int_equal(tu_get(f->reg, row, "a", "q", v, sizeof(v)), 1);
        assert_string_equal(v, row);
    }
    /* New writes after replay get higher sequence ids and win. */
    assert_int_equal(tu_put(f->reg, "k0001", "a", "q", "new", CELL_LATEST_TIMESTAMP), ST_OK);
    close_engine(f, true);
    open_engine(f, NULL);
    assert_int_equal(tu_get(f->reg, "k0001", "a", "q", v, sizeof(v)), 1);
    assert_string_equal(v, "new");
}

static void deletes_and_major_compaction(void **state)
{
    fixture *f = *state;
    char v[64];
    assert_int_equal(tu_put(f->reg, "r", "a", "q", "v1", 100), ST_OK);
    cell_t d;
    memset(&d, 0, sizeof(d));
    d.family = (const uint8_t *)"a";
    d.family_len = 1;
    d.qualifier = (const uint8_t *)"q";
    d.qualifier_len = 1;
    d.ts = 200;
    d.type = CELL_TYPE_DELETE_COLUMN;
    mutation m = {(const uint8_t *)"r", 1, &d, 1, DURABILITY_USE_DEFAULT};
    assert_int_equal(region_mutate(f->reg, &m), ST_OK);
    assert_int_equal(tu_get(f->reg, "r", "a", "q", v, sizeof(v)), 0);
    /* Delete masks a later put with an older timestamp ... */
    assert_int_equal(tu_put(f->reg, "r", "a", "q", "v2", 150), ST_OK);
    assert_int_equal(tu_get(f->reg, "r", "a", "q", v, sizeof(v)), 0);
    assert_int_equal(region_flush(f->reg), ST_OK);
    assert_int_equal(region_compact(f->reg, true), ST_OK);
    region_stats st;
    region_get_stats(f->reg, &st);
    /* Everything was masked and dropped: one empty file carries the flushed seq. */
    assert_int_equal(st.store_files, 1);
    /* ... until major compaction removed the marker. */
    assert_int_equal(tu_put(f->reg, "r", "a", "q", "v3", 150), ST_OK);
    assert_int_equal(tu_get(f->reg, "r", "a", "q", v, sizeof(v)), 1);
    assert_string_equal(v, "v3");
}

/* ---- concurrency ---- */

typedef struct race {
    fixture *f;
    int id;
    int iters;
    _Atomic int stop;
    _Atomic int *stop_ptr;
    _Atomic long torn;
    _Atomic long winners;
    /* concurrent_reader_never_sees_half_a_row: what it actually tested */
    _Atomic long reads_started;  /* region_get calls begun */
    _Atomic long reads_active;   /* region_get calls under way */
    _Atomic long nonempty_reads; /* reads that found the row (and so checked both halves) */
    _Atomic long flushes;        /* flushes that wrote the memstore out */
    _Atomic long overlapped;     /* of those, flushes during which a read ran */
} race;

static void *multi_family_writer(void *arg)
{
    race *rc = arg;
    char v[32];
    for (int i = 0; !atomic_load(rc->stop_ptr); i++) {
        snprintf(v, sizeof(v), "%d-%d", rc->id, i);
        cell_t cells[2];
        memset(cells, 0, sizeof(cells));
        for (int k = 0; k < 2; k++) {
            cells[k].family = (const uint8_t *)(k ? "b" : "a");
            cells[k].family_len = 1;
            cells[k].qualifier = (const uint8_t *)"q";
            cells[k].qualifier_len = 1;
            cells[k].value = (const uint8_t *)v;
            cells[k].value_len = (uint32_t)strlen(v);
            cells[k].ts = CELL_LATEST_TIMESTAMP;
            cells[k].type = CELL_TYPE_PUT;
        }
        mutation m = {(const uint8_t *)"hot", 3, cells, 2, DURABILITY_SKIP_WAL};
        if (region_mutate(rc->f->reg, &m) != ST_OK)
            atomic_fetch_add(&rc->torn, 1000000);
    }
    return NULL;
}

static void *multi_family_reader(void *arg)
{
    race *rc = arg;
    scan_result res;
    scan_result_init(&res);
    while (!atomic_load(&rc->stop)) {
        atomic_fetch_add(&rc->reads_active, 1);
        atomic_fetch_add(&rc->reads_started, 1);
        int st = region_get(rc->f->reg, (const uint8_t *)"hot", 3, NULL, &res);
        atomic_fetch_sub(&rc->reads_active, 1);
        if (st != ST_OK) {
            atomic_fetch_add(&rc->torn, 1);
            continue;
        }
        if (res.ncells == 0)
            continue;
        atomic_fetch_add(&rc->nonempty_reads, 1);
        if (res.ncells != 2 || res.cells[0].value_len != res.cells[1].value_len ||
            memcmp(res.cells[0].value, res.cells[1].value, res.cells[0].value_len) != 0)
            atomic_fetch_add(&rc->torn, 1);
    }
    scan_result_free(&res);
    return NULL;
}

/* Flushes in a loop. A flush counts when it wrote a file (region_stats.flushes moved);
 * it overlapped reading when a read was under way as it began or one began before it
 * returned. */
static void *flusher(void *arg)
{
    race *rc = arg;
    region_stats before, after;
    while (!atomic_load(&rc->stop)) {
        region_get_stats(rc->f->reg, &before);
        long active = atomic_load(&rc->reads_active);
        long started = atomic_load(&rc->reads_started);
        region_flush(rc->f->reg);
        bool read_during = active > 0 || atomic_load(&rc->reads_started) != started;
        region_get_stats(rc->f->reg, &after);
        if (after.flushes == before.flushes)
            continue;
        atomic_fetch_add(&rc->flushes, 1);
        if (read_during)
            atomic_fetch_add(&rc->overlapped, 1);
    }
    return NULL;
}

#define HALF_ROW_MIN_MS 2000
#define HALF_ROW_MAX_MS 30000

/* Writers put the same value into families a and b of one row; a flusher keeps
 * swapping memstores for files; readers must always see both halves or neither. It runs
 * for HALF_ROW_MIN_MS, longer (up to HALF_ROW_MAX_MS) until at least one read found the
 * row and one flush overlapped a read, and fails if it never got both: without them it
 * would have tested nothing. */
static void concurrent_reader_never_sees_half_a_row(void **state)
{
    fixture *f = *state;
    race rc = {.f = f};
    rc.stop_ptr = &rc.stop;
    enum { W = 2, R = 3 };
    pthread_t w[W], rd[R], fl;
    race ws[W];
    pthread_create(&fl, NULL, flusher, &rc);
    for (int i = 0; i < W; i++) {
        ws[i] = rc;
        ws[i].id = i;
        ws[i].stop_ptr = &rc.stop;
        pthread_create(&w[i], NULL, multi_family_writer, &ws[i]);
    }
    for (int i = 0; i < R; i++)
        pthread_create(&rd[i], NULL, multi_family_reader, &rc);
    uint64_t start = clock_mono_ns();
    clock_sleep_ms(HALF_ROW_MIN_MS);
    while ((atomic_load(&rc.nonempty_reads) == 0 || atomic_load(&rc.overlapped) == 0) &&
           clock_mono_ns() - start < (uint64_t)HALF_ROW_MAX_MS * 1000000ull)
        clock_sleep_ms(100);
    atomic_store(&rc.stop, 1);
    for (int i = 0; i < W; i++)
        pthread_join(w[i], NULL);
    for (int i = 0; i < R; i++)
        pthread_join(rd[i], NULL);
    pthread_join(fl, NULL);
    long nonempty = atomic_load(&rc.nonempty_reads), overlapped = atomic_load(&rc.overlapped);
    printf("concurrent_reader_never_sees_half_a_row: %ld non-empty reads, %ld of %ld flushes "
           "overlapped a read, in %" PRIu64 " ms\n",
           nonempty, overlapped, atomic_load(&rc.flushes), (clock_mono_ns() - start) / 1000000);
    assert_int_equal(atomic_load(&rc.torn) + atomic_load(&ws[0].torn) + atomic_load(&ws[1].torn),
                     0);
    if (nonempty == 0 || overlapped == 0)
        fail_msg("tested nothing in %d ms: %ld non-empty reads, %ld flushes overlapping a read",
                 HALF_ROW_MAX_MS, nonempty, overlapped);
}

static void *incrementer(void *arg)
{
    race *rc = arg;
    cell_t col;
    memset(&col, 0, sizeof(col));
    col.family = (const uint8_t *)"a";
    col.family_len = 1;
    col.qualifier = (const uint8_t *)"n";
    col.qualifier_len = 1;
    for (int i = 0; i < rc->iters; i++) {
        int64_t amount = 1, out = 0;
        if (region_increment(rc->f->reg, (const uint8_t *)"ctr", 3, &col, &amount, 1,
                             DURABILITY_USE_DEFAULT, &out) != ST_OK)
            atomic_fetch_add(&rc->torn, 1);
    }
    return NULL;
}

static void concurrent_increments_add_up(void **state)
{
    fixture *f = *state;
    enum { N = 4, M = 500 };
    race rc = {.f = f, .iters = M};
    pthread_t t[N];
    for (int i = 0; i < N; i++)
        pthread_create(&t[i], NULL, incrementer, &rc);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&rc.torn), 0);
    scan_result res;
    scan_result_init(&res);
    assert_int_equal(region_get(f->reg, (const uint8_t *)"ctr", 3, NULL, &res), ST_OK);
    assert_int_equal(res.ncells, 1);
    assert_int_equal(res.cells[0].value_len, 8);
    assert_int_equal((int64_t)be64_get(res.cells[0].value), N * M);
    scan_result_free(&res);
    /* A non-counter value is refused with the column named. */
    assert_int_equal(tu_put(f->reg, "txt", "a", "n", "abc", CELL_LATEST_TIMESTAMP), ST_OK);
    cell_t col = {0};
    col.family = (const uint8_t *)"a";
    col.family_len = 1;
    col.qualifier = (const uint8_t *)"n";
    col.qualifier_len = 1;
    int64_t one = 1, out;
    assert_int_equal(region_increment(f->reg, (const uint8_t *)"txt", 3, &col, &one, 1,
                                      DURABILITY_USE_DEFAULT, &out),
                     ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "a:n"));
}

static void *cas_racer(void *arg)
{
    race *rc = arg;
    cell_t c;
    memset(&c, 0, sizeof(c));
    c.family = (const uint8_t *)"a";
    c.family_len = 1;
    c.qualifier = (const uint8_t *)"lock";
    c.qualifier_len = 4;
    c.value = (const uint8_t *)"mine";
    c.value_len = 4;
    c.ts = CELL_LATEST_TIMESTAMP;
    c.type = CELL_TYPE_PUT;
    mutation m = {(const uint8_t *)"cas", 3, &c, 1, DURABILITY_USE_DEFAULT};
    bool applied = false;
    int st = region_check_and_mutate(rc->f->reg, (const uint8_t *)"cas", 3, (const uint8_t *)"a",
                                     1, (const uint8_t *)"lock", 4, CMP_EQUAL, NULL, 0, &m,
                                     &applied);
    if (st != ST_OK)
        atomic_fetch_add(&rc->torn, 1);
    if (applied)
        atomic_fetch_add(&rc->winners, 1);
    return NULL;
}

static void check_and_mutate_race_has_one_winner(void **state)
{
    fixture *f = *state;
    enum { N = 8 };
    race rc = {.f = f};
    pthread_t t[N];
    for (int i = 0; i < N; i++)
        pthread_create(&t[i], NULL, cas_racer, &rc);
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&rc.torn), 0);
    assert_int_equal(atomic_load(&rc.winners), 1);
}

static void check_and_mutate_operators(void **state)
{
    fixture *f = *state;
    assert_int_equal(tu_put(f->reg, "c", "a", "q", "m", CELL_LATEST_TIMESTAMP), ST_OK);
    cell_t c = {0};
    c.family = (const uint8_t *)"a";
    c.family_len = 1;
    c.qualifier = (const uint8_t *)"x";
    c.qualifier_len = 1;
    c.value = (const uint8_t *)"1";
    c.value_len = 1;
    c.ts = CELL_LATEST_TIMESTAMP;
    c.type = CELL_TYPE_PUT;
    mutation m = {(const uint8_t *)"c", 1, &c, 1, DURABILITY_USE_DEFAULT};
    struct {
        compare_op op;
        const char *value;
        bool expect;
    } cases[] = {
        {CMP_EQUAL, "m", true},          {CMP_EQUAL, "n", false},
        {CMP_NOT_EQUAL, "n", true},      {CMP_NOT_EQUAL, "m", false},
        {CMP_LESS, "a", true},           {CMP_LESS, "z", false}, /* value < existing */
        {CMP_LESS_OR_EQUAL, "m", true},  {CMP_GREATER, "z", true},
        {CMP_GREATER, "a", false},       {CMP_GREATER_OR_EQUAL, "m", true},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        bool applied = !cases[i].expect;
        assert_int_equal(region_check_and_mutate(f->reg, (const uint8_t *)"c", 1,
                                                 (const uint8_t *)"a", 1, (const uint8_t *)"q", 1,
                                                 cases[i].op, (const uint8_t *)cases[i].value, 1,
                                                 &m, &applied),
                         ST_OK);
        assert_int_equal(applied, cases[i].expect);
    }
    /* Absent checks. */
    bool applied = false;
    assert_int_equal(region_check_and_mutate(f->reg, (const uint8_t *)"c", 1, (const uint8_t *)"a",
                                             1, (const uint8_t *)"none", 4, CMP_EQUAL, NULL, 0,
                                             &m, &applied),
                     ST_OK);
    assert_true(applied);
    assert_int_equal(region_check_and_mutate(f->reg, (const uint8_t *)"c", 1, (const uint8_t *)"a",
                                             1, (const uint8_t *)"q", 1, CMP_EQUAL, NULL, 0, &m,
                                             &applied),
                     ST_OK);
    assert_false(applied);
}

static void append_concatenates(void **state)
{
    fixture *f = *state;
    cell_t col = {0};
    col.family = (const uint8_t *)"b";
    col.family_len = 1;
    col.qualifier = (const uint8_t *)"log";
    col.qualifier_len = 3;
    col.value = (const uint8_t *)"ab";
    col.value_len = 2;
    scan_result out;
    scan_result_init(&out);
    assert_int_equal(region_append(f->reg, (const uint8_t *)"ap", 2, &col, 1,
                                   DURABILITY_USE_DEFAULT, &out),
                     ST_OK);
    assert_int_equal(region_append(f->reg, (const uint8_t *)"ap", 2, &col, 1,
                                   DURABILITY_USE_DEFAULT, &out),
                     ST_OK);
    assert_int_equal(out.ncells, 1);
    assert_int_equal(out.cells[0].value_len, 4);
    assert_memory_equal(out.cells[0].value, "abab", 4);
    scan_result_free(&out);
    char v[16];
    assert_int_equal(tu_get(f->reg, "ap", "b", "log", v, sizeof(v)), 1);
    assert_string_equal(v, "abab");
}

/* A READONLY table's region refuses every write with ST_PERMISSION naming the table and
 * the region; reads, flushes and compactions go on; reopened writable, writes work. */
static void read_only_region_refuses_writes(void **state)
{
    fixture *f = *state;
    assert_int_equal(tu_put(f->reg, "r", "a", "q", "before", CELL_LATEST_TIMESTAMP), ST_OK);
    close_engine(f, true);
    f->schema.read_only = true;
    open_engine(f, NULL);
    assert_int_equal(tu_put(f->reg, "r", "a", "q", "v", CELL_LATEST_TIMESTAMP), ST_PERMISSION);
    assert_non_null(strstr(st_errmsg(), "is read-only"));
    assert_non_null(strstr(st_errmsg(), tu_whole_region().encoded_name));
    cell_t col = {0};
    col.family = (const uint8_t *)"a";
    col.family_len = 1;
    col.qualifier = (const uint8_t *)"n";
    col.qualifier_len = 1;
    col.value = (const uint8_t *)"x";
    col.value_len = 1;
    int64_t one = 1, got = 0;
    assert_int_equal(region_increment(f->reg, (const uint8_t *)"r", 1, &col, &one, 1,
                                      DURABILITY_USE_DEFAULT, &got),
                     ST_PERMISSION);
    assert_int_equal(region_append(f->reg, (const uint8_t *)"r", 1, &col, 1,
                                   DURABILITY_USE_DEFAULT, NULL),
                     ST_PERMISSION);
    col.ts = CELL_LATEST_TIMESTAMP;
    col.type = CELL_TYPE_PUT;
    mutation m = {(const uint8_t *)"r", 1, &col, 1, DURABILITY_USE_DEFAULT};
    bool applied = true;
    assert_int_equal(region_check_and_mutate(f->reg, (const uint8_t *)"r", 1, (const uint8_t *)"a",
                                             1, (const uint8_t *)"q", 1, CMP_EQUAL,
                                             (const uint8_t *)"before", 6, &m, &applied),
                     ST_PERMISSION);
    int results[1] = {ST_OK};
    region_batch_mutate(f->reg, &m, 1, results);
    assert_int_equal(results[0], ST_PERMISSION);
    char v[32];
    assert_int_equal(tu_get(f->reg, "r", "a", "q", v, sizeof(v)), 1);
    assert_string_equal(v, "before");
    assert_int_equal(tu_get(f->reg, "r", "a", "n", v, sizeof(v)), 0);
    assert_int_equal(region_flush(f->reg), ST_OK);
    assert_int_equal(region_compact(f->reg, true), ST_OK);
    close_engine(f, true);
    f->schema.read_only = false;
    open_engine(f, NULL);
    assert_int_equal(tu_put(f->reg, "r", "a", "q", "after", CELL_LATEST_TIMESTAMP), ST_OK);
}

static void writes_wait_for_compaction_at_blocking_file_count(void **state)
{
    fixture *f = *state;
    close_engine(f, true);
    engine_options o;
    engine_options_init(&o);
    o.blocking_store_files = 4;
    o.compaction_min_files = 3;
    o.compaction_max_files = 3;
    o.compaction_ratio = 0.01; /* the ratio never passes for windows above min size ... */
    o.compaction_min_size = 0; /* ... so only the blocking rule can pick files */
    o.blocking_wait_ms = 20000;
    open_engine(f, &o);
    char row[32];
    for (int i = 0; i < 12; i++) {
        snprintf(row, sizeof(row), "f%02d", i);
        /* Waits (never fails) while the store is at 4 files. */
        assert_int_equal(tu_put(f->reg, row, "a", "q", row, CELL_LATEST_TIMESTAMP), ST_OK);
        assert_int_equal(region_flush(f->reg), ST_OK);
    }
    region_stats st;
    region_get_stats(f->reg, &st);
    assert_true(st.store_files <= 5);
    assert_true(st.compactions > 0);
    assert_int_equal(count_rows(f->reg, false, NULL, NULL), 12);
}

/* Regression: a crash between a compaction's rename and the removal of its inputs
 * leaves the same cells in two files. Reads must show each version once and the next
 * compaction must keep one copy instead of failing on the duplicate keys. */
static void duplicate_files_after_crash_compact_cleanly(void **state)
{
    fixture *f = *state;
    f->schema.families[0].versions = 3;
    close_engine(f, true);
    open_engine(f, NULL);
    assert_int_equal(tu_put(f->reg, "d", "a", "q", "v1", 10), ST_OK);
    assert_int_equal(tu_put(f->reg, "d", "a", "q", "v2", 20), ST_OK);
    assert_int_equal(region_flush(f->reg), ST_OK);
    close_engine(f, true);
    /* Copy the one store file of family a under a second name. */
    char *dir = NULL, **names = NULL;
    size_t n = 0;
    assert_true(asprintf(&dir, "%s/data/default/t/r1/a", f->dir) > 0);
    assert_int_equal(fio_list_dir(dir, &names, &n), ST_OK);
    assert_int_equal(n, 1);
    char *src = NULL, *dst = NULL;
    assert_true(asprintf(&src, "%s/%s", dir, names[0]) > 0);
    assert_true(asprintf(&dst, "%s/ffffffffffffffff00000000", dir) > 0);
    buf_t data = {0};
    assert_int_equal(fio_read_all(src, &data), ST_OK);
    assert_int_equal(fio_write_atomic(dst, data.data, data.len), ST_OK);
    buf_free(&data);
    fio_free_list(names, n);
    free(src);
    free(dst);
    free(dir);
    open_engine(f, NULL);
    scan_column col = {(const uint8_t *)"a", 1, (const uint8_t *)"q", 1};
    scan_spec spec = {0};
    spec.columns = &col;
    spec.ncolumns = 1;
    spec.max_versions = 3;
    scan_result res;
    scan_result_init(&res);
    assert_int_equal(region_get(f->reg, (const uint8_t *)"d", 1, &spec, &res), ST_OK);
    assert_int_equal(res.ncells, 2);
    assert_int_equal(region_compact(f->reg, true), ST_OK);
    assert_int_equal(region_get(f->reg, (const uint8_t *)"d", 1, &spec, &res), ST_OK);
    assert_int_equal(res.ncells, 2);
    scan_result_free(&res);
    region_stats st;
    region_get_stats(f->reg, &st);
    assert_int_equal(st.store_files, 1);
}

static mutation delete_of(const char *row, cell_t *d, const char *fam, const char *qual,
                          uint8_t type, int64_t ts)
{
    *d = tu_cell(fam, qual, NULL, ts, type);
    mutation m = {(const uint8_t *)row, strlen(row), d, 1, DURABILITY_USE_DEFAULT};
    return m;
}

static void row_delete_and_latest_version_delete(void **state)
{
    fixture *f = *state;
    f->schema.families[0].versions = 3;
    close_engine(f, true);
    open_engine(f, NULL);
    char v[16];
    assert_int_equal(tu_put(f->reg, "x", "a", "q", "old", 100), ST_OK);
    assert_int_equal(tu_put(f->reg, "x", "a", "q", "new", 200), ST_OK);
    /* Delete with the latest timestamp removes only the newest version. */
    cell_t d;
    mutation m = delete_of("x", &d, "a", "q", CELL_TYPE_DELETE, CELL_LATEST_TIMESTAMP);
    assert_int_equal(region_mutate(f->reg, &m), ST_OK);
    assert_int_equal(tu_get(f->reg, "x", "a", "q", v, sizeof(v)), 1);
    assert_string_equal(v, "old");
    /* A row delete is a DeleteFamily per family, even when a qualifier is passed. */
    assert_int_equal(tu_put(f->reg, "x", "b", "z", "bz", CELL_LATEST_TIMESTAMP), ST_OK);
    cell_t both[2];
    mutation m1 = delete_of("x", &both[0], "a", "ignored", CELL_TYPE_DELETE_FAMILY,
                            CELL_LATEST_TIMESTAMP);
    delete_of("x", &both[1], "b", "", CELL_TYPE_DELETE_FAMILY, CELL_LATEST_TIMESTAMP);
    m1.ncells = 2;
    m1.cells = both;
    assert_int_equal(region_mutate(f->reg, &m1), ST_OK);
    scan_result res;
    scan_result_init(&res);
    assert_int_equal(region_get(f->reg, (const uint8_t *)"x", 1, NULL, &res), ST_OK);
    assert_int_equal(res.ncells, 0);
    /* Newer writes after the row delete are visible. */
    assert_int_equal(tu_put(f->reg, "x", "a", "q", "again", CELL_LATEST_TIMESTAMP + 0), ST_OK);
    assert_int_equal(region_get(f->reg, (const uint8_t *)"x", 1, NULL, &res), ST_OK);
    assert_true(res.ncells <= 1);
    scan_result_free(&res);
}

static void server_timestamps_and_ttl(void **state)
{
    fixture *f = *state;
    f->schema.families[1].ttl_sec = 10;
    close_engine(f, true);
    open_engine(f, NULL);
    int64_t before = clock_now_ms();
    assert_int_equal(tu_put(f->reg, "t", "b", "q", "v", CELL_LATEST_TIMESTAMP), ST_OK);
    scan_result res;
    scan_result_init(&res);
    assert_int_equal(region_get(f->reg, (const uint8_t *)"t", 1, NULL, &res), ST_OK);
    assert_int_equal(res.ncells, 1);
    assert_true(res.cells[0].ts >= before && res.cells[0].ts <= clock_now_ms());
    /* 11 s later the cell has expired. */
    clock_set_fake_ms(clock_now_ms() + 11000);
    assert_int_equal(region_get(f->reg, (const uint8_t *)"t", 1, NULL, &res), ST_OK);
    assert_int_equal(res.ncells, 0);
    assert_int_equal(region_flush(f->reg), ST_OK);
    assert_int_equal(region_compact(f->reg, true), ST_OK);
    region_stats st;
    region_get_stats(f->reg, &st);
    assert_int_equal(st.store_files, 1); /* dropped: an empty file of family b remains */
    clock_set_fake_ms(0);
    scan_result_free(&res);
}

static void scan_with_filter_inside_region(void **state)
{
    fixture *f = *state;
    char row[16];
    for (int i = 0; i < 50; i++) {
        snprintf(row, sizeof(row), "%s%02d", i % 2 ? "u1" : "u2", i);
        assert_int_equal(tu_put(f->reg, row, "a", "q", i % 3 ? "x" : "y", CELL_LATEST_TIMESTAMP),
                         ST_OK);
    }
    assert_int_equal(region_flush(f->reg), ST_OK);
    filter *fl = filter_list_new(FILTER_MUST_PASS_ALL);
    filter_list_add(fl, filter_prefix_new((const uint8_t *)"u1", 2));
    filter_list_add(fl, filter_value_new(CMP_EQUAL,
                                         comparator_new(COMPARATOR_BINARY, (const uint8_t *)"x", 1)));
    scan_spec spec = {0};
    spec.filter = fl;
    region_scanner *s = NULL;
    assert_int_equal(region_scanner_open(f->reg, &spec, &s), ST_OK);
    scan_result res;
    scan_result_init(&res);
    int n = 0, rc;
    while ((rc = region_scanner_next(s, &res)) == 1) {
        assert_memory_equal(res.cells[0].row, "u1", 2);
        assert_memory_equal(res.cells[0].value, "x", 1);
        n++;
    }
    assert_int_equal(rc, 0);
    /* odd i in 0..49 (25 rows) minus those divisible by 3 (1,3,...: 9,15,21,27,33,39,45,3) */
    int expect = 0;
    for (int i = 1; i < 50; i += 2)
        expect += (i % 3) != 0;
    assert_int_equal(n, expect);
    scan_result_free(&res);
    region_scanner_close(s);
    filter_free(fl);
}

static cell_t put_cell(const char *fam, const char *qual, const char *value)
{
    return tu_cell(fam, qual, value, CELL_LATEST_TIMESTAMP, CELL_TYPE_PUT);
}

/* Regression: a batch that repeats a row is cut into groups; every mutation of every
 * group must be applied (an indexing slip once dropped the later groups' ones). */
static void batch_with_repeated_rows_applies_everything(void **state)
{
    fixture *f = *state;
    cell_t c[6] = {put_cell("a", "q1", "1"), put_cell("a", "q2", "2"), put_cell("a", "q", "x"),
                   put_cell("a", "q2", "x2"), put_cell("a", "q", "y"), put_cell("a", "q", "z")};
    mutation ms[6] = {
        {(const uint8_t *)"A", 1, &c[0], 1, DURABILITY_USE_DEFAULT},
        {(const uint8_t *)"A", 1, &c[1], 1, DURABILITY_USE_DEFAULT},
        {(const uint8_t *)"X", 1, &c[2], 1, DURABILITY_USE_DEFAULT},
        {(const uint8_t *)"X", 1, &c[3], 1, DURABILITY_USE_DEFAULT},
        {(const uint8_t *)"Y", 1, &c[4], 1, DURABILITY_USE_DEFAULT},
        {(const uint8_t *)"Z", 1, &c[5], 1, DURABILITY_USE_DEFAULT},
    };
    int results[6];
    assert_int_equal(region_batch_mutate(f->reg, ms, 6, results), ST_OK);
    char v[16];
    const char *expect[][3] = {{"A", "q1", "1"}, {"A", "q2", "2"}, {"X", "q", "x"},
                               {"X", "q2", "x2"}, {"Y", "q", "y"}, {"Z", "q", "z"}};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(results[i], ST_OK);
        assert_int_equal(tu_get(f->reg, expect[i][0], "a", expect[i][1], v, sizeof(v)), 1);
        assert_string_equal(v, expect[i][2]);
    }
    /* A large batch of distinct rows plus repeats. */
    enum { N = 5000 };
    mutation *big = calloc(N, sizeof(*big));
    cell_t *cells = calloc(N, sizeof(*cells));
    char (*rows)[16] = calloc(N, 16);
    int *res = calloc(N, sizeof(int));
    for (int i = 0; i < N; i++) {
        snprintf(rows[i], 16, "b%05d", i % 4000);
        cells[i] = put_cell("b", "q", rows[i]);
        big[i] = (mutation){(const uint8_t *)rows[i], strlen(rows[i]), &cells[i], 1,
                            DURABILITY_USE_DEFAULT};
    }
    assert_int_equal(region_batch_mutate(f->reg, big, N, res), ST_OK);
    assert_int_equal(count_rows(f->reg, false, "b", "c"), 4000);
    free(big);
    free(cells);
    free(rows);
    free(res);
}

/* Regression: a close whose flush fails keeps the region and its memstore. */
static void close_with_failed_flush_keeps_the_region(void **state)
{
    fixture *f = *state;
    assert_int_equal(tu_put(f->reg, "keep", "a", "q", "me", CELL_LATEST_TIMESTAMP), ST_OK);
    fio_fault fault = {.op = FIO_OP_RENAME, .path_match = "/data/", .count = -1, .error = ST_IO};
    fio_fault_set(&fault);
    assert_int_not_equal(region_close(f->reg, true), ST_OK);
    fio_fault_clear();
    char v[16];
    assert_int_equal(tu_get(f->reg, "keep", "a", "q", v, sizeof(v)), 1);
    assert_int_equal(tu_put(f->reg, "keep2", "a", "q", "too", CELL_LATEST_TIMESTAMP), ST_OK);
    assert_int_equal(wal_roll(engine_wal(f->eng)), ST_OK);
    close_engine(f, true);
    open_engine(f, NULL);
    assert_int_equal(tu_get(f->reg, "keep", "a", "q", v, sizeof(v)), 1);
    assert_int_equal(tu_get(f->reg, "keep2", "a", "q", v, sizeof(v)), 1);
}

/* Regression: global memstore pressure forces flushes of regions below their flush
 * size instead of blocking writers until they time out. */
static void global_memstore_limit_forces_flushes(void **state)
{
    fixture *f = *state;
    close_engine(f, true);
    engine_options o;
    engine_options_init(&o);
    o.global_memstore_limit = 1 << 20;
    o.blocking_wait_ms = 10000;
    open_engine(f, &o);
    char row[32], value[1024];
    memset(value, 'v', sizeof(value) - 1);
    value[sizeof(value) - 1] = 0;
    for (int i = 0; i < 4000; i++) {
        snprintf(row, sizeof(row), "g%05d", i);
        assert_int_equal(tu_put(f->reg, row, "a", "q", value, CELL_LATEST_TIMESTAMP), ST_OK);
    }
    region_stats st;
    region_get_stats(f->reg, &st);
    assert_true(st.flushes > 0);
    assert_true(st.memstore_size < 4000u * 1024u);
}

typedef struct deleter_arg {
    fixture *f;
    int n;
    _Atomic int errors;
} deleter_arg;

static void *latest_deleter(void *arg)
{
    deleter_arg *a = arg;
    for (int i = 0; i < a->n; i++) {
        cell_t d;
        mutation m = delete_of("v", &d, "a", "q", CELL_TYPE_DELETE, CELL_LATEST_TIMESTAMP);
        if (region_mutate(a->f->reg, &m) != ST_OK)
            atomic_fetch_add(&a->errors, 1);
    }
    return NULL;
}

/* Regression: concurrent "delete the latest version" calls each take a different
 * version (the target is found under the row lock). */
static void concurrent_latest_deletes_take_distinct_versions(void **state)
{
    fixture *f = *state;
    f->schema.families[0].versions = 200;
    close_engine(f, true);
    open_engine(f, NULL);
    for (int i = 1; i <= 200; i++)
        assert_int_equal(tu_put(f->reg, "v", "a", "q", "x", i), ST_OK);
    deleter_arg a = {f, 50, 0};
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, latest_deleter, &a);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&a.errors), 0);
    scan_column col = {(const uint8_t *)"a", 1, (const uint8_t *)"q", 1};
    scan_spec spec = {0};
    spec.columns = &col;
    spec.ncolumns = 1;
    spec.max_versions = 1000;
    scan_result res;
    scan_result_init(&res);
    assert_int_equal(region_get(f->reg, (const uint8_t *)"v", 1, &spec, &res), ST_OK);
    assert_int_equal(res.ncells, 0);
    /* Two such cells for one column in one mutation delete two versions. */
    assert_int_equal(tu_put(f->reg, "w", "a", "q", "1", 10), ST_OK);
    assert_int_equal(tu_put(f->reg, "w", "a", "q", "2", 20), ST_OK);
    assert_int_equal(tu_put(f->reg, "w", "a", "q", "3", 30), ST_OK);
    cell_t two[2];
    mutation m = delete_of("w", &two[0], "a", "q", CELL_TYPE_DELETE, CELL_LATEST_TIMESTAMP);
    delete_of("w", &two[1], "a", "q", CELL_TYPE_DELETE, CELL_LATEST_TIMESTAMP);
    m.cells = two;
    m.ncells = 2;
    assert_int_equal(region_mutate(f->reg, &m), ST_OK);
    assert_int_equal(region_get(f->reg, (const uint8_t *)"w", 1, &spec, &res), ST_OK);
    assert_int_equal(res.ncells, 1);
    assert_int_equal(res.cells[0].ts, 10);
    scan_result_free(&res);
}

/* Regression: a time range with only a lower bound still reads store files. */
static void open_ended_time_range_reads_files(void **state)
{
    fixture *f = *state;
    assert_int_equal(tu_put(f->reg, "tr", "a", "q", "v", 1000), ST_OK);
    assert_int_equal(region_flush(f->reg), ST_OK);
    scan_spec spec = {0};
    spec.min_ts = 500;
    scan_result res;
    scan_result_init(&res);
    assert_int_equal(region_get(f->reg, (const uint8_t *)"tr", 2, &spec, &res), ST_OK);
    assert_int_equal(res.ncells, 1);
    spec.min_ts = 1001;
    assert_int_equal(region_get(f->reg, (const uint8_t *)"tr", 2, &spec, &res), ST_OK);
    assert_int_equal(res.ncells, 0);
    scan_result_free(&res);
}

/* HBase (HBASE-26742): a NULL value with != matches a present, non-empty cell. */
static void check_absent_not_equal_matches_present_cell(void **state)
{
    fixture *f = *state;
    assert_int_equal(tu_put(f->reg, "n", "a", "q", "v", CELL_LATEST_TIMESTAMP), ST_OK);
    cell_t c = put_cell("a", "r", "w");
    mutation m = {(const uint8_t *)"n", 1, &c, 1, DURABILITY_USE_DEFAULT};
    bool applied = false;
    assert_int_equal(region_check_and_mutate(f->reg, (const uint8_t *)"n", 1, (const uint8_t *)"a",
                                             1, (const uint8_t *)"q", 1, CMP_NOT_EQUAL, NULL, 0,
                                             &m, &applied),
                     ST_OK);
    assert_true(applied);
    assert_int_equal(region_check_and_mutate(f->reg, (const uint8_t *)"n", 1, (const uint8_t *)"a",
                                             1, (const uint8_t *)"absent", 6, CMP_NOT_EQUAL, NULL,
                                             0, &m, &applied),
                     ST_OK);
    assert_false(applied);
}

/* Regression: with a ROWCOL bloom a single-column Get must still see a file that
 * holds only a family-wide delete marker (it lives under the empty qualifier). */
static void rowcol_bloom_sees_family_deletes(void **state)
{
    fixture *f = *state;
    f->schema.families[0].bloom = BLOOM_ROWCOL;
    close_engine(f, true);
    open_engine(f, NULL);
    assert_int_equal(tu_put(f->reg, "rc", "a", "q", "v", 100), ST_OK);
    assert_int_equal(region_flush(f->reg), ST_OK);
    cell_t d;
    mutation m = delete_of("rc", &d, "a", "", CELL_TYPE_DELETE_FAMILY, 100);
    assert_int_equal(region_mutate(f->reg, &m), ST_OK);
    assert_int_equal(region_flush(f->reg), ST_OK);
    char v[16];
    assert_int_equal(tu_get(f->reg, "rc", "a", "q", v, sizeof(v)), 0);
    assert_int_equal(tu_put(f->reg, "rv", "a", "q", "v", 100), ST_OK);
    assert_int_equal(region_flush(f->reg), ST_OK);
    m = delete_of("rv", &d, "a", "", CELL_TYPE_DELETE_FAMILY_VERSION, 100);
    assert_int_equal(region_mutate(f->reg, &m), ST_OK);
    assert_int_equal(region_flush(f->reg), ST_OK);
    assert_int_equal(tu_get(f->reg, "rv", "a", "q", v, sizeof(v)), 0);
}

/* The store files of family `fam` under dir: their format version, file info compression
 * code and block type byte (47), collected by nftw. */
typedef struct file_format {
    uint32_t version;
    uint8_t compression, block_type;
} file_format;

static const char *walk_fam;
static file_format walk_found[64];
static size_t walk_n;

static int walk_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    size_t fl = strlen(walk_fam);
    const char *base = path + ftw->base;
    if (flag != FTW_F || (size_t)ftw->base < fl + 2 || strstr(base, ".tmp") ||
        memcmp(path + ftw->base - fl - 1, walk_fam, fl) != 0 || path[ftw->base - fl - 2] != '/')
        return 0;
    buf_t b = {0};
    assert_int_equal(fio_read_all(path, &b), ST_OK);
    assert_true(b.len >= 64);
    const uint8_t *t = b.data + b.len - 64, *info = b.data + be64_get(t + 32);
    assert_true(walk_n < 64);
    walk_found[walk_n++] = (file_format){be32_get(t + 60), info[45], info[47]};
    buf_free(&b);
    return 0;
}

/* Asserts every store file of fam under dir is of `version`, compression and block type
 * (byte 47); returns how many there are. */
static size_t expect_files(const char *dir, const char *fam, uint32_t version, int compression,
                           int block_type)
{
    walk_fam = fam;
    walk_n = 0;
    assert_int_equal(nftw(dir, walk_one, 16, FTW_PHYS), 0);
    for (size_t i = 0; i < walk_n; i++) {
        assert_int_equal(walk_found[i].version, version);
        assert_int_equal(walk_found[i].compression, compression);
        assert_int_equal(walk_found[i].block_type, block_type);
    }
    return walk_n;
}

static void put_rows(fixture *f, const char *fam, int from, int to)
{
    char row[32], val[200];
    for (int i = from; i < to; i++) {
        snprintf(row, sizeof(row), "c%05d", i);
        snprintf(val, sizeof(val), "%s-%s-%0150d", row, fam, i);
        assert_int_equal(tu_put(f->reg, row, fam, "q", val, CELL_LATEST_TIMESTAMP), ST_OK);
    }
}

static void expect_rows(fixture *f, const char *fam, int from, int to)
{
    char row[32], val[200], got[256];
    for (int i = from; i < to; i++) {
        snprintf(row, sizeof(row), "c%05d", i);
        snprintf(val, sizeof(val), "%s-%s-%0150d", row, fam, i);
        assert_int_equal(tu_get(f->reg, row, fam, "q", got, sizeof(got)), 1);
        assert_string_equal(got, val);
    }
}

/* Families with SNAPPY, LZ4 and GZ: encoding NONE (family a) writes version-3 files of
 * type-1 blocks, FAST_DIFF (family b) of type-2 blocks; they flush, compact (major) and
 * read back after a reopen, also after the codec changed under older files. */
static void codec_families_flush_compact_reopen(void **state)
{
    fixture *f = *state;
    static const compression_type codecs[] = {COMPRESSION_SNAPPY, COMPRESSION_LZ4,
                                              COMPRESSION_GZ};
    for (size_t k = 0; k < 3; k++) {
        f->schema.families[0].compression = codecs[k];
        f->schema.families[0].encoding = BLOCK_ENCODING_NONE;
        f->schema.families[1].compression = codecs[k];
        f->schema.families[1].encoding = BLOCK_ENCODING_FAST_DIFF;
        close_engine(f, true);
        open_engine(f, NULL);
        int base = (int)k * 600;
        for (int part = 0; part < 3; part++) {
            put_rows(f, "a", base + part * 200, base + part * 200 + 200);
            put_rows(f, "b", base + part * 200, base + part * 200 + 200);
            assert_int_equal(region_flush(f->reg), ST_OK);
        }
        assert_int_equal(region_compact(f->reg, true), ST_OK);
        assert_int_equal(expect_files(f->dir, "a", 3, codecs[k], 1), 1);
        assert_int_equal(expect_files(f->dir, "b", 3, codecs[k], 2), 1);
        close_engine(f, true);
        open_engine(f, NULL);
        expect_rows(f, "a", 0, base + 600);
        expect_rows(f, "b", 0, base + 600);
    }
    /* back to NONE / PREFIX: version 1 and 2 files again */
    f->schema.families[0].compression = COMPRESSION_NONE;
    f->schema.families[1].compression = COMPRESSION_ZSTD;
    f->schema.families[1].encoding = BLOCK_ENCODING_PREFIX;
    close_engine(f, true);
    open_engine(f, NULL);
    put_rows(f, "a", 1800, 1900);
    put_rows(f, "b", 1800, 1900);
    assert_int_equal(region_flush(f->reg), ST_OK);
    assert_int_equal(region_compact(f->reg, true), ST_OK);
    assert_int_equal(expect_files(f->dir, "a", 1, COMPRESSION_NONE, 0), 1);
    assert_int_equal(expect_files(f->dir, "b", 2, COMPRESSION_ZSTD, 0), 1);
    expect_rows(f, "a", 0, 1900);
    expect_rows(f, "b", 0, 1900);
}

/* A codec above regionserver.storefile.format.version fails the flush with an error that
 * names the file, the codec and the setting; nothing is lost (the edits stay in the
 * memstore and the WAL) and the flush succeeds once the cap allows the codec. */
static void codec_above_format_version_cap_fails_flush(void **state)
{
    fixture *f = *state;
    f->schema.families[0].compression = COMPRESSION_LZ4;
    close_engine(f, true);
    engine_options o;
    engine_options_init(&o);
    o.storefile_version = 2;
    open_engine(f, &o);
    put_rows(f, "a", 0, 50);
    assert_int_equal(region_flush(f->reg), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "compression LZ4 needs store file format version 3"));
    assert_non_null(strstr(st_errmsg(), "regionserver.storefile.format.version"));
    assert_non_null(strstr(st_errmsg(), f->dir));
    expect_rows(f, "a", 0, 50);
    assert_int_equal(expect_files(f->dir, "a", 3, COMPRESSION_LZ4, 1), 0);
    close_engine(f, false);
    engine_options_init(&o);
    o.storefile_version = 3;
    open_engine(f, &o); /* the WAL replays the edits */
    assert_int_equal(region_flush(f->reg), ST_OK);
    assert_int_equal(expect_files(f->dir, "a", 3, COMPRESSION_LZ4, 2), 1);
    expect_rows(f, "a", 0, 50);
}

/* Regression: a KEEP_DELETED_CELLS major compaction keeps a DeleteFamily even when the
 * empty-qualifier column it sits in has more versions than VERSIONS; dropping it let
 * the cells it masks come back. */
static void keep_deleted_cells_major_compaction_keeps_family_marker(void **state)
{
    fixture *f = *state;
    f->schema.families[0].keep_deleted_cells = true;
    close_engine(f, true);
    open_engine(f, NULL);
    assert_int_equal(tu_put(f->reg, "k", "a", "", "e300", 300), ST_OK);
    assert_int_equal(tu_put(f->reg, "k", "a", "", "e250", 250), ST_OK);
    cell_t d;
    mutation m = delete_of("k", &d, "a", "", CELL_TYPE_DELETE_FAMILY, 200);
    assert_int_equal(region_mutate(f->reg, &m), ST_OK);
    assert_int_equal(tu_put(f->reg, "k", "a", "q", "old", 100), ST_OK);
    scan_result before, after;
    scan_result_init(&before);
    scan_result_init(&after);
    assert_int_equal(region_get(f->reg, (const uint8_t *)"k", 1, NULL, &before), ST_OK);
    assert_int_equal(region_flush(f->reg), ST_OK);
    assert_int_equal(region_compact(f->reg, true), ST_OK);
    assert_int_equal(region_get(f->reg, (const uint8_t *)"k", 1, NULL, &after), ST_OK);
    assert_int_equal(before.ncells, 1);
    assert_int_equal(after.ncells, before.ncells);
    assert_int_equal(after.cells[0].ts, 300);
    scan_result_free(&before);
    scan_result_free(&after);
}

/* Regression: a major compaction that keeps no cell still records the store's flushed
 * sequence id, so a restart does not replay edits it had dropped (a masked put coming
 * back from the WAL). */
static void empty_major_compaction_keeps_flushed_seq(void **state)
{
    fixture *f = *state;
    cell_t d;
    mutation m = delete_of("g", &d, "a", "q", CELL_TYPE_DELETE_COLUMN, 1000);
    assert_int_equal(region_mutate(f->reg, &m), ST_OK);
    assert_int_equal(region_flush(f->reg), ST_OK);
    assert_int_equal(wal_roll(engine_wal(f->eng)), ST_OK);
    assert_int_equal(tu_put(f->reg, "g", "a", "q", "ghost", 500), ST_OK);
    assert_int_equal(region_flush(f->reg), ST_OK);
    assert_int_equal(region_compact(f->reg, true), ST_OK);
    char v[16];
    assert_int_equal(tu_get(f->reg, "g", "a", "q", v, sizeof(v)), 0);
    close_engine(f, true);
    open_engine(f, NULL);
    assert_int_equal(tu_get(f->reg, "g", "a", "q", v, sizeof(v)), 0);
}

/* Scans the whole region; returns the cells, each checked to hold its row as value. */
static size_t count_cells(region *r)
{
    scan_spec spec;
    memset(&spec, 0, sizeof(spec));
    region_scanner *s = NULL;
    assert_int_equal(region_scanner_open(r, &spec, &s), ST_OK);
    scan_result res;
    scan_result_init(&res);
    size_t n = 0;
    int rc;
    while ((rc = region_scanner_next(s, &res)) == 1)
        for (size_t i = 0; i < res.ncells; i++, n++) {
            const cell_t *c = &res.cells[i];
            assert_true(c->value_len > c->row_len);
            assert_memory_equal(c->value, c->row, c->row_len);
        }
    assert_int_equal(rc, 0);
    scan_result_free(&res);
    region_scanner_close(s);
    return n;
}

/* Writes rows [from, to) of one family with long values (several blocks) and flushes. */
static void fill_family(fixture *f, const char *fam, int from, int to)
{
    char row[32], val[160];
    for (int i = from; i < to; i++) {
        snprintf(row, sizeof(row), "row%05d", i);
        snprintf(val, sizeof(val), "%s-%0120d", row, i);
        assert_int_equal(tu_put(f->reg, row, fam, "q", val, CELL_LATEST_TIMESTAMP), ST_OK);
    }
    assert_int_equal(region_flush(f->reg), ST_OK);
}

/* Compressed blocks (the mapped path serves only uncompressed ones) of a BLOCKCACHE-false
 * family are neither looked up in nor inserted into the engine's cache, and every cell is
 * still read; an IN_MEMORY family's blocks are cached with in-memory priority. */
static void family_block_cache_attributes(void **state)
{
    fixture *f = *state;
    for (size_t i = 0; i < 2; i++) {
        f->schema.families[i].compression = COMPRESSION_ZSTD;
        f->schema.families[i].block_size = 1024;
    }
    f->schema.families[0].block_cache = false; /* a */
    f->schema.families[1].in_memory = true;    /* b */
    close_engine(f, true);
    open_engine(f, NULL);
    blockcache *bc = engine_block_cache(f->eng);
    blockcache_stats before, st;
    fill_family(f, "a", 0, 600);
    blockcache_get_stats(bc, &before);
    assert_int_equal(count_cells(f->reg), 600);
    assert_int_equal(count_cells(f->reg), 600);
    assert_int_equal(tu_get(f->reg, "row00300", "a", "q", (char[160]){0}, 160), 1);
    blockcache_get_stats(bc, &st);
    assert_int_equal(st.inserts, before.inserts);
    assert_int_equal(st.usage, before.usage);
    assert_int_equal(st.hits + st.misses, before.hits + before.misses); /* no lookup */

    fill_family(f, "b", 0, 600);
    assert_int_equal(count_cells(f->reg), 1200);
    blockcache_get_stats(bc, &st);
    assert_true(st.inserts > before.inserts);
    assert_true(st.memory_entries > 1); /* b's blocks, all in memory priority */
    assert_int_equal(st.memory_entries, st.entries);
    assert_int_equal(st.memory_usage, st.usage);
    /* a compaction's output is opened with the same options */
    assert_int_equal(region_compact(f->reg, true), ST_OK);
    assert_int_equal(count_cells(f->reg), 1200);
    blockcache_get_stats(bc, &st);
    assert_true(st.memory_entries > 1);
    assert_int_equal(st.memory_usage, st.usage);
}

/* flush 't', 'a': only family a's memstore becomes a file; b's edits stay in the memstore
 * and the WAL, and a reopen without a flush replays b's edits without doubling a's. */
static void flush_and_compact_one_family(void **state)
{
    fixture *f = *state;
    char v[64];
    uint64_t sizes[2];
    assert_int_equal(tu_put(f->reg, "r1", "a", "q", "a1", 10), ST_OK);
    assert_int_equal(tu_put(f->reg, "r1", "b", "q", "b1", 10), ST_OK);
    region_stats before, after;
    region_get_stats(f->reg, &before);
    assert_int_equal(region_flush_family(f->reg, "a"), ST_OK);
    region_get_stats(f->reg, &after);
    assert_int_equal(region_store_sizes(f->reg, sizes, 2), 2);
    assert_true(sizes[0] > 0);  /* a: one file */
    assert_int_equal(sizes[1], 0); /* b: none */
    assert_int_equal(after.store_files, 1);
    assert_true(after.memstore_size > 0 && after.memstore_size < before.memstore_size);
    assert_int_equal(after.max_flushed_seq, before.max_flushed_seq); /* the WAL keeps b */
    assert_int_equal(region_flush_family(f->reg, "zz"), ST_NOT_FOUND);
    assert_non_null(strstr(st_errmsg(), "column family zz does not exist"));
    /* a second file for a, then a compaction of a alone */
    assert_int_equal(tu_put(f->reg, "r2", "a", "q", "a2", 10), ST_OK);
    assert_int_equal(region_flush_family(f->reg, "a"), ST_OK);
    region_get_stats(f->reg, &after);
    assert_int_equal(after.store_files, 2);
    assert_int_equal(region_compact_family(f->reg, "a", true), ST_OK);
    region_get_stats(f->reg, &after);
    assert_int_equal(after.store_files, 1);
    assert_int_equal(region_compact_family(f->reg, "zz", false), ST_NOT_FOUND);
    /* crash: b comes back from the WAL, a from its file, each once */
    close_engine(f, false);
    open_engine(f, NULL);
    assert_int_equal(tu_get(f->reg, "r1", "a", "q", v, sizeof(v)), 1);
    assert_string_equal(v, "a1");
    assert_int_equal(tu_get(f->reg, "r2", "a", "q", v, sizeof(v)), 1);
    assert_string_equal(v, "a2");
    assert_int_equal(tu_get(f->reg, "r1", "b", "q", v, sizeof(v)), 1);
    assert_string_equal(v, "b1");
    scan_result res;
    scan_result_init(&res);
    assert_int_equal(region_get(f->reg, (const uint8_t *)"r1", 2, NULL, &res), ST_OK);
    assert_int_equal(res.ncells, 2);
    scan_result_free(&res);
}

typedef struct compact_job {
    region *reg;
    bool major;
    int rc;
} compact_job;

static void *compact_thread(void *arg)
{
    compact_job *j = arg;
    j->rc = region_compact(j->reg, j->major);
    return NULL;
}

/* Runs a compaction held at its output file's creation (a paused disk) and returns the
 * region's compaction state seen meanwhile. With flush, the last input is flushed under
 * the hold first (its own file is not held): the compaction that flush queues is the
 * one held. */
static region_compaction state_during(fixture *f, bool major, bool flush)
{
    fio_fault hold = {.op = FIO_OP_CREATE,
                      .path_match = "/r1/a/",
                      .skip = flush ? 1 : 0,
                      .count = 1,
                      .hold = true};
    fio_fault_set(&hold);
    if (flush)
        assert_int_equal(region_flush(f->reg), ST_OK);
    compact_job j = {f->reg, major, -1};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, compact_thread, &j), 0);
    for (int i = 0; i < 10000 && fio_fault_hits() == 0; i++)
        clock_sleep_ms(1);
    assert_int_equal(fio_fault_hits(), 1);
    region_compaction seen = region_compaction_state(f->reg);
    /* the running compaction is a monitored task (status 'tasks') */
    static taskmon_task tasks[TASKMON_MAX];
    size_t n = taskmon_list(tasks, TASKMON_MAX);
    bool listed = false;
    for (size_t i = 0; i < n; i++)
        listed |= strstr(tasks[i].description, "Compacting a in region r1") != NULL &&
                  strstr(tasks[i].status, major ? "major" : "minor") != NULL;
    assert_true(listed);
    fio_fault_clear();
    pthread_join(t, NULL);
    assert_int_equal(j.rc, ST_OK);
    return seen;
}

/* compaction_state: NONE, then MAJOR or MINOR while one runs, NONE after. */
static void compaction_state_while_compacting(void **state)
{
    fixture *f = *state;
    assert_int_equal(region_compaction_state(f->reg), REGION_COMPACTION_NONE);
    /* two files: fewer than a minor compaction wants, so no background one starts */
    for (int i = 0; i < 2; i++) {
        assert_int_equal(tu_put(f->reg, "r", "a", "q", "v", 10 + i), ST_OK);
        assert_int_equal(region_flush(f->reg), ST_OK);
    }
    assert_int_equal(state_during(f, true, false), REGION_COMPACTION_MAJOR);
    assert_int_equal(region_compaction_state(f->reg), REGION_COMPACTION_NONE);
    /* three files: the minor compaction the third flush queues is held */
    for (int i = 0; i < 2; i++)
        assert_int_equal(tu_put(f->reg, "r", "a", "q", "v", 20 + i), ST_OK);
    assert_int_equal(region_flush(f->reg), ST_OK);
    assert_int_equal(tu_put(f->reg, "r", "a", "q", "v", 30), ST_OK);
    assert_int_equal(state_during(f, false, true), REGION_COMPACTION_MINOR);
    assert_int_equal(region_compaction_state(f->reg), REGION_COMPACTION_NONE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(put_get_across_families, setup, teardown),
        cmocka_unit_test_setup_teardown(flush_and_compact_one_family, setup, teardown),
        cmocka_unit_test_setup_teardown(compaction_state_while_compacting, setup, teardown),
        cmocka_unit_test_setup_teardown(unknown_family_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(row_outside_region_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(scan_over_memstore_and_files, setup, teardown),
        cmocka_unit_test_setup_teardown(reopen_replays_wal, setup, teardown),
        cmocka_unit_test_setup_teardown(deletes_and_major_compaction, setup, teardown),
        cmocka_unit_test_setup_teardown(concurrent_reader_never_sees_half_a_row, setup, teardown),
        cmocka_unit_test_setup_teardown(concurrent_increments_add_up, setup, teardown),
        cmocka_unit_test_setup_teardown(check_and_mutate_race_has_one_winner, setup, teardown),
        cmocka_unit_test_setup_teardown(check_and_mutate_operators, setup, teardown),
        cmocka_unit_test_setup_teardown(append_concatenates, setup, teardown),
        cmocka_unit_test_setup_teardown(read_only_region_refuses_writes, setup, teardown),
        cmocka_unit_test_setup_teardown(writes_wait_for_compaction_at_blocking_file_count, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(duplicate_files_after_crash_compact_cleanly, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(row_delete_and_latest_version_delete, setup, teardown),
        cmocka_unit_test_setup_teardown(server_timestamps_and_ttl, setup, teardown),
        cmocka_unit_test_setup_teardown(scan_with_filter_inside_region, setup, teardown),
        cmocka_unit_test_setup_teardown(batch_with_repeated_rows_applies_everything, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(close_with_failed_flush_keeps_the_region, setup, teardown),
        cmocka_unit_test_setup_teardown(global_memstore_limit_forces_flushes, setup, teardown),
        cmocka_unit_test_setup_teardown(concurrent_latest_deletes_take_distinct_versions, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(open_ended_time_range_reads_files, setup, teardown),
        cmocka_unit_test_setup_teardown(check_absent_not_equal_matches_present_cell, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(rowcol_bloom_sees_family_deletes, setup, teardown),
        cmocka_unit_test_setup_teardown(codec_families_flush_compact_reopen, setup, teardown),
        cmocka_unit_test_setup_teardown(codec_above_format_version_cap_fails_flush, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(keep_deleted_cells_major_compaction_keeps_family_marker,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(family_block_cache_attributes, setup, teardown),
        cmocka_unit_test_setup_teardown(empty_major_compaction_keeps_flushed_seq, setup,
                                        teardown),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
