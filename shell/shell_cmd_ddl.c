/*
 * shell_cmd_ddl.c - table DDL: create, alter, describe (desc), enable, disable, drop,
 * enable_all, disable_all, drop_all, exists, is_enabled, is_disabled, list, truncate,
 * truncate_preserve. Arguments and
 * messages follow HBase's shell (admin.rb): enable/disable of a table already in that
 * state does nothing, drop refuses an enabled table, truncate disables first, alter's
 * methods are delete, table_att, table_att_unset and table_conf_unset.
 *
 * Thread-safety: a session belongs to one thread.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/status.h"
#include "shell/shell_internal.h"

/* ---- create ---- */

typedef struct create_req {
    strata_table_descriptor_t *td;
    buf_t *splits; /* split keys (toBytesBinary), n_splits of them */
    size_t n_splits;
    int64_t num_regions; /* 0: none */
    char algo[64];
} create_req;

static void create_req_free(create_req *r)
{
    strata_table_descriptor_destroy(r->td);
    for (size_t i = 0; i < r->n_splits; i++)
        buf_free(&r->splits[i]);
    free(r->splits);
}

static int add_split(create_req *r, const char *s, size_t len)
{
    buf_t *v = realloc(r->splits, (r->n_splits + 1) * sizeof(*v));
    if (!v)
        return st_error(ST_NOMEM, "out of memory");
    r->splits = v;
    memset(&v[r->n_splits], 0, sizeof(*v));
    int rc = shell_unescape_binary(s, len, &v[r->n_splits]);
    r->n_splits++;
    return rc == ST_OK ? ST_OK : st_error(ST_NOMEM, "out of memory");
}

static int splits_from_array(create_req *r, const shell_value *v)
{
    if (v->kind != SHELL_V_ARRAY)
        return st_error(ST_INVALID_ARGUMENT, "SPLITS must be an Array of Strings");
    for (size_t i = 0; i < v->n; i++) {
        buf_t b = {0};
        int rc = shell_to_s(&v->items[i], "a split key", &b);
        if (rc == ST_OK)
            rc = add_split(r, (char *)b.data, b.len);
        buf_free(&b);
        if (rc != ST_OK)
            return rc;
    }
    return ST_OK;
}

