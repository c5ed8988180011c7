/*
 * chaos_view.c - what the chaos monkey sees of the cluster (tools/chaos_internal.h): one
 * poll of the master (the regions of the tables it acts on, the live servers, the
 * regions in transition), the predicates over it, and the waits for recovery and for a
 * settled cluster.
 *
 * A poll that fails (no master answering, a timeout) counts as not recovered and not
 * settled. Polls run every POLL_MS through their own admin handle with a short timeout.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/status.h"
#include "tools/chaos_internal.h"

#define POLL_MS 100

uint64_t chaos_xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

uint64_t chaos_rand(chaos_monkey *m)
{
    return chaos_xorshift(&m->rng);
}

double chaos_rank(const double *sorted, size_t n, double p)
{
    if (!n)
        return 0;
    size_t r = (size_t)ceil(p * (double)n);
    return sorted[r ? (r <= n ? r - 1 : n - 1) : 0];
}

void chaos_fail(chaos_event *e, const char *what, const char *why)
{
    if (!e->failed)
        snprintf(e->detail, sizeof(e->detail), "%.40s: %.250s", what, why ? why : "?");
    e->failed = true;
}

void chaos_sleep_ms(chaos_monkey *m, int ms)
{
    uint64_t end = clock_mono_ns() + (uint64_t)ms * 1000000ull;
    while (!atomic_load(&m->stop)) {
        uint64_t now = clock_mono_ns();
        if (now >= end)
            return;
        uint64_t left = (end - now) / 1000000ull;
        clock_sleep_ms(left > 50 ? 50 : (int64_t)left + 1);
    }
}

int chaos_snapshot_init(chaos_snapshot *s)
{
    memset(s, 0, sizeof(*s));
    s->r = calloc(CHAOS_MAX_REGIONS, sizeof(*s->r));
    return s->r ? ST_OK : st_error(ST_NOMEM, "out of memory");
}

void chaos_snapshot_free(chaos_snapshot *s)
{
    free(s->r);
    strata_cluster_status_destroy(s->status);
    memset(s, 0, sizeof(*s));
}

static void add_regions(chaos_snapshot *s, const strata_region_list_t *l)
{
    for (size_t i = 0; i < strata_region_list_count(l) && s->n < CHAOS_MAX_REGIONS; i++) {
        const strata_region_t *r = strata_region_list_get(l, i);
        chaos_region *v = &s->r[s->n++];
        const char *srv = strata_region_server(r);
        snprintf(v->name, sizeof(v->name), "%s", strata_region_encoded_name(r));
        snprintf(v->table, sizeof(v->table), "%s", strata_region_table(r));
        snprintf(v->server, sizeof(v->server), "%s", srv ? srv : "");
        v->state = strata_region_state_of(r);
    }
}

/* The tables to look at: the monkey's, or every user table now. */
static strata_name_list_t *list_tables(chaos_monkey *m, char **err)
{
    if (m->o.ntables)
        return NULL;
    return strata_admin_list_tables(m->poll, NULL, err);
}

void chaos_take_snapshot(chaos_monkey *m)
{
    chaos_snapshot *s = &m->snap;
    char *err = NULL;
    s->ok = false;
    s->n = 0;
    strata_cluster_status_destroy(s->status);
    s->status = strata_admin_cluster_status(m->poll, &err);
    strata_name_list_t *names = err ? NULL : list_tables(m, &err);
    size_t nt = m->o.ntables ? m->o.ntables : names ? strata_name_list_count(names) : 0;
    for (size_t i = 0; !err && i < nt; i++) {
        const char *t = m->o.ntables ? m->o.tables[i] : strata_name_list_get(names, i);
        strata_region_list_t *l = strata_admin_table_regions(m->poll, t, &err);
        if (l)
            add_regions(s, l);
        strata_region_list_destroy(l);
    }
    strata_name_list_destroy(names);
    if (err) {
        snprintf(s->error, sizeof(s->error), "%s", err);
        strata_free(err);
        return;
    }
    s->nlive = 0;
    for (size_t i = 0;
         i < strata_cluster_status_live_server_count(s->status) && s->nlive < CHAOS_MAX_PROCS; i++)
        snprintf(s->live[s->nlive++], sizeof(s->live[0]), "%s",
                 strata_server_load_name(strata_cluster_status_live_server(s->status, i)));
    s->rit = strata_cluster_status_in_transition_count(s->status);
    s->ok = true;
}

bool chaos_is_live(const chaos_snapshot *s, const char *server)
{
    for (size_t i = 0; i < s->nlive; i++)
        if (strcmp(s->live[i], server) == 0)
            return true;
    return false;
}

