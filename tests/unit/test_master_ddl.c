/*
 * test_master_ddl.c - table and namespace DDL of the master (master_ddl.c) against a fake
 * cluster (tests/support/master_fake.h) with a real meta table: create table (regions
 * written CLOSED with the table ENABLING before any OpenRegion, then opened, then ENABLED;
 * SPLITS and NUMREGIONS boundaries; no live server leaves the regions CLOSED for the chore;
 * a second create ST_EXISTS; a bad schema, no family, the reserved namespace, a missing
 * namespace, unsorted / repeated / empty split keys and SPLITS with NUMREGIONS refused with
 * nothing written or called), disable (DISABLING while regions close, every region CLOSED
 * on no server, DISABLED; <parent>/table/<t> mirrors each state), enable, truncate with and
 * without preserved splits (new region ids, old data removed, refused while enabled),
 * delete (refused unless disabled; meta rows, data directory and table znode gone), modify
 * (each open region closed and reopened once with the new schema, a dropped family's
 * directories removed), split-policy values and configuration (a create or modify with an
 * unknown SPLIT_POLICY, a bad prefix length or jitter, a policy without its parameter, a
 * NORMALIZATION_ENABLED that is no boolean refused with nothing changed; good ones stored
 * as given), namespaces (create, repeat, delete refused while a table remains,
 * reserved and invalid names), and a DDL cut off by a failover: a table left ENABLING or
 * DISABLING in meta is finished by the next master's chore pass.
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
#include <unistd.h>

#include "common/clock.h"
#include "common/fileio.h"
#include "common/status.h"
#include "master/master_internal.h"
#include "meta/meta.h"
#include "regionserver/storage/layout.h"
#include "tests/support/master_fake.h"
#include "tests/support/testutil.h"

#define OPEN_RPC "AdminService.OpenRegion"
#define CLOSE_RPC "AdminService.CloseRegion"
#define TABLE "default:t"

typedef struct fx {
    char *root;
    mfake *f;
    master *m;
    char s1[SERVER_NAME_MAX], s2[SERVER_NAME_MAX];
    /* what the hook saw that breaks the DDL's order (checked on the test's thread) */
    pthread_mutex_t mu;
    meta_table_state want_table; /* the table state meta must hold at each region RPC */
    const char *want_znode;      /* and the table znode's text */
    int rpcs, wrong;
    char why[512];
} fx;

static void note(fx *x, const char *fmt, const char *a, const char *b)
{
    pthread_mutex_lock(&x->mu);
    x->wrong++;
    if (!x->why[0])
        snprintf(x->why, sizeof(x->why), fmt, a, b);
    pthread_mutex_unlock(&x->mu);
}

/* At each OpenRegion / CloseRegion: the table's state in meta and ZooKeeper, and the
 * region's row (OPENING on the called server, or CLOSING there). */
static void hook(void *arg, const mfake_event *ev)
{
    fx *x = arg;
    bool open = strcmp(ev->method, OPEN_RPC) == 0, close = strcmp(ev->method, CLOSE_RPC) == 0;
    if (ev->kind != MFAKE_EV_RPC || (!open && !close))
        return;
    pthread_mutex_lock(&x->mu);
    const char *want_znode = x->want_znode;
    x->rpcs++;
    pthread_mutex_unlock(&x->mu);
    if (!want_znode)
        return; /* nothing expected yet */
    meta_table t;
    if (meta_get_table(x->m->meta, TABLE, &t) != ST_OK) {
        note(x, "no table row at %s of %s", ev->method, ev->encoded);
        return;
    }
    if (t.state != x->want_table)
        note(x, "table %s at %s", meta_table_state_name(t.state), ev->method);
    meta_table_clear(&t);
    char *zpath = mfake_path(ZNODE_TABLE, TABLE);
    char *text = mfake_zk_data(x->f, zpath, NULL);
    if (!text || strcmp(text, want_znode) != 0)
        note(x, "table znode '%s' at %s", text ? text : "(none)", ev->method);
    free(text);
    free(zpath);
    meta_region row;
    if (mfake_meta_row(x->m, ev->encoded, &row) != ST_OK) {
        note(x, "no row for %s at %s", ev->encoded, ev->method);
        return;
    }
    if (row.state != (open ? META_OPENING : META_CLOSING) || strcmp(row.server, ev->server) != 0)
        note(x, "region %s at %s", meta_region_state_name(row.state), ev->method);
    meta_region_clear(&row);
}

static void expect(fx *x, meta_table_state st, const char *znode)
{
    pthread_mutex_lock(&x->mu);
    x->want_table = st;
    x->want_znode = znode;
    x->rpcs = x->wrong = 0;
    x->why[0] = 0;
    pthread_mutex_unlock(&x->mu);
}

static void assert_order_kept(fx *x, int rpcs)
{
    pthread_mutex_lock(&x->mu);
    if (x->wrong)
        fail_msg("%d region RPCs saw a wrong state, first: %s", x->wrong, x->why);
    assert_int_equal(x->rpcs, rpcs);
    pthread_mutex_unlock(&x->mu);
}

