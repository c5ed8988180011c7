/*
 * test_reference.c - reference files (docs/formats/reference.md): the record round
 * trip and the worked example of the format page; corrupt_* (every truncation, every
 * flipped bit, bad lengths, an unknown range) and an unknown version; a torn file and a
 * leftover .tmp; the name helpers and the path of the referenced file.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/crc32c.h"
#include "common/fileio.h"
#include "common/status.h"
#include "regionserver/storage/blockcache.h"
#include "regionserver/storage/reference.h"
#include "regionserver/storage/storefile.h"
#include "tests/support/testutil.h"

typedef struct fixture {
    char *dir;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    f->dir = tu_tempdir("reference");
    assert_non_null(f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    tu_rmdir(f->dir);
    free(f);
    return 0;
}

static char *path_in(const fixture *f, const char *name)
{
    char *p = NULL;
    assert_true(asprintf(&p, "%s/%s", f->dir, name) > 0);
    return p;
}

/* ---- the record ---- */

static void round_trip(void **state)
{
    fixture *f = *state;
    char *p = path_in(f, "0123456789abcdef00000001.parent");
    const struct {
        reference_range range;
        const char *row;
    } cases[] = {{REFERENCE_BOTTOM, "row050"},
                 {REFERENCE_TOP, "row050"},
                 {REFERENCE_TOP, ""},
                 {REFERENCE_BOTTOM, "\x00\xff"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t len = i == 3 ? 2 : strlen(cases[i].row);
        assert_int_equal(reference_write(p, cases[i].range, (const uint8_t *)cases[i].row, len),
                         ST_OK);
        reference r = {0};
        assert_int_equal(reference_read(p, &r), ST_OK);
        assert_int_equal(r.range, cases[i].range);
        assert_int_equal(r.split_row.len, len);
        assert_non_null(r.split_row.data);
        if (len)
            assert_memory_equal(r.split_row.data, cases[i].row, len);
        reference_free(&r);
        uint64_t size = 0;
        assert_int_equal(fio_file_size(p, &size), ST_OK);
        assert_int_equal(size, 24 + len);
    }
    /* The longest split row a cell may have. */
    uint8_t *big = malloc(REFERENCE_MAX_SPLIT_LEN);
    memset(big, 'x', REFERENCE_MAX_SPLIT_LEN);
    assert_int_equal(reference_write(p, REFERENCE_TOP, big, REFERENCE_MAX_SPLIT_LEN), ST_OK);
    reference r = {0};
    assert_int_equal(reference_read(p, &r), ST_OK);
    assert_int_equal(r.split_row.len, REFERENCE_MAX_SPLIT_LEN);
    reference_free(&r);
    free(big);
    free(p);
}

static void encode_refuses_bad_arguments(void **state)
{
    (void)state;
    buf_t b = {0};
    uint8_t row[REFERENCE_MAX_SPLIT_LEN + 1] = {0};
    assert_int_equal(reference_encode(REFERENCE_BOTTOM, row, 0, &b), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "BOTTOM"));
    assert_int_equal(reference_encode(REFERENCE_TOP, row, sizeof(row), &b), ST_INVALID_ARGUMENT);
    assert_int_equal(reference_encode((reference_range)3, row, 1, &b), ST_INVALID_ARGUMENT);
    assert_int_equal(b.len, 0);
    buf_free(&b);
}

static void format_worked_example(void **state)
{
    (void)state;
    static const uint8_t top_row050[] = {
        0x53, 0x54, 0x52, 0x41, 0x54, 0x41, 0x52, 0x46, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x06, 0x72, 0x6f, 0x77, 0x30, 0x35, 0x30, 0x15, 0x16, 0x74, 0xdf};
    static const uint8_t top_all[] = {0x53, 0x54, 0x52, 0x41, 0x54, 0x41, 0x52, 0x46,
                                      0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00,
                                      0x00, 0x00, 0x00, 0x00, 0x35, 0xb3, 0xef, 0xd9};
    buf_t b = {0};
    assert_int_equal(reference_encode(REFERENCE_TOP, (const uint8_t *)"row050", 6, &b), ST_OK);
    assert_int_equal(b.len, sizeof(top_row050));
    assert_memory_equal(b.data, top_row050, sizeof(top_row050));
    buf_reset(&b);
    assert_int_equal(reference_encode(REFERENCE_TOP, NULL, 0, &b), ST_OK);
    assert_int_equal(b.len, sizeof(top_all));
    assert_memory_equal(b.data, top_all, sizeof(top_all));
    buf_free(&b);
    reference r = {0};
    assert_int_equal(reference_decode("example", top_row050, sizeof(top_row050), &r), ST_OK);
    assert_int_equal(r.range, REFERENCE_TOP);
    assert_int_equal(r.split_row.len, 6);
    assert_memory_equal(r.split_row.data, "row050", 6);
    assert_int_equal(reference_decode("example", top_all, sizeof(top_all), &r), ST_OK);
    assert_int_equal(r.split_row.len, 0);
    reference_free(&r);
}

