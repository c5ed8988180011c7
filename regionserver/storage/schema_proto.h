/*
 * schema_proto.h - table schemas and region identities to and from their protobuf
 * messages (strata.admin.TableSchema and RegionInfo in common/proto/admin.proto).
 *
 * Thread-safety: pure functions.
 */
#ifndef STRATA_REGIONSERVER_STORAGE_SCHEMA_PROTO_H
#define STRATA_REGIONSERVER_STORAGE_SCHEMA_PROTO_H

#include <stdint.h>

#include "common/proto/admin.pb-c.h"
#include "regionserver/storage/region.h"
#include "regionserver/storage/schema.h"

/* Fills *out from p, families' attributes left out taking their defaults, a missing
 * MEMSTORE_FLUSHSIZE taking default_flushsize and a missing MAX_FILESIZE left 0 (the
 * cluster's, resolved by split_policy_configure); values and configuration entries are
 * copied (a name given twice, or a MAX_FILESIZE of 0, is refused); then validates it.
 * ST_OK, or ST_INVALID_ARGUMENT / ST_EXISTS naming the table and family or attribute at
 * fault. */
int schema_from_proto(const Strata__Admin__TableSchema *p, uint64_t default_flushsize,
                      table_schema *out);
/* Fills *out from p, borrowing p's keys. ST_OK, or ST_INVALID_ARGUMENT for a name that is
 * empty or too long. */
int region_info_from_proto(const Strata__Admin__RegionInfo *p, region_info *out);
/* Fills *out from i, borrowing i's strings and keys. */
void region_info_to_proto(const region_info *i, Strata__Admin__RegionInfo *out);

#endif
