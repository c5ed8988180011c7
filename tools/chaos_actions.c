/*
 * chaos_actions.c - the chaos monkey's actions (tools/chaos.h lists them; docs/chaos.md
 * says what each does and when it counts as recovered).
 *
 * Every action picks its target from a fresh snapshot, notes the fault's instant in
 * e->t_start just before its signal or admin call, waits for recovery (e->t_recovered)
 * where the fault took regions or the master away, and leaves the restore (resume and
 * restart what it took down, wait until settled) to chaos_action_run. A combined fault
 * runs its admin call on a helper thread (its own admin handle) so that the kill lands
 * while the call is under way.
 */
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/net.h"
#include "common/status.h"
#include "tools/chaos_internal.h"

#define PICK_TRIES 8
#define BG_TIMEOUT_MS 120000

static const char *const kind_names[CHAOS_KINDS] = {"kill-rs",
                                                    "kill-master",
                                                    "restart-backup-master",
                                                    "pause-rs",
                                                    "restart-zk",
                                                    "move",
                                                    "flush",
                                                    "compact",
                                                    "balance",
                                                    "split",
                                                    "merge",
                                                    "rolling-restart",
                                                    "kill-move-source",
                                                    "kill-move-dest",
                                                    "kill-during-flush",
                                                    "kill-during-compact",
                                                    "kill-rs-then-master",
                                                    "kill-all-rs",
                                                    "partition-rs-zk",
                                                    "partition-master"};

const char *chaos_kind_name(chaos_kind k)
{
    return (unsigned)k < CHAOS_KINDS ? kind_names[k] : NULL;
}

int chaos_kind_parse(const char *name, chaos_kind *out)
{
    for (int i = 0; i < CHAOS_KINDS; i++)
        if (strcmp(name, kind_names[i]) == 0) {
            *out = (chaos_kind)i;
            return ST_OK;
        }
    return st_error(ST_INVALID_ARGUMENT, "chaos: unknown action '%s'", name);
}

static size_t count_role(chaos_monkey *m, chaos_role role)
{
    size_t n = 0;
    for (size_t i = 0; i < chaos_backend_count(m->b); i++)
        if (chaos_backend_proc(m->b, i)->role == role)
            n++;
    return n;
}

bool chaos_action_possible(chaos_monkey *m, chaos_kind kind)
{
    size_t nrs = count_role(m, CHAOS_ROLE_RS), nm = count_role(m, CHAOS_ROLE_MASTER);
    switch (kind) {
    case CHAOS_RESTART_BACKUP_MASTER:
        return nm >= 2;
    case CHAOS_RESTART_ZK:
        return count_role(m, CHAOS_ROLE_ZK) >= 1;
    case CHAOS_PARTITION_RS_ZK:
        return nrs >= 2 && chaos_backend_can_partition(m->b);
    case CHAOS_PARTITION_MASTER:
        return nm >= 2 && chaos_backend_can_partition(m->b);
    case CHAOS_MOVE:
    case CHAOS_KILL_MOVE_SOURCE:
    case CHAOS_KILL_MOVE_DEST:
    case CHAOS_KILL_RS:
    case CHAOS_PAUSE_RS:
    case CHAOS_KILL_DURING_FLUSH:
    case CHAOS_KILL_DURING_COMPACT:
    case CHAOS_KILL_RS_THEN_MASTER:
        return nrs >= 2;
    default:
        return nrs >= 1;
    }
}

static uint64_t deadline_of(chaos_monkey *m, uint64_t from)
{
    return from + (uint64_t)m->o.recovery_timeout_ms * 1000000ull;
}

static void recover(chaos_monkey *m, chaos_event *e, char (*ex)[CHAOS_SERVER_MAX], size_t nex)
{
    if (!chaos_wait_recovered(m, ex, nex, deadline_of(m, e->t_start), &e->t_recovered)) {
        e->t_recovered = 0;
        chaos_fail(e, "recovery",
                   m->snap.ok ? "regions not open on live servers in time" : m->snap.error);
    }
}

static size_t regions_on(const chaos_snapshot *s, const char *server)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->r[i].server, server) == 0)
            n++;
    return n;
}

/* ---- a call under way on a helper thread ---- */

typedef enum bg_op { BG_MOVE, BG_FLUSH, BG_COMPACT } bg_op;

typedef struct bg_call {
    chaos_monkey *m;
    bg_op op;
    char region[CHAOS_REGION_MAX], dest[CHAOS_SERVER_MAX];
    pthread_t thread;
    atomic_bool done;
    char error[256];
} bg_call;

