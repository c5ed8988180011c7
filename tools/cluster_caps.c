/*
 * cluster_caps.c - per-server capacity caps of a local cluster (docs/cluster.md
 * "Capacity caps"): each region server in a cgroup v1 CPU cgroup of its own,
 * <root>/strata-<dir hash>-<name> with cpu.cfs_period_us 100000 and cpu.cfs_quota_us
 * quota x 100000, so that a busy server is slowed as a machine of that size would be.
 * <root> is /sys/fs/cgroup/cpu (STRATA_CGROUP_CPU_ROOT overrides it).
 *
 * The cgroup is made and its quota written before the server is forked; the child puts
 * itself in it before it execs, so the server never runs uncapped. `cluster stop`
 * removes the cgroups once their processes are gone.
 * Thread-safety: none needed; one command on one thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/status.h"
#include "tools/cluster_internal.h"

#define CPU_PERIOD_US 100000

const char *cluster_cgroup_root(void)
{
    const char *r = getenv("STRATA_CGROUP_CPU_ROOT");
    return r && r[0] ? r : "/sys/fs/cgroup/cpu";
}

int cluster_cap_parse(const char *v, double *out)
{
    char *end = NULL;
    errno = 0;
    double x = v ? strtod(v, &end) : 0;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (!v || errno || end == v || *end || !isfinite(x) || x <= 0 || x > (double)cpus ||
        x * CPU_PERIOD_US < 1000)
        return st_error(ST_INVALID_ARGUMENT,
                        "--regionserver.cpu.quota %s: want a fraction of one CPU in [0.01, %ld]",
                        v ? v : "", cpus);
    *out = x;
    return ST_OK;
}

long cluster_cap_quota_us(double quota)
{
    return lround(quota * CPU_PERIOD_US);
}

void cluster_cgroup_path(const cluster_state *s, const char *name, char *out, size_t cap)
{
    uint32_t h = 2166136261u;
    for (const char *c = s->dir; *c; c++)
        h = (h ^ (uint8_t)*c) * 16777619u;
    snprintf(out, cap, "%s/strata-%08x-%s", cluster_cgroup_root(), h, name);
}

static int write_file(const char *dir, const char *file, const char *text)
{
    char path[CLUSTER_PATH_MAX + 64];
    snprintf(path, sizeof(path), "%s/%s", dir, file);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return st_error(ST_IO, "cluster: open %s: %s", path, strerror(errno));
    ssize_t n = write(fd, text, strlen(text));
    int err = errno;
    close(fd);
    if (n != (ssize_t)strlen(text))
        return st_error(ST_IO, "cluster: write '%s' to %s: %s", text, path,
                        n < 0 ? strerror(err) : "short write");
    return ST_OK;
}

int cluster_cap_prepare(const cluster_state *s, const cluster_proc *p, char *procs, size_t cap)
{
    procs[0] = '\0';
    if (p->kind != CLUSTER_RS || s->rs_cpu_quota <= 0)
        return ST_OK;
    char dir[CLUSTER_PATH_MAX];
    cluster_cgroup_path(s, p->name, dir, sizeof(dir));
    if (access(cluster_cgroup_root(), W_OK) != 0)
        return st_error(ST_UNSUPPORTED,
                        "cluster: cannot cap %s's CPU: %s is not a writable cgroup v1 cpu "
                        "hierarchy (%s)",
                        p->name, cluster_cgroup_root(), strerror(errno));
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return st_error(ST_IO, "cluster: mkdir %s: %s", dir, strerror(errno));
    char v[32];
    snprintf(v, sizeof(v), "%d", CPU_PERIOD_US);
    int rc = write_file(dir, "cpu.cfs_period_us", v);
    snprintf(v, sizeof(v), "%ld", cluster_cap_quota_us(s->rs_cpu_quota));
    if (rc == ST_OK)
        rc = write_file(dir, "cpu.cfs_quota_us", v);
    if (rc == ST_OK)
        snprintf(procs, cap, "%s/cgroup.procs", dir);
    return rc;
}

int cluster_cap_remove_one(const cluster_state *s, const cluster_proc *p)
{
    char dir[CLUSTER_PATH_MAX];
    cluster_cgroup_path(s, p->name, dir, sizeof(dir));
    /* A cgroup goes once its last task has exited; a dying one may linger briefly. */
    int64_t until = clock_now_ms() + 3000;
    while (rmdir(dir) != 0 && errno != ENOENT) {
        if (errno != EBUSY || clock_now_ms() > until)
            return st_error(ST_IO, "cluster: rmdir %s: %s", dir, strerror(errno));
        clock_sleep_ms(50);
    }
    return ST_OK;
}

int cluster_caps_remove(const cluster_state *s)
{
    int rc = ST_OK;
    for (size_t i = 0; i < s->nprocs; i++)
        if (s->procs[i].kind == CLUSTER_RS) {
            int one = cluster_cap_remove_one(s, &s->procs[i]);
            if (rc == ST_OK)
                rc = one;
        }
    return rc;
}
