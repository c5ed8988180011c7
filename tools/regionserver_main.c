/*
 * regionserver_main.c - `strata regionserver [--config F] [--key=value ...] [--print-config]`:
 * loads the configuration (defaults < file < STRATA_* environment < flags), starts the
 * region server (rs_server.h), and waits for SIGTERM or SIGINT to stop it gracefully.
 *
 * Signals: SIGTERM and SIGINT are blocked before any thread starts (so every thread
 * inherits the mask) and taken synchronously with sigwait() on the main thread; no code
 * runs in a signal handler. SIGPIPE is ignored (a vanished client is a socket error).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "common/config.h"
#include "common/log.h"
#include "common/status.h"
#include "regionserver/rs_server.h"
#include "tools/tools.h"

extern char **environ;

static void usage(FILE *out)
{
    fprintf(out, "usage: strata regionserver [--config FILE] [--KEY=VALUE ...] [--print-config]\n"
                 "  keys: docs/configuration.md (--print-config lists them with their values)\n");
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

static int load_config(config *cfg, int argc, char **argv, int *print)
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
        fprintf(stderr, "strata regionserver: %s\n", st_errmsg());
        return 2;
    }
    int level = log_parse_level(config_get_string(cfg, "log.level"));
    if (level < 0) {
        fprintf(stderr, "strata regionserver: log.level '%s' is not error/warn/info/debug\n",
                config_get_string(cfg, "log.level"));
        return 2;
    }
    log_set_level((log_level)level);
    return 0;
}

static int serve(const config *cfg, const sigset_t *stop_signals)
{
    rs_server *s = NULL;
    int rc = rs_server_new(cfg, &s);
    if (rc == ST_OK)
        rc = rs_server_start(s);
    if (rc != ST_OK) {
        LOG_ERROR("region server failed to start: %s (%s)", st_strerror(rc), st_errmsg());
        rs_server_free(s);
        return 1;
    }
    int sig = 0;
    sigwait(stop_signals, &sig);
    LOG_INFO("region server %s: signal %d (%s), stopping", rs_server_name(s), sig,
             strsignal(sig));
    rc = rs_server_stop(s);
    rs_server_free(s);
    return rc == ST_OK ? 0 : 1;
}

int regionserver_main(int argc, char **argv)
{
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);
    signal(SIGPIPE, SIG_IGN);

    config *cfg = NULL;
    int print = 0, status = 0;
    if (config_new(&cfg) != ST_OK || rs_config_define(cfg) != ST_OK) {
        fprintf(stderr, "strata regionserver: %s\n", st_errmsg());
        config_free(cfg);
        return 1;
    }
    status = load_config(cfg, argc, argv, &print);
    if (status == 1)
        usage(stdout), status = 0;
    else if (status == 0 && print)
        config_print(cfg, stdout);
    else if (status == 0)
        status = serve(cfg, &stop_signals);
    else
        usage(stderr);
    config_free(cfg);
    return status;
}
