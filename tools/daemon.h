/*
 * daemon.h - what `strata master` and `strata regionserver` share: loading the
 * configuration (defaults < --config file < STRATA_* environment < --KEY=VALUE flags),
 * --print-config and --help, and waiting for SIGTERM/SIGINT to stop gracefully.
 *
 * Signals: SIGTERM and SIGINT are blocked before any thread starts (so every thread
 * inherits the mask) and taken synchronously with sigwait() on the main thread; no code
 * runs in a signal handler. SIGPIPE is ignored (a vanished peer is a socket error).
 *
 * Exit status of daemon_main: 0 after a graceful stop, 1 if the server failed to start or
 * to stop cleanly, 2 for a configuration that does not load.
 */
#ifndef STRATA_TOOLS_DAEMON_H
#define STRATA_TOOLS_DAEMON_H

#include "common/config.h"

typedef struct daemon_ops {
    const char *name; /* "master", "regionserver" (usage and messages) */
    const char *what; /* "master", "region server" (log lines) */
    int (*define)(config *c);
    /* Creates and starts the server from cfg: ST_OK and *server, or a status. */
    int (*start)(const config *cfg, void **server);
    /* Stops and frees it. */
    int (*stop)(void *server);
} daemon_ops;

int daemon_main(const daemon_ops *ops, int argc, char **argv);

#endif
