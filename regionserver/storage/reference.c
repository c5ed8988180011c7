/*
 * reference.c - the reference record, its names and the path of the file it refers to
 * (see reference.h; the format is docs/formats/reference.md).
 *
 * Decoding checks, in order: length >= 24, magic, split_len <= 32767 and the length
 * equal to 24 + split_len, CRC, version, range; all but the version are corruption, so
 * a torn or damaged reference is never read as some other half. Writing goes through
 * fio_write_atomic (temp file, fsync, rename, directory fsync).
 * Thread-safety: pure functions apart from the file I/O.
 */
#include "regionserver/storage/reference.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/crc32c.h"
#include "common/fileio.h"
#include "common/log.h"
#include "common/status.h"
#include "regionserver/storage/layout.h"

#define RANGE_OFF 12
#define SPLIT_LEN_OFF 16
#define TMP_SUFFIX ".tmp"

const char *reference_range_name(reference_range range)
{
    switch (range) {
    case REFERENCE_BOTTOM:
        return "BOTTOM";
    case REFERENCE_TOP:
        return "TOP";
    }
    return "?";
}

/* ---- the record ---- */

int reference_encode(reference_range range, const uint8_t *split_row, size_t split_len, buf_t *out)
{
    if (range != REFERENCE_BOTTOM && range != REFERENCE_TOP)
        return st_error(ST_INVALID_ARGUMENT, "reference: unknown range %d", (int)range);
    if (split_len > REFERENCE_MAX_SPLIT_LEN)
        return st_error(ST_INVALID_ARGUMENT, "reference: split row of %zu bytes (at most %d)",
                        split_len, REFERENCE_MAX_SPLIT_LEN);
    if (range == REFERENCE_BOTTOM && split_len == 0)
        return st_error(ST_INVALID_ARGUMENT,
                        "reference: a BOTTOM reference needs a split row (it would be empty)");
    uint8_t head[REFERENCE_HEADER_LEN] = {0};
    memcpy(head, REFERENCE_MAGIC, REFERENCE_MAGIC_LEN);
    be32_put(head + REFERENCE_MAGIC_LEN, REFERENCE_VERSION);
    head[RANGE_OFF] = (uint8_t)range;
    be32_put(head + SPLIT_LEN_OFF, (uint32_t)split_len);
    uint32_t crc = crc32c_extend(0, head, sizeof(head));
    crc = crc32c_extend(crc, split_row, split_len);
    size_t start = out->len;
    int rc = buf_append(out, head, sizeof(head));
    if (rc == ST_OK && split_len)
        rc = buf_append(out, split_row, split_len);
    if (rc == ST_OK)
        rc = buf_append_be32(out, crc);
    if (rc != ST_OK) {
        out->len = start;
        return st_error(ST_NOMEM, "reference: out of memory encoding");
    }
    return ST_OK;
}

static int corrupt(const char *path, const char *why)
{
    LOG_ERROR("reference %s: %s", path, why);
    return st_error(ST_CORRUPTION, "reference %s: %s", path, why);
}

int reference_decode(const char *path, const uint8_t *p, size_t n, reference *out)
{
    buf_free(&out->split_row);
    out->range = 0;
    if (n < REFERENCE_HEADER_LEN + REFERENCE_CRC_LEN)
        return corrupt(path, "truncated (shorter than 24 bytes)");
    if (memcmp(p, REFERENCE_MAGIC, REFERENCE_MAGIC_LEN) != 0)
        return corrupt(path, "bad magic (not a reference file)");
    uint32_t split_len = be32_get(p + SPLIT_LEN_OFF);
    if (split_len > REFERENCE_MAX_SPLIT_LEN ||
        n != (size_t)REFERENCE_HEADER_LEN + split_len + REFERENCE_CRC_LEN)
        return corrupt(path, "length disagrees with its split row length (torn or damaged)");
    if (crc32c_value(p, n - REFERENCE_CRC_LEN) != be32_get(p + n - REFERENCE_CRC_LEN))
        return corrupt(path, "checksum mismatch");
    uint32_t version = be32_get(p + REFERENCE_MAGIC_LEN);
    if (version != REFERENCE_VERSION)
        return st_error(ST_UNSUPPORTED, "reference %s: unsupported version %u", path, version);
    uint8_t range = p[RANGE_OFF];
    if (range != REFERENCE_BOTTOM && range != REFERENCE_TOP)
        return corrupt(path, "unknown range");
    /* Always allocated, so an empty split row is a valid pointer for comparisons. */
    if (buf_reserve(&out->split_row, split_len + 1) != ST_OK)
        return st_error(ST_NOMEM, "reference %s: out of memory", path);
    if (split_len)
        memcpy(out->split_row.data, p + REFERENCE_HEADER_LEN, split_len);
    out->split_row.len = split_len;
    out->range = (reference_range)range;
    return ST_OK;
}

