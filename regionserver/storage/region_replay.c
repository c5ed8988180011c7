/*
 * region_replay.c - a region's recovered edits at open (docs/formats/wal.md, "Replaying
 * recovered edits"): the files wal_split wrote into <region>/recovered.edits/ from a
 * dead server's WAL.
 *
 * Each file is named after the highest sequence id it holds (<20-digit max seq>, or
 * <20-digit max seq>.<n> from a retried split). region_open drives it:
 *
 *   listed --region_edits_replay--> replayed into the memstores (or obsolete: unread)
 *          --region_flush_internal--> in store files (fsynced, renamed, dir fsynced)
 *          --region_edits_remove--> unlinked, directory fsynced
 *
 * A file whose max seq is at or below every store's flushed sequence id is obsolete:
 * all its edits are already in store files, so it is deleted without being read. Any
 * other file is read strictly (a torn or corrupt file fails the open with
 * ST_CORRUPTION and nothing is deleted) and its edits newer than their store's flushed
 * sequence id go to the memstores. A file is deleted only after the flush that made
 * its edits durable, so a crash at any step replays it again (an edit applied twice is
 * applied once: same cell, same sequence id) or finds it obsolete.
 *
 * While the region is open, region_edits_prune (after each flush) deletes the files a
 * later WAL split wrote that the flushed seq makes obsolete.
 *
 * Thread-safety: region_edits_replay and region_edits_remove are called by region_open
 * only, before the region is shared; region_edits_prune under the region's flush.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "common/log.h"
#include "common/status.h"
#include "regionserver/storage/layout.h"
#include "regionserver/storage/region_internal.h"

#define EDITS_SEQ_DIGITS 20 /* docs/formats/wal.md: <20-digit max seq> */

typedef struct replay_ctx {
    region *r;
    uint64_t max_seq;
    uint64_t applied;
    int rc;
} replay_ctx;

static int replay_edit(const wal_edit *e, void *arg)
{
    replay_ctx *ctx = arg;
    region *r = ctx->r;
    if (strcmp(e->region, r->info.encoded_name) != 0)
        return 0;
    for (size_t i = 0; i < e->ncells; i++) {
        const cell_t *c = &e->cells[i];
        store *s = region_find_store(r, c->family, c->family_len);
        if (!s) {
            LOG_WARN("region %s: recovered edit seq %" PRIu64 " names a family not in the "
                     "table; skipped",
                     r->info.encoded_name, e->seq);
            continue;
        }
        if (e->seq <= store_max_flushed_seq(s))
            continue;
        cell_t copy = *c;
        copy.seq = e->seq;
        int rc = store_add(s, &copy);
        if (rc != ST_OK) {
            ctx->rc = rc;
            return 1;
        }
        size_t charge = store_cell_charge(&copy);
        atomic_fetch_add(&r->memstore_bytes, charge);
        engine_memstore_add(r->eng, (int64_t)charge);
        ctx->applied++;
    }
    if (e->seq > ctx->max_seq)
        ctx->max_seq = e->seq;
    return 0;
}

/* The max seq a recovered-edits file name carries ("<20 digits>" or "<20 digits>.<n>");
 * false for any other name. */
static bool name_max_seq(const char *name, uint64_t *seq)
{
    uint64_t v = 0;
    for (int i = 0; i < EDITS_SEQ_DIGITS; i++) {
        if (name[i] < '0' || name[i] > '9')
            return false;
        v = v * 10 + (uint64_t)(name[i] - '0');
    }
    const char *rest = name + EDITS_SEQ_DIGITS;
    if (*rest == '.') {
        if (!rest[1])
            return false;
        for (rest++; *rest; rest++)
            if (*rest < '0' || *rest > '9')
                return false;
    } else if (*rest) {
        return false;
    }
    *seq = v;
    return true;
}

/* The lowest of the stores' flushed sequence ids: every edit at or below it is in a
 * store file whichever family it names. */
static uint64_t min_flushed_seq(region *r)
{
    uint64_t min = UINT64_MAX;
    for (size_t i = 0; i < r->schema.nfamilies; i++) {
        uint64_t m = store_max_flushed_seq(r->stores[i]);
        min = m < min ? m : min;
    }
    return r->schema.nfamilies ? min : 0;
}

static bool is_tmp_name(const char *name)
{
    size_t len = strlen(name);
    return len > 4 && strcmp(name + len - 4, ".tmp") == 0;
}

/* Whether the file name says every edit in it is at or below flushed (*seq: its max). */
static bool obsolete_name(const char *name, uint64_t flushed, uint64_t *seq)
{
    return !is_tmp_name(name) && name_max_seq(name, seq) && *seq <= flushed;
}

