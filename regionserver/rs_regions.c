/*
 * rs_regions.c - the region server's table of online regions by encoded name, with the
 * OPENING / OPEN / CLOSING states and the in-flight call and scanner counts drawn in
 * rs_internal.h.
 *
 * In cluster mode the region's ownership znode is claimed while the entry is OPENING and
 * given up while it is CLOSING (rs_cluster.c).
 * Thread-safety: the table and every rs_region field are under rs_server.mu; region_open,
 * region_close and the ZooKeeper calls run without it (the OPENING / CLOSING state keeps
 * others away).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/status.h"
#include "regionserver/rs_internal.h"

/* Under mu. */
static rs_region *find(rs_server *s, const char *name, size_t *pos)
{
    for (size_t i = 0; i < s->nregions; i++)
        if (strcmp(s->regions[i]->name, name) == 0) {
            if (pos)
                *pos = i;
            return s->regions[i];
        }
    return NULL;
}

/* Under mu. */
static void remove_entry(rs_server *s, rs_region *reg)
{
    size_t pos = 0;
    if (find(s, reg->name, &pos) == reg) {
        s->regions[pos] = s->regions[--s->nregions];
        pthread_cond_broadcast(&s->cv);
    }
}

int rs_region_acquire(rs_server *s, const char *name, rs_region **out)
{
    return rs_region_acquire_hint(s, name, out, NULL);
}

/* A call for a region absent or closing here: ST_REGION_MOVED with the hint if it was
 * closed for a move, split or merge, else not_serving (its message already set). */
static int moved_or(rs_server *s, const char *name, buf_t *hint, int not_serving)
{
    if (!hint || !rs_moved_get(s->moved, name, clock_mono_ns(), hint))
        return not_serving;
    return st_error(ST_REGION_MOVED, "region %s moved from %s (closed for a move, split or "
                    "merge; the answer says where it went)", name, s->server_name);
}

int rs_region_acquire_hint(rs_server *s, const char *name, rs_region **out, buf_t *hint)
{
    *out = NULL;
    int rc = ST_OK;
    pthread_mutex_lock(&s->mu);
    rs_region *reg = find(s, name, NULL);
    if (!reg)
        rc = st_error(ST_NOT_SERVING, "region %s is not online on %s", name, s->server_name);
    else if (reg->state == RS_REGION_OPENING)
        rc = st_error(ST_REGION_OPENING, "region %s is opening on %s", name, s->server_name);
    else if (reg->state == RS_REGION_CLOSING)
        rc = st_error(ST_NOT_SERVING, "region %s is closing on %s", name, s->server_name);
    else {
        reg->inflight++;
        *out = reg;
    }
    pthread_mutex_unlock(&s->mu);
    return rc == ST_NOT_SERVING ? moved_or(s, name, hint, rc) : rc;
}

