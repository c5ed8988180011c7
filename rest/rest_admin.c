/*
 * rest_admin.c - HBase REST's cluster and schema resources (docs/rest.md, "Endpoints"):
 * GET / (tables), /version, /version/cluster, /status/cluster, the namespaces
 * (GET|POST|PUT|DELETE /namespaces[/<ns>], GET /namespaces/<ns>/tables), and per table
 * /schema (GET, PUT replaces, POST creates or updates, DELETE drops), /regions and
 * /exists. Everything goes through strata/admin.h.
 * Thread-safety: reentrant (the admin handle is thread-safe).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "rest/rest_internal.h"

static const rest_media DOC_OUT[] = {REST_MEDIA_TEXT, REST_MEDIA_XML, REST_MEDIA_JSON,
                                     REST_MEDIA_PROTOBUF, REST_MEDIA_PROTOBUF_IETF};
#define N_DOC_OUT (sizeof(DOC_OUT) / sizeof(DOC_OUT[0]))
static const rest_media DOC_IN[] = {REST_MEDIA_XML, REST_MEDIA_JSON, REST_MEDIA_PROTOBUF,
                                    REST_MEDIA_PROTOBUF_IETF};
#define N_DOC_IN (sizeof(DOC_IN) / sizeof(DOC_IN[0]))

/* Answers the outcome of an encoder. */
static void encoded(rest_resp *resp, int rc)
{
    if (rc != ST_OK)
        rest_resp_error(resp, 503, "the gateway is out of memory");
}

void rest_admin_root(rest_server *s, const rest_req *req, rest_resp *resp)
{
    rest_media media;
    if (!rest_negotiate(req, resp, DOC_OUT, N_DOC_OUT, &media))
        return;
    char *err = NULL;
    strata_name_list_t *l = strata_admin_list_tables(s->admin, NULL, &err);
    if (!l) {
        rest_fail(resp, err, "list of tables");
        return;
    }
    encoded(resp, rest_doc_table_list(media, l, false, rest_resp_body(resp)));
    strata_name_list_destroy(l);
}

void rest_admin_version(rest_server *s, const rest_req *req, rest_resp *resp, bool cluster)
{
    rest_media media;
    if (!cluster) {
        if (rest_negotiate(req, resp, DOC_OUT, N_DOC_OUT, &media))
            encoded(resp, rest_doc_version(media, rest_resp_body(resp)));
        return;
    }
    if (!rest_negotiate(req, resp, DOC_OUT, 3, &media)) /* text, XML, JSON */
        return;
    char *err = NULL;
    strata_cluster_status_t *st = strata_admin_cluster_status(s->admin, &err);
    if (!st) {
        rest_fail(resp, err, "cluster version");
        return;
    }
    const char *v = strata_cluster_status_version(st);
    encoded(resp, rest_doc_cluster_version(media, v ? v : "unknown", rest_resp_body(resp)));
    strata_cluster_status_destroy(st);
}

void rest_admin_status(rest_server *s, const rest_req *req, rest_resp *resp)
{
    rest_media media;
    if (!rest_negotiate(req, resp, DOC_OUT, N_DOC_OUT, &media))
        return;
    char *err = NULL;
    strata_cluster_status_t *st = strata_admin_cluster_status(s->admin, &err);
    if (!st) {
        rest_fail(resp, err, "cluster status");
        return;
    }
    encoded(resp, rest_doc_status(media, st, rest_resp_body(resp)));
    strata_cluster_status_destroy(st);
}

/* ---- namespaces ---- */

static bool ns_exists(rest_server *s, rest_resp *resp, const char *ns, bool *exists)
{
    char *err = NULL;
    strata_namespace_descriptor_t *nd = strata_admin_describe_namespace(s->admin, ns, &err);
    *exists = nd != NULL;
    strata_namespace_descriptor_destroy(nd);
    if (err && strata_error_code(err) != STRATA_ERR_NOT_FOUND) {
        rest_fail(resp, err, "namespace %s", ns);
        return false;
    }
    strata_free(err);
    return true;
}

