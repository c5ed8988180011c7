/*
 * znodes.c - znode paths and the records read from them (see znodes.h, docs/znodes.md).
 *
 * Thread-safety: pure functions, except the lookups (as safe as zk.h).
 */
#include "common/zk/znodes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"

int zk_active_master(zk *z, const char *parent, server_name *out, uint32_t *http_port)
{
    uint8_t *data = NULL;
    size_t len = 0;
    memset(out, 0, sizeof(*out));
    char *path = zk_path(parent, "master");
    int rc = path ? zk_get(z, path, &data, &len, NULL)
                  : st_error(ST_NOMEM, "active master: out of memory");
    if (rc == ST_NOT_FOUND)
        rc = st_error(ST_NOT_FOUND, "active master: %s does not exist", path);
    if (rc == ST_OK) {
        rc = server_info_decode(data, len, out, http_port);
        if (rc != ST_OK) {
            char why[256];
            snprintf(why, sizeof(why), "%s", st_errmsg());
            rc = st_error(rc, "active master %s: %s", path, why);
        }
    }
    free(data);
    free(path);
    return rc;
}
