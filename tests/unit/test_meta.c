/*
 * test_meta.c - the meta table on a real engine: region rows (sorted read-back, state
 * and server changes, find by encoded name, binary start keys), table rows and the
 * atomic table changes (create, delete next to look-alike table names, replace),
 * namespaces, reopen, crash replay from a copy of the root (whole WAL, and a torn last
 * record that must drop a whole multi-row change), a failed WAL write, the meta clock
 * (delete and re-create in one millisecond, a clock behind the stored timestamps),
 * encoded names, split keys and state names.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/bytes.h"
#include "common/clock.h"
#include "common/fileio.h"
#include "common/status.h"
#include "meta/meta.h"
#include "meta/meta_internal.h"
#include "tests/support/testutil.h"

typedef struct fixture {
    char *dir;
    char *copy; /* a second root, for crash tests */
    engine *eng;
    meta *m;
} fixture;

static void open_at(fixture *f, const char *root)
{
    engine_options o;
    engine_options_init(&o);
    o.root_dir = root;
    assert_int_equal(engine_open(&o, &f->eng), ST_OK);
    assert_int_equal(meta_open(f->eng, &f->m), ST_OK);
}

static void close_all(fixture *f)
{
    meta_close(f->m);
    f->m = NULL;
    engine_close(f->eng);
    f->eng = NULL;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    f->dir = tu_tempdir("meta");
    open_at(f, f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    clock_set_fake_ms(0);
    fio_fault_clear();
    close_all(f);
    tu_rmdir(f->dir);
    tu_rmdir(f->copy);
    free(f);
    return 0;
}

/* ---------------------------------------------------------------- helpers */

/* The regions of table cut at the given split keys (C strings), region id `id`. */
static meta_region *make_regions(const char *table, uint64_t id, const char *const *splits,
                                 size_t nsplits, size_t *n)
{
    *n = nsplits + 1;
    meta_region *v = calloc(*n, sizeof(*v));
    for (size_t i = 0; i < *n; i++) {
        const char *s = i ? splits[i - 1] : "";
        const char *e = i < nsplits ? splits[i] : "";
        snprintf(v[i].table, sizeof(v[i].table), "%s", table);
        assert_int_equal(meta_region_set_keys(&v[i], (const uint8_t *)s, strlen(s),
                                              (const uint8_t *)e, strlen(e)),
                         ST_OK);
        v[i].region_id = id;
        v[i].state = META_CLOSED;
        meta_encoded_name(table, v[i].start_key, v[i].start_len, id, v[i].encoded_name);
    }
    return v;
}

static meta_table table_of(const char *name)
{
    meta_table t;
    memset(&t, 0, sizeof(t));
    snprintf(t.name, sizeof(t.name), "%s", name);
    t.schema = (uint8_t *)"schema-bytes";
    t.schema_len = 12;
    t.state = META_TABLE_ENABLED;
    return t;
}

static void create_table(meta *m, const char *name, uint64_t id, const char *const *splits,
                         size_t nsplits)
{
    size_t n = 0;
    meta_region *v = make_regions(name, id, splits, nsplits, &n);
    meta_table t = table_of(name);
    assert_int_equal(meta_create_table(m, &t, v, n), ST_OK);
    meta_regions_free(v, n);
}

static size_t count_regions(meta *m, const char *table)
{
    meta_region *v = NULL;
    size_t n = 0;
    assert_int_equal(meta_table_regions(m, table, &v, &n), ST_OK);
    meta_regions_free(v, n);
    return n;
}

static bool has_table(meta *m, const char *table)
{
    meta_table t;
    int rc = meta_get_table(m, table, &t);
    assert_true(rc == ST_OK || rc == ST_NOT_FOUND);
    meta_table_clear(&t);
    return rc == ST_OK;
}

static void key_equal(const uint8_t *k, size_t len, const char *want)
{
    assert_int_equal(len, strlen(want));
    if (len)
        assert_memory_equal(k, want, len);
}

/* Reads meta's raw column info:<qual> of a region row into buf (NUL-terminated);
 * returns the value length + 1 if found, 0 if absent. */
static int raw_column(meta *m, const meta_region *r, const char *qual, char *buf, size_t cap)
{
    size_t len = 0;
    uint8_t *row = meta_region_row(r->table, r->start_key, r->start_len, r->region_id, &len);
    scan_result res;
    scan_result_init(&res);
    assert_int_equal(meta_get_row(m, row, len, META_FAM_INFO, &res), ST_OK);
    int found = 0;
    for (size_t i = 0; i < res.ncells; i++)
        if (meta_cell_is(&res.cells[i], META_FAM_INFO, qual)) {
            size_t vl = res.cells[i].value_len;
            assert_true(vl < cap);
            memcpy(buf, res.cells[i].value, vl);
            buf[vl] = '\0';
            found = (int)vl + 1;
        }
    scan_result_free(&res);
    free(row);
    return found;
}

static void copy_tree(const char *from, const char *to)
{
    assert_int_equal(fio_mkdirs(to), ST_OK);
    char **names = NULL;
    size_t n = 0;
    assert_int_equal(fio_list_dir(from, &names, &n), ST_OK);
    for (size_t i = 0; i < n; i++) {
        char *src = NULL, *dst = NULL;
        assert_true(asprintf(&src, "%s/%s", from, names[i]) > 0);
        assert_true(asprintf(&dst, "%s/%s", to, names[i]) > 0);
        struct stat st;
        assert_int_equal(stat(src, &st), 0);
        if (S_ISDIR(st.st_mode)) {
            copy_tree(src, dst);
        } else {
            buf_t data = {0};
            assert_int_equal(fio_read_all(src, &data), ST_OK);
            assert_int_equal(fio_write_atomic(dst, data.data, data.len), ST_OK);
            buf_free(&data);
        }
        free(src);
        free(dst);
    }
    fio_free_list(names, n);
}

/* The path of the newest WAL file under root (malloc'ed). */
static char *newest_wal(const char *root)
{
    char *dir = NULL, *path = NULL;
    assert_true(asprintf(&dir, "%s/WALs/local", root) > 0);
    char **names = NULL;
    size_t n = 0;
    assert_int_equal(fio_list_dir(dir, &names, &n), ST_OK);
    assert_true(n >= 1);
    assert_true(asprintf(&path, "%s/%s", dir, names[n - 1]) > 0);
    fio_free_list(names, n);
    free(dir);
    return path;
}

static uint64_t file_size(const char *path)
{
    uint64_t size = 0;
    assert_int_equal(fio_file_size(path, &size), ST_OK);
    return size;
}

/* ---------------------------------------------------------------- region rows */

static void create_table_reads_back_sorted(void **state)
{
    fixture *f = *state;
    const char *splits[] = {"3fffffff", "7ffffffe", "bffffffd"};
    size_t n = 0;
    meta_region *v = make_regions("default:t", 1700000000000ull, splits, 3, &n);
    /* Given out of order: the read-back is by start key. */
    meta_region shuffled[4] = {v[2], v[0], v[3], v[1]};
    meta_table t = table_of("default:t");
    assert_int_equal(meta_create_table(f->m, &t, shuffled, 4), ST_OK);

    meta_region *got = NULL;
    size_t ng = 0;
    assert_int_equal(meta_table_regions(f->m, "default:t", &got, &ng), ST_OK);
    assert_int_equal(ng, 4);
    const char *starts[] = {"", "3fffffff", "7ffffffe", "bffffffd"};
    const char *ends[] = {"3fffffff", "7ffffffe", "bffffffd", ""};
    for (size_t i = 0; i < 4; i++) {
        key_equal(got[i].start_key, got[i].start_len, starts[i]);
        key_equal(got[i].end_key, got[i].end_len, ends[i]);
        assert_string_equal(got[i].table, "default:t");
        assert_string_equal(got[i].encoded_name, v[i].encoded_name);
        assert_int_equal(got[i].region_id, 1700000000000ull);
        assert_int_equal(got[i].state, META_CLOSED);
        assert_string_equal(got[i].server, "");
        assert_false(got[i].offline);
        assert_false(got[i].split);
    }
    meta_table tt;
    assert_int_equal(meta_get_table(f->m, "default:t", &tt), ST_OK);
    assert_int_equal(tt.schema_len, 12);
    assert_memory_equal(tt.schema, "schema-bytes", 12);
    assert_int_equal(tt.state, META_TABLE_ENABLED);
    meta_table_clear(&tt);
    meta_regions_free(got, ng);
    meta_regions_free(v, n);
}

static void region_state_and_server_changes_read_back(void **state)
{
    fixture *f = *state;
    const char *splits[] = {"m"};
    create_table(f->m, "default:t", 5, splits, 1);
    meta_region *v = NULL;
    size_t n = 0;
    assert_int_equal(meta_table_regions(f->m, "default:t", &v, &n), ST_OK);
    assert_int_equal(n, 2);

    v[1].state = META_OPENING;
    snprintf(v[1].server, sizeof(v[1].server), "rs1.example,17020,1700000000123");
    v[1].failures = 2;
    assert_int_equal(meta_put_region(f->m, &v[1]), ST_OK);
    char buf[128];
    assert_int_equal(raw_column(f->m, &v[1], META_Q_SERVER, buf, sizeof(buf)), 18);
    assert_string_equal(buf, "rs1.example:17020");
    assert_int_equal(raw_column(f->m, &v[1], META_Q_STARTCODE, buf, sizeof(buf)), 9);
    assert_int_equal(be64_get((const uint8_t *)buf), 1700000000123ull);

    v[1].state = META_OPEN;
    v[1].seqnum = 0x0102030405060708ull;
    v[1].failures = 0;
    assert_int_equal(meta_put_region(f->m, &v[1]), ST_OK);
    meta_region got;
    assert_int_equal(meta_find_region(f->m, v[1].encoded_name, &got), ST_OK);
    assert_int_equal(got.state, META_OPEN);
    assert_string_equal(got.server, "rs1.example,17020,1700000000123");
    assert_int_equal(got.seqnum, 0x0102030405060708ull);
    assert_int_equal(got.failures, 0);
    key_equal(got.start_key, got.start_len, "m");
    meta_region_clear(&got);

    /* An empty server clears the three server columns. */
    v[1].state = META_CLOSED;
    v[1].server[0] = '\0';
    assert_int_equal(meta_put_region(f->m, &v[1]), ST_OK);
    assert_int_equal(raw_column(f->m, &v[1], META_Q_SERVER, buf, sizeof(buf)), 0);
    assert_int_equal(raw_column(f->m, &v[1], META_Q_STARTCODE, buf, sizeof(buf)), 0);
    assert_int_equal(raw_column(f->m, &v[1], META_Q_SN, buf, sizeof(buf)), 0);
    assert_int_equal(meta_find_region(f->m, v[1].encoded_name, &got), ST_OK);
    assert_int_equal(got.state, META_CLOSED);
    assert_string_equal(got.server, "");
    meta_region_clear(&got);

    /* The other region did not change. */
    assert_int_equal(meta_find_region(f->m, v[0].encoded_name, &got), ST_OK);
    assert_int_equal(got.state, META_CLOSED);
    meta_region_clear(&got);
    assert_int_equal(meta_find_region(f->m, "0123456789abcdef0123456789abcdef", &got),
                     ST_NOT_FOUND);
    assert_non_null(strstr(st_errmsg(), "0123456789abcdef"));

    /* A malformed server name is refused and nothing is written. */
    snprintf(v[1].server, sizeof(v[1].server), "no-port-here");
    assert_int_equal(meta_put_region(f->m, &v[1]), ST_INVALID_ARGUMENT);
    meta_regions_free(v, n);
}

static void put_regions_is_one_atomic_change(void **state)
{
    fixture *f = *state;
    const char *splits[] = {"g", "p"};
    create_table(f->m, "default:t", 9, splits, 2);
    meta_region *v = NULL;
    size_t n = 0;
    assert_int_equal(meta_table_regions(f->m, "default:t", &v, &n), ST_OK);
    /* A row given twice refuses the whole change: no region moves to OPEN. */
    meta_region twice[3];
    for (int i = 0; i < 3; i++) {
        twice[i] = v[i == 2 ? 0 : i];
        twice[i].state = META_OPEN;
    }
    assert_int_equal(meta_put_regions(f->m, twice, 3), ST_INVALID_ARGUMENT);
    meta_region *got = NULL;
    size_t ng = 0;
    assert_int_equal(meta_table_regions(f->m, "default:t", &got, &ng), ST_OK);
    for (size_t i = 0; i < ng; i++)
        assert_int_equal(got[i].state, META_CLOSED);
    meta_regions_free(got, ng);
    /* Split-style update: parent offline+split, daughters added, in one call. */
    v[1].offline = v[1].split = true;
    const char *dsplits[] = {"g", "k", "p"};
    size_t nd = 0;
    meta_region *d = make_regions("default:t", 10, dsplits, 3, &nd);
    meta_region change[3] = {v[1], d[1], d[2]};
    assert_int_equal(meta_put_regions(f->m, change, 3), ST_OK);
    assert_int_equal(meta_table_regions(f->m, "default:t", &got, &ng), ST_OK);
    assert_int_equal(ng, 5);
    /* Sorted by start key, then region id: parent (id 9) before daughter A (id 10). */
    key_equal(got[1].start_key, got[1].start_len, "g");
    assert_int_equal(got[1].region_id, 9);
    assert_true(got[1].offline && got[1].split);
    key_equal(got[2].start_key, got[2].start_len, "g");
    assert_int_equal(got[2].region_id, 10);
    key_equal(got[3].start_key, got[3].start_len, "k");
    meta_regions_free(got, ng);
    meta_regions_free(d, nd);
    meta_regions_free(v, n);
}

static void binary_start_keys_sorted_by_key(void **state)
{
    fixture *f = *state;
    /* Start keys "a" and "a\x01": the row "t,a\x01,1" sorts before "t,a,1", yet the
     * regions must come back in key order. */
    meta_region v[3];
    memset(v, 0, sizeof(v));
    const uint8_t a[] = {'a'}, a1[] = {'a', 0x01};
    const uint8_t *starts[] = {NULL, a, a1};
    size_t slen[] = {0, 1, 2};
    for (int i = 0; i < 3; i++) {
        snprintf(v[i].table, sizeof(v[i].table), "default:bin");
        v[i].region_id = 1;
        assert_int_equal(meta_region_set_keys(&v[i], starts[i], slen[i],
                                              i < 2 ? starts[i + 1] : NULL,
                                              i < 2 ? slen[i + 1] : 0),
                         ST_OK);
        meta_encoded_name(v[i].table, v[i].start_key, v[i].start_len, 1, v[i].encoded_name);
    }
    meta_table t = table_of("default:bin");
    assert_int_equal(meta_create_table(f->m, &t, v, 3), ST_OK);
    meta_region *got = NULL;
    size_t ng = 0;
    assert_int_equal(meta_table_regions(f->m, "default:bin", &got, &ng), ST_OK);
    assert_int_equal(ng, 3);
    for (int i = 0; i < 3; i++)
        assert_string_equal(got[i].encoded_name, v[i].encoded_name);
    meta_regions_free(got, ng);
    for (int i = 0; i < 3; i++)
        meta_region_clear(&v[i]);
}

/* ---------------------------------------------------------------- tables */

static void delete_table_leaves_lookalike_names(void **state)
{
    fixture *f = *state;
    const char *s1[] = {"k"};
    const char *s2[] = {"c", "x"};
    create_table(f->m, "default:t", 1, s1, 1);
    create_table(f->m, "default:t2", 2, s2, 2);
    create_table(f->m, "default:t-x", 3, s1, 1);
    assert_int_equal(meta_create_namespace(f->m, "other"), ST_OK);
    create_table(f->m, "other:t", 4, NULL, 0);
    assert_int_equal(meta_delete_table(f->m, "default:t"), ST_OK);
    assert_false(has_table(f->m, "default:t"));
    assert_int_equal(count_regions(f->m, "default:t"), 0);
    assert_true(has_table(f->m, "default:t2"));
    assert_int_equal(count_regions(f->m, "default:t2"), 3);
    assert_true(has_table(f->m, "default:t-x"));
    assert_int_equal(count_regions(f->m, "default:t-x"), 2);
    assert_true(has_table(f->m, "other:t"));
    assert_int_equal(count_regions(f->m, "other:t"), 1);
    meta_region *all = NULL;
    size_t na = 0;
    assert_int_equal(meta_all_regions(f->m, &all, &na), ST_OK);
    assert_int_equal(na, 6);
    meta_regions_free(all, na);
    assert_int_equal(meta_delete_table(f->m, "default:t"), ST_NOT_FOUND);
    assert_non_null(strstr(st_errmsg(), "default:t"));
    /* Deleting t-x leaves t2 alone, and the other way round. */
    assert_int_equal(meta_delete_table(f->m, "default:t-x"), ST_OK);
    assert_int_equal(count_regions(f->m, "default:t2"), 3);
    assert_int_equal(meta_delete_table(f->m, "default:t2"), ST_OK);
    assert_int_equal(count_regions(f->m, "other:t"), 1);
}

/* meta_scan_rows: rows and cells as stored, with the scan's bounds, columns, limit,
 * reversed and raw; a family meta lacks is refused. */
typedef struct rows_seen {
    char rows[16][64];
    size_t n, cells;
} rows_seen;

static int see_row(const scan_result *row, void *arg)
{
    rows_seen *s = arg;
    if (s->n < 16)
        snprintf(s->rows[s->n], sizeof(s->rows[0]), "%.*s", (int)row->cells[0].row_len,
                 (const char *)row->cells[0].row);
    s->n++;
    s->cells += row->ncells;
    return ST_OK;
}

static void scan_rows_as_stored(void **state)
{
    fixture *f = *state;
    const char *s1[] = {"k"};
    create_table(f->m, "default:t", 5, s1, 1);
    scan_column info = {(const uint8_t *)"info", 4, (const uint8_t *)"state", 5};
    scan_spec spec = {0};
    spec.start_row = (const uint8_t *)"default:t,";
    spec.start_row_len = 10;
    spec.stop_row = (const uint8_t *)"default:t-";
    spec.stop_row_len = 10;
    spec.columns = &info;
    spec.ncolumns = 1;
    rows_seen seen = {0};
    assert_int_equal(meta_scan_rows(f->m, &spec, see_row, &seen), ST_OK);
    assert_int_equal(seen.n, 2);
    assert_int_equal(seen.cells, 2);
    assert_string_equal(seen.rows[0], "default:t,,5");
    assert_string_equal(seen.rows[1], "default:t,k,5");
    /* Reversed with a limit: the last region row first. */
    memset(&seen, 0, sizeof(seen));
    spec.reversed = true;
    spec.start_row = (const uint8_t *)"default:t-";
    spec.stop_row = (const uint8_t *)"default:t,";
    spec.limit = 1;
    assert_int_equal(meta_scan_rows(f->m, &spec, see_row, &seen), ST_OK);
    assert_int_equal(seen.n, 1);
    assert_string_equal(seen.rows[0], "default:t,k,5");
    /* Raw: the table's state column keeps both versions until meta compacts. */
    assert_int_equal(meta_set_table_state(f->m, "default:t", META_TABLE_DISABLED), ST_OK);
    scan_column st = {(const uint8_t *)"table", 5, (const uint8_t *)"state", 5};
    scan_spec raw = {0};
    raw.start_row = (const uint8_t *)"default:t";
    raw.start_row_len = 9;
    raw.stop_row = (const uint8_t *)"default:t,";
    raw.stop_row_len = 10;
    raw.columns = &st;
    raw.ncolumns = 1;
    raw.raw = true;
    raw.max_versions = 10;
    memset(&seen, 0, sizeof(seen));
    assert_int_equal(meta_scan_rows(f->m, &raw, see_row, &seen), ST_OK);
    assert_int_equal(seen.n, 1);
    assert_int_equal(seen.cells, 2);
    /* A family meta does not have. */
    scan_column bad = {(const uint8_t *)"nofam", 5, NULL, 0};
    spec.columns = &bad;
    assert_int_equal(meta_scan_rows(f->m, &spec, see_row, &seen), ST_UNKNOWN_FAMILY);
    assert_non_null(strstr(st_errmsg(), "nofam"));
}

static void table_rows_state_and_listing(void **state)
{
    fixture *f = *state;
    assert_int_equal(meta_create_namespace(f->m, "app"), ST_OK);
    create_table(f->m, "default:b", 1, NULL, 0);
    create_table(f->m, "default:a", 1, NULL, 0);
    create_table(f->m, "app:z", 1, NULL, 0);
    meta_table *v = NULL;
    size_t n = 0;
    assert_int_equal(meta_list_tables(f->m, NULL, &v, &n), ST_OK);
    assert_int_equal(n, 3);
    assert_string_equal(v[0].name, "app:z");
    assert_string_equal(v[1].name, "default:a");
    assert_string_equal(v[2].name, "default:b");
    meta_tables_free(v, n);
    assert_int_equal(meta_list_tables(f->m, "default", &v, &n), ST_OK);
    assert_int_equal(n, 2);
    meta_tables_free(v, n);
    assert_int_equal(meta_list_tables(f->m, "app", &v, &n), ST_OK);
    assert_int_equal(n, 1);
    meta_tables_free(v, n);

    assert_int_equal(meta_set_table_state(f->m, "default:a", META_TABLE_DISABLING), ST_OK);
    meta_table t;
    assert_int_equal(meta_get_table(f->m, "default:a", &t), ST_OK);
    assert_int_equal(t.state, META_TABLE_DISABLING);
    assert_memory_equal(t.schema, "schema-bytes", 12); /* the schema stays */
    meta_table_clear(&t);
    assert_int_equal(meta_set_table_state(f->m, "default:nope", META_TABLE_DISABLED), ST_NOT_FOUND);
    assert_false(has_table(f->m, "default:nope"));
    assert_int_equal(meta_get_table(f->m, "default:nope", &t), ST_NOT_FOUND);
    assert_non_null(strstr(st_errmsg(), "default:nope"));

    /* put_table rewrites schema and state. */
    meta_table nt = table_of("default:a");
    nt.schema = (uint8_t *)"v2";
    nt.schema_len = 2;
    nt.state = META_TABLE_DISABLED;
    assert_int_equal(meta_put_table(f->m, &nt), ST_OK);
    assert_int_equal(meta_get_table(f->m, "default:a", &t), ST_OK);
    assert_int_equal(t.schema_len, 2);
    assert_int_equal(t.state, META_TABLE_DISABLED);
    meta_table_clear(&t);

    /* Create twice, or into a missing namespace. */
    size_t nr = 0;
    meta_region *r = make_regions("default:a", 7, NULL, 0, &nr);
    assert_int_equal(meta_create_table(f->m, &nt, r, nr), ST_EXISTS);
    meta_regions_free(r, nr);
    r = make_regions("ghost:t", 7, NULL, 0, &nr);
    meta_table gt = table_of("ghost:t");
    assert_int_equal(meta_create_table(f->m, &gt, r, nr), ST_NOT_FOUND);
    assert_non_null(strstr(st_errmsg(), "ghost"));
    meta_regions_free(r, nr);
}

static void invalid_names_and_region_sets(void **state)
{
    fixture *f = *state;
    meta_table t = table_of("t");
    size_t n = 0;
    meta_region *v = make_regions("t", 1, NULL, 0, &n);
    assert_int_equal(meta_create_table(f->m, &t, v, n), ST_INVALID_ARGUMENT);
    meta_regions_free(v, n);
    meta_table x;
    assert_int_equal(meta_get_table(f->m, "default:a,b", &x), ST_INVALID_ARGUMENT);
    assert_int_equal(meta_get_table(f->m, "a:b:c", &x), ST_INVALID_ARGUMENT);
    assert_int_equal(meta_create_namespace(f->m, "bad,ns"), ST_INVALID_ARGUMENT);
    assert_int_equal(meta_create_namespace(f->m, "bad:ns"), ST_INVALID_ARGUMENT);

    /* A hole, a missing first region, a region of another table, no region. */
    const char *splits[] = {"d", "m"};
    v = make_regions("default:t", 1, splits, 2, &n);
    t = table_of("default:t");
    meta_region hole[2] = {v[0], v[2]};
    assert_int_equal(meta_create_table(f->m, &t, hole, 2), ST_INVALID_ARGUMENT);
    assert_int_equal(meta_create_table(f->m, &t, v + 1, 2), ST_INVALID_ARGUMENT);
    assert_int_equal(meta_create_table(f->m, &t, v, 0), ST_INVALID_ARGUMENT);
    meta_region other = v[0];
    snprintf(other.table, sizeof(other.table), "default:u");
    meta_region mixed[3] = {other, v[1], v[2]};
    assert_int_equal(meta_create_table(f->m, &t, mixed, 3), ST_INVALID_ARGUMENT);
    assert_false(has_table(f->m, "default:t"));
    assert_int_equal(count_regions(f->m, "default:t"), 0);
    assert_int_equal(meta_create_table(f->m, &t, v, n), ST_OK);
    meta_regions_free(v, n);
}

static void replace_regions_swaps_the_set(void **state)
{
    fixture *f = *state;
    const char *splits[] = {"f", "q"};
    create_table(f->m, "default:t", 100, splits, 2);
    create_table(f->m, "default:t2", 100, splits, 2);
    /* Truncate without splits: one new region. */
    size_t n = 0;
    meta_region *v = make_regions("default:t", 200, NULL, 0, &n);
    assert_int_equal(meta_replace_regions(f->m, "default:t", v, n), ST_OK);
    meta_region *got = NULL;
    size_t ng = 0;
    assert_int_equal(meta_table_regions(f->m, "default:t", &got, &ng), ST_OK);
    assert_int_equal(ng, 1);
    assert_int_equal(got[0].region_id, 200);
    assert_string_equal(got[0].encoded_name, v[0].encoded_name);
    meta_regions_free(got, ng);
    meta_regions_free(v, n);
    /* A replacement that keeps one row as it is (same start key and id). */
    const char *s2[] = {"m"};
    v = make_regions("default:t", 200, s2, 1, &n);
    v[0].state = META_OPEN;
    assert_int_equal(meta_replace_regions(f->m, "default:t", v, n), ST_OK);
    assert_int_equal(meta_table_regions(f->m, "default:t", &got, &ng), ST_OK);
    assert_int_equal(ng, 2);
    assert_int_equal(got[0].state, META_OPEN); /* rewritten, not deleted */
    key_equal(got[1].start_key, got[1].start_len, "m");
    meta_regions_free(got, ng);
    assert_int_equal(count_regions(f->m, "default:t2"), 3);
    assert_true(has_table(f->m, "default:t"));
    meta_regions_free(v, n);
    v = make_regions("default:none", 1, NULL, 0, &n);
    assert_int_equal(meta_replace_regions(f->m, "default:none", v, n), ST_NOT_FOUND);
    meta_regions_free(v, n);
}

/* ---------------------------------------------------------------- namespaces */

static void namespaces_create_delete_list(void **state)
{
    fixture *f = *state;
    assert_int_equal(meta_namespace_exists(f->m, "default"), ST_OK);
    assert_int_equal(meta_namespace_exists(f->m, "strata"), ST_OK);
    assert_int_equal(meta_namespace_exists(f->m, "ns1"), ST_NOT_FOUND);
    assert_int_equal(meta_create_namespace(f->m, "ns1"), ST_OK);
    assert_int_equal(meta_create_namespace(f->m, "ns1"), ST_EXISTS);
    assert_non_null(strstr(st_errmsg(), "ns1"));
    assert_int_equal(meta_create_namespace(f->m, "abc"), ST_OK);
    char **names = NULL;
    size_t n = 0;
    assert_int_equal(meta_list_namespaces(f->m, &names, &n), ST_OK);
    assert_int_equal(n, 4);
    assert_string_equal(names[0], "abc");
    assert_string_equal(names[1], "default");
    assert_string_equal(names[2], "ns1");
    assert_string_equal(names[3], "strata");
    meta_names_free(names, n);

    create_table(f->m, "ns1:t", 1, NULL, 0);
    assert_int_equal(meta_delete_namespace(f->m, "ns1"), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "ns1:t"));
    assert_int_equal(meta_delete_table(f->m, "ns1:t"), ST_OK);
    assert_int_equal(meta_delete_namespace(f->m, "ns1"), ST_OK);
    assert_int_equal(meta_namespace_exists(f->m, "ns1"), ST_NOT_FOUND);
    assert_int_equal(meta_delete_namespace(f->m, "ns1"), ST_NOT_FOUND);
    assert_int_equal(meta_delete_namespace(f->m, "default"), ST_INVALID_ARGUMENT);
    assert_int_equal(meta_delete_namespace(f->m, "strata"), ST_INVALID_ARGUMENT);
    /* Dropped and created again in the same breath. */
    assert_int_equal(meta_create_namespace(f->m, "ns1"), ST_OK);
    assert_int_equal(meta_namespace_exists(f->m, "ns1"), ST_OK);
}

