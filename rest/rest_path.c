/*
 * rest_path.c - the pieces of a REST URL: percent-decoding (as Java's URLDecoder, which
 * HBase's REST server uses: '+' is a space), query parameters, and HBase's row
 * specification (RowSpec): /<row>[,<end>] or /<prefix>*, then /<column>[,<column>...],
 * then /<timestamp> or /<start>,<end>.
 *
 * The path is split on '/' and ',' before it is decoded, so "%2F" and "%2C" are a slash
 * and a comma inside a key; any byte may be sent as %XX, so binary keys travel in paths
 * as well as in base64 bodies.
 * Thread-safety: pure functions.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "rest/rest_internal.h"

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int rest_url_decode(buf_t *out, const char *s, size_t n, bool plus_is_space)
{
    if (buf_reserve(out, n + 1) != ST_OK)
        return st_error(ST_NOMEM, "out of memory decoding a URL");
    for (size_t i = 0; i < n; i++) {
        uint8_t c = (uint8_t)s[i];
        if (c == '%') {
            int hi = i + 1 < n ? hexval(s[i + 1]) : -1;
            int lo = i + 2 < n ? hexval(s[i + 2]) : -1;
            if (hi < 0 || lo < 0)
                return st_error(ST_INVALID_ARGUMENT,
                                "bad percent-escape at offset %zu of '%.*s' (use %%XX with two "
                                "hex digits)",
                                i, (int)(n > 200 ? 200 : n), s);
            c = (uint8_t)(hi << 4 | lo);
            i += 2;
        } else if (c == '+' && plus_is_space) {
            c = ' ';
        }
        out->data[out->len++] = c;
    }
    out->data[out->len] = 0; /* room was reserved: a terminator past len */
    return ST_OK;
}

int rest_url_encode(buf_t *out, const void *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    const uint8_t *p = s;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = p[i];
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     c == '-' || c == '_' || c == '.' || c == '~';
        int rc = plain ? buf_append_u8(out, c)
                       : buf_append(out, (char[]){'%', hex[c >> 4], hex[c & 15]}, 3);
        if (rc != ST_OK)
            return st_error(ST_NOMEM, "out of memory encoding a URL");
    }
    return ST_OK;
}

/* ---- queries ---- */

char *rest_query_get(const char *query, const char *name, size_t index, int *err)
{
    size_t nl = strlen(name);
    const char *p = query ? query : "";
    while (*p) {
        const char *amp = strchr(p, '&');
        size_t len = amp ? (size_t)(amp - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        size_t kl = eq ? (size_t)(eq - p) : len;
        if (kl == nl && memcmp(p, name, nl) == 0) {
            if (index == 0) {
                buf_t b = {0};
                const char *v = eq ? eq + 1 : p + len;
                size_t vl = eq ? len - kl - 1 : 0;
                if (rest_url_decode(&b, v, vl, true) != ST_OK) {
                    buf_free(&b);
                    if (err)
                        *err = ST_INVALID_ARGUMENT;
                    return NULL;
                }
                if (!b.data) { /* an empty value still gets a string */
                    char *e = strdup("");
                    if (!e && err)
                        *err = ST_NOMEM;
                    return e;
                }
                return (char *)b.data;
            }
            index--;
        }
        p += len;
        if (*p == '&')
            p++;
    }
    return NULL;
}

bool rest_query_has(const char *query, const char *name)
{
    int err = 0;
    char *v = rest_query_get(query, name, 0, &err);
    bool has = v != NULL || err != 0;
    free(v);
    return has;
}

/* ---- row specifications ---- */

static int take(const char *s, size_t n, rest_bytes *out, const char *what)
{
    buf_t b = {0};
    int rc = rest_url_decode(&b, s, n, true);
    if (rc != ST_OK) {
        buf_free(&b);
        return st_error(rc, "%s: %s", what, st_errmsg());
    }
    if (!b.data && !(b.data = calloc(1, 1))) /* an empty part still gets a buffer */
        return st_error(ST_NOMEM, "out of memory reading the path");
    out->data = b.data;
    out->len = b.len;
    return ST_OK;
}

/* The smallest key greater than every key starting with prefix: prefix with its trailing
 * 0xff bytes removed and the last byte incremented; empty (unbounded) if all are 0xff. */
static void prefix_successor(const rest_bytes *prefix, rest_bytes *out)
{
    size_t n = prefix->len;
    while (n > 0 && prefix->data[n - 1] == 0xff)
        n--;
    out->data = malloc(n ? n : 1);
    if (!out->data)
        return;
    memcpy(out->data, prefix->data, n);
    if (n)
        out->data[n - 1]++;
    out->len = n;
}

static int parse_rows(const char *seg, rest_rowspec *spec)
{
    size_t n = strlen(seg);
    const char *comma = memchr(seg, ',', n);
    size_t first = comma ? (size_t)(comma - seg) : n;
    int rc = take(seg, first, &spec->row, "row key");
    if (rc == ST_OK && comma) {
        rc = take(comma + 1, n - first - 1, &spec->end_row, "end row key");
        spec->has_end = rc == ST_OK;
    }
    if (rc != ST_OK)
        return rc;
    if (spec->row.len == 0 && !comma)
        return st_error(ST_INVALID_ARGUMENT, "the path names no row key");
    if (spec->row.len > 0 && spec->row.data[spec->row.len - 1] == '*') {
        if (comma)
            return st_error(ST_INVALID_ARGUMENT,
                            "a start row with a wildcard cannot also have an end row");
        spec->row.len--;
        spec->glob = true;
        spec->has_end = true;
        prefix_successor(&spec->row, &spec->end_row);
        if (!spec->end_row.data)
            return st_error(ST_NOMEM, "out of memory reading the path");
    }
    return ST_OK;
}

static int parse_columns(const char *seg, rest_rowspec *spec)
{
    size_t n = strlen(seg), count = 1;
    for (size_t i = 0; i < n; i++)
        count += seg[i] == ',';
    spec->columns = calloc(count, sizeof(*spec->columns));
    if (!spec->columns)
        return st_error(ST_NOMEM, "out of memory reading the path");
    const char *p = seg;
    while (p <= seg + n) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0) {
            if (!comma && spec->ncolumns > 0)
                break; /* a trailing comma */
            return st_error(ST_INVALID_ARGUMENT, "an empty column in the path's column list '%s'",
                            seg);
        }
        int rc = take(p, len, &spec->columns[spec->ncolumns], "column");
        if (rc != ST_OK)
            return rc;
        if (spec->columns[spec->ncolumns].len == 0 ||
            spec->columns[spec->ncolumns].data[0] == ':') {
            spec->ncolumns++;
            return st_error(ST_INVALID_ARGUMENT, "column '%.*s' names no family", (int)len, p);
        }
        spec->ncolumns++;
        if (!comma)
            break;
        p = comma + 1;
    }
    return ST_OK;
}

