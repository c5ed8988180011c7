/*
 * rs_server.c - the region server's lifecycle (rs_server.h): its configuration keys,
 * start (bind, recover this host:port's old WAL directories, open the engine, serve,
 * write the ready file) and graceful stop. The HTTP status pages (rs_http.c) start right
 * after the RPC port is bound and stop last. In cluster mode (zk.quorum set) start joins
 * ZooKeeper instead of recovering old WALs and registers once serving, and stop hands
 * the regions back first and leaves ZooKeeper last (rs_cluster.c).
 *
 * Thread-safety: the lifecycle runs on the owner's thread; handlers run on the RPC
 * handler threads and see `serving` only after the engine is open.
 */
#include "regionserver/rs_server.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/fileio.h"
#include "common/log.h"
#include "common/net.h"
#include "common/status.h"
#include "common/zk/znodes.h"
#include "regionserver/storage/layout.h"
#include "regionserver/rs_internal.h"
#include "regionserver/storage/wal.h"

static const config_key rs_keys[] = {
    {"root.dir", CONFIG_STRING, "", "root directory holding WALs and region data (required)"},
    {"log.level", CONFIG_STRING, "info", "log level: error, warn, info or debug"},
    {"regionserver.host", CONFIG_STRING, "127.0.0.1", "address the RPC server binds"},
    {"regionserver.advertised.host", CONFIG_STRING, "",
     "host name other processes use to reach this server (empty: the bind host)"},
    {"regionserver.port", CONFIG_INT, "17020", "RPC port; 0 = any free port"},
    {"regionserver.ready.file", CONFIG_STRING, "",
     "once serving, 'host:port' is written here atomically (empty: none)"},
    {"regionserver.scanner.lease.ms", CONFIG_INT, "60000",
     "an idle server-side scanner is closed after this many ms"},
    {"regionserver.scanner.max.result.size", CONFIG_SIZE, "2m",
     "a scan response stops adding rows past this many bytes"},
    {"regionserver.handler.threads", CONFIG_INT, "16", "RPC handler threads"},
    {"regionserver.rpc.io.threads", CONFIG_INT, "2",
     "RPC I/O threads, each with its own event loop; connections are dealt out to them"},
    {"regionserver.queue.size", CONFIG_INT, "1024",
     "calls waiting for a handler; beyond it calls get ServerBusy"},
    {"regionserver.rpc.max.frame", CONFIG_SIZE, "64m", "largest RPC frame accepted"},
    {"regionserver.block.cache.size", CONFIG_SIZE, "64m", "block cache capacity"},
    {"regionserver.blockcache.memory.percentage", CONFIG_DOUBLE, "0.25",
     "the share of the block cache IN_MEMORY families' blocks keep from the others (0..1]"},
    {"regionserver.storefile.mmap", CONFIG_BOOL, "true",
     "serve uncompressed store-file blocks through a read-only mapping (the page cache) "
     "instead of pread and the block cache"},
    {"regionserver.storefile.format.version", CONFIG_INT, "3",
     "highest store file format version flushes and compactions write (each file gets the "
     "lowest that expresses its family's COMPRESSION and DATA_BLOCK_ENCODING): 3 (SNAPPY, "
     "LZ4, GZ), 2, or 1 for servers that read only version 1; all are read"},
    {"regionserver.wal.roll.size", CONFIG_SIZE, "64m", "the WAL rolls to a new file past this"},
    {"regionserver.wal.async.interval.ms", CONFIG_INT, "1000",
     "how often ASYNC_WAL edits are written and synced"},
    {"regionserver.memstore.flush.size", CONFIG_SIZE, "128m",
     "MEMSTORE_FLUSHSIZE of tables whose schema does not set one"},
    {"regionserver.split.policy", CONFIG_STRING, "SteppingSplitPolicy",
     "split policy of tables without SPLIT_POLICY (HBase's class name, with or without "
     "the org.apache.hadoop.hbase.regionserver. prefix)"},
    {"regionserver.max.filesize", CONFIG_SIZE, "10g",
     "MAX_FILESIZE of tables whose schema does not set one"},
    {"regionserver.max.filesize.jitter", CONFIG_DOUBLE, "0.25",
     "a region's max file size is moved by up to +-jitter/2 of it (0..1)"},
    {"regionserver.increasing.policy.initial.size", CONFIG_SIZE, "0",
     "the first split size of the increasing and stepping policies; 0 = 2 x the flush size"},
    {"regionserver.global.memstore.limit", CONFIG_SIZE, "1g",
     "writes block while all memstores together hold more than this"},
    {"regionserver.flush.threads", CONFIG_INT, "1", "background flush threads"},
    {"regionserver.compaction.threads", CONFIG_INT, "1", "background compaction threads"},
    {"regionserver.blocking.store.files", CONFIG_INT, "16",
     "writes to a region wait while one of its stores has this many files"},
    {"regionserver.blocking.wait.ms", CONFIG_INT, "90000",
     "longest such wait before the write fails with RegionTooBusy"},
    {"regionserver.compaction.min.files", CONFIG_INT, "3", "fewest files a minor compaction takes"},
    {"regionserver.compaction.max.files", CONFIG_INT, "10", "most files a minor compaction takes"},
    {"regionserver.compaction.ratio", CONFIG_DOUBLE, "1.2",
     "a file is compacted if its size <= ratio x the sum of the smaller ones"},
    {"regionserver.compaction.min.size", CONFIG_SIZE, "128m",
     "files smaller than this are always eligible for minor compaction"},
    {"zk.quorum", CONFIG_STRING, "",
     "ZooKeeper ensemble host:port[,host:port...]; empty: standalone, no cluster"},
    {"zk.parent", CONFIG_STRING, ZNODES_DEFAULT_PARENT, "parent znode of every node of this cluster"},
    {"zk.session.timeout.ms", CONFIG_INT, "30000",
     "ZooKeeper session timeout asked for; the ensemble may adjust it"},
    {"regionserver.http.port", CONFIG_INT, "17030",
     "HTTP port of the status pages and /metrics (docs/http.md); 0 = any free port, -1 = "
     "no HTTP; the bound port is registered in ZooKeeper"},
    {"regionserver.report.interval.ms", CONFIG_INT, "3000",
     "how often the server heartbeats its load to the active master"},
    {"regionserver.fence.fraction", CONFIG_DOUBLE, "0.5",
     "writes are refused once ZooKeeper was not heard from for this fraction of the "
     "session timeout"},
    {"regionserver.inject.open.pause.ms", CONFIG_INT, "0",
     "tests only: an open that finds <root>/inject-open-pause (and takes it away) sleeps "
     "this long after claiming the region's ownership znode, before opening it"},
};

