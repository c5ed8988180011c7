/*
 * master_service.c - MasterService (common/proto/master.proto; docs/master.md): region
 * server reports, LocateRegion and GetTableRegions for clients, DDL, region admin and
 * cluster status. Every method answers ST_NOT_SERVING (naming the active master) on a
 * backup. Answers that describe in-memory state are packed under mu.
 *
 * Thread-safety: handlers run on RPC handler threads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/rpc/rpc_proto.h"
#include "common/status.h"
#include "common/taskmon.h"
#include "master/master_internal.h"

/* Every method answers ST_NOT_SERVING on a backup, with a retry hint. */
int master_rpc_check_active(void *ctx, rpc_reply *reply)
{
    int rc = master_check_active(ctx);
    if (rc != ST_OK)
        reply->retry_after_ms = 200;
    return rc;
}

/* ---- locations ---- */

typedef struct loc_buf {
    Strata__Master__RegionLocation *locs;
    Strata__Master__RegionLocation **ptrs;
    Strata__Admin__RegionInfo *infos;
    Strata__Master__ServerName *servers;
    server_name *names;
    size_t n;
} loc_buf;

static int loc_alloc(loc_buf *b, size_t n)
{
    memset(b, 0, sizeof(*b));
    size_t k = n ? n : 1;
    b->locs = calloc(k, sizeof(*b->locs));
    b->ptrs = calloc(k, sizeof(*b->ptrs));
    b->infos = calloc(k, sizeof(*b->infos));
    b->servers = calloc(k, sizeof(*b->servers));
    b->names = calloc(k, sizeof(*b->names));
    if (!b->locs || !b->ptrs || !b->infos || !b->servers || !b->names)
        return st_error(ST_NOMEM, "out of memory");
    return ST_OK;
}

static void loc_free(loc_buf *b)
{
    free(b->locs);
    free(b->ptrs);
    free(b->infos);
    free(b->servers);
    free(b->names);
}

/* The server clients are told for r (mu held): only that of an open region on a live
 * server that has reported to this master; NULL otherwise. */
static m_server *serving_server(master *m, const m_region *r)
{
    if (r->mr.state != META_OPEN || !r->mr.server[0])
        return NULL;
    m_server *ms = master_server_find(m, r->mr.server);
    return ms && ms->reported ? ms : NULL;
}

/* Adds r (mu held; pointers borrowed from r). */
static void loc_add(master *m, loc_buf *b, m_region *r)
{
    size_t i = b->n++;
    Strata__Admin__RegionInfo *ri = &b->infos[i];
    master_region_info_proto(&r->mr, ri);
    Strata__Master__RegionLocation *l = &b->locs[i];
    strata__master__region_location__init(l);
    l->region = ri;
    l->has_state = 1;
    l->state = (Strata__Master__RegionState)r->mr.state;
    if (r->mr.server[0] && server_name_parse(r->mr.server, &b->names[i]) == ST_OK) {
        Strata__Master__ServerName *sn = &b->servers[i];
        strata__master__server_name__init(sn);
        sn->host = b->names[i].host;
        sn->port = b->names[i].port;
        sn->start_code = b->names[i].start_code;
        if (serving_server(m, r))
            l->server = sn;
    }
    b->ptrs[i] = l;
}

static int key_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
    size_t l = al < bl ? al : bl;
    int c = l ? memcmp(a, b, l) : 0;
    return c ? c : (al < bl ? -1 : al > bl);
}

