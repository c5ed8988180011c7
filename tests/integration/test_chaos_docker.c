/*
 * test_chaos_docker.c - deploy/chaos-docker.sh, the docker control backend of `strata
 * chaos` (docs/chaos.md, "Control backends"), against a real Docker engine.
 *
 * main starts the engine with deploy/docker-engine.sh (an engine that answers, else a
 * private dockerd under /tmp/strata-chaos-docker-<pid>) and imports debian:bookworm-slim
 * (`base-image`, from the image cache /var/tmp/strata-docker-cache after the first run);
 * then a user-defined network strata-chaos-test-<pid>-net and containers on it, each with
 * the compose project label com.docker.compose.project=strata-chaos-test-<pid>, run with
 * STRATA_CHAOS_PROJECT set to that project:
 *   - verbs: container ...-rs1 (--hostname rs1, alias rs1, `sleep 600` under --init so
 *     that SIGTERM ends it) and a decoy in another project, created after it with the same
 *     host name and alias (the newest container is the first `docker ps` lists): alive 0;
 *     stop paused, alive non-zero; cont running, alive 0; kill not running, alive
 *     non-zero; start running, alive 0; term exits, alive non-zero; start again 0. The
 *     decoy is never touched.
 *   - exit_codes: an unknown host exits 3 (also rs1 under another project); an unknown
 *     verb 2, for a known host and for an unknown one.
 *   - restarting_is_not_alive: a container crash-looping under --restart always (docker
 *     reports Running=true while it waits to restart) is not alive (the script said it
 *     was).
 *   - start_fails_fast: start of a container whose command exits at once fails within
 *     10 s (the script polled for 600 rounds, about 100 s, before failing).
 *   - start_waits_for_health: start of a container with a health check that passes only
 *     2 s after it starts returns once it is healthy.
 * Each check reads the container's state with `docker inspect`.
 *
 * Skipped (exit 77, "SKIP: <case>: <why>") unless root with docker and dockerd, or an
 * engine that answers, and unless the engine starts and the base image can be made
 * (debootstrap from apt's mirror). The containers, the network and the engine if the
 * harness started it are removed on every exit: an atexit handler, and a SIGTERM/SIGINT
 * handler that runs the same precomputed shell command (fork and execve only).
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

#define ENGINE_LIMIT_S 120 /* start, stop */
#define IMAGE_LIMIT_S 300  /* a debootstrap on the first run */
#define CMD_LIMIT_S 120    /* a docker or chaos-docker.sh command */
#define OUTPUT_MAX (64 * 1024)


static char repo_dir[PATH_MAX];
static char engine_sh[PATH_MAX + 64], chaos_sh[PATH_MAX + 64];
static char state_dir[128], project[64], net[96];

/* ---- helpers ---- */

/* The repository and its scripts. */
static int find_repo(void)
{
    if (tu_repo_dir(__FILE__, repo_dir, sizeof(repo_dir)))
        return 1;
    snprintf(engine_sh, sizeof(engine_sh), "%s/deploy/docker-engine.sh", repo_dir);
    snprintf(chaos_sh, sizeof(chaos_sh), "%s/deploy/chaos-docker.sh", repo_dir);
    return 0;
}

static int run(const char *const argv[], int limit_s, char **out)
{
    return tu_run(argv, limit_s, OUTPUT_MAX, out);
}

/* `chaos-docker.sh VERB regionserver HOST:17020 HOST 17020`: its exit status. */
static int chaos(const char *verb, const char *host)
{
    char name[128];
    snprintf(name, sizeof(name), "%s:17020", host);
    const char *argv[] = {"sh", chaos_sh, verb, "regionserver", name, host, "17020", NULL};
    char *out = NULL;
    uint64_t t0 = clock_mono_ns();
    int rc = run(argv, CMD_LIMIT_S, &out);
    printf("  chaos-docker.sh %s %s: exit %d in %.2f s%s%s", verb, host, rc,
           (double)(clock_mono_ns() - t0) / 1e9, out && out[0] ? ": " : "\n", out ? out : "");
    fflush(stdout);
    free(out);
    return rc;
}

/* `docker ARGS...` (NULL-terminated), failing the case unless it exits 0; its output
 * without the last newline into out (cap bytes) if out is not NULL. */
