/*
 * master_service_procs.c - the MasterService methods of the region life cycle
 * (common/proto/master.proto; docs/split-merge.md, docs/procedures.md): SplitRegion,
 * MergeRegions, ListProcedures, SetSwitch, RunCatalogJanitor, Normalize, Balance and
 * CompactionSwitch (forwarded to the region servers).
 *
 * Thread-safety: handlers run on RPC handler threads; a split runs on the thread of its
 * call.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/rpc/rpc_proto.h"
#include "common/status.h"
#include "master/master_internal.h"

/* The encoded names of a table's regions (copied under mu). */
static int table_region_names(master *m, const char *name, char (**out)[64], size_t *n)
{
    char table[256];
    int rc = master_qualify(name, table, sizeof(table));
    if (rc != ST_OK)
        return rc;
    pthread_mutex_lock(&m->mu);
    m_table *t = master_find_table(m, table);
    *n = t ? t->n : 0;
    *out = t ? calloc(t->n ? t->n : 1, sizeof(**out)) : NULL;
    for (size_t i = 0; *out && i < t->n; i++)
        snprintf((*out)[i], sizeof((*out)[i]), "%s", t->regions[i]->mr.encoded_name);
    pthread_mutex_unlock(&m->mu);
    if (!t)
        return st_error(ST_NOT_FOUND, "split: table %s does not exist", table);
    if (!*out)
        return st_error(ST_NOMEM, "out of memory");
    return ST_OK;
}

/* The region of table holding row (copied under mu). */
static int region_holding(master *m, const char *name, const uint8_t *row, size_t len,
                          char out[64])
{
    char table[256];
    int rc = master_qualify(name, table, sizeof(table));
    if (rc != ST_OK)
        return rc;
    pthread_mutex_lock(&m->mu);
    m_table *t = master_find_table(m, table);
    out[0] = 0;
    for (size_t i = 0; t && i < t->n; i++) {
        const meta_region *r = &t->regions[i]->mr;
        if (cell_compare_rows(row, len, r->start_key, r->start_len) >= 0 &&
            (!r->end_len || cell_compare_rows(row, len, r->end_key, r->end_len) < 0))
            snprintf(out, 64, "%s", r->encoded_name);
    }
    pthread_mutex_unlock(&m->mu);
    if (!t)
        return st_error(ST_NOT_FOUND, "split: table %s does not exist", table);
    if (!out[0])
        return st_error(ST_NOT_FOUND, "split: no region of %s holds the key", table);
    return ST_OK;
}

/* A split a region server's policy asked for runs on a thread of its own: the server
 * does not wait for it. */
typedef struct split_arg {
    master *m;
    char encoded[64];
    uint8_t *row;
    size_t len;
} split_arg;

static void *split_async(void *arg)
{
    split_arg *a = arg;
    master *m = a->m;
    if (master_split_region(m, a->encoded, a->row, a->len, NULL) != ST_OK)
        LOG_INFO("master %s: split of %s asked by its server not done: %s", m->name,
                 a->encoded, st_errmsg());
    free(a->row);
    free(a);
    pthread_mutex_lock(&m->mu);
    m->proc_threads--;
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
    return NULL;
}

static int split_in_background(master *m, const char *encoded, const uint8_t *row, size_t len)
{
    split_arg *a = calloc(1, sizeof(*a));
    if (!a || (len && !(a->row = malloc(len)))) {
        free(a);
        return st_error(ST_NOMEM, "out of memory");
    }
    a->m = m;
    snprintf(a->encoded, sizeof(a->encoded), "%s", encoded);
    if (len)
        memcpy(a->row, row, len);
    a->len = len;
    pthread_mutex_lock(&m->mu);
    bool stopping = atomic_load(&m->stopping);
    if (!stopping)
        m->proc_threads++;
    pthread_mutex_unlock(&m->mu);
    pthread_t th;
    if (stopping || pthread_create(&th, NULL, split_async, a) != 0) {
        if (!stopping) {
            pthread_mutex_lock(&m->mu);
            m->proc_threads--;
            pthread_cond_broadcast(&m->cv);
            pthread_mutex_unlock(&m->mu);
        }
        free(a->row);
        free(a);
        return st_error(ST_NOT_SERVING, "split %s: the master is stopping", encoded);
    }
    pthread_detach(th);
    return ST_OK;
}

