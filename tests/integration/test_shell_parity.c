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
 *   - the options of put, incr, append, delete and deleteall (TTL, VISIBILITY) refused with
 *     their reason and nothing written, extra arguments refused (ATTRIBUTES are sent:
 *     test_shell_metrics);
 *   - READONLY honoured (every kind of write refused by the regions until alter turns it
 *     off or table_att_unset removes it), the keys HBase has and Strata does not
 *     (REGION_REPLICATION, OWNER, IS_MOB, INDEX_BLOCK_ENCODING, ...) refused with their
 *     reason unless the value is Strata's behaviour anyway;
 *   - family attributes: COMPRESSION SNAPPY, LZ4 and GZ, DATA_BLOCK_ENCODING, IN_MEMORY,
 *     BLOCKCACHE => false, KEEP_DELETED_CELLS => 'TTL', BLOCKSIZE in units, described in
 *     HBase 2's order, and data flushed, altered to another codec and encoding, flushed
 *     again and major compacted reads back whole;
 *   - scan BATCH (a wide row in parts, each counted) and ISOLATION_LEVEL; deleteall by
 *     ROWPREFIXFILTER (a column, a family or whole rows, in batches of CACHE);
 *   - create with TTLs in units ('1 DAY 2 HOURS'), unsorted SPLITS sorted (duplicates and
 *     empty keys refused in HBase's words), SPLITALGO => 'DecimalStringSplit';
 *   - enable_all, disable_all, drop_all: the matching tables, the y/n question answered no
 *     without a terminal unless forced, failures counted and named;
 *   - a maintenance script written in HBase's shell syntax (a namespace with properties,
 *     table references from create, multi-line hashes, formatters, a filter, deleteall
 *     by prefix, alter, flush, major_compact) run unchanged;
 *   - clone_table_schema (with and without the split keys), rit, flush of a region
 *     server and compact_rs;
 *   - flush, compact and major_compact of one column family (of a table and of a region:
 *     only that store's files change), compaction_state, wal_roll (a new WAL file),
 *     alter_async and alter_status;
 *   - status 'tasks': "no active tasks" everywhere when idle, a master procedure listed
 *     while it runs (an alter_async against paused region servers);
 *   - list_liveservers, list_unknownservers, is_in_maintenance_mode, list_enabled_tables,
 *     list_disabled_tables, regioninfo (encoded and full names), close_region;
 *   - show_filters, and the filters HBase's shell lists that came later (ColumnRangeFilter,
 *     ColumnPaginationFilter, InclusiveStopFilter, MultipleColumnPrefixFilter,
 *     SingleColumnValueExcludeFilter, ColumnValueFilter, DependentColumnFilter,
 *     ColumnCountGetFilter, FirstKeyValueMatchingQualifiersFilter), MultiRowRangeFilter,
 *     FuzzyRowFilter, SKIP and WHILE, forward and reversed, through region servers that
 *     seek on their hints;
 *   - commands spanning lines in HBase's syntax (hashes and arrays over several lines,
 *     comments inside, trailing commas), and a syntax error naming its line;
 *   - namespace properties: create_namespace with a dictionary, alter_namespace set and
 *     unset, describe_namespace in HBase's NamespaceDescriptor form;
 *   - errors that name their table or region once;
 *   - dead servers: a region server killed and restarted on the same host and port is
 *     replaced (not dead forever), list_deadservers and clear_deadservers (a name not
 *     listed is not cleared; a dead server is cleared once its recovery is done);
 *   - an unknown command-line flag named as unknown.
 *
 * Needs STRATA_BIN (set by CTest); skipped without it (exit 77).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
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
    ssh_expect_fail("put 'wo', 'r', 'f:t', 'v', {BOGUS => 1}\n", "Unknown argument BOGUS for put");
    ssh_expect_fail("put 'wo', 'r', 'f:t', 'v', 7, 8\n",
                    "put: argument 6 must be a Hash of options, not Integer");
    ssh_expect_fail("put 'wo', 'r', 'f:t', 'v', {TTL => 1}, 8\n",
                    "put: nothing may follow its options hash");
    ssh_expect_fail("incr 'wo', 'r', 'f:c', 1, {TTL => 5}\n", "incr: TTL is not supported");
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

/* ---- schema keys: honoured (READONLY) or refused, never "ignored" ---- */

