/*
 * master_ddl.c - table and namespace DDL (docs/master.md): create (SPLITS or NUMREGIONS
 * with HexStringSplit/UniformSplit), enable, disable, truncate, modify (alter), delete,
 * and namespaces. Every check runs before anything changes, so bad input changes nothing.
 * A DDL has its table (busy) for its whole run; region moves inside it take each region.
 *
 * Thread-safety: DDL handlers run on RPC handler threads; see master_internal.h.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/fileio.h"
#include "common/log.h"
#include "common/status.h"
#include "master/master_internal.h"
#include "regionserver/storage/layout.h"
#include "regionserver/storage/schema_proto.h"

/* Takes a table for a DDL (waits while another DDL has it): ST_NOT_FOUND naming it. */
static int take_table(master *m, const char *name, m_table **out)
{
    *out = NULL;
    char q[256];
    int rc = master_qualify(name, q, sizeof(q));
    if (rc != ST_OK)
        return rc;
    pthread_mutex_lock(&m->mu);
    for (;;) {
        m_table *t = master_find_table(m, q);
        if (!t) {
            pthread_mutex_unlock(&m->mu);
            return st_error(ST_NOT_FOUND, "table %s does not exist", q);
        }
        if (!t->busy) {
            t->busy = true; /* no split or merge starts on it from now on */
            t->users++;
            while (t->procs > 0) /* and those running end first */
                pthread_cond_wait(&m->cv, &m->mu);
            *out = t;
            pthread_mutex_unlock(&m->mu);
            return ST_OK;
        }
        pthread_cond_wait(&m->cv, &m->mu);
    }
}

static void give_table(master *m, m_table *t)
{
    pthread_mutex_lock(&m->mu);
    t->busy = false;
    t->users--;
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
}

void master_mirror_table_state(master *m, const char *table, meta_table_state st)
{
    const char *s = meta_table_state_name(st);
    char *path = znodes_path(m->parent, ZNODE_TABLE, table);
    if (path && master_zk_set(m, path, s, strlen(s)) == ST_NOT_FOUND)
        master_zk_create(m, path, s, strlen(s), ZK_PERSISTENT);
    free(path);
}

static int set_table_state(master *m, m_table *t, meta_table_state st)
{
    int rc = master_check_lease(m);
    if (rc == ST_OK)
        rc = meta_set_table_state(m->meta, t->name, st);
    if (rc != ST_OK)
        return rc;
    pthread_mutex_lock(&m->mu);
    t->state = st;
    t->state_ms = clock_now_ms();
    pthread_mutex_unlock(&m->mu);
    master_mirror_table_state(m, t->name, st);
    master_chore_wake(m);
    return ST_OK;
}

/* Checks a schema and returns it packed with its name qualified. */
static int check_schema(const Strata__Admin__TableSchema *in, char *qualified, size_t cap,
                        uint8_t **packed, size_t *len)
{
    int rc = master_qualify(in->name, qualified, cap);
    if (rc != ST_OK)
        return rc;
    if (strcmp(qualified, META_TABLE_NAME) == 0 || strncmp(qualified, "strata:", 7) == 0)
        return st_error(ST_INVALID_ARGUMENT, "table %s: the namespace 'strata' is reserved for "
                        "system tables", qualified);
    if (in->n_family == 0)
        return st_error(ST_INVALID_ARGUMENT, "table %s must have at least one column family",
                        qualified);
    Strata__Admin__TableSchema copy = *in;
    copy.name = qualified;
    table_schema ts;
    rc = schema_from_proto(&copy, 128u << 20, &ts);
    if (rc != ST_OK)
        return rc;
    *len = protobuf_c_message_get_packed_size(&copy.base);
    *packed = malloc(*len ? *len : 1);
    if (!*packed)
        return st_error(ST_NOMEM, "out of memory");
    protobuf_c_message_pack(&copy.base, *packed);
    return ST_OK;
}

