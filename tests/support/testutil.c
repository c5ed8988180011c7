/*
 * testutil.c - helpers shared by Strata's tests (see testutil.h).
 *
 * The skip count and the seed are process globals: cmocka runs every case of an
 * executable in its main thread, one after another.
 */
#include "tests/support/testutil.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/fileio.h"
#include "common/status.h"
#include "tests/support/proc.h"

static int skips;       /* cases that called tu_skip */
static bool seed_given; /* tu_seed was called */
static unsigned seed_used;

static void print_skip(const char *what, const char *why_fmt, va_list ap)
{
    fflush(stderr);
    printf("SKIP: %s: ", what);
    vprintf(why_fmt, ap);
    printf("\n");
    fflush(stdout);
}

void tu_skip(const char *what, const char *why_fmt, ...)
{
    va_list ap;
    va_start(ap, why_fmt);
    print_skip(what, why_fmt, ap);
    va_end(ap);
    skips++;
    skip();
}

int tu_skip_all(const char *what, const char *why_fmt, ...)
{
    va_list ap;
    va_start(ap, why_fmt);
    print_skip(what, why_fmt, ap);
    va_end(ap);
    return TU_EXIT_SKIP;
}

int tu_exit_status(int failed)
{
    if (failed != 0) {
        if (seed_given)
            printf("randomized test failed: rerun with STRATA_TEST_SEED=%u\n", seed_used);
        fflush(stdout);
        return 1; /* not the count: 77 would read as a skip, 256 as a pass */
    }
    return skips > 0 ? TU_EXIT_SKIP : 0;
}

unsigned tu_seed(const char *what)
{
    const char *env = getenv("STRATA_TEST_SEED");
    unsigned seed = (unsigned)(clock_mono_ns() ^ ((uint64_t)getpid() << 16));
    if (env && *env) {
        char *end = NULL;
        errno = 0;
        unsigned long v = strtoul(env, &end, 10);
        if (errno != 0 || *end != '\0' || v > 0xffffffffUL)
            fail_msg("STRATA_TEST_SEED=%s is not a decimal number below 2^32", env);
        seed = (unsigned)v;
    }
    seed_given = true;
    seed_used = seed;
    printf("%s: seed %u (rerun with STRATA_TEST_SEED=%u)\n", what, seed, seed);
    fflush(stdout);
    return seed;
}

char *tu_tempdir(const char *tag)
{
    const char *base = getenv("TMPDIR");
    char *path = NULL;
    if (asprintf(&path, "%s/strata-%s-XXXXXX", base && *base ? base : "/tmp", tag) < 0)
        return NULL;
    if (!mkdtemp(path)) {
        free(path);
        return NULL;
    }
    return path;
}

void tu_rmdir(char *dir)
{
    if (dir)
        fio_remove_tree(dir);
    free(dir);
}

void tu_schema(table_schema *t, const char *families)
{
    table_schema_init(t, "default:t");
    char tmp[256];
    snprintf(tmp, sizeof(tmp), "%s", families);
    for (char *save = NULL, *f = strtok_r(tmp, ",", &save); f; f = strtok_r(NULL, ",", &save)) {
        family_schema fs;
        family_schema_init(&fs, f);
        table_schema_add_family(t, &fs);
    }
    t->durability = DURABILITY_SYNC_WAL;
}

region_info tu_whole_region(void)
{
    region_info i;
    memset(&i, 0, sizeof(i));
    snprintf(i.table, sizeof(i.table), "default:t");
    snprintf(i.encoded_name, sizeof(i.encoded_name), "r1");
    i.region_id = 1;
    return i;
}

cell_t tu_cell(const char *fam, const char *qual, const char *value, int64_t ts, uint8_t type)
{
    cell_t c;
    memset(&c, 0, sizeof(c));
    c.family = (const uint8_t *)fam;
    c.family_len = (uint32_t)strlen(fam);
    c.qualifier = (const uint8_t *)qual;
    c.qualifier_len = (uint32_t)strlen(qual);
    c.value = (const uint8_t *)value;
    c.value_len = value ? (uint32_t)strlen(value) : 0;
    c.ts = ts;
    c.type = type;
    return c;
}

int tu_put(region *r, const char *row, const char *fam, const char *qual, const char *value,
           int64_t ts)
{
    cell_t c = tu_cell(fam, qual, value, ts, CELL_TYPE_PUT);
    mutation m = {(const uint8_t *)row, strlen(row), &c, 1, DURABILITY_USE_DEFAULT};
    return region_mutate(r, &m);
}

