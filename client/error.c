/*
 * error.c - the public error contract (strata.h, "Errors"): every message the library
 * hands out through an errptr, a batch action or the buffered mutator begins with the
 * name of the Strata status behind it (st_strerror: "not found", "timeout", ...) followed
 * by ": " or the end of the string. strata_error_code reads that token back and maps the
 * status to its public strata_code; the table below is the one place that mapping lives.
 *
 * Thread-safety: pure functions over constant tables.
 */
#include <string.h>

#include "client/client_internal.h"
#include "common/status.h"

/* Every Strata status and its public code. A status added to common/status.h must be
 * added here (tests/unit/test_error.c fails until it is). */
static const struct {
    int status;
    strata_code code;
} STATUS_CODES[] = {
    {ST_IO, STRATA_ERR_IO},
    {ST_NOSPACE, STRATA_ERR_IO},
    {ST_CORRUPTION, STRATA_ERR_CORRUPTION},
    {ST_NOT_FOUND, STRATA_ERR_NOT_FOUND},
    {ST_EXISTS, STRATA_ERR_EXISTS},
    {ST_INVALID_ARGUMENT, STRATA_ERR_INVALID_ARGUMENT},
    {ST_UNKNOWN_FAMILY, STRATA_ERR_NO_SUCH_FAMILY},
    {ST_ORDER, STRATA_ERR_INVALID_ARGUMENT},
    {ST_NOT_SERVING, STRATA_ERR_RETRYABLE},
    {ST_REGION_OPENING, STRATA_ERR_RETRYABLE},
    {ST_REGION_TOO_BUSY, STRATA_ERR_RETRYABLE},
    {ST_SERVER_BUSY, STRATA_ERR_RETRYABLE},
    {ST_CLOSED, STRATA_ERR_RETRYABLE},
    {ST_TABLE_DISABLED, STRATA_ERR_TABLE_DISABLED},
    {ST_REGION_MOVED, STRATA_ERR_RETRYABLE},
    {ST_TIMEOUT, STRATA_ERR_RETRYABLE},
    {ST_PERMISSION, STRATA_ERR_PERMISSION},
    {ST_NOMEM, STRATA_ERR_NO_MEMORY},
    {ST_UNSUPPORTED, STRATA_ERR_UNSUPPORTED},
    {ST_INTERNAL, STRATA_ERR_INTERNAL},
    {ST_WOULD_BLOCK, STRATA_ERR_INTERNAL}, /* server-internal; never sent */
    {ST_CONNECTION, STRATA_ERR_RETRYABLE},
    {ST_PROTOCOL, STRATA_ERR_CORRUPTION},
};
#define N_STATUS_CODES (sizeof(STATUS_CODES) / sizeof(STATUS_CODES[0]))

static const char *const CODE_NAMES[] = {
    [STRATA_OK] = "STRATA_OK",
    [STRATA_ERR_RETRYABLE] = "STRATA_ERR_RETRYABLE",
    [STRATA_ERR_NOT_FOUND] = "STRATA_ERR_NOT_FOUND",
    [STRATA_ERR_EXISTS] = "STRATA_ERR_EXISTS",
    [STRATA_ERR_TABLE_DISABLED] = "STRATA_ERR_TABLE_DISABLED",
    [STRATA_ERR_INVALID_ARGUMENT] = "STRATA_ERR_INVALID_ARGUMENT",
    [STRATA_ERR_NO_SUCH_FAMILY] = "STRATA_ERR_NO_SUCH_FAMILY",
    [STRATA_ERR_CORRUPTION] = "STRATA_ERR_CORRUPTION",
    [STRATA_ERR_IO] = "STRATA_ERR_IO",
    [STRATA_ERR_PERMISSION] = "STRATA_ERR_PERMISSION",
    [STRATA_ERR_UNSUPPORTED] = "STRATA_ERR_UNSUPPORTED",
    [STRATA_ERR_INTERNAL] = "STRATA_ERR_INTERNAL",
    [STRATA_ERR_NO_MEMORY] = "STRATA_ERR_NO_MEMORY",
};
#define N_CODE_NAMES (sizeof(CODE_NAMES) / sizeof(CODE_NAMES[0]))

strata_code client_public_code(int status)
{
    if (status == ST_OK)
        return STRATA_OK;
    for (size_t i = 0; i < N_STATUS_CODES; i++)
        if (STATUS_CODES[i].status == status)
            return STATUS_CODES[i].code;
    return STRATA_ERR_INTERNAL;
}

int client_message_status(const char *msg)
{
    if (!msg)
        return ST_OK;
    for (size_t i = 0; i < N_STATUS_CODES; i++) {
        const char *token = st_strerror(STATUS_CODES[i].status);
        size_t n = strlen(token);
        if (strncmp(msg, token, n) == 0 && (msg[n] == ':' || msg[n] == '\0'))
            return STATUS_CODES[i].status;
    }
    return ST_INTERNAL;
}

strata_code strata_error_code(const char *errmsg)
{
    return client_public_code(client_message_status(errmsg));
}

const char *strata_code_name(strata_code code)
{
    if ((unsigned)code < N_CODE_NAMES && CODE_NAMES[code])
        return CODE_NAMES[code];
    return "unknown strata_code";
}
