/*
 * split_policy.c - HBase's region split policies (see split_policy.h): names, the checks
 * of a table's split settings, the configuration for one region (max file size with its
 * jitter, initial size, key-prefix parameters) and the decisions.
 *
 * The jitter's u is the top 24 bits of the 64-bit FNV-1a hash of the encoded name over
 * 2^24 (HBase's nextFloat() has 24 bits too).
 *
 * Thread-safety: pure functions over caller-owned structs.
 */
#include "regionserver/storage/split_policy.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"

static const char *const POLICY_NAMES[] = {
    [SPLIT_POLICY_STEPPING] = "SteppingSplitPolicy",
    [SPLIT_POLICY_INCREASING_TO_UPPER_BOUND] = "IncreasingToUpperBoundRegionSplitPolicy",
    [SPLIT_POLICY_CONSTANT_SIZE] = "ConstantSizeRegionSplitPolicy",
    [SPLIT_POLICY_KEY_PREFIX] = "KeyPrefixRegionSplitPolicy",
    [SPLIT_POLICY_DELIMITED_KEY_PREFIX] = "DelimitedKeyPrefixRegionSplitPolicy",
    [SPLIT_POLICY_DISABLED] = "DisabledRegionSplitPolicy",
};
#define N_POLICIES (sizeof(POLICY_NAMES) / sizeof(POLICY_NAMES[0]))

void split_defaults_init(split_defaults *d)
{
    d->policy = SPLIT_POLICY_STEPPING;
    d->max_filesize = SPLIT_POLICY_DEFAULT_MAX_FILESIZE;
    d->flushsize = SPLIT_POLICY_DEFAULT_FLUSHSIZE;
    d->initial_size = 0;
    d->jitter = SPLIT_POLICY_DEFAULT_JITTER;
}

const char *split_policy_name(split_policy_kind k)
{
    return (unsigned)k < N_POLICIES ? POLICY_NAMES[k] : "unknown";
}

/* The policy name names (with or without the class prefix), or -1. */
static int policy_index(const char *name)
{
    const char *s = name ? name : "";
    size_t plen = strlen(SPLIT_POLICY_CLASS_PREFIX);
    if (strncmp(s, SPLIT_POLICY_CLASS_PREFIX, plen) == 0)
        s += plen;
    for (size_t i = 0; i < N_POLICIES; i++)
        if (strcmp(s, POLICY_NAMES[i]) == 0)
            return (int)i;
    return -1;
}

/* "unknown <what> '<name>'; use one of ...", after "table '<table>': " when table. */
static int unknown_policy(const char *table, const char *what, const char *name)
{
    char list[400] = "";
    for (size_t i = 0; i < N_POLICIES; i++)
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
                 POLICY_NAMES[i]);
    return st_error(ST_INVALID_ARGUMENT, "%s%s%sunknown %s '%s'; use one of %s",
                    table ? "table '" : "", table ? table : "", table ? "': " : "", what,
                    name ? name : "", list);
}

int split_policy_parse_name(const char *name, split_policy_kind *out)
{
    int i = policy_index(name);
    if (i < 0)
        return unknown_policy(NULL, "split policy", name);
    *out = (split_policy_kind)i;
    return ST_OK;
}

/* ---- parsing the settings ---- */

/* A decimal integer 1..max with nothing around it. */
static bool parse_positive(const char *s, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    if (!*s)
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (max - (uint64_t)(*s - '0')) / 10)
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return v > 0;
}

static bool parse_jitter(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v) || v < 0 || v > SPLIT_POLICY_MAX_JITTER)
        return false;
    *out = v;
    return true;
}

typedef int (*setting_check)(const char *table, const char *where, const char *key, const char *v);

static int check_prefix_length(const char *table, const char *where, const char *key, const char *v)
{
    uint64_t n;
    if (parse_positive(v, INT32_MAX, &n))
        return ST_OK;
    return st_error(ST_INVALID_ARGUMENT, "table '%s': %s %s '%s' must be an integer 1..%d", table,
                    where, key, v, INT32_MAX);
}

static int check_jitter(const char *table, const char *where, const char *key, const char *v)
{
    double j;
    if (parse_jitter(v, &j))
        return ST_OK;
    return st_error(ST_INVALID_ARGUMENT, "table '%s': %s %s '%s' must be a number 0..%g", table,
                    where, key, v, SPLIT_POLICY_MAX_JITTER);
}

