/*
 * test_shell_parse.c - the shell's Ruby-ish argument parser (strings and their escapes,
 * numbers, constants, arrays, hashes, trailing key => value pairs, parentheses,
 * comments, ';' splitting, every syntax error with its column), HBase's binary escaping
 * both ways, the TTL and column helpers, and the dispatcher without a cluster (help,
 * unknown commands, exit statuses, stopping at the first failure).
 * Thread-safety: single-threaded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "shell/shell.h"
#include "shell/shell_internal.h"
#include "shell/shell_parse.h"
#include "tests/support/testutil.h"

/* Parses text, which must succeed, and renders the arguments with inspect. */
static const char *parsed(const char *text, const char *want_name)
{
    static char out[2048];
    shell_stmt st;
    int rc = shell_parse_stmt(text, &st);
    if (rc != ST_OK)
        fail_msg("parse <%s>: %s", text, st_errmsg());
    if (want_name)
        assert_string_equal(st.name, want_name);
    buf_t b = {0};
    assert_int_equal(shell_value_inspect(&st.args, &b), ST_OK);
    snprintf(out, sizeof(out), "%s", (char *)b.data);
    buf_free(&b);
    shell_stmt_free(&st);
    return out;
}

/* Parses text, which must fail with a message containing frag. */
static void bad(const char *text, const char *frag)
{
    shell_stmt st;
    st_clear();
    int rc = shell_parse_stmt(text, &st);
    if (rc == ST_OK)
        fail_msg("parse <%s> succeeded", text);
    assert_int_equal(rc, ST_INVALID_ARGUMENT);
    assert_null(st.name);
    if (!strstr(st_errmsg(), frag))
        fail_msg("parse <%s>: message '%s' lacks '%s'", text, st_errmsg(), frag);
}

/* The first argument of `x <value>` as a string value (its bytes and length). */
static shell_value one_string(const char *text)
{
    shell_stmt st;
    assert_int_equal(shell_parse_stmt(text, &st), ST_OK);
    assert_int_equal(st.args.n, 1);
    assert_int_equal(st.args.items[0].kind, SHELL_V_STR);
    shell_value v = st.args.items[0];
    st.args.items[0] = (shell_value){0};
    shell_stmt_free(&st);
    return v;
}

static void test_parse_put_and_strings(void **state)
{
    (void)state;
    assert_string_equal(parsed("put 't1', 'r1', 'cf:a', 'v1'", "put"),
                        "['t1', 'r1', 'cf:a', 'v1']");
    assert_string_equal(parsed("  scan   't'  ", "scan"), "['t']");
    assert_string_equal(parsed("list", "list"), "[]");
    shell_value v = one_string("x \"\\x00\\x01\\xff\\\\\\\"\\n\\t\\101\\u00e9\"");
    const char want[] = {0, 1, (char)0xFF, '\\', '"', '\n', '\t', 'A', (char)0xC3, (char)0xA9};
    assert_int_equal(v.len, sizeof(want));
    assert_memory_equal(v.s, want, sizeof(want));
    shell_value_free(&v);
    /* Single quotes: only \' and \\ are escapes; \x00 stays four characters. */
    v = one_string("x 'it\\'s \\\\ \\x00'");
    assert_string_equal(v.s, "it's \\ \\x00");
    shell_value_free(&v);
    v = one_string("x 'a#b;c'");
    assert_string_equal(v.s, "a#b;c");
    shell_value_free(&v);
}

