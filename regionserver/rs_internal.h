/*
 * rs_internal.h - the region server's private parts, shared by rs_server.c (lifecycle),
 * rs_regions.c (the table of online regions), rs_scanners.c (server-side scanners and
 * their leases), rs_client_service.c, rs_admin_service.c and rs_convert.c.
 *
 * Region states (rs_regions.c):
 *
 *     (absent) --rs_region_open--> OPENING --region_open ok--> OPEN
 *        ^                            |                          |
 *        +------ region_open failed --+            rs_region_close: CLOSING
 *        +------------------------------ region_close ok --------+
 *                                       (region_close failed: back to OPEN)
 *
 * A call on a region holds it with rs_region_acquire/rs_region_release (inflight count);
 * an open scanner holds it too (scanners count). rs_region_close marks the region
 * CLOSING (new calls get ST_NOT_SERVING), kills the region's scanners (waiting for a
 * scanner's call in progress), waits until inflight and scanners are 0, then
 * region_close()s it: region_close requires that nothing else uses the region.
 *
 * Locks: scan_mu (scanner table) is taken before mu (region table); neither is held
 * while calling into a region, except that scanners are freed under scan_mu.
 */
#ifndef STRATA_REGIONSERVER_RS_INTERNAL_H
#define STRATA_REGIONSERVER_RS_INTERNAL_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/config.h"
#include "common/proto/admin.pb-c.h"
#include "common/proto/client.pb-c.h"
#include "common/rpc_server.h"
#include "regionserver/engine.h"
#include "regionserver/region.h"
#include "regionserver/rs_server.h"

typedef enum rs_region_state {
    RS_REGION_OPENING = 0,
    RS_REGION_OPEN = 1,
    RS_REGION_CLOSING = 2,
} rs_region_state;

typedef struct rs_region {
    char name[64]; /* encoded name */
    region *r;     /* NULL while OPENING */
    rs_region_state state;
    int inflight; /* calls holding the region (under rs_server.mu) */
    int scanners; /* open scanners on it (under rs_server.mu) */
} rs_region;

typedef struct rs_scanner rs_scanner;

struct rs_server {
    /* settings */
    char host[256];
    char advertised_host[256];
    int port_cfg;
    char ready_file[PATH_MAX];
    int64_t lease_ms;
    uint64_t max_result_size;
    uint64_t default_flushsize;
    uint64_t start_code;
    char server_name[512]; /* "<advertised host>,<port>,<start code>": the WAL dir name */
    engine_options eopts;
    rpc_server_opts ropts;
    char root[PATH_MAX];

    engine *eng;
    rpc_server *rpc;
    atomic_bool serving;

    /* online regions */
    pthread_mutex_t mu;
    pthread_cond_t cv; /* inflight/scanners reached 0, or a state changed */
    rs_region **regions;
    size_t nregions, cap;

    /* scanners */
    pthread_mutex_t scan_mu;
    pthread_cond_t scan_cv; /* a scanner stopped being busy */
    rs_scanner **scanners;
    size_t nscanners, scap;
    uint64_t next_scanner_id;
    pthread_t reaper;
    bool reaper_started;
    bool reaper_stop;
    pthread_cond_t reaper_cv;
};

/* ---- allocation pool for building one response (freed together) ---- */
typedef struct rs_pool {
    void **ptrs;
    size_t n, cap;
    scan_result **results;
    size_t nresults, rcap;
} rs_pool;

void *rs_pool_alloc(rs_pool *p, size_t size); /* zeroed; NULL when out of memory */
scan_result *rs_pool_result(rs_pool *p);      /* an initialised result freed with the pool */
void rs_pool_free(rs_pool *p);

/* ---- regions (rs_regions.c) ---- */
int rs_region_acquire(rs_server *s, const char *name, rs_region **out);
void rs_region_release(rs_server *s, rs_region *reg);
/* Opens one region: OPENED, ALREADY_OPENED, or FAILED_OPENING (error logged). */
int rs_region_open(rs_server *s, const table_schema *schema, const region_info *info);
int rs_region_close(rs_server *s, const char *name, bool flush);
/* Closes every region (flush; on a failed flush the region is closed without one and its
 * edits stay in the WAL). Returns the number of regions that could not be flushed. */
int rs_region_close_all(rs_server *s);
/* Copies the online regions (state OPEN), each acquired; release each with
 * rs_region_release and free the array. */
int rs_region_list(rs_server *s, rs_region ***out, size_t *n);

/* ---- scanners (rs_scanners.c) ---- */
int rs_scanners_start(rs_server *s);
void rs_scanners_stop(rs_server *s); /* joins the reaper and frees every scanner */
/* Kills the scanners of reg (waiting for a call in progress on one); later calls on
 * them get ST_NOT_SERVING. */
void rs_scanners_kill_region(rs_server *s, rs_region *reg);
uint64_t rs_scanners_count(rs_server *s);
int rs_handle_scan(void *ctx, const rpc_request *req, rpc_reply *reply);

/* ---- services ---- */
int rs_client_service_register(rs_server *s);
int rs_admin_service_register(rs_server *s);

/* ---- conversion (rs_convert.c) ---- */
/* Unpacks body as desc's message; ST_INVALID_ARGUMENT naming the method if it fails. */
ProtobufCMessage *rs_unpack(const ProtobufCMessageDescriptor *desc, const rpc_request *req);
int rs_pack(rpc_reply *reply, const ProtobufCMessage *m);
/* ST_SERVER_BUSY while the server is starting or stopping. */
int rs_check_serving(rs_server *s, rpc_reply *reply);

int rs_schema_from_proto(const Strata__Admin__TableSchema *p, uint64_t default_flushsize,
                         table_schema *out);
/* Borrows p's keys. */
int rs_info_from_proto(const Strata__Admin__RegionInfo *p, region_info *out);
/* Borrows i's strings and keys. */
void rs_info_to_proto(const region_info *i, Strata__Admin__RegionInfo *out);
void rs_load_to_proto(region *r, Strata__Admin__RegionLoad *out);

/* Read options of a Get or Scan into spec (columns and filter allocated in pool / owned
 * by *flt). ST_UNKNOWN_FAMILY naming a family the region does not have,
 * ST_INVALID_ARGUMENT for a bad filter string. */
int rs_spec_from_get(region *r, const Strata__Client__Get *g, rs_pool *pool, scan_spec *spec,
                     filter **flt);
int rs_spec_from_scan(region *r, const Strata__Client__Scan *sc, rs_pool *pool,
                      scan_spec *spec, filter **flt);

/* Fills out (cells allocated in pool, bytes borrowed from res). */
int rs_result_to_proto(const scan_result *res, rs_pool *pool, Strata__Client__Result *out);

/* Runs one mutation (Put, Delete, Increment, Append; with cond: CheckAndMutate) on r;
 * *result (may be NULL) gets Increment/Append's new cells, *processed whether it was
 * applied. */
int rs_mutate(region *r, const Strata__Client__MutationProto *m,
              const Strata__Client__Condition *cond, rs_pool *pool, Strata__Client__Result **result,
              bool *processed);
/* Builds r's mutation struct for a Put or Delete (cells in pool). */
int rs_mutation_from_proto(region *r, const Strata__Client__MutationProto *m, rs_pool *pool,
                           mutation *out);
/* Appends "(region R, row 'X')" to this thread's error message and returns rc. */
int rs_error_ctx(int rc, const char *region_name, const uint8_t *row, size_t row_len);

#endif