int rs_config_define(config *c)
{
    return config_define_all(c, rs_keys, sizeof(rs_keys) / sizeof(rs_keys[0]));
}

static int copy_str(char *dst, size_t cap, const char *src, const char *key)
{
    if (strlen(src) >= cap)
        return st_error(ST_INVALID_ARGUMENT, "%s is too long (%zu bytes)", key, strlen(src));
    memcpy(dst, src, strlen(src) + 1);
    return ST_OK;
}

static int int_in(const config *c, const char *key, int64_t lo, int64_t hi, int *out)
{
    int64_t v = config_get_int64(c, key);
    if (v < lo || v > hi)
        return st_error(ST_INVALID_ARGUMENT, "%s = %" PRId64 " is out of range %" PRId64
                        "..%" PRId64, key, v, lo, hi);
    *out = (int)v;
    return ST_OK;
}

static int read_engine_options(const config *c, rs_server *s)
{
    engine_options *o = &s->eopts;
    engine_options_init(o);
    o->root_dir = s->root;
    o->server_name = s->server_name;
    o->block_cache_bytes = config_get_size(c, "regionserver.block.cache.size");
    o->block_cache_memory_share = config_get_double(c, "regionserver.blockcache.memory.percentage");
    o->mmap_reads = config_get_bool(c, "regionserver.storefile.mmap");
    o->wal_roll_size = config_get_size(c, "regionserver.wal.roll.size");
    o->global_memstore_limit = config_get_size(c, "regionserver.global.memstore.limit");
    o->blocking_wait_ms = config_get_int64(c, "regionserver.blocking.wait.ms");
    o->compaction_ratio = config_get_double(c, "regionserver.compaction.ratio");
    o->compaction_min_size = config_get_size(c, "regionserver.compaction.min.size");
    int rc = int_in(c, "regionserver.wal.async.interval.ms", 1, 3600000, &o->async_wal_interval_ms);
    if (rc == ST_OK)
        rc = int_in(c, "regionserver.flush.threads", 1, 64, &o->flush_threads);
    if (rc == ST_OK)
        rc = int_in(c, "regionserver.compaction.threads", 1, 64, &o->compaction_threads);
    int version = 3;
    if (rc == ST_OK && (rc = int_in(c, "regionserver.storefile.format.version", 1, 3, &version)) == ST_OK)
        o->storefile_version = (uint32_t)version;
    if (rc == ST_OK)
        rc = int_in(c, "regionserver.blocking.store.files", 1, 100000, &o->blocking_store_files);
    if (rc == ST_OK)
        rc = int_in(c, "regionserver.compaction.min.files", 2, 1000, &o->compaction_min_files);
    if (rc == ST_OK)
        rc = int_in(c, "regionserver.compaction.max.files", o->compaction_min_files, 1000,
                    &o->compaction_max_files);
    return rc;
}

