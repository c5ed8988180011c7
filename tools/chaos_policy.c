/*
 * chaos_policy.c - the chaos monkey's schedule (tools/chaos.h): the policies, the
 * monkey's thread, the action log, its options and the summary of a run.
 *
 * Policies (HBase's monkey factories by name; docs/chaos.md):
 *
 *   calm                          no action (a load's baseline)
 *   slowDeterministic             every kind, one per period, in an order the seed
 *                                 shuffles, over and over (the default; 20 s)
 *   serverKilling                 a random server fault each period (15 s)
 *   serverAndDependenciesKilling  the same and ZooKeeper restarts (15 s)
 *   noKill                        a random move, flush, compaction, balance, split or
 *                                 merge each period (5 s)
 *
 * --kinds replaces a policy's kinds; the policy still gives the period and whether they
 * rotate or are drawn at random.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/status.h"
#include "tools/chaos_internal.h"

#define K(x) (1u << (x))
#define ALL_KINDS ((1u << CHAOS_KINDS) - 1u)
#define SERVER_KINDS                                                                               \
    (K(CHAOS_KILL_RS) | K(CHAOS_KILL_MASTER) | K(CHAOS_RESTART_BACKUP_MASTER) |                    \
     K(CHAOS_PAUSE_RS) | K(CHAOS_ROLLING_RESTART) | K(CHAOS_KILL_MOVE_SOURCE) |                    \
     K(CHAOS_KILL_MOVE_DEST) | K(CHAOS_KILL_DURING_FLUSH) | K(CHAOS_KILL_DURING_COMPACT) |         \
     K(CHAOS_KILL_RS_THEN_MASTER) | K(CHAOS_KILL_ALL_RS) | K(CHAOS_PARTITION_RS_ZK) |              \
     K(CHAOS_PARTITION_MASTER))
#define NOKILL_KINDS                                                                               \
    (K(CHAOS_MOVE) | K(CHAOS_FLUSH) | K(CHAOS_COMPACT) | K(CHAOS_BALANCE) | K(CHAOS_SPLIT) |       \
     K(CHAOS_MERGE))

static const chaos_policy policies[] = {
    {"calm", 0, 10000, false},
    {"slowDeterministic", ALL_KINDS, 20000, true},
    {"serverKilling", SERVER_KINDS, 15000, false},
    {"serverAndDependenciesKilling", SERVER_KINDS | K(CHAOS_RESTART_ZK), 15000, false},
    {"noKill", NOKILL_KINDS, 5000, false},
};

const chaos_policy *chaos_policy_find(const char *name)
{
    for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
        if (strcmp(policies[i].name, name ? name : "slowDeterministic") == 0)
            return &policies[i];
    return NULL;
}

/* ---- options ---- */

static int int_value(const char *name, const char *v, long lo, long hi, int *out)
{
    char *end = NULL;
    long x = strtol(v, &end, 10);
    if (!v[0] || *end || x < lo || x > hi)
        return st_error(ST_INVALID_ARGUMENT, "chaos: --%s needs a number from %ld to %ld, not '%s'",
                        name, lo, hi, v);
    *out = (int)x;
    return ST_OK;
}

/* "90", "90s", "2m", "500ms" into milliseconds. */
static int duration_value(const char *name, const char *v, int *out)
{
    char *end = NULL;
    double x = strtod(v, &end);
    double mul = 1000;
    if (end && strcmp(end, "ms") == 0)
        mul = 1;
    else if (end && strcmp(end, "m") == 0)
        mul = 60000;
    else if (end && strcmp(end, "h") == 0)
        mul = 3600000;
    else if (end && *end && strcmp(end, "s") != 0)
        end = NULL;
    if (!v[0] || !end || x < 0 || x * mul > 2e9)
        return st_error(ST_INVALID_ARGUMENT,
                        "chaos: --%s needs a duration (90, 90s, 2m, 500ms), not '%s'", name, v);
    *out = (int)(x * mul);
    return ST_OK;
}

static int kinds_value(const char *v, uint32_t *out)
{
    char buf[512];
    snprintf(buf, sizeof(buf), "%s", v);
    uint32_t mask = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        chaos_kind k;
        if (chaos_kind_parse(t, &k) != ST_OK)
            return ST_INVALID_ARGUMENT;
        mask |= K(k);
    }
    if (!mask)
        return st_error(ST_INVALID_ARGUMENT, "chaos: --kinds names no action");
    *out = mask;
    return ST_OK;
}

