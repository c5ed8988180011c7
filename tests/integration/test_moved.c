/*
 * test_moved.c - RegionMoved hints on a real cluster (docs/rpc.md "RegionMoved hints",
 * docs/client.md "Moved regions"): ZooKeeper, a master and two region servers started by
 * `strata cluster` (tests/support/cluster.h). While a client thread keeps putting single
 * rows, the table's region is moved to the other server, then split, then its daughters
 * merged. After each step the writer's calls were answered through the hint (the client's
 * count of followed hints grew, and it asked the master's locator nothing), and every
 * acknowledged row reads back at the end. The longest gap between two successful puts
 * across each step is printed, not asserted (those figures are reported, not timed).
 *
 * The cluster is stopped at the end (and by tests/support/cluster.c if the test dies).
 * Waits are bounded. Needs STRATA_BIN (CTest).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/admin_rpc.h"
#include "client/client_internal.h"
#include "common/clock.h"
#include "common/proto/master.pb-c.h"
#include "common/status.h"
#include "strata/admin.h"
#include "strata/strata.h"
#include "tests/support/cluster.h"
#include "tests/support/testutil.h"

#define TABLE "mv"

typedef struct writer {
    strata_client_t *cl;
    atomic_bool stop;
    atomic_uint acked;        /* rows 0..acked-1 were acknowledged */
    _Atomic int64_t last_ns;  /* when the last put succeeded */
    _Atomic int64_t max_gap;  /* longest gap between successful puts since reset, ns */
    char error[512];
} writer;

static void row_key(uint32_t i, char out[16])
{
    snprintf(out, 16, "r%06u", i);
}

static void *write_loop(void *arg)
{
    writer *w = arg;
    strata_table_t *t = strata_table_open(w->cl, TABLE);
    for (uint32_t i = 0; !atomic_load(&w->stop); i++) {
        char row[16], val[24];
        row_key(i, row);
        int vl = snprintf(val, sizeof(val), "v%u", i);
        strata_mutation_t *m = strata_put_create(row, strlen(row));
        strata_put_add(m, "cf", 2, "q", 1, STRATA_LATEST_TIMESTAMP, val, (size_t)vl);
        char *err = NULL;
        strata_table_put(t, m, &err);
        strata_mutation_destroy(m);
        if (err) {
            snprintf(w->error, sizeof(w->error), "put %u: %s", i, err);
            strata_free(err);
            break;
        }
        int64_t now = (int64_t)clock_mono_ns(), gap = now - atomic_load(&w->last_ns);
        if (gap > atomic_load(&w->max_gap))
            atomic_store(&w->max_gap, gap);
        atomic_store(&w->last_ns, now);
        atomic_store(&w->acked, i + 1);
    }
    strata_table_close(t);
    return NULL;
}

/* Waits until the writer acknowledged n more rows (it is making progress again). */
static void wait_progress(writer *w, unsigned n)
{
    unsigned from = atomic_load(&w->acked);
    int64_t until = clock_now_ms() + 30000;
    while (atomic_load(&w->acked) < from + n && !w->error[0]) {
        if (clock_now_ms() > until)
            fail_msg("writer stuck at row %u", atomic_load(&w->acked));
        clock_sleep_ms(5);
    }
    if (w->error[0])
        fail_msg("writer: %s", w->error);
}

static Strata__Master__GetTableRegionsResponse *regions(admin_rpc *a)
{
    Strata__Master__GetTableRegionsResponse *r = NULL;
    if (admin_rpc_table_regions(a, TABLE, &r) != ST_OK)
        fail_msg("regions of %s: %s", TABLE, st_errmsg());
    return r;
}

static void wait_open(admin_rpc *a, size_t n)
{
    int64_t until = clock_now_ms() + 30000;
    for (;;) {
        Strata__Master__GetTableRegionsResponse *r = regions(a);
        size_t open = 0, total = r->n_location;
        for (size_t i = 0; i < total; i++)
            open += r->location[i]->server &&
                    r->location[i]->state == STRATA__MASTER__REGION_STATE__OPEN;
        admin_rpc_free_msg(r);
        if (total == n && open == n)
            return;
        if (clock_now_ms() > until)
            fail_msg("%zu of %zu regions open, want %zu", open, total, n);
        clock_sleep_ms(50);
    }
}

static void region_name(admin_rpc *a, size_t i, char out[64])
{
    Strata__Master__GetTableRegionsResponse *r = regions(a);
    assert_true(i < r->n_location);
    snprintf(out, 64, "%s", r->location[i]->region->encoded_name);
    admin_rpc_free_msg(r);
}

typedef struct step_mark {
    uint64_t hints, lookups;
} step_mark;

static step_mark step_begin(writer *w)
{
    wait_progress(w, 20);
    atomic_store(&w->max_gap, 0);
    return (step_mark){client_moved_hints_followed(w->cl), client_locator_lookups(w->cl)};
}

