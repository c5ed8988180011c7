/*
 * test_chaos_opts.c - the chaos monkey's pure parts (tools/chaos.h): action names both
 * ways, the options (numbers, durations, kinds, policies, tables, seeds) with their
 * refusals, the policies' table, and the summary's counts and recovery percentiles as
 * text and JSON.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "tests/support/testutil.h"
#include "tools/chaos.h"
#include "tools/chaos_internal.h"

static void kind_names_round_trip(void **state)
{
    (void)state;
    for (int k = 0; k < CHAOS_KINDS; k++) {
        const char *n = chaos_kind_name((chaos_kind)k);
        assert_non_null(n);
        chaos_kind back;
        assert_int_equal(chaos_kind_parse(n, &back), ST_OK);
        assert_int_equal(back, k);
    }
    assert_null(chaos_kind_name(CHAOS_KINDS));
    chaos_kind k;
    assert_int_equal(chaos_kind_parse("kill-everything", &k), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "kill-everything"));
}

static void options_are_parsed_and_checked(void **state)
{
    (void)state;
    chaos_opts o;
    memset(&o, 0, sizeof(o));
    assert_int_equal(chaos_opt_set(&o, "period-ms", "2500"), ST_OK);
    assert_int_equal(o.period_ms, 2500);
    assert_int_equal(chaos_opt_set(&o, "duration", "90"), ST_OK);
    assert_int_equal(o.duration_ms, 90000);
    assert_int_equal(chaos_opt_set(&o, "duration", "2m"), ST_OK);
    assert_int_equal(o.duration_ms, 120000);
    assert_int_equal(chaos_opt_set(&o, "duration", "750ms"), ST_OK);
    assert_int_equal(o.duration_ms, 750);
    assert_int_equal(chaos_opt_set(&o, "duration", "1.5s"), ST_OK);
    assert_int_equal(o.duration_ms, 1500);
    assert_int_equal(chaos_opt_set(&o, "duration", "5x"), ST_INVALID_ARGUMENT);
    assert_int_equal(chaos_opt_set(&o, "duration", ""), ST_INVALID_ARGUMENT);
    assert_int_equal(chaos_opt_set(&o, "actions", "-1"), ST_INVALID_ARGUMENT);
    assert_int_equal(chaos_opt_set(&o, "actions", "12x"), ST_INVALID_ARGUMENT);
    assert_int_equal(chaos_opt_set(&o, "actions", "12"), ST_OK);
    assert_int_equal(o.actions, 12);
    assert_int_equal(chaos_opt_set(&o, "recovery-timeout-ms", "10"), ST_INVALID_ARGUMENT);
    assert_int_equal(chaos_opt_set(&o, "kinds", "kill-rs,merge"), ST_OK);
    assert_int_equal(o.kinds, (1u << CHAOS_KILL_RS) | (1u << CHAOS_MERGE));
    assert_int_equal(chaos_opt_set(&o, "kinds", "kill-rs,bogus"), ST_INVALID_ARGUMENT);
    assert_int_equal(chaos_opt_set(&o, "kinds", ","), ST_INVALID_ARGUMENT);
    assert_int_equal(o.kinds, (1u << CHAOS_KILL_RS) | (1u << CHAOS_MERGE)); /* unchanged */
    assert_int_equal(chaos_opt_set(&o, "policy", "serverKilling"), ST_OK);
    assert_string_equal(o.policy, "serverKilling");
    assert_int_equal(chaos_opt_set(&o, "policy", "wild"), ST_INVALID_ARGUMENT);
    assert_int_equal(chaos_opt_set(&o, "seed", "0x10"), ST_OK);
    assert_int_equal(o.seed, 16);
    assert_int_equal(chaos_opt_set(&o, "seed", "0"), ST_INVALID_ARGUMENT);
    assert_int_equal(chaos_opt_set(&o, "table", "t1"), ST_OK);
    assert_int_equal(chaos_opt_set(&o, "table", "ns:t2"), ST_OK);
    assert_int_equal(o.ntables, 2);
    assert_string_equal(o.tables[1], "ns:t2");
    assert_int_equal(chaos_opt_set(&o, "nonsense", "1"), ST_NOT_FOUND);
    assert_int_equal(chaos_opt_set(&o, "actions", NULL), ST_INVALID_ARGUMENT);
}

