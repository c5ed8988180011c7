/*
 * admin_rpc.c - admin_rpc: MasterService calls through the master link (contract in
 * admin_rpc.h). Each typed call checks its arguments, fills its request, calls, and on
 * failure prefixes the message with what was asked ("disable table users: ...").
 *
 * Thread-safety: the handle is immutable after open except its timeout (a plain int64
 * read by the calls; set it before sharing the handle); the link is thread-safe.
 */
#include "client/admin_rpc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/master_link.h"
#include "common/rpc/rpc_header.h"
#include "common/status.h"

struct admin_rpc {
    master_link *link;
    int64_t timeout_ms;
};

/* ---- handle ---- */

int admin_rpc_open(const char *quorum, const char *parent, admin_rpc **out)
{
    if (!out)
        return st_error(ST_INVALID_ARGUMENT, "admin: open needs an output pointer");
    *out = NULL;
    admin_rpc *a = calloc(1, sizeof(*a));
    if (!a)
        return st_error(ST_NOMEM, "admin: out of memory");
    int rc = master_link_open(quorum, parent, 0, &a->link);
    if (rc != ST_OK) {
        free(a);
        return rc;
    }
    a->timeout_ms = ADMIN_RPC_DEFAULT_TIMEOUT_MS;
    *out = a;
    return ST_OK;
}

void admin_rpc_close(admin_rpc *a)
{
    if (!a)
        return;
    master_link_close(a->link);
    free(a);
}

void admin_rpc_set_timeout_ms(admin_rpc *a, int64_t ms)
{
    a->timeout_ms = ms > 0 ? ms : ADMIN_RPC_DEFAULT_TIMEOUT_MS;
}

void admin_rpc_free_msg(void *msg)
{
    if (msg)
        protobuf_c_message_free_unpacked(msg, NULL);
}

int admin_rpc_active_master(admin_rpc *a, server_name *out, uint32_t *http_port)
{
    if (!a || !out)
        return st_error(ST_INVALID_ARGUMENT, "admin: active master needs a handle and an output");
    return master_link_active(a->link, out, http_port);
}

/* Prefixes the current message with what failed; returns rc. A message that starts by
 * naming the same object ("table ns:t: ..." after "create table ns:t") loses that
 * start, so that the object is named once. */
static int fail(int rc, const char *what)
{
    char msg[1024];
    snprintf(msg, sizeof(msg), "%s", st_errmsg());
    for (const char *w = what; w; w = strchr(w + 1, ' ')) {
        const char *tail = *w == ' ' ? w + 1 : w;
        size_t n = strlen(tail);
        /* tail as a part of its own: at the start or after ": ", followed by ": " */
        for (char *p = n ? strstr(msg, tail) : NULL; p; p = strstr(p + 1, tail))
            if ((p == msg || (p - msg >= 2 && p[-2] == ':' && p[-1] == ' ')) && p[n] == ':' &&
                p[n + 1] == ' ') {
                memmove(p, p + n + 2, strlen(p + n + 2) + 1);
                return st_error(rc, "%s: %s", what, msg);
            }
    }
    return st_error(rc, "%s: %s", what, msg);
}

int admin_rpc_call(admin_rpc *a, const char *method, const ProtobufCMessage *req,
                   const ProtobufCMessageDescriptor *resp_desc, int64_t timeout_ms,
                   ProtobufCMessage **resp)
{
    if (resp)
        *resp = NULL;
    if (!a || !method || !req || !resp_desc || !resp)
        return st_error(ST_INVALID_ARGUMENT,
                        "admin: a call needs a handle, a method, a request, a response "
                        "descriptor and an output");
    size_t len = strlen(method);
    if (len == 0 || len + sizeof("MasterService.") > RPC_METHOD_MAX || method[len - 1] == '.')
        return st_error(ST_INVALID_ARGUMENT, "admin: bad method name '%s'", method);
    if (resp_desc->magic != PROTOBUF_C__MESSAGE_DESCRIPTOR_MAGIC ||
        req->descriptor->magic != PROTOBUF_C__MESSAGE_DESCRIPTOR_MAGIC)
        return st_error(ST_INVALID_ARGUMENT, "admin: %s: not a protobuf-c message descriptor",
                        method);
    return master_link_call_pb(a->link, method, req, resp_desc,
                               timeout_ms > 0 ? timeout_ms : a->timeout_ms, resp);
}

