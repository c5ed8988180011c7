/*
 * master.c - the master's lifecycle (master.h): configuration keys, start (bind, join
 * ZooKeeper, register as a backup), the election thread, activation (fence and split the
 * WALs of earlier masters, open meta, load it, find dead servers, start the chore), and
 * stop; plus the small helpers shared by the other master files.
 *
 * Thread-safety: the lifecycle runs on the owner's thread; the election thread activates
 * the master once; handlers see `active` only after meta is loaded.
 */
#include "master/master.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fileio.h"
#include "common/log.h"
#include "common/net.h"
#include "common/status.h"
#include "common/zk/znodes.h"
#include "master/master_internal.h"
#include "regionserver/storage/layout.h"
#include "regionserver/storage/schema_proto.h"
#include "regionserver/storage/wal.h"

static const config_key master_keys[] = {
    {"root.dir", CONFIG_STRING, "", "root directory holding WALs, region data and meta (required)"},
    {"log.level", CONFIG_STRING, "info", "log level: error, warn, info or debug"},
    {"zk.quorum", CONFIG_STRING, "", "ZooKeeper ensemble, host:port[,host:port...] (required)"},
    {"zk.parent", CONFIG_STRING, ZNODES_DEFAULT_PARENT, "parent znode of everything Strata keeps in ZooKeeper"},
    {"zk.session.timeout.ms", CONFIG_INT, "30000", "ZooKeeper session timeout asked for"},
    {"master.host", CONFIG_STRING, "127.0.0.1", "address the RPC server binds"},
    {"master.advertised.host", CONFIG_STRING, "",
     "host name other processes use to reach this master (empty: the bind host)"},
    {"master.port", CONFIG_INT, "17000", "RPC port; 0 = any free port"},
    {"master.http.port", CONFIG_INT, "17010",
     "HTTP port of the status pages and /metrics (docs/http.md); 0 = any free port, -1 = no "
     "HTTP; the bound port is registered in ZooKeeper"},
    {"master.ready.file", CONFIG_STRING, "",
     "once serving RPC (active or backup), 'host:port' is written here atomically"},
    {"master.handler.threads", CONFIG_INT, "16", "RPC handler threads"},
    {"master.chore.interval.ms", CONFIG_INT, "1000",
     "how often the master checks that every region of an enabled table is open"},
    {"master.region.rpc.timeout.ms", CONFIG_INT, "60000",
     "timeout of an open/close/flush/compact call to a region server"},
    {"master.assign.attempts", CONFIG_INT, "5",
     "servers tried in one assignment before the region is left FAILED_OPEN"},
    {"master.failed.open.retry.ms", CONFIG_INT, "5000",
     "a FAILED_OPEN region is tried again after this"},
    {"master.fence.fraction", CONFIG_DOUBLE, "0.5",
     "meta writes are refused when ZooKeeper has not been heard from for this fraction of "
     "the session timeout"},
    {"master.block.cache.size", CONFIG_SIZE, "16m", "block cache of the meta region"},
    {"master.reconcile.grace.ms", CONFIG_INT, "10000",
     "a region server's report is compared with meta only for regions whose state is older "
     "than this"},
    {"master.catalog.janitor.interval.ms", CONFIG_INT, "300000",
     "how often the catalog janitor removes split and merged parents nothing references"},
    {"master.split.daughters.on.parent.server", CONFIG_BOOL, "true",
     "open a split's daughters (and a merged region) where the parent was open; false: on "
     "the least loaded server"},
    {"master.normalizer.period.ms", CONFIG_INT, "300000",
     "how often the normalizer looks at tables with NORMALIZATION_ENABLED"},
    {"master.normalizer.min.region.count", CONFIG_INT, "3",
     "tables with fewer regions are not normalized"},
    {"master.normalizer.merge.min.region.age.ms", CONFIG_INT, "259200000",
     "regions younger than this are not merged by the normalizer (3 days)"},
    {"master.inject.crash", CONFIG_STRING, "",
     "tests only: '<procedure>:<step>' makes the master kill itself (SIGKILL) at that step"},
    {"master.inject.pause.ms", CONFIG_INT, "0",
     "tests only: with master.inject.pause, how long the master sleeps at that step"},
    {"master.inject.pause", CONFIG_STRING, "",
     "tests only: '<procedure>:<step>' makes the master log 'inject: pausing at ...' and "
     "sleep master.inject.pause.ms at that step"},
};

