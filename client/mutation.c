/*
 * mutation.c - the client's builders: mutations (put, the four deletes, increment and
 * append cells), gets, and the read spec gets and scans share; and their protobuf views
 * (client.proto MutationProto, Get, Column, TimeRange; their attributes: op_attrs.c).
 *
 * A builder keeps its byte strings in one growable buffer and refers to them by offset,
 * so adding never invalidates earlier cells; a protobuf view points into the buffer and
 * is built just before packing. Out of memory while building marks nothing: builders
 * grow with the C library's allocator and abort on exhaustion, like LevelDB's C API,
 * whose setters return void.
 *
 * Thread-safety: a builder belongs to one thread at a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client_internal.h"
#include "common/bytes.h"
#include "common/cell.h"
#include "common/log.h"
#include "common/status.h"

static void oom(void)
{
    LOG_ERROR("strata client: out of memory");
    abort();
}

static size_t data_add(buf_t *b, const void *p, size_t n)
{
    size_t off = b->len;
    if (n && buf_append(b, p, n) != ST_OK)
        oom();
    return off;
}

static void *xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz);
    if (!p)
        oom();
    return p;
}

/* ---- mutations ---- */

strata_mutation_t *mutation_new(mut_kind kind, const void *row, size_t row_len)
{
    strata_mutation_t *m = xcalloc(1, sizeof(*m));
    m->kind = kind;
    data_add(&m->row, row, row_len);
    return m;
}

void mutation_add(strata_mutation_t *m, const void *fam, size_t fam_len, const void *qual,
                  size_t qual_len, bool has_qual, int64_t ts, uint8_t type, const void *val,
                  size_t val_len)
{
    if (m->ncells == m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 4;
        mut_cell *nv = realloc(m->cells, nc * sizeof(*nv));
        if (!nv)
            oom();
        m->cells = nv;
        m->cap = nc;
    }
    mut_cell *c = &m->cells[m->ncells++];
    c->fam = data_add(&m->data, fam, fam_len);
    c->fam_len = fam_len;
    c->qual = data_add(&m->data, qual, qual_len);
    c->qual_len = qual_len;
    c->has_qual = has_qual;
    c->val = data_add(&m->data, val, val ? val_len : 0);
    c->val_len = val ? val_len : 0;
    c->ts = ts;
    c->type = type;
}

strata_mutation_t *strata_put_create(const char *row, size_t row_len)
{
    return mutation_new(MUT_PUT, row, row_len);
}

strata_mutation_t *strata_delete_create(const char *row, size_t row_len)
{
    return mutation_new(MUT_DELETE, row, row_len);
}

strata_mutation_t *strata_increment_create(const char *row, size_t row_len)
{
    return mutation_new(MUT_INCREMENT, row, row_len);
}

strata_mutation_t *strata_append_create(const char *row, size_t row_len)
{
    return mutation_new(MUT_APPEND, row, row_len);
}

void strata_increment_add(strata_mutation_t *m, const char *family, size_t family_len,
                          const char *qualifier, size_t qualifier_len, int64_t amount)
{
    uint8_t be[8];
    be64_put(be, (uint64_t)amount);
    mutation_add(m, family, family_len, qualifier, qualifier_len, true, CELL_LATEST_TIMESTAMP,
                 CELL_TYPE_PUT, be, sizeof(be));
}

void strata_append_add(strata_mutation_t *m, const char *family, size_t family_len,
                       const char *qualifier, size_t qualifier_len, const char *value,
                       size_t value_len)
{
    mutation_add(m, family, family_len, qualifier, qualifier_len, true, CELL_LATEST_TIMESTAMP,
                 CELL_TYPE_PUT, value ? value : "", value_len);
}

void strata_mutation_destroy(strata_mutation_t *m)
{
    if (!m)
        return;
    buf_free(&m->row);
    buf_free(&m->data);
    free(m->cells);
    op_attrs_clear(&m->attrs);
    free(m);
}

void strata_put_add(strata_mutation_t *m, const char *family, size_t family_len,
                    const char *qualifier, size_t qualifier_len, int64_t ts, const char *value,
                    size_t value_len)
{
    mutation_add(m, family, family_len, qualifier, qualifier_len, true, ts, CELL_TYPE_PUT,
                 value ? value : "", value_len);
}

void strata_delete_family(strata_mutation_t *m, const char *family, size_t family_len, int64_t ts)
{
    mutation_add(m, family, family_len, NULL, 0, false, ts, CELL_TYPE_DELETE_FAMILY, NULL, 0);
}