static void docker(char *out, size_t cap, ...)
{
    const char *argv[32] = {"docker"};
    int n = 1;
    va_list ap;
    va_start(ap, cap);
    while (n < 31 && (argv[n] = va_arg(ap, const char *)) != NULL)
        n++;
    va_end(ap);
    argv[n] = NULL;
    char *text = NULL;
    int rc = run(argv, CMD_LIMIT_S, &text);
    if (rc != 0)
        fail_msg("docker %s %s: exit %d: %s", argv[1], argv[2] ? argv[2] : "", rc,
                 text ? text : "");
    if (out) {
        snprintf(out, cap, "%s", text ? text : "");
        out[strcspn(out, "\n")] = '\0';
    }
    free(text);
}

/* The container's .State.Status (running, paused, exited ...). */
static const char *status_of(const char *container, char *buf, size_t cap)
{
    docker(buf, cap, "inspect", "-f", "{{.State.Status}}", container, NULL);
    return buf;
}

static void assert_status(const char *container, const char *want)
{
    char got[64];
    status_of(container, got, sizeof(got));
    if (strcmp(got, want) != 0)
        fail_msg("%s is %s, not %s", container, got, want);
}

/* Container <project>-<suffix> on the network, host name and alias host, in the project
 * (or project_label), from debian:bookworm-slim; extra options (NULL-terminated list)
 * before the image, then cmd (NULL-terminated). create: docker create, else run -d. */
static void container(const char *suffix, const char *host, const char *project_label,
                      bool create, const char *const *opts, const char *const *cmd)
{
    char name[128], label[128];
    snprintf(name, sizeof(name), "%s-%s", project, suffix);
    snprintf(label, sizeof(label), "com.docker.compose.project=%s",
             project_label ? project_label : project);
    const char *argv[48] = {"docker", create ? "create" : "run"};
    int n = 2;
    const char *fixed[] = {"--name", name, "--hostname", host, "--network", net,
                           "--network-alias", host, "--label", label, NULL};
    if (!create)
        argv[n++] = "-d";
    for (int i = 0; fixed[i]; i++)
        argv[n++] = fixed[i];
    for (int i = 0; opts && opts[i] && n < 40; i++)
        argv[n++] = opts[i];
    argv[n++] = "debian:bookworm-slim";
    for (int i = 0; cmd[i] && n < 47; i++)
        argv[n++] = cmd[i];
    argv[n] = NULL;
    char *out = NULL;
    int rc = run(argv, CMD_LIMIT_S, &out);
    if (rc != 0)
        fail_msg("docker %s %s: exit %d: %s", argv[1], name, rc, out ? out : "");
    free(out);
}

/* ---- tests ---- */

static void verbs(void **state)
{
    (void)state;
    char rs1[128], decoy[128], other[96];
    snprintf(rs1, sizeof(rs1), "%s-rs1", project);
    snprintf(decoy, sizeof(decoy), "%s-decoy", project);
    snprintf(other, sizeof(other), "%s-other", project);
    const char *init[] = {"--init", NULL}, *sleep600[] = {"sleep", "600", NULL};
    container("rs1", "rs1", NULL, false, init, sleep600);
    container("decoy", "rs1", other, true, init, sleep600);
    assert_status(rs1, "running");

    assert_int_equal(chaos("alive", "rs1"), 0);
    assert_int_equal(chaos("stop", "rs1"), 0);
    assert_status(rs1, "paused");
    assert_int_not_equal(chaos("alive", "rs1"), 0);
    assert_int_equal(chaos("cont", "rs1"), 0);
    assert_status(rs1, "running");
    assert_int_equal(chaos("alive", "rs1"), 0);

    assert_int_equal(chaos("kill", "rs1"), 0);
    assert_status(rs1, "exited");
    char code[32];
    docker(code, sizeof(code), "inspect", "-f", "{{.State.ExitCode}}", rs1, NULL);
    assert_string_equal(code, "137"); /* SIGKILL */
    assert_int_not_equal(chaos("alive", "rs1"), 0);
    assert_int_equal(chaos("start", "rs1"), 0);
    assert_status(rs1, "running");
    assert_int_equal(chaos("alive", "rs1"), 0);

    /* term: docker kill -s TERM returns once the signal is sent; the exit follows. */
    assert_int_equal(chaos("term", "rs1"), 0);
    char st[64] = "";
    for (int i = 0; i < 100 && strcmp(status_of(rs1, st, sizeof(st)), "exited") != 0; i++)
        clock_sleep_ms(100);
    assert_string_equal(st, "exited");
    assert_int_not_equal(chaos("alive", "rs1"), 0);
    assert_int_equal(chaos("start", "rs1"), 0);
    assert_status(rs1, "running");

    /* A paused container starts again too (unpaused, stopped, started). */
    assert_int_equal(chaos("stop", "rs1"), 0);
    assert_int_equal(chaos("start", "rs1"), 0);
    assert_status(rs1, "running");
    assert_int_equal(chaos("alive", "rs1"), 0);

    assert_status(decoy, "created"); /* never chosen: another project */
}

