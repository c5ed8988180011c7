/*
 * admin.c - the public admin API (strata/admin.h) over the protocol-level one
 * (client/admin_rpc.h): each call converts its descriptor or arguments, calls the
 * matching admin_rpc_* function, turns the answer into a result object
 * (admin_result.c), and on failure hands the status and st_errmsg() to errptr as
 * "<status name>: <message>" (client_set_error), so that strata_error_code gives the code.
 *
 * Thread-safety: the handle is an admin_rpc handle, safe from any thread (its timeout is
 * a plain field: set it before sharing the handle); nothing else is shared.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/admin_internal.h"
#include "client/client_internal.h"
#include "common/server_name.h"
#include "common/status.h"

struct strata_admin {
    admin_rpc *rpc;
};

admin_rpc *admin_handle_rpc(const strata_admin_t *a)
{
    return a ? a->rpc : NULL;
}

/* Reports rc (not ST_OK) to errptr; returns 0 for the callers that answer a boolean. */
static unsigned char failed(int rc, char **errptr)
{
    client_set_error(errptr, rc);
    return 0;
}

/* Reports rc if it is a failure; returns whether it is one. */
static int check(int rc, char **errptr)
{
    if (rc == ST_OK)
        return 0;
    failed(rc, errptr);
    return 1;
}

static int need_handle(const strata_admin_t *a, const char *op)
{
    return a ? ST_OK : st_error(ST_INVALID_ARGUMENT, "admin: %s without a handle", op);
}

/* ---- the handle ---- */

strata_admin_t *strata_admin_open(const char *quorum, const char *parent, char **errptr)
{
    strata_admin_t *a = calloc(1, sizeof(*a));
    int rc =
        a ? admin_rpc_open(quorum, parent, &a->rpc) : st_error(ST_NOMEM, "admin: out of memory");
    if (rc != ST_OK) {
        free(a);
        failed(rc, errptr);
        return NULL;
    }
    return a;
}

void strata_admin_close(strata_admin_t *a)
{
    if (!a)
        return;
    admin_rpc_close(a->rpc);
    free(a);
}

void strata_admin_set_timeout_ms(strata_admin_t *a, int64_t ms)
{
    if (a)
        admin_rpc_set_timeout_ms(a->rpc, ms);
}

/* "host,port,startcode" as a malloc'ed string ("" when host is empty), or NULL. */
static char *server_string(const server_name *sn, char **errptr)
{
    char text[SERVER_NAME_MAX] = "";
    if (sn->host[0])
        server_name_format(sn, text, sizeof(text));
    char *s = strdup(text);
    if (!s)
        failed(st_error(ST_NOMEM, "admin: out of memory"), errptr);
    return s;
}

char *strata_admin_active_master(strata_admin_t *a, uint32_t *http_port, char **errptr)
{
    server_name sn;
    uint32_t port = 0;
    int rc = need_handle(a, "active master");
    if (rc == ST_OK)
        rc = admin_rpc_active_master(a->rpc, &sn, &port);
    if (check(rc, errptr))
        return NULL;
    char *s = server_string(&sn, errptr);
    if (s && http_port)
        *http_port = port;
    return s;
}

unsigned char strata_admin_check_table_name(const char *name, char **errptr)
{
    return check(admin_rpc_check_table_name(name), errptr) ? 0 : 1;
}

/* ---- tables ---- */

/* The schema of td for sending, after the handle and descriptor checks. */
static int schema_for(const strata_admin_t *a, const strata_table_descriptor_t *td, const char *op,
                      Strata__Admin__TableSchema **out)
{
    *out = NULL;
    int rc = need_handle(a, op);
    if (rc == ST_OK && !td)
        rc = st_error(ST_INVALID_ARGUMENT, "admin: %s without a table descriptor", op);
    return rc == ST_OK ? admin_descriptor_to_schema(td, out) : rc;
}

void strata_admin_create_table(strata_admin_t *a, const strata_table_descriptor_t *td,
                               const char *const *split_keys, const size_t *split_key_lens,
                               size_t n, char **errptr)
{
    Strata__Admin__TableSchema *s = NULL;
    ProtobufCBinaryData *keys = NULL;
    int rc = schema_for(a, td, "create table", &s);
    if (rc == ST_OK && n && (!split_keys || !split_key_lens))
        rc = st_error(ST_INVALID_ARGUMENT, "table %s: %zu split keys but no key or length array",
                      strata_table_descriptor_name(td), n);
    if (rc == ST_OK && !(keys = calloc(n ? n : 1, sizeof(*keys))))
        rc = st_error(ST_NOMEM, "admin: out of memory creating table %s",
                      strata_table_descriptor_name(td));
    for (size_t i = 0; rc == ST_OK && i < n; i++)
        keys[i] = (ProtobufCBinaryData){split_key_lens[i], (uint8_t *)split_keys[i]};
    if (rc == ST_OK)
        rc = admin_rpc_create_table(a->rpc, s, keys, n);
    check(rc, errptr);
    free(keys);
    admin_rpc_schema_free(s);
}

