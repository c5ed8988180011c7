/*
 * test_split.c - split and merge on a real cluster (docs/split-merge.md,
 * docs/procedures.md): real ZooKeeper, masters and region servers started by
 * `strata cluster` (tests/support/cluster.h), driven through the public admin API.
 *
 * Tests:
 *   - a manual split of a region holding data, then a split of a daughter, a merge of two
 *     daughters: every row reads back after each step, a full scan sees each row once, meta
 *     tiles the key space, list_procedures shows them done; compaction rewrites the
 *     references and the catalog janitor then removes every parent (and not before);
 *   - bad input changes nothing: a key outside the region or equal to its start key, a
 *     disabled table, a region with references, merging regions of two tables, one region
 *     twice, regions not adjacent, the split and merge switches off;
 *   - automatic splits under a continuous writer and reader with a small flush size and
 *     MAX_FILESIZE: one region grows to several, no client error, every acknowledged row
 *     reads back and a full scan returns each exactly once;
 *   - the active master killed at each step of a split and of a merge
 *     (master.inject.crash): the next master rolls it back before its catalog change and
 *     finishes it after; the region server holding the region killed at each step (the
 *     master paused there, master.inject.pause): the procedure rolls back or goes on and
 *     the server's recovery reopens what it held. Each time meta has no hole or overlap,
 *     every region is open, no acknowledged row is lost, and the janitor leaves one
 *     directory per region (no parent, no half-made child);
 *   - compactions switched off (compaction_switch): the daughters keep their references and
 *     the janitor removes no parent until they are compacted.
 *
 * Every cluster is stopped at the end of its test (and by tests/support/cluster.c if the
 * test dies). Waits are bounded. Needs STRATA_BIN (CTest).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "client/admin_rpc.h"
#include "common/clock.h"
#include "common/proto/master.pb-c.h"
#include "common/status.h"
#include "strata/admin.h"
#include "strata/strata.h"
#include "tests/support/cluster.h"
#include "tests/support/testutil.h"

#define SESSION_MS 4000

/* ---- helpers ---- */

static tc_cluster *start_cluster(int masters, int rs, const char *const *flags)
{
    tc_options o = {
        .masters = masters, .regionservers = rs, .session_timeout_ms = SESSION_MS, .flags = flags};
    tc_cluster *c = NULL;
    if (tc_start(&o, &c) != ST_OK)
        fail_msg("cluster start: %s", st_errmsg());
    return c;
}

static strata_admin_t *admin_of(tc_cluster *c)
{
    char *err = NULL;
    strata_admin_t *a = strata_admin_open(tc_quorum(c), tc_parent(c), &err);
    if (!a)
        fail_msg("admin open: %s", err ? err : "?");
    return a;
}

static admin_rpc *rpc_of(tc_cluster *c)
{
    admin_rpc *a = NULL;
    assert_int_equal(admin_rpc_open(tc_quorum(c), tc_parent(c), &a), ST_OK);
    return a;
}

static strata_client_t *client_of(tc_cluster *c)
{
    strata_options_t *o = strata_options_create();
    strata_options_set_zk_quorum(o, tc_quorum(c));
    strata_options_set_zk_parent(o, tc_parent(c));
    strata_options_set_operation_timeout_ms(o, 60000);
    char *err = NULL;
    strata_client_t *cl = strata_client_open(o, &err);
    strata_options_destroy(o);
    if (!cl)
        fail_msg("client open: %s", err ? err : "?");
    return cl;
}

/* A table with family cf; flush/max sizes when not 0; values "K=V" pairs (NULL-ended). */
static void create_table_with(admin_rpc *a, const char *name, uint64_t flush, uint64_t max,
                              const char *const *values)
{
    Strata__Admin__TableSchema *s = NULL;
    assert_int_equal(admin_rpc_schema_new(name, "cf", &s), ST_OK);
    Strata__Admin__NameStringPair pairs[8], *ptrs[8];
    char kv[8][128];
    size_t nv = 0;
    for (; values && values[nv] && nv < 8; nv++) {
        snprintf(kv[nv], sizeof(kv[nv]), "%s", values[nv]);
        char *eq = strchr(kv[nv], '=');
        assert_non_null(eq);
        *eq = 0;
        strata__admin__name_string_pair__init(&pairs[nv]);
        pairs[nv].name = kv[nv];
        pairs[nv].value = eq + 1;
        ptrs[nv] = &pairs[nv];
    }
    s->n_value = nv;
    s->value = nv ? ptrs : NULL;
    if (flush) {
        s->has_memstore_flushsize = 1;
        s->memstore_flushsize = flush;
    }
    if (max) {
        s->has_max_filesize = 1;
        s->max_filesize = max;
    }
    int rc = admin_rpc_create_table(a, s, NULL, 0);
    s->n_value = 0;
    s->value = NULL;
    admin_rpc_schema_free(s);
    if (rc != ST_OK)
        fail_msg("create table %s: %s", name, st_errmsg());
}

static void create_table(admin_rpc *a, const char *name, uint64_t flush, uint64_t max)
{
    create_table_with(a, name, flush, max, NULL);
}

static void row_key(uint32_t i, char out[16])
{
    snprintf(out, 16, "r%06u", i);
}

