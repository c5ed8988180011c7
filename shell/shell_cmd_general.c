/*
 * shell_cmd_general.c - the shell's general commands: status ('summary', 'simple',
 * 'detailed', 'tasks', laid out as HBase 2 prints them from GetClusterStatus), version, whoami.
 *
 * Thread-safety: a session belongs to one thread.
 */
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/status.h"
#include "shell/shell_internal.h"

#define MB (1024ull * 1024ull)

/* A server "host,port,startcode" as HBase's status prints it: "host:port startcode". */
static void print_server(shell_session *s, const char *indent, const char *name)
{
    const char *c1 = strchr(name, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
    if (!c2)
        fprintf(s->out, "%s%s\n", indent, name);
    else
        fprintf(s->out, "%s%.*s:%.*s %s\n", indent, (int)(c1 - name), name, (int)(c2 - c1 - 1),
                c1 + 1, c2 + 1);
}

static void print_load(shell_session *s, const strata_server_load_t *l)
{
    fprintf(s->out,
            "        requestsPerSecond=%.1f, numberOfOnlineRegions=%u, numberOfStorefiles=%llu, "
            "storefileSizeMB=%llu, memstoreSizeMB=%llu, readRequestsCount=%llu, "
            "writeRequestsCount=%llu\n",
            strata_server_load_requests_per_second(l), strata_server_load_region_count(l),
            (unsigned long long)strata_server_load_store_files(l),
            (unsigned long long)(strata_server_load_store_file_size(l) / MB),
            (unsigned long long)(strata_server_load_memstore_size(l) / MB),
            (unsigned long long)strata_server_load_read_requests(l),
            (unsigned long long)strata_server_load_write_requests(l));
}

static void print_masters(shell_session *s, const strata_cluster_status_t *r)
{
    size_t n = strata_cluster_status_backup_master_count(r);
    if (strata_cluster_status_active_master(r))
        print_server(s, "active master:  ", strata_cluster_status_active_master(r));
    fprintf(s->out, "%zu backup masters\n", n);
    for (size_t i = 0; i < n; i++)
        if (strata_cluster_status_backup_master(r, i))
            print_server(s, "    ", strata_cluster_status_backup_master(r, i));
}

static void print_dead(shell_session *s, const strata_cluster_status_t *r)
{
    size_t n = strata_cluster_status_dead_server_count(r);
    fprintf(s->out, "%zu dead servers\n", n);
    for (size_t i = 0; i < n; i++)
        fprintf(s->out, "    %s\n", strata_cluster_status_dead_server(r, i));
}

/* One running task as HBase's ServerTask.toString: "<description>: status=<status>,
 * state=RUNNING, startTime=<ms>, completionTime=-1". */
static void print_task(shell_session *s, const char *indent, const char *desc, const char *status,
                       const char *state, uint64_t start)
{
    fprintf(s->out, "%s%s: status=%s, state=%s, startTime=%llu, completionTime=-1\n", indent,
            desc, status, state, (unsigned long long)start);
}

/* status 'tasks': the active master's and each live server's running tasks. */
static void status_tasks(shell_session *s, const strata_cluster_status_t *r)
{
    const char *desc, *st, *state;
    uint64_t start;
    if (strata_cluster_status_active_master(r)) {
        print_server(s, "active master:  ", strata_cluster_status_active_master(r));
        size_t n = strata_cluster_status_master_task_count(r);
        for (size_t i = 0; i < n; i++)
            if (strata_cluster_status_master_task(r, i, &desc, &st, &state, &start) == 0)
                print_task(s, "    ", desc, st, state, start);
        if (!n)
            fprintf(s->out, "    no active tasks\n");
    }
    size_t live = strata_cluster_status_live_server_count(r);
    fprintf(s->out, "%zu live servers\n", live);
    for (size_t i = 0; i < live; i++) {
        const strata_server_load_t *l = strata_cluster_status_live_server(r, i);
        print_server(s, "    ", strata_server_load_name(l));
        size_t n = strata_server_load_task_count(l);
        for (size_t j = 0; j < n; j++)
            if (strata_server_load_task(l, j, &desc, &st, &state, &start) == 0)
                print_task(s, "        ", desc, st, state, start);
        if (!n)
            fprintf(s->out, "        no active tasks\n");
    }
}

static void status_summary(shell_session *s, const strata_cluster_status_t *r)
{
    size_t live = strata_cluster_status_live_server_count(r);
    unsigned long regions = 0;
    for (size_t i = 0; i < live; i++)
        regions += strata_server_load_region_count(strata_cluster_status_live_server(r, i));
    double avg = live ? (double)regions / (double)live : 0.0;
    fprintf(s->out,
            "1 active master, %zu backup masters, %zu servers, %zu dead, %.4f average load\n",
            strata_cluster_status_backup_master_count(r), live,
            strata_cluster_status_dead_server_count(r), avg);
}

static void status_simple(shell_session *s, const strata_cluster_status_t *r)
{
    size_t live = strata_cluster_status_live_server_count(r);
    unsigned long long load = 0, regions = 0;
    print_masters(s, r);
    fprintf(s->out, "%zu live servers\n", live);
    for (size_t i = 0; i < live; i++) {
        const strata_server_load_t *l = strata_cluster_status_live_server(r, i);
        print_server(s, "    ", strata_server_load_name(l));
        print_load(s, l);
        load += (unsigned long long)strata_server_load_requests_per_second(l);
        regions += strata_server_load_region_count(l);
    }
    print_dead(s, r);
    fprintf(s->out, "Aggregate load: %llu, regions: %llu\n", load, regions);
}

/* The region's full name, looked up among the table's regions (fetched once per table
 * into *cache); the encoded name alone if not found. */
static void load_name(shell_session *s, const strata_region_load_t *l, strata_region_list_t **cache,
                      buf_t *name)
{
    const char *table = strata_region_load_table(l), *enc = strata_region_load_encoded_name(l);
    buf_reset(name);
    if (table && (!*cache || !strata_region_list_count(*cache) ||
                  strcmp(strata_region_table(strata_region_list_get(*cache, 0)), table) != 0)) {
        char *err = NULL;
        strata_region_list_destroy(*cache);
        *cache = strata_admin_table_regions(s->admin, table, &err);
        strata_free(err); /* a region that cannot be listed shows by its encoded name */
    }
    for (size_t i = 0; *cache && i < strata_region_list_count(*cache); i++) {
        const strata_region_t *r = strata_region_list_get(*cache, i);
        if (strcmp(strata_region_encoded_name(r), enc) == 0) {
            shell_region_name(r, name);
            return;
        }
    }
    buf_append(name, enc, strlen(enc) + 1);
    name->len--;
}

static void print_region_loads(shell_session *s, const strata_server_load_t *st)
{
    strata_region_list_t *cache = NULL;
    buf_t name = {0};
    for (size_t j = 0; j < strata_server_load_region_load_count(st); j++) {
        const strata_region_load_t *l = strata_server_load_region_load(st, j);
        load_name(s, l, &cache, &name);
        fprintf(s->out, "        \"%s\"\n", name.data ? (char *)name.data : "");
        fprintf(s->out,
                "            numberOfStorefiles=%llu, storefileSizeMB=%llu, memstoreSizeMB=%llu, "
                "readRequestsCount=%llu, writeRequestsCount=%llu\n",
                (unsigned long long)strata_region_load_store_files(l),
                (unsigned long long)(strata_region_load_store_file_size(l) / MB),
                (unsigned long long)(strata_region_load_memstore_size(l) / MB),
                (unsigned long long)strata_region_load_read_requests(l),
                (unsigned long long)strata_region_load_write_requests(l));
    }
    buf_free(&name);
    strata_region_list_destroy(cache);
}

static void status_detailed(shell_session *s, const strata_cluster_status_t *r)
{
    const char *version = strata_cluster_status_version(r);
    size_t n = strata_cluster_status_in_transition_count(r);
    fprintf(s->out, "version %s\n", version ? version : SHELL_VERSION);
    fprintf(s->out, "%zu regionsInTransition\n", n);
    for (size_t i = 0; i < n; i++) {
        const strata_region_t *t = strata_cluster_status_in_transition(r, i);
        fprintf(s->out, "    {%s state=%s, ts=%llu", strata_region_encoded_name(t),
                strata_region_state_name(strata_region_state_of(t)),
                (unsigned long long)strata_cluster_status_in_transition_since_ms(r, i));
        if (strata_region_server(t))
            fprintf(s->out, ", server=%s", strata_region_server(t));
        fprintf(s->out, "}\n");
    }
    print_masters(s, r);
    size_t live = strata_cluster_status_live_server_count(r);
    fprintf(s->out, "%zu live servers\n", live);
    for (size_t i = 0; i < live; i++) {
        const strata_server_load_t *l = strata_cluster_status_live_server(r, i);
        print_server(s, "    ", strata_server_load_name(l));
        print_load(s, l);
        print_region_loads(s, l);
    }
    print_dead(s, r);
}

static int cmd_status(shell_session *s, const shell_value *args)
{
    const shell_value *fmt = NULL;
    strata_admin_t *a = NULL;
    strata_cluster_status_t *r = NULL;
    char *err = NULL;
    int rc = shell_nargs(args, 0, 2);
    if (rc == ST_OK && args->n > 0)
        rc = shell_str_arg(args, 0, "status format", &fmt);
    const char *f = fmt ? fmt->s : "summary";
    if (rc == ST_OK && strcmp(f, "replication") == 0)
        rc = st_error(ST_UNSUPPORTED, "status 'replication' is not supported: Strata has no "
                                      "replication");
    else if (rc == ST_OK && strcmp(f, "summary") && strcmp(f, "simple") && strcmp(f, "detailed") &&
             strcmp(f, "tasks"))
        rc = st_error(ST_INVALID_ARGUMENT,
                      "unknown status format '%s' (use 'summary', 'simple', 'detailed' or "
                      "'tasks')",
                      f);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc == ST_OK) {
        r = strata_admin_cluster_status(a, &err);
        rc = shell_failed(err);
    }
    if (rc == ST_OK && strcmp(f, "summary") == 0)
        status_summary(s, r);
    else if (rc == ST_OK && strcmp(f, "simple") == 0)
        status_simple(s, r);
    else if (rc == ST_OK && strcmp(f, "tasks") == 0)
        status_tasks(s, r);
    else if (rc == ST_OK)
        status_detailed(s, r);
    strata_cluster_status_destroy(r);
    return rc;
}

