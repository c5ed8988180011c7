/*
 * test_storefile.c - store files end to end: 100k cells (rows, families, qualifiers, versions,
 * delete types, large values) written with every compression (none, zstd, Snappy, LZ4, gzip), block
 * type and bloom type in 4 KiB blocks and read back in order; seek / seek_for_prev to random
 * present and absent keys checked against a sorted in-memory array; file info; blooms; order
 * violations; empty files; corrupt_* (a bit flipped in a data block, the trailer, the index, the
 * file info, the bloom; truncation; each codec's payload damaged behind a fixed CRC; block types
 * and codes a file's version does not allow); the version a writer chooses and the cap's refusals;
 * fault_* (failed fsync, rename, write); mark_deleted; mid_row; concurrent readers; the worked
 * example of the format page.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <lz4.h>
#include <snappy-c.h>
#include <zlib.h>
#include <zstd.h>

#include "common/bytes.h"
#include "common/crc32c.h"
#include "common/fileio.h"
#include "common/status.h"
#include "regionserver/storage/block.h"
#include "regionserver/storage/storefile.h"
#include "tests/support/testutil.h"

#define NCELLS 100000
#define NSEEKS 3000
#define BLOCK 4096

typedef struct tcell {
    cell_t c;
    uint8_t *mem;
} tcell;

static char dir[64];
static tcell *data;
static size_t ndata;
static size_t nrows_generated; /* rows are "row%07d" of 3*r for r < nrows_generated */
static uint64_t rng_state = 0x2545F4914F6CDD1DULL;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return rng_state = x;
}

/* ---- data ---- */

static int cmp_tcell(const void *a, const void *b)
{
    return cell_compare(&((const tcell *)a)->c, &((const tcell *)b)->c);
}

static void fill_value(uint8_t *v, size_t n, bool random_bytes)
{
    for (size_t i = 0; i < n; i++)
        v[i] = random_bytes ? (uint8_t)rnd() : (uint8_t)("value-abc"[i % 9] + (i / 64) % 3);
}

static void add_cell(const char *row, const char *fam, const char *qual, int64_t ts, uint8_t type)
{
    size_t rl = strlen(row), fl = strlen(fam), ql = strlen(qual);
    size_t vl = rnd() % 40;
    bool big = ndata % 1000 == 999;
    if (big)
        vl = 6000 + rnd() % 20000;
    tcell *t = &data[ndata++];
    t->mem = malloc(rl + fl + ql + vl + 1);
    assert_non_null(t->mem);
    memcpy(t->mem, row, rl);
    memcpy(t->mem + rl, fam, fl);
    memcpy(t->mem + rl + fl, qual, ql);
    fill_value(t->mem + rl + fl + ql, vl, big);
    t->c = (cell_t){.row = t->mem,
                    .row_len = (uint32_t)rl,
                    .family = t->mem + rl,
                    .family_len = (uint32_t)fl,
                    .qualifier = t->mem + rl + fl,
                    .qualifier_len = (uint32_t)ql,
                    .value = t->mem + rl + fl + ql,
                    .value_len = (uint32_t)vl,
                    .ts = ts,
                    .type = type,
                    .seq = 1 + rnd() % 1000000};
}

static uint8_t random_type(int q, int v)
{
    uint64_t x = rnd() % 40;
    if (x == 0 && q == 0 && v == 0)
        return CELL_TYPE_DELETE_FAMILY;
    if (x == 1)
        return CELL_TYPE_DELETE_COLUMN;
    if (x < 5)
        return CELL_TYPE_DELETE;
    if (x == 5)
        return CELL_TYPE_DELETE_FAMILY_VERSION;
    return CELL_TYPE_PUT;
}

static void gen_row(size_t r)
{
    static const char *fams[2] = {"cf", "meta"};
    char row[32], qual[16];
    snprintf(row, sizeof(row), "row%07zu", 3 * r);
    for (int f = 0; f < (r % 2 ? 1 : 2); f++)
        for (int q = 0; q <= (int)(r % 4); q++) {
            if (q == 0 && r % 5 == 0)
                qual[0] = '\0'; /* empty qualifier */
            else
                snprintf(qual, sizeof(qual), "q%d", q);
            int64_t ts = 1000000 + (int64_t)(rnd() % 1000);
            int versions = 1 + (int)(rnd() % 3);
            for (int v = 0; v < versions && ndata < NCELLS; v++) {
                add_cell(row, fams[f], qual, ts, random_type(q, v));
                ts -= 1 + (int64_t)(rnd() % 5);
            }
        }
}

static void gen_data(void)
{
    data = calloc(NCELLS, sizeof(*data));
    assert_non_null(data);
    for (size_t r = 0; ndata < NCELLS; r++) {
        gen_row(r);
        nrows_generated = r + 1;
    }
    qsort(data, ndata, sizeof(*data), cmp_tcell);
    size_t big = 0, empty_qual = 0;
    for (size_t i = 0; i < ndata; i++) {
        if (i)
            assert_true(cell_compare(&data[i - 1].c, &data[i].c) < 0);
        big += data[i].c.value_len > BLOCK;
        empty_qual += data[i].c.qualifier_len == 0;
    }
    assert_int_equal(ndata, NCELLS);
    assert_true(big >= 50 && empty_qual > 0);
}

/* ---- helpers ---- */

static char *path_of(const char *name)
{
    static char p[4][256];
    static int i;
    i = (i + 1) % 4;
    snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
    return p[i];
}