int master_config_define(config *c)
{
    int rc = config_define_all(c, master_keys, sizeof(master_keys) / sizeof(master_keys[0]));
    return rc == ST_OK ? master_balancer_define(c) : rc;
}

static int copy_str(char *dst, size_t cap, const char *src, const char *key)
{
    if (strlen(src) >= cap)
        return st_error(ST_INVALID_ARGUMENT, "%s is too long (%zu bytes, at most %zu)", key,
                        strlen(src), cap - 1);
    memcpy(dst, src, strlen(src) + 1);
    return ST_OK;
}

static int read_settings(master *m, const config *c)
{
    int rc = copy_str(m->root, sizeof(m->root), config_get_string(c, "root.dir"), "root.dir");
    if (rc == ST_OK)
        rc = copy_str(m->quorum, sizeof(m->quorum), config_get_string(c, "zk.quorum"), "zk.quorum");
    if (rc == ST_OK)
        rc = copy_str(m->parent, sizeof(m->parent), config_get_string(c, "zk.parent"), "zk.parent");
    if (rc == ST_OK)
        rc = copy_str(m->host, sizeof(m->host), config_get_string(c, "master.host"), "master.host");
    if (rc == ST_OK)
        rc = copy_str(m->advertised_host, sizeof(m->advertised_host),
                      config_get_string(c, "master.advertised.host"), "master.advertised.host");
    if (rc == ST_OK)
        rc = copy_str(m->ready_file, sizeof(m->ready_file),
                      config_get_string(c, "master.ready.file"), "master.ready.file");
    if (rc != ST_OK)
        return rc;
    if (!m->root[0])
        return st_error(ST_INVALID_ARGUMENT, "root.dir is not set");
    if (!m->quorum[0])
        return st_error(ST_INVALID_ARGUMENT, "zk.quorum is not set");
    if (m->parent[0] != '/' || (strlen(m->parent) > 1 && m->parent[strlen(m->parent) - 1] == '/'))
        return st_error(ST_INVALID_ARGUMENT, "zk.parent '%s' must start with '/' and not end with it",
                        m->parent);
    if (!m->advertised_host[0]) {
        rc = net_default_advertised_host(m->host, m->advertised_host, sizeof(m->advertised_host));
        if (rc != ST_OK)
            return rc;
    }
    int64_t port = config_get_int64(c, "master.port");
    int64_t http = config_get_int64(c, "master.http.port");
    if (port < 0 || port > 65535 || http < -1 || http > 65535)
        return st_error(ST_INVALID_ARGUMENT, "master.port %" PRId64 " / master.http.port %" PRId64
                        " out of range", port, http);
    m->port_cfg = (int)port;
    m->http_port = (int)http;
    m->session_timeout_ms = (int)config_get_int64(c, "zk.session.timeout.ms");
    m->chore_ms = (int)config_get_int64(c, "master.chore.interval.ms");
    m->rpc_timeout_ms = (int)config_get_int64(c, "master.region.rpc.timeout.ms");
    m->assign_attempts = (int)config_get_int64(c, "master.assign.attempts");
    m->failed_open_retry_ms = config_get_int64(c, "master.failed.open.retry.ms");
    m->fence_fraction = config_get_double(c, "master.fence.fraction");
    m->handler_threads = (int)config_get_int64(c, "master.handler.threads");
    m->block_cache_bytes = config_get_size(c, "master.block.cache.size");
    m->reconcile_grace_ms = config_get_int64(c, "master.reconcile.grace.ms");
    m->janitor_interval_ms = config_get_int64(c, "master.catalog.janitor.interval.ms");
    m->inject_pause_ms = config_get_int64(c, "master.inject.pause.ms");
    m->children_on_parent_server = config_get_bool(c, "master.split.daughters.on.parent.server");
    m->normalizer_period_ms = config_get_int64(c, "master.normalizer.period.ms");
    m->normalizer_min_regions = (int)config_get_int64(c, "master.normalizer.min.region.count");
    m->normalizer_min_age_ms = config_get_int64(c, "master.normalizer.merge.min.region.age.ms");
    if (rc == ST_OK)
        rc = copy_str(m->inject_crash, sizeof(m->inject_crash),
                      config_get_string(c, "master.inject.crash"), "master.inject.crash");
    if (rc == ST_OK)
        rc = copy_str(m->inject_pause, sizeof(m->inject_pause),
                      config_get_string(c, "master.inject.pause"), "master.inject.pause");
    if (rc != ST_OK)
        return rc;
    if (m->session_timeout_ms < 400 || m->chore_ms < 10 || m->rpc_timeout_ms < 100 ||
        m->assign_attempts < 1 || m->handler_threads < 1 || m->fence_fraction <= 0 ||
        m->reconcile_grace_ms < 0 || m->janitor_interval_ms < 10 || m->inject_pause_ms < 0 ||
        m->normalizer_period_ms < 10 || m->normalizer_min_regions < 1 ||
        m->normalizer_min_age_ms < 0 ||
        m->fence_fraction > 1)
        return st_error(ST_INVALID_ARGUMENT,
                        "master settings out of range (zk.session.timeout.ms >= 400, "
                        "chore >= 10 ms, rpc timeout >= 100 ms, attempts >= 1, handlers >= 1, "
                        "0 < fence fraction <= 1)");
    return ST_OK;
}

