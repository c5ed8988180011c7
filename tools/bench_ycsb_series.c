/*
 * bench_ycsb_series.c - the time series of `strata bench ycsb --interval S`
 * (bench_ycsb.h): samples kept in memory while the phases run, written at the end as a
 * CSV and drawn as an SVG chart.
 *
 * CSV (wide, one row per sample, written once every server is known):
 *
 *   time_s,ops_per_s,p99_us,127.0.0.1:41006_rps,127.0.0.1:41006_regions,...
 *   1.002,9612.4,2047,4810.0,6
 *
 * time_s is seconds since the first phase began, at the end of the interval; ops_per_s
 * and p99_us cover the operations that ended in the interval; per server (host:port, in
 * the order they first appeared) the requests per second and regions the master's
 * cluster status gave at that sample (the server's last heartbeat), empty while the
 * server was not live or the status call failed.
 *
 * SVG: two panels over the same time axis, each with ticks, labels and a legend; the
 * top one throughput (left axis) and p99 latency (right axis), the bottom one each
 * server's requests per second; a dashed line marks the start of the run phase. Plain
 * SVG 1.1 text (polylines, lines, text), so any browser opens it.
 *
 * Thread-safety: none; the series belongs to the main thread.
 */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/fileio.h"
#include "common/status.h"
#include "tools/bench_ycsb.h"

void ycsb_series_init(ycsb_series *s)
{
    memset(s, 0, sizeof(*s));
    s->run_start_s = -1;
}

void ycsb_series_free(ycsb_series *s)
{
    free(s->s);
    ycsb_series_init(s);
}

ycsb_sample *ycsb_series_add(ycsb_series *s)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        ycsb_sample *v = realloc(s->s, cap * sizeof(*v));
        if (!v)
            return NULL;
        s->s = v;
        s->cap = cap;
    }
    ycsb_sample *x = &s->s[s->n++];
    memset(x, 0, sizeof(*x));
    for (int i = 0; i < YCSB_MAX_SERVERS; i++)
        x->rps[i] = -1;
    return x;
}

int ycsb_series_server(ycsb_series *s, const char *server)
{
    for (size_t i = 0; i < s->nservers; i++)
        if (strcmp(s->servers[i], server) == 0)
            return (int)i;
    if (s->nservers == YCSB_MAX_SERVERS)
        return -1;
    snprintf(s->servers[s->nservers], YCSB_SERVER_MAX, "%s", server);
    return (int)s->nservers++;
}

/* ---- text into a buffer ---- */

