/*
 * verify_common.c - the verifiers' shared parts (verify_internal.h): the cluster
 * handles, the table created and waited for, the random numbers and sleeps.
 *
 * Thread-safety: see verify_internal.h.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/status.h"
#include "tools/verify_internal.h"

#define DDL_TIMEOUT_MS 60000
#define POLL_MS 100
#define SLICE_MS 50

int verify_conn_open(verify_conn *c, const char *quorum, const char *parent, const char *table)
{
    memset(c, 0, sizeof(*c));
    if (!quorum || !quorum[0])
        return st_error(ST_INVALID_ARGUMENT, "no ZooKeeper quorum given");
    snprintf(c->quorum, sizeof(c->quorum), "%s", quorum);
    snprintf(c->parent, sizeof(c->parent), "%s", parent ? parent : "");
    snprintf(c->table, sizeof(c->table), "%s", table);
    char *err = NULL;
    const char *p = c->parent[0] ? c->parent : NULL;
    c->admin = strata_admin_open(c->quorum, p, &err);
    strata_options_t *o = c->admin ? strata_options_create() : NULL;
    if (o) {
        strata_options_set_zk_quorum(o, c->quorum);
        if (p)
            strata_options_set_zk_parent(o, p);
        c->client = strata_client_open(o, &err);
        strata_options_destroy(o);
    }
    int rc = ST_OK;
    if (err)
        rc = st_error(ST_INVALID_ARGUMENT, "cluster %s: %s", c->quorum, err);
    else if (!c->admin || !c->client || !(c->t = strata_table_open(c->client, c->table)))
        rc = st_error(ST_NOMEM, "out of memory opening the cluster's handles");
    strata_free(err);
    if (rc != ST_OK)
        verify_conn_close(c);
    else
        strata_admin_set_timeout_ms(c->admin, DDL_TIMEOUT_MS);
    return rc;
}

void verify_conn_close(verify_conn *c)
{
    strata_table_close(c->t);
    strata_client_close(c->client);
    strata_admin_close(c->admin);
    c->t = NULL;
    c->client = NULL;
    c->admin = NULL;
}

static int create_table(verify_conn *c, const char *const *families, size_t nfamilies,
                        const char *const *keys, const size_t *lens, size_t n)
{
    char *err = NULL;
    int rc = ST_OK;
    strata_table_descriptor_t *td = strata_table_descriptor_create(c->table);
    for (size_t i = 0; td && i < nfamilies; i++)
        if (!strata_table_descriptor_add_family(td, families[i]))
            rc = st_error(ST_NOMEM, "out of memory for the descriptor of %s", c->table);
    if (!td)
        rc = st_error(ST_NOMEM, "out of memory for the descriptor of %s", c->table);
    if (rc == ST_OK)
        strata_admin_create_table(c->admin, td, keys, lens, n, &err);
    if (err && strata_error_code(err) != STRATA_ERR_EXISTS)
        rc = st_error(ST_IO, "creating table %s: %s", c->table, err);
    strata_free(err);
    strata_table_descriptor_destroy(td);
    return rc;
}

/* Whether every region of the table is open on a server. */
static bool table_open(verify_conn *c, char **err)
{
    strata_region_list_t *l = strata_admin_table_regions(c->admin, c->table, err);
    size_t n = l ? strata_region_list_count(l) : 0;
    bool ok = n > 0;
    for (size_t i = 0; ok && i < n; i++) {
        const strata_region_t *r = strata_region_list_get(l, i);
        ok = strata_region_state_of(r) == STRATA_REGION_OPEN && strata_region_server(r);
    }
    strata_region_list_destroy(l);
    return ok;
}

int verify_ensure_table(verify_conn *c, const char *const *families, size_t nfamilies,
                        const char *const *keys, const size_t *lens, size_t n, bool *created)
{
    char *err = NULL;
    if (created)
        *created = false;
    unsigned char exists = strata_admin_table_exists(c->admin, c->table, &err);
    int rc = err ? st_error(ST_IO, "table %s: %s", c->table, err) : ST_OK;
    strata_free(err);
    err = NULL;
    if (rc == ST_OK && !exists) {
        rc = create_table(c, families, nfamilies, keys, lens, n);
        if (rc == ST_OK && created)
            *created = true;
    }
    uint64_t end = clock_mono_ns() + (uint64_t)VERIFY_TABLE_WAIT_MS * 1000000ull;
    while (rc == ST_OK && !table_open(c, &err)) {
        if (clock_mono_ns() > end) {
            rc = st_error(ST_TIMEOUT, "table %s: its regions were not all open within %d ms%s%s",
                          c->table, VERIFY_TABLE_WAIT_MS, err ? ": " : "", err ? err : "");
            break;
        }
        strata_free(err);
        err = NULL;
        clock_sleep_ms(POLL_MS);
    }
    strata_free(err);
    return rc;
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void verify_rng_seed(verify_rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x =
        seed ? seed
             : clock_mono_ns() ^ ((uint64_t)clock_now_ms() << 20) ^ ((uint64_t)getpid() << 40);
    x ^= 0xD1B54A32D192ED03ull * (stream + 1);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t verify_rng_next(verify_rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

void verify_sleep_ms(int64_t ms, const _Atomic bool *stop)
{
    while (ms > 0 && !(stop && atomic_load(stop))) {
        int64_t d = ms < SLICE_MS ? ms : SLICE_MS;
        clock_sleep_ms(d);
        ms -= d;
    }
}
