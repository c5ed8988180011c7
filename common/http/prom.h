/*
 * prom.h - writing Prometheus' text exposition format (version 0.0.4) into a buf_t, for
 * /metrics (docs/http.md).
 *
 * A metric family is its "# HELP" and "# TYPE" lines (prom_family) followed by all of its
 * samples (prom_sample_*), each `name{label="value",...} value`. The caller keeps every
 * sample of a family together, right after its header. HELP text escapes '\\' and
 * newlines; label values escape '\\', '"' and newlines. Values: integers exactly, other
 * numbers with up to 17 significant digits, NaN / +Inf / -Inf by name.
 * Names must match [a-zA-Z_:][a-zA-Z0-9_:]* (labels [a-zA-Z_][a-zA-Z0-9_]*): a bad name is
 * ST_INVALID_ARGUMENT and nothing is written.
 * Thread-safety: none beyond the buffer's owner.
 */
#ifndef STRATA_COMMON_PROM_H
#define STRATA_COMMON_PROM_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

#define PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

typedef struct prom_label {
    const char *name;
    const char *value;
} prom_label;

/* type: "counter", "gauge", "untyped" ... ST_OK, ST_NOMEM or ST_INVALID_ARGUMENT. */
int prom_family(buf_t *b, const char *name, const char *type, const char *help);
/* One sample with labels[0..n) (n may be 0). */
int prom_sample_u64(buf_t *b, const char *name, const prom_label *labels, size_t n, uint64_t v);
int prom_sample_i64(buf_t *b, const char *name, const prom_label *labels, size_t n, int64_t v);
int prom_sample_double(buf_t *b, const char *name, const prom_label *labels, size_t n, double v);

#endif
