/*
 * http_client.h - a minimal blocking HTTP/1.1 client for tests, on a plain TCP socket:
 * one request per connection ("Connection: close"), the response read until the
 * Content-Length is complete or the server closes.
 *
 * Thread-safety: each call is independent; safe from any number of threads.
 */
#ifndef STRATA_TESTS_HTTP_CLIENT_H
#define STRATA_TESTS_HTTP_CLIENT_H

#include <stddef.h>

typedef struct thc_response {
    int status;             /* from the status line */
    char content_type[128]; /* the Content-Type header, "" if none */
    char *headers;          /* the header block as received (NUL-terminated) */
    char *body;             /* NUL-terminated (body_len bytes before the NUL) */
    size_t body_len;
    long content_length; /* the Content-Length header, -1 if none */
} thc_response;

/* Sends `method path` to 127.0.0.1:port with extra_headers (each line ending "\r\n"; may
 * be NULL) and body (may be NULL), and reads the answer within timeout_ms. 0 and *out
 * filled (free with thc_response_free); -1 with *out zeroed when the connection is
 * refused, the time runs out, the reply does not parse, or the server closes before
 * answering. */
int thc_request(int port, const char *method, const char *path, const char *extra_headers,
                const char *body, size_t body_len, int timeout_ms, thc_response *out);
/* GET with no extra headers and a 10 s timeout. */
int thc_get(int port, const char *path, thc_response *out);
/* A header's value (case-insensitive name) copied into out; 0 if present, -1 if not. */
int thc_header(const thc_response *r, const char *name, char *out, size_t cap);
void thc_response_free(thc_response *r);

#endif
