/*
 * rs_cluster.c - the region server as a cluster member (DESIGN.md §2-§3, docs/znodes.md),
 * active only when zk.quorum is set:
 *
 *   - a ZooKeeper session, opened at start (rs_cluster_join); its expiry aborts the
 *     process (_exit(70)): the master recovers the regions from the WAL;
 *   - the ephemeral <parent>/rs/<server name> holding a ServerInfo (rs_cluster_register);
 *   - a cluster thread that pings ZooKeeper (every report interval, and at least every
 *     session timeout / 4) and sends MasterService.RegionServerReport to the active
 *     master; a "you are dead" answer (ST_CLOSED) aborts the process (_exit(70));
 *   - region ownership: <parent>/region-owner/<encoded name>, ephemeral under this
 *     session, created before a region opens and deleted after it closed;
 *   - self-fencing: a write is refused (ST_NOT_SERVING) unless ZooKeeper answered a ping
 *     sent less than fence.fraction x the session timeout ago. The ping's SEND time is
 *     what counts: an answer read after a pause proves the session was alive before it,
 *     not after (a process that was stopped counts its whole pause, monotonic clock);
 *   - a graceful stop that hands every region back to the master (rs_cluster_leave) and
 *     deletes the rs node last (rs_cluster_finish).
 *
 * Lifecycle (rs_server.c): init -> join -> register -> [serving] -> leave -> finish ->
 * destroy. Every function is a no-op returning ST_OK in standalone mode.
 * Thread-safety: check_fence/check_open/claim/disclaim run on handler threads and use
 * only the zk handle (thread-safe) and atomics; the cluster thread owns master_addr;
 * cl.mu guards thread_stop only and is never held over a call. The heartbeat's
 * completion runs on the master client's I/O thread and touches atomics only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/proto/master.pb-c.h"
#include "common/server_name.h"
#include "common/rpc/rpc_proto.h"
#include "common/status.h"
#include "common/taskmon.h"
#include "common/zk/znodes.h"
#include "regionserver/rs_internal.h"

#define RS_ABORT_STATUS 70
#define RS_MASTER_CALL_MS 5000

/* ---- settings ---- */

static int int_key(const config *c, const char *key, int64_t lo, int64_t hi, int *out)
{
    int64_t v = config_get_int64(c, key);
    if (v < lo || v > hi)
        return st_error(ST_INVALID_ARGUMENT, "%s = %" PRId64 " is out of range %" PRId64
                        "..%" PRId64, key, v, lo, hi);
    *out = (int)v;
    return ST_OK;
}

static int str_key(const config *c, const char *key, char *dst, size_t cap)
{
    const char *v = config_get_string(c, key);
    if (strlen(v) >= cap)
        return st_error(ST_INVALID_ARGUMENT, "%s is too long (%zu bytes)", key, strlen(v));
    memcpy(dst, v, strlen(v) + 1);
    return ST_OK;
}

static int check_parent(const char *p)
{
    size_t n = strlen(p);
    if (n < 2 || p[0] != '/' || p[n - 1] == '/' || strstr(p, "//"))
        return st_error(ST_INVALID_ARGUMENT, "zk.parent '%s' must be an absolute znode path "
                        "like /strata (no trailing '/')", p);
    return ST_OK;
}

int rs_cluster_init(const config *c, rs_server *s)
{
    rs_cluster *cl = &s->cl;
    pthread_mutex_init(&cl->mu, NULL);
    pthread_cond_init(&cl->cv, NULL);
    int rc = str_key(c, "zk.quorum", cl->quorum, sizeof(cl->quorum));
    if (rc == ST_OK)
        rc = str_key(c, "zk.parent", cl->parent, sizeof(cl->parent));
    if (rc == ST_OK)
        rc = check_parent(cl->parent);
    if (rc == ST_OK)
        rc = int_key(c, "zk.session.timeout.ms", 100, 3600000, &cl->session_timeout_ms);
    if (rc == ST_OK)
        rc = int_key(c, "regionserver.http.port", -1, 65535, &cl->http_port);
    if (rc == ST_OK)
        rc = int_key(c, "regionserver.report.interval.ms", 10, 3600000, &cl->report_interval_ms);
    cl->fence_fraction = config_get_double(c, "regionserver.fence.fraction");
    if (rc == ST_OK && !(cl->fence_fraction > 0 && cl->fence_fraction < 1))
        rc = st_error(ST_INVALID_ARGUMENT, "regionserver.fence.fraction = %g is out of range "
                      "(0, 1)", cl->fence_fraction);
    return rc;
}

