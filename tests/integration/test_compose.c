/*
 * test_compose.c - the compose deployment as a user runs it (docs/deploy.md,
 * "docker-compose"): deploy/compose-up.sh on a real Docker engine, then the failover
 * drills of deploy/drills/ against it.
 *
 * main starts the engine with deploy/docker-engine.sh in STATE/engine (an engine that
 * answers, else a private dockerd; STATE is /tmp/strata-compose-test-<pid>) and makes
 * debian:bookworm-slim (`base-image`): when either cannot be done the test is skipped
 * with the reason. Then, in order, each case depending on the ones before:
 *   - up: `deploy/compose-up.sh up --project strata-ct-<pid> --state STATE` builds both
 *     images (strata:local, strata-zookeeper:local) and brings the deployment up healthy;
 *     the host ports are moved (STRATA_HOST_[HTTP_]PORT_<SERVICE>) to free ones; the
 *     images run as non-root users; every HTTP page answers from the host on its
 *     published port (/healthz of all five servers and the REST gateway, /readyz of the
 *     region servers, /metrics of each), and ZooKeeper's container is healthy;
 *   - client_writes: a client container (`docker-compose run --rm -T client shell -n`)
 *     creates table ct pre-split at r3, r6 and puts 90 rows r00..r89, and reads one back;
 *   - rest: the REST gateway's service answers from the host on its published port: a
 *     row the shell wrote read as octet-stream, a table created, written and scanned
 *     through it (docs/rest.md);
 *   - drills: deploy/drills/master-kill.sh, rs-kill.sh and restart-all.sh, each exit 0
 *     (each writes its own linked list, breaks the deployment with Docker, and verifies
 *     every node) and prints its figures;
 *   - read_back: every row of ct is read back by a client container (count 90, values).
 * Everything is removed on any exit: `deploy/compose-up.sh down` (containers, network,
 * volumes) and the engine if it was started here, from an atexit handler and from a
 * SIGTERM/SIGINT handler (fork and execve only).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/status.h"
#include "tests/support/http_client.h"
#include "tests/support/proc.h"
#include "tests/support/testutil.h"

#define ENGINE_LIMIT_S 120
#define IMAGE_LIMIT_S 300  /* a debootstrap on the first run */
#define UP_LIMIT_S 1200    /* both image builds (apt-get, a Release build) and the start */
#define DRILL_LIMIT_S 300
#define CMD_LIMIT_S 180
#define OUTPUT_MAX (256 * 1024)


static char repo_dir[PATH_MAX];
static char engine_sh[PATH_MAX + 64], up_sh[PATH_MAX + 64];
static char state_dir[128], project[64];
static int deployed; /* up passed: the later cases need it */

/* The host ports, in the compose file's variables, in this order. */
static const char *const port_vars[] = {
    "STRATA_HOST_PORT_MASTER1", "STRATA_HOST_HTTP_PORT_MASTER1", "STRATA_HOST_PORT_MASTER2",
    "STRATA_HOST_HTTP_PORT_MASTER2", "STRATA_HOST_PORT_RS1", "STRATA_HOST_HTTP_PORT_RS1",
    "STRATA_HOST_PORT_RS2", "STRATA_HOST_HTTP_PORT_RS2", "STRATA_HOST_PORT_RS3",
    "STRATA_HOST_HTTP_PORT_RS3", "STRATA_HOST_PORT_REST",
};
#define N_PORTS (sizeof(port_vars) / sizeof(port_vars[0]))
#define REST_PORT_INDEX (N_PORTS - 1) /* the pairs of RPC and HTTP ports come first */
static int ports[N_PORTS];

static int find_repo(void)
{
    if (tu_repo_dir(__FILE__, repo_dir, sizeof(repo_dir)))
        return 1;
    snprintf(engine_sh, sizeof(engine_sh), "%s/deploy/docker-engine.sh", repo_dir);
    snprintf(up_sh, sizeof(up_sh), "%s/deploy/compose-up.sh", repo_dir);
    return 0;
}

