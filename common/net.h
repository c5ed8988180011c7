/*
 * net.h - what the RPC server and client and the HTTP server share around libevent and sockets:
 * turning on libevent's pthread locking (once per process, before any event_base), address
 * parsing and resolution, and peer address formatting.
 *
 * Thread-safety: all functions are safe from any thread.
 */
#ifndef STRATA_COMMON_NET_H
#define STRATA_COMMON_NET_H

#include <stddef.h>
#include <sys/socket.h>

/* Enables libevent's pthread locking so that event_active() may be called from any
 * thread. Call before creating an event_base; later calls do nothing. ST_OK or ST_INTERNAL. */
int net_init_threads(void);

/* Splits "host:port" or "[v6]:port" into host (cap bytes) and port. ST_OK, or
 * ST_INVALID_ARGUMENT naming the address. */
int net_split_addr(const char *addr, char *host, size_t cap, int *port);

/* Resolves host and port (numeric or a name; blocking) to the first TCP address. ST_OK,
 * or ST_CONNECTION naming host:port and the resolver's reason. */
int net_resolve(const char *host, int port, struct sockaddr_storage *out, socklen_t *out_len);

/* Formats sa as "ip:port" ("[ip6]:port" for IPv6) into out (always NUL-terminated). */
void net_format_addr(const struct sockaddr *sa, char *out, size_t cap);

/* Disables Nagle on a connected TCP socket (errors ignored: only latency depends on it). */
void net_nodelay(int fd);

/* Blocks SIGPIPE on the calling thread, so that its writes to a socket the peer closed
 * fail with EPIPE instead of killing the process (for the RPC I/O threads). */
void net_block_sigpipe(void);

/* The name a server advertises when none is configured: bind_host, unless it is a
 * wildcard ("", "0.0.0.0", "::"), which no other process can connect to; then this
 * machine's host name (gethostname), as HBase advertises the local host name (in a
 * container, the name Docker's DNS resolves for it). ST_OK, or ST_INVALID_ARGUMENT when
 * it does not fit in cap bytes or the host name cannot be read. */
int net_default_advertised_host(const char *bind_host, char *out, size_t cap);

#endif
