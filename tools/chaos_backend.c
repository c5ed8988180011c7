/*
 * chaos_backend.c - how the chaos monkey kills, stops and starts processes
 * (tools/chaos_internal.h, docs/chaos.md "Control backends").
 *
 *   local        a `strata cluster` directory: the pids of its state file, signalled only
 *                if they are still this cluster's processes (cluster_alive), restarted
 *                with the same command line and ports (cluster_restart_proc).
 *   script:PATH  PATH VERB ROLE NAME HOST PORT, VERB one of kill stop cont term start
 *                alive cut-zk cut heal, ROLE one of zk master regionserver; exit status 0
 *                is success (for alive: it runs), 2 a verb it does not do. The processes are those
 * the cluster shows: the quorum's first host, the active and backup masters and the live region
 *                servers of the master's status, plus any the monkey took down.
 *   docker       script:deploy/chaos-docker.sh beside the binary's source tree, or the
 *                path in $STRATA_CHAOS_DOCKER.
 */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/status.h"
#include "tools/chaos_internal.h"

extern char **environ;

#define RESTART_TIMEOUT_MS 60000
#define SCRIPT_TIMEOUT_MS 120000

struct chaos_backend {
    bool local;
    cluster_state cs;                  /* local */
    cluster_proc *cp[CHAOS_MAX_PROCS]; /* local: the state's process of procs[i] */
    char script[1024];                 /* script */
    char quorum[256], parent[128];
    int session_timeout_ms;
    chaos_proc procs[CHAOS_MAX_PROCS];
    size_t n;
};

static const char *role_name(chaos_role r)
{
    return r == CHAOS_ROLE_ZK ? "zk" : r == CHAOS_ROLE_MASTER ? "master" : "regionserver";
}

/* ---- local ---- */

/* The processes of the state file (read once: the monkey is the only one restarting
 * them while it runs, and cluster_restart_proc keeps the pids current). */
static void local_list(chaos_backend *b)
{
    if (b->n)
        return;
    for (size_t i = 0; i < b->cs.nprocs && b->n < CHAOS_MAX_PROCS; i++) {
        cluster_proc *p = &b->cs.procs[i];
        if (p->kind == CLUSTER_REST)
            continue; /* the chaos monkey targets the cluster's servers, not its gateways */
        chaos_proc *c = &b->procs[b->n];
        memset(c, 0, sizeof(*c));
        c->role = p->kind == CLUSTER_ZK       ? CHAOS_ROLE_ZK
                  : p->kind == CLUSTER_MASTER ? CHAOS_ROLE_MASTER
                                              : CHAOS_ROLE_RS;
        snprintf(c->name, sizeof(c->name), "%s", p->name);
        snprintf(c->host, sizeof(c->host), "127.0.0.1");
        c->port = p->rpc_port;
        b->cp[b->n++] = p;
    }
}

static int local_open(chaos_backend *b, const chaos_opts *o)
{
    int rc = cluster_state_read(o->dir, &b->cs);
    if (rc != ST_OK)
        return rc;
    b->local = true;
    snprintf(b->quorum, sizeof(b->quorum), "%s", b->cs.quorum);
    snprintf(b->parent, sizeof(b->parent), "%s", b->cs.parent);
    b->session_timeout_ms = b->cs.session_timeout_ms;
    local_list(b);
    return ST_OK;
}

static cluster_proc *local_of(chaos_backend *b, chaos_proc *p)
{
    size_t i = (size_t)(p - b->procs);
    return i < b->n ? b->cp[i] : NULL;
}

/* ---- script ---- */

/* Runs the script with the verb for p; its exit status, or -1 if it could not run or
 * ran past SCRIPT_TIMEOUT_MS (then it is killed). */
static int script_run(chaos_backend *b, const char *verb, const chaos_proc *p)
{
    char port[16];
    snprintf(port, sizeof(port), "%d", p->port);
    char *argv[] = {
        b->script, (char *)verb, (char *)role_name(p->role), (char *)p->name, (char *)p->host,
        port,      NULL};
    pid_t pid;
    fflush(NULL);
    /* The script and what it starts get stdin, stdout and stderr only: not the client's
     * sockets, nor a loader's. */
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return -1;
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    int sr = posix_spawn(&pid, b->script, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (sr != 0)
        return -1;
    uint64_t deadline = clock_mono_ns() + (uint64_t)SCRIPT_TIMEOUT_MS * 1000000ull;
    for (;;) {
        int ws = 0;
        pid_t r = waitpid(pid, &ws, WNOHANG);
        if (r == pid)
            return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
        if (r < 0 && errno != EINTR)
            return -1;
        if (clock_mono_ns() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &ws, 0);
            return -1;
        }
        clock_sleep_ms(20);
    }
}

