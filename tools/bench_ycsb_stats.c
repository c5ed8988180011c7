/*
 * bench_ycsb_stats.c - latency measurements of `strata bench ycsb` (bench_ycsb.h):
 * log-linear histograms in microseconds, their percentiles as HdrHistogram computes
 * them, per-thread operation stats merged into a phase's figures, and the report: the
 * JSON document (--json) or YCSB's text report:
 *
 *   [OVERALL], RunTime(ms), 10234
 *   [OVERALL], Throughput(ops/sec), 9771.2
 *   [READ], Operations, 500
 *   [READ], AverageLatency(us), 1106.06
 *   [READ], MinLatency(us), 439
 *   [READ], MaxLatency(us), 16031
 *   [READ], 95thPercentileLatency(us), 1822
 *   [READ], 99thPercentileLatency(us), 4343
 *   [READ], Return=OK, 500
 *   [READ], Return=ERROR, 0
 *   [READ], Return=NOT_FOUND, 0
 *
 * Histogram buckets: 0..255 us one each; then for each power of two 2^k (k = 8..35) 128
 * buckets of 2^(k-7) us. A percentile is the highest value of its bucket (never above
 * the largest value measured), so it is within 0.8% above the exact one.
 *
 * Thread-safety: ycsb_hist_add from the histogram's one writer; ycsb_hist_collect from
 * any thread at the same time; the rest on one thread after the writers finished.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/http/json.h"
#include "common/status.h"
#include "tools/bench_ycsb.h"

#define LINEAR 256
#define SUB 128
#define SUB_BITS 7
#define MAX_EXP 35

size_t ycsb_hist_index(uint64_t us)
{
    if (us < LINEAR)
        return (size_t)us;
    int k = 63 - __builtin_clzll(us);
    if (k > MAX_EXP)
        return YCSB_HIST_BUCKETS - 1;
    uint64_t sub = (us >> (k - SUB_BITS)) - SUB;
    return LINEAR + (size_t)(k - 8) * SUB + (size_t)sub;
}

uint64_t ycsb_hist_upper(size_t i)
{
    if (i < LINEAR)
        return i;
    int k = 8 + (int)((i - LINEAR) / SUB);
    uint64_t sub = (i - LINEAR) % SUB + SUB;
    uint64_t width = 1ull << (k - SUB_BITS);
    return (sub << (k - SUB_BITS)) + width - 1;
}

void ycsb_hist_add(ycsb_hist *h, uint64_t us)
{
    atomic_fetch_add_explicit(&h->b[ycsb_hist_index(us)], 1, memory_order_relaxed);
}

void ycsb_hist_collect(const ycsb_hist *h, uint64_t *sum)
{
    for (size_t i = 0; i < YCSB_HIST_BUCKETS; i++)
        sum[i] += atomic_load_explicit(&h->b[i], memory_order_relaxed);
}

uint64_t ycsb_hist_percentile(const uint64_t *counts, double p)
{
    uint64_t total = 0;
    for (size_t i = 0; i < YCSB_HIST_BUCKETS; i++)
        total += counts[i];
    if (total == 0)
        return 0;
    double want_d = p / 100.0 * (double)total;
    uint64_t want = (uint64_t)want_d;
    if ((double)want < want_d)
        want++;
    if (want == 0)
        want = 1;
    uint64_t run = 0;
    for (size_t i = 0; i < YCSB_HIST_BUCKETS; i++) {
        run += counts[i];
        if (run >= want)
            return ycsb_hist_upper(i);
    }
    return ycsb_hist_upper(YCSB_HIST_BUCKETS - 1);
}

void ycsb_opstat_add(ycsb_opstat *s, uint64_t us, ycsb_ret ret)
{
    ycsb_hist_add(&s->h, us);
    if (s->count == 0 || us < s->min_us)
        s->min_us = us;
    if (us > s->max_us)
        s->max_us = us;
    s->count++;
    s->sum_us += us;
    s->ret[ret]++;
}

int ycsb_merge(ycsb_opstat *const *stats, size_t n, ycsb_phase_result *r)
{
    uint64_t *counts = malloc(YCSB_HIST_BUCKETS * sizeof(uint64_t));
    if (!counts)
        return st_error(ST_NOMEM, "ycsb: out of memory merging histograms");
    for (int op = 0; op < YCSB_OPS; op++) {
        memset(counts, 0, YCSB_HIST_BUCKETS * sizeof(uint64_t));
        r->count[op] = r->sum_us[op] = r->min_us[op] = r->max_us[op] = 0;
        memset(r->ret[op], 0, sizeof(r->ret[op]));
        for (size_t t = 0; t < n; t++) {
            const ycsb_opstat *s = &stats[t][op];
            if (s->count == 0)
                continue;
            ycsb_hist_collect(&s->h, counts);
            if (r->count[op] == 0 || s->min_us < r->min_us[op])
                r->min_us[op] = s->min_us;
            if (s->max_us > r->max_us[op])
                r->max_us[op] = s->max_us;
            r->count[op] += s->count;
            r->sum_us[op] += s->sum_us;
            for (int k = 0; k < YCSB_RETS; k++)
                r->ret[op][k] += s->ret[k];
        }
        uint64_t p95 = ycsb_hist_percentile(counts, 95), p99 = ycsb_hist_percentile(counts, 99);
        r->p95_us[op] = p95 < r->max_us[op] ? p95 : r->max_us[op];
        r->p99_us[op] = p99 < r->max_us[op] ? p99 : r->max_us[op];
    }
    free(counts);
    return ST_OK;
}

uint64_t ycsb_errors(const ycsb_phase_result *r)
{
    uint64_t n = 0;
    for (int op = 0; op < YCSB_OPS; op++)
        for (int k = 0; k < YCSB_RETS; k++)
            n += k == YCSB_OK ? 0 : r->ret[op][k];
    return n;
}

static const char *const ret_names[YCSB_RETS] = {"OK", "ERROR", "NOT_FOUND"};

void ycsb_print_text(FILE *out, const ycsb_phase_result *r)
{
    double tput = r->runtime_ms > 0 ? (double)r->ops * 1000.0 / r->runtime_ms : 0;
    fprintf(out, "[OVERALL], RunTime(ms), %.0f\n", r->runtime_ms);
    fprintf(out, "[OVERALL], Throughput(ops/sec), %.1f\n", tput);
    for (int op = 0; op < YCSB_OPS; op++) {
        if (r->count[op] == 0)
            continue;
        const char *n = ycsb_op_name((ycsb_op)op);
        fprintf(out, "[%s], Operations, %" PRIu64 "\n", n, r->count[op]);
        fprintf(out, "[%s], AverageLatency(us), %.2f\n", n,
                (double)r->sum_us[op] / (double)r->count[op]);
        fprintf(out, "[%s], MinLatency(us), %" PRIu64 "\n", n, r->min_us[op]);
        fprintf(out, "[%s], MaxLatency(us), %" PRIu64 "\n", n, r->max_us[op]);
        fprintf(out, "[%s], 95thPercentileLatency(us), %" PRIu64 "\n", n, r->p95_us[op]);
        fprintf(out, "[%s], 99thPercentileLatency(us), %" PRIu64 "\n", n, r->p99_us[op]);
        for (int k = 0; k < YCSB_RETS; k++)
            fprintf(out, "[%s], Return=%s, %" PRIu64 "\n", n, ret_names[k], r->ret[op][k]);
    }
}

/* ---- the whole report ---- */

