/*
 * scanner.c - the query matcher and row driver behind Get, Scan and compaction
 * (scanner.h), following HBase 2.x's ScanQueryMatcher family.
 *
 * Reading: the scanner walks rows (row_begin), and inside a row asks match() about each
 * cell of the merged input. match() answers with an action:
 *   A_INCLUDE           keep the cell, then step         (move owed: MOVE_NEXT)
 *   A_INCLUDE_NEXT_COL  keep the cell, then leave column (move owed: MOVE_NEXT_COL)
 *   A_SKIP              step over it
 *   A_NEXT_COL          leave the column: a few next() calls, then a seek past it
 *                       (to the next wanted qualifier or family when columns are explicit)
 *   A_SEEK              seek to s->hint (the next wanted family or qualifier)
 *   A_HINT              move to s->hint (a filter's seek hint): a few next() calls, then
 *                       a seek if it is still ahead
 *   A_NEXT_ROW          the row holds nothing more for us
 * A kept cell is handed out as a view before the iterator moves; the move is owed
 * (s->pending) and done at the next call, so views stay valid meanwhile.
 *
 * Per cell, in the user matcher (HBase order): TTL expiry (unless MIN_VERSIONS) ->
 * family-scope markers (DeleteFamily, DeleteFamilyVersion) -> wanted column ->
 * column markers -> masked by a marker? -> time range -> versions (duplicates of one
 * timestamp and type collapse to the newest) -> filter_cell -> versions after filter.
 * With a filter, versions are counted up to the family's VERSIONS before the filter and
 * up to min(max_versions, VERSIONS) among the cells the filter kept (HBase 2 semantics).
 * A filter's FILTER_SEEK_HINT becomes A_HINT to its hint (filter_seek) when that moves
 * forward without skipping a family's empty-qualifier column: in the current row to a
 * later column of the same family, to the start of a later family, or (forward) to the
 * start of a later row; a reversed scan's hint into an earlier row ends the row and the
 * next one is found with seek_for_prev(hint) instead of the row's first key. Any other
 * hint is answered as a SKIP. Once a row is assembled the filter may remove cells from
 * it (filter_row_cells) before it judges the row (filter_row).
 * Raw scans apply no markers, return them, and count only puts as versions.
 * The major-compaction matcher keeps what a user scan over all time would see plus, with
 * KEEP_DELETED_CELLS, the markers and the cells they mask (still bounded by VERSIONS
 * and TTL). Minor compaction keeps every cell.
 * KEEP_DELETED_CELLS TTL (HBase's KeepDeletedCells.TTL): user scans treat it as TRUE (a
 * time range may see behind any marker, as HBase's seePastDeleteMarkers); a major
 * compaction treats each marker by its age (keeps_marker): one not older than the TTL
 * is kept and masks nothing, as with TRUE; an older one is applied and dropped, as with
 * FALSE, taking the cells it masks along (those MIN_VERSIONS would otherwise keep).
 *
 * Family-scope markers sit in the empty-qualifier column; the scanner never seeks past
 * that column (it steps through it), so such a marker is always seen before the columns
 * it masks. Family state (schema, markers) resets when the family changes; column state
 * (version counts, column markers) when the qualifier changes.
 *
 * Rows: forward from start_row up to stop_row; reversed from start_row (or the last row)
 * down to stop_row, finding each previous row with seek_for_prev(first_on_row(row)) and
 * reading it forward from seek(first_on_row(prev)). A forward scan whose stop_row is
 * row + "\0" (a Get) never looks past its row once the row is done.
 * Thread-safety: one scanner is used by one thread at a time.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/status.h"
#include "regionserver/storage/column_request.h"
#include "regionserver/storage/delete_tracker.h"
#include "regionserver/storage/scanner.h"

/* next() calls tried before seeking when leaving a column or row: a seek re-positions
 * every child of the merged input, which costs more than a few steps. */
#define SKIP_STEPS 8

enum action {
    A_INCLUDE,
    A_INCLUDE_NEXT_COL,
    A_SKIP,
    A_NEXT_COL,
    A_SEEK,
    A_HINT,
    A_NEXT_ROW,
    A_CONT
};
enum move { MOVE_NONE, MOVE_NEXT, MOVE_NEXT_COL };

static const uint8_t empty_bytes[1];

struct scanner {
    kv_iter *in;
    scan_mode mode;
    bool reversed;
    bool raw;
    filter *filter;
    buf_t start;
    buf_t stop;
    int max_versions;
    bool all_time;
    int64_t min_ts;
    int64_t max_ts;
    int64_t limit;
    int batch;
    int64_t now_ms;
    family_schema *schemas;
    size_t *schema_name_len;
    size_t nschemas;
    family_schema default_schema;
    column_request req;
    uint8_t *top_row; /* reversed with an empty start: a row after every real one */

