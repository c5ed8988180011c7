/*
 * cluster_state.c - the local cluster's state file <dir>/cluster.state: read, write,
 * look up processes by name (format in cluster_internal.h and docs/cluster.md).
 *
 * Thread-safety: none; one command on one thread.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/status.h"
#include "tools/cluster_internal.h"

void cluster_state_clear(cluster_state *s)
{
    for (size_t i = 0; i < s->nargs; i++)
        free(s->args[i]);
    s->nargs = 0;
}

int cluster_name_parse(const char *name, cluster_kind *kind, int *index)
{
    const char *num = NULL;
    if (strcmp(name, "zk") == 0) {
        *kind = CLUSTER_ZK;
        *index = 0;
        return ST_OK;
    }
    if (strncmp(name, "master-", 7) == 0) {
        *kind = CLUSTER_MASTER;
        num = name + 7;
    } else if (strncmp(name, "rs-", 3) == 0) {
        *kind = CLUSTER_RS;
        num = name + 3;
    } else if (strncmp(name, "rest-", 5) == 0) {
        *kind = CLUSTER_REST;
        num = name + 5;
    }
    char *end = NULL;
    long v = num ? strtol(num, &end, 10) : 0;
    if (!num || !*num || *end || v < 1 || v > CLUSTER_MAX_PROCS || num[0] == '0')
        return st_error(ST_INVALID_ARGUMENT, "'%s' is not a process name (zk, master-N, rs-N, rest-N)",
                        name);
    *index = (int)v;
    return ST_OK;
}

cluster_proc *cluster_state_find(cluster_state *s, const char *name)
{
    for (size_t i = 0; i < s->nprocs; i++)
        if (strcmp(s->procs[i].name, name) == 0)
            return &s->procs[i];
    return NULL;
}

size_t cluster_state_count(const cluster_state *s, cluster_kind kind)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nprocs; i++)
        n += s->procs[i].kind == kind;
    return n;
}

void cluster_log_path(const cluster_state *s, const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/logs/%s.log", s->dir, name);
}

void cluster_ready_path(const cluster_state *s, const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/run/%s.ready", s->dir, name);
}

/* ---- writing ---- */

