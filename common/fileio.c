/*
 * fileio.c - the file layer under every durable byte, with fault injection.
 *
 * Each call maps to one or a few system calls, restarts on EINTR, loops on short
 * reads and writes, logs a failure once (errno and path) and records it with
 * st_error() naming the path. Statuses come from st_from_errno().
 *
 * Fault injection: fio_fault_set() installs one global fault (fileio.h). The hot
 * path reads the atomic `fault_on` flag first and only takes `fault_lock` when a
 * fault is installed. Which calls count as which op:
 *   FIO_OP_CREATE  fio_create, fio_open_append, the temp file of fio_write_atomic
 *   FIO_OP_WRITE   fio_append (also inside fio_write_atomic); space_limit too
 *   FIO_OP_SYNC    fio_sync (also the temp-file sync of fio_write_atomic)
 *   FIO_OP_RENAME  fio_rename (also the rename of fio_write_atomic)
 *   FIO_OP_READ    fio_pread (also fio_read_all)
 *
 * Thread-safety: a fio_file has one writer and any number of pread callers (pread
 * and write with O_APPEND never share a file offset); fault state is under
 * `fault_lock`, a leaf lock.
 */
#include "common/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/status.h"

struct fio_file {
    int fd;
    char *path;
};

static atomic_bool fault_on;
static pthread_mutex_t fault_lock = PTHREAD_MUTEX_INITIALIZER;
static fio_fault fault_cur;    /* path_match is an owned copy */
static long fault_seen;        /* matching operations seen since fio_fault_set() */
static long fault_hit_count;   /* operations failed since fio_fault_set() */
static uint64_t fault_written; /* bytes appended to matching paths (space_limit) */
static pthread_cond_t fault_cv = PTHREAD_COND_INITIALIZER; /* a held operation waits here */
static uint64_t fault_gen;     /* bumped by fio_fault_set/clear: a held operation goes on */

/* ---- errors ---- */

/* Logs and records a failure of `what` on path (and path2, when not NULL); returns the
 * mapped status. Not-found and exists are often expected by callers: logged at debug. */
static int fail_log(const char *what, const char *path, const char *path2, int err, bool injected)
{
    int code = st_from_errno(err);
    const char *arrow = path2 ? " -> " : "", *p2 = path2 ? path2 : "";
    const char *tag = injected ? ", injected" : "";
    if (code == ST_NOT_FOUND || code == ST_EXISTS)
        LOG_DEBUG("%s %s%s%s: %s%s", what, path, arrow, p2, strerror(err), tag);
    else
        LOG_ERROR("%s %s%s%s: %s (errno %d%s)", what, path, arrow, p2, strerror(err), err, tag);
    return st_error(code, "%s %s%s%s: %s", what, path, arrow, p2, strerror(err));
}

/* A failed system call on path. */
static int io_error(const char *what, const char *path, int err)
{
    return fail_log(what, path, NULL, err, false);
}

/* An injected fault on path. */
static int fault_error(const char *what, const char *path, int err)
{
    return fail_log(what, path, NULL, err, true);
}

/* ---- fault injection ---- */

/* An operation matches when either of its paths (path2 may be NULL) holds path_match. */
static bool fault_matches_path(const char *path, const char *path2)
{
    const char *m = fault_cur.path_match;
    return !m || (path && strstr(path, m)) || (path2 && strstr(path2, m));
}

/* space_limit: lets through what still fits; returns ENOSPC when the write is cut. */
static int fault_space_locked(size_t n, size_t *allow)
{
    uint64_t room =
        fault_written < fault_cur.space_limit ? fault_cur.space_limit - fault_written : 0;
    if (n <= room) {
        fault_written += n;
        return 0;
    }
    *allow = (size_t)room;
    fault_written += room;
    fault_hit_count++;
    return ENOSPC;
}

static int fault_check_locked(fio_op op, const char *path, const char *path2, size_t n,
                              size_t *allow)
{
    if (!fault_matches_path(path, path2))
        return 0;
    if (fault_cur.space_limit > 0)
        return op == FIO_OP_WRITE ? fault_space_locked(n, allow) : 0;
    if (op != fault_cur.op)
        return 0;
    long i = fault_seen++;
    if (i < fault_cur.skip || (fault_cur.count >= 0 && i - fault_cur.skip >= fault_cur.count))
        return 0;
    fault_hit_count++;
    if (fault_cur.hold) { /* a paused disk: wait until the fault is replaced or cleared */
        uint64_t gen = fault_gen;
        while (fault_gen == gen)
            pthread_cond_wait(&fault_cv, &fault_lock);
        return 0;
    }
    if (op == FIO_OP_WRITE)
        *allow = fault_cur.short_bytes < n ? fault_cur.short_bytes : n;
    return fault_cur.error ? fault_cur.error : EIO;
}

