/*
 * test_rpc_header.c - RPC request/response headers: round trips, the worked example of
 * docs/rpc.md byte for byte, corrupt and incomplete headers, retryable statuses.
 * Thread-safety: single-threaded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/proto/rpc.pb-c.h"
#include "common/rpc/rpc_frame.h"
#include "common/rpc/rpc_header.h"
#include "common/status.h"
#include "tests/support/testutil.h"

/* Decodes the single frame in b (no preamble). */
static rpc_frame one_frame(rpc_frame_decoder *d, const buf_t *b)
{
    rpc_frame f;
    rpc_frame_decoder_init(d, 0, false);
    assert_int_equal(rpc_frame_decoder_feed(d, b->data, b->len), ST_OK);
    assert_int_equal(rpc_frame_decoder_next(d, &f), 1);
    assert_int_equal(rpc_frame_decoder_pending(d), 0);
    return f;
}

static void test_docs_worked_example_bytes(void **state)
{
    buf_t b = {0};
    assert_int_equal(rpc_header_encode_request(&b, 1, "Test.Echo", 250, "hi", 2, 0), ST_OK);
    const uint8_t want[] = {0x00, 0x00, 0x00, 0x14, 0x10, 0x08, 0x01, 0x1a, 0x09, 'T',  'e', 's',
                            't',  '.',  'E',  'c',  'h',  'o',  0x38, 0xfa, 0x01, 0x02, 'h', 'i'};
    assert_int_equal(b.len, sizeof(want));
    assert_memory_equal(b.data, want, sizeof(want));
    buf_reset(&b);
    assert_int_equal(rpc_header_encode_reply(&b, 1, "hi", 2, 0), ST_OK);
    const uint8_t ans[] = {0, 0, 0, 6, 0x02, 0x08, 0x01, 0x02, 'h', 'i'};
    assert_int_equal(b.len, sizeof(ans));
    assert_memory_equal(b.data, ans, sizeof(ans));
    buf_free(&b);
}

static void test_request_roundtrip(void **state)
{
    buf_t b = {0};
    assert_int_equal(
        rpc_header_encode_request(&b, 4000000000u, "ClientService.Get", 0, "body", 4, 0), ST_OK);
    rpc_frame_decoder d;
    rpc_frame f = one_frame(&d, &b);
    rpc_request_header h;
    assert_int_equal(rpc_header_decode_request(f.header, f.header_len, &h), ST_OK);
    assert_int_equal(h.call_id, 4000000000u);
    assert_int_equal(h.deadline_ms, 0);
    assert_string_equal(h.method, "ClientService.Get");
    assert_int_equal(f.body_len, 4);
    assert_memory_equal(f.body, "body", 4);
    rpc_frame_decoder_free(&d);
    buf_free(&b);
}

/* ExceptionResponse.hint (19) travels as opaque bytes with ST_REGION_MOVED; an error
 * without one decodes with no hint. */
static void test_error_hint_roundtrip(void **state)
{
    buf_t b = {0};
    const uint8_t hint[] = {0x0a, 0x03, 0x0a, 0x01, 'r'};
    assert_int_equal(rpc_header_encode_error_hint(&b, 7, ST_REGION_MOVED, "region r moved", true,
                                                  0, hint, sizeof(hint)),
                     ST_OK);
    rpc_frame_decoder d;
    rpc_frame f = one_frame(&d, &b);
    rpc_response_header h;
    assert_int_equal(rpc_header_decode_response(f.header, f.header_len, &h), ST_OK);
    assert_int_equal(h.code, ST_REGION_MOVED);
    assert_true(h.retryable);
    assert_int_equal(h.hint_len, sizeof(hint));
    assert_memory_equal(h.hint, hint, sizeof(hint));
    rpc_header_response_free(&h);
    assert_null(h.hint);
    Strata__Rpc__ResponseHeader *raw =
        strata__rpc__response_header__unpack(NULL, f.header_len, f.header);
    assert_non_null(raw);
    assert_true(raw->exception->has_hint);
    assert_string_equal(raw->exception->exception_class_name, "region moved");
    strata__rpc__response_header__free_unpacked(raw, NULL);
    rpc_frame_decoder_free(&d);

    buf_reset(&b);
    assert_int_equal(rpc_header_encode_error(&b, 8, ST_NOT_SERVING, "gone", true, 0), ST_OK);
    f = one_frame(&d, &b);
    assert_int_equal(rpc_header_decode_response(f.header, f.header_len, &h), ST_OK);
    assert_null(h.hint);
    assert_int_equal(h.hint_len, 0);
    rpc_header_response_free(&h);
    rpc_frame_decoder_free(&d);
    buf_free(&b);
}