/* The index of t's region holding row: the last whose start key <= row (mu held). */
static size_t region_index(const m_table *t, const ProtobufCBinaryData *row)
{
    size_t lo = 0, hi = t->n;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (key_cmp(t->regions[mid]->mr.start_key, t->regions[mid]->mr.start_len, row->data,
                    row->len) <= 0)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Whether r is open on a live server that has reported, other than exclude unless r is
 * not the region exclude_region (mu held). */
static bool open_elsewhere(master *m, const m_region *r, const char *exclude,
                           const char *exclude_region)
{
    m_server *ms = serving_server(m, r);
    if (!ms)
        return false;
    if (exclude_region && exclude_region[0] && strcmp(r->mr.encoded_name, exclude_region) != 0)
        return true;
    return !exclude || !exclude[0] ||
           (strcmp(ms->name, exclude) != 0 && strcmp(ms->addr, exclude) != 0);
}

/* Finds the table (mu held) and checks it can be located in. */
static int locate_table(master *m, const char *q, m_table **out)
{
    m_table *t = master_find_table(m, q);
    *out = t;
    if (!t)
        return st_error(ST_NOT_FOUND, "table %s does not exist", q);
    if (t->state == META_TABLE_DISABLED || t->state == META_TABLE_DISABLING)
        return st_error(ST_TABLE_DISABLED, "table %s is disabled", q);
    if (!t->n)
        return st_error(ST_NOT_SERVING, "table %s has no regions", q);
    return ST_OK;
}

static int locate_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__LocateRegionRequest *req = (Strata__Master__LocateRegionRequest *)msg;
    char q[256];
    int rc = master_qualify(req->table, q, sizeof(q));
    if (rc != ST_OK)
        return rc;
    size_t prefetch = req->has_prefetch ? req->prefetch : 0;
    if (prefetch > 100)
        prefetch = 100;
    uint32_t wait_ms = req->has_wait_ms ? req->wait_ms : 0;
    if (wait_ms > MASTER_LOCATE_WAIT_MAX_MS)
        wait_ms = MASTER_LOCATE_WAIT_MAX_MS;
    bool waiter = false;
    if (wait_ms) { /* a bounded number of handlers may wait; the others answer at once */
        waiter = atomic_fetch_add(&m->locate_waiters, 1) < MASTER_LOCATE_WAITERS(m);
        if (!waiter) {
            atomic_fetch_sub(&m->locate_waiters, 1);
            wait_ms = 0;
        }
    }
    uint64_t deadline = clock_mono_ns() + (uint64_t)wait_ms * 1000000u;
    loc_buf b = {0};
    m_table *t = NULL;
    size_t lo = 0;
    pthread_mutex_lock(&m->mu);
    for (;;) { /* the table is found again after each wait: it may have changed or gone */
        rc = locate_table(m, q, &t);
        if (rc != ST_OK)
            break;
        lo = region_index(t, &req->row);
        uint64_t now = clock_mono_ns();
        if (!wait_ms || now >= deadline || atomic_load(&m->stopping) ||
            open_elsewhere(m, t->regions[lo], req->exclude_server, req->exclude_region))
            break;
        uint64_t until = deadline - now < 50000000u ? deadline : now + 50000000u;
        struct timespec ts = clock_realtime_after_ms((int)((until - now + 999999) / 1000000));
        pthread_cond_timedwait(&m->cv, &m->mu, &ts);
    }
    if (rc == ST_OK)
        rc = loc_alloc(&b, prefetch + 1);
    for (size_t i = lo; rc == ST_OK && i < t->n && i <= lo + prefetch; i++)
        loc_add(m, &b, t->regions[i]);
    if (rc == ST_OK) {
        Strata__Master__LocateRegionResponse resp = STRATA__MASTER__LOCATE_REGION_RESPONSE__INIT;
        resp.location = b.ptrs;
        resp.n_location = b.n;
        rc = rpc_proto_reply(reply, &resp.base);
    }
    pthread_mutex_unlock(&m->mu);
    if (waiter)
        atomic_fetch_sub(&m->locate_waiters, 1);
    loc_free(&b);
    return rc;
}

static int table_regions_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__GetTableRegionsRequest *req = (Strata__Master__GetTableRegionsRequest *)msg;
    char q[256];
    int rc = master_qualify(req->table, q, sizeof(q));
    if (rc != ST_OK)
        return rc;
    loc_buf b = {0};
    pthread_mutex_lock(&m->mu);
    m_table *t = master_find_table(m, q);
    rc = t ? loc_alloc(&b, t->n) : st_error(ST_NOT_FOUND, "table %s does not exist", q);
    for (size_t i = 0; rc == ST_OK && i < t->n; i++)
        loc_add(m, &b, t->regions[i]);
    if (rc == ST_OK) {
        Strata__Master__GetTableRegionsResponse resp =
            STRATA__MASTER__GET_TABLE_REGIONS_RESPONSE__INIT;
        resp.location = b.ptrs;
        resp.n_location = b.n;
        rc = rpc_proto_reply(reply, &resp.base);
    }
    pthread_mutex_unlock(&m->mu);
    loc_free(&b);
    return rc;
}

/* ---- reports ---- */

static int report_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    return master_handle_report(m, (Strata__Master__RegionServerReportRequest *)msg);
}

static int closed_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    return master_handle_region_closed(m, (Strata__Master__ReportRegionClosedRequest *)msg);
}

/* ---- namespaces ---- */

static int create_ns_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__CreateNamespaceRequest *req = (Strata__Master__CreateNamespaceRequest *)msg;
    return master_create_namespace_props(m, req->name, req->property, req->n_property);
}

static int modify_ns_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__ModifyNamespaceRequest *req = (Strata__Master__ModifyNamespaceRequest *)msg;
    return master_modify_namespace(m, req->name, req->property, req->n_property);
}

