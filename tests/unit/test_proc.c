/*
 * test_proc.c - tests/support/proc.h, the spawn/wait/kill helper the other tests use,
 * on /bin/sh: exit codes and signals in the wait status, extra environment over the
 * inherited one, the log (appended or truncated) and a pipe as stdout, stdin from
 * /dev/null, a wait that times out leaving the child running, kill -9 reaching the
 * whole process group, a program not on PATH, a zombie that is not alive, and kill
 * refusing a pid that is not a child.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/fileio.h"
#include "common/status.h"
#include "tests/support/proc.h"
#include "tests/support/testutil.h"

static int setup(void **state)
{
    *state = tu_tempdir("proc");
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    tu_rmdir(*state);
    return 0;
}

/* Runs sh -c script to its end (at most 10 s); returns the wait status. */
static int sh(const char *script, const proc_spec *base)
{
    const char *argv[] = {"sh", "-c", script, NULL};
    proc_spec s = base ? *base : (proc_spec){0};
    s.argv = argv;
    pid_t pid = 0;
    int status = -1;
    assert_int_equal(proc_spawn(&s, &pid), ST_OK);
    assert_int_equal(proc_wait(pid, 10000, &status), ST_OK);
    return status;
}

static char *slurp(const char *path)
{
    buf_t b = {0};
    assert_int_equal(fio_read_all(path, &b), ST_OK);
    assert_int_equal(buf_append_u8(&b, 0), ST_OK);
    return (char *)b.data;
}

static void exit_code_and_signal_in_the_status(void **state)
{
    int st = sh("exit 3", NULL);
    assert_true(WIFEXITED(st));
    assert_int_equal(proc_exit_code(st), 3);
    st = sh("kill -TERM $$", NULL);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(proc_exit_code(st), 128 + SIGTERM);
}

static void env_over_inherited_and_log(void **state)
{
    char log[600];
    snprintf(log, sizeof(log), "%s/out.log", (char *)*state);
    setenv("PROC_TEST_KEPT", "kept", 1);
    setenv("PROC_TEST_SET", "old", 1);
    const char *env[] = {"PROC_TEST_SET=new", "PROC_TEST_ADDED=added", NULL};
    proc_spec s = {.env = env, .log = log};
    assert_int_equal(sh("echo $PROC_TEST_KEPT $PROC_TEST_SET $PROC_TEST_ADDED; echo err >&2", &s),
                     0);
    assert_int_equal(sh("echo again", &s), 0); /* appended */
    char *text = slurp(log);
    assert_string_equal(text, "kept new added\nerr\nagain\n");
    free(text);
    s.log_truncate = true;
    assert_int_equal(sh("echo fresh", &s), 0);
    text = slurp(log);
    assert_string_equal(text, "fresh\n");
    free(text);
    unsetenv("PROC_TEST_KEPT");
    unsetenv("PROC_TEST_SET");
}

static void stdout_to_a_pipe_and_stdin_null(void **state)
{
    int fds[2];
    assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
    proc_spec s = {.stdout_fd = fds[1], .stdin_null = true};
    assert_int_equal(sh("read line; echo \"read:$?:$line\"", &s), 0);
    close(fds[1]);
    char buf[64] = "";
    ssize_t n = read(fds[0], buf, sizeof(buf) - 1);
    close(fds[0]);
    assert_true(n > 0);
    assert_string_equal(buf, "read:1:\n"); /* end of file at once */
}

static void wait_times_out_then_kill_reaps(void **state)
{
    const char *argv[] = {"sleep", "30", NULL};
    proc_spec s = {.argv = argv};
    pid_t pid = 0;
    int status = 0;
    assert_int_equal(proc_spawn(&s, &pid), ST_OK);
    assert_int_equal(proc_wait(pid, 0, &status), ST_TIMEOUT);
    uint64_t t0 = clock_mono_ns();
    assert_int_equal(proc_wait(pid, 200, &status), ST_TIMEOUT);
    assert_true(clock_mono_ns() - t0 >= 200000000ull);
    assert_true(proc_alive(pid));
    assert_int_equal(proc_signal(pid, SIGSTOP), ST_OK);
    assert_int_equal(proc_kill(pid, &status), ST_OK); /* a stopped process dies too */
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGKILL);
    assert_false(proc_alive(pid));
    /* reaped: no longer ours to signal */
    assert_int_equal(proc_kill(pid, NULL), ST_IO);
    assert_int_equal(proc_wait(pid, 0, NULL), ST_IO);
}

static void kill_reaches_the_group(void **state)
{
    char pidfile[600], script[800];
    snprintf(pidfile, sizeof(pidfile), "%s/grandchild.pid", (char *)*state);
    snprintf(script, sizeof(script), "sleep 30 & echo $! > %s; wait", pidfile);
    const char *argv[] = {"sh", "-c", script, NULL};
    proc_spec s = {.argv = argv, .own_group = true};
    pid_t pid = 0;
    assert_int_equal(proc_spawn(&s, &pid), ST_OK);
    assert_int_equal(getpgid(pid), pid);
    long grandchild = 0;
    for (int i = 0; i < 500 && grandchild <= 0; i++) {
        FILE *f = fopen(pidfile, "r");
        if (!f || fscanf(f, "%ld", &grandchild) != 1)
            clock_sleep_ms(10);
        if (f)
            fclose(f);
    }
    assert_true(grandchild > 0);
    assert_true(proc_alive((pid_t)grandchild));
    assert_int_equal(proc_kill(pid, NULL), ST_OK);
    /* the grandchild is init's to reap: wait until it is gone or a zombie */
    for (int i = 0; i < 500 && proc_alive((pid_t)grandchild); i++)
        clock_sleep_ms(10);
    assert_false(proc_alive((pid_t)grandchild));
}

static void missing_program_and_zombie(void **state)
{
    const char *missing[] = {"strata-no-such-program", NULL};
    proc_spec s = {.argv = missing};
    pid_t pid = 1;
    assert_int_equal(proc_spawn(&s, &pid), ST_NOT_FOUND);
    assert_int_equal(pid, 0);
    const char *quick[] = {"true", NULL};
    s.argv = quick;
    assert_int_equal(proc_spawn(&s, &pid), ST_OK);
    for (int i = 0; i < 500 && proc_alive(pid); i++)
        clock_sleep_ms(10);
    assert_false(proc_alive(pid)); /* exited, not yet reaped: a zombie */
    int status = -1;
    assert_int_equal(proc_wait(pid, 0, &status), ST_OK);
    assert_int_equal(proc_exit_code(status), 0);
    assert_int_equal(proc_kill(getppid(), NULL), ST_IO); /* never signals a non-child */
    assert_true(proc_alive(getppid()));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exit_code_and_signal_in_the_status),
        cmocka_unit_test_setup_teardown(env_over_inherited_and_log, setup, teardown),
        cmocka_unit_test(stdout_to_a_pipe_and_stdin_null),
        cmocka_unit_test(wait_times_out_then_kill_reaps),
        cmocka_unit_test_setup_teardown(kill_reaches_the_group, setup, teardown),
        cmocka_unit_test(missing_program_and_zombie),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
