/*
 * test_fileio.c - the file layer: every call, and every injected fault (short write,
 * failed fsync, full disk, failed rename, failed create and read), with skip/count,
 * path matching and hit counting.
 * Thread-safety: single-threaded tests; each runs in its own mkdtemp directory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fileio.h"
#include "common/log.h"
#include "common/status.h"
#include "tests/support/testutil.h"

typedef struct fixture {
    char dir[64];
    char path[256];
} fixture;

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof(*fx));
    strcpy(fx->dir, "/tmp/strata-fileio-XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    fio_fault_clear();
    int rc = fio_remove_tree(fx->dir);
    bool gone = !fio_exists(fx->dir);
    free(fx);
    return rc == ST_OK && gone ? 0 : -1;
}

/* Returns dir/name in a per-fixture buffer (valid until the next call). */
static const char *in_dir(void **state, const char *name)
{
    fixture *fx = *state;
    snprintf(fx->path, sizeof(fx->path), "%s/%s", fx->dir, name);
    return fx->path;
}

static char *path_dup(void **state, const char *name)
{
    return strdup(in_dir(state, name));
}

static uint64_t size_of(const char *path)
{
    uint64_t sz = 0;
    assert_int_equal(fio_file_size(path, &sz), ST_OK);
    return sz;
}

static void write_file(const char *path, const char *content)
{
    fio_file *f = NULL;
    assert_int_equal(fio_create(path, &f), ST_OK);
    assert_int_equal(fio_append(f, content, strlen(content)), ST_OK);
    assert_int_equal(fio_close(f), ST_OK);
}

static void assert_content(const char *path, const char *want)
{
    buf_t b = {0};
    assert_int_equal(fio_read_all(path, &b), ST_OK);
    assert_int_equal(b.len, strlen(want));
    assert_memory_equal(b.data, want, b.len);
    buf_free(&b);
}

/* ---- plain operation ---- */

static void test_create_append_pread(void **state)
{
    char *p = path_dup(state, "f1");
    fio_file *f = NULL;
    assert_int_equal(fio_create(p, &f), ST_OK);
    assert_string_equal(fio_path(f), p);
    assert_int_equal(fio_append(f, "hello", 5), ST_OK);
    assert_int_equal(fio_append(f, " world", 6), ST_OK);
    assert_int_equal(fio_append(f, "", 0), ST_OK);
    assert_int_equal(fio_sync(f), ST_OK);
    uint64_t sz = 0;
    assert_int_equal(fio_size(f, &sz), ST_OK);
    assert_int_equal(sz, 11);
    char buf[32];
    size_t got = 99;
    assert_int_equal(fio_pread(f, buf, 11, 0, &got), ST_OK);
    assert_int_equal(got, 11);
    assert_memory_equal(buf, "hello world", 11);
    assert_int_equal(fio_pread(f, buf, 3, 6, &got), ST_OK);
    assert_int_equal(got, 3);
    assert_memory_equal(buf, "wor", 3);
    assert_int_equal(fio_pread(f, buf, 10, 8, &got), ST_OK); /* short only at end */
    assert_int_equal(got, 3);
    assert_int_equal(fio_pread(f, buf, 10, 100, &got), ST_OK);
    assert_int_equal(got, 0);
    assert_int_equal(fio_close(f), ST_OK);
    assert_int_equal(size_of(p), 11);
    assert_int_equal(fio_close(NULL), ST_OK);
    free(p);
}

static void test_create_existing_fails(void **state)
{
    char *p = path_dup(state, "exists");
    write_file(p, "x");
    fio_file *f = (fio_file *)0x1;
    st_clear();
    assert_int_equal(fio_create(p, &f), ST_EXISTS);
    assert_null(f);
    assert_non_null(strstr(st_errmsg(), p));
    assert_content(p, "x");
    free(p);
}

