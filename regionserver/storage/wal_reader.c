/*
 * wal_reader.c - reads WAL and recovered-edits files (docs/formats/wal.md).
 *
 * wal_read_file() walks one file record by record through a 1 MiB read window and
 * decides, at the first record that does not check out, between a torn tail (the
 * writer died mid-write: dropped with a warning when allowed) and corruption (an
 * error naming the file and offset); it never skips a damaged record and goes on.
 * The decision table is the one in wal.md, "Reading one file":
 *
 *   off == eof                          -> end
 *   < 12 bytes left                     -> torn
 *   header crc bad                      -> torn if only zeros follow the header, else corrupt
 *   length out of range (crc good)      -> corrupt
 *   payload runs past eof               -> torn
 *   payload crc bad                     -> torn if only zeros follow the record, else corrupt
 *   payload malformed (crc good)        -> corrupt
 *
 * wal_read_files()/wal_read_dir() add the directory rules: a file named as the
 * predecessor in another file's header is read strictly up to the end recorded there.
 * Thread-safety: no shared state; any number of readers may run at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/crc32c.h"
#include "common/fileio.h"
#include "common/log.h"
#include "common/status.h"
#include "regionserver/storage/wal_internal.h"

#define READ_WINDOW (1u << 20)
#define ZERO_SCAN_CHUNK (64u << 10)

typedef struct reader {
    const char *path;
    fio_file *f;
    uint64_t eof;    /* reading stops here: the file size, or a successor's limit */
    bool torn_ok;    /* a torn tail may be dropped */
    buf_t win;       /* bytes [win_off, win_off + win.len) of the file */
    uint64_t win_off;
    buf_t names;     /* "table\0region\0" of the current record */
    cell_t *cells;
    size_t cells_cap;
} reader;

/* What one step of the record walk found. */
enum { STEP_RECORD, STEP_END };

/* ---------------------------------------------------------------- low-level reads */

/* Points *p at bytes [off, off+n) of the file (1 <= n <= eof - off), refilling the window. */
static int rd_fetch(reader *r, uint64_t off, size_t n, const uint8_t **p)
{
    if (off >= r->win_off && off + n <= r->win_off + r->win.len) {
        *p = r->win.data + (off - r->win_off);
        return ST_OK;
    }
    size_t want = n > READ_WINDOW ? n : READ_WINDOW;
    if (want > r->eof - off)
        want = (size_t)(r->eof - off);
    r->win.len = 0;
    if (buf_reserve(&r->win, want) != ST_OK)
        return st_error(ST_NOMEM, "wal %s: out of memory reading %zu bytes", r->path, want);
    size_t got = 0;
    int rc = fio_pread(r->f, r->win.data, want, off, &got);
    if (rc != ST_OK)
        return rc;
    r->win_off = off;
    r->win.len = got;
    if (got < n)
        return st_error(ST_IO, "wal %s: file shrank while being read (offset %llu)", r->path,
                        (unsigned long long)off);
    *p = r->win.data;
    return ST_OK;
}

/* Sets *zero to whether every byte from off to eof is zero (true if none). */
static int rd_zeros_from(reader *r, uint64_t off, bool *zero)
{
    *zero = true;
    while (off < r->eof && *zero) {
        size_t n = r->eof - off < ZERO_SCAN_CHUNK ? (size_t)(r->eof - off) : ZERO_SCAN_CHUNK;
        const uint8_t *p = NULL;
        int rc = rd_fetch(r, off, n, &p);
        if (rc != ST_OK)
            return rc;
        for (size_t i = 0; i < n && *zero; i++)
            *zero = p[i] == 0;
        off += n;
    }
    return ST_OK;
}

/* ---------------------------------------------------------------- verdicts */

static int rd_corrupt(reader *r, const char *what, uint64_t off, const char *why)
{
    LOG_ERROR("wal %s: corrupt %s at offset %llu: %s", r->path, what, (unsigned long long)off,
              why);
    return st_error(ST_CORRUPTION, "wal %s: corrupt %s at offset %llu: %s", r->path, what,
                    (unsigned long long)off, why);
}