static void test_error_roundtrip(void **state)
{
    buf_t b = {0};
    assert_int_equal(rpc_header_encode_error(&b, 9, ST_SERVER_BUSY, "queue full", true, 150),
                     ST_OK);
    rpc_frame_decoder d;
    rpc_frame f = one_frame(&d, &b);
    assert_int_equal(f.body_len, 0);
    rpc_response_header h;
    assert_int_equal(rpc_header_decode_response(f.header, f.header_len, &h), ST_OK);
    assert_int_equal(h.call_id, 9);
    assert_int_equal(h.code, ST_SERVER_BUSY);
    assert_true(h.retryable);
    assert_int_equal(h.retry_after_ms, 150);
    assert_string_equal(h.message, "queue full");
    rpc_header_response_free(&h);
    /* the class name slot carries the status name */
    Strata__Rpc__ResponseHeader *raw =
        strata__rpc__response_header__unpack(NULL, f.header_len, f.header);
    assert_non_null(raw);
    assert_string_equal(raw->exception->exception_class_name, "server busy");
    assert_true(raw->exception->has_do_not_retry);
    assert_false(raw->exception->do_not_retry);
    strata__rpc__response_header__free_unpacked(raw, NULL);
    rpc_frame_decoder_free(&d);

    buf_reset(&b);
    assert_int_equal(rpc_header_encode_error(&b, 10, ST_UNSUPPORTED, NULL, false, 0), ST_OK);
    f = one_frame(&d, &b);
    assert_int_equal(rpc_header_decode_response(f.header, f.header_len, &h), ST_OK);
    assert_int_equal(h.code, ST_UNSUPPORTED);
    assert_false(h.retryable);
    assert_int_equal(h.retry_after_ms, 0);
    assert_string_equal(h.message, "");
    rpc_header_response_free(&h);
    rpc_frame_decoder_free(&d);
    buf_free(&b);
}

static void test_success_reply_has_no_message(void **state)
{
    buf_t b = {0};
    assert_int_equal(rpc_header_encode_reply(&b, 77, NULL, 0, 0), ST_OK);
    rpc_frame_decoder d;
    rpc_frame f = one_frame(&d, &b);
    rpc_response_header h;
    assert_int_equal(rpc_header_decode_response(f.header, f.header_len, &h), ST_OK);
    assert_int_equal(h.call_id, 77);
    assert_int_equal(h.code, ST_OK);
    assert_null(h.message);
    rpc_frame_decoder_free(&d);
    buf_free(&b);
}

