/*
 * shell_cmd_namespace.c - namespaces: create_namespace (with properties), alter_namespace
 * (METHOD => 'set' / 'unset'), drop_namespace, list_namespace, describe_namespace (the
 * properties as HBase's NamespaceDescriptor prints them), list_namespace_tables, with
 * HBase's output and messages ("Unknown namespace ns!").
 *
 * Thread-safety: a session belongs to one thread.
 */
#include <stdio.h>
#include <stdlib.h>
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

/* Property i of a hash as text (Ruby's to_s) into k and v. */
static int property(const shell_value *h, size_t i, buf_t *k, buf_t *v)
{
    int rc = shell_to_s(shell_hash_key(h, i), "A namespace property name", k);
    if (rc == ST_OK)
        rc = shell_to_s(shell_hash_val(h, i), "A namespace property value", v);
    if (rc == ST_OK && (strlen((char *)k->data) != k->len || strlen((char *)v->data) != v->len))
        rc = st_error(ST_INVALID_ARGUMENT, "a namespace property must not hold a NUL byte");
    return rc;
}

static int cmd_create_namespace(shell_session *s, const shell_value *args)
{
    const shell_value *ns = NULL;
    strata_admin_t *a = NULL;
    strata_namespace_descriptor_t *nd = NULL;
    buf_t k = {0}, v = {0};
    char *err = NULL;
    int rc = one_name(args, &ns);
    if (rc == ST_OK && args->n == 2 && args->items[1].kind != SHELL_V_HASH)
        rc = st_error(ST_INVALID_ARGUMENT, "%s is not of Hash type",
                      shell_value_type(&args->items[1]));
    if (rc == ST_OK && !(nd = strata_namespace_descriptor_create(ns->s)))
        rc = st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; rc == ST_OK && args->n == 2 && i < args->items[1].n; i++) {
        rc = property(&args->items[1], i, &k, &v);
        if (rc == ST_OK && !strata_namespace_descriptor_set(nd, (char *)k.data, (char *)v.data))
            rc = st_error(ST_NOMEM, "out of memory");
    }
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc == ST_OK) {
        strata_admin_create_namespace_descriptor(a, nd, &err);
        rc = shell_failed(err);
    }
    if (rc == ST_EXISTS)
        rc = st_error(rc, "Namespace %s already exists!", ns->s);
    strata_namespace_descriptor_destroy(nd);
    buf_free(&k);
    buf_free(&v);
    return rc;
}

/* The namespace's descriptor; ST_NOT_FOUND as HBase words it. */
static int describe(shell_session *s, const char *ns, strata_namespace_descriptor_t **out)
{
    strata_admin_t *a = NULL;
    char *err = NULL;
    int rc = shell_admin(s, &a);
    if (rc == ST_OK) {
        *out = strata_admin_describe_namespace(a, ns, &err);
        rc = shell_failed(err);
    }
    if (rc == ST_NOT_FOUND)
        rc = st_error(rc, "Unknown namespace %s!", ns);
    return rc;
}

/* alter_namespace 'ns', {METHOD => 'set', 'K' => 'V', ...} or {METHOD => 'unset', NAME =>
 * 'K'}, as HBase's admin.rb alter_namespace. */
