/*
 * rest_main.c - `strata rest [start] [--config F] [--KEY=VALUE ...] [--print-config]`: the
 * REST gateway (rest/rest.h, docs/rest.md) until SIGTERM or SIGINT, which drain it: no new
 * connections, the requests in flight answered (up to 30 s), then exit 0.
 */
#include <string.h>

#include "common/status.h"
#include "rest/rest.h"
#include "tools/daemon.h"
#include "tools/tools.h"

static int start(const config *cfg, void **server)
{
    rest_server *s = NULL;
    int rc = rest_server_start(cfg, &s);
    if (rc == ST_OK)
        *server = s;
    return rc;
}

static int stop(void *server)
{
    rest_server_drain(server, 30000);
    rest_server_free(server);
    return ST_OK;
}

int rest_main(int argc, char **argv)
{
    static const daemon_ops ops = {.name = "rest",
                                   .what = "REST gateway",
                                   .define = rest_config_define,
                                   .start = start,
                                   .stop = stop};
    /* `strata rest start ...` as `hbase rest start`: the word is optional */
    if (argc > 1 && strcmp(argv[1], "start") == 0) {
        argv[1] = argv[0];
        return daemon_main(&ops, argc - 1, argv + 1);
    }
    return daemon_main(&ops, argc, argv);
}
