/*
 * test_shell_views.c - the operators' views of `strata shell` (docs/shell.md) against a
 * local cluster of 1 master and 2 region servers (tests/support/cluster.h):
 *
 *   - scan RAW => true: the delete marker and both versions of a column, and a row's
 *     DeleteFamily, before and after a flush, and none of them after a major compaction;
 *     a plain scan hides them all along;
 *   - get_splits: HBase's "Total number of splits = N" and the split keys (binary ones
 *     escaped), a table of one region, an unknown table;
 *   - scan 'strata:meta': every region of a table with its keys (info:regioninfo as
 *     HBase prints it) and its server (info:sn, info:server, info:serverstartcode) as the
 *     master's region list has them, the table row, STARTROW/STOPROW/LIMIT/COLUMNS,
 *     get 'strata:meta', count over more than one page of rows (paging, both directions),
 *     strata_admin_scan_meta directly; every write to it refused with one line and status
 *     1, meta unchanged;
 *   - list_regions: HBase 2's columns, with real SIZE and REQ after writes and a flush.
 *
 * Output is normalised as in test_shell.c: "Took S.SSSS seconds" -> "Took X seconds",
 * server-assigned timestamps (12+ digits) -> "T".
 *
 * Needs STRATA_BIN (set by CTest); skipped without it (exit 77).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/status.h"
#include "strata/admin.h"
#include "tests/support/cluster.h"
#include "tests/support/testutil.h"

static tc_cluster *cluster;
static char tmpdir[256];

typedef struct result {
    int status;
    char *out; /* normalised stdout */
    char *err; /* stderr as is */
} result;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return strdup("");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