/* Returns the errno an injected fault imposes on this operation (0: none) and, for
 * writes, sets *allow to the bytes to write before failing. */
static int fault_check(fio_op op, const char *path, const char *path2, size_t n, size_t *allow)
{
    *allow = n;
    if (!atomic_load_explicit(&fault_on, memory_order_acquire))
        return 0;
    pthread_mutex_lock(&fault_lock);
    int err = atomic_load_explicit(&fault_on, memory_order_relaxed)
                  ? fault_check_locked(op, path, path2, n, allow)
                  : 0;
    pthread_mutex_unlock(&fault_lock);
    return err;
}

void fio_fault_set(const fio_fault *fault)
{
    pthread_mutex_lock(&fault_lock);
    free((char *)fault_cur.path_match);
    fault_cur = *fault;
    fault_cur.path_match = fault->path_match ? strdup(fault->path_match) : NULL;
    fault_seen = 0;
    fault_hit_count = 0;
    fault_written = 0;
    fault_gen++;
    pthread_cond_broadcast(&fault_cv);
    atomic_store_explicit(&fault_on, true, memory_order_release);
    pthread_mutex_unlock(&fault_lock);
}

void fio_fault_clear(void)
{
    pthread_mutex_lock(&fault_lock);
    atomic_store_explicit(&fault_on, false, memory_order_release);
    free((char *)fault_cur.path_match);
    fault_cur.path_match = NULL;
    fault_gen++;
    pthread_cond_broadcast(&fault_cv);
    pthread_mutex_unlock(&fault_lock);
}

long fio_fault_hits(void)
{
    pthread_mutex_lock(&fault_lock);
    long h = fault_hit_count;
    pthread_mutex_unlock(&fault_lock);
    return h;
}

/* ---- files ---- */

/* Opens path with flags; `faultable` opens count as FIO_OP_CREATE. */
static int file_open(const char *path, int flags, bool faultable, fio_file **out)
{
    size_t unused;
    int fd = -1;
    int err = faultable ? fault_check(FIO_OP_CREATE, path, NULL, 0, &unused) : 0;
    *out = NULL;
    if (err)
        return fault_error("open", path, err);
    do {
        fd = open(path, flags | O_CLOEXEC, 0644);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0)
        return io_error("open", path, errno);
    fio_file *f = malloc(sizeof(*f));
    char *p = strdup(path);
    if (!f || !p) {
        free(f);
        free(p);
        close(fd);
        return st_error(ST_NOMEM, "open %s: out of memory", path);
    }
    f->fd = fd;
    f->path = p;
    *out = f;
    return ST_OK;
}

int fio_create(const char *path, fio_file **out)
{
    return file_open(path, O_RDWR | O_CREAT | O_EXCL | O_APPEND, true, out);
}

int fio_open_append(const char *path, fio_file **out)
{
    return file_open(path, O_RDWR | O_APPEND, true, out);
}

int fio_open_read(const char *path, fio_file **out)
{
    return file_open(path, O_RDONLY, false, out);
}

/* Writes all n bytes with write(2), restarting on EINTR and short writes. */
static int write_full(fio_file *f, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(f->fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return io_error("write", f->path, errno);
        if (w == 0)
            return io_error("write", f->path, EIO);
        p += w;
        n -= (size_t)w;
    }
    return ST_OK;
}

int fio_append(fio_file *f, const void *data, size_t n)
{
    size_t allow;
    int err = fault_check(FIO_OP_WRITE, f->path, NULL, n, &allow);
    int rc = write_full(f, data, err ? allow : n);
    if (rc == ST_OK && err)
        rc = fault_error("write", f->path, err);
    return rc;
}

