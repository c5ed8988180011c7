/*
 * test_bytes.c - big-endian encoders, LEB128 varints (round trip, truncated and
 * over-long input) and the growable buffer (common/bytes.h, common/buf.h).
 * Thread-safety: single-threaded tests.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/buf.h"
#include "common/bytes.h"
#include "common/status.h"
#include "tests/support/testutil.h"

static void test_be16_be32_be64_layout(void **state)
{
    uint8_t b[8];
    be16_put(b, 0x1234);
    assert_memory_equal(b, "\x12\x34", 2);
    assert_int_equal(be16_get(b), 0x1234);
    be32_put(b, 0xDEADBEEF);
    assert_memory_equal(b, "\xDE\xAD\xBE\xEF", 4);
    assert_int_equal(be32_get(b), 0xDEADBEEF);
    be64_put(b, 0x0102030405060708ull);
    assert_memory_equal(b, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
    assert_true(be64_get(b) == 0x0102030405060708ull);
}

static void test_be_round_trip_extremes(void **state)
{
    static const uint64_t vals[] = {0,           1,
                                    0x7f,        0x80,
                                    0xff,        0x100,
                                    0x7fff,      0x8000,
                                    0xffff,      0x80000000u,
                                    0xffffffffu, 0x8000000000000000ull,
                                    UINT64_MAX,  0x00ff00ff00ff00ffull};
    uint8_t b[8];
    for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
        be16_put(b, (uint16_t)vals[i]);
        assert_int_equal(be16_get(b), (uint16_t)vals[i]);
        be32_put(b, (uint32_t)vals[i]);
        assert_int_equal(be32_get(b), (uint32_t)vals[i]);
        be64_put(b, vals[i]);
        assert_true(be64_get(b) == vals[i]);
    }
    /* A negative int64 survives the unsigned round trip (cell timestamps). */
    be64_put(b, (uint64_t)INT64_MIN);
    assert_true((int64_t)be64_get(b) == INT64_MIN);
    assert_int_equal(b[0], 0x80);
}

static void test_varint_known_encodings(void **state)
{
    uint8_t b[10];
    assert_int_equal(varint_put(b, 0), 1);
    assert_int_equal(b[0], 0);
    assert_int_equal(varint_put(b, 127), 1);
    assert_int_equal(b[0], 0x7f);
    assert_int_equal(varint_put(b, 300), 2);
    assert_memory_equal(b, "\xAC\x02", 2);
    assert_int_equal(varint_put(b, UINT64_MAX), 10);
    assert_memory_equal(b, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 10);
}

static void test_varint_round_trip(void **state)
{
    uint8_t b[10];
    for (int shift = 0; shift < 64; shift++) {
        uint64_t base = (uint64_t)1 << shift;
        uint64_t vals[] = {base - 1, base, base + 1, base | (base >> 1), ~(uint64_t)0 >> shift};
        for (size_t i = 0; i < 5; i++) {
            uint64_t v = vals[i], got = 0;
            size_t n = varint_put(b, v);
            assert_int_equal(n, varint_len(v));
            assert_int_equal(varint_get(b, n, &got), n);
            assert_true(got == v);
            /* trailing bytes are not consumed */
            uint8_t c[12];
            memcpy(c, b, n);
            c[n] = 0x05;
            assert_int_equal(varint_get(c, n + 1, &got), n);
            assert_true(got == v);
        }
    }
}

static void test_corrupt_varint_truncated(void **state)
{
    uint8_t b[10];
    uint64_t got = 12345;
    size_t n = varint_put(b, UINT64_MAX - 3);
    for (size_t len = 0; len < n; len++) {
        assert_int_equal(varint_get(b, len, &got), 0);
        assert_true(got == 12345);
    }
    n = varint_put(b, 300);
    assert_int_equal(varint_get(b, 1, &got), 0);
}

static void test_corrupt_varint_overlong(void **state)
{
    uint8_t b[16];
    uint64_t got = 0;
    memset(b, 0x80, sizeof(b));
    b[10] = 0x00; /* 11 bytes */
    assert_int_equal(varint_get(b, sizeof(b), &got), 0);
    memset(b, 0xff, 10); /* ten continuation bytes, never terminated within 10 */
    assert_int_equal(varint_get(b, sizeof(b), &got), 0);
    memset(b, 0xff, 9);
    b[9] = 0x02; /* 10th byte carries bit 64 */
    assert_int_equal(varint_get(b, 10, &got), 0);
    b[9] = 0x7f;
    assert_int_equal(varint_get(b, 10, &got), 0);
    b[9] = 0x01; /* exactly UINT64_MAX */
    assert_int_equal(varint_get(b, 10, &got), 10);
    assert_true(got == UINT64_MAX);
}