static void encoded(reference_range range, const char *row, buf_t *b)
{
    buf_reset(b);
    assert_int_equal(reference_encode(range, (const uint8_t *)row, strlen(row), b), ST_OK);
}

static void expect_corrupt(const uint8_t *p, size_t n)
{
    reference r = {0};
    assert_int_equal(reference_decode("ref-under-test", p, n, &r), ST_CORRUPTION);
    assert_non_null(strstr(st_errmsg(), "ref-under-test"));
    assert_int_equal(r.split_row.len, 0);
    assert_int_equal(r.range, 0);
}

static void corrupt_every_truncation(void **state)
{
    (void)state;
    buf_t b = {0};
    encoded(REFERENCE_BOTTOM, "split-row", &b);
    for (size_t n = 0; n < b.len; n++)
        expect_corrupt(b.data, n);
    /* Extra bytes after the CRC are damage too. */
    buf_t longer = {0};
    buf_append(&longer, b.data, b.len);
    buf_append_u8(&longer, 0);
    expect_corrupt(longer.data, longer.len);
    buf_free(&longer);
    buf_free(&b);
}

static void corrupt_every_flipped_bit(void **state)
{
    (void)state;
    buf_t b = {0};
    encoded(REFERENCE_TOP, "row050", &b);
    for (size_t i = 0; i < b.len; i++)
        for (int bit = 0; bit < 8; bit++) { /* reserved bytes too: they are under the CRC */
            b.data[i] ^= (uint8_t)(1u << bit);
            expect_corrupt(b.data, b.len);
            b.data[i] ^= (uint8_t)(1u << bit);
        }
    buf_free(&b);
}

/* Rewrites the CRC after a change, so the field checks behind it are reached. */
static void fix_crc(buf_t *b)
{
    be32_put(b->data + b->len - 4, crc32c_value(b->data, b->len - 4));
}

static void corrupt_fields_behind_a_valid_crc(void **state)
{
    (void)state;
    buf_t b = {0};
    encoded(REFERENCE_TOP, "row050", &b);
    b.data[12] = 0; /* range 0 */
    fix_crc(&b);
    expect_corrupt(b.data, b.len);
    b.data[12] = 3;
    fix_crc(&b);
    expect_corrupt(b.data, b.len);
    b.data[12] = REFERENCE_TOP;
    be32_put(b.data + 16, 7); /* split_len one past the bytes there */
    fix_crc(&b);
    expect_corrupt(b.data, b.len);
    be32_put(b.data + 16, 0xffffffffu);
    fix_crc(&b);
    expect_corrupt(b.data, b.len);
    /* Unknown version with a valid CRC: unsupported, not corrupt. */
    encoded(REFERENCE_TOP, "row050", &b);
    be32_put(b.data + 8, 2);
    fix_crc(&b);
    reference r = {0};
    assert_int_equal(reference_decode("ref-v2", b.data, b.len, &r), ST_UNSUPPORTED);
    assert_non_null(strstr(st_errmsg(), "ref-v2"));
    /* Reserved bytes are ignored. */
    encoded(REFERENCE_TOP, "row050", &b);
    b.data[14] = 0x5a;
    fix_crc(&b);
    assert_int_equal(reference_decode("ref", b.data, b.len, &r), ST_OK);
    reference_free(&r);
    buf_free(&b);
}

static void corrupt_file_names_the_file(void **state)
{
    fixture *f = *state;
    char *p = path_in(f, "00000000000000000000000a.parent");
    assert_int_equal(reference_write(p, REFERENCE_BOTTOM, (const uint8_t *)"m", 1), ST_OK);
    /* A torn write: only the first 10 bytes made it. */
    assert_int_equal(fio_truncate(p, 10), ST_OK);
    reference r = {0};
    assert_int_equal(reference_read(p, &r), ST_CORRUPTION);
    assert_non_null(strstr(st_errmsg(), p));
    /* Empty. */
    assert_int_equal(fio_truncate(p, 0), ST_OK);
    assert_int_equal(reference_read(p, &r), ST_CORRUPTION);
    assert_non_null(strstr(st_errmsg(), p));
    /* Missing. */
    assert_int_equal(fio_unlink(p), ST_OK);
    assert_int_equal(reference_read(p, &r), ST_NOT_FOUND);
    assert_non_null(strstr(st_errmsg(), p));
    free(p);
}

