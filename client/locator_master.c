/*
 * locator_master.c - the locator backed by the active master (contract in locator.h):
 * locate asks MasterService.LocateRegion, locate_prefetch the same with the next
 * LOCATOR_MASTER_PREFETCH regions, locate_all GetTableRegions. Finding and following the
 * master (ZooKeeper, retries while it changes) is client/master_link.c's work.
 *
 * A RegionLocation becomes a locator_region only when it names a server and its state is
 * not one without one (OFFLINE, CLOSED, FAILED_OPEN); the region a row asked for that is
 * not assigned answers ST_NOT_SERVING, which the client retries with backoff.
 *
 * Thread-safety: the locator holds no state of its own beyond the link, which is
 * thread-safe; any number of lookups may run at once.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/locator.h"
#include "client/master_link.h"
#include "common/proto/master.pb-c.h"
#include "common/status.h"

typedef struct master_locator {
    locator base;
    master_link *link;
    int64_t timeout_ms; /* each lookup, retries included */
} master_locator;

static int key_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
    size_t n = al < bl ? al : bl;
    int c = n ? memcmp(a, b, n) : 0;
    return c ? c : (al > bl) - (al < bl);
}

static bool info_holds(const Strata__Admin__RegionInfo *ri, const uint8_t *row, size_t len)
{
    size_t sl = ri->has_start_key ? ri->start_key.len : 0;
    size_t el = ri->has_end_key ? ri->end_key.len : 0;
    return key_cmp(row, len, ri->start_key.data, sl) >= 0 &&
           (el == 0 || key_cmp(row, len, ri->end_key.data, el) < 0);
}

static const char *state_name(const Strata__Master__RegionLocation *loc)
{
    if (!loc->has_state)
        return "unknown";
    const ProtobufCEnumValue *v =
        protobuf_c_enum_descriptor_get_value(&strata__master__region_state__descriptor, loc->state);
    return v ? v->name : "unknown";
}

static bool assigned(const Strata__Master__RegionLocation *loc)
{
    if (!loc->server || !loc->region)
        return false;
    if (!loc->has_state)
        return true;
    return loc->state != STRATA__MASTER__REGION_STATE__OFFLINE &&
           loc->state != STRATA__MASTER__REGION_STATE__CLOSED &&
           loc->state != STRATA__MASTER__REGION_STATE__FAILED_OPEN;
}

static uint8_t *bytes_dup(const ProtobufCBinaryData *b, bool has, size_t *len)
{
    *len = has ? b->len : 0;
    uint8_t *d = malloc(*len ? *len : 1);
    if (d && *len)
        memcpy(d, b->data, *len);
    return d;
}

/* An assigned location as a locator_region (owned copies). The table is named as the
 * caller named it ("t"), not as the master does ("default:t"), so that the client's cache
 * finds it under the caller's name. */
static int from_location(const Strata__Master__RegionLocation *loc, const char *table,
                         locator_region *out)
{
    const Strata__Admin__RegionInfo *ri = loc->region;
    memset(out, 0, sizeof(*out));
    out->table = strdup(table);
    out->encoded_name = strdup(ri->encoded_name);
    out->start_key = bytes_dup(&ri->start_key, ri->has_start_key, &out->start_len);
    out->end_key = bytes_dup(&ri->end_key, ri->has_end_key, &out->end_len);
    out->host = strdup(loc->server->host);
    out->port = (uint16_t)loc->server->port;
    out->start_code = loc->server->start_code;
    if (!out->table || !out->encoded_name || !out->start_key || !out->end_key || !out->host) {
        locator_region_clear(out);
        return st_error(ST_NOMEM, "master locator: out of memory");
    }
    return ST_OK;
}

/* The assigned locations of v[0..n) as an array; ST_NOT_SERVING naming table if none. */
static int collect(Strata__Master__RegionLocation *const *v, size_t n, const char *table,
                   locator_region **out, size_t *count)
{
    size_t k = 0;
    int rc = ST_OK;
    locator_region *arr = calloc(n ? n : 1, sizeof(*arr));
    if (!arr)
        return st_error(ST_NOMEM, "master locator: out of memory");
    for (size_t i = 0; rc == ST_OK && i < n; i++)
        if (assigned(v[i]) && (rc = from_location(v[i], table, &arr[k])) == ST_OK)
            k++;
    if (rc == ST_OK && k == 0)
        rc = st_error(ST_NOT_SERVING, "master locator: no region of table %s is assigned (%zu %s)",
                      table, n, n == 1 ? "region" : "regions");
    if (rc != ST_OK) {
        locator_regions_free(arr, k);
        return rc;
    }
    *out = arr;
    *count = k;
    return ST_OK;
}

/* LocateRegion with prefetch: the row's region (it must be assigned) and the assigned
 * ones among the next prefetch. */
