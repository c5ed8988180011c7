/*
 * test_shell.c - `strata shell` (docs/shell.md) against a local cluster of 1 master and 2
 * region servers (tests/support/cluster.h), run as `$STRATA_BIN shell --dir D -n` with
 * scripts on stdin, with -e, and from a file.
 *
 * Output is compared with HBase-style text after a small normaliser: "Took S.SSSS
 * seconds" becomes "Took X seconds" and server-assigned timestamps (12+ digits) become
 * "T"; explicit small timestamps are kept.
 *
 * Tests:
 *   - namespaces and DDL: create (attributes, SPLITS, NUMREGIONS), describe, list (regex),
 *     exists, is_enabled/is_disabled, list_namespace(_tables), describe_namespace;
 *   - data: put/get/scan output, binary escaping of rows, qualifiers and values, VERSIONS,
 *     TIMERANGE, COLUMNS, STARTROW/STOPROW/LIMIT/REVERSED/ROWPREFIXFILTER, filters in
 *     HBase's filter language, count, incr/get_counter (8-byte big-endian), append,
 *     delete/deleteall;
 *   - alter (add, change, delete by both syntaxes, an unknown family is an error, table
 *     attributes), split policies and table values: create and alter with SPLIT_POLICY,
 *     NORMALIZATION_ENABLED, METADATA and CONFIGURATION, table_att_unset and
 *     table_conf_unset, describe in HBase's TABLE_ATTRIBUTES / METADATA / CONFIGURATION
 *     layout, bad policies and parameters refused with one error and nothing changed,
 *     disable/enable/drop, truncate and truncate_preserve, data commands on a
 *     disabled table failing at once;
 *   - tools: flush, compact, major_compact, list_regions, locate_region, move (checked by
 *     locate_region), unassign/assign, status summary/simple/detailed;
 *   - failures: bad syntax, missing table, unknown command, wrong arguments each give a
 *     non-zero status and one "ERROR:" line; a script stops at the first failure; -e and
 *     file scripts; `exit N`; an unreachable cluster fails within the connect timeout;
 *     no cluster contact for commands that need none; settings from STRATA_ZK_QUORUM and
 *     a config file;
 *   - interactive on a terminal (a pseudo-terminal): the banner and numbered prompts, and the
 *     history file written at exit; with stdin not a terminal and without -n, no prompt.
 *
 * Needs STRATA_BIN (set by CTest); skipped without it (exit 77).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/status.h"
#include "tests/support/cluster.h"
#include "tests/support/proc.h"
#include "tests/support/shell_script.h"
#include "tests/support/testutil.h"

static tc_cluster *cluster;
static char tmpdir[256];

typedef ssh_result result;
#define shell_run ssh_run
#define slurp ssh_slurp
#define sh ssh_run_dir
#define result_free ssh_result_free
#define expect ssh_expect
#define expect_fail_keep ssh_expect_fail_keep
#define expect_fail ssh_expect_fail

/* ---- namespaces and DDL ---- */

static void test_namespaces_and_ddl(void **state)
{
    (void)state;
    expect(
        "create_namespace 'app'\n"
        "create 'app:users', {NAME => 'cf', VERSIONS => 3, TTL => 86400, BLOOMFILTER => 'ROWCOL', "
        "COMPRESSION => 'ZSTD'}, {NAME => 'x', BLOCKSIZE => 16384, KEEP_DELETED_CELLS => true}, "
        "SPLITS => ['g', 'p']\n"
        "create 'plain', 'f1', 'f2'\n"
        "create 'hex', 'f', {NUMREGIONS => 4, SPLITALGO => 'HexStringSplit'}\n"
        "describe 'app:users'\n"
        "list\n"
        "list 'app:.*'\n"
        "list 'nomatch.*'\n"
        "exists 'plain'\n"
        "exists 'nope'\n"
        "is_enabled 'plain'\n"
        "is_disabled 'plain'\n"
        "list_namespace\n"
        "list_namespace 'ap.*'\n"
        "list_namespace_tables 'app'\n"
        "describe_namespace 'app'\n",
        "Took X seconds\n"
        "Created table app:users\n"
        "Took X seconds\n"
        "Created table plain\n"
        "Took X seconds\n"
        "Created table hex\n"
        "Took X seconds\n"
        "Table app:users is ENABLED\n"
        "app:users\n"
        "COLUMN FAMILIES DESCRIPTION\n"
        "{NAME => 'cf', BLOOMFILTER => 'ROWCOL', IN_MEMORY => 'false', VERSIONS => '3', "
        "KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'PREFIX', COMPRESSION => 'ZSTD', "
        "TTL => '86400 SECONDS (1 DAY)', MIN_VERSIONS => '0', BLOCKCACHE => 'true', "
        "BLOCKSIZE => '65536 B (64KB)', REPLICATION_SCOPE => '0'}\n"
        "{NAME => 'x', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '1', "
        "KEEP_DELETED_CELLS => 'TRUE', DATA_BLOCK_ENCODING => 'PREFIX', COMPRESSION => 'NONE', "
        "TTL => 'FOREVER', MIN_VERSIONS => '0', BLOCKCACHE => 'true', "
        "BLOCKSIZE => '16384 B (16KB)', REPLICATION_SCOPE => '0'}\n"
        "2 row(s)\n"
        "Took X seconds\n"
        "TABLE\n"
        "app:users\n"
        "hex\n"
        "plain\n"
        "3 row(s)\n"
        "Took X seconds\n"
        "TABLE\n"
        "app:users\n"
        "1 row(s)\n"
        "Took X seconds\n"
        "TABLE\n"
        "0 row(s)\n"
        "Took X seconds\n"
        "Table plain does exist\n"
        "Took X seconds\n"
        "Table nope does not exist\n"
        "Took X seconds\n"
        "true\n"
        "Took X seconds\n"
        "false\n"
        "Took X seconds\n"
        "NAMESPACE\n"
        "app\n"
        "default\n"
        "strata\n"
        "3 row(s)\n"
        "Took X seconds\n"
        "NAMESPACE\n"
        "app\n"
        "1 row(s)\n"
        "Took X seconds\n"
        "TABLE\n"
        "users\n"
        "1 row(s)\n"
        "Took X seconds\n"
        "DESCRIPTION\n"
        "{NAME => 'app'}\n"
        "Took X seconds\n");
    /* The splits: SPLITS gave 3 regions, NUMREGIONS 4 HexStringSplit ones. */
    result r = sh("list_regions 'app:users', {}, ['START_KEY', 'END_KEY']\n"
                  "list_regions 'hex', '', ['start_key']\n");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "  START_KEY |    END_KEY |\n"
                                  " ---------- | ---------- |\n"
                                  "            |          g |\n"
                                  "          g |          p |\n"
                                  "          p |            |\n"
                                  " 3 rows\n"));
    assert_non_null(strstr(r.out, "  START_KEY |\n ---------- |\n            |\n   3fffffff |\n"
                                  "   7ffffffe |\n   bffffffd |\n 4 rows\n"));
    result_free(&r);
    expect(
        "create_namespace 'tmpns'\ndrop_namespace 'tmpns'\nlist_namespace 'tmp.*'\n"
        "desc 'plain'\n",
        "Took X seconds\n"
        "Took X seconds\n"
        "NAMESPACE\n"
        "0 row(s)\n"
        "Took X seconds\n"
        "Table plain is ENABLED\n"
        "plain\n"
        "COLUMN FAMILIES DESCRIPTION\n"
        "{NAME => 'f1', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '1', "
        "KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'PREFIX', COMPRESSION => 'NONE', "
        "TTL => 'FOREVER', MIN_VERSIONS => '0', BLOCKCACHE => 'true', "
        "BLOCKSIZE => '65536 B (64KB)', REPLICATION_SCOPE => '0'}\n"
        "{NAME => 'f2', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '1', "
        "KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'PREFIX', COMPRESSION => 'NONE', "
        "TTL => 'FOREVER', MIN_VERSIONS => '0', BLOCKCACHE => 'true', "
        "BLOCKSIZE => '65536 B (64KB)', REPLICATION_SCOPE => '0'}\n"
        "2 row(s)\n"
        "Took X seconds\n");
    expect_fail("create 'plain', 'f'\n", "Table already exists: plain!");
    expect_fail("create 'nons:t', 'f'\n", "Unknown namespace nons!");
    expect_fail("create 'nofam'\n", "Table must have at least one column family");
    expect_fail("create 't9', {NAME => 'f', COMPRESSION => 'LZO'}\n",
                "Compression 'LZO' is not supported. Use one of NONE ZSTD");
    expect_fail("create 't9', 'f', {NUMREGIONS => 4}\n", "Split algorithm must be specified");
    expect_fail("create_namespace 'app'\n", "Namespace app already exists!");
    expect_fail("describe_namespace 'nons'\n", "Unknown namespace nons!");
    expect_fail("drop_namespace 'app'\n", "still has 1 table(s)");
    expect_fail("is_enabled 'nope'\n", "Unknown table nope!");
    expect_fail("describe 'nope'\n", "Table nope does not exist.");
}

