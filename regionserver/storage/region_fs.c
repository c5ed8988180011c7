/*
 * region_fs.c - split daughters and merged regions made of reference files, region
 * removal, and the janitor's question (see region_fs.h; docs/formats/reference.md).
 *
 * region_fs_split / region_fs_merge: check the names -> refuse a parent without a
 * directory, with recovered edits left to replay, or holding references (before
 * anything is written) -> create the new regions' region and family
 * directories -> for each family and each store file of each parent, open it for its
 * first and last rows and write the references it needs (reference_write: temp file,
 * fsync, rename, directory fsync) -> fsync the new region directories and the table
 * directory, so the directories holding the references are durable too. Every step
 * is idempotent, so a second run after a crash completes the first.
 * Thread-safety: no shared state; see region_fs.h for what callers keep apart.
 */
#include "regionserver/storage/region_fs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cell.h"
#include "common/fileio.h"
#include "common/log.h"
#include "common/status.h"
#include "regionserver/storage/layout.h"
#include "regionserver/storage/reference.h"
#include "regionserver/storage/storefile.h"

#define TMP_SUFFIX ".tmp"

static bool is_tmp_name(const char *name)
{
    size_t n = strlen(name), k = strlen(TMP_SUFFIX);
    return n > k && strcmp(name + n - k, TMP_SUFFIX) == 0;
}

/* Checks the table name (layout's rules) and the region's encoded name. */
static int check_region_name(const char *table, const char *encoded)
{
    char *ns = NULL, *qualifier = NULL;
    int rc = layout_split_table_name(table, &ns, &qualifier);
    free(ns);
    free(qualifier);
    if (rc != ST_OK)
        return st_error(ST_INVALID_ARGUMENT, "region %s: %s", encoded, st_errmsg());
    if (layout_validate_name_part(encoded) != ST_OK)
        return st_error(ST_INVALID_ARGUMENT, "region '%s' of %s: invalid encoded name: %s", encoded,
                        table, st_errmsg());
    return ST_OK;
}

/* The names in a family directory (none when it is missing). */
static int list_family(const char *root, const char *table, const char *encoded, const char *family,
                       char **dir, char ***names, size_t *n)
{
    *names = NULL;
    *n = 0;
    *dir = layout_store_dir(root, table, encoded, family);
    if (!*dir)
        return st_error(ST_NOMEM, "region %s of %s: out of memory", encoded, table);
    if (!fio_exists(*dir))
        return ST_OK;
    int rc = fio_list_dir(*dir, names, n);
    if (rc != ST_OK) {
        free(*dir);
        *dir = NULL;
    }
    return rc;
}

/* Refuses a parent whose recovered edits (split from a dead server's WALs, not yet
 * replayed by opening it) hold edits its store files lack. Unfinished split outputs
 * (*.tmp) are not edits. */
static int check_no_recovered_edits(const char *root, const table_schema *schema,
                                    const char *parent, const char *doing)
{
    char *dir = layout_recovered_edits_dir(root, schema->name, parent);
    if (!dir)
        return st_error(ST_NOMEM, "region %s of %s: out of memory", parent, schema->name);
    char **names = NULL;
    size_t n = 0;
    int rc = fio_exists(dir) ? fio_list_dir(dir, &names, &n) : ST_OK;
    for (size_t i = 0; rc == ST_OK && i < n; i++)
        if (!is_tmp_name(names[i]))
            rc = st_error(ST_INVALID_ARGUMENT,
                          "region %s of %s has recovered edits not replayed yet (%s/%s): it "
                          "cannot %s before it is opened and closed",
                          parent, schema->name, dir, names[i], doing);
    fio_free_list(names, n);
    free(dir);
    return rc;
}

/* Refuses a parent without a directory, with edits left to replay, or holding
 * references. */
static int check_parent(const char *root, const table_schema *schema, const char *parent,
                        const char *doing)
{
    char *dir = layout_region_dir(root, schema->name, parent);
    if (!dir)
        return st_error(ST_NOMEM, "region %s of %s: out of memory", parent, schema->name);
    bool exists = fio_exists(dir);
    free(dir);
    if (!exists)
        return st_error(ST_NOT_FOUND, "region %s of %s has no directory: nothing to %s", parent,
                        schema->name, doing);
    int rc = check_no_recovered_edits(root, schema, parent, doing);
    for (size_t i = 0; i < schema->nfamilies && rc == ST_OK; i++) {
        char **names = NULL, *fdir = NULL;
        size_t n = 0;
        rc = list_family(root, schema->name, parent, schema->families[i].name, &fdir, &names, &n);
        for (size_t j = 0; rc == ST_OK && j < n; j++)
            if (reference_is_name(names[j]))
                rc = st_error(ST_INVALID_ARGUMENT,
                              "region %s of %s holds reference %s/%s: it cannot %s before a "
                              "compaction rewrites its references",
                              parent, schema->name, fdir, names[j], doing);
        fio_free_list(names, n);
        free(fdir);
    }
    return rc;
}

