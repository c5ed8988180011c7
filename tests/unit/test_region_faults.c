/*
 * test_region_faults.c - the file layer fails under the region: a failed WAL fsync, a
 * short WAL write, a full disk during flush, a failed rename. Each time the caller
 * gets an error, the region keeps working, and after a reopen everything that was
 * acknowledged is there.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "common/status.h"
#include "tests/support/testutil.h"

typedef struct fixture {
    char *dir;
    engine *eng;
    region *reg;
    table_schema schema;
    char acked[4096][16];
    int nacked;
} fixture;

static void open_all(fixture *f)
{
    engine_options o;
    engine_options_init(&o);
    o.root_dir = f->dir;
    assert_int_equal(engine_open(&o, &f->eng), ST_OK);
    region_info info = tu_whole_region();
    assert_int_equal(region_open(f->eng, &f->schema, &info, &f->reg), ST_OK);
}

static void close_all(fixture *f, bool flush)
{
    region_close(f->reg, flush);
    engine_close(f->eng);
    f->reg = NULL;
    f->eng = NULL;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    f->dir = tu_tempdir("faults");
    tu_schema(&f->schema, "cf");
    f->schema.durability = DURABILITY_FSYNC_WAL;
    open_all(f);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    fio_fault_clear();
    if (f->reg)
        close_all(f, false);
    tu_rmdir(f->dir);
    free(f);
    return 0;
}

/* Puts n keys; records which were acknowledged; returns how many failed. */
static int put_keys(fixture *f, int n)
{
    int failed = 0;
    for (int i = 0; i < n; i++) {
        char *k = f->acked[f->nacked];
        snprintf(k, 16, "k%06d", f->nacked + failed * 100000);
        if (tu_put(f->reg, k, "cf", "q", k, CELL_LATEST_TIMESTAMP) == ST_OK)
            f->nacked++;
        else
            failed++;
    }
    return failed;
}

static void check_acked_after_reopen(fixture *f)
{
    close_all(f, false);
    open_all(f);
    char v[32];
    for (int i = 0; i < f->nacked; i++) {
        assert_int_equal(tu_get(f->reg, f->acked[i], "cf", "q", v, sizeof(v)), 1);
        assert_string_equal(v, f->acked[i]);
    }
}

static void fault_wal_fsync_fails(void **state)
{
    fixture *f = *state;
    assert_int_equal(put_keys(f, 50), 0);
    fio_fault fault = {.op = FIO_OP_SYNC, .path_match = "/WALs/", .count = 1, .error = ST_IO};
    fio_fault_set(&fault);
    assert_int_equal(put_keys(f, 1), 1); /* the caller hears about it */
    assert_int_equal(fio_fault_hits(), 1);
    assert_int_equal(put_keys(f, 50), 0); /* and the region goes on */
    fio_fault_clear();
    check_acked_after_reopen(f);
}

static void fault_wal_short_write(void **state)
{
    fixture *f = *state;
    assert_int_equal(put_keys(f, 50), 0);
    fio_fault fault = {.op = FIO_OP_WRITE,
                       .path_match = "/WALs/",
                       .count = 1,
                       .error = ST_IO,
                       .short_bytes = 7};
    fio_fault_set(&fault);
    assert_int_equal(put_keys(f, 1), 1);
    assert_int_equal(put_keys(f, 50), 0);
    fio_fault_clear();
    check_acked_after_reopen(f);
}

static void fault_wal_disk_full(void **state)
{
    fixture *f = *state;
    assert_int_equal(put_keys(f, 20), 0);
    fio_fault fault = {.op = FIO_OP_WRITE, .path_match = "/WALs/", .count = -1,
                       .error = ST_NOSPACE, .space_limit = 2000};
    fio_fault_set(&fault);
    int failed = put_keys(f, 100);
    assert_true(failed > 0);
    fio_fault_clear();
    assert_int_equal(put_keys(f, 20), 0);
    check_acked_after_reopen(f);
}