bool chaos_all_open(const chaos_snapshot *s, char (*excluded)[CHAOS_SERVER_MAX], size_t nex)
{
    if (!s->ok)
        return false;
    for (size_t i = 0; i < s->n; i++) {
        const chaos_region *r = &s->r[i];
        if (r->state != STRATA_REGION_OPEN || !r->server[0] || !chaos_is_live(s, r->server))
            return false;
        for (size_t k = 0; k < nex; k++)
            if (excluded[k][0] && strcmp(r->server, excluded[k]) == 0)
                return false;
    }
    return true;
}

bool chaos_settled(chaos_monkey *m)
{
    const chaos_snapshot *s = &m->snap;
    if (!chaos_all_open(s, NULL, 0) || s->rit > 0 || (int)s->nlive < m->nrs_expected)
        return false;
    for (size_t i = 0; i < chaos_backend_count(m->b); i++) {
        chaos_proc *p = chaos_backend_proc(m->b, i);
        if (p->down || p->paused || p->cut)
            return false;
    }
    return true;
}

bool chaos_wait_recovered(chaos_monkey *m, char (*excluded)[CHAOS_SERVER_MAX], size_t nex,
                          uint64_t deadline, uint64_t *when)
{
    for (;;) {
        uint64_t start = clock_mono_ns();
        chaos_take_snapshot(m);
        uint64_t end = clock_mono_ns();
        if (chaos_all_open(&m->snap, excluded, nex)) {
            *when = end;
            return true;
        }
        if (end >= deadline)
            return false;
        uint64_t next = start + POLL_MS * 1000000ull;
        while (clock_mono_ns() < next && clock_mono_ns() < deadline)
            clock_sleep_ms(10);
    }
}

/* A process the monkey did not take down counts as gone only if it is seen not running
 * twice, 300 ms apart: one look at /proc can miss a process that is starting. */
static bool gone(chaos_backend *b, chaos_proc *p)
{
    if (chaos_backend_alive(b, p))
        return false;
    clock_sleep_ms(300);
    return !chaos_backend_alive(b, p);
}

/* Resumes what is paused and starts what is down or no longer runs. */
static void restart_all(chaos_monkey *m, chaos_event *e)
{
    chaos_backend *b = m->b;
    /* ZooKeeper first, then masters, then region servers: each needs the one before. */
    for (int role = CHAOS_ROLE_ZK; role <= CHAOS_ROLE_RS; role++)
        for (size_t i = 0; i < chaos_backend_count(b); i++) {
            chaos_proc *p = chaos_backend_proc(b, i);
            if ((int)p->role != role)
                continue;
            if (p->cut && chaos_backend_net(b, p, "heal") != ST_OK)
                chaos_fail(e, "heal", st_errmsg());
            if (p->paused && chaos_backend_signal(b, p, SIGCONT) != ST_OK)
                chaos_fail(e, "resume", st_errmsg());
            if ((p->down || gone(b, p)) && chaos_backend_start(b, p, 0) != ST_OK)
                chaos_fail(e, "restart", st_errmsg());
        }
}

int chaos_restore(chaos_monkey *m, chaos_event *e)
{
    restart_all(m, e);
    uint64_t deadline = clock_mono_ns() + (uint64_t)m->o.settle_timeout_ms * 1000000ull;
    for (;;) {
        chaos_take_snapshot(m);
        if (chaos_settled(m))
            return ST_OK;
        if (clock_mono_ns() >= deadline)
            break;
        clock_sleep_ms(POLL_MS);
        /* A server that exited meanwhile (a session lost to a ZooKeeper restart) is
         * started again too. */
        restart_all(m, e);
    }
    const chaos_snapshot *s = &m->snap;
    return st_error(ST_TIMEOUT,
                    "the cluster did not settle within %d ms (%s: %zu region(s), %zu in "
                    "transition, %zu of %d region servers live)",
                    m->o.settle_timeout_ms, s->ok ? "polled" : s->error, s->n, s->rit, s->nlive,
                    m->nrs_expected);
}

chaos_proc *chaos_pick_holder(chaos_monkey *m, char *server, size_t cap)
{
    const chaos_snapshot *s = &m->snap;
    if (s->n == 0)
        return NULL;
    size_t start = (size_t)(chaos_rand(m) % s->n);
    for (size_t k = 0; k < s->n; k++) {
        const chaos_region *r = &s->r[(start + k) % s->n];
        chaos_proc *p = r->server[0] ? chaos_backend_rs_of(m->b, r->server) : NULL;
        if (p && !p->down && !p->paused) {
            snprintf(server, cap, "%s", r->server);
            return p;
        }
    }
    return NULL;
}