typedef struct race_arg {
    meta *m;
    int created;
    int exists;
} race_arg;

static void *race_namespaces(void *p)
{
    race_arg *a = p;
    char name[32];
    for (int i = 0; i < 20; i++) {
        snprintf(name, sizeof(name), "race%02d", i);
        int rc = meta_create_namespace(a->m, name);
        if (rc == ST_OK)
            a->created++;
        else if (rc == ST_EXISTS)
            a->exists++;
    }
    return NULL;
}

static void concurrent_creates_one_winner_each(void **state)
{
    fixture *f = *state;
    pthread_t th[4];
    race_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (race_arg){f->m, 0, 0};
        pthread_create(&th[i], NULL, race_namespaces, &args[i]);
    }
    int created = 0, exists = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        created += args[i].created;
        exists += args[i].exists;
    }
    assert_int_equal(created, 20);
    assert_int_equal(exists, 60);
}

/* ---------------------------------------------------------------- durability */

static void write_sample(meta *m)
{
    const char *splits[] = {"4", "8", "c"};
    create_table(m, "default:t", 42, splits, 3);
    assert_int_equal(meta_create_namespace(m, "ns1"), ST_OK);
    assert_int_equal(meta_set_table_state(m, "default:t", META_TABLE_DISABLED), ST_OK);
    meta_region *v = NULL;
    size_t n = 0;
    assert_int_equal(meta_table_regions(m, "default:t", &v, &n), ST_OK);
    v[2].state = META_OPEN;
    snprintf(v[2].server, sizeof(v[2].server), "h,1,2");
    assert_int_equal(meta_put_region(m, &v[2]), ST_OK);
    meta_regions_free(v, n);
}

