/*
 * rs_convert.c - the region server's conversions between protobuf messages
 * (common/proto/client.proto, admin.proto) and the engine's structs: schemas, region
 * infos, read specs, results, mutations; plus the response pool and error context.
 *
 * Conversions borrow: a cell_t or scan_spec made from a message points into it, and a
 * message made from a result points into the result, so each lives as long as its source.
 * Thread-safety: pure functions over caller-owned data.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/status.h"
#include "regionserver/storage/filter_parse.h"
#include "regionserver/rs_internal.h"

/* ---- pool ---- */

struct rs_pool_result_node {
    scan_result res;
    rs_pool_result_node *next;
};

void *rs_pool_alloc(rs_pool *p, size_t size)
{
    return scratch_alloc(&p->mem, size);
}

scan_result *rs_pool_result(rs_pool *p)
{
    rs_pool_result_node *n = scratch_alloc_raw(&p->mem, sizeof(*n));
    if (!n)
        return NULL;
    scan_result_init(&n->res);
    n->next = p->results;
    p->results = n;
    return &n->res;
}

void rs_pool_free(rs_pool *p)
{
    for (rs_pool_result_node *n = p->results; n; n = n->next)
        scan_result_free(&n->res);
    p->results = NULL;
    scratch_free(&p->mem);
}

/* ---- messages ---- */

int rs_check_serving(rs_server *s, rpc_reply *reply)
{
    if (atomic_load(&s->serving))
        return ST_OK;
    reply->retry_after_ms = 100;
    return st_error(ST_SERVER_BUSY, "region server %s is starting or stopping",
                    s->server_name[0] ? s->server_name : "(unnamed)");
}

int rs_error_ctx(int rc, const char *region_name, const uint8_t *row, size_t row_len)
{
    char why[512], printable[80];
    snprintf(why, sizeof(why), "%s", st_errmsg());
    size_t o = 0;
    for (size_t i = 0; i < row_len && o + 5 < sizeof(printable); i++) {
        uint8_t c = row[i];
        if (c >= 0x20 && c < 0x7f && c != '\\' && c != '\'')
            printable[o++] = (char)c;
        else
            o += (size_t)snprintf(printable + o, sizeof(printable) - o, "\\x%02x", c);
    }
    printable[o] = 0;
    if (strstr(why, region_name)) /* the message names the region already */
        return st_error(rc, "%s (row '%s%s')", why, printable,
                        o + 5 >= sizeof(printable) ? "..." : "");
    return st_error(rc, "%s (region %s, row '%s%s')", why, region_name, printable,
                    o + 5 >= sizeof(printable) ? "..." : "");
}

/* ---- admin ---- */

void rs_load_to_proto(region *r, Strata__Admin__RegionLoad *out)
{
    region_stats st;
    region_get_stats(r, &st);
    const region_info *i = region_get_info(r);
    strata__admin__region_load__init(out);
    out->encoded_name = (char *)i->encoded_name;
    out->table = (char *)i->table;
    out->has_read_requests = out->has_write_requests = out->has_memstore_size = 1;
    out->has_store_files = out->has_store_file_size = out->has_max_flushed_seq = 1;
    out->read_requests = st.read_requests;
    out->write_requests = st.write_requests;
    out->memstore_size = st.memstore_size;
    out->store_files = st.store_files;
    out->store_file_size = st.store_file_size;
    out->max_flushed_seq = st.max_flushed_seq;
}

