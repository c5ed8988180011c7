/*
 * shell_convert.c - the converters of HBase's shell (table.rb convert_bytes): the
 * org.apache.hadoop.hbase.util.Bytes methods a column spec 'cf:q:toInt', a
 * 'cf:q:c(org.apache.hadoop.hbase.util.Bytes).toLong' or FORMATTER => 'toString' names,
 * applied to a value, a row key or a column name as Java's Bytes does them:
 *
 *   toStringBinary  printable ASCII but '\' as is, every other byte \xNN (the default)
 *   toString        the bytes as UTF-8, an invalid byte as U+FFFD (Java's new String)
 *   toInt, toLong, toShort   the first 4, 8, 2 bytes, big-endian, signed; fewer bytes are
 *                   Java's "offset (0) + length (4) exceed the capacity of the array: N"
 *   toFloat, toDouble        IEEE bits of the first 4 / 8 bytes, printed as Java's
 *                   Float.toString / Double.toString (shortest digits that read back)
 *   toBoolean       exactly one byte, non-zero is true ("Array has wrong size: N")
 *   toHex           lower-case hex digits
 *   len             the number of bytes
 *
 * Pure functions (tests/unit/test_shell_convert.c). Thread-safety: reentrant.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "common/text.h"
#include "shell/shell_internal.h"

#define BYTES_CLASS "org.apache.hadoop.hbase.util.Bytes"

static const char *const NAMES[] = {
    [SHELL_CONV_BINARY] = "toStringBinary", [SHELL_CONV_STRING] = "toString",
    [SHELL_CONV_INT] = "toInt",             [SHELL_CONV_LONG] = "toLong",
    [SHELL_CONV_SHORT] = "toShort",         [SHELL_CONV_FLOAT] = "toFloat",
    [SHELL_CONV_DOUBLE] = "toDouble",       [SHELL_CONV_BOOLEAN] = "toBoolean",
    [SHELL_CONV_HEX] = "toHex",             [SHELL_CONV_LEN] = "len",
};
#define NCONV (sizeof(NAMES) / sizeof(NAMES[0]))

/* Methods of Bytes taking one byte[] that the shell does not have: a spec naming one is
 * a converter (HBase's converter? test) and is refused rather than read as a qualifier. */
static const char *const OTHER_BYTES_METHODS[] = {
    "toBigDecimal", "hashCode", "mapKey",  "bytesToVint", "readAsVLong", "toBinaryFromHex",
    "toBytes",      "toBytesBinary", "toByteArrays", "toArray", "toList", NULL};

const char *shell_conv_name(shell_conv c)
{
    return (size_t)c < NCONV ? NAMES[c] : "?";
}

static bool lookup(const char *name, size_t len, shell_conv *out)
{
    for (size_t i = 0; i < NCONV; i++)
        if (strlen(NAMES[i]) == len && memcmp(NAMES[i], name, len) == 0) {
            *out = (shell_conv)i;
            return true;
        }
    return false;
}

/* "c(CLASS).METHOD": the class and method, or false. */
static bool class_form(const char *s, size_t len, const char **cls, size_t *cls_len,
                       const char **meth, size_t *meth_len)
{
    if (len < 5 || s[0] != 'c' || s[1] != '(')
        return false;
    const char *close = NULL;
    for (size_t i = len; i-- > 2;) /* the last ")." */
        if (s[i] == ')' && i + 1 < len && s[i + 1] == '.') {
            close = s + i;
            break;
        }
    if (!close || close == s + 2 || close + 2 >= s + len)
        return false;
    *cls = s + 2;
    *cls_len = (size_t)(close - (s + 2));
    *meth = close + 2;
    *meth_len = (size_t)(s + len - *meth);
    return true;
}

bool shell_conv_is_spec(const char *s, size_t len)
{
    const char *c, *m;
    size_t cl, ml;
    shell_conv k;
    if (class_form(s, len, &c, &cl, &m, &ml) || lookup(s, len, &k))
        return true;
    for (size_t i = 0; OTHER_BYTES_METHODS[i]; i++)
        if (strlen(OTHER_BYTES_METHODS[i]) == len && memcmp(OTHER_BYTES_METHODS[i], s, len) == 0)
            return true;
    return false;
}

static int refuse_method(const char *m, size_t ml)
{
    return st_error(ST_INVALID_ARGUMENT,
                    "converter '%.*s' is not one the shell has: toStringBinary, toString, toInt, "
                    "toLong, toShort, toFloat, toDouble, toBoolean, toHex or len of %s",
                    (int)ml, m, BYTES_CLASS);
}

