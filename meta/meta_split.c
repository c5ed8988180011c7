/*
 * meta_split.c - names and keys derived without touching the meta region: region row
 * keys, encoded region names (MD5 through OpenSSL's EVP interface, as HBase), the
 * split points of a pre-split table (HBase's HexStringSplit and UniformSplit), and the
 * region/table state names stored in meta (docs/formats/meta.md).
 *
 * Thread-safety: pure functions.
 */
#include "meta/meta_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "common/bytes.h"
#include "common/log.h"
#include "common/status.h"

/* A table pre-split into more regions than this is refused (the master would hold
 * every split key and region row in memory at once). */
#define SPLIT_MAX_REGIONS 100000u

/* ---------------------------------------------------------------- states */

static const char *const region_state_names[] = {
    [META_OFFLINE] = "OFFLINE", [META_OPENING] = "OPENING", [META_OPEN] = "OPEN",
    [META_CLOSING] = "CLOSING", [META_CLOSED] = "CLOSED",   [META_FAILED_OPEN] = "FAILED_OPEN",
};

static const char *const table_state_names[] = {
    [META_TABLE_ENABLED] = "ENABLED",
    [META_TABLE_DISABLED] = "DISABLED",
    [META_TABLE_ENABLING] = "ENABLING",
    [META_TABLE_DISABLING] = "DISABLING",
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

const char *meta_region_state_name(meta_region_state s)
{
    return (unsigned)s < NELEM(region_state_names) ? region_state_names[s] : "UNKNOWN";
}

int meta_region_state_parse(const char *s, meta_region_state *out)
{
    for (size_t i = 0; s && i < NELEM(region_state_names); i++)
        if (strcmp(s, region_state_names[i]) == 0) {
            *out = (meta_region_state)i;
            return ST_OK;
        }
    return st_error(ST_INVALID_ARGUMENT, "unknown region state '%s'", s ? s : "(null)");
}

const char *meta_table_state_name(meta_table_state s)
{
    return (unsigned)s < NELEM(table_state_names) ? table_state_names[s] : "UNKNOWN";
}

bool meta_table_state_wants_open(meta_table_state s)
{
    return s == META_TABLE_ENABLED || s == META_TABLE_ENABLING;
}

int meta_table_state_parse(const char *s, meta_table_state *out)
{
    for (size_t i = 0; s && i < NELEM(table_state_names); i++)
        if (strcmp(s, table_state_names[i]) == 0) {
            *out = (meta_table_state)i;
            return ST_OK;
        }
    return st_error(ST_INVALID_ARGUMENT, "unknown table state '%s'", s ? s : "(null)");
}

/* ---------------------------------------------------------------- names */

uint8_t *meta_region_row(const char *table, const uint8_t *start, size_t start_len,
                         uint64_t region_id, size_t *len)
{
    char id[24];
    int idlen = snprintf(id, sizeof(id), "%" PRIu64, region_id);
    size_t tlen = strlen(table);
    size_t n = tlen + 1 + start_len + 1 + (size_t)idlen;
    uint8_t *row = malloc(n);
    if (!row) {
        *len = 0;
        return NULL;
    }
    memcpy(row, table, tlen);
    row[tlen] = ',';
    if (start_len)
        memcpy(row + tlen + 1, start, start_len);
    row[tlen + 1 + start_len] = ',';
    memcpy(row + tlen + 2 + start_len, id, (size_t)idlen);
    *len = n;
    return row;
}

void meta_encoded_name(const char *table, const uint8_t *start, size_t start_len,
                       uint64_t region_id, char out[33])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    size_t len = 0;
    uint8_t *row = meta_region_row(table, start, start_len, region_id, &len);
    if (!row || !EVP_Digest(row, len, md, &mdlen, EVP_md5(), NULL) || mdlen != 16) {
        /* Only out of memory or an OpenSSL without MD5 (FIPS-only) gets here. */
        LOG_ERROR("meta: cannot compute the MD5 name of a region of %s", table);
        memset(md, 0, 16);
    }
    for (int i = 0; i < 16; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[32] = '\0';
    free(row);
}

/* ---------------------------------------------------------------- split keys */

void meta_keys_free(uint8_t **keys, size_t *lens, size_t n)
{
    for (size_t i = 0; keys && i < n; i++)
        free(keys[i]);
    free(keys);
    free(lens);
}

/* HBase's HexStringSplit (RegionSplitter, 2.x releases): the range 00000000..FFFFFFFF
 * (size 0xFFFFFFFF) cut in n equal steps of floor(size / n); key i is i steps from
 * 00000000, as 8 lower-case hex digits, zero padded. The last region gets the slop. */
static void hex_key(unsigned n, unsigned i, uint8_t *key, size_t *len)
{
    uint64_t step = 0xFFFFFFFFull / n;
    char tmp[24];
    snprintf(tmp, sizeof(tmp), "%08" PRIx64, step * i);
    memcpy(key, tmp, 8);
    *len = 8;
}

/* HBase's DecimalStringSplit (RegionSplitter.NumberStringSplit, radix 10): the range
 * 00000000..99999999 (10^8 values) cut in n equal steps of floor(10^8 / n); key i is i
 * steps from 00000000, as 8 decimal digits, zero padded. The last region gets the slop. */
static void decimal_key(unsigned n, unsigned i, uint8_t *key, size_t *len)
{
    uint64_t step = 100000000ull / n;
    char tmp[24];
    snprintf(tmp, sizeof(tmp), "%08" PRIu64, step * i);
    memcpy(key, tmp, 8);
    *len = 8;
}

/* UniformSplit: the 8-byte key space [00..00, FF..FF] (2^64 values) cut in n equal
 * steps of floor(2^64 / n); key i is i steps, 8 bytes big-endian. HBase computes the
 * same values through BigInteger but may drop leading zero bytes; Strata keeps all 8
 * so that the keys sort as the numbers do. */
static void uniform_key(unsigned n, unsigned i, uint8_t *key, size_t *len)
{
    uint64_t step = UINT64_MAX / n + (UINT64_MAX % n == n - 1 ? 1 : 0); /* 2^64 / n */
    be64_put(key, step * i);
    *len = 8;
}

int meta_split_keys(const char *algo, unsigned n, uint8_t ***keys, size_t **lens)
{
    *keys = NULL;
    *lens = NULL;
    void (*gen)(unsigned, unsigned, uint8_t *, size_t *) = NULL;
    if (algo && strcmp(algo, "HexStringSplit") == 0)
        gen = hex_key;
    else if (algo && strcmp(algo, "DecimalStringSplit") == 0)
        gen = decimal_key;
    else if (algo && strcmp(algo, "UniformSplit") == 0)
        gen = uniform_key;
    if (!gen)
        return st_error(ST_INVALID_ARGUMENT,
                        "unknown split algorithm '%s' (HexStringSplit, DecimalStringSplit or "
                        "UniformSplit)",
                        algo ? algo : "(null)");
    if (n < 1 || n > SPLIT_MAX_REGIONS)
        return st_error(ST_INVALID_ARGUMENT, "%s: %u regions is out of range 1..%u", algo, n,
                        SPLIT_MAX_REGIONS);
    if (n == 1)
        return ST_OK;
    uint8_t **k = calloc(n - 1, sizeof(*k));
    size_t *l = calloc(n - 1, sizeof(*l));
    int rc = k && l ? ST_OK : ST_NOMEM;
    for (unsigned i = 1; i < n && rc == ST_OK; i++) {
        k[i - 1] = malloc(8);
        if (!k[i - 1])
            rc = ST_NOMEM;
        else
            gen(n, i, k[i - 1], &l[i - 1]);
    }
    if (rc != ST_OK) {
        meta_keys_free(k, l, k ? n - 1 : 0);
        return rc;
    }
    *keys = k;
    *lens = l;
    return ST_OK;
}
