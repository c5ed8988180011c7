/*
 * test_master_assign.c - the master's region state machine (master_assign.c) and the
 * chore's repair and reconcile (master_chore.c) against a fake cluster
 * (tests/support/master_fake.h) with a real meta table: a region is OPENING in meta when
 * OpenRegion reaches the server and OPEN after; a refused open leaves FAILED_OPEN and goes
 * to the next server; every server refusing leaves FAILED_OPEN, which the chore retries
 * only after master.failed.open.retry.ms; a lost answer (opened, then the call timed out)
 * ends OPEN on that server through its ownership znode, while a call that failed before
 * opening goes on to another server, as does one to an unreachable server; unassign writes
 * CLOSING then CLOSED, also when the server no longer has the region; a region on a server
 * that is not live is neither opened nor closed (left to recovery); master_repair by a new
 * master resumes an OPENING on the same live server (also when the open had gone through)
 * and finishes a CLOSING; a lapsed ZooKeeper lease refuses meta writes with ST_NOT_SERVING
 * and sends no RPC; the reconcile closes in meta a region a heartbeat does not list (only
 * after master.reconcile.grace.ms) and adopts one a server reports that meta places
 * nowhere.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/fileio.h"
#include "common/status.h"
#include "master/master_internal.h"
#include "meta/meta.h"
#include "regionserver/storage/layout.h"
#include "tests/support/master_fake.h"
#include "tests/support/testutil.h"

#define OPEN_RPC "AdminService.OpenRegion"
#define CLOSE_RPC "AdminService.CloseRegion"
#define INFO_RPC "AdminService.GetRegionInfo"

/* What the hook saw in meta when an RPC naming a region arrived. */
typedef struct sighting {
    char server[SERVER_NAME_MAX]; /* the server called */
    char method[64];
    char encoded[64];
    bool found;                 /* the region had a meta row */
    meta_region_state state;    /* its state then */
    char placed[SERVER_NAME_MAX]; /* its server then */
    int failures;
} sighting;

typedef struct fx {
    char *root;
    mfake *f;
    master *m;
    char s1[SERVER_NAME_MAX], s2[SERVER_NAME_MAX], s3[SERVER_NAME_MAX];
    char enc[64]; /* the one region of default:t */
    pthread_mutex_t mu;
    sighting seen[32];
    size_t nseen;
} fx;

static void hook(void *arg, const mfake_event *ev)
{
    fx *x = arg;
    if (ev->kind != MFAKE_EV_RPC || !ev->encoded[0])
        return;
    sighting s = {0};
    snprintf(s.server, sizeof(s.server), "%s", ev->server);
    snprintf(s.method, sizeof(s.method), "%s", ev->method);
    snprintf(s.encoded, sizeof(s.encoded), "%s", ev->encoded);
    meta_region row;
    if (mfake_meta_row(x->m, ev->encoded, &row) == ST_OK) {
        s.found = true;
        s.state = row.state;
        snprintf(s.placed, sizeof(s.placed), "%s", row.server);
        s.failures = row.failures;
        meta_region_clear(&row);
    }
    pthread_mutex_lock(&x->mu);
    if (x->nseen < sizeof(x->seen) / sizeof(x->seen[0]))
        x->seen[x->nseen++] = s;
    pthread_mutex_unlock(&x->mu);
}

static void start_master(fx *x)
{
    assert_int_equal(mfake_master_start(x->f, x->root, 0, NULL, &x->m), ST_OK);
}

/* A master with one enabled table default:t whose one region is CLOSED (created before any
 * server registered), then three servers that answered GetServerLoad; the log is empty. */
