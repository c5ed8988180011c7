/*
 * test_master_recovery.c - crash recovery of region servers by the master
 * (master_servers.c) against a fake cluster (tests/support/master_fake.h) with a real meta
 * table and real WAL files: a dead server (its rs znode gone, then master_servers_sync) is
 * recovered in order: <parent>/splitWAL/<server> is made before <root>/WALs/<server> is
 * renamed to <server>-splitting, the split writes each region's recovered.edits and
 * removes the fenced directory before the task znode goes, its regions go CLOSED in meta
 * and open on another live server, and no OpenRegion of them reaches any server before
 * the fenced directory is gone; the dead server's heartbeat is answered ST_CLOSED; a
 * newer start code on the same host:port makes the old server dead at once, and its
 * ownership znodes (its session still alive) are deleted before its regions reopen; an
 * orphan WAL directory of an old start code with no live server is found by
 * master_servers_find_dead and split, a young one is left alone; a split that fails on a
 * corrupt WAL keeps the recovery queued (fenced directory and task znode kept, regions
 * still on the dead server in meta, nothing opened) and succeeds on a later pass once the
 * WAL is repaired; a half-done split an earlier master listed under splitWAL is finished by
 * a new master; a master whose ZooKeeper lease lapsed fences nothing; regions of a disabled
 * table on a dead server are closed in meta and stay closed.
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

#include "common/cell.h"
#include "common/clock.h"
#include "common/fileio.h"
#include "common/status.h"
#include "master/master_internal.h"
#include "meta/meta.h"
#include "regionserver/storage/layout.h"
#include "regionserver/storage/wal.h"
#include "tests/support/master_fake.h"
#include "tests/support/testutil.h"

#define OPEN_RPC "AdminService.OpenRegion"
#define TABLE "default:t"

typedef struct fx {
    char *root;
    mfake *f;
    master *m;
    char s1[SERVER_NAME_MAX], s2[SERVER_NAME_MAX];
    char a[64], b[64]; /* the regions of default:t: [, m) and [m, ) */

    /* the recovery the hook follows */
    pthread_mutex_t mu;
    char dead[SERVER_NAME_MAX];
    char edits_for[64]; /* a region the dead server's WAL has edits of */
    char *wal_dir, *fenced, *task;
    int task_created, task_deleted, opens, bad;
    char why[512];
} fx;

static bool exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* The number of edits in region's recovered.edits files (-1 if it has none). */
static int recovered_edits(fx *x, const char *region);

static void note(fx *x, const char *what, const char *detail)
{
    x->bad++;
    if (!x->why[0])
        snprintf(x->why, sizeof(x->why), "%s (%s)", what, detail);
}

/* Checks the order of the recovery of x->dead at each step it can see. */
static void hook(void *arg, const mfake_event *ev)
{
    fx *x = arg;
    pthread_mutex_lock(&x->mu);
    if (!x->dead[0]) {
        pthread_mutex_unlock(&x->mu);
        return;
    }
    if (ev->kind == MFAKE_EV_ZK_CREATE && strcmp(ev->path, x->task) == 0) {
        x->task_created++;
        if (x->task_created == 1 && !exists(x->wal_dir))
            note(x, "WAL directory renamed before the splitWAL task existed", x->wal_dir);
    } else if (ev->kind == MFAKE_EV_ZK_DELETE && strcmp(ev->path, x->task) == 0) {
        x->task_deleted++;
        if (exists(x->fenced) || exists(x->wal_dir))
            note(x, "splitWAL task deleted while a WAL directory remains", x->fenced);
        if (recovered_edits(x, x->edits_for) < 0)
            note(x, "splitWAL task deleted before the recovered edits existed", x->edits_for);
    } else if (ev->kind == MFAKE_EV_RPC && strcmp(ev->method, OPEN_RPC) == 0 &&
               (strcmp(ev->encoded, x->a) == 0 || strcmp(ev->encoded, x->b) == 0)) {
        x->opens++;
        if (exists(x->fenced) || exists(x->wal_dir))
            note(x, "OpenRegion before the fenced WAL directory was gone", ev->encoded);
        if (!x->task_deleted)
            note(x, "OpenRegion before the split finished", ev->encoded);
        if (strcmp(ev->server, x->dead) == 0)
            note(x, "OpenRegion sent to the dead server", ev->server);
        meta_region row;
        if (mfake_meta_row(x->m, ev->encoded, &row) == ST_OK) {
            if (row.state != META_OPENING || strcmp(row.server, ev->server) != 0)
                note(x, "OpenRegion without OPENING on that server in meta", ev->encoded);
            meta_region_clear(&row);
        }
    }
    pthread_mutex_unlock(&x->mu);
}

