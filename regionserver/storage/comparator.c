/*
 * comparator.c - the comparators of CompareFilter and SingleColumnValueFilter.
 *
 * comparator_matches() answers "does `data op value` hold", the way HBase's filters
 * decide to keep a cell. (HBase computes value.compareTo(data) and filters out on the
 * inverted relation; the outcome is the same: ValueFilter(>, 'binary:m') keeps values
 * greater than "m".)
 *   binary        unsigned lexicographic order of data against value
 *   binaryprefix  the same, on data cut to at most len(value) bytes
 *   substring     data contains value, ASCII case-insensitively: only = and !=
 *   regexstring   POSIX extended regex found anywhere in data: only = and !=
 * CMP_NO_OP never matches, and neither does an ordering operator with substring or
 * regexstring (HBase's parser rejects those combinations).
 * A regex pattern is checked before regcomp() (check_regex_cost): glibc copies the
 * subexpression of every repetition ("x+" twice, "x{n,m}" m times), so stacked or nested
 * repetitions grow its tree exponentially ("x" and thirty '+' would need gigabytes); the
 * epsilon closures it computes next take time quadratic in the tree where much of it is
 * optional, and far worse once a part that can match the empty string is repeated
 * ("(||||||||||||||||)+++++" twice ran for more than nine minutes); and it parses groups
 * recursively (some ten thousand nested parentheses overflow a thread's stack). So a
 * pattern that needs more than REGEX_MAX_NODES nodes (every character, bracket
 * expression, operator and group, with repetitions counted as the copies glibc makes),
 * nests groups deeper than REGEX_MAX_DEPTH, or repeats a part that can match the empty
 * string ("(a|)+", "(x*)*", "x*?": POSIX leaves stacked repetitions undefined anyway) is
 * refused as an invalid argument; the worst pattern left compiles in about 0.1 s.
 * Thread-safety: a comparator is immutable after creation; matching is read-only
 * (regexec on a compiled pattern is safe from several threads).
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "regionserver/storage/filter_internal.h"

#define REGEX_MAX_NODES 2048   /* pattern nodes once glibc has copied repetitions */
#define REGEX_MAX_DEPTH 64     /* nested groups */
#define REGEX_COUNT_CAP 100000 /* repetition counts saturate here (RE_DUP_MAX is 32767) */

struct comparator {
    comparator_type type;
    uint8_t *value; /* substring: lower-cased; regex: NUL-terminated pattern */
    size_t len;
    bool compiled;
    regex_t re;
};

/* ASCII lower case, independent of the locale (bytes >= 0x80 are left alone). */
static uint8_t ascii_lower(uint8_t b)
{
    return b >= 'A' && b <= 'Z' ? (uint8_t)(b - 'A' + 'a') : b;
}

/* One group while scanning: its nodes so far, its last atom (what a repetition that
 * follows applies to), and what of it can match the empty string. */
typedef struct rx_group {
    uint64_t total;
    uint64_t last;      /* nodes of the last atom; 0 when there is none */
    bool last_empty;    /* the last atom can match "" */
    bool before_empty;  /* the branch before the last atom can match "" */
    bool earlier_empty; /* a branch before the last '|' can match "" */
} rx_group;

static const rx_group rx_new_group = {0, 0, false, true, false};

static bool rx_branch_empty(const rx_group *g)
{
    return g->before_empty && (g->last == 0 || g->last_empty);
}

static bool rx_group_empty(const rx_group *g)
{
    return g->earlier_empty || rx_branch_empty(g);
}

static void rx_atom(rx_group *g, uint64_t nodes, bool empty)
{
    g->before_empty = rx_branch_empty(g);
    g->total += nodes;
    g->last = nodes;
    g->last_empty = empty;
}

/* The repetition's node and the copies of its atom; the result matches "" only if the
 * repetition allows zero copies (its atom cannot: check_regex_cost refuses that). */
static void rx_repeat(rx_group *g, uint64_t copies, bool min_zero)
{
    g->total = g->total - g->last + g->last * copies + 1;
    g->last = g->last * copies + 1;
    g->last_empty = min_zero;
}

static void rx_alternative(rx_group *g)
{
    g->earlier_empty = rx_group_empty(g);
    g->before_empty = true;
    g->last = 0;
    g->total++; /* the alternation node */
}

/* Reads the digits at p[*i] (saturating at REGEX_COUNT_CAP); -1 if there are none. */
static long rx_number(const uint8_t *p, size_t n, size_t *i)
{
    long v = -1;
    for (; *i < n && p[*i] >= '0' && p[*i] <= '9'; (*i)++) {
        long d = p[*i] - '0';
        v = v < 0 ? d : v * 10 + d;
        if (v > REGEX_COUNT_CAP)
            v = REGEX_COUNT_CAP;
    }
    return v;
}

/* Parses "{n}", "{n,}" or "{n,m}" at p[*i] == '{'. Returns how many copies of its atom
 * glibc makes (m, or n + 1 when unbounded, at least 1), sets *min_zero when n is 0 and
 * moves *i past the '}'; 0 if it is not an interval (then it is a literal '{' for this
 * estimate). */
