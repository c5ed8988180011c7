/*
 * server_name.h - a server's identity "<host>,<port>,<start code>" (HBase's ServerName)
 * and the cluster records kept in ZooKeeper about servers (docs/znodes.md).
 *
 * Thread-safety: pure functions.
 */
#ifndef STRATA_COMMON_SERVER_NAME_H
#define STRATA_COMMON_SERVER_NAME_H

#include <stddef.h>
#include <stdint.h>

#define SERVER_NAME_MAX 320

typedef struct server_name {
    char host[256];
    uint16_t port;
    uint64_t start_code;
} server_name;

/* "host,port,startcode" into out (cap bytes; SERVER_NAME_MAX is always enough). */
void server_name_format(const server_name *s, char *out, size_t cap);
/* "host:port" into out. */
void server_name_addr(const server_name *s, char *out, size_t cap);
/* Parses "host,port,startcode": ST_OK or ST_INVALID_ARGUMENT naming the text. */
int server_name_parse(const char *text, server_name *out);
/* Same host and port (the start code may differ). */
int server_name_same_addr(const server_name *a, const server_name *b);
int server_name_equal(const server_name *a, const server_name *b);

struct Strata__Master__ServerName;
/* "host,port,startcode" of a strata.master.ServerName message into out (cap bytes). */
void server_name_format_proto(const struct Strata__Master__ServerName *p, char *out, size_t cap);

/* Encodes a strata.master.ServerInfo record (the data of /strata/master,
 * /strata/backup-masters/<s> and /strata/rs/<s>): malloc'ed bytes, *len. */
uint8_t *server_info_encode(const server_name *s, uint32_t http_port, uint64_t registered_ms,
                            size_t *len);
/* Decodes it: ST_OK, or ST_CORRUPTION. http_port may be NULL. */
int server_info_decode(const uint8_t *data, size_t len, server_name *out, uint32_t *http_port);

#endif
