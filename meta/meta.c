/*
 * meta.c - the meta table's lifecycle (open the meta region on the master's engine,
 * seed the meta clock, make sure the system namespaces exist; close with a flush) and
 * its region rows (docs/formats/meta.md): encoding a meta_region into the info family
 * and back, writing, deleting, listing and finding them.
 *
 * Thread-safety: see meta_internal.h (writers under write_mu, readers lock-free).
 */
#include "meta/meta_internal.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "common/log.h"
#include "common/proto/master.pb-c.h"
#include "common/status.h"
#include "regionserver/storage/layout.h"

/* ---------------------------------------------------------------- meta_region */

void meta_region_clear(meta_region *r)
{
    if (!r)
        return;
    free(r->start_key);
    free(r->end_key);
    memset(r, 0, sizeof(*r));
}

void meta_regions_free(meta_region *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        meta_region_clear(&v[i]);
    free(v);
}

static int dup_key(const uint8_t *k, size_t len, uint8_t **out)
{
    *out = NULL;
    if (!k || len == 0)
        return ST_OK;
    *out = malloc(len);
    if (!*out)
        return ST_NOMEM;
    memcpy(*out, k, len);
    return ST_OK;
}

int meta_region_set_keys(meta_region *r, const uint8_t *start, size_t start_len, const uint8_t *end,
                         size_t end_len)
{
    uint8_t *s = NULL, *e = NULL;
    if (dup_key(start, start_len, &s) != ST_OK || dup_key(end, end_len, &e) != ST_OK) {
        free(s);
        return ST_NOMEM;
    }
    free(r->start_key);
    free(r->end_key);
    r->start_key = s;
    r->start_len = s ? start_len : 0;
    r->end_key = e;
    r->end_len = e ? end_len : 0;
    return ST_OK;
}

int meta_region_copy(meta_region *dst, const meta_region *src)
{
    *dst = *src;
    dst->start_key = dst->end_key = NULL;
    dst->start_len = dst->end_len = 0;
    int rc = meta_region_set_keys(dst, src->start_key, src->start_len, src->end_key, src->end_len);
    if (rc != ST_OK)
        memset(dst, 0, sizeof(*dst));
    return rc;
}

/* ---------------------------------------------------------------- validation */

int meta_check_table_name(const char *table)
{
    if (!table || !strchr(table, ':') || strlen(table) >= sizeof(((meta_region *)0)->table))
        return st_error(ST_INVALID_ARGUMENT, "meta: table name '%s' is not \"ns:table\"",
                        table ? table : "(null)");
    char *ns = NULL, *q = NULL;
    int rc = layout_split_table_name(table, &ns, &q);
    free(ns);
    free(q);
    return rc;
}

int meta_check_namespace(const char *ns)
{
    if (!ns || strlen(ns) >= sizeof(((meta_region *)0)->table))
        return st_error(ST_INVALID_ARGUMENT, "meta: namespace name too long or missing");
    int rc = layout_validate_name_part(ns);
    if (rc != ST_OK)
        return st_error(rc, "meta: invalid namespace name '%s'", ns);
    return ST_OK;
}

static int cmp_key(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    return cell_compare_rows(a, alen, b, blen);
}

static int cmp_region_ptr(const void *a, const void *b)
{
    const meta_region *x = *(const meta_region *const *)a;
    const meta_region *y = *(const meta_region *const *)b;
    int c = cmp_key(x->start_key, x->start_len, y->start_key, y->start_len);
    if (c)
        return c;
    return x->region_id < y->region_id ? -1 : x->region_id > y->region_id;
}

static int cmp_region(const void *a, const void *b)
{
    const meta_region *x = a, *y = b;
    return cmp_region_ptr(&x, &y);
}

static int check_tiling(const char *table, const meta_region **s, size_t n)
{
    if (s[0]->start_len)
        return st_error(ST_INVALID_ARGUMENT, "meta: the first region of %s has a start key", table);
    if (s[n - 1]->end_len)
        return st_error(ST_INVALID_ARGUMENT, "meta: the last region of %s has an end key", table);
    for (size_t i = 0; i + 1 < n; i++)
        if (cmp_key(s[i]->end_key, s[i]->end_len, s[i + 1]->start_key, s[i + 1]->start_len) != 0 ||
            s[i + 1]->start_len == 0)
            return st_error(ST_INVALID_ARGUMENT,
                            "meta: regions %s and %s of %s do not meet (a hole or an overlap)",
                            s[i]->encoded_name, s[i + 1]->encoded_name, table);
    return ST_OK;
}

