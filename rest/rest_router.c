/*
 * rest_router.c - which handler answers a REST request (HBase's RootResource and
 * TableResource paths; docs/rest.md, "Endpoints"), and the helpers every handler shares:
 * content negotiation, the request body's media type, read-only refusals and the mapping
 * of client errors to HTTP statuses.
 *
 *   /                                 GET      tables
 *   /version[/rest] /version/cluster  GET
 *   /status/cluster                   GET
 *   /namespaces[/<ns>[/tables]]       GET, and PUT POST DELETE on /<ns>
 *   /<table>/schema                   GET PUT POST DELETE
 *   /<table>/regions  /<table>/exists GET
 *   /<table>/scanner[/<id>]           PUT POST, then GET DELETE on /<id>
 *   /<table>/multiget[/<columns>]     GET ?row=..&row=..
 *   /<table>/<prefix>*                GET (a stateless scan; ?startrow= &endrow= &limit= ...)
 *   /<table>/<row spec>               GET PUT POST DELETE
 *
 * Path parts are split on '/' before they are decoded; a table name is checked before any
 * handler runs.
 * Thread-safety: reentrant.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "rest/rest_internal.h"

#define MAX_SEGS 8

/* ---- shared helpers ---- */

bool rest_negotiate(const rest_req *req, rest_resp *resp, const rest_media *offered, size_t n,
                    rest_media *out)
{
    *out = rest_media_choose(req->accept, offered, n);
    if (*out != REST_MEDIA_NONE) {
        rest_resp_set(resp, rest_resp_status(resp), rest_media_name(*out));
        return true;
    }
    char list[256] = "";
    for (size_t i = 0; i < n; i++) {
        strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
        strncat(list, rest_media_name(offered[i]), sizeof(list) - strlen(list) - 1);
    }
    rest_resp_error(resp, 406, "none of the media types in 'Accept: %s' can be produced here "
                               "(offered: %s)",
                    req->accept ? req->accept : "", list);
    return false;
}

bool rest_body_media(const rest_req *req, rest_resp *resp, const rest_media *accepted, size_t n,
                     rest_media *out)
{
    rest_media m = rest_media_parse(req->content_type);
    for (size_t i = 0; i < n; i++)
        if (accepted[i] == m) {
            *out = m;
            return true;
        }
    char list[256] = "";
    for (size_t i = 0; i < n; i++) {
        strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
        strncat(list, rest_media_name(accepted[i]), sizeof(list) - strlen(list) - 1);
    }
    rest_resp_error(resp, 415, "cannot read a body of Content-Type '%s' here (send one of: %s)",
                    req->content_type ? req->content_type : "(none)", list);
    return false;
}

bool rest_refuse_read_only(rest_server *s, rest_resp *resp)
{
    if (!s->set.read_only)
        return false;
    rest_resp_error(resp, 403, "this gateway is read-only (rest.readonly = true)");
    return true;
}

void rest_fail(rest_resp *resp, char *err, const char *what_fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, what_fmt);
    vsnprintf(what, sizeof(what), what_fmt, ap);
    va_end(ap);
    int status;
    switch (strata_error_code(err)) {
    case STRATA_ERR_NOT_FOUND:
    case STRATA_ERR_NO_SUCH_FAMILY:
        status = 404;
        break;
    case STRATA_ERR_INVALID_ARGUMENT:
    case STRATA_ERR_UNSUPPORTED:
        status = 400;
        break;
    case STRATA_ERR_EXISTS:
    case STRATA_ERR_TABLE_DISABLED:
        status = 409;
        break;
    case STRATA_ERR_PERMISSION:
        status = 403;
        break;
    default: /* retryable, I/O, corruption, internal, memory: the cluster cannot answer now */
        status = 503;
        break;
    }
    rest_resp_error(resp, status, "%s: %s", what, err ? err : "unknown error");
    strata_free(err);
}