static void leftover_tmp_is_replaced(void **state)
{
    fixture *f = *state;
    char *p = path_in(f, "00000000000000000000000b.parent");
    char *tmp = path_in(f, "00000000000000000000000b.parent.tmp");
    /* A crash left a half-written temp file, and an older reference at the name. */
    assert_int_equal(fio_write_atomic(tmp, "STRATA", 6), ST_OK);
    assert_int_equal(reference_write(p, REFERENCE_BOTTOM, (const uint8_t *)"old", 3), ST_OK);
    assert_int_equal(fio_write_atomic(tmp, "STRATA", 6), ST_OK);
    assert_true(fio_exists(tmp));
    assert_int_equal(reference_write(p, REFERENCE_TOP, (const uint8_t *)"new", 3), ST_OK);
    assert_false(fio_exists(tmp));
    reference r = {0};
    assert_int_equal(reference_read(p, &r), ST_OK);
    assert_int_equal(r.range, REFERENCE_TOP);
    assert_memory_equal(r.split_row.data, "new", 3);
    reference_free(&r);
    free(tmp);
    free(p);
}

static void failed_rename_leaves_the_old_reference(void **state)
{
    fixture *f = *state;
    char *p = path_in(f, "00000000000000000000000c.parent");
    assert_int_equal(reference_write(p, REFERENCE_BOTTOM, (const uint8_t *)"old", 3), ST_OK);
    fio_fault fault = {.op = FIO_OP_RENAME, .path_match = "0000000c.parent", .count = -1};
    fio_fault_set(&fault);
    assert_int_not_equal(reference_write(p, REFERENCE_TOP, (const uint8_t *)"new", 3), ST_OK);
    assert_non_null(strstr(st_errmsg(), p));
    fio_fault_clear();
    reference r = {0};
    assert_int_equal(reference_read(p, &r), ST_OK);
    assert_int_equal(r.range, REFERENCE_BOTTOM);
    assert_memory_equal(r.split_row.data, "old", 3);
    reference_free(&r);
    free(p);
}

/* ---- names and paths ---- */

static void name_helpers(void **state)
{
    (void)state;
    char *name = NULL;
    assert_int_equal(
        reference_name("0123456789abcdef00000001", "5f0e1c2b3a49586776a5b4c3d2e1f0a9", &name),
        ST_OK);
    assert_string_equal(name, "0123456789abcdef00000001.5f0e1c2b3a49586776a5b4c3d2e1f0a9");
    assert_true(reference_is_name(name));
    char *file = NULL, *parent = NULL;
    assert_int_equal(reference_parse_name(name, &file, &parent), ST_OK);
    assert_string_equal(file, "0123456789abcdef00000001");
    assert_string_equal(parent, "5f0e1c2b3a49586776a5b4c3d2e1f0a9");
    free(file);
    free(parent);
    free(name);
    /* The parent part is everything after the first '.'. */
    assert_int_equal(reference_name("abc", "r.1", &name), ST_OK);
    assert_int_equal(reference_parse_name(name, &file, &parent), ST_OK);
    assert_string_equal(file, "abc");
    assert_string_equal(parent, "r.1");
    free(file);
    free(parent);
    free(name);

    assert_int_equal(reference_name("a.b", "p", &name), ST_INVALID_ARGUMENT);
    assert_null(name);
    assert_non_null(strstr(st_errmsg(), "a.b"));
    assert_int_equal(reference_name("", "p", &name), ST_INVALID_ARGUMENT);
    assert_int_equal(reference_name("f", "", &name), ST_INVALID_ARGUMENT);
    assert_int_equal(reference_name("f", "x/y", &name), ST_INVALID_ARGUMENT);
    assert_int_equal(reference_name("f", "p.tmp", &name), ST_INVALID_ARGUMENT);
    assert_int_equal(reference_name("f", "tmp", &name), ST_INVALID_ARGUMENT);

    assert_false(reference_is_name("0123456789abcdef00000001")); /* a store file */
    assert_false(reference_is_name("0123456789abcdef00000001.tmp"));
    assert_false(reference_is_name("0123456789abcdef00000001.parent.tmp"));
    assert_false(reference_is_name(".parent"));
    assert_false(reference_is_name("file."));
    assert_false(reference_is_name("file.-x"));
    assert_false(reference_is_name(""));
    assert_int_equal(reference_parse_name("plain", &file, &parent), ST_INVALID_ARGUMENT);
    assert_null(file);
    assert_null(parent);
}