static void check_sample(meta *m)
{
    meta_table t;
    assert_int_equal(meta_get_table(m, "default:t", &t), ST_OK);
    assert_int_equal(t.state, META_TABLE_DISABLED);
    meta_table_clear(&t);
    assert_int_equal(meta_namespace_exists(m, "ns1"), ST_OK);
    assert_int_equal(meta_namespace_exists(m, "default"), ST_OK);
    meta_region *v = NULL;
    size_t n = 0;
    assert_int_equal(meta_table_regions(m, "default:t", &v, &n), ST_OK);
    assert_int_equal(n, 4);
    assert_int_equal(v[2].state, META_OPEN);
    assert_string_equal(v[2].server, "h,1,2");
    key_equal(v[2].start_key, v[2].start_len, "8");
    meta_regions_free(v, n);
}

static void survives_close_and_reopen(void **state)
{
    fixture *f = *state;
    write_sample(f->m);
    close_all(f);
    open_at(f, f->dir);
    check_sample(f->m);
}

static void crash_replays_meta_from_wal(void **state)
{
    fixture *f = *state;
    write_sample(f->m);
    /* The root as a killed master leaves it: edits only in the WAL. */
    f->copy = tu_tempdir("meta-crash");
    copy_tree(f->dir, f->copy);
    close_all(f);
    open_at(f, f->copy);
    check_sample(f->m);
}

