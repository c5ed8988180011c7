/*
 * admin_namespace.c - namespace descriptors in the public admin API (strata/admin.h): a
 * namespace's name and properties (HBase's NamespaceDescriptor configuration), and the
 * calls that create a namespace with them, replace them and read them back
 * (MasterService.CreateNamespace, ModifyNamespace, GetNamespace).
 *
 * Thread-safety: as admin.c; a descriptor belongs to one thread at a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/admin_internal.h"
#include "client/client_internal.h"
#include "common/status.h"

struct strata_namespace_descriptor {
    char *name;
    admin_pairs props;
};

strata_namespace_descriptor_t *strata_namespace_descriptor_create(const char *name)
{
    strata_namespace_descriptor_t *nd = calloc(1, sizeof(*nd));
    if (!nd || !(nd->name = strdup(name ? name : ""))) {
        free(nd);
        return NULL;
    }
    return nd;
}

void strata_namespace_descriptor_destroy(strata_namespace_descriptor_t *nd)
{
    if (!nd)
        return;
    admin_pairs_clear(&nd->props);
    free(nd->name);
    free(nd);
}

const char *strata_namespace_descriptor_name(const strata_namespace_descriptor_t *nd)
{
    return nd ? nd->name : NULL;
}

unsigned char strata_namespace_descriptor_set(strata_namespace_descriptor_t *nd, const char *key,
                                              const char *value)
{
    return nd ? admin_pairs_set(&nd->props, key, value) : 0;
}

const char *strata_namespace_descriptor_get(const strata_namespace_descriptor_t *nd,
                                            const char *key)
{
    return nd ? admin_pairs_get(&nd->props, key) : NULL;
}

size_t strata_namespace_descriptor_count(const strata_namespace_descriptor_t *nd)
{
    return nd ? nd->props.n : 0;
}

const char *strata_namespace_descriptor_key(const strata_namespace_descriptor_t *nd, size_t i)
{
    return nd && i < nd->props.n ? nd->props.key[i] : NULL;
}

/* ---- the calls ---- */

static int need(const strata_admin_t *a, const strata_namespace_descriptor_t *nd, const char *op)
{
    if (!admin_handle_rpc(a))
        return st_error(ST_INVALID_ARGUMENT, "admin: %s without a handle", op);
    if (!nd)
        return st_error(ST_INVALID_ARGUMENT, "admin: %s without a descriptor", op);
    return ST_OK;
}

/* The properties as messages pointing into nd (the arrays malloc'ed; *msgs and *ptrs to
 * free). */
static int props_to_proto(const strata_namespace_descriptor_t *nd,
                           Strata__Master__NamespaceProperty **msgs,
                           Strata__Master__NamespaceProperty ***ptrs)
{
    size_t n = nd->props.n;
    *msgs = calloc(n ? n : 1, sizeof(**msgs));
    *ptrs = calloc(n ? n : 1, sizeof(**ptrs));
    if (!*msgs || !*ptrs) {
        free(*msgs);
        free(*ptrs);
        *msgs = NULL;
        *ptrs = NULL;
        return st_error(ST_NOMEM, "admin: out of memory sending namespace %s", nd->name);
    }
    for (size_t i = 0; i < n; i++) {
        Strata__Master__NamespaceProperty init = STRATA__MASTER__NAMESPACE_PROPERTY__INIT;
        (*msgs)[i] = init;
        (*msgs)[i].key = nd->props.key[i];
        (*msgs)[i].value = nd->props.value[i];
        (*ptrs)[i] = &(*msgs)[i];
    }
    return ST_OK;
}

static void send_props(strata_admin_t *a, const strata_namespace_descriptor_t *nd, bool modify,
                       char **errptr)
{
    const char *op = modify ? "modify namespace" : "create namespace";
    Strata__Master__NamespaceProperty *msgs = NULL, **ptrs = NULL;
    int rc = need(a, nd, op);
    if (rc == ST_OK)
        rc = props_to_proto(nd, &msgs, &ptrs);
    if (rc == ST_OK)
        rc = modify ? admin_rpc_modify_namespace(admin_handle_rpc(a), nd->name, ptrs, nd->props.n)
                    : admin_rpc_create_namespace_props(admin_handle_rpc(a), nd->name, ptrs,
                                                       nd->props.n);
    free(msgs);
    free(ptrs);
    if (rc != ST_OK)
        client_set_error(errptr, rc);
}

void strata_admin_create_namespace_descriptor(strata_admin_t *a,
                                              const strata_namespace_descriptor_t *nd,
                                              char **errptr)
{
    send_props(a, nd, false, errptr);
}

void strata_admin_modify_namespace(strata_admin_t *a, const strata_namespace_descriptor_t *nd,
                                   char **errptr)
{
    send_props(a, nd, true, errptr);
}

strata_namespace_descriptor_t *strata_admin_describe_namespace(strata_admin_t *a,
                                                               const char *name, char **errptr)
{
    Strata__Master__GetNamespaceResponse *r = NULL;
    strata_namespace_descriptor_t *nd = NULL;
    int rc = admin_handle_rpc(a) ? ST_OK
                                 : st_error(ST_INVALID_ARGUMENT,
                                            "admin: describe namespace without a handle");
    if (rc == ST_OK)
        rc = admin_rpc_get_namespace(admin_handle_rpc(a), name, &r);
    if (rc == ST_OK && !(nd = strata_namespace_descriptor_create(r->namespace_->name)))
        rc = st_error(ST_NOMEM, "admin: out of memory describing namespace %s", name);
    for (size_t i = 0; rc == ST_OK && i < r->namespace_->n_property; i++) {
        const Strata__Master__NamespaceProperty *p = r->namespace_->property[i];
        if (!strata_namespace_descriptor_set(nd, p->key, p->value))
            rc = st_error(ST_NOMEM, "admin: out of memory describing namespace %s", name);
    }
    admin_rpc_free_msg(r);
    if (rc != ST_OK) {
        strata_namespace_descriptor_destroy(nd);
        client_set_error(errptr, rc);
        return NULL;
    }
    return nd;
}