static int script_open(chaos_backend *b, const chaos_opts *o, const char *path)
{
    if (!o->zk_quorum || !o->zk_quorum[0])
        return st_error(ST_INVALID_ARGUMENT, "chaos: --control %s needs --zk.quorum", o->control);
    if (access(path, X_OK) != 0)
        return st_error(ST_INVALID_ARGUMENT, "chaos: control script %s: %s", path, strerror(errno));
    snprintf(b->script, sizeof(b->script), "%s", path);
    snprintf(b->quorum, sizeof(b->quorum), "%s", o->zk_quorum);
    snprintf(b->parent, sizeof(b->parent), "%s",
             o->zk_parent && o->zk_parent[0] ? o->zk_parent : "/strata");
    b->session_timeout_ms = o->session_timeout_ms > 0 ? o->session_timeout_ms : 6000;
    return ST_OK;
}

/* Parses "host,port,startcode" or "host:port". */
static bool split_server(const char *s, char *host, size_t cap, int *port)
{
    const char *sep = s ? strpbrk(s, ",:") : NULL;
    if (!sep || (size_t)(sep - s) >= cap)
        return false;
    memcpy(host, s, (size_t)(sep - s));
    host[sep - s] = '\0';
    *port = atoi(sep + 1);
    return *port > 0;
}

static chaos_proc *script_find(chaos_backend *b, chaos_role role, const char *host, int port)
{
    for (size_t i = 0; i < b->n; i++)
        if (b->procs[i].role == role && b->procs[i].port == port &&
            strcmp(b->procs[i].host, host) == 0)
            return &b->procs[i];
    return NULL;
}

static void script_add(chaos_backend *b, chaos_role role, const char *server)
{
    char host[64];
    int port = 0;
    if (b->n >= CHAOS_MAX_PROCS || !split_server(server, host, sizeof(host), &port) ||
        script_find(b, role, host, port))
        return;
    chaos_proc *c = &b->procs[b->n++];
    memset(c, 0, sizeof(*c));
    c->role = role;
    snprintf(c->host, sizeof(c->host), "%s", host);
    c->port = port;
    snprintf(c->name, sizeof(c->name), "%.40s:%d", host, port);
}

static void script_list(chaos_backend *b, const strata_cluster_status_t *st)
{
    /* Keep what the monkey took down or cut off; forget what went away by itself. */
    size_t k = 0;
    for (size_t i = 0; i < b->n; i++)
        if (b->procs[i].down || b->procs[i].paused || b->procs[i].cut)
            b->procs[k++] = b->procs[i];
    b->n = k;
    char first[256];
    snprintf(first, sizeof(first), "%s", b->quorum);
    char *comma = strchr(first, ',');
    if (comma)
        *comma = '\0';
    if (!strchr(first, ':'))
        strncat(first, ":2181", sizeof(first) - strlen(first) - 1);
    script_add(b, CHAOS_ROLE_ZK, first);
    if (!st)
        return;
    const char *am = strata_cluster_status_active_master(st);
    if (am && am[0])
        script_add(b, CHAOS_ROLE_MASTER, am);
    for (size_t i = 0; i < strata_cluster_status_backup_master_count(st); i++)
        script_add(b, CHAOS_ROLE_MASTER, strata_cluster_status_backup_master(st, i));
    for (size_t i = 0; i < strata_cluster_status_live_server_count(st); i++)
        script_add(b, CHAOS_ROLE_RS,
                   strata_server_load_name(strata_cluster_status_live_server(st, i)));
}

/* ---- the interface ---- */

int chaos_backend_open(const chaos_opts *o, chaos_backend **out)
{
    chaos_backend *b = calloc(1, sizeof(*b));
    if (!b)
        return st_error(ST_NOMEM, "out of memory");
    const char *c = o->control && o->control[0] ? o->control : "local";
    int rc;
    if (strcmp(c, "local") == 0) {
        rc = o->dir ? local_open(b, o)
                    : st_error(ST_INVALID_ARGUMENT, "chaos: the local backend needs --dir");
    } else if (strncmp(c, "script:", 7) == 0) {
        rc = script_open(b, o, c + 7);
    } else if (strcmp(c, "docker") == 0) {
        const char *p = getenv("STRATA_CHAOS_DOCKER");
        rc = script_open(b, o, p && p[0] ? p : "deploy/chaos-docker.sh");
    } else {
        rc = st_error(ST_INVALID_ARGUMENT,
                      "chaos: unknown control '%s' (local, docker or script:PATH)", c);
    }
    if (rc != ST_OK) {
        chaos_backend_close(b);
        return rc;
    }
    *out = b;
    return ST_OK;
}

