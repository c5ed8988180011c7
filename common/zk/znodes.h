/*
 * znodes.h - every ZooKeeper node a Strata process uses, by name (docs/znodes.md), and
 * the cluster records read from them. No other module spells a znode path.
 *
 * Thread-safety: the path builders are pure; znodes_active_master is as safe as zk.h.
 */
#ifndef STRATA_COMMON_ZK_ZNODES_H
#define STRATA_COMMON_ZK_ZNODES_H

#include <stdint.h>

#include "common/server_name.h"
#include "common/zk/zk.h"

/* Reads the active master from <parent>/master: ST_OK and *out (and *http_port if not
 * NULL); ST_NOT_FOUND if no master is active. */
int zk_active_master(zk *z, const char *parent, server_name *out, uint32_t *http_port);

#endif
