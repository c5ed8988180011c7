/*
 * master_service_meta.c - MasterService.ScanMeta (common/proto/master.proto;
 * docs/master.md, docs/formats/meta.md): the catalog read as rows, cells as stored, for
 * operators (the shell's scan 'strata:meta'). Read-only: nothing here writes meta.
 *
 * One call answers one page: at most the request's limit, META_PAGE_ROWS rows and about
 * META_PAGE_BYTES bytes of cells; `more` tells the client to ask again from the last row
 * answered, exclusive (start_exclusive drops a first row equal to start_row, which is
 * how both a forward and a reversed scan resume).
 *
 * Thread-safety: handlers run on RPC handler threads; the read is one region scanner's
 * snapshot of meta and takes no master lock.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rpc/rpc_proto.h"
#include "common/status.h"
#include "master/master_internal.h"
#include "regionserver/storage/filter_parse.h"

#define META_PAGE_ROWS 1000
#define META_PAGE_BYTES (4u << 20)
#define PAGE_FULL 1 /* add_row's "stop here": not a status */

/* The rows of one answer, each a Result owning copies of its cells. */
typedef struct meta_page {
    const Strata__Master__ScanMetaRequest *rq;
    Strata__Client__Result **rows;
    size_t n, cap;
    size_t bytes;
    size_t max_rows;
    bool full; /* stopped at a page limit: more may follow */
} meta_page;

static bool same_row(const scan_result *row, const ProtobufCBinaryData *key)
{
    const cell_t *c = &row->cells[0];
    return c->row_len == key->len && (key->len == 0 || memcmp(c->row, key->data, key->len) == 0);
}

static int copy_bytes(ProtobufCBinaryData *dst, const uint8_t *src, size_t len)
{
    dst->len = len;
    dst->data = malloc(len ? len : 1);
    if (!dst->data)
        return st_error(ST_NOMEM, "out of memory answering ScanMeta");
    if (len)
        memcpy(dst->data, src, len);
    return ST_OK;
}

/* A Result holding copies of row's cells (freed with protobuf_c_message_free_unpacked). */
static int row_result(const scan_result *row, Strata__Client__Result **out)
{
    Strata__Client__Result *r = calloc(1, sizeof(*r));
    int rc = r ? ST_OK : st_error(ST_NOMEM, "out of memory answering ScanMeta");
    if (r) {
        strata__client__result__init(r);
        r->cell = calloc(row->ncells, sizeof(*r->cell));
        rc = r->cell ? ST_OK : st_error(ST_NOMEM, "out of memory answering ScanMeta");
    }
    for (size_t i = 0; rc == ST_OK && i < row->ncells; i++) {
        const cell_t *c = &row->cells[i];
        Strata__Client__Cell *p = calloc(1, sizeof(*p));
        if (!p) {
            rc = st_error(ST_NOMEM, "out of memory answering ScanMeta");
            break;
        }
        strata__client__cell__init(p);
        r->cell[r->n_cell++] = p;
        p->has_row = p->has_family = p->has_qualifier = p->has_value = 1;
        p->has_timestamp = p->has_type = 1;
        p->timestamp = c->ts;
        p->type = c->type;
        rc = copy_bytes(&p->row, c->row, c->row_len);
        if (rc == ST_OK)
            rc = copy_bytes(&p->family, c->family, c->family_len);
        if (rc == ST_OK)
            rc = copy_bytes(&p->qualifier, c->qualifier, c->qualifier_len);
        if (rc == ST_OK)
            rc = copy_bytes(&p->value, c->value, c->value_len);
    }
    if (rc != ST_OK && r)
        protobuf_c_message_free_unpacked(&r->base, NULL);
    *out = rc == ST_OK ? r : NULL;
    return rc;
}

static size_t row_bytes(const scan_result *row)
{
    size_t n = 0;
    for (size_t i = 0; i < row->ncells; i++)
        n += row->cells[i].row_len + row->cells[i].family_len + row->cells[i].qualifier_len +
             row->cells[i].value_len + 16;
    return n;
}