/* A torn tail at off: dropped with a warning if allowed, else corruption. */
static int rd_torn(reader *r, const char *what, uint64_t off, const char *why)
{
    char msg[256];
    if (!r->torn_ok) {
        snprintf(msg, sizeof(msg), "%s (a torn tail is not allowed in this file)", why);
        return rd_corrupt(r, what, off, msg);
    }
    LOG_WARN("wal %s: dropping torn tail at offset %llu (%llu bytes): %s", r->path,
             (unsigned long long)off, (unsigned long long)(r->eof - off), why);
    return ST_OK;
}

/* A damaged record or header at off whose bytes end at `after`: a torn tail if nothing
 * but zero bytes follows, else corruption. */
static int rd_damaged(reader *r, const char *what, uint64_t off, uint64_t after,
                      const char *why)
{
    bool zero = false;
    int rc = rd_zeros_from(r, after < r->eof ? after : r->eof, &zero);
    if (rc != ST_OK)
        return rc;
    if (zero)
        return rd_torn(r, what, off, why);
    char msg[256];
    snprintf(msg, sizeof(msg), "%s, and data follows", why);
    return rd_corrupt(r, what, off, msg);
}

/* ---------------------------------------------------------------- file header */

/* True if the n (< 36) bytes at p could be the start of a header or zero fill. */
static bool header_prefix_ok(const uint8_t *p, size_t n)
{
    bool zero = true;
    for (size_t i = 0; i < n; i++)
        zero = zero && p[i] == 0;
    return zero || memcmp(p, WAL_MAGIC, n < 4 ? n : 4) == 0;
}

/* Checks the file header; *step is STEP_END when the file is a torn (empty) file. */
static int rd_header(reader *r, wal_file_header *h, int *step)
{
    static const char what[] = "file header";
    const uint8_t *p = NULL;
    size_t n = r->eof < WAL_FILE_HEADER_LEN ? (size_t)r->eof : WAL_FILE_HEADER_LEN;
    *step = STEP_END;
    if (n == 0) /* nothing to fetch: the window is still empty (no buffer at all) */
        return rd_torn(r, what, 0, "empty file");
    int rc = rd_fetch(r, 0, n, &p);
    if (rc != ST_OK)
        return rc;
    if (n < WAL_FILE_HEADER_LEN) {
        if (!header_prefix_ok(p, n))
            return rd_corrupt(r, what, 0, "not a WAL file (bad magic)");
        return rd_torn(r, what, 0, "file header cut short by end of file");
    }
    if (memcmp(p, WAL_MAGIC, 4) != 0)
        return rd_damaged(r, what, 0, 0, "not a WAL file (bad magic)");
    if (crc32c_value(p, 32) != be32_get(p + 32))
        return rd_damaged(r, what, 0, WAL_FILE_HEADER_LEN, "file header checksum mismatch");
    if (be32_get(p + 4) != WAL_VERSION)
        return st_error(ST_UNSUPPORTED, "wal %s: format version %u is not supported (only %u)",
                        r->path, be32_get(p + 4), WAL_VERSION);
    h->number = be64_get(p + 8);
    h->prev_number = be64_get(p + 16);
    h->prev_end = be64_get(p + 24);
    *step = STEP_RECORD;
    return ST_OK;
}

/* ---------------------------------------------------------------- payload */

/* Takes a u16-length name at *pos (1.. bytes, no NUL). */
static bool take_name(const uint8_t *p, size_t len, size_t *pos, const uint8_t **s, size_t *n)
{
    if (len - *pos < 2)
        return false;
    *n = be16_get(p + *pos);
    if (*n == 0 || len - *pos - 2 < *n || memchr(p + *pos + 2, 0, *n))
        return false;
    *s = p + *pos + 2;
    *pos += 2 + *n;
    return true;
}

