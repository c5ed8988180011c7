/*
 * http_client.c - the tests' HTTP/1.1 client (http_client.h): connect, send the request
 * in one go, read until the body is complete or the peer closes, parse the status line
 * and the headers.
 *
 * Thread-safety: no shared state.
 */
#include "tests/support/http_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/clock.h"

static int connect_local(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int send_request(int fd, int port, const char *method, const char *path,
                        const char *extra, const char *body, size_t body_len)
{
    size_t cap = strlen(method) + strlen(path) + (extra ? strlen(extra) : 0) + 256;
    char *head = malloc(cap);
    if (!head)
        return -1;
    int n = snprintf(head, cap, "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n%s",
                     method, path, port, extra ? extra : "");
    if (body)
        n += snprintf(head + n, cap - (size_t)n, "Content-Length: %zu\r\n", body_len);
    n += snprintf(head + n, cap - (size_t)n, "\r\n");
    int rc = send_all(fd, head, (size_t)n);
    free(head);
    /* A server that refuses a large body may close before reading it all: not an error. */
    if (rc == 0 && body && body_len)
        send_all(fd, body, body_len);
    return rc;
}

/* Reads into *buf until the peer closes, the whole response is in, or the deadline. */
static int read_reply(int fd, char **buf, size_t *len, int64_t deadline_ms)
{
    size_t cap = 4096;
    char *b = malloc(cap + 1);
    if (!b)
        return -1;
    *len = 0;
    for (;;) {
        int64_t left = deadline_ms - clock_now_ms();
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (left <= 0 || poll(&p, 1, (int)left) <= 0)
            break;
        if (*len == cap) {
            char *nb = realloc(b, cap * 2 + 1);
            if (!nb)
                break;
            b = nb;
            cap *= 2;
        }
        ssize_t r = recv(fd, b + *len, cap - *len, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            b[*len] = 0;
            *buf = b;
            return 0; /* closed (or reset after an answer) */
        }
        *len += (size_t)r;
        b[*len] = 0;
        char *end = strstr(b, "\r\n\r\n");
        const char *cl = end ? strcasestr(b, "\r\nContent-Length:") : NULL;
        if (end && cl && cl < end && *len >= (size_t)(end + 4 - b) + strtoul(cl + 17, NULL, 10)) {
            *buf = b;
            return 0;
        }
    }
    free(b);
    return -1;
}

int thc_header(const thc_response *r, const char *name, char *out, size_t cap)
{
    size_t n = strlen(name);
    for (const char *line = r->headers; line && *line;) {
        const char *eol = strstr(line, "\r\n");
        size_t len = eol ? (size_t)(eol - line) : strlen(line);
        if (len > n && strncasecmp(line, name, n) == 0 && line[n] == ':') {
            const char *v = line + n + 1;
            while (*v == ' ')
                v++;
            snprintf(out, cap, "%.*s", (int)(len - (size_t)(v - line)), v);
            return 0;
        }
        line = eol ? eol + 2 : NULL;
    }
    return -1;
}

static int parse_reply(char *raw, size_t len, thc_response *out)
{
    char *end = strstr(raw, "\r\n\r\n");
    int major = 0, minor = 0;
    if (!end || sscanf(raw, "HTTP/%d.%d %d", &major, &minor, &out->status) != 3)
        return -1;
    size_t hlen = (size_t)(end - raw);
    out->headers = malloc(hlen + 3);
    size_t blen = len - hlen - 4;
    out->body = malloc(blen + 1);
    if (!out->headers || !out->body)
        return -1;
    memcpy(out->headers, raw, hlen);
    memcpy(out->headers + hlen, "\r\n", 3);
    memcpy(out->body, end + 4, blen);
    out->body[blen] = 0;
    out->body_len = blen;
    char v[64];
    out->content_length = thc_header(out, "Content-Length", v, sizeof(v)) == 0 ? atol(v) : -1;
    if (thc_header(out, "Content-Type", out->content_type, sizeof(out->content_type)) != 0)
        out->content_type[0] = 0;
    return 0;
}

int thc_request(int port, const char *method, const char *path, const char *extra_headers,
                const char *body, size_t body_len, int timeout_ms, thc_response *out)
{
    memset(out, 0, sizeof(*out));
    int64_t deadline = clock_now_ms() + timeout_ms;
    char *raw = NULL;
    size_t len = 0;
    int fd = connect_local(port);
    int rc = fd < 0 ? -1 : send_request(fd, port, method, path, extra_headers, body, body_len);
    if (rc == 0)
        rc = read_reply(fd, &raw, &len, deadline);
    if (rc == 0)
        rc = parse_reply(raw, len, out);
    if (fd >= 0)
        close(fd);
    free(raw);
    if (rc != 0)
        thc_response_free(out);
    return rc;
}

int thc_get(int port, const char *path, thc_response *out)
{
    return thc_request(port, "GET", path, NULL, NULL, 0, 10000, out);
}

void thc_response_free(thc_response *r)
{
    free(r->headers);
    free(r->body);
    memset(r, 0, sizeof(*r));
}
