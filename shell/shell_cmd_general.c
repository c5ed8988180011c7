/*
 * shell_cmd_general.c - the shell's general commands: status ('summary', 'simple',
 * 'detailed', laid out as HBase 2 prints them from GetClusterStatus), version, whoami.
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

static const char *state_name(Strata__Master__RegionState st)
{
    switch (st) {
    case STRATA__MASTER__REGION_STATE__OFFLINE:
        return "OFFLINE";
    case STRATA__MASTER__REGION_STATE__OPENING:
        return "OPENING";
    case STRATA__MASTER__REGION_STATE__OPEN:
        return "OPEN";
    case STRATA__MASTER__REGION_STATE__CLOSING:
        return "CLOSING";
    case STRATA__MASTER__REGION_STATE__CLOSED:
        return "CLOSED";
    case STRATA__MASTER__REGION_STATE__FAILED_OPEN:
        return "FAILED_OPEN";
    default:
        return "UNKNOWN";
    }
}

static void print_server(shell_session *s, const char *indent, const Strata__Master__ServerName *n)
{
    fprintf(s->out, "%s%s:%u %llu\n", indent, n->host, n->port, (unsigned long long)n->start_code);
}

static void print_load(shell_session *s, const Strata__Master__ServerStatus *l)
{
    unsigned regions = l->has_region_count ? l->region_count : (unsigned)l->n_region;
    fprintf(s->out,
            "        requestsPerSecond=%.1f, numberOfOnlineRegions=%u, numberOfStorefiles=%llu, "
            "storefileSizeMB=%llu, memstoreSizeMB=%llu, readRequestsCount=%llu, "
            "writeRequestsCount=%llu\n",
            l->requests_per_second, regions, (unsigned long long)l->store_files,
            (unsigned long long)(l->store_file_size / MB),
            (unsigned long long)(l->memstore_size / MB), (unsigned long long)l->read_requests,
            (unsigned long long)l->write_requests);
}

static void print_masters(shell_session *s, const Strata__Master__GetClusterStatusResponse *r)
{
    if (r->active_master && r->active_master->name)
        print_server(s, "active master:  ", r->active_master->name);
    fprintf(s->out, "%zu backup masters\n", r->n_backup_master);
    for (size_t i = 0; i < r->n_backup_master; i++)
        if (r->backup_master[i]->name)
            print_server(s, "    ", r->backup_master[i]->name);
}

static void print_dead(shell_session *s, const Strata__Master__GetClusterStatusResponse *r)
{
    fprintf(s->out, "%zu dead servers\n", r->n_dead_server);
    for (size_t i = 0; i < r->n_dead_server; i++)
        fprintf(s->out, "    %s,%u,%llu\n", r->dead_server[i]->host, r->dead_server[i]->port,
                (unsigned long long)r->dead_server[i]->start_code);
}

static unsigned region_count(const Strata__Master__ServerStatus *l)
{
    return l->has_region_count ? l->region_count : (unsigned)l->n_region;
}

static void status_summary(shell_session *s, const Strata__Master__GetClusterStatusResponse *r)
{
    unsigned long regions = 0;
    for (size_t i = 0; i < r->n_live_server; i++)
        regions += region_count(r->live_server[i]);
    double avg = r->n_live_server ? (double)regions / (double)r->n_live_server : 0.0;
    fprintf(s->out,
            "1 active master, %zu backup masters, %zu servers, %zu dead, %.4f average load\n",
            r->n_backup_master, r->n_live_server, r->n_dead_server, avg);
}

static void status_simple(shell_session *s, const Strata__Master__GetClusterStatusResponse *r)
{
    unsigned long long load = 0, regions = 0;
    print_masters(s, r);
    fprintf(s->out, "%zu live servers\n", r->n_live_server);
    for (size_t i = 0; i < r->n_live_server; i++) {
        print_server(s, "    ", r->live_server[i]->name);
        print_load(s, r->live_server[i]);
        load += (unsigned long long)r->live_server[i]->requests_per_second;
        regions += region_count(r->live_server[i]);
    }
    print_dead(s, r);
    fprintf(s->out, "Aggregate load: %llu, regions: %llu\n", load, regions);
}

/* The region's full name, looked up among the table's regions (fetched once per table
 * into *cache); the encoded name alone if not found. */