static void test_buf_zeroed_is_empty(void **state)
{
    buf_t b = {0};
    assert_int_equal(b.len, 0);
    assert_int_equal(buf_append(&b, NULL, 0), ST_OK);
    assert_int_equal(b.len, 0);
    buf_free(&b);
    buf_free(&b); /* free twice is harmless */
    assert_null(b.data);
}

static void test_buf_appends_encode_big_endian(void **state)
{
    buf_t b = {0};
    assert_int_equal(buf_append_u8(&b, 0xAB), ST_OK);
    assert_int_equal(buf_append_be16(&b, 0x0102), ST_OK);
    assert_int_equal(buf_append_be32(&b, 0x03040506), ST_OK);
    assert_int_equal(buf_append_be64(&b, 0x0708090A0B0C0D0Eull), ST_OK);
    assert_int_equal(buf_append_varint(&b, 300), ST_OK);
    assert_int_equal(buf_append(&b, "xyz", 3), ST_OK);
    assert_int_equal(b.len, 1 + 2 + 4 + 8 + 2 + 3);
    assert_memory_equal(
        b.data, "\xAB\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0A\x0B\x0C\x0D\x0E\xAC\x02xyz", b.len);
    buf_free(&b);
}

static void test_buf_grows_keeping_content(void **state)
{
    buf_t b = {0};
    for (uint32_t i = 0; i < 100000; i++)
        assert_int_equal(buf_append_be32(&b, i), ST_OK);
    assert_int_equal(b.len, 400000);
    assert_true(b.cap >= b.len);
    for (uint32_t i = 0; i < 100000; i++)
        assert_int_equal(be32_get(b.data + 4 * i), i);
    buf_free(&b);
    assert_int_equal(b.len, 0);
    assert_int_equal(b.cap, 0);
}

static void test_buf_reserve_set_reset(void **state)
{
    buf_t b = {0};
    assert_int_equal(buf_reserve(&b, 1000), ST_OK);
    assert_true(b.cap >= 1000);
    assert_int_equal(b.len, 0);
    uint8_t *before = b.data;
    assert_int_equal(buf_append(&b, "hello", 5), ST_OK);
    assert_ptr_equal(b.data, before); /* reserved space is used without moving */
    assert_int_equal(buf_set(&b, "ab", 2), ST_OK);
    assert_int_equal(b.len, 2);
    assert_memory_equal(b.data, "ab", 2);
    size_t cap = b.cap;
    buf_reset(&b);
    assert_int_equal(b.len, 0);
    assert_int_equal(b.cap, cap);
    assert_ptr_equal(b.data, before);
    buf_free(&b);
}

static void test_buf_reserve_overflow_fails_unchanged(void **state)
{
    buf_t b = {0};
    assert_int_equal(buf_append(&b, "abc", 3), ST_OK);
    uint8_t *data = b.data;
    size_t cap = b.cap;
    assert_int_equal(buf_reserve(&b, SIZE_MAX), ST_NOMEM);
    assert_int_equal(buf_reserve(&b, SIZE_MAX - 2), ST_NOMEM);
    assert_int_equal(buf_append(&b, "x", SIZE_MAX - 1), ST_NOMEM);
    assert_ptr_equal(b.data, data);
    assert_int_equal(b.cap, cap);
    assert_int_equal(b.len, 3);
    assert_memory_equal(b.data, "abc", 3);
    buf_free(&b);
}

/* Appending or setting from the buffer's own bytes works even when it must grow. */
static void test_buf_self_append(void **state)
{
    buf_t b = {0};
    assert_int_equal(buf_append(&b, "0123456789", 10), ST_OK);
    for (int i = 0; i < 10; i++)
        assert_int_equal(buf_append(&b, b.data, b.len), ST_OK);
    assert_int_equal(b.len, 10 << 10);
    for (size_t i = 0; i < b.len; i++)
        assert_int_equal(b.data[i], '0' + i % 10);
    assert_int_equal(buf_set(&b, b.data + 3, 4), ST_OK);
    assert_int_equal(b.len, 4);
    assert_memory_equal(b.data, "3456", 4);
    buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_be16_be32_be64_layout),
        cmocka_unit_test(test_be_round_trip_extremes),
        cmocka_unit_test(test_varint_known_encodings),
        cmocka_unit_test(test_varint_round_trip),
        cmocka_unit_test(test_corrupt_varint_truncated),
        cmocka_unit_test(test_corrupt_varint_overlong),
        cmocka_unit_test(test_buf_zeroed_is_empty),
        cmocka_unit_test(test_buf_appends_encode_big_endian),
        cmocka_unit_test(test_buf_grows_keeping_content),
        cmocka_unit_test(test_buf_reserve_set_reset),
        cmocka_unit_test(test_buf_reserve_overflow_fails_unchanged),
        cmocka_unit_test(test_buf_self_append),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
