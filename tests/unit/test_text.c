/*
 * test_text.c - common/text.h: every code point round-trips through encode and
 * decode with the shortest length; the malformed sequences (bad lead bytes, bad or missing
 * continuation bytes, overlong forms, surrogates, past U+10FFFF, cut short) decode as 0;
 * line and column of offsets before, at and after newlines and past the end.
 * Thread-safety: single-threaded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/text.h"

static void test_round_trip_every_code_point(void **state)
{
    (void)state;
    for (uint32_t cp = 0; cp <= 0x10ffff; cp++) {
        if (cp >= 0xd800 && cp <= 0xdfff)
            continue;
        uint8_t u[4];
        size_t n = text_utf8_encode(cp, u);
        size_t want = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
        assert_int_equal(n, want);
        uint32_t back = 0xffffffffu;
        assert_int_equal(text_utf8_decode(u, n, &back), n);
        assert_int_equal(back, cp);
        /* cut short by one byte it is not a sequence */
        if (n > 1)
            assert_int_equal(text_utf8_decode(u, n - 1, NULL), 0);
    }
}

static void test_malformed(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        size_t n;
    } bad[] = {
        {"\x80", 1},             /* a lone continuation byte */
        {"\xbf", 1},
        {"\xc0\x80", 2},         /* overlong NUL */
        {"\xc1\xbf", 2},         /* overlong */
        {"\xe0\x80\x80", 3},     /* overlong three-byte */
        {"\xe0\x9f\xbf", 3},     /* overlong U+07FF */
        {"\xf0\x8f\xbf\xbf", 4}, /* overlong U+FFFF */
        {"\xed\xa0\x80", 3},     /* U+D800 */
        {"\xed\xbf\xbf", 3},     /* U+DFFF */
        {"\xf4\x90\x80\x80", 4}, /* U+110000 */
        {"\xf5\x80\x80\x80", 4}, /* lead byte past F4 */
        {"\xff", 1},
        {"\xc3\x28", 2},         /* second byte not a continuation */
        {"\xe2\x82\x28", 3},
        {"\xf0\x9f\x98", 3},     /* four-byte sequence cut short */
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        uint32_t cp = 12345;
        assert_int_equal(text_utf8_decode((const uint8_t *)bad[i].s, bad[i].n, &cp), 0);
        assert_int_equal(cp, 12345); /* untouched */
    }
    /* the edges that are valid */
    assert_int_equal(text_utf8_decode((const uint8_t *)"\xf4\x8f\xbf\xbf", 4, NULL), 4);
    assert_int_equal(text_utf8_decode((const uint8_t *)"\xee\x80\x80", 3, NULL), 3);
    assert_int_equal(text_utf8_decode((const uint8_t *)"\x7f", 1, NULL), 1);
}

static void test_line_col(void **state)
{
    (void)state;
    const char *t = "ab\ncd\n\nx";
    size_t len = strlen(t), line, col;
    static const struct {
        size_t at, line, col;
    } want[] = {
        {0, 1, 1}, {1, 1, 2}, {2, 1, 3}, {3, 2, 1}, {4, 2, 2},
        {6, 3, 1}, {7, 4, 1}, {8, 4, 2}, {100, 4, 2},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        text_line_col(t, len, want[i].at, &line, &col);
        assert_int_equal(line, want[i].line);
        assert_int_equal(col, want[i].col);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_every_code_point),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_line_col),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
