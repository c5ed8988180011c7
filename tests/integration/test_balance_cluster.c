/*
 * test_balance_cluster.c - the balancer on a real cluster (docs/balancer.md): real ZooKeeper,
 * masters and region servers started by `strata cluster` (tests/support/cluster.h),
 * driven through the public admin and client APIs.
 *
 * Tests:
 *   - a skewed cluster (every region of a 12-region table moved onto one of three servers)
 *     becomes even under a writer and a reader once the switch is on: 0 client errors and
 *     every acknowledged row reads back; a dry run afterwards plans nothing;
 *   - the switch off means no moves, also after the active master is killed and a backup
 *     takes over (the switch lives in ZooKeeper); `balancer` then answers false with the
 *     reason, a dry run plans moves and moves nothing; switched on, it balances;
 *   - the active master killed by its first balancer move, between the region's close and
 *     its open (master.inject.crash LoadBalancer:MOVE_OPEN), under a writer and a reader:
 *     the backup reopens the region and balances, every region is served by exactly one
 *     server, 0 client errors, every acknowledged row reads back;
 *   - a server that joins (a region server killed, its regions recovered elsewhere, then
 *     started again) receives regions on the next runs.
 *
 * Every cluster is stopped at the end of its test (and by tests/support/cluster.c if the
 * test dies). Waits are bounded. Needs STRATA_BIN (CTest).
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
#include "common/clock.h"
#include "common/proto/master.pb-c.h"
#include "common/status.h"
#include "strata/admin.h"
#include "strata/strata.h"
#include "tests/support/cluster.h"
#include "tests/support/http_client.h"

#define SESSION_MS 4000
#define TABLE "bal"
#define NREGIONS 12
#define MAXS 8

static const char *const fast_flags[] = {
    "--master.balancer.period.ms=1000",
    "--master.balancer.load.window.ms=5000",
    "--regionserver.report.interval.ms=300",
    NULL,
};

static const char *const crash_flags[] = {
    "--master.balancer.period.ms=1000",
    "--master.balancer.load.window.ms=5000",
    "--regionserver.report.interval.ms=300",
    "--master.inject.crash=LoadBalancer:MOVE_OPEN",
    NULL,
};

static tc_cluster *start_cluster_with(int masters, int rs, const char *const *flags)
{
    tc_options o = {
        .masters = masters, .regionservers = rs, .session_timeout_ms = SESSION_MS, .flags = flags};
    tc_cluster *c = NULL;
    int rc = tc_start(&o, &c);
    if (rc == ST_NOT_FOUND)
        skip();
    if (rc != ST_OK)
        fail_msg("cluster start: %s", st_errmsg());
    return c;
}

static tc_cluster *start_cluster(int masters, int rs)
{
    return start_cluster_with(masters, rs, fast_flags);
}

static strata_admin_t *admin_of(tc_cluster *c)
{
    char *err = NULL;
    strata_admin_t *a = strata_admin_open(tc_quorum(c), tc_parent(c), &err);
    if (!a)
        fail_msg("admin open: %s", err ? err : "?");
    return a;
}

static strata_client_t *client_of(tc_cluster *c)
{
    strata_options_t *o = strata_options_create();
    strata_options_set_zk_quorum(o, tc_quorum(c));
    strata_options_set_zk_parent(o, tc_parent(c));
    strata_options_set_operation_timeout_ms(o, 60000);
    char *err = NULL;
    strata_client_t *cl = strata_client_open(o, &err);
    strata_options_destroy(o);
    if (!cl)
        fail_msg("client open: %s", err ? err : "?");
    return cl;
}

static void row_key(uint32_t i, char out[16])
{
    snprintf(out, 16, "r%06u", i);
}

/* TABLE with family cf, split at r000100, r000200, ... into NREGIONS regions. */
static void create_table(strata_admin_t *a)
{
    strata_table_descriptor_t *td = strata_table_descriptor_create(TABLE);
    strata_table_descriptor_add_family(td, "cf");
    char keys[NREGIONS - 1][16];
    const char *splits[NREGIONS - 1];
    size_t lens[NREGIONS - 1];
    for (int i = 0; i < NREGIONS - 1; i++) {
        row_key((uint32_t)(i + 1) * 100, keys[i]);
        splits[i] = keys[i];
        lens[i] = strlen(keys[i]);
    }
    char *err = NULL;
    strata_admin_create_table(a, td, splits, lens, NREGIONS - 1, &err);
    strata_table_descriptor_destroy(td);
    if (err)
        fail_msg("create %s: %s", TABLE, err);
}