static void test_open_append_and_read(void **state)
{
    char *p = path_dup(state, "app");
    write_file(p, "abc");
    fio_file *f = NULL;
    assert_int_equal(fio_open_append(p, &f), ST_OK);
    assert_int_equal(fio_append(f, "def", 3), ST_OK);
    char buf[8];
    size_t got;
    assert_int_equal(fio_pread(f, buf, 6, 0, &got), ST_OK); /* the writer can read back */
    assert_int_equal(got, 6);
    assert_int_equal(fio_close(f), ST_OK);
    assert_content(p, "abcdef");
    assert_int_equal(fio_open_read(p, &f), ST_OK);
    assert_int_equal(fio_pread(f, buf, 8, 2, &got), ST_OK);
    assert_int_equal(got, 4);
    assert_memory_equal(buf, "cdef", 4);
    assert_int_equal(fio_close(f), ST_OK);
    free(p);
}

static void test_open_missing_not_found(void **state)
{
    char *p = path_dup(state, "missing");
    fio_file *f = (fio_file *)0x1;
    assert_int_equal(fio_open_read(p, &f), ST_NOT_FOUND);
    assert_null(f);
    assert_non_null(strstr(st_errmsg(), p));
    assert_int_equal(fio_open_append(p, &f), ST_NOT_FOUND);
    assert_null(f);
    assert_false(fio_exists(p));
    uint64_t sz;
    assert_int_equal(fio_file_size(p, &sz), ST_NOT_FOUND);
    assert_int_equal(fio_unlink(p), ST_NOT_FOUND);
    assert_int_equal(fio_truncate(p, 0), ST_NOT_FOUND);
    buf_t b = {0};
    assert_int_equal(fio_read_all(p, &b), ST_NOT_FOUND);
    buf_free(&b);
    free(p);
}

static void test_rename_unlink_truncate(void **state)
{
    char *a = path_dup(state, "a"), *b = path_dup(state, "b");
    write_file(a, "0123456789");
    assert_int_equal(fio_rename(a, b), ST_OK);
    assert_false(fio_exists(a));
    assert_true(fio_exists(b));
    assert_int_equal(fio_rename(a, b), ST_NOT_FOUND);
    assert_non_null(strstr(st_errmsg(), a));
    assert_int_equal(fio_truncate(b, 4), ST_OK);
    assert_content(b, "0123");
    assert_int_equal(fio_truncate(b, 0), ST_OK);
    assert_int_equal(size_of(b), 0);
    assert_int_equal(fio_unlink(b), ST_OK);
    assert_false(fio_exists(b));
    free(a);
    free(b);
}

static void test_mkdirs_and_sync_dir(void **state)
{
    char *d = path_dup(state, "x/y//z/");
    assert_int_equal(fio_mkdirs(d), ST_OK);
    assert_int_equal(fio_mkdirs(d), ST_OK); /* existing is fine */
    assert_true(fio_exists(in_dir(state, "x/y/z")));
    assert_int_equal(fio_sync_dir(in_dir(state, "x/y")), ST_OK);
    char *f = path_dup(state, "x/file");
    write_file(f, "data");
    char *under = path_dup(state, "x/file/sub");
    assert_true(fio_mkdirs(under) < 0); /* a file is in the way */
    assert_int_equal(fio_sync_dir(in_dir(state, "nope")), ST_NOT_FOUND);
    free(d);
    free(f);
    free(under);
}

static void test_remove_tree(void **state)
{
    assert_int_equal(fio_mkdirs(in_dir(state, "t/a/b/c")), ST_OK);
    assert_int_equal(fio_mkdirs(in_dir(state, "t/d")), ST_OK);
    write_file(in_dir(state, "t/a/f1"), "1");
    write_file(in_dir(state, "t/a/b/c/f2"), "2");
    write_file(in_dir(state, "t/f3"), "3");
    assert_int_equal(symlink("/", in_dir(state, "t/d/root-link")), 0); /* not followed */
    assert_int_equal(fio_remove_tree(in_dir(state, "t")), ST_OK);
    assert_false(fio_exists(in_dir(state, "t")));
    assert_true(fio_exists("/"));
    assert_int_equal(fio_remove_tree(in_dir(state, "t")), ST_OK); /* missing is fine */
    write_file(in_dir(state, "single"), "s");
    assert_int_equal(fio_remove_tree(in_dir(state, "single")), ST_OK);
    assert_false(fio_exists(in_dir(state, "single")));
}

