/*
 * fileio.h - the thin file layer every durable byte goes through.
 *
 * All WAL, store-file and region-directory I/O uses these calls, so tests can make
 * them fail: a short write, a failed fsync, a full disk, a failed rename (the
 * crash-before-rename case). Errors are logged once here with errno and the path,
 * recorded with st_error() naming the path, and returned as statuses
 * (ST_IO, ST_NOSPACE, ST_NOT_FOUND, ...), never as raw errno.
 *
 * Thread-safety: a fio_file may be used by one writer and any number of pread
 * callers at once; the fault settings are global and protected by a mutex.
 */
#ifndef STRATA_COMMON_FILEIO_H
#define STRATA_COMMON_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

typedef struct fio_file fio_file;

/* Creates a new file for writing (fails with ST_EXISTS if it exists). */
int fio_create(const char *path, fio_file **out);
/* Opens an existing file for appending (writes go to its end). */
int fio_open_append(const char *path, fio_file **out);
/* Opens an existing file read-only. */
int fio_open_read(const char *path, fio_file **out);
/* Writes all n bytes at the end or fails; on failure some prefix may have been written. */
int fio_append(fio_file *f, const void *data, size_t n);
/* Reads up to n bytes at off; *got is set to the bytes read (short only at end of file). */
int fio_pread(fio_file *f, void *dst, size_t n, uint64_t off, size_t *got);
/* fdatasync. */
/* Maps the first n bytes of f read-only (MAP_SHARED: the page cache itself); the
 * mapping outlives f's close and is released with fio_unmap. A FIO_OP_READ fault
 * fails it like a read. */
int fio_map(fio_file *f, size_t n, const uint8_t **out);
void fio_unmap(const uint8_t *p, size_t n);
int fio_sync(fio_file *f);
int fio_size(fio_file *f, uint64_t *size);
const char *fio_path(const fio_file *f);
/* Closes and frees f (NULL is a no-op); returns the close status. */
int fio_close(fio_file *f);

int fio_rename(const char *from, const char *to);
/* The directory part of path ("." when there is none), malloc'ed; NULL if out of memory. */
char *fio_dir_of(const char *path);
/* fsyncs a directory so renames and creations in it are durable. */
int fio_sync_dir(const char *dir);
/* mkdir -p. */
int fio_mkdirs(const char *path);
int fio_unlink(const char *path);
/* rm -rf; a missing path is not an error. */
int fio_remove_tree(const char *path);
bool fio_exists(const char *path);
int fio_file_size(const char *path, uint64_t *size);
int fio_truncate(const char *path, uint64_t size);
/* Reads a whole file into out (replacing its content). */
int fio_read_all(const char *path, buf_t *out);
/* Writes a whole file durably: temp file, fsync, rename, fsync of the directory. */
int fio_write_atomic(const char *path, const void *data, size_t n);
/* Lists the names in dir (no "." or ".."), sorted bytewise. Free with fio_free_list(). */
int fio_list_dir(const char *dir, char ***names, size_t *count);
void fio_free_list(char **names, size_t count);

/* ---- fault injection (tests only) ----
 * A fault applies to operations of `op` on paths containing `path_match` (NULL: any),
 * after `skip` matching operations have succeeded, and then fails `count` of them
 * (-1: every one) with `error`. For FIO_OP_WRITE, `short_bytes` bytes of the failing
 * write are written first (a short write). A `space_limit` > 0 instead makes writes
 * fail with ST_NOSPACE once that many bytes have been appended in total since
 * fio_fault_set() (a full disk; the write that crosses it is short); it counts only
 * writes on matching paths and ignores op, skip and count.
 * Which calls are which op: FIO_OP_CREATE fio_create, fio_open_append and the temp file
 * of fio_write_atomic; FIO_OP_WRITE fio_append (and fio_write_atomic's write);
 * FIO_OP_SYNC fio_sync (and fio_write_atomic's file sync; directory syncs are not
 * faulted); FIO_OP_RENAME fio_rename (and fio_write_atomic's rename; it matches if
 * either path contains path_match); FIO_OP_READ fio_pread (and fio_read_all).
 * error is an errno value (0 means EIO) mapped with st_from_errno(). With `hold` the
 * operations the fault would fail instead wait (a paused disk) until the next
 * fio_fault_set() or fio_fault_clear(), then go on and succeed; they count as hits.
 * fio_fault_set() resets the counters; fio_fault_clear() keeps fio_fault_hits() readable. */
typedef enum fio_op {
    FIO_OP_WRITE,
    FIO_OP_SYNC,
    FIO_OP_RENAME,
    FIO_OP_CREATE,
    FIO_OP_READ,
} fio_op;

typedef struct fio_fault {
    fio_op op;
    const char *path_match;
    long skip;
    long count;
    int error;
    size_t short_bytes;
    uint64_t space_limit;
    bool hold;
} fio_fault;

void fio_fault_set(const fio_fault *fault);
void fio_fault_clear(void);
/* How many operations the current fault has failed. */
long fio_fault_hits(void);

#endif