/* The table's open regions per server as meta has them: names[i] with counts[i]; returns
 * how many servers hold regions and sets *open to the open regions. */
typedef struct spread {
    char names[MAXS][256];
    size_t counts[MAXS];
    size_t n, open, total;
    char encoded[64][64];
    char where[64][256];
} spread;

static void spread_of(tc_cluster *c, spread *s)
{
    memset(s, 0, sizeof(*s));
    admin_rpc *a = NULL;
    assert_int_equal(admin_rpc_open(tc_quorum(c), tc_parent(c), &a), ST_OK);
    Strata__Master__GetTableRegionsResponse *r = NULL;
    if (admin_rpc_table_regions(a, TABLE, &r) != ST_OK)
        fail_msg("regions of %s: %s", TABLE, st_errmsg());
    s->total = r->n_location;
    for (size_t i = 0; i < r->n_location && i < 64; i++) {
        const Strata__Master__RegionLocation *l = r->location[i];
        snprintf(s->encoded[i], 64, "%s", l->region->encoded_name);
        if (!l->server || l->state != STRATA__MASTER__REGION_STATE__OPEN)
            continue;
        char name[256];
        snprintf(name, sizeof(name), "%s,%u,%llu", l->server->host, l->server->port,
                 (unsigned long long)l->server->start_code);
        snprintf(s->where[i], 256, "%s", name);
        s->open++;
        size_t k = 0;
        while (k < s->n && strcmp(s->names[k], name) != 0)
            k++;
        if (k == s->n && s->n < MAXS)
            snprintf(s->names[s->n++], 256, "%s", name);
        if (k < MAXS)
            s->counts[k]++;
    }
    admin_rpc_free_msg(r);
    admin_rpc_close(a);
}

/* Live servers' names from the master. */
static size_t live_servers(strata_admin_t *a, char names[MAXS][256])
{
    char *err = NULL;
    strata_cluster_status_t *st = strata_admin_cluster_status(a, &err);
    if (!st)
        fail_msg("cluster status: %s", err ? err : "?");
    size_t n = strata_cluster_status_live_server_count(st);
    for (size_t i = 0; i < n && i < MAXS; i++)
        snprintf(names[i], 256, "%s",
                 strata_server_load_name(strata_cluster_status_live_server(st, i)));
    strata_cluster_status_destroy(st);
    return n < MAXS ? n : MAXS;
}

/* Waits until every region is open, and (want_servers > 0) on exactly want_servers
 * servers with counts differing by at most 1. */
static void wait_even(tc_cluster *c, size_t want_servers, int64_t timeout_ms)
{
    int64_t until = clock_now_ms() + timeout_ms;
    spread s;
    for (;;) {
        spread_of(c, &s);
        bool ok = s.open == s.total && s.total == NREGIONS;
        if (ok && want_servers) {
            size_t lo = SIZE_MAX, hi = 0;
            for (size_t i = 0; i < s.n; i++) {
                lo = s.counts[i] < lo ? s.counts[i] : lo;
                hi = s.counts[i] > hi ? s.counts[i] : hi;
            }
            ok = s.n == want_servers && hi - lo <= 1;
        }
        if (ok)
            return;
        if (clock_now_ms() > until) {
            char text[1024] = "";
            for (size_t i = 0; i < s.n; i++)
                snprintf(text + strlen(text), sizeof(text) - strlen(text), " %s:%zu", s.names[i],
                         s.counts[i]);
            fail_msg("after %lld ms: %zu of %zu regions open, spread%s", (long long)timeout_ms,
                     s.open, s.total, text);
        }
        clock_sleep_ms(200);
    }
}

/* Moves every region of the table onto server. */
static void pile_onto(strata_admin_t *a, tc_cluster *c, const char *server)
{
    spread s;
    spread_of(c, &s);
    for (size_t i = 0; i < s.total; i++) {
        if (strcmp(s.where[i], server) == 0)
            continue;
        char *err = NULL;
        char *to = strata_admin_move(a, s.encoded[i], server, &err);
        if (err)
            fail_msg("move %s to %s: %s", s.encoded[i], server, err);
        strata_free(to);
    }
    spread_of(c, &s);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.counts[0], NREGIONS);
}

/* Waits until a master other than old is active. */
static void wait_new_active(tc_cluster *c, const char *old, const char *when)
{
    int64_t until = clock_now_ms() + 60000;
    for (;;) {
        char now[64] = "";
        tc_active_master(c, now, sizeof(now));
        if (now[0] && strcmp(now, old) != 0)
            return;
        if (clock_now_ms() > until)
            fail_msg("no master took over from %s %s", old, when);
        clock_sleep_ms(100);
    }
}

