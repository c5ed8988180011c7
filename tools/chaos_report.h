/*
 * chaos_report.h - what a load saw of a chaos run (docs/chaos.md "Under a verifier"):
 * for each action, each writing thread's stall (the time from the fault's instant until
 * that thread's next successful write, tools/verify_stats.h) beside the action's
 * recovery time (the MTTR of the actions that kill or stop a server), and per kind the
 * distribution of both.
 *
 * Thread-safety: call after the monkey and the load stopped.
 */
#ifndef STRATA_TOOLS_CHAOS_REPORT_H
#define STRATA_TOOLS_CHAOS_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "common/http/json.h"
#include "tools/chaos.h"
#include "tools/verify_stats.h"

typedef struct chaos_load {
    const vstats_thread *const *threads; /* the threads whose stalls count (writers) */
    size_t n;
} chaos_load;

/* One line per action that ran (its recovery and each thread's stall), then per kind:
 * count, recovery median/p90/max and stall median/p90/max over every thread and fault. */
void chaos_report_text(FILE *f, const chaos_event *ev, size_t n, const chaos_load *load);
/* The same as the value of a JSON key: {"actions":..,"kinds":{..},"events":[..]}. */
void chaos_report_json(json_writer *w, const chaos_event *ev, size_t n, const chaos_load *load);

#endif
