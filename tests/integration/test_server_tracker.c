/*
 * test_server_tracker.c - the client's region-server tracker against a real ZooKeeper
 * (tests/support/zkserver.h): servers whose <parent>/rs znode goes, that a newer start
 * code on the same address replaces, or that are listed under <parent>/splitWAL are
 * reported dead once each; suspicion from the client's own calls expires.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/server_tracker.h"
#include "common/clock.h"
#include "common/status.h"
#include "common/zk/zk.h"
#include "common/zk/znodes.h"
#include "tests/support/testutil.h"
#include "tests/support/zkserver.h"

static zkserver *srv;

typedef struct deaths {
    pthread_mutex_t mu;
    int n;
    char names[16][320];
    bool newer[16];
} deaths;

static void on_dead(void *arg, const char *host, uint16_t port, uint64_t start_code,
                    bool newer_live)
{
    deaths *d = arg;
    pthread_mutex_lock(&d->mu);
    if (d->n < 16) {
        snprintf(d->names[d->n], sizeof(d->names[0]), "%s,%u,%llu", host, (unsigned)port,
                 (unsigned long long)start_code);
        d->newer[d->n] = newer_live;
    }
    d->n++;
    pthread_mutex_unlock(&d->mu);
}

static int deaths_count(deaths *d)
{
    pthread_mutex_lock(&d->mu);
    int n = d->n;
    pthread_mutex_unlock(&d->mu);
    return n;
}

/* Waits up to 10 s for n deaths. */
static void wait_deaths(deaths *d, int n)
{
    for (int i = 0; i < 1000 && deaths_count(d) < n; i++)
        clock_sleep_ms(10);
    assert_int_equal(deaths_count(d), n);
}

static zk *open_zk(void)
{
    zk_options o = {.quorum = zks_quorum(srv), .session_timeout_ms = 10000,
                    .connect_timeout_ms = 10000};
    zk *z = NULL;
    assert_int_equal(zk_open(&o, &z), ST_OK);
    return z;
}

static void create(zk *z, const char *parent, znode_id dir, const char *child, int flags)
{
    char *p = znodes_path(parent, dir, child);
    assert_non_null(p);
    assert_int_equal(zk_create(z, p, "", 0, flags, NULL, 0), ST_OK);
    free(p);
}

static void test_dead_by_znode_newer_start_code_and_split_wal(void **state)
{
    (void)state;
    const char *parent = "/tracker1";
    zk *admin = open_zk(), *rs = open_zk();
    assert_int_equal(znodes_create_dirs(admin, parent), ST_OK);
    create(rs, parent, ZNODE_RS, "h1,1001,100", ZK_EPHEMERAL);
    create(rs, parent, ZNODE_RS, "h2,1002,100", ZK_EPHEMERAL);
    deaths d = {.n = 0};
    pthread_mutex_init(&d.mu, NULL);
    srvtrack *t = NULL;
    assert_int_equal(srvtrack_open(zks_quorum(srv), parent, on_dead, &d, &t), ST_OK);
    clock_sleep_ms(200);
    assert_false(srvtrack_watching(t)); /* not before it is asked to start */
    srvtrack_start(t);
    srvtrack_start(t);
    for (int i = 0; i < 1000 && !srvtrack_watching(t); i++)
        clock_sleep_ms(10);
    assert_true(srvtrack_watching(t));
    assert_int_equal(srvtrack_check(t, "h1", 1001, 100), SRVTRACK_LIVE);

    /* the znode goes */
    char *p = znodes_path(parent, ZNODE_RS, "h1,1001,100");
    assert_int_equal(zk_delete(rs, p, -1), ST_OK);
    free(p);
    wait_deaths(&d, 1);
    assert_string_equal(d.names[0], "h1,1001,100");
    assert_false(d.newer[0]);
    assert_int_equal(srvtrack_check(t, "h1", 1001, 100), SRVTRACK_DEAD);
    assert_int_equal(srvtrack_check(t, "h1", 1001, 101), SRVTRACK_LIVE); /* another one */

    /* a newer incarnation on the same address while the old znode is still there */
    create(rs, parent, ZNODE_RS, "h2,1002,200", ZK_EPHEMERAL);
    wait_deaths(&d, 2);
    assert_string_equal(d.names[1], "h2,1002,100");
    assert_true(d.newer[1]);
    assert_int_equal(srvtrack_check(t, "h2", 1002, 100), SRVTRACK_DEAD);
    assert_int_equal(srvtrack_check(t, "h2", 1002, 200), SRVTRACK_LIVE);
    /* its znode going later is not a second death */
    p = znodes_path(parent, ZNODE_RS, "h2,1002,100");
    assert_int_equal(zk_delete(rs, p, -1), ST_OK);
    free(p);

    /* the master splits the WALs of a server whose znode the tracker never saw go */
    create(admin, parent, ZNODE_SPLIT_WAL, "h3,1003,300", ZK_PERSISTENT);
    wait_deaths(&d, 3);
    assert_string_equal(d.names[2], "h3,1003,300");
    assert_int_equal(srvtrack_check(t, "h3", 1003, 300), SRVTRACK_DEAD);

    /* a whole session ending takes its znodes with it */
    zk_close(rs);
    wait_deaths(&d, 4);
    assert_string_equal(d.names[3], "h2,1002,200");
    clock_sleep_ms(300);
    assert_int_equal(deaths_count(&d), 4); /* each once */
    assert_int_equal(srvtrack_dead_count(t), 4);
    srvtrack_close(t);
    zk_close(admin);
    pthread_mutex_destroy(&d.mu);
}

