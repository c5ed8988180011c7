/*
 * test_ycsb_gen.c - tools/bench_ycsb_gen.c, bench_ycsb_opts.c and bench_ycsb_stats.c:
 * keys equal to YCSB's (fnvhash64 against values computed by a reimplementation of
 * Utils.fnvhash64), the zipfian skew (the most popular item's share against 1/zeta),
 * the scrambled zipfian's spread, hotspot fractions, latest favouring the newest keys,
 * uniform bounds, the acknowledged counter's limit with out-of-order acknowledgements,
 * the operation mix, the workload table, bad command lines refused with a message, and
 * histogram percentiles. Draws are seeded (tu_seed) and bounds are several standard
 * deviations wide.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "tests/support/testutil.h"
#include "tools/bench_ycsb.h"

static ycsb_rng seeded(const char *what)
{
    ycsb_rng r;
    ycsb_rng_seed(&r, tu_seed(what));
    return r;
}

static void fnvhash64_matches_ycsb(void **state)
{
    (void)state;
    /* Reference values: Utils.fnvhash64 reimplemented over Java's long arithmetic. */
    static const struct {
        int64_t in, out;
    } ref[] = {
        {0, 6284781860667377211LL},         {1, 8517097267634966620LL},
        {2, 1820151046732198393LL},         {42, 55488592825689361LL},
        {1000, 5952875239596136740LL},      {123456789, 2350796791908741607LL},
        {-1, 8289690350564177859LL},        {INT64_MAX, 8289549613075766851LL},
        {INT64_MIN, 6284922598155788219LL},
    };
    for (size_t i = 0; i < sizeof(ref) / sizeof(ref[0]); i++)
        assert_true(ycsb_fnvhash64(ref[i].in) == ref[i].out);
    char key[YCSB_KEY_MAX];
    assert_int_equal(ycsb_key(0, key), strlen("user6284781860667377211"));
    assert_string_equal(key, "user6284781860667377211");
    ycsb_key(42, key);
    assert_string_equal(key, "user55488592825689361");
    /* insertorder=ordered: the number itself, zero-padded; keys sort as numbers. */
    assert_int_equal(ycsb_key_ordered(42, 1, key), strlen("user42"));
    assert_string_equal(key, "user42");
    ycsb_key_ordered(42, 8, key);
    assert_string_equal(key, "user00000042");
    char next[YCSB_KEY_MAX];
    ycsb_key_ordered(100, 8, next);
    assert_true(strcmp(key, next) < 0);
}

static void zipfian_most_popular_item_gets_its_share(void **state)
{
    (void)state;
    ycsb_rng r = seeded(__func__);
    const int n = 1000, draws = 200000;
    ycsb_zipf z;
    ycsb_zipf_init(&z, 0, n - 1, YCSB_ZIPFIAN_CONSTANT, 0);
    double zetan = ycsb_zeta(0, n, YCSB_ZIPFIAN_CONSTANT, 0);
    assert_true(fabs(z.zetan - zetan) < 1e-9);
    int *hits = calloc((size_t)n, sizeof(int));
    assert_non_null(hits);
    for (int i = 0; i < draws; i++) {
        int64_t v = ycsb_zipf_next(&z, &r);
        assert_true(v >= 0 && v < n);
        hits[v]++;
    }
    double p0 = 1 / zetan, p1 = 1 / pow(2, YCSB_ZIPFIAN_CONSTANT) / zetan;
    assert_true(fabs(hits[0] / (double)draws - p0) < 0.1 * p0);
    assert_true(fabs(hits[1] / (double)draws - p1) < 0.1 * p1);
    int top = 0;
    for (int i = 0; i < n; i++)
        top = hits[i] > hits[top] ? i : top;
    assert_int_equal(top, 0);
    /* the head is heavy: the first 10% of the items take well over half the draws */
    long head = 0;
    for (int i = 0; i < n / 10; i++)
        head += hits[i];
    assert_true(head > draws / 2);
    free(hits);
}