static void write_rows(strata_client_t *cl, const char *table, uint32_t from, uint32_t to,
                       size_t value_len)
{
    strata_table_t *t = strata_table_open(cl, table);
    char *val = malloc(value_len + 16);
    for (uint32_t i = from; i < to; i++) {
        char row[16];
        row_key(i, row);
        int n = snprintf(val, value_len + 16, "v%u-", i);
        memset(val + n, 'x', value_len > (size_t)n ? value_len - (size_t)n : 0);
        size_t vl = value_len > (size_t)n ? value_len : (size_t)n;
        strata_mutation_t *m = strata_put_create(row, strlen(row));
        strata_put_add(m, "cf", 2, "q", 1, STRATA_LATEST_TIMESTAMP, val, vl);
        char *err = NULL;
        strata_table_put(t, m, &err);
        strata_mutation_destroy(m);
        if (err)
            fail_msg("put %u: %s", i, err);
    }
    free(val);
    strata_table_close(t);
}

/* Row i's value starts "v<i>-". */
static int check_row(strata_table_t *t, uint32_t i, char **err)
{
    char row[16], want[24];
    row_key(i, row);
    int wl = snprintf(want, sizeof(want), "v%u-", i);
    strata_get_t *g = strata_get_create(row, strlen(row));
    strata_result_t *res = strata_table_get(t, g, err);
    strata_get_destroy(g);
    if (*err)
        return -1;
    size_t len = 0;
    const char *v = res ? strata_result_value(res, "cf", 2, "q", 1, &len) : NULL;
    int ok = v && len >= (size_t)wl && memcmp(v, want, (size_t)wl) == 0;
    strata_result_destroy(res);
    return ok;
}

static void verify_rows(strata_client_t *cl, const char *table, uint32_t from, uint32_t to)
{
    strata_table_t *t = strata_table_open(cl, table);
    for (uint32_t i = from; i < to; i++) {
        char *err = NULL;
        int ok = check_row(t, i, &err);
        if (err)
            fail_msg("get %u: %s", i, err);
        if (ok != 1)
            fail_msg("row %u of %s lost or wrong", i, table);
    }
    strata_table_close(t);
}

/* A full scan sees rows 0..n-1 exactly once each, in order. */
static void scan_exactly(strata_client_t *cl, const char *table, uint32_t n)
{
    strata_table_t *t = strata_table_open(cl, table);
    strata_scan_t *s = strata_scan_create();
    strata_scan_set_caching(s, 7); /* many round trips: the scan crosses regions mid-way */
    char *err = NULL;
    strata_scanner_t *sc = strata_table_scan(t, s, &err);
    assert_null(err);
    uint32_t seen = 0;
    strata_result_t *r;
    while ((r = strata_scanner_next(sc, &err))) {
        char want[16];
        row_key(seen, want);
        size_t len = 0;
        const char *row = strata_result_row(r, &len);
        if (len != strlen(want) || memcmp(row, want, len) != 0)
            fail_msg("scan of %s: row %u is '%.*s', expected %s", table, seen, (int)len, row, want);
        seen++;
        strata_result_destroy(r);
    }
    if (err)
        fail_msg("scan of %s after %u rows: %s", table, seen, err);
    assert_int_equal(seen, n);
    strata_scanner_close(sc);
    strata_scan_destroy(s);
    strata_table_close(t);
}

/* The table's regions from the master; each checked to tile the key space. */
static Strata__Master__GetTableRegionsResponse *regions_of(admin_rpc *a, const char *table)
{
    Strata__Master__GetTableRegionsResponse *r = NULL;
    if (admin_rpc_table_regions(a, table, &r) != ST_OK)
        fail_msg("regions of %s: %s", table, st_errmsg());
    for (size_t i = 0; i < r->n_location; i++) {
        const Strata__Admin__RegionInfo *x = r->location[i]->region;
        if (i == 0)
            assert_int_equal(x->start_key.len, 0);
        if (i + 1 == r->n_location)
            assert_int_equal(x->end_key.len, 0);
        if (i + 1 < r->n_location) {
            const Strata__Admin__RegionInfo *y = r->location[i + 1]->region;
            if (x->end_key.len != y->start_key.len ||
                memcmp(x->end_key.data, y->start_key.data, x->end_key.len) != 0)
                fail_msg("table %s: regions %s and %s leave a hole or overlap", table,
                         x->encoded_name, y->encoded_name);
        }
    }
    return r;
}

/* Waits until the table has at least n regions, all open. */
static size_t wait_open(admin_rpc *a, const char *table, size_t n, int64_t timeout_ms)
{
    int64_t until = clock_now_ms() + timeout_ms;
    for (;;) {
        Strata__Master__GetTableRegionsResponse *r = regions_of(a, table);
        size_t open = 0, total = r->n_location;
        for (size_t i = 0; i < total; i++)
            open += r->location[i]->server &&
                    r->location[i]->state == STRATA__MASTER__REGION_STATE__OPEN;
        admin_rpc_free_msg(r);
        if (total >= n && open == total)
            return total;
        if (clock_now_ms() > until)
            fail_msg("table %s: %zu of %zu regions open (want %zu) after %lld ms", table, open,
                     total, n, (long long)timeout_ms);
        clock_sleep_ms(100);
    }
}

