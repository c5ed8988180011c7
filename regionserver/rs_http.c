/*
 * rs_http.c - what the region server's status pages show (docs/http.md), inside the
 * endpoints every server shares (common/http/status_pages.h):
 *
 *   /readyz       200 while the server serves and, in a cluster, is registered in
 *                 ZooKeeper and not fenced; 503 with the reason otherwise
 *   /metrics      Prometheus text: server totals, and per-region series labelled
 *                 {table, region}
 *   / and /status an HTML page: the server, then its regions with key ranges
 *                 (toStringBinary), requests, memstore and store files
 *   /status.json  the same data as JSON
 *
 * Every page first copies what it shows (rs_http_snap: the open regions' stats through
 * rs_region_list, the scanner count, the engine's queues and block cache) and renders
 * without any lock of the server.
 *
 * Thread-safety: handlers run on the HTTP thread. They read the server's atomics, its
 * immutable settings, the region table through rs_region_list (mu, briefly) and the
 * engine under h->mu, which rs_http_engine_closing takes to mark the engine gone before
 * it is closed. Lock order: h->mu, then the server's mu / scan_mu.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/http/html.h"
#include "common/http/http_server.h"
#include "common/http/json.h"
#include "common/log.h"
#include "common/http/prom.h"
#include "common/http/status_pages.h"
#include "common/status.h"
#include "regionserver/rs_internal.h"

typedef struct rs_http {
    http_server *srv;
    status_pages pages; /* the binding of the pages below to srv */
    pthread_mutex_t mu; /* a page reading the engine holds it */
    bool engine_gone;   /* under mu: the engine is closing or closed */
} rs_http;

/* ---- the snapshot ---- */

typedef struct rh_region {
    char table[256];
    char name[64];
    uint8_t *start, *end;
    size_t start_len, end_len;
    uint64_t region_id;
    region_stats st;
} rh_region;

typedef struct rh_snap {
    rh_region *regions;
    size_t n;
    region_stats total;
    uint64_t open_scanners;
    bool have_engine; /* the queue and cache figures below are valid */
    size_t flush_queue, compaction_queue;
    blockcache_stats cache;
} rh_snap;

static bool ready_check(void *ctx, char *why, size_t cap)
{
    rs_server *s = ctx;
    if (!atomic_load(&s->serving)) {
        snprintf(why, cap, "region server %s is not serving (starting or stopping)",
                 s->server_name);
        return false;
    }
    if (!rs_cluster_enabled(s)) {
        snprintf(why, cap, "ok: region server %s serving (standalone)", s->server_name);
        return true;
    }
    if (atomic_load(&s->cl.stopping)) {
        snprintf(why, cap, "region server %s is stopping", s->server_name);
        return false;
    }
    if (!atomic_load(&s->cl.registered)) {
        snprintf(why, cap, "region server %s is not registered in ZooKeeper yet", s->server_name);
        return false;
    }
    int64_t quiet_ms = ((int64_t)clock_mono_ns() - atomic_load(&s->cl.heard_ns)) / 1000000;
    int64_t limit_ms = (int64_t)(s->cl.fence_fraction * atomic_load(&s->cl.session_ms));
    if (quiet_ms >= limit_ms) {
        snprintf(why, cap, "region server %s is fenced: no word from ZooKeeper for %" PRId64 " ms",
                 s->server_name, quiet_ms);
        return false;
    }
    snprintf(why, cap, "ok: region server %s registered in ZooKeeper", s->server_name);
    return true;
}

static void snap_free(rh_snap *sn)
{
    for (size_t i = 0; i < sn->n; i++)
        free(sn->regions[i].start);
    free(sn->regions);
    memset(sn, 0, sizeof(*sn));
}

static int key_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
    int c = memcmp(a, b, al < bl ? al : bl);
    return c ? c : (al > bl) - (al < bl);
}