static void target_path(void **state)
{
    (void)state;
    char *t = NULL;
    assert_int_equal(reference_target_path("/root/data/default/t/daughter/cf/0a1b.parent", &t),
                     ST_OK);
    assert_string_equal(t, "/root/data/default/t/parent/cf/0a1b");
    free(t);
    assert_int_equal(reference_target_path("t/d/cf/f.p", &t), ST_OK);
    assert_string_equal(t, "t/p/cf/f");
    free(t);
    assert_int_equal(reference_target_path("d/cf/f.p", &t), ST_INVALID_ARGUMENT);
    assert_null(t);
    assert_non_null(strstr(st_errmsg(), "d/cf/f.p"));
    assert_int_equal(reference_target_path("/t/d/cf/plainfile", &t), ST_INVALID_ARGUMENT);
    assert_int_equal(reference_target_path("/t/d//f.p", &t), ST_INVALID_ARGUMENT);
    assert_string_equal(reference_range_name(REFERENCE_BOTTOM), "BOTTOM");
    assert_string_equal(reference_range_name(REFERENCE_TOP), "TOP");
}

/* ---- reading through a reference ---- */

#define NROWS 200
#define NQUALS 3

/* The referenced file's cells, sorted; rows "row000".."row199" (even numbers only:
 * "row%03d" of 2*i), three columns, one to three versions, a few delete markers. */
typedef struct tcell {
    cell_t c;
    char mem[48];
} tcell;

static tcell *cells;
static size_t ncells;

static int cmp_tcell(const void *a, const void *b)
{
    return cell_compare(&((const tcell *)a)->c, &((const tcell *)b)->c);
}

static void gen_cells(void)
{
    cells = calloc(NROWS * NQUALS * 3, sizeof(*cells));
    ncells = 0;
    uint64_t seq = 1;
    for (int r = 0; r < NROWS; r++)
        for (int q = 0; q < NQUALS; q++)
            for (int v = 0; v <= (r + q) % 3; v++) {
                tcell *t = &cells[ncells++];
                int n = snprintf(t->mem, sizeof(t->mem), "row%03d", 2 * r);
                memcpy(t->mem + n, "cf", 2);
                t->mem[n + 2] = (char)('a' + q);
                int vl =
                    snprintf(t->mem + n + 3, sizeof(t->mem) - (size_t)n - 3, "v%d.%d.%d", r, q, v);
                t->c = (cell_t){.row = (const uint8_t *)t->mem,
                                .row_len = (uint32_t)n,
                                .family = (const uint8_t *)t->mem + n,
                                .family_len = 2,
                                .qualifier = (const uint8_t *)t->mem + n + 2,
                                .qualifier_len = 1,
                                .value = (const uint8_t *)t->mem + n + 3,
                                .value_len = (uint32_t)vl,
                                .ts = 100 - v,
                                .type = (r % 17 == 0 && v == 0) ? CELL_TYPE_DELETE : CELL_TYPE_PUT,
                                .seq = seq++};
            }
    qsort(cells, ncells, sizeof(*cells), cmp_tcell);
}

/* <dir>/t/parent/cf/<file> written from cells (small blocks: many of them), with a ROW
 * bloom; its path is returned (malloc'ed). */
static char *write_target(const fixture *f, const char *file)
{
    char *family_dir = NULL, *path = NULL;
    assert_true(asprintf(&family_dir, "%s/t/parent/cf", f->dir) > 0);
    assert_int_equal(fio_mkdirs(family_dir), ST_OK);
    assert_true(asprintf(&path, "%s/%s", family_dir, file) > 0);
    storefile_options o = {.block_size = 256, .bloom = BLOOM_ROW};
    storefile_writer *w = NULL;
    assert_int_equal(storefile_writer_open(path, &o, &w), ST_OK);
    for (size_t i = 0; i < ncells; i++)
        assert_int_equal(storefile_writer_add(w, &cells[i].c), ST_OK);
    assert_int_equal(storefile_writer_finish(w, 77, false), ST_OK);
    free(family_dir);
    return path;
}

/* <dir>/t/daughter/cf/<file>.parent holding (range, split row); its path (malloc'ed). */
static char *write_ref(const fixture *f, const char *file, reference_range range, const char *split)
{
    char *family_dir = NULL, *path = NULL;
    assert_true(asprintf(&family_dir, "%s/t/daughter/cf", f->dir) > 0);
    assert_int_equal(fio_mkdirs(family_dir), ST_OK);
    assert_true(asprintf(&path, "%s/%s.parent", family_dir, file) > 0);
    assert_int_equal(reference_write(path, range, (const uint8_t *)split, strlen(split)), ST_OK);
    free(family_dir);
    return path;
}