typedef struct int_opt {
    const char *name;
    size_t off;
    long lo, hi;
} int_opt;

static const int_opt int_opts[] = {
    {"period-ms", offsetof(chaos_opts, period_ms), 0, 86400000},
    {"actions", offsetof(chaos_opts, actions), 0, 1000000},
    {"pause-ms", offsetof(chaos_opts, pause_ms), 1, 600000},
    {"zk-down-ms", offsetof(chaos_opts, zk_down_ms), 1, 600000},
    {"master-delay-ms", offsetof(chaos_opts, master_delay_ms), 1, 600000},
    {"recovery-timeout-ms", offsetof(chaos_opts, recovery_timeout_ms), 1000, 3600000},
    {"settle-timeout-ms", offsetof(chaos_opts, settle_timeout_ms), 1000, 3600000},
    {"session-timeout-ms", offsetof(chaos_opts, session_timeout_ms), 1000, 600000},
};

int chaos_opt_set(chaos_opts *o, const char *name, const char *value)
{
    if (!value)
        return st_error(ST_INVALID_ARGUMENT, "chaos: --%s needs a value", name);
    for (size_t i = 0; i < sizeof(int_opts) / sizeof(int_opts[0]); i++)
        if (strcmp(name, int_opts[i].name) == 0)
            return int_value(name, value, int_opts[i].lo, int_opts[i].hi,
                             (int *)((char *)o + int_opts[i].off));
    if (strcmp(name, "policy") == 0) {
        if (!chaos_policy_find(value))
            return st_error(ST_INVALID_ARGUMENT,
                            "chaos: unknown policy '%s' (calm, slowDeterministic, serverKilling, "
                            "serverAndDependenciesKilling, noKill)",
                            value);
        o->policy = value;
        return ST_OK;
    }
    if (strcmp(name, "duration") == 0)
        return duration_value(name, value, &o->duration_ms);
    if (strcmp(name, "kinds") == 0)
        return kinds_value(value, &o->kinds);
    if (strcmp(name, "control") == 0) {
        o->control = value;
        return ST_OK;
    }
    if (strcmp(name, "table") == 0) {
        if (o->ntables >= CHAOS_MAX_TABLES)
            return st_error(ST_INVALID_ARGUMENT, "chaos: at most %d --table", CHAOS_MAX_TABLES);
        o->tables[o->ntables++] = value;
        return ST_OK;
    }
    if (strcmp(name, "seed") == 0) {
        char *end = NULL;
        unsigned long long s = strtoull(value, &end, 0);
        if (!value[0] || *end || s == 0)
            return st_error(ST_INVALID_ARGUMENT, "chaos: --seed needs a number above 0, not '%s'",
                            value);
        o->seed = s;
        return ST_OK;
    }
    return ST_NOT_FOUND;
}

void chaos_opts_help(FILE *f, const char *p)
{
    fprintf(f,
            "  --%spolicy P        calm, slowDeterministic (default), serverKilling,\n"
            "                      serverAndDependenciesKilling, noKill\n"
            "  --%skinds A,B,...   only these actions (kill-rs, kill-master,\n"
            "                      restart-backup-master, pause-rs, restart-zk, move, flush,\n"
            "                      compact, balance, split, merge, rolling-restart,\n"
            "                      kill-move-source, kill-move-dest, kill-during-flush,\n"
            "                      kill-during-compact, kill-rs-then-master, kill-all-rs,\n"
            "                      partition-rs-zk, partition-master)\n"
            "  --%speriod-ms MS    between action starts (default the policy's)\n"
            "  --%sduration D      stop after D (90, 90s, 2m); --%sactions N  after N actions\n"
            "  --%sseed S          replay a run's choices (default from the clock, printed)\n"
            "  --%stable T         act on T's regions (repeatable; default every user table)\n"
            "  --%scontrol C       local (default, needs --dir), docker, script:PATH\n"
            "  --%spause-ms MS     pause-rs length (default session timeout + 2000)\n"
            "  --%szk-down-ms MS   restart-zk down time (default a third of the session timeout)\n"
            "  --%smaster-delay-ms MS  kill-rs-then-master delay (default 2000)\n"
            "  --%srecovery-timeout-ms MS, --%ssettle-timeout-ms MS  per action (90000, 120000)\n"
            "  --%ssession-timeout-ms MS  the cluster's, when not local (default 6000)\n",
            p, p, p, p, p, p, p, p, p, p, p, p, p, p);
}

