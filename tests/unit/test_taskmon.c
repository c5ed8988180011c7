/*
 * test_taskmon.c - the process's monitored tasks (common/taskmon.c): begin, status, end,
 * the listing oldest first, a full table, ids never reused, concurrent use.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "common/taskmon.h"

static taskmon_task list[TASKMON_MAX];

static void begin_status_end(void **state)
{
    (void)state;
    uint64_t a = taskmon_begin("Flushing region %s", "r1");
    uint64_t b = taskmon_begin("Compacting f in region r2");
    assert_true(a && b && b > a);
    taskmon_status(a, "Running flush of %d stores", 2);
    assert_int_equal(taskmon_list(list, TASKMON_MAX), 2);
    assert_string_equal(list[0].description, "Flushing region r1");
    assert_string_equal(list[0].status, "Running flush of 2 stores");
    assert_string_equal(list[1].description, "Compacting f in region r2");
    assert_string_equal(list[1].status, "");
    assert_true(list[0].start_ms > 0);
    taskmon_end(a);
    assert_int_equal(taskmon_list(list, TASKMON_MAX), 1);
    assert_int_equal(list[0].id, b);
    /* an ended id stays ended: no status, no second end of someone else */
    taskmon_status(a, "late");
    taskmon_end(a);
    taskmon_end(0);
    taskmon_status(0, "nothing");
    assert_int_equal(taskmon_list(list, TASKMON_MAX), 1);
    taskmon_end(b);
    assert_int_equal(taskmon_list(list, TASKMON_MAX), 0);
}

static void full_table_and_long_texts(void **state)
{
    (void)state;
    uint64_t ids[TASKMON_MAX];
    for (size_t i = 0; i < TASKMON_MAX; i++)
        assert_true((ids[i] = taskmon_begin("task %zu", i)) != 0);
    assert_int_equal(taskmon_begin("one too many"), 0); /* unlisted, not an error */
    assert_int_equal(taskmon_list(list, 3), 3);
    taskmon_end(ids[7]);
    char big[2 * TASKMON_TEXT];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    uint64_t again = taskmon_begin("%s", big);
    assert_true(again > ids[TASKMON_MAX - 1]); /* a fresh id in the freed slot */
    assert_int_equal(taskmon_list(list, TASKMON_MAX), TASKMON_MAX);
    assert_int_equal(list[TASKMON_MAX - 1].id, again); /* oldest first */
    assert_int_equal(strlen(list[TASKMON_MAX - 1].description), TASKMON_TEXT - 1);
    for (size_t i = 0; i < TASKMON_MAX; i++)
        taskmon_end(ids[i]);
    taskmon_end(again);
    assert_int_equal(taskmon_list(list, TASKMON_MAX), 0);
}

static void *churn(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20000; i++) {
        uint64_t id = taskmon_begin("churn %d", i);
        taskmon_status(id, "step %d", i);
        taskmon_end(id);
    }
    return NULL;
}

static void concurrent_use(void **state)
{
    (void)state;
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, churn, NULL), 0);
    for (int i = 0; i < 200; i++)
        assert_true(taskmon_list(list, TASKMON_MAX) <= 4);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(taskmon_list(list, TASKMON_MAX), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(begin_status_end),
        cmocka_unit_test(full_table_and_long_texts),
        cmocka_unit_test(concurrent_use),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