static void test_readonly_and_refused_keys(void **state)
{
    (void)state;
    ssh_expect("create 'ro', 'f', READONLY => true, REGION_REPLICATION => 1\n"
               "describe 'ro'\n",
               "Created table ro\n"
               "Took X seconds\n"
               "Table ro is ENABLED\n"
               "ro, {TABLE_ATTRIBUTES => {READONLY => 'true'}}\n"
               "COLUMN FAMILIES DESCRIPTION\n"
               "{NAME => 'f', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '1', "
               "KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'PREFIX', "
               "COMPRESSION => 'NONE', TTL => 'FOREVER', MIN_VERSIONS => '0', "
               "BLOCKCACHE => 'true', BLOCKSIZE => '65536 B (64KB)', REPLICATION_SCOPE => '0'}\n"
               "1 row(s)\n"
               "Took X seconds\n");
    /* every kind of write is refused by the region, nothing is stored */
    static const char *const writes[] = {
        "put 'ro', 'r', 'f:a', 'v'\n",
        "incr 'ro', 'r', 'f:c'\n",
        "append 'ro', 'r', 'f:a', 'x'\n",
        "delete 'ro', 'r', 'f:a'\n",
        "deleteall 'ro', 'r'\n",
    };
    for (size_t i = 0; i < sizeof(writes) / sizeof(writes[0]); i++) {
        ssh_result r = ssh_expect_fail_keep(writes[i], "table ro is read-only");
        /* the region is named once, the row after it (no "(region X, row ...)" again) */
        assert_null(strstr(r.err, "(region "));
        assert_non_null(strstr(r.err, "(row 'r')"));
        ssh_result_free(&r);
    }
    ssh_expect("count 'ro'\n", "0 row(s)\nTook X seconds\n");
    /* alter turns it off (the regions reopen with the new schema); writes work again */
    ssh_expect("alter 'ro', READONLY => false\n"
               "put 'ro', 'r', 'f:a', 'v', 3\n"
               "get 'ro', 'r'\n"
               "alter 'ro', READONLY => true\n"
               "alter 'ro', METHOD => 'table_att_unset', NAME => 'READONLY'\n"
               "put 'ro', 'r', 'f:b', 'w', 4\n"
               "describe 'ro'\n",
               "Updating all regions with the new schema...\n"
               "1/1 regions updated.\n"
               "Done.\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "COLUMN  CELL\n"
               " f:a timestamp=3, value=v\n"
               "1 row(s)\n"
               "Took X seconds\n"
               "Updating all regions with the new schema...\n"
               "1/1 regions updated.\n"
               "Done.\n"
               "Took X seconds\n"
               "Updating all regions with the new schema...\n"
               "1/1 regions updated.\n"
               "Done.\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "Table ro is ENABLED\n"
               "ro\n"
               "COLUMN FAMILIES DESCRIPTION\n"
               "{NAME => 'f', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '1', "
               "KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'PREFIX', "
               "COMPRESSION => 'NONE', TTL => 'FOREVER', MIN_VERSIONS => '0', "
               "BLOCKCACHE => 'true', BLOCKSIZE => '65536 B (64KB)', REPLICATION_SCOPE => '0'}\n"
               "1 row(s)\n"
               "Took X seconds\n");
    /* keys HBase has and Strata does not: refused with the reason; nothing is created */
    ssh_expect_fail("create 'rk', 'f', REGION_REPLICATION => 3\n",
                    "REGION_REPLICATION => 3 for table rk is not supported: Strata has no region "
                    "replicas");
    ssh_expect_fail("create 'rk', 'f', OWNER => 'bob'\n",
                    "OWNER => 'bob' for table rk is not supported: Strata has no access control");
    ssh_expect_fail("create 'rk', {NAME => 'f', IS_MOB => true}\n",
                    "IS_MOB => true for column family f is not supported: Strata has no MOB "
                    "storage");
    ssh_expect_fail("create 'rk', {NAME => 'f', INDEX_BLOCK_ENCODING => 'PREFIX_TREE'}\n",
                    "INDEX_BLOCK_ENCODING => 'PREFIX_TREE' for column family f is not supported");
    ssh_expect_fail("alter 'ro', {NAME => 'f', REPLICATION_SCOPE => 1}\n",
                    "REPLICATION_SCOPE => 1 for column family f is not supported: Strata has no "
                    "replication");
    ssh_expect_fail("alter 'ro', COMPACTION_ENABLED => false\n",
                    "COMPACTION_ENABLED => false for table ro is not supported");
    ssh_expect("exists 'rk'\n", "Table rk does not exist\nTook X seconds\n");
    /* the values that are Strata's behaviour anyway are accepted; keys unknown to HBase
     * too keep HBase's warning */
    ssh_expect("create 'rk', {NAME => 'f', BLOCKCACHE => true, IN_MEMORY => 'false', "
               "REPLICATION_SCOPE => 0, FROBNICATE => 1}, COMPACTION_ENABLED => true\n",
               "Unknown argument ignored for column family f: FROBNICATE\n"
               "Created table rk\n"
               "Took X seconds\n");
}

/* ---- family attributes ---- */

static void test_family_attributes(void **state)
{
    (void)state;
    ssh_expect("create 'fa', {NAME => 'a', COMPRESSION => 'SNAPPY', DATA_BLOCK_ENCODING => "
               "'FAST_DIFF', IN_MEMORY => true, BLOCKSIZE => '8KB'},\n"
               "  {NAME => 'b', COMPRESSION => 'lz4', DATA_BLOCK_ENCODING => 'NONE', BLOCKCACHE => "
               "false, KEEP_DELETED_CELLS => 'TTL', TTL => '1 DAY', MIN_VERSIONS => 1},\n"
               "  {NAME => 'c', COMPRESSION => 'GZ', DATA_BLOCK_ENCODING => 'ROW_INDEX_V1', "
               "BLOCKSIZE => '65536 B (64KB)'}\n"
               "describe 'fa'\n",
               "Created table fa\n"
               "Took X seconds\n"
               "Table fa is ENABLED\n"
               "fa\n"
               "COLUMN FAMILIES DESCRIPTION\n"
               "{NAME => 'a', BLOOMFILTER => 'ROW', IN_MEMORY => 'true', VERSIONS => '1', "
               "KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'FAST_DIFF', "
               "COMPRESSION => 'SNAPPY', TTL => 'FOREVER', MIN_VERSIONS => '0', "
               "BLOCKCACHE => 'true', BLOCKSIZE => '8192 B (8KB)', REPLICATION_SCOPE => '0'}\n"
               "{NAME => 'b', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '1', "
               "KEEP_DELETED_CELLS => 'TTL', DATA_BLOCK_ENCODING => 'NONE', "
               "COMPRESSION => 'LZ4', TTL => '86400 SECONDS (1 DAY)', MIN_VERSIONS => '1', "
               "BLOCKCACHE => 'false', BLOCKSIZE => '65536 B (64KB)', REPLICATION_SCOPE => '0'}\n"
               "{NAME => 'c', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '1', "
               "KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'ROW_INDEX_V1', "
               "COMPRESSION => 'GZ', TTL => 'FOREVER', MIN_VERSIONS => '0', "
               "BLOCKCACHE => 'true', BLOCKSIZE => '65536 B (64KB)', REPLICATION_SCOPE => '0'}\n"
               "3 row(s)\n"
               "Took X seconds\n");
    /* data through every codec and block form: written, flushed, re-encoded, compacted */
    char script[4096];
    int n = 0;
    for (int i = 0; i < 40; i++)
        n += snprintf(script + n, sizeof(script) - (size_t)n,
                      "put 'fa', 'row%02d', '%c:q', 'value-%02d-abcabcabcabc', 5\n", i,
                      "abc"[i % 3], i);
    snprintf(script + n, sizeof(script) - (size_t)n,
             "flush 'fa'\n"
             "alter 'fa', {NAME => 'a', COMPRESSION => 'GZ', DATA_BLOCK_ENCODING => 'NONE'}, "
             "{NAME => 'c', COMPRESSION => 'SNAPPY', DATA_BLOCK_ENCODING => 'DIFF'}\n"
             "put 'fa', 'row99', 'a:q', 'late', 6\n"
             "flush 'fa'\n"
             "major_compact 'fa'\n"
             "count 'fa'\n"
             "get 'fa', 'row07'\n"
             "get 'fa', 'row99'\n"
             "get 'fa', 'row38'\n");
    ssh_result r = ssh_run_dir(script);
    if (r.status != 0 || !strstr(r.out, "41 row(s)") ||
        !strstr(r.out, " b:q timestamp=5, value=value-07-abcabcabcabc") ||
        !strstr(r.out, " a:q timestamp=6, value=late") ||
        !strstr(r.out, " c:q timestamp=5, value=value-38-abcabcabcabc"))
        fail_msg("data did not read back (status %d):\n%s\n%s", r.status, r.out, r.err);
    ssh_result_free(&r);
    /* codecs and encodings HBase has and Strata does not: HBase's names, refused */
    ssh_expect_fail("alter 'fa', {NAME => 'a', COMPRESSION => 'LZO'}\n",
                    "Compression 'LZO' is not supported. Use one of NONE ZSTD SNAPPY LZ4 GZ");
    ssh_expect_fail("alter 'fa', {NAME => 'a', DATA_BLOCK_ENCODING => 'PREFIX_TREE'}\n",
                    "DataBlockEncoding 'PREFIX_TREE' is not supported. Use one of NONE PREFIX DIFF "
                    "FAST_DIFF ROW_INDEX_V1");
    ssh_expect_fail("alter 'fa', {NAME => 'a', KEEP_DELETED_CELLS => 'SOMETIMES'}\n",
                    "KEEP_DELETED_CELLS");
    ssh_expect_fail("alter 'fa', {NAME => 'a', BLOCKSIZE => '64 parsecs'}\n",
                    "BLOCKSIZE '64 parsecs' is not a size");
}