static void test_list_dir_sorted(void **state)
{
    static const char *create[] = {"b", "a1", "B", "a", "\xc3\xa9t\xc3\xa9", "_", "10", "9", "a0"};
    static const char *want[] = {"10", "9", "B", "_", "a", "a0", "a1", "b", "\xc3\xa9t\xc3\xa9"};
    char **names = NULL;
    size_t count = 99;
    assert_int_equal(fio_mkdirs(in_dir(state, "ls")), ST_OK);
    assert_int_equal(fio_list_dir(in_dir(state, "ls"), &names, &count), ST_OK);
    assert_int_equal(count, 0);
    fio_free_list(names, count);
    for (size_t i = 0; i < 9; i++) {
        char name[64];
        snprintf(name, sizeof(name), "ls/%s", create[i]);
        if (i == 2)
            assert_int_equal(fio_mkdirs(in_dir(state, name)), ST_OK); /* dirs listed too */
        else
            write_file(in_dir(state, name), "x");
    }
    assert_int_equal(fio_list_dir(in_dir(state, "ls"), &names, &count), ST_OK);
    assert_int_equal(count, 9);
    for (size_t i = 0; i < 9; i++)
        assert_string_equal(names[i], want[i]);
    fio_free_list(names, count);
    names = (char **)0x1;
    assert_int_equal(fio_list_dir(in_dir(state, "nope"), &names, &count), ST_NOT_FOUND);
    assert_null(names);
    assert_int_equal(count, 0);
}

static void test_read_all_sizes(void **state)
{
    char *p = path_dup(state, "big");
    size_t n = (1 << 20) + 77;
    uint8_t *data = malloc(n);
    for (size_t i = 0; i < n; i++)
        data[i] = (uint8_t)(i * 131 + (i >> 9));
    fio_file *f = NULL;
    assert_int_equal(fio_create(p, &f), ST_OK);
    assert_int_equal(fio_append(f, data, n), ST_OK);
    assert_int_equal(fio_close(f), ST_OK);
    buf_t b = {0};
    assert_int_equal(buf_append(&b, "old content", 11), ST_OK);
    assert_int_equal(fio_read_all(p, &b), ST_OK);
    assert_int_equal(b.len, n);
    assert_memory_equal(b.data, data, n);
    char *e = path_dup(state, "empty");
    write_file(e, "");
    assert_int_equal(fio_read_all(e, &b), ST_OK);
    assert_int_equal(b.len, 0);
    buf_free(&b);
    free(data);
    free(p);
    free(e);
}

static void test_write_atomic(void **state)
{
    char *p = path_dup(state, "atomic");
    char *tmp = path_dup(state, "atomic.tmp");
    assert_int_equal(fio_write_atomic(p, "first", 5), ST_OK);
    assert_content(p, "first");
    assert_false(fio_exists(tmp));
    write_file(tmp, "stale temp file from a crash, longer than the new content");
    assert_int_equal(fio_write_atomic(p, "second", 6), ST_OK);
    assert_content(p, "second");
    assert_false(fio_exists(tmp));
    assert_int_equal(fio_write_atomic(p, "", 0), ST_OK);
    assert_int_equal(size_of(p), 0);
    assert_int_equal(fio_write_atomic(in_dir(state, "nodir/x"), "a", 1), ST_NOT_FOUND);
    free(p);
    free(tmp);
}

/* ---- faults ---- */