/* After a step: the writer goes on, followed a hint and asked the locator nothing. */
static void step_end(writer *w, const char *what, step_mark m)
{
    wait_progress(w, 200);
    uint64_t hints = client_moved_hints_followed(w->cl) - m.hints;
    uint64_t lookups = client_locator_lookups(w->cl) - m.lookups;
    printf("moved-hint %s: longest gap between successful puts %.1f ms (hints followed %llu, "
           "locator lookups %llu)\n",
           what, (double)atomic_load(&w->max_gap) / 1e6, (unsigned long long)hints,
           (unsigned long long)lookups);
    fflush(stdout);
    assert_true(hints >= 1);
    assert_int_equal(lookups, 0);
}

static void move_split_merge_follow_hints(void **state)
{
    (void)state;
    tc_options o = {.masters = 1, .regionservers = 2, .session_timeout_ms = 4000};
    tc_cluster *c = NULL;
    if (tc_start(&o, &c) != ST_OK)
        fail_msg("cluster start: %s", st_errmsg());
    char *err = NULL;
    strata_admin_t *ad = strata_admin_open(tc_quorum(c), tc_parent(c), &err);
    if (!ad)
        fail_msg("admin open: %s", err ? err : "?");
    admin_rpc *a = NULL;
    assert_int_equal(admin_rpc_open(tc_quorum(c), tc_parent(c), &a), ST_OK);
    Strata__Admin__TableSchema *s = NULL;
    assert_int_equal(admin_rpc_schema_new(TABLE, "cf", &s), ST_OK);
    if (admin_rpc_create_table(a, s, NULL, 0) != ST_OK)
        fail_msg("create table: %s", st_errmsg());
    admin_rpc_schema_free(s);
    wait_open(a, 1);

    strata_options_t *opts = strata_options_create();
    strata_options_set_zk_quorum(opts, tc_quorum(c));
    strata_options_set_zk_parent(opts, tc_parent(c));
    writer w = {.cl = strata_client_open(opts, &err)};
    strata_options_destroy(opts);
    if (!w.cl)
        fail_msg("client open: %s", err ? err : "?");
    atomic_store(&w.last_ns, (int64_t)clock_mono_ns());
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, write_loop, &w), 0);

    /* move */
    char name[64];
    region_name(a, 0, name);
    step_mark m = step_begin(&w);
    if (admin_rpc_move(a, name, NULL, NULL) != ST_OK)
        fail_msg("move %s: %s", name, st_errmsg());
    step_end(&w, "move", m);

    /* split at the middle of what is written */
    char key[16];
    row_key(atomic_load(&w.acked) / 2, key);
    m = step_begin(&w);
    strata_admin_split_table(ad, TABLE, (const unsigned char *)key, strlen(key), &err);
    if (err)
        fail_msg("split: %s", err);
    wait_open(a, 2);
    step_end(&w, "split", m);

    /* merge the daughters (the writer is in the second), once compacted and their parent
     * cleaned (a region with references does not merge) */
    int64_t until = clock_now_ms() + 60000;
    for (unsigned cleaned = 0; !cleaned;) {
        strata_admin_compact_table(ad, TABLE, 1, &err);
        strata_free(err);
        err = NULL;
        cleaned = strata_admin_run_catalog_janitor(ad, &err);
        if (err)
            fail_msg("catalogjanitor_run: %s", err);
        if (!cleaned && clock_now_ms() > until)
            fail_msg("janitor did not clean the split parent in 60 s");
        if (!cleaned)
            clock_sleep_ms(300);
    }
    char m0[64], m1[64];
    region_name(a, 0, m0);
    region_name(a, 1, m1);
    const char *names[2] = {m0, m1};
    m = step_begin(&w);
    strata_free(strata_admin_merge_regions(ad, names, 2, 0, &err));
    if (err)
        fail_msg("merge: %s", err);
    wait_open(a, 1);
    step_end(&w, "merge", m);

    atomic_store(&w.stop, true);
    pthread_join(th, NULL);
    if (w.error[0])
        fail_msg("writer: %s", w.error);
    /* every acknowledged row reads back */
    strata_table_t *t = strata_table_open(w.cl, TABLE);
    unsigned n = atomic_load(&w.acked);
    for (uint32_t i = 0; i < n; i++) {
        char row[16], want[24];
        row_key(i, row);
        int wl = snprintf(want, sizeof(want), "v%u", i);
        strata_get_t *g = strata_get_create(row, strlen(row));
        strata_result_t *res = strata_table_get(t, g, &err);
        strata_get_destroy(g);
        if (err)
            fail_msg("get %u: %s", i, err);
        size_t len = 0;
        const char *v = res ? strata_result_value(res, "cf", 2, "q", 1, &len) : NULL;
        if (!v || len != (size_t)wl || memcmp(v, want, len) != 0)
            fail_msg("row %u lost or wrong", i);
        strata_result_destroy(res);
    }
    printf("moved-hint: %u acknowledged rows read back\n", n);
    strata_table_close(t);
    strata_client_close(w.cl);
    admin_rpc_close(a);
    strata_admin_close(ad);
    assert_int_equal(tc_stop(c), ST_OK);
}

int main(void)
{
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_moved", "STRATA_BIN is not set (run it through CTest)");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(move_split_merge_follow_hints),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
