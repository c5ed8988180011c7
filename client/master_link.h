/*
 * master_link.h - the client's way to the active master: it reads the master's address
 * from ZooKeeper (<parent>/master, docs/znodes.md), caches it, and sends MasterService
 * calls there, following a master change.
 *
 * A call that fails because the master is unreachable (ST_CONNECTION, ST_CLOSED, ST_IO),
 * is a backup or not yet serving (ST_NOT_SERVING), or is busy (ST_SERVER_BUSY,
 * ST_REGION_OPENING) is retried after a short pause (50 ms doubling to 1 s), re-reading
 * the znode first when the master itself may have changed, until the call's timeout is
 * spent. No active master in ZooKeeper counts as ST_NOT_SERVING (never ST_NOT_FOUND, which
 * is kept for the master's own answers: an unknown table, region or namespace). Any other
 * answer is final. A retried call may have been applied already by a master that died
 * before answering: a repeated create then reports ST_EXISTS.
 *
 * The ZooKeeper session is opened on first use (not by master_link_open) and opened again
 * if it expired.
 *
 * Thread-safety: every function may be called from any thread at once, except
 * master_link_close. One mutex (a leaf lock) guards the session and the cached address;
 * it is held while the znode is read, never during an RPC.
 */
#ifndef STRATA_CLIENT_MASTER_LINK_H
#define STRATA_CLIENT_MASTER_LINK_H

#include <protobuf-c/protobuf-c.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/server_name.h"

typedef struct master_link master_link;

#define MASTER_LINK_DEFAULT_SESSION_TIMEOUT_MS 30000

/* Checks the arguments and makes a link; nothing is contacted yet. quorum is
 * "host:port[,host:port...]" (required); parent NULL or "" means ZNODES_DEFAULT_PARENT;
 * session_timeout_ms <= 0 means 30000. ST_OK and *out, ST_INVALID_ARGUMENT naming the bad
 * argument, ST_NOMEM (*out NULL on failure). */
int master_link_open(const char *quorum, const char *parent, int session_timeout_ms,
                     master_link **out);
/* Closes the ZooKeeper session and the RPC client. NULL is a no-op. */
void master_link_close(master_link *m);

/* Caps each attempt of a call at ms (<= 0: an attempt may take the whole time left). */
void master_link_set_attempt_timeout_ms(master_link *m, int ms);

/* Calls method ("MasterService.<Name>", or just "<Name>") with the packed request on the
 * active master, retrying as the file comment says for up to timeout_ms (<= 0: 60000).
 * ST_OK with *resp replaced by the response body (old content freed), or the final status
 * with st_errmsg() naming the method and the master (or the lack of one). */
int master_link_call(master_link *m, const char *method, const void *req, size_t req_len,
                     int64_t timeout_ms, buf_t *resp);

/* The same with protobuf messages: packs req, calls, and unpacks the answer as resp_desc
 * into *resp (free with protobuf_c_message_free_unpacked(*resp, NULL)); *resp is NULL on
 * failure (ST_CORRUPTION if the answer does not parse). */
int master_link_call_pb(master_link *m, const char *method, const ProtobufCMessage *req,
                        const ProtobufCMessageDescriptor *resp_desc, int64_t timeout_ms,
                        ProtobufCMessage **resp);

/* Reads the active master from ZooKeeper now: ST_OK and *out (and *http_port if not NULL),
 * ST_NOT_SERVING if none is active, or the ZooKeeper failure. */
int master_link_active(master_link *m, server_name *out, uint32_t *http_port);

/* "MasterService.<Name>" for name (copied as is if it already has a '.'), into out. */
void master_link_method(const char *name, char *out, size_t cap);

/* Checks a quorum string: non-empty "host:port" entries separated by commas.
 * ST_OK or ST_INVALID_ARGUMENT naming the entry. */
int master_link_check_quorum(const char *quorum);

#endif