static void exit_codes(void **state)
{
    (void)state;
    assert_int_equal(chaos("alive", "no-such-host"), 3);
    assert_int_equal(chaos("kill", "no-such-host"), 3);
    assert_int_equal(chaos("bogus", "rs1"), 2);
    assert_int_equal(chaos("cut-zk", "rs1"), 2); /* a network verb it does not do */
    assert_int_equal(chaos("bogus", "no-such-host"), 2);
    /* rs1 outside the project */
    char other[96];
    snprintf(other, sizeof(other), "%s-nothing", project);
    setenv("STRATA_CHAOS_PROJECT", other, 1);
    int rc = chaos("alive", "rs1");
    setenv("STRATA_CHAOS_PROJECT", project, 1);
    assert_int_equal(rc, 3);
}

static void restarting_is_not_alive(void **state)
{
    (void)state;
    char name[128], st[64] = "";
    snprintf(name, sizeof(name), "%s-loop", project);
    const char *opts[] = {"--restart", "always", NULL}, *cmd[] = {"false", NULL};
    container("loop", "loop", NULL, false, opts, cmd);
    /* Its restart delay doubles from 100 ms: after a few rounds it is mostly waiting. */
    for (int i = 0; i < 100; i++) {
        docker(st, sizeof(st), "inspect", "-f", "{{.State.Restarting}} {{.RestartCount}}",
               name, NULL);
        if (strncmp(st, "true", 4) == 0 && atoi(st + 5) >= 3)
            break;
        clock_sleep_ms(100);
    }
    if (strncmp(st, "true", 4) != 0)
        fail_msg("%s does not restart: %s", name, st);
    assert_int_not_equal(chaos("alive", "loop"), 0);
    docker(NULL, 0, "rm", "-f", name, NULL);
}

static void start_fails_fast(void **state)
{
    (void)state;
    const char *cmd[] = {"false", NULL};
    container("exits", "exits", NULL, true, NULL, cmd);
    uint64_t t0 = clock_mono_ns();
    assert_int_equal(chaos("start", "exits"), 1);
    double s = (double)(clock_mono_ns() - t0) / 1e9;
    if (s > 10)
        fail_msg("start of a container that exits at once took %.1f s", s);
}

static void start_waits_for_health(void **state)
{
    (void)state;
    char name[128], health[64];
    snprintf(name, sizeof(name), "%s-health", project);
    const char *opts[] = {"--init", "--health-cmd", "test -f /tmp/ready", "--health-interval",
                          "500ms", "--health-retries", "30", NULL};
    const char *cmd[] = {"sh", "-c", "sleep 2; touch /tmp/ready; exec sleep 600", NULL};
    container("health", "health", NULL, true, opts, cmd);
    uint64_t t0 = clock_mono_ns();
    assert_int_equal(chaos("start", "health"), 0);
    double s = (double)(clock_mono_ns() - t0) / 1e9;
    docker(health, sizeof(health), "inspect", "-f", "{{.State.Health.Status}}", name, NULL);
    assert_string_equal(health, "healthy");
    if (s < 2)
        fail_msg("start returned after %.1f s, before the health check could pass", s);
}

/* Regression: the imported base image's / was 0700 (the mode of debootstrap's mktemp
 * directory), so no image built on it could run as a non-root user. */
