/*
 * cluster_proc.c - the processes of a local cluster: free loopback ports, ZooKeeper's
 * config, detached starts (`strata master`, `strata regionserver` through /proc/self/exe,
 * and java for ZooKeeper), liveness that cannot mistake a recycled pid, signals with
 * bounded waits, and ZooKeeper's "ruok" probe.
 *
 * A started process is detached: its own session (setsid), default signal dispositions
 * and an empty signal mask, stdin from /dev/null, stdout and stderr appended to
 * <dir>/logs/<name>.log, no other inherited descriptors. It outlives the command that
 * started it and is reaped by init once that command has exited. cluster_spawn returns
 * only after the exec happened (a close-on-exec pipe reports a failed one), so the
 * process's command line is already its own when liveness is first checked.
 *
 * Identity: each command line carries one argument unique to the process and the cluster
 * directory (ZooKeeper's <dir>/zk/zoo.cfg; a server's --*.ready.file=<dir>/run/<name>.ready);
 * cluster_alive() reads /proc/<pid>/cmdline and requires it.
 *
 * Liveness counts threads: a process is alive while any of its threads
 * (/proc/<pid>/task/<tid>) is neither a zombie nor dead. A server whose main thread
 * returned is a zombie leader while its other threads still run and still hold its
 * ports; counting it dead let `restart` start the new one into "Address already in
 * use". Its command line is then read through a live thread (the leader's is empty).
 *
 * Thread-safety: a cluster's state is used from one thread at a time (`strata cluster`,
 * or the chaos monkey's thread beside a load's threads). cluster_spawn keeps the argv
 * strings in static storage and is not reentrant; the child it forks runs only
 * async-signal-safe calls before exec, so other threads of the process cannot deadlock it.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/fileio.h"
#include "common/status.h"
#include "tools/cluster_internal.h"

#define POLL_MS 50
#define KILL_WAIT_MS 5000
#define MAX_ARGV (CLUSTER_MAX_ARGS + 24)

/* ---- ports ---- */

int cluster_free_ports(int *ports, size_t n)
{
    int fds[CLUSTER_MAX_PROCS * 2];
    size_t opened = 0;
    int rc = ST_OK;
    if (n > sizeof(fds) / sizeof(fds[0]))
        return st_error(ST_INVALID_ARGUMENT, "cluster: %zu ports asked for", n);
    for (; opened < n && rc == ST_OK; opened++) {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        socklen_t alen = sizeof(a);
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        fds[opened] = fd;
        if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
            getsockname(fd, (struct sockaddr *)&a, &alen) < 0)
            rc = st_error(ST_IO, "cluster: bind 127.0.0.1:0: %s", strerror(errno));
        else
            ports[opened] = ntohs(a.sin_port);
    }
    for (size_t i = 0; i < opened; i++) /* all held open at once: the ports are distinct */
        if (fds[i] >= 0)
            close(fds[i]);
    return rc;
}

/* ---- ZooKeeper ---- */

int cluster_write_zoo_cfg(const cluster_state *s, int port)
{
    char path[CLUSTER_PATH_MAX], text[2400];
    int n = snprintf(text, sizeof(text),
                     "# written by strata cluster start (docs/cluster.md)\n"
                     "tickTime=200\n"
                     "initLimit=10\n"
                     "syncLimit=5\n"
                     "minSessionTimeout=400\n"
                     "maxSessionTimeout=120000\n"
                     "dataDir=%s/zk/data\n"
                     "clientPort=%d\n"
                     "clientPortAddress=127.0.0.1\n"
                     "maxClientCnxns=0\n"
                     "admin.enableServer=false\n"
                     "4lw.commands.whitelist=ruok\n",
                     s->dir, port);
    snprintf(path, sizeof(path), "%s/zk/zoo.cfg", s->dir);
    return fio_write_atomic(path, text, (size_t)n);
}

