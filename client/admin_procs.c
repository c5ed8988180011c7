/*
 * admin_procs.c - the region life cycle in the public admin API (strata/admin.h): split,
 * merge, the master's switches, the catalog janitor and the procedure listing, each one
 * MasterService call (common/proto/master.proto).
 *
 * Thread-safety: as admin.c; a procedure list is immutable once built.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/admin_internal.h"
#include "client/client_internal.h"
#include "common/status.h"

/* Splits and merges wait for their regions to open: allow them more than a plain call. */
#define PROC_CALL_TIMEOUT_MS 600000

static int report(int rc, char **errptr)
{
    if (rc != ST_OK)
        client_set_error(errptr, rc);
    return rc;
}

static int need(const strata_admin_t *a, const char *op)
{
    return admin_handle_rpc(a) ? ST_OK
                               : st_error(ST_INVALID_ARGUMENT, "admin: %s without a handle", op);
}

static int split(strata_admin_t *a, const char *table, const char *encoded,
                 const unsigned char *key, size_t key_len)
{
    int rc = need(a, "split");
    if (rc == ST_OK && key && key_len == 0)
        rc = st_error(ST_INVALID_ARGUMENT, "split: the split key is empty");
    if (rc == ST_OK && table)
        rc = admin_rpc_check_table_name(table);
    if (rc == ST_OK && encoded && (!encoded[0] || strlen(encoded) > 64))
        rc = st_error(ST_INVALID_ARGUMENT, "split: '%s' is not an encoded region name", encoded);
    if (rc != ST_OK)
        return rc;
    Strata__Master__SplitRegionRequest req = STRATA__MASTER__SPLIT_REGION_REQUEST__INIT;
    req.table = (char *)table;
    req.encoded_name = (char *)encoded;
    if (key) {
        req.has_split_row = 1;
        req.split_row = (ProtobufCBinaryData){key_len, (uint8_t *)key};
    }
    ProtobufCMessage *resp = NULL;
    rc = admin_rpc_call(admin_handle_rpc(a), "SplitRegion", &req.base,
                        &strata__master__split_region_response__descriptor, PROC_CALL_TIMEOUT_MS,
                        &resp);
    admin_rpc_free_msg(resp);
    return rc;
}

void strata_admin_split_region(strata_admin_t *a, const char *encoded_name,
                               const unsigned char *key, size_t key_len, char **errptr)
{
    int rc = encoded_name ? ST_OK : st_error(ST_INVALID_ARGUMENT, "split: no region named");
    report(rc == ST_OK ? split(a, NULL, encoded_name, key, key_len) : rc, errptr);
}

void strata_admin_split_table(strata_admin_t *a, const char *table, const unsigned char *key,
                              size_t key_len, char **errptr)
{
    int rc = table ? ST_OK : st_error(ST_INVALID_ARGUMENT, "split: no table named");
    report(rc == ST_OK ? split(a, table, NULL, key, key_len) : rc, errptr);
}

char *strata_admin_merge_regions(strata_admin_t *a, const char *const *encoded_names, size_t n,
                                 unsigned char force, char **errptr)
{
    int rc = need(a, "merge");
    if (rc == ST_OK && (n < 2 || !encoded_names))
        rc = st_error(ST_INVALID_ARGUMENT, "merge: name at least two regions");
    for (size_t i = 0; rc == ST_OK && i < n; i++)
        if (!encoded_names[i] || !encoded_names[i][0])
            rc = st_error(ST_INVALID_ARGUMENT, "merge: region %zu has no name", i + 1);
    if (report(rc, errptr) != ST_OK)
        return NULL;
    Strata__Master__MergeRegionsRequest req = STRATA__MASTER__MERGE_REGIONS_REQUEST__INIT;
    req.encoded_name = (char **)encoded_names;
    req.n_encoded_name = n;
    req.has_force = 1;
    req.force = force != 0;
    Strata__Master__MergeRegionsResponse *resp = NULL;
    rc = admin_rpc_call(admin_handle_rpc(a), "MergeRegions", &req.base,
                        &strata__master__merge_regions_response__descriptor, PROC_CALL_TIMEOUT_MS,
                        (ProtobufCMessage **)&resp);
    char *out = NULL;
    if (rc == ST_OK) {
        out = strdup(resp->merged && resp->merged->encoded_name ? resp->merged->encoded_name : "");
        if (!out)
            rc = st_error(ST_NOMEM, "out of memory");
    }
    admin_rpc_free_msg(resp);
    report(rc, errptr);
    return out;
}

