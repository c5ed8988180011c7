/*
 * admin_internal.h - what the files of the public admin API (strata/admin.h) share: the
 * conversions between its descriptors and results and the protobuf-c messages of
 * client/admin_rpc.h, which does the calls.
 *
 *   admin.c             the handle and the calls (checks, admin_rpc_*, errptr)
 *   admin_descriptor.c  table and family descriptors <-> admin.TableSchema
 *   admin_result.c      name lists, regions, cluster status over the unpacked answers
 *   admin_procs.c       split, merge, switches, the catalog janitor, procedures
 *   admin_namespace.c   namespace descriptors (properties) and their calls
 *
 * Thread-safety: the conversions are reentrant; a result object is immutable once built.
 */
#ifndef STRATA_CLIENT_ADMIN_INTERNAL_H
#define STRATA_CLIENT_ADMIN_INTERNAL_H

#include <stddef.h>

#include "client/admin_rpc.h"
#include "strata/admin.h"

/* The protocol handle behind a (NULL for NULL). */
admin_rpc *admin_handle_rpc(const strata_admin_t *a);

/* ---- descriptors (admin_descriptor.c) ---- */

/* Key/value strings, keys distinct, in the order first set. */
typedef struct admin_pairs {
    char **key;
    char **value;
    size_t n;
} admin_pairs;
/* Sets key to a copy of value (NULL removes it): 1, or 0 when out of memory or key is NULL
 * (ps unchanged). */
unsigned char admin_pairs_set(admin_pairs *ps, const char *key, const char *value);
/* key's value (borrowed) or NULL. */
const char *admin_pairs_get(const admin_pairs *ps, const char *key);
void admin_pairs_clear(admin_pairs *ps);

/* The schema message of td, every set attribute checked against its field's range: ST_OK
 * and *out (free with admin_rpc_schema_free), ST_INVALID_ARGUMENT naming the table,
 * family and attribute, or ST_NOMEM (*out NULL on failure). Names are checked by the
 * admin_rpc call that sends it. */
int admin_descriptor_to_schema(const strata_table_descriptor_t *td,
                               Strata__Admin__TableSchema **out);
/* A descriptor of the schema a master returned: ST_OK and *out, or ST_NOMEM. */
int admin_descriptor_from_schema(const Strata__Admin__TableSchema *s,
                                 strata_table_descriptor_t **out);

/* ---- results (admin_result.c) ---- */

/* A list taking the strings names[0..n) (copied): NULL when out of memory. */
strata_name_list_t *admin_name_list_new(char *const *names, size_t n);
/* A list over the regions of an answer, which it takes (freed with the list, also on
 * failure): NULL when out of memory. */
strata_region_list_t *admin_region_list_new(Strata__Master__GetTableRegionsResponse *resp);
/* The first region of a LocateRegion answer, which it takes: ST_OK and *out (NULL when
 * the answer has no region), or ST_NOMEM. */
int admin_region_located(Strata__Master__LocateRegionResponse *resp, strata_region_t **out);
/* A status over a GetClusterStatus answer, which it takes: NULL when out of memory. */
strata_cluster_status_t *admin_cluster_status_new(Strata__Master__GetClusterStatusResponse *resp);

#endif
