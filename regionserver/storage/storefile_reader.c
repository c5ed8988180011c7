/*
 * storefile_reader.c - opens a store file (docs/formats/storefile.md), verifies its
 * trailer, file info, index and bloom, and serves data blocks through the block cache.
 *
 * storefile_open: trailer (magic, CRC, version 1..3, section bounds) -> file info ->
 * index (blocks tile the data region) -> bloom. Each check failing is ST_CORRUPTION
 * naming the file and the section. Data blocks are read with one pread of the size
 * the index gives, verified and decoded by block_frame_open(), checked to start with
 * the first key the index gives for it, and cached under (file id, block offset) with
 * the decoded size as charge and the priority the open options give (IN_MEMORY); a file
 * opened without a cache, or with no_data_cache (BLOCKCACHE false), hands each reader a
 * private copy that its release frees.
 *
 * Lifetime: refs starts at 1 (the opener); iterators take one each. The last
 * storefile_unref() drops the file's blocks from the cache, closes it and, if
 * storefile_mark_deleted() was called, unlinks it. A half opened through a reference
 * file (storefile_half.c) unlinks the reference and drops its reference to the
 * referenced file, which it never marks deleted; its bloom checks answer false outside
 * the half before asking the referenced file's bloom.
 * Thread-safety: after open everything is read-only except the atomic refs and
 * deleted flag; block reads may run from any number of threads.
 */
#include "regionserver/storage/storefile_internal.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/crc32c.h"
#include "common/log.h"
#include "common/status.h"

typedef struct sf_trailer {
    uint64_t off[3]; /* bloom, index, info */
    uint64_t size[3];
} sf_trailer;

static const char *const section_names[3] = {"bloom", "index", "file info"};

static int corrupt(const storefile *f, const char *section, const char *why)
{
    LOG_ERROR("store file %s: %s: %s", f->path, section, why);
    return st_error(ST_CORRUPTION, "store file %s: %s: %s", f->path, section, why);
}

/* ---- trailer ---- */

/* What the version fixes: the block codes allowed, and the block type (version 3: the
 * file info's, parse_info). */
static void set_version(storefile *f, uint32_t version)
{
    f->version = version;
    f->info.version = version;
    f->max_compression = version >= SF_VERSION_3 ? BLOCK_COMPRESSION_LAST
                                                 : BLOCK_COMPRESSION_ZSTD;
    f->block_type = version == SF_VERSION_1 ? BLOCK_TYPE_DATA : BLOCK_TYPE_DATA_V2;
}

static int check_bounds(const storefile *f, const sf_trailer *t, uint64_t trailer_off)
{
    uint64_t end = t->off[0];
    if (end > trailer_off)
        return corrupt(f, "trailer", "section offsets out of range");
    for (int i = 0; i < 3; i++) {
        if (t->off[i] != end || t->size[i] > trailer_off - end)
            return corrupt(f, "trailer", "section offsets out of range");
        if (t->size[i] != 0 && t->size[i] < SF_SECTION_CRC_LEN)
            return corrupt(f, "trailer", "section too short");
        end += t->size[i];
    }
    if (end != trailer_off || t->size[1] == 0 || t->size[2] == 0)
        return corrupt(f, "trailer", "sections do not end at the trailer");
    return ST_OK;
}

static int read_trailer(storefile *f, sf_trailer *t)
{
    uint8_t b[SF_TRAILER_LEN];
    size_t got = 0;
    if (f->info.file_size < SF_TRAILER_LEN)
        return corrupt(f, "trailer", "file shorter than the trailer");
    uint64_t at = f->info.file_size - SF_TRAILER_LEN;
    int rc = fio_pread(f->file, b, sizeof(b), at, &got);
    if (rc != ST_OK)
        return rc;
    if (got != sizeof(b))
        return corrupt(f, "trailer", "truncated");
    if (memcmp(b + SF_TRAILER_MAGIC_OFF, SF_MAGIC, SF_MAGIC_LEN) != 0)
        return corrupt(f, "trailer", "bad magic (not a store file, or truncated)");
    uint32_t crc = crc32c_extend(0, b, SF_TRAILER_CRC_OFF);
    crc = crc32c_extend(crc, b + SF_TRAILER_MAGIC_OFF, SF_TRAILER_LEN - SF_TRAILER_MAGIC_OFF);
    if (crc != be32_get(b + SF_TRAILER_CRC_OFF))
        return corrupt(f, "trailer", "checksum mismatch");
    uint32_t version = be32_get(b + SF_TRAILER_VERSION_OFF);
    if (version < SF_VERSION_1 || version > SF_VERSION_3)
        return st_error(ST_UNSUPPORTED, "store file %s: unsupported version %u", f->path, version);
    set_version(f, version);
    for (int i = 0; i < 3; i++) {
        t->off[i] = be64_get(b + 16 * i);
        t->size[i] = be64_get(b + 16 * i + 8);
    }
    return check_bounds(f, t, at);
}