/* One "ruok": whether 127.0.0.1:port answered "imok". */
static bool zk_ruok(int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct timeval tv = {.tv_sec = 1};
    char reply[8] = {0};
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return false;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && write(fd, "ruok", 4) == 4) {
        size_t got = 0;
        ssize_t r;
        while (got < 4 && (r = read(fd, reply + got, 4 - got)) > 0)
            got += (size_t)r;
    }
    close(fd);
    return memcmp(reply, "imok", 4) == 0;
}

int cluster_wait_zk(const cluster_state *s, const cluster_proc *zkp, int timeout_ms)
{
    uint64_t deadline = clock_mono_ns() + (uint64_t)timeout_ms * 1000000ull;
    for (;;) {
        if (zk_ruok(zkp->rpc_port))
            return ST_OK;
        if (!cluster_alive(s, zkp))
            return cluster_exited(s, zkp);
        if (clock_mono_ns() >= deadline)
            return st_error(ST_TIMEOUT,
                            "ZooKeeper on 127.0.0.1:%d did not answer ruok within %d ms",
                            zkp->rpc_port, timeout_ms);
        clock_sleep_ms(100);
    }
}

int cluster_exited(const cluster_state *s, const cluster_proc *p)
{
    char log[CLUSTER_PATH_MAX], tail[4000];
    cluster_log_path(s, p->name, log, sizeof(log));
    cluster_log_tail(log, tail, sizeof(tail));
    /* The tail goes to stderr whole: a status message holds 1 KiB at most. */
    fprintf(stderr, "%s (pid %ld) exited; the end of %s:\n%s\n", p->name, (long)p->pid, log, tail);
    return st_error(ST_IO, "%s (pid %ld) exited (its log: %s)", p->name, (long)p->pid, log);
}

/* ---- command lines ---- */

/* The argument that identifies p among all processes (see the file comment). */
static void identity(const cluster_state *s, const cluster_proc *p, char *out, size_t cap)
{
    char ready[CLUSTER_PATH_MAX];
    cluster_ready_path(s, p->name, ready, sizeof(ready));
    if (p->kind == CLUSTER_ZK)
        snprintf(out, cap, "%s/zk/zoo.cfg", s->dir);
    else
        snprintf(out, cap, "--%s.ready.file=%s",
                 p->kind == CLUSTER_MASTER ? "master"
                 : p->kind == CLUSTER_REST ? "rest"
                                           : "regionserver",
                 ready);
}

/* Whether an extra flag goes to processes of kind: --master.* to masters,
 * --regionserver.* to region servers, --rest.* to REST gateways, anything else to the
 * masters and region servers (and --log.level to the gateways too: they know no other
 * server key). */
static bool arg_for(const char *arg, cluster_kind kind)
{
    if (strncmp(arg, "--master.", 9) == 0)
        return kind == CLUSTER_MASTER;
    if (strncmp(arg, "--regionserver.", 15) == 0)
        return kind == CLUSTER_RS;
    if (strncmp(arg, "--rest.", 7) == 0)
        return kind == CLUSTER_REST;
    if (kind == CLUSTER_REST)
        return strncmp(arg, "--log.level=", 12) == 0;
    return true;
}

/* A REST gateway's command line: the cluster's ZooKeeper, loopback, its port. */
static void rest_argv(const cluster_state *s, const cluster_proc *p, char *argv[],
                      char store[][CLUSTER_PATH_MAX + 64])
{
    const size_t cap = CLUSTER_PATH_MAX + 64;
    int n = 0;
    argv[n++] = "strata";
    argv[n++] = "rest";
    snprintf(store[0], cap, "--zk.quorum=%s", s->quorum);
    snprintf(store[1], cap, "--zk.parent=%s", s->parent);
    snprintf(store[2], cap, "--rest.host=127.0.0.1");
    snprintf(store[3], cap, "--rest.port=%d", p->http_port);
    identity(s, p, store[4], cap);
    for (int i = 0; i < 5; i++)
        argv[n++] = store[i];
    for (size_t i = 0; i < s->nargs; i++)
        if (arg_for(s->args[i], p->kind))
            argv[n++] = s->args[i];
    argv[n] = NULL;
}

