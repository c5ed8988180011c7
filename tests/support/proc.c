/*
 * proc.c - child processes for tests (see proc.h).
 *
 * proc_spawn builds everything the child needs before fork (the program's path from PATH,
 * the environment, the error line for a failed exec), so that between fork and exec the
 * child only makes async-signal-safe calls: the test may have threads. Waits with a
 * deadline poll waitpid(WNOHANG) every PROC_POLL_MS.
 *
 * The children spawned with kill_at_exit are listed in a fixed table; an atexit handler,
 * installed by the first such spawn and active only in the process that made it, kills and
 * reaps whatever is still listed. A child leaves the table when it is reaped.
 *
 * Thread-safety: the table is guarded by reg_mu (lock order: reg_mu only); the rest keeps
 * no state.
 */
#include "tests/support/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/status.h"

#define PROC_POLL_MS 20
#define PROC_MAX_AT_EXIT 64
#define PROC_MAX_ENV 1024

extern char **environ;

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static pid_t reg[PROC_MAX_AT_EXIT];
static pid_t reg_owner; /* the process whose atexit handler kills them; 0 until installed */

/* ---- the at-exit table ---- */

static void reg_remove(pid_t pid)
{
    pthread_mutex_lock(&reg_mu);
    for (size_t i = 0; i < PROC_MAX_AT_EXIT; i++)
        if (reg[i] == pid)
            reg[i] = 0;
    pthread_mutex_unlock(&reg_mu);
}

static void reg_atexit(void)
{
    if (getpid() == reg_owner)
        proc_kill_all();
}

static void reg_add(pid_t pid)
{
    pthread_mutex_lock(&reg_mu);
    if (reg_owner != getpid()) {
        if (reg_owner == 0)
            atexit(reg_atexit);
        memset(reg, 0, sizeof(reg)); /* in a fork, the inherited list names the parent's */
        reg_owner = getpid();
    }
    size_t i = 0;
    while (i < PROC_MAX_AT_EXIT && reg[i] > 0)
        i++;
    if (i < PROC_MAX_AT_EXIT)
        reg[i] = pid;
    else
        fprintf(stderr, "proc: more than %d children to kill at exit; %ld is not listed\n",
                PROC_MAX_AT_EXIT, (long)pid);
    pthread_mutex_unlock(&reg_mu);
}

/* ---- before fork ---- */

/* The path to execute for name: name itself if it holds a '/', else the first
 * executable PATH entry (into buf). */
static int find_program(const char *name, char *buf, size_t cap)
{
    if (strchr(name, '/')) {
        snprintf(buf, cap, "%s", name);
        return ST_OK;
    }
    const char *path = getenv("PATH");
    for (const char *p = path && *path ? path : "/usr/bin:/bin"; *p;) {
        size_t len = strcspn(p, ":");
        snprintf(buf, cap, "%.*s/%s", (int)len, p, name);
        if (len > 0 && access(buf, X_OK) == 0)
            return ST_OK;
        p += len + (p[len] == ':');
    }
    return st_error(ST_NOT_FOUND, "proc: %s is not on PATH", name);
}

/* Whether entry ("NAME=VALUE") sets one of the names of env. */
static bool overridden(const char *entry, const char *const *env)
{
    size_t len = strcspn(entry, "=");
    for (; env && *env; env++)
        if (strncmp(*env, entry, len) == 0 && (*env)[len] == '=')
            return true;
    return false;
}

/* environ without the names env sets, then env; malloc'ed (the strings are not copied). */
static char **build_env(const char *const *env)
{
    size_t n = 0, extra = 0;
    while (environ[n])
        n++;
    while (env[extra])
        extra++;
    if (n + extra >= PROC_MAX_ENV)
        return NULL;
    char **out = calloc(n + extra + 1, sizeof(*out));
    size_t k = 0;
    for (size_t i = 0; out && i < n; i++)
        if (!overridden(environ[i], env))
            out[k++] = environ[i];
    for (size_t i = 0; out && i < extra; i++)
        out[k++] = (char *)env[i];
    return out;
}

/* ---- in the child ---- */

/* Between fork and exec: async-signal-safe calls only. */
static void child_exec(const proc_spec *s, const char *path, char *const envp[], pid_t parent,
                       const char *failed, size_t failed_len)
{
    if (s->own_group)
        setpgid(0, 0);
    if (s->die_with_parent) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) /* the parent died before the line above */
            _exit(1);
    }
    if (s->stdin_null) {
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0 && nul != 0) {
            dup2(nul, 0);
            close(nul);
        }
    }
    if (s->log) {
        int fd = open(s->log, O_WRONLY | O_CREAT | (s->log_truncate ? O_TRUNC : O_APPEND), 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            if (fd > 2)
                close(fd);
        }
    }
    if (s->stdout_fd > 0 && s->stdout_fd != 1) {
        dup2(s->stdout_fd, 1);
        if (s->stdout_fd > 2)
            close(s->stdout_fd);
    }
    execve(path, (char *const *)s->argv, envp);
    ssize_t w = write(2, failed, failed_len);
    (void)w;
    _exit(127);
}

