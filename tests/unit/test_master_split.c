/*
 * test_master_split.c - the split and merge procedures of the master (master_split.c,
 * master_merge.c, master_proc.c, master_janitor.c; docs/procedures.md) against a fake
 * cluster (tests/support/master_fake.h) with a real meta table and real region
 * directories: a split whose parent cannot close rolls back (nothing in meta changes, no
 * daughter directory, no procedure row, ROLLEDBACK listed); a split goes through (the
 * parent offline and split naming its daughters, the daughters open where the parent
 * was, the procedure row gone) and the janitor removes the parent once nothing references
 * it; a new master rolls back a procedure row left before its catalog change (the
 * half-made daughters removed) and finishes one left after it (the daughters opened); a
 * merge of two neighbours goes through and the janitor clears its parents; merges of
 * regions not adjacent, of one region twice and of too few regions are refused; the
 * switches refuse and outlive the master; the normalizer merges empty neighbours of a
 * table with NORMALIZATION_ENABLED only, and not while its switch is off.
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

#include "common/clock.h"
#include "common/fileio.h"
#include "common/status.h"
#include "master/master_internal.h"
#include "meta/meta.h"
#include "regionserver/storage/layout.h"
#include "tests/support/master_fake.h"
#include "tests/support/testutil.h"

#define TABLE "default:t"

typedef struct fx {
    char *root;
    mfake *f;
    master *m;
    char s1[SERVER_NAME_MAX], s2[SERVER_NAME_MAX];
} fx;

static int setup(void **state)
{
    fx *x = calloc(1, sizeof(*x));
    x->root = tu_tempdir("msplit");
    x->f = mfake_new();
    uint64_t sc = (uint64_t)clock_now_ms();
    mfake_server_add(x->f, "rs1.unit", 17021, sc, x->s1);
    mfake_server_add(x->f, "rs2.unit", 17022, sc, x->s2);
    assert_int_equal(mfake_master_start(x->f, x->root, 0, NULL, &x->m), ST_OK);
    *state = x;
    return 0;
}

static int teardown(void **state)
{
    fx *x = *state;
    master_free(x->m);
    mfake_free(x->f);
    tu_rmdir(x->root);
    free(x);
    return 0;
}

/* ---------------------------------------------------------------- helpers */

/* The region's family directory exists (what a flushed region leaves behind). */
static void make_region_dir(fx *x, const char *encoded)
{
    char *dir = layout_store_dir(x->root, TABLE, encoded, "cf");
    assert_int_equal(fio_mkdirs(dir), ST_OK);
    free(dir);
}

static bool region_dir_exists(fx *x, const char *encoded)
{
    char *dir = layout_region_dir(x->root, TABLE, encoded);
    bool e = access(dir, F_OK) == 0;
    free(dir);
    return e;
}

static size_t proc_rows(fx *x)
{
    meta_proc *v = NULL;
    size_t n = 0;
    assert_int_equal(meta_list_procs(x->m->meta, &v, &n), ST_OK);
    meta_procs_free(v, n);
    return n;
}

/* The state of the newest procedure of the master's listing, and its error. */
static const char *last_proc(fx *x, char *error, size_t cap)
{
    m_proc *v = NULL;
    size_t n = 0;
    assert_int_equal(master_procs_list(x->m, &v, &n), ST_OK);
    assert_true(n > 0);
    const char *st = master_proc_state_name(v[n - 1].state);
    snprintf(error, cap, "%s", v[n - 1].error);
    free(v);
    return st;
}

static void create_table(fx *x, const char *const *splits, size_t n)
{
    assert_int_equal(mfake_create_table(x->m, TABLE, "cf", splits, n), ST_OK);
    for (size_t i = 0; i <= n; i++) {
        char enc[64];
        assert_true(mfake_region_name(x->m, TABLE, i, enc));
        make_region_dir(x, enc);
    }
}

static void restart_master(fx *x)
{
    master_free(x->m);
    x->m = NULL;
    assert_int_equal(mfake_master_start(x->f, x->root, 0, NULL, &x->m), ST_OK);
}

/* ---------------------------------------------------------------- split */