/* Runs argv (tu_run), its output echoed to stdout. */
static int run(const char *const argv[], int limit_s, char **out)
{
    char *text = NULL;
    int rc = tu_run(argv, limit_s, OUTPUT_MAX, &text);
    if (text)
        fputs(text, stdout);
    fflush(stdout);
    if (out)
        *out = text;
    else
        free(text);
    return rc;
}

/* Free TCP ports on every address (docker-proxy binds 0.0.0.0), N_PORTS distinct ones:
 * each socket stays bound until all are picked. 0, or -1. */
static int pick_ports(void)
{
    int fds[N_PORTS], rc = 0;
    size_t n = 0;
    for (; n < N_PORTS; n++) {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
        socklen_t al = sizeof(a);
        fds[n] = socket(AF_INET, SOCK_STREAM, 0);
        if (fds[n] < 0 || bind(fds[n], (struct sockaddr *)&a, sizeof(a)) != 0 ||
            getsockname(fds[n], (struct sockaddr *)&a, &al) != 0) {
            if (fds[n] >= 0)
                close(fds[n]);
            rc = -1;
            break;
        }
        ports[n] = ntohs(a.sin_port);
    }
    while (n > 0)
        close(fds[--n]);
    return rc;
}

/* A shell script for the client container: written to a file, run by `docker-compose
 * run --rm -T client shell -n` with it as stdin. Returns the exit status; *out the
 * output. */
static int client_script(const char *script, char **out)
{
    char path[] = "/tmp/strata-compose-script-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        fail_msg("mkstemp: cannot write the client's script");
    size_t len = strlen(script);
    if (write(fd, script, len) != (ssize_t)len)
        fail_msg("write %s failed", path);
    close(fd);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "exec docker-compose run --rm -T client shell -n <%s", path);
    const char *argv[] = {"sh", "-c", cmd, NULL};
    int rc = run(argv, CMD_LIMIT_S, out);
    unlink(path);
    return rc;
}

static void skip_unless_deployed(void)
{
    if (!deployed)
        fail_msg("the deployment is not up (the up case failed)");
}

/* ---- tests ---- */

static void up(void **state)
{
    (void)state;
    const char *argv[] = {"bash", up_sh, "up", "--project", project, "--state", state_dir, NULL};
    uint64_t t0 = clock_mono_ns();
    int rc = run(argv, UP_LIMIT_S, NULL);
    printf("compose-up.sh up: exit %d in %.1f s\n", rc, (double)(clock_mono_ns() - t0) / 1e9);
    assert_int_equal(rc, 0);
    deployed = 1;
    /* The pages, from the host, on the published ports. */
    for (size_t i = 1; i < REST_PORT_INDEX; i += 2) {
        const char *paths[] = {"/healthz", "/metrics", i >= 5 ? "/readyz" : NULL};
        for (size_t k = 0; k < 3 && paths[k]; k++) {
            thc_response r;
            int hrc = thc_request(ports[i], "GET", paths[k], NULL, NULL, 0, 5000, &r);
            if (hrc != 0 || r.status != 200)
                fail_msg("http://127.0.0.1:%d%s (%s) from the host: %s %d", ports[i], paths[k],
                         port_vars[i], hrc == 0 ? "status" : "no answer", hrc == 0 ? r.status : 0);
            thc_response_free(&r);
        }
    }
    /* The REST gateway's health, from the host. */
    thc_response hr;
    int hrc = thc_request(ports[REST_PORT_INDEX], "GET", "/healthz", NULL, NULL, 0, 5000, &hr);
    if (hrc != 0 || hr.status != 200)
        fail_msg("the REST gateway's /healthz on host port %d: %s %d", ports[REST_PORT_INDEX],
                 hrc == 0 ? "status" : "no answer", hrc == 0 ? hr.status : 0);
    thc_response_free(&hr);
    /* Non-root in every container, ZooKeeper healthy. */
    const char *services[] = {"zookeeper", "master1", "rs1", NULL};
    for (int i = 0; services[i]; i++) {
        char *out = NULL;
        const char *who[] = {"docker-compose", "exec", "-T", services[i], "id", "-u", NULL};
        rc = run(who, CMD_LIMIT_S, &out);
        if (rc != 0 || !out || atoi(out) == 0)
            fail_msg("%s runs as uid %s (exit %d), not as a non-root user", services[i],
                     out ? out : "?", rc);
        free(out);
    }
}

