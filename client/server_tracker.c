/*
 * server_tracker.c - region-server health for the client (contract in server_tracker.h).
 *
 * State, under mu:
 *   live    the last children of <parent>/rs (server names), once the watch delivered them;
 *   dead    incarnations declared dead, newest last, at most TRACK_DEAD_KEPT (a ring);
 *   suspect incarnations with a deadline (clock_mono_ns), at most TRACK_SUSPECT_KEPT.
 *
 * A background thread opens the ZooKeeper session (retrying every second while the
 * ensemble cannot be reached), sets the two children watches, and re-opens the session
 * when it expired. The watch callbacks diff the new children against what was known and
 * call the dead callback for each incarnation newly dead, outside mu.
 */
#include "client/server_tracker.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/server_name.h"
#include "common/status.h"
#include "common/zk/zk.h"
#include "common/zk/znodes.h"

#define TRACK_DEAD_KEPT 256
#define TRACK_SUSPECT_KEPT 64
#define TRACK_SESSION_TIMEOUT_MS 30000
#define TRACK_CONNECT_TIMEOUT_MS 2000 /* also bounds how long a close may wait */
#define TRACK_RETRY_MS 1000

typedef struct suspect {
    server_name sn;
    uint64_t until_ns;
} suspect;

struct srvtrack {
    char *quorum, *parent;
    srvtrack_dead_fn fn;
    void *arg;

    pthread_mutex_t mu;
    pthread_cond_t cv; /* wakes the session thread (stop) */
    server_name *live;
    size_t nlive;
    bool loaded;
    server_name dead[TRACK_DEAD_KEPT];
    size_t ndead, dead_next;
    suspect sus[TRACK_SUSPECT_KEPT];
    size_t nsus;
    bool stop;
    atomic_bool start_asked;
    atomic_uint_fast64_t dead_total;

    zk *z; /* the session thread's; NULL while none */
    zk_watch *w_rs, *w_split;
    pthread_t thr;
    bool started; /* mu */
};

/* ---- sets (mu held) ---- */

static bool same(const server_name *a, const server_name *b)
{
    return a->port == b->port && a->start_code == b->start_code && strcmp(a->host, b->host) == 0;
}

static bool is_dead(const srvtrack *t, const server_name *sn)
{
    for (size_t i = 0; i < t->ndead; i++)
        if (same(&t->dead[i], sn))
            return true;
    return false;
}

/* Records sn dead; false if it was already. */
static bool add_dead(srvtrack *t, const server_name *sn)
{
    if (is_dead(t, sn))
        return false;
    t->dead[t->dead_next] = *sn;
    t->dead_next = (t->dead_next + 1) % TRACK_DEAD_KEPT;
    if (t->ndead < TRACK_DEAD_KEPT)
        t->ndead++;
    return true;
}

/* A live incarnation on sn's host:port newer than sn. */
static bool newer_live(const srvtrack *t, const server_name *sn)
{
    for (size_t i = 0; i < t->nlive; i++)
        if (t->live[i].port == sn->port && strcmp(t->live[i].host, sn->host) == 0 &&
            t->live[i].start_code > sn->start_code)
            return true;
    return false;
}

/* ---- the watches ---- */

typedef struct gone {
    server_name sn;
    bool newer;
} gone;

static void report(srvtrack *t, const gone *g, size_t n, const char *why)
{
    for (size_t i = 0; i < n; i++) {
        LOG_INFO("client: region server %s,%u,%llu is dead (%s)", g[i].sn.host,
                 (unsigned)g[i].sn.port, (unsigned long long)g[i].sn.start_code, why);
        atomic_fetch_add(&t->dead_total, 1);
        if (t->fn)
            t->fn(t->arg, g[i].sn.host, g[i].sn.port, g[i].sn.start_code, g[i].newer);
    }
}

static void parse_names(char **names, size_t n, server_name *out, size_t *count)
{
    *count = 0;
    for (size_t i = 0; i < n; i++)
        if (server_name_parse(names[i], &out[*count]) == ST_OK)
            (*count)++;
}