static void crash_torn_record_drops_whole_table(void **state)
{
    fixture *f = *state;
    create_table(f->m, "default:t1", 1, NULL, 0);
    char *wal = newest_wal(f->dir);
    uint64_t before = file_size(wal);
    const char *splits[] = {"a", "b"};
    create_table(f->m, "default:t2", 1, splits, 2);
    uint64_t after = file_size(wal);
    assert_true(after > before);
    f->copy = tu_tempdir("meta-torn");
    copy_tree(f->dir, f->copy);
    close_all(f);
    /* Cut the last record (the table row and its three region rows) in the middle. */
    char *cwal = newest_wal(f->copy);
    assert_int_equal(file_size(cwal), after);
    assert_int_equal(fio_truncate(cwal, before + (after - before) / 2), ST_OK);
    open_at(f, f->copy);
    assert_true(has_table(f->m, "default:t1"));
    assert_int_equal(count_regions(f->m, "default:t1"), 1);
    assert_false(has_table(f->m, "default:t2"));
    assert_int_equal(count_regions(f->m, "default:t2"), 0);
    free(wal);
    free(cwal);
}

static void fault_wal_write_leaves_no_part_of_table(void **state)
{
    fixture *f = *state;
    fio_fault fault = {.op = FIO_OP_WRITE, .path_match = "/WALs/", .count = 1, .short_bytes = 40};
    fio_fault_set(&fault);
    const char *splits[] = {"a", "b"};
    size_t n = 0;
    meta_region *v = make_regions("default:t", 1, splits, 2, &n);
    meta_table t = table_of("default:t");
    assert_int_not_equal(meta_create_table(f->m, &t, v, n), ST_OK);
    assert_int_equal(fio_fault_hits(), 1);
    fio_fault_clear();
    assert_false(has_table(f->m, "default:t"));
    assert_int_equal(count_regions(f->m, "default:t"), 0);
    /* Nor after a replay of the WAL. */
    f->copy = tu_tempdir("meta-fault");
    copy_tree(f->dir, f->copy);
    close_all(f);
    open_at(f, f->copy);
    assert_false(has_table(f->m, "default:t"));
    assert_int_equal(count_regions(f->m, "default:t"), 0);
    assert_int_equal(meta_create_table(f->m, &t, v, n), ST_OK);
    assert_int_equal(count_regions(f->m, "default:t"), 3);
    meta_regions_free(v, n);
}

