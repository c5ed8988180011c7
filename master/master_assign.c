/*
 * master_assign.c - the region state machine (docs/master.md):
 *
 *   CLOSED/OFFLINE/FAILED_OPEN --assign--> OPENING(S) --OpenRegion ok--> OPEN(S)
 *                                             | OpenRegion failed: FAILED_OPEN, next server
 *   OPEN(S) --unassign--> CLOSING(S) --CloseRegion ok (or not online there)--> CLOSED
 *
 * Every state is written to meta before the RPC that acts on it, so a master that takes
 * over finds OPENING/CLOSING regions and finishes them (master_chore.c). A region server
 * refuses to open a region whose ownership znode another session holds, so a region is
 * never open on two servers even when the master's view is stale.
 *
 * Thread-safety: an operation owns its region (master_region_take); mu is taken only for
 * in-memory updates, never across an RPC or a meta write.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/rpc/rpc_header.h"
#include "common/status.h"
#include "master/master_internal.h"

int master_region_take(master *m, const char *encoded, m_region **out, m_table **table)
{
    *out = NULL;
    pthread_mutex_lock(&m->mu);
    for (;;) {
        m_table *t = NULL;
        m_region *r = master_find_region(m, encoded, &t);
        if (!r) {
            pthread_mutex_unlock(&m->mu);
            return st_error(ST_NOT_FOUND, "region %s is unknown", encoded);
        }
        if (!r->busy) {
            r->busy = true;
            *out = r;
            if (table)
                *table = t;
            pthread_mutex_unlock(&m->mu);
            return ST_OK;
        }
        pthread_cond_wait(&m->cv, &m->mu);
    }
}

void master_region_take_ptr(master *m, m_region *r)
{
    pthread_mutex_lock(&m->mu);
    while (r->busy)
        pthread_cond_wait(&m->cv, &m->mu);
    r->busy = true;
    pthread_mutex_unlock(&m->mu);
}

bool master_region_try_take(master *m, m_region *r)
{
    if (r->busy)
        return false;
    r->busy = true;
    return true;
}

void master_region_give(master *m, m_region *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&m->mu);
    r->busy = false;
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
}

int master_set_state(master *m, m_region *r, meta_region_state st, const char *server)
{
    meta_region row;
    int rc = meta_region_copy(&row, &r->mr);
    if (rc != ST_OK)
        return rc;
    row.state = st;
    snprintf(row.server, sizeof(row.server), "%s", server);
    if (st == META_OPEN)
        row.failures = 0;
    else if (st == META_FAILED_OPEN)
        row.failures++;
    rc = master_persist(m, &row, 1);
    if (rc == ST_OK) {
        pthread_mutex_lock(&m->mu);
        r->mr.state = row.state;
        memcpy(r->mr.server, row.server, sizeof(r->mr.server));
        r->mr.failures = row.failures;
        r->since_ms = clock_now_ms();
        if (st == META_FAILED_OPEN)
            r->retry_at_ms = r->since_ms + m->failed_open_retry_ms;
        pthread_mutex_unlock(&m->mu);
    } else {
        LOG_ERROR("master %s: region %s: writing state %s to meta failed: %s", m->name,
                  r->mr.encoded_name, meta_region_state_name(st), st_errmsg());
    }
    meta_region_clear(&row);
    return rc;
}

void master_region_info_proto(const meta_region *mr, Strata__Admin__RegionInfo *out)
{
    strata__admin__region_info__init(out);
    out->table = (char *)mr->table;
    out->encoded_name = (char *)mr->encoded_name;
    out->has_start_key = out->has_end_key = out->has_region_id = 1;
    out->start_key.data = mr->start_key;
    out->start_key.len = mr->start_len;
    out->end_key.data = mr->end_key;
    out->end_key.len = mr->end_len;
    out->region_id = mr->region_id;
}

/* Who holds r's ownership znode: ST_OK with the owner's name, ST_NOT_FOUND. */
static int owner_of(master *m, const char *encoded, char *out, size_t cap)
{
    char *path = znodes_path(m->parent, ZNODE_REGION_OWNER, encoded);
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = ST_OK;
    if (!path)
        rc = st_error(ST_INVALID_ARGUMENT, "region '%s': not a region name", encoded);
    if (rc == ST_OK)
        rc = master_zk_get(m, path, &data, &len, NULL);
    if (rc == ST_OK) {
        Strata__Master__RegionOwner *o = strata__master__region_owner__unpack(NULL, len, data);
        if (!o) {
            rc = st_error(ST_CORRUPTION, "ownership znode of region %s does not parse", encoded);
        } else {
            server_name_format_proto(o->server, out, cap);
            strata__master__region_owner__free_unpacked(o, NULL);
        }
    }
    free(data);
    free(path);
    return rc;
}