/* Fills argv (strings in store, each cap bytes) for a server. */
static void server_argv(const cluster_state *s, const cluster_proc *p, char *argv[],
                        char store[][CLUSTER_PATH_MAX + 64])
{
    const char *pre = p->kind == CLUSTER_MASTER ? "master" : "regionserver";
    const size_t cap = CLUSTER_PATH_MAX + 64;
    int n = 0;
    argv[n++] = "strata";
    argv[n++] = (char *)pre;
    snprintf(store[0], cap, "--root.dir=%s/root", s->dir);
    snprintf(store[1], cap, "--zk.quorum=%s", s->quorum);
    snprintf(store[2], cap, "--zk.parent=%s", s->parent);
    snprintf(store[3], cap, "--zk.session.timeout.ms=%d", s->session_timeout_ms);
    snprintf(store[4], cap, "--%s.host=127.0.0.1", pre);
    snprintf(store[5], cap, "--%s.port=%d", pre, p->rpc_port);
    snprintf(store[6], cap, "--%s.http.port=%d", pre, p->http_port);
    identity(s, p, store[7], cap);
    for (int i = 0; i < 8; i++)
        argv[n++] = store[i];
    for (size_t i = 0; i < s->nargs; i++)
        if (arg_for(s->args[i], p->kind))
            argv[n++] = s->args[i];
    argv[n] = NULL;
}

static void zk_argv(const cluster_state *s, char *argv[], char *cfg, size_t cap)
{
    int n = 0;
    snprintf(cfg, cap, "%s/zk/zoo.cfg", s->dir);
    argv[n++] = "java";
    argv[n++] = "-Xms32m";
    argv[n++] = "-Xmx256m";
    argv[n++] = "-XX:+UseSerialGC";
    argv[n++] = "-XX:TieredStopAtLevel=1";
    argv[n++] = "-Dzookeeper.admin.enableServer=false";
    argv[n++] = "-cp";
    argv[n++] = "/usr/share/java/*";
    argv[n++] = "org.apache.zookeeper.server.ZooKeeperServerMain";
    argv[n++] = cfg;
    argv[n] = NULL;
}

/* ---- starting ---- */

/* In the child: detach, redirect, exec; on failure writes errno to report_fd (which is
 * close-on-exec: the parent reads end-of-file once the exec has happened). Never
 * returns. */
static void exec_detached(const char *log, const char *path, char *const argv[], bool search,
                          int report_fd, const char *cgroup_procs)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int sig = 1; sig < NSIG; sig++)
        signal(sig, SIG_DFL);
    setsid();
    if (cgroup_procs && cgroup_procs[0]) {
        /* Into the CPU cgroup before anything runs (cluster_caps.c); "0" is the writer
         * itself, so nothing but open and write runs in the child. */
        int fd = open(cgroup_procs, O_WRONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? write(fd, "0", 1) : -1;
        if (n != 1) {
            int err = n < 0 ? errno : EIO;
            err = -(err ? err : EIO); /* negative: the cgroup, not the exec */
            if (write(report_fd, &err, sizeof(err)) < 0)
                err = 0;
            _exit(127);
        }
        close(fd);
    }
    int keep = fcntl(report_fd, F_DUPFD_CLOEXEC, 3);
    int out = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    int in = open("/dev/null", O_RDONLY);
    if (out >= 0) {
        dup2(out, 1);
        dup2(out, 2);
    }
    if (in >= 0)
        dup2(in, 0);
    if (keep > 3)
        close_range(3, (unsigned)keep - 1, 0);
    close_range(keep >= 3 ? (unsigned)keep + 1 : 3, ~0U, 0);
    if (search)
        execvp(path, argv);
    else
        execv(path, argv);
    /* Only async-signal-safe calls here: the parent may have other threads (a chaos
     * monkey beside a load), and one may have held malloc's or the locale's lock at the
     * fork. The parent reports the exec's errno (await_exec). */
    int err = errno;
    if (keep >= 0 && write(keep, &err, sizeof(err)) < 0)
        err = 0;
    _exit(127);
}

