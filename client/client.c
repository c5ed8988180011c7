/*
 * client.c - client options, open/close, table handles, error strings, and the
 * region-call loop every single-row operation runs:
 *
 *   locate (location cache; on a miss the locator, whose answer is cached together with
 *           the regions after it that the locator prefetched)
 *     -> build the request for that region -> call "host:port" with the rpc timeout
 *        capped by the operation time left
 *     -> ok: done
 *     -> failed: retry_classify: INVALIDATE drops the cached entry (and, on a connection
 *        error, every region of that server), KEEP keeps it, FATAL gives up;
 *        retry_next gives the pause (at least the server's retry_after hint) or gives up
 *        when the retries or the operation time are spent.
 *
 * Thread-safety: the client struct is immutable after open; its rpc client, cache and
 * locator are each thread-safe, so any number of threads may run operations at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client_internal.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/status.h"

void strata_free(void *ptr)
{
    free(ptr);
}

/* ---- errors ---- */

void client_set_error_msg(char **errptr, const char *msg)
{
    if (!errptr)
        return;
    free(*errptr);
    *errptr = strdup(msg);
}

void client_set_error(char **errptr, int rc)
{
    char msg[1024];
    const char *detail = st_errmsg();
    snprintf(msg, sizeof(msg), "%s%s%s", st_strerror(rc), detail[0] ? ": " : "", detail);
    client_set_error_msg(errptr, msg);
}

/* ---- options ---- */

strata_options_t *strata_options_create(void)
{
    strata_options_t *o = calloc(1, sizeof(*o));
    if (!o)
        return NULL;
    o->operation_timeout_ms = CLIENT_DEFAULT_OPERATION_TIMEOUT_MS;
    o->rpc_timeout_ms = CLIENT_DEFAULT_RPC_TIMEOUT_MS;
    o->retries = RETRY_DEFAULT_MAX_RETRIES;
    o->pause_ms = RETRY_DEFAULT_PAUSE_MS;
    return o;
}

void strata_options_destroy(strata_options_t *o)
{
    if (!o)
        return;
    free(o->zk_quorum);
    free(o->zk_parent);
    free(o->locator_file);
    for (size_t i = 0; i < o->nregions; i++) {
        free(o->regions[i].table);
        free(o->regions[i].name);
        free(o->regions[i].host_port);
        buf_free(&o->regions[i].start);
        buf_free(&o->regions[i].end);
    }
    free(o->regions);
    free(o);
}

void strata_options_set_locator_file(strata_options_t *o, const char *path)
{
    free(o->locator_file);
    o->locator_file = path ? strdup(path) : NULL;
}

void strata_options_set_zk_quorum(strata_options_t *o, const char *quorum)
{
    free(o->zk_quorum);
    o->zk_quorum = quorum && quorum[0] ? strdup(quorum) : NULL;
}

void strata_options_set_zk_parent(strata_options_t *o, const char *parent)
{
    free(o->zk_parent);
    o->zk_parent = parent && parent[0] ? strdup(parent) : NULL;
}

void strata_options_add_region(strata_options_t *o, const char *table, const char *encoded_name,
                               const char *start, size_t start_len, const char *end, size_t end_len,
                               const char *host_port)
{
    opt_region *nv = realloc(o->regions, (o->nregions + 1) * sizeof(*nv));
    if (!nv)
        return;
    o->regions = nv;
    opt_region *r = &nv[o->nregions++];
    memset(r, 0, sizeof(*r));
    r->table = strdup(table ? table : "");
    r->name = strdup(encoded_name ? encoded_name : "");
    r->host_port = strdup(host_port ? host_port : "");
    buf_set(&r->start, start, start_len);
    buf_set(&r->end, end, end_len);
}

void strata_options_set_operation_timeout_ms(strata_options_t *o, int ms)
{
    o->operation_timeout_ms = ms;
}

void strata_options_set_rpc_timeout_ms(strata_options_t *o, int ms)
{
    o->rpc_timeout_ms = ms;
}

void strata_options_set_retries(strata_options_t *o, int retries)
{
    o->retries = retries;
}

