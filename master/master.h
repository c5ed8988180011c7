/*
 * master.h - the master (docs/master.md): election through ZooKeeper, the meta table,
 * region-server tracking and crash recovery, region assignment, table DDL, and
 * MasterService over RPC.
 *
 * Lifecycle: master_config_define -> (load the config) -> master_new -> master_start ->
 * ... -> master_stop -> master_free. master_start binds the RPC port, joins ZooKeeper,
 * registers as a backup master and returns; an election thread becomes the active
 * master as soon as <parent>/master can be created, and only then opens meta and
 * serves MasterService (a backup answers ST_NOT_SERVING naming the active master).
 * Losing the ZooKeeper session ends the process (_exit(70)): a master that may have been
 * replaced must not act any more.
 * Thread-safety: master_is_active/master_port from any thread; the lifecycle calls from
 * one owner.
 */
#ifndef STRATA_MASTER_MASTER_H
#define STRATA_MASTER_MASTER_H

#include <stdbool.h>

#include "common/config.h"

typedef struct master master;

/* Defines every master key (docs/configuration.md) in c. */
int master_config_define(config *c);
/* Reads the settings of cfg (not kept): ST_INVALID_ARGUMENT if root.dir or zk.quorum is
 * missing or a value is out of range. */
int master_new(const config *cfg, master **out);
int master_start(master *m);
int master_port(const master *m);
bool master_is_active(master *m);
/* Stops serving, gives up the master znode (a backup takes over), closes meta. */
int master_stop(master *m);
void master_free(master *m);

#endif