static int region_order(const void *x, const void *y)
{
    const rh_region *a = x, *b = y;
    int c = strcmp(a->table, b->table);
    return c ? c : key_cmp(a->start, a->start_len, b->start, b->start_len);
}

/* Copies one acquired region's identity and stats into out. */
static int copy_region(region *r, rh_region *out)
{
    const region_info *info = region_get_info(r);
    snprintf(out->table, sizeof(out->table), "%s", info->table);
    snprintf(out->name, sizeof(out->name), "%s", info->encoded_name);
    out->start_len = info->start_key_len;
    out->end_len = info->end_key_len;
    out->region_id = info->region_id;
    out->start = malloc(out->start_len + out->end_len + 1);
    if (!out->start)
        return st_error(ST_NOMEM, "http: out of memory copying region %s", info->encoded_name);
    out->end = out->start + out->start_len;
    if (out->start_len)
        memcpy(out->start, info->start_key, out->start_len);
    if (out->end_len)
        memcpy(out->end, info->end_key, out->end_len);
    region_get_stats(r, &out->st);
    return ST_OK;
}

static void add_stats(region_stats *sum, const region_stats *x)
{
    sum->read_requests += x->read_requests;
    sum->write_requests += x->write_requests;
    sum->memstore_size += x->memstore_size;
    sum->store_files += x->store_files;
    sum->store_file_size += x->store_file_size;
    sum->flushes += x->flushes;
    sum->compactions += x->compactions;
}

static int snap_regions(rs_server *s, rh_snap *sn)
{
    rs_region **list = NULL;
    size_t n = 0;
    int rc = rs_region_list(s, &list, &n);
    if (rc == ST_OK && n && !(sn->regions = calloc(n, sizeof(*sn->regions))))
        rc = st_error(ST_NOMEM, "http: out of memory listing regions");
    for (size_t i = 0; i < n; i++) {
        if (rc == ST_OK && (rc = copy_region(list[i]->r, &sn->regions[sn->n])) == ST_OK)
            add_stats(&sn->total, &sn->regions[sn->n++].st);
        rs_region_release(s, list[i]);
    }
    free(list);
    if (sn->n > 1)
        qsort(sn->regions, sn->n, sizeof(*sn->regions), region_order);
    return rc;
}

static int snap_fill(void *ctx, void *snap)
{
    rs_server *s = ctx;
    rh_snap *sn = snap;
    rs_http *h = s->http;
    pthread_mutex_lock(&h->mu);
    if (!h->engine_gone && atomic_load(&s->serving) && s->eng) {
        engine_queue_lengths(s->eng, &sn->flush_queue, &sn->compaction_queue);
        blockcache_get_stats(engine_block_cache(s->eng), &sn->cache);
        sn->have_engine = true;
    }
    int rc = snap_regions(s, sn);
    pthread_mutex_unlock(&h->mu);
    sn->open_scanners = rs_scanners_count(s);
    if (rc != ST_OK)
        snap_free(sn);
    return rc;
}

static void snap_clear(void *ctx, void *snap)
{
    snap_free(snap);
}

static const char *self_name(void *ctx)
{
    return ((rs_server *)ctx)->server_name;
}

static void page_title(void *ctx, const status_pages_view *v, char *out, size_t cap)
{
    snprintf(out, cap, "Strata region server %s", ((rs_server *)ctx)->server_name);
}

/* ---- /metrics ---- */

typedef struct rh_metric {
    const char *name;
    const char *type;
    const char *help;
    size_t off; /* of the uint64_t in region_stats */
} rh_metric;