static void load_name(shell_session *s, const Strata__Admin__RegionLoad *l,
                      Strata__Master__GetTableRegionsResponse **cache, buf_t *name)
{
    buf_reset(name);
    if (l->table && (!*cache || !(*cache)->n_location ||
                     strcmp((*cache)->location[0]->region->table, l->table) != 0)) {
        admin_rpc_free_msg(*cache);
        *cache = NULL;
        admin_rpc_table_regions(s->admin, l->table, cache);
    }
    for (size_t i = 0; *cache && i < (*cache)->n_location; i++)
        if (strcmp((*cache)->location[i]->region->encoded_name, l->encoded_name) == 0) {
            shell_region_name((*cache)->location[i]->region, name);
            return;
        }
    buf_append(name, l->encoded_name, strlen(l->encoded_name) + 1);
    name->len--;
}

static void print_region_loads(shell_session *s, const Strata__Master__ServerStatus *st)
{
    Strata__Master__GetTableRegionsResponse *cache = NULL;
    buf_t name = {0};
    for (size_t j = 0; j < st->n_region; j++) {
        const Strata__Admin__RegionLoad *l = st->region[j];
        load_name(s, l, &cache, &name);
        fprintf(s->out, "        \"%s\"\n", name.data ? (char *)name.data : "");
        fprintf(s->out,
                "            numberOfStorefiles=%llu, storefileSizeMB=%llu, memstoreSizeMB=%llu, "
                "readRequestsCount=%llu, writeRequestsCount=%llu\n",
                (unsigned long long)l->store_files, (unsigned long long)(l->store_file_size / MB),
                (unsigned long long)(l->memstore_size / MB), (unsigned long long)l->read_requests,
                (unsigned long long)l->write_requests);
    }
    buf_free(&name);
    admin_rpc_free_msg(cache);
}

static void status_detailed(shell_session *s, const Strata__Master__GetClusterStatusResponse *r)
{
    fprintf(s->out, "version %s\n", r->version ? r->version : SHELL_VERSION);
    fprintf(s->out, "%zu regionsInTransition\n", r->n_in_transition);
    for (size_t i = 0; i < r->n_in_transition; i++) {
        const Strata__Master__RegionInTransition *t = r->in_transition[i];
        fprintf(s->out, "    {%s state=%s, ts=%llu", t->region->encoded_name, state_name(t->state),
                (unsigned long long)t->since_ms);
        if (t->server)
            fprintf(s->out, ", server=%s,%u,%llu", t->server->host, t->server->port,
                    (unsigned long long)t->server->start_code);
        fprintf(s->out, "}\n");
    }
    print_masters(s, r);
    fprintf(s->out, "%zu live servers\n", r->n_live_server);
    for (size_t i = 0; i < r->n_live_server; i++) {
        print_server(s, "    ", r->live_server[i]->name);
        print_load(s, r->live_server[i]);
        print_region_loads(s, r->live_server[i]);
    }
    print_dead(s, r);
}

static int cmd_status(shell_session *s, const shell_value *args)
{
    const shell_value *fmt = NULL;
    admin_rpc *a = NULL;
    Strata__Master__GetClusterStatusResponse *r = NULL;
    int rc = shell_nargs(args, 0, 2);
    if (rc == ST_OK && args->n > 0)
        rc = shell_str_arg(args, 0, "status format", &fmt);
    const char *f = fmt ? fmt->s : "summary";
    if (rc == ST_OK && strcmp(f, "summary") && strcmp(f, "simple") && strcmp(f, "detailed"))
        rc = st_error(ST_INVALID_ARGUMENT,
                      "unknown status format '%s' (use 'summary', 'simple' or 'detailed')", f);
    if (rc == ST_OK)
        rc = shell_admin(s, &a);
    if (rc == ST_OK)
        rc = admin_rpc_cluster_status(a, &r);
    if (rc == ST_OK && strcmp(f, "summary") == 0)
        status_summary(s, r);
    else if (rc == ST_OK && strcmp(f, "simple") == 0)
        status_simple(s, r);
    else if (rc == ST_OK)
        status_detailed(s, r);
    admin_rpc_free_msg(r);
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
