/*
 * scan_metrics.c - a scanner's metrics, HBase's ScanMetrics (client_internal.h "scan
 * metrics"; docs/client.md "Scan metrics"): what the scanner counts itself (RPCs, retries,
 * regions, bytes of results, time between RPCs for rows) and what the region servers send
 * back with each ScanResponse (rows scanned, rows filtered), and which servers are remote.
 *
 * Remote means not on this machine. HBase's ConnectionUtils.isRemote compares the
 * server's host name with the client's; here a server is local when its host is a
 * loopback name or address, this machine's host name (any case), or the address of one
 * of its network interfaces, found once per process.
 *
 * Thread-safety: a scanner's metrics belong to its thread; the local-address list is
 * built once (pthread_once) and read-only after.
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "client/client_internal.h"
#include "common/clock.h"
#include "common/op_attr.h"
#include "common/status.h"

static const char *const NAMES[SM_COUNT] = {
    [SM_BYTES_IN_REMOTE_RESULTS] = "BYTES_IN_REMOTE_RESULTS",
    [SM_BYTES_IN_RESULTS] = "BYTES_IN_RESULTS",
    [SM_MILLIS_BETWEEN_NEXTS] = "MILLIS_BETWEEN_NEXTS",
    [SM_NOT_SERVING_REGION_EXCEPTION] = "NOT_SERVING_REGION_EXCEPTION",
    [SM_REGIONS_SCANNED] = "REGIONS_SCANNED",
    [SM_REMOTE_RPC_CALLS] = "REMOTE_RPC_CALLS",
    [SM_REMOTE_RPC_RETRIES] = "REMOTE_RPC_RETRIES",
    [SM_ROWS_FILTERED] = "ROWS_FILTERED",
    [SM_ROWS_SCANNED] = "ROWS_SCANNED",
    [SM_RPC_CALLS] = "RPC_CALLS",
    [SM_RPC_RETRIES] = "RPC_RETRIES",
};

_Static_assert(STRATA_SCAN_METRICS_COUNT == SM_COUNT, "strata.h counts every metric");

/* HBase's KeyValue infrastructure (key and value lengths, 8) plus the key's (row length,
 * family length, timestamp, type: 12) plus the 4 PrivateCellUtil.estimatedSerializedSizeOf
 * adds. */
#define CELL_OVERHEAD 24

static uint64_t mono_ms(void)
{
    return clock_mono_ns() / 1000000u;
}

bool scan_metrics_wanted(const op_attrs *a)
{
    const op_attr_entry *e = op_attrs_find(a, OP_ATTR_SCAN_METRICS);
    return e && op_attr_true(e->value, e->len);
}

void scan_metrics_start(scan_metrics *m, bool on)
{
    memset(m, 0, sizeof(*m));
    m->on = on;
    m->last_ms = mono_ms();
}

const char *scan_metrics_name(scan_metric_id id)
{
    return (unsigned)id < SM_COUNT ? NAMES[id] : "?";
}

void scan_metrics_before_fetch(scan_metrics *m)
{
    if (!m->on)
        return;
    uint64_t now = mono_ms();
    m->v[SM_MILLIS_BETWEEN_NEXTS] += (int64_t)(now - m->last_ms);
    m->last_ms = now;
}

void scan_metrics_call(scan_metrics *m, bool remote)
{
    if (!m->on)
        return;
    m->v[SM_RPC_CALLS]++;
    if (remote)
        m->v[SM_REMOTE_RPC_CALLS]++;
}

void scan_metrics_failed(scan_metrics *m, int status)
{
    if (m->on &&
        (status == ST_NOT_SERVING || status == ST_REGION_MOVED || status == ST_REGION_OPENING))
        m->v[SM_NOT_SERVING_REGION_EXCEPTION]++;
}

void scan_metrics_retry(scan_metrics *m, bool remote)
{
    if (!m->on)
        return;
    m->v[SM_RPC_RETRIES]++;
    if (remote)
        m->v[SM_REMOTE_RPC_RETRIES]++;
}

void scan_metrics_region(scan_metrics *m)
{
    if (m->on)
        m->v[SM_REGIONS_SCANNED]++;
}

static void add_server_metrics(scan_metrics *m, const Strata__Client__ScanMetrics *sm)
{
    for (size_t i = 0; sm && i < sm->n_metrics; i++) {
        const Strata__Client__NameInt64Pair *p = sm->metrics[i];
        if (!p->name || !p->has_value)
            continue;
        if (strcmp(p->name, NAMES[SM_ROWS_SCANNED]) == 0)
            m->v[SM_ROWS_SCANNED] += p->value;
        else if (strcmp(p->name, NAMES[SM_ROWS_FILTERED]) == 0)
            m->v[SM_ROWS_FILTERED] += p->value;
    }
}

void scan_metrics_response(scan_metrics *m, const Strata__Client__ScanResponse *r, bool remote)
{
    if (!m->on || !r)
        return;
    int64_t bytes = 0;
    for (size_t i = 0; i < r->n_results; i++)
        for (size_t j = 0; j < r->results[i]->n_cell; j++) {
            const Strata__Client__Cell *c = r->results[i]->cell[j];
            bytes += CELL_OVERHEAD +
                     (int64_t)(c->row.len + c->family.len + c->qualifier.len + c->value.len);
        }
    m->v[SM_BYTES_IN_RESULTS] += bytes;
    if (remote)
        m->v[SM_BYTES_IN_REMOTE_RESULTS] += bytes;
    add_server_metrics(m, r->scan_metrics);
}

/* ---- local or remote ---- */

#define MAX_LOCAL 32

static struct {
    pthread_once_t once;
    char hostname[256];
    char addrs[MAX_LOCAL][INET6_ADDRSTRLEN];
    size_t naddrs;
} local = {.once = PTHREAD_ONCE_INIT};

static void find_local(void)
{
    if (gethostname(local.hostname, sizeof(local.hostname)) != 0)
        local.hostname[0] = '\0';
    local.hostname[sizeof(local.hostname) - 1] = '\0';
    struct ifaddrs *ifs = NULL;
    if (getifaddrs(&ifs) != 0)
        return;
    for (struct ifaddrs *i = ifs; i && local.naddrs < MAX_LOCAL; i = i->ifa_next) {
        const struct sockaddr *sa = i->ifa_addr;
        const void *a = NULL;
        if (sa && sa->sa_family == AF_INET)
            a = &((const struct sockaddr_in *)(const void *)sa)->sin_addr;
        else if (sa && sa->sa_family == AF_INET6)
            a = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
        if (a && inet_ntop(sa->sa_family, a, local.addrs[local.naddrs], INET6_ADDRSTRLEN))
            local.naddrs++;
    }
    freeifaddrs(ifs);
}

static bool is_loopback(const char *host)
{
    struct in_addr v4;
    struct in6_addr v6;
    if (strcasecmp(host, "localhost") == 0)
        return true;
    if (inet_pton(AF_INET, host, &v4) == 1)
        return (ntohl(v4.s_addr) >> 24) == 127;
    return inet_pton(AF_INET6, host, &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

bool client_host_is_local(const char *host)
{
    if (!host || !*host)
        return false;
    if (is_loopback(host))
        return true;
    pthread_once(&local.once, find_local);
    if (local.hostname[0] && strcasecmp(host, local.hostname) == 0)
        return true;
    for (size_t i = 0; i < local.naddrs; i++)
        if (strcasecmp(host, local.addrs[i]) == 0)
            return true;
    return false;
}