/* ---- the log ---- */

static void wall_text(int64_t ms, char *out, size_t cap)
{
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    size_t n = strftime(out, cap, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, cap - n, ".%03dZ", (int)(ms % 1000));
}

static double secs(uint64_t from, uint64_t to)
{
    return from && to >= from ? (double)(to - from) / 1e9 : -1;
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void log_event(chaos_monkey *m, const chaos_event *e, bool begin)
{
    FILE *f = m->o.log ? m->o.log : stderr;
    char when[40];
    wall_text(begin ? clock_now_ms() : e->wall_ms, when, sizeof(when));
    const char *name = chaos_kind_name(e->kind);
    if (begin) {
        fprintf(f, "chaos: %s #%d %s begins\n", when, e->seq, name);
    } else if (e->skipped) {
        fprintf(f, "chaos: %s #%d %s %s skipped: %s\n", when, e->seq, name, e->target, e->detail);
    } else {
        fprintf(f, "chaos: %s #%d %s %s%s%s: recovered %.2f s, settled %.2f s%s%s\n", when, e->seq,
                name, e->target, e->server[0] ? " " : "", e->server,
                secs(e->t_start, e->t_recovered), secs(e->t_start, e->t_end),
                e->failed      ? ", FAILED: "
                : e->detail[0] ? "; "
                               : "",
                e->detail);
    }
    if (!begin && m->o.json_log) {
        fprintf(f, "{\"seq\":%d,\"action\":\"%s\",\"time\":\"%s\",\"target\":", e->seq, name, when);
        json_str(f, e->target);
        fprintf(f, ",\"server\":");
        json_str(f, e->server);
        fprintf(f,
                ",\"recovered_s\":%.3f,\"settled_s\":%.3f,\"skipped\":%s,\"failed\":%s,"
                "\"detail\":",
                secs(e->t_start, e->t_recovered), secs(e->t_start, e->t_end),
                e->skipped ? "true" : "false", e->failed ? "true" : "false");
        json_str(f, e->detail);
        fprintf(f, "}\n");
    }
    fflush(f);
}

/* ---- the thread ---- */

/* The stream the kinds are drawn from: apart from the targets' (chaos_rand), whose
 * draws depend on the cluster's state, so that a seed replays the kinds. */
static uint64_t kind_rand(chaos_monkey *m)
{
    return chaos_xorshift(&m->kind_rng);
}

/* The kinds in the order a deterministic policy runs them: shuffled by the seed. */
static size_t rotation(chaos_monkey *m, uint32_t mask, chaos_kind *order)
{
    size_t n = 0;
    for (int k = 0; k < CHAOS_KINDS; k++)
        if (mask & K(k))
            order[n++] = (chaos_kind)k;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(kind_rand(m) % i);
        chaos_kind t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    return n;
}

static bool push_event(chaos_monkey *m, const chaos_event *e)
{
    pthread_mutex_lock(&m->mu);
    if (m->nev == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        chaos_event *ev = realloc(m->ev, cap * sizeof(*ev));
        if (!ev) {
            pthread_mutex_unlock(&m->mu);
            return false;
        }
        m->ev = ev;
        m->cap = cap;
    }
    m->ev[m->nev++] = *e;
    pthread_mutex_unlock(&m->mu);
    return true;
}

static bool out_of_bounds(chaos_monkey *m, int done, uint64_t end)
{
    return atomic_load(&m->stop) || (m->o.actions && done >= m->o.actions) ||
           (end && clock_mono_ns() >= end);
}

static void *monkey_main(void *arg)
{
    chaos_monkey *m = arg;
    const chaos_policy *p = chaos_policy_find(m->o.policy);
    uint32_t mask = m->o.kinds ? m->o.kinds : p->kinds;
    uint32_t nets = K(CHAOS_PARTITION_RS_ZK) | K(CHAOS_PARTITION_MASTER);
    if ((mask & nets) && !chaos_backend_can_partition(m->b)) {
        fprintf(m->o.log ? m->o.log : stderr,
                "chaos: the local backend cuts no network: partition-rs-zk and "
                "partition-master left out\n");
        mask &= ~nets;
    }
    int period = m->o.period_ms > 0 ? m->o.period_ms : p->period_ms;
    uint64_t end = m->o.duration_ms ? clock_mono_ns() + (uint64_t)m->o.duration_ms * 1000000ull : 0;
    chaos_kind order[CHAOS_KINDS];
    size_t norder = rotation(m, mask, order);
    FILE *f = m->o.log ? m->o.log : stderr;
    fprintf(f, "chaos: policy %s, %zu kind(s), period %d ms, seed %" PRIu64 "\n", p->name, norder,
            period, m->seed);
    fflush(f);
    for (int done = 0; norder && !out_of_bounds(m, done, end); done++) {
        uint64_t due = clock_mono_ns() + (uint64_t)period * 1000000ull;
        chaos_kind kind =
            p->deterministic ? order[(size_t)done % norder] : order[kind_rand(m) % norder];
        chaos_event e;
        memset(&e, 0, sizeof(e));
        e.seq = done + 1;
        e.kind = kind;
        log_event(m, &e, true);
        chaos_action_run(m, kind, &e);
        if (!e.skipped || e.t_start) {
            if (chaos_restore(m, &e) != ST_OK)
                chaos_fail(&e, "settle", st_errmsg());
            e.t_end = e.failed ? 0 : clock_mono_ns();
        }
        log_event(m, &e, false);
        if (!push_event(m, &e))
            break;
        while (clock_mono_ns() < due && !out_of_bounds(m, done + 1, end))
            clock_sleep_ms(20);
    }
    fprintf(f, "chaos: done\n");
    fflush(f);
    atomic_store(&m->done, true);
    return NULL;
}

/* ---- the monkey ---- */

int chaos_start(const chaos_opts *o, chaos_monkey **out)
{
    if (!chaos_policy_find(o->policy))
        return st_error(ST_INVALID_ARGUMENT, "chaos: unknown policy '%s'", o->policy);
    if (!o->duration_ms && !o->actions)
        return st_error(ST_INVALID_ARGUMENT, "chaos: a run needs --duration or --actions");
    chaos_monkey *m = calloc(1, sizeof(*m));
    if (!m)
        return st_error(ST_NOMEM, "out of memory");
    m->o = *o;
    if (!m->o.recovery_timeout_ms)
        m->o.recovery_timeout_ms = 90000;
    if (!m->o.settle_timeout_ms)
        m->o.settle_timeout_ms = 120000;
    pthread_mutex_init(&m->mu, NULL);
    atomic_init(&m->stop, false);
    atomic_init(&m->done, false);
    m->seed = o->seed ? o->seed : (clock_mono_ns() ^ (uint64_t)clock_now_ms()) | 1;
    m->rng = m->seed;
    m->kind_rng = (m->seed * 0x9e3779b97f4a7c15ull) | 1;
    char *err = NULL;
    int rc = chaos_snapshot_init(&m->snap);
    if (rc == ST_OK)
        rc = chaos_backend_open(&m->o, &m->b);
    if (rc == ST_OK) {
        m->admin = strata_admin_open(chaos_backend_quorum(m->b), chaos_backend_parent(m->b), &err);
        if (m->admin)
            m->poll =
                strata_admin_open(chaos_backend_quorum(m->b), chaos_backend_parent(m->b), &err);
        if (err)
            rc = st_error(ST_INVALID_ARGUMENT, "chaos: admin: %s", err);
        strata_free(err);
    }
    if (rc == ST_OK) {
        strata_admin_set_timeout_ms(m->admin, 120000);
        strata_admin_set_timeout_ms(m->poll, 3000);
        chaos_take_snapshot(m);
        if (!m->snap.ok)
            rc = st_error(ST_IO, "chaos: the master does not answer: %s", m->snap.error);
    }
    if (rc == ST_OK) {
        chaos_backend_list(m->b, m->snap.status);
        int nrs = 0;
        for (size_t i = 0; i < chaos_backend_count(m->b); i++)
            nrs += chaos_backend_proc(m->b, i)->role == CHAOS_ROLE_RS;
        m->nrs_expected = nrs;
        if (pthread_create(&m->thread, NULL, monkey_main, m) != 0)
            rc = st_error(ST_INTERNAL, "chaos: no thread");
        else
            m->started = true;
    }
    if (rc != ST_OK) {
        chaos_free(m);
        return rc;
    }
    *out = m;
    return ST_OK;
}

static void join(chaos_monkey *m)
{
    if (m->started) {
        pthread_join(m->thread, NULL);
        m->started = false;
    }
}

void chaos_wait(chaos_monkey *m)
{
    join(m);
}

bool chaos_finished(const chaos_monkey *m)
{
    return atomic_load(&m->done);
}

void chaos_stop(chaos_monkey *m)
{
    atomic_store(&m->stop, true);
    join(m);
}

size_t chaos_events(const chaos_monkey *m, const chaos_event **out)
{
    *out = m->ev;
    return m->nev;
}

uint64_t chaos_seed(const chaos_monkey *m)
{
    return m->seed;
}

void chaos_free(chaos_monkey *m)
{
    if (!m)
        return;
    chaos_stop(m);
    strata_admin_close(m->poll);
    strata_admin_close(m->admin);
    chaos_backend_close(m->b);
    chaos_snapshot_free(&m->snap);
    pthread_mutex_destroy(&m->mu);
    free(m->ev);
    free(m);
}

/* ---- the summary ---- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

bool chaos_all_ok(const chaos_event *ev, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (ev[i].failed)
            return false;
    return true;
}

void chaos_summary(FILE *f, const chaos_event *ev, size_t n, bool json)
{
    size_t done = 0, skipped = 0, failed = 0;
    for (size_t i = 0; i < n; i++) {
        skipped += ev[i].skipped && !ev[i].failed;
        failed += ev[i].failed;
        done += !ev[i].skipped && !ev[i].failed;
    }
    double *v = calloc(n ? n : 1, sizeof(double));
    if (json)
        fprintf(f, "{\"actions\":%zu,\"done\":%zu,\"skipped\":%zu,\"failed\":%zu,\"kinds\":{", n,
                done, skipped, failed);
    else
        fprintf(f,
                "chaos: %zu action(s): %zu done, %zu skipped, %zu failed\n"
                "%-22s %5s %7s %6s %9s %9s %9s  (recovery: seconds from the fault)\n",
                n, done, skipped, failed, "action", "done", "skipped", "failed", "median", "p90",
                "max");
    bool first = true;
    for (int k = 0; k < CHAOS_KINDS && v; k++) {
        size_t d = 0, s = 0, fl = 0, nv = 0;
        for (size_t i = 0; i < n; i++) {
            if ((int)ev[i].kind != k)
                continue;
            d += !ev[i].skipped && !ev[i].failed;
            s += ev[i].skipped && !ev[i].failed;
            fl += ev[i].failed;
            if (ev[i].t_recovered && ev[i].t_start)
                v[nv++] = secs(ev[i].t_start, ev[i].t_recovered);
        }
        if (!d && !s && !fl)
            continue;
        qsort(v, nv, sizeof(double), cmp_double);
        if (json) {
            fprintf(f,
                    "%s\"%s\":{\"done\":%zu,\"skipped\":%zu,\"failed\":%zu,"
                    "\"recovery_s\":{\"n\":%zu,\"median\":%.3f,\"p90\":%.3f,\"max\":%.3f}}",
                    first ? "" : ",", chaos_kind_name((chaos_kind)k), d, s, fl, nv,
                    chaos_rank(v, nv, 0.5), chaos_rank(v, nv, 0.9), nv ? v[nv - 1] : 0);
            first = false;
        } else {
            fprintf(f, "%-22s %5zu %7zu %6zu %9.2f %9.2f %9.2f\n", chaos_kind_name((chaos_kind)k),
                    d, s, fl, chaos_rank(v, nv, 0.5), chaos_rank(v, nv, 0.9), nv ? v[nv - 1] : 0);
        }
    }
    if (json)
        fprintf(f, "}}\n");
    for (size_t i = 0; i < n && !json; i++)
        if (ev[i].failed)
            fprintf(f, "  failed: #%d %s %s: %s\n", ev[i].seq, chaos_kind_name(ev[i].kind),
                    ev[i].target, ev[i].detail);
    free(v);
}
