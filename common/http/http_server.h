/*
 * http_server.h - a small HTTP/1.1 server for status pages and metrics (docs/http.md),
 * built on libevent's evhttp and run on one thread of its own.
 *
 * Handlers are registered by exact path ("/metrics") before the server starts; the query
 * string is not part of the match. The server answers by itself:
 *   - 405 Method Not Allowed (with "Allow: GET, HEAD") to any method but GET and HEAD on
 *     a known path; methods evhttp does not know are 501;
 *   - 404 Not Found for a path no handler has;
 *   - 400 when the request line and headers pass max_header_bytes, 413 when a body
 *     passes max_body_bytes (evhttp stops reading and closes; no handler runs);
 *   - HEAD: the handler runs as for GET, the body is left out, Content-Length kept.
 * Connections idle for timeout_s are closed.
 *
 * Handlers run on the server's thread, one at a time: they must be quick (copy what they
 * need under the owner's locks, render without them) and must not call back into this
 * server. A handler fills an http_response: status (default 200), content type (default
 * "text/plain; charset=utf-8") and body.
 *
 * Lifecycle: http_server_new -> http_server_handle (any number) -> http_server_start ->
 * ... -> http_server_stop -> http_server_free. stop waits for a handler in progress and
 * closes every connection; it is idempotent, and free stops first.
 * Thread-safety: http_server_port from any thread; the lifecycle calls from one owner,
 * never from a handler.
 */
#ifndef STRATA_COMMON_HTTP_SERVER_H
#define STRATA_COMMON_HTTP_SERVER_H

#include <stddef.h>

#include "common/buf.h"

typedef struct http_server http_server;

typedef struct http_server_opts {
    size_t max_header_bytes; /* request line + headers; default 16384 */
    size_t max_body_bytes;   /* request body; default 4096 */
    int timeout_s;           /* idle connection timeout; default 30 */
} http_server_opts;

/* What a handler sees; valid during the call only. */
typedef struct http_request {
    const char *method; /* "GET" or "HEAD" */
    const char *path;   /* as sent, without the query ("/status") */
    const char *query;  /* the raw query string after '?', "" if none */
    const char *peer;   /* "ip:port" of the client */
} http_request;

/* What a handler fills. */
typedef struct http_response {
    int status;             /* default 200 */
    char content_type[128]; /* default "text/plain; charset=utf-8" */
    buf_t body;
} http_response;

typedef void (*http_handler_fn)(void *arg, const http_request *req, http_response *resp);

void http_server_opts_default(http_server_opts *o);

/* o NULL: the defaults. ST_OK and *out, or ST_NOMEM (*out NULL). */
int http_server_new(const http_server_opts *o, http_server **out);
/* Registers fn for path (copied; must start with '/'). A later registration of the same
 * path replaces the earlier one. ST_INVALID_ARGUMENT after start or for a bad path. */
int http_server_handle(http_server *s, const char *path, http_handler_fn fn, void *arg);
/* Binds host:port (port 0: any free port) and starts the server's thread. ST_OK, or
 * ST_IO naming the address when it cannot be bound (the server may then be freed). */
int http_server_start(http_server *s, const char *host, int port);
/* The bound port once started, else 0. */
int http_server_port(const http_server *s);
void http_server_stop(http_server *s);
/* NULL is a no-op. */
void http_server_free(http_server *s);

/* ---- for handlers ---- */

/* Sets status and content type (NULL keeps the current type). */
void http_response_set(http_response *r, int status, const char *content_type);
/* Appends formatted text to the body: ST_OK or ST_NOMEM. */
int http_response_printf(http_response *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The standard reason phrase of a status code ("Not Found"); "Unknown" if none. */
const char *http_reason(int status);

#endif
