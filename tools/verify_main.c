/*
 * verify_main.c - `strata verify`: the command line of the verifiers (verify.h;
 * docs/reliability.md "Verifiers"), their text and JSON reports and exit statuses.
 *
 *   strata verify linkedlist generate|verify|walk ...   tools/verify_linkedlist.c
 *   strata verify acid ...                              tools/verify_acid.c
 *
 * The cluster: --dir D reads the quorum and parent of D/cluster.state (docs/cluster.md),
 * or --zk.quorum Q [--zk.parent P].
 *
 * Exit statuses: 0 passed; 1 the check failed (UNDEFINED or UNREFERENCED nodes or a
 * REFERENCED count other than --expected; a walk that found a break; a generator that
 * left a list open; a torn row or a counter that went back); 2 a usage error; 3 the run
 * could not be done (no cluster, no table, a scan that failed, a non-retryable error).
 *
 * Thread-safety: none needed; it runs on the main thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/http/json.h"
#include "common/status.h"
#include "strata/strata.h"
#include "tools/chaos.h"
#include "tools/chaos_report.h"
#include "tools/tools.h"
#include "tools/verify.h"

#define EXIT_PASS 0
#define EXIT_FAILED 1
#define EXIT_USAGE 2
#define EXIT_NOT_RUN 3
#define NAME_MAX_LEN 256

typedef struct cli {
    const char *prog; /* "strata verify linkedlist generate" ... */
    const char *dir, *quorum, *parent, *table;
    char state_quorum[NAME_MAX_LEN], state_parent[NAME_MAX_LEN];
    bool json;
    bool iterations_set;
    int64_t expected; /* verify: -1 none */
    const char *start_hex;
    uint64_t max;
    vll_opts ll;
    vacid_opts acid;
    bool monkey; /* --monkey POLICY: a chaos monkey beside the load (generate, acid) */
    chaos_opts chaos;
} cli;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: strata verify linkedlist generate CLUSTER [--table T] [--regions N]\n"
            "           [--loaders L] [--width W] [--wrap K] [--iterations I | --duration S]\n"
            "           [--grace S] [--seed N] [--rate NODES/S] [--json]\n"
            "       strata verify linkedlist verify CLUSTER [--table T] [--expected N] [--json]\n"
            "       strata verify linkedlist walk CLUSTER [--table T] [--start KEYHEX] [--max N]\n"
            "           [--json]\n"
            "       strata verify acid CLUSTER [--table T] [--columns N] [--rows R]\n"
            "           [--writers W] [--getters G] [--scanners S] [--incrementers I]\n"
            "           [--duration S] [--json]\n"
            "  CLUSTER: --dir D (a local cluster) or --zk.quorum Q [--zk.parent P]\n"
            "  generate and acid also take --monkey POLICY [--monkey-OPTION V ...]: a chaos\n"
            "  monkey breaks the cluster while they run (docs/chaos.md)\n");
}

static void help(FILE *out)
{
    usage(out);
    fprintf(out,
            "linkedlist (HBase's IntegrationTestBigLinkedList), table %s, family %s:\n"
            "  generate    L loaders each write circular lists of W x K nodes (16 random\n"
            "              bytes; meta:prev the previous node, meta:count, meta:client), a\n"
            "              batch of W nodes at a time, each pointing into the batch before;\n"
            "              --iterations lists per loader (default 1) or lists until\n"
            "              --duration S is up (checked between lists: every list is closed).\n"
            "              A failed write is sent again until --duration + --grace (default\n"
            "              60 s) or, without --duration, --grace after its first failure.\n"
            "              A new table is split into --regions (default 8) at 16-byte keys.\n"
            "              Defaults: --loaders 2 --width 1000 --wrap 25. --rate N paces\n"
            "              each loader to N nodes per second (default: unpaced).\n"
            "  verify      scans the table: REFERENCED, UNREFERENCED, UNDEFINED,\n"
            "              EXTRAREFERENCES; fails on UNDEFINED or UNREFERENCED, or if\n"
            "              REFERENCED differs from --expected N\n"
            "  walk        follows meta:prev from --start KEYHEX (default: the first row)\n"
            "              until the cycle closes, a node is missing, or --max N steps\n"
            "acid (HBase's TestAcidGuarantees), table %s, families A, B, C:\n"
            "  writers put one value into --columns (default 10) columns of each family of\n"
            "  one of --rows (default 3) rows at once; getters and scanners check that no\n"
            "  row shows two values or part of its columns; incrementers add to\n"
            "  %s A:%s and readers check it never goes back. Defaults: --writers 2\n"
            "  --getters 2 --scanners 1 --incrementers 1 --duration 20.\n"
            "--json prints one JSON object. Exit status: 0 passed, 1 the check failed (or\n"
            "a monkey action did not recover), 2 usage error, 3 could not run.\n"
            "--monkey POLICY runs the chaos monkey (strata chaos) beside generate or acid for\n"
            "as long as they run (or --monkey-duration / --monkey-actions); the report adds\n"
            "every action with its recovery time and each writer's stall after it. Its\n"
            "options, each with the prefix monkey-:\n",
            VLL_DEFAULT_TABLE, VLL_FAMILY, VACID_DEFAULT_TABLE, VACID_COUNTER_ROW,
            VACID_COUNTER_COL);
    chaos_opts_help(out, "monkey-");
}

