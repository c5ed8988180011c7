/*
 * test_shell_convert.c - the shell's converters (shell_convert.c) against what Java's
 * org.apache.hadoop.hbase.util.Bytes prints: toInt/toLong/toShort of exact, longer (the
 * first bytes) and shorter values (Java's message), toFloat/toDouble as Float.toString and
 * Double.toString (plain and E notation, NaN, infinities, signed zero, shortest digits),
 * toBoolean, toHex, len, toString with invalid UTF-8, toStringBinary; converter specs
 * (bare, c(Bytes).m, c(org.apache.hadoop.hbase.util.Bytes).m, refused classes and
 * methods); column specs 'cf:q:toInt' and qualifiers with colons; FORMATTER options.
 * Thread-safety: single-threaded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "common/status.h"
#include "shell/shell_internal.h"
#include "shell/shell_parse.h"

static const char *conv(shell_conv c, const void *v, size_t len)
{
    static char out[256];
    buf_t b = {0};
    st_clear();
    int rc = shell_conv_apply(c, v, len, &b);
    snprintf(out, sizeof(out), "%s", rc == ST_OK ? (b.data ? (char *)b.data : "") : st_errmsg());
    buf_free(&b);
    return out;
}

static const char *conv_d(shell_conv c, double d)
{
    uint8_t v[8];
    if (c == SHELL_CONV_FLOAT) {
        float f = (float)d;
        uint32_t bits;
        memcpy(&bits, &f, 4);
        for (int i = 0; i < 4; i++)
            v[i] = (uint8_t)(bits >> (24 - 8 * i));
        return conv(c, v, 4);
    }
    uint64_t bits;
    memcpy(&bits, &d, 8);
    for (int i = 0; i < 8; i++)
        v[i] = (uint8_t)(bits >> (56 - 8 * i));
    return conv(c, v, 8);
}

static void test_integers(void **state)
{
    (void)state;
    assert_string_equal(conv(SHELL_CONV_INT, "\x00\x00\x00\x2a", 4), "42");
    assert_string_equal(conv(SHELL_CONV_INT, "\xff\xff\xff\xfe", 4), "-2");
    assert_string_equal(conv(SHELL_CONV_INT, "\x80\x00\x00\x00", 4), "-2147483648");
    /* longer: the first four bytes, as Java's Bytes.toInt(byte[]) */
    assert_string_equal(conv(SHELL_CONV_INT, "\x00\x00\x00\x00\x00\x00\x00\x2a", 8), "0");
    assert_string_equal(conv(SHELL_CONV_INT, "42", 2),
                        "offset (0) + length (4) exceed the capacity of the array: 2");
    assert_string_equal(conv(SHELL_CONV_LONG, "\x00\x00\x00\x00\x00\x00\x04\x00", 8), "1024");
    assert_string_equal(conv(SHELL_CONV_LONG, "\xff\xff\xff\xff\xff\xff\xff\xff", 8), "-1");
    assert_string_equal(conv(SHELL_CONV_LONG, "\x7f\xff\xff\xff\xff\xff\xff\xff", 8),
                        "9223372036854775807");
    assert_string_equal(conv(SHELL_CONV_LONG, "", 0),
                        "offset (0) + length (8) exceed the capacity of the array: 0");
    assert_string_equal(conv(SHELL_CONV_SHORT, "\x80\x01", 2), "-32767");
    assert_string_equal(conv(SHELL_CONV_SHORT, "\x01", 1),
                        "offset (0) + length (2) exceed the capacity of the array: 1");
}

