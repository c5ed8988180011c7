/*
 * rs_admin_service.c - AdminService: OpenRegion, CloseRegion, FlushRegion, CompactRegion,
 * GetRegionInfo, GetOnlineRegion, GetServerLoad and CompactionSwitch (docs/regionserver.md).
 *
 * Thread-safety: handlers run on RPC handler threads; region state changes go through
 * rs_regions.c.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/rpc/rpc_proto.h"
#include "common/status.h"
#include "regionserver/rs_internal.h"

static int check_serving(void *ctx, rpc_reply *reply)
{
    return rs_check_serving(ctx, reply);
}

static int open_one(rs_server *s, const Strata__Admin__OpenRegionRequest__RegionOpenInfo *oi,
                    int *why)
{
    table_schema schema;
    region_info info;
    *why = ST_OK;
    int rc = schema_from_proto(oi->schema, s->default_flushsize, &schema);
    if (rc == ST_OK)
        rc = region_info_from_proto(oi->region, &info);
    if (rc == ST_OK && strcmp(schema.name, info.table) != 0)
        rc = st_error(ST_INVALID_ARGUMENT, "region %s: table '%s' but schema of '%s'",
                      info.encoded_name, info.table, schema.name);
    if (rc != ST_OK) {
        LOG_ERROR("open region %s: %s", oi->region->encoded_name, st_errmsg());
        *why = rc;
        return STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__FAILED_OPENING;
    }
    return rs_region_open_status(s, &schema, &info, why);
}

/* Each region gets its opening state; a lone region owned by another server (cluster
 * mode) fails the call with ST_EXISTS naming the owner instead. */
static int open_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    rs_server *s = ctx;
    Strata__Admin__OpenRegionRequest *m = (Strata__Admin__OpenRegionRequest *)msg;
    Strata__Admin__OpenRegionResponse resp = STRATA__ADMIN__OPEN_REGION_RESPONSE__INIT;
    int rc = rs_cluster_check_open(s);
    if (rc != ST_OK)
        goto done;
    resp.opening_state = calloc(m->n_open_info + 1, sizeof(*resp.opening_state));
    if (!resp.opening_state) {
        rc = st_error(ST_NOMEM, "out of memory");
        goto done;
    }
    int why = ST_OK;
    for (size_t i = 0; i < m->n_open_info; i++)
        resp.opening_state[resp.n_opening_state++] = open_one(s, m->open_info[i], &why);
    if (m->n_open_info == 1 && why == ST_EXISTS)
        rc = ST_EXISTS; /* the message from rs_region_open_status names the owner */
    else
        rc = rpc_proto_reply(reply, &resp.base);
done:
    free(resp.opening_state);
    return rc;
}

static int close_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    rs_server *s = ctx;
    Strata__Admin__CloseRegionRequest *m = (Strata__Admin__CloseRegionRequest *)msg;
    Strata__Admin__CloseRegionResponse resp = STRATA__ADMIN__CLOSE_REGION_RESPONSE__INIT;
    /* A live server always flushes what it closes: a close without a flush would leave
     * the region's edits only in this server's WAL, which a reopen here does not replay
     * (only recovered edits are). */
    buf_t hint = {0};
    int rc = m->moved_hint && m->moved_hint->n_region
                 ? rpc_proto_pack(&m->moved_hint->base, &hint)
                 : ST_OK;
    if (rc == ST_OK)
        rc = rs_region_close_moved(s, m->encoded_name, hint.data, hint.len);
    buf_free(&hint);
    if (rc == ST_OK) {
        resp.has_closed = resp.closed = 1;
        rc = rpc_proto_reply(reply, &resp.base);
    }
    return rc;
}

static int flush_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    rs_server *s = ctx;
    rs_region *reg = NULL;
    Strata__Admin__FlushRegionRequest *m = (Strata__Admin__FlushRegionRequest *)msg;
    Strata__Admin__FlushRegionResponse resp = STRATA__ADMIN__FLUSH_REGION_RESPONSE__INIT;
    int rc = rs_region_acquire(s, m->encoded_name, &reg);
    if (rc == ST_OK)
        rc = m->family && m->family[0] ? region_flush_family(reg->r, m->family)
                                       : region_flush(reg->r);
    if (rc == ST_OK) {
        region_stats st;
        region_get_stats(reg->r, &st);
        resp.has_max_flushed_seq = 1;
        resp.max_flushed_seq = st.max_flushed_seq;
        rc = rpc_proto_reply(reply, &resp.base);
    }
    rs_region_release(s, reg);
    return rc;
}