static void put(buf_t *b, int *rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void put(buf_t *b, int *rc, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (*rc == ST_OK && n > 0)
        *rc = buf_append(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static bool live(const ycsb_sample *x, size_t c)
{
    return x->servers_ok && x->rps[c] >= 0;
}

static int write_file(const char *path, const buf_t *b, int rc)
{
    if (rc != ST_OK)
        return st_error(rc, "out of memory writing %s", path);
    rc = fio_write_atomic(path, b->data, b->len);
    return rc == ST_OK ? ST_OK : st_error(ST_IO, "cannot write %s: %s", path, st_errmsg());
}

int ycsb_series_write_csv(const ycsb_series *s, const char *path)
{
    buf_t b = {0};
    int rc = ST_OK;
    put(&b, &rc, "time_s,ops_per_s,p99_us");
    for (size_t c = 0; c < s->nservers; c++)
        put(&b, &rc, ",%s_rps,%s_regions", s->servers[c], s->servers[c]);
    put(&b, &rc, "\n");
    for (size_t i = 0; i < s->n; i++) {
        const ycsb_sample *x = &s->s[i];
        put(&b, &rc, "%.3f,%.1f,%" PRIu64, x->time_s, x->ops_per_s, x->p99_us);
        for (size_t c = 0; c < s->nservers; c++) {
            if (live(x, c))
                put(&b, &rc, ",%.1f,%d", x->rps[c], x->regions[c]);
            else
                put(&b, &rc, ",,");
        }
        put(&b, &rc, "\n");
    }
    rc = write_file(path, &b, rc);
    buf_free(&b);
    return rc;
}

/* ---- the chart ---- */

#define W 1140
#define H 720
#define X0 90  /* plot area, left */
#define X1 860 /* plot area, right */
#define LEGEND_X 900
#define TICKS 5

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b",
                                      "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#ff7f0e"};
#define NCOLORS (sizeof(palette) / sizeof(palette[0]))

typedef struct panel {
    double top, bottom; /* plot area y */
    double xmax, ymax, y2max;
} panel;

/* A round step (1, 2 or 5 times a power of ten) giving about TICKS ticks up to max. */
static double nice_step(double max)
{
    if (!(max > 0))
        return 1;
    double raw = max / TICKS, p = pow(10, floor(log10(raw))), f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

static double nice_max(double max)
{
    double step = nice_step(max);
    return max > 0 ? ceil(max / step - 1e-9) * step : 1;
}

static void label(char *out, size_t cap, double v)
{
    if (fabs(v) >= 1e6)
        snprintf(out, cap, "%gM", v / 1e6);
    else if (fabs(v) >= 1e4)
        snprintf(out, cap, "%gk", v / 1e3);
    else
        snprintf(out, cap, "%g", v);
}

/* s with &, <, >, " escaped, into out. */
static void xml_escape(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; *s && n + 7 < cap; s++) {
        const char *e = *s == '&'   ? "&amp;"
                        : *s == '<' ? "&lt;"
                        : *s == '>' ? "&gt;"
                        : *s == '"' ? "&quot;"
                                    : NULL;
        if (e) {
            memcpy(out + n, e, strlen(e));
            n += strlen(e);
        } else {
            out[n++] = *s;
        }
    }
    out[n] = 0;
}

static double px(const panel *p, double t)
{
    return X0 + (X1 - X0) * (p->xmax > 0 ? t / p->xmax : 0);
}

static double py(const panel *p, double v, double max)
{
    return p->bottom - (p->bottom - p->top) * (max > 0 ? v / max : 0);
}

/* Axes, grid, ticks and labels of a panel; y2 also draws a right axis. */
static void axes(buf_t *b, int *rc, const panel *p, const char *ylabel, const char *y2label)
{
    char l[32];
    put(b, rc,
        "<rect x=\"%d\" y=\"%.0f\" width=\"%d\" height=\"%.0f\" fill=\"none\" "
        "stroke=\"#333\"/>\n",
        X0, p->top, X1 - X0, p->bottom - p->top);
    double xs = nice_step(p->xmax);
    for (double t = 0; t <= p->xmax + xs * 1e-6; t += xs) {
        label(l, sizeof(l), t);
        put(b, rc, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ddd\"/>\n",
            px(p, t), p->top, px(p, t), p->bottom);
        put(b, rc, "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#333\"/>\n",
            px(p, t), p->bottom, px(p, t), p->bottom + 5);
        put(b, rc, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n", px(p, t),
            p->bottom + 18, l);
    }
    put(b, rc, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"middle\">time (s)</text>\n", (X0 + X1) / 2,
        p->bottom + 36);
    double ys = nice_step(p->ymax);
    for (double v = 0; v <= p->ymax + ys * 1e-6; v += ys) {
        label(l, sizeof(l), v);
        double y = py(p, v, p->ymax);
        put(b, rc, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", X0, y,
            X1, y);
        put(b, rc, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", X0 - 8, y + 4, l);
    }
    put(b, rc,
        "<text transform=\"translate(%d,%.0f) rotate(-90)\" text-anchor=\"middle\">%s</text>\n",
        X0 - 62, (p->top + p->bottom) / 2, ylabel);
    if (!y2label)
        return;
    double y2s = nice_step(p->y2max);
    for (double v = 0; v <= p->y2max + y2s * 1e-6; v += y2s) {
        label(l, sizeof(l), v);
        put(b, rc, "<text x=\"%d\" y=\"%.1f\" fill=\"%s\">%s</text>\n", X1 + 6,
            py(p, v, p->y2max) + 4, palette[NCOLORS - 1], l);
    }
    put(b, rc,
        "<text transform=\"translate(%d,%.0f) rotate(90)\" text-anchor=\"middle\" "
        "fill=\"%s\">%s</text>\n",
        X1 + 30, (p->top + p->bottom) / 2, palette[NCOLORS - 1], y2label);
}

/* The start of the run phase, when it followed a load phase. */
static void phase_marker(buf_t *b, int *rc, const ycsb_series *s, const panel *p)
{
    if (s->run_start_s <= 0)
        return;
    double x = px(p, s->run_start_s);
    put(b, rc,
        "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#555\" "
        "stroke-dasharray=\"6,4\"/>\n",
        x, p->top, x, p->bottom);
    put(b, rc, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"end\" fill=\"#555\">load</text>\n", x - 4,
        p->top + 14);
    put(b, rc, "<text x=\"%.1f\" y=\"%.0f\" fill=\"#555\">run</text>\n", x + 4, p->top + 14);
}

/* The value of series k (-1 throughput, -2 p99, else a server) at sample x; false when
 * it has none. */
static bool value_of(const ycsb_sample *x, int k, double *v)
{
    if (k == -1)
        *v = x->ops_per_s;
    else if (k == -2)
        *v = (double)x->p99_us / 1000.0;
    else if (live(x, (size_t)k))
        *v = x->rps[k];
    else
        return false;
    return true;
}

/* ' stroke-dasharray="<dash>"', or "" for a solid line. */
static const char *dash_attr(const char *dash, char *out, size_t cap)
{
    if (!dash)
        return "";
    snprintf(out, cap, " stroke-dasharray=\"%s\"", dash);
    return out;
}

/* One polyline per run of samples that have a value (a gap breaks it), and a dot at
 * each sample when there are few. */
static void line(buf_t *b, int *rc, const ycsb_series *s, const panel *p, int k, double max,
                 const char *color, const char *dash)
{
    char da[48];
    bool open = false;
    double v = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (!value_of(&s->s[i], k, &v)) {
            if (open)
                put(b, rc, "\"/>\n");
            open = false;
            continue;
        }
        if (!open)
            put(b, rc, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s points=\"",
                color, dash_attr(dash, da, sizeof(da)));
        put(b, rc, "%.1f,%.1f ", px(p, s->s[i].time_s), py(p, v, max));
        open = true;
    }
    if (open)
        put(b, rc, "\"/>\n");
    for (size_t i = 0; s->n <= 120 && i < s->n; i++)
        if (value_of(&s->s[i], k, &v))
            put(b, rc, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n",
                px(p, s->s[i].time_s), py(p, v, max), color);
}

static void legend_item(buf_t *b, int *rc, double y, const char *color, const char *dash,
                        const char *text)
{
    char da[48];
    put(b, rc,
        "<line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\" stroke=\"%s\" stroke-width=\"3\"%s/>\n",
        LEGEND_X, y, LEGEND_X + 24, y, color, dash_attr(dash, da, sizeof(da)));
    put(b, rc, "<text x=\"%d\" y=\"%.0f\">%s</text>\n", LEGEND_X + 30, y + 4, text);
}

static void throughput_panel(buf_t *b, int *rc, const ycsb_series *s, panel *p)
{
    p->ymax = p->y2max = 0;
    for (size_t i = 0; i < s->n; i++) {
        p->ymax = fmax(p->ymax, s->s[i].ops_per_s);
        p->y2max = fmax(p->y2max, (double)s->s[i].p99_us / 1000.0);
    }
    p->ymax = nice_max(p->ymax);
    p->y2max = nice_max(p->y2max);
    put(b, rc, "<text x=\"%d\" y=\"%.0f\" font-weight=\"bold\">Throughput and p99 latency</text>\n",
        X0, p->top - 10);
    axes(b, rc, p, "operations / s", "p99 latency (ms)");
    phase_marker(b, rc, s, p);
    line(b, rc, s, p, -1, p->ymax, palette[0], NULL);
    line(b, rc, s, p, -2, p->y2max, palette[NCOLORS - 1], "5,3");
    legend_item(b, rc, p->top + 10, palette[0], NULL, "ops/s");
    legend_item(b, rc, p->top + 30, palette[NCOLORS - 1], "5,3", "p99 (ms)");
}

static void servers_panel(buf_t *b, int *rc, const ycsb_series *s, panel *p)
{
    p->ymax = 0;
    for (size_t i = 0; i < s->n; i++)
        for (size_t c = 0; c < s->nservers; c++)
            if (live(&s->s[i], c))
                p->ymax = fmax(p->ymax, s->s[i].rps[c]);
    p->ymax = nice_max(p->ymax);
    put(b, rc,
        "<text x=\"%d\" y=\"%.0f\" font-weight=\"bold\">Requests per second per region server "
        "(master's cluster status)</text>\n",
        X0, p->top - 10);
    axes(b, rc, p, "requests / s", NULL);
    phase_marker(b, rc, s, p);
    if (s->nservers == 0)
        put(b, rc,
            "<text x=\"%d\" y=\"%.0f\" text-anchor=\"middle\" fill=\"#777\">no server samples "
            "(run with --servers)</text>\n",
            (X0 + X1) / 2, (p->top + p->bottom) / 2);
    for (size_t c = 0; c < s->nservers; c++) {
        const char *color = palette[c % (NCOLORS - 1)];
        line(b, rc, s, p, (int)c, p->ymax, color, c >= NCOLORS - 1 ? "2,2" : NULL);
        int regions = -1;
        for (size_t i = s->n; i-- > 0 && regions < 0;)
            if (live(&s->s[i], c))
                regions = s->s[i].regions[c];
        char name[YCSB_SERVER_MAX * 6], text[YCSB_SERVER_MAX * 6 + 40];
        xml_escape(s->servers[c], name, sizeof(name));
        snprintf(text, sizeof(text), "%s (%d regions)", name, regions);
        legend_item(b, rc, p->top + 10 + 20 * (double)c, color, c >= NCOLORS - 1 ? "2,2" : NULL,
                    text);
    }
}

int ycsb_series_svg(const ycsb_series *s, const char *title, buf_t *b)
{
    int rc = ST_OK;
    char t[600];
    xml_escape(title ? title : "", t, sizeof(t));
    double xmax = 0;
    for (size_t i = 0; i < s->n; i++)
        xmax = fmax(xmax, s->s[i].time_s);
    /* the time axis ends at the last sample; the value axes at a round number */
    panel top = {.top = 70, .bottom = 320, .xmax = xmax > 0 ? xmax : 1};
    panel bottom = {.top = 410, .bottom = 660, .xmax = top.xmax};
    put(b, &rc,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
        "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
        W, H, W, H);
    put(b, &rc, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H);
    put(b, &rc,
        "<text x=\"%d\" y=\"28\" text-anchor=\"middle\" font-size=\"16\" "
        "font-weight=\"bold\">%s</text>\n",
        W / 2, t);
    throughput_panel(b, &rc, s, &top);
    servers_panel(b, &rc, s, &bottom);
    put(b, &rc, "</svg>\n");
    return rc == ST_OK ? ST_OK : st_error(rc, "out of memory drawing the chart");
}

int ycsb_series_write_svg(const ycsb_series *s, const char *title, const char *path)
{
    buf_t b = {0};
    int rc = ycsb_series_svg(s, title, &b);
    rc = write_file(path, &b, rc);
    buf_free(&b);
    return rc;
}
