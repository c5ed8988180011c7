/*
 * master_fake.c - a fake cluster behind master_ops for the master's unit tests: an
 * in-memory ZooKeeper tree and fake region servers answering AdminService (see
 * master_fake.h for what each part promises).
 *
 * Thread-safety: one mutex guards the tree, the servers and the call log; the hook runs
 * with it released.
 */
#include "tests/support/master_fake.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/config.h"
#include "common/proto/admin.pb-c.h"
#include "common/proto/master.pb-c.h"
#include "common/status.h"

#define MASTER_SESSION 1000 /* the ephemeral owner of nodes the master creates */

typedef struct znode {
    char *path;
    uint8_t *data;
    size_t len;
    int64_t owner; /* 0: persistent */
    int32_t version;
    int64_t mtime_ms;
} znode;

typedef struct fregion {
    char encoded[64];
    char table[256];
} fregion;

typedef struct ffault {
    char method[64]; /* "" matches every method */
    int status;
    int times; /* -1: forever */
    bool after;
} ffault;

#define MAX_FAULTS 8

typedef struct fserver {
    char name[SERVER_NAME_MAX];
    char addr[300];
    server_name sn;
    int64_t session;
    bool killed, unreachable;
    int refuse; /* OpenRegion answers FAILED_OPENING this many more times (-1: always) */
    char crash_after[64]; /* the next call of this method is its last */
    ffault faults[MAX_FAULTS];
    fregion *regions;
    size_t nregions, rcap;
} fserver;

typedef struct fcall {
    char server[SERVER_NAME_MAX];
    char method[64];
    char encoded[64];
    char families[256];
    int rc;
} fcall;

struct mfake {
    pthread_mutex_t mu;
    znode *nodes;
    size_t nnodes, ncap;
    fserver **servers;
    size_t nservers, scap;
    fcall *calls;
    size_t ncalls, ccap;
    int ping_status;
    int session_timeout_ms;
    int64_t next_session;
    int seq;
    mfake_hook_fn hook;
    void *hook_arg;
};

/* ---------------------------------------------------------------- the tree */

static znode *node_find(mfake *f, const char *path)
{
    for (size_t i = 0; i < f->nnodes; i++)
        if (strcmp(f->nodes[i].path, path) == 0)
            return &f->nodes[i];
    return NULL;
}

static bool is_root(const char *path)
{
    return strcmp(path, "/") == 0;
}

static bool path_ok(const char *path)
{
    size_t n = strlen(path);
    return n >= 1 && path[0] == '/' && (n == 1 || path[n - 1] != '/') && !strstr(path, "//");
}

/* The parent of path into out ("/" for a top-level node). */
static void parent_of(const char *path, char *out, size_t cap)
{
    const char *slash = strrchr(path, '/');
    size_t n = (size_t)(slash - path);
    if (n == 0)
        snprintf(out, cap, "/");
    else
        snprintf(out, cap, "%.*s", (int)n, path);
}

static bool parent_exists(mfake *f, const char *path, int64_t *parent_owner)
{
    char parent[1024];
    parent_of(path, parent, sizeof(parent));
    *parent_owner = 0;
    if (is_root(parent))
        return true;
    znode *p = node_find(f, parent);
    if (p)
        *parent_owner = p->owner;
    return p != NULL;
}

/* A direct child of dir? */
static const char *child_name(const char *dir, const char *path)
{
    size_t n = strlen(dir);
    if (is_root(dir))
        n = 0;
    if (strncmp(path, dir, n) != 0 || path[n] != '/' || !path[n + 1] || strchr(path + n + 1, '/'))
        return NULL;
    return path + n + 1;
}

static bool has_children(mfake *f, const char *path)
{
    for (size_t i = 0; i < f->nnodes; i++)
        if (child_name(path, f->nodes[i].path))
            return true;
    return false;
}

static void node_add(mfake *f, const char *path, const void *data, size_t len, int64_t owner)
{
    if (f->nnodes == f->ncap) {
        f->ncap = f->ncap ? f->ncap * 2 : 32;
        f->nodes = realloc(f->nodes, f->ncap * sizeof(*f->nodes));
        if (!f->nodes)
            abort();
    }
    znode *z = &f->nodes[f->nnodes++];
    memset(z, 0, sizeof(*z));
    z->path = strdup(path);
    z->data = malloc(len ? len : 1);
    if (!z->path || !z->data)
        abort();
    if (len)
        memcpy(z->data, data, len);
    z->len = len;
    z->owner = owner;
    z->mtime_ms = clock_now_ms();
}

static void node_set(znode *z, const void *data, size_t len)
{
    uint8_t *d = malloc(len ? len : 1);
    if (!d)
        abort();
    if (len)
        memcpy(d, data, len);
    free(z->data);
    z->data = d;
    z->len = len;
    z->version++;
    z->mtime_ms = clock_now_ms();
}

static void node_remove_at(mfake *f, size_t i)
{
    free(f->nodes[i].path);
    free(f->nodes[i].data);
    memmove(f->nodes + i, f->nodes + i + 1, (f->nnodes - i - 1) * sizeof(*f->nodes));
    f->nnodes--;
}

static void node_remove(mfake *f, const char *path)
{
    for (size_t i = 0; i < f->nnodes; i++)
        if (strcmp(f->nodes[i].path, path) == 0) {
            node_remove_at(f, i);
            return;
        }
}

/* Creates the missing ancestors of path, persistent and empty (mu held). */
static void ensure_ancestors(mfake *f, const char *path)
{
    char parent[1024];
    parent_of(path, parent, sizeof(parent));
    if (is_root(parent) || node_find(f, parent))
        return;
    ensure_ancestors(f, parent);
    node_add(f, parent, NULL, 0, 0);
}

/* ---------------------------------------------------------------- lifecycle */