static void start_master(fx *x)
{
    assert_int_equal(mfake_master_start(x->f, x->root, 0, NULL, &x->m), ST_OK);
}

/* A master and two region servers it has heard from; nothing else. */
static int setup(void **state)
{
    fx *x = calloc(1, sizeof(*x));
    pthread_mutex_init(&x->mu, NULL);
    x->root = tu_tempdir("mddl");
    x->f = mfake_new();
    uint64_t sc = (uint64_t)clock_now_ms();
    mfake_server_add(x->f, "rs1.unit", 17021, sc, x->s1);
    mfake_server_add(x->f, "rs2.unit", 17022, sc, x->s2);
    start_master(x);
    mfake_clear_calls(x->f);
    mfake_set_hook(x->f, hook, x);
    *state = x;
    return 0;
}

static int teardown(void **state)
{
    fx *x = *state;
    master_free(x->m);
    mfake_free(x->f);
    tu_rmdir(x->root);
    pthread_mutex_destroy(&x->mu);
    free(x);
    return 0;
}

/* ---------------------------------------------------------------- helpers */

static meta_table_state table_state(fx *x)
{
    meta_table t;
    assert_int_equal(meta_get_table(x->m->meta, TABLE, &t), ST_OK);
    meta_table_state st = t.state;
    meta_table_clear(&t);
    return st;
}

static void assert_znode(fx *x, const char *text)
{
    char *path = mfake_path(ZNODE_TABLE, TABLE);
    char *have = mfake_zk_data(x->f, path, NULL);
    if (text) {
        assert_non_null(have);
        assert_string_equal(have, text);
    } else {
        assert_null(have);
    }
    free(have);
    free(path);
}

static size_t rows_of(fx *x, const char *table, meta_region **rows)
{
    size_t n = 0;
    assert_int_equal(meta_table_regions(x->m->meta, table, rows, &n), ST_OK);
    return n;
}

static void assert_key(const uint8_t *key, size_t len, const char *want)
{
    assert_int_equal(len, strlen(want));
    if (len)
        assert_memory_equal(key, want, len);
}

/* Every region of TABLE is OPEN on a server that has it (and on no other). */
static void assert_all_open(fx *x, size_t n)
{
    meta_region *rows = NULL;
    assert_int_equal(rows_of(x, TABLE, &rows), n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(rows[i].state, META_OPEN);
        assert_true(strcmp(rows[i].server, x->s1) == 0 || strcmp(rows[i].server, x->s2) == 0);
        const char *other = strcmp(rows[i].server, x->s1) == 0 ? x->s2 : x->s1;
        assert_true(mfake_server_has(x->f, rows[i].server, rows[i].encoded_name));
        assert_false(mfake_server_has(x->f, other, rows[i].encoded_name));
    }
    meta_regions_free(rows, n);
}

static void assert_all_closed(fx *x, size_t n)
{
    meta_region *rows = NULL;
    assert_int_equal(rows_of(x, TABLE, &rows), n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(rows[i].state, META_CLOSED);
        assert_string_equal(rows[i].server, "");
    }
    meta_regions_free(rows, n);
    assert_int_equal(mfake_server_nopen(x->f, x->s1) + mfake_server_nopen(x->f, x->s2), 0);
}

static const char *const splits_gp[] = {"g", "p"};

static void create_gp(fx *x)
{
    expect(x, META_TABLE_ENABLING, "ENABLING");
    assert_int_equal(mfake_create_table(x->m, "t", "f", splits_gp, 2), ST_OK);
    assert_order_kept(x, 3);
    mfake_clear_calls(x->f);
}

/* Makes <root>/data/default/t/<region>/<family>/file so that removal shows. */
static char *make_store_file(fx *x, const char *region, const char *family)
{
    char *dir = layout_store_dir(x->root, TABLE, region, family);
    assert_non_null(dir);
    assert_int_equal(fio_mkdirs(dir), ST_OK);
    char *file = NULL;
    assert_true(asprintf(&file, "%s/sf.1", dir) > 0);
    assert_int_equal(fio_write_atomic(file, "x", 1), ST_OK);
    free(file);
    return dir;
}

static bool exists(const char *path)
{
    return access(path, F_OK) == 0;
}

static int disable(fx *x)
{
    expect(x, META_TABLE_DISABLING, "DISABLING");
    return master_disable_table(x->m, "t");
}

/* ---------------------------------------------------------------- create */

static void create_writes_closed_regions_then_opens_then_enables(void **state)
{
    fx *x = *state;
    create_gp(x); /* the hook checked ENABLING in meta and ZooKeeper at each OpenRegion */
    assert_int_equal(table_state(x), META_TABLE_ENABLED);
    assert_znode(x, "ENABLED");
    meta_region *rows = NULL;
    assert_int_equal(rows_of(x, TABLE, &rows), 3);
    assert_key(rows[0].start_key, rows[0].start_len, "");
    assert_key(rows[0].end_key, rows[0].end_len, "g");
    assert_key(rows[1].start_key, rows[1].start_len, "g");
    assert_key(rows[1].end_key, rows[1].end_len, "p");
    assert_key(rows[2].start_key, rows[2].start_len, "p");
    assert_key(rows[2].end_key, rows[2].end_len, "");
    assert_int_equal(rows[0].region_id, rows[2].region_id);
    meta_regions_free(rows, 3);
    assert_all_open(x, 3);
}