static int splits_from_file(create_req *r, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return st_error(ST_NOT_FOUND, "Splits file %s doesn't exist", path);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = ST_OK;
    while (rc == ST_OK && (n = getline(&line, &cap, f)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        rc = add_split(r, line, (size_t)n);
    }
    free(line);
    fclose(f);
    return rc;
}

static int presplit(create_req *r, const shell_value *opts)
{
    const shell_value *n = shell_hash_get(opts, "NUMREGIONS");
    const shell_value *algo = shell_hash_get(opts, "SPLITALGO");
    if (!n)
        return st_error(ST_INVALID_ARGUMENT, "Number of regions must be specified");
    if (!algo || algo->kind != SHELL_V_STR)
        return st_error(ST_INVALID_ARGUMENT, "Split algorithm must be specified");
    int rc = shell_int_value(n, "NUMREGIONS", &r->num_regions);
    if (rc == ST_OK && r->num_regions <= 1)
        rc = st_error(ST_INVALID_ARGUMENT, "Number of regions must be greater than 1");
    snprintf(r->algo, sizeof(r->algo), "%s", algo->s);
    return rc;
}

static const char *const CREATE_TABLE_KEYS[] = {"SPLITS",    "SPLITS_FILE", "NUMREGIONS",
                                                "SPLITALGO", "METHOD",      NULL};

/* A hash without NAME: split options and table attributes. */
static int table_options(shell_session *s, create_req *r, const shell_value *h)
{
    const shell_value *v, *m = shell_hash_get(h, "METHOD");
    int rc = ST_OK;
    if (m && (m->kind != SHELL_V_STR || strcmp(m->s, "table_att") != 0))
        return st_error(ST_INVALID_ARGUMENT, "table_att is currently the only supported method");
    if ((v = shell_hash_get(h, "SPLITS_FILE"))) {
        rc = v->kind == SHELL_V_STR ? splits_from_file(r, v->s)
                                    : st_error(ST_INVALID_ARGUMENT, "SPLITS_FILE must be a String");
    }
    if (rc == ST_OK && (v = shell_hash_get(h, "SPLITS")))
        rc = splits_from_array(r, v);
    else if (rc == ST_OK && (shell_hash_get(h, "NUMREGIONS") || shell_hash_get(h, "SPLITALGO")))
        rc = presplit(r, h);
    for (size_t i = 0; rc == ST_OK && i < h->n; i++) {
        const shell_value *k = shell_hash_key(h, i);
        bool known = false;
        for (size_t j = 0; k->kind == SHELL_V_STR && CREATE_TABLE_KEYS[j] && !known; j++)
            known = strcmp(k->s, CREATE_TABLE_KEYS[j]) == 0;
        if (!known && k->kind == SHELL_V_STR)
            rc = shell_table_attr(r->td, k->s, shell_hash_val(h, i), &known);
        if (rc == ST_OK && !known)
            fprintf(s->out, "An argument ignored (unknown or overridden): %s\n",
                    k->kind == SHELL_V_STR ? k->s : shell_value_type(k));
    }
    return rc;
}

/* A family: a name or a hash with NAME. */
static int family_spec(shell_session *s, create_req *r, const shell_value *v)
{
    const shell_value *name = v->kind == SHELL_V_STR ? v : shell_hash_get(v, "NAME");
    if (!name || name->kind != SHELL_V_STR)
        return st_error(ST_INVALID_ARGUMENT, "Column family NAME must be a String");
    if (strata_table_descriptor_find_family(r->td, name->s))
        fprintf(s->out, "Family '%s' already exists, the old one will be replaced\n", name->s);
    strata_family_descriptor_t *f = strata_table_descriptor_add_family(r->td, name->s);
    if (!f)
        return st_error(ST_NOMEM, "out of memory");
    return v->kind == SHELL_V_HASH ? shell_family_apply(s, f, v) : ST_OK;
}

static int create_arg(shell_session *s, create_req *r, const shell_value *v, int depth)
{
    if (v->kind == SHELL_V_ARRAY && depth < 4) {
        for (size_t i = 0; i < v->n; i++) {
            int rc = create_arg(s, r, &v->items[i], depth + 1);
            if (rc != ST_OK)
                return rc;
        }
        return ST_OK;
    }
    if (v->kind == SHELL_V_STR || (v->kind == SHELL_V_HASH && shell_hash_get(v, "NAME")))
        return family_spec(s, r, v);
    if (v->kind == SHELL_V_HASH)
        return table_options(s, r, v);
    if (v->kind == SHELL_V_NIL)
        return ST_OK;
    return st_error(ST_INVALID_ARGUMENT, "%s is not of Hash or String type", shell_value_type(v));
}

static int by_bytes(const void *a, const void *b)
{
    const buf_t *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = n ? memcmp(x->data, y->data, n) : 0;
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The split keys sorted, as HBase's createTable sorts them; an empty or repeated key is
 * refused with HBase's words. */
static int sort_splits(create_req *r)
{
    if (r->n_splits > 1)
        qsort(r->splits, r->n_splits, sizeof(*r->splits), by_bytes);
    for (size_t i = 0; i < r->n_splits; i++) {
        if (r->splits[i].len == 0)
            return st_error(ST_INVALID_ARGUMENT,
                            "Empty split key must not be passed in the split keys.");
        if (i && by_bytes(&r->splits[i - 1], &r->splits[i]) == 0) {
            char *shown = shell_binary(r->splits[i].data, r->splits[i].len);
            int rc = st_error(ST_INVALID_ARGUMENT,
                              "All split keys must be unique, found duplicate: %s, %s",
                              shown ? shown : "?", shown ? shown : "?");
            free(shown);
            return rc;
        }
    }
    return ST_OK;
}

static int create_call(shell_session *s, create_req *r, const char *table)
{
    strata_admin_t *a = NULL;
    char *err = NULL;
    int rc = sort_splits(r);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc != ST_OK)
        return rc;
    if (r->num_regions > 0) {
        strata_admin_create_table_presplit(a, r->td, (uint32_t)r->num_regions, r->algo, &err);
    } else {
        const char **keys = calloc(r->n_splits ? r->n_splits : 1, sizeof(*keys));
        size_t *lens = calloc(r->n_splits ? r->n_splits : 1, sizeof(*lens));
        if (!keys || !lens) {
            free(keys);
            free(lens);
            return st_error(ST_NOMEM, "out of memory");
        }
        for (size_t i = 0; i < r->n_splits; i++) {
            keys[i] = (const char *)r->splits[i].data;
            lens[i] = r->splits[i].len;
        }
        strata_admin_create_table(a, r->td, keys, lens, r->n_splits, &err);
        free(keys);
        free(lens);
    }
    rc = shell_failed(err);
    if (rc == ST_EXISTS)
        return st_error(rc, "Table already exists: %s!", table);
    if (rc == ST_NOT_FOUND && strchr(table, ':'))
        return st_error(rc, "Unknown namespace %.*s!", (int)(strchr(table, ':') - table), table);
    return rc;
}

static int cmd_create(shell_session *s, const shell_value *args)
{
    const shell_value *t = NULL;
    create_req r = {0};
    int rc = shell_nargs(args, 1, -1);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Table name", &t);
    if (rc == ST_OK)
        rc = shell_check_table_name(t->s);
    if (rc == ST_OK && !(r.td = strata_table_descriptor_create(t->s)))
        rc = st_error(ST_NOMEM, "out of memory");
    for (size_t i = 1; rc == ST_OK && i < args->n; i++)
        rc = create_arg(s, &r, &args->items[i], 0);
    if (rc == ST_OK && strata_table_descriptor_family_count(r.td) == 0)
        rc = st_error(ST_INVALID_ARGUMENT, "Table must have at least one column family");
    if (rc == ST_OK)
        rc = create_call(s, &r, t->s);
    if (rc == ST_OK)
        fprintf(s->out, "Created table %s\n", t->s);
    create_req_free(&r);
    return rc;
}

/* ---- describe, exists, state ---- */

/* Describes args[0] (the only argument); ST_NOT_FOUND keeps shell_describe's message. */
static int described(shell_session *s, const shell_value *args, const shell_value **t,
                     shell_table_info *d)
{
    memset(d, 0, sizeof(*d));
    int rc = shell_nargs(args, 1, 1);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Table name", t);
    if (rc == ST_OK)
        rc = shell_describe(s, (*t)->s, d);
    return rc;
}

static int cmd_describe(shell_session *s, const shell_value *args)
{
    const shell_value *t = NULL;
    shell_table_info d;
    buf_t b = {0}, row = {0};
    char title[600];
    int rc = described(s, args, &t, &d);
    if (rc == ST_NOT_FOUND)
        rc = st_error(rc, "Table %s does not exist.", t->s);
    if (rc != ST_OK)
        goto out;
    snprintf(title, sizeof(title), "Table %s is %s", t->s, strata_table_state_name(d.state));
    shell_header(s, title, NULL);
    shell_table_attrs_describe(d.td, &b);
    if (buf_append(&row, t->s, strlen(t->s)) != ST_OK ||
        buf_append(&row, b.data, b.len + 1) != ST_OK) {
        rc = st_error(ST_NOMEM, "out of memory");
        goto out;
    }
    shell_row1(s, (char *)row.data);
    shell_header(s, "COLUMN FAMILIES DESCRIPTION", NULL);
    for (size_t i = 0; i < strata_table_descriptor_family_count(d.td); i++) {
        shell_family_describe(strata_table_descriptor_family(d.td, i), &b);
        shell_row1(s, (char *)b.data);
    }
    shell_footer(s, -1);
out:
    buf_free(&b);
    buf_free(&row);
    shell_table_info_clear(&d);
    return rc;
}

static int cmd_exists(shell_session *s, const shell_value *args)
{
    const shell_value *t = NULL;
    shell_table_info d;
    int rc = described(s, args, &t, &d);
    shell_table_info_clear(&d);
    if (rc == ST_OK || rc == ST_NOT_FOUND) {
        fprintf(s->out, "Table %s %s\n", t->s, rc == ST_OK ? "does exist" : "does not exist");
        rc = ST_OK;
    }
    return rc;
}

static int state_is(shell_session *s, const shell_value *args, strata_table_state want)
{
    const shell_value *t = NULL;
    shell_table_info d;
    int rc = described(s, args, &t, &d);
    if (rc == ST_NOT_FOUND)
        rc = st_error(rc, "Unknown table %s!", t->s);
    if (rc == ST_OK)
        fprintf(s->out, "%s\n", d.state == want ? "true" : "false");
    shell_table_info_clear(&d);
    return rc;
}

static int cmd_is_enabled(shell_session *s, const shell_value *args)
{
    return state_is(s, args, STRATA_TABLE_ENABLED);
}

static int cmd_is_disabled(shell_session *s, const shell_value *args)
{
    return state_is(s, args, STRATA_TABLE_DISABLED);
}

/* ---- enable, disable, drop, truncate ---- */

static bool is_enabledish(const shell_table_info *d)
{
    return d->state == STRATA_TABLE_ENABLED || d->state == STRATA_TABLE_ENABLING;
}

static int switch_state(shell_session *s, const shell_value *args, bool enable)
{
    const shell_value *t = NULL;
    shell_table_info d;
    char *err = NULL;
    int rc = described(s, args, &t, &d);
    if (rc == ST_NOT_FOUND)
        rc = st_error(rc, "Table %s does not exist.", t->s);
    bool done = rc == ST_OK && d.state == (enable ? STRATA_TABLE_ENABLED : STRATA_TABLE_DISABLED);
    shell_table_info_clear(&d);
    if (rc != ST_OK || done)
        return rc;
    if (enable)
        strata_admin_enable_table(s->admin, t->s, &err);
    else
        strata_admin_disable_table(s->admin, t->s, &err);
    return shell_failed(err);
}

static int cmd_enable(shell_session *s, const shell_value *args)
{
    return switch_state(s, args, true);
}

static int cmd_disable(shell_session *s, const shell_value *args)
{
    return switch_state(s, args, false);
}

static int cmd_drop(shell_session *s, const shell_value *args)
{
    const shell_value *t = NULL;
    shell_table_info d;
    char *err = NULL;
    int rc = described(s, args, &t, &d);
    if (rc == ST_NOT_FOUND)
        rc = st_error(rc, "Table %s does not exist.", t->s);
    if (rc == ST_OK && is_enabledish(&d))
        rc = st_error(ST_INVALID_ARGUMENT, "Table %s is enabled. Disable it first.", t->s);
    shell_table_info_clear(&d);
    if (rc != ST_OK)
        return rc;
    strata_admin_delete_table(s->admin, t->s, &err);
    return shell_failed(err);
}

/* clone_table_schema 'src', 'dst' [, preserve_splits = true]: HBase's cloneTableSchema. */
static int cmd_clone_table_schema(shell_session *s, const shell_value *args)
{
    const shell_value *src = NULL, *dst = NULL;
    strata_admin_t *a = NULL;
    bool preserve = true;
    char *err = NULL;
    int rc = shell_nargs(args, 2, 3);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Table name", &src);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 1, "New table name", &dst);
    if (rc == ST_OK && args->n == 3)
        rc = shell_bool_value(&args->items[2], "preserve_splits", &preserve);
    if (rc == ST_OK)
        rc = shell_check_table_name(dst->s);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc == ST_OK) {
        strata_admin_clone_table_schema(a, src->s, dst->s, preserve, &err);
        rc = shell_failed(err);
    }
    if (rc == ST_EXISTS)
        rc = st_error(rc, "Table already exists: %s!", dst->s);
    else if (rc == ST_NOT_FOUND)
        rc = st_error(rc, "Unknown table %s!", src->s);
    return rc;
}

