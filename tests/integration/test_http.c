/*
 * test_http.c - the HTTP endpoints of masters and region servers (docs/http.md) on a real
 * cluster (tests/support/cluster.h: ZooKeeper, 2 masters, 2 region servers), after a table
 * was created and flushed through client/admin_rpc.h and rows written and read through
 * strata/strata.h. Requests
 * go through a plain-socket HTTP/1.1 client (tests/support/http_client.h).
 *
 * Tests:
 *   - the HTTP ports of the state file are the ones ZooKeeper advertises for every master
 *     and region server; a region server started with regionserver.http.port=0 registers
 *     the port it really bound (non-zero, serving);
 *   - /healthz is 200 everywhere; /readyz 200 on the active master and the region
 *     servers, 503 naming the active master on the backup; unknown paths 404, POST 405;
 *   - the master's status page (/ and /status) names every server, both masters and the
 *     table, with the region distribution chart; the region servers' pages list their
 *     regions with keys in toStringBinary, HTML-escaped;
 *   - /status.json parses (a strict JSON parser below) with the right counts: servers,
 *     regions per table and per server, backup and active masters, rows written;
 *   - /metrics parses as Prometheus text (a parser below: HELP/TYPE, name{labels} value
 *     [timestamp], label escaping), every sample in a declared family, families
 *     contiguous, with the expected metrics and sane values: region_count sums to the
 *     table's regions, write_request_count >= rows written, per-region series add up to
 *     the totals, reads, flushes and store files counted.
 *
 * The cluster is stopped by the group teardown, and by tests/support/cluster.c's atexit
 * handler and watchdog if the test dies. Needs STRATA_BIN (CTest);
 * skipped without it (exit 77).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client/admin_rpc.h"
#include "common/buf.h"
#include "common/clock.h"
#include "common/server_name.h"
#include "common/status.h"
#include "common/zk/zk.h"
#include "strata/strata.h"
#include "tests/support/cluster.h"
#include "tests/support/http_client.h"
#include "tests/support/proc.h"
#include "tests/support/testutil.h"

#define SESSION_MS 4000
#define TABLE "web"
#define QTABLE "default:web"
#define NROWS 300     /* rows written in all */
#define FRESH_ROWS 40 /* of which written after the flush */
#define NREADS 25
#define NREGIONS 4

/* ======================= a strict JSON parser (RFC 8259) ======================= */

typedef enum jv_kind { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ } jv_kind;

typedef struct jv {
    jv_kind kind;
    bool b;
    double num;
    char *str;         /* JV_STR (UTF-8, NUL-terminated) */
    struct jv **items; /* JV_ARR, JV_OBJ values */
    char **keys;       /* JV_OBJ */
    size_t n;
} jv;

typedef struct jparse {
    const char *p, *end;
    int depth;
} jparse;