/* Answers 405 with the methods a resource allows. */
static void not_allowed(const rest_req *req, rest_resp *resp, const char *allow)
{
    rest_resp_error(resp, 405, "%s is not allowed on %s (allowed: %s)", req->method_name,
                    req->path, allow);
    rest_resp_header(resp, "Allow", allow);
}

/* The decoded table name of a path part: NULL (answered 400) when it is not one. */
static char *table_name(const char *seg, rest_resp *resp)
{
    buf_t b = {0};
    if (rest_url_decode(&b, seg, strlen(seg), true) != ST_OK || !b.data) {
        rest_resp_error(resp, 400, "bad table name '%s': %s", seg,
                        b.data ? st_errmsg() : "it is empty");
        buf_free(&b);
        return NULL;
    }
    char *err = NULL;
    if (!strata_admin_check_table_name((const char *)b.data, &err)) {
        rest_resp_error(resp, 400, "bad table name: %s", err ? err : "?");
        strata_free(err);
        buf_free(&b);
        return NULL;
    }
    return (char *)b.data;
}

/* The decoded namespace of a path part, or NULL (answered 400). */
static char *ns_name(const char *seg, rest_resp *resp)
{
    buf_t b = {0};
    if (rest_url_decode(&b, seg, strlen(seg), true) != ST_OK || !b.data || !b.len ||
        strlen((const char *)b.data) != b.len) {
        rest_resp_error(resp, 400, "bad namespace name '%s'", seg);
        buf_free(&b);
        return NULL;
    }
    return (char *)b.data;
}

/* Splits path (after the leading '/') into at most MAX_SEGS parts; the last holds the rest
 * of the path. Returns the count; parts point into copy. */
static size_t split_path(char *copy, char **segs)
{
    char *p = copy;
    while (*p == '/')
        p++;
    size_t n = 0;
    while (*p && n < MAX_SEGS) {
        segs[n++] = p;
        char *slash = n < MAX_SEGS ? strchr(p, '/') : NULL;
        if (!slash)
            break;
        *slash = '\0';
        p = slash + 1;
    }
    /* a trailing slash leaves no empty last part */
    return n;
}

static bool is_get(const rest_req *req)
{
    return req->method == REST_GET || req->method == REST_HEAD;
}

static void route_table(rest_server *s, const rest_req *req, rest_resp *resp, char **segs,
                        size_t n, const char *rest_of_path)
{
    char *table = table_name(segs[0], resp);
    if (!table)
        return;
    const char *sub = n > 1 ? segs[1] : "";
    if (n == 1 || !*sub) {
        rest_resp_error(resp, 404, "no resource at %s: name one under the table (/schema, "
                                   "/regions, /exists, /scanner, /multiget or a row)",
                        req->path);
    } else if (strcmp(sub, "schema") == 0 && n == 2) {
        if (is_get(req) || req->method == REST_PUT || req->method == REST_POST ||
            req->method == REST_DELETE)
            rest_admin_schema(s, req, resp, table);
        else
            not_allowed(req, resp, "GET, HEAD, PUT, POST, DELETE");
    } else if ((strcmp(sub, "regions") == 0 || strcmp(sub, "exists") == 0) && n == 2) {
        if (!is_get(req))
            not_allowed(req, resp, "GET, HEAD");
        else if (sub[0] == 'r')
            rest_admin_regions(s, req, resp, table);
        else
            rest_admin_exists(s, req, resp, table);
    } else if (strcmp(sub, "scanner") == 0 && n <= 3) {
        if (n == 2) {
            if (req->method == REST_PUT || req->method == REST_POST)
                rest_scanner_create(s, req, resp, table);
            else
                not_allowed(req, resp, "PUT, POST");
        } else if (is_get(req)) {
            rest_scanner_next(s, req, resp, table, segs[2]);
        } else if (req->method == REST_DELETE) {
            rest_scanner_delete(s, req, resp, table, segs[2]);
        } else {
            not_allowed(req, resp, "GET, HEAD, DELETE");
        }
    } else if (strncmp(sub, "multiget", 8) == 0 && (sub[8] == '\0') && n <= 3) {
        if (is_get(req))
            rest_rows_multiget(s, req, resp, table, (const char *const *)segs + 2, n - 2);
        else
            not_allowed(req, resp, "GET, HEAD");
    } else if (rest_of_path[0] && rest_of_path[strlen(rest_of_path) - 1] == '*') {
        /* HBase's {scanspec: .*[*]$}: everything after the table ends in '*' */
        if (is_get(req))
            rest_scan_stateless(s, req, resp, table, rest_of_path);
        else
            not_allowed(req, resp, "GET, HEAD");
    } else if (is_get(req)) {
        rest_rows_get(s, req, resp, table, (const char *const *)segs + 1, n - 1);
    } else if (req->method == REST_PUT || req->method == REST_POST) {
        rest_rows_update(s, req, resp, table, (const char *const *)segs + 1, n - 1);
    } else if (req->method == REST_DELETE) {
        rest_rows_delete(s, req, resp, table, (const char *const *)segs + 1, n - 1);
    } else {
        not_allowed(req, resp, "GET, HEAD, PUT, POST, DELETE");
    }
    free(table);
}

