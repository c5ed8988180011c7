/*
 * test_rpc_frame.c - the RPC framing codec: frames split at every byte, byte-at-a-time
 * and many-per-chunk streams, and every way bytes can break the framing (bad preamble,
 * oversized, empty, bad or lying delimiters, truncation at end of stream).
 * Thread-safety: single-threaded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/rpc/rpc_frame.h"
#include "common/status.h"
#include "tests/support/testutil.h"

#define MAX_TEST_FRAME 4096

/* The frames of a test stream: header i is "h<i>", body i is i*37 % 1500 bytes of i. */
#define N_FRAMES 12

static void frame_parts(int i, char *hdr, size_t *hlen, uint8_t *body, size_t *blen)
{
    *hlen = (size_t)snprintf(hdr, 16, "h%d", i);
    *blen = (size_t)(i * 37 % 1500);
    memset(body, i, *blen);
}

/* preamble + N_FRAMES frames. */
static buf_t make_stream(bool preamble)
{
    buf_t s = {0};
    if (preamble) {
        uint8_t p[RPC_PREAMBLE_LEN];
        rpc_frame_preamble(p);
        assert_int_equal(buf_append(&s, p, sizeof(p)), ST_OK);
    }
    for (int i = 0; i < N_FRAMES; i++) {
        char hdr[16];
        uint8_t body[1500];
        size_t hlen, blen;
        frame_parts(i, hdr, &hlen, body, &blen);
        assert_int_equal(rpc_frame_encode(&s, hdr, hlen, body, blen, MAX_TEST_FRAME), ST_OK);
    }
    return s;
}

/* Takes every complete frame, checking each against frame_parts(*seen). */
static void take_all(rpc_frame_decoder *d, int *seen)
{
    rpc_frame f;
    int rc;
    while ((rc = rpc_frame_decoder_next(d, &f)) == 1) {
        char hdr[16];
        uint8_t body[1500];
        size_t hlen, blen;
        assert_true(*seen < N_FRAMES);
        frame_parts(*seen, hdr, &hlen, body, &blen);
        assert_int_equal(f.header_len, hlen);
        assert_memory_equal(f.header, hdr, hlen);
        assert_int_equal(f.body_len, blen);
        if (blen)
            assert_memory_equal(f.body, body, blen);
        (*seen)++;
    }
    assert_int_equal(rc, 0);
}

static void test_roundtrip_whole_stream(void **state)
{
    buf_t s = make_stream(true);
    rpc_frame_decoder d;
    rpc_frame_decoder_init(&d, MAX_TEST_FRAME, true);
    int seen = 0;
    assert_int_equal(rpc_frame_decoder_feed(&d, s.data, s.len), ST_OK);
    take_all(&d, &seen);
    assert_int_equal(seen, N_FRAMES);
    assert_int_equal(rpc_frame_decoder_pending(&d), 0);
    assert_int_equal(rpc_frame_decoder_finish(&d), ST_OK);
    rpc_frame_decoder_free(&d);
    buf_free(&s);
}

static void test_split_at_every_byte_offset(void **state)
{
    buf_t s = make_stream(true);
    for (size_t cut = 0; cut <= s.len; cut++) {
        rpc_frame_decoder d;
        rpc_frame_decoder_init(&d, MAX_TEST_FRAME, true);
        int seen = 0;
        assert_int_equal(rpc_frame_decoder_feed(&d, s.data, cut), ST_OK);
        take_all(&d, &seen);
        assert_int_equal(rpc_frame_decoder_feed(&d, s.data + cut, s.len - cut), ST_OK);
        take_all(&d, &seen);
        assert_int_equal(seen, N_FRAMES);
        assert_int_equal(rpc_frame_decoder_finish(&d), ST_OK);
        rpc_frame_decoder_free(&d);
    }
    buf_free(&s);
}

