/*
 * rest_media.c - media types of the REST gateway: the names HBase's REST server speaks,
 * the Content-Type of a request body, and content negotiation against Accept (RFC 9110
 * section 12: media ranges with q-values; the most specific range that matches a type
 * gives its q; among types of equal q the server's order wins, as JAX-RS picks the first
 * of a resource's @Produces).
 * Thread-safety: pure functions.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rest/rest_internal.h"

static const struct {
    rest_media m;
    const char *name;
} names[] = {
    {REST_MEDIA_TEXT, "text/plain"},
    {REST_MEDIA_XML, "text/xml"},
    {REST_MEDIA_XML, "application/xml"},
    {REST_MEDIA_JSON, "application/json"},
    {REST_MEDIA_PROTOBUF, "application/x-protobuf"},
    {REST_MEDIA_PROTOBUF_IETF, "application/protobuf"},
    {REST_MEDIA_BINARY, "application/octet-stream"},
};

const char *rest_media_name(rest_media m)
{
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (names[i].m == m)
            return names[i].name;
    return "application/octet-stream";
}

bool rest_media_is_protobuf(rest_media m)
{
    return m == REST_MEDIA_PROTOBUF || m == REST_MEDIA_PROTOBUF_IETF;
}

/* The type/subtype of s[0..n) trimmed, without parameters, into out (lower case). */
static void bare_type(const char *s, size_t n, char *out, size_t cap)
{
    while (n > 0 && isspace((unsigned char)*s))
        s++, n--;
    const char *semi = memchr(s, ';', n);
    if (semi)
        n = (size_t)(semi - s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        n--;
    size_t k = 0;
    for (; k < n && k + 1 < cap; k++)
        out[k] = (char)tolower((unsigned char)s[k]);
    out[k] = '\0';
}

rest_media rest_media_parse(const char *content_type)
{
    if (!content_type)
        return REST_MEDIA_NONE;
    char t[128];
    bare_type(content_type, strlen(content_type), t, sizeof(t));
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(t, names[i].name) == 0)
            return names[i].m;
    return REST_MEDIA_NONE;
}

/* The q parameter of a media range s[0..n): 1000ths, 1000 when absent, -1 malformed. */
static int range_q(const char *s, size_t n)
{
    const char *p = memchr(s, ';', n);
    while (p) {
        p++;
        size_t left = n - (size_t)(p - s);
        while (left > 0 && isspace((unsigned char)*p))
            p++, left--;
        if (left >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
            const char *v = p + 2;
            size_t vl = left - 2;
            const char *e = memchr(v, ';', vl);
            if (e)
                vl = (size_t)(e - v);
            char num[16];
            if (vl == 0 || vl >= sizeof(num))
                return -1;
            memcpy(num, v, vl);
            num[vl] = '\0';
            char *end = NULL;
            double q = strtod(num, &end);
            while (end && isspace((unsigned char)*end))
                end++;
            if (!end || *end || !(q >= 0 && q <= 1)) /* NaN too: (int)NaN is undefined */
                return -1;
            return (int)(q * 1000 + 0.5);
        }
        p = memchr(p, ';', left);
    }
    return 1000;
}

/* How well range r matches type t: 3 exact, 2 "type/ *", 1 "* / *", 0 no match. */
static int specificity(const char *r, const char *t)
{
    if (strcmp(r, t) == 0)
        return 3;
    if (strcmp(r, "*/*") == 0 || strcmp(r, "*") == 0)
        return 1;
    const char *slash = strchr(t, '/');
    size_t tl = slash ? (size_t)(slash - t) : strlen(t);
    if (strlen(r) == tl + 2 && strncmp(r, t, tl) == 0 && strcmp(r + tl, "/*") == 0)
        return 2;
    return 0;
}

/* The q Accept gives type t (the most specific matching range's), 0 if none matches. */
static int accept_q(const char *accept, const char *t)
{
    int best_spec = 0, q = 0;
    const char *p = accept;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char r[128];
        bare_type(p, n, r, sizeof(r));
        int spec = r[0] ? specificity(r, t) : 0;
        if (spec > best_spec) {
            int rq = range_q(p, n);
            best_spec = spec;
            q = rq < 0 ? 0 : rq;
        }
        p += n;
        if (*p == ',')
            p++;
    }
    return q;
}

rest_media rest_media_choose(const char *accept, const rest_media *offered, size_t n)
{
    if (n == 0)
        return REST_MEDIA_NONE;
    bool blank = true;
    for (const char *p = accept; p && *p; p++)
        if (!isspace((unsigned char)*p))
            blank = false;
    if (blank)
        return offered[0];
    rest_media best = REST_MEDIA_NONE;
    int best_q = 0;
    for (size_t i = 0; i < n; i++) {
        int q = accept_q(accept, rest_media_name(offered[i]));
        /* text/xml is also asked for as application/xml */
        if (offered[i] == REST_MEDIA_XML) {
            int q2 = accept_q(accept, "application/xml");
            if (q2 > q)
                q = q2;
        }
        if (q > best_q) {
            best_q = q;
            best = offered[i];
        }
    }
    return best;
}