static void ns_get(rest_server *s, const rest_req *req, rest_resp *resp, const char *ns)
{
    rest_media media;
    if (!rest_negotiate(req, resp, DOC_OUT, N_DOC_OUT, &media))
        return;
    char *err = NULL;
    strata_namespace_descriptor_t *nd = strata_admin_describe_namespace(s->admin, ns, &err);
    if (!nd) {
        rest_fail(resp, err, "namespace %s", ns);
        return;
    }
    encoded(resp, rest_doc_props(media, nd, rest_resp_body(resp)));
    strata_namespace_descriptor_destroy(nd);
}

static void ns_tables(rest_server *s, const rest_req *req, rest_resp *resp, const char *ns)
{
    rest_media media;
    if (!rest_negotiate(req, resp, DOC_OUT, N_DOC_OUT, &media))
        return;
    bool exists = false;
    if (!ns_exists(s, resp, ns, &exists))
        return;
    if (!exists) {
        rest_resp_error(resp, 404, "namespace %s does not exist", ns);
        return;
    }
    char *err = NULL;
    strata_name_list_t *l = strata_admin_list_tables(s->admin, ns, &err);
    if (!l) {
        rest_fail(resp, err, "tables of namespace %s", ns);
        return;
    }
    encoded(resp, rest_doc_table_list(media, l, true, rest_resp_body(resp)));
    strata_name_list_destroy(l);
}

/* POST creates (403 if it exists, as HBase), PUT alters (403 if it does not). */
static void ns_update(rest_server *s, const rest_req *req, rest_resp *resp, const char *ns,
                      bool alter)
{
    if (rest_refuse_read_only(s, resp))
        return;
    rest_props props = {0};
    if (req->body.len) {
        rest_media media;
        if (!rest_body_media(req, resp, DOC_IN, N_DOC_IN, &media))
            return;
        if (rest_props_decode(media, req->body.data, req->body.len, &props) != ST_OK) {
            rest_resp_error(resp, 400, "malformed NamespaceProperties: %s", st_errmsg());
            return;
        }
    }
    bool exists = false;
    if (!ns_exists(s, resp, ns, &exists)) {
        rest_props_free(&props);
        return;
    }
    if (!alter && exists) {
        rest_resp_error(resp, 403, "namespace '%s' already exists; use PUT to alter it", ns);
    } else if (alter && !exists) {
        rest_resp_error(resp, 403, "namespace '%s' does not exist; use POST to create it", ns);
    } else {
        strata_namespace_descriptor_t *nd = strata_namespace_descriptor_create(ns);
        bool ok = nd != NULL;
        for (size_t i = 0; ok && i < props.n; i++)
            ok = strata_namespace_descriptor_set(nd, props.items[i].name, props.items[i].value);
        char *err = NULL;
        if (!ok)
            rest_resp_error(resp, 503, "the gateway is out of memory");
        else if (alter)
            strata_admin_modify_namespace(s->admin, nd, &err);
        else
            strata_admin_create_namespace_descriptor(s->admin, nd, &err);
        strata_namespace_descriptor_destroy(nd);
        if (err)
            rest_fail(resp, err, "%s of namespace %s", alter ? "alter" : "create", ns);
        else if (ok && !alter)
            rest_resp_set(resp, 201, "text/plain");
    }
    rest_props_free(&props);
}

static void ns_delete(rest_server *s, rest_resp *resp, const char *ns)
{
    if (rest_refuse_read_only(s, resp))
        return;
    bool exists = false;
    if (!ns_exists(s, resp, ns, &exists))
        return;
    if (!exists) {
        rest_resp_error(resp, 404, "namespace '%s' does not exist; cannot drop it", ns);
        return;
    }
    char *err = NULL;
    strata_admin_delete_namespace(s->admin, ns, &err);
    if (err && strata_error_code(err) == STRATA_ERR_INVALID_ARGUMENT) {
        /* not empty, or reserved: the namespace's state forbids it */
        rest_resp_error(resp, 409, "drop of namespace %s: %s", ns, err);
        strata_free(err);
    } else if (err) {
        rest_fail(resp, err, "drop of namespace %s", ns);
    }
}

