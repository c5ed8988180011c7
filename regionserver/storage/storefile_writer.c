/*
 * storefile_writer.c - writes a store file (docs/formats/storefile.md).
 *
 * Cells arrive in strictly increasing order. Data blocks stream to "<path>.tmp" as
 * they fill (block_builder -> block_frame_encode -> fio_append) while the writer
 * remembers each block's first key (the index) and a 64-bit hash per distinct bloom
 * key. storefile_writer_finish() appends the bloom, index and file info sections and
 * the trailer, then fsync -> rename to <path> -> fsync of the directory. Any failure
 * removes the .tmp file (and <path> if the rename had happened), so an error or a
 * crash leaves no file or a whole one at <path>.
 *
 * The file's version is the lowest that expresses its codec and block type, under the
 * cap of its options or storefile_set_max_version (docs/formats/storefile.md, "Which
 * version a writer writes"); storefile_writer_open refuses a codec the cap rules out.
 *
 * States: OPEN (storefile_writer_open) --add--> OPEN --finish/abort--> freed.
 * An I/O error during add is sticky: later adds and finish return it.
 * Thread-safety: a writer is used by one thread.
 */
#include "regionserver/storage/storefile_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/crc32c.h"
#include "common/log.h"
#include "common/status.h"

#define DEFAULT_BLOCK_SIZE 65536
#define DEFAULT_ZSTD_LEVEL 3
#define MAX_CELL_BYTES (1u << 30) /* keeps every block under 4 GiB */

struct storefile_writer {
    char *path;
    char *tmp_path;
    fio_file *file;
    storefile_options opt; /* normalized: no zeros left */
    uint32_t version;      /* the file's format version */
    uint8_t block_type;    /* of every data block: BLOCK_TYPE_DATA or BLOCK_TYPE_DATA_V2 */
    ZSTD_CCtx *cctx;
    block_builder bb;
    buf_t block_first; /* key-only encoding of the open block's first cell */
    buf_t raw;         /* scratch: a finished decoded block */
    buf_t frame;       /* scratch: a block as stored, or a section */
    buf_t index;       /* index entries so far */
    buf_t first_cell;  /* full encodings */
    buf_t last_cell;
    cell_t last; /* view into last_cell */
    uint64_t *hashes;
    size_t nhashes, cap_hashes;
    uint64_t offset; /* data bytes written */
    uint64_t entries, delete_count;
    int64_t min_ts, max_ts;
    uint32_t block_count;
    int failed;
};

/* ---- open ---- */

static _Atomic uint32_t max_version = SF_VERSION_MAX_DEFAULT;

int storefile_set_max_version(uint32_t version)
{
    if (version < SF_VERSION_1 || version > SF_VERSION_3)
        return st_error(ST_INVALID_ARGUMENT, "unknown store file format version %u (1, 2 or 3)",
                        version);
    atomic_store(&max_version, version);
    return ST_OK;
}

const char *storefile_compression_name(compression_type c)
{
    static const char *const names[] = {"NONE", "ZSTD", "SNAPPY", "LZ4", "GZ"};
    return (unsigned)c <= COMPRESSION_LAST ? names[c] : "UNKNOWN";
}

