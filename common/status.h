/*
 * status.h - Strata's status codes and per-thread error messages.
 *
 * Every fallible function returns an int status: ST_OK (0) or a negative code
 * from st_code. Where the error starts, the code sets a message naming the file,
 * region or key involved with st_error(), which records it in a thread-local
 * buffer and returns the code, so `return st_error(ST_IO, "write %s: %s", ...)`
 * is the usual idiom. Callers read it back with st_errmsg() on the same thread.
 *
 * Codes are grouped by tens; never renumber them (they travel over the wire).
 * Thread-safety: all functions are safe from any thread.
 */
#ifndef STRATA_COMMON_STATUS_H
#define STRATA_COMMON_STATUS_H

typedef enum st_code {
    ST_OK = 0,
    /* I/O */
    ST_IO = -1,
    ST_NOSPACE = -2,
    /* data */
    ST_CORRUPTION = -10,
    ST_NOT_FOUND = -20,
    ST_EXISTS = -21,
    ST_INVALID_ARGUMENT = -30,
    ST_UNKNOWN_FAMILY = -31,
    ST_ORDER = -32, /* out-of-order input to a sorted writer */
    /* serving */
    ST_NOT_SERVING = -40,
    ST_REGION_OPENING = -41,
    ST_REGION_TOO_BUSY = -42,
    ST_SERVER_BUSY = -43,
    ST_CLOSED = -44,
    ST_TABLE_DISABLED = -45, /* the table is disabled: not retried (TableNotEnabledException) */
    ST_REGION_MOVED = -46,   /* the region closed here for a move, split or merge; the answer
                              * says where it went (RegionMovedException; docs/rpc.md) */
    /* time */
    ST_TIMEOUT = -50,
    /* permission */
    ST_PERMISSION = -60,
    /* resources and internal */
    ST_NOMEM = -70,
    ST_UNSUPPORTED = -80,
    ST_INTERNAL = -90,
    ST_WOULD_BLOCK = -91, /* a read tried on an I/O thread needs the disk: run it on a
                           * handler instead (never sent to a client) */
    /* network (docs/rpc.md) */
    ST_CONNECTION = -100, /* connection refused, lost or reset: retryable */
    ST_PROTOCOL = -101,   /* bytes that break the RPC framing or headers */
} st_code;

/* Name of a status code, e.g. "corruption". Never NULL. */
const char *st_strerror(int code);

/* Records a formatted message for this thread and returns `code` unchanged. */
int st_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The last message recorded on this thread ("" if none). Valid until the next st_error(). */
const char *st_errmsg(void);

/* Clears this thread's message. */
void st_clear(void);

/* Maps an errno value to a status (ENOSPC -> ST_NOSPACE, ENOENT -> ST_NOT_FOUND, ...). */
int st_from_errno(int err);

#endif