/* ---- data ---- */

static void test_put_get_scan_output(void **state)
{
    (void)state;
    expect("create 'd', {NAME => 'cf', VERSIONS => 3}, 'meta'\n"
           "put 'd', 'r1', 'cf:a', 'v1', 100\n"
           "put 'd', 'r1', 'cf:a', 'v2', 200\n"
           "put 'd', 'r1', 'cf:b', \"\\x00\\x01\\xff\\\\end\", 100\n"
           "put 'd', \"bin\\x00\\x7f\", \"cf:q\\x09\", 'tab', 100\n"
           "put 'd', 'r2', 'meta:m', 42, 150\n"
           "put 'd', 'r3', 'cf:a', 'now'\n"
           "scan 'd'\n"
           "get 'd', 'r1'\n"
           "get 'd', 'r1', 'cf:a'\n"
           "get 'd', 'r1', {COLUMN => 'cf:a', VERSIONS => 3}\n"
           "get 'd', 'r1', {COLUMN => ['cf:a', 'cf:b'], TIMERANGE => [50, 150]}\n"
           "get 'd', 'r1', {TIMESTAMP => 200}\n"
           "get 'd', 'r1', 'cf:b', 'meta'\n"
           "get 'd', 'r1', {MAXLENGTH => 16}\n"
           "get 'd', 'none'\n",
           "Created table d\nTook X seconds\n"
           "Took X seconds\nTook X seconds\nTook X seconds\nTook X seconds\nTook X seconds\n"
           "Took X seconds\n"
           "ROW  COLUMN+CELL\n"
           " bin\\x00\\x7F column=cf:q\\x09, timestamp=100, value=tab\n"
           " r1 column=cf:a, timestamp=200, value=v2\n"
           " r1 column=cf:b, timestamp=100, value=\\x00\\x01\\xFF\\x5Cend\n"
           " r2 column=meta:m, timestamp=150, value=42\n"
           " r3 column=cf:a, timestamp=T, value=now\n"
           "4 row(s)\n"
           "Took X seconds\n"
           "COLUMN  CELL\n"
           " cf:a timestamp=200, value=v2\n"
           " cf:b timestamp=100, value=\\x00\\x01\\xFF\\x5Cend\n"
           "1 row(s)\n"
           "Took X seconds\n"
           "COLUMN  CELL\n"
           " cf:a timestamp=200, value=v2\n"
           "1 row(s)\n"
           "Took X seconds\n"
           "COLUMN  CELL\n"
           " cf:a timestamp=200, value=v2\n"
           " cf:a timestamp=100, value=v1\n"
           "1 row(s)\n"
           "Took X seconds\n"
           "COLUMN  CELL\n"
           " cf:a timestamp=100, value=v1\n"
           " cf:b timestamp=100, value=\\x00\\x01\\xFF\\x5Cend\n"
           "1 row(s)\n"
           "Took X seconds\n"
           "COLUMN  CELL\n"
           " cf:a timestamp=200, value=v2\n"
           "1 row(s)\n"
           "Took X seconds\n"
           "COLUMN  CELL\n"
           " cf:b timestamp=100, value=\\x00\\x01\\xFF\\x5Cend\n"
           "1 row(s)\n"
           "Took X seconds\n"
           "COLUMN  CELL\n"
           " cf:a timestamp=200, v\n"
           " cf:b timestamp=100, v\n"
           "1 row(s)\n"
           "Took X seconds\n"
           "COLUMN  CELL\n"
           "0 row(s)\n"
           "Took X seconds\n");
}