/* One OpenRegion call: ST_OK once the region is open on server. */
static int open_on(master *m, m_table *t, m_region *r, const char *server, const char *addr)
{
    Strata__Admin__TableSchema *schema = master_table_schema(t);
    if (!schema)
        return ST_CORRUPTION;
    Strata__Admin__RegionInfo info;
    master_region_info_proto(&r->mr, &info);
    Strata__Admin__OpenRegionRequest__RegionOpenInfo oi =
        STRATA__ADMIN__OPEN_REGION_REQUEST__REGION_OPEN_INFO__INIT;
    oi.region = &info;
    oi.schema = schema;
    Strata__Admin__OpenRegionRequest__RegionOpenInfo *ois[1] = {&oi};
    Strata__Admin__OpenRegionRequest req = STRATA__ADMIN__OPEN_REGION_REQUEST__INIT;
    req.n_open_info = 1;
    req.open_info = ois;
    Strata__Admin__OpenRegionResponse *resp = NULL;
    int rc = master_rs_call(m, addr, "AdminService.OpenRegion", &req.base,
                            &strata__admin__open_region_response__descriptor,
                            (ProtobufCMessage **)&resp);
    if (rc == ST_OK) {
        if (resp->n_opening_state != 1)
            rc = st_error(ST_PROTOCOL, "OpenRegion of %s on %s: %zu answers", r->mr.encoded_name,
                          server, resp->n_opening_state);
        else if (resp->opening_state[0] ==
                 STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__FAILED_OPENING)
            rc = st_error(ST_IO, "region server %s failed to open region %s (its log says why)",
                          server, r->mr.encoded_name);
    }
    if (resp)
        strata__admin__open_region_response__free_unpacked(resp, NULL);
    strata__admin__table_schema__free_unpacked(schema, NULL);
    return rc;
}

static bool server_live(master *m, const char *name, char *addr, size_t cap)
{
    pthread_mutex_lock(&m->mu);
    m_server *s = master_server_find(m, name);
    if (s && addr)
        snprintf(addr, cap, "%s", s->addr);
    pthread_mutex_unlock(&m->mu);
    return s != NULL;
}

/* Whether the server's <parent>/rs znode is gone (its session ended), though the master
 * may not have seen the change yet. */
static bool rs_node_gone(master *m, const char *server)
{
    char *path = znodes_path(m->parent, ZNODE_RS, server);
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = path ? master_zk_get(m, path, &data, &len, NULL) : ST_NOMEM;
    free(data);
    free(path);
    return rc == ST_NOT_FOUND;
}

/* An open on server failed and the server died meanwhile: it may have opened the region
 * and taken writes, which are in its WAL only. The region stays OPENING there in meta and
 * the server's recovery (queued here, if the master had not seen the death yet) closes and
 * reopens it after the split. */
static int server_died(master *m, m_region *r, const char *server, int rc)
{
    char why[512];
    snprintf(why, sizeof(why), "%s", st_errmsg());
    pthread_mutex_lock(&m->mu);
    if (master_server_find(m, server))
        master_server_dead(m, server);
    pthread_mutex_unlock(&m->mu);
    return st_error(rc, "opening region %s on %s: %s; the server died and its recovery "
                    "reopens the region", r->mr.encoded_name, server, why);
}

