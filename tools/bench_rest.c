/*
 * bench_rest.c - `strata bench rest`: gets and puts through the REST gateway against the
 * same operations through the C client, at several numbers of concurrent clients, and the
 * gateway's memory with many open scanners (docs/rest.md, "Figures").
 *
 *   strata bench rest (--dir D | --zk.quorum Q [--zk.parent P] --rest HOST:PORT)
 *                     [--clients 8,32] [--ops N] [--rows N] [--value-size B]
 *                     [--paths client,rest-json,rest-binary] [--scanners N] [--table T]
 *                     [--json]
 *
 * The table (one family "cf") is created if missing and loaded with --rows rows through
 * the C client. Then for each number of clients and each path, a put workload (random
 * rows of the loaded range, new values) and a get workload (random rows), --ops
 * operations each split over the clients: "client" is libstrata (threads sharing one
 * client), "rest-json" one keep-alive HTTP connection per client sending one-row
 * CellSets (PUT) and reading rows as JSON (GET), "rest-binary" the same with
 * application/octet-stream values. Each line: ops/s and p50/p99/max latency. Last, the
 * gateway's resident memory (its /metrics) before and after opening --scanners scanners,
 * and after deleting them.
 *
 * Thread-safety: the workers of one workload share the client (thread-safe) and each has
 * its own HTTP connection and latency array.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/base64.h"
#include "common/buf.h"
#include "common/clock.h"
#include "common/net.h"
#include "common/status.h"
#include "strata/admin.h"
#include "strata/strata.h"
#include "tools/cluster_internal.h"
#include "tools/tools.h"

#define MAX_CLIENT_COUNTS 8
#define MAX_THREADS 256

typedef enum bench_path { PATH_CLIENT = 0, PATH_REST_JSON, PATH_REST_BINARY, N_PATHS } bench_path;
static const char *const PATH_NAME[N_PATHS] = {"client", "rest-json", "rest-binary"};

typedef struct rest_opts {
    const char *dir, *quorum, *parent, *rest, *table;
    int clients[MAX_CLIENT_COUNTS];
    int nclients;
    long ops, rows;
    size_t value_size;
    bool paths[N_PATHS];
    int scanners;
    bool json;
} rest_opts;

typedef struct bench {
    rest_opts o;
    char quorum[300], parent[300], host[256];
    int port;
    strata_client_t *client;
    strata_table_t *table;
} bench;

/* ---- a keep-alive HTTP/1.1 client ---- */

typedef struct hconn {
    int fd;
    const char *host;
    int port;
    buf_t in; /* bytes read and not yet consumed */
} hconn;

static int hc_connect(hconn *c)
{
    struct sockaddr_storage ss;
    socklen_t len = 0;
    int rc = net_resolve(c->host, c->port, &ss, &len);
    if (rc != ST_OK)
        return rc;
    c->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&ss, len) != 0) {
        int err = errno;
        if (c->fd >= 0)
            close(c->fd);
        c->fd = -1;
        return st_error(ST_CONNECTION, "bench rest: connect to %s:%d: %s", c->host, c->port,
                        strerror(err));
    }
    net_nodelay(c->fd);
    buf_reset(&c->in);
    return ST_OK;
}

static void hc_close(hconn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    buf_free(&c->in);
}

static int read_more(hconn *c)
{
    if (buf_reserve(&c->in, 65536) != ST_OK)
        return ST_NOMEM;
    ssize_t n;
    do
        n = recv(c->fd, c->in.data + c->in.len, 65536, 0);
    while (n < 0 && errno == EINTR);
    if (n <= 0)
        return st_error(ST_CONNECTION, "bench rest: the gateway closed the connection");
    c->in.len += (size_t)n;
    return ST_OK;
}

static void consume(hconn *c, size_t n)
{
    memmove(c->in.data, c->in.data + n, c->in.len - n);
    c->in.len -= n;
}

