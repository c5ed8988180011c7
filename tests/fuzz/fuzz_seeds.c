/*
 * fuzz_seeds.c - writes the seed corpora of tests/fuzz/corpus/<target>/ with the real
 * writers (wal_append and wal_roll, wal_record_encode, storefile_writer, reference_encode,
 * block_builder and block_frame_encode, bloom_build, rpc_header_encode_*) plus a few near-valid
 * variants of each (torn, truncated, a flipped bit, an unknown version, a bad name), so
 * every fuzz target starts from inputs that reach deep into its code.
 *   usage: fuzz_seeds CORPUS_DIR   (e.g. tests/fuzz/corpus; existing seeds of the same
 *                                   name are replaced, others are left alone)
 * The seeds are committed; run this again only when a format changes. Every seed is a
 * few KB at most. Thread-safety: single-threaded.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "common/buf.h"
#include "common/bytes.h"
#include "common/crc32c.h"
#include "common/fileio.h"
#include "common/status.h"
#include "regionserver/storage/block.h"
#include "regionserver/storage/bloom.h"
#include "regionserver/storage/reference.h"
#include "regionserver/storage/storefile.h"
#include "regionserver/storage/wal.h"
#include "regionserver/storage/wal_internal.h"
#include "common/rpc/rpc_frame.h"
#include "common/rpc/rpc_header.h"

static const char *corpus;
static char *scratch;

static void die(const char *what)
{
    fprintf(stderr, "fuzz_seeds: %s: %s\n", what, st_errmsg());
    exit(1);
}

static void check(int rc, const char *what)
{
    if (rc != ST_OK)
        die(what);
}

static char *join(const char *a, const char *b)
{
    char *s = NULL;
    if (asprintf(&s, "%s/%s", a, b) < 0)
        die("out of memory");
    return s;
}

/* Writes corpus/<target>/<name>. */
static void seed(const char *target, const char *name, const void *data, size_t n)
{
    char *dir = join(corpus, target), *path = join(dir, name);
    check(fio_mkdirs(dir), dir);
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(data, 1, n, f) != n) || fclose(f) != 0)
        die(path);
    printf("%s (%zu bytes)\n", path, n);
    free(path);
    free(dir);
}

static void seed_buf(const char *target, const char *name, const buf_t *b)
{
    seed(target, name, b->data, b->len);
}

static void read_file(const char *path, buf_t *out)
{
    out->len = 0;
    check(fio_read_all(path, out), path);
}

static cell_t mk(const char *row, const char *fam, const char *qual, const char *val, int64_t ts,
                 uint8_t type)
{
    return (cell_t){.row = (const uint8_t *)row,
                    .row_len = (uint32_t)strlen(row),
                    .family = (const uint8_t *)fam,
                    .family_len = (uint32_t)strlen(fam),
                    .qualifier = (const uint8_t *)qual,
                    .qualifier_len = (uint32_t)strlen(qual),
                    .value = (const uint8_t *)val,
                    .value_len = (uint32_t)strlen(val),
                    .ts = ts,
                    .type = type};
}

/* ---------------------------------------------------------------- WAL */

/* The cells of edit i (1..4 cells, some deletes). */
static size_t edit_cells(int i, cell_t *c)
{
    static char rows[4][16];
    size_t n = 1 + (size_t)i % 4;
    for (size_t k = 0; k < n; k++) {
        snprintf(rows[k], sizeof(rows[k]), "row%02d", i * 3 + (int)k);
        uint8_t type = k == 2   ? CELL_TYPE_DELETE_COLUMN
                       : k == 3 ? CELL_TYPE_DELETE_FAMILY
                                : CELL_TYPE_PUT;
        c[k] = mk(rows[k], k % 2 ? "cf2" : "cf", k == 3 ? "" : "q", k % 2 ? "" : "value", 1000 + i,
                  type);
    }
    return n;
}