static void split_rolls_back_when_the_parent_cannot_close(void **state)
{
    fx *x = *state;
    create_table(x, NULL, 0);
    char parent[64];
    assert_true(mfake_region_name(x->m, TABLE, 0, parent));
    meta_region before;
    assert_int_equal(mfake_meta_row(x->m, parent, &before), ST_OK);
    mfake_server_fail(x->f, before.server, "AdminService.CloseRegion", ST_IO, -1, false);
    int rc = master_split_region(x->m, parent, (const uint8_t *)"m", 1, NULL);
    assert_int_not_equal(rc, ST_OK);
    assert_non_null(strstr(st_errmsg(), "rolled back"));
    mfake_server_fail(x->f, before.server, "AdminService.CloseRegion", ST_OK, 0, false);
    /* Nothing changed but the listing. */
    assert_int_equal(mfake_region_count(x->m, TABLE), 1);
    meta_region after;
    assert_int_equal(mfake_meta_row(x->m, parent, &after), ST_OK);
    assert_false(after.offline || after.split);
    assert_string_equal(after.split_a, "");
    meta_region_clear(&after);
    meta_region_clear(&before);
    assert_int_equal(proc_rows(x), 0);
    char err[256];
    assert_string_equal(last_proc(x, err, sizeof(err)), "ROLLEDBACK");
    /* The parent is open again (rollback reopens it, or the chore does). */
    master_chore_pass(x->m, false);
    assert_int_equal(mfake_meta_row(x->m, parent, &after), ST_OK);
    assert_int_equal(after.state, META_OPEN);
    meta_region_clear(&after);
}

static void split_goes_through_and_janitor_cleans(void **state)
{
    fx *x = *state;
    create_table(x, NULL, 0);
    char parent[64];
    assert_true(mfake_region_name(x->m, TABLE, 0, parent));
    meta_region p;
    assert_int_equal(mfake_meta_row(x->m, parent, &p), ST_OK);
    meta_region *d = NULL;
    assert_int_equal(master_split_region(x->m, parent, (const uint8_t *)"m", 1, &d), ST_OK);
    assert_non_null(d);
    assert_int_equal(mfake_region_count(x->m, TABLE), 2);
    meta_region row;
    assert_int_equal(mfake_meta_row(x->m, parent, &row), ST_OK);
    assert_true(row.offline && row.split);
    assert_string_equal(row.split_a, d[0].encoded_name);
    assert_string_equal(row.split_b, d[1].encoded_name);
    assert_string_equal(row.server, "");
    meta_region_clear(&row);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(mfake_meta_row(x->m, d[i].encoded_name, &row), ST_OK);
        assert_int_equal(row.state, META_OPEN);
        assert_string_equal(row.server, p.server); /* where the parent was */
        assert_true(mfake_server_has(x->f, p.server, d[i].encoded_name));
        meta_region_clear(&row);
    }
    assert_int_equal(d[0].end_len, 1);
    assert_int_equal(d[1].start_len, 1);
    assert_int_equal(proc_rows(x), 0);
    char err[256];
    assert_string_equal(last_proc(x, err, sizeof(err)), "SUCCESS");
    /* The daughters hold no references (the parent had no files): the janitor removes it. */
    unsigned cleaned = 0;
    assert_int_equal(master_janitor_run(x->m, &cleaned), ST_OK);
    assert_int_equal(cleaned, 1);
    assert_false(region_dir_exists(x, parent));
    assert_int_equal(mfake_meta_row(x->m, parent, &row), ST_NOT_FOUND);
    /* A split of a daughter at its own start key is refused and changes nothing. */
    int rc = master_split_region(x->m, d[1].encoded_name, (const uint8_t *)"m", 1, NULL);
    assert_int_equal(rc, ST_INVALID_ARGUMENT);
    assert_int_equal(mfake_region_count(x->m, TABLE), 2);
    meta_regions_free(d, 2);
    meta_region_clear(&p);
}

/* A procedure row as an earlier master left it, with the daughters' directories. */
static void leave_split_row(fx *x, const char *parent, unsigned step, meta_region d[2],
                            const meta_region *put, size_t nput)
{
    meta_region p;
    assert_int_equal(mfake_meta_row(x->m, parent, &p), ST_OK);
    Strata__Admin__RegionInfo pi, ci[2], *pv[1] = {&pi}, *cv[2] = {&ci[0], &ci[1]};
    master_region_info_proto(&p, &pi);
    for (int i = 0; i < 2; i++) {
        master_region_info_proto(&d[i], &ci[i]);
        make_region_dir(x, d[i].encoded_name);
    }
    Strata__Master__Procedure pr = STRATA__MASTER__PROCEDURE__INIT;
    pr.id = 77;
    pr.type = "SplitTableRegionProcedure";
    pr.step = step;
    pr.table = TABLE;
    pr.parent = pv;
    pr.n_parent = 1;
    pr.child = cv;
    pr.n_child = 2;
    pr.server = p.server;
    assert_int_equal(master_proc_write(x->m, &pr, "test", put, nput, NULL, 0, NULL), ST_OK);
    meta_region_clear(&p);
}