/* A typed call: what names it in a failure; resp NULL drops the answer. */
static int call(admin_rpc *a, const char *what, const char *method, const ProtobufCMessage *req,
                const ProtobufCMessageDescriptor *desc, ProtobufCMessage **resp)
{
    ProtobufCMessage *r = NULL;
    int rc = master_link_call_pb(a->link, method, req, desc, a->timeout_ms, &r);
    if (rc != ST_OK)
        return fail(rc, what);
    if (resp)
        *resp = r;
    else
        protobuf_c_message_free_unpacked(r, NULL);
    return ST_OK;
}

/* ---- argument checks ---- */

static int check_handle(const admin_rpc *a, const char *op)
{
    return a ? ST_OK : st_error(ST_INVALID_ARGUMENT, "admin: %s without a handle", op);
}

static int check_part(const char *p, size_t n, bool is_ns, const char *name)
{
    if (n == 0)
        return st_error(ST_INVALID_ARGUMENT, "bad table name '%s': empty %s", name,
                        is_ns ? "namespace" : "table part");
    if (!is_ns && (p[0] == '.' || p[0] == '-'))
        return st_error(ST_INVALID_ARGUMENT, "bad table name '%s': starts with '%c'", name, p[0]);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)p[i];
        if (!isalnum(ch) && ch != '_' && (is_ns || (ch != '-' && ch != '.')))
            return st_error(ST_INVALID_ARGUMENT, "bad table name '%s': character '%c'", name, ch);
    }
    return ST_OK;
}

int admin_rpc_check_table_name(const char *name)
{
    if (!name || !name[0])
        return st_error(ST_INVALID_ARGUMENT, "no table name given");
    if (strlen(name) > 255)
        return st_error(ST_INVALID_ARGUMENT, "table name '%.40s...' is longer than 255 bytes",
                        name);
    const char *colon = strchr(name, ':');
    if (!colon)
        return check_part(name, strlen(name), false, name);
    int rc = check_part(name, (size_t)(colon - name), true, name);
    return rc == ST_OK ? check_part(colon + 1, strlen(colon + 1), false, name) : rc;
}

static int check_namespace(const char *ns)
{
    if (!ns || !ns[0])
        return st_error(ST_INVALID_ARGUMENT, "no namespace name given");
    for (const char *p = ns; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            return st_error(ST_INVALID_ARGUMENT, "bad namespace name '%s': character '%c'", ns, *p);
    return ST_OK;
}

static int check_family(const char *f, const char *table)
{
    if (!f || !f[0])
        return st_error(ST_INVALID_ARGUMENT, "table %s: empty column family name", table);
    for (const char *p = f; *p; p++)
        if (*p == ':' || *p == ',' || isspace((unsigned char)*p) || !isprint((unsigned char)*p))
            return st_error(ST_INVALID_ARGUMENT, "table %s: bad column family name '%s'", table, f);
    return ST_OK;
}

static int check_schema(const Strata__Admin__TableSchema *s)
{
    if (!s)
        return st_error(ST_INVALID_ARGUMENT, "no table schema given");
    int rc = admin_rpc_check_table_name(s->name);
    if (rc == ST_OK && s->n_family == 0)
        rc = st_error(ST_INVALID_ARGUMENT, "table %s: no column family", s->name);
    for (size_t i = 0; rc == ST_OK && i < s->n_family; i++) {
        rc = s->family[i]
                 ? check_family(s->family[i]->name, s->name)
                 : st_error(ST_INVALID_ARGUMENT, "table %s: family %zu is NULL", s->name, i);
        for (size_t j = 0; rc == ST_OK && j < i; j++)
            if (strcmp(s->family[i]->name, s->family[j]->name) == 0)
                rc = st_error(ST_INVALID_ARGUMENT, "table %s: family %s given twice", s->name,
                              s->family[i]->name);
    }
    return rc;
}

static int key_cmp(const ProtobufCBinaryData *a, const ProtobufCBinaryData *b)
{
    size_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->data, b->data, n) : 0;
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

static int check_splits(const char *table, const ProtobufCBinaryData *k, size_t n)
{
    if (n && !k)
        return st_error(ST_INVALID_ARGUMENT, "table %s: %zu split keys but no array", table, n);
    for (size_t i = 0; i < n; i++) {
        if (k[i].len == 0 || (k[i].len && !k[i].data))
            return st_error(ST_INVALID_ARGUMENT, "table %s: split key %zu is empty", table, i);
        if (i > 0 && key_cmp(&k[i - 1], &k[i]) >= 0)
            return st_error(ST_INVALID_ARGUMENT,
                            "table %s: split keys %zu and %zu are not sorted and distinct", table,
                            i - 1, i);
    }
    return ST_OK;
}

static int check_region(const char *encoded_name, const char *op)
{
    if (!encoded_name || !encoded_name[0])
        return st_error(ST_INVALID_ARGUMENT, "%s: no region (encoded name) given", op);
    return ST_OK;
}

/* ---- schemas ---- */

static void pairs_free(Strata__Admin__NameStringPair **v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i]) {
            free(v[i]->name);
            free(v[i]->value);
        }
        free(v[i]);
    }
    free(v);
}