/* ---------------------------------------------------------------- meta clock */

static void same_ms_delete_then_recreate_is_visible(void **state)
{
    fixture *f = *state;
    clock_set_fake_ms(1800000000000ll);
    const char *splits[] = {"k"};
    create_table(f->m, "default:t", 1, splits, 1);
    assert_int_equal(meta_delete_table(f->m, "default:t"), ST_OK);
    create_table(f->m, "default:t", 1, splits, 1);
    assert_true(has_table(f->m, "default:t"));
    assert_int_equal(count_regions(f->m, "default:t"), 2);
    assert_int_equal(meta_delete_namespace(f->m, "default"), ST_INVALID_ARGUMENT);
    assert_int_equal(meta_create_namespace(f->m, "n"), ST_OK);
    assert_int_equal(meta_delete_namespace(f->m, "n"), ST_OK);
    assert_int_equal(meta_create_namespace(f->m, "n"), ST_OK);
    assert_int_equal(meta_namespace_exists(f->m, "n"), ST_OK);
}

static void clock_behind_after_reopen_still_writes_visibly(void **state)
{
    fixture *f = *state;
    clock_set_fake_ms(1800000005000ll);
    create_table(f->m, "default:t", 1, NULL, 0);
    assert_int_equal(meta_delete_table(f->m, "default:t"), ST_OK);
    close_all(f);
    /* The next master's clock is five seconds behind the delete markers. */
    clock_set_fake_ms(1800000000000ll);
    open_at(f, f->dir);
    create_table(f->m, "default:t", 1, NULL, 0);
    assert_true(has_table(f->m, "default:t"));
    assert_int_equal(count_regions(f->m, "default:t"), 1);
}