/* show_filters: the filters of the filter language, in the order HBase's shell prints
 * its 19 (ParseFilter's map), then the three Strata's parser has that HBase's lacks. */
static int cmd_show_filters(shell_session *s, const shell_value *args)
{
    static const char *const names[] = {
        "DependentColumnFilter",   "KeyOnlyFilter",
        "ColumnCountGetFilter",    "SingleColumnValueFilter",
        "PrefixFilter",            "SingleColumnValueExcludeFilter",
        "FirstKeyOnlyFilter",      "ColumnRangeFilter",
        "ColumnValueFilter",       "TimestampsFilter",
        "FamilyFilter",            "QualifierFilter",
        "ColumnPrefixFilter",      "RowFilter",
        "MultipleColumnPrefixFilter", "InclusiveStopFilter",
        "PageFilter",              "ValueFilter",
        "ColumnPaginationFilter",  "FirstKeyValueMatchingQualifiersFilter",
        "MultiRowRangeFilter",     "FuzzyRowFilter",
    };
    int rc = shell_nargs(args, 0, 0);
    for (size_t i = 0; rc == ST_OK && i < sizeof(names) / sizeof(names[0]); i++)
        shell_row1(s, names[i]);
    return rc;
}

/* ---- enable_all, disable_all, drop_all ---- */