/* Writes a log into a fresh dir with `rolls` rolls spread over n edits; returns the dir. */
static char *write_log(const char *name, int n, int rolls)
{
    char *dir = join(scratch, name);
    wal *w = NULL;
    check(wal_open(&(wal_options){.dir = dir}, &w), "wal_open");
    static const char *const tables[] = {"t1", "ns:t2"};
    static const char *const regions[] = {"reg1", "a0b1c2", "reg3"};
    for (int i = 0; i < n; i++) {
        cell_t c[4];
        size_t nc = edit_cells(i, c);
        wal_edit e = {tables[i % 2], regions[i % 3], (uint64_t)(10 + i), c, nc};
        check(wal_append(w, &e, DURABILITY_SYNC_WAL), "wal_append");
        if (rolls && (i + 1) % (n / (rolls + 1) + 1) == 0 && i + 1 < n) {
            check(wal_roll(w), "wal_roll");
            rolls--;
        }
    }
    check(wal_close(w), "wal_close");
    return dir;
}

static void wal_seeds(void)
{
    buf_t b = {0};
    char *dir = write_log("one", 0, 0), *p = join(dir, "wal.00000000000000000001");
    read_file(p, &b);
    seed_buf("wal", "header-only", &b);
    free(p);
    free(dir);

    /* The worked example of docs/formats/wal.md. */
    dir = join(scratch, "example");
    wal *w = NULL;
    check(wal_open(&(wal_options){.dir = dir}, &w), "wal_open");
    cell_t c = mk("r1", "cf", "q", "v", 1000, CELL_TYPE_PUT);
    check(wal_append(w, &(wal_edit){"t1", "reg1", 7, &c, 1}, DURABILITY_SYNC_WAL), "append");
    check(wal_close(w), "wal_close");
    p = join(dir, "wal.00000000000000000001");
    read_file(p, &b);
    seed_buf("wal", "doc-example", &b);
    free(p);
    free(dir);

    dir = write_log("five", 5, 0);
    p = join(dir, "wal.00000000000000000001");
    read_file(p, &b);
    seed_buf("wal", "five-edits", &b);
    size_t full = b.len;
    b.len = full - 7;
    seed_buf("wal", "torn-tail", &b);
    b.len = full;
    check(buf_append(&b, (uint8_t[64]){0}, 64), "append");
    seed_buf("wal", "zero-filled-tail", &b);
    b.len = full;
    b.data[WAL_FILE_HEADER_LEN + WAL_RECORD_HEADER_LEN + 3] ^= 0x10;
    seed_buf("wal", "corrupt-first-payload", &b);
    b.data[WAL_FILE_HEADER_LEN + WAL_RECORD_HEADER_LEN + 3] ^= 0x10;
    b.data[WAL_FILE_HEADER_LEN + 1] ^= 0x01;
    seed_buf("wal", "corrupt-record-length", &b);
    b.data[WAL_FILE_HEADER_LEN + 1] ^= 0x01;
    be32_put(b.data + 4, 2);
    be32_put(b.data + 32, crc32c_value(b.data, 32));
    seed_buf("wal", "version-2", &b);
    b.len = 20;
    seed_buf("wal", "header-cut-short", &b);
    free(p);
    free(dir);

    /* A recovered-edits file: number 0, records of one region. */
    uint8_t hdr[WAL_FILE_HEADER_LEN];
    wal_header_encode(&(wal_file_header){0, 0, 0}, hdr);
    b.len = 0;
    check(buf_append(&b, hdr, sizeof(hdr)), "append");
    for (int i = 0; i < 3; i++) {
        cell_t cs[4];
        size_t nc = edit_cells(i, cs);
        check(wal_record_encode(&(wal_edit){"default:t", "r9", (uint64_t)(100 + i), cs, nc}, &b),
              "encode");
    }
    seed_buf("wal", "recovered-edits", &b);
    buf_free(&b);
}

/* Concatenates dir's log files (in order) into out. */
static void concat_logs(const char *dir, buf_t *out)
{
    char **paths = NULL;
    size_t n = 0;
    buf_t one = {0};
    out->len = 0;
    check(wal_list_files(dir, &paths, &n), "list");
    for (size_t i = 0; i < n; i++) {
        read_file(paths[i], &one);
        check(buf_append(out, one.data, one.len), "append");
    }
    fio_free_list(paths, n);
    buf_free(&one);
}