/* ---- values ---- */

static int int_value(const char *flag, const char *v, int64_t lo, int64_t hi, int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long x = v ? strtoll(v, &end, 10) : 0;
    if (!v || end == v || *end || errno || x < lo || x > hi)
        return st_error(ST_INVALID_ARGUMENT, "%s needs an integer in %lld..%lld, not '%s'", flag,
                        (long long)lo, (long long)hi, v ? v : "");
    *out = x;
    return ST_OK;
}

static int int_flag(const char *flag, const char *v, int lo, int hi, int *out)
{
    int64_t x = 0;
    int rc = int_value(flag, v, lo, hi, &x);
    *out = (int)x;
    return rc;
}

static int seconds_value(const char *flag, const char *v, double *out)
{
    char *end = NULL;
    errno = 0;
    double x = v ? strtod(v, &end) : 0;
    if (!v || end == v || *end || errno || !isfinite(x) || x <= 0 || x > 30 * 86400)
        return st_error(ST_INVALID_ARGUMENT, "%s needs seconds above 0, not '%s'", flag,
                        v ? v : "");
    *out = x;
    return ST_OK;
}

static int rate_value(const char *flag, const char *v, double *out)
{
    char *end = NULL;
    errno = 0;
    double x = v ? strtod(v, &end) : 0;
    if (!v || end == v || *end || errno || !isfinite(x) || x <= 0 || x > 1e9)
        return st_error(ST_INVALID_ARGUMENT, "%s needs nodes per second above 0, not '%s'", flag,
                        v ? v : "");
    *out = x;
    return ST_OK;
}

static int hex_key(const char *hex, vll_key *k)
{
    size_t n = strlen(hex);
    if (n == 0 || n % 2 || n / 2 > VLL_KEY_LEN)
        return st_error(ST_INVALID_ARGUMENT, "--start needs 2..%d hex digits, not '%s'",
                        2 * VLL_KEY_LEN, hex);
    k->len = (uint8_t)(n / 2);
    for (size_t i = 0; i < n / 2; i++) {
        unsigned x;
        if (sscanf(hex + 2 * i, "%2x", &x) != 1 || !strchr("0123456789abcdefABCDEF", hex[2 * i]) ||
            !strchr("0123456789abcdefABCDEF", hex[2 * i + 1]))
            return st_error(ST_INVALID_ARGUMENT, "--start needs hex digits, not '%s'", hex);
        k->b[i] = (uint8_t)x;
    }
    return ST_OK;
}

/* ---- flags ---- */

/* The flags every verifier takes: the cluster, --table, --json. *used tells whether a
 * was one (taking v, then *i moves past it). */
static int common_flag(cli *c, const char *a, const char *v, int *i, bool *used)
{
    *used = true;
    if (strcmp(a, "--json") == 0) {
        c->json = true;
        return ST_OK;
    }
    const char **dst = strcmp(a, "--dir") == 0         ? &c->dir
                       : strcmp(a, "--zk.quorum") == 0 ? &c->quorum
                       : strcmp(a, "--zk.parent") == 0 ? &c->parent
                       : strcmp(a, "--table") == 0     ? &c->table
                                                       : NULL;
    if (!dst) {
        *used = false;
        return ST_OK;
    }
    if (!v)
        return st_error(ST_INVALID_ARGUMENT, "%s needs a value", a);
    *dst = v;
    (*i)++;
    return ST_OK;
}

static int generate_flag(cli *c, const char *a, const char *v)
{
    vll_opts *o = &c->ll;
    int64_t x = 0;
    int rc;
    if (strcmp(a, "--regions") == 0)
        return int_flag(a, v, 1, VLL_MAX_REGIONS, &o->regions);
    if (strcmp(a, "--loaders") == 0)
        return int_flag(a, v, 1, VLL_MAX_LOADERS, &o->loaders);
    if (strcmp(a, "--width") == 0)
        return int_flag(a, v, 1, 10000000, &o->width);
    if (strcmp(a, "--wrap") == 0)
        return int_flag(a, v, 1, 1000000, &o->wrap);
    if (strcmp(a, "--duration") == 0)
        return seconds_value(a, v, &o->duration_s);
    if (strcmp(a, "--grace") == 0)
        return seconds_value(a, v, &o->grace_s);
    if (strcmp(a, "--rate") == 0)
        return rate_value(a, v, &o->rate);
    if (strcmp(a, "--iterations") == 0) {
        rc = int_value(a, v, 1, INT64_MAX, &x);
        o->iterations = (uint64_t)x;
        c->iterations_set = true;
        return rc;
    }
    if (strcmp(a, "--seed") == 0) {
        rc = int_value(a, v, 0, INT64_MAX, &x);
        o->seed = (uint64_t)x;
        return rc;
    }
    return st_error(ST_INVALID_ARGUMENT, "unknown argument '%s'", a);
}

