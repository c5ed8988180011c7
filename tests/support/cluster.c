/*
 * cluster.c - a local cluster for tests through `$STRATA_BIN cluster` (see cluster.h).
 *
 * Commands run as children with their output in <dir>/tc-<command>.out, printed to
 * stderr when they fail. A start that fails because a port picked free was bound by
 * another program meanwhile ("Address already in use" in its output) is tried again in a
 * fresh directory, at most TC_START_ATTEMPTS times. Clusters still running at exit are stopped by
 * an atexit handler (stop, then SIGKILL to every pid of the state file, then the directory
 * removed). Each cluster also has a watchdog: a child in its own session blocked reading a pipe
 * whose write end only the test holds (close-on-exec); when the test process ends in any way the
 * read returns and the watchdog runs `strata cluster stop`, then removes the directory. A normal
 * tc_stop kills the watchdog first. The watchdog's command line is built before fork, so the child
 * only makes async-signal-safe calls before exec; that is why it forks and execs by hand rather
 * than through proc_spawn (which allocates), while every other child goes through
 * tests/support/proc.h.
 *
 * Thread-safety: one thread drives a cluster; the registry has its own mutex.
 */
#include "tests/support/cluster.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/status.h"
#include "tests/support/proc.h"
#include "tests/support/testutil.h"

#define TC_MAX 8
#define TC_STOP_TIMEOUT "10000"
#define TC_START_ATTEMPTS 3

struct tc_cluster {
    char *dir;
    char quorum[64];
    char parent[128];
    pid_t watchdog;
    int watch_fd; /* the write end of the watchdog's pipe */
};

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static tc_cluster *reg[TC_MAX];
static int reg_atexit_done;

/* ---- commands ---- */

/* Runs $STRATA_BIN cluster <args...> --dir <dir>; returns its exit code (or a negative
 * status) and its output in *out (malloc'ed) if out is not NULL. */
static int run(const tc_cluster *c, const char *const *args, char **out)
{
    const char *bin = getenv("STRATA_BIN");
    char path[1200];
    const char *argv[64];
    int n = 0, status = 0;
    pid_t pid = 0;
    if (out)
        *out = NULL;
    if (!bin)
        return st_error(ST_NOT_FOUND, "STRATA_BIN is not set");
    snprintf(path, sizeof(path), "%s/tc-%s.out", c->dir, args[0]);
    argv[n++] = bin;
    argv[n++] = "cluster";
    for (; *args && n < 58; args++)
        argv[n++] = *args;
    argv[n++] = "--dir";
    argv[n++] = c->dir;
    argv[n] = NULL;
    proc_spec spec = {.argv = argv, .log = path, .log_truncate = true};
    int rc = proc_spawn(&spec, &pid);
    if (rc == ST_OK)
        rc = proc_wait(pid, PROC_FOREVER, &status);
    if (rc != ST_OK)
        return rc;
    buf_t text = {0};
    if (fio_read_all(path, &text) == ST_OK && buf_append_u8(&text, 0) == ST_OK && out)
        *out = strdup((const char *)text.data);
    int code = proc_exit_code(status);
    if (code != 0 && strcmp(argv[2], "status") != 0)
        fprintf(stderr, "tc: strata cluster %s exited %d:\n%s\n", argv[2], code,
                text.data ? (const char *)text.data : "(no output)");
    buf_free(&text);
    return code;
}

/* ---- the state file ---- */

/* Reads the quorum, the parent and (if name is not NULL) name's pid. */
static int read_state(tc_cluster *c, const char *name, pid_t *pid)
{
    char path[1200];
    buf_t text = {0};
    snprintf(path, sizeof(path), "%s/cluster.state", c->dir);
    int rc = fio_read_all(path, &text);
    if (rc == ST_OK)
        rc = buf_append_u8(&text, 0);
    if (pid)
        *pid = 0;
    for (char *save = NULL, *line = rc == ST_OK ? strtok_r((char *)text.data, "\n", &save) : NULL;
         line; line = strtok_r(NULL, "\n", &save)) {
        char a[128], b[128];
        long p = 0;
        if (sscanf(line, "quorum %63s", c->quorum) == 1 ||
            sscanf(line, "parent %127s", c->parent) == 1)
            continue;
        if (name && sscanf(line, "%127s %ld %127s", a, &p, b) == 3 && strcmp(a, name) == 0)
            *pid = (pid_t)p;
    }
    buf_free(&text);
    return rc;
}

/* Every pid the state file records, into pids (at most cap); how many. */
static size_t state_pids(const tc_cluster *c, pid_t *pids, size_t cap)
{
    char path[1200];
    buf_t text = {0};
    size_t n = 0;
    snprintf(path, sizeof(path), "%s/cluster.state", c->dir);
    if (fio_read_all(path, &text) != ST_OK || buf_append_u8(&text, 0) != ST_OK) {
        buf_free(&text);
        return 0;
    }
    for (char *save = NULL, *line = strtok_r((char *)text.data, "\n", &save); line && n < cap;
         line = strtok_r(NULL, "\n", &save)) {
        char name[128];
        long p = 0;
        int rpc = 0, http = 0;
        if (sscanf(line, "%127s %ld %d %d", name, &p, &rpc, &http) == 4 && p > 0)
            pids[n++] = (pid_t)p;
    }
    buf_free(&text);
    return n;
}