static void test_scan_options_and_filters(void **state)
{
    (void)state;
    expect("create 's', {NAME => 'cf', VERSIONS => 2}, 'g'\n"
           "put 's', 'a1', 'cf:n', 'ann', 10\n"
           "put 's', 'a2', 'cf:n', 'x', 10\n"
           "put 's', 'b1', 'cf:n', 'bob', 10\n"
           "put 's', 'b1', 'cf:n', 'bobby', 20\n"
           "put 's', 'b1', 'g:z', 'x', 10\n"
           "put 's', 'u1', 'cf:n', 'x', 10\n"
           "put 's', 'u1', 'g:z', 'y', 10\n",
           "Created table s\nTook X seconds\nTook X seconds\nTook X seconds\nTook X seconds\n"
           "Took X seconds\n"
           "Took X seconds\nTook X seconds\nTook X seconds\n");
    expect(
        "scan 's', {STARTROW => 'a2', STOPROW => 'u1'}\n"
        "scan 's', {LIMIT => 2}\n"
        "scan 's', {REVERSED => true, LIMIT => 2}\n"
        "scan 's', {COLUMNS => ['g']}\n"
        "scan 's', {COLUMNS => 'cf:n', VERSIONS => 2, ROWPREFIXFILTER => 'b'}\n"
        "scan 's', {TIMERANGE => [15, 30]}\n"
        "scan 's', {FILTER => \"PrefixFilter('u1') AND ValueFilter(=, 'binary:x')\"}\n"
        "scan 's', {FILTER => \"ValueFilter(=, 'substring:obb') OR RowFilter(=, 'binary:a1')\"}\n"
        "scan 's', {FILTER => \"KeyOnlyFilter()\", STARTROW => 'u'}\n"
        "get 's', 'b1', {FILTER => \"QualifierFilter(=, 'binary:z')\"}\n",
        "ROW  COLUMN+CELL\n"
        " a2 column=cf:n, timestamp=10, value=x\n"
        " b1 column=cf:n, timestamp=20, value=bobby\n"
        " b1 column=g:z, timestamp=10, value=x\n"
        "2 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " a1 column=cf:n, timestamp=10, value=ann\n"
        " a2 column=cf:n, timestamp=10, value=x\n"
        "2 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " u1 column=cf:n, timestamp=10, value=x\n"
        " u1 column=g:z, timestamp=10, value=y\n"
        " b1 column=cf:n, timestamp=20, value=bobby\n"
        " b1 column=g:z, timestamp=10, value=x\n"
        "2 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " b1 column=g:z, timestamp=10, value=x\n"
        " u1 column=g:z, timestamp=10, value=y\n"
        "2 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " b1 column=cf:n, timestamp=20, value=bobby\n"
        " b1 column=cf:n, timestamp=10, value=bob\n"
        "1 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " b1 column=cf:n, timestamp=20, value=bobby\n"
        "1 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " u1 column=cf:n, timestamp=10, value=x\n"
        "1 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " a1 column=cf:n, timestamp=10, value=ann\n"
        " b1 column=cf:n, timestamp=20, value=bobby\n"
        "2 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " u1 column=cf:n, timestamp=10, value=\n"
        " u1 column=g:z, timestamp=10, value=\n"
        "1 row(s)\n"
        "Took X seconds\n"
        "COLUMN  CELL\n"
        " g:z timestamp=10, value=x\n"
        "1 row(s)\n"
        "Took X seconds\n");
    expect_fail("scan 's', {FILTER => \"NoSuchFilter('x')\"}\n", "unknown filter 'NoSuchFilter'");
    expect_fail("scan 's', {BOGUS => 1}\n", "Unknown argument BOGUS for scan");
    expect_fail("scan 's', {TIMERANGE => [5]}\n", "TIMERANGE must be [min_stamp, max_stamp]");
}

static void test_counters_append_delete_count(void **state)
{
    (void)state;
    expect("create 'c', 'cf', 'g'\n"
           "incr 'c', 'r', 'cf:n'\n"
           "incr 'c', 'r', 'cf:n', 10\n"
           "incr 'c', 'r', 'cf:n', -3\n"
           "get_counter 'c', 'r', 'cf:n'\n"
           "get_counter 'c', 'r', 'cf:none'\n"
           "get 'c', 'r'\n"
           "append 'c', 'r', 'cf:s', 'ab'\n"
           "append 'c', 'r', 'cf:s', \"\\x01\"\n"
           "put 'c', 'r', 'g:k', 'v', 10\n"
           "put 'c', 'r2', 'cf:a', 'v', 10\n"
           "put 'c', 'r2', 'cf:b', 'v', 10\n"
           "put 'c', 'r2', 'g:k', 'v', 10\n"
           "put 'c', 'r3', 'cf:a', 'v', 10\n"
           "count 'c'\n"
           "delete 'c', 'r2', 'cf:a'\n"
           "deleteall 'c', 'r2', 'g'\n"
           "deleteall 'c', 'r3'\n"
           "scan 'c', {COLUMNS => ['cf:a', 'cf:b', 'g']}\n"
           "count 'c', INTERVAL => 1\n",
           "Created table c\nTook X seconds\n"
           "COUNTER VALUE = 1\nTook X seconds\n"
           "COUNTER VALUE = 11\nTook X seconds\n"
           "COUNTER VALUE = 8\nTook X seconds\n"
           "COUNTER VALUE = 8\nTook X seconds\n"
           "No counter found at specified coordinates\nTook X seconds\n"
           "COLUMN  CELL\n"
           " cf:n timestamp=T, value=\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x08\n"
           "1 row(s)\n"
           "Took X seconds\n"
           "CURRENT VALUE = ab\nTook X seconds\n"
           "CURRENT VALUE = ab\\x01\nTook X seconds\n"
           "Took X seconds\nTook X seconds\nTook X seconds\nTook X seconds\nTook X seconds\n"
           "3 row(s)\n"
           "Took X seconds\n"
           "Took X seconds\nTook X seconds\nTook X seconds\n"
           "ROW  COLUMN+CELL\n"
           " r column=g:k, timestamp=10, value=v\n"
           " r2 column=cf:b, timestamp=10, value=v\n"
           "2 row(s)\n"
           "Took X seconds\n"
           "Current count: 1, row: r\n"
           "Current count: 2, row: r2\n"
           "2 row(s)\n"
           "Took X seconds\n");
    /* A row delete at a timestamp removes every family's cells up to it, not later ones. */
    expect("put 'c', 'r4', 'cf:a', 'old', 5\nput 'c', 'r4', 'g:k', 'new', 50\n"
           "deleteall 'c', 'r4', nil, 20\nget 'c', 'r4'\n",
           "Took X seconds\nTook X seconds\nTook X seconds\nCOLUMN  CELL\n"
           " g:k timestamp=50, value=new\n1 row(s)\nTook X seconds\n");
    expect_fail("get_counter 'c', 'r', 'cf:s'\n", "not an 8-byte counter");
    expect_fail("incr 'c', 'r', 'cf'\n",
                "Failed to provide both column family and column qualifier for incr");
    expect_fail("incr 'c', 'r', 'cf:n', 'x'\n", "Increment must be an integer");
}