/* ---- scan BATCH and ISOLATION_LEVEL, deleteall by prefix ---- */

static void test_batch_isolation_deleteall_prefix(void **state)
{
    (void)state;
    ssh_expect("create 'bt', 'f', 'g'\n"
               "put 'bt', 'a1', 'f:x', '1', 5\n"
               "put 'bt', 'a1', 'f:y', '2', 5\n"
               "put 'bt', 'a1', 'g:z', '3', 5\n"
               "put 'bt', 'a2', 'f:x', '4', 5\n"
               "put 'bt', 'b1', 'f:x', '5', 5\n"
               "scan 'bt', {BATCH => 2, ISOLATION_LEVEL => 'READ_COMMITTED'}\n",
               "Created table bt\n"
               "Took X seconds\nTook X seconds\nTook X seconds\nTook X seconds\n"
               "Took X seconds\nTook X seconds\n"
               "ROW  COLUMN+CELL\n"
               " a1 column=f:x, timestamp=5, value=1\n"
               " a1 column=f:y, timestamp=5, value=2\n"
               " a1 column=g:z, timestamp=5, value=3\n"
               " a2 column=f:x, timestamp=5, value=4\n"
               " b1 column=f:x, timestamp=5, value=5\n"
               "4 row(s)\n" /* as HBase: a wide row in parts, each counted */
               "Took X seconds\n");
    ssh_expect_fail("scan 'bt', {ISOLATION_LEVEL => 'READ_UNCOMMITTED'}\n",
                    "ISOLATION_LEVEL READ_UNCOMMITTED is not supported");
    /* a NUL byte cannot travel in a filter string: refused, not cut short */
    ssh_expect_fail("scan 'bt', {FILTER => \"ValueFilter(=, 'binary:\\x00')\"}\n",
                    "FILTER holds a NUL byte at offset 23");
    /* a family of every row with the prefix, in batches of one; then the rows */
    ssh_expect("deleteall 'bt', {ROWPREFIXFILTER => 'a', CACHE => 1}, 'g'\n"
               "scan 'bt'\n"
               "deleteall 'bt', {ROWPREFIXFILTER => 'a'}\n"
               "scan 'bt'\n"
               "deleteall 'bt', {ROWPREFIXFILTER => 'zzz'}\n",
               "Took X seconds\n"
               "ROW  COLUMN+CELL\n"
               " a1 column=f:x, timestamp=5, value=1\n"
               " a1 column=f:y, timestamp=5, value=2\n"
               " a2 column=f:x, timestamp=5, value=4\n"
               " b1 column=f:x, timestamp=5, value=5\n"
               "3 row(s)\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "ROW  COLUMN+CELL\n"
               " b1 column=f:x, timestamp=5, value=5\n"
               "1 row(s)\n"
               "Took X seconds\n"
               "Took X seconds\n");
    ssh_expect_fail("deleteall 'bt', {ROWPREFIXFILTER => 'a', LIMIT => 3}\n",
                    "Unknown argument LIMIT for deleteall");
    ssh_expect_fail("deleteall 'bt', {CACHE => 3}\n", "takes a row or {ROWPREFIXFILTER");
    ssh_expect_fail("deleteall 'strata:meta', {ROWPREFIXFILTER => 'a'}\n", "strata:meta");
}

/* ---- create: TTL units, split keys sorted, DecimalStringSplit ---- */

static void test_create_forms(void **state)
{
    (void)state;
    ssh_expect("create 'cf1', {NAME => 'f', TTL => '1 DAY 2 HOURS'}, "
               "SPLITS => ['p', 'c', 'k']\n"
               "describe 'cf1'\n"
               "get_splits 'cf1'\n"
               "create 'cf2', 'f', {NUMREGIONS => 4, SPLITALGO => 'DecimalStringSplit'}\n"
               "get_splits 'cf2'\n",
               "Created table cf1\n"
               "Took X seconds\n"
               "Table cf1 is ENABLED\n"
               "cf1\n"
               "COLUMN FAMILIES DESCRIPTION\n"
               "{NAME => 'f', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '1', "
               "KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'PREFIX', "
               "COMPRESSION => 'NONE', TTL => '93600 SECONDS (1 DAY 2 HOURS)', "
               "MIN_VERSIONS => '0', BLOCKCACHE => 'true', BLOCKSIZE => '65536 B (64KB)', "
               "REPLICATION_SCOPE => '0'}\n"
               "1 row(s)\n"
               "Took X seconds\n"
               "Total number of splits = 4\n"
               "c\n"
               "k\n"
               "p\n"
               "Took X seconds\n"
               "Created table cf2\n"
               "Took X seconds\n"
               "Total number of splits = 4\n"
               "25000000\n"
               "50000000\n"
               "75000000\n"
               "Took X seconds\n");
    ssh_expect_fail("create 'cf3', 'f', SPLITS => ['p', 'c', 'p']\n",
                    "All split keys must be unique, found duplicate: p, p");
    ssh_expect_fail("create 'cf3', 'f', SPLITS => ['p', '']\n",
                    "Empty split key must not be passed in the split keys.");
    ssh_expect_fail("create 'cf3', {NAME => 'f', TTL => '3 WEEKS'}\n",
                    "TTL '3 WEEKS' is not seconds, FOREVER or a time");
}

/* ---- enable_all, disable_all, drop_all ---- */

