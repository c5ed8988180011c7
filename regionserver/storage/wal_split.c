/*
 * wal_split.c - splits a dead server's WAL directory into per-region recovered-edits
 * files (docs/formats/wal.md, "Reading a directory" and rule 4 of "Writing").
 *
 * 1. Read every log file in order with the directory rules (wal_read_files), and
 *    append each edit, re-encoded, to its region's buffer; buffers past 1 MiB go to
 *    the region's temporary file recovered.edits/.split-<pid>-<n>.tmp (which starts
 *    with a file header of number 0), so memory stays bounded.
 * 2. Only when every file was read: per region, write the rest, fdatasync, rename to
 *    recovered.edits/<20-digit max seq>, fsync the directory.
 * 3. Only when every region's file is in place: delete the WAL files and fsync the
 *    WAL directory.
 * Any error before step 3 removes the temporary files and deletes no WAL file; files
 * already renamed hold complete edits and are replaced by the same name on a retry.
 * A region whose directory does not exist (dropped, or a split or merged parent the
 * catalog janitor removed) gets no file: its edits are dropped and no directory is made.
 * Thread-safety: no shared state besides the temp-name counter (atomic).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/log.h"
#include "common/status.h"
#include "regionserver/storage/layout.h"
#include "regionserver/storage/wal_internal.h"

#define SPLIT_FLUSH_BYTES (1u << 20)

/* One region's output. */
typedef struct split_out {
    char *dir; /* its recovered.edits directory */
    char *tmp; /* temporary file, created at the first flush */
    buf_t buf; /* records not yet in the temporary file */
    bool created;
    bool renamed;
    bool gone; /* the region's directory does not exist: its edits are dropped */
    uint64_t max_seq;
    uint64_t edits;
} split_out;

typedef struct split_ctx {
    const char *root;
    wal_map outs; /* "table\0region" -> split_out */
    buf_t key;
} split_ctx;

static atomic_uint split_tmp_counter;

static void out_free(split_out *o)
{
    if (!o)
        return;
    buf_free(&o->buf);
    free(o->dir);
    free(o->tmp);
    free(o);
}

static int out_new(const char *root, const wal_edit *e, split_out **out)
{
    char *ns = NULL, *q = NULL;
    int rc = layout_split_table_name(e->table, &ns, &q);
    free(ns);
    free(q);
    if (rc == ST_OK)
        rc = layout_validate_name_part(e->region); /* it becomes a directory name */
    if (rc != ST_OK) {
        char why[256];
        snprintf(why, sizeof(why), "%s", st_errmsg());
        return st_error(ST_CORRUPTION, "wal split: edit seq %llu of region %s: %s",
                        (unsigned long long)e->seq, e->region, why);
    }
    split_out *o = calloc(1, sizeof(*o));
    if (o)
        o->dir = layout_recovered_edits_dir(root, e->table, e->region);
    if (o && o->dir &&
        asprintf(&o->tmp, "%s/.split-%d-%u.tmp", o->dir, (int)getpid(),
                 atomic_fetch_add(&split_tmp_counter, 1)) < 0)
        o->tmp = NULL;
    if (!o || !o->dir || !o->tmp) {
        out_free(o);
        return st_error(ST_NOMEM, "wal split: out of memory for region %s", e->region);
    }
    char *rdir = layout_region_dir(root, e->table, e->region);
    if (!rdir) {
        out_free(o);
        return st_error(ST_NOMEM, "wal split: out of memory for region %s", e->region);
    }
    if (!fio_exists(rdir)) {
        o->gone = true;
        LOG_INFO("wal split: region %s of %s has no directory (%s): its edits are dropped",
                 e->region, e->table, rdir);
    }
    free(rdir);
    *out = o;
    return ST_OK;
}

/* Opens (creating with a header the first time) the temp file, appends the buffer,
 * syncs if asked, closes. */
static int out_flush(split_out *o, bool sync)
{
    fio_file *f = NULL;
    int rc = ST_OK;
    if (o->gone) {
        buf_reset(&o->buf);
        return ST_OK;
    }
    if (!o->created) {
        uint8_t hdr[WAL_FILE_HEADER_LEN];
        wal_header_encode(&(wal_file_header){0, 0, 0}, hdr);
        /* recovered.edits only, inside the region's directory: never the region's own. */
        if (mkdir(o->dir, 0755) != 0 && errno != EEXIST) {
            if (errno == ENOENT) {
                o->gone = true; /* removed since the split began */
                LOG_INFO("wal split: %s vanished: its edits are dropped", o->dir);
                buf_reset(&o->buf);
                return ST_OK;
            }
            return st_error(ST_IO, "wal split: mkdir %s: %s", o->dir, strerror(errno));
        }
        if ((rc = fio_create(o->tmp, &f)) == ST_OK)
            o->created = true;
        if (rc == ST_OK)
            rc = fio_append(f, hdr, sizeof(hdr));
    } else {
        rc = fio_open_append(o->tmp, &f);
    }
    if (rc == ST_OK && o->buf.len)
        rc = fio_append(f, o->buf.data, o->buf.len);
    if (rc == ST_OK && sync)
        rc = fio_sync(f);
    int crc = fio_close(f);
    buf_reset(&o->buf);
    return rc != ST_OK ? rc : crc;
}