static fio_fault fault_of(fio_op op, const char *match, long skip, long count, int error)
{
    fio_fault f = {0};
    f.op = op;
    f.path_match = match;
    f.skip = skip;
    f.count = count;
    f.error = error;
    return f;
}

static void test_fault_short_write(void **state)
{
    char *p = path_dup(state, "short");
    fio_file *f = NULL;
    assert_int_equal(fio_create(p, &f), ST_OK);
    assert_int_equal(fio_append(f, "AAAA", 4), ST_OK);
    fio_fault ft = fault_of(FIO_OP_WRITE, NULL, 0, 1, EIO);
    ft.short_bytes = 3;
    fio_fault_set(&ft);
    st_clear();
    assert_int_equal(fio_append(f, "0123456789", 10), ST_IO);
    assert_non_null(strstr(st_errmsg(), p));
    assert_int_equal(fio_fault_hits(), 1);
    assert_int_equal(size_of(p), 4 + 3);
    assert_content(p, "AAAA012");
    assert_int_equal(fio_append(f, "Z", 1), ST_OK); /* count 1: the next write works */
    assert_int_equal(fio_fault_hits(), 1);
    assert_content(p, "AAAA012Z");
    assert_int_equal(fio_close(f), ST_OK);
    free(p);
}

static void test_fault_write_error_codes(void **state)
{
    char *p = path_dup(state, "codes");
    fio_file *f = NULL;
    assert_int_equal(fio_create(p, &f), ST_OK);
    fio_fault ft = fault_of(FIO_OP_WRITE, NULL, 0, 1, ENOSPC);
    fio_fault_set(&ft);
    assert_int_equal(fio_append(f, "abc", 3), ST_NOSPACE);
    assert_int_equal(size_of(p), 0);            /* short_bytes 0: nothing written */
    ft = fault_of(FIO_OP_WRITE, NULL, 0, 1, 0); /* error 0 means EIO */
    ft.short_bytes = 100;                       /* more than the write: all of it lands */
    fio_fault_set(&ft);
    assert_int_equal(fio_append(f, "abc", 3), ST_IO);
    assert_int_equal(size_of(p), 3);
    assert_int_equal(fio_close(f), ST_OK);
    free(p);
}

static void test_fault_sync_fails(void **state)
{
    char *p = path_dup(state, "sync");
    fio_file *f = NULL;
    assert_int_equal(fio_create(p, &f), ST_OK);
    assert_int_equal(fio_append(f, "data", 4), ST_OK);
    fio_fault ft = fault_of(FIO_OP_SYNC, NULL, 0, 1, EIO);
    fio_fault_set(&ft);
    assert_int_equal(fio_append(f, "more", 4), ST_OK); /* other ops unaffected */
    st_clear();
    assert_int_equal(fio_sync(f), ST_IO);
    assert_non_null(strstr(st_errmsg(), p));
    assert_int_equal(fio_fault_hits(), 1);
    assert_int_equal(fio_sync(f), ST_OK);
    assert_int_equal(fio_close(f), ST_OK);
    assert_content(p, "datamore");
    free(p);
}