/* Stores "table\0region\0" and points e at it. */
static int keep_names(reader *r, const uint8_t *t, size_t tl, const uint8_t *g, size_t gl,
                      wal_edit *e)
{
    r->names.len = 0;
    if (buf_append(&r->names, t, tl) || buf_append_u8(&r->names, 0) ||
        buf_append(&r->names, g, gl) || buf_append_u8(&r->names, 0))
        return st_error(ST_NOMEM, "wal %s: out of memory", r->path);
    e->table = (const char *)r->names.data;
    e->region = (const char *)r->names.data + tl + 1;
    return ST_OK;
}

static int reserve_cells(reader *r, size_t n)
{
    if (n <= r->cells_cap)
        return ST_OK;
    cell_t *c = realloc(r->cells, n * sizeof(*c));
    if (!c)
        return st_error(ST_NOMEM, "wal %s: out of memory for %zu cells", r->path, n);
    r->cells = c;
    r->cells_cap = n;
    return ST_OK;
}

/* Decodes ncells cells from p[pos..len); fills why on a malformed cell. */
static int parse_cells(reader *r, const uint8_t *p, size_t len, size_t pos, wal_edit *e,
                       char *why, size_t whylen)
{
    for (size_t i = 0; i < e->ncells; i++) {
        cell_t *c = &r->cells[i];
        size_t used = 0;
        if (cell_decode(p + pos, len - pos, c, &used) != ST_OK) {
            snprintf(why, whylen, "cell %zu of %zu does not decode", i, e->ncells);
            return ST_CORRUPTION;
        }
        if (cell_validate(c) != ST_OK) {
            snprintf(why, whylen, "cell %zu: %s", i, st_errmsg());
            return ST_CORRUPTION;
        }
        if (c->seq != e->seq) {
            snprintf(why, whylen, "cell %zu has seq %llu in a record of seq %llu", i,
                     (unsigned long long)c->seq, (unsigned long long)e->seq);
            return ST_CORRUPTION;
        }
        pos += used;
    }
    if (pos != len) {
        snprintf(why, whylen, "%zu bytes left after the cells", len - pos);
        return ST_CORRUPTION;
    }
    return ST_OK;
}

/* Decodes a checksummed payload into e (views into p and r). ST_CORRUPTION with why
 * filled if it is malformed; other codes for resource errors. */
static int parse_payload(reader *r, const uint8_t *p, size_t len, wal_edit *e, char *why,
                         size_t whylen)
{
    size_t pos = 0, tl = 0, gl = 0;
    const uint8_t *t = NULL, *g = NULL;
    if (!take_name(p, len, &pos, &t, &tl) || !take_name(p, len, &pos, &g, &gl)) {
        snprintf(why, whylen, "bad table or region name");
        return ST_CORRUPTION;
    }
    if (len - pos < 12) {
        snprintf(why, whylen, "payload too short for sequence id and cell count");
        return ST_CORRUPTION;
    }
    e->seq = be64_get(p + pos);
    e->ncells = be32_get(p + pos + 8);
    pos += 12;
    if (e->ncells > (len - pos) / WAL_MIN_CELL_LEN) {
        snprintf(why, whylen, "cell count %zu too large for %zu bytes", e->ncells, len - pos);
        return ST_CORRUPTION;
    }
    int rc = reserve_cells(r, e->ncells);
    if (rc == ST_OK)
        rc = keep_names(r, t, tl, g, gl, e);
    if (rc != ST_OK)
        return rc;
    e->cells = r->cells;
    return parse_cells(r, p, len, pos, e, why, whylen);
}

/* ---------------------------------------------------------------- records */