static void rs_changed(void *arg, const char *path, bool exists, char **names, size_t n)
{
    (void)path;
    (void)exists;
    srvtrack *t = arg;
    server_name *fresh = calloc(n ? n : 1, sizeof(*fresh));
    if (!fresh)
        return;
    size_t nf = 0;
    parse_names(names, n, fresh, &nf);
    pthread_mutex_lock(&t->mu);
    size_t cap = t->nlive + nf;
    gone *g = calloc(cap ? cap : 1, sizeof(*g));
    size_t ng = 0;
    server_name *old = t->live;
    size_t nold = t->nlive;
    t->live = fresh;
    t->nlive = nf;
    t->loaded = true;
    for (size_t i = 0; g && i < nold; i++) { /* vanished */
        bool still = false;
        for (size_t j = 0; j < nf && !still; j++)
            still = same(&old[i], &fresh[j]);
        if (!still && add_dead(t, &old[i]))
            g[ng++] = (gone){old[i], newer_live(t, &old[i])};
    }
    for (size_t i = 0; g && i < nf; i++) /* superseded while both znodes exist */
        if (newer_live(t, &fresh[i]) && add_dead(t, &fresh[i]))
            g[ng++] = (gone){fresh[i], true};
    pthread_mutex_unlock(&t->mu);
    free(old);
    if (g)
        report(t, g, ng, "its znode is gone or a newer one replaced it");
    free(g);
}

static void split_changed(void *arg, const char *path, bool exists, char **names, size_t n)
{
    (void)path;
    (void)exists;
    srvtrack *t = arg;
    server_name *v = calloc(n ? n : 1, sizeof(*v));
    gone *g = calloc(n ? n : 1, sizeof(*g));
    size_t nv = 0, ng = 0;
    if (v && g) {
        parse_names(names, n, v, &nv);
        pthread_mutex_lock(&t->mu);
        for (size_t i = 0; i < nv; i++)
            if (add_dead(t, &v[i]))
                g[ng++] = (gone){v[i], newer_live(t, &v[i])};
        pthread_mutex_unlock(&t->mu);
        report(t, g, ng, "the master is splitting its WALs");
    }
    free(v);
    free(g);
}

/* ---- the session thread ---- */

static void unwatch(srvtrack *t, zk *z)
{
    zk_unwatch(z, t->w_rs);
    zk_unwatch(z, t->w_split);
    t->w_rs = t->w_split = NULL;
}

static int connect_and_watch(srvtrack *t, zk **out)
{
    zk_options o = {.quorum = t->quorum,
                    .session_timeout_ms = TRACK_SESSION_TIMEOUT_MS,
                    .connect_timeout_ms = TRACK_CONNECT_TIMEOUT_MS};
    zk *z = NULL;
    int rc = zk_open(&o, &z);
    char *rs = rc == ST_OK ? znodes_path(t->parent, ZNODE_RS, NULL) : NULL;
    char *split = rc == ST_OK ? znodes_path(t->parent, ZNODE_SPLIT_WAL, NULL) : NULL;
    if (rc == ST_OK && (!rs || !split))
        rc = st_error(ST_NOMEM, "client: out of memory");
    if (rc == ST_OK)
        rc = zk_watch_children(z, rs, rs_changed, t, &t->w_rs);
    if (rc == ST_OK)
        rc = zk_watch_children(z, split, split_changed, t, &t->w_split);
    free(rs);
    free(split);
    if (rc != ST_OK && z) {
        unwatch(t, z);
        zk_close(z);
        z = NULL;
    }
    *out = z;
    return rc;
}

/* Waits up to ms for stop; true if stopping. */
static bool wait_stop(srvtrack *t, int ms)
{
    struct timespec until = clock_realtime_after_ms(ms);
    pthread_mutex_lock(&t->mu);
    while (!t->stop && pthread_cond_timedwait(&t->cv, &t->mu, &until) == 0)
        ;
    bool stop = t->stop;
    pthread_mutex_unlock(&t->mu);
    return stop;
}

static void *session_main(void *arg)
{
    srvtrack *t = arg;
    zk *z = NULL;
    bool warned = false;
    while (!wait_stop(t, z ? 200 : 0)) {
        if (z) {
            zk_state st = zk_get_state(z);
            if (st != ZK_EXPIRED && st != ZK_CLOSED)
                continue;
            LOG_INFO("client: server tracker's ZooKeeper session %s; opening a new one",
                     zk_state_name(st));
            unwatch(t, z);
            zk_close(z);
            z = NULL;
        }
        if (connect_and_watch(t, &z) != ST_OK) {
            if (!warned)
                LOG_INFO("client: cannot watch region servers through %s yet: %s", t->quorum,
                         st_errmsg());
            warned = true;
            if (wait_stop(t, TRACK_RETRY_MS))
                break;
        }
    }
    if (z) {
        unwatch(t, z);
        zk_close(z);
    }
    return NULL;
}

/* ---- the API ---- */

int srvtrack_open(const char *quorum, const char *parent, srvtrack_dead_fn fn, void *arg,
                  srvtrack **out)
{
    *out = NULL;
    srvtrack *t = calloc(1, sizeof(*t));
    if (!t)
        return st_error(ST_NOMEM, "client: out of memory");
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->cv, NULL);
    t->fn = fn;
    t->arg = arg;
    if (quorum && quorum[0]) {
        t->quorum = strdup(quorum);
        t->parent = strdup(parent && parent[0] ? parent : ZNODES_DEFAULT_PARENT);
        if (!t->quorum || !t->parent) {
            srvtrack_close(t);
            return st_error(ST_NOMEM, "client: out of memory");
        }
    }
    *out = t;
    return ST_OK;
}

