/*
 * shell_conn.c - the shell's way to the cluster: the admin handle and the data client,
 * opened on the first command that needs them, and the translation of their failures
 * into HBase's shell messages.
 *
 * First contact: the admin handle's timeout is the connect timeout (10 s) until one call
 * (list namespaces) has answered, so an unreachable quorum or a cluster without a master
 * fails within that bound, naming the quorum; then the admin timeout applies. The data
 * client is opened only after that check.
 *
 * Failures of libstrata calls arrive as errptr messages "<token>: <message>"; shell_failed
 * keeps the message and turns the token's strata_code into a status, so the commands test
 * ST_NOT_FOUND, ST_EXISTS ... as they would their own.
 *
 * Thread-safety: a session belongs to one thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "shell/shell_internal.h"

/* The status the shell uses for a public code. */
static int status_of(strata_code code)
{
    switch (code) {
    case STRATA_OK:
        return ST_OK;
    case STRATA_ERR_RETRYABLE:
        return ST_TIMEOUT;
    case STRATA_ERR_NOT_FOUND:
        return ST_NOT_FOUND;
    case STRATA_ERR_EXISTS:
        return ST_EXISTS;
    case STRATA_ERR_TABLE_DISABLED:
        return ST_TABLE_DISABLED;
    case STRATA_ERR_INVALID_ARGUMENT:
        return ST_INVALID_ARGUMENT;
    case STRATA_ERR_NO_SUCH_FAMILY:
        return ST_UNKNOWN_FAMILY;
    case STRATA_ERR_CORRUPTION:
        return ST_CORRUPTION;
    case STRATA_ERR_IO:
        return ST_IO;
    case STRATA_ERR_PERMISSION:
        return ST_PERMISSION;
    case STRATA_ERR_UNSUPPORTED:
        return ST_UNSUPPORTED;
    case STRATA_ERR_NO_MEMORY:
        return ST_NOMEM;
    default:
        return ST_INTERNAL;
    }
}

int shell_failed(char *err)
{
    if (!err)
        return ST_OK;
    int rc = status_of(strata_error_code(err));
    if (rc == ST_OK)
        rc = ST_INTERNAL;
    /* The token ends at the first ':' (no token has one); a bare token is its own message. */
    const char *colon = strchr(err, ':');
    const char *msg = colon ? colon + 1 + (colon[1] == ' ') : err;
    st_error(rc, "%s", msg);
    strata_free(err);
    return rc;
}

int shell_check_table_name(const char *name)
{
    char *err = NULL;
    return strata_admin_check_table_name(name, &err) ? ST_OK : shell_failed(err);
}

static const char *parent_of(const shell_session *s)
{
    return s->cfg.parent && s->cfg.parent[0] ? s->cfg.parent : STRATA_DEFAULT_ZK_PARENT;
}

/* One cheap call under the connect timeout. */
static int first_contact(shell_session *s)
{
    char *err = NULL;
    strata_admin_set_timeout_ms(s->admin, s->cfg.connect_timeout_ms);
    strata_name_list_destroy(strata_admin_list_namespaces(s->admin, &err));
    strata_admin_set_timeout_ms(s->admin, s->cfg.admin_timeout_ms);
    int rc = shell_failed(err);
    if (rc != ST_OK) {
        char why[1200];
        snprintf(why, sizeof(why), "%s", st_errmsg());
        return st_error(rc, "cannot reach the cluster (ZooKeeper %s, parent %s) within %lld ms: %s",
                        s->cfg.quorum, parent_of(s), (long long)s->cfg.connect_timeout_ms, why);
    }
    s->contacted = true;
    return ST_OK;
}