static int check_size(const char *table, const char *where, const char *key, const char *v)
{
    uint64_t n;
    if (parse_positive(v, INT64_MAX, &n))
        return ST_OK;
    return st_error(ST_INVALID_ARGUMENT, "table '%s': %s %s '%s' must be a positive integer", table,
                    where, key, v);
}

/* Checks key wherever the table gives it: its value and its configuration entry. */
static int check_both(const table_schema *t, const char *key, setting_check check)
{
    const char *v = table_schema_value(t, key), *c = table_schema_config(t, key);
    int rc = v ? check(t->name, "METADATA", key, v) : ST_OK;
    if (rc == ST_OK && c)
        rc = check(t->name, "CONFIGURATION", key, c);
    return rc;
}

/* The prefix length setting, under either of its keys (NULL when absent). */
static const char *prefix_length_setting(const table_schema *t)
{
    const char *v = table_schema_setting(t, SPLIT_POLICY_PREFIX_LENGTH_KEY);
    return v ? v : table_schema_setting(t, SPLIT_POLICY_PREFIX_LENGTH_KEY_OLD);
}

/* The parameters the table's own choice of policy needs. */
static int check_chosen(const table_schema *t, split_policy_kind k)
{
    if (k == SPLIT_POLICY_KEY_PREFIX && !prefix_length_setting(t))
        return st_error(ST_INVALID_ARGUMENT,
                        "table '%s': SPLIT_POLICY KeyPrefixRegionSplitPolicy needs %s", t->name,
                        SPLIT_POLICY_PREFIX_LENGTH_KEY);
    const char *d = table_schema_setting(t, SPLIT_POLICY_DELIMITER_KEY);
    if (k == SPLIT_POLICY_DELIMITED_KEY_PREFIX && (!d || !*d))
        return st_error(ST_INVALID_ARGUMENT,
                        "table '%s': SPLIT_POLICY DelimitedKeyPrefixRegionSplitPolicy needs a "
                        "non-empty %s",
                        t->name, SPLIT_POLICY_DELIMITER_KEY);
    return ST_OK;
}

int split_policy_validate(const table_schema *t)
{
    const char *name = table_schema_value(t, SCHEMA_SPLIT_POLICY);
    int k = name ? policy_index(name) : SPLIT_POLICY_STEPPING;
    if (k < 0)
        return unknown_policy(t->name, "SPLIT_POLICY", name);
    int rc = check_both(t, SPLIT_POLICY_PREFIX_LENGTH_KEY, check_prefix_length);
    if (rc == ST_OK)
        rc = check_both(t, SPLIT_POLICY_PREFIX_LENGTH_KEY_OLD, check_prefix_length);
    if (rc == ST_OK)
        rc = check_both(t, SPLIT_POLICY_JITTER_KEY, check_jitter);
    if (rc == ST_OK)
        rc = check_both(t, SPLIT_POLICY_INITIAL_SIZE_KEY, check_size);
    if (rc == ST_OK && name)
        rc = check_chosen(t, (split_policy_kind)k);
    return rc;
}

/* ---- configuring a region ---- */

/* u in [0, 1) from the region's encoded name; 0.5 (no jitter) without one. */
static double name_fraction(const char *encoded_name)
{
    if (!encoded_name || !*encoded_name)
        return 0.5;
    uint64_t h = 14695981039346656037ull;
    for (const char *c = encoded_name; *c; c++) {
        h ^= (uint8_t)*c;
        h *= 1099511628211ull;
    }
    return (double)(h >> 40) / (double)(1u << 24);
}

/* HBase's: max + (long)(max * rate), saturating. */
static uint64_t with_jitter(uint64_t max, double rate)
{
    double moved = (double)max * rate;
    if (moved >= 0) {
        uint64_t up = moved >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)moved;
        return up > UINT64_MAX - max ? UINT64_MAX : max + up;
    }
    uint64_t down = (uint64_t)-moved;
    return down >= max ? 1 : max - down;
}

static uint64_t times_two(uint64_t v)
{
    return v > UINT64_MAX / 2 ? UINT64_MAX : 2 * v;
}