/* Follows the recovery of server, whose WAL has edits of region, from now on. */
static void follow(fx *x, const char *server, const char *region)
{
    pthread_mutex_lock(&x->mu);
    snprintf(x->dead, sizeof(x->dead), "%s", server);
    snprintf(x->edits_for, sizeof(x->edits_for), "%s", region);
    free(x->wal_dir);
    free(x->fenced);
    free(x->task);
    x->wal_dir = layout_wal_dir(x->root, server);
    x->fenced = layout_fenced_wal_dir(x->root, server);
    x->task = mfake_path(ZNODE_SPLIT_WAL, server);
    x->task_created = x->task_deleted = x->opens = x->bad = 0;
    x->why[0] = 0;
    pthread_mutex_unlock(&x->mu);
}

static void assert_followed(fx *x, int opens)
{
    pthread_mutex_lock(&x->mu);
    if (x->bad)
        fail_msg("%d steps out of order, first: %s", x->bad, x->why);
    assert_int_equal(x->task_created, 1);
    assert_int_equal(x->task_deleted, 1);
    assert_int_equal(x->opens, opens);
    pthread_mutex_unlock(&x->mu);
}

static void start_master(fx *x, uint64_t start_code)
{
    assert_int_equal(mfake_master_start(x->f, x->root, start_code, NULL, &x->m), ST_OK);
}

/* A master, table default:t with regions a and b open on s1 (created while s1 was the only
 * server), then s2 registered. The log is empty. */
static int setup(void **state)
{
    fx *x = calloc(1, sizeof(*x));
    pthread_mutex_init(&x->mu, NULL);
    x->root = tu_tempdir("mrecovery");
    x->f = mfake_new();
    uint64_t sc = (uint64_t)clock_now_ms() - 60000; /* started a minute ago */
    mfake_server_add(x->f, "rs1.unit", 17021, sc, x->s1);
    start_master(x, 0);
    static const char *const split[] = {"m"};
    assert_int_equal(mfake_create_table(x->m, "t", "f", split, 1), ST_OK);
    assert_true(mfake_region_name(x->m, "t", 0, x->a));
    assert_true(mfake_region_name(x->m, "t", 1, x->b));
    assert_true(mfake_server_has(x->f, x->s1, x->a));
    assert_true(mfake_server_has(x->f, x->s1, x->b));
    mfake_server_add(x->f, "rs2.unit", 17022, sc, x->s2);
    master_servers_sync(x->m);
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
    free(x->wal_dir);
    free(x->fenced);
    free(x->task);
    pthread_mutex_destroy(&x->mu);
    free(x);
    return 0;
}

/* ---------------------------------------------------------------- helpers */

/* Writes n edits of region (seq first .. first + n - 1) into a WAL in <root>/WALs/<dir>. */
static void write_wal(fx *x, const char *dir_name, const char *region, uint64_t first, int n)
{
    /* The region's directory, as the server that opened it left it: a split writes
     * recovered edits only into existing region directories. */
    char *rdir = layout_region_dir(x->root, TABLE, region);
    assert_int_equal(fio_mkdirs(rdir), ST_OK);
    free(rdir);
    char *dir = layout_wal_dir(x->root, dir_name);
    assert_non_null(dir);
    wal_options o = {.dir = dir};
    wal *w = NULL;
    assert_int_equal(wal_open(&o, &w), ST_OK);
    for (int i = 0; i < n; i++) {
        char row[32];
        snprintf(row, sizeof(row), "row%03d", i);
        cell_t c = {0};
        c.row = (const uint8_t *)row;
        c.row_len = (uint32_t)strlen(row);
        c.family = (const uint8_t *)"f";
        c.family_len = 1;
        c.qualifier = (const uint8_t *)"q";
        c.qualifier_len = 1;
        c.value = (const uint8_t *)"value";
        c.value_len = 5;
        c.ts = 1000 + i;
        c.seq = first + (uint64_t)i;
        c.type = CELL_TYPE_PUT;
        wal_edit e = {.table = TABLE, .region = region, .seq = c.seq, .cells = &c, .ncells = 1};
        assert_int_equal(wal_append(w, &e, DURABILITY_SYNC_WAL), ST_OK);
    }
    assert_int_equal(wal_close(w), ST_OK);
    free(dir);
}

