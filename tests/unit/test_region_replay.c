/*
 * test_region_replay.c - a region's recovered edits at open (region_replay.c,
 * docs/formats/wal.md "Replaying recovered edits"): a file newer than the flushed seq is
 * replayed, flushed and only then deleted (its data survives a reopen that has no WAL
 * to replay); an obsolete file is deleted unread; a corrupt file fails the open and
 * nothing is deleted. The files are written as production writes them: a dead server's
 * WAL split by wal_split.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/status.h"
#include "regionserver/storage/layout.h"
#include "tests/support/testutil.h"

#define DEAD_SERVER "dead,17020,1"

typedef struct fixture {
    char *dir;
    engine *eng;
    region *reg;
    table_schema schema;
} fixture;

static int open_region(fixture *f)
{
    engine_options o;
    engine_options_init(&o);
    o.root_dir = f->dir;
    assert_int_equal(engine_open(&o, &f->eng), ST_OK);
    region_info info = tu_whole_region();
    int rc = region_open(f->eng, &f->schema, &info, &f->reg);
    if (rc != ST_OK) {
        engine_close(f->eng);
        f->eng = NULL;
        f->reg = NULL;
    }
    return rc;
}

static void close_region(fixture *f, bool flush)
{
    assert_int_equal(region_close(f->reg, flush), ST_OK);
    f->reg = NULL;
    engine_close(f->eng);
    f->eng = NULL;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    f->dir = tu_tempdir("replay");
    tu_schema(&f->schema, "cf");
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

/* Opens the region, writes row "base" and flushes; closes it flushed. Returns the
 * region's flushed seq. */
static uint64_t flushed_region(fixture *f)
{
    region_stats st;
    assert_int_equal(open_region(f), ST_OK);
    assert_int_equal(tu_put(f->reg, "base", "cf", "q", "base", CELL_LATEST_TIMESTAMP), ST_OK);
    assert_int_equal(region_flush(f->reg), ST_OK);
    region_get_stats(f->reg, &st);
    assert_true(st.max_flushed_seq > 0);
    close_region(f, true);
    return st.max_flushed_seq;
}

/* A dead server's WAL holding one edit per row rows[i] (value = the row) at seqs[i],
 * split into r1's recovered.edits (one file named after the highest seq). */
static void write_recovered(fixture *f, const char *const *rows, const uint64_t *seqs, size_t n)
{
    char *wdir = layout_wal_dir(f->dir, DEAD_SERVER);
    wal_options wo = {wdir, 0, 0};
    wal *w = NULL;
    assert_int_equal(wal_open(&wo, &w), ST_OK);
    for (size_t i = 0; i < n; i++) {
        cell_t c = tu_cell("cf", "q", rows[i], 1000 + (int64_t)i, CELL_TYPE_PUT);
        c.row = (const uint8_t *)rows[i];
        c.row_len = (uint32_t)strlen(rows[i]);
        c.seq = seqs[i];
        wal_edit e = {"default:t", "r1", seqs[i], &c, 1};
        assert_int_equal(wal_append(w, &e, DURABILITY_FSYNC_WAL), ST_OK);
    }
    assert_int_equal(wal_close(w), ST_OK);
    assert_int_equal(wal_split(wdir, f->dir), ST_OK);
    free(wdir);
}

/* The names in r1's recovered.edits directory (none if it does not exist). */
static size_t count_edit_files(fixture *f)
{
    char *dir = layout_recovered_edits_dir(f->dir, "default:t", "r1");
    char **names = NULL;
    size_t n = 0;
    if (fio_exists(dir))
        assert_int_equal(fio_list_dir(dir, &names, &n), ST_OK);
    fio_free_list(names, n);
    free(dir);
    return n;
}

/* The path of r1's recovered-edits file for max seq (caller frees). */
static char *edit_file(fixture *f, uint64_t seq)
{
    char *dir = layout_recovered_edits_dir(f->dir, "default:t", "r1"), *path = NULL;
    assert_true(asprintf(&path, "%s/%020llu", dir, (unsigned long long)seq) > 0);
    free(dir);
    return path;
}

static void assert_row(fixture *f, const char *row, bool present)
{
    char v[64];
    int got = tu_get(f->reg, row, "cf", "q", v, sizeof(v));
    assert_int_equal(got, present ? 1 : 0);
    if (present)
        assert_string_equal(v, row);
}

/* (i) Edits newer than the flushed seq are replayed, flushed into a store file, and
 * then their file is deleted: a reopen with no WAL and no recovered edits still has
 * them. */
static void newer_edits_replayed_flushed_then_deleted(void **state)
{
    fixture *f = *state;
    uint64_t s = flushed_region(f);
    const char *rows[] = {"rec0", "rec1", "rec2"};
    const uint64_t seqs[] = {s + 10, s + 11, s + 12};
    write_recovered(f, rows, seqs, 3);
    char *path = edit_file(f, s + 12);
    assert_true(fio_exists(path));
    assert_int_equal(open_region(f), ST_OK);
    for (int i = 0; i < 3; i++)
        assert_row(f, rows[i], true);
    assert_row(f, "base", true);
    assert_false(fio_exists(path));
    assert_int_equal(count_edit_files(f), 0);
    region_stats st;
    region_get_stats(f->reg, &st);
    assert_int_equal(st.flushes, 1);
    assert_int_equal(st.store_files, 2);
    assert_true(st.max_flushed_seq > s + 12);
    /* A crash now: no flush at close; the replayed cells were never in this WAL. */
    close_region(f, false);
    assert_int_equal(open_region(f), ST_OK);
    for (int i = 0; i < 3; i++)
        assert_row(f, rows[i], true);
    assert_int_equal(count_edit_files(f), 0);
    free(path);
}

