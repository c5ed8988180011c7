/*
 * rpc_proto.h - protobuf messages over the RPC layer: the one unpack -> handle -> pack
 * path every service (ClientService, AdminService, MasterService) serves requests with,
 * and the one pack / call / unpack path callers use (docs/rpc.md: bodies are protobuf
 * messages of the method's request and response types).
 *
 * A service writes a body function per method and declares its handler with
 * RPC_PROTO_HANDLER:
 *
 *     static int get_body(void *ctx, ProtobufCMessage *req, rpc_reply *reply)
 *     {
 *         Strata__Client__GetRequest *m = (Strata__Client__GetRequest *)req;
 *         Strata__Client__GetResponse resp = STRATA__CLIENT__GET_RESPONSE__INIT;
 *         ...
 *         return rpc_proto_reply(reply, &resp.base);
 *     }
 *     RPC_PROTO_HANDLER(h_get, check_serving, strata__client__get_request__descriptor, get_body)
 *
 * A method whose response has no fields may leave the reply empty: that is the packed form
 * of an empty message.
 *
 * Thread-safety: pure functions, except rpc_proto_call (as safe as rpc_client.h).
 */
#ifndef STRATA_COMMON_RPC_RPC_PROTO_H
#define STRATA_COMMON_RPC_RPC_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "common/buf.h"
#include "common/rpc/rpc_client.h"
#include "common/rpc/rpc_server.h"

/* Runs a method's work on its unpacked request (owned by the caller: do not free). Fills
 * reply (rpc_proto_reply) and returns ST_OK, or a status with st_errmsg() set. */
typedef int (*rpc_proto_body_fn)(void *ctx, ProtobufCMessage *req, rpc_reply *reply);
/* Runs before the request is unpacked (the server is serving, this master is active ...):
 * ST_OK, or the status answered instead (it may set reply->retry_after_ms). */
typedef int (*rpc_proto_check_fn)(void *ctx, rpc_reply *reply);

/* Unpacks a request's body as desc's message: ST_OK and *out (free with
 * protobuf_c_message_free_unpacked), or ST_INVALID_ARGUMENT naming the method and the type
 * (*out NULL). For handlers that keep the request past the call. */
int rpc_proto_unpack_request(const rpc_request *rq, const ProtobufCMessageDescriptor *desc,
                             ProtobufCMessage **out);

/* check (may be NULL), then unpacks rq's body as desc's message (ST_INVALID_ARGUMENT naming
 * the method and the type if it does not parse), runs body on it and frees it. */
int rpc_proto_serve(void *ctx, const rpc_request *rq, rpc_reply *reply,
                    const ProtobufCMessageDescriptor *desc, rpc_proto_check_fn check,
                    rpc_proto_body_fn body);

/* Declares `static int fname(void *ctx, const rpc_request *rq, rpc_reply *reply)`, an
 * rpc_handler_fn serving desc's requests with check and body. */
#define RPC_PROTO_HANDLER(fname, check, desc, body)                                             \
    static int fname(void *ctx, const rpc_request *rq, rpc_reply *reply)                        \
    {                                                                                           \
        return rpc_proto_serve(ctx, rq, reply, &(desc), (check), (body));                       \
    }

/* Packs msg into out (its old content replaced). ST_OK, or ST_NOMEM naming msg's type. */
int rpc_proto_pack(const ProtobufCMessage *msg, buf_t *out);
/* Packs msg as the reply's body. */
int rpc_proto_reply(rpc_reply *reply, const ProtobufCMessage *msg);
/* Unpacks data as desc's message: ST_OK and *out (free with
 * protobuf_c_message_free_unpacked), or ST_PROTOCOL naming what (e.g. "OpenRegion from
 * h:1") and the type (*out NULL). */
int rpc_proto_unpack(const ProtobufCMessageDescriptor *desc, const uint8_t *data, size_t len,
                     const char *what, ProtobufCMessage **out);

/* One call of method on addr: packs req, calls, and on ST_OK unpacks the answer as
 * resp_desc into *resp when both are given (else the answer is dropped). The failure
 * status otherwise, with st_errmsg() set (*resp NULL). */
int rpc_proto_call(rpc_client *c, const char *addr, const char *method, const ProtobufCMessage *req,
                   int timeout_ms, const ProtobufCMessageDescriptor *resp_desc,
                   ProtobufCMessage **resp);

#endif