static void create_without_live_server_leaves_regions_closed_for_chore(void **state)
{
    fx *x = *state;
    mfake_server_kill(x->f, x->s1);
    mfake_server_kill(x->f, x->s2);
    master_servers_sync(x->m);
    master_chore_pass(x->m, false); /* their (empty) recoveries */
    assert_int_equal(mfake_create_table(x->m, "t", "f", splits_gp, 2), ST_OK);
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 0);
    assert_int_equal(table_state(x), META_TABLE_ENABLED);
    meta_region *rows = NULL;
    assert_int_equal(rows_of(x, TABLE, &rows), 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(rows[i].state, META_CLOSED);
        assert_string_equal(rows[i].server, "");
    }
    meta_regions_free(rows, 3);

    char s3[SERVER_NAME_MAX];
    mfake_server_add(x->f, "rs3.unit", 17023, (uint64_t)clock_now_ms(), s3);
    expect(x, META_TABLE_ENABLED, "ENABLED");
    master_chore_pass(x->m, true);
    assert_order_kept(x, 3);
    assert_int_equal(mfake_count(x->f, s3, OPEN_RPC, NULL), 3);
    assert_int_equal(mfake_server_nopen(x->f, s3), 3);
    assert_int_equal(rows_of(x, TABLE, &rows), 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(rows[i].state, META_OPEN);
        assert_string_equal(rows[i].server, s3);
    }
    meta_regions_free(rows, 3);
}

static void create_with_numregions_uses_hex_string_split(void **state)
{
    fx *x = *state;
    Strata__Admin__ColumnFamilySchema fam = STRATA__ADMIN__COLUMN_FAMILY_SCHEMA__INIT;
    fam.name = "f";
    Strata__Admin__ColumnFamilySchema *fams[] = {&fam};
    Strata__Admin__TableSchema schema = STRATA__ADMIN__TABLE_SCHEMA__INIT;
    schema.name = "t";
    schema.family = fams;
    schema.n_family = 1;
    Strata__Master__CreateTableRequest req = STRATA__MASTER__CREATE_TABLE_REQUEST__INIT;
    req.schema = &schema;
    req.has_num_regions = 1;
    req.num_regions = 4;
    expect(x, META_TABLE_ENABLING, "ENABLING");
    assert_int_equal(master_create_table(x->m, &req), ST_OK);
    assert_order_kept(x, 4);
    meta_region *rows = NULL;
    assert_int_equal(rows_of(x, TABLE, &rows), 4);
    static const char *const starts[] = {"", "3fffffff", "7ffffffe", "bffffffd"};
    for (size_t i = 0; i < 4; i++) {
        assert_key(rows[i].start_key, rows[i].start_len, starts[i]);
        assert_key(rows[i].end_key, rows[i].end_len, i < 3 ? starts[i + 1] : "");
    }
    meta_regions_free(rows, 4);
    assert_all_open(x, 4);
}

static void create_existing_table_is_st_exists_and_changes_nothing(void **state)
{
    fx *x = *state;
    create_gp(x);
    char before[64];
    assert_true(mfake_region_name(x->m, "t", 1, before));
    assert_int_equal(mfake_create_table(x->m, "default:t", "f", NULL, 0), ST_EXISTS);
    assert_int_equal(mfake_count(x->f, NULL, NULL, NULL), 0);
    assert_int_equal(mfake_region_count(x->m, "t"), 3);
    char after[64];
    assert_true(mfake_region_name(x->m, "t", 1, after));
    assert_string_equal(before, after);
    assert_all_open(x, 3);
    assert_int_equal(table_state(x), META_TABLE_ENABLED);
}

/* Asserts that nothing of table exists anywhere. */
static void assert_no_trace(fx *x, const char *table)
{
    meta_table t;
    assert_int_equal(meta_get_table(x->m->meta, table, &t), ST_NOT_FOUND);
    meta_region *rows = NULL;
    size_t n = 0;
    assert_int_equal(meta_all_regions(x->m->meta, &rows, &n), ST_OK);
    meta_regions_free(rows, n);
    assert_int_equal(n, 0);
    assert_int_equal(x->m->ntables, 0);
    char *path = mfake_path(ZNODE_TABLE, table);
    assert_false(mfake_zk_exists(x->f, path));
    free(path);
    assert_int_equal(mfake_count(x->f, NULL, NULL, NULL), 0);
}