static void zipfian_zeta_grows_incrementally(void **state)
{
    (void)state;
    ycsb_rng r = seeded(__func__);
    ycsb_zipf z;
    ycsb_zipf_init(&z, 0, 99, YCSB_ZIPFIAN_CONSTANT, 0);
    for (int i = 0; i < 1000; i++) {
        int64_t v = ycsb_zipf_next_n(&z, &r, 200);
        assert_true(v >= 0 && v < 200);
    }
    assert_int_equal(z.countforzeta, 200);
    assert_true(fabs(z.zetan - ycsb_zeta(0, 200, YCSB_ZIPFIAN_CONSTANT, 0)) < 1e-9);
}

static void scrambled_zipfian_spreads_hot_keys(void **state)
{
    (void)state;
    ycsb_rng r = seeded(__func__);
    const int n = 1000, draws = 200000;
    ycsb_scrambled s;
    ycsb_scrambled_init(&s, 0, n - 1);
    int *hits = calloc((size_t)n, sizeof(int));
    assert_non_null(hits);
    for (int i = 0; i < draws; i++) {
        int64_t v = ycsb_scrambled_next(&s, &r);
        assert_true(v >= 0 && v < n);
        hits[v]++;
    }
    /* The underlying item 0 (1/ZETAN = 3.8% of the draws) lands on one key, which is
     * not key 0: fnvhash64(0) % 1000 = 211. */
    int top = 0;
    for (int i = 0; i < n; i++)
        top = hits[i] > hits[top] ? i : top;
    assert_int_equal(top, (int)(ycsb_fnvhash64(0) % n));
    assert_true(hits[top] / (double)draws > 0.9 / YCSB_SCRAMBLED_ZETAN);
    /* the ten hottest keys are not bunched at the low end */
    int low = 0;
    for (int k = 0; k < 10; k++) {
        int best = 0;
        for (int i = 0; i < n; i++)
            best = hits[i] > hits[best] ? i : best;
        low += best < n / 10;
        hits[best] = -1;
    }
    assert_true(low < 5);
    free(hits);
}

static void hotspot_fractions(void **state)
{
    (void)state;
    ycsb_rng r = seeded(__func__);
    const int draws = 100000;
    ycsb_hotspot h;
    ycsb_hotspot_init(&h, 0, 999, 0.2, 0.8);
    assert_int_equal(h.hot, 200);
    assert_int_equal(h.cold, 800);
    int hot = 0;
    for (int i = 0; i < draws; i++) {
        int64_t v = ycsb_hotspot_next(&h, &r);
        assert_true(v >= 0 && v <= 999);
        hot += v < 200;
    }
    assert_true(fabs(hot / (double)draws - 0.8) < 0.01);
    /* no hot set: every draw is cold; all hot: every draw is hot */
    ycsb_hotspot_init(&h, 0, 999, 0, 0.8);
    for (int i = 0; i < 1000; i++)
        assert_true(ycsb_hotspot_next(&h, &r) <= 999);
    ycsb_hotspot_init(&h, 10, 19, 1, 0.3);
    for (int i = 0; i < 1000; i++) {
        int64_t v = ycsb_hotspot_next(&h, &r);
        assert_true(v >= 10 && v <= 19);
    }
}

static void latest_favours_recent_keys(void **state)
{
    (void)state;
    ycsb_rng r = seeded(__func__);
    ycsb_chooser c;
    ycsb_chooser_init(&c, YCSB_LATEST, 10000, 1000, 0.05, 0.2, 0.8);
    const int draws = 100000;
    int newest = 0, newer_half = 0;
    int64_t last = 9999;
    for (int i = 0; i < draws; i++) {
        int64_t v = ycsb_chooser_next(&c, &r, last);
        assert_true(v >= 0 && v <= last);
        newest += v >= last - 9;
        newer_half += v >= last / 2;
    }
    /* the 10 newest of 10000 keys: zeta(10) / zeta(9999) = 28.9% of the draws */
    assert_true(fabs(newest / (double)draws - 0.289) < 0.02);
    assert_true(newer_half > draws * 9 / 10); /* 92.6% expected */
    /* the counter moves on: the newest keys follow it (22.7%, not the 26.9% of a fresh
     * generator: YCSB's eta keeps the item count the generator was made with) */
    last = 20000;
    newest = 0;
    for (int i = 0; i < 10000; i++) {
        int64_t v = ycsb_chooser_next(&c, &r, last);
        assert_true(v >= 0 && v <= last);
        newest += v >= last - 9;
    }
    assert_true(newest > 2000);
}

