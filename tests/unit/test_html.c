/*
 * test_html.c - common/http/html.h: text escaping, formatted text and markup, byte sizes,
 * the page frame, and toStringBinary as HBase writes it (every byte value checked).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/http/html.h"
#include "common/status.h"
#include "tests/support/testutil.h"

static void expect_buf(buf_t *b, const char *want)
{
    assert_int_equal(b->len, strlen(want));
    assert_memory_equal(b->data, want, b->len);
    buf_free(b);
}

static void text_is_escaped_markup_is_not(void **state)
{
    buf_t b = {0};
    html_doc d;
    html_init(&d, &b);
    html_raw(&d, "<td>");
    html_text(&d, "a<b>&\"c\"'d'");
    html_text(&d, NULL);
    html_textf(&d, "%s=%d", "<x>", 5);
    html_rawf(&d, "<i>%d</i>", 7);
    html_text_n(&d, "&&", 1);
    assert_int_equal(d.rc, ST_OK);
    expect_buf(&b, "<td>a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;&lt;x&gt;=5<i>7</i>&amp;");
    /* long formatted text goes through whole */
    char big[3000];
    memset(big, '<', sizeof(big) - 1);
    big[sizeof(big) - 1] = 0;
    html_init(&d, &b);
    html_textf(&d, "%s", big);
    assert_int_equal(b.len, 4 * (sizeof(big) - 1));
    buf_free(&b);
}

static void sizes(void **state)
{
    static const struct {
        uint64_t n;
        const char *s;
    } cases[] = {{0, "0 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {1536, "1.5 KiB"},
                 {5ull << 20, "5.0 MiB"}, {3ull << 40, "3.0 TiB"}, {UINT64_MAX, "16.0 EiB"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        buf_t b = {0};
        html_doc d;
        html_init(&d, &b);
        html_bytes(&d, cases[i].n);
        expect_buf(&b, cases[i].s);
    }
}

static void page_frame(void **state)
{
    buf_t b = {0};
    html_doc d;
    html_init(&d, &b);
    html_page_begin(&d, "A & B");
    assert_int_equal(html_page_end(&d), ST_OK);
    char *s = strndup((const char *)b.data, b.len);
    assert_non_null(strstr(s, "<!DOCTYPE html>"));
    assert_non_null(strstr(s, "<title>A &amp; B</title>"));
    assert_non_null(strstr(s, "<body>"));
    assert_int_equal(strcmp(s + strlen(s) - 15, "</body></html>\n"), 0);
    free(s);
    buf_free(&b);
}

static void to_string_binary_matches_hbase(void **state)
{
    /* HBase keeps [0-9A-Za-z] and ` ~!@#$%^&*()-_=+[]{}|;:'",.<>/?`, escapes the rest. */
    const char keep[] = " `~!@#$%^&*()-_=+[]{}|;:'\",.<>/?";
    for (int c = 0; c < 256; c++) {
        uint8_t byte = (uint8_t)c;
        buf_t b = {0};
        assert_int_equal(html_string_binary(&b, &byte, 1), ST_OK);
        bool plain = (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                     (c && memchr(keep, c, sizeof(keep) - 1));
        if (plain) {
            assert_int_equal(b.len, 1);
            assert_int_equal(b.data[0], c);
        } else {
            char want[8];
            snprintf(want, sizeof(want), "\\x%02X", c);
            expect_buf(&b, want);
        }
        buf_free(&b);
    }
    const uint8_t key[] = {'r', 'o', 'w', 0x00, 0xff, '\\', '<'};
    buf_t b = {0};
    assert_int_equal(html_string_binary(&b, key, sizeof(key)), ST_OK);
    expect_buf(&b, "row\\x00\\xFF\\x5C<");
    /* in a page it is also HTML-escaped */
    html_doc d;
    html_init(&d, &b);
    html_binary(&d, key, sizeof(key));
    expect_buf(&b, "row\\x00\\xFF\\x5C&lt;");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_is_escaped_markup_is_not),
        cmocka_unit_test(sizes),
        cmocka_unit_test(page_frame),
        cmocka_unit_test(to_string_binary_matches_hbase),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