/* The server claimed the region's ownership znode and then stopped answering (killed
 * while opening it): no other server can open the region until that znode goes with the
 * server's session, so trying them only ends in FAILED_OPEN and its retry delay. The
 * region stays OPENING on the server: its recovery reopens it, as it reopens every region
 * meta places there; if the server answers again, the next assignment resumes the open. */
static int held_by_silent(master *m, m_region *r, const char *server, int rc)
{
    char why[512];
    snprintf(why, sizeof(why), "%s", st_errmsg());
    LOG_WARN("master %s: region %s: %s holds its ownership and does not answer (%s); it stays "
             "OPENING there until that server's recovery reopens it",
             m->name, r->mr.encoded_name, server, why);
    return st_error(rc,
                    "opening region %s on %s: the server holds the region but does not "
                    "answer (%s); its recovery reopens the region",
                    r->mr.encoded_name, server, why);
}

int master_assign(master *m, m_table *t, m_region *r, const char *target)
{
    int rc = master_check_active(m);
    if (rc != ST_OK)
        return rc;
    if (r->retired) /* split or merged away since the caller found it */
        return st_error(ST_NOT_FOUND, "region %s was split or merged", r->mr.encoded_name);
    if (r->mr.state == META_OPEN && r->mr.server[0] && server_live(m, r->mr.server, NULL, 0) &&
        (!target || strcmp(target, r->mr.server) == 0))
        return ST_OK;
    /* A region meta still places on a server that is not live may have edits only in that
     * server's WAL: it opens elsewhere only after that server's recovery split the WAL
     * (the recovery closes it in meta, then reassigns it). */
    if (r->mr.server[0] && !server_live(m, r->mr.server, NULL, 0))
        return st_error(ST_NOT_SERVING,
                        "region %s is on dead server %s, which is not recovered yet (its WALs "
                        "may not be split, and its edits may be only there); it is reopened "
                        "when that server's recovery ends", r->mr.encoded_name, r->mr.server);
    char avoid[SERVER_NAME_MAX] = "";
    int last = ST_OK;
    for (int attempt = 0; attempt < m->assign_attempts && !atomic_load(&m->stopping); attempt++) {
        char server[SERVER_NAME_MAX], addr[300];
        pthread_mutex_lock(&m->mu);
        if (target && attempt == 0) {
            m_server *s = master_server_find(m, target);
            if (s && !s->stopping)
                snprintf(server, sizeof(server), "%s", s->name);
            else
                rc = st_error(ST_NOT_FOUND, "region server %s is not live", target);
        } else if (r->mr.state == META_OPENING && r->mr.server[0] && attempt == 0 &&
                   master_server_find(m, r->mr.server)) {
            snprintf(server, sizeof(server), "%s", r->mr.server); /* resume an open */
            rc = ST_OK;
        } else {
            rc = master_server_pick(m, avoid[0] ? avoid : NULL, server, sizeof(server));
        }
        if (rc == ST_OK) /* counted as the server's until meta says OPENING */
            snprintf(r->target, sizeof(r->target), "%s", server);
        pthread_mutex_unlock(&m->mu);
        if (rc != ST_OK)
            return rc;
        if (!server_live(m, server, addr, sizeof(addr))) {
            pthread_mutex_lock(&m->mu);
            r->target[0] = 0;
            pthread_mutex_unlock(&m->mu);
            continue;
        }
        rc = master_set_state(m, r, META_OPENING, server);
        pthread_mutex_lock(&m->mu);
        r->target[0] = 0;
        pthread_mutex_unlock(&m->mu);
        if (rc != ST_OK)
            return rc;
        rc = open_on(m, t, r, server, addr);
        if (rc != ST_OK && rpc_status_retryable(rc)) {
            /* A lost answer: the ownership znode tells whether it opened there. */
            char owner[SERVER_NAME_MAX];
            if (owner_of(m, r->mr.encoded_name, owner, sizeof(owner)) == ST_OK &&
                strcmp(owner, server) == 0) {
                rc = open_on(m, t, r, server, addr);
                if (rc == ST_CONNECTION || rc == ST_CLOSED)
                    return held_by_silent(m, r, server, rc);
            } else if (rs_node_gone(m, server)) {
                return server_died(m, r, server, rc);
            }
        }
        if (rc == ST_OK) {
            rc = master_set_state(m, r, META_OPEN, server);
            if (rc == ST_OK)
                LOG_INFO("master %s: region %s of %s open on %s", m->name, r->mr.encoded_name,
                         t->name, server);
            return rc;
        }
        last = rc;
        char why[512];
        snprintf(why, sizeof(why), "%s", st_errmsg());
        LOG_WARN("master %s: opening region %s on %s failed: %s", m->name, r->mr.encoded_name,
                 server, why);
        if (!server_live(m, server, NULL, 0)) {
            /* Died meanwhile: its recovery reassigns the region. */
            return st_error(last, "opening region %s on %s: %s", r->mr.encoded_name, server, why);
        }
        int s2 = master_set_state(m, r, META_FAILED_OPEN, "");
        if (s2 != ST_OK)
            return s2;
        snprintf(avoid, sizeof(avoid), "%s", server);
        clock_sleep_ms(50 * (attempt + 1));
        st_error(last, "opening region %s on %s: %s", r->mr.encoded_name, server, why);
    }
    return last != ST_OK ? last : st_error(ST_NOT_SERVING, "region %s: no server took it",
                                           r->mr.encoded_name);
}