/* ---- alter, state, truncate ---- */

static void test_alter_state_truncate(void **state)
{
    (void)state;
    expect(
        "create 'al', 'f1', 'f2'\n"
        "alter 'al', NAME => 'f1', VERSIONS => 5\n"
        "alter 'al', 'f3'\n"
        "alter 'al', 'delete' => 'f2'\n"
        "alter 'al', METHOD => 'delete', NAME => 'f3'\n"
        "alter 'al', {NAME => 'f4', TTL => 90061}, MAX_FILESIZE => '134217728', DURABILITY => "
        "'ASYNC_WAL'\n"
        "describe 'al'\n",
        "Created table al\n"
        "Took X seconds\n"
        "Updating all regions with the new schema...\n"
        "1/1 regions updated.\n"
        "Done.\n"
        "Took X seconds\n"
        "Updating all regions with the new schema...\n"
        "1/1 regions updated.\n"
        "Done.\n"
        "Took X seconds\n"
        "Updating all regions with the new schema...\n"
        "1/1 regions updated.\n"
        "Done.\n"
        "Took X seconds\n"
        "Updating all regions with the new schema...\n"
        "1/1 regions updated.\n"
        "Done.\n"
        "Took X seconds\n"
        "Updating all regions with the new schema...\n"
        "1/1 regions updated.\n"
        "Done.\n"
        "Took X seconds\n"
        "Table al is ENABLED\n"
        "al, {TABLE_ATTRIBUTES => {DURABILITY => 'ASYNC_WAL', MAX_FILESIZE => '134217728'}}\n"
        "COLUMN FAMILIES DESCRIPTION\n"
        "{NAME => 'f1', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '5', "
        "KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'PREFIX', COMPRESSION => 'NONE', "
        "TTL => 'FOREVER', MIN_VERSIONS => '0', BLOCKCACHE => 'true', "
        "BLOCKSIZE => '65536 B (64KB)', REPLICATION_SCOPE => '0'}\n"
        "{NAME => 'f4', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '1', "
        "KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'PREFIX', COMPRESSION => 'NONE', "
        "TTL => '90061 SECONDS (1 DAY 1 HOUR 1 MINUTE 1 SECOND)', MIN_VERSIONS => '0', "
        "BLOCKCACHE => 'true', BLOCKSIZE => '65536 B (64KB)', REPLICATION_SCOPE => '0'}\n"
        "2 row(s)\n"
        "Took X seconds\n");
    expect_fail("alter 'al', 'delete' => 'nosuch'\n",
                "Family 'nosuch' does not exist in table al, so it cannot be deleted");
    expect_fail("alter 'al', METHOD => 'delete', NAME => 'zz'\n", "Family 'zz' does not exist");
    expect_fail("alter 'nope', NAME => 'f'\n", "Can't find a table: nope");
    expect_fail("alter 'al', METHOD => 'bogus'\n", "Unknown method: bogus");

    /* disable is idempotent; data commands on a disabled table fail at once; drop needs it. */
    uint64_t t0 = clock_mono_ns();
    expect_fail("put 'al', 'r', 'f1:a', 'v'\ndrop 'al'\n",
                "Table al is enabled. Disable it first.");
    result r = expect_fail_keep(
        "disable 'al'\ndisable 'al'\nis_disabled 'al'\nput 'al', 'r', 'f1:a', 'v'\n",
        "al is disabled.");
    assert_string_equal(r.out, "Took X seconds\nTook X seconds\ntrue\nTook X seconds\n");
    result_free(&r);
    expect_fail("get 'al', 'r'\n", "al is disabled.");
    expect_fail("scan 'al'\n", "al is disabled.");
    assert_true(clock_mono_ns() - t0 < 10000000000ull);
    expect("enable 'al'\nenable 'al'\nget 'al', 'r'\n",
           "Took X seconds\nTook X seconds\nCOLUMN  CELL\n"
           " f1:a timestamp=T, value=v\n1 row(s)\nTook X seconds\n");

    /* truncate keeps nothing and one region; truncate_preserve keeps the splits. */
    expect("create 'tr', 'f', SPLITS => ['m']\n"
           "put 'tr', 'a', 'f:q', 'v'\n"
           "put 'tr', 'z', 'f:q', 'v'\n"
           "truncate_preserve 'tr'\n"
           "count 'tr'\n"
           "put 'tr', 'a', 'f:q', 'v'\n"
           "truncate 'tr'\n"
           "scan 'tr'\n"
           "disable 'tr'\n"
           "truncate 'tr'\n"
           "is_enabled 'tr'\n",
           "Created table tr\nTook X seconds\nTook X seconds\nTook X seconds\n"
           "Truncating 'tr' table (it may take a while):\nDisabling table...\nTruncating table...\n"
           "Took X seconds\n"
           "0 row(s)\nTook X seconds\n"
           "Took X seconds\n"
           "Truncating 'tr' table (it may take a while):\nDisabling table...\nTruncating table...\n"
           "Took X seconds\n"
           "ROW  COLUMN+CELL\n0 row(s)\nTook X seconds\n"
           "Took X seconds\n"
           "Truncating 'tr' table (it may take a while):\nTruncating table...\nTook X seconds\n"
           "true\nTook X seconds\n");
    r = sh("list_regions 'tr', {}, ['START_KEY']\n");
    assert_non_null(strstr(r.out, " 1 rows\n"));
    result_free(&r);
    expect("disable 'tr'\ndrop 'tr'\nexists 'tr'\n",
           "Took X seconds\nTook X seconds\nTable tr does not exist\nTook X seconds\n");
    expect_fail("drop 'tr'\n", "Table tr does not exist.");
    expect_fail("truncate 'tr'\n", "Unknown table tr!");
}

/* ---- split policies, table values and configuration ---- */

#define SP_FAMILY                                                                                  \
    "COLUMN FAMILIES DESCRIPTION\n"                                                                \
    "{NAME => 'f', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '1', "                  \
    "KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'PREFIX', COMPRESSION => 'NONE', "      \
    "TTL => 'FOREVER', MIN_VERSIONS => '0', BLOCKCACHE => 'true', "                                \
    "BLOCKSIZE => '65536 B (64KB)', REPLICATION_SCOPE => '0'}\n"                                   \
    "1 row(s)\n"                                                                                   \
    "Took X seconds\n"