static bool in_half(reference_range range, const char *split, const cell_t *c)
{
    int cmp = cell_compare_rows(c->row, c->row_len, (const uint8_t *)split, strlen(split));
    return range == REFERENCE_TOP ? cmp >= 0 : cmp < 0;
}

/* The half's cells: [*lo, *hi) of cells. */
static void half_bounds(reference_range range, const char *split, size_t *lo, size_t *hi)
{
    *lo = 0;
    while (*lo < ncells && !in_half(range, split, &cells[*lo].c))
        (*lo)++;
    *hi = *lo;
    while (*hi < ncells && in_half(range, split, &cells[*hi].c))
        (*hi)++;
    for (size_t i = *hi; i < ncells; i++)
        assert_false(in_half(range, split, &cells[i].c)); /* contiguous */
}

static void assert_cell_eq(const cell_t *a, const cell_t *b)
{
    if (cell_compare(a, b) != 0) {
        char x[256], y[256];
        cell_format(a, x, sizeof(x));
        cell_format(b, y, sizeof(y));
        fail_msg("cell %s != expected %s", x, y);
    }
    assert_int_equal(a->value_len, b->value_len);
    assert_memory_equal(a->value, b->value, a->value_len);
}

/* Checks where `it` is: on half cell `want` (lo <= want < hi) or invalid if want is
 * out of [lo, hi). */
static void expect_at(kv_iter *it, size_t want, size_t lo, size_t hi)
{
    assert_int_equal(kv_iter_status(it), ST_OK);
    if (want < lo || want >= hi) {
        assert_false(kv_iter_valid(it));
        return;
    }
    assert_true(kv_iter_valid(it));
    assert_cell_eq(kv_iter_cell(it), &cells[want].c);
}

/* First index with cells[i] >= key; last index with cells[i] <= key (SIZE_MAX: none). */
static size_t lower(const cell_t *key)
{
    size_t i = 0;
    while (i < ncells && cell_compare(&cells[i].c, key) < 0)
        i++;
    return i;
}

static size_t floor_of(const cell_t *key)
{
    size_t i = ncells;
    while (i > 0 && cell_compare(&cells[i - 1].c, key) > 0)
        i--;
    return i == 0 ? SIZE_MAX : i - 1;
}

/* seek and seek_for_prev to key, each followed by a few next()s, against the model. */
static void check_key(kv_iter *it, const cell_t *key, size_t lo, size_t hi)
{
    size_t want = lower(key);
    if (want < lo)
        want = lo;
    kv_iter_seek(it, key);
    for (int step = 0; step < 3 && want < hi; step++, want++) {
        expect_at(it, want, lo, hi);
        kv_iter_next(it);
    }
    if (want >= hi)
        expect_at(it, want, lo, hi);
    size_t prev = floor_of(key); /* the last cell <= key of the whole file */
    if (lo == hi || prev == SIZE_MAX || prev < lo)
        prev = SIZE_MAX; /* none in the half */
    else if (prev >= hi)
        prev = hi - 1;
    kv_iter_seek_for_prev(it, key);
    expect_at(it, prev, lo, hi);
}

/* Every positioning of the half (range, split) against the model. */
static void check_half(storefile *h, reference_range range, const char *split)
{
    size_t lo, hi;
    half_bounds(range, split, &lo, &hi);
    kv_iter *it = storefile_iter(h, true);
    assert_non_null(it);
    /* Forward scan. */
    size_t i = lo;
    for (kv_iter_seek_to_first(it); kv_iter_valid(it); kv_iter_next(it), i++) {
        assert_true(i < hi);
        assert_cell_eq(kv_iter_cell(it), &cells[i].c);
    }
    assert_int_equal(kv_iter_status(it), ST_OK);
    assert_int_equal(i, hi);
    /* A reverse walk row by row as a reversed scanner makes it: seek_for_prev to the
     * first key of the row after, which lands on the previous row's last cell. */
    size_t rows_back = 0;
    uint8_t top_row[] = {0xff, 0xff};
    cell_t key = cell_first_on_row(top_row, sizeof(top_row));
    char row[16] = "";
    for (kv_iter_seek_for_prev(it, &key); kv_iter_valid(it); rows_back++) {
        const cell_t *c = kv_iter_cell(it);
        assert_true(in_half(range, split, c));
        snprintf(row, sizeof(row), "%.*s", (int)c->row_len, (const char *)c->row);
        key = cell_first_on_row((const uint8_t *)row, strlen(row));
        kv_iter_seek_for_prev(it, &key);
    }
    assert_int_equal(kv_iter_status(it), ST_OK);
    size_t rows_in_half = 0;
    for (size_t k = lo; k < hi; k++)
        rows_in_half += k == lo || !cell_same_row(&cells[k].c, &cells[k - 1].c);
    assert_int_equal(rows_back, rows_in_half);
    /* Seeks in both directions to every cell, to the first and last keys of each row
     * and column, to rows between the real ones, and to the boundary itself. */
    for (size_t k = 0; k < ncells; k++) {
        const cell_t *c = &cells[k].c;
        check_key(it, c, lo, hi);
        cell_t first = cell_first_on_row(c->row, c->row_len);
        check_key(it, &first, lo, hi);
        cell_t col_last = cell_last_on_column(c->row, c->row_len, c->family, c->family_len,
                                              c->qualifier, c->qualifier_len);
        check_key(it, &col_last, lo, hi);
        char odd[16];
        snprintf(odd, sizeof(odd), "%.*s1", (int)c->row_len, (const char *)c->row);
        cell_t between = cell_first_on_row((const uint8_t *)odd, strlen(odd));
        check_key(it, &between, lo, hi);
    }
    cell_t b = cell_first_on_row((const uint8_t *)split, strlen(split));
    check_key(it, &b, lo, hi);
    kv_iter_destroy(it);
}