static void write_file(const char *path, const storefile_options *o, const tcell *cells, size_t n,
                       uint64_t max_seq, bool major)
{
    storefile_writer *w = NULL;
    assert_int_equal(storefile_writer_open(path, o, &w), ST_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(storefile_writer_add(w, &cells[i].c), ST_OK);
    assert_int_equal(storefile_writer_entries(w), n);
    assert_int_equal(storefile_writer_finish(w, max_seq, major), ST_OK);
    char tmp[300];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    assert_true(fio_exists(path));
    assert_false(fio_exists(tmp));
}

static void assert_cell_eq(const cell_t *a, const cell_t *b)
{
    if (cell_compare(a, b) != 0) {
        char x[512], y[512];
        cell_format(a, x, sizeof(x));
        cell_format(b, y, sizeof(y));
        fail_msg("cell %s != expected %s", x, y);
    }
    assert_int_equal(a->value_len, b->value_len);
    if (a->value_len)
        assert_memory_equal(a->value, b->value, a->value_len);
}

/* Scans f from the first cell and checks it against cells[0..n). */
static void check_scan(storefile *f, bool fill_cache, const tcell *cells, size_t n)
{
    kv_iter *it = storefile_iter(f, fill_cache);
    assert_non_null(it);
    size_t i = 0;
    for (kv_iter_seek_to_first(it); kv_iter_valid(it); kv_iter_next(it), i++) {
        assert_true(i < n);
        assert_cell_eq(kv_iter_cell(it), &cells[i].c);
    }
    assert_int_equal(kv_iter_status(it), ST_OK);
    assert_int_equal(i, n);
    kv_iter_destroy(it);
}

/* First index with data[i] >= key (lower) or > key (upper). */
static size_t bound(const cell_t *key, bool upper)
{
    size_t lo = 0, hi = ndata;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cell_compare(&data[mid].c, key);
        if (c < 0 || (upper && c == 0))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A random key: an existing cell, one perturbed around it, or a random row. Views
 * borrow from data or from rowbuf. */
static cell_t random_key(char *rowbuf, size_t cap)
{
    const cell_t *c = &data[rnd() % ndata].c;
    cell_t k = *c;
    k.value_len = 0;
    switch (rnd() % 8) {
    case 0:
    case 1:
        return *c;
    case 2:
        k.ts += (int64_t)(rnd() % 3) - 1;
        break;
    case 3:
        k.seq += (rnd() % 3) - 1;
        break;
    case 4:
        k.type = (uint8_t)(rnd() % 2 ? CELL_TYPE_MINIMUM : CELL_TYPE_MAXIMUM);
        break;
    case 5:
        return cell_first_on_row(c->row, c->row_len);
    case 6:
        return cell_last_on_column(c->row, c->row_len, c->family, c->family_len, c->qualifier,
                                   c->qualifier_len);
    default: {
        /* rows 3r+1 and 3r+2 are absent; beyond the ends too */
        size_t r = rnd() % (3 * nrows_generated + 10);
        int n = snprintf(rowbuf, cap, "row%07zu", r);
        if (rnd() % 50 == 0)
            n = snprintf(rowbuf, cap, "%s", rnd() % 2 ? "a" : "zzz");
        return cell_first_on_row((const uint8_t *)rowbuf, (size_t)n);
    }
    }
    return k;
}

static void check_at(kv_iter *it, size_t expect)
{
    for (int step = 0; step < 3; step++, expect++) {
        if (expect >= ndata) {
            assert_false(kv_iter_valid(it));
            assert_int_equal(kv_iter_status(it), ST_OK);
            return;
        }
        assert_true(kv_iter_valid(it));
        assert_cell_eq(kv_iter_cell(it), &data[expect].c);
        kv_iter_next(it);
    }
}

static void check_random_seeks(storefile *f, bool fill_cache, int count)
{
    kv_iter *it = storefile_iter(f, fill_cache);
    char rowbuf[32];
    for (int i = 0; i < count; i++) {
        cell_t key = random_key(rowbuf, sizeof(rowbuf));
        kv_iter_seek(it, &key);
        check_at(it, bound(&key, false));
        size_t ub = bound(&key, true);
        kv_iter_seek_for_prev(it, &key);
        if (ub == 0) {
            assert_false(kv_iter_valid(it));
            assert_int_equal(kv_iter_status(it), ST_OK);
        } else {
            check_at(it, ub - 1);
        }
    }
    kv_iter_destroy(it);
}

static void check_info(storefile *f, const storefile_options *o, const char *path,
                       uint32_t version)
{
    const storefile_info *in = storefile_get_info(f);
    uint64_t deletes = 0, size = 0;
    int64_t min_ts = INT64_MAX, max_ts = INT64_MIN;
    for (size_t i = 0; i < ndata; i++) {
        deletes += cell_is_delete(data[i].c.type);
        min_ts = data[i].c.ts < min_ts ? data[i].c.ts : min_ts;
        max_ts = data[i].c.ts > max_ts ? data[i].c.ts : max_ts;
    }
    assert_int_equal(in->entries, ndata);
    assert_int_equal(in->delete_count, deletes);
    assert_true(deletes > 0);
    assert_int_equal(in->min_ts, min_ts);
    assert_int_equal(in->max_ts, max_ts);
    assert_int_equal(in->max_seq, 4242);
    assert_true(in->major_compacted);
    assert_int_equal(in->bloom, o->bloom);
    assert_int_equal(in->compression, o->compression);
    assert_int_equal(in->version, version);
    bool plain = version == 1 || o->block_type == STOREFILE_BLOCKS_PLAIN;
    assert_int_equal(in->block_type, plain ? STOREFILE_BLOCKS_PLAIN : STOREFILE_BLOCKS_PREFIX);
    assert_true(in->block_count > 500);
    assert_int_equal(fio_file_size(path, &size), ST_OK);
    assert_int_equal(in->file_size, size);
    assert_cell_eq(&in->first, &data[0].c);
    assert_cell_eq(&in->last, &data[ndata - 1].c);
    assert_string_equal(storefile_path(f), path);
}

/* Rows 3r are present, 3r+1 absent: no false negative, < 2 % false positives. */
static void check_bloom(storefile *f, bloom_type bloom)
{
    char row[32];
    size_t fp = 0, fp_col = 0;
    for (size_t i = 0; i < ndata; i++) {
        const cell_t *c = &data[i].c;
        assert_true(storefile_may_contain_row(f, c->row, c->row_len));
        assert_true(storefile_may_contain_column(f, c->row, c->row_len, c->family, c->family_len,
                                                 c->qualifier, c->qualifier_len));
    }
    for (size_t r = 0; r < nrows_generated; r++) {
        int n = snprintf(row, sizeof(row), "row%07zu", 3 * r + 1);
        fp += storefile_may_contain_row(f, (uint8_t *)row, (size_t)n);
        n = snprintf(row, sizeof(row), "row%07zu", 3 * r);
        fp_col += storefile_may_contain_column(f, (uint8_t *)row, (size_t)n, (const uint8_t *)"cf",
                                               2, (const uint8_t *)"zz", 2);
    }
    if (bloom == BLOOM_NONE) {
        assert_int_equal(fp, nrows_generated);
        return;
    }
    assert_true(fp * 50 < nrows_generated);
    if (bloom == BLOOM_ROWCOL)
        assert_true(fp_col * 50 < nrows_generated);
}

/* ---- the full matrix ---- */

/* Mapped reads: uncompressed blocks come from the mapping and never enter the cache;
 * compressed ones do. */
static void roundtrip_mapped(const char *path, compression_type comp)
{
    storefile_set_mmap_reads(true);
    blockcache *bc = blockcache_new(2 << 20, 0);
    storefile *f = NULL;
    assert_int_equal(storefile_open(path, bc, &f), ST_OK);
    check_scan(f, true, data, ndata);
    check_random_seeks(f, true, NSEEKS);
    check_scan(f, true, data, ndata); /* the blocks verified once, read again */
    blockcache_stats st;
    blockcache_get_stats(bc, &st);
    if (comp == COMPRESSION_NONE)
        assert_int_equal(st.inserts, 0);
    else
        assert_true(st.inserts > 0);
    storefile_unref(f);
    blockcache_free(bc);
}

/* Writes every cell with o (block_size BLOCK) and reads them back every way; the file
 * must be of format version `version`. */
static void roundtrip_options(storefile_options o, const char *name, uint32_t version)
{
    o.block_size = BLOCK;
    compression_type comp = o.compression;
    bloom_type bloom = o.bloom;
    const char *path = path_of(name);
    write_file(path, &o, data, ndata, 4242, true);
    roundtrip_mapped(path, comp);
    storefile_set_mmap_reads(false); /* below: every block through pread and the cache */
    blockcache *bc = blockcache_new(2 << 20, 0);
    storefile *f = NULL;
    assert_int_equal(storefile_open(path, bc, &f), ST_OK);
    check_info(f, &o, path, version);
    check_scan(f, true, data, ndata);
    blockcache_stats st;
    blockcache_get_stats(bc, &st);
    assert_true(st.inserts >= storefile_get_info(f)->block_count);
    check_random_seeks(f, true, NSEEKS);
    /* fill_cache false inserts nothing */
    blockcache_get_stats(bc, &st);
    uint64_t inserts = st.inserts;
    check_scan(f, false, data, ndata);
    check_random_seeks(f, false, NSEEKS / 10);
    blockcache_get_stats(bc, &st);
    assert_int_equal(st.inserts, inserts);
    check_bloom(f, bloom);
    storefile_unref(f);
    blockcache_get_stats(bc, &st);
    assert_int_equal(st.entries, 0); /* the last unref drops the file's blocks */
    /* without a cache */
    assert_int_equal(storefile_open(path, NULL, &f), ST_OK);
    check_scan(f, true, data, ndata);
    check_random_seeks(f, true, NSEEKS / 10);
    storefile_unref(f);
    blockcache_free(bc);
    storefile_set_mmap_reads(true);
}

static void roundtrip(compression_type comp, bloom_type bloom, const char *name)
{
    uint32_t version = comp > COMPRESSION_ZSTD ? 3 : 2; /* prefix-compressed blocks */
    roundtrip_options((storefile_options){.compression = comp, .bloom = bloom}, name, version);
}

/* Version-1 files (whole cells and an offset per cell) still read: under a cap of 1, and
 * as the lowest version for PLAIN blocks. */
static void roundtrip_v1_none_row(void **state)
{
    roundtrip_options((storefile_options){.bloom = BLOOM_ROW, .max_version = 1}, "v1-none-row", 1);
}
static void roundtrip_v1_zstd_rowcol(void **state)
{
    roundtrip_options((storefile_options){.compression = COMPRESSION_ZSTD,
                                          .bloom = BLOOM_ROWCOL,
                                          .block_type = STOREFILE_BLOCKS_PLAIN},
                      "v1-zstd-rowcol", 1);
}

/* Version 3: Snappy, LZ4 and gzip over blocks of both types. */
static void roundtrip_codec_both_types(compression_type comp, const char *name)
{
    char plain[64];
    snprintf(plain, sizeof(plain), "%s-plain", name);
    roundtrip(comp, BLOOM_ROW, name);
    roundtrip_options((storefile_options){.compression = comp,
                                          .bloom = BLOOM_ROWCOL,
                                          .block_type = STOREFILE_BLOCKS_PLAIN},
                      plain, 3);
}
static void roundtrip_snappy_both_types(void **state)
{
    roundtrip_codec_both_types(COMPRESSION_SNAPPY, "snappy-row");
}
static void roundtrip_lz4_both_types(void **state)
{
    roundtrip_codec_both_types(COMPRESSION_LZ4, "lz4-row");
}
static void roundtrip_gz_both_types(void **state)
{
    roundtrip_codec_both_types(COMPRESSION_GZ, "gz-row");
}

static void roundtrip_none_nobloom(void **state)
{
    roundtrip(COMPRESSION_NONE, BLOOM_NONE, "none-none");
}
static void roundtrip_none_row(void **state)
{
    roundtrip(COMPRESSION_NONE, BLOOM_ROW, "none-row");
}
static void roundtrip_none_rowcol(void **state)
{
    roundtrip(COMPRESSION_NONE, BLOOM_ROWCOL, "none-rowcol");
}
static void roundtrip_zstd_nobloom(void **state)
{
    roundtrip(COMPRESSION_ZSTD, BLOOM_NONE, "zstd-none");
}
static void roundtrip_zstd_row(void **state)
{
    roundtrip(COMPRESSION_ZSTD, BLOOM_ROW, "zstd-row");
}
static void roundtrip_zstd_rowcol(void **state)
{
    roundtrip(COMPRESSION_ZSTD, BLOOM_ROWCOL, "zstd-rowcol");
}

/* Counts the data blocks of a file by their compression code, walking the headers. */
static void count_block_codes(const char *path, size_t codes[COMPRESSION_LAST + 1])
{
    buf_t b = {0};
    assert_int_equal(fio_read_all(path, &b), ST_OK);
    size_t data_end = (size_t)be64_get(b.data + b.len - 64);
    memset(codes, 0, sizeof(size_t) * (COMPRESSION_LAST + 1));
    for (size_t off = 0; off < data_end; off += 16 + be32_get(b.data + off + 4)) {
        assert_true(b.data[off + 1] <= COMPRESSION_LAST);
        codes[b.data[off + 1]]++;
    }
    buf_free(&b);
}

/* 16 cells of 6000 random bytes each, in blocks of one cell: no codec shrinks them. */
static void write_noise(const char *path, compression_type comp)
{
    tcell noise[16];
    static char rows[16][8];
    uint8_t *bytes = malloc(16 * 6000);
    assert_non_null(bytes);
    fill_value(bytes, 16 * 6000, true);
    for (int i = 0; i < 16; i++) {
        snprintf(rows[i], sizeof(rows[i]), "n%02d", i);
        noise[i].c = (cell_t){.row = (uint8_t *)rows[i], .row_len = 3,
                              .family = (uint8_t *)"cf", .family_len = 2,
                              .value = bytes + 6000 * i, .value_len = 6000,
                              .ts = 1, .type = CELL_TYPE_PUT, .seq = 1};
    }
    storefile_options o = {.block_size = 4096, .compression = comp};
    write_file(path, &o, noise, 16, 1, false);
    storefile *f = NULL;
    assert_int_equal(storefile_open(path, NULL, &f), ST_OK);
    check_scan(f, false, noise, 16);
    storefile_unref(f);
    free(bytes);
}

static void zstd_file_is_smaller(void **state)
{
    uint64_t a = 0, b = 0;
    size_t codes[COMPRESSION_LAST + 1];
    assert_int_equal(fio_file_size(path_of("none-row"), &a), ST_OK);
    assert_int_equal(fio_file_size(path_of("zstd-row"), &b), ST_OK);
    assert_true(b < a * 3 / 4);
    count_block_codes(path_of("none-row"), codes);
    assert_int_equal(codes[1], 0);
    /* zstd blocks, and blocks of random large values that zstd cannot shrink */
    count_block_codes(path_of("zstd-row"), codes);
    print_message("zstd file: %zu compressed blocks, %zu stored raw\n", codes[1], codes[0]);
    assert_true(codes[1] > 100);
    /* blocks of random values that zstd cannot shrink are stored raw */
    write_noise(path_of("zstd-noise"), COMPRESSION_ZSTD);
    count_block_codes(path_of("zstd-noise"), codes);
    assert_int_equal(codes[0], 16);
    assert_int_equal(codes[1], 0);
}

/* Snappy, LZ4 and gzip files (both block types) are smaller than uncompressed ones, with
 * most blocks in the codec's code and no other codec's; blocks a codec cannot shrink
 * are stored raw (code 0). */
static void codec_files_are_smaller(void **state)
{
    static const char *const names[] = {"", "", "snappy-row", "lz4-row", "gz-row"};
    uint64_t none = 0, none_plain = 0, size = 0;
    size_t codes[COMPRESSION_LAST + 1];
    assert_int_equal(fio_file_size(path_of("none-row"), &none), ST_OK);
    assert_int_equal(fio_file_size(path_of("v1-none-row"), &none_plain), ST_OK);
    for (int c = COMPRESSION_SNAPPY; c <= COMPRESSION_LAST; c++) {
        char plain[64];
        snprintf(plain, sizeof(plain), "%s-plain", names[c]);
        for (int t = 0; t < 2; t++) {
            const char *path = path_of(t ? plain : names[c]);
            assert_int_equal(fio_file_size(path, &size), ST_OK);
            assert_true(size < (t ? none_plain : none) * 3 / 4);
            count_block_codes(path, codes);
            print_message("%s: %zu blocks of code %d, %zu stored raw\n", path, codes[c], c,
                          codes[0]);
            assert_true(codes[c] > 100);
            for (int other = 1; other <= COMPRESSION_LAST; other++)
                if (other != c)
                    assert_int_equal(codes[other], 0);
        }
        write_noise(path_of("codec-noise"), (compression_type)c);
        count_block_codes(path_of("codec-noise"), codes);
        assert_int_equal(codes[0], 16);
    }
}

/* ---- writer contract ---- */

static void order_violation_rejected(void **state)
{
    const char *path = path_of("order");
    storefile_writer *w = NULL;
    assert_int_equal(storefile_writer_open(path, NULL, &w), ST_OK);
    assert_int_equal(storefile_writer_add(w, &data[10].c), ST_OK);
    assert_int_equal(storefile_writer_add(w, &data[10].c), ST_ORDER); /* equal */
    assert_non_null(strstr(st_errmsg(), path));
    char k[512];
    cell_format(&data[10].c, k, sizeof(k));
    assert_non_null(strstr(st_errmsg(), k));
    assert_int_equal(storefile_writer_add(w, &data[5].c), ST_ORDER); /* smaller */
    cell_format(&data[5].c, k, sizeof(k));
    assert_non_null(strstr(st_errmsg(), k));
    cell_t bad = data[20].c;
    bad.row_len = 0;
    assert_int_equal(storefile_writer_add(w, &bad), ST_INVALID_ARGUMENT);
    /* the writer goes on after a rejected cell */
    assert_int_equal(storefile_writer_add(w, &data[11].c), ST_OK);
    assert_int_equal(storefile_writer_finish(w, 1, false), ST_OK);
    storefile *f = NULL;
    assert_int_equal(storefile_open(path, NULL, &f), ST_OK);
    check_scan(f, true, data + 10, 2);
    assert_false(storefile_get_info(f)->major_compacted);
    storefile_unref(f);
}

static void empty_file(void **state)
{
    const char *path = path_of("empty");
    storefile_options o = {.bloom = BLOOM_ROWCOL, .compression = COMPRESSION_ZSTD};
    write_file(path, &o, NULL, 0, 0, false);
    storefile *f = NULL;
    assert_int_equal(storefile_open(path, NULL, &f), ST_OK);
    const storefile_info *in = storefile_get_info(f);
    assert_int_equal(in->entries, 0);
    assert_int_equal(in->block_count, 0);
    assert_int_equal(in->min_ts, INT64_MAX);
    assert_int_equal(in->max_ts, INT64_MIN);
    assert_false(storefile_may_contain_row(f, data[0].c.row, data[0].c.row_len));
    kv_iter *it = storefile_iter(f, true);
    kv_iter_seek_to_first(it);
    assert_false(kv_iter_valid(it));
    kv_iter_seek(it, &data[0].c);
    assert_false(kv_iter_valid(it));
    kv_iter_seek_for_prev(it, &data[0].c);
    assert_false(kv_iter_valid(it));
    assert_int_equal(kv_iter_status(it), ST_OK);
    kv_iter_destroy(it);
    buf_t row = {0};
    assert_int_equal(storefile_mid_row(f, &row), ST_NOT_FOUND);
    storefile_unref(f);
}

static void writer_abort_removes_tmp(void **state)
{
    const char *path = path_of("aborted");
    storefile_writer *w = NULL;
    assert_int_equal(storefile_writer_open(path, NULL, &w), ST_OK);
    for (size_t i = 0; i < 2000; i++)
        assert_int_equal(storefile_writer_add(w, &data[i].c), ST_OK);
    assert_true(storefile_writer_size(w) > 0);
    storefile_writer_abort(w);
    storefile_writer_abort(NULL);
    char tmp[300];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    assert_false(fio_exists(tmp));
    assert_false(fio_exists(path));
}

/* ---- corruption ---- */

static void expect_no_files_at(const char *path)
{
    char tmp[300];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    assert_false(fio_exists(path));
    assert_false(fio_exists(tmp));
}

static void read_file(const char *path, buf_t *b)
{
    assert_int_equal(fio_read_all(path, b), ST_OK);
}

static void write_raw(const char *path, const buf_t *b)
{
    fio_unlink(path);
    fio_file *f = NULL;
    assert_int_equal(fio_create(path, &f), ST_OK);
    assert_int_equal(fio_append(f, b->data, b->len), ST_OK);
    assert_int_equal(fio_close(f), ST_OK);
}

/* Decodes a compressed payload with the codec's own library (not the reader's code). */
static void decode_independently(int code, const uint8_t *src, size_t n, uint8_t *dst, size_t raw)
{
    size_t got = 0;
    if (code == COMPRESSION_ZSTD) {
        got = ZSTD_decompress(dst, raw, src, n);
    } else if (code == COMPRESSION_SNAPPY) {
        got = raw;
        assert_int_equal(snappy_uncompress((const char *)src, n, (char *)dst, &got), SNAPPY_OK);
    } else if (code == COMPRESSION_LZ4) {
        got = (size_t)LZ4_decompress_safe((const char *)src, (char *)dst, (int)n, (int)raw);
    } else {
        z_stream z = {0};
        assert_int_equal(inflateInit2(&z, 31), Z_OK);
        z.next_in = (Bytef *)(uintptr_t)src;
        z.avail_in = (uInt)n;
        z.next_out = dst;
        z.avail_out = (uInt)raw;
        assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
        got = z.total_out;
        inflateEnd(&z);
    }
    assert_int_equal(got, raw);
}

/* Cell count of the data block at off in file bytes b (decoding it independently). */
static uint32_t block_cells(const buf_t *b, size_t off, size_t *next)
{
    const uint8_t *h = b->data + off;
    uint32_t stored = be32_get(h + 4), raw = be32_get(h + 8);
    *next = off + 16 + stored;
    if (h[1] == 0)
        return be32_get(h + 16 + stored - 4);
    uint8_t *dec = malloc(raw);
    decode_independently(h[1], h + 16, stored, dec, raw);
    uint32_t n = be32_get(dec + raw - 4);
    free(dec);
    return n;
}

/* Reads the flipped file: the scan returns exactly the cells before the bad block,
 * then fails naming the file and the block offset; seeks into the block fail too. */
static void expect_block_corruption(const char *path, size_t n, size_t off, size_t before,
                                    bool payload)
{
    blockcache *bc = blockcache_new(1 << 20, 0);
    storefile *f = NULL;
    assert_int_equal(storefile_open(path, bc, &f), ST_OK); /* blocks are read on demand */
    kv_iter *it = storefile_iter(f, true);
    size_t i = 0;
    for (kv_iter_seek_to_first(it); kv_iter_valid(it); kv_iter_next(it), i++)
        assert_cell_eq(kv_iter_cell(it), &data[i].c); /* never wrong data */
    assert_int_equal(i, before);
    assert_int_equal(kv_iter_status(it), ST_CORRUPTION);
    char expect[64];
    snprintf(expect, sizeof(expect), "data block at offset %zu", off);
    assert_non_null(strstr(st_errmsg(), path));
    assert_non_null(strstr(st_errmsg(), expect));
    if (payload)
        assert_non_null(strstr(st_errmsg(), "checksum mismatch"));
    /* the error is sticky */
    kv_iter_seek_to_first(it);
    assert_false(kv_iter_valid(it));
    assert_int_equal(kv_iter_status(it), ST_CORRUPTION);
    kv_iter_destroy(it);
    it = storefile_iter(f, true);
    kv_iter_seek(it, &data[before].c);
    assert_false(kv_iter_valid(it));
    assert_int_equal(kv_iter_status(it), ST_CORRUPTION);
    kv_iter_destroy(it);
    it = storefile_iter(f, true); /* other blocks still read */
    kv_iter_seek(it, &data[n - 1].c);
    assert_true(kv_iter_valid(it));
    assert_cell_eq(kv_iter_cell(it), &data[n - 1].c);
    kv_iter_destroy(it);
    storefile_unref(f);
    blockcache_free(bc);
}

/* Offset in the stored (uncompressed, type 2) block at off of a byte inside the first
 * cell's value, or 0: entry 0 is shared, unshared, value_len, the key, seq, the value. */
static size_t value_byte(const buf_t *b, size_t off)
{
    const uint8_t *p = b->data + off + 16;
    uint64_t shared = 0, unshared = 0, vlen = 0, seq = 0;
    p += varint_get(p, 5, &shared);
    p += varint_get(p, 5, &unshared);
    p += varint_get(p, 5, &vlen);
    p += unshared;
    p += varint_get(p, 10, &seq);
    return vlen ? (size_t)(p - b->data) + vlen / 2 : 0;
}

static void corrupt_data_block(compression_type comp, const char *name)
{
    const char *good_path = path_of(name);
    char path[300];
    snprintf(path, sizeof(path), "%s-flipped", good_path);
    storefile_options o = {.block_size = BLOCK, .compression = comp, .bloom = BLOOM_ROW};
    size_t n = 20000;
    write_file(good_path, &o, data, n, 1, false);
    buf_t g = {0}, b = {0};
    read_file(good_path, &g);
    /* find the block holding the byte at 40 % of the data, and the cells before it */
    size_t data_end = (size_t)be64_get(g.data + g.len - 64);
    size_t target = data_end * 2 / 5, off = 0, next = 0, before = 0;
    for (;;) {
        uint32_t cnt = block_cells(&g, off, &next);
        if (next > target)
            break;
        before += cnt;
        off = next;
    }
    size_t spots[] = {off,
                      off + 1,
                      off + 5,
                      off + 9,
                      off + 13,
                      off + 16,
                      (off + next) / 2,
                      next - 1,
                      g.data[off + 1] == 0 ? value_byte(&g, off) : 0};
    for (size_t s = 0; s < sizeof(spots) / sizeof(spots[0]); s++) {
        if (!spots[s])
            continue;
        buf_set(&b, g.data, g.len);
        b.data[spots[s]] ^= 0x10;
        write_raw(path, &b);
        for (int mapped = 0; mapped < 2; mapped++) {
            storefile_set_mmap_reads(mapped);
            expect_block_corruption(path, n, off, before, spots[s] >= off + 16);
        }
        storefile_set_mmap_reads(true);
    }
    buf_free(&g);
    buf_free(&b);
}

static void corrupt_data_block_uncompressed(void **state)
{
    corrupt_data_block(COMPRESSION_NONE, "corrupt-block-none");
}

static void corrupt_data_block_zstd(void **state)
{
    corrupt_data_block(COMPRESSION_ZSTD, "corrupt-block-zstd");
}

static void corrupt_data_block_snappy_lz4_gz(void **state)
{
    corrupt_data_block(COMPRESSION_SNAPPY, "corrupt-block-snappy");
    corrupt_data_block(COMPRESSION_LZ4, "corrupt-block-lz4");
    corrupt_data_block(COMPRESSION_GZ, "corrupt-block-gz");
}

/* Re-seals the CRC of the data block at off of file bytes b after an edit. */
static void reseal_block(buf_t *b, size_t off)
{
    uint8_t *h = b->data + off;
    uint32_t stored = be32_get(h + 4);
    be32_put(h + 12, crc32c_extend(crc32c_extend(0, h, 12), h + 16, stored));
}

/* Re-seals the file info section's CRC of file bytes b after an edit. */
static void reseal_info(buf_t *b)
{
    size_t t = b->len - 64, info_off = (size_t)be64_get(b->data + t + 32);
    size_t info_size = (size_t)be64_get(b->data + t + 40);
    be32_put(b->data + info_off + info_size - 4, crc32c_value(b->data + info_off, info_size - 4));
}

static uint8_t *info_byte(buf_t *b, size_t i)
{
    return b->data + (size_t)be64_get(b->data + b->len - 64 + 32) + i;
}

/* Each codec's payload damaged behind a fixed CRC (a writer bug, a crafted file): a raw
 * length one short, and the payload overwritten with 0xff. Reading the block is
 * ST_CORRUPTION naming the file, the block offset and the codec, the cells before it
 * are read, and nothing of it is handed over (mapped or not: a compressed block is
 * never served from the mapping). */
static void corrupt_codec_payload_fixed_crc(void **state)
{
    static const char *const names[] = {"", "zstd", "snappy", "LZ4", "gzip"};
    size_t n = 20000;
    buf_t g = {0}, b = {0};
    for (int c = COMPRESSION_ZSTD; c <= COMPRESSION_LAST; c++) {
        char good_path[300], path[300], reason[80];
        snprintf(good_path, sizeof(good_path), "%s", path_of("codec-payload-good"));
        snprintf(path, sizeof(path), "%s", path_of("codec-payload-bad"));
        snprintf(reason, sizeof(reason), "%s payload does not decode to its raw length",
                 names[c]);
        storefile_options o = {.block_size = BLOCK, .compression = (compression_type)c};
        write_file(good_path, &o, data, n, 1, false);
        read_file(good_path, &g);
        /* the first block of the codec's code past 40 % of the data */
        size_t data_end = (size_t)be64_get(g.data + g.len - 64), off = 0, next = 0, before = 0;
        for (;;) {
            uint32_t cnt = block_cells(&g, off, &next);
            if (off >= data_end * 2 / 5 && g.data[off + 1] == c)
                break;
            before += cnt;
            off = next;
            assert_true(off < data_end);
        }
        for (int damage = 0; damage < 2; damage++) {
            buf_set(&b, g.data, g.len);
            if (damage == 0)
                be32_put(b.data + off + 8, be32_get(b.data + off + 8) - 1);
            else
                memset(b.data + off + 16, 0xff, next - off - 16);
            reseal_block(&b, off);
            write_raw(path, &b);
            for (int mapped = 0; mapped < 2; mapped++) {
                storefile_set_mmap_reads(mapped);
                expect_block_corruption(path, n, off, before, false);
                assert_non_null(strstr(st_errmsg(), reason));
            }
            storefile_set_mmap_reads(true);
        }
    }
    buf_free(&g);
    buf_free(&b);
}

/* Writes the first n cells with the index key of block count/2 moved by ts_delta (and
 * the index CRC fixed, as a writer bug would leave it) to path; sets that block's
 * offset and the number of cells before it. */
static void write_bad_index_key(const char *path, size_t n, int64_t ts_delta, size_t *off,
                                size_t *before)
{
    const char *good_path = path_of("index-key-good");
    storefile_options o = {.block_size = BLOCK};
    write_file(good_path, &o, data, n, 1, false);
    buf_t b = {0};
    read_file(good_path, &b);
    size_t t = b.len - 64, index_off = (size_t)be64_get(b.data + t + 16);
    size_t index_size = (size_t)be64_get(b.data + t + 24);
    uint32_t count = be32_get(b.data + index_off);
    assert_true(count > 10);
    size_t pos = index_off + 4, next = 0;
    *before = 0;
    for (uint32_t i = 0; i < count / 2; i++) {
        uint8_t *e = b.data + pos;
        *before += block_cells(&b, (size_t)be64_get(e), &next);
        pos += 12 + 8 + be32_get(e + 12) + 8;
    }
    uint8_t *e = b.data + pos;
    *off = (size_t)be64_get(e);
    uint8_t *ts = e + 12 + 8 + be32_get(e + 12) - 9;
    be64_put(ts, (uint64_t)((int64_t)be64_get(ts) + ts_delta));
    be32_put(b.data + index_off + index_size - 4,
             crc32c_value(b.data + index_off, index_size - 4));
    write_raw(path, &b);
    buf_free(&b);
}

/* Found by fuzz_storefile: an index whose first key for a block differs from the
 * block's first cell (checksums intact, as a writer bug would leave it) made seeks miss
 * cells without an error: seek_for_prev to the block's first cell answered with the
 * cell before it when the index key sorts after the real one. Now reading the block is
 * corruption naming the file and the block offset, and seek_for_prev reads the block
 * after its answer to check it. */
static void corrupt_index_first_key(void **state)
{
    char path[300];
    snprintf(path, sizeof(path), "%s", path_of("index-key-changed"));
    size_t n = 20000, off = 0, before = 0;
    for (int64_t delta = -1; delta <= 1; delta += 2) { /* ts descends: -1 sorts later */
        write_bad_index_key(path, n, delta, &off, &before);
        expect_block_corruption(path, n, off, before, false);
        storefile *f = NULL;
        assert_int_equal(storefile_open(path, NULL, &f), ST_OK);
        kv_iter *it = storefile_iter(f, false);
        kv_iter_seek_for_prev(it, &data[before].c);
        assert_false(kv_iter_valid(it));
        assert_int_equal(kv_iter_status(it), ST_CORRUPTION);
        assert_non_null(strstr(st_errmsg(), "first cell disagrees with the index"));
        kv_iter_destroy(it);
        it = storefile_iter(f, false); /* an answer inside a good block stands */
        kv_iter_seek_for_prev(it, &data[before / 2].c);
        assert_true(kv_iter_valid(it));
        assert_cell_eq(kv_iter_cell(it), &data[before / 2].c);
        kv_iter_destroy(it);
        storefile_unref(f);
    }
}

/* Flips bits at [from, to) of a good file one at a time (every `step`th byte) and
 * expects storefile_open to fail with ST_CORRUPTION naming the file and the section. */
static void flip_and_expect(const buf_t *good, const char *path, size_t from, size_t to,
                            size_t step, const char *section)
{
    buf_t b = {0};
    for (size_t i = from; i < to; i += step) {
        buf_set(&b, good->data, good->len);
        b.data[i] ^= (uint8_t)(1u << (i % 8));
        write_raw(path, &b);
        storefile *f = NULL;
        int rc = storefile_open(path, NULL, &f);
        if (rc != ST_CORRUPTION)
            fail_msg("flip at %zu (%s): got %d, %s", i, section, rc, st_errmsg());
        assert_null(f);
        assert_non_null(strstr(st_errmsg(), path));
        if (!strstr(st_errmsg(), section))
            fail_msg("flip at %zu: message '%s' does not name '%s'", i, st_errmsg(), section);
    }
    buf_free(&b);
}

static void corrupt_sections(void **state)
{
    const char *good_path = path_of("sections-good");
    const char *path = path_of("sections-bad");
    storefile_options o = {.block_size = BLOCK, .bloom = BLOOM_ROWCOL};
    write_file(good_path, &o, data, 5000, 9, false);
    buf_t g = {0};
    read_file(good_path, &g);
    size_t t = g.len - 64;
    size_t bloom_off = (size_t)be64_get(g.data + t), bloom_size = (size_t)be64_get(g.data + t + 8);
    size_t index_off = (size_t)be64_get(g.data + t + 16);
    size_t index_size = (size_t)be64_get(g.data + t + 24);
    size_t info_off = (size_t)be64_get(g.data + t + 32);
    size_t info_size = (size_t)be64_get(g.data + t + 40);
    assert_int_equal(bloom_off + bloom_size, index_off);
    assert_int_equal(index_off + index_size, info_off);
    assert_int_equal(info_off + info_size, t);
    flip_and_expect(&g, path, t, g.len, 1, "trailer");
    flip_and_expect(&g, path, index_off, index_off + index_size, 7, "index");
    flip_and_expect(&g, path, info_off, info_off + info_size, 5, "file info");
    flip_and_expect(&g, path, bloom_off, bloom_off + 20, 1, "bloom"); /* header */
    flip_and_expect(&g, path, bloom_off + 20, bloom_off + bloom_size, 97, "bloom");
    buf_free(&g);
}

static void corrupt_truncated_file(void **state)
{
    const char *good_path = path_of("trunc-good");
    const char *path = path_of("trunc-bad");
    storefile_options o = {.block_size = BLOCK, .bloom = BLOOM_ROW};
    write_file(good_path, &o, data, 3000, 9, false);
    buf_t g = {0};
    read_file(good_path, &g);
    size_t cuts[] = {g.len - 1, g.len - 63, g.len - 64, g.len - 65, g.len / 2, 100, 63, 1, 0};
    for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
        write_raw(path, &g);
        assert_int_equal(fio_truncate(path, cuts[i]), ST_OK);
        storefile *f = NULL;
        assert_int_equal(storefile_open(path, NULL, &f), ST_CORRUPTION);
        assert_non_null(strstr(st_errmsg(), path));
    }
    buf_free(&g);
}

/* Writes 50 cells with o to path and checks the file's version, file info byte 47 and
 * first block type, in the bytes and as the reader reports them. */
static void expect_version(const char *path, const storefile_options *o, uint32_t version,
                           uint8_t type)
{
    write_file(path, o, data, 50, 1, false);
    buf_t b = {0};
    read_file(path, &b);
    assert_int_equal(be32_get(b.data + b.len - 4), version);
    assert_int_equal(b.data[0], type); /* the first block's type */
    assert_int_equal(*info_byte(&b, 45), o->compression);
    assert_int_equal(*info_byte(&b, 47), version == 3 ? type : 0);
    buf_free(&b);
    storefile *f = NULL;
    assert_int_equal(storefile_open(path, NULL, &f), ST_OK);
    assert_int_equal(storefile_get_info(f)->version, version);
    assert_int_equal(storefile_get_info(f)->block_type, type);
    check_scan(f, true, data, 50);
    storefile_unref(f);
}

/* A writer writes the lowest version that expresses its codec and block type, under its
 * cap; PREFIX blocks under a cap of 1 are written PLAIN. */
static void written_version(void **state)
{
    static const struct {
        compression_type comp;
        storefile_block_type blocks;
        uint32_t max, version;
        uint8_t type;
    } cases[] = {
        {COMPRESSION_NONE, STOREFILE_BLOCKS_DEFAULT, 0, 2, 2},
        {COMPRESSION_NONE, STOREFILE_BLOCKS_PREFIX, 3, 2, 2},
        {COMPRESSION_NONE, STOREFILE_BLOCKS_PLAIN, 0, 1, 1},
        {COMPRESSION_ZSTD, STOREFILE_BLOCKS_PLAIN, 3, 1, 1},
        {COMPRESSION_ZSTD, STOREFILE_BLOCKS_PREFIX, 0, 2, 2},
        {COMPRESSION_NONE, STOREFILE_BLOCKS_PREFIX, 2, 2, 2},
        {COMPRESSION_NONE, STOREFILE_BLOCKS_PREFIX, 1, 1, 1}, /* the downgrade */
        {COMPRESSION_ZSTD, STOREFILE_BLOCKS_DEFAULT, 1, 1, 1},
        {COMPRESSION_ZSTD, STOREFILE_BLOCKS_PLAIN, 2, 1, 1},
        {COMPRESSION_SNAPPY, STOREFILE_BLOCKS_PLAIN, 0, 3, 1},
        {COMPRESSION_SNAPPY, STOREFILE_BLOCKS_PREFIX, 3, 3, 2},
        {COMPRESSION_LZ4, STOREFILE_BLOCKS_PLAIN, 3, 3, 1},
        {COMPRESSION_LZ4, STOREFILE_BLOCKS_DEFAULT, 0, 3, 2},
        {COMPRESSION_GZ, STOREFILE_BLOCKS_PLAIN, 0, 3, 1},
        {COMPRESSION_GZ, STOREFILE_BLOCKS_PREFIX, 0, 3, 2},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char name[32];
        snprintf(name, sizeof(name), "version-case-%zu", i);
        storefile_options o = {.compression = cases[i].comp,
                               .block_type = cases[i].blocks,
                               .max_version = cases[i].max};
        expect_version(path_of(name), &o, cases[i].version, cases[i].type);
    }
    /* the process-wide cap applies when the options give none */
    assert_int_equal(storefile_set_max_version(1), ST_OK);
    expect_version(path_of("version-process-cap"), &(storefile_options){0}, 1, 1);
    assert_int_equal(storefile_set_max_version(3), ST_OK);
    expect_version(path_of("version-process-cap"), &(storefile_options){0}, 2, 2);
    assert_int_equal(storefile_set_max_version(0), ST_INVALID_ARGUMENT);
    assert_int_equal(storefile_set_max_version(4), ST_INVALID_ARGUMENT);
    storefile_options bad = {.max_version = 4};
    storefile_writer *w = NULL;
    assert_int_equal(storefile_writer_open(path_of("version-four"), &bad, &w), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "format version 4"));
    bad = (storefile_options){.block_type = 3};
    assert_int_equal(storefile_writer_open(path_of("type-three"), &bad, &w), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "unknown data block type 3"));
    bad = (storefile_options){.compression = 5};
    assert_int_equal(storefile_writer_open(path_of("codec-five"), &bad, &w), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "unknown compression 5"));
    assert_null(w);
}

