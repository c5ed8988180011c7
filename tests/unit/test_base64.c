/*
 * test_base64.c - common/base64.h: the RFC 4648 test vectors both ways, every byte value
 * and long random buffers (seeded, tu_seed) round-tripping padded and unpadded, a final
 * group of 2 or 3 characters accepted without padding, and strict decoding: characters
 * outside the alphabet (space, '-', '_', newline, non-ASCII), a length of 4k+1, padding
 * in the middle, too much padding, padded text whose length is not a multiple of 4 and
 * unused bits set in the last character are each ST_INVALID_ARGUMENT with a message
 * naming the offset, and leave the output buffer as it was (decode appends to it).
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

#include "common/base64.h"
#include "common/buf.h"
#include "common/status.h"
#include "tests/support/testutil.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* splitmix64: a small deterministic generator for the seeded cases. */
static uint64_t next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Encodes data[0..n) into a fresh buffer and checks it is want (NULL: only its length). */
static void expect_encode(const void *data, size_t n, const char *want)
{
    buf_t b = {0};
    assert_int_equal(base64_encode(&b, data, n), ST_OK);
    assert_int_equal(b.len, base64_encoded_len(n));
    if (want) {
        assert_int_equal(b.len, strlen(want));
        assert_memory_equal(b.data, want, b.len);
    }
    buf_free(&b);
}

/* Decodes text (which must succeed) and checks the bytes are want[0..want_len). */
static void expect_decode(const char *text, size_t len, const void *want, size_t want_len)
{
    buf_t b = {0};
    int rc = base64_decode(&b, text, len);
    if (rc != ST_OK)
        fail_msg("decode \"%.*s\": %s: %s", (int)len, text, st_strerror(rc), st_errmsg());
    if (b.len != want_len || (want_len && memcmp(b.data, want, want_len) != 0))
        fail_msg("decode \"%.*s\": %zu bytes, want %zu", (int)len, text, b.len, want_len);
    buf_free(&b);
}

/* Decodes text[0..len), which must fail with ST_INVALID_ARGUMENT and a message holding
 * "offset <offset>" and frag (if not NULL), onto a buffer already holding bytes that must
 * be left exactly as they were. */
static void expect_reject_n(const char *text, size_t len, size_t offset, const char *frag)
{
    static const char prefix[] = "kept";
    buf_t b = {0};
    assert_int_equal(buf_append(&b, prefix, 4), ST_OK);
    st_clear();
    int rc = base64_decode(&b, text, len);
    if (rc != ST_INVALID_ARGUMENT)
        fail_msg("decode \"%.*s\": got %s (%s), want ST_INVALID_ARGUMENT", (int)len, text,
                 st_strerror(rc), st_errmsg());
    char want[64];
    snprintf(want, sizeof(want), "offset %zu", offset);
    if (strstr(st_errmsg(), want) == NULL)
        fail_msg("decode \"%.*s\": message \"%s\" lacks \"%s\"", (int)len, text, st_errmsg(), want);
    if (frag && strstr(st_errmsg(), frag) == NULL)
        fail_msg("decode \"%.*s\": message \"%s\" lacks \"%s\"", (int)len, text, st_errmsg(), frag);
    if (strncmp(st_errmsg(), "base64: ", 8) != 0)
        fail_msg("decode \"%.*s\": message \"%s\" does not start with \"base64: \"", (int)len, text,
                 st_errmsg());
    assert_int_equal(b.len, 4);
    assert_memory_equal(b.data, prefix, 4);
    buf_free(&b);
}

static void expect_reject(const char *text, size_t offset, const char *frag)
{
    expect_reject_n(text, strlen(text), offset, frag);
}

/* ---- valid text ---- */