static void test_all_tables_commands(void **state)
{
    (void)state;
    ssh_expect("create 'xa1', 'f'\n"
               "create 'xa2', 'f'\n"
               "disable_all 'xa.*'\n"
               "is_enabled 'xa1'\n"
               "disable_all 'xa.*', true\n"
               "drop_all 'xa.*', true\n"
               "enable_all 'nomatch.*'\n"
               "list 'xa.*'\n",
               "Created table xa1\n"
               "Took X seconds\n"
               "Created table xa2\n"
               "Took X seconds\n"
               "xa1\n"
               "xa2\n"
               "\n"
               "Disable the above 2 tables (y/n)?\n"
               "n (not interactive; pass true to go ahead)\n"
               "Took X seconds\n"
               "true\n"
               "Took X seconds\n"
               "xa1\n"
               "xa2\n"
               "\n"
               "Disable the above 2 tables (y/n)?\n"
               "y (forced)\n"
               "2 tables successfully disabled\n"
               "Took X seconds\n"
               "xa1\n"
               "xa2\n"
               "\n"
               "Drop the above 2 tables (y/n)?\n"
               "y (forced)\n"
               "2 tables successfully dropped\n"
               "Took X seconds\n"
               "No tables matched the regex nomatch.*\n"
               "Took X seconds\n"
               "TABLE\n"
               "0 row(s)\n"
               "Took X seconds\n");
    /* an enabled table cannot be dropped: counted and named, the others go */
    ssh_expect("create 'xb1', 'f'\n"
               "create 'xb2', 'f'\n"
               "disable 'xb1'\n"
               "drop_all 'xb.*', true\n"
               "enable_all 'xb.*', true\n",
               "Created table xb1\n"
               "Took X seconds\n"
               "Created table xb2\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "xb1\n"
               "xb2\n"
               "\n"
               "Drop the above 2 tables (y/n)?\n"
               "y (forced)\n"
               "1 tables successfully dropped\n"
               "1 tables not dropped due to an exception: xb2\n"
               "Took X seconds\n"
               "xb2\n"
               "\n"
               "Enable the above 1 tables (y/n)?\n"
               "y (forced)\n" /* as HBase: an enabled table fails its enable */
               "0 tables successfully enabled\n"
               "1 tables not enabled due to an exception: xb2\n"
               "Took X seconds\n");
}

/* ---- a maintenance script written for HBase's shell, run unchanged ---- */

static void test_hbase_maintenance_script(void **state)
{
    (void)state;
    ssh_expect(
        "# nightly maintenance of the metrics table (HBase shell syntax)\n"
        "create_namespace 'ops', {'owner' => 'sre'}\n"
        "metrics = create 'ops:metrics',\n"
        "  {NAME => 'm', VERSIONS => 3, TTL => '7 DAYS',\n"
        "   BLOOMFILTER => 'ROW', COMPRESSION => 'ZSTD'},\n"
        "  {NAME => 'meta'},\n"
        "  SPLITS => ['m', 'f']\n"
        "\n"
        "metrics.put 'cpu.h1', 'm:v', \"\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x2a\"\n"
        "metrics.put 'cpu.h2', 'm:v', \"\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x07\"\n"
        "metrics.put 'mem.h1', 'm:v', \"\\x00\\x00\\x00\\x00\\x00\\x00\\x01\\x00\"\n"
        "metrics.put 'cpu.h1', 'meta:unit', 'pct'\n"
        "\n"
        "# the cpu series, values as numbers\n"
        "metrics.scan ROWPREFIXFILTER => 'cpu.',\n"
        "             COLUMNS => ['m:v:toLong']\n"
        "\n"
        "# the series measured in percent\n"
        "scan 'ops:metrics', {\n"
        "  FILTER => \"ValueFilter(=, 'binary:pct') AND KeyOnlyFilter()\",\n"
        "  COLUMNS => ['meta']\n"
        "}\n"
        "metrics.count\n"
        "# retire the mem series\n"
        "deleteall 'ops:metrics', {ROWPREFIXFILTER => 'mem.'}\n"
        "metrics.count\n"
        "alter 'ops:metrics', {NAME => 'm', VERSIONS => 5}\n"
        "metrics.flush\n"
        "major_compact 'ops:metrics'\n"
        "describe_namespace 'ops'\n",
        "Took X seconds\n"
        "Created table ops:metrics\n"
        "Took X seconds\n"
        "Took X seconds\n"
        "Took X seconds\n"
        "Took X seconds\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " cpu.h1 column=m:v, timestamp=T, value=42\n"
        " cpu.h2 column=m:v, timestamp=T, value=7\n"
        "2 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " cpu.h1 column=meta:unit, timestamp=T, value=\n"
        "1 row(s)\n"
        "Took X seconds\n"
        "3 row(s)\n"
        "Took X seconds\n"
        "Took X seconds\n"
        "2 row(s)\n"
        "Took X seconds\n"
        "Updating all regions with the new schema...\n"
        "3/3 regions updated.\n"
        "Done.\n"
        "Took X seconds\n"
        "Took X seconds\n"
        "Took X seconds\n"
        "DESCRIPTION\n"
        "{NAME => 'ops', owner => 'sre'}\n"
        "Took X seconds\n");
}

/* ---- clone_table_schema, rit, flush and compact of a region server ---- */

/* The first live server's name, "host,port,startcode", from status 'simple'. */
static void first_server(char *out, size_t cap)
{
    ssh_result r = ssh_run_dir("status 'simple'\n");
    const char *p = strstr(r.out, "live servers\n    ");
    assert_non_null(p);
    char host[64];
    unsigned port = 0;
    unsigned long long sc = 0;
    assert_int_equal(sscanf(p + strlen("live servers\n    "), "%63[^:]:%u %llu", host, &port, &sc),
                     3);
    snprintf(out, cap, "%s,%u,%llu", host, port, sc);
    ssh_result_free(&r);
}

static void test_clone_rit_server_tools(void **state)
{
    (void)state;
    ssh_expect("create 'cs', {NAME => 'f', VERSIONS => 4}, MAX_FILESIZE => 1234567, "
               "SPLITS => ['g', 'p']\n"
               "put 'cs', 'a', 'f:q', 'v'\n"
               "clone_table_schema 'cs', 'cs2'\n"
               "describe 'cs2'\n"
               "get_splits 'cs2'\n"
               "count 'cs2'\n"
               "clone_table_schema 'cs', 'cs3', false\n"
               "get_splits 'cs3'\n"
               "rit\n",
               "Created table cs\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "Table cs2 is ENABLED\n"
               "cs2, {TABLE_ATTRIBUTES => {MAX_FILESIZE => '1234567'}}\n"
               "COLUMN FAMILIES DESCRIPTION\n"
               "{NAME => 'f', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '4', "
               "KEEP_DELETED_CELLS => 'FALSE', DATA_BLOCK_ENCODING => 'PREFIX', "
               "COMPRESSION => 'NONE', TTL => 'FOREVER', MIN_VERSIONS => '0', "
               "BLOCKCACHE => 'true', BLOCKSIZE => '65536 B (64KB)', REPLICATION_SCOPE => '0'}\n"
               "1 row(s)\n"
               "Took X seconds\n"
               "Total number of splits = 3\n"
               "g\n"
               "p\n"
               "Took X seconds\n"
               "0 row(s)\n" /* the schema, not the data */
               "Took X seconds\n"
               "Took X seconds\n"
               "Total number of splits = 1\n"
               "Took X seconds\n"
               "0 row(s)\n"
               "Took X seconds\n");
    ssh_expect_fail("clone_table_schema 'cs', 'cs2'\n", "Table already exists: cs2!");
    ssh_expect_fail("clone_table_schema 'nope', 'cs4'\n", "Unknown table nope!");
    char server[128], script[512];
    first_server(server, sizeof(server));
    snprintf(script, sizeof(script),
             "flush '%s'\ncompact_rs '%s'\ncompact_rs '%s', true\n", server, server, server);
    ssh_expect(script, "Took X seconds\nTook X seconds\nTook X seconds\n");
    ssh_expect_fail("compact_rs '127.0.0.1,1,1'\n", "region server 127.0.0.1,1,1 is not live");
    ssh_expect_fail("flush '127.0.0.1,1,1'\n", "Unknown table or region 127.0.0.1,1,1!");
    ssh_expect("count 'cs'\n", "1 row(s)\nTook X seconds\n");
}