/* Reads section i into a new buffer (*out, caller frees) and checks its CRC. */
static int read_section(storefile *f, const sf_trailer *t, int i, uint8_t **out)
{
    *out = NULL;
    size_t n = (size_t)t->size[i], got = 0;
    uint8_t *p = malloc(n);
    if (!p)
        return st_error(ST_NOMEM, "store file %s: out of memory reading the %s section", f->path,
                        section_names[i]);
    int rc = fio_pread(f->file, p, n, t->off[i], &got);
    if (rc == ST_OK && got != n)
        rc = corrupt(f, section_names[i], "truncated");
    if (rc == ST_OK && crc32c_value(p, n - 4) != be32_get(p + n - 4))
        rc = corrupt(f, section_names[i], "checksum mismatch");
    if (rc != ST_OK) {
        free(p);
        return rc;
    }
    *out = p;
    return ST_OK;
}

/* ---- file info ---- */

/* Parses a u32-length-prefixed cell at *pos (length 0: none). */
static int parse_info_cell(const uint8_t *p, size_t n, size_t *pos, cell_t *out, bool want)
{
    if (n - *pos < 4)
        return ST_CORRUPTION;
    uint32_t len = be32_get(p + *pos);
    *pos += 4;
    if (len > n - *pos || (len == 0) == want)
        return ST_CORRUPTION;
    size_t used = 0;
    if (len && (cell_decode(p + *pos, len, out, &used) != ST_OK || used != len))
        return ST_CORRUPTION;
    *pos += len;
    return ST_OK;
}

static int parse_info(storefile *f, const uint8_t *p, size_t n)
{
    storefile_info *in = &f->info;
    if (n < SF_INFO_FIXED_LEN)
        return corrupt(f, "file info", "too short");
    in->max_seq = be64_get(p);
    in->min_ts = (int64_t)be64_get(p + 8);
    in->max_ts = (int64_t)be64_get(p + 16);
    in->entries = be64_get(p + 24);
    in->delete_count = be64_get(p + 32);
    in->block_count = be32_get(p + 40);
    in->bloom = (bloom_type)p[44];
    in->compression = (compression_type)p[45];
    in->major_compacted = p[46] & SF_INFO_FLAG_MAJOR;
    if (p[44] > BLOOM_ROWCOL || p[45] > f->max_compression || (p[46] & ~SF_INFO_FLAG_MAJOR))
        return corrupt(f, "file info", "unknown bloom type, compression or flag");
    uint8_t type = p[SF_INFO_BLOCK_TYPE_OFF]; /* version 3 only; reserved before */
    if (f->version >= SF_VERSION_3 && type != BLOCK_TYPE_DATA && type != BLOCK_TYPE_DATA_V2)
        return corrupt(f, "file info", "unknown data block type");
    if (f->version >= SF_VERSION_3)
        f->block_type = type;
    in->block_type = (storefile_block_type)f->block_type;
    if ((in->entries == 0) != (in->block_count == 0) || in->delete_count > in->entries)
        return corrupt(f, "file info", "inconsistent counts");
    size_t pos = SF_INFO_FIXED_LEN;
    bool want = in->entries > 0;
    if (parse_info_cell(p, n, &pos, &in->first, want) != ST_OK ||
        parse_info_cell(p, n, &pos, &in->last, want) != ST_OK || pos != n)
        return corrupt(f, "file info", "bad first or last cell");
    return ST_OK;
}

/* ---- index ---- */

