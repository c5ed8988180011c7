/*
 * znodes.c - znode paths and the records read from them (see znodes.h, docs/znodes.md).
 *
 * Thread-safety: pure functions, except the lookups (as safe as zk.h).
 */
#include "common/zk/znodes.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"

/* Names never change: they are the cluster's layout in ZooKeeper (docs/znodes.md). */
static const struct {
    const char *name; /* "" for the parent itself */
    bool dir;         /* has children */
} nodes[] = {
    [ZNODE_PARENT] = {"", false},
    [ZNODE_CLUSTER_ID] = {"clusterid", false},
    [ZNODE_MASTER] = {"master", false},
    [ZNODE_BACKUP_MASTERS] = {"backup-masters", true},
    [ZNODE_RS] = {"rs", true},
    [ZNODE_REGION_OWNER] = {"region-owner", true},
    [ZNODE_TABLE] = {"table", true},
    [ZNODE_SPLIT_WAL] = {"splitWAL", true},
    [ZNODE_BALANCER] = {"balancer", false},
    [ZNODE_SWITCH] = {"switch", true},
    [ZNODE_NORMALIZER] = {"normalizer", false},
};

static const char *parent_or_default(const char *parent)
{
    return parent && parent[0] ? parent : ZNODES_DEFAULT_PARENT;
}

char *znodes_path(const char *parent, znode_id node, const char *child)
{
    if ((unsigned)node >= sizeof(nodes) / sizeof(nodes[0]))
        return NULL;
    if (child && (!nodes[node].dir || !child[0] || strchr(child, '/')))
        return NULL;
    char rel[1024];
    int n = child ? snprintf(rel, sizeof(rel), "%s/%s", nodes[node].name, child)
                  : snprintf(rel, sizeof(rel), "%s", nodes[node].name);
    if (n < 0 || (size_t)n >= sizeof(rel))
        return NULL;
    return zk_path(parent_or_default(parent), rel);
}

const char *znodes_child_of(const char *parent, znode_id dir, const char *path)
{
    char *base = znodes_path(parent, dir, NULL);
    const char *out = NULL;
    if (base && nodes[dir].dir) {
        size_t n = strlen(base);
        if (strncmp(path, base, n) == 0 && path[n] == '/' && path[n + 1] &&
            !strchr(path + n + 1, '/'))
            out = path + n + 1;
    }
    free(base);
    return out;
}

int znodes_create_dirs(zk *z, const char *parent)
{
    static const znode_id dirs[] = {ZNODE_PARENT, ZNODE_BACKUP_MASTERS, ZNODE_RS,
                                    ZNODE_REGION_OWNER, ZNODE_TABLE, ZNODE_SPLIT_WAL,
                                    ZNODE_SWITCH};
    int rc = ST_OK;
    for (size_t i = 0; rc == ST_OK && i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        char *p = znodes_path(parent, dirs[i], NULL);
        rc = p ? zk_create_all(z, p) : st_error(ST_NOMEM, "znodes: out of memory");
        if (rc != ST_OK && p) {
            char why[256];
            snprintf(why, sizeof(why), "%s", st_errmsg());
            rc = st_error(rc, "creating %s: %s", p, why);
        }
        free(p);
    }
    return rc;
}

int znodes_active_master(zk *z, const char *parent, server_name *out, uint32_t *http_port)
{
    uint8_t *data = NULL;
    size_t len = 0;
    memset(out, 0, sizeof(*out));
    char *path = znodes_path(parent, ZNODE_MASTER, NULL);
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