/* Creates the region directory and every family directory of a new region. */
static int make_region_dirs(const char *root, const table_schema *schema, const char *encoded)
{
    int rc = ST_OK;
    for (size_t i = 0; i < schema->nfamilies && rc == ST_OK; i++) {
        char *dir = layout_store_dir(root, schema->name, encoded, schema->families[i].name);
        rc = dir ? fio_mkdirs(dir) : ST_NOMEM;
        free(dir);
    }
    if (rc == ST_OK && schema->nfamilies == 0) {
        char *dir = layout_region_dir(root, schema->name, encoded);
        rc = dir ? fio_mkdirs(dir) : ST_NOMEM;
        free(dir);
    }
    if (rc != ST_OK)
        return st_error(rc, "region %s of %s: creating its directories failed: %s", encoded,
                        schema->name, st_errmsg());
    return ST_OK;
}

/* fsyncs the new regions' directories (their family entries) and the table directory
 * (their entries), so the references' directories survive a crash. */
static int sync_region_dirs(const char *root, const char *table, const char *const *encoded,
                            size_t n)
{
    int rc = ST_OK;
    for (size_t i = 0; i < n && rc == ST_OK; i++) {
        char *dir = layout_region_dir(root, table, encoded[i]);
        rc = dir ? fio_sync_dir(dir) : ST_NOMEM;
        free(dir);
    }
    char *tdir = rc == ST_OK ? layout_table_dir(root, table) : NULL;
    if (rc == ST_OK)
        rc = tdir ? fio_sync_dir(tdir) : ST_NOMEM;
    free(tdir);
    return rc;
}

/* Writes <root>/.../<region>/<family>/<file>.<parent>. */
static int write_reference(const char *root, const char *table, const char *region,
                           const char *family, const char *file, const char *parent,
                           reference_range range, const uint8_t *split_row, size_t split_len)
{
    char *name = NULL, *dir = NULL, *path = NULL;
    int rc = reference_name(file, parent, &name);
    if (rc != ST_OK)
        return rc;
    dir = layout_store_dir(root, table, region, family);
    if (!dir || asprintf(&path, "%s/%s", dir, name) < 0) {
        path = NULL;
        rc = st_error(ST_NOMEM, "region %s of %s: out of memory", region, table);
    }
    if (rc == ST_OK)
        rc = reference_write(path, range, split_row, split_len);
    if (rc == ST_OK)
        LOG_DEBUG("region %s of %s: %s reference %s", region, table, reference_range_name(range),
                  path);
    free(path);
    free(dir);
    free(name);
    return rc;
}

/* Opens a parent's store file (for its rows); *f NULL for a temp file or one without
 * cells, which need no reference. */
static int open_parent_file(const char *dir, const char *name, blockcache *cache, storefile **f)
{
    *f = NULL;
    if (is_tmp_name(name))
        return ST_OK;
    char *path = NULL;
    if (asprintf(&path, "%s/%s", dir, name) < 0)
        return st_error(ST_NOMEM, "store %s: out of memory", dir);
    int rc = storefile_open(path, cache, f);
    free(path);
    if (rc == ST_OK && storefile_get_info(*f)->entries == 0) {
        storefile_unref(*f);
        *f = NULL;
    }
    return rc;
}

/* ---- split ---- */

typedef struct split_args {
    const char *root;
    const table_schema *schema;
    const char *parent;
    const char *a;
    const char *b;
    const uint8_t *row;
    size_t len;
    size_t refs; /* references written */
} split_args;

static int split_file(split_args *s, const char *family, const char *name, const storefile *f)
{
    const storefile_info *info = storefile_get_info(f);
    bool bottom = cell_compare_rows(s->row, s->len, info->first.row, info->first.row_len) > 0;
    bool top = cell_compare_rows(s->row, s->len, info->last.row, info->last.row_len) <= 0;
    int rc = ST_OK;
    if (bottom)
        rc = write_reference(s->root, s->schema->name, s->a, family, name, s->parent,
                             REFERENCE_BOTTOM, s->row, s->len);
    if (rc == ST_OK && top)
        rc = write_reference(s->root, s->schema->name, s->b, family, name, s->parent, REFERENCE_TOP,
                             s->row, s->len);
    s->refs += (size_t)bottom + (size_t)top;
    return rc;
}

