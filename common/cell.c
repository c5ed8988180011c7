/*
 * cell.c - cell comparator, seek keys and the cell encoding (docs/formats/cell.md).
 * Thread-safety: pure functions.
 */
#include "common/cell.h"

#include <stdio.h>
#include <string.h>

#include "common/bytes.h"
#include "common/status.h"

static int cmp_bytes(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int r = n ? memcmp(a, b, n) : 0;
    if (r)
        return r;
    return alen < blen ? -1 : alen > blen ? 1 : 0;
}

int cell_compare_rows(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    return cmp_bytes(a, alen, b, blen);
}

int cell_compare_column(const cell_t *a, const cell_t *b)
{
    int r = cmp_bytes(a->row, a->row_len, b->row, b->row_len);
    if (r)
        return r;
    r = cmp_bytes(a->family, a->family_len, b->family, b->family_len);
    if (r)
        return r;
    return cmp_bytes(a->qualifier, a->qualifier_len, b->qualifier, b->qualifier_len);
}

int cell_compare(const cell_t *a, const cell_t *b)
{
    int r = cell_compare_column(a, b);
    if (r)
        return r;
    if (a->ts != b->ts)
        return a->ts > b->ts ? -1 : 1;
    if (a->type != b->type)
        return a->type > b->type ? -1 : 1;
    if (a->seq != b->seq)
        return a->seq > b->seq ? -1 : 1;
    return 0;
}

bool cell_same_row(const cell_t *a, const cell_t *b)
{
    return a->row_len == b->row_len && memcmp(a->row, b->row, a->row_len) == 0;
}

bool cell_same_family(const cell_t *a, const cell_t *b)
{
    return a->family_len == b->family_len && memcmp(a->family, b->family, a->family_len) == 0;
}

bool cell_is_delete(uint8_t type)
{
    return type == CELL_TYPE_DELETE || type == CELL_TYPE_DELETE_COLUMN ||
           type == CELL_TYPE_DELETE_FAMILY || type == CELL_TYPE_DELETE_FAMILY_VERSION;
}

cell_t cell_first_on_row(const uint8_t *row, size_t row_len)
{
    cell_t c = {0};
    c.row = row;
    c.row_len = (uint32_t)row_len;
    c.ts = INT64_MAX;
    c.type = CELL_TYPE_MAXIMUM;
    c.seq = UINT64_MAX;
    return c;
}

cell_t cell_first_on_column(const uint8_t *row, size_t row_len, const uint8_t *fam,
                            size_t fam_len, const uint8_t *qual, size_t qual_len)
{
    cell_t c = cell_first_on_row(row, row_len);
    c.family = fam;
    c.family_len = (uint32_t)fam_len;
    c.qualifier = qual;
    c.qualifier_len = (uint32_t)qual_len;
    return c;
}

cell_t cell_last_on_column(const uint8_t *row, size_t row_len, const uint8_t *fam,
                           size_t fam_len, const uint8_t *qual, size_t qual_len)
{
    cell_t c = cell_first_on_column(row, row_len, fam, fam_len, qual, qual_len);
    c.ts = INT64_MIN;
    c.type = CELL_TYPE_MINIMUM;
    c.seq = 0;
    return c;
}

size_t cell_key_len(const cell_t *c)
{
    return 2 + (size_t)c->row_len + 1 + c->family_len + c->qualifier_len + 8 + 1;
}

size_t cell_encoded_len(const cell_t *c)
{
    return 8 + cell_key_len(c) + c->value_len + 8;
}

