/*
 * test_master_balancer.c - the balancer in the master (master/master_balancer.c,
 * docs/balancer.md) against a fake cluster (tests/support/master_fake.h) with a real
 * meta table: region rates over the load window (a new window where a region moves or
 * its counters go back, nothing from an idle region); a run skipped while the switch is
 * off (a dry run still plans and moves nothing), while a region is in transition unless
 * forced; a skewed table balanced by moves that land where planned, counted, listed as
 * move procedures, and shown in the last run; the switch kept in ZooKeeper for the next
 * master; bad balancer settings refused at start, naming the key.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/status.h"
#include "master/master_internal.h"
#include "tests/support/master_fake.h"
#include "tests/support/testutil.h"

#define TABLE "default:t"

typedef struct fx {
    char *root;
    mfake *f;
    master *m;
    char s1[SERVER_NAME_MAX], s2[SERVER_NAME_MAX];
} fx;

static const char *const kv[] = {"master.balancer.seed", "7", NULL};

static int setup(void **state)
{
    fx *x = calloc(1, sizeof(*x));
    x->root = tu_tempdir("mbal");
    x->f = mfake_new();
    uint64_t sc = (uint64_t)clock_now_ms();
    mfake_server_add(x->f, "rs1.unit", 17021, sc, x->s1);
    mfake_server_add(x->f, "rs2.unit", 17022, sc, x->s2);
    assert_int_equal(mfake_master_start(x->f, x->root, 0, kv, &x->m), ST_OK);
    assert_int_equal(mfake_report(x->f, x->m, x->s1), ST_OK);
    assert_int_equal(mfake_report(x->f, x->m, x->s2), ST_OK);
    *state = x;
    return 0;
}

static int teardown(void **state)
{
    fx *x = *state;
    master_free(x->m);
    mfake_free(x->f);
    tu_rmdir(x->root);
    free(x);
    return 0;
}

/* A table of 6 regions; each then moved onto s1. */
static void skewed_table(fx *x)
{
    const char *splits[] = {"b", "c", "d", "e", "f"};
    assert_int_equal(mfake_create_table(x->m, TABLE, "cf", splits, 5), ST_OK);
    for (size_t i = 0; i < 6; i++) {
        char enc[64];
        assert_true(mfake_region_name(x->m, TABLE, i, enc));
        assert_int_equal(master_move_region(x->m, enc, x->s1, NULL, NULL, 0), ST_OK);
    }
    assert_int_equal(mfake_server_nopen(x->f, x->s1), 6);
    assert_int_equal(mfake_report(x->f, x->m, x->s1), ST_OK);
    assert_int_equal(mfake_report(x->f, x->m, x->s2), ST_OK);
}

/* One heartbeat of server s (mu taken) carrying read/write counters of one region. */
static void sample(fx *x, const char *server, const char *encoded, uint64_t reads, uint64_t writes,
                   int64_t ms)
{
    Strata__Admin__RegionLoad l = STRATA__ADMIN__REGION_LOAD__INIT, *lp = &l;
    l.encoded_name = (char *)encoded;
    l.read_requests = reads;
    l.write_requests = writes;
    Strata__Master__RegionServerReportRequest rep =
        STRATA__MASTER__REGION_SERVER_REPORT_REQUEST__INIT;
    rep.region = &lp;
    rep.n_region = 1;
    pthread_mutex_lock(&x->m->mu);
    m_server *s = master_server_find(x->m, server);
    assert_non_null(s);
    master_load_record(x->m, s, &rep, ms);
    pthread_mutex_unlock(&x->m->mu);
}

static void rates(fx *x, const char *encoded, int64_t now, double *r, double *w)
{
    pthread_mutex_lock(&x->m->mu);
    m_region *reg = master_find_region(x->m, encoded, NULL);
    assert_non_null(reg);
    master_load_rates(x->m, reg, now, r, w);
    pthread_mutex_unlock(&x->m->mu);
}