    /* position */
    int err; /* sticky error */
    bool started;
    bool ended;
    bool in_row;   /* s->row is being read */
    bool row_left; /* forward: the input may still be inside s->row */
    int pending;   /* enum move owed after handing out a cell */
    int64_t rows;  /* rows returned, for limit */
    scan_row_counts *counts; /* the spec's, or NULL */
    buf_t row;
    buf_t key; /* scratch seek-key bytes */
    cell_t hint;
    buf_t row_hint_key; /* reversed: a filter's hint into an earlier row (its bytes) */
    cell_t row_hint;    /* ... as a key, pointing into row_hint_key */
    bool has_row_hint;

    /* family scope */
    bool fam_valid;
    buf_t fam;
    const column_family_req *freq; /* explicit qualifiers, or NULL for the whole family */
    size_t qidx;                   /* first wanted qualifier not before the column */
    int64_t oldest;                /* cells with ts below are TTL-expired */
    int maxcheck;                  /* versions looked at (before the filter) */
    int after_filter;              /* versions kept after the filter */
    int min_versions;
    keep_deleted_mode kdc; /* KEEP_DELETED_CELLS */
    delete_tracker dt;     /* the markers that mask (all but those kdc keeps) */

    /* column scope */
    bool col_valid;
    buf_t qual;
    bool col_wanted;
    bool col_skip; /* the rest of the column is unwanted (only the empty qualifier) */
    int count;
    int count_after;
    bool have_last;
    int64_t last_ts;
    uint8_t last_type;

    /* results */
    scan_result carry; /* batch: the first cell of the next part of the row */
    bool has_carry;
    scan_result rowbuf; /* filter + batch: the whole row, handed out in parts */
    size_t rowbuf_pos;
    bool rowbuf_on;
};

/* ------------------------------------------------------------ small helpers */

static bool bytes_eq(const buf_t *b, const uint8_t *p, size_t len)
{
    return b->len == len && (len == 0 || memcmp(b->data, p, len) == 0);
}

static bool in_row(const scanner *s, const cell_t *c)
{
    return bytes_eq(&s->row, c->row, c->row_len);
}

static bool in_column(const scanner *s, const cell_t *c)
{
    return in_row(s, c) && bytes_eq(&s->fam, c->family, c->family_len) &&
           bytes_eq(&s->qual, c->qualifier, c->qualifier_len);
}

static const uint8_t *buf_bytes(const buf_t *b)
{
    return b->data ? b->data : empty_bytes;
}

static int copy_bytes(buf_t *b, const uint8_t *p, size_t len)
{
    if (buf_set(b, len ? p : empty_bytes, len) != ST_OK)
        return st_error(ST_NOMEM, "scanner: no memory for a %zu-byte key", len);
    return ST_OK;
}

static int64_t ttl_cutoff(int64_t now_ms, int64_t ttl_sec)
{
    if (ttl_sec <= 0 || ttl_sec == SCHEMA_TTL_FOREVER || ttl_sec > INT64_MAX / 1000)
        return INT64_MIN;
    int64_t span = ttl_sec * 1000;
    return now_ms < INT64_MIN + span ? INT64_MIN : now_ms - span;
}

/* The key just after every cell of s->row: first_on_row(row + "\0"). */
static cell_t after_row_key(scanner *s, const uint8_t *row, size_t len, int *rc)
{
    *rc = copy_bytes(&s->key, row, len);
    if (*rc == ST_OK && buf_append_u8(&s->key, 0) != ST_OK)
        *rc = st_error(ST_NOMEM, "scanner: no memory for a seek key");
    return cell_first_on_row(buf_bytes(&s->key), s->key.len);
}

/* -------------------------------------------------------- family and column */

static const family_schema *find_schema(const scanner *s, const uint8_t *fam, size_t len)
{
    for (size_t i = 0; i < s->nschemas; i++)
        if (s->schema_name_len[i] == len && memcmp(s->schemas[i].name, fam, len) == 0)
            return &s->schemas[i];
    return &s->default_schema;
}

static void family_params(scanner *s, const family_schema *fs)
{
    int versions = fs->versions > 0 ? fs->versions : 1;
    s->min_versions = fs->min_versions > 0 ? fs->min_versions : 0;
    s->kdc = fs->keep_deleted_cells;
    s->oldest = ttl_cutoff(s->now_ms, fs->ttl_sec);
    s->after_filter = INT_MAX;
    if (s->mode != SCAN_MODE_USER) {
        s->maxcheck = versions;
        return;
    }
    int result =
        s->raw ? s->max_versions : (s->max_versions < versions ? s->max_versions : versions);
    if (s->filter) {
        s->maxcheck = s->raw ? INT_MAX : versions;
        s->after_filter = result;
    } else {
        s->maxcheck = result;
    }
}