static char *normalise(const char *in)
{
    size_t n = strlen(in);
    char *out = malloc(n + 1), *o = out;
    for (const char *p = in; *p;) {
        if (strncmp(p, "Took ", 5) == 0 && isdigit((unsigned char)p[5])) {
            const char *q = p + 5;
            while (isdigit((unsigned char)*q) || *q == '.')
                q++;
            o += sprintf(o, "Took X");
            p = q;
        } else if (strncmp(p, "timestamp=", 10) == 0) {
            const char *q = p + 10;
            while (isdigit((unsigned char)*q))
                q++;
            if (q - (p + 10) >= 12) {
                o += sprintf(o, "timestamp=T");
                p = q;
            } else {
                memcpy(o, p, 10);
                o += 10;
                p += 10;
            }
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    return out;
}

/* `strata shell --dir D -n` with script on stdin. */
static result sh(const char *script)
{
    char in[300], out[300], err[300], cmd[2048];
    snprintf(in, sizeof(in), "%s/in.txt", tmpdir);
    snprintf(out, sizeof(out), "%s/out.txt", tmpdir);
    snprintf(err, sizeof(err), "%s/err.txt", tmpdir);
    FILE *f = fopen(in, "w");
    assert_non_null(f);
    fputs(script, f);
    fclose(f);
    snprintf(cmd, sizeof(cmd),
             "env -u STRATA_ZK_QUORUM -u STRATA_ZK_PARENT HOME=%s %s shell --dir %s -n < %s > %s "
             "2> %s",
             tmpdir, getenv("STRATA_BIN"), tc_dir(cluster), in, out, err);
    int st = system(cmd);
    result r = {.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1};
    char *raw = slurp(out);
    r.out = normalise(raw);
    free(raw);
    r.err = slurp(err);
    return r;
}

static void result_free(result *r)
{
    free(r->out);
    free(r->err);
}

static void expect(const char *script, const char *want)
{
    result r = sh(script);
    if (r.status != 0 || strcmp(r.out, want) != 0) {
        fprintf(stderr, "script:\n%s\nstatus %d, stderr:\n%s\nstdout:\n%s\nwanted:\n%s", script,
                r.status, r.err, r.out, want);
        fail();
    }
    result_free(&r);
}

/* The script must fail with status 1 and exactly one ERROR line containing frag. */
static void expect_fail(const char *script, const char *frag)
{
    result r = sh(script);
    if (r.status != 1 || strncmp(r.err, "ERROR: ", 7) != 0 || !strstr(r.err, frag) ||
        strchr(r.err, '\n') != r.err + strlen(r.err) - 1) {
        fprintf(stderr,
                "script:\n%s\nstatus %d, stderr:\n%s\nstdout:\n%s\nwanted an ERROR with '%s'\n",
                script, r.status, r.err, r.out, frag);
        fail();
    }
    result_free(&r);
}

static strata_admin_t *admin(void)
{
    char *err = NULL;
    strata_admin_t *a = strata_admin_open(tc_quorum(cluster), tc_parent(cluster), &err);
    assert_null(err);
    assert_non_null(a);
    return a;
}

/* ---- scan RAW ---- */

static const char RAW_BEFORE[] = "ROW  COLUMN+CELL\n"
                                 " r1 column=f:a, timestamp=200, value=v2\n"
                                 " r1 column=f:a, timestamp=150, type=DeleteColumn\n"
                                 " r1 column=f:a, timestamp=100, value=v1\n"
                                 " r1 column=f:b, timestamp=100, value=b1\n"
                                 " r2 column=f:, timestamp=60, type=DeleteFamily\n"
                                 " r2 column=f:x, timestamp=50, value=old\n"
                                 "2 row(s)\n"
                                 "Took X seconds\n";

static const char PLAIN[] = "ROW  COLUMN+CELL\n"
                            " r1 column=f:a, timestamp=200, value=v2\n"
                            " r1 column=f:b, timestamp=100, value=b1\n"
                            "1 row(s)\n"
                            "Took X seconds\n";

static void test_raw_scan_markers_flush_and_major_compaction(void **state)
{
    (void)state;
    expect("create 'raw', {NAME => 'f', VERSIONS => 3}\n"
           "put 'raw', 'r1', 'f:a', 'v1', 100\n"
           "put 'raw', 'r1', 'f:a', 'v2', 200\n"
           "put 'raw', 'r1', 'f:b', 'b1', 100\n"
           "delete 'raw', 'r1', 'f:a', 150\n"
           "put 'raw', 'r2', 'f:x', 'old', 50\n"
           "deleteall 'raw', 'r2', 'f', 60\n",
           "Created table raw\nTook X seconds\nTook X seconds\nTook X seconds\nTook X seconds\n"
           "Took X seconds\nTook X seconds\nTook X seconds\n");
    /* In the memstore: the marker and the version it masks are there raw, hidden plain. */
    expect("scan 'raw', {RAW => true, VERSIONS => 10}\n", RAW_BEFORE);
    expect("scan 'raw', {VERSIONS => 10}\n", PLAIN);
    /* RAW with the default VERSIONS 1: markers, and one put per column. */
    expect("scan 'raw', {RAW => true, COLUMNS => 'f:a'}\n",
           "ROW  COLUMN+CELL\n"
           " r1 column=f:a, timestamp=200, value=v2\n"
           " r1 column=f:a, timestamp=150, type=DeleteColumn\n"
           "1 row(s)\nTook X seconds\n");
    /* After a flush: the same, read from a store file. */
    expect("flush 'raw'\n", "Took X seconds\n");
    expect("scan 'raw', {RAW => true, VERSIONS => 10}\n", RAW_BEFORE);
    expect("scan 'raw', {VERSIONS => 10}\n", PLAIN);
    /* A major compaction drops the markers and what they mask (no KEEP_DELETED_CELLS). */
    expect("major_compact 'raw'\n", "Took X seconds\n");
    const char *want = "ROW  COLUMN+CELL\n"
                       " r1 column=f:a, timestamp=200, value=v2\n"
                       " r1 column=f:b, timestamp=100, value=b1\n"
                       "1 row(s)\n"
                       "Took X seconds\n";
    result r = {0};
    for (int i = 0; i < 100; i++) {
        result_free(&r);
        r = sh("scan 'raw', {RAW => true, VERSIONS => 10}\n");
        if (r.status == 0 && strcmp(r.out, want) == 0)
            break;
        usleep(100 * 1000);
    }
    if (strcmp(r.out, want) != 0) {
        fprintf(stderr, "after major_compact:\n%s\nwanted:\n%s", r.out, want);
        fail();
    }
    result_free(&r);
    expect_fail("scan 'raw', {RAW => 'maybe'}\n", "RAW");
}

/* ---- get_splits ---- */

static void test_get_splits(void **state)
{
    (void)state;
    expect("create 'gs', 'f', SPLITS => ['10', '20', \"30\\x00\"]\n"
           "get_splits 'gs'\n"
           "create 'gs1', 'f'\n"
           "get_splits 'gs1'\n",
           "Created table gs\nTook X seconds\n"
           "Total number of splits = 4\n10\n20\n30\\x00\nTook X seconds\n"
           "Created table gs1\nTook X seconds\n"
           "Total number of splits = 1\nTook X seconds\n");
    expect_fail("get_splits 'nosuch'\n", "Unknown table nosuch!");
    expect_fail("get_splits\n", "wrong number of arguments");
}

/* ---- scan 'strata:meta' ---- */

/* Checks that out holds region i of l as meta rows: keys, encoded name, server. */
static void check_region_rows(const char *out, const strata_region_t *g)
{
    char row[300], line[1200], port[32];
    size_t sl, el;
    const char *sk = strata_region_start_key(g, &sl), *ek = strata_region_end_key(g, &el);
    const char *sn = strata_region_server(g);
    const char *enc = strata_region_encoded_name(g);
    uint64_t id = strata_region_id(g);
    assert_non_null(sn);
    snprintf(row, sizeof(row), " default:vm,%.*s,%llu ", (int)sl, sk, (unsigned long long)id);
    snprintf(line, sizeof(line),
             "%scolumn=info:regioninfo, timestamp=T, value={ENCODED => %s, NAME => "
             "'vm,%.*s,%llu.%s.', STARTKEY => '%.*s', ENDKEY => '%.*s'}\n",
             row, enc, (int)sl, sk, (unsigned long long)id, enc, (int)sl, sk, (int)el, ek);
    if (!strstr(out, line)) {
        fprintf(stderr, "no line\n%s\nin\n%s", line, out);
        fail();
    }
    snprintf(line, sizeof(line), "%scolumn=info:sn, timestamp=T, value=%s\n", row, sn);
    assert_non_null(strstr(out, line));
    snprintf(line, sizeof(line), "%scolumn=info:state, timestamp=T, value=OPEN\n", row);
    assert_non_null(strstr(out, line));
    /* info:server is host:port; info:serverstartcode the start code as a number */
    const char *c1 = strchr(sn, ','), *c2 = strchr(c1 + 1, ',');
    snprintf(port, sizeof(port), "%.*s", (int)(c2 - c1 - 1), c1 + 1);
    snprintf(line, sizeof(line), "%scolumn=info:server, timestamp=T, value=%.*s:%s\n", row,
             (int)(c1 - sn), sn, port);
    assert_non_null(strstr(out, line));
    snprintf(line, sizeof(line), "%scolumn=info:serverstartcode, timestamp=T, value=%s\n", row,
             c2 + 1);
    assert_non_null(strstr(out, line));
}

static size_t count_lines(const char *out, const char *frag)
{
    size_t n = 0;
    for (const char *p = out; (p = strstr(p, frag)); p += strlen(frag))
        n++;
    return n;
}

static void test_scan_meta_lists_every_region(void **state)
{
    (void)state;
    expect("create 'vm', 'f', SPLITS => ['g', 'p']\n", "Created table vm\nTook X seconds\n");
    strata_admin_t *a = admin();
    char *err = NULL;
    strata_region_list_t *l = strata_admin_table_regions(a, "vm", &err);
    assert_null(err);
    assert_int_equal(strata_region_list_count(l), 3);

    result r = sh("scan 'strata:meta', {STARTROW => 'default:vm', STOPROW => 'default:vm-'}\n");
    assert_int_equal(r.status, 0);
    assert_true(strncmp(r.out, "ROW  COLUMN+CELL\n", 17) == 0);
    for (size_t i = 0; i < strata_region_list_count(l); i++)
        check_region_rows(r.out, strata_region_list_get(l, i));
    assert_non_null(strstr(r.out, " default:vm column=table:state, timestamp=T, value=ENABLED\n"));
    assert_non_null(strstr(r.out, " default:vm column=table:schema, timestamp=T, value="));
    assert_non_null(strstr(r.out, "\n4 row(s)\nTook X seconds\n"));
    assert_int_equal(count_lines(r.out, "column=info:regioninfo"), 3);
    result_free(&r);

    /* The whole catalog: the namespaces too. */
    r = sh("scan 'strata:meta'\n");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, " default column=ns:d, timestamp=T, value=\\x0A\\x07default\n"));
    assert_non_null(strstr(r.out, " strata column=ns:d, "));
    result_free(&r);

    /* COLUMNS and LIMIT; REVERSED. */
    const strata_region_t *g0 = strata_region_list_get(l, 0), *g2 = strata_region_list_get(l, 2);
    char want[1200];
    snprintf(want, sizeof(want),
             "ROW  COLUMN+CELL\n"
             " default:vm,,%llu column=info:sn, timestamp=T, value=%s\n"
             "1 row(s)\nTook X seconds\n",
             (unsigned long long)strata_region_id(g0), strata_region_server(g0));
    expect("scan 'strata:meta', {STARTROW => 'default:vm,', LIMIT => 1, COLUMNS => 'info:sn'}\n",
           want);
    snprintf(want, sizeof(want),
             "ROW  COLUMN+CELL\n"
             " default:vm,p,%llu column=info:state, timestamp=T, value=OPEN\n"
             "1 row(s)\nTook X seconds\n",
             (unsigned long long)strata_region_id(g2));
    expect("scan 'strata:meta', {STARTROW => 'default:vm-', REVERSED => true, LIMIT => 1, "
           "COLUMNS => ['info:state']}\n",
           want);

    /* get of one row: the table row. */
    expect("get 'strata:meta', 'default:vm', 'table:state'\n",
           "COLUMN  CELL\n table:state timestamp=T, value=ENABLED\n1 row(s)\nTook X seconds\n");
    expect("get 'strata:meta', 'default:nosuch'\n", "COLUMN  CELL\n0 row(s)\nTook X seconds\n");
    expect_fail("scan 'strata:meta', {COLUMNS => 'nofam'}\n",
                "Unknown column family! Valid column names: info:*, table:*, ns:*, proc:*");

    /* The public call: rows as results, regioninfo decodable. */
    strata_scan_t *sc = strata_scan_create();
    strata_scan_set_start(sc, "default:vm,", 11);
    strata_scan_set_stop(sc, "default:vm-", 11);
    strata_scan_add_column(sc, "info", 4, "regioninfo", 10);
    strata_meta_rows_t *rows = strata_admin_scan_meta(a, sc, &err);
    assert_null(err);
    assert_int_equal(strata_meta_rows_count(rows), 3);
    for (size_t i = 0; i < 3; i++) {
        const strata_result_t *row = strata_meta_rows_get(rows, i);
        size_t vl;
        assert_int_equal(strata_result_cell_count(row), 1);
        const char *v = strata_result_cell_value(row, 0, &vl);
        strata_region_t *g = strata_region_from_meta(v, vl, &err);
        assert_null(err);
        assert_string_equal(strata_region_encoded_name(g),
                            strata_region_encoded_name(strata_region_list_get(l, i)));
        assert_int_equal(strata_region_offline(g), 0);
        strata_region_destroy(g);
    }
    strata_meta_rows_destroy(rows);
    strata_scan_destroy(sc);
    strata_region_list_destroy(l);
    strata_admin_close(a);
}

