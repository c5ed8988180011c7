/*
 * rest.h - the REST gateway (`strata rest`, docs/rest.md): HBase's REST API over HTTP,
 * served with libevent's evhttp on top of the client library. It is stateless apart from
 * its open scanners, so any number of gateways can run behind an HTTP load balancer.
 *
 * Threads: io_threads event loops accept connections and read requests (each loop its
 * own evhttp on a shared listening socket); a request is handed to one of `workers`
 * threads, which runs the client calls and writes the answer; the answer goes back to
 * the connection's loop to be sent. Answers larger than a chunk are streamed (chunked
 * transfer encoding) with the worker waiting for each chunk to be written, so a slow
 * reader holds one chunk in memory, not the whole answer.
 *
 * Lifecycle: rest_config_define -> (load the config) -> rest_server_start ->
 * rest_server_drain (stop accepting, answer what is in flight) -> rest_server_free.
 * Thread-safety: rest_server_port and rest_server_drain from any thread; start and free
 * from one owner.
 */
#ifndef STRATA_REST_REST_H
#define STRATA_REST_REST_H

#include "common/config.h"

typedef struct rest_server rest_server;

/* Defines the gateway's configuration keys (rest.*, zk.*, log.level; docs/configuration.md). */
int rest_config_define(config *c);

/* Starts a gateway as cfg says: binds rest.host:rest.port, opens the cluster client
 * (nothing is contacted until the first request) and starts the threads; writes
 * rest.ready.file ("<port>\n") once it listens. ST_OK and *out, or the failure (nothing
 * left running). */
int rest_server_start(const config *cfg, rest_server **out);
/* The bound HTTP port. */
int rest_server_port(const rest_server *s);
/* Stops accepting connections, answers 503 to new requests on open connections, waits up
 * to timeout_ms for the requests in flight to be answered, then closes every connection.
 * Idempotent. */
void rest_server_drain(rest_server *s, int timeout_ms);
/* Drains (30 s) if not drained yet, closes the scanners and the client, frees s. NULL:
 * no-op. */
void rest_server_free(rest_server *s);

#endif