/* Sets s->hint to the start of the next wanted family; false if there is none. */
static bool next_family_target(scanner *s)
{
    const column_family_req *f = column_request_next_family(&s->req, s->fam.data, s->fam.len);
    if (!f)
        return false;
    s->hint = cell_first_on_column(buf_bytes(&s->row), s->row.len, f->name.p, f->name.len,
                                   empty_bytes, 0);
    return true;
}

/* Sets s->hint just past the current column (to the next wanted one when the
 * qualifiers are explicit); false if nothing more of the row is wanted. */
static bool next_column_target(scanner *s)
{
    if (s->freq) {
        size_t i = s->col_wanted ? s->qidx + 1 : s->qidx;
        if (i >= s->freq->nquals)
            return next_family_target(s);
        s->hint = cell_first_on_column(buf_bytes(&s->row), s->row.len, s->fam.data, s->fam.len,
                                       s->freq->quals[i].p, s->freq->quals[i].len);
        return true;
    }
    s->hint = cell_last_on_column(buf_bytes(&s->row), s->row.len, s->fam.data, s->fam.len,
                                  buf_bytes(&s->qual), s->qual.len);
    return true;
}

static int enter_family(scanner *s, const cell_t *c)
{
    int rc = copy_bytes(&s->fam, c->family, c->family_len);
    if (rc != ST_OK)
        return rc;
    s->fam_valid = true;
    s->col_valid = false;
    s->freq = NULL;
    s->qidx = 0;
    delete_tracker_reset_family(&s->dt);
    if (s->mode == SCAN_MODE_USER && s->req.nfams) {
        const column_family_req *f = column_request_find(&s->req, c->family, c->family_len);
        if (!f) {
            s->fam_valid = false;
            return next_family_target(s) ? A_SEEK : A_NEXT_ROW;
        }
        s->freq = f->whole ? NULL : f;
    }
    family_params(s, find_schema(s, c->family, c->family_len));
    return A_CONT;
}

static int enter_column(scanner *s, const cell_t *c)
{
    int rc = copy_bytes(&s->qual, c->qualifier, c->qualifier_len);
    if (rc != ST_OK)
        return rc;
    s->col_valid = true;
    s->col_skip = false;
    s->col_wanted = true;
    s->count = 0;
    s->count_after = 0;
    s->have_last = false;
    delete_tracker_reset_column(&s->dt);
    if (s->freq) {
        s->qidx = column_request_seek_qual(s->freq, s->qidx, c->qualifier, c->qualifier_len);
        s->col_wanted = s->qidx < s->freq->nquals &&
                        column_bytes_compare(s->freq->quals[s->qidx].p, s->freq->quals[s->qidx].len,
                                             c->qualifier, c->qualifier_len) == 0;
    }
    return A_CONT;
}

/* ------------------------------------------------------------------ matcher */

static bool is_family_marker(uint8_t type)
{
    return type == CELL_TYPE_DELETE_FAMILY || type == CELL_TYPE_DELETE_FAMILY_VERSION;
}

/* HBase: with KEEP_DELETED_CELLS (TRUE or TTL) only markers inside the time range apply
 * (a scan ending before a delete sees what it deleted); otherwise any marker not older
 * than the range. */
static bool marker_applies(const scanner *s, int64_t ts)
{
    if (s->all_time)
        return true;
    if (s->kdc != KEEP_DELETED_FALSE)
        return ts >= s->min_ts && ts < s->max_ts;
    return ts >= s->min_ts;
}

/* Major compaction: whether a marker at ts is kept (and masks nothing) rather than
 * applied and dropped. TRUE keeps every marker, TTL those not older than the family's
 * TTL (ts >= now - TTL; HBase's trackDelete and tryDropDelete), FALSE none. */
static bool keeps_marker(const scanner *s, int64_t ts)
{
    return s->kdc == KEEP_DELETED_TRUE || (s->kdc == KEEP_DELETED_TTL && ts >= s->oldest);
}

static int track_marker(scanner *s, const cell_t *c)
{
    int rc = delete_tracker_add(&s->dt, c->type, c->ts);
    return rc == ST_OK ? A_SKIP : rc;
}