static void test_parse_numbers_constants_collections(void **state)
{
    (void)state;
    assert_string_equal(parsed("x 1, -2, +3, 1_000, 0x1F, 9223372036854775807", NULL),
                        "[1, -2, 3, 1000, 31, 9223372036854775807]");
    assert_string_equal(parsed("x -9223372036854775808", NULL), "[-9223372036854775808]");
    assert_string_equal(parsed("x 1.5, 2e3", NULL), "[1.5, 2000]");
    assert_string_equal(parsed("x true, false, nil", NULL), "[true, false, nil]");
    assert_string_equal(parsed("create 't', {NAME => 'f', VERSIONS => 3}", NULL),
                        "['t', {NAME => 'f', VERSIONS => 3}]");
    assert_string_equal(parsed("x [1, [2, 'a'], {}], []", NULL), "[[1, [2, 'a'], {}], []]");
    assert_string_equal(parsed("x [1, 2,]", NULL), "[[1, 2]]");
    /* Trailing pairs form one hash argument. */
    assert_string_equal(parsed("alter 't', NAME => 'f', VERSIONS => 5", NULL),
                        "['t', {NAME => 'f', VERSIONS => 5}]");
    assert_string_equal(parsed("create 't', 'f', SPLITS => ['a', 'b']", NULL),
                        "['t', 'f', {SPLITS => ['a', 'b']}]");
    assert_string_equal(parsed("alter 't', 'delete' => 'f'", NULL), "['t', {'delete' => 'f'}]");
    /* Parentheses, comments, multi-line whitespace. */
    assert_string_equal(parsed("get('t', 'r')  # trailing comment", "get"), "['t', 'r']");
    assert_string_equal(parsed("get ('t')", "get"), "['t']");
}

static void test_parse_empty_and_hash_lookup(void **state)
{
    (void)state;
    shell_stmt st;
    assert_int_equal(shell_parse_stmt("", &st), ST_OK);
    assert_null(st.name);
    shell_stmt_free(&st);
    assert_int_equal(shell_parse_stmt("   # only a comment", &st), ST_OK);
    assert_null(st.name);
    shell_stmt_free(&st);
    assert_int_equal(shell_parse_stmt("x {NAME => 'a', 'NAME' => 'b', V => 1}", &st), ST_OK);
    const shell_value *h = &st.args.items[0];
    assert_int_equal(h->kind, SHELL_V_HASH);
    assert_int_equal(h->n, 3);
    assert_string_equal(shell_hash_get(h, "NAME")->s, "b"); /* last one wins */
    assert_int_equal(shell_hash_get(h, "V")->i, 1);
    assert_null(shell_hash_get(h, "v"));
    assert_true(shell_hash_key(h, 0)->bare);
    assert_false(shell_hash_key(h, 1)->bare);
    shell_stmt_free(&st);
}

static void test_corrupt_syntax_errors(void **state)
{
    (void)state;
    bad("put 't", "column 5: unterminated string");
    bad("put \"t", "unterminated string");
    bad("put 't' 'r'", "column 9: unexpected");
    bad("put 't',", "expected a value");
    bad("get 't', r1", "undefined local variable or method 'r1'");
    bad("x \"#{1}\"", "interpolation");
    bad("x :sym", "symbols are not supported");
    bad("x [1, 2", "expected ',' or ']'");
    bad("x {A 1}", "expected '=>'");
    bad("x 99999999999999999999", "out of range");
    bad("x 12abc", "malformed number");
    bad("x \"\\x\"", "invalid hex escape");
    bad("x A => 1, 'b'", "cannot follow key => value pairs");
    bad("get('t'", "expected ')'");
    bad("'t'", "expected a command name");
    bad("put't'", "after the command name");
    char deep[200] = "x ";
    for (int i = 0; i < 40; i++)
        strcat(deep, "[");
    bad(deep, "nesting deeper");
}

/* Random statements built from the syntax's characters: every parse either succeeds or
 * fails with a message; nothing crashes (ASan builds check the memory). */