static void test_meta_paging(void **state)
{
    (void)state;
    /* 1100 namespace rows: more than one 1000-row page of ScanMeta. */
    size_t cap = 1100 * 40, n = 0;
    char *script = malloc(cap);
    for (int i = 0; i < 1100; i++)
        n += (size_t)snprintf(script + n, cap - n, "create_namespace 'pg%04d'\n", i);
    result r = sh(script);
    assert_int_equal(r.status, 0);
    result_free(&r);
    free(script);
    expect("count 'strata:meta', {FILTER => \"PrefixFilter('pg')\", INTERVAL => 1000}\n",
           "Current count: 1000, row: pg0999\n1100 row(s)\nTook X seconds\n");
    r = sh("scan 'strata:meta', {COLUMNS => 'ns', REVERSED => true, STARTROW => 'pg9', STOPROW "
           "=> 'pg'}\n");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "ROW  COLUMN+CELL\n pg1099 column=ns:d"));
    assert_non_null(strstr(r.out, " pg0001 column=ns:d, timestamp=T, value=\\x0A\\x06pg0001\n"
                                  " pg0000 column=ns:d, timestamp=T, value=\\x0A\\x06pg0000\n"
                                  "1100 row(s)\n"));
    assert_int_equal(count_lines(r.out, " pg0999 "), 1);
    assert_int_equal(count_lines(r.out, " pg1000 "), 1);
    result_free(&r);
}