static void create_refuses_bad_input_and_writes_nothing(void **state)
{
    fx *x = *state;
    /* a family with VERSIONS 0 */
    Strata__Admin__ColumnFamilySchema fam = STRATA__ADMIN__COLUMN_FAMILY_SCHEMA__INIT;
    fam.name = "f";
    fam.has_versions = 1;
    fam.versions = 0;
    Strata__Admin__ColumnFamilySchema *fams[] = {&fam};
    Strata__Admin__TableSchema schema = STRATA__ADMIN__TABLE_SCHEMA__INIT;
    schema.name = "t";
    schema.family = fams;
    schema.n_family = 1;
    Strata__Master__CreateTableRequest req = STRATA__MASTER__CREATE_TABLE_REQUEST__INIT;
    req.schema = &schema;
    assert_int_equal(master_create_table(x->m, &req), ST_INVALID_ARGUMENT);
    assert_no_trace(x, TABLE);
    /* no family at all */
    assert_int_equal(mfake_create_table(x->m, "t", "", NULL, 0), ST_INVALID_ARGUMENT);
    assert_no_trace(x, TABLE);
    /* the reserved namespace, and a missing one */
    assert_int_equal(mfake_create_table(x->m, "strata:t", "f", NULL, 0), ST_INVALID_ARGUMENT);
    assert_no_trace(x, "strata:t");
    assert_int_equal(mfake_create_table(x->m, "nope:t", "f", NULL, 0), ST_NOT_FOUND);
    assert_no_trace(x, "nope:t");
    /* split keys unsorted, repeated, empty */
    static const char *const unsorted[] = {"p", "g"};
    static const char *const repeated[] = {"g", "g"};
    static const char *const empty[] = {"", "g"};
    assert_int_equal(mfake_create_table(x->m, "t", "f", unsorted, 2), ST_INVALID_ARGUMENT);
    assert_no_trace(x, TABLE);
    assert_int_equal(mfake_create_table(x->m, "t", "f", repeated, 2), ST_INVALID_ARGUMENT);
    assert_no_trace(x, TABLE);
    assert_int_equal(mfake_create_table(x->m, "t", "f", empty, 2), ST_INVALID_ARGUMENT);
    assert_no_trace(x, TABLE);
    /* SPLITS and NUMREGIONS together */
    fam.has_versions = 0;
    ProtobufCBinaryData key = {1, (uint8_t *)"g"};
    req.split_key = &key;
    req.n_split_key = 1;
    req.has_num_regions = 1;
    req.num_regions = 3;
    assert_int_equal(master_create_table(x->m, &req), ST_INVALID_ARGUMENT);
    assert_no_trace(x, TABLE);
    /* and the same table with good input is made */
    assert_int_equal(mfake_create_table(x->m, "t", "f", NULL, 0), ST_OK);
    assert_int_equal(table_state(x), META_TABLE_ENABLED);
}

/* ---------------------------------------------------------------- disable / enable */

static void disable_closes_every_region_and_mirrors_disabled(void **state)
{
    fx *x = *state;
    create_gp(x);
    assert_int_equal(disable(x), ST_OK);
    assert_order_kept(x, 3); /* DISABLING in meta and ZooKeeper, CLOSING at each close */
    assert_int_equal(mfake_count(x->f, NULL, CLOSE_RPC, NULL), 3);
    assert_int_equal(table_state(x), META_TABLE_DISABLED);
    assert_znode(x, "DISABLED");
    assert_all_closed(x, 3);
    for (size_t i = 0; i < 3; i++) {
        char enc[64];
        assert_true(mfake_region_name(x->m, "t", i, enc));
        char *owner = mfake_path(ZNODE_REGION_OWNER, enc);
        assert_false(mfake_zk_exists(x->f, owner));
        free(owner);
    }
    /* A second disable is refused and calls nothing. */
    mfake_clear_calls(x->f);
    assert_int_equal(master_disable_table(x->m, "t"), ST_INVALID_ARGUMENT);
    assert_int_equal(mfake_count(x->f, NULL, NULL, NULL), 0);
    assert_int_equal(table_state(x), META_TABLE_DISABLED);
}

static void enable_opens_every_region_and_mirrors_enabled(void **state)
{
    fx *x = *state;
    create_gp(x);
    assert_int_equal(disable(x), ST_OK);
    mfake_clear_calls(x->f);
    expect(x, META_TABLE_ENABLING, "ENABLING");
    assert_int_equal(master_enable_table(x->m, "t"), ST_OK);
    assert_order_kept(x, 3);
    assert_int_equal(table_state(x), META_TABLE_ENABLED);
    assert_znode(x, "ENABLED");
    assert_all_open(x, 3);
    mfake_clear_calls(x->f);
    assert_int_equal(master_enable_table(x->m, "t"), ST_INVALID_ARGUMENT);
    assert_int_equal(mfake_count(x->f, NULL, NULL, NULL), 0);
    assert_int_equal(master_enable_table(x->m, "missing"), ST_NOT_FOUND);
}

/* ---------------------------------------------------------------- truncate */

static void truncate_refused_while_enabled(void **state)
{
    fx *x = *state;
    create_gp(x);
    char enc[64];
    assert_true(mfake_region_name(x->m, "t", 0, enc));
    char *store = make_store_file(x, enc, "f");
    assert_int_equal(master_truncate_table(x->m, "t", false), ST_INVALID_ARGUMENT);
    assert_int_equal(mfake_count(x->f, NULL, NULL, NULL), 0);
    assert_true(exists(store));
    assert_int_equal(mfake_region_count(x->m, "t"), 3);
    assert_all_open(x, 3);
    free(store);
}