void strata_options_set_pause_ms(strata_options_t *o, int ms)
{
    o->pause_ms = ms;
}

/* ---- client and tables ---- */

/* The locator the options name: the master (a ZooKeeper quorum), else the file, else a
 * fixed list of their regions. */
static int open_locator(const strata_options_t *o, locator **out)
{
    *out = NULL;
    if (o->zk_quorum)
        return locator_master_open(o->zk_quorum, o->zk_parent, 0, out);
    if (o->locator_file)
        return locator_file_open(o->locator_file, out);
    if (o->nregions == 0)
        return st_error(ST_INVALID_ARGUMENT,
                        "client: no locator (set a locator file or add regions)");
    locator *l = locator_fixed_new();
    int rc = l ? ST_OK : st_error(ST_NOMEM, "client: out of memory");
    for (size_t i = 0; rc == ST_OK && i < o->nregions; i++) {
        const opt_region *r = &o->regions[i];
        if (!r->table || !r->name || !r->host_port)
            rc = st_error(ST_NOMEM, "client: out of memory");
        else
            rc = locator_fixed_add(l, r->table, r->name, r->start.data, r->start.len, r->end.data,
                                   r->end.len, r->host_port);
    }
    if (rc != ST_OK) {
        locator_free(l);
        return rc;
    }
    *out = l;
    return ST_OK;
}

strata_client_t *strata_client_open(const strata_options_t *opts, char **errptr)
{
    strata_client_t *c = calloc(1, sizeof(*c));
    int rc = c ? ST_OK : st_error(ST_NOMEM, "client: out of memory");
    if (rc == ST_OK)
        rc = open_locator(opts, &c->loc);
    if (rc == ST_OK && !(c->cache = loccache_new()))
        rc = st_error(ST_NOMEM, "client: out of memory");
    if (rc == ST_OK) {
        retry_config_default(&c->retry);
        c->retry.operation_timeout_ms = opts->operation_timeout_ms;
        c->retry.max_retries = opts->retries;
        c->retry.pause_ms = opts->pause_ms;
        c->rpc_timeout_ms =
            opts->rpc_timeout_ms > 0 ? opts->rpc_timeout_ms : CLIENT_DEFAULT_RPC_TIMEOUT_MS;
        retry_state probe;
        rc = retry_begin(&probe, &c->retry);
    }
    if (rc == ST_OK)
        rc = rpc_client_new(NULL, &c->rpc);
    if (rc != ST_OK) {
        client_set_error(errptr, rc);
        strata_client_close(c);
        return NULL;
    }
    return c;
}

void strata_client_close(strata_client_t *c)
{
    if (!c)
        return;
    rpc_client_free(c->rpc);
    loccache_free(c->cache);
    locator_free(c->loc);
    free(c);
}

strata_table_t *strata_table_open(strata_client_t *c, const char *name)
{
    strata_table_t *t = calloc(1, sizeof(*t));
    if (!t || !(t->name = strdup(name))) {
        free(t);
        return NULL;
    }
    t->c = c;
    return t;
}

void strata_table_close(strata_table_t *t)
{
    if (!t)
        return;
    free(t->name);
    free(t);
}

/* ---- locating ---- */

/* Caches every region the locator gave (the first holds the row looked up). */
static int cache_regions(strata_client_t *c, const locator_region *v, size_t n)
{
    int rc = ST_OK;
    for (size_t i = 0; i < n && rc == ST_OK; i++) {
        const locator_region *r = &v[i];
        loccache_entry e = {.table = r->table,
                            .region = r->encoded_name,
                            .start_key = r->start_key,
                            .start_len = r->start_len,
                            .end_key = r->end_key,
                            .end_len = r->end_len,
                            .host = r->host,
                            .port = r->port,
                            .start_code = (int64_t)r->start_code};
        int irc = loccache_insert(c->cache, &e);
        if (i == 0) /* a bad prefetched region is skipped, the looked-up one is not */
            rc = irc;
    }
    return rc;
}

