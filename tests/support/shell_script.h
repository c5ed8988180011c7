/*
 * shell_script.h - running `strata shell` scripts in integration tests: `$STRATA_BIN
 * shell <args>` with a script on stdin, its output normalised ("Took S.SSSS seconds" ->
 * "Took X seconds", server-assigned timestamps of 12+ digits after "timestamp=" -> "T"),
 * and the checks of test_shell and test_shell_parity (a script succeeds with exactly this
 * output; a script fails with status 1 and one "ERROR: ..." line containing a fragment).
 *
 * Thread-safety: single-threaded (one session directory per process).
 */
#ifndef STRATA_TESTS_SUPPORT_SHELL_SCRIPT_H
#define STRATA_TESTS_SUPPORT_SHELL_SCRIPT_H

typedef struct ssh_result {
    int status;
    char *out; /* normalised stdout */
    char *err; /* stderr as is */
} ssh_result;

/* Where scripts run: tmpdir holds the input/output files and is HOME; cluster_dir is
 * the local cluster (`--dir`) of ssh_run_dir. Both strings are kept. */
void ssh_init(const char *tmpdir, const char *cluster_dir);
/* `strata shell <args>` with script on stdin (NULL: empty). */
ssh_result ssh_run(const char *args, const char *script);
/* `strata shell --dir <cluster_dir> -n` with script on stdin. */
ssh_result ssh_run_dir(const char *script);
void ssh_result_free(ssh_result *r);
/* A whole file as a malloc'ed string ("" when it cannot be read). */
char *ssh_slurp(const char *path);
/* The normalised form of a shell's output (malloc'ed). */
char *ssh_normalise(const char *in);
/* ssh_run_dir(script) must exit 0 with exactly want as its normalised output. */
void ssh_expect(const char *script, const char *want);
/* ssh_run_dir(script) must exit 1 with one line "ERROR: ...frag..." on stderr; the result
 * is the caller's. */
ssh_result ssh_expect_fail_keep(const char *script, const char *frag);
void ssh_expect_fail(const char *script, const char *frag);

#endif
