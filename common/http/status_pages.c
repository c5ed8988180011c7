/*
 * status_pages.c - the endpoints every server serves, around a server's own snapshot and
 * renderers (see status_pages.h).
 * Thread-safety: handlers run on the HTTP thread; the registration table is immutable.
 */
#include "common/http/status_pages.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/http/prom.h"
#include "common/status.h"

static void fail_page(http_response *resp)
{
    buf_reset(&resp->body);
    http_response_set(resp, 500, "text/plain; charset=utf-8");
    http_response_printf(resp, "internal error: %s\n", st_errmsg());
}

static int view_take(const status_pages *r, status_pages_view *v)
{
    memset(v, 0, sizeof(*v));
    v->now_ms = clock_now_ms();
    v->ready = r->ops->ready(r->ctx, v->why, sizeof(v->why));
    void *snap = calloc(1, r->ops->snap_size ? r->ops->snap_size : 1);
    if (!snap)
        return st_error(ST_NOMEM, "out of memory taking a status snapshot");
    v->snap = snap;
    return r->ops->snap_fill(r->ctx, snap);
}

static void view_free(const status_pages *r, status_pages_view *v)
{
    if (v->snap) {
        r->ops->snap_clear(r->ctx, (void *)v->snap);
        free((void *)v->snap);
    }
    v->snap = NULL;
}

static void h_healthz(void *arg, const http_request *req, http_response *resp)
{
    http_response_printf(resp, "ok\n");
}

static void h_readyz(void *arg, const http_request *req, http_response *resp)
{
    const status_pages *r = arg;
    char why[STATUS_PAGES_WHY_MAX];
    bool ok = r->ops->ready(r->ctx, why, sizeof(why));
    http_response_set(resp, ok ? 200 : 503, NULL);
    http_response_printf(resp, "%s\n", ok ? "ok" : why);
}

int status_pages_metric(buf_t *b, const char *name, const char *type, const char *help, double v)
{
    int rc = prom_family(b, name, type, help);
    return rc == ST_OK ? prom_sample_double(b, name, NULL, 0, v) : rc;
}

static void h_metrics(void *arg, const http_request *req, http_response *resp)
{
    const status_pages *r = arg;
    status_pages_view v;
    int rc = view_take(r, &v);
    http_response_set(resp, 200, PROM_CONTENT_TYPE);
    if (rc == ST_OK && r->ops->metrics)
        rc = r->ops->metrics(r->ctx, &v, &resp->body);
    if (rc == ST_OK)
        rc = status_pages_metric(&resp->body, "ready", "gauge",
                                 "1 while /readyz answers 200, else 0", v.ready ? 1 : 0);
    if (rc != ST_OK)
        fail_page(resp);
    view_free(r, &v);
}

static void h_status_json(void *arg, const http_request *req, http_response *resp)
{
    const status_pages *r = arg;
    status_pages_view v;
    int rc = view_take(r, &v);
    http_response_set(resp, 200, "application/json");
    if (rc == ST_OK) {
        json_writer w;
        json_init(&w, &resp->body);
        json_object_begin(&w);
        json_key(&w, "server");
        json_string(&w, r->ops->name(r->ctx));
        json_key(&w, "ready");
        json_bool(&w, v.ready);
        json_key(&w, "ready_reason");
        json_string(&w, v.why);
        if (r->ops->json)
            r->ops->json(r->ctx, &v, &w);
        json_object_end(&w);
        rc = json_finish(&w);
        if (rc == ST_OK)
            rc = buf_append(&resp->body, "\n", 1);
    }
    if (rc != ST_OK)
        fail_page(resp);
    view_free(r, &v);
}

static void h_page(void *arg, const http_request *req, http_response *resp)
{
    const status_pages *r = arg;
    status_pages_view v;
    int rc = view_take(r, &v);
    http_response_set(resp, 200, "text/html; charset=utf-8");
    if (rc == ST_OK) {
        char title[STATUS_PAGES_WHY_MAX];
        r->ops->title(r->ctx, &v, title, sizeof(title));
        html_doc d;
        html_init(&d, &resp->body);
        html_page_begin(&d, title);
        html_raw(&d, "<h1>");
        html_text(&d, title);
        html_rawf(&d, "</h1>\n<p class=\"%s\">", v.ready ? "ok" : "bad");
        html_text(&d, v.why);
        html_raw(&d, "</p>\n<p><a href=\"/status.json\">status.json</a> &middot; "
                     "<a href=\"/metrics\">metrics</a> &middot; <a href=\"/readyz\">readyz</a>"
                     "</p>\n");
        if (r->ops->page)
            r->ops->page(r->ctx, &v, &d);
        rc = html_page_end(&d);
    }
    if (rc != ST_OK)
        fail_page(resp);
    view_free(r, &v);
}

int status_pages_register(http_server *srv, status_pages *sp, const status_pages_ops *ops,
                          void *ctx)
{
    static const struct {
        const char *path;
        http_handler_fn fn;
    } routes[] = {
        {"/healthz", h_healthz}, {"/readyz", h_readyz},        {"/metrics", h_metrics},
        {"/", h_page},           {"/status", h_page},          {"/status.json", h_status_json},
    };
    sp->ops = ops;
    sp->ctx = ctx;
    int rc = ST_OK;
    for (size_t i = 0; rc == ST_OK && i < sizeof(routes) / sizeof(routes[0]); i++)
        rc = http_server_handle(srv, routes[i].path, routes[i].fn, sp);
    return rc;
}

int status_pages_serve(status_pages *sp, const status_pages_ops *ops, void *ctx, const char *host,
                       int port, http_server **out)
{
    http_server *srv = NULL;
    int rc = http_server_new(NULL, &srv);
    if (rc == ST_OK)
        rc = status_pages_register(srv, sp, ops, ctx);
    if (rc == ST_OK)
        rc = http_server_start(srv, host, port);
    if (rc != ST_OK) {
        http_server_free(srv);
        srv = NULL;
    }
    *out = srv;
    return rc;
}
