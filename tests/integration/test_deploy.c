/*
 * test_deploy.c - deploy/ (docs/deploy.md): the compose file, the Dockerfile's runtime
 * libraries, and the compose topology run without Docker in network namespaces.
 *
 * Tests:
 *   - compose_config_valid: `docker-compose -f deploy/docker-compose.yml config -q`
 *     exits 0 (skipped when docker-compose is not installed).
 *   - dockerfile_runtime_libraries: deploy/check-dockerfile-libs.sh $STRATA_BIN: every
 *     library the binary links that the Dockerfile's build stage can link has its runtime
 *     package in the runtime stage (skipped without STRATA_BIN, dpkg or readelf).
 *   - netns_cluster: deploy/netns-cluster.sh (ZooKeeper, two masters, three region servers
 *     from the compose file, each in its own network namespace, checked through `strata
 *     shell`: data, /readyz, failover of the active master, graceful stops) with the
 *     partition drill (--partition-drill 50: region servers cut off from ZooKeeper and
 *     active masters cut off from everyone under a linked-list load, docs/reliability.md)
 *     and shaped links (--rs-bandwidth), bounded by NETNS_LIMIT_S; skipped unless root
 *     with `ip` (the drill also needs `nft`). Its output is printed; a non-zero exit fails
 *     the test.
 *
 * A skipped case prints "SKIP: <case>: <why>" and the executable exits 77 (CTest: Skipped).
 *
 * The repository is found from this file's path (__FILE__ is absolute: CMake compiles
 * sources by their full path). Child processes run in their own process group; at the
 * time limit the child gets SIGTERM (the script then cleans up), 30 s later the group
 * SIGKILL.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/status.h"
#include "tests/support/proc.h"
#include "tests/support/testutil.h"

#define NETNS_LIMIT_S 420
#define CONFIG_LIMIT_S 60
#define OUTPUT_MAX (256 * 1024)

static char repo_dir[PATH_MAX];

/* ---- helpers ---- */

static int find_repo(void)
{
    return tu_repo_dir(__FILE__, repo_dir, sizeof(repo_dir));
}

static int run(char *const argv[], int limit_s, char **out)
{
    return tu_run((const char *const *)argv, limit_s, OUTPUT_MAX, out);
}

/* A child's output on stdout (print_message would cut it). */
static void print_output(const char *out)
{
    if (out)
        fputs(out, stdout);
    fflush(stdout);
}

/* ---- tests ---- */

static void compose_config_valid(void **state)
{
    (void)state;
    if (!tu_on_path("docker-compose"))
        tu_skip(__func__, "docker-compose is not installed (deploy/deps.sh installs it)");
    char file[PATH_MAX + 64], *out = NULL;
    snprintf(file, sizeof(file), "%s/deploy/docker-compose.yml", repo_dir);
    char *argv[] = {"docker-compose", "-f", file, "config", "-q", NULL};
    int rc = run(argv, CONFIG_LIMIT_S, &out);
    print_output(out);
    free(out);
    if (rc != 0)
        fail_msg("docker-compose -f %s config -q: status %d (output above)", file, rc);
}

static void dockerfile_runtime_libraries(void **state)
{
    (void)state;
    const char *bin = getenv("STRATA_BIN");
    if (!bin || !tu_on_path("dpkg") || !tu_on_path("readelf"))
        tu_skip(__func__, "needs STRATA_BIN, dpkg and readelf");
    char script[PATH_MAX + 64], *out = NULL;
    snprintf(script, sizeof(script), "%s/deploy/check-dockerfile-libs.sh", repo_dir);
    char *argv[] = {"bash", script, (char *)bin, NULL};
    int rc = run(argv, CONFIG_LIMIT_S, &out);
    print_output(out);
    free(out);
    if (rc != 0)
        fail_msg("deploy/check-dockerfile-libs.sh: status %d (output above)", rc);
}

static void netns_cluster(void **state)
{
    (void)state;
    const char *bin = getenv("STRATA_BIN");
    if (geteuid() != 0 || !tu_on_path("ip") || !bin)
        tu_skip(__func__, "the netns cluster needs root, iproute2's ip and STRATA_BIN");
    /* Root without CAP_NET_ADMIN (an unprivileged container) cannot make namespaces. */
    char probe[160];
    snprintf(probe, sizeof(probe),
             "ip netns add strata-probe-%ld >/dev/null 2>&1 && ip netns del strata-probe-%ld",
             (long)getpid(), (long)getpid());
    if (system(probe) != 0)
        tu_skip(__func__, "this machine does not allow network namespaces (ip netns add failed)");
    char script[PATH_MAX + 64], limit[16], *out = NULL;
    snprintf(script, sizeof(script), "%s/deploy/netns-cluster.sh", repo_dir);
    snprintf(limit, sizeof(limit), "%d", NETNS_LIMIT_S - 20);
    /* The region servers' links shaped too (--rs-bandwidth), wide enough not to slow it. */
    if (!tu_on_path("nft"))
        tu_skip(__func__, "the partition drill needs nft (Debian's nftables)");
    char *argv[] = {"bash",  script,         "--strata", (char *)bin,       "--timeout", limit,
                    "--rs-bandwidth", "200mbit", "--partition-drill", "50", NULL};
    int rc = run(argv, NETNS_LIMIT_S, &out);
    print_output(out);
    free(out);
    if (rc != 0)
        fail_msg("deploy/netns-cluster.sh exited with status %d (output above)", rc);
}

int main(void)
{
    if (find_repo())
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(compose_config_valid),
        cmocka_unit_test(dockerfile_runtime_libraries),
        cmocka_unit_test(netns_cluster),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
