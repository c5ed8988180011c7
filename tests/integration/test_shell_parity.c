/*
 * test_shell_parity.c - the HBase shell forms `strata shell` follows beyond the basics of
 * test_shell (docs/shell.md), against a local cluster of 1 master and 2 region servers:
 *
 *   - formatters: 'cf:q:toInt' and 'cf:q:c(org.apache.hadoop.hbase.util.Bytes).toLong'
 *     column specs on get and scan format the value (they once filtered it away), FORMATTER
 *     and FORMATTER_CLASS, a value too short for its converter fails after the header
 *     with Java's message, converters the shell lacks are refused, a qualifier with ':'
 *     that is no converter stays a qualifier;
 *   - count with STARTROW, STOPROW, ROWPREFIXFILTER and LIMIT (a scan's keys);
 *   - the options of put, incr, append, delete and deleteall (TTL, VISIBILITY, ATTRIBUTES)
 *     refused with their reason and nothing written, extra arguments refused;
 *   - commands spanning lines in HBase's syntax (hashes and arrays over several lines,
 *     comments inside, trailing commas), and a syntax error naming its line;
 *   - an unknown command-line flag named as unknown.
 *
 * Needs STRATA_BIN (set by CTest); skipped without it (exit 77).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/status.h"
#include "tests/support/cluster.h"
#include "tests/support/shell_script.h"
#include "tests/support/testutil.h"

static tc_cluster *cluster;
static char tmpdir[256];

/* ---- formatters ---- */

static void test_formatters(void **state)
{
    (void)state;
    ssh_expect("create 'fmt', 'f'\n"
               "put 'fmt', 'r1', 'f:i', \"\\x00\\x00\\x00\\x2a\", 10\n"
               "put 'fmt', 'r1', 'f:l', \"\\x00\\x00\\x00\\x00\\x00\\x00\\x04\\x00\", 10\n"
               "put 'fmt', 'r1', 'f:s', \"caf\\xc3\\xa9\", 10\n"
               "put 'fmt', 'r1', 'f:a:b', 'colon', 10\n"
               "put 'fmt', \"r\\xc3\\xa9\", 'f:d', \"\\x3f\\xf8\\x00\\x00\\x00\\x00\\x00\\x00\", 10\n"
               "get 'fmt', 'r1', {COLUMN => 'f:i:toInt'}\n"
               "get 'fmt', 'r1', 'f:i:toInt', 'f:l:c(org.apache.hadoop.hbase.util.Bytes).toLong'\n"
               "get 'fmt', 'r1', {COLUMN => ['f:s', 'f:i:toHex'], FORMATTER => 'toString'}\n"
               "get 'fmt', 'r1', 'f:a:b'\n"
               "scan 'fmt', {COLUMNS => ['f:i:toInt', 'f:d:c(Bytes).toDouble', 'f:s'], "
               "FORMATTER => 'toString', FORMATTER_CLASS => 'org.apache.hadoop.hbase.util.Bytes'}\n"
               "scan 'fmt', {COLUMNS => 'f:l:len'}\n",
               "Created table fmt\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "COLUMN  CELL\n"
               " f:i timestamp=10, value=42\n"
               "1 row(s)\n"
               "Took X seconds\n"
               "COLUMN  CELL\n"
               " f:i timestamp=10, value=42\n"
               " f:l timestamp=10, value=1024\n"
               "1 row(s)\n"
               "Took X seconds\n"
               "COLUMN  CELL\n"
               " f:i timestamp=10, value=0000002a\n"
               " f:s timestamp=10, value=caf\xc3\xa9\n"
               "1 row(s)\n"
               "Took X seconds\n"
               "COLUMN  CELL\n"
               " f:a:b timestamp=10, value=colon\n"
               "1 row(s)\n"
               "Took X seconds\n"
               "ROW  COLUMN+CELL\n"
               " r1 column=f:i, timestamp=10, value=42\n"
               " r1 column=f:s, timestamp=10, value=caf\xc3\xa9\n"
               " r\xc3\xa9 column=f:d, timestamp=10, value=1.5\n"
               "2 row(s)\n"
               "Took X seconds\n"
               "ROW  COLUMN+CELL\n"
               " r1 column=f:l, timestamp=10, value=8\n"
               "1 row(s)\n"
               "Took X seconds\n");
    /* a value too short for its converter: the header, then Java's message */
    ssh_result r = ssh_expect_fail_keep("get 'fmt', 'r1', 'f:s:toLong'\n",
                                        "offset (0) + length (8) exceed the capacity of the "
                                        "array: 5");
    assert_string_equal(r.out, "COLUMN  CELL\n");
    ssh_result_free(&r);
    ssh_expect_fail("get 'fmt', 'r1', 'f:i:toBigDecimal'\n",
                    "column 'f:i:toBigDecimal': converter 'toBigDecimal' is not one the shell has");
    ssh_expect_fail("scan 'fmt', {COLUMNS => 'f:i:c(com.example.Fmt).show'}\n",
                    "converter class 'com.example.Fmt' is not available");
    ssh_expect_fail("scan 'fmt', {FORMATTER => 'toFoo'}\n", "FORMATTER: converter 'toFoo'");
    ssh_expect_fail("count 'fmt', {FORMATTER => 'toString'}\n",
                    "Unknown argument FORMATTER for count");
}

