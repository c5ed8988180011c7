/*
 * test_testutil.c - the test support's exit cleanup: the command runs once, at exit, on
 * SIGTERM (the process still dies of the signal) and when called, never twice; a
 * command too long is refused.
 * Each case runs in a forked child so the cleanup registration stays out of this process.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/testutil.h"

static char marks[256];

/* Lines in the marks file (each cleanup run appends one). */
static int count_marks(void)
{
    FILE *f = fopen(marks, "r");
    if (!f)
        return 0;
    int n = 0, ch;
    while ((ch = fgetc(f)) != EOF)
        n += ch == '\n';
    fclose(f);
    return n;
}

static int setup(void **state)
{
    (void)state;
    snprintf(marks, sizeof(marks), "/tmp/strata-testutil-%ld", (long)getpid());
    unlink(marks);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(marks);
    return 0;
}

/* Runs body in a forked child (which ends as body ends it) and returns its wait status. */
static int in_child(void (*body)(void))
{
    fflush(NULL); /* the child exits through exit(): no buffered output twice */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        body();
        _exit(99); /* body returned */
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static void register_mark(void)
{
    if (tu_cleanup_on_exit("echo ran >> %s", marks) != 0)
        _exit(2);
}

static void call_twice_then_exit(void)
{
    register_mark();
    tu_cleanup_now();
    tu_cleanup_now();
    exit(0); /* atexit: already ran, so nothing more */
}

static void runs_once_at_exit_even_after_a_call(void **state)
{
    (void)state;
    int status = in_child(call_twice_then_exit);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(count_marks(), 1);
}

static void register_then_exit(void)
{
    register_mark();
    exit(3);
}

static void runs_at_exit(void **state)
{
    (void)state;
    int status = in_child(register_then_exit);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 3);
    assert_int_equal(count_marks(), 1);
}

static void runs_on_sigterm_and_the_signal_still_kills(void **state)
{
    (void)state;
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    fflush(NULL); /* the child exits through exit(): no buffered output twice */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(ready[0]);
        register_mark();
        (void)!write(ready[1], "x", 1);
        for (;;)
            pause();
    }
    close(ready[1]);
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);
    assert_int_equal(kill(pid, SIGTERM), 0);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGTERM);
    assert_int_equal(count_marks(), 1);
}

static void register_too_long(void)
{
    static char big[20000];
    memset(big, 'a', sizeof(big) - 1);
    int rc = tu_cleanup_on_exit("echo %s >> %s", big, marks);
    tu_cleanup_now(); /* nothing registered: no run */
    _exit(rc == -1 ? 0 : 1);
}

static void too_long_a_command_is_refused(void **state)
{
    (void)state;
    int status = in_child(register_too_long);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(count_marks(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(runs_once_at_exit_even_after_a_call, setup, teardown),
        cmocka_unit_test_setup_teardown(runs_at_exit, setup, teardown),
        cmocka_unit_test_setup_teardown(runs_on_sigterm_and_the_signal_still_kills, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(too_long_a_command_is_refused, setup, teardown),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
