/*
 * test_install.c - libstrata as an application gets it: `cmake --install` of this build
 * into a fresh prefix, then every program in examples/ (each .c file) compiled against
 * the installed copy with `pkg-config --cflags --libs strata` (shared, and static with
 * --static and -l:libstrata.a), and each one run against a local cluster (1 master, 2
 * region servers; tests/support/cluster.h), its output compared with what it must print.
 *
 * The in-tree build of each example (example_<name> beside STRATA_BIN) runs too and must
 * print the same. Checked on the way: the installed files (P/lib/libstrata.so -> .so.0 -> .so.0.1.0
 * with SONAME libstrata.so.0, P/lib/libstrata.a, P/include/strata/{strata.h,admin.h},
 * P/lib/pkgconfig/strata.pc); the shared program needs libstrata.so.0 and loads the
 * installed one; the static program does not need it at all.
 *
 * An example added to examples/ must be added to EXAMPLES below with its expected output
 * (the test fails on one it does not know).
 *
 * Needs STRATA_BIN, STRATA_BUILD_DIR, STRATA_SOURCE_DIR, STRATA_CMAKE, STRATA_CC and
 * STRATA_PKG_CONFIG (set by CTest); skipped without them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/status.h"
#include "tests/support/cluster.h"
#include "tests/support/testutil.h"

/* What each example prints when it runs against the cluster (ZK_QUORUM ZK_PARENT). */
static const struct {
    const char *name;
    const char *output;
} EXAMPLES[] = {
    {"put_get", "table put_get_example: 2 regions\n"
                "put 3 rows\n"
                "get banana: 1 cells\n"
                "  banana f:q = value of banana\n"
                "scan:\n"
                "  apple f:q = value of apple\n"
                "  banana f:q = value of banana\n"
                "  cherry f:q = value of cherry\n"
                "deleted banana\n"
                "get banana: 0 cells\n"
                "put to family nosuch: STRATA_ERR_NO_SUCH_FAMILY\n"
                "dropped table put_get_example\n"},
};
#define N_EXAMPLES (sizeof(EXAMPLES) / sizeof(EXAMPLES[0]))

static tc_cluster *cluster;
static char tmp[256];
static char prefix[320];

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v ? v : "";
}

/* Runs a shell command; its stdout (malloc'ed) in *out if out is not NULL; the exit
 * status (-1 if it did not exit). stderr goes to the test's. */