/* ---- the API ---- */

int proc_spawn(const proc_spec *s, pid_t *pid)
{
    char path[4096], failed[4200];
    *pid = 0;
    if (!s->argv || !s->argv[0])
        return st_error(ST_INVALID_ARGUMENT, "proc: no program to run");
    int rc = find_program(s->path ? s->path : s->argv[0], path, sizeof(path));
    if (rc != ST_OK)
        return rc;
    char **envp = s->env ? build_env(s->env) : environ;
    if (!envp)
        return st_error(ST_NOMEM, "proc: cannot build the environment of %s", path);
    int failed_len = snprintf(failed, sizeof(failed), "proc: cannot exec %s\n", path);
    pid_t parent = getpid();
    fflush(NULL);
    pid_t child = fork();
    if (child == 0)
        child_exec(s, path, envp, parent, failed,
                   failed_len < (int)sizeof(failed) ? (size_t)failed_len : sizeof(failed) - 1);
    int err = errno;
    if (envp != environ)
        free(envp);
    if (child < 0)
        return st_error(ST_IO, "proc: fork for %s: %s", path, strerror(err));
    if (s->own_group)
        setpgid(child, child); /* also from here, so that the group exists on return */
    if (s->kill_at_exit)
        reg_add(child);
    *pid = child;
    return ST_OK;
}

int proc_wait(pid_t pid, int timeout_ms, int *status)
{
    uint64_t deadline = clock_mono_ns() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 0) * 1000000ull;
    int st = 0;
    for (;;) {
        pid_t got = waitpid(pid, &st, timeout_ms == PROC_FOREVER ? 0 : WNOHANG);
        if (got == pid) {
            reg_remove(pid);
            if (status)
                *status = st;
            return ST_OK;
        }
        if (got < 0 && errno != EINTR)
            return st_error(ST_IO, "proc: waitpid %ld: %s", (long)pid, strerror(errno));
        if (got == 0 && clock_mono_ns() >= deadline)
            return ST_TIMEOUT;
        if (got == 0)
            clock_sleep_ms(PROC_POLL_MS);
    }
}

int proc_signal(pid_t pid, int sig)
{
    if (pid <= 0 || kill(pid, sig) != 0)
        return st_error(ST_IO, "proc: kill %ld with signal %d: %s", (long)pid, sig,
                        pid <= 0 ? "no such process" : strerror(errno));
    return ST_OK;
}

int proc_signal_group(pid_t pid, int sig)
{
    if (pid <= 0 || kill(-pid, sig) != 0)
        return st_error(ST_IO, "proc: kill group %ld with signal %d: %s", (long)pid, sig,
                        pid <= 0 ? "no such group" : strerror(errno));
    return ST_OK;
}

/* Whether pid is a child of this process not yet reaped (running or a zombie). */
static bool is_child(pid_t pid)
{
    siginfo_t info;
    memset(&info, 0, sizeof(info));
    return waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0;
}

int proc_kill(pid_t pid, int *status)
{
    if (pid <= 0)
        return ST_OK;
    if (!is_child(pid)) /* never signal a pid that may have been reused */
        return st_error(ST_IO, "proc: %ld is not a child of this process", (long)pid);
    if (getpgid(pid) == pid)
        kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    return proc_wait(pid, PROC_FOREVER, status);
}

void proc_kill_all(void)
{
    pid_t left[PROC_MAX_AT_EXIT];
    size_t n = 0;
    pthread_mutex_lock(&reg_mu);
    if (reg_owner != getpid()) /* a fork: the list is the parent's */
        memset(reg, 0, sizeof(reg));
    for (size_t i = 0; i < PROC_MAX_AT_EXIT; i++)
        if (reg[i] > 0)
            left[n++] = reg[i];
    pthread_mutex_unlock(&reg_mu);
    for (size_t i = 0; i < n; i++) {
        proc_kill(left[i], NULL);
        reg_remove(left[i]); /* also when someone else reaped it */
    }
}

bool proc_alive(pid_t pid)
{
    char path[64], text[512];
    if (pid <= 0 || (kill(pid, 0) != 0 && errno == ESRCH))
        return false;
    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *rp = strrchr(text, ')');
    return rp && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X';
}

int proc_exit_code(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