static int set_switch(strata_admin_t *a, const char *name, int on, bool *prev)
{
    int rc = need(a, "switch");
    if (rc == ST_OK && !name)
        rc = st_error(ST_INVALID_ARGUMENT, "switch: no switch named");
    if (rc != ST_OK)
        return rc;
    Strata__Master__SetSwitchRequest req = STRATA__MASTER__SET_SWITCH_REQUEST__INIT;
    req.name = (char *)name;
    if (on >= 0) {
        req.has_enabled = 1;
        req.enabled = on != 0;
    }
    Strata__Master__SetSwitchResponse *resp = NULL;
    rc = admin_rpc_call(admin_handle_rpc(a), "SetSwitch", &req.base,
                        &strata__master__set_switch_response__descriptor, 0,
                        (ProtobufCMessage **)&resp);
    if (rc == ST_OK)
        *prev = resp->previous;
    admin_rpc_free_msg(resp);
    return rc;
}

unsigned char strata_admin_set_switch(strata_admin_t *a, const char *name, unsigned char on,
                                      char **errptr)
{
    bool prev = false;
    return report(set_switch(a, name, on != 0, &prev), errptr) == ST_OK && prev;
}

unsigned char strata_admin_switch_enabled(strata_admin_t *a, const char *name, char **errptr)
{
    bool prev = false;
    return report(set_switch(a, name, -1, &prev), errptr) == ST_OK && prev;
}

unsigned strata_admin_run_catalog_janitor(strata_admin_t *a, char **errptr)
{
    int rc = need(a, "catalog janitor");
    Strata__Master__RunCatalogJanitorRequest req =
        STRATA__MASTER__RUN_CATALOG_JANITOR_REQUEST__INIT;
    Strata__Master__RunCatalogJanitorResponse *resp = NULL;
    if (rc == ST_OK)
        rc = admin_rpc_call(admin_handle_rpc(a), "RunCatalogJanitor", &req.base,
                            &strata__master__run_catalog_janitor_response__descriptor,
                            PROC_CALL_TIMEOUT_MS, (ProtobufCMessage **)&resp);
    unsigned n = rc == ST_OK ? resp->cleaned : 0;
    admin_rpc_free_msg(resp);
    report(rc, errptr);
    return n;
}

unsigned char strata_admin_normalize(strata_admin_t *a, char **errptr)
{
    int rc = need(a, "normalize");
    Strata__Master__NormalizeRequest req = STRATA__MASTER__NORMALIZE_REQUEST__INIT;
    Strata__Master__NormalizeResponse *resp = NULL;
    if (rc == ST_OK)
        rc = admin_rpc_call(admin_handle_rpc(a), "Normalize", &req.base,
                            &strata__master__normalize_response__descriptor, PROC_CALL_TIMEOUT_MS,
                            (ProtobufCMessage **)&resp);
    bool ran = rc == ST_OK && resp->ran;
    admin_rpc_free_msg(resp);
    report(rc, errptr);
    return ran;
}