/* The highest WAL file number in the region server's WAL directory (0: none). */
static unsigned long long newest_wal(const char *server)
{
    char dir[512];
    snprintf(dir, sizeof(dir), "%s/root/WALs/%s", tc_dir(cluster), server);
    DIR *d = opendir(dir);
    assert_non_null(d);
    unsigned long long newest = 0, n;
    struct dirent *e;
    while ((e = readdir(d)))
        if (sscanf(e->d_name, "wal.%llu", &n) == 1 && n > newest)
            newest = n;
    closedir(d);
    return newest;
}

/* Waits (up to 20 s) until the region servers' reports, as status 'detailed' prints them,
 * give a region of table fm n store files. */
static void wait_storefiles(int n)
{
    char want[64];
    snprintf(want, sizeof(want), "numberOfStorefiles=%d,", n);
    for (int i = 0; i < 80; i++) {
        ssh_result r = ssh_run_dir("status 'detailed'\n");
        const char *p = strstr(r.out, "\"fm,");
        const char *q = p ? strstr(p, "numberOfStorefiles=") : NULL;
        bool ok = q && strncmp(q, want, strlen(want)) == 0;
        ssh_result_free(&r);
        if (ok)
            return;
        usleep(250 * 1000);
    }
    fail_msg("no report of table fm with %d store files", n);
}

static void test_family_maintenance(void **state)
{
    (void)state;
    /* a family flush writes that family's store only: one store file, then two */
    ssh_expect("create 'fm', 'a', 'b'\n"
               "put 'fm', 'r1', 'a:q', 'x', 5\n"
               "put 'fm', 'r1', 'b:q', 'y', 5\n"
               "flush 'fm', 'a'\n"
               "compaction_state 'fm'\n",
               "Created table fm\nTook X seconds\nTook X seconds\nTook X seconds\n"
               "Took X seconds\nNONE\nTook X seconds\n");
    wait_storefiles(1);
    ssh_expect("flush 'fm', 'b'\nput 'fm', 'r2', 'a:q', 'z', 6\nflush 'fm', 'a'\n",
               "Took X seconds\nTook X seconds\nTook X seconds\n");
    wait_storefiles(3);
    /* a major compaction of family a alone: a's two files become one, b's stays */
    ssh_expect("major_compact 'fm', 'a'\ncompact 'fm', 'b', 'NORMAL'\ncompaction_state 'fm'\n"
               "get 'fm', 'r1'\nget 'fm', 'r2'\n",
               "Took X seconds\nTook X seconds\nNONE\nTook X seconds\n"
               "COLUMN  CELL\n a:q timestamp=5, value=x\n b:q timestamp=5, value=y\n"
               "1 row(s)\nTook X seconds\n"
               "COLUMN  CELL\n a:q timestamp=6, value=z\n1 row(s)\nTook X seconds\n");
    wait_storefiles(2);
    /* the family and its region named, errors in HBase's spirit */
    ssh_expect_fail("flush 'fm', 'zz'\n", "column family zz does not exist in table default:fm");
    ssh_expect_fail("major_compact 'fm', 'zz'\n", "column family zz does not exist");
    ssh_expect_fail("compact 'fm', 'a', 'MOB'\n", "compaction type MOB is not supported");
    ssh_expect_fail("compaction_state 'nope'\n", "Unknown table or region nope!");
    /* a region by its encoded name */
    ssh_result r = ssh_run_dir("list_regions 'fm'\n");
    char enc[64] = "";
    const char *p = strstr(r.out, "fm,,");
    assert_non_null(p);
    assert_int_equal(sscanf(strchr(p, '.') + 1, "%32[0-9a-f]", enc), 1);
    ssh_result_free(&r);
    char script[512];
    snprintf(script, sizeof(script),
             "flush '%s', 'a'\ncompact '%s', 'b'\ncompaction_state '%s'\n", enc, enc, enc);
    ssh_expect(script, "Took X seconds\nTook X seconds\nNONE\nTook X seconds\n");
    /* wal_roll: the server writes a new WAL file */
    char server[128];
    first_server(server, sizeof(server));
    unsigned long long before = newest_wal(server);
    snprintf(script, sizeof(script), "wal_roll '%s'\n", server);
    ssh_expect(script, "Took X seconds\n");
    assert_true(newest_wal(server) > before);
    ssh_expect_fail("wal_roll '127.0.0.1,1,1'\n", "region server 127.0.0.1,1,1 is not live");
    /* alter_async returns before the regions reopen; alter_status follows them to the end */
    r = ssh_run_dir("alter_async 'fm', NAME => 'a', VERSIONS => 3\nalter_status 'fm'\n"
                    "describe 'fm'\n");
    const char *tail = "1/1 regions updated.\nDone.\nTook X seconds\nTable fm is ENABLED\n";
    if (r.status != 0 || strncmp(r.out, "Took X seconds\n", 15) != 0 || !strstr(r.out, tail) ||
        !strstr(r.out, "{NAME => 'a', BLOOMFILTER => 'ROW', IN_MEMORY => 'false', VERSIONS => '3'"))
        fail_msg("alter_async / alter_status:\n%s\n%s", r.out, r.err);
    for (const char *l = r.out + 15; l < strstr(r.out, tail); l = strchr(l, '\n') + 1)
        assert_true(strncmp(l, "0/1 regions updated.\n", 21) == 0);
    ssh_result_free(&r);
    ssh_expect("alter_status 'fm'\n", "1/1 regions updated.\nDone.\nTook X seconds\n");
    ssh_expect_fail("alter_status 'nope'\n", "Can't find a table: nope");
    ssh_expect_fail("alter_async 'nope', NAME => 'a'\n", "Can't find a table: nope");
}

