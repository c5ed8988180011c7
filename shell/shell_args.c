/*
 * shell_args.c - checks and conversions of command arguments, with the messages HBase's
 * shell (Ruby) gives for them ("wrong number of arguments (given 1, expected 2..3)").
 *
 * Thread-safety: reentrant.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/status.h"
#include "shell/shell_internal.h"

int shell_nargs(const shell_value *args, size_t min, long max)
{
    if (args->n >= min && (max < 0 || args->n <= (size_t)max))
        return ST_OK;
    if (max < 0)
        return st_error(ST_INVALID_ARGUMENT, "wrong number of arguments (given %zu, expected %zu+)",
                        args->n, min);
    if ((size_t)max == min)
        return st_error(ST_INVALID_ARGUMENT, "wrong number of arguments (given %zu, expected %zu)",
                        args->n, min);
    return st_error(ST_INVALID_ARGUMENT, "wrong number of arguments (given %zu, expected %zu..%ld)",
                    args->n, min, max);
}

int shell_str_arg(const shell_value *args, size_t i, const char *what, const shell_value **out)
{
    *out = NULL;
    if (i >= args->n)
        return st_error(ST_INVALID_ARGUMENT, "%s is missing", what);
    const shell_value *v = &args->items[i];
    if (v->kind != SHELL_V_STR)
        return st_error(ST_INVALID_ARGUMENT, "%s must be a String, not %s", what,
                        shell_value_type(v));
    *out = v;
    return ST_OK;
}

int shell_int_value(const shell_value *v, const char *what, int64_t *out)
{
    if (v->kind == SHELL_V_INT) {
        *out = v->i;
        return ST_OK;
    }
    if (v->kind == SHELL_V_STR && v->len > 0 && strlen(v->s) == v->len) {
        char *end = NULL;
        errno = 0;
        long long x = strtoll(v->s, &end, 10);
        if (errno == 0 && end && *end == '\0' && !isspace((unsigned char)v->s[0])) {
            *out = x;
            return ST_OK;
        }
    }
    buf_t b = {0};
    shell_value_inspect(v, &b);
    int rc = st_error(ST_INVALID_ARGUMENT, "%s must be an integer, not %s", what,
                      b.data ? (char *)b.data : "?");
    buf_free(&b);
    return rc;
}

int shell_bool_value(const shell_value *v, const char *what, bool *out)
{
    if (v->kind == SHELL_V_BOOL) {
        *out = v->b;
        return ST_OK;
    }
    if (v->kind == SHELL_V_STR &&
        (strcasecmp(v->s, "true") == 0 || strcasecmp(v->s, "false") == 0)) {
        *out = strcasecmp(v->s, "true") == 0;
        return ST_OK;
    }
    return st_error(ST_INVALID_ARGUMENT, "%s must be true or false, not %s", what,
                    shell_value_type(v));
}

int shell_to_s(const shell_value *v, const char *what, buf_t *b)
{
    char num[64];
    buf_reset(b);
    int rc = ST_OK;
    switch (v->kind) {
    case SHELL_V_STR:
        rc = buf_append(b, v->s, v->len);
        break;
    case SHELL_V_INT:
        snprintf(num, sizeof(num), "%lld", (long long)v->i);
        rc = buf_append(b, num, strlen(num));
        break;
    case SHELL_V_FLOAT:
        snprintf(num, sizeof(num), "%g", v->f);
        rc = buf_append(b, num, strlen(num));
        break;
    case SHELL_V_BOOL:
        rc = buf_append(b, v->b ? "true" : "false", v->b ? 4 : 5);
        break;
    case SHELL_V_NIL:
        break;
    default:
        return st_error(ST_INVALID_ARGUMENT, "%s must be a String, not %s", what,
                        shell_value_type(v));
    }
    if (rc == ST_OK)
        rc = buf_append_u8(b, '\0');
    if (rc != ST_OK)
        return st_error(ST_NOMEM, "out of memory");
    b->len--;
    return ST_OK;
}

void shell_split_column(const char *col, size_t len, const char **fam, size_t *fam_len,
                        const char **qual, size_t *qual_len, bool *has_qual)
{
    const char *colon = memchr(col, ':', len);
    *fam = col;
    *fam_len = colon ? (size_t)(colon - col) : len;
    *qual = colon ? colon + 1 : col + len;
    *qual_len = colon ? len - *fam_len - 1 : 0;
    *has_qual = colon && *qual_len > 0;
}

int shell_check_keys(const shell_value *hash, const char *const *allowed, const char *where)
{
    for (size_t i = 0; hash && hash->kind == SHELL_V_HASH && i < hash->n; i++) {
        const shell_value *k = shell_hash_key(hash, i);
        bool ok = false;
        for (size_t j = 0; k->kind == SHELL_V_STR && allowed[j] && !ok; j++)
            ok = strcmp(k->s, allowed[j]) == 0;
        if (!ok) {
            buf_t b = {0};
            shell_value_inspect(k, &b);
            int rc = st_error(ST_INVALID_ARGUMENT, "Unknown argument %s for %s",
                              b.data ? (char *)b.data : "?", where);
            buf_free(&b);
            return rc;
        }
    }
    return ST_OK;
}

int shell_ttl_parse(const char *text, int64_t *out)
{
    static const struct {
        const char *unit;
        int64_t seconds;
    } units[] = {{"DAY", 86400}, {"HOUR", 3600}, {"MINUTE", 60}, {"SECOND", 1}};
    const char *p = text;
    int64_t total = 0;
    size_t next = 0; /* units come in this order, each at most once (HBase's pattern) */
    bool any = false;
    while (*p == ' ')
        p++;
    char *end = NULL;
    errno = 0;
    long long plain = strtoll(p, &end, 10);
    if (end != p && errno == 0 && *end == '\0' && plain >= 0) { /* a bare number: seconds */
        *out = plain;
        return ST_OK;
    }
    while (*p) {
        if (!isdigit((unsigned char)*p))
            goto bad;
        errno = 0;
        long long n = strtoll(p, &end, 10);
        if (errno != 0)
            goto bad;
        p = end;
        while (*p == ' ')
            p++;
        size_t u = next;
        while (u < 4 && strncasecmp(p, units[u].unit, strlen(units[u].unit)) != 0)
            u++;
        if (u == 4)
            goto bad;
        p += strlen(units[u].unit);
        if (*p == 's' || *p == 'S')
            p++;
        if (*p && *p != ' ')
            goto bad;
        while (*p == ' ')
            p++;
        if (n > (INT64_MAX - total) / units[u].seconds)
            goto bad;
        total += n * units[u].seconds;
        next = u + 1;
        any = true;
    }
    if (!any)
        goto bad;
    *out = total;
    return ST_OK;
bad:
    return st_error(ST_INVALID_ARGUMENT,
                    "TTL '%s' is not seconds, FOREVER or a time such as '1 DAY 2 HOURS 30 "
                    "MINUTES 5 SECONDS'",
                    text);
}