static void test_corrupt_random_input_never_crashes(void **state)
{
    (void)state;
    static const char alphabet[] = "pt'\"\\x0aF{}[](),;=> #:_-1Ae\x7f\xff";
    srand(11);
    for (int round = 0; round < 20000; round++) {
        char text[48];
        size_t n = (size_t)(rand() % 47);
        strcpy(text, "put ");
        for (size_t i = 4; i < n; i++)
            text[i] = alphabet[rand() % (int)(sizeof(alphabet) - 1)];
        text[n > 4 ? n : 4] = '\0';
        shell_stmt st;
        st_clear();
        int rc = shell_parse_stmt(text, &st);
        if (rc != ST_OK) {
            assert_int_equal(rc, ST_INVALID_ARGUMENT);
            assert_non_null(strstr(st_errmsg(), "syntax error at column "));
        } else {
            buf_t b = {0};
            assert_int_equal(shell_value_inspect(&st.args, &b), ST_OK);
            buf_free(&b);
        }
        shell_stmt_free(&st);
        char **v = NULL;
        size_t k = 0;
        assert_int_equal(shell_split_stmts(text, &v, &k), ST_OK);
        assert_true(k >= 1);
        shell_split_free(v, k);
    }
}

static void test_split_statements(void **state)
{
    (void)state;
    char **v = NULL;
    size_t n = 0;
    assert_int_equal(
        shell_split_stmts("list; put 't', 'a;b', 'c', \"d;\" ; scan 't', {X => [';']}", &v, &n),
        ST_OK);
    assert_int_equal(n, 3);
    assert_string_equal(v[0], "list");
    assert_string_equal(v[1], " put 't', 'a;b', 'c', \"d;\" ");
    assert_string_equal(v[2], " scan 't', {X => [';']}");
    shell_split_free(v, n);
    assert_int_equal(shell_split_stmts("list # a; b", &v, &n), ST_OK);
    assert_int_equal(n, 1);
    shell_split_free(v, n);
    assert_int_equal(shell_split_stmts("", &v, &n), ST_OK);
    assert_int_equal(n, 1);
    assert_string_equal(v[0], "");
    shell_split_free(v, n);
}

static void test_escape_binary_every_byte(void **state)
{
    (void)state;
    for (int c = 0; c < 256; c++) {
        unsigned char byte = (unsigned char)c;
        buf_t b = {0};
        assert_int_equal(shell_escape_binary(&b, &byte, 1), ST_OK);
        char want[8];
        if (c >= 0x20 && c <= 0x7E && c != '\\')
            snprintf(want, sizeof(want), "%c", c);
        else
            snprintf(want, sizeof(want), "\\x%02X", c);
        assert_string_equal((char *)b.data, want);
        buf_free(&b);
    }
    char *s = shell_binary("r\x00\xff\\", 4);
    assert_string_equal(s, "r\\x00\\xFF\\x5C");
    free(s);
    s = shell_binary("", 0);
    assert_string_equal(s, "");
    free(s);
}

static void test_unescape_binary_and_round_trip(void **state)
{
    (void)state;
    buf_t b = {0};
    assert_int_equal(shell_unescape_binary("a\\x00b\\xfFc\\xzz\\x4", 18, &b), ST_OK);
    const char want[] = {'a', 0, 'b', (char)0xFF, 'c', '\\', 'x', 'z', 'z', '\\', 'x', '4'};
    assert_int_equal(b.len, sizeof(want));
    assert_memory_equal(b.data, want, sizeof(want));
    srand(7);
    for (int round = 0; round < 200; round++) {
        unsigned char raw[64];
        size_t n = (size_t)(rand() % 64);
        for (size_t i = 0; i < n; i++)
            raw[i] = (unsigned char)rand();
        buf_t esc = {0}, back = {0};
        assert_int_equal(shell_escape_binary(&esc, raw, n), ST_OK);
        assert_int_equal(shell_unescape_binary((char *)esc.data, esc.len, &back), ST_OK);
        assert_int_equal(back.len, n);
        if (n)
            assert_memory_equal(back.data, raw, n);
        buf_free(&esc);
        buf_free(&back);
    }
    buf_free(&b);
}