/* ---------------------------------------------------------------- names and keys */

static void encoded_name_is_md5_of_row(void **state)
{
    (void)state;
    char name[33];
    meta_encoded_name("default:t", NULL, 0, 1, name);
    assert_int_equal(strlen(name), 32);
    assert_string_equal(name, "7babd7110704c4b96d7f32e9eb40511a"); /* md5sum of the row */
    size_t len = 0;
    uint8_t *row = meta_region_row("default:t", (const uint8_t *)"k", 1, 1700000000000ull, &len);
    key_equal(row, len, "default:t,k,1700000000000");
    free(row);
    char other[33];
    meta_encoded_name("default:t", (const uint8_t *)"k", 1, 1, other);
    assert_string_not_equal(name, other);
    for (int i = 0; i < 32; i++)
        assert_non_null(strchr("0123456789abcdef", other[i]));
}

static void hex_string_split_matches_hbase(void **state)
{
    (void)state;
    uint8_t **k = NULL;
    size_t *l = NULL;
    assert_int_equal(meta_split_keys("HexStringSplit", 4, &k, &l), ST_OK);
    key_equal(k[0], l[0], "3fffffff");
    key_equal(k[1], l[1], "7ffffffe");
    key_equal(k[2], l[2], "bffffffd");
    meta_keys_free(k, l, 3);
    /* HBase's TestRegionSplitter, 16 regions. */
    assert_int_equal(meta_split_keys("HexStringSplit", 16, &k, &l), ST_OK);
    key_equal(k[0], l[0], "0fffffff");
    key_equal(k[1], l[1], "1ffffffe");
    key_equal(k[14], l[14], "effffff1");
    meta_keys_free(k, l, 15);
    assert_int_equal(meta_split_keys("HexStringSplit", 1, &k, &l), ST_OK);
    assert_null(k);
}

