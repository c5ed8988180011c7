/*
 * verify_internal.h - what the verifiers share (tools/verify_common.c): the run's own
 * client and admin handles on a cluster, a table created if missing and waited for until
 * every region is open, and small helpers (random numbers, monotonic sleeps, error
 * messages kept under a lock).
 *
 * Thread-safety: verify_conn_open/close and verify_ensure_table run on the thread that
 * drives the run; the client and its tables are then shared by the run's threads
 * (strata.h allows it); verify_rng belongs to one thread.
 */
#ifndef STRATA_TOOLS_VERIFY_INTERNAL_H
#define STRATA_TOOLS_VERIFY_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strata/admin.h"
#include "strata/strata.h"

#define VERIFY_NAME_MAX 256

typedef struct verify_conn {
    char quorum[VERIFY_NAME_MAX], parent[VERIFY_NAME_MAX], table[VERIFY_NAME_MAX];
    strata_admin_t *admin;
    strata_client_t *client;
    strata_table_t *t;
} verify_conn;

/* Opens an admin handle and a client on quorum (parent NULL or "": /strata) and the
 * handle of table. ST_OK, or a status with c holding nothing (verify_conn_close is
 * still safe). */
int verify_conn_open(verify_conn *c, const char *quorum, const char *parent, const char *table);
void verify_conn_close(verify_conn *c);

/* Creates c's table if it does not exist, with the families (each a NUL-terminated
 * name) and the split keys (n of them, lens[i] bytes each; only for a new table), then
 * waits until each of its regions is open on a server. *created (may be NULL) tells
 * whether it was made. ST_OK, or the failure (ST_TIMEOUT after VERIFY_TABLE_WAIT_MS). */
#define VERIFY_TABLE_WAIT_MS 60000
int verify_ensure_table(verify_conn *c, const char *const *families, size_t nfamilies,
                        const char *const *keys, const size_t *lens, size_t n, bool *created);

/* xoshiro256** seeded through splitmix64: one per thread. */
typedef struct verify_rng {
    uint64_t s[4];
} verify_rng;

/* seed 0: from the clock, the pid and stream. */
void verify_rng_seed(verify_rng *r, uint64_t seed, uint64_t stream);
uint64_t verify_rng_next(verify_rng *r);

/* Sleeps ms milliseconds, in slices of at most 50 ms, returning early once *stop (may
 * be NULL) is true. */
void verify_sleep_ms(int64_t ms, const _Atomic bool *stop);

#endif
