/*
 * test_chaos.c - `strata chaos` against a local cluster of 2 masters and 3 region servers
 * (tests/support/cluster.h) holding a pre-split table with data:
 *   - the admin actions (noKill) all recover, each logged when it begins and ends, and
 *     also as JSON lines;
 *   - a seed replays a run's choices;
 *   - region server kills, a pause past the session timeout and a kill of a move's
 *     source recover through the local backend, with the MTTR in the summary;
 *   - the script backend drives kills through a user's program (a script that runs
 *     `strata cluster kill|restart`);
 *   - an action whose recovery times out is reported failed with exit status 1, and the
 *     monkey still leaves the cluster settled;
 *   - bad arguments are refused with exit status 2.
 * Needs STRATA_BIN (set by CTest) and ZooKeeper; skipped without them (exit 77).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/status.h"
#include "strata/admin.h"
#include "strata/strata.h"
#include "tests/support/cluster.h"
#include "tests/support/testutil.h"

#define TABLE "ChaosTable"

static tc_cluster *cluster;
static char *tmp;

/* Runs `$STRATA_BIN chaos ARGS` (with --dir unless args has --zk.quorum); its stdout and
 * stderr into *out (malloc'ed); returns the exit status. */
static int run_chaos(const char *args, char **out)
{
    char cmd[4096];
    bool remote = strstr(args, "--zk.quorum") != NULL;
    snprintf(cmd, sizeof(cmd), "%s chaos %s%s %s 2>&1", getenv("STRATA_BIN"),
             remote ? "" : "--dir ", remote ? "" : tc_dir(cluster), args);
    int status = tu_capture(cmd, out);
    assert_true(status >= 0);
    return status;
}

static size_t count(const char *s, const char *what)
{
    size_t n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
        n++;
    return n;
}

/* The action names of the "#N NAME begins" lines, space-separated, into out. */
static void begun(const char *log, char *out, size_t cap)
{
    out[0] = '\0';
    for (const char *p = log; (p = strstr(p, " begins\n")); p++) {
        const char *ls = p;
        while (ls > log && ls[-1] != ' ')
            ls--;
        size_t len = strlen(out);
        snprintf(out + len, cap - len, "%.*s ", (int)(p - ls), ls);
    }
}

static void assert_settled(void)
{
    char *out = NULL;
    int rc = tc_status(cluster, &out);
    if (rc != 0)
        fprintf(stderr, "%s", out ? out : "");
    assert_int_equal(rc, 0);
    free(out);
}

static void admin_actions_recover(void **state)
{
    (void)state;
    char *out = NULL;
    int rc = run_chaos("--policy noKill --actions 6 --period-ms 200 --seed 5 --json", &out);
    if (rc != 0)
        fprintf(stderr, "%s", out);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "policy noKill, 6 kind(s), period 200 ms, seed 5"));
    assert_int_equal(count(out, " begins\n"), 6);
    assert_int_equal(count(out, "{\"seq\":"), 6);
    assert_int_equal(count(out, "\"failed\":true"), 0);
    assert_non_null(strstr(out, "{\"actions\":6,"));
    free(out);
    assert_settled();
}

static void a_seed_replays_the_choices(void **state)
{
    (void)state;
    char *a = NULL, *b = NULL, la[512], lb[512];
    const char *args = "--policy noKill --kinds flush,compact,balance,move --actions 6 "
                       "--period-ms 100 --seed 424242";
    assert_int_equal(run_chaos(args, &a), 0);
    assert_int_equal(run_chaos(args, &b), 0);
    begun(a, la, sizeof(la));
    begun(b, lb, sizeof(lb));
    assert_string_equal(la, lb);
    assert_int_equal(count(la, " "), 6);
    free(a);
    free(b);
}