static void test_corrupt_headers_rejected(void **state)
{
    rpc_request_header rq;
    rpc_response_header rs;
    const uint8_t garbage[] = {0xff, 0xff, 0xff, 0xff, 0xff};
    assert_int_equal(rpc_header_decode_request(garbage, sizeof(garbage), &rq), ST_PROTOCOL);
    assert_non_null(strstr(st_errmsg(), "undecodable request header"));
    assert_int_equal(rpc_header_decode_response(garbage, sizeof(garbage), &rs), ST_PROTOCOL);
    /* a valid message missing what a call needs */
    const uint8_t no_method[] = {0x08, 0x05};  /* call_id only */
    const uint8_t no_id[] = {0x1a, 0x01, 'M'}; /* method only */
    const uint8_t empty[] = {0};
    assert_int_equal(rpc_header_decode_request(no_method, 2, &rq), ST_PROTOCOL);
    assert_int_equal(rpc_header_decode_request(no_id, 3, &rq), ST_PROTOCOL);
    assert_int_equal(rpc_header_decode_request(empty, 0, &rq), ST_PROTOCOL);
    assert_int_equal(rpc_header_decode_response(empty, 0, &rs), ST_PROTOCOL);
    /* a method name over the limit */
    char longname[RPC_METHOD_MAX + 2];
    memset(longname, 'm', sizeof(longname) - 1);
    longname[sizeof(longname) - 1] = '\0';
    Strata__Rpc__RequestHeader h = STRATA__RPC__REQUEST_HEADER__INIT;
    h.has_call_id = 1;
    h.call_id = 3;
    h.method_name = longname;
    uint8_t packed[300];
    size_t n = strata__rpc__request_header__pack(&h, packed);
    assert_int_equal(rpc_header_decode_request(packed, n, &rq), ST_PROTOCOL);
    buf_t b = {0};
    assert_int_equal(rpc_header_encode_request(&b, 1, longname, 0, NULL, 0, 0),
                     ST_INVALID_ARGUMENT);
    assert_int_equal(rpc_header_encode_request(&b, 1, "", 0, NULL, 0, 0), ST_INVALID_ARGUMENT);
    assert_int_equal(b.len, 0);
}

static void test_exception_without_code_is_internal(void **state)
{
    /* An HBase-style exception: class name and do_not_retry, no Strata code. */
    Strata__Rpc__ExceptionResponse e = STRATA__RPC__EXCEPTION_RESPONSE__INIT;
    e.exception_class_name = "org.apache.hadoop.hbase.DoNotRetryIOException";
    e.has_do_not_retry = 1;
    e.do_not_retry = 1;
    Strata__Rpc__ResponseHeader h = STRATA__RPC__RESPONSE_HEADER__INIT;
    h.has_call_id = 1;
    h.call_id = 5;
    h.exception = &e;
    uint8_t packed[200];
    size_t n = strata__rpc__response_header__pack(&h, packed);
    rpc_response_header out;
    assert_int_equal(rpc_header_decode_response(packed, n, &out), ST_OK);
    assert_int_equal(out.code, ST_INTERNAL);
    assert_false(out.retryable);
    rpc_header_response_free(&out);
    /* a positive code is not a status either */
    e.has_code = 1;
    e.code = 7;
    n = strata__rpc__response_header__pack(&h, packed);
    assert_int_equal(rpc_header_decode_response(packed, n, &out), ST_OK);
    assert_int_equal(out.code, ST_INTERNAL);
    rpc_header_response_free(&out);
}

static void test_retryable_statuses(void **state)
{
    const int yes[] = {ST_SERVER_BUSY, ST_REGION_TOO_BUSY, ST_NOT_SERVING, ST_REGION_OPENING,
                       ST_REGION_MOVED, ST_TIMEOUT,        ST_CLOSED,      ST_CONNECTION};
    const int no[] = {
        ST_OK,          ST_IO,       ST_CORRUPTION, ST_INVALID_ARGUMENT, ST_UNKNOWN_FAMILY,
        ST_UNSUPPORTED, ST_PROTOCOL, ST_INTERNAL};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        assert_true(rpc_status_retryable(yes[i]));
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        assert_false(rpc_status_retryable(no[i]));
    /* the network codes are wire constants with names */
    assert_int_equal(ST_CONNECTION, -100);
    assert_int_equal(ST_PROTOCOL, -101);
    assert_string_equal(st_strerror(ST_CONNECTION), "connection error");
    assert_string_equal(st_strerror(ST_PROTOCOL), "protocol error");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_docs_worked_example_bytes),
        cmocka_unit_test(test_request_roundtrip),
        cmocka_unit_test(test_error_roundtrip),
        cmocka_unit_test(test_success_reply_has_no_message),
        cmocka_unit_test(test_corrupt_headers_rejected),
        cmocka_unit_test(test_exception_without_code_is_internal),
        cmocka_unit_test(test_retryable_statuses),
        cmocka_unit_test(test_error_hint_roundtrip),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