int tu_get(region *r, const char *row, const char *fam, const char *qual, char *buf,
           size_t cap)
{
    scan_column col = {(const uint8_t *)fam, strlen(fam), (const uint8_t *)qual, strlen(qual)};
    scan_spec spec;
    memset(&spec, 0, sizeof(spec));
    spec.columns = &col;
    spec.ncolumns = 1;
    scan_result res;
    scan_result_init(&res);
    int rc = region_get(r, (const uint8_t *)row, strlen(row), &spec, &res);
    if (rc == ST_OK) {
        rc = res.ncells > 0;
        if (rc && buf) {
            size_t n = res.cells[0].value_len < cap - 1 ? res.cells[0].value_len : cap - 1;
            memcpy(buf, res.cells[0].value, n);
            buf[n] = '\0';
        }
    }
    scan_result_free(&res);
    return rc;
}

bool tu_have_zookeeper(void)
{
    DIR *d = opendir("/usr/share/java");
    bool jar = false;
    for (struct dirent *e; d && (e = readdir(d));)
        jar |= strncmp(e->d_name, "zookeeper", 9) == 0;
    if (d)
        closedir(d);
    return jar && system("java -version >/dev/null 2>&1") == 0;
}

int tu_capture(const char *cmd, char **out)
{
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    buf_t b = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), p)) > 0)
        assert_int_equal(buf_append(&b, chunk, n), ST_OK);
    assert_int_equal(buf_append_u8(&b, 0), ST_OK);
    int status = pclose(p);
    *out = (char *)b.data;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool tu_on_path(const char *name)
{
    const char *path = getenv("PATH");
    char buf[PATH_MAX];
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t len = strcspn(p, ":");
        snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, p, name);
        if (len > 0 && access(buf, X_OK) == 0)
            return true;
        p += len + (p[len] == ':');
    }
    return false;
}

int tu_repo_dir(const char *file, char *out, size_t cap)
{
    const char *t = strstr(file, "/tests/");
    if (file[0] != '/' || !t || (size_t)(t - file) >= cap) {
        fprintf(stderr, "cannot find the repository from %s\n", file);
        return 1;
    }
    snprintf(out, cap, "%.*s", (int)(t - file), file);
    return 0;
}

int tu_run(const char *const argv[], int limit_s, size_t max, char **out)
{
    char log[] = "/tmp/strata-test-run-XXXXXX";
    int fd = mkostemp(log, O_CLOEXEC), status = -1;
    pid_t pid = 0;
    if (out)
        *out = NULL;
    if (fd < 0)
        return -1;
    proc_spec spec = {.argv = argv, .log = log, .stdin_null = true, .own_group = true};
    int rc = proc_spawn(&spec, &pid);
    if (rc == ST_OK && proc_wait(pid, limit_s * 1000, &status) == ST_TIMEOUT) {
        fprintf(stderr, "%s: time limit of %d s, sending SIGTERM\n", argv[0], limit_s);
        proc_signal(pid, SIGTERM);
        if (proc_wait(pid, 30000, &status) == ST_TIMEOUT)
            proc_kill(pid, &status); /* it and its group */
        proc_signal_group(pid, SIGKILL); /* whatever of the group outlived it */
    }
    if (rc == ST_OK)
        status = proc_exit_code(status);
    else
        fprintf(stderr, "%s: %s\n", argv[0], st_errmsg());
    unlink(log); /* only now: the child opens it by name */
    off_t size = lseek(fd, 0, SEEK_END);
    off_t from = size > (off_t)max ? size - (off_t)max : 0;
    char *buf = calloc(1, (size_t)(size - from) + 1);
    if (buf && pread(fd, buf, (size_t)(size - from), from) < 0)
        buf[0] = '\0';
    close(fd);
    if (out)
        *out = buf;
    else
        free(buf);
    return status;
}

/* ---- a shell command run once on any exit ---- */

static char exit_cmd[16384];
static char *const exit_argv[] = {"/bin/sh", "-c", exit_cmd, NULL};
static volatile sig_atomic_t exit_cmd_ran;
extern char **environ;

void tu_cleanup_now(void)
{
    if (exit_cmd_ran || exit_cmd[0] == '\0')
        return;
    exit_cmd_ran = 1;
    /* _Fork, execve and waitpid only (no fork handlers, no malloc or stdio locks): this
     * also runs from a signal handler. */
    pid_t pid = _Fork();
    if (pid == 0) {
        execve(exit_argv[0], exit_argv, environ);
        _exit(127);
    }
    if (pid > 0)
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
}

static void cleanup_on_signal(int sig)
{
    tu_cleanup_now();
    signal(sig, SIG_DFL);
    raise(sig);
}

int tu_cleanup_on_exit(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(exit_cmd, sizeof(exit_cmd), fmt, ap);
    va_end(ap);
    if (len < 0 || (size_t)len >= sizeof(exit_cmd)) {
        exit_cmd[0] = '\0';
        return -1;
    }
    exit_cmd_ran = 0; /* a new command runs again */
    static bool registered;
    if (!registered) {
        atexit(tu_cleanup_now);
        signal(SIGTERM, cleanup_on_signal);
        signal(SIGINT, cleanup_on_signal);
        registered = true;
    }
    return 0;
}
