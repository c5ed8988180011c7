/*
 * admin_hbck.c - `strata hbck` on the client side (docs/hbck.md): the MasterService.Hbck*
 * calls (admin_rpc.h), the one formatter of a report as text or JSON that the `strata
 * hbck` tool and the shell's `hbck` share, and the public strata_admin_hbck (admin.h).
 *
 * Thread-safety: as admin_rpc (any number of threads per handle).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/admin_internal.h"
#include "client/admin_rpc.h"
#include "client/client_internal.h"
#include "common/buf.h"
#include "common/status.h"

/* A report walks every region server and the root directory: more than a plain call. */
#define HBCK_CALL_TIMEOUT_MS 300000

int admin_rpc_hbck_report(admin_rpc *a, const char *const *tables, size_t n, uint64_t stuck_ms,
                          bool skip_fs, Strata__Master__HbckReportResponse **out)
{
    *out = NULL;
    Strata__Master__HbckReportRequest req = STRATA__MASTER__HBCK_REPORT_REQUEST__INIT;
    req.table = (char **)tables;
    req.n_table = n;
    req.has_stuck_ms = stuck_ms != 0;
    req.stuck_ms = stuck_ms;
    req.has_skip_fs = skip_fs;
    req.skip_fs = skip_fs;
    return admin_rpc_call(a, "HbckReport", &req.base,
                          &strata__master__hbck_report_response__descriptor, HBCK_CALL_TIMEOUT_MS,
                          (ProtobufCMessage **)out);
}

static int dup_out(const char *s, char **out)
{
    if (!out)
        return ST_OK;
    *out = strdup(s ? s : "");
    return *out ? ST_OK : st_error(ST_NOMEM, "out of memory");
}

int admin_rpc_hbck_set_region_state(admin_rpc *a, const char *encoded, const char *state,
                                    bool clear_server, bool remove_row, char **previous)
{
    if (previous)
        *previous = NULL;
    if (!encoded || !encoded[0] || (!state && !remove_row))
        return st_error(ST_INVALID_ARGUMENT, "setRegionState: a region and a state are needed");
    Strata__Master__HbckSetRegionStateRequest req =
        STRATA__MASTER__HBCK_SET_REGION_STATE_REQUEST__INIT;
    req.encoded_name = (char *)encoded;
    req.state = (char *)state;
    req.has_clear_server = req.clear_server = clear_server;
    req.has_remove_row = req.remove_row = remove_row;
    Strata__Master__HbckSetRegionStateResponse *resp = NULL;
    int rc = admin_rpc_call(a, "HbckSetRegionState", &req.base,
                            &strata__master__hbck_set_region_state_response__descriptor, 0,
                            (ProtobufCMessage **)&resp);
    if (rc == ST_OK)
        rc = dup_out(resp->previous, previous);
    admin_rpc_free_msg(resp);
    return rc;
}

int admin_rpc_hbck_set_table_state(admin_rpc *a, const char *table, const char *state,
                                   char **previous)
{
    if (previous)
        *previous = NULL;
    if (!table || !state)
        return st_error(ST_INVALID_ARGUMENT, "setTableState: a table and a state are needed");
    Strata__Master__HbckSetTableStateRequest req =
        STRATA__MASTER__HBCK_SET_TABLE_STATE_REQUEST__INIT;
    req.table = (char *)table;
    req.state = (char *)state;
    Strata__Master__HbckSetTableStateResponse *resp = NULL;
    int rc = admin_rpc_call(a, "HbckSetTableState", &req.base,
                            &strata__master__hbck_set_table_state_response__descriptor, 0,
                            (ProtobufCMessage **)&resp);
    if (rc == ST_OK)
        rc = dup_out(resp->previous, previous);
    admin_rpc_free_msg(resp);
    return rc;
}

int admin_rpc_hbck_fix_meta(admin_rpc *a, const char *const *tables, size_t n, bool dry_run,
                            Strata__Master__HbckFixMetaResponse **out)
{
    Strata__Master__HbckFixMetaRequest req = STRATA__MASTER__HBCK_FIX_META_REQUEST__INIT;
    req.table = (char **)tables;
    req.n_table = n;
    req.has_dry_run = req.dry_run = dry_run;
    return admin_rpc_call(a, "HbckFixMeta", &req.base,
                          &strata__master__hbck_fix_meta_response__descriptor, HBCK_CALL_TIMEOUT_MS,
                          (ProtobufCMessage **)out);
}

int admin_rpc_hbck_schedule_recoveries(admin_rpc *a, const char *const *servers, size_t n)
{
    Strata__Master__HbckScheduleRecoveriesRequest req =
        STRATA__MASTER__HBCK_SCHEDULE_RECOVERIES_REQUEST__INIT;
    req.server = (char **)servers;
    req.n_server = n;
    ProtobufCMessage *resp = NULL;
    int rc =
        admin_rpc_call(a, "HbckScheduleRecoveries", &req.base,
                       &strata__master__hbck_schedule_recoveries_response__descriptor, 0, &resp);
    admin_rpc_free_msg(resp);
    return rc;
}

int admin_rpc_hbck_bypass(admin_rpc *a, uint64_t proc_id, bool override)
{
    Strata__Master__HbckBypassRequest req = STRATA__MASTER__HBCK_BYPASS_REQUEST__INIT;
    req.proc_id = proc_id;
    req.has_override = req.override = override;
    ProtobufCMessage *resp = NULL;
    int rc = admin_rpc_call(a, "HbckBypass", &req.base,
                            &strata__master__hbck_bypass_response__descriptor, 0, &resp);
    admin_rpc_free_msg(resp);
    return rc;
}

