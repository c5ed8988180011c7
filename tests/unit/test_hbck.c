/*
 * test_hbck.c - the checks of `strata hbck` (master/hbck.h) on fixed inputs: a tiling
 * chain is consistent; a missing range is a hole, a region starting inside another an
 * overlap, a table with no region one hole; split parents are out of the chain; an OPEN
 * region no server serves is NOT_DEPLOYED, one on two servers MULTI_DEPLOYED, one on
 * another server SERVER_DOES_NOT_MATCH_META, a served region meta lacks NOT_IN_META; held
 * or recently changed regions are only IN_TRANSITION; directories without rows are
 * orphans, rows without directories NOT_IN_HDFS; references to a gone file or to a region
 * that is no parent linger, those of a split daughter do not; an unreferenced split parent
 * lingers once old; WAL directories of unknown servers are orphans, fenced ones without a
 * recovery unsplit; stuck table states and procedures; the root scan finds directories,
 * data and references.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/fileio.h"
#include "common/status.h"
#include "master/hbck.h"
#include "tests/support/testutil.h"

#define NOW 10000000
#define MAXR 16

typedef struct fx {
    meta_region rows[MAXR];
    hbck_region regs[MAXR];
    size_t n;
    hbck_table table;
    hbck_server servers[4];
    const char *online[4][MAXR];
    hbck_input in;
    hbck_report out;
} fx;

static meta_region *add_region(fx *f, const char *enc, const char *start, const char *end)
{
    meta_region *r = &f->rows[f->n];
    memset(r, 0, sizeof(*r));
    snprintf(r->table, sizeof(r->table), "default:t");
    snprintf(r->encoded_name, sizeof(r->encoded_name), "%s", enc);
    assert_int_equal(meta_region_set_keys(r, (const uint8_t *)start, strlen(start),
                                          (const uint8_t *)end, strlen(end)),
                     ST_OK);
    r->region_id = 1;
    r->state = META_OPEN;
    snprintf(r->server, sizeof(r->server), "h,1,1");
    f->regs[f->n] = (hbck_region){.mr = r, .since_ms = NOW - 600000};
    f->n++;
    return r;
}

/* Server "h,1,1" serves every region added so far. */
static void serve_all(fx *f)
{
    for (size_t i = 0; i < f->n; i++)
        f->online[0][i] = f->rows[i].encoded_name;
    f->servers[0] =
        (hbck_server){.name = "h,1,1", .regions = f->online[0], .nregions = f->n, .reached = true};
    f->in.nservers = 1;
}

static fx *fx_new(void)
{
    fx *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    f->table = (hbck_table){.name = "default:t", .state = META_TABLE_ENABLED};
    f->in = (hbck_input){.now_ms = NOW,
                         .stuck_ms = 60000,
                         .started_ms = NOW - 10,
                         .regions = f->regs,
                         .tables = &f->table,
                         .ntables = 1,
                         .servers = f->servers,
                         .session_timeout_ms = 6000};
    return f;
}

static void run(fx *f)
{
    f->in.nregions = f->n;
    hbck_report_free(&f->out);
    hbck_check_all(&f->in, &f->out);
}

static void fx_free(fx *f)
{
    for (size_t i = 0; i < f->n; i++)
        meta_region_clear(&f->rows[i]);
    hbck_report_free(&f->out);
    free(f);
}

static size_t count(const fx *f, hbck_kind k, bool error)
{
    size_t n = 0;
    for (size_t i = 0; i < f->out.n; i++)
        n += f->out.v[i].kind == k && f->out.v[i].error == error;
    return n;
}

static const hbck_finding *first(const fx *f, hbck_kind k)
{
    for (size_t i = 0; i < f->out.n; i++)
        if (f->out.v[i].kind == k)
            return &f->out.v[i];
    return NULL;
}

static void test_consistent_chain(void **state)
{
    (void)state;
    fx *f = fx_new();
    add_region(f, "a", "", "g");
    add_region(f, "b", "g", "p");
    add_region(f, "c", "p", "");
    serve_all(f);
    run(f);
    assert_int_equal(f->out.n, 0);
    assert_int_equal(hbck_errors(&f->out), 0);
    fx_free(f);
}