/* A codec the cap rules out fails the writer, naming the file, the codec and the setting,
 * and leaves no file; so does the process-wide cap. */
static void codec_above_cap_refused(void **state)
{
    static const char *const names[] = {"", "", "SNAPPY", "LZ4", "GZ"};
    for (int c = COMPRESSION_SNAPPY; c <= COMPRESSION_LAST; c++)
        for (uint32_t cap = 1; cap <= 3; cap++) {
            const char *path = path_of("capped");
            storefile_writer *w = NULL;
            storefile_options o = {.compression = (compression_type)c, .max_version = cap};
            if (cap == 3) {
                expect_version(path, &o, 3, 2);
                fio_unlink(path);
                assert_int_equal(storefile_set_max_version(2), ST_OK);
                o.max_version = 0;
            }
            int rc = storefile_writer_open(path, &o, &w);
            assert_int_equal(storefile_set_max_version(3), ST_OK);
            assert_int_equal(rc, ST_INVALID_ARGUMENT);
            assert_null(w);
            assert_non_null(strstr(st_errmsg(), path));
            assert_non_null(strstr(st_errmsg(), names[c]));
            assert_non_null(strstr(st_errmsg(), "regionserver.storefile.format.version"));
            assert_non_null(strstr(st_errmsg(), "version 3"));
            expect_no_files_at(path);
        }
}