static void test_one_byte_at_a_time(void **state)
{
    buf_t s = make_stream(true);
    rpc_frame_decoder d;
    rpc_frame_decoder_init(&d, MAX_TEST_FRAME, true);
    int seen = 0;
    for (size_t i = 0; i < s.len; i++) {
        assert_int_equal(rpc_frame_decoder_feed(&d, s.data + i, 1), ST_OK);
        take_all(&d, &seen);
    }
    assert_int_equal(seen, N_FRAMES);
    assert_int_equal(rpc_frame_decoder_finish(&d), ST_OK);
    rpc_frame_decoder_free(&d);
    buf_free(&s);
}

static void test_many_frames_in_one_chunk(void **state)
{
    buf_t s = {0};
    for (uint32_t i = 0; i < 5000; i++) {
        uint8_t h[4];
        be32_put(h, i);
        assert_int_equal(rpc_frame_encode(&s, h, 4, &i, i % 3, 0), ST_OK);
    }
    rpc_frame_decoder d;
    rpc_frame_decoder_init(&d, 0, false);
    assert_int_equal(rpc_frame_decoder_feed(&d, s.data, s.len), ST_OK);
    rpc_frame f;
    uint32_t n = 0;
    while (rpc_frame_decoder_next(&d, &f) == 1) {
        assert_int_equal(f.header_len, 4);
        assert_int_equal(be32_get(f.header), n);
        assert_int_equal(f.body_len, n % 3);
        n++;
    }
    assert_int_equal(n, 5000);
    assert_int_equal(rpc_frame_decoder_finish(&d), ST_OK);
    rpc_frame_decoder_free(&d);
    buf_free(&s);
}

static void test_header_only_frame_has_empty_body(void **state)
{
    /* HBase's error answers end after the header: no body delimiter at all. */
    const uint8_t bytes[] = {0, 0, 0, 3, 2, 0x08, 0x07};
    rpc_frame_decoder d;
    rpc_frame_decoder_init(&d, 0, false);
    assert_int_equal(rpc_frame_decoder_feed(&d, bytes, sizeof(bytes)), ST_OK);
    rpc_frame f;
    assert_int_equal(rpc_frame_decoder_next(&d, &f), 1);
    assert_int_equal(f.header_len, 2);
    assert_int_equal(f.header[1], 0x07);
    assert_int_equal(f.body_len, 0);
    assert_int_equal(rpc_frame_decoder_next(&d, &f), 0);
    rpc_frame_decoder_free(&d);
}

static void test_encode_layout_and_size(void **state)
{
    buf_t s = {0};
    assert_int_equal(rpc_frame_encode(&s, "ab", 2, "xyz", 3, 0), ST_OK);
    const uint8_t want[] = {0, 0, 0, 7, 2, 'a', 'b', 3, 'x', 'y', 'z'};
    assert_int_equal(s.len, sizeof(want));
    assert_memory_equal(s.data, want, sizeof(want));
    assert_int_equal(rpc_frame_encoded_size(2, 3), sizeof(want));
    assert_int_equal(rpc_frame_encoded_size(200, 70000), 4 + 2 + 200 + 3 + 70000);
    buf_free(&s);
}

static void test_encode_rejects_oversized(void **state)
{
    buf_t s = {0};
    uint8_t body[100] = {0};
    /* length field = 1 + 1 + 1 + 100 = 103 */
    assert_int_equal(rpc_frame_encode(&s, "h", 1, body, 100, 102), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "exceeds the maximum 102"));
    assert_int_equal(s.len, 0);
    assert_int_equal(rpc_frame_encode(&s, "h", 1, body, 100, 103), ST_OK);
    buf_free(&s);
}