void admin_rpc_schema_free(Strata__Admin__TableSchema *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n_family; i++) {
        if (s->family[i])
            free(s->family[i]->name);
        free(s->family[i]);
    }
    free(s->family);
    pairs_free(s->value, s->n_value);
    pairs_free(s->configuration, s->n_configuration);
    free(s->name);
    free(s);
}

static int add_family(Strata__Admin__TableSchema *s, const char *name, size_t len)
{
    Strata__Admin__ColumnFamilySchema **nv = realloc(s->family, (s->n_family + 1) * sizeof(*nv));
    if (!nv)
        return st_error(ST_NOMEM, "admin: out of memory building a schema");
    s->family = nv;
    Strata__Admin__ColumnFamilySchema *f = calloc(1, sizeof(*f));
    if (f)
        strata__admin__column_family_schema__init(f);
    if (!f || !(f->name = strndup(name, len))) {
        free(f);
        return st_error(ST_NOMEM, "admin: out of memory building a schema");
    }
    s->family[s->n_family++] = f;
    return ST_OK;
}

int admin_rpc_schema_new(const char *table, const char *families, Strata__Admin__TableSchema **out)
{
    if (!out)
        return st_error(ST_INVALID_ARGUMENT, "admin: schema needs an output pointer");
    *out = NULL;
    int rc = admin_rpc_check_table_name(table);
    if (rc != ST_OK)
        return rc;
    Strata__Admin__TableSchema *s = calloc(1, sizeof(*s));
    if (!s)
        return st_error(ST_NOMEM, "admin: out of memory building a schema");
    strata__admin__table_schema__init(s);
    if (!(s->name = strdup(table)))
        rc = st_error(ST_NOMEM, "admin: out of memory building a schema");
    for (const char *p = families ? families : ""; rc == ST_OK && *p;) {
        size_t len = strcspn(p, ",");
        rc = add_family(s, p, len);
        p += len + (p[len] == ',');
    }
    if (rc == ST_OK)
        rc = check_schema(s);
    if (rc != ST_OK) {
        admin_rpc_schema_free(s);
        return rc;
    }
    *out = s;
    return ST_OK;
}

/* ---- tables ---- */

int admin_rpc_create_table(admin_rpc *a, const Strata__Admin__TableSchema *schema,
                           const ProtobufCBinaryData *split_keys, size_t n_split_keys)
{
    Strata__Master__CreateTableRequest req = STRATA__MASTER__CREATE_TABLE_REQUEST__INIT;
    char what[320];
    int rc = check_handle(a, "create table");
    if (rc == ST_OK)
        rc = check_schema(schema);
    if (rc == ST_OK)
        rc = check_splits(schema->name, split_keys, n_split_keys);
    if (rc != ST_OK)
        return rc;
    req.schema = (Strata__Admin__TableSchema *)schema;
    req.n_split_key = n_split_keys;
    req.split_key = (ProtobufCBinaryData *)split_keys;
    snprintf(what, sizeof(what), "create table %s", schema->name);
    return call(a, what, "MasterService.CreateTable", &req.base,
                &strata__master__create_table_response__descriptor, NULL);
}