int master_moved_init(master_moved *out, const meta_region *r, const char *server)
{
    strata__client__moved_region__init(&out->msg);
    int rc = server_name_parse(server, &out->sn);
    if (rc != ST_OK)
        return rc;
    out->msg.encoded_name = (char *)r->encoded_name;
    out->msg.has_start_key = r->start_len > 0;
    out->msg.start_key = (ProtobufCBinaryData){r->start_len, r->start_key};
    out->msg.has_end_key = r->end_len > 0;
    out->msg.end_key = (ProtobufCBinaryData){r->end_len, r->end_key};
    out->msg.host = out->sn.host;
    out->msg.port = out->sn.port;
    out->msg.has_start_code = 1;
    out->msg.start_code = out->sn.start_code;
    return ST_OK;
}

int master_unassign(master *m, m_region *r)
{
    return master_unassign_moved(m, r, NULL);
}

int master_unassign_moved(master *m, m_region *r, const Strata__Client__RegionMovedHint *hint)
{
    int rc = master_check_active(m);
    if (rc != ST_OK)
        return rc;
    if (r->retired)
        return ST_OK; /* split or merged away: closed already */
    if (!r->mr.server[0]) {
        if (r->mr.state == META_CLOSED || r->mr.state == META_OFFLINE)
            return ST_OK;
        return master_set_state(m, r, META_CLOSED, "");
    }
    char server[SERVER_NAME_MAX], addr[300];
    snprintf(server, sizeof(server), "%s", r->mr.server);
    if (!server_live(m, server, addr, sizeof(addr)))
        return st_error(ST_NOT_SERVING,
                        "region %s is on dead server %s; it is closed when that server's "
                        "recovery ends", r->mr.encoded_name, server);
    rc = master_set_state(m, r, META_CLOSING, server);
    if (rc != ST_OK)
        return rc;
    Strata__Admin__CloseRegionRequest req = STRATA__ADMIN__CLOSE_REGION_REQUEST__INIT;
    Strata__Client__RegionMovedHint stamped;
    req.encoded_name = r->mr.encoded_name;
    if (hint) {
        stamped = *hint;
        stamped.has_issued_ms = 1;
        stamped.issued_ms = (uint64_t)clock_now_ms();
        req.moved_hint = &stamped;
    }
    for (int attempt = 0; attempt < 20 && !atomic_load(&m->stopping); attempt++) {
        rc = master_rs_call(m, addr, "AdminService.CloseRegion", &req.base, NULL, NULL);
        if (rc == ST_OK || rc == ST_NOT_SERVING || rc == ST_NOT_FOUND)
            return master_set_state(m, r, META_CLOSED, "");
        if (!server_live(m, server, NULL, 0))
            break;
        if (!rpc_status_retryable(rc))
            break;
        clock_sleep_ms(100 * (attempt + 1));
    }
    return st_error(rc, "closing region %s on %s: %s", r->mr.encoded_name, server, st_errmsg());
}

