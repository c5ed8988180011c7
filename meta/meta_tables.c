/*
 * meta_tables.c - table rows (schema and state), the multi-row table changes (create
 * with its regions, delete with its regions, replace the regions of a truncated
 * table) and namespace rows (docs/formats/meta.md).
 *
 * Every change that depends on what meta holds (create only if absent, delete only
 * if present, delete the region rows that exist) reads and writes under write_mu, so
 * two masters' threads never interleave a check and a write.
 * Thread-safety: see meta_internal.h.
 */
#include "meta/meta_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/proto/master.pb-c.h"
#include "common/status.h"

/* ---------------------------------------------------------------- meta_table */

void meta_table_clear(meta_table *t)
{
    if (!t)
        return;
    free(t->schema);
    memset(t, 0, sizeof(*t));
}

void meta_tables_free(meta_table *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        meta_table_clear(&v[i]);
    free(v);
}

/* ---------------------------------------------------------------- table rows */

static void batch_table(meta_batch *b, const meta_table *t)
{
    const char *state = meta_table_state_name(t->state);
    meta_batch_row(b, (const uint8_t *)t->name, strlen(t->name));
    meta_batch_put(b, META_FAM_TABLE, META_Q_SCHEMA, t->schema, t->schema_len);
    meta_batch_put(b, META_FAM_TABLE, META_Q_STATE, state, strlen(state));
}

static int check_table(const meta_table *t)
{
    int rc = meta_check_table_name(t->name);
    if (rc == ST_OK && (unsigned)t->state > META_TABLE_DISABLING)
        rc = st_error(ST_INVALID_ARGUMENT, "meta: table %s has an unknown state %d", t->name,
                      (int)t->state);
    return rc;
}

static int decode_table(const scan_result *row, meta_table *out)
{
    memset(out, 0, sizeof(*out));
    const cell_t *c0 = &row->cells[0];
    if (c0->row_len >= sizeof(out->name))
        return st_error(ST_CORRUPTION, "meta: table row of %u bytes", c0->row_len);
    memcpy(out->name, c0->row, c0->row_len);
    int rc = ST_OK;
    for (size_t i = 0; i < row->ncells && rc == ST_OK; i++) {
        const cell_t *c = &row->cells[i];
        if (meta_cell_is(c, META_FAM_TABLE, META_Q_SCHEMA)) {
            free(out->schema);
            out->schema = malloc(c->value_len ? c->value_len : 1);
            if (!out->schema)
                rc = ST_NOMEM;
            else
                memcpy(out->schema, c->value, c->value_len);
            out->schema_len = c->value_len;
        } else if (meta_cell_is(c, META_FAM_TABLE, META_Q_STATE)) {
            char text[32];
            int n = snprintf(text, sizeof(text), "%.*s", (int)c->value_len, (const char *)c->value);
            if (n < 0 || (size_t)n >= sizeof(text) ||
                meta_table_state_parse(text, &out->state) != ST_OK)
                rc = st_error(ST_CORRUPTION, "meta: table %s has a bad table:state", out->name);
        }
    }
    if (rc != ST_OK)
        meta_table_clear(out);
    return rc;
}

/* ST_OK if the table row exists, ST_NOT_FOUND naming it, or a read error. */
static int table_exists(meta *m, const char *table)
{
    scan_result res;
    scan_result_init(&res);
    int rc = meta_get_row(m, (const uint8_t *)table, strlen(table), META_FAM_TABLE, &res);
    if (rc == ST_OK && res.ncells == 0)
        rc = st_error(ST_NOT_FOUND, "table %s not found", table);
    scan_result_free(&res);
    return rc;
}

int meta_put_table(meta *m, const meta_table *t)
{
    int rc = check_table(t);
    if (rc != ST_OK)
        return rc;
    meta_batch b;
    meta_batch_init(&b);
    batch_table(&b, t);
    pthread_mutex_lock(&m->write_mu);
    rc = meta_batch_commit(m, &b);
    pthread_mutex_unlock(&m->write_mu);
    meta_batch_free(&b);
    return rc;
}

int meta_set_table_state(meta *m, const char *table, meta_table_state st)
{
    int rc = meta_check_table_name(table);
    if (rc == ST_OK && (unsigned)st > META_TABLE_DISABLING)
        rc = st_error(ST_INVALID_ARGUMENT, "meta: unknown table state %d for %s", (int)st, table);
    if (rc != ST_OK)
        return rc;
    const char *state = meta_table_state_name(st);
    meta_batch b;
    meta_batch_init(&b);
    meta_batch_row(&b, (const uint8_t *)table, strlen(table));
    meta_batch_put(&b, META_FAM_TABLE, META_Q_STATE, state, strlen(state));
    pthread_mutex_lock(&m->write_mu);
    rc = table_exists(m, table);
    if (rc == ST_OK)
        rc = meta_batch_commit(m, &b);
    pthread_mutex_unlock(&m->write_mu);
    meta_batch_free(&b);
    return rc;
}