static void test_ttl_and_columns(void **state)
{
    (void)state;
    char t[96];
    shell_ttl_string(0, t, sizeof(t));
    assert_string_equal(t, "FOREVER");
    shell_ttl_string(INT64_MAX, t, sizeof(t));
    assert_string_equal(t, "FOREVER");
    shell_ttl_string(1, t, sizeof(t));
    assert_string_equal(t, "1 SECOND");
    shell_ttl_string(59, t, sizeof(t));
    assert_string_equal(t, "59 SECONDS");
    shell_ttl_string(86400, t, sizeof(t));
    assert_string_equal(t, "86400 SECONDS (1 DAY)");
    shell_ttl_string(90061, t, sizeof(t));
    assert_string_equal(t, "90061 SECONDS (1 DAY 1 HOUR 1 MINUTE 1 SECOND)");
    shell_ttl_string(7320, t, sizeof(t));
    assert_string_equal(t, "7320 SECONDS (2 HOURS 2 MINUTES)");

    /* TTLs written as HBase's shell reads them */
    static const struct {
        const char *text;
        int64_t want; /* -1: refused */
    } ttls[] = {
        {"86400", 86400},
        {"1 DAY", 86400},
        {"2 days", 172800},
        {"2 HOURS 30 MINUTES", 9000},
        {"1 DAY 1 HOUR 1 MINUTE 1 SECOND", 90061},
        {"90061 SECONDS", 90061},
        {" 5 minutes ", 300},
        {"1DAY", 86400},
        {"", -1},
        {"DAY", -1},
        {"1 WEEK", -1},
        {"30 MINUTES 2 HOURS", -1}, /* out of order */
        {"1 DAY 1 DAY", -1},
        {"1 DAYS2 HOURS", -1},
        {"-5", -1},
        {"99999999999999999999", -1},
        {"9999999999999999 DAYS", -1}, /* overflows */
    };
    for (size_t i = 0; i < sizeof(ttls) / sizeof(ttls[0]); i++) {
        int64_t got = 0;
        st_clear();
        int rc = shell_ttl_parse(ttls[i].text, &got);
        if (ttls[i].want < 0) {
            if (rc != ST_INVALID_ARGUMENT || !strstr(st_errmsg(), "is not seconds"))
                fail_msg("TTL '%s' was accepted as %lld", ttls[i].text, (long long)got);
        } else if (rc != ST_OK || got != ttls[i].want) {
            fail_msg("TTL '%s': rc %d, %lld, want %lld", ttls[i].text, rc, (long long)got,
                     (long long)ttls[i].want);
        }
    }

    const char *f, *q;
    size_t fl, ql;
    bool hq;
    shell_split_column("cf:a:b", 6, &f, &fl, &q, &ql, &hq);
    assert_int_equal(fl, 2);
    assert_int_equal(ql, 3);
    assert_true(hq);
    shell_split_column("cf", 2, &f, &fl, &q, &ql, &hq);
    assert_int_equal(fl, 2);
    assert_false(hq);
    shell_split_column("cf:", 3, &f, &fl, &q, &ql, &hq);
    assert_int_equal(fl, 2);
    assert_int_equal(ql, 0);
    assert_false(hq);
}

/* ---- the dispatcher without a cluster ---- */

typedef struct run_out {
    int status;
    char *out;
    char *err;
} run_out;

static run_out run_text(const char *text, bool interactive)
{
    run_out r = {0};
    size_t ol = 0, el = 0;
    FILE *out = open_memstream(&r.out, &ol), *err = open_memstream(&r.err, &el);
    shell_config c = {.interactive = interactive};
    shell_session *s = NULL;
    assert_int_equal(shell_open(&c, out, err, &s), ST_OK);
    r.status = shell_run_text(s, text);
    shell_close(s);
    fclose(out);
    fclose(err);
    return r;
}

static void run_free(run_out *r)
{
    free(r->out);
    free(r->err);
}

