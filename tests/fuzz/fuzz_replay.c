/*
 * fuzz_replay.c - a main() for a fuzz target in a normal build: runs the target's
 * LLVMFuzzerTestOneInput() once on every file given, or on every file of every
 * directory given (its seed corpus, in name order), so the seeds and the minimized
 * inputs of bugs found are regression inputs of the unit tests (ctest -L unit,
 * fuzz_replay_<target>). A target's check that fails aborts the process; a directory
 * without inputs is an error, so a lost corpus does not pass silently.
 *   usage: fuzz_replay_<target> CORPUS_DIR_OR_FILE...
 * Thread-safety: single-threaded.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/status.h"
#include "tests/fuzz/fuzz_support.h"

static int replay_file(const char *path)
{
    buf_t b = {0};
    int rc = fio_read_all(path, &b);
    if (rc != ST_OK) {
        fprintf(stderr, "fuzz_replay: cannot read %s: %s\n", path, st_errmsg());
        return 1;
    }
    /* A private copy of exactly the input's size, so ASan sees reads past its end. */
    uint8_t *copy = malloc(b.len ? b.len : 1);
    if (!copy) {
        buf_free(&b);
        fprintf(stderr, "fuzz_replay: out of memory for %s\n", path);
        return 1;
    }
    if (b.len)
        memcpy(copy, b.data, b.len);
    LLVMFuzzerTestOneInput(copy, b.len);
    free(copy);
    buf_free(&b);
    return 0;
}

static int replay_dir(const char *dir, size_t *count)
{
    char **names = NULL;
    size_t n = 0;
    int failed = 0;
    if (fio_list_dir(dir, &names, &n) != ST_OK) {
        fprintf(stderr, "fuzz_replay: cannot list %s: %s\n", dir, st_errmsg());
        return 1;
    }
    for (size_t i = 0; i < n && !failed; i++) {
        char *path = NULL;
        struct stat st;
        if (asprintf(&path, "%s/%s", dir, names[i]) < 0) {
            failed = 1;
            break;
        }
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            failed = replay_file(path);
            (*count)++;
        }
        free(path);
    }
    fio_free_list(names, n);
    if (!failed && n == 0) {
        fprintf(stderr, "fuzz_replay: %s holds no inputs\n", dir);
        failed = 1;
    }
    return failed;
}

int main(int argc, char **argv)
{
    size_t count = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "fuzz_replay: %s does not exist\n", argv[i]);
            return 1;
        }
        int failed = S_ISDIR(st.st_mode) ? replay_dir(argv[i], &count) : replay_file(argv[i]);
        if (!S_ISDIR(st.st_mode))
            count++;
        if (failed)
            return 1;
    }
    printf("fuzz_replay: %zu inputs ran clean\n", count);
    return 0;
}