void rs_cluster_destroy(rs_server *s)
{
    pthread_mutex_destroy(&s->cl.mu);
    pthread_cond_destroy(&s->cl.cv);
}

bool rs_cluster_enabled(const rs_server *s)
{
    return s->cl.quorum[0] != 0;
}

static void self_name(const rs_server *s, server_name *out)
{
    memset(out, 0, sizeof(*out));
    snprintf(out->host, sizeof(out->host), "%s", s->advertised_host);
    out->port = (uint16_t)rs_server_port(s);
    out->start_code = s->start_code;
}

static void self_name_proto(const rs_server *s, Strata__Master__ServerName *out)
{
    strata__master__server_name__init(out);
    out->host = (char *)s->advertised_host;
    out->port = (uint32_t)rs_server_port(s);
    out->start_code = s->start_code;
}

/* ---- session ---- */

/* On the zk event thread. */
static void on_state(void *arg, zk_state st)
{
    rs_server *s = arg;
    if (st == ZK_EXPIRED) {
        LOG_ERROR("region server %s: ZooKeeper session expired; aborting (the master "
                  "recovers its regions from the WAL)", s->server_name);
        _exit(RS_ABORT_STATUS);
    }
    if (st == ZK_CONNECTING && !atomic_load(&s->cl.stopping))
        LOG_WARN("region server %s: lost the connection to ZooKeeper %s, reconnecting",
                 s->server_name, s->cl.quorum);
    else if (st == ZK_CONNECTED)
        LOG_INFO("region server %s: connected to ZooKeeper %s", s->server_name, s->cl.quorum);
}

static int create_dir(rs_server *s, znode_id dir)
{
    char *path = znodes_path(s->cl.parent, dir, NULL);
    if (!path)
        return st_error(ST_NOMEM, "region server: out of memory");
    int rc = zk_create_all(s->cl.z, path);
    if (rc != ST_OK)
        LOG_ERROR("region server %s: creating %s failed: %s", s->server_name, path, st_errmsg());
    free(path);
    return rc;
}

int rs_cluster_join(rs_server *s)
{
    if (!rs_cluster_enabled(s))
        return ST_OK;
    rs_cluster *cl = &s->cl;
    zk_options o = {
        .quorum = cl->quorum,
        .session_timeout_ms = cl->session_timeout_ms,
        .connect_timeout_ms = cl->session_timeout_ms > 5000 ? cl->session_timeout_ms : 5000,
        .on_state = on_state,
        .arg = s,
    };
    int64_t t0 = (int64_t)clock_mono_ns();
    int rc = zk_open(&o, &cl->z);
    if (rc != ST_OK) {
        rc = st_error(rc, "region server %s: cannot join ZooKeeper at %s: %s", s->server_name,
                      cl->quorum, st_errmsg());
        LOG_ERROR("%s", st_errmsg());
        return rc;
    }
    atomic_store(&cl->heard_ns, t0);
    LOG_INFO("region server %s: ZooKeeper session 0x%" PRIx64 " (timeout %d ms) at %s, parent "
             "%s", s->server_name, (uint64_t)zk_session_id(cl->z), zk_session_timeout_ms(cl->z),
             cl->quorum, cl->parent);
    if ((rc = create_dir(s, ZNODE_RS)) == ST_OK)
        rc = create_dir(s, ZNODE_REGION_OWNER);
    return rc;
}

/* ---- region ownership ---- */

static char *owner_path(rs_server *s, const char *encoded_name)
{
    return znodes_path(s->cl.parent, ZNODE_REGION_OWNER, encoded_name);
}

static uint8_t *owner_record(rs_server *s, const region_info *info, size_t *len)
{
    Strata__Master__ServerName sn;
    Strata__Master__RegionOwner o = STRATA__MASTER__REGION_OWNER__INIT;
    self_name_proto(s, &sn);
    o.server = &sn;
    o.table = (char *)info->table;
    *len = strata__master__region_owner__get_packed_size(&o);
    uint8_t *data = malloc(*len ? *len : 1);
    if (data)
        strata__master__region_owner__pack(&o, data);
    return data;
}

/* The node exists: ST_OK if it is ours, ST_EXISTS naming its owner, ST_NOT_FOUND if it
 * went meanwhile. */