/* Statements that span lines: what keeps one open, comments inside, line continuation. */
static void test_text_open(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int open;
    } cases[] = {
        {"list", 0},
        {"", 0},
        {"# only a comment", 0},
        {"create 't', {NAME => 'f',", 1},
        {"create 't', {NAME => 'f'", 1},
        {"create 't', {NAME => 'f', SPLITS => ['a',", 2},
        {"create 't', {NAME => 'f', SPLITS => ['a', 'b']}", 0},
        {"put 't', 'r',", 1},
        {"put 't', 'r', 'f:q', 'v' # a comment, with a comma,", 0},
        {"put 't', 'r', 'f:q', 'v', # the timestamp follows", 1},
        {"create 't', NAME =>", 1},
        {"put 't', 'a\nb", 1},               /* a string still open */
        {"put 't', \"a\\\"", 1},          /* "a\" : the quote is escaped */
        {"put 't', 'it''s'", 0},
        {"put 't', '{['", 0},                /* brackets inside strings do not count */
        {"get 't', 'r' \\", 1},            /* a line continued */
        {"scan 't', {FILTER => \"ValueFilter(=, 'binary:x')\"}", 0},
        {"x ]]", 0},                         /* stray closers: the parser's to report */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (shell_text_open(cases[i].text) != cases[i].open)
            fail_msg("shell_text_open(<%s>) = %d, want %d", cases[i].text,
                     shell_text_open(cases[i].text), cases[i].open);
}

static void test_multiline_statements(void **state)
{
    (void)state;
    /* a hash spanning lines, with comments inside, parses as one statement */
    assert_string_equal(parsed("create 't', {NAME => 'f', # the family\n"
                               "  VERSIONS => 3}, # and then\n"
                               "  {NAME => 'g'}",
                               "create"),
                        "['t', {NAME => 'f', VERSIONS => 3}, {NAME => 'g'}]");
    assert_string_equal(parsed("get 't', \\\n  'r'", "get"), "['t', 'r']");
    /* a syntax error on the third line of a statement that starts on line 7 */
    shell_stmt st;
    assert_int_equal(shell_parse_stmt_at("create 't',\n {NAME => 'f',\n  VERSIONS => => 3}", 7,
                                         1, &st),
                     ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "syntax error at line 9, column 15"));
    /* the column of a statement after a ';' counts from the line's start */
    assert_int_equal(shell_parse_stmt_at("put 't' 'r'", 4, 7, &st), ST_INVALID_ARGUMENT);
    assert_non_null(strstr(st_errmsg(), "syntax error at line 4, column 15"));

    /* through a session: help 'get' runs, then help ['x', 'y'] gathered from three lines
     * fails (a name is a String) and the run stops there */
    run_out r = run_text("help 'get'; help [\n"
                         "  'x',\n"
                         "  'y'] ; version\n",
                         false);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.out, "strata> get"));
    assert_non_null(strstr(r.err, "ERROR: "));
    assert_null(strstr(r.out, "rUnknown"));
    run_free(&r);
    r = run_text("version\nversion 'a',\n  'b' 'c'\nversion\n", false);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "ERROR: syntax error at line 3, column 7"));
    run_free(&r);
    r = run_text("version; version 'a' 'b'", false);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "ERROR: syntax error at line 1, column 22"));
    run_free(&r);
    /* the input ends inside a hash: the parser names what is missing, with the line */
    r = run_text("version\ncreate 't', {NAME => 'f',\n", false);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "ERROR: syntax error at line 2"));
    run_free(&r);
}