int client_locate(strata_client_t *c, const char *table, const uint8_t *row, size_t row_len,
                  const loccache_entry **out)
{
    locator_region *v = NULL;
    size_t n = 0;
    if (loccache_lookup(c->cache, table, row, row_len, out) == ST_OK)
        return ST_OK;
    atomic_fetch_add(&c->locator_lookups, 1);
    int rc = locator_locate_prefetch(c->loc, table, row, row_len, &v, &n);
    if (rc != ST_OK)
        return rc;
    rc = cache_regions(c, v, n);
    locator_regions_free(v, n);
    if (rc == ST_OK && loccache_lookup(c->cache, table, row, row_len, out) != ST_OK)
        rc = st_error(ST_NOT_SERVING, "client: region of %s moved while being cached", table);
    return rc;
}

void client_note_failure(strata_client_t *c, const loccache_entry *e, int status)
{
    if (!e || retry_classify(status) != RETRY_INVALIDATE)
        return;
    loccache_invalidate_entry(c->cache, e);
    if (status == ST_CONNECTION)
        loccache_invalidate_server(c->cache, e->host, e->port);
}

int client_next_pause(retry_state *r, int status, uint32_t retry_after_ms, int64_t *pause_ms)
{
    char why[512];
    snprintf(why, sizeof(why), "%s", st_errmsg());
    int rc = retry_next(r, status, pause_ms);
    if (rc != ST_OK) {
        if (rc == status) /* given up on this very failure: keep its message */
            st_error(rc, "%s", why);
        return rc;
    }
    int64_t left = retry_remaining_ms(r);
    if (retry_after_ms > *pause_ms)
        *pause_ms = retry_after_ms;
    if (left >= 0 && *pause_ms > left)
        *pause_ms = left;
    return ST_OK;
}

int client_call_timeout(const strata_client_t *c, const retry_state *r)
{
    int64_t left = retry_remaining_ms(r);
    if (left < 0 || left > c->rpc_timeout_ms)
        return c->rpc_timeout_ms;
    return left > 0 ? (int)left : 1;
}

static void entry_addr(const loccache_entry *e, char *addr, size_t cap)
{
    snprintf(addr, cap, "%s:%u", e->host, (unsigned)e->port);
}

/* One attempt: locate, build, call. *e is the pinned entry used (or NULL). */
static int attempt(strata_client_t *c, const char *table, const uint8_t *row, size_t row_len,
                   const char *method, client_build_fn build, void *arg, int timeout_ms,
                   const loccache_entry **e, rpc_result *res)
{
    char addr[300];
    buf_t req = {0};
    int rc = client_locate(c, table, row, row_len, e);
    if (rc == ST_OK)
        rc = build(arg, (*e)->region, &req);
    if (rc == ST_OK) {
        entry_addr(*e, addr, sizeof(addr));
        rc = rpc_client_call_result(c->rpc, addr, method, req.data, req.len, timeout_ms, res);
    }
    buf_free(&req);
    return rc;
}

int client_region_call(strata_client_t *c, const char *table, const uint8_t *row, size_t row_len,
                       const char *method, client_build_fn build, void *arg, buf_t *resp)
{
    retry_state r;
    moved_follow mf;
    moved_follow_init(&mf);
    int rc = retry_begin(&r, &c->retry);
    while (rc == ST_OK) {
        const loccache_entry *e = NULL;
        rpc_result res = {0};
        rc = attempt(c, table, row, row_len, method, build, arg, client_call_timeout(c, &r), &e,
                     &res);
        if (rc == ST_OK) {
            buf_free(resp);
            *resp = res.body;
            loccache_entry_release(e);
            break;
        }
        buf_free(&res.body);
        LOG_DEBUG("%s on %s: %s (attempt %d)", method, table, st_errmsg(), retry_attempts(&r));
        if (client_moved_retry(c, table, &mf, e, rc, &res, &r)) { /* moved_hint.c */
            loccache_entry_release(e);
            rc = ST_OK;
            continue;
        }
        client_note_failure(c, e, rc);
        loccache_entry_release(e);
        int64_t pause = 0;
        rc = client_next_pause(&r, rc, res.retry_after_ms, &pause);
        if (rc == ST_OK)
            clock_sleep_ms(pause);
    }
    return rc;
}