static int verify_flag(cli *c, const char *a, const char *v)
{
    if (strcmp(a, "--expected") == 0)
        return int_value(a, v, 0, INT64_MAX, &c->expected);
    return st_error(ST_INVALID_ARGUMENT, "unknown argument '%s'", a);
}

static int walk_flag(cli *c, const char *a, const char *v)
{
    int64_t x = 0;
    int rc;
    if (strcmp(a, "--start") == 0) {
        if (!v)
            return st_error(ST_INVALID_ARGUMENT, "--start needs a value");
        c->start_hex = v;
        return ST_OK;
    }
    if (strcmp(a, "--max") == 0) {
        rc = int_value(a, v, 1, INT64_MAX, &x);
        c->max = (uint64_t)x;
        return rc;
    }
    return st_error(ST_INVALID_ARGUMENT, "unknown argument '%s'", a);
}

static int acid_flag(cli *c, const char *a, const char *v)
{
    vacid_opts *o = &c->acid;
    if (strcmp(a, "--columns") == 0)
        return int_flag(a, v, 1, VACID_MAX_COLUMNS, &o->columns);
    if (strcmp(a, "--rows") == 0)
        return int_flag(a, v, 1, VACID_MAX_ROWS, &o->rows);
    if (strcmp(a, "--writers") == 0)
        return int_flag(a, v, 0, VACID_MAX_THREADS, &o->writers);
    if (strcmp(a, "--getters") == 0)
        return int_flag(a, v, 0, VACID_MAX_THREADS, &o->getters);
    if (strcmp(a, "--scanners") == 0)
        return int_flag(a, v, 0, VACID_MAX_THREADS, &o->scanners);
    if (strcmp(a, "--incrementers") == 0)
        return int_flag(a, v, 0, VACID_MAX_THREADS, &o->incrementers);
    if (strcmp(a, "--duration") == 0)
        return seconds_value(a, v, &o->duration_s);
    return st_error(ST_INVALID_ARGUMENT, "unknown argument '%s'", a);
}

typedef int (*tool_flag)(cli *c, const char *a, const char *v);

/* --monkey POLICY and --monkey-OPTION VALUE (the options of strata chaos). */
static int monkey_flag(cli *c, const char *a, const char *v)
{
    if (!v)
        return st_error(ST_INVALID_ARGUMENT, "%s needs a value", a);
    int rc;
    if (strcmp(a, "--monkey") == 0) {
        rc = chaos_opt_set(&c->chaos, "policy", v);
        c->monkey = rc == ST_OK;
        return rc;
    }
    if (strncmp(a, "--monkey-", 9) != 0 || (rc = chaos_opt_set(&c->chaos, a + 9, v)) == ST_NOT_FOUND)
        return st_error(ST_INVALID_ARGUMENT, "unknown argument '%s'", a);
    return rc;
}

