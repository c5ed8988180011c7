/*
 * test_verify_check.c - the pure parts of tools/verify_linkedlist.c and verify_acid.c, no
 * cluster: the linked-list accounting (vll_graph_account) on a closed cycle, a cycle with
 * a node deleted (UNDEFINED 1 naming the node that points to it, UNREFERENCED 1), a list
 * left open the way HBase's generator leaves it (batch 0 pointing at NO_KEY, the last
 * batch unreferenced), two nodes pointing to one (EXTRAREFERENCES), rows without prev and
 * rows that are not nodes, rows added out of order; the pass rule with and without
 * --expected; and the ACID row check (one value everywhere, empty, torn with the columns
 * and values named, partial with the missing column named, older versions and other
 * columns ignored).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "tests/support/testutil.h"
#include "tools/verify.h"

/* Node i's key: 16 bytes, distinct, in no particular order. */
static void node_key(uint32_t i, uint8_t *k)
{
    uint64_t x = (i + 1) * 0x9E3779B97F4A7C15ull;
    memcpy(k, &x, 8);
    x ^= x >> 29;
    memcpy(k + 8, &x, 8);
}

/* A cycle of n nodes (node i -> node i-1, node 0 -> node n-1), skipping node `skip`
 * (n: none). */
static vll_graph *cycle(uint32_t n, uint32_t skip)
{
    vll_graph *g = vll_graph_new();
    assert_non_null(g);
    for (uint32_t i = 0; i < n; i++) {
        uint8_t row[VLL_KEY_LEN], prev[VLL_KEY_LEN];
        if (i == skip)
            continue;
        node_key(i, row);
        node_key((i + n - 1) % n, prev);
        assert_int_equal(vll_graph_add(g, row, sizeof(row), prev, sizeof(prev)), ST_OK);
    }
    return g;
}

static void closed_cycle_is_all_referenced(void **state)
{
    (void)state;
    vll_graph *g = cycle(1000, 1000);
    vll_verify_result r;
    assert_int_equal(vll_graph_account(g, &r), ST_OK);
    assert_int_equal(r.referenced, 1000);
    assert_int_equal(r.unreferenced, 0);
    assert_int_equal(r.undefined, 0);
    assert_int_equal(r.extra_references, 0);
    assert_int_equal(r.rows, 1000);
    assert_true(vll_verify_passed(&r, -1));
    assert_true(vll_verify_passed(&r, 1000));
    assert_false(vll_verify_passed(&r, 999));
    vll_graph_free(g);
}

static void deleted_node_is_undefined(void **state)
{
    (void)state;
    vll_graph *g = cycle(500, 123);
    vll_verify_result r;
    assert_int_equal(vll_graph_account(g, &r), ST_OK);
    assert_int_equal(r.undefined, 1);
    assert_int_equal(r.unreferenced, 1); /* node 122, which only 123 pointed to */
    assert_int_equal(r.referenced, 498);
    assert_false(vll_verify_passed(&r, -1));
    uint8_t k[VLL_KEY_LEN];
    assert_int_equal(r.n_undefined_ex, 1);
    node_key(123, k);
    assert_int_equal(r.undefined_ex[0].to.len, VLL_KEY_LEN);
    assert_memory_equal(r.undefined_ex[0].to.b, k, VLL_KEY_LEN);
    node_key(124, k);
    assert_memory_equal(r.undefined_ex[0].from.b, k, VLL_KEY_LEN);
    assert_int_equal(r.n_unreferenced_ex, 1);
    node_key(122, k);
    assert_memory_equal(r.unreferenced_ex[0].b, k, VLL_KEY_LEN);
    char hex[2 * VLL_KEY_LEN + 1];
    vll_key_hex(&r.unreferenced_ex[0], hex);
    assert_int_equal(strlen(hex), 32);
    vll_graph_free(g);
}

/* HBase's generator interrupted after `batches` batches of width: batch 0 -> NO_KEY. */
static void open_list_has_unreferenced_heads(void **state)
{
    (void)state;
    const uint32_t width = 10, batches = 3;
    vll_graph *g = vll_graph_new();
    static const uint8_t no_key[1] = {0};
    for (uint32_t b = 0; b < batches; b++)
        for (uint32_t i = 0; i < width; i++) {
            uint8_t row[VLL_KEY_LEN], prev[VLL_KEY_LEN];
            node_key(b * width + i, row);
            node_key((b - 1) * width + i, prev);
            assert_int_equal(vll_graph_add(g, row, sizeof(row), b ? prev : no_key,
                                           b ? sizeof(prev) : sizeof(no_key)),
                             ST_OK);
        }
    vll_verify_result r;
    assert_int_equal(vll_graph_account(g, &r), ST_OK);
    assert_int_equal(r.undefined, 1); /* NO_KEY, once */
    assert_int_equal(r.undefined_ex[0].to.len, 1);
    assert_int_equal(r.extra_references, 0);
    assert_int_equal(r.unreferenced, width); /* the last batch */
    assert_int_equal(r.referenced, width * (batches - 1));
    assert_int_equal(r.n_unreferenced_ex, VLL_EXAMPLES);
    vll_graph_free(g);
}