static void fault_flush_disk_full(void **state)
{
    fixture *f = *state;
    assert_int_equal(put_keys(f, 300), 0);
    fio_fault fault = {.op = FIO_OP_WRITE, .path_match = "/data/", .count = -1,
                       .error = ST_NOSPACE, .space_limit = 1000};
    fio_fault_set(&fault);
    int rc = region_flush(f->reg);
    assert_int_equal(rc, ST_NOSPACE);
    /* Writes still work (the WAL is elsewhere) and reads see everything. */
    assert_int_equal(put_keys(f, 50), 0);
    char v[32];
    assert_int_equal(tu_get(f->reg, f->acked[0], "cf", "q", v, sizeof(v)), 1);
    fio_fault_clear();
    assert_int_equal(region_flush(f->reg), ST_OK);
    region_stats st;
    region_get_stats(f->reg, &st);
    assert_int_equal(st.store_files, 2); /* the kept snapshot, then the rest */
    check_acked_after_reopen(f);
}

static void fault_flush_rename_fails(void **state)
{
    fixture *f = *state;
    assert_int_equal(put_keys(f, 100), 0);
    fio_fault fault = {.op = FIO_OP_RENAME, .path_match = "/data/", .count = 1, .error = ST_IO};
    fio_fault_set(&fault);
    assert_int_not_equal(region_flush(f->reg), ST_OK);
    fio_fault_clear();
    assert_int_equal(region_flush(f->reg), ST_OK);
    check_acked_after_reopen(f);
}

/* A flipped bit in a store-file data block: reads of that block fail with a corruption
 * error naming the file; nothing wrong is returned, and other blocks still read. */
static void corrupt_store_file_block_fails_reads(void **state)
{
    fixture *f = *state;
    assert_int_equal(put_keys(f, 4000), 0); /* more than one 64 KiB block */
    assert_int_equal(region_flush(f->reg), ST_OK);
    close_all(f, true);
    char *dir = NULL, **names = NULL, *path = NULL;
    size_t n = 0;
    assert_true(asprintf(&dir, "%s/data/default/t/r1/cf", f->dir) > 0);
    assert_int_equal(fio_list_dir(dir, &names, &n), ST_OK);
    assert_int_equal(n, 1);
    assert_true(asprintf(&path, "%s/%s", dir, names[0]) > 0);
    buf_t data = {0};
    assert_int_equal(fio_read_all(path, &data), ST_OK);
    data.data[100] ^= 0x10; /* inside the first data block */
    assert_int_equal(fio_write_atomic(path, data.data, data.len), ST_OK);
    buf_free(&data);
    open_all(f);
    char v[32];
    int rc = tu_get(f->reg, f->acked[0], "cf", "q", v, sizeof(v));
    assert_int_equal(rc, ST_CORRUPTION);
    assert_non_null(strstr(st_errmsg(), path));
    /* A key in a later block still reads. */
    assert_int_equal(tu_get(f->reg, f->acked[f->nacked - 1], "cf", "q", v, sizeof(v)), 1);
    assert_string_equal(v, f->acked[f->nacked - 1]);
    /* A scan over the damaged block fails rather than skipping it. */
    region_scanner *sc = NULL;
    scan_spec spec = {0};
    assert_int_equal(region_scanner_open(f->reg, &spec, &sc), ST_OK);
    scan_result res;
    scan_result_init(&res);
    int got;
    while ((got = region_scanner_next(sc, &res)) == 1)
        ;
    assert_int_equal(got, ST_CORRUPTION);
    scan_result_free(&res);
    region_scanner_close(sc);
    fio_free_list(names, n);
    free(path);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(fault_wal_fsync_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(fault_wal_short_write, setup, teardown),
        cmocka_unit_test_setup_teardown(fault_wal_disk_full, setup, teardown),
        cmocka_unit_test_setup_teardown(fault_flush_disk_full, setup, teardown),
        cmocka_unit_test_setup_teardown(fault_flush_rename_fails, setup, teardown),
        cmocka_unit_test_setup_teardown(corrupt_store_file_block_fails_reads, setup, teardown),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