/* A block whose type is not its file's version's is corruption, named as such. */
static void block_type_must_match_version(void **state)
{
    const char *good_path = path_of("type-good");
    const char *path = path_of("type-swapped");
    storefile_options o = {.block_size = BLOCK};
    write_file(good_path, &o, data, 2000, 1, false);
    buf_t g = {0};
    read_file(good_path, &g);
    /* block 0 relabelled type 1, its CRC fixed: only the type check can catch it */
    g.data[0] = 1;
    uint32_t stored = be32_get(g.data + 4);
    be32_put(g.data + 12, crc32c_extend(crc32c_extend(0, g.data, 12), g.data + 16, stored));
    write_raw(path, &g);
    for (int mapped = 1; mapped >= 0; mapped--) {
        storefile_set_mmap_reads(mapped);
        storefile *f = NULL;
        assert_int_equal(storefile_open(path, NULL, &f), ST_OK);
        kv_iter *it = storefile_iter(f, true);
        kv_iter_seek_to_first(it);
        assert_false(kv_iter_valid(it));
        assert_int_equal(kv_iter_status(it), ST_CORRUPTION);
        assert_non_null(strstr(st_errmsg(), "block type does not match the file's version"));
        kv_iter_destroy(it);
        storefile_unref(f);
    }
    storefile_set_mmap_reads(true);
    buf_free(&g);
}