static int get_ns_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    const char *ns = ((Strata__Master__GetNamespaceRequest *)msg)->name;
    Strata__Master__NamespaceDescriptor *d = NULL;
    int rc = meta_get_namespace(m->meta, ns, &d);
    if (rc == ST_NOT_FOUND)
        return st_error(ST_NOT_FOUND, "namespace %s does not exist", ns);
    if (rc != ST_OK)
        return rc;
    Strata__Master__GetNamespaceResponse resp = STRATA__MASTER__GET_NAMESPACE_RESPONSE__INIT;
    resp.namespace_ = d;
    rc = rpc_proto_reply(reply, &resp.base);
    strata__master__namespace_descriptor__free_unpacked(d, NULL);
    return rc;
}

static int delete_ns_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    return master_delete_namespace(m, ((Strata__Master__DeleteNamespaceRequest *)msg)->name);
}

static int list_ns_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    char **names = NULL;
    size_t n = 0;
    int rc = meta_list_namespaces(m->meta, &names, &n);
    if (rc != ST_OK)
        return rc;
    Strata__Master__ListNamespacesResponse resp = STRATA__MASTER__LIST_NAMESPACES_RESPONSE__INIT;
    resp.name = names;
    resp.n_name = n;
    rc = rpc_proto_reply(reply, &resp.base);
    meta_names_free(names, n);
    return rc;
}

/* ---- tables ---- */

static int create_table_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    return master_create_table(m, (Strata__Master__CreateTableRequest *)msg);
}

/* Fills d for t (mu held); *schema must be freed by the caller. */
static int describe(const m_table *t, Strata__Master__TableDescription *d,
                    Strata__Admin__TableSchema **schema)
{
    strata__master__table_description__init(d);
    *schema = master_table_schema(t);
    if (!*schema)
        return ST_CORRUPTION;
    d->schema = *schema;
    d->state = (Strata__Master__TableState)t->state;
    d->has_regions = 1;
    d->regions = (uint32_t)t->n;
    return ST_OK;
}

static int describe_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__DescribeTableRequest *req = (Strata__Master__DescribeTableRequest *)msg;
    char q[256];
    int rc = master_qualify(req->table, q, sizeof(q));
    if (rc != ST_OK)
        return rc;
    Strata__Admin__TableSchema *schema = NULL;
    Strata__Master__TableDescription d;
    pthread_mutex_lock(&m->mu);
    m_table *t = master_find_table(m, q);
    rc = t ? describe(t, &d, &schema) : st_error(ST_NOT_FOUND, "table %s does not exist", q);
    pthread_mutex_unlock(&m->mu);
    if (rc == ST_OK) {
        Strata__Master__DescribeTableResponse resp = STRATA__MASTER__DESCRIBE_TABLE_RESPONSE__INIT;
        resp.table = &d;
        rc = rpc_proto_reply(reply, &resp.base);
    }
    if (schema)
        strata__admin__table_schema__free_unpacked(schema, NULL);
    return rc;
}

static int list_tables_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__ListTablesRequest *req = (Strata__Master__ListTablesRequest *)msg;
    const char *ns = req->namespace_;
    pthread_mutex_lock(&m->mu);
    size_t n = 0, k = m->ntables ? m->ntables : 1;
    Strata__Master__TableDescription *ds = calloc(k, sizeof(*ds));
    Strata__Master__TableDescription **ptrs = calloc(k, sizeof(*ptrs));
    Strata__Admin__TableSchema **schemas = calloc(k, sizeof(*schemas));
    int rc = ds && ptrs && schemas ? ST_OK : st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; rc == ST_OK && i < m->ntables; i++) {
        const char *name = m->tables[i]->name;
        size_t l = ns ? strlen(ns) : 0;
        if (ns && !(strncmp(name, ns, l) == 0 && name[l] == ':'))
            continue;
        rc = describe(m->tables[i], &ds[n], &schemas[n]);
        if (rc == ST_OK) {
            ptrs[n] = &ds[n];
            n++;
        }
    }
    pthread_mutex_unlock(&m->mu);
    if (rc == ST_OK) {
        Strata__Master__ListTablesResponse resp = STRATA__MASTER__LIST_TABLES_RESPONSE__INIT;
        resp.table = ptrs;
        resp.n_table = n;
        rc = rpc_proto_reply(reply, &resp.base);
    }
    for (size_t i = 0; schemas && i < n; i++)
        strata__admin__table_schema__free_unpacked(schemas[i], NULL);
    free(ds);
    free(ptrs);
    free(schemas);
    return rc;
}

static int modify_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__ModifyTableRequest *req = (Strata__Master__ModifyTableRequest *)msg;
    return master_modify_table_async(m, req->schema, req->has_async && req->async);
}

