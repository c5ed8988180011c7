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
#include "regionserver/storage/reference.h"
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
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
