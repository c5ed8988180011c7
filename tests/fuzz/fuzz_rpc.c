/*
 * fuzz_rpc.c - fuzz target for the RPC wire codec (common/rpc/rpc_frame.c,
 * rpc_header.c; docs/rpc.md): the preamble check, the incremental frame decoder and
 * the request and response headers. Input byte 0 chooses the decoder's settings (bit 0:
 * the stream starts with a preamble; bit 1: a 256-byte frame limit instead of the
 * default) and how the rest, the stream, is cut into chunks; the stream is fed once
 * whole and once in those chunks, and each frame's header is decoded as a request and
 * as a response.
 *
 * It asserts: the preamble check accepts exactly the bytes rpc_frame_preamble() writes;
 * both feeds give the same frames and end in the same state (ST_OK or ST_PROTOCOL with
 * a reason), frames lie inside the stream and respect the limit; a header that decodes
 * as a request (method 1..128 bytes) or a response is encoded again with
 * rpc_header_encode_request / _reply / _error, and that frame decodes to the same call
 * id, method, deadline, code, retry flags, message and body.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/bytes.h"
#include "common/rpc/rpc_frame.h"
#include "common/rpc/rpc_header.h"
#include "common/status.h"
#include "tests/fuzz/fuzz_support.h"

#define SMALL_MAX_FRAME 256

/* What a whole decode saw: the frames (header and body bytes with their lengths). */
typedef struct trace {
    buf_t frames;
    size_t count;
    int status; /* ST_OK or the error of next/feed/finish */
} trace;

static void record(trace *t, const rpc_frame *f)
{
    FUZZ_CHECK(buf_append_be64(&t->frames, f->header_len) == ST_OK &&
                   buf_append(&t->frames, f->header, f->header_len) == ST_OK &&
                   buf_append_be64(&t->frames, f->body_len) == ST_OK &&
                   buf_append(&t->frames, f->body, f->body_len) == ST_OK,
               "out of memory");
    t->count++;
}

/* Takes every complete frame out of d; returns false once d has failed. */
static bool drain(rpc_frame_decoder *d, trace *t, uint32_t limit, size_t len)
{
    for (;;) {
        rpc_frame f;
        int rc = rpc_frame_decoder_next(d, &f);
        if (rc == 0)
            return true;
        if (rc < 0) {
            FUZZ_CHECK(rc == ST_PROTOCOL && rpc_frame_decoder_reason(d)[0], "next: %d", rc);
            t->status = rc;
            return false;
        }
        FUZZ_CHECK(rc == 1, "next returned %d", rc);
        FUZZ_CHECK(f.header_len + f.body_len < (size_t)limit && f.header_len + f.body_len < len,
                   "frame of %zu + %zu bytes", f.header_len, f.body_len);
        record(t, &f);
    }
}

static void decode(const uint8_t *s, size_t len, bool preamble, uint32_t max_frame,
                   uint8_t chunk_seed, bool whole, trace *t)
{
    rpc_frame_decoder d;
    rpc_frame_decoder_init(&d, max_frame, preamble);
    uint32_t limit = max_frame ? max_frame : RPC_FRAME_MAX_DEFAULT;
    uint32_t rng = 0x9e3779b9u ^ chunk_seed;
    size_t off = 0;
    bool ok = true;
    while (ok && off < len) {
        rng = rng * 1103515245u + 12345u;
        size_t n = whole ? len : 1 + (rng >> 16) % 9;
        if (n > len - off)
            n = len - off;
        int rc = rpc_frame_decoder_feed(&d, s + off, n);
        FUZZ_CHECK(rc == ST_OK, "feed: %d", rc);
        off += n;
        ok = drain(&d, t, limit, len);
    }
    if (ok) {
        int rc = rpc_frame_decoder_finish(&d);
        FUZZ_CHECK(rc == ST_OK || (rc == ST_PROTOCOL && rpc_frame_decoder_reason(&d)[0]),
                   "finish: %d", rc);
        t->status = rc;
    }
    rpc_frame_decoder_free(&d);
}

/* Decodes the single frame of b (no preamble) into *f, held by d. */
static void one_frame(rpc_frame_decoder *d, const buf_t *b, rpc_frame *f)
{
    rpc_frame_decoder_init(d, 0, false);
    FUZZ_CHECK(rpc_frame_decoder_feed(d, b->data, b->len) == ST_OK, "feed");
    FUZZ_CHECK(rpc_frame_decoder_next(d, f) == 1, "re-encoded frame: %s", st_errmsg());
    FUZZ_CHECK(rpc_frame_decoder_pending(d) == 0, "bytes after the re-encoded frame");
}