/* Reads one answer: its status, body and (loc not NULL) its Location header. */
static int hc_read(hconn *c, int *status, buf_t *body, char *loc, size_t loc_cap)
{
    char *end = NULL;
    int rc = ST_OK;
    while (rc == ST_OK && !(end = c->in.len ? memmem(c->in.data, c->in.len, "\r\n\r\n", 4) : NULL))
        rc = read_more(c);
    if (rc != ST_OK)
        return rc;
    size_t head = (size_t)(end - (char *)c->in.data) + 4;
    char *h = strndup((char *)c->in.data, head);
    *status = atoi(h + 9);
    long clen = -1;
    bool chunked = false;
    for (char *line = strstr(h, "\r\n"); line && line[2]; line = strstr(line + 2, "\r\n")) {
        if (strncasecmp(line + 2, "Content-Length:", 15) == 0)
            clen = atol(line + 17);
        if (strncasecmp(line + 2, "Transfer-Encoding: chunked", 26) == 0)
            chunked = true;
        if (loc && strncasecmp(line + 2, "Location: ", 10) == 0) {
            size_t n = strcspn(line + 12, "\r");
            snprintf(loc, loc_cap, "%.*s", (int)n, line + 12);
        }
    }
    free(h);
    consume(c, head);
    buf_reset(body);
    if (!chunked) {
        size_t want = clen > 0 ? (size_t)clen : 0;
        while (rc == ST_OK && c->in.len < want)
            rc = read_more(c);
        if (rc == ST_OK) {
            buf_append(body, c->in.data, want);
            consume(c, want);
        }
        return rc;
    }
    for (;;) { /* chunks: size line, data, CRLF; a 0 size ends */
        char *eol = NULL;
        while (rc == ST_OK && !(eol = c->in.len ? memmem(c->in.data, c->in.len, "\r\n", 2) : NULL))
            rc = read_more(c);
        if (rc != ST_OK)
            return rc;
        size_t sz = strtoul((char *)c->in.data, NULL, 16);
        size_t line = (size_t)(eol - (char *)c->in.data) + 2;
        while (rc == ST_OK && c->in.len < line + sz + 2)
            rc = read_more(c);
        if (rc != ST_OK)
            return rc;
        buf_append(body, c->in.data + line, sz);
        consume(c, line + sz + 2);
        if (sz == 0)
            return ST_OK;
    }
}

/* One request and its answer (loc: its Location, may be NULL); reconnects once when the
 * gateway closed a kept-alive connection. */
static int hc_request_loc(hconn *c, const char *method, const char *path, const char *headers,
                          const void *body, size_t len, int *status, buf_t *out, char *loc,
                          size_t loc_cap)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        if (c->fd < 0 && hc_connect(c) != ST_OK)
            return ST_CONNECTION;
        char head[1024];
        int n = snprintf(head, sizeof(head), "%s %s HTTP/1.1\r\nHost: %s:%d\r\n%sContent-Length: %zu\r\n\r\n",
                         method, path, c->host, c->port, headers ? headers : "", len);
        buf_t req = {0};
        buf_append(&req, head, (size_t)n);
        if (len)
            buf_append(&req, body, len);
        size_t off = 0;
        int rc = ST_OK;
        while (off < req.len) {
            ssize_t w = send(c->fd, req.data + off, req.len - off, MSG_NOSIGNAL);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                rc = ST_CONNECTION;
                break;
            }
            off += (size_t)w;
        }
        buf_free(&req);
        if (rc == ST_OK)
            rc = hc_read(c, status, out, loc, loc_cap);
        if (rc == ST_OK)
            return ST_OK;
        close(c->fd);
        c->fd = -1;
    }
    return st_error(ST_CONNECTION, "bench rest: %s %s: no answer", method, path);
}

static int hc_request(hconn *c, const char *method, const char *path, const char *headers,
                      const void *body, size_t len, int *status, buf_t *out)
{
    return hc_request_loc(c, method, path, headers, body, len, status, out, NULL, 0);
}

/* ---- workloads ---- */

typedef struct worker {
    bench *b;
    bench_path path;
    bool put;
    long ops;
    unsigned seed;
    double *lat_us;
    long done, errors;
    char first_error[256];
} worker;

static unsigned next_rand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return *s >> 1;
}

static void row_key(long i, char *out, size_t cap)
{
    snprintf(out, cap, "row%08ld", i);
}

static void fill_value(char *v, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        v[i] = (char)('a' + (seed + i * 7) % 26);
}

static void note_error(worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_error(worker *w, const char *fmt, ...)
{
    if (w->errors++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->first_error, sizeof(w->first_error), fmt, ap);
        va_end(ap);
    }
}