static void split_seeds(void)
{
    buf_t b = {0};
    char *dir = write_log("chain", 9, 2);
    concat_logs(dir, &b);
    seed_buf("wal_split", "rolled-chain-3-files", &b);
    free(dir);
    dir = write_log("single", 4, 0);
    concat_logs(dir, &b);
    seed_buf("wal_split", "one-file", &b);
    free(dir);

    /* An abandoned wal.1 (a second record after the end wal.2 records), then wal.2. */
    uint8_t hdr[WAL_FILE_HEADER_LEN];
    buf_t recs = {0};
    cell_t cs[4];
    size_t nc = edit_cells(1, cs);
    check(wal_record_encode(&(wal_edit){"t1", "reg1", 5, cs, nc}, &recs), "encode");
    size_t first = recs.len;
    check(wal_record_encode(&(wal_edit){"t1", "reg1", 6, cs, nc}, &recs), "encode");
    b.len = 0;
    wal_header_encode(&(wal_file_header){1, 0, 0}, hdr);
    check(buf_append(&b, hdr, sizeof(hdr)) || buf_append(&b, recs.data, recs.len), "append");
    wal_header_encode(&(wal_file_header){2, 1, WAL_FILE_HEADER_LEN + first}, hdr);
    check(buf_append(&b, hdr, sizeof(hdr)), "append");
    recs.len = 0;
    check(wal_record_encode(&(wal_edit){"t1", "reg2", 7, cs, nc}, &recs), "encode");
    check(buf_append(&b, recs.data, recs.len), "append");
    seed_buf("wal_split", "abandoned-predecessor", &b);

    /* A region name that is not a safe directory name. */
    b.len = 0;
    wal_header_encode(&(wal_file_header){1, 0, 0}, hdr);
    recs.len = 0;
    check(wal_record_encode(&(wal_edit){"t1", "../up", 8, cs, nc}, &recs), "encode");
    check(buf_append(&b, hdr, sizeof(hdr)) || buf_append(&b, recs.data, recs.len), "append");
    seed_buf("wal_split", "unsafe-region-name", &b);
    buf_free(&recs);
    buf_free(&b);
}

/* ---------------------------------------------------------------- store files */

/* Sets a store file trailer's version and re-seals its CRC. */
static void set_version(uint8_t *t, uint32_t version)
{
    be32_put(t + 60, version);
    uint32_t crc = crc32c_extend(0, t, 48);
    be32_put(t + 48, crc32c_extend(crc, t + 52, 12));
}

/* Re-seals the CRC of the data block whose header is at h. */
static void reseal_block(uint8_t *h)
{
    uint32_t stored = be32_get(h + 4);
    be32_put(h + 12, crc32c_extend(crc32c_extend(0, h, 12), h + BLOCK_HEADER_LEN, stored));
}

/* Re-seals the file info section's CRC of the store file in b. */
static void reseal_info(buf_t *b)
{
    const uint8_t *t = b->data + b->len - 64;
    uint8_t *info = b->data + be64_get(t + 32);
    size_t body = (size_t)be64_get(t + 40) - 4;
    be32_put(info + body, crc32c_value(info, body));
}

static void write_storefile(const char *name, const storefile_options *o, int ncells)
{
    char *path = join(scratch, name);
    storefile_writer *w = NULL;
    check(storefile_writer_open(path, o, &w), "storefile_writer_open");
    char rows[64][16], vals[64][24];
    for (int i = 0; i < ncells && i < 64; i++) {
        snprintf(rows[i], sizeof(rows[i]), "row%03d", i / 2);
        snprintf(vals[i], sizeof(vals[i]), "v%d-%s", i, i % 3 ? "abcabcabc" : "");
        cell_t c = mk(rows[i], i % 4 < 2 ? "cf" : "cf2", i % 2 ? "b" : "a", vals[i], 5000 - i,
                      i % 7 == 6 ? CELL_TYPE_DELETE : CELL_TYPE_PUT);
        c.seq = (uint64_t)(i + 1);
        check(storefile_writer_add(w, &c), "storefile_writer_add");
    }
    check(storefile_writer_finish(w, (uint64_t)ncells, ncells % 2), "storefile_writer_finish");
    buf_t b = {0};
    read_file(path, &b);
    seed_buf("storefile", name, &b);
    buf_free(&b);
    free(path);
}

