/*
 * master_ops.c - how the master reaches what lies outside its process: region servers
 * over RPC and ZooKeeper (master_internal.h, master_ops). Every call the assignment, DDL,
 * recovery, chore and status code makes goes through m->ops; the real table below uses
 * the master's RPC client and ZooKeeper session, and tests/unit/test_master_* give the
 * master a table of their own so that its state machines run without a cluster. The
 * election and the session's lifecycle (master.c) use ZooKeeper directly.
 *
 * Thread-safety: as rpc_client.h and zk.h; the table is immutable.
 */
#include <stdlib.h>
#include <string.h>

#include "common/rpc/rpc_proto.h"
#include "common/status.h"
#include "master/master_internal.h"

static int real_rs_call(void *ctx, const char *addr, const char *method, const ProtobufCMessage *req,
                        int timeout_ms, const ProtobufCMessageDescriptor *resp_desc,
                        ProtobufCMessage **resp)
{
    master *m = ctx;
    return rpc_proto_call(m->rpcc, addr, method, req, timeout_ms, resp_desc, resp);
}

static int real_zk_get(void *ctx, const char *path, uint8_t **data, size_t *len, zk_stat *st)
{
    return zk_get(((master *)ctx)->z, path, data, len, st);
}

static int real_zk_set(void *ctx, const char *path, const void *data, size_t len)
{
    return zk_set(((master *)ctx)->z, path, data, len, -1);
}

static int real_zk_create(void *ctx, const char *path, const void *data, size_t len, int flags)
{
    return zk_create(((master *)ctx)->z, path, data, len, flags, NULL, 0);
}

static int real_zk_delete(void *ctx, const char *path)
{
    return zk_delete(((master *)ctx)->z, path, -1);
}

static int real_zk_children(void *ctx, const char *path, char ***names, size_t *n)
{
    return zk_children(((master *)ctx)->z, path, names, n);
}

static int real_zk_ping(void *ctx)
{
    return zk_ping(((master *)ctx)->z);
}

static int real_zk_session_timeout_ms(void *ctx)
{
    return zk_session_timeout_ms(((master *)ctx)->z);
}

static const master_ops real_ops = {
    .rs_call = real_rs_call,
    .zk_get = real_zk_get,
    .zk_set = real_zk_set,
    .zk_create = real_zk_create,
    .zk_delete = real_zk_delete,
    .zk_children = real_zk_children,
    .zk_ping = real_zk_ping,
    .zk_session_timeout_ms = real_zk_session_timeout_ms,
};

void master_set_ops(master *m, const master_ops *ops, void *ctx)
{
    m->ops = ops ? ops : &real_ops;
    m->ops_ctx = ops ? ctx : m;
}

/* ZooKeeper calls outside a session (a backup's status page before it joined) fail as a
 * lost connection would. */
static bool no_zk(master *m)
{
    return m->ops == &real_ops && !m->z;
}

int master_rs_call(master *m, const char *addr, const char *method, const ProtobufCMessage *req,
                   const ProtobufCMessageDescriptor *resp_desc, ProtobufCMessage **resp)
{
    return m->ops->rs_call(m->ops_ctx, addr, method, req, m->rpc_timeout_ms, resp_desc, resp);
}

int master_rs_call_timeout(master *m, const char *addr, const char *method,
                           const ProtobufCMessage *req, int timeout_ms)
{
    return m->ops->rs_call(m->ops_ctx, addr, method, req, timeout_ms, NULL, NULL);
}

int master_zk_get(master *m, const char *path, uint8_t **data, size_t *len, zk_stat *st)
{
    *data = NULL;
    *len = 0;
    if (no_zk(m))
        return st_error(ST_CONNECTION, "zk get %s: no session", path);
    return m->ops->zk_get(m->ops_ctx, path, data, len, st);
}

int master_zk_set(master *m, const char *path, const void *data, size_t len)
{
    if (no_zk(m))
        return st_error(ST_CONNECTION, "zk set %s: no session", path);
    return m->ops->zk_set(m->ops_ctx, path, data, len);
}

int master_zk_create(master *m, const char *path, const void *data, size_t len, int flags)
{
    if (no_zk(m))
        return st_error(ST_CONNECTION, "zk create %s: no session", path);
    return m->ops->zk_create(m->ops_ctx, path, data, len, flags);
}

int master_zk_delete(master *m, const char *path)
{
    if (no_zk(m))
        return st_error(ST_CONNECTION, "zk delete %s: no session", path);
    return m->ops->zk_delete(m->ops_ctx, path);
}

int master_zk_children(master *m, const char *path, char ***names, size_t *n)
{
    *names = NULL;
    *n = 0;
    if (no_zk(m))
        return st_error(ST_CONNECTION, "zk children %s: no session", path);
    return m->ops->zk_children(m->ops_ctx, path, names, n);
}

int master_zk_ping(master *m)
{
    if (no_zk(m))
        return st_error(ST_CONNECTION, "zk ping: no session");
    return m->ops->zk_ping(m->ops_ctx);
}

int master_zk_session_timeout_ms(master *m)
{
    return no_zk(m) ? m->session_timeout_ms : m->ops->zk_session_timeout_ms(m->ops_ctx);
}

int master_active_master(master *m, server_name *out, uint32_t *http_port)
{
    memset(out, 0, sizeof(*out));
    char *path = znodes_path(m->parent, ZNODE_MASTER, NULL);
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = path ? master_zk_get(m, path, &data, &len, NULL)
                  : st_error(ST_NOMEM, "active master: out of memory");
    if (rc == ST_NOT_FOUND)
        rc = st_error(ST_NOT_FOUND, "active master: %s does not exist", path);
    if (rc == ST_OK)
        rc = server_info_decode(data, len, out, http_port);
    free(data);
    free(path);
    return rc;
}