/* ---- count takes a scan's keys ---- */

static void test_count_ranges(void **state)
{
    (void)state;
    ssh_expect("create 'cnt', 'f'\n"
               "put 'cnt', 'a1', 'f:q', 'v'\n"
               "put 'cnt', 'a2', 'f:q', 'v'\n"
               "put 'cnt', 'b1', 'f:q', 'v'\n"
               "put 'cnt', 'c1', 'f:q', 'v'\n"
               "count 'cnt', {STARTROW => 'a2', STOPROW => 'c1'}\n"
               "count 'cnt', {ROWPREFIXFILTER => 'a'}\n"
               "count 'cnt', {STARTROW => 'b', INTERVAL => 1}\n"
               "count 'cnt', {LIMIT => 3}\n",
               "Created table cnt\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "2 row(s)\n"
               "Took X seconds\n"
               "2 row(s)\n"
               "Took X seconds\n"
               "Current count: 1, row: b1\n"
               "Current count: 2, row: c1\n"
               "2 row(s)\n"
               "Took X seconds\n"
               "3 row(s)\n"
               "Took X seconds\n");
}

/* ---- write options: honoured or refused, never dropped ---- */

static void test_write_options(void **state)
{
    (void)state;
    ssh_expect("create 'wo', 'f'\n"
               "put 'wo', 'r', 'f:a', 'v1', 5\n"
               "put 'wo', 'r', 'f:b', 'v2', nil\n"
               "incr 'wo', 'r', 'f:c', 2\n"
               "delete 'wo', 'r', 'f:b'\n",
               "Created table wo\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "COUNTER VALUE = 2\n"
               "Took X seconds\n"
               "Took X seconds\n");
    ssh_expect_fail("put 'wo', 'r', 'f:t', 'v', {TTL => 1000}\n",
                    "put: TTL is not supported: Strata keeps no time-to-live per cell");
    ssh_expect_fail("put 'wo', 'r', 'f:t', 'v', 7, {VISIBILITY => 'SECRET'}\n",
                    "put: VISIBILITY is not supported");
    ssh_expect_fail("put 'wo', 'r', 'f:t', 'v', {ATTRIBUTES => {'k' => 'v'}}\n",
                    "put: ATTRIBUTES are not supported");
    ssh_expect_fail("put 'wo', 'r', 'f:t', 'v', {BOGUS => 1}\n", "Unknown argument BOGUS for put");
    ssh_expect_fail("put 'wo', 'r', 'f:t', 'v', 7, 8\n",
                    "put: argument 6 must be a Hash of options, not Integer");
    ssh_expect_fail("put 'wo', 'r', 'f:t', 'v', {TTL => 1}, 8\n",
                    "put: nothing may follow its options hash");
    ssh_expect_fail("incr 'wo', 'r', 'f:c', 1, {TTL => 5}\n", "incr: TTL is not supported");
    ssh_expect_fail("append 'wo', 'r', 'f:a', 'x', {ATTRIBUTES => {}}\n",
                    "append: ATTRIBUTES are not supported");
    ssh_expect_fail("delete 'wo', 'r', 'f:a', 5, {VISIBILITY => 'A'}\n",
                    "delete: VISIBILITY is not supported");
    ssh_expect_fail("deleteall 'wo', 'r', 'f:a', 5, 6\n",
                    "deleteall: argument 5 must be a Hash of options, not Integer");
    /* none of the refused writes changed anything */
    ssh_expect("scan 'wo'\n",
               "ROW  COLUMN+CELL\n"
               " r column=f:a, timestamp=5, value=v1\n"
               " r column=f:c, timestamp=T, value=\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x02\n"
               "1 row(s)\n"
               "Took X seconds\n");
}