static void test_floats_as_java_prints_them(void **state)
{
    (void)state;
    static const struct {
        double d;
        const char *dbl, *flt;
    } cases[] = {
        {1.5, "1.5", "1.5"},
        {100, "100.0", "100.0"},
        {0.1, "0.1", "0.1"},
        {0.001, "0.001", "0.001"},
        {0.0001, "1.0E-4", "1.0E-4"},
        {1234567, "1234567.0", "1234567.0"},
        {12345678, "1.2345678E7", "1.2345678E7"},
        {1e7, "1.0E7", "1.0E7"},
        {-2.5e-10, "-2.5E-10", "-2.5E-10"},
        {3.141592653589793, "3.141592653589793", "3.1415927"},
        {1e300, "1.0E300", "Infinity"},
        {-1e300, "-1.0E300", "-Infinity"},
        {123.456, "123.456", "123.456"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_string_equal(conv_d(SHELL_CONV_DOUBLE, cases[i].d), cases[i].dbl);
        assert_string_equal(conv_d(SHELL_CONV_FLOAT, cases[i].d), cases[i].flt);
    }
    assert_string_equal(conv_d(SHELL_CONV_DOUBLE, 0.0), "0.0");
    assert_string_equal(conv_d(SHELL_CONV_DOUBLE, -0.0), "-0.0");
    assert_string_equal(conv(SHELL_CONV_DOUBLE, "\x7f\xf8\x00\x00\x00\x00\x00\x00", 8), "NaN");
    assert_string_equal(conv(SHELL_CONV_FLOAT, "\x7f\x80\x00\x00", 4), "Infinity");
    assert_string_equal(conv(SHELL_CONV_FLOAT, "abc", 3),
                        "offset (0) + length (4) exceed the capacity of the array: 3");
}

static void test_other_converters(void **state)
{
    (void)state;
    assert_string_equal(conv(SHELL_CONV_BOOLEAN, "\x01", 1), "true");
    assert_string_equal(conv(SHELL_CONV_BOOLEAN, "\x00", 1), "false");
    assert_string_equal(conv(SHELL_CONV_BOOLEAN, "\xff", 1), "true");
    assert_string_equal(conv(SHELL_CONV_BOOLEAN, "\x01\x01", 2), "Array has wrong size: 2");
    assert_string_equal(conv(SHELL_CONV_HEX, "\x00\xab\x7f", 3), "00ab7f");
    assert_string_equal(conv(SHELL_CONV_HEX, "", 0), "");
    assert_string_equal(conv(SHELL_CONV_LEN, "1234", 4), "4");
    assert_string_equal(conv(SHELL_CONV_STRING, "h\xc3\xa9llo", 6), "h\xc3\xa9llo");
    assert_string_equal(conv(SHELL_CONV_STRING, "a\xff" "b", 3), "a\xef\xbf\xbd" "b");
    assert_string_equal(conv(SHELL_CONV_BINARY, "a\\\x00\xff", 4), "a\\x5C\\x00\\xFF");
}

static void test_specs(void **state)
{
    (void)state;
    shell_conv c = SHELL_CONV_BINARY;
    static const struct {
        const char *spec;
        shell_conv want;
    } ok[] = {
        {"toInt", SHELL_CONV_INT},
        {"toString", SHELL_CONV_STRING},
        {"toStringBinary", SHELL_CONV_BINARY},
        {"len", SHELL_CONV_LEN},
        {"c(org.apache.hadoop.hbase.util.Bytes).toLong", SHELL_CONV_LONG},
        {"c(Bytes).toDouble", SHELL_CONV_DOUBLE},
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        assert_true(shell_conv_is_spec(ok[i].spec, strlen(ok[i].spec)));
        assert_int_equal(shell_conv_parse(ok[i].spec, strlen(ok[i].spec), &c), ST_OK);
        assert_int_equal(c, ok[i].want);
        assert_string_equal(shell_conv_name(c), ok[i].spec[0] == 'c' && ok[i].spec[1] == '('
                                                    ? strrchr(ok[i].spec, '.') + 1
                                                    : ok[i].spec);
    }
    /* a Bytes method the shell lacks is a converter, refused with the list */
    assert_true(shell_conv_is_spec("toBigDecimal", 12));
    assert_int_equal(shell_conv_parse("toBigDecimal", 12, &c), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "converter 'toBigDecimal' is not one the shell has"));
    /* another class is refused by name */
    const char *other = "c(com.example.MyFormat).render";
    assert_true(shell_conv_is_spec(other, strlen(other)));
    assert_int_equal(shell_conv_parse(other, strlen(other), &c), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "converter class 'com.example.MyFormat'"));
    /* names that are no converter */
    assert_false(shell_conv_is_spec("b", 1));
    assert_false(shell_conv_is_spec("toFoo", 5));
    assert_false(shell_conv_is_spec("c()", 3));
    assert_false(shell_conv_is_spec("", 0));
}