#define SP_ALTERED                                                                                 \
    "Updating all regions with the new schema...\n1/1 regions updated.\nDone.\nTook X seconds\n"

static void test_split_policy_and_table_values(void **state)
{
    (void)state;
    expect("create 'sp', 'f', SPLIT_POLICY => 'ConstantSizeRegionSplitPolicy', MAX_FILESIZE => "
           "1048576, NORMALIZATION_ENABLED => true, METADATA => "
           "{'KeyPrefixRegionSplitPolicy.prefix_length' => 3, 'owner.note' => 'a\\x01b'}, "
           "CONFIGURATION => {'hbase.hregion.max.filesize.jitter' => '0'}\n"
           "describe 'sp'\n",
           "Created table sp\nTook X seconds\n"
           "Table sp is ENABLED\n"
           "sp, {TABLE_ATTRIBUTES => {MAX_FILESIZE => '1048576', METADATA => "
           "{'KeyPrefixRegionSplitPolicy.prefix_length' => '3', 'NORMALIZATION_ENABLED' => "
           "'true', 'SPLIT_POLICY' => 'ConstantSizeRegionSplitPolicy', 'owner.note' => "
           "'a\\x5Cx01b'}}, CONFIGURATION => {'hbase.hregion.max.filesize.jitter' => "
           "'0'}}\n" SP_FAMILY);
    expect("alter 'sp', SPLIT_POLICY => "
           "'org.apache.hadoop.hbase.regionserver.KeyPrefixRegionSplitPolicy', METADATA => "
           "{'KeyPrefixRegionSplitPolicy.prefix_length' => '2'}\n"
           "alter 'sp', METHOD => 'table_att_unset', NAME => ['NORMALIZATION_ENABLED', "
           "'owner.note', 'MAX_FILESIZE']\n"
           "alter 'sp', METHOD => 'table_conf_unset', NAME => 'hbase.hregion.max.filesize.jitter'\n"
           "alter 'sp', CONFIGURATION => {'hbase.increasing.policy.initial.size' => 1000000}\n"
           "describe 'sp'\n",
           SP_ALTERED SP_ALTERED SP_ALTERED SP_ALTERED
           "Table sp is ENABLED\n"
           "sp, {TABLE_ATTRIBUTES => {METADATA => {'KeyPrefixRegionSplitPolicy.prefix_length' => "
           "'2', 'SPLIT_POLICY' => "
           "'org.apache.hadoop.hbase.regionserver.KeyPrefixRegionSplitPolicy'}}, CONFIGURATION => "
           "{'hbase.increasing.policy.initial.size' => '1000000'}}\n" SP_FAMILY);
    /* Only configuration: no TABLE_ATTRIBUTES; nothing left: the bare name. */
    expect(
        "alter 'sp', METHOD => 'table_att_unset', NAME => ['SPLIT_POLICY', "
        "'KeyPrefixRegionSplitPolicy.prefix_length']\n"
        "describe 'sp'\n"
        "alter 'sp', METHOD => 'table_conf_unset', NAME => "
        "['hbase.increasing.policy.initial.size']\n"
        "describe 'sp'\n",
        SP_ALTERED
        "Table sp is ENABLED\n"
        "sp, {CONFIGURATION => {'hbase.increasing.policy.initial.size' => '1000000'}}\n" SP_FAMILY
            SP_ALTERED "Table sp is ENABLED\nsp\n" SP_FAMILY);

    /* Refused with one error line, nothing created. */
    expect_fail("create 'bad', 'f', SPLIT_POLICY => 'NoSuchSplitPolicy'\n",
                "table 'default:bad': unknown SPLIT_POLICY 'NoSuchSplitPolicy'; use one of "
                "SteppingSplitPolicy, IncreasingToUpperBoundRegionSplitPolicy");
    expect_fail("create 'bad', 'f', METADATA => {'KeyPrefixRegionSplitPolicy.prefix_length' => "
                "'abc'}\n",
                "METADATA KeyPrefixRegionSplitPolicy.prefix_length 'abc' must be an integer");
    expect_fail("create 'bad', 'f', SPLIT_POLICY => 'KeyPrefixRegionSplitPolicy', METADATA => "
                "{'KeyPrefixRegionSplitPolicy.prefix_length' => -3}\n",
                "prefix_length '-3'");
    expect_fail("create 'bad', 'f', SPLIT_POLICY => 'DelimitedKeyPrefixRegionSplitPolicy'\n",
                "needs a non-empty DelimitedKeyPrefixRegionSplitPolicy.delimiter");
    expect_fail("create 'bad', 'f', CONFIGURATION => {'hbase.hregion.max.filesize.jitter' => "
                "'lots'}\n",
                "CONFIGURATION hbase.hregion.max.filesize.jitter 'lots' must be a number 0..1");
    expect_fail("create 'bad', 'f', NORMALIZATION_ENABLED => 'maybe'\n",
                "NORMALIZATION_ENABLED must be true or false");
    expect_fail("create 'bad', 'f', METADATA => {'NORMALIZATION_ENABLED' => 'maybe'}\n",
                "NORMALIZATION_ENABLED 'maybe' must be true or false");
    expect_fail("create 'bad', 'f', METADATA => 'x'\n", "METADATA must be a Hash type");
    expect_fail("create 'bad', 'f', SPLIT_POLICY => 3\n", "SPLIT_POLICY must be a String");
    expect("exists 'bad'\n", "Table bad does not exist\nTook X seconds\n");

    /* A bad alter changes nothing. */
    expect("alter 'sp', SPLIT_POLICY => 'DelimitedKeyPrefixRegionSplitPolicy', METADATA => "
           "{'DelimitedKeyPrefixRegionSplitPolicy.delimiter' => ','}\n",
           SP_ALTERED);
    expect_fail("alter 'sp', SPLIT_POLICY => 'Bogus'\n", "unknown SPLIT_POLICY 'Bogus'");
    expect_fail("alter 'sp', METADATA => {'DelimitedKeyPrefixRegionSplitPolicy.delimiter' => ''}\n",
                "needs a non-empty DelimitedKeyPrefixRegionSplitPolicy.delimiter");
    expect_fail("alter 'sp', METHOD => 'table_att_unset', NAME => "
                "'DelimitedKeyPrefixRegionSplitPolicy.delimiter'\n",
                "needs a non-empty");
    expect_fail("alter 'sp', CONFIGURATION => {'hbase.hregion.max.filesize.jitter' => '5'}\n",
                "hbase.hregion.max.filesize.jitter '5' must be a number 0..1");
    expect_fail("alter 'sp', METHOD => 'table_att_unset', NAME => 'NOPE'\n",
                "Could not find attribute: NOPE");
    expect_fail("alter 'sp', METHOD => 'table_conf_unset', NAME => 'NOPE'\n",
                "Could not find configuration: NOPE");
    expect_fail("alter 'sp', METHOD => 'table_att_unset'\n",
                "NAME parameter missing for table_att_unset method");
    expect("describe 'sp'\n",
           "Table sp is ENABLED\n"
           "sp, {TABLE_ATTRIBUTES => {METADATA => {'DelimitedKeyPrefixRegionSplitPolicy.delimiter' "
           "=> ',', 'SPLIT_POLICY' => 'DelimitedKeyPrefixRegionSplitPolicy'}}}\n" SP_FAMILY);
}