static void test_rfc4648_vectors(void **state)
{
    static const struct {
        const char *plain;
        const char *enc;
    } v[] = {
        {"", ""},
        {"f", "Zg=="},
        {"fo", "Zm8="},
        {"foo", "Zm9v"},
        {"foob", "Zm9vYg=="},
        {"fooba", "Zm9vYmE="},
        {"foobar", "Zm9vYmFy"},
    };
    for (size_t i = 0; i < N(v); i++) {
        expect_encode(v[i].plain, strlen(v[i].plain), v[i].enc);
        expect_decode(v[i].enc, strlen(v[i].enc), v[i].plain, strlen(v[i].plain));
    }
    assert_int_equal(base64_encoded_len(0), 0);
    assert_int_equal(base64_encoded_len(1), 4);
    assert_int_equal(base64_encoded_len(3), 4);
    assert_int_equal(base64_encoded_len(4), 8);
    /* the two characters outside letters and digits */
    static const uint8_t hi[] = {0xfb, 0xff, 0xbf};
    expect_encode(hi, sizeof(hi), "+/+/");
    expect_decode("+/+/", 4, hi, sizeof(hi));
}

static void test_every_byte_value_round_trips(void **state)
{
    uint8_t all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (uint8_t)i;
    /* the whole table at once */
    buf_t whole = {0};
    assert_int_equal(base64_encode(&whole, all, 256), ST_OK);
    assert_int_equal(whole.len, 344);
    expect_decode((const char *)whole.data, whole.len, all, 256);
    buf_free(&whole);
    /* every byte alone, padded and unpadded */
    for (int i = 0; i < 256; i++) {
        for (size_t w = 1; w <= 3; w++) {
            /* the byte at each position of a group */
            uint8_t in[3] = {0x55, 0xaa, 0x55};
            in[w - 1] = (uint8_t)i;
            buf_t e = {0};
            assert_int_equal(base64_encode(&e, in, w), ST_OK);
            assert_int_equal(e.len, 4);
            expect_decode((const char *)e.data, e.len, in, w);
            size_t bare = e.len;
            while (bare > 0 && e.data[bare - 1] == '=')
                bare--;
            assert_int_equal(bare, w + 1);
            expect_decode((const char *)e.data, bare, in, w);
            buf_free(&e);
        }
    }
}

static void test_random_buffers_round_trip(void **state)
{
    uint64_t s = tu_seed(__func__);
    uint8_t *data = malloc(1 << 16);
    assert_non_null(data);
    for (int round = 0; round < 200; round++) {
        size_t n = round < 8 ? (size_t)round : next_rand(&s) % (round % 10 == 0 ? 65536 : 1024);
        for (size_t i = 0; i < n; i++)
            data[i] = (uint8_t)next_rand(&s);
        buf_t e = {0};
        assert_int_equal(base64_encode(&e, data, n), ST_OK);
        assert_int_equal(e.len, base64_encoded_len(n));
        for (size_t i = 0; i < e.len; i++) {
            char c = (char)e.data[i];
            if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '+' || c == '/' || (c == '=' && i + 2 >= e.len)))
                fail_msg("round %d: byte %zu of the encoding is '%c'", round, i, c);
        }
        expect_decode((const char *)e.data, e.len, data, n);
        size_t bare = e.len;
        while (bare > 0 && e.data[bare - 1] == '=')
            bare--;
        expect_decode((const char *)e.data, bare, data, n);
        buf_free(&e);
    }
    free(data);
}

static void test_unpadded_last_group_accepted(void **state)
{
    expect_decode("Zg", 2, "f", 1);
    expect_decode("Zm8", 3, "fo", 2);
    expect_decode("Zm9vYg", 6, "foob", 4);
    expect_decode("Zm9vYmE", 7, "fooba", 5);
    expect_decode("aGk", 3, "hi", 2);
}

static void test_encode_and_decode_append(void **state)
{
    buf_t b = {0};
    assert_int_equal(buf_append(&b, "<", 1), ST_OK);
    assert_int_equal(base64_encode(&b, "foo", 3), ST_OK);
    assert_int_equal(base64_encode(&b, "f", 1), ST_OK);
    assert_int_equal(base64_encode(&b, NULL, 0), ST_OK);
    assert_int_equal(b.len, 9);
    assert_memory_equal(b.data, "<Zm9vZg==", 9);
    buf_reset(&b);
    assert_int_equal(buf_append(&b, "ab", 2), ST_OK);
    assert_int_equal(base64_decode(&b, "Zm9v", 4), ST_OK);
    assert_int_equal(base64_decode(&b, "", 0), ST_OK);
    assert_int_equal(base64_decode(&b, "YmFy", 4), ST_OK);
    assert_int_equal(b.len, 8);
    assert_memory_equal(b.data, "abfoobar", 8);
    /* a decoded NUL is data like any other byte */
    assert_int_equal(base64_decode(&b, "AA==", 4), ST_OK);
    assert_int_equal(b.len, 9);
    assert_int_equal(b.data[8], 0);
    buf_free(&b);
}

