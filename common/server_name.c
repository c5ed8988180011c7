/*
 * server_name.c - server identities "<host>,<port>,<start code>" and the ServerInfo
 * records kept in ZooKeeper (see server_name.h and docs/znodes.md).
 *
 * Thread-safety: pure functions.
 */
#include "common/server_name.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/proto/master.pb-c.h"
#include "common/status.h"

void server_name_format(const server_name *s, char *out, size_t cap)
{
    snprintf(out, cap, "%s,%u,%llu", s->host, (unsigned)s->port,
             (unsigned long long)s->start_code);
}

void server_name_addr(const server_name *s, char *out, size_t cap)
{
    if (strchr(s->host, ':')) /* an IPv6 literal */
        snprintf(out, cap, "[%s]:%u", s->host, (unsigned)s->port);
    else
        snprintf(out, cap, "%s:%u", s->host, (unsigned)s->port);
}

/* Parses a decimal number of [from, to) that is at most max. */
static int parse_u64(const char *from, const char *to, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    if (from == to || to - from > 20)
        return -1;
    for (const char *p = from; p < to; p++) {
        if (!isdigit((unsigned char)*p))
            return -1;
        uint64_t d = (uint64_t)(*p - '0');
        if (v > (max - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

static int host_ok(const char *host, size_t len)
{
    if (len == 0 || len >= sizeof(((server_name *)0)->host))
        return 0;
    for (size_t i = 0; i < len; i++)
        if (isspace((unsigned char)host[i]) || host[i] == ',' || host[i] == '/')
            return 0;
    return 1;
}

int server_name_parse(const char *text, server_name *out)
{
    memset(out, 0, sizeof(*out));
    if (!text)
        return st_error(ST_INVALID_ARGUMENT, "server name: NULL");
    const char *c2 = strrchr(text, ',');
    const char *c1 = NULL;
    for (const char *p = text; c2 && p < c2; p++)
        if (*p == ',')
            c1 = p;
    uint64_t port = 0, code = 0;
    if (!c1 || !host_ok(text, (size_t)(c1 - text)) || parse_u64(c1 + 1, c2, 65535, &port) ||
        port == 0 || parse_u64(c2 + 1, c2 + strlen(c2), UINT64_MAX, &code))
        return st_error(ST_INVALID_ARGUMENT,
                        "server name '%.300s': want <host>,<port>,<start code>", text);
    memcpy(out->host, text, (size_t)(c1 - text));
    out->host[c1 - text] = '\0';
    out->port = (uint16_t)port;
    out->start_code = code;
    return ST_OK;
}

int server_name_same_addr(const server_name *a, const server_name *b)
{
    return a->port == b->port && strcmp(a->host, b->host) == 0;
}

int server_name_equal(const server_name *a, const server_name *b)
{
    return server_name_same_addr(a, b) && a->start_code == b->start_code;
}

uint8_t *server_info_encode(const server_name *s, uint32_t http_port, uint64_t registered_ms,
                            size_t *len)
{
    Strata__Master__ServerName name = STRATA__MASTER__SERVER_NAME__INIT;
    Strata__Master__ServerInfo info = STRATA__MASTER__SERVER_INFO__INIT;
    name.host = (char *)s->host;
    name.port = s->port;
    name.start_code = s->start_code;
    info.name = &name;
    info.has_http_port = 1;
    info.http_port = http_port;
    info.has_registered_ms = 1;
    info.registered_ms = registered_ms;
    size_t n = strata__master__server_info__get_packed_size(&info);
    uint8_t *out = malloc(n ? n : 1);
    *len = 0;
    if (!out)
        return NULL;
    *len = strata__master__server_info__pack(&info, out);
    return out;
}

void server_name_format_proto(const Strata__Master__ServerName *p, char *out, size_t cap)
{
    server_name sn = {.port = (uint16_t)p->port, .start_code = p->start_code};
    snprintf(sn.host, sizeof(sn.host), "%s", p->host ? p->host : "");
    server_name_format(&sn, out, cap);
}

int server_info_decode(const uint8_t *data, size_t len, server_name *out, uint32_t *http_port)
{
    memset(out, 0, sizeof(*out));
    if (http_port)
        *http_port = 0;
    Strata__Master__ServerInfo *info = strata__master__server_info__unpack(NULL, len, data);
    int rc = ST_OK;
    if (!info || !info->name || !info->name->host ||
        !host_ok(info->name->host, strlen(info->name->host)) || info->name->port > 65535) {
        rc = st_error(ST_CORRUPTION, "server info: %zu bytes are not a valid ServerInfo", len);
        goto done;
    }
    snprintf(out->host, sizeof(out->host), "%s", info->name->host);
    out->port = (uint16_t)info->name->port;
    out->start_code = info->name->start_code;
    if (http_port && info->has_http_port)
        *http_port = info->http_port;
done:
    if (info)
        strata__master__server_info__free_unpacked(info, NULL);
    return rc;
}
