/*
 * layout.c - path construction for the root directory (see layout.h).
 * Thread-safety: pure functions.
 */
#include "regionserver/storage/layout.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"

static char *fmt_path(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *fmt_path(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

int layout_validate_name_part(const char *part)
{
    size_t n = strlen(part);
    if (n == 0 || n > 128)
        return st_error(ST_INVALID_ARGUMENT, "name '%s' must be 1..128 characters", part);
    if (part[0] == '.' || part[0] == '-')
        return st_error(ST_INVALID_ARGUMENT, "name '%s' must not start with '%c'", part,
                        part[0]);
    for (size_t i = 0; i < n; i++) {
        char c = part[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-'))
            return st_error(ST_INVALID_ARGUMENT, "name '%s' has illegal character '%c'", part,
                            c);
    }
    return ST_OK;
}

int layout_split_table_name(const char *table, char **ns, char **qualifier)
{
    *ns = *qualifier = NULL;
    const char *colon = strchr(table, ':');
    char *n = colon ? strndup(table, (size_t)(colon - table)) : strdup("default");
    char *q = strdup(colon ? colon + 1 : table);
    if (!n || !q) {
        free(n);
        free(q);
        return ST_NOMEM;
    }
    int rc = layout_validate_name_part(n);
    if (rc == ST_OK)
        rc = layout_validate_name_part(q);
    if (rc != ST_OK) {
        free(n);
        free(q);
        return st_error(rc, "invalid table name '%s': %s", table, st_errmsg());
    }
    *ns = n;
    *qualifier = q;
    return ST_OK;
}

char *layout_wal_dir(const char *root, const char *server)
{
    return fmt_path("%s/WALs/%s", root, server);
}

char *layout_region_dir(const char *root, const char *table, const char *region)
{
    char *ns, *q;
    if (layout_split_table_name(table, &ns, &q) != ST_OK)
        return NULL;
    char *s = fmt_path("%s/data/%s/%s/%s", root, ns, q, region);
    free(ns);
    free(q);
    return s;
}

static char *region_sub(const char *root, const char *table, const char *region,
                        const char *sub)
{
    char *r = layout_region_dir(root, table, region);
    if (!r)
        return NULL;
    char *s = fmt_path("%s/%s", r, sub);
    free(r);
    return s;
}

char *layout_store_dir(const char *root, const char *table, const char *region,
                       const char *family)
{
    return region_sub(root, table, region, family);
}

char *layout_recovered_edits_dir(const char *root, const char *table, const char *region)
{
    return region_sub(root, table, region, "recovered.edits");
}

char *layout_tmp_dir(const char *root, const char *table, const char *region)
{
    return region_sub(root, table, region, ".tmp");
}