void rest_route(rest_server *s, const rest_req *req, rest_resp *resp)
{
    atomic_fetch_add(&s->metrics.requests, 1);
    char *copy = strdup(req->path);
    if (!copy) {
        rest_resp_error(resp, 503, "the gateway is out of memory");
        return;
    }
    char *segs[MAX_SEGS];
    size_t n = split_path(copy, segs);
    /* the path after the table's part, for the stateless scan's pattern */
    const char *after_table = "";
    {
        const char *p = req->path;
        while (*p == '/')
            p++;
        const char *slash = strchr(p, '/');
        after_table = slash ? slash + 1 : "";
    }
    if (n == 0) {
        if (is_get(req))
            rest_admin_root(s, req, resp);
        else
            not_allowed(req, resp, "GET, HEAD");
    } else if (strcmp(segs[0], "version") == 0 && n <= 2) {
        bool cluster = n == 2 && strcmp(segs[1], "cluster") == 0;
        if (n == 2 && !cluster && strcmp(segs[1], "rest") != 0)
            rest_resp_error(resp, 404, "no resource at %s (/version, /version/rest or "
                                       "/version/cluster)",
                            req->path);
        else if (!is_get(req))
            not_allowed(req, resp, "GET, HEAD");
        else
            rest_admin_version(s, req, resp, cluster);
    } else if (strcmp(segs[0], "status") == 0 && n == 2 && strcmp(segs[1], "cluster") == 0) {
        if (is_get(req))
            rest_admin_status(s, req, resp);
        else
            not_allowed(req, resp, "GET, HEAD");
    } else if (strcmp(segs[0], "namespaces") == 0 && n <= 3) {
        char *ns = n >= 2 ? ns_name(segs[1], resp) : NULL;
        bool tables = n == 3 && strcmp(segs[2], "tables") == 0;
        if (n >= 2 && !ns) {
            /* answered */
        } else if (n == 3 && !tables) {
            rest_resp_error(resp, 404, "no resource at %s (/namespaces/<ns>/tables)", req->path);
        } else if (n == 1 || tables) {
            if (is_get(req))
                rest_admin_namespaces(s, req, resp, ns, tables);
            else
                not_allowed(req, resp, "GET, HEAD");
        } else if (is_get(req) || req->method == REST_PUT || req->method == REST_POST ||
                   req->method == REST_DELETE) {
            rest_admin_namespaces(s, req, resp, ns, false);
        } else {
            not_allowed(req, resp, "GET, HEAD, PUT, POST, DELETE");
        }
        free(ns);
    } else {
        route_table(s, req, resp, segs, n, after_table);
    }
    free(copy);
}
