/*
 * strata_main.c - the `strata` binary: dispatches to subcommands.
 */
#include <stdio.h>
#include <string.h>

#include "tools/chaos.h"
#include "tools/tools.h"

#define STRATA_VERSION "0.1.0"

static void usage(FILE *out)
{
    fprintf(out, "usage: strata <command> [args]\n"
                 "commands:\n"
                 "  master [--config F] [--KEY=VALUE ...] [--print-config]\n"
                 "                 the master: meta, assignment, DDL (docs/master.md)\n"
                 "  regionserver [--config F] [--KEY=VALUE ...] [--print-config]\n"
                 "                 serve regions over RPC (docs/regionserver.md)\n"
                 "  bench [--rows N] [--threads T] [--value-size B] [--json] [--server H:P]\n"
                 "        [--regions R] [--rate OPS] [--concurrent] [--autoflush]\n"
                 "        [--table NAME] [--split-policy NAME] [--max-filesize SIZE]\n"
                 "        [--flush-size SIZE] [--table-value KEY=VALUE]... WORKLOAD...\n"
                 "                 PerformanceEvaluation workloads against a region server\n"
                 "  bench engine [--num N] [--workloads w1,w2,...] [--value-size B] [--json]\n"
                 "                 storage-engine benchmark (Strata vs RocksDB/LevelDB)\n"
                 "  rest [start] [--zk.quorum Q] [--rest.port P] [--KEY=VALUE ...]\n"
                 "                 the REST gateway: HBase's REST API over HTTP (docs/rest.md)\n"
                 "  cluster start [--regionservers N] [--masters M] [--dir D] [--KEY=VALUE ...]\n"
                 "  cluster status|stop [--dir D]   cluster kill|restart [--dir D] NAME\n"
                 "                 a local cluster: ZooKeeper, masters, region servers (docs/cluster.md)\n"
                 "  chaos (--dir D | --zk.quorum Q --control C) (--duration D | --actions N)\n"
                 "        [--policy P] [--kinds A,B] [--period-ms MS] [--seed S] [--json]\n"
                 "                 the chaos monkey: kills, pauses, moves, splits on a schedule\n"
                 "                 (docs/chaos.md)\n"
                 "  shell [-n] [-e CMD]... [--dir D | --zk.quorum Q] [--config F] [SCRIPT]\n"
                 "                 the HBase-style shell: DDL, put/get/scan, admin (docs/shell.md)\n"
                 "  verify linkedlist generate|verify|walk (--dir D | --zk.quorum Q) ...\n"
                 "  verify acid (--dir D | --zk.quorum Q) [--duration S] ...\n"
                 "                 HBase's BigLinkedList and ACID verifiers (docs/reliability.md)\n"
                 "  hbck [--dir D | --zk.quorum Q] [--root PATH] [--json] [TABLE...]\n"
                 "  hbck COMMAND ARGS   consistency report and HBCK2 repairs (docs/hbck.md)\n"
                 "  version        print the version\n"
                 "  help           this text\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "bench") == 0)
        return bench_main(argc - 1, argv + 1);
    if (strcmp(cmd, "regionserver") == 0) return regionserver_main(argc - 1, argv + 1);
    if (strcmp(cmd, "chaos") == 0)
        return chaos_main(argc - 1, argv + 1);
    if (strcmp(cmd, "cluster") == 0)
        return cluster_main(argc - 1, argv + 1);
    if (strcmp(cmd, "master") == 0)
        return master_main(argc - 1, argv + 1);
    if (strcmp(cmd, "hbck") == 0)
        return hbck_main(argc - 1, argv + 1);
    if (strcmp(cmd, "rest") == 0)
        return rest_main(argc - 1, argv + 1);
    if (strcmp(cmd, "shell") == 0)
        return shell_main(argc - 1, argv + 1);
    if (strcmp(cmd, "verify") == 0)
        return verify_main(argc - 1, argv + 1);
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        printf("strata %s\n", STRATA_VERSION);
        return 0;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "strata: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
