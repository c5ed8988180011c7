/*
 * table.c - the single-row operations of a table handle: mutate (put, delete), get,
 * check-and-mutate, increment and append. Each encodes its request per attempt (the
 * region name is part of it) and runs client_region_call's locate/call/retry loop;
 * ClientService.Get and ClientService.Mutate (common/proto/client.proto).
 *
 * Increment and append are not idempotent: a call that timed out after the server
 * applied it may be applied again on retry (as in HBase without nonces).
 *
 * Thread-safety: any number of threads may use one table handle at once.
 */
#include <stdlib.h>
#include <string.h>

#include "client/client_internal.h"
#include "common/bytes.h"
#include "common/cell.h"
#include "common/rpc/rpc_proto.h"
#include "common/scratch.h"
#include "common/status.h"

/* ---- request builders (client_build_fn) ---- */

typedef struct mutate_args {
    const strata_mutation_t *m;
    Strata__Client__Condition *cond; /* NULL: unconditional */
} mutate_args;

static int build_mutate(void *arg, const char *region, buf_t *req)
{
    mutate_args *a = arg;
    Strata__Client__MutateRequest mr = STRATA__CLIENT__MUTATE_REQUEST__INIT;
    Strata__Client__RegionSpecifier rs = STRATA__CLIENT__REGION_SPECIFIER__INIT;
    mutation_pb pb;
    int rc = mutation_pb_build(&pb, a->m);
    if (rc != ST_OK)
        return rc;
    rs.encoded_name = (char *)region;
    mr.region = &rs;
    mr.mutation = &pb.msg;
    mr.condition = a->cond;
    rc = rpc_proto_pack(&mr.base, req);
    mutation_pb_clear(&pb);
    return rc;
}

static int build_get(void *arg, const char *region, buf_t *req)
{
    const strata_get_t *g = arg;
    Strata__Client__GetRequest gr = STRATA__CLIENT__GET_REQUEST__INIT;
    Strata__Client__RegionSpecifier rs = STRATA__CLIENT__REGION_SPECIFIER__INIT;
    get_pb pb;
    int rc = get_pb_build(&pb, g);
    if (rc != ST_OK)
        return rc;
    rs.encoded_name = (char *)region;
    gr.region = &rs;
    gr.get = &pb.msg;
    rc = rpc_proto_pack(&gr.base, req);
    get_pb_clear(&pb);
    return rc;
}

/* ---- mutate ---- */

/* Sends m (with an optional condition); ST_OK with the unpacked response in *out
 * (NULL allowed: dropped). */
static int run_mutate(strata_table_t *t, const strata_mutation_t *m,
                      Strata__Client__Condition *cond, Strata__Client__MutateResponse **out)
{
    mutate_args a = {m, cond};
    buf_t resp = {0};
    int rc = client_region_call(t->c, t->name, m->row.data, m->row.len, "ClientService.Mutate",
                                build_mutate, &a, &resp);
    Strata__Client__MutateResponse *mr = NULL;
    if (rc == ST_OK) {
        mr = strata__client__mutate_response__unpack(NULL, resp.len, resp.data);
        if (!mr)
            rc = st_error(ST_PROTOCOL, "client: undecodable Mutate response for table %s", t->name);
    }
    buf_free(&resp);
    if (out)
        *out = mr;
    else if (mr)
        strata__client__mutate_response__free_unpacked(mr, NULL);
    return rc;
}

void strata_table_mutate(strata_table_t *t, const strata_mutation_t *m, char **errptr)
{
    if (m->kind == MUT_PUT && m->ncells == 0) {
        client_set_error_msg(errptr, "invalid argument: a put needs at least one cell");
        return;
    }
    int rc = run_mutate(t, m, NULL, NULL);
    if (rc != ST_OK)
        client_set_error(errptr, rc);
}

void strata_table_put(strata_table_t *t, const strata_mutation_t *put, char **errptr)
{
    strata_table_mutate(t, put, errptr);
}

void strata_table_delete(strata_table_t *t, const strata_mutation_t *del, char **errptr)
{
    strata_table_mutate(t, del, errptr);
}

unsigned char strata_table_check_and_mutate(strata_table_t *t, const char *family,
                                            size_t family_len, const char *qualifier,
                                            size_t qualifier_len, strata_compare_op op,
                                            const char *value, size_t value_len,
                                            const strata_mutation_t *m, char **errptr)
{
    Strata__Client__Condition cond = STRATA__CLIENT__CONDITION__INIT;
    Strata__Client__MutateResponse *mr = NULL;
    cond.family.data = (uint8_t *)family;
    cond.family.len = family_len;
    cond.qualifier.data = (uint8_t *)qualifier;
    cond.qualifier.len = qualifier_len;
    cond.compare_op = (Strata__Client__CompareOp)op;
    cond.has_value = value != NULL;
    cond.value.data = (uint8_t *)value;
    cond.value.len = value ? value_len : 0;
    int rc = run_mutate(t, m, &cond, &mr);
    unsigned char ok = rc == ST_OK && mr->has_processed && mr->processed;
    if (rc != ST_OK)
        client_set_error(errptr, rc);
    if (mr)
        strata__client__mutate_response__free_unpacked(mr, NULL);
    return ok;
}