/* Ruby's forms around a command: var = command, var.method, a bare var. */
static void test_assign_and_receiver(void **state)
{
    (void)state;
    shell_stmt st;
    assert_int_equal(shell_parse_stmt("t = get_table 'ns:t1'", &st), ST_OK);
    assert_string_equal(st.assign, "t");
    assert_null(st.receiver);
    assert_string_equal(st.name, "get_table");
    assert_int_equal(st.args.n, 1);
    shell_stmt_free(&st);
    assert_int_equal(shell_parse_stmt("t1.put 'r', 'f:q', 'v'", &st), ST_OK);
    assert_null(st.assign);
    assert_string_equal(st.receiver, "t1");
    assert_string_equal(st.name, "put");
    assert_int_equal(st.args.n, 3);
    shell_stmt_free(&st);
    assert_int_equal(shell_parse_stmt("t.scan({LIMIT => 2})", &st), ST_OK);
    assert_string_equal(st.receiver, "t");
    assert_string_equal(st.name, "scan");
    assert_int_equal(st.args.n, 1);
    shell_stmt_free(&st);
    assert_int_equal(shell_parse_stmt("x=create 't', 'f'", &st), ST_OK);
    assert_string_equal(st.assign, "x");
    assert_string_equal(st.name, "create");
    shell_stmt_free(&st);
    assert_int_equal(shell_parse_stmt("t", &st), ST_OK);
    assert_string_equal(st.name, "t");
    assert_null(st.assign);
    assert_int_equal(st.args.n, 0);
    shell_stmt_free(&st);
    /* '=>' and '==' are no assignment; a constant is not a variable */
    assert_string_equal(parsed("alter 't', NAME => 'f'", "alter"), "['t', {NAME => 'f'}]");
    bad("t = 5", "expected a command after 't ='");
    bad("t = ", "expected a command after 't ='");
    bad("t.", "unexpected '.' after the command name");
    bad("T = get_table 't'", "expected a value, found '='");
}

static void test_dispatch_stops_at_first_failure(void **state)
{
    (void)state;
    run_out r = run_text("version\nnosuch 1\nversion\n", false);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "ERROR: Unknown command 'nosuch'"));
    const char *first = strstr(r.out, "0.1.0, rUnknown");
    assert_non_null(first);
    assert_null(strstr(first + 1, "0.1.0, rUnknown")); /* the second version never ran */
    assert_non_null(strstr(r.out, "Took "));
    run_free(&r);

    r = run_text("list", false); /* no quorum given */
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "ERROR: no cluster given"));
    run_free(&r);

    r = run_text("put 't' 'r'", false);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "ERROR: syntax error at line 1, column 9"));
    run_free(&r);

    r = run_text("put 't'", false);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "ERROR: wrong number of arguments (given 1, expected 4..6)"));
    run_free(&r);
}

static void test_dispatch_interactive_goes_on(void **state)
{
    (void)state;
    run_out r = run_text("nosuch\nget 't'\nversion; exit 3\nversion", true);
    assert_int_equal(r.status, 3);
    assert_string_equal(r.err, "");
    assert_non_null(strstr(r.out, "ERROR: Unknown command 'nosuch'"));
    assert_non_null(strstr(r.out, "ERROR: wrong number of arguments (given 1, expected 2+)\n\n"
                                  "For usage try 'help \"get\"'\n\nTook "));
    assert_non_null(strstr(r.out, "0.1.0, rUnknown"));
    run_free(&r);

    r = run_text("version\n\n# comment\nquit", false);
    assert_int_equal(r.status, 0);
    run_free(&r);
    r = run_text("version", false);
    assert_int_equal(r.status, SHELL_CONTINUE);
    run_free(&r);
}

/* HBase commands Strata lacks fail with their reason, not as unknown commands. */
static void test_absent_commands(void **state)
{
    (void)state;
    run_out r = run_text("snapshot 't1', 's1'", false);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "ERROR: snapshot is not in Strata yet: snapshots are separate "
                                  "work"));
    run_free(&r);
    r = run_text("trace 'start'", false);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "ERROR: trace is not supported by Strata: Strata has no "
                                  "request tracing"));
    run_free(&r);
    r = run_text("help 'add_peer'", false);
    assert_int_equal(r.status, SHELL_CONTINUE);
    assert_non_null(strstr(r.out, "add_peer (HBase's group replication) is not in Strata yet"));
    run_free(&r);
    /* no absent command shadows one the shell has */
    static const char *const have[] = {"put", "get", "scan", "flush", "split", "rit", "hbck",
                                       "list_deadservers", "compact_rs", "regioninfo"};
    for (size_t i = 0; i < sizeof(have) / sizeof(have[0]); i++) {
        assert_null(shell_find_absent(have[i]));
        assert_non_null(shell_find_command(have[i]));
    }
}

