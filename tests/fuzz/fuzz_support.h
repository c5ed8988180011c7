/*
 * fuzz_support.h - what the fuzz targets of tests/fuzz share: a private scratch
 * directory per process, writing an input to a file there (the WAL and store-file
 * readers read files through common/fileio.h, which has no in-memory files), and a
 * check that reports a broken property and aborts, so libFuzzer records the input.
 *
 * Every target defines LLVMFuzzerTestOneInput(); under libFuzzer (STRATA_FUZZ=ON) it
 * is driven by the fuzzer, in a normal build by fuzz_replay.c over the seed corpus.
 * Thread-safety: none; a fuzz process runs one input at a time.
 */
#ifndef STRATA_TESTS_FUZZ_SUPPORT_H
#define STRATA_TESTS_FUZZ_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

/* The entry point every target defines (libFuzzer's). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* This process's scratch directory, created at the first call under
 * $STRATA_FUZZ_TMPDIR, else /dev/shm (tmpfs: fsync is cheap) or $TMPDIR or /tmp, and
 * removed at exit. Aborts if it cannot be created. */
const char *fuzz_tmpdir(void);

/* "<fuzz_tmpdir()>/<name>", malloc'ed; aborts if out of memory. */
char *fuzz_path(const char *name);

/* Replaces the file at path with the n bytes at data; aborts on failure. */
void fuzz_write_file(const char *path, const uint8_t *data, size_t n);

/* Reports "fuzz check failed at file:line: what: detail" and aborts. */
void fuzz_fail(const char *file, int line, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noreturn));

/* Aborts through fuzz_fail() with the condition's text and a printf detail if cond is
 * false. */
#define FUZZ_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                                     \
    } while (0)

#endif
