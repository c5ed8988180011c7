/*
 * rpc_frame.h - the RPC framing codec: connection preamble and length-prefixed frames.
 *
 * Byte layout: docs/rpc.md. A frame is
 *     length:u32be  varint(header_len) header  [varint(body_len) body]
 * and a connection starts with the 6-byte preamble "STRA" version auth. This module only
 * turns bytes into frames and back; it does no I/O and knows nothing of protobuf.
 *
 * The decoder is incremental: feed it byte chunks of any size (a frame split at any
 * byte, many frames in one chunk) and take frames out with rpc_frame_decoder_next().
 * Errors are sticky: after one, every call returns the same status.
 * Thread-safety: none; a decoder belongs to one connection and one thread.
 */
#ifndef STRATA_COMMON_RPC_FRAME_H
#define STRATA_COMMON_RPC_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/* Wire constants (docs/rpc.md): never renumbered. */
#define RPC_PREAMBLE_LEN 6
#define RPC_MAGIC "STRA"
#define RPC_VERSION 1
#define RPC_AUTH_SIMPLE 0x50
#define RPC_FRAME_LEN_BYTES 4
/* Default maximum of a frame's length field (bytes after the 4 length bytes). */
#define RPC_FRAME_MAX_DEFAULT (64u << 20)

/* One decoded frame. Pointers go into the decoder's buffer and stay valid until the next
 * rpc_frame_decoder_feed/next/free on that decoder. */
typedef struct rpc_frame {
    const uint8_t *header;
    size_t header_len;
    const uint8_t *body;
    size_t body_len;
} rpc_frame;

typedef struct rpc_frame_decoder {
    buf_t in;           /* bytes fed and not yet consumed, from `pos` on */
    size_t pos;         /* first unconsumed byte in `in` */
    uint32_t max_frame; /* limit of the length field */
    bool want_preamble; /* the preamble is still to come */
    int err;            /* sticky error status, ST_OK while healthy */
    char reason[160];   /* why err was set */
} rpc_frame_decoder;

/* Writes the 6-byte preamble (magic, RPC_VERSION, RPC_AUTH_SIMPLE) into out. */
void rpc_frame_preamble(uint8_t out[RPC_PREAMBLE_LEN]);

/* Checks a 6-byte preamble: ST_OK, or ST_PROTOCOL with a message naming the bytes seen. */
int rpc_frame_check_preamble(const uint8_t p[RPC_PREAMBLE_LEN]);

/* Appends one frame to out: length, header delimiter and header, body delimiter and body
 * (the body delimiter is always written, 0 for an empty body). Returns ST_OK;
 * ST_INVALID_ARGUMENT if the frame would exceed max_frame; ST_NOMEM (out unchanged). */
int rpc_frame_encode(buf_t *out, const void *header, size_t header_len, const void *body,
                     size_t body_len, uint32_t max_frame);

/* Bytes rpc_frame_encode() appends for these sizes (length field included). */
size_t rpc_frame_encoded_size(size_t header_len, size_t body_len);

/* Sets up a decoder. want_preamble: the stream starts with the preamble (a server reading
 * a client); max_frame: the largest length field accepted (0 = RPC_FRAME_MAX_DEFAULT). */
void rpc_frame_decoder_init(rpc_frame_decoder *d, uint32_t max_frame, bool want_preamble);

/* Frees the decoder's buffer; the decoder may be initialised again. */
void rpc_frame_decoder_free(rpc_frame_decoder *d);

/* Appends a chunk of stream bytes. Returns ST_OK, ST_NOMEM, or the sticky error. */
int rpc_frame_decoder_feed(rpc_frame_decoder *d, const void *data, size_t len);

/* Takes the next complete frame: returns 1 and fills *f, 0 if more bytes are needed, or
 * a negative status (ST_PROTOCOL: bad preamble, oversized or empty frame, bad delimiters)
 * with the reason in rpc_frame_decoder_reason() and in st_errmsg(). An oversized frame is
 * rejected as soon as its 4 length bytes are in, before its body is buffered. */
int rpc_frame_decoder_next(rpc_frame_decoder *d, rpc_frame *f);

/* At end of stream: ST_OK if the stream ended between frames, else ST_PROTOCOL
 * ("truncated frame at end of stream: 7 of 20 bytes") or the sticky error. */
int rpc_frame_decoder_finish(rpc_frame_decoder *d);

/* Bytes fed and not yet returned as frames. */
size_t rpc_frame_decoder_pending(const rpc_frame_decoder *d);

/* Why the decoder failed ("" while healthy). */
const char *rpc_frame_decoder_reason(const rpc_frame_decoder *d);

#endif
