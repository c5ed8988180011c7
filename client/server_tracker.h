/*
 * server_tracker.h - what the client knows about the health of region servers, so that it
 * fails over as soon as the cluster does instead of after RPC timeouts and backoff steps.
 *
 * Two sources:
 *   - ZooKeeper (when the client has a quorum): the children of <parent>/rs (each region
 *     server's ephemeral znode, docs/znodes.md) and of <parent>/splitWAL (servers whose
 *     WALs the master is splitting: declared dead). A server whose znode goes, one
 *     superseded by a newer start code on the same host and port, and one listed under
 *     splitWAL is DEAD; the tracker calls the dead callback once for it (the client fails
 *     its calls in flight and drops every cached location on it).
 *   - The client's own calls: a timeout or connection failure makes that server
 *     incarnation SUSPECT for a short time (srvtrack_suspect), during which the client
 *     asks the master for a fresh location instead of sending calls that would time out
 *     again. Cached locations on a dead or suspect server are dropped when it becomes so,
 *     so the client consults the tracker only for locations it has just been given.
 *
 * The watch runs on a session of the tracker's own, opened in the background once
 * srvtrack_start asks for it (the client does at its first region lookup, so a client used
 * only for admin calls never opens it; nothing waits for it, and until it is connected
 * nothing is known to be dead) and opened again after an expiry. A server name is "host,port,startcode" as in ZooKeeper.
 *
 * Thread-safety: every function may be called from any thread. One mutex (a leaf lock)
 * guards the live, dead and suspect sets; the dead callback runs on ZooKeeper's watch
 * thread without it held, and must not block.
 */
#ifndef STRATA_CLIENT_SERVER_TRACKER_H
#define STRATA_CLIENT_SERVER_TRACKER_H

#include <stdbool.h>
#include <stdint.h>

typedef struct srvtrack srvtrack;

typedef enum srvtrack_state {
    SRVTRACK_LIVE = 0, /* nothing against it (or nothing known yet) */
    SRVTRACK_SUSPECT,  /* a call to it failed by timeout or connection moments ago */
    SRVTRACK_DEAD,     /* its znode is gone, it was superseded, or its WALs are being split */
} srvtrack_state;

/* A server incarnation went. newer_live: a newer incarnation on the same host:port is
 * live (its connection must not be cut). Runs on the watch thread. */
typedef void (*srvtrack_dead_fn)(void *arg, const char *host, uint16_t port, uint64_t start_code,
                                 bool newer_live);

/* Makes a tracker. quorum NULL: no ZooKeeper watch (only suspicion from the client's own
 * calls). parent NULL: "/strata". ST_OK and *out, ST_NOMEM. */
int srvtrack_open(const char *quorum, const char *parent, srvtrack_dead_fn fn, void *arg,
                  srvtrack **out);
/* Starts the watch in the background (idempotent, cheap after the first call; a no-op
 * without a quorum). */
void srvtrack_start(srvtrack *t);
/* Stops the watch (the callback does not run after it returns) and frees t. NULL is a
 * no-op. */
void srvtrack_close(srvtrack *t);

/* What is known about host:port incarnation start_code (0: any incarnation). */
srvtrack_state srvtrack_check(srvtrack *t, const char *host, uint16_t port, uint64_t start_code);
/* Milliseconds of suspicion left for that incarnation (0 if none). */
int64_t srvtrack_suspect_left_ms(srvtrack *t, const char *host, uint16_t port,
                                 uint64_t start_code);
/* Marks the incarnation suspect for ms (extends, never shortens). */
void srvtrack_suspect(srvtrack *t, const char *host, uint16_t port, uint64_t start_code, int ms);
/* Whether the ZooKeeper watch has delivered the live set at least once. */
bool srvtrack_watching(srvtrack *t);
/* Servers declared dead so far by the watch (for tests and metrics). */
uint64_t srvtrack_dead_count(srvtrack *t);

#endif
