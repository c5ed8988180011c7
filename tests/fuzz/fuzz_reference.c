/*
 * fuzz_reference.c - fuzz target for reference files and reading through them
 * (regionserver/storage/reference.c, storefile_half.c; docs/formats/reference.md): the
 * input is decoded as a reference record (reference_decode), written as the reference
 * file <tmp>/t/daughter/cf/<file>.parent and read back (reference_read), and when it
 * decodes, opened with storefile_open_reference over a fixed store file
 * <tmp>/t/parent/cf/<file> (written once per process: 40 rows, two columns, small blocks,
 * a ROW bloom) and read: a full scan, seek and seek_for_prev to every cell of the
 * referenced file and to the first key of each row and of the split row, bloom checks.
 *
 * It asserts: decoding ends in ST_OK, ST_CORRUPTION or ST_UNSUPPORTED, a failure names
 * the file and leaves the output empty, and the file read agrees with the bytes decoded;
 * a decoded record re-encodes to exactly the input when its reserved bytes are 0; the
 * half presents exactly the referenced file's cells on its side of the split row, every
 * seek lands where the model of that half says, and blooms answer "absent" outside the
 * half and "maybe" for rows inside it. Every input is also run with its split_len and
 * CRC repaired, so mutations reach the version, range and split row behind the CRC.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/bytes.h"
#include "common/crc32c.h"
#include "common/fileio.h"
#include "common/status.h"
#include "regionserver/storage/reference.h"
#include "regionserver/storage/storefile.h"
#include "tests/fuzz/fuzz_support.h"

#define FILE_NAME "0000000000000000000000aa"
#define NROWS 40
#define NCELLS (2 * NROWS)

typedef struct model_cell {
    cell_t c;
    char mem[16];
} model_cell;

static model_cell cells[NCELLS];
static char *ref_path;

/* The referenced file and the model of its cells (sorted as written). */
static void write_target(void)
{
    char *parent_dir = fuzz_path("t/parent/cf"), *daughter_dir = fuzz_path("t/daughter/cf");
    FUZZ_CHECK(fio_mkdirs(parent_dir) == ST_OK && fio_mkdirs(daughter_dir) == ST_OK, "%s",
               st_errmsg());
    char *path = NULL;
    FUZZ_CHECK(asprintf(&path, "%s/" FILE_NAME, parent_dir) > 0, "out of memory");
    FUZZ_CHECK(asprintf(&ref_path, "%s/" FILE_NAME ".parent", daughter_dir) > 0, "out of memory");
    storefile_options o = {.block_size = 128, .bloom = BLOOM_ROW};
    storefile_writer *w = NULL;
    FUZZ_CHECK(storefile_writer_open(path, &o, &w) == ST_OK, "%s", st_errmsg());
    for (int i = 0; i < NCELLS; i++) {
        model_cell *m = &cells[i];
        int n = snprintf(m->mem, sizeof(m->mem), "r%02d", i / 2);
        memcpy(m->mem + n, "cf", 2);
        m->mem[n + 2] = (char)('a' + i % 2);
        m->c = (cell_t){.row = (const uint8_t *)m->mem,
                        .row_len = (uint32_t)n,
                        .family = (const uint8_t *)m->mem + n,
                        .family_len = 2,
                        .qualifier = (const uint8_t *)m->mem + n + 2,
                        .qualifier_len = 1,
                        .value = (const uint8_t *)m->mem,
                        .value_len = (uint32_t)n,
                        .ts = 1000,
                        .type = CELL_TYPE_PUT,
                        .seq = (uint64_t)i + 1};
        FUZZ_CHECK(storefile_writer_add(w, &m->c) == ST_OK, "%s", st_errmsg());
    }
    FUZZ_CHECK(storefile_writer_finish(w, NCELLS, false) == ST_OK, "%s", st_errmsg());
    free(path);
    free(parent_dir);
    free(daughter_dir);
}

static bool in_half(const reference *r, const cell_t *c)
{
    int cmp = cell_compare_rows(c->row, c->row_len, r->split_row.data, r->split_row.len);
    return r->range == REFERENCE_TOP ? cmp >= 0 : cmp < 0;
}

/* The model's answers: first half cell >= key, last half cell <= key (-1: none). */
static int model_seek(const reference *r, const cell_t *key)
{
    for (int i = 0; i < NCELLS; i++)
        if (in_half(r, &cells[i].c) && cell_compare(&cells[i].c, key) >= 0)
            return i;
    return -1;
}

static int model_seek_for_prev(const reference *r, const cell_t *key)
{
    for (int i = NCELLS - 1; i >= 0; i--)
        if (in_half(r, &cells[i].c) && cell_compare(&cells[i].c, key) <= 0)
            return i;
    return -1;
}

static void expect(kv_iter *it, int want, const char *what)
{
    FUZZ_CHECK(kv_iter_status(it) == ST_OK, "%s: %s", what, st_errmsg());
    FUZZ_CHECK(kv_iter_valid(it) == (want >= 0), "%s: valid %d, model %d", what, kv_iter_valid(it),
               want);
    FUZZ_CHECK(want < 0 || cell_compare(kv_iter_cell(it), &cells[want].c) == 0,
               "%s: another cell than the model's %d", what, want);
}