/* HBase's DecimalStringSplit: 00000000..99999999 in n steps of floor(10^8 / n). */
static void decimal_split_as_hbase(void **state)
{
    (void)state;
    uint8_t **k = NULL;
    size_t *l = NULL;
    assert_int_equal(meta_split_keys("DecimalStringSplit", 4, &k, &l), ST_OK);
    key_equal(k[0], l[0], "25000000");
    key_equal(k[1], l[1], "50000000");
    key_equal(k[2], l[2], "75000000");
    meta_keys_free(k, l, 3);
    assert_int_equal(meta_split_keys("DecimalStringSplit", 3, &k, &l), ST_OK);
    key_equal(k[0], l[0], "33333333");
    key_equal(k[1], l[1], "66666666");
    meta_keys_free(k, l, 2);
    assert_int_equal(meta_split_keys("DecimalStringSplit", 1000, &k, &l), ST_OK);
    key_equal(k[0], l[0], "00100000");
    for (int i = 1; i < 999; i++)
        assert_true(memcmp(k[i - 1], k[i], 8) < 0);
    meta_keys_free(k, l, 999);
}

static void uniform_split_sorted_distinct(void **state)
{
    (void)state;
    uint8_t **k = NULL;
    size_t *l = NULL;
    assert_int_equal(meta_split_keys("UniformSplit", 5, &k, &l), ST_OK);
    assert_int_equal(be64_get(k[0]), 0x3333333333333333ull);
    assert_int_equal(be64_get(k[3]), 0xccccccccccccccccull);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(l[i], 8);
        if (i)
            assert_true(memcmp(k[i - 1], k[i], 8) < 0);
    }
    meta_keys_free(k, l, 4);
    assert_int_equal(meta_split_keys("UniformSplit", 2, &k, &l), ST_OK);
    assert_int_equal(be64_get(k[0]), 0x8000000000000000ull);
    meta_keys_free(k, l, 1);
    assert_int_equal(meta_split_keys("UniformSplit", 1000, &k, &l), ST_OK);
    for (int i = 1; i < 999; i++)
        assert_true(memcmp(k[i - 1], k[i], 8) < 0);
    meta_keys_free(k, l, 999);
}

static void bad_split_algorithm_or_count(void **state)
{
    (void)state;
    uint8_t **k = NULL;
    size_t *l = NULL;
    assert_int_equal(meta_split_keys("DecimalSplit", 4, &k, &l), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "DecimalSplit"));
    assert_int_equal(meta_split_keys(NULL, 4, &k, &l), ST_INVALID_ARGUMENT);
    assert_int_equal(meta_split_keys("HexStringSplit", 0, &k, &l), ST_INVALID_ARGUMENT);
    assert_int_equal(meta_split_keys("UniformSplit", 4000000000u, &k, &l), ST_INVALID_ARGUMENT);
    assert_null(k);
    assert_null(l);
}

static void state_names_round_trip(void **state)
{
    (void)state;
    for (int s = META_OFFLINE; s <= META_FAILED_OPEN; s++) {
        meta_region_state back;
        assert_int_equal(meta_region_state_parse(meta_region_state_name(s), &back), ST_OK);
        assert_int_equal(back, s);
    }
    for (int s = META_TABLE_ENABLED; s <= META_TABLE_DISABLING; s++) {
        meta_table_state back;
        assert_int_equal(meta_table_state_parse(meta_table_state_name(s), &back), ST_OK);
        assert_int_equal(back, s);
    }
    assert_string_equal(meta_region_state_name(META_FAILED_OPEN), "FAILED_OPEN");
    assert_string_equal(meta_table_state_name(META_TABLE_ENABLING), "ENABLING");
    meta_region_state rs;
    meta_table_state ts;
    assert_int_equal(meta_region_state_parse("open", &rs), ST_INVALID_ARGUMENT);
    assert_int_equal(meta_table_state_parse("", &ts), ST_INVALID_ARGUMENT);
    assert_string_equal(meta_region_state_name((meta_region_state)99), "UNKNOWN");
}


/* ---------------------------------------------------------------- split, merge, procedures */

static meta_region *find_in(meta_region *v, size_t n, const char *enc)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].encoded_name, enc) == 0)
            return &v[i];
    return NULL;
}

/* A split as the master writes it: parent offline+split naming its daughters, daughters
 * CLOSED and the procedure row, in one apply; all of it reads back, also after a reopen. */
static void split_change_reads_back_and_survives_reopen(void **state)
{
    fixture *f = *state;
    create_table(f->m, "default:t", 1, NULL, 0);
    meta_region *cur = NULL;
    size_t n = 0;
    assert_int_equal(meta_table_regions(f->m, "default:t", &cur, &n), ST_OK);
    assert_int_equal(n, 1);
    const char *mid[] = {"m"};
    size_t nd = 0;
    meta_region *d = make_regions("default:t", 2, mid, 1, &nd);
    meta_region rows[3];
    assert_int_equal(meta_region_copy(&rows[0], &cur[0]), ST_OK);
    rows[0].offline = rows[0].split = true;
    rows[0].state = META_OFFLINE;
    snprintf(rows[0].split_a, sizeof(rows[0].split_a), "%s", d[0].encoded_name);
    snprintf(rows[0].split_b, sizeof(rows[0].split_b), "%s", d[1].encoded_name);
    rows[1] = d[0];
    rows[2] = d[1];
    meta_change c = {.put = rows, .nput = 3, .proc_id = 42,
                     .proc_data = (const uint8_t *)"step-4", .proc_len = 6};
    assert_int_equal(meta_apply(f->m, &c), ST_OK);
    for (int round = 0; round < 2; round++) {
        meta_region *v = NULL;
        size_t nv = 0;
        assert_int_equal(meta_table_regions(f->m, "default:t", &v, &nv), ST_OK);
        assert_int_equal(nv, 3);
        meta_region *p = find_in(v, nv, cur[0].encoded_name);
        assert_non_null(p);
        assert_true(p->offline && p->split);
        assert_string_equal(p->split_a, d[0].encoded_name);
        assert_string_equal(p->split_b, d[1].encoded_name);
        meta_region *a = find_in(v, nv, d[0].encoded_name);
        assert_non_null(a);
        assert_false(a->offline || a->split);
        assert_string_equal(a->split_a, "");
        meta_regions_free(v, nv);
        meta_proc *pv = NULL;
        size_t np = 0;
        assert_int_equal(meta_list_procs(f->m, &pv, &np), ST_OK);
        assert_int_equal(np, 1);
        assert_int_equal(pv[0].id, 42);
        assert_int_equal(pv[0].len, 6);
        assert_memory_equal(pv[0].data, "step-4", 6);
        meta_procs_free(pv, np);
        close_all(f);
        open_at(f, f->dir);
    }
    /* The procedure ends: its row goes; the region rows stay. */
    meta_change end = {.proc_id = 42, .proc_delete = true};
    assert_int_equal(meta_apply(f->m, &end), ST_OK);
    meta_proc *pv = NULL;
    size_t np = 9;
    assert_int_equal(meta_list_procs(f->m, &pv, &np), ST_OK);
    assert_int_equal(np, 0);
    meta_procs_free(pv, np);
    assert_int_equal(count_regions(f->m, "default:t"), 3);
    meta_region_clear(&rows[0]);
    meta_regions_free(d, nd);
    meta_regions_free(cur, n);
}