void strata_delete_column(strata_mutation_t *m, const char *family, size_t family_len,
                          const char *qualifier, size_t qualifier_len, int64_t ts)
{
    mutation_add(m, family, family_len, qualifier, qualifier_len, true, ts, CELL_TYPE_DELETE_COLUMN,
                 NULL, 0);
}

void strata_delete_version(strata_mutation_t *m, const char *family, size_t family_len,
                           const char *qualifier, size_t qualifier_len, int64_t ts)
{
    mutation_add(m, family, family_len, qualifier, qualifier_len, true, ts, CELL_TYPE_DELETE, NULL,
                 0);
}

strata_mutation_t *mutation_copy(const strata_mutation_t *m)
{
    strata_mutation_t *c = mutation_new(m->kind, m->row.data, m->row.len);
    data_add(&c->data, m->data.data, m->data.len);
    c->cells = xcalloc(m->ncells, sizeof(*c->cells));
    if (m->ncells)
        memcpy(c->cells, m->cells, m->ncells * sizeof(*c->cells));
    c->ncells = c->cap = m->ncells;
    op_attrs_copy(&c->attrs, &m->attrs);
    return c;
}

size_t mutation_size(const strata_mutation_t *m)
{
    return m->row.len + m->data.len + m->ncells * 32 + op_attrs_size(&m->attrs) + 64;
}

static ProtobufCBinaryData bin(const buf_t *b, size_t off, size_t len)
{
    ProtobufCBinaryData d = {len, len ? b->data + off : (uint8_t *)""};
    return d;
}

int mutation_pb_build(mutation_pb *pb, const strata_mutation_t *m)
{
    memset(pb, 0, sizeof(*pb));
    strata__client__mutation_proto__init(&pb->msg);
    pb->msg.row = bin(&m->row, 0, m->row.len);
    pb->msg.mutate_type = (Strata__Client__MutationProto__MutationType)m->kind;
    pb->cells = calloc(m->ncells ? m->ncells : 1, sizeof(*pb->cells));
    pb->ptrs = calloc(m->ncells ? m->ncells : 1, sizeof(*pb->ptrs));
    if (!pb->cells || !pb->ptrs) {
        mutation_pb_clear(pb);
        return st_error(ST_NOMEM, "client: out of memory encoding a mutation");
    }
    for (size_t i = 0; i < m->ncells; i++) {
        const mut_cell *c = &m->cells[i];
        Strata__Client__Cell *pc = &pb->cells[i];
        strata__client__cell__init(pc);
        pc->has_family = 1;
        pc->family = bin(&m->data, c->fam, c->fam_len);
        pc->has_qualifier = c->has_qual;
        pc->qualifier = bin(&m->data, c->qual, c->qual_len);
        pc->has_timestamp = c->ts != CELL_LATEST_TIMESTAMP;
        pc->timestamp = c->ts;
        pc->has_type = c->type != CELL_TYPE_PUT;
        pc->type = c->type;
        pc->has_value = m->kind != MUT_DELETE;
        pc->value = bin(&m->data, c->val, c->val_len);
        pb->ptrs[i] = pc;
    }
    pb->msg.n_cell = m->ncells;
    pb->msg.cell = pb->ptrs;
    int rc = op_attrs_pb_build(&pb->attrs, &m->attrs, &pb->msg.n_attribute, &pb->msg.attribute);
    if (rc != ST_OK)
        mutation_pb_clear(pb);
    return rc;
}

void mutation_pb_clear(mutation_pb *pb)
{
    free(pb->cells);
    free(pb->ptrs);
    pb->cells = NULL;
    pb->ptrs = NULL;
    op_attrs_pb_clear(&pb->attrs);
}

/* ---- read specs and gets ---- */

void read_spec_clear(read_spec *s)
{
    buf_free(&s->data);
    free(s->cols);
    free(s->filter);
    op_attrs_clear(&s->attrs);
    memset(s, 0, sizeof(*s));
}

int read_spec_copy(read_spec *dst, const read_spec *src)
{
    *dst = *src;
    memset(&dst->data, 0, sizeof(dst->data));
    data_add(&dst->data, src->data.data, src->data.len);
    dst->cols = xcalloc(src->ncols, sizeof(*dst->cols));
    if (src->ncols)
        memcpy(dst->cols, src->cols, src->ncols * sizeof(*dst->cols));
    dst->cap = src->ncols;
    dst->filter = src->filter ? strdup(src->filter) : NULL;
    if (src->filter && !dst->filter)
        oom();
    op_attrs_copy(&dst->attrs, &src->attrs);
    return ST_OK;
}

