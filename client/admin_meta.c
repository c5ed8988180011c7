/*
 * admin_meta.c - the catalog read as rows in the public admin API (strata/admin.h,
 * strata_admin_scan_meta): MasterService.ScanMeta called page after page (docs/master.md)
 * until the scan's limit or the end, each row kept as a strata_result_t.
 *
 * Paging: the master answers at most a page per call and says whether more may follow;
 * the next call starts at the last row answered, exclusive (start_exclusive), in either
 * direction, so no row is answered twice or skipped.
 *
 * Thread-safety: as admin.c; a row list is immutable once built.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/admin_internal.h"
#include "client/client_internal.h"
#include "common/status.h"

struct strata_meta_rows {
    strata_result_t **rows;
    size_t n, cap;
};

static int keep(strata_meta_rows_t *l, const Strata__Client__Result *r)
{
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 64;
        strata_result_t **v = realloc(l->rows, nc * sizeof(*v));
        if (!v)
            return st_error(ST_NOMEM, "admin: out of memory reading strata:meta");
        l->rows = v;
        l->cap = nc;
    }
    if (!(l->rows[l->n] = result_from_pb(r, NULL, 0)))
        return st_error(ST_NOMEM, "admin: out of memory reading strata:meta");
    l->n++;
    return ST_OK;
}

/* One page from *pos (exclusive after the first page); appends its rows to l, sets
 * *more and moves *pos to the last row answered. */
static int page(admin_rpc *rpc, const strata_scan_t *s, strata_meta_rows_t *l, buf_t *pos,
                bool first, bool *more)
{
    Strata__Master__ScanMetaRequest req = STRATA__MASTER__SCAN_META_REQUEST__INIT;
    ProtobufCMessage *msg = NULL;
    read_pb rd;
    int rc = read_pb_build(&rd, &s->spec, &req.n_column, &req.column, &req.has_max_versions,
                           &req.max_versions, &req.time_range, &req.filter);
    if (rc != ST_OK)
        return rc;
    req.has_start_row = pos->len > 0;
    req.start_row = (ProtobufCBinaryData){pos->len, pos->data};
    req.has_start_exclusive = req.start_exclusive = !first;
    req.has_stop_row = s->stop.len > 0;
    req.stop_row = (ProtobufCBinaryData){s->stop.len, s->stop.data};
    req.has_reversed = req.reversed = s->reversed;
    req.has_raw = req.raw = s->raw;
    if (s->limit) {
        uint64_t left = s->limit - l->n;
        req.has_limit = 1;
        req.limit = left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
    }
    rc = admin_rpc_call(rpc, "ScanMeta", &req.base, &strata__master__scan_meta_response__descriptor,
                        0, &msg);
    read_pb_clear(&rd);
    if (rc != ST_OK)
        return rc;
    Strata__Master__ScanMetaResponse *resp = (Strata__Master__ScanMetaResponse *)msg;
    for (size_t i = 0; rc == ST_OK && i < resp->n_row; i++)
        rc = keep(l, resp->row[i]);
    *more = rc == ST_OK && resp->has_more && resp->more && resp->n_row > 0;
    if (*more) {
        size_t len;
        const char *row = strata_result_row(l->rows[l->n - 1], &len);
        rc = buf_set(pos, row, len);
    }
    admin_rpc_free_msg(msg);
    return rc;
}

strata_meta_rows_t *strata_admin_scan_meta(strata_admin_t *a, const strata_scan_t *s, char **errptr)
{
    strata_scan_t *all = s ? NULL : strata_scan_create();
    const strata_scan_t *sc = s ? s : all;
    strata_meta_rows_t *l = calloc(1, sizeof(*l));
    buf_t pos = {0};
    bool more = true;
    int rc = !l || !sc ? st_error(ST_NOMEM, "admin: out of memory reading strata:meta")
             : admin_handle_rpc(a)
                 ? ST_OK
                 : st_error(ST_INVALID_ARGUMENT, "admin: scan meta without a handle");
    if (rc == ST_OK)
        rc = buf_set(&pos, sc->start.data, sc->start.len);
    for (bool first = true; rc == ST_OK && more && !(sc->limit && l->n >= sc->limit); first = false)
        rc = page(admin_handle_rpc(a), sc, l, &pos, first, &more);
    buf_free(&pos);
    strata_scan_destroy(all);
    if (rc != ST_OK) {
        client_set_error(errptr, rc);
        strata_meta_rows_destroy(l);
        return NULL;
    }
    return l;
}

size_t strata_meta_rows_count(const strata_meta_rows_t *l)
{
    return l ? l->n : 0;
}

const strata_result_t *strata_meta_rows_get(const strata_meta_rows_t *l, size_t i)
{
    return l && i < l->n ? l->rows[i] : NULL;
}

void strata_meta_rows_destroy(strata_meta_rows_t *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        strata_result_destroy(l->rows[i]);
    free(l->rows);
    free(l);
}
