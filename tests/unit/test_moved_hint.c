/*
 * test_moved_hint.c - RegionMoved hints on the client (client/moved_hint.c): a packed
 * RegionMovedHint decodes to the regions it names; a bad one is refused; applying a hint
 * updates the location cache as a move (same region, new server), a split (the parent
 * replaced by its daughters) and a merge (both parents replaced by the merged region);
 * the quick-retry window covers only the hinted servers; the unpaced retries are bounded.
 * Thread-safety: single-threaded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "client/client_internal.h"
#include "common/rpc/rpc_proto.h"
#include "common/status.h"
#include "tests/support/testutil.h"

typedef struct spec {
    const char *name, *start, *end, *host;
    uint32_t port;
} spec;

/* Packs a hint naming regions v[0..n), issued at issued_ms (0: unstamped). */
static void pack_hint_at(const spec *v, size_t n, uint64_t issued_ms, buf_t *out)
{
    Strata__Client__MovedRegion m[4], *p[4];
    Strata__Client__RegionMovedHint h = STRATA__CLIENT__REGION_MOVED_HINT__INIT;
    for (size_t i = 0; i < n; i++) {
        strata__client__moved_region__init(&m[i]);
        m[i].encoded_name = (char *)v[i].name;
        m[i].has_start_key = m[i].has_end_key = 1;
        m[i].start_key = (ProtobufCBinaryData){strlen(v[i].start), (uint8_t *)v[i].start};
        m[i].end_key = (ProtobufCBinaryData){strlen(v[i].end), (uint8_t *)v[i].end};
        m[i].host = (char *)v[i].host;
        m[i].port = v[i].port;
        m[i].has_start_code = 1;
        m[i].start_code = 5;
        p[i] = &m[i];
    }
    h.n_region = n;
    h.region = p;
    h.has_issued_ms = issued_ms > 0;
    h.issued_ms = issued_ms;
    assert_int_equal(rpc_proto_pack(&h.base, out), ST_OK);
}

static void pack_hint(const spec *v, size_t n, buf_t *out)
{
    pack_hint_at(v, n, 0, out);
}

static void cache_put(strata_client_t *c, const spec *s)
{
    loccache_entry e = {.table = "t", .region = s->name, .start_key = (const uint8_t *)s->start,
                        .start_len = strlen(s->start), .end_key = (const uint8_t *)s->end,
                        .end_len = strlen(s->end), .host = s->host, .port = (uint16_t)s->port};
    assert_int_equal(loccache_insert(c->cache, &e), ST_OK);
}

/* The cached region holding row is name on host:port. */
static void assert_at(strata_client_t *c, const char *row, const char *name, uint32_t port)
{
    const loccache_entry *e = NULL;
    assert_int_equal(loccache_lookup(c->cache, "t", (const uint8_t *)row, strlen(row), &e), ST_OK);
    assert_string_equal(e->region, name);
    assert_int_equal(e->port, port);
    loccache_entry_release(e);
}

static int setup(void **state)
{
    strata_client_t *c = calloc(1, sizeof(*c));
    c->cache = loccache_new();
    *state = c;
    return 0;
}

static int teardown(void **state)
{
    strata_client_t *c = *state;
    loccache_free(c->cache);
    free(c);
    return 0;
}

static void test_decode_roundtrip_and_refusals(void **state)
{
    const spec v[2] = {{"d1", "", "m", "10.0.0.7", 17020}, {"d2", "m", "", "10.0.0.8", 17021}};
    buf_t b = {0};
    pack_hint(v, 2, &b);
    locator_region *out = NULL;
    size_t n = 0;
    assert_int_equal(moved_hint_decode("t", b.data, b.len, &out, &n), ST_OK);
    assert_int_equal(n, 2);
    assert_string_equal(out[0].encoded_name, "d1");
    assert_string_equal(out[0].table, "t");
    assert_int_equal(out[0].start_len, 0);
    assert_int_equal(out[0].end_len, 1);
    assert_string_equal(out[1].host, "10.0.0.8");
    assert_int_equal(out[1].port, 17021);
    assert_int_equal(out[1].start_code, 5);
    locator_regions_free(out, n);
    const uint8_t junk[] = {0xff, 0xff, 0xff};
    assert_int_equal(moved_hint_decode("t", junk, sizeof(junk), &out, &n), ST_PROTOCOL);
    assert_null(out);
    buf_reset(&b);
    pack_hint(v, 0, &b); /* names nothing */
    assert_int_equal(moved_hint_decode("t", b.data, b.len, &out, &n), ST_PROTOCOL);
    const spec noport[1] = {{"x", "", "", "h", 0}};
    buf_reset(&b);
    pack_hint(noport, 1, &b);
    assert_int_equal(moved_hint_decode("t", b.data, b.len, &out, &n), ST_PROTOCOL);
    buf_free(&b);
}