int fio_pread(fio_file *f, void *dst, size_t n, uint64_t off, size_t *got)
{
    size_t done = 0, unused;
    int err = fault_check(FIO_OP_READ, f->path, NULL, n, &unused);
    *got = 0;
    if (err)
        return fault_error("read", f->path, err);
    while (done < n) {
        ssize_t r = pread(f->fd, (uint8_t *)dst + done, n - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return io_error("read", f->path, errno);
        if (r == 0)
            break;
        done += (size_t)r;
    }
    *got = done;
    return ST_OK;
}

int fio_map(fio_file *f, size_t n, const uint8_t **out)
{
    size_t unused;
    *out = NULL;
    int err = fault_check(FIO_OP_READ, f->path, NULL, n, &unused);
    if (err)
        return fault_error("map", f->path, err);
    if (n == 0)
        return st_error(ST_INVALID_ARGUMENT, "map %s: empty file", f->path);
    void *p = mmap(NULL, n, PROT_READ, MAP_SHARED, f->fd, 0);
    if (p == MAP_FAILED)
        return io_error("map", f->path, errno);
    *out = p;
    return ST_OK;
}

void fio_unmap(const uint8_t *p, size_t n)
{
    if (p)
        munmap((void *)p, n);
}

int fio_sync(fio_file *f)
{
    size_t unused;
    int err = fault_check(FIO_OP_SYNC, f->path, NULL, 0, &unused);
    if (err)
        return fault_error("fdatasync", f->path, err);
    while (fdatasync(f->fd) != 0) {
        if (errno != EINTR)
            return io_error("fdatasync", f->path, errno);
    }
    return ST_OK;
}

int fio_size(fio_file *f, uint64_t *size)
{
    struct stat st;
    if (fstat(f->fd, &st) != 0)
        return io_error("fstat", f->path, errno);
    *size = (uint64_t)st.st_size;
    return ST_OK;
}

const char *fio_path(const fio_file *f)
{
    return f->path;
}

int fio_close(fio_file *f)
{
    int rc = ST_OK;
    if (!f)
        return ST_OK;
    if (close(f->fd) != 0 && errno != EINTR)
        rc = io_error("close", f->path, errno);
    free(f->path);
    free(f);
    return rc;
}

/* ---- paths ---- */

int fio_rename(const char *from, const char *to)
{
    size_t unused;
    int err = fault_check(FIO_OP_RENAME, from, to, 0, &unused);
    if (err)
        return fail_log("rename", from, to, err, true);
    if (rename(from, to) != 0)
        return fail_log("rename", from, to, errno, false);
    return ST_OK;
}

int fio_sync_dir(const char *dir)
{
    int rc = ST_OK;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return io_error("open directory", dir, errno);
    while (fsync(fd) != 0) {
        if (errno != EINTR) {
            rc = io_error("fsync directory", dir, errno);
            break;
        }
    }
    close(fd);
    return rc;
}

/* Creates one directory; an existing directory is fine. */
static int mkdir_one(const char *path)
{
    struct stat st;
    if (mkdir(path, 0755) == 0)
        return ST_OK;
    int err = errno;
    if (err == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return ST_OK;
    return io_error("mkdir", path, err == EEXIST ? ENOTDIR : err);
}

int fio_mkdirs(const char *path)
{
    int rc = ST_OK;
    char *p = strdup(path);
    if (!p)
        return st_error(ST_NOMEM, "mkdir %s: out of memory", path);
    for (char *s = p + 1; *s && rc == ST_OK; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        rc = mkdir_one(p);
        *s = '/';
    }
    if (rc == ST_OK && *p)
        rc = mkdir_one(p);
    free(p);
    return rc;
}

int fio_unlink(const char *path)
{
    if (unlink(path) != 0)
        return io_error("unlink", path, errno);
    return ST_OK;
}

static int remove_entries(const char *dir);

/* Removes path (a file, link or directory tree); a missing path is fine. */
static int remove_path(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? ST_OK : io_error("lstat", path, errno);
    if (!S_ISDIR(st.st_mode)) {
        if (unlink(path) != 0 && errno != ENOENT)
            return io_error("unlink", path, errno);
        return ST_OK;
    }
    int rc = remove_entries(path);
    if (rc == ST_OK && rmdir(path) != 0 && errno != ENOENT)
        rc = io_error("rmdir", path, errno);
    return rc;
}

static int remove_entries(const char *dir)
{
    char **names = NULL;
    size_t count = 0;
    int rc = fio_list_dir(dir, &names, &count);
    for (size_t i = 0; i < count && rc == ST_OK; i++) {
        char *child = NULL;
        if (asprintf(&child, "%s/%s", dir, names[i]) < 0)
            rc = st_error(ST_NOMEM, "remove %s: out of memory", dir);
        else
            rc = remove_path(child);
        free(child);
    }
    fio_free_list(names, count);
    return rc == ST_NOT_FOUND ? ST_OK : rc;
}

int fio_remove_tree(const char *path)
{
    return remove_path(path);
}

bool fio_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int fio_file_size(const char *path, uint64_t *size)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return io_error("stat", path, errno);
    *size = (uint64_t)st.st_size;
    return ST_OK;
}

int fio_truncate(const char *path, uint64_t size)
{
    if (truncate(path, (off_t)size) != 0)
        return io_error("truncate", path, errno);
    return ST_OK;
}

int fio_read_all(const char *path, buf_t *out)
{
    fio_file *f = NULL;
    uint64_t size = 0;
    size_t got = 0;
    int rc = fio_open_read(path, &f);
    if (rc == ST_OK)
        rc = fio_size(f, &size);
    out->len = 0;
    if (rc == ST_OK && buf_reserve(out, (size_t)size + 1) != ST_OK)
        rc = st_error(ST_NOMEM, "read %s: out of memory for %llu bytes", path,
                      (unsigned long long)size);
    /* Read until end of file, growing if the file grew since fstat. */
    while (rc == ST_OK) {
        size_t want = out->cap - out->len;
        rc = fio_pread(f, out->data + out->len, want, out->len, &got);
        if (rc != ST_OK)
            break;
        out->len += got;
        if (got < want) /* fio_pread is short only at end of file */
            break;
        if (buf_reserve(out, out->cap) != ST_OK)
            rc = st_error(ST_NOMEM, "read %s: out of memory", path);
    }
    if (rc != ST_OK)
        out->len = 0;
    int crc = fio_close(f);
    return rc != ST_OK ? rc : crc;
}

char *fio_dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

/* Writes data to tmp, fsyncs and closes it. */
static int write_temp(const char *tmp, const void *data, size_t n)
{
    fio_file *f = NULL;
    int rc = file_open(tmp, O_WRONLY | O_CREAT | O_TRUNC, true, &f);
    if (rc == ST_OK)
        rc = fio_append(f, data, n);
    if (rc == ST_OK)
        rc = fio_sync(f);
    int crc = fio_close(f);
    return rc != ST_OK ? rc : crc;
}

int fio_write_atomic(const char *path, const void *data, size_t n)
{
    char *tmp = NULL;
    char *dir = fio_dir_of(path);
    int rc = ST_OK;
    if (!dir || asprintf(&tmp, "%s.tmp", path) < 0) {
        tmp = NULL;
        rc = st_error(ST_NOMEM, "write %s: out of memory", path);
        goto out;
    }
    rc = write_temp(tmp, data, n);
    if (rc == ST_OK)
        rc = fio_rename(tmp, path);
    if (rc != ST_OK) {
        unlink(tmp);
        goto out;
    }
    rc = fio_sync_dir(dir);
out:
    free(tmp);
    free(dir);
    return rc;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends a copy of name to the growing list. */
static int list_push(char ***names, size_t *count, size_t *cap, const char *name)
{
    if (*count == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        char **n = realloc(*names, ncap * sizeof(*n));
        if (!n)
            return ST_NOMEM;
        *names = n;
        *cap = ncap;
    }
    char *copy = strdup(name);
    if (!copy)
        return ST_NOMEM;
    (*names)[(*count)++] = copy;
    return ST_OK;
}

int fio_list_dir(const char *dir, char ***names, size_t *count)
{
    char **list = NULL;
    size_t n = 0, cap = 0;
    int rc = ST_OK;
    *names = NULL;
    *count = 0;
    DIR *d = opendir(dir);
    if (!d)
        return io_error("opendir", dir, errno);
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(d);
        if (!e) {
            if (errno)
                rc = io_error("readdir", dir, errno);
            break;
        }
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (list_push(&list, &n, &cap, e->d_name) != ST_OK) {
            rc = st_error(ST_NOMEM, "list %s: out of memory", dir);
            break;
        }
    }
    closedir(d);
    if (rc != ST_OK) {
        fio_free_list(list, n);
        return rc;
    }
    if (n > 1)
        qsort(list, n, sizeof(*list), name_cmp);
    *names = list;
    *count = n;
    return ST_OK;
}

void fio_free_list(char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(names[i]);
    free(names);
}