static int setup(void **state)
{
    fx *x = calloc(1, sizeof(*x));
    pthread_mutex_init(&x->mu, NULL);
    x->root = tu_tempdir("massign");
    x->f = mfake_new();
    start_master(x);
    assert_int_equal(mfake_create_table(x->m, "t", "f", NULL, 0), ST_OK);
    assert_true(mfake_region_name(x->m, "t", 0, x->enc));
    uint64_t sc = (uint64_t)clock_now_ms();
    mfake_server_add(x->f, "rs1.unit", 17021, sc, x->s1);
    mfake_server_add(x->f, "rs2.unit", 17022, sc, x->s2);
    mfake_server_add(x->f, "rs3.unit", 17023, sc, x->s3);
    master_servers_sync(x->m);
    mfake_clear_calls(x->f);
    mfake_set_hook(x->f, hook, x);
    *state = x;
    return 0;
}

static int teardown(void **state)
{
    fx *x = *state;
    master_free(x->m);
    mfake_free(x->f);
    tu_rmdir(x->root);
    pthread_mutex_destroy(&x->mu);
    free(x);
    return 0;
}

/* The first master goes (as at a failover) and a new one loads the same meta. */
static void restart_master(fx *x)
{
    mfake_set_hook(x->f, NULL, NULL);
    master_free(x->m);
    x->m = NULL;
    start_master(x);
    mfake_clear_calls(x->f);
    mfake_set_hook(x->f, hook, x);
}

static m_region *take(fx *x, m_table **t)
{
    m_region *r = NULL;
    assert_int_equal(master_region_take(x->m, x->enc, &r, t), ST_OK);
    return r;
}

/* Opens the region on server (through the state machine) and forgets the calls. */
static void open_on(fx *x, const char *server)
{
    m_table *t = NULL;
    m_region *r = take(x, &t);
    assert_int_equal(master_assign(x->m, t, r, server), ST_OK);
    master_region_give(x->m, r);
    assert_true(mfake_server_has(x->f, server, x->enc));
    mfake_clear_calls(x->f);
    pthread_mutex_lock(&x->mu);
    x->nseen = 0;
    pthread_mutex_unlock(&x->mu);
}

/* Asserts the meta row of the region. */
static void assert_meta(fx *x, meta_region_state st, const char *server)
{
    meta_region row;
    assert_int_equal(mfake_meta_row(x->m, x->enc, &row), ST_OK);
    assert_string_equal(meta_region_state_name(row.state), meta_region_state_name(st));
    assert_string_equal(row.server, server);
    meta_region_clear(&row);
}

static int meta_failures(fx *x)
{
    meta_region row;
    assert_int_equal(mfake_meta_row(x->m, x->enc, &row), ST_OK);
    int n = row.failures;
    meta_region_clear(&row);
    return n;
}

/* The server named in the region's ownership znode ("" if there is none). */
static void owner_node(fx *x, char *out, size_t cap)
{
    char *path = mfake_path(ZNODE_REGION_OWNER, x->enc);
    size_t len = 0;
    char *data = mfake_zk_data(x->f, path, &len);
    out[0] = 0;
    if (data) {
        Strata__Master__RegionOwner *o =
            strata__master__region_owner__unpack(NULL, len, (const uint8_t *)data);
        assert_non_null(o);
        server_name_format_proto(o->server, out, cap);
        strata__master__region_owner__free_unpacked(o, NULL);
    }
    free(data);
    free(path);
}

static bool pending_recovery(fx *x, const char *server)
{
    pthread_mutex_lock(&x->m->mu);
    bool yes = master_crash_pending(x->m, server);
    pthread_mutex_unlock(&x->m->mu);
    return yes;
}

/* ---------------------------------------------------------------- assign */