int master_new(const config *cfg, master **out)
{
    *out = NULL;
    master *m = calloc(1, sizeof(*m));
    if (!m)
        return st_error(ST_NOMEM, "out of memory");
    int rc = read_settings(m, cfg);
    if (rc == ST_OK)
        rc = master_balancer_settings(m, cfg);
    if (rc != ST_OK) {
        free(m);
        return rc;
    }
    pthread_mutex_init(&m->sync_mu, NULL);
    pthread_mutex_init(&m->mu, NULL);
    pthread_mutex_init(&m->balancer_mu, NULL);
    pthread_cond_init(&m->cv, NULL);
    pthread_cond_init(&m->chore_cv, NULL);
    master_set_ops(m, NULL, NULL);
    *out = m;
    return ST_OK;
}

int master_port(const master *m)
{
    return m->rpc ? rpc_server_port(m->rpc) : m->port_cfg;
}

bool master_is_active(master *m)
{
    return atomic_load(&m->active);
}

/* ---- helpers shared by the master files ---- */

int master_check_active(master *m)
{
    if (atomic_load(&m->active) && !atomic_load(&m->stopping))
        return ST_OK;
    server_name act;
    char who[SERVER_NAME_MAX] = "none";
    if (master_active_master(m, &act, NULL) == ST_OK)
        server_name_format(&act, who, sizeof(who));
    return st_error(ST_NOT_SERVING, "master %s is not the active master (active: %s)", m->name,
                    who);
}

int master_ping(master *m)
{
    int64_t sent = (int64_t)clock_mono_ns();
    int rc = master_zk_ping(m);
    if (rc != ST_OK)
        return rc;
    int64_t prev = atomic_load(&m->lease_ns);
    while (prev < sent && !atomic_compare_exchange_weak(&m->lease_ns, &prev, sent))
        ;
    return ST_OK;
}

int master_check_lease(master *m)
{
    /* The SEND time of the last answered ping counts, not when the answer was read: an
     * answer read after a pause proves the session was alive before the pause only. */
    int64_t limit = (int64_t)(m->fence_fraction * master_zk_session_timeout_ms(m));
    int64_t quiet_ms = ((int64_t)clock_mono_ns() - atomic_load(&m->lease_ns)) / 1000000;
    if (quiet_ms < limit)
        return ST_OK;
    if (master_ping(m) == ST_OK &&
        ((int64_t)clock_mono_ns() - atomic_load(&m->lease_ns)) / 1000000 < limit)
        return ST_OK;
    return st_error(ST_NOT_SERVING, "master %s is fenced: no word from ZooKeeper for %" PRId64
                    " ms", m->name, quiet_ms);
}

int master_persist(master *m, const meta_region *rows, size_t n)
{
    int rc = master_check_lease(m);
    if (rc == ST_OK)
        rc = meta_put_regions(m->meta, rows, n);
    /* A pause during the write must not let this master act on it afterwards. */
    if (rc == ST_OK)
        rc = master_check_lease(m);
    return rc;
}