static void test_hole_and_overlap(void **state)
{
    (void)state;
    fx *f = fx_new();
    add_region(f, "a", "", "g");
    add_region(f, "c", "p", "");
    serve_all(f);
    run(f);
    assert_int_equal(count(f, HBCK_HOLE_IN_REGION_CHAIN, true), 1);
    assert_non_null(strstr(first(f, HBCK_HOLE_IN_REGION_CHAIN)->detail, "[\"g\", \"p\")"));
    assert_string_equal(first(f, HBCK_HOLE_IN_REGION_CHAIN)->region, "c");
    add_region(f, "x", "e", "q"); /* overlaps a and c */
    serve_all(f);
    run(f);
    assert_int_equal(count(f, HBCK_HOLE_IN_REGION_CHAIN, true), 0);
    assert_int_equal(count(f, HBCK_OVERLAP_IN_REGION_CHAIN, true), 2);
    fx_free(f);
}

static void test_hole_at_end_and_empty_table(void **state)
{
    (void)state;
    fx *f = fx_new();
    run(f);
    assert_int_equal(count(f, HBCK_HOLE_IN_REGION_CHAIN, true), 1); /* no region at all */
    add_region(f, "a", "", "g");
    serve_all(f);
    run(f);
    assert_int_equal(count(f, HBCK_HOLE_IN_REGION_CHAIN, true), 1);
    assert_non_null(strstr(first(f, HBCK_HOLE_IN_REGION_CHAIN)->detail, "end of table"));
    fx_free(f);
}

static void test_split_parent_out_of_chain(void **state)
{
    (void)state;
    fx *f = fx_new();
    meta_region *p = add_region(f, "p", "", "");
    p->offline = p->split = true;
    p->state = META_OFFLINE;
    p->server[0] = 0;
    add_region(f, "a", "", "m");
    add_region(f, "b", "m", "");
    snprintf(p->split_a, sizeof(p->split_a), "a");
    snprintf(p->split_b, sizeof(p->split_b), "b");
    serve_all(f);
    f->servers[0].nregions = 0; /* serve only the daughters */
    f->online[0][0] = "a";
    f->online[0][1] = "b";
    f->servers[0].nregions = 2;
    run(f);
    assert_int_equal(hbck_errors(&f->out), 0);
    fx_free(f);
}

static void test_deployment(void **state)
{
    (void)state;
    fx *f = fx_new();
    add_region(f, "a", "", "g");
    add_region(f, "b", "g", "");
    serve_all(f);
    f->servers[0].nregions = 1; /* b is served by nobody */
    run(f);
    assert_int_equal(count(f, HBCK_NOT_DEPLOYED, true), 1);
    assert_string_equal(first(f, HBCK_NOT_DEPLOYED)->region, "b");
    /* Regression: while a DDL (an enable, a split) moves the table's regions, what it has
     * not reached yet is in transition, not an error. */
    f->table.ddl = true;
    run(f);
    assert_int_equal(count(f, HBCK_NOT_DEPLOYED, true), 0);
    assert_int_equal(count(f, HBCK_IN_TRANSITION, false), 1);
    f->table.ddl = false;
    /* b on a second server that meta does not name */
    const char *other[] = {"b", "zz"};
    f->servers[1] =
        (hbck_server){.name = "h,2,2", .regions = other, .nregions = 2, .reached = true};
    f->in.nservers = 2;
    run(f);
    assert_int_equal(count(f, HBCK_NOT_DEPLOYED, true), 0);
    assert_int_equal(count(f, HBCK_SERVER_DOES_NOT_MATCH_META, true), 1);
    assert_string_equal(first(f, HBCK_SERVER_DOES_NOT_MATCH_META)->server, "h,2,2");
    assert_int_equal(count(f, HBCK_NOT_IN_META, true), 1); /* zz */
    f->servers[0].nregions = 2;                            /* now b on both */
    run(f);
    assert_int_equal(count(f, HBCK_MULTI_DEPLOYED, true), 1);
    fx_free(f);
}