static int check_owner(rs_server *s, const char *path, const char *encoded_name)
{
    uint8_t *data = NULL;
    size_t len = 0;
    zk_stat st;
    int rc = zk_get(s->cl.z, path, &data, &len, &st);
    if (rc != ST_OK)
        return rc;
    if (st.ephemeral_owner != 0 && st.ephemeral_owner == zk_session_id(s->cl.z)) {
        free(data);
        return ST_OK;
    }
    char owner[SERVER_NAME_MAX] = "";
    Strata__Master__RegionOwner *o = strata__master__region_owner__unpack(NULL, len, data);
    if (o && o->server) {
        server_name_format_proto(o->server, owner, sizeof(owner));
    } else {
        snprintf(owner, sizeof(owner), "(unreadable record, session 0x%" PRIx64 ")",
                 (uint64_t)st.ephemeral_owner);
    }
    if (o)
        strata__master__region_owner__free_unpacked(o, NULL);
    free(data);
    return st_error(ST_EXISTS, "region %s is owned by server %s", encoded_name, owner);
}

int rs_cluster_claim(rs_server *s, const region_info *info)
{
    if (!s->cl.z)
        return ST_OK;
    size_t len = 0;
    char *path = owner_path(s, info->encoded_name);
    uint8_t *data = path ? owner_record(s, info, &len) : NULL;
    int rc = data ? ST_OK : st_error(ST_NOMEM, "region %s: out of memory", info->encoded_name);
    /* A node found and gone before it could be read (its owner's session just ended) is
     * tried again a few times. */
    for (int attempt = 0; rc == ST_OK; attempt++) {
        if ((rc = zk_create(s->cl.z, path, data, len, ZK_EPHEMERAL, NULL, 0)) != ST_EXISTS)
            break;
        if ((rc = check_owner(s, path, info->encoded_name)) != ST_NOT_FOUND)
            break;
        rc = attempt < 2 ? ST_OK
                         : st_error(ST_EXISTS, "region %s: its ownership node %s keeps changing",
                                    info->encoded_name, path);
    }
    free(data);
    free(path);
    return rc;
}

void rs_cluster_disclaim(rs_server *s, const char *encoded_name)
{
    if (!s->cl.z)
        return;
    char *path = owner_path(s, encoded_name);
    int rc = path ? zk_delete(s->cl.z, path, -1) : ST_NOMEM;
    if (rc != ST_OK && rc != ST_NOT_FOUND)
        LOG_WARN("region %s: deleting its ownership node failed (it goes with the session): %s",
                 encoded_name, st_errmsg());
    free(path);
}

/* ---- self-fencing ---- */

int rs_cluster_check_fence(rs_server *s)
{
    zk *z = s->cl.z;
    if (!z)
        return ST_OK;
    int64_t quiet = (int64_t)clock_mono_ns() - atomic_load(&s->cl.heard_ns);
    int64_t limit = (int64_t)(s->cl.fence_fraction * zk_session_timeout_ms(z) * 1e6);
    if (quiet < limit && zk_get_state(z) != ZK_EXPIRED) {
        if (atomic_load_explicit(&s->cl.fenced, memory_order_relaxed) &&
            atomic_exchange(&s->cl.fenced, false))
            LOG_INFO("region server %s: heard from ZooKeeper again, taking writes",
                     s->server_name);
        return ST_OK;
    }
    atomic_fetch_add(&s->cl.writes_fenced, 1);
    int rc = st_error(ST_NOT_SERVING, "region server %s is fenced: no word from ZooKeeper for %"
                      PRId64 " ms", s->server_name, quiet / 1000000);
    if (!atomic_exchange(&s->cl.fenced, true))
        LOG_WARN("%s; refusing writes", st_errmsg());
    return rc;
}

void rs_cluster_note_ack(rs_server *s)
{
    atomic_fetch_add(&s->cl.writes_acked, 1);
    atomic_store(&s->cl.last_ack_ms, clock_now_ms());
}

int rs_cluster_check_open(rs_server *s)
{
    if (!atomic_load(&s->cl.stopping))
        return ST_OK;
    return st_error(ST_CLOSED, "region server %s is stopping", s->server_name);
}

/* ---- the cluster thread: pings and heartbeats ---- */