static void test_suspect_expires_and_is_per_incarnation(void **state)
{
    (void)state;
    srvtrack *t = NULL;
    assert_int_equal(srvtrack_open(NULL, NULL, NULL, NULL, &t), ST_OK); /* no ZooKeeper */
    assert_int_equal(srvtrack_check(t, "h", 1, 5), SRVTRACK_LIVE);
    srvtrack_suspect(t, "h", 1, 5, 300);
    assert_int_equal(srvtrack_check(t, "h", 1, 5), SRVTRACK_SUSPECT);
    assert_int_equal(srvtrack_check(t, "h", 1, 0), SRVTRACK_SUSPECT); /* any incarnation */
    assert_int_equal(srvtrack_check(t, "h", 1, 6), SRVTRACK_LIVE);    /* a newer one */
    assert_int_equal(srvtrack_check(t, "h", 2, 5), SRVTRACK_LIVE);
    int64_t left = srvtrack_suspect_left_ms(t, "h", 1, 5);
    assert_true(left > 0 && left <= 300);
    srvtrack_suspect(t, "h", 1, 5, 10); /* never shortened */
    assert_true(srvtrack_suspect_left_ms(t, "h", 1, 5) > 100);
    clock_sleep_ms(350);
    assert_int_equal(srvtrack_check(t, "h", 1, 5), SRVTRACK_LIVE);
    assert_int_equal(srvtrack_suspect_left_ms(t, "h", 1, 5), 0);
    for (int i = 0; i < 200; i++) /* more suspects than kept: still bounded and working */
        srvtrack_suspect(t, "x", (uint16_t)(i + 1), 1, 1000);
    assert_int_equal(srvtrack_check(t, "x", 200, 1), SRVTRACK_SUSPECT);
    srvtrack_close(t);
}

static void test_unreachable_quorum_does_not_block(void **state)
{
    (void)state;
    srvtrack *t = NULL;
    uint64_t t0 = clock_mono_ns();
    assert_int_equal(srvtrack_open("127.0.0.1:1", NULL, NULL, NULL, &t), ST_OK);
    srvtrack_start(t);
    assert_false(srvtrack_watching(t));
    assert_int_equal(srvtrack_check(t, "h", 1, 1), SRVTRACK_LIVE);
    srvtrack_close(t);
    assert_true((clock_mono_ns() - t0) / 1000000 < 8000);
}

static int group_setup(void **state)
{
    (void)state;
    if (zks_start(&srv) != ST_OK) {
        fprintf(stderr, "zks_start: %s\n", st_errmsg());
        return -1;
    }
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    zks_stop(srv);
    srv = NULL;
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dead_by_znode_newer_start_code_and_split_wal),
        cmocka_unit_test(test_suspect_expires_and_is_per_incarnation),
        cmocka_unit_test(test_unreachable_quorum_does_not_block),
    };
    return tu_run_group_tests(tests, group_setup, group_teardown);
}
