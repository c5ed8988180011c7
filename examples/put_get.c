/*
 * put_get.c - a whole Strata client program to copy: it creates its own table through
 * the admin API (two regions, split at "m"), puts three rows, gets one back, scans them
 * all, deletes one, shows how a failure's code is read, and drops the table again,
 * printing what it sees.
 *
 *   put_get ZK_QUORUM [ZK_PARENT]          e.g. put_get 127.0.0.1:2181
 *
 * Build against an installed libstrata:
 *   cc put_get.c $(pkg-config --cflags --libs strata) -o put_get
 *
 * Every call that can fail takes &err; a failure leaves a malloc'ed message there (its
 * code from strata_error_code) that the caller frees with strata_free.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strata/admin.h>
#include <strata/strata.h>

#define TABLE "put_get_example"
#define FAMILY "f"

/* Prints the message, frees it and returns 1 if a call failed. */
static int failed(const char *what, char **err)
{
    if (*err == NULL)
        return 0;
    fprintf(stderr, "put_get: %s: %s (%s)\n", what, *err,
            strata_code_name(strata_error_code(*err)));
    strata_free(*err);
    *err = NULL;
    return 1;
}

/* The table with one family keeping 3 versions, split at "m"; an existing one is kept. */
static int create_table(strata_admin_t *a, char **err)
{
    strata_table_descriptor_t *td = strata_table_descriptor_create(TABLE);
    strata_family_descriptor_t *f = strata_table_descriptor_add_family(td, FAMILY);
    strata_family_descriptor_set(f, STRATA_FAMILY_VERSIONS, 3);
    const char *splits[] = {"m"};
    const size_t split_lens[] = {1};
    strata_admin_create_table(a, td, splits, split_lens, 1, err);
    strata_table_descriptor_destroy(td);
    if (*err && strata_error_code(*err) == STRATA_ERR_EXISTS) {
        strata_free(*err); /* left by an earlier run: use it */
        *err = NULL;
    }
    if (failed("create table", err))
        return 1;
    uint32_t regions = 0;
    strata_table_descriptor_destroy(strata_admin_describe_table(a, TABLE, NULL, &regions, err));
    if (failed("describe table", err))
        return 1;
    printf("table %s: %u regions\n", TABLE, regions);
    return 0;
}

static void print_result(const strata_result_t *r)
{
    for (size_t i = 0; i < strata_result_cell_count(r); i++) {
        size_t rl, fl, ql, vl;
        const char *row = strata_result_cell_row(r, i, &rl);
        const char *fam = strata_result_cell_family(r, i, &fl);
        const char *qual = strata_result_cell_qualifier(r, i, &ql);
        const char *val = strata_result_cell_value(r, i, &vl);
        printf("  %.*s %.*s:%.*s = %.*s\n", (int)rl, row, (int)fl, fam, (int)ql, qual, (int)vl,
               val);
    }
}

static int put_rows(strata_table_t *t, char **err)
{
    static const char *rows[] = {"apple", "banana", "cherry"};
    for (size_t i = 0; i < 3; i++) {
        char value[64];
        snprintf(value, sizeof(value), "value of %s", rows[i]);
        strata_mutation_t *m = strata_put_create(rows[i], strlen(rows[i]));
        strata_put_add(m, FAMILY, strlen(FAMILY), "q", 1, STRATA_LATEST_TIMESTAMP, value,
                       strlen(value));
        strata_table_put(t, m, err);
        strata_mutation_destroy(m);
        if (failed("put", err))
            return 1;
    }
    printf("put 3 rows\n");
    return 0;
}

static int get_row(strata_table_t *t, const char *row, char **err)
{
    strata_get_t *g = strata_get_create(row, strlen(row));
    strata_result_t *r = strata_table_get(t, g, err);
    strata_get_destroy(g);
    if (failed("get", err))
        return 1;
    printf("get %s: %zu cells\n", row, strata_result_cell_count(r));
    print_result(r);
    strata_result_destroy(r);
    return 0;
}

static int scan_all(strata_table_t *t, char **err)
{
    strata_scan_t *s = strata_scan_create();
    strata_scanner_t *sc = strata_table_scan(t, s, err);
    strata_scan_destroy(s);
    if (failed("scan", err))
        return 1;
    printf("scan:\n");
    strata_result_t *r;
    while ((r = strata_scanner_next(sc, err)) != NULL) {
        print_result(r);
        strata_result_destroy(r);
    }
    strata_scanner_close(sc);
    return failed("scan", err);
}

static int delete_row(strata_table_t *t, const char *row, char **err)
{
    strata_mutation_t *d = strata_delete_create(row, strlen(row));
    strata_table_delete(t, d, err);
    strata_mutation_destroy(d);
    if (failed("delete", err))
        return 1;
    printf("deleted %s\n", row);
    return 0;
}

/* A put to a family the table does not have fails; its code says why. */
static void show_error_code(strata_table_t *t)
{
    char *err = NULL;
    strata_mutation_t *m = strata_put_create("apple", 5);
    strata_put_add(m, "nosuch", 6, "q", 1, STRATA_LATEST_TIMESTAMP, "v", 1);
    strata_table_put(t, m, &err);
    strata_mutation_destroy(m);
    printf("put to family nosuch: %s\n", strata_code_name(strata_error_code(err)));
    strata_free(err);
}

static int drop_table(strata_admin_t *a, char **err)
{
    strata_admin_disable_table(a, TABLE, err);
    if (!*err)
        strata_admin_delete_table(a, TABLE, err);
    if (failed("drop table", err))
        return 1;
    printf("dropped table %s\n", TABLE);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: put_get ZK_QUORUM [ZK_PARENT]\n");
        return 2;
    }
    const char *parent = argc > 2 ? argv[2] : STRATA_DEFAULT_ZK_PARENT;
    char *err = NULL;
    strata_admin_t *a = strata_admin_open(argv[1], parent, &err);
    if (failed("admin", &err))
        return 1;
    strata_admin_set_timeout_ms(a, 30000);
    if (create_table(a, &err)) {
        strata_admin_close(a);
        return 1;
    }

    strata_options_t *o = strata_options_create();
    strata_options_set_zk_quorum(o, argv[1]);
    strata_options_set_zk_parent(o, parent);
    strata_options_set_operation_timeout_ms(o, 20000);
    strata_client_t *c = strata_client_open(o, &err);
    strata_options_destroy(o);
    if (failed("connect", &err)) {
        strata_admin_close(a);
        return 1;
    }
    strata_table_t *t = strata_table_open(c, TABLE);
    int rc = put_rows(t, &err) || get_row(t, "banana", &err) || scan_all(t, &err) ||
             delete_row(t, "banana", &err) || get_row(t, "banana", &err);
    if (rc == 0)
        show_error_code(t);
    strata_table_close(t);
    strata_client_close(c);
    rc = drop_table(a, &err) || rc;
    strata_admin_close(a);
    return rc;
}