static bool same_body(const rpc_frame *f, const uint8_t *body, size_t len)
{
    return f->body_len == len && (len == 0 || memcmp(f->body, body, len) == 0);
}

static void check_request(const uint8_t *h, size_t hlen, const uint8_t *body, size_t blen)
{
    rpc_request_header req;
    if (rpc_header_decode_request(h, hlen, &req) != ST_OK)
        return;
    size_t mlen = strlen(req.method);
    FUZZ_CHECK(mlen >= 1 && mlen <= RPC_METHOD_MAX, "method of %zu bytes", mlen);
    buf_t b = {0};
    int rc = rpc_header_encode_request(&b, req.call_id, req.method, req.deadline_ms, body, blen, 0);
    FUZZ_CHECK(rc == ST_OK, "request does not re-encode: %s", st_errmsg());
    rpc_frame_decoder d;
    rpc_frame f;
    rpc_request_header back;
    one_frame(&d, &b, &f);
    FUZZ_CHECK(rpc_header_decode_request(f.header, f.header_len, &back) == ST_OK, "decode");
    FUZZ_CHECK(back.call_id == req.call_id && back.deadline_ms == req.deadline_ms &&
                   strcmp(back.method, req.method) == 0 && same_body(&f, body, blen),
               "request %u round trip", req.call_id);
    rpc_frame_decoder_free(&d);
    buf_free(&b);
}

static void check_response(const uint8_t *h, size_t hlen, const uint8_t *body, size_t blen)
{
    rpc_response_header resp, back;
    if (rpc_header_decode_response(h, hlen, &resp) != ST_OK)
        return;
    buf_t b = {0};
    int rc = resp.message ? rpc_header_encode_error(&b, resp.call_id, resp.code, resp.message,
                                                    resp.retryable, resp.retry_after_ms)
                          : rpc_header_encode_reply(&b, resp.call_id, body, blen, 0);
    FUZZ_CHECK(rc == ST_OK, "response does not re-encode: %s", st_errmsg());
    FUZZ_CHECK(!resp.message || resp.code < 0, "error response with code %d", resp.code);
    rpc_frame_decoder d;
    rpc_frame f;
    one_frame(&d, &b, &f);
    FUZZ_CHECK(rpc_header_decode_response(f.header, f.header_len, &back) == ST_OK, "decode");
    bool same = back.call_id == resp.call_id && back.code == resp.code &&
                (back.message == NULL) == (resp.message == NULL);
    if (same && resp.message)
        same = back.retryable == resp.retryable && back.retry_after_ms == resp.retry_after_ms &&
               strcmp(back.message, resp.message) == 0 && f.body_len == 0;
    else if (same)
        same = same_body(&f, body, blen);
    FUZZ_CHECK(same, "response %u round trip", resp.call_id);
    rpc_header_response_free(&back);
    rpc_header_response_free(&resp);
    rpc_frame_decoder_free(&d);
    buf_free(&b);
}

/* Runs the header checks over the frames recorded in t. */
static void check_headers(const trace *t)
{
    const uint8_t *p = t->frames.data;
    for (size_t i = 0; i < t->count; i++) {
        size_t hlen = (size_t)be64_get(p);
        const uint8_t *h = p + 8;
        size_t blen = (size_t)be64_get(h + hlen);
        const uint8_t *body = h + hlen + 8;
        check_request(h, hlen, body, blen);
        check_response(h, hlen, body, blen);
        p = body + blen;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    bool preamble = data[0] & 1;
    uint32_t max_frame = data[0] & 2 ? SMALL_MAX_FRAME : 0;
    const uint8_t *s = data + 1;
    size_t len = size - 1;

    if (len >= RPC_PREAMBLE_LEN) {
        uint8_t good[RPC_PREAMBLE_LEN];
        rpc_frame_preamble(good);
        int rc = rpc_frame_check_preamble(s);
        FUZZ_CHECK((rc == ST_OK) == (memcmp(s, good, sizeof(good)) == 0) &&
                       (rc == ST_OK || rc == ST_PROTOCOL),
                   "preamble check %d", rc);
    }
    trace whole = {0}, chunked = {0};
    decode(s, len, preamble, max_frame, data[0], true, &whole);
    decode(s, len, preamble, max_frame, data[0], false, &chunked);
    FUZZ_CHECK(whole.count == chunked.count && whole.status == chunked.status &&
                   whole.frames.len == chunked.frames.len &&
                   (whole.frames.len == 0 ||
                    memcmp(whole.frames.data, chunked.frames.data, whole.frames.len) == 0),
               "whole: %zu frames, status %d; in chunks: %zu frames, status %d", whole.count,
               whole.status, chunked.count, chunked.status);
    check_headers(&whole);
    buf_free(&whole.frames);
    buf_free(&chunked.frames);
    return 0;
}