/* Waits for the child's exec: ST_OK once it happened, ST_IO if it failed. */
static int await_exec(int fd, pid_t pid, const char *name, const char *path, const char *procs)
{
    int err = 0;
    ssize_t n;
    while ((n = read(fd, &err, sizeof(err))) < 0 && errno == EINTR) {
    }
    close(fd);
    if (n <= 0)
        return ST_OK;
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
    if (err < 0)
        return st_error(ST_IO, "cluster: start %s: joining %s: %s", name, procs, strerror(-err));
    return st_error(ST_IO, "cluster: start %s: exec %s: %s", name, path, strerror(err));
}

int cluster_spawn(const cluster_state *s, cluster_proc *p)
{
    char log[CLUSTER_PATH_MAX], cfg[CLUSTER_PATH_MAX];
    static char store[8][CLUSTER_PATH_MAX + 64];
    char *argv[MAX_ARGV];
    int fds[2];
    const char *path = p->kind == CLUSTER_ZK ? "java" : "/proc/self/exe";
    cluster_log_path(s, p->name, log, sizeof(log));
    if (p->kind == CLUSTER_ZK)
        zk_argv(s, argv, cfg, sizeof(cfg));
    else if (p->kind == CLUSTER_REST)
        rest_argv(s, p, argv, store);
    else
        server_argv(s, p, argv, store);
    char procs[CLUSTER_PATH_MAX + 32];
    int rc = cluster_cap_prepare(s, p, procs, sizeof(procs));
    if (rc != ST_OK)
        return rc;
    if (pipe2(fds, O_CLOEXEC) != 0)
        return st_error(ST_IO, "cluster: pipe for %s: %s", p->name, strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return st_error(ST_IO, "cluster: fork for %s: %s", p->name, strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        exec_detached(log, path, argv, p->kind == CLUSTER_ZK, fds[1], procs);
    }
    close(fds[1]);
    rc = await_exec(fds[0], pid, p->name, path, procs);
    if (rc == ST_OK)
        p->pid = pid;
    else if (procs[0])
        cluster_cap_remove_one(s, p); /* nothing runs in it: no state names it */
    return rc;
}

/* ---- liveness and signals ---- */

/* The state letter of thread tid of pid (/proc/<pid>/task/<tid>/stat), or 0 if it is
 * gone. */
static char task_state(pid_t pid, const char *tid)
{
    char path[384], text[512];
    snprintf(path, sizeof(path), "/proc/%ld/task/%s/stat", (long)pid, tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *rp = strrchr(text, ')');
    return rp && rp[1] == ' ' ? rp[2] : 0;
}

/* Whether thread tid of pid is neither a zombie nor dead. */
static bool task_live(pid_t pid, const char *tid)
{
    char st = task_state(pid, tid);
    return st != 0 && st != 'Z' && st != 'X';
}

/* The command line of pid, read through one of its live threads into b: the main
 * thread's /proc/<pid>/cmdline is empty once it exited, while its other threads still
 * run. Whether one was read. */
static bool read_cmdline(pid_t pid, buf_t *b)
{
    char path[384], dirpath[64];
    bool got = false;
    snprintf(dirpath, sizeof(dirpath), "/proc/%ld/task", (long)pid);
    DIR *d = opendir(dirpath);
    if (!d)
        return false;
    for (struct dirent *e; !got && (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' || !task_live(pid, e->d_name))
            continue;
        snprintf(path, sizeof(path), "%s/%s/cmdline", dirpath, e->d_name);
        buf_reset(b);
        got = fio_read_all(path, b) == ST_OK && b->len > 0;
    }
    closedir(d);
    return got;
}

/* Whether a command line (NUL-separated arguments) has arg as one of its arguments. */
static bool args_have(const buf_t *b, const char *arg)
{
    size_t alen = strlen(arg);
    for (size_t at = 0; at < b->len;) {
        const char *a = (const char *)b->data + at;
        size_t len = strnlen(a, b->len - at);
        if (len == alen && memcmp(a, arg, alen) == 0)
            return true;
        at += len + 1;
    }
    return false;
}

/* How p's process looks: not running, running as ours (its command line names this
 * cluster and process), being torn down (running, command line gone), or another. */
typedef enum proc_look { PROC_GONE, PROC_OURS, PROC_EXITING, PROC_OTHER } proc_look;

static proc_look look(const cluster_state *s, const cluster_proc *p)
{
    char id[CLUSTER_PATH_MAX + 64];
    buf_t b = {0};
    if (!cluster_pid_running(p->pid))
        return PROC_GONE;
    identity(s, p, id, sizeof(id));
    proc_look l = !read_cmdline(p->pid, &b) || b.len == 0 ? PROC_EXITING
                  : args_have(&b, id)                     ? PROC_OURS
                                                          : PROC_OTHER;
    buf_free(&b);
    return l;
}

bool cluster_pid_running(pid_t pid)
{
    char dirpath[64];
    int status;
    bool live = false;
    if (pid <= 0)
        return false;
    if (waitpid(pid, &status, WNOHANG) == pid) /* our own child that ended: reaped now */
        return false;
    if (kill(pid, 0) != 0 && errno == ESRCH)
        return false;
    snprintf(dirpath, sizeof(dirpath), "/proc/%ld/task", (long)pid);
    DIR *d = opendir(dirpath);
    if (!d)
        return false;
    for (struct dirent *e; !live && (e = readdir(d)) != NULL;)
        live = e->d_name[0] != '.' && task_live(pid, e->d_name);
    closedir(d);
    return live;
}

bool cluster_alive(const cluster_state *s, const cluster_proc *p)
{
    return look(s, p) == PROC_OURS;
}

bool cluster_signal(const cluster_state *s, const cluster_proc *p, int sig)
{
    if (!cluster_alive(s, p))
        return false;
    return kill(p->pid, sig) == 0;
}

static size_t count_alive(const cluster_state *s, cluster_proc *const *procs, size_t n)
{
    size_t alive = 0;
    for (size_t i = 0; i < n; i++) {
        /* One of ours on its way out still holds its sockets: a wait for it waits for that. */
        proc_look l = look(s, procs[i]);
        alive += l == PROC_OURS || l == PROC_EXITING;
    }
    return alive;
}

static void wait_until_dead(const cluster_state *s, cluster_proc *const *procs, size_t n,
                            int timeout_ms)
{
    uint64_t deadline = clock_mono_ns() + (uint64_t)timeout_ms * 1000000ull;
    while (count_alive(s, procs, n) > 0 && clock_mono_ns() < deadline)
        clock_sleep_ms(POLL_MS);
}

int cluster_wait_dead(const cluster_state *s, cluster_proc *const *procs, size_t n, int timeout_ms)
{
    int killed = 0;
    wait_until_dead(s, procs, n, timeout_ms);
    for (size_t i = 0; i < n; i++)
        killed += cluster_signal(s, procs[i], SIGKILL);
    if (killed)
        wait_until_dead(s, procs, n, KILL_WAIT_MS);
    return killed;
}

/* ---- logs ---- */

void cluster_log_tail(const char *path, char *out, size_t cap)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f || cap < 2)
        goto out;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    long from = size > (long)cap - 1 ? size - (long)cap + 1 : 0;
    fseek(f, from, SEEK_SET);
    size_t n = fread(out, 1, cap - 1, f);
    out[n] = '\0';
    if (from > 0) { /* start at a whole line */
        char *nl = strchr(out, '\n');
        if (nl)
            memmove(out, nl + 1, strlen(nl + 1) + 1);
    }
out:
    if (f)
        fclose(f);
}
