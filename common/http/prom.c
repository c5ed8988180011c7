/*
 * prom.c - Prometheus text exposition (prom.h): family headers, samples with escaped
 * labels, number formatting.
 *
 * Thread-safety: none beyond the buffer's owner.
 */
#include "common/http/prom.h"

#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"

static bool name_ok(const char *s, bool label)
{
    if (!s || !*s)
        return false;
    for (const char *p = s; *p; p++) {
        char c = *p;
        bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                     (!label && c == ':');
        if (!alpha && !(p != s && c >= '0' && c <= '9'))
            return false;
    }
    return true;
}

/* Appends s escaping '\\', newlines and (in label values) '"'. */
static int append_escaped(buf_t *b, const char *s, bool quote)
{
    int rc = ST_OK;
    for (const char *p = s; rc == ST_OK && *p; p++) {
        if (*p == '\\')
            rc = buf_append(b, "\\\\", 2);
        else if (*p == '\n')
            rc = buf_append(b, "\\n", 2);
        else if (quote && *p == '"')
            rc = buf_append(b, "\\\"", 2);
        else
            rc = buf_append(b, p, 1);
    }
    return rc;
}

static int append_str(buf_t *b, const char *s)
{
    return buf_append(b, s, strlen(s));
}

int prom_family(buf_t *b, const char *name, const char *type, const char *help)
{
    if (!name_ok(name, false) || !type || !*type)
        return st_error(ST_INVALID_ARGUMENT, "prometheus: bad metric name '%s'",
                        name ? name : "(null)");
    size_t mark = b->len;
    int rc = append_str(b, "# HELP ");
    if (rc == ST_OK)
        rc = append_str(b, name);
    if (rc == ST_OK)
        rc = append_str(b, " ");
    if (rc == ST_OK)
        rc = append_escaped(b, help ? help : "", false);
    if (rc == ST_OK)
        rc = append_str(b, "\n# TYPE ");
    if (rc == ST_OK)
        rc = append_str(b, name);
    if (rc == ST_OK)
        rc = append_str(b, " ");
    if (rc == ST_OK)
        rc = append_str(b, type);
    if (rc == ST_OK)
        rc = append_str(b, "\n");
    if (rc != ST_OK)
        b->len = mark;
    return rc;
}

/* name{labels} value\n with value already formatted. */
static int sample(buf_t *b, const char *name, const prom_label *labels, size_t n, const char *value)
{
    if (!name_ok(name, false))
        return st_error(ST_INVALID_ARGUMENT, "prometheus: bad metric name '%s'",
                        name ? name : "(null)");
    for (size_t i = 0; i < n; i++)
        if (!name_ok(labels[i].name, true) || strncmp(labels[i].name, "__", 2) == 0)
            return st_error(ST_INVALID_ARGUMENT, "prometheus: bad label name '%s' on %s",
                            labels[i].name ? labels[i].name : "(null)", name);
    size_t mark = b->len;
    int rc = append_str(b, name);
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        rc = append_str(b, i ? "," : "{");
        if (rc == ST_OK)
            rc = append_str(b, labels[i].name);
        if (rc == ST_OK)
            rc = append_str(b, "=\"");
        if (rc == ST_OK)
            rc = append_escaped(b, labels[i].value ? labels[i].value : "", true);
        if (rc == ST_OK)
            rc = append_str(b, "\"");
    }
    if (rc == ST_OK && n)
        rc = append_str(b, "}");
    if (rc == ST_OK)
        rc = append_str(b, " ");
    if (rc == ST_OK)
        rc = append_str(b, value);
    if (rc == ST_OK)
        rc = append_str(b, "\n");
    if (rc != ST_OK)
        b->len = mark;
    return rc;
}

int prom_sample_u64(buf_t *b, const char *name, const prom_label *labels, size_t n, uint64_t v)
{
    char t[32];
    snprintf(t, sizeof(t), "%" PRIu64, v);
    return sample(b, name, labels, n, t);
}

int prom_sample_i64(buf_t *b, const char *name, const prom_label *labels, size_t n, int64_t v)
{
    char t[32];
    snprintf(t, sizeof(t), "%" PRId64, v);
    return sample(b, name, labels, n, t);
}

int prom_sample_double(buf_t *b, const char *name, const prom_label *labels, size_t n, double v)
{
    char t[40];
    if (isnan(v))
        snprintf(t, sizeof(t), "NaN");
    else if (isinf(v))
        snprintf(t, sizeof(t), "%s", v > 0 ? "+Inf" : "-Inf");
    else if (snprintf(t, sizeof(t), "%.15g", v) > 0 && strtod(t, NULL) != v)
        snprintf(t, sizeof(t), "%.17g", v);
    return sample(b, name, labels, n, t);
}