static int parse_ts(const char *s, size_t n, int64_t *out)
{
    buf_t b = {0};
    int rc = rest_url_decode(&b, s, n, true);
    char text[32];
    if (rc == ST_OK && (b.len == 0 || b.len >= sizeof(text)))
        rc = ST_INVALID_ARGUMENT;
    if (rc == ST_OK) {
        memcpy(text, b.data, b.len);
        text[b.len] = '\0';
        char *end = NULL;
        errno = 0;
        long long v = strtoll(text, &end, 10);
        if (errno || *end || end == text || v < 0 || text[0] < '0' || text[0] > '9')
            rc = ST_INVALID_ARGUMENT;
        else
            *out = v;
    }
    buf_free(&b);
    if (rc != ST_OK)
        return st_error(ST_INVALID_ARGUMENT, "timestamp '%.*s' is not a non-negative integer",
                        (int)(n > 40 ? 40 : n), s);
    return ST_OK;
}

static int parse_times(const char *seg, rest_rowspec *spec)
{
    size_t n = strlen(seg);
    const char *comma = memchr(seg, ',', n);
    if (!comma) {
        int rc = parse_ts(seg, n, &spec->timestamp);
        if (rc == ST_OK) {
            spec->has_timestamp = true;
            spec->has_time = true;
            spec->start_time = spec->timestamp;
            spec->end_time = spec->timestamp == INT64_MAX ? INT64_MAX : spec->timestamp + 1;
        }
        return rc;
    }
    int rc = parse_ts(seg, (size_t)(comma - seg), &spec->start_time);
    if (rc == ST_OK)
        rc = parse_ts(comma + 1, n - (size_t)(comma - seg) - 1, &spec->end_time);
    if (rc == ST_OK && spec->end_time <= spec->start_time)
        rc = st_error(ST_INVALID_ARGUMENT,
                      "time range %lld,%lld is empty (the end is exclusive and must be greater)",
                      (long long)spec->start_time, (long long)spec->end_time);
    spec->has_time = rc == ST_OK;
    return rc;
}

int rest_rowspec_parse(const char *const *segs, size_t n, rest_rowspec *spec)
{
    memset(spec, 0, sizeof(*spec));
    spec->end_time = INT64_MAX;
    spec->max_versions = 1;
    if (n == 0)
        return st_error(ST_INVALID_ARGUMENT, "the path names no row key");
    if (n > 3)
        return st_error(ST_INVALID_ARGUMENT,
                        "the path has %zu parts after the table; a row path is "
                        "/<table>/<row>[/<columns>[/<timestamp>]]",
                        n);
    int rc = parse_rows(segs[0], spec);
    if (rc == ST_OK && n > 1 && segs[1][0])
        rc = parse_columns(segs[1], spec);
    if (rc == ST_OK && n > 2) {
        if (!segs[2][0])
            rc = st_error(ST_INVALID_ARGUMENT, "an empty timestamp in the path");
        else
            rc = parse_times(segs[2], spec);
    }
    if (rc != ST_OK)
        rest_rowspec_free(spec);
    return rc;
}

void rest_rowspec_free(rest_rowspec *spec)
{
    free(spec->row.data);
    free(spec->end_row.data);
    for (size_t i = 0; i < spec->ncolumns; i++)
        free(spec->columns[i].data);
    free(spec->columns);
    memset(spec, 0, sizeof(*spec));
}

void rest_column_split(const uint8_t *col, size_t len, const uint8_t **fam, size_t *fam_len,
                       const uint8_t **qual, size_t *qual_len, bool *has_qual)
{
    const uint8_t *colon = memchr(col, ':', len);
    *fam = col;
    if (!colon) {
        *fam_len = len;
        *qual = NULL;
        *qual_len = 0;
        *has_qual = false;
        return;
    }
    *fam_len = (size_t)(colon - col);
    *qual = colon + 1;
    *qual_len = len - *fam_len - 1;
    *has_qual = true;
}