typedef enum all_op { ALL_ENABLE, ALL_DISABLE, ALL_DROP } all_op;

/* The answer to "... (y/n)?": read from the terminal in an interactive session; otherwise
 * no, unless the command was given `true` (force). */
static bool confirmed(shell_session *s, bool force)
{
    if (force) {
        fputs("y (forced)\n", s->out);
        return true;
    }
    if (!s->cfg.interactive) {
        fputs("n (not interactive; pass true to go ahead)\n", s->out);
        return false;
    }
    fflush(s->out);
    char line[64];
    if (!fgets(line, sizeof(line), stdin))
        return false;
    return line[0] == 'y' || line[0] == 'Y';
}

/* HBase's enable_all / disable_all / drop_all 'regex': the matching tables listed, a y/n
 * question, then each one done in turn; failures are counted and named, not fatal. */
static int all_tables(shell_session *s, const shell_value *args, all_op op)
{
    static const char *const verbs[] = {"Enable", "Disable", "Drop"};
    static const char *const done[] = {"enabled", "disabled", "dropped"};
    const shell_value *pat = NULL;
    strata_admin_t *a = NULL;
    strata_name_list_t *r = NULL;
    char *err = NULL;
    bool force = false;
    regex_t re;
    int rc = shell_nargs(args, 1, 2);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Regular expression", &pat);
    if (rc == ST_OK && args->n == 2)
        rc = shell_bool_value(&args->items[1], "force", &force);
    if (rc == ST_OK)
        rc = shell_regex(pat->s, &re);
    if (rc != ST_OK)
        return rc;
    rc = shell_admin(s, &a);
    if (rc == ST_OK) {
        r = strata_admin_list_tables(a, NULL, &err);
        rc = shell_failed(err);
    }
    size_t n = 0, failed = 0;
    const char **match = rc == ST_OK ? calloc(strata_name_list_count(r) + 1, sizeof(*match)) : NULL;
    if (rc == ST_OK && !match)
        rc = st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; rc == ST_OK && i < strata_name_list_count(r); i++) {
        const char *name = shell_display_name(strata_name_list_get(r, i));
        if (regexec(&re, name, 0, NULL, 0) == 0) {
            match[n++] = name;
            shell_row1(s, name);
        }
    }
    if (rc == ST_OK && n == 0)
        fprintf(s->out, "No tables matched the regex %s\n", pat->s);
    if (rc == ST_OK && n > 0) {
        fprintf(s->out, "\n%s the above %zu tables (y/n)?\n", verbs[op], n);
        buf_t names = {0};
        if (confirmed(s, force)) {
            for (size_t i = 0; i < n; i++) {
                if (op == ALL_ENABLE)
                    strata_admin_enable_table(a, match[i], &err);
                else if (op == ALL_DISABLE)
                    strata_admin_disable_table(a, match[i], &err);
                else
                    strata_admin_delete_table(a, match[i], &err);
                if (err) {
                    buf_append(&names, failed ? "," : "", failed ? 1 : 0);
                    buf_append(&names, match[i], strlen(match[i]));
                    failed++;
                    strata_free(err);
                    err = NULL;
                }
            }
            buf_append_u8(&names, 0);
            fprintf(s->out, "%zu tables successfully %s\n", n - failed, done[op]);
            if (failed)
                fprintf(s->out, "%zu tables not %s due to an exception: %s\n", failed, done[op],
                        (char *)names.data);
        }
        buf_free(&names);
    }
    free(match);
    regfree(&re);
    strata_name_list_destroy(r);
    return rc;
}

