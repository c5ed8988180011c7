/*
 * rest_curl.h - requests to a REST gateway through the curl command line, for the REST
 * integration tests: the method, path, headers and body as given, the status, headers and
 * body (binary-safe) of the answer.
 *
 * Thread-safety: each call is independent (its own temporary files); safe from any
 * thread.
 */
#ifndef STRATA_TESTS_REST_CURL_H
#define STRATA_TESTS_REST_CURL_H

#include <stdbool.h>
#include <stddef.h>

typedef struct rc_resp {
    int status;      /* the HTTP status; 0 when curl could not get one */
    char *headers;   /* the header block as received (NUL-terminated) */
    char *body;      /* the body, NUL-terminated (body_len bytes before the NUL) */
    size_t body_len;
    char *curl_out;  /* what curl printed (its errors) */
} rc_resp;

/* Sends method path (starting with '/') to 127.0.0.1:port with headers (NULL-terminated
 * "Name: value" strings; may be NULL) and body (body_len bytes; NULL: no body) through
 * curl. 0, or -1 when curl could not run (out->status then 0 and curl_out says why). */
int rc_request(int port, const char *method, const char *path, const char *const *headers,
               const void *body, size_t body_len, rc_resp *out);
/* GET with an Accept header (NULL: none). */
int rc_get(int port, const char *path, const char *accept, rc_resp *out);
/* The value of header name (case-insensitive) copied into out: true if present. */
bool rc_header(const rc_resp *r, const char *name, char *out, size_t cap);
void rc_free(rc_resp *r);
/* Whether curl is on PATH. */
bool rc_have_curl(void);

#endif
