/*
 * fuzz_storefile.c - fuzz target for opening and reading store files
 * (regionserver/storage/storefile_reader.c, storefile_iter.c, block.c, bloom.c;
 * docs/formats/storefile.md): the input is written as a file and opened with
 * storefile_open(), once with a block cache and once without; an opened file is read
 * cell by cell to the end (through the cache, then with fill_cache false), and point
 * reads are made: seek and seek_for_prev to cells read and to synthetic keys around
 * them, bloom checks of their rows and columns, and the mid row.
 *
 * It asserts: open returns ST_OK, ST_CORRUPTION or ST_UNSUPPORTED and a failure's message
 * names the file; both opens agree; an opened file is of version 1, 2 or 3 with the block
 * type and compression code its version allows (1: type 1, 2: type 2, each with codes
 * 0..1; 3: either type, codes 0..4: Snappy, LZ4 and gzip blocks are decoded); an
 * iterator ends with ST_OK or ST_CORRUPTION, a corruption message names the file and
 * the block offset, and no cell is handed over
 * from a block that fails; both full reads hand over the same cells (cache or not);
 * every cell handed over lies inside the file's bytes; when the cells read are in
 * strictly increasing order, a seek to each lands on it exactly. Any memory error,
 * leak or undefined behaviour is caught by the sanitizers. Everything is done for the
 * input as it is and again with its checksums repaired (fuzz_repair.h), so mutations
 * also reach the sections and blocks behind the CRCs.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/status.h"
#include "regionserver/storage/blockcache.h"
#include "regionserver/storage/storefile.h"
#include "tests/fuzz/fuzz_repair.h"
#include "tests/fuzz/fuzz_support.h"

#define MAX_SAMPLES 32
#define MAX_CELLS 100000

/* A deep copy of a cell (the iterator's view dies at the next move). */
typedef struct owned_cell {
    cell_t c;
    uint8_t *mem;
} owned_cell;

typedef struct read_result {
    uint64_t digest; /* over every cell handed over, in order */
    size_t cells;
    int status;
    bool sorted;
    owned_cell samples[MAX_SAMPLES];
    size_t nsamples;
} read_result;

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

static uint64_t cell_digest(uint64_t h, const cell_t *c)
{
    h = mix(h, c->row, c->row_len);
    h = mix(h, c->family, c->family_len);
    h = mix(h, c->qualifier, c->qualifier_len);
    h = mix(h, c->value, c->value_len);
    h = mix(h, &c->ts, sizeof(c->ts));
    h = mix(h, &c->seq, sizeof(c->seq));
    return mix(h, &c->type, 1);
}

static void own(owned_cell *o, const cell_t *c)
{
    size_t n = (size_t)c->row_len + c->family_len + c->qualifier_len + c->value_len;
    o->mem = malloc(n ? n : 1);
    FUZZ_CHECK(o->mem != NULL, "out of memory");
    o->c = *c;
    uint8_t *p = o->mem;
    memcpy(p, c->row, c->row_len), o->c.row = p, p += c->row_len;
    memcpy(p, c->family, c->family_len), o->c.family = p, p += c->family_len;
    memcpy(p, c->qualifier, c->qualifier_len), o->c.qualifier = p, p += c->qualifier_len;
    memcpy(p, c->value, c->value_len), o->c.value = p;
}

static void result_free(read_result *r)
{
    for (size_t i = 0; i < r->nsamples; i++)
        free(r->samples[i].mem);
}

static void check_failure(int rc, const char *path, bool block)
{
    FUZZ_CHECK(rc == ST_CORRUPTION, "status %d (%s): %s", rc, st_strerror(rc), st_errmsg());
    FUZZ_CHECK(strstr(st_errmsg(), path), "message without the path: %s", st_errmsg());
    FUZZ_CHECK(!block || strstr(st_errmsg(), "offset"), "message without the offset: %s",
               st_errmsg());
}

/* Reads f to the end; samples cells spread over the file. */
static void read_all(storefile *f, bool fill_cache, read_result *r)
{
    kv_iter *it = storefile_iter(f, fill_cache);
    FUZZ_CHECK(it != NULL, "out of memory");
    owned_cell prev = {0};
    r->sorted = true;
    r->digest = 0xcbf29ce484222325ULL;
    for (kv_iter_seek_to_first(it); kv_iter_valid(it) && r->cells < MAX_CELLS; kv_iter_next(it)) {
        const cell_t *c = kv_iter_cell(it);
        r->digest = cell_digest(r->digest, c);
        if (r->cells && cell_compare(&prev.c, c) >= 0)
            r->sorted = false;
        free(prev.mem);
        own(&prev, c);
        if (r->nsamples < MAX_SAMPLES && (r->cells < 8 || r->cells % 97 == 0))
            own(&r->samples[r->nsamples++], c);
        r->cells++;
    }
    free(prev.mem);
    r->status = kv_iter_status(it);
    if (r->status != ST_OK)
        check_failure(r->status, storefile_path(f), true);
    kv_iter_destroy(it);
}

