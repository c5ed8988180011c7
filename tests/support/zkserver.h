/*
 * zkserver.h - a private, standalone ZooKeeper server for tests.
 *
 * zks_start() picks a free loopback port, makes a data directory (mkdtemp under $TMPDIR
 * or /tmp) with a zoo.cfg (tickTime 200, session timeouts 400..60000 ms, four-letter
 * words ruok and srvr), runs
 *   java -cp '/usr/share/java/<all jars>' org.apache.zookeeper.server.ZooKeeperServerMain zoo.cfg
 * in its own process group with its output in <dir>/zookeeper.log, and waits (up to 30 s)
 * until it answers "ruok" with "imok". The server dies with the test: an atexit handler
 * kills every server still running (SIGKILL) and removes its directory (in the process that
 * started it, not in its forks), and the child is
 * started with PR_SET_PDEATHSIG so that it also dies if the test crashes (start servers
 * from the test's main thread: the signal follows the thread that forked).
 *
 * Every function returns a Strata status (ST_OK, or a negative code with st_error()).
 * Thread-safety: one server is driven from one thread; several servers may run at once.
 */
#ifndef STRATA_TESTS_ZKSERVER_H
#define STRATA_TESTS_ZKSERVER_H

typedef struct zkserver zkserver;

/* Starts a server and waits until it serves: ST_OK and *out, or ST_IO / ST_TIMEOUT
 * (the message quotes the end of its log). */
int zks_start(zkserver **out);
/* "127.0.0.1:<port>", the quorum string for zk_options. Valid until zks_stop. */
const char *zks_quorum(const zkserver *s);
int zks_port(const zkserver *s);
/* The server's data directory (zoo.cfg, data/, zookeeper.log). */
const char *zks_dir(const zkserver *s);

/* Kills the server, removes its directory and frees s. NULL is a no-op (ST_OK). */
int zks_stop(zkserver *s);
/* Freezes (SIGSTOP) / thaws (SIGCONT) the server: clients see a silent server, as over
 * a network partition; sessions expire by the server's clock once it runs again. */
int zks_pause(zkserver *s);
int zks_resume(zkserver *s);
/* Kills the server (SIGKILL) but keeps its directory: clients see connection refused.
 * zks_restart brings it back. */
int zks_kill(zkserver *s);
/* Kills the server if it runs and starts it again on the same port and data directory
 * (sessions and persistent nodes survive as ZooKeeper's own restart allows); waits as
 * zks_start does. */
int zks_restart(zkserver *s);

#endif
