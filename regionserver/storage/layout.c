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

static bool name_char_ok(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '-';
}

bool layout_name_part_ok(const char *part)
{
    size_t n = strlen(part);
    if (n == 0 || n > 128 || part[0] == '.' || part[0] == '-')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!name_char_ok(part[i]))
            return false;
    return true;
}

int layout_validate_name_part(const char *part)
{
    size_t n = strlen(part);
    if (n == 0 || n > 128)
        return st_error(ST_INVALID_ARGUMENT, "name '%s' must be 1..128 characters", part);
    if (part[0] == '.' || part[0] == '-')
        return st_error(ST_INVALID_ARGUMENT, "name '%s' must not start with '%c'", part,
                        part[0]);
    for (size_t i = 0; i < n; i++)
        if (!name_char_ok(part[i]))
            return st_error(ST_INVALID_ARGUMENT, "name '%s' has illegal character '%c'", part,
                            part[i]);
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

/* Never change: they are the layout of every existing root directory. */
#define WALS_DIR "WALs"
#define DATA_DIR "data"
#define MASTER_WAL_PREFIX "master-"
#define FENCED_SUFFIX "-splitting"

char *layout_wals_dir(const char *root)
{
    return fmt_path("%s/" WALS_DIR, root);
}

char *layout_wal_dir(const char *root, const char *name)
{
    return fmt_path("%s/" WALS_DIR "/%s", root, name);
}

void layout_master_wal_name(const char *server, char *out, size_t cap)
{
    snprintf(out, cap, MASTER_WAL_PREFIX "%s", server);
}

bool layout_is_master_wal_name(const char *name)
{
    return strncmp(name, MASTER_WAL_PREFIX, strlen(MASTER_WAL_PREFIX)) == 0;
}

bool layout_is_fenced_wal_name(const char *name)
{
    size_t n = strlen(name), k = strlen(FENCED_SUFFIX);
    return n > k && strcmp(name + n - k, FENCED_SUFFIX) == 0;
}

char *layout_fenced_wal_dir(const char *root, const char *name)
{
    if (layout_is_fenced_wal_name(name))
        return layout_wal_dir(root, name);
    return fmt_path("%s/" WALS_DIR "/%s" FENCED_SUFFIX, root, name);
}

void layout_wal_name_owner(const char *name, char *out, size_t cap)
{
    size_t n = strlen(name);
    if (layout_is_fenced_wal_name(name))
        n -= strlen(FENCED_SUFFIX);
    snprintf(out, cap, "%.*s", (int)n, name);
}

char *layout_table_dir(const char *root, const char *table)
{
    char *ns, *q;
    if (layout_split_table_name(table, &ns, &q) != ST_OK)
        return NULL;
    char *s = fmt_path("%s/" DATA_DIR "/%s/%s", root, ns, q);
    free(ns);
    free(q);
    return s;
}

char *layout_region_dir(const char *root, const char *table, const char *region)
{
    char *t = layout_table_dir(root, table);
    if (!t)
        return NULL;
    char *s = fmt_path("%s/%s", t, region);
    free(t);
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
