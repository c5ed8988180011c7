/*
 * proc.h - child processes for tests: spawn a program with its argv, extra environment
 * and a log file; wait for it with a deadline; signal it; kill -9 and reap it; ask
 * whether a pid runs.
 *
 * A child is reaped by proc_wait (once it has exited) or proc_kill; one spawned with
 * kill_at_exit that is still running when the test process exits is SIGKILLed and reaped
 * by an atexit handler (in the process that spawned it, not in its forks). proc_kill
 * reaches the child's whole process group when the child leads one (own_group), so a
 * script and whatever it started die together.
 *
 * Every function that can fail returns a Strata status: ST_OK, or a negative code with
 * st_error() (proc_wait's ST_TIMEOUT, "still running", sets no message).
 * Thread-safety: any thread may spawn, wait and kill (the at-exit list has its own mutex);
 * with die_with_parent the child dies when the *thread* that spawned it ends, so spawn
 * long-lived servers from the test's main thread.
 */
#ifndef STRATA_TESTS_PROC_H
#define STRATA_TESTS_PROC_H

#include <stdbool.h>
#include <sys/types.h>

/* proc_wait's timeout that never ends. */
#define PROC_FOREVER (-1)

typedef struct proc_spec {
    /* NULL-terminated; argv[0] is also the program when path is NULL. */
    const char *const *argv;
    /* The program: a path, or a name looked up on PATH; NULL: argv[0]. */
    const char *path;
    /* NAME=VALUE entries set in the child over the inherited environment, NULL-terminated;
     * NULL: the environment as it is. */
    const char *const *env;
    /* The child's stdout and stderr go to this file, appended (created 0644); NULL: both
     * inherited. A log that cannot be opened leaves them inherited. */
    const char *log;
    bool log_truncate;    /* empty the log first */
    int stdout_fd;        /* > 0: the child's stdout instead (a pipe's write end, say) */
    bool stdin_null;      /* stdin from /dev/null instead of inherited */
    bool own_group;       /* the child leads a new process group */
    bool die_with_parent; /* SIGKILL when the spawning thread ends (PR_SET_PDEATHSIG) */
    bool kill_at_exit;    /* SIGKILLed and reaped at exit if still running */
} proc_spec;

/* Starts the program: ST_OK and *pid; ST_NOT_FOUND if the program is not on PATH, ST_IO
 * if fork failed (*pid 0 on failure). An exec that fails in the child exits 127 after a line on its
 * stderr. */
int proc_spawn(const proc_spec *spec, pid_t *pid);

/* Waits until the child pid exits, at most timeout_ms (0: only looks; PROC_FOREVER: no
 * limit): ST_OK with its wait status in *status (may be NULL) once it has exited and been
 * reaped; ST_TIMEOUT while it still runs; ST_IO if pid is not a child of this process. */
int proc_wait(pid_t pid, int timeout_ms, int *status);

/* Sends sig to pid / to the process group pid leads: ST_OK, or ST_IO (errno's message). */
int proc_signal(pid_t pid, int sig);
int proc_signal_group(pid_t pid, int sig);

/* kill -9 and reap: SIGKILL to pid (and to its group if it leads one), then waits for it;
 * its wait status in *status (may be NULL). ST_OK; ST_IO, with nothing signalled, if pid
 * is not an unreaped child of this process. pid <= 0: ST_OK, nothing done. */
int proc_kill(pid_t pid, int *status);

/* Kills and reaps every child spawned with kill_at_exit that has not been reaped: what
 * the atexit handler does, for a group teardown. */
void proc_kill_all(void);

/* Whether pid runs: it exists and is neither a zombie nor dead (/proc/<pid>/stat). */
bool proc_alive(pid_t pid);

/* A wait status as a shell reports it: the exit code, or 128 + the signal. */
int proc_exit_code(int status);

#endif