/* ---- tools ---- */

/* The encoded name of the region of table holding row, and its host:port. */
static void locate(const char *table, const char *row, char *enc, size_t ecap, char *host,
                   size_t hcap)
{
    char script[200];
    snprintf(script, sizeof(script), "locate_region '%s', '%s'\n", table, row);
    result r = sh(script);
    assert_int_equal(r.status, 0);
    const char *line = strstr(r.out, "\n ");
    assert_non_null(line);
    const char *e = strstr(line, "{ENCODED => ");
    assert_non_null(e);
    assert_true(sscanf(line + 2, "%99s", host) == 1);
    assert_true(strlen(host) < hcap);
    snprintf(enc, ecap, "%.*s", (int)strcspn(e + 12, ","), e + 12);
    result_free(&r);
}

static void test_admin_tools_and_status(void **state)
{
    (void)state;
    expect("create 'tools', 'f', SPLITS => ['m']\n"
           "put 'tools', 'a', 'f:q', 'v'\n"
           "flush 'tools'\n"
           "compact 'tools'\n"
           "major_compact 'tools'\n",
           "Created table tools\nTook X seconds\nTook X seconds\nTook X seconds\nTook X "
           "seconds\nTook X seconds\n");
    char enc[100], host[100], enc2[100], host2[100], script[600];
    locate("tools", "a", enc, sizeof(enc), host, sizeof(host));
    result r = sh("locate_region 'tools', 'x'\n");
    assert_non_null(strstr(r.out, "HOST  REGION\n 127.0.0.1:"));
    assert_non_null(strstr(r.out, ", NAME => 'tools,m,"));
    assert_non_null(strstr(r.out, "STARTKEY => 'm', ENDKEY => ''}\n1 row(s)\nTook X seconds\n"));
    result_free(&r);

    /* move to the other server: the region's location changes, its data stays. */
    r = sh("status 'simple'\n");
    assert_int_equal(r.status, 0);
    char other[200] = "";
    for (const char *p = strstr(r.out, "live servers\n"); p && (p = strstr(p, "\n    ")); p += 5) {
        char h[100];
        unsigned long long code;
        unsigned port;
        if (sscanf(p + 5, "%99[^:]:%u %llu", h, &port, &code) == 3) {
            char hp[140];
            snprintf(hp, sizeof(hp), "%s:%u", h, port);
            if (strcmp(hp, host) != 0)
                snprintf(other, sizeof(other), "%s,%u,%llu", h, port, code);
        }
    }
    assert_true(other[0]);
    result_free(&r);
    snprintf(script, sizeof(script), "flush '%s'\ncompact '%s'\nmove '%s', '%s'\n", enc, enc, enc,
             other);
    expect(script, "Took X seconds\nTook X seconds\nTook X seconds\n");
    locate("tools", "a", enc2, sizeof(enc2), host2, sizeof(host2));
    assert_string_equal(enc2, enc);
    assert_string_not_equal(host2, host);
    snprintf(script, sizeof(script), "unassign '%s'\nassign '%s'\nget 'tools', 'a'\n", enc, enc);
    expect(script, "Took X seconds\nTook X seconds\nCOLUMN  CELL\n f:q timestamp=T, value=v\n"
                   "1 row(s)\nTook X seconds\n");
    expect_fail("move 'nosuchregion'\n", "Unknown region nosuchregion!");
    expect_fail("flush 'nosuchtable'\n", "Unknown table or region nosuchtable!");

    r = sh("status\nstatus 'summary'\nstatus 'detailed'\nlist_regions 'tools'\n");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "1 active master, 0 backup masters, 2 servers, 0 dead, "));
    assert_non_null(strstr(r.out, " average load\nTook X seconds\n"));
    assert_non_null(
        strstr(r.out, "version 0.1.0\n0 regionsInTransition\nactive master:  127.0.0.1:"));
    assert_non_null(strstr(r.out, "2 live servers\n    127.0.0.1:"));
    assert_non_null(strstr(r.out, "        requestsPerSecond="));
    assert_non_null(strstr(r.out, "0 dead servers\nTook X seconds\n"));
    assert_non_null(strstr(r.out, " SERVER_NAME |"));
    assert_non_null(
        strstr(r.out, " REGION_NAME |  START_KEY |    END_KEY |  SIZE |   REQ |   LOCALITY |\n"));
    assert_non_null(strstr(r.out, " 2 rows\n"));
    result_free(&r);
    expect_fail("status 'bogus'\n", "unknown status format 'bogus'");
    expect_fail("status 'replication'\n", "Strata has no replication");
}

/* ---- split, merge, switches, procedures ---- */