/* A failure message of this library (err, freed) back into the status and st_errmsg(). */
static int take_error(char *err)
{
    int rc = client_message_status(err);
    const char *colon = strchr(err, ':');
    st_error(rc == ST_OK ? ST_INTERNAL : rc, "%s", colon ? colon + 1 + (colon[1] == ' ') : err);
    strata_free(err);
    return rc == ST_OK ? ST_INTERNAL : rc;
}

void strata_admin_clone_table_schema(strata_admin_t *a, const char *src, const char *dst,
                                     unsigned char preserve_splits, char **errptr)
{
    Strata__Admin__TableSchema *s = NULL;
    ProtobufCBinaryData *keys = NULL;
    strata_region_list_t *l = NULL;
    char *err = NULL;
    size_t n = 0;
    int rc = need_handle(a, "clone table schema");
    if (rc == ST_OK && (!src || !dst))
        rc = st_error(ST_INVALID_ARGUMENT, "admin: clone table schema needs two table names");
    strata_table_descriptor_t *td =
        rc == ST_OK ? strata_admin_describe_table(a, src, NULL, NULL, &err) : NULL;
    if (rc == ST_OK && !td)
        rc = take_error(err);
    if (rc == ST_OK)
        rc = admin_descriptor_to_schema(td, &s);
    if (rc == ST_OK) { /* the same schema under the new name */
        char *name = strdup(dst);
        if (!name)
            rc = st_error(ST_NOMEM, "admin: out of memory cloning %s", src);
        else {
            free(s->name);
            s->name = name;
        }
    }
    if (rc == ST_OK && preserve_splits && !(l = strata_admin_table_regions(a, src, &err)))
        rc = take_error(err);
    n = l && strata_region_list_count(l) > 1 ? strata_region_list_count(l) - 1 : 0;
    if (rc == ST_OK && !(keys = calloc(n ? n : 1, sizeof(*keys))))
        rc = st_error(ST_NOMEM, "admin: out of memory cloning %s", src);
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        size_t len = 0;
        const char *k = strata_region_start_key(strata_region_list_get(l, i + 1), &len);
        keys[i] = (ProtobufCBinaryData){len, (uint8_t *)k};
    }
    if (rc == ST_OK)
        rc = admin_rpc_create_table(a->rpc, s, keys, n);
    check(rc, errptr);
    free(keys);
    strata_region_list_destroy(l);
    admin_rpc_schema_free(s);
    strata_table_descriptor_destroy(td);
}

void strata_admin_create_table_presplit(strata_admin_t *a, const strata_table_descriptor_t *td,
                                        uint32_t num_regions, const char *split_algo, char **errptr)
{
    Strata__Admin__TableSchema *s = NULL;
    int rc = schema_for(a, td, "create table", &s);
    if (rc == ST_OK)
        rc = admin_rpc_create_table_presplit(a->rpc, s, num_regions, split_algo);
    check(rc, errptr);
    admin_rpc_schema_free(s);
}

void strata_admin_modify_table(strata_admin_t *a, const strata_table_descriptor_t *td,
                               char **errptr)
{
    strata_admin_modify_table_async(a, td, 0, errptr);
}

void strata_admin_modify_table_async(strata_admin_t *a, const strata_table_descriptor_t *td,
                                     unsigned char async, char **errptr)
{
    Strata__Admin__TableSchema *s = NULL;
    int rc = schema_for(a, td, "modify table", &s);
    if (rc == ST_OK)
        rc = admin_rpc_modify_table_async(a->rpc, s, async != 0);
    check(rc, errptr);
    admin_rpc_schema_free(s);
}

void strata_admin_delete_table(strata_admin_t *a, const char *table, char **errptr)
{
    int rc = need_handle(a, "delete table");
    check(rc == ST_OK ? admin_rpc_delete_table(a->rpc, table) : rc, errptr);
}

void strata_admin_enable_table(strata_admin_t *a, const char *table, char **errptr)
{
    int rc = need_handle(a, "enable table");
    check(rc == ST_OK ? admin_rpc_enable_table(a->rpc, table) : rc, errptr);
}

void strata_admin_disable_table(strata_admin_t *a, const char *table, char **errptr)
{
    int rc = need_handle(a, "disable table");
    check(rc == ST_OK ? admin_rpc_disable_table(a->rpc, table) : rc, errptr);
}

