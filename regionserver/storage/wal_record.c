/*
 * wal_record.c - the WAL's byte layout on the writing side: file header, record
 * encoding (docs/formats/wal.md), file names, and the sorted byte-string map the
 * writer and the splitter use to track regions.
 * Thread-safety: pure functions; a wal_map is guarded by its owner.
 */
#include "regionserver/storage/wal_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/crc32c.h"
#include "common/status.h"

void wal_header_encode(const wal_file_header *h, uint8_t out[WAL_FILE_HEADER_LEN])
{
    memcpy(out, WAL_MAGIC, 4);
    be32_put(out + 4, WAL_VERSION);
    be64_put(out + 8, h->number);
    be64_put(out + 16, h->prev_number);
    be64_put(out + 24, h->prev_end);
    be32_put(out + 32, crc32c_value(out, 32));
}

/* Checks e against the format's rules; returns the payload length in *len. */
static int check_edit(const wal_edit *e, size_t *len)
{
    size_t tl = e->table ? strlen(e->table) : 0;
    size_t rl = e->region ? strlen(e->region) : 0;
    if (tl == 0 || tl > UINT16_MAX || rl == 0 || rl > UINT16_MAX)
        return st_error(ST_INVALID_ARGUMENT, "wal edit: table '%s' / region '%s' must be 1..%u bytes",
                        e->table ? e->table : "(null)", e->region ? e->region : "(null)",
                        UINT16_MAX);
    if (e->ncells > UINT32_MAX || (e->ncells && !e->cells))
        return st_error(ST_INVALID_ARGUMENT, "wal edit of %s/%s: bad cell array", e->table,
                        e->region);
    size_t n = 2 + tl + 2 + rl + 8 + 4;
    for (size_t i = 0; i < e->ncells; i++) {
        if (cell_validate(&e->cells[i]) != ST_OK) {
            char why[256];
            snprintf(why, sizeof(why), "%s", st_errmsg());
            return st_error(ST_INVALID_ARGUMENT, "wal edit of %s/%s seq %llu, cell %zu: %s",
                            e->table, e->region, (unsigned long long)e->seq, i, why);
        }
        n += cell_encoded_len(&e->cells[i]);
        if (n > WAL_MAX_PAYLOAD)
            return st_error(ST_INVALID_ARGUMENT,
                            "wal edit of %s/%s seq %llu exceeds the %u-byte record limit",
                            e->table, e->region, (unsigned long long)e->seq, WAL_MAX_PAYLOAD);
    }
    *len = n;
    return ST_OK;
}

/* Writes the payload of e at p (len bytes, from check_edit). */
static void encode_payload(const wal_edit *e, uint8_t *p)
{
    size_t tl = strlen(e->table), rl = strlen(e->region);
    be16_put(p, (uint16_t)tl);
    memcpy(p + 2, e->table, tl);
    p += 2 + tl;
    be16_put(p, (uint16_t)rl);
    memcpy(p + 2, e->region, rl);
    p += 2 + rl;
    be64_put(p, e->seq);
    be32_put(p + 8, (uint32_t)e->ncells);
    p += 12;
    for (size_t i = 0; i < e->ncells; i++) {
        cell_t c = e->cells[i];
        c.seq = e->seq;
        p += cell_encode(&c, p);
    }
}

int wal_record_encode(const wal_edit *e, buf_t *out)
{
    size_t len = 0;
    int rc = check_edit(e, &len);
    if (rc != ST_OK)
        return rc;
    if (buf_reserve(out, WAL_RECORD_HEADER_LEN + len) != ST_OK)
        return st_error(ST_NOMEM, "wal edit of %s/%s: out of memory", e->table, e->region);
    uint8_t *h = out->data + out->len;
    encode_payload(e, h + WAL_RECORD_HEADER_LEN);
    be32_put(h, (uint32_t)len);
    be32_put(h + 4, crc32c_value(h + WAL_RECORD_HEADER_LEN, len));
    be32_put(h + 8, crc32c_value(h, 8));
    out->len += WAL_RECORD_HEADER_LEN + len;
    return ST_OK;
}

void wal_record_peek(const uint8_t *rec, const uint8_t **region, size_t *region_len,
                     uint64_t *seq)
{
    const uint8_t *p = rec + WAL_RECORD_HEADER_LEN;
    p += 2 + be16_get(p);
    *region_len = be16_get(p);
    *region = p + 2;
    *seq = be64_get(p + 2 + *region_len);
}

char *wal_file_path(const char *dir, uint64_t number)
{
    char *s = NULL;
    if (asprintf(&s, "%s/" WAL_FILE_PREFIX "%020llu", dir, (unsigned long long)number) < 0)
        return NULL;
    return s;
}

bool wal_parse_file_name(const char *name, uint64_t *number)
{
    size_t pl = strlen(WAL_FILE_PREFIX);
    if (strncmp(name, WAL_FILE_PREFIX, pl) != 0 || strlen(name) != pl + WAL_NUMBER_DIGITS)
        return false;
    uint64_t v = 0;
    for (const char *p = name + pl; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
        uint64_t d = (uint64_t)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *number = v;
    return true;
}

/* ---- sorted map ---- */

static int key_cmp(const wal_map_ent *e, const void *key, size_t klen)
{
    size_t n = e->klen < klen ? e->klen : klen;
    int r = n ? memcmp(e->key, key, n) : 0;
    if (r)
        return r;
    return e->klen < klen ? -1 : e->klen > klen ? 1 : 0;
}

/* Index of key if present (*found), else where it would be inserted. */
static size_t map_find(const wal_map *m, const void *key, size_t klen, bool *found)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int r = key_cmp(&m->e[mid], key, klen);
        if (r == 0) {
            *found = true;
            return mid;
        }
        if (r < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

wal_map_ent *wal_map_get(const wal_map *m, const void *key, size_t klen)
{
    bool found;
    size_t i = map_find(m, key, klen, &found);
    return found ? &m->e[i] : NULL;
}

wal_map_ent *wal_map_put(wal_map *m, const void *key, size_t klen)
{
    bool found;
    size_t i = map_find(m, key, klen, &found);
    if (found)
        return &m->e[i];
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 8;
        wal_map_ent *ne = realloc(m->e, cap * sizeof(*ne));
        if (!ne)
            return NULL;
        m->e = ne;
        m->cap = cap;
    }
    char *k = malloc(klen + 1);
    if (!k)
        return NULL;
    memcpy(k, key, klen);
    k[klen] = '\0';
    memmove(&m->e[i + 1], &m->e[i], (m->n - i) * sizeof(*m->e));
    m->e[i] = (wal_map_ent){k, klen, 0, NULL};
    m->n++;
    return &m->e[i];
}

void wal_map_del(wal_map *m, wal_map_ent *e)
{
    size_t i = (size_t)(e - m->e);
    free(e->key);
    memmove(&m->e[i], &m->e[i + 1], (m->n - i - 1) * sizeof(*m->e));
    m->n--;
}

void wal_map_free(wal_map *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->e[i].key);
    free(m->e);
    m->e = NULL;
    m->n = m->cap = 0;
}