int meta_get_table(meta *m, const char *table, meta_table *out)
{
    memset(out, 0, sizeof(*out));
    int rc = meta_check_table_name(table);
    if (rc != ST_OK)
        return rc;
    scan_result res;
    scan_result_init(&res);
    rc = meta_get_row(m, (const uint8_t *)table, strlen(table), META_FAM_TABLE, &res);
    if (rc == ST_OK && res.ncells == 0)
        rc = st_error(ST_NOT_FOUND, "table %s not found", table);
    if (rc == ST_OK)
        rc = decode_table(&res, out);
    scan_result_free(&res);
    return rc;
}

typedef struct table_vec {
    meta_table *v;
    size_t n;
    size_t cap;
} table_vec;

static int collect_table(const scan_result *row, void *arg)
{
    table_vec *tv = arg;
    if (tv->n == tv->cap) {
        size_t nc = tv->cap ? tv->cap * 2 : 16;
        meta_table *p = realloc(tv->v, nc * sizeof(*p));
        if (!p)
            return ST_NOMEM;
        tv->v = p;
        tv->cap = nc;
    }
    int rc = decode_table(row, &tv->v[tv->n]);
    if (rc == ST_OK)
        tv->n++;
    return rc;
}

int meta_list_tables(meta *m, const char *ns, meta_table **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    char start[300] = "", stop[300] = "";
    if (ns) {
        int rc = meta_check_namespace(ns);
        if (rc != ST_OK)
            return rc;
        /* "<ns>:" up to "<ns>;" (':' is 0x3A, ';' 0x3B). */
        snprintf(start, sizeof(start), "%s:", ns);
        snprintf(stop, sizeof(stop), "%s;", ns);
    }
    table_vec tv = {0};
    int rc = meta_scan(m, (const uint8_t *)start, strlen(start), (const uint8_t *)stop,
                       strlen(stop), META_FAM_TABLE, collect_table, &tv);
    if (rc != ST_OK) {
        meta_tables_free(tv.v, tv.n);
        return rc;
    }
    *out = tv.v;
    *n = tv.n;
    return ST_OK;
}

/* ---------------------------------------------------------------- table changes */

static int add_regions(meta_batch *b, const meta_region *v, size_t n)
{
    int rc = ST_OK;
    for (size_t i = 0; i < n && rc == ST_OK; i++)
        rc = meta_batch_region(b, &v[i]);
    return rc;
}

static int namespace_of(const char *table, char *ns, size_t cap)
{
    const char *colon = strchr(table, ':');
    int n = snprintf(ns, cap, "%.*s", (int)(colon - table), table);
    return n > 0 && (size_t)n < cap ? ST_OK : ST_INVALID_ARGUMENT;
}

/* Under write_mu: the namespace exists, and neither the table row nor any region row
 * of the table does. */
static int check_can_create(meta *m, const char *table)
{
    char ns[256];
    int rc = namespace_of(table, ns, sizeof(ns));
    if (rc == ST_OK)
        rc = meta_namespace_exists(m, ns);
    if (rc != ST_OK)
        return rc == ST_NOT_FOUND ? st_error(rc, "namespace %s of table %s not found", ns, table)
                                  : rc;
    rc = table_exists(m, table);
    if (rc == ST_OK)
        return st_error(ST_EXISTS, "table %s already exists", table);
    if (rc != ST_NOT_FOUND)
        return rc;
    uint8_t **keys = NULL;
    size_t *lens = NULL, n = 0;
    rc = meta_region_row_keys(m, table, &keys, &lens, &n);
    meta_keys_free(keys, lens, n);
    if (rc == ST_OK && n)
        rc = st_error(ST_EXISTS, "table %s still has %zu region rows in meta", table, n);
    return rc;
}

int meta_create_table(meta *m, const meta_table *t, const meta_region *regions, size_t n)
{
    int rc = check_table(t);
    if (rc == ST_OK)
        rc = meta_check_region_set(t->name, regions, n);
    if (rc != ST_OK)
        return rc;
    meta_batch b;
    meta_batch_init(&b);
    batch_table(&b, t);
    rc = add_regions(&b, regions, n);
    if (rc == ST_OK) {
        pthread_mutex_lock(&m->write_mu);
        rc = check_can_create(m, t->name);
        if (rc == ST_OK)
            rc = meta_batch_commit(m, &b);
        pthread_mutex_unlock(&m->write_mu);
    }
    meta_batch_free(&b);
    return rc;
}