static void test_fault_full_disk_space_limit(void **state)
{
    char *p = path_dup(state, "wal-full"), *other = path_dup(state, "other");
    fio_file *f = NULL, *g = NULL;
    assert_int_equal(fio_create(p, &f), ST_OK);
    assert_int_equal(fio_create(other, &g), ST_OK);
    assert_int_equal(fio_append(f, "pre-fault bytes do not count", 28), ST_OK);
    fio_fault ft = fault_of(FIO_OP_WRITE, "wal-", 0, 0, 0);
    ft.space_limit = 100;
    fio_fault_set(&ft);
    char chunk[60];
    memset(chunk, 'c', sizeof(chunk));
    assert_int_equal(fio_append(g, chunk, 60), ST_OK); /* other path: not counted */
    assert_int_equal(fio_append(g, chunk, 60), ST_OK);
    assert_int_equal(fio_append(f, chunk, 60), ST_OK);
    assert_int_equal(fio_append(f, chunk, 40), ST_OK); /* exactly at the limit */
    assert_int_equal(fio_fault_hits(), 0);
    assert_int_equal(fio_append(f, chunk, 1), ST_NOSPACE);
    assert_int_equal(size_of(p), 28 + 100);
    assert_int_equal(fio_fault_hits(), 1);

    /* fresh limit: the crossing write is short */
    fio_fault_set(&ft);
    assert_int_equal(fio_fault_hits(), 0);
    assert_int_equal(fio_append(f, chunk, 60), ST_OK);
    st_clear();
    assert_int_equal(fio_append(f, chunk, 60), ST_NOSPACE);
    assert_non_null(strstr(st_errmsg(), p));
    assert_int_equal(size_of(p), 28 + 100 + 100);
    assert_int_equal(fio_append(f, chunk, 5), ST_NOSPACE); /* stays full */
    assert_int_equal(fio_append(f, chunk, 0), ST_OK);
    assert_int_equal(size_of(p), 28 + 200);
    assert_int_equal(fio_fault_hits(), 2);
    fio_fault_clear();
    assert_int_equal(fio_append(f, chunk, 5), ST_OK);
    assert_int_equal(size_of(p), 28 + 205);
    assert_int_equal(fio_close(f), ST_OK);
    assert_int_equal(fio_close(g), ST_OK);
    free(p);
    free(other);
}

static void test_fault_rename_write_atomic(void **state)
{
    char *p = path_dup(state, "manifest"), *tmp = path_dup(state, "manifest.tmp");
    fio_fault ft = fault_of(FIO_OP_RENAME, "manifest", 0, -1, EIO);
    fio_fault_set(&ft);
    st_clear();
    assert_int_equal(fio_write_atomic(p, "v1", 2), ST_IO);
    assert_non_null(strstr(st_errmsg(), p));
    assert_false(fio_exists(p)); /* crash before rename: target absent */
    assert_false(fio_exists(tmp));
    assert_int_equal(fio_fault_hits(), 1);
    fio_fault_clear();
    assert_int_equal(fio_write_atomic(p, "v1", 2), ST_OK);
    fio_fault_set(&ft);
    assert_int_equal(fio_write_atomic(p, "v2", 2), ST_IO);
    assert_content(p, "v1"); /* old content survives */
    fio_fault_clear();
    free(p);
    free(tmp);
}

static void test_fault_write_atomic_write_and_sync(void **state)
{
    char *p = path_dup(state, "state");
    assert_int_equal(fio_write_atomic(p, "good", 4), ST_OK);
    fio_fault ft = fault_of(FIO_OP_WRITE, NULL, 0, 1, EIO);
    ft.short_bytes = 2;
    fio_fault_set(&ft);
    assert_int_equal(fio_write_atomic(p, "newer", 5), ST_IO);
    assert_content(p, "good");
    ft = fault_of(FIO_OP_SYNC, NULL, 0, 1, EIO);
    fio_fault_set(&ft);
    assert_int_equal(fio_write_atomic(p, "newer", 5), ST_IO);
    assert_content(p, "good");
    ft = fault_of(FIO_OP_CREATE, NULL, 0, 1, EACCES);
    fio_fault_set(&ft);
    assert_int_equal(fio_write_atomic(p, "newer", 5), ST_PERMISSION);
    assert_content(p, "good");
    assert_false(fio_exists(in_dir(state, "state.tmp")));
    free(p);
}

static void test_fault_rename_plain(void **state)
{
    char *a = path_dup(state, "from"), *b = path_dup(state, "to-target");
    write_file(a, "x");
    fio_fault ft = fault_of(FIO_OP_RENAME, "target", 0, 1, EIO); /* matches the destination */
    fio_fault_set(&ft);
    assert_int_equal(fio_rename(a, b), ST_IO);
    assert_true(fio_exists(a));
    assert_false(fio_exists(b));
    assert_int_equal(fio_rename(a, b), ST_OK);
    assert_true(fio_exists(b));
    free(a);
    free(b);
}