static void test_move_split_merge_update_cache(void **state)
{
    strata_client_t *c = *state;
    const spec p = {"p", "", "", "a", 1};
    cache_put(c, &p);
    buf_t b = {0};
    moved_follow f;
    moved_follow_init(&f);
    /* move: the same region, a new server */
    const spec moved[1] = {{"p", "", "", "b", 2}};
    pack_hint(moved, 1, &b);
    assert_int_equal(moved_hint_apply(c, "t", b.data, b.len, &f), ST_OK);
    assert_at(c, "x", "p", 2);
    assert_int_equal(loccache_count(c->cache, "t"), 1);
    /* split: the parent gives way to both daughters */
    const spec kids[2] = {{"d1", "", "m", "b", 2}, {"d2", "m", "", "c", 3}};
    buf_reset(&b);
    pack_hint(kids, 2, &b);
    assert_int_equal(moved_hint_apply(c, "t", b.data, b.len, &f), ST_OK);
    assert_int_equal(loccache_count(c->cache, "t"), 2);
    assert_at(c, "a", "d1", 2);
    assert_at(c, "z", "d2", 3);
    /* merge: both parents give way to the merged region */
    const spec merged[1] = {{"mg", "", "", "c", 3}};
    buf_reset(&b);
    pack_hint(merged, 1, &b);
    assert_int_equal(moved_hint_apply(c, "t", b.data, b.len, &f), ST_OK);
    assert_int_equal(loccache_count(c->cache, "t"), 1);
    assert_at(c, "a", "mg", 3);
    assert_int_equal(client_moved_hints_followed(c), 3);
    buf_free(&b);
}

static void test_quick_retry_only_at_hinted_servers(void **state)
{
    strata_client_t *c = *state;
    moved_follow f;
    moved_follow_init(&f);
    int64_t pause = -1;
    /* no hint yet: the usual path */
    assert_false(moved_follow_retry(&f, "b:2", ST_NOT_SERVING, false, &pause));
    assert_false(moved_follow_retry(&f, "b:2", ST_REGION_MOVED, false, &pause));
    const spec moved[1] = {{"p", "", "", "b", 2}};
    buf_t b = {0};
    pack_hint(moved, 1, &b);
    assert_int_equal(moved_hint_apply(c, "t", b.data, b.len, &f), ST_OK);
    assert_true(moved_follow_retry(&f, "b:2", ST_REGION_MOVED, true, &pause));
    assert_int_equal(pause, 0);
    assert_true(moved_follow_retry(&f, "b:2", ST_REGION_OPENING, false, &pause));
    assert_int_equal(pause, MOVED_QUICK_PAUSE_MS);
    assert_true(moved_follow_retry(&f, "b:2", ST_NOT_SERVING, false, &pause));
    assert_false(moved_follow_retry(&f, "other:9", ST_NOT_SERVING, false, &pause));
    assert_false(moved_follow_retry(&f, "b:2", ST_CONNECTION, false, &pause));
    f.window_end_ns = 1; /* the window has passed */
    assert_false(moved_follow_retry(&f, "b:2", ST_NOT_SERVING, false, &pause));
    retry_state r;
    assert_int_equal(retry_begin(&r, NULL), ST_OK);
    int steps = 0;
    while (moved_follow_step(&f, &r))
        steps++;
    assert_int_equal(steps, MOVED_MAX_IMMEDIATE);
    buf_free(&b);
}

/* A region moved A -> B, then back B -> A: until it opens on A again, A still holds its
 * hint of the first move ("went to B") while B's says "went to A". A client that followed
 * B's newer hint refuses A's older one instead of bouncing between the two. */
static void test_older_hint_refused_after_newer(void **state)
{
    strata_client_t *c = *state;
    const spec p = {"p", "", "", "b", 2};
    cache_put(c, &p);
    moved_follow f;
    moved_follow_init(&f);
    buf_t b = {0};
    const spec to_a[1] = {{"p", "", "", "a", 1}}, to_b[1] = {{"p", "", "", "b", 2}};
    pack_hint_at(to_a, 1, 2000, &b); /* B's: the second move */
    assert_int_equal(moved_hint_apply(c, "t", b.data, b.len, &f), ST_OK);
    assert_at(c, "x", "p", 1);
    buf_reset(&b);
    pack_hint_at(to_b, 1, 1000, &b); /* A's: left from the first move */
    assert_int_equal(moved_hint_apply(c, "t", b.data, b.len, &f), ST_NOT_SERVING);
    assert_at(c, "x", "p", 1); /* not sent back to B */
    assert_int_equal(client_moved_hints_followed(c), 1);
    buf_reset(&b);
    pack_hint_at(to_b, 1, 3000, &b); /* a third, newer move */
    assert_int_equal(moved_hint_apply(c, "t", b.data, b.len, &f), ST_OK);
    assert_at(c, "x", "p", 2);
    buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_roundtrip_and_refusals),
        cmocka_unit_test_setup_teardown(test_move_split_merge_update_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(test_quick_retry_only_at_hinted_servers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_older_hint_refused_after_newer, setup, teardown),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
