/*
 * znodes.h - every ZooKeeper node a Strata process uses, by name (docs/znodes.md), and
 * the records read from them. No other module spells a znode path: callers name a node
 * (znode_id) and, for the directory nodes, a child.
 *
 *   <parent>                        ZNODE_PARENT          (default /strata)
 *   <parent>/clusterid              ZNODE_CLUSTER_ID
 *   <parent>/master                 ZNODE_MASTER
 *   <parent>/backup-masters/<s>     ZNODE_BACKUP_MASTERS  (child: a server name)
 *   <parent>/rs/<s>                 ZNODE_RS              (child: a server name)
 *   <parent>/region-owner/<r>       ZNODE_REGION_OWNER    (child: an encoded region name)
 *   <parent>/table/<t>              ZNODE_TABLE           (child: "ns:table" or "table")
 *   <parent>/splitWAL/<s>           ZNODE_SPLIT_WAL       (child: a server name)
 *   <parent>/balancer               ZNODE_BALANCER
 *   <parent>/switch/<name>          ZNODE_SWITCH          (child: "split" or "merge")
 *   <parent>/normalizer             ZNODE_NORMALIZER
 *
 * Thread-safety: the path builders are pure; the lookups are as safe as zk.h.
 */
#ifndef STRATA_COMMON_ZK_ZNODES_H
#define STRATA_COMMON_ZK_ZNODES_H

#include <stdint.h>

#include "common/server_name.h"
#include "common/zk/zk.h"

#define ZNODES_DEFAULT_PARENT "/strata"

typedef enum znode_id {
    ZNODE_PARENT = 0,
    ZNODE_CLUSTER_ID,
    ZNODE_MASTER,
    ZNODE_BACKUP_MASTERS,
    ZNODE_RS,
    ZNODE_REGION_OWNER,
    ZNODE_TABLE,
    ZNODE_SPLIT_WAL,
    ZNODE_BALANCER,
    ZNODE_SWITCH,
    ZNODE_NORMALIZER,
} znode_id;

/* The path of node under parent (NULL or "": ZNODES_DEFAULT_PARENT); for a directory node
 * with child not NULL, the path of that child. malloc'ed (free it), or NULL when out of
 * memory or when child is given for a node that has no children, or is empty or holds '/'. */
char *znodes_path(const char *parent, znode_id node, const char *child);

/* The last part of a path under a directory node: "rs/<s>" -> "<s>". NULL if path is not
 * a child of that node under parent. Borrowed from path. */
const char *znodes_child_of(const char *parent, znode_id dir, const char *path);

/* Creates the persistent directory nodes (the parent, backup-masters, rs, region-owner,
 * table, splitWAL, switch) that do not exist yet. ST_OK, or the ZooKeeper failure naming the node. */
int znodes_create_dirs(zk *z, const char *parent);

/* Reads the active master from <parent>/master: ST_OK and *out (and *http_port if not
 * NULL); ST_NOT_FOUND if no master is active, ST_CORRUPTION for an unreadable record. */
int znodes_active_master(zk *z, const char *parent, server_name *out, uint32_t *http_port);

#endif