static void test_meta_writes_refused(void **state)
{
    (void)state;
    static const char *const writes[] = {
        "put 'strata:meta', 'r', 'info:x', 'v'\n",
        "delete 'strata:meta', 'default:vm', 'table:state'\n",
        "deleteall 'strata:meta', 'default:vm'\n",
        "incr 'strata:meta', 'r', 'info:n'\n",
        "append 'strata:meta', 'r', 'info:x', 'v'\n",
        "truncate 'strata:meta'\n",
        "truncate_preserve 'strata:meta'\n",
        "disable 'strata:meta'\n",
        "enable 'strata:meta'\n",
        "drop 'strata:meta'\n",
        "alter 'strata:meta', NAME => 'info', VERSIONS => 5\n",
        "create 'strata:meta', 'f'\n",
        "split 'strata:meta'\n",
    };
    result before =
        sh("scan 'strata:meta', {STARTROW => 'default:vm', STOPROW => 'default:vm-'}\n");
    assert_int_equal(before.status, 0);
    for (size_t i = 0; i < sizeof(writes) / sizeof(writes[0]); i++)
        expect_fail(writes[i], "strata:meta is read-only");
    /* A script stops at the refusal: nothing after it runs. */
    result r = sh("put 'strata:meta', 'r', 'info:x', 'v'\nlist\n");
    assert_int_equal(r.status, 1);
    assert_null(strstr(r.out, "TABLE"));
    result_free(&r);
    result after = sh("scan 'strata:meta', {STARTROW => 'default:vm', STOPROW => 'default:vm-'}\n");
    assert_string_equal(before.out, after.out);
    result_free(&before);
    result_free(&after);
}