static void two_references_to_one_node(void **state)
{
    (void)state;
    /* a -> c, b -> c, c -> a: c referenced twice, b by none */
    uint8_t a[VLL_KEY_LEN], b[VLL_KEY_LEN], c[VLL_KEY_LEN];
    node_key(1, a);
    node_key(2, b);
    node_key(3, c);
    vll_graph *g = vll_graph_new();
    assert_int_equal(vll_graph_add(g, c, 16, a, 16), ST_OK);
    assert_int_equal(vll_graph_add(g, b, 16, c, 16), ST_OK);
    assert_int_equal(vll_graph_add(g, a, 16, c, 16), ST_OK);
    vll_verify_result r;
    assert_int_equal(vll_graph_account(g, &r), ST_OK);
    assert_int_equal(r.referenced, 2);
    assert_int_equal(r.extra_references, 1);
    assert_int_equal(r.unreferenced, 1);
    assert_memory_equal(r.unreferenced_ex[0].b, b, 16);
    assert_int_equal(r.undefined, 0);
    vll_graph_free(g);
}

static void rows_without_prev_and_foreign_rows(void **state)
{
    (void)state;
    uint8_t a[VLL_KEY_LEN], b[VLL_KEY_LEN], long_row[20] = {0};
    node_key(1, a);
    node_key(2, b);
    vll_graph *g = vll_graph_new();
    /* a -> b, b has lost its prev: a unreferenced, b referenced */
    assert_int_equal(vll_graph_add(g, a, 16, b, 16), ST_OK);
    assert_int_equal(vll_graph_add(g, b, 16, NULL, 0), ST_OK);
    /* not nodes: a 20-byte row, an empty row, a prev of 20 bytes */
    assert_int_equal(vll_graph_add(g, long_row, sizeof(long_row), a, 16), ST_OK);
    assert_int_equal(vll_graph_add(g, "", 0, a, 16), ST_OK);
    assert_int_equal(vll_graph_add(g, a, 16, long_row, sizeof(long_row)), ST_OK);
    vll_verify_result r;
    assert_int_equal(vll_graph_account(g, &r), ST_OK);
    assert_int_equal(r.rows, 2);
    assert_int_equal(r.foreign_rows, 3);
    assert_int_equal(r.no_prev, 1);
    assert_int_equal(r.referenced, 1);
    assert_int_equal(r.unreferenced, 1);
    assert_int_equal(r.undefined, 0);
    vll_graph_free(g);
    vll_graph_free(NULL);
}

/* Keys of different lengths sort as bytes: "\x01" before "\x01\x00": both defined,
 * each the other's prev. */
static void short_keys_sort_before_longer(void **state)
{
    (void)state;
    vll_graph *g = vll_graph_new();
    assert_int_equal(vll_graph_add(g, "\x01\x00", 2, "\x01", 1), ST_OK);
    assert_int_equal(vll_graph_add(g, "\x01", 1, "\x01\x00", 2), ST_OK);
    vll_verify_result r;
    assert_int_equal(vll_graph_account(g, &r), ST_OK);
    assert_int_equal(r.referenced, 2);
    assert_true(vll_verify_passed(&r, 2));
    vll_graph_free(g);
}

/* ---- ACID rows ---- */

typedef struct row_builder {
    vacid_cell c[128];
    char names[128][2][16];
    size_t n;
} row_builder;

static void add_cell(row_builder *b, char fam, const char *qual, const char *value)
{
    vacid_cell *c = &b->c[b->n];
    snprintf(b->names[b->n][0], 16, "%c", fam);
    snprintf(b->names[b->n][1], 16, "%s", qual);
    c->family = b->names[b->n][0];
    c->family_len = 1;
    c->qualifier = b->names[b->n][1];
    c->qualifier_len = strlen(qual);
    c->value = value;
    c->value_len = strlen(value);
    b->n++;
}