static void uniform_stays_in_bounds_and_covers_them(void **state)
{
    (void)state;
    ycsb_rng r = seeded(__func__);
    ycsb_chooser c;
    ycsb_chooser_init(&c, YCSB_UNIFORM, 100, 1000, 0, 0.2, 0.8);
    int seen[100] = {0};
    for (int i = 0; i < 20000; i++) {
        int64_t v = ycsb_chooser_next(&c, &r, 99);
        assert_true(v >= 0 && v <= 99);
        seen[v]++;
    }
    for (int i = 0; i < 100; i++)
        assert_true(seen[i] > 100);
    for (int i = 0; i < 10000; i++)
        assert_true(ycsb_rng_below(&r, 7) < 7);
    for (int i = 0; i < 10000; i++) {
        double d = ycsb_rng_double(&r);
        assert_true(d >= 0 && d < 1);
    }
}

static void chooser_never_returns_an_unacknowledged_key(void **state)
{
    (void)state;
    ycsb_rng r = seeded(__func__);
    ycsb_chooser c;
    /* zipfian over 1000 records + 2 * 5% of 10000 expected inserts: keys up to 2000 */
    ycsb_chooser_init(&c, YCSB_ZIPFIAN, 1000, 10000, 0.05, 0.2, 0.8);
    for (int i = 0; i < 20000; i++)
        assert_true(ycsb_chooser_next(&c, &r, 999) <= 999);
    for (int i = 0; i < 20000; i++)
        assert_true(ycsb_chooser_next(&c, &r, 1500) <= 1500);
}

static void acknowledged_counter_limit_is_contiguous(void **state)
{
    (void)state;
    ycsb_ack_counter c;
    assert_int_equal(ycsb_ack_init(&c, 100), ST_OK);
    assert_int_equal(ycsb_ack_last(&c), 99);
    int64_t a = ycsb_ack_next(&c), b = ycsb_ack_next(&c), d = ycsb_ack_next(&c);
    assert_int_equal(a, 100);
    assert_int_equal(b, 101);
    assert_int_equal(d, 102);
    assert_int_equal(ycsb_ack_acknowledge(&c, b), ST_OK);
    assert_int_equal(ycsb_ack_last(&c), 99); /* 100 still outstanding */
    assert_int_equal(ycsb_ack_acknowledge(&c, d), ST_OK);
    assert_int_equal(ycsb_ack_last(&c), 99);
    assert_int_equal(ycsb_ack_acknowledge(&c, a), ST_OK);
    assert_int_equal(ycsb_ack_last(&c), 102);
    /* a number acknowledged twice while the window still holds it */
    int64_t e = ycsb_ack_next(&c);
    assert_int_equal(ycsb_ack_next(&c), 104);
    assert_int_equal(ycsb_ack_acknowledge(&c, 104), ST_OK);
    assert_int_equal(ycsb_ack_acknowledge(&c, 104), ST_INTERNAL);
    assert_int_equal(ycsb_ack_acknowledge(&c, e), ST_OK);
    assert_int_equal(ycsb_ack_last(&c), 104);
    ycsb_ack_free(&c);
}

static void operation_mix_follows_the_proportions(void **state)
{
    (void)state;
    ycsb_rng r = seeded(__func__);
    ycsb_workload w;
    assert_int_equal(ycsb_workload_lookup("b", &w), ST_OK);
    ycsb_opchooser c;
    ycsb_opchooser_init(&c, &w);
    int n[YCSB_OPS] = {0};
    for (int i = 0; i < 100000; i++)
        n[ycsb_opchooser_next(&c, &r)]++;
    assert_true(fabs(n[YCSB_READ] / 100000.0 - 0.95) < 0.005);
    assert_true(fabs(n[YCSB_UPDATE] / 100000.0 - 0.05) < 0.005);
    assert_int_equal(n[YCSB_INSERT] + n[YCSB_SCAN] + n[YCSB_RMW], 0);
}

