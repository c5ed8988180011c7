/*
 * rest_server.c - the REST gateway's settings (rest.* keys, docs/configuration.md), its
 * life (start, drain, free) and the shared client handles: one strata_client_t and one
 * strata_admin_t for every worker (both thread-safe), and table handles opened once per
 * table name and kept until the gateway stops.
 *
 * Thread-safety: rest_table from any worker (tables_mu); the lifecycle from the owner.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/fileio.h"
#include "common/log.h"
#include "common/net.h"
#include "common/status.h"
#include "rest/rest_http.h"
#include "rest/rest_internal.h"
#include "rest/rest_scanners.h"
#include "rest/rest_work.h"

/* Table handles kept open: past this many distinct names the oldest are no longer
 * cached (a handle is cheap; this bounds memory against requests naming endless tables). */
#define REST_MAX_TABLES 4096

struct rest_table_entry {
    char *name;
    strata_table_t *table;
};

static const config_key rest_keys[] = {
    {"log.level", CONFIG_STRING, "info", "log level: error, warn, info or debug"},
    {"zk.quorum", CONFIG_STRING, "", "ZooKeeper ensemble of the cluster, host:port[,host:port...] "
                                     "(required)"},
    {"zk.parent", CONFIG_STRING, STRATA_DEFAULT_ZK_PARENT, "parent znode of the cluster"},
    {"rest.host", CONFIG_STRING, "0.0.0.0", "address the gateway's HTTP server binds"},
    {"rest.port", CONFIG_INT, "17080", "HTTP port; 0 = any free port"},
    {"rest.advertised.host", CONFIG_STRING, "",
     "host name in the Location of new scanners (empty: the request's Host header)"},
    {"rest.threads", CONFIG_INT, "32", "worker threads that run requests against the cluster"},
    {"rest.io.threads", CONFIG_INT, "1", "event loop threads that read requests and send answers"},
    {"rest.queue.size", CONFIG_INT, "1024",
     "requests waiting for a worker; past it requests are answered 503"},
    {"rest.max.body.size", CONFIG_SIZE, "64m", "largest request body; larger ones are answered 413"},
    {"rest.max.header.size", CONFIG_SIZE, "64k", "largest request line and headers"},
    {"rest.max.rows", CONFIG_INT, "10000",
     "most rows one request may carry or name (413 past it) and rows per scanner answer"},
    {"rest.timeout.s", CONFIG_INT, "30",
     "a connection idle this long, or a client this slow to send or read, is closed"},
    {"rest.readonly", CONFIG_BOOL, "false", "refuse every write with 403 (HBase's hbase.rest.readonly)"},
    {"rest.scanner.idle.timeout.ms", CONFIG_INT, "3600000",
     "a scanner not used for this long expires (HBase's hbase.rest.scannercache.expire.time)"},
    {"rest.scanner.max", CONFIG_INT, "10000",
     "open scanners; a new one past it expires the least recently used "
     "(hbase.rest.scannercache.size)"},
    {"rest.client.operation.timeout.ms", CONFIG_INT, "60000",
     "time each cluster operation may take, retries included"},
    {"rest.ready.file", CONFIG_STRING, "", "file written with the HTTP port once the gateway listens"},
};

int rest_config_define(config *c)
{
    return config_define_all(c, rest_keys, sizeof(rest_keys) / sizeof(rest_keys[0]));
}

static int copy(char *dst, size_t cap, const char *v, const char *key)
{
    if (strlen(v) >= cap)
        return st_error(ST_INVALID_ARGUMENT, "%s is longer than %zu bytes", key, cap - 1);
    snprintf(dst, cap, "%s", v);
    return ST_OK;
}

static int int_in(const config *cfg, const char *key, int64_t min, int64_t max, int64_t *out)
{
    int64_t v = config_get_int64(cfg, key);
    if (v < min || v > max)
        return st_error(ST_INVALID_ARGUMENT, "%s = %lld is outside [%lld, %lld]", key, (long long)v,
                        (long long)min, (long long)max);
    *out = v;
    return ST_OK;
}