/* status 'tasks': every server with its running tasks or "no active tasks"; a procedure
 * the master runs (an alter_async reopening the regions of servers that are paused) is
 * listed as HBase's ServerTask.toString. */
/* Whether status 'tasks' output says every server is idle, in HBase's layout. */
static bool tasks_all_idle(const char *p)
{
    if (strncmp(p, "active master:  ", 16) != 0 || !strchr(p, '\n'))
        return false;
    p = strchr(p, '\n') + 1;
    if (strncmp(p, "    no active tasks\n2 live servers\n", 35) != 0)
        return false;
    p += 35;
    for (int i = 0; i < 2; i++) { /* "    host:port startcode\n        no active tasks\n" */
        if (strncmp(p, "    ", 4) != 0 || p[4] == ' ' || !strchr(p, '\n'))
            return false;
        p = strchr(p, '\n') + 1;
        if (strncmp(p, "        no active tasks\n", 24) != 0)
            return false;
        p += 24;
    }
    return strcmp(p, "Took X seconds\n") == 0;
}

static void test_status_tasks(void **state)
{
    (void)state;
    /* idle (a flush or compaction of the catalog may be running for a moment: wait) */
    char last[4096] = "";
    bool idle = false;
    for (int i = 0; i < 80 && !idle; i++) {
        ssh_result r = ssh_run_dir("status 'tasks'\n");
        assert_int_equal(r.status, 0);
        idle = tasks_all_idle(r.out);
        snprintf(last, sizeof(last), "%s", r.out);
        ssh_result_free(&r);
        if (!idle)
            usleep(250 * 1000);
    }
    if (!idle)
        fail_msg("status 'tasks' never idle:\n%s", last);

    ssh_expect("create 'tk', 'f'\nput 'tk', 'r', 'f:q', 'v'\n",
               "Created table tk\nTook X seconds\nTook X seconds\n");
    pid_t rs1 = tc_pid(cluster, "rs-1"), rs2 = tc_pid(cluster, "rs-2");
    assert_true(rs1 > 0 && rs2 > 0);
    kill(rs1, SIGSTOP);
    kill(rs2, SIGSTOP);
    ssh_result r = ssh_run_dir("alter_async 'tk', NAME => 'f', VERSIONS => 2\nstatus 'tasks'\n");
    kill(rs1, SIGCONT);
    kill(rs2, SIGCONT);
    if (r.status != 0 || !strstr(r.out, "    ModifyTableProcedure pid=") ||
        !strstr(r.out, ", table=default:tk: status=REOPEN_TABLE_REGIONS, state=RUNNING, "
                       "startTime=") ||
        !strstr(r.out, ", completionTime=-1\n"))
        fail_msg("status 'tasks' during an alter:\n%s\n%s", r.out, r.err);
    ssh_result_free(&r);
    r = ssh_run_dir("alter_status 'tk'\nget 'tk', 'r'\n");
    if (r.status != 0 || !strstr(r.out, "1/1 regions updated.\nDone.\n") ||
        !strstr(r.out, " f:q timestamp=T, value=v\n"))
        fail_msg("after the alter:\n%s\n%s", r.out, r.err);
    ssh_result_free(&r);
}

/* ---- server listings, maintenance mode, regioninfo, close_region, table states ---- */

static void test_servers_and_states(void **state)
{
    (void)state;
    ssh_result r = ssh_run_dir("list_liveservers\nlist_unknownservers\nis_in_maintenance_mode\n");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "SERVERNAME\n127.0.0.1,"));
    assert_non_null(strstr(r.out, "\n2 row(s)\nTook X seconds\nSERVERNAME\n0 row(s)\n"
                                  "Took X seconds\nfalse\nTook X seconds\n"));
    ssh_result_free(&r);
    ssh_expect("create 'st1', 'f'\n"
               "create 'st2', 'f'\n"
               "disable 'st2'\n"
               "list_enabled_tables 'st.*'\n"
               "list_disabled_tables 'st.*'\n",
               "Created table st1\nTook X seconds\nCreated table st2\nTook X seconds\n"
               "Took X seconds\n"
               "TABLE\nst1\n1 row(s)\nTook X seconds\n"
               "TABLE\nst2\n1 row(s)\nTook X seconds\n");
    /* regioninfo by encoded and by full name, as locate_region shows them */
    r = ssh_run_dir("locate_region 'st1', ''\n");
    assert_int_equal(r.status, 0);
    const char *enc = strstr(r.out, "{ENCODED => ");
    assert_non_null(enc);
    char e[40] = "", full[300] = "";
    sscanf(enc + strlen("{ENCODED => "), "%32[0-9a-f]", e);
    const char *nm = strstr(r.out, "NAME => '");
    assert_non_null(nm);
    sscanf(nm + strlen("NAME => '"), "%299[^']", full);
    ssh_result_free(&r);
    char script[1024], want[1024];
    snprintf(script, sizeof(script), "regioninfo '%s'\nregioninfo '%s'\nclose_region '%s'\n", e,
             full, e);
    snprintf(want, sizeof(want),
             "{ENCODED => %s, NAME => '%s', STARTKEY => '', ENDKEY => ''}\nTook X seconds\n"
             "{ENCODED => %s, NAME => '%s', STARTKEY => '', ENDKEY => ''}\nTook X seconds\n"
             "Took X seconds\n",
             e, full, e, full);
    ssh_expect(script, want);
    ssh_expect_fail("regioninfo 'ffff0000'\n", "Unknown region ffff0000!");
    /* the unassigned region of the enabled table comes back */
    for (int i = 0; i < 300; i++) {
        r = ssh_run_dir("put 'st1', 'r', 'f:q', 'v'\n");
        int st = r.status;
        ssh_result_free(&r);
        if (st == 0)
            break;
        usleep(100 * 1000);
    }
    ssh_expect("count 'st1'\n", "1 row(s)\nTook X seconds\n");
}

/* ---- the filter language: every filter show_filters lists, on real region servers ---- */