Strata__Admin__TableSchema *master_table_schema(const m_table *t)
{
    Strata__Admin__TableSchema *s =
        strata__admin__table_schema__unpack(NULL, t->schema_len, t->schema);
    if (!s)
        st_error(ST_CORRUPTION, "table %s: its schema in meta does not parse", t->name);
    return s;
}

int master_table_storage_schema(master *m, const m_table *t, table_schema *out)
{
    pthread_mutex_lock(&m->mu);
    Strata__Admin__TableSchema *s = master_table_schema(t);
    pthread_mutex_unlock(&m->mu);
    if (!s)
        return ST_CORRUPTION;
    int rc = schema_from_proto(s, 128u << 20, out);
    strata__admin__table_schema__free_unpacked(s, NULL);
    return rc;
}

m_table *master_find_table(master *m, const char *name)
{
    for (size_t i = 0; i < m->ntables; i++)
        if (strcmp(m->tables[i]->name, name) == 0)
            return m->tables[i];
    return NULL;
}

m_region *master_find_region(master *m, const char *encoded, m_table **table)
{
    for (size_t i = 0; i < m->ntables; i++)
        for (size_t j = 0; j < m->tables[i]->n; j++)
            if (strcmp(m->tables[i]->regions[j]->mr.encoded_name, encoded) == 0) {
                if (table)
                    *table = m->tables[i];
                return m->tables[i]->regions[j];
            }
    return NULL;
}

int master_add_table(master *m, m_table *t)
{
    if (m->ntables == m->tcap) {
        size_t cap = m->tcap ? m->tcap * 2 : 16;
        m_table **v = realloc(m->tables, cap * sizeof(*v));
        if (!v)
            return st_error(ST_NOMEM, "out of memory");
        m->tables = v;
        m->tcap = cap;
    }
    size_t at = 0;
    while (at < m->ntables && strcmp(m->tables[at]->name, t->name) < 0)
        at++;
    memmove(m->tables + at + 1, m->tables + at, (m->ntables - at) * sizeof(*m->tables));
    m->tables[at] = t;
    m->ntables++;
    return ST_OK;
}

void master_table_free(m_table *t)
{
    if (!t)
        return;
    m_region **lists[3] = {t->regions, t->parents, t->gone};
    size_t counts[3] = {t->n, t->nparents, t->ngone};
    for (int l = 0; l < 3; l++) {
        for (size_t i = 0; i < counts[l]; i++) {
            meta_region_clear(&lists[l][i]->mr);
            free(lists[l][i]);
        }
        free(lists[l]);
    }
    free(t->schema);
    free(t);
}

void master_remove_table(master *m, m_table *t)
{
    for (size_t i = 0; i < m->ntables; i++)
        if (m->tables[i] == t) {
            memmove(m->tables + i, m->tables + i + 1, (m->ntables - i - 1) * sizeof(*m->tables));
            m->ntables--;
            break;
        }
    master_table_free(t);
}

m_table **master_tables_hold(master *m, size_t *n)
{
    pthread_mutex_lock(&m->mu);
    m_table **v = m->ntables ? calloc(m->ntables, sizeof(*v)) : NULL;
    *n = v ? m->ntables : 0;
    for (size_t i = 0; i < *n; i++) {
        v[i] = m->tables[i];
        v[i]->users++;
    }
    pthread_mutex_unlock(&m->mu);
    return v;
}

void master_tables_release(master *m, m_table **v, size_t n)
{
    pthread_mutex_lock(&m->mu);
    for (size_t i = 0; i < n; i++)
        v[i]->users--;
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
    free(v);
}

static bool any_region_busy(const m_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->regions[i]->busy)
            return true;
    return false;
}

void master_table_wait_unused(master *m, m_table *t, int own)
{
    /* An RPC handler that took one of its regions (master_region_take) holds a pointer to
     * it (and to t) without counting in users. */
    while (t->users > own || any_region_busy(t))
        pthread_cond_wait(&m->cv, &m->mu);
}

int master_qualify(const char *name, char *out, size_t cap)
{
    char *ns = NULL, *q = NULL;
    int rc = layout_split_table_name(name, &ns, &q);
    if (rc == ST_OK && (size_t)snprintf(out, cap, "%s:%s", ns, q) >= cap)
        rc = st_error(ST_INVALID_ARGUMENT, "table name '%s' is too long", name);
    free(ns);
    free(q);
    return rc;
}