/* Under write_mu: adds a delete of every region row of table that the batch does not
 * already write; *found counts them. */
static int delete_old_regions(meta *m, meta_batch *b, const char *table, size_t *found)
{
    uint8_t **keys = NULL;
    size_t *lens = NULL, n = 0;
    int rc = meta_region_row_keys(m, table, &keys, &lens, &n);
    for (size_t i = 0; rc == ST_OK && i < n; i++)
        if (!meta_batch_has_row(b, keys[i], lens[i]))
            meta_batch_delete_row(b, keys[i], lens[i]);
    meta_keys_free(keys, lens, n);
    *found = n;
    return rc == ST_OK ? b->rc : rc;
}

int meta_delete_table(meta *m, const char *table)
{
    int rc = meta_check_table_name(table);
    if (rc != ST_OK)
        return rc;
    meta_batch b;
    meta_batch_init(&b);
    size_t nregions = 0;
    pthread_mutex_lock(&m->write_mu);
    rc = table_exists(m, table);
    bool had_table = rc == ST_OK;
    if (rc == ST_OK || rc == ST_NOT_FOUND) {
        if (had_table)
            meta_batch_delete_row(&b, (const uint8_t *)table, strlen(table));
        rc = delete_old_regions(m, &b, table, &nregions);
    }
    if (rc == ST_OK && !had_table && nregions == 0)
        rc = st_error(ST_NOT_FOUND, "table %s not found", table);
    if (rc == ST_OK)
        rc = meta_batch_commit(m, &b);
    pthread_mutex_unlock(&m->write_mu);
    meta_batch_free(&b);
    if (rc == ST_OK)
        LOG_INFO("meta: deleted table %s (%s%zu region rows)", table,
                 had_table ? "" : "no table row, ", nregions);
    return rc;
}

int meta_replace_regions(meta *m, const char *table, const meta_region *regions, size_t n)
{
    int rc = meta_check_table_name(table);
    if (rc == ST_OK)
        rc = meta_check_region_set(table, regions, n);
    if (rc != ST_OK)
        return rc;
    meta_batch b;
    meta_batch_init(&b);
    rc = add_regions(&b, regions, n);
    size_t old = 0;
    if (rc == ST_OK) {
        pthread_mutex_lock(&m->write_mu);
        rc = table_exists(m, table);
        if (rc == ST_OK)
            rc = delete_old_regions(m, &b, table, &old);
        if (rc == ST_OK)
            rc = meta_batch_commit(m, &b);
        pthread_mutex_unlock(&m->write_mu);
    }
    meta_batch_free(&b);
    return rc;
}

/* ---------------------------------------------------------------- namespaces */

static bool is_system_namespace(const char *ns)
{
    return strcmp(ns, "default") == 0 || strcmp(ns, "strata") == 0;
}

int meta_namespace_exists(meta *m, const char *ns)
{
    int rc = meta_check_namespace(ns);
    if (rc != ST_OK)
        return rc;
    scan_result res;
    scan_result_init(&res);
    rc = meta_get_row(m, (const uint8_t *)ns, strlen(ns), META_FAM_NS, &res);
    if (rc == ST_OK && res.ncells == 0)
        rc = st_error(ST_NOT_FOUND, "namespace %s not found", ns);
    scan_result_free(&res);
    return rc;
}

/* A batch putting ns's descriptor with props into ns:d. */
static int ns_batch(meta_batch *b, const char *ns, Strata__Master__NamespaceProperty *const *props,
                    size_t n)
{
    Strata__Master__NamespaceDescriptor d = STRATA__MASTER__NAMESPACE_DESCRIPTOR__INIT;
    d.name = (char *)ns;
    d.property = (Strata__Master__NamespaceProperty **)props;
    d.n_property = n;
    size_t len = strata__master__namespace_descriptor__get_packed_size(&d);
    uint8_t *buf = malloc(len ? len : 1);
    if (!buf)
        return st_error(ST_NOMEM, "meta: out of memory writing namespace %s", ns);
    strata__master__namespace_descriptor__pack(&d, buf);
    meta_batch_init(b);
    meta_batch_row(b, (const uint8_t *)ns, strlen(ns));
    meta_batch_put(b, META_FAM_NS, META_Q_NSDESC, buf, len);
    free(buf);
    return ST_OK;
}

int meta_create_namespace(meta *m, const char *ns)
{
    return meta_create_namespace_props(m, ns, NULL, 0);
}

