/*
 * admin_rpc.h - cluster administration through the active master at the protocol level
 * (MasterService, common/proto/master.proto; service: docs/master.md): tables,
 * namespaces, region assignment, flushes and compactions, cluster status, with the
 * protobuf-c messages as they travel. It is the implementation under the public
 * strata/admin.h (client/admin.c), and the API of the in-tree tools and tests that need
 * the messages themselves; applications use strata/admin.h.
 *
 * An admin_rpc handle finds the active master through ZooKeeper (<parent>/master) and follows
 * a master change: a call that meets an unreachable master or a backup (ST_CONNECTION,
 * ST_NOT_SERVING), or no active master at all, re-reads the znode and is retried with a
 * short backoff (50 ms doubling to 1 s) within its timeout (client/master_link.h).
 * Nothing is contacted until the first call.
 *
 * Errors: every function returns ST_OK or a status from common/status.h, and on failure
 * st_errmsg() holds one line naming what failed ("create table users: exists: ..."). The
 * master's answers keep their status: ST_NOT_FOUND (unknown table, namespace, region),
 * ST_EXISTS, ST_INVALID_ARGUMENT (a bad request, or the table is not disabled for delete
 * or truncate) ... Arguments are checked before anything is sent. A call retried after a
 * master died half-way may find its work done: a repeated create reports ST_EXISTS.
 *
 * Responses: the functions that return a message give a protobuf-c message the caller
 * frees with admin_rpc_free_msg(); *out is NULL on failure.
 *
 *   admin_rpc *a = NULL;
 *   admin_rpc_open("127.0.0.1:2181", NULL, &a);
 *   Strata__Admin__TableSchema *s = NULL;
 *   admin_rpc_schema_new("users", "info,data", &s);
 *   ProtobufCBinaryData splits[] = {{1, (uint8_t *)"m"}};
 *   int rc = admin_rpc_create_table(a, s, splits, 1);
 *   admin_rpc_schema_free(s);
 *   admin_rpc_close(a);
 *
 * Thread-safety: one admin_rpc may be used from any number of threads at once; close
 * it when none is using it.
 */
#ifndef STRATA_CLIENT_ADMIN_RPC_H
#define STRATA_CLIENT_ADMIN_RPC_H

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/proto/admin.pb-c.h"
#include "common/proto/master.pb-c.h"
#include "common/server_name.h"

typedef struct admin_rpc admin_rpc;

#define ADMIN_RPC_DEFAULT_TIMEOUT_MS 60000

/* A handle on the cluster whose ZooKeeper quorum is "host:port[,host:port...]" and whose
 * parent znode is parent (NULL or "": "/strata"). ST_OK and *out, or ST_INVALID_ARGUMENT
 * for a bad quorum or parent, ST_NOMEM (*out NULL). */
int admin_rpc_open(const char *quorum, const char *parent, admin_rpc **out);
/* NULL is a no-op. */
void admin_rpc_close(admin_rpc *a);
/* The time each typed call below may take, retries included (default 60000 ms; <= 0
 * restores it). */
void admin_rpc_set_timeout_ms(admin_rpc *a, int64_t ms);

/* Any MasterService call: method "MasterService.<Name>" or "<Name>", req a packed
 * <Name>Request, resp_desc the descriptor of <Name>Response; timeout_ms <= 0 means the
 * handle's timeout. ST_OK and *resp (free with admin_rpc_free_msg), or the failure. */
int admin_rpc_call(admin_rpc *a, const char *method, const ProtobufCMessage *req,
                   const ProtobufCMessageDescriptor *resp_desc, int64_t timeout_ms,
                   ProtobufCMessage **resp);
/* Frees a message a call returned. NULL is a no-op. */
void admin_rpc_free_msg(void *msg);

/* The active master as ZooKeeper has it now: ST_OK and *out (*http_port if not NULL), or
 * ST_NOT_SERVING when no master is active. */
int admin_rpc_active_master(admin_rpc *a, server_name *out, uint32_t *http_port);

/* ---- schemas ---- */

/* A schema of table with the families named in families (comma separated, at least one),
 * every attribute left to its default. ST_OK and *out (free with
 * admin_rpc_schema_free), ST_INVALID_ARGUMENT naming a bad name, ST_NOMEM. */
int admin_rpc_schema_new(const char *table, const char *families, Strata__Admin__TableSchema **out);
/* Frees a schema built field by field with malloc'ed strings (by admin_rpc_schema_new or
 * admin_descriptor_to_schema: families, values, configuration); never an unpacked one. */
void admin_rpc_schema_free(Strata__Admin__TableSchema *s);

/* Checks a table name: "table" or "namespace:table"; the namespace of letters, digits and
 * '_', the table of letters, digits, '_', '-' and '.', not starting with '.' or '-'.
 * ST_OK or ST_INVALID_ARGUMENT naming it. */
int admin_rpc_check_table_name(const char *name);

/* ---- tables ---- */

/* Creates a table with the explicit split points split_keys[0..n) (sorted, distinct,
 * non-empty; n 0: one region). */
int admin_rpc_create_table(admin_rpc *a, const Strata__Admin__TableSchema *schema,
                           const ProtobufCBinaryData *split_keys, size_t n_split_keys);
/* Creates a table of num_regions regions (>= 1) cut by split_algo: "HexStringSplit"
 * (NULL: the default) or "UniformSplit". */