static void test_split_merge_and_switches(void **state)
{
    (void)state;
    expect("create 'sm', 'f'\n"
           "put 'sm', 'a', 'f:q', '1'\n"
           "put 'sm', 'p', 'f:q', '2'\n"
           "splitormerge_enabled 'SPLIT'\n"
           "split 'sm', 'm'\n",
           "Created table sm\nTook X seconds\nTook X seconds\nTook X seconds\ntrue\n"
           "Took X seconds\nTook X seconds\n");
    char a[100], b[100], host[100], script[600];
    locate("sm", "a", a, sizeof(a), host, sizeof(host));
    locate("sm", "p", b, sizeof(b), host, sizeof(host));
    assert_string_not_equal(a, b);
    expect("get 'sm', 'a'\nget 'sm', 'p'\n",
           "COLUMN  CELL\n f:q timestamp=T, value=1\n1 row(s)\nTook X seconds\n"
           "COLUMN  CELL\n f:q timestamp=T, value=2\n1 row(s)\nTook X seconds\n");
    /* Refusals: one clear line, status 1. */
    snprintf(script, sizeof(script), "split '%s', 'm'\n", b);
    expect_fail(script, "is its start key");
    expect_fail("split 'nosuch'\n", "Unknown table or region nosuch!");
    snprintf(script, sizeof(script), "merge_region '%s', '%s'\n", a, a);
    expect_fail(script, "named twice");
    expect_fail("splitormerge_switch 'BOTH', true\n", "'SPLIT' or 'MERGE'");
    /* Switches print the previous state; off refuses. */
    expect("splitormerge_switch 'MERGE', false\nsplitormerge_enabled 'MERGE'\n",
           "true\nTook X seconds\nfalse\nTook X seconds\n");
    snprintf(script, sizeof(script), "merge_region '%s', '%s'\n", a, b);
    expect_fail(script, "merge switch is off");
    expect("splitormerge_switch 'MERGE', true\n", "false\nTook X seconds\n");
    /* compaction_switch: one row per server. */
    result r = sh("compaction_switch false\ncompaction_switch true\n");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "PREVIOUS_STATE           SERVER\ntrue                     127.0.0.1,"));
    assert_non_null(strstr(r.out, "PREVIOUS_STATE           SERVER\nfalse                    127.0.0.1,"));
    result_free(&r);
    /* Merge them back once compaction rewrote the references. */
    expect("major_compact 'sm'\n", "Took X seconds\n");
    snprintf(script, sizeof(script), "merge_region '%s', '%s'\nget 'sm', 'p'\n", a, b);
    expect(script, "Took X seconds\nCOLUMN  CELL\n f:q timestamp=T, value=2\n1 row(s)\n"
                   "Took X seconds\n");
    r = sh("list_procedures\ncatalogjanitor_enabled\ncatalogjanitor_switch false\n"
           "catalogjanitor_switch true\nnormalizer_enabled\nnormalize\n");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, " Id             Name                        State       "
                                  "Submitted_Time           Last_Update              Parameters\n"));
    assert_non_null(strstr(r.out, "SplitTableRegionProcedure   SUCCESS"));
    assert_non_null(strstr(r.out, "MergeTableRegionsProcedure  SUCCESS"));
    assert_non_null(strstr(r.out, "\"table\" => \"default:sm\""));
    assert_non_null(strstr(r.out, " row(s)\nTook X seconds\ntrue\nTook X seconds\ntrue\n"
                                  "Took X seconds\nfalse\nTook X seconds\ntrue\nTook X seconds\n"
                                  "true\nTook X seconds\n"));
    result_free(&r);
    r = sh("catalogjanitor_run\n");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "\nTook X seconds\n"));
    result_free(&r);
    /* The balancer: off answers false with the reason; a dry run plans; bad options. */
    expect("balance_switch false\nbalancer_enabled\nbalancer\n",
           "Previous balancer state : true\nTook X seconds\nfalse\nTook X seconds\n"
           "Balancer did not run: the balancer switch is off\nfalse\nTook X seconds\n");
    r = sh("balancer 'dry_run'\nbalancer_enabled\n");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "Balancer ran (dry run)\nStochasticLoadBalancer: cost "));
    assert_non_null(strstr(r.out, " 0 done, 0 failed"));
    assert_non_null(strstr(r.out, "\ntrue\nTook X seconds\nfalse\nTook X seconds\n"));
    result_free(&r);
    expect_fail("balancer 'now'\n", "'force' or 'dry_run'");
    expect_fail("balance_switch 'maybe'\n", "switch value");
    r = sh("balance_switch true\nbalancer 'force'\n");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "Previous balancer state : false\nTook X seconds\nBalancer ran\n"));
    assert_non_null(strstr(r.out, "\ntrue\nTook X seconds\n"));
    result_free(&r);
}

/* ---- failures, modes and settings ---- */

static void test_errors_exit_codes_and_modes(void **state)
{
    (void)state;
    expect_fail("create 'e1', 'f'\nput 'e1', 'r1', 'f:a', 'v'\nput 'e1' 'r2'\n"
                "put 'e1', 'r3', 'f:a', 'v'\n",
                "syntax error at line 3, column 10");
    expect("scan 'e1'\n", "ROW  COLUMN+CELL\n r1 column=f:a, timestamp=T, value=v\n1 row(s)\n"
                          "Took X seconds\n"); /* r3 never ran */
    result r = expect_fail_keep("get 'nosuch', 'r'\nput 'e1', 'r4', 'f:a', 'v'\n",
                                "Unknown table nosuch!");
    assert_string_equal(r.out, "");
    result_free(&r);
    expect_fail("frobnicate 'e1'\n", "Unknown command 'frobnicate'");
    expect_fail("put 'e1', 'r', 'zz:a', 'v'\n", "Unknown column family! Valid column names: f:*");
    expect_fail("get 'e1'\n", "wrong number of arguments (given 1, expected 2+)");
    expect_fail("get 'e1', r\n", "undefined local variable or method 'r'");

    /* -e, several commands and ';'; a file script; exit N; comments and blank lines. */
    char args[800], file[300];
    snprintf(args, sizeof(args), "--dir %s -e \"put 'e1', 'r5', 'f:a', 'x'; get 'e1', 'r5'\"",
             tc_dir(cluster));
    r = shell_run(args, NULL);
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "Took X seconds\nCOLUMN  CELL\n f:a timestamp=T, value=x\n"
                               "1 row(s)\nTook X seconds\n");
    result_free(&r);
    snprintf(args, sizeof(args), "--dir %s -e \"exists 'e1'\" -e \"get 'nosuch', 'r'\" -e version",
             tc_dir(cluster));
    r = shell_run(args, NULL);
    assert_int_equal(r.status, 1);
    assert_string_equal(r.out, "Table e1 does exist\nTook X seconds\n");
    assert_string_equal(r.err, "ERROR: Unknown table nosuch!\n");
    result_free(&r);
    snprintf(file, sizeof(file), "%s/script.txt", tmpdir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fputs("# a comment\n\nexists 'e1'   # trailing\nexit 7\nversion\n", f);
    fclose(f);
    snprintf(args, sizeof(args), "--dir %s %s", tc_dir(cluster), file);
    r = shell_run(args, NULL);
    assert_int_equal(r.status, 7);
    assert_string_equal(r.out, "Table e1 does exist\nTook X seconds\n");
    result_free(&r);
    snprintf(args, sizeof(args), "--dir %s %s/missing.txt", tc_dir(cluster), tmpdir);
    r = shell_run(args, NULL);
    assert_int_equal(r.status, 2);
    result_free(&r);
    r = shell_run("--dir /nonexistent/dir -n", "list\n");
    assert_int_equal(r.status, 2);
    assert_non_null(strstr(r.err, "cluster.state"));
    result_free(&r);
}