static int enable_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    return master_enable_table(m, ((Strata__Master__EnableTableRequest *)msg)->table);
}

static int disable_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    return master_disable_table(m, ((Strata__Master__DisableTableRequest *)msg)->table);
}

static int truncate_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__TruncateTableRequest *req = (Strata__Master__TruncateTableRequest *)msg;
    return master_truncate_table(m, req->table, req->has_preserve_splits && req->preserve_splits);
}

static int delete_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    return master_delete_table(m, ((Strata__Master__DeleteTableRequest *)msg)->table);
}

/* ---- region admin ---- */

static int answer_server(rpc_reply *reply, const char *server, bool move)
{
    server_name sn;
    memset(&sn, 0, sizeof(sn));
    Strata__Master__ServerName p = STRATA__MASTER__SERVER_NAME__INIT;
    if (server_name_parse(server, &sn) == ST_OK) {
        p.host = sn.host;
        p.port = sn.port;
        p.start_code = sn.start_code;
    }
    if (move) {
        Strata__Master__MoveRegionResponse resp = STRATA__MASTER__MOVE_REGION_RESPONSE__INIT;
        resp.server = p.host ? &p : NULL;
        return rpc_proto_reply(reply, &resp.base);
    }
    Strata__Master__AssignRegionResponse resp = STRATA__MASTER__ASSIGN_REGION_RESPONSE__INIT;
    resp.server = p.host ? &p : NULL;
    return rpc_proto_reply(reply, &resp.base);
}

static int table_enabled(master *m, m_table *t, const char *encoded)
{
    pthread_mutex_lock(&m->mu);
    bool ok = t->state == META_TABLE_ENABLED;
    pthread_mutex_unlock(&m->mu);
    return ok ? ST_OK
              : st_error(ST_INVALID_ARGUMENT, "region %s: table %s is not enabled", encoded,
                         t->name);
}

static int move_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__MoveRegionRequest *req = (Strata__Master__MoveRegionRequest *)msg;
    char where[SERVER_NAME_MAX] = "";
    int rc = master_move_region(m, req->encoded_name, req->dest, NULL, where, sizeof(where));
    return rc == ST_OK ? answer_server(reply, where, true) : rc;
}

/* master_assign refuses a region meta places on a dead server not yet recovered with
 * ST_NOT_SERVING, which a client takes for "no active master here" and retries until its
 * timeout (by then the recovery may have reopened the region, and the refusal is never
 * seen). To the caller of AssignRegion it is a refusal: final, with its message. */
static int refusal_is_final(master *m, const m_region *r, int rc)
{
    if (rc != ST_NOT_SERVING || master_check_active(m) != ST_OK)
        return rc;
    pthread_mutex_lock(&m->mu);
    bool dead = r->mr.server[0] && !master_server_find(m, r->mr.server);
    pthread_mutex_unlock(&m->mu);
    if (!dead)
        return rc;
    char why[512];
    snprintf(why, sizeof(why), "%s", st_errmsg());
    return st_error(ST_INVALID_ARGUMENT, "%s", why);
}

static int assign_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__AssignRegionRequest *req = (Strata__Master__AssignRegionRequest *)msg;
    m_region *r = NULL;
    m_table *t = NULL;
    int rc = master_region_take(m, req->encoded_name, &r, &t);
    if (rc != ST_OK)
        return rc;
    rc = table_enabled(m, t, req->encoded_name);
    if (rc == ST_OK) {
        const char *regions[1] = {req->encoded_name};
        uint64_t id = master_proc_begin(m, "TransitRegionStateProcedure", t->name, regions, 1);
        master_proc_set_step(m, id, "ASSIGN");
        rc = master_assign(m, t, r, NULL);
        master_proc_end(m, id, false, rc == ST_OK ? M_PROC_SUCCESS : M_PROC_FAILED,
                        rc == ST_OK ? NULL : st_errmsg());
        rc = refusal_is_final(m, r, rc);
    }
    char where[SERVER_NAME_MAX];
    snprintf(where, sizeof(where), "%s", r->mr.server);
    master_region_give(m, r);
    return rc == ST_OK ? answer_server(reply, where, false) : rc;
}

static int unassign_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__UnassignRegionRequest *req = (Strata__Master__UnassignRegionRequest *)msg;
    m_region *r = NULL;
    m_table *t = NULL;
    int rc = master_region_take(m, req->encoded_name, &r, &t);
    if (rc != ST_OK)
        return rc;
    const char *regions[1] = {req->encoded_name};
    uint64_t id = master_proc_begin(m, "TransitRegionStateProcedure", t->name, regions, 1);
    master_proc_set_step(m, id, "UNASSIGN");
    rc = master_unassign(m, r);
    master_proc_end(m, id, false, rc == ST_OK ? M_PROC_SUCCESS : M_PROC_FAILED,
                    rc == ST_OK ? NULL : st_errmsg());
    master_region_give(m, r);
    /* As in HBase, the region is reassigned (the chore reopens it). */
    master_chore_wake(m);
    return rc;
}