/* Fills n from o (NULL: all defaults) and checks it; ST_INVALID_ARGUMENT naming path. */
static int normalize_options(const char *path, const storefile_options *o, storefile_options *n)
{
    *n = o ? *o : (storefile_options){0};
    if (n->block_size == 0)
        n->block_size = DEFAULT_BLOCK_SIZE;
    if (n->zstd_level == 0)
        n->zstd_level = DEFAULT_ZSTD_LEVEL;
    if (n->max_version == 0)
        n->max_version = atomic_load(&max_version);
    if (n->block_type == STOREFILE_BLOCKS_DEFAULT)
        n->block_type = STOREFILE_BLOCKS_PREFIX;
    if (n->max_version < SF_VERSION_1 || n->max_version > SF_VERSION_3)
        return st_error(ST_INVALID_ARGUMENT,
                        "store file %s: unknown format version %u (1, 2 or 3)", path,
                        n->max_version);
    if (n->block_size > INT32_MAX)
        return st_error(ST_INVALID_ARGUMENT, "store file %s: block size %u too large", path,
                        n->block_size);
    if ((unsigned)n->compression > COMPRESSION_LAST)
        return st_error(ST_INVALID_ARGUMENT, "store file %s: unknown compression %d", path,
                        (int)n->compression);
    if (n->block_type != STOREFILE_BLOCKS_PLAIN && n->block_type != STOREFILE_BLOCKS_PREFIX)
        return st_error(ST_INVALID_ARGUMENT, "store file %s: unknown data block type %d", path,
                        (int)n->block_type);
    if (n->bloom != BLOOM_NONE && n->bloom != BLOOM_ROW && n->bloom != BLOOM_ROWCOL)
        return st_error(ST_INVALID_ARGUMENT, "store file %s: unknown bloom type %d", path,
                        (int)n->bloom);
    return ST_OK;
}

/* Sets w's version and block type from its normalized options: the lowest version that
 * expresses them (SNAPPY, LZ4, GZ: 3; else PLAIN blocks 1, PREFIX blocks 2). Over the cap,
 * PREFIX blocks fall back to PLAIN (a version-1 file for a downgrade); a codec the cap
 * rules out is ST_INVALID_ARGUMENT naming the file, the codec and the setting. */
static int choose_version(storefile_writer *w)
{
    const storefile_options *o = &w->opt;
    bool prefix = o->block_type == STOREFILE_BLOCKS_PREFIX;
    uint32_t need = o->compression > COMPRESSION_ZSTD ? SF_VERSION_3
                    : prefix                          ? SF_VERSION_2
                                                      : SF_VERSION_1;
    if (need > o->max_version && o->compression > COMPRESSION_ZSTD)
        return st_error(ST_INVALID_ARGUMENT,
                        "store file %s: compression %s needs store file format version %u, but "
                        "regionserver.storefile.format.version allows at most %u",
                        w->path, storefile_compression_name(o->compression), need,
                        o->max_version);
    if (need > o->max_version) {
        need = SF_VERSION_1;
        prefix = false;
    }
    w->version = need;
    w->block_type = prefix ? BLOCK_TYPE_DATA_V2 : BLOCK_TYPE_DATA;
    return ST_OK;
}

static void writer_free(storefile_writer *w)
{
    fio_close(w->file);
    ZSTD_freeCCtx(w->cctx);
    block_builder_free(&w->bb);
    buf_free(&w->block_first);
    buf_free(&w->raw);
    buf_free(&w->frame);
    buf_free(&w->index);
    buf_free(&w->first_cell);
    buf_free(&w->last_cell);
    free(w->hashes);
    free(w->tmp_path);
    free(w->path);
    free(w);
}

/* Allocates w's .tmp name and zstd context; ST_NOMEM on failure. */
static int writer_alloc(storefile_writer *w)
{
    if (asprintf(&w->tmp_path, "%s.tmp", w->path) < 0) {
        w->tmp_path = NULL;
        return ST_NOMEM;
    }
    if (w->opt.compression == COMPRESSION_ZSTD && !(w->cctx = ZSTD_createCCtx()))
        return ST_NOMEM;
    block_builder_init_type(&w->bb, w->block_type);
    return ST_OK;
}

int storefile_writer_open(const char *path, const storefile_options *o, storefile_writer **out)
{
    *out = NULL;
    storefile_writer *w = calloc(1, sizeof(*w));
    int rc = w ? normalize_options(path, o, &w->opt) : ST_NOMEM;
    if (rc == ST_OK && !(w->path = strdup(path)))
        rc = ST_NOMEM;
    if (rc == ST_OK)
        rc = choose_version(w);
    if (rc == ST_OK && writer_alloc(w) != ST_OK)
        rc = ST_NOMEM;
    if (rc == ST_NOMEM)
        st_error(rc, "store file %s: out of memory opening the writer", path);
    if (rc == ST_OK && fio_exists(w->tmp_path)) {
        LOG_WARN("store file %s: removing a stale %s", path, w->tmp_path);
        fio_unlink(w->tmp_path);
    }
    if (rc == ST_OK)
        rc = fio_create(w->tmp_path, &w->file);
    if (rc != ST_OK)
        goto fail;
    w->min_ts = INT64_MAX;
    w->max_ts = INT64_MIN;
    *out = w;
    return ST_OK;
fail:
    if (w)
        writer_free(w);
    return rc;
}

