/*
 * rs_split.c - the region server's part of splitting (docs/split-merge.md): where a
 * region would split (GetRegionInfo with best_split_row, asked by the master's split
 * procedure), and the split trigger. After each flush and compaction the engine calls
 * rs_split_after_maint, which queues the region; the splitter thread checks the table's
 * split policy (split_policy.h) over the region's store sizes and the number of the
 * table's regions on this server, and when it says split, asks the active master
 * (MasterService.SplitRegion with the split point). A region asked for is not asked for
 * again within RS_SPLIT_RETRY_MS.
 *
 * Thread-safety: the queue is under split_mu; the thread is the only consumer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/rpc/rpc_proto.h"
#include "common/status.h"
#include "common/proto/master.pb-c.h"
#include "regionserver/rs_internal.h"
#include "regionserver/storage/split_policy.h"

#define RS_SPLIT_RETRY_MS 10000
#define RS_SPLIT_CALL_MS 30000 /* the master answers at once and splits on its own thread */

int rs_split_point(rs_server *s, region *r, buf_t *row, bool *has_refs, bool *disabled, char *why,
                   size_t cap)
{
    buf_reset(row);
    why[0] = 0;
    *disabled = false;
    const region_info *info = region_get_info(r);
    *has_refs = region_has_references(r);
    split_policy p;
    int rc = split_policy_configure(region_get_schema(r), &s->split, info->encoded_name, &p);
    if (rc != ST_OK)
        return rc;
    if (!split_policy_allows_split(&p)) {
        *disabled = true;
        snprintf(why, cap, "the table's split policy is %s", split_policy_name(p.kind));
        return ST_OK;
    }
    if (*has_refs) {
        snprintf(why, cap, "a store still holds reference files");
        return ST_OK;
    }
    rc = region_best_split_row(r, row);
    if (rc == ST_NOT_FOUND) {
        snprintf(why, cap, "%s", st_errmsg());
        buf_reset(row);
        return ST_OK;
    }
    if (rc != ST_OK)
        return rc;
    row->len = split_policy_adjust_point(&p, row->data, row->len);
    if (row->len == 0 ||
        cell_compare_rows(row->data, row->len, info->start_key, info->start_key_len) == 0) {
        snprintf(why, cap, "the split point is the region's first row");
        buf_reset(row);
    }
    return ST_OK;
}

void rs_split_after_maint(void *arg, region *r, bool compaction)
{
    (void)compaction;
    rs_server *s = arg;
    const char *name = region_get_info(r)->encoded_name;
    pthread_mutex_lock(&s->split_mu);
    bool queued = false;
    for (size_t i = 0; i < s->split_n && !queued; i++)
        queued = strcmp(s->split_queue[i], name) == 0;
    if (!queued && s->split_started && s->split_n < RS_SPLIT_QUEUE_MAX) {
        snprintf(s->split_queue[s->split_n++], sizeof(s->split_queue[0]), "%s", name);
        pthread_cond_signal(&s->split_cv);
    }
    pthread_mutex_unlock(&s->split_mu);
}

/* Regions of table open here. */
static unsigned table_regions_here(rs_server *s, const char *table)
{
    rs_region **list = NULL;
    size_t n = 0;
    unsigned count = 0;
    if (rs_region_list(s, &list, &n) != ST_OK)
        return 1;
    for (size_t i = 0; i < n; i++) {
        if (list[i]->r && strcmp(region_get_info(list[i]->r)->table, table) == 0)
            count++;
        rs_region_release(s, list[i]);
    }
    free(list);
    return count;
}

