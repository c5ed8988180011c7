/*
 * rest_scanners.h - the REST gateway's open scanners (rest_scanners.c): each a client
 * scanner of a table, found by an id that PUT /<table>/scanner returned, used by one
 * request at a time, expired when idle for rest.scanner.idle.timeout.ms, and bounded by
 * rest.scanner.max (a new scanner past it expires the least recently used). Ids of the
 * last expired scanners are remembered so that a late request gets 410 Gone rather than
 * 404.
 *
 * Thread-safety: every call from any thread (one mutex); an entry taken with
 * rest_scanners_take belongs to the taker until rest_scanners_give.
 */
#ifndef STRATA_REST_REST_SCANNERS_H
#define STRATA_REST_REST_SCANNERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strata/strata.h"

struct rest_server;
typedef struct rest_scanners rest_scanners;

#define REST_SCANNER_ID_LEN 24 /* hex digits */

/* An open scanner. The fields below `lock` belong to the request that took it. */
typedef struct rest_scanner {
    char id[REST_SCANNER_ID_LEN + 1];
    char *table;
    strata_scanner_t *sc;
    int32_t batch;            /* cells per GET (0: whole rows, up to rest.max.rows) */
    strata_result_t *pending; /* a row read but not all sent */
    size_t pending_cell;      /* its first unsent cell */
    bool exhausted;
    /* registry bookkeeping (under the registry's lock) */
    bool busy;
    bool doomed; /* deleted or expired while busy: closed when given back */
    int64_t last_used_ms;
    struct rest_scanner *lru_prev, *lru_next, *hnext;
} rest_scanner;

/* What rest_scanners_take found. */
typedef enum rest_scanner_lookup {
    REST_SCANNER_FOUND = 0,
    REST_SCANNER_UNKNOWN,  /* no such id (404) */
    REST_SCANNER_EXPIRED,  /* it expired (410) */
    REST_SCANNER_BUSY,     /* another request is using it (409) */
    REST_SCANNER_OTHER_TABLE,
} rest_scanner_lookup;

int rest_scanners_new(struct rest_server *s, rest_scanners **out);
/* Closes every scanner and frees r. NULL: no-op. */
void rest_scanners_free(rest_scanners *r);
/* Registers sc (taken; closed with the entry) for table with batch; writes the new id to
 * id (REST_SCANNER_ID_LEN + 1 bytes). Past the limit the least recently used idle scanner
 * expires first. ST_OK, or ST_NOMEM (sc closed). */
int rest_scanners_add(rest_scanners *r, const char *table, strata_scanner_t *sc, int32_t batch,
                      char *id);
/* Takes scanner id of table for one request (marks it busy): the entry, or NULL with
 * *why. */
rest_scanner *rest_scanners_take(rest_scanners *r, const char *table, const char *id,
                                 rest_scanner_lookup *why);
/* Gives a taken scanner back (done: it is exhausted or failed, close and forget it). */
void rest_scanners_give(rest_scanners *r, rest_scanner *e, bool done);
/* Deletes scanner id of table: REST_SCANNER_FOUND if it existed (closed now, or when the
 * request using it gives it back), else why not. */
rest_scanner_lookup rest_scanners_delete(rest_scanners *r, const char *table, const char *id);
/* Open scanners now. */
size_t rest_scanners_count(rest_scanners *r);

#endif