static const rh_metric region_metrics[] = {
    {"read_request_count", "counter",
     "Rows read (each Get row and each row a scanner returned) by regions open here; the "
     "unlabelled series is the server total", offsetof(region_stats, read_requests)},
    {"write_request_count", "counter",
     "Rows mutated (Put, Delete, Increment, Append, one per row of a batch); the unlabelled "
     "series is the server total", offsetof(region_stats, write_requests)},
    {"memstore_size", "gauge", "Bytes held in memstores; the unlabelled series is the server total",
     offsetof(region_stats, memstore_size)},
    {"store_file_count", "gauge", "Store files; the unlabelled series is the server total",
     offsetof(region_stats, store_files)},
    {"store_file_size", "gauge", "Bytes of store files; the unlabelled series is the server total",
     offsetof(region_stats, store_file_size)},
    {"flush_count", "counter",
     "Memstore flushes since the region opened here; the unlabelled series is the server total",
     offsetof(region_stats, flushes)},
    {"compaction_count", "counter",
     "Compactions since the region opened here; the unlabelled series is the server total",
     offsetof(region_stats, compactions)},
};

static uint64_t stat_at(const region_stats *st, size_t off)
{
    uint64_t v;
    memcpy(&v, (const char *)st + off, sizeof(v));
    return v;
}

static int metric_region_family(buf_t *b, const rh_snap *sn, const rh_metric *m)
{
    int rc = prom_family(b, m->name, m->type, m->help);
    if (rc == ST_OK)
        rc = prom_sample_u64(b, m->name, NULL, 0, stat_at(&sn->total, m->off));
    for (size_t i = 0; rc == ST_OK && i < sn->n; i++) {
        prom_label l[2] = {{"table", sn->regions[i].table}, {"region", sn->regions[i].name}};
        rc = prom_sample_u64(b, m->name, l, 2, stat_at(&sn->regions[i].st, m->off));
    }
    return rc;
}

static int metrics_engine(buf_t *b, const rh_snap *sn)
{
    if (!sn->have_engine)
        return ST_OK;
    const blockcache_stats *c = &sn->cache;
    int rc = status_pages_metric(b, "flush_queue_length", "gauge", "Regions waiting for a flush",
                        (double)sn->flush_queue);
    if (rc == ST_OK)
        rc = status_pages_metric(b, "compaction_queue_length", "gauge", "Regions waiting for a compaction",
                        (double)sn->compaction_queue);
    if (rc == ST_OK)
        rc = status_pages_metric(b, "block_cache_hit_count", "counter", "Block cache lookups that hit",
                        (double)c->hits);
    if (rc == ST_OK)
        rc = status_pages_metric(b, "block_cache_miss_count", "counter", "Block cache lookups that missed",
                        (double)c->misses);
    if (rc == ST_OK)
        rc = status_pages_metric(b, "block_cache_eviction_count", "counter",
                        "Blocks evicted from the block cache", (double)c->evictions);
    if (rc == ST_OK)
        rc = status_pages_metric(b, "block_cache_count", "gauge", "Blocks in the block cache",
                        (double)c->entries);
    if (rc == ST_OK)
        rc = status_pages_metric(b, "block_cache_size", "gauge", "Bytes charged to the block cache",
                        (double)c->usage);
    if (rc == ST_OK)
        rc = status_pages_metric(b, "block_cache_free_size", "gauge", "Bytes the block cache may still take",
                        c->capacity > c->usage ? (double)(c->capacity - c->usage) : 0);
    if (rc == ST_OK)
        rc = status_pages_metric(b, "block_cache_in_memory_count", "gauge",
                                 "Blocks of IN_MEMORY families in the block cache",
                                 (double)c->memory_entries);
    if (rc == ST_OK)
        rc = status_pages_metric(b, "block_cache_in_memory_size", "gauge",
                                 "Bytes of IN_MEMORY families' blocks in the block cache",
                                 (double)c->memory_usage);
    if (rc == ST_OK)
        rc = status_pages_metric(b, "block_cache_in_memory_capacity", "gauge",
                                 "Bytes IN_MEMORY families' blocks keep from the others",
                                 (double)c->memory_capacity);
    return rc;
}