/* ---- activation ---- */

/* Fences and splits the WAL directories of earlier masters (their meta edits). */
static int recover_master_wals(master *m)
{
    char *wals = NULL, **names = NULL;
    size_t n = 0;
    char mine[SERVER_NAME_MAX + 16];
    layout_master_wal_name(m->name, mine, sizeof(mine));
    if (!(wals = layout_wals_dir(m->root)))
        return st_error(ST_NOMEM, "out of memory");
    int rc = fio_mkdirs(wals);
    if (rc == ST_OK)
        rc = fio_list_dir(wals, &names, &n);
    for (size_t i = 0; rc == ST_OK && i < n; i++)
        if (layout_is_master_wal_name(names[i]) && strcmp(names[i], mine) != 0)
            rc = master_fence_and_split(m, names[i]); /* an earlier master's meta edits */
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(wals);
    return rc;
}

/* Start-key order (then region id): meta's row order is not start-key order when one
 * start key is a prefix of another that continues with a byte below ',' (meta.md). */
int master_region_cmp(const void *a, const void *b)
{
    const meta_region *x = &(*(m_region *const *)a)->mr, *y = &(*(m_region *const *)b)->mr;
    size_t l = x->start_len < y->start_len ? x->start_len : y->start_len;
    int c = l ? memcmp(x->start_key, y->start_key, l) : 0;
    if (c == 0)
        c = (x->start_len > y->start_len) - (x->start_len < y->start_len);
    if (c == 0)
        c = (x->region_id > y->region_id) - (x->region_id < y->region_id);
    return c;
}

static int push_region(m_region ***v, size_t *n, size_t *cap, m_region *r)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        m_region **p = realloc(*v, nc * sizeof(*p));
        if (!p)
            return st_error(ST_NOMEM, "out of memory");
        *v = p;
        *cap = nc;
    }
    (*v)[(*n)++] = r;
    return ST_OK;
}

int master_table_add_region(m_table *t, m_region *r)
{
    int rc = push_region(&t->regions, &t->n, &t->cap, r);
    if (rc == ST_OK && t->n > 1)
        qsort(t->regions, t->n, sizeof(*t->regions), master_region_cmp);
    return rc;
}

bool master_table_drop_region(m_table *t, m_region *r)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->regions[i] == r) {
            memmove(t->regions + i, t->regions + i + 1, (t->n - i - 1) * sizeof(*t->regions));
            t->n--;
            return true;
        }
    return false;
}

int master_table_bury(m_table *t, m_region *r)
{
    return push_region(&t->gone, &t->ngone, &t->gone_cap, r);
}

static int load_meta(master *m)
{
    meta_table *tables = NULL;
    meta_region *regions = NULL;
    size_t nt = 0, nr = 0;
    int rc = meta_list_tables(m->meta, NULL, &tables, &nt);
    if (rc == ST_OK)
        rc = meta_all_regions(m->meta, &regions, &nr);
    pthread_mutex_lock(&m->mu);
    for (size_t i = 0; rc == ST_OK && i < nt; i++) {
        m_table *t = calloc(1, sizeof(*t));
        if (!t) {
            rc = st_error(ST_NOMEM, "out of memory");
            break;
        }
        memcpy(t->name, tables[i].name, sizeof(t->name));
        t->schema = tables[i].schema;
        t->schema_len = tables[i].schema_len;
        tables[i].schema = NULL;
        t->state = tables[i].state;
        t->state_ms = clock_now_ms();
        rc = master_add_table(m, t);
        if (rc != ST_OK)
            master_table_free(t);
    }
    int64_t now = clock_now_ms();
    for (size_t i = 0; rc == ST_OK && i < nr; i++) {
        m_table *t = master_find_table(m, regions[i].table);
        if (!t) {
            LOG_WARN("master %s: meta has region %s of unknown table %s; ignored", m->name,
                     regions[i].encoded_name, regions[i].table);
            continue;
        }
        m_region *r = calloc(1, sizeof(*r));
        if (!r) {
            rc = st_error(ST_NOMEM, "out of memory");
            break;
        }
        r->mr = regions[i];
        memset(&regions[i], 0, sizeof(regions[i]));
        r->since_ms = now;
        /* A split parent no longer tiles the table: its daughters do. */
        if (r->mr.offline && r->mr.split)
            rc = push_region(&t->parents, &t->nparents, &t->parents_cap, r);
        else
            rc = push_region(&t->regions, &t->n, &t->cap, r);
        if (rc != ST_OK) {
            meta_region_clear(&r->mr);
            free(r);
        }
    }
    for (size_t i = 0; rc == ST_OK && i < m->ntables; i++)
        if (m->tables[i]->n > 1)
            qsort(m->tables[i]->regions, m->tables[i]->n, sizeof(*m->tables[i]->regions),
                  master_region_cmp);
    pthread_mutex_unlock(&m->mu);
    meta_tables_free(tables, nt);
    meta_regions_free(regions, nr);
    return rc;
}