/* Encoded name of region i of the table. */
static void region_name(admin_rpc *a, const char *table, size_t i, char out[64])
{
    Strata__Master__GetTableRegionsResponse *r = regions_of(a, table);
    assert_true(i < r->n_location);
    snprintf(out, 64, "%s", r->location[i]->region->encoded_name);
    admin_rpc_free_msg(r);
}

/* Region directories under <cluster>/root/data/default/<table>. */
static size_t region_dirs(tc_cluster *c, const char *table)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/root/data/default/%s", tc_dir(c), table);
    DIR *d = opendir(path);
    size_t n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static void must_fail(char *err, const char *what, const char *needle)
{
    if (!err)
        fail_msg("%s: expected a refusal", what);
    if (needle && !strstr(err, needle))
        fail_msg("%s: refusal '%s' does not say '%s'", what, err, needle);
    strata_free(err);
}

/* Compacts the table and runs the janitor until it has removed `want` parents in all. */
static void compact_and_clean(strata_admin_t *ad, const char *table, unsigned want)
{
    unsigned cleaned = 0;
    int64_t until = clock_now_ms() + 60000;
    while (cleaned < want) {
        char *err = NULL;
        strata_admin_compact_table(ad, table, 1, &err);
        strata_free(err);
        err = NULL;
        cleaned += strata_admin_run_catalog_janitor(ad, &err);
        if (err)
            fail_msg("catalogjanitor_run: %s", err);
        if (cleaned >= want)
            break;
        if (clock_now_ms() > until)
            fail_msg("janitor removed %u of %u parents of %s in 60 s", cleaned, want, table);
        clock_sleep_ms(300);
    }
}

/* ---- tests ---- */

static void manual_split_then_merge_keep_every_row(void **state)
{
    (void)state;
    tc_cluster *c = start_cluster(1, 2, NULL);
    strata_admin_t *ad = admin_of(c);
    admin_rpc *a = rpc_of(c);
    strata_client_t *cl = client_of(c);
    create_table(a, "sp", 0, 0);
    wait_open(a, "sp", 1, 30000);
    write_rows(cl, "sp", 0, 3000, 100);
    char *err = NULL;
    /* Compactions off: the daughters keep their references until they are back on. */
    unsigned char *prev = NULL;
    strata_name_list_t *sw = strata_admin_compaction_switch(ad, 0, NULL, 0, &prev, &err);
    if (!sw)
        fail_msg("compaction_switch false: %s", err);
    assert_int_equal(strata_name_list_count(sw), 2);
    assert_true(prev[0] && prev[1]);
    strata_free(prev);
    strata_name_list_destroy(sw);
    /* A split at an explicit key, data in the memstore (closing flushes it). */
    strata_admin_split_table(ad, "sp", (const unsigned char *)"r001000", 7, &err);
    if (err)
        fail_msg("split: %s", err);
    assert_int_equal(wait_open(a, "sp", 2, 30000), 2);
    verify_rows(cl, "sp", 0, 3000);
    scan_exactly(cl, "sp", 3000);
    /* The daughter with references cannot split again before it is compacted. */
    char second[64];
    region_name(a, "sp", 1, second);
    strata_admin_split_region(ad, second, (const unsigned char *)"r002000", 7, &err);
    must_fail(err, "split of a region with references", "reference");
    err = NULL;
    /* Parents stay while referenced: the janitor removes nothing yet. */
    assert_int_equal(strata_admin_run_catalog_janitor(ad, &err), 0);
    assert_null(err);
    assert_int_equal(region_dirs(c, "sp"), 3);
    sw = strata_admin_compaction_switch(ad, 1, NULL, 0, &prev, &err);
    if (!sw)
        fail_msg("compaction_switch true: %s", err);
    assert_false(prev[0] || prev[1]);
    strata_free(prev);
    strata_name_list_destroy(sw);
    compact_and_clean(ad, "sp", 1);
    assert_int_equal(region_dirs(c, "sp"), 2);
    /* Now the daughter splits at its own best point. */
    write_rows(cl, "sp", 3000, 4000, 100);
    strata_admin_split_region(ad, second, NULL, 0, &err);
    if (err)
        fail_msg("split at the best point: %s", err);
    assert_int_equal(wait_open(a, "sp", 3, 30000), 3);
    verify_rows(cl, "sp", 0, 4000);
    scan_exactly(cl, "sp", 4000);
    /* Merge the first two regions. */
    char m0[64], m1[64];
    region_name(a, "sp", 0, m0);
    region_name(a, "sp", 1, m1);
    compact_and_clean(ad, "sp", 1);
    const char *names[2] = {m0, m1};
    char *merged = strata_admin_merge_regions(ad, names, 2, 0, &err);
    if (err)
        fail_msg("merge: %s", err);
    assert_non_null(merged);
    strata_free(merged);
    assert_int_equal(wait_open(a, "sp", 2, 30000), 2);
    verify_rows(cl, "sp", 0, 4000);
    scan_exactly(cl, "sp", 4000);
    compact_and_clean(ad, "sp", 1);
    assert_int_equal(region_dirs(c, "sp"), 2);
    /* list_procedures: the splits and the merge ended well. */
    strata_procedure_list_t *pl = strata_admin_list_procedures(ad, &err);
    assert_null(err);
    size_t splits = 0, merges = 0;
    for (size_t i = 0; i < strata_procedure_list_count(pl); i++) {
        if (strcmp(strata_procedure_state(pl, i), "SUCCESS") != 0)
            continue;
        splits += strcmp(strata_procedure_type(pl, i), "SplitTableRegionProcedure") == 0;
        merges += strcmp(strata_procedure_type(pl, i), "MergeTableRegionsProcedure") == 0;
    }
    assert_int_equal(splits, 2);
    assert_int_equal(merges, 1);
    strata_procedure_list_destroy(pl);
    strata_client_close(cl);
    admin_rpc_close(a);
    strata_admin_close(ad);
    assert_int_equal(tc_stop(c), ST_OK);
}