static void workload_table_is_ycsbs(void **state)
{
    (void)state;
    ycsb_workload w;
    assert_int_equal(ycsb_workload_lookup("a", &w), ST_OK);
    assert_true(w.prop[YCSB_READ] == 0.5 && w.prop[YCSB_UPDATE] == 0.5);
    assert_int_equal(w.dist, YCSB_ZIPFIAN);
    assert_int_equal(ycsb_workload_lookup("C", &w), ST_OK);
    assert_true(w.prop[YCSB_READ] == 1 && w.prop[YCSB_UPDATE] == 0);
    assert_int_equal(ycsb_workload_lookup("workloadd", &w), ST_OK);
    assert_true(w.prop[YCSB_READ] == 0.95 && w.prop[YCSB_INSERT] == 0.05);
    assert_int_equal(w.dist, YCSB_LATEST);
    assert_int_equal(ycsb_workload_lookup("e", &w), ST_OK);
    assert_true(w.prop[YCSB_SCAN] == 0.95 && w.prop[YCSB_INSERT] == 0.05);
    assert_int_equal(w.min_scan, 1);
    assert_int_equal(w.max_scan, 100);
    assert_int_equal(w.dist, YCSB_ZIPFIAN);
    assert_int_equal(ycsb_workload_lookup("f", &w), ST_OK);
    assert_true(w.prop[YCSB_READ] == 0.5 && w.prop[YCSB_RMW] == 0.5);
    const char *bad[] = {"g", "", "aa", "workload", "workloadz", NULL};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(ycsb_workload_lookup(bad[i], &w), ST_INVALID_ARGUMENT);
    ycsb_dist d;
    assert_int_equal(ycsb_dist_parse("hotspot", &d), ST_OK);
    assert_int_equal(d, YCSB_HOTSPOT);
    assert_int_equal(ycsb_dist_parse("exponential", &d), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "exponential"));
}

/* Parses a command line given as one string of words. */
static int parse(const char *line, ycsb_opts *o)
{
    char buf[1024], *argv[64];
    int argc = 0;
    snprintf(buf, sizeof(buf), "ycsb %s", line);
    for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " "))
        argv[argc++] = t;
    argv[argc] = NULL;
    return ycsb_parse_args(argc, argv, o);
}

static void command_line_defaults_and_overrides(void **state)
{
    (void)state;
    ycsb_opts o;
    assert_int_equal(parse("--dir /tmp/c", &o), ST_OK);
    assert_string_equal(o.table, "usertable");
    assert_string_equal(o.wl.name, "a");
    assert_int_equal(o.regions, 12);
    assert_int_equal(o.field_count, 10);
    assert_int_equal(o.field_length, 100);
    assert_int_equal(o.phase, YCSB_PHASE_BOTH);
    assert_true(o.hot_data == 0.2 && o.hot_ops == 0.8);
    assert_int_equal(parse("--requestdistribution hotspot --hot-fraction 0.1 --workload c "
                           "--zk.quorum 127.0.0.1:2181 --zk.parent /x --hot-ops-fraction 0.9 "
                           "--phase run --recordcount 5 --operationcount 0 --threads 8 "
                           "--interval 0.5 --servers --csv a.csv --plot a.svg --json "
                           "--readproportion 0.5 --scanproportion 0.5 --maxscanlength 7",
                           &o),
                     ST_OK);
    assert_string_equal(o.wl.name, "c");
    assert_int_equal(o.wl.dist, YCSB_HOTSPOT);
    assert_true(o.hot_data == 0.1 && o.hot_ops == 0.9);
    assert_int_equal(o.phase, YCSB_PHASE_RUN);
    assert_true(o.recordcount == 5 && o.operationcount == 0 && o.threads == 8);
    assert_true(o.servers && o.json && o.interval_s == 0.5);
    assert_true(o.wl.prop[YCSB_READ] == 0.5 && o.wl.prop[YCSB_SCAN] == 0.5);
    assert_int_equal(o.wl.max_scan, 7);
    assert_false(o.ordered);
    assert_int_equal(parse("--dir d --insertorder ordered --zeropadding 10", &o), ST_OK);
    assert_true(o.ordered);
    assert_int_equal(o.zeropadding, 10);
    char key[YCSB_KEY_MAX];
    ycsb_key_of(&o, 7, key);
    assert_string_equal(key, "user0000000007");
}