void ycsb_print_report(FILE *out, const ycsb_opts *o, const ycsb_phase_result *res, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const ycsb_phase_result *r = &res[i];
        fprintf(out,
                "# %s phase: workload %s (%s), %" PRId64 " records, %" PRId64
                " operations, %d threads, table %s\n",
                r->phase, o->wl.name, ycsb_dist_name(o->wl.dist), o->recordcount,
                strcmp(r->phase, "load") == 0 ? o->recordcount : o->operationcount, o->threads,
                o->table);
        if (r->timed_out)
            fprintf(out, "# stopped by --max-seconds %g after %" PRIu64 " operations\n",
                    o->max_seconds, r->ops);
        ycsb_print_text(out, r);
    }
}

static void json_phase(json_writer *w, const ycsb_phase_result *r)
{
    json_object_begin(w);
    json_key(w, "phase");
    json_string(w, r->phase);
    json_key(w, "runtime_ms");
    json_double(w, r->runtime_ms);
    json_key(w, "operations");
    json_u64(w, r->ops);
    json_key(w, "throughput_ops_sec");
    json_double(w, r->runtime_ms > 0 ? (double)r->ops * 1000.0 / r->runtime_ms : 0);
    json_key(w, "errors");
    json_u64(w, ycsb_errors(r));
    json_key(w, "timed_out");
    json_bool(w, r->timed_out);
    json_key(w, "ops");
    json_object_begin(w);
    for (int op = 0; op < YCSB_OPS; op++) {
        if (r->count[op] == 0)
            continue;
        json_key(w, ycsb_op_name((ycsb_op)op));
        json_object_begin(w);
        json_key(w, "operations");
        json_u64(w, r->count[op]);
        json_key(w, "average_us");
        json_double(w, (double)r->sum_us[op] / (double)r->count[op]);
        json_key(w, "min_us");
        json_u64(w, r->min_us[op]);
        json_key(w, "max_us");
        json_u64(w, r->max_us[op]);
        json_key(w, "p95_us");
        json_u64(w, r->p95_us[op]);
        json_key(w, "p99_us");
        json_u64(w, r->p99_us[op]);
        json_key(w, "return");
        json_object_begin(w);
        for (int k = 0; k < YCSB_RETS; k++) {
            json_key(w, ret_names[k]);
            json_u64(w, r->ret[op][k]);
        }
        json_object_end(w);
        json_object_end(w);
    }
    json_object_end(w);
    json_object_end(w);
}