/* Whether the packed TableSchema has the named family (ST_NOT_FOUND naming it if not). */
static int table_has_family(const char *table, const uint8_t *schema, size_t len,
                            const char *family)
{
    Strata__Admin__TableSchema *ts = strata__admin__table_schema__unpack(NULL, len, schema);
    if (!ts)
        return st_error(ST_CORRUPTION, "table %s: its schema cannot be read", table);
    bool found = false;
    for (size_t i = 0; i < ts->n_family && !found; i++)
        found = strcmp(ts->family[i]->name, family) == 0;
    strata__admin__table_schema__free_unpacked(ts, NULL);
    return found ? ST_OK
                 : st_error(ST_NOT_FOUND, "column family %s does not exist in table %s", family,
                            table);
}

/* Runs a flush or compaction on a region or on every region of a table; family (NULL or
 * "": every family) narrows it to one store. */
static int region_admin(master *m, const char *table, const char *encoded, const char *method,
                        bool major, const char *family)
{
    if (family && !family[0])
        family = NULL;
    if ((!table || !table[0]) == (!encoded || !encoded[0]))
        return st_error(ST_INVALID_ARGUMENT, "%s: name exactly one of a table and a region", method);
    if (encoded && encoded[0]) {
        m_region *r = NULL;
        int rc = master_region_take(m, encoded, &r, NULL);
        if (rc == ST_OK)
            rc = master_region_admin(m, r, method, major, family);
        master_region_give(m, r);
        return rc;
    }
    char q[256];
    int rc = master_qualify(table, q, sizeof(q));
    if (rc != ST_OK)
        return rc;
    pthread_mutex_lock(&m->mu);
    m_table *t = master_find_table(m, q);
    size_t n = t ? t->n : 0;
    char(*names)[64] = calloc(n ? n : 1, sizeof(*names));
    for (size_t i = 0; names && i < n; i++)
        memcpy(names[i], t->regions[i]->mr.encoded_name, 64);
    if (t && family)
        rc = table_has_family(q, t->schema, t->schema_len, family);
    pthread_mutex_unlock(&m->mu);
    if (!t) {
        free(names);
        return st_error(ST_NOT_FOUND, "table %s does not exist", q);
    }
    if (!names)
        return st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; rc == ST_OK && i < n; i++)
        rc = region_admin(m, NULL, names[i], method, major, family);
    free(names);
    return rc;
}

static int flush_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__FlushRequest *req = (Strata__Master__FlushRequest *)msg;
    return region_admin(m, req->table, req->encoded_name, "AdminService.FlushRegion", false,
                        req->family);
}

static int compact_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    Strata__Master__CompactRequest *req = (Strata__Master__CompactRequest *)msg;
    return region_admin(m, req->table, req->encoded_name, "AdminService.CompactRegion",
                        req->has_major && req->major, req->family);
}

/* ---- cluster status ---- */

/* The answer's storage: the arrays the response points into, freed after packing. */
typedef struct status_buf {
    Strata__Master__ServerInfo *masters; /* [0] the active one, then the backups */
    Strata__Master__ServerInfo **backup_ptrs;
    Strata__Master__ServerName *names; /* masters, live, dead and rit servers */
    Strata__Master__ServerStatus *live;
    Strata__Master__ServerStatus **live_ptrs;
    Strata__Master__ServerName **dead_ptrs;
    server_name *dead_sn;
    Strata__Master__RegionInTransition *rit;
    Strata__Master__RegionInTransition **rit_ptrs;
    Strata__Admin__RegionInfo *rit_infos;
    server_name *rit_sn;
    size_t next_name;
    /* The master's running tasks: its own (taskmon) and its running procedures. */
    taskmon_task *tasks;
    Strata__Master__ServerTask *task_msgs;
    Strata__Master__ServerTask **task_ptrs;
    size_t ntasks;
} status_buf;

static void status_buf_free(status_buf *b)
{
    free(b->masters);
    free(b->backup_ptrs);
    free(b->names);
    free(b->live);
    free(b->live_ptrs);
    free(b->dead_ptrs);
    free(b->dead_sn);
    free(b->rit);
    free(b->rit_ptrs);
    free(b->rit_infos);
    free(b->rit_sn);
    free(b->tasks);
    free(b->task_msgs);
    free(b->task_ptrs);
}