static int count_edit(const wal_edit *e, void *ctx)
{
    (*(int *)ctx)++;
    return 0;
}

static int recovered_edits(fx *x, const char *region)
{
    char *dir = layout_recovered_edits_dir(x->root, TABLE, region);
    char **names = NULL;
    size_t n = 0;
    int edits = -1;
    if (dir && exists(dir) && fio_list_dir(dir, &names, &n) == ST_OK) {
        for (size_t i = 0; i < n; i++) {
            size_t l = strlen(names[i]);
            if (l > 4 && strcmp(names[i] + l - 4, ".tmp") == 0)
                continue;
            char *path = NULL;
            if (asprintf(&path, "%s/%s", dir, names[i]) < 0)
                continue;
            int k = 0;
            if (wal_read_file(path, false, count_edit, &k, NULL) == ST_OK)
                edits = (edits < 0 ? 0 : edits) + k;
            free(path);
        }
        fio_free_list(names, n);
    }
    free(dir);
    return edits;
}

static bool pending(fx *x, const char *server)
{
    pthread_mutex_lock(&x->m->mu);
    bool yes = master_crash_pending(x->m, server);
    pthread_mutex_unlock(&x->m->mu);
    return yes;
}

static bool live(fx *x, const char *server)
{
    pthread_mutex_lock(&x->m->mu);
    bool yes = master_server_find(x->m, server) != NULL;
    pthread_mutex_unlock(&x->m->mu);
    return yes;
}

static void assert_row(fx *x, const char *region, meta_region_state st, const char *server)
{
    meta_region row;
    assert_int_equal(mfake_meta_row(x->m, region, &row), ST_OK);
    assert_string_equal(meta_region_state_name(row.state), meta_region_state_name(st));
    assert_string_equal(row.server, server);
    meta_region_clear(&row);
}

static bool task_exists(fx *x, const char *server)
{
    char *p = mfake_path(ZNODE_SPLIT_WAL, server);
    bool yes = mfake_zk_exists(x->f, p);
    free(p);
    return yes;
}

/* The first WAL file in dir (free it). */
static char *first_wal_file(const char *dir)
{
    char **paths = NULL;
    size_t n = 0;
    assert_int_equal(wal_list_files(dir, &paths, &n), ST_OK);
    assert_true(n >= 1);
    char *p = strdup(paths[0]);
    fio_free_list(paths, n);
    return p;
}

static void read_file(const char *path, uint8_t **data, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    *len = (size_t)ftell(fp);
    fseek(fp, 0, SEEK_SET);
    *data = malloc(*len);
    assert_non_null(*data);
    assert_int_equal(fread(*data, 1, *len, fp), *len);
    fclose(fp);
}

static void write_file(const char *path, const uint8_t *data, size_t len)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, len, fp), len);
    fclose(fp);
}

/* ---------------------------------------------------------------- dead server */

static void crash_dead_server_split_before_regions_reopen_elsewhere(void **state)
{
    fx *x = *state;
    write_wal(x, x->s1, x->a, 1, 3);
    write_wal(x, x->s1, x->b, 4, 2);
    follow(x, x->s1, x->a);
    mfake_server_kill(x->f, x->s1);
    master_servers_sync(x->m);

    /* Dead and queued; nothing moved yet. */
    assert_false(live(x, x->s1));
    assert_true(pending(x, x->s1));
    assert_row(x, x->a, META_OPEN, x->s1);
    assert_row(x, x->b, META_OPEN, x->s1);
    assert_true(exists(x->wal_dir));
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 0);
    assert_int_equal(mfake_report(x->f, x->m, x->s1), ST_CLOSED); /* "you are dead" */

    master_chore_pass(x->m, false);
    assert_followed(x, 2);
    assert_false(pending(x, x->s1));
    assert_false(exists(x->wal_dir));
    assert_false(exists(x->fenced));
    assert_false(task_exists(x, x->s1));
    assert_int_equal(recovered_edits(x, x->a), 3);
    assert_int_equal(recovered_edits(x, x->b), 2);
    assert_row(x, x->a, META_OPEN, x->s2);
    assert_row(x, x->b, META_OPEN, x->s2);
    assert_true(mfake_server_has(x->f, x->s2, x->a));
    assert_true(mfake_server_has(x->f, x->s2, x->b));
    assert_int_equal(mfake_count(x->f, x->s1, NULL, NULL), 0);
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 2);
}