/* ---- data blocks ---- */

static int append_key_only(buf_t *b, const cell_t *c)
{
    cell_t k = *c;
    k.value = NULL;
    k.value_len = 0;
    size_t n = cell_encoded_len(&k);
    if (buf_reserve(b, n) != ST_OK)
        return ST_NOMEM;
    b->len += cell_encode(&k, b->data + b->len);
    return ST_OK;
}

/* Closes the open block: writes it and adds its index entry. */
static int flush_block(storefile_writer *w)
{
    buf_reset(&w->frame);
    int rc = block_builder_finish(&w->bb, &w->raw);
    if (rc == ST_OK)
        rc = block_frame_encode(w->raw.data, w->raw.len, w->block_type, (int)w->opt.compression,
                                w->cctx, w->opt.zstd_level, &w->frame);
    if (rc == ST_OK && (buf_append_be64(&w->index, w->offset) != ST_OK ||
                        buf_append_be32(&w->index, (uint32_t)w->frame.len) != ST_OK ||
                        buf_append(&w->index, w->block_first.data, w->block_first.len) != ST_OK))
        rc = ST_NOMEM;
    if (rc == ST_NOMEM)
        st_error(rc, "store file %s: out of memory writing a block", w->path);
    if (rc == ST_OK)
        rc = fio_append(w->file, w->frame.data, w->frame.len);
    if (rc != ST_OK)
        return w->failed = rc;
    w->offset += w->frame.len;
    w->block_count++;
    return ST_OK;
}

/* ---- add ---- */

static int push_hash(storefile_writer *w, uint64_t h)
{
    if (w->nhashes == w->cap_hashes) {
        size_t cap = w->cap_hashes ? w->cap_hashes * 2 : 1024;
        uint64_t *p = realloc(w->hashes, cap * sizeof(*p));
        if (!p)
            return ST_NOMEM;
        w->hashes = p;
        w->cap_hashes = cap;
    }
    w->hashes[w->nhashes++] = h;
    return ST_OK;
}

/* Remembers the bloom keys c adds (rows, and columns for ROWCOL), once each. */
static int add_bloom_keys(storefile_writer *w, const cell_t *c)
{
    bool have_last = w->entries > 0;
    int rc = ST_OK;
    if (w->opt.bloom == BLOOM_NONE)
        return ST_OK;
    if (!have_last || !cell_same_row(&w->last, c))
        rc = push_hash(w, bloom_row_hash(c->row, c->row_len));
    if (rc == ST_OK && w->opt.bloom == BLOOM_ROWCOL &&
        (!have_last || cell_compare_column(&w->last, c) != 0))
        rc = push_hash(w, bloom_column_hash(c->row, c->row_len, c->family, c->family_len,
                                            c->qualifier, c->qualifier_len));
    return rc;
}

static int check_order(storefile_writer *w, const cell_t *c)
{
    if (w->entries == 0 || cell_compare(&w->last, c) < 0)
        return ST_OK;
    char a[512], b[512];
    cell_format(c, a, sizeof(a));
    cell_format(&w->last, b, sizeof(b));
    return st_error(ST_ORDER, "store file %s: cell %s does not sort after the previous cell %s",
                    w->path, a, b);
}