/* ---- strict rejections: each names the offset and leaves the buffer alone ---- */

static void test_bad_characters_rejected(void **state)
{
    expect_reject("Zm9v YmF", 4, "' '");
    expect_reject(" Zm9", 0, "' '");
    expect_reject("Zm9-", 3, "'-'");
    expect_reject("Zm9_", 3, "'_'");
    expect_reject("Zm9vYmE\n", 7, "0x0a");
    expect_reject("Zm9v\nYmF", 4, "0x0a");
    expect_reject("Zm9v\r\nYmFy", 4, "0x0d");
    expect_reject("Zm\tv", 2, "0x09");
    expect_reject("Zm9\x80", 3, "0x80");
    expect_reject("\xc3\xa9xy", 0, "0xc3");
    expect_reject("Zm9vYmF\xff", 7, "0xff");
    expect_reject("Zm.v", 2, "'.'");
    expect_reject("Zm9v*A==", 4, "'*'");
    expect_reject_n("Zm\0v", 4, 2, "0x00");
}

static void test_truncated_length_rejected(void **state)
{
    /* 4k+1 characters cannot be a group: the offset is the lone last character */
    expect_reject("a", 0, "truncated");
    expect_reject("Zm9vY", 4, NULL);
    expect_reject("Zm9vYmFyZ", 8, NULL);
}

static void test_misplaced_padding_rejected(void **state)
{
    /* padding in the middle: the first '=' that is data */
    expect_reject("aGk=aGk=", 3, "'='");
    expect_reject("Zg==Zg==", 2, "'='");
    expect_reject("=Zm9", 0, "'='");
    expect_reject("Zm=v", 2, "'='");
    /* too much padding */
    expect_reject("a===", 1, "'='");
    expect_reject("====", 0, "'='");
    expect_reject("Zm9v====", 4, "'='");
    /* padded text whose length is not a multiple of 4 */
    expect_reject("=", 0, "multiple of 4");
    expect_reject("==", 0, "multiple of 4");
    expect_reject("Zg=", 2, "multiple of 4");
    expect_reject("Zm8==", 3, "multiple of 4");
    expect_reject("Zm9vYg=", 6, "multiple of 4");
    expect_reject("Zm9vY===", 5, "'='");
}

static void test_unused_bits_rejected(void **state)
{
    expect_decode("aGk=", 4, "hi", 2);
    expect_reject("aGl=", 2, "unused bits");
    expect_reject("aGl", 2, "unused bits");
    expect_decode("Zg==", 4, "f", 1);
    expect_reject("Zh==", 1, "unused bits");
    expect_reject("Z/==", 1, "unused bits");
    expect_reject("Zm9vYh", 5, "unused bits");
    expect_reject("Zm9=", 2, "unused bits");
    expect_decode("Zm8=", 4, "fo", 2);
    /* every non-zero value of the unused bits */
    static const char l2[] = "ABCDEFGHIJKLMNOP", l3[] = "ABCD";
    for (int v = 1; v < 16; v++) {
        char t[5] = {'Z', l2[v], '=', '=', 0};
        expect_reject(t, 1, "unused bits");
    }
    for (int v = 1; v < 4; v++) {
        char t[5] = {'Z', 'm', l3[v], '=', 0};
        expect_reject(t, 2, "unused bits");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc4648_vectors),
        cmocka_unit_test(test_every_byte_value_round_trips),
        cmocka_unit_test(test_random_buffers_round_trip),
        cmocka_unit_test(test_unpadded_last_group_accepted),
        cmocka_unit_test(test_encode_and_decode_append),
        cmocka_unit_test(test_bad_characters_rejected),
        cmocka_unit_test(test_truncated_length_rejected),
        cmocka_unit_test(test_misplaced_padding_rejected),
        cmocka_unit_test(test_unused_bits_rejected),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
