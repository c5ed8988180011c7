/*
 * zkserver.c - a private ZooKeeper server for tests (see zkserver.h).
 *
 * Each server is a java child (tests/support/proc.h) in its own process group, listed in a
 * global registry that the atexit handler walks to kill the groups and remove the
 * directories. Readiness is
 * the four-letter word "ruok" answered with "imok" on the client port.
 *
 * Thread-safety: the registry is guarded by reg_mu; a zkserver itself is driven from
 * one thread. Lock order: reg_mu only.
 */
#include "tests/support/zkserver.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ftw.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/status.h"
#include "tests/support/proc.h"

#define ZKS_READY_TIMEOUT_MS 30000
#define ZKS_MAX 16

struct zkserver {
    char dir[256];
    char quorum[64];
    int port;
    pid_t pid; /* 0 while not running */
    int paused;
};

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static zkserver *reg[ZKS_MAX];
static int reg_atexit_done;
static pid_t reg_owner; /* the process that started the servers; forks leave them alone */

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static void remove_dir(const char *dir)
{
    if (dir[0])
        nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Kills the process group and reaps the child. */
static void kill_child(zkserver *s)
{
    if (s->pid <= 0)
        return;
    proc_kill(s->pid, NULL);
    s->pid = 0;
    s->paused = 0;
}

static void reg_atexit(void)
{
    if (getpid() != reg_owner)
        return;
    pthread_mutex_lock(&reg_mu);
    for (int i = 0; i < ZKS_MAX; i++) {
        if (!reg[i])
            continue;
        kill_child(reg[i]);
        remove_dir(reg[i]->dir);
        reg[i] = NULL;
    }
    pthread_mutex_unlock(&reg_mu);
}

static int reg_add(zkserver *s)
{
    int rc = ST_INTERNAL;
    pthread_mutex_lock(&reg_mu);
    if (!reg_atexit_done) {
        reg_owner = getpid();
        atexit(reg_atexit);
        reg_atexit_done = 1;
    }
    for (int i = 0; i < ZKS_MAX; i++) {
        if (!reg[i]) {
            reg[i] = s;
            rc = ST_OK;
            break;
        }
    }
    pthread_mutex_unlock(&reg_mu);
    if (rc != ST_OK)
        return st_error(rc, "zkserver: more than %d servers", ZKS_MAX);
    return rc;
}

static void reg_remove(zkserver *s)
{
    pthread_mutex_lock(&reg_mu);
    for (int i = 0; i < ZKS_MAX; i++)
        if (reg[i] == s)
            reg[i] = NULL;
    pthread_mutex_unlock(&reg_mu);
}

/* A loopback port nobody listens on right now. */
static int free_port(int *port)
{
    struct sockaddr_in a;
    socklen_t alen = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return st_error(ST_IO, "zkserver: socket: %s", strerror(errno));
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int rc = ST_OK;
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &alen) < 0)
        rc = st_error(ST_IO, "zkserver: bind 127.0.0.1:0: %s", strerror(errno));
    else
        *port = ntohs(a.sin_port);
    close(fd);
    return rc;
}