static void unsupported_version(void **state)
{
    const char *good_path = path_of("version-good");
    const char *path = path_of("version-4");
    write_file(good_path, NULL, data, 10, 1, false);
    buf_t g = {0};
    read_file(good_path, &g);
    uint8_t *t = g.data + g.len - 64;
    be32_put(t + 60, 4);
    uint32_t crc = crc32c_extend(crc32c_extend(0, t, 48), t + 52, 12);
    be32_put(t + 48, crc);
    write_raw(path, &g);
    storefile *f = NULL;
    assert_int_equal(storefile_open(path, NULL, &f), ST_UNSUPPORTED);
    assert_non_null(strstr(st_errmsg(), "version 4"));
    buf_free(&g);
}

/* Writes 2000 cells with o to good_path and returns its bytes in g. */
static void good_file(const char *good_path, const storefile_options *o, buf_t *g)
{
    write_file(good_path, o, data, 2000, 1, false);
    read_file(good_path, g);
}

/* Opens path and expects its first block to fail with a message containing reason,
 * mapped and not. */
static void expect_first_block_refused(const char *path, const char *reason)
{
    for (int mapped = 1; mapped >= 0; mapped--) {
        storefile_set_mmap_reads(mapped);
        storefile *f = NULL;
        assert_int_equal(storefile_open(path, NULL, &f), ST_OK);
        kv_iter *it = storefile_iter(f, true);
        kv_iter_seek_to_first(it);
        assert_false(kv_iter_valid(it));
        assert_int_equal(kv_iter_status(it), ST_CORRUPTION);
        assert_non_null(strstr(st_errmsg(), path));
        assert_non_null(strstr(st_errmsg(), "data block at offset 0"));
        if (!strstr(st_errmsg(), reason))
            fail_msg("'%s' does not say '%s'", st_errmsg(), reason);
        kv_iter_destroy(it);
        storefile_unref(f);
    }
    storefile_set_mmap_reads(true);
}