static void storefile_seeds(void)
{
    /* The worked example of docs/formats/storefile.md. */
    char *path = join(scratch, "doc-example");
    storefile_writer *w = NULL;
    /* the page's example is version 1: PLAIN blocks, no codec */
    storefile_options o = {.bloom = BLOOM_ROW, .block_type = STOREFILE_BLOCKS_PLAIN};
    check(storefile_writer_open(path, &o, &w), "storefile_writer_open");
    cell_t c = mk("r1", "cf", "q", "v", 1000, CELL_TYPE_PUT);
    c.seq = 7;
    check(storefile_writer_add(w, &c), "add");
    check(storefile_writer_finish(w, 7, false), "finish");
    buf_t b = {0};
    read_file(path, &b);
    seed_buf("storefile", "doc-example", &b);
    free(path);

    write_storefile("empty", &(storefile_options){0}, 0);
    write_storefile("blocks-none-nobloom", &(storefile_options){.block_size = 128}, 24);
    write_storefile("blocks-zstd-rowcol",
                    &(storefile_options){
                        .block_size = 256, .compression = COMPRESSION_ZSTD, .bloom = BLOOM_ROWCOL},
                    40);
    write_storefile("blocks-none-row", &(storefile_options){.block_size = 200, .bloom = BLOOM_ROW},
                    16);
    /* version-1 files (whole cells per block) are still read */
    write_storefile("v1-blocks-none-row",
                    &(storefile_options){.block_size = 200, .bloom = BLOOM_ROW, .max_version = 1},
                    16);
    write_storefile("v1-blocks-zstd-rowcol",
                    &(storefile_options){.block_size = 256,
                                         .compression = COMPRESSION_ZSTD,
                                         .bloom = BLOOM_ROWCOL,
                                         .max_version = 1},
                    40);
    /* version 3: Snappy, LZ4 and gzip blocks of either type */
    write_storefile("v3-blocks-snappy-row",
                    &(storefile_options){
                        .block_size = 200, .compression = COMPRESSION_SNAPPY, .bloom = BLOOM_ROW},
                    24);
    write_storefile("v3-blocks-lz4-plain-rowcol",
                    &(storefile_options){.block_size = 256,
                                         .compression = COMPRESSION_LZ4,
                                         .bloom = BLOOM_ROWCOL,
                                         .block_type = STOREFILE_BLOCKS_PLAIN},
                    40);
    write_storefile("v3-blocks-gz-row",
                    &(storefile_options){
                        .block_size = 256, .compression = COMPRESSION_GZ, .bloom = BLOOM_ROW},
                    24);
    write_storefile("v3-blocks-gz-plain",
                    &(storefile_options){.block_size = 200,
                                         .compression = COMPRESSION_GZ,
                                         .block_type = STOREFILE_BLOCKS_PLAIN},
                    16);

    /* Near-valid variants of blocks-none-row. */
    path = join(scratch, "blocks-none-row");
    read_file(path, &b);
    free(path);
    size_t full = b.len;
    b.data[20] ^= 0x04; /* a byte of the first block's payload */
    seed_buf("storefile", "corrupt-first-block", &b);
    b.data[20] ^= 0x04;
    b.len = full - 1;
    seed_buf("storefile", "truncated-trailer", &b);
    b.len = full;
    uint8_t *t = b.data + full - 64;
    set_version(t, 4);
    seed_buf("storefile", "version-4", &b);
    set_version(t, 3); /* a version-2 file relabelled 3: its file info's block type is 0 */
    seed_buf("storefile", "version-3", &b);
    set_version(t, 1); /* type-2 blocks in a file that says version 1 */
    seed_buf("storefile", "version-1-with-type-2-blocks", &b);
    set_version(t, 2);
    uint8_t code = b.data[1];
    b.data[1] = COMPRESSION_SNAPPY; /* a code of version 3 in a version-2 block */
    reseal_block(b.data);
    seed_buf("storefile", "v2-block-code-2", &b);
    b.data[1] = code;
    reseal_block(b.data);
    buf_free(&b);

    /* Near-valid variants of version-3 files. */
    path = join(scratch, "v3-blocks-lz4-plain-rowcol");
    read_file(path, &b);
    free(path);
    uint8_t *info = b.data + be64_get(b.data + b.len - 64 + 32);
    info[47] = 2; /* the file info says type 2; the blocks are type 1 */
    reseal_info(&b);
    seed_buf("storefile", "v3-info-type-disagrees", &b);
    info[47] = 1;
    reseal_info(&b);
    b.data[1] = COMPRESSION_LAST + 1; /* an unknown code */
    reseal_block(b.data);
    seed_buf("storefile", "v3-block-code-5", &b);
    buf_free(&b);
}

