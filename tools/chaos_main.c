/*
 * chaos_main.c - `strata chaos`: the chaos monkey on its own (tools/chaos.h,
 * docs/chaos.md). Runs the policy against a cluster until its bounds, logging every
 * action, then prints the summary; SIGINT or SIGTERM ends the run after the action under
 * way restored the cluster.
 *
 * Exit status: 0 if every action that ran recovered and the cluster settled after it, 1
 * if one failed, 2 for bad arguments.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/status.h"
#include "strata/strata.h"
#include "tools/chaos.h"
#include "tools/tools.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
    (void)sig;
    interrupted = 1;
}

static void help(FILE *f)
{
    fprintf(f, "usage: strata chaos (--dir D | --zk.quorum Q [--zk.parent P] --control C)\n"
               "                    (--duration D | --actions N) [options]\n"
               "  Breaks a running cluster on a schedule, one action at a time: each is\n"
               "  logged when it starts and ends, with how long until the regions it took\n"
               "  away served again (recovered) and the cluster settled; a summary at the end.\n"
               "  --dir D             a local cluster (strata cluster start --dir D)\n"
               "  --zk.quorum Q, --zk.parent P  any cluster, with --control docker|script:PATH\n"
               "  --json              each action also as a JSON line, the summary as JSON\n");
    chaos_opts_help(f, "");
    fprintf(f, "  Exit status: 0 if every action that ran recovered and settled, 1 if not.\n");
}

int chaos_main(int argc, char **argv)
{
    chaos_opts o;
    memset(&o, 0, sizeof(o));
    bool json = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            help(stdout);
            return 0;
        }
        if (strcmp(a, "--json") == 0) {
            json = true;
            continue;
        }
        if (strncmp(a, "--", 2) != 0) {
            fprintf(stderr, "strata chaos: unexpected argument '%s'\n", a);
            return 2;
        }
        if (!v) {
            fprintf(stderr, "strata chaos: %s needs a value\n", a);
            return 2;
        }
        i++;
        if (strcmp(a, "--dir") == 0) {
            o.dir = v;
            continue;
        }
        if (strcmp(a, "--zk.quorum") == 0) {
            o.zk_quorum = v;
            continue;
        }
        if (strcmp(a, "--zk.parent") == 0) {
            o.zk_parent = v;
            continue;
        }
        int rc = chaos_opt_set(&o, a + 2, v);
        if (rc == ST_NOT_FOUND) {
            fprintf(stderr, "strata chaos: unknown option %s (strata chaos --help)\n", a);
            return 2;
        }
        if (rc != ST_OK) {
            fprintf(stderr, "strata chaos: %s\n", st_errmsg());
            return 2;
        }
    }
    if (!o.dir && !o.zk_quorum) {
        fprintf(stderr, "strata chaos: give --dir D or --zk.quorum Q (strata chaos --help)\n");
        return 2;
    }
    /* The client library's warnings (connections refused while a server is down) are what
     * the monkey causes; STRATA_LOG_LEVEL still asks for them. */
    if (!getenv("STRATA_LOG_LEVEL"))
        strata_set_log_level(STRATA_LOG_ERROR);
    o.log = stdout;
    o.json_log = json;
    chaos_monkey *m = NULL;
    if (chaos_start(&o, &m) != ST_OK) {
        fprintf(stderr, "strata chaos: %s\n", st_errmsg());
        return o.duration_ms || o.actions ? 1 : 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    const chaos_event *ev = NULL;
    size_t n = 0;
    for (;;) {
        if (interrupted) {
            fprintf(stdout, "chaos: interrupted; finishing the action under way\n");
            chaos_stop(m);
            break;
        }
        /* chaos_events is read only after the thread ended; poll its end cheaply. */
        clock_sleep_ms(100);
        if (chaos_finished(m)) {
            chaos_wait(m);
            break;
        }
    }
    n = chaos_events(m, &ev);
    chaos_summary(stdout, ev, n, json);
    int status = chaos_all_ok(ev, n) ? 0 : 1;
    chaos_free(m);
    return status;
}