/* --dir D: the "quorum" and "parent" lines of D/cluster.state (docs/cluster.md). */
static int read_state(cli *c)
{
    char path[1024], line[512], word[64], val[256];
    snprintf(path, sizeof(path), "%s/cluster.state", c->dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return st_error(ST_NOT_FOUND, "no local cluster in %s (%s: %s)", c->dir, path,
                        strerror(errno));
    while (fgets(line, sizeof(line), f)) {
        if (sscanf(line, "%63s %255s", word, val) != 2)
            continue;
        if (strcmp(word, "quorum") == 0)
            snprintf(c->state_quorum, sizeof(c->state_quorum), "%s", val);
        else if (strcmp(word, "parent") == 0)
            snprintf(c->state_parent, sizeof(c->state_parent), "%s", val);
    }
    fclose(f);
    if (!c->state_quorum[0])
        return st_error(ST_CORRUPTION, "%s names no quorum", path);
    c->quorum = c->state_quorum;
    c->parent = c->state_parent[0] ? c->state_parent : NULL;
    return ST_OK;
}

/* Parses argv[first..]; ST_INVALID_ARGUMENT for a usage error (message set). */
static int parse(cli *c, int argc, char **argv, int first, tool_flag tool)
{
    for (int i = first; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool used = false;
        int rc = common_flag(c, a, v, &i, &used);
        if (rc != ST_OK)
            return rc;
        if (used)
            continue;
        if (strncmp(a, "--monkey", 8) == 0 && (tool == generate_flag || tool == acid_flag)) {
            if ((rc = monkey_flag(c, a, v)) != ST_OK)
                return rc;
            i++;
            continue;
        }
        if (strncmp(a, "--", 2) != 0)
            return st_error(ST_INVALID_ARGUMENT, "unknown argument '%s'", a);
        if ((rc = tool(c, a, v)) != ST_OK)
            return rc;
        i++;
    }
    if ((c->dir != NULL) + (c->quorum != NULL) != 1)
        return st_error(ST_INVALID_ARGUMENT, "give one of --dir D and --zk.quorum Q");
    if (c->parent && !c->quorum)
        return st_error(ST_INVALID_ARGUMENT, "--zk.parent goes with --zk.quorum");
    bool monkey_opts = c->chaos.policy || c->chaos.duration_ms || c->chaos.actions ||
                       c->chaos.kinds || c->chaos.period_ms || c->chaos.control;
    if (monkey_opts && !c->monkey)
        return st_error(ST_INVALID_ARGUMENT, "the --monkey-* options go with --monkey POLICY");
    return ST_OK;
}

/* ---- reports ---- */

static void print_errors(FILE *out, const uint64_t *errors)
{
    uint64_t total = 0;
    for (int c = 0; c < VSTATS_CODES; c++)
        total += errors[c];
    fprintf(out, "errors: %" PRIu64, total);
    const char *sep = " (";
    for (int c = 1; c < VSTATS_CODES; c++)
        if (errors[c]) {
            fprintf(out, "%s%s %" PRIu64, sep, strata_code_name((strata_code)c), errors[c]);
            sep = ", ";
        }
    fprintf(out, "%s\n", total ? ")" : "");
}

static void json_errors(json_writer *w, const uint64_t *errors)
{
    json_key(w, "errors");
    json_object_begin(w);
    for (int c = 1; c < VSTATS_CODES; c++)
        if (errors[c]) {
            json_key(w, strata_code_name((strata_code)c));
            json_u64(w, errors[c]);
        }
    json_object_end(w);
}

static void json_print(buf_t *b, json_writer *w)
{
    if (json_finish(w) == ST_OK) {
        fwrite(b->data, 1, b->len, stdout);
        fputc('\n', stdout);
    } else {
        fprintf(stderr, "strata verify: out of memory for the JSON report\n");
    }
    buf_free(b);
}

static double rel_s(uint64_t t, uint64_t start)
{
    return t > start ? (double)(t - start) / 1e9 : 0;
}

static void gen_text(const cli *c, vll_run *r, const vll_gen_result *g)
{
    printf("linkedlist generate: table %s, %d loaders, lists of %d x %d nodes\n", c->ll.table,
           c->ll.loaders, c->ll.wrap, c->ll.width);
    for (size_t i = 0; i < vll_generate_loaders(r); i++) {
        vll_loader_result l;
        vll_generate_loader(r, i, &l);
        uint64_t err = 0;
        for (int k = 0; k < VSTATS_CODES; k++)
            err += l.errors[k];
        printf("loader %zu: %" PRIu64 " nodes, %" PRIu64 " lists, %" PRIu64 " calls, %" PRIu64
               " errors, %" PRIu64 " retries, longest stall %.1f ms at %.3f s%s\n",
               i, l.nodes, l.lists, l.calls, err, l.retries, (double)l.longest_stall_ns / 1e6,
               rel_s(l.longest_stall_at_ns, g->start_ns), l.failed ? ", FAILED inside a list" : "");
    }
    printf("nodes written: %" PRIu64 " in %" PRIu64 " closed lists (%.2f s)\n", g->total.nodes,
           g->total.lists, rel_s(g->stop_ns, g->start_ns));
    printf("expected: %" PRIu64 " (REFERENCED added by this run)\n", g->expected);
    printf("calls: %" PRIu64 "\n", g->total.calls);
    print_errors(stdout, g->total.errors);
    printf("retries: %" PRIu64 "\n", g->total.retries);
    printf("longest stall: %.1f ms\n", (double)g->total.longest_stall_ns / 1e6);
}

static void monkey_json(json_writer *w, chaos_monkey *m, const chaos_load *load);

static void gen_json(const cli *c, vll_run *r, const vll_gen_result *g, chaos_monkey *m,
                     const chaos_load *load)
{
    buf_t b = {0};
    json_writer w;
    json_init(&w, &b);
    json_object_begin(&w);
    json_key(&w, "verifier");
    json_string(&w, "linkedlist generate");
    json_key(&w, "table");
    json_string(&w, c->ll.table);
    json_key(&w, "width");
    json_i64(&w, c->ll.width);
    json_key(&w, "wrap");
    json_i64(&w, c->ll.wrap);
    json_key(&w, "nodes");
    json_u64(&w, g->total.nodes);
    json_key(&w, "lists");
    json_u64(&w, g->total.lists);
    json_key(&w, "expected");
    json_u64(&w, g->expected);
    json_key(&w, "runtime_s");
    json_double(&w, rel_s(g->stop_ns, g->start_ns));
    json_key(&w, "calls");
    json_u64(&w, g->total.calls);
    json_errors(&w, g->total.errors);
    json_key(&w, "retries");
    json_u64(&w, g->total.retries);
    json_key(&w, "longest_stall_ms");
    json_double(&w, (double)g->total.longest_stall_ns / 1e6);
    json_key(&w, "failed");
    json_bool(&w, g->failed);
    json_key(&w, "error");
    json_string(&w, g->error[0] ? g->error : NULL);
    json_key(&w, "loaders");
    json_array_begin(&w);
    for (size_t i = 0; i < vll_generate_loaders(r); i++) {
        vll_loader_result l;
        vll_generate_loader(r, i, &l);
        json_object_begin(&w);
        json_key(&w, "nodes");
        json_u64(&w, l.nodes);
        json_key(&w, "lists");
        json_u64(&w, l.lists);
        json_key(&w, "calls");
        json_u64(&w, l.calls);
        json_errors(&w, l.errors);
        json_key(&w, "retries");
        json_u64(&w, l.retries);
        json_key(&w, "longest_stall_ms");
        json_double(&w, (double)l.longest_stall_ns / 1e6);
        json_key(&w, "longest_stall_at_s");
        json_double(&w, rel_s(l.longest_stall_at_ns, g->start_ns));
        json_key(&w, "failed");
        json_bool(&w, l.failed);
        json_object_end(&w);
    }
    json_array_end(&w);
    monkey_json(&w, m, load);
    json_object_end(&w);
    json_print(&b, &w);
}

/* ---- the monkey beside a load ---- */

/* Checks and completes the monkey's options for a load of load_s seconds (0: none). */
static int monkey_prepare(cli *c, double load_s)
{
    if (!c->monkey)
        return ST_OK;
    c->chaos.dir = c->dir;
    c->chaos.zk_quorum = c->dir ? NULL : c->quorum;
    c->chaos.zk_parent = c->parent;
    if (!c->chaos.duration_ms && !c->chaos.actions) {
        if (load_s <= 0)
            return st_error(ST_INVALID_ARGUMENT,
                            "--monkey needs --duration, --monkey-duration or --monkey-actions");
        c->chaos.duration_ms = (int)(load_s * 1000);
    }
    if (!c->chaos.control && !c->dir)
        return st_error(ST_INVALID_ARGUMENT,
                        "--monkey with --zk.quorum needs --monkey-control docker|script:PATH");
    /* The client's warnings (refused connections while a server is down) are the
     * monkey's doing; STRATA_LOG_LEVEL still asks for them. */
    if (!getenv("STRATA_LOG_LEVEL"))
        strata_set_log_level(STRATA_LOG_ERROR);
    return ST_OK;
}

/* The monkey's events and the failed count (after chaos_stop). */
static size_t monkey_failed(chaos_monkey *m)
{
    const chaos_event *ev = NULL;
    size_t n = m ? chaos_events(m, &ev) : 0, failed = 0;
    for (size_t i = 0; i < n; i++)
        failed += ev[i].failed;
    return failed;
}

static void monkey_text(chaos_monkey *m, const chaos_load *load)
{
    const chaos_event *ev = NULL;
    size_t n = chaos_events(m, &ev);
    printf("monkey: seed %" PRIu64 "\n", chaos_seed(m));
    chaos_summary(stdout, ev, n, false);
    chaos_report_text(stdout, ev, n, load);
}

static void monkey_json(json_writer *w, chaos_monkey *m, const chaos_load *load)
{
    if (!m)
        return;
    const chaos_event *ev = NULL;
    size_t n = chaos_events(m, &ev);
    json_key(w, "monkey");
    chaos_report_json(w, ev, n, load);
    json_key(w, "monkey_seed");
    json_u64(w, chaos_seed(m));
}

/* Waits until the monkey ended by its bounds (its last action restored) and load_s
 * seconds passed since now. */
static void monkey_wait(chaos_monkey *m, double load_s)
{
    uint64_t end = clock_mono_ns() + (uint64_t)(load_s * 1e9);
    while (!chaos_finished(m) || clock_mono_ns() < end)
        clock_sleep_ms(50);
    chaos_wait(m);
}

/* Starts the monkey beside a running load; on failure the caller stops the load. */
static int monkey_start(cli *c, chaos_monkey **m)
{
    *m = NULL;
    return c->monkey ? chaos_start(&c->chaos, m) : ST_OK;
}

static int run_generate(cli *c)
{
    vll_run *r = NULL;
    chaos_monkey *m = NULL;
    if (c->ll.duration_s > 0 && !c->iterations_set)
        c->ll.iterations = 0;
    int rc = monkey_prepare(c, c->ll.duration_s);
    if (rc != ST_OK) {
        fprintf(stderr, "%s: %s\n", c->prog, st_errmsg());
        return EXIT_USAGE;
    }
    /* With a monkey the load runs until the monkey's last action restored the cluster
     * (and at least --duration), so every fault's stall is measured on a running load. */
    double load_s = c->ll.duration_s;
    bool until_monkey = c->monkey && !c->iterations_set;
    if (until_monkey) {
        c->ll.duration_s = 0;
        c->ll.iterations = 0;
    }
    rc = vll_generate_start(&c->ll, &r);
    if (rc == ST_OK && (rc = monkey_start(c, &m)) != ST_OK) {
        fprintf(stderr, "%s: %s\n", c->prog, st_errmsg());
        vll_generate_stop(r);
        vll_generate_free(r);
        return EXIT_NOT_RUN;
    }
    if (rc != ST_OK) {
        fprintf(stderr, "%s: %s\n", c->prog, st_errmsg());
        return EXIT_NOT_RUN;
    }
    if (until_monkey) {
        monkey_wait(m, load_s);
        vll_generate_stop(r);
    } else {
        vll_generate_wait(r);
        if (m)
            chaos_stop(m); /* after the action under way restored the cluster */
    }
    vll_gen_result g;
    vll_generate_result(r, &g);
    const vstats_thread *threads[VLL_MAX_LOADERS];
    chaos_load load = {threads, vll_generate_loaders(r)};
    for (size_t i = 0; i < load.n; i++)
        threads[i] = vll_generate_thread(r, i);
    if (c->json) {
        gen_json(c, r, &g, m, &load);
    } else {
        gen_text(c, r, &g);
        if (m)
            monkey_text(m, &load);
    }
    if (g.failed)
        fprintf(stderr, "%s: a loader stopped inside a list (left open): %s\n", c->prog, g.error);
    size_t failed = monkey_failed(m);
    if (failed)
        fprintf(stderr, "%s: %zu monkey action(s) did not recover or settle\n", c->prog, failed);
    chaos_free(m);
    vll_generate_free(r);
    return g.failed || failed ? EXIT_FAILED : EXIT_PASS;
}

static void key_json(json_writer *w, const char *name, const vll_key *k)
{
    char hex[2 * VLL_KEY_LEN + 1];
    vll_key_hex(k, hex);
    json_key(w, name);
    json_string(w, hex);
}

static void verify_json(const cli *c, const vll_verify_result *v, bool passed)
{
    buf_t b = {0};
    json_writer w;
    json_init(&w, &b);
    json_object_begin(&w);
    json_key(&w, "verifier");
    json_string(&w, "linkedlist verify");
    json_key(&w, "table");
    json_string(&w, c->ll.table);
    json_key(&w, "REFERENCED");
    json_u64(&w, v->referenced);
    json_key(&w, "UNREFERENCED");
    json_u64(&w, v->unreferenced);
    json_key(&w, "UNDEFINED");
    json_u64(&w, v->undefined);
    json_key(&w, "EXTRAREFERENCES");
    json_u64(&w, v->extra_references);
    json_key(&w, "rows");
    json_u64(&w, v->rows);
    json_key(&w, "no_prev");
    json_u64(&w, v->no_prev);
    json_key(&w, "foreign_rows");
    json_u64(&w, v->foreign_rows);
    json_key(&w, "expected");
    if (c->expected >= 0)
        json_i64(&w, c->expected);
    else
        json_null(&w);
    json_key(&w, "scan_s");
    json_double(&w, v->scan_s);
    json_key(&w, "undefined_examples");
    json_array_begin(&w);
    for (size_t i = 0; i < v->n_undefined_ex; i++) {
        json_object_begin(&w);
        key_json(&w, "key", &v->undefined_ex[i].to);
        key_json(&w, "referenced_by", &v->undefined_ex[i].from);
        json_object_end(&w);
    }
    json_array_end(&w);
    json_key(&w, "unreferenced_examples");
    json_array_begin(&w);
    for (size_t i = 0; i < v->n_unreferenced_ex; i++) {
        char hex[2 * VLL_KEY_LEN + 1];
        vll_key_hex(&v->unreferenced_ex[i], hex);
        json_string(&w, hex);
    }
    json_array_end(&w);
    json_key(&w, "passed");
    json_bool(&w, passed);
    json_object_end(&w);
    json_print(&b, &w);
}

static void verify_text(const cli *c, const vll_verify_result *v, bool passed)
{
    char a[2 * VLL_KEY_LEN + 1], b[2 * VLL_KEY_LEN + 1];
    for (size_t i = 0; i < v->n_undefined_ex; i++) {
        vll_key_hex(&v->undefined_ex[i].to, a);
        vll_key_hex(&v->undefined_ex[i].from, b);
        printf("UNDEFINED %s referenced by %s\n", a, b);
    }
    for (size_t i = 0; i < v->n_unreferenced_ex; i++) {
        vll_key_hex(&v->unreferenced_ex[i], a);
        printf("UNREFERENCED %s\n", a);
    }
    printf("REFERENCED=%" PRIu64 "\nUNREFERENCED=%" PRIu64 "\nUNDEFINED=%" PRIu64
           "\nEXTRAREFERENCES=%" PRIu64 "\n",
           v->referenced, v->unreferenced, v->undefined, v->extra_references);
    printf("rows: %" PRIu64 " scanned in %.2f s (%" PRIu64 " without prev, %" PRIu64
           " not nodes)\n",
           v->rows, v->scan_s, v->no_prev, v->foreign_rows);
    if (c->expected >= 0 && v->referenced != (uint64_t)c->expected)
        printf("expected REFERENCED=%" PRId64 ", found %" PRIu64 "\n", c->expected, v->referenced);
    printf("%s\n", passed ? "verify: OK" : "verify: FAILED");
}

static int run_verify(cli *c)
{
    vll_verify_result v;
    if (vll_verify(&c->ll, &v) != ST_OK) {
        fprintf(stderr, "%s: %s\n", c->prog, st_errmsg());
        return EXIT_NOT_RUN;
    }
    bool passed = vll_verify_passed(&v, c->expected);
    if (c->json)
        verify_json(c, &v, passed);
    else
        verify_text(c, &v, passed);
    return passed ? EXIT_PASS : EXIT_FAILED;
}

static const char *walk_end_name(vll_walk_end e)
{
    static const char *const names[] = {"closed", "undefined", "no_prev", "revisit", "max"};
    return (unsigned)e < sizeof(names) / sizeof(names[0]) ? names[e] : "unknown";
}

static int run_walk(cli *c)
{
    vll_key start;
    vll_walk_result w;
    if (c->start_hex && hex_key(c->start_hex, &start) != ST_OK) {
        fprintf(stderr, "%s: %s (strata verify --help lists the options)\n", c->prog, st_errmsg());
        return EXIT_USAGE;
    }
    int rc = vll_walk(&c->ll, c->start_hex ? start.b : NULL, c->start_hex ? start.len : 0, c->max,
                      c->json ? NULL : stdout, &w);
    if (rc != ST_OK) {
        fprintf(stderr, "%s: %s\n", c->prog, st_errmsg());
        return EXIT_NOT_RUN;
    }
    bool passed = w.end == VLL_WALK_CLOSED || w.end == VLL_WALK_MAX;
    if (c->json) {
        buf_t b = {0};
        json_writer j;
        json_init(&j, &b);
        json_object_begin(&j);
        json_key(&j, "verifier");
        json_string(&j, "linkedlist walk");
        key_json(&j, "start", &w.start);
        json_key(&j, "end");
        json_string(&j, walk_end_name(w.end));
        json_key(&j, "steps");
        json_u64(&j, w.steps);
        if (w.end != VLL_WALK_CLOSED)
            key_json(&j, "at", &w.at);
        if (w.end == VLL_WALK_UNDEFINED || w.end == VLL_WALK_REVISIT)
            key_json(&j, "references", &w.missing);
        json_key(&j, "passed");
        json_bool(&j, passed);
        json_object_end(&j);
        json_print(&b, &j);
    }
    return passed ? EXIT_PASS : EXIT_FAILED;
}

/* ---- acid ---- */

static void acid_text(vacid_run *r, const vacid_result *res, bool passed)
{
    for (size_t i = 0; vacid_violation(r, i); i++)
        printf("%s\n", vacid_violation(r, i));
    for (size_t i = 0; i < vacid_threads(r); i++) {
        const vstats_thread *t = vacid_thread(r, i);
        printf("%s: %" PRIu64 " ok, %" PRIu64 " errors, longest stall %.1f ms\n", t->name,
               vstats_ok_count(t), vstats_error_total(t),
               (double)vstats_longest_gap(t, NULL) / 1e6);
    }
    printf("writes: %" PRIu64 "\ngets: %" PRIu64 "\nscans: %" PRIu64 " (%" PRIu64
           " rows)\nincrements: %" PRIu64 "\n",
           res->writes, res->gets, res->scans, res->scanned_rows, res->increments);
    printf("torn rows: %" PRIu64 " in gets, %" PRIu64 " in scans\n", res->torn_gets,
           res->torn_scans);
    printf("counter reads: %" PRIu64 ", decreases: %" PRIu64 "\n", res->counter_reads,
           res->counter_decreases);
    print_errors(stdout, res->errors);
    printf("retries: %" PRIu64 "\n", res->retries);
    printf("%s\n", passed ? "acid: OK" : "acid: FAILED");
}

static void acid_json(const cli *c, vacid_run *r, const vacid_result *res, bool passed,
                      chaos_monkey *m, const chaos_load *load)
{
    buf_t b = {0};
    json_writer w;
    json_init(&w, &b);
    json_object_begin(&w);
    json_key(&w, "verifier");
    json_string(&w, "acid");
    json_key(&w, "table");
    json_string(&w, c->acid.table);
    json_key(&w, "runtime_s");
    json_double(&w, rel_s(res->stop_ns, res->start_ns));
    const struct {
        const char *k;
        uint64_t v;
    } f[] = {{"writes", res->writes},
             {"gets", res->gets},
             {"scans", res->scans},
             {"scanned_rows", res->scanned_rows},
             {"increments", res->increments},
             {"torn_gets", res->torn_gets},
             {"torn_scans", res->torn_scans},
             {"counter_reads", res->counter_reads},
             {"counter_decreases", res->counter_decreases},
             {"retries", res->retries},
             {"fatal", res->fatal}};
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
        json_key(&w, f[i].k);
        json_u64(&w, f[i].v);
    }
    json_errors(&w, res->errors);
    json_key(&w, "violations");
    json_array_begin(&w);
    for (size_t i = 0; vacid_violation(r, i); i++)
        json_string(&w, vacid_violation(r, i));
    json_array_end(&w);
    json_key(&w, "threads");
    json_array_begin(&w);
    for (size_t i = 0; i < vacid_threads(r); i++) {
        const vstats_thread *t = vacid_thread(r, i);
        json_object_begin(&w);
        json_key(&w, "name");
        json_string(&w, t->name);
        json_key(&w, "ok");
        json_u64(&w, vstats_ok_count(t));
        json_errors(&w, t->errors);
        json_key(&w, "longest_stall_ms");
        json_double(&w, (double)vstats_longest_gap(t, NULL) / 1e6);
        json_object_end(&w);
    }
    json_array_end(&w);
    monkey_json(&w, m, load);
    json_key(&w, "passed");
    json_bool(&w, passed);
    json_object_end(&w);
    json_print(&b, &w);
}