static int cmd_enable_all(shell_session *s, const shell_value *args)
{
    return all_tables(s, args, ALL_ENABLE);
}

static int cmd_disable_all(shell_session *s, const shell_value *args)
{
    return all_tables(s, args, ALL_DISABLE);
}

static int cmd_drop_all(shell_session *s, const shell_value *args)
{
    return all_tables(s, args, ALL_DROP);
}

static int truncate_table(shell_session *s, const shell_value *args, bool preserve)
{
    const shell_value *t = NULL;
    shell_table_info d;
    char *err = NULL;
    int rc = described(s, args, &t, &d);
    if (rc == ST_NOT_FOUND)
        rc = st_error(rc, "Unknown table %s!", t->s);
    bool enabled = rc == ST_OK && is_enabledish(&d);
    shell_table_info_clear(&d);
    if (rc != ST_OK)
        return rc;
    fprintf(s->out, "Truncating '%s' table (it may take a while):\n", t->s);
    if (enabled) {
        fprintf(s->out, "Disabling table...\n");
        fflush(s->out);
        strata_admin_disable_table(s->admin, t->s, &err);
        rc = shell_failed(err);
        err = NULL;
    }
    if (rc == ST_OK) {
        fprintf(s->out, "Truncating table...\n");
        fflush(s->out);
        strata_admin_truncate_table(s->admin, t->s, preserve, &err);
        rc = shell_failed(err);
    }
    return rc;
}

static int cmd_truncate(shell_session *s, const shell_value *args)
{
    return truncate_table(s, args, false);
}

static int cmd_truncate_preserve(shell_session *s, const shell_value *args)
{
    return truncate_table(s, args, true);
}

/* ---- list ---- */

/* Compiles pattern (Java-style full match) as an anchored POSIX extended regex. */
int shell_regex(const char *pattern, regex_t *re)
{
    size_t n = strlen(pattern) + 8;
    char *anchored = malloc(n);
    if (!anchored)
        return st_error(ST_NOMEM, "out of memory");
    snprintf(anchored, n, "^(%s)$", pattern);
    int e = regcomp(re, anchored, REG_EXTENDED | REG_NOSUB);
    free(anchored);
    if (e != 0) {
        char why[200];
        regerror(e, re, why, sizeof(why));
        return st_error(ST_INVALID_ARGUMENT, "bad regular expression '%s': %s", pattern, why);
    }
    return ST_OK;
}

static int cmd_list(shell_session *s, const shell_value *args)
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
        r = strata_admin_list_tables(a, NULL, &err);
        rc = shell_failed(err);
    }
    if (rc == ST_OK) {
        shell_header(s, "TABLE", NULL);
        for (size_t i = 0; i < strata_name_list_count(r); i++) {
            const char *name = shell_display_name(strata_name_list_get(r, i));
            if (regexec(&re, name, 0, NULL, 0) == 0)
                shell_row1(s, name);
        }
        shell_footer(s, -1);
    }
    regfree(&re);
    strata_name_list_destroy(r);
    return rc;
}

/* ---- alter ---- */

/* The deletion of a family, from {METHOD => 'delete', NAME => f} or {'delete' => f}. */
static int alter_delete(strata_table_descriptor_t *sc, const shell_value *name, const char *table)
{
    if (!name || name->kind != SHELL_V_STR)
        return st_error(ST_INVALID_ARGUMENT, "NAME parameter missing for delete method");
    if (!strata_table_descriptor_remove_family(sc, name->s))
        return st_error(ST_NOT_FOUND,
                        "Family '%s' does not exist in table %s, so it cannot be deleted", name->s,
                        table);
    return ST_OK;
}

static int alter_family(shell_session *s, strata_table_descriptor_t *sc, const shell_value *spec)
{
    const shell_value *name = spec->kind == SHELL_V_STR ? spec : shell_hash_get(spec, "NAME");
    if (!name || name->kind != SHELL_V_STR)
        return st_error(ST_INVALID_ARGUMENT, "Column family NAME must be a String");
    strata_family_descriptor_t *f = strata_table_descriptor_find_family(sc, name->s);
    if (!f && !(f = strata_table_descriptor_add_family(sc, name->s)))
        return st_error(ST_NOMEM, "out of memory");
    return spec->kind == SHELL_V_HASH ? shell_family_apply(s, f, spec) : ST_OK;
}

static int alter_table_attrs(shell_session *s, strata_table_descriptor_t *sc, const shell_value *h)
{
    for (size_t i = 0; i < h->n; i++) {
        const shell_value *k = shell_hash_key(h, i);
        bool known = false;
        if (k->kind == SHELL_V_STR && strcmp(k->s, "METHOD") == 0)
            continue;
        int rc = k->kind == SHELL_V_STR ? shell_table_attr(sc, k->s, shell_hash_val(h, i), &known)
                                        : ST_OK;
        if (rc != ST_OK)
            return rc;
        if (!known)
            fprintf(s->out, "Unknown argument ignored: %s\n",
                    k->kind == SHELL_V_STR ? k->s : shell_value_type(k));
    }
    return ST_OK;
}