static int ensure_cluster_id(master *m)
{
    char *path = znodes_path(m->parent, ZNODE_CLUSTER_ID, NULL);
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = path ? master_zk_get(m, path, &data, &len, NULL) : st_error(ST_NOMEM, "out of memory");
    if (rc == ST_NOT_FOUND) {
        char id[40];
        uint64_t a = ((uint64_t)clock_now_ms() << 20) ^ (uint64_t)getpid() ^ m->start_code;
        uint64_t b = clock_mono_ns() * 0x9E3779B97F4A7C15ull;
        snprintf(id, sizeof(id), "%016" PRIx64 "%016" PRIx64, a, b);
        rc = master_zk_create(m, path, id, strlen(id), ZK_PERSISTENT);
        if (rc == ST_OK || rc == ST_EXISTS)
            rc = master_zk_get(m, path, &data, &len, NULL);
    }
    if (rc == ST_OK)
        snprintf(m->cluster_id, sizeof(m->cluster_id), "%.*s", (int)len, (const char *)data);
    free(data);
    free(path);
    return rc;
}

int master_activate(master *m, bool start_chore)
{
    char wal_name[SERVER_NAME_MAX + 16];
    layout_master_wal_name(m->name, wal_name, sizeof(wal_name));
    int rc = ensure_cluster_id(m);
    if (rc == ST_OK)
        rc = recover_master_wals(m);
    if (rc == ST_OK) {
        engine_options eo;
        engine_options_init(&eo);
        eo.root_dir = m->root;
        eo.server_name = wal_name;
        eo.block_cache_bytes = m->block_cache_bytes;
        rc = engine_open(&eo, &m->eng);
    }
    if (rc == ST_OK)
        rc = meta_open(m->eng, &m->meta);
    if (rc == ST_OK)
        rc = load_meta(m);
    if (rc != ST_OK)
        return rc;
    master_switches_load(m);
    master_servers_sync(m);
    master_servers_find_dead(m);
    m->active_since_ms = clock_now_ms();
    atomic_store(&m->active, true);
    /* Unfinished splits and merges: rolled back or sent forward before the chore runs. */
    rc = master_procs_resume(m);
    if (rc != ST_OK)
        return rc;
    if (start_chore && pthread_create(&m->chore_thr, NULL, master_chore_main, m) != 0)
        return st_error(ST_INTERNAL, "master %s: cannot start the chore thread", m->name);
    m->chore_started = start_chore;
    LOG_INFO("master %s is the active master (%zu tables, cluster %s)", m->name, m->ntables,
             m->cluster_id);
    return ST_OK;
}

/* ---- election ---- */

static void on_master_node(void *arg, const char *path, bool exists, const uint8_t *data,
                           size_t len, const zk_stat *st)
{
    master *m = arg;
    if (exists)
        return;
    pthread_mutex_lock(&m->mu);
    m->master_node_gone = true;
    pthread_cond_broadcast(&m->chore_cv);
    pthread_mutex_unlock(&m->mu);
}

static void on_rs_children(void *arg, const char *path, bool exists, char **names, size_t n)
{
    master *m = arg;
    pthread_mutex_lock(&m->mu);
    m->rs_changed = true;
    pthread_cond_broadcast(&m->chore_cv);
    pthread_mutex_unlock(&m->mu);
}

static uint8_t *my_info(master *m, size_t *len)
{
    return server_info_encode(&m->sn, (uint32_t)m->http_port, (uint64_t)clock_now_ms(), len);
}