static void expect_open_refused(const char *path, const char *section)
{
    storefile *f = NULL;
    assert_int_equal(storefile_open(path, NULL, &f), ST_CORRUPTION);
    assert_null(f);
    assert_non_null(strstr(st_errmsg(), path));
    assert_non_null(strstr(st_errmsg(), section));
}

/* Version 3: every block's type must be the file info's (byte 47), which must be 1 or 2. */
static void v3_block_type_must_match_info(void **state)
{
    const char *path = path_of("v3-type-bad");
    buf_t g = {0};
    for (int plain = 0; plain < 2; plain++) {
        storefile_options o = {.block_size = BLOCK, .compression = COMPRESSION_LZ4};
        o.block_type = plain ? STOREFILE_BLOCKS_PLAIN : STOREFILE_BLOCKS_PREFIX;
        good_file(path_of("v3-type-good"), &o, &g);
        uint8_t type = plain ? 1 : 2, other = plain ? 2 : 1;
        assert_int_equal(*info_byte(&g, 47), type);
        /* the file info says the other type, its CRC fixed: every block disagrees */
        *info_byte(&g, 47) = other;
        reseal_info(&g);
        write_raw(path, &g);
        expect_first_block_refused(path, "block type does not match the file info's block type");
        /* block 0 relabelled, its CRC fixed */
        *info_byte(&g, 47) = type;
        reseal_info(&g);
        g.data[0] = other;
        reseal_block(&g, 0);
        write_raw(path, &g);
        expect_first_block_refused(path, "block type does not match the file info's block type");
        g.data[0] = type;
        reseal_block(&g, 0);
        /* a block type that is none */
        for (int bad = 0; bad <= 3; bad += 3) {
            *info_byte(&g, 47) = (uint8_t)bad;
            reseal_info(&g);
            write_raw(path, &g);
            expect_open_refused(path, "file info");
            assert_non_null(strstr(st_errmsg(), "unknown data block type"));
        }
    }
    buf_free(&g);
}