int rs_server_loads(rs_server *s, rs_pool *pool, rs_loads *out)
{
    memset(out, 0, sizeof(*out));
    rs_region **list = NULL;
    size_t n = 0;
    int rc = rs_region_list(s, &list, &n);
    Strata__Admin__RegionLoad **ptrs = rs_pool_alloc(pool, n * sizeof(*ptrs));
    Strata__Admin__RegionLoad *loads = rs_pool_alloc(pool, n * sizeof(*loads));
    if (rc == ST_OK && (!ptrs || !loads))
        rc = st_error(ST_NOMEM, "region server %s: out of memory collecting loads",
                      s->server_name);
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        rs_load_to_proto(list[i]->r, &loads[i]);
        ptrs[i] = &loads[i];
        out->read_requests += loads[i].read_requests;
        out->write_requests += loads[i].write_requests;
        out->memstore_size += loads[i].memstore_size;
        out->store_files += loads[i].store_files;
        out->store_file_size += loads[i].store_file_size;
    }
    out->held = list;
    out->nheld = n;
    if (rc == ST_OK) {
        out->region = ptrs;
        out->n = n;
    }
    return rc;
}

void rs_loads_release(rs_server *s, rs_loads *l)
{
    for (size_t i = 0; i < l->nheld; i++)
        rs_region_release(s, l->held[i]);
    free(l->held);
    l->held = NULL;
    l->nheld = 0;
}

/* ---- reads ---- */

static int unknown_family(region *r, const uint8_t *fam, size_t len)
{
    return st_error(ST_UNKNOWN_FAMILY, "region %s of %s: unknown column family '%.*s'",
                    region_get_info(r)->encoded_name, region_get_info(r)->table, (int)len,
                    (const char *)fam);
}

static int read_options(region *r, Strata__Client__Column **cols, size_t ncols, bool has_mv,
                        uint32_t mv, const Strata__Client__TimeRange *tr, const char *ftext,
                        rs_pool *pool, scan_spec *spec, filter **flt)
{
    *flt = NULL;
    scan_column *sc = rs_pool_alloc(pool, ncols * sizeof(*sc));
    if (!sc)
        return st_error(ST_NOMEM, "out of memory");
    const table_schema *schema = region_get_schema(r);
    for (size_t i = 0; i < ncols; i++) {
        const Strata__Client__Column *c = cols[i];
        if (table_schema_find_family(schema, c->family.data, c->family.len) < 0)
            return unknown_family(r, c->family.data, c->family.len);
        sc[i].family = c->family.data;
        sc[i].family_len = c->family.len;
        if (c->has_qualifier) {
            sc[i].qualifier = c->qualifier.data ? c->qualifier.data : (const uint8_t *)"";
            sc[i].qualifier_len = c->qualifier.len;
        }
    }
    spec->columns = ncols ? sc : NULL;
    spec->ncolumns = ncols;
    spec->max_versions = has_mv ? (int)(mv > INT32_MAX ? INT32_MAX : mv) : 1;
    if (tr) {
        spec->min_ts = tr->has_from ? tr->from : 0;
        spec->max_ts = tr->has_to ? tr->to : 0;
        if (tr->has_to && tr->to <= spec->min_ts)
            return st_error(ST_INVALID_ARGUMENT, "time range [%" PRId64 ", %" PRId64
                            ") is empty", spec->min_ts, tr->to);
    }
    if (ftext && *ftext) {
        int rc = filter_parse(ftext, flt);
        if (rc != ST_OK)
            return rc;
        spec->filter = *flt;
    }
    return ST_OK;
}

int rs_spec_from_get(region *r, const Strata__Client__Get *g, rs_pool *pool, scan_spec *spec,
                     filter **flt)
{
    memset(spec, 0, sizeof(*spec));
    return read_options(r, g->column, g->n_column, g->has_max_versions, g->max_versions,
                        g->time_range, g->filter, pool, spec, flt);
}

int rs_spec_from_scan(region *r, const Strata__Client__Scan *sc, rs_pool *pool,
                      scan_spec *spec, filter **flt)
{
    memset(spec, 0, sizeof(*spec));
    if (sc->has_start_row) {
        spec->start_row = sc->start_row.data;
        spec->start_row_len = sc->start_row.len;
    }
    if (sc->has_stop_row) {
        spec->stop_row = sc->stop_row.data;
        spec->stop_row_len = sc->stop_row.len;
    }
    spec->reversed = sc->has_reversed && sc->reversed;
    spec->raw = sc->has_raw && sc->raw;
    spec->limit = sc->has_limit ? (int64_t)(sc->limit > INT64_MAX ? INT64_MAX : sc->limit) : 0;
    spec->batch = sc->has_batch ? (int)(sc->batch > INT32_MAX ? INT32_MAX : sc->batch) : 0;
    spec->mode = SCAN_MODE_USER;
    return read_options(r, sc->column, sc->n_column, sc->has_max_versions, sc->max_versions,
                        sc->time_range, sc->filter, pool, spec, flt);
}