static void crash_newer_start_code_supersedes_old_server_at_once(void **state)
{
    fx *x = *state;
    write_wal(x, x->s1, x->a, 1, 2);
    follow(x, x->s1, x->a);
    /* The process on rs1.unit:17021 restarted: the old session (and its znodes) lingers. */
    mfake_server_set_unreachable(x->f, x->s1, true);
    char s1b[SERVER_NAME_MAX];
    mfake_server_add(x->f, "rs1.unit", 17021, (uint64_t)clock_now_ms(), s1b);
    char *old_rs = mfake_path(ZNODE_RS, x->s1);
    char *owner_a = mfake_path(ZNODE_REGION_OWNER, x->a);
    assert_true(mfake_zk_exists(x->f, old_rs));
    assert_true(mfake_zk_exists(x->f, owner_a));
    master_servers_sync(x->m);

    assert_false(live(x, x->s1));
    assert_true(live(x, s1b));
    assert_true(pending(x, x->s1));
    master_chore_pass(x->m, false);
    assert_followed(x, 2);
    assert_false(pending(x, x->s1));
    assert_false(exists(x->wal_dir));
    assert_int_equal(recovered_edits(x, x->a), 2);
    /* The old session's ownership znodes were deleted, so the regions could reopen. */
    char *owner_b = mfake_path(ZNODE_REGION_OWNER, x->b);
    for (int i = 0; i < 2; i++) {
        const char *enc = i ? x->b : x->a;
        meta_region row;
        assert_int_equal(mfake_meta_row(x->m, enc, &row), ST_OK);
        assert_int_equal(row.state, META_OPEN);
        assert_true(strcmp(row.server, s1b) == 0 || strcmp(row.server, x->s2) == 0);
        assert_true(mfake_server_has(x->f, row.server, enc));
        meta_region_clear(&row);
        size_t len = 0;
        char *data = mfake_zk_data(x->f, i ? owner_b : owner_a, &len);
        assert_non_null(data);
        Strata__Master__RegionOwner *o =
            strata__master__region_owner__unpack(NULL, len, (const uint8_t *)data);
        assert_non_null(o);
        char who[SERVER_NAME_MAX];
        server_name_format_proto(o->server, who, sizeof(who));
        assert_string_not_equal(who, x->s1);
        strata__master__region_owner__free_unpacked(o, NULL);
        free(data);
    }
    assert_int_equal(mfake_report(x->f, x->m, x->s1), ST_CLOSED);
    assert_int_equal(mfake_report(x->f, x->m, s1b), ST_OK);
    free(old_rs);
    free(owner_a);
    free(owner_b);
}

static void crash_regions_of_disabled_table_closed_not_reopened(void **state)
{
    fx *x = *state;
    /* The table is marked DISABLED in meta and memory while its regions are still on s1. */
    assert_int_equal(meta_set_table_state(x->m->meta, TABLE, META_TABLE_DISABLED), ST_OK);
    pthread_mutex_lock(&x->m->mu);
    master_find_table(x->m, TABLE)->state = META_TABLE_DISABLED;
    pthread_mutex_unlock(&x->m->mu);
    write_wal(x, x->s1, x->b, 1, 1);
    follow(x, x->s1, x->b);
    mfake_server_kill(x->f, x->s1);
    master_servers_sync(x->m);
    master_chore_pass(x->m, false);
    assert_followed(x, 0);
    assert_row(x, x->a, META_CLOSED, "");
    assert_row(x, x->b, META_CLOSED, "");
    assert_int_equal(recovered_edits(x, x->b), 1);
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 0);
    master_chore_pass(x->m, false);
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 0);
}

