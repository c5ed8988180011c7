/*
 * daemon.c - the shared main of the long-running servers (daemon.h).
 */
#include "tools/daemon.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "common/status.h"

extern char **environ;

static void usage(const daemon_ops *ops, FILE *out)
{
    fprintf(out, "usage: strata %s [--config FILE] [--KEY=VALUE ...] [--print-config]\n"
                 "  keys: docs/configuration.md (--print-config lists them with their values)\n",
            ops->name);
}

/* Takes --config and --print-config out of argv; the rest are key flags. */
static int split_args(int argc, char **argv, const char **file, int *print, char **rest,
                      int *nrest)
{
    *nrest = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--print-config") == 0)
            *print = 1;
        else if (strcmp(argv[i], "--config") == 0 && i + 1 < argc)
            *file = argv[++i];
        else if (strncmp(argv[i], "--config=", 9) == 0)
            *file = argv[i] + 9;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
        else
            rest[(*nrest)++] = argv[i];
    }
    return 0;
}

static int load_config(const daemon_ops *ops, config *cfg, int argc, char **argv, int *print)
{
    const char *file = NULL;
    char *rest[argc > 0 ? argc : 1];
    int nrest = 0;
    if (split_args(argc, argv, &file, print, rest, &nrest))
        return 1;
    int rc = ST_OK;
    if (file)
        rc = config_load_file(cfg, file);
    if (rc == ST_OK)
        rc = config_load_env(cfg, environ);
    if (rc == ST_OK)
        rc = config_load_args(cfg, nrest, rest);
    if (rc != ST_OK) {
        fprintf(stderr, "strata %s: %s\n", ops->name, st_errmsg());
        return 2;
    }
    int level = log_parse_level(config_get_string(cfg, "log.level"));
    if (level < 0) {
        fprintf(stderr, "strata %s: log.level '%s' is not error/warn/info/debug\n", ops->name,
                config_get_string(cfg, "log.level"));
        return 2;
    }
    log_set_level((log_level)level);
    return 0;
}

static int serve(const daemon_ops *ops, const config *cfg, const sigset_t *stop_signals)
{
    void *server = NULL;
    int rc = ops->start(cfg, &server);
    if (rc != ST_OK) {
        LOG_ERROR("%s failed to start: %s (%s)", ops->what, st_strerror(rc), st_errmsg());
        return 1;
    }
    int sig = 0;
    sigwait(stop_signals, &sig);
    LOG_INFO("%s: signal %d (%s), stopping", ops->what, sig, strsignal(sig));
    rc = ops->stop(server);
    return rc == ST_OK ? 0 : 1;
}

int daemon_main(const daemon_ops *ops, int argc, char **argv)
{
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
    signal(SIGPIPE, SIG_IGN);

    config *cfg = NULL;
    int print = 0, status = 0;
    if (config_new(&cfg) != ST_OK || ops->define(cfg) != ST_OK) {
        fprintf(stderr, "strata %s: %s\n", ops->name, st_errmsg());
        config_free(cfg);
        return 1;
    }
    status = load_config(ops, cfg, argc, argv, &print);
    if (status == 1)
        usage(ops, stdout), status = 0;
    else if (status == 0 && print)
        config_print(cfg, stdout);
    else if (status == 0)
        status = serve(ops, cfg, &stop_signals);
    else
        usage(ops, stderr);
    config_free(cfg);
    return status;
}