static void *bg_main(void *arg)
{
    bg_call *c = arg;
    char *err = NULL;
    strata_admin_t *a =
        strata_admin_open(chaos_backend_quorum(c->m->b), chaos_backend_parent(c->m->b), &err);
    if (a) {
        strata_admin_set_timeout_ms(a, BG_TIMEOUT_MS);
        if (c->op == BG_MOVE)
            strata_free(strata_admin_move(a, c->region, c->dest, &err));
        else if (c->op == BG_FLUSH)
            strata_admin_flush_region(a, c->region, &err);
        else
            strata_admin_compact_region(a, c->region, 1, &err);
    }
    if (err)
        snprintf(c->error, sizeof(c->error), "%s", err);
    strata_free(err);
    strata_admin_close(a);
    atomic_store(&c->done, true);
    return NULL;
}

static bool bg_start(bg_call *c)
{
    atomic_init(&c->done, false);
    return pthread_create(&c->thread, NULL, bg_main, c) == 0;
}

/* ---- picks ---- */

static const chaos_region *random_region(chaos_monkey *m)
{
    const chaos_snapshot *s = &m->snap;
    for (int t = 0; t < PICK_TRIES && s->n; t++) {
        const chaos_region *r = &s->r[chaos_rand(m) % s->n];
        if (r->state == STRATA_REGION_OPEN && r->server[0])
            return r;
    }
    return NULL;
}

static bool pick_dest(chaos_monkey *m, const char *source, char *out, size_t cap)
{
    const chaos_snapshot *s = &m->snap;
    if (s->nlive < 2)
        return false;
    size_t start = (size_t)(chaos_rand(m) % s->nlive);
    for (size_t k = 0; k < s->nlive; k++) {
        const char *c = s->live[(start + k) % s->nlive];
        if (strcmp(c, source) != 0) {
            snprintf(out, cap, "%s", c);
            return true;
        }
    }
    return false;
}

/* ---- server faults ---- */

static chaos_proc *kill_holder(chaos_monkey *m, chaos_event *e)
{
    chaos_proc *p = chaos_pick_holder(m, e->server, sizeof(e->server));
    if (!p) {
        e->skipped = true;
        snprintf(e->detail, sizeof(e->detail), "no running region server holds a region");
        return NULL;
    }
    snprintf(e->target, sizeof(e->target), "%s", p->name);
    size_t n = regions_on(&m->snap, e->server);
    e->kills = true;
    e->t_start = clock_mono_ns();
    if (chaos_backend_signal(m->b, p, SIGKILL) != ST_OK) {
        chaos_fail(e, p->name, st_errmsg());
        return NULL;
    }
    snprintf(e->detail, sizeof(e->detail), "%zu region(s) on %s", n, e->server);
    return p;
}

static void act_kill_rs(chaos_monkey *m, chaos_event *e)
{
    if (kill_holder(m, e))
        recover(m, e, &e->server, 1);
}

/* The active master's process and its server name (from the last status). */
static chaos_proc *active_master(chaos_monkey *m, char *name, size_t cap)
{
    const char *am = m->snap.status ? strata_cluster_status_active_master(m->snap.status) : NULL;
    snprintf(name, cap, "%s", am ? am : "");
    chaos_proc *p = chaos_backend_active_master(m->b);
    if (p || !am)
        return p;
    /* Masters of a compose deployment share a port: the host tells them apart. */
    const char *sep = strpbrk(am, ",:");
    int port = sep ? atoi(sep + 1) : -1;
    size_t hl = sep ? (size_t)(sep - am) : 0;
    for (size_t i = 0; i < chaos_backend_count(m->b); i++) {
        chaos_proc *c = chaos_backend_proc(m->b, i);
        if (c->role == CHAOS_ROLE_MASTER && c->port == port && strlen(c->host) == hl &&
            strncmp(c->host, am, hl) == 0)
            return c;
    }
    return NULL;
}

/* Until a master other than old (server name) is active and answering. */
static bool wait_new_master(chaos_monkey *m, const char *old, uint64_t deadline, uint64_t *when)
{
    for (;;) {
        chaos_take_snapshot(m);
        const char *am = m->snap.ok && m->snap.status
                             ? strata_cluster_status_active_master(m->snap.status)
                             : NULL;
        if (am && am[0] && strcmp(am, old) != 0) {
            *when = clock_mono_ns();
            return true;
        }
        if (clock_mono_ns() >= deadline)
            return false;
        clock_sleep_ms(100);
    }
}