/* ---- list_regions ---- */

static void test_list_regions_load_columns(void **state)
{
    (void)state;
    expect("create 'lr', 'f', SPLITS => ['m']\n", "Created table lr\nTook X seconds\n");
    /* 400 puts of 4000 bytes into the second region, then a flush: > 1 MB of store files. */
    size_t cap = 400 * 4100, n = 0;
    char *script = malloc(cap);
    char *v = malloc(4001);
    memset(v, 'x', 4000);
    v[4000] = '\0';
    for (int i = 0; i < 400; i++)
        n += (size_t)snprintf(script + n, cap - n, "put 'lr', 'r%04d', 'f:a', '%s'\n", i, v);
    snprintf(script + n, cap - n, "get 'lr', 'r0001', 'f:b'\nflush 'lr'\n");
    result r = sh(script);
    assert_int_equal(r.status, 0);
    result_free(&r);
    free(script);
    free(v);
    /* The servers report every 3 s. */
    unsigned long long size = 0, req = 0;
    for (int i = 0; i < 100 && (size < 1 || req < 401); i++) {
        r = sh("list_regions 'lr', {}, ['START_KEY', 'SIZE', 'REQ', 'LOCALITY']\n");
        assert_int_equal(r.status, 0);
        const char *row = strstr(r.out, "          m |");
        if (row && sscanf(row + 13, " %llu | %llu |", &size, &req) != 2)
            size = req = 0;
        if (size < 1 || req < 401)
            usleep(200 * 1000);
        if (size >= 1 && req >= 401) {
            assert_non_null(strstr(r.out, "  START_KEY |  SIZE |   REQ |   LOCALITY |\n"
                                          " ---------- | ----- | ----- | ---------- |\n"));
            assert_non_null(strstr(row, "|        1.0 |\n"));
            assert_non_null(strstr(r.out, " 2 rows\n"));
        }
        result_free(&r);
    }
    assert_true(size >= 1);
    assert_true(req >= 401); /* 400 writes and a read */
    /* The columns print in the order asked for. */
    r = sh("list_regions 'lr', '', ['REQ', 'start_key']\n");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "   REQ |  START_KEY |\n ----- | ---------- |\n"));
    result_free(&r);
    /* The default columns: HBase 2's seven. */
    r = sh("list_regions 'lr'\n");
    assert_non_null(strstr(r.out, " SERVER_NAME | "));
    assert_non_null(
        strstr(r.out, " REGION_NAME |  START_KEY |    END_KEY |  SIZE |   REQ |   LOCALITY |\n"));
    result_free(&r);
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_shell_views.XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    tc_options o = {.masters = 1, .regionservers = 2};
    int rc = tc_start(&o, &cluster);
    if (rc != ST_OK) {
        fprintf(stderr, "cluster start: %s\n", st_errmsg());
        return -1;
    }
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

int main(void)
{
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_shell_views", "STRATA_BIN is not set (ctest sets it)");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raw_scan_markers_flush_and_major_compaction),
        cmocka_unit_test(test_get_splits),
        cmocka_unit_test(test_scan_meta_lists_every_region),
        cmocka_unit_test(test_meta_paging),
        cmocka_unit_test(test_meta_writes_refused),
        cmocka_unit_test(test_list_regions_load_columns),
    };
    return tu_run_group_tests(tests, setup, teardown);
}