static void test_in_transition_is_not_an_error(void **state)
{
    (void)state;
    fx *f = fx_new();
    add_region(f, "a", "", "g");
    meta_region *b = add_region(f, "b", "g", "");
    serve_all(f);
    f->servers[0].nregions = 1;
    f->regs[1].busy = true; /* an operation holds b since 1 s */
    f->regs[1].since_ms = NOW - 1000;
    run(f);
    assert_int_equal(hbck_errors(&f->out), 0);
    assert_int_equal(count(f, HBCK_IN_TRANSITION, false), 1);
    f->regs[1].since_ms = NOW - 600000; /* held for 10 min with no change: stuck */
    run(f);
    assert_int_equal(count(f, HBCK_NOT_DEPLOYED, true), 1);
    f->regs[1].busy = false;
    b->state = META_OPENING; /* opening for 5 s: in transition */
    f->regs[1].since_ms = NOW - 5000;
    run(f);
    assert_int_equal(hbck_errors(&f->out), 0);
    f->regs[1].since_ms = NOW - 120000; /* for 2 min: stuck */
    run(f);
    assert_int_equal(count(f, HBCK_NOT_DEPLOYED, true), 1);
    f->table.state = META_TABLE_DISABLED; /* a disabled table wants it closed */
    b->state = META_CLOSED;
    b->server[0] = 0;
    run(f);
    assert_int_equal(count(f, HBCK_NOT_DEPLOYED, true), 0);
    assert_int_equal(count(f, HBCK_SHOULD_NOT_BE_DEPLOYED, true), 1); /* a still served */
    fx_free(f);
}

static void test_dead_and_unreachable_servers(void **state)
{
    (void)state;
    fx *f = fx_new();
    meta_region *a = add_region(f, "a", "", "");
    snprintf(a->server, sizeof(a->server), "dead,1,1");
    serve_all(f);
    f->servers[0].nregions = 0;
    run(f);
    assert_int_equal(count(f, HBCK_NOT_DEPLOYED, true), 1);
    const char *rec[] = {"dead,1,1"};
    f->in.recovering = rec;
    f->in.nrecovering = 1;
    run(f);
    assert_int_equal(hbck_errors(&f->out), 0);
    snprintf(a->server, sizeof(a->server), "h,1,1");
    f->servers[0].reached = false;
    run(f);
    assert_int_equal(count(f, HBCK_SERVER_UNREACHABLE, true), 1);
    assert_int_equal(count(f, HBCK_NOT_DEPLOYED, true), 0);
    fx_free(f);
}

static hbck_dir mkdir_entry(const char *enc, bool data)
{
    hbck_dir d;
    memset(&d, 0, sizeof(d));
    snprintf(d.table, sizeof(d.table), "default:t");
    snprintf(d.region, sizeof(d.region), "%s", enc);
    snprintf(d.path, sizeof(d.path), "/r/data/default/t/%s", enc);
    d.has_data = data;
    return d;
}

static hbck_ref ref_entry(const char *region, const char *parent, bool target)
{
    hbck_ref r;
    memset(&r, 0, sizeof(r));
    snprintf(r.table, sizeof(r.table), "default:t");
    snprintf(r.region, sizeof(r.region), "%s", region);
    snprintf(r.parent, sizeof(r.parent), "%s", parent);
    snprintf(r.path, sizeof(r.path), "/r/data/default/t/%s/f/x.%s", region, parent);
    r.target_exists = target;
    return r;
}

static void test_dirs_against_meta(void **state)
{
    (void)state;
    fx *f = fx_new();
    add_region(f, "a", "", "g");
    add_region(f, "b", "g", "");
    serve_all(f);
    hbck_dir dirs[] = {mkdir_entry("a", true), mkdir_entry("o", true), mkdir_entry("e", false)};
    hbck_fs fs = {.dirs = dirs, .ndirs = 3};
    f->in.fs = &fs;
    run(f);
    assert_int_equal(count(f, HBCK_ORPHAN_REGION_DIR, true), 2);
    assert_int_equal(count(f, HBCK_NOT_IN_HDFS, true), 1);
    assert_string_equal(first(f, HBCK_NOT_IN_HDFS)->region, "b");
    assert_non_null(strstr(first(f, HBCK_ORPHAN_REGION_DIR)->detail, "holds data"));
    f->table.ddl = true; /* a split writing daughters: not yet orphans */
    run(f);
    assert_int_equal(count(f, HBCK_ORPHAN_REGION_DIR, true), 0);
    fx_free(f);
}