int admin_rpc_create_table_presplit(admin_rpc *a, const Strata__Admin__TableSchema *schema,
                                    uint32_t num_regions, const char *split_algo)
{
    Strata__Master__CreateTableRequest req = STRATA__MASTER__CREATE_TABLE_REQUEST__INIT;
    char what[320];
    const char *algo = split_algo && split_algo[0] ? split_algo : "HexStringSplit";
    int rc = check_handle(a, "create table");
    if (rc == ST_OK)
        rc = check_schema(schema);
    if (rc == ST_OK && num_regions < 1)
        rc =
            st_error(ST_INVALID_ARGUMENT, "table %s: num_regions must be at least 1", schema->name);
    if (rc == ST_OK && strcmp(algo, "HexStringSplit") != 0 &&
        strcmp(algo, "DecimalStringSplit") != 0 && strcmp(algo, "UniformSplit") != 0)
        rc = st_error(ST_INVALID_ARGUMENT,
                      "table %s: unknown split algorithm '%s' (HexStringSplit, DecimalStringSplit "
                      "or UniformSplit)",
                      schema->name, algo);
    if (rc != ST_OK)
        return rc;
    req.schema = (Strata__Admin__TableSchema *)schema;
    req.has_num_regions = 1;
    req.num_regions = num_regions;
    req.split_algo = (char *)algo;
    snprintf(what, sizeof(what), "create table %s (%u regions, %s)", schema->name, num_regions,
             algo);
    return call(a, what, "MasterService.CreateTable", &req.base,
                &strata__master__create_table_response__descriptor, NULL);
}

int admin_rpc_modify_table(admin_rpc *a, const Strata__Admin__TableSchema *schema)
{
    return admin_rpc_modify_table_async(a, schema, false);
}

int admin_rpc_modify_table_async(admin_rpc *a, const Strata__Admin__TableSchema *schema,
                                 bool async)
{
    Strata__Master__ModifyTableRequest req = STRATA__MASTER__MODIFY_TABLE_REQUEST__INIT;
    req.has_async = async;
    req.async = async;
    char what[320];
    int rc = check_handle(a, "modify table");
    if (rc == ST_OK)
        rc = check_schema(schema);
    if (rc != ST_OK)
        return rc;
    req.schema = (Strata__Admin__TableSchema *)schema;
    snprintf(what, sizeof(what), "modify table %s", schema->name);
    return call(a, what, "MasterService.ModifyTable", &req.base,
                &strata__master__modify_table_response__descriptor, NULL);
}

/* A call naming one table: checks the handle and the name, then calls with req (each
 * caller fills its own request message). */
static int table_call(admin_rpc *a, const char *op, const char *table, const char *method,
                      ProtobufCMessage *req, const ProtobufCMessageDescriptor *desc,
                      ProtobufCMessage **resp)
{
    char what[320];
    int rc = check_handle(a, op);
    if (rc == ST_OK)
        rc = admin_rpc_check_table_name(table);
    if (rc != ST_OK)
        return rc;
    snprintf(what, sizeof(what), "%s %s", op, table);
    return call(a, what, method, req, desc, resp);
}

int admin_rpc_delete_table(admin_rpc *a, const char *table)
{
    Strata__Master__DeleteTableRequest req = STRATA__MASTER__DELETE_TABLE_REQUEST__INIT;
    req.table = (char *)table;
    return table_call(a, "delete table", table, "MasterService.DeleteTable", &req.base,
                      &strata__master__delete_table_response__descriptor, NULL);
}

int admin_rpc_enable_table(admin_rpc *a, const char *table)
{
    Strata__Master__EnableTableRequest req = STRATA__MASTER__ENABLE_TABLE_REQUEST__INIT;
    req.table = (char *)table;
    return table_call(a, "enable table", table, "MasterService.EnableTable", &req.base,
                      &strata__master__enable_table_response__descriptor, NULL);
}

int admin_rpc_disable_table(admin_rpc *a, const char *table)
{
    Strata__Master__DisableTableRequest req = STRATA__MASTER__DISABLE_TABLE_REQUEST__INIT;
    req.table = (char *)table;
    return table_call(a, "disable table", table, "MasterService.DisableTable", &req.base,
                      &strata__master__disable_table_response__descriptor, NULL);
}

int admin_rpc_truncate_table(admin_rpc *a, const char *table, bool preserve_splits)
{
    Strata__Master__TruncateTableRequest req = STRATA__MASTER__TRUNCATE_TABLE_REQUEST__INIT;
    req.table = (char *)table;
    req.has_preserve_splits = 1;
    req.preserve_splits = preserve_splits;
    return table_call(a, "truncate table", table, "MasterService.TruncateTable", &req.base,
                      &strata__master__truncate_table_response__descriptor, NULL);
}