/* ---------------------------------------------------------------- orphan WAL directories */

static void crash_orphan_wal_dir_of_old_server_found_and_split(void **state)
{
    fx *x = *state;
    char gone[SERVER_NAME_MAX];
    snprintf(gone, sizeof(gone), "gone.unit,17029,%lld", (long long)(clock_now_ms() - 60000));
    write_wal(x, gone, x->a, 1, 4);
    char *dir = layout_wal_dir(x->root, gone);
    follow(x, gone, x->a);
    assert_false(pending(x, gone));
    master_servers_find_dead(x->m);
    assert_true(pending(x, gone));
    master_chore_pass(x->m, false);
    assert_followed(x, 0);
    assert_false(pending(x, gone));
    assert_false(exists(dir));
    assert_int_equal(recovered_edits(x, x->a), 4);
    /* The regions were on a live server all along: nothing moved. */
    assert_row(x, x->a, META_OPEN, x->s1);
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 0);
    free(dir);
}

static void crash_young_orphan_wal_dir_left_alone(void **state)
{
    fx *x = *state;
    char young[SERVER_NAME_MAX];
    /* Started 1 s ago: within two session timeouts (2 x 2000 ms), it may yet register. */
    snprintf(young, sizeof(young), "young.unit,17028,%lld", (long long)(clock_now_ms() - 1000));
    write_wal(x, young, x->b, 1, 2);
    char *dir = layout_wal_dir(x->root, young);
    char *fenced = layout_fenced_wal_dir(x->root, young);
    master_servers_find_dead(x->m);
    assert_false(pending(x, young));
    master_chore_pass(x->m, false);
    assert_true(exists(dir));
    assert_false(exists(fenced));
    assert_false(task_exists(x, young));
    assert_int_equal(recovered_edits(x, x->b), -1);
    free(dir);
    free(fenced);
}

/* ---------------------------------------------------------------- failed split */

/* A WAL of server with 3 edits of region whose first record is damaged (not a torn tail:
 * records follow). Returns the path the file will have once fenced; *good, *len: its bytes
 * before the damage. */
static char *write_corrupt_wal(fx *x, const char *server, const char *region, uint8_t **good,
                               size_t *len)
{
    write_wal(x, server, region, 1, 3);
    char *dir = layout_wal_dir(x->root, server);
    char *fenced = layout_fenced_wal_dir(x->root, server);
    char *file = first_wal_file(dir);
    char *fenced_file = NULL;
    assert_true(asprintf(&fenced_file, "%s/%s", fenced, strrchr(file, '/') + 1) > 0);
    read_file(file, good, len);
    assert_true(*len > 36 + 12 + 20);
    uint8_t *bad = malloc(*len);
    assert_non_null(bad);
    memcpy(bad, *good, *len);
    bad[36 + 12 + 4] ^= 0x5a; /* inside the first record's payload */
    write_file(file, bad, *len);
    free(bad);
    free(file);
    free(dir);
    free(fenced);
    return fenced_file;
}

static void corrupt_wal_split_failure_stays_queued_then_succeeds_once_fixed(void **state)
{
    fx *x = *state;
    uint8_t *good = NULL;
    size_t len = 0;
    char *fenced_file = write_corrupt_wal(x, x->s1, x->a, &good, &len);
    char *dir = layout_wal_dir(x->root, x->s1);
    char *fenced = layout_fenced_wal_dir(x->root, x->s1);

    mfake_server_kill(x->f, x->s1);
    master_servers_sync(x->m);
    for (int pass = 0; pass < 2; pass++) {
        master_chore_pass(x->m, false);
        assert_true(pending(x, x->s1));
        assert_true(task_exists(x, x->s1));
        assert_false(exists(dir));
        assert_true(exists(fenced_file));
        assert_int_equal(recovered_edits(x, x->a), -1);
        assert_row(x, x->a, META_OPEN, x->s1);
        assert_row(x, x->b, META_OPEN, x->s1);
        assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 0);
    }

    write_file(fenced_file, good, len); /* an operator repaired the file */
    master_chore_pass(x->m, false);
    assert_false(pending(x, x->s1));
    assert_false(task_exists(x, x->s1));
    assert_false(exists(fenced));
    assert_int_equal(recovered_edits(x, x->a), 3);
    assert_row(x, x->a, META_OPEN, x->s2);
    assert_row(x, x->b, META_OPEN, x->s2);
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 2);
    free(good);
    free(fenced_file);
    free(dir);
    free(fenced);
}