/* One file of the directory: read and replayed, or only listed for removal. */
static int replay_file(region *r, const char *name, const char *path, uint64_t flushed,
                       replay_ctx *ctx, uint64_t *obsolete)
{
    uint64_t seq = 0;
    if (is_tmp_name(name))
        return ST_OK; /* an unfinished split output; its WAL was not deleted */
    if (obsolete_name(name, flushed, &seq)) {
        LOG_INFO("region %s: recovered edits %s are obsolete (max seq %" PRIu64
                 " <= flushed seq %" PRIu64 "); not replayed",
                 r->info.encoded_name, path, seq, flushed);
        (*obsolete)++;
        return ST_OK;
    }
    int rc = wal_read_file(path, false, replay_edit, ctx, NULL);
    return rc == ST_OK ? ctx->rc : rc;
}

int region_edits_replay(region *r, region_edits *ed, uint64_t *max_seq)
{
    char **names = NULL;
    size_t n = 0;
    uint64_t obsolete = 0;
    memset(ed, 0, sizeof(*ed));
    ed->dir = layout_recovered_edits_dir(engine_get_options(r->eng)->root_dir, r->info.table,
                                         r->info.encoded_name);
    if (!ed->dir)
        return st_error(ST_NOMEM, "region %s: out of memory", r->info.encoded_name);
    if (!fio_exists(ed->dir))
        return ST_OK;
    int rc = fio_list_dir(ed->dir, &names, &n);
    if (rc == ST_OK && n && !(ed->paths = calloc(n, sizeof(*ed->paths))))
        rc = st_error(ST_NOMEM, "region %s: out of memory", r->info.encoded_name);
    replay_ctx ctx = {r, *max_seq, 0, ST_OK};
    uint64_t flushed = min_flushed_seq(r);
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        if (asprintf(&ed->paths[i], "%s/%s", ed->dir, names[i]) < 0) {
            ed->paths[i] = NULL;
            rc = st_error(ST_NOMEM, "region %s: out of memory", r->info.encoded_name);
            break;
        }
        ed->npaths = i + 1;
        rc = replay_file(r, names[i], ed->paths[i], flushed, &ctx, &obsolete);
    }
    fio_free_list(names, n);
    if (rc != ST_OK) {
        region_edits_free(ed);
        return rc;
    }
    if (ed->npaths)
        LOG_INFO("region %s: replayed %" PRIu64 " recovered cells up to seq %" PRIu64
                 " from %zu files (%" PRIu64 " obsolete)",
                 r->info.encoded_name, ctx.applied, ctx.max_seq, ed->npaths, obsolete);
    ed->applied = ctx.applied;
    *max_seq = ctx.max_seq;
    return ST_OK;
}

void region_edits_remove(region *r, region_edits *ed)
{
    size_t removed = 0;
    for (size_t i = 0; i < ed->npaths; i++) {
        if (!ed->paths[i])
            continue;
        if (fio_unlink(ed->paths[i]) == ST_OK)
            removed++;
        else /* obsolete at the next open: removed then */
            LOG_WARN("region %s: could not remove %s: %s", r->info.encoded_name, ed->paths[i],
                     st_errmsg());
    }
    if (removed && fio_sync_dir(ed->dir) != ST_OK)
        LOG_WARN("region %s: fsync %s after removing recovered edits: %s", r->info.encoded_name,
                 ed->dir, st_errmsg());
}

void region_edits_free(region_edits *ed)
{
    fio_free_list(ed->paths, ed->npaths);
    free(ed->dir);
    memset(ed, 0, sizeof(*ed));
}

void region_edits_prune(region *r)
{
    region_edits ed = {0};
    char **names = NULL;
    size_t n = 0;
    ed.dir = layout_recovered_edits_dir(engine_get_options(r->eng)->root_dir, r->info.table,
                                        r->info.encoded_name);
    if (!ed.dir || !fio_exists(ed.dir) || fio_list_dir(ed.dir, &names, &n) != ST_OK || !n ||
        !(ed.paths = calloc(n, sizeof(*ed.paths)))) {
        fio_free_list(names, n);
        region_edits_free(&ed);
        return;
    }
    uint64_t flushed = min_flushed_seq(r), seq = 0;
    for (size_t i = 0; i < n; i++) {
        if (!obsolete_name(names[i], flushed, &seq))
            continue;
        if (asprintf(&ed.paths[ed.npaths], "%s/%s", ed.dir, names[i]) < 0)
            break;
        LOG_INFO("region %s: removing obsolete recovered edits %s (max seq %" PRIu64
                 " <= flushed seq %" PRIu64 ")",
                 r->info.encoded_name, ed.paths[ed.npaths], seq, flushed);
        ed.npaths++;
    }
    fio_free_list(names, n);
    region_edits_remove(r, &ed);
    region_edits_free(&ed);
}