/* Reads the record at off into e. *step: STEP_RECORD (and *next) or STEP_END. */
static int rd_step(reader *r, uint64_t off, wal_edit *e, int *step, uint64_t *next)
{
    static const char what[] = "record";
    const uint8_t *p = NULL;
    char why[256];
    *step = STEP_END;
    if (off == r->eof)
        return ST_OK;
    if (r->eof - off < WAL_RECORD_HEADER_LEN)
        return rd_torn(r, what, off, "record header cut short by end of file");
    int rc = rd_fetch(r, off, WAL_RECORD_HEADER_LEN, &p);
    if (rc != ST_OK)
        return rc;
    uint32_t len = be32_get(p), pcrc = be32_get(p + 4);
    if (crc32c_value(p, 8) != be32_get(p + 8))
        return rd_damaged(r, what, off, off + WAL_RECORD_HEADER_LEN, "header checksum mismatch");
    if (len < WAL_MIN_PAYLOAD || len > WAL_MAX_PAYLOAD) {
        snprintf(why, sizeof(why), "record length %u outside %u..%u", len, WAL_MIN_PAYLOAD,
                 WAL_MAX_PAYLOAD);
        return rd_corrupt(r, what, off, why);
    }
    uint64_t end = off + WAL_RECORD_HEADER_LEN + len;
    if (end > r->eof)
        return rd_torn(r, what, off, "payload cut short by end of file");
    if ((rc = rd_fetch(r, off, WAL_RECORD_HEADER_LEN + len, &p)) != ST_OK)
        return rc;
    p += WAL_RECORD_HEADER_LEN;
    if (crc32c_value(p, len) != pcrc)
        return rd_damaged(r, what, off, end, "payload checksum mismatch");
    rc = parse_payload(r, p, len, e, why, sizeof(why));
    if (rc == ST_CORRUPTION)
        return rd_corrupt(r, what, off, why);
    if (rc != ST_OK)
        return rc;
    *step = STEP_RECORD;
    *next = end;
    return ST_OK;
}

/* Walks the records after the header, calling fn; sets *valid_end as it goes. */
static int rd_records(reader *r, wal_edit_fn fn, void *ctx, uint64_t *valid_end)
{
    uint64_t off = WAL_FILE_HEADER_LEN;
    for (;;) {
        wal_edit e = {0};
        int step = STEP_END;
        uint64_t next = 0;
        int rc = rd_step(r, off, &e, &step, &next);
        if (rc != ST_OK || step == STEP_END)
            return rc;
        off = next;
        *valid_end = off;
        if ((rc = fn(&e, ctx)) != 0)
            return rc;
    }
}

/* Sets r->eof from the file size and the successor's limit. */
static int rd_apply_limit(reader *r, uint64_t size, uint64_t limit)
{
    char why[160];
    r->eof = size;
    if (limit == UINT64_MAX)
        return ST_OK;
    r->torn_ok = false;
    if (size < limit || limit < WAL_FILE_HEADER_LEN) {
        snprintf(why, sizeof(why), "file is %llu bytes, but the next file records %llu valid",
                 (unsigned long long)size, (unsigned long long)limit);
        return rd_corrupt(r, "file", size < limit ? size : limit, why);
    }
    if (size > limit)
        LOG_WARN("wal %s: ignoring %llu bytes after offset %llu, a batch that failed before "
                 "the writer abandoned this file",
                 r->path, (unsigned long long)(size - limit), (unsigned long long)limit);
    r->eof = limit;
    return ST_OK;
}

int wal_read_file_limited(const char *path, bool tail_may_be_torn, uint64_t limit,
                          uint64_t expect_number, wal_edit_fn fn, void *ctx,
                          uint64_t *valid_end)
{
    reader r = {.path = path, .torn_ok = tail_may_be_torn};
    wal_file_header h = {0};
    uint64_t size = 0, vend = 0;
    int step = STEP_END;
    int rc = fio_open_read(path, &r.f);
    if (rc == ST_OK)
        rc = fio_size(r.f, &size);
    if (rc == ST_OK)
        rc = rd_apply_limit(&r, size, limit);
    if (rc == ST_OK)
        rc = rd_header(&r, &h, &step);
    if (rc != ST_OK || step == STEP_END)
        goto out;
    vend = WAL_FILE_HEADER_LEN;
    if (expect_number != UINT64_MAX && h.number != expect_number) {
        char why[96];
        snprintf(why, sizeof(why), "header names file %llu", (unsigned long long)h.number);
        rc = rd_corrupt(&r, "file header", 0, why);
        goto out;
    }
    rc = rd_records(&r, fn, ctx, &vend);
out:
    if (valid_end)
        *valid_end = vend;
    fio_close(r.f);
    buf_free(&r.win);
    buf_free(&r.names);
    free(r.cells);
    return rc;
}