int master_region_admin(master *m, m_region *r, const char *method, bool major,
                        const char *family)
{
    char addr[300];
    if (r->mr.state != META_OPEN || !server_live(m, r->mr.server, addr, sizeof(addr)))
        return st_error(ST_NOT_SERVING, "region %s is not open (%s)", r->mr.encoded_name,
                        meta_region_state_name(r->mr.state));
    if (strcmp(method, "AdminService.FlushRegion") == 0) {
        Strata__Admin__FlushRegionRequest req = STRATA__ADMIN__FLUSH_REGION_REQUEST__INIT;
        req.encoded_name = r->mr.encoded_name;
        req.family = (char *)family;
        return master_rs_call(m, addr, method, &req.base, NULL, NULL);
    }
    Strata__Admin__CompactRegionRequest req = STRATA__ADMIN__COMPACT_REGION_REQUEST__INIT;
    req.encoded_name = r->mr.encoded_name;
    req.family = (char *)family;
    req.has_major = 1;
    req.major = major;
    return master_rs_call(m, addr, method, &req.base, NULL, NULL);
}

/* ---- bulk assignment ---- */

typedef struct bulk {
    master *m;
    m_table *t;
    m_region **v;
    size_t n;
    master_bulk_op op;
    pthread_mutex_t mu;
    size_t next;
    int rc;
    char msg[512];
} bulk;

static void *bulk_worker(void *arg)
{
    bulk *b = arg;
    for (;;) {
        pthread_mutex_lock(&b->mu);
        size_t i = b->next++;
        pthread_mutex_unlock(&b->mu);
        if (i >= b->n)
            return NULL;
        m_region *r = b->v[i];
        master_region_take_ptr(b->m, r);
        int rc = b->op == MASTER_BULK_OPEN    ? master_assign(b->m, b->t, r, NULL)
                 : b->op == MASTER_BULK_CLOSE ? master_unassign(b->m, r)
                                              : master_repair(b->m, b->t, r);
        master_region_give(b->m, r);
        if (rc != ST_OK) {
            pthread_mutex_lock(&b->mu);
            if (b->rc == ST_OK) {
                b->rc = rc;
                snprintf(b->msg, sizeof(b->msg), "%s", st_errmsg());
            }
            pthread_mutex_unlock(&b->mu);
        }
    }
}

int master_repair(master *m, m_table *t, m_region *r)
{
    pthread_mutex_lock(&m->mu);
    if (r->retired) { /* split or merged away since the caller found it */
        pthread_mutex_unlock(&m->mu);
        return ST_OK;
    }
    meta_table_state ts = t->state;
    meta_region_state st = r->mr.state;
    bool has_server = r->mr.server[0] != 0;
    bool live = has_server && master_server_find(m, r->mr.server) != NULL;
    bool recovering = has_server && master_crash_pending(m, r->mr.server);
    bool retry_due = st != META_FAILED_OPEN || clock_now_ms() >= r->retry_at_ms;
    if (has_server && !live && !recovering)
        master_server_dead(m, r->mr.server); /* a server meta names but nobody tracks */
    pthread_mutex_unlock(&m->mu);
    if (has_server && !live)
        return ST_OK; /* recovery of that server closes and reassigns it */
    bool enabled = meta_table_state_wants_open(ts);
    if (!enabled)
        return has_server ? master_unassign(m, r) : ST_OK;
    if (st == META_OPEN && live)
        return ST_OK;
    if (st == META_CLOSING) {
        int rc = master_unassign(m, r);
        if (rc != ST_OK)
            return rc;
    }
    if (!retry_due)
        return ST_OK;
    return master_assign(m, t, r, NULL);
}

