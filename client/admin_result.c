/*
 * admin_result.c - the result objects of strata/admin.h: name lists, regions (and their
 * lists), and the cluster status with its server and region loads.
 *
 * Each object keeps the unpacked answer it was built from and reads its fields in place;
 * what the answer spreads over sub-messages (a server's host, port and start code) is
 * formatted once at build time into "host,port,startcode", so every accessor is a plain
 * read.
 *
 * Thread-safety: immutable once built; any number of threads may read one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/admin_internal.h"
#include "client/client_internal.h"
#include "common/status.h"

/* ---- states ---- */

const char *strata_table_state_name(strata_table_state state)
{
    switch (state) {
    case STRATA_TABLE_ENABLED:
        return "ENABLED";
    case STRATA_TABLE_DISABLED:
        return "DISABLED";
    case STRATA_TABLE_ENABLING:
        return "ENABLING";
    case STRATA_TABLE_DISABLING:
        return "DISABLING";
    default:
        return "UNKNOWN";
    }
}

const char *strata_region_state_name(strata_region_state state)
{
    switch (state) {
    case STRATA_REGION_OFFLINE:
        return "OFFLINE";
    case STRATA_REGION_OPENING:
        return "OPENING";
    case STRATA_REGION_OPEN:
        return "OPEN";
    case STRATA_REGION_CLOSING:
        return "CLOSING";
    case STRATA_REGION_CLOSED:
        return "CLOSED";
    case STRATA_REGION_FAILED_OPEN:
        return "FAILED_OPEN";
    default:
        return "UNKNOWN";
    }
}

/* "host,port,startcode" of a ServerName (malloc'ed), NULL for NULL or out of memory. */
static char *server_text(const Strata__Master__ServerName *n)
{
    char *s = NULL;
    if (!n || asprintf(&s, "%s,%u,%llu", n->host ? n->host : "", n->port,
                       (unsigned long long)n->start_code) < 0)
        return NULL;
    return s;
}

/* ---- name lists ---- */

struct strata_name_list {
    char **names;
    size_t n;
};

strata_name_list_t *admin_name_list_new(char *const *names, size_t n)
{
    strata_name_list_t *l = calloc(1, sizeof(*l));
    if (l)
        l->names = calloc(n ? n : 1, sizeof(*l->names));
    for (size_t i = 0; l && l->names && i < n; i++, l->n++)
        if (!(l->names[i] = strdup(names[i] ? names[i] : "")))
            break;
    if (l && (!l->names || l->n < n)) {
        strata_name_list_destroy(l);
        return NULL;
    }
    return l;
}

size_t strata_name_list_count(const strata_name_list_t *l)
{
    return l->n;
}

const char *strata_name_list_get(const strata_name_list_t *l, size_t i)
{
    return i < l->n ? l->names[i] : NULL;
}

void strata_name_list_destroy(strata_name_list_t *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        free(l->names[i]);
    free(l->names);
    free(l);
}

/* ---- regions ---- */

struct strata_region {
    const Strata__Admin__RegionInfo *info; /* borrowed from the answer */
    char *server;                          /* NULL: not assigned */
    strata_region_state state;
    bool offline, split;     /* from a meta row's info:regioninfo only */
    ProtobufCMessage *owned; /* a located region owns its answer; NULL inside a list */
};

struct strata_region_list {
    ProtobufCMessage *msg;
    strata_region_t *v;
    size_t n;
};

static const Strata__Admin__RegionInfo EMPTY_INFO = STRATA__ADMIN__REGION_INFO__INIT;

/* Fills r from a region, its server and state; ST_OK or ST_NOMEM. */
static int region_fill(strata_region_t *r, const Strata__Admin__RegionInfo *info,
                       const Strata__Master__ServerName *server, protobuf_c_boolean has_state,
                       Strata__Master__RegionState state)
{
    memset(r, 0, sizeof(*r));
    r->info = info ? info : &EMPTY_INFO;
    r->state = has_state ? (strata_region_state)state : STRATA_REGION_OFFLINE;
    if (server && !(r->server = server_text(server)))
        return st_error(ST_NOMEM, "admin: out of memory reading region %s",
                        r->info->encoded_name ? r->info->encoded_name : "?");
    return ST_OK;
}

strata_region_list_t *admin_region_list_new(Strata__Master__GetTableRegionsResponse *resp)
{
    strata_region_list_t *l = calloc(1, sizeof(*l));
    if (!l) {
        admin_rpc_free_msg(resp);
        return NULL;
    }
    l->msg = &resp->base;
    l->v = calloc(resp->n_location ? resp->n_location : 1, sizeof(*l->v));
    for (size_t i = 0; l->v && i < resp->n_location; i++, l->n++) {
        const Strata__Master__RegionLocation *loc = resp->location[i];
        if (region_fill(&l->v[i], loc->region, loc->server, loc->has_state, loc->state) != ST_OK)
            break;
    }
    if (!l->v || l->n < resp->n_location) {
        strata_region_list_destroy(l);
        return NULL;
    }
    return l;
}