int meta_check_region_set(const char *table, const meta_region *v, size_t n)
{
    if (n == 0)
        return st_error(ST_INVALID_ARGUMENT, "meta: table %s needs at least one region", table);
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].table, table) != 0)
            return st_error(ST_INVALID_ARGUMENT, "meta: region %s belongs to %s, not %s",
                            v[i].encoded_name, v[i].table, table);
    const meta_region **s = malloc(n * sizeof(*s));
    if (!s)
        return ST_NOMEM;
    for (size_t i = 0; i < n; i++)
        s[i] = &v[i];
    qsort(s, n, sizeof(*s), cmp_region_ptr);
    int rc = check_tiling(table, s, n);
    free(s);
    return rc;
}

/* ---------------------------------------------------------------- encoding */

/* "host,port,startcode": the last two commas split it; port and start code are
 * decimal. *host_len covers "host". */
static int parse_server(const char *sn, size_t *host_len, unsigned long *port, uint64_t *startcode)
{
    const char *c2 = strrchr(sn, ',');
    const char *c1 = NULL;
    for (const char *p = sn; c2 && p < c2; p++)
        if (*p == ',')
            c1 = p;
    char *end = NULL;
    if (c1 && c1 > sn && c2 > c1 + 1 && c2[1]) {
        *port = strtoul(c1 + 1, &end, 10);
        if (end == c2 && *port > 0 && *port <= 65535) {
            *startcode = strtoull(c2 + 1, &end, 10);
            if (*end == '\0') {
                *host_len = (size_t)(c1 - sn);
                return ST_OK;
            }
        }
    }
    return st_error(ST_INVALID_ARGUMENT, "meta: server '%s' is not \"host,port,startcode\"", sn);
}

static int check_region(const meta_region *r)
{
    int rc = meta_check_table_name(r->table);
    if (rc != ST_OK)
        return rc;
    size_t el = strnlen(r->encoded_name, sizeof(r->encoded_name));
    if (el == 0 || el == sizeof(r->encoded_name))
        return st_error(ST_INVALID_ARGUMENT, "meta: a region of %s has no encoded name", r->table);
    if ((unsigned)r->state > META_FAILED_OPEN)
        return st_error(ST_INVALID_ARGUMENT, "meta: region %s has an unknown state %d",
                        r->encoded_name, (int)r->state);
    if (strnlen(r->server, sizeof(r->server)) == sizeof(r->server))
        return st_error(ST_INVALID_ARGUMENT, "meta: region %s: server name too long",
                        r->encoded_name);
    if (r->nmerged > META_MERGE_MAX || strnlen(r->split_a, sizeof(r->split_a)) == sizeof(r->split_a) ||
        strnlen(r->split_b, sizeof(r->split_b)) == sizeof(r->split_b))
        return st_error(ST_INVALID_ARGUMENT, "meta: region %s: bad split or merge links",
                        r->encoded_name);
    for (size_t i = 0; i < r->nmerged; i++)
        if (!r->merged[i][0] || strnlen(r->merged[i], sizeof(r->merged[i])) == sizeof(r->merged[i]))
            return st_error(ST_INVALID_ARGUMENT, "meta: region %s: bad merge parent %zu",
                            r->encoded_name, i);
    return ST_OK;
}

static uint8_t *pack_regioninfo(const meta_region *r, size_t *len)
{
    Strata__Admin__RegionInfo ri = STRATA__ADMIN__REGION_INFO__INIT;
    ri.table = (char *)r->table;
    ri.encoded_name = (char *)r->encoded_name;
    ri.has_start_key = ri.has_end_key = ri.has_region_id = 1;
    ri.start_key = (ProtobufCBinaryData){r->start_len, r->start_key};
    ri.end_key = (ProtobufCBinaryData){r->end_len, r->end_key};
    ri.region_id = r->region_id;
    Strata__Master__MetaRegionInfo mi = STRATA__MASTER__META_REGION_INFO__INIT;
    mi.region = &ri;
    mi.has_offline = mi.has_split = 1;
    mi.offline = r->offline;
    mi.split = r->split;
    *len = strata__master__meta_region_info__get_packed_size(&mi);
    uint8_t *out = malloc(*len ? *len : 1);
    if (out)
        strata__master__meta_region_info__pack(&mi, out);
    return out;
}