/* ---- watchdog and registry ---- */

/* In the watchdog, once the test is gone: `strata cluster stop`, then `rm -rf` the
 * directory. Only async-signal-safe calls (the test may have had threads when it forked). */
static void watchdog_main(int fd, char *const stop[], char *const rm[])
{
    char byte;
    setsid();
    while (read(fd, &byte, 1) < 0 && errno == EINTR) {
    }
    pid_t pid = fork();
    if (pid == 0) {
        execv(stop[0], stop);
        _exit(127);
    }
    while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
    execv(rm[0], rm);
    _exit(127);
}

static void start_watchdog(tc_cluster *c)
{
    char *bin = getenv("STRATA_BIN");
    char *stop[] = {bin, "cluster", "stop", "--dir", c->dir, "--timeout-ms", "5000", NULL};
    char *rm[] = {"/bin/rm", "-rf", c->dir, NULL};
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[1]);
        watchdog_main(fds[0], stop, rm);
    }
    close(fds[0]);
    c->watchdog = pid > 0 ? pid : 0;
    c->watch_fd = fds[1];
}

static void stop_watchdog(tc_cluster *c)
{
    proc_kill(c->watchdog, NULL);
    if (c->watch_fd >= 0)
        close(c->watch_fd);
    c->watchdog = 0;
    c->watch_fd = -1;
}

/* Stops c however it can; true if nothing recorded is left alive. */
static bool teardown(tc_cluster *c)
{
    const char *args[] = {"stop", "--timeout-ms", TC_STOP_TIMEOUT, NULL};
    pid_t pids[80];
    stop_watchdog(c);
    run(c, args, NULL);
    size_t n = state_pids(c, pids, 80);
    bool clean = true;
    for (size_t i = 0; i < n; i++)
        if (proc_alive(pids[i])) {
            clean = false;
            proc_signal(pids[i], SIGKILL); /* not our child: `strata cluster` started it */
        }
    return clean;
}

static void reg_atexit(void)
{
    pthread_mutex_lock(&reg_mu);
    for (int i = 0; i < TC_MAX; i++) {
        if (!reg[i])
            continue;
        teardown(reg[i]);
        tu_rmdir(reg[i]->dir);
        free(reg[i]);
        reg[i] = NULL;
    }
    pthread_mutex_unlock(&reg_mu);
}

static int reg_add(tc_cluster *c)
{
    int rc = st_error(ST_INTERNAL, "tc: more than %d clusters at once", TC_MAX);
    pthread_mutex_lock(&reg_mu);
    if (!reg_atexit_done) {
        atexit(reg_atexit);
        reg_atexit_done = 1;
    }
    for (int i = 0; i < TC_MAX && rc != ST_OK; i++)
        if (!reg[i]) {
            reg[i] = c;
            rc = ST_OK;
        }
    pthread_mutex_unlock(&reg_mu);
    return rc;
}

static void reg_remove(tc_cluster *c)
{
    pthread_mutex_lock(&reg_mu);
    for (int i = 0; i < TC_MAX; i++)
        if (reg[i] == c)
            reg[i] = NULL;
    pthread_mutex_unlock(&reg_mu);
}

/* ---- the API ---- */

/* One start into a fresh directory; *port_clash tells whether it failed because a port
 * picked free was taken meanwhile (another program on the machine bound it first). */
static int start_once(const char *const *args, tc_cluster **out, bool *port_clash)
{
    char *text = NULL;
    *out = NULL;
    *port_clash = false;
    tc_cluster *c = calloc(1, sizeof(*c));
    if (!c || !(c->dir = tu_tempdir("cluster"))) {
        free(c);
        return st_error(ST_IO, "tc: cannot make a temp directory");
    }
    c->watch_fd = -1;
    int rc = reg_add(c);
    if (rc == ST_OK)
        start_watchdog(c);
    int code = rc == ST_OK ? run(c, args, &text) : rc;
    if (rc == ST_OK && code != 0) {
        *port_clash = text && strstr(text, "Address already in use");
        rc = st_error(code < 0 ? code : ST_IO, "tc: strata cluster start failed (exit %d)", code);
    }
    free(text);
    if (rc == ST_OK)
        rc = read_state(c, NULL, NULL);
    if (rc != ST_OK) {
        char why[600];
        snprintf(why, sizeof(why), "%s", st_errmsg());
        tc_stop(c);
        return st_error(rc, "%s", why);
    }
    *out = c;
    return ST_OK;
}