static int status_buf_alloc(status_buf *b, const master_snap *sn)
{
    memset(b, 0, sizeof(*b));
    size_t nm = 1 + sn->nbackups, nl = sn->nservers, nd = sn->ndead, nr = sn->nrits;
    b->masters = calloc(nm, sizeof(*b->masters));
    b->backup_ptrs = calloc(nm, sizeof(*b->backup_ptrs));
    b->names = calloc(nm + nl + nd + nr, sizeof(*b->names));
    b->live = calloc(nl + 1, sizeof(*b->live));
    b->live_ptrs = calloc(nl + 1, sizeof(*b->live_ptrs));
    b->dead_ptrs = calloc(nd + 1, sizeof(*b->dead_ptrs));
    b->dead_sn = calloc(nd + 1, sizeof(*b->dead_sn));
    b->rit = calloc(nr + 1, sizeof(*b->rit));
    b->rit_ptrs = calloc(nr + 1, sizeof(*b->rit_ptrs));
    b->rit_infos = calloc(nr + 1, sizeof(*b->rit_infos));
    b->rit_sn = calloc(nr + 1, sizeof(*b->rit_sn));
    if (!b->masters || !b->backup_ptrs || !b->names || !b->live || !b->live_ptrs ||
        !b->dead_ptrs || !b->dead_sn || !b->rit || !b->rit_ptrs || !b->rit_infos || !b->rit_sn)
        return st_error(ST_NOMEM, "out of memory answering GetClusterStatus");
    return ST_OK;
}

/* A ServerName message borrowing sn's host, from the buffer's pool. */
static Strata__Master__ServerName *name_proto(status_buf *b, const server_name *sn)
{
    Strata__Master__ServerName *p = &b->names[b->next_name++];
    strata__master__server_name__init(p);
    p->host = (char *)sn->host;
    p->port = sn->port;
    p->start_code = sn->start_code;
    return p;
}

static void master_info(status_buf *b, const master_snap_master *x, Strata__Master__ServerInfo *out)
{
    strata__master__server_info__init(out);
    out->name = name_proto(b, &x->sn);
    out->has_http_port = 1;
    out->http_port = x->http_port;
}

static void live_status(status_buf *b, const master_snap_server *s, Strata__Master__ServerStatus *st)
{
    strata__master__server_status__init(st);
    st->name = name_proto(b, &s->sn);
    st->has_http_port = 1;
    st->http_port = s->http_port;
    st->has_region_count = 1;
    st->region_count = (uint32_t)s->regions;
    st->has_requests_per_second = 1;
    st->requests_per_second = s->rps;
    const Strata__Master__RegionServerReportRequest *r = s->report;
    if (!r)
        return;
    st->region = r->region;
    st->n_region = r->n_region;
    st->has_total_requests = st->has_memstore_size = st->has_store_files = 1;
    st->has_store_file_size = st->has_read_requests = st->has_write_requests = 1;
    st->total_requests = r->total_requests;
    st->memstore_size = r->memstore_size;
    st->store_files = r->store_files;
    st->store_file_size = r->store_file_size;
    st->read_requests = r->read_requests;
    st->write_requests = r->write_requests;
    st->has_last_report_ms = 1;
    st->last_report_ms = (uint64_t)s->report_ms;
    st->task = r->task;
    st->n_task = r->n_task;
}

#define MASTER_STATUS_TASKS 64

/* The master's running tasks into b: what its own threads run (taskmon), then each
 * running procedure as "<type> table=<t>" with its step as the status. */
static int master_tasks(master *m, status_buf *b)
{
    m_proc *procs = NULL;
    size_t np = 0;
    b->tasks = calloc(MASTER_STATUS_TASKS, sizeof(*b->tasks));
    b->task_msgs = calloc(MASTER_STATUS_TASKS, sizeof(*b->task_msgs));
    b->task_ptrs = calloc(MASTER_STATUS_TASKS, sizeof(*b->task_ptrs));
    if (!b->tasks || !b->task_msgs || !b->task_ptrs)
        return st_error(ST_NOMEM, "out of memory answering GetClusterStatus");
    b->ntasks = taskmon_list(b->tasks, MASTER_STATUS_TASKS);
    if (master_procs_list(m, &procs, &np) == ST_OK) {
        for (size_t i = 0; i < np && b->ntasks < MASTER_STATUS_TASKS; i++) {
            if (procs[i].state != M_PROC_RUNNABLE)
                continue;
            taskmon_task *t = &b->tasks[b->ntasks++];
            t->id = procs[i].id;
            int len = snprintf(t->description, sizeof(t->description), "%s pid=%llu",
                               procs[i].type, (unsigned long long)procs[i].id);
            if (procs[i].table[0] && len > 0 && (size_t)len < sizeof(t->description))
                snprintf(t->description + len, sizeof(t->description) - (size_t)len,
                         ", table=%.200s", procs[i].table);
            snprintf(t->status, sizeof(t->status), "%s", procs[i].step ? procs[i].step : "");
            t->start_ms = procs[i].submitted_ms;
        }
        free(procs);
    }
    for (size_t i = 0; i < b->ntasks; i++) {
        Strata__Master__ServerTask *x = &b->task_msgs[i];
        strata__master__server_task__init(x);
        x->description = b->tasks[i].description;
        x->status = b->tasks[i].status;
        x->state = "RUNNING";
        x->has_start_time = x->has_completion_time = 1;
        x->start_time = (uint64_t)b->tasks[i].start_ms;
        x->completion_time = -1;
        b->task_ptrs[i] = x;
    }
    return ST_OK;
}

