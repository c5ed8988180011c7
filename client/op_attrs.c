/*
 * op_attrs.c - the operation attributes a mutation, get or scan builder holds (HBase's
 * OperationWithAttributes; strata.h "operation attributes"), the public setters and
 * getters of mutations and gets, and the protobuf view (client.proto NameBytesPair) that
 * mutation.c and scan.c put into Get, MutationProto and Scan. The bounds are
 * common/op_attr.h's, the region server's too.
 *
 * Invariant: a set holds distinct names, each within op_attr_check's bounds, at most
 * OP_ATTR_MAX_COUNT of them.
 *
 * Thread-safety: a builder belongs to one thread at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "client/client_internal.h"
#include "common/log.h"
#include "common/op_attr.h"
#include "common/status.h"

_Static_assert(STRATA_ATTRIBUTE_MAX_COUNT == OP_ATTR_MAX_COUNT, "strata.h and op_attr.h agree");
_Static_assert(STRATA_ATTRIBUTE_MAX_NAME == OP_ATTR_MAX_NAME, "strata.h and op_attr.h agree");
_Static_assert(STRATA_ATTRIBUTE_MAX_VALUE == OP_ATTR_MAX_VALUE, "strata.h and op_attr.h agree");

static size_t find_pos(const op_attrs *a, const char *name)
{
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->v[i].name, name) == 0)
            return i;
    return SIZE_MAX;
}

const op_attr_entry *op_attrs_find(const op_attrs *a, const char *name)
{
    size_t i = name ? find_pos(a, name) : SIZE_MAX;
    return i == SIZE_MAX ? NULL : &a->v[i];
}

static void remove_at(op_attrs *a, size_t i)
{
    free(a->v[i].name);
    free(a->v[i].value);
    memmove(&a->v[i], &a->v[i + 1], (a->n - i - 1) * sizeof(*a->v));
    a->n--;
}

/* Whether one more name fits, keeping reserved's place free while it is not set. */
static int room_for(const op_attrs *a, const char *name, const char *reserved)
{
    bool is_reserved = reserved && strcmp(name, reserved) == 0;
    bool reserved_free = reserved && !op_attrs_find(a, reserved);
    size_t cap = OP_ATTR_MAX_COUNT - (reserved_free && !is_reserved ? 1 : 0);
    if (a->n < cap)
        return ST_OK;
    char shown[OP_ATTR_NAME_TEXT];
    op_attr_name_text(name, strlen(name), shown, sizeof(shown));
    return st_error(ST_INVALID_ARGUMENT,
                    "operation attribute '%s': an operation has at most %d attributes%s", shown,
                    OP_ATTR_MAX_COUNT,
                    reserved_free ? ", one place kept for " OP_ATTR_SCAN_METRICS : "");
}

int op_attrs_set(op_attrs *a, const char *name, const void *value, size_t len, const char *reserved)
{
    if (!name)
        return st_error(ST_INVALID_ARGUMENT, "operation attribute: the name is NULL");
    int rc = op_attr_check(name, strlen(name), value ? len : 0);
    if (rc != ST_OK)
        return rc;
    size_t i = find_pos(a, name);
    if (!value) {
        if (i != SIZE_MAX)
            remove_at(a, i);
        return ST_OK;
    }
    if (i == SIZE_MAX && (rc = room_for(a, name, reserved)) != ST_OK)
        return rc;
    uint8_t *copy = malloc(len ? len : 1);
    if (!copy)
        return st_error(ST_NOMEM, "out of memory setting an operation attribute");
    if (len)
        memcpy(copy, value, len);
    if (i != SIZE_MAX) {
        free(a->v[i].value);
        a->v[i].value = copy;
        a->v[i].len = len;
        return ST_OK;
    }
    op_attr_entry *nv = realloc(a->v, (a->n + 1) * sizeof(*nv));
    char *nm = strdup(name);
    if (nv)
        a->v = nv;
    if (!nv || !nm) {
        free(copy);
        free(nm);
        return st_error(ST_NOMEM, "out of memory setting an operation attribute");
    }
    a->v[a->n++] = (op_attr_entry){nm, copy, len};
    return ST_OK;
}

