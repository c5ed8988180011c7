/*
 * shell_conn.c - the shell's way to the cluster: the admin handle and the data client,
 * opened on the first command that needs them, and the translation of their failures
 * into HBase's shell messages.
 *
 * First contact: the admin handle's timeout is the connect timeout (10 s) until one call
 * (ListNamespaces) has answered, so an unreachable quorum or a cluster without a master
 * fails within that bound, naming the quorum; then the admin timeout applies. The data
 * client is opened only after that check.
 *
 * Thread-safety: a session belongs to one thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "shell/shell_internal.h"

static const char *parent_of(const shell_session *s)
{
    return s->cfg.parent && s->cfg.parent[0] ? s->cfg.parent : "/strata";
}

/* One cheap call under the connect timeout. */
static int first_contact(shell_session *s)
{
    Strata__Master__ListNamespacesResponse *r = NULL;
    admin_rpc_set_timeout_ms(s->admin, s->cfg.connect_timeout_ms);
    int rc = admin_rpc_list_namespaces(s->admin, &r);
    admin_rpc_free_msg(r);
    admin_rpc_set_timeout_ms(s->admin, s->cfg.admin_timeout_ms);
    if (rc != ST_OK) {
        char why[1200];
        snprintf(why, sizeof(why), "%s", st_errmsg());
        return st_error(rc, "cannot reach the cluster (ZooKeeper %s, parent %s) within %lld ms: %s",
                        s->cfg.quorum, parent_of(s), (long long)s->cfg.connect_timeout_ms, why);
    }
    s->contacted = true;
    return ST_OK;
}

int shell_admin(shell_session *s, admin_rpc **out)
{
    *out = NULL;
    if (!s->cfg.quorum || !s->cfg.quorum[0])
        return st_error(ST_INVALID_ARGUMENT,
                        "no cluster given: use --zk.quorum HOST:PORT, --dir CLUSTER_DIR, "
                        "STRATA_ZK_QUORUM or zk.quorum in --config FILE");
    if (!s->admin) {
        int rc = admin_rpc_open(s->cfg.quorum, parent_of(s), &s->admin);
        if (rc != ST_OK)
            return rc;
    }
    if (!s->contacted) {
        int rc = first_contact(s);
        if (rc != ST_OK)
            return rc;
    }
    *out = s->admin;
    return ST_OK;
}

static int open_client(shell_session *s)
{
    char *err = NULL;
    strata_options_t *o = strata_options_create();
    if (!o)
        return st_error(ST_NOMEM, "out of memory");
    strata_options_set_zk_quorum(o, s->cfg.quorum);
    strata_options_set_zk_parent(o, parent_of(s));
    strata_options_set_operation_timeout_ms(o, (int)s->cfg.operation_timeout_ms);
    strata_options_set_rpc_timeout_ms(o, (int)s->cfg.rpc_timeout_ms);
    s->client = strata_client_open(o, &err);
    strata_options_destroy(o);
    if (s->client)
        return ST_OK;
    int rc = st_error(ST_INVALID_ARGUMENT, "cannot open the client: %s", err ? err : "?");
    strata_free(err);
    return rc;
}

/* The table must exist and be enabled, checked up front as HBase's shell does
 * (TableNotEnabledException): a scan's region listing of a disabled table finds no open
 * region, which the client would retry until its timeout. */
static int check_enabled(shell_session *s, const char *name)
{
    Strata__Master__DescribeTableResponse *d = NULL;
    int rc = admin_rpc_describe_table(s->admin, name, &d);
    if (rc == ST_NOT_FOUND)
        rc = st_error(rc, "Unknown table %s!", name);
    else if (rc == ST_OK && (d->table->state == STRATA__MASTER__TABLE_STATE__DISABLED ||
                             d->table->state == STRATA__MASTER__TABLE_STATE__DISABLING))
        rc = st_error(ST_NOT_SERVING, "%s is disabled.", name);
    admin_rpc_free_msg(d);
    return rc;
}