static int parse_index_entry(const uint8_t *p, size_t n, size_t *pos, sf_index_entry *e)
{
    size_t used = 0;
    if (n - *pos < 12)
        return ST_CORRUPTION;
    e->offset = be64_get(p + *pos);
    e->size = be32_get(p + *pos + 8);
    *pos += 12;
    if (cell_decode(p + *pos, n - *pos, &e->first, &used) != ST_OK || e->first.value_len)
        return ST_CORRUPTION;
    *pos += used;
    return ST_OK;
}

static int parse_index(storefile *f, const uint8_t *p, size_t n, uint64_t data_end)
{
    if (n < 4 || be32_get(p) != f->info.block_count)
        return corrupt(f, "index", "block count disagrees with the file info");
    uint32_t count = f->info.block_count;
    if (count && !(f->index = calloc(count, sizeof(*f->index))))
        return st_error(ST_NOMEM, "store file %s: out of memory for the index", f->path);
    size_t pos = 4;
    uint64_t expect = 0;
    for (uint32_t i = 0; i < count; i++) {
        sf_index_entry *e = &f->index[i];
        if (parse_index_entry(p, n, &pos, e) != ST_OK)
            return corrupt(f, "index", "malformed entry");
        if (e->offset != expect || e->size <= BLOCK_HEADER_LEN || e->size > data_end - expect)
            return corrupt(f, "index", "block offsets out of range");
        expect += e->size;
    }
    if (pos != n || expect != data_end)
        return corrupt(f, "index", "blocks do not cover the data region");
    return ST_OK;
}

/* ---- open / close ---- */

static int load_sections(storefile *f, const sf_trailer *t)
{
    int rc = read_section(f, t, 2, &f->info_buf);
    if (rc == ST_OK)
        rc = parse_info(f, f->info_buf, (size_t)t->size[2] - 4);
    if (rc == ST_OK)
        rc = read_section(f, t, 1, &f->index_buf);
    if (rc == ST_OK)
        rc = parse_index(f, f->index_buf, (size_t)t->size[1] - 4, t->off[0]);
    if (rc != ST_OK || (f->info.bloom == BLOOM_NONE && t->size[0] == 0))
        return rc;
    if (f->info.bloom == BLOOM_NONE || t->size[0] == 0)
        return corrupt(f, "bloom", "presence disagrees with the file info");
    rc = read_section(f, t, 0, &f->bloom_buf);
    if (rc == ST_OK && (bloom_parse(f->bloom_buf, (size_t)t->size[0] - 4, &f->bloom) != ST_OK ||
                        f->bloom.type != (uint8_t)f->info.bloom))
        rc = corrupt(f, "bloom", "malformed header");
    return rc;
}

static atomic_bool mmap_reads = true;

/* ---- mapped files and SIGBUS ----
 * A mapped read that the kernel cannot satisfy (a disk error, a file truncated behind
 * the server's back) raises SIGBUS in whatever thread touched the page. It cannot be
 * turned into a status there, so the handler names the file and the offset on stderr
 * and lets the signal end the process, as an unreadable disk should (the WALs and the
 * master's recovery take it from there). Mappings are kept in a fixed table of atomic
 * slots the handler can read without a lock. storefile_handle_sigbus (engine_open
 * calls it) installs the handler only where SIGBUS still has its default action. */
#define MAP_SLOTS 4096

typedef struct map_slot {
    _Atomic(const storefile *) f;
} map_slot;

static map_slot map_table[MAP_SLOTS];

static void put_str(const char *p)
{
    ssize_t unused = write(2, p, strlen(p));
    (void)unused;
}

static void put_u64(uint64_t v)
{
    char b[24];
    int i = (int)sizeof(b);
    b[--i] = 0;
    do
        b[--i] = (char)('0' + v % 10);
    while ((v /= 10) && i > 0);
    put_str(b + i);
}

static void on_sigbus(int sig, siginfo_t *si, void *uctx)
{
    (void)uctx;
    const uint8_t *addr = si->si_addr;
    put_str("strata: SIGBUS");
    for (size_t i = 0; i < MAP_SLOTS; i++) {
        const storefile *f = atomic_load_explicit(&map_table[i].f, memory_order_relaxed);
        if (f && addr >= f->map && addr < f->map + f->map_len) {
            put_str(": store file ");
            put_str(f->path);
            put_str(": I/O error or truncation under a mapped read at offset ");
            put_u64((uint64_t)(addr - f->map));
            break;
        }
    }
    put_str("; stopping\n");
    signal(sig, SIG_DFL);
    raise(sig);
}

