/*
 * status.c - status names and the thread-local error message.
 * Thread-safety: the message buffer is per thread.
 */
#include "common/status.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char st_msg[1024];

const char *st_strerror(int code)
{
    switch (code) {
    case ST_OK: return "ok";
    case ST_IO: return "I/O error";
    case ST_NOSPACE: return "no space left";
    case ST_CORRUPTION: return "corruption";
    case ST_NOT_FOUND: return "not found";
    case ST_EXISTS: return "already exists";
    case ST_INVALID_ARGUMENT: return "invalid argument";
    case ST_UNKNOWN_FAMILY: return "unknown column family";
    case ST_ORDER: return "out of order";
    case ST_NOT_SERVING: return "region not serving";
    case ST_REGION_OPENING: return "region opening";
    case ST_REGION_TOO_BUSY: return "region too busy";
    case ST_SERVER_BUSY: return "server busy";
    case ST_CLOSED: return "closed";
    case ST_TABLE_DISABLED: return "table disabled";
    case ST_REGION_MOVED: return "region moved";
    case ST_TIMEOUT: return "timeout";
    case ST_PERMISSION: return "permission denied";
    case ST_NOMEM: return "out of memory";
    case ST_UNSUPPORTED: return "unsupported";
    case ST_INTERNAL: return "internal error";
    case ST_WOULD_BLOCK: return "would block";
    case ST_CONNECTION: return "connection error";
    case ST_PROTOCOL: return "protocol error";
    default: return "unknown status";
    }
}

int st_error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    /* Formatted apart first: the arguments may point into st_msg itself (a message that
     * wraps st_errmsg() with more context). */
    char tmp[sizeof(st_msg)];
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1;
    memcpy(st_msg, tmp, len);
    st_msg[len] = '\0';
    va_end(ap);
    return code;
}

const char *st_errmsg(void)
{
    return st_msg;
}

void st_clear(void)
{
    st_msg[0] = '\0';
}

int st_from_errno(int err)
{
    switch (err) {
    case 0: return ST_OK;
    case ENOSPC:
    case EDQUOT: return ST_NOSPACE;
    case ENOENT: return ST_NOT_FOUND;
    case EEXIST: return ST_EXISTS;
    case EACCES:
    case EPERM: return ST_PERMISSION;
    case ENOMEM: return ST_NOMEM;
    case EINVAL: return ST_INVALID_ARGUMENT;
    case ETIMEDOUT: return ST_TIMEOUT;
    default: return ST_IO;
    }
}