/* Truncates TABLE (3 regions g, p) and checks the new region set's boundaries and ids. */
static void check_truncate(fx *x, bool preserve, size_t want)
{
    create_gp(x);
    char old[3][64];
    for (size_t i = 0; i < 3; i++)
        assert_true(mfake_region_name(x->m, "t", i, old[i]));
    meta_region *rows = NULL;
    assert_int_equal(rows_of(x, TABLE, &rows), 3);
    uint64_t old_id = rows[0].region_id;
    meta_regions_free(rows, 3);
    char *store = make_store_file(x, old[1], "f");
    assert_int_equal(disable(x), ST_OK);
    clock_sleep_ms(3); /* region ids are creation times in ms */
    mfake_clear_calls(x->f);
    expect(x, META_TABLE_ENABLING, "ENABLING");
    assert_int_equal(master_truncate_table(x->m, "t", preserve), ST_OK);
    assert_order_kept(x, (int)want);

    assert_false(exists(store));
    assert_int_equal(table_state(x), META_TABLE_ENABLED);
    assert_znode(x, "ENABLED");
    assert_int_equal(rows_of(x, TABLE, &rows), want);
    for (size_t i = 0; i < want; i++) {
        assert_true(rows[i].region_id > old_id);
        for (size_t j = 0; j < 3; j++)
            assert_string_not_equal(rows[i].encoded_name, old[j]);
    }
    if (preserve) {
        assert_key(rows[1].start_key, rows[1].start_len, "g");
        assert_key(rows[2].start_key, rows[2].start_len, "p");
        assert_key(rows[2].end_key, rows[2].end_len, "");
    } else {
        assert_key(rows[0].start_key, rows[0].start_len, "");
        assert_key(rows[0].end_key, rows[0].end_len, "");
    }
    meta_regions_free(rows, want);
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), want);
    assert_all_open(x, want);
    for (size_t j = 0; j < 3; j++)
        assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, old[j]), 0);
    free(store);
}

static void truncate_without_splits_makes_one_new_region(void **state)
{
    check_truncate(*state, false, 1);
}

static void truncate_preserving_splits_keeps_boundaries_with_new_ids(void **state)
{
    check_truncate(*state, true, 3);
}

/* ---------------------------------------------------------------- delete */

static void delete_refused_unless_disabled_then_removes_everything(void **state)
{
    fx *x = *state;
    create_gp(x);
    char enc[64];
    assert_true(mfake_region_name(x->m, "t", 2, enc));
    char *store = make_store_file(x, enc, "f");
    char *table_dir = layout_table_dir(x->root, TABLE);
    assert_int_equal(master_delete_table(x->m, "t"), ST_INVALID_ARGUMENT);
    assert_true(exists(store));
    assert_int_equal(table_state(x), META_TABLE_ENABLED);
    assert_znode(x, "ENABLED");
    assert_all_open(x, 3);

    assert_int_equal(disable(x), ST_OK);
    assert_int_equal(master_delete_table(x->m, "t"), ST_OK);
    meta_table t;
    assert_int_equal(meta_get_table(x->m->meta, TABLE, &t), ST_NOT_FOUND);
    meta_region *rows = NULL;
    assert_int_equal(rows_of(x, TABLE, &rows), 0);
    meta_regions_free(rows, 0);
    assert_false(exists(table_dir));
    assert_znode(x, NULL);
    assert_int_equal(mfake_region_count(x->m, "t"), 0);
    assert_int_equal(x->m->ntables, 0);
    assert_int_equal(master_delete_table(x->m, "t"), ST_NOT_FOUND);
    free(store);
    free(table_dir);
}

/* ---------------------------------------------------------------- modify */