void storefile_handle_sigbus(void)
{
    struct sigaction old;
    if (sigaction(SIGBUS, NULL, &old) != 0 || old.sa_handler != SIG_DFL)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

static void map_register(const storefile *f)
{
    for (size_t i = 0; i < MAP_SLOTS; i++) {
        const storefile *none = NULL;
        if (atomic_compare_exchange_strong(&map_table[i].f, &none, f))
            return;
    }
}

static void map_unregister(const storefile *f)
{
    for (size_t i = 0; i < MAP_SLOTS; i++) {
        const storefile *cur = f;
        if (atomic_compare_exchange_strong(&map_table[i].f, &cur, NULL))
            return;
    }
}

void storefile_set_mmap_reads(bool on)
{
    atomic_store(&mmap_reads, on);
}

/* Maps the file for reads of its uncompressed blocks; without a mapping (turned off,
 * or mmap failed) every block is read with pread. */
static void map_file(storefile *f)
{
    if (!atomic_load(&mmap_reads) || f->info.block_count == 0 || f->info.file_size > SIZE_MAX)
        return;
    size_t n = (size_t)f->info.file_size;
    f->verified = calloc((f->info.block_count + 7) / 8, 1);
    if (f->verified && fio_map(f->file, n, &f->map) == ST_OK) {
        f->map_len = n;
        map_register(f);
        return;
    }
    LOG_WARN("store file %s: not mapped, blocks are read with pread: %s", f->path,
             f->verified ? st_errmsg() : "out of memory");
    free(f->verified);
    f->verified = NULL;
    f->map = NULL;
}

static void storefile_free(storefile *f)
{
    if (f->map)
        map_unregister(f);
    fio_unmap(f->map, f->map_len);
    free(f->verified);
    storefile_unref(f->target); /* a half's referenced file; never marked deleted */
    free(f->split_row);
    fio_close(f->file);
    free(f->index);
    free(f->index_buf);
    free(f->info_buf);
    free(f->bloom_buf);
    free(f->path);
    free(f);
}

int storefile_open(const char *path, blockcache *cache, storefile **out)
{
    storefile_open_options o = {.cache = cache};
    return storefile_open_with(path, &o, out);
}

int storefile_open_with(const char *path, const storefile_open_options *o, storefile **out)
{
    *out = NULL;
    sf_trailer t;
    storefile *f = calloc(1, sizeof(*f));
    if (!f || !(f->path = strdup(path))) {
        free(f);
        return st_error(ST_NOMEM, "store file %s: out of memory opening", path);
    }
    int rc = fio_open_read(path, &f->file);
    if (rc == ST_OK)
        rc = fio_size(f->file, &f->info.file_size);
    if (rc == ST_OK)
        rc = read_trailer(f, &t);
    if (rc == ST_OK)
        rc = load_sections(f, &t);
    if (rc != ST_OK)
        goto fail;
    map_file(f);
    /* Only data blocks go through the cache: without it a BLOCKCACHE-false file neither
     * looks blocks up nor inserts them (nor reads ahead, which only fills the cache). */
    f->cache = o && !o->no_data_cache ? o->cache : NULL;
    f->cache_priority =
        o && o->in_memory ? BLOCKCACHE_PRIORITY_IN_MEMORY : BLOCKCACHE_PRIORITY_NORMAL;
    f->file_id = blockcache_new_file_id();
    atomic_init(&f->refs, 1);
    atomic_init(&f->deleted, false);
    *out = f;
    return ST_OK;
fail:
    storefile_free(f);
    return rc;
}

void storefile_ref(storefile *f)
{
    atomic_fetch_add(&f->refs, 1);
}

void storefile_unref(storefile *f)
{
    if (!f || atomic_fetch_sub(&f->refs, 1) != 1)
        return;
    if (f->cache)
        blockcache_erase_file(f->cache, f->file_id);
    fio_close(f->file);
    f->file = NULL;
    if (atomic_load(&f->deleted) && fio_unlink(f->path) != ST_OK)
        LOG_WARN("store file %s: unlink after last reference failed: %s", f->path, st_errmsg());
    storefile_free(f);
}

void storefile_mark_deleted(storefile *f)
{
    atomic_store(&f->deleted, true);
}

const storefile_info *storefile_get_info(const storefile *f)
{
    return &f->info;
}

const char *storefile_path(const storefile *f)
{
    return f->path;
}

/* ---- bloom ---- */

bool storefile_may_contain_row(const storefile *f, const uint8_t *row, size_t row_len)
{
    if (f->target)
        return storefile_half_has_row(f, row, row_len) &&
               storefile_may_contain_row(f->target, row, row_len);
    if (f->info.bloom == BLOOM_NONE)
        return true;
    return bloom_may_contain(&f->bloom, bloom_row_hash(row, row_len));
}

bool storefile_may_contain_column(const storefile *f, const uint8_t *row, size_t row_len,
                                  const uint8_t *fam, size_t fam_len, const uint8_t *qual,
                                  size_t qual_len)
{
    if (f->target)
        return storefile_half_has_row(f, row, row_len) &&
               storefile_may_contain_column(f->target, row, row_len, fam, fam_len, qual,
                                            qual_len);
    if (f->info.bloom != BLOOM_ROWCOL)
        return storefile_may_contain_row(f, row, row_len);
    return bloom_may_contain(&f->bloom,
                             bloom_column_hash(row, row_len, fam, fam_len, qual, qual_len));
}

/* ---- data blocks ---- */

static void sf_block_free(void *v)
{
    sf_block *b = v;
    free(b->decoded);
    free(b);
}

/* Why a block of another type than f's is corrupt. */
static const char *wrong_type(const storefile *f)
{
    return f->version >= SF_VERSION_3 ? "block type does not match the file info's block type"
                                      : "block type does not match the file's version";
}

/* Whether the block's first cell has the key its index entry gives: seeks choose blocks
 * by those keys, so a block that starts elsewhere would make them miss cells. */
static bool first_matches_index(const block_t *blk, const sf_index_entry *e)
{
    cell_t first;
    block_first_cell(blk, &first);
    return cell_compare(&first, &e->first) == 0;
}

/* *bp holds the stored bytes of block idx after its struct: verifies and decodes them
 * (in place when uncompressed; a compressed block's struct is shrunk to itself) and checks
 * the first cell against the index. On failure *why (ST_CORRUPTION) says what. */
static int finish_block(storefile *f, uint32_t idx, sf_block **bp, const char **why)
{
    sf_block *b = *bp;
    const sf_index_entry *e = &f->index[idx];
    const uint8_t *raw = NULL;
    size_t raw_len = 0;
    b->decoded = NULL;
    const uint8_t *stored = (const uint8_t *)(b + 1);
    int rc = block_frame_open(stored, e->size, f->max_compression, &raw, &raw_len, &b->decoded,
                              why);
    if (rc != ST_OK)
        return rc;
    if (stored[0] != f->block_type)
        return (*why = wrong_type(f), ST_CORRUPTION);
    if (b->decoded) {
        sf_block *small = realloc(b, sizeof(*b)); /* the stored copy is no longer needed */
        if (small)
            *bp = b = small;
        raw = b->decoded;
    }
    if ((rc = block_init(&b->blk, f->block_type, raw, raw_len)) != ST_OK)
        return rc == ST_CORRUPTION ? (*why = "malformed block contents", rc) : rc;
    if (!first_matches_index(&b->blk, e))
        return (*why = "its first cell disagrees with the index", ST_CORRUPTION);
    b->charge = sizeof(*b) + (b->decoded ? raw_len : e->size);
    return ST_OK;
}

static int block_error(storefile *f, uint32_t idx, int rc, const char *why)
{
    unsigned long long off = (unsigned long long)f->index[idx].offset;
    if (!why)
        why = "unreadable";
    if (rc == ST_CORRUPTION) {
        LOG_ERROR("store file %s: data block at offset %llu: %s", f->path, off, why);
        return st_error(rc, "store file %s: data block at offset %llu: %s", f->path, off, why);
    }
    if (rc == ST_NOMEM)
        return st_error(rc, "store file %s: out of memory reading block at offset %llu", f->path,
                        off);
    return rc;
}

/* Reads, verifies and decodes block idx into a new sf_block. */
static int read_block(storefile *f, uint32_t idx, sf_block **out)
{
    const sf_index_entry *e = &f->index[idx];
    *out = NULL;
    size_t got = 0;
    const char *why = NULL;
    sf_block *b = malloc(sizeof(*b) + e->size);
    int rc = b ? fio_pread(f->file, (uint8_t *)(b + 1), e->size, e->offset, &got) : ST_NOMEM;
    if (rc == ST_OK && got != e->size)
        rc = (why = "truncated", ST_CORRUPTION);
    if (rc == ST_OK)
        rc = finish_block(f, idx, &b, &why);
    if (rc != ST_OK) {
        if (b)
            sf_block_free(b);
        return block_error(f, idx, rc, why);
    }
    *out = b;
    return ST_OK;
}

static int cache_block(storefile *f, uint32_t idx, sf_block *b, sf_block_ref *out)
{
    out->handle = blockcache_insert_priority(f->cache, f->file_id, f->index[idx].offset, b,
                                             b->charge, sf_block_free, f->cache_priority);
    if (!out->handle) /* the cache has freed b */
        return st_error(ST_NOMEM, "store file %s: out of memory caching a block", f->path);
    out->blk = &((sf_block *)blockcache_value(out->handle))->blk;
    return ST_OK;
}

static bool cached(storefile *f, uint32_t idx)
{
    blockcache_handle *h = blockcache_lookup(f->cache, f->file_id, f->index[idx].offset);
    if (h)
        blockcache_release(f->cache, h);
    return h != NULL;
}

/* The blocks from idx on that one read of at most `bytes` covers (at least idx), up to
 * the first one already cached. */
static uint32_t run_end(storefile *f, uint32_t idx, size_t bytes)
{
    uint32_t end = idx + 1;
    size_t total = f->index[idx].size;
    while (end < f->info.block_count && total + f->index[end].size <= bytes && !cached(f, end))
        total += f->index[end++].size;
    return end;
}

/* A miss on idx while reading forward: one pread for the blocks that follow too, each
 * verified and cached on its own. A later block that fails its checks is left out (its
 * own read reports it); idx's failure is the result. */
static int read_ahead(storefile *f, uint32_t idx, size_t bytes, sf_block_ref *out)
{
    uint32_t end = run_end(f, idx, bytes);
    uint64_t start = f->index[idx].offset;
    size_t total = (size_t)(f->index[end - 1].offset + f->index[end - 1].size - start), got = 0;
    uint8_t *buf = malloc(total);
    int rc = buf ? fio_pread(f->file, buf, total, start, &got) : ST_NOMEM;
    if (rc != ST_OK) {
        free(buf);
        return block_error(f, idx, rc, NULL);
    }
    for (uint32_t j = idx; j < end; j++) {
        const sf_index_entry *e = &f->index[j];
        size_t at = (size_t)(e->offset - start);
        const char *why = NULL;
        sf_block *b = NULL;
        int brc = got < at + e->size ? (why = "truncated", ST_CORRUPTION) : ST_OK;
        if (brc == ST_OK && !(b = malloc(sizeof(*b) + e->size)))
            brc = ST_NOMEM;
        if (brc == ST_OK) {
            memcpy(b + 1, buf + at, e->size);
            brc = finish_block(f, j, &b, &why);
        }
        if (brc != ST_OK) {
            if (b)
                sf_block_free(b);
            if (j == idx)
                rc = block_error(f, idx, brc, why);
            break;
        }
        sf_block_ref ref = {0};
        brc = cache_block(f, j, b, &ref);
        if (j == idx) {
            rc = brc;
            *out = ref;
            out->fresh = true;
        } else if (brc == ST_OK) {
            blockcache_release(f->cache, ref.handle);
        }
        if (brc != ST_OK)
            break;
    }
    free(buf);
    return rc;
}

/* An uncompressed block straight from the mapping, checked on its first use (header,
 * CRC, layout, first key). 1 when the block is compressed: the caller reads it. */
static int mapped_block(storefile *f, uint32_t idx, sf_block_ref *out)
{
    const sf_index_entry *e = &f->index[idx];
    const uint8_t *h = f->map + e->offset;
    if (h[1] != BLOCK_COMPRESSION_NONE)
        return 1;
    atomic_uchar *bits = &f->verified[idx / 8];
    uint8_t mask = (uint8_t)(1u << (idx % 8));
    if (atomic_load_explicit(bits, memory_order_relaxed) & mask) {
        block_view(&out->view, f->block_type, h + BLOCK_HEADER_LEN, be32_get(h + 8));
        out->blk = &out->view;
        return ST_OK;
    }
    const uint8_t *raw = NULL;
    uint8_t *decoded = NULL;
    size_t raw_len = 0;
    const char *why = NULL;
    int rc = block_frame_open(h, e->size, f->max_compression, &raw, &raw_len, &decoded, &why);
    free(decoded); /* none for an uncompressed block */
    if (rc == ST_OK && decoded)
        rc = (why = "compression code changed under the mapping", ST_CORRUPTION);
    if (rc == ST_OK && h[0] != f->block_type)
        rc = (why = wrong_type(f), ST_CORRUPTION);
    if (rc == ST_OK && (rc = block_init(&out->view, f->block_type, raw, raw_len)) == ST_CORRUPTION)
        why = "malformed block contents";
    if (rc == ST_OK && !first_matches_index(&out->view, e))
        rc = (why = "its first cell disagrees with the index", ST_CORRUPTION);
    if (rc != ST_OK) {
        out->view = (block_t){0};
        return block_error(f, idx, rc, why);
    }
    atomic_fetch_or_explicit(bits, mask, memory_order_relaxed);
    out->blk = &out->view;
    return ST_OK;
}

int storefile_block_acquire_ahead(storefile *f, uint32_t idx, bool fill_cache, size_t readahead,
                                  sf_block_ref *out)
{
    *out = (sf_block_ref){0};
    if (f->map) {
        int rc = mapped_block(f, idx, out);
        if (rc <= 0)
            return rc;
    }
    uint64_t off = f->index[idx].offset;
    if (f->cache && (out->handle = blockcache_lookup(f->cache, f->file_id, off))) {
        out->blk = &((sf_block *)blockcache_value(out->handle))->blk;
        return ST_OK;
    }
    if (f->cache && fill_cache && readahead > f->index[idx].size && idx + 1 < f->info.block_count)
        return read_ahead(f, idx, readahead, out);
    sf_block *b = NULL;
    int rc = read_block(f, idx, &b);
    if (rc != ST_OK)
        return rc;
    out->fresh = true;
    if (f->cache && fill_cache)
        return cache_block(f, idx, b, out);
    out->owned = b;
    out->blk = &b->blk;
    return ST_OK;
}

int storefile_block_acquire_cached(storefile *f, uint32_t idx, sf_block_ref *out)
{
    *out = (sf_block_ref){0};
    /* Only uncompressed blocks get a verified bit, and verifying touched every page of
     * the block: it is taken as resident (the kernel may have dropped pages since; the
     * read then waits for them like any page fault). */
    if (f->map &&
        (atomic_load_explicit(&f->verified[idx / 8], memory_order_relaxed) & (1u << (idx % 8))))
        return mapped_block(f, idx, out);
    if (f->cache && (out->handle = blockcache_lookup(f->cache, f->file_id, f->index[idx].offset))) {
        out->blk = &((sf_block *)blockcache_value(out->handle))->blk;
        return ST_OK;
    }
    return ST_WOULD_BLOCK;
}

int storefile_block_acquire(storefile *f, uint32_t idx, bool fill_cache, sf_block_ref *out)
{
    return storefile_block_acquire_ahead(f, idx, fill_cache, 0, out);
}

void storefile_block_release(storefile *f, sf_block_ref *ref)
{
    if (ref->handle)
        blockcache_release(f->cache, ref->handle);
    else if (ref->owned)
        sf_block_free(ref->owned);
    *ref = (sf_block_ref){0};
}

int64_t storefile_index_find(const storefile *f, const cell_t *key)
{
    uint32_t lo = 0, hi = f->info.block_count; /* first block with first key > key */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (cell_compare(&f->index[mid].first, key) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (int64_t)lo - 1;
}

int storefile_mid_row(storefile *f, buf_t *row)
{
    if (f->target)
        return st_error(ST_INVALID_ARGUMENT,
                        "store file %s is a reference: no mid row until it is compacted",
                        f->path);
    if (f->info.block_count == 0)
        return st_error(ST_NOT_FOUND, "store file %s is empty: no mid row", f->path);
    const cell_t *k = &f->index[(f->info.block_count - 1) / 2].first;
    if (buf_set(row, k->row, k->row_len) != ST_OK)
        return st_error(ST_NOMEM, "store file %s: out of memory", f->path);
    return ST_OK;
}