static void check_blooms(storefile *h, reference_range range, const char *split)
{
    for (int r = 0; r < NROWS; r++) {
        char row[16];
        snprintf(row, sizeof(row), "row%03d", 2 * r);
        cell_t c = cell_first_on_row((const uint8_t *)row, strlen(row));
        bool inside = in_half(range, split, &c);
        bool may = storefile_may_contain_row(h, (const uint8_t *)row, strlen(row));
        bool may_col =
            storefile_may_contain_column(h, (const uint8_t *)row, strlen(row),
                                         (const uint8_t *)"cf", 2, (const uint8_t *)"a", 1);
        if (inside) {
            assert_true(may); /* present: no false negatives */
            assert_true(may_col);
        } else {
            assert_false(may);
            assert_false(may_col);
        }
    }
}

static const struct {
    const char *split;
    const char *why;
} splits[] = {
    {"row200", "a row of the file"},   {"row2001", "between two rows"}, {"row000", "the first row"},
    {"row398", "the last row"},        {"a", "before every row"},       {"zzz", "after every row"},
    {"row2", "a prefix of many rows"},
};

static void reads_through_both_halves(void **state)
{
    fixture *f = *state;
    gen_cells();
    char *target = write_target(f, "00000000000000000000000f");
    storefile *whole = NULL;
    assert_int_equal(storefile_open(target, NULL, &whole), ST_OK);
    for (size_t s = 0; s < sizeof(splits) / sizeof(splits[0]); s++)
        for (int k = 0; k < 2; k++) {
            reference_range range = k ? REFERENCE_TOP : REFERENCE_BOTTOM;
            char *ref = write_ref(f, "00000000000000000000000f", range, splits[s].split);
            storefile *h = NULL;
            assert_int_equal(storefile_open_reference(ref, NULL, &h), ST_OK);
            print_message("split row %s (%s), %s\n", splits[s].split, splits[s].why,
                          reference_range_name(range));
            assert_true(storefile_is_reference(h));
            assert_false(storefile_is_reference(whole));
            assert_string_equal(storefile_path(h), ref);
            check_half(h, range, splits[s].split);
            check_blooms(h, range, splits[s].split);
            storefile_unref(h);
            free(ref);
        }
    storefile_unref(whole);
    free(target);
    free(cells);
}

static void whole_file_top_reference(void **state)
{
    fixture *f = *state;
    gen_cells();
    char *target = write_target(f, "000000000000000000000010");
    char *ref = write_ref(f, "000000000000000000000010", REFERENCE_TOP, "");
    storefile *h = NULL;
    assert_int_equal(storefile_open_reference(ref, NULL, &h), ST_OK);
    check_half(h, REFERENCE_TOP, "");
    check_blooms(h, REFERENCE_TOP, "");
    storefile_unref(h);
    free(ref);
    free(target);
    free(cells);
}

static void half_through_block_cache(void **state)
{
    fixture *f = *state;
    gen_cells();
    char *target = write_target(f, "000000000000000000000011");
    char *ref = write_ref(f, "000000000000000000000011", REFERENCE_TOP, "row123");
    blockcache *cache = blockcache_new(1 << 20, 0);
    storefile *h = NULL;
    assert_int_equal(storefile_open_reference(ref, cache, &h), ST_OK);
    check_half(h, REFERENCE_TOP, "row123");
    check_half(h, REFERENCE_TOP, "row123"); /* now from the cache */
    storefile_unref(h);
    blockcache_free(cache);
    free(ref);
    free(target);
    free(cells);
}

