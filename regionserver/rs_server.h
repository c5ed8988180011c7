/*
 * rs_server.h - the region server (docs/regionserver.md): one storage engine, the regions
 * it is told to open, and the ClientService / AdminService RPC methods over them.
 *
 * Lifecycle: rs_config_define -> (load the config) -> rs_server_new -> rs_server_start ->
 * ... -> rs_server_stop -> rs_server_free.
 * rs_server_start binds the RPC port, names the server "<advertised host>,<port>,<start
 * code>" (its WAL directory under <root>/WALs), splits the WAL directories an earlier
 * life of this host:port left behind, opens the engine, and only then serves calls
 * (calls that arrive earlier get ST_SERVER_BUSY).
 * With zk.quorum set the server is a cluster member (docs/regionserver.md, "Cluster
 * mode"): start joins ZooKeeper instead of splitting old WALs (the master recovers them)
 * and registers <parent>/rs/<server name> once serving; region opens and closes take and
 * give up ownership znodes; writes are self-fenced; a session expiry or a "you are dead"
 * from the master ends the process with _exit(70).
 * Thread-safety: rs_server_port/rs_server_name from any thread once started; the
 * lifecycle calls from one owner.
 */
#ifndef STRATA_REGIONSERVER_RS_SERVER_H
#define STRATA_REGIONSERVER_RS_SERVER_H

#include <stdint.h>

#include "common/config.h"

typedef struct rs_server rs_server;

/* Defines every region server key (docs/configuration.md) in c. */
int rs_config_define(config *c);

/* Reads the settings of cfg (not kept). ST_INVALID_ARGUMENT if root.dir is missing or a
 * value is out of range. */
int rs_server_new(const config *cfg, rs_server **out);
/* Binds, recovers old WALs, opens the engine, serves, and writes the ready file. */
int rs_server_start(rs_server *s);
int rs_server_port(const rs_server *s);
const char *rs_server_name(const rs_server *s);
/* Graceful stop: stops the RPC server (answering calls already received), closes the
 * scanners, closes every region with a flush, closes the engine, then splits this
 * server's own WAL directory (so that edits of regions closed without a flush are kept as
 * recovered edits) and removes it. Returns ST_OK, or the first failure. Idempotent.
 * In a cluster it first closes each region while RPC still answers, giving up its
 * ownership znode and reporting it closed to the active master; the WAL directory is
 * removed without a split if every region was flushed (else left for the master); the
 * rs znode is deleted and the session closed last. */
int rs_server_stop(rs_server *s);
void rs_server_free(rs_server *s);

#endif
