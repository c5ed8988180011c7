/*
 * rest_http.h - the REST gateway's HTTP side (rest_http.c): the event loops that accept
 * connections and read requests, the hand-off of each request to a worker, and the way
 * its answer comes back to be sent (whole, or streamed in chunks).
 *
 * Lifecycle: rest_http_start (binds, starts the loops; requests go to s->work) ->
 * rest_http_stop_accepting -> (wait for rest_http_in_flight to reach 0) -> rest_http_stop.
 * Thread-safety: rest_http_port, rest_http_in_flight and rest_http_stop_accepting from any
 * thread; start and stop from the owner.
 */
#ifndef STRATA_REST_REST_HTTP_H
#define STRATA_REST_REST_HTTP_H

#include <stddef.h>

typedef struct rest_http rest_http;
struct rest_server;

/* Binds s->set.host:s->set.port and starts s->set.io_threads loops. ST_OK and *out, or
 * ST_IO naming the address. */
int rest_http_start(struct rest_server *s, rest_http **out);
int rest_http_port(const rest_http *h);
/* Closes the listening sockets; requests on open connections are still read (and answered
 * 503 while the server drains). */
void rest_http_stop_accepting(rest_http *h);
/* Requests taken and not yet answered. */
size_t rest_http_in_flight(const rest_http *h);
/* Stops the loops, closes every connection and frees h. NULL: no-op. */
void rest_http_stop(rest_http *h);
/* The worker side (rest_work_fn): runs one request taken by a loop and hands its answer
 * back. */
void rest_http_run(void *server, void *call);

#endif