char *strata_admin_balance(strata_admin_t *a, unsigned flags, unsigned char *ran, char **errptr)
{
    *ran = 0;
    int rc = need(a, "balancer");
    if (rc == ST_OK && (flags & ~(unsigned)(STRATA_BALANCE_FORCE | STRATA_BALANCE_DRY_RUN)))
        rc = st_error(ST_INVALID_ARGUMENT, "balancer: unknown flags 0x%x", flags);
    Strata__Master__BalanceRequest req = STRATA__MASTER__BALANCE_REQUEST__INIT;
    req.has_force = req.force = (flags & STRATA_BALANCE_FORCE) != 0;
    req.has_dry_run = req.dry_run = (flags & STRATA_BALANCE_DRY_RUN) != 0;
    Strata__Master__BalanceResponse *resp = NULL;
    if (rc == ST_OK)
        rc = admin_rpc_call(admin_handle_rpc(a), "Balance", &req.base,
                            &strata__master__balance_response__descriptor, PROC_CALL_TIMEOUT_MS,
                            (ProtobufCMessage **)&resp);
    char *text = NULL;
    if (rc == ST_OK) {
        *ran = resp->ran;
        const char *plan = resp->plan ? resp->plan : "", *why = resp->reason ? resp->reason : "";
        size_t len = strlen(plan) + strlen(why) + 256;
        text = malloc(len);
        if (!text) {
            rc = st_error(ST_NOMEM, "out of memory");
        } else if (resp->ran) {
            snprintf(text, len, "%s: cost %.4f -> %.4f, %u moves planned, %u done, %u failed%s%s\n%s",
                     resp->policy ? resp->policy : "balancer", resp->cost_before, resp->cost_after,
                     resp->moves_planned, resp->moves_done, resp->moves_failed, why[0] ? "; " : "",
                     why, plan);
        } else {
            snprintf(text, len, "%s\n", why);
        }
    }
    admin_rpc_free_msg(resp);
    report(rc, errptr);
    return text;
}

strata_name_list_t *strata_admin_compaction_switch(strata_admin_t *a, unsigned char on,
                                                   const char *const *servers, size_t n,
                                                   unsigned char **previous, char **errptr)
{
    if (previous)
        *previous = NULL;
    int rc = need(a, "compaction switch");
    if (rc == ST_OK && n && !servers)
        rc = st_error(ST_INVALID_ARGUMENT, "compaction switch: %zu servers without names", n);
    Strata__Master__CompactionSwitchAllRequest req =
        STRATA__MASTER__COMPACTION_SWITCH_ALL_REQUEST__INIT;
    req.enabled = on != 0;
    req.server = (char **)servers;
    req.n_server = n;
    Strata__Master__CompactionSwitchAllResponse *resp = NULL;
    if (rc == ST_OK)
        rc = admin_rpc_call(admin_handle_rpc(a), "CompactionSwitch", &req.base,
                            &strata__master__compaction_switch_all_response__descriptor, 0,
                            (ProtobufCMessage **)&resp);
    strata_name_list_t *l = NULL;
    unsigned char *prev = NULL;
    if (rc == ST_OK) {
        l = admin_name_list_new(resp->server, resp->n_server);
        prev = malloc(resp->n_server ? resp->n_server : 1);
        if (!l || !prev)
            rc = st_error(ST_NOMEM, "out of memory");
        for (size_t i = 0; prev && i < resp->n_server; i++)
            prev[i] = i < resp->n_previous && resp->previous[i];
    }
    admin_rpc_free_msg(resp);
    if (report(rc, errptr) != ST_OK) {
        strata_name_list_destroy(l);
        free(prev);
        return NULL;
    }
    if (previous)
        *previous = prev;
    else
        free(prev);
    return l;
}

/* ---- compaction state, WAL roll ---- */

static const char *const COMPACTION_STATE_NAMES[] = {"NONE", "MINOR", "MAJOR",
                                                      "MAJOR_AND_MINOR"};

const char *strata_compaction_state_name(strata_compaction_state state)
{
    return (unsigned)state < 4 ? COMPACTION_STATE_NAMES[state] : "UNKNOWN";
}