static void put_server(meta_batch *b, const meta_region *r, size_t host_len, unsigned long port,
                       uint64_t startcode)
{
    char addr[sizeof(r->server) + 8];
    int n = snprintf(addr, sizeof(addr), "%.*s:%lu", (int)host_len, r->server, port);
    uint8_t sc[8];
    be64_put(sc, startcode);
    meta_batch_put(b, META_FAM_INFO, META_Q_SERVER, addr, (size_t)n);
    meta_batch_put(b, META_FAM_INFO, META_Q_STARTCODE, sc, sizeof(sc));
    meta_batch_put(b, META_FAM_INFO, META_Q_SN, r->server, strlen(r->server));
}

int meta_batch_region(meta_batch *b, const meta_region *r)
{
    int rc = check_region(r);
    size_t host_len = 0;
    unsigned long port = 0;
    uint64_t startcode = 0;
    if (rc == ST_OK && r->server[0])
        rc = parse_server(r->server, &host_len, &port, &startcode);
    if (rc != ST_OK)
        return rc;
    size_t row_len = 0, info_len = 0;
    uint8_t *row = meta_region_row(r->table, r->start_key, r->start_len, r->region_id, &row_len);
    uint8_t *info = row ? pack_regioninfo(r, &info_len) : NULL;
    if (!row || !info) {
        free(row);
        return ST_NOMEM;
    }
    const char *state = meta_region_state_name(r->state);
    uint8_t seq[8];
    be64_put(seq, r->seqnum);
    char failures[16];
    int flen = snprintf(failures, sizeof(failures), "%d", r->failures);
    meta_batch_row(b, row, row_len);
    meta_batch_put(b, META_FAM_INFO, META_Q_REGIONINFO, info, info_len);
    meta_batch_put(b, META_FAM_INFO, META_Q_STATE, state, strlen(state));
    meta_batch_put(b, META_FAM_INFO, META_Q_SEQNUM, seq, sizeof(seq));
    meta_batch_put(b, META_FAM_INFO, META_Q_FAILURES, failures, (size_t)flen);
    const char *links[2] = {r->split_a, r->split_b};
    const char *link_q[2] = {META_Q_SPLIT_A, META_Q_SPLIT_B};
    for (int i = 0; i < 2; i++) {
        if (links[i][0])
            meta_batch_put(b, META_FAM_INFO, link_q[i], links[i], strlen(links[i]));
        else
            meta_batch_delete_column(b, META_FAM_INFO, link_q[i]);
    }
    for (unsigned i = 0; i < META_MERGE_MAX; i++) {
        static const char *const mq[META_MERGE_MAX] = {"merge0000", "merge0001", "merge0002",
                                                       "merge0003", "merge0004", "merge0005",
                                                       "merge0006", "merge0007"};
        if (i < r->nmerged)
            meta_batch_put(b, META_FAM_INFO, mq[i], r->merged[i], strlen(r->merged[i]));
        else
            meta_batch_delete_column(b, META_FAM_INFO, mq[i]);
    }
    if (r->server[0]) {
        put_server(b, r, host_len, port, startcode);
    } else {
        meta_batch_delete_column(b, META_FAM_INFO, META_Q_SERVER);
        meta_batch_delete_column(b, META_FAM_INFO, META_Q_STARTCODE);
        meta_batch_delete_column(b, META_FAM_INFO, META_Q_SN);
    }
    free(row);
    free(info);
    return b->rc;
}

/* ---------------------------------------------------------------- decoding */

static int corrupt(const cell_t *c, const char *what)
{
    return st_error(ST_CORRUPTION, "meta: row '%.*s' has a bad %s", (int)c->row_len,
                    (const char *)c->row, what);
}

static int decode_regioninfo(const cell_t *c, meta_region *r)
{
    Strata__Master__MetaRegionInfo *mi =
        strata__master__meta_region_info__unpack(NULL, c->value_len, c->value);
    int rc = ST_OK;
    if (!mi || !mi->region || strlen(mi->region->table) >= sizeof(r->table) ||
        strlen(mi->region->encoded_name) >= sizeof(r->encoded_name))
        rc = corrupt(c, "info:regioninfo");
    if (rc == ST_OK) {
        const Strata__Admin__RegionInfo *ri = mi->region;
        snprintf(r->table, sizeof(r->table), "%s", ri->table);
        snprintf(r->encoded_name, sizeof(r->encoded_name), "%s", ri->encoded_name);
        r->region_id = ri->region_id;
        r->offline = mi->offline;
        r->split = mi->split;
        rc = meta_region_set_keys(r, ri->has_start_key ? ri->start_key.data : NULL,
                                  ri->start_key.len, ri->has_end_key ? ri->end_key.data : NULL,
                                  ri->end_key.len);
    }
    if (mi)
        strata__master__meta_region_info__free_unpacked(mi, NULL);
    return rc;
}