/* Appends a formatted line to b unless *rc already failed. */
static void __attribute__((format(printf, 3, 4))) put(buf_t *b, int *rc, const char *fmt, ...)
{
    char line[1200];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (*rc == ST_OK && n >= 0)
        *rc = buf_append(b, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

int cluster_state_write(const cluster_state *s)
{
    char path[CLUSTER_PATH_MAX];
    buf_t b = {0};
    int rc = ST_OK;
    snprintf(path, sizeof(path), "%s/%s", s->dir, CLUSTER_STATE_FILE);
    put(&b, &rc, "# strata cluster state (docs/cluster.md): name pid rpc_port http_port\n");
    put(&b, &rc, "quorum %s\n", s->quorum);
    put(&b, &rc, "parent %s\n", s->parent);
    put(&b, &rc, "session_timeout_ms %d\n", s->session_timeout_ms);
    for (size_t i = 0; i < s->nargs; i++)
        put(&b, &rc, "arg %s\n", s->args[i]);
    if (s->rs_cpu_quota > 0)
        put(&b, &rc, "rs_cpu_quota %.4f\n", s->rs_cpu_quota);
    for (size_t i = 0; i < s->nprocs; i++) {
        const cluster_proc *p = &s->procs[i];
        put(&b, &rc, "%s %ld %d %d\n", p->name, (long)p->pid, p->rpc_port, p->http_port);
    }
    if (rc == ST_OK)
        rc = fio_write_atomic(path, b.data, b.len);
    buf_free(&b);
    return rc;
}

/* ---- reading ---- */

static int parse_int(const char *tok, long lo, long hi, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = tok ? strtol(tok, &end, 10) : 0;
    if (!tok || errno || end == tok || *end || v < lo || v > hi)
        return ST_INVALID_ARGUMENT;
    *out = v;
    return ST_OK;
}

static int parse_proc(cluster_state *s, char **tok, int nt)
{
    cluster_kind kind;
    int index;
    long pid, rpc, http;
    if (nt != 4 || cluster_name_parse(tok[0], &kind, &index) != ST_OK ||
        parse_int(tok[1], 0, 1L << 30, &pid) != ST_OK ||
        parse_int(tok[2], 0, 65535, &rpc) != ST_OK || parse_int(tok[3], 0, 65535, &http) != ST_OK)
        return ST_CORRUPTION;
    if (s->nprocs == CLUSTER_MAX_PROCS || cluster_state_find(s, tok[0]))
        return ST_CORRUPTION;
    cluster_proc *p = &s->procs[s->nprocs++];
    memset(p, 0, sizeof(*p));
    snprintf(p->name, sizeof(p->name), "%s", tok[0]);
    p->kind = kind;
    p->pid = (pid_t)pid;
    p->rpc_port = (int)rpc;
    p->http_port = (int)http;
    return ST_OK;
}

static int parse_line(cluster_state *s, char *line)
{
    char *tok[5], *save = NULL;
    int nt = 0;
    for (char *t = strtok_r(line, " \t\r", &save); t && nt < 5; t = strtok_r(NULL, " \t\r", &save))
        tok[nt++] = t;
    if (nt == 0 || tok[0][0] == '#')
        return ST_OK;
    long v;
    if (strcmp(tok[0], "quorum") == 0 && nt == 2)
        return snprintf(s->quorum, sizeof(s->quorum), "%s", tok[1]) < (int)sizeof(s->quorum)
                   ? ST_OK
                   : ST_CORRUPTION;
    if (strcmp(tok[0], "parent") == 0 && nt == 2)
        return snprintf(s->parent, sizeof(s->parent), "%s", tok[1]) < (int)sizeof(s->parent)
                   ? ST_OK
                   : ST_CORRUPTION;
    if (strcmp(tok[0], "session_timeout_ms") == 0 && nt == 2) {
        if (parse_int(tok[1], 1, 3600000, &v) != ST_OK)
            return ST_CORRUPTION;
        s->session_timeout_ms = (int)v;
        return ST_OK;
    }
    if (strcmp(tok[0], "rs_cpu_quota") == 0 && nt == 2) {
        char *end = NULL;
        double q = strtod(tok[1], &end);
        if (end == tok[1] || *end || !(q > 0) || q > 4096)
            return ST_CORRUPTION;
        s->rs_cpu_quota = q;
        return ST_OK;
    }
    if (strcmp(tok[0], "arg") == 0 && nt == 2) {
        if (s->nargs == CLUSTER_MAX_ARGS || !(s->args[s->nargs] = strdup(tok[1])))
            return ST_CORRUPTION;
        s->nargs++;
        return ST_OK;
    }
    return parse_proc(s, tok, nt);
}

int cluster_state_read(const char *dir, cluster_state *s)
{
    char path[CLUSTER_PATH_MAX];
    buf_t text = {0};
    memset(s, 0, sizeof(*s));
    if (!realpath(dir, s->dir))
        return st_error(ST_NOT_FOUND, "no cluster in %s: %s", dir, strerror(errno));
    snprintf(path, sizeof(path), "%s/%s", s->dir, CLUSTER_STATE_FILE);
    int rc = fio_read_all(path, &text);
    if (rc == ST_NOT_FOUND)
        return st_error(ST_NOT_FOUND,
                        "no cluster in %s (no %s; start one with strata cluster "
                        "start --dir %s)",
                        s->dir, CLUSTER_STATE_FILE, dir);
    if (rc == ST_OK && buf_append_u8(&text, 0) != ST_OK)
        rc = st_error(ST_NOMEM, "out of memory reading %s", path);
    int lineno = 0;
    for (char *line = (char *)text.data, *nl; rc == ST_OK && line; line = nl) {
        nl = strchr(line, '\n');
        if (nl)
            *nl++ = '\0';
        lineno++;
        if (parse_line(s, line) != ST_OK)
            rc = st_error(ST_CORRUPTION, "%s:%d: not a state line", path, lineno);
    }
    if (rc == ST_OK && (!s->quorum[0] || !cluster_state_find(s, "zk")))
        rc = st_error(ST_CORRUPTION, "%s: no quorum or no zk line", path);
    if (rc == ST_OK && !s->parent[0])
        snprintf(s->parent, sizeof(s->parent), "%s", ZNODES_DEFAULT_PARENT);
    buf_free(&text);
    if (rc != ST_OK)
        cluster_state_clear(s);
    return rc;
}