int admin_region_located(Strata__Master__LocateRegionResponse *resp, strata_region_t **out)
{
    *out = NULL;
    if (resp->n_location == 0) {
        admin_rpc_free_msg(resp);
        return ST_OK;
    }
    strata_region_t *r = malloc(sizeof(*r));
    const Strata__Master__RegionLocation *loc = resp->location[0];
    int rc = r ? region_fill(r, loc->region, loc->server, loc->has_state, loc->state)
               : st_error(ST_NOMEM, "admin: out of memory reading a located region");
    if (rc != ST_OK) {
        if (r)
            free(r->server);
        free(r);
        admin_rpc_free_msg(resp);
        return rc;
    }
    r->owned = &resp->base;
    *out = r;
    return ST_OK;
}

strata_region_t *strata_region_from_meta(const char *value, size_t len, char **errptr)
{
    Strata__Master__MetaRegionInfo *mri = strata__master__meta_region_info__unpack(
        NULL, len, (const uint8_t *)(value ? value : ""));
    strata_region_t *r = mri ? calloc(1, sizeof(*r)) : NULL;
    if (!mri) {
        client_set_error_msg(errptr, "corruption: an info:regioninfo value of strata:meta that "
                                     "does not decode");
        return NULL;
    }
    if (!r) {
        protobuf_c_message_free_unpacked(&mri->base, NULL);
        client_set_error_msg(errptr, "out of memory: decoding an info:regioninfo value");
        return NULL;
    }
    r->info = mri->region;
    r->state = STRATA_REGION_OFFLINE;
    r->offline = mri->has_offline && mri->offline;
    r->split = mri->has_split && mri->split;
    r->owned = &mri->base;
    return r;
}

unsigned char strata_region_offline(const strata_region_t *r)
{
    return r->offline;
}

unsigned char strata_region_split(const strata_region_t *r)
{
    return r->split;
}

size_t strata_region_list_count(const strata_region_list_t *l)
{
    return l->n;
}

const strata_region_t *strata_region_list_get(const strata_region_list_t *l, size_t i)
{
    return i < l->n ? &l->v[i] : NULL;
}

void strata_region_list_destroy(strata_region_list_t *l)
{
    if (!l)
        return;
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i].server);
    free(l->v);
    admin_rpc_free_msg(l->msg);
    free(l);
}

void strata_region_destroy(strata_region_t *r)
{
    if (!r || !r->owned) /* one borrowed from a list is not ours to free */
        return;
    free(r->server);
    admin_rpc_free_msg(r->owned);
    free(r);
}

const char *strata_region_encoded_name(const strata_region_t *r)
{
    return r->info->encoded_name ? r->info->encoded_name : "";
}

const char *strata_region_table(const strata_region_t *r)
{
    return r->info->table ? r->info->table : "";
}

const char *strata_region_start_key(const strata_region_t *r, size_t *len)
{
    *len = r->info->has_start_key ? r->info->start_key.len : 0;
    return *len ? (const char *)r->info->start_key.data : "";
}

const char *strata_region_end_key(const strata_region_t *r, size_t *len)
{
    *len = r->info->has_end_key ? r->info->end_key.len : 0;
    return *len ? (const char *)r->info->end_key.data : "";
}

uint64_t strata_region_id(const strata_region_t *r)
{
    return r->info->has_region_id ? r->info->region_id : 0;
}

const char *strata_region_server(const strata_region_t *r)
{
    return r->server;
}

strata_region_state strata_region_state_of(const strata_region_t *r)
{
    return r->state;
}

/* ---- cluster status ---- */

struct strata_region_load {
    const Strata__Admin__RegionLoad *l;
};

struct strata_server_load {
    const Strata__Master__ServerStatus *st;
    char *name;
    strata_region_load_t *region; /* st->n_region of them */
};

struct strata_cluster_status {
    Strata__Master__GetClusterStatusResponse *msg;
    char *active;               /* NULL: none */
    char **backup;              /* msg->n_backup_master; NULL entries for nameless ones */
    strata_server_load_t *live; /* msg->n_live_server */
    char **dead;                /* msg->n_dead_server */
    strata_region_t *rit;       /* msg->n_in_transition */
    size_t n_live, n_rit;       /* how many are built (all, unless building failed) */
};