/* ---------------------------------------------------------------- references */

static void reference_seed(const char *name, reference_range range, const char *row, size_t len)
{
    buf_t b = {0};
    check(reference_encode(range, (const uint8_t *)row, len, &b), "reference_encode");
    seed_buf("reference", name, &b);
    buf_free(&b);
}

static void reference_seeds(void)
{
    /* Split rows around the fuzz target's rows r00..r39 (tests/fuzz/fuzz_reference.c). */
    reference_seed("bottom-r20", REFERENCE_BOTTOM, "r20", 3);
    reference_seed("top-r20", REFERENCE_TOP, "r20", 3);
    reference_seed("top-whole-file", REFERENCE_TOP, "", 0);
    reference_seed("bottom-between-rows", REFERENCE_BOTTOM, "r105", 4);
    reference_seed("top-after-last", REFERENCE_TOP, "zz", 2);
    reference_seed("bottom-binary", REFERENCE_BOTTOM, "r\x00\xff", 3);
    /* The worked example of docs/formats/reference.md and near-valid variants. */
    buf_t b = {0};
    check(reference_encode(REFERENCE_TOP, (const uint8_t *)"row050", 6, &b), "reference_encode");
    seed_buf("reference", "doc-example", &b);
    b.data[21] ^= 0x02;
    seed_buf("reference", "flipped-bit", &b);
    b.data[21] ^= 0x02;
    b.len -= 3;
    seed_buf("reference", "torn", &b);
    b.len += 3;
    be32_put(b.data + 8, 2);
    be32_put(b.data + b.len - 4, crc32c_value(b.data, b.len - 4));
    seed_buf("reference", "version-2", &b);
    be32_put(b.data + 8, 1);
    b.data[12] = 3;
    be32_put(b.data + b.len - 4, crc32c_value(b.data, b.len - 4));
    seed_buf("reference", "range-3", &b);
    buf_free(&b);
}

/* ---------------------------------------------------------------- blocks and blooms */