int tc_start(const tc_options *o, tc_cluster **out)
{
    char m[16], r[16], t[16], rest[16];
    const char *args[80];
    int n = 0, rc = ST_OK;
    bool clash = true;
    *out = NULL;
    if (!getenv("STRATA_BIN"))
        return st_error(ST_NOT_FOUND, "STRATA_BIN is not set");
    snprintf(m, sizeof(m), "%d", o && o->masters > 0 ? o->masters : 1);
    snprintf(r, sizeof(r), "%d", o && o->regionservers > 0 ? o->regionservers : 3);
    snprintf(t, sizeof(t), "%d", o && o->session_timeout_ms > 0 ? o->session_timeout_ms : 6000);
    const char *fixed[] = {"start", "--masters", m, "--regionservers", r, "--session-timeout-ms",
                           t};
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
        args[n++] = fixed[i];
    if (o && o->rest > 0) {
        snprintf(rest, sizeof(rest), "%d", o->rest);
        args[n++] = "--rest";
        args[n++] = rest;
    }
    for (const char *const *f = o ? o->flags : NULL; f && *f && n < 70; f++)
        args[n++] = *f;
    args[n] = NULL;
    for (int attempt = 0; attempt < TC_START_ATTEMPTS && clash; attempt++) {
        if (attempt > 0)
            fprintf(stderr, "tc: a port was taken by another program; starting again\n");
        rc = start_once(args, out, &clash);
    }
    return rc;
}

/* Prints the log lines of a sanitizer report (an ASan/UBSan build's servers) and says
 * whether there was one. */
static bool logs_report_sanitizer(const tc_cluster *c)
{
    char dir[1100];
    snprintf(dir, sizeof(dir), "%s/logs", c->dir);
    char **names = NULL;
    size_t n = 0;
    bool found = false;
    if (fio_list_dir(dir, &names, &n) != ST_OK)
        return false;
    for (size_t i = 0; i < n; i++) {
        char path[1400];
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "r");
        char line[1024];
        while (f && fgets(line, sizeof(line), f))
            if (strstr(line, "ERROR: AddressSanitizer") || strstr(line, "ERROR: LeakSanitizer") ||
                strstr(line, "runtime error:")) {
                fprintf(stderr, "tc: %s: %s", names[i], line);
                found = true;
            }
        if (f)
            fclose(f);
        free(names[i]);
    }
    free(names);
    return found;
}

int tc_stop(tc_cluster *c)
{
    if (!c)
        return ST_OK;
    reg_remove(c);
    bool clean = teardown(c);
    bool sanitizer = logs_report_sanitizer(c);
    tu_rmdir(c->dir);
    free(c);
    if (sanitizer)
        return st_error(ST_INTERNAL, "tc: a server's log holds a sanitizer report");
    return clean ? ST_OK : st_error(ST_INTERNAL, "tc: processes outlived strata cluster stop");
}

const char *tc_quorum(const tc_cluster *c)
{
    return c->quorum;
}

const char *tc_parent(const tc_cluster *c)
{
    return c->parent[0] ? c->parent : "/strata";
}

const char *tc_dir(const tc_cluster *c)
{
    return c->dir;
}

int tc_http_port(tc_cluster *c, const char *name)
{
    char path[1200];
    buf_t text = {0};
    int port = 0;
    snprintf(path, sizeof(path), "%s/cluster.state", c->dir);
    if (fio_read_all(path, &text) == ST_OK && buf_append_u8(&text, 0) == ST_OK)
        for (char *save = NULL, *line = strtok_r((char *)text.data, "\n", &save); line;
             line = strtok_r(NULL, "\n", &save)) {
            char a[128];
            long p = 0;
            int rpc = 0, http = 0;
            if (sscanf(line, "%127s %ld %d %d", a, &p, &rpc, &http) == 4 && strcmp(a, name) == 0)
                port = http;
        }
    buf_free(&text);
    return port;
}

pid_t tc_pid(tc_cluster *c, const char *name)
{
    pid_t pid = 0;
    read_state(c, name, &pid);
    return pid;
}

int tc_kill(tc_cluster *c, const char *name)
{
    const char *args[] = {"kill", name, NULL};
    int code = run(c, args, NULL);
    return code == 0 ? ST_OK : st_error(code < 0 ? code : ST_IO, "tc: kill %s failed", name);
}

int tc_restart(tc_cluster *c, const char *name)
{
    const char *args[] = {"restart", name, NULL};
    int code = run(c, args, NULL);
    return code == 0 ? ST_OK : st_error(code < 0 ? code : ST_IO, "tc: restart %s failed", name);
}

int tc_add(tc_cluster *c)
{
    const char *args[] = {"add", NULL};
    int code = run(c, args, NULL);
    return code == 0 ? ST_OK : st_error(code < 0 ? code : ST_IO, "tc: add failed");
}

int tc_status(tc_cluster *c, char **out)
{
    const char *args[] = {"status", NULL};
    return run(c, args, out);
}

int tc_active_master(tc_cluster *c, char *name, size_t cap)
{
    char *text = NULL;
    int code = tc_status(c, &text);
    name[0] = '\0';
    if (code < 0)
        return code;
    const char *at = text ? strstr(text, "active master: ") : NULL;
    size_t line = at ? strcspn(at, "\n") : 0;
    if (at && strncmp(at + 15, "master-", 7) == 0 && !memmem(at, line, "not running", 11)) {
        size_t len = strcspn(at + 15, " \n");
        snprintf(name, cap, "%.*s", (int)len, at + 15);
    }
    free(text);
    return ST_OK;
}
