/*
 * shell.h - `strata shell`: an HBase-shell work-alike over the client library
 * (strata/strata.h for data, strata/admin.h for administration). Commands, argument
 * syntax and output follow HBase 2's shell; docs/shell.md lists every command.
 *
 * A session runs statements from a string (-e), a stream (a script file or stdin) or an
 * interactive terminal (libedit line editing, history in ~/.strata_history). Nothing is
 * contacted until the first command that needs the cluster; that first contact is
 * bounded by the connect timeout (10 s by default), later calls by the admin and
 * operation timeouts (60 s).
 *
 * Errors: a failed command prints one line "ERROR: <what failed and why>" (stdout and a
 * usage hint when interactive, stderr otherwise). Non-interactive runs stop at the first
 * failure.
 *
 * Thread-safety: a session belongs to one thread.
 */
#ifndef STRATA_SHELL_SHELL_H
#define STRATA_SHELL_SHELL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define SHELL_VERSION "0.1.0"
/* What the run functions return when every statement ran and none asked to exit. */
#define SHELL_CONTINUE (-1)

typedef struct shell_config {
    const char *quorum;           /* ZooKeeper "host:port[,...]"; NULL or "": none given */
    const char *parent;           /* parent znode; NULL or "": "/strata" */
    int64_t admin_timeout_ms;     /* <= 0: 60000 */
    int64_t operation_timeout_ms; /* data operations incl. retries; <= 0: 60000 */
    int64_t rpc_timeout_ms;       /* one data RPC; <= 0: 10000 */
    int64_t connect_timeout_ms;   /* the first contact with the cluster; <= 0: 10000 */
    const char *history_file;     /* NULL or "": $HOME/.strata_history */
    bool interactive;             /* keep going after errors; usage hints; stdout errors */
} shell_config;

typedef struct shell_session shell_session;

/* A session writing results to out and (non-interactive) errors to err. The strings of
 * c are copied. ST_OK and *s, or ST_NOMEM. */
int shell_open(const shell_config *c, FILE *out, FILE *err, shell_session **s);
/* Closes the cluster connections. NULL is a no-op. */
void shell_close(shell_session *s);

/* Runs every statement of text (lines, ';'-separated statements). SHELL_CONTINUE when
 * all ran; otherwise the exit status to stop with: 1 after a failure in a
 * non-interactive session, or the status given to `exit`. */
int shell_run_text(shell_session *s, const char *text);
/* The same for every line of in. */
int shell_run_stream(shell_session *s, FILE *in);
/* A terminal session: banner, prompt `strata(main):001:0> `, line editing and history,
 * until end of input or `exit`. Returns the exit status. */
int shell_run_interactive(shell_session *s);

#endif