static void test_filters(void **state)
{
    (void)state;
    ssh_result r = ssh_run_dir("show_filters\n");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "DependentColumnFilter\nKeyOnlyFilter\nColumnCountGetFilter\n"));
    assert_non_null(strstr(r.out, "ColumnPaginationFilter\nFirstKeyValueMatchingQualifiersFilter\n"
                                  "MultiRowRangeFilter\nFuzzyRowFilter\nTook X seconds\n"));
    ssh_result_free(&r);
    ssh_expect(
        "create 'flt', 'f', 'g'\n"
        "put 'flt', 'r1', 'f:a', '1', 1\n"
        "put 'flt', 'r1', 'f:b', '2', 1\n"
        "put 'flt', 'r1', 'f:c', '3', 1\n"
        "put 'flt', 'r1', 'g:x', '9', 1\n"
        "put 'flt', 'r2', 'f:a', '0', 1\n"
        "put 'flt', 'r2', 'f:b', '2', 1\n"
        "put 'flt', 'r3', 'f:a', '1', 1\n"
        "put 'flt', 'r3', 'g:x', '9', 1\n"
        "put 'flt', 'r4', 'f:c', '3', 1\n"
        "scan 'flt', {FILTER => \"ColumnRangeFilter('b', true, 'c', false)\"}\n"
        "scan 'flt', {FILTER => \"ColumnPaginationFilter(1, 1)\"}\n"
        "scan 'flt', {FILTER => \"InclusiveStopFilter('r2')\"}\n"
        "scan 'flt', {FILTER => \"MultipleColumnPrefixFilter('a', 'x')\"}\n"
        "scan 'flt', {FILTER => \"SingleColumnValueExcludeFilter('f', 'a', =, 'binary:1')\"}\n"
        "scan 'flt', {FILTER => \"ColumnValueFilter('f', 'b', =, 'binary:2')\"}\n"
        "scan 'flt', {FILTER => \"MultiRowRangeFilter('r1', true, 'r2', false, 'r3', true, 'r4', false)\"}\n"
        "scan 'flt', {FILTER => \"FuzzyRowFilter('x2', '10')\"}\n"
        "scan 'flt', {FILTER => \"WHILE RowFilter(<, 'binary:r3')\"}\n"
        "scan 'flt', {FILTER => \"SKIP ValueFilter(!=, 'binary:0')\"}\n"
        "scan 'flt', {FILTER => \"DependentColumnFilter('f', 'a', true)\"}\n"
        "scan 'flt', {FILTER => \"ColumnCountGetFilter(2)\"}\n"
        "get 'flt', 'r1', {FILTER => \"ColumnCountGetFilter(2)\"}\n"
        "scan 'flt', {FILTER => \"FirstKeyValueMatchingQualifiersFilter('b')\"}\n"
        "scan 'flt', {FILTER => \"ColumnRangeFilter('b', true, 'c', false)\", REVERSED => true}\n"
        "scan 'flt', {FILTER => \"MultiRowRangeFilter('r1', true, 'r2', false, 'r3', true, 'r4', false)\", REVERSED => true}\n",
        "Created table flt\n"
        "Took X seconds\n"
        "Took X seconds\n"
        "Took X seconds\n"
        "Took X seconds\n"
        "Took X seconds\n"
        "Took X seconds\n"
        "Took X seconds\n"
        "Took X seconds\n"
        "Took X seconds\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " r1 column=f:b, timestamp=1, value=2\n"
        " r2 column=f:b, timestamp=1, value=2\n"
        "2 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " r1 column=f:b, timestamp=1, value=2\n"
        " r2 column=f:b, timestamp=1, value=2\n"
        " r3 column=g:x, timestamp=1, value=9\n"
        "3 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " r1 column=f:a, timestamp=1, value=1\n"
        " r1 column=f:b, timestamp=1, value=2\n"
        " r1 column=f:c, timestamp=1, value=3\n"
        " r1 column=g:x, timestamp=1, value=9\n"
        " r2 column=f:a, timestamp=1, value=0\n"
        " r2 column=f:b, timestamp=1, value=2\n"
        "2 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " r1 column=f:a, timestamp=1, value=1\n"
        " r1 column=g:x, timestamp=1, value=9\n"
        " r2 column=f:a, timestamp=1, value=0\n"
        " r3 column=f:a, timestamp=1, value=1\n"
        " r3 column=g:x, timestamp=1, value=9\n"
        "3 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " r1 column=f:b, timestamp=1, value=2\n"
        " r1 column=f:c, timestamp=1, value=3\n"
        " r1 column=g:x, timestamp=1, value=9\n"
        " r3 column=g:x, timestamp=1, value=9\n"
        " r4 column=f:c, timestamp=1, value=3\n"
        "3 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " r1 column=f:b, timestamp=1, value=2\n"
        " r2 column=f:b, timestamp=1, value=2\n"
        "2 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " r1 column=f:a, timestamp=1, value=1\n"
        " r1 column=f:b, timestamp=1, value=2\n"
        " r1 column=f:c, timestamp=1, value=3\n"
        " r1 column=g:x, timestamp=1, value=9\n"
        " r3 column=f:a, timestamp=1, value=1\n"
        " r3 column=g:x, timestamp=1, value=9\n"
        "2 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " r2 column=f:a, timestamp=1, value=0\n"
        " r2 column=f:b, timestamp=1, value=2\n"
        "1 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " r1 column=f:a, timestamp=1, value=1\n"
        " r1 column=f:b, timestamp=1, value=2\n"
        " r1 column=f:c, timestamp=1, value=3\n"
        " r1 column=g:x, timestamp=1, value=9\n"
        " r2 column=f:a, timestamp=1, value=0\n"
        " r2 column=f:b, timestamp=1, value=2\n"
        "2 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " r1 column=f:a, timestamp=1, value=1\n"
        " r1 column=f:b, timestamp=1, value=2\n"
        " r1 column=f:c, timestamp=1, value=3\n"
        " r1 column=g:x, timestamp=1, value=9\n"
        " r3 column=f:a, timestamp=1, value=1\n"
        " r3 column=g:x, timestamp=1, value=9\n"
        " r4 column=f:c, timestamp=1, value=3\n"
        "3 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " r1 column=f:b, timestamp=1, value=2\n"
        " r1 column=f:c, timestamp=1, value=3\n"
        " r1 column=g:x, timestamp=1, value=9\n"
        " r2 column=f:b, timestamp=1, value=2\n"
        " r3 column=g:x, timestamp=1, value=9\n"
        "3 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " r1 column=f:a, timestamp=1, value=1\n"
        " r1 column=f:b, timestamp=1, value=2\n"
        "1 row(s)\n"
        "Took X seconds\n"
        "COLUMN  CELL\n"
        " f:a timestamp=1, value=1\n"
        " f:b timestamp=1, value=2\n"
        "1 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " r1 column=f:a, timestamp=1, value=1\n"
        " r1 column=f:b, timestamp=1, value=2\n"
        " r2 column=f:a, timestamp=1, value=0\n"
        " r2 column=f:b, timestamp=1, value=2\n"
        " r3 column=f:a, timestamp=1, value=1\n"
        " r3 column=g:x, timestamp=1, value=9\n"
        " r4 column=f:c, timestamp=1, value=3\n"
        "4 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " r2 column=f:b, timestamp=1, value=2\n"
        " r1 column=f:b, timestamp=1, value=2\n"
        "2 row(s)\n"
        "Took X seconds\n"
        "ROW  COLUMN+CELL\n"
        " r3 column=f:a, timestamp=1, value=1\n"
        " r3 column=g:x, timestamp=1, value=9\n"
        " r1 column=f:a, timestamp=1, value=1\n"
        " r1 column=f:b, timestamp=1, value=2\n"
        " r1 column=f:c, timestamp=1, value=3\n"
        " r1 column=g:x, timestamp=1, value=9\n"
        "2 row(s)\n"
        "Took X seconds\n");
    ssh_expect_fail("scan 'flt', {FILTER => \"ColumnRangeFilter('b', true)\"}\n",
                    "ColumnRangeFilter");
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