void rest_admin_namespaces(rest_server *s, const rest_req *req, rest_resp *resp, const char *ns,
                           bool tables)
{
    if (!ns) {
        rest_media media;
        if (!rest_negotiate(req, resp, DOC_OUT, N_DOC_OUT, &media))
            return;
        char *err = NULL;
        strata_name_list_t *l = strata_admin_list_namespaces(s->admin, &err);
        if (!l) {
            rest_fail(resp, err, "list of namespaces");
            return;
        }
        encoded(resp, rest_doc_namespaces(media, l, rest_resp_body(resp)));
        strata_name_list_destroy(l);
    } else if (tables) {
        ns_tables(s, req, resp, ns);
    } else if (req->method == REST_GET || req->method == REST_HEAD) {
        ns_get(s, req, resp, ns);
    } else if (req->method == REST_DELETE) {
        ns_delete(s, resp, ns);
    } else {
        ns_update(s, req, resp, ns, req->method == REST_PUT);
    }
}

/* ---- schema ---- */

static void schema_get(rest_server *s, const rest_req *req, rest_resp *resp, const char *table)
{
    rest_media media;
    if (!rest_negotiate(req, resp, DOC_OUT, N_DOC_OUT, &media))
        return;
    char *err = NULL;
    strata_table_state state;
    strata_table_descriptor_t *td = strata_admin_describe_table(s->admin, table, &state, NULL, &err);
    if (!td) {
        rest_fail(resp, err, "schema of table %s", table);
        return;
    }
    rest_resp_header(resp, "Cache-Control", "no-cache");
    encoded(resp, rest_schema_encode(media, td, state, rest_resp_body(resp)));
    strata_table_descriptor_destroy(td);
}

/* POST onto an existing table: the document's families replace or join the table's, its
 * attributes replace the table's; families it does not name stay. */
static int merge_into(strata_table_descriptor_t *cur, const strata_table_descriptor_t *doc)
{
    for (int a = STRATA_TABLE_MAX_FILESIZE; a <= STRATA_TABLE_DURABILITY; a++)
        if (strata_table_descriptor_is_set(doc, (strata_table_attr)a))
            strata_table_descriptor_set(cur, (strata_table_attr)a,
                                        strata_table_descriptor_get(doc, (strata_table_attr)a));
    for (size_t i = 0; i < strata_table_descriptor_value_count(doc); i++) {
        const char *k = strata_table_descriptor_value_key(doc, i);
        if (!strata_table_descriptor_set_value(cur, k, strata_table_descriptor_get_value(doc, k)))
            return ST_NOMEM;
    }
    for (size_t i = 0; i < strata_table_descriptor_family_count(doc); i++) {
        const strata_family_descriptor_t *f = strata_table_descriptor_family(doc, i);
        strata_family_descriptor_t *nf =
            strata_table_descriptor_add_family(cur, strata_family_descriptor_name(f));
        if (!nf)
            return ST_NOMEM;
        for (int a = STRATA_FAMILY_VERSIONS; a <= STRATA_FAMILY_KEEP_DELETED_CELLS; a++)
            if (strata_family_descriptor_is_set(f, (strata_family_attr)a))
                strata_family_descriptor_set(nf, (strata_family_attr)a,
                                             strata_family_descriptor_get(f, (strata_family_attr)a));
    }
    return ST_OK;
}

