/*
 * status_pages.h - the HTTP endpoints every Strata server serves (docs/http.md), on
 * http_server.h, with what differs between servers supplied by a status_pages_ops:
 *
 *   /healthz      200 "ok" while the process runs
 *   /readyz       200 "ok" while ops->ready says so; else 503 with its one-line reason
 *   /metrics      Prometheus text from ops->metrics, then `ready` (1 or 0)
 *   / and /status an HTML page: the frame (title, readiness, links to the other
 *                 endpoints) around ops->page
 *   /status.json  a JSON object: "server", "ready", "ready_reason", then ops->json's members
 *
 * Every page takes one snapshot of what it shows (ops->snap_fill; the server copies its
 * state under its own locks, briefly) and renders it without locks; a failing snapshot or
 * render answers 500 with the reason.
 *
 * Thread-safety: the callbacks run on the HTTP server's thread, one at a time.
 */
#ifndef STRATA_COMMON_HTTP_STATUS_PAGES_H
#define STRATA_COMMON_HTTP_STATUS_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/http/html.h"
#include "common/http/http_server.h"
#include "common/http/json.h"

#define STATUS_PAGES_WHY_MAX 640

/* What every page is given besides the server's snapshot. */
typedef struct status_pages_view {
    bool ready;
    char why[STATUS_PAGES_WHY_MAX]; /* the readiness reason, one line */
    int64_t now_ms;                 /* when the snapshot was taken */
    const void *snap;               /* the server's snapshot (ops->snap_fill) */
} status_pages_view;

typedef struct status_pages_ops {
    /* Whether the server is ready; the reason into why (cap bytes). Required. */
    bool (*ready)(void *ctx, char *why, size_t cap);
    /* The snapshot: snap_size bytes, zeroed, that snap_fill fills with what the pages show
     * (ST_OK, or the failure) and snap_clear releases (also after a failed fill). Required. */
    size_t snap_size;
    int (*snap_fill)(void *ctx, void *snap);
    void (*snap_clear)(void *ctx, void *snap);
    /* The server's name, as "server" in status.json and in the page title. Required. */
    const char *(*name)(void *ctx);
    /* The page title ("Strata region server h,1,2"). Required. */
    void (*title)(void *ctx, const status_pages_view *v, char *out, size_t cap);
    /* Appends the server's metric families. */
    int (*metrics)(void *ctx, const status_pages_view *v, buf_t *out);
    /* Writes the server's members of the status object (keys and values). */
    void (*json)(void *ctx, const status_pages_view *v, json_writer *w);
    /* Writes the page's body below the frame's header. */
    void (*page)(void *ctx, const status_pages_view *v, html_doc *d);
} status_pages_ops;

/* The binding of a server's ops to its HTTP server; the caller keeps it (e.g. next to its
 * http_server) for as long as the HTTP server runs. */
typedef struct status_pages {
    const status_pages_ops *ops;
    void *ctx;
} status_pages;

/* Registers the six endpoints on srv (before it starts), each calling ops with ctx; sp is
 * filled and, like ops, must outlive srv. ST_OK or the registration failure. */
int status_pages_register(http_server *srv, status_pages *sp, const status_pages_ops *ops,
                          void *ctx);

/* A new HTTP server on host:port (0: any free port) serving the six endpoints with ops and
 * ctx (status_pages_register), started: ST_OK and *out (the bound port is
 * http_server_port(*out)), or the failure with nothing left running (*out NULL): ST_IO
 * naming the address when it cannot be bound, ST_NOMEM. */
int status_pages_serve(status_pages *sp, const status_pages_ops *ops, void *ctx, const char *host,
                       int port, http_server **out);

/* One metric family with one unlabelled sample: `# HELP`, `# TYPE`, `name value`. */
int status_pages_metric(buf_t *b, const char *name, const char *type, const char *help, double v);

#endif
