/*
 * regionserver_main.c - `strata regionserver [--config F] [--key=value ...] [--print-config]`:
 * loads the configuration and runs the region server (rs_server.h) until SIGTERM or
 * SIGINT (tools/daemon.h).
 *
 * Exit status: 0 after a graceful stop, 1 if the server failed to start (a value out of
 * range included) or to stop cleanly, 2 for a configuration that does not load; a cluster
 * member that aborts (ZooKeeper session expired, or the master declared it dead) exits
 * 70 from rs_cluster.c.
 */
#include "regionserver/rs_server.h"
#include "common/status.h"
#include "tools/daemon.h"
#include "tools/tools.h"

static int start(const config *cfg, void **server)
{
    rs_server *s = NULL;
    int rc = rs_server_new(cfg, &s);
    if (rc == ST_OK)
        rc = rs_server_start(s);
    if (rc != ST_OK) {
        rs_server_free(s);
        return rc;
    }
    *server = s;
    return ST_OK;
}

static int stop(void *server)
{
    int rc = rs_server_stop(server);
    rs_server_free(server);
    return rc;
}

int regionserver_main(int argc, char **argv)
{
    static const daemon_ops ops = {.name = "regionserver",
                                   .what = "region server",
                                   .define = rs_config_define,
                                   .start = start,
                                   .stop = stop};
    return daemon_main(&ops, argc, argv);
}
