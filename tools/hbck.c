/*
 * hbck.c - `strata hbck` (docs/hbck.md): HBase's hbck report and HBCK2's repairs, through
 * the active master (MasterService.Hbck*, client/admin_hbck.c).
 *
 *   strata hbck [--dir D | --zk.quorum Q [--zk.parent P]] [--root PATH] [--json]
 *               [--stuck-ms N] [TABLE...]                            the report
 *   strata hbck [connection] assigns REGION... | unassigns REGION...
 *   strata hbck [connection] fixMeta [--dry-run] [TABLE...]
 *   strata hbck [connection] setRegionState REGION STATE [--clear-server]
 *   strata hbck [connection] setRegionState REGION --remove-row
 *   strata hbck [connection] setTableState TABLE STATE
 *   strata hbck [connection] bypass PROCID [--override]
 *   strata hbck [connection] scheduleRecoveries SERVER...
 *   strata hbck [connection] filesystem --fix [TABLE...]
 *
 * Exit status: the report 0 consistent, 1 inconsistent, 2 could not run; a repair 0 done,
 * 1 refused or failed, 2 could not run (usage, no cluster).
 * Thread-safety: a program's main thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/admin_rpc.h"
#include "common/status.h"
#include "master/hbck.h"
#include "tools/cluster_internal.h"
#include "tools/tools.h"

typedef struct hbck_opts {
    const char *dir, *quorum, *parent, *root;
    bool json, dry_run, override, clear_server, remove_row, fix;
    uint64_t stuck_ms;
    const char *cmd; /* NULL: the report */
    const char **args;
    size_t nargs;
} hbck_opts;

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: strata hbck [--dir D | --zk.quorum Q [--zk.parent P]] [--root PATH] [--json]\n"
        "                   [--stuck-ms N] [TABLE...]\n"
        "       strata hbck [connection] COMMAND ARGS\n"
        "commands (HBCK2's):\n"
        "  assigns REGION...                  open regions (after closing stale meta state)\n"
        "  unassigns REGION...                close regions\n"
        "  fixMeta [--dry-run] [TABLE...]     mend meta against the root directory\n"
        "  setRegionState REGION STATE [--clear-server] | REGION --remove-row\n"
        "  setTableState TABLE STATE          ENABLED, DISABLED, ENABLING, DISABLING\n"
        "  bypass PROCID [--override]         end a stuck procedure\n"
        "  scheduleRecoveries SERVER...       recover a dead server's WALs\n"
        "  filesystem --fix [TABLE...]        sideline lingering reference files\n"
        "exit: 0 consistent / done, 1 inconsistent / refused, 2 could not run (docs/hbck.md)\n");
}

static const char *flag_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) == 0 && argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (strcmp(argv[*i], name) == 0 && *i + 1 < argc)
        return argv[++*i];
    return NULL;
}

static bool is_command(const char *s)
{
    static const char *const cmds[] = {
        "assigns", "unassigns",          "fixMeta",   "setRegionState", "setTableState",
        "bypass",  "scheduleRecoveries", "filesystem"};
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
        if (strcmp(s, cmds[i]) == 0)
            return true;
    return false;
}