/* Copies c into last_cell (and first_cell for the first) and updates the stats. */
static int remember(storefile_writer *w, const cell_t *c)
{
    size_t n = cell_encoded_len(c), used;
    if (buf_reserve(&w->last_cell, n) != ST_OK)
        return ST_NOMEM;
    w->last_cell.len = cell_encode(c, w->last_cell.data);
    cell_decode(w->last_cell.data, n, &w->last, &used);
    if (w->entries == 0 && buf_set(&w->first_cell, w->last_cell.data, n) != ST_OK)
        return ST_NOMEM;
    w->entries++;
    w->delete_count += cell_is_delete(c->type);
    w->min_ts = c->ts < w->min_ts ? c->ts : w->min_ts;
    w->max_ts = c->ts > w->max_ts ? c->ts : w->max_ts;
    return ST_OK;
}

int storefile_writer_add(storefile_writer *w, const cell_t *c)
{
    if (w->failed)
        return w->failed;
    int rc = cell_validate(c);
    if (rc == ST_OK && cell_encoded_len(c) > MAX_CELL_BYTES)
        rc = st_error(ST_INVALID_ARGUMENT, "store file %s: cell of %zu bytes too large", w->path,
                      cell_encoded_len(c));
    if (rc == ST_OK)
        rc = check_order(w, c);
    if (rc != ST_OK)
        return rc;
    if (block_builder_empty(&w->bb)) {
        buf_reset(&w->block_first);
        rc = append_key_only(&w->block_first, c);
    }
    if (rc == ST_OK)
        rc = add_bloom_keys(w, c);
    if (rc == ST_OK)
        rc = block_builder_add(&w->bb, c);
    if (rc == ST_OK)
        rc = remember(w, c);
    if (rc != ST_OK) /* half-added: the writer cannot go on */
        return w->failed = st_error(rc, "store file %s: out of memory adding a cell", w->path);
    if (block_builder_size(&w->bb) >= w->opt.block_size)
        rc = flush_block(w);
    return rc;
}

uint64_t storefile_writer_entries(const storefile_writer *w)
{
    return w->entries;
}

uint64_t storefile_writer_size(const storefile_writer *w)
{
    /* Written blocks plus the open block's decoded bytes. */
    return w->offset + (block_builder_empty(&w->bb) ? 0 : block_builder_size(&w->bb));
}

/* ---- finish ---- */

/* Appends the CRC32C of the section in w->frame and writes it; *size gets its length. */
static int write_section(storefile_writer *w, uint64_t *size)
{
    if (buf_append_be32(&w->frame, crc32c_value(w->frame.data, w->frame.len)) != ST_OK)
        return st_error(ST_NOMEM, "store file %s: out of memory", w->path);
    *size = w->frame.len;
    return fio_append(w->file, w->frame.data, w->frame.len);
}

static int write_bloom(storefile_writer *w, uint64_t *size)
{
    *size = 0;
    if (w->opt.bloom == BLOOM_NONE)
        return ST_OK;
    buf_reset(&w->frame);
    if (bloom_build(w->hashes, w->nhashes, (uint8_t)w->opt.bloom, &w->frame) != ST_OK)
        return st_error(ST_NOMEM, "store file %s: out of memory building the bloom", w->path);
    return write_section(w, size);
}

static int write_index(storefile_writer *w, uint64_t *size)
{
    buf_reset(&w->frame);
    if (buf_append_be32(&w->frame, w->block_count) != ST_OK ||
        buf_append(&w->frame, w->index.data, w->index.len) != ST_OK)
        return st_error(ST_NOMEM, "store file %s: out of memory", w->path);
    return write_section(w, size);
}