int admin_rpc_describe_table(admin_rpc *a, const char *table,
                             Strata__Master__DescribeTableResponse **out)
{
    Strata__Master__DescribeTableRequest req = STRATA__MASTER__DESCRIBE_TABLE_REQUEST__INIT;
    if (!out)
        return st_error(ST_INVALID_ARGUMENT, "admin: describe table needs an output pointer");
    *out = NULL;
    req.table = (char *)table;
    return table_call(a, "describe table", table, "MasterService.DescribeTable", &req.base,
                      &strata__master__describe_table_response__descriptor,
                      (ProtobufCMessage **)out);
}

int admin_rpc_table_regions(admin_rpc *a, const char *table,
                            Strata__Master__GetTableRegionsResponse **out)
{
    Strata__Master__GetTableRegionsRequest req = STRATA__MASTER__GET_TABLE_REGIONS_REQUEST__INIT;
    if (!out)
        return st_error(ST_INVALID_ARGUMENT, "admin: table regions needs an output pointer");
    *out = NULL;
    req.table = (char *)table;
    return table_call(a, "list regions of", table, "MasterService.GetTableRegions", &req.base,
                      &strata__master__get_table_regions_response__descriptor,
                      (ProtobufCMessage **)out);
}

int admin_rpc_list_tables(admin_rpc *a, const char *ns, Strata__Master__ListTablesResponse **out)
{
    Strata__Master__ListTablesRequest req = STRATA__MASTER__LIST_TABLES_REQUEST__INIT;
    char what[320];
    if (!out)
        return st_error(ST_INVALID_ARGUMENT, "admin: list tables needs an output pointer");
    *out = NULL;
    int rc = check_handle(a, "list tables");
    if (rc == ST_OK && ns)
        rc = check_namespace(ns);
    if (rc != ST_OK)
        return rc;
    req.namespace_ = (char *)ns;
    snprintf(what, sizeof(what), "list tables%s%s", ns ? " of namespace " : "", ns ? ns : "");
    return call(a, what, "MasterService.ListTables", &req.base,
                &strata__master__list_tables_response__descriptor, (ProtobufCMessage **)out);
}

/* ---- namespaces ---- */

static int namespace_call(admin_rpc *a, const char *op, const char *name, const char *method,
                          ProtobufCMessage *req, const ProtobufCMessageDescriptor *desc)
{
    char what[320];
    int rc = check_handle(a, op);
    if (rc == ST_OK)
        rc = check_namespace(name);
    if (rc != ST_OK)
        return rc;
    snprintf(what, sizeof(what), "%s %s", op, name);
    return call(a, what, method, req, desc, NULL);
}

int admin_rpc_create_namespace(admin_rpc *a, const char *name)
{
    return admin_rpc_create_namespace_props(a, name, NULL, 0);
}

int admin_rpc_create_namespace_props(admin_rpc *a, const char *name,
                                     Strata__Master__NamespaceProperty **props, size_t n)
{
    Strata__Master__CreateNamespaceRequest req = STRATA__MASTER__CREATE_NAMESPACE_REQUEST__INIT;
    req.name = (char *)name;
    req.property = props;
    req.n_property = n;
    return namespace_call(a, "create namespace", name, "MasterService.CreateNamespace", &req.base,
                          &strata__master__create_namespace_response__descriptor);
}

int admin_rpc_modify_namespace(admin_rpc *a, const char *name,
                               Strata__Master__NamespaceProperty **props, size_t n)
{
    Strata__Master__ModifyNamespaceRequest req = STRATA__MASTER__MODIFY_NAMESPACE_REQUEST__INIT;
    req.name = (char *)name;
    req.property = props;
    req.n_property = n;
    return namespace_call(a, "modify namespace", name, "MasterService.ModifyNamespace", &req.base,
                          &strata__master__modify_namespace_response__descriptor);
}