/* Split keys from the request: explicit (sorted, distinct, non-empty) or generated. */
static int split_keys(const Strata__Master__CreateTableRequest *req, const char *table,
                      uint8_t ***keys, size_t **lens, size_t *n)
{
    *keys = NULL;
    *lens = NULL;
    *n = 0;
    if (req->n_split_key && req->has_num_regions)
        return st_error(ST_INVALID_ARGUMENT, "table %s: give SPLITS or NUMREGIONS, not both",
                        table);
    if (req->has_num_regions) {
        if (req->num_regions < 1)
            return st_error(ST_INVALID_ARGUMENT, "table %s: NUMREGIONS must be at least 1", table);
        if (req->num_regions > 10000)
            return st_error(ST_INVALID_ARGUMENT, "table %s: NUMREGIONS %u is over 10000", table,
                            req->num_regions);
        const char *algo = req->split_algo && req->split_algo[0] ? req->split_algo
                                                                   : "HexStringSplit";
        int rc = meta_split_keys(algo, req->num_regions, keys, lens);
        if (rc == ST_OK)
            *n = req->num_regions - 1;
        return rc;
    }
    for (size_t i = 0; i < req->n_split_key; i++) {
        const ProtobufCBinaryData *k = &req->split_key[i];
        if (k->len == 0)
            return st_error(ST_INVALID_ARGUMENT, "table %s: split key %zu is empty", table, i + 1);
        if (i > 0) {
            const ProtobufCBinaryData *p = &req->split_key[i - 1];
            size_t l = p->len < k->len ? p->len : k->len;
            int c = memcmp(p->data, k->data, l);
            if (c == 0 && p->len == k->len)
                return st_error(ST_INVALID_ARGUMENT, "table %s: split key %zu repeats key %zu",
                                table, i + 1, i);
            if (c > 0 || (c == 0 && p->len > k->len))
                return st_error(ST_INVALID_ARGUMENT,
                                "table %s: split keys are not sorted (key %zu sorts before key %zu)",
                                table, i + 1, i);
        }
    }
    if (req->n_split_key == 0)
        return ST_OK;
    *keys = calloc(req->n_split_key, sizeof(**keys));
    *lens = calloc(req->n_split_key, sizeof(**lens));
    if (!*keys || !*lens)
        return st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; i < req->n_split_key; i++) {
        (*keys)[i] = malloc(req->split_key[i].len);
        if (!(*keys)[i])
            return st_error(ST_NOMEM, "out of memory");
        memcpy((*keys)[i], req->split_key[i].data, req->split_key[i].len);
        (*lens)[i] = req->split_key[i].len;
        (*n)++;
    }
    return ST_OK;
}

/* Region rows for split keys: n + 1 regions, all CLOSED. */
static int build_regions(const char *table, uint8_t **keys, size_t *lens, size_t n,
                         uint64_t region_id, meta_region **out)
{
    meta_region *v = calloc(n + 1, sizeof(*v));
    if (!v)
        return st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; i <= n; i++) {
        snprintf(v[i].table, sizeof(v[i].table), "%s", table);
        const uint8_t *s = i ? keys[i - 1] : NULL;
        size_t sl = i ? lens[i - 1] : 0;
        const uint8_t *e = i < n ? keys[i] : NULL;
        size_t el = i < n ? lens[i] : 0;
        if (meta_region_set_keys(&v[i], s, sl, e, el) != ST_OK) {
            meta_regions_free(v, n + 1);
            return st_error(ST_NOMEM, "out of memory");
        }
        v[i].region_id = region_id;
        v[i].state = META_CLOSED;
        meta_encoded_name(table, s, sl, region_id, v[i].encoded_name);
    }
    *out = v;
    return ST_OK;
}

/* Puts regions rows into t in memory (mu held); takes the rows' contents. */
static int install_regions(m_table *t, meta_region *rows, size_t n, bool busy)
{
    m_region **v = calloc(n ? n : 1, sizeof(*v));
    if (!v)
        return st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        v[i] = calloc(1, sizeof(**v));
        if (!v[i]) {
            for (size_t j = 0; j < i; j++)
                free(v[j]);
            free(v);
            return st_error(ST_NOMEM, "out of memory");
        }
    }
    for (size_t i = 0; i < t->n; i++) {
        meta_region_clear(&t->regions[i]->mr);
        free(t->regions[i]);
    }
    free(t->regions);
    int64_t now = clock_now_ms();
    for (size_t i = 0; i < n; i++) {
        v[i]->mr = rows[i];
        memset(&rows[i], 0, sizeof(rows[i]));
        v[i]->since_ms = now;
        v[i]->busy = busy;
    }
    t->regions = v;
    t->n = t->cap = n;
    return ST_OK;
}