static void test_references_and_parents(void **state)
{
    (void)state;
    fx *f = fx_new();
    meta_region *p = add_region(f, "p", "", "");
    p->offline = p->split = true;
    p->state = META_OFFLINE;
    p->server[0] = 0;
    snprintf(p->split_a, sizeof(p->split_a), "a");
    snprintf(p->split_b, sizeof(p->split_b), "b");
    add_region(f, "a", "", "m");
    add_region(f, "b", "m", "");
    serve_all(f);
    f->online[0][0] = "a";
    f->online[0][1] = "b";
    f->servers[0].nregions = 2;
    hbck_dir dirs[] = {mkdir_entry("p", true), mkdir_entry("a", true), mkdir_entry("b", true)};
    hbck_ref refs[] = {ref_entry("a", "p", true), ref_entry("b", "q", true),
                       ref_entry("b", "p", false)};
    hbck_fs fs = {.dirs = dirs, .ndirs = 3, .refs = refs, .nrefs = 1};
    f->in.fs = &fs;
    run(f);
    assert_int_equal(hbck_errors(&f->out), 0); /* a daughter's reference to its parent */
    fs.nrefs = 3;
    run(f);
    assert_int_equal(count(f, HBCK_LINGERING_REFERENCE_FILE, true), 2);
    fs.nrefs = 0; /* no daughter references p: lingering once old */
    f->regs[0].since_ms = NOW - 1000;
    run(f);
    assert_int_equal(count(f, HBCK_LINGERING_SPLIT_PARENT, true), 0);
    assert_int_equal(count(f, HBCK_IN_TRANSITION, false), 1);
    f->regs[0].since_ms = NOW - 600000;
    run(f);
    assert_int_equal(count(f, HBCK_LINGERING_SPLIT_PARENT, true), 1);
    fx_free(f);
}

static void test_merge_parent(void **state)
{
    (void)state;
    fx *f = fx_new();
    meta_region *m = add_region(f, "m", "", "");
    snprintf(m->merged[0], sizeof(m->merged[0]), "x");
    snprintf(m->merged[1], sizeof(m->merged[1]), "y");
    m->nmerged = 2;
    serve_all(f);
    hbck_dir dirs[] = {mkdir_entry("m", true), mkdir_entry("x", true), mkdir_entry("y", true)};
    hbck_ref refs[] = {ref_entry("m", "x", true)};
    hbck_fs fs = {.dirs = dirs, .ndirs = 3, .refs = refs, .nrefs = 1};
    f->in.fs = &fs;
    run(f);
    assert_int_equal(hbck_errors(&f->out), 0); /* merge parents' dirs are no orphans */
    fs.nrefs = 0;
    run(f);
    assert_int_equal(count(f, HBCK_LINGERING_MERGE_PARENT, true), 1);
    fx_free(f);
}

static void test_wals(void **state)
{
    (void)state;
    fx *f = fx_new();
    add_region(f, "a", "", "");
    serve_all(f);
    char young[64];
    snprintf(young, sizeof(young), "h,9,%d", NOW - 100);
    char *wals[] = {"h,1,1", "old,1,5", "gone,1,7-splitting", "dead,1,1", "master-h,3,3", young};
    const char *rec[] = {"dead,1,1"};
    f->in.recovering = rec;
    f->in.nrecovering = 1;
    hbck_fs fs = {.wals = wals, .nwals = 6};
    hbck_dir dirs[] = {mkdir_entry("a", true)};
    fs.dirs = dirs;
    fs.ndirs = 1;
    f->in.fs = &fs;
    run(f);
    assert_int_equal(count(f, HBCK_ORPHAN_WAL_DIR, true), 1);
    assert_string_equal(first(f, HBCK_ORPHAN_WAL_DIR)->server, "old,1,5");
    assert_int_equal(count(f, HBCK_UNSPLIT_WAL, true), 1);
    assert_string_equal(first(f, HBCK_UNSPLIT_WAL)->server, "gone,1,7");
    assert_int_equal(count(f, HBCK_IN_TRANSITION, false), 2); /* recovering, young */
    fx_free(f);
}