static void bad_input_changes_nothing(void **state)
{
    (void)state;
    tc_cluster *c = start_cluster(1, 1, NULL);
    strata_admin_t *ad = admin_of(c);
    admin_rpc *a = rpc_of(c);
    strata_client_t *cl = client_of(c);
    create_table(a, "b1", 0, 0);
    create_table(a, "b2", 0, 0);
    wait_open(a, "b1", 1, 30000);
    wait_open(a, "b2", 1, 30000);
    write_rows(cl, "b1", 0, 200, 50);
    strata_admin_split_table(ad, "b1", (const unsigned char *)"r000100", 7, NULL);
    assert_int_equal(wait_open(a, "b1", 2, 30000), 2);
    char r0[64], r1[64], other[64];
    region_name(a, "b1", 0, r0);
    region_name(a, "b1", 1, r1);
    region_name(a, "b2", 0, other);
    char *err = NULL;
    /* The second region starts at r000100: its start key and a key below it. */
    strata_admin_split_region(ad, r1, (const unsigned char *)"r000100", 7, &err);
    must_fail(err, "split at the start key", "start key");
    err = NULL;
    strata_admin_split_region(ad, r1, (const unsigned char *)"a", 1, &err);
    must_fail(err, "split outside the region", "not inside");
    err = NULL;
    strata_admin_split_region(ad, "0123456789abcdef0123456789abcdef", NULL, 0, &err);
    must_fail(err, "split of an unknown region", "unknown");
    err = NULL;
    const char *same[2] = {r0, r0};
    strata_free(strata_admin_merge_regions(ad, same, 2, 0, &err));
    must_fail(err, "merge of one region twice", "twice");
    err = NULL;
    const char *two_tables[2] = {r1, other};
    strata_free(strata_admin_merge_regions(ad, two_tables, 2, 1, &err));
    must_fail(err, "merge of two tables", "two tables");
    err = NULL;
    /* Switches off refuse, and say so; back on, they work again. */
    assert_true(strata_admin_set_switch(ad, "SPLIT", 0, &err));
    assert_null(err);
    assert_false(strata_admin_switch_enabled(ad, "SPLIT", &err));
    strata_admin_split_region(ad, r0, (const unsigned char *)"r000050", 7, &err);
    must_fail(err, "split with the switch off", "switch is off");
    err = NULL;
    assert_true(strata_admin_set_switch(ad, "MERGE", 0, &err));
    const char *pair[2] = {r0, r1};
    strata_free(strata_admin_merge_regions(ad, pair, 2, 0, &err));
    must_fail(err, "merge with the switch off", "switch is off");
    err = NULL;
    assert_false(strata_admin_set_switch(ad, "SPLIT", 1, &err));
    assert_false(strata_admin_set_switch(ad, "MERGE", 1, &err));
    assert_null(err);
    /* DisabledRegionSplitPolicy refuses manual splits too. */
    const char *disabled[] = {"SPLIT_POLICY=org.apache.hadoop.hbase.regionserver."
                              "DisabledRegionSplitPolicy",
                              NULL};
    create_table_with(a, "b3", 0, 0, disabled);
    wait_open(a, "b3", 1, 30000);
    write_rows(cl, "b3", 0, 100, 50);
    strata_admin_split_table(ad, "b3", (const unsigned char *)"r000050", 7, &err);
    must_fail(err, "split under DisabledRegionSplitPolicy", "DisabledRegionSplitPolicy");
    err = NULL;
    assert_int_equal(wait_open(a, "b3", 1, 30000), 1);
    /* KeyPrefixRegionSplitPolicy cuts the best split point to its prefix. */
    const char *prefix[] = {"SPLIT_POLICY=KeyPrefixRegionSplitPolicy",
                            "KeyPrefixRegionSplitPolicy.prefix_length=4", NULL};
    create_table_with(a, "b4", 0, 0, prefix);
    wait_open(a, "b4", 1, 30000);
    write_rows(cl, "b4", 0, 3000, 50);
    strata_admin_flush_table(ad, "b4", &err);
    assert_null(err);
    strata_admin_split_table(ad, "b4", NULL, 0, &err);
    if (err)
        fail_msg("split under KeyPrefixRegionSplitPolicy: %s", err);
    assert_int_equal(wait_open(a, "b4", 2, 30000), 2);
    Strata__Master__GetTableRegionsResponse *kp = regions_of(a, "b4");
    assert_int_equal(kp->location[1]->region->start_key.len, 4);
    assert_memory_equal(kp->location[1]->region->start_key.data, "r00", 3);
    admin_rpc_free_msg(kp);
    verify_rows(cl, "b4", 0, 3000);
    /* A disabled table. */
    assert_int_equal(admin_rpc_disable_table(a, "b2"), ST_OK);
    strata_admin_split_table(ad, "b2", (const unsigned char *)"m", 1, &err);
    must_fail(err, "split of a disabled table", "not enabled");
    err = NULL;
    /* Nothing changed: b1 still has its two regions and every row. */
    assert_int_equal(wait_open(a, "b1", 2, 30000), 2);
    verify_rows(cl, "b1", 0, 200);
    strata_client_close(cl);
    admin_rpc_close(a);
    strata_admin_close(ad);
    assert_int_equal(tc_stop(c), ST_OK);
}