static int status_servers(strata_cluster_status_t *s)
{
    const Strata__Master__GetClusterStatusResponse *r = s->msg;
    if (r->active_master && r->active_master->name &&
        !(s->active = server_text(r->active_master->name)))
        return ST_NOMEM;
    s->backup = calloc(r->n_backup_master ? r->n_backup_master : 1, sizeof(*s->backup));
    s->dead = calloc(r->n_dead_server ? r->n_dead_server : 1, sizeof(*s->dead));
    if (!s->backup || !s->dead)
        return ST_NOMEM;
    for (size_t i = 0; i < r->n_backup_master; i++)
        if (r->backup_master[i]->name && !(s->backup[i] = server_text(r->backup_master[i]->name)))
            return ST_NOMEM;
    for (size_t i = 0; i < r->n_dead_server; i++)
        if (!(s->dead[i] = server_text(r->dead_server[i])))
            return ST_NOMEM;
    return ST_OK;
}

static int status_loads(strata_cluster_status_t *s)
{
    const Strata__Master__GetClusterStatusResponse *r = s->msg;
    s->live = calloc(r->n_live_server ? r->n_live_server : 1, sizeof(*s->live));
    if (!s->live)
        return ST_NOMEM;
    for (; s->n_live < r->n_live_server; s->n_live++) {
        strata_server_load_t *l = &s->live[s->n_live];
        l->st = r->live_server[s->n_live];
        l->name = server_text(l->st->name);
        l->region = calloc(l->st->n_region ? l->st->n_region : 1, sizeof(*l->region));
        if (!l->name || !l->region) {
            s->n_live++; /* freed with the others */
            return ST_NOMEM;
        }
        for (size_t j = 0; j < l->st->n_region; j++)
            l->region[j].l = l->st->region[j];
    }
    return ST_OK;
}

static int status_transitions(strata_cluster_status_t *s)
{
    const Strata__Master__GetClusterStatusResponse *r = s->msg;
    s->rit = calloc(r->n_in_transition ? r->n_in_transition : 1, sizeof(*s->rit));
    if (!s->rit)
        return ST_NOMEM;
    for (; s->n_rit < r->n_in_transition; s->n_rit++) {
        const Strata__Master__RegionInTransition *t = r->in_transition[s->n_rit];
        if (region_fill(&s->rit[s->n_rit], t->region, t->server, 1, t->state) != ST_OK)
            return ST_NOMEM;
    }
    return ST_OK;
}

strata_cluster_status_t *admin_cluster_status_new(Strata__Master__GetClusterStatusResponse *resp)
{
    strata_cluster_status_t *s = calloc(1, sizeof(*s));
    if (!s) {
        admin_rpc_free_msg(resp);
        return NULL;
    }
    s->msg = resp;
    int rc = status_servers(s);
    if (rc == ST_OK)
        rc = status_loads(s);
    if (rc == ST_OK)
        rc = status_transitions(s);
    if (rc != ST_OK) {
        strata_cluster_status_destroy(s);
        return NULL;
    }
    return s;
}

void strata_cluster_status_destroy(strata_cluster_status_t *s)
{
    if (!s)
        return;
    free(s->active);
    for (size_t i = 0; s->backup && i < s->msg->n_backup_master; i++)
        free(s->backup[i]);
    for (size_t i = 0; s->dead && i < s->msg->n_dead_server; i++)
        free(s->dead[i]);
    for (size_t i = 0; i < s->n_live; i++) {
        free(s->live[i].name);
        free(s->live[i].region);
    }
    for (size_t i = 0; i < s->n_rit; i++)
        free(s->rit[i].server);
    free(s->backup);
    free(s->dead);
    free(s->live);
    free(s->rit);
    admin_rpc_free_msg(s->msg);
    free(s);
}

const char *strata_cluster_status_cluster_id(const strata_cluster_status_t *s)
{
    return s->msg->cluster_id;
}

const char *strata_cluster_status_version(const strata_cluster_status_t *s)
{
    return s->msg->version;
}

const char *strata_cluster_status_active_master(const strata_cluster_status_t *s)
{
    return s->active;
}

size_t strata_cluster_status_backup_master_count(const strata_cluster_status_t *s)
{
    return s->msg->n_backup_master;
}

const char *strata_cluster_status_backup_master(const strata_cluster_status_t *s, size_t i)
{
    return i < s->msg->n_backup_master ? s->backup[i] : NULL;
}

size_t strata_cluster_status_live_server_count(const strata_cluster_status_t *s)
{
    return s->n_live;
}

const strata_server_load_t *strata_cluster_status_live_server(const strata_cluster_status_t *s,
                                                              size_t i)
{
    return i < s->n_live ? &s->live[i] : NULL;
}

size_t strata_cluster_status_dead_server_count(const strata_cluster_status_t *s)
{
    return s->msg->n_dead_server;
}

