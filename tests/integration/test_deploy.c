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

/* The repository from this file's absolute path: 0, or 1 if __FILE__ is not one. */
static int find_repo(void)
{
    const char *suffix = "/tests/integration/test_deploy.c";
    size_t n = strlen(__FILE__), s = strlen(suffix);
    if (n <= s || strcmp(__FILE__ + n - s, suffix) != 0 || __FILE__[0] != '/') {
        fprintf(stderr, "test_deploy: cannot find the repository from %s\n", __FILE__);
        return 1;
    }
    snprintf(repo_dir, sizeof(repo_dir), "%.*s", (int)(n - s), __FILE__);
    return 0;
}

/* An executable named name on PATH. */
static int on_path(const char *name)
{
    const char *path = getenv("PATH");
    char buf[PATH_MAX];
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t len = strcspn(p, ":");
        snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, p, name);
        if (len > 0 && access(buf, X_OK) == 0)
            return 1;
        p += len + (p[len] == ':');
    }
    return 0;
}

/* Runs argv (stdout and stderr into out, at most OUTPUT_MAX bytes kept) in its own process
 * group; after limit_s seconds it gets SIGTERM, 30 s later the group SIGKILL. Returns the
 * exit status, 128 + signal when killed, -1 when it could not run. */
static int run(char *const argv[], int limit_s, char **out)
{
    char log[] = "/tmp/strata-deploy-XXXXXX";
    int fd = mkostemp(log, O_CLOEXEC), status = -1;
    pid_t pid = 0;
    *out = NULL;
    if (fd < 0)
        return -1;
    proc_spec spec = {
        .argv = (const char *const *)argv, .log = log, .stdin_null = true, .own_group = true};
    int rc = proc_spawn(&spec, &pid);
    if (rc == ST_OK && proc_wait(pid, limit_s * 1000, &status) == ST_TIMEOUT) {
        fprintf(stderr, "%s: time limit of %d s, sending SIGTERM\n", argv[0], limit_s);
        proc_signal(pid, SIGTERM);
        if (proc_wait(pid, 30000, &status) == ST_TIMEOUT)
            proc_kill(pid, &status); /* it and its group */
        /* whatever of the group outlived the time limit */
        proc_signal_group(pid, SIGKILL);
    }
    if (rc == ST_OK)
        status = proc_exit_code(status);
    else
        fprintf(stderr, "%s: %s\n", argv[0], st_errmsg());
    unlink(log); /* only now: the child opens it by name */
    off_t size = lseek(fd, 0, SEEK_END);
    off_t from = size > OUTPUT_MAX ? size - OUTPUT_MAX : 0;
    char *buf = calloc(1, (size_t)(size - from) + 1);
    if (buf && pread(fd, buf, (size_t)(size - from), from) < 0)
        buf[0] = '\0';
    close(fd);
    *out = buf;
    return status;
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
    if (!on_path("docker-compose"))
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
    if (!bin || !on_path("dpkg") || !on_path("readelf"))
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
    if (geteuid() != 0 || !on_path("ip") || !bin)
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
    if (!on_path("nft"))
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
