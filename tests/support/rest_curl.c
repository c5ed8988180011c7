/*
 * rest_curl.c - curl-driven requests for the REST tests (rest_curl.h): the body goes in
 * and out through temporary files so that binary bodies survive; curl writes the status
 * code on stdout (-w) and the headers to a file (-D).
 * Thread-safety: reentrant.
 */
#include "tests/support/rest_curl.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "tests/support/testutil.h"

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *s = NULL;
    size_t n = 0, cap = 0;
    if (f) {
        char chunk[65536];
        size_t got;
        while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
            if (n + got + 1 > cap) {
                cap = (n + got + 1) * 2;
                s = realloc(s, cap);
            }
            memcpy(s + n, chunk, got);
            n += got;
        }
        fclose(f);
    }
    if (!s)
        s = calloc(1, 1);
    s[n] = '\0';
    if (len)
        *len = n;
    return s;
}

bool rc_have_curl(void)
{
    return tu_on_path("curl");
}

int rc_request(int port, const char *method, const char *path, const char *const *headers,
               const void *body, size_t body_len, rc_resp *out)
{
    memset(out, 0, sizeof(*out));
    char dir[] = "/tmp/strata-rc-XXXXXX";
    if (!mkdtemp(dir)) {
        out->curl_out = strdup("mkdtemp failed");
        return -1;
    }
    char in[64], bodyf[64], hdrf[64], url[4200];
    snprintf(in, sizeof(in), "%s/in", dir);
    snprintf(bodyf, sizeof(bodyf), "%s/body", dir);
    snprintf(hdrf, sizeof(hdrf), "%s/headers", dir);
    snprintf(url, sizeof(url), "http://127.0.0.1:%d%s", port, path);
    const char *argv[64];
    int n = 0;
    char data[80];
    argv[n++] = "curl";
    argv[n++] = "-s";
    argv[n++] = "-S";
    argv[n++] = "--max-time";
    argv[n++] = "60";
    if (strcmp(method, "HEAD") == 0) {
        argv[n++] = "--head";
    } else {
        argv[n++] = "-X";
        argv[n++] = method;
    }
    argv[n++] = "-o";
    argv[n++] = bodyf;
    argv[n++] = "-D";
    argv[n++] = hdrf;
    argv[n++] = "-w";
    argv[n++] = "%{http_code}";
    /* no "Expect: 100-continue" round trip for large bodies */
    argv[n++] = "-H";
    argv[n++] = "Expect:";
    for (const char *const *h = headers; h && *h && n < 56; h++) {
        argv[n++] = "-H";
        argv[n++] = *h;
    }
    if (body) {
        FILE *f = fopen(in, "wb");
        if (f) {
            if (body_len)
                fwrite(body, 1, body_len, f);
            fclose(f);
        }
        snprintf(data, sizeof(data), "@%s", in);
        argv[n++] = "--data-binary";
        argv[n++] = data;
    }
    argv[n++] = "--globoff"; /* '[' and '{' in paths are bytes, not curl globs */
    argv[n++] = "--path-as-is";
    argv[n++] = url;
    argv[n] = NULL;
    char *text = NULL;
    int st = tu_run(argv, 90, 1 << 20, &text);
    out->curl_out = text ? text : strdup("");
    size_t tl = strlen(out->curl_out);
    if (tl >= 3 && isdigit((unsigned char)out->curl_out[tl - 1]))
        out->status = atoi(out->curl_out + tl - 3);
    out->headers = slurp(hdrf, NULL);
    out->body = slurp(bodyf, &out->body_len);
    if (strcmp(method, "HEAD") == 0) { /* curl writes the headers as the output of --head */
        out->body[0] = '\0';
        out->body_len = 0;
    }
    unlink(in);
    unlink(bodyf);
    unlink(hdrf);
    rmdir(dir);
    return st == 0 ? 0 : -1;
}

int rc_get(int port, const char *path, const char *accept, rc_resp *out)
{
    char h[256];
    snprintf(h, sizeof(h), "Accept: %s", accept ? accept : "");
    const char *hs[] = {h, NULL};
    return rc_request(port, "GET", path, accept ? hs : NULL, NULL, 0, out);
}

bool rc_header(const rc_resp *r, const char *name, char *out, size_t cap)
{
    size_t nl = strlen(name);
    for (const char *p = r->headers; p && *p;) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len > nl && strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
            const char *v = p + nl + 1;
            while (*v == ' ')
                v++;
            size_t vl = (size_t)(p + len - v);
            while (vl && (v[vl - 1] == '\r' || v[vl - 1] == ' '))
                vl--;
            if (vl >= cap)
                vl = cap - 1;
            memcpy(out, v, vl);
            out[vl] = '\0';
            return true;
        }
        p += len;
        if (*p == '\n')
            p++;
    }
    return false;
}

void rc_free(rc_resp *r)
{
    free(r->headers);
    free(r->body);
    free(r->curl_out);
    memset(r, 0, sizeof(*r));
}