static bool set_switch(strata_admin_t *a, bool on)
{
    char *err = NULL;
    unsigned char prev = strata_admin_set_switch(a, "BALANCER", on, &err);
    if (err)
        fail_msg("balance_switch: %s", err);
    return prev != 0;
}

/* The HTTP port of master-1 from the cluster's state file. */
static int master_http_port(tc_cluster *c)
{
    char path[1024], line[256];
    snprintf(path, sizeof(path), "%s/cluster.state", tc_dir(c));
    FILE *f = fopen(path, "r");
    int port = 0;
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "master-1 %*d %*d %d", &port) == 1)
            break;
    if (f)
        fclose(f);
    return port;
}

/* ---- load ---- */

typedef struct load {
    strata_client_t *cl;
    atomic_bool stop;
    atomic_uint acked;
    atomic_uint errors;
    atomic_uint reads;
    char first_error[512];
} load;

static void load_error(load *l, const char *what, const char *err, unsigned i)
{
    if (atomic_fetch_add(&l->errors, 1) == 0)
        snprintf(l->first_error, sizeof(l->first_error), "%s %u: %s", what, i, err);
}

static void *writer(void *arg)
{
    load *l = arg;
    strata_table_t *t = strata_table_open(l->cl, TABLE);
    /* Rows 0..N-1, then the same rows again until stopped. */
    for (uint32_t k = 0; !atomic_load(&l->stop); k++) {
        uint32_t i = k % (NREGIONS * 100);
        char row[16], val[32];
        row_key(i, row);
        int n = snprintf(val, sizeof(val), "v%u", i);
        strata_mutation_t *m = strata_put_create(row, strlen(row));
        strata_put_add(m, "cf", 2, "q", 1, STRATA_LATEST_TIMESTAMP, val, (size_t)n);
        char *err = NULL;
        strata_table_put(t, m, &err);
        strata_mutation_destroy(m);
        if (err) {
            load_error(l, "put", err, i);
            strata_free(err);
            break;
        }
        if (k < NREGIONS * 100)
            atomic_store(&l->acked, k + 1);
    }
    strata_table_close(t);
    return NULL;
}

static int check_row(strata_table_t *t, uint32_t i, char **err)
{
    char row[16], want[32];
    row_key(i, row);
    int wl = snprintf(want, sizeof(want), "v%u", i);
    strata_get_t *g = strata_get_create(row, strlen(row));
    strata_result_t *res = strata_table_get(t, g, err);
    strata_get_destroy(g);
    if (*err)
        return -1;
    size_t len = 0;
    const char *v = res ? strata_result_value(res, "cf", 2, "q", 1, &len) : NULL;
    int ok = v && len == (size_t)wl && memcmp(v, want, len) == 0;
    strata_result_destroy(res);
    return ok;
}

static void *reader(void *arg)
{
    load *l = arg;
    strata_table_t *t = strata_table_open(l->cl, TABLE);
    uint32_t seed = 11;
    while (!atomic_load(&l->stop)) {
        uint32_t n = atomic_load(&l->acked);
        if (n == 0) {
            clock_sleep_ms(5);
            continue;
        }
        seed = seed * 1103515245u + 12345u;
        char *err = NULL;
        int ok = check_row(t, seed % n, &err);
        if (err || ok != 1) {
            load_error(l, "get", err ? err : "missing or wrong", seed % n);
            strata_free(err);
            break;
        }
        atomic_fetch_add(&l->reads, 1);
    }
    strata_table_close(t);
    return NULL;
}

static void verify_rows(strata_client_t *cl, uint32_t n)
{
    strata_table_t *t = strata_table_open(cl, TABLE);
    for (uint32_t i = 0; i < n; i++) {
        char *err = NULL;
        int ok = check_row(t, i, &err);
        if (err)
            fail_msg("get %u: %s", i, err);
        if (ok != 1)
            fail_msg("row %u of %s lost or wrong", i, TABLE);
    }
    strata_table_close(t);
}

/* ---- tests ---- */