static int render_metrics(void *ctx, const status_pages_view *v, buf_t *b)
{
    rs_server *s = ctx;
    const rh_snap *sn = v->snap;
    int rc = status_pages_metric(b, "region_count", "gauge", "Regions open on this server", (double)sn->n);
    for (size_t i = 0; rc == ST_OK && i < sizeof(region_metrics) / sizeof(region_metrics[0]); i++)
        rc = metric_region_family(b, sn, &region_metrics[i]);
    if (rc == ST_OK)
        rc = status_pages_metric(b, "total_request_count", "counter",
                        "read_request_count + write_request_count of the regions open here",
                        (double)(sn->total.read_requests + sn->total.write_requests));
    if (rc == ST_OK)
        rc = status_pages_metric(b, "open_scanners", "gauge", "Server-side scanners open (leased)",
                        (double)sn->open_scanners);
    if (rc == ST_OK)
        rc = metrics_engine(b, sn);
    if (rc == ST_OK)
        rc = status_pages_metric(b, "write_calls_acknowledged_count", "counter",
                                 "Write calls (Mutate, Multi with a mutation) answered OK",
                                 (double)atomic_load(&s->cl.writes_acked));
    if (rc == ST_OK)
        rc = status_pages_metric(b, "write_calls_fenced_count", "counter",
                                 "Write calls refused because ZooKeeper was not heard from in time",
                                 (double)atomic_load(&s->cl.writes_fenced));
    if (rc == ST_OK)
        rc = status_pages_metric(b, "last_write_acknowledged_time", "gauge",
                                 "When the last write call was answered OK (ms since the epoch; 0: "
                                 "none yet)",
                                 (double)atomic_load(&s->cl.last_ack_ms));
    if (rc == ST_OK)
        rc = status_pages_metric(b, "region_server_start_time", "gauge",
                        "When this server started (ms since the epoch; its start code)",
                        (double)s->start_code);
    return rc;
}

/* ---- /status.json ---- */

static void json_key_bytes(json_writer *w, const char *key, const uint8_t *p, size_t n)
{
    buf_t t = {0};
    json_key(w, key);
    if (html_string_binary(&t, p, n) == ST_OK)
        json_string_n(w, t.data ? (const char *)t.data : "", t.len);
    else
        json_null(w);
    buf_free(&t);
}

static void json_stats(json_writer *w, const region_stats *st)
{
    json_key(w, "read_request_count");
    json_u64(w, st->read_requests);
    json_key(w, "write_request_count");
    json_u64(w, st->write_requests);
    json_key(w, "memstore_size");
    json_u64(w, st->memstore_size);
    json_key(w, "store_file_count");
    json_u64(w, st->store_files);
    json_key(w, "store_file_size");
    json_u64(w, st->store_file_size);
    json_key(w, "flush_count");
    json_u64(w, st->flushes);
    json_key(w, "compaction_count");
    json_u64(w, st->compactions);
}

static void json_region(json_writer *w, const rh_region *r)
{
    json_object_begin(w);
    json_key(w, "table");
    json_string(w, r->table);
    json_key(w, "encoded_name");
    json_string(w, r->name);
    json_key_bytes(w, "start_key", r->start, r->start_len);
    json_key_bytes(w, "end_key", r->end, r->end_len);
    json_key(w, "region_id");
    json_u64(w, r->region_id);
    json_stats(w, &r->st);
    json_key(w, "max_flushed_seq");
    json_u64(w, r->st.max_flushed_seq);
    json_object_end(w);
}

static void json_engine(json_writer *w, const rh_snap *sn)
{
    if (!sn->have_engine)
        return;
    json_key(w, "flush_queue_length");
    json_u64(w, sn->flush_queue);
    json_key(w, "compaction_queue_length");
    json_u64(w, sn->compaction_queue);
    json_key(w, "block_cache");
    json_object_begin(w);
    json_key(w, "hit_count");
    json_u64(w, sn->cache.hits);
    json_key(w, "miss_count");
    json_u64(w, sn->cache.misses);
    json_key(w, "eviction_count");
    json_u64(w, sn->cache.evictions);
    json_key(w, "count");
    json_u64(w, sn->cache.entries);
    json_key(w, "size");
    json_u64(w, sn->cache.usage);
    json_key(w, "capacity");
    json_u64(w, sn->cache.capacity);
    json_key(w, "in_memory_count");
    json_u64(w, sn->cache.memory_entries);
    json_key(w, "in_memory_size");
    json_u64(w, sn->cache.memory_usage);
    json_key(w, "in_memory_capacity");
    json_u64(w, sn->cache.memory_capacity);
    json_object_end(w);
}