static int run(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int run(char **out, const char *fmt, ...)
{
    char cmd[8192], path[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    snprintf(path, sizeof(path), "%s/out.txt", tmp);
    char full[8700];
    snprintf(full, sizeof(full), "( %s ) > '%s'", cmd, path);
    int st = system(full);
    if (out) {
        FILE *f = fopen(path, "rb");
        size_t cap = 1 << 16, n = 0;
        *out = calloc(1, cap + 1);
        if (f) {
            n = fread(*out, 1, cap, f);
            fclose(f);
        }
        (*out)[n] = '\0';
    }
    if (st == -1 || !WIFEXITED(st)) {
        fprintf(stderr, "command did not exit: %s\n", cmd);
        return -1;
    }
    if (WEXITSTATUS(st) != 0)
        fprintf(stderr, "command exited %d: %s\n", WEXITSTATUS(st), cmd);
    return WEXITSTATUS(st);
}

static void need(void)
{
    if (!cluster)
        tu_skip(__func__, "%s", "STRATA_BIN, STRATA_BUILD_DIR or STRATA_CMAKE not set (ctest sets them)");
}

static void assert_file(const char *rel)
{
    char path[600];
    struct stat sb;
    snprintf(path, sizeof(path), "%s/%s", prefix, rel);
    if (lstat(path, &sb) != 0)
        fail_msg("not installed: %s", path);
}

static void installed_files(void **state)
{
    need();
    assert_file("lib/libstrata.so");
    assert_file("lib/libstrata.so.0");
    assert_file("lib/libstrata.so.0.1.0");
    assert_file("lib/libstrata.a");
    assert_file("include/strata/strata.h");
    assert_file("include/strata/admin.h");
    assert_file("lib/pkgconfig/strata.pc");
    char *out = NULL;
    assert_int_equal(run(&out, "readelf -d '%s/lib/libstrata.so' | grep SONAME", prefix), 0);
    assert_non_null(strstr(out, "[libstrata.so.0]"));
    free(out);
    /* the headers stand alone: system headers and each other only */
    assert_int_equal(run(NULL,
                         "printf '#include <strata/admin.h>\\nint main(void){return 0;}\\n' | "
                         "'%s' -std=c11 -Wall -Wextra -Werror -pedantic -x c -fsyntax-only "
                         "-I'%s/include' -",
                         env("STRATA_CC"), prefix),
                     0);
}

/* The pkg-config command line against the installed copy. */
static void pkg_config(char *out, size_t cap, const char *args)
{
    snprintf(out, cap, "PKG_CONFIG_PATH='%s/lib/pkgconfig' '%s' %s strata", prefix,
             env("STRATA_PKG_CONFIG"), args);
}

/* Builds example name both ways into tmp/<name>_shared and tmp/<name>_static. */
static void build_example(const char *name)
{
    char pc[600], pcs[600];
    pkg_config(pc, sizeof(pc), "--cflags --libs");
    pkg_config(pcs, sizeof(pcs), "--static --cflags --libs");
    const char *cflags = "-std=c11 -Wall -Wextra -Werror";
    assert_int_equal(run(NULL, "'%s' %s %s -o '%s/%s_shared' '%s/examples/%s.c' $(%s)",
                         env("STRATA_CC"), cflags, env("STRATA_EXAMPLE_FLAGS"), tmp, name,
                         env("STRATA_SOURCE_DIR"), name, pc),
                     0);
    /* static: the archive instead of the shared object, its dependencies from --static */
    assert_int_equal(run(NULL,
                         "'%s' %s %s -o '%s/%s_static' '%s/examples/%s.c' "
                         "$(%s | sed 's/-lstrata\\b/-l:libstrata.a/')",
                         env("STRATA_CC"), cflags, env("STRATA_EXAMPLE_FLAGS"), tmp, name,
                         env("STRATA_SOURCE_DIR"), name, pcs),
                     0);
    char *out = NULL;
    assert_int_equal(run(&out, "readelf -d '%s/%s_shared' | grep NEEDED", tmp, name), 0);
    assert_non_null(strstr(out, "[libstrata.so.0]"));
    free(out);
    assert_int_equal(run(&out, "readelf -d '%s/%s_static' | grep NEEDED", tmp, name), 0);
    assert_null(strstr(out, "libstrata"));
    free(out);
    assert_int_equal(run(&out, "LD_LIBRARY_PATH='%s/lib' ldd '%s/%s_shared'", prefix, tmp, name),
                     0);
    char want[700];
    snprintf(want, sizeof(want), "libstrata.so.0 => %s/lib/libstrata.so.0", prefix);
    if (!strstr(out, want))
        fail_msg("%s_shared does not load the installed libstrata:\n%s", name, out);
    free(out);
}

static void run_example(const char *name, const char *variant, const char *expected)
{
    char *out = NULL;
    int rc = run(&out, "LD_LIBRARY_PATH='%s/lib' timeout 120 '%s/%s_%s' '%s' '%s'", prefix, tmp,
                 name, variant, tc_quorum(cluster), tc_parent(cluster));
    if (rc != 0 || strcmp(out, expected) != 0)
        fail_msg("%s_%s: status %d, output:\n%s\nwanted:\n%s", name, variant, rc, out, expected);
    free(out);
}

/* The in-tree build of example name (example_<name> beside STRATA_BIN, linked with the
 * internal libraries) prints the same. */
static void run_in_tree(const char *name, const char *expected)
{
    char bin[700], *out = NULL;
    snprintf(bin, sizeof(bin), "%s", env("STRATA_BIN"));
    char *slash = strrchr(bin, '/');
    snprintf(slash ? slash + 1 : bin, sizeof(bin) - (size_t)(slash ? slash + 1 - bin : 0),
             "example_%s", name);
    if (access(bin, X_OK) != 0)
        fail_msg("%s is not built", bin);
    int rc = run(&out, "timeout 120 '%s' '%s' '%s'", bin, tc_quorum(cluster), tc_parent(cluster));
    if (rc != 0 || strcmp(out, expected) != 0)
        fail_msg("%s: status %d, output:\n%s\nwanted:\n%s", bin, rc, out, expected);
    free(out);
}

static void examples_build_and_run(void **state)
{
    need();
    char dir[600];
    snprintf(dir, sizeof(dir), "%s/examples", env("STRATA_SOURCE_DIR"));
    DIR *d = opendir(dir);
    assert_non_null(d);
    size_t ran = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 3 || strcmp(e->d_name + len - 2, ".c") != 0)
            continue;
        char name[256];
        snprintf(name, sizeof(name), "%.*s", (int)(len - 2), e->d_name);
        size_t i = 0;
        while (i < N_EXAMPLES && strcmp(EXAMPLES[i].name, name) != 0)
            i++;
        if (i == N_EXAMPLES)
            fail_msg("examples/%s.c has no expected output in test_install.c", name);
        build_example(name);
        run_example(name, "shared", EXAMPLES[i].output);
        run_example(name, "static", EXAMPLES[i].output);
        run_in_tree(name, EXAMPLES[i].output);
        ran++;
    }
    closedir(d);
    assert_int_equal(ran, N_EXAMPLES);
}

static int setup(void **state)
{
    if (!getenv("STRATA_BIN") || !getenv("STRATA_BUILD_DIR") || !getenv("STRATA_CMAKE")) {
        fprintf(stderr, "skipped: STRATA_BIN, STRATA_BUILD_DIR or STRATA_CMAKE not set\n");
        return 0;
    }
    snprintf(tmp, sizeof(tmp), "/tmp/test_install.XXXXXX");
    if (!mkdtemp(tmp))
        return -1;
    snprintf(prefix, sizeof(prefix), "%s/prefix", tmp);
    if (run(NULL, "'%s' --install '%s' --prefix '%s' >/dev/null", env("STRATA_CMAKE"),
            env("STRATA_BUILD_DIR"), prefix) != 0)
        return -1;
    tc_options o = {.masters = 1, .regionservers = 2};
    int rc = tc_start(&o, &cluster);
    if (rc != ST_OK) {
        fprintf(stderr, "cluster start: %s\n", st_errmsg());
        cluster = NULL;
        return rc == ST_NOT_FOUND ? 0 : -1;
    }
    return 0;
}

static int teardown(void **state)
{
    tc_stop(cluster);
    if (tmp[0])
        run(NULL, "rm -rf '%s'", tmp);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(installed_files),
        cmocka_unit_test(examples_build_and_run),
    };
    return tu_run_group_tests(tests, setup, teardown);
}