static void jv_free(jv *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++) {
        jv_free(v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
    free(v);
}

static void skip_ws(jparse *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static bool lit(jparse *j, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
        return false;
    j->p += n;
    return true;
}

static int hex4(jparse *j)
{
    if (j->end - j->p < 4)
        return -1;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = *j->p++;
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= c - '0';
        else if (c >= 'a' && c <= 'f')
            v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v |= c - 'A' + 10;
        else
            return -1;
    }
    return v;
}

static void put_utf8(char *out, size_t *n, uint32_t cp)
{
    if (cp < 0x80) {
        out[(*n)++] = (char)cp;
    } else if (cp < 0x800) {
        out[(*n)++] = (char)(0xC0 | (cp >> 6));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out[(*n)++] = (char)(0xE0 | (cp >> 12));
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    } else {
        out[(*n)++] = (char)(0xF0 | (cp >> 18));
        out[(*n)++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[(*n)++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[(*n)++] = (char)(0x80 | (cp & 0x3F));
    }
}

/* One escape after the backslash into out; false if invalid. */
static bool string_escape(jparse *j, char *out, size_t *n)
{
    if (j->p >= j->end)
        return false;
    char c = *j->p++;
    const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
    const char *at = strchr(from, c);
    if (c && at) {
        out[(*n)++] = to[at - from];
        return true;
    }
    if (c != 'u')
        return false;
    int cp = hex4(j);
    if (cp >= 0xD800 && cp <= 0xDBFF) { /* a surrogate pair */
        if (!lit(j, "\\u"))
            return false;
        int lo = hex4(j);
        if (lo < 0xDC00 || lo > 0xDFFF)
            return false;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
        return false;
    }
    if (cp < 0)
        return false;
    put_utf8(out, n, (uint32_t)cp);
    return true;
}

static char *parse_string(jparse *j)
{
    if (j->p >= j->end || *j->p != '"')
        return NULL;
    j->p++;
    char *out = malloc((size_t)(j->end - j->p) * 2 + 1);
    size_t n = 0;
    while (out && j->p < j->end && *j->p != '"') {
        unsigned char c = (unsigned char)*j->p++;
        if (c < 0x20 || (c == '\\' && !string_escape(j, out, &n))) {
            free(out);
            return NULL;
        }
        if (c != '\\')
            out[n++] = (char)c;
    }
    if (!out || j->p >= j->end) {
        free(out);
        return NULL;
    }
    j->p++;
    out[n] = 0;
    return out;
}

static bool parse_number(jparse *j, double *out)
{
    const char *s = j->p;
    if (j->p < j->end && *j->p == '-')
        j->p++;
    if (j->p >= j->end || !isdigit((unsigned char)*j->p))
        return false;
    if (*j->p == '0')
        j->p++;
    else
        while (j->p < j->end && isdigit((unsigned char)*j->p))
            j->p++;
    if (j->p < j->end && *j->p == '.') {
        j->p++;
        if (j->p >= j->end || !isdigit((unsigned char)*j->p))
            return false;
        while (j->p < j->end && isdigit((unsigned char)*j->p))
            j->p++;
    }
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
            j->p++;
        if (j->p >= j->end || !isdigit((unsigned char)*j->p))
            return false;
        while (j->p < j->end && isdigit((unsigned char)*j->p))
            j->p++;
    }
    char tmp[64];
    snprintf(tmp, sizeof(tmp), "%.*s", (int)(j->p - s), s);
    *out = strtod(tmp, NULL);
    return true;
}

static jv *parse_value(jparse *j);

static bool add_item(jv *v, jv *item, char *key)
{
    jv **items = realloc(v->items, (v->n + 1) * sizeof(*items));
    if (items)
        v->items = items;
    char **keys = v->kind == JV_OBJ ? realloc(v->keys, (v->n + 1) * sizeof(*keys)) : NULL;
    if (keys)
        v->keys = keys;
    if (!items || (v->kind == JV_OBJ && !keys)) {
        jv_free(item);
        free(key);
        return false;
    }
    v->items[v->n] = item;
    if (v->kind == JV_OBJ)
        v->keys[v->n] = key;
    v->n++;
    return true;
}

/* An array or object after its opening bracket. */
static bool parse_members(jparse *j, jv *v, char close)
{
    skip_ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        return true;
    }
    for (;;) {
        char *key = NULL;
        skip_ws(j);
        if (v->kind == JV_OBJ) {
            if (!(key = parse_string(j)))
                return false;
            skip_ws(j);
            if (!lit(j, ":")) {
                free(key);
                return false;
            }
        }
        jv *item = parse_value(j);
        if (!item) {
            free(key);
            return false;
        }
        if (!add_item(v, item, key))
            return false;
        skip_ws(j);
        if (lit(j, ","))
            continue;
        return lit(j, close == '}' ? "}" : "]");
    }
}

static jv *parse_value(jparse *j)
{
    skip_ws(j);
    jv *v = calloc(1, sizeof(*v));
    bool ok = v && j->p < j->end && ++j->depth < 64;
    if (ok && *j->p == '{') {
        j->p++;
        v->kind = JV_OBJ;
        ok = parse_members(j, v, '}');
    } else if (ok && *j->p == '[') {
        j->p++;
        v->kind = JV_ARR;
        ok = parse_members(j, v, ']');
    } else if (ok && *j->p == '"') {
        v->kind = JV_STR;
        ok = (v->str = parse_string(j)) != NULL;
    } else if (ok && (lit(j, "true") || lit(j, "false"))) {
        v->kind = JV_BOOL;
        v->b = j->p[-1] == 'e' && j->p[-2] == 'u';
    } else if (ok && lit(j, "null")) {
        v->kind = JV_NULL;
    } else if (ok) {
        v->kind = JV_NUM;
        ok = parse_number(j, &v->num);
    }
    j->depth--;
    if (!ok) {
        jv_free(v);
        return NULL;
    }
    return v;
}

/* The whole text as one JSON value, or NULL. */
static jv *json_parse(const char *text, size_t len)
{
    jparse j = {text, text + len, 0};
    jv *v = parse_value(&j);
    skip_ws(&j);
    if (v && j.p != j.end) {
        jv_free(v);
        return NULL;
    }
    return v;
}

static const jv *jget(const jv *o, const char *key)
{
    for (size_t i = 0; o && o->kind == JV_OBJ && i < o->n; i++)
        if (strcmp(o->keys[i], key) == 0)
            return o->items[i];
    return NULL;
}

static double jnum(const jv *o, const char *key)
{
    const jv *v = jget(o, key);
    if (!v || v->kind != JV_NUM)
        fail_msg("JSON: no number '%s'", key);
    return v->num;
}

static const char *jstr(const jv *o, const char *key)
{
    const jv *v = jget(o, key);
    if (!v || v->kind != JV_STR)
        fail_msg("JSON: no string '%s'", key);
    return v->str;
}

static const jv *jarr(const jv *o, const char *key)
{
    const jv *v = jget(o, key);
    if (!v || v->kind != JV_ARR)
        fail_msg("JSON: no array '%s'", key);
    return v;
}

/* ================= a Prometheus text format (0.0.4) parser ================= */

typedef struct pm_sample {
    char name[128];
    char *lname[8], *lvalue[8];
    size_t nlabels;
    double value;
    bool has_ts;
} pm_sample;

typedef struct pm_family {
    char name[128];
    char type[16];
    bool has_help;
} pm_family;

typedef struct pm_doc {
    pm_sample *s;
    size_t n;
    pm_family *f;
    size_t nf;
} pm_doc;

static void pm_free(pm_doc *d)
{
    for (size_t i = 0; i < d->n; i++)
        for (size_t k = 0; k < d->s[i].nlabels; k++) {
            free(d->s[i].lname[k]);
            free(d->s[i].lvalue[k]);
        }
    free(d->s);
    free(d->f);
    memset(d, 0, sizeof(*d));
}

static bool pm_name_char(char c, bool first, bool label)
{
    return isalpha((unsigned char)c) || c == '_' || (!label && c == ':') ||
           (!first && isdigit((unsigned char)c));
}

/* Reads a name at *p into out; false if none. */
static bool pm_name(const char **p, char *out, size_t cap, bool label)
{
    size_t n = 0;
    while (pm_name_char(**p, n == 0, label) && n + 1 < cap)
        out[n++] = *(*p)++;
    out[n] = 0;
    return n > 0;
}

/* A quoted label value with \\, \" and \n escapes. */
static char *pm_label_value(const char **p)
{
    if (**p != '"')
        return NULL;
    (*p)++;
    char *out = malloc(strlen(*p) + 1);
    size_t n = 0;
    while (out && **p && **p != '"' && **p != '\n') {
        char c = *(*p)++;
        if (c == '\\') {
            c = *(*p)++;
            if (c == 'n')
                c = '\n';
            else if (c != '\\' && c != '"') {
                free(out);
                return NULL;
            }
        }
        out[n++] = c;
    }
    if (!out || **p != '"') {
        free(out);
        return NULL;
    }
    (*p)++;
    out[n] = 0;
    return out;
}

static bool pm_labels(const char **p, pm_sample *s)
{
    if (**p != '{')
        return true;
    (*p)++;
    while (**p != '}') {
        char lname[128];
        if (s->nlabels == 8 || !pm_name(p, lname, sizeof(lname), true) || *(*p)++ != '=')
            return false;
        char *v = pm_label_value(p);
        if (!v)
            return false;
        s->lname[s->nlabels] = strdup(lname);
        s->lvalue[s->nlabels++] = v;
        if (**p == ',')
            (*p)++;
        else if (**p != '}')
            return false;
    }
    (*p)++;
    return true;
}

static bool pm_value(const char **p, double *out)
{
    char tok[64];
    size_t n = 0;
    while (**p && **p != ' ' && **p != '\n' && n + 1 < sizeof(tok))
        tok[n++] = *(*p)++;
    tok[n] = 0;
    if (!strcmp(tok, "NaN") || !strcmp(tok, "+Inf") || !strcmp(tok, "-Inf")) {
        *out = !strcmp(tok, "NaN") ? NAN : (tok[0] == '+' ? INFINITY : -INFINITY);
        return true;
    }
    char *end = NULL;
    *out = strtod(tok, &end);
    return n > 0 && end && *end == 0 && isfinite(*out);
}

static pm_family *pm_find_family(pm_doc *d, const char *name)
{
    for (size_t i = 0; i < d->nf; i++)
        if (strcmp(d->f[i].name, name) == 0)
            return &d->f[i];
    return NULL;
}

/* "# HELP name text" / "# TYPE name type"; other comments are ignored. */
static bool pm_comment(pm_doc *d, const char *line, const char **why)
{
    bool help = strncmp(line, "# HELP ", 7) == 0, type = strncmp(line, "# TYPE ", 7) == 0;
    if (!help && !type)
        return true;
    const char *p = line + 7;
    char name[128];
    if (!pm_name(&p, name, sizeof(name), false) || (*p != ' ' && !(help && *p == 0))) {
        *why = "bad HELP/TYPE name";
        return false;
    }
    pm_family *f = pm_find_family(d, name);
    if (!f) {
        d->f = realloc(d->f, (d->nf + 1) * sizeof(*d->f));
        f = &d->f[d->nf++];
        memset(f, 0, sizeof(*f));
        snprintf(f->name, sizeof(f->name), "%s", name);
    }
    if (help) {
        if (f->has_help) {
            *why = "second HELP";
            return false;
        }
        f->has_help = true;
        return true;
    }
    static const char *const types[] = {"counter", "gauge", "histogram", "summary", "untyped"};
    for (size_t i = 0; i < 5; i++)
        if (!strcmp(p + 1, types[i]) && !f->type[0]) {
            snprintf(f->type, sizeof(f->type), "%s", types[i]);
            return true;
        }
    *why = "bad or second TYPE";
    return false;
}

static bool pm_sample_line(pm_doc *d, const char *line, const char **why)
{
    pm_sample s;
    memset(&s, 0, sizeof(s));
    const char *p = line;
    bool ok = pm_name(&p, s.name, sizeof(s.name), false) && pm_labels(&p, &s) && *p++ == ' ' &&
              pm_value(&p, &s.value);
    if (ok && *p == ' ') { /* an optional timestamp: an integer */
        p++;
        char *end = NULL;
        strtoll(p, &end, 10);
        ok = end != p && *end == 0;
        s.has_ts = true;
    } else if (ok) {
        ok = *p == 0;
    }
    if (!ok) {
        *why = "sample does not parse";
        for (size_t k = 0; k < s.nlabels; k++) {
            free(s.lname[k]);
            free(s.lvalue[k]);
        }
        return false;
    }
    d->s = realloc(d->s, (d->n + 1) * sizeof(*d->s));
    d->s[d->n++] = s;
    return true;
}

/* The last sample follows its family's HELP and TYPE, and joins its family's earlier
 * samples without a gap. */
static bool pm_sample_placed(pm_doc *d, const char **why)
{
    const pm_sample *s = &d->s[d->n - 1];
    pm_family *f = pm_find_family(d, s->name);
    if (!f || !f->type[0] || !f->has_help) {
        *why = "sample before its HELP and TYPE";
        return false;
    }
    if (d->n < 2 || !strcmp(d->s[d->n - 2].name, s->name))
        return true;
    for (size_t i = 0; i + 2 < d->n; i++)
        if (!strcmp(d->s[i].name, s->name)) {
            *why = "family samples not contiguous";
            return false;
        }
    return true;
}

/* Parses text; checks that every sample's family has HELP and TYPE before it and that
 * each family's samples are contiguous. 0, or fails the test naming the line. */
static void pm_parse(const char *text, pm_doc *d)
{
    memset(d, 0, sizeof(*d));
    char *copy = strdup(text);
    char *save = NULL;
    assert_true(strlen(text) > 0 && text[strlen(text) - 1] == '\n');
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        const char *why = NULL;
        bool ok = line[0] == '#' ? pm_comment(d, line, &why) : pm_sample_line(d, line, &why);
        if (ok && line[0] != '#')
            ok = pm_sample_placed(d, &why);
        if (!ok)
            fail_msg("metrics: %s: '%s'", why, line);
    }
    free(copy);
}