static void client_writes(void **state)
{
    (void)state;
    skip_unless_deployed();
    char script[8192];
    int n = snprintf(script, sizeof(script), "create 'ct', 'f', SPLITS => ['r3', 'r6']\n");
    for (int i = 0; i < 90; i++)
        n += snprintf(script + n, sizeof(script) - (size_t)n, "put 'ct', 'r%02d', 'f:q', 'v%02d'\n",
                      i, i);
    snprintf(script + n, sizeof(script) - (size_t)n, "get 'ct', 'r42'\nget_splits 'ct'\n");
    char *out = NULL;
    int rc = client_script(script, &out);
    assert_int_equal(rc, 0);
    assert_non_null(out);
    assert_non_null(strstr(out, "value=v42"));
    assert_non_null(strstr(out, "r3"));
    free(out);
}

/* A request to the REST gateway's published port that must answer want. */
static void rest_call(const char *method, const char *path, const char *headers,
                      const char *body, int want, thc_response *out)
{
    int rc = thc_request(ports[REST_PORT_INDEX], method, path, headers, body,
                         body ? strlen(body) : 0, 30000, out);
    if (rc != 0 || out->status != want)
        fail_msg("REST %s %s: %s %d (want %d): %.*s", method, path,
                 rc == 0 ? "status" : "no answer", rc == 0 ? out->status : 0, want,
                 rc == 0 ? (int)(out->body_len > 300 ? 300 : out->body_len) : 0,
                 rc == 0 && out->body ? out->body : "");
}

static void rest(void **state)
{
    (void)state;
    skip_unless_deployed();
    thc_response r;
    rest_call("GET", "/ct/r42/f:q", "Accept: application/octet-stream\r\n", NULL, 200, &r);
    assert_int_equal(r.body_len, 3);
    assert_memory_equal(r.body, "v42", 3);
    thc_response_free(&r);
    rest_call("PUT", "/rt/schema", "Content-Type: application/json\r\n",
              "{\"name\":\"rt\",\"ColumnSchema\":[{\"name\":\"cf\"}]}", 201, &r);
    thc_response_free(&r);
    /* rows a and b: cf:q = "x" (eA==) */
    rest_call("PUT", "/rt/batch", "Content-Type: application/json\r\n",
              "{\"Row\":[{\"key\":\"YQ==\",\"Cell\":[{\"column\":\"Y2Y6cQ==\",\"$\":\"eA==\"}]},"
              "{\"key\":\"Yg==\",\"Cell\":[{\"column\":\"Y2Y6cQ==\",\"$\":\"eA==\"}]}]}",
              200, &r);
    thc_response_free(&r);
    rest_call("GET", "/rt/*", "Accept: application/json\r\n", NULL, 200, &r);
    assert_non_null(strstr(r.body, "\"key\":\"YQ==\""));
    assert_non_null(strstr(r.body, "\"key\":\"Yg==\""));
    thc_response_free(&r);
    rest_call("GET", "/version/cluster", "Accept: application/json\r\n", NULL, 200, &r);
    assert_non_null(strstr(r.body, "\"Version\""));
    thc_response_free(&r);
}

static void drill(const char *name)
{
    skip_unless_deployed();
    char path[PATH_MAX + 64];
    snprintf(path, sizeof(path), "%s/deploy/drills/%s", repo_dir, name);
    const char *argv[] = {"bash", path, NULL};
    char *out = NULL;
    uint64_t t0 = clock_mono_ns();
    int rc = run(argv, DRILL_LIMIT_S, &out);
    printf("%s: exit %d in %.1f s\n", name, rc, (double)(clock_mono_ns() - t0) / 1e9);
    assert_int_equal(rc, 0);
    assert_non_null(out);
    if (!strstr(out, " figure "))
        fail_msg("%s printed no figure", name);
    free(out);
}