static void test_column_specs(void **state)
{
    (void)state;
    shell_formats f = {0};
    size_t cl;
    assert_int_equal(shell_formats_column(&f, "cf:q:toInt", 10, &cl), ST_OK);
    assert_int_equal(cl, 4);
    const char *s2 = "cf:a:b:c(org.apache.hadoop.hbase.util.Bytes).toLong";
    assert_int_equal(shell_formats_column(&f, s2, strlen(s2), &cl), ST_OK);
    assert_int_equal(cl, 6); /* qualifier "a:b" */
    /* the last ':' suffix is no converter: it stays in the qualifier */
    assert_int_equal(shell_formats_column(&f, "cf:a:b", 6, &cl), ST_OK);
    assert_int_equal(cl, 6);
    assert_int_equal(shell_formats_column(&f, "cf", 2, &cl), ST_OK);
    assert_int_equal(cl, 2);
    assert_int_equal(shell_formats_column(&f, "cf:toInt", 8, &cl), ST_OK);
    assert_int_equal(cl, 8); /* the qualifier toInt, no converter */
    assert_int_equal(shell_formats_column(&f, "cf:q:toBigDecimal", 17, &cl), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "column 'cf:q:toBigDecimal'"));
    assert_int_equal(f.ncols, 2);
    assert_int_equal(shell_formats_value(&f, "cf", 2, "q", 1), SHELL_CONV_INT);
    assert_int_equal(shell_formats_value(&f, "cf", 2, "a:b", 3), SHELL_CONV_LONG);
    assert_int_equal(shell_formats_value(&f, "cf", 2, "z", 1), SHELL_CONV_BINARY);
    assert_int_equal(shell_formats_value(&f, "c", 1, "f:q", 3), SHELL_CONV_BINARY);
    /* FORMATTER is the default for the other columns */
    shell_stmt st;
    assert_int_equal(shell_parse_stmt("x {FORMATTER => 'toString', "
                                      "FORMATTER_CLASS => 'org.apache.hadoop.hbase.util.Bytes'}",
                                      &st),
                     ST_OK);
    assert_int_equal(shell_formats_options(&f, &st.args.items[0]), ST_OK);
    shell_stmt_free(&st);
    assert_int_equal(shell_formats_value(&f, "cf", 2, "z", 1), SHELL_CONV_STRING);
    assert_int_equal(shell_formats_value(&f, "cf", 2, "q", 1), SHELL_CONV_INT);
    assert_int_equal(shell_parse_stmt("x {FORMATTER_CLASS => 'java.lang.String'}", &st), ST_OK);
    assert_int_equal(shell_formats_options(&f, &st.args.items[0]), ST_INVALID_ARGUMENT);
    shell_stmt_free(&st);
    assert_int_equal(shell_parse_stmt("x {FORMATTER => 'toFoo'}", &st), ST_OK);
    assert_int_equal(shell_formats_options(&f, &st.args.items[0]), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "FORMATTER: converter 'toFoo'"));
    shell_stmt_free(&st);
    shell_formats_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_floats_as_java_prints_them),
        cmocka_unit_test(test_other_converters),
        cmocka_unit_test(test_specs),
        cmocka_unit_test(test_column_specs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