static const char *pm_label(const pm_sample *s, const char *name)
{
    for (size_t i = 0; i < s->nlabels; i++)
        if (!strcmp(s->lname[i], name))
            return s->lvalue[i];
    return NULL;
}

/* The unlabelled sample of name; fails if absent. */
static double pm_total(const pm_doc *d, const char *name)
{
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->s[i].name, name) && d->s[i].nlabels == 0)
            return d->s[i].value;
    fail_msg("metrics: no unlabelled %s", name);
    return 0;
}

/* Sum of name's samples carrying label (any value), and their count in *n. */
static double pm_sum_labelled(const pm_doc *d, const char *name, const char *label, size_t *n)
{
    double sum = 0;
    *n = 0;
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->s[i].name, name) && pm_label(&d->s[i], label)) {
            sum += d->s[i].value;
            (*n)++;
        }
    return sum;
}

/* ============================ the cluster ============================ */

typedef struct proc {
    char name[16]; /* master-1, rs-2 */
    int rpc, http;
    char server[SERVER_NAME_MAX]; /* "host,port,startcode" from ZooKeeper */
} proc;

static struct {
    tc_cluster *c;
    proc procs[8];
    size_t nprocs;
    char active[16]; /* "master-N" */
    char regions[NREGIONS][64];
    char split_text[NREGIONS - 1][32]; /* each split key in toStringBinary, HTML-escaped */
} G;

