/*
 * test_log_api.c - the public logging settings (client/log_api.c, strata.h "logging"):
 * a sink receives the library's lines and stderr gets none; STRATA_LOG_OFF silences
 * everything; NULL restores stderr; the levels map both ways; and once
 * strata_set_log_sink returns, the previous sink is never called again while other
 * threads keep logging (so its argument may be freed).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/log.h"
#include "common/status.h"
#include "strata/strata.h"
#include "tests/support/testutil.h"

typedef struct collected {
    pthread_mutex_t mu;
    int lines;
    strata_log_level last_level;
    char last[2048];
} collected;

static void collect(void *arg, strata_log_level level, const char *line)
{
    collected *c = arg;
    pthread_mutex_lock(&c->mu);
    c->lines++;
    c->last_level = level;
    snprintf(c->last, sizeof(c->last), "%s", line);
    pthread_mutex_unlock(&c->mu);
}

/* stderr into a temporary file until stderr_end, which returns what was written. */
typedef struct capture {
    char *dir;
    char path[600];
    int saved;
} capture;

static void stderr_begin(capture *cap)
{
    cap->dir = tu_tempdir("logapi");
    snprintf(cap->path, sizeof(cap->path), "%s/stderr", cap->dir);
    int fd = open(cap->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    fflush(stderr);
    cap->saved = dup(2);
    assert_true(cap->saved >= 0);
    assert_int_equal(dup2(fd, 2), 2);
    close(fd);
}

static char *stderr_end(capture *cap)
{
    buf_t b = {0};
    fflush(stderr);
    assert_int_equal(dup2(cap->saved, 2), 2);
    close(cap->saved);
    assert_int_equal(fio_read_all(cap->path, &b), ST_OK);
    char *text = strndup(b.len ? (const char *)b.data : "", b.len);
    buf_free(&b);
    tu_rmdir(cap->dir);
    return text;
}

/* A client call that logs a WARN: opening with a region location file that is missing. */
static void client_call_that_warns(void)
{
    char *err = NULL;
    strata_options_t *o = strata_options_create();
    strata_options_set_locator_file(o, "/nonexistent/strata-log-api/regions");
    strata_client_t *c = strata_client_open(o, &err);
    assert_null(c);
    assert_non_null(err);
    strata_free(err);
    strata_options_destroy(o);
}

static void sink_gets_lines_and_stderr_none(void **state)
{
    collected c = {.mu = PTHREAD_MUTEX_INITIALIZER};
    capture cap;
    strata_set_log_level(STRATA_LOG_WARN);
    stderr_begin(&cap);
    strata_set_log_sink(collect, &c);
    client_call_that_warns();
    int from_client = c.lines;
    LOG_WARN("test_log_api: direct warning %d", 42);
    LOG_INFO("test_log_api: below the level");
    strata_set_log_sink(NULL, NULL);
    char *err_text = stderr_end(&cap);
    assert_true(from_client >= 1);
    assert_int_equal(c.lines, from_client + 1);
    assert_int_equal(c.last_level, STRATA_LOG_WARN);
    assert_non_null(strstr(c.last, "WARN "));
    assert_non_null(strstr(c.last, "test_log_api: direct warning 42"));
    assert_null(strchr(c.last, '\n'));
    assert_string_equal(err_text, "");
    free(err_text);
}

static void level_off_silences_everything(void **state)
{
    collected c = {.mu = PTHREAD_MUTEX_INITIALIZER};
    capture cap;
    stderr_begin(&cap);
    strata_set_log_sink(collect, &c);
    strata_set_log_level(STRATA_LOG_OFF);
    assert_int_equal(strata_get_log_level(), STRATA_LOG_OFF);
    client_call_that_warns();
    LOG_ERROR("test_log_api: an error while off");
    assert_int_equal(c.lines, 0);
    strata_set_log_sink(NULL, NULL); /* stderr again, still off */
    LOG_ERROR("test_log_api: an error on stderr while off");
    char *err_text = stderr_end(&cap);
    assert_string_equal(err_text, "");
    free(err_text);
    strata_set_log_level(STRATA_LOG_WARN);
}

static void null_sink_restores_stderr(void **state)
{
    collected c = {.mu = PTHREAD_MUTEX_INITIALIZER};
    capture cap;
    strata_set_log_level(STRATA_LOG_WARN);
    strata_set_log_sink(collect, &c);
    strata_set_log_sink(NULL, NULL);
    stderr_begin(&cap);
    LOG_WARN("test_log_api: back on stderr");
    char *err_text = stderr_end(&cap);
    assert_int_equal(c.lines, 0);
    assert_non_null(strstr(err_text, "WARN "));
    assert_non_null(strstr(err_text, "test_log_api: back on stderr\n"));
    free(err_text);
}

static void levels_map_both_ways(void **state)
{
    static const strata_log_level pub[] = {STRATA_LOG_OFF, STRATA_LOG_ERROR, STRATA_LOG_WARN,
                                           STRATA_LOG_INFO, STRATA_LOG_DEBUG};
    static const log_level internal[] = {LOG_LEVEL_OFF, LOG_LEVEL_ERROR, LOG_LEVEL_WARN,
                                         LOG_LEVEL_INFO, LOG_LEVEL_DEBUG};
    for (size_t i = 0; i < 5; i++) {
        strata_set_log_level(pub[i]);
        assert_int_equal(log_get_level(), internal[i]);
        assert_int_equal(strata_get_log_level(), pub[i]);
    }
    strata_set_log_level((strata_log_level)99); /* ignored */
    assert_int_equal(strata_get_log_level(), STRATA_LOG_DEBUG);
    collected c = {.mu = PTHREAD_MUTEX_INITIALIZER};
    strata_set_log_sink(collect, &c);
    LOG_DEBUG("test_log_api: debug");
    assert_int_equal(c.last_level, STRATA_LOG_DEBUG);
    LOG_ERROR("test_log_api: error");
    assert_int_equal(c.last_level, STRATA_LOG_ERROR);
    strata_set_log_sink(NULL, NULL);
    strata_set_log_level(STRATA_LOG_WARN);
}

/* ---- a sink replaced while other threads log ---- */

typedef struct retiring {
    atomic_bool retired;
    atomic_long calls;
} retiring;

static atomic_long late_calls;
static atomic_bool stop_logging;

static void count_unless_retired(void *arg, strata_log_level level, const char *line)
{
    retiring *r = arg;
    if (atomic_load(&r->retired))
        atomic_fetch_add(&late_calls, 1);
    atomic_fetch_add(&r->calls, 1);
}

static void *logger(void *arg)
{
    while (!atomic_load(&stop_logging))
        LOG_WARN("test_log_api: from a logging thread");
    return NULL;
}

static void replaced_sink_is_never_called_again(void **state)
{
    pthread_t t[3];
    retiring *prev = NULL;
    long total = 0;
    strata_set_log_level(STRATA_LOG_WARN);
    atomic_store(&stop_logging, false);
    prev = calloc(1, sizeof(*prev));
    strata_set_log_sink(count_unless_retired, prev); /* before the threads log */
    for (int i = 0; i < 3; i++)
        assert_int_equal(pthread_create(&t[i], NULL, logger, NULL), 0);
    for (int round = 0; round < 200; round++) {
        retiring *r = calloc(1, sizeof(*r));
        strata_set_log_sink(count_unless_retired, r);
        /* No thread is inside prev now, and none will enter it. */
        atomic_store(&prev->retired, true);
        total += atomic_load(&prev->calls);
        free(prev);
        prev = r;
        usleep(500);
    }
    atomic_store(&stop_logging, true);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    strata_set_log_sink(NULL, NULL);
    atomic_store(&prev->retired, true);
    total += atomic_load(&prev->calls);
    free(prev);
    assert_int_equal(atomic_load(&late_calls), 0);
    assert_true(total > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sink_gets_lines_and_stderr_none),
        cmocka_unit_test(level_off_silences_everything),
        cmocka_unit_test(null_sink_restores_stderr),
        cmocka_unit_test(levels_map_both_ways),
        cmocka_unit_test(replaced_sink_is_never_called_again),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