int shell_conv_check_class(const char *cls, size_t len)
{
    if ((len == strlen(BYTES_CLASS) && memcmp(cls, BYTES_CLASS, len) == 0) ||
        (len == 5 && memcmp(cls, "Bytes", 5) == 0))
        return ST_OK;
    return st_error(ST_INVALID_ARGUMENT,
                    "converter class '%.*s' is not available: the shell formats with %s only",
                    (int)len, cls, BYTES_CLASS);
}

int shell_conv_parse(const char *spec, size_t len, shell_conv *out)
{
    const char *c, *m;
    size_t cl, ml;
    if (class_form(spec, len, &c, &cl, &m, &ml)) {
        int rc = shell_conv_check_class(c, cl);
        if (rc != ST_OK)
            return rc;
    } else {
        m = spec;
        ml = len;
    }
    return lookup(m, ml, out) ? ST_OK : refuse_method(m, ml);
}

/* The first n bytes of v, big-endian, after Java's length check. */
static int fixed(const uint8_t *v, size_t len, size_t n, uint64_t *out)
{
    if (len < n)
        return st_error(ST_INVALID_ARGUMENT,
                        "offset (0) + length (%zu) exceed the capacity of the array: %zu", n, len);
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++)
        x = x << 8 | v[i];
    *out = x;
    return ST_OK;
}

/* Java's Float.toString / Double.toString of x: the shortest digits that read back as x
 * (at float precision when is_float), "d.ddd" for 1e-3 <= |x| < 1e7, else "d.dddE±n". */
static void java_float(double x, bool is_float, char *out, size_t cap)
{
    if (isnan(x)) {
        snprintf(out, cap, "NaN");
        return;
    }
    if (isinf(x)) {
        snprintf(out, cap, "%sInfinity", x < 0 ? "-" : "");
        return;
    }
    if (x == 0) {
        snprintf(out, cap, "%s0.0", signbit(x) ? "-" : "");
        return;
    }
    char sci[40];
    for (int p = 0; p < 17; p++) {
        snprintf(sci, sizeof(sci), "%.*e", p, x);
        double back = strtod(sci, NULL);
        if (is_float ? (float)back == (float)x : back == x)
            break;
    }
    /* sci: [-]d[.ddd]e±XX */
    const char *p = sci;
    bool neg = *p == '-';
    p += neg;
    char digits[24];
    size_t nd = 0;
    for (; *p && *p != 'e'; p++)
        if (*p != '.' && nd + 1 < sizeof(digits))
            digits[nd++] = *p;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = '\0';
    int e = atoi(p + 1);
    size_t o = 0;
#define PUT(...) o += (size_t)snprintf(out + o, o < cap ? cap - o : 0, __VA_ARGS__)
    if (neg)
        PUT("-");
    if (e >= -3 && e < 7) {
        if (e < 0) {
            PUT("0.");
            for (int i = -1; i > e; i--)
                PUT("0");
            PUT("%s", digits);
        } else {
            for (int i = 0; i <= e; i++)
                PUT("%c", (size_t)i < nd ? digits[i] : '0');
            PUT(".");
            if ((size_t)e + 1 < nd)
                PUT("%s", digits + e + 1);
            else
                PUT("0");
        }
    } else {
        PUT("%c.%s", digits[0], nd > 1 ? digits + 1 : "0");
        PUT("E%d", e);
    }
#undef PUT
}

/* Java's new String(bytes, UTF_8): valid sequences as they are, each byte of an invalid
 * one as U+FFFD. */
static int to_string(const uint8_t *v, size_t len, buf_t *out)
{
    int rc = ST_OK;
    for (size_t i = 0; rc == ST_OK && i < len;) {
        size_t n = text_utf8_decode(v + i, len - i, NULL);
        if (n == 0) {
            rc = buf_append(out, "\xef\xbf\xbd", 3);
            i++;
        } else {
            rc = buf_append(out, v + i, n);
            i += n;
        }
    }
    return rc;
}