int rs_result_to_proto(const scan_result *res, rs_pool *pool, Strata__Client__Result *out)
{
    strata__client__result__init(out);
    Strata__Client__Cell **ptrs = rs_pool_alloc(pool, res->ncells * sizeof(*ptrs));
    Strata__Client__Cell *cells = rs_pool_alloc(pool, res->ncells * sizeof(*cells));
    if (!ptrs || !cells)
        return st_error(ST_NOMEM, "out of memory building a result of %zu cells", res->ncells);
    for (size_t i = 0; i < res->ncells; i++) {
        const cell_t *c = &res->cells[i];
        Strata__Client__Cell *p = &cells[i];
        strata__client__cell__init(p);
        p->has_row = p->has_family = p->has_qualifier = p->has_timestamp = 1;
        p->has_type = p->has_value = 1;
        p->row = (ProtobufCBinaryData){c->row_len, (uint8_t *)c->row};
        p->family = (ProtobufCBinaryData){c->family_len, (uint8_t *)c->family};
        p->qualifier = (ProtobufCBinaryData){c->qualifier_len, (uint8_t *)c->qualifier};
        p->value = (ProtobufCBinaryData){c->value_len, (uint8_t *)c->value};
        p->timestamp = c->ts;
        p->type = c->type;
        ptrs[i] = p;
    }
    out->n_cell = res->ncells;
    out->cell = ptrs;
    if (res->partial) {
        out->has_partial = 1;
        out->partial = 1;
    }
    return ST_OK;
}

/* ---- writes ---- */

static bool valid_delete_type(uint32_t t)
{
    return t == CELL_TYPE_DELETE || t == CELL_TYPE_DELETE_COLUMN ||
           t == CELL_TYPE_DELETE_FAMILY || t == CELL_TYPE_DELETE_FAMILY_VERSION;
}

/* A Put's cells are puts; a Delete's are delete types (absent: DeleteColumn with a
 * qualifier, DeleteFamily without one). */
static int cell_type_of(const Strata__Client__MutationProto *m, const Strata__Client__Cell *c,
                        uint8_t *type)
{
    if (m->mutate_type == STRATA__CLIENT__MUTATION_PROTO__MUTATION_TYPE__DELETE) {
        if (!c->has_type)
            *type = c->has_qualifier ? CELL_TYPE_DELETE_COLUMN : CELL_TYPE_DELETE_FAMILY;
        else if (valid_delete_type(c->type))
            *type = (uint8_t)c->type;
        else
            return st_error(ST_INVALID_ARGUMENT, "a Delete carries a cell of type %u", c->type);
        return ST_OK;
    }
    if (c->has_type && c->type != CELL_TYPE_PUT)
        return st_error(ST_INVALID_ARGUMENT, "a Put carries a cell of type %u", c->type);
    *type = CELL_TYPE_PUT;
    return ST_OK;
}

static void cell_from_proto(const Strata__Client__MutationProto *m, const Strata__Client__Cell *c,
                            uint8_t type, cell_t *out)
{
    memset(out, 0, sizeof(*out));
    out->row = m->row.data;
    out->row_len = (uint32_t)m->row.len;
    out->family = c->family.data;
    out->family_len = (uint32_t)c->family.len;
    out->qualifier = c->qualifier.data ? c->qualifier.data : (const uint8_t *)"";
    out->qualifier_len = (uint32_t)c->qualifier.len;
    out->value = c->value.data ? c->value.data : (const uint8_t *)"";
    out->value_len = (uint32_t)c->value.len;
    out->ts = c->has_timestamp ? c->timestamp : CELL_LATEST_TIMESTAMP;
    out->type = type;
}

