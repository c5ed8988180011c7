/*
 * bloom.c - MurmurHash64A, bloom keys, and the bloom section's bitmap
 * (docs/formats/storefile.md, "Bloom section").
 * Thread-safety: pure functions.
 */
#include "regionserver/storage/bloom.h"

#include <string.h>

#include "common/bytes.h"
#include "common/status.h"

#define MURMUR_M 0xc6a4a7935bd1e995ULL
#define MURMUR_R 47

static uint64_t le64_get(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* MurmurHash64A over a key fed in parts; the total length is known up front. */
typedef struct murmur {
    uint64_t h;
    uint8_t chunk[8];
    size_t fill;
} murmur;

static void murmur_init(murmur *s, size_t total)
{
    s->h = BLOOM_HASH_SEED ^ ((uint64_t)total * MURMUR_M);
    s->fill = 0;
}

static void murmur_mix(murmur *s, uint64_t k)
{
    k *= MURMUR_M;
    k ^= k >> MURMUR_R;
    k *= MURMUR_M;
    s->h ^= k;
    s->h *= MURMUR_M;
}

static void murmur_feed(murmur *s, const uint8_t *p, size_t n)
{
    while (n && s->fill) {
        s->chunk[s->fill++] = *p++, n--;
        if (s->fill == 8) {
            murmur_mix(s, le64_get(s->chunk));
            s->fill = 0;
        }
    }
    if (s->fill) /* n == 0: the part ended inside the chunk */
        return;
    for (; n >= 8; p += 8, n -= 8)
        murmur_mix(s, le64_get(p));
    if (n)
        memcpy(s->chunk, p, n);
    s->fill = n;
}

static uint64_t murmur_final(murmur *s)
{
    uint64_t h = s->h;
    if (s->fill) {
        for (size_t i = s->fill; i-- > 0;)
            h ^= (uint64_t)s->chunk[i] << (8 * i);
        h *= MURMUR_M;
    }
    h ^= h >> MURMUR_R;
    h *= MURMUR_M;
    h ^= h >> MURMUR_R;
    return h;
}

uint64_t bloom_hash64(const void *data, size_t n)
{
    murmur s;
    murmur_init(&s, n);
    murmur_feed(&s, data, n);
    return murmur_final(&s);
}

uint64_t bloom_row_hash(const uint8_t *row, size_t row_len)
{
    const uint8_t tag = 'R';
    murmur s;
    murmur_init(&s, 1 + row_len);
    murmur_feed(&s, &tag, 1);
    murmur_feed(&s, row, row_len);
    return murmur_final(&s);
}

uint64_t bloom_column_hash(const uint8_t *row, size_t row_len, const uint8_t *fam, size_t fam_len,
                           const uint8_t *qual, size_t qual_len)
{
    uint8_t head[3] = {'C'};
    be16_put(head + 1, (uint16_t)row_len);
    uint8_t flen = (uint8_t)fam_len;
    murmur s;
    murmur_init(&s, 3 + row_len + 1 + fam_len + qual_len);
    murmur_feed(&s, head, 3);
    murmur_feed(&s, row, row_len);
    murmur_feed(&s, &flen, 1);
    murmur_feed(&s, fam, fam_len);
    murmur_feed(&s, qual, qual_len);
    return murmur_final(&s);
}

static uint64_t probe_delta(uint64_t h)
{
    return (h >> 33) | (h << 31);
}

int bloom_build(const uint64_t *hashes, size_t n, uint8_t type, buf_t *out)
{
    uint64_t m = (uint64_t)n * BLOOM_BITS_PER_KEY;
    if (m < 64)
        m = 64;
    m = (m + 7) / 8 * 8;
    size_t start = out->len;
    if (buf_reserve(out, BLOOM_SECTION_HEADER_LEN + (size_t)(m / 8)) != ST_OK)
        return ST_NOMEM;
    uint8_t *p = out->data + start;
    p[0] = type;
    p[1] = BLOOM_HASH_MURMUR64A;
    p[2] = BLOOM_PROBES;
    p[3] = 0;
    be64_put(p + 4, n);
    be64_put(p + 12, m);
    uint8_t *bits = p + BLOOM_SECTION_HEADER_LEN;
    memset(bits, 0, (size_t)(m / 8));
    for (size_t i = 0; i < n; i++) {
        uint64_t h = hashes[i], delta = probe_delta(h);
        for (int j = 0; j < BLOOM_PROBES; j++, h += delta) {
            uint64_t bit = h % m;
            bits[bit / 8] |= (uint8_t)(1u << (bit % 8));
        }
    }
    out->len += BLOOM_SECTION_HEADER_LEN + (size_t)(m / 8);
    return ST_OK;
}

int bloom_parse(const uint8_t *p, size_t n, bloom_filter *out)
{
    if (n < BLOOM_SECTION_HEADER_LEN)
        return ST_CORRUPTION;
    uint64_t m = be64_get(p + 12);
    if (p[1] != BLOOM_HASH_MURMUR64A || p[2] < 1 || p[2] > 30 || m < 64 || m % 8 ||
        m / 8 != n - BLOOM_SECTION_HEADER_LEN)
        return ST_CORRUPTION;
    out->type = p[0];
    out->k = p[2];
    out->keys = be64_get(p + 4);
    out->m = m;
    out->bitmap = p + BLOOM_SECTION_HEADER_LEN;
    return ST_OK;
}

bool bloom_may_contain(const bloom_filter *b, uint64_t hash)
{
    uint64_t h = hash, delta = probe_delta(hash);
    for (int j = 0; j < b->k; j++, h += delta) {
        uint64_t bit = h % b->m;
        if (!(b->bitmap[bit / 8] & (1u << (bit % 8))))
            return false;
    }
    return true;
}