/* ---- automatic splits under load ---- */

typedef struct load {
    strata_client_t *cl;
    atomic_bool stop;
    atomic_uint acked;
    atomic_uint batched; /* rows b000000.. acknowledged through the buffered mutator */
    atomic_uint errors;
    atomic_uint scans;
    char first_error[512];
} load;

static void load_error(load *l, const char *fmt, const char *what, unsigned i)
{
    if (atomic_fetch_add(&l->errors, 1) == 0)
        snprintf(l->first_error, sizeof(l->first_error), fmt, i, what);
}

/* Batches of 50 rows b<i> through the buffered mutator (Multi calls re-routed per region). */
static void *batcher(void *arg)
{
    load *l = arg;
    strata_table_t *t = strata_table_open(l->cl, "auto");
    strata_mutator_t *bm = strata_mutator_create(t, 64 * 1024);
    char val[600];
    memset(val, 'z', sizeof(val));
    for (uint32_t i = 0; !atomic_load(&l->stop);) {
        char *err = NULL;
        for (int k = 0; k < 50 && !err; k++, i++) {
            char row[16];
            snprintf(row, sizeof(row), "b%06u", i);
            strata_mutation_t *m = strata_put_create(row, strlen(row));
            strata_put_add(m, "cf", 2, "q", 1, STRATA_LATEST_TIMESTAMP, val, sizeof(val));
            strata_mutator_mutate(bm, m, &err);
            strata_mutation_destroy(m);
        }
        if (!err)
            strata_mutator_flush(bm, &err);
        if (err) {
            load_error(l, "mutator at b%06u: %s", err, i);
            strata_free(err);
            break;
        }
        atomic_store(&l->batched, i);
    }
    char *err = NULL;
    strata_mutator_close(bm, &err);
    if (err)
        load_error(l, "mutator close after b%06u: %s", err, atomic_load(&l->batched));
    strata_free(err);
    strata_table_close(t);
    return NULL;
}

/* Full scans while regions split: rows strictly increasing (none twice), and every row
 * acknowledged before the scan began is in it. */
static void *full_scanner(void *arg)
{
    load *l = arg;
    strata_table_t *t = strata_table_open(l->cl, "auto");
    while (!atomic_load(&l->stop) && atomic_load(&l->errors) == 0) {
        uint32_t acked = atomic_load(&l->acked), batched = atomic_load(&l->batched);
        strata_scan_t *s = strata_scan_create();
        strata_scan_set_caching(s, 20);
        char *err = NULL;
        strata_scanner_t *sc = strata_table_scan(t, s, &err);
        char prev[32] = "";
        uint32_t seen_r = 0, seen_b = 0;
        strata_result_t *r;
        while (sc && (r = strata_scanner_next(sc, &err))) {
            size_t len = 0;
            const char *row = strata_result_row(r, &len);
            char cur[32];
            snprintf(cur, sizeof(cur), "%.*s", (int)(len < 31 ? len : 31), row);
            if (prev[0] && strcmp(cur, prev) <= 0)
                load_error(l, "scan: row %u out of order or twice: %s", cur, seen_r + seen_b);
            snprintf(prev, sizeof(prev), "%s", cur);
            seen_r += cur[0] == 'r';
            seen_b += cur[0] == 'b';
            strata_result_destroy(r);
        }
        if (err)
            load_error(l, "scan after %u rows: %s", err, seen_r + seen_b);
        else if (seen_r < acked || seen_b < batched)
            load_error(l, "scan: %u rows missing (%s)", "fewer than acknowledged",
                       (acked - (seen_r < acked ? seen_r : acked)) +
                           (batched - (seen_b < batched ? seen_b : batched)));
        strata_free(err);
        strata_scanner_close(sc);
        strata_scan_destroy(s);
        atomic_fetch_add(&l->scans, 1);
    }
    strata_table_close(t);
    return NULL;
}