/* Regions hold equal shares of the records, for hashed and for ordered keys (an ordered
 * key cut to a prefix would sort before the range it stands for: regression). */
static void split_keys_share_the_records(void **state)
{
    (void)state;
    for (int ordered = 0; ordered < 2; ordered++) {
        ycsb_opts o;
        assert_int_equal(parse(ordered ? "--dir d --recordcount 30000 --insertorder ordered "
                                         "--zeropadding 9"
                                       : "--dir d --recordcount 30000",
                               &o),
                         ST_OK);
        char *keys[YCSB_MAX_REGIONS];
        size_t n = 0;
        assert_int_equal(ycsb_split_keys(&o, keys, &n), ST_OK);
        assert_int_equal(n, 11);
        size_t count[12] = {0};
        for (int64_t k = 0; k < 30000; k++) {
            char key[YCSB_KEY_MAX];
            ycsb_key_of(&o, k, key);
            size_t r = 0;
            while (r < n && strcmp(key, keys[r]) >= 0)
                r++;
            count[r]++;
        }
        for (size_t r = 0; r < 12; r++) {
            if (r + 1 < n)
                assert_true(strcmp(keys[r], keys[r + 1]) < 0);
            /* 2500 each: exactly for ordered keys, within sampling noise for hashed. */
            if (count[r] < (ordered ? 2490u : 2200u) || count[r] > (ordered ? 2510u : 2800u))
                fail_msg("%s keys: region %zu holds %zu of 30000 records",
                         ordered ? "ordered" : "hashed", r, count[r]);
        }
        if (ordered)
            assert_true(strcmp(keys[2], "user000007400") > 0 &&
                        strcmp(keys[2], "user000007600") < 0);
        for (size_t r = 0; r < n; r++)
            free(keys[r]);
    }
}

