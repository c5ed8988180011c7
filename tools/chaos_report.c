/*
 * chaos_report.c - stalls and recovery times of a chaos run under a load
 * (tools/chaos_report.h).
 */
#include <stdlib.h>
#include <string.h>

#include "tools/chaos_internal.h"
#include "tools/chaos_report.h"

typedef struct dist {
    double *v;
    size_t n;
} dist;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double at(const dist *d, double p)
{
    return chaos_rank(d->v, d->n, p);
}

static double secs(uint64_t from, uint64_t to)
{
    return from && to >= from ? (double)(to - from) / 1e9 : -1;
}

static bool ran(const chaos_event *e)
{
    return e->t_start && !e->skipped;
}

/* The stalls (s) of every thread after e's fault. */
static double stall_of(const chaos_load *load, size_t t, const chaos_event *e)
{
    return (double)vstats_stall_after(load->threads[t], e->t_start) / 1e9;
}

/* Recovery times and stalls of the events of kind k into rec and st (sorted). */
static void collect(const chaos_event *ev, size_t n, const chaos_load *load, int k, dist *rec,
                    dist *st)
{
    rec->n = st->n = 0;
    for (size_t i = 0; i < n; i++) {
        if ((int)ev[i].kind != k || !ran(&ev[i]))
            continue;
        if (ev[i].t_recovered)
            rec->v[rec->n++] = secs(ev[i].t_start, ev[i].t_recovered);
        for (size_t t = 0; load && t < load->n; t++)
            st->v[st->n++] = stall_of(load, t, &ev[i]);
    }
    qsort(rec->v, rec->n, sizeof(double), cmp_double);
    qsort(st->v, st->n, sizeof(double), cmp_double);
}

static bool alloc_dists(size_t n, const chaos_load *load, dist *rec, dist *st)
{
    size_t nt = load ? load->n : 0;
    rec->v = calloc(n ? n : 1, sizeof(double));
    size_t cells = n * nt;
    st->v = calloc(cells ? cells : 1, sizeof(double));
    if (!rec->v || !st->v) {
        free(rec->v);
        free(st->v);
        return false;
    }
    return true;
}

void chaos_report_text(FILE *f, const chaos_event *ev, size_t n, const chaos_load *load)
{
    size_t nt = load ? load->n : 0;
    fprintf(f, "chaos: %zu action(s) under the load\n", n);
    for (size_t i = 0; i < n; i++) {
        const chaos_event *e = &ev[i];
        if (!ran(e)) {
            fprintf(f, "  #%d %-20s skipped\n", e->seq, chaos_kind_name(e->kind));
            continue;
        }
        fprintf(f, "  #%d %-20s %-24.24s recovered %6.2f s%s  stalls:", e->seq,
                chaos_kind_name(e->kind), e->target, secs(e->t_start, e->t_recovered),
                e->failed ? " FAILED" : "");
        for (size_t t = 0; t < nt; t++)
            fprintf(f, " %.2f", stall_of(load, t, e));
        fprintf(f, " s\n");
    }
    dist rec, st;
    if (!alloc_dists(n, load, &rec, &st))
        return;
    fprintf(f, "%-22s %5s %9s %9s %9s %9s %9s %9s\n", "action", "n", "rec-med", "rec-p90",
            "rec-max", "stall-med", "stall-p90", "stall-max");
    for (int k = 0; k < CHAOS_KINDS; k++) {
        size_t cnt = 0;
        for (size_t i = 0; i < n; i++)
            cnt += (int)ev[i].kind == k && ran(&ev[i]);
        if (!cnt)
            continue;
        collect(ev, n, load, k, &rec, &st);
        fprintf(f, "%-22s %5zu %9.2f %9.2f %9.2f %9.2f %9.2f %9.2f\n",
                chaos_kind_name((chaos_kind)k), cnt, at(&rec, 0.5), at(&rec, 0.9),
                rec.n ? rec.v[rec.n - 1] : 0, at(&st, 0.5), at(&st, 0.9),
                st.n ? st.v[st.n - 1] : 0);
    }
    free(rec.v);
    free(st.v);
}

static void dist_json(json_writer *w, const char *key, const dist *d)
{
    json_key(w, key);
    json_object_begin(w);
    json_key(w, "n");
    json_u64(w, d->n);
    json_key(w, "median");
    json_double(w, at(d, 0.5));
    json_key(w, "p90");
    json_double(w, at(d, 0.9));
    json_key(w, "max");
    json_double(w, d->n ? d->v[d->n - 1] : 0);
    json_object_end(w);
}

void chaos_report_json(json_writer *w, const chaos_event *ev, size_t n, const chaos_load *load)
{
    size_t nt = load ? load->n : 0, done = 0, skipped = 0, failed = 0;
    for (size_t i = 0; i < n; i++) {
        failed += ev[i].failed;
        skipped += ev[i].skipped && !ev[i].failed;
        done += !ev[i].skipped && !ev[i].failed;
    }
    json_object_begin(w);
    json_key(w, "actions");
    json_u64(w, n);
    json_key(w, "done");
    json_u64(w, done);
    json_key(w, "skipped");
    json_u64(w, skipped);
    json_key(w, "failed");
    json_u64(w, failed);
    dist rec, st;
    json_key(w, "kinds");
    json_object_begin(w);
    if (alloc_dists(n, load, &rec, &st)) {
        for (int k = 0; k < CHAOS_KINDS; k++) {
            size_t cnt = 0;
            for (size_t i = 0; i < n; i++)
                cnt += (int)ev[i].kind == k && ran(&ev[i]);
            if (!cnt)
                continue;
            collect(ev, n, load, k, &rec, &st);
            json_key(w, chaos_kind_name((chaos_kind)k));
            json_object_begin(w);
            json_key(w, "n");
            json_u64(w, cnt);
            dist_json(w, "recovery_s", &rec);
            dist_json(w, "stall_s", &st);
            json_object_end(w);
        }
        free(rec.v);
        free(st.v);
    }
    json_object_end(w);
    json_key(w, "events");
    json_array_begin(w);
    for (size_t i = 0; i < n; i++) {
        const chaos_event *e = &ev[i];
        json_object_begin(w);
        json_key(w, "seq");
        json_i64(w, e->seq);
        json_key(w, "action");
        json_string(w, chaos_kind_name(e->kind));
        json_key(w, "target");
        json_string(w, e->target);
        json_key(w, "server");
        json_string(w, e->server);
        json_key(w, "wall_ms");
        json_i64(w, e->wall_ms);
        json_key(w, "recovered_s");
        json_double(w, secs(e->t_start, e->t_recovered));
        json_key(w, "settled_s");
        json_double(w, secs(e->t_start, e->t_end));
        json_key(w, "skipped");
        json_bool(w, e->skipped);
        json_key(w, "failed");
        json_bool(w, e->failed);
        json_key(w, "detail");
        json_string(w, e->detail);
        json_key(w, "stalls_s");
        json_array_begin(w);
        for (size_t t = 0; ran(e) && t < nt; t++)
            json_double(w, stall_of(load, t, e));
        json_array_end(w);
        json_object_end(w);
    }
    json_array_end(w);
    json_object_end(w);
}