static void test_fault_skip_and_count(void **state)
{
    char *p = path_dup(state, "skip");
    fio_file *f = NULL;
    assert_int_equal(fio_create(p, &f), ST_OK);
    fio_fault ft = fault_of(FIO_OP_WRITE, NULL, 2, 2, EIO);
    fio_fault_set(&ft);
    int want[] = {ST_OK, ST_OK, ST_IO, ST_IO, ST_OK, ST_OK};
    for (int i = 0; i < 6; i++)
        assert_int_equal(fio_append(f, "w", 1), want[i]);
    assert_int_equal(fio_fault_hits(), 2);
    assert_int_equal(size_of(p), 4);
    ft = fault_of(FIO_OP_WRITE, NULL, 1, -1, EIO); /* forever after one success */
    fio_fault_set(&ft);
    assert_int_equal(fio_fault_hits(), 0);
    assert_int_equal(fio_append(f, "w", 1), ST_OK);
    for (int i = 0; i < 20; i++)
        assert_int_equal(fio_append(f, "w", 1), ST_IO);
    assert_int_equal(fio_fault_hits(), 20);
    fio_fault_clear();
    assert_int_equal(fio_fault_hits(), 20); /* still readable after clear */
    assert_int_equal(fio_append(f, "w", 1), ST_OK);
    ft = fault_of(FIO_OP_WRITE, NULL, 0, 0, EIO); /* count 0 fails nothing */
    fio_fault_set(&ft);
    assert_int_equal(fio_append(f, "w", 1), ST_OK);
    assert_int_equal(fio_fault_hits(), 0);
    assert_int_equal(fio_close(f), ST_OK);
    free(p);
}

static void test_fault_path_match(void **state)
{
    char *wal = path_dup(state, "wal.0001"), *hf = path_dup(state, "storefile.1");
    fio_file *w = NULL, *h = NULL;
    assert_int_equal(fio_create(wal, &w), ST_OK);
    assert_int_equal(fio_create(hf, &h), ST_OK);
    fio_fault ft = fault_of(FIO_OP_WRITE, "wal.", 1, 1, EIO);
    fio_fault_set(&ft);
    assert_int_equal(fio_append(h, "x", 1), ST_OK); /* not matching: does not use the skip */
    assert_int_equal(fio_append(h, "x", 1), ST_OK);
    assert_int_equal(fio_append(w, "x", 1), ST_OK); /* skipped */
    assert_int_equal(fio_append(h, "x", 1), ST_OK);
    assert_int_equal(fio_append(w, "x", 1), ST_IO);
    assert_int_equal(fio_append(w, "x", 1), ST_OK);
    assert_int_equal(fio_fault_hits(), 1);
    /* a fault of another op does not touch writes */
    ft = fault_of(FIO_OP_SYNC, NULL, 0, -1, EIO);
    fio_fault_set(&ft);
    assert_int_equal(fio_append(w, "x", 1), ST_OK);
    assert_int_equal(fio_sync(h), ST_IO);
    assert_int_equal(fio_close(w), ST_OK);
    assert_int_equal(fio_close(h), ST_OK);
    free(wal);
    free(hf);
}