static void rit_status(status_buf *b, size_t i, const master_snap_rit *r,
                       Strata__Master__RegionInTransition *x)
{
    strata__master__region_in_transition__init(x);
    master_region_info_proto(&r->region, &b->rit_infos[i]);
    x->region = &b->rit_infos[i];
    x->state = (Strata__Master__RegionState)r->region.state;
    x->has_since_ms = 1;
    x->since_ms = (uint64_t)r->since_ms;
    if (r->region.server[0] && server_name_parse(r->region.server, &b->rit_sn[i]) == ST_OK)
        x->server = name_proto(b, &b->rit_sn[i]);
}

/* The answer from one cluster snapshot (the status pages render the same one). */
static int status_answer(master *m, const master_snap *sn, rpc_reply *reply)
{
    status_buf b;
    int rc = status_buf_alloc(&b, sn);
    Strata__Master__GetClusterStatusResponse resp = STRATA__MASTER__GET_CLUSTER_STATUS_RESPONSE__INIT;
    if (rc == ST_OK) {
        master_snap_master self = {.sn = m->sn, .http_port = (uint32_t)m->http_port};
        resp.cluster_id = (char *)sn->cluster_id;
        resp.version = MASTER_VERSION;
        master_info(&b, &self, &b.masters[0]);
        resp.active_master = &b.masters[0];
        for (size_t i = 0; i < sn->nbackups; i++) {
            master_info(&b, &sn->backups[i], &b.masters[1 + i]);
            b.backup_ptrs[i] = &b.masters[1 + i];
        }
        resp.backup_master = b.backup_ptrs;
        resp.n_backup_master = sn->nbackups;
        for (size_t i = 0; i < sn->nservers; i++) {
            live_status(&b, &sn->servers[i], &b.live[i]);
            b.live_ptrs[i] = &b.live[i];
        }
        resp.live_server = b.live_ptrs;
        resp.n_live_server = sn->nservers;
        for (size_t i = 0; i < sn->ndead; i++)
            if (server_name_parse(sn->dead[i], &b.dead_sn[resp.n_dead_server]) == ST_OK) {
                b.dead_ptrs[resp.n_dead_server] = name_proto(&b, &b.dead_sn[resp.n_dead_server]);
                resp.n_dead_server++;
            }
        resp.dead_server = b.dead_ptrs;
        for (size_t i = 0; i < sn->nrits; i++) {
            rit_status(&b, i, &sn->rits[i], &b.rit[i]);
            b.rit_ptrs[i] = &b.rit[i];
        }
        resp.in_transition = b.rit_ptrs;
        resp.n_in_transition = sn->nrits;
        rc = master_tasks(m, &b);
        resp.master_task = b.task_ptrs;
        resp.n_master_task = b.ntasks;
        resp.has_tables = resp.has_regions = 1;
        resp.tables = (uint32_t)sn->ntables;
        resp.regions = (uint32_t)sn->nregions;
        if (rc == ST_OK)
            rc = rpc_proto_reply(reply, &resp.base);
    }
    status_buf_free(&b);
    return rc;
}

static int status_body(void *ctx, ProtobufCMessage *msg, rpc_reply *reply)
{
    master *m = ctx;
    master_snap sn;
    int rc = master_snapshot_take(m, &sn);
    if (rc == ST_OK && !sn.active) /* stopped between the check and the snapshot */
        rc = master_check_active(m);
    if (rc == ST_OK)
        rc = status_answer(m, &sn, reply);
    master_snapshot_free(&sn);
    return rc;
}

/* ---- registration ---- */