static void test_help_texts(void **state)
{
    (void)state;
    run_out r = run_text("help", false);
    assert_int_equal(r.status, SHELL_CONTINUE);
    assert_non_null(strstr(r.out, "COMMAND GROUPS:\n  Group name: general\n"
                                  "  Commands: status, table_help, version, whoami\n"));
    assert_non_null(strstr(r.out, "  Group name: namespace\n  Commands: alter_namespace, "
                                  "create_namespace, describe_namespace, drop_namespace, "
                                  "list_namespace, list_namespace_tables\n"));
    assert_non_null(strstr(r.out, "SHELL USAGE:"));
    assert_null(strstr(r.out, "Took")); /* help is not timed */
    run_free(&r);
    /* Every command of every group has help, and help 'cmd' prints it. */
    const char *cmds[] = {"status",
                          "version",
                          "whoami",
                          "create_namespace",
                          "alter_namespace",
                          "list_deadservers",
                          "clear_deadservers",
                          "clone_table_schema",
                          "rit",
                          "compact_rs",
                          "enable_all",
                          "disable_all",
                          "drop_all",
                          "get_table",
                          "list_liveservers",
                          "list_unknownservers",
                          "is_in_maintenance_mode",
                          "regioninfo",
                          "close_region",
                          "list_enabled_tables",
                          "list_disabled_tables",
                          "drop_namespace",
                          "list_namespace",
                          "describe_namespace",
                          "list_namespace_tables",
                          "create",
                          "describe",
                          "desc",
                          "list",
                          "alter",
                          "disable",
                          "enable",
                          "drop",
                          "truncate",
                          "truncate_preserve",
                          "exists",
                          "is_enabled",
                          "is_disabled",
                          "put",
                          "get",
                          "scan",
                          "count",
                          "delete",
                          "deleteall",
                          "incr",
                          "get_counter",
                          "append",
                          "flush",
                          "compact",
                          "major_compact",
                          "move",
                          "assign",
                          "unassign",
                          "list_regions",
                          "locate_region"};
    for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
        char text[64];
        snprintf(text, sizeof(text), "help '%s'", cmds[i]);
        r = run_text(text, false);
        assert_int_equal(r.status, SHELL_CONTINUE);
        if (strlen(r.out) < 30 || !strstr(r.out, "strata> "))
            fail_msg("help '%s' printed '%s'", cmds[i], r.out);
        run_free(&r);
    }
    r = run_text("help 'dml'", false);
    assert_non_null(strstr(r.out, "Command: scan\n"));
    assert_non_null(strstr(r.out, "Command: truncate\n"));
    run_free(&r);
    r = run_text("help 'nosuch'", false);
    assert_int_equal(r.status, 1);
    assert_non_null(strstr(r.err, "ERROR: Unknown command or command group 'nosuch'"));
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_put_and_strings),
        cmocka_unit_test(test_parse_numbers_constants_collections),
        cmocka_unit_test(test_parse_empty_and_hash_lookup),
        cmocka_unit_test(test_corrupt_syntax_errors),
        cmocka_unit_test(test_corrupt_random_input_never_crashes),
        cmocka_unit_test(test_split_statements),
        cmocka_unit_test(test_text_open),
        cmocka_unit_test(test_multiline_statements),
        cmocka_unit_test(test_assign_and_receiver),
        cmocka_unit_test(test_escape_binary_every_byte),
        cmocka_unit_test(test_unescape_binary_and_round_trip),
        cmocka_unit_test(test_ttl_and_columns),
        cmocka_unit_test(test_dispatch_stops_at_first_failure),
        cmocka_unit_test(test_dispatch_interactive_goes_on),
        cmocka_unit_test(test_absent_commands),
        cmocka_unit_test(test_help_texts),
    };
    return tu_run_group_tests(tests, NULL, NULL);
}