static int alter_arg(shell_session *s, strata_table_descriptor_t *sc, const shell_value *v,
                     const char *table)
{
    if (v->kind == SHELL_V_STR)
        return alter_family(s, sc, v);
    if (v->kind != SHELL_V_HASH)
        return st_error(ST_INVALID_ARGUMENT, "%s is not of Hash or String type",
                        shell_value_type(v));
    const shell_value *del = shell_hash_get(v, "delete");
    if (del)
        return alter_delete(sc, del, table);
    const shell_value *m = shell_hash_get(v, "METHOD");
    const shell_value *name = shell_hash_get(v, "NAME");
    if (!m && name)
        return alter_family(s, sc, v);
    static const char *const methods[] = {"delete", "table_att", "table_att_unset",
                                          "table_conf_unset", NULL};
    size_t mi = 0;
    while (m && m->kind == SHELL_V_STR && methods[mi] && strcmp(m->s, methods[mi]) != 0)
        mi++;
    if (m && (m->kind != SHELL_V_STR || !methods[mi]))
        return st_error(ST_INVALID_ARGUMENT, "Unknown method: %s",
                        m->kind == SHELL_V_STR ? m->s : shell_value_type(m));
    if (m && mi == 0)
        return alter_delete(sc, name, table);
    if (m && mi >= 2)
        return shell_table_attr_unset(sc, name, mi == 3);
    return alter_table_attrs(s, sc, v);
}

/* alter (wait) or alter_async: the descriptor edited and sent; alter then says the regions
 * were updated (the master answers once they are). */
static int alter_run(shell_session *s, const shell_value *args, bool wait)
{
    const shell_value *t = NULL;
    shell_table_info d = {0};
    char *err = NULL;
    int rc = shell_nargs(args, 1, -1);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Table name", &t);
    if (rc == ST_OK)
        rc = shell_describe(s, t->s, &d);
    if (rc == ST_NOT_FOUND)
        rc = st_error(rc, "Can't find a table: %s", t->s);
    if (rc == ST_OK && args->n < 2)
        rc = st_error(ST_INVALID_ARGUMENT,
                      "There should be at least one argument but the table name");
    for (size_t i = 1; rc == ST_OK && i < args->n; i++)
        rc = alter_arg(s, d.td, &args->items[i], t->s);
    if (rc == ST_OK && strata_table_descriptor_family_count(d.td) == 0)
        rc = st_error(ST_INVALID_ARGUMENT, "table %s would have no column family left", t->s);
    if (rc == ST_OK) {
        strata_admin_modify_table_async(s->admin, d.td, !wait, &err);
        rc = shell_failed(err);
    }
    uint32_t regions = rc == ST_OK ? d.regions : 0;
    shell_table_info_clear(&d);
    if (rc == ST_OK && wait) {
        fprintf(s->out, "Updating all regions with the new schema...\n");
        if (regions)
            fprintf(s->out, "%u/%u regions updated.\n", regions, regions);
        else
            fprintf(s->out, "All regions updated.\n");
        fprintf(s->out, "Done.\n");
    }
    return rc;
}

static int cmd_alter(shell_session *s, const shell_value *args)
{
    return alter_run(s, args, true);
}

static int cmd_alter_async(shell_session *s, const shell_value *args)
{
    return alter_run(s, args, false);
}

/* alter_status 't': "N/M regions updated." each second while an alter reopens the
 * regions, then "Done." (HBase's alter_status loop). */
static int cmd_alter_status(shell_session *s, const shell_value *args)
{
    const shell_value *t = NULL;
    strata_admin_t *a = NULL;
    char *err = NULL;
    int rc = shell_nargs(args, 1, 1);
    if (rc == ST_OK)
        rc = shell_str_arg(args, 0, "Table name", &t);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    for (int round = 0; rc == ST_OK; round++) {
        uint32_t updated = 0, total = 0;
        unsigned char running = 0;
        strata_admin_alter_status(a, t->s, &updated, &total, &running, &err);
        rc = shell_failed(err);
        err = NULL;
        if (rc == ST_NOT_FOUND)
            rc = st_error(rc, "Can't find a table: %s", t->s);
        if (rc != ST_OK)
            break;
        if (total)
            fprintf(s->out, "%u/%u regions updated.\n", updated, total);
        else
            fprintf(s->out, "All regions updated.\n");
        fflush(s->out);
        if (!running)
            break;
        struct timespec one = {1, 0};
        nanosleep(&one, NULL);
    }
    if (rc == ST_OK)
        fprintf(s->out, "Done.\n");
    return rc;
}

/* ---- table ---- */

