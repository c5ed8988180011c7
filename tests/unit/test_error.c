/*
 * test_error.c - the public error contract (strata.h, "Errors"; client/error.c): every
 * Strata status maps to its documented strata_code, and strata_error_code reads that code
 * back from every shape of message the library hands out:
 *   - "<token>" and "<token>: <details>" from client_set_error, for every status;
 *   - a copy of a message, NULL, "", text that is no message of ours, a token followed by
 *     something other than ':' ("closedown"), a token's prefix ("not");
 *   - plain messages that begin with their token (an empty put, an invalid argument);
 *   - a batch's per-action errors and its aggregate (which begins with the first failed
 *     action's token), for a retryable failure (a dead server) and a final one (a table
 *     with no region);
 *   - the buffered mutator's failed mutations and its aggregate.
 * Batches run against a fixed region list whose server listens nowhere: connection
 * refused comes back at once, and with no retries the failure is final.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client_internal.h"
#include "common/status.h"
#include "strata/strata.h"
#include "tests/support/testutil.h"

/* The documented mapping, written out again: a status added to common/status.h fails
 * every_status_has_a_code until it is added here and to client/error.c. */
static const struct {
    int status;
    strata_code code;
} EXPECTED[] = {
    {ST_IO, STRATA_ERR_IO},
    {ST_NOSPACE, STRATA_ERR_IO},
    {ST_CORRUPTION, STRATA_ERR_CORRUPTION},
    {ST_NOT_FOUND, STRATA_ERR_NOT_FOUND},
    {ST_EXISTS, STRATA_ERR_EXISTS},
    {ST_INVALID_ARGUMENT, STRATA_ERR_INVALID_ARGUMENT},
    {ST_UNKNOWN_FAMILY, STRATA_ERR_NO_SUCH_FAMILY},
    {ST_ORDER, STRATA_ERR_INVALID_ARGUMENT},
    {ST_NOT_SERVING, STRATA_ERR_RETRYABLE},
    {ST_REGION_OPENING, STRATA_ERR_RETRYABLE},
    {ST_REGION_TOO_BUSY, STRATA_ERR_RETRYABLE},
    {ST_SERVER_BUSY, STRATA_ERR_RETRYABLE},
    {ST_CLOSED, STRATA_ERR_RETRYABLE},
    {ST_TABLE_DISABLED, STRATA_ERR_TABLE_DISABLED},
    {ST_REGION_MOVED, STRATA_ERR_RETRYABLE},
    {ST_TIMEOUT, STRATA_ERR_RETRYABLE},
    {ST_PERMISSION, STRATA_ERR_PERMISSION},
    {ST_NOMEM, STRATA_ERR_NO_MEMORY},
    {ST_UNSUPPORTED, STRATA_ERR_UNSUPPORTED},
    {ST_INTERNAL, STRATA_ERR_INTERNAL},
    {ST_WOULD_BLOCK, STRATA_ERR_INTERNAL},
    {ST_CONNECTION, STRATA_ERR_RETRYABLE},
    {ST_PROTOCOL, STRATA_ERR_CORRUPTION},
};
#define N_EXPECTED (sizeof(EXPECTED) / sizeof(EXPECTED[0]))

static void every_status_has_a_code(void **state)
{
    size_t named = 0;
    for (int st = -1000; st < 0; st++) {
        if (strcmp(st_strerror(st), "unknown status") == 0)
            continue;
        named++;
        size_t i = 0;
        while (i < N_EXPECTED && EXPECTED[i].status != st)
            i++;
        if (i == N_EXPECTED)
            fail_msg("status %d (%s) has no expected public code", st, st_strerror(st));
        assert_int_equal(client_public_code(st), EXPECTED[i].code);
    }
    assert_int_equal(named, N_EXPECTED);
    assert_int_equal(client_public_code(ST_OK), STRATA_OK);
    assert_int_equal(client_public_code(-999), STRATA_ERR_INTERNAL);
}

