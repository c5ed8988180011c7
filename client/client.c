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
    if (o->zk_quorum) {
        int rc = locator_master_open(o->zk_quorum, o->zk_parent, 0, out);
        if (rc == ST_OK) /* a lookup may not outlast the operation it serves */
            locator_master_set_timeout_ms(*out, o->operation_timeout_ms);
        return rc;
    }
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

/* The tracker declared a region server incarnation dead: its calls in flight fail now
 * (retryable) and no cached location points at it any more. Runs on the watch thread. */
static void on_server_dead(void *arg, const char *host, uint16_t port, uint64_t start_code,
                           bool newer_live)
{
    strata_client_t *c = arg;
    char addr[300], why[400];
    size_t n = loccache_invalidate_server(c->cache, host, port);
    snprintf(addr, sizeof(addr), "%s:%u", host, (unsigned)port);
    snprintf(why, sizeof(why), "region server %s,%u,%llu is dead", host, (unsigned)port,
             (unsigned long long)start_code);
    if (!newer_live)
        rpc_client_fail_addr(c->rpc, addr, why);
    LOG_DEBUG("client: %s: %zu cached regions dropped%s", why, n,
              newer_live ? "" : ", calls in flight failed");
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
    if (rc == ST_OK) {
        /* never longer than a call's timeout: a server paused for less than its session
         * is tried again about as soon as a call to it could have been answered */
        c->suspect_ms = c->rpc_timeout_ms < CLIENT_DEFAULT_SUSPECT_MS ? c->rpc_timeout_ms
                                                                       : CLIENT_DEFAULT_SUSPECT_MS;
        pthread_mutex_init(&c->tables_mu, NULL);
        c->tables_mu_init = true;
        rc = srvtrack_open(opts->zk_quorum, opts->zk_parent, on_server_dead, c, &c->track);
    }
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
    srvtrack_close(c->track); /* first: its callback uses the rpc client and the cache */
    for (size_t i = 0; i < c->ntables_loaded; i++)
        free(c->tables_loaded[i]);
    free(c->tables_loaded);
    if (c->tables_mu_init)
        pthread_mutex_destroy(&c->tables_mu);
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

loccache_entry client_entry_of(const locator_region *r)
{
    return (loccache_entry){.table = r->table,
                            .region = r->encoded_name,
                            .start_key = r->start_key,
                            .start_len = r->start_len,
                            .end_key = r->end_key,
                            .end_len = r->end_len,
                            .host = r->host,
                            .port = r->port,
                            .start_code = (int64_t)r->start_code};
}

int client_cache_region(strata_client_t *c, const locator_region *r)
{
    loccache_entry e = client_entry_of(r);
    return loccache_insert(c->cache, &e);
}

/* Caches every region the locator gave (the first holds the row looked up), except those
 * on a server known dead. */
static int cache_regions(strata_client_t *c, const locator_region *v, size_t n)
{
    int rc = ST_OK;
    for (size_t i = 0; i < n && rc == ST_OK; i++) {
        const locator_region *r = &v[i];
        if (i > 0 && srvtrack_check(c->track, r->host, r->port, r->start_code) == SRVTRACK_DEAD)
            continue;
        int irc = client_cache_region(c, r);
        if (i == 0) /* a bad prefetched region is skipped, the looked-up one is not */
            rc = irc;
    }
    return rc;
}

/* The first lookup of a table caches every region of it, so that later lookups (and a
 * master outage) need the master only for regions that moved. Best effort. */
static void load_table(strata_client_t *c, const char *table)
{
    pthread_mutex_lock(&c->tables_mu);
    bool seen = false;
    for (size_t i = 0; i < c->ntables_loaded && !seen; i++)
        seen = strcmp(c->tables_loaded[i], table) == 0;
    if (!seen) {
        char **nv = realloc(c->tables_loaded, (c->ntables_loaded + 1) * sizeof(*nv));
        char *name = strdup(table);
        if (nv && name) {
            c->tables_loaded = nv;
            nv[c->ntables_loaded++] = name;
        } else {
            if (nv)
                c->tables_loaded = nv;
            free(name);
            seen = true; /* out of memory: just look up one region */
        }
    }
    pthread_mutex_unlock(&c->tables_mu);
    if (seen)
        return;
    locator_region *v = NULL;
    size_t n = 0;
    if (locator_locate_all(c->loc, table, &v, &n) != ST_OK) {
        LOG_DEBUG("client: regions of %s not cached at once: %s", table, st_errmsg());
        return;
    }
    for (size_t i = 0; i < n; i++) /* one at a time: each is checked like a prefetch */
        cache_regions(c, &v[i], 1);
    locator_regions_free(v, n);
}

static void server_of(const char *host, uint16_t port, uint64_t start_code, char *out, size_t cap)
{
    snprintf(out, cap, "%s,%u,%llu", host, (unsigned)port, (unsigned long long)start_code);
}

static bool avoided(const loccache_entry *e, const client_avoid *a)
{
    return a && a->set && a->host[0] && e->port == a->port &&
           (uint64_t)e->start_code == a->start_code && strcmp(e->host, a->host) == 0 &&
           strcmp(e->region, a->region) == 0;
}

static int wait_budget(int64_t left_ms)
{
    if (left_ms < 0 || left_ms > LOCATOR_MASTER_WAIT_MAX_MS)
        return LOCATOR_MASTER_WAIT_MAX_MS;
    return left_ms > 0 ? (int)left_ms : 1;
}

/* How long a lookup after a failure at avoid may wait on the master: while the region is
 * in transition or its server is dead, as long as a wait may; while the server is only
 * suspect (a timeout, a refused connection), until the suspicion ends, when a call to it
 * is tried again (a server paused for less than its session serves again). */
static int avoid_wait(strata_client_t *c, const client_avoid *a, int64_t left_ms)
{
    if (!a->host[0])
        return wait_budget(left_ms);
    switch (srvtrack_check(c->track, a->host, a->port, a->start_code)) {
    case SRVTRACK_DEAD:
        return wait_budget(left_ms);
    case SRVTRACK_SUSPECT: {
        int64_t s = srvtrack_suspect_left_ms(c->track, a->host, a->port, a->start_code);
        return wait_budget(left_ms >= 0 && left_ms < s ? left_ms : s);
    }
    default:
        return 1;
    }
}

/* Asks the locator for the row's region (waiting while it is where avoid says, if set) and
 * checks where it is: a region on a dead server is asked for again, waiting on the master
 * until it reopens elsewhere; on a suspect one, waiting out the suspicion. */
static int ask_locator(strata_client_t *c, const char *table, const uint8_t *row, size_t row_len,
                       const client_avoid *avoid, int64_t left_ms, bool *waited)
{
    locator_region *v = NULL;
    size_t n = 0;
    bool can_wait = locator_can_wait(c->loc);
    atomic_fetch_add(&c->locator_lookups, 1);
    int rc;
    if (avoid && avoid->set && can_wait) {
        char sn[320] = "";
        if (avoid->host[0])
            server_of(avoid->host, avoid->port, avoid->start_code, sn, sizeof(sn));
        *waited = true;
        rc = locator_locate_wait(c->loc, table, row, row_len, sn, avoid->region,
                                 avoid_wait(c, avoid, left_ms), &v, &n);
    } else {
        rc = locator_locate_prefetch(c->loc, table, row, row_len, &v, &n);
    }
    for (int round = 0; rc == ST_OK && round < 2; round++) {
        const locator_region *r = &v[0];
        srvtrack_state st = srvtrack_check(c->track, r->host, r->port, r->start_code);
        if (st == SRVTRACK_LIVE)
            break;
        char sn[320];
        server_of(r->host, r->port, r->start_code, sn, sizeof(sn));
        if (!can_wait) {
            if (st == SRVTRACK_DEAD)
                rc = st_error(ST_NOT_SERVING, "client: region %s of %s is on dead server %s",
                              r->encoded_name, table, sn);
            break;
        }
        if (round == 1) {
            if (st == SRVTRACK_DEAD)
                rc = st_error(ST_NOT_SERVING,
                              "client: region %s of %s is still on dead server %s; waiting for "
                              "it to reopen",
                              r->encoded_name, table, sn);
            break; /* suspect, and still there after the wait: use it */
        }
        int wait = st == SRVTRACK_DEAD
                       ? wait_budget(left_ms)
                       : (int)srvtrack_suspect_left_ms(c->track, r->host, r->port, r->start_code);
        if (wait <= 0)
            wait = 1;
        if (left_ms >= 0 && wait > left_ms)
            wait = left_ms > 0 ? (int)left_ms : 1;
        char region[128];
        snprintf(region, sizeof(region), "%s", r->encoded_name);
        locator_regions_free(v, n);
        v = NULL;
        n = 0;
        *waited = true;
        rc = locator_locate_wait(c->loc, table, row, row_len, sn, region, wait, &v, &n);
    }
    if (rc == ST_OK)
        rc = cache_regions(c, v, n);
    locator_regions_free(v, n);
    return rc;
}

int client_locate_avoid(strata_client_t *c, const char *table, const uint8_t *row, size_t row_len,
                        const client_avoid *avoid, int64_t left_ms, const loccache_entry **out,
                        bool *waited)
{
    bool w = false;
    if (waited)
        *waited = false;
    for (int pass = 0; pass < 2; pass++) {
        if (loccache_lookup(c->cache, table, row, row_len, out) == ST_OK) {
            if (!avoided(*out, avoid))
                return ST_OK;
            loccache_invalidate_entry(c->cache, *out); /* still the failed one: drop it */
            loccache_entry_release(*out);
            *out = NULL;
            break;
        }
        if (pass == 0) {
            srvtrack_start(c->track);
            load_table(c, table);
        }
    }
    int rc = ask_locator(c, table, row, row_len, avoid, left_ms, &w);
    if (waited)
        *waited = w;
    if (rc == ST_OK && loccache_lookup(c->cache, table, row, row_len, out) != ST_OK)
        rc = st_error(ST_NOT_SERVING, "client: region of %s moved while being cached", table);
    return rc;
}

int client_locate(strata_client_t *c, const char *table, const uint8_t *row, size_t row_len,
                  const loccache_entry **out)
{
    return client_locate_avoid(c, table, row, row_len, NULL, -1, out, NULL);
}

void client_note_failure(strata_client_t *c, const loccache_entry *e, int status)
{
    if (!e || retry_classify(status) != RETRY_INVALIDATE)
        return;
    loccache_invalidate_entry(c->cache, e);
    if (status == ST_CONNECTION || status == ST_TIMEOUT || status == ST_CLOSED) {
        /* The server itself failed: its other regions would fail the same way. */
        loccache_invalidate_server(c->cache, e->host, e->port);
        srvtrack_suspect(c->track, e->host, e->port, (uint64_t)e->start_code, c->suspect_ms);
    }
}

void client_avoid_set(client_avoid *avoid, const loccache_entry *e, int status)
{
    avoid->set = retry_classify(status) == RETRY_INVALIDATE && (e || status == ST_NOT_SERVING);
    avoid->host[0] = avoid->region[0] = '\0';
    if (!avoid->set || !e) /* no location at all (in transition): wait for one to open */
        return;
    snprintf(avoid->region, sizeof(avoid->region), "%s", e->region);
    /* The server answered that the region is not there (closed, moving, splitting): wait
     * for the region to be open again wherever that is, its own server included (a split
     * that rolled back reopens it there). A server that did not answer is avoided. */
    if (status != ST_NOT_SERVING && status != ST_REGION_MOVED) {
        snprintf(avoid->host, sizeof(avoid->host), "%s", e->host);
        avoid->port = e->port;
        avoid->start_code = (uint64_t)e->start_code;
    }
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
                   const char *method, client_build_fn build, void *arg, const retry_state *r,
                   const client_avoid *avoid, bool *waited, const loccache_entry **e,
                   rpc_result *res)
{
    char addr[300];
    buf_t req = {0};
    int rc = client_locate_avoid(c, table, row, row_len, avoid, retry_remaining_ms(r), e, waited);
    if (rc == ST_OK)
        rc = build(arg, (*e)->region, &req);
    if (rc == ST_OK) {
        entry_addr(*e, addr, sizeof(addr));
        rc = rpc_client_call_result(c->rpc, addr, method, req.data, req.len,
                                    client_call_timeout(c, r), res);
    }
    buf_free(&req);
    return rc;
}

int client_follow_pause(retry_state *r, int status, bool follow, client_follow *f, uint32_t hint,
                        int64_t *pause_ms)
{
    bool opening = !follow && status == ST_REGION_OPENING && hint <= CLIENT_OPENING_PAUSE_MS &&
                   f->opening_polls < CLIENT_OPENING_POLLS;
    if (retry_remaining_ms(r) != 0 && ((follow && f->follows < CLIENT_FOLLOW_RETRIES) || opening)) {
        /* The location just failed: the next lookup waits on the master for the new one,
         * so there is nothing to back off from. A region opening where it is serves
         * within milliseconds: polled every CLIENT_OPENING_PAUSE_MS, not from 100 ms. */
        if (opening)
            f->opening_polls++;
        else
            f->follows++;
        *pause_ms = opening ? CLIENT_OPENING_PAUSE_MS : 0;
        return ST_OK;
    }
    return client_next_pause(r, status, hint, pause_ms);
}

int client_region_call(strata_client_t *c, const char *table, const uint8_t *row, size_t row_len,
                       const char *method, client_build_fn build, void *arg, buf_t *resp)
{
    retry_state r;
    client_avoid avoid = {0};
    client_follow follows = {0};
    moved_follow mf;
    moved_follow_init(&mf);
    int rc = retry_begin(&r, &c->retry);
    while (rc == ST_OK) {
        const loccache_entry *e = NULL;
        rpc_result res = {0};
        bool waited = false;
        rc = attempt(c, table, row, row_len, method, build, arg, &r, &avoid, &waited, &e, &res);
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
            avoid.set = false; /* the hint says where to go */
            rc = ST_OK;
            continue;
        }
        client_note_failure(c, e, rc);
        client_avoid_set(&avoid, e, rc);
        loccache_entry_release(e);
        int64_t pause = 0;
        rc = client_follow_pause(&r, rc, avoid.set && !waited, &follows, res.retry_after_ms,
                                 &pause);
        if (rc == ST_OK && pause > 0)
            clock_sleep_ms(pause);
    }
    return rc;
}
