/*
 * filter_drive.c - the scanner stand-in of filter_drive.h.
 * Thread-safety: none needed.
 */
#include "tests/support/filter_drive.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cell_t filter_drive_cell(const tcell *t)
{
    cell_t c = {0};
    c.row = (const uint8_t *)t->row;
    c.row_len = (uint32_t)strlen(t->row);
    c.family = (const uint8_t *)t->fam;
    c.family_len = (uint32_t)strlen(t->fam);
    c.qualifier = (const uint8_t *)t->qual;
    c.qualifier_len = (uint32_t)strlen(t->qual);
    c.value = (const uint8_t *)t->val;
    c.value_len = (uint32_t)strlen(t->val);
    c.ts = t->ts;
    c.type = CELL_TYPE_PUT;
    return c;
}

static void append(char *out, size_t out_len, const char *s)
{
    size_t used = strlen(out);
    snprintf(out + used, out_len - used, "%s", s);
}

/* Renders one kept cell; value bytes are copied now, as transform memory is short-lived. */
static void render(const cell_t *c, char *dst, size_t n)
{
    int w = snprintf(dst, n, "%.*s/%.*s:%.*s=", (int)c->row_len, (const char *)c->row,
                     (int)c->family_len, (const char *)c->family, (int)c->qualifier_len,
                     (const char *)c->qualifier);
    size_t used = w > 0 ? (size_t)w : 0;
    for (uint32_t i = 0; i < c->value_len && used + 5 < n; i++) {
        uint8_t b = c->value[i];
        if (b >= 0x20 && b < 0x7f)
            dst[used++] = (char)b;
        else
            used += (size_t)snprintf(dst + used, n - used, "\\x%02x", b);
    }
    dst[used < n ? used : n - 1] = '\0';
}

static bool same_column(const tcell *a, const tcell *b)
{
    return strcmp(a->row, b->row) == 0 && strcmp(a->fam, b->fam) == 0 &&
           strcmp(a->qual, b->qual) == 0;
}

/* Runs one row [from, to); appends it to out if kept. */
static void drive_row(filter *f, const tcell *cells, size_t from, size_t to, char *out,
                      size_t out_len)
{
    cell_t kept[64];
    char text[2048] = "";
    size_t nkept = 0;
    size_t k = from;
    while (k < to) {
        cell_t c = filter_drive_cell(&cells[k]);
        filter_return r = filter_cell(f, &c);
        size_t next = k + 1;
        if (r == FILTER_INCLUDE) {
            if (nkept == sizeof(kept) / sizeof(kept[0]))
                abort(); /* rows in tests are small */
            filter_transform_cell(f, &c);
            char one[256];
            render(&c, one, sizeof(one));
            if (nkept)
                append(text, sizeof(text), ",");
            append(text, sizeof(text), one);
            kept[nkept++] = filter_drive_cell(&cells[k]);
        } else if (r == FILTER_NEXT_COL) {
            while (next < to && same_column(&cells[k], &cells[next]))
                next++;
        } else if (r == FILTER_NEXT_ROW) {
            next = to;
        }
        k = next;
    }
    if (filter_row(f, kept, nkept))
        return;
    if (out[0])
        append(out, out_len, " ");
    append(out, out_len, text);
}

int filter_drive_scan(filter *f, const tcell *cells, size_t n, char *out, size_t out_len)
{
    int rows = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && strcmp(cells[j].row, cells[i].row) == 0)
            j++;
        if (filter_all_remaining(f))
            break;
        filter_reset(f);
        rows++;
        const char *row = cells[i].row;
        if (!filter_row_key(f, (const uint8_t *)row, strlen(row)))
            drive_row(f, cells, i, j, out, out_len);
        i = j;
    }
    return rows;
}