static int compact_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    rs_server *s = ctx;
    rs_region *reg = NULL;
    Strata__Admin__CompactRegionRequest *m = (Strata__Admin__CompactRegionRequest *)msg;
    Strata__Admin__CompactRegionResponse resp = STRATA__ADMIN__COMPACT_REGION_RESPONSE__INIT;
    int rc = rs_region_acquire(s, m->encoded_name, &reg);
    if (rc == ST_OK && m->family && m->family[0])
        rc = region_compact_family(reg->r, m->family, m->has_major && m->major);
    else if (rc == ST_OK)
        rc = region_compact(reg->r, m->has_major && m->major);
    if (rc == ST_OK)
        rc = rpc_proto_reply(reply, &resp.base);
    rs_region_release(s, reg);
    return rc;
}

static int region_info_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    rs_server *s = ctx;
    rs_region *reg = NULL;
    Strata__Admin__GetRegionInfoRequest *m = (Strata__Admin__GetRegionInfoRequest *)msg;
    Strata__Admin__GetRegionInfoResponse resp = STRATA__ADMIN__GET_REGION_INFO_RESPONSE__INIT;
    Strata__Admin__RegionInfo info;
    Strata__Admin__RegionLoad load;
    buf_t row = {0};
    char why[256] = "";
    bool refs = false, disabled = false;
    int rc = rs_region_acquire(s, m->encoded_name, &reg);
    if (rc == ST_OK) {
        region_info_to_proto(region_get_info(reg->r), &info);
        rs_load_to_proto(reg->r, &load);
        resp.region = &info;
        resp.load = &load;
        resp.has_has_references = 1;
        resp.has_references = region_has_references(reg->r);
        if (m->has_best_split_row && m->best_split_row)
            rc = rs_split_point(s, reg->r, &row, &refs, &disabled, why, sizeof(why));
        resp.has_split_disabled = 1;
        resp.split_disabled = disabled;
        if (m->has_compaction_state && m->compaction_state) {
            resp.has_compaction_state = 1;
            resp.compaction_state = (uint32_t)region_compaction_state(reg->r);
        }
        if (rc == ST_OK && row.len) {
            resp.has_best_split_row = 1;
            resp.best_split_row = (ProtobufCBinaryData){row.len, row.data};
        } else if (rc == ST_OK && why[0]) {
            resp.not_splittable = why;
        }
        if (rc == ST_OK)
            rc = rpc_proto_reply(reply, &resp.base);
    }
    rs_region_release(s, reg);
    buf_free(&row);
    return rc;
}

static int compaction_switch_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    rs_server *s = ctx;
    Strata__Admin__CompactionSwitchRequest *m = (Strata__Admin__CompactionSwitchRequest *)msg;
    Strata__Admin__CompactionSwitchResponse resp = STRATA__ADMIN__COMPACTION_SWITCH_RESPONSE__INIT;
    resp.previous = engine_set_compactions(s->eng, m->enabled);
    LOG_INFO("region server %s: compactions %s (were %s)", s->server_name,
             m->enabled ? "on" : "off", resp.previous ? "on" : "off");
    return rpc_proto_reply(reply, &resp.base);
}

static int roll_wal_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    rs_server *s = ctx;
    (void)msg;
    Strata__Admin__RollWALWriterResponse resp = STRATA__ADMIN__ROLL_WALWRITER_RESPONSE__INIT;
    int rc = wal_roll(engine_wal(s->eng));
    if (rc != ST_OK)
        return st_error(rc, "region server %s: rolling the WAL: %s", s->server_name, st_errmsg());
    wal_stats st;
    wal_get_stats(engine_wal(s->eng), &st);
    resp.has_rolls = 1;
    resp.rolls = st.rolls;
    LOG_INFO("region server %s: WAL rolled on request (%" PRIu64 " rolls)", s->server_name,
             st.rolls);
    return rpc_proto_reply(reply, &resp.base);
}