static int decode_text(const cell_t *c, char *buf, size_t cap)
{
    if (c->value_len >= cap)
        return corrupt(c, "text column");
    memcpy(buf, c->value, c->value_len);
    buf[c->value_len] = '\0';
    return ST_OK;
}

static int decode_column(const cell_t *c, meta_region *r, bool *have_info)
{
    char text[32];
    if (meta_cell_is(c, META_FAM_INFO, META_Q_REGIONINFO)) {
        *have_info = true;
        return decode_regioninfo(c, r);
    }
    if (meta_cell_is(c, META_FAM_INFO, META_Q_STATE)) {
        if (decode_text(c, text, sizeof(text)) != ST_OK ||
            meta_region_state_parse(text, &r->state) != ST_OK)
            return corrupt(c, "info:state");
    } else if (meta_cell_is(c, META_FAM_INFO, META_Q_SN)) {
        return decode_text(c, r->server, sizeof(r->server));
    } else if (meta_cell_is(c, META_FAM_INFO, META_Q_SPLIT_A)) {
        return decode_text(c, r->split_a, sizeof(r->split_a));
    } else if (meta_cell_is(c, META_FAM_INFO, META_Q_SPLIT_B)) {
        return decode_text(c, r->split_b, sizeof(r->split_b));
    } else if (c->family_len == strlen(META_FAM_INFO) && c->qualifier_len == 9 &&
               memcmp(c->family, META_FAM_INFO, c->family_len) == 0 &&
               memcmp(c->qualifier, "merge", 5) == 0) {
        unsigned idx = 0;
        for (size_t k = 5; k < 9; k++) {
            if (c->qualifier[k] < '0' || c->qualifier[k] > '9')
                return corrupt(c, "info:mergeNNNN qualifier");
            idx = idx * 10 + (unsigned)(c->qualifier[k] - '0');
        }
        if (idx >= META_MERGE_MAX || r->nmerged >= META_MERGE_MAX)
            return corrupt(c, "info:mergeNNNN index");
        int rc = decode_text(c, r->merged[r->nmerged], sizeof(r->merged[0]));
        if (rc == ST_OK)
            r->nmerged++;
        return rc;
    } else if (meta_cell_is(c, META_FAM_INFO, META_Q_SEQNUM)) {
        if (c->value_len != 8)
            return corrupt(c, "info:seqnum");
        r->seqnum = be64_get(c->value);
    } else if (meta_cell_is(c, META_FAM_INFO, META_Q_FAILURES)) {
        char *end = NULL;
        if (decode_text(c, text, sizeof(text)) != ST_OK)
            return corrupt(c, "info:failures");
        long v = strtol(text, &end, 10);
        if (*end || v < 0 || v > INT_MAX)
            return corrupt(c, "info:failures");
        r->failures = (int)v;
    }
    return ST_OK;
}

/* Decodes one region row; a row without info:regioninfo is corrupt. */
static int decode_region(const scan_result *row, meta_region *out)
{
    memset(out, 0, sizeof(*out));
    out->state = META_CLOSED;
    bool have_info = false;
    int rc = ST_OK;
    for (size_t i = 0; i < row->ncells && rc == ST_OK; i++)
        rc = decode_column(&row->cells[i], out, &have_info);
    if (rc == ST_OK && !have_info)
        rc = corrupt(&row->cells[0], "region row (no info:regioninfo)");
    if (rc != ST_OK)
        meta_region_clear(out);
    return rc;
}

/* ---------------------------------------------------------------- writing */

int meta_put_regions(meta *m, const meta_region *v, size_t n)
{
    meta_change c = {.put = v, .nput = n};
    return meta_apply(m, &c);
}

int meta_put_region(meta *m, const meta_region *r)
{
    return meta_put_regions(m, r, 1);
}

int meta_delete_regions(meta *m, const meta_region *v, size_t n)
{
    meta_change c = {.del = v, .ndel = n};
    return meta_apply(m, &c);
}

/* ---------------------------------------------------------------- reading */

typedef struct region_vec {
    meta_region *v;
    size_t n;
    size_t cap;
    const char *encoded; /* meta_find_region: stop at this one */
} region_vec;