/* Errors name what failed once ("create table strata:x: table strata:x: ..." before). */
static void test_errors_name_things_once(void **state)
{
    (void)state;
    ssh_result r = ssh_expect_fail_keep("create 'strata:x', 'f'\n",
                                        "create table strata:x: the namespace 'strata' is "
                                        "reserved");
    assert_null(strstr(r.err, "table strata:x: table strata:x"));
    ssh_result_free(&r);
}

/* ---- namespace properties ---- */

static void test_namespace_properties(void **state)
{
    (void)state;
    ssh_expect("create_namespace 'nsp', {'b.key' => 'two', 'a.key' => 1}\n"
               "describe_namespace 'nsp'\n"
               "alter_namespace 'nsp', {METHOD => 'set', 'c' => 'x', 'a.key' => 'uno'}\n"
               "alter_namespace 'nsp', {METHOD => 'unset', NAME => 'b.key'}\n"
               "describe_namespace 'nsp'\n"
               "create_namespace 'plainns'\n"
               "describe_namespace 'plainns'\n",
               "Took X seconds\n"
               "DESCRIPTION\n"
               "{NAME => 'nsp', a.key => '1', b.key => 'two'}\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "DESCRIPTION\n"
               "{NAME => 'nsp', a.key => 'uno', c => 'x'}\n"
               "Took X seconds\n"
               "Took X seconds\n"
               "DESCRIPTION\n"
               "{NAME => 'plainns'}\n"
               "Took X seconds\n");
    ssh_expect_fail("alter_namespace 'nsp', {METHOD => 'unset', NAME => 'zz'}\n",
                    "namespace nsp has no property zz");
    ssh_expect_fail("alter_namespace 'nsp', {METHOD => 'frob'}\n", "Unknown method 'frob'");
    ssh_expect_fail("alter_namespace 'nope', {METHOD => 'set', 'a' => 'b'}\n",
                    "Unknown namespace nope!");
    ssh_expect_fail("create_namespace 'nsp'\n", "Namespace nsp already exists!");
    ssh_expect_fail("create_namespace 'bad', {'' => 'x'}\n", "empty");
}

/* ---- dead servers ---- */

/* Polls `list_deadservers` until it shows want rows (or 30 s); returns its output. */
static ssh_result dead_list(int want)
{
    char tail[32];
    snprintf(tail, sizeof(tail), "\n%d row(s)\n", want);
    for (int i = 0; i < 300; i++) {
        ssh_result r = ssh_run_dir("list_deadservers\n");
        if (r.status == 0 && strstr(r.out, tail))
            return r;
        ssh_result_free(&r);
        usleep(100 * 1000);
    }
    fail_msg("list_deadservers never showed %d row(s)", want);
    return (ssh_result){0};
}

static void test_dead_servers(void **state)
{
    (void)state;
    ssh_expect("list_deadservers\n", "SERVERNAME\n0 row(s)\nTook X seconds\n");
    /* killed and restarted on the same host and port: the new start code replaces it */
    assert_int_equal(tc_kill(cluster, "rs-2"), ST_OK);
    ssh_result r = dead_list(1);
    assert_non_null(strstr(r.out, "SERVERNAME\n127.0.0.1,"));
    ssh_result_free(&r);
    assert_int_equal(tc_restart(cluster, "rs-2"), ST_OK);
    r = dead_list(0);
    ssh_result_free(&r);
    r = ssh_run_dir("status\n");
    assert_non_null(strstr(r.out, "2 servers, 0 dead"));
    ssh_result_free(&r);

    /* killed for good: listed until cleared (once its recovery is done) */
    assert_int_equal(tc_kill(cluster, "rs-2"), ST_OK);
    r = dead_list(1);
    char dead[128] = "";
    const char *p = strstr(r.out, "SERVERNAME\n");
    assert_non_null(p);
    sscanf(p + strlen("SERVERNAME\n"), "%127[^\n]", dead);
    ssh_result_free(&r);
    /* a name not in the list is not cleared */
    ssh_expect("clear_deadservers 'nohost,1,1'\n",
               "Some dead server clear failed\n"
               "SERVERNAME\n"
               "nohost,1,1\n"
               "1 row(s)\n"
               "Took X seconds\n");
    char script[256];
    snprintf(script, sizeof(script), "clear_deadservers '%s'\n", dead);
    bool cleared = false;
    for (int i = 0; i < 300 && !cleared; i++) { /* until the recovery is done */
        r = ssh_run_dir(script);
        assert_int_equal(r.status, 0);
        cleared = strcmp(r.out, "true\nTook X seconds\n") == 0;
        if (!cleared && !strstr(r.out, "Some dead server clear failed\nSERVERNAME\n"))
            fail_msg("clear_deadservers printed %s", r.out);
        ssh_result_free(&r);
        if (!cleared)
            usleep(100 * 1000);
    }
    assert_true(cleared);
    ssh_expect("list_deadservers\nclear_deadservers\n",
               "SERVERNAME\n0 row(s)\nTook X seconds\ntrue\nTook X seconds\n");
    assert_int_equal(tc_restart(cluster, "rs-2"), ST_OK);
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
        cmocka_unit_test(test_readonly_and_refused_keys),
        cmocka_unit_test(test_family_attributes),
        cmocka_unit_test(test_batch_isolation_deleteall_prefix),
        cmocka_unit_test(test_create_forms),
        cmocka_unit_test(test_all_tables_commands),
        cmocka_unit_test(test_clone_rit_server_tools),
        cmocka_unit_test(test_family_maintenance),
        cmocka_unit_test(test_status_tasks),
        cmocka_unit_test(test_servers_and_states),
        cmocka_unit_test(test_filters),
        cmocka_unit_test(test_multiline_script),
        cmocka_unit_test(test_hbase_maintenance_script),
        cmocka_unit_test(test_syntax_error_names_line),
        cmocka_unit_test(test_errors_name_things_once),
        cmocka_unit_test(test_namespace_properties),
        cmocka_unit_test(test_dead_servers),
        cmocka_unit_test(test_unknown_flag),
    };
    return tu_run_group_tests(tests, setup, teardown);
}