static void *writer(void *arg)
{
    load *l = arg;
    strata_table_t *t = strata_table_open(l->cl, "auto");
    char val[1100];
    for (uint32_t i = 0; !atomic_load(&l->stop); i++) {
        char row[16];
        row_key(i, row);
        int n = snprintf(val, sizeof(val), "v%u-", i);
        memset(val + n, 'y', 1000 - (size_t)n);
        strata_mutation_t *m = strata_put_create(row, strlen(row));
        strata_put_add(m, "cf", 2, "q", 1, STRATA_LATEST_TIMESTAMP, val, 1000);
        char *err = NULL;
        strata_table_put(t, m, &err);
        strata_mutation_destroy(m);
        if (err) {
            load_error(l, "put %u: %s", err, i);
            strata_free(err);
            break;
        }
        atomic_store(&l->acked, i + 1);
    }
    strata_table_close(t);
    return NULL;
}

static void *reader(void *arg)
{
    load *l = arg;
    strata_table_t *t = strata_table_open(l->cl, "auto");
    uint32_t seed = 7;
    while (!atomic_load(&l->stop)) {
        uint32_t n = atomic_load(&l->acked);
        if (n == 0) {
            clock_sleep_ms(5);
            continue;
        }
        seed = seed * 1103515245u + 12345u;
        char *err = NULL;
        int ok = check_row(t, seed % n, &err);
        if (err || ok != 1) {
            load_error(l, "get %u: %s", err ? err : "missing", seed % n);
            strata_free(err);
            break;
        }
    }
    strata_table_close(t);
    return NULL;
}

static void automatic_splits_under_load(void **state)
{
    (void)state;
    tc_cluster *c = start_cluster(1, 2, NULL);
    admin_rpc *a = rpc_of(c);
    strata_client_t *cl = client_of(c);
    /* SteppingSplitPolicy: the first split at 2 x 64 KiB, then at MAX_FILESIZE. */
    create_table(a, "auto", 64 * 1024, 512 * 1024);
    wait_open(a, "auto", 1, 30000);
    load l = {.cl = cl};
    pthread_t w, r, bt, sc;
    pthread_create(&w, NULL, writer, &l);
    pthread_create(&r, NULL, reader, &l);
    pthread_create(&bt, NULL, batcher, &l);
    pthread_create(&sc, NULL, full_scanner, &l);
    int64_t until = clock_now_ms() + 90000;
    size_t regions = 1;
    while (clock_now_ms() < until && atomic_load(&l.errors) == 0) {
        Strata__Master__GetTableRegionsResponse *g = regions_of(a, "auto");
        regions = g->n_location;
        admin_rpc_free_msg(g);
        if (regions >= 4 && atomic_load(&l.acked) > 6000 && atomic_load(&l.scans) >= 3)
            break;
        clock_sleep_ms(250);
    }
    atomic_store(&l.stop, true);
    pthread_join(w, NULL);
    pthread_join(r, NULL);
    pthread_join(bt, NULL);
    pthread_join(sc, NULL);
    if (atomic_load(&l.errors))
        fail_msg("client error during automatic splits: %s", l.first_error);
    if (regions < 4)
        fail_msg("the table has %zu regions after %u rows; automatic splits did not happen",
                 regions, atomic_load(&l.acked));
    uint32_t n = atomic_load(&l.acked);
    wait_open(a, "auto", regions, 30000);
    verify_rows(cl, "auto", 0, n);
    /* The r rows, exactly once each (the b rows sort before them). */
    strata_table_t *t = strata_table_open(cl, "auto");
    for (uint32_t i = 0; i < atomic_load(&l.batched); i += 97) {
        char row[16];
        snprintf(row, sizeof(row), "b%06u", i);
        strata_get_t *g = strata_get_create(row, strlen(row));
        char *err = NULL;
        strata_result_t *res = strata_table_get(t, g, &err);
        strata_get_destroy(g);
        if (err || !res || !strata_result_cell_count(res))
            fail_msg("batched row %s lost (%s)", row, err ? err : "missing");
        strata_result_destroy(res);
    }
    strata_table_close(t);
    assert_true(atomic_load(&l.scans) >= 3);
    strata_client_close(cl);
    admin_rpc_close(a);
    assert_int_equal(tc_stop(c), ST_OK);
}

/* ---- merges under the same faults ---- */

/* A table of two regions split at r000500, rows 0..999 in it. */
static void two_region_table(admin_rpc *a, strata_client_t *cl, const char *name)
{
    Strata__Admin__TableSchema *s = NULL;
    assert_int_equal(admin_rpc_schema_new(name, "cf", &s), ST_OK);
    ProtobufCBinaryData splits[] = {{7, (uint8_t *)"r000500"}};
    int rc = admin_rpc_create_table(a, s, splits, 1);
    admin_rpc_schema_free(s);
    if (rc != ST_OK)
        fail_msg("create table %s: %s", name, st_errmsg());
    wait_open(a, name, 2, 30000);
    write_rows(cl, name, 0, 1000, 100);
}

static void merge_two(strata_admin_t *ad, admin_rpc *a, const char *table, char **err)
{
    char m0[64], m1[64];
    region_name(a, table, 0, m0);
    region_name(a, table, 1, m1);
    const char *names[2] = {m0, m1};
    strata_free(strata_admin_merge_regions(ad, names, 2, 0, err));
}