/* Regression: the chore stopped at the first recovery that failed and began the next pass
 * with the same one, so a dead server whose WAL cannot be split kept every server that died
 * after it from being recovered (their regions stayed on a dead server in meta). */
static void corrupt_wal_of_one_dead_server_does_not_block_recovery_of_others(void **state)
{
    fx *x = *state;
    /* b moves to s3; then s1 (a corrupt WAL) dies, then s3 (a good one). */
    char s3[SERVER_NAME_MAX];
    mfake_server_add(x->f, "rs3.unit", 17023, (uint64_t)clock_now_ms() - 60000, s3);
    master_servers_sync(x->m);
    m_table *t = NULL;
    m_region *r = NULL;
    assert_int_equal(master_region_take(x->m, x->b, &r, &t), ST_OK);
    assert_int_equal(master_unassign(x->m, r), ST_OK);
    assert_int_equal(master_assign(x->m, t, r, s3), ST_OK);
    master_region_give(x->m, r);
    uint8_t *good = NULL;
    size_t len = 0;
    char *fenced_file = write_corrupt_wal(x, x->s1, x->a, &good, &len);
    write_wal(x, s3, x->b, 1, 2);
    mfake_server_kill(x->f, x->s1);
    master_servers_sync(x->m);
    mfake_server_kill(x->f, s3);
    master_servers_sync(x->m);
    mfake_clear_calls(x->f);

    master_chore_pass(x->m, false);
    master_chore_pass(x->m, false);
    assert_true(pending(x, x->s1)); /* still failing, as it should */
    assert_false(pending(x, s3));
    assert_int_equal(recovered_edits(x, x->b), 2);
    assert_row(x, x->b, META_OPEN, x->s2);
    assert_row(x, x->a, META_OPEN, x->s1);
    free(good);
    free(fenced_file);
}

/* Regression: a failed recovery's message wraps the split's (st_error with st_errmsg() as
 * an argument); formatting into the buffer it read from garbled it ("... server S:
 * recovering the WALs of dead server S: 2-splitting/wal...") instead of naming the WAL file
 * that failed. */
static void corrupt_wal_split_failure_names_the_wal_file(void **state)
{
    fx *x = *state;
    uint8_t *good = NULL;
    size_t len = 0;
    char *fenced_file = write_corrupt_wal(x, x->s1, x->a, &good, &len);
    mfake_server_kill(x->f, x->s1);
    master_servers_sync(x->m);
    assert_int_equal(master_crash_recover(x->m, x->s1), ST_CORRUPTION);
    char msg[1024];
    snprintf(msg, sizeof(msg), "%s", st_errmsg());
    char prefix[SERVER_NAME_MAX + 64];
    snprintf(prefix, sizeof(prefix), "recovering the WALs of dead server %s: ", x->s1);
    assert_true(strncmp(msg, prefix, strlen(prefix)) == 0);
    assert_non_null(strstr(msg + strlen(prefix), fenced_file));
    assert_null(strstr(msg + strlen(prefix), "recovering the WALs"));
    free(good);
    free(fenced_file);
}

/* ---------------------------------------------------------------- failover */

