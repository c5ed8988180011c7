/*
 * tools.h - the `strata` binary's subcommands. Each takes the arguments after its
 * name (argv[0] is the subcommand) and returns the process exit status.
 */
#ifndef STRATA_TOOLS_TOOLS_H
#define STRATA_TOOLS_TOOLS_H

/* strata bench engine [--num N] [--workloads w1,w2,...] [--value-size B] [--json]
 *                     [--threads T] [--dir D] [--engines e1,...]
 *                     [--repeat N] [--compare FILE.json [--spread PCT]]
 * argv[1] is the mode: "engine" (tools/bench_engine.c), "failover" (bench_failover_main),
 * "ycsb" (bench_ycsb_main), anything else the cluster mode below. */
int bench_main(int argc, char **argv);
/* strata bench [--rows N] [--threads T] [--value-size B] [--json] [--server host:port]
 *              [--regions R] [--concurrent] [--autoflush] [--table NAME]
 *              [--split-policy NAME] [--max-filesize SIZE] [--flush-size SIZE]
 *              [--table-value KEY=VALUE]... WORKLOAD...
 * (cluster mode, tools/bench_cluster.c; --help lists every option) */
int bench_cluster_main(int argc, char **argv);

/* strata bench failover --dir D --fault KIND [--faults N] [--writers W] [--readers R]
 *                       [--batch B] ... : a failover drill against a local cluster
 * (argv[0] is "failover"; tools/bench_failover.c, docs/performance.md; --help lists every
 * option). */
int bench_failover_main(int argc, char **argv);

/* strata bench ycsb (--dir D | --zk.quorum Q) [--workload a..f] [--phase load|run|both]
 *                   ... : YCSB's core workloads through the client (argv[0] is "ycsb";
 * tools/bench_ycsb.c, docs/performance.md "YCSB workloads"; --help lists every option). */
int bench_ycsb_main(int argc, char **argv);

/* strata bench rest (--dir D | --zk.quorum Q --rest HOST:PORT) [--clients 8,32] ... : gets
 * and puts through the REST gateway against the C client, and the gateway's memory with
 * open scanners (argv[0] is "rest"; tools/bench_rest.c, docs/rest.md). */
int bench_rest_main(int argc, char **argv);

/* strata verify linkedlist generate|verify|walk ... | strata verify acid ... : HBase's
 * IntegrationTestBigLinkedList and TestAcidGuarantees against a cluster (argv[0] is
 * "verify"; tools/verify_main.c, docs/reliability.md "Verifiers"; --help lists every
 * option). */
int verify_main(int argc, char **argv);

/* strata regionserver [--config F] [--KEY=VALUE ...] [--print-config]
 * (tools/regionserver_main.c; docs/regionserver.md). */
int regionserver_main(int argc, char **argv);

/* strata master [--config F] [--KEY=VALUE ...] [--print-config]
 * (tools/master_main.c; docs/master.md). */
int master_main(int argc, char **argv);

/* strata rest [start] [--config F] [--KEY=VALUE ...] [--print-config]: the REST gateway
 * (tools/rest_main.c, rest/; docs/rest.md). */
int rest_main(int argc, char **argv);

/* strata cluster start|status|stop|kill|restart ... : a local cluster on loopback
 * (tools/cluster.c; docs/cluster.md). */
int cluster_main(int argc, char **argv);

/* strata shell [-n] [-e CMD]... [--dir D | --zk.quorum Q] [--config F] [SCRIPT]: the
 * HBase-shell work-alike (tools/shell_main.c, shell/; docs/shell.md). */
int shell_main(int argc, char **argv);

/* strata hbck [--dir D | --zk.quorum Q] [--root PATH] [--json] [TABLE...] and HBCK2's
 * repairs (tools/hbck.c; docs/hbck.md). Exit 0 consistent, 1 inconsistent, 2 not run. */
int hbck_main(int argc, char **argv);

#endif