static void kill_master(chaos_monkey *m, chaos_event *e, uint64_t since)
{
    char old[CHAOS_SERVER_MAX];
    chaos_proc *p = active_master(m, old, sizeof(old));
    if (!p) {
        chaos_fail(e, "kill-master", "no active master found");
        return;
    }
    if (!e->target[0])
        snprintf(e->target, sizeof(e->target), "%s", p->name);
    if (!e->server[0])
        snprintf(e->server, sizeof(e->server), "%s", old);
    if (!e->t_start)
        e->t_start = clock_mono_ns();
    if (chaos_backend_signal(m->b, p, SIGKILL) != ST_OK) {
        chaos_fail(e, p->name, st_errmsg());
        return;
    }
    /* With no backup the killed one is the only one that can come back. */
    if (count_role(m, CHAOS_ROLE_MASTER) < 2 && chaos_backend_start(m->b, p, 0) != ST_OK)
        chaos_fail(e, "restart master", st_errmsg());
    uint64_t when = 0;
    if (!wait_new_master(m, old, deadline_of(m, since), &when))
        chaos_fail(e, "recovery", "no other master became active in time");
}

static void act_kill_master(chaos_monkey *m, chaos_event *e)
{
    chaos_take_snapshot(m);
    e->kills = true;
    kill_master(m, e, clock_mono_ns());
    if (!e->failed)
        recover(m, e, NULL, 0); /* a master answering, every region open */
}

static void act_restart_backup(chaos_monkey *m, chaos_event *e)
{
    char active[CHAOS_SERVER_MAX];
    chaos_proc *am = active_master(m, active, sizeof(active));
    chaos_proc *pick = NULL;
    size_t n = chaos_backend_count(m->b), start = (size_t)(chaos_rand(m) % (n ? n : 1));
    for (size_t k = 0; k < n && !pick; k++) {
        chaos_proc *c = chaos_backend_proc(m->b, (start + k) % n);
        if (c->role == CHAOS_ROLE_MASTER && c != am && !c->down)
            pick = c;
    }
    if (!pick) {
        e->skipped = true;
        snprintf(e->detail, sizeof(e->detail), "no backup master");
        return;
    }
    snprintf(e->target, sizeof(e->target), "%s", pick->name);
    e->t_start = clock_mono_ns();
    if (chaos_backend_signal(m->b, pick, SIGKILL) != ST_OK) {
        chaos_fail(e, pick->name, st_errmsg());
        return;
    }
    chaos_sleep_ms(m, 1000);
    if (chaos_backend_start(m->b, pick, 0) != ST_OK)
        chaos_fail(e, "restart", st_errmsg());
    else
        e->t_recovered = clock_mono_ns();
}

static void act_pause_rs(chaos_monkey *m, chaos_event *e)
{
    chaos_proc *p = chaos_pick_holder(m, e->server, sizeof(e->server));
    if (!p) {
        e->skipped = true;
        snprintf(e->detail, sizeof(e->detail), "no running region server holds a region");
        return;
    }
    int st = chaos_backend_session_timeout_ms(m->b);
    int ms = m->o.pause_ms > 0 ? m->o.pause_ms : st + 2000;
    snprintf(e->target, sizeof(e->target), "%s", p->name);
    size_t n = regions_on(&m->snap, e->server);
    e->kills = true;
    e->t_start = clock_mono_ns();
    if (chaos_backend_signal(m->b, p, SIGSTOP) != ST_OK) {
        chaos_fail(e, p->name, st_errmsg());
        return;
    }
    if (ms > st)
        recover(m, e, &e->server, 1); /* while it is stopped */
    uint64_t resume = e->t_start + (uint64_t)ms * 1000000ull;
    while (clock_mono_ns() < resume)
        clock_sleep_ms(20);
    if (chaos_backend_signal(m->b, p, SIGCONT) != ST_OK)
        chaos_fail(e, "resume", st_errmsg());
    if (ms <= st) {
        snprintf(e->detail, sizeof(e->detail), "%zu region(s); paused %d ms, within the session", n,
                 ms);
        recover(m, e, NULL, 0);
        return;
    }
    /* Its session expired while it was stopped: it must notice and exit, acknowledging
     * nothing more (its regions are open elsewhere by now). */
    uint64_t deadline = clock_mono_ns() + (uint64_t)(st + 5000) * 1000000ull;
    bool alive = true;
    while ((alive = chaos_backend_alive(m->b, p)) && clock_mono_ns() < deadline)
        clock_sleep_ms(100);
    if (alive)
        chaos_fail(e, "zombie", "the resumed server still runs after its session expired");
    else
        snprintf(e->detail, sizeof(e->detail),
                 "%zu region(s) on %s; paused %d ms; exited after it resumed", n, e->server, ms);
    p->down = true; /* restarted by the restore */
}