char *mfake_path(znode_id node, const char *child)
{
    char *p = znodes_path(MFAKE_PARENT, node, child);
    if (!p)
        abort();
    return p;
}

mfake *mfake_new(void)
{
    mfake *f = calloc(1, sizeof(*f));
    if (!f)
        abort();
    pthread_mutex_init(&f->mu, NULL);
    f->session_timeout_ms = MFAKE_SESSION_TIMEOUT_MS;
    f->next_session = 1;
    static const znode_id dirs[] = {ZNODE_PARENT, ZNODE_BACKUP_MASTERS, ZNODE_RS,
                                    ZNODE_REGION_OWNER, ZNODE_TABLE, ZNODE_SPLIT_WAL};
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        char *p = mfake_path(dirs[i], NULL);
        mfake_zk_put(f, p, NULL, 0, 0);
        free(p);
    }
    return f;
}

static void server_free(fserver *s)
{
    free(s->regions);
    free(s);
}

void mfake_free(mfake *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->nnodes; i++) {
        free(f->nodes[i].path);
        free(f->nodes[i].data);
    }
    free(f->nodes);
    for (size_t i = 0; i < f->nservers; i++)
        server_free(f->servers[i]);
    free(f->servers);
    free(f->calls);
    pthread_mutex_destroy(&f->mu);
    free(f);
}

static void run_hook(mfake *f, const mfake_event *ev)
{
    pthread_mutex_lock(&f->mu);
    mfake_hook_fn fn = f->hook;
    void *arg = f->hook_arg;
    pthread_mutex_unlock(&f->mu);
    if (fn)
        fn(arg, ev);
}

void mfake_set_hook(mfake *f, mfake_hook_fn fn, void *arg)
{
    pthread_mutex_lock(&f->mu);
    f->hook = fn;
    f->hook_arg = arg;
    pthread_mutex_unlock(&f->mu);
}

/* ---------------------------------------------------------------- ZooKeeper ops */

static void zk_event(mfake *f, mfake_event_kind kind, const char *path)
{
    mfake_event ev = {.kind = kind, .server = "", .method = "", .encoded = "", .families = "",
                      .path = path};
    run_hook(f, &ev);
}

static int op_zk_get(void *ctx, const char *path, uint8_t **data, size_t *len, zk_stat *st)
{
    mfake *f = ctx;
    *data = NULL;
    *len = 0;
    pthread_mutex_lock(&f->mu);
    znode *z = node_find(f, path);
    int rc = ST_OK;
    if (!z) {
        rc = st_error(ST_NOT_FOUND, "zk get %s: no node", path);
    } else {
        *data = malloc(z->len + 1);
        if (!*data)
            abort();
        if (z->len)
            memcpy(*data, z->data, z->len);
        (*data)[z->len] = 0;
        *len = z->len;
        if (st) {
            memset(st, 0, sizeof(*st));
            st->version = z->version;
            st->ephemeral_owner = z->owner;
            st->mtime_ms = z->mtime_ms;
            st->data_length = (int32_t)z->len;
            for (size_t i = 0; i < f->nnodes; i++)
                if (child_name(path, f->nodes[i].path))
                    st->num_children++;
        }
    }
    pthread_mutex_unlock(&f->mu);
    return rc;
}

static int op_zk_set(void *ctx, const char *path, const void *data, size_t len)
{
    mfake *f = ctx;
    zk_event(f, MFAKE_EV_ZK_SET, path);
    pthread_mutex_lock(&f->mu);
    znode *z = node_find(f, path);
    int rc = ST_OK;
    if (!z)
        rc = st_error(ST_NOT_FOUND, "zk set %s: no node", path);
    else
        node_set(z, data, len);
    pthread_mutex_unlock(&f->mu);
    return rc;
}

static int op_zk_create(void *ctx, const char *path, const void *data, size_t len, int flags)
{
    mfake *f = ctx;
    zk_event(f, MFAKE_EV_ZK_CREATE, path);
    if (!path_ok(path) || is_root(path))
        return st_error(ST_INVALID_ARGUMENT, "zk create '%s': bad path", path);
    pthread_mutex_lock(&f->mu);
    char made[1100];
    if (flags & ZK_SEQUENTIAL)
        snprintf(made, sizeof(made), "%s%010d", path, f->seq++);
    else
        snprintf(made, sizeof(made), "%s", path);
    int64_t parent_owner = 0;
    int rc = ST_OK;
    if (node_find(f, made))
        rc = st_error(ST_EXISTS, "zk create %s: the node exists", made);
    else if (!parent_exists(f, made, &parent_owner))
        rc = st_error(ST_NOT_FOUND, "zk create %s: no parent node", made);
    else if (parent_owner != 0)
        rc = st_error(ST_IO, "zk create %s: an ephemeral node has no children", made);
    else
        node_add(f, made, data, len, (flags & ZK_EPHEMERAL) ? MASTER_SESSION : 0);
    pthread_mutex_unlock(&f->mu);
    return rc;
}

