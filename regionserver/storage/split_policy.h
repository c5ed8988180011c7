/*
 * split_policy.h - when a region should split and where: HBase 2's six region split
 * policies, as pure decisions over sizes the caller measures (the split trigger asks,
 * the split procedure cuts; docs/regionserver.md, "Split policies").
 *
 * A table picks its policy with the value SPLIT_POLICY (HBase's class name, with or
 * without the "org.apache.hadoop.hbase.regionserver." prefix, kept as given); without
 * one the region server's default (split_defaults.policy) applies. With n the number of
 * regions of the table on this server, the size a store must exceed is:
 *
 *   ConstantSizeRegionSplitPolicy            max
 *   IncreasingToUpperBoundRegionSplitPolicy  n == 0 || n > 100 ? max : min(max, initial * n^3)
 *   SteppingSplitPolicy (the default)        n == 1 ? initial : max
 *   KeyPrefixRegionSplitPolicy               as IncreasingToUpperBound; the split point is
 *                                            cut to its first prefix_length bytes
 *   DelimitedKeyPrefixRegionSplitPolicy      as IncreasingToUpperBound; the split point is
 *                                            cut before the first delimiter (kept whole
 *                                            when it has none)
 *   DisabledRegionSplitPolicy                never; manual splits are refused too
 *
 * and a region splits when any store exceeds it, never while a store holds reference
 * files. max is MAX_FILESIZE (else the server's max_filesize) moved by HBase's jitter:
 * max + max * (u - 0.5) * jitter, jitter from the table's hbase.hregion.max.filesize.jitter
 * (value or configuration entry; else the server's, 0.25 by default: +-12.5%), u in [0, 1)
 * a hash of the region's encoded name (HBase draws it at random; a hash gives a region the
 * same threshold on every open). initial is the table's
 * hbase.increasing.policy.initial.size, else the server's initial_size, else 2 x
 * MEMSTORE_FLUSHSIZE (the table's, else the server's flushsize).
 *
 * The parameters (table value, else configuration entry):
 *   KeyPrefixRegionSplitPolicy.prefix_length       a positive integer (HBase's older key
 *                                                  prefix_split_key_policy.prefix_length
 *                                                  is read too)
 *   DelimitedKeyPrefixRegionSplitPolicy.delimiter  a non-empty string
 *
 * Thread-safety: pure functions over caller-owned structs.
 */
#ifndef STRATA_REGIONSERVER_STORAGE_SPLIT_POLICY_H
#define STRATA_REGIONSERVER_STORAGE_SPLIT_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "regionserver/storage/schema.h"

#define SPLIT_POLICY_CLASS_PREFIX "org.apache.hadoop.hbase.regionserver."
#define SPLIT_POLICY_PREFIX_LENGTH_KEY "KeyPrefixRegionSplitPolicy.prefix_length"
#define SPLIT_POLICY_PREFIX_LENGTH_KEY_OLD "prefix_split_key_policy.prefix_length"
#define SPLIT_POLICY_DELIMITER_KEY "DelimitedKeyPrefixRegionSplitPolicy.delimiter"
#define SPLIT_POLICY_JITTER_KEY "hbase.hregion.max.filesize.jitter"
#define SPLIT_POLICY_INITIAL_SIZE_KEY "hbase.increasing.policy.initial.size"

#define SPLIT_POLICY_DEFAULT_MAX_FILESIZE (10ull * 1024 * 1024 * 1024) /* HBase's 10 GiB */
#define SPLIT_POLICY_DEFAULT_FLUSHSIZE (128ull * 1024 * 1024)          /* HBase's 128 MiB */
#define SPLIT_POLICY_DEFAULT_JITTER 0.25
#define SPLIT_POLICY_MAX_JITTER 1.0 /* a jitter is 0..1: the threshold stays within +-50% */