static int split_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__SplitRegionRequest *req = (Strata__Master__SplitRegionRequest *)msg;
    bool by_table = req->table && req->table[0];
    bool by_region = req->encoded_name && req->encoded_name[0];
    if (by_table == by_region)
        return st_error(ST_INVALID_ARGUMENT, "split: name either a table or a region");
    const uint8_t *row = req->has_split_row ? req->split_row.data : NULL;
    size_t row_len = req->has_split_row ? req->split_row.len : 0;
    if (req->has_split_row && row_len == 0)
        return st_error(ST_INVALID_ARGUMENT, "split: the split key is empty");
    Strata__Master__SplitRegionResponse resp = STRATA__MASTER__SPLIT_REGION_RESPONSE__INIT;
    if (by_region && req->has_from_server && req->from_server) {
        int rc = split_in_background(m, req->encoded_name, row, row_len);
        return rc == ST_OK ? rpc_proto_reply(reply, &resp.base) : rc;
    }
    Strata__Admin__RegionInfo infos[2], *ptrs[2] = {&infos[0], &infos[1]};
    meta_region *d = NULL;
    int rc;
    char holder[64];
    if (by_region) {
        rc = master_split_region(m, req->encoded_name, row, row_len, &d);
    } else if (row) {
        /* A table and a key: the region holding the key. */
        rc = region_holding(m, req->table, row, row_len, holder);
        if (rc == ST_OK)
            rc = master_split_region(m, holder, row, row_len, &d);
    } else {
        char(*names)[64] = NULL;
        size_t n = 0;
        rc = table_region_names(m, req->table, &names, &n);
        /* Every region at its own best point; ST_OK if any split. */
        int first = ST_OK, any = 0;
        char first_msg[512] = "";
        for (size_t i = 0; rc == ST_OK && i < n; i++) {
            meta_region *got = NULL;
            int r = master_split_region(m, names[i], NULL, 0, &got);
            if (r == ST_OK) {
                any++;
                if (!d) {
                    d = got;
                    got = NULL;
                }
                meta_regions_free(got, got ? 2 : 0);
            } else if (first == ST_OK) {
                first = r;
                snprintf(first_msg, sizeof(first_msg), "%s", st_errmsg());
            }
        }
        free(names);
        if (rc == ST_OK && !any && first != ST_OK)
            rc = st_error(first, "%s", first_msg);
    }
    if (rc != ST_OK)
        return rc;
    if (d) {
        for (int i = 0; i < 2; i++)
            master_region_info_proto(&d[i], &infos[i]);
        resp.daughter = ptrs;
        resp.n_daughter = 2;
    }
    rc = rpc_proto_reply(reply, &resp.base);
    meta_regions_free(d, d ? 2 : 0);
    return rc;
}

static int merge_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__MergeRegionsRequest *req = (Strata__Master__MergeRegionsRequest *)msg;
    meta_region merged;
    int rc = master_merge_regions(m, (const char *const *)req->encoded_name, req->n_encoded_name,
                                  req->has_force && req->force, &merged);
    if (rc != ST_OK)
        return rc;
    Strata__Admin__RegionInfo info;
    master_region_info_proto(&merged, &info);
    Strata__Master__MergeRegionsResponse resp = STRATA__MASTER__MERGE_REGIONS_RESPONSE__INIT;
    resp.merged = &info;
    rc = rpc_proto_reply(reply, &resp.base);
    meta_region_clear(&merged);
    return rc;
}

static int list_procs_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    (void)msg;
    m_proc *v = NULL;
    size_t n = 0;
    int rc = master_procs_list(m, &v, &n);
    if (rc != ST_OK)
        return rc;
    Strata__Master__ProcedureInfo *infos = calloc(n ? n : 1, sizeof(*infos));
    Strata__Master__ProcedureInfo **ptrs = calloc(n ? n : 1, sizeof(*ptrs));
    char *(*regions)[META_MERGE_MAX] = calloc(n ? n : 1, sizeof(*regions));
    if (!infos || !ptrs || !regions) {
        rc = st_error(ST_NOMEM, "out of memory");
    } else {
        for (size_t i = 0; i < n; i++) {
            Strata__Master__ProcedureInfo *p = &infos[i];
            strata__master__procedure_info__init(p);
            p->id = v[i].id;
            p->type = (char *)v[i].type;
            p->state = (char *)master_proc_state_name(v[i].state);
            p->step = (char *)v[i].step;
            p->has_submitted_ms = p->has_updated_ms = 1;
            p->submitted_ms = (uint64_t)v[i].submitted_ms;
            p->updated_ms = (uint64_t)v[i].updated_ms;
            p->table = v[i].table;
            for (size_t j = 0; j < v[i].nregions; j++)
                regions[i][j] = v[i].regions[j];
            p->region = regions[i];
            p->n_region = v[i].nregions;
            p->error = v[i].error[0] ? v[i].error : NULL;
            ptrs[i] = p;
        }
        Strata__Master__ListProceduresResponse resp =
            STRATA__MASTER__LIST_PROCEDURES_RESPONSE__INIT;
        resp.procedure = ptrs;
        resp.n_procedure = n;
        rc = rpc_proto_reply(reply, &resp.base);
    }
    free(regions);
    free(ptrs);
    free(infos);
    free(v);
    return rc;
}