void srvtrack_start(srvtrack *t)
{
    if (!t->quorum || atomic_load(&t->start_asked))
        return;
    pthread_mutex_lock(&t->mu);
    if (!t->started && !t->stop && !atomic_load(&t->start_asked)) {
        atomic_store(&t->start_asked, true);
        if (pthread_create(&t->thr, NULL, session_main, t) == 0)
            t->started = true;
        else
            LOG_WARN("client: cannot start the region-server tracker thread; dead servers are "
                     "found by call failures only");
    }
    pthread_mutex_unlock(&t->mu);
}

void srvtrack_close(srvtrack *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    t->stop = true;
    pthread_cond_broadcast(&t->cv);
    bool started = t->started;
    pthread_mutex_unlock(&t->mu);
    if (started)
        pthread_join(t->thr, NULL);
    free(t->live);
    free(t->quorum);
    free(t->parent);
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

static void make_name(server_name *sn, const char *host, uint16_t port, uint64_t start_code)
{
    memset(sn, 0, sizeof(*sn));
    snprintf(sn->host, sizeof(sn->host), "%s", host);
    sn->port = port;
    sn->start_code = start_code;
}

static bool match(const server_name *a, const server_name *b)
{
    return a->port == b->port && strcmp(a->host, b->host) == 0 &&
           (a->start_code == 0 || b->start_code == 0 || a->start_code == b->start_code);
}

/* The suspect entry of sn (mu held), or NULL. */
static suspect *find_suspect(srvtrack *t, const server_name *sn, uint64_t now)
{
    for (size_t i = 0; i < t->nsus; i++)
        if (t->sus[i].until_ns > now && match(&t->sus[i].sn, sn))
            return &t->sus[i];
    return NULL;
}

srvtrack_state srvtrack_check(srvtrack *t, const char *host, uint16_t port, uint64_t start_code)
{
    server_name sn;
    make_name(&sn, host, port, start_code);
    srvtrack_state st = SRVTRACK_LIVE;
    pthread_mutex_lock(&t->mu);
    if (start_code && (is_dead(t, &sn) || newer_live(t, &sn)))
        st = SRVTRACK_DEAD;
    else if (find_suspect(t, &sn, clock_mono_ns()))
        st = SRVTRACK_SUSPECT;
    pthread_mutex_unlock(&t->mu);
    return st;
}

int64_t srvtrack_suspect_left_ms(srvtrack *t, const char *host, uint16_t port,
                                 uint64_t start_code)
{
    server_name sn;
    make_name(&sn, host, port, start_code);
    uint64_t now = clock_mono_ns();
    pthread_mutex_lock(&t->mu);
    suspect *s = find_suspect(t, &sn, now);
    int64_t left = s ? (int64_t)((s->until_ns - now + 999999) / 1000000) : 0;
    pthread_mutex_unlock(&t->mu);
    return left;
}

void srvtrack_suspect(srvtrack *t, const char *host, uint16_t port, uint64_t start_code, int ms)
{
    if (ms <= 0)
        return;
    server_name sn;
    make_name(&sn, host, port, start_code);
    uint64_t now = clock_mono_ns(), until = now + (uint64_t)ms * 1000000u;
    pthread_mutex_lock(&t->mu);
    suspect *s = NULL;
    for (size_t i = 0; i < t->nsus && !s; i++)
        if (same(&t->sus[i].sn, &sn) || t->sus[i].until_ns <= now)
            s = &t->sus[i];
    if (!s && t->nsus < TRACK_SUSPECT_KEPT)
        s = &t->sus[t->nsus++];
    if (!s) { /* full of live suspicions: replace the one ending first */
        s = &t->sus[0];
        for (size_t i = 1; i < t->nsus; i++)
            if (t->sus[i].until_ns < s->until_ns)
                s = &t->sus[i];
    }
    if (!same(&s->sn, &sn) || s->until_ns < until) {
        if (!same(&s->sn, &sn))
            LOG_DEBUG("client: region server %s:%u suspect for %d ms", host, (unsigned)port, ms);
        s->sn = sn;
        s->until_ns = until;
    }
    pthread_mutex_unlock(&t->mu);
}

bool srvtrack_watching(srvtrack *t)
{
    pthread_mutex_lock(&t->mu);
    bool loaded = t->loaded;
    pthread_mutex_unlock(&t->mu);
    return loaded;
}

uint64_t srvtrack_dead_count(srvtrack *t)
{
    return atomic_load(&t->dead_total);
}
