/*
 * rs_client_service.c - ClientService.Get, .Mutate and .Multi (docs/regionserver.md);
 * .Scan is in rs_scanners.c.
 *
 * Each call holds its region (rs_region_acquire) for as long as it uses it. Multi runs the
 * Puts and Deletes of one region action as one batch (each row atomic, group commit for
 * the batch), then its Gets, Increments and Appends in order; every action gets a result
 * or an error, and a region that is not served fails its whole region action.
 * Writes (Mutate, and a Multi holding any mutation) pass the self-fencing check
 * (rs_cluster_check_fence) before they are applied and again before they are answered;
 * a fenced server answers the whole call ST_NOT_SERVING. Reads do not check.
 * Get is registered inline: it is first tried on the RPC I/O thread that read it, reading
 * only what is in memory (memstores, cached or mapped and verified blocks); one that needs
 * the disk answers ST_WOULD_BLOCK there and runs again on a handler.
 * Every Get and mutation has its operation attributes checked before it runs
 * (rs_attrs_check): a bad set fails that operation alone, with nothing applied.
 * Thread-safety: handlers run on RPC handler threads (Get also on the I/O thread); all
 * state is per call.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/rpc/rpc_header.h"
#include "common/rpc/rpc_proto.h"
#include "common/status.h"
#include "regionserver/rs_internal.h"

static int do_get(region *r, const Strata__Client__Get *g, rs_pool *pool,
                  Strata__Client__Result **out)
{
    *out = NULL;
    scan_spec spec;
    filter *flt = NULL;
    scan_result *res = rs_pool_result(pool);
    Strata__Client__Result *pr = rs_pool_alloc(pool, sizeof(*pr));
    int rc = res && pr ? ST_OK : st_error(ST_NOMEM, "out of memory");
    if (rc == ST_OK &&
        (rc = rs_attrs_check(r, "Get", g->row.data, g->row.len, g->attribute, g->n_attribute)) !=
            ST_OK)
        return rc; /* names the region and row already */
    if (rc == ST_OK)
        rc = rs_spec_from_get(r, g, pool, &spec, &flt);
    spec.cached_only = rpc_server_on_io_thread(); /* no disk reads there: ST_WOULD_BLOCK */
    if (rc == ST_OK)
        rc = region_get(r, g->row.data, g->row.len, &spec, res);
    if (rc == ST_WOULD_BLOCK) {
        filter_free(flt);
        return rc; /* run again on a handler */
    }
    filter_free(flt);
    if (rc == ST_OK)
        rc = rs_result_to_proto(res, pool, pr);
    if (rc != ST_OK)
        return rs_error_ctx(rc, region_get_info(r)->encoded_name, g->row.data, g->row.len);
    *out = pr;
    return ST_OK;
}

static int check_serving(void *ctx, rpc_reply *reply)
{
    return rs_check_serving(ctx, reply);
}

static int get_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    rs_server *s = ctx;
    rs_pool pool = {0};
    rs_region *reg = NULL;
    Strata__Client__GetRequest *m = (Strata__Client__GetRequest *)msg;
    Strata__Client__GetResponse resp = STRATA__CLIENT__GET_RESPONSE__INIT;
    int rc = rs_region_acquire_hint(s, m->region->encoded_name, &reg, &reply->hint);
    if (rc == ST_OK && (rc = do_get(reg->r, m->get, &pool, &resp.result)) == ST_OK)
        rc = rpc_proto_reply(reply, &resp.base);
    rs_region_release(s, reg);
    rs_pool_free(&pool);
    return rc;
}

static int mutate_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    rs_server *s = ctx;
    rs_pool pool = {0};
    rs_region *reg = NULL;
    Strata__Client__MutateRequest *m = (Strata__Client__MutateRequest *)msg;
    Strata__Client__MutateResponse resp = STRATA__CLIENT__MUTATE_RESPONSE__INIT;
    int rc;
    if ((rc = rs_cluster_check_fence(s)) != ST_OK ||
        (rc = rs_region_acquire_hint(s, m->region->encoded_name, &reg, &reply->hint)) != ST_OK)
        goto done;
    bool processed = false;
    rc = rs_mutate(reg->r, m->mutation, m->condition, &pool, &resp.result, &processed);
    resp.has_processed = 1;
    resp.processed = processed;
    if (rc == ST_OK)
        rc = rs_cluster_check_fence(s); /* fenced meanwhile: not acknowledged */
    if (rc == ST_OK)
        rc = rpc_proto_reply(reply, &resp.base);
    if (rc == ST_OK)
        rs_cluster_note_ack(s);