static void crash_half_done_split_of_earlier_master_finished_by_new_master(void **state)
{
    fx *x = *state;
    /* An earlier master had fenced the WALs of a server meta does not name, started
     * splitting, and went. The server's start code is recent, so only the task shows it. */
    char half[SERVER_NAME_MAX];
    snprintf(half, sizeof(half), "half.unit,17026,%lld", (long long)clock_now_ms());
    char fenced_name[SERVER_NAME_MAX + 16];
    snprintf(fenced_name, sizeof(fenced_name), "%s-splitting", half);
    write_wal(x, fenced_name, x->b, 1, 3);
    char *task = mfake_path(ZNODE_SPLIT_WAL, half);
    mfake_zk_put(x->f, task, NULL, 0, 0);
    char *fenced = layout_fenced_wal_dir(x->root, half);
    assert_true(exists(fenced));

    mfake_set_hook(x->f, NULL, NULL);
    master_free(x->m);
    x->m = NULL;
    start_master(x, (uint64_t)clock_now_ms() + 1);
    assert_true(pending(x, half));
    mfake_clear_calls(x->f);
    master_chore_pass(x->m, false);
    assert_false(pending(x, half));
    assert_false(mfake_zk_exists(x->f, task));
    assert_false(exists(fenced));
    assert_int_equal(recovered_edits(x, x->b), 3);
    /* The table's regions stay where they were. */
    assert_row(x, x->a, META_OPEN, x->s1);
    assert_row(x, x->b, META_OPEN, x->s1);
    assert_int_equal(mfake_count(x->f, NULL, OPEN_RPC, NULL), 0);
    free(task);
    free(fenced);
}

static void crash_of_server_left_by_earlier_master_recovered_by_new_master(void **state)
{
    fx *x = *state;
    /* s1 died while no master watched: its znode is gone, meta still places a and b on it. */
    write_wal(x, x->s1, x->a, 1, 2);
    mfake_set_hook(x->f, NULL, NULL);
    master_free(x->m);
    x->m = NULL;
    mfake_server_kill(x->f, x->s1);
    start_master(x, (uint64_t)clock_now_ms() + 1);
    mfake_set_hook(x->f, hook, x);
    follow(x, x->s1, x->a);
    mfake_clear_calls(x->f);
    assert_true(pending(x, x->s1));
    assert_row(x, x->a, META_OPEN, x->s1);
    master_chore_pass(x->m, false);
    assert_followed(x, 2);
    assert_int_equal(recovered_edits(x, x->a), 2);
    assert_row(x, x->a, META_OPEN, x->s2);
    assert_row(x, x->b, META_OPEN, x->s2);
}

/* ---------------------------------------------------------------- self-fencing */

static void fenced_master_with_lapsed_lease_fences_no_wal_dir(void **state)
{
    fx *x = *state;
    write_wal(x, x->s1, x->a, 1, 1);
    char *dir = layout_wal_dir(x->root, x->s1);
    mfake_server_kill(x->f, x->s1);
    master_servers_sync(x->m);
    mfake_zk_set_session_timeout(x->f, 400);
    mfake_zk_set_ping(x->f, ST_CONNECTION);
    clock_sleep_ms(260);
    assert_int_equal(master_crash_recover(x->m, x->s1), ST_NOT_SERVING);
    assert_true(exists(dir));
    assert_false(task_exists(x, x->s1));
    assert_true(pending(x, x->s1));
    assert_row(x, x->a, META_OPEN, x->s1);
    assert_int_equal(mfake_count(x->f, NULL, NULL, NULL), 0);

    mfake_zk_set_ping(x->f, ST_OK);
    master_chore_pass(x->m, false);
    assert_false(pending(x, x->s1));
    assert_false(exists(dir));
    assert_row(x, x->a, META_OPEN, x->s2);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(crash_dead_server_split_before_regions_reopen_elsewhere,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(crash_newer_start_code_supersedes_old_server_at_once,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(crash_regions_of_disabled_table_closed_not_reopened,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(crash_orphan_wal_dir_of_old_server_found_and_split, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(crash_young_orphan_wal_dir_left_alone, setup, teardown),
        cmocka_unit_test_setup_teardown(
            corrupt_wal_split_failure_stays_queued_then_succeeds_once_fixed, setup, teardown),
        cmocka_unit_test_setup_teardown(corrupt_wal_of_one_dead_server_does_not_block_recovery_of_others,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(corrupt_wal_split_failure_names_the_wal_file, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            crash_half_done_split_of_earlier_master_finished_by_new_master, setup, teardown),
        cmocka_unit_test_setup_teardown(
            crash_of_server_left_by_earlier_master_recovered_by_new_master, setup, teardown),
        cmocka_unit_test_setup_teardown(fenced_master_with_lapsed_lease_fences_no_wal_dir, setup,
                                        teardown),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
