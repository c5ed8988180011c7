/*
 * rpc_frame.c - the RPC framing codec (docs/rpc.md): preamble check, frame encoder and
 * the incremental frame decoder.
 *
 * Decoder states (want_preamble, then frames; err is terminal):
 *
 *   PREAMBLE --6 good bytes (take_preamble)--> FRAMES --complete frame (take_frame)--> FRAMES
 *       |                                        |
 *       +--bad bytes--> ERROR <--oversized/empty/bad delimiter (take_frame)
 *
 * Bytes accumulate in one buffer; consumed bytes are dropped at the next feed, so the
 * buffer holds at most one partial frame plus the last chunk.
 * Thread-safety: none (one decoder per connection).
 */
#include "common/rpc/rpc_frame.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/bytes.h"
#include "common/status.h"

/* Above this capacity an emptied buffer is released rather than kept for reuse. */
#define DECODER_KEEP_CAP (1u << 20)

void rpc_frame_preamble(uint8_t out[RPC_PREAMBLE_LEN])
{
    memcpy(out, RPC_MAGIC, 4);
    out[4] = RPC_VERSION;
    out[5] = RPC_AUTH_SIMPLE;
}

int rpc_frame_check_preamble(const uint8_t p[RPC_PREAMBLE_LEN])
{
    if (memcmp(p, RPC_MAGIC, 4) == 0 && p[4] == RPC_VERSION && p[5] == RPC_AUTH_SIMPLE)
        return ST_OK;
    return st_error(ST_PROTOCOL, "bad preamble: magic %02x %02x %02x %02x, version %u, auth %02x",
                    p[0], p[1], p[2], p[3], p[4], p[5]);
}

size_t rpc_frame_encoded_size(size_t header_len, size_t body_len)
{
    return RPC_FRAME_LEN_BYTES + varint_len(header_len) + header_len + varint_len(body_len) +
           body_len;
}

int rpc_frame_encode(buf_t *out, const void *header, size_t header_len, const void *body,
                     size_t body_len, uint32_t max_frame)
{
    size_t total = rpc_frame_encoded_size(header_len, body_len);
    size_t len = total - RPC_FRAME_LEN_BYTES;
    if (max_frame == 0)
        max_frame = RPC_FRAME_MAX_DEFAULT;
    if (len > max_frame)
        return st_error(ST_INVALID_ARGUMENT, "frame of %zu bytes exceeds the maximum %u", len,
                        max_frame);
    if (buf_reserve(out, total) != ST_OK)
        return st_error(ST_NOMEM, "frame of %zu bytes: out of memory", len);
    uint8_t *p = out->data + out->len;
    be32_put(p, (uint32_t)len);
    p += RPC_FRAME_LEN_BYTES;
    p += varint_put(p, header_len);
    if (header_len)
        memcpy(p, header, header_len);
    p += header_len;
    p += varint_put(p, body_len);
    if (body_len)
        memcpy(p, body, body_len);
    out->len += total;
    return ST_OK;
}

void rpc_frame_decoder_init(rpc_frame_decoder *d, uint32_t max_frame, bool want_preamble)
{
    memset(d, 0, sizeof(*d));
    d->max_frame = max_frame ? max_frame : RPC_FRAME_MAX_DEFAULT;
    d->want_preamble = want_preamble;
}

void rpc_frame_decoder_free(rpc_frame_decoder *d)
{
    buf_free(&d->in);
    d->pos = 0;
}

__attribute__((format(printf, 2, 3))) static int fail(rpc_frame_decoder *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->reason, sizeof(d->reason), fmt, ap);
    va_end(ap);
    d->err = ST_PROTOCOL;
    return st_error(ST_PROTOCOL, "%s", d->reason);
}

static void compact(rpc_frame_decoder *d)
{
    if (d->pos == d->in.len && d->in.cap > DECODER_KEEP_CAP) {
        buf_free(&d->in);
    } else if (d->pos > 0) {
        memmove(d->in.data, d->in.data + d->pos, d->in.len - d->pos);
        d->in.len -= d->pos;
    }
    d->pos = 0;
}