static void daughters_of(const char *parent_row_table, meta_region d[2])
{
    const char *keys[3] = {"", "m", ""};
    for (int i = 0; i < 2; i++) {
        memset(&d[i], 0, sizeof(d[i]));
        snprintf(d[i].table, sizeof(d[i].table), "%s", parent_row_table);
        d[i].region_id = (uint64_t)clock_now_ms() + 5;
        d[i].state = META_CLOSED;
        assert_int_equal(meta_region_set_keys(&d[i], (const uint8_t *)keys[i], strlen(keys[i]),
                                              (const uint8_t *)keys[i + 1], strlen(keys[i + 1])),
                         ST_OK);
        meta_encoded_name(d[i].table, d[i].start_key, d[i].start_len, d[i].region_id,
                          d[i].encoded_name);
    }
}

static void new_master_rolls_back_before_the_catalog_change(void **state)
{
    fx *x = *state;
    create_table(x, NULL, 0);
    char parent[64];
    assert_true(mfake_region_name(x->m, TABLE, 0, parent));
    meta_region d[2];
    daughters_of(TABLE, d);
    leave_split_row(x, parent, 2 /* CREATE_DAUGHTERS */, d, NULL, 0);
    assert_true(region_dir_exists(x, d[0].encoded_name));
    restart_master(x);
    assert_int_equal(proc_rows(x), 0);
    assert_false(region_dir_exists(x, d[0].encoded_name));
    assert_false(region_dir_exists(x, d[1].encoded_name));
    assert_true(region_dir_exists(x, parent));
    assert_int_equal(mfake_region_count(x->m, TABLE), 1);
    char err[256];
    assert_string_equal(last_proc(x, err, sizeof(err)), "ROLLEDBACK");
    assert_non_null(strstr(err, "failover"));
    meta_region_clear(&d[0]);
    meta_region_clear(&d[1]);
}

static void new_master_finishes_after_the_catalog_change(void **state)
{
    fx *x = *state;
    create_table(x, NULL, 0);
    char parent[64];
    assert_true(mfake_region_name(x->m, TABLE, 0, parent));
    m_region *pr = NULL;
    assert_int_equal(master_region_take(x->m, parent, &pr, NULL), ST_OK);
    assert_int_equal(master_unassign(x->m, pr), ST_OK);
    master_region_give(x->m, pr);
    meta_region d[2];
    daughters_of(TABLE, d);
    meta_region rows[3];
    assert_int_equal(mfake_meta_row(x->m, parent, &rows[0]), ST_OK);
    rows[0].offline = rows[0].split = true;
    rows[0].state = META_OFFLINE;
    rows[0].server[0] = 0;
    snprintf(rows[0].split_a, sizeof(rows[0].split_a), "%s", d[0].encoded_name);
    snprintf(rows[0].split_b, sizeof(rows[0].split_b), "%s", d[1].encoded_name);
    rows[1] = d[0];
    rows[2] = d[1];
    leave_split_row(x, parent, 4 /* OPEN_DAUGHTERS */, d, rows, 3);
    restart_master(x);
    /* The resumed procedure opens both daughters on its own thread. */
    int64_t until = clock_now_ms() + 10000;
    while (proc_rows(x) > 0 && clock_now_ms() < until)
        clock_sleep_ms(20);
    assert_int_equal(proc_rows(x), 0);
    assert_int_equal(mfake_region_count(x->m, TABLE), 2);
    for (int i = 0; i < 2; i++) {
        meta_region row;
        assert_int_equal(mfake_meta_row(x->m, d[i].encoded_name, &row), ST_OK);
        assert_int_equal(row.state, META_OPEN);
        meta_region_clear(&row);
    }
    char err[256];
    assert_string_equal(last_proc(x, err, sizeof(err)), "SUCCESS");
    meta_region_clear(&rows[0]);
    meta_region_clear(&d[0]);
    meta_region_clear(&d[1]);
}