const char *strata_cluster_status_dead_server(const strata_cluster_status_t *s, size_t i)
{
    return i < s->msg->n_dead_server ? s->dead[i] : NULL;
}

size_t strata_cluster_status_in_transition_count(const strata_cluster_status_t *s)
{
    return s->n_rit;
}

const strata_region_t *strata_cluster_status_in_transition(const strata_cluster_status_t *s,
                                                           size_t i)
{
    return i < s->n_rit ? &s->rit[i] : NULL;
}

uint64_t strata_cluster_status_in_transition_since_ms(const strata_cluster_status_t *s, size_t i)
{
    return i < s->n_rit ? s->msg->in_transition[i]->since_ms : 0;
}

uint32_t strata_cluster_status_table_count(const strata_cluster_status_t *s)
{
    return s->msg->tables;
}

uint32_t strata_cluster_status_region_count(const strata_cluster_status_t *s)
{
    return s->msg->regions;
}

/* One ServerTask's fields into the out pointers (each may be NULL). */
static int task_fields(const Strata__Master__ServerTask *t, const char **description,
                       const char **status, const char **state, uint64_t *start_ms)
{
    if (description)
        *description = t->description;
    if (status)
        *status = t->status ? t->status : "";
    if (state)
        *state = t->state ? t->state : "RUNNING";
    if (start_ms)
        *start_ms = t->start_time;
    return 0;
}

size_t strata_cluster_status_master_task_count(const strata_cluster_status_t *s)
{
    return s->msg->n_master_task;
}

int strata_cluster_status_master_task(const strata_cluster_status_t *s, size_t i,
                                      const char **description, const char **status,
                                      const char **state, uint64_t *start_ms)
{
    return i < s->msg->n_master_task
               ? task_fields(s->msg->master_task[i], description, status, state, start_ms)
               : -1;
}

/* ---- server loads ---- */

size_t strata_server_load_task_count(const strata_server_load_t *l)
{
    return l->st->n_task;
}

int strata_server_load_task(const strata_server_load_t *l, size_t i, const char **description,
                            const char **status, const char **state, uint64_t *start_ms)
{
    return i < l->st->n_task ? task_fields(l->st->task[i], description, status, state, start_ms)
                             : -1;
}

const char *strata_server_load_name(const strata_server_load_t *l)
{
    return l->name;
}

uint32_t strata_server_load_http_port(const strata_server_load_t *l)
{
    return l->st->http_port;
}

uint32_t strata_server_load_region_count(const strata_server_load_t *l)
{
    return l->st->has_region_count ? l->st->region_count : (uint32_t)l->st->n_region;
}

double strata_server_load_requests_per_second(const strata_server_load_t *l)
{
    return l->st->requests_per_second;
}

uint64_t strata_server_load_total_requests(const strata_server_load_t *l)
{
    return l->st->total_requests;
}

uint64_t strata_server_load_read_requests(const strata_server_load_t *l)
{
    return l->st->read_requests;
}

uint64_t strata_server_load_write_requests(const strata_server_load_t *l)
{
    return l->st->write_requests;
}

uint64_t strata_server_load_store_files(const strata_server_load_t *l)
{
    return l->st->store_files;
}

uint64_t strata_server_load_store_file_size(const strata_server_load_t *l)
{
    return l->st->store_file_size;
}

uint64_t strata_server_load_memstore_size(const strata_server_load_t *l)
{
    return l->st->memstore_size;
}

uint64_t strata_server_load_last_report_ms(const strata_server_load_t *l)
{
    return l->st->last_report_ms;
}

size_t strata_server_load_region_load_count(const strata_server_load_t *l)
{
    return l->st->n_region;
}

const strata_region_load_t *strata_server_load_region_load(const strata_server_load_t *l, size_t i)
{
    return i < l->st->n_region ? &l->region[i] : NULL;
}

/* ---- region loads ---- */

const char *strata_region_load_encoded_name(const strata_region_load_t *l)
{
    return l->l->encoded_name;
}

const char *strata_region_load_table(const strata_region_load_t *l)
{
    return l->l->table;
}

uint64_t strata_region_load_read_requests(const strata_region_load_t *l)
{
    return l->l->read_requests;
}

uint64_t strata_region_load_write_requests(const strata_region_load_t *l)
{
    return l->l->write_requests;
}

uint64_t strata_region_load_store_files(const strata_region_load_t *l)
{
    return l->l->store_files;
}

uint64_t strata_region_load_store_file_size(const strata_region_load_t *l)
{
    return l->l->store_file_size;
}

uint64_t strata_region_load_memstore_size(const strata_region_load_t *l)
{
    return l->l->memstore_size;
}