static int cmd_version(shell_session *s, const shell_value *args)
{
    int rc = shell_nargs(args, 0, 0);
    if (rc == ST_OK)
        fprintf(s->out, "%s, rUnknown, %s\n", SHELL_VERSION, __DATE__);
    return rc;
}

static int cmd_whoami(shell_session *s, const shell_value *args)
{
    int rc = shell_nargs(args, 0, 0);
    if (rc != ST_OK)
        return rc;
    struct passwd *pw = getpwuid(geteuid());
    const char *user = pw ? pw->pw_name : "unknown";
    fprintf(s->out, "%s (auth:SIMPLE)\n    groups: ", user);
    gid_t groups[256];
    int n = 256;
    if (pw && getgrouplist(user, pw->pw_gid, groups, &n) < 0)
        n = 0;
    for (int i = 0; pw && i < n; i++) {
        struct group *g = getgrgid(groups[i]);
        if (g)
            fprintf(s->out, "%s%s", i ? ", " : "", g->gr_name);
        else
            fprintf(s->out, "%s%u", i ? ", " : "", (unsigned)groups[i]);
    }
    fputc('\n', s->out);
    return ST_OK;
}

const shell_command shell_cmds_general[] = {
    {"status", "general", cmd_status,
     "Show cluster status. Can be 'summary', 'simple', or 'detailed'. The\n"
     "default is 'summary'. Examples:\n"
     "\n"
     "  strata> status\n"
     "  strata> status 'simple'\n"
     "  strata> status 'summary'\n"
     "  strata> status 'detailed'\n"},
    {"version", "general", cmd_version,
     "Output this shell's version.\n"
     "\n"
     "  strata> version\n"},
    {"whoami", "general", cmd_whoami,
     "Show the current user and the groups the user belongs to.\n"
     "\n"
     "  strata> whoami\n"},
    {NULL, NULL, NULL, NULL},
};