static void bad_command_lines_are_refused_with_a_reason(void **state)
{
    (void)state;
    static const struct {
        const char *line, *names;
    } bad[] = {
        {"--dir d --workload g", "'g'"},
        {"--dir d --requestdistribution zipf", "'zipf'"},
        {"--dir d --hot-fraction 1.5", "--hot-fraction"},
        {"--dir d --hot-ops-fraction -0.1", "--hot-ops-fraction"},
        {"--dir d --readproportion 2", "--readproportion"},
        {"--dir d --recordcount -5", "--recordcount"},
        {"--dir d --operationcount -1", "--operationcount"},
        {"--dir d --threads 0", "--threads"},
        {"--dir d --threads many", "--threads"},
        {"--dir d --target -3", "--target"},
        {"--dir d --interval -1", "--interval"},
        {"--dir d --phase warmup", "--phase"},
        {"--dir d --insertorder random", "--insertorder"},
        {"--dir d --zeropadding 0", "--zeropadding"},
        {"--dir d --csv x.csv", "--interval"},
        {"--dir d --workload c --readproportion 0", "add up to 0"},
        {"--dir d --minscanlength 10 --maxscanlength 5", "--maxscanlength"},
        {"--workload a", "--dir"},
        {"--dir d --zk.quorum q", "--dir"},
        {"--dir d --bogus", "--bogus"},
        {"--dir d extra", "'extra'"},
        {"--dir d --recordcount", "--recordcount"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ycsb_opts o;
        if (parse(bad[i].line, &o) != ST_INVALID_ARGUMENT)
            fail_msg("accepted: %s", bad[i].line);
        if (!strstr(st_errmsg(), bad[i].names))
            fail_msg("'%s': message '%s' does not name %s", bad[i].line, st_errmsg(), bad[i].names);
    }
}

static void histogram_percentiles_are_within_a_bucket(void **state)
{
    (void)state;
    for (uint64_t v = 0; v < 5000000; v = v * 2 + 1 + v / 7) {
        size_t i = ycsb_hist_index(v);
        assert_true(i < YCSB_HIST_BUCKETS);
        assert_true(ycsb_hist_upper(i) >= v);
        assert_true(ycsb_hist_upper(i) <= v + v / 128 + 1);
        if (i > 0)
            assert_true(ycsb_hist_upper(i - 1) < v);
    }
    assert_int_equal(ycsb_hist_index(UINT64_MAX), YCSB_HIST_BUCKETS - 1);
    ycsb_hist *h = calloc(1, sizeof(*h));
    assert_non_null(h);
    for (uint64_t v = 1; v <= 1000; v++)
        ycsb_hist_add(h, v);
    uint64_t *c = calloc(YCSB_HIST_BUCKETS, sizeof(uint64_t));
    assert_non_null(c);
    ycsb_hist_collect(h, c);
    uint64_t p50 = ycsb_hist_percentile(c, 50), p99 = ycsb_hist_percentile(c, 99);
    assert_true(p50 >= 500 && p50 <= 504);
    assert_true(p99 >= 990 && p99 <= 998);
    assert_int_equal(ycsb_hist_percentile(c, 100), ycsb_hist_upper(ycsb_hist_index(1000)));
    memset(c, 0, YCSB_HIST_BUCKETS * sizeof(uint64_t));
    assert_int_equal(ycsb_hist_percentile(c, 99), 0);
    free(c);
    free(h);
}

static void merged_stats_count_every_return_code(void **state)
{
    (void)state;
    ycsb_opstat *t[2];
    for (int i = 0; i < 2; i++) {
        t[i] = calloc(YCSB_OPS, sizeof(ycsb_opstat));
        assert_non_null(t[i]);
    }
    ycsb_opstat_add(&t[0][YCSB_READ], 100, YCSB_OK);
    ycsb_opstat_add(&t[1][YCSB_READ], 300, YCSB_NOT_FOUND);
    ycsb_opstat_add(&t[1][YCSB_UPDATE], 50, YCSB_ERROR);
    ycsb_phase_result r;
    memset(&r, 0, sizeof(r));
    assert_int_equal(ycsb_merge(t, 2, &r), ST_OK);
    assert_int_equal(r.count[YCSB_READ], 2);
    assert_int_equal(r.min_us[YCSB_READ], 100);
    assert_int_equal(r.max_us[YCSB_READ], 300);
    assert_int_equal(r.p99_us[YCSB_READ], 300);
    assert_int_equal(r.ret[YCSB_READ][YCSB_NOT_FOUND], 1);
    assert_int_equal(ycsb_errors(&r), 2);
    r.ops = 3;
    r.runtime_ms = 1000;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    ycsb_print_text(f, &r);
    fclose(f);
    assert_non_null(strstr(text, "[OVERALL], RunTime(ms), 1000\n"));
    assert_non_null(strstr(text, "[OVERALL], Throughput(ops/sec), 3.0\n"));
    assert_non_null(strstr(text, "[READ], Operations, 2\n"));
    assert_non_null(strstr(text, "[READ], AverageLatency(us), 200.00\n"));
    assert_non_null(strstr(text, "[READ], Return=NOT_FOUND, 1\n"));
    assert_non_null(strstr(text, "[UPDATE], Return=ERROR, 1\n"));
    assert_null(strstr(text, "[SCAN]"));
    free(text);
    free(t[0]);
    free(t[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fnvhash64_matches_ycsb),
        cmocka_unit_test(zipfian_most_popular_item_gets_its_share),
        cmocka_unit_test(zipfian_zeta_grows_incrementally),
        cmocka_unit_test(scrambled_zipfian_spreads_hot_keys),
        cmocka_unit_test(hotspot_fractions),
        cmocka_unit_test(latest_favours_recent_keys),
        cmocka_unit_test(uniform_stays_in_bounds_and_covers_them),
        cmocka_unit_test(chooser_never_returns_an_unacknowledged_key),
        cmocka_unit_test(acknowledged_counter_limit_is_contiguous),
        cmocka_unit_test(operation_mix_follows_the_proportions),
        cmocka_unit_test(workload_table_is_ycsbs),
        cmocka_unit_test(command_line_defaults_and_overrides),
        cmocka_unit_test(split_keys_share_the_records),
        cmocka_unit_test(bad_command_lines_are_refused_with_a_reason),
        cmocka_unit_test(histogram_percentiles_are_within_a_bucket),
        cmocka_unit_test(merged_stats_count_every_return_code),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
