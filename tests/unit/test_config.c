/*
 * test_config.c - the configuration registry: precedence (default < file < env < flag),
 * file parse errors naming the line, unknown keys, typed values and getters, printing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config.h"
#include "common/fileio.h"
#include "common/status.h"
#include "tests/support/testutil.h"

static const config_key keys[] = {
    {"a.port", CONFIG_INT, "17020", "a port"},
    {"a.host", CONFIG_STRING, "127.0.0.1", "a host"},
    {"a.flag", CONFIG_BOOL, "false", "a switch"},
    {"a.cache.size", CONFIG_SIZE, "64m", "a size"},
    {"a.ratio", CONFIG_DOUBLE, "1.2", "a ratio"},
    {"a.dir", CONFIG_STRING, "", "no default"},
};

typedef struct fixture {
    char *dir;
    char path[512];
    config *c;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    f->dir = tu_tempdir("config");
    snprintf(f->path, sizeof(f->path), "%s/strata.conf", f->dir);
    assert_int_equal(config_new(&f->c), ST_OK);
    assert_int_equal(config_define_all(f->c, keys, sizeof(keys) / sizeof(keys[0])), ST_OK);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    config_free(f->c);
    tu_rmdir(f->dir);
    free(f);
    return 0;
}

static void write_file(const fixture *f, const char *text)
{
    assert_int_equal(fio_write_atomic(f->path, text, strlen(text)), ST_OK);
}

static void defaults_are_typed(void **state)
{
    fixture *f = *state;
    assert_int_equal(config_get_int64(f->c, "a.port"), 17020);
    assert_string_equal(config_get_string(f->c, "a.host"), "127.0.0.1");
    assert_false(config_get_bool(f->c, "a.flag"));
    assert_int_equal(config_get_size(f->c, "a.cache.size"), 64u << 20);
    assert_true(config_get_double(f->c, "a.ratio") > 1.19 &&
                config_get_double(f->c, "a.ratio") < 1.21);
    assert_string_equal(config_get_string(f->c, "a.dir"), "");
    assert_int_equal(config_get_source(f->c, "a.port"), CONFIG_SRC_DEFAULT);
    assert_int_equal(config_define(f->c, "a.port", CONFIG_INT, "1", ""), ST_EXISTS);
    assert_int_equal(config_define(f->c, "b.bad", CONFIG_INT, "x", ""), ST_INVALID_ARGUMENT);
}

static void precedence_default_file_env_flag(void **state)
{
    fixture *f = *state;
    write_file(f, "# comment\n\n a.port = 1 \na.host=filehost # trailing\na.flag = yes\n");
    assert_int_equal(config_load_file(f->c, f->path), ST_OK);
    assert_int_equal(config_get_int64(f->c, "a.port"), 1);
    assert_string_equal(config_get_string(f->c, "a.host"), "filehost");
    assert_true(config_get_bool(f->c, "a.flag"));
    assert_int_equal(config_get_source(f->c, "a.host"), CONFIG_SRC_FILE);

    char *env[] = {"STRATA_A_PORT=2", "STRATA_A_CACHE_SIZE=1g", "STRATA_UNKNOWN_KEY=9",
                   "A_HOST=nope", NULL};
    assert_int_equal(config_load_env(f->c, env), ST_OK);
    assert_int_equal(config_get_int64(f->c, "a.port"), 2);
    assert_int_equal(config_get_size(f->c, "a.cache.size"), 1ull << 30);
    assert_string_equal(config_get_string(f->c, "a.host"), "filehost");
    assert_int_equal(config_get_source(f->c, "a.port"), CONFIG_SRC_ENV);

    char *argv[] = {"--a.port=3", "--a.host", "flaghost", "--a.ratio=0.5"};
    assert_int_equal(config_load_args(f->c, 4, argv), ST_OK);
    assert_int_equal(config_get_int64(f->c, "a.port"), 3);
    assert_string_equal(config_get_string(f->c, "a.host"), "flaghost");
    assert_int_equal(config_get_source(f->c, "a.host"), CONFIG_SRC_FLAG);
    assert_int_equal(config_get_source(f->c, "a.flag"), CONFIG_SRC_FILE);
    assert_int_equal(config_get_source(f->c, "a.dir"), CONFIG_SRC_DEFAULT);
}

static void file_errors_name_the_line(void **state)
{
    fixture *f = *state;
    write_file(f, "a.port = 5\n# fine\nthis line has no equals\n");
    assert_int_equal(config_load_file(f->c, f->path), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), ":3:"));

    write_file(f, "a.port = 5\n\na.nope = 1\n");
    assert_int_equal(config_load_file(f->c, f->path), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), ":3:"));
    assert_non_null(strstr(st_errmsg(), "a.nope"));

    write_file(f, "a.port = twelve\n");
    assert_int_equal(config_load_file(f->c, f->path), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), ":1:"));
    assert_non_null(strstr(st_errmsg(), "a.port"));
    assert_int_equal(config_get_int64(f->c, "a.port"), 5); /* bad value left it alone */

    write_file(f, " = 4\n");
    assert_int_equal(config_load_file(f->c, f->path), ST_INVALID_ARGUMENT);

    char missing[600];
    snprintf(missing, sizeof(missing), "%s/absent.conf", f->dir);
    assert_int_equal(config_load_file(f->c, missing), ST_IO);
    assert_non_null(strstr(st_errmsg(), "absent.conf"));
}

