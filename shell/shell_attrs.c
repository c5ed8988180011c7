/*
 * shell_attrs.c - ATTRIBUTES => {'k' => 'v', ...} of put, get, scan, count, delete,
 * deleteall, incr and append: HBase's set_attributes (table.rb), every key and value
 * through Ruby's to_s, set on the operation as an operation attribute
 * (strata_*_set_attribute; strata.h "operation attributes"), which the region servers
 * receive with it.
 *
 * Thread-safety: a session belongs to one thread.
 */
#include <string.h>

#include "common/status.h"
#include "shell/shell_internal.h"

/* Sets one attribute on whichever of m, g, sc is given. */
static int set_one(const buf_t *name, const buf_t *value, strata_mutation_t *m, strata_get_t *g,
                   strata_scan_t *sc)
{
    char *err = NULL;
    const char *n = name->data ? (const char *)name->data : "";
    const char *v = value->data ? (const char *)value->data : "";
    if (m)
        strata_mutation_set_attribute(m, n, v, value->len, &err);
    else if (g)
        strata_get_set_attribute(g, n, v, value->len, &err);
    else
        strata_scan_set_attribute(sc, n, v, value->len, &err);
    return shell_failed(err);
}

int shell_attributes_apply(const shell_value *opts, strata_mutation_t *m, strata_get_t *g,
                           strata_scan_t *sc)
{
    const shell_value *h = opts ? shell_hash_get(opts, "ATTRIBUTES") : NULL;
    if (!h)
        return ST_OK;
    if (h->kind != SHELL_V_HASH)
        return st_error(ST_INVALID_ARGUMENT, "Attributes must be a Hash type");
    buf_t name = {0}, value = {0};
    int rc = ST_OK;
    for (size_t i = 0; rc == ST_OK && i < h->n; i++) {
        const shell_value *k = shell_hash_key(h, i), *v = shell_hash_val(h, i);
        buf_reset(&name);
        buf_reset(&value);
        rc = shell_to_s(k, "ATTRIBUTES name", &name);
        if (rc == ST_OK && name.len && memchr(name.data, '\0', name.len))
            rc = st_error(ST_INVALID_ARGUMENT, "ATTRIBUTES name '%s...' holds a NUL byte",
                          (const char *)name.data);
        if (rc == ST_OK && v->kind == SHELL_V_NIL)
            rc = st_error(ST_INVALID_ARGUMENT, "ATTRIBUTES value of '%s' is nil",
                          (const char *)name.data);
        if (rc == ST_OK)
            rc = shell_to_s(v, "ATTRIBUTES value", &value);
        if (rc == ST_OK)
            rc = set_one(&name, &value, m, g, sc);
    }
    buf_free(&name);
    buf_free(&value);
    return rc;
}