int admin_rpc_get_namespace(admin_rpc *a, const char *name,
                            Strata__Master__GetNamespaceResponse **out)
{
    Strata__Master__GetNamespaceRequest req = STRATA__MASTER__GET_NAMESPACE_REQUEST__INIT;
    char what[320];
    if (!out)
        return st_error(ST_INVALID_ARGUMENT, "admin: get namespace needs an output pointer");
    *out = NULL;
    int rc = check_handle(a, "get namespace");
    if (rc == ST_OK)
        rc = check_namespace(name);
    if (rc != ST_OK)
        return rc;
    req.name = (char *)name;
    snprintf(what, sizeof(what), "get namespace %s", name);
    return call(a, what, "MasterService.GetNamespace", &req.base,
                &strata__master__get_namespace_response__descriptor, (ProtobufCMessage **)out);
}

int admin_rpc_delete_namespace(admin_rpc *a, const char *name)
{
    Strata__Master__DeleteNamespaceRequest req = STRATA__MASTER__DELETE_NAMESPACE_REQUEST__INIT;
    req.name = (char *)name;
    return namespace_call(a, "delete namespace", name, "MasterService.DeleteNamespace", &req.base,
                          &strata__master__delete_namespace_response__descriptor);
}

int admin_rpc_list_namespaces(admin_rpc *a, Strata__Master__ListNamespacesResponse **out)
{
    Strata__Master__ListNamespacesRequest req = STRATA__MASTER__LIST_NAMESPACES_REQUEST__INIT;
    if (!out)
        return st_error(ST_INVALID_ARGUMENT, "admin: list namespaces needs an output pointer");
    *out = NULL;
    int rc = check_handle(a, "list namespaces");
    if (rc != ST_OK)
        return rc;
    return call(a, "list namespaces", "MasterService.ListNamespaces", &req.base,
                &strata__master__list_namespaces_response__descriptor, (ProtobufCMessage **)out);
}

/* ---- regions ---- */

static void take_server(const Strata__Master__ServerName *s, server_name *to)
{
    if (!to)
        return;
    memset(to, 0, sizeof(*to));
    if (!s)
        return;
    snprintf(to->host, sizeof(to->host), "%s", s->host);
    to->port = (uint16_t)s->port;
    to->start_code = s->start_code;
}

static int check_dest(const char *dest)
{
    server_name sn;
    if (!dest)
        return ST_OK;
    if (strchr(dest, ',') && server_name_parse(dest, &sn) == ST_OK)
        return ST_OK;
    const char *colon = strrchr(dest, ':');
    char *end = NULL;
    long port = colon ? strtol(colon + 1, &end, 10) : 0;
    if (!colon || colon == dest || !end || *end || port < 1 || port > 65535 || strchr(dest, ','))
        return st_error(ST_INVALID_ARGUMENT,
                        "move: destination '%s' is neither host,port,startcode nor host:port",
                        dest);
    return ST_OK;
}

int admin_rpc_move(admin_rpc *a, const char *encoded_name, const char *dest, server_name *to)
{
    Strata__Master__MoveRegionRequest req = STRATA__MASTER__MOVE_REGION_REQUEST__INIT;
    Strata__Master__MoveRegionResponse *resp = NULL;
    char what[400];
    int rc = check_handle(a, "move");
    if (rc == ST_OK)
        rc = check_region(encoded_name, "move");
    if (rc == ST_OK)
        rc = check_dest(dest);
    if (rc != ST_OK)
        return rc;
    req.encoded_name = (char *)encoded_name;
    req.dest = (char *)dest;
    snprintf(what, sizeof(what), "move region %s to %s", encoded_name, dest ? dest : "any server");
    rc = call(a, what, "MasterService.MoveRegion", &req.base,
              &strata__master__move_region_response__descriptor, (ProtobufCMessage **)&resp);
    if (rc == ST_OK)
        take_server(resp->server, to);
    admin_rpc_free_msg(resp);
    return rc;
}

int admin_rpc_assign(admin_rpc *a, const char *encoded_name, server_name *to)
{
    Strata__Master__AssignRegionRequest req = STRATA__MASTER__ASSIGN_REGION_REQUEST__INIT;
    Strata__Master__AssignRegionResponse *resp = NULL;
    char what[320];
    int rc = check_handle(a, "assign");
    if (rc == ST_OK)
        rc = check_region(encoded_name, "assign");
    if (rc != ST_OK)
        return rc;
    req.encoded_name = (char *)encoded_name;
    snprintf(what, sizeof(what), "assign region %s", encoded_name);
    rc = call(a, what, "MasterService.AssignRegion", &req.base,
              &strata__master__assign_region_response__descriptor, (ProtobufCMessage **)&resp);
    if (rc == ST_OK)
        take_server(resp->server, to);
    admin_rpc_free_msg(resp);
    return rc;
}