int admin_rpc_hbck_sideline(admin_rpc *a, const char *const *paths, size_t n,
                            Strata__Master__HbckSidelineResponse **out)
{
    Strata__Master__HbckSidelineRequest req = STRATA__MASTER__HBCK_SIDELINE_REQUEST__INIT;
    req.path = (char **)paths;
    req.n_path = n;
    return admin_rpc_call(a, "HbckSideline", &req.base,
                          &strata__master__hbck_sideline_response__descriptor, HBCK_CALL_TIMEOUT_MS,
                          (ProtobufCMessage **)out);
}

/* ---- formatting ---- */

static int put(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int put(buf_t *b, const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n < 0)
        return ST_OK;
    return buf_append(b, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

static int put_json_str(buf_t *b, const char *s)
{
    int rc = buf_append(b, "\"", 1);
    for (; rc == ST_OK && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            rc = put(b, "\\%c", c);
        else if (c < 0x20)
            rc = put(b, "\\u%04x", c);
        else
            rc = buf_append(b, s, 1);
    }
    return rc == ST_OK ? buf_append(b, "\"", 1) : rc;
}

static int text_line(buf_t *b, const Strata__Master__HbckFinding *f)
{
    int rc = put(b, "%s: %s", f->error ? "ERROR" : "INFO", f->kind);
    const char *k[] = {"table", "region", "server", "path"};
    const char *v[] = {f->table, f->region, f->server, f->path};
    for (int i = 0; i < 4; i++)
        if (rc == ST_OK && v[i] && v[i][0])
            rc = put(b, " %s=%s", k[i], v[i]);
    if (rc == ST_OK && f->has_proc_id)
        rc = put(b, " proc=%llu", (unsigned long long)f->proc_id);
    if (rc == ST_OK && f->detail && f->detail[0])
        rc = put(b, ": %s", f->detail);
    return rc == ST_OK ? put(b, "\n") : rc;
}

static int json_finding(buf_t *b, const Strata__Master__HbckFinding *f, bool first)
{
    int rc = put(b, "%s{\"kind\":\"%s\",\"error\":%s", first ? "" : ",", f->kind,
                 f->error ? "true" : "false");
    const char *k[] = {"table", "region", "server", "path", "detail"};
    const char *v[] = {f->table, f->region, f->server, f->path, f->detail};
    for (int i = 0; i < 5; i++)
        if (rc == ST_OK && v[i] && v[i][0]) {
            rc = put(b, ",\"%s\":", k[i]);
            if (rc == ST_OK)
                rc = put_json_str(b, v[i]);
        }
    if (rc == ST_OK && f->has_proc_id)
        rc = put(b, ",\"proc_id\":%llu", (unsigned long long)f->proc_id);
    return rc == ST_OK ? put(b, "}") : rc;
}

int admin_rpc_hbck_format(const Strata__Master__HbckReportResponse *r,
                          Strata__Master__HbckFinding *const *extra, size_t n_extra, bool json,
                          char **out, size_t *errors)
{
    *out = NULL;
    *errors = 0;
    size_t n = r->n_finding + n_extra, infos = 0;
    for (size_t i = 0; i < n; i++) {
        const Strata__Master__HbckFinding *f =
            i < r->n_finding ? r->finding[i] : extra[i - r->n_finding];
        *errors += f->error;
        infos += !f->error;
    }
    buf_t b = {0};
    int rc = json ? put(&b,
                        "{\"status\":\"%s\",\"errors\":%zu,\"informational\":%zu,"
                        "\"tables\":%u,\"regions\":%u,\"servers\":%u,\"findings\":[",
                        *errors ? "INCONSISTENT" : "OK", *errors, infos, r->tables, r->regions,
                        r->servers)
                  : ST_OK;
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        const Strata__Master__HbckFinding *f =
            i < r->n_finding ? r->finding[i] : extra[i - r->n_finding];
        rc = json ? json_finding(&b, f, i == 0) : text_line(&b, f);
    }
    if (rc == ST_OK && json)
        rc = put(&b, "]}\n");
    else if (rc == ST_OK)
        rc =
            put(&b,
                "Checked %u tables, %u regions, %u live servers.\n"
                "%zu inconsistencies detected (%zu informational).\nStatus: %s\n",
                r->tables, r->regions, r->servers, *errors, infos, *errors ? "INCONSISTENT" : "OK");
    if (rc == ST_OK)
        rc = buf_append(&b, "", 1);
    if (rc != ST_OK) {
        buf_free(&b);
        return st_error(ST_NOMEM, "out of memory");
    }
    *out = (char *)b.data; /* the buffer's bytes, NUL-terminated */
    return ST_OK;
}

char *strata_admin_hbck(strata_admin_t *a, const char *const *tables, size_t n,
                        unsigned long long stuck_ms, size_t *errors, char **errptr)
{
    *errors = 0;
    admin_rpc *r = admin_handle_rpc(a);
    int rc = r ? ST_OK : st_error(ST_INVALID_ARGUMENT, "admin: hbck without a handle");
    Strata__Master__HbckReportResponse *resp = NULL;
    if (rc == ST_OK)
        rc = admin_rpc_hbck_report(r, tables, n, stuck_ms, false, &resp);
    char *text = NULL;
    if (rc == ST_OK)
        rc = admin_rpc_hbck_format(resp, NULL, 0, false, &text, errors);
    admin_rpc_free_msg(resp);
    if (rc != ST_OK)
        client_set_error(errptr, rc);
    return text;
}