static void act_restart_zk(chaos_monkey *m, chaos_event *e)
{
    chaos_proc *z = NULL;
    for (size_t i = 0; i < chaos_backend_count(m->b) && !z; i++)
        if (chaos_backend_proc(m->b, i)->role == CHAOS_ROLE_ZK)
            z = chaos_backend_proc(m->b, i);
    if (!z) {
        e->skipped = true;
        snprintf(e->detail, sizeof(e->detail), "no ZooKeeper process known");
        return;
    }
    int down = m->o.zk_down_ms > 0 ? m->o.zk_down_ms : chaos_backend_session_timeout_ms(m->b) / 3;
    snprintf(e->target, sizeof(e->target), "%s", z->name);
    e->t_start = clock_mono_ns();
    if (chaos_backend_signal(m->b, z, SIGKILL) != ST_OK) {
        chaos_fail(e, z->name, st_errmsg());
        return;
    }
    chaos_sleep_ms(m, down);
    if (chaos_backend_start(m->b, z, 0) != ST_OK) {
        chaos_fail(e, "restart", st_errmsg());
        return;
    }
    snprintf(e->detail, sizeof(e->detail), "down %d ms", down);
    recover(m, e, NULL, 0);
}

/* ---- admin actions ---- */

static void admin_failed(chaos_event *e, const char *what, char *err)
{
    /* A refusal (a region in transition or holding references, a switch off) changes
     * nothing: the action is skipped, not failed. */
    if (strata_error_code(err) == STRATA_ERR_INVALID_ARGUMENT) {
        e->skipped = true;
        snprintf(e->detail, sizeof(e->detail), "refused: %.280s", err);
    } else {
        chaos_fail(e, what, err);
    }
    strata_free(err);
}

static void act_move(chaos_monkey *m, chaos_event *e)
{
    const chaos_region *r = random_region(m);
    char dest[CHAOS_SERVER_MAX], *err = NULL;
    if (!r || !pick_dest(m, r->server, dest, sizeof(dest))) {
        e->skipped = true;
        snprintf(e->detail, sizeof(e->detail), "no open region, or no other live server");
        return;
    }
    snprintf(e->target, sizeof(e->target), "%s", r->name);
    snprintf(e->server, sizeof(e->server), "%s", r->server);
    e->t_start = clock_mono_ns();
    char *to = strata_admin_move(m->admin, r->name, dest, &err);
    if (err) {
        admin_failed(e, "move", err);
    } else {
        snprintf(e->detail, sizeof(e->detail), "to %s", to && to[0] ? to : dest);
        recover(m, e, NULL, 0);
    }
    strata_free(to);
}

static void act_region_call(chaos_monkey *m, chaos_event *e, chaos_kind kind)
{
    const chaos_region *r = random_region(m);
    char *err = NULL;
    if (!r) {
        e->skipped = true;
        snprintf(e->detail, sizeof(e->detail), "no open region");
        return;
    }
    snprintf(e->target, sizeof(e->target), "%s", r->name);
    snprintf(e->server, sizeof(e->server), "%s", r->server);
    e->t_start = clock_mono_ns();
    if (kind == CHAOS_FLUSH)
        strata_admin_flush_region(m->admin, r->name, &err);
    else
        strata_admin_compact_region(m->admin, r->name, 1, &err);
    if (err)
        admin_failed(e, chaos_kind_name(kind), err);
    else
        e->t_recovered = clock_mono_ns();
}

static void act_balance(chaos_monkey *m, chaos_event *e)
{
    char *err = NULL;
    unsigned char ran = 0;
    snprintf(e->target, sizeof(e->target), "cluster");
    e->t_start = clock_mono_ns();
    char *text = strata_admin_balance(m->admin, STRATA_BALANCE_FORCE, &ran, &err);
    if (err) {
        admin_failed(e, "balance", err);
    } else {
        const char *nl = text ? strchr(text, '\n') : NULL;
        snprintf(e->detail, sizeof(e->detail), "ran %s: %.*s", ran ? "true" : "false",
                 nl ? (int)(nl - text) : 200, text ? text : "");
        recover(m, e, NULL, 0);
    }
    strata_free(text);
}

static void act_split(chaos_monkey *m, chaos_event *e)
{
    char *err = NULL;
    for (int t = 0; t < PICK_TRIES; t++) {
        const chaos_region *r = random_region(m);
        if (!r)
            break;
        snprintf(e->target, sizeof(e->target), "%s", r->name);
        strata_free(err);
        err = NULL;
        e->t_start = clock_mono_ns();
        strata_admin_split_region(m->admin, r->name, NULL, 0, &err);
        if (!err || strata_error_code(err) != STRATA_ERR_INVALID_ARGUMENT)
            break;
    }
    if (!e->t_start) {
        e->skipped = true;
        snprintf(e->detail, sizeof(e->detail), "no open region");
    } else if (err) {
        admin_failed(e, "split", err);
        err = NULL;
    } else {
        recover(m, e, NULL, 0);
    }
    strata_free(err);
}