int admin_rpc_unassign(admin_rpc *a, const char *encoded_name)
{
    Strata__Master__UnassignRegionRequest req = STRATA__MASTER__UNASSIGN_REGION_REQUEST__INIT;
    char what[320];
    int rc = check_handle(a, "unassign");
    if (rc == ST_OK)
        rc = check_region(encoded_name, "unassign");
    if (rc != ST_OK)
        return rc;
    req.encoded_name = (char *)encoded_name;
    snprintf(what, sizeof(what), "unassign region %s", encoded_name);
    return call(a, what, "MasterService.UnassignRegion", &req.base,
                &strata__master__unassign_region_response__descriptor, NULL);
}

/* A flush or compaction (compact) of a table or (table NULL) a region, of every family
 * or (family non-empty) one. */
static int maint_call(admin_rpc *a, bool compact, bool major, const char *table,
                      const char *encoded_name, const char *family)
{
    Strata__Master__FlushRequest freq = STRATA__MASTER__FLUSH_REQUEST__INIT;
    Strata__Master__CompactRequest creq = STRATA__MASTER__COMPACT_REQUEST__INIT;
    const char *op = !compact ? "flush" : major ? "major compact" : "compact";
    char what[600];
    if (family && !family[0])
        family = NULL;
    int rc = check_handle(a, op);
    if (rc == ST_OK)
        rc = table ? admin_rpc_check_table_name(table) : check_region(encoded_name, op);
    if (rc == ST_OK && family && strlen(family) > 255)
        rc = st_error(ST_INVALID_ARGUMENT, "%s: column family name too long", op);
    if (rc != ST_OK)
        return rc;
    snprintf(what, sizeof(what), "%s %s %s%s%s", op, table ? "table" : "region",
             table ? table : encoded_name, family ? ", family " : "", family ? family : "");
    if (!compact) {
        freq.table = (char *)table;
        freq.encoded_name = table ? NULL : (char *)encoded_name;
        freq.family = (char *)family;
        return call(a, what, "MasterService.Flush", &freq.base,
                    &strata__master__flush_response__descriptor, NULL);
    }
    creq.table = (char *)table;
    creq.encoded_name = table ? NULL : (char *)encoded_name;
    creq.family = (char *)family;
    creq.has_major = 1;
    creq.major = major;
    return call(a, what, "MasterService.Compact", &creq.base,
                &strata__master__compact_response__descriptor, NULL);
}

int admin_rpc_flush(admin_rpc *a, const char *table, const char *encoded_name,
                    const char *family)
{
    return maint_call(a, false, false, table, encoded_name, family);
}

int admin_rpc_compact(admin_rpc *a, const char *table, const char *encoded_name,
                      const char *family, bool major)
{
    return maint_call(a, true, major, table, encoded_name, family);
}

int admin_rpc_flush_table(admin_rpc *a, const char *table)
{
    return maint_call(a, false, false, table, NULL, NULL);
}

int admin_rpc_flush_region(admin_rpc *a, const char *encoded_name)
{
    return maint_call(a, false, false, NULL, encoded_name, NULL);
}

int admin_rpc_compact_table(admin_rpc *a, const char *table, bool major)
{
    return maint_call(a, true, major, table, NULL, NULL);
}

int admin_rpc_compact_region(admin_rpc *a, const char *encoded_name, bool major)
{
    return maint_call(a, true, major, NULL, encoded_name, NULL);
}

/* ---- cluster ---- */

int admin_rpc_cluster_status(admin_rpc *a, Strata__Master__GetClusterStatusResponse **out)
{
    Strata__Master__GetClusterStatusRequest req = STRATA__MASTER__GET_CLUSTER_STATUS_REQUEST__INIT;
    if (!out)
        return st_error(ST_INVALID_ARGUMENT, "admin: cluster status needs an output pointer");
    *out = NULL;
    int rc = check_handle(a, "cluster status");
    if (rc != ST_OK)
        return rc;
    return call(a, "cluster status", "MasterService.GetClusterStatus", &req.base,
                &strata__master__get_cluster_status_response__descriptor, (ProtobufCMessage **)out);
}
