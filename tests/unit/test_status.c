/*
 * test_status.c - status codes, names, errno mapping and the per-thread message.
 * Thread-safety: one test starts a second thread to check the message is per thread.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "common/log.h"
#include "common/status.h"
#include "tests/support/testutil.h"

static const int all_codes[] = {
    ST_OK,          ST_IO,          ST_NOSPACE,          ST_CORRUPTION,
    ST_NOT_FOUND,   ST_EXISTS,      ST_INVALID_ARGUMENT, ST_UNKNOWN_FAMILY,
    ST_ORDER,       ST_NOT_SERVING, ST_REGION_OPENING,   ST_REGION_TOO_BUSY,
    ST_SERVER_BUSY, ST_CLOSED,      ST_TIMEOUT,          ST_PERMISSION,
    ST_NOMEM,       ST_UNSUPPORTED, ST_INTERNAL,         ST_REGION_MOVED,
};
#define N_CODES (sizeof(all_codes) / sizeof(all_codes[0]))

static void test_codes_are_wire_constants(void **state)
{
    assert_int_equal(ST_OK, 0);
    assert_int_equal(ST_IO, -1);
    assert_int_equal(ST_NOSPACE, -2);
    assert_int_equal(ST_CORRUPTION, -10);
    assert_int_equal(ST_NOT_FOUND, -20);
    assert_int_equal(ST_EXISTS, -21);
    assert_int_equal(ST_INVALID_ARGUMENT, -30);
    assert_int_equal(ST_NOT_SERVING, -40);
    assert_int_equal(ST_REGION_MOVED, -46);
    assert_int_equal(ST_TIMEOUT, -50);
    assert_int_equal(ST_PERMISSION, -60);
    assert_int_equal(ST_NOMEM, -70);
    assert_int_equal(ST_UNSUPPORTED, -80);
    assert_int_equal(ST_INTERNAL, -90);
}

static void test_strerror_every_code_named_and_distinct(void **state)
{
    const char *unknown = st_strerror(12345);
    assert_non_null(unknown);
    assert_string_equal(unknown, "unknown status");
    assert_string_equal(st_strerror(-3), unknown);
    assert_string_equal(st_strerror(1), unknown);
    for (size_t i = 0; i < N_CODES; i++) {
        const char *s = st_strerror(all_codes[i]);
        assert_non_null(s);
        assert_true(strlen(s) > 0);
        assert_string_not_equal(s, unknown);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(s, st_strerror(all_codes[j]));
    }
    assert_string_equal(st_strerror(ST_OK), "ok");
    assert_string_equal(st_strerror(ST_CORRUPTION), "corruption");
}

static void test_error_returns_code_and_formats(void **state)
{
    st_clear();
    assert_string_equal(st_errmsg(), "");
    assert_int_equal(st_error(ST_CORRUPTION, "block %d of %s", 7, "f1"), ST_CORRUPTION);
    assert_string_equal(st_errmsg(), "block 7 of f1");
    assert_int_equal(st_error(ST_IO, "second"), ST_IO);
    assert_string_equal(st_errmsg(), "second");
    st_clear();
    assert_string_equal(st_errmsg(), "");
}

static void test_error_long_message_truncated(void **state)
{
    char big[4000];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    assert_int_equal(st_error(ST_INTERNAL, "%s", big), ST_INTERNAL);
    size_t n = strlen(st_errmsg());
    assert_true(n > 100);
    assert_true(n < sizeof(big) - 1);
    assert_int_equal(st_errmsg()[0], 'x');
}

static void *other_thread(void *arg)
{
    char *seen = arg;
    strcpy(seen, st_errmsg()); /* a new thread starts with no message */
    st_error(ST_TIMEOUT, "other thread message");
    return NULL;
}

static void test_message_is_per_thread(void **state)
{
    char seen[1024] = "unset";
    st_error(ST_IO, "main thread message");
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, other_thread, seen), 0);
    pthread_join(t, NULL);
    assert_string_equal(seen, "");
    assert_string_equal(st_errmsg(), "main thread message");
}

static void test_from_errno_mapping(void **state)
{
    assert_int_equal(st_from_errno(0), ST_OK);
    assert_int_equal(st_from_errno(ENOSPC), ST_NOSPACE);
    assert_int_equal(st_from_errno(EDQUOT), ST_NOSPACE);
    assert_int_equal(st_from_errno(ENOENT), ST_NOT_FOUND);
    assert_int_equal(st_from_errno(EEXIST), ST_EXISTS);
    assert_int_equal(st_from_errno(EACCES), ST_PERMISSION);
    assert_int_equal(st_from_errno(EPERM), ST_PERMISSION);
    assert_int_equal(st_from_errno(ENOMEM), ST_NOMEM);
    assert_int_equal(st_from_errno(EINVAL), ST_INVALID_ARGUMENT);
    assert_int_equal(st_from_errno(ETIMEDOUT), ST_TIMEOUT);
    assert_int_equal(st_from_errno(EIO), ST_IO);
    assert_int_equal(st_from_errno(EBADF), ST_IO);
    assert_int_equal(st_from_errno(EROFS), ST_IO);
    /* never a raw errno */
    for (int e = 1; e < 134; e++) {
        int s = st_from_errno(e);
        assert_true(s < 0);
        assert_string_not_equal(st_strerror(s), "unknown status");
    }
}

static void test_log_level_parse_and_set(void **state)
{
    assert_int_equal(log_parse_level("error"), LOG_LEVEL_ERROR);
    assert_int_equal(log_parse_level("warn"), LOG_LEVEL_WARN);
    assert_int_equal(log_parse_level("info"), LOG_LEVEL_INFO);
    assert_int_equal(log_parse_level("debug"), LOG_LEVEL_DEBUG);
    assert_int_equal(log_parse_level("verbose"), -1);
    assert_int_equal(log_parse_level(NULL), -1);
    log_level old = log_get_level();
    log_set_level(LOG_LEVEL_DEBUG);
    assert_int_equal(log_get_level(), LOG_LEVEL_DEBUG);
    LOG_DEBUG("status test: debug line %d", 1);
    log_set_level(old);
    assert_int_equal(log_get_level(), old);
}

/* Regression: a message that wraps the current one ("context: <st_errmsg()>") formats
 * from a copy; formatting in place garbled it. */
static void test_error_wrapping_its_own_message(void **state)
{
    st_error(ST_IO, "read wal.00000000000000000007 at offset 4096: bad CRC");
    st_error(ST_IO, "recovering the WALs of dead server h,1,2: %s", st_errmsg());
    assert_string_equal(st_errmsg(), "recovering the WALs of dead server h,1,2: read "
                                     "wal.00000000000000000007 at offset 4096: bad CRC");
    st_error(ST_IO, "%s%s", st_errmsg(), st_errmsg());
    assert_string_equal(st_errmsg(), "recovering the WALs of dead server h,1,2: read "
                                     "wal.00000000000000000007 at offset 4096: bad CRC"
                                     "recovering the WALs of dead server h,1,2: read "
                                     "wal.00000000000000000007 at offset 4096: bad CRC");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_wrapping_its_own_message),
        cmocka_unit_test(test_codes_are_wire_constants),
        cmocka_unit_test(test_strerror_every_code_named_and_distinct),
        cmocka_unit_test(test_error_returns_code_and_formats),
        cmocka_unit_test(test_error_long_message_truncated),
        cmocka_unit_test(test_message_is_per_thread),
        cmocka_unit_test(test_from_errno_mapping),
        cmocka_unit_test(test_log_level_parse_and_set),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