const shell_command shell_cmds_ddl[] = {
    {"alter_async", "ddl", cmd_alter_async,
     "Alter column family schema, does not wait for all regions to receive the\n"
     "schema changes. Pass table name and a dictionary specifying new column\n"
     "family schema, as alter does. For example:\n"
     "\n"
     "  strata> alter_async 't1', NAME => 'f1', VERSIONS => 5\n"
     "  strata> alter_async 'ns1:t1', NAME => 'f1', METHOD => 'delete'\n"
     "\n"
     "To check if all the regions have been updated, use alter_status <table_name>\n"},
    {"alter_status", "ddl", cmd_alter_status,
     "Get the status of the alter command. Indicates the number of regions of the\n"
     "table that have received the updated schema\n"
     "Pass table name.\n"
     "\n"
     "  strata> alter_status 't1'\n"
     "  strata> alter_status 'ns1:t1'\n"},
    {"alter", "ddl", cmd_alter,
     "Alter a table. Tables can be altered while enabled; each region is reopened with\n"
     "the new schema, one at a time. Add or change a column family by giving a column\n"
     "family dictionary; for example, to keep at most 5 cell versions in family 'f1':\n"
     "\n"
     "  strata> alter 't1', NAME => 'f1', VERSIONS => 5\n"
     "\n"
     "Several families can be changed at once:\n"
     "\n"
     "  strata> alter 't1', 'f1', {NAME => 'f2', TTL => 86400}, {NAME => 'f3', VERSIONS => 5}\n"
     "\n"
     "To delete the 'f1' column family in table 'ns1:t1', use one of:\n"
     "\n"
     "  strata> alter 'ns1:t1', NAME => 'f1', METHOD => 'delete'\n"
     "  strata> alter 'ns1:t1', 'delete' => 'f1'\n"
     "\n"
     "Table-scope attributes MAX_FILESIZE, MEMSTORE_FLUSHSIZE, DURABILITY and READONLY,\n"
     "the SPLIT_POLICY and NORMALIZATION_ENABLED, and METADATA and CONFIGURATION\n"
     "dictionaries can be changed too:\n"
     "\n"
     "  strata> alter 't1', MAX_FILESIZE => '134217728'\n"
     "  strata> alter 't1', READONLY => true\n"
     "  strata> alter 't1', DURABILITY => 'ASYNC_WAL'\n"
     "  strata> alter 't1', SPLIT_POLICY => 'KeyPrefixRegionSplitPolicy',\n"
     "          METADATA => {'KeyPrefixRegionSplitPolicy.prefix_length' => '4'}\n"
     "  strata> alter 't1', CONFIGURATION => {'hbase.hregion.max.filesize.jitter' => '0'}\n"
     "\n"
     "Table attributes and values can be unset, configuration entries removed:\n"
     "\n"
     "  strata> alter 't1', METHOD => 'table_att_unset', NAME => 'MAX_FILESIZE'\n"
     "  strata> alter 't1', METHOD => 'table_att_unset', NAME => ['SPLIT_POLICY', 'k2']\n"
     "  strata> alter 't1', METHOD => 'table_conf_unset',\n"
     "          NAME => 'hbase.hregion.max.filesize.jitter'\n"},
    {"create", "ddl", cmd_create,
     "Creates a table. Pass a table name, and a set of column family\n"
     "specifications (at least one), and, optionally, table configuration.\n"
     "Column specification can be a simple string (name), or a dictionary\n"
     "necessarily including NAME attribute. Family attributes: VERSIONS,\n"
     "MIN_VERSIONS, TTL (seconds, 'FOREVER' or '1 DAY 2 HOURS'), BLOOMFILTER (NONE,\n"
     "ROW, ROWCOL), COMPRESSION (NONE, ZSTD, SNAPPY, LZ4, GZ), DATA_BLOCK_ENCODING\n"
     "(NONE, PREFIX, DIFF, FAST_DIFF, ROW_INDEX_V1), BLOCKSIZE, IN_MEMORY, BLOCKCACHE,\n"
     "KEEP_DELETED_CELLS (true, false, 'TTL').\n"
     "Examples:\n"
     "\n"
     "Create a table with namespace=ns1 and table qualifier=t1\n"
     "  strata> create 'ns1:t1', {NAME => 'f1', VERSIONS => 5}\n"
     "\n"
     "Create a table with namespace=default and table qualifier=t1\n"
     "  strata> create 't1', {NAME => 'f1'}, {NAME => 'f2'}, {NAME => 'f3'}\n"
     "  strata> # The above in shorthand would be the following:\n"
     "  strata> create 't1', 'f1', 'f2', 'f3'\n"
     "  strata> create 't1', {NAME => 'f1', VERSIONS => 1, TTL => 2592000, BLOOMFILTER => 'ROW'}\n"
     "  strata> create 't1', {NAME => 'f1', COMPRESSION => 'ZSTD', BLOCKSIZE => 16384}\n"
     "\n"
     "Table configuration options can be put at the end.\n"
     "Examples:\n"
     "\n"
     "  strata> create 'ns1:t1', 'f1', SPLITS => ['10', '20', '30', '40']\n"
     "  strata> create 't1', 'f1', SPLITS => ['10', '20', '30', '40']\n"
     "  strata> create 't1', 'f1', SPLITS_FILE => 'splits.txt'\n"
     "  strata> create 't1', 'f1', MAX_FILESIZE => 1073741824, DURABILITY => 'ASYNC_WAL'\n"
     "  strata> create 't1', 'f1', SPLIT_POLICY => 'ConstantSizeRegionSplitPolicy'\n"
     "  strata> create 't1', 'f1', SPLIT_POLICY => 'DelimitedKeyPrefixRegionSplitPolicy',\n"
     "          METADATA => {'DelimitedKeyPrefixRegionSplitPolicy.delimiter' => '|'}\n"
     "  strata> create 't1', 'f1', NORMALIZATION_ENABLED => true,\n"
     "          CONFIGURATION => {'hbase.hregion.max.filesize.jitter' => '0'}\n"
     "  strata> # Optionally pre-split the table into NUMREGIONS, using\n"
     "  strata> # SPLITALGO (\"HexStringSplit\", \"DecimalStringSplit\" or \"UniformSplit\")\n"
     "  strata> create 't1', 'f1', {NUMREGIONS => 15, SPLITALGO => 'HexStringSplit'}\n"
     "\n"
     "Split keys are read as binary strings: '\\x00' in a split key is one byte.\n"},
    {"describe", "ddl", cmd_describe,
     "Describe the named table. For example:\n"
     "  strata> describe 't1'\n"
     "  strata> describe 'ns1:t1'\n"
     "\n"
     "Alternatively, you can use the abbreviated 'desc' for the same thing.\n"
     "  strata> desc 't1'\n"
     "  strata> desc 'ns1:t1'\n"},
    {"clone_table_schema", "ddl", cmd_clone_table_schema,
     "Create a new table by cloning the existent table schema.\n"
     "There're no copies of data involved.\n"
     "Just copy the table descriptor and split keys.\n"
     "\n"
     "Passing 'false' as the optional third parameter will\n"
     "not preserve split keys.\n"
     "Examples:\n"
     "  strata> clone_table_schema 'table_name', 'new_table_name'\n"
     "  strata> clone_table_schema 'table_name', 'new_table_name', false\n"},
    {"desc", "ddl", cmd_describe, NULL},
    {"disable", "ddl", cmd_disable,
     "Start disable of named table:\n"
     "  strata> disable 't1'\n"
     "  strata> disable 'ns1:t1'\n"},
    {"disable_all", "ddl", cmd_disable_all,
     "Disable all of tables matching the given regex, after a y/n question (answered no\n"
     "when the shell is not interactive, unless true is given to force it):\n"
     "\n"
     "  strata> disable_all 't.*'\n"
     "  strata> disable_all 'ns:t.*'\n"
     "  strata> disable_all 'ns:.*', true\n"},
    {"drop", "ddl", cmd_drop,
     "Drop the named table. Table must first be disabled:\n"
     "  strata> drop 't1'\n"
     "  strata> drop 'ns1:t1'\n"},
    {"drop_all", "ddl", cmd_drop_all,
     "Drop all of the tables matching the given regex (they must be disabled), after a\n"
     "y/n question (answered no when the shell is not interactive, unless true is given):\n"
     "\n"
     "  strata> drop_all 't.*'\n"
     "  strata> drop_all 'ns:t.*'\n"
     "  strata> drop_all 'ns:.*', true\n"},
    {"enable", "ddl", cmd_enable,
     "Start enable of named table:\n"
     "  strata> enable 't1'\n"
     "  strata> enable 'ns1:t1'\n"},
    {"enable_all", "ddl", cmd_enable_all,
     "Enable all of the tables matching the given regex, after a y/n question (answered\n"
     "no when the shell is not interactive, unless true is given to force it):\n"
     "\n"
     "  strata> enable_all 't.*'\n"
     "  strata> enable_all 'ns:t.*'\n"
     "  strata> enable_all 'ns:.*', true\n"},
    {"exists", "ddl", cmd_exists,
     "Does the named table exist?\n"
     "  strata> exists 't1'\n"
     "  strata> exists 'ns1:t1'\n"},
    {"is_disabled", "ddl", cmd_is_disabled,
     "Is named table disabled? For example:\n"
     "  strata> is_disabled 't1'\n"
     "  strata> is_disabled 'ns1:t1'\n"},
    {"is_enabled", "ddl", cmd_is_enabled,
     "Is named table enabled? For example:\n"
     "  strata> is_enabled 't1'\n"
     "  strata> is_enabled 'ns1:t1'\n"},
    {"list", "ddl", cmd_list,
     "List all user tables. Optional regular expression parameter could\n"
     "be used to filter the output. Examples:\n"
     "\n"
     "  strata> list\n"
     "  strata> list 'abc.*'\n"
     "  strata> list 'ns:abc.*'\n"
     "  strata> list 'ns:.*'\n"},
    {"show_filters", "ddl", cmd_show_filters,
     "Show all the filters in the filter language (docs/filters.md).\n"
     "\n"
     "  strata> show_filters\n"
     "\n"
     "  DependentColumnFilter\n"
     "  KeyOnlyFilter\n"
     "  ...\n"},
    {"truncate", "dml", cmd_truncate,
     "Disables, drops and recreates the specified table (as one region).\n"
     "  strata> truncate 't1'\n"},
    {"truncate_preserve", "dml", cmd_truncate_preserve,
     "Disables, drops and recreates the specified table while still maintaining\n"
     "the previous region boundaries.\n"
     "  strata> truncate_preserve 't1'\n"},
    {NULL, NULL, NULL, NULL},
};