static void act_merge(chaos_monkey *m, chaos_event *e)
{
    const chaos_snapshot *s = &m->snap;
    char *err = NULL;
    for (int t = 0; t < PICK_TRIES && s->n >= 2; t++) {
        size_t i = (size_t)(chaos_rand(m) % (s->n - 1));
        if (strcmp(s->r[i].table, s->r[i + 1].table) != 0)
            continue;
        const char *names[2] = {s->r[i].name, s->r[i + 1].name};
        snprintf(e->target, sizeof(e->target), "%.40s+%.40s", names[0], names[1]);
        strata_free(err);
        err = NULL;
        e->t_start = clock_mono_ns();
        char *merged = strata_admin_merge_regions(m->admin, names, 2, 0, &err);
        if (merged)
            snprintf(e->detail, sizeof(e->detail), "merged into %s", merged);
        strata_free(merged);
        if (!err || strata_error_code(err) != STRATA_ERR_INVALID_ARGUMENT)
            break;
    }
    if (!e->t_start) {
        e->skipped = true;
        snprintf(e->detail, sizeof(e->detail), "no two adjacent regions of one table");
    } else if (err) {
        admin_failed(e, "merge", err);
        err = NULL;
    } else {
        recover(m, e, NULL, 0);
    }
    strata_free(err);
}

static void act_rolling_restart(chaos_monkey *m, chaos_event *e)
{
    int done = 0;
    snprintf(e->target, sizeof(e->target), "every region server");
    e->t_start = clock_mono_ns();
    for (size_t i = 0; i < chaos_backend_count(m->b) && !e->failed; i++) {
        chaos_proc *p = chaos_backend_proc(m->b, i);
        if (p->role != CHAOS_ROLE_RS || p->down)
            continue;
        if (chaos_backend_start(m->b, p, 0) != ST_OK) { /* SIGTERM, then start again */
            chaos_fail(e, p->name, st_errmsg());
            break;
        }
        done++;
        uint64_t when = 0;
        if (!chaos_wait_recovered(m, NULL, 0, deadline_of(m, clock_mono_ns()), &when))
            chaos_fail(e, "recovery", "regions not open again after a restart");
        if (atomic_load(&m->stop))
            break;
    }
    if (!e->failed) {
        e->t_recovered = clock_mono_ns();
        snprintf(e->detail, sizeof(e->detail), "%d region server(s) restarted one by one", done);
    }
}

/* ---- combined faults ---- */

static void join_bg(chaos_event *e, bg_call *c, const char *what)
{
    pthread_join(c->thread, NULL);
    size_t len = strlen(e->detail);
    snprintf(e->detail + len, sizeof(e->detail) - len, "; the %s %s%.150s", what,
             c->error[0] ? "failed: " : "succeeded", c->error);
}

/* Polls the region's state as fast as the master answers until the move is seen under
 * way (the region not OPEN where it was, or OPENING on its destination), the move call
 * returned, or 3 s passed. What was seen, for the log. */
static const char *await_transition(chaos_monkey *m, const chaos_region *r, bg_call *c, bool source)
{
    uint64_t deadline = clock_mono_ns() + 3000ull * 1000000ull;
    while (!atomic_load(&c->done) && clock_mono_ns() < deadline) {
        char *err = NULL;
        strata_region_list_t *l = strata_admin_table_regions(m->poll, r->table, &err);
        strata_free(err);
        for (size_t i = 0; l && i < strata_region_list_count(l); i++) {
            const strata_region_t *x = strata_region_list_get(l, i);
            if (strcmp(strata_region_encoded_name(x), r->name) != 0)
                continue;
            strata_region_state st = strata_region_state_of(x);
            const char *srv = strata_region_server(x);
            bool moving = source ? st != STRATA_REGION_OPEN || (srv && strcmp(srv, r->server) != 0)
                                 : st == STRATA_REGION_OPENING;
            if (moving) {
                strata_region_list_destroy(l);
                return strata_region_state_name(st);
            }
        }
        strata_region_list_destroy(l);
        clock_sleep_ms(1); /* a master that fails fast is not hammered */
    }
    return atomic_load(&c->done) ? "after the move returned" : "the move not yet seen";
}

