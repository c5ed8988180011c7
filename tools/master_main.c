/*
 * master_main.c - `strata master [--config F] [--key=value ...] [--print-config]`: loads
 * the configuration and runs the master (master/master.h) until SIGTERM or SIGINT
 * (tools/daemon.h). A master whose ZooKeeper session expires exits 70 (master.c).
 */
#include "master/master.h"
#include "common/status.h"
#include "tools/daemon.h"
#include "tools/tools.h"

static int start(const config *cfg, void **server)
{
    master *m = NULL;
    int rc = master_new(cfg, &m);
    if (rc == ST_OK)
        rc = master_start(m);
    if (rc != ST_OK) {
        master_free(m);
        return rc;
    }
    *server = m;
    return ST_OK;
}

static int stop(void *server)
{
    int rc = master_stop(server);
    master_free(server);
    return rc;
}

int master_main(int argc, char **argv)
{
    static const daemon_ops ops = {.name = "master",
                                   .what = "master",
                                   .define = master_config_define,
                                   .start = start,
                                   .stop = stop};
    return daemon_main(&ops, argc, argv);
}
