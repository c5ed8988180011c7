/*
 * rs_attrs.c - the operation attributes a Get, a mutation or a Scan brings
 * (client.proto NameBytesPair; common/op_attr.h): checked before anything of the
 * operation runs, and logged at debug level with the request. Strata has no
 * coprocessors, so no attribute changes what an operation does, except a Scan's
 * OP_ATTR_SCAN_METRICS (rs_scanners.c).
 *
 * Thread-safety: pure functions over the request; logging is thread-safe.
 */
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "common/op_attr.h"
#include "common/status.h"
#include "regionserver/rs_internal.h"

#define LOG_ATTRS 8        /* attributes a debug line shows */
#define LOG_VALUE_BYTES 16 /* bytes of each value it shows */

/* "'name'=<len> 'value...'" of each shown attribute, into out. */
static void describe(Strata__Client__NameBytesPair *const *a, size_t n, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && i < LOG_ATTRS && o + 1 < cap; i++) {
        char name[OP_ATTR_NAME_TEXT], val[OP_ATTR_NAME_TEXT];
        size_t vl = a[i]->has_value ? a[i]->value.len : 0;
        op_attr_name_text(a[i]->name, strlen(a[i]->name), name, sizeof(name));
        op_attr_name_text((const char *)a[i]->value.data,
                          vl < LOG_VALUE_BYTES ? vl : LOG_VALUE_BYTES, val, sizeof(val));
        int w = snprintf(out + o, cap - o, "%s'%s'=%zu bytes '%s%s'", i ? ", " : "", name, vl, val,
                         vl > LOG_VALUE_BYTES ? "..." : "");
        o = w < 0 ? cap : o + (size_t)w;
    }
    if (n > LOG_ATTRS && o + 1 < cap)
        snprintf(out + o, cap - o, " and %zu more", n - LOG_ATTRS);
}

int rs_attrs_check(region *r, const char *op, const uint8_t *row, size_t row_len,
                   Strata__Client__NameBytesPair *const *attrs, size_t n)
{
    if (n == 0)
        return ST_OK;
    const char *region = region_get_info(r)->encoded_name;
    int rc = op_attr_check_set(attrs, n);
    if (rc != ST_OK) {
        char why[384];
        snprintf(why, sizeof(why), "%s", st_errmsg());
        st_error(rc, "%s refused: %s", op, why);
        return rs_error_ctx(rc, region, row, row_len);
    }
    if (log_get_level() >= LOG_LEVEL_DEBUG) {
        char text[1024];
        describe(attrs, n, text, sizeof(text));
        LOG_DEBUG("%s on region %s (row of %zu bytes) with %zu operation attribute(s): %s", op,
                  region, row_len, n, text);
    }
    return ST_OK;
}

const char *rs_mutation_kind(const Strata__Client__MutationProto *m)
{
    switch (m->mutate_type) {
    case STRATA__CLIENT__MUTATION_PROTO__MUTATION_TYPE__PUT:
        return "Put";
    case STRATA__CLIENT__MUTATION_PROTO__MUTATION_TYPE__DELETE:
        return "Delete";
    case STRATA__CLIENT__MUTATION_PROTO__MUTATION_TYPE__INCREMENT:
        return "Increment";
    case STRATA__CLIENT__MUTATION_PROTO__MUTATION_TYPE__APPEND:
        return "Append";
    default:
        return "Mutation";
    }
}