int shell_admin(shell_session *s, strata_admin_t **out)
{
    *out = NULL;
    if (!s->cfg.quorum || !s->cfg.quorum[0])
        return st_error(ST_INVALID_ARGUMENT,
                        "no cluster given: use --zk.quorum HOST:PORT, --dir CLUSTER_DIR, "
                        "STRATA_ZK_QUORUM or zk.quorum in --config FILE");
    if (!s->admin) {
        char *err = NULL;
        s->admin = strata_admin_open(s->cfg.quorum, parent_of(s), &err);
        if (!s->admin)
            return err ? shell_failed(err) : st_error(ST_NOMEM, "out of memory");
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
    char *err = NULL;
    strata_table_state state = STRATA_TABLE_ENABLED;
    strata_table_descriptor_destroy(
        strata_admin_describe_table(s->admin, name, &state, NULL, &err));
    int rc = shell_failed(err);
    if (rc == ST_NOT_FOUND)
        rc = st_error(rc, "Unknown table %s!", name);
    else if (rc == ST_OK && (state == STRATA_TABLE_DISABLED || state == STRATA_TABLE_DISABLING))
        rc = st_error(ST_NOT_SERVING, "%s is disabled.", name);
    return rc;
}

int shell_table(shell_session *s, const char *name, strata_table_t **out)
{
    strata_admin_t *a = NULL;
    *out = NULL;
    int rc = shell_check_table_name(name);
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

void shell_table_info_clear(shell_table_info *info)
{
    strata_table_descriptor_destroy(info->td);
    memset(info, 0, sizeof(*info));
}

int shell_describe(shell_session *s, const char *table, shell_table_info *out)
{
    strata_admin_t *a = NULL;
    char *err = NULL;
    memset(out, 0, sizeof(*out));
    int rc = shell_check_table_name(table);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc == ST_OK) {
        out->td = strata_admin_describe_table(a, table, &out->state, &out->regions, &err);
        rc = shell_failed(err);
    }
    if (rc == ST_NOT_FOUND)
        return st_error(ST_NOT_FOUND, "table %s does not exist", table);
    return rc;
}

/* "Unknown column family! Valid column names: a:*, b:*" from the table's schema. */
static int unknown_family(shell_session *s, const char *table)
{
    shell_table_info d;
    buf_t names = {0};
    if (strcmp(table, SHELL_META_TABLE) == 0) /* not a table the master describes */
        return st_error(ST_UNKNOWN_FAMILY, "Unknown column family! Valid column names: info:*, "
                                           "table:*, ns:*, proc:*");
    if (shell_describe(s, table, &d) == ST_OK) {
        for (size_t i = 0; i < strata_table_descriptor_family_count(d.td); i++) {
            const char *f = strata_family_descriptor_name(strata_table_descriptor_family(d.td, i));
            if (i)
                buf_append(&names, ", ", 2);
            buf_append(&names, f, strlen(f));
            buf_append(&names, ":*", 2);
        }
    }
    buf_append_u8(&names, '\0');
    shell_table_info_clear(&d);
    int rc = st_error(ST_UNKNOWN_FAMILY, "Unknown column family! Valid column names: %s",
                      names.data ? (char *)names.data : "");
    buf_free(&names);
    return rc;
}

int shell_data_error(shell_session *s, const char *table, char *msg)
{
    const char *m = msg ? msg : "unknown failure";
    strata_code code = strata_error_code(msg);
    int rc;
    if (code == STRATA_ERR_NOT_FOUND && strstr(m, "disabled"))
        rc = st_error(ST_NOT_SERVING, "%s is disabled.", table);
    else if (code == STRATA_ERR_NOT_FOUND && strstr(m, "table"))
        rc = st_error(ST_NOT_FOUND, "Unknown table %s!", table);
    else if (code == STRATA_ERR_NO_SUCH_FAMILY ||
             (code == STRATA_ERR_INVALID_ARGUMENT && strstr(m, "family")))
        rc = unknown_family(s, table);
    else
        rc = st_error(ST_IO, "%s", m);
    strata_free(msg);
    return rc;
}

void shell_region_name(const strata_region_t *r, buf_t *out)
{
    char tail[96];
    size_t len;
    buf_reset(out);
    const char *t = shell_display_name(strata_region_table(r));
    buf_append(out, t, strlen(t));
    buf_append_u8(out, ',');
    const char *start = strata_region_start_key(r, &len);
    shell_escape_binary(out, start, len);
    snprintf(tail, sizeof(tail), ",%llu.", (unsigned long long)strata_region_id(r));
    buf_append(out, tail, strlen(tail));
    const char *enc = strata_region_encoded_name(r);
    buf_append(out, enc, strlen(enc));
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
