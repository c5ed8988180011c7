/*
 * shell_cmd_namespace.c - namespaces: create_namespace, drop_namespace, list_namespace,
 * describe_namespace, list_namespace_tables, with HBase's output and messages
 * ("Unknown namespace ns!").
 *
 * Thread-safety: a session belongs to one thread.
 */
#include <stdio.h>
#include <string.h>

#include "common/status.h"
#include "shell/shell_internal.h"

/* Whether namespace name exists: ST_OK and *found, or the failure. */
static int namespace_exists(shell_session *s, const char *name, bool *found)
{
    strata_admin_t *a = NULL;
    strata_name_list_t *r = NULL;
    char *err = NULL;
    *found = false;
    int rc = shell_admin(s, &a);
    if (rc == ST_OK) {
        r = strata_admin_list_namespaces(a, &err);
        rc = shell_failed(err);
    }
    for (size_t i = 0; rc == ST_OK && i < strata_name_list_count(r); i++)
        *found |= strcmp(strata_name_list_get(r, i), name) == 0;
    strata_name_list_destroy(r);
    return rc;
}

static int one_name(const shell_value *args, const shell_value **ns)
{
    int rc = shell_nargs(args, 1, 2);
    return rc == ST_OK ? shell_str_arg(args, 0, "Namespace name", ns) : rc;
}

static int cmd_create_namespace(shell_session *s, const shell_value *args)
{
    const shell_value *ns = NULL;
    strata_admin_t *a = NULL;
    char *err = NULL;
    int rc = one_name(args, &ns);
    if (rc == ST_OK && args->n == 2 && args->items[1].kind != SHELL_V_HASH)
        rc = st_error(ST_INVALID_ARGUMENT, "%s is not of Hash type",
                      shell_value_type(&args->items[1]));
    if (rc == ST_OK && args->n == 2 && args->items[1].n)
        fprintf(s->out, "Namespace properties ignored: Strata namespaces have none\n");
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc == ST_OK) {
        strata_admin_create_namespace(a, ns->s, &err);
        rc = shell_failed(err);
    }
    if (rc == ST_EXISTS)
        rc = st_error(rc, "Namespace %s already exists!", ns->s);
    return rc;
}

static int cmd_drop_namespace(shell_session *s, const shell_value *args)
{
    const shell_value *ns = NULL;
    strata_admin_t *a = NULL;
    char *err = NULL;
    int rc = shell_nargs(args, 1, 1);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Namespace name", &ns);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc == ST_OK) {
        strata_admin_delete_namespace(a, ns->s, &err);
        rc = shell_failed(err);
    }
    if (rc == ST_NOT_FOUND)
        rc = st_error(rc, "Unknown namespace %s!", ns->s);
    return rc;
}

static int cmd_list_namespace(shell_session *s, const shell_value *args)
{
    const shell_value *pat = NULL;
    strata_admin_t *a = NULL;
    strata_name_list_t *r = NULL;
    char *err = NULL;
    regex_t re;
    int rc = shell_nargs(args, 0, 1);
    if (rc == ST_OK && args->n)
        rc = shell_str_arg(args, 0, "Regular expression", &pat);
    if (rc == ST_OK)
        rc = shell_regex(pat ? pat->s : ".*", &re);
    if (rc != ST_OK)
        return rc;
    rc = shell_admin(s, &a);
    if (rc == ST_OK) {
        r = strata_admin_list_namespaces(a, &err);
        rc = shell_failed(err);
    }
    if (rc == ST_OK) {
        shell_header(s, "NAMESPACE", NULL);
        for (size_t i = 0; i < strata_name_list_count(r); i++)
            if (regexec(&re, strata_name_list_get(r, i), 0, NULL, 0) == 0)
                shell_row1(s, strata_name_list_get(r, i));
        shell_footer(s, -1);
    }
    regfree(&re);
    strata_name_list_destroy(r);
    return rc;
}

static int cmd_describe_namespace(shell_session *s, const shell_value *args)
{
    const shell_value *ns = NULL;
    bool found = false;
    char line[400];
    int rc = shell_nargs(args, 1, 1);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Namespace name", &ns);
    if (rc == ST_OK)
        rc = namespace_exists(s, ns->s, &found);
    if (rc == ST_OK && !found)
        rc = st_error(ST_NOT_FOUND, "Unknown namespace %s!", ns->s);
    if (rc == ST_OK) {
        shell_header(s, "DESCRIPTION", NULL);
        snprintf(line, sizeof(line), "{NAME => '%s'}", ns->s);
        shell_row1(s, line);
    }
    return rc;
}

static int cmd_list_namespace_tables(shell_session *s, const shell_value *args)
{
    const shell_value *ns = NULL;
    strata_name_list_t *r = NULL;
    char *err = NULL;
    bool found = false;
    int rc = shell_nargs(args, 1, 1);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Namespace name", &ns);
    if (rc == ST_OK)
        rc = namespace_exists(s, ns->s, &found);
    if (rc == ST_OK && !found)
        rc = st_error(ST_NOT_FOUND, "Unknown namespace %s!", ns->s);
    if (rc == ST_OK) {
        r = strata_admin_list_tables(s->admin, ns->s, &err);
        rc = shell_failed(err);
    }
    if (rc == ST_OK) {
        shell_header(s, "TABLE", NULL);
        for (size_t i = 0; i < strata_name_list_count(r); i++) {
            const char *name = strata_name_list_get(r, i), *colon = strchr(name, ':');
            shell_row1(s, colon ? colon + 1 : name);
        }
        shell_footer(s, -1);
    }
    strata_name_list_destroy(r);
    return rc;
}

const shell_command shell_cmds_namespace[] = {
    {"create_namespace", "namespace", cmd_create_namespace,
     "Create namespace.\n"
     "\n"
     "Examples:\n"
     "\n"
     "  strata> create_namespace 'ns1'\n"},
    {"describe_namespace", "namespace", cmd_describe_namespace,
     "Describe the named namespace. For example:\n"
     "  strata> describe_namespace 'ns1'\n"},
    {"drop_namespace", "namespace", cmd_drop_namespace,
     "Drop the named namespace. The namespace must be empty.\n"
     "  strata> drop_namespace 'ns1'\n"},
    {"list_namespace", "namespace", cmd_list_namespace,
     "List all namespaces. Optional regular expression parameter could\n"
     "be used to filter the output. Examples:\n"
     "\n"
     "  strata> list_namespace\n"
     "  strata> list_namespace 'abc.*'\n"},
    {"list_namespace_tables", "namespace", cmd_list_namespace_tables,
     "List all tables that are members of the namespace.\n"
     "Examples:\n"
     "\n"
     "  strata> list_namespace_tables 'ns1'\n"},
    {NULL, NULL, NULL, NULL},
};
