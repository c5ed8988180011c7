/*
 * test_crc32c.c - CRC-32C against the published vectors (RFC 3720 B.4), the hardware
 * path against the software path, and incremental extension.
 * Thread-safety: single-threaded tests.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"
#include "tests/support/testutil.h"

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

static void check_vector(const void *data, size_t n, uint32_t want)
{
    assert_int_equal(crc32c_value(data, n), want);
    assert_int_equal(crc32c_extend(0, data, n), want);
    assert_int_equal(crc32c_extend_sw(0, data, n), want);
}

static void test_rfc3720_zeros(void **state)
{
    uint8_t buf[32];
    memset(buf, 0, sizeof(buf));
    check_vector(buf, sizeof(buf), 0x8A9136AA);
}

static void test_rfc3720_ones(void **state)
{
    uint8_t buf[32];
    memset(buf, 0xff, sizeof(buf));
    check_vector(buf, sizeof(buf), 0x62A8AB43);
}

static void test_rfc3720_ascending(void **state)
{
    uint8_t buf[32];
    for (int i = 0; i < 32; i++)
        buf[i] = (uint8_t)i;
    check_vector(buf, sizeof(buf), 0x46DD794E);
}

static void test_rfc3720_descending(void **state)
{
    uint8_t buf[32];
    for (int i = 0; i < 32; i++)
        buf[i] = (uint8_t)(31 - i);
    check_vector(buf, sizeof(buf), 0x113FDB5C);
}

static void test_rfc3720_iscsi_read_command(void **state)
{
    static const uint8_t cmd[48] = {
        0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
        0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    check_vector(cmd, sizeof(cmd), 0xD9963A56);
}

static void test_check_string(void **state)
{
    check_vector("123456789", 9, 0xE3069283);
    check_vector("", 0, 0);
    check_vector("a", 1, 0xC1D04330);
}

static void fill_random(uint8_t *p, size_t n, unsigned *seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)rand_r(seed);
}

/* Every length 0..300 at every start offset 0..15: the dispatching path equals software. */
static void test_hw_matches_sw(void **state)
{
    unsigned seed = 42;
    uint8_t buf[300 + 16];
    for (int round = 0; round < 4; round++) {
        fill_random(buf, sizeof(buf), &seed);
        for (size_t off = 0; off < 16; off++)
            for (size_t n = 0; n + off <= sizeof(buf) && n <= 300; n++) {
                uint32_t init = round & 1 ? (uint32_t)rand_r(&seed) : 0;
                assert_int_equal(crc32c_extend(init, buf + off, n),
                                 crc32c_extend_sw(init, buf + off, n));
            }
    }
}

static void test_hw_available_matches_cpu(void **state)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    assert_int_equal(crc32c_hw_available(), __builtin_cpu_supports("sse4.2") != 0);
#else
    assert_false(crc32c_hw_available());
#endif
    assert_int_equal(crc32c_hw_available(), crc32c_hw_available());
}

/* Extending over any split (and a three-way split) equals one pass, on both paths. */
static void check_pieces(crc_fn fn, const uint8_t *buf, size_t n)
{
    uint32_t whole = fn(0, buf, n);
    for (size_t a = 0; a <= n; a++) {
        assert_int_equal(fn(fn(0, buf, a), buf + a, n - a), whole);
        size_t b = a + (n - a) / 3;
        assert_int_equal(fn(fn(fn(0, buf, a), buf + a, b - a), buf + b, n - b), whole);
    }
}

static void test_extend_in_pieces(void **state)
{
    unsigned seed = 7;
    uint8_t buf[300];
    fill_random(buf, sizeof(buf), &seed);
    check_pieces(crc32c_extend, buf, sizeof(buf));
    check_pieces(crc32c_extend_sw, buf, sizeof(buf));
    check_pieces(crc32c_extend, (const uint8_t *)"123456789", 9);
}

/* A single flipped bit anywhere must change the checksum. */
static void test_corrupt_bit_flip_detected(void **state)
{
    unsigned seed = 9;
    uint8_t buf[1000];
    fill_random(buf, sizeof(buf), &seed);
    uint32_t good = crc32c_value(buf, sizeof(buf));
    for (size_t i = 0; i < sizeof(buf); i += 13)
        for (int bit = 0; bit < 8; bit++) {
            buf[i] ^= (uint8_t)(1u << bit);
            assert_int_not_equal(crc32c_value(buf, sizeof(buf)), good);
            assert_int_not_equal(crc32c_extend_sw(0, buf, sizeof(buf)), good);
            buf[i] ^= (uint8_t)(1u << bit);
        }
    assert_int_equal(crc32c_value(buf, sizeof(buf)), good);
}

/* Large unaligned buffer: both paths agree (exercises the 8-byte loops at length). */
static void test_hw_matches_sw_large(void **state)
{
    unsigned seed = 11;
    size_t n = 1 << 20;
    uint8_t *buf = malloc(n + 8);
    assert_non_null(buf);
    fill_random(buf, n + 8, &seed);
    for (size_t off = 0; off < 8; off += 3)
        assert_int_equal(crc32c_extend(0, buf + off, n), crc32c_extend_sw(0, buf + off, n));
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc3720_zeros),
        cmocka_unit_test(test_rfc3720_ones),
        cmocka_unit_test(test_rfc3720_ascending),
        cmocka_unit_test(test_rfc3720_descending),
        cmocka_unit_test(test_rfc3720_iscsi_read_command),
        cmocka_unit_test(test_check_string),
        cmocka_unit_test(test_hw_matches_sw),
        cmocka_unit_test(test_hw_available_matches_cpu),
        cmocka_unit_test(test_extend_in_pieces),
        cmocka_unit_test(test_corrupt_bit_flip_detected),
        cmocka_unit_test(test_hw_matches_sw_large),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