static int check_deleted(scanner *s, const cell_t *c)
{
    if (delete_tracker_empty(&s->dt))
        return A_CONT;
    switch (delete_tracker_check(&s->dt, c->ts)) {
    case DELETE_COLUMN:
        return A_NEXT_COL;
    case DELETE_VERSION:
        return A_SKIP;
    default:
        return A_CONT;
    }
}

static int check_versions(scanner *s, const cell_t *c, bool is_delete)
{
    if (s->have_last && c->ts == s->last_ts && c->type == s->last_type)
        return A_SKIP; /* an older write of the same version */
    if (!is_delete)
        s->count++;
    if (s->count > s->maxcheck)
        return A_NEXT_COL;
    if (s->count > s->min_versions && c->ts < s->oldest)
        return A_NEXT_COL;
    s->have_last = true;
    s->last_ts = c->ts;
    s->last_type = c->type;
    return A_INCLUDE;
}

/* Keeps a reversed scan's hint into an earlier row for row_begin_reversed. */
static int keep_row_hint(scanner *s, const cell_t *h)
{
    buf_reset(&s->row_hint_key);
    if (buf_append(&s->row_hint_key, h->row, h->row_len) != ST_OK ||
        buf_append(&s->row_hint_key, h->family, h->family_len) != ST_OK ||
        buf_append(&s->row_hint_key, h->qualifier, h->qualifier_len) != ST_OK)
        return st_error(ST_NOMEM, "scanner: no memory for a filter's seek hint");
    const uint8_t *b = buf_bytes(&s->row_hint_key);
    s->row_hint = *h;
    s->row_hint.row = b;
    s->row_hint.family = b + h->row_len;
    s->row_hint.qualifier = b + h->row_len + h->family_len;
    s->has_row_hint = true;
    return A_NEXT_ROW;
}

/* The action for a filter's FILTER_SEEK_HINT on c (`a` the action before the filter):
 * A_HINT to the hint (in s->hint), A_NEXT_ROW with a reversed row hint kept, or what a
 * SKIP would give when the hint cannot be honoured (scanner.c head). */
static int filter_seek(scanner *s, const cell_t *c, int a)
{
    int as_skip = a == A_INCLUDE ? A_SKIP : A_NEXT_COL;
    cell_t h;
    if (!filter_next_hint(s->filter, &h))
        return as_skip;
    int rows = cell_compare_rows(h.row, h.row_len, c->row, c->row_len);
    if (rows != 0) {
        if (s->reversed != (rows < 0))
            return as_skip; /* a hint against the scan's direction */
        if (s->reversed)
            return keep_row_hint(s, &h);
        s->hint = cell_first_on_row(h.row, h.row_len);
        return A_HINT;
    }
    if (s->reversed && h.family_len == 0)
        return A_NEXT_ROW; /* "the rows before this one" */
    if (cell_compare(&h, c) <= 0)
        return as_skip;
    if (h.family_len == c->family_len && memcmp(h.family, c->family, c->family_len) == 0) {
        if (c->qualifier_len == 0)
            return as_skip; /* family markers may follow in the empty-qualifier column */
        s->hint = h;
        return A_HINT;
    }
    /* the start of a later family; c's bytes may go away once the input moves */
    s->hint = cell_first_on_column(buf_bytes(&s->row), s->row.len, h.family, h.family_len,
                                   empty_bytes, 0);
    return A_HINT;
}

static int apply_filter(scanner *s, const cell_t *c, int a)
{
    switch (filter_cell(s->filter, c)) {
    case FILTER_SKIP:
        return a == A_INCLUDE ? A_SKIP : A_NEXT_COL;
    case FILTER_SEEK_HINT:
        return filter_seek(s, c, a);
    case FILTER_NEXT_COL:
        return A_NEXT_COL;
    case FILTER_NEXT_ROW:
        return A_NEXT_ROW;
    default:
        break;
    }
    /* Both INCLUDE and INCLUDE_NEXT_COL keep a version: count it. */
    if ((a == A_INCLUDE || a == A_INCLUDE_NEXT_COL) && ++s->count_after > s->after_filter)
        return A_NEXT_COL;
    return a;
}

static int match_user(scanner *s, const cell_t *c)
{
    bool del = cell_is_delete(c->type);
    if (c->ts < s->oldest && s->min_versions == 0)
        return A_NEXT_COL;
    if (del && !s->raw && is_family_marker(c->type))
        return marker_applies(s, c->ts) ? track_marker(s, c) : A_SKIP;
    if (!s->col_wanted)
        return s->qual.len ? A_NEXT_COL : A_SKIP;
    if (s->col_skip)
        return A_SKIP;
    if (del && !s->raw)
        return marker_applies(s, c->ts) ? track_marker(s, c) : A_SKIP;
    int a = s->raw ? A_CONT : check_deleted(s, c);
    if (a != A_CONT)
        return a;
    if (!s->all_time) {
        if (c->ts >= s->max_ts)
            return A_SKIP;
        if (c->ts < s->min_ts)
            return A_NEXT_COL;
    }
    a = check_versions(s, c, del);
    if (a != A_INCLUDE)
        return a;
    if (!s->raw && s->count == s->maxcheck)
        a = A_INCLUDE_NEXT_COL;
    return s->filter ? apply_filter(s, c, a) : a;
}