static int collect_region(const scan_result *row, void *arg)
{
    region_vec *rv = arg;
    if (rv->n == rv->cap) {
        size_t nc = rv->cap ? rv->cap * 2 : 16;
        meta_region *p = realloc(rv->v, nc * sizeof(*p));
        if (!p)
            return ST_NOMEM;
        rv->v = p;
        rv->cap = nc;
    }
    int rc = decode_region(row, &rv->v[rv->n]);
    if (rc != ST_OK)
        return rc;
    rv->n++;
    if (rv->encoded && strcmp(rv->v[rv->n - 1].encoded_name, rv->encoded) == 0)
        return ST_EXISTS; /* found: stops the scan */
    if (rv->encoded)
        meta_region_clear(&rv->v[--rv->n]);
    return ST_OK;
}

/* [ "<table>,", "<table>-" ): ',' is 0x2C and '-' 0x2D, and no table name holds ','. */
static void table_range(const char *table, char *start, char *stop, size_t cap)
{
    snprintf(start, cap, "%s,", table);
    snprintf(stop, cap, "%s-", table);
}

int meta_table_regions(meta *m, const char *table, meta_region **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    int rc = meta_check_table_name(table);
    if (rc != ST_OK)
        return rc;
    char start[300], stop[300];
    table_range(table, start, stop, sizeof(start));
    region_vec rv = {0};
    rc = meta_scan(m, (const uint8_t *)start, strlen(start), (const uint8_t *)stop, strlen(stop),
                   META_FAM_INFO, collect_region, &rv);
    if (rc != ST_OK) {
        meta_regions_free(rv.v, rv.n);
        return rc;
    }
    /* Row order is start-key order except for binary start keys where one is a prefix of
     * another followed by a byte below ',' (docs/formats/meta.md): sort to be exact. */
    if (rv.n > 1)
        qsort(rv.v, rv.n, sizeof(*rv.v), cmp_region);
    *out = rv.v;
    *n = rv.n;
    return ST_OK;
}

int meta_all_regions(meta *m, meta_region **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    region_vec rv = {0};
    int rc = meta_scan(m, NULL, 0, NULL, 0, META_FAM_INFO, collect_region, &rv);
    if (rc != ST_OK) {
        meta_regions_free(rv.v, rv.n);
        return rc;
    }
    *out = rv.v;
    *n = rv.n;
    return ST_OK;
}

int meta_find_region(meta *m, const char *encoded_name, meta_region *out)
{
    memset(out, 0, sizeof(*out));
    region_vec rv = {0};
    rv.encoded = encoded_name;
    int rc = meta_scan(m, NULL, 0, NULL, 0, META_FAM_INFO, collect_region, &rv);
    if (rc == ST_EXISTS) {
        *out = rv.v[0];
        free(rv.v);
        return ST_OK;
    }
    meta_regions_free(rv.v, rv.n);
    if (rc == ST_OK)
        rc = st_error(ST_NOT_FOUND, "meta: no region %s", encoded_name);
    return rc;
}

typedef struct key_vec {
    uint8_t **keys;
    size_t *lens;
    size_t n;
    size_t cap;
} key_vec;

static int collect_key(const scan_result *row, void *arg)
{
    key_vec *kv = arg;
    if (kv->n == kv->cap) {
        size_t nc = kv->cap ? kv->cap * 2 : 16;
        uint8_t **k = realloc(kv->keys, nc * sizeof(*k));
        if (!k)
            return ST_NOMEM;
        kv->keys = k;
        size_t *l = realloc(kv->lens, nc * sizeof(*l));
        if (!l)
            return ST_NOMEM;
        kv->lens = l;
        kv->cap = nc;
    }
    const cell_t *c = &row->cells[0];
    uint8_t *k = malloc(c->row_len);
    if (!k)
        return ST_NOMEM;
    memcpy(k, c->row, c->row_len);
    kv->keys[kv->n] = k;
    kv->lens[kv->n++] = c->row_len;
    return ST_OK;
}

int meta_region_row_keys(meta *m, const char *table, uint8_t ***keys, size_t **lens, size_t *n)
{
    *keys = NULL;
    *lens = NULL;
    *n = 0;
    char start[300], stop[300];
    table_range(table, start, stop, sizeof(start));
    key_vec kv = {0};
    int rc = meta_scan(m, (const uint8_t *)start, strlen(start), (const uint8_t *)stop,
                       strlen(stop), NULL, collect_key, &kv);
    if (rc != ST_OK) {
        meta_keys_free(kv.keys, kv.lens, kv.n);
        return rc;
    }
    *keys = kv.keys;
    *lens = kv.lens;
    *n = kv.n;
    return ST_OK;
}