static void block_seeds(void)
{
    block_builder bb;
    block_builder_init_type(&bb, BLOCK_TYPE_DATA);
    char rows[12][8];
    for (int i = 0; i < 12; i++) {
        snprintf(rows[i], sizeof(rows[i]), "r%02d", i / 3);
        cell_t c =
            mk(rows[i], "f", i % 3 ? "b" : "a", "valuevaluevalue", 100 - i % 3, CELL_TYPE_PUT);
        c.seq = (uint64_t)i;
        check(block_builder_add(&bb, &c), "add");
    }
    buf_t raw = {0}, frame = {0};
    check(block_builder_finish(&bb, &raw), "finish");
    block_builder_free(&bb);
    seed_buf("block", "decoded-block", &raw);
    buf_t v1 = {0};
    check(buf_set(&v1, raw.data, raw.len), "copy");
    check(block_frame_encode(raw.data, raw.len, BLOCK_TYPE_DATA, BLOCK_COMPRESSION_NONE, NULL, 0, &frame), "frame");
    seed_buf("block", "frame-none", &frame);
    ZSTD_CCtx *cctx = ZSTD_createCCtx();
    frame.len = 0;
    check(block_frame_encode(raw.data, raw.len, BLOCK_TYPE_DATA, BLOCK_COMPRESSION_ZSTD, cctx, 3, &frame), "frame");
    seed_buf("block", "frame-zstd", &frame);
    frame.data[9] ^= 0x01; /* raw length */
    seed_buf("block", "frame-bad-raw-length", &frame);
    /* the same cells as a type-2 block (prefix-compressed keys), raw and framed */
    block_builder_init_type(&bb, BLOCK_TYPE_DATA_V2);
    for (int i = 0; i < 12; i++) {
        cell_t c =
            mk(rows[i], "f", i % 3 ? "b" : "a", "valuevaluevalue", 100 - i % 3, CELL_TYPE_PUT);
        c.seq = (uint64_t)i;
        check(block_builder_add(&bb, &c), "add");
    }
    check(block_builder_finish(&bb, &raw), "finish");
    block_builder_free(&bb);
    seed_buf("block", "decoded-block-v2", &raw);
    frame.len = 0;
    check(block_frame_encode(raw.data, raw.len, BLOCK_TYPE_DATA_V2, BLOCK_COMPRESSION_NONE, NULL,
                             0, &frame),
          "frame");
    seed_buf("block", "frame-v2-none", &frame);
    frame.len = 0;
    check(block_frame_encode(raw.data, raw.len, BLOCK_TYPE_DATA_V2, BLOCK_COMPRESSION_ZSTD, cctx, 3,
                             &frame),
          "frame");
    seed_buf("block", "frame-v2-zstd", &frame);
    ZSTD_freeCCtx(cctx);
    /* version 3's codecs, over the type-2 block and the type-1 one */
    static const char *const codec_names[] = {"", "", "snappy", "lz4", "gz"};
    for (int c = BLOCK_COMPRESSION_SNAPPY; c <= BLOCK_COMPRESSION_LAST; c++) {
        char name[32];
        frame.len = 0;
        check(block_frame_encode(raw.data, raw.len, BLOCK_TYPE_DATA_V2, c, NULL, 0, &frame),
              "frame");
        if (frame.data[1] != c)
            die("a codec did not shrink the seed block");
        snprintf(name, sizeof(name), "frame-v2-%s", codec_names[c]);
        seed_buf("block", name, &frame);
        frame.len = 0;
        check(block_frame_encode(v1.data, v1.len, BLOCK_TYPE_DATA, c, NULL, 0, &frame), "frame");
        snprintf(name, sizeof(name), "frame-%s", codec_names[c]);
        seed_buf("block", name, &frame);
    }
    frame.data[1] = BLOCK_COMPRESSION_LAST + 1; /* an unknown code, CRC intact */
    reseal_block(frame.data);
    seed_buf("block", "frame-code-5", &frame);
    buf_free(&v1);

    uint64_t hashes[6];
    for (int i = 0; i < 6; i++)
        hashes[i] = bloom_row_hash((const uint8_t *)rows[i * 2], strlen(rows[i * 2]));
    buf_t bloom = {0};
    check(bloom_build(hashes, 6, BLOOM_ROW, &bloom), "bloom");
    seed_buf("block", "bloom-section", &bloom);
    buf_free(&bloom);
    buf_free(&raw);
    buf_free(&frame);
}

/* ---------------------------------------------------------------- RPC */

/* Seeds for fuzz_rpc: byte 0 is the settings byte (bit 0 preamble, bit 1 small limit). */
static void rpc_seed(const char *name, uint8_t settings, const buf_t *stream)
{
    buf_t b = {0};
    check(buf_append_u8(&b, settings) || buf_append(&b, stream->data, stream->len), "append");
    seed_buf("rpc", name, &b);
    buf_free(&b);
}

static void rpc_seeds(void)
{
    buf_t s = {0};
    uint8_t pre[RPC_PREAMBLE_LEN];
    rpc_frame_preamble(pre);
    check(buf_append(&s, pre, sizeof(pre)), "append");
    check(rpc_header_encode_request(&s, 1, "Test.Echo", 250, "hi", 2, 0), "request");
    check(rpc_header_encode_request(&s, 2, "ClientService.Get", 0, "\x0a\x03row", 5, 0), "request");
    rpc_seed("preamble-two-requests", 1, &s);

    s.len = 0;
    check(rpc_header_encode_reply(&s, 1, "hi", 2, 0), "reply");
    check(rpc_header_encode_error(&s, 2, ST_NOT_SERVING, "region r1 is not online", true, 100),
          "error");
    check(rpc_header_encode_error(&s, 3, ST_CORRUPTION, NULL, false, 0), "error");
    rpc_seed("responses", 0, &s);

    /* HBase's shape: a frame that ends after the header (no body delimiter). */
    s.len = 0;
    static const uint8_t header_only[] = {0, 0, 0, 3, 2, 0x08, 0x05};
    check(buf_append(&s, header_only, sizeof(header_only)), "append");
    rpc_seed("header-only-frame", 0, &s);

    /* A frame over the 256-byte limit of settings bit 1, after a good one. */
    s.len = 0;
    static const uint8_t big[300] = {0};
    check(rpc_header_encode_request(&s, 9, "Test.Echo", 0, "x", 1, 0), "request");
    check(rpc_header_encode_request(&s, 10, "Test.Echo", 0, big, sizeof(big), 0), "request");
    rpc_seed("over-small-limit", 2, &s);

    s.len = 0;
    static const uint8_t bad_pre[] = {'H', 'B', 'a', 's', 0, 0x50};
    check(buf_append(&s, bad_pre, sizeof(bad_pre)), "append");
    rpc_seed("hbase-preamble", 1, &s);
    buf_free(&s);
}

