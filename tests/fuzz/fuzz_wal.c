/*
 * fuzz_wal.c - fuzz target for the WAL reader (regionserver/storage/wal_reader.c,
 * docs/formats/wal.md): the input is written as a log file wal.<1> and read to the end
 * with wal_read_file(), once allowing a torn tail and once strictly, and then its valid
 * prefix once more as a predecessor file limited to the end its successor would record
 * (wal_read_file_limited).
 *
 * It asserts: every read returns ST_OK, ST_CORRUPTION or ST_UNSUPPORTED, and a failure's
 * message names the file; valid_end is 0 (torn header) or between 36 and the file size;
 * both reads stop at the same valid_end and hand over the same records, and a strict read
 * succeeds only if the tolerant one does and has read the whole file; every record handed
 * over is one the writer accepts (storable cells, each with the record's sequence id) and
 * re-encodes (wal_record_encode) to exactly the bytes of the file between 36 and
 * valid_end, so nothing is skipped or altered; the valid prefix read strictly as a
 * limited predecessor gives the same records.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/status.h"
#include "regionserver/storage/wal.h"
#include "regionserver/storage/wal_internal.h"
#include "tests/fuzz/fuzz_repair.h"
#include "tests/fuzz/fuzz_support.h"

typedef struct seen {
    buf_t enc; /* the records handed over, re-encoded */
    size_t records;
} seen;

static int on_edit(const wal_edit *e, void *ctx)
{
    seen *s = ctx;
    FUZZ_CHECK(e->table && e->table[0] && e->region && e->region[0], "record %zu", s->records);
    for (size_t i = 0; i < e->ncells; i++) {
        FUZZ_CHECK(cell_validate(&e->cells[i]) == ST_OK, "record %zu cell %zu: %s", s->records, i,
                   st_errmsg());
        FUZZ_CHECK(e->cells[i].seq == e->seq, "record %zu cell %zu", s->records, i);
    }
    int rc = wal_record_encode(e, &s->enc);
    FUZZ_CHECK(rc == ST_OK, "record %zu does not re-encode: %s", s->records, st_errmsg());
    s->records++;
    return 0;
}

static bool expected_status(int rc)
{
    return rc == ST_OK || rc == ST_CORRUPTION || rc == ST_UNSUPPORTED;
}

/* One read of path; checks what holds for any read. */
static int read_once(const char *path, bool torn_ok, uint64_t limit, const uint8_t *data,
                     size_t size, seen *s, uint64_t *vend)
{
    *vend = UINT64_MAX;
    int rc = wal_read_file_limited(path, torn_ok, limit, UINT64_MAX, on_edit, s, vend);
    FUZZ_CHECK(expected_status(rc), "status %d (%s): %s", rc, st_strerror(rc), st_errmsg());
    FUZZ_CHECK(rc == ST_OK || strstr(st_errmsg(), path), "message without the path: %s",
               st_errmsg());
    FUZZ_CHECK(*vend == 0 || (*vend >= WAL_FILE_HEADER_LEN && *vend <= size),
               "valid_end %llu of %zu", (unsigned long long)*vend, size);
    size_t body = *vend ? (size_t)*vend - WAL_FILE_HEADER_LEN : 0;
    FUZZ_CHECK(s->enc.len == body, "%zu bytes re-encoded, %zu valid", s->enc.len, body);
    FUZZ_CHECK(body == 0 || memcmp(s->enc.data, data + WAL_FILE_HEADER_LEN, body) == 0,
               "records re-encode to other bytes (valid_end %llu)", (unsigned long long)*vend);
    return rc;
}

/* Writes data as the log file path and checks every read of it. */
static void check_file(const char *path, const uint8_t *data, size_t size)
{
    fuzz_write_file(path, data, size);

    seen tolerant = {0}, strict = {0}, limited = {0};
    uint64_t vt = 0, vs = 0, vl = 0;
    int rt = read_once(path, true, UINT64_MAX, data, size, &tolerant, &vt);
    int rs = read_once(path, false, UINT64_MAX, data, size, &strict, &vs);
    FUZZ_CHECK(vt == vs && tolerant.records == strict.records,
               "tolerant read stops at %llu after %zu records, strict at %llu after %zu",
               (unsigned long long)vt, tolerant.records, (unsigned long long)vs, strict.records);
    FUZZ_CHECK(rs != ST_OK || (rt == ST_OK && vs == size), "strict %d tolerant %d end %llu", rs, rt,
               (unsigned long long)vs);
    FUZZ_CHECK(rt != ST_CORRUPTION || rs == ST_CORRUPTION, "tolerant corrupt, strict %d", rs);
    FUZZ_CHECK((rt == ST_UNSUPPORTED) == (rs == ST_UNSUPPORTED), "tolerant %d strict %d", rt, rs);
    if (rt == ST_OK && vt >= WAL_FILE_HEADER_LEN) {
        int rl = read_once(path, false, vt, data, size, &limited, &vl);
        FUZZ_CHECK(rl == ST_OK && vl == vt && limited.records == tolerant.records,
                   "valid prefix of %llu read as a predecessor: %d (%s), end %llu",
                   (unsigned long long)vt, rl, st_errmsg(), (unsigned long long)vl);
    }
    buf_free(&tolerant.enc);
    buf_free(&strict.enc);
    buf_free(&limited.enc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *path;
    if (!path)
        path = fuzz_path("wal.00000000000000000001");
    check_file(path, data, size);
    uint8_t *copy = malloc(size ? size : 1);
    FUZZ_CHECK(copy != NULL, "out of memory");
    if (size)
        memcpy(copy, data, size);
    if (fuzz_repair_wal(copy, size))
        check_file(path, copy, size);
    free(copy);
    return 0;
}