static void modify_reopens_each_region_with_new_schema_and_drops_family_dirs(void **state)
{
    fx *x = *state;
    expect(x, META_TABLE_ENABLING, "ENABLING");
    static const char *const split_m[] = {"m"};
    assert_int_equal(mfake_create_table(x->m, "t", "f,g", split_m, 1), ST_OK);
    char enc[2][64], where[2][SERVER_NAME_MAX];
    char *keep[2], *drop[2];
    meta_region *rows = NULL;
    assert_int_equal(rows_of(x, TABLE, &rows), 2);
    for (size_t i = 0; i < 2; i++) {
        snprintf(enc[i], sizeof(enc[i]), "%s", rows[i].encoded_name);
        snprintf(where[i], sizeof(where[i]), "%s", rows[i].server);
        char fams[64];
        mfake_last_open_families(x->f, enc[i], fams, sizeof(fams));
        assert_string_equal(fams, "f,g");
        keep[i] = make_store_file(x, enc[i], "f");
        drop[i] = make_store_file(x, enc[i], "g");
    }
    meta_regions_free(rows, 2);
    mfake_clear_calls(x->f);
    expect(x, META_TABLE_ENABLED, "ENABLED");

    Strata__Admin__ColumnFamilySchema f = STRATA__ADMIN__COLUMN_FAMILY_SCHEMA__INIT;
    Strata__Admin__ColumnFamilySchema h = STRATA__ADMIN__COLUMN_FAMILY_SCHEMA__INIT;
    f.name = "f";
    h.name = "h";
    Strata__Admin__ColumnFamilySchema *fams[] = {&f, &h};
    Strata__Admin__TableSchema schema = STRATA__ADMIN__TABLE_SCHEMA__INIT;
    schema.name = "t";
    schema.family = fams;
    schema.n_family = 2;
    assert_int_equal(master_modify_table(x->m, &schema), ST_OK);
    assert_order_kept(x, 4); /* CLOSING at each close, OPENING at each open */

    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(mfake_count(x->f, where[i], CLOSE_RPC, enc[i]), 1);
        assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, enc[i]), 1);
        char have[64];
        mfake_last_open_families(x->f, enc[i], have, sizeof(have));
        assert_string_equal(have, "f,h");
        assert_true(exists(keep[i]));
        assert_false(exists(drop[i]));
        meta_region row;
        assert_int_equal(mfake_meta_row(x->m, enc[i], &row), ST_OK);
        assert_int_equal(row.state, META_OPEN);
        assert_string_equal(row.server, where[i]); /* back where it was */
        meta_region_clear(&row);
        free(keep[i]);
        free(drop[i]);
    }
    meta_table t;
    assert_int_equal(meta_get_table(x->m->meta, TABLE, &t), ST_OK);
    Strata__Admin__TableSchema *stored =
        strata__admin__table_schema__unpack(NULL, t.schema_len, t.schema);
    assert_non_null(stored);
    assert_int_equal(stored->n_family, 2);
    assert_string_equal(stored->family[0]->name, "f");
    assert_string_equal(stored->family[1]->name, "h");
    strata__admin__table_schema__free_unpacked(stored, NULL);
    meta_table_clear(&t);
    assert_int_equal(table_state(x), META_TABLE_ENABLED);
}

/* ---------------------------------------------------------------- split policy */

/* The stored schema of TABLE (free it). */
static Strata__Admin__TableSchema *stored_schema(fx *x)
{
    meta_table t;
    assert_int_equal(meta_get_table(x->m->meta, TABLE, &t), ST_OK);
    Strata__Admin__TableSchema *s =
        strata__admin__table_schema__unpack(NULL, t.schema_len, t.schema);
    assert_non_null(s);
    meta_table_clear(&t);
    return s;
}

typedef struct policy_schema {
    Strata__Admin__ColumnFamilySchema fam;
    Strata__Admin__ColumnFamilySchema *fams[1];
    Strata__Admin__NameStringPair val[2], conf[1];
    Strata__Admin__NameStringPair *vals[2], *confs[1];
    Strata__Admin__TableSchema schema;
} policy_schema;

/* Table t, family f, values SPLIT_POLICY = policy and key = value, configuration entry
 * hbase.hregion.max.filesize.jitter = jitter. */
static Strata__Admin__TableSchema *policy_schema_of(policy_schema *p, const char *policy,
                                                    const char *key, const char *value,
                                                    const char *jitter)
{
    Strata__Admin__ColumnFamilySchema fam = STRATA__ADMIN__COLUMN_FAMILY_SCHEMA__INIT;
    Strata__Admin__NameStringPair pair = STRATA__ADMIN__NAME_STRING_PAIR__INIT;
    Strata__Admin__TableSchema schema = STRATA__ADMIN__TABLE_SCHEMA__INIT;
    p->fam = fam;
    p->fam.name = "f";
    p->fams[0] = &p->fam;
    for (size_t i = 0; i < 2; i++) {
        p->val[i] = pair;
        p->vals[i] = &p->val[i];
    }
    p->conf[0] = pair;
    p->confs[0] = &p->conf[0];
    p->val[0].name = "SPLIT_POLICY";
    p->val[0].value = (char *)policy;
    p->val[1].name = (char *)key;
    p->val[1].value = (char *)value;
    p->conf[0].name = "hbase.hregion.max.filesize.jitter";
    p->conf[0].value = (char *)jitter;
    p->schema = schema;
    p->schema.name = "t";
    p->schema.family = p->fams;
    p->schema.n_family = 1;
    p->schema.value = p->vals;
    p->schema.n_value = 2;
    p->schema.configuration = p->confs;
    p->schema.n_configuration = 1;
    return &p->schema;
}

