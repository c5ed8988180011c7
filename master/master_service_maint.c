/*
 * master_service_maint.c - MasterService calls that look into or poke region servers'
 * maintenance: GetCompactionState (HBase's getCompactionState of a table or region, asked
 * of each open region's server with GetRegionInfo) and RollWALWriter (a live server's WAL
 * rolled, HBase's wal_roll) and GetAlterStatus (an alter's reopened regions).
 *
 * Neither takes a region: they read where regions are open under mu and ask the servers
 * outside it, so a split or move running meanwhile is not waited for (a region that
 * moved answers NotServing and counts as not compacting).
 *
 * Thread-safety: RPC handlers; mu only to copy names and addresses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/rpc/rpc_proto.h"
#include "common/status.h"
#include "master/master_internal.h"

typedef struct open_region {
    char encoded[64];
    char addr[300];
} open_region;

/* The open regions of a table (or the one region) and their servers' addresses, copied
 * under mu. ST_NOT_FOUND naming the table or region when there is none of that name. */
static int open_regions(master *m, const char *table, const char *encoded, open_region **out,
                        size_t *n)
{
    char q[256] = "";
    int rc = table ? master_qualify(table, q, sizeof(q)) : ST_OK;
    if (rc != ST_OK)
        return rc;
    *out = NULL;
    *n = 0;
    pthread_mutex_lock(&m->mu);
    m_table *t = table ? master_find_table(m, q) : NULL;
    m_region *one = table ? NULL : master_find_region(m, encoded, NULL);
    size_t cap = t ? t->n : one ? 1 : 0;
    if (!t && !one)
        rc = table ? st_error(ST_NOT_FOUND, "table %s does not exist", q)
                   : st_error(ST_NOT_FOUND, "region %s does not exist", encoded);
    open_region *v = rc == ST_OK ? calloc(cap ? cap : 1, sizeof(*v)) : NULL;
    if (rc == ST_OK && !v)
        rc = st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; rc == ST_OK && i < cap; i++) {
        m_region *r = t ? t->regions[i] : one;
        m_server *s = r->mr.state == META_OPEN ? master_server_find(m, r->mr.server) : NULL;
        if (!s)
            continue;
        snprintf(v[*n].encoded, sizeof(v[*n].encoded), "%s", r->mr.encoded_name);
        snprintf(v[*n].addr, sizeof(v[*n].addr), "%s", s->addr);
        (*n)++;
    }
    pthread_mutex_unlock(&m->mu);
    *out = v;
    return rc;
}

/* The region's compaction state as its server says (0 when it no longer serves it). */
static int region_state(master *m, const open_region *r, uint32_t *state)
{
    Strata__Admin__GetRegionInfoRequest req = STRATA__ADMIN__GET_REGION_INFO_REQUEST__INIT;
    Strata__Admin__GetRegionInfoResponse *resp = NULL;
    req.encoded_name = (char *)r->encoded;
    req.has_compaction_state = 1;
    req.compaction_state = 1;
    *state = 0;
    int rc = master_rs_call(m, r->addr, "AdminService.GetRegionInfo", &req.base,
                            &strata__admin__get_region_info_response__descriptor,
                            (ProtobufCMessage **)&resp);
    if (rc == ST_NOT_SERVING || rc == ST_NOT_FOUND)
        return ST_OK; /* moved or closed since: not compacting here */
    if (rc != ST_OK)
        return st_error(rc, "compaction state of region %s: %s", r->encoded, st_errmsg());
    if (resp->has_compaction_state)
        *state = resp->compaction_state & 3u;
    strata__admin__get_region_info_response__free_unpacked(resp, NULL);
    return ST_OK;
}

static int compaction_state_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__GetCompactionStateRequest *req =
        (Strata__Master__GetCompactionStateRequest *)msg;
    const char *table = req->table && req->table[0] ? req->table : NULL;
    const char *encoded = req->encoded_name && req->encoded_name[0] ? req->encoded_name : NULL;
    if (!table == !encoded)
        return st_error(ST_INVALID_ARGUMENT,
                        "compaction state: name exactly one of a table and a region");
    open_region *v = NULL;
    size_t n = 0;
    uint32_t all = 0;
    int rc = open_regions(m, table, encoded, &v, &n);
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        uint32_t st = 0;
        rc = region_state(m, &v[i], &st);
        all |= st;
    }
    free(v);
    if (rc != ST_OK)
        return rc;
    Strata__Master__GetCompactionStateResponse resp =
        STRATA__MASTER__GET_COMPACTION_STATE_RESPONSE__INIT;
    resp.state = all;
    return rpc_proto_reply(reply, &resp.base);
}

static int roll_wal_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__RollWALWriterRequest *req = (Strata__Master__RollWALWriterRequest *)msg;
    char addr[300] = "", name[SERVER_NAME_MAX] = "";
    pthread_mutex_lock(&m->mu);
    m_server *s = master_server_find(m, req->server);
    if (s) {
        snprintf(addr, sizeof(addr), "%s", s->addr);
        snprintf(name, sizeof(name), "%s", s->name);
    }
    pthread_mutex_unlock(&m->mu);
    if (!s)
        return st_error(ST_NOT_FOUND, "region server %s is not live", req->server);
    Strata__Admin__RollWALWriterRequest r = STRATA__ADMIN__ROLL_WALWRITER_REQUEST__INIT;
    Strata__Admin__RollWALWriterResponse *a = NULL;
    int rc = master_rs_call(m, addr, "AdminService.RollWALWriter", &r.base,
                            &strata__admin__roll_walwriter_response__descriptor,
                            (ProtobufCMessage **)&a);
    if (rc != ST_OK)
        return st_error(rc, "wal_roll on %s: %s", name, st_errmsg());
    Strata__Master__RollWALWriterResponse resp = STRATA__MASTER__ROLL_WALWRITER_RESPONSE__INIT;
    resp.has_rolls = a->has_rolls;
    resp.rolls = a->rolls;
    strata__admin__roll_walwriter_response__free_unpacked(a, NULL);
    return rpc_proto_reply(reply, &resp.base);
}

static int alter_status_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__GetAlterStatusRequest *req = (Strata__Master__GetAlterStatusRequest *)msg;
    size_t updated = 0, total = 0;
    bool running = false;
    int rc = master_alter_status(m, req->table, &updated, &total, &running);
    if (rc != ST_OK)
        return rc;
    Strata__Master__GetAlterStatusResponse resp = STRATA__MASTER__GET_ALTER_STATUS_RESPONSE__INIT;
    resp.updated = (uint32_t)updated;
    resp.total = (uint32_t)total;
    resp.has_running = 1;
    resp.running = running;
    return rpc_proto_reply(reply, &resp.base);
}

RPC_PROTO_HANDLER(h_compaction_state, master_rpc_check_active,
                  strata__master__get_compaction_state_request__descriptor, compaction_state_body)
RPC_PROTO_HANDLER(h_roll_wal, master_rpc_check_active, strata__master__roll_walwriter_request__descriptor,
                  roll_wal_body)
RPC_PROTO_HANDLER(h_alter_status, master_rpc_check_active,
                  strata__master__get_alter_status_request__descriptor, alter_status_body)

int master_service_register_maint(master *m)
{
    int rc = rpc_server_register(m->rpc, "MasterService.GetCompactionState", h_compaction_state, m);
    if (rc == ST_OK)
        rc = rpc_server_register(m->rpc, "MasterService.RollWALWriter", h_roll_wal, m);
    if (rc == ST_OK)
        rc = rpc_server_register(m->rpc, "MasterService.GetAlterStatus", h_alter_status, m);
    return rc;
}