done:
    rs_region_release(s, reg);
    rs_pool_free(&pool);
    return rc;
}

/* ---- Multi ---- */

static Strata__Client__ActionError *action_error(rs_pool *pool, int rc)
{
    Strata__Client__ActionError *e = rs_pool_alloc(pool, sizeof(*e));
    size_t len = strlen(st_errmsg());
    char *msg = rs_pool_alloc(pool, len + 1);
    if (!e || !msg)
        return NULL;
    strata__client__action_error__init(e);
    memcpy(msg, st_errmsg(), len + 1);
    e->has_code = e->has_retryable = 1;
    e->code = rc;
    e->message = msg;
    e->retryable = rpc_status_retryable(rc);
    return e;
}

static bool batched(const Strata__Client__Action *a)
{
    return a->mutation &&
           (a->mutation->mutate_type == STRATA__CLIENT__MUTATION_PROTO__MUTATION_TYPE__PUT ||
            a->mutation->mutate_type == STRATA__CLIENT__MUTATION_PROTO__MUTATION_TYPE__DELETE);
}

/* Sets roe's result or error for action a, which ran with status rc. */
static int finish_action(rs_pool *pool, Strata__Client__ResultOrException *roe, int rc,
                         Strata__Client__Result *result)
{
    if (rc == ST_OK) {
        roe->result = result;
        return ST_OK;
    }
    roe->error = action_error(pool, rc);
    return roe->error ? ST_OK : st_error(ST_NOMEM, "out of memory");
}

/* Puts and Deletes of the region action as one batch. */
static int run_batch(region *r, const Strata__Client__RegionAction *ra, rs_pool *pool,
                     Strata__Client__ResultOrException **roes)
{
    size_t n = ra->n_action, nb = 0;
    mutation *ms = rs_pool_alloc(pool, n * sizeof(*ms));
    int *results = rs_pool_alloc(pool, n * sizeof(*results));
    size_t *which = rs_pool_alloc(pool, n * sizeof(*which));
    if (!ms || !results || !which)
        return st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        if (!batched(ra->action[i]))
            continue;
        const Strata__Client__MutationProto *m = ra->action[i]->mutation;
        int rc = rs_attrs_check(r, rs_mutation_kind(m), m->row.data, m->row.len, m->attribute,
                                m->n_attribute);
        if (rc == ST_OK && (rc = rs_mutation_from_proto(r, m, pool, &ms[nb])) != ST_OK)
            rc = rs_error_ctx(rc, region_get_info(r)->encoded_name, m->row.data, m->row.len);
        if (rc != ST_OK) {
            if ((rc = finish_action(pool, roes[i], rc, NULL)) != ST_OK)
                return rc;
            continue;
        }
        which[nb++] = i;
    }
    if (nb)
        region_batch_mutate(r, ms, nb, results);
    for (size_t j = 0; j < nb; j++) {
        int rc = results[j];
        if (rc != ST_OK)
            rc = rs_error_ctx(rc, region_get_info(r)->encoded_name, ms[j].row, ms[j].row_len);
        Strata__Client__Result *empty = rs_pool_alloc(pool, sizeof(*empty));
        if (!empty)
            return st_error(ST_NOMEM, "out of memory");
        strata__client__result__init(empty);
        if ((rc = finish_action(pool, roes[which[j]], rc, empty)) != ST_OK)
            return rc;
    }
    return ST_OK;
}

static int run_others(region *r, const Strata__Client__RegionAction *ra, rs_pool *pool,
                      Strata__Client__ResultOrException **roes)
{
    for (size_t i = 0; i < ra->n_action; i++) {
        const Strata__Client__Action *a = ra->action[i];
        if (batched(a))
            continue;
        Strata__Client__Result *result = NULL;
        int rc;
        bool processed;
        if (a->get)
            rc = do_get(r, a->get, pool, &result);
        else if (a->mutation)
            rc = rs_mutate(r, a->mutation, NULL, pool, &result, &processed);
        else
            rc = st_error(ST_INVALID_ARGUMENT, "action %zu has neither a get nor a mutation", i);
        if (rc == ST_OK && !result && (result = rs_pool_alloc(pool, sizeof(*result))))
            strata__client__result__init(result);
        if ((rc = finish_action(pool, roes[i], rc, result)) != ST_OK)
            return rc;
    }
    return ST_OK;
}