/* The open options reach the referenced file: BLOCKCACHE false neither looks up nor
 * caches its blocks, IN_MEMORY caches them with in-memory priority. Read with pread:
 * mapped blocks never enter the cache. */
static void half_open_options_reach_the_target(void **state)
{
    fixture *f = *state;
    gen_cells();
    char *target = write_target(f, "0000000000000000000000a1");
    char *ref = write_ref(f, "0000000000000000000000a1", REFERENCE_TOP, "row123");
    storefile_set_mmap_reads(false);
    blockcache *cache = blockcache_new(1 << 20, 0);
    storefile *h = NULL;
    storefile_open_options o = {.cache = cache, .no_data_cache = true};
    assert_int_equal(storefile_open_reference_with(ref, &o, &h), ST_OK);
    check_half(h, REFERENCE_TOP, "row123");
    blockcache_stats st;
    blockcache_get_stats(cache, &st);
    assert_int_equal(st.inserts + st.hits + st.misses, 0);
    storefile_unref(h);
    o = (storefile_open_options){.cache = cache, .in_memory = true};
    assert_int_equal(storefile_open_reference_with(ref, &o, &h), ST_OK);
    check_half(h, REFERENCE_TOP, "row123");
    blockcache_get_stats(cache, &st);
    assert_true(st.inserts > 0 && st.entries > 0);
    assert_int_equal(st.memory_entries, st.entries);
    assert_int_equal(st.memory_usage, st.usage);
    storefile_unref(h);
    blockcache_get_stats(cache, &st);
    assert_int_equal(st.entries, 0);
    storefile_set_mmap_reads(true);
    blockcache_free(cache);
    free(ref);
    free(target);
    free(cells);
}

static void half_info_is_the_referenced_files(void **state)
{
    fixture *f = *state;
    gen_cells();
    char *target = write_target(f, "000000000000000000000012");
    char *ref = write_ref(f, "000000000000000000000012", REFERENCE_BOTTOM, "row100");
    storefile *whole = NULL, *h = NULL;
    assert_int_equal(storefile_open(target, NULL, &whole), ST_OK);
    assert_int_equal(storefile_open_reference(ref, NULL, &h), ST_OK);
    const storefile_info *a = storefile_get_info(whole), *b = storefile_get_info(h);
    assert_int_equal(b->max_seq, 77);
    assert_int_equal(b->max_seq, a->max_seq);
    assert_int_equal(b->min_ts, a->min_ts);
    assert_int_equal(b->max_ts, a->max_ts);
    assert_int_equal(b->entries, a->entries);
    assert_int_equal(b->delete_count, a->delete_count);
    assert_int_equal(b->file_size, a->file_size);
    assert_int_equal(b->block_count, a->block_count);
    assert_int_equal(b->bloom, a->bloom);
    assert_int_equal(cell_compare(&b->first, &a->first), 0);
    assert_int_equal(cell_compare(&b->last, &a->last), 0);
    /* No split point from a reference. */
    buf_t row = {0};
    assert_int_equal(storefile_mid_row(whole, &row), ST_OK);
    assert_int_equal(storefile_mid_row(h, &row), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), ref));
    buf_free(&row);
    storefile_unref(h);
    storefile_unref(whole);
    free(ref);
    free(target);
    free(cells);
}

static void mark_deleted_removes_the_reference_only(void **state)
{
    fixture *f = *state;
    gen_cells();
    char *target = write_target(f, "000000000000000000000013");
    char *ref = write_ref(f, "000000000000000000000013", REFERENCE_TOP, "row100");
    storefile *h = NULL;
    assert_int_equal(storefile_open_reference(ref, NULL, &h), ST_OK);
    kv_iter *it = storefile_iter(h, false);
    storefile_mark_deleted(h);
    storefile_unref(h); /* the iterator still holds it */
    assert_true(fio_exists(ref));
    kv_iter_seek_to_first(it);
    assert_true(kv_iter_valid(it));
    kv_iter_destroy(it);
    assert_false(fio_exists(ref));
    assert_true(fio_exists(target));
    storefile *whole = NULL;
    assert_int_equal(storefile_open(target, NULL, &whole), ST_OK);
    storefile_unref(whole);
    free(ref);
    free(target);
    free(cells);
}

