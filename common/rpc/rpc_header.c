/*
 * rpc_header.c - RequestHeader / ResponseHeader / ExceptionResponse (common/proto/rpc.proto)
 * to and from the C structs of rpc_header.h, and whole frames built from them.
 * Thread-safety: pure functions.
 */
#include "common/rpc/rpc_header.h"

#include <stdlib.h>
#include <string.h>

#include "common/proto/rpc.pb-c.h"
#include "common/rpc/rpc_frame.h"
#include "common/scratch.h"
#include "common/status.h"

/* Headers up to this size are packed on the stack. */
#define HEADER_STACK 512

bool rpc_status_retryable(int code)
{
    switch (code) {
    case ST_SERVER_BUSY:
    case ST_REGION_TOO_BUSY:
    case ST_NOT_SERVING:
    case ST_REGION_OPENING:
    case ST_REGION_MOVED:
    case ST_TIMEOUT:
    case ST_CLOSED:
    case ST_CONNECTION:
        return true;
    default:
        return false;
    }
}

/* Packs msg and appends header + body as one frame. */
static int frame_message(buf_t *out, const ProtobufCMessage *msg, const void *body, size_t body_len,
                         uint32_t max_frame)
{
    uint8_t stack[HEADER_STACK];
    size_t n = protobuf_c_message_get_packed_size(msg);
    uint8_t *h = n <= sizeof(stack) ? stack : malloc(n);
    if (!h)
        return st_error(ST_NOMEM, "rpc header of %zu bytes: out of memory", n);
    protobuf_c_message_pack(msg, h);
    int rc = rpc_frame_encode(out, h, n, body, body_len, max_frame);
    if (h != stack)
        free(h);
    return rc;
}

int rpc_header_encode_request(buf_t *out, uint32_t call_id, const char *method,
                              uint32_t deadline_ms, const void *body, size_t body_len,
                              uint32_t max_frame)
{
    size_t mlen = method ? strlen(method) : 0;
    if (mlen == 0 || mlen > RPC_METHOD_MAX)
        return st_error(ST_INVALID_ARGUMENT, "rpc call %u: method name of %zu bytes (1..%d)",
                        call_id, mlen, RPC_METHOD_MAX);
    Strata__Rpc__RequestHeader h = STRATA__RPC__REQUEST_HEADER__INIT;
    h.has_call_id = 1;
    h.call_id = call_id;
    h.method_name = (char *)method;
    if (deadline_ms) {
        h.has_deadline_ms = 1;
        h.deadline_ms = deadline_ms;
    }
    return frame_message(out, &h.base, body, body_len, max_frame);
}

int rpc_header_encode_reply(buf_t *out, uint32_t call_id, const void *body, size_t body_len,
                            uint32_t max_frame)
{
    Strata__Rpc__ResponseHeader h = STRATA__RPC__RESPONSE_HEADER__INIT;
    h.has_call_id = 1;
    h.call_id = call_id;
    return frame_message(out, &h.base, body, body_len, max_frame);
}

int rpc_header_encode_error(buf_t *out, uint32_t call_id, int code, const char *message,
                            bool retryable, uint32_t retry_after_ms)
{
    return rpc_header_encode_error_hint(out, call_id, code, message, retryable, retry_after_ms,
                                        NULL, 0);
}

int rpc_header_encode_error_hint(buf_t *out, uint32_t call_id, int code, const char *message,
                                 bool retryable, uint32_t retry_after_ms, const uint8_t *hint,
                                 size_t hint_len)
{
    Strata__Rpc__ExceptionResponse e = STRATA__RPC__EXCEPTION_RESPONSE__INIT;
    e.exception_class_name = (char *)st_strerror(code);
    e.has_do_not_retry = 1;
    e.do_not_retry = !retryable;
    e.has_code = 1;
    e.code = code;
    e.message = (char *)(message ? message : "");
    if (retry_after_ms) {
        e.has_retry_after_ms = 1;
        e.retry_after_ms = retry_after_ms;
    }
    if (hint_len) {
        e.has_hint = 1;
        e.hint = (ProtobufCBinaryData){hint_len, (uint8_t *)hint};
    }
    Strata__Rpc__ResponseHeader h = STRATA__RPC__RESPONSE_HEADER__INIT;
    h.has_call_id = 1;
    h.call_id = call_id;
    h.exception = &e;
    return frame_message(out, &h.base, NULL, 0, 0);
}

int rpc_header_decode_request(const uint8_t *p, size_t len, rpc_request_header *out)
{
    int rc = ST_OK;
    scratch_t sc = {0};
    ProtobufCAllocator al = scratch_protobuf_allocator(&sc);
    Strata__Rpc__RequestHeader *h = strata__rpc__request_header__unpack(&al, len, p);
    if (!h) {
        scratch_free(&sc);
        return st_error(ST_PROTOCOL, "undecodable request header (%zu bytes)", len);
    }
    size_t mlen = h->method_name ? strlen(h->method_name) : 0;
    if (!h->has_call_id || mlen == 0 || mlen > RPC_METHOD_MAX) {
        rc = st_error(ST_PROTOCOL, "undecodable request header: call id %s, method of %zu bytes",
                      h->has_call_id ? "set" : "missing", mlen);
        goto out;
    }
    out->call_id = h->call_id;
    out->deadline_ms = h->has_deadline_ms ? h->deadline_ms : 0;
    memcpy(out->method, h->method_name, mlen + 1);
out:
    scratch_free(&sc);
    return rc;
}

static int exception_code(const Strata__Rpc__ExceptionResponse *e)
{
    return e->has_code && e->code < 0 ? e->code : ST_INTERNAL;
}

int rpc_header_decode_response(const uint8_t *p, size_t len, rpc_response_header *out)
{
    int rc = ST_OK;
    memset(out, 0, sizeof(*out));
    scratch_t sc = {0};
    ProtobufCAllocator al = scratch_protobuf_allocator(&sc);
    Strata__Rpc__ResponseHeader *h = strata__rpc__response_header__unpack(&al, len, p);
    if (!h) {
        scratch_free(&sc);
        return st_error(ST_PROTOCOL, "undecodable response header (%zu bytes)", len);
    }
    if (!h->has_call_id) {
        rc = st_error(ST_PROTOCOL, "undecodable response header: call id missing");
        goto out;
    }
    out->call_id = h->call_id;
    const Strata__Rpc__ExceptionResponse *e = h->exception;
    if (e) {
        out->code = exception_code(e);
        out->retryable = !(e->has_do_not_retry && e->do_not_retry);
        out->retry_after_ms = e->has_retry_after_ms ? e->retry_after_ms : 0;
        out->message = strdup(e->message ? e->message : "");
        if (!out->message)
            rc = st_error(ST_NOMEM, "rpc response %u: out of memory", h->call_id);
        if (rc == ST_OK && e->has_hint && e->hint.len) {
            if ((out->hint = malloc(e->hint.len))) {
                memcpy(out->hint, e->hint.data, e->hint.len);
                out->hint_len = e->hint.len;
            } else {
                rc = st_error(ST_NOMEM, "rpc response %u: out of memory", h->call_id);
            }
        }
        if (rc != ST_OK)
            rpc_header_response_free(out);
    }
out:
    scratch_free(&sc);
    return rc;
}

void rpc_header_response_free(rpc_response_header *h)
{
    free(h->message);
    h->message = NULL;
    free(h->hint);
    h->hint = NULL;
    h->hint_len = 0;
}