/* ---- scripts in HBase's syntax ---- */

static void test_multiline_script(void **state)
{
    (void)state;
    ssh_expect("# a maintenance script as one writes it for HBase's shell\n"
               "create 'ml',\n"
               "  {NAME => 'd',          # the data\n"
               "   VERSIONS => 3},\n"
               "  {NAME => 'm'},\n"
               "  SPLITS => [\n"
               "    'g',\n"
               "    'p'\n"
               "  ]\n"
               "put 'ml', 'k1',\n"
               "    'd:x', 'one', 5\n"
               "scan 'ml', {\n"
               "  COLUMNS => ['d'],\n"
               "  LIMIT => 10\n"
               "}\n"
               "count 'ml',\n"
               "  INTERVAL => 1\n",
               "Created table ml\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "ROW  COLUMN+CELL\n"
               " k1 column=d:x, timestamp=5, value=one\n"
               "1 row(s)\n"
               "Took X seconds\n"
               "Current count: 1, row: k1\n"
               "1 row(s)\n"
               "Took X seconds\n");
}

static void test_syntax_error_names_line(void **state)
{
    (void)state;
    ssh_result r = ssh_expect_fail_keep("version\n"
                                        "create 'se',\n"
                                        "  {NAME => 'f',\n"
                                        "   VERSIONS => => 3}\n"
                                        "version\n",
                                        "syntax error at line 4, column 16");
    ssh_result_free(&r);
    /* a script that ends inside a hash: the error is at its last line */
    r = ssh_expect_fail_keep("version\ncreate 'se', {NAME => 'f',\n", "syntax error at line 2");
    ssh_result_free(&r);
}

static void test_unknown_flag(void **state)
{
    (void)state;
    ssh_result r = ssh_run("--bogus", "version\n");
    assert_int_not_equal(r.status, 0);
    if (!strstr(r.err, "unknown flag --bogus"))
        fail_msg("stderr: %s", r.err);
    ssh_result_free(&r);
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_shell_parity.XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    tc_options o = {.masters = 1, .regionservers = 2};
    int rc = tc_start(&o, &cluster);
    if (rc != ST_OK) {
        fprintf(stderr, "cluster start: %s\n", st_errmsg());
        return -1;
    }
    ssh_init(tmpdir, tc_dir(cluster));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tc_stop(cluster);
    cluster = NULL;
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return 0;
}

int main(void)
{
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_shell_parity", "STRATA_BIN is not set (ctest sets it)");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formatters),
        cmocka_unit_test(test_count_ranges),
        cmocka_unit_test(test_write_options),
        cmocka_unit_test(test_multiline_script),
        cmocka_unit_test(test_syntax_error_names_line),
        cmocka_unit_test(test_unknown_flag),
    };
    return tu_run_group_tests(tests, setup, teardown);
}