static int ask_locate(master_locator *m, const char *table, const uint8_t *row, size_t len,
                      uint32_t prefetch, const char *exclude, const char *exclude_region,
                      int wait_ms, locator_region **out, size_t *n)
{
    Strata__Master__LocateRegionRequest req = STRATA__MASTER__LOCATE_REGION_REQUEST__INIT;
    Strata__Master__LocateRegionResponse *resp = NULL;
    req.table = (char *)table;
    req.row = (ProtobufCBinaryData){len, (uint8_t *)row};
    req.has_prefetch = prefetch > 0;
    req.prefetch = prefetch;
    if (wait_ms > LOCATOR_MASTER_WAIT_MAX_MS)
        wait_ms = LOCATOR_MASTER_WAIT_MAX_MS;
    req.has_wait_ms = wait_ms > 0;
    req.wait_ms = wait_ms > 0 ? (uint32_t)wait_ms : 0;
    req.exclude_server = (char *)exclude;
    req.exclude_region = (char *)exclude_region;
    int rc = master_link_call_pb(m->link, "MasterService.LocateRegion", &req.base,
                                 &strata__master__locate_region_response__descriptor,
                                 m->timeout_ms, (ProtobufCMessage **)&resp);
    if (rc != ST_OK)
        return rc;
    const Strata__Master__RegionLocation *first = resp->n_location ? resp->location[0] : NULL;
    if (!first || !first->region || !info_holds(first->region, row, len))
        rc = st_error(ST_NOT_SERVING,
                      "master locator: the master named no region of table %s holding the row "
                      "(%zu bytes)",
                      table, len);
    else if (!assigned(first))
        rc = st_error(ST_NOT_SERVING, "master locator: region %s of table %s is not assigned (%s)",
                      first->region->encoded_name, table, state_name(first));
    if (rc == ST_OK)
        rc = collect(resp->location, resp->n_location, table, out, n);
    protobuf_c_message_free_unpacked(&resp->base, NULL);
    return rc;
}

static int master_locate(locator *l, const char *table, const uint8_t *row, size_t row_len,
                         locator_region *out)
{
    locator_region *v = NULL;
    size_t n = 0;
    memset(out, 0, sizeof(*out));
    int rc = ask_locate((master_locator *)l, table, row, row_len, 0, NULL, NULL, 0, &v, &n);
    if (rc != ST_OK)
        return rc;
    *out = v[0];
    memset(&v[0], 0, sizeof(v[0]));
    locator_regions_free(v, n);
    return ST_OK;
}

static int master_locate_prefetch(locator *l, const char *table, const uint8_t *row, size_t row_len,
                                  locator_region **out, size_t *n)
{
    return ask_locate((master_locator *)l, table, row, row_len, LOCATOR_MASTER_PREFETCH, NULL, NULL,
                      0, out, n);
}

static int master_locate_wait(locator *l, const char *table, const uint8_t *row, size_t row_len,
                              const char *exclude, const char *exclude_region, int wait_ms,
                              locator_region **out, size_t *n)
{
    return ask_locate((master_locator *)l, table, row, row_len, LOCATOR_MASTER_PREFETCH, exclude,
                      exclude_region, wait_ms, out, n);
}

static int master_locate_all(locator *l, const char *table, locator_region **out, size_t *n)
{
    master_locator *m = (master_locator *)l;
    Strata__Master__GetTableRegionsRequest req = STRATA__MASTER__GET_TABLE_REGIONS_REQUEST__INIT;
    Strata__Master__GetTableRegionsResponse *resp = NULL;
    *out = NULL;
    *n = 0;
    req.table = (char *)table;
    int rc = master_link_call_pb(m->link, "MasterService.GetTableRegions", &req.base,
                                 &strata__master__get_table_regions_response__descriptor,
                                 m->timeout_ms, (ProtobufCMessage **)&resp);
    if (rc != ST_OK)
        return rc;
    rc = collect(resp->location, resp->n_location, table, out, n);
    protobuf_c_message_free_unpacked(&resp->base, NULL);
    return rc;
}

static void master_free(locator *l)
{
    master_locator *m = (master_locator *)l;
    master_link_close(m->link);
    free(m);
}

static const locator_vtable master_vt = {
    .locate = master_locate,
    .locate_all = master_locate_all,
    .free = master_free,
    .locate_prefetch = master_locate_prefetch,
    .locate_wait = master_locate_wait,
};

int locator_master_open(const char *quorum, const char *parent, int session_timeout_ms,
                        locator **out)
{
    *out = NULL;
    master_locator *m = calloc(1, sizeof(*m));
    if (!m)
        return st_error(ST_NOMEM, "master locator: out of memory");
    int rc = master_link_open(quorum, parent, session_timeout_ms, &m->link);
    if (rc != ST_OK) {
        free(m);
        return rc;
    }
    master_link_set_attempt_timeout_ms(m->link, 10000);
    m->timeout_ms = LOCATOR_MASTER_TIMEOUT_MS;
    m->base.vt = &master_vt;
    *out = &m->base;
    return ST_OK;
}

void locator_master_set_timeout_ms(locator *l, int64_t ms)
{
    master_locator *m = (master_locator *)l;
    m->timeout_ms = ms > 0 && ms < LOCATOR_MASTER_TIMEOUT_MS ? ms : LOCATOR_MASTER_TIMEOUT_MS;
}
