/*
 * admin.h - cluster administration through the active master (MasterService,
 * common/proto/master.proto; service: docs/master.md): tables, namespaces, region
 * assignment, flushes and compactions, cluster status.
 *
 * A strata_admin finds the active master through ZooKeeper (<parent>/master) and follows
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
 * frees with strata_admin_free_msg(); *out is NULL on failure.
 *
 *   strata_admin *a = NULL;
 *   strata_admin_open("127.0.0.1:2181", NULL, &a);
 *   Strata__Admin__TableSchema *s = NULL;
 *   strata_admin_schema_new("users", "info,data", &s);
 *   ProtobufCBinaryData splits[] = {{1, (uint8_t *)"m"}};
 *   int rc = strata_admin_create_table(a, s, splits, 1);
 *   strata_admin_schema_free(s);
 *   strata_admin_close(a);
 *
 * Thread-safety: one strata_admin may be used from any number of threads at once; close
 * it when none is using it.
 */
#ifndef STRATA_CLIENT_ADMIN_H
#define STRATA_CLIENT_ADMIN_H

#include <protobuf-c/protobuf-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/proto/admin.pb-c.h"
#include "common/proto/master.pb-c.h"
#include "common/server_name.h"

typedef struct strata_admin strata_admin;

#define STRATA_ADMIN_DEFAULT_TIMEOUT_MS 60000

/* A handle on the cluster whose ZooKeeper quorum is "host:port[,host:port...]" and whose
 * parent znode is parent (NULL or "": "/strata"). ST_OK and *out, or ST_INVALID_ARGUMENT
 * for a bad quorum or parent, ST_NOMEM (*out NULL). */
int strata_admin_open(const char *quorum, const char *parent, strata_admin **out);
/* NULL is a no-op. */
void strata_admin_close(strata_admin *a);
/* The time each typed call below may take, retries included (default 60000 ms; <= 0
 * restores it). */
void strata_admin_set_timeout_ms(strata_admin *a, int64_t ms);

/* Any MasterService call: method "MasterService.<Name>" or "<Name>", req a packed
 * <Name>Request, resp_desc the descriptor of <Name>Response; timeout_ms <= 0 means the
 * handle's timeout. ST_OK and *resp (free with strata_admin_free_msg), or the failure. */
int strata_admin_call(strata_admin *a, const char *method, const ProtobufCMessage *req,
                      const ProtobufCMessageDescriptor *resp_desc, int64_t timeout_ms,
                      ProtobufCMessage **resp);
/* Frees a message a call returned. NULL is a no-op. */
void strata_admin_free_msg(void *msg);

/* The active master as ZooKeeper has it now: ST_OK and *out (*http_port if not NULL), or
 * ST_NOT_SERVING when no master is active. */
int strata_admin_active_master(strata_admin *a, server_name *out, uint32_t *http_port);

/* ---- schemas ---- */

/* A schema of table with the families named in families (comma separated, at least one),
 * every attribute left to its default. ST_OK and *out (free with
 * strata_admin_schema_free), ST_INVALID_ARGUMENT naming a bad name, ST_NOMEM. */
int strata_admin_schema_new(const char *table, const char *families,
                            Strata__Admin__TableSchema **out);
void strata_admin_schema_free(Strata__Admin__TableSchema *s);

/* Checks a table name: "table" or "namespace:table"; the namespace of letters, digits and
 * '_', the table of letters, digits, '_', '-' and '.', not starting with '.' or '-'.
 * ST_OK or ST_INVALID_ARGUMENT naming it. */
int strata_admin_check_table_name(const char *name);

/* ---- tables ---- */

/* Creates a table with the explicit split points split_keys[0..n) (sorted, distinct,
 * non-empty; n 0: one region). */
int strata_admin_create_table(strata_admin *a, const Strata__Admin__TableSchema *schema,
                              const ProtobufCBinaryData *split_keys, size_t n_split_keys);
/* Creates a table of num_regions regions (>= 1) cut by split_algo: "HexStringSplit"
 * (NULL: the default) or "UniformSplit". */
int strata_admin_create_table_presplit(strata_admin *a, const Strata__Admin__TableSchema *schema,
                                       uint32_t num_regions, const char *split_algo);
/* Replaces the table's schema (alter). */
int strata_admin_modify_table(strata_admin *a, const Strata__Admin__TableSchema *schema);
/* The table must be disabled first. */
int strata_admin_delete_table(strata_admin *a, const char *table);
int strata_admin_enable_table(strata_admin *a, const char *table);
int strata_admin_disable_table(strata_admin *a, const char *table);
/* The table must be disabled; it comes back empty and enabled. */
int strata_admin_truncate_table(strata_admin *a, const char *table, bool preserve_splits);
int strata_admin_describe_table(strata_admin *a, const char *table,
                                Strata__Master__DescribeTableResponse **out);
/* ns NULL: every namespace's tables (system tables excluded). */
int strata_admin_list_tables(strata_admin *a, const char *ns,
                             Strata__Master__ListTablesResponse **out);
/* Every region of the table in key order, with its server and state. */
int strata_admin_table_regions(strata_admin *a, const char *table,
                               Strata__Master__GetTableRegionsResponse **out);

/* ---- namespaces ---- */

int strata_admin_create_namespace(strata_admin *a, const char *name);
int strata_admin_delete_namespace(strata_admin *a, const char *name);
int strata_admin_list_namespaces(strata_admin *a, Strata__Master__ListNamespacesResponse **out);

/* ---- regions ---- */

/* Moves the region (encoded name) to dest ("host,port,startcode" or "host:port"; NULL:
 * any other live server). ST_OK and *to (if not NULL) the server it went to. */
int strata_admin_move(strata_admin *a, const char *encoded_name, const char *dest, server_name *to);
int strata_admin_assign(strata_admin *a, const char *encoded_name, server_name *to);
int strata_admin_unassign(strata_admin *a, const char *encoded_name);
int strata_admin_flush_table(strata_admin *a, const char *table);
int strata_admin_flush_region(strata_admin *a, const char *encoded_name);
int strata_admin_compact_table(strata_admin *a, const char *table, bool major);
int strata_admin_compact_region(strata_admin *a, const char *encoded_name, bool major);

/* ---- cluster ---- */

int strata_admin_cluster_status(strata_admin *a, Strata__Master__GetClusterStatusResponse **out);

#endif