static strata_compaction_state compaction_state(strata_admin_t *a, const char *table,
                                                const char *encoded, char **errptr)
{
    int rc = need(a, "compaction state");
    if (rc == ST_OK && table)
        rc = admin_rpc_check_table_name(table);
    if (rc == ST_OK && !table && (!encoded || !encoded[0] || strlen(encoded) > 64))
        rc = st_error(ST_INVALID_ARGUMENT, "compaction state: '%s' is not an encoded region name",
                      encoded ? encoded : "");
    Strata__Master__GetCompactionStateRequest req =
        STRATA__MASTER__GET_COMPACTION_STATE_REQUEST__INIT;
    req.table = (char *)table;
    req.encoded_name = table ? NULL : (char *)encoded;
    Strata__Master__GetCompactionStateResponse *resp = NULL;
    if (rc == ST_OK)
        rc = admin_rpc_call(admin_handle_rpc(a), "GetCompactionState", &req.base,
                            &strata__master__get_compaction_state_response__descriptor, 0,
                            (ProtobufCMessage **)&resp);
    strata_compaction_state st = rc == ST_OK ? (strata_compaction_state)(resp->state & 3u)
                                             : STRATA_COMPACTION_NONE;
    admin_rpc_free_msg(resp);
    report(rc, errptr);
    return st;
}

strata_compaction_state strata_admin_compaction_state(strata_admin_t *a, const char *table,
                                                      char **errptr)
{
    return compaction_state(a, table ? table : "", NULL, errptr);
}

strata_compaction_state strata_admin_region_compaction_state(strata_admin_t *a,
                                                             const char *encoded_name,
                                                             char **errptr)
{
    return compaction_state(a, NULL, encoded_name, errptr);
}

void strata_admin_roll_wal(strata_admin_t *a, const char *server, char **errptr)
{
    int rc = need(a, "wal_roll");
    if (rc == ST_OK && (!server || !server[0]))
        rc = st_error(ST_INVALID_ARGUMENT, "wal_roll: no region server named");
    Strata__Master__RollWALWriterRequest req = STRATA__MASTER__ROLL_WALWRITER_REQUEST__INIT;
    req.server = (char *)server;
    ProtobufCMessage *resp = NULL;
    if (rc == ST_OK)
        rc = admin_rpc_call(admin_handle_rpc(a), "RollWALWriter", &req.base,
                            &strata__master__roll_walwriter_response__descriptor, 0, &resp);
    admin_rpc_free_msg(resp);
    report(rc, errptr);
}

void strata_admin_alter_status(strata_admin_t *a, const char *table, uint32_t *updated,
                               uint32_t *total, unsigned char *running, char **errptr)
{
    *updated = *total = 0;
    if (running)
        *running = 0;
    int rc = need(a, "alter status");
    if (rc == ST_OK)
        rc = admin_rpc_check_table_name(table);
    Strata__Master__GetAlterStatusRequest req = STRATA__MASTER__GET_ALTER_STATUS_REQUEST__INIT;
    req.table = (char *)table;
    Strata__Master__GetAlterStatusResponse *resp = NULL;
    if (rc == ST_OK)
        rc = admin_rpc_call(admin_handle_rpc(a), "GetAlterStatus", &req.base,
                            &strata__master__get_alter_status_response__descriptor, 0,
                            (ProtobufCMessage **)&resp);
    if (rc == ST_OK) {
        *updated = resp->updated;
        *total = resp->total;
        if (running)
            *running = resp->has_running && resp->running;
    }
    admin_rpc_free_msg(resp);
    report(rc, errptr);
}

/* ---- procedures ---- */

struct strata_procedure_list {
    Strata__Master__ListProceduresResponse *resp;
};

strata_procedure_list_t *strata_admin_list_procedures(strata_admin_t *a, char **errptr)
{
    int rc = need(a, "list procedures");
    Strata__Master__ListProceduresRequest req = STRATA__MASTER__LIST_PROCEDURES_REQUEST__INIT;
    Strata__Master__ListProceduresResponse *resp = NULL;
    if (rc == ST_OK)
        rc = admin_rpc_call(admin_handle_rpc(a), "ListProcedures", &req.base,
                            &strata__master__list_procedures_response__descriptor, 0,
                            (ProtobufCMessage **)&resp);
    strata_procedure_list_t *l = NULL;
    if (rc == ST_OK && !(l = calloc(1, sizeof(*l))))
        rc = st_error(ST_NOMEM, "out of memory");
    if (rc != ST_OK) {
        admin_rpc_free_msg(resp);
        report(rc, errptr);
        return NULL;
    }
    l->resp = resp;
    return l;
}

void strata_procedure_list_destroy(strata_procedure_list_t *l)
{
    if (!l)
        return;
    admin_rpc_free_msg(l->resp);
    free(l);
}