static proc *proc_named(const char *name)
{
    for (size_t i = 0; i < G.nprocs; i++)
        if (!strcmp(G.procs[i].name, name))
            return &G.procs[i];
    return NULL;
}

static bool is_master(const proc *p)
{
    return !strncmp(p->name, "master-", 7);
}

static int read_state(void)
{
    char path[1200];
    snprintf(path, sizeof(path), "%s/cluster.state", tc_dir(G.c));
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[512];
    while (fgets(line, sizeof(line), f) && G.nprocs < 8) {
        proc p;
        long pid;
        memset(&p, 0, sizeof(p));
        if (sscanf(line, "%15s %ld %d %d", p.name, &pid, &p.rpc, &p.http) == 4 &&
            (!strncmp(p.name, "master-", 7) || !strncmp(p.name, "rs-", 3)))
            G.procs[G.nprocs++] = p;
    }
    fclose(f);
    return G.nprocs == 4 ? 0 : -1;
}

/* Reads the ServerInfo at path: the name and the advertised HTTP port. */
static void read_info(zk *z, const char *path, char *name, uint32_t *http)
{
    uint8_t *data = NULL;
    size_t len = 0;
    server_name sn;
    assert_int_equal(zk_get(z, path, &data, &len, NULL), ST_OK);
    assert_int_equal(server_info_decode(data, len, &sn, http), ST_OK);
    server_name_format(&sn, name, SERVER_NAME_MAX);
    free(data);
}

/* The process with this RPC port gets the record's name; the advertised HTTP port must
 * be the one the state file has. */
static void match_record(zk *z, const char *path)
{
    char name[SERVER_NAME_MAX];
    uint32_t http = 0;
    server_name sn;
    read_info(z, path, name, &http);
    assert_int_equal(server_name_parse(name, &sn), ST_OK);
    for (size_t k = 0; k < G.nprocs; k++)
        if (G.procs[k].rpc == sn.port) {
            if (http != (uint32_t)G.procs[k].http)
                fail_msg("%s advertises http port %u, bound %d", name, http, G.procs[k].http);
            snprintf(G.procs[k].server, sizeof(G.procs[k].server), "%s", name);
        }
}

/* Matches every process to its ZooKeeper record (<parent>/master, backup-masters/<name>,
 * rs/<name>) by RPC port, checking the advertised HTTP ports. */
static void match_zk_records(void)
{
    zk *z = NULL;
    zk_options o = {.quorum = tc_quorum(G.c), .session_timeout_ms = SESSION_MS};
    assert_int_equal(zk_open(&o, &z), ST_OK);
    char *active = zk_path(tc_parent(G.c), "master");
    match_record(z, active);
    free(active);
    static const char *const dirs[] = {"rs", "backup-masters"};
    for (size_t d = 0; d < 2; d++) {
        char **names = NULL;
        size_t n = 0;
        char *dir = zk_path(tc_parent(G.c), dirs[d]);
        assert_int_equal(zk_children(z, dir, &names, &n), ST_OK);
        for (size_t i = 0; i < n; i++) {
            char path[1024];
            snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
            match_record(z, path);
        }
        zk_names_free(names, n);
        free(dir);
    }
    zk_close(z);
    for (size_t k = 0; k < G.nprocs; k++)
        if (!G.procs[k].server[0])
            fail_msg("%s has no ZooKeeper record", G.procs[k].name);
}

static void create_table(admin_rpc *a)
{
    Strata__Admin__TableSchema *s = NULL;
    assert_int_equal(admin_rpc_schema_new(TABLE, "f", &s), ST_OK);
    /* binary split points, to see toStringBinary and HTML escaping on the pages */
    static uint8_t k1[] = {'@'}, k2[] = {0x80, 0x00}, k3[] = {0xC0, '<'};
    ProtobufCBinaryData splits[] = {{1, k1}, {2, k2}, {2, k3}};
    int rc = admin_rpc_create_table(a, s, splits, 3);
    admin_rpc_schema_free(s);
    if (rc != ST_OK)
        fail_msg("create table: %s", st_errmsg());
    snprintf(G.split_text[0], sizeof(G.split_text[0]), "@");
    snprintf(G.split_text[1], sizeof(G.split_text[1]), "\\x80\\x00");
    snprintf(G.split_text[2], sizeof(G.split_text[2]), "\\xC0&lt;");
    Strata__Master__GetTableRegionsResponse *r = NULL;
    assert_int_equal(admin_rpc_table_regions(a, TABLE, &r), ST_OK);
    assert_int_equal(r->n_location, NREGIONS);
    for (size_t i = 0; i < NREGIONS; i++)
        snprintf(G.regions[i], sizeof(G.regions[i]), "%s", r->location[i]->region->encoded_name);
    admin_rpc_free_msg(r);
}

static void put_rows(strata_table_t *t, int from, int to)
{
    for (int i = from; i < to; i++) {
        uint8_t row[3] = {(uint8_t)(i * 97), (uint8_t)(i >> 8), (uint8_t)i};
        char val[16], *err = NULL;
        int vl = snprintf(val, sizeof(val), "v%d", i);
        strata_mutation_t *m = strata_put_create((const char *)row, sizeof(row));
        strata_put_add(m, "f", 1, "q", 1, STRATA_LATEST_TIMESTAMP, val, (size_t)vl);
        strata_table_put(t, m, &err);
        strata_mutation_destroy(m);
        if (err)
            fail_msg("put %d: %s", i, err);
    }
}

static void get_rows(strata_table_t *t, int from, int to)
{
    for (int i = from; i < to; i++) {
        uint8_t row[3] = {(uint8_t)(i * 97), (uint8_t)(i >> 8), (uint8_t)i};
        char *err = NULL;
        strata_get_t *g = strata_get_create((const char *)row, sizeof(row));
        strata_result_t *res = strata_table_get(t, g, &err);
        strata_get_destroy(g);
        if (err || !res)
            fail_msg("get %d: %s", i, err ? err : "no result");
        strata_result_destroy(res);
    }
}