static void assign_writes_opening_before_open_rpc_and_open_after(void **state)
{
    fx *x = *state;
    assert_meta(x, META_CLOSED, "");
    m_table *t = NULL;
    m_region *r = take(x, &t);
    assert_int_equal(master_assign(x->m, t, r, x->s2), ST_OK);
    master_region_give(x->m, r);

    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 1);
    assert_int_equal(x->nseen, 1);
    assert_string_equal(x->seen[0].server, x->s2);
    assert_true(x->seen[0].found);
    assert_int_equal(x->seen[0].state, META_OPENING);
    assert_string_equal(x->seen[0].placed, x->s2);
    assert_meta(x, META_OPEN, x->s2);
    assert_int_equal(r->mr.state, META_OPEN);
    assert_string_equal(r->mr.server, x->s2);
    assert_true(mfake_server_has(x->f, x->s2, x->enc));
    char owner[SERVER_NAME_MAX];
    owner_node(x, owner, sizeof(owner));
    assert_string_equal(owner, x->s2);
}

static void fault_refused_open_leaves_failed_open_and_tries_next_server(void **state)
{
    fx *x = *state;
    mfake_server_refuse_open(x->f, x->s1, 1);
    m_table *t = NULL;
    m_region *r = take(x, &t);
    assert_int_equal(master_assign(x->m, t, r, x->s1), ST_OK);
    master_region_give(x->m, r);

    assert_int_equal(x->nseen, 2);
    /* First try: OPENING on s1, refused. */
    assert_string_equal(x->seen[0].server, x->s1);
    assert_int_equal(x->seen[0].state, META_OPENING);
    assert_string_equal(x->seen[0].placed, x->s1);
    assert_int_equal(x->seen[0].failures, 0);
    /* Second try: another server, after a FAILED_OPEN was recorded. */
    assert_string_not_equal(x->seen[1].server, x->s1);
    assert_int_equal(x->seen[1].state, META_OPENING);
    assert_string_equal(x->seen[1].placed, x->seen[1].server);
    assert_int_equal(x->seen[1].failures, 1);
    assert_meta(x, META_OPEN, x->seen[1].server);
    assert_int_equal(meta_failures(x), 0);
    assert_false(mfake_server_has(x->f, x->s1, x->enc));
    assert_true(mfake_server_has(x->f, x->seen[1].server, x->enc));
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 2);
}

static void fault_every_server_refusing_leaves_failed_open_retried_after_delay(void **state)
{
    fx *x = *state;
    x->m->failed_open_retry_ms = 700;
    mfake_server_refuse_open(x->f, x->s1, -1);
    mfake_server_refuse_open(x->f, x->s2, -1);
    mfake_server_refuse_open(x->f, x->s3, -1);
    m_table *t = NULL;
    m_region *r = take(x, &t);
    int64_t t0 = clock_now_ms();
    assert_int_not_equal(master_assign(x->m, t, r, NULL), ST_OK);
    master_region_give(x->m, r);
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 3); /* master.assign.attempts */
    assert_meta(x, META_FAILED_OPEN, "");
    assert_int_equal(meta_failures(x), 3);

    /* Before the retry delay the chore leaves it alone, even once servers would take it. */
    mfake_server_refuse_open(x->f, x->s1, 0);
    mfake_server_refuse_open(x->f, x->s2, 0);
    mfake_server_refuse_open(x->f, x->s3, 0);
    master_chore_pass(x->m, false);
    r = take(x, &t);
    assert_int_equal(master_repair(x->m, t, r), ST_OK); /* nor does a repair of its own */
    master_region_give(x->m, r);
    if (clock_now_ms() - t0 < 650) /* the pass ran before the delay could end */
        assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 3);
    assert_meta(x, META_FAILED_OPEN, "");

    clock_sleep_ms(750);
    master_chore_pass(x->m, false);
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 4);
    assert_int_equal(r->mr.state, META_OPEN);
    assert_meta(x, META_OPEN, r->mr.server);
    assert_int_equal(meta_failures(x), 0);
    assert_true(mfake_server_has(x->f, r->mr.server, x->enc));
}

