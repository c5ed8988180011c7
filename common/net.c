/*
 * net.c - libevent threading setup and socket address helpers shared by the RPC and HTTP
 * servers and the RPC client.
 * Thread-safety: the threading setup runs once (pthread_once); the rest is pure.
 */
#include "common/net.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <unistd.h>

#include <event2/thread.h>

#include "common/status.h"

static pthread_once_t threads_once = PTHREAD_ONCE_INIT;
static int threads_rc;

static void init_threads(void)
{
    threads_rc = evthread_use_pthreads() == 0 ? ST_OK : ST_INTERNAL;
}

int net_init_threads(void)
{
    pthread_once(&threads_once, init_threads);
    if (threads_rc != ST_OK)
        return st_error(threads_rc, "libevent: cannot enable pthread locking");
    return ST_OK;
}

int net_split_addr(const char *addr, char *host, size_t cap, int *port)
{
    const char *colon = addr ? strrchr(addr, ':') : NULL;
    if (!colon || colon == addr)
        return st_error(ST_INVALID_ARGUMENT, "address '%s' is not host:port", addr ? addr : "");
    const char *h = addr;
    size_t hlen = (size_t)(colon - addr);
    if (h[0] == '[' && hlen >= 2 && h[hlen - 1] == ']') {
        h++;
        hlen -= 2;
    }
    char *end = NULL;
    long p = strtol(colon + 1, &end, 10);
    if (hlen == 0 || hlen >= cap || !end || *end || end == colon + 1 || p < 0 || p > 65535)
        return st_error(ST_INVALID_ARGUMENT, "address '%s' is not host:port", addr);
    memcpy(host, h, hlen);
    host[hlen] = '\0';
    *port = (int)p;
    return ST_OK;
}

int net_resolve(const char *host, int port, struct sockaddr_storage *out, socklen_t *out_len)
{
    char service[16];
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
    snprintf(service, sizeof(service), "%d", port);
    int gai = getaddrinfo(host, service, &hints, &res);
    if (gai != 0 || !res)
        return st_error(ST_CONNECTION, "cannot resolve %s:%d: %s", host, port,
                        gai ? gai_strerror(gai) : "no address");
    memcpy(out, res->ai_addr, res->ai_addrlen);
    *out_len = res->ai_addrlen;
    freeaddrinfo(res);
    return ST_OK;
}

void net_format_addr(const struct sockaddr *sa, char *out, size_t cap)
{
    char ip[INET6_ADDRSTRLEN] = "?";
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
        snprintf(out, cap, "%s:%u", ip, ntohs(in->sin_port));
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
        snprintf(out, cap, "[%s]:%u", ip, ntohs(in6->sin6_port));
    } else {
        snprintf(out, cap, "unknown-family-%d", sa->sa_family);
    }
}

void net_nodelay(int fd)
{
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

void net_block_sigpipe(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    (void)pthread_sigmask(SIG_BLOCK, &set, NULL);
}

int net_default_advertised_host(const char *bind_host, char *out, size_t cap)
{
    const char *name = bind_host;
    char host[256];
    if (!*bind_host || strcmp(bind_host, "0.0.0.0") == 0 || strcmp(bind_host, "::") == 0) {
        if (gethostname(host, sizeof(host)) != 0)
            return st_error(ST_INVALID_ARGUMENT, "no advertised host is set and the host name "
                            "cannot be read: %s", strerror(errno));
        host[sizeof(host) - 1] = '\0';
        name = host;
    }
    if (strlen(name) >= cap)
        return st_error(ST_INVALID_ARGUMENT, "advertised host '%s' is too long (%zu bytes)", name,
                        strlen(name));
    memcpy(out, name, strlen(name) + 1);
    return ST_OK;
}
