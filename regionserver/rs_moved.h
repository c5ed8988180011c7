/*
 * rs_moved.h - the region server's moved-regions map (HBase's movedRegions): for each
 * region this server closed for a move, split or merge, the packed RegionMovedHint the
 * master gave with the CloseRegion call, kept for RS_MOVED_TTL_MS. Later calls for such
 * a region are answered ST_REGION_MOVED with the hint instead of ST_NOT_SERVING
 * (rs_region_acquire_hint; docs/rpc.md "RegionMoved hints").
 *
 * The map holds at most its bound; a put into a full map first prunes the expired
 * entries, then drops the oldest. A region opened here again is forgotten.
 * Thread-safety: every function is safe from any thread; one mutex, a leaf lock (never
 * held while taking another).
 */
#ifndef STRATA_REGIONSERVER_RS_MOVED_H
#define STRATA_REGIONSERVER_RS_MOVED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/* How long a hint is kept (HBase: 2 minutes) and how many at most. */
#define RS_MOVED_TTL_MS (2 * 60 * 1000)
#define RS_MOVED_MAX 4096

typedef struct rs_moved rs_moved;

/* A map of at most max entries, each kept ttl_ms. NULL if out of memory. */
rs_moved *rs_moved_new(size_t max, int64_t ttl_ms);
/* NULL is a no-op. */
void rs_moved_free(rs_moved *m);

/* Keeps (or replaces) name's hint (copied), expiring ttl_ms after now_ns (clock_mono_ns).
 * ST_OK, ST_INVALID_ARGUMENT (no name or no hint) or ST_NOMEM (the map unchanged). */
int rs_moved_put(rs_moved *m, const char *name, const uint8_t *hint, size_t len, uint64_t now_ns);
/* True with a copy of name's hint in *hint (its old content replaced) if one is kept and
 * not expired at now_ns; an expired one is dropped. False otherwise (*hint untouched),
 * also when the copy runs out of memory. */
bool rs_moved_get(rs_moved *m, const char *name, uint64_t now_ns, buf_t *hint);
/* Drops name's hint, if any (the region opened here again, or its close failed). */
void rs_moved_forget(rs_moved *m, const char *name);
/* Drops every hint expired at now_ns; returns how many are left. */
size_t rs_moved_prune(rs_moved *m, uint64_t now_ns);

#endif