static void missing_referenced_file_names_both(void **state)
{
    fixture *f = *state;
    char *ref = write_ref(f, "000000000000000000000014", REFERENCE_TOP, "row100");
    storefile *h = NULL;
    assert_int_equal(storefile_open_reference(ref, NULL, &h), ST_NOT_FOUND);
    assert_null(h);
    assert_non_null(strstr(st_errmsg(), ref));
    assert_non_null(strstr(st_errmsg(), "/t/parent/cf/000000000000000000000014"));
    free(ref);
}

static void corrupt_reference_is_not_opened(void **state)
{
    fixture *f = *state;
    gen_cells();
    char *target = write_target(f, "000000000000000000000015");
    char *ref = write_ref(f, "000000000000000000000015", REFERENCE_TOP, "row100");
    buf_t b = {0};
    assert_int_equal(fio_read_all(ref, &b), ST_OK);
    b.data[20] ^= 0x01; /* the split row: "sow100" would be another half */
    assert_int_equal(fio_write_atomic(ref, b.data, b.len), ST_OK);
    storefile *h = NULL;
    assert_int_equal(storefile_open_reference(ref, NULL, &h), ST_CORRUPTION);
    assert_null(h);
    assert_non_null(strstr(st_errmsg(), ref));
    assert_int_equal(fio_truncate(ref, b.len - 3), ST_OK); /* torn */
    assert_int_equal(storefile_open_reference(ref, NULL, &h), ST_CORRUPTION);
    assert_non_null(strstr(st_errmsg(), ref));
    buf_free(&b);
    free(ref);
    free(target);
    free(cells);
}

/* A damaged block of the referenced file fails the half's iterator with the target's
 * corruption, and no cell of the block is handed over. */
static void corrupt_referenced_block_fails_the_half(void **state)
{
    fixture *f = *state;
    gen_cells();
    char *target = write_target(f, "000000000000000000000016");
    char *ref = write_ref(f, "000000000000000000000016", REFERENCE_TOP, "row100");
    buf_t b = {0};
    assert_int_equal(fio_read_all(target, &b), ST_OK);
    storefile *whole = NULL;
    assert_int_equal(storefile_open(target, NULL, &whole), ST_OK);
    /* The middle of the file is data of the top half (rows >= row100 start about a
     * quarter in; the data is most of the file). */
    uint64_t at = storefile_get_info(whole)->file_size / 2;
    storefile_unref(whole);
    b.data[at] ^= 0x40;
    assert_int_equal(fio_write_atomic(target, b.data, b.len), ST_OK);
    storefile *h = NULL;
    assert_int_equal(storefile_open_reference(ref, NULL, &h), ST_OK);
    kv_iter *it = storefile_iter(h, false);
    size_t n = 0;
    for (kv_iter_seek_to_first(it); kv_iter_valid(it); kv_iter_next(it))
        n++;
    assert_true(n > 0 && n < ncells);
    assert_int_equal(kv_iter_status(it), ST_CORRUPTION);
    assert_non_null(strstr(st_errmsg(), target));
    assert_false(kv_iter_valid(it));
    kv_iter_destroy(it);
    storefile_unref(h);
    buf_free(&b);
    free(ref);
    free(target);
    free(cells);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(round_trip, setup, teardown),
        cmocka_unit_test(encode_refuses_bad_arguments),
        cmocka_unit_test(format_worked_example),
        cmocka_unit_test(corrupt_every_truncation),
        cmocka_unit_test(corrupt_every_flipped_bit),
        cmocka_unit_test(corrupt_fields_behind_a_valid_crc),
        cmocka_unit_test_setup_teardown(corrupt_file_names_the_file, setup, teardown),
        cmocka_unit_test_setup_teardown(leftover_tmp_is_replaced, setup, teardown),
        cmocka_unit_test_setup_teardown(failed_rename_leaves_the_old_reference, setup, teardown),
        cmocka_unit_test(name_helpers),
        cmocka_unit_test(target_path),
        cmocka_unit_test_setup_teardown(reads_through_both_halves, setup, teardown),
        cmocka_unit_test_setup_teardown(whole_file_top_reference, setup, teardown),
        cmocka_unit_test_setup_teardown(half_through_block_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(half_open_options_reach_the_target, setup, teardown),
        cmocka_unit_test_setup_teardown(half_info_is_the_referenced_files, setup, teardown),
        cmocka_unit_test_setup_teardown(mark_deleted_removes_the_reference_only, setup, teardown),
        cmocka_unit_test_setup_teardown(missing_referenced_file_names_both, setup, teardown),
        cmocka_unit_test_setup_teardown(corrupt_reference_is_not_opened, setup, teardown),
        cmocka_unit_test_setup_teardown(corrupt_referenced_block_fails_the_half, setup, teardown),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