int shell_table(shell_session *s, const char *name, strata_table_t **out)
{
    admin_rpc *a = NULL;
    *out = NULL;
    int rc = admin_rpc_check_table_name(name);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc == ST_OK)
        rc = check_enabled(s, name);
    if (rc == ST_OK && !s->client)
        rc = open_client(s);
    if (rc != ST_OK)
        return rc;
    *out = strata_table_open(s->client, name);
    return *out ? ST_OK : st_error(ST_NOMEM, "out of memory opening table %s", name);
}

const char *shell_display_name(const char *qualified)
{
    return strncmp(qualified, "default:", 8) == 0 ? qualified + 8 : qualified;
}

int shell_describe(shell_session *s, const char *table, Strata__Master__DescribeTableResponse **out)
{
    admin_rpc *a = NULL;
    *out = NULL;
    int rc = admin_rpc_check_table_name(table);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc == ST_OK)
        rc = admin_rpc_describe_table(a, table, out);
    if (rc == ST_NOT_FOUND)
        return st_error(ST_NOT_FOUND, "table %s does not exist", table);
    return rc;
}

/* "Unknown column family! Valid column names: a:*, b:*" from the table's schema. */
static int unknown_family(shell_session *s, const char *table)
{
    Strata__Master__DescribeTableResponse *d = NULL;
    buf_t names = {0};
    if (shell_describe(s, table, &d) == ST_OK && d->table && d->table->schema) {
        const Strata__Admin__TableSchema *sc = d->table->schema;
        for (size_t i = 0; i < sc->n_family; i++) {
            if (i)
                buf_append(&names, ", ", 2);
            buf_append(&names, sc->family[i]->name, strlen(sc->family[i]->name));
            buf_append(&names, ":*", 2);
        }
    }
    buf_append_u8(&names, '\0');
    admin_rpc_free_msg(d);
    int rc = st_error(ST_UNKNOWN_FAMILY, "Unknown column family! Valid column names: %s",
                      names.data ? (char *)names.data : "");
    buf_free(&names);
    return rc;
}

int shell_data_error(shell_session *s, const char *table, char *msg)
{
    static const char nf[] = "not found", uf[] = "unknown column family",
                      inv[] = "invalid argument";
    const char *m = msg ? msg : "unknown failure";
    int rc;
    if (strncmp(m, nf, sizeof(nf) - 1) == 0 && strstr(m, "disabled"))
        rc = st_error(ST_NOT_SERVING, "%s is disabled.", table);
    else if (strncmp(m, nf, sizeof(nf) - 1) == 0 && strstr(m, "table"))
        rc = st_error(ST_NOT_FOUND, "Unknown table %s!", table);
    else if (strncmp(m, uf, sizeof(uf) - 1) == 0 ||
             (strncmp(m, inv, sizeof(inv) - 1) == 0 && strstr(m, "family")))
        rc = unknown_family(s, table);
    else
        rc = st_error(ST_IO, "%s", m);
    strata_free(msg);
    return rc;
}

void shell_region_name(const Strata__Admin__RegionInfo *r, buf_t *out)
{
    char tail[96];
    buf_reset(out);
    const char *t = shell_display_name(r->table);
    buf_append(out, t, strlen(t));
    buf_append_u8(out, ',');
    if (r->has_start_key)
        shell_escape_binary(out, r->start_key.data, r->start_key.len);
    snprintf(tail, sizeof(tail), ",%llu.", (unsigned long long)r->region_id);
    buf_append(out, tail, strlen(tail));
    buf_append(out, r->encoded_name, strlen(r->encoded_name));
    buf_append(out, ".", 2); /* with the NUL */
    out->len--;
}

void shell_encoded_name(const char *name, char *out, size_t cap)
{
    size_t len = strlen(name);
    /* "<table>,<start>,<id>.<encoded>." -> <encoded> */
    if (len > 2 && name[len - 1] == '.' && strchr(name, ',')) {
        const char *end = name + len - 1, *dot = end;
        while (dot > name && dot[-1] != '.')
            dot--;
        if (dot > name) {
            snprintf(out, cap, "%.*s", (int)(end - dot), dot);
            return;
        }
    }
    snprintf(out, cap, "%s", name);
}