void reference_free(reference *r)
{
    if (!r)
        return;
    buf_free(&r->split_row);
    r->range = 0;
}

int reference_write(const char *path, reference_range range, const uint8_t *split_row,
                    size_t split_len)
{
    buf_t b = {0};
    int rc = reference_encode(range, split_row, split_len, &b);
    if (rc != ST_OK) {
        rc = st_error(rc, "reference %s: %s", path, st_errmsg());
    } else if ((rc = fio_write_atomic(path, b.data, b.len)) != ST_OK) {
        rc = st_error(rc, "reference %s: writing failed: %s", path, st_errmsg());
    }
    buf_free(&b);
    return rc;
}

int reference_read(const char *path, reference *out)
{
    buf_t b = {0};
    int rc = fio_read_all(path, &b);
    if (rc == ST_OK)
        rc = reference_decode(path, b.data, b.len, out);
    else
        rc = st_error(rc, "reference %s: cannot be read: %s", path, st_errmsg());
    buf_free(&b);
    return rc;
}

/* ---- names ---- */

static bool has_tmp_suffix(const char *name)
{
    size_t n = strlen(name), k = strlen(TMP_SUFFIX);
    return n > k && strcmp(name + n - k, TMP_SUFFIX) == 0;
}

/* A valid parent part: an encoded region name that cannot make "<file>.<parent>" read
 * as a temp file. */
static bool parent_ok(const char *parent)
{
    return strcmp(parent, "tmp") != 0 && !has_tmp_suffix(parent) &&
           layout_name_part_ok(parent);
}

static bool file_ok(const char *file, size_t len)
{
    if (len == 0)
        return false;
    for (size_t i = 0; i < len; i++)
        if (file[i] == '.' || file[i] == '/')
            return false;
    return true;
}

int reference_name(const char *file, const char *parent, char **out)
{
    *out = NULL;
    if (!file_ok(file, strlen(file)) || !parent_ok(parent))
        return st_error(ST_INVALID_ARGUMENT,
                        "reference to store file '%s' of region '%s': invalid store-file or "
                        "region name",
                        file, parent);
    if (asprintf(out, "%s.%s", file, parent) < 0) {
        *out = NULL;
        return st_error(ST_NOMEM, "reference to %s of %s: out of memory", file, parent);
    }
    return ST_OK;
}

bool reference_is_name(const char *name)
{
    const char *dot = strchr(name, '.');
    return dot && file_ok(name, (size_t)(dot - name)) && parent_ok(dot + 1);
}

int reference_parse_name(const char *name, char **file, char **parent)
{
    *file = *parent = NULL;
    if (!reference_is_name(name))
        return st_error(ST_INVALID_ARGUMENT, "'%s' is not a reference name", name);
    const char *dot = strchr(name, '.');
    char *f = strndup(name, (size_t)(dot - name));
    char *p = strdup(dot + 1);
    if (!f || !p) {
        free(f);
        free(p);
        return st_error(ST_NOMEM, "reference %s: out of memory", name);
    }
    *file = f;
    *parent = p;
    return ST_OK;
}

/* ---- the referenced file ---- */

int reference_target_path(const char *ref_path, char **out)
{
    *out = NULL;
    /* ref_path = <table dir>/<region>/<family>/<file>.<parent> */
    const char *slash[3] = {NULL, NULL, NULL}; /* the last three '/', last first */
    size_t found = 0;
    for (const char *p = ref_path + strlen(ref_path); p > ref_path && found < 3;)
        if (*--p == '/')
            slash[found++] = p;
    const char *name = slash[0] ? slash[0] + 1 : ref_path;
    char *file = NULL, *parent = NULL;
    if (found < 3 || slash[0] - slash[1] < 2 || slash[1] - slash[2] < 2 ||
        reference_parse_name(name, &file, &parent) != ST_OK)
        return st_error(ST_INVALID_ARGUMENT,
                        "reference %s: not <table dir>/<region>/<family>/<file>.<parent>",
                        ref_path);
    int family_len = (int)(slash[0] - slash[1] - 1);
    int table_len = (int)(slash[2] - ref_path);
    int rc = ST_OK;
    if (asprintf(out, "%.*s/%s/%.*s/%s", table_len, ref_path, parent, family_len, slash[1] + 1,
                 file) < 0) {
        *out = NULL;
        rc = st_error(ST_NOMEM, "reference %s: out of memory", ref_path);
    }
    free(file);
    free(parent);
    return rc;
}