/* Feeds bytes to a fresh decoder and expects ST_PROTOCOL from next() with reason_part. */
static void expect_reject(const uint8_t *bytes, size_t len, bool preamble, uint32_t max,
                          const char *reason_part)
{
    rpc_frame_decoder d;
    rpc_frame_decoder_init(&d, max, preamble);
    rpc_frame f;
    assert_int_equal(rpc_frame_decoder_feed(&d, bytes, len), ST_OK);
    assert_int_equal(rpc_frame_decoder_next(&d, &f), ST_PROTOCOL);
    if (!strstr(rpc_frame_decoder_reason(&d), reason_part))
        fail_msg("reason '%s' lacks '%s'", rpc_frame_decoder_reason(&d), reason_part);
    assert_string_equal(st_errmsg(), rpc_frame_decoder_reason(&d));
    /* sticky */
    assert_int_equal(rpc_frame_decoder_feed(&d, "x", 1), ST_PROTOCOL);
    assert_int_equal(rpc_frame_decoder_next(&d, &f), ST_PROTOCOL);
    assert_int_equal(rpc_frame_decoder_finish(&d), ST_PROTOCOL);
    rpc_frame_decoder_free(&d);
}

static void test_corrupt_oversized_rejected_on_length_alone(void **state)
{
    const uint8_t big[] = {0x00, 0x00, 0x10, 0x01}; /* 4097 > 4096 */
    expect_reject(big, sizeof(big), false, MAX_TEST_FRAME, "frame of 4097 bytes exceeds");
    const uint8_t huge[] = {0xff, 0xff, 0xff, 0xff};
    expect_reject(huge, sizeof(huge), false, 0, "exceeds the maximum 67108864");
    /* exactly the maximum is fine: it waits for the bytes */
    rpc_frame_decoder d;
    rpc_frame_decoder_init(&d, MAX_TEST_FRAME, false);
    const uint8_t at_max[] = {0x00, 0x00, 0x10, 0x00};
    rpc_frame f;
    assert_int_equal(rpc_frame_decoder_feed(&d, at_max, 4), ST_OK);
    assert_int_equal(rpc_frame_decoder_next(&d, &f), 0);
    rpc_frame_decoder_free(&d);
}

static void test_corrupt_garbage_stream(void **state)
{
    const char *http = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    /* as a preamble */
    expect_reject((const uint8_t *)http, strlen(http), true, 0, "bad preamble");
    /* as a length: "GET " = 0x47455420 */
    expect_reject((const uint8_t *)http, strlen(http), false, 0, "exceeds the maximum");
    /* random garbage after a good preamble, seeded: every one is rejected or truncated */
    srand(7);
    for (int t = 0; t < 200; t++) {
        uint8_t g[64];
        rpc_frame_preamble(g);
        for (size_t i = RPC_PREAMBLE_LEN; i < sizeof(g); i++)
            g[i] = (uint8_t)rand();
        rpc_frame_decoder d;
        rpc_frame_decoder_init(&d, MAX_TEST_FRAME, true);
        rpc_frame f;
        int rc;
        assert_int_equal(rpc_frame_decoder_feed(&d, g, sizeof(g)), ST_OK);
        while ((rc = rpc_frame_decoder_next(&d, &f)) == 1)
            ;
        if (rc == 0)
            rc = rpc_frame_decoder_finish(&d);
        assert_true(rc == ST_PROTOCOL || rc == ST_OK);
        if (rc == ST_OK)
            assert_int_equal(rpc_frame_decoder_pending(&d), 0);
        rpc_frame_decoder_free(&d);
    }
}

static void test_corrupt_empty_frame(void **state)
{
    const uint8_t zero[] = {0, 0, 0, 0};
    expect_reject(zero, sizeof(zero), false, 0, "empty frame");
}