static int run_region_action(rs_server *s, const Strata__Client__RegionAction *ra, rs_pool *pool,
                             Strata__Client__RegionActionResult *out)
{
    strata__client__region_action_result__init(out);
    rs_region *reg = NULL;
    buf_t hint = {0};
    int rc = rs_region_acquire_hint(s, ra->region->encoded_name, &reg, &hint);
    if (rc != ST_OK) {
        out->error = action_error(pool, rc);
        if (out->error && hint.len)
            out->error->hint = strata__client__region_moved_hint__unpack(NULL, hint.len,
                                                                         hint.data);
        buf_free(&hint);
        return out->error ? ST_OK : st_error(ST_NOMEM, "out of memory");
    }
    Strata__Client__ResultOrException **roes = rs_pool_alloc(pool, ra->n_action * sizeof(*roes));
    rc = roes ? ST_OK : st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; rc == ST_OK && i < ra->n_action; i++) {
        if (!(roes[i] = rs_pool_alloc(pool, sizeof(*roes[i])))) {
            rc = st_error(ST_NOMEM, "out of memory");
            break;
        }
        strata__client__result_or_exception__init(roes[i]);
        roes[i]->has_index = 1;
        roes[i]->index = ra->action[i]->has_index ? ra->action[i]->index : (uint32_t)i;
    }
    if (rc == ST_OK)
        rc = run_batch(reg->r, ra, pool, roes);
    if (rc == ST_OK)
        rc = run_others(reg->r, ra, pool, roes);
    rs_region_release(s, reg);
    out->result = roes;
    out->n_result = rc == ST_OK ? ra->n_action : 0;
    return rc;
}

static bool has_writes(const Strata__Client__MultiRequest *m)
{
    for (size_t i = 0; i < m->n_region_action; i++)
        for (size_t j = 0; j < m->region_action[i]->n_action; j++)
            if (m->region_action[i]->action[j]->mutation)
                return true;
    return false;
}

static int multi_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    rs_server *s = ctx;
    rs_pool pool = {0};
    Strata__Client__MultiRequest *m = (Strata__Client__MultiRequest *)msg;
    Strata__Client__MultiResponse resp = STRATA__CLIENT__MULTI_RESPONSE__INIT;
    int rc = ST_OK;
    bool writes = rs_cluster_enabled(s) && has_writes(m);
    if (writes && (rc = rs_cluster_check_fence(s)) != ST_OK)
        goto done;
    size_t n = m->n_region_action;
    Strata__Client__RegionActionResult **rars = rs_pool_alloc(&pool, n * sizeof(*rars));
    Strata__Client__RegionActionResult *store = rs_pool_alloc(&pool, n * sizeof(*store));
    if (!rars || !store) {
        rc = st_error(ST_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n && rc == ST_OK; i++) {
        rars[i] = &store[i];
        rc = run_region_action(s, m->region_action[i], &pool, rars[i]);
    }
    resp.region_action_result = rars;
    resp.n_region_action_result = n;
    if (rc == ST_OK && writes)
        rc = rs_cluster_check_fence(s); /* fenced meanwhile: not acknowledged */
    if (rc == ST_OK)
        rc = rpc_proto_reply(reply, &resp.base);
    if (rc == ST_OK && writes)
        rs_cluster_note_ack(s);
    for (size_t i = 0; i < n; i++) /* the moved hints are unpacked, not in the pool */
        if (store[i].error && store[i].error->hint)
            strata__client__region_moved_hint__free_unpacked(store[i].error->hint, NULL);
done:
    rs_pool_free(&pool);
    return rc;
}

RPC_PROTO_HANDLER(handle_get, check_serving, strata__client__get_request__descriptor, get_body)
RPC_PROTO_HANDLER(handle_mutate, check_serving, strata__client__mutate_request__descriptor,
                  mutate_body)
RPC_PROTO_HANDLER(handle_multi, check_serving, strata__client__multi_request__descriptor,
                  multi_body)

int rs_client_service_register(rs_server *s)
{
    int rc = rpc_server_register_inline(s->rpc, "ClientService.Get", handle_get, s);
    if (rc == ST_OK)
        rc = rpc_server_register(s->rpc, "ClientService.Mutate", handle_mutate, s);
    if (rc == ST_OK)
        rc = rpc_server_register(s->rpc, "ClientService.Multi", handle_multi, s);
    if (rc == ST_OK)
        rc = rpc_server_register(s->rpc, "ClientService.Scan", rs_handle_scan, s);
    return rc;
}