int wal_read_file(const char *path, bool tail_may_be_torn, wal_edit_fn fn, void *ctx,
                  uint64_t *valid_end)
{
    return wal_read_file_limited(path, tail_may_be_torn, UINT64_MAX, UINT64_MAX, fn, ctx,
                                 valid_end);
}

int wal_read_header(const char *path, wal_file_header *h, bool *ok)
{
    fio_file *f = NULL;
    uint8_t b[WAL_FILE_HEADER_LEN];
    size_t got = 0;
    *ok = false;
    int rc = fio_open_read(path, &f);
    if (rc == ST_OK)
        rc = fio_pread(f, b, sizeof(b), 0, &got);
    fio_close(f);
    if (rc != ST_OK || got < sizeof(b))
        return rc;
    if (memcmp(b, WAL_MAGIC, 4) != 0 || crc32c_value(b, 32) != be32_get(b + 32) ||
        be32_get(b + 4) != WAL_VERSION)
        return ST_OK;
    h->number = be64_get(b + 8);
    h->prev_number = be64_get(b + 16);
    h->prev_end = be64_get(b + 24);
    *ok = true;
    return ST_OK;
}

/* ---------------------------------------------------------------- directories */

int wal_list_files(const char *dir, char ***paths, size_t *count)
{
    char **names = NULL, **out = NULL;
    size_t n = 0, k = 0;
    uint64_t num;
    *paths = NULL;
    *count = 0;
    int rc = fio_list_dir(dir, &names, &n);
    if (rc == ST_OK && n && !(out = calloc(n, sizeof(*out))))
        rc = st_error(ST_NOMEM, "wal: out of memory listing %s", dir);
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        if (!wal_parse_file_name(names[i], &num))
            continue;
        if (asprintf(&out[k], "%s/%s", dir, names[i]) < 0) {
            out[k] = NULL;
            rc = st_error(ST_NOMEM, "wal: out of memory listing %s", dir);
            break;
        }
        k++;
    }
    fio_free_list(names, n);
    if (rc != ST_OK) {
        fio_free_list(out, k);
        return rc;
    }
    *paths = out;
    *count = k;
    return ST_OK;
}

static uint64_t number_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    uint64_t num = 0;
    return wal_parse_file_name(slash ? slash + 1 : path, &num) ? num : UINT64_MAX;
}

/* limits[i]: the valid end that a later file records for file i, or UINT64_MAX. */
static int find_limits(char *const *paths, size_t count, uint64_t *limits)
{
    for (size_t i = 0; i < count; i++)
        limits[i] = UINT64_MAX;
    for (size_t j = 0; j < count; j++) {
        wal_file_header h = {0};
        bool ok = false;
        int rc = wal_read_header(paths[j], &h, &ok);
        if (rc != ST_OK)
            return rc;
        for (size_t i = 0; ok && h.prev_number && i < j; i++)
            if (number_of(paths[i]) == h.prev_number && limits[i] == UINT64_MAX)
                limits[i] = h.prev_end;
    }
    return ST_OK;
}

int wal_read_files(char *const *paths, size_t count, wal_edit_fn fn, void *ctx)
{
    uint64_t *limits = count ? calloc(count, sizeof(*limits)) : NULL;
    if (count && !limits)
        return st_error(ST_NOMEM, "wal: out of memory reading %zu files", count);
    int rc = find_limits(paths, count, limits);
    for (size_t i = 0; rc == ST_OK && i < count; i++)
        rc = wal_read_file_limited(paths[i], limits[i] == UINT64_MAX, limits[i],
                                   number_of(paths[i]), fn, ctx, NULL);
    free(limits);
    return rc;
}

int wal_read_dir(const char *dir, wal_edit_fn fn, void *ctx)
{
    char **paths = NULL;
    size_t n = 0;
    int rc = wal_list_files(dir, &paths, &n);
    if (rc == ST_OK)
        rc = wal_read_files(paths, n, fn, ctx);
    fio_free_list(paths, n);
    return rc;
}