static void server_faults_recover_locally(void **state)
{
    (void)state;
    char *out = NULL;
    int rc = run_chaos("--policy slowDeterministic --kinds kill-rs,pause-rs,kill-move-source "
                       "--actions 3 --period-ms 100 --seed 9",
                       &out);
    if (rc != 0)
        fprintf(stderr, "%s", out);
    assert_int_equal(rc, 0);
    assert_int_equal(count(out, " begins\n"), 3);
    assert_non_null(strstr(out, "exited after it resumed"));
    assert_non_null(strstr(out, "3 action(s): 3 done, 0 skipped, 0 failed"));
    /* Each kill's MTTR is in the summary, above zero. */
    const char *row = strstr(out, "\nkill-rs ");
    assert_non_null(row);
    double med = 0;
    assert_int_equal(sscanf(row + 1, "kill-rs %*d %*d %*d %lf", &med), 1);
    assert_true(med > 0.5);
    free(out);
    assert_settled();
}

static void a_script_backend_drives_the_kills(void **state)
{
    (void)state;
    char script[600], args[2048];
    snprintf(script, sizeof(script), "%s/control.sh", tmp);
    FILE *f = fopen(script, "w");
    assert_non_null(f);
    /* VERB ROLE NAME HOST PORT: the process listening on PORT in the cluster's state. */
    fprintf(f,
            "#!/bin/sh\n"
            "dir='%s'; bin='%s'\n"
            "line=$(awk -v p=\"$5\" '$3 == p {print $1, $2}' \"$dir/cluster.state\")\n"
            "name=${line%% *}; pid=${line#* }\n"
            "[ -n \"$name\" ] || exit 3\n"
            "echo \"control: $1 $2 $name\" >> '%s/control.log'\n"
            "case $1 in\n"
            "  kill) kill -KILL \"$pid\" ;;\n"
            "  stop) kill -STOP \"$pid\" ;;\n"
            "  cont) kill -CONT \"$pid\" ;;\n"
            "  term) kill -TERM \"$pid\" ;;\n"
            "  start) \"$bin\" cluster restart --dir \"$dir\" \"$name\" >/dev/null ;;\n"
            "  alive) kill -0 \"$pid\" 2>/dev/null ;;\n"
            "  *) exit 2 ;;\n"
            "esac\n",
            tc_dir(cluster), getenv("STRATA_BIN"), tmp);
    fclose(f);
    assert_int_equal(chmod(script, 0755), 0);
    snprintf(args, sizeof(args),
             "--zk.quorum %s --zk.parent %s --control script:%s --session-timeout-ms 6000 "
             "--kinds kill-rs,kill-master --actions 2 --period-ms 100 --seed 3",
             tc_quorum(cluster), tc_parent(cluster), script);
    char *out = NULL;
    int rc = run_chaos(args, &out);
    if (rc != 0)
        fprintf(stderr, "%s", out);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(out, "2 action(s): 2 done"));
    free(out);
    char logp[700];
    snprintf(logp, sizeof(logp), "%s/control.log", tmp);
    buf_t b = {0};
    FILE *lf = fopen(logp, "r");
    assert_non_null(lf);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), lf)) > 0)
        assert_int_equal(buf_append(&b, chunk, n), ST_OK);
    fclose(lf);
    assert_int_equal(buf_append_u8(&b, 0), ST_OK);
    const char *log = (const char *)b.data;
    assert_non_null(strstr(log, "control: kill regionserver rs-"));
    assert_non_null(strstr(log, "control: start regionserver rs-"));
    assert_non_null(strstr(log, "control: kill master master-"));
    assert_non_null(strstr(log, "control: start master master-"));
    buf_free(&b);
    assert_settled();
}

static void a_recovery_timeout_fails_the_run(void **state)
{
    (void)state;
    char *out = NULL;
    /* The session timeout is 6 s: no region of a killed server reopens within 1 s. */
    int rc = run_chaos("--kinds kill-rs --actions 1 --recovery-timeout-ms 1000 --seed 2", &out);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "FAILED: recovery: regions not open on live servers in time"));
    assert_non_null(strstr(out, "1 action(s): 0 done, 0 skipped, 1 failed"));
    free(out);
    assert_settled(); /* the restore still ran */
}

