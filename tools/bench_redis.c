/*
 * bench_redis.c - runs redis-benchmark against a private redis-server (see bench_redis.h).
 * Every wait is bounded; the server is killed on every path out.
 */
#include "tools/bench_redis.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/fileio.h"
#include "common/status.h"

#define START_WAIT_MS 10000
#define STOP_WAIT_MS 5000

static bool on_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path)
        return false;
    char *copy = strdup(path);
    bool found = false;
    for (char *save = NULL, *dir = strtok_r(copy, ":", &save); dir && !found;
         dir = strtok_r(NULL, ":", &save)) {
        char full[4096];
        snprintf(full, sizeof(full), "%s/%s", dir, name);
        found = access(full, X_OK) == 0;
    }
    free(copy);
    return found;
}

bool bench_redis_available(void)
{
    return on_path("redis-server") && on_path("redis-benchmark");
}

/* A loopback port that was free a moment ago. */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    int port = -1;
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    close(fd);
    return port;
}

static bool port_answers(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return false;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    bool ok = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
    close(fd);
    return ok;
}

static pid_t start_server(const char *dir, int port)
{
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) {
        dup2(devnull, STDOUT_FILENO);
        dup2(devnull, STDERR_FILENO);
    }
    char port_s[16];
    snprintf(port_s, sizeof(port_s), "%d", port);
    execlp("redis-server", "redis-server", "--port", port_s, "--bind", "127.0.0.1", "--save", "",
           "--appendonly", "no", "--dir", dir, "--daemonize", "no", "--protected-mode", "yes",
           (char *)NULL);
    _exit(127);
}

static void stop_server(pid_t pid)
{
    kill(pid, SIGTERM);
    uint64_t end = clock_mono_ns() + (uint64_t)STOP_WAIT_MS * 1000000ull;
    while (clock_mono_ns() < end) {
        if (waitpid(pid, NULL, WNOHANG) == pid)
            return;
        clock_sleep_ms(20);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* Parses one CSV line of redis-benchmark 7:
 * "test","rps","avg","min","p50","p95","p99","max". */
static void parse_line(const char *line, bench_redis_result *out, int *seen)
{
    char test[16];
    double rps, avg, min, p50, p95, p99;
    if (sscanf(line, "\"%15[^\"]\",\"%lf\",\"%lf\",\"%lf\",\"%lf\",\"%lf\",\"%lf\"", test, &rps,
               &avg, &min, &p50, &p95, &p99) != 7)
        return;
    bench_redis_op op = {rps, p50, p95, p99};
    if (strcmp(test, "SET") == 0) {
        out->set = op;
        *seen |= 1;
    } else if (strcmp(test, "GET") == 0) {
        out->get = op;
        *seen |= 2;
    }
}

static int run_benchmark(int port, int value_size, int clients, long requests,
                         bench_redis_result *out)
{
    char cmd[512];
    snprintf(cmd, sizeof(cmd),
             "redis-benchmark -h 127.0.0.1 -p %d -t set,get -n %ld -c %d -d %d --csv 2>/dev/null",
             port, requests, clients, value_size);
    FILE *p = popen(cmd, "r");
    if (!p)
        return st_error(ST_IO, "bench redis: cannot run redis-benchmark: %s", strerror(errno));
    char line[512];
    int seen = 0;
    while (fgets(line, sizeof(line), p))
        parse_line(line, out, &seen);
    int status = pclose(p);
    if (seen != 3)
        return st_error(ST_IO, "bench redis: redis-benchmark (exit status %d) printed no SET/GET "
                               "figures",
                        status);
    return ST_OK;
}

int bench_redis_run(int value_size, int clients, long requests, bench_redis_result *out)
{
    memset(out, 0, sizeof(*out));
    if (!bench_redis_available())
        return st_error(ST_UNSUPPORTED, "bench redis: redis-server or redis-benchmark not found");
    char dir[] = "/tmp/strata-redis-XXXXXX";
    if (!mkdtemp(dir))
        return st_error(ST_IO, "bench redis: mkdtemp: %s", strerror(errno));
    int rc = ST_OK;
    int port = free_port();
    pid_t pid = port > 0 ? start_server(dir, port) : -1;
    if (pid < 0) {
        rc = st_error(ST_IO, "bench redis: cannot start redis-server");
        goto done;
    }
    uint64_t end = clock_mono_ns() + (uint64_t)START_WAIT_MS * 1000000ull;
    while (!port_answers(port) && clock_mono_ns() < end)
        clock_sleep_ms(20);
    if (!port_answers(port))
        rc = st_error(ST_TIMEOUT, "bench redis: redis-server on port %d did not come up in %d ms",
                      port, START_WAIT_MS);
    else
        rc = run_benchmark(port, value_size, clients, requests, out);
    stop_server(pid);
done:
    fio_remove_tree(dir);
    return rc;
}