void read_spec_add_column(read_spec *s, const void *fam, size_t fam_len, const void *qual,
                          size_t qual_len)
{
    if (s->ncols == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 4;
        get_column *nv = realloc(s->cols, nc * sizeof(*nv));
        if (!nv)
            oom();
        s->cols = nv;
        s->cap = nc;
    }
    get_column *c = &s->cols[s->ncols++];
    c->fam = data_add(&s->data, fam, fam_len);
    c->fam_len = fam_len;
    c->has_qual = qual != NULL;
    c->qual = data_add(&s->data, qual, qual ? qual_len : 0);
    c->qual_len = qual ? qual_len : 0;
}

strata_get_t *strata_get_create(const char *row, size_t row_len)
{
    strata_get_t *g = xcalloc(1, sizeof(*g));
    data_add(&g->row, row, row_len);
    return g;
}

void strata_get_destroy(strata_get_t *g)
{
    if (!g)
        return;
    buf_free(&g->row);
    read_spec_clear(&g->spec);
    free(g);
}

void strata_get_add_column(strata_get_t *g, const char *family, size_t family_len,
                           const char *qualifier, size_t qualifier_len)
{
    read_spec_add_column(&g->spec, family, family_len, qualifier, qualifier_len);
}

void strata_get_set_max_versions(strata_get_t *g, uint32_t n)
{
    g->spec.max_versions = n;
}

void strata_get_set_time_range(strata_get_t *g, int64_t from, int64_t to)
{
    g->spec.has_range = true;
    g->spec.from = from;
    g->spec.to = to;
}

void strata_get_set_filter(strata_get_t *g, const char *filter)
{
    free(g->spec.filter);
    g->spec.filter = filter ? strdup(filter) : NULL;
}

strata_get_t *get_copy(const strata_get_t *g)
{
    strata_get_t *c = strata_get_create((const char *)g->row.data, g->row.len);
    read_spec_copy(&c->spec, &g->spec);
    return c;
}

int read_pb_build(read_pb *pb, const read_spec *s, size_t *n_column,
                  Strata__Client__Column ***column, protobuf_c_boolean *has_max_versions,
                  uint32_t *max_versions, Strata__Client__TimeRange **time_range, char **filter)
{
    memset(pb, 0, sizeof(*pb));
    pb->cols = calloc(s->ncols ? s->ncols : 1, sizeof(*pb->cols));
    pb->ptrs = calloc(s->ncols ? s->ncols : 1, sizeof(*pb->ptrs));
    if (!pb->cols || !pb->ptrs) {
        read_pb_clear(pb);
        return st_error(ST_NOMEM, "client: out of memory encoding a read");
    }
    for (size_t i = 0; i < s->ncols; i++) {
        strata__client__column__init(&pb->cols[i]);
        pb->cols[i].family = bin(&s->data, s->cols[i].fam, s->cols[i].fam_len);
        pb->cols[i].has_qualifier = s->cols[i].has_qual;
        pb->cols[i].qualifier = bin(&s->data, s->cols[i].qual, s->cols[i].qual_len);
        pb->ptrs[i] = &pb->cols[i];
    }
    *n_column = s->ncols;
    *column = pb->ptrs;
    *has_max_versions = s->max_versions > 0;
    *max_versions = s->max_versions;
    strata__client__time_range__init(&pb->range);
    if (s->has_range) {
        pb->range.has_from = pb->range.has_to = 1;
        pb->range.from = s->from;
        pb->range.to = s->to;
        *time_range = &pb->range;
    }
    *filter = s->filter;
    return ST_OK;
}

void read_pb_clear(read_pb *pb)
{
    free(pb->cols);
    free(pb->ptrs);
    pb->cols = NULL;
    pb->ptrs = NULL;
}

int get_pb_build(get_pb *pb, const strata_get_t *g)
{
    strata__client__get__init(&pb->msg);
    memset(&pb->attrs, 0, sizeof(pb->attrs));
    pb->msg.row = bin(&g->row, 0, g->row.len);
    int rc = read_pb_build(&pb->rd, &g->spec, &pb->msg.n_column, &pb->msg.column,
                           &pb->msg.has_max_versions, &pb->msg.max_versions,
                           &pb->msg.time_range, &pb->msg.filter);
    if (rc == ST_OK)
        rc = op_attrs_pb_build(&pb->attrs, &g->spec.attrs, &pb->msg.n_attribute,
                               &pb->msg.attribute);
    if (rc != ST_OK)
        get_pb_clear(pb);
    return rc;
}

void get_pb_clear(get_pb *pb)
{
    read_pb_clear(&pb->rd);
    op_attrs_pb_clear(&pb->attrs);
}