static int match_major(scanner *s, const cell_t *c)
{
    bool del = cell_is_delete(c->type);
    if (c->ts < s->oldest && s->min_versions == 0)
        return A_NEXT_COL;
    if (del && !keeps_marker(s, c->ts))
        return track_marker(s, c); /* applied, then dropped */
    /* A kept family-wide marker stays whatever the version count of the empty-qualifier
     * column it sits in: it masks every column of the family. */
    if (del && is_family_marker(c->type))
        return A_INCLUDE;
    if (s->col_skip)
        return A_SKIP;
    if (!del) { /* only the markers not kept are tracked: none with TRUE */
        int a = check_deleted(s, c);
        if (a != A_CONT)
            return a;
    }
    return check_versions(s, c, del);
}

/* Returns an action, or a negative status. */
static int match(scanner *s, const cell_t *c)
{
    if (s->mode == SCAN_MODE_COMPACT_MINOR)
        return A_INCLUDE;
    int a = A_CONT;
    if (!s->fam_valid || !bytes_eq(&s->fam, c->family, c->family_len)) {
        a = enter_family(s, c);
        if (a == A_CONT)
            a = enter_column(s, c);
    } else if (!s->col_valid || !bytes_eq(&s->qual, c->qualifier, c->qualifier_len)) {
        a = enter_column(s, c);
    }
    if (a != A_CONT)
        return a;
    return s->mode == SCAN_MODE_USER ? match_user(s, c) : match_major(s, c);
}

/* ---------------------------------------------------------------- movement */

/* Leaves the current column. Returns 1 when nothing more of the row is wanted. */
static int skip_column(scanner *s)
{
    if (s->qual.len == 0) {
        /* never seek past the empty qualifier: family markers live there */
        s->col_skip = true;
        kv_iter_next(s->in);
        return 0;
    }
    if (!next_column_target(s))
        return 1;
    for (int i = 0; i < SKIP_STEPS; i++) {
        kv_iter_next(s->in);
        if (!kv_iter_valid(s->in) || !in_column(s, kv_iter_cell(s->in)))
            return 0;
    }
    kv_iter_seek(s->in, &s->hint); /* still set: the stepped-over cells were not matched */
    return 0;
}

/* Moves the input to the first cell at or after s->hint (a filter's, ahead of it). */
static void skip_to_hint(scanner *s)
{
    for (int i = 0; i < SKIP_STEPS; i++) {
        kv_iter_next(s->in);
        if (!kv_iter_valid(s->in) || cell_compare(kv_iter_cell(s->in), &s->hint) >= 0)
            return;
    }
    kv_iter_seek(s->in, &s->hint);
}

/* Forward: moves the input past s->row. */
static int skip_row(scanner *s)
{
    for (int i = 0; i < SKIP_STEPS; i++) {
        if (!kv_iter_valid(s->in) || !in_row(s, kv_iter_cell(s->in)))
            return ST_OK;
        kv_iter_next(s->in);
    }
    if (!kv_iter_valid(s->in) || !in_row(s, kv_iter_cell(s->in)))
        return ST_OK;
    int rc = ST_OK;
    cell_t key = after_row_key(s, s->row.data, s->row.len, &rc);
    if (rc == ST_OK)
        kv_iter_seek(s->in, &key);
    return rc;
}

static int input_end(const scanner *s)
{
    int rc = kv_iter_status(s->in);
    return rc < 0 ? rc : 0;
}

/* 1 with *out the next kept cell of the row (a view valid until the next call), 0 when
 * the row is over, negative on error. */