static int op_zk_delete(void *ctx, const char *path)
{
    mfake *f = ctx;
    zk_event(f, MFAKE_EV_ZK_DELETE, path);
    pthread_mutex_lock(&f->mu);
    int rc = ST_OK;
    if (!node_find(f, path))
        rc = st_error(ST_NOT_FOUND, "zk delete %s: no node", path);
    else if (has_children(f, path))
        rc = st_error(ST_INVALID_ARGUMENT, "zk delete %s: the node has children", path);
    else
        node_remove(f, path);
    pthread_mutex_unlock(&f->mu);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int op_zk_children(void *ctx, const char *path, char ***names, size_t *n)
{
    mfake *f = ctx;
    *names = NULL;
    *n = 0;
    pthread_mutex_lock(&f->mu);
    int rc = ST_OK;
    if (!is_root(path) && !node_find(f, path)) {
        rc = st_error(ST_NOT_FOUND, "zk children %s: no node", path);
    } else {
        char **v = calloc(f->nnodes + 1, sizeof(*v));
        if (!v)
            abort();
        size_t k = 0;
        for (size_t i = 0; i < f->nnodes; i++) {
            const char *c = child_name(path, f->nodes[i].path);
            if (c && !(v[k++] = strdup(c)))
                abort();
        }
        qsort(v, k, sizeof(*v), cmp_str);
        *names = v;
        *n = k;
    }
    pthread_mutex_unlock(&f->mu);
    return rc;
}

static int op_zk_ping(void *ctx)
{
    mfake *f = ctx;
    pthread_mutex_lock(&f->mu);
    int rc = f->ping_status;
    pthread_mutex_unlock(&f->mu);
    return rc == ST_OK ? ST_OK : st_error(rc, "zk ping: %s (fake)", st_strerror(rc));
}

static int op_zk_session_timeout_ms(void *ctx)
{
    mfake *f = ctx;
    pthread_mutex_lock(&f->mu);
    int ms = f->session_timeout_ms;
    pthread_mutex_unlock(&f->mu);
    return ms;
}

void mfake_zk_put(mfake *f, const char *path, const void *data, size_t len, int64_t owner)
{
    pthread_mutex_lock(&f->mu);
    ensure_ancestors(f, path);
    znode *z = node_find(f, path);
    if (z) {
        node_set(z, data, len);
        z->owner = owner;
    } else {
        node_add(f, path, data, len, owner);
    }
    pthread_mutex_unlock(&f->mu);
}

bool mfake_zk_exists(mfake *f, const char *path)
{
    pthread_mutex_lock(&f->mu);
    bool yes = node_find(f, path) != NULL;
    pthread_mutex_unlock(&f->mu);
    return yes;
}

char *mfake_zk_data(mfake *f, const char *path, size_t *len)
{
    pthread_mutex_lock(&f->mu);
    znode *z = node_find(f, path);
    char *out = NULL;
    if (z) {
        out = malloc(z->len + 1);
        if (!out)
            abort();
        if (z->len)
            memcpy(out, z->data, z->len);
        out[z->len] = 0;
        if (len)
            *len = z->len;
    }
    pthread_mutex_unlock(&f->mu);
    return out;
}

void mfake_zk_remove(mfake *f, const char *path)
{
    pthread_mutex_lock(&f->mu);
    size_t n = strlen(path);
    for (size_t i = 0; i < f->nnodes;) {
        const char *p = f->nodes[i].path;
        if (strcmp(p, path) == 0 || (strncmp(p, path, n) == 0 && p[n] == '/'))
            node_remove_at(f, i);
        else
            i++;
    }
    pthread_mutex_unlock(&f->mu);
}

void mfake_zk_set_ping(mfake *f, int status)
{
    pthread_mutex_lock(&f->mu);
    f->ping_status = status;
    pthread_mutex_unlock(&f->mu);
}

void mfake_zk_set_session_timeout(mfake *f, int ms)
{
    pthread_mutex_lock(&f->mu);
    f->session_timeout_ms = ms;
    pthread_mutex_unlock(&f->mu);
}

/* ---------------------------------------------------------------- region servers */

/* By name (mu held). */
static fserver *server_by_name(mfake *f, const char *name)
{
    for (size_t i = 0; i < f->nservers; i++)
        if (strcmp(f->servers[i]->name, name) == 0)
            return f->servers[i];
    return NULL;
}

/* The newest server registered at addr (mu held). */
static fserver *server_by_addr(mfake *f, const char *addr)
{
    for (size_t i = f->nservers; i > 0; i--)
        if (strcmp(f->servers[i - 1]->addr, addr) == 0)
            return f->servers[i - 1];
    return NULL;
}

static fserver *must_server(mfake *f, const char *name)
{
    fserver *s = server_by_name(f, name);
    if (!s) {
        fprintf(stderr, "master_fake: no server %s\n", name);
        abort();
    }
    return s;
}

static fregion *region_of(fserver *s, const char *encoded)
{
    for (size_t i = 0; i < s->nregions; i++)
        if (strcmp(s->regions[i].encoded, encoded) == 0)
            return &s->regions[i];
    return NULL;
}

static void region_forget(fserver *s, const char *encoded)
{
    for (size_t i = 0; i < s->nregions; i++)
        if (strcmp(s->regions[i].encoded, encoded) == 0) {
            memmove(s->regions + i, s->regions + i + 1,
                    (s->nregions - i - 1) * sizeof(*s->regions));
            s->nregions--;
            return;
        }
}

static void region_keep(fserver *s, const char *table, const char *encoded)
{
    if (s->nregions == s->rcap) {
        s->rcap = s->rcap ? s->rcap * 2 : 8;
        s->regions = realloc(s->regions, s->rcap * sizeof(*s->regions));
        if (!s->regions)
            abort();
    }
    fregion *r = &s->regions[s->nregions++];
    snprintf(r->encoded, sizeof(r->encoded), "%s", encoded);
    snprintf(r->table, sizeof(r->table), "%s", table);
}

static void name_proto(const fserver *s, Strata__Master__ServerName *out)
{
    strata__master__server_name__init(out);
    out->host = (char *)s->sn.host;
    out->port = s->sn.port;
    out->start_code = s->sn.start_code;
}

/* Claims the ownership node of encoded for s, as rs_cluster_claim does (mu held): ST_OK
 * (made, or s's already), or ST_EXISTS naming the other owner. */
static int claim(mfake *f, fserver *s, const char *table, const char *encoded)
{
    char *path = mfake_path(ZNODE_REGION_OWNER, encoded);
    znode *z = node_find(f, path);
    int rc = ST_OK;
    if (z && z->owner != s->session) {
        rc = st_error(ST_EXISTS, "region %s is owned by another session (0x%" PRIx64 ")", encoded,
                      (uint64_t)z->owner);
    } else if (!z) {
        Strata__Master__ServerName sn;
        name_proto(s, &sn);
        Strata__Master__RegionOwner o = STRATA__MASTER__REGION_OWNER__INIT;
        o.server = &sn;
        o.table = (char *)table;
        size_t len = strata__master__region_owner__get_packed_size(&o);
        uint8_t *data = malloc(len ? len : 1);
        if (!data)
            abort();
        strata__master__region_owner__pack(&o, data);
        node_add(f, path, data, len, s->session);
        free(data);
    }
    free(path);
    return rc;
}

static void disclaim(mfake *f, fserver *s, const char *encoded)
{
    char *path = mfake_path(ZNODE_REGION_OWNER, encoded);
    znode *z = node_find(f, path);
    if (z && z->owner == s->session)
        node_remove(f, path);
    free(path);
}

void mfake_server_add(mfake *f, const char *host, int port, uint64_t start_code, char *name)
{
    fserver *s = calloc(1, sizeof(*s));
    if (!s)
        abort();
    snprintf(s->sn.host, sizeof(s->sn.host), "%s", host);
    s->sn.port = (uint16_t)port;
    s->sn.start_code = start_code;
    server_name_format(&s->sn, s->name, sizeof(s->name));
    server_name_addr(&s->sn, s->addr, sizeof(s->addr));
    size_t len = 0;
    uint8_t *info = server_info_encode(&s->sn, 0, (uint64_t)clock_now_ms(), &len);
    char *path = mfake_path(ZNODE_RS, s->name);
    if (!info)
        abort();
    pthread_mutex_lock(&f->mu);
    if (server_by_name(f, s->name)) {
        fprintf(stderr, "master_fake: server %s registered twice\n", s->name);
        abort();
    }
    s->session = f->next_session++;
    if (f->nservers == f->scap) {
        f->scap = f->scap ? f->scap * 2 : 8;
        f->servers = realloc(f->servers, f->scap * sizeof(*f->servers));
        if (!f->servers)
            abort();
    }
    f->servers[f->nservers++] = s;
    node_add(f, path, info, len, s->session);
    pthread_mutex_unlock(&f->mu);
    if (name)
        snprintf(name, SERVER_NAME_MAX, "%s", s->name);
    free(info);
    free(path);
}

/* The server's session expires (mu held). */
static void expire(mfake *f, fserver *s)
{
    s->killed = true;
    s->nregions = 0;
    for (size_t i = 0; i < f->nnodes;)
        if (f->nodes[i].owner == s->session)
            node_remove_at(f, i);
        else
            i++;
}

void mfake_server_kill(mfake *f, const char *server)
{
    pthread_mutex_lock(&f->mu);
    expire(f, must_server(f, server));
    pthread_mutex_unlock(&f->mu);
}

void mfake_server_crash_after(mfake *f, const char *server, const char *method)
{
    pthread_mutex_lock(&f->mu);
    fserver *s = must_server(f, server);
    snprintf(s->crash_after, sizeof(s->crash_after), "%s", method);
    pthread_mutex_unlock(&f->mu);
}

void mfake_server_set_unreachable(mfake *f, const char *server, bool unreachable)
{
    pthread_mutex_lock(&f->mu);
    must_server(f, server)->unreachable = unreachable;
    pthread_mutex_unlock(&f->mu);
}

void mfake_server_refuse_open(mfake *f, const char *server, int times)
{
    pthread_mutex_lock(&f->mu);
    must_server(f, server)->refuse = times;
    pthread_mutex_unlock(&f->mu);
}

void mfake_server_fail(mfake *f, const char *server, const char *method, int status, int times,
                       bool after)
{
    pthread_mutex_lock(&f->mu);
    fserver *s = must_server(f, server);
    const char *m = method ? method : "";
    ffault *slot = NULL;
    for (size_t i = 0; i < MAX_FAULTS && !slot; i++)
        if (strcmp(s->faults[i].method, m) == 0 && s->faults[i].times != 0)
            slot = &s->faults[i];
    for (size_t i = 0; i < MAX_FAULTS && !slot; i++)
        if (s->faults[i].times == 0)
            slot = &s->faults[i];
    if (!slot)
        abort();
    snprintf(slot->method, sizeof(slot->method), "%s", m);
    slot->status = status;
    slot->times = times;
    slot->after = after;
    pthread_mutex_unlock(&f->mu);
}

bool mfake_server_has(mfake *f, const char *server, const char *encoded)
{
    pthread_mutex_lock(&f->mu);
    bool yes = region_of(must_server(f, server), encoded) != NULL;
    pthread_mutex_unlock(&f->mu);
    return yes;
}

size_t mfake_server_nopen(mfake *f, const char *server)
{
    pthread_mutex_lock(&f->mu);
    size_t n = must_server(f, server)->nregions;
    pthread_mutex_unlock(&f->mu);
    return n;
}

void mfake_server_drop_region(mfake *f, const char *server, const char *encoded)
{
    pthread_mutex_lock(&f->mu);
    fserver *s = must_server(f, server);
    region_forget(s, encoded);
    disclaim(f, s, encoded);
    pthread_mutex_unlock(&f->mu);
}

void mfake_server_take_region(mfake *f, const char *server, const char *table,
                              const char *encoded)
{
    pthread_mutex_lock(&f->mu);
    fserver *s = must_server(f, server);
    if (claim(f, s, table, encoded) == ST_OK && !region_of(s, encoded))
        region_keep(s, table, encoded);
    pthread_mutex_unlock(&f->mu);
}

int64_t mfake_server_session(mfake *f, const char *server)
{
    pthread_mutex_lock(&f->mu);
    int64_t id = must_server(f, server)->session;
    pthread_mutex_unlock(&f->mu);
    return id;
}

/* ---------------------------------------------------------------- AdminService */

/* A handler: the unpacked request in, the answer packed into *out (malloc'ed) or a
 * failure status (mu held). */
typedef int (*admin_fn)(mfake *f, fserver *s, const ProtobufCMessage *req, uint8_t **out,
                        size_t *len);

static int pack_answer(const ProtobufCMessage *msg, uint8_t **out, size_t *len)
{
    *len = protobuf_c_message_get_packed_size(msg);
    *out = malloc(*len ? *len : 1);
    if (!*out)
        abort();
    protobuf_c_message_pack(msg, *out);
    return ST_OK;
}

static int not_online(fserver *s, const char *encoded)
{
    return st_error(ST_NOT_SERVING, "region %s is not online on %s", encoded, s->name);
}

static int admin_open(mfake *f, fserver *s, const ProtobufCMessage *msg, uint8_t **out,
                      size_t *len)
{
    const Strata__Admin__OpenRegionRequest *req = (const Strata__Admin__OpenRegionRequest *)msg;
    Strata__Admin__OpenRegionResponse resp = STRATA__ADMIN__OPEN_REGION_RESPONSE__INIT;
    resp.opening_state = calloc(req->n_open_info + 1, sizeof(*resp.opening_state));
    if (!resp.opening_state)
        abort();
    int rc = ST_OK;
    for (size_t i = 0; i < req->n_open_info; i++) {
        const Strata__Admin__RegionInfo *ri = req->open_info[i]->region;
        int st = STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__OPENED;
        if (s->refuse != 0) {
            st = STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__FAILED_OPENING;
            if (s->refuse > 0)
                s->refuse--;
        } else if (region_of(s, ri->encoded_name)) {
            st = STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__ALREADY_OPENED;
        } else if (claim(f, s, ri->table, ri->encoded_name) != ST_OK) {
            if (req->n_open_info == 1)
                rc = ST_EXISTS; /* a lone region owned elsewhere fails the call */
            st = STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__FAILED_OPENING;
        } else {
            region_keep(s, ri->table, ri->encoded_name);
        }
        resp.opening_state[resp.n_opening_state++] = st;
    }
    if (rc == ST_OK)
        rc = pack_answer(&resp.base, out, len);
    free(resp.opening_state);
    return rc;
}

static int admin_close(mfake *f, fserver *s, const ProtobufCMessage *msg, uint8_t **out,
                       size_t *len)
{
    const Strata__Admin__CloseRegionRequest *req = (const Strata__Admin__CloseRegionRequest *)msg;
    if (!region_of(s, req->encoded_name))
        return not_online(s, req->encoded_name);
    region_forget(s, req->encoded_name);
    disclaim(f, s, req->encoded_name);
    Strata__Admin__CloseRegionResponse resp = STRATA__ADMIN__CLOSE_REGION_RESPONSE__INIT;
    resp.has_closed = resp.closed = 1;
    return pack_answer(&resp.base, out, len);
}

static int admin_flush(mfake *f, fserver *s, const ProtobufCMessage *msg, uint8_t **out,
                       size_t *len)
{
    const Strata__Admin__FlushRegionRequest *req = (const Strata__Admin__FlushRegionRequest *)msg;
    if (!region_of(s, req->encoded_name))
        return not_online(s, req->encoded_name);
    Strata__Admin__FlushRegionResponse resp = STRATA__ADMIN__FLUSH_REGION_RESPONSE__INIT;
    resp.has_max_flushed_seq = 1;
    return pack_answer(&resp.base, out, len);
}

static int admin_compact(mfake *f, fserver *s, const ProtobufCMessage *msg, uint8_t **out,
                         size_t *len)
{
    const Strata__Admin__CompactRegionRequest *req =
        (const Strata__Admin__CompactRegionRequest *)msg;
    if (!region_of(s, req->encoded_name))
        return not_online(s, req->encoded_name);
    Strata__Admin__CompactRegionResponse resp = STRATA__ADMIN__COMPACT_REGION_RESPONSE__INIT;
    return pack_answer(&resp.base, out, len);
}

static int admin_region_info(mfake *f, fserver *s, const ProtobufCMessage *msg, uint8_t **out,
                             size_t *len)
{
    const Strata__Admin__GetRegionInfoRequest *req =
        (const Strata__Admin__GetRegionInfoRequest *)msg;
    fregion *r = region_of(s, req->encoded_name);
    if (!r)
        return not_online(s, req->encoded_name);
    Strata__Admin__RegionInfo info = STRATA__ADMIN__REGION_INFO__INIT;
    info.table = r->table;
    info.encoded_name = r->encoded;
    Strata__Admin__RegionLoad load = STRATA__ADMIN__REGION_LOAD__INIT;
    load.encoded_name = r->encoded;
    load.table = r->table;
    Strata__Admin__GetRegionInfoResponse resp = STRATA__ADMIN__GET_REGION_INFO_RESPONSE__INIT;
    resp.region = &info;
    resp.load = &load;
    return pack_answer(&resp.base, out, len);
}

static int admin_online(mfake *f, fserver *s, const ProtobufCMessage *msg, uint8_t **out,
                        size_t *len)
{
    Strata__Admin__GetOnlineRegionResponse resp = STRATA__ADMIN__GET_ONLINE_REGION_RESPONSE__INIT;
    Strata__Admin__RegionInfo *infos = calloc(s->nregions + 1, sizeof(*infos));
    Strata__Admin__RegionInfo **ptrs = calloc(s->nregions + 1, sizeof(*ptrs));
    if (!infos || !ptrs)
        abort();
    for (size_t i = 0; i < s->nregions; i++) {
        strata__admin__region_info__init(&infos[i]);
        infos[i].table = s->regions[i].table;
        infos[i].encoded_name = s->regions[i].encoded;
        ptrs[i] = &infos[i];
    }
    resp.region = ptrs;
    resp.n_region = s->nregions;
    int rc = pack_answer(&resp.base, out, len);
    free(ptrs);
    free(infos);
    return rc;
}

static int admin_load(mfake *f, fserver *s, const ProtobufCMessage *msg, uint8_t **out,
                      size_t *len)
{
    Strata__Admin__GetServerLoadResponse resp = STRATA__ADMIN__GET_SERVER_LOAD_RESPONSE__INIT;
    Strata__Admin__RegionLoad *loads = calloc(s->nregions + 1, sizeof(*loads));
    Strata__Admin__RegionLoad **ptrs = calloc(s->nregions + 1, sizeof(*ptrs));
    if (!loads || !ptrs)
        abort();
    for (size_t i = 0; i < s->nregions; i++) {
        strata__admin__region_load__init(&loads[i]);
        loads[i].encoded_name = s->regions[i].encoded;
        loads[i].table = s->regions[i].table;
        ptrs[i] = &loads[i];
    }
    resp.region = ptrs;
    resp.n_region = s->nregions;
    resp.has_start_code = 1;
    resp.start_code = s->sn.start_code;
    int rc = pack_answer(&resp.base, out, len);
    free(ptrs);
    free(loads);
    return rc;
}

static const struct {
    const char *method;
    const ProtobufCMessageDescriptor *req, *resp;
    admin_fn fn;
} admin_methods[] = {
    {"AdminService.OpenRegion", &strata__admin__open_region_request__descriptor,
     &strata__admin__open_region_response__descriptor, admin_open},
    {"AdminService.CloseRegion", &strata__admin__close_region_request__descriptor,
     &strata__admin__close_region_response__descriptor, admin_close},
    {"AdminService.FlushRegion", &strata__admin__flush_region_request__descriptor,
     &strata__admin__flush_region_response__descriptor, admin_flush},
    {"AdminService.CompactRegion", &strata__admin__compact_region_request__descriptor,
     &strata__admin__compact_region_response__descriptor, admin_compact},
    {"AdminService.GetRegionInfo", &strata__admin__get_region_info_request__descriptor,
     &strata__admin__get_region_info_response__descriptor, admin_region_info},
    {"AdminService.GetOnlineRegion", &strata__admin__get_online_region_request__descriptor,
     &strata__admin__get_online_region_response__descriptor, admin_online},
    {"AdminService.GetServerLoad", &strata__admin__get_server_load_request__descriptor,
     &strata__admin__get_server_load_response__descriptor, admin_load},
};

static int method_index(const char *method)
{
    for (size_t i = 0; i < sizeof(admin_methods) / sizeof(admin_methods[0]); i++)
        if (strcmp(admin_methods[i].method, method) == 0)
            return (int)i;
    return -1;
}

/* The region a request names and, for OpenRegion, its schema's families. */
static void describe(int mi, const ProtobufCMessage *msg, char *encoded, size_t ecap,
                     char *families, size_t fcap)
{
    encoded[0] = families[0] = 0;
    if (!msg || mi < 0)
        return;
    const char *method = admin_methods[mi].method;
    const char *e = NULL;
    if (strcmp(method, "AdminService.OpenRegion") == 0) {
        const Strata__Admin__OpenRegionRequest *r = (const Strata__Admin__OpenRegionRequest *)msg;
        if (r->n_open_info) {
            e = r->open_info[0]->region->encoded_name;
            const Strata__Admin__TableSchema *sc = r->open_info[0]->schema;
            size_t at = 0;
            for (size_t i = 0; i < sc->n_family && at < fcap; i++)
                at += (size_t)snprintf(families + at, fcap - at, "%s%s", i ? "," : "",
                                       sc->family[i]->name);
        }
    } else if (strcmp(method, "AdminService.CloseRegion") == 0) {
        e = ((const Strata__Admin__CloseRegionRequest *)msg)->encoded_name;
    } else if (strcmp(method, "AdminService.FlushRegion") == 0) {
        e = ((const Strata__Admin__FlushRegionRequest *)msg)->encoded_name;
    } else if (strcmp(method, "AdminService.CompactRegion") == 0) {
        e = ((const Strata__Admin__CompactRegionRequest *)msg)->encoded_name;
    } else if (strcmp(method, "AdminService.GetRegionInfo") == 0) {
        e = ((const Strata__Admin__GetRegionInfoRequest *)msg)->encoded_name;
    }
    if (e)
        snprintf(encoded, ecap, "%s", e);
}

/* Takes the fault that applies to method now, if any (mu held). */
static bool take_fault(fserver *s, const char *method, ffault *out)
{
    for (size_t i = 0; i < MAX_FAULTS; i++) {
        ffault *ft = &s->faults[i];
        if (ft->times == 0 || (ft->method[0] && strcmp(ft->method, method) != 0))
            continue;
        *out = *ft;
        if (ft->times > 0)
            ft->times--;
        return true;
    }
    return false;
}

static void log_call(mfake *f, const char *server, const char *method, const char *encoded,
                     const char *families, int rc)
{
    if (f->ncalls == f->ccap) {
        f->ccap = f->ccap ? f->ccap * 2 : 64;
        f->calls = realloc(f->calls, f->ccap * sizeof(*f->calls));
        if (!f->calls)
            abort();
    }
    fcall *c = &f->calls[f->ncalls++];
    snprintf(c->server, sizeof(c->server), "%s", server);
    snprintf(c->method, sizeof(c->method), "%s", method);
    snprintf(c->encoded, sizeof(c->encoded), "%s", encoded);
    snprintf(c->families, sizeof(c->families), "%s", families);
    c->rc = rc;
}

/* Re-reads req from its packed bytes as the method's request type, as a server would. */
static ProtobufCMessage *unpack_request(int mi, const ProtobufCMessage *req)
{
    if (mi < 0 || !req)
        return NULL;
    size_t len = protobuf_c_message_get_packed_size(req);
    uint8_t *bytes = malloc(len ? len : 1);
    if (!bytes)
        abort();
    protobuf_c_message_pack(req, bytes);
    ProtobufCMessage *msg = protobuf_c_message_unpack(admin_methods[mi].req, NULL, len, bytes);
    free(bytes);
    return msg;
}

/* Serves one call on the server at addr (mu held): the answer packed, or a status. */
static int serve(mfake *f, const char *addr, const char *method, int mi, const ProtobufCMessage *msg,
                 char *who, size_t cap, uint8_t **out, size_t *len)
{
    fserver *s = server_by_addr(f, addr);
    snprintf(who, cap, "%s", s ? s->name : "");
    if (!s || s->killed || s->unreachable)
        return st_error(ST_CONNECTION, "connect to %s: connection refused (fake)", addr);
    if (mi < 0)
        return st_error(ST_UNSUPPORTED, "%s: no such method on %s", method, s->name);
    if (!msg)
        return st_error(ST_INVALID_ARGUMENT, "%s: the request does not parse as %s", method,
                        admin_methods[mi].req->name);
    ffault ft;
    bool faulted = take_fault(s, method, &ft);
    if (faulted && !ft.after)
        return st_error(ft.status, "%s on %s: %s (fake, before)", method, s->name,
                        st_strerror(ft.status));
    int rc = admin_methods[mi].fn(f, s, msg, out, len);
    if (strcmp(s->crash_after, method) == 0) {
        s->crash_after[0] = 0;
        expire(f, s);
        free(*out);
        *out = NULL;
        return st_error(ST_CONNECTION, "%s on %s: connection reset (fake: it died)", method,
                        s->name);
    }
    if (faulted) {
        free(*out);
        *out = NULL;
        rc = st_error(ft.status, "%s on %s: %s (fake, answer lost)", method, s->name,
                      st_strerror(ft.status));
    }
    return rc;
}

static int op_rs_call(void *ctx, const char *addr, const char *method, const ProtobufCMessage *req,
                      int timeout_ms, const ProtobufCMessageDescriptor *resp_desc,
                      ProtobufCMessage **resp)
{
    mfake *f = ctx;
    if (resp)
        *resp = NULL;
    int mi = method_index(method);
    ProtobufCMessage *msg = unpack_request(mi, req);
    char encoded[64], families[256], who[SERVER_NAME_MAX];
    describe(mi, msg, encoded, sizeof(encoded), families, sizeof(families));
    pthread_mutex_lock(&f->mu);
    fserver *s = server_by_addr(f, addr);
    snprintf(who, sizeof(who), "%s", s ? s->name : "");
    pthread_mutex_unlock(&f->mu);
    mfake_event ev = {.kind = MFAKE_EV_RPC, .server = who, .method = method, .encoded = encoded,
                      .families = families, .path = ""};
    run_hook(f, &ev);

    uint8_t *out = NULL;
    size_t len = 0;
    pthread_mutex_lock(&f->mu);
    int rc = serve(f, addr, method, mi, msg, who, sizeof(who), &out, &len);
    log_call(f, who, method, encoded, families, rc);
    pthread_mutex_unlock(&f->mu);
    if (rc == ST_OK && resp_desc && resp) {
        if (resp_desc != admin_methods[mi].resp)
            rc = st_error(ST_PROTOCOL, "%s: answer asked as %s", method, resp_desc->name);
        else if (!(*resp = protobuf_c_message_unpack(resp_desc, NULL, len, out)))
            rc = st_error(ST_PROTOCOL, "%s: the answer does not parse", method);
    }
    free(out);
    if (msg)
        protobuf_c_message_free_unpacked(msg, NULL);
    return rc;
}

static const master_ops fake_ops = {
    .rs_call = op_rs_call,
    .zk_get = op_zk_get,
    .zk_set = op_zk_set,
    .zk_create = op_zk_create,
    .zk_delete = op_zk_delete,
    .zk_children = op_zk_children,
    .zk_ping = op_zk_ping,
    .zk_session_timeout_ms = op_zk_session_timeout_ms,
};

/* ---------------------------------------------------------------- the call log */

static bool match(const char *want, const char *have)
{
    return !want || strcmp(want, have) == 0;
}

size_t mfake_count(mfake *f, const char *server, const char *method, const char *encoded)
{
    pthread_mutex_lock(&f->mu);
    size_t n = 0;
    for (size_t i = 0; i < f->ncalls; i++)
        if (match(server, f->calls[i].server) && match(method, f->calls[i].method) &&
            match(encoded, f->calls[i].encoded))
            n++;
    pthread_mutex_unlock(&f->mu);
    return n;
}

void mfake_last_open_families(mfake *f, const char *encoded, char *out, size_t cap)
{
    pthread_mutex_lock(&f->mu);
    out[0] = 0;
    for (size_t i = f->ncalls; i > 0; i--) {
        const fcall *c = &f->calls[i - 1];
        if (strcmp(c->method, "AdminService.OpenRegion") == 0 && strcmp(c->encoded, encoded) == 0) {
            snprintf(out, cap, "%s", c->families);
            break;
        }
    }
    pthread_mutex_unlock(&f->mu);
}

void mfake_clear_calls(mfake *f)
{
    pthread_mutex_lock(&f->mu);
    f->ncalls = 0;
    pthread_mutex_unlock(&f->mu);
}

/* ---------------------------------------------------------------- the master */

static int set(config *c, const char *key, const char *value)
{
    int rc = config_set(c, key, value, CONFIG_SRC_FLAG);
    if (rc != ST_OK)
        fprintf(stderr, "master_fake: %s\n", st_errmsg());
    return rc;
}

int mfake_master_start(mfake *f, const char *root, uint64_t start_code, const char *const *kv,
                       master **out)
{
    *out = NULL;
    config *c = NULL;
    master *m = NULL;
    char session[32];
    snprintf(session, sizeof(session), "%d", MFAKE_SESSION_TIMEOUT_MS);
    int rc = config_new(&c);
    if (rc == ST_OK)
        rc = master_config_define(c);
    const char *const base[] = {
        "root.dir", root,
        "zk.quorum", "fake.invalid:2181",
        "zk.parent", MFAKE_PARENT,
        "zk.session.timeout.ms", session,
        "master.port", "0",
        "master.http.port", "-1",
        "master.chore.interval.ms", "10",
        "master.failed.open.retry.ms", "200",
        "master.region.rpc.timeout.ms", "100",
        "master.assign.attempts", "3",
        "master.reconcile.grace.ms", "50",
        NULL,
    };
    for (size_t i = 0; rc == ST_OK && base[i]; i += 2)
        rc = set(c, base[i], base[i + 1]);
    for (size_t i = 0; rc == ST_OK && kv && kv[i]; i += 2)
        rc = set(c, kv[i], kv[i + 1]);
    if (rc == ST_OK)
        rc = master_new(c, &m);
    config_free(c);
    if (rc != ST_OK)
        return rc;
    snprintf(m->sn.host, sizeof(m->sn.host), "master.unit");
    m->sn.port = 17000;
    m->sn.start_code = start_code ? start_code : (uint64_t)clock_now_ms();
    m->start_code = m->sn.start_code;
    server_name_format(&m->sn, m->name, sizeof(m->name));
    master_set_ops(m, &fake_ops, f);
    rc = master_activate(m, false);
    if (rc != ST_OK) {
        master_free(m);
        return rc;
    }
    *out = m;
    return ST_OK;
}

int mfake_report_regions(mfake *f, master *m, const char *server, const char *const *encoded,
                         size_t n)
{
    server_name sn;
    if (server_name_parse(server, &sn) != ST_OK)
        abort();
    Strata__Master__ServerName name = STRATA__MASTER__SERVER_NAME__INIT;
    name.host = sn.host;
    name.port = sn.port;
    name.start_code = sn.start_code;
    Strata__Admin__RegionLoad *loads = calloc(n + 1, sizeof(*loads));
    Strata__Admin__RegionLoad **ptrs = calloc(n + 1, sizeof(*ptrs));
    if (!loads || !ptrs)
        abort();
    for (size_t i = 0; i < n; i++) {
        strata__admin__region_load__init(&loads[i]);
        loads[i].encoded_name = (char *)encoded[i];
        ptrs[i] = &loads[i];
    }
    Strata__Master__RegionServerReportRequest req =
        STRATA__MASTER__REGION_SERVER_REPORT_REQUEST__INIT;
    req.server = &name;
    req.region = ptrs;
    req.n_region = n;
    int rc = master_handle_report(m, &req);
    free(ptrs);
    free(loads);
    return rc;
}

int mfake_report(mfake *f, master *m, const char *server)
{
    pthread_mutex_lock(&f->mu);
    fserver *s = must_server(f, server);
    size_t n = s->nregions;
    char (*names)[64] = calloc(n + 1, sizeof(*names));
    const char **ptrs = calloc(n + 1, sizeof(*ptrs));
    if (!names || !ptrs)
        abort();
    for (size_t i = 0; i < n; i++) {
        snprintf(names[i], sizeof(names[i]), "%s", s->regions[i].encoded);
        ptrs[i] = names[i];
    }
    pthread_mutex_unlock(&f->mu);
    int rc = mfake_report_regions(f, m, server, ptrs, n);
    free(ptrs);
    free(names);
    return rc;
}

/* ---------------------------------------------------------------- helpers */

int mfake_create_table(master *m, const char *table, const char *families,
                       const char *const *splits, size_t nsplits)
{
    char tmp[256];
    snprintf(tmp, sizeof(tmp), "%s", families);
    Strata__Admin__ColumnFamilySchema fams[16], *fptrs[16];
    size_t nf = 0;
    for (char *save = NULL, *p = strtok_r(tmp, ",", &save); p && nf < 16;
         p = strtok_r(NULL, ",", &save)) {
        strata__admin__column_family_schema__init(&fams[nf]);
        fams[nf].name = p;
        fptrs[nf] = &fams[nf];
        nf++;
    }
    Strata__Admin__TableSchema schema = STRATA__ADMIN__TABLE_SCHEMA__INIT;
    schema.name = (char *)table;
    schema.family = fptrs;
    schema.n_family = nf;
    ProtobufCBinaryData keys[64];
    for (size_t i = 0; i < nsplits && i < 64; i++) {
        keys[i].data = (uint8_t *)splits[i];
        keys[i].len = strlen(splits[i]);
    }
    Strata__Master__CreateTableRequest req = STRATA__MASTER__CREATE_TABLE_REQUEST__INIT;
    req.schema = &schema;
    req.split_key = keys;
    req.n_split_key = nsplits < 64 ? nsplits : 64;
    return master_create_table(m, &req);
}

int mfake_meta_row(master *m, const char *encoded, meta_region *out)
{
    return meta_find_region(m->meta, encoded, out);
}

static m_table *table_of(master *m, const char *table)
{
    char q[256];
    if (master_qualify(table, q, sizeof(q)) != ST_OK)
        return NULL;
    return master_find_table(m, q);
}

bool mfake_region_name(master *m, const char *table, size_t i, char *out)
{
    pthread_mutex_lock(&m->mu);
    m_table *t = table_of(m, table);
    bool ok = t && i < t->n;
    if (ok)
        snprintf(out, 64, "%s", t->regions[i]->mr.encoded_name);
    pthread_mutex_unlock(&m->mu);
    return ok;
}

size_t mfake_region_count(master *m, const char *table)
{
    pthread_mutex_lock(&m->mu);
    m_table *t = table_of(m, table);
    size_t n = t ? t->n : 0;
    pthread_mutex_unlock(&m->mu);
    return n;
}
