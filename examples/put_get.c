/*
 * put_get.c - a whole Strata client program to copy: connect with a region location
 * file, put three rows, get one back, scan them all, delete one, and print what it sees.
 *
 *   put_get REGIONS_FILE [TABLE [FAMILY]]     (defaults: table "t", family "f")
 *
 * REGIONS_FILE has one region a line: `table encoded_name start_hex end_hex host:port`,
 * `-` for an empty key (see client/locator.h). Build: link with libstrata (strata_client).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strata/strata.h"

/* Prints the message, frees it and returns 1 if a call failed. */
static int failed(const char *what, char **err)
{
    if (*err == NULL)
        return 0;
    fprintf(stderr, "put_get: %s: %s\n", what, *err);
    strata_free(*err);
    *err = NULL;
    return 1;
}

static void print_result(const strata_result_t *r)
{
    for (size_t i = 0; i < strata_result_cell_count(r); i++) {
        size_t rl, fl, ql, vl;
        const char *row = strata_result_cell_row(r, i, &rl);
        const char *fam = strata_result_cell_family(r, i, &fl);
        const char *qual = strata_result_cell_qualifier(r, i, &ql);
        const char *val = strata_result_cell_value(r, i, &vl);
        printf("  %.*s %.*s:%.*s @%lld = %.*s\n", (int)rl, row, (int)fl, fam, (int)ql, qual,
               (long long)strata_result_cell_timestamp(r, i), (int)vl, val);
    }
}

static int put_rows(strata_table_t *t, const char *fam, char **err)
{
    static const char *rows[] = {"apple", "banana", "cherry"};
    for (size_t i = 0; i < 3; i++) {
        char value[64];
        snprintf(value, sizeof(value), "value of %s", rows[i]);
        strata_mutation_t *m = strata_put_create(rows[i], strlen(rows[i]));
        strata_put_add(m, fam, strlen(fam), "q", 1, STRATA_LATEST_TIMESTAMP, value, strlen(value));
        strata_table_put(t, m, err);
        strata_mutation_destroy(m);
        if (failed("put", err))
            return 1;
    }
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

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: put_get REGIONS_FILE [TABLE [FAMILY]]\n");
        return 2;
    }
    const char *table = argc > 2 ? argv[2] : "t", *fam = argc > 3 ? argv[3] : "f";
    char *err = NULL;
    strata_options_t *o = strata_options_create();
    strata_options_set_locator_file(o, argv[1]);
    strata_options_set_operation_timeout_ms(o, 20000);
    strata_client_t *c = strata_client_open(o, &err);
    strata_options_destroy(o);
    if (failed("connect", &err))
        return 1;
    strata_table_t *t = strata_table_open(c, table);
    int rc = put_rows(t, fam, &err) || get_row(t, "banana", &err) || scan_all(t, &err);
    if (rc == 0) {
        strata_mutation_t *d = strata_delete_create("banana", 6);
        strata_table_delete(t, d, &err);
        strata_mutation_destroy(d);
        rc = failed("delete", &err) || get_row(t, "banana", &err);
    }
    strata_table_close(t);
    strata_client_close(c);
    return rc;
}
