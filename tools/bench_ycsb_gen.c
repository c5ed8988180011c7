/*
 * bench_ycsb_gen.c - what YCSB's CoreWorkload draws from (bench_ycsb.h): keys, the number
 * generators of site.ycsb.generator, the acknowledged insert counter, the operation
 * chooser, and the table of workloads/workloada..f.
 *
 * Each generator is YCSB's, formula for formula (including ZipfianGenerator's eta, which
 * YCSB recomputes with the item count it was made with, not the grown one); only the
 * random source differs (xoshiro256** instead of java.util.Random). Degenerate sizes
 * YCSB would divide by zero on (a hot or cold set of no items, a zipfian over one item)
 * return the only possible item instead.
 *
 * Thread-safety: see bench_ycsb.h; only the ycsb_ack_counter is shared, under its mutex.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/status.h"
#include "tools/bench_ycsb.h"

/* ---- random numbers, keys ---- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void ycsb_rng_seed(ycsb_rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t ycsb_rng_next(ycsb_rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

double ycsb_rng_double(ycsb_rng *r)
{
    return (double)(ycsb_rng_next(r) >> 11) * 0x1.0p-53;
}

uint64_t ycsb_rng_below(ycsb_rng *r, uint64_t n)
{
    /* Lemire's multiply-shift, with the rejection that makes it exact. */
    unsigned __int128 m = (unsigned __int128)ycsb_rng_next(r) * n;
    uint64_t low = (uint64_t)m;
    if (low < n) {
        uint64_t floor = -n % n;
        while (low < floor) {
            m = (unsigned __int128)ycsb_rng_next(r) * n;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

#define FNV_OFFSET_BASIS_64 0xCBF29CE484222325ull
#define FNV_PRIME_64 1099511628211ull

int64_t ycsb_fnvhash64(int64_t val)
{
    uint64_t h = FNV_OFFSET_BASIS_64, v = (uint64_t)val;
    for (int i = 0; i < 8; i++) {
        h ^= v & 0xff;
        h *= FNV_PRIME_64;
        v >>= 8;
    }
    /* Java's Math.abs: two's complement negation, INT64_MIN stays. */
    return (int64_t)h < 0 ? (int64_t)(0 - h) : (int64_t)h;
}

size_t ycsb_key_ordered(int64_t keynum, int zeropadding, char *out)
{
    int n = snprintf(out, YCSB_KEY_MAX, "user%0*lld", zeropadding, (long long)keynum);
    return n > 0 && n < YCSB_KEY_MAX ? (size_t)n : 0;
}

size_t ycsb_key(int64_t keynum, char *out)
{
    int n = snprintf(out, YCSB_KEY_MAX, "user%lld", (long long)ycsb_fnvhash64(keynum));
    return (size_t)n;
}

/* ---- ZipfianGenerator ---- */

double ycsb_zeta(int64_t st, int64_t n, double theta, double initial)
{
    double sum = initial;
    for (int64_t i = st; i < n; i++)
        sum += 1 / pow((double)(i + 1), theta);
    return sum;
}

void ycsb_zipf_init(ycsb_zipf *z, int64_t min, int64_t max, double theta, double zetan)
{
    memset(z, 0, sizeof(*z));
    z->items = max - min + 1;
    z->base = min;
    z->theta = theta;
    z->zeta2theta = ycsb_zeta(0, 2, theta, 0);
    z->alpha = 1.0 / (1.0 - theta);
    z->zetan = zetan > 0 ? zetan : ycsb_zeta(0, z->items, theta, 0);
    z->countforzeta = z->items;
    z->eta = (1 - pow(2.0 / (double)z->items, 1 - theta)) / (1 - z->zeta2theta / z->zetan);
}

int64_t ycsb_zipf_next_n(ycsb_zipf *z, ycsb_rng *r, int64_t itemcount)
{
    if (itemcount <= 1)
        return z->base;
    if (itemcount > z->countforzeta) {
        /* More items: zeta grows incrementally (YCSB keeps eta's 2/items). */
        z->zetan = ycsb_zeta(z->countforzeta, itemcount, z->theta, z->zetan);
        z->countforzeta = itemcount;
        z->eta = (1 - pow(2.0 / (double)z->items, 1 - z->theta)) / (1 - z->zeta2theta / z->zetan);
    }
    double u = ycsb_rng_double(r);
    double uz = u * z->zetan;
    if (uz < 1.0)
        return z->base;
    if (uz < 1.0 + pow(0.5, z->theta))
        return z->base + 1;
    return z->base + (int64_t)((double)itemcount * pow(z->eta * u - z->eta + 1, z->alpha));
}

int64_t ycsb_zipf_next(ycsb_zipf *z, ycsb_rng *r)
{
    return ycsb_zipf_next_n(z, r, z->items);
}

void ycsb_scrambled_init(ycsb_scrambled *s, int64_t min, int64_t max)
{
    s->min = min;
    s->itemcount = max - min + 1;
    ycsb_zipf_init(&s->z, 0, YCSB_SCRAMBLED_ITEM_COUNT, YCSB_ZIPFIAN_CONSTANT,
                   YCSB_SCRAMBLED_ZETAN);
}

int64_t ycsb_scrambled_next(ycsb_scrambled *s, ycsb_rng *r)
{
    int64_t v = ycsb_zipf_next(&s->z, r);
    return s->min + ycsb_fnvhash64(v) % s->itemcount;
}

/* ---- HotspotIntegerGenerator, SkewedLatestGenerator ---- */

void ycsb_hotspot_init(ycsb_hotspot *h, int64_t lower, int64_t upper, double hot_data,
                       double hot_ops)
{
    int64_t interval = upper - lower + 1;
    h->lower = lower;
    h->hot = (int64_t)((double)interval * hot_data);
    h->cold = interval - h->hot;
    h->hot_ops = hot_ops;
}

int64_t ycsb_hotspot_next(ycsb_hotspot *h, ycsb_rng *r)
{
    bool hot = ycsb_rng_double(r) < h->hot_ops;
    if (h->cold <= 0 || (hot && h->hot > 0))
        return h->lower + (int64_t)ycsb_rng_below(r, (uint64_t)(h->hot > 0 ? h->hot : 1));
    return h->lower + h->hot + (int64_t)ycsb_rng_below(r, (uint64_t)h->cold);
}

int64_t ycsb_latest_next(ycsb_zipf *z, ycsb_rng *r, int64_t last)
{
    return last - ycsb_zipf_next_n(z, r, last);
}

/* ---- AcknowledgedCounterGenerator ---- */

int ycsb_ack_init(ycsb_ack_counter *c, int64_t start)
{
    atomic_init(&c->next, start);
    atomic_init(&c->limit, start - 1);
    c->window = calloc(YCSB_ACK_WINDOW, sizeof(bool));
    if (!c->window)
        return st_error(ST_NOMEM, "ycsb: out of memory for the insert window");
    pthread_mutex_init(&c->mu, NULL);
    return ST_OK;
}

void ycsb_ack_free(ycsb_ack_counter *c)
{
    if (!c->window)
        return;
    pthread_mutex_destroy(&c->mu);
    free(c->window);
    c->window = NULL;
}

int64_t ycsb_ack_next(ycsb_ack_counter *c)
{
    return atomic_fetch_add(&c->next, 1);
}

int ycsb_ack_acknowledge(ycsb_ack_counter *c, int64_t value)
{
    const int64_t mask = YCSB_ACK_WINDOW - 1;
    int rc = ST_OK;
    pthread_mutex_lock(&c->mu);
    if (c->window[value & mask]) {
        rc = st_error(ST_INTERNAL, "ycsb: too many unacknowledged insertion keys");
    } else {
        c->window[value & mask] = true;
        int64_t limit = atomic_load(&c->limit);
        int64_t before_first = limit & mask, i;
        for (i = limit + 1; (i & mask) != before_first; i++) {
            if (!c->window[i & mask])
                break;
            c->window[i & mask] = false;
        }
        atomic_store(&c->limit, i - 1);
    }
    pthread_mutex_unlock(&c->mu);
    return rc;
}

int64_t ycsb_ack_last(ycsb_ack_counter *c)
{
    return atomic_load(&c->limit);
}

/* ---- operations, distributions, workloads ---- */

static const char *const op_names[YCSB_OPS] = {"READ", "UPDATE", "INSERT", "SCAN",
                                               "READ-MODIFY-WRITE"};
static const char *const dist_names[YCSB_DISTS] = {"uniform", "zipfian", "latest", "hotspot"};

const char *ycsb_op_name(ycsb_op op)
{
    return op >= 0 && op < YCSB_OPS ? op_names[op] : "?";
}

const char *ycsb_dist_name(ycsb_dist d)
{
    return d >= 0 && d < YCSB_DISTS ? dist_names[d] : "?";
}

int ycsb_dist_parse(const char *s, ycsb_dist *out)
{
    for (int i = 0; s && i < YCSB_DISTS; i++)
        if (strcmp(s, dist_names[i]) == 0) {
            *out = (ycsb_dist)i;
            return ST_OK;
        }
    return st_error(ST_INVALID_ARGUMENT,
                    "unknown request distribution '%s' (uniform, zipfian, latest, hotspot)",
                    s ? s : "");
}

/* workloads/workloada..f; every one reads all fields and inserts in hashed order. */
static const ycsb_workload workloads[] = {
    /*       READ   UPDATE INSERT SCAN  RMW */
    {"a", {0.50, 0.50, 0, 0, 0}, YCSB_ZIPFIAN, 1, 1000},
    {"b", {0.95, 0.05, 0, 0, 0}, YCSB_ZIPFIAN, 1, 1000},
    {"c", {1.00, 0, 0, 0, 0}, YCSB_ZIPFIAN, 1, 1000},
    {"d", {0.95, 0, 0.05, 0, 0}, YCSB_LATEST, 1, 1000},
    {"e", {0, 0, 0.05, 0.95, 0}, YCSB_ZIPFIAN, 1, 100},
    {"f", {0.50, 0, 0, 0, 0.50}, YCSB_ZIPFIAN, 1, 1000},
};

int ycsb_workload_lookup(const char *name, ycsb_workload *out)
{
    const char *n = name ? name : "";
    if (strncasecmp(n, "workload", 8) == 0)
        n += 8;
    for (size_t i = 0; strlen(n) == 1 && i < sizeof(workloads) / sizeof(workloads[0]); i++)
        if (strcasecmp(n, workloads[i].name) == 0) {
            *out = workloads[i];
            return ST_OK;
        }
    return st_error(ST_INVALID_ARGUMENT, "unknown workload '%s' (a, b, c, d, e, f)",
                    name ? name : "");
}

void ycsb_opchooser_init(ycsb_opchooser *c, const ycsb_workload *w)
{
    c->sum = 0;
    for (int i = 0; i < YCSB_OPS; i++) {
        c->prop[i] = w->prop[i] > 0 ? w->prop[i] : 0;
        c->sum += c->prop[i];
    }
}

ycsb_op ycsb_opchooser_next(const ycsb_opchooser *c, ycsb_rng *r)
{
    double val = ycsb_rng_double(r) * c->sum;
    int last = YCSB_READ;
    for (int i = 0; i < YCSB_OPS; i++) {
        if (c->prop[i] <= 0)
            continue;
        if (val < c->prop[i])
            return (ycsb_op)i;
        val -= c->prop[i];
        last = i;
    }
    return (ycsb_op)last; /* rounding at the very top */
}

void ycsb_chooser_init(ycsb_chooser *c, ycsb_dist dist, int64_t recordcount, int64_t operationcount,
                       double insert_prop, double hot_data, double hot_ops)
{
    memset(c, 0, sizeof(*c));
    c->dist = dist;
    c->lo = 0;
    c->hi = recordcount - 1;
    switch (dist) {
    case YCSB_ZIPFIAN: {
        int64_t expected = (int64_t)((double)operationcount * insert_prop * 2.0);
        ycsb_scrambled_init(&c->scrambled, 0, recordcount + expected);
        break;
    }
    case YCSB_LATEST:
        /* new ZipfianGenerator(basis.lastValue()): items 0..recordcount-2 */
        ycsb_zipf_init(&c->latest, 0, recordcount > 1 ? recordcount - 2 : 0, YCSB_ZIPFIAN_CONSTANT,
                       0);
        break;
    case YCSB_HOTSPOT:
        ycsb_hotspot_init(&c->hotspot, 0, recordcount - 1, hot_data, hot_ops);
        break;
    default:
        break;
    }
}

static int64_t draw(ycsb_chooser *c, ycsb_rng *r, int64_t last)
{
    switch (c->dist) {
    case YCSB_ZIPFIAN:
        return ycsb_scrambled_next(&c->scrambled, r);
    case YCSB_LATEST:
        return ycsb_latest_next(&c->latest, r, last);
    case YCSB_HOTSPOT:
        return ycsb_hotspot_next(&c->hotspot, r);
    default:
        return c->lo + (int64_t)ycsb_rng_below(r, (uint64_t)(c->hi - c->lo + 1));
    }
}

int64_t ycsb_chooser_next(ycsb_chooser *c, ycsb_rng *r, int64_t last)
{
    int64_t k = 0;
    for (int i = 0; i < YCSB_REDRAWS; i++) {
        k = draw(c, r, last);
        if (k <= last && k >= 0)
            return k;
    }
    return last >= 0 ? (k < 0 ? -(k + 1) : k) % (last + 1) : 0;
}