/* NROWS rows, a flush of the table (store files, flush counts), FRESH_ROWS more (left in
 * the memstores) and NREADS gets. */
static void write_rows(admin_rpc *a)
{
    strata_options_t *o = strata_options_create();
    strata_options_set_zk_quorum(o, tc_quorum(G.c));
    strata_options_set_zk_parent(o, tc_parent(G.c));
    strata_options_set_operation_timeout_ms(o, 60000);
    char *err = NULL;
    strata_client_t *cl = strata_client_open(o, &err);
    strata_options_destroy(o);
    if (!cl)
        fail_msg("client: %s", err ? err : "?");
    strata_table_t *t = strata_table_open(cl, TABLE);
    put_rows(t, 0, NROWS - FRESH_ROWS);
    if (admin_rpc_flush_table(a, TABLE) != ST_OK)
        fail_msg("flush: %s", st_errmsg());
    put_rows(t, NROWS - FRESH_ROWS, NROWS);
    get_rows(t, 0, NREADS);
    strata_table_close(t);
    strata_client_close(cl);
}

static int group_setup(void **state)
{
    static const char *const flags[] = {"--regionserver.report.interval.ms=200", NULL};
    tc_options o = {.masters = 2, .regionservers = 2, .session_timeout_ms = SESSION_MS,
                    .flags = flags};
    int rc = tc_start(&o, &G.c);
    if (rc != ST_OK || read_state() != 0) {
        fprintf(stderr, "cluster start: %s\n", st_errmsg());
        return -1;
    }
    if (tc_active_master(G.c, G.active, sizeof(G.active)) != ST_OK || !G.active[0])
        return -1;
    match_zk_records();
    admin_rpc *a = NULL;
    assert_int_equal(admin_rpc_open(tc_quorum(G.c), tc_parent(G.c), &a), ST_OK);
    create_table(a);
    write_rows(a);
    admin_rpc_close(a);
    return 0;
}

static int group_teardown(void **state)
{
    int rc = tc_stop(G.c);
    G.c = NULL;
    return rc == ST_OK ? 0 : -1;
}

/* GETs path from p: fails unless it answers with status and (if given) content type. */
static void fetch(const proc *p, const char *path, int status, const char *type, thc_response *r)
{
    if (thc_get(p->http, path, r) != 0)
        fail_msg("%s (http %d) %s: no answer", p->name, p->http, path);
    if (r->status != status)
        fail_msg("%s %s: status %d, wanted %d: %s", p->name, path, r->status, status, r->body);
    if (type && strcmp(r->content_type, type) != 0)
        fail_msg("%s %s: content type '%s', wanted '%s'", p->name, path, r->content_type, type);
}

/* Retries fn(ctx) every 200 ms for up to 15 s while it returns false (values that come
 * with heartbeats or region opens settle). */
static bool eventually(bool (*fn)(void *), void *ctx)
{
    int64_t until = clock_now_ms() + 15000;
    while (!fn(ctx)) {
        if (clock_now_ms() > until)
            return false;
        clock_sleep_ms(200);
    }
    return true;
}

/* ============================ tests ============================ */

static void zk_ports_match_and_port_zero_registers_the_bound_port(void **state)
{
    /* match_zk_records in the setup already compared every advertised port. */
    char ready[1200], root[1200], quorum[200], log[1200];
    snprintf(ready, sizeof(ready), "--regionserver.ready.file=%s/extra.ready", tc_dir(G.c));
    snprintf(root, sizeof(root), "--root.dir=%s/root", tc_dir(G.c));
    snprintf(quorum, sizeof(quorum), "--zk.quorum=%s", tc_quorum(G.c));
    char parent[200];
    snprintf(parent, sizeof(parent), "--zk.parent=%s", tc_parent(G.c));
    snprintf(log, sizeof(log), "%s/logs/extra-rs.log", tc_dir(G.c));
    const char *argv[] = {"strata",
                          "regionserver",
                          root,
                          quorum,
                          ready,
                          parent,
                          "--zk.session.timeout.ms=4000",
                          "--regionserver.port=0",
                          "--regionserver.http.port=0",
                          "--regionserver.report.interval.ms=200",
                          NULL};
    proc_spec spec = {.argv = argv, .path = getenv("STRATA_BIN"), .log = log, .kill_at_exit = true};
    pid_t pid = 0;
    assert_int_equal(proc_spawn(&spec, &pid), ST_OK);
    char rf[1200];
    snprintf(rf, sizeof(rf), "%s/extra.ready", tc_dir(G.c));
    int64_t until = clock_now_ms() + 30000;
    while (access(rf, F_OK) != 0 && clock_now_ms() < until)
        clock_sleep_ms(100);
    FILE *f = fopen(rf, "r");
    int rpc = 0;
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%*[^:]:%d", &rpc), 1);
    fclose(f);
    /* its record under <parent>/rs */
    zk *z = NULL;
    zk_options o = {.quorum = tc_quorum(G.c), .session_timeout_ms = SESSION_MS};
    assert_int_equal(zk_open(&o, &z), ST_OK);
    char **names = NULL;
    size_t n = 0;
    uint32_t http = 0;
    char *rsdir = zk_path(tc_parent(G.c), "rs");
    assert_int_equal(zk_children(z, rsdir, &names, &n), ST_OK);
    for (size_t i = 0; i < n; i++) {
        server_name sn;
        if (server_name_parse(names[i], &sn) == ST_OK && sn.port == rpc) {
            char path[1024], name[SERVER_NAME_MAX];
            snprintf(path, sizeof(path), "%s/%s", rsdir, names[i]);
            read_info(z, path, name, &http);
        }
    }
    zk_names_free(names, n);
    free(rsdir);
    zk_close(z);
    assert_true(http > 0);
    proc extra = {.name = "extra-rs", .rpc = rpc, .http = (int)http};
    thc_response r;
    fetch(&extra, "/healthz", 200, NULL, &r);
    thc_response_free(&r);
    fetch(&extra, "/readyz", 200, NULL, &r);
    thc_response_free(&r);
    proc_signal(pid, SIGTERM);
    int status = 0;
    proc_wait(pid, 30000, &status);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    /* after the stop nothing answers on its HTTP port */
    assert_int_equal(thc_get(extra.http, "/healthz", &r), -1);
}