static int unknown_split_policy(const char *policy)
{
    char list[400] = "";
    for (int k = SPLIT_POLICY_STEPPING; k <= SPLIT_POLICY_DISABLED; k++)
        snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", k ? ", " : "",
                 split_policy_name((split_policy_kind)k));
    return st_error(ST_INVALID_ARGUMENT,
                    "regionserver.split.policy = '%s' is unknown; use one of %s", policy, list);
}

/* The cluster-wide split settings (regionserver/storage/split_policy.h). */
static int read_split_defaults(const config *c, rs_server *s)
{
    split_defaults *d = &s->split;
    split_defaults_init(d);
    d->flushsize = s->default_flushsize;
    d->max_filesize = config_get_size(c, "regionserver.max.filesize");
    d->initial_size = config_get_size(c, "regionserver.increasing.policy.initial.size");
    d->jitter = config_get_double(c, "regionserver.max.filesize.jitter");
    const char *policy = config_get_string(c, "regionserver.split.policy");
    if (split_policy_parse_name(policy, &d->policy) != ST_OK)
        return unknown_split_policy(policy);
    if (d->max_filesize == 0)
        return st_error(ST_INVALID_ARGUMENT, "regionserver.max.filesize must be > 0");
    if (!(d->jitter >= 0 && d->jitter <= SPLIT_POLICY_MAX_JITTER))
        return st_error(ST_INVALID_ARGUMENT,
                        "regionserver.max.filesize.jitter = %g is out of range 0..%g", d->jitter,
                        SPLIT_POLICY_MAX_JITTER);
    return ST_OK;
}

static int read_rpc_options(const config *c, rs_server *s)
{
    rpc_server_opts_default(&s->ropts);
    uint64_t frame = config_get_size(c, "regionserver.rpc.max.frame");
    if (frame < 1024 || frame > UINT32_MAX)
        return st_error(ST_INVALID_ARGUMENT, "regionserver.rpc.max.frame = %" PRIu64
                        " is out of range 1k..4g", frame);
    s->ropts.max_frame = (uint32_t)frame;
    int rc = int_in(c, "regionserver.handler.threads", 1, 1024, &s->ropts.handler_threads);
    if (rc == ST_OK)
        rc = int_in(c, "regionserver.rpc.io.threads", 1, RPC_SERVER_IO_THREADS_MAX,
                    &s->ropts.io_threads);
    if (rc == ST_OK)
        rc = int_in(c, "regionserver.queue.size", 1, 1 << 20, &s->ropts.queue_capacity);
    return rc;
}

static int read_settings(const config *c, rs_server *s)
{
    const char *root = config_get_string(c, "root.dir");
    if (!*root)
        return st_error(ST_INVALID_ARGUMENT, "root.dir is required (--root.dir=DIR)");
    const char *adv = config_get_string(c, "regionserver.advertised.host");
    const char *host = config_get_string(c, "regionserver.host");
    s->inject_open_pause_ms = config_get_int64(c, "regionserver.inject.open.pause.ms");
    int rc = copy_str(s->root, sizeof(s->root), root, "root.dir");
    if (rc == ST_OK)
        rc = copy_str(s->host, sizeof(s->host), host, "regionserver.host");
    if (rc == ST_OK)
        rc = *adv ? copy_str(s->advertised_host, sizeof(s->advertised_host), adv,
                             "regionserver.advertised.host")
                  : net_default_advertised_host(host, s->advertised_host,
                                                sizeof(s->advertised_host));
    if (rc == ST_OK)
        rc = copy_str(s->ready_file, sizeof(s->ready_file),
                      config_get_string(c, "regionserver.ready.file"), "regionserver.ready.file");
    if (rc == ST_OK && strchr(s->advertised_host, ','))
        rc = st_error(ST_INVALID_ARGUMENT, "regionserver.advertised.host '%s' contains a ','",
                      s->advertised_host);
    if (rc == ST_OK)
        rc = int_in(c, "regionserver.port", 0, 65535, &s->port_cfg);
    s->lease_ms = config_get_int64(c, "regionserver.scanner.lease.ms");
    if (rc == ST_OK && (s->lease_ms < 10 || s->lease_ms > 86400000))
        rc = st_error(ST_INVALID_ARGUMENT, "regionserver.scanner.lease.ms = %" PRId64
                      " is out of range 10..86400000", s->lease_ms);
    s->max_result_size = config_get_size(c, "regionserver.scanner.max.result.size");
    s->default_flushsize = config_get_size(c, "regionserver.memstore.flush.size");
    if (rc == ST_OK)
        rc = read_split_defaults(c, s);
    if (rc == ST_OK)
        rc = read_engine_options(c, s);
    if (rc == ST_OK)
        rc = read_rpc_options(c, s);
    if (rc == ST_OK)
        rc = rs_cluster_init(c, s);
    return rc;
}