static int switch_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__SetSwitchRequest *req = (Strata__Master__SetSwitchRequest *)msg;
    master_switch s;
    int rc = master_switch_parse(req->name, &s);
    if (rc != ST_OK)
        return rc;
    bool prev = master_switch_get(m, s);
    if (req->has_enabled)
        rc = master_switch_set(m, s, req->enabled, &prev);
    if (rc != ST_OK)
        return rc;
    Strata__Master__SetSwitchResponse resp = STRATA__MASTER__SET_SWITCH_RESPONSE__INIT;
    resp.previous = prev;
    return rpc_proto_reply(reply, &resp.base);
}

static int normalize_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__NormalizeRequest *req = (Strata__Master__NormalizeRequest *)msg;
    char table[256] = "";
    int rc = req->table && req->table[0] ? master_qualify(req->table, table, sizeof(table)) : ST_OK;
    bool ran = false;
    if (rc == ST_OK)
        rc = master_normalize(m, table[0] ? table : NULL, &ran);
    if (rc != ST_OK)
        return rc;
    char plan[sizeof(m->normalizer_plan)];
    pthread_mutex_lock(&m->mu);
    snprintf(plan, sizeof(plan), "%s", m->normalizer_plan);
    pthread_mutex_unlock(&m->mu);
    Strata__Master__NormalizeResponse resp = STRATA__MASTER__NORMALIZE_RESPONSE__INIT;
    resp.ran = ran;
    resp.plan = plan;
    return rpc_proto_reply(reply, &resp.base);
}

static int balance_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__BalanceRequest *req = (Strata__Master__BalanceRequest *)msg;
    master_balance_run *run = malloc(sizeof(*run));
    if (!run)
        return st_error(ST_NOMEM, "out of memory");
    int rc = master_balance(m, req->has_force && req->force, req->has_dry_run && req->dry_run, run);
    if (rc == ST_OK) {
        Strata__Master__BalanceResponse resp = STRATA__MASTER__BALANCE_RESPONSE__INIT;
        resp.ran = run->ran;
        resp.reason = run->why;
        resp.plan = run->plan;
        resp.has_moves_planned = resp.has_moves_done = resp.has_moves_failed = true;
        resp.moves_planned = (uint32_t)run->planned;
        resp.moves_done = (uint32_t)run->done;
        resp.moves_failed = (uint32_t)run->failed;
        resp.has_cost_before = resp.has_cost_after = run->ran;
        resp.cost_before = run->cost_before;
        resp.cost_after = run->cost_after;
        resp.policy = (char *)bal_policy_name(run->policy);
        rc = rpc_proto_reply(reply, &resp.base);
    }
    free(run);
    return rc;
}

/* Forwards the switch to each live server (or those named). */
static int compaction_switch_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__CompactionSwitchAllRequest *req =
        (Strata__Master__CompactionSwitchAllRequest *)msg;
    pthread_mutex_lock(&m->mu);
    size_t n = m->nservers;
    char(*names)[SERVER_NAME_MAX] = calloc(n ? n : 1, sizeof(*names));
    char(*addrs)[300] = calloc(n ? n : 1, sizeof(*addrs));
    size_t k = 0;
    int rc = names && addrs ? ST_OK : st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        bool want = req->n_server == 0;
        for (size_t j = 0; j < req->n_server && !want; j++)
            want = master_server_find(m, req->server[j]) == m->servers[i];
        if (!want)
            continue;
        snprintf(names[k], sizeof(names[k]), "%s", m->servers[i]->name);
        snprintf(addrs[k], sizeof(addrs[k]), "%s", m->servers[i]->addr);
        k++;
    }
    for (size_t j = 0; rc == ST_OK && j < req->n_server; j++)
        if (!master_server_find(m, req->server[j]))
            rc = st_error(ST_NOT_FOUND, "compaction_switch: region server %s is not live",
                          req->server[j]);
    pthread_mutex_unlock(&m->mu);
    char **out_names = rc == ST_OK ? calloc(k ? k : 1, sizeof(char *)) : NULL;
    protobuf_c_boolean *prev = rc == ST_OK ? calloc(k ? k : 1, sizeof(*prev)) : NULL;
    if (rc == ST_OK && (!out_names || !prev))
        rc = st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; rc == ST_OK && i < k; i++) {
        Strata__Admin__CompactionSwitchRequest r = STRATA__ADMIN__COMPACTION_SWITCH_REQUEST__INIT;
        r.enabled = req->enabled;
        Strata__Admin__CompactionSwitchResponse *a = NULL;
        rc = master_rs_call(m, addrs[i], "AdminService.CompactionSwitch", &r.base,
                            &strata__admin__compaction_switch_response__descriptor,
                            (ProtobufCMessage **)&a);
        if (rc != ST_OK) {
            rc = st_error(rc, "compaction_switch on %s: %s", names[i], st_errmsg());
            break;
        }
        prev[i] = a->previous;
        out_names[i] = names[i];
        strata__admin__compaction_switch_response__free_unpacked(a, NULL);
    }
    if (rc == ST_OK) {
        Strata__Master__CompactionSwitchAllResponse resp =
            STRATA__MASTER__COMPACTION_SWITCH_ALL_RESPONSE__INIT;
        resp.server = out_names;
        resp.n_server = k;
        resp.previous = prev;
        resp.n_previous = k;
        rc = rpc_proto_reply(reply, &resp.base);
    }
    free(out_names);
    free(prev);
    free(names);
    free(addrs);
    return rc;
}