static int write_info(storefile_writer *w, uint64_t max_seq, bool major, uint64_t *size)
{
    uint8_t fixed[SF_INFO_FIXED_LEN] = {0};
    be64_put(fixed, max_seq);
    be64_put(fixed + 8, (uint64_t)w->min_ts);
    be64_put(fixed + 16, (uint64_t)w->max_ts);
    be64_put(fixed + 24, w->entries);
    be64_put(fixed + 32, w->delete_count);
    be32_put(fixed + 40, w->block_count);
    fixed[44] = (uint8_t)w->opt.bloom;
    fixed[45] = (uint8_t)w->opt.compression;
    fixed[46] = major ? SF_INFO_FLAG_MAJOR : 0;
    fixed[SF_INFO_BLOCK_TYPE_OFF] = w->version >= SF_VERSION_3 ? w->block_type : 0;
    buf_reset(&w->frame);
    if (buf_append(&w->frame, fixed, sizeof(fixed)) != ST_OK ||
        buf_append_be32(&w->frame, (uint32_t)w->first_cell.len) != ST_OK ||
        buf_append(&w->frame, w->first_cell.data, w->first_cell.len) != ST_OK ||
        buf_append_be32(&w->frame, (uint32_t)w->last_cell.len) != ST_OK ||
        buf_append(&w->frame, w->last_cell.data, w->last_cell.len) != ST_OK)
        return st_error(ST_NOMEM, "store file %s: out of memory", w->path);
    return write_section(w, size);
}

static int write_trailer(storefile_writer *w, const uint64_t sizes[3])
{
    uint8_t t[SF_TRAILER_LEN] = {0};
    uint64_t off = w->offset;
    for (int i = 0; i < 3; i++) { /* bloom, index, info */
        be64_put(t + 16 * i, off);
        be64_put(t + 16 * i + 8, sizes[i]);
        off += sizes[i];
    }
    memcpy(t + SF_TRAILER_MAGIC_OFF, SF_MAGIC, SF_MAGIC_LEN);
    be32_put(t + SF_TRAILER_VERSION_OFF, w->version);
    uint32_t crc = crc32c_extend(0, t, SF_TRAILER_CRC_OFF);
    crc = crc32c_extend(crc, t + SF_TRAILER_MAGIC_OFF, SF_TRAILER_LEN - SF_TRAILER_MAGIC_OFF);
    be32_put(t + SF_TRAILER_CRC_OFF, crc);
    return fio_append(w->file, t, sizeof(t));
}

/* fsync, rename into place, fsync the directory. */
static int publish(storefile_writer *w, bool *renamed)
{
    char *dir = NULL;
    int rc = fio_sync(w->file);
    if (rc == ST_OK) {
        rc = fio_close(w->file);
        w->file = NULL;
    }
    if (rc == ST_OK)
        rc = fio_rename(w->tmp_path, w->path);
    *renamed = rc == ST_OK;
    if (rc == ST_OK && !(dir = fio_dir_of(w->path)))
        rc = st_error(ST_NOMEM, "store file %s: out of memory", w->path);
    if (rc == ST_OK)
        rc = fio_sync_dir(dir);
    free(dir);
    return rc;
}

int storefile_writer_finish(storefile_writer *w, uint64_t max_seq, bool major_compacted)
{
    uint64_t sizes[3] = {0};
    bool renamed = false;
    int rc = w->failed;
    if (rc == ST_OK && !block_builder_empty(&w->bb))
        rc = flush_block(w);
    if (rc == ST_OK)
        rc = write_bloom(w, &sizes[0]);
    if (rc == ST_OK)
        rc = write_index(w, &sizes[1]);
    if (rc == ST_OK)
        rc = write_info(w, max_seq, major_compacted, &sizes[2]);
    if (rc == ST_OK)
        rc = write_trailer(w, sizes);
    if (rc == ST_OK)
        rc = publish(w, &renamed);
    if (rc != ST_OK) {
        char msg[512];
        snprintf(msg, sizeof(msg), "%s", st_errmsg());
        LOG_ERROR("store file %s: finish failed: %s", w->path, msg);
        fio_close(w->file);
        w->file = NULL;
        fio_unlink(renamed ? w->path : w->tmp_path);
        st_error(rc, "%s", msg);
    }
    writer_free(w);
    return rc;
}

void storefile_writer_abort(storefile_writer *w)
{
    if (!w)
        return;
    fio_close(w->file);
    w->file = NULL;
    fio_unlink(w->tmp_path);
    writer_free(w);
}