/* Codes past GZ (5) are refused in any version; codes 2..4 in versions 1 and 2, in a
 * block header (when the block is read) and in the file info (at open). */
#define NOT_ALLOWED "compression code not allowed in the file's version"
static void compression_codes_the_version_refuses(void **state)
{
    const char *path = path_of("codes-bad");
    buf_t g = {0};
    static const struct {
        storefile_options o;
        uint8_t code;
        const char *reason;
    } cases[] = {
        {{.compression = COMPRESSION_GZ}, 5, "unknown compression code"},
        {{.compression = COMPRESSION_NONE}, 5, "unknown compression code"},
        {{.compression = COMPRESSION_NONE}, 2, NOT_ALLOWED},
        {{.compression = COMPRESSION_ZSTD, .block_type = STOREFILE_BLOCKS_PLAIN}, 2, NOT_ALLOWED},
        {{.compression = COMPRESSION_NONE, .max_version = 1}, 4, NOT_ALLOWED},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        storefile_options o = cases[i].o;
        o.block_size = BLOCK;
        good_file(path_of("codes-good"), &o, &g);
        uint8_t code = g.data[1];
        g.data[1] = cases[i].code; /* block 0's code, its CRC fixed */
        reseal_block(&g, 0);
        write_raw(path, &g);
        expect_first_block_refused(path, cases[i].reason);
        g.data[1] = code;
        reseal_block(&g, 0);
        *info_byte(&g, 45) = cases[i].code; /* the file info's code, its CRC fixed */
        reseal_info(&g);
        write_raw(path, &g);
        expect_open_refused(path, "file info");
    }
    buf_free(&g);
}

/* ---- faults ---- */

static void expect_no_files(const char *path)
{
    char tmp[300];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    assert_false(fio_exists(path));
    assert_false(fio_exists(tmp));
}

static void fault_during_finish(fio_op op, const char *name)
{
    const char *path = path_of(name);
    storefile_writer *w = NULL;
    assert_int_equal(storefile_writer_open(path, NULL, &w), ST_OK);
    for (size_t i = 0; i < 3000; i++)
        assert_int_equal(storefile_writer_add(w, &data[i].c), ST_OK);
    fio_fault_set(&(fio_fault){.op = op, .path_match = name, .count = 1, .error = EIO});
    int rc = storefile_writer_finish(w, 1, false);
    long hits = fio_fault_hits();
    fio_fault_clear();
    assert_int_equal(hits, 1);
    assert_int_equal(rc, ST_IO);
    assert_non_null(strstr(st_errmsg(), name));
    expect_no_files(path);
}

static void fault_fsync_during_finish(void **state)
{
    fault_during_finish(FIO_OP_SYNC, "fault-sync");
}

static void fault_rename_during_finish(void **state)
{
    fault_during_finish(FIO_OP_RENAME, "fault-rename");
}

static void fault_short_write_during_add(void **state)
{
    const char *path = path_of("fault-write");
    storefile_writer *w = NULL;
    storefile_options o = {.block_size = BLOCK};
    assert_int_equal(storefile_writer_open(path, &o, &w), ST_OK);
    fio_fault_set(&(fio_fault){.op = FIO_OP_WRITE,
                               .path_match = "fault-write",
                               .skip = 5,
                               .count = -1,
                               .error = ENOSPC,
                               .short_bytes = 100});
    int rc = ST_OK;
    for (size_t i = 0; i < 3000 && rc == ST_OK; i++)
        rc = storefile_writer_add(w, &data[i].c);
    assert_int_equal(rc, ST_NOSPACE);
    assert_int_equal(storefile_writer_add(w, &data[5000].c), ST_NOSPACE); /* sticky */
    assert_int_equal(storefile_writer_finish(w, 1, false), ST_NOSPACE);
    fio_fault_clear();
    expect_no_files(path);
}

static void fault_create_fails_open(void **state)
{
    const char *path = path_of("fault-create");
    storefile_writer *w = NULL;
    fio_fault_set(&(fio_fault){.op = FIO_OP_CREATE, .path_match = "fault-create", .count = 1});
    assert_int_equal(storefile_writer_open(path, NULL, &w), ST_IO);
    fio_fault_clear();
    assert_null(w);
    expect_no_files(path);
}

/* ---- lifetime ---- */

static void mark_deleted_unlinks_after_last_iterator(void **state)
{
    const char *path = path_of("deleted");
    storefile_options o = {.block_size = BLOCK};
    write_file(path, &o, data, 5000, 1, false);
    blockcache *bc = blockcache_new(1 << 20, 0);
    storefile *f = NULL;
    storefile_set_mmap_reads(false); /* blocks through the cache, dropped with the file */
    assert_int_equal(storefile_open(path, bc, &f), ST_OK);
    storefile_set_mmap_reads(true);
    kv_iter *a = storefile_iter(f, true), *b = storefile_iter(f, true);
    storefile_mark_deleted(f);
    storefile_unref(f); /* the iterators keep it open */
    assert_true(fio_exists(path));
    kv_iter_seek_to_first(a);
    size_t i = 0;
    for (; kv_iter_valid(a); kv_iter_next(a))
        assert_cell_eq(kv_iter_cell(a), &data[i++].c);
    assert_int_equal(i, 5000);
    kv_iter_destroy(a);
    assert_true(fio_exists(path));
    kv_iter_seek(b, &data[100].c);
    assert_cell_eq(kv_iter_cell(b), &data[100].c);
    blockcache_stats st;
    blockcache_get_stats(bc, &st);
    assert_true(st.entries > 0);
    kv_iter_destroy(b);
    assert_false(fio_exists(path));
    blockcache_get_stats(bc, &st);
    assert_int_equal(st.entries, 0);
    assert_int_equal(st.usage, 0);
    blockcache_free(bc);
}

/* A mapped file cut short behind the reader's back: the read that touches the missing
 * pages gets SIGBUS, and the handler names the file and the offset before the process
 * ends with that signal (in a child here). */
static void truncated_mapped_file_names_itself_on_sigbus(void **state)
{
    const char *path = path_of("truncated-under-map");
    storefile_options o = {.block_size = BLOCK};
    write_file(path, &o, data, 5000, 1, false);
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(pipefd[0]);
        dup2(pipefd[1], 2);
        signal(SIGBUS, SIG_DFL); /* cmocka's (or a sanitizer's) handler out of the way */
        storefile_handle_sigbus();
        storefile *f = NULL;
        if (storefile_open(path, NULL, &f) != ST_OK)
            _exit(3);
        if (truncate(path, 100) != 0)
            _exit(4);
        kv_iter *it = storefile_iter(f, false);
        kv_iter_seek(it, &data[4000].c); /* touches a page that is gone */
        _exit(kv_iter_valid(it) ? 5 : 6);
    }
    close(pipefd[1]);
    char out[1024];
    size_t n = 0;
    ssize_t r;
    while (n < sizeof(out) - 1 && (r = read(pipefd[0], out + n, sizeof(out) - 1 - n)) > 0)
        n += (size_t)r;
    out[n] = 0;
    close(pipefd[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFSIGNALED(status))
        print_error("child exited %d: %s\n", WEXITSTATUS(status), out);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGBUS);
    assert_non_null(strstr(out, path));
    assert_non_null(strstr(out, "I/O error or truncation under a mapped read"));
}