void rs_region_release(rs_server *s, rs_region *reg)
{
    if (!reg)
        return;
    pthread_mutex_lock(&s->mu);
    if (--reg->inflight == 0)
        pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

/* Adds an OPENING entry; ALREADY_OPENED if the name is taken. */
static int add_opening(rs_server *s, const char *name, rs_region **out)
{
    *out = NULL;
    int rc = STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__FAILED_OPENING;
    pthread_mutex_lock(&s->mu);
    rs_region *old = find(s, name, NULL);
    if (old) {
        /* A region still closing is not open: the opener must try again later. */
        rc = old->state == RS_REGION_CLOSING
                 ? STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__FAILED_OPENING
                 : STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__ALREADY_OPENED;
        goto done;
    }
    if (s->nregions == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        rs_region **r = realloc(s->regions, cap * sizeof(*r));
        if (!r)
            goto done;
        s->regions = r;
        s->cap = cap;
    }
    rs_region *reg = calloc(1, sizeof(*reg));
    if (!reg)
        goto done;
    memcpy(reg->name, name, strlen(name) + 1);
    reg->state = RS_REGION_OPENING;
    s->regions[s->nregions++] = reg;
    *out = reg;
    rc = STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__OPENED;
done:
    pthread_mutex_unlock(&s->mu);
    return rc;
}

/* Tests only: the open that takes <root>/inject-open-pause away (a rename: one open in
 * the whole cluster) sleeps regionserver.inject.open.pause.ms holding the ownership
 * znode, so that a test can kill the server while a region is OPENING there. */
static void inject_open_pause(rs_server *s, const region_info *info)
{
    if (s->inject_open_pause_ms <= 0)
        return;
    char mark[PATH_MAX + 32], taken[PATH_MAX + 64];
    snprintf(mark, sizeof(mark), "%s/inject-open-pause", s->root);
    snprintf(taken, sizeof(taken), "%s.taken-%llu", mark, (unsigned long long)s->start_code);
    if (rename(mark, taken) != 0)
        return;
    LOG_WARN("region server %s: inject: pausing %lld ms in the open of region %s", s->server_name,
             (long long)s->inject_open_pause_ms, info->encoded_name);
    clock_sleep_ms(s->inject_open_pause_ms);
}

/* Claims the region's ownership znode (cluster mode) and opens it; the znode goes again
 * if the open fails. reg is the OPENING entry, so no other open or close of the same
 * name runs meanwhile. */
static int claim_and_open(rs_server *s, const table_schema *schema, const region_info *info,
                          region **out)
{
    int rc = rs_cluster_claim(s, info);
    if (rc != ST_OK) {
        LOG_ERROR("open region %s of %s on %s: %s", info->encoded_name, info->table,
                  s->server_name, st_errmsg());
        return rc;
    }
    inject_open_pause(s, info);
    if ((rc = region_open(s->eng, schema, info, out)) != ST_OK) {
        char why[512];
        snprintf(why, sizeof(why), "%s", st_errmsg());
        rs_cluster_disclaim(s, info->encoded_name);
        st_error(rc, "%s", why);
    }
    return rc;
}

int rs_region_open_status(rs_server *s, const table_schema *schema, const region_info *info,
                          int *why)
{
    *why = ST_OK;
    if (strlen(info->encoded_name) >= sizeof(((rs_region *)0)->name) || !info->encoded_name[0]) {
        LOG_ERROR("open region: bad encoded name '%s'", info->encoded_name);
        *why = st_error(ST_INVALID_ARGUMENT, "bad encoded name '%s'", info->encoded_name);
        return STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__FAILED_OPENING;
    }
    rs_region *reg = NULL;
    int state = add_opening(s, info->encoded_name, &reg);
    if (!reg)
        return state;
    region *r = NULL;
    int rc = claim_and_open(s, schema, info, &r);
    pthread_mutex_lock(&s->mu);
    if (rc == ST_OK) {
        reg->r = r;
        reg->state = RS_REGION_OPEN;
        rs_moved_forget(s->moved, info->encoded_name); /* here again: no longer moved */
    } else {
        remove_entry(s, reg);
    }
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    if (rc != ST_OK) {
        free(reg);
        *why = rc;
        return STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__FAILED_OPENING;
    }
    LOG_INFO("region %s of %s online on %s", info->encoded_name, info->table, s->server_name);
    return STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__OPENED;
}

int rs_region_open(rs_server *s, const table_schema *schema, const region_info *info)
{
    int why;
    return rs_region_open_status(s, schema, info, &why);
}

/* Marks reg CLOSING; ST_NOT_SERVING / ST_REGION_OPENING if it is not OPEN. */
static int begin_close(rs_server *s, const char *name, rs_region **out)
{
    *out = NULL;
    int rc = ST_OK;
    pthread_mutex_lock(&s->mu);
    rs_region *reg = find(s, name, NULL);
    if (!reg)
        rc = st_error(ST_NOT_SERVING, "region %s is not online on %s", name, s->server_name);
    else if (reg->state == RS_REGION_OPENING)
        rc = st_error(ST_REGION_OPENING, "region %s is still opening on %s", name,
                      s->server_name);
    else if (reg->state == RS_REGION_CLOSING)
        rc = st_error(ST_NOT_SERVING, "region %s is already closing on %s", name, s->server_name);
    else {
        reg->state = RS_REGION_CLOSING;
        *out = reg;
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

int rs_region_close(rs_server *s, const char *name, bool flush)
{
    rs_region *reg = NULL;
    int rc = begin_close(s, name, &reg);
    if (rc != ST_OK)
        return rc;
    rs_scanners_kill_region(s, reg);
    pthread_mutex_lock(&s->mu);
    while (reg->inflight > 0 || reg->scanners > 0)
        pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    rc = region_close(reg->r, flush);
    /* Ownership goes only with a flushed close: the edits of a region closed without a
     * flush are only in this server's WAL, and the region must not open elsewhere until
     * the master has recovered them (the znode then goes with the session). */
    if (rc == ST_OK && flush)
        rs_cluster_disclaim(s, name);
    pthread_mutex_lock(&s->mu);
    if (rc != ST_OK)
        reg->state = RS_REGION_OPEN; /* nothing acknowledged is dropped: still served */
    else
        remove_entry(s, reg);
    pthread_mutex_unlock(&s->mu);
    if (rc != ST_OK) {
        LOG_ERROR("region %s: close failed, still online: %s", name, st_errmsg());
        return rc;
    }
    LOG_INFO("region %s closed on %s%s", name, s->server_name, flush ? "" : " (no flush)");
    free(reg);
    return ST_OK;
}

int rs_region_close_moved(rs_server *s, const char *name, const uint8_t *hint, size_t hint_len)
{
    if (hint_len && rs_moved_put(s->moved, name, hint, hint_len, clock_mono_ns()) != ST_OK)
        LOG_WARN("region %s: cannot keep where it moved: %s", name, st_errmsg());
    int rc = rs_region_close(s, name, true);
    if (rc != ST_OK && rc != ST_NOT_SERVING && hint_len) {
        char why[512];
        snprintf(why, sizeof(why), "%s", st_errmsg());
        rs_moved_forget(s->moved, name); /* still here (or never was) */
        st_error(rc, "%s", why);
    }
    return rc;
}

int rs_region_close_all(rs_server *s)
{
    int unflushed = 0;
    for (;;) {
        char name[64] = "";
        pthread_mutex_lock(&s->mu);
        for (size_t i = 0; i < s->nregions && !name[0]; i++)
            if (s->regions[i]->state == RS_REGION_OPEN)
                memcpy(name, s->regions[i]->name, sizeof(name));
        pthread_mutex_unlock(&s->mu);
        if (!name[0])
            return unflushed;
        if (rs_region_close(s, name, true) != ST_OK) {
            unflushed++;
            rs_region_close(s, name, false);
        }
    }
}

int rs_region_list(rs_server *s, rs_region ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    pthread_mutex_lock(&s->mu);
    rs_region **list = malloc((s->nregions + 1) * sizeof(*list));
    if (!list) {
        pthread_mutex_unlock(&s->mu);
        return st_error(ST_NOMEM, "region list: out of memory");
    }
    for (size_t i = 0; i < s->nregions; i++)
        if (s->regions[i]->state == RS_REGION_OPEN) {
            s->regions[i]->inflight++;
            list[(*n)++] = s->regions[i];
        }
    pthread_mutex_unlock(&s->mu);
    *out = list;
    return ST_OK;
}