static int clear_dead_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__ClearDeadServersRequest *req = (Strata__Master__ClearDeadServersRequest *)msg;
    char **left = NULL;
    size_t n = 0;
    int rc = master_clear_dead_servers(m, req->server, req->n_server, &left, &n);
    if (rc != ST_OK)
        return rc;
    Strata__Master__ClearDeadServersResponse resp = STRATA__MASTER__CLEAR_DEAD_SERVERS_RESPONSE__INIT;
    resp.not_cleared = left;
    resp.n_not_cleared = n;
    rc = rpc_proto_reply(reply, &resp.base);
    for (size_t i = 0; i < n; i++)
        free(left[i]);
    free(left);
    return rc;
}

static int janitor_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    (void)msg;
    unsigned cleaned = 0;
    int rc = master_janitor_run(m, &cleaned);
    if (rc != ST_OK)
        return rc;
    Strata__Master__RunCatalogJanitorResponse resp =
        STRATA__MASTER__RUN_CATALOG_JANITOR_RESPONSE__INIT;
    resp.has_cleaned = 1;
    resp.cleaned = cleaned;
    return rpc_proto_reply(reply, &resp.base);
}

RPC_PROTO_HANDLER(h_split, master_rpc_check_active, strata__master__split_region_request__descriptor,
                  split_body)
RPC_PROTO_HANDLER(h_merge, master_rpc_check_active, strata__master__merge_regions_request__descriptor,
                  merge_body)
RPC_PROTO_HANDLER(h_list_procs, master_rpc_check_active, strata__master__list_procedures_request__descriptor,
                  list_procs_body)
RPC_PROTO_HANDLER(h_switch, master_rpc_check_active, strata__master__set_switch_request__descriptor,
                  switch_body)
RPC_PROTO_HANDLER(h_normalize, master_rpc_check_active, strata__master__normalize_request__descriptor,
                  normalize_body)
RPC_PROTO_HANDLER(h_balance, master_rpc_check_active, strata__master__balance_request__descriptor,
                  balance_body)
RPC_PROTO_HANDLER(h_compaction_switch, master_rpc_check_active,
                  strata__master__compaction_switch_all_request__descriptor, compaction_switch_body)
RPC_PROTO_HANDLER(h_janitor, master_rpc_check_active, strata__master__run_catalog_janitor_request__descriptor,
                  janitor_body)
RPC_PROTO_HANDLER(h_clear_dead, master_rpc_check_active, strata__master__clear_dead_servers_request__descriptor,
                  clear_dead_body)

int master_service_register_procs(master *m)
{
    static const struct {
        const char *name;
        rpc_handler_fn fn;
    } methods[] = {
        {"MasterService.SplitRegion", h_split},
        {"MasterService.MergeRegions", h_merge},
        {"MasterService.ListProcedures", h_list_procs},
        {"MasterService.SetSwitch", h_switch},
        {"MasterService.RunCatalogJanitor", h_janitor},
        {"MasterService.Normalize", h_normalize},
        {"MasterService.Balance", h_balance},
        {"MasterService.CompactionSwitch", h_compaction_switch},
        {"MasterService.ClearDeadServers", h_clear_dead},
    };
    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
        int rc = rpc_server_register(m->rpc, methods[i].name, methods[i].fn, m);
        if (rc != ST_OK)
            return rc;
    }
    return ST_OK;
}