typedef enum split_policy_kind {
    SPLIT_POLICY_STEPPING = 0,
    SPLIT_POLICY_INCREASING_TO_UPPER_BOUND = 1,
    SPLIT_POLICY_CONSTANT_SIZE = 2,
    SPLIT_POLICY_KEY_PREFIX = 3,
    SPLIT_POLICY_DELIMITED_KEY_PREFIX = 4,
    SPLIT_POLICY_DISABLED = 5,
} split_policy_kind;

/* The cluster-wide settings, from the region server's configuration. */
typedef struct split_defaults {
    split_policy_kind policy; /* for tables without SPLIT_POLICY */
    uint64_t max_filesize;    /* for tables without MAX_FILESIZE; 0: 10 GiB */
    uint64_t flushsize;       /* for tables without MEMSTORE_FLUSHSIZE; 0: 128 MiB */
    uint64_t initial_size;    /* 0: 2 x the flush size */
    double jitter;            /* 0..SPLIT_POLICY_MAX_JITTER */
} split_defaults;

/* A policy configured for one region. */
typedef struct split_policy {
    split_policy_kind kind;
    uint64_t desired_max_filesize; /* max, jitter applied */
    uint64_t initial_size;
    double jitter_rate;   /* (u - 0.5) * jitter: the fraction max was moved by */
    size_t prefix_length; /* KEY_PREFIX; 0: split points kept whole */
    char delimiter[SCHEMA_MAX_VALUE_LEN + 1]; /* DELIMITED_KEY_PREFIX */
    size_t delimiter_len;                     /* 0: split points kept whole */
} split_policy;

/* HBase's defaults: SteppingSplitPolicy, 10 GiB, 128 MiB, initial 0 (2 x flush), 0.25. */
void split_defaults_init(split_defaults *d);

/* The policy a class name names ("ConstantSizeRegionSplitPolicy" or
 * "org.apache.hadoop.hbase.regionserver.ConstantSizeRegionSplitPolicy"; case matters, as
 * in Java). ST_OK and *out, or ST_INVALID_ARGUMENT naming name and listing the six. */
int split_policy_parse_name(const char *name, split_policy_kind *out);
/* The short class name of k ("SteppingSplitPolicy", ...), or "unknown" (static). */
const char *split_policy_name(split_policy_kind k);

/* Checks what the table says about splitting: a known SPLIT_POLICY; where given, a
 * positive integer prefix length, a jitter 0..1 and a positive initial size (in the
 * values and the configuration alike); with KeyPrefixRegionSplitPolicy chosen, a prefix
 * length; with DelimitedKeyPrefixRegionSplitPolicy chosen, a non-empty delimiter. ST_OK
 * or ST_INVALID_ARGUMENT naming the table and the attribute (table_schema_validate calls
 * it). */
int split_policy_validate(const table_schema *t);

/* The policy of region encoded_name (NULL or "": no jitter) of table t under the server's
 * defaults d. ST_OK and *out, or split_policy_validate's failure (*out zeroed). */
int split_policy_configure(const table_schema *t, const split_defaults *d, const char *encoded_name,
                           split_policy *out);

/* The size a store must exceed for a split, with table_regions_on_server regions of the
 * table on this server (UINT64_MAX for DisabledRegionSplitPolicy). */
uint64_t split_policy_size_to_check(const split_policy *p, unsigned table_regions_on_server);
/* Whether the region should split: false when the policy is disabled or has_references
 * (some store still holds reference files), else whether any of store_sizes[0..nstores)
 * exceeds split_policy_size_to_check. */
bool split_policy_should_split(const split_policy *p, unsigned table_regions_on_server,
                               const uint64_t *store_sizes, size_t nstores, bool has_references);
/* The length to which split point row[0..len) is cut: prefix_length bytes (KeyPrefix),
 * the bytes before the first delimiter (DelimitedKeyPrefix, len when there is none), or
 * len. */
size_t split_policy_adjust_point(const split_policy *p, const uint8_t *row, size_t len);
/* False for DisabledRegionSplitPolicy, whose regions refuse manual splits too. */
bool split_policy_allows_split(const split_policy *p);

#endif
