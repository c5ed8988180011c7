/*
 * fuzz_filter_parse.c - fuzz target for HBase's filter language
 * (regionserver/storage/filter_parse.c, the filters of filter.c, filter_simple.c,
 * filter_compare.c and comparator.c): the input up to its first NUL byte is the filter
 * string; the bytes after it, if any, add cells (row, family, qualifier, value,
 * timestamp taken from them) to a few fixed ones. A string that parses is run over the
 * cells, sorted, the way the scanner drives a filter (filter.h): per row
 * filter_all_remaining, reset, filter_row_key, filter_cell honouring SKIP / NEXT_COL /
 * NEXT_ROW (a SEEK_HINT taken as SKIP), transform on included cells, filter_row_cells,
 * filter_row; the string wrapped in parentheses
 * is parsed and run too.
 *
 * It asserts: parsing returns ST_OK, ST_INVALID_ARGUMENT or ST_UNSUPPORTED; a failure
 * leaves the output NULL and says "filter: ..." with a position inside the string; a
 * filter returns one of the five filter_cell answers and a transformed cell stays
 * readable; "(text)" parses whenever text does (unless that nests too deep) and keeps
 * exactly the same cells. Leaks, memory errors and undefined behaviour are caught by the
 * sanitizers.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/bytes.h"
#include "common/status.h"
#include "regionserver/storage/filter.h"
#include "regionserver/storage/filter_parse.h"
#include "tests/fuzz/fuzz_support.h"

#define MAX_TEXT 4096
#define MAX_EXTRA 24

static const struct {
    const char *row, *fam, *qual, *val;
    size_t val_len;
    int64_t ts;
} fixed[] = {
    {"a1", "cf", "name", "ann", 3, 1}, {"a1", "cf", "st", "on", 2, 1},
    {"b1", "cf", "name", "bob", 3, 1}, {"b1", "cf2", "zip", "", 0, 3},
    {"u1", "cf", "name", "x", 1, 2},   {"u1", "cf", "name", "y", 1, 1},
    {"u1", "cf", "st", "it's", 4, 2},  {"u2", "cf2", "zip", "\x00\xff", 2, 0},
};

static int cmp_cells(const void *a, const void *b)
{
    return cell_compare(a, b);
}

static cell_t text_cell(const char *row, const char *fam, const char *qual, const char *val,
                        size_t val_len, int64_t ts)
{
    return (cell_t){.row = (const uint8_t *)row,
                    .row_len = (uint32_t)strlen(row),
                    .family = (const uint8_t *)fam,
                    .family_len = (uint32_t)strlen(fam),
                    .qualifier = (const uint8_t *)qual,
                    .qualifier_len = (uint32_t)strlen(qual),
                    .value = (const uint8_t *)val,
                    .value_len = (uint32_t)val_len,
                    .ts = ts,
                    .type = CELL_TYPE_PUT};
}

/* Copies part [p, p+n) to *mem followed by a NUL byte; returns the copy. */
static const uint8_t *part(uint8_t **mem, const uint8_t *p, size_t n)
{
    uint8_t *at = *mem;
    memcpy(at, p, n);
    at[n] = '\0';
    *mem += n + 1;
    return at;
}

/* Cells from the bytes after the NUL: each takes 5 bytes (lengths and timestamp) and
 * its parts. The parts are copied into mem (n + 4 * cap bytes) each followed by a NUL:
 * ASan's regexec interceptor ignores REG_STARTEND and reads the subject up to a NUL
 * byte, which would report a read past a part that glibc never makes. */
static size_t extra_cells(const uint8_t *p, size_t n, cell_t *out, size_t cap, uint8_t *mem)
{
    size_t k = 0;
    while (k < cap && n >= 5) {
        size_t rl = 1 + p[0] % 4, fl = 1 + p[1] % 3, ql = p[2] % 4, vl = p[3] % 8;
        int64_t ts = p[4] % 4;
        p += 5, n -= 5;
        if (n < rl + fl + ql + vl)
            break;
        cell_t *c = &out[k++];
        *c = (cell_t){.row_len = (uint32_t)rl,
                      .family_len = (uint32_t)fl,
                      .qualifier_len = (uint32_t)ql,
                      .value_len = (uint32_t)vl,
                      .ts = ts,
                      .type = CELL_TYPE_PUT};
        c->row = part(&mem, p, rl);
        c->family = part(&mem, p + rl, fl);
        c->qualifier = part(&mem, p + rl + fl, ql);
        c->value = part(&mem, p + rl + fl + ql, vl);
        p += rl + fl + ql + vl, n -= rl + fl + ql + vl;
    }
    return k;
}

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

/* Runs row [from, to) through f; adds what is kept to *h. A seek hint is taken as a SKIP
 * (the scanner may honour it, and must keep the same cells either way). */