static void create_and_modify_refuse_bad_split_settings(void **state)
{
    fx *x = *state;
    static const struct {
        const char *policy, *key, *value, *jitter, *msg;
    } bad[] = {
        {"NoSuchSplitPolicy", "x", "y", "0.25", "table 'default:t': unknown SPLIT_POLICY"},
        {"KeyPrefixRegionSplitPolicy", "KeyPrefixRegionSplitPolicy.prefix_length", "0", "0.25",
         "KeyPrefixRegionSplitPolicy.prefix_length '0'"},
        {"KeyPrefixRegionSplitPolicy", "x", "y", "0.25", "needs KeyPrefixRegionSplitPolicy"},
        {"DelimitedKeyPrefixRegionSplitPolicy", "DelimitedKeyPrefixRegionSplitPolicy.delimiter",
         "", "0.25", "non-empty DelimitedKeyPrefixRegionSplitPolicy.delimiter"},
        {"SteppingSplitPolicy", "x", "y", "2", "hbase.hregion.max.filesize.jitter '2'"},
        {"SteppingSplitPolicy", "NORMALIZATION_ENABLED", "yes", "0",
         "NORMALIZATION_ENABLED 'yes'"},
    };
    policy_schema p;
    Strata__Master__CreateTableRequest req = STRATA__MASTER__CREATE_TABLE_REQUEST__INIT;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        req.schema = policy_schema_of(&p, bad[i].policy, bad[i].key, bad[i].value, bad[i].jitter);
        assert_int_equal(master_create_table(x->m, &req), ST_INVALID_ARGUMENT);
        if (!strstr(st_errmsg(), bad[i].msg))
            fail_msg("create %zu: '%s' lacks '%s'", i, st_errmsg(), bad[i].msg);
        assert_no_trace(x, TABLE);
    }
    /* A good one is stored as given. */
    req.schema = policy_schema_of(&p, "org.apache.hadoop.hbase.regionserver.KeyPrefixRegionSplitPolicy",
                                  "KeyPrefixRegionSplitPolicy.prefix_length", "3", "0");
    assert_int_equal(master_create_table(x->m, &req), ST_OK);
    Strata__Admin__TableSchema *s = stored_schema(x);
    assert_int_equal(s->n_value, 2);
    assert_string_equal(s->value[0]->value,
                        "org.apache.hadoop.hbase.regionserver.KeyPrefixRegionSplitPolicy");
    assert_string_equal(s->value[1]->name, "KeyPrefixRegionSplitPolicy.prefix_length");
    assert_int_equal(s->n_configuration, 1);
    assert_string_equal(s->configuration[0]->value, "0");
    strata__admin__table_schema__free_unpacked(s, NULL);
    /* Modify: every bad one refused before any region is touched, the schema kept. */
    mfake_clear_calls(x->f);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        Strata__Admin__TableSchema *m =
            policy_schema_of(&p, bad[i].policy, bad[i].key, bad[i].value, bad[i].jitter);
        assert_int_equal(master_modify_table(x->m, m), ST_INVALID_ARGUMENT);
        if (!strstr(st_errmsg(), bad[i].msg))
            fail_msg("modify %zu: '%s' lacks '%s'", i, st_errmsg(), bad[i].msg);
    }
    assert_int_equal(mfake_count(x->f, NULL, NULL, NULL), 0);
    s = stored_schema(x);
    assert_string_equal(s->value[1]->value, "3");
    strata__admin__table_schema__free_unpacked(s, NULL);
    /* and a good modify replaces them */
    Strata__Admin__TableSchema *m = policy_schema_of(&p, "DisabledRegionSplitPolicy",
                                                     "NORMALIZATION_ENABLED", "true", "0.5");
    assert_int_equal(master_modify_table(x->m, m), ST_OK);
    s = stored_schema(x);
    assert_string_equal(s->value[0]->value, "DisabledRegionSplitPolicy");
    assert_string_equal(s->value[1]->name, "NORMALIZATION_ENABLED");
    assert_string_equal(s->configuration[0]->value, "0.5");
    strata__admin__table_schema__free_unpacked(s, NULL);
}

/* ---------------------------------------------------------------- namespaces */

static void namespace_delete_refused_while_tables_remain(void **state)
{
    fx *x = *state;
    mfake_set_hook(x->f, NULL, NULL);
    assert_int_equal(master_create_namespace(x->m, "ns1"), ST_OK);
    assert_int_equal(meta_namespace_exists(x->m->meta, "ns1"), ST_OK);
    assert_int_equal(master_create_namespace(x->m, "ns1"), ST_EXISTS);
    assert_int_equal(mfake_create_table(x->m, "ns1:t", "f", NULL, 0), ST_OK);
    assert_int_equal(master_delete_namespace(x->m, "ns1"), ST_INVALID_ARGUMENT);
    assert_int_equal(meta_namespace_exists(x->m->meta, "ns1"), ST_OK);
    assert_int_equal(master_disable_table(x->m, "ns1:t"), ST_OK);
    assert_int_equal(master_delete_table(x->m, "ns1:t"), ST_OK);
    assert_int_equal(master_delete_namespace(x->m, "ns1"), ST_OK);
    assert_int_equal(meta_namespace_exists(x->m->meta, "ns1"), ST_NOT_FOUND);
    assert_int_equal(master_delete_namespace(x->m, "ns1"), ST_NOT_FOUND);
    assert_int_equal(mfake_create_table(x->m, "ns1:t", "f", NULL, 0), ST_NOT_FOUND);
}