static uint64_t rx_interval(const uint8_t *p, size_t n, size_t *i, bool *min_zero)
{
    size_t j = *i + 1;
    /* glibc reads "{,m}" as "{0,m}" */
    long lo = j < n && p[j] == ',' ? 0 : rx_number(p, n, &j), hi = lo;
    if (lo < 0)
        return 0;
    if (j < n && p[j] == ',') {
        j++;
        hi = rx_number(p, n, &j); /* -1: unbounded */
    }
    if (j >= n || p[j] != '}')
        return 0;
    *i = j + 1;
    *min_zero = lo == 0;
    uint64_t copies = hi < 0 ? (uint64_t)lo + 1 : (uint64_t)hi;
    return copies ? copies : 1;
}

/* Moves *i past the bracket expression that starts at p[*i] == '['. */
static void rx_bracket(const uint8_t *p, size_t n, size_t *i)
{
    size_t j = *i + 1;
    if (j < n && p[j] == '^')
        j++;
    if (j < n && p[j] == ']')
        j++; /* a leading ']' is a literal */
    while (j < n && p[j] != ']') {
        if (p[j] == '[' && j + 1 < n && (p[j + 1] == ':' || p[j + 1] == '.' || p[j + 1] == '=')) {
            uint8_t close = p[j + 1];
            j += 2;
            while (j + 1 < n && !(p[j] == close && p[j + 1] == ']'))
                j++;
            j += 2;
        } else {
            j++;
        }
    }
    *i = j < n ? j + 1 : n;
}

/* Reads the atom at p[*i] (a character, an escape or a bracket expression); returns
 * whether it can match the empty string (anchors, word boundaries, back-references). */
static bool rx_simple_atom(const uint8_t *p, size_t n, size_t *i)
{
    uint8_t c = p[*i];
    if (c == '[') {
        rx_bracket(p, n, i);
        return false;
    }
    if (c == '\\' && *i + 1 < n) {
        *i += 2;
        return strchr("123456789bB<>`'", p[*i - 1]) != NULL;
    }
    (*i)++;
    return c == '^' || c == '$';
}

static int rx_too_complex(const uint8_t *pattern, size_t at)
{
    return st_error(ST_INVALID_ARGUMENT,
                    "regexstring pattern is too complex: with its repetitions copied it "
                    "needs more than %d nodes (at byte %zu of '%.40s')",
                    REGEX_MAX_NODES, at, (const char *)pattern);
}

static int rx_repeats_empty(const uint8_t *pattern, size_t at)
{
    return st_error(ST_INVALID_ARGUMENT,
                    "regexstring pattern repeats a part that can match the empty string (at "
                    "byte %zu of '%.40s'; 'x*?', 'x*+' and '(a|)+' are of that kind), which "
                    "makes regcomp's work explode",
                    at, (const char *)pattern);
}

/* Estimates the tree glibc's regcomp builds for the ERE p (n bytes) and refuses one of
 * more than REGEX_MAX_NODES nodes, with groups nested deeper than REGEX_MAX_DEPTH, or
 * repeating a part that can match the empty string. Malformed syntax is left for
 * regcomp to report. */
static int check_regex_cost(const uint8_t *p, size_t n)
{
    rx_group stack[REGEX_MAX_DEPTH + 1];
    int depth = 0;
    stack[0] = rx_new_group;
    for (size_t i = 0; i < n;) {
        rx_group *g = &stack[depth];
        size_t at = i;
        uint64_t copies = 0;
        bool min_zero = p[i] != '+';
        if (p[i] == '*' || p[i] == '?' || p[i] == '+')
            copies = p[i++] == '+' ? 2 : 1;
        else if (p[i] == '{')
            copies = rx_interval(p, n, &i, &min_zero);
        if (copies && g->last) {
            if (g->last_empty)
                return rx_repeats_empty(p, at);
            rx_repeat(g, copies, min_zero);
        } else if (copies) {
            rx_atom(g, 1, false); /* a repetition with nothing before it is a literal */
        } else if (p[i] == '(') {
            if (depth == REGEX_MAX_DEPTH)
                return st_error(ST_INVALID_ARGUMENT,
                                "regexstring pattern nests groups deeper than %d (at byte %zu)",
                                REGEX_MAX_DEPTH, i);
            stack[++depth] = rx_new_group;
            i++;
        } else if (p[i] == ')' && depth > 0) {
            rx_group inner = stack[depth--];
            rx_atom(&stack[depth], inner.total + 2, rx_group_empty(&inner)); /* + open, close */
            i++;
        } else if (p[i] == '|') {
            rx_alternative(g);
            i++;
        } else {
            bool empty = rx_simple_atom(p, n, &i);
            rx_atom(g, 1, empty);
        }
        if (stack[depth].total > REGEX_MAX_NODES)
            return rx_too_complex(p, at);
    }
    uint64_t total = 0;
    for (int d = 0; d <= depth; d++) /* groups left open: regcomp will refuse them */
        total += stack[d].total;
    return total > REGEX_MAX_NODES ? rx_too_complex(p, n) : ST_OK;
}