static void policies_are_known(void **state)
{
    (void)state;
    const chaos_policy *p = chaos_policy_find(NULL);
    assert_non_null(p);
    assert_string_equal(p->name, "slowDeterministic");
    assert_true(p->deterministic);
    assert_int_equal(p->kinds, (1u << CHAOS_KINDS) - 1u);
    p = chaos_policy_find("calm");
    assert_non_null(p);
    assert_int_equal(p->kinds, 0);
    p = chaos_policy_find("noKill");
    assert_non_null(p);
    assert_false(p->kinds & (1u << CHAOS_KILL_RS));
    assert_true(p->kinds & (1u << CHAOS_SPLIT));
    const chaos_policy *sk = chaos_policy_find("serverKilling");
    const chaos_policy *sd = chaos_policy_find("serverAndDependenciesKilling");
    assert_non_null(sk);
    assert_non_null(sd);
    assert_false(sk->kinds & (1u << CHAOS_RESTART_ZK));
    assert_int_equal(sd->kinds, sk->kinds | (1u << CHAOS_RESTART_ZK));
    assert_null(chaos_policy_find("ServerKilling"));
}

static char *summary_of(const chaos_event *ev, size_t n, bool json)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    chaos_summary(f, ev, n, json);
    fclose(f);
    return text;
}

static void the_summary_counts_and_ranks(void **state)
{
    (void)state;
    chaos_event ev[6];
    memset(ev, 0, sizeof(ev));
    const uint64_t s = 1000000000ull;
    for (int i = 0; i < 4; i++) { /* kill-rs recovered after 1, 2, 3 and 10 s */
        ev[i].kind = CHAOS_KILL_RS;
        ev[i].seq = i + 1;
        ev[i].t_start = 5 * s;
        ev[i].t_recovered = ev[i].t_start + (uint64_t)(i == 3 ? 10 : i + 1) * s;
    }
    ev[4].kind = CHAOS_RESTART_BACKUP_MASTER;
    ev[4].seq = 5;
    ev[4].skipped = true;
    ev[5].kind = CHAOS_SPLIT;
    ev[5].seq = 6;
    ev[5].failed = true;
    ev[5].t_start = s;
    snprintf(ev[5].target, sizeof(ev[5].target), "abc");
    snprintf(ev[5].detail, sizeof(ev[5].detail), "recovery: too slow");
    assert_false(chaos_all_ok(ev, 6));
    assert_true(chaos_all_ok(ev, 5));
    char *t = summary_of(ev, 6, false);
    assert_non_null(strstr(t, "6 action(s): 4 done, 1 skipped, 1 failed"));
    assert_non_null(
        strstr(t, "kill-rs                    4       0      0      2.00     10.00     10.00"));
    assert_non_null(strstr(t, "restart-backup-master      0       1      0"));
    assert_non_null(strstr(t, "failed: #6 split abc: recovery: too slow"));
    assert_null(strstr(t, "\nmove "));
    free(t);
    t = summary_of(ev, 6, true);
    assert_non_null(strstr(t, "{\"actions\":6,\"done\":4,\"skipped\":1,\"failed\":1,"));
    assert_non_null(strstr(t, "\"kill-rs\":{\"done\":4,\"skipped\":0,\"failed\":0,"
                              "\"recovery_s\":{\"n\":4,\"median\":2.000,\"p90\":10.000,"
                              "\"max\":10.000}}"));
    free(t);
    t = summary_of(NULL, 0, false);
    assert_non_null(strstr(t, "0 action(s): 0 done, 0 skipped, 0 failed"));
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kind_names_round_trip),
        cmocka_unit_test(options_are_parsed_and_checked),
        cmocka_unit_test(policies_are_known),
        cmocka_unit_test(the_summary_counts_and_ranks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