static void test_fault_create(void **state)
{
    char *p = path_dup(state, "newfile");
    fio_file *f = (fio_file *)0x1;
    fio_fault ft = fault_of(FIO_OP_CREATE, "newfile", 0, 2, EACCES);
    fio_fault_set(&ft);
    assert_int_equal(fio_create(p, &f), ST_PERMISSION);
    assert_null(f);
    assert_false(fio_exists(p));
    fio_fault_clear();
    write_file(p, "x");
    fio_fault_set(&ft);
    assert_int_equal(fio_open_append(p, &f), ST_PERMISSION); /* open_append counts as create */
    assert_null(f);
    assert_int_equal(fio_open_read(p, &f), ST_OK); /* read-only opens are not faulted */
    assert_int_equal(fio_close(f), ST_OK);
    assert_int_equal(fio_open_append(p, &f), ST_PERMISSION);
    assert_int_equal(fio_open_append(p, &f), ST_OK); /* count 2 used up */
    assert_int_equal(fio_close(f), ST_OK);
    assert_int_equal(fio_fault_hits(), 2);
    free(p);
}

static void test_fault_read(void **state)
{
    char *p = path_dup(state, "readme");
    write_file(p, "content");
    fio_file *f = NULL;
    assert_int_equal(fio_open_read(p, &f), ST_OK);
    fio_fault ft = fault_of(FIO_OP_READ, "readme", 0, 1, EIO);
    fio_fault_set(&ft);
    char buf[16];
    size_t got = 99;
    st_clear();
    assert_int_equal(fio_pread(f, buf, 7, 0, &got), ST_IO);
    assert_int_equal(got, 0);
    assert_non_null(strstr(st_errmsg(), p));
    assert_int_equal(fio_pread(f, buf, 7, 0, &got), ST_OK);
    assert_int_equal(got, 7);
    assert_int_equal(fio_close(f), ST_OK);
    fio_fault_set(&ft);
    buf_t b = {0};
    assert_int_equal(fio_read_all(p, &b), ST_IO);
    assert_int_equal(b.len, 0);
    assert_int_equal(fio_read_all(p, &b), ST_OK);
    assert_int_equal(b.len, 7);
    buf_free(&b);
    free(p);
}

typedef struct held_create {
    const char *path;
    int rc;
    fio_file *f;
} held_create;

static void *create_thread(void *arg)
{
    held_create *h = arg;
    h->rc = fio_create(h->path, &h->f);
    return NULL;
}

/* hold: the matching create waits (a paused disk) until the fault is cleared, then
 * succeeds; other paths go on meanwhile. */
static void test_fault_hold_pauses_until_cleared(void **state)
{
    char *held_path = path_dup(state, "held.tmp");
    fio_fault f = {.op = FIO_OP_CREATE, .path_match = "held", .count = 1, .hold = true};
    fio_fault_set(&f);
    held_create h = {held_path, -1, NULL};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, create_thread, &h), 0);
    for (int i = 0; i < 10000 && fio_fault_hits() == 0; i++)
        usleep(1000);
    assert_int_equal(fio_fault_hits(), 1);
    assert_false(fio_exists(held_path)); /* still waiting */
    fio_file *other = NULL;
    assert_int_equal(fio_create(in_dir(state, "other"), &other), ST_OK);
    fio_close(other);
    fio_fault_clear();
    pthread_join(t, NULL);
    assert_int_equal(h.rc, ST_OK);
    assert_true(fio_exists(held_path));
    fio_close(h.f);
    free(held_path);
}

int main(void)
{
    log_set_level(LOG_LEVEL_ERROR);
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_create_append_pread),
        T(test_create_existing_fails),
        T(test_open_append_and_read),
        T(test_open_missing_not_found),
        T(test_rename_unlink_truncate),
        T(test_mkdirs_and_sync_dir),
        T(test_remove_tree),
        T(test_list_dir_sorted),
        T(test_read_all_sizes),
        T(test_write_atomic),
        T(test_fault_short_write),
        T(test_fault_write_error_codes),
        T(test_fault_sync_fails),
        T(test_fault_full_disk_space_limit),
        T(test_fault_rename_write_atomic),
        T(test_fault_write_atomic_write_and_sync),
        T(test_fault_rename_plain),
        T(test_fault_skip_and_count),
        T(test_fault_path_match),
        T(test_fault_hold_pauses_until_cleared),
        T(test_fault_create),
        T(test_fault_read),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