/* Opens every region of t and marks it ENABLED; regions that did not open are logged and
 * left to the chore (ST_OK unless the state cannot be written). */
static int open_table(master *m, m_table *t)
{
    pthread_mutex_lock(&m->mu);
    size_t n = t->n;
    m_region **v = calloc(n ? n : 1, sizeof(*v));
    if (v)
        memcpy(v, t->regions, n * sizeof(*v));
    pthread_mutex_unlock(&m->mu);
    if (!v)
        return st_error(ST_NOMEM, "out of memory");
    int rc = master_assign_many(m, t, v, n, MASTER_BULK_OPEN);
    free(v);
    char why[512] = "";
    if (rc != ST_OK)
        snprintf(why, sizeof(why), "%s", st_errmsg());
    int rc2 = set_table_state(m, t, META_TABLE_ENABLED);
    /* The table is enabled either way and the chore keeps opening what did not open; an
     * error here would make the caller retry a DDL that has been done. */
    if (rc != ST_OK)
        LOG_WARN("master %s: table %s is enabled but not every region opened yet (the master "
                 "keeps trying): %s", m->name, t->name, why);
    return rc2;
}

/* Closes every region of t; waits for regions on dead servers to be recovered. */
static int close_table(master *m, m_table *t)
{
    int64_t deadline = clock_now_ms() + 120000;
    for (;;) {
        pthread_mutex_lock(&m->mu);
        size_t n = 0;
        m_region **v = calloc(t->n ? t->n : 1, sizeof(*v));
        for (size_t i = 0; v && i < t->n; i++)
            if (t->regions[i]->mr.server[0] || t->regions[i]->mr.state == META_OPENING ||
                t->regions[i]->mr.state == META_CLOSING)
                v[n++] = t->regions[i];
        pthread_mutex_unlock(&m->mu);
        if (!v)
            return st_error(ST_NOMEM, "out of memory");
        if (n == 0) {
            free(v);
            return ST_OK;
        }
        int rc = master_assign_many(m, t, v, n, MASTER_BULK_CLOSE);
        free(v);
        if (rc == ST_OK)
            continue;
        if (clock_now_ms() > deadline || atomic_load(&m->stopping))
            return st_error(rc, "table %s: not every region closed: %s", t->name, st_errmsg());
        clock_sleep_ms(200);
    }
}

static int data_dir(master *m, const char *table, char **out)
{
    *out = layout_table_dir(m->root, table);
    return *out ? ST_OK : st_error(ST_INVALID_ARGUMENT, "table %s: no data directory", table);
}

/* Adds the new table t (busy) in memory before meta is written, so that a concurrent create
 * of the same name fails: ST_EXISTS if there is one already (t not added). */
static int add_new_table(master *m, m_table *t)
{
    pthread_mutex_lock(&m->mu);
    int rc = master_find_table(m, t->name) ? st_error(ST_EXISTS, "table %s already exists", t->name)
                                           : master_add_table(m, t);
    pthread_mutex_unlock(&m->mu);
    return rc;
}

/* Writes the new table and its n region rows to meta, then installs the regions in t
 * (taking the rows' contents). On failure t is removed from memory and freed. */