/* ---------------------------------------------------------------- open / close */

static void meta_schema(table_schema *s)
{
    static const char *const fams[] = {META_FAM_INFO, META_FAM_TABLE, META_FAM_NS, META_FAM_PROC};
    table_schema_init(s, META_TABLE_NAME);
    for (size_t i = 0; i < sizeof(fams) / sizeof(fams[0]); i++) {
        family_schema f;
        family_schema_init(&f, fams[i]);
        f.versions = 1;
        f.bloom = BLOOM_ROW;
        table_schema_add_family(s, &f);
    }
    s->durability = DURABILITY_SYNC_WAL;
}

static int newest_ts(const scan_result *row, void *arg)
{
    int64_t *ts = arg;
    for (size_t i = 0; i < row->ncells; i++)
        if (row->cells[i].ts > *ts)
            *ts = row->cells[i].ts;
    return ST_OK;
}

/* The newest timestamp of any stored cell or delete marker (a raw scan). */
static int seed_clock(meta *m)
{
    scan_spec spec = {0};
    spec.raw = true;
    spec.max_versions = INT_MAX;
    region_scanner *s = NULL;
    int rc = region_scanner_open(m->reg, &spec, &s);
    scan_result res;
    scan_result_init(&res);
    while (rc == ST_OK) {
        int got = region_scanner_next(s, &res);
        if (got <= 0) {
            rc = got;
            break;
        }
        newest_ts(&res, &m->last_ts);
    }
    scan_result_free(&res);
    region_scanner_close(s);
    return rc;
}

/* Creates "default" and "strata" if missing (one batch). */
static int ensure_system_namespaces(meta *m)
{
    static const char *const names[] = {"default", "strata"};
    meta_batch b;
    meta_batch_init(&b);
    int rc = ST_OK;
    for (size_t i = 0; i < 2 && rc == ST_OK; i++) {
        rc = meta_namespace_exists(m, names[i]);
        if (rc == ST_NOT_FOUND) {
            Strata__Master__NamespaceDescriptor d = STRATA__MASTER__NAMESPACE_DESCRIPTOR__INIT;
            d.name = (char *)names[i];
            uint8_t buf[64];
            size_t len = strata__master__namespace_descriptor__pack(&d, buf);
            meta_batch_row(&b, (const uint8_t *)names[i], strlen(names[i]));
            meta_batch_put(&b, META_FAM_NS, META_Q_NSDESC, buf, len);
            rc = ST_OK;
        }
    }
    if (rc == ST_OK) {
        pthread_mutex_lock(&m->write_mu);
        rc = meta_batch_commit(m, &b);
        pthread_mutex_unlock(&m->write_mu);
    }
    meta_batch_free(&b);
    return rc;
}

int meta_open(engine *e, meta **out)
{
    *out = NULL;
    meta *m = calloc(1, sizeof(*m));
    if (!m)
        return ST_NOMEM;
    m->eng = e;
    pthread_mutex_init(&m->write_mu, NULL);
    table_schema schema;
    meta_schema(&schema);
    region_info info;
    memset(&info, 0, sizeof(info));
    snprintf(info.table, sizeof(info.table), "%s", META_TABLE_NAME);
    snprintf(info.encoded_name, sizeof(info.encoded_name), "%s", META_ENCODED_NAME);
    info.region_id = 1;
    int rc = region_open(e, &schema, &info, &m->reg);
    if (rc == ST_OK)
        rc = seed_clock(m);
    if (rc == ST_OK)
        rc = ensure_system_namespaces(m);
    if (rc != ST_OK) {
        LOG_ERROR("meta: opening %s (%s) failed: %s (%s)", META_TABLE_NAME, META_ENCODED_NAME,
                  st_strerror(rc), st_errmsg());
        meta_close(m);
        return rc;
    }
    LOG_INFO("meta: %s open, newest timestamp %" PRId64, META_TABLE_NAME, m->last_ts);
    *out = m;
    return ST_OK;
}

void meta_close(meta *m)
{
    if (!m)
        return;
    if (m->reg) {
        int rc = region_close(m->reg, true);
        if (rc != ST_OK) {
            /* The edits stay in the WAL and are replayed by the next open. */
            LOG_ERROR("meta: flush on close failed: %s (%s); closing without it", st_strerror(rc),
                      st_errmsg());
            region_close(m->reg, false);
        }
    }
    pthread_mutex_destroy(&m->write_mu);
    free(m);
}