static int compile_regex(comparator *c)
{
    if (memchr(c->value, '\0', c->len))
        return st_error(ST_INVALID_ARGUMENT, "regexstring pattern contains a NUL byte");
    int cost = check_regex_cost(c->value, c->len);
    if (cost != ST_OK)
        return cost;
    int rc = regcomp(&c->re, (const char *)c->value, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char why[256];
        regerror(rc, &c->re, why, sizeof(why));
        return st_error(ST_INVALID_ARGUMENT, "invalid regexstring pattern '%s': %s",
                        (const char *)c->value, why);
    }
    c->compiled = true;
    return ST_OK;
}

int comparator_create(comparator_type type, const uint8_t *value, size_t len, comparator **out)
{
    int rc = ST_OK;
    *out = NULL;
    if ((int)type < (int)COMPARATOR_BINARY || (int)type > (int)COMPARATOR_REGEX)
        return st_error(ST_INVALID_ARGUMENT, "unknown comparator type %d", (int)type);
    comparator *c = calloc(1, sizeof(*c));
    if (c == NULL || (c->value = malloc(len + 1)) == NULL) {
        rc = st_error(ST_NOMEM, "comparator: out of memory for a %zu-byte value", len);
        goto fail;
    }
    c->type = type;
    c->len = len;
    if (len)
        memcpy(c->value, value, len);
    c->value[len] = '\0';
    if (type == COMPARATOR_SUBSTRING) {
        for (size_t i = 0; i < len; i++)
            c->value[i] = ascii_lower(c->value[i]);
    } else if (type == COMPARATOR_REGEX) {
        rc = compile_regex(c);
        if (rc != ST_OK)
            goto fail;
    }
    *out = c;
    return ST_OK;
fail:
    comparator_free(c);
    return rc;
}

comparator *comparator_new(comparator_type type, const uint8_t *value, size_t len)
{
    comparator *c = NULL;
    comparator_create(type, value, len, &c);
    return c;
}

void comparator_free(comparator *c)
{
    if (c == NULL)
        return;
    if (c->compiled)
        regfree(&c->re);
    free(c->value);
    free(c);
}

bool comparator_equality_only(const comparator *c)
{
    return c->type == COMPARATOR_SUBSTRING || c->type == COMPARATOR_REGEX;
}

/* <0, 0, >0 as a is below, equal to or above b (unsigned bytes, shorter first on ties). */
static int bytes_order(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    size_t n = alen < blen ? alen : blen;
    int r = n ? memcmp(a, b, n) : 0;
    if (r)
        return r;
    return alen < blen ? -1 : alen > blen ? 1 : 0;
}

static bool contains_nocase(const uint8_t *hay, size_t hlen, const uint8_t *lower_needle,
                            size_t nlen)
{
    if (nlen == 0)
        return true;
    for (size_t i = 0; i + nlen <= hlen; i++) {
        size_t j = 0;
        while (j < nlen && ascii_lower(hay[i + j]) == lower_needle[j])
            j++;
        if (j == nlen)
            return true;
    }
    return false;
}

static bool regex_found(const comparator *c, const uint8_t *data, size_t len)
{
#ifdef REG_STARTEND
    regmatch_t m[1] = {{.rm_so = 0, .rm_eo = (regoff_t)len}};
    return regexec(&c->re, len ? (const char *)data : "", 1, m, REG_STARTEND) == 0;
#else
    char *s = malloc(len + 1);
    if (s == NULL)
        return false;
    if (len)
        memcpy(s, data, len);
    s[len] = '\0';
    bool found = regexec(&c->re, s, 0, NULL, 0) == 0;
    free(s);
    return found;
#endif
}

/* Where data sits relative to the comparator's value: <0, 0 or >0. For substring and
 * regex, 0 means "found" and 1 "not found", as in HBase. */
static int data_order(const comparator *c, const uint8_t *data, size_t len)
{
    switch (c->type) {
    case COMPARATOR_BINARY:
        return bytes_order(data, len, c->value, c->len);
    case COMPARATOR_BINARY_PREFIX:
        return bytes_order(data, len < c->len ? len : c->len, c->value, c->len);
    case COMPARATOR_SUBSTRING:
        return contains_nocase(data, len, c->value, c->len) ? 0 : 1;
    case COMPARATOR_REGEX:
        return regex_found(c, data, len) ? 0 : 1;
    }
    return 1;
}

bool comparator_matches(const comparator *c, compare_op op, const uint8_t *data, size_t len)
{
    if (c == NULL || op == CMP_NO_OP)
        return false;
    if (comparator_equality_only(c) && op != CMP_EQUAL && op != CMP_NOT_EQUAL)
        return false;
    int r = data_order(c, data, len);
    switch (op) {
    case CMP_LESS:
        return r < 0;
    case CMP_LESS_OR_EQUAL:
        return r <= 0;
    case CMP_EQUAL:
        return r == 0;
    case CMP_NOT_EQUAL:
        return r != 0;
    case CMP_GREATER_OR_EQUAL:
        return r >= 0;
    case CMP_GREATER:
        return r > 0;
    case CMP_NO_OP:
        break;
    }
    return false;
}