static int run_acid(cli *c)
{
    vacid_run *r = NULL;
    chaos_monkey *m = NULL;
    if (monkey_prepare(c, c->acid.duration_s) != ST_OK) {
        fprintf(stderr, "%s: %s\n", c->prog, st_errmsg());
        return EXIT_USAGE;
    }
    double load_s = c->acid.duration_s;
    if (c->monkey)
        c->acid.duration_s = 30 * 86400.0; /* ended by vacid_stop once the monkey is done */
    if (vacid_start(&c->acid, &r) != ST_OK) {
        fprintf(stderr, "%s: %s\n", c->prog, st_errmsg());
        return EXIT_NOT_RUN;
    }
    if (monkey_start(c, &m) != ST_OK) {
        fprintf(stderr, "%s: %s\n", c->prog, st_errmsg());
        vacid_stop(r);
        vacid_free(r);
        return EXIT_NOT_RUN;
    }
    if (m) {
        monkey_wait(m, load_s);
        vacid_stop(r);
    } else {
        vacid_wait(r);
    }
    vacid_result res;
    vacid_result_get(r, &res);
    bool passed = vacid_passed(&res);
    /* The stalls that count: the threads that write. */
    const vstats_thread *threads[4 * VACID_MAX_THREADS];
    chaos_load load = {threads, 0};
    for (size_t i = 0; i < vacid_threads(r) && load.n < sizeof(threads) / sizeof(threads[0]); i++) {
        const vstats_thread *t = vacid_thread(r, i);
        if (strncmp(t->name, "writer", 6) == 0 || strncmp(t->name, "incrementer", 11) == 0)
            threads[load.n++] = t;
    }
    if (c->json) {
        acid_json(c, r, &res, passed, m, &load);
    } else {
        acid_text(r, &res, passed);
        if (m)
            monkey_text(m, &load);
    }
    size_t failed = monkey_failed(m);
    if (failed)
        fprintf(stderr, "%s: %zu monkey action(s) did not recover or settle\n", c->prog, failed);
    chaos_free(m);
    vacid_free(r);
    if (!passed || failed)
        return EXIT_FAILED;
    if (res.fatal) {
        fprintf(stderr, "%s: %" PRIu64 " call(s) failed with an error no retry changes\n", c->prog,
                res.fatal);
        return EXIT_NOT_RUN;
    }
    return EXIT_PASS;
}