/* Tries to create the master znode: ST_OK (we are active), ST_EXISTS, or an error. */
static int try_become_active(master *m)
{
    char *path = znodes_path(m->parent, ZNODE_MASTER, NULL);
    size_t len = 0;
    uint8_t *info = my_info(m, &len);
    int rc = (path && info) ? zk_create(m->z, path, info, len, ZK_EPHEMERAL, NULL, 0)
                            : st_error(ST_NOMEM, "out of memory");
    if (rc == ST_EXISTS) {
        /* A create whose answer was lost (connection loss) may have made the node under
         * this session: then it is ours, and it goes only with this session. */
        zk_stat st;
        uint8_t *data = NULL;
        size_t dlen = 0;
        if (zk_get(m->z, path, &data, &dlen, &st) == ST_OK && st.ephemeral_owner != 0 &&
            st.ephemeral_owner == zk_session_id(m->z))
            rc = ST_OK;
        else
            st_error(ST_EXISTS, "another master holds %s", path);
        free(data);
    }
    free(info);
    free(path);
    return rc;
}

static void *election_main(void *arg)
{
    master *m = arg;
    while (!atomic_load(&m->stopping)) {
        int rc = try_become_active(m);
        if (rc == ST_OK) {
            char *bpath = znodes_path(m->parent, ZNODE_BACKUP_MASTERS, m->name);
            if (bpath)
                zk_delete(m->z, bpath, -1);
            free(bpath);
            rc = master_activate(m, true);
            if (rc != ST_OK) {
                LOG_ERROR("master %s: activation failed: %s; exiting so that another master "
                          "takes over", m->name, st_errmsg());
                _exit(70);
            }
            return NULL;
        }
        if (rc != ST_EXISTS)
            LOG_WARN("master %s: election: %s", m->name, st_errmsg());
        pthread_mutex_lock(&m->mu);
        if (!m->master_node_gone && !atomic_load(&m->stopping)) {
            struct timespec until = clock_realtime_after_ms(1000);
            pthread_cond_timedwait(&m->chore_cv, &m->mu, &until);
        }
        m->master_node_gone = false;
        pthread_mutex_unlock(&m->mu);
    }
    return NULL;
}

static void on_zk_state(void *arg, zk_state st)
{
    master *m = arg;
    if (st == ZK_EXPIRED) {
        LOG_ERROR("master %s: ZooKeeper session expired; exiting (another master takes over)",
                  m->name[0] ? m->name : "(starting)");
        _exit(70);
    }
}

static int write_ready_file(master *m, int port)
{
    if (!m->ready_file[0])
        return ST_OK;
    char text[300];
    int len = snprintf(text, sizeof(text), "%s:%d\n", m->advertised_host, port);
    return fio_write_atomic(m->ready_file, text, (size_t)len);
}

static int register_backup(master *m)
{
    size_t len = 0;
    uint8_t *info = my_info(m, &len);
    char *path = znodes_path(m->parent, ZNODE_BACKUP_MASTERS, m->name);
    int rc = ST_OK;
    if (!info || !path)
        rc = st_error(ST_NOMEM, "out of memory");
    if (rc == ST_OK)
        rc = zk_create(m->z, path, info, len, ZK_EPHEMERAL, NULL, 0);
    free(info);
    free(path);
    return rc;
}

static int create_parents(master *m)
{
    int rc = znodes_create_dirs(m->z, m->parent);
    char *bal = znodes_path(m->parent, ZNODE_BALANCER, NULL);
    if (rc == ST_OK && bal) {
        int b = zk_create(m->z, bal, "true", 4, ZK_PERSISTENT, NULL, 0);
        if (b != ST_OK && b != ST_EXISTS)
            rc = b;
    }
    free(bal);
    return rc;
}