static void drive_row(filter *f, const cell_t *cells, size_t from, size_t to, uint64_t *h)
{
    cell_t kept[MAX_EXTRA + sizeof(fixed) / sizeof(fixed[0])];
    size_t nkept = 0;
    uint64_t row_hash = 0xcbf29ce484222325ULL;
    for (size_t k = from; k < to;) {
        cell_t c = cells[k];
        filter_return r = filter_cell(f, &c);
        FUZZ_CHECK(r == FILTER_INCLUDE || r == FILTER_SKIP || r == FILTER_NEXT_COL ||
                       r == FILTER_NEXT_ROW || r == FILTER_SEEK_HINT,
                   "filter_cell returned %d", (int)r);
        size_t next = k + 1;
        if (r == FILTER_INCLUDE) {
            filter_transform_cell(f, &c);
            kept[nkept++] = c;
        } else if (r == FILTER_NEXT_COL) {
            while (next < to && cell_compare_column(&cells[k], &cells[next]) == 0)
                next++;
        } else if (r == FILTER_NEXT_ROW) {
            next = to;
        }
        k = next;
    }
    size_t left = filter_row_cells(f, kept, nkept);
    FUZZ_CHECK(left <= nkept, "filter_row_cells kept %zu of %zu cells", left, nkept);
    for (size_t i = 0; i < left; i++) {
        const cell_t *c = &kept[i];
        row_hash = mix(row_hash, c->row, c->row_len);
        row_hash = mix(row_hash, c->family, c->family_len);
        row_hash = mix(row_hash, c->qualifier, c->qualifier_len);
        row_hash = mix(row_hash, c->value, c->value_len);
        row_hash = mix(row_hash, &c->ts, sizeof(c->ts));
    }
    if (!filter_row(f, kept, left))
        *h = mix(*h, &row_hash, sizeof(row_hash));
    else
        *h = mix(*h, "-", 1);
}

/* Scans cells through f; returns a digest of every row kept. */
static uint64_t scan(filter *f, const cell_t *cells, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && cell_same_row(&cells[i], &cells[j]))
            j++;
        if (filter_all_remaining(f))
            break;
        filter_reset(f);
        if (!filter_row_key(f, cells[i].row, cells[i].row_len))
            drive_row(f, cells, i, j, &h);
        i = j;
    }
    return h;
}

static void check_failure(int rc, const filter *f, size_t len)
{
    FUZZ_CHECK(rc == ST_INVALID_ARGUMENT || rc == ST_UNSUPPORTED, "parse: %d (%s)", rc,
               st_errmsg());
    FUZZ_CHECK(f == NULL, "a failed parse set its output");
    const char *msg = st_errmsg();
    FUZZ_CHECK(strncmp(msg, "filter: ", 8) == 0, "message: %s", msg);
    /* The quoted text may itself hold " at position ": one occurrence must be the
     * parser's, "<N> (end of input)" or "<N> (near ...)" with N inside the string. */
    bool placed = false;
    for (const char *at = strstr(msg, " at position "); at && !placed;
         at = strstr(at + 1, " at position ")) {
        char *end = NULL;
        unsigned long long pos = strtoull(at + 13, &end, 10);
        placed = end != at + 13 && strncmp(end, " (", 2) == 0 && pos <= len;
    }
    FUZZ_CHECK(placed || strstr(msg, "empty filter string"), "no position inside the %zu bytes: %s",
               len, msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t len = nul ? (size_t)(nul - data) : size;
    if (len > MAX_TEXT)
        return 0;
    char *text = malloc(len + 3);
    FUZZ_CHECK(text != NULL, "out of memory");
    text[0] = '(';
    memcpy(text + 1, data, len);
    text[len + 1] = ')';
    text[len + 2] = '\0';

    cell_t cells[MAX_EXTRA + sizeof(fixed) / sizeof(fixed[0])];
    size_t n = 0;
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
        cells[n++] = text_cell(fixed[i].row, fixed[i].fam, fixed[i].qual, fixed[i].val,
                               fixed[i].val_len, fixed[i].ts);
    uint8_t *mem = malloc(size - len + 4 * MAX_EXTRA);
    FUZZ_CHECK(mem != NULL, "out of memory");
    if (nul)
        n += extra_cells(nul + 1, size - len - 1, cells + n, MAX_EXTRA, mem);
    qsort(cells, n, sizeof(cells[0]), cmp_cells);

    /* The string alone: text + 1 up to the ')' (made a NUL for this parse). */
    filter *f = (filter *)&f, *g = (filter *)&g;
    text[len + 1] = '\0';
    int rc = filter_parse(text + 1, &f);
    text[len + 1] = ')';
    if (rc != ST_OK) {
        check_failure(rc, f, len);
        free(mem);
        free(text);
        return 0;
    }
    uint64_t want = scan(f, cells, n);
    int rc2 = filter_parse(text, &g);
    if (rc2 == ST_OK) {
        uint64_t got = scan(g, cells, n);
        FUZZ_CHECK(got == want, "\"(%s)\" keeps other cells than the string alone", text + 1);
    } else {
        check_failure(rc2, g, len + 2);
        FUZZ_CHECK(strstr(st_errmsg(), "nested deeper"), "\"%s\" fails: %s", text, st_errmsg());
    }
    filter_free(f);
    filter_free(g);
    free(mem);
    free(text);
    return 0;
}