/* A Delete without cells deletes the whole row: a DeleteFamily per family. */
static int row_delete_cells(region *r, const Strata__Client__MutationProto *m, rs_pool *pool,
                            mutation *out)
{
    const table_schema *schema = region_get_schema(r);
    cell_t *cells = rs_pool_alloc(pool, schema->nfamilies * sizeof(*cells));
    if (!cells)
        return st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; i < schema->nfamilies; i++) {
        cells[i].row = m->row.data;
        cells[i].row_len = (uint32_t)m->row.len;
        cells[i].family = (const uint8_t *)schema->families[i].name;
        cells[i].family_len = (uint32_t)strlen(schema->families[i].name);
        cells[i].qualifier = cells[i].value = (const uint8_t *)"";
        cells[i].ts = CELL_LATEST_TIMESTAMP;
        cells[i].type = CELL_TYPE_DELETE_FAMILY;
    }
    out->cells = cells;
    out->ncells = schema->nfamilies;
    return ST_OK;
}

int rs_mutation_from_proto(region *r, const Strata__Client__MutationProto *m, rs_pool *pool,
                           mutation *out)
{
    memset(out, 0, sizeof(*out));
    out->row = m->row.data;
    out->row_len = m->row.len;
    out->durability = m->has_durability ? (durability)m->durability : DURABILITY_USE_DEFAULT;
    if (out->durability > DURABILITY_FSYNC_WAL)
        return st_error(ST_INVALID_ARGUMENT, "durability %u is not 0..4", (unsigned)m->durability);
    if (m->mutate_type == STRATA__CLIENT__MUTATION_PROTO__MUTATION_TYPE__DELETE && !m->n_cell)
        return row_delete_cells(r, m, pool, out);
    if (!m->n_cell)
        return st_error(ST_INVALID_ARGUMENT, "a Put without cells");
    cell_t *cells = rs_pool_alloc(pool, m->n_cell * sizeof(*cells));
    if (!cells)
        return st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; i < m->n_cell; i++) {
        uint8_t type = 0;
        int rc = cell_type_of(m, m->cell[i], &type);
        if (rc != ST_OK)
            return rc;
        cell_from_proto(m, m->cell[i], type, &cells[i]);
    }
    out->cells = cells;
    out->ncells = m->n_cell;
    return ST_OK;
}

/* Increment: result cells carry the new 8-byte big-endian values. */
static int do_increment(region *r, const Strata__Client__MutationProto *m, rs_pool *pool,
                        Strata__Client__Result **result)
{
    size_t n = m->n_cell;
    cell_t *cols = rs_pool_alloc(pool, n * sizeof(*cols));
    int64_t *amounts = rs_pool_alloc(pool, n * sizeof(*amounts));
    int64_t *news = rs_pool_alloc(pool, n * sizeof(*news));
    uint8_t *vals = rs_pool_alloc(pool, n * 8);
    scan_result *res = rs_pool_result(pool);
    if (!cols || !amounts || !news || !vals || !res)
        return st_error(ST_NOMEM, "out of memory");
    if (!n)
        return st_error(ST_INVALID_ARGUMENT, "an Increment without cells");
    for (size_t i = 0; i < n; i++) {
        const Strata__Client__Cell *c = m->cell[i];
        if (c->value.len != 8)
            return st_error(ST_INVALID_ARGUMENT, "Increment of %.*s: the amount has %zu bytes, "
                            "not 8", (int)c->family.len, (const char *)c->family.data,
                            c->value.len);
        cell_from_proto(m, c, CELL_TYPE_PUT, &cols[i]);
        amounts[i] = (int64_t)be64_get(c->value.data);
    }
    durability d = m->has_durability ? (durability)m->durability : DURABILITY_USE_DEFAULT;
    int rc = region_increment(r, m->row.data, m->row.len, cols, amounts, n, d, news);
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        be64_put(vals + 8 * i, (uint64_t)news[i]);
        cols[i].value = vals + 8 * i;
        cols[i].value_len = 8;
        rc = scan_result_add(res, &cols[i]);
    }
    if (rc == ST_OK && result && (*result = rs_pool_alloc(pool, sizeof(**result))))
        rc = rs_result_to_proto(res, pool, *result);
    return rc;
}