static void act_kill_move(chaos_monkey *m, chaos_event *e, bool source)
{
    const chaos_region *r = random_region(m);
    bg_call c;
    memset(&c, 0, sizeof(c));
    c.m = m;
    c.op = BG_MOVE;
    if (!r || !pick_dest(m, r->server, c.dest, sizeof(c.dest))) {
        e->skipped = true;
        snprintf(e->detail, sizeof(e->detail), "no open region, or no other live server");
        return;
    }
    chaos_region rv = *r;
    snprintf(c.region, sizeof(c.region), "%s", rv.name);
    const char *victim = source ? rv.server : c.dest;
    chaos_proc *p = chaos_backend_rs_of(m->b, victim);
    if (!p || p->down) {
        e->skipped = true;
        snprintf(e->detail, sizeof(e->detail), "%s is none of the known running servers", victim);
        return;
    }
    snprintf(e->server, sizeof(e->server), "%s", victim);
    snprintf(e->target, sizeof(e->target), "%.40s %s %.20s", rv.name, source ? "from" : "to",
             p->name);
    e->kills = true;
    if (!bg_start(&c)) {
        chaos_fail(e, "move", "no thread");
        return;
    }
    const char *seen = await_transition(m, &rv, &c, source);
    e->t_start = clock_mono_ns();
    if (chaos_backend_signal(m->b, p, SIGKILL) != ST_OK)
        chaos_fail(e, p->name, st_errmsg());
    snprintf(e->detail, sizeof(e->detail), "killed with the region %s", seen);
    if (!e->failed)
        recover(m, e, &e->server, 1);
    join_bg(e, &c, "move");
}

static void act_kill_during(chaos_monkey *m, chaos_event *e, bg_op op)
{
    const chaos_region *r = random_region(m);
    if (!r) {
        e->skipped = true;
        snprintf(e->detail, sizeof(e->detail), "no open region");
        return;
    }
    chaos_proc *p = chaos_backend_rs_of(m->b, r->server);
    if (!p || p->down) {
        e->skipped = true;
        snprintf(e->detail, sizeof(e->detail), "%s is none of the known running servers",
                 r->server);
        return;
    }
    bg_call c;
    memset(&c, 0, sizeof(c));
    c.m = m;
    c.op = op;
    snprintf(c.region, sizeof(c.region), "%s", r->name);
    snprintf(e->server, sizeof(e->server), "%s", r->server);
    snprintf(e->target, sizeof(e->target), "%.40s on %.20s", r->name, p->name);
    e->kills = true;
    if (!bg_start(&c)) {
        chaos_fail(e, "call", "no thread");
        return;
    }
    /* A flush returns when it is done: the kill follows the request at once. A major
     * compaction is queued and runs after the call returned. */
    int delay = (int)(chaos_rand(m) % (op == BG_FLUSH ? 3 : 50));
    clock_sleep_ms(delay);
    e->t_start = clock_mono_ns();
    bool before = atomic_load(&c.done);
    if (chaos_backend_signal(m->b, p, SIGKILL) != ST_OK)
        chaos_fail(e, p->name, st_errmsg());
    snprintf(e->detail, sizeof(e->detail), "killed %d ms after the %s was asked (%s)", delay,
             op == BG_FLUSH ? "flush" : "compaction",
             before ? "the call had returned" : "the call under way");
    if (!e->failed)
        recover(m, e, &e->server, 1);
    join_bg(e, &c, op == BG_FLUSH ? "flush" : "compaction");
}

static void act_kill_rs_then_master(chaos_monkey *m, chaos_event *e)
{
    if (!kill_holder(m, e))
        return;
    int delay = m->o.master_delay_ms > 0 ? m->o.master_delay_ms : 2000;
    chaos_sleep_ms(m, delay);
    uint64_t t0 = e->t_start;
    char server[CHAOS_SERVER_MAX];
    snprintf(server, sizeof(server), "%s", e->server);
    kill_master(m, e, clock_mono_ns());
    size_t len = strlen(e->detail);
    snprintf(e->detail + len, sizeof(e->detail) - len, "; the active master killed %d ms later",
             delay);
    e->t_start = t0;
    if (!e->failed)
        recover(m, e, &server, 1);
}

static void act_kill_all_rs(chaos_monkey *m, chaos_event *e)
{
    char ex[CHAOS_MAX_PROCS][CHAOS_SERVER_MAX];
    size_t nex = 0;
    for (size_t i = 0; i < m->snap.nlive && nex < CHAOS_MAX_PROCS; i++)
        snprintf(ex[nex++], sizeof(ex[0]), "%s", m->snap.live[i]);
    int killed = 0;
    e->kills = true;
    snprintf(e->target, sizeof(e->target), "every region server");
    e->t_start = clock_mono_ns();
    for (size_t i = 0; i < chaos_backend_count(m->b); i++) {
        chaos_proc *p = chaos_backend_proc(m->b, i);
        if (p->role == CHAOS_ROLE_RS && !p->down && chaos_backend_signal(m->b, p, SIGKILL) == ST_OK)
            killed++;
    }
    snprintf(e->detail, sizeof(e->detail), "%d region server(s) killed at once, then started",
             killed);
    chaos_sleep_ms(m, 1000);
    for (size_t i = 0; i < chaos_backend_count(m->b); i++) {
        chaos_proc *p = chaos_backend_proc(m->b, i);
        if (p->role == CHAOS_ROLE_RS && p->down && chaos_backend_start(m->b, p, 0) != ST_OK)
            chaos_fail(e, p->name, st_errmsg());
    }
    if (!e->failed)
        recover(m, e, ex, nex);
}