static void fault_lost_answer_ends_open_on_that_server_not_a_second(void **state)
{
    fx *x = *state;
    /* s1 opens the region, then the answer is lost. */
    mfake_server_fail(x->f, x->s1, OPEN_RPC, ST_TIMEOUT, 1, true);
    m_table *t = NULL;
    m_region *r = take(x, &t);
    assert_int_equal(master_assign(x->m, t, r, x->s1), ST_OK);
    master_region_give(x->m, r);

    assert_meta(x, META_OPEN, x->s1);
    assert_int_equal(meta_failures(x), 0);
    assert_int_equal(mfake_count(x->f, x->s1, OPEN_RPC, x->enc), 2);
    assert_int_equal(mfake_count(x->f, x->s2, NULL, NULL), 0);
    assert_int_equal(mfake_count(x->f, x->s3, NULL, NULL), 0);
    assert_true(mfake_server_has(x->f, x->s1, x->enc));
    char owner[SERVER_NAME_MAX];
    owner_node(x, owner, sizeof(owner));
    assert_string_equal(owner, x->s1);
}

static void fault_timeout_before_open_goes_to_another_server(void **state)
{
    fx *x = *state;
    /* The call times out before s1 did anything: no ownership znode, so not open there. */
    mfake_server_fail(x->f, x->s1, OPEN_RPC, ST_TIMEOUT, 1, false);
    m_table *t = NULL;
    m_region *r = take(x, &t);
    assert_int_equal(master_assign(x->m, t, r, x->s1), ST_OK);
    master_region_give(x->m, r);

    assert_int_equal(mfake_count(x->f, x->s1, OPEN_RPC, x->enc), 1);
    assert_string_not_equal(r->mr.server, x->s1);
    assert_meta(x, META_OPEN, r->mr.server);
    assert_false(mfake_server_has(x->f, x->s1, x->enc));
    assert_true(mfake_server_has(x->f, r->mr.server, x->enc));
}

static void fault_unreachable_server_open_goes_to_another_server(void **state)
{
    fx *x = *state;
    mfake_server_set_unreachable(x->f, x->s1, true);
    m_table *t = NULL;
    m_region *r = take(x, &t);
    assert_int_equal(master_assign(x->m, t, r, x->s1), ST_OK);
    master_region_give(x->m, r);

    assert_int_equal(mfake_count(x->f, x->s1, OPEN_RPC, x->enc), 1);
    assert_string_not_equal(r->mr.server, x->s1);
    assert_meta(x, META_OPEN, r->mr.server);
    assert_int_equal(mfake_count(x->f, r->mr.server, OPEN_RPC, x->enc), 1);
}

/* Regression: after an OpenRegion whose answer was lost, the ownership znode is asked
 * whether the region opened; when the server died meanwhile (its session expired, the
 * znode went with it) before the master saw its rs znode go, the region was marked
 * FAILED_OPEN and opened on another server at once, before the dead server's WAL (which may
 * hold edits the region took there) was split. It stays OPENING there for the recovery. */
static void crash_lost_answer_of_server_that_died_waits_for_its_recovery(void **state)
{
    fx *x = *state;
    char *wal_dir = layout_wal_dir(x->root, x->s1);
    assert_int_equal(fio_mkdirs(wal_dir), ST_OK);
    mfake_server_crash_after(x->f, x->s1, OPEN_RPC);
    m_table *t = NULL;
    m_region *r = take(x, &t);
    master_assign(x->m, t, r, x->s1);
    master_region_give(x->m, r);
    /* s1's WAL is not split yet: no other server may have opened the region. */
    assert_true(fio_exists(wal_dir));
    assert_int_equal(mfake_count(x->f, x->s2, OPEN_RPC, x->enc) +
                         mfake_count(x->f, x->s3, OPEN_RPC, x->enc),
                     0);
    assert_meta(x, META_OPENING, x->s1);

    master_servers_sync(x->m);
    master_chore_pass(x->m, false);
    assert_false(fio_exists(wal_dir));
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, x->enc), 2);
    r = take(x, NULL);
    assert_string_not_equal(r->mr.server, x->s1);
    master_region_give(x->m, r);
    assert_meta(x, META_OPEN, r->mr.server);
    free(wal_dir);
}