static void ping(rs_server *s)
{
    int64_t sent = (int64_t)clock_mono_ns();
    if (zk_ping(s->cl.z) != ST_OK) {
        LOG_DEBUG("region server %s: ZooKeeper ping failed: %s", s->server_name, st_errmsg());
        return;
    }
    int64_t prev = atomic_load(&s->cl.heard_ns);
    while (prev < sent && !atomic_compare_exchange_weak(&s->cl.heard_ns, &prev, sent))
        ;
}

/* On the master client's I/O thread. */
static void report_done(void *arg, rpc_result *res)
{
    rs_server *s = arg;
    atomic_store(&s->cl.report_inflight, false);
    if (res->status == ST_OK || atomic_load(&s->cl.stopping))
        return;
    if (res->status == ST_CLOSED) {
        LOG_ERROR("region server %s: the master declared this server dead (%s); aborting",
                  s->server_name, res->message);
        _exit(RS_ABORT_STATUS);
    }
    LOG_DEBUG("region server %s: heartbeat failed: %s", s->server_name, res->message);
    atomic_store(&s->cl.master_stale, true);
}

/* The active master's "host:port" into addr; ST_NOT_FOUND when there is none. */
static int find_master(rs_server *s, char *addr, size_t cap)
{
    server_name m;
    addr[0] = 0;
    int rc = znodes_active_master(s->cl.z, s->cl.parent, &m, NULL);
    if (rc == ST_OK)
        server_name_addr(&m, addr, cap);
    return rc;
}

int rs_cluster_master_call(rs_server *s, const char *method, const ProtobufCMessage *req,
                           int timeout_ms)
{
    if (!rs_cluster_enabled(s) || !s->cl.z)
        return st_error(ST_NOT_SERVING, "region server %s: no cluster, no master to ask",
                        s->server_name);
    char addr[300];
    int rc = find_master(s, addr, sizeof(addr));
    if (rc == ST_NOT_FOUND)
        return st_error(ST_NOT_SERVING, "region server %s: no active master", s->server_name);
    if (rc != ST_OK)
        return rc;
    return rpc_proto_call(s->cl.master, addr, method, req, timeout_ms, NULL, NULL);
}

/* The running tasks as ServerTask messages from pool (n 0 if out of memory). */
static Strata__Master__ServerTask **report_tasks(rs_pool *pool, size_t *n)
{
    enum { REPORT_TASKS = 64 };
    taskmon_task *t = rs_pool_alloc(pool, REPORT_TASKS * sizeof(*t));
    *n = t ? taskmon_list(t, REPORT_TASKS) : 0;
    Strata__Master__ServerTask *m = *n ? rs_pool_alloc(pool, *n * sizeof(*m)) : NULL;
    Strata__Master__ServerTask **p = *n ? rs_pool_alloc(pool, *n * sizeof(*p)) : NULL;
    if (!m || !p) {
        *n = 0;
        return NULL;
    }
    for (size_t i = 0; i < *n; i++) {
        strata__master__server_task__init(&m[i]);
        m[i].description = t[i].description;
        m[i].status = t[i].status;
        m[i].state = "RUNNING";
        m[i].has_start_time = m[i].has_completion_time = 1;
        m[i].start_time = (uint64_t)t[i].start_ms;
        m[i].completion_time = -1;
        p[i] = &m[i];
    }
    return p;
}

/* The heartbeat: every open region's load and their sums, and the running tasks, packed
 * into out. */
static int build_report(rs_server *s, buf_t *out)
{
    rs_pool pool = {0};
    rs_loads l;
    Strata__Master__ServerName sn;
    Strata__Master__RegionServerReportRequest req = STRATA__MASTER__REGION_SERVER_REPORT_REQUEST__INIT;
    int rc = rs_server_loads(s, &pool, &l);
    self_name_proto(s, &sn);
    req.server = &sn;
    req.has_http_port = 1;
    req.http_port = (uint32_t)s->cl.http_port;
    req.region = l.region;
    req.n_region = l.n;
    req.read_requests = l.read_requests;
    req.write_requests = l.write_requests;
    req.memstore_size = l.memstore_size;
    req.store_files = l.store_files;
    req.store_file_size = l.store_file_size;
    req.total_requests = req.read_requests + req.write_requests;
    req.has_total_requests = req.has_memstore_size = req.has_store_files = 1;
    req.has_store_file_size = req.has_read_requests = req.has_write_requests = 1;
    req.task = report_tasks(&pool, &req.n_task);
    if (rc == ST_OK)
        rc = rpc_proto_pack(&req.base, out);
    rs_loads_release(s, &l);
    rs_pool_free(&pool);
    return rc;
}