static void load_window(void **state)
{
    fx *x = *state;
    assert_int_equal(mfake_create_table(x->m, TABLE, "cf", NULL, 0), ST_OK);
    char enc[64];
    assert_true(mfake_region_name(x->m, TABLE, 0, enc));
    x->m->load_window_ms = 1500;
    double r = -1, w = -1;
    int64_t t = 1000000;
    sample(x, x->s1, enc, 0, 0, t);
    rates(x, enc, t, &r, &w);
    assert_true(r == 0 && w == 0); /* one sample: no rate yet */
    sample(x, x->s1, enc, 100, 10, t + 1000);
    sample(x, x->s1, enc, 300, 30, t + 2000);
    rates(x, enc, t + 2000, &r, &w);
    /* Only the samples of the last 1.5 s: (300 - 100) / 1 s. */
    assert_true(r == 200 && w == 20);
    x->m->load_window_ms = 60000;
    rates(x, enc, t + 2000, &r, &w);
    assert_true(r == 150 && w == 15);
    /* Nothing heard within the window: idle, not its old rate. */
    rates(x, enc, t + 70000, &r, &w);
    assert_true(r == 0 && w == 0);
    /* Counters that go back (the region reopened) start a new window. */
    sample(x, x->s1, enc, 5, 0, t + 3000);
    rates(x, enc, t + 3000, &r, &w);
    assert_true(r == 0);
    sample(x, x->s1, enc, 55, 0, t + 4000);
    rates(x, enc, t + 4000, &r, &w);
    assert_true(r == 50);
    /* The same counters from another server: a new window too. */
    sample(x, x->s2, enc, 60, 0, t + 5000);
    rates(x, enc, t + 5000, &r, &w);
    assert_true(r == 0);
    /* The ring keeps the newest M_LOAD_SAMPLES. */
    for (int i = 1; i <= 3 * M_LOAD_SAMPLES; i++)
        sample(x, x->s2, enc, 60 + (uint64_t)i * 10, 0, t + 5000 + i * 100);
    rates(x, enc, t + 5000 + 3 * M_LOAD_SAMPLES * 100, &r, &w);
    assert_true(r > 99.9 && r < 100.1);
}

static void switch_off_and_dry_run(void **state)
{
    fx *x = *state;
    skewed_table(x);
    bool prev = false;
    assert_int_equal(master_switch_set(x->m, MASTER_SWITCH_BALANCER, false, &prev), ST_OK);
    assert_true(prev);
    size_t len = 0;
    char *path = mfake_path(ZNODE_BALANCER, NULL);
    char *data = mfake_zk_data(x->f, path, &len);
    assert_non_null(data);
    assert_int_equal(len, 5);
    assert_memory_equal(data, "false", 5);
    free(data);
    master_balance_run run;
    assert_int_equal(master_balance(x->m, false, false, &run), ST_OK);
    assert_false(run.ran);
    assert_non_null(strstr(run.why, "switch is off"));
    /* A dry run plans while the switch is off, and moves nothing. */
    assert_int_equal(master_balance(x->m, false, true, &run), ST_OK);
    assert_true(run.ran);
    assert_int_equal(run.planned, 3);
    assert_int_equal(run.done, 0);
    assert_non_null(strstr(run.plan, "plan: move"));
    assert_null(strstr(run.plan, "moved "));
    assert_int_equal(mfake_server_nopen(x->f, x->s1), 6);
    assert_int_equal(atomic_load(&x->m->balancer_runs), 0);
    /* A new master keeps the switch. */
    master_free(x->m);
    x->m = NULL;
    assert_int_equal(mfake_master_start(x->f, x->root, 0, kv, &x->m), ST_OK);
    assert_false(master_switch_get(x->m, MASTER_SWITCH_BALANCER));
    assert_int_equal(master_switch_set(x->m, MASTER_SWITCH_BALANCER, true, &prev), ST_OK);
    assert_false(prev);
    data = mfake_zk_data(x->f, path, &len);
    assert_int_equal(len, 4);
    assert_memory_equal(data, "true", 4);
    free(data);
    free(path);
}

static void skipped_in_transition_unless_forced(void **state)
{
    fx *x = *state;
    skewed_table(x);
    char enc[64];
    assert_true(mfake_region_name(x->m, TABLE, 0, enc));
    m_region *r = NULL;
    assert_int_equal(master_region_take(x->m, enc, &r, NULL), ST_OK); /* in transition */
    master_balance_run run;
    assert_int_equal(master_balance(x->m, false, false, &run), ST_OK);
    assert_false(run.ran);
    assert_non_null(strstr(run.why, "in transition"));
    assert_int_equal(mfake_server_nopen(x->f, x->s1), 6);
    /* Forced: it runs, leaving the region another operation has where it is. */
    assert_int_equal(master_balance(x->m, true, false, &run), ST_OK);
    assert_true(run.ran);
    assert_true(run.forced);
    assert_int_equal(run.regions, 5);
    assert_true(run.done >= 2);
    assert_null(strstr(run.plan, enc));
    assert_true(mfake_server_has(x->f, x->s1, enc));
    master_region_give(x->m, r);
}