/* ---------------------------------------------------------------- filters */

static void filter_seeds(void)
{
    static const char *const texts[][2] = {
        {"prefix-and-value", "PrefixFilter('u1') AND ValueFilter(=, 'binary:x')"},
        {"or-in-parens", "(PrefixFilter('a') OR PrefixFilter('b')) AND KeyOnlyFilter()"},
        {"compare-filters", "RowFilter(>=, 'binary:u1') OR FamilyFilter(=, 'binaryprefix:cf2')"},
        {"qualifier-substring", "QualifierFilter(!=, 'substring:NA')"},
        {"regex", "RowFilter(=, 'regexstring:^[ab][0-9]$') AND ValueFilter(=, 'regexstring:n+$')"},
        {"single-column-value", "SingleColumnValueFilter('cf', 'st', =, 'binary:on', true, false)"},
        {"page-first-key", "PageFilter(2) AND FirstKeyOnlyFilter()"},
        {"column-prefix-timestamps", "ColumnPrefixFilter('na') OR TimestampsFilter(1, 3)"},
        {"key-only-len", "KeyOnlyFilter(true)"},
        {"quote-escape", "ValueFilter(=, 'binary:it''s')"},
        {"skip-unsupported", "SKIP ValueFilter(=, 'binary:x')"},
        {"unbalanced", "(PrefixFilter('a')"},
    };
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
        seed("filter_parse", texts[i][0], texts[i][1], strlen(texts[i][1]));
    /* A filter string, NUL, and bytes that make extra cells (see fuzz_filter_parse.c). */
    static const char with_cells[] = "ValueFilter(=, 'substring:zz') OR PrefixFilter('q')\0"
                                     "\x01\x00\x01\x03\x02qqcfazzz\x03\x01\x00\x02\x01rowxffzz";
    seed("filter_parse", "with-extra-cells", with_cells, sizeof(with_cells) - 1);
}

/* A REST document: the selector byte (reader + 8 * media, fuzz_rest_docs.c), then the
 * body. */
static void rest_seed(const char *name, unsigned reader, unsigned media, const void *body,
                      size_t n)
{
    buf_t b = {0};
    check(buf_append_u8(&b, (uint8_t)(reader + 8 * media)), "rest seed");
    check(buf_append(&b, body, n), "rest seed");
    seed_buf("rest_docs", name, &b);
    buf_free(&b);
}

static void rest_text(const char *name, unsigned reader, unsigned media, const char *text)
{
    rest_seed(name, reader, media, text, strlen(text));
}