/* The rs-N listening on port (its ready file holds host:port). */
static void rs_name_of_port(tc_cluster *c, unsigned port, char out[16])
{
    for (int i = 1; i <= 3; i++) {
        char path[4200], line[300] = "";
        snprintf(path, sizeof(path), "%s/run/rs-%d.ready", tc_dir(c), i);
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(line, sizeof(line), f))
                line[0] = 0;
            fclose(f);
        }
        char *colon = strrchr(line, ':');
        if (colon && (unsigned)atoi(colon + 1) == port) {
            snprintf(out, 16, "rs-%d", i);
            return;
        }
    }
    fail_msg("no rs-N listens on port %u", port);
}

static bool log_has(tc_cluster *c, const char *name, const char *needle)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/logs/%s.log", tc_dir(c), name);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof(line), f))
        found = strstr(line, needle) != NULL;
    fclose(f);
    return found;
}

typedef struct bg_call {
    strata_admin_t *ad;
    admin_rpc *a;
    const char *table;
    bool merge;
    char *err;
} bg_call;

static void *bg_split_or_merge(void *arg)
{
    bg_call *b = arg;
    if (b->merge)
        merge_two(b->ad, b->a, b->table, &b->err);
    else
        strata_admin_split_table(b->ad, b->table, (const unsigned char *)"r000500", 7, &b->err);
    return NULL;
}

/* The region server holding the (first) region killed while the master pauses at step:
 * the procedure rolls back or goes on, the dead server's recovery reopens what it held;
 * no row is lost, meta tiles the key space, the janitor leaves nothing behind. */
static void rs_killed_at(const char *type, const char *step)
{
    bool merge = strcmp(type, "MergeTableRegionsProcedure") == 0;
    char pause[160];
    snprintf(pause, sizeof(pause), "--master.inject.pause=%s:%s", type, step);
    const char *flags[] = {pause, "--master.inject.pause.ms=3000", NULL};
    tc_cluster *c = start_cluster(1, 2, flags);
    strata_admin_t *ad = admin_of(c);
    admin_rpc *a = rpc_of(c);
    strata_client_t *cl = client_of(c);
    if (merge) {
        two_region_table(a, cl, "rk");
    } else {
        create_table(a, "rk", 0, 0);
        wait_open(a, "rk", 1, 30000);
        write_rows(cl, "rk", 0, 1000, 100);
    }
    Strata__Master__GetTableRegionsResponse *r = regions_of(a, "rk");
    char victim[16];
    rs_name_of_port(c, r->location[0]->server->port, victim);
    admin_rpc_free_msg(r);
    bg_call b = {.ad = ad, .a = a, .table = "rk", .merge = merge};
    pthread_t th;
    pthread_create(&th, NULL, bg_split_or_merge, &b);
    char needle[200];
    snprintf(needle, sizeof(needle), "inject: pausing at %s:%s", type, step);
    int64_t until = clock_now_ms() + 30000;
    while (!log_has(c, "master-1", needle) && clock_now_ms() < until)
        clock_sleep_ms(20);
    if (!log_has(c, "master-1", needle))
        fail_msg("the master never reached %s:%s", type, step);
    assert_int_equal(tc_kill(c, victim), ST_OK);
    pthread_join(th, NULL);
    strata_free(b.err); /* done or rolled back: either is fine */
    size_t n = wait_open(a, "rk", 1, 90000);
    verify_rows(cl, "rk", 0, 1000);
    scan_exactly(cl, "rk", 1000);
    write_rows(cl, "rk", 1000, 1100, 100);
    verify_rows(cl, "rk", 0, 1100);
    n = wait_open(a, "rk", 1, 30000);
    compact_and_clean(ad, "rk", 0);
    int64_t clean_until = clock_now_ms() + 60000;
    while (region_dirs(c, "rk") != n && clock_now_ms() < clean_until) {
        char *err = NULL;
        strata_admin_compact_table(ad, "rk", 1, &err);
        strata_free(err);
        err = NULL;
        strata_admin_run_catalog_janitor(ad, &err);
        strata_free(err);
        clock_sleep_ms(300);
        n = wait_open(a, "rk", 1, 30000);
    }
    if (region_dirs(c, "rk") != n) {
        char cmd[4400];
        snprintf(cmd, sizeof(cmd), "find %s/root/data/default/rk | sort >&2; grep -h -E "
                 "'janitor|split|merge|compact|rk' %s/logs/*.log | tail -60 >&2",
                 tc_dir(c), tc_dir(c));
        if (system(cmd) != 0)
            fprintf(stderr, "(could not list the table's directory)\n");
        fail_msg("after the crash at %s:%s: %zu region directories for %zu regions", type, step,
                 region_dirs(c, "rk"), n);
    }
    strata_client_close(cl);
    admin_rpc_close(a);
    strata_admin_close(ad);
    assert_int_equal(tc_stop(c), ST_OK);
}

static void rs_killed_during_split(void **state)
{
    (void)state;
    static const char *const steps[] = {"CLOSE_PARENT", "CREATE_DAUGHTERS", "UPDATE_META",
                                        "OPEN_DAUGHTERS"};
    for (size_t i = 0; i < 4; i++)
        rs_killed_at("SplitTableRegionProcedure", steps[i]);
}