static void schema_update(rest_server *s, const rest_req *req, rest_resp *resp, const char *table,
                          bool replace)
{
    if (rest_refuse_read_only(s, resp))
        return;
    rest_media media;
    if (!rest_body_media(req, resp, DOC_IN, N_DOC_IN, &media))
        return;
    rest_table_schema doc;
    if (rest_schema_decode(media, req->body.data, req->body.len, &doc) != ST_OK) {
        rest_resp_error(resp, 400, "malformed TableSchema: %s", st_errmsg());
        return;
    }
    strata_table_descriptor_t *td = NULL;
    int rc = rest_schema_to_descriptor(&doc, table, &td);
    rest_schema_free(&doc);
    if (rc != ST_OK) {
        rest_resp_error(resp, 400, "%s", st_errmsg());
        return;
    }
    char *err = NULL;
    unsigned char exists = strata_admin_table_exists(s->admin, table, &err);
    if (err) {
        strata_table_descriptor_destroy(td);
        rest_fail(resp, err, "schema of table %s", table);
        return;
    }
    if (!exists) {
        strata_admin_create_table(s->admin, td, NULL, NULL, 0, &err);
        if (err && strata_error_code(err) == STRATA_ERR_EXISTS) {
            /* a race: someone created it meanwhile (HBase answers 304) */
            rest_resp_error(resp, 304, "table %s was created by another request meanwhile", table);
            strata_free(err);
        } else if (err) {
            rest_fail(resp, err, "create of table %s", table);
        } else {
            rest_resp_set(resp, 201, "text/plain");
        }
        strata_table_descriptor_destroy(td);
        return;
    }
    if (!replace) {
        strata_table_descriptor_t *cur = strata_admin_describe_table(s->admin, table, NULL, NULL, &err);
        if (!cur) {
            strata_table_descriptor_destroy(td);
            rest_fail(resp, err, "schema of table %s", table);
            return;
        }
        if (merge_into(cur, td) != ST_OK) {
            strata_table_descriptor_destroy(cur);
            strata_table_descriptor_destroy(td);
            rest_resp_error(resp, 503, "the gateway is out of memory");
            return;
        }
        strata_table_descriptor_destroy(td);
        td = cur;
    }
    strata_admin_modify_table(s->admin, td, &err);
    strata_table_descriptor_destroy(td);
    if (err)
        rest_fail(resp, err, "alter of table %s", table);
    else
        rest_resp_set(resp, replace ? 201 : 200, "text/plain");
}

static void schema_delete(rest_server *s, rest_resp *resp, const char *table)
{
    if (rest_refuse_read_only(s, resp))
        return;
    char *err = NULL;
    strata_admin_disable_table(s->admin, table, &err);
    if (err && strata_error_code(err) != STRATA_ERR_TABLE_DISABLED &&
        strata_error_code(err) != STRATA_ERR_INVALID_ARGUMENT) {
        rest_fail(resp, err, "disable of table %s", table);
        return;
    }
    strata_free(err);
    err = NULL;
    strata_admin_delete_table(s->admin, table, &err);
    if (err)
        rest_fail(resp, err, "drop of table %s", table);
}

void rest_admin_schema(rest_server *s, const rest_req *req, rest_resp *resp, const char *table)
{
    if (req->method == REST_GET || req->method == REST_HEAD)
        schema_get(s, req, resp, table);
    else if (req->method == REST_DELETE)
        schema_delete(s, resp, table);
    else
        schema_update(s, req, resp, table, req->method == REST_PUT);
}

void rest_admin_regions(rest_server *s, const rest_req *req, rest_resp *resp, const char *table)
{
    rest_media media;
    if (!rest_negotiate(req, resp, DOC_OUT, N_DOC_OUT, &media))
        return;
    char *err = NULL;
    strata_region_list_t *l = strata_admin_table_regions(s->admin, table, &err);
    if (!l) {
        rest_fail(resp, err, "regions of table %s", table);
        return;
    }
    encoded(resp, rest_doc_table_info(media, table, l, rest_resp_body(resp)));
    strata_region_list_destroy(l);
}

void rest_admin_exists(rest_server *s, const rest_req *req, rest_resp *resp, const char *table)
{
    char *err = NULL;
    unsigned char exists = strata_admin_table_exists(s->admin, table, &err);
    if (err)
        rest_fail(resp, err, "exists of table %s", table);
    else if (!exists)
        rest_resp_error(resp, 404, "table %s does not exist", table);
    else
        rest_resp_header(resp, "Cache-Control", "no-cache");
}
