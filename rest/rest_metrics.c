/*
 * rest_metrics.c - the REST gateway's /metrics (Prometheus text, HBase REST's metric
 * names in snake_case: requests, successful and failed gets, puts, deletes, scans,
 * appends and increments) and /healthz (200 while serving, 503 once draining). Both are
 * answered on the event loop, never behind the workers.
 * Thread-safety: reads atomics and the scanner registry's count; safe from any thread.
 */
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/http/prom.h"
#include "common/status.h"
#include "rest/rest_http.h"
#include "rest/rest_internal.h"
#include "rest/rest_scanners.h"
#include "rest/rest_work.h"

static long resident_bytes(void)
{
    long pages = 0, rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
        rss = 0;
    fclose(f);
    return rss * sysconf(_SC_PAGESIZE);
}

static void counter(buf_t *b, const char *name, const char *help, uint64_t v)
{
    prom_family(b, name, "counter", help);
    prom_sample_u64(b, name, NULL, 0, v);
}

static void gauge(buf_t *b, const char *name, const char *help, double v)
{
    prom_family(b, name, "gauge", help);
    prom_sample_double(b, name, NULL, 0, v);
}

void rest_metrics_page(rest_server *s, rest_resp *resp)
{
    rest_metrics *m = &s->metrics;
    buf_t *b = rest_resp_body(resp);
    rest_resp_set(resp, 200, PROM_CONTENT_TYPE);
    counter(b, "rest_requests_total", "requests received", atomic_load(&m->requests));
    static const struct {
        const char *op;
        size_t ok, failed;
    } ops[] = {
        {"get", offsetof(rest_metrics, get_ok), offsetof(rest_metrics, get_failed)},
        {"put", offsetof(rest_metrics, put_ok), offsetof(rest_metrics, put_failed)},
        {"delete", offsetof(rest_metrics, delete_ok), offsetof(rest_metrics, delete_failed)},
        {"scan", offsetof(rest_metrics, scan_ok), offsetof(rest_metrics, scan_failed)},
        {"append", offsetof(rest_metrics, append_ok), offsetof(rest_metrics, append_failed)},
        {"increment", offsetof(rest_metrics, increment_ok), offsetof(rest_metrics, increment_failed)},
    };
    prom_family(b, "rest_operations_total", "counter",
                "operations by kind and outcome (HBase REST's "
                                            "successful/failed Get, Put, Delete, Scan, Append, "
                                            "Increment requests)");
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        const atomic_uint_fast64_t *ok = (const void *)((const char *)m + ops[i].ok);
        const atomic_uint_fast64_t *failed = (const void *)((const char *)m + ops[i].failed);
        prom_label l1[] = {{"op", ops[i].op}, {"outcome", "success"}};
        prom_label l2[] = {{"op", ops[i].op}, {"outcome", "failure"}};
        prom_sample_u64(b, "rest_operations_total", l1, 2, atomic_load(ok));
        prom_sample_u64(b, "rest_operations_total", l2, 2, atomic_load(failed));
    }
    prom_family(b, "rest_responses_total", "counter", "answers by status class");
    static const char *const classes[] = {"", "1xx", "2xx", "3xx", "4xx", "5xx"};
    for (int c = 1; c <= 5; c++) {
        prom_label l[] = {{"code", classes[c]}};
        prom_sample_u64(b, "rest_responses_total", l, 1, atomic_load(&m->status[c]));
    }
    counter(b, "rest_rejected_busy_total", "requests answered 503 because every worker was busy "
                                           "and the queue full",
            atomic_load(&m->rejected_busy));
    counter(b, "rest_scanners_expired_total", "scanners expired (idle, or evicted past "
                                              "rest.scanner.max)",
            atomic_load(&m->scanners_expired));
    counter(b, "rest_received_bytes_total", "request body bytes received", atomic_load(&m->bytes_in));
    counter(b, "rest_sent_bytes_total", "answer body bytes sent", atomic_load(&m->bytes_out));
    gauge(b, "rest_scanners_open", "open scanners", (double)rest_scanners_count(s->scanners));
    gauge(b, "rest_requests_in_flight", "requests taken and not yet answered",
          (double)rest_http_in_flight(s->http));
    gauge(b, "rest_queue_length", "requests waiting for a worker", (double)rest_work_queued(s->work));
    gauge(b, "rest_workers", "worker threads", s->set.workers);
    gauge(b, "rest_resident_memory_bytes", "the gateway's resident memory", (double)resident_bytes());
    gauge(b, "rest_uptime_seconds", "seconds since the gateway started",
          (double)(clock_now_ms() - s->started_ms) / 1000.0);
    gauge(b, "rest_draining", "1 while the gateway drains for shutdown", atomic_load(&s->draining));
}

void rest_health_page(rest_server *s, rest_resp *resp)
{
    if (atomic_load(&s->draining)) {
        rest_resp_set(resp, 503, "text/plain");
        rest_resp_printf(resp, "draining: the gateway is shutting down\n");
        return;
    }
    rest_resp_set(resp, 200, "text/plain");
    rest_resp_printf(resp, "ok\n");
}