static void master_kill(void **state)
{
    (void)state;
    drill("master-kill.sh");
}

static void rs_kill(void **state)
{
    (void)state;
    drill("rs-kill.sh");
}

static void restart_all(void **state)
{
    (void)state;
    drill("restart-all.sh");
}

static void read_back(void **state)
{
    (void)state;
    skip_unless_deployed();
    char *out = NULL;
    int rc = client_script("count 'ct'\nscan 'ct', {STARTROW => 'r00', STOPROW => 'r99'}\n", &out);
    assert_int_equal(rc, 0);
    assert_non_null(out);
    assert_non_null(strstr(out, "90 row(s)"));
    char want[64];
    for (int i = 0; i < 90; i++) {
        snprintf(want, sizeof(want), " r%02d ", i);
        if (!strstr(out, want))
            fail_msg("row r%02d is missing after the drills", i);
        snprintf(want, sizeof(want), "value=v%02d", i);
        if (!strstr(out, want))
            fail_msg("the value of r%02d is wrong after the drills", i);
    }
    free(out);
}

/* ---- setup ---- */

static int setup(void)
{
    if (!tu_on_path("docker") || !tu_on_path("docker-compose"))
        return tu_skip_all("test_compose", "docker or docker-compose is not installed (deploy/deps.sh)");
    snprintf(state_dir, sizeof(state_dir), "/tmp/strata-compose-test-%ld", (long)getpid());
    snprintf(project, sizeof(project), "strata-ct-%ld", (long)getpid());
    if (tu_cleanup_on_exit("bash %s down --project %s --state %s", up_sh, project,
                           state_dir) != 0) {
        fprintf(stderr, "test_compose: the repository path is too long\n");
        return 1;
    }

    char engine_dir[160];
    snprintf(engine_dir, sizeof(engine_dir), "%s/engine", state_dir);
    char *out = NULL;
    const char *start[] = {"bash", engine_sh, "start", engine_dir, NULL};
    int rc = run(start, ENGINE_LIMIT_S, &out);
    char *host = out ? strstr(out, "DOCKER_HOST=") : NULL;
    if (rc != 0 || !host) {
        free(out);
        return tu_skip_all("test_compose", "no Docker engine: none answers and a private "
                                           "dockerd did not start (root, dockerd; output above)");
    }
    host[strcspn(host, "\n")] = '\0';
    setenv("DOCKER_HOST", host + strlen("DOCKER_HOST="), 1);
    free(out);
    const char *image[] = {"bash", engine_sh, "base-image", engine_dir, NULL};
    if (run(image, IMAGE_LIMIT_S, NULL) != 0)
        return tu_skip_all("test_compose", "no debian:bookworm-slim and none could be made "
                                           "(debootstrap, apt's mirror; output above)");
    /* Free host ports for the published ones; the drills and docker-compose find the
     * deployment through STATE/env and these. */
    if (pick_ports() != 0) {
        fprintf(stderr, "test_compose: no free ports\n");
        return 1;
    }
    for (size_t i = 0; i < N_PORTS; i++) {
        char v[16];
        snprintf(v, sizeof(v), "%d", ports[i]);
        setenv(port_vars[i], v, 1);
    }
    char file[PATH_MAX + 64];
    snprintf(file, sizeof(file), "%s/deploy/docker-compose.yml", repo_dir);
    setenv("COMPOSE_PROJECT_NAME", project, 1);
    setenv("COMPOSE_FILE", file, 1);
    setenv("STRATA_COMPOSE_STATE", state_dir, 1);
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
        cmocka_unit_test(up),          cmocka_unit_test(client_writes), cmocka_unit_test(rest),
        cmocka_unit_test(master_kill), cmocka_unit_test(rs_kill),
        cmocka_unit_test(restart_all), cmocka_unit_test(read_back),
    };
    rc = tu_run_group_tests(tests, NULL, NULL);
    uint64_t t0 = clock_mono_ns();
    tu_cleanup_now();
    printf("cleanup (compose-up.sh down): %.1f s\n", (double)(clock_mono_ns() - t0) / 1e9);
    return rc;
}