/* ---- partitions ---- */

/* The value of an unlabelled sample in http://host:port/metrics, or -1. */
static double metric_of(const char *host, int port, const char *name)
{
    struct sockaddr_storage ss;
    socklen_t len = 0;
    if (port <= 0 || net_resolve(host, port, &ss, &len) != ST_OK)
        return -1;
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct timeval tv = {3, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    char req[256];
    int n = snprintf(req, sizeof(req), "GET /metrics HTTP/1.0\r\nHost: %s\r\n\r\n", host);
    double v = -1;
    if (connect(fd, (struct sockaddr *)&ss, len) == 0 && write(fd, req, (size_t)n) == n) {
        size_t cap = 1 << 20, got = 0;
        char *buf = malloc(cap + 1);
        ssize_t r;
        while (buf && got < cap && (r = read(fd, buf + got, cap - got)) > 0)
            got += (size_t)r;
        if (buf) {
            buf[got] = '\0';
            char pat[128];
            snprintf(pat, sizeof(pat), "\n%s ", name);
            const char *p = strstr(buf, pat);
            if (p)
                v = strtod(p + strlen(pat), NULL);
        }
        free(buf);
    }
    close(fd);
    return v;
}

/* The http port the master's status gives the server instance, or 0. */
static int http_port_of(const chaos_snapshot *s, const char *server)
{
    for (size_t i = 0; s->status && i < strata_cluster_status_live_server_count(s->status); i++) {
        const strata_server_load_t *l = strata_cluster_status_live_server(s->status, i);
        if (strcmp(strata_server_load_name(l), server) == 0)
            return (int)strata_server_load_http_port(l);
    }
    return 0;
}

/* Refused by the backend: the action is skipped (nothing was done); true if it did not
 * happen. */
static bool net_refused(chaos_event *e, int rc, const char *verb)
{
    if (rc == ST_OK)
        return false;
    if (rc == ST_UNSUPPORTED) {
        e->skipped = true;
        e->t_start = 0;
        snprintf(e->detail, sizeof(e->detail), "%.280s", st_errmsg());
    } else {
        chaos_fail(e, verb, st_errmsg());
    }
    return true;
}

/* Waits until p exited (true) or timeout_ms passed. */
static bool wait_exit(chaos_monkey *m, chaos_proc *p, int timeout_ms)
{
    uint64_t deadline = clock_mono_ns() + (uint64_t)timeout_ms * 1000000ull;
    while (clock_mono_ns() < deadline) {
        if (!chaos_backend_alive(m->b, p))
            return true;
        clock_sleep_ms(200);
    }
    return !chaos_backend_alive(m->b, p);
}

static void act_partition_rs(chaos_monkey *m, chaos_event *e)
{
    chaos_proc *p = chaos_pick_holder(m, e->server, sizeof(e->server));
    if (!p) {
        e->skipped = true;
        snprintf(e->detail, sizeof(e->detail), "no running region server holds a region");
        return;
    }
    int http = http_port_of(&m->snap, e->server);
    size_t n = regions_on(&m->snap, e->server);
    snprintf(e->target, sizeof(e->target), "%s", p->name);
    e->kills = true;
    e->t_start = clock_mono_ns();
    if (net_refused(e, chaos_backend_net(m->b, p, "cut-zk"), "cut-zk"))
        return;
    recover(m, e, &e->server, 1);
    int64_t reopened_ms = clock_now_ms();
    /* The zombie: still reachable by clients, it must have stopped acknowledging writes
     * before its regions reopened elsewhere, and acknowledge none afterwards. */
    double last1 = e->t_recovered ? metric_of(p->host, http, "last_write_acknowledged_time") : -1;
    chaos_sleep_ms(m, 2000);
    double last2 = e->t_recovered ? metric_of(p->host, http, "last_write_acknowledged_time") : -1;
    double last = last2 >= 0 ? last2 : last1;
    if (e->t_recovered && last > (double)reopened_ms)
        chaos_fail(e, "zombie", "it acknowledged a write after its regions reopened elsewhere");
    int st = chaos_backend_session_timeout_ms(m->b);
    if (chaos_backend_net(m->b, p, "heal") != ST_OK)
        chaos_fail(e, "heal", st_errmsg());
    if (!wait_exit(m, p, st + 10000))
        chaos_fail(e, "zombie", "it still runs after the heal, with its session expired");
    p->down = true;
    if (e->failed)
        return;
    if (last < 0)
        snprintf(e->detail, sizeof(e->detail),
                 "%zu region(s); its last acknowledged write unknown (no metrics); exited after "
                 "the heal",
                 n);
    else if (last == 0)
        snprintf(e->detail, sizeof(e->detail),
                 "%zu region(s); it never acknowledged a write; exited after the heal", n);
    else
        snprintf(e->detail, sizeof(e->detail),
                 "%zu region(s); its last acknowledged write %.0f ms before they reopened "
                 "elsewhere; exited after the heal",
                 n, (double)reopened_ms - last);
}

static void act_partition_master(chaos_monkey *m, chaos_event *e)
{
    char old[CHAOS_SERVER_MAX];
    chaos_proc *p = active_master(m, old, sizeof(old));
    if (!p) {
        chaos_fail(e, "partition-master", "no active master found");
        return;
    }
    snprintf(e->target, sizeof(e->target), "%s", p->name);
    snprintf(e->server, sizeof(e->server), "%s", old);
    e->kills = true;
    e->t_start = clock_mono_ns();
    if (net_refused(e, chaos_backend_net(m->b, p, "cut"), "cut"))
        return;
    uint64_t when = 0;
    if (!wait_new_master(m, old, deadline_of(m, e->t_start), &when))
        chaos_fail(e, "recovery", "no other master became active in time");
    else
        recover(m, e, NULL, 0);
    if (chaos_backend_net(m->b, p, "heal") != ST_OK)
        chaos_fail(e, "heal", st_errmsg());
    /* Healed, the old master finds its session gone: it exits (or waits as a backup);
     * either way the new one stays the only active master. */
    bool exited = wait_exit(m, p, chaos_backend_session_timeout_ms(m->b) + 10000);
    chaos_take_snapshot(m);
    const char *am =
        m->snap.ok && m->snap.status ? strata_cluster_status_active_master(m->snap.status) : NULL;
    if (!am || strcmp(am, old) == 0)
        chaos_fail(e, "after the heal", "the old master is active again, or none is");
    if (!e->failed)
        snprintf(e->detail, sizeof(e->detail), "the old master %s after the heal",
                 exited ? "exited" : "stayed, not active");
    if (exited)
        p->down = true;
}

/* ---- dispatch ---- */

void chaos_action_run(chaos_monkey *m, chaos_kind kind, chaos_event *e)
{
    e->kind = kind;
    e->wall_ms = clock_now_ms();
    chaos_take_snapshot(m);
    chaos_backend_list(m->b, m->snap.status);
    if (!chaos_action_possible(m, kind)) {
        e->skipped = true;
        snprintf(e->detail, sizeof(e->detail), "the cluster lacks what %s needs",
                 chaos_kind_name(kind));
        return;
    }
    switch (kind) {
    case CHAOS_KILL_RS:
        act_kill_rs(m, e);
        break;
    case CHAOS_KILL_MASTER:
        act_kill_master(m, e);
        break;
    case CHAOS_RESTART_BACKUP_MASTER:
        act_restart_backup(m, e);
        break;
    case CHAOS_PAUSE_RS:
        act_pause_rs(m, e);
        break;
    case CHAOS_RESTART_ZK:
        act_restart_zk(m, e);
        break;
    case CHAOS_MOVE:
        act_move(m, e);
        break;
    case CHAOS_FLUSH:
    case CHAOS_COMPACT:
        act_region_call(m, e, kind);
        break;
    case CHAOS_BALANCE:
        act_balance(m, e);
        break;
    case CHAOS_SPLIT:
        act_split(m, e);
        break;
    case CHAOS_MERGE:
        act_merge(m, e);
        break;
    case CHAOS_ROLLING_RESTART:
        act_rolling_restart(m, e);
        break;
    case CHAOS_KILL_MOVE_SOURCE:
    case CHAOS_KILL_MOVE_DEST:
        act_kill_move(m, e, kind == CHAOS_KILL_MOVE_SOURCE);
        break;
    case CHAOS_KILL_DURING_FLUSH:
        act_kill_during(m, e, BG_FLUSH);
        break;
    case CHAOS_KILL_DURING_COMPACT:
        act_kill_during(m, e, BG_COMPACT);
        break;
    case CHAOS_KILL_RS_THEN_MASTER:
        act_kill_rs_then_master(m, e);
        break;
    case CHAOS_PARTITION_RS_ZK:
        act_partition_rs(m, e);
        break;
    case CHAOS_PARTITION_MASTER:
        act_partition_master(m, e);
        break;
    default:
        act_kill_all_rs(m, e);
        break;
    }
}