/* The numbers are part of the ABI: never renumbered. */
static void code_numbers_and_names(void **state)
{
    static const struct {
        strata_code code;
        int number;
        const char *name;
    } codes[] = {
        {STRATA_OK, 0, "STRATA_OK"},
        {STRATA_ERR_RETRYABLE, 1, "STRATA_ERR_RETRYABLE"},
        {STRATA_ERR_NOT_FOUND, 2, "STRATA_ERR_NOT_FOUND"},
        {STRATA_ERR_EXISTS, 3, "STRATA_ERR_EXISTS"},
        {STRATA_ERR_TABLE_DISABLED, 4, "STRATA_ERR_TABLE_DISABLED"},
        {STRATA_ERR_INVALID_ARGUMENT, 5, "STRATA_ERR_INVALID_ARGUMENT"},
        {STRATA_ERR_NO_SUCH_FAMILY, 6, "STRATA_ERR_NO_SUCH_FAMILY"},
        {STRATA_ERR_CORRUPTION, 7, "STRATA_ERR_CORRUPTION"},
        {STRATA_ERR_IO, 8, "STRATA_ERR_IO"},
        {STRATA_ERR_PERMISSION, 9, "STRATA_ERR_PERMISSION"},
        {STRATA_ERR_UNSUPPORTED, 10, "STRATA_ERR_UNSUPPORTED"},
        {STRATA_ERR_INTERNAL, 11, "STRATA_ERR_INTERNAL"},
        {STRATA_ERR_NO_MEMORY, 12, "STRATA_ERR_NO_MEMORY"},
    };
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        assert_int_equal((int)codes[i].code, codes[i].number);
        assert_string_equal(strata_code_name(codes[i].code), codes[i].name);
    }
    assert_string_equal(strata_code_name((strata_code)13), "unknown strata_code");
    assert_string_equal(strata_code_name((strata_code)-1), "unknown strata_code");
}

/* "<token>: <details>" and "<token>" alone, for every status, and copies of them. */
static void every_status_round_trips(void **state)
{
    for (size_t i = 0; i < N_EXPECTED; i++) {
        char *err = NULL;
        st_error(EXPECTED[i].status, "table users, row r%zu: what went wrong", i);
        client_set_error(&err, EXPECTED[i].status);
        assert_non_null(err);
        assert_int_equal(
            strncmp(err, st_strerror(EXPECTED[i].status), strlen(st_strerror(EXPECTED[i].status))),
            0);
        assert_non_null(strstr(err, ": table users, row r"));
        assert_int_equal(client_message_status(err), EXPECTED[i].status);
        assert_int_equal(strata_error_code(err), EXPECTED[i].code);
        char *copy = strdup(err);
        strata_free(err);
        assert_int_equal(strata_error_code(copy), EXPECTED[i].code);
        free(copy);

        err = NULL;
        st_clear();
        client_set_error(&err, EXPECTED[i].status);
        assert_string_equal(err, st_strerror(EXPECTED[i].status));
        assert_int_equal(strata_error_code(err), EXPECTED[i].code);
        strata_free(err);
    }
}

static void odd_messages(void **state)
{
    assert_int_equal(strata_error_code(NULL), STRATA_OK);
    assert_int_equal(strata_error_code(""), STRATA_ERR_INTERNAL);
    assert_int_equal(strata_error_code("something else entirely"), STRATA_ERR_INTERNAL);
    assert_int_equal(strata_error_code("closedown: x"), STRATA_ERR_INTERNAL);
    assert_int_equal(strata_error_code("not"), STRATA_ERR_INTERNAL);
    assert_int_equal(strata_error_code(" not found: leading space"), STRATA_ERR_INTERNAL);
    assert_int_equal(strata_error_code("closed"), STRATA_ERR_RETRYABLE);
    assert_int_equal(strata_error_code("not found:no space"), STRATA_ERR_NOT_FOUND);
    /* the plain messages the client builds itself */
    assert_int_equal(strata_error_code("out of memory: buffering a mutation"),
                     STRATA_ERR_NO_MEMORY);
    assert_int_equal(strata_error_code("invalid argument: a put needs at least one cell"),
                     STRATA_ERR_INVALID_ARGUMENT);
    /* tokens are matched whole, punctuation included */
    assert_int_equal(client_message_status("I/O error: disk"), ST_IO);
    assert_int_equal(client_message_status("I/O error"), ST_IO);
    assert_int_equal(client_message_status("I/O: disk"), ST_INTERNAL);
}

/* A client on a fixed list: table t's only region is served at a port nobody listens on. */
static strata_client_t *dead_client(void)
{
    char *err = NULL;
    strata_options_t *o = strata_options_create();
    strata_options_add_region(o, "t", "0123456789abcdef0123456789abcdef", "", 0, "", 0,
                              "127.0.0.1:1");
    strata_options_set_retries(o, 0);
    strata_options_set_rpc_timeout_ms(o, 2000);
    strata_options_set_operation_timeout_ms(o, 5000);
    strata_client_t *c = strata_client_open(o, &err);
    strata_options_destroy(o);
    assert_null(err);
    assert_non_null(c);
    return c;
}