/* ---------------------------------------------------------------- merge */

static void merge_goes_through_and_janitor_cleans(void **state)
{
    fx *x = *state;
    const char *splits[] = {"g", "p"};
    create_table(x, splits, 2);
    char a[64], b[64], c[64];
    assert_true(mfake_region_name(x->m, TABLE, 0, a));
    assert_true(mfake_region_name(x->m, TABLE, 1, b));
    assert_true(mfake_region_name(x->m, TABLE, 2, c));
    /* Refusals first: not adjacent (also with force: b lies between), twice, too few. */
    const char *ac[2] = {a, c};
    assert_int_equal(master_merge_regions(x->m, ac, 2, false, NULL), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "not adjacent"));
    assert_int_equal(master_merge_regions(x->m, ac, 2, true, NULL), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "between"));
    const char *aa[2] = {a, a};
    assert_int_equal(master_merge_regions(x->m, aa, 2, false, NULL), ST_INVALID_ARGUMENT);
    assert_int_equal(master_merge_regions(x->m, ac, 1, false, NULL), ST_INVALID_ARGUMENT);
    assert_int_equal(mfake_region_count(x->m, TABLE), 3);
    assert_int_equal(proc_rows(x), 0);
    /* b and a, in either order. */
    const char *ba[2] = {b, a};
    meta_region merged;
    assert_int_equal(master_merge_regions(x->m, ba, 2, false, &merged), ST_OK);
    assert_int_equal(mfake_region_count(x->m, TABLE), 2);
    assert_int_equal(merged.start_len, 0);
    assert_int_equal(merged.end_len, 1);
    assert_memory_equal(merged.end_key, "p", 1);
    meta_region row;
    assert_int_equal(mfake_meta_row(x->m, merged.encoded_name, &row), ST_OK);
    assert_int_equal(row.state, META_OPEN);
    assert_int_equal(row.nmerged, 2);
    meta_region_clear(&row);
    assert_int_equal(mfake_meta_row(x->m, a, &row), ST_NOT_FOUND);
    assert_int_equal(mfake_meta_row(x->m, b, &row), ST_NOT_FOUND);
    assert_int_equal(proc_rows(x), 0);
    unsigned cleaned = 0;
    assert_int_equal(master_janitor_run(x->m, &cleaned), ST_OK);
    assert_int_equal(cleaned, 1);
    assert_false(region_dir_exists(x, a));
    assert_false(region_dir_exists(x, b));
    assert_int_equal(mfake_meta_row(x->m, merged.encoded_name, &row), ST_OK);
    assert_int_equal(row.nmerged, 0);
    meta_region_clear(&row);
    meta_region_clear(&merged);
}

static void switches_off_refuse(void **state)
{
    fx *x = *state;
    const char *splits[] = {"g"};
    create_table(x, splits, 1);
    char a[64], b[64];
    assert_true(mfake_region_name(x->m, TABLE, 0, a));
    assert_true(mfake_region_name(x->m, TABLE, 1, b));
    bool prev = false;
    assert_int_equal(master_switch_set(x->m, MASTER_SWITCH_SPLIT, false, &prev), ST_OK);
    assert_true(prev);
    assert_int_equal(master_split_region(x->m, a, (const uint8_t *)"c", 1, NULL),
                     ST_INVALID_ARGUMENT);
    assert_int_equal(master_switch_set(x->m, MASTER_SWITCH_MERGE, false, &prev), ST_OK);
    const char *ab[2] = {a, b};
    assert_int_equal(master_merge_regions(x->m, ab, 2, false, NULL), ST_INVALID_ARGUMENT);
    assert_int_equal(mfake_region_count(x->m, TABLE), 2);
    /* A new master keeps them (ZooKeeper). */
    restart_master(x);
    assert_false(master_switch_get(x->m, MASTER_SWITCH_SPLIT));
    assert_false(master_switch_get(x->m, MASTER_SWITCH_MERGE));
    assert_true(master_switch_get(x->m, MASTER_SWITCH_NORMALIZER));
}