static int next_in_row(scanner *s, cell_t *out)
{
    int owed = s->pending;
    s->pending = MOVE_NONE;
    if (owed == MOVE_NEXT) {
        kv_iter_next(s->in);
    } else if (owed == MOVE_NEXT_COL && skip_column(s) == 1) {
        s->row_left = true;
        return 0;
    }
    for (;;) {
        if (!kv_iter_valid(s->in))
            return input_end(s);
        const cell_t *c = kv_iter_cell(s->in);
        if (!in_row(s, c))
            return 0;
        int a = match(s, c);
        switch (a) {
        case A_INCLUDE:
        case A_INCLUDE_NEXT_COL:
            *out = *c;
            s->pending = a == A_INCLUDE ? MOVE_NEXT : MOVE_NEXT_COL;
            return 1;
        case A_SKIP:
            kv_iter_next(s->in);
            break;
        case A_SEEK:
            kv_iter_seek(s->in, &s->hint);
            break;
        case A_HINT:
            skip_to_hint(s);
            break;
        case A_NEXT_COL:
            if (skip_column(s) == 1) {
                s->row_left = true;
                return 0;
            }
            break;
        case A_NEXT_ROW:
            s->row_left = true;
            return 0;
        default:
            return a < 0 ? a : st_error(ST_INTERNAL, "scanner: bad action %d", a);
        }
    }
}

/* ---------------------------------------------------------------------- rows */

static int set_row(scanner *s, const cell_t *c)
{
    int rc = copy_bytes(&s->row, c->row, c->row_len);
    s->fam_valid = false;
    s->col_valid = false;
    s->pending = MOVE_NONE;
    s->row_left = false;
    delete_tracker_reset_family(&s->dt);
    return rc;
}

static bool stop_is_next_row(const scanner *s)
{
    return s->stop.len == s->row.len + 1 && s->stop.data[s->row.len] == 0 &&
           memcmp(s->stop.data, buf_bytes(&s->row), s->row.len) == 0;
}

static int row_begin_forward(scanner *s)
{
    int rc = ST_OK;
    if (!s->started) {
        s->started = true;
        if (s->start.len) {
            cell_t key = cell_first_on_row(s->start.data, s->start.len);
            kv_iter_seek(s->in, &key);
        } else {
            kv_iter_seek_to_first(s->in);
        }
    } else if (s->row_left) {
        s->row_left = false;
        if (stop_is_next_row(s))
            return 0; /* a Get: no other row can qualify, do not look */
        if ((rc = skip_row(s)) != ST_OK)
            return rc;
    }
    if (!kv_iter_valid(s->in))
        return input_end(s);
    const cell_t *c = kv_iter_cell(s->in);
    if (s->stop.len && cell_compare_rows(c->row, c->row_len, s->stop.data, s->stop.len) >= 0)
        return 0;
    rc = set_row(s, c);
    return rc == ST_OK ? 1 : rc;
}

static int row_begin_reversed(scanner *s)
{
    int rc = ST_OK;
    cell_t key;
    if (!s->started) {
        s->started = true;
        if (s->start.len)
            key = after_row_key(s, s->start.data, s->start.len, &rc);
        else
            key = cell_first_on_row(s->top_row, CELL_MAX_ROW_LEN + 1);
    } else if (s->has_row_hint) {
        s->has_row_hint = false;
        key = s->row_hint; /* before the current row (filter_seek) */
    } else {
        key = cell_first_on_row(buf_bytes(&s->row), s->row.len);
    }
    if (rc != ST_OK)
        return rc;
    kv_iter_seek_for_prev(s->in, &key);
    if (!kv_iter_valid(s->in))
        return input_end(s);
    const cell_t *c = kv_iter_cell(s->in);
    if (s->stop.len && cell_compare_rows(c->row, c->row_len, s->stop.data, s->stop.len) <= 0)
        return 0;
    if ((rc = set_row(s, c)) != ST_OK)
        return rc;
    key = cell_first_on_row(s->row.data, s->row.len);
    kv_iter_seek(s->in, &key);
    if (!kv_iter_valid(s->in))
        return input_end(s);
    return 1;
}

/* 1 with a new row in s->row (input on its first cell), 0 at the end, <0 on error. */
static int row_begin(scanner *s)
{
    return s->reversed ? row_begin_reversed(s) : row_begin_forward(s);
}

/* ------------------------------------------------------------------ results */

static int emit_rowbuf(scanner *s, scan_result *out)
{
    size_t left = s->rowbuf.ncells - s->rowbuf_pos;
    size_t n = (size_t)s->batch < left ? (size_t)s->batch : left;
    for (size_t i = 0; i < n; i++) {
        int rc = scan_result_add(out, &s->rowbuf.cells[s->rowbuf_pos + i]);
        if (rc != ST_OK)
            return rc;
    }
    s->rowbuf_pos += n;
    out->partial = s->rowbuf_pos < s->rowbuf.ncells;
    if (!out->partial) {
        s->rowbuf_on = false;
        scan_result_clear(&s->rowbuf);
    }
    return 1;
}