static void render_json(void *ctx, const status_pages_view *v, json_writer *w)
{
    rs_server *s = ctx;
    const rh_snap *sn = v->snap;
    json_key(w, "mode");
    json_string(w, rs_cluster_enabled(s) ? "cluster" : "standalone");
    json_key(w, "start_code");
    json_u64(w, s->start_code);
    json_key(w, "rpc_port");
    json_i64(w, rs_server_port(s));
    json_key(w, "http_port");
    json_i64(w, s->cl.http_port);
    json_key(w, "region_count");
    json_u64(w, sn->n);
    json_stats(w, &sn->total);
    json_key(w, "open_scanners");
    json_u64(w, sn->open_scanners);
    json_engine(w, sn);
    json_key(w, "regions");
    json_array_begin(w);
    for (size_t i = 0; i < sn->n; i++)
        json_region(w, &sn->regions[i]);
    json_array_end(w);
}

/* ---- / (HTML) ---- */

static void cell_u64(html_doc *d, uint64_t v)
{
    html_rawf(d, "<td class=\"n\">%" PRIu64 "</td>", v);
}

static void cell_bytes(html_doc *d, uint64_t v)
{
    html_raw(d, "<td class=\"n\">");
    html_bytes(d, v);
    html_raw(d, "</td>");
}

static void cell_key(html_doc *d, const uint8_t *p, size_t n)
{
    html_raw(d, "<td class=\"key\">");
    if (n)
        html_binary(d, p, n);
    else
        html_raw(d, "<span class=\"muted\">(unbounded)</span>");
    html_raw(d, "</td>");
}

static void page_server(rs_server *s, const status_pages_view *v, html_doc *d)
{
    const rh_snap *sn = v->snap;
    html_raw(d, "<h2>Server</h2><table><tr><th>Mode</th><td>");
    if (rs_cluster_enabled(s))
        html_textf(d, "cluster member (ZooKeeper %s, parent %s)", s->cl.quorum, s->cl.parent);
    else
        html_raw(d, "standalone");
    html_raw(d, "</td></tr><tr><th>RPC</th><td>");
    html_textf(d, "%s:%d", s->advertised_host, rs_server_port(s));
    html_rawf(d, "</td></tr><tr><th>Start code</th><td>%" PRIu64 " (up %" PRId64 " s)</td></tr>",
              s->start_code, (v->now_ms - (int64_t)s->start_code) / 1000);
    html_rawf(d, "<tr><th>Regions</th><td>%zu</td></tr>", sn->n);
    html_rawf(d, "<tr><th>Requests</th><td>%" PRIu64 " reads, %" PRIu64 " writes</td></tr>",
              sn->total.read_requests, sn->total.write_requests);
    html_raw(d, "<tr><th>Memstore</th><td>");
    html_bytes(d, sn->total.memstore_size);
    html_rawf(d, "</td></tr><tr><th>Store files</th><td>%" PRIu64 " (", sn->total.store_files);
    html_bytes(d, sn->total.store_file_size);
    html_rawf(d, ")</td></tr><tr><th>Open scanners</th><td>%" PRIu64 "</td></tr>",
              sn->open_scanners);
    if (sn->have_engine) {
        html_rawf(d, "<tr><th>Queues</th><td>%zu flushes, %zu compactions waiting</td></tr>",
                  sn->flush_queue, sn->compaction_queue);
        html_rawf(d, "<tr><th>Block cache</th><td>%" PRIu64 " hits, %" PRIu64 " misses, %" PRIu64
                  " blocks, ", sn->cache.hits, sn->cache.misses, sn->cache.entries);
        html_bytes(d, sn->cache.usage);
        html_raw(d, " of ");
        html_bytes(d, sn->cache.capacity);
        html_raw(d, "</td></tr>");
    }
    html_raw(d, "</table>\n");
}