/* ---- dispatch ---- */

static bool wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0 ||
            strcmp(argv[i], "help") == 0)
            return true;
    return false;
}

/* Fills the options the parsed flags name. */
static void finish(cli *c)
{
    c->ll.quorum = c->acid.quorum = c->quorum;
    c->ll.parent = c->acid.parent = c->parent;
    c->ll.table = c->table ? c->table : VLL_DEFAULT_TABLE;
    c->acid.table = c->table ? c->table : VACID_DEFAULT_TABLE;
}

int verify_main(int argc, char **argv)
{
    cli c;
    memset(&c, 0, sizeof(c));
    c.expected = -1;
    vll_opts_default(&c.ll);
    vacid_opts_default(&c.acid);
    if (argc < 2 || wants_help(argc, argv)) {
        (argc < 2 ? usage : help)(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_PASS;
    }
    const char *tool = argv[1], *mode = argc > 2 ? argv[2] : "";
    tool_flag flags = NULL;
    int (*run)(cli *) = NULL;
    int first = 3;
    if (strcmp(tool, "acid") == 0) {
        c.prog = "strata verify acid";
        flags = acid_flag;
        run = run_acid;
        first = 2;
    } else if (strcmp(tool, "linkedlist") == 0 && strcmp(mode, "generate") == 0) {
        c.prog = "strata verify linkedlist generate";
        flags = generate_flag;
        run = run_generate;
    } else if (strcmp(tool, "linkedlist") == 0 && strcmp(mode, "verify") == 0) {
        c.prog = "strata verify linkedlist verify";
        flags = verify_flag;
        run = run_verify;
    } else if (strcmp(tool, "linkedlist") == 0 && strcmp(mode, "walk") == 0) {
        c.prog = "strata verify linkedlist walk";
        flags = walk_flag;
        run = run_walk;
    } else {
        fprintf(stderr, "strata verify: unknown verifier '%s%s%s' (strata verify --help)\n", tool,
                strcmp(tool, "linkedlist") == 0 ? " " : "",
                strcmp(tool, "linkedlist") == 0 ? mode : "");
        return EXIT_USAGE;
    }
    int rc = parse(&c, argc, argv, first, flags);
    if (rc == ST_OK && c.dir)
        rc = read_state(&c);
    if (rc != ST_OK) {
        bool use = rc == ST_INVALID_ARGUMENT;
        fprintf(stderr, "%s: %s%s\n", c.prog, st_errmsg(),
                use ? " (strata verify --help lists the options)" : "");
        return use ? EXIT_USAGE : EXIT_NOT_RUN;
    }
    finish(&c);
    return run(&c);
}