int rs_server_new(const config *cfg, rs_server **out)
{
    *out = NULL;
    rs_server *s = calloc(1, sizeof(*s));
    if (!s)
        return st_error(ST_NOMEM, "region server: out of memory");
    int rc = read_settings(cfg, s);
    if (rc == ST_OK && !(s->moved = rs_moved_new(RS_MOVED_MAX, RS_MOVED_TTL_MS)))
        rc = st_error(ST_NOMEM, "region server: out of memory");
    if (rc != ST_OK) {
        rs_cluster_destroy(s);
        rs_moved_free(s->moved);
        free(s);
        return rc;
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    pthread_mutex_init(&s->scan_mu, NULL);
    pthread_cond_init(&s->scan_cv, NULL);
    pthread_cond_init(&s->reaper_cv, NULL);
    pthread_mutex_init(&s->split_mu, NULL);
    pthread_cond_init(&s->split_cv, NULL);
    s->next_scanner_id = 1;
    *out = s;
    return ST_OK;
}

/* "<host>,<port>,<code>" with this host and port and another start code? */
static bool is_older_self(const rs_server *s, const char *name, int port)
{
    char prefix[320];
    snprintf(prefix, sizeof(prefix), "%s,%d,", s->advertised_host, port);
    size_t n = strlen(prefix);
    return strncmp(name, prefix, n) == 0 && strcmp(name, s->server_name) != 0 && name[n];
}

/* Splits the WAL directories an earlier life of this host:port left behind. */
static int split_own_old_wals(rs_server *s, int port)
{
    char *wals = NULL, *dir = NULL;
    char **names = NULL;
    size_t n = 0;
    int rc = ST_OK;
    if (!(wals = layout_wals_dir(s->root)))
        return st_error(ST_NOMEM, "region server: out of memory");
    if (!fio_exists(wals))
        goto done;
    if ((rc = fio_list_dir(wals, &names, &n)) != ST_OK)
        goto done;
    for (size_t i = 0; i < n && rc == ST_OK; i++) {
        if (!is_older_self(s, names[i], port))
            continue;
        free(dir);
        if (!(dir = layout_wal_dir(s->root, names[i]))) {
            rc = st_error(ST_NOMEM, "region server: out of memory");
            break;
        }
        LOG_INFO("region server %s: splitting the WALs of an earlier life in %s", s->server_name,
                 dir);
        if ((rc = wal_split(dir, s->root)) == ST_OK)
            rc = fio_remove_tree(dir);
        if (rc != ST_OK)
            LOG_ERROR("region server %s: recovering %s failed: %s", s->server_name, dir,
                      st_errmsg());
    }
done:
    fio_free_list(names, n);
    free(dir);
    free(wals);
    return rc;
}

static int write_ready_file(rs_server *s, int port)
{
    if (!*s->ready_file)
        return ST_OK;
    char text[300];
    int len = snprintf(text, sizeof(text), "%s:%d\n", s->advertised_host, port);
    int rc = fio_write_atomic(s->ready_file, text, (size_t)len);
    if (rc != ST_OK)
        LOG_ERROR("region server: writing the ready file %s failed: %s", s->ready_file,
                  st_errmsg());
    return rc;
}

static int start_rpc(rs_server *s)
{
    int rc = rpc_server_new(&s->ropts, &s->rpc);
    if (rc == ST_OK)
        rc = rs_client_service_register(s);
    if (rc == ST_OK)
        rc = rs_admin_service_register(s);
    if (rc == ST_OK)
        rc = rpc_server_start(s->rpc, s->host, s->port_cfg);
    return rc;
}

int rs_server_start(rs_server *s)
{
    s->start_code = (uint64_t)clock_now_ms();
    int rc = start_rpc(s);
    if (rc != ST_OK)
        return rc;
    int port = rpc_server_port(s->rpc);
    snprintf(s->server_name, sizeof(s->server_name), "%s,%d,%" PRIu64, s->advertised_host, port,
             s->start_code);
    if ((rc = rs_http_start(s)) != ST_OK) /* before registering: ZooKeeper gets its port */
        return rc;
    /* In a cluster the master recovers dead servers' WALs, this host:port's included. */
    rc = rs_cluster_enabled(s) ? rs_cluster_join(s) : split_own_old_wals(s, port);
    if (rc != ST_OK)
        return rc;
    if (rs_cluster_enabled(s)) {
        /* The split trigger: the engine calls it after every flush and compaction. */
        s->eopts.after_maint = rs_split_after_maint;
        s->eopts.after_maint_arg = s;
        if ((rc = rs_split_start(s)) != ST_OK)
            return rc;
    }
    if ((rc = engine_open(&s->eopts, &s->eng)) != ST_OK)
        return rc;
    if ((rc = rs_scanners_start(s)) != ST_OK)
        return rc;
    atomic_store(&s->serving, true);
    LOG_INFO("region server %s serving on %s:%d (root %s)", s->server_name, s->host, port,
             s->root);
    if ((rc = rs_cluster_register(s)) != ST_OK)
        return rc;
    return write_ready_file(s, port);
}

int rs_server_port(const rs_server *s)
{
    return s->rpc ? rpc_server_port(s->rpc) : 0;
}

const char *rs_server_name(const rs_server *s)
{
    return s->server_name;
}

/* After a clean engine close: the edits of regions closed without a flush become
 * recovered edits, so no WAL directory is left for a later life to look for. */
static int retire_own_wal(rs_server *s)
{
    char *dir = layout_wal_dir(s->root, s->server_name);
    if (!dir)
        return st_error(ST_NOMEM, "region server: out of memory");
    int rc = wal_split(dir, s->root);
    if (rc == ST_OK)
        rc = fio_remove_tree(dir);
    if (rc != ST_OK)
        LOG_ERROR("region server %s: retiring WAL dir %s failed: %s", s->server_name, dir,
                  st_errmsg());
    free(dir);
    return rc;
}

/* In a cluster: with every region flushed nothing in the WAL is needed (and splitting it
 * would write into region directories other servers may serve by now); otherwise the
 * master fences and splits it like a dead server's once the rs node is gone. */
static int retire_cluster_wal(rs_server *s, int unflushed)
{
    char *dir = layout_wal_dir(s->root, s->server_name);
    if (!dir)
        return st_error(ST_NOMEM, "region server: out of memory");
    int rc = ST_OK;
    if (unflushed)
        LOG_WARN("region server %s: %d regions closed without a flush; WAL dir %s is left "
                 "for the master to recover", s->server_name, unflushed, dir);
    else if ((rc = fio_remove_tree(dir)) != ST_OK)
        LOG_ERROR("region server %s: removing WAL dir %s failed: %s", s->server_name, dir,
                  st_errmsg());
    free(dir);
    return rc;
}

int rs_server_stop(rs_server *s)
{
    if (!s || !s->rpc)
        return ST_OK;
    LOG_INFO("region server %s stopping", s->server_name);
    rs_split_stop(s);
    rs_cluster_leave(s); /* regions handed back to the master while RPC still answers */
    rpc_server_stop(s->rpc);
    atomic_store(&s->serving, false);
    rs_scanners_stop(s);
    int rc = ST_OK;
    if (s->eng) {
        int unflushed = rs_region_close_all(s);
        rs_http_engine_closing(s);
        engine_close(s->eng);
        s->eng = NULL;
        rc = rs_cluster_enabled(s) ? retire_cluster_wal(s, unflushed) : retire_own_wal(s);
        if (unflushed && !rs_cluster_enabled(s))
            LOG_WARN("region server %s: %d regions closed without a flush (edits kept as "
                     "recovered edits)", s->server_name, unflushed);
    }
    rs_cluster_finish(s); /* the rs node goes last: the master then finds the WAL retired */
    rs_http_stop(s);
    rpc_server_free(s->rpc);
    s->rpc = NULL;
    LOG_INFO("region server %s stopped", s->server_name);
    return rc;
}

void rs_server_free(rs_server *s)
{
    if (!s)
        return;
    rs_server_stop(s);
    rs_http_stop(s);
    free(s->regions);
    free(s->scanners);
    rs_moved_free(s->moved);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->scan_mu);
    pthread_cond_destroy(&s->scan_cv);
    pthread_cond_destroy(&s->reaper_cv);
    rs_cluster_destroy(s);
    free(s);
}