static int load_settings(const config *cfg, rest_settings *set)
{
    memset(set, 0, sizeof(*set));
    int64_t v = 0;
    int rc = copy(set->host, sizeof(set->host), config_get_string(cfg, "rest.host"), "rest.host");
    if (rc == ST_OK)
        rc = copy(set->advertised, sizeof(set->advertised),
                  config_get_string(cfg, "rest.advertised.host"), "rest.advertised.host");
    if (rc == ST_OK)
        rc = copy(set->zk_quorum, sizeof(set->zk_quorum), config_get_string(cfg, "zk.quorum"),
                  "zk.quorum");
    if (rc == ST_OK)
        rc = copy(set->zk_parent, sizeof(set->zk_parent), config_get_string(cfg, "zk.parent"),
                  "zk.parent");
    if (rc == ST_OK)
        rc = copy(set->ready_file, sizeof(set->ready_file),
                  config_get_string(cfg, "rest.ready.file"), "rest.ready.file");
    if (rc == ST_OK && !set->zk_quorum[0])
        rc = st_error(ST_INVALID_ARGUMENT, "zk.quorum is required: the ZooKeeper ensemble of "
                                           "the cluster the gateway serves");
    if (rc == ST_OK && (rc = int_in(cfg, "rest.port", 0, 65535, &v)) == ST_OK)
        set->port = (int)v;
    if (rc == ST_OK && (rc = int_in(cfg, "rest.threads", 1, 4096, &v)) == ST_OK)
        set->workers = (int)v;
    if (rc == ST_OK && (rc = int_in(cfg, "rest.io.threads", 1, 64, &v)) == ST_OK)
        set->io_threads = (int)v;
    if (rc == ST_OK && (rc = int_in(cfg, "rest.queue.size", 1, 1000000, &v)) == ST_OK)
        set->queue_size = (size_t)v;
    if (rc == ST_OK && (rc = int_in(cfg, "rest.max.rows", 1, 100000000, &v)) == ST_OK)
        set->max_rows = (uint32_t)v;
    if (rc == ST_OK && (rc = int_in(cfg, "rest.timeout.s", 1, 86400, &v)) == ST_OK)
        set->timeout_s = (int)v;
    if (rc == ST_OK && (rc = int_in(cfg, "rest.scanner.idle.timeout.ms", 1, INT64_MAX / 2, &v)) == ST_OK)
        set->scanner_idle_ms = v;
    if (rc == ST_OK && (rc = int_in(cfg, "rest.scanner.max", 1, 10000000, &v)) == ST_OK)
        set->max_scanners = (uint32_t)v;
    if (rc == ST_OK && (rc = int_in(cfg, "rest.client.operation.timeout.ms", 1, INT32_MAX, &v)) == ST_OK)
        set->op_timeout_ms = v;
    if (rc == ST_OK) {
        set->max_body_bytes = config_get_size(cfg, "rest.max.body.size");
        set->max_header_bytes = config_get_size(cfg, "rest.max.header.size");
        set->read_only = config_get_bool(cfg, "rest.readonly");
        if (set->max_body_bytes < 1024 || set->max_header_bytes < 1024)
            rc = st_error(ST_INVALID_ARGUMENT,
                          "rest.max.body.size and rest.max.header.size must be at least 1k");
    }
    return rc;
}

/* ---- tables ---- */

strata_table_t *rest_table(rest_server *s, const char *name)
{
    pthread_mutex_lock(&s->tables_mu);
    for (size_t i = 0; i < s->ntables; i++)
        if (strcmp(s->tables[i].name, name) == 0) {
            strata_table_t *t = s->tables[i].table;
            pthread_mutex_unlock(&s->tables_mu);
            return t;
        }
    strata_table_t *t = NULL;
    if (s->ntables < REST_MAX_TABLES) {
        if (s->ntables == s->tables_cap) {
            size_t nc = s->tables_cap ? s->tables_cap * 2 : 16;
            struct rest_table_entry *v = realloc(s->tables, nc * sizeof(*v));
            if (v) {
                s->tables = v;
                s->tables_cap = nc;
            }
        }
        char *copy = s->ntables < s->tables_cap ? strdup(name) : NULL;
        t = copy ? strata_table_open(s->client, name) : NULL;
        if (t) {
            s->tables[s->ntables].name = copy;
            s->tables[s->ntables].table = t;
            s->ntables++;
        } else {
            free(copy);
        }
    }
    pthread_mutex_unlock(&s->tables_mu);
    return t;
}