static int split_family(split_args *s, const char *family, blockcache *cache)
{
    char **names = NULL, *dir = NULL;
    size_t n = 0;
    int rc = list_family(s->root, s->schema->name, s->parent, family, &dir, &names, &n);
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        storefile *f = NULL;
        rc = open_parent_file(dir, names[i], cache, &f);
        if (rc == ST_OK && f)
            rc = split_file(s, family, names[i], f);
        storefile_unref(f);
    }
    fio_free_list(names, n);
    free(dir);
    return rc;
}

static int check_split_args(const table_schema *schema, const char *parent, const char *a,
                            const char *b, size_t split_len)
{
    int rc = check_region_name(schema->name, parent);
    if (rc == ST_OK)
        rc = check_region_name(schema->name, a);
    if (rc == ST_OK)
        rc = check_region_name(schema->name, b);
    if (rc != ST_OK)
        return rc;
    if (strcmp(a, b) == 0 || strcmp(a, parent) == 0 || strcmp(b, parent) == 0)
        return st_error(ST_INVALID_ARGUMENT,
                        "split of region %s of %s: the daughters %s and %s must be two new "
                        "regions",
                        parent, schema->name, a, b);
    if (split_len == 0 || split_len > CELL_MAX_ROW_LEN)
        return st_error(ST_INVALID_ARGUMENT,
                        "split of region %s of %s: split row of %zu bytes (1..%d)", parent,
                        schema->name, split_len, CELL_MAX_ROW_LEN);
    return ST_OK;
}

int region_fs_split(const char *root, const table_schema *schema, const char *parent_encoded,
                    const char *daughter_a_encoded, const char *daughter_b_encoded,
                    const uint8_t *split_row, size_t split_len, blockcache *cache)
{
    split_args s = {.root = root,
                    .schema = schema,
                    .parent = parent_encoded,
                    .a = daughter_a_encoded,
                    .b = daughter_b_encoded,
                    .row = split_row,
                    .len = split_len};
    int rc =
        check_split_args(schema, parent_encoded, daughter_a_encoded, daughter_b_encoded, split_len);
    if (rc == ST_OK)
        rc = check_parent(root, schema, parent_encoded, "be split");
    if (rc == ST_OK)
        rc = make_region_dirs(root, schema, daughter_a_encoded);
    if (rc == ST_OK)
        rc = make_region_dirs(root, schema, daughter_b_encoded);
    for (size_t i = 0; i < schema->nfamilies && rc == ST_OK; i++)
        rc = split_family(&s, schema->families[i].name, cache);
    const char *daughters[2] = {daughter_a_encoded, daughter_b_encoded};
    if (rc == ST_OK)
        rc = sync_region_dirs(root, schema->name, daughters, 2);
    if (rc != ST_OK) {
        LOG_ERROR("split of region %s of %s into %s and %s failed: %s", parent_encoded,
                  schema->name, daughter_a_encoded, daughter_b_encoded, st_errmsg());
        return rc;
    }
    LOG_INFO("region %s of %s split into %s and %s on disk: %zu references", parent_encoded,
             schema->name, daughter_a_encoded, daughter_b_encoded, s.refs);
    return ST_OK;
}

/* ---- merge ---- */

static int merge_family(const char *root, const table_schema *schema, const char *parent,
                        const char *merged, const char *family, blockcache *cache, size_t *refs)
{
    char **names = NULL, *dir = NULL;
    size_t n = 0;
    int rc = list_family(root, schema->name, parent, family, &dir, &names, &n);
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        storefile *f = NULL;
        rc = open_parent_file(dir, names[i], cache, &f);
        if (rc == ST_OK && f) {
            rc = write_reference(root, schema->name, merged, family, names[i], parent,
                                 REFERENCE_TOP, NULL, 0);
            (*refs)++;
        }
        storefile_unref(f);
    }
    fio_free_list(names, n);
    free(dir);
    return rc;
}