/* ---------------------------------------------------------------- unassign */

static void unassign_writes_closing_then_closed(void **state)
{
    fx *x = *state;
    open_on(x, x->s1);
    m_region *r = take(x, NULL);
    assert_int_equal(master_unassign(x->m, r), ST_OK);
    master_region_give(x->m, r);

    assert_int_equal(x->nseen, 1);
    assert_string_equal(x->seen[0].method, CLOSE_RPC);
    assert_string_equal(x->seen[0].server, x->s1);
    assert_int_equal(x->seen[0].state, META_CLOSING);
    assert_string_equal(x->seen[0].placed, x->s1);
    assert_meta(x, META_CLOSED, "");
    assert_false(mfake_server_has(x->f, x->s1, x->enc));
    char owner[SERVER_NAME_MAX];
    owner_node(x, owner, sizeof(owner));
    assert_string_equal(owner, "");
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 0);
}

static void unassign_of_region_not_online_there_still_ends_closed(void **state)
{
    fx *x = *state;
    open_on(x, x->s1);
    mfake_server_drop_region(x->f, x->s1, x->enc);
    m_region *r = take(x, NULL);
    assert_int_equal(master_unassign(x->m, r), ST_OK);
    master_region_give(x->m, r);
    assert_int_equal(mfake_count(x->f, x->s1, CLOSE_RPC, x->enc), 1);
    assert_meta(x, META_CLOSED, "");
}

static void region_on_server_not_live_is_left_to_recovery(void **state)
{
    fx *x = *state;
    const char *ghost = "ghost.unit,17029,5";
    m_table *t = NULL;
    m_region *r = take(x, &t);
    assert_int_equal(master_set_state(x->m, r, META_OPEN, ghost), ST_OK);
    assert_int_equal(master_assign(x->m, t, r, NULL), ST_NOT_SERVING);
    assert_int_equal(master_assign(x->m, t, r, x->s1), ST_NOT_SERVING);
    assert_int_equal(master_unassign(x->m, r), ST_NOT_SERVING);
    assert_false(pending_recovery(x, ghost));
    assert_int_equal(master_repair(x->m, t, r), ST_OK);
    master_region_give(x->m, r);

    assert_int_equal(mfake_count(x->f, NULL, NULL, NULL), 0);
    assert_meta(x, META_OPEN, ghost);
    assert_true(pending_recovery(x, ghost)); /* the repair queued that server's recovery */
}

/* ---------------------------------------------------------------- repair after failover */

static void repair_resumes_opening_of_earlier_master_on_same_server(void **state)
{
    fx *x = *state;
    m_region *r = take(x, NULL);
    assert_int_equal(master_set_state(x->m, r, META_OPENING, x->s3), ST_OK);
    master_region_give(x->m, r);
    restart_master(x);

    m_table *t = NULL;
    r = take(x, &t);
    assert_int_equal(r->mr.state, META_OPENING);
    assert_int_equal(master_repair(x->m, t, r), ST_OK);
    master_region_give(x->m, r);
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 1);
    assert_int_equal(mfake_count(x->f, x->s3, OPEN_RPC, x->enc), 1);
    assert_meta(x, META_OPEN, x->s3);
    assert_true(mfake_server_has(x->f, x->s3, x->enc));
}

static void repair_of_opening_that_went_through_keeps_one_copy(void **state)
{
    fx *x = *state;
    m_region *r = take(x, NULL);
    assert_int_equal(master_set_state(x->m, r, META_OPENING, x->s2), ST_OK);
    master_region_give(x->m, r);
    mfake_server_take_region(x->f, x->s2, "default:t", x->enc); /* the open reached s2 */
    restart_master(x);

    m_table *t = NULL;
    r = take(x, &t);
    assert_int_equal(master_repair(x->m, t, r), ST_OK);
    master_region_give(x->m, r);
    assert_meta(x, META_OPEN, x->s2);
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 1);
    assert_int_equal(mfake_server_nopen(x->f, x->s1) + mfake_server_nopen(x->f, x->s3), 0);
    assert_true(mfake_server_has(x->f, x->s2, x->enc));
}