static void unknown_and_bad_flags(void **state)
{
    fixture *f = *state;
    char *a1[] = {"--a.nope=1"};
    assert_int_equal(config_load_args(f->c, 1, a1), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "a.nope"));
    char *a2[] = {"--a.port"};
    assert_int_equal(config_load_args(f->c, 1, a2), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "needs a value"));
    /* an unknown flag last on the line is unknown, not one that "needs a value" */
    char *a5[] = {"--bogus"};
    assert_int_equal(config_load_args(f->c, 1, a5), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "unknown flag --bogus"));
    char *a3[] = {"positional"};
    assert_int_equal(config_load_args(f->c, 1, a3), ST_INVALID_ARGUMENT);
    char *a4[] = {"--a.flag=maybe"};
    assert_int_equal(config_load_args(f->c, 1, a4), ST_INVALID_ARGUMENT);
    char *env[] = {"STRATA_A_PORT=abc", NULL};
    assert_int_equal(config_load_env(f->c, env), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "STRATA_A_PORT"));
    assert_int_equal(config_set(f->c, "zzz", "1", CONFIG_SRC_FLAG), ST_NOT_FOUND);
}

static void value_types(void **state)
{
    (void)state;
    uint64_t s = 0;
    assert_int_equal(config_parse_size("65536", &s), ST_OK);
    assert_int_equal(s, 65536);
    assert_int_equal(config_parse_size("64k", &s), ST_OK);
    assert_int_equal(s, 65536);
    assert_int_equal(config_parse_size("2MiB", &s), ST_OK);
    assert_int_equal(s, 2u << 20);
    assert_int_equal(config_parse_size("1GB", &s), ST_OK);
    assert_int_equal(s, 1u << 30);
    assert_int_equal(config_parse_size("1t", &s), ST_OK);
    assert_int_equal(s, 1ull << 40);
    assert_int_equal(config_parse_size("-1", &s), ST_INVALID_ARGUMENT);
    assert_int_equal(config_parse_size("12q", &s), ST_INVALID_ARGUMENT);
    assert_int_equal(config_parse_size("1kx", &s), ST_INVALID_ARGUMENT);
    assert_int_equal(config_parse_size("99999999999999999t", &s), ST_INVALID_ARGUMENT);
    int64_t i = 0;
    assert_int_equal(config_parse_int64("-42", &i), ST_OK);
    assert_int_equal(i, -42);
    assert_int_equal(config_parse_int64("4x", &i), ST_INVALID_ARGUMENT);
    assert_int_equal(config_parse_int64("", &i), ST_INVALID_ARGUMENT);
    bool b = false;
    assert_int_equal(config_parse_bool("ON", &b), ST_OK);
    assert_true(b);
    assert_int_equal(config_parse_bool("0", &b), ST_OK);
    assert_false(b);
}

static void print_shows_value_and_source(void **state)
{
    fixture *f = *state;
    assert_int_equal(config_set(f->c, "a.port", "0", CONFIG_SRC_FLAG), ST_OK);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    config_print(f->c, out);
    fclose(out);
    assert_non_null(strstr(text, "a.port = 0\t# flag: a port\n"));
    assert_non_null(strstr(text, "a.host = 127.0.0.1\t# default"));
    assert_non_null(strstr(text, "a.dir = \t# default"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(defaults_are_typed, setup, teardown),
        cmocka_unit_test_setup_teardown(precedence_default_file_env_flag, setup, teardown),
        cmocka_unit_test_setup_teardown(file_errors_name_the_line, setup, teardown),
        cmocka_unit_test_setup_teardown(unknown_and_bad_flags, setup, teardown),
        cmocka_unit_test_setup_teardown(value_types, setup, teardown),
        cmocka_unit_test_setup_teardown(print_shows_value_and_source, setup, teardown),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
