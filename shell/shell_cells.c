/*
 * shell_cells.c - the text of one cell as HBase's shell prints it (table.rb to_string):
 * "timestamp=T, value=V" for a put, "timestamp=T, type=DeleteColumn" for a delete marker
 * of a raw scan, cut to MAXLENGTH; and for the catalog (strata:meta) the columns HBase's
 * shell decodes: a region's info:regioninfo as HRegionInfo.toString prints it
 * ("{ENCODED => e, NAME => 'n', STARTKEY => 's', ENDKEY => 'k'}"), the 8-byte
 * big-endian info:serverstartcode and info:seqnum as numbers.
 *
 * Pure functions of their arguments (no session, no cluster): tests/unit/test_shell_cells.c.
 * Thread-safety: none needed.
 */
#include <stdio.h>
#include <string.h>

#include "common/status.h"
#include "shell/shell_internal.h"

static void cut(buf_t *b, size_t start, int64_t maxlength)
{
    if (maxlength >= 0 && b->len - start > (size_t)maxlength) {
        b->len = start + (size_t)maxlength;
        b->data[b->len] = '\0';
    }
}

static void append_str(buf_t *b, const char *s)
{
    buf_append(b, s, strlen(s));
}

static size_t stamp(buf_t *b, int64_t ts)
{
    char t[48];
    size_t start = b->len;
    snprintf(t, sizeof(t), "timestamp=%lld, ", (long long)ts);
    append_str(b, t);
    return start;
}

int shell_cell_text_as(buf_t *b, int64_t ts, strata_cell_type type, const char *val, size_t len,
                       int64_t maxlength, int conv)
{
    size_t start = stamp(b, ts);
    int rc = ST_OK;
    if (type != STRATA_CELL_PUT) {
        append_str(b, "type=");
        append_str(b, strata_cell_type_name(type));
    } else {
        append_str(b, "value=");
        rc = shell_conv_apply((shell_conv)conv, val, len, b);
    }
    buf_append(b, "", 1); /* NUL, even for an empty value */
    b->len--;
    cut(b, start, maxlength);
    return rc;
}

void shell_cell_text(buf_t *b, int64_t ts, strata_cell_type type, const char *val, size_t len,
                     int64_t maxlength)
{
    shell_cell_text_as(b, ts, type, val, len, maxlength, SHELL_CONV_BINARY);
}

void shell_region_describe(const strata_region_t *r, buf_t *out)
{
    buf_t name = {0};
    size_t sl, el;
    const char *sk = strata_region_start_key(r, &sl), *ek = strata_region_end_key(r, &el);
    shell_region_name(r, &name);
    append_str(out, "{ENCODED => ");
    append_str(out, strata_region_encoded_name(r));
    append_str(out, ", NAME => '");
    buf_append(out, name.data, name.len);
    append_str(out, "', STARTKEY => '");
    shell_escape_binary(out, sk, sl);
    append_str(out, "', ENDKEY => '");
    shell_escape_binary(out, ek, el);
    append_str(out, "'");
    if (strata_region_offline(r))
        append_str(out, ", OFFLINE => true");
    if (strata_region_split(r))
        append_str(out, ", SPLIT => true");
    buf_append(out, "}", 2); /* with the NUL */
    out->len--;
    buf_free(&name);
}

static bool is_column(const char *fam, size_t fl, const char *qual, size_t ql, const char *want)
{
    size_t wl = strlen(want);
    return fl + 1 + ql == wl && memcmp(want, fam, fl) == 0 && want[fl] == ':' &&
           (ql == 0 || memcmp(want + fl + 1, qual, ql) == 0);
}

void shell_meta_cell_text(buf_t *b, const char *fam, size_t fam_len, const char *qual,
                          size_t qual_len, int64_t ts, strata_cell_type type, const char *val,
                          size_t len, int64_t maxlength)
{
    bool info = type == STRATA_CELL_PUT;
    bool regioninfo = info && is_column(fam, fam_len, qual, qual_len, "info:regioninfo");
    bool number = info && len == 8 &&
                  (is_column(fam, fam_len, qual, qual_len, "info:serverstartcode") ||
                   is_column(fam, fam_len, qual, qual_len, "info:seqnum"));
    if (!regioninfo && !number) {
        shell_cell_text(b, ts, type, val, len, maxlength);
        return;
    }
    size_t start = stamp(b, ts);
    append_str(b, "value=");
    if (number) {
        char n[32];
        unsigned long long u = 0;
        for (size_t i = 0; i < 8; i++)
            u = u << 8 | (unsigned char)val[i];
        snprintf(n, sizeof(n), "%llu", u);
        append_str(b, n);
    } else {
        char *err = NULL;
        strata_region_t *r = strata_region_from_meta(val, len, &err);
        if (r)
            shell_region_describe(r, b);
        else
            shell_escape_binary(b, val, len); /* undecodable: the bytes, as a plain value */
        strata_region_destroy(r);
        strata_free(err);
    }
    buf_append(b, "", 1);
    b->len--;
    cut(b, start, maxlength);
}