int admin_rpc_create_table_presplit(admin_rpc *a, const Strata__Admin__TableSchema *schema,
                                    uint32_t num_regions, const char *split_algo);
/* Replaces the table's schema (alter). */
int admin_rpc_modify_table(admin_rpc *a, const Strata__Admin__TableSchema *schema);
/* The same; with async the master answers once the schema is stored (alter_async). */
int admin_rpc_modify_table_async(admin_rpc *a, const Strata__Admin__TableSchema *schema,
                                 bool async);
/* The table must be disabled first. */
int admin_rpc_delete_table(admin_rpc *a, const char *table);
int admin_rpc_enable_table(admin_rpc *a, const char *table);
int admin_rpc_disable_table(admin_rpc *a, const char *table);
/* The table must be disabled; it comes back empty and enabled. */
int admin_rpc_truncate_table(admin_rpc *a, const char *table, bool preserve_splits);
int admin_rpc_describe_table(admin_rpc *a, const char *table,
                             Strata__Master__DescribeTableResponse **out);
/* ns NULL: every namespace's tables (system tables excluded). */
int admin_rpc_list_tables(admin_rpc *a, const char *ns, Strata__Master__ListTablesResponse **out);
/* Every region of the table in key order, with its server and state. */
int admin_rpc_table_regions(admin_rpc *a, const char *table,
                            Strata__Master__GetTableRegionsResponse **out);

/* ---- namespaces ---- */

int admin_rpc_create_namespace(admin_rpc *a, const char *name);
/* With properties props[0..n) (the master checks them). */
int admin_rpc_create_namespace_props(admin_rpc *a, const char *name,
                                     Strata__Master__NamespaceProperty **props, size_t n);
/* Replaces the properties of an existing namespace. */
int admin_rpc_modify_namespace(admin_rpc *a, const char *name,
                               Strata__Master__NamespaceProperty **props, size_t n);
/* The namespace's descriptor (*out: admin_rpc_free_msg). */
int admin_rpc_get_namespace(admin_rpc *a, const char *name,
                            Strata__Master__GetNamespaceResponse **out);
int admin_rpc_delete_namespace(admin_rpc *a, const char *name);
int admin_rpc_list_namespaces(admin_rpc *a, Strata__Master__ListNamespacesResponse **out);

/* ---- regions ---- */

/* Moves the region (encoded name) to dest ("host,port,startcode" or "host:port"; NULL:
 * any other live server). ST_OK and *to (if not NULL) the server it went to. */
int admin_rpc_move(admin_rpc *a, const char *encoded_name, const char *dest, server_name *to);
int admin_rpc_assign(admin_rpc *a, const char *encoded_name, server_name *to);
int admin_rpc_unassign(admin_rpc *a, const char *encoded_name);
int admin_rpc_flush_table(admin_rpc *a, const char *table);
int admin_rpc_flush_region(admin_rpc *a, const char *encoded_name);
int admin_rpc_compact_table(admin_rpc *a, const char *table, bool major);
int admin_rpc_compact_region(admin_rpc *a, const char *encoded_name, bool major);
/* Either of the above for a table or (table NULL) a region, and for one column family
 * (family NULL or "": every family). */
int admin_rpc_flush(admin_rpc *a, const char *table, const char *encoded_name,
                    const char *family);
int admin_rpc_compact(admin_rpc *a, const char *table, const char *encoded_name,
                      const char *family, bool major);

/* ---- cluster ---- */

int admin_rpc_cluster_status(admin_rpc *a, Strata__Master__GetClusterStatusResponse **out);

/* ---- hbck (docs/hbck.md; MasterService.Hbck*) ---- */
/* The report of every table (n 0) or those named; stuck_ms 0: the master's default
 * (60000); skip_fs leaves out the root directory. */
int admin_rpc_hbck_report(admin_rpc *a, const char *const *tables, size_t n, uint64_t stuck_ms,
                          bool skip_fs, Strata__Master__HbckReportResponse **out);
/* The report as text (one line per finding, the counts, "Status: OK" or
 * "Status: INCONSISTENT") or as one JSON object (json), malloc'ed into *out; *errors gets
 * the errors (informational findings do not count). ST_OK or ST_NOMEM. extra (may be
 * NULL, n_extra of them) are findings the caller added (`strata hbck --root`). */
int admin_rpc_hbck_format(const Strata__Master__HbckReportResponse *r,
                          Strata__Master__HbckFinding *const *extra, size_t n_extra, bool json,
                          char **out, size_t *errors);
/* HBCK2 setRegionState (state NULL with remove_row: delete the row); *previous (may be
 * NULL) gets the state before (malloc'ed). */
int admin_rpc_hbck_set_region_state(admin_rpc *a, const char *encoded, const char *state,
                                    bool clear_server, bool remove_row, char **previous);
int admin_rpc_hbck_set_table_state(admin_rpc *a, const char *table, const char *state,
                                   char **previous);
int admin_rpc_hbck_fix_meta(admin_rpc *a, const char *const *tables, size_t n, bool dry_run,
                            Strata__Master__HbckFixMetaResponse **out);
int admin_rpc_hbck_schedule_recoveries(admin_rpc *a, const char *const *servers, size_t n);
int admin_rpc_hbck_bypass(admin_rpc *a, uint64_t proc_id, bool override);
int admin_rpc_hbck_sideline(admin_rpc *a, const char *const *paths, size_t n,
                            Strata__Master__HbckSidelineResponse **out);

#endif