static void release_list(rs_server *s, rs_region **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        rs_region_release(s, list[i]);
    free(list);
}

static int online_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    rs_server *s = ctx;
    rs_region **list = NULL;
    size_t n = 0;
    rs_pool pool = {0};
    Strata__Admin__GetOnlineRegionResponse resp = STRATA__ADMIN__GET_ONLINE_REGION_RESPONSE__INIT;
    int rc = rs_region_list(s, &list, &n);
    Strata__Admin__RegionInfo **ptrs = rs_pool_alloc(&pool, n * sizeof(*ptrs));
    Strata__Admin__RegionInfo *infos = rs_pool_alloc(&pool, n * sizeof(*infos));
    if (rc == ST_OK && (!ptrs || !infos))
        rc = st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        region_info_to_proto(region_get_info(list[i]->r), &infos[i]);
        ptrs[i] = &infos[i];
    }
    resp.region = ptrs;
    resp.n_region = n;
    if (rc == ST_OK)
        rc = rpc_proto_reply(reply, &resp.base);
    release_list(s, list, n);
    rs_pool_free(&pool);
    return rc;
}

static int server_load_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    rs_server *s = ctx;
    rs_pool pool = {0};
    rs_loads l;
    Strata__Admin__GetServerLoadResponse resp = STRATA__ADMIN__GET_SERVER_LOAD_RESPONSE__INIT;
    int rc = rs_server_loads(s, &pool, &l);
    resp.region = l.region;
    resp.n_region = l.n;
    resp.total_requests = l.read_requests + l.write_requests;
    resp.memstore_size = l.memstore_size;
    resp.store_files = l.store_files;
    resp.store_file_size = l.store_file_size;
    resp.has_total_requests = resp.has_memstore_size = resp.has_store_files = 1;
    resp.has_store_file_size = resp.has_start_code = resp.has_open_scanners = 1;
    resp.start_code = s->start_code;
    resp.open_scanners = rs_scanners_count(s);
    if (rc == ST_OK)
        rc = rpc_proto_reply(reply, &resp.base);
    rs_loads_release(s, &l);
    rs_pool_free(&pool);
    return rc;
}

RPC_PROTO_HANDLER(handle_open, check_serving, strata__admin__open_region_request__descriptor,
                  open_body)
RPC_PROTO_HANDLER(handle_close, check_serving, strata__admin__close_region_request__descriptor,
                  close_body)
RPC_PROTO_HANDLER(handle_flush, check_serving, strata__admin__flush_region_request__descriptor,
                  flush_body)
RPC_PROTO_HANDLER(handle_compact, check_serving, strata__admin__compact_region_request__descriptor,
                  compact_body)
RPC_PROTO_HANDLER(handle_region_info, check_serving,
                  strata__admin__get_region_info_request__descriptor, region_info_body)
RPC_PROTO_HANDLER(handle_compaction_switch, check_serving,
                  strata__admin__compaction_switch_request__descriptor, compaction_switch_body)
RPC_PROTO_HANDLER(handle_roll_wal, check_serving,
                  strata__admin__roll_walwriter_request__descriptor, roll_wal_body)
RPC_PROTO_HANDLER(handle_online, check_serving, strata__admin__get_online_region_request__descriptor,
                  online_body)
RPC_PROTO_HANDLER(handle_server_load, check_serving,
                  strata__admin__get_server_load_request__descriptor, server_load_body)

int rs_admin_service_register(rs_server *s)
{
    static const struct {
        const char *name;
        rpc_handler_fn fn;
    } methods[] = {
        {"AdminService.OpenRegion", handle_open},
        {"AdminService.CloseRegion", handle_close},
        {"AdminService.FlushRegion", handle_flush},
        {"AdminService.CompactRegion", handle_compact},
        {"AdminService.GetRegionInfo", handle_region_info},
        {"AdminService.GetOnlineRegion", handle_online},
        {"AdminService.GetServerLoad", handle_server_load},
        {"AdminService.CompactionSwitch", handle_compaction_switch},
        {"AdminService.RollWALWriter", handle_roll_wal},
    };
    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
        int rc = rpc_server_register(s->rpc, methods[i].name, methods[i].fn, s);
        if (rc != ST_OK)
            return rc;
    }
    return ST_OK;
}