int master_start(master *m)
{
    rpc_server_opts ro;
    rpc_server_opts_default(&ro);
    ro.handler_threads = m->handler_threads;
    rpc_client_opts co;
    rpc_client_opts_default(&co);
    int rc = rpc_server_new(&ro, &m->rpc);
    if (rc == ST_OK)
        rc = rpc_client_new(&co, &m->rpcc);
    if (rc == ST_OK)
        rc = master_service_register(m);
    if (rc == ST_OK)
        rc = rpc_server_start(m->rpc, m->host, m->port_cfg);
    if (rc != ST_OK)
        return rc;
    m->start_code = (uint64_t)clock_now_ms();
    snprintf(m->sn.host, sizeof(m->sn.host), "%s", m->advertised_host);
    m->sn.port = (uint16_t)rpc_server_port(m->rpc);
    m->sn.start_code = m->start_code;
    server_name_format(&m->sn, m->name, sizeof(m->name));

    zk_options zo = {.quorum = m->quorum,
                     .session_timeout_ms = m->session_timeout_ms,
                     .connect_timeout_ms = 15000,
                     .on_state = on_zk_state,
                     .arg = m};
    rc = zk_open(&zo, &m->z);
    if (rc == ST_OK)
        rc = master_http_start(m); /* before registering: ZooKeeper gets the bound port */
    if (rc == ST_OK)
        rc = create_parents(m);
    if (rc == ST_OK)
        rc = register_backup(m);
    char *mpath = znodes_path(m->parent, ZNODE_MASTER, NULL);
    char *rspath = znodes_path(m->parent, ZNODE_RS, NULL);
    if (rc == ST_OK && (!mpath || !rspath))
        rc = st_error(ST_NOMEM, "out of memory");
    if (rc == ST_OK)
        rc = zk_watch_node(m->z, mpath, on_master_node, m, NULL);
    if (rc == ST_OK)
        rc = zk_watch_children(m->z, rspath, on_rs_children, m, NULL);
    free(mpath);
    free(rspath);
    if (rc == ST_OK) {
        if (pthread_create(&m->election_thr, NULL, election_main, m) != 0)
            return st_error(ST_INTERNAL, "master %s: cannot start the election thread", m->name);
        m->election_started = true;
        rc = write_ready_file(m, rpc_server_port(m->rpc));
    }
    if (rc == ST_OK)
        LOG_INFO("master %s serving RPC on %s:%d (ZooKeeper %s%s)", m->name, m->host,
                 rpc_server_port(m->rpc), m->quorum, m->parent);
    return rc;
}

int master_stop(master *m)
{
    if (atomic_exchange(&m->stopping, true))
        return ST_OK;
    pthread_mutex_lock(&m->mu);
    m->chore_stop = true;
    pthread_cond_broadcast(&m->chore_cv);
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
    if (m->election_started)
        pthread_join(m->election_thr, NULL);
    if (m->chore_started)
        pthread_join(m->chore_thr, NULL);
    m->election_started = m->chore_started = false;
    if (m->rpc)
        rpc_server_stop(m->rpc);
    pthread_mutex_lock(&m->mu);
    while (m->proc_threads > 0)
        pthread_cond_wait(&m->cv, &m->mu);
    pthread_mutex_unlock(&m->mu);
    meta_close(m->meta);
    m->meta = NULL;
    engine_close(m->eng);
    m->eng = NULL;
    atomic_store(&m->active, false);
    master_http_stop(m); /* its pages read ZooKeeper */
    /* Ending the session drops the master znode: a backup takes over at once. */
    zk_close(m->z);
    m->z = NULL;
    LOG_INFO("master %s stopped", m->name);
    return ST_OK;
}

void master_free(master *m)
{
    if (!m)
        return;
    master_stop(m);
    rpc_server_free(m->rpc);
    rpc_client_free(m->rpcc);
    for (size_t i = 0; i < m->ntables; i++)
        master_table_free(m->tables[i]);
    free(m->tables);
    for (size_t i = 0; i < m->nservers; i++)
        master_server_free(m->servers[i]);
    free(m->servers);
    for (size_t i = 0; i < m->ndead; i++)
        free(m->dead[i]);
    free(m->dead);
    for (size_t i = 0; i < m->ncrash; i++)
        free(m->crash[i]);
    free(m->crash);
    for (size_t i = 0; i < m->nprocs; i++)
        free(m->procs[i]);
    free(m->procs);
    pthread_mutex_destroy(&m->sync_mu);
    pthread_mutex_destroy(&m->mu);
    pthread_mutex_destroy(&m->balancer_mu);
    pthread_cond_destroy(&m->cv);
    pthread_cond_destroy(&m->chore_cv);
    free(m->bal_last);
    free(m);
}