/* Move procedures that ended well. */
static size_t moves_done(fx *x)
{
    m_proc *v = NULL;
    size_t n = 0, moves = 0;
    assert_int_equal(master_procs_list(x->m, &v, &n), ST_OK);
    for (size_t i = 0; i < n; i++)
        moves +=
            strcmp(v[i].type, "TransitRegionStateProcedure") == 0 && v[i].state == M_PROC_SUCCESS;
    free(v);
    return moves;
}

static void skewed_table_balanced(void **state)
{
    fx *x = *state;
    skewed_table(x);
    size_t before = moves_done(x);
    master_balance_run run;
    assert_int_equal(master_balance(x->m, false, false, &run), ST_OK);
    assert_true(run.ran);
    assert_int_equal(run.servers, 2);
    assert_int_equal(run.regions, 6);
    assert_int_equal(run.planned, 3);
    assert_int_equal(run.done, 3);
    assert_int_equal(run.failed, 0);
    assert_true(run.cost_after < run.cost_before);
    assert_true(run.part_before[BAL_COST_REGION_COUNT] == 1);
    assert_true(run.part_after[BAL_COST_REGION_COUNT] == 0);
    assert_int_equal(mfake_server_nopen(x->f, x->s1), 3);
    assert_int_equal(mfake_server_nopen(x->f, x->s2), 3);
    assert_int_equal(atomic_load(&x->m->balancer_runs), 1);
    assert_int_equal(atomic_load(&x->m->balancer_moves), 3);
    /* Meta agrees with the servers. */
    size_t on2 = 0;
    for (size_t i = 0; i < 6; i++) {
        char enc[64];
        meta_region row;
        assert_true(mfake_region_name(x->m, TABLE, i, enc));
        assert_int_equal(mfake_meta_row(x->m, enc, &row), ST_OK);
        assert_int_equal(row.state, META_OPEN);
        assert_true(mfake_server_has(x->f, row.server, enc));
        on2 += strcmp(row.server, x->s2) == 0;
        meta_region_clear(&row);
    }
    assert_int_equal(on2, 3);
    /* Each move is a procedure; the run is kept for the page. */
    assert_int_equal(moves_done(x) - before, 3);
    pthread_mutex_lock(&x->m->mu);
    assert_non_null(x->m->bal_last);
    assert_int_equal(x->m->bal_last->done, 3);
    pthread_mutex_unlock(&x->m->mu);
    /* Balanced now: nothing more to do. */
    assert_int_equal(master_balance(x->m, false, false, &run), ST_OK);
    assert_true(run.ran);
    assert_int_equal(run.planned, 0);
    assert_true(run.why[0] != 0);
}

static void bad_settings_refused(void **state)
{
    fx *x = *state;
    static const char *const bad[][3] = {
        {"master.balancer.class", "FavoredNodeLoadBalancer", "master.balancer.class"},
        {"master.balancer.cost.move", "-1", "master.balancer.cost.move"},
        {"master.balancer.slop", "1.5", "slop"},
        {"master.balancer.moves.per.server", "0", "moves per server"},
        {"master.balancer.stochastic.min.cost.need", "2", "min cost need"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const char *const one[] = {bad[i][0], bad[i][1], NULL};
        master *m = NULL;
        int rc = mfake_master_start(x->f, x->root, 0, one, &m);
        if (rc != ST_INVALID_ARGUMENT || !strstr(st_errmsg(), bad[i][2]))
            fail_msg("%s=%s: status %d, '%s'", bad[i][0], bad[i][1], rc, st_errmsg());
        assert_null(m);
    }
    const char *const simple[] = {"master.balancer.class", "SimpleLoadBalancer", NULL};
    master *m = NULL;
    assert_int_equal(mfake_master_start(x->f, x->root, 0, simple, &m), ST_OK);
    assert_int_equal(m->bal_cfg.policy, BAL_SIMPLE);
    master_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(load_window, setup, teardown),
        cmocka_unit_test_setup_teardown(switch_off_and_dry_run, setup, teardown),
        cmocka_unit_test_setup_teardown(skipped_in_transition_unless_forced, setup, teardown),
        cmocka_unit_test_setup_teardown(skewed_table_balanced, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_settings_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