static void repair_finishes_closing_of_earlier_master(void **state)
{
    fx *x = *state;
    open_on(x, x->s1);
    m_region *r = take(x, NULL);
    assert_int_equal(master_set_state(x->m, r, META_CLOSING, x->s1), ST_OK);
    master_region_give(x->m, r);
    restart_master(x);

    m_table *t = NULL;
    r = take(x, &t);
    assert_int_equal(r->mr.state, META_CLOSING);
    assert_int_equal(master_repair(x->m, t, r), ST_OK);
    master_region_give(x->m, r);
    /* Closed on s1 first (CLOSING in meta then), then opened again: the table is enabled. */
    assert_int_equal(x->nseen, 2);
    assert_string_equal(x->seen[0].method, CLOSE_RPC);
    assert_string_equal(x->seen[0].server, x->s1);
    assert_int_equal(x->seen[0].state, META_CLOSING);
    assert_string_equal(x->seen[1].method, OPEN_RPC);
    assert_int_equal(x->seen[1].state, META_OPENING);
    assert_string_equal(x->seen[1].placed, x->seen[1].server);
    assert_meta(x, META_OPEN, x->seen[1].server);
    assert_int_equal(mfake_server_nopen(x->f, x->s1) + mfake_server_nopen(x->f, x->s2) +
                         mfake_server_nopen(x->f, x->s3),
                     1);
}

/* ---------------------------------------------------------------- self-fencing */

static void fenced_lapsed_lease_refuses_meta_writes_and_sends_no_rpc(void **state)
{
    fx *x = *state;
    open_on(x, x->s1);
    /* 400 ms session, fraction 0.5: writes stop 200 ms after the last answered ping. */
    mfake_zk_set_session_timeout(x->f, 400);
    mfake_zk_set_ping(x->f, ST_CONNECTION);
    clock_sleep_ms(260);

    m_table *t = NULL;
    m_region *r = take(x, &t);
    assert_int_equal(master_unassign(x->m, r), ST_NOT_SERVING);
    assert_meta(x, META_OPEN, x->s1);
    assert_int_equal(mfake_count(x->f, NULL, NULL, NULL), 0);
    assert_true(mfake_server_has(x->f, x->s1, x->enc));

    /* Neither can it move the region: nothing is written, nothing is called. */
    assert_int_equal(master_assign(x->m, t, r, x->s2), ST_NOT_SERVING);
    assert_meta(x, META_OPEN, x->s1);
    assert_int_equal(mfake_count(x->f, NULL, NULL, NULL), 0);

    /* ZooKeeper answers again: the lease is renewed and the close goes through. */
    mfake_zk_set_ping(x->f, ST_OK);
    assert_int_equal(master_unassign(x->m, r), ST_OK);
    master_region_give(x->m, r);
    assert_meta(x, META_CLOSED, "");
}

static void fenced_lapsed_lease_refuses_open_of_closed_region(void **state)
{
    fx *x = *state;
    mfake_zk_set_session_timeout(x->f, 400);
    mfake_zk_set_ping(x->f, ST_TIMEOUT);
    clock_sleep_ms(260);
    m_table *t = NULL;
    m_region *r = take(x, &t);
    assert_int_equal(master_assign(x->m, t, r, NULL), ST_NOT_SERVING);
    master_region_give(x->m, r);
    assert_int_equal(mfake_count(x->f, NULL, NULL, NULL), 0);
    assert_meta(x, META_CLOSED, "");
    assert_int_equal(r->mr.state, META_CLOSED);
    assert_string_equal(r->target, "");
}