void strata_admin_truncate_table(strata_admin_t *a, const char *table,
                                 unsigned char preserve_splits, char **errptr)
{
    int rc = need_handle(a, "truncate table");
    check(rc == ST_OK ? admin_rpc_truncate_table(a->rpc, table, preserve_splits != 0) : rc, errptr);
}

/* Describes table: ST_OK and *out (free with admin_rpc_free_msg), or the failure. */
static int describe(strata_admin_t *a, const char *table,
                    Strata__Master__DescribeTableResponse **out)
{
    *out = NULL;
    int rc = need_handle(a, "describe table");
    if (rc == ST_OK)
        rc = admin_rpc_describe_table(a->rpc, table, out);
    if (rc == ST_OK && (!(*out)->table || !(*out)->table->schema)) {
        admin_rpc_free_msg(*out);
        *out = NULL;
        rc = st_error(ST_PROTOCOL, "describe table %s: the answer has no schema", table);
    }
    return rc;
}

strata_table_descriptor_t *strata_admin_describe_table(strata_admin_t *a, const char *table,
                                                       strata_table_state *state, uint32_t *regions,
                                                       char **errptr)
{
    Strata__Master__DescribeTableResponse *d = NULL;
    strata_table_descriptor_t *td = NULL;
    int rc = describe(a, table, &d);
    if (rc == ST_OK)
        rc = admin_descriptor_from_schema(d->table->schema, &td);
    if (rc == ST_OK && state)
        *state = (strata_table_state)d->table->state;
    if (rc == ST_OK && regions)
        *regions = d->table->has_regions ? d->table->regions : 0;
    admin_rpc_free_msg(d);
    check(rc, errptr);
    return td;
}

unsigned char strata_admin_table_exists(strata_admin_t *a, const char *table, char **errptr)
{
    Strata__Master__DescribeTableResponse *d = NULL;
    int rc = describe(a, table, &d);
    admin_rpc_free_msg(d);
    if (rc == ST_NOT_FOUND)
        return 0;
    return check(rc, errptr) ? 0 : 1;
}

strata_name_list_t *strata_admin_list_tables(strata_admin_t *a, const char *ns, char **errptr)
{
    Strata__Master__ListTablesResponse *r = NULL;
    char **names = NULL;
    strata_name_list_t *l = NULL;
    int rc = need_handle(a, "list tables");
    if (rc == ST_OK)
        rc = admin_rpc_list_tables(a->rpc, ns, &r);
    if (rc == ST_OK && !(names = calloc(r->n_table ? r->n_table : 1, sizeof(*names))))
        rc = st_error(ST_NOMEM, "admin: out of memory listing tables");
    for (size_t i = 0; rc == ST_OK && i < r->n_table; i++)
        names[i] = r->table[i]->schema ? r->table[i]->schema->name : NULL;
    if (rc == ST_OK && !(l = admin_name_list_new(names, r->n_table)))
        rc = st_error(ST_NOMEM, "admin: out of memory listing tables");
    free(names);
    admin_rpc_free_msg(r);
    check(rc, errptr);
    return l;
}

/* ---- namespaces ---- */

void strata_admin_create_namespace(strata_admin_t *a, const char *name, char **errptr)
{
    int rc = need_handle(a, "create namespace");
    check(rc == ST_OK ? admin_rpc_create_namespace(a->rpc, name) : rc, errptr);
}

void strata_admin_delete_namespace(strata_admin_t *a, const char *name, char **errptr)
{
    int rc = need_handle(a, "delete namespace");
    check(rc == ST_OK ? admin_rpc_delete_namespace(a->rpc, name) : rc, errptr);
}

strata_name_list_t *strata_admin_list_namespaces(strata_admin_t *a, char **errptr)
{
    Strata__Master__ListNamespacesResponse *r = NULL;
    strata_name_list_t *l = NULL;
    int rc = need_handle(a, "list namespaces");
    if (rc == ST_OK)
        rc = admin_rpc_list_namespaces(a->rpc, &r);
    if (rc == ST_OK && !(l = admin_name_list_new(r->name, r->n_name)))
        rc = st_error(ST_NOMEM, "admin: out of memory listing namespaces");
    admin_rpc_free_msg(r);
    check(rc, errptr);
    return l;
}

/* ---- regions ---- */

strata_region_list_t *strata_admin_table_regions(strata_admin_t *a, const char *table,
                                                 char **errptr)
{
    Strata__Master__GetTableRegionsResponse *r = NULL;
    strata_region_list_t *l = NULL;
    int rc = need_handle(a, "table regions");
    if (rc == ST_OK)
        rc = admin_rpc_table_regions(a->rpc, table, &r);
    if (rc == ST_OK && !(l = admin_region_list_new(r))) /* r is taken either way */
        rc = st_error(ST_NOMEM, "admin: out of memory listing the regions of %s", table);
    check(rc, errptr);
    return l;
}