static void healthz_readyz_404_405(void **state)
{
    for (size_t i = 0; i < G.nprocs; i++) {
        const proc *p = &G.procs[i];
        thc_response r;
        fetch(p, "/healthz", 200, "text/plain; charset=utf-8", &r);
        assert_string_equal(r.body, "ok\n");
        thc_response_free(&r);
        bool backup = is_master(p) && strcmp(p->name, G.active) != 0;
        fetch(p, "/readyz", backup ? 503 : 200, "text/plain; charset=utf-8", &r);
        if (backup) {
            /* "backup master <me>; active is <active>" */
            assert_non_null(strstr(r.body, "backup master"));
            assert_non_null(strstr(r.body, proc_named(G.active)->server));
        } else {
            assert_string_equal(r.body, "ok\n");
        }
        thc_response_free(&r);
        fetch(p, "/no/such/page", 404, NULL, &r);
        thc_response_free(&r);
        assert_int_equal(thc_request(p->http, "POST", "/metrics", NULL, "x=1", 3, 5000, &r), 0);
        assert_int_equal(r.status, 405);
        thc_response_free(&r);
        assert_int_equal(thc_request(p->http, "HEAD", "/healthz", NULL, NULL, 0, 5000, &r), 0);
        assert_int_equal(r.status, 200);
        assert_int_equal(r.content_length, 3);
        assert_int_equal(r.body_len, 0);
        thc_response_free(&r);
    }
}

static void master_status_page_names_servers_table_and_chart(void **state)
{
    const proc *act = proc_named(G.active);
    static const char *const paths[] = {"/", "/status"};
    for (size_t k = 0; k < 2; k++) {
        thc_response r;
        fetch(act, paths[k], 200, "text/html; charset=utf-8", &r);
        assert_non_null(strstr(r.body, "<!DOCTYPE html>"));
        for (size_t i = 0; i < G.nprocs; i++)
            if (!strstr(r.body, G.procs[i].server))
                fail_msg("master page does not name %s (%s)", G.procs[i].name, G.procs[i].server);
        assert_non_null(strstr(r.body, QTABLE));
        assert_non_null(strstr(r.body, "ENABLED"));
        assert_non_null(strstr(r.body, "Region distribution"));
        assert_non_null(strstr(r.body, "class=\"bar\""));
        assert_non_null(strstr(r.body, "Regions in transition"));
        /* links to the region servers' pages on their HTTP ports */
        for (size_t i = 0; i < G.nprocs; i++)
            if (!is_master(&G.procs[i])) {
                char link[64];
                snprintf(link, sizeof(link), ":%d/", G.procs[i].http);
                assert_non_null(strstr(r.body, link));
            }
        thc_response_free(&r);
    }
    for (size_t i = 0; i < G.nprocs; i++)
        if (is_master(&G.procs[i]) && strcmp(G.procs[i].name, G.active)) {
            thc_response r;
            fetch(&G.procs[i], "/", 200, "text/html; charset=utf-8", &r);
            assert_non_null(strstr(r.body, "backup master"));
            assert_non_null(strstr(r.body, act->server));
            thc_response_free(&r);
        }
}

static void region_server_pages_list_regions_with_binary_keys(void **state)
{
    buf_t all = {0};
    for (size_t i = 0; i < G.nprocs; i++) {
        if (is_master(&G.procs[i]))
            continue;
        thc_response r;
        fetch(&G.procs[i], "/", 200, "text/html; charset=utf-8", &r);
        assert_non_null(strstr(r.body, G.procs[i].server));
        buf_append(&all, r.body, r.body_len);
        thc_response_free(&r);
    }
    buf_append(&all, "", 1);
    const char *text = (const char *)all.data;
    for (size_t i = 0; i < NREGIONS; i++)
        if (!strstr(text, G.regions[i]))
            fail_msg("no region server page lists region %s", G.regions[i]);
    for (size_t i = 0; i < NREGIONS - 1; i++)
        if (!strstr(text, G.split_text[i]))
            fail_msg("no page shows split key %s", G.split_text[i]);
    assert_null(strstr(text, "\xC0<")); /* never raw */
    buf_free(&all);
}

static bool master_json_settled(void *ctx)
{
    thc_response r;
    if (thc_get(proc_named(G.active)->http, "/status.json", &r) != 0)
        return false;
    jv *doc = json_parse(r.body, r.body_len);
    bool ok = doc != NULL;
    double writes = 0, regions = 0;
    const jv *live = doc ? jget(doc, "live_servers") : NULL;
    for (size_t i = 0; live && i < live->n; i++) {
        writes += jnum(live->items[i], "write_request_count");
        regions += jnum(live->items[i], "region_count");
    }
    const jv *rit = doc ? jget(doc, "regions_in_transition") : NULL;
    ok = ok && live && live->n == 2 && writes >= NROWS && regions == NREGIONS && rit && rit->n == 0;
    jv_free(doc);
    thc_response_free(&r);
    return ok;
}