size_t cell_encode(const cell_t *c, uint8_t *dst)
{
    uint8_t *p = dst;
    size_t klen = cell_key_len(c);
    be32_put(p, (uint32_t)klen);
    be32_put(p + 4, c->value_len);
    p += 8;
    be16_put(p, (uint16_t)c->row_len);
    p += 2;
    if (c->row_len)
        memcpy(p, c->row, c->row_len);
    p += c->row_len;
    *p++ = (uint8_t)c->family_len;
    if (c->family_len)
        memcpy(p, c->family, c->family_len);
    p += c->family_len;
    if (c->qualifier_len)
        memcpy(p, c->qualifier, c->qualifier_len);
    p += c->qualifier_len;
    be64_put(p, (uint64_t)c->ts);
    p += 8;
    *p++ = c->type;
    if (c->value_len)
        memcpy(p, c->value, c->value_len);
    p += c->value_len;
    be64_put(p, c->seq);
    p += 8;
    return (size_t)(p - dst);
}

int cell_decode(const uint8_t *src, size_t n, cell_t *out, size_t *used)
{
    if (n < 8)
        return ST_CORRUPTION;
    uint32_t klen = be32_get(src);
    uint32_t vlen = be32_get(src + 4);
    if (klen < 12 || (uint64_t)klen + vlen + 16 > n)
        return ST_CORRUPTION;
    const uint8_t *k = src + 8;
    uint32_t rlen = be16_get(k);
    if (rlen > CELL_MAX_ROW_LEN || 3u + rlen > klen)
        return ST_CORRUPTION;
    uint32_t flen = k[2 + rlen];
    if (2u + rlen + 1 + flen + 9 > klen)
        return ST_CORRUPTION;
    cell_key_view(k, klen, out);
    out->value = k + klen;
    out->value_len = vlen;
    out->seq = be64_get(k + klen + vlen);
    *used = 8 + (size_t)klen + vlen + 8;
    return ST_OK;
}

int cell_validate(const cell_t *c)
{
    if (c->row_len == 0 || c->row_len > CELL_MAX_ROW_LEN)
        return st_error(ST_INVALID_ARGUMENT, "row length %u out of range 1..%d", c->row_len,
                        CELL_MAX_ROW_LEN);
    if (c->family_len == 0 || c->family_len > CELL_MAX_FAMILY_LEN)
        return st_error(ST_INVALID_ARGUMENT, "family length %u out of range 1..%d",
                        c->family_len, CELL_MAX_FAMILY_LEN);
    if (c->type != CELL_TYPE_PUT && !cell_is_delete(c->type))
        return st_error(ST_INVALID_ARGUMENT, "cell type %u is not a storable type", c->type);
    return ST_OK;
}

const char *cell_type_name(uint8_t type)
{
    switch (type) {
    case CELL_TYPE_PUT: return "Put";
    case CELL_TYPE_DELETE: return "Delete";
    case CELL_TYPE_DELETE_FAMILY_VERSION: return "DeleteFamilyVersion";
    case CELL_TYPE_DELETE_COLUMN: return "DeleteColumn";
    case CELL_TYPE_DELETE_FAMILY: return "DeleteFamily";
    case CELL_TYPE_MINIMUM: return "Minimum";
    case CELL_TYPE_MAXIMUM: return "Maximum";
    default: return "Unknown";
    }
}

static size_t escape(char *out, size_t cap, const uint8_t *p, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n && o + 5 < cap; i++) {
        if (p[i] >= 0x20 && p[i] < 0x7f && p[i] != '\\')
            out[o++] = (char)p[i];
        else
            o += (size_t)snprintf(out + o, cap - o, "\\x%02X", p[i]);
    }
    if (cap)
        out[o < cap ? o : cap - 1] = '\0';
    return o;
}

void cell_format(const cell_t *c, char *out, size_t out_len)
{
    char row[256], fam[128], qual[256];
    escape(row, sizeof(row), c->row, c->row_len);
    escape(fam, sizeof(fam), c->family, c->family_len);
    escape(qual, sizeof(qual), c->qualifier, c->qualifier_len);
    snprintf(out, out_len, "%s/%s:%s/%lld/%s/%llu", row, fam, qual, (long long)c->ts,
             cell_type_name(c->type), (unsigned long long)c->seq);
}