/* Writes a namespace's row with its properties: a new one (create) or an existing one. */
static int ns_write(meta *m, const char *ns, Strata__Master__NamespaceProperty *const *props,
                    size_t n, bool create)
{
    int rc = meta_check_namespace(ns);
    if (rc != ST_OK)
        return rc;
    meta_batch b;
    rc = ns_batch(&b, ns, props, n);
    if (rc != ST_OK)
        return rc;
    pthread_mutex_lock(&m->write_mu);
    rc = meta_namespace_exists(m, ns);
    if (create && rc == ST_OK)
        rc = st_error(ST_EXISTS, "namespace %s already exists", ns);
    else if (create ? rc == ST_NOT_FOUND : rc == ST_OK)
        rc = meta_batch_commit(m, &b);
    pthread_mutex_unlock(&m->write_mu);
    meta_batch_free(&b);
    return rc;
}

int meta_create_namespace_props(meta *m, const char *ns,
                                Strata__Master__NamespaceProperty *const *props, size_t n)
{
    return ns_write(m, ns, props, n, true);
}

int meta_modify_namespace(meta *m, const char *ns,
                          Strata__Master__NamespaceProperty *const *props, size_t n)
{
    return ns_write(m, ns, props, n, false);
}

int meta_get_namespace(meta *m, const char *ns, Strata__Master__NamespaceDescriptor **out)
{
    *out = NULL;
    int rc = meta_check_namespace(ns);
    if (rc != ST_OK)
        return rc;
    scan_result res;
    scan_result_init(&res);
    rc = meta_get_row(m, (const uint8_t *)ns, strlen(ns), META_FAM_NS, &res);
    const cell_t *c = NULL;
    for (size_t i = 0; rc == ST_OK && i < res.ncells; i++)
        if (res.cells[i].qualifier_len == strlen(META_Q_NSDESC) &&
            memcmp(res.cells[i].qualifier, META_Q_NSDESC, res.cells[i].qualifier_len) == 0)
            c = &res.cells[i];
    if (rc == ST_OK && !c)
        rc = st_error(ST_NOT_FOUND, "namespace %s not found", ns);
    if (rc == ST_OK) {
        *out = strata__master__namespace_descriptor__unpack(NULL, c->value_len, c->value);
        if (!*out)
            rc = st_error(ST_CORRUPTION, "meta: the descriptor of namespace %s does not decode",
                          ns);
    }
    scan_result_free(&res);
    return rc;
}

int meta_delete_namespace(meta *m, const char *ns)
{
    int rc = meta_check_namespace(ns);
    if (rc == ST_OK && is_system_namespace(ns))
        rc = st_error(ST_INVALID_ARGUMENT, "namespace %s cannot be dropped", ns);
    if (rc != ST_OK)
        return rc;
    meta_batch b;
    meta_batch_init(&b);
    meta_table *tables = NULL;
    size_t ntables = 0;
    pthread_mutex_lock(&m->write_mu);
    rc = meta_namespace_exists(m, ns);
    if (rc == ST_OK)
        rc = meta_list_tables(m, ns, &tables, &ntables);
    if (rc == ST_OK && ntables)
        rc = st_error(ST_INVALID_ARGUMENT,
                      "namespace %s still has %zu tables (%s ...); only an empty namespace "
                      "can be dropped",
                      ns, ntables, tables[0].name);
    if (rc == ST_OK) {
        meta_batch_delete_row(&b, (const uint8_t *)ns, strlen(ns));
        rc = meta_batch_commit(m, &b);
    }
    pthread_mutex_unlock(&m->write_mu);
    meta_tables_free(tables, ntables);
    meta_batch_free(&b);
    return rc;
}

typedef struct name_vec {
    char **v;
    size_t n;
    size_t cap;
} name_vec;

static int collect_name(const scan_result *row, void *arg)
{
    name_vec *nv = arg;
    if (nv->n == nv->cap) {
        size_t nc = nv->cap ? nv->cap * 2 : 8;
        char **p = realloc(nv->v, nc * sizeof(*p));
        if (!p)
            return ST_NOMEM;
        nv->v = p;
        nv->cap = nc;
    }
    const cell_t *c = &row->cells[0];
    nv->v[nv->n] = strndup((const char *)c->row, c->row_len);
    if (!nv->v[nv->n])
        return ST_NOMEM;
    nv->n++;
    return ST_OK;
}

int meta_list_namespaces(meta *m, char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    name_vec nv = {0};
    int rc = meta_scan(m, NULL, 0, NULL, 0, META_FAM_NS, collect_name, &nv);
    if (rc != ST_OK) {
        meta_names_free(nv.v, nv.n);
        return rc;
    }
    *out = nv.v;
    *n = nv.n;
    return ST_OK;
}

void meta_names_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}