/* ---- lifecycle ---- */

static int open_client(rest_server *s)
{
    char *err = NULL;
    strata_options_t *o = strata_options_create();
    if (!o)
        return st_error(ST_NOMEM, "rest: out of memory");
    strata_options_set_zk_quorum(o, s->set.zk_quorum);
    strata_options_set_zk_parent(o, s->set.zk_parent);
    strata_options_set_operation_timeout_ms(o, (int)s->set.op_timeout_ms);
    s->client = strata_client_open(o, &err);
    strata_options_destroy(o);
    if (!s->client) {
        int rc = st_error(ST_INVALID_ARGUMENT, "rest: cannot open the cluster client: %s",
                          err ? err : "?");
        strata_free(err);
        return rc;
    }
    s->admin = strata_admin_open(s->set.zk_quorum, s->set.zk_parent, &err);
    if (!s->admin) {
        int rc = st_error(ST_INVALID_ARGUMENT, "rest: cannot open the admin handle: %s",
                          err ? err : "?");
        strata_free(err);
        return rc;
    }
    strata_admin_set_timeout_ms(s->admin, s->set.op_timeout_ms);
    return ST_OK;
}

static int write_ready_file(rest_server *s)
{
    if (!s->set.ready_file[0])
        return ST_OK;
    char text[32];
    int n = snprintf(text, sizeof(text), "%d\n", rest_http_port(s->http));
    int rc = fio_write_atomic(s->set.ready_file, text, (size_t)n);
    if (rc != ST_OK)
        LOG_ERROR("rest: writing the ready file %s failed: %s", s->set.ready_file, st_errmsg());
    return rc;
}

int rest_server_start(const config *cfg, rest_server **out)
{
    *out = NULL;
    rest_server *s = calloc(1, sizeof(*s));
    if (!s)
        return st_error(ST_NOMEM, "rest: out of memory");
    pthread_mutex_init(&s->tables_mu, NULL);
    s->started_ms = clock_now_ms();
    int rc = load_settings(cfg, &s->set);
    if (rc == ST_OK)
        rc = open_client(s);
    if (rc == ST_OK)
        rc = rest_scanners_new(s, &s->scanners);
    if (rc == ST_OK)
        rc = rest_work_start(s->set.workers, s->set.queue_size, rest_http_run, s, &s->work);
    if (rc == ST_OK)
        rc = rest_http_start(s, &s->http);
    if (rc == ST_OK)
        rc = write_ready_file(s);
    if (rc != ST_OK) {
        rest_server_free(s);
        return rc;
    }
    LOG_INFO("rest: serving the cluster at %s%s on port %d%s", s->set.zk_quorum, s->set.zk_parent,
             rest_http_port(s->http), s->set.read_only ? " (read-only)" : "");
    *out = s;
    return ST_OK;
}

int rest_server_port(const rest_server *s)
{
    return s ? rest_http_port(s->http) : 0;
}

void rest_server_drain(rest_server *s, int timeout_ms)
{
    if (!s || atomic_exchange(&s->draining, true))
        return;
    rest_http_stop_accepting(s->http);
    int64_t deadline = clock_now_ms() + timeout_ms;
    size_t left = rest_http_in_flight(s->http);
    while (left > 0 && clock_now_ms() < deadline) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
        left = rest_http_in_flight(s->http);
    }
    if (left)
        LOG_WARN("rest: %zu requests still in flight after %d ms of draining", left, timeout_ms);
    else
        LOG_INFO("rest: drained: every request in flight was answered");
}

void rest_server_free(rest_server *s)
{
    if (!s)
        return;
    if (s->http)
        rest_server_drain(s, 30000);
    rest_work_stop(s->work);
    rest_http_stop(s->http);
    rest_scanners_free(s->scanners);
    for (size_t i = 0; i < s->ntables; i++) {
        strata_table_close(s->tables[i].table);
        free(s->tables[i].name);
    }
    free(s->tables);
    strata_admin_close(s->admin);
    strata_client_close(s->client);
    pthread_mutex_destroy(&s->tables_mu);
    free(s);
}
