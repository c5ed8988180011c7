/*
 * rpc_header.h - the request and response headers of an RPC frame (docs/rpc.md), packed
 * and unpacked with the protoc-c messages of common/proto/rpc.proto, and whole request and
 * response frames built from them.
 *
 * Thread-safety: pure functions; structs belong to their caller.
 */
#ifndef STRATA_COMMON_RPC_HEADER_H
#define STRATA_COMMON_RPC_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/* Longest method name accepted ("Service.Method"). */
#define RPC_METHOD_MAX 128

typedef struct rpc_request_header {
    uint32_t call_id;
    uint32_t deadline_ms; /* relative; 0 = none */
    char method[RPC_METHOD_MAX + 1];
} rpc_request_header;

typedef struct rpc_response_header {
    uint32_t call_id;
    int code;                /* ST_OK, or the failed call's status */
    bool retryable;          /* on failure: !do_not_retry */
    uint32_t retry_after_ms; /* on failure: retry hint, 0 = none */
    char *message;           /* on failure: malloc'd message, else NULL */
    uint8_t *hint;           /* on failure: malloc'd ExceptionResponse.hint bytes, else NULL */
    size_t hint_len;
} rpc_response_header;

/* True for the statuses a caller may retry (busy, not serving, opening, timeout, closed,
 * connection); docs/rpc.md lists them. */
bool rpc_status_retryable(int code);

/* Appends a request frame (header + body) to out. ST_OK; ST_INVALID_ARGUMENT for a method
 * name that is empty or too long or a frame over max_frame (0 = default); ST_NOMEM. */
int rpc_header_encode_request(buf_t *out, uint32_t call_id, const char *method,
                              uint32_t deadline_ms, const void *body, size_t body_len,
                              uint32_t max_frame);

/* Appends a success response frame for call_id carrying body. */
int rpc_header_encode_reply(buf_t *out, uint32_t call_id, const void *body, size_t body_len,
                            uint32_t max_frame);

/* Appends an error response frame: code (negative), message (may be NULL), retryable,
 * retry_after_ms. */
int rpc_header_encode_error(buf_t *out, uint32_t call_id, int code, const char *message,
                            bool retryable, uint32_t retry_after_ms);
/* The same with ExceptionResponse.hint (hint_len 0: none), the packed RegionMovedHint of an
 * ST_REGION_MOVED answer (docs/rpc.md "RegionMoved hints"). */
int rpc_header_encode_error_hint(buf_t *out, uint32_t call_id, int code, const char *message,
                                 bool retryable, uint32_t retry_after_ms, const uint8_t *hint,
                                 size_t hint_len);

/* Unpacks a request header. ST_OK; ST_PROTOCOL if the bytes are not a RequestHeader, or
 * call_id or method_name is missing, or the method is empty or too long. */
int rpc_header_decode_request(const uint8_t *p, size_t len, rpc_request_header *out);

/* Unpacks a response header; on ST_OK the caller frees it with rpc_header_response_free().
 * ST_PROTOCOL if the bytes are not a ResponseHeader or call_id is missing. */
int rpc_header_decode_response(const uint8_t *p, size_t len, rpc_response_header *out);

void rpc_header_response_free(rpc_response_header *h);

#endif