static void skewed_cluster_balances_under_load(void **state)
{
    (void)state;
    tc_cluster *c = start_cluster(1, 3);
    strata_admin_t *a = admin_of(c);
    assert_true(set_switch(a, false)); /* on by default */
    create_table(a);
    wait_even(c, 0, 30000);
    char names[MAXS][256];
    assert_int_equal(live_servers(a, names), 3);
    pile_onto(a, c, names[0]);
    strata_client_t *cl = client_of(c);
    load l = {.cl = cl};
    pthread_t w, r;
    pthread_create(&w, NULL, writer, &l);
    pthread_create(&r, NULL, reader, &l);
    while (atomic_load(&l.acked) < 200 && atomic_load(&l.errors) == 0)
        clock_sleep_ms(10);
    assert_false(set_switch(a, true));
    wait_even(c, 3, 60000);
    clock_sleep_ms(500); /* a little load after the last move */
    atomic_store(&l.stop, true);
    pthread_join(w, NULL);
    pthread_join(r, NULL);
    if (atomic_load(&l.errors))
        fail_msg("client error while balancing: %s", l.first_error);
    assert_true(atomic_load(&l.reads) > 0);
    verify_rows(cl, atomic_load(&l.acked));
    /* Balanced now: a dry run plans nothing. */
    unsigned char ran = 0;
    char *err = NULL;
    char *text = strata_admin_balance(a, STRATA_BALANCE_DRY_RUN, &ran, &err);
    if (err)
        fail_msg("dry run: %s", err);
    assert_true(ran);
    assert_non_null(strstr(text, "0 moves planned"));
    strata_free(text);
    /* The runs and moves are in /metrics, the last run (a dry run) in /status.json and on
     * the page. */
    thc_response h;
    int port = master_http_port(c);
    assert_int_equal(thc_get(port, "/metrics", &h), 0);
    assert_non_null(strstr(h.body, "\nbalancer_enabled 1\n"));
    unsigned long moves = 0, runs = 0;
    const char *mv = strstr(h.body, "\nbalancer_moves "), *rn = strstr(h.body, "\nbalancer_runs ");
    assert_non_null(mv);
    assert_non_null(rn);
    sscanf(mv, "\nbalancer_moves %lu", &moves);
    sscanf(rn, "\nbalancer_runs %lu", &runs);
    assert_true(moves >= 8); /* 12 regions on one of three servers: 8 had to move */
    assert_true(runs >= 1);
    assert_non_null(strstr(h.body, "balancer_cost_part{cost=\"region_count\"} 0\n"));
    thc_response_free(&h);
    assert_int_equal(thc_get(port, "/status.json", &h), 0);
    assert_non_null(
        strstr(h.body, "\"balancer\":{\"enabled\":true,\"policy\":\"StochasticLoadBalancer\""));
    assert_non_null(strstr(h.body, "\"dry_run\":true"));
    thc_response_free(&h);
    assert_int_equal(thc_get(port, "/", &h), 0);
    assert_non_null(strstr(h.body, "<h2>Balancer</h2>"));
    assert_non_null(strstr(h.body, "region_count"));
    thc_response_free(&h);
    strata_client_close(cl);
    strata_admin_close(a);
    assert_int_equal(tc_stop(c), ST_OK);
}

static void switch_off_survives_master_failover(void **state)
{
    (void)state;
    tc_cluster *c = start_cluster(2, 2);
    strata_admin_t *a = admin_of(c);
    assert_true(set_switch(a, false));
    create_table(a);
    wait_even(c, 0, 30000);
    char names[MAXS][256];
    assert_int_equal(live_servers(a, names), 2);
    pile_onto(a, c, names[0]);
    char active[64];
    assert_int_equal(tc_active_master(c, active, sizeof(active)), ST_OK);
    assert_int_equal(tc_kill(c, "master-active"), ST_OK);
    /* The backup takes over once the killed master's session expires. */
    wait_new_active(c, active, "after it was killed");
    char *err = NULL;
    unsigned char on = strata_admin_switch_enabled(a, "BALANCER", &err);
    if (err)
        fail_msg("balancer_enabled: %s", err);
    assert_false(on);
    clock_sleep_ms(4000); /* four balancer periods */
    spread s;
    spread_of(c, &s);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.counts[0], NREGIONS);
    /* balancer answers false with the reason. */
    unsigned char ran = 1;
    char *text = strata_admin_balance(a, 0, &ran, &err);
    if (err)
        fail_msg("balancer: %s", err);
    assert_false(ran);
    assert_non_null(strstr(text, "switch is off"));
    strata_free(text);
    /* A dry run plans the moves and makes none. */
    text = strata_admin_balance(a, STRATA_BALANCE_DRY_RUN, &ran, &err);
    if (err)
        fail_msg("dry run: %s", err);
    assert_true(ran);
    assert_non_null(strstr(text, "plan: move"));
    assert_non_null(strstr(text, " 0 done"));
    assert_null(strstr(text, "moved "));
    strata_free(text);
    clock_sleep_ms(1500);
    spread_of(c, &s);
    assert_int_equal(s.n, 1);
    assert_int_equal(s.counts[0], NREGIONS);
    /* On: the periodic run spreads them. */
    assert_false(set_switch(a, true));
    wait_even(c, 2, 60000);
    strata_admin_close(a);
    assert_int_equal(tc_stop(c), ST_OK);
}