static void page_region_row(const rh_region *r, html_doc *d)
{
    html_raw(d, "<tr><td>");
    html_text(d, r->table);
    html_raw(d, "</td><td class=\"key\">");
    html_text(d, r->name);
    html_raw(d, "</td>");
    cell_key(d, r->start, r->start_len);
    cell_key(d, r->end, r->end_len);
    cell_u64(d, r->st.read_requests);
    cell_u64(d, r->st.write_requests);
    cell_bytes(d, r->st.memstore_size);
    cell_u64(d, r->st.store_files);
    cell_bytes(d, r->st.store_file_size);
    cell_u64(d, r->st.flushes);
    cell_u64(d, r->st.compactions);
    html_raw(d, "</tr>\n");
}

static void page_regions(const rh_snap *sn, html_doc *d)
{
    html_rawf(d, "<h2>Regions (%zu)</h2>\n", sn->n);
    if (!sn->n) {
        html_raw(d, "<p class=\"muted\">No region is open here.</p>\n");
        return;
    }
    html_raw(d, "<table><tr><th>Table</th><th>Region</th><th>Start key</th><th>End key</th>"
                "<th>Read requests</th><th>Write requests</th><th>Memstore</th>"
                "<th>Store files</th><th>Store file size</th><th>Flushes</th>"
                "<th>Compactions</th></tr>\n");
    for (size_t i = 0; i < sn->n; i++)
        page_region_row(&sn->regions[i], d);
    html_raw(d, "</table>\n");
}

static void render_page(void *ctx, const status_pages_view *v, html_doc *d)
{
    page_server(ctx, v, d);
    page_regions(v->snap, d);
}

/* ---- lifecycle ---- */

static const status_pages_ops rs_pages = {
    .ready = ready_check,
    .snap_size = sizeof(rh_snap),
    .snap_fill = snap_fill,
    .snap_clear = snap_clear,
    .name = self_name,
    .title = page_title,
    .metrics = render_metrics,
    .json = render_json,
    .page = render_page,
};

int rs_http_start(rs_server *s)
{
    int port = s->cl.http_port;
    s->cl.http_port = 0;
    if (port < 0 || s->http)
        return ST_OK;
    rs_http *h = calloc(1, sizeof(*h));
    if (!h)
        return st_error(ST_NOMEM, "region server %s: out of memory starting HTTP", s->server_name);
    pthread_mutex_init(&h->mu, NULL);
    s->http = h;
    int rc = status_pages_serve(&h->pages, &rs_pages, s, s->host, port, &h->srv);
    if (rc == ST_OK) {
        s->cl.http_port = http_server_port(h->srv);
        LOG_INFO("region server %s: status pages and metrics on http://%s:%d/", s->server_name,
                 s->advertised_host, s->cl.http_port);
        return ST_OK;
    }
    if (rc == ST_NOMEM) {
        rs_http_stop(s);
        return rc;
    }
    LOG_ERROR("region server %s: no HTTP status pages or metrics: %s", s->server_name, st_errmsg());
    rs_http_stop(s);
    return ST_OK;
}

void rs_http_engine_closing(rs_server *s)
{
    rs_http *h = s->http;
    if (!h)
        return;
    pthread_mutex_lock(&h->mu);
    h->engine_gone = true;
    pthread_mutex_unlock(&h->mu);
}

void rs_http_stop(rs_server *s)
{
    rs_http *h = s->http;
    if (!h)
        return;
    http_server_free(h->srv);
    pthread_mutex_destroy(&h->mu);
    free(h);
    s->http = NULL;
}