static int add_row(const scan_result *row, void *arg)
{
    meta_page *pg = arg;
    const Strata__Master__ScanMetaRequest *rq = pg->rq;
    if (pg->n == 0 && rq->has_start_exclusive && rq->start_exclusive && rq->has_start_row &&
        same_row(row, &rq->start_row))
        return ST_OK;
    if (pg->n == pg->max_rows || (pg->n > 0 && pg->bytes >= META_PAGE_BYTES)) {
        pg->full = true;
        return PAGE_FULL;
    }
    if (pg->n == pg->cap) {
        size_t nc = pg->cap ? pg->cap * 2 : 64;
        Strata__Client__Result **v = realloc(pg->rows, nc * sizeof(*v));
        if (!v)
            return st_error(ST_NOMEM, "out of memory answering ScanMeta");
        pg->rows = v;
        pg->cap = nc;
    }
    int rc = row_result(row, &pg->rows[pg->n]);
    if (rc == ST_OK) {
        pg->n++;
        pg->bytes += row_bytes(row);
    }
    return rc;
}

static void page_free(meta_page *pg)
{
    for (size_t i = 0; i < pg->n; i++)
        protobuf_c_message_free_unpacked(&pg->rows[i]->base, NULL);
    free(pg->rows);
}

/* The request as a user scan over meta; cols and *flt are the caller's to free. */
static int meta_spec(const Strata__Master__ScanMetaRequest *rq, scan_spec *spec, scan_column **cols,
                     filter **flt)
{
    memset(spec, 0, sizeof(*spec));
    *flt = NULL;
    *cols = calloc(rq->n_column ? rq->n_column : 1, sizeof(**cols));
    if (!*cols)
        return st_error(ST_NOMEM, "out of memory answering ScanMeta");
    for (size_t i = 0; i < rq->n_column; i++) {
        const Strata__Client__Column *c = rq->column[i];
        (*cols)[i].family = c->family.data;
        (*cols)[i].family_len = c->family.len;
        if (c->has_qualifier) {
            (*cols)[i].qualifier = c->qualifier.data ? c->qualifier.data : (const uint8_t *)"";
            (*cols)[i].qualifier_len = c->qualifier.len;
        }
    }
    spec->columns = rq->n_column ? *cols : NULL;
    spec->ncolumns = rq->n_column;
    if (rq->has_start_row) {
        spec->start_row = rq->start_row.data;
        spec->start_row_len = rq->start_row.len;
    }
    if (rq->has_stop_row) {
        spec->stop_row = rq->stop_row.data;
        spec->stop_row_len = rq->stop_row.len;
    }
    spec->reversed = rq->has_reversed && rq->reversed;
    spec->raw = rq->has_raw && rq->raw;
    spec->max_versions = rq->has_max_versions
                             ? (int)(rq->max_versions > INT32_MAX ? INT32_MAX : rq->max_versions)
                             : 1;
    if (rq->time_range) {
        spec->min_ts = rq->time_range->has_from ? rq->time_range->from : 0;
        spec->max_ts = rq->time_range->has_to ? rq->time_range->to : 0;
        if (rq->time_range->has_to && rq->time_range->to <= spec->min_ts)
            return st_error(ST_INVALID_ARGUMENT,
                            "%s: time range [%" PRId64 ", %" PRId64 ") is empty", META_TABLE_NAME,
                            spec->min_ts, rq->time_range->to);
    }
    if (rq->filter && *rq->filter) {
        int rc = filter_parse(rq->filter, flt);
        if (rc != ST_OK)
            return rc;
        spec->filter = *flt;
    }
    return ST_OK;
}

static int scan_meta_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    const Strata__Master__ScanMetaRequest *rq = (const Strata__Master__ScanMetaRequest *)msg;
    scan_spec spec;
    scan_column *cols = NULL;
    filter *flt = NULL;
    meta_page pg = {.rq = rq, .max_rows = META_PAGE_ROWS};
    if (rq->has_limit && rq->limit > 0 && rq->limit < META_PAGE_ROWS)
        pg.max_rows = rq->limit;
    int rc = meta_spec(rq, &spec, &cols, &flt);
    if (rc == ST_OK)
        rc = meta_scan_rows(m->meta, &spec, add_row, &pg);
    if (rc == PAGE_FULL)
        rc = ST_OK;
    if (rc == ST_OK) {
        Strata__Master__ScanMetaResponse resp = STRATA__MASTER__SCAN_META_RESPONSE__INIT;
        resp.row = pg.rows;
        resp.n_row = pg.n;
        resp.has_more = 1;
        resp.more = pg.full;
        rc = rpc_proto_reply(reply, &resp.base);
    }
    page_free(&pg);
    filter_free(flt);
    free(cols);
    return rc;
}

RPC_PROTO_HANDLER(h_scan_meta, master_rpc_check_active, strata__master__scan_meta_request__descriptor,
                  scan_meta_body)

int master_service_register_meta(master *m)
{
    return rpc_server_register(m->rpc, "MasterService.ScanMeta", h_scan_meta, m);
}