static void bad_arguments_are_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "--policy wild --actions 1",
        "--actions 1 --kinds kill-everything",
        "--policy noKill",
        "--actions -3",
        "--duration 5x --actions 1",
        "--actions 1 --bogus 1",
        "--actions",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *out = NULL;
        int rc = run_chaos(bad[i], &out);
        if (rc != 2)
            fprintf(stderr, "chaos %s: exit %d: %s", bad[i], rc, out);
        assert_int_equal(rc, 2);
        assert_non_null(strstr(out, "strata chaos: "));
        free(out);
    }
    char *out = NULL;
    assert_int_equal(run_chaos("--zk.quorum 127.0.0.1:1 --control script:/nonexistent/x "
                               "--actions 1",
                               &out),
                     1);
    assert_non_null(strstr(out, "control script /nonexistent/x"));
    free(out);
}

static void load_table(void)
{
    char *err = NULL;
    strata_admin_t *a = strata_admin_open(tc_quorum(cluster), tc_parent(cluster), &err);
    assert_null(err);
    strata_table_descriptor_t *td = strata_table_descriptor_create(TABLE);
    assert_true(strata_table_descriptor_add_family(td, "f"));
    const char *keys[] = {"r2", "r4", "r6", "r8"};
    size_t lens[] = {2, 2, 2, 2};
    strata_admin_create_table(a, td, keys, lens, 4, &err);
    assert_null(err);
    strata_table_descriptor_destroy(td);
    strata_admin_close(a);
    strata_options_t *o = strata_options_create();
    strata_options_set_zk_quorum(o, tc_quorum(cluster));
    strata_options_set_zk_parent(o, tc_parent(cluster));
    strata_client_t *c = strata_client_open(o, &err);
    assert_null(err);
    strata_options_destroy(o);
    strata_table_t *t = strata_table_open(c, TABLE);
    for (int i = 0; i < 2000; i++) {
        char row[32], val[64];
        snprintf(row, sizeof(row), "r%d-%05d", i % 10, i);
        snprintf(val, sizeof(val), "value-%d", i);
        strata_mutation_t *m = strata_put_create(row, strlen(row));
        strata_put_add(m, "f", 1, "q", 1, STRATA_LATEST_TIMESTAMP, val, strlen(val));
        strata_table_put(t, m, &err);
        strata_mutation_destroy(m);
        assert_null(err);
    }
    strata_table_close(t);
    strata_client_close(c);
}


static int start(void **state)
{
    (void)state;
    tc_options o = {.masters = 2, .regionservers = 3};
    tmp = tu_tempdir("chaos");
    if (tc_start(&o, &cluster) != ST_OK) {
        fprintf(stderr, "cluster start: %s\n", st_errmsg());
        return -1;
    }
    load_table();
    return 0;
}

static int stop(void **state)
{
    (void)state;
    int rc = tc_stop(cluster);
    cluster = NULL;
    tu_rmdir(tmp);
    return rc == ST_OK ? 0 : -1;
}

int main(void)
{
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_chaos", "STRATA_BIN is not set (ctest sets it)");
    if (!tu_have_zookeeper())
        return tu_skip_all("test_chaos", "ZooKeeper is not installed (java, /usr/share/java)");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(admin_actions_recover),
        cmocka_unit_test(a_seed_replays_the_choices),
        cmocka_unit_test(server_faults_recover_locally),
        cmocka_unit_test(a_script_backend_drives_the_kills),
        cmocka_unit_test(a_recovery_timeout_fails_the_run),
        cmocka_unit_test(bad_arguments_are_refused),
    };
    return tu_run_group_tests(tests, start, stop);
}