/* Every column of A, B, C for `columns` columns with value v, in HBase's order. */
static void full_row(row_builder *b, int columns, const char *v)
{
    for (const char *f = VACID_FAMILIES; *f; f++)
        for (int k = 0; k < columns; k++) {
            char q[16];
            snprintf(q, sizeof(q), "col%d", k);
            add_cell(b, *f, q, v);
        }
}

static void acid_row_ok_and_empty(void **state)
{
    (void)state;
    row_builder b = {.n = 0};
    assert_int_equal(vacid_check_row(b.c, 0, 10, NULL), VACID_ROW_EMPTY);
    full_row(&b, 10, "w0-7");
    assert_int_equal(vacid_check_row(b.c, b.n, 10, NULL), VACID_ROW_OK);
    /* columns the check does not name are ignored: col10 and col05, a family D,
     * another qualifier */
    add_cell(&b, 'A', "col10", "other");
    add_cell(&b, 'A', "col05", "other");
    add_cell(&b, 'D', "col1", "other");
    add_cell(&b, 'B', "counter", "other");
    vacid_tear why;
    assert_int_equal(vacid_check_row(b.c, b.n, 10, &why), VACID_ROW_OK);
    /* a row of only ignored columns is empty */
    assert_int_equal(vacid_check_row(b.c + 30, 4, 10, &why), VACID_ROW_EMPTY);
}

static void acid_row_torn_names_both_columns(void **state)
{
    (void)state;
    row_builder b = {.n = 0};
    full_row(&b, 3, "w1-5");
    b.c[7].value = "w0-9"; /* C:col1 */
    b.c[7].value_len = 4;
    vacid_tear why;
    assert_int_equal(vacid_check_row(b.c, b.n, 3, &why), VACID_ROW_TORN);
    assert_string_equal(why.col_a, "A:col0");
    assert_string_equal(why.col_b, "C:col1");
    assert_string_equal(why.value_a, "w1-5");
    assert_string_equal(why.value_b, "w0-9");
    assert_false(why.missing_b);
    /* a value of another length is torn too, and bytes are shown escaped */
    b.c[7].value = "w1-5\n";
    b.c[7].value_len = 5;
    assert_int_equal(vacid_check_row(b.c, b.n, 3, &why), VACID_ROW_TORN);
    assert_string_equal(why.value_b, "w1-5\\x0a");
    assert_int_equal(vacid_check_row(b.c, b.n, 3, NULL), VACID_ROW_TORN);
}

static void acid_row_partial_names_the_missing_column(void **state)
{
    (void)state;
    row_builder b = {.n = 0};
    full_row(&b, 4, "w0-1");
    /* drop B:col2 (index 4 + 2) */
    memmove(&b.c[6], &b.c[7], (b.n - 7) * sizeof(b.c[0]));
    b.n--;
    vacid_tear why;
    assert_int_equal(vacid_check_row(b.c, b.n, 4, &why), VACID_ROW_PARTIAL);
    assert_string_equal(why.col_a, "A:col0");
    assert_string_equal(why.col_b, "B:col2");
    assert_true(why.missing_b);
    /* only family A written */
    row_builder a = {.n = 0};
    for (int k = 0; k < 4; k++) {
        char q[8];
        snprintf(q, sizeof(q), "col%d", k);
        add_cell(&a, 'A', q, "w0-1");
    }
    assert_int_equal(vacid_check_row(a.c, a.n, 4, &why), VACID_ROW_PARTIAL);
    assert_string_equal(why.col_b, "B:col0");
}

static void acid_row_older_versions_do_not_count(void **state)
{
    (void)state;
    /* newest first per column: an older version with another value is not a tear */
    row_builder b = {.n = 0};
    for (const char *f = VACID_FAMILIES; *f; f++) {
        add_cell(&b, *f, "col0", "w0-2");
        add_cell(&b, *f, "col0", "w0-1");
        add_cell(&b, *f, "col1", "w0-2");
    }
    assert_int_equal(vacid_check_row(b.c, b.n, 2, NULL), VACID_ROW_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(closed_cycle_is_all_referenced),
        cmocka_unit_test(deleted_node_is_undefined),
        cmocka_unit_test(open_list_has_unreferenced_heads),
        cmocka_unit_test(two_references_to_one_node),
        cmocka_unit_test(rows_without_prev_and_foreign_rows),
        cmocka_unit_test(short_keys_sort_before_longer),
        cmocka_unit_test(acid_row_ok_and_empty),
        cmocka_unit_test(acid_row_torn_names_both_columns),
        cmocka_unit_test(acid_row_partial_names_the_missing_column),
        cmocka_unit_test(acid_row_older_versions_do_not_count),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