static void unref_without_delete_keeps_file(void **state)
{
    const char *path = path_of("kept");
    write_file(path, NULL, data, 100, 1, false);
    storefile *f = NULL;
    assert_int_equal(storefile_open(path, NULL, &f), ST_OK);
    storefile_ref(f);
    storefile_unref(f);
    storefile_unref(f);
    assert_true(fio_exists(path));
}

/* One cell per row and block_size 1: block i holds cell i, so the mid row is row
 * (n-1)/2. */
static void mid_row(void **state)
{
    for (size_t n = 1; n <= 8; n++) {
        tcell cells[8];
        char rows[8][8];
        for (size_t i = 0; i < n; i++) {
            snprintf(rows[i], sizeof(rows[i]), "m%zu", i);
            cells[i].c = (cell_t){.row = (uint8_t *)rows[i],
                                  .row_len = 2,
                                  .family = (uint8_t *)"f",
                                  .family_len = 1,
                                  .ts = 1,
                                  .type = CELL_TYPE_PUT,
                                  .seq = 1};
        }
        const char *path = path_of("mid");
        fio_unlink(path);
        storefile_options o = {.block_size = 1};
        write_file(path, &o, cells, n, 1, false);
        storefile *f = NULL;
        assert_int_equal(storefile_open(path, NULL, &f), ST_OK);
        assert_int_equal(storefile_get_info(f)->block_count, n);
        buf_t row = {0};
        assert_int_equal(storefile_mid_row(f, &row), ST_OK);
        assert_int_equal(row.len, 2);
        assert_memory_equal(row.data, rows[(n - 1) / 2], 2);
        buf_free(&row);
        storefile_unref(f);
    }
}

/* ---- concurrency ---- */

typedef struct reader_arg {
    storefile *f;
    uint64_t seed;
    size_t n;
    int bad;
} reader_arg;

static void *reader_run(void *p)
{
    reader_arg *a = p;
    kv_iter *it = storefile_iter(a->f, true);
    size_t i = 0;
    for (kv_iter_seek_to_first(it); kv_iter_valid(it); kv_iter_next(it), i++)
        if (cell_compare(kv_iter_cell(it), &data[i].c) != 0)
            a->bad++;
    if (i != a->n || kv_iter_status(it) != ST_OK)
        a->bad++;
    uint64_t x = a->seed;
    for (int k = 0; k < 2000; k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t j = x % a->n;
        kv_iter_seek(it, &data[j].c);
        if (!kv_iter_valid(it) || cell_compare(kv_iter_cell(it), &data[j].c) != 0)
            a->bad++;
        const cell_t *c = kv_iter_cell(it);
        if (c->value_len != data[j].c.value_len ||
            (c->value_len && memcmp(c->value, data[j].c.value, c->value_len)))
            a->bad++;
    }
    kv_iter_destroy(it);
    return NULL;
}

static void concurrent_readers_share_cache(void **state)
{
    const char *path = path_of("concurrent");
    storefile_options o = {.block_size = BLOCK, .compression = COMPRESSION_ZSTD};
    size_t n = 30000;
    write_file(path, &o, data, n, 1, false);
    blockcache *bc = blockcache_new(64 * 1024, 4); /* small: evictions under pins */
    storefile *f = NULL;
    assert_int_equal(storefile_open(path, bc, &f), ST_OK);
    pthread_t t[4];
    reader_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (reader_arg){.f = f, .seed = (uint64_t)i * 7919 + 1, .n = n};
        assert_int_equal(pthread_create(&t[i], NULL, reader_run, &args[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(args[i].bad, 0);
    }
    blockcache_stats st;
    blockcache_get_stats(bc, &st);
    assert_true(st.evictions > 0 && st.hits > 0);
    storefile_unref(f);
    blockcache_free(bc);
}

/* ---- the worked example of docs/formats/storefile.md ---- */

/* The 335 bytes of the example, checksums included. */
static const char *const example_hex =
    "010000000000002a0000002a278540a100000011000000010002723102636671"
    "00000000000003e8047600000000000000070000000000000001010107000000"
    "00000000000100000000000000408000200009400012e979d9f4000000010000"
    "0000000000000000003a00000011000000000002723102636671000000000000"
    "03e8040000000000000007eb817bf6000000000000000700000000000003e800"
    "000000000003e800000000000000010000000000000000000000010100000000"
    "0000220000001100000001000272310263667100000000000003e80476000000"
    "0000000007000000220000001100000001000272310263667100000000000003"
    "e8047600000000000000079c01b9d7000000000000003a000000000000002000"
    "0000000000005a0000000000000035000000000000008f00000000000000803d"
    "193708535452415441534600000001";

static void format_worked_example(void **state)
{
    const char *path = path_of("example");
    tcell one = {.c = {.row = (uint8_t *)"r1",
                       .row_len = 2,
                       .family = (uint8_t *)"cf",
                       .family_len = 2,
                       .qualifier = (uint8_t *)"q",
                       .qualifier_len = 1,
                       .value = (uint8_t *)"v",
                       .value_len = 1,
                       .ts = 1000,
                       .type = CELL_TYPE_PUT,
                       .seq = 7}};
    /* the page's example is version 1: PLAIN blocks, no codec */
    storefile_options o = {.bloom = BLOOM_ROW, .block_type = STOREFILE_BLOCKS_PLAIN};
    write_file(path, &o, &one, 1, 7, false);
    buf_t b = {0};
    read_file(path, &b);
    size_t n = strlen(example_hex) / 2;
    assert_int_equal(b.len, n);
    for (size_t i = 0; i < n; i++) {
        unsigned x;
        sscanf(example_hex + 2 * i, "%2x", &x);
        if (b.data[i] != x)
            fail_msg("byte %zu: 0x%02x, the format page says 0x%02x", i, b.data[i], x);
    }
    buf_free(&b);
    storefile *f = NULL;
    assert_int_equal(storefile_open(path, NULL, &f), ST_OK);
    check_scan(f, true, &one, 1);
    assert_true(storefile_may_contain_row(f, (const uint8_t *)"r1", 2));
    assert_int_equal(storefile_get_info(f)->max_seq, 7);
    storefile_unref(f);
}

/* ---- setup ---- */

static int group_setup(void **state)
{
    snprintf(dir, sizeof(dir), "/tmp/strata-sf-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    gen_data();
    return 0;
}

static int group_teardown(void **state)
{
    for (size_t i = 0; i < ndata; i++)
        free(data[i].mem);
    free(data);
    return fio_remove_tree(dir) == ST_OK ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(roundtrip_none_nobloom),
        cmocka_unit_test(roundtrip_none_row),
        cmocka_unit_test(roundtrip_none_rowcol),
        cmocka_unit_test(roundtrip_zstd_nobloom),
        cmocka_unit_test(roundtrip_zstd_row),
        cmocka_unit_test(roundtrip_zstd_rowcol),
        cmocka_unit_test(zstd_file_is_smaller),
        cmocka_unit_test(roundtrip_v1_none_row),
        cmocka_unit_test(roundtrip_v1_zstd_rowcol),
        cmocka_unit_test(roundtrip_snappy_both_types),
        cmocka_unit_test(roundtrip_lz4_both_types),
        cmocka_unit_test(roundtrip_gz_both_types),
        cmocka_unit_test(codec_files_are_smaller),
        cmocka_unit_test(written_version),
        cmocka_unit_test(codec_above_cap_refused),
        cmocka_unit_test(block_type_must_match_version),
        cmocka_unit_test(v3_block_type_must_match_info),
        cmocka_unit_test(compression_codes_the_version_refuses),
        cmocka_unit_test(order_violation_rejected),
        cmocka_unit_test(empty_file),
        cmocka_unit_test(writer_abort_removes_tmp),
        cmocka_unit_test(corrupt_data_block_uncompressed),
        cmocka_unit_test(corrupt_data_block_zstd),
        cmocka_unit_test(corrupt_data_block_snappy_lz4_gz),
        cmocka_unit_test(corrupt_codec_payload_fixed_crc),
        cmocka_unit_test(corrupt_index_first_key),
        cmocka_unit_test(corrupt_sections),
        cmocka_unit_test(corrupt_truncated_file),
        cmocka_unit_test(unsupported_version),
        cmocka_unit_test(fault_fsync_during_finish),
        cmocka_unit_test(fault_rename_during_finish),
        cmocka_unit_test(fault_short_write_during_add),
        cmocka_unit_test(fault_create_fails_open),
        cmocka_unit_test(mark_deleted_unlinks_after_last_iterator),
        cmocka_unit_test(truncated_mapped_file_names_itself_on_sigbus),
        cmocka_unit_test(unref_without_delete_keeps_file),
        cmocka_unit_test(mid_row),
        cmocka_unit_test(concurrent_readers_share_cache),
        cmocka_unit_test(format_worked_example),
    };
    return tu_run_group_tests(tests, group_setup, group_teardown);
}