/* seek / seek_for_prev to key; returns whether the iterator is valid afterwards. */
static void probe(kv_iter *it, const cell_t *key, bool sorted, bool exact)
{
    kv_iter_seek(it, key);
    if (kv_iter_valid(it)) {
        const cell_t *c = kv_iter_cell(it);
        FUZZ_CHECK(!sorted || cell_compare(c, key) >= 0, "seek landed before its key");
        FUZZ_CHECK(!exact || cell_compare(c, key) == 0, "seek missed a cell that was read");
    } else {
        FUZZ_CHECK(!exact || kv_iter_status(it) != ST_OK, "seek found nothing for a cell read");
    }
    kv_iter_seek_for_prev(it, key);
    if (kv_iter_valid(it)) {
        const cell_t *c = kv_iter_cell(it);
        FUZZ_CHECK(!sorted || cell_compare(c, key) <= 0, "seek_for_prev landed after its key");
        FUZZ_CHECK(!exact || cell_compare(c, key) == 0, "seek_for_prev missed a cell read");
        kv_iter_next(it);
    } else {
        FUZZ_CHECK(!exact || kv_iter_status(it) != ST_OK, "seek_for_prev found nothing");
    }
}

static void point_reads(storefile *f, const read_result *r)
{
    kv_iter *it = storefile_iter(f, true);
    FUZZ_CHECK(it != NULL, "out of memory");
    bool clean = r->sorted && r->status == ST_OK;
    for (size_t i = 0; i < r->nsamples; i++) {
        const cell_t *c = &r->samples[i].c;
        probe(it, c, clean, clean);
        cell_t k = cell_first_on_row(c->row, c->row_len);
        probe(it, &k, clean, false);
        k = cell_last_on_column(c->row, c->row_len, c->family, c->family_len, c->qualifier,
                                c->qualifier_len);
        probe(it, &k, clean, false);
        (void)storefile_may_contain_row(f, c->row, c->row_len);
        (void)storefile_may_contain_column(f, c->row, c->row_len, c->family, c->family_len,
                                           c->qualifier, c->qualifier_len);
    }
    cell_t empty = cell_first_on_row((const uint8_t *)"", 0);
    probe(it, &empty, clean, false);
    kv_iter_destroy(it);
    buf_t mid = {0};
    int rc = storefile_mid_row(f, &mid);
    FUZZ_CHECK(rc == ST_OK || rc == ST_NOT_FOUND, "mid row: %d", rc);
    buf_free(&mid);
}

/* What an opened file's version allows (docs/formats/storefile.md). */
static void check_version(const storefile_info *in)
{
    bool plain = in->block_type == STOREFILE_BLOCKS_PLAIN;
    FUZZ_CHECK(plain || in->block_type == STOREFILE_BLOCKS_PREFIX, "block type %d",
               (int)in->block_type);
    FUZZ_CHECK((in->version == 1 && plain) || (in->version == 2 && !plain) || in->version == 3,
               "version %u with block type %d", in->version, (int)in->block_type);
    unsigned last = in->version == 3 ? COMPRESSION_LAST : COMPRESSION_ZSTD;
    FUZZ_CHECK((unsigned)in->compression <= last, "version %u with compression %d", in->version,
               (int)in->compression);
}

/* Writes data as the store file path and checks opening and reading it. */
static void check_file(const char *path, blockcache *cache, const uint8_t *data, size_t size)
{
    fuzz_write_file(path, data, size);

    storefile *cached = NULL, *plain = NULL;
    int rc = storefile_open(path, cache, &cached);
    if (rc != ST_OK) {
        FUZZ_CHECK(cached == NULL, "a failed open set its output");
        FUZZ_CHECK(rc == ST_UNSUPPORTED || rc == ST_CORRUPTION, "open: %d (%s)", rc, st_errmsg());
        FUZZ_CHECK(strstr(st_errmsg(), path), "message without the path: %s", st_errmsg());
    }
    int rc2 = storefile_open(path, NULL, &plain);
    FUZZ_CHECK(rc2 == rc, "opened %d with a cache, %d without", rc, rc2);
    if (rc != ST_OK)
        return;

    const storefile_info *info = storefile_get_info(cached);
    FUZZ_CHECK(info->file_size == size, "file size %llu of %zu",
               (unsigned long long)info->file_size, size);
    check_version(info);
    read_result a = {0}, b = {0};
    read_all(cached, true, &a);
    read_all(plain, false, &b);
    FUZZ_CHECK(a.cells == b.cells && a.digest == b.digest && a.status == b.status,
               "with a cache %zu cells (%d), without %zu (%d)", a.cells, a.status, b.cells,
               b.status);
    point_reads(cached, &a);
    /* Read again: the blocks now come from the cache. */
    read_result c = {0};
    read_all(cached, true, &c);
    FUZZ_CHECK(c.cells == a.cells && c.digest == a.digest, "second read differs");
    result_free(&a);
    result_free(&b);
    result_free(&c);
    storefile_unref(cached);
    storefile_unref(plain);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *path;
    static blockcache *cache;
    if (!path) {
        path = fuzz_path("storefile");
        cache = blockcache_new(1u << 20, 2);
        FUZZ_CHECK(cache != NULL, "out of memory");
    }
    check_file(path, cache, data, size);
    uint8_t *copy = malloc(size ? size : 1);
    FUZZ_CHECK(copy != NULL, "out of memory");
    if (size)
        memcpy(copy, data, size);
    if (fuzz_repair_storefile(copy, size))
        check_file(path, cache, copy, size);
    free(copy);
    return 0;
}