static void the_base_image_admits_other_users(void **state)
{
    (void)state;
    char name[160], out[256];
    snprintf(name, sizeof(name), "%s-nobody", project);
    docker(out, sizeof(out), "run", "--rm", "--name", name, "--user", "65534:65534",
           "debian:bookworm-slim", "/bin/ls", "/usr/bin/env", NULL);
    assert_string_equal(out, "/usr/bin/env");
}

/* ---- setup ---- */

/* Starts the engine and the image, sets DOCKER_HOST and STRATA_CHAOS_PROJECT, creates
 * the network: 0; else prints the SKIP line and returns TU_EXIT_SKIP, or 1 on failure. */
static int setup(void)
{
    if (!tu_on_path("docker"))
        return tu_skip_all("test_chaos_docker", "the docker CLI is not installed (deploy/deps.sh)");
    snprintf(state_dir, sizeof(state_dir), "/tmp/strata-chaos-docker-%ld", (long)getpid());
    snprintf(project, sizeof(project), "strata-chaos-test-%ld", (long)getpid());
    snprintf(net, sizeof(net), "%s-net", project);
    /* Before anything is made: what to remove on any exit. */
    if (tu_cleanup_on_exit("if [ -f %s/docker-host ]; then export DOCKER_HOST=$(cat %s/docker-host);"
                           " ids=$(docker ps -aq --filter name=%s-);"
                           " [ -z \"$ids\" ] || docker rm -f $ids >/dev/null;"
                           " docker network rm %s >/dev/null 2>&1; fi;"
                           " bash %s stop %s",
                           state_dir, state_dir, project, net, engine_sh, state_dir) != 0) {
        fprintf(stderr, "test_chaos_docker: the repository path is too long\n");
        return 1;
    }

    char *out = NULL;
    const char *start[] = {"bash", engine_sh, "start", state_dir, NULL};
    uint64_t t0 = clock_mono_ns();
    int rc = run(start, ENGINE_LIMIT_S, &out);
    printf("docker-engine.sh start: exit %d in %.1f s\n%s", rc,
           (double)(clock_mono_ns() - t0) / 1e9, out ? out : "");
    char *host = out ? strstr(out, "DOCKER_HOST=") : NULL;
    if (rc != 0 || !host) {
        free(out);
        return tu_skip_all("test_chaos_docker",
                           "no Docker engine: none answers and a private dockerd did not start "
                           "(root, dockerd; output above)");
    }
    host[strcspn(host, "\n")] = '\0';
    setenv("DOCKER_HOST", host + strlen("DOCKER_HOST="), 1);
    free(out);

    const char *image[] = {"bash", engine_sh, "base-image", state_dir, NULL};
    t0 = clock_mono_ns();
    rc = run(image, IMAGE_LIMIT_S, &out);
    printf("docker-engine.sh base-image: exit %d in %.1f s\n%s", rc,
           (double)(clock_mono_ns() - t0) / 1e9, out ? out : "");
    free(out);
    if (rc != 0)
        return tu_skip_all("test_chaos_docker",
                           "no debian:bookworm-slim and none could be made (debootstrap, "
                           "apt's mirror; output above)");
    setenv("STRATA_CHAOS_PROJECT", project, 1);
    char label[128];
    snprintf(label, sizeof(label), "com.docker.compose.project=%s", project);
    const char *mknet[] = {"docker", "network", "create", "--label", label, net, NULL};
    if (run(mknet, CMD_LIMIT_S, &out) != 0) {
        fprintf(stderr, "docker network create %s: %s\n", net, out ? out : "");
        free(out);
        return 1;
    }
    free(out);
    fflush(stdout);
    return 0;
}

int main(void)
{
    if (find_repo())
        return 1;
    int rc = setup();
    if (rc != 0) {
        tu_cleanup_now();
        return rc;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_base_image_admits_other_users),
        cmocka_unit_test(verbs),
        cmocka_unit_test(exit_codes),
        cmocka_unit_test(restarting_is_not_alive),
        cmocka_unit_test(start_fails_fast),
        cmocka_unit_test(start_waits_for_health),
    };
    rc = tu_run_group_tests(tests, NULL, NULL);
    uint64_t t0 = clock_mono_ns();
    tu_cleanup_now();
    printf("cleanup (containers, network, docker-engine.sh stop): %.1f s\n",
           (double)(clock_mono_ns() - t0) / 1e9);
    return rc;
}