static void test_corrupt_bad_varints(void **state)
{
    /* header length varint runs past the frame end */
    const uint8_t runs_off[] = {0, 0, 0, 2, 0x80, 0x80};
    expect_reject(runs_off, sizeof(runs_off), false, 0, "bad header length varint");
    /* over-long varint: 11 continuation bytes */
    uint8_t overlong[4 + 11];
    be32_put(overlong, 11);
    memset(overlong + 4, 0xff, 11);
    expect_reject(overlong, sizeof(overlong), false, 0, "bad header length varint");
    /* header length larger than the frame */
    const uint8_t hdr_big[] = {0, 0, 0, 3, 90, 'a', 'b'};
    expect_reject(hdr_big, sizeof(hdr_big), false, 0, "header length 90 exceeds frame of 3");
    /* body delimiter truncated inside the frame */
    const uint8_t body_var[] = {0, 0, 0, 3, 1, 'h', 0x80};
    expect_reject(body_var, sizeof(body_var), false, 0, "bad body length varint");
    /* body length says more than is left */
    const uint8_t body_big[] = {0, 0, 0, 5, 1, 'h', 5, 'x', 'y'};
    expect_reject(body_big, sizeof(body_big), false, 0,
                  "body length 5 does not match the 2 bytes left");
    /* trailing bytes after the body */
    const uint8_t trailing[] = {0, 0, 0, 6, 1, 'h', 1, 'x', 'y', 'z'};
    expect_reject(trailing, sizeof(trailing), false, 0,
                  "body length 1 does not match the 3 bytes left");
}

static void test_corrupt_bad_preamble(void **state)
{
    uint8_t p[RPC_PREAMBLE_LEN];
    rpc_frame_preamble(p);
    assert_memory_equal(p, "STRA\x01\x50", RPC_PREAMBLE_LEN);
    assert_int_equal(rpc_frame_check_preamble(p), ST_OK);
    uint8_t bad[RPC_PREAMBLE_LEN];
    memcpy(bad, "HBas\x00\x50", RPC_PREAMBLE_LEN);
    expect_reject(bad, sizeof(bad), true, 0, "bad preamble: magic 48 42 61 73");
    memcpy(bad, p, sizeof(bad));
    bad[4] = 2;
    expect_reject(bad, sizeof(bad), true, 0, "version 2");
    memcpy(bad, p, sizeof(bad));
    bad[5] = 0x51;
    expect_reject(bad, sizeof(bad), true, 0, "auth 51");
}

static void test_truncated_then_end_of_stream(void **state)
{
    buf_t s = make_stream(true);
    /* every cut that is not at a frame boundary is reported by finish() */
    size_t boundaries = 0;
    for (size_t cut = 1; cut < s.len; cut++) {
        rpc_frame_decoder d;
        rpc_frame_decoder_init(&d, MAX_TEST_FRAME, true);
        int seen = 0;
        assert_int_equal(rpc_frame_decoder_feed(&d, s.data, cut), ST_OK);
        take_all(&d, &seen);
        int rc = rpc_frame_decoder_finish(&d);
        if (rpc_frame_decoder_pending(&d) == 0) {
            assert_int_equal(rc, ST_OK);
            boundaries++;
        } else {
            assert_int_equal(rc, ST_PROTOCOL);
            assert_non_null(strstr(rpc_frame_decoder_reason(&d), "truncated"));
        }
        rpc_frame_decoder_free(&d);
    }
    assert_int_equal(boundaries, N_FRAMES - 1 + 1); /* after the preamble and each inner frame */
    buf_free(&s);
}