strata_region_t *strata_admin_locate_region(strata_admin_t *a, const char *table, const char *row,
                                            size_t row_len, char **errptr)
{
    Strata__Master__LocateRegionRequest req = STRATA__MASTER__LOCATE_REGION_REQUEST__INIT;
    ProtobufCMessage *resp = NULL;
    strata_region_t *r = NULL;
    int rc = need_handle(a, "locate region");
    if (rc == ST_OK)
        rc = admin_rpc_check_table_name(table);
    if (rc == ST_OK && row_len && !row)
        rc = st_error(ST_INVALID_ARGUMENT, "locate region of table %s: a %zu-byte row without data",
                      table, row_len);
    if (rc == ST_OK) {
        req.table = (char *)table;
        req.row.data = (uint8_t *)row;
        req.row.len = row_len;
        req.has_prefetch = 1;
        req.prefetch = 0;
        rc = admin_rpc_call(a->rpc, "LocateRegion", &req.base,
                            &strata__master__locate_region_response__descriptor, 0, &resp);
    }
    if (rc == ST_OK) /* resp is taken either way */
        rc = admin_region_located((Strata__Master__LocateRegionResponse *)resp, &r);
    check(rc, errptr);
    return r;
}

/* A move or assign: the server it went to, or NULL. */
static char *placed(int rc, const server_name *to, char **errptr)
{
    return check(rc, errptr) ? NULL : server_string(to, errptr);
}

char *strata_admin_move(strata_admin_t *a, const char *encoded_name, const char *dest,
                        char **errptr)
{
    server_name to;
    memset(&to, 0, sizeof(to));
    int rc = need_handle(a, "move");
    return placed(rc == ST_OK ? admin_rpc_move(a->rpc, encoded_name, dest, &to) : rc, &to, errptr);
}

char *strata_admin_assign(strata_admin_t *a, const char *encoded_name, char **errptr)
{
    server_name to;
    memset(&to, 0, sizeof(to));
    int rc = need_handle(a, "assign");
    return placed(rc == ST_OK ? admin_rpc_assign(a->rpc, encoded_name, &to) : rc, &to, errptr);
}

void strata_admin_unassign(strata_admin_t *a, const char *encoded_name, char **errptr)
{
    int rc = need_handle(a, "unassign");
    check(rc == ST_OK ? admin_rpc_unassign(a->rpc, encoded_name) : rc, errptr);
}

void strata_admin_flush_table(strata_admin_t *a, const char *table, char **errptr)
{
    int rc = need_handle(a, "flush table");
    check(rc == ST_OK ? admin_rpc_flush_table(a->rpc, table) : rc, errptr);
}

void strata_admin_flush_region(strata_admin_t *a, const char *encoded_name, char **errptr)
{
    int rc = need_handle(a, "flush region");
    check(rc == ST_OK ? admin_rpc_flush_region(a->rpc, encoded_name) : rc, errptr);
}

void strata_admin_compact_table(strata_admin_t *a, const char *table, unsigned char major,
                                char **errptr)
{
    int rc = need_handle(a, "compact table");
    check(rc == ST_OK ? admin_rpc_compact_table(a->rpc, table, major != 0) : rc, errptr);
}

void strata_admin_compact_region(strata_admin_t *a, const char *encoded_name, unsigned char major,
                                 char **errptr)
{
    int rc = need_handle(a, "compact region");
    check(rc == ST_OK ? admin_rpc_compact_region(a->rpc, encoded_name, major != 0) : rc, errptr);
}

void strata_admin_flush_family(strata_admin_t *a, const char *table, const char *encoded_name,
                               const char *family, char **errptr)
{
    int rc = need_handle(a, "flush");
    check(rc == ST_OK ? admin_rpc_flush(a->rpc, table, encoded_name, family) : rc, errptr);
}

void strata_admin_compact_family(strata_admin_t *a, const char *table, const char *encoded_name,
                                 const char *family, unsigned char major, char **errptr)
{
    int rc = need_handle(a, major ? "major compact" : "compact");
    check(rc == ST_OK ? admin_rpc_compact(a->rpc, table, encoded_name, family, major != 0) : rc,
          errptr);
}

/* ---- cluster status ---- */

strata_cluster_status_t *strata_admin_cluster_status(strata_admin_t *a, char **errptr)
{
    Strata__Master__GetClusterStatusResponse *r = NULL;
    strata_cluster_status_t *s = NULL;
    int rc = need_handle(a, "cluster status");
    if (rc == ST_OK)
        rc = admin_rpc_cluster_status(a->rpc, &r);
    if (rc == ST_OK && !(s = admin_cluster_status_new(r))) /* r is taken either way */
        rc = st_error(ST_NOMEM, "admin: out of memory reading the cluster status");
    check(rc, errptr);
    return s;
}