/* Every region of the table is open on exactly one server, by the servers' own reports.
 * Call it with nothing moving (the balancer off for a few heartbeats): while a region
 * moves, the server it left may still list it in a report older than its close. */
static void wait_served_once(strata_admin_t *a, int64_t timeout_ms)
{
    int64_t until = clock_now_ms() + timeout_ms;
    char why[256] = "";
    for (;;) {
        char *err = NULL;
        strata_cluster_status_t *st = strata_admin_cluster_status(a, &err);
        size_t seen = 0;
        bool twice = false;
        char names[NREGIONS * 4][64];
        size_t nn = 0;
        for (size_t i = 0; st && i < strata_cluster_status_live_server_count(st); i++) {
            const strata_server_load_t *l = strata_cluster_status_live_server(st, i);
            for (size_t j = 0; j < strata_server_load_region_load_count(l); j++) {
                const strata_region_load_t *r = strata_server_load_region_load(l, j);
                if (strcmp(strata_region_load_table(r), "default:" TABLE) != 0)
                    continue;
                const char *e = strata_region_load_encoded_name(r);
                for (size_t k = 0; k < nn; k++)
                    if (strcmp(names[k], e) == 0) {
                        twice = true;
                        snprintf(why, sizeof(why), "region %s reported by two servers", e);
                    }
                if (nn < NREGIONS * 4)
                    snprintf(names[nn++], 64, "%s", e);
                seen++;
            }
        }
        if (st)
            strata_cluster_status_destroy(st);
        strata_free(err);
        if (twice)
            fail_msg("%s", why);
        if (seen == NREGIONS)
            return;
        if (clock_now_ms() > until)
            fail_msg("%zu of %d regions reported open after %lld ms", seen, NREGIONS,
                     (long long)timeout_ms);
        clock_sleep_ms(200);
    }
}

static void master_killed_mid_balance(void **state)
{
    (void)state;
    tc_cluster *c = start_cluster_with(2, 2, crash_flags);
    strata_admin_t *a = admin_of(c);
    assert_true(set_switch(a, false));
    create_table(a);
    wait_even(c, 0, 30000);
    char names[MAXS][256];
    assert_int_equal(live_servers(a, names), 2);
    pile_onto(a, c, names[0]);
    char active[64];
    assert_int_equal(tc_active_master(c, active, sizeof(active)), ST_OK);
    strata_client_t *cl = client_of(c);
    load l = {.cl = cl};
    pthread_t w, r;
    pthread_create(&w, NULL, writer, &l);
    pthread_create(&r, NULL, reader, &l);
    while (atomic_load(&l.acked) < 200 && atomic_load(&l.errors) == 0)
        clock_sleep_ms(10);
    /* The first balancer move closes a region and kills the active master before the
     * open; the backup takes over, reopens the region and balances. */
    assert_false(set_switch(a, true));
    wait_new_active(c, active, "after dying at its first balancer move");
    wait_even(c, 2, 60000);
    assert_true(set_switch(a, false)); /* nothing moves from here on */
    clock_sleep_ms(1500);              /* five heartbeats: every report is newer */
    wait_served_once(a, 30000);
    clock_sleep_ms(300);
    atomic_store(&l.stop, true);
    pthread_join(w, NULL);
    pthread_join(r, NULL);
    if (atomic_load(&l.errors))
        fail_msg("client error across the master failover: %s", l.first_error);
    verify_rows(cl, atomic_load(&l.acked));
    strata_client_close(cl);
    strata_admin_close(a);
    assert_int_equal(tc_stop(c), ST_OK);
}

static void joining_server_receives_regions(void **state)
{
    (void)state;
    tc_cluster *c = start_cluster(1, 3);
    strata_admin_t *a = admin_of(c);
    create_table(a);
    wait_even(c, 3, 60000);
    assert_int_equal(tc_kill(c, "rs-3"), ST_OK);
    wait_even(c, 2, 60000); /* recovered onto the other two */
    assert_int_equal(tc_restart(c, "rs-3"), ST_OK);
    wait_even(c, 3, 60000); /* the new rs-3 gets a third */
    strata_admin_close(a);
    assert_int_equal(tc_stop(c), ST_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(skewed_cluster_balances_under_load),
        cmocka_unit_test(switch_off_survives_master_failover),
        cmocka_unit_test(master_killed_mid_balance),
        cmocka_unit_test(joining_server_receives_regions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