static int do_append(region *r, const Strata__Client__MutationProto *m, rs_pool *pool,
                     Strata__Client__Result **result)
{
    size_t n = m->n_cell;
    cell_t *cols = rs_pool_alloc(pool, n * sizeof(*cols));
    scan_result *res = rs_pool_result(pool);
    if (!cols || !res)
        return st_error(ST_NOMEM, "out of memory");
    if (!n)
        return st_error(ST_INVALID_ARGUMENT, "an Append without cells");
    for (size_t i = 0; i < n; i++)
        cell_from_proto(m, m->cell[i], CELL_TYPE_PUT, &cols[i]);
    durability d = m->has_durability ? (durability)m->durability : DURABILITY_USE_DEFAULT;
    int rc = region_append(r, m->row.data, m->row.len, cols, n, d, res);
    if (rc == ST_OK && result && (*result = rs_pool_alloc(pool, sizeof(**result))))
        rc = rs_result_to_proto(res, pool, *result);
    return rc;
}

static int do_check_and_mutate(region *r, const Strata__Client__MutationProto *m,
                               const Strata__Client__Condition *cond, rs_pool *pool,
                               bool *processed)
{
    if (m->mutate_type != STRATA__CLIENT__MUTATION_PROTO__MUTATION_TYPE__PUT &&
        m->mutate_type != STRATA__CLIENT__MUTATION_PROTO__MUTATION_TYPE__DELETE)
        return st_error(ST_INVALID_ARGUMENT, "CheckAndMutate takes a Put or a Delete");
    if ((unsigned)cond->compare_op > CMP_GREATER)
        return st_error(ST_INVALID_ARGUMENT, "compare op %d is unknown", (int)cond->compare_op);
    mutation mu;
    int rc = rs_mutation_from_proto(r, m, pool, &mu);
    if (rc != ST_OK)
        return rc;
    return region_check_and_mutate(r, m->row.data, m->row.len, cond->family.data,
                                   cond->family.len, cond->qualifier.data, cond->qualifier.len,
                                   (compare_op)cond->compare_op,
                                   cond->has_value ? cond->value.data : NULL,
                                   cond->has_value ? cond->value.len : 0, &mu, processed);
}

int rs_mutate(region *r, const Strata__Client__MutationProto *m,
              const Strata__Client__Condition *cond, rs_pool *pool, Strata__Client__Result **result,
              bool *processed)
{
    if (result)
        *result = NULL;
    *processed = true;
    int rc = rs_attrs_check(r, cond ? "CheckAndMutate" : rs_mutation_kind(m), m->row.data,
                            m->row.len, m->attribute, m->n_attribute);
    if (rc != ST_OK)
        return rc; /* names the region and row already */
    if (cond)
        rc = do_check_and_mutate(r, m, cond, pool, processed);
    else if (m->mutate_type == STRATA__CLIENT__MUTATION_PROTO__MUTATION_TYPE__INCREMENT)
        rc = do_increment(r, m, pool, result);
    else if (m->mutate_type == STRATA__CLIENT__MUTATION_PROTO__MUTATION_TYPE__APPEND)
        rc = do_append(r, m, pool, result);
    else {
        mutation mu;
        rc = rs_mutation_from_proto(r, m, pool, &mu);
        if (rc == ST_OK)
            rc = region_mutate(r, &mu);
    }
    if (rc != ST_OK)
        rc = rs_error_ctx(rc, region_get_info(r)->encoded_name, m->row.data, m->row.len);
    return rc;
}