/* A server's crash recovery is listed as HBase's ServerCrashProcedure. */
static void crash_recovery_is_listed(void **state)
{
    fx *x = *state;
    create_table(x, NULL, 0);
    mfake_server_kill(x->f, x->s1);
    master_servers_sync(x->m);
    master_chore_pass(x->m, false);
    m_proc *v = NULL;
    size_t n = 0;
    assert_int_equal(master_procs_list(x->m, &v, &n), ST_OK);
    bool found = false;
    for (size_t i = 0; i < n; i++)
        found = found ||
                (strcmp(v[i].type, "ServerCrashProcedure") == 0 && v[i].state == M_PROC_SUCCESS &&
                 strncmp(v[i].regions[0], x->s1, sizeof(v[i].regions[0]) - 1) == 0);
    free(v);
    assert_true(found);
}

/* ---------------------------------------------------------------- normalizer */

/* A table of four regions (g, m, t), NORMALIZATION_ENABLED if `on`. */
static void create_four(fx *x, const char *table, bool on)
{
    Strata__Admin__ColumnFamilySchema fam = STRATA__ADMIN__COLUMN_FAMILY_SCHEMA__INIT, *fp = &fam;
    fam.name = "cf";
    Strata__Admin__NameStringPair v = STRATA__ADMIN__NAME_STRING_PAIR__INIT, *vp = &v;
    v.name = "NORMALIZATION_ENABLED";
    v.value = "true";
    Strata__Admin__TableSchema schema = STRATA__ADMIN__TABLE_SCHEMA__INIT;
    schema.name = (char *)table;
    schema.family = &fp;
    schema.n_family = 1;
    schema.value = on ? &vp : NULL;
    schema.n_value = on ? 1 : 0;
    ProtobufCBinaryData keys[3] = {{1, (uint8_t *)"g"}, {1, (uint8_t *)"m"}, {1, (uint8_t *)"t"}};
    Strata__Master__CreateTableRequest req = STRATA__MASTER__CREATE_TABLE_REQUEST__INIT;
    req.schema = &schema;
    req.split_key = keys;
    req.n_split_key = 3;
    assert_int_equal(master_create_table(x->m, &req), ST_OK);
    for (size_t i = 0; i < 4; i++) {
        char enc[64];
        assert_true(mfake_region_name(x->m, table, i, enc));
        char *dir = layout_store_dir(x->root, table, enc, "cf");
        assert_int_equal(fio_mkdirs(dir), ST_OK);
        free(dir);
    }
}

/* Empty neighbours of a table with NORMALIZATION_ENABLED are merged (regions old enough:
 * the minimum age is 0 here); other tables are left alone; nothing runs with the switch
 * off. */
static void normalizer_merges_empty_neighbours(void **state)
{
    fx *x = *state;
    master_free(x->m);
    const char *kv[] = {"master.normalizer.merge.min.region.age.ms", "0", NULL};
    assert_int_equal(mfake_master_start(x->f, x->root, 0, kv, &x->m), ST_OK);
    create_four(x, "default:n", true);
    create_four(x, "default:o", false);
    assert_int_equal(mfake_report(x->f, x->m, x->s1), ST_OK);
    assert_int_equal(mfake_report(x->f, x->m, x->s2), ST_OK);
    bool prev = true, ran = false;
    assert_int_equal(master_switch_set(x->m, MASTER_SWITCH_NORMALIZER, false, &prev), ST_OK);
    assert_int_equal(master_normalize(x->m, NULL, &ran), ST_OK);
    assert_false(ran);
    assert_int_equal(mfake_region_count(x->m, "default:n"), 4);
    assert_int_equal(master_switch_set(x->m, MASTER_SWITCH_NORMALIZER, true, &prev), ST_OK);
    assert_int_equal(master_normalize(x->m, NULL, &ran), ST_OK);
    assert_true(ran);
    assert_int_equal(mfake_region_count(x->m, "default:n"), 2);
    assert_int_equal(mfake_region_count(x->m, "default:o"), 4);
    assert_non_null(strstr(x->m->normalizer_plan, "merge "));
    assert_int_equal(proc_rows(x), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(split_rolls_back_when_the_parent_cannot_close, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(split_goes_through_and_janitor_cleans, setup, teardown),
        cmocka_unit_test_setup_teardown(new_master_rolls_back_before_the_catalog_change, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(new_master_finishes_after_the_catalog_change, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(merge_goes_through_and_janitor_cleans, setup, teardown),
        cmocka_unit_test_setup_teardown(switches_off_refuse, setup, teardown),
        cmocka_unit_test_setup_teardown(normalizer_merges_empty_neighbours, setup, teardown),
        cmocka_unit_test_setup_teardown(crash_recovery_is_listed, setup, teardown),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