/* Runs a one-cell increment or append and copies the new value of the column. */
static int read_modify_write(strata_table_t *t, mut_kind kind, const char *row, size_t row_len,
                             const char *family, size_t family_len, const char *qualifier,
                             size_t qualifier_len, const void *val, size_t val_len, buf_t *out)
{
    strata_mutation_t *m = mutation_new(kind, row, row_len);
    Strata__Client__MutateResponse *mr = NULL;
    mutation_add(m, family, family_len, qualifier, qualifier_len, true, CELL_LATEST_TIMESTAMP,
                 CELL_TYPE_PUT, val, val_len);
    int rc = run_mutate(t, m, NULL, &mr);
    if (rc == ST_OK) {
        const Strata__Client__Result *r = mr->result;
        const Strata__Client__Cell *c = NULL;
        for (size_t i = 0; r && i < r->n_cell && !c; i++)
            if (r->cell[i]->family.len == family_len &&
                r->cell[i]->qualifier.len == qualifier_len &&
                memcmp(r->cell[i]->family.data, family, family_len) == 0 &&
                (qualifier_len == 0 ||
                 memcmp(r->cell[i]->qualifier.data, qualifier, qualifier_len) == 0))
                c = r->cell[i];
        if (!c)
            rc = st_error(ST_PROTOCOL, "client: %s of table %s answered without the new cell",
                          kind == MUT_INCREMENT ? "increment" : "append", t->name);
        else
            rc = buf_set(out, c->value.data, c->value.len);
    }
    if (mr)
        strata__client__mutate_response__free_unpacked(mr, NULL);
    strata_mutation_destroy(m);
    return rc;
}

int64_t strata_table_increment(strata_table_t *t, const char *row, size_t row_len,
                               const char *family, size_t family_len, const char *qualifier,
                               size_t qualifier_len, int64_t amount, char **errptr)
{
    uint8_t be[8];
    buf_t v = {0};
    int64_t result = 0;
    be64_put(be, (uint64_t)amount);
    int rc = read_modify_write(t, MUT_INCREMENT, row, row_len, family, family_len, qualifier,
                               qualifier_len, be, sizeof(be), &v);
    if (rc == ST_OK && v.len != 8)
        rc = st_error(ST_PROTOCOL, "client: increment of table %s answered a %zu-byte value",
                      t->name, v.len);
    if (rc == ST_OK)
        result = (int64_t)be64_get(v.data);
    else
        client_set_error(errptr, rc);
    buf_free(&v);
    return result;
}

char *strata_table_append(strata_table_t *t, const char *row, size_t row_len, const char *family,
                          size_t family_len, const char *qualifier, size_t qualifier_len,
                          const char *value, size_t value_len, size_t *new_len, char **errptr)
{
    buf_t v = {0};
    char *out = NULL;
    int rc = read_modify_write(t, MUT_APPEND, row, row_len, family, family_len, qualifier,
                               qualifier_len, value, value_len, &v);
    if (rc == ST_OK && !(out = malloc(v.len + 1)))
        rc = st_error(ST_NOMEM, "client: out of memory");
    if (rc == ST_OK) {
        if (v.len)
            memcpy(out, v.data, v.len);
        out[v.len] = '\0';
        *new_len = v.len;
    } else {
        client_set_error(errptr, rc);
    }
    buf_free(&v);
    return out;
}

strata_result_t *strata_table_read_modify_write(strata_table_t *t, const strata_mutation_t *m,
                                                char **errptr)
{
    if (m->kind != MUT_INCREMENT && m->kind != MUT_APPEND) {
        client_set_error_msg(errptr, "invalid argument: strata_table_read_modify_write takes an "
                                     "increment or an append");
        return NULL;
    }
    if (m->ncells == 0) {
        client_set_error_msg(errptr, "invalid argument: an increment or append needs a column");
        return NULL;
    }
    Strata__Client__MutateResponse *mr = NULL;
    strata_result_t *res = NULL;
    int rc = run_mutate(t, m, NULL, &mr);
    if (rc == ST_OK && !mr->result)
        rc = st_error(ST_PROTOCOL, "client: %s of table %s answered without the new cells",
                      m->kind == MUT_INCREMENT ? "increment" : "append", t->name);
    if (rc == ST_OK && !(res = result_from_pb(mr->result, m->row.data, m->row.len)))
        rc = st_error(ST_NOMEM, "client: out of memory");
    if (mr)
        strata__client__mutate_response__free_unpacked(mr, NULL);
    if (rc != ST_OK)
        client_set_error(errptr, rc);
    return res;
}

/* ---- get ---- */

strata_result_t *strata_table_get(strata_table_t *t, const strata_get_t *g, char **errptr)
{
    buf_t resp = {0};
    strata_result_t *res = NULL;
    int rc = client_region_call(t->c, t->name, g->row.data, g->row.len, "ClientService.Get",
                                build_get, (void *)g, &resp);
    if (rc == ST_OK) {
        scratch_t sc = {0}; /* the decoded answer, until it is copied into the result */
        ProtobufCAllocator al = scratch_protobuf_allocator(&sc);
        Strata__Client__GetResponse *gr =
            strata__client__get_response__unpack(&al, resp.len, resp.data);
        if (!gr)
            rc = st_error(ST_PROTOCOL, "client: undecodable Get response for table %s", t->name);
        else if (!(res = result_from_pb(gr->result, g->row.data, g->row.len)))
            rc = st_error(ST_NOMEM, "client: out of memory");
        scratch_free(&sc);
    }
    buf_free(&resp);
    if (rc != ST_OK)
        client_set_error(errptr, rc);
    return res;
}