/* 1 with a new row started, 2 when the row was skipped by its key, 0 at the end. */
static int start_row(scanner *s)
{
    if (s->limit > 0 && s->rows >= s->limit)
        return 0;
    if (s->filter && filter_all_remaining(s->filter))
        return 0;
    int rc = row_begin(s);
    if (rc <= 0)
        return rc;
    s->in_row = true;
    if (s->filter) {
        filter_reset(s->filter);
        if (filter_row_key(s->filter, s->row.data, s->row.len)) {
            s->in_row = false;
            s->row_left = true;
            return 2;
        }
    }
    return 1;
}

static int stash_carry(scanner *s, const cell_t *c, scan_result *out)
{
    scan_result_clear(&s->carry);
    int rc = scan_result_add(&s->carry, c);
    if (rc != ST_OK)
        return rc;
    s->has_carry = true;
    out->partial = true;
    return 1;
}

/* Reads the rest of the current row into out (or s->rowbuf). 1: a result is ready;
 * 0: the row gave nothing, go on; negative: error. */
static int fill_row(scanner *s, scan_result *out)
{
    bool buffered = s->filter && s->batch > 0;
    bool streamed = s->batch > 0 && !s->filter;
    scan_result *dst = buffered ? &s->rowbuf : out;
    cell_t c;
    int rc;
    while ((rc = next_in_row(s, &c)) == 1) {
        if (s->filter && s->mode == SCAN_MODE_USER)
            filter_transform_cell(s->filter, &c);
        if (streamed && out->ncells == (size_t)s->batch)
            return stash_carry(s, &c, out);
        if ((rc = scan_result_add(dst, &c)) != ST_OK)
            return rc;
    }
    if (rc < 0)
        return rc;
    s->in_row = false;
    if (s->filter && dst->ncells) {
        dst->ncells = filter_row_cells(s->filter, dst->cells, dst->ncells);
        if (filter_row(s->filter, dst->cells, dst->ncells))
            scan_result_clear(dst);
    }
    if (dst->ncells == 0)
        return 0;
    if (buffered) {
        s->rowbuf_on = true;
        s->rowbuf_pos = 0;
        return emit_rowbuf(s, out);
    }
    return 1;
}

/* HBase's ROWS_SCANNED and ROWS_FILTERED: every row begun, and those skipped by key. */
static void count_row(scanner *s, bool filtered)
{
    if (!s->counts)
        return;
    s->counts->scanned++;
    if (filtered)
        s->counts->filtered++;
}

static int next_result(scanner *s, scan_result *out)
{
    if (s->rowbuf_on)
        return emit_rowbuf(s, out);
    if (s->has_carry) {
        s->has_carry = false;
        int rc = scan_result_add(out, &s->carry.cells[0]);
        if (rc != ST_OK)
            return rc;
    }
    for (;;) {
        if (!s->in_row) {
            if (s->ended)
                return 0;
            int rc = start_row(s);
            if (rc <= 0) {
                s->ended = true;
                return rc;
            }
            count_row(s, rc == 2);
            if (rc == 2)
                continue;
        }
        bool continuing = out->ncells > 0; /* a row already counted (batch) */
        int rc = fill_row(s, out);
        if (rc == 1 && !continuing)
            s->rows++;
        if (rc == 0 && s->counts)
            s->counts->filtered++; /* nothing of the row was left */
        if (rc != 0)
            return rc;
    }
}

int scanner_next(scanner *s, scan_result *out)
{
    scan_result_clear(out);
    if (s->err)
        return s->err;
    int rc = next_result(s, out);
    if (rc < 0) {
        s->err = rc;
        scan_result_clear(out);
    }
    return rc;
}

/* Minor compaction: the input as it is. */
static int next_plain_cell(scanner *s, cell_t *out)
{
    if (!s->started) {
        s->started = true;
        cell_t key = cell_first_on_row(s->start.data, s->start.len);
        if (s->start.len)
            kv_iter_seek(s->in, &key);
        else
            kv_iter_seek_to_first(s->in);
    } else {
        kv_iter_next(s->in);
    }
    if (!kv_iter_valid(s->in))
        return input_end(s);
    *out = *kv_iter_cell(s->in);
    if (s->stop.len && cell_compare_rows(out->row, out->row_len, s->stop.data, s->stop.len) >= 0)
        return 0;
    return 1;
}

static int next_kept_cell(scanner *s, cell_t *out)
{
    if (s->mode == SCAN_MODE_COMPACT_MINOR)
        return next_plain_cell(s, out);
    for (;;) {
        if (!s->in_row) {
            if (s->ended)
                return 0;
            int rc = row_begin(s);
            if (rc <= 0) {
                s->ended = true;
                return rc;
            }
            s->in_row = true;
        }
        int rc = next_in_row(s, out);
        if (rc != 0)
            return rc;
        s->in_row = false;
    }
}

