/*
 * shell_scan_metrics.c - scan's ALL_METRICS and METRICS, as HBase 2.6's shell has them
 * (table.rb _hash_to_scan, commands/scan.rb, formatter.rb scan_metrics): either turns on
 * the scan's metrics (strata_scan_set_metrics_enabled); after the rows and their
 * "N row(s)" come an empty line, the header "METRIC  VALUE" and one row per metric,
 * " NAME VALUE", in alphabetical order of the names. METRICS => [...] prints only the
 * names it lists (a name Strata does not count is skipped, as HBase skips a name it does
 * not know); an empty list, or ALL_METRICS => true without METRICS, prints them all.
 * Ruby's include? decides a match: for an Array an equal element, for a String (METRICS
 * => 'ROWS_SCANNED') a name inside it. As in HBase, ATTRIBUTES are set after the switch,
 * so an attribute scan.attributes.metrics.enable there has the last word (scan's caller
 * reads the scan's switch once both are applied).
 *
 * Thread-safety: a session belongs to one thread.
 */
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "shell/shell_internal.h"

int shell_metrics_option(const shell_value *opts, strata_scan_t *sc, shell_metrics *out)
{
    const shell_value *all = shell_hash_get(opts, "ALL_METRICS");
    const shell_value *only = shell_hash_get(opts, "METRICS");
    bool on = false;
    memset(out, 0, sizeof(*out));
    if (all && all->kind != SHELL_V_NIL) {
        int rc = shell_bool_value(all, "ALL_METRICS", &on);
        if (rc != ST_OK)
            return rc;
    }
    if (only && only->kind != SHELL_V_NIL) {
        if (only->kind != SHELL_V_ARRAY && only->kind != SHELL_V_STR)
            return st_error(ST_INVALID_ARGUMENT, "METRICS must be an Array of metric names, not %s",
                            shell_value_type(only));
        on = true;
        out->filter = only;
    }
    out->on = on;
    if (on)
        strata_scan_set_metrics_enabled(sc, 1);
    return ST_OK;
}

/* Whether the METRICS filter (NULL: none) lets name through. */
static bool wanted(const shell_value *filter, const char *name)
{
    if (!filter || (filter->kind == SHELL_V_ARRAY && filter->n == 0) ||
        (filter->kind == SHELL_V_STR && filter->len == 0))
        return true;
    if (filter->kind == SHELL_V_STR)
        return strstr(filter->s, name) != NULL;
    for (size_t i = 0; i < filter->n; i++) {
        const shell_value *v = &filter->items[i];
        if (v->kind == SHELL_V_STR && strcmp(v->s, name) == 0)
            return true;
    }
    return false;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const strata_scan_metric *)a)->name, ((const strata_scan_metric *)b)->name);
}

void shell_metrics_print(shell_session *s, const shell_metrics *m, strata_scan_metric *v, size_t n)
{
    if (!m->on)
        return;
    qsort(v, n, sizeof(*v), by_name);
    fputc('\n', s->out);
    shell_header(s, "METRIC", "VALUE");
    for (size_t i = 0; i < n; i++) {
        char value[32];
        if (!wanted(m->filter, v[i].name))
            continue;
        snprintf(value, sizeof(value), "%lld", (long long)v[i].value);
        shell_row2(s, v[i].name, value);
    }
}