/* 0 parsed, 1 help shown, 2 bad usage (said). */
static int parse(int argc, char **argv, hbck_opts *o)
{
    o->args = calloc((size_t)argc + 1, sizeof(*o->args));
    if (!o->args)
        return 2;
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 1;
        } else if ((v = flag_value(argc, argv, &i, "--dir")))
            o->dir = v;
        else if ((v = flag_value(argc, argv, &i, "--zk.quorum")))
            o->quorum = v;
        else if ((v = flag_value(argc, argv, &i, "--zk.parent")))
            o->parent = v;
        else if ((v = flag_value(argc, argv, &i, "--root")))
            o->root = v;
        else if ((v = flag_value(argc, argv, &i, "--stuck-ms")))
            o->stuck_ms = strtoull(v, NULL, 10);
        else if (strcmp(argv[i], "--json") == 0)
            o->json = true;
        else if (strcmp(argv[i], "--dry-run") == 0)
            o->dry_run = true;
        else if (strcmp(argv[i], "--override") == 0)
            o->override = true;
        else if (strcmp(argv[i], "--clear-server") == 0)
            o->clear_server = true;
        else if (strcmp(argv[i], "--remove-row") == 0)
            o->remove_row = true;
        else if (strcmp(argv[i], "--fix") == 0)
            o->fix = true;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "strata hbck: unknown option %s\n", argv[i]);
            usage(stderr);
            return 2;
        } else if (!o->cmd && o->nargs == 0 && is_command(argv[i]))
            o->cmd = argv[i];
        else
            o->args[o->nargs++] = argv[i];
    }
    if (!o->quorum)
        o->quorum = getenv("STRATA_ZK_QUORUM");
    if (!o->dir && !o->quorum) {
        fprintf(stderr, "strata hbck: --dir D or --zk.quorum Q is needed\n");
        return 2;
    }
    return 0;
}

static int open_admin(const hbck_opts *o, admin_rpc **a)
{
    if (o->dir) {
        cluster_state s;
        memset(&s, 0, sizeof(s));
        int rc = cluster_state_read(o->dir, &s);
        if (rc == ST_OK)
            rc = admin_rpc_open(s.quorum, s.parent, a);
        cluster_state_clear(&s);
        return rc;
    }
    return admin_rpc_open(o->quorum, o->parent, a);
}

/* `--root PATH`: the region directories and references of PATH against meta's rows. */
static int local_fs_findings(const hbck_opts *o, const Strata__Master__HbckReportResponse *r,
                             hbck_report *rep)
{
    meta_region *rows = calloc(r->n_meta_region + 1, sizeof(*rows));
    hbck_region *regs = calloc(r->n_meta_region + 1, sizeof(*regs));
    int rc = rows && regs ? ST_OK : st_error(ST_NOMEM, "out of memory");
    for (size_t i = 0; rc == ST_OK && i < r->n_meta_region; i++) {
        const Strata__Admin__RegionInfo *ri = r->meta_region[i]->region;
        snprintf(rows[i].table, sizeof(rows[i].table), "%s", ri->table);
        snprintf(rows[i].encoded_name, sizeof(rows[i].encoded_name), "%s", ri->encoded_name);
        rows[i].offline = r->meta_region[i]->offline;
        rows[i].split = r->meta_region[i]->split;
        rows[i].state = META_OPEN;
        regs[i].mr = &rows[i];
    }
    const char *const *tables = (const char *const *)o->args;
    hbck_fs fs;
    if (rc == ST_OK)
        rc = hbck_scan_root(o->root, tables, o->nargs, &fs);
    if (rc == ST_OK) {
        hbck_input in = {.regions = regs,
                         .nregions = r->n_meta_region,
                         .fs = &fs,
                         .refs_targets_only = true,
                         .root = o->root};
        if (o->nargs == 0)
            fs.nwals = 0; /* WAL dirs need the live servers: the master's report has them */
        hbck_check_dirs(&in, rep);
        hbck_fs_free(&fs);
    }
    free(rows);
    free(regs);
    return rc;
}