int rpc_frame_decoder_feed(rpc_frame_decoder *d, const void *data, size_t len)
{
    if (d->err)
        return st_error(d->err, "%s", d->reason);
    compact(d);
    if (len && buf_append(&d->in, data, len) != ST_OK)
        return st_error(ST_NOMEM, "rpc decoder: out of memory buffering %zu bytes", len);
    return ST_OK;
}

size_t rpc_frame_decoder_pending(const rpc_frame_decoder *d)
{
    return d->in.len - d->pos;
}

const char *rpc_frame_decoder_reason(const rpc_frame_decoder *d)
{
    return d->reason;
}

static int take_preamble(rpc_frame_decoder *d)
{
    if (rpc_frame_decoder_pending(d) < RPC_PREAMBLE_LEN)
        return 0;
    const uint8_t *p = d->in.data + d->pos;
    if (rpc_frame_check_preamble(p) != ST_OK)
        return fail(d, "%s", st_errmsg());
    d->pos += RPC_PREAMBLE_LEN;
    d->want_preamble = false;
    return 1;
}

/* Splits the n bytes of a complete frame at p into header and body. */
static int split_frame(rpc_frame_decoder *d, const uint8_t *p, uint32_t n, rpc_frame *f)
{
    uint64_t hlen = 0, blen = 0;
    size_t k = varint_get(p, n, &hlen);
    if (k == 0)
        return fail(d, "bad header length varint");
    if (hlen > n - k)
        return fail(d, "header length %llu exceeds frame of %u bytes", (unsigned long long)hlen, n);
    size_t rest = n - k - (size_t)hlen;
    f->header = p + k;
    f->header_len = (size_t)hlen;
    f->body = p + n;
    f->body_len = 0;
    if (rest == 0)
        return 1;
    size_t k2 = varint_get(f->header + hlen, rest, &blen);
    if (k2 == 0)
        return fail(d, "bad body length varint");
    if (blen != rest - k2)
        return fail(d, "body length %llu does not match the %zu bytes left in the frame",
                    (unsigned long long)blen, rest - k2);
    f->body = f->header + hlen + k2;
    f->body_len = (size_t)blen;
    return 1;
}

static int take_frame(rpc_frame_decoder *d, rpc_frame *f)
{
    size_t avail = rpc_frame_decoder_pending(d);
    if (avail < RPC_FRAME_LEN_BYTES)
        return 0;
    const uint8_t *p = d->in.data + d->pos;
    uint32_t n = be32_get(p);
    if (n == 0)
        return fail(d, "empty frame");
    if (n > d->max_frame)
        return fail(d, "frame of %u bytes exceeds the maximum %u", n, d->max_frame);
    if (avail - RPC_FRAME_LEN_BYTES < n)
        return 0;
    int rc = split_frame(d, p + RPC_FRAME_LEN_BYTES, n, f);
    if (rc == 1)
        d->pos += RPC_FRAME_LEN_BYTES + (size_t)n;
    return rc;
}

int rpc_frame_decoder_next(rpc_frame_decoder *d, rpc_frame *f)
{
    if (d->err)
        return st_error(d->err, "%s", d->reason);
    if (d->want_preamble) {
        int rc = take_preamble(d);
        if (rc <= 0)
            return rc;
    }
    return take_frame(d, f);
}

int rpc_frame_decoder_finish(rpc_frame_decoder *d)
{
    if (d->err)
        return st_error(d->err, "%s", d->reason);
    size_t avail = rpc_frame_decoder_pending(d);
    if (avail == 0)
        return ST_OK;
    if (d->want_preamble)
        return fail(d, "truncated preamble at end of stream: %zu of %d bytes", avail,
                    RPC_PREAMBLE_LEN);
    if (avail < RPC_FRAME_LEN_BYTES)
        return fail(d, "truncated frame at end of stream: %zu of %d length bytes", avail,
                    RPC_FRAME_LEN_BYTES);
    uint32_t n = be32_get(d->in.data + d->pos);
    return fail(d, "truncated frame at end of stream: %zu of %llu bytes", avail,
                (unsigned long long)n + RPC_FRAME_LEN_BYTES);
}