/* Whether the policy says split; the split point into row when it does. */
static bool wants_split(rs_server *s, region *r, buf_t *row)
{
    const table_schema *t = region_get_schema(r);
    split_policy p;
    if (split_policy_configure(t, &s->split, region_get_info(r)->encoded_name, &p) != ST_OK)
        return false;
    uint64_t sizes[SCHEMA_MAX_FAMILIES];
    size_t n = region_store_sizes(r, sizes, SCHEMA_MAX_FAMILIES);
    unsigned here = table_regions_here(s, t->name);
    if (!split_policy_should_split(&p, here, sizes, n, region_has_references(r)))
        return false;
    bool refs = false, disabled = false;
    char why[256];
    if (rs_split_point(s, r, row, &refs, &disabled, why, sizeof(why)) != ST_OK || row->len == 0) {
        LOG_DEBUG("region server %s: region %s should split but cannot: %s", s->server_name,
                  region_get_info(r)->encoded_name, why[0] ? why : st_errmsg());
        return false;
    }
    return true;
}

static void ask_master(rs_server *s, const char *name, const buf_t *row)
{
    Strata__Master__SplitRegionRequest req = STRATA__MASTER__SPLIT_REGION_REQUEST__INIT;
    req.encoded_name = (char *)name;
    req.has_split_row = 1;
    req.split_row = (ProtobufCBinaryData){row->len, row->data};
    req.has_from_server = req.from_server = 1;
    LOG_INFO("region server %s: region %s asks to split at '%.*s'", s->server_name, name,
             (int)row->len, (const char *)row->data);
    int rc = rs_cluster_master_call(s, "MasterService.SplitRegion", &req.base, RS_SPLIT_CALL_MS);
    if (rc != ST_OK)
        LOG_INFO("region server %s: split of region %s not done: %s", s->server_name, name,
                 st_errmsg());
}

/* Whether name was asked for recently; records it as asked now if not. */
static bool asked_recently(rs_server *s, const char *name)
{
    int64_t now = (int64_t)(clock_mono_ns() / 1000000);
    size_t oldest = 0;
    for (size_t i = 0; i < RS_SPLIT_RECENT; i++) {
        if (strcmp(s->split_recent[i].name, name) == 0) {
            if (now - s->split_recent[i].ms < RS_SPLIT_RETRY_MS)
                return true;
            s->split_recent[i].ms = now;
            return false;
        }
        if (s->split_recent[i].ms < s->split_recent[oldest].ms)
            oldest = i;
    }
    snprintf(s->split_recent[oldest].name, sizeof(s->split_recent[0].name), "%s", name);
    s->split_recent[oldest].ms = now;
    return false;
}

static void *splitter_main(void *arg)
{
    rs_server *s = arg;
    buf_t row = {0};
    pthread_mutex_lock(&s->split_mu);
    while (!s->split_stop) {
        if (s->split_n == 0) {
            pthread_cond_wait(&s->split_cv, &s->split_mu);
            continue;
        }
        char name[64];
        snprintf(name, sizeof(name), "%s", s->split_queue[0]);
        memmove(s->split_queue, s->split_queue + 1, (s->split_n - 1) * sizeof(s->split_queue[0]));
        s->split_n--;
        pthread_mutex_unlock(&s->split_mu);
        rs_region *reg = NULL;
        bool go = false;
        if (rs_region_acquire(s, name, &reg) == ST_OK && reg->r)
            go = wants_split(s, reg->r, &row);
        rs_region_release(s, reg);
        if (go && !asked_recently(s, name))
            ask_master(s, name, &row);
        pthread_mutex_lock(&s->split_mu);
    }
    pthread_mutex_unlock(&s->split_mu);
    buf_free(&row);
    return NULL;
}

int rs_split_start(rs_server *s)
{
    pthread_mutex_lock(&s->split_mu);
    s->split_stop = false;
    int rc = pthread_create(&s->split_thread, NULL, splitter_main, s) == 0
                 ? ST_OK
                 : st_error(ST_INTERNAL, "region server %s: no splitter thread", s->server_name);
    s->split_started = rc == ST_OK;
    pthread_mutex_unlock(&s->split_mu);
    return rc;
}

void rs_split_stop(rs_server *s)
{
    pthread_mutex_lock(&s->split_mu);
    bool started = s->split_started;
    s->split_stop = true;
    s->split_started = false;
    s->split_n = 0;
    pthread_cond_broadcast(&s->split_cv);
    pthread_mutex_unlock(&s->split_mu);
    if (started)
        pthread_join(s->split_thread, NULL);
}