static int check_merge_args(const table_schema *schema, const char *const *parents, size_t n,
                            const char *merged)
{
    int rc = check_region_name(schema->name, merged);
    if (rc == ST_OK && n < 2)
        rc = st_error(ST_INVALID_ARGUMENT,
                      "merge into region %s of %s needs at least 2 parents, got %zu", merged,
                      schema->name, n);
    for (size_t i = 0; i < n && rc == ST_OK; i++) {
        rc = check_region_name(schema->name, parents[i]);
        if (rc == ST_OK && strcmp(parents[i], merged) == 0)
            rc = st_error(ST_INVALID_ARGUMENT,
                          "merge into region %s of %s: the merged region must be a new one", merged,
                          schema->name);
        for (size_t j = 0; j < i && rc == ST_OK; j++)
            if (strcmp(parents[i], parents[j]) == 0)
                rc = st_error(ST_INVALID_ARGUMENT,
                              "merge into region %s of %s: parent %s is given twice", merged,
                              schema->name, parents[i]);
    }
    return rc;
}

int region_fs_merge(const char *root, const table_schema *schema,
                    const char *const *parents_encoded, size_t n, const char *merged_encoded,
                    blockcache *cache)
{
    size_t refs = 0;
    int rc = check_merge_args(schema, parents_encoded, n, merged_encoded);
    for (size_t i = 0; i < n && rc == ST_OK; i++)
        rc = check_parent(root, schema, parents_encoded[i], "be merged");
    if (rc == ST_OK)
        rc = make_region_dirs(root, schema, merged_encoded);
    for (size_t i = 0; i < n && rc == ST_OK; i++)
        for (size_t f = 0; f < schema->nfamilies && rc == ST_OK; f++)
            rc = merge_family(root, schema, parents_encoded[i], merged_encoded,
                              schema->families[f].name, cache, &refs);
    if (rc == ST_OK)
        rc = sync_region_dirs(root, schema->name, &merged_encoded, 1);
    if (rc != ST_OK) {
        LOG_ERROR("merge of %zu regions of %s into %s failed: %s", n, schema->name, merged_encoded,
                  st_errmsg());
        return rc;
    }
    LOG_INFO("%zu regions of %s merged into %s on disk: %zu references", n, schema->name,
             merged_encoded, refs);
    return ST_OK;
}

/* ---- removal and the janitor ---- */

int region_fs_remove(const char *root, const char *table, const char *encoded)
{
    int rc = check_region_name(table, encoded);
    if (rc != ST_OK)
        return rc;
    char *dir = layout_region_dir(root, table, encoded);
    if (!dir)
        return st_error(ST_NOMEM, "region %s of %s: out of memory", encoded, table);
    bool existed = fio_exists(dir);
    rc = fio_remove_tree(dir);
    if (rc != ST_OK)
        rc = st_error(rc, "region %s of %s: removing %s failed: %s", encoded, table, dir,
                      st_errmsg());
    free(dir);
    char *tdir = rc == ST_OK && existed ? layout_table_dir(root, table) : NULL;
    if (tdir && fio_exists(tdir))
        rc = fio_sync_dir(tdir);
    free(tdir);
    if (rc == ST_OK && existed)
        LOG_INFO("region %s of %s: directory removed", encoded, table);
    return rc;
}

/* Whether a listed name is a reference (or one being written) to a file of parent. */
static bool refers_to(const char *name, const char *parent)
{
    char *base = strdup(name), *file = NULL, *p = NULL;
    if (!base)
        return true; /* out of memory: the safe answer for a janitor */
    if (is_tmp_name(base))
        base[strlen(base) - strlen(TMP_SUFFIX)] = '\0';
    bool yes = false;
    if (reference_is_name(base) && reference_parse_name(base, &file, &p) == ST_OK)
        yes = strcmp(p, parent) == 0;
    else if (reference_is_name(base))
        yes = true; /* could not tell: keep the parent */
    free(file);
    free(p);
    free(base);
    return yes;
}

int region_fs_references(const char *root, const table_schema *schema, const char *encoded,
                         const char *parent_encoded, bool *referenced)
{
    *referenced = false;
    int rc = check_region_name(schema->name, encoded);
    if (rc == ST_OK)
        rc = check_region_name(schema->name, parent_encoded);
    for (size_t i = 0; i < schema->nfamilies && rc == ST_OK && !*referenced; i++) {
        char **names = NULL, *dir = NULL;
        size_t n = 0;
        rc = list_family(root, schema->name, encoded, schema->families[i].name, &dir, &names, &n);
        for (size_t j = 0; rc == ST_OK && j < n && !*referenced; j++)
            *referenced = refers_to(names[j], parent_encoded);
        fio_free_list(names, n);
        free(dir);
    }
    if (rc != ST_OK)
        *referenced = false;
    return rc;
}