static void rs_killed_during_merge(void **state)
{
    (void)state;
    static const char *const steps[] = {"CLOSE_PARENTS", "CREATE_MERGED", "UPDATE_META",
                                        "OPEN_MERGED"};
    for (size_t i = 0; i < 4; i++)
        rs_killed_at("MergeTableRegionsProcedure", steps[i]);
}

/* ---- the active master killed at each step ---- */

static void master_killed_at(const char *type, const char *step)
{
    bool merge = strcmp(type, "MergeTableRegionsProcedure") == 0;
    char flag[160];
    snprintf(flag, sizeof(flag), "--master.inject.crash=%s:%s", type, step);
    const char *flags[] = {flag, NULL};
    tc_cluster *c = start_cluster(2, 2, flags);
    strata_admin_t *ad = admin_of(c);
    admin_rpc *a = rpc_of(c);
    strata_client_t *cl = client_of(c);
    if (merge) {
        two_region_table(a, cl, "mk");
    } else {
        create_table(a, "mk", 0, 0);
        wait_open(a, "mk", 1, 30000);
        write_rows(cl, "mk", 0, 1000, 100);
    }
    char first[16];
    assert_int_equal(tc_active_master(c, first, sizeof(first)), ST_OK);
    char *err = NULL;
    if (merge)
        merge_two(ad, a, "mk", &err);
    else
        strata_admin_split_table(ad, "mk", (const unsigned char *)"r000500", 7, &err);
    strata_free(err); /* the master died under the call; the client may have retried */
    /* The other master takes over and rolls the split back or finishes it. */
    int64_t until = clock_now_ms() + 40000;
    char now[16] = "";
    while (clock_now_ms() < until) {
        if (tc_active_master(c, now, sizeof(now)) == ST_OK && now[0] && strcmp(now, first) != 0)
            break;
        clock_sleep_ms(200);
    }
    if (!now[0] || strcmp(now, first) == 0)
        fail_msg("no other master took over after the crash at %s", step);
    size_t n = wait_open(a, "mk", 1, 60000);
    bool after_meta = strcmp(step, "OPEN_DAUGHTERS") == 0 || strcmp(step, "OPEN_MERGED") == 0;
    if (after_meta)
        assert_int_equal(n, merge ? 1 : 2);
    /* The new master found the dead one's procedure in meta: rolled back before the
     * catalog change, finished after it. */
    bool resumed = false;
    for (int tries = 0; tries < 100 && !resumed; tries++) {
        strata_procedure_list_t *pl = strata_admin_list_procedures(ad, &err);
        if (!pl)
            fail_msg("list_procedures: %s", err);
        for (size_t i = 0; i < strata_procedure_list_count(pl); i++) {
            const char *st = strata_procedure_state(pl, i);
            if (after_meta
                    ? strcmp(st, "SUCCESS") == 0 && strcmp(strata_procedure_step(pl, i), step) == 0
                    : strcmp(st, "ROLLEDBACK") == 0 &&
                          strstr(strata_procedure_error(pl, i), "failover"))
                resumed = true;
        }
        strata_procedure_list_destroy(pl);
        if (!resumed)
            clock_sleep_ms(100);
    }
    if (!resumed)
        fail_msg("the new master shows no resumed procedure after the crash at %s", step);
    verify_rows(cl, "mk", 0, 1000);
    scan_exactly(cl, "mk", 1000);
    /* New writes land, and the janitor leaves no parent or half-made daughter behind. */
    write_rows(cl, "mk", 1000, 1100, 100);
    verify_rows(cl, "mk", 0, 1100);
    if (n == 2 || (merge && n == 1))
        compact_and_clean(ad, "mk", 1);
    assert_int_equal(region_dirs(c, "mk"), n);
    strata_client_close(cl);
    admin_rpc_close(a);
    strata_admin_close(ad);
    assert_int_equal(tc_stop(c), ST_OK);
}

static void master_killed_during_split(void **state)
{
    (void)state;
    static const char *const steps[] = {"CLOSE_PARENT", "CREATE_DAUGHTERS", "UPDATE_META",
                                        "OPEN_DAUGHTERS"};
    for (size_t i = 0; i < 4; i++)
        master_killed_at("SplitTableRegionProcedure", steps[i]);
}

static void master_killed_during_merge(void **state)
{
    (void)state;
    static const char *const steps[] = {"CLOSE_PARENTS", "CREATE_MERGED", "UPDATE_META",
                                        "OPEN_MERGED"};
    for (size_t i = 0; i < 4; i++)
        master_killed_at("MergeTableRegionsProcedure", steps[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(manual_split_then_merge_keep_every_row),
        cmocka_unit_test(bad_input_changes_nothing),
        cmocka_unit_test(automatic_splits_under_load),
        cmocka_unit_test(master_killed_during_split),
        cmocka_unit_test(master_killed_during_merge),
        cmocka_unit_test(rs_killed_during_split),
        cmocka_unit_test(rs_killed_during_merge),
    };
    if (getenv("STRATA_TEST_FILTER")) /* e.g. "master_killed_*" */
        cmocka_set_test_filter(getenv("STRATA_TEST_FILTER"));
    return tu_run_group_tests(tests, NULL, NULL);
}