RPC_PROTO_HANDLER(h_report, master_rpc_check_active, strata__master__region_server_report_request__descriptor, report_body)
RPC_PROTO_HANDLER(h_closed, master_rpc_check_active, strata__master__report_region_closed_request__descriptor, closed_body)
RPC_PROTO_HANDLER(h_locate, master_rpc_check_active, strata__master__locate_region_request__descriptor, locate_body)
RPC_PROTO_HANDLER(h_regions, master_rpc_check_active, strata__master__get_table_regions_request__descriptor, table_regions_body)
RPC_PROTO_HANDLER(h_create_ns, master_rpc_check_active, strata__master__create_namespace_request__descriptor, create_ns_body)
RPC_PROTO_HANDLER(h_delete_ns, master_rpc_check_active, strata__master__delete_namespace_request__descriptor, delete_ns_body)
RPC_PROTO_HANDLER(h_modify_ns, master_rpc_check_active, strata__master__modify_namespace_request__descriptor, modify_ns_body)
RPC_PROTO_HANDLER(h_get_ns, master_rpc_check_active, strata__master__get_namespace_request__descriptor, get_ns_body)
RPC_PROTO_HANDLER(h_list_ns, master_rpc_check_active, strata__master__list_namespaces_request__descriptor, list_ns_body)
RPC_PROTO_HANDLER(h_create, master_rpc_check_active, strata__master__create_table_request__descriptor, create_table_body)
RPC_PROTO_HANDLER(h_describe, master_rpc_check_active, strata__master__describe_table_request__descriptor, describe_body)
RPC_PROTO_HANDLER(h_list, master_rpc_check_active, strata__master__list_tables_request__descriptor, list_tables_body)
RPC_PROTO_HANDLER(h_modify, master_rpc_check_active, strata__master__modify_table_request__descriptor, modify_body)
RPC_PROTO_HANDLER(h_enable, master_rpc_check_active, strata__master__enable_table_request__descriptor, enable_body)
RPC_PROTO_HANDLER(h_disable, master_rpc_check_active, strata__master__disable_table_request__descriptor, disable_body)
RPC_PROTO_HANDLER(h_truncate, master_rpc_check_active, strata__master__truncate_table_request__descriptor, truncate_body)
RPC_PROTO_HANDLER(h_delete, master_rpc_check_active, strata__master__delete_table_request__descriptor, delete_body)
RPC_PROTO_HANDLER(h_move, master_rpc_check_active, strata__master__move_region_request__descriptor, move_body)
RPC_PROTO_HANDLER(h_assign, master_rpc_check_active, strata__master__assign_region_request__descriptor, assign_body)
RPC_PROTO_HANDLER(h_unassign, master_rpc_check_active, strata__master__unassign_region_request__descriptor, unassign_body)
RPC_PROTO_HANDLER(h_flush, master_rpc_check_active, strata__master__flush_request__descriptor, flush_body)
RPC_PROTO_HANDLER(h_compact, master_rpc_check_active, strata__master__compact_request__descriptor, compact_body)
RPC_PROTO_HANDLER(h_status, master_rpc_check_active, strata__master__get_cluster_status_request__descriptor, status_body)

int master_service_register(master *m)
{
    static const struct {
        const char *name;
        rpc_handler_fn fn;
    } methods[] = {
        {"MasterService.RegionServerReport", h_report},
        {"MasterService.ReportRegionClosed", h_closed},
        {"MasterService.LocateRegion", h_locate},
        {"MasterService.GetTableRegions", h_regions},
        {"MasterService.CreateNamespace", h_create_ns},
        {"MasterService.DeleteNamespace", h_delete_ns},
        {"MasterService.ListNamespaces", h_list_ns},
        {"MasterService.ModifyNamespace", h_modify_ns},
        {"MasterService.GetNamespace", h_get_ns},
        {"MasterService.CreateTable", h_create},
        {"MasterService.DescribeTable", h_describe},
        {"MasterService.ListTables", h_list},
        {"MasterService.ModifyTable", h_modify},
        {"MasterService.EnableTable", h_enable},
        {"MasterService.DisableTable", h_disable},
        {"MasterService.TruncateTable", h_truncate},
        {"MasterService.DeleteTable", h_delete},
        {"MasterService.MoveRegion", h_move},
        {"MasterService.AssignRegion", h_assign},
        {"MasterService.UnassignRegion", h_unassign},
        {"MasterService.Flush", h_flush},
        {"MasterService.Compact", h_compact},
        {"MasterService.GetClusterStatus", h_status},
    };
    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
        int rc = rpc_server_register(m->rpc, methods[i].name, methods[i].fn, m);
        if (rc != ST_OK)
            return rc;
    }
    int rc = master_service_register_procs(m);
    if (rc == ST_OK)
        rc = master_service_register_hbck(m);
    if (rc == ST_OK)
        rc = master_service_register_maint(m);
    return rc == ST_OK ? master_service_register_meta(m) : rc;
}