static void namespace_reserved_and_invalid_names_refused(void **state)
{
    fx *x = *state;
    assert_int_equal(master_delete_namespace(x->m, "default"), ST_INVALID_ARGUMENT);
    assert_int_equal(master_delete_namespace(x->m, "strata"), ST_INVALID_ARGUMENT);
    assert_int_equal(meta_namespace_exists(x->m->meta, "default"), ST_OK);
    assert_int_equal(meta_namespace_exists(x->m->meta, "strata"), ST_OK);
    assert_int_not_equal(master_create_namespace(x->m, "strata"), ST_OK);
    assert_int_not_equal(master_create_namespace(x->m, "default"), ST_OK);
    assert_int_equal(master_create_namespace(x->m, "bad:ns"), ST_INVALID_ARGUMENT);
    assert_int_equal(master_create_namespace(x->m, ".hidden"), ST_INVALID_ARGUMENT);
    assert_int_equal(master_create_namespace(x->m, ""), ST_INVALID_ARGUMENT);
    char **names = NULL;
    size_t n = 0;
    assert_int_equal(meta_list_namespaces(x->m->meta, &names, &n), ST_OK);
    assert_int_equal(n, 2);
    meta_names_free(names, n);
}

/* Regression: master_create_namespace wraps the reason layout_validate_name_part gave in
 * its refusal (st_error with st_errmsg() as an argument); formatting into the buffer it read
 * from garbled the message the client gets. */
static void invalid_namespace_refusal_keeps_the_reason(void **state)
{
    fx *x = *state;
    assert_int_equal(master_create_namespace(x->m, "bad:ns"), ST_INVALID_ARGUMENT);
    assert_string_equal(st_errmsg(), "namespace name 'bad:ns' is invalid: name 'bad:ns' has "
                                     "illegal character ':'");
}

/* ---------------------------------------------------------------- failover */

static void restart_master(fx *x)
{
    mfake_set_hook(x->f, NULL, NULL);
    master_free(x->m);
    x->m = NULL;
    start_master(x);
    mfake_clear_calls(x->f);
}

static void failover_enabling_left_in_meta_finished_by_next_master(void **state)
{
    fx *x = *state;
    create_gp(x);
    /* The enable was cut off: ENABLING in meta, one region still closed. */
    char enc[64];
    assert_true(mfake_region_name(x->m, "t", 1, enc));
    m_region *r = NULL;
    assert_int_equal(master_region_take(x->m, enc, &r, NULL), ST_OK);
    assert_int_equal(master_unassign(x->m, r), ST_OK);
    master_region_give(x->m, r);
    assert_int_equal(meta_set_table_state(x->m->meta, TABLE, META_TABLE_ENABLING), ST_OK);
    restart_master(x);

    pthread_mutex_lock(&x->m->mu);
    assert_int_equal(master_find_table(x->m, TABLE)->state, META_TABLE_ENABLING);
    pthread_mutex_unlock(&x->m->mu);
    master_chore_pass(x->m, false);
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 1);
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, enc), 1);
    assert_int_equal(table_state(x), META_TABLE_ENABLED);
    assert_znode(x, "ENABLED");
    assert_all_open(x, 3);
}

static void failover_disabling_left_in_meta_finished_by_next_master(void **state)
{
    fx *x = *state;
    create_gp(x);
    /* The disable was cut off: DISABLING in meta, one region closed, two still open. */
    char enc[64];
    assert_true(mfake_region_name(x->m, "t", 0, enc));
    m_region *r = NULL;
    assert_int_equal(master_region_take(x->m, enc, &r, NULL), ST_OK);
    assert_int_equal(master_unassign(x->m, r), ST_OK);
    master_region_give(x->m, r);
    assert_int_equal(meta_set_table_state(x->m->meta, TABLE, META_TABLE_DISABLING), ST_OK);
    restart_master(x);

    master_chore_pass(x->m, false);
    assert_int_equal(mfake_count(x->f, NULL, CLOSE_RPC, NULL), 2);
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 0);
    assert_int_equal(table_state(x), META_TABLE_DISABLED);
    assert_znode(x, "DISABLED");
    assert_all_closed(x, 3);
    /* The next pass leaves it so. */
    mfake_clear_calls(x->f);
    master_chore_pass(x->m, false);
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 0);
    assert_int_equal(table_state(x), META_TABLE_DISABLED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(create_writes_closed_regions_then_opens_then_enables,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(create_without_live_server_leaves_regions_closed_for_chore,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(create_with_numregions_uses_hex_string_split, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(create_existing_table_is_st_exists_and_changes_nothing,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(create_refuses_bad_input_and_writes_nothing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(disable_closes_every_region_and_mirrors_disabled, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(enable_opens_every_region_and_mirrors_enabled, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(truncate_refused_while_enabled, setup, teardown),
        cmocka_unit_test_setup_teardown(truncate_without_splits_makes_one_new_region, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(truncate_preserving_splits_keeps_boundaries_with_new_ids,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(delete_refused_unless_disabled_then_removes_everything,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            modify_reopens_each_region_with_new_schema_and_drops_family_dirs, setup, teardown),
        cmocka_unit_test_setup_teardown(create_and_modify_refuse_bad_split_settings, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(namespace_delete_refused_while_tables_remain, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(namespace_reserved_and_invalid_names_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(invalid_namespace_refusal_keeps_the_reason, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(failover_enabling_left_in_meta_finished_by_next_master,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(failover_disabling_left_in_meta_finished_by_next_master,
                                        setup, teardown),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
