/*
 * hbck_fs.c - the root directory as `strata hbck` sees it (docs/hbck.md): every region
 * directory under <root>/data/<ns>/<table>/ (whether it holds data), every reference file
 * in a family directory (whether its target is there) and the names under <root>/WALs.
 * Paths come from regionserver/storage/layout.c; nothing is changed.
 *
 * Thread-safety: reads the file system only; the result is the caller's.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/fileio.h"
#include "common/status.h"
#include "master/hbck.h"
#include "regionserver/storage/layout.h"
#include "regionserver/storage/reference.h"

void hbck_fs_free(hbck_fs *fs)
{
    free(fs->dirs);
    free(fs->refs);
    fio_free_list(fs->wals, fs->nwals);
    memset(fs, 0, sizeof(*fs));
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool encoded_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n != 32)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return false;
    return true;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int list(const char *dir, char ***names, size_t *n)
{
    *names = NULL;
    *n = 0;
    if (!fio_exists(dir))
        return ST_OK;
    int rc = fio_list_dir(dir, names, n);
    /* Removed meanwhile (a janitor's cleanup, a drop): nothing to look at, not a failure
     * of the whole report. */
    if (rc != ST_OK && !fio_exists(dir)) {
        *names = NULL;
        *n = 0;
        return ST_OK;
    }
    return rc;
}

static int add_ref(hbck_fs *fs, size_t *cap, const hbck_dir *d, const char *path, const char *name)
{
    char *file = NULL, *parent = NULL, *target = NULL;
    int rc = reference_parse_name(name, &file, &parent);
    if (rc == ST_OK)
        rc = reference_target_path(path, &target);
    if (rc == ST_OK && fs->nrefs == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        hbck_ref *v = realloc(fs->refs, c * sizeof(*v));
        if (!v)
            rc = st_error(ST_NOMEM, "out of memory");
        else {
            fs->refs = v;
            *cap = c;
        }
    }
    if (rc == ST_OK) {
        hbck_ref *f = &fs->refs[fs->nrefs++];
        memset(f, 0, sizeof(*f));
        snprintf(f->table, sizeof(f->table), "%s", d->table);
        snprintf(f->region, sizeof(f->region), "%s", d->region);
        snprintf(f->parent, sizeof(f->parent), "%s", parent);
        snprintf(f->path, sizeof(f->path), "%s", path);
        f->target_exists = fio_exists(target);
    }
    free(file);
    free(parent);
    free(target);
    return rc;
}

/* Looks into one region directory: data, references. */
static int scan_region(hbck_fs *fs, size_t *rcap, hbck_dir *d)
{
    char **fams = NULL;
    size_t nf = 0;
    int rc = list(d->path, &fams, &nf);
    for (size_t i = 0; rc == ST_OK && i < nf; i++) {
        char sub[1800];
        snprintf(sub, sizeof(sub), "%s/%s", d->path, fams[i]);
        if (!is_dir(sub))
            continue;
        char **files = NULL;
        size_t n = 0;
        rc = list(sub, &files, &n);
        for (size_t j = 0; rc == ST_OK && j < n; j++) {
            if (files[j][0] == '.' || ends_with(files[j], ".tmp"))
                continue;
            d->has_data = true;
            char path[2100];
            snprintf(path, sizeof(path), "%s/%s", sub, files[j]);
            if (strcmp(fams[i], "recovered.edits") != 0 && reference_is_name(files[j]))
                rc = add_ref(fs, rcap, d, path, files[j]);
        }
        fio_free_list(files, n);
    }
    fio_free_list(fams, nf);
    return rc;
}

static bool wanted(const char *table, const char *const *tables, size_t n)
{
    if (n == 0)
        return strcmp(table, "strata:meta") != 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(tables[i], table) == 0)
            return true;
    return false;
}

static int scan_table(hbck_fs *fs, size_t *dcap, size_t *rcap, const char *root, const char *table)
{
    char *tdir = layout_table_dir(root, table);
    if (!tdir)
        return st_error(ST_NOMEM, "out of memory");
    char **regions = NULL;
    size_t n = 0;
    int rc = list(tdir, &regions, &n);
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        if (!encoded_name_ok(regions[i]))
            continue;
        if (fs->ndirs == *dcap) {
            size_t c = *dcap ? *dcap * 2 : 16;
            hbck_dir *v = realloc(fs->dirs, c * sizeof(*v));
            if (!v) {
                rc = st_error(ST_NOMEM, "out of memory");
                break;
            }
            fs->dirs = v;
            *dcap = c;
        }
        hbck_dir *d = &fs->dirs[fs->ndirs++];
        memset(d, 0, sizeof(*d));
        snprintf(d->table, sizeof(d->table), "%s", table);
        snprintf(d->region, sizeof(d->region), "%s", regions[i]);
        snprintf(d->path, sizeof(d->path), "%s/%s", tdir, regions[i]);
        rc = scan_region(fs, rcap, d);
    }
    fio_free_list(regions, n);
    free(tdir);
    return rc;
}

int hbck_scan_root(const char *root, const char *const *tables, size_t ntables, hbck_fs *out)
{
    memset(out, 0, sizeof(*out));
    size_t dcap = 0, rcap = 0;
    char data[4096];
    snprintf(data, sizeof(data), "%s/data", root);
    char **nss = NULL;
    size_t nns = 0;
    int rc = list(data, &nss, &nns);
    for (size_t i = 0; rc == ST_OK && i < nns; i++) {
        char nsdir[4400];
        snprintf(nsdir, sizeof(nsdir), "%s/%s", data, nss[i]);
        char **tabs = NULL;
        size_t nt = 0;
        rc = is_dir(nsdir) ? list(nsdir, &tabs, &nt) : ST_OK;
        for (size_t j = 0; rc == ST_OK && j < nt; j++) {
            char table[300];
            snprintf(table, sizeof(table), "%s:%s", nss[i], tabs[j]);
            if (layout_name_part_ok(nss[i]) && layout_name_part_ok(tabs[j]) &&
                wanted(table, tables, ntables))
                rc = scan_table(out, &dcap, &rcap, root, table);
        }
        fio_free_list(tabs, nt);
    }
    fio_free_list(nss, nns);
    if (rc == ST_OK && ntables == 0) {
        char *wals = layout_wals_dir(root);
        rc = wals ? list(wals, &out->wals, &out->nwals) : st_error(ST_NOMEM, "out of memory");
        free(wals);
    }
    if (rc != ST_OK)
        hbck_fs_free(out);
    return rc;
}