/* A merge: parents' rows deleted and the merged row naming them, in one apply; rewriting
 * the merged row without them drops the merge columns. */
static void merge_change_and_its_cleanup(void **state)
{
    fixture *f = *state;
    const char *mid[] = {"m"};
    create_table(f->m, "default:t", 1, mid, 1);
    meta_region *cur = NULL;
    size_t n = 0;
    assert_int_equal(meta_table_regions(f->m, "default:t", &cur, &n), ST_OK);
    assert_int_equal(n, 2);
    size_t nm = 0;
    meta_region *merged = make_regions("default:t", 2, NULL, 0, &nm);
    merged[0].nmerged = 2;
    snprintf(merged[0].merged[0], sizeof(merged[0].merged[0]), "%s", cur[0].encoded_name);
    snprintf(merged[0].merged[1], sizeof(merged[0].merged[1]), "%s", cur[1].encoded_name);
    meta_change c = {.put = merged, .nput = 1, .del = cur, .ndel = 2, .proc_id = 7,
                     .proc_data = (const uint8_t *)"x", .proc_len = 1};
    assert_int_equal(meta_apply(f->m, &c), ST_OK);
    meta_region *v = NULL;
    size_t nv = 0;
    assert_int_equal(meta_table_regions(f->m, "default:t", &v, &nv), ST_OK);
    assert_int_equal(nv, 1);
    assert_int_equal(v[0].nmerged, 2);
    assert_string_equal(v[0].merged[0], cur[0].encoded_name);
    assert_string_equal(v[0].merged[1], cur[1].encoded_name);
    v[0].nmerged = 0;
    assert_int_equal(meta_put_region(f->m, &v[0]), ST_OK);
    meta_regions_free(v, nv);
    assert_int_equal(meta_table_regions(f->m, "default:t", &v, &nv), ST_OK);
    assert_int_equal(nv, 1);
    assert_int_equal(v[0].nmerged, 0);
    meta_regions_free(v, nv);
    /* A row both written and deleted is refused before anything is written. */
    meta_change bad = {.put = merged, .nput = 1, .del = merged, .ndel = 1};
    assert_int_equal(meta_apply(f->m, &bad), ST_INVALID_ARGUMENT);
    meta_regions_free(merged, nm);
    meta_regions_free(cur, n);
}

/* Procedure rows never show as regions, tables or namespaces. */
static void procedure_rows_stay_apart(void **state)
{
    fixture *f = *state;
    create_table(f->m, "default:t", 1, NULL, 0);
    for (uint64_t id = 1; id <= 3; id++) {
        meta_change c = {.proc_id = id, .proc_data = (const uint8_t *)"p", .proc_len = 1};
        assert_int_equal(meta_apply(f->m, &c), ST_OK);
    }
    meta_region *v = NULL;
    size_t nv = 0;
    assert_int_equal(meta_all_regions(f->m, &v, &nv), ST_OK);
    assert_int_equal(nv, 1);
    meta_regions_free(v, nv);
    meta_table *t = NULL;
    size_t nt = 0;
    assert_int_equal(meta_list_tables(f->m, NULL, &t, &nt), ST_OK);
    assert_int_equal(nt, 1);
    meta_tables_free(t, nt);
    char **ns = NULL;
    size_t nn = 0;
    assert_int_equal(meta_list_namespaces(f->m, &ns, &nn), ST_OK);
    assert_int_equal(nn, 2);
    meta_names_free(ns, nn);
    meta_proc *pv = NULL;
    size_t np = 0;
    assert_int_equal(meta_list_procs(f->m, &pv, &np), ST_OK);
    assert_int_equal(np, 3);
    for (size_t i = 0; i < np; i++)
        assert_int_equal(pv[i].id, i + 1);
    meta_procs_free(pv, np);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(create_table_reads_back_sorted, setup, teardown),
        cmocka_unit_test_setup_teardown(region_state_and_server_changes_read_back, setup, teardown),
        cmocka_unit_test_setup_teardown(put_regions_is_one_atomic_change, setup, teardown),
        cmocka_unit_test_setup_teardown(binary_start_keys_sorted_by_key, setup, teardown),
        cmocka_unit_test_setup_teardown(delete_table_leaves_lookalike_names, setup, teardown),
        cmocka_unit_test_setup_teardown(table_rows_state_and_listing, setup, teardown),
        cmocka_unit_test_setup_teardown(invalid_names_and_region_sets, setup, teardown),
        cmocka_unit_test_setup_teardown(replace_regions_swaps_the_set, setup, teardown),
        cmocka_unit_test_setup_teardown(namespaces_create_delete_list, setup, teardown),
        cmocka_unit_test_setup_teardown(concurrent_creates_one_winner_each, setup, teardown),
        cmocka_unit_test_setup_teardown(survives_close_and_reopen, setup, teardown),
        cmocka_unit_test_setup_teardown(crash_replays_meta_from_wal, setup, teardown),
        cmocka_unit_test_setup_teardown(crash_torn_record_drops_whole_table, setup, teardown),
        cmocka_unit_test_setup_teardown(fault_wal_write_leaves_no_part_of_table, setup, teardown),
        cmocka_unit_test_setup_teardown(same_ms_delete_then_recreate_is_visible, setup, teardown),
        cmocka_unit_test_setup_teardown(clock_behind_after_reopen_still_writes_visibly, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(split_change_reads_back_and_survives_reopen, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(merge_change_and_its_cleanup, setup, teardown),
        cmocka_unit_test_setup_teardown(procedure_rows_stay_apart, setup, teardown),
        cmocka_unit_test_setup_teardown(scan_rows_as_stored, setup, teardown),
        cmocka_unit_test(encoded_name_is_md5_of_row),
        cmocka_unit_test(hex_string_split_matches_hbase),
        cmocka_unit_test(decimal_split_as_hbase),
        cmocka_unit_test(uniform_split_sorted_distinct),
        cmocka_unit_test(bad_split_algorithm_or_count),
        cmocka_unit_test(state_names_round_trip),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
