/*
 * master_fake.h - a fake cluster behind the master's operations table (master_ops), for
 * the unit tests of the master's state machines (tests/unit/test_master_*.c):
 *
 *   ZooKeeper     an in-memory tree: path -> data, ephemeral owner, version; children
 *                 listed sorted; ST_NOT_FOUND for a missing node or parent, ST_EXISTS for
 *                 an existing one, ST_INVALID_ARGUMENT for deleting a node with children
 *                 (as zk.h maps them); ping answers ST_OK or a programmed failure.
 *   servers       fake region servers by name "host,port,startcode" (address
 *                 "host:port") answering AdminService.OpenRegion, CloseRegion, FlushRegion,
 *                 CompactRegion, GetRegionInfo and GetServerLoad from the messages of
 *                 common/proto/admin.proto (requests re-read from their packed bytes). A
 *                 server keeps the regions it has open and, as a real region server does,
 *                 creates <parent>/region-owner/<encoded> (a RegionOwner record, ephemeral
 *                 under its own session) before an open, refuses an open whose ownership
 *                 node another session holds (ST_EXISTS), and deletes the node after a close.
 *   faults        refuse opens (FAILED_OPENING), fail calls of a method with a status
 *                 before or after they took effect (a lost answer), be unreachable
 *                 (ST_CONNECTION), or be killed (session expiry: its rs znode and ownership
 *                 znodes go, every call fails with ST_CONNECTION).
 *   observation   a log of every call (server, method, region, status) and a hook run at
 *                 each RPC and each ZooKeeper create/set/delete the master makes, before it
 *                 takes effect, so a test can read meta and the root directory then.
 *
 * The master under test is a real one (master_new, master_activate without the chore
 * thread) on a real storage engine in a temp root directory, with the fake as its ops.
 *
 * Thread-safety: every function may be called from any thread (the master's bulk
 * assignment calls in from several); the hook runs on the calling thread with no lock of
 * the fake held, and may call the fake. cmocka asserts belong on the test's thread only:
 * a hook records what it saw.
 */
#ifndef STRATA_TESTS_MASTER_FAKE_H
#define STRATA_TESTS_MASTER_FAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "master/master_internal.h"

#define MFAKE_PARENT "/strata-unit"
#define MFAKE_SESSION_TIMEOUT_MS 2000

typedef struct mfake mfake;

/* A fresh fake whose tree holds the parent and its directory nodes (znodes.h). */
mfake *mfake_new(void);
/* Frees the fake (after every master using it is freed). NULL is a no-op. */
void mfake_free(mfake *f);

/* ---- the master ---- */

/* Makes and activates a master (without the chore thread) on root with the fake as its
 * ops: root.dir, a dummy zk.quorum, zk.parent MFAKE_PARENT, no HTTP, a chore interval of
 * 10 ms, master.failed.open.retry.ms 200, master.region.rpc.timeout.ms 100,
 * master.assign.attempts 3, master.reconcile.grace.ms 50, zk.session.timeout.ms
 * MFAKE_SESSION_TIMEOUT_MS; then the "key", "value" pairs of kv (NULL-terminated, may be
 * NULL) over those. The master is named "master.unit,17000,<start_code>" (0: now).
 * ST_OK and *out, or the failure (nothing left). Free with master_free. */
int mfake_master_start(mfake *f, const char *root, uint64_t start_code, const char *const *kv,
                       master **out);
/* Sends the master a heartbeat (master_handle_report) from server listing the regions it
 * has open; the master's answer. */
int mfake_report(mfake *f, master *m, const char *server);
/* The same with a given list of regions instead. */
int mfake_report_regions(mfake *f, master *m, const char *server, const char *const *encoded,
                         size_t n);

/* ---- ZooKeeper ---- */

/* Creates or overwrites path (its missing ancestors created persistent and empty);
 * owner 0 is persistent, else the ephemeral owner's session id. */
void mfake_zk_put(mfake *f, const char *path, const void *data, size_t len, int64_t owner);
bool mfake_zk_exists(mfake *f, const char *path);
/* The node's data as a NUL-terminated malloc'ed copy (free it) and *len; NULL if absent. */
char *mfake_zk_data(mfake *f, const char *path, size_t *len);
/* Deletes path and everything under it (no hook, no log). */
void mfake_zk_remove(mfake *f, const char *path);
/* Pings answer status from now on (ST_OK: they succeed again). */
void mfake_zk_set_ping(mfake *f, int status);
/* The session timeout the fake reports to the master (ms). */
void mfake_zk_set_session_timeout(mfake *f, int ms);
/* The path znodes_path(MFAKE_PARENT, node, child) (free it); asserts it builds. */
char *mfake_path(znode_id node, const char *child);