int shell_conv_apply(shell_conv c, const void *data, size_t len, buf_t *out)
{
    const uint8_t *v = data;
    char num[64];
    uint64_t x = 0;
    int rc = ST_OK;
    num[0] = '\0';
    switch (c) {
    case SHELL_CONV_BINARY:
        return shell_escape_binary(out, v, len);
    case SHELL_CONV_STRING:
        rc = to_string(v, len, out);
        break;
    case SHELL_CONV_INT:
        if ((rc = fixed(v, len, 4, &x)) == ST_OK)
            snprintf(num, sizeof(num), "%d", (int32_t)(uint32_t)x);
        break;
    case SHELL_CONV_LONG:
        if ((rc = fixed(v, len, 8, &x)) == ST_OK)
            snprintf(num, sizeof(num), "%lld", (long long)(int64_t)x);
        break;
    case SHELL_CONV_SHORT:
        if ((rc = fixed(v, len, 2, &x)) == ST_OK)
            snprintf(num, sizeof(num), "%d", (int)(int16_t)(uint16_t)x);
        break;
    case SHELL_CONV_FLOAT:
        if ((rc = fixed(v, len, 4, &x)) == ST_OK) {
            uint32_t bits = (uint32_t)x;
            float f;
            memcpy(&f, &bits, sizeof(f));
            java_float(f, true, num, sizeof(num));
        }
        break;
    case SHELL_CONV_DOUBLE:
        if ((rc = fixed(v, len, 8, &x)) == ST_OK) {
            double d;
            memcpy(&d, &x, sizeof(d));
            java_float(d, false, num, sizeof(num));
        }
        break;
    case SHELL_CONV_BOOLEAN:
        if (len != 1)
            rc = st_error(ST_INVALID_ARGUMENT, "Array has wrong size: %zu", len);
        else
            snprintf(num, sizeof(num), "%s", v[0] ? "true" : "false");
        break;
    case SHELL_CONV_HEX:
        for (size_t i = 0; rc == ST_OK && i < len; i++) {
            char h[3];
            snprintf(h, sizeof(h), "%02x", v[i]);
            rc = buf_append(out, h, 2);
        }
        break;
    case SHELL_CONV_LEN:
        snprintf(num, sizeof(num), "%zu", len);
        break;
    default:
        return st_error(ST_INVALID_ARGUMENT, "unknown converter %d", (int)c);
    }
    if (rc == ST_OK && num[0])
        rc = buf_append(out, num, strlen(num));
    if (rc == ST_OK)
        rc = buf_append_u8(out, 0);
    if (rc == ST_OK)
        out->len--;
    else if (rc == ST_NOMEM)
        rc = st_error(ST_NOMEM, "out of memory formatting a value");
    return rc;
}

/* ---- formats of get and scan ---- */

int shell_formats_column(shell_formats *f, const char *spec, size_t len, size_t *col_len)
{
    *col_len = len;
    const char *colon = memchr(spec, ':', len);
    if (!colon)
        return ST_OK;
    const char *q = colon + 1, *last = NULL;
    for (const char *p = spec + len; p-- > q;)
        if (*p == ':') {
            last = p;
            break;
        }
    if (!last || !shell_conv_is_spec(last + 1, (size_t)(spec + len - last - 1)))
        return ST_OK;
    shell_conv c;
    int rc = shell_conv_parse(last + 1, (size_t)(spec + len - last - 1), &c);
    if (rc != ST_OK)
        return st_error(rc, "column '%.*s': %s", (int)len, spec, st_errmsg());
    *col_len = (size_t)(last - spec);
    if (!f)
        return ST_OK;
    struct shell_col_conv *n = realloc(f->cols, (f->ncols + 1) * sizeof(*n));
    if (!n)
        return st_error(ST_NOMEM, "out of memory");
    f->cols = n;
    if (!(n[f->ncols].col = malloc(*col_len ? *col_len : 1)))
        return st_error(ST_NOMEM, "out of memory");
    memcpy(n[f->ncols].col, spec, *col_len);
    n[f->ncols].len = *col_len;
    n[f->ncols].conv = c;
    f->ncols++;
    return ST_OK;
}

int shell_formats_options(shell_formats *f, const shell_value *h)
{
    const shell_value *fm = shell_hash_get(h, "FORMATTER"), *fc = shell_hash_get(h, "FORMATTER_CLASS");
    int rc = ST_OK;
    if (fc && fc->kind != SHELL_V_STR)
        return st_error(ST_INVALID_ARGUMENT, "FORMATTER_CLASS must be a class name String");
    if (fc)
        rc = shell_conv_check_class(fc->s, fc->len);
    if (rc == ST_OK && fm) {
        if (fm->kind != SHELL_V_STR)
            return st_error(ST_INVALID_ARGUMENT, "FORMATTER must be a method name String");
        rc = shell_conv_parse(fm->s, fm->len, &f->all);
        if (rc != ST_OK)
            rc = st_error(rc, "FORMATTER: %s", st_errmsg());
    }
    return rc;
}

shell_conv shell_formats_value(const shell_formats *f, const char *fam, size_t fl,
                               const char *qual, size_t ql)
{
    for (size_t i = f->ncols; i-- > 0;) {
        const struct shell_col_conv *c = &f->cols[i];
        if (c->len == fl + 1 + ql && memcmp(c->col, fam, fl) == 0 && c->col[fl] == ':' &&
            memcmp(c->col + fl + 1, qual, ql) == 0)
            return c->conv;
    }
    return f->all;
}

void shell_formats_free(shell_formats *f)
{
    for (size_t i = 0; i < f->ncols; i++)
        free(f->cols[i].col);
    free(f->cols);
    f->cols = NULL;
    f->ncols = 0;
}