void op_attrs_copy(op_attrs *dst, const op_attrs *src)
{
    memset(dst, 0, sizeof(*dst));
    if (!src->n)
        return;
    dst->v = calloc(src->n, sizeof(*dst->v));
    if (!dst->v)
        goto oom;
    for (size_t i = 0; i < src->n; i++) {
        op_attr_entry *d = &dst->v[i];
        const op_attr_entry *s = &src->v[i];
        d->name = strdup(s->name);
        d->value = malloc(s->len ? s->len : 1);
        dst->n = i + 1;
        if (!d->name || !d->value)
            goto oom;
        if (s->len)
            memcpy(d->value, s->value, s->len);
        d->len = s->len;
    }
    return;
oom:
    LOG_ERROR("strata client: out of memory");
    abort();
}

void op_attrs_clear(op_attrs *a)
{
    for (size_t i = 0; i < a->n; i++) {
        free(a->v[i].name);
        free(a->v[i].value);
    }
    free(a->v);
    a->v = NULL;
    a->n = 0;
}

size_t op_attrs_size(const op_attrs *a)
{
    size_t n = 0;
    for (size_t i = 0; i < a->n; i++)
        n += strlen(a->v[i].name) + a->v[i].len + 8;
    return n;
}

int op_attrs_pb_build(op_attrs_pb *pb, const op_attrs *a, size_t *n,
                      Strata__Client__NameBytesPair ***out)
{
    memset(pb, 0, sizeof(*pb));
    *n = 0;
    *out = NULL;
    if (!a->n)
        return ST_OK;
    pb->pairs = calloc(a->n, sizeof(*pb->pairs));
    pb->ptrs = calloc(a->n, sizeof(*pb->ptrs));
    if (!pb->pairs || !pb->ptrs) {
        op_attrs_pb_clear(pb);
        return st_error(ST_NOMEM, "client: out of memory encoding operation attributes");
    }
    for (size_t i = 0; i < a->n; i++) {
        Strata__Client__NameBytesPair *p = &pb->pairs[i];
        strata__client__name_bytes_pair__init(p);
        p->name = a->v[i].name;
        p->has_value = 1;
        p->value = (ProtobufCBinaryData){a->v[i].len, a->v[i].value};
        pb->ptrs[i] = p;
    }
    *n = a->n;
    *out = pb->ptrs;
    return ST_OK;
}

void op_attrs_pb_clear(op_attrs_pb *pb)
{
    free(pb->pairs);
    free(pb->ptrs);
    pb->pairs = NULL;
    pb->ptrs = NULL;
}

/* ---- the public setters and getters of mutations and gets ---- */

static const char *attr_value(const op_attrs *a, const char *name, size_t *len)
{
    const op_attr_entry *e = op_attrs_find(a, name);
    if (len)
        *len = e ? e->len : 0;
    return e ? (const char *)e->value : NULL;
}

void strata_mutation_set_attribute(strata_mutation_t *m, const char *name, const char *value,
                                   size_t value_len, char **errptr)
{
    int rc = op_attrs_set(&m->attrs, name, value, value_len, NULL);
    if (rc != ST_OK)
        client_set_error(errptr, rc);
}

const char *strata_mutation_attribute(const strata_mutation_t *m, const char *name, size_t *len)
{
    return attr_value(&m->attrs, name, len);
}

void strata_get_set_attribute(strata_get_t *g, const char *name, const char *value,
                              size_t value_len, char **errptr)
{
    int rc = op_attrs_set(&g->spec.attrs, name, value, value_len, NULL);
    if (rc != ST_OK)
        client_set_error(errptr, rc);
}

const char *strata_get_attribute(const strata_get_t *g, const char *name, size_t *len)
{
    return attr_value(&g->spec.attrs, name, len);
}