int scanner_next_cell(scanner *s, cell_t *out)
{
    if (s->err)
        return s->err;
    if (s->mode == SCAN_MODE_USER)
        return st_error(ST_INVALID_ARGUMENT, "scanner_next_cell is for compaction scanners");
    int rc = s->ended ? 0 : next_kept_cell(s, out);
    if (rc < 0)
        s->err = rc;
    if (rc == 0)
        s->ended = true;
    return rc;
}

/* ---------------------------------------------------------------- lifecycle */

static int copy_schemas(scanner *s, const family_schema *families, size_t n)
{
    family_schema_init(&s->default_schema, "");
    if (n == 0)
        return ST_OK;
    s->schemas = calloc(n, sizeof(*s->schemas));
    s->schema_name_len = calloc(n, sizeof(*s->schema_name_len));
    if (!s->schemas || !s->schema_name_len)
        return st_error(ST_NOMEM, "scanner: no memory for %zu families", n);
    memcpy(s->schemas, families, n * sizeof(*families));
    for (size_t i = 0; i < n; i++)
        s->schema_name_len[i] = strnlen(s->schemas[i].name, sizeof(s->schemas[i].name));
    s->nschemas = n;
    return ST_OK;
}

static int copy_spec(scanner *s, const scan_spec *spec)
{
    s->mode = spec->mode;
    bool user = spec->mode == SCAN_MODE_USER;
    s->reversed = user && spec->reversed;
    s->raw = user && spec->raw;
    s->filter = user ? spec->filter : NULL;
    if (s->filter)
        filter_set_reversed(s->filter, s->reversed);
    s->max_versions = spec->max_versions > 0 ? spec->max_versions : 1;
    s->min_ts = spec->min_ts;
    s->max_ts = spec->max_ts > 0 ? spec->max_ts : INT64_MAX;
    s->all_time = !user || (spec->min_ts == 0 && spec->max_ts == 0);
    s->limit = user && spec->limit > 0 ? spec->limit : 0;
    s->counts = user ? spec->counts : NULL;
    s->batch = user && spec->batch > 0 ? spec->batch : 0;
    int rc = ST_OK;
    if (buf_set(&s->start, spec->start_row, spec->start_row_len) != ST_OK ||
        buf_set(&s->stop, spec->stop_row, spec->stop_row_len) != ST_OK)
        return st_error(ST_NOMEM, "scanner: no memory for the scan bounds");
    if (user)
        rc = column_request_build(&s->req, spec->columns, spec->ncolumns);
    if (rc == ST_OK && s->reversed && s->start.len == 0) {
        s->top_row = malloc(CELL_MAX_ROW_LEN + 1);
        if (!s->top_row)
            return st_error(ST_NOMEM, "scanner: no memory for a reversed scan");
        memset(s->top_row, 0xFF, CELL_MAX_ROW_LEN + 1);
    }
    return rc;
}

int scanner_new(kv_iter *input, const family_schema *families, size_t nfamilies,
                const scan_spec *spec, int64_t now_ms, scanner **out)
{
    *out = NULL;
    scan_spec dflt = {0};
    scanner *s = calloc(1, sizeof(*s));
    if (!s) {
        kv_iter_destroy(input);
        return st_error(ST_NOMEM, "scanner: no memory");
    }
    s->in = input;
    s->now_ms = now_ms;
    delete_tracker_init(&s->dt);
    scan_result_init(&s->carry);
    scan_result_init(&s->rowbuf);
    int rc = input ? ST_OK : st_error(ST_INVALID_ARGUMENT, "scanner: no input");
    if (rc == ST_OK)
        rc = copy_schemas(s, families, nfamilies);
    if (rc == ST_OK)
        rc = copy_spec(s, spec ? spec : &dflt);
    if (rc != ST_OK) {
        LOG_DEBUG("scanner_new failed: %s", st_errmsg());
        scanner_free(s);
        return rc;
    }
    *out = s;
    return ST_OK;
}

void scanner_free(scanner *s)
{
    if (!s)
        return;
    kv_iter_destroy(s->in);
    free(s->schemas);
    free(s->schema_name_len);
    column_request_free(&s->req);
    free(s->top_row);
    buf_free(&s->start);
    buf_free(&s->stop);
    buf_free(&s->row);
    buf_free(&s->key);
    buf_free(&s->row_hint_key);
    buf_free(&s->fam);
    buf_free(&s->qual);
    delete_tracker_free(&s->dt);
    scan_result_free(&s->carry);
    scan_result_free(&s->rowbuf);
    free(s);
}