/* ---------------------------------------------------------------- reconcile */

static void reconcile_closes_region_missing_from_heartbeat_and_reopens_it(void **state)
{
    fx *x = *state;
    open_on(x, x->s1);
    mfake_server_drop_region(x->f, x->s1, x->enc); /* s1 lost it without telling */
    clock_sleep_ms(80);                             /* past master.reconcile.grace.ms */
    assert_int_equal(mfake_report(x->f, x->m, x->s1), ST_OK);
    assert_int_equal(mfake_report(x->f, x->m, x->s2), ST_OK);
    assert_int_equal(mfake_report(x->f, x->m, x->s3), ST_OK);
    master_chore_pass(x->m, false);

    assert_int_equal(mfake_count(x->f, x->s1, INFO_RPC, x->enc), 1);
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, x->enc), 1);
    m_region *r = take(x, NULL);
    char where[SERVER_NAME_MAX];
    snprintf(where, sizeof(where), "%s", r->mr.server);
    master_region_give(x->m, r);
    assert_meta(x, META_OPEN, where);
    assert_true(mfake_server_has(x->f, where, x->enc));
}

static void reconcile_ignores_heartbeat_within_grace(void **state)
{
    fx *x = *state;
    x->m->reconcile_grace_ms = 5000;
    open_on(x, x->s1);
    mfake_server_drop_region(x->f, x->s1, x->enc);
    assert_int_equal(mfake_report(x->f, x->m, x->s1), ST_OK);
    master_chore_pass(x->m, false);
    assert_int_equal(mfake_count(x->f, NULL, INFO_RPC, NULL), 0);
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 0);
    assert_meta(x, META_OPEN, x->s1);
}

static void reconcile_adopts_region_reported_but_placed_nowhere(void **state)
{
    fx *x = *state;
    /* The region is CLOSED in meta, but s2 serves it (an open whose answer was lost). */
    mfake_server_take_region(x->f, x->s2, "default:t", x->enc);
    clock_sleep_ms(80);
    assert_int_equal(mfake_report(x->f, x->m, x->s2), ST_OK);
    master_chore_pass(x->m, false);

    assert_int_equal(mfake_count(x->f, x->s2, INFO_RPC, x->enc), 1);
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 0);
    assert_meta(x, META_OPEN, x->s2);
    assert_int_equal(mfake_server_nopen(x->f, x->s1) + mfake_server_nopen(x->f, x->s3), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(assign_writes_opening_before_open_rpc_and_open_after,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            fault_refused_open_leaves_failed_open_and_tries_next_server, setup, teardown),
        cmocka_unit_test_setup_teardown(
            fault_every_server_refusing_leaves_failed_open_retried_after_delay, setup, teardown),
        cmocka_unit_test_setup_teardown(fault_lost_answer_ends_open_on_that_server_not_a_second,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(fault_timeout_before_open_goes_to_another_server, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(fault_unreachable_server_open_goes_to_another_server,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(crash_lost_answer_of_server_that_died_waits_for_its_recovery,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(unassign_writes_closing_then_closed, setup, teardown),
        cmocka_unit_test_setup_teardown(unassign_of_region_not_online_there_still_ends_closed,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(region_on_server_not_live_is_left_to_recovery, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(repair_resumes_opening_of_earlier_master_on_same_server,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(repair_of_opening_that_went_through_keeps_one_copy, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(repair_finishes_closing_of_earlier_master, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(fenced_lapsed_lease_refuses_meta_writes_and_sends_no_rpc,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(fenced_lapsed_lease_refuses_open_of_closed_region, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            reconcile_closes_region_missing_from_heartbeat_and_reopens_it, setup, teardown),
        cmocka_unit_test_setup_teardown(reconcile_ignores_heartbeat_within_grace, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(reconcile_adopts_region_reported_but_placed_nowhere,
                                        setup, teardown),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