static void test_tables_and_procs(void **state)
{
    (void)state;
    fx *f = fx_new();
    add_region(f, "a", "", "");
    serve_all(f);
    f->table.state = META_TABLE_DISABLING;
    f->table.since_ms = NOW - 1000;
    run(f);
    assert_int_equal(count(f, HBCK_TABLE_STUCK_DISABLING, true), 0);
    f->table.since_ms = NOW - 120000;
    run(f);
    assert_int_equal(count(f, HBCK_TABLE_STUCK_DISABLING, true), 1);
    f->table.ddl = true;
    run(f);
    assert_int_equal(count(f, HBCK_TABLE_STUCK_DISABLING, true), 0);
    f->table.ddl = false;
    f->table.state = META_TABLE_ENABLING;
    run(f);
    assert_int_equal(count(f, HBCK_TABLE_STUCK_ENABLING, true), 1);
    f->table.state = META_TABLE_ENABLED;
    hbck_proc procs[] = {
        {.id = 7, .type = "SplitTableRegionProcedure", .state = "RUNNABLE", .updated_ms = NOW - 5},
        {.id = 8,
         .type = "MergeTableRegionsProcedure",
         .state = "RUNNABLE",
         .updated_ms = NOW - 300000},
        {.id = 9, .type = "SplitTableRegionProcedure", .state = "SUCCESS", .updated_ms = 1},
        {.id = 10, .type = "SplitTableRegionProcedure", .state = "RUNNABLE", .row_only = true},
        /* Regression: a procedure that began while the report was gathered (its row read,
         * no longer in the list of running ones) is not stuck while its row is fresh. */
        {.id = 11,
         .type = "MergeTableRegionsProcedure",
         .state = "RUNNABLE",
         .updated_ms = NOW - 10,
         .row_only = true},
    };
    f->in.procs = procs;
    f->in.nprocs = 5;
    run(f);
    assert_int_equal(count(f, HBCK_STUCK_PROCEDURE, true), 2);
    assert_int_equal(first(f, HBCK_STUCK_PROCEDURE)->proc_id, 8);
    assert_int_equal(count(f, HBCK_IN_TRANSITION, false), 2); /* 7 and 11 */
    fx_free(f);
}

static void test_format(void **state)
{
    (void)state;
    hbck_report r = {0};
    hbck_add(&r, HBCK_NOT_DEPLOYED, true, "default:t", "abc", "h,1,1", NULL, "x %d", 1);
    char line[512];
    hbck_format(&r.v[0], line, sizeof(line));
    assert_string_equal(line, "ERROR: NOT_DEPLOYED table=default:t region=abc server=h,1,1: x 1");
    hbck_report_free(&r);
}

static void write_file(const char *path, const char *data)
{
    char *dir = fio_dir_of(path);
    assert_int_equal(fio_mkdirs(dir), ST_OK);
    free(dir);
    assert_int_equal(fio_write_atomic(path, data, strlen(data)), ST_OK);
}

static void test_scan_root(void **state)
{
    (void)state;
    char root[256];
    snprintf(root, sizeof(root), "/tmp/test_hbck.XXXXXX");
    assert_non_null(mkdtemp(root));
    const char *a = "0123456789abcdef0123456789abcdef", *p = "fedcba9876543210fedcba9876543210";
    char path[1024];
    snprintf(path, sizeof(path), "%s/data/default/t/%s/f/00000000000000010000000a", root, p);
    write_file(path, "data");
    snprintf(path, sizeof(path), "%s/data/default/t/%s/f/00000000000000010000000a.%s", root, a, p);
    write_file(path, "ref");
    snprintf(path, sizeof(path), "%s/data/default/t/%s/f/00000000000000020000000b.%s", root, a,
             "00000000000000000000000000000000");
    write_file(path, "ref");
    snprintf(path, sizeof(path), "%s/data/default/t/%s/f", root,
             "11111111111111111111111111111111");
    assert_int_equal(fio_mkdirs(path), ST_OK);
    snprintf(path, sizeof(path), "%s/WALs/h,1,1", root);
    assert_int_equal(fio_mkdirs(path), ST_OK);
    hbck_fs fs;
    assert_int_equal(hbck_scan_root(root, NULL, 0, &fs), ST_OK);
    assert_int_equal(fs.ndirs, 3);
    size_t with_data = 0;
    for (size_t i = 0; i < fs.ndirs; i++)
        with_data += fs.dirs[i].has_data;
    assert_int_equal(with_data, 2);
    assert_int_equal(fs.nrefs, 2);
    size_t present = 0;
    for (size_t i = 0; i < fs.nrefs; i++)
        present += fs.refs[i].target_exists;
    assert_int_equal(present, 1);
    assert_int_equal(fs.nwals, 1);
    hbck_fs_free(&fs);
    assert_int_equal(fio_remove_tree(root), ST_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_consistent_chain),
        cmocka_unit_test(test_hole_and_overlap),
        cmocka_unit_test(test_hole_at_end_and_empty_table),
        cmocka_unit_test(test_split_parent_out_of_chain),
        cmocka_unit_test(test_deployment),
        cmocka_unit_test(test_in_transition_is_not_an_error),
        cmocka_unit_test(test_dead_and_unreachable_servers),
        cmocka_unit_test(test_dirs_against_meta),
        cmocka_unit_test(test_references_and_parents),
        cmocka_unit_test(test_merge_parent),
        cmocka_unit_test(test_wals),
        cmocka_unit_test(test_tables_and_procs),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_scan_root),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