static void test_truncated_reasons_name_the_sizes(void **state)
{
    rpc_frame_decoder d;
    rpc_frame_decoder_init(&d, 0, true);
    assert_int_equal(rpc_frame_decoder_feed(&d, "STR", 3), ST_OK);
    assert_int_equal(rpc_frame_decoder_finish(&d), ST_PROTOCOL);
    assert_string_equal(rpc_frame_decoder_reason(&d),
                        "truncated preamble at end of stream: 3 of 6 bytes");
    rpc_frame_decoder_free(&d);

    rpc_frame_decoder_init(&d, 0, false);
    const uint8_t part_len[] = {0, 0};
    assert_int_equal(rpc_frame_decoder_feed(&d, part_len, 2), ST_OK);
    assert_int_equal(rpc_frame_decoder_finish(&d), ST_PROTOCOL);
    assert_string_equal(rpc_frame_decoder_reason(&d),
                        "truncated frame at end of stream: 2 of 4 length bytes");
    rpc_frame_decoder_free(&d);

    /* header cut short, then body cut short */
    const uint8_t frame[] = {0, 0,   0,   15,  5,   'h', 'e', 'a', 'd', 'r',
                             8, 'b', 'o', 'd', 'y', '-', 'x', 'y', 'z'};
    size_t cuts[] = {7, 13};
    for (int i = 0; i < 2; i++) {
        rpc_frame_decoder_init(&d, 0, false);
        rpc_frame f;
        assert_int_equal(rpc_frame_decoder_feed(&d, frame, cuts[i]), ST_OK);
        assert_int_equal(rpc_frame_decoder_next(&d, &f), 0);
        assert_int_equal(rpc_frame_decoder_finish(&d), ST_PROTOCOL);
        char want[96];
        snprintf(want, sizeof(want), "truncated frame at end of stream: %zu of 19 bytes", cuts[i]);
        assert_string_equal(rpc_frame_decoder_reason(&d), want);
        rpc_frame_decoder_free(&d);
    }
    /* the whole frame decodes */
    rpc_frame_decoder_init(&d, 0, false);
    rpc_frame f;
    assert_int_equal(rpc_frame_decoder_feed(&d, frame, sizeof(frame)), ST_OK);
    assert_int_equal(rpc_frame_decoder_next(&d, &f), 1);
    assert_int_equal(f.body_len, 8);
    assert_memory_equal(f.body, "body-xyz", 8);
    rpc_frame_decoder_free(&d);
}

static void test_large_frame_buffer_released(void **state)
{
    size_t n = 3u << 20;
    uint8_t *body = calloc(1, n);
    assert_non_null(body);
    buf_t s = {0};
    assert_int_equal(rpc_frame_encode(&s, "h", 1, body, n, 0), ST_OK);
    assert_int_equal(rpc_frame_encode(&s, "g", 1, "b", 1, 0), ST_OK);
    rpc_frame_decoder d;
    rpc_frame_decoder_init(&d, 0, false);
    rpc_frame f;
    /* in 64 KiB chunks, as a socket would deliver it */
    int frames = 0;
    for (size_t off = 0; off < s.len; off += 65536) {
        size_t k = s.len - off < 65536 ? s.len - off : 65536;
        assert_int_equal(rpc_frame_decoder_feed(&d, s.data + off, k), ST_OK);
        while (rpc_frame_decoder_next(&d, &f) == 1)
            frames++;
    }
    assert_int_equal(frames, 2);
    assert_int_equal(rpc_frame_decoder_feed(&d, NULL, 0), ST_OK);
    assert_true(d.in.cap <= (1u << 20)); /* the 3 MiB buffer is not kept */
    rpc_frame_decoder_free(&d);
    buf_free(&s);
    free(body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_whole_stream),
        cmocka_unit_test(test_split_at_every_byte_offset),
        cmocka_unit_test(test_one_byte_at_a_time),
        cmocka_unit_test(test_many_frames_in_one_chunk),
        cmocka_unit_test(test_header_only_frame_has_empty_body),
        cmocka_unit_test(test_encode_layout_and_size),
        cmocka_unit_test(test_encode_rejects_oversized),
        cmocka_unit_test(test_corrupt_oversized_rejected_on_length_alone),
        cmocka_unit_test(test_corrupt_garbage_stream),
        cmocka_unit_test(test_corrupt_empty_frame),
        cmocka_unit_test(test_corrupt_bad_varints),
        cmocka_unit_test(test_corrupt_bad_preamble),
        cmocka_unit_test(test_truncated_then_end_of_stream),
        cmocka_unit_test(test_truncated_reasons_name_the_sizes),
        cmocka_unit_test(test_large_frame_buffer_released),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