/* Sends a heartbeat unless one is in flight; no active master is no error. */
static void report(rs_server *s)
{
    rs_cluster *cl = &s->cl;
    if (atomic_load(&cl->report_inflight))
        return;
    if (!cl->master_addr[0] || atomic_exchange(&cl->master_stale, false)) {
        int rc = find_master(s, cl->master_addr, sizeof(cl->master_addr));
        if (rc != ST_OK && rc != ST_NOT_FOUND)
            LOG_DEBUG("region server %s: looking up the master failed: %s", s->server_name,
                      st_errmsg());
        if (rc != ST_OK)
            return;
    }
    buf_t body = {0};
    if (build_report(s, &body) != ST_OK) {
        LOG_WARN("region server %s: building the heartbeat failed: %s", s->server_name,
                 st_errmsg());
        return;
    }
    int timeout = cl->report_interval_ms > RS_MASTER_CALL_MS ? cl->report_interval_ms
                                                             : RS_MASTER_CALL_MS;
    atomic_store(&cl->report_inflight, true);
    if (rpc_client_call_async(cl->master, cl->master_addr, "MasterService.RegionServerReport",
                              body.data, body.len, timeout, report_done, s) != ST_OK) {
        atomic_store(&cl->report_inflight, false);
        atomic_store(&cl->master_stale, true);
    }
    buf_free(&body);
}

/* How often the thread wakes: every report interval, and often enough that a ping sent
 * at least twice per fence window (and per session timeout / 4) keeps writes going. */
static int tick_ms(rs_server *s)
{
    int session = zk_session_timeout_ms(s->cl.z);
    int t = s->cl.report_interval_ms;
    if (session > 0 && session / 4 < t)
        t = session / 4;
    if (session > 0 && (int)(s->cl.fence_fraction * session / 2) < t)
        t = (int)(s->cl.fence_fraction * session / 2);
    return t > 10 ? t : 10;
}

static void *cluster_main(void *arg)
{
    rs_server *s = arg;
    rs_cluster *cl = &s->cl;
    uint64_t last_report = 0;
    pthread_mutex_lock(&cl->mu);
    while (!cl->thread_stop) {
        pthread_mutex_unlock(&cl->mu);
        ping(s);
        uint64_t now = clock_mono_ns();
        if (!last_report || now - last_report >= (uint64_t)cl->report_interval_ms * 1000000ull) {
            report(s);
            last_report = now;
        }
        struct timespec until = clock_realtime_after_ms(tick_ms(s));
        pthread_mutex_lock(&cl->mu);
        if (!cl->thread_stop)
            pthread_cond_timedwait(&cl->cv, &cl->mu, &until);
    }
    pthread_mutex_unlock(&cl->mu);
    return NULL;
}

static void stop_thread(rs_server *s)
{
    rs_cluster *cl = &s->cl;
    if (!cl->thread_started)
        return;
    pthread_mutex_lock(&cl->mu);
    cl->thread_stop = true;
    pthread_cond_broadcast(&cl->cv);
    pthread_mutex_unlock(&cl->mu);
    pthread_join(cl->thread, NULL);
    cl->thread_started = false;
}

/* ---- registration ---- */

static int create_rs_node(rs_server *s)
{
    rs_cluster *cl = &s->cl;
    server_name sn;
    size_t len = 0;
    self_name(s, &sn);
    uint8_t *info = server_info_encode(&sn, (uint32_t)cl->http_port, (uint64_t)clock_now_ms(),
                                       &len);
    char *path = znodes_path(cl->parent, ZNODE_RS, s->server_name);
    int rc = info && path ? zk_create(cl->z, path, info, len, ZK_EPHEMERAL, NULL, 0)
                          : st_error(ST_NOMEM, "region server: out of memory");
    if (rc == ST_OK) {
        cl->rs_path = path;
        path = NULL;
    } else {
        LOG_ERROR("region server %s: registering %s failed: %s", s->server_name,
                  path ? path : s->server_name, st_errmsg());
    }
    free(path);
    free(info);
    return rc;
}