/* ---- region servers ---- */

/* Registers a server "host,port,start_code": its rs znode (a ServerInfo record, ephemeral
 * under a session of its own) appears and it answers calls to "host:port" (the newest
 * server registered at an address answers). Copies its name to name (SERVER_NAME_MAX). */
void mfake_server_add(mfake *f, const char *host, int port, uint64_t start_code, char *name);
/* The server's session expires: its rs znode and every ephemeral node of its session go,
 * it forgets its regions, and its calls fail with ST_CONNECTION. */
void mfake_server_kill(mfake *f, const char *server);
/* The process stops answering (ST_CONNECTION) or answers again; its session and znodes
 * stay. */
void mfake_server_set_unreachable(mfake *f, const char *server, bool unreachable);
/* The next `times` OpenRegion calls (-1: every one) answer FAILED_OPENING for each region
 * (nothing opened). 0 ends it. */
void mfake_server_refuse_open(mfake *f, const char *server, int times);
/* The next `times` calls of method (-1: every one; 0 ends it) fail with status: `after`
 * the call took effect (a lost answer), else before it did anything. */
void mfake_server_fail(mfake *f, const char *server, const char *method, int status, int times,
                       bool after);
/* The next call of method takes effect, then the server dies before answering: its session
 * expires (as mfake_server_kill) and the call fails with ST_CONNECTION. */
void mfake_server_crash_after(mfake *f, const char *server, const char *method);
/* Whether the server has region open. */
bool mfake_server_has(mfake *f, const char *server, const char *encoded);
/* How many regions the server has open. */
size_t mfake_server_nopen(mfake *f, const char *server);
/* The server loses the region without a call (as after a local failure): forgotten, its
 * ownership node deleted. */
void mfake_server_drop_region(mfake *f, const char *server, const char *encoded);
/* The server opens the region without a call: its ownership node made, the region kept. */
void mfake_server_take_region(mfake *f, const char *server, const char *table,
                              const char *encoded);
/* The session id of the server (the ephemeral owner of its nodes). */
int64_t mfake_server_session(mfake *f, const char *server);

/* ---- observation ---- */

typedef enum mfake_event_kind {
    MFAKE_EV_RPC = 0,
    MFAKE_EV_ZK_CREATE = 1,
    MFAKE_EV_ZK_SET = 2,
    MFAKE_EV_ZK_DELETE = 3,
} mfake_event_kind;

typedef struct mfake_event {
    mfake_event_kind kind;
    const char *server;  /* RPC: the server at the address ("" if none) */
    const char *method;  /* RPC: "AdminService.OpenRegion" ... */
    const char *encoded; /* RPC: the region named by the request ("" if none) */
    const char *families; /* OpenRegion: the schema's families, comma separated */
    const char *path;    /* ZooKeeper: the node */
} mfake_event;

typedef void (*mfake_hook_fn)(void *arg, const mfake_event *ev);
/* Runs fn (NULL: none) at each RPC and ZooKeeper change the master makes, before it takes
 * effect (also for a call that will fail). */
void mfake_set_hook(mfake *f, mfake_hook_fn fn, void *arg);

/* How many RPCs were made that match server, method and encoded (NULL matches any). */
size_t mfake_count(mfake *f, const char *server, const char *method, const char *encoded);
/* The families of the schema the last OpenRegion of encoded carried ("" if none). */
void mfake_last_open_families(mfake *f, const char *encoded, char *out, size_t cap);
/* Forgets the call log. */
void mfake_clear_calls(mfake *f);

/* ---- helpers for the master under test ---- */

/* Creates table (families comma separated, split keys as C strings) through
 * master_create_table; its status. */
int mfake_create_table(master *m, const char *table, const char *families,
                       const char *const *splits, size_t nsplits);
/* The meta row of region encoded (ST_OK and *out: clear it with meta_region_clear). */
int mfake_meta_row(master *m, const char *encoded, meta_region *out);
/* The encoded name of the i-th region (start-key order) of table in the master's memory
 * into out (64 bytes); false if there is none. */
bool mfake_region_name(master *m, const char *table, size_t i, char *out);
/* The number of regions of table in the master's memory (0 if unknown). */
size_t mfake_region_count(master *m, const char *table);

#endif
