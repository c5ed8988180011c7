/*
 * fuzz_support.c - the scratch directory, input files and failure reports of
 * fuzz_support.h.
 *
 * Under libFuzzer, tests/fuzz/run.sh runs the targets with -close_fd_mask=2 so that
 * the readers' LOG_ERROR lines for every corrupt input do not flood the log; libFuzzer
 * and the sanitizers then write to a duplicate of stderr, which fuzz_fail() reaches
 * through __sanitizer_report_error_summary(). Thread-safety: none (one input at a time).
 */
#include "tests/fuzz/fuzz_support.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"

#ifdef STRATA_FUZZ_LIBFUZZER
#include <sanitizer/common_interface_defs.h>
#endif

static char *scratch;

static void remove_scratch(void)
{
    if (scratch)
        fio_remove_tree(scratch);
    free(scratch);
    scratch = NULL;
}

static const char *scratch_base(void)
{
    struct stat st;
    const char *env = getenv("STRATA_FUZZ_TMPDIR");
    if (env && *env)
        return env;
    if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0)
        return "/dev/shm";
    env = getenv("TMPDIR");
    return env && *env ? env : "/tmp";
}

const char *fuzz_tmpdir(void)
{
    if (scratch)
        return scratch;
    char *tmpl = NULL;
    if (asprintf(&tmpl, "%s/strata-fuzz.XXXXXX", scratch_base()) < 0)
        fuzz_fail(__FILE__, __LINE__, "asprintf", "out of memory");
    if (!mkdtemp(tmpl))
        fuzz_fail(__FILE__, __LINE__, "mkdtemp", "%s: %s", tmpl, strerror(errno));
    scratch = tmpl;
    atexit(remove_scratch);
    return scratch;
}

char *fuzz_path(const char *name)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s", fuzz_tmpdir(), name) < 0)
        fuzz_fail(__FILE__, __LINE__, "asprintf", "out of memory");
    return p;
}

void fuzz_write_file(const char *path, const uint8_t *data, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        fuzz_fail(__FILE__, __LINE__, "open", "%s: %s", path, strerror(errno));
    while (n > 0) {
        ssize_t w = write(fd, data, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            fuzz_fail(__FILE__, __LINE__, "write", "%s: %s", path, strerror(errno));
        data += w;
        n -= (size_t)w;
    }
    if (close(fd) != 0)
        fuzz_fail(__FILE__, __LINE__, "close", "%s: %s", path, strerror(errno));
}

void fuzz_fail(const char *file, int line, const char *what, const char *fmt, ...)
{
    char detail[1024], msg[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    snprintf(msg, sizeof(msg), "fuzz check failed at %s:%d: %s: %s", file, line, what, detail);
    fprintf(stderr, "%s\n", msg);
#ifdef STRATA_FUZZ_LIBFUZZER
    __sanitizer_report_error_summary(msg);
#endif
    abort();
}