static void master_status_json(void **state)
{
    const proc *act = proc_named(G.active);
    assert_true(eventually(master_json_settled, NULL));
    thc_response r;
    fetch(act, "/status.json", 200, "application/json", &r);
    jv *doc = json_parse(r.body, r.body_len);
    if (!doc)
        fail_msg("master status.json does not parse: %s", r.body);
    assert_string_equal(jstr(doc, "role"), "active");
    assert_string_equal(jstr(doc, "server"), act->server);
    assert_true(jget(doc, "ready")->b);
    assert_string_equal(jstr(jget(doc, "active_master"), "name"), act->server);
    assert_int_equal((int)jnum(jget(doc, "active_master"), "http_port"), act->http);
    const jv *backups = jarr(doc, "backup_masters");
    assert_int_equal(backups->n, 1);
    const proc *bk = proc_named(strcmp(G.active, "master-1") ? "master-1" : "master-2");
    assert_string_equal(jstr(backups->items[0], "name"), bk->server);
    assert_int_equal((int)jnum(backups->items[0], "http_port"), bk->http);
    assert_int_equal((int)jnum(doc, "region_count"), NREGIONS);
    const jv *live = jarr(doc, "live_servers");
    assert_int_equal(live->n, 2);
    double by_table = 0;
    for (size_t i = 0; i < live->n; i++) {
        const char *name = jstr(live->items[i], "name");
        bool known = false;
        for (size_t k = 0; k < G.nprocs; k++)
            if (!strcmp(G.procs[k].server, name)) {
                known = !is_master(&G.procs[k]);
                assert_int_equal((int)jnum(live->items[i], "http_port"), G.procs[k].http);
            }
        assert_true(known);
        const jv *bt = jget(live->items[i], "regions_by_table");
        const jv *n = jget(bt, QTABLE);
        by_table += n ? n->num : 0;
        assert_true(jnum(live->items[i], "requests_per_second") >= 0);
    }
    assert_int_equal((int)by_table, NREGIONS);
    const jv *tables = jarr(doc, "tables");
    assert_int_equal(tables->n, 1);
    assert_string_equal(jstr(tables->items[0], "name"), QTABLE);
    assert_string_equal(jstr(tables->items[0], "state"), "ENABLED");
    assert_int_equal((int)jnum(tables->items[0], "region_count"), NREGIONS);
    assert_int_equal((int)jnum(tables->items[0], "open_region_count"), NREGIONS);
    assert_int_equal(jarr(doc, "dead_servers")->n, 0);
    jv_free(doc);
    thc_response_free(&r);
    /* the backup's document says who is active, and nothing of the cluster */
    fetch(bk, "/status.json", 200, "application/json", &r);
    doc = json_parse(r.body, r.body_len);
    assert_non_null(doc);
    assert_string_equal(jstr(doc, "role"), "backup");
    assert_false(jget(doc, "ready")->b);
    assert_string_equal(jstr(jget(doc, "active_master"), "name"), act->server);
    assert_null(jget(doc, "live_servers"));
    jv_free(doc);
    thc_response_free(&r);
}

static void region_server_status_json(void **state)
{
    double regions = 0, writes = 0;
    size_t listed = 0;
    for (size_t i = 0; i < G.nprocs; i++) {
        if (is_master(&G.procs[i]))
            continue;
        thc_response r;
        fetch(&G.procs[i], "/status.json", 200, "application/json", &r);
        jv *doc = json_parse(r.body, r.body_len);
        if (!doc)
            fail_msg("%s status.json does not parse: %s", G.procs[i].name, r.body);
        assert_string_equal(jstr(doc, "server"), G.procs[i].server);
        assert_string_equal(jstr(doc, "mode"), "cluster");
        assert_true(jget(doc, "ready")->b);
        assert_int_equal((int)jnum(doc, "http_port"), G.procs[i].http);
        const jv *list = jarr(doc, "regions");
        assert_int_equal((double)list->n, jnum(doc, "region_count"));
        double region_writes = 0;
        for (size_t k = 0; k < list->n; k++) {
            assert_string_equal(jstr(list->items[k], "table"), QTABLE);
            region_writes += jnum(list->items[k], "write_request_count");
            const char *start = jstr(list->items[k], "start_key");
            bool known = !start[0] || !strcmp(start, "@") || !strcmp(start, "\\x80\\x00") ||
                         !strcmp(start, "\\xC0<");
            assert_true(known);
        }
        assert_int_equal(region_writes, jnum(doc, "write_request_count"));
        regions += jnum(doc, "region_count");
        writes += jnum(doc, "write_request_count");
        listed += list->n;
        jv_free(doc);
        thc_response_free(&r);
    }
    assert_int_equal((int)regions, NREGIONS);
    assert_int_equal(listed, NREGIONS);
    assert_true(writes >= NROWS);
}

static void region_server_metrics(void **state)
{
    double regions = 0, writes = 0, memstore = 0, reads = 0, files = 0, flushes = 0;
    for (size_t i = 0; i < G.nprocs; i++) {
        if (is_master(&G.procs[i]))
            continue;
        thc_response r;
        fetch(&G.procs[i], "/metrics", 200, "text/plain; version=0.0.4; charset=utf-8", &r);
        pm_doc d;
        pm_parse(r.body, &d);
        static const char *const want[] = {
            "region_count", "read_request_count", "write_request_count", "memstore_size",
            "store_file_count", "store_file_size", "flush_count", "compaction_count",
            "compaction_queue_length", "flush_queue_length", "open_scanners",
            "total_request_count", "block_cache_hit_count", "ready"};
        for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
            (void)pm_total(&d, want[k]);
        assert_int_equal(pm_total(&d, "ready"), 1);
        assert_true(pm_total(&d, "open_scanners") >= 0);
        /* per-region series add up to the server's totals */
        size_t n = 0;
        double w = pm_sum_labelled(&d, "write_request_count", "region", &n);
        assert_int_equal(w, pm_total(&d, "write_request_count"));
        assert_int_equal(n, (size_t)pm_total(&d, "region_count"));
        double m = pm_sum_labelled(&d, "memstore_size", "region", &n);
        assert_int_equal(m, pm_total(&d, "memstore_size"));
        for (size_t k = 0; k < d.n; k++)
            if (pm_label(&d.s[k], "region")) {
                assert_string_equal(pm_label(&d.s[k], "table"), QTABLE);
                bool known = false;
                for (size_t x = 0; x < NREGIONS; x++)
                    known |= !strcmp(G.regions[x], pm_label(&d.s[k], "region"));
                assert_true(known);
            }
        regions += pm_total(&d, "region_count");
        writes += pm_total(&d, "write_request_count");
        memstore += pm_total(&d, "memstore_size");
        reads += pm_total(&d, "read_request_count");
        files += pm_total(&d, "store_file_count");
        flushes += pm_total(&d, "flush_count");
        assert_true(pm_total(&d, "store_file_size") > 0);
        assert_int_equal(pm_total(&d, "total_request_count"),
                         pm_total(&d, "read_request_count") + pm_total(&d, "write_request_count"));
        pm_free(&d);
        thc_response_free(&r);
    }
    assert_int_equal((int)regions, NREGIONS);
    assert_true(writes >= NROWS);
    assert_true(reads >= NREADS);
    assert_true(memstore > 0);
    assert_true(files >= NREGIONS); /* the flush wrote a file in every region */
    assert_true(flushes >= NREGIONS);
}