static void configure_sizes(const table_schema *t, const split_defaults *d,
                            const char *encoded_name, split_policy *out)
{
    uint64_t max = t->max_filesize ? t->max_filesize : d->max_filesize;
    if (max == 0)
        max = SPLIT_POLICY_DEFAULT_MAX_FILESIZE;
    double jitter = d->jitter;
    const char *j = table_schema_setting(t, SPLIT_POLICY_JITTER_KEY);
    if (j)
        parse_jitter(j, &jitter);
    out->jitter_rate = (name_fraction(encoded_name) - 0.5) * jitter;
    out->desired_max_filesize = with_jitter(max, out->jitter_rate);

    uint64_t initial = 0;
    const char *i = table_schema_setting(t, SPLIT_POLICY_INITIAL_SIZE_KEY);
    if (!i || !parse_positive(i, INT64_MAX, &initial))
        initial = d->initial_size;
    if (initial == 0) {
        uint64_t flush = t->memstore_flushsize ? t->memstore_flushsize : d->flushsize;
        initial = times_two(flush ? flush : SPLIT_POLICY_DEFAULT_FLUSHSIZE);
    }
    out->initial_size = initial;
}

/* The key-prefix parameters; a missing one leaves split points whole (as HBase does). */
static void configure_prefix(const table_schema *t, split_policy *out)
{
    uint64_t n = 0;
    const char *v = prefix_length_setting(t);
    if (out->kind == SPLIT_POLICY_KEY_PREFIX && v && parse_positive(v, INT32_MAX, &n))
        out->prefix_length = (size_t)n;
    const char *d = table_schema_setting(t, SPLIT_POLICY_DELIMITER_KEY);
    if (out->kind == SPLIT_POLICY_DELIMITED_KEY_PREFIX && d) {
        out->delimiter_len = strlen(d) < sizeof(out->delimiter) ? strlen(d) : 0;
        memcpy(out->delimiter, d, out->delimiter_len);
    }
}

int split_policy_configure(const table_schema *t, const split_defaults *d, const char *encoded_name,
                           split_policy *out)
{
    memset(out, 0, sizeof(*out));
    int rc = split_policy_validate(t);
    if (rc != ST_OK)
        return rc;
    const char *name = table_schema_value(t, SCHEMA_SPLIT_POLICY);
    out->kind = name ? (split_policy_kind)policy_index(name) : d->policy;
    configure_sizes(t, d, encoded_name, out);
    configure_prefix(t, out);
    return ST_OK;
}

/* ---- decisions ---- */

/* HBase's IncreasingToUpperBound: min(max, initial * n^3), max for n 0 or past 100. */
static uint64_t increasing_size(const split_policy *p, unsigned n)
{
    uint64_t max = p->desired_max_filesize;
    if (n == 0 || n > 100)
        return max;
    uint64_t cube = (uint64_t)n * n * n;
    if (p->initial_size > max / cube)
        return max;
    return p->initial_size * cube < max ? p->initial_size * cube : max;
}

uint64_t split_policy_size_to_check(const split_policy *p, unsigned table_regions_on_server)
{
    switch (p->kind) {
    case SPLIT_POLICY_STEPPING:
        return table_regions_on_server == 1 ? p->initial_size : p->desired_max_filesize;
    case SPLIT_POLICY_CONSTANT_SIZE:
        return p->desired_max_filesize;
    case SPLIT_POLICY_INCREASING_TO_UPPER_BOUND:
    case SPLIT_POLICY_KEY_PREFIX:
    case SPLIT_POLICY_DELIMITED_KEY_PREFIX:
        return increasing_size(p, table_regions_on_server);
    case SPLIT_POLICY_DISABLED:
    default:
        return UINT64_MAX;
    }
}

bool split_policy_should_split(const split_policy *p, unsigned table_regions_on_server,
                               const uint64_t *store_sizes, size_t nstores, bool has_references)
{
    if (!split_policy_allows_split(p) || has_references)
        return false;
    uint64_t size = split_policy_size_to_check(p, table_regions_on_server);
    for (size_t i = 0; i < nstores; i++)
        if (store_sizes[i] > size)
            return true;
    return false;
}

size_t split_policy_adjust_point(const split_policy *p, const uint8_t *row, size_t len)
{
    if (p->kind == SPLIT_POLICY_KEY_PREFIX && p->prefix_length > 0)
        return len < p->prefix_length ? len : p->prefix_length;
    if (p->kind != SPLIT_POLICY_DELIMITED_KEY_PREFIX || p->delimiter_len == 0)
        return len;
    for (size_t i = 0; i + p->delimiter_len <= len; i++)
        if (memcmp(row + i, p->delimiter, p->delimiter_len) == 0)
            return i;
    return len;
}

bool split_policy_allows_split(const split_policy *p)
{
    return p->kind != SPLIT_POLICY_DISABLED;
}