static int write_config(const zkserver *s)
{
    char path[320];
    snprintf(path, sizeof(path), "%s/zoo.cfg", s->dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return st_error(ST_IO, "zkserver: create %s: %s", path, strerror(errno));
    fprintf(f,
            "tickTime=200\n"
            "initLimit=10\n"
            "syncLimit=5\n"
            "minSessionTimeout=400\n"
            "maxSessionTimeout=60000\n"
            "dataDir=%s/data\n"
            "clientPort=%d\n"
            "clientPortAddress=127.0.0.1\n"
            "maxClientCnxns=0\n"
            "admin.enableServer=false\n"
            "4lw.commands.whitelist=ruok,srvr\n",
            s->dir, s->port);
    if (fclose(f) != 0)
        return st_error(ST_IO, "zkserver: write %s: %s", path, strerror(errno));
    return ST_OK;
}

/* java in its own process group, dying with the thread that started it, its output
 * appended to <dir>/zookeeper.log. */
static int spawn(zkserver *s)
{
    char cfg[320], log[320];
    snprintf(cfg, sizeof(cfg), "%s/zoo.cfg", s->dir);
    snprintf(log, sizeof(log), "%s/zookeeper.log", s->dir);
    const char *argv[] = {"java",
                          "-Xms32m",
                          "-Xmx256m",
                          "-XX:+UseSerialGC",
                          "-XX:TieredStopAtLevel=1",
                          "-Dzookeeper.admin.enableServer=false",
                          "-Dlog4j.configuration=file:/dev/null",
                          "-cp",
                          "/usr/share/java/*",
                          "org.apache.zookeeper.server.ZooKeeperServerMain",
                          cfg,
                          NULL};
    proc_spec spec = {
        .argv = argv, .log = log, .stdin_null = true, .own_group = true, .die_with_parent = true};
    int rc = proc_spawn(&spec, &s->pid);
    if (rc != ST_OK)
        return st_error(rc, "zkserver: %s", st_errmsg());
    s->paused = 0;
    return ST_OK;
}

/* One "ruok" exchange: 1 if the answer is "imok". */
static int ask_ruok(int port)
{
    struct sockaddr_in a;
    char buf[8] = {0};
    int ok = 0;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return 0;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval tv = {.tv_sec = 1, .tv_usec = 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && write(fd, "ruok", 4) == 4) {
        size_t got = 0;
        ssize_t n;
        while (got < 4 && (n = read(fd, buf + got, 4 - got)) > 0)
            got += (size_t)n;
        ok = got == 4 && memcmp(buf, "imok", 4) == 0;
    }
    close(fd);
    return ok;
}

/* The last bytes of the server's log, for error messages. */
static void log_tail(const zkserver *s, char *out, size_t cap)
{
    char path[320];
    out[0] = '\0';
    snprintf(path, sizeof(path), "%s/zookeeper.log", s->dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fseek(f, -(long)(cap - 1), SEEK_END) != 0)
        rewind(f);
    size_t n = fread(out, 1, cap - 1, f);
    out[n] = '\0';
    fclose(f);
}

static int wait_ready(zkserver *s)
{
    char tail[600];
    uint64_t deadline = clock_mono_ns() + (uint64_t)ZKS_READY_TIMEOUT_MS * 1000000ull;
    while (clock_mono_ns() < deadline) {
        if (ask_ruok(s->port))
            return ST_OK;
        int status;
        if (proc_wait(s->pid, 0, &status) == ST_OK) {
            s->pid = 0;
            log_tail(s, tail, sizeof(tail));
            return st_error(ST_IO, "zkserver: java exited (status %d) on port %d: %s", status,
                            s->port, tail);
        }
        clock_sleep_ms(100);
    }
    kill_child(s);
    log_tail(s, tail, sizeof(tail));
    return st_error(ST_TIMEOUT, "zkserver: no imok from port %d in %d ms: %s", s->port,
                    ZKS_READY_TIMEOUT_MS, tail);
}

static int make_dir(zkserver *s)
{
    const char *base = getenv("TMPDIR");
    snprintf(s->dir, sizeof(s->dir), "%s/strata-zk-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(s->dir)) {
        int rc = st_error(ST_IO, "zkserver: mkdtemp %s: %s", s->dir, strerror(errno));
        s->dir[0] = '\0';
        return rc;
    }
    return ST_OK;
}

int zks_start(zkserver **out)
{
    *out = NULL;
    zkserver *s = calloc(1, sizeof(*s));
    if (!s)
        return st_error(ST_NOMEM, "zkserver: out of memory");
    int rc = reg_add(s);
    if (rc == ST_OK)
        rc = make_dir(s);
    if (rc == ST_OK)
        rc = free_port(&s->port);
    if (rc == ST_OK)
        rc = write_config(s);
    if (rc == ST_OK)
        rc = spawn(s);
    if (rc == ST_OK)
        rc = wait_ready(s);
    if (rc != ST_OK)
        goto fail;
    snprintf(s->quorum, sizeof(s->quorum), "127.0.0.1:%d", s->port);
    *out = s;
    return ST_OK;
fail:
    zks_stop(s);
    return rc;
}

const char *zks_quorum(const zkserver *s)
{
    return s->quorum;
}

int zks_port(const zkserver *s)
{
    return s->port;
}

const char *zks_dir(const zkserver *s)
{
    return s->dir;
}

int zks_stop(zkserver *s)
{
    if (!s)
        return ST_OK;
    reg_remove(s);
    kill_child(s);
    remove_dir(s->dir);
    free(s);
    return ST_OK;
}

static int signal_group(zkserver *s, int sig, const char *what)
{
    if (s->pid <= 0)
        return st_error(ST_CLOSED, "zkserver %s: %s: not running", s->quorum, what);
    if (proc_signal_group(s->pid, sig) != ST_OK)
        return st_error(ST_IO, "zkserver %s: %s: %s", s->quorum, what, st_errmsg());
    return ST_OK;
}

int zks_pause(zkserver *s)
{
    int rc = signal_group(s, SIGSTOP, "pause");
    if (rc == ST_OK)
        s->paused = 1;
    return rc;
}

int zks_resume(zkserver *s)
{
    int rc = signal_group(s, SIGCONT, "resume");
    if (rc == ST_OK)
        s->paused = 0;
    return rc;
}

int zks_kill(zkserver *s)
{
    kill_child(s);
    return ST_OK;
}

int zks_restart(zkserver *s)
{
    kill_child(s);
    int rc = spawn(s);
    if (rc == ST_OK)
        rc = wait_ready(s);
    return rc;
}
