/*
 * rpc_proto.c - protobuf bodies over the RPC layer (see rpc_proto.h).
 * Thread-safety: pure functions; rpc_proto_call is as safe as the rpc_client it uses.
 */
#include "common/rpc/rpc_proto.h"

#include <stdio.h>

#include "common/scratch.h"
#include "common/status.h"

int rpc_proto_pack(const ProtobufCMessage *msg, buf_t *out)
{
    size_t n = protobuf_c_message_get_packed_size(msg);
    buf_reset(out);
    if (buf_reserve(out, n ? n : 1) != ST_OK)
        return st_error(ST_NOMEM, "out of memory packing a %s of %zu bytes", msg->descriptor->name,
                        n);
    out->len = protobuf_c_message_pack(msg, out->data);
    return ST_OK;
}

int rpc_proto_reply(rpc_reply *reply, const ProtobufCMessage *msg)
{
    return rpc_proto_pack(msg, &reply->body);
}

int rpc_proto_unpack(const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t len,
                     const char *what, ProtobufCMessage **out)
{
    *out = protobuf_c_message_unpack(desc, NULL, len, data);
    if (!*out)
        return st_error(ST_PROTOCOL, "%s: %zu bytes are not a well-formed %s", what, len,
                        desc->name);
    return ST_OK;
}

/* Unpacks rq's body as desc's message with allocator al (NULL: malloc). */
static int unpack_request(const rpc_request *rq, const ProtobufCMessageDescriptor *desc,
                          ProtobufCAllocator *al, ProtobufCMessage **out)
{
    *out = protobuf_c_message_unpack(desc, al, rq->body_len, rq->body);
    if (!*out)
        return st_error(ST_INVALID_ARGUMENT, "%s: the request is not a well-formed %s", rq->method,
                        desc->name);
    return ST_OK;
}

int rpc_proto_unpack_request(const rpc_request *rq, const ProtobufCMessageDescriptor *desc,
                             ProtobufCMessage **out)
{
    return unpack_request(rq, desc, NULL, out);
}

int rpc_proto_serve(void *ctx, const rpc_request *rq, rpc_reply *reply,
                    const ProtobufCMessageDescriptor *desc, rpc_proto_check_fn check,
                    rpc_proto_body_fn body)
{
    int rc = check ? check(ctx, reply) : ST_OK;
    if (rc != ST_OK)
        return rc;
    /* The request and everything in it live in one scratch, released after the body. */
    scratch_t sc = {0};
    ProtobufCAllocator al = scratch_protobuf_allocator(&sc);
    ProtobufCMessage *req = NULL;
    if ((rc = unpack_request(rq, desc, &al, &req)) == ST_OK)
        rc = body(ctx, req, reply);
    scratch_free(&sc);
    return rc;
}

int rpc_proto_call(rpc_client *c, const char *addr, const char *method, const ProtobufCMessage *req,
                   int timeout_ms, const ProtobufCMessageDescriptor *resp_desc,
                   ProtobufCMessage **resp)
{
    if (resp)
        *resp = NULL;
    buf_t body = {0}, out = {0};
    int rc = rpc_proto_pack(req, &body);
    if (rc == ST_OK)
        rc = rpc_client_call(c, addr, method, body.data, body.len, timeout_ms, &out);
    if (rc == ST_OK && resp_desc && resp) {
        char what[512];
        snprintf(what, sizeof(what), "%s from %s", method, addr);
        rc = rpc_proto_unpack(resp_desc, out.data, out.len, what, resp);
    }
    buf_free(&body);
    buf_free(&out);
    return rc;
}