/* (ii) A file whose every edit is at or below the flushed seq is obsolete: deleted at
 * open, nothing of it replayed, no flush. It is not even read, so damage in it (here a
 * second obsolete file of garbage) cannot fail the open. */
static void obsolete_edits_deleted_unread(void **state)
{
    fixture *f = *state;
    uint64_t s = flushed_region(f);
    const char *rows[] = {"old0", "old1"};
    const uint64_t seqs[] = {s - 1 > 0 ? s - 1 : 1, s};
    write_recovered(f, rows, seqs, 2);
    char *path = edit_file(f, s), *junk = NULL;
    assert_true(fio_exists(path));
    assert_true(asprintf(&junk, "%s.1", path) > 0);
    assert_int_equal(fio_write_atomic(junk, "not a WAL file", 14), ST_OK);
    assert_int_equal(count_edit_files(f), 2);
    assert_int_equal(open_region(f), ST_OK);
    assert_int_equal(count_edit_files(f), 0);
    assert_row(f, "old0", false);
    assert_row(f, "old1", false);
    assert_row(f, "base", true);
    region_stats st;
    region_get_stats(f->reg, &st);
    assert_int_equal(st.flushes, 0);
    assert_int_equal(st.store_files, 1);
    assert_int_equal(st.memstore_size, 0);
    free(junk);
    free(path);
}

/* Rewrites path with one byte flipped at offset (from the end if negative), or cut to
 * its length minus cut. */
static void damage(const char *path, long flip_at, size_t cut)
{
    buf_t b = {0};
    assert_int_equal(fio_read_all(path, &b), ST_OK);
    if (cut)
        b.len -= cut;
    else
        b.data[flip_at < 0 ? (long)b.len + flip_at : flip_at] ^= 0x40;
    assert_int_equal(fio_unlink(path), ST_OK);
    assert_int_equal(fio_write_atomic(path, b.data, b.len), ST_OK);
    buf_free(&b);
}

/* (iii) A recovered-edits file still needed that is corrupt, or torn (it was fsynced
 * before its rename, so a torn tail is damage too), fails the open with ST_CORRUPTION
 * naming the file; no file is deleted, an obsolete one beside it included. */
static void corrupt_edits_fail_the_open_and_stay(void **state)
{
    fixture *f = *state;
    uint64_t s = flushed_region(f);
    const char *old[] = {"old0"};
    const uint64_t old_seq[] = {s};
    write_recovered(f, old, old_seq, 1);
    const char *rows[] = {"rec0", "rec1", "rec2"};
    const uint64_t seqs[] = {s + 10, s + 11, s + 12};
    write_recovered(f, rows, seqs, 3);
    char *path = edit_file(f, s + 12), *old_path = edit_file(f, s);
    buf_t good = {0};
    assert_int_equal(fio_read_all(path, &good), ST_OK);
    for (int round = 0; round < 2; round++) {
        damage(path, round == 0 ? 60 : 0, round == 0 ? 0 : 5);
        assert_int_equal(open_region(f), ST_CORRUPTION);
        assert_non_null(strstr(st_errmsg(), path));
        assert_null(f->reg);
        assert_true(fio_exists(path));
        assert_true(fio_exists(old_path));
        assert_int_equal(fio_unlink(path), ST_OK);
        assert_int_equal(fio_write_atomic(path, good.data, good.len), ST_OK);
    }
    /* Repaired, it replays. */
    assert_int_equal(open_region(f), ST_OK);
    for (int i = 0; i < 3; i++)
        assert_row(f, rows[i], true);
    assert_int_equal(count_edit_files(f), 0);
    buf_free(&good);
    free(old_path);
    free(path);
}

/* A move followed by a crash of the old server: its WAL is split while the region is
 * open here, into a file whose edits this region already flushed. The next flush removes
 * it (it used to stay until the next open, and block a split or merge meanwhile); a
 * newer file (edits above the flushed seq, which cannot come from a split of an older
 * server but is kept to show the rule) stays. */
static void obsolete_file_written_while_open_removed_by_next_flush(void **state)
{
    fixture *f = *state;
    uint64_t s = flushed_region(f);
    assert_int_equal(open_region(f), ST_OK);
    const char *rows[] = {"old0"};
    const uint64_t seqs[] = {s};
    write_recovered(f, rows, seqs, 1);
    char *path = edit_file(f, s), *newer = edit_file(f, s + 1000000);
    assert_int_equal(fio_write_atomic(newer, "kept", 4), ST_OK);
    assert_int_equal(count_edit_files(f), 2);
    assert_int_equal(tu_put(f->reg, "next", "cf", "q", "next", CELL_LATEST_TIMESTAMP), ST_OK);
    assert_int_equal(region_flush(f->reg), ST_OK);
    assert_false(fio_exists(path));
    assert_true(fio_exists(newer));
    assert_int_equal(count_edit_files(f), 1);
    assert_row(f, "next", true);
    assert_true(fio_unlink(newer) == ST_OK);
    close_region(f, true);
    free(path);
    free(newer);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(newer_edits_replayed_flushed_then_deleted, setup, teardown),
        cmocka_unit_test_setup_teardown(obsolete_edits_deleted_unread, setup, teardown),
        cmocka_unit_test_setup_teardown(obsolete_file_written_while_open_removed_by_next_flush,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(corrupt_edits_fail_the_open_and_stay, setup, teardown),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
