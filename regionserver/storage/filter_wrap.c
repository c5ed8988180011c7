/*
 * filter_wrap.c - the filters that wrap another: SkipFilter (the language's SKIP) and
 * WhileMatchFilter (WHILE), as HBase 2.x has them (docs/filters.md).
 *
 *   SKIP f   every cell goes to f and gets f's answer; once f answers anything but
 *            INCLUDE for a cell of a row, filter_row drops that row. f's row key and row
 *            decisions are never asked and its filter_row_cells is not run (HBase's
 *            SkipFilter neither: "SKIP RowFilter(...)" passes every row). The scan never
 *            ends early on SKIP's account.
 *   WHILE f  like f, but the first row key f rejects, the first cell it does not
 *            INCLUDE, or the first row it drops ends the scan: the cells of that row
 *            before the refused one are still returned (unless f drops the row), the
 *            rest of the row gets NEXT_ROW and filter_all_remaining turns true (HBase's
 *            matcher ends the scan at the next cell). f's filter_row_cells is not run.
 * Both pass transforms, hints and the scan direction through to f.
 * Thread-safety: one scanner at a time.
 */
#include <stdlib.h>

#include "common/status.h"
#include "regionserver/storage/filter_internal.h"

typedef struct wrap_filter {
    filter base;
    filter *inner;
    bool tripped; /* SKIP: a cell of this row was refused; WHILE: the scan is over */
} wrap_filter;

static filter *inner_of(filter *f)
{
    return ((wrap_filter *)f)->inner;
}

static void wrap_transform(filter *f, cell_t *c)
{
    filter_transform_cell(inner_of(f), c);
}

static bool wrap_hint(filter *f, cell_t *out)
{
    return filter_next_hint(inner_of(f), out);
}

static void wrap_set_reversed(filter *f, bool reversed)
{
    filter_set_reversed(inner_of(f), reversed);
}

static void wrap_destroy(filter *f)
{
    filter_free(inner_of(f));
}

/* ---- SKIP ---- */

static void skip_reset(filter *f)
{
    wrap_filter *w = (wrap_filter *)f;
    filter_reset(w->inner);
    w->tripped = false;
}

static filter_return skip_cell(filter *f, const cell_t *c)
{
    wrap_filter *w = (wrap_filter *)f;
    filter_return r = filter_cell(w->inner, c);
    w->tripped |= r != FILTER_INCLUDE;
    return r;
}

static bool skip_row(filter *f, const cell_t *cells, size_t n)
{
    return ((wrap_filter *)f)->tripped;
}

static const filter_ops skip_ops = {
    .name = "SkipFilter",
    .reset = skip_reset,
    .cell = skip_cell,
    .transform = wrap_transform,
    .row = skip_row,
    .hint = wrap_hint,
    .set_reversed = wrap_set_reversed,
    .destroy = wrap_destroy,
};

/* ---- WHILE ---- */

static void while_reset(filter *f)
{
    filter_reset(inner_of(f));
}

static bool while_all_remaining(filter *f)
{
    wrap_filter *w = (wrap_filter *)f;
    return w->tripped || filter_all_remaining(w->inner);
}

static bool while_row_key(filter *f, const uint8_t *row, size_t len)
{
    wrap_filter *w = (wrap_filter *)f;
    if (while_all_remaining(f))
        return true;
    bool out = filter_row_key(w->inner, row, len);
    w->tripped |= out;
    return out;
}

static filter_return while_cell(filter *f, const cell_t *c)
{
    wrap_filter *w = (wrap_filter *)f;
    if (w->tripped)
        return FILTER_NEXT_ROW;
    filter_return r = filter_cell(w->inner, c);
    w->tripped = r != FILTER_INCLUDE;
    return r;
}

static bool while_row(filter *f, const cell_t *cells, size_t n)
{
    wrap_filter *w = (wrap_filter *)f;
    bool out = filter_row(w->inner, cells, n);
    w->tripped |= out;
    return out;
}

static const filter_ops while_ops = {
    .name = "WhileMatchFilter",
    .reset = while_reset,
    .row_key = while_row_key,
    .cell = while_cell,
    .transform = wrap_transform,
    .row = while_row,
    .all_remaining = while_all_remaining,
    .hint = wrap_hint,
    .set_reversed = wrap_set_reversed,
    .destroy = wrap_destroy,
};

static filter *wrap_new(const filter_ops *ops, filter *inner)
{
    if (inner == NULL) {
        st_error(ST_INVALID_ARGUMENT, "%s: no filter to wrap", ops->name);
        return NULL;
    }
    wrap_filter *w = filter_alloc(sizeof(*w), ops);
    if (w == NULL) {
        filter_free(inner);
        return NULL;
    }
    w->inner = inner;
    return (filter *)w;
}

filter *filter_skip_new(filter *inner)
{
    return wrap_new(&skip_ops, inner);
}

filter *filter_while_new(filter *inner)
{
    return wrap_new(&while_ops, inner);
}