int master_assign_many(master *m, m_table *t, m_region **v, size_t n, master_bulk_op op)
{
    if (n == 0)
        return ST_OK;
    bulk b = {.m = m, .t = t, .v = v, .n = n, .op = op, .rc = ST_OK};
    pthread_mutex_init(&b.mu, NULL);
    size_t nthreads = n < 8 ? n : 8;
    pthread_t th[8];
    size_t started = 0;
    for (; started < nthreads; started++)
        if (pthread_create(&th[started], NULL, bulk_worker, &b) != 0)
            break;
    if (started == 0)
        bulk_worker(&b);
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    pthread_mutex_destroy(&b.mu);
    if (b.rc != ST_OK)
        return st_error(b.rc, "%s", b.msg);
    return ST_OK;
}

int master_move_region(master *m, const char *encoded, const char *dest, const char *expect_from,
                       char *where, size_t cap)
{
    m_region *r = NULL;
    m_table *t = NULL;
    char to[SERVER_NAME_MAX] = "";
    int rc = master_region_take(m, encoded, &r, &t);
    if (rc != ST_OK)
        return rc;
    pthread_mutex_lock(&m->mu);
    if (t->state != META_TABLE_ENABLED)
        rc = st_error(ST_INVALID_ARGUMENT, "region %s: table %s is not enabled", encoded, t->name);
    else if (expect_from && (r->mr.state != META_OPEN || strcmp(r->mr.server, expect_from) != 0))
        rc = st_error(ST_NOT_SERVING, "move %s: the region is no longer open on %s", encoded,
                      expect_from);
    if (rc == ST_OK && dest && dest[0]) {
        m_server *s = master_server_find(m, dest);
        if (!s || s->stopping)
            rc = st_error(ST_NOT_FOUND, "move %s: region server %s is not live", encoded, dest);
        else
            snprintf(to, sizeof(to), "%s", s->name);
    } else if (rc == ST_OK) {
        rc = master_server_pick(m, r->mr.server[0] ? r->mr.server : NULL, to, sizeof(to));
    }
    pthread_mutex_unlock(&m->mu);
    if (rc == ST_OK && strcmp(to, r->mr.server) != 0) {
        /* HBase's TransitRegionStateProcedure (MOVE); its state is the region's row. */
        const char *regions[1] = {encoded};
        uint64_t id = master_proc_begin(m, "TransitRegionStateProcedure", t->name, regions, 1);
        master_proc_set_step(m, id, "MOVE:CLOSE");
        master_moved dst;
        Strata__Client__MovedRegion *one[1] = {&dst.msg};
        Strata__Client__RegionMovedHint hint = STRATA__CLIENT__REGION_MOVED_HINT__INIT;
        if (master_moved_init(&dst, &r->mr, to) == ST_OK) {
            hint.n_region = 1;
            hint.region = one;
        }
        rc = master_unassign_moved(m, r, &hint);
        master_proc_set_step(m, id, "MOVE:OPEN");
        if (rc == ST_OK && expect_from)
            master_inject_crash(m, "LoadBalancer", "MOVE_OPEN"); /* closed, not yet open */
        if (rc == ST_OK)
            rc = master_assign(m, t, r, to);
        master_proc_end(m, id, false, rc == ST_OK ? M_PROC_SUCCESS : M_PROC_FAILED,
                        rc == ST_OK ? NULL : st_errmsg());
    }
    if (where)
        snprintf(where, cap, "%s", r->mr.server);
    char now[SERVER_NAME_MAX];
    snprintf(now, sizeof(now), "%s", r->mr.server);
    master_region_give(m, r);
    if (rc == ST_OK)
        LOG_INFO("master %s: moved region %s to %s", m->name, encoded, now);
    return rc;
}
