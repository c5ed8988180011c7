/*
 * op_attr.h - operation attributes (HBase's OperationWithAttributes): the name -> bytes
 * pairs a Get, a mutation (Put, Delete, Increment, Append) or a Scan carries to the
 * region server as client.proto NameBytesPair (docs/regionserver.md, "Operation
 * attributes"). The bounds are wire constants shared by the client, which refuses to build
 * a set past them, and the region server, which refuses to run an operation whose set is
 * past them or malformed; they are never lowered.
 *
 * Thread-safety: pure functions.
 */
#ifndef STRATA_COMMON_OP_ATTR_H
#define STRATA_COMMON_OP_ATTR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OP_ATTR_MAX_COUNT 64          /* attributes per operation */
#define OP_ATTR_MAX_NAME 256          /* bytes of a name (at least 1) */
#define OP_ATTR_MAX_VALUE (64 * 1024) /* bytes of a value */
/* HBase's Scan.SCAN_ATTRIBUTES_METRICS_ENABLE: a scan whose value of it has a non-zero
 * first byte (HBase writes Bytes.toBytes(true), 0xFF) gets server-side scan metrics. */
#define OP_ATTR_SCAN_METRICS "scan.attributes.metrics.enable"
/* Room op_attr_name_text needs for any name. */
#define OP_ATTR_NAME_TEXT 80

struct Strata__Client__NameBytesPair;

/* The name as messages print it: printable ASCII as is, other bytes as \xNN, cut with
 * "..." past 48 bytes; always NUL-terminated in out (cap >= 1). */
void op_attr_name_text(const char *name, size_t len, char *out, size_t cap);
/* One attribute within the bounds: ST_OK, or ST_INVALID_ARGUMENT with "operation
 * attribute 'NAME': ..." (what is wrong: an empty or long name, a long value). */
int op_attr_check(const char *name, size_t name_len, size_t value_len);
/* A received set: at most OP_ATTR_MAX_COUNT, each within the bounds, no name twice.
 * ST_OK or ST_INVALID_ARGUMENT naming the attribute (or the count). */
int op_attr_check_set(struct Strata__Client__NameBytesPair *const *attrs, size_t n);
/* The pair called name in the set, or NULL. */
const struct Strata__Client__NameBytesPair *
op_attr_find(struct Strata__Client__NameBytesPair *const *attrs, size_t n, const char *name);
/* Whether a value reads as true: its first byte is not 0 (Bytes.toBoolean); an empty one
 * is false. */
bool op_attr_true(const uint8_t *value, size_t len);

#endif