static void json_series(json_writer *w, const ycsb_series *s)
{
    json_key(w, "servers");
    json_array_begin(w);
    for (size_t i = 0; i < s->nservers; i++)
        json_string(w, s->servers[i]);
    json_array_end(w);
    json_key(w, "series");
    json_array_begin(w);
    for (size_t i = 0; i < s->n; i++) {
        const ycsb_sample *x = &s->s[i];
        json_object_begin(w);
        json_key(w, "time_s");
        json_double(w, x->time_s);
        json_key(w, "phase");
        json_string(w, x->phase == YCSB_PHASE_LOAD ? "load" : "run");
        json_key(w, "ops_per_s");
        json_double(w, x->ops_per_s);
        json_key(w, "p99_us");
        json_u64(w, x->p99_us);
        json_key(w, "servers");
        json_object_begin(w);
        for (size_t c = 0; x->servers_ok && c < s->nservers; c++) {
            if (x->rps[c] < 0)
                continue;
            json_key(w, s->servers[c]);
            json_object_begin(w);
            json_key(w, "rps");
            json_double(w, x->rps[c]);
            json_key(w, "regions");
            json_i64(w, x->regions[c]);
            json_object_end(w);
        }
        json_object_end(w);
        json_object_end(w);
    }
    json_array_end(w);
}

int ycsb_print_json(FILE *out, const ycsb_opts *o, const ycsb_phase_result *res, size_t n,
                    const ycsb_series *series)
{
    uint64_t errors = 0;
    for (size_t i = 0; i < n; i++)
        errors += ycsb_errors(&res[i]);
    buf_t doc = {0};
    json_writer w;
    json_init(&w, &doc);
    json_object_begin(&w);
    json_key(&w, "benchmark");
    json_string(&w, "ycsb");
    json_key(&w, "workload");
    json_string(&w, o->wl.name);
    json_key(&w, "requestdistribution");
    json_string(&w, ycsb_dist_name(o->wl.dist));
    json_key(&w, "table");
    json_string(&w, o->table);
    json_key(&w, "recordcount");
    json_i64(&w, o->recordcount);
    json_key(&w, "operationcount");
    json_i64(&w, o->operationcount);
    json_key(&w, "threads");
    json_i64(&w, o->threads);
    json_key(&w, "target");
    json_double(&w, o->target);
    json_key(&w, "field_count");
    json_i64(&w, o->field_count);
    json_key(&w, "field_length");
    json_i64(&w, o->field_length);
    json_key(&w, "errors");
    json_u64(&w, errors);
    json_key(&w, "phases");
    json_array_begin(&w);
    for (size_t i = 0; i < n; i++)
        json_phase(&w, &res[i]);
    json_array_end(&w);
    json_key(&w, "interval_s");
    json_double(&w, o->interval_s);
    json_key(&w, "run_start_s");
    json_double(&w, series->run_start_s);
    json_series(&w, series);
    json_object_end(&w);
    int rc = json_finish(&w);
    if (rc == ST_OK) {
        fwrite(doc.data, 1, doc.len, out);
        fputc('\n', out);
    } else {
        rc = st_error(rc, "writing the JSON document failed");
    }
    buf_free(&doc);
    return rc;
}