static strata_mutation_t *put(const char *row)
{
    strata_mutation_t *m = strata_put_create(row, strlen(row));
    strata_put_add(m, "f", 1, "q", 1, STRATA_LATEST_TIMESTAMP, "v", 1);
    return m;
}

/* Checks an aggregate: it begins with the first action's token, names the count and the
 * table, and quotes the first error. */
static void check_aggregate(const char *err, const char *first, strata_code code, const char *count,
                            const char *table)
{
    assert_non_null(err);
    const char *token = st_strerror(client_message_status(first));
    assert_int_equal(strncmp(err, token, strlen(token)), 0);
    assert_int_equal(err[strlen(token)], ':');
    assert_non_null(strstr(err, count));
    assert_non_null(strstr(err, table));
    assert_non_null(strstr(err, first));
    assert_int_equal(strata_error_code(err), code);
}

static void batch_errors(void **state)
{
    strata_client_t *c = dead_client();
    strata_table_t *t = strata_table_open(c, "t");
    strata_table_t *none = strata_table_open(c, "no_regions");
    strata_batch_t *b = strata_batch_create();
    strata_mutation_t *m = put("r1");
    strata_get_t *g = strata_get_create("r2", 2);
    strata_batch_add_mutation(b, m);
    strata_batch_add_get(b, g);
    char *err = NULL;

    strata_table_batch(t, b, &err); /* connection refused: retryable, retries spent */
    for (size_t i = 0; i < 2; i++) {
        assert_non_null(strata_batch_error(b, i));
        assert_int_equal(strata_error_code(strata_batch_error(b, i)), STRATA_ERR_RETRYABLE);
    }
    check_aggregate(err, strata_batch_error(b, 0), STRATA_ERR_RETRYABLE, "2 of 2 actions",
                    "table t");
    strata_free(err);
    err = NULL;

    strata_table_batch(none, b, &err); /* no region at all: final, not found */
    for (size_t i = 0; i < 2; i++)
        assert_int_equal(strata_error_code(strata_batch_error(b, i)), STRATA_ERR_NOT_FOUND);
    check_aggregate(err, strata_batch_error(b, 0), STRATA_ERR_NOT_FOUND, "2 of 2 actions",
                    "table no_regions");
    strata_free(err);

    strata_batch_destroy(b);
    strata_mutation_destroy(m);
    strata_get_destroy(g);
    strata_table_close(none);
    strata_table_close(t);
    strata_client_close(c);
}

static void mutator_errors(void **state)
{
    strata_client_t *c = dead_client();
    strata_table_t *t = strata_table_open(c, "t");
    strata_mutator_t *bm = strata_mutator_create(t, 0);
    char *err = NULL;
    for (int i = 0; i < 3; i++) {
        char row[8];
        snprintf(row, sizeof(row), "r%d", i);
        strata_mutation_t *m = put(row);
        strata_mutator_mutate(bm, m, &err);
        strata_mutation_destroy(m);
        assert_null(err);
    }
    strata_mutator_flush(bm, &err);
    assert_int_equal(strata_mutator_failed_count(bm), 3);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(strata_error_code(strata_mutator_failed_error(bm, i)),
                         STRATA_ERR_RETRYABLE);
    check_aggregate(err, strata_mutator_failed_error(bm, 0), STRATA_ERR_RETRYABLE,
                    "3 buffered mutations", "table t");
    strata_free(err);
    err = NULL;
    strata_mutator_close(bm, &err);
    assert_null(err); /* nothing left to send */
    strata_table_close(t);
    strata_client_close(c);
}

static void single_row_errors(void **state)
{
    strata_client_t *c = dead_client();
    strata_table_t *t = strata_table_open(c, "t");
    char *err = NULL;
    strata_mutation_t *empty = strata_put_create("r", 1);
    strata_table_put(t, empty, &err);
    assert_int_equal(strata_error_code(err), STRATA_ERR_INVALID_ARGUMENT);
    strata_mutation_destroy(empty);
    strata_mutation_t *m = put("r");
    strata_table_put(t, m, &err); /* replaces the previous message */
    assert_int_equal(strata_error_code(err), STRATA_ERR_RETRYABLE);
    strata_free(err);
    strata_mutation_destroy(m);
    strata_table_close(t);
    strata_client_close(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_status_has_a_code),
        cmocka_unit_test(code_numbers_and_names),
        cmocka_unit_test(every_status_round_trips),
        cmocka_unit_test(odd_messages),
        cmocka_unit_test(batch_errors),
        cmocka_unit_test(mutator_errors),
        cmocka_unit_test(single_row_errors),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