static bool master_metrics_settled(void *ctx)
{
    thc_response r;
    if (thc_get(proc_named(G.active)->http, "/metrics", &r) != 0)
        return false;
    pm_doc d;
    pm_parse(r.body, &d);
    size_t n = 0;
    bool ok = pm_sum_labelled(&d, "write_request_count", "server", &n) >= NROWS && n == 2;
    pm_free(&d);
    thc_response_free(&r);
    return ok;
}

static void master_metrics(void **state)
{
    const proc *act = proc_named(G.active);
    assert_true(eventually(master_metrics_settled, NULL));
    thc_response r;
    fetch(act, "/metrics", 200, "text/plain; version=0.0.4; charset=utf-8", &r);
    pm_doc d;
    pm_parse(r.body, &d);
    assert_int_equal(pm_total(&d, "is_active_master"), 1);
    assert_int_equal(pm_total(&d, "ready"), 1);
    assert_int_equal(pm_total(&d, "live_region_servers"), 2);
    assert_int_equal(pm_total(&d, "dead_region_servers"), 0);
    assert_int_equal(pm_total(&d, "rit_count"), 0);
    assert_int_equal(pm_total(&d, "rit_oldest_age"), 0);
    assert_int_equal(pm_total(&d, "table_count"), 1);
    assert_true(fabs(pm_total(&d, "average_load") - (double)NREGIONS / 2) < 1e-9);
    assert_int_equal(pm_total(&d, "region_count"), NREGIONS);
    size_t n = 0;
    assert_int_equal(pm_sum_labelled(&d, "region_count", "server", &n), NREGIONS);
    assert_int_equal(n, 2);
    for (size_t k = 0; k < d.n; k++) {
        const char *srv = pm_label(&d.s[k], "server");
        bool known = !srv;
        for (size_t x = 0; srv && x < G.nprocs; x++)
            known |= !is_master(&G.procs[x]) && !strcmp(G.procs[x].server, srv);
        if (!known)
            fail_msg("metric %s names unknown server %s", d.s[k].name, srv);
    }
    double w = pm_sum_labelled(&d, "write_request_count", "server", &n);
    assert_true(w >= NROWS);
    assert_int_equal(w, pm_total(&d, "write_request_count"));
    assert_int_equal(pm_sum_labelled(&d, "table_region_count", "table", &n), NREGIONS);
    for (size_t k = 0; k < d.nf; k++)
        if (!strcmp(d.f[k].name, "write_request_count"))
            assert_string_equal(d.f[k].type, "counter");
    pm_free(&d);
    thc_response_free(&r);
    /* the backup reports itself only */
    const proc *bk = proc_named(strcmp(G.active, "master-1") ? "master-1" : "master-2");
    fetch(bk, "/metrics", 200, "text/plain; version=0.0.4; charset=utf-8", &r);
    pm_parse(r.body, &d);
    assert_int_equal(pm_total(&d, "is_active_master"), 0);
    assert_int_equal(pm_total(&d, "ready"), 0);
    for (size_t k = 0; k < d.n; k++)
        assert_string_not_equal(d.s[k].name, "live_region_servers");
    pm_free(&d);
    thc_response_free(&r);
}

/* The parser itself: escapes, timestamps, special values, and what it must refuse. */
static void prometheus_parser_checks_itself(void **state)
{
    pm_doc d;
    pm_parse("# HELP x a \\\\ help\n# TYPE x gauge\nx{a=\"q\\\"\\\\\\n\",b=\"c,}\"} 1.5 123\n"
             "x +Inf\n# a comment\n# HELP y y\n# TYPE y counter\ny NaN\n", &d);
    assert_int_equal(d.n, 3);
    assert_string_equal(pm_label(&d.s[0], "a"), "q\"\\\n");
    assert_string_equal(pm_label(&d.s[0], "b"), "c,}");
    assert_true(d.s[0].has_ts);
    assert_true(isinf(d.s[1].value));
    assert_true(isnan(d.s[2].value));
    pm_free(&d);
    const char *ok = "{\"a\":[1,-2.5e3,\"\\u00e9\\ud83d\\ude00\",true,null,{}]}";
    jv *v = json_parse(ok, strlen(ok) - 1);
    assert_null(v); /* cut short */
    v = json_parse(ok, strlen(ok));
    assert_non_null(v);
    assert_int_equal(jget(v, "a")->n, 6);
    assert_string_equal(jget(v, "a")->items[2]->str, "\xc3\xa9\xf0\x9f\x98\x80");
    jv_free(v);
    static const char *const bad[] = {"{\"a\":1,}", "[01]", "\"\x01\"", "{\"a\" 1}", "[1] [2]",
                                      "\"\\ud800\"", "tru", "[1.]", "{a:1}"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_null(json_parse(bad[i], strlen(bad[i])));
}

int main(void)
{
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_http", "STRATA_BIN is not set (ctest sets it)");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(prometheus_parser_checks_itself),
        cmocka_unit_test(healthz_readyz_404_405),
        cmocka_unit_test(master_status_page_names_servers_table_and_chart),
        cmocka_unit_test(region_server_pages_list_regions_with_binary_keys),
        cmocka_unit_test(master_status_json),
        cmocka_unit_test(region_server_status_json),
        cmocka_unit_test(region_server_metrics),
        cmocka_unit_test(master_metrics),
        cmocka_unit_test(zk_ports_match_and_port_zero_registers_the_bound_port),
    };
    return tu_run_group_tests(tests, group_setup, group_teardown);
}