void chaos_backend_close(chaos_backend *b)
{
    if (!b)
        return;
    if (b->local)
        cluster_state_clear(&b->cs);
    free(b);
}

const char *chaos_backend_quorum(const chaos_backend *b)
{
    return b->quorum;
}
const char *chaos_backend_parent(const chaos_backend *b)
{
    return b->parent;
}
int chaos_backend_session_timeout_ms(const chaos_backend *b)
{
    return b->session_timeout_ms;
}

int chaos_backend_list(chaos_backend *b, const strata_cluster_status_t *st)
{
    if (b->local)
        local_list(b);
    else
        script_list(b, st);
    return ST_OK;
}

size_t chaos_backend_count(const chaos_backend *b)
{
    return b->n;
}

chaos_proc *chaos_backend_proc(chaos_backend *b, size_t i)
{
    return i < b->n ? &b->procs[i] : NULL;
}

chaos_proc *chaos_backend_rs_of(chaos_backend *b, const char *server)
{
    char host[64];
    int port = 0;
    if (!split_server(server, host, sizeof(host), &port))
        return NULL;
    for (size_t i = 0; i < b->n; i++)
        if (b->procs[i].role == CHAOS_ROLE_RS && b->procs[i].port == port &&
            (b->local || strcmp(b->procs[i].host, host) == 0))
            return &b->procs[i];
    return NULL;
}

chaos_proc *chaos_backend_active_master(chaos_backend *b)
{
    if (b->local) {
        cluster_proc *p = cluster_resolve(&b->cs, "master-active");
        for (size_t i = 0; p && i < b->n; i++)
            if (b->cp[i] == p)
                return &b->procs[i];
        return NULL;
    }
    return NULL; /* the caller finds it from the status (chaos_actions.c) */
}

static const char *sig_verb(int sig)
{
    switch (sig) {
    case SIGKILL:
        return "kill";
    case SIGSTOP:
        return "stop";
    case SIGCONT:
        return "cont";
    default:
        return "term";
    }
}

int chaos_backend_signal(chaos_backend *b, chaos_proc *p, int sig)
{
    if (b->local) {
        cluster_proc *cp = local_of(b, p);
        if (!cp || !cluster_signal(&b->cs, cp, sig))
            return st_error(ST_NOT_FOUND, "%s is not running", p->name);
    } else if (script_run(b, sig_verb(sig), p) != 0) {
        return st_error(ST_IO, "%s %s %s: the control script failed", b->script, sig_verb(sig),
                        p->name);
    }
    if (sig == SIGSTOP)
        p->paused = true;
    else if (sig == SIGCONT)
        p->paused = false;
    else
        p->down = true;
    return ST_OK;
}

int chaos_backend_start(chaos_backend *b, chaos_proc *p, int timeout_ms)
{
    int rc;
    if (b->local) {
        cluster_proc *cp = local_of(b, p);
        rc = cp ? cluster_restart_proc(&b->cs, cp, timeout_ms > 0 ? timeout_ms : RESTART_TIMEOUT_MS)
                : st_error(ST_NOT_FOUND, "%s: no such process", p->name);
    } else {
        rc = script_run(b, "start", p) == 0
                 ? ST_OK
                 : st_error(ST_IO, "%s start %s: the control script failed", b->script, p->name);
    }
    if (rc == ST_OK) {
        p->down = false;
        p->paused = false;
    }
    return rc;
}

int chaos_backend_net(chaos_backend *b, chaos_proc *p, const char *verb)
{
    if (b->local)
        return st_error(ST_UNSUPPORTED, "the local backend cannot cut a network");
    int rc = script_run(b, verb, p);
    if (rc == 2)
        return st_error(ST_UNSUPPORTED, "%s does not do %s", b->script, verb);
    if (rc != 0)
        return st_error(ST_IO, "%s %s %s: the control script failed", b->script, verb, p->name);
    p->cut = strcmp(verb, "heal") != 0;
    return ST_OK;
}

bool chaos_backend_can_partition(const chaos_backend *b)
{
    return !b->local;
}

bool chaos_backend_alive(chaos_backend *b, chaos_proc *p)
{
    if (b->local) {
        cluster_proc *cp = local_of(b, p);
        return cp && cluster_alive(&b->cs, cp);
    }
    return script_run(b, "alive", p) == 0;
}