size_t strata_procedure_list_count(const strata_procedure_list_t *l)
{
    return l ? l->resp->n_procedure : 0;
}

static const Strata__Master__ProcedureInfo *at(const strata_procedure_list_t *l, size_t i)
{
    return l && i < l->resp->n_procedure ? l->resp->procedure[i] : NULL;
}

unsigned long long strata_procedure_id(const strata_procedure_list_t *l, size_t i)
{
    return at(l, i) ? at(l, i)->id : 0;
}

#define TEXT(field)                                                                                \
    const Strata__Master__ProcedureInfo *p = at(l, i);                                             \
    return p && p->field ? p->field : ""

const char *strata_procedure_type(const strata_procedure_list_t *l, size_t i)
{
    TEXT(type);
}

const char *strata_procedure_state(const strata_procedure_list_t *l, size_t i)
{
    TEXT(state);
}

const char *strata_procedure_step(const strata_procedure_list_t *l, size_t i)
{
    TEXT(step);
}

const char *strata_procedure_table(const strata_procedure_list_t *l, size_t i)
{
    TEXT(table);
}

const char *strata_procedure_error(const strata_procedure_list_t *l, size_t i)
{
    TEXT(error);
}

long long strata_procedure_submitted_ms(const strata_procedure_list_t *l, size_t i)
{
    return at(l, i) ? (long long)at(l, i)->submitted_ms : 0;
}

long long strata_procedure_updated_ms(const strata_procedure_list_t *l, size_t i)
{
    return at(l, i) ? (long long)at(l, i)->updated_ms : 0;
}

size_t strata_procedure_region_count(const strata_procedure_list_t *l, size_t i)
{
    return at(l, i) ? at(l, i)->n_region : 0;
}

const char *strata_procedure_region(const strata_procedure_list_t *l, size_t i, size_t j)
{
    const Strata__Master__ProcedureInfo *p = at(l, i);
    return p && j < p->n_region ? p->region[j] : "";
}

/* ---- dead servers ---- */

strata_name_list_t *strata_admin_list_dead_servers(strata_admin_t *a, char **errptr)
{
    strata_cluster_status_t *s = strata_admin_cluster_status(a, errptr);
    if (!s)
        return NULL;
    size_t n = strata_cluster_status_dead_server_count(s);
    char **names = calloc(n ? n : 1, sizeof(*names));
    for (size_t i = 0; names && i < n; i++)
        names[i] = (char *)strata_cluster_status_dead_server(s, i);
    strata_name_list_t *l = names ? admin_name_list_new(names, n) : NULL;
    free(names);
    strata_cluster_status_destroy(s);
    if (!l)
        report(st_error(ST_NOMEM, "admin: out of memory listing the dead servers"), errptr);
    return l;
}

strata_name_list_t *strata_admin_clear_dead_servers(strata_admin_t *a, const char *const *servers,
                                                    size_t n, char **errptr)
{
    int rc = need(a, "clear dead servers");
    if (rc == ST_OK && n && !servers)
        rc = st_error(ST_INVALID_ARGUMENT, "clear dead servers: %zu servers without names", n);
    Strata__Master__ClearDeadServersRequest req = STRATA__MASTER__CLEAR_DEAD_SERVERS_REQUEST__INIT;
    req.server = (char **)servers;
    req.n_server = n;
    Strata__Master__ClearDeadServersResponse *resp = NULL;
    if (rc == ST_OK)
        rc = admin_rpc_call(admin_handle_rpc(a), "ClearDeadServers", &req.base,
                            &strata__master__clear_dead_servers_response__descriptor, 0,
                            (ProtobufCMessage **)&resp);
    strata_name_list_t *l = NULL;
    if (rc == ST_OK && !(l = admin_name_list_new(resp->not_cleared, resp->n_not_cleared)))
        rc = st_error(ST_NOMEM, "admin: out of memory");
    admin_rpc_free_msg(resp);
    if (report(rc, errptr) != ST_OK) {
        strata_name_list_destroy(l);
        return NULL;
    }
    return l;
}