static int write_new_table(master *m, m_table *t, meta_region *rows, size_t n)
{
    meta_table row = {.schema = t->schema, .schema_len = t->schema_len, .state = t->state};
    memcpy(row.name, t->name, sizeof(row.name));
    int rc = master_check_lease(m);
    if (rc == ST_OK)
        rc = meta_create_table(m->meta, &row, rows, n);
    pthread_mutex_lock(&m->mu);
    if (rc == ST_OK)
        rc = install_regions(t, rows, n, false);
    if (rc != ST_OK) {
        t->users--;
        master_table_wait_unused(m, t, 0);
        master_remove_table(m, t);
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

int master_create_table(master *m, const Strata__Master__CreateTableRequest *req)
{
    char name[256];
    uint8_t *packed = NULL, **keys = NULL;
    size_t packed_len = 0, *lens = NULL, nkeys = 0;
    meta_region *rows = NULL;
    m_table *t = NULL;
    int rc = check_schema(req->schema, name, sizeof(name), &packed, &packed_len);
    if (rc == ST_OK)
        rc = split_keys(req, name, &keys, &lens, &nkeys);
    char *ns = NULL, *q = NULL;
    if (rc == ST_OK && (rc = layout_split_table_name(name, &ns, &q)) == ST_OK &&
        meta_namespace_exists(m->meta, ns) != ST_OK)
        rc = st_error(ST_NOT_FOUND, "table %s: namespace %s does not exist", name, ns);
    free(ns);
    free(q);
    if (rc == ST_OK)
        rc = build_regions(name, keys, lens, nkeys, (uint64_t)clock_now_ms(), &rows);
    if (rc == ST_OK && !(t = calloc(1, sizeof(*t))))
        rc = st_error(ST_NOMEM, "out of memory");
    if (rc != ST_OK)
        goto done;
    memcpy(t->name, name, sizeof(t->name));
    t->schema = packed;
    t->schema_len = packed_len;
    packed = NULL;
    t->state = META_TABLE_ENABLING;
    t->state_ms = clock_now_ms();
    t->busy = true;
    t->users = 1;
    rc = add_new_table(m, t);
    if (rc != ST_OK)
        goto done;
    rc = write_new_table(m, t, rows, nkeys + 1);
    t = rc == ST_OK ? t : NULL; /* freed by write_new_table */
    if (rc != ST_OK)
        goto done;
    master_mirror_table_state(m, name, META_TABLE_ENABLING);
    LOG_INFO("master %s: created table %s with %zu regions", m->name, name, nkeys + 1);
    rc = open_table(m, t);
    give_table(m, t);
    t = NULL;
done:
    if (t && t->busy) /* never added */
        master_table_free(t);
    free(packed);
    meta_keys_free(keys, lens, nkeys);
    meta_regions_free(rows, rows ? nkeys + 1 : 0);
    return rc;
}

/* Enable and disable are listed as HBase's EnableTableProcedure and DisableTableProcedure;
 * their state is the table's state in meta (docs/procedures.md). Each step is shown in the
 * listing and is where master.inject.pause / master.inject.crash act. */
static void ddl_step(master *m, uint64_t id, const char *type, const char *step)
{
    master_proc_set_step(m, id, step);
    master_inject_crash(m, type, step);
}

static void ddl_end(master *m, uint64_t id, int rc)
{
    master_proc_end(m, id, false, rc == ST_OK ? M_PROC_SUCCESS : M_PROC_FAILED,
                    rc == ST_OK ? NULL : st_errmsg());
}

#define ENABLE_TYPE "EnableTableProcedure"
#define DISABLE_TYPE "DisableTableProcedure"

int master_enable_table(master *m, const char *table)
{
    m_table *t = NULL;
    int rc = take_table(m, table, &t);
    if (rc != ST_OK)
        return rc;
    if (t->state == META_TABLE_ENABLED)
        rc = st_error(ST_INVALID_ARGUMENT, "table %s is already enabled", t->name);
    if (rc != ST_OK) {
        give_table(m, t);
        return rc;
    }
    uint64_t id = master_proc_begin(m, ENABLE_TYPE, t->name, NULL, 0);
    ddl_step(m, id, ENABLE_TYPE, "ENABLE_TABLE_SET_ENABLING_TABLE_STATE");
    rc = set_table_state(m, t, META_TABLE_ENABLING);
    if (rc == ST_OK) {
        ddl_step(m, id, ENABLE_TYPE, "ENABLE_TABLE_MARK_REGIONS_ONLINE");
        rc = open_table(m, t); /* ends ENABLED */
    }
    ddl_end(m, id, rc);
    give_table(m, t);
    return rc;
}

int master_disable_table(master *m, const char *table)
{
    m_table *t = NULL;
    int rc = take_table(m, table, &t);
    if (rc != ST_OK)
        return rc;
    if (t->state == META_TABLE_DISABLED)
        rc = st_error(ST_INVALID_ARGUMENT, "table %s is already disabled", t->name);
    if (rc != ST_OK) {
        give_table(m, t);
        return rc;
    }
    uint64_t id = master_proc_begin(m, DISABLE_TYPE, t->name, NULL, 0);
    ddl_step(m, id, DISABLE_TYPE, "DISABLE_TABLE_SET_DISABLING_TABLE_STATE");
    rc = set_table_state(m, t, META_TABLE_DISABLING);
    if (rc == ST_OK) {
        ddl_step(m, id, DISABLE_TYPE, "DISABLE_TABLE_MARK_REGIONS_OFFLINE");
        rc = close_table(m, t);
    }
    if (rc == ST_OK) {
        ddl_step(m, id, DISABLE_TYPE, "DISABLE_TABLE_SET_DISABLED_TABLE_STATE");
        rc = set_table_state(m, t, META_TABLE_DISABLED);
    }
    ddl_end(m, id, rc);
    give_table(m, t);
    return rc;
}

/* Removes the table's data directory; a failure is logged and left (the data is no longer
 * reachable through meta). */
static void remove_data(master *m, m_table *t, const char *what)
{
    char *dir = NULL;
    if (data_dir(m, t->name, &dir) == ST_OK && fio_remove_tree(dir) != ST_OK)
        LOG_WARN("master %s: table %s %s but its old data %s stays: %s", m->name, t->name, what,
                 dir, st_errmsg());
    free(dir);
}

int master_delete_table(master *m, const char *table)
{
    m_table *t = NULL;
    char *zpath = NULL;
    int rc = take_table(m, table, &t);
    if (rc != ST_OK)
        return rc;
    if (t->state != META_TABLE_DISABLED)
        rc = st_error(ST_INVALID_ARGUMENT, "table %s is %s; disable it before dropping it",
                      t->name, meta_table_state_name(t->state));
    if (rc == ST_OK)
        rc = close_table(m, t); /* nothing should be open; make sure */
    if (rc == ST_OK)
        rc = master_check_lease(m);
    if (rc == ST_OK)
        rc = meta_delete_table(m->meta, t->name);
    if (rc != ST_OK) {
        give_table(m, t);
        return rc;
    }
    remove_data(m, t, "dropped");
    if ((zpath = znodes_path(m->parent, ZNODE_TABLE, t->name)))
        master_zk_delete(m, zpath);
    LOG_INFO("master %s: dropped table %s", m->name, t->name);
    pthread_mutex_lock(&m->mu);
    t->users--;
    master_table_wait_unused(m, t, 0);
    master_remove_table(m, t);
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
    free(zpath);
    return ST_OK;
}

/* The start keys of t's regions but the first: its split points (copied). */
static int current_splits(const m_table *t, uint8_t ***keys, size_t **lens, size_t *n)
{
    *keys = NULL;
    *lens = NULL;
    *n = 0;
    if (t->n < 2)
        return ST_OK;
    *keys = calloc(t->n - 1, sizeof(**keys));
    *lens = calloc(t->n - 1, sizeof(**lens));
    if (!*keys || !*lens)
        return st_error(ST_NOMEM, "out of memory");
    for (size_t i = 1; i < t->n; i++) {
        (*keys)[*n] = malloc(t->regions[i]->mr.start_len ? t->regions[i]->mr.start_len : 1);
        if (!(*keys)[*n])
            return st_error(ST_NOMEM, "out of memory");
        memcpy((*keys)[*n], t->regions[i]->mr.start_key, t->regions[i]->mr.start_len);
        (*lens)[(*n)++] = t->regions[i]->mr.start_len;
    }
    return ST_OK;
}

/* Replaces t's regions in meta, then in memory, by fresh CLOSED regions cut at keys. */
static int replace_regions(master *m, m_table *t, uint8_t **keys, size_t *lens, size_t nkeys)
{
    meta_region *rows = NULL;
    int rc = build_regions(t->name, keys, lens, nkeys, (uint64_t)clock_now_ms(), &rows);
    if (rc == ST_OK)
        rc = master_check_lease(m);
    if (rc == ST_OK)
        rc = meta_replace_regions(m->meta, t->name, rows, nkeys + 1);
    if (rc == ST_OK) {
        pthread_mutex_lock(&m->mu);
        /* Nothing else uses the old regions: the table is busy and every region closed,
         * but a chore pass may still hold pointers to them. */
        master_table_wait_unused(m, t, 1);
        rc = install_regions(t, rows, nkeys + 1, false);
        pthread_mutex_unlock(&m->mu);
    }
    meta_regions_free(rows, rows ? nkeys + 1 : 0);
    return rc;
}

int master_truncate_table(master *m, const char *table, bool preserve_splits)
{
    m_table *t = NULL;
    uint8_t **keys = NULL;
    size_t *lens = NULL, nkeys = 0;
    int rc = take_table(m, table, &t);
    if (rc != ST_OK)
        return rc;
    if (t->state != META_TABLE_DISABLED)
        rc = st_error(ST_INVALID_ARGUMENT, "table %s is %s; disable it before truncating it",
                      t->name, meta_table_state_name(t->state));
    if (rc == ST_OK)
        rc = close_table(m, t);
    if (rc == ST_OK && preserve_splits)
        rc = current_splits(t, &keys, &lens, &nkeys);
    if (rc == ST_OK)
        rc = replace_regions(m, t, keys, lens, nkeys);
    if (rc == ST_OK)
        remove_data(m, t, "truncated");
    if (rc == ST_OK)
        rc = set_table_state(m, t, META_TABLE_ENABLING);
    if (rc == ST_OK)
        rc = open_table(m, t);
    give_table(m, t);
    meta_keys_free(keys, lens, nkeys);
    return rc;
}

/* Families of old missing from new (their directories go after the reopen). */
static int removed_families(const Strata__Admin__TableSchema *old, const Strata__Admin__TableSchema *nw,
                            char ***out, size_t *n)
{
    *out = calloc(old->n_family ? old->n_family : 1, sizeof(**out));
    *n = 0;
    if (!*out)
        return st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; i < old->n_family; i++) {
        bool kept = false;
        for (size_t j = 0; j < nw->n_family && !kept; j++)
            kept = strcmp(old->family[i]->name, nw->family[j]->name) == 0;
        if (!kept)
            (*out)[(*n)++] = old->family[i]->name;
    }
    return ST_OK;
}

/* Writes t's new schema (packed) to meta, then to memory; takes packed on success. */
static int store_schema(master *m, m_table *t, uint8_t **packed, size_t len)
{
    meta_table row = {.schema = *packed, .schema_len = len, .state = t->state};
    memcpy(row.name, t->name, sizeof(row.name));
    int rc = master_check_lease(m);
    if (rc == ST_OK)
        rc = meta_put_table(m->meta, &row);
    if (rc == ST_OK) {
        pthread_mutex_lock(&m->mu);
        free(t->schema);
        t->schema = *packed;
        t->schema_len = len;
        *packed = NULL;
        pthread_mutex_unlock(&m->mu);
    }
    return rc;
}

/* Reopens every open region of t (with its new schema), one at a time, where it was;
 * counts them in t->alter_done. Stops early when the master stops. */
static int reopen_regions(master *m, m_table *t)
{
    int rc = ST_OK;
    for (size_t i = 0; rc == ST_OK && i < t->n; i++) {
        if (atomic_load(&m->stopping))
            return st_error(ST_NOT_SERVING, "table %s: the master stopped during the alter",
                            t->name);
        m_region *r = t->regions[i];
        master_region_take_ptr(m, r);
        if (r->mr.state == META_OPEN && r->mr.server[0]) {
            char where[SERVER_NAME_MAX];
            snprintf(where, sizeof(where), "%s", r->mr.server);
            rc = master_unassign(m, r);
            if (rc == ST_OK && (rc = master_assign(m, t, r, where)) != ST_OK)
                rc = master_assign(m, t, r, NULL);
        }
        master_region_give(m, r);
        pthread_mutex_lock(&m->mu);
        t->alter_done++;
        pthread_mutex_unlock(&m->mu);
    }
    return rc;
}

/* Removes the directories of the families an alter dropped, in every region of t. */
static void remove_families(master *m, m_table *t, char **removed, size_t nremoved)
{
    for (size_t i = 0; i < nremoved; i++)
        for (size_t j = 0; j < t->n; j++) {
            char *fam = layout_store_dir(m->root, t->name, t->regions[j]->mr.encoded_name,
                                         removed[i]);
            if (fam && fio_remove_tree(fam) != ST_OK)
                LOG_WARN("master %s: removing family dir %s: %s", m->name, fam, st_errmsg());
            free(fam);
        }
}

/* An alter past its schema write: the reopen of the regions and the removal of dropped
 * families' directories, then the table given back. */
typedef struct alter_job {
    master *m;
    m_table *t;
    Strata__Admin__TableSchema *old; /* the schema before; removed points into it */
    char **removed;
    size_t nremoved;
    uint64_t proc;
} alter_job;

static int finish_alter(alter_job *j)
{
    master *m = j->m;
    m_table *t = j->t;
    int rc = reopen_regions(m, t);
    if (rc == ST_OK) {
        remove_families(m, t, j->removed, j->nremoved);
        LOG_INFO("master %s: altered table %s (%zu families removed)", m->name, t->name,
                 j->nremoved);
    } else {
        LOG_ERROR("master %s: altering table %s: %s", m->name, t->name, st_errmsg());
    }
    master_proc_end(m, j->proc, false, rc == ST_OK ? M_PROC_SUCCESS : M_PROC_FAILED,
                    rc == ST_OK ? NULL : st_errmsg());
    pthread_mutex_lock(&m->mu);
    t->altering = false;
    pthread_mutex_unlock(&m->mu);
    give_table(m, t);
    free(j->removed);
    strata__admin__table_schema__free_unpacked(j->old, NULL);
    free(j);
    return rc;
}

static void *alter_thread(void *arg)
{
    master *m = ((alter_job *)arg)->m;
    finish_alter(arg);
    pthread_mutex_lock(&m->mu);
    m->proc_threads--;
    pthread_cond_broadcast(&m->cv);
    pthread_mutex_unlock(&m->mu);
    return NULL;
}

/* Runs finish_alter on a counted thread (master_stop waits for it); inline if no thread. */
static void finish_alter_async(alter_job *j)
{
    master *m = j->m;
    pthread_mutex_lock(&m->mu);
    m->proc_threads++;
    pthread_mutex_unlock(&m->mu);
    pthread_t th;
    if (pthread_create(&th, NULL, alter_thread, j) == 0) {
        pthread_detach(th);
        return;
    }
    pthread_mutex_lock(&m->mu);
    m->proc_threads--;
    pthread_mutex_unlock(&m->mu);
    LOG_WARN("master %s: no thread for the alter of %s; reopening its regions now", m->name,
             j->t->name);
    finish_alter(j);
}

int master_modify_table_async(master *m, const Strata__Admin__TableSchema *schema, bool async)
{
    char name[256];
    uint8_t *packed = NULL;
    size_t len = 0;
    m_table *t = NULL;
    Strata__Admin__TableSchema *old = NULL;
    alter_job *j = calloc(1, sizeof(*j));
    int rc = j ? check_schema(schema, name, sizeof(name), &packed, &len)
               : st_error(ST_NOMEM, "out of memory");
    if (rc == ST_OK)
        rc = take_table(m, name, &t);
    if (rc != ST_OK) {
        free(packed);
        free(j);
        return rc;
    }
    old = master_table_schema(t);
    if (!old)
        rc = st_error(ST_CORRUPTION, "table %s: its stored schema cannot be read", t->name);
    if (rc == ST_OK)
        rc = removed_families(old, schema, &j->removed, &j->nremoved);
    if (rc == ST_OK)
        rc = store_schema(m, t, &packed, len);
    free(packed);
    if (rc != ST_OK) {
        give_table(m, t);
        free(j->removed);
        if (old)
            strata__admin__table_schema__free_unpacked(old, NULL);
        free(j);
        return rc;
    }
    j->old = old;
    j->m = m;
    j->t = t;
    j->proc = master_proc_begin(m, "ModifyTableProcedure", t->name, NULL, 0);
    master_proc_set_step(m, j->proc, "REOPEN_TABLE_REGIONS");
    pthread_mutex_lock(&m->mu);
    t->altering = true;
    t->alter_done = 0;
    t->alter_total = t->n;
    pthread_mutex_unlock(&m->mu);
    if (!async)
        return finish_alter(j);
    finish_alter_async(j);
    return ST_OK;
}

int master_modify_table(master *m, const Strata__Admin__TableSchema *schema)
{
    return master_modify_table_async(m, schema, false);
}

int master_alter_status(master *m, const char *table, size_t *updated, size_t *total,
                        bool *running)
{
    char q[256];
    int rc = master_qualify(table, q, sizeof(q));
    if (rc != ST_OK)
        return rc;
    pthread_mutex_lock(&m->mu);
    m_table *t = master_find_table(m, q);
    if (t) {
        *running = t->altering;
        *total = t->altering ? t->alter_total : t->n;
        *updated = t->altering ? t->alter_done : t->n;
    }
    pthread_mutex_unlock(&m->mu);
    return t ? ST_OK : st_error(ST_NOT_FOUND, "table %s does not exist", q);
}

/* Namespace properties: at most this many, keys and values at most this long. */
#define NS_MAX_PROPS 256
#define NS_MAX_KEY 1024
#define NS_MAX_VALUE 65536

/* Checks a namespace's properties: keys non-empty, distinct and short enough. */
static int check_ns_props(const char *ns, Strata__Master__NamespaceProperty *const *props,
                          size_t n)
{
    if (n > NS_MAX_PROPS)
        return st_error(ST_INVALID_ARGUMENT, "namespace %s: %zu properties (at most %d)", ns, n,
                        NS_MAX_PROPS);
    for (size_t i = 0; i < n; i++) {
        const char *k = props[i]->key, *v = props[i]->value;
        if (!k || !*k)
            return st_error(ST_INVALID_ARGUMENT, "namespace %s: a property has an empty key", ns);
        if (strlen(k) > NS_MAX_KEY || !v || strlen(v) > NS_MAX_VALUE)
            return st_error(ST_INVALID_ARGUMENT,
                            "namespace %s: property %.64s is too long (keys up to %d bytes, "
                            "values up to %d)",
                            ns, k, NS_MAX_KEY, NS_MAX_VALUE);
        for (size_t j = 0; j < i; j++)
            if (strcmp(props[j]->key, k) == 0)
                return st_error(ST_INVALID_ARGUMENT, "namespace %s: property %s is given twice",
                                ns, k);
    }
    return ST_OK;
}

int master_create_namespace(master *m, const char *ns)
{
    return master_create_namespace_props(m, ns, NULL, 0);
}

int master_create_namespace_props(master *m, const char *ns,
                                  Strata__Master__NamespaceProperty *const *props, size_t n)
{
    if (layout_validate_name_part(ns) != ST_OK)
        return st_error(ST_INVALID_ARGUMENT, "namespace name '%s' is invalid: %s", ns, st_errmsg());
    int rc = check_ns_props(ns, props, n);
    if (rc == ST_OK)
        rc = master_check_lease(m);
    return rc == ST_OK ? meta_create_namespace_props(m->meta, ns, props, n) : rc;
}

int master_modify_namespace(master *m, const char *ns,
                            Strata__Master__NamespaceProperty *const *props, size_t n)
{
    if (layout_validate_name_part(ns) != ST_OK)
        return st_error(ST_INVALID_ARGUMENT, "namespace name '%s' is invalid: %s", ns, st_errmsg());
    int rc = check_ns_props(ns, props, n);
    if (rc == ST_OK)
        rc = master_check_lease(m);
    if (rc == ST_OK)
        rc = meta_modify_namespace(m->meta, ns, props, n);
    if (rc == ST_NOT_FOUND)
        rc = st_error(ST_NOT_FOUND, "namespace %s does not exist", ns);
    return rc;
}

int master_delete_namespace(master *m, const char *ns)
{
    if (strcmp(ns, "default") == 0 || strcmp(ns, "strata") == 0)
        return st_error(ST_INVALID_ARGUMENT, "namespace %s is reserved and cannot be dropped", ns);
    int rc = meta_namespace_exists(m->meta, ns);
    if (rc != ST_OK)
        return st_error(ST_NOT_FOUND, "namespace %s does not exist", ns);
    size_t n = 0, len = strlen(ns);
    pthread_mutex_lock(&m->mu);
    for (size_t i = 0; i < m->ntables; i++)
        if (strncmp(m->tables[i]->name, ns, len) == 0 && m->tables[i]->name[len] == ':')
            n++;
    pthread_mutex_unlock(&m->mu);
    if (n)
        return st_error(ST_INVALID_ARGUMENT, "namespace %s still has %zu table(s); drop them first",
                        ns, n);
    rc = master_check_lease(m);
    return rc == ST_OK ? meta_delete_namespace(m->meta, ns) : rc;
}