static void test_unreachable_and_settings(void **state)
{
    (void)state;
    /* Nothing is contacted for commands that need no cluster: fast even if unreachable. */
    uint64_t t0 = clock_mono_ns();
    result r = shell_run("-n --zk.quorum 127.0.0.1:1", "version\nwhoami\nhelp 'scan'\n");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "0.1.0, rUnknown"));
    assert_true(clock_mono_ns() - t0 < 1000000000ull);
    result_free(&r);
    /* The first contact is bounded by the connect timeout. */
    t0 = clock_mono_ns();
    r = shell_run("-n --zk.quorum 127.0.0.1:1 --shell.connect.timeout.ms=1500", "list\nversion\n");
    uint64_t took = clock_mono_ns() - t0;
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "ERROR: cannot reach the cluster (ZooKeeper 127.0.0.1:1, parent "
                                  "/strata) within 1500 ms"));
    assert_true(took < 6000000000ull);
    result_free(&r);
    r = shell_run("-n", "list\n");
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "ERROR: no cluster given"));
    result_free(&r);
    /* Quorum from the environment, and from a config file with a server's keys in it. */
    char args[900], file[300];
    snprintf(args, sizeof(args), "-n --zk.quorum=%s --zk.parent %s", tc_quorum(cluster),
             tc_parent(cluster));
    r = shell_run(args, "exists 'e1'\n");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "Table e1 does exist\nTook X seconds\n");
    result_free(&r);
    snprintf(file, sizeof(file), "%s/shell.conf", tmpdir);
    FILE *f = fopen(file, "w");
    assert_non_null(f);
    fprintf(f,
            "# shared with the servers\nzk.quorum = %s\nmaster.port = 17000\n"
            "shell.admin.timeout.ms = 30000\n",
            tc_quorum(cluster));
    fclose(f);
    snprintf(args, sizeof(args), "-n --config %s", file);
    r = shell_run(args, "exists 'e1'\n");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "Table e1 does exist\nTook X seconds\n");
    result_free(&r);
    char cmd[1200];
    snprintf(cmd, sizeof(cmd),
             "STRATA_ZK_QUORUM=%s %s shell -n -e \"exists 'e1'\" > %s/env.txt 2>&1",
             tc_quorum(cluster), getenv("STRATA_BIN"), tmpdir);
    int st = system(cmd);
    assert_int_equal(WEXITSTATUS(st), 0);
    snprintf(file, sizeof(file), "%s/env.txt", tmpdir);
    char *text = slurp(file);
    assert_non_null(strstr(text, "Table e1 does exist\n"));
    free(text);
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_shell.XXXXXX");
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
    char cmd[400];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* ---- interactive ---- */

/* Runs the shell on a pseudo-terminal with HOME=home, typing input; returns what the
 * terminal showed (malloc'ed). Bounded: 20 s. */
static char *run_on_pty(const char *home, const char *input)
{
    const char *bin = getenv("STRATA_BIN");
    int fd = -1;
    pid_t pid = forkpty(&fd, NULL, NULL, NULL);
    assert_true(pid >= 0);
    if (pid == 0) {
        setenv("HOME", home, 1);
        execl(bin, bin, "shell", "--dir", tc_dir(cluster), (char *)NULL);
        _exit(127);
    }
    size_t cap = 1 << 16, len = 0;
    char *out = calloc(1, cap);
    assert_true(write(fd, input, strlen(input)) == (ssize_t)strlen(input));
    int64_t until = clock_now_ms() + 20000;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, 200);
        if (r > 0) {
            ssize_t n = read(fd, out + len, cap - len - 1);
            if (n <= 0)
                break; /* EIO once the shell has exited */
            len += (size_t)n;
        }
        if (clock_now_ms() > until) {
            proc_signal(pid, SIGKILL);
            break;
        }
    }
    int status = 0;
    proc_wait(pid, PROC_FOREVER, &status);
    close(fd);
    out[len] = 0;
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    return out;
}

static void test_interactive_terminal(void **state)
{
    (void)state;
    char home[300];
    snprintf(home, sizeof(home), "%s/home", tmpdir);
    mkdir(home, 0700);
    char *out = run_on_pty(home, "version\nlist\nexit\n");
    assert_non_null(strstr(out, "Strata Shell"));
    assert_non_null(strstr(out, "strata(main):001:0> "));
    assert_non_null(strstr(out, "strata(main):002:0> "));
    assert_non_null(strstr(out, "TABLE"));
    free(out);
    char hist[400];
    snprintf(hist, sizeof(hist), "%s/.strata_history", home);
    char *h = slurp(hist);
    assert_non_null(strstr(h, "version"));
    assert_non_null(strstr(h, "list"));
    free(h);

    /* stdin not a terminal, no -n: no banner, no prompt */
    char cmd[1200];
    snprintf(cmd, sizeof(cmd), "echo version | HOME=%s %s shell --dir %s 2>&1", home,
             getenv("STRATA_BIN"), tc_dir(cluster));
    FILE *p = popen(cmd, "r");
    char buf[4096];
    size_t n = fread(buf, 1, sizeof(buf) - 1, p);
    buf[n] = 0;
    assert_int_equal(pclose(p), 0);
    assert_null(strstr(buf, "strata(main)"));
    assert_non_null(strstr(buf, "0.1.0"));
}

int main(void)
{
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_shell", "STRATA_BIN is not set (ctest sets it)");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_namespaces_and_ddl),
        cmocka_unit_test(test_put_get_scan_output),
        cmocka_unit_test(test_scan_options_and_filters),
        cmocka_unit_test(test_counters_append_delete_count),
        cmocka_unit_test(test_alter_state_truncate),
        cmocka_unit_test(test_split_policy_and_table_values),
        cmocka_unit_test(test_admin_tools_and_status),
        cmocka_unit_test(test_split_merge_and_switches),
        cmocka_unit_test(test_errors_exit_codes_and_modes),
        cmocka_unit_test(test_unreachable_and_settings),
        cmocka_unit_test(test_interactive_terminal),
    };
    return tu_run_group_tests(tests, setup, teardown);
}