static void op_client(worker *w, long key, char *val, size_t vlen)
{
    char k[32], *err = NULL;
    row_key(key, k, sizeof(k));
    if (w->put) {
        strata_mutation_t *m = strata_put_create(k, strlen(k));
        strata_put_add(m, "cf", 2, "q", 1, STRATA_LATEST_TIMESTAMP, val, vlen);
        strata_table_put(w->b->table, m, &err);
        strata_mutation_destroy(m);
    } else {
        strata_get_t *g = strata_get_create(k, strlen(k));
        strata_result_t *r = strata_table_get(w->b->table, g, &err);
        if (r && strata_result_cell_count(r) == 0)
            note_error(w, "get of %s found nothing", k);
        strata_result_destroy(r);
        strata_get_destroy(g);
    }
    if (err) {
        note_error(w, "%s", err);
        strata_free(err);
    }
}

static void op_rest(worker *w, hconn *c, long key, char *val, size_t vlen, buf_t *scratch,
                    buf_t *answer)
{
    char k[32], path[300];
    row_key(key, k, sizeof(k));
    int status = 0, rc;
    const char *t = w->b->o.table;
    if (w->path == PATH_REST_BINARY) {
        snprintf(path, sizeof(path), "/%s/%s/cf:q", t, k);
        rc = w->put ? hc_request(c, "PUT", path, "Content-Type: application/octet-stream\r\n", val,
                                 vlen, &status, answer)
                    : hc_request(c, "GET", path, "Accept: application/octet-stream\r\n", NULL, 0,
                                 &status, answer);
    } else if (w->put) {
        snprintf(path, sizeof(path), "/%s/%s", t, k);
        buf_reset(scratch);
        buf_append(scratch, "{\"Row\":[{\"key\":\"", 16);
        base64_encode(scratch, k, strlen(k));
        buf_append(scratch, "\",\"Cell\":[{\"column\":\"Y2Y6cQ==\",\"$\":\"", 36);
        base64_encode(scratch, val, vlen);
        buf_append(scratch, "\"}]}]}", 6);
        rc = hc_request(c, "PUT", path, "Content-Type: application/json\r\n", scratch->data,
                        scratch->len, &status, answer);
    } else {
        snprintf(path, sizeof(path), "/%s/%s", t, k);
        rc = hc_request(c, "GET", path, "Accept: application/json\r\n", NULL, 0, &status, answer);
    }
    if (rc != ST_OK)
        note_error(w, "%s", st_errmsg());
    else if (status != 200)
        note_error(w, "%s %s: status %d: %.*s", w->put ? "PUT" : "GET", path, status,
                   (int)(answer->len > 120 ? 120 : answer->len), (const char *)answer->data);
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    size_t vlen = w->b->o.value_size;
    char *val = malloc(vlen ? vlen : 1);
    hconn c = {.fd = -1, .host = w->b->host, .port = w->b->port};
    buf_t scratch = {0}, answer = {0};
    for (long i = 0; i < w->ops; i++) {
        long key = (long)(next_rand(&w->seed) % (unsigned)w->b->o.rows);
        fill_value(val, vlen, w->seed);
        uint64_t t0 = clock_mono_ns();
        if (w->path == PATH_CLIENT)
            op_client(w, key, val, vlen);
        else
            op_rest(w, &c, key, val, vlen, &scratch, &answer);
        w->lat_us[i] = (double)(clock_mono_ns() - t0) / 1000.0;
        w->done++;
    }
    hc_close(&c);
    buf_free(&scratch);
    buf_free(&answer);
    free(val);
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void run_workload(bench *b, bench_path path, bool put, int clients)
{
    worker *ws = calloc((size_t)clients, sizeof(*ws));
    pthread_t th[MAX_THREADS];
    long per = b->o.ops / clients;
    if (per < 1)
        per = 1;
    for (int i = 0; i < clients; i++) {
        ws[i] = (worker){.b = b, .path = path, .put = put, .ops = per,
                         .seed = 7919u * (unsigned)(i + 1) + (put ? 17u : 0u)};
        ws[i].lat_us = calloc((size_t)per, sizeof(double));
    }
    uint64_t t0 = clock_mono_ns();
    for (int i = 0; i < clients; i++)
        pthread_create(&th[i], NULL, worker_main, &ws[i]);
    for (int i = 0; i < clients; i++)
        pthread_join(th[i], NULL);
    double secs = (double)(clock_mono_ns() - t0) / 1e9;
    long total = 0, errors = 0;
    const char *first = NULL;
    size_t cap = (size_t)per * (size_t)(clients > 0 ? clients : 1);
    double *all = calloc(cap ? cap : 1, sizeof(double));
    for (int i = 0; i < clients; i++) {
        memcpy(all + total, ws[i].lat_us, (size_t)ws[i].done * sizeof(double));
        total += ws[i].done;
        errors += ws[i].errors;
        if (ws[i].errors && !first)
            first = ws[i].first_error;
    }
    qsort(all, (size_t)total, sizeof(double), cmp_double);
    double p50 = total ? all[total / 2] : 0, p99 = total ? all[total * 99 / 100] : 0,
           mx = total ? all[total - 1] : 0, ops_s = secs > 0 ? (double)total / secs : 0;
    const char *wl = put ? "put" : "get";
    if (b->o.json)
        printf("{\"workload\":\"%s\",\"path\":\"%s\",\"clients\":%d,\"ops\":%ld,\"seconds\":%.3f,"
               "\"ops_per_sec\":%.0f,\"p50_us\":%.0f,\"p99_us\":%.0f,\"max_us\":%.0f,"
               "\"errors\":%ld}\n",
               wl, PATH_NAME[path], clients, total, secs, ops_s, p50, p99, mx, errors);
    else
        printf("%-4s %-12s clients %3d  %9.0f ops/s  p50 %7.0f us  p99 %7.0f us  max %8.0f us  "
               "errors %ld%s%s\n",
               wl, PATH_NAME[path], clients, ops_s, p50, p99, mx, errors, first ? ": " : "",
               first ? first : "");
    fflush(stdout);
    for (int i = 0; i < clients; i++)
        free(ws[i].lat_us);
    free(ws);
    free(all);
}

/* ---- setup ---- */

static int find_cluster(bench *b)
{
    if (b->o.quorum) {
        snprintf(b->quorum, sizeof(b->quorum), "%s", b->o.quorum);
        snprintf(b->parent, sizeof(b->parent), "%s", b->o.parent ? b->o.parent : "/strata");
        if (net_split_addr(b->o.rest, b->host, sizeof(b->host), &b->port) != ST_OK)
            return st_error(ST_INVALID_ARGUMENT, "--rest %s is not host:port", b->o.rest);
        return ST_OK;
    }
    cluster_state s;
    memset(&s, 0, sizeof(s));
    int rc = cluster_state_read(b->o.dir, &s);
    if (rc != ST_OK)
        return rc;
    snprintf(b->quorum, sizeof(b->quorum), "%s", s.quorum);
    snprintf(b->parent, sizeof(b->parent), "%s", s.parent);
    snprintf(b->host, sizeof(b->host), "127.0.0.1");
    cluster_proc *p = cluster_state_find(&s, "rest-1");
    b->port = p ? p->http_port : 0;
    cluster_state_clear(&s);
    if (b->o.rest && net_split_addr(b->o.rest, b->host, sizeof(b->host), &b->port) != ST_OK)
        return st_error(ST_INVALID_ARGUMENT, "--rest %s is not host:port", b->o.rest);
    if (!b->port)
        return st_error(ST_NOT_FOUND, "the cluster in %s has no REST gateway (start it with "
                                      "--rest 1) and no --rest HOST:PORT was given",
                        b->o.dir);
    return ST_OK;
}

static int prepare(bench *b)
{
    char *err = NULL;
    strata_admin_t *a = strata_admin_open(b->quorum, b->parent, &err);
    if (!a)
        return st_error(ST_CONNECTION, "bench rest: admin: %s", err);
    unsigned char exists = strata_admin_table_exists(a, b->o.table, &err);
    if (!err && !exists) {
        strata_table_descriptor_t *td = strata_table_descriptor_create(b->o.table);
        strata_table_descriptor_add_family(td, "cf");
        strata_admin_create_table(a, td, NULL, NULL, 0, &err);
        strata_table_descriptor_destroy(td);
    }
    strata_admin_close(a);
    if (err) {
        int rc = st_error(ST_IO, "bench rest: table %s: %s", b->o.table, err);
        strata_free(err);
        return rc;
    }
    strata_options_t *o = strata_options_create();
    strata_options_set_zk_quorum(o, b->quorum);
    strata_options_set_zk_parent(o, b->parent);
    b->client = strata_client_open(o, &err);
    strata_options_destroy(o);
    if (!b->client)
        return st_error(ST_CONNECTION, "bench rest: client: %s", err);
    b->table = strata_table_open(b->client, b->o.table);
    /* the rows the gets read */
    strata_mutator_t *bm = strata_mutator_create(b->table, 0);
    char *val = malloc(b->o.value_size ? b->o.value_size : 1);
    for (long i = 0; i < b->o.rows && !err; i++) {
        char k[32];
        row_key(i, k, sizeof(k));
        fill_value(val, b->o.value_size, (unsigned)i);
        strata_mutation_t *m = strata_put_create(k, strlen(k));
        strata_put_add(m, "cf", 2, "q", 1, STRATA_LATEST_TIMESTAMP, val, b->o.value_size);
        strata_mutator_mutate(bm, m, &err);
        strata_mutation_destroy(m);
    }
    if (!err)
        strata_mutator_close(bm, &err);
    else
        strata_mutator_close(bm, NULL);
    free(val);
    if (err) {
        int rc = st_error(ST_IO, "bench rest: loading %ld rows: %s", b->o.rows, err);
        strata_free(err);
        return rc;
    }
    return ST_OK;
}

/* The gateway's resident memory from its /metrics (bytes; 0 if unknown). */
static long gateway_rss(bench *b)
{
    hconn c = {.fd = -1, .host = b->host, .port = b->port};
    buf_t body = {0};
    int status = 0;
    long rss = 0;
    if (hc_request(&c, "GET", "/metrics", NULL, NULL, 0, &status, &body) == ST_OK &&
        status == 200 && buf_append_u8(&body, 0) == ST_OK) {
        const char *p = strstr((const char *)body.data, "\nrest_resident_memory_bytes ");
        if (p)
            rss = (long)strtod(p + 28, NULL);
    }
    hc_close(&c);
    buf_free(&body);
    return rss;
}

/* Opens --scanners scanners (each reads its first batch, so it holds what an idle
 * scanner holds), reads the gateway's memory, deletes them, reads it again. */
static void scanner_memory(bench *b)
{
    int n = b->o.scanners;
    char (*paths)[300] = calloc((size_t)n, sizeof(*paths));
    hconn c = {.fd = -1, .host = b->host, .port = b->port};
    buf_t body = {0};
    long before = gateway_rss(b);
    int opened = 0, status = 0;
    char path[300], loc[300];
    snprintf(path, sizeof(path), "/%s/scanner", b->o.table);
    for (int i = 0; i < n; i++) {
        loc[0] = '\0';
        if (hc_request_loc(&c, "PUT", path, "Content-Type: application/json\r\n",
                           "{\"batch\":10}", 12, &status, &body, loc, sizeof(loc)) != ST_OK ||
            status != 201 || !strstr(loc, "://"))
            break;
        const char *p = strchr(strstr(loc, "://") + 3, '/');
        snprintf(paths[opened++], sizeof(paths[0]), "%s", p ? p : "/");
        if (hc_request(&c, "GET", paths[opened - 1], "Accept: application/json\r\n", NULL, 0,
                       &status, &body) != ST_OK)
            break;
    }
    long with = gateway_rss(b);
    for (int i = 0; i < opened; i++)
        hc_request(&c, "DELETE", paths[i], NULL, NULL, 0, &status, &body);
    long after = gateway_rss(b);
    double per = opened ? (double)(with - before) / opened : 0;
    if (b->o.json)
        printf("{\"scanners\":%d,\"rss_before\":%ld,\"rss_with_scanners\":%ld,"
               "\"rss_after_delete\":%ld,\"bytes_per_scanner\":%.0f}\n",
               opened, before, with, after, per);
    else
        printf("gateway memory: %.1f MiB before, %.1f MiB with %d open scanners (%.1f KiB each), "
               "%.1f MiB after deleting them\n",
               before / 1048576.0, with / 1048576.0, opened, per / 1024.0, after / 1048576.0);
    hc_close(&c);
    buf_free(&body);
    free(paths);
}

/* ---- options ---- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: strata bench rest (--dir D | --zk.quorum Q [--zk.parent P] --rest HOST:PORT)\n"
            "                         [--clients 8,32] [--ops N (20000)] [--rows N (10000)]\n"
            "                         [--value-size B (100)] [--paths client,rest-json,rest-binary]\n"
            "                         [--scanners N (1000)] [--table T (bench_rest)] [--json]\n"
            "  gets and puts through the REST gateway and through the C client at each number\n"
            "  of concurrent clients, then the gateway's memory with N open scanners.\n"
            "  docs/rest.md\n");
}

static int parse(int argc, char **argv, rest_opts *o)
{
    *o = (rest_opts){.table = "bench_rest", .ops = 20000, .rows = 10000, .value_size = 100,
                     .scanners = 1000, .clients = {8, 32}, .nclients = 2,
                     .paths = {true, true, true}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = true;
        if (strcmp(a, "--dir") == 0 && v)
            o->dir = v;
        else if (strcmp(a, "--zk.quorum") == 0 && v)
            o->quorum = v;
        else if (strcmp(a, "--zk.parent") == 0 && v)
            o->parent = v;
        else if (strcmp(a, "--rest") == 0 && v)
            o->rest = v;
        else if (strcmp(a, "--table") == 0 && v)
            o->table = v;
        else if (strcmp(a, "--ops") == 0 && v)
            o->ops = atol(v);
        else if (strcmp(a, "--rows") == 0 && v)
            o->rows = atol(v);
        else if (strcmp(a, "--value-size") == 0 && v)
            o->value_size = (size_t)atol(v);
        else if (strcmp(a, "--scanners") == 0 && v)
            o->scanners = atoi(v);
        else if (strcmp(a, "--clients") == 0 && v) {
            o->nclients = 0;
            for (const char *p = v; *p && o->nclients < MAX_CLIENT_COUNTS;) {
                int n = atoi(p);
                if (n < 1 || n > MAX_THREADS)
                    return st_error(ST_INVALID_ARGUMENT, "--clients %s: each 1..%d", v,
                                    MAX_THREADS);
                o->clients[o->nclients++] = n;
                p = strchr(p, ',');
                p = p ? p + 1 : "";
            }
        } else if (strcmp(a, "--paths") == 0 && v) {
            memset(o->paths, 0, sizeof(o->paths));
            char *copy = strdup(v);
            for (char *save = NULL, *t = strtok_r(copy, ",", &save); t;
                 t = strtok_r(NULL, ",", &save)) {
                int k = 0;
                while (k < N_PATHS && strcmp(t, PATH_NAME[k]) != 0)
                    k++;
                if (k == N_PATHS) {
                    free(copy);
                    return st_error(ST_INVALID_ARGUMENT, "--paths: unknown path '%s'", t);
                }
                o->paths[k] = true;
            }
            free(copy);
        } else if (strcmp(a, "--json") == 0) {
            o->json = true;
            takes = false;
        } else {
            return st_error(ST_INVALID_ARGUMENT, "unknown or incomplete argument '%s'", a);
        }
        if (takes)
            i++;
    }
    if ((o->dir != NULL) == (o->quorum != NULL))
        return st_error(ST_INVALID_ARGUMENT, "give one of --dir D and --zk.quorum Q");
    if (o->quorum && !o->rest)
        return st_error(ST_INVALID_ARGUMENT, "--zk.quorum needs --rest HOST:PORT");
    if (o->ops < 1 || o->rows < 1 || o->value_size > 1 << 20 || o->scanners < 0)
        return st_error(ST_INVALID_ARGUMENT, "--ops and --rows must be >= 1, --value-size at most "
                                             "1 MiB, --scanners >= 0");
    return ST_OK;
}

int bench_rest_main(int argc, char **argv)
{
    bench b;
    memset(&b, 0, sizeof(b));
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    int rc = parse(argc, argv, &b.o);
    if (rc == ST_OK)
        rc = find_cluster(&b);
    if (rc != ST_OK) {
        fprintf(stderr, "strata bench rest: %s\n", st_errmsg());
        usage(stderr);
        return 2;
    }
    rc = prepare(&b);
    if (rc != ST_OK) {
        fprintf(stderr, "strata bench rest: %s\n", st_errmsg());
        strata_table_close(b.table);
        strata_client_close(b.client);
        return 1;
    }
    if (!b.o.json)
        printf("# strata bench rest: %ld rows of %zu bytes in %s; gateway %s:%d; %ld ops per "
               "workload\n",
               b.o.rows, b.o.value_size, b.o.table, b.host, b.port, b.o.ops);
    for (int k = 0; k < b.o.nclients; k++)
        for (int put = 1; put >= 0; put--)
            for (int p = 0; p < N_PATHS; p++)
                if (b.o.paths[p])
                    run_workload(&b, (bench_path)p, put, b.o.clients[k]);
    if (b.o.scanners > 0)
        scanner_memory(&b);
    strata_table_close(b.table);
    strata_client_close(b.client);
    return 0;
}