static void probe(kv_iter *it, const reference *r, const cell_t *key)
{
    kv_iter_seek(it, key);
    expect(it, model_seek(r, key), "seek");
    kv_iter_seek_for_prev(it, key);
    expect(it, model_seek_for_prev(r, key), "seek_for_prev");
}

static void read_half(const reference *r)
{
    storefile *h = NULL;
    int rc = storefile_open_reference(ref_path, NULL, &h);
    FUZZ_CHECK(rc == ST_OK, "open of a reference that decodes: %s", st_errmsg());
    kv_iter *it = storefile_iter(h, false);
    FUZZ_CHECK(it != NULL, "out of memory");
    int i = 0;
    for (kv_iter_seek_to_first(it); kv_iter_valid(it); kv_iter_next(it)) {
        while (i < NCELLS && !in_half(r, &cells[i].c))
            i++;
        FUZZ_CHECK(i < NCELLS && cell_compare(kv_iter_cell(it), &cells[i].c) == 0,
                   "scan: a cell the half does not hold (model %d)", i);
        i++;
    }
    while (i < NCELLS && !in_half(r, &cells[i].c))
        i++;
    FUZZ_CHECK(i == NCELLS && kv_iter_status(it) == ST_OK, "scan ended early at %d", i);
    cell_t split = cell_first_on_row(r->split_row.data, r->split_row.len);
    probe(it, r, &split);
    for (int k = 0; k < NCELLS; k++) {
        const cell_t *c = &cells[k].c;
        probe(it, r, c);
        cell_t first = cell_first_on_row(c->row, c->row_len);
        probe(it, r, &first);
        /* Outside the half: absent; inside: a row the file holds, so never absent. */
        bool may = storefile_may_contain_row(h, c->row, c->row_len);
        FUZZ_CHECK(may == in_half(r, c), "bloom: %s for a row %s the half",
                   may ? "maybe" : "absent", in_half(r, c) ? "inside" : "outside");
    }
    kv_iter_destroy(it);
    storefile_unref(h);
}

static void check_input(const uint8_t *data, size_t size)
{
    reference a = {0}, b = {0};
    int rc = reference_decode("fuzz-input", data, size, &a);
    FUZZ_CHECK(rc == ST_OK || rc == ST_CORRUPTION || rc == ST_UNSUPPORTED, "decode: %d (%s)", rc,
               st_errmsg());
    if (rc != ST_OK) {
        FUZZ_CHECK(strstr(st_errmsg(), "fuzz-input"), "message without the name: %s", st_errmsg());
        FUZZ_CHECK(a.split_row.len == 0 && a.range == 0, "a failed decode set its output");
    }
    fuzz_write_file(ref_path, data, size);
    int rc2 = reference_read(ref_path, &b);
    FUZZ_CHECK(rc2 == rc, "decoded %d, read %d", rc, rc2);
    if (rc != ST_OK) {
        FUZZ_CHECK(strstr(st_errmsg(), ref_path), "message without the path: %s", st_errmsg());
        storefile *h = NULL;
        FUZZ_CHECK(storefile_open_reference(ref_path, NULL, &h) == rc && !h,
                   "a reference that does not decode opened");
        return;
    }
    FUZZ_CHECK(a.range == b.range && a.split_row.len == b.split_row.len &&
                   (a.split_row.len == 0 ||
                    memcmp(a.split_row.data, b.split_row.data, a.split_row.len) == 0),
               "decoded and read references differ");
    bool reserved_zero = data[13] == 0 && data[14] == 0 && data[15] == 0;
    buf_t again = {0};
    if (reserved_zero &&
        reference_encode(a.range, a.split_row.data, a.split_row.len, &again) == ST_OK)
        FUZZ_CHECK(again.len == size && memcmp(again.data, data, size) == 0,
                   "re-encoding differs from the input");
    buf_free(&again);
    read_half(&a);
    reference_free(&a);
    reference_free(&b);
}

/* Makes split_len agree with the size and the CRC with the bytes; false if it cannot. */
static bool repair(uint8_t *p, size_t n)
{
    if (n < REFERENCE_HEADER_LEN + REFERENCE_CRC_LEN ||
        n - REFERENCE_HEADER_LEN - REFERENCE_CRC_LEN > REFERENCE_MAX_SPLIT_LEN)
        return false;
    be32_put(p + 16, (uint32_t)(n - REFERENCE_HEADER_LEN - REFERENCE_CRC_LEN));
    be32_put(p + n - 4, crc32c_value(p, n - 4));
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!ref_path)
        write_target();
    check_input(data, size);
    uint8_t *copy = malloc(size ? size : 1);
    FUZZ_CHECK(copy != NULL, "out of memory");
    if (size)
        memcpy(copy, data, size);
    if (repair(copy, size))
        check_input(copy, size);
    free(copy);
    return 0;
}