int rs_cluster_register(rs_server *s)
{
    rs_cluster *cl = &s->cl;
    if (!cl->z)
        return ST_OK;
    int rc = rpc_client_new(NULL, &cl->master);
    if (rc == ST_OK)
        rc = create_rs_node(s);
    if (rc != ST_OK)
        return rc;
    cl->thread_stop = false;
    if (pthread_create(&cl->thread, NULL, cluster_main, s) != 0)
        return st_error(ST_INTERNAL, "region server %s: cannot start the cluster thread",
                        s->server_name);
    cl->thread_started = true;
    atomic_store(&cl->session_ms, zk_session_timeout_ms(cl->z));
    atomic_store(&cl->registered, true);
    LOG_INFO("region server %s registered as %s (http port %d)", s->server_name, cl->rs_path,
             cl->http_port);
    return ST_OK;
}

/* ---- graceful stop ---- */

/* Tells the active master that encoded_name was closed because this server stops; a
 * master that cannot be reached is logged (it learns it when the rs node goes) and not
 * tried again for the other regions (*give_up), so a stop never waits long for it. */
static void report_closed(rs_server *s, const char *encoded_name, bool *give_up)
{
    rs_cluster *cl = &s->cl;
    if (*give_up || !cl->master)
        return;
    Strata__Master__ServerName sn;
    Strata__Master__ReportRegionClosedRequest req = STRATA__MASTER__REPORT_REGION_CLOSED_REQUEST__INIT;
    self_name_proto(s, &sn);
    req.server = &sn;
    req.encoded_name = (char *)encoded_name;
    req.has_server_stopping = req.server_stopping = 1;
    int rc = ST_OK;
    /* The master known from the heartbeats first; after a failure, the one in ZooKeeper. */
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!cl->master_addr[0] || attempt > 0)
            rc = find_master(s, cl->master_addr, sizeof(cl->master_addr));
        if (rc == ST_NOT_FOUND) {
            *give_up = true;
            LOG_INFO("region server %s: no active master to tell that its regions closed",
                     s->server_name);
            return;
        }
        if (rc == ST_OK)
            rc = rpc_proto_call(cl->master, cl->master_addr, "MasterService.ReportRegionClosed",
                                &req.base, RS_MASTER_CALL_MS, NULL, NULL);
        if (rc == ST_OK)
            return;
    }
    *give_up = rc == ST_CONNECTION || rc == ST_TIMEOUT;
    LOG_WARN("region server %s: reporting %s closed to the master failed: %s", s->server_name,
             encoded_name, st_errmsg());
}

typedef char region_name[64];

/* The names of the open regions (malloc'ed). */
static region_name *open_names(rs_server *s, size_t *n)
{
    rs_region **list = NULL;
    *n = 0;
    if (rs_region_list(s, &list, n) != ST_OK)
        return NULL;
    region_name *names = calloc(*n + 1, sizeof(*names));
    for (size_t i = 0; i < *n; i++) {
        if (names)
            memcpy(names[i], list[i]->name, sizeof(names[i]));
        rs_region_release(s, list[i]);
    }
    free(list);
    if (!names)
        *n = 0;
    return names;
}

void rs_cluster_leave(rs_server *s)
{
    rs_cluster *cl = &s->cl;
    if (!cl->z)
        return;
    atomic_store(&cl->stopping, true);
    stop_thread(s);
    size_t n = 0;
    region_name *names = open_names(s, &n);
    bool give_up = false;
    int kept = 0;
    for (size_t i = 0; i < n; i++) {
        /* rs_region_close gives up the ownership node once the region is flushed. */
        if (rs_region_close(s, names[i], true) != ST_OK) {
            kept++;
            continue;
        }
        report_closed(s, names[i], &give_up);
    }
    free(names);
    if (kept)
        LOG_WARN("region server %s: %d regions could not be flushed; they stay owned until "
                 "the session ends, and the master recovers them from the WAL",
                 s->server_name, kept);
}

void rs_cluster_finish(rs_server *s)
{
    rs_cluster *cl = &s->cl;
    atomic_store(&cl->stopping, true);
    atomic_store(&cl->registered, false);
    stop_thread(s);
    if (cl->z && cl->rs_path) {
        int rc = zk_delete(cl->z, cl->rs_path, -1);
        if (rc != ST_OK && rc != ST_NOT_FOUND)
            LOG_WARN("region server %s: deleting %s failed (it goes with the session): %s",
                     s->server_name, cl->rs_path, st_errmsg());
    }
    zk_close(cl->z);
    cl->z = NULL;
    free(cl->rs_path);
    cl->rs_path = NULL;
    rpc_client_free(cl->master); /* a heartbeat still in flight completes ST_CLOSED: ignored */
    cl->master = NULL;
}