static void rest_seeds(void)
{
    enum { JSON = 0, XML = 1, PB = 2 };
    rest_text("cellset-json", 0, JSON,
              "{\"Row\":[{\"key\":\"cm93MQ==\",\"Cell\":[{\"column\":\"Y2Y6YQ==\","
              "\"timestamp\":1,\"$\":\"dmFsdWU=\"},{\"column\":\"Y2Y6Yg==\",\"$\":\"\"}]},"
              "{\"key\":\"AP8=\",\"Cell\":{\"column\":\"Y2Y6\",\"$\":\"AAE=\"}}]}");
    rest_text("cellset-xml", 0, XML,
              "<?xml version=\"1.0\"?><CellSet><Row key=\"cm93MQ==\"><Cell column=\"Y2Y6YQ==\" "
              "timestamp=\"5\">dmFsdWU=</Cell><!-- c --><Cell column=\"Y2Y6Yg==\"><![CDATA[AA==]]>"
              "</Cell></Row></CellSet>");
    /* CellSet { rows { key "r" values { column "cf:a" timestamp 7 data "v" } } } */
    static const uint8_t pb_cellset[] = {0x0a, 0x11, 0x0a, 0x01, 'r', 0x12, 0x0c, 0x12,
                                         0x04, 'c',  'f',  ':',  'a', 0x18, 0x07, 0x22,
                                         0x01, 'v',  0x00, 0x00};
    rest_seed("cellset-pb", 0, PB, pb_cellset, 19);
    rest_text("schema-json", 1, JSON,
              "{\"name\":\"t\",\"ColumnSchema\":[{\"name\":\"cf\",\"VERSIONS\":3,\"TTL\":"
              "\"FOREVER\",\"BLOOMFILTER\":\"ROWCOL\",\"IN_MEMORY\":false}],\"DURABILITY\":"
              "\"ASYNC_WAL\",\"SPLIT_POLICY\":\"x\"}");
    rest_text("schema-xml", 1, XML,
              "<TableSchema name=\"t\" IS_META=\"false\"><ColumnSchema name=\"cf\" "
              "COMPRESSION=\"ZSTD\" KEEP_DELETED_CELLS=\"TRUE\"/></TableSchema>");
    rest_text("scanner-json", 2, JSON,
              "{\"startRow\":\"YQ==\",\"endRow\":\"eg==\",\"column\":[\"Y2Y=\"],\"batch\":10,"
              "\"maxVersions\":2,\"reversed\":true,\"filter\":\"{\\\"type\\\":\\\"FilterList\\\","
              "\\\"op\\\":\\\"MUST_PASS_ONE\\\",\\\"filters\\\":[{\\\"type\\\":\\\"PrefixFilter\\\","
              "\\\"value\\\":\\\"YQ==\\\"},{\\\"type\\\":\\\"InclusiveStopFilter\\\",\\\"value\\\":"
              "\\\"Yg==\\\"}]}\"}");
    rest_text("scanner-xml", 2, XML,
              "<Scanner batch=\"1\" startTime=\"0\" endTime=\"9\"><column>Y2Y6YQ==</column>"
              "<filter>{\"type\":\"KeyOnlyFilter\"}</filter></Scanner>");
    rest_text("props-json", 3, JSON, "{\"properties\":{\"owner\":\"ann\",\"n\":\"1\"}}");
    rest_text("props-xml", 3, XML,
              "<NamespaceProperties><properties><entry><key>k</key><value>v</value></entry>"
              "</properties></NamespaceProperties>");
    rest_text("filter-scvf", 4, JSON,
              "{\"type\":\"SingleColumnValueFilter\",\"family\":\"Y2Y=\",\"qualifier\":"
              "\"YQ==\",\"op\":\"EQUAL\",\"comparator\":{\"type\":\"SubstringComparator\","
              "\"value\":\"it's\"},\"ifMissing\":true}");
    rest_text("filter-ranges", 4, JSON,
              "{\"type\":\"FilterList\",\"op\":\"MUST_PASS_ALL\",\"filters\":[{\"type\":"
              "\"ColumnRangeFilter\",\"minColumn\":\"YQ==\",\"minColumnInclusive\":true,"
              "\"maxColumn\":\"eg==\",\"maxColumnInclusive\":false},{\"type\":"
              "\"MultiRowRangeFilter\",\"ranges\":[{\"startRow\":\"YQ==\",\"stopRow\":\"Yg==\"}]},"
              "{\"type\":\"TimestampsFilter\",\"timestamps\":[1,2]},{\"type\":\"PageFilter\","
              "\"value\":\"10\"}]}");
    rest_text("rowspec", 5, JSON, "row%2C1,row9/cf:a,cf/100,200");
    rest_text("rowspec-glob", 5, JSON, "ab%FF*/cf:q/42");
    rest_text("accept", 6, JSON, "text/*;q=0.5, application/json;q=0.9, */*;q=0.1");
    rest_text("content-type", 7, JSON, "application/json; charset=utf-8");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    corpus = argv[1];
    char tmpl[] = "/tmp/fuzz_seeds.XXXXXX";
    if (!mkdtemp(tmpl)) {
        perror("mkdtemp");
        return 1;
    }
    scratch = tmpl;
    wal_seeds();
    split_seeds();
    storefile_seeds();
    reference_seeds();
    block_seeds();
    rpc_seeds();
    filter_seeds();
    rest_seeds();
    fio_remove_tree(scratch);
    return 0;
}