static int report(admin_rpc *a, const hbck_opts *o)
{
    Strata__Master__HbckReportResponse *r = NULL;
    int rc = admin_rpc_hbck_report(a, o->args, o->nargs, o->stuck_ms, o->root != NULL, &r);
    if (rc != ST_OK) {
        fprintf(stderr, "strata hbck: %s\n", st_errmsg());
        return 2;
    }
    hbck_report local = {0};
    Strata__Master__HbckFinding *xf = NULL, **xp = NULL;
    if (o->root) {
        rc = local_fs_findings(o, r, &local);
        xf = calloc(local.n + 1, sizeof(*xf));
        xp = calloc(local.n + 1, sizeof(*xp));
        if (rc == ST_OK && (!xf || !xp))
            rc = st_error(ST_NOMEM, "out of memory");
        for (size_t i = 0; rc == ST_OK && i < local.n; i++) {
            hbck_finding *f = &local.v[i];
            strata__master__hbck_finding__init(&xf[i]);
            xf[i].kind = (char *)hbck_kind_name(f->kind);
            xf[i].error = f->error;
            xf[i].table = f->table;
            xf[i].region = f->region;
            xf[i].server = f->server;
            xf[i].path = f->path;
            xf[i].detail = f->detail;
            xp[i] = &xf[i];
        }
    }
    char *text = NULL;
    size_t errors = 0;
    if (rc == ST_OK)
        rc = admin_rpc_hbck_format(r, xp, local.n, o->json, &text, &errors);
    if (rc == ST_OK)
        fputs(text, stdout);
    else
        fprintf(stderr, "strata hbck: %s\n", st_errmsg());
    free(text);
    free(xf);
    free(xp);
    hbck_report_free(&local);
    admin_rpc_free_msg(r);
    return rc != ST_OK ? 2 : errors ? 1 : 0;
}

/* Whether the report names region NOT_DEPLOYED while meta has it OPEN. */
static bool stale_open(const Strata__Master__HbckReportResponse *r, const char *region)
{
    for (size_t i = 0; r && i < r->n_finding; i++) {
        const Strata__Master__HbckFinding *f = r->finding[i];
        if (f->error && f->region && strcmp(f->region, region) == 0 &&
            strcmp(f->kind, "NOT_DEPLOYED") == 0 && f->detail && strstr(f->detail, "(OPEN in"))
            return true;
    }
    return false;
}

static int assigns(admin_rpc *a, const hbck_opts *o, bool open)
{
    Strata__Master__HbckReportResponse *r = NULL;
    if (open && admin_rpc_hbck_report(a, NULL, 0, 0, true, &r) != ST_OK)
        r = NULL; /* then plain assigns */
    int status = 0;
    for (size_t i = 0; i < o->nargs; i++) {
        int rc = ST_OK;
        if (open && stale_open(r, o->args[i]))
            rc = admin_rpc_hbck_set_region_state(a, o->args[i], "CLOSED", true, false, NULL);
        if (rc == ST_OK)
            rc = open ? admin_rpc_assign(a, o->args[i], NULL) : admin_rpc_unassign(a, o->args[i]);
        if (rc == ST_OK)
            printf("%s %s\n", open ? "assigned" : "unassigned", o->args[i]);
        else {
            fprintf(stderr, "strata hbck: %s %s: %s\n", o->cmd, o->args[i], st_errmsg());
            status = 1;
        }
    }
    admin_rpc_free_msg(r);
    return status;
}

static int fix_meta(admin_rpc *a, const hbck_opts *o)
{
    Strata__Master__HbckFixMetaResponse *r = NULL;
    int rc = admin_rpc_hbck_fix_meta(a, o->args, o->nargs, o->dry_run, &r);
    if (rc != ST_OK) {
        fprintf(stderr, "strata hbck: fixMeta: %s\n", st_errmsg());
        return 1;
    }
    for (size_t i = 0; i < r->n_done; i++)
        printf("%s%s\n", o->dry_run ? "would: " : "", r->done[i]);
    for (size_t i = 0; i < r->n_refused; i++)
        fprintf(stderr, "refused: %s\n", r->refused[i]);
    if (!r->n_done && !r->n_refused)
        printf("nothing to fix\n");
    int status = r->n_refused ? 1 : 0;
    admin_rpc_free_msg(r);
    return status;
}