static int on_edit(const wal_edit *e, void *arg)
{
    split_ctx *s = arg;
    size_t tl = strlen(e->table);
    s->key.len = 0;
    if (buf_append(&s->key, e->table, tl + 1) ||
        buf_append(&s->key, e->region, strlen(e->region)))
        return st_error(ST_NOMEM, "wal split: out of memory");
    wal_map_ent *ent = wal_map_put(&s->outs, s->key.data, s->key.len);
    if (!ent)
        return st_error(ST_NOMEM, "wal split: out of memory");
    split_out *o = ent->ptr;
    int rc = ST_OK;
    if (!o) {
        if ((rc = out_new(s->root, e, &o)) != ST_OK)
            return rc;
        ent->ptr = o;
    }
    if (o->gone)
        return ST_OK;
    if ((rc = wal_record_encode(e, &o->buf)) != ST_OK)
        return rc;
    if (e->seq > o->max_seq)
        o->max_seq = e->seq;
    o->edits++;
    return o->buf.len >= SPLIT_FLUSH_BYTES ? out_flush(o, false) : ST_OK;
}

/* Step 2 for one region: last flush with sync, rename, directory syncs. */
static int out_finish(split_out *o)
{
    char *final = NULL;
    if (o->gone)
        return ST_OK;
    int rc = out_flush(o, true);
    if (rc == ST_OK && o->gone)
        return ST_OK;
    /* Never replace an existing file: a retry after a crash between deleting some WAL
     * files and others holds fewer edits than the file an earlier run renamed into
     * place. A taken name gets a ".<n>" suffix; replay applies repeated edits once. */
    for (int n = 0; rc == ST_OK; n++) {
        int len = n ? asprintf(&final, "%s/%020llu.%d", o->dir, (unsigned long long)o->max_seq, n)
                    : asprintf(&final, "%s/%020llu", o->dir, (unsigned long long)o->max_seq);
        if (len < 0) {
            final = NULL;
            rc = st_error(ST_NOMEM, "wal split: out of memory");
        } else if (fio_exists(final)) {
            free(final);
            final = NULL;
        } else {
            break;
        }
    }
    if (rc == ST_OK && (rc = fio_rename(o->tmp, final)) == ST_OK)
        o->renamed = true;
    if (rc == ST_OK)
        rc = fio_sync_dir(o->dir);
    char *parent = rc == ST_OK ? strdup(o->dir) : NULL;
    char *slash = parent ? strrchr(parent, '/') : NULL;
    if (slash) {
        *slash = '\0';
        rc = fio_sync_dir(parent);
    }
    if (rc == ST_OK)
        LOG_INFO("wal split: %s holds %llu edits", final, (unsigned long long)o->edits);
    free(parent);
    free(final);
    return rc;
}

/* Removes the temporary files not renamed, and frees the outputs. */
static void outs_free(split_ctx *s)
{
    for (size_t i = 0; i < s->outs.n; i++) {
        split_out *o = s->outs.e[i].ptr;
        if (o && o->created && !o->renamed && fio_exists(o->tmp))
            fio_unlink(o->tmp);
        out_free(o);
    }
    wal_map_free(&s->outs);
    buf_free(&s->key);
}

static int delete_wals(const char *wal_dir, char **paths, size_t n)
{
    int rc = ST_OK;
    for (size_t i = 0; i < n && rc == ST_OK; i++)
        rc = fio_unlink(paths[i]);
    if (rc == ST_OK && n)
        rc = fio_sync_dir(wal_dir);
    return rc;
}

int wal_split(const char *wal_dir, const char *root_dir)
{
    char **paths = NULL;
    size_t n = 0;
    split_ctx s = {.root = root_dir};
    if (!fio_exists(wal_dir))
        return ST_OK;
    int rc = wal_list_files(wal_dir, &paths, &n);
    if (rc == ST_OK)
        rc = wal_read_files(paths, n, on_edit, &s);
    for (size_t i = 0; rc == ST_OK && i < s.outs.n; i++)
        rc = out_finish(s.outs.e[i].ptr);
    if (rc == ST_OK)
        rc = delete_wals(wal_dir, paths, n);
    if (rc == ST_OK)
        LOG_INFO("wal split: %s: %zu files into %zu regions", wal_dir, n, s.outs.n);
    else
        LOG_ERROR("wal split: %s failed: %s", wal_dir, st_errmsg());
    outs_free(&s);
    fio_free_list(paths, n);
    return rc;
}