static int cmd_alter_namespace(shell_session *s, const shell_value *args)
{
    const shell_value *ns = NULL, *h = NULL;
    strata_namespace_descriptor_t *nd = NULL;
    buf_t k = {0}, v = {0};
    char *err = NULL;
    int rc = shell_nargs(args, 2, 2);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Namespace name", &ns);
    if (rc == ST_OK && (h = &args->items[1])->kind != SHELL_V_HASH)
        rc = st_error(ST_INVALID_ARGUMENT, "%s is not of Hash type", shell_value_type(h));
    const shell_value *method = rc == ST_OK ? shell_hash_get(h, "METHOD") : NULL;
    bool set = method && method->kind == SHELL_V_STR && strcmp(method->s, "set") == 0;
    bool unset = method && method->kind == SHELL_V_STR && strcmp(method->s, "unset") == 0;
    if (rc == ST_OK && !set && !unset) {
        buf_t b = {0};
        if (method)
            shell_value_inspect(method, &b);
        rc = st_error(ST_INVALID_ARGUMENT, "Unknown method %s (alter_namespace takes METHOD => "
                                           "'set' or 'unset')",
                      b.data ? (char *)b.data : "nil");
        buf_free(&b);
    }
    if (rc == ST_OK)
        rc = describe(s, ns->s, &nd);
    for (size_t i = 0; rc == ST_OK && i < h->n; i++) {
        const shell_value *key = shell_hash_key(h, i);
        bool is_method = key->kind == SHELL_V_STR && strcmp(key->s, "METHOD") == 0;
        bool is_name = key->kind == SHELL_V_STR && strcmp(key->s, "NAME") == 0;
        if (is_method || (set && is_name))
            continue;
        if (unset && !is_name) {
            buf_t b = {0};
            shell_value_inspect(key, &b);
            rc = st_error(ST_INVALID_ARGUMENT, "Unknown argument %s for alter_namespace's unset "
                                               "(NAME => 'property')",
                          b.data ? (char *)b.data : "?");
            buf_free(&b);
            break;
        }
        if (unset) {
            rc = shell_to_s(shell_hash_val(h, i), "NAME", &k);
            if (rc == ST_OK && !strata_namespace_descriptor_get(nd, (char *)k.data))
                rc = st_error(ST_NOT_FOUND, "namespace %s has no property %s", ns->s,
                              (char *)k.data);
            if (rc == ST_OK)
                strata_namespace_descriptor_set(nd, (char *)k.data, NULL);
            continue;
        }
        rc = property(h, i, &k, &v);
        if (rc == ST_OK && !strata_namespace_descriptor_set(nd, (char *)k.data, (char *)v.data))
            rc = st_error(ST_NOMEM, "out of memory");
    }
    if (rc == ST_OK && unset && !shell_hash_get(h, "NAME"))
        rc = st_error(ST_INVALID_ARGUMENT, "NAME parameter missing for unset method");
    if (rc == ST_OK) {
        strata_admin_modify_namespace(s->admin, nd, &err);
        rc = shell_failed(err);
        if (rc == ST_NOT_FOUND)
            rc = st_error(rc, "Unknown namespace %s!", ns->s);
    }
    strata_namespace_descriptor_destroy(nd);
    buf_free(&k);
    buf_free(&v);
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

static int by_text(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* HBase's NamespaceDescriptor.toString: {NAME => 'ns', key => 'value', ...}, keys sorted. */
static int cmd_describe_namespace(shell_session *s, const shell_value *args)
{
    const shell_value *ns = NULL;
    strata_namespace_descriptor_t *nd = NULL;
    int rc = shell_nargs(args, 1, 1);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Namespace name", &ns);
    if (rc == ST_OK)
        rc = describe(s, ns->s, &nd);
    size_t n = nd ? strata_namespace_descriptor_count(nd) : 0;
    const char **keys = rc == ST_OK ? calloc(n ? n : 1, sizeof(*keys)) : NULL;
    if (rc == ST_OK && !keys)
        rc = st_error(ST_NOMEM, "out of memory");
    if (rc == ST_OK) {
        buf_t line = {0};
        for (size_t i = 0; i < n; i++)
            keys[i] = strata_namespace_descriptor_key(nd, i);
        qsort(keys, n, sizeof(*keys), by_text);
        buf_append(&line, "{NAME => '", 10);
        buf_append(&line, ns->s, strlen(ns->s));
        buf_append_u8(&line, '\'');
        for (size_t i = 0; i < n; i++) {
            const char *val = strata_namespace_descriptor_get(nd, keys[i]);
            buf_append(&line, ", ", 2);
            buf_append(&line, keys[i], strlen(keys[i]));
            buf_append(&line, " => '", 5);
            buf_append(&line, val, strlen(val));
            buf_append_u8(&line, '\'');
        }
        buf_append(&line, "}", 2);
        shell_header(s, "DESCRIPTION", NULL);
        shell_row1(s, (char *)line.data);
        buf_free(&line);
    }
    free(keys);
    strata_namespace_descriptor_destroy(nd);
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
    {"alter_namespace", "namespace", cmd_alter_namespace,
     "Alter namespace properties.\n"
     "\n"
     "To add/modify a property:\n"
     "\n"
     "  strata> alter_namespace 'ns1', {METHOD => 'set', 'PROPERTY_NAME' => 'PROPERTY_VALUE'}\n"
     "\n"
     "To delete a property:\n"
     "\n"
     "  strata> alter_namespace 'ns1', {METHOD => 'unset', NAME=>'PROPERTY_NAME'}\n"},
    {"create_namespace", "namespace", cmd_create_namespace,
     "Create namespace; pass namespace name,\n"
     "and optionally a dictionary of namespace configuration.\n"
     "Examples:\n"
     "\n"
     "  strata> create_namespace 'ns1'\n"
     "  strata> create_namespace 'ns1', {'PROPERTY_NAME'=>'PROPERTY_VALUE'}\n"},
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