static int filesystem_fix(admin_rpc *a, const hbck_opts *o)
{
    if (!o->fix) {
        fprintf(stderr, "strata hbck: filesystem needs --fix (the report shows what it finds)\n");
        return 2;
    }
    Strata__Master__HbckReportResponse *r = NULL;
    int rc = admin_rpc_hbck_report(a, o->args, o->nargs, o->stuck_ms, false, &r);
    const char **paths = rc == ST_OK ? calloc(r->n_finding + 1, sizeof(*paths)) : NULL;
    size_t n = 0;
    for (size_t i = 0; paths && i < r->n_finding; i++)
        if (strcmp(r->finding[i]->kind, "LINGERING_REFERENCE_FILE") == 0 && r->finding[i]->path)
            paths[n++] = r->finding[i]->path;
    Strata__Master__HbckSidelineResponse *s = NULL;
    if (rc == ST_OK && n)
        rc = admin_rpc_hbck_sideline(a, paths, n, &s);
    for (size_t i = 0; s && i < s->n_moved; i++)
        printf("sidelined %s -> %s\n", paths[i], s->moved[i]);
    if (rc == ST_OK && !n)
        printf("no lingering reference files\n");
    if (rc != ST_OK)
        fprintf(stderr, "strata hbck: filesystem --fix: %s\n", st_errmsg());
    free(paths);
    admin_rpc_free_msg(s);
    admin_rpc_free_msg(r);
    return rc == ST_OK ? 0 : 1;
}

static int need_args(const hbck_opts *o, size_t min, size_t max)
{
    if (o->nargs >= min && o->nargs <= max)
        return 0;
    fprintf(stderr, "strata hbck: %s: wrong number of arguments\n", o->cmd);
    usage(stderr);
    return 2;
}

static int run(admin_rpc *a, const hbck_opts *o)
{
    const char *c = o->cmd;
    int rc = ST_OK, u = 0;
    char *prev = NULL;
    if (strcmp(c, "assigns") == 0 || strcmp(c, "unassigns") == 0)
        return (u = need_args(o, 1, SIZE_MAX)) ? u : assigns(a, o, c[0] == 'a');
    if (strcmp(c, "fixMeta") == 0)
        return fix_meta(a, o);
    if (strcmp(c, "filesystem") == 0)
        return filesystem_fix(a, o);
    if (strcmp(c, "setRegionState") == 0) {
        if ((u = need_args(o, o->remove_row ? 1 : 2, o->remove_row ? 1 : 2)))
            return u;
        rc = admin_rpc_hbck_set_region_state(a, o->args[0], o->remove_row ? NULL : o->args[1],
                                             o->clear_server, o->remove_row, &prev);
    } else if (strcmp(c, "setTableState") == 0) {
        if ((u = need_args(o, 2, 2)))
            return u;
        rc = admin_rpc_hbck_set_table_state(a, o->args[0], o->args[1], &prev);
    } else if (strcmp(c, "bypass") == 0) {
        if ((u = need_args(o, 1, 1)))
            return u;
        rc = admin_rpc_hbck_bypass(a, strtoull(o->args[0], NULL, 10), o->override);
    } else if (strcmp(c, "scheduleRecoveries") == 0) {
        if ((u = need_args(o, 1, SIZE_MAX)))
            return u;
        rc = admin_rpc_hbck_schedule_recoveries(a, o->args, o->nargs);
    }
    if (rc != ST_OK) {
        fprintf(stderr, "strata hbck: %s: %s\n", c, st_errmsg());
        return 1;
    }
    if (prev)
        printf("%s: previous state %s\n", o->args[0], prev);
    else
        printf("%s: done\n", c);
    free(prev);
    return 0;
}

int hbck_main(int argc, char **argv)
{
    hbck_opts o;
    memset(&o, 0, sizeof(o));
    int p = parse(argc, argv, &o);
    if (p) {
        free(o.args);
        return p == 1 ? 0 : 2;
    }
    admin_rpc *a = NULL;
    int rc = open_admin(&o, &a);
    if (rc != ST_OK) {
        fprintf(stderr, "strata hbck: %s\n", st_errmsg());
        free(o.args);
        return 2;
    }
    int status = o.cmd ? run(a, &o) : report(a, &o);
    admin_rpc_close(a);
    free(o.args);
    return status;
}
