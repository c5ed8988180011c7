/*
 * shell_parse.h - the HBase shell's argument syntax (a small part of Ruby) and HBase's
 * binary-string escaping, for `strata shell` (docs/shell.md).
 *
 * A statement is a command name followed by arguments separated by commas, optionally
 * in parentheses:
 *
 *   put 't1', 'r1', 'cf:a', "\x00\x01", 1700000000000
 *   create 'ns:t', {NAME => 'cf', VERSIONS => 3}, SPLITS => ['a', 'm']
 *
 * Values: 'single quoted' (only \' and \\ are escapes), "double quoted" (\n \t \r \0
 * \s \e \a \b \f \v \xHH \NNN (octal) \uXXXX \" \\; #{...} interpolation is refused),
 * integers (decimal with optional sign and '_' separators, or 0x hex), floats, true,
 * false, nil, arrays [a, b], hashes {k => v, ...}, and bare constants (an upper-case
 * identifier such as NAME or VERSIONS, which stands for the string of its own name, as
 * HBase's shell constants do). Key => value pairs at the end of the argument list
 * without braces form one hash argument (Ruby's trailing-hash rule). '#' starts a
 * comment (to the end of its line) outside strings; ';' separates statements. A statement
 * may span lines while a bracket, brace, parenthesis or string is open or a line ends in
 * ',', '=>' or '\\' (shell_text_open).
 *
 * Binary strings: HBase prints bytes with Bytes.toStringBinary (printable ASCII 0x20-0x7E
 * except '\' as is, every other byte as \xNN, upper-case hex) and reads split keys and
 * locate_region rows with Bytes.toBytesBinary (\xNN, either case, is one byte).
 *
 * Thread-safety: reentrant; values belong to their caller.
 */
#ifndef STRATA_SHELL_SHELL_PARSE_H
#define STRATA_SHELL_SHELL_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

typedef enum shell_vkind {
    SHELL_V_NIL = 0,
    SHELL_V_BOOL,
    SHELL_V_INT,
    SHELL_V_FLOAT,
    SHELL_V_STR,
    SHELL_V_ARRAY,
    SHELL_V_HASH,
} shell_vkind;

typedef struct shell_value shell_value;
struct shell_value {
    shell_vkind kind;
    bool bare;          /* STR written as a bare constant (NAME) */
    bool b;             /* BOOL */
    int64_t i;          /* INT */
    double f;           /* FLOAT */
    char *s;            /* STR: len bytes, NUL-terminated (may hold NULs) */
    size_t len;         /* STR */
    shell_value *items; /* ARRAY: n items; HASH: 2n items, key then value */
    size_t n;
};

/* One statement: name NULL for an empty statement (blank or comment only). Ruby's two
 * forms around a command are read too: `var = command args` (assign) and `var.method
 * args` (receiver: the variable, name: the method), as the table references of
 * `t = get_table 't1'; t.put 'r', 'f:q', 'v'` use them; a bare `var` is a statement
 * whose name is the variable's and which has no arguments. */
typedef struct shell_stmt {
    char *name;
    char *assign;   /* the variable assigned, or NULL */
    char *receiver; /* the variable the method is called on, or NULL */
    shell_value args; /* an ARRAY */
} shell_stmt;

/* Parses one statement (no ';' splitting). ST_OK and *out (free with shell_stmt_free),
 * or ST_INVALID_ARGUMENT with st_errmsg() "syntax error at column N: ..." (1-based) and
 * *out empty; ST_NOMEM. */
int shell_parse_stmt(const char *text, shell_stmt *out);
/* The same for a statement that starts at line `line`, column `col` of a script: errors
 * say "syntax error at line L, column C: ..." (line 0: as shell_parse_stmt). */
int shell_parse_stmt_at(const char *text, int line, int col, shell_stmt *out);
void shell_stmt_free(shell_stmt *st);

/* Whether text needs more lines to be a whole statement, as Ruby reads it: 0 when it is
 * whole; otherwise the nesting (at least 1) of what is still open: a bracket, brace or
 * parenthesis, a string, or a line ending in ',', '=>' or '\\'. Comments do not count. */
int shell_text_open(const char *text);
void shell_value_free(shell_value *v);

/* Splits a line into statements at ';' outside strings, brackets and comments. ST_OK
 * with *out a malloc'ed array of *n malloc'ed strings (free with shell_split_free);
 * ST_NOMEM. Unbalanced quotes are left to shell_parse_stmt to report. */
int shell_split_stmts(const char *line, char ***out, size_t *n);
void shell_split_free(char **v, size_t n);

/* The value of key in a HASH (the last one if given twice), or NULL. A key matches a
 * STR of the same bytes (bare or quoted). */
const shell_value *shell_hash_get(const shell_value *hash, const char *key);
/* Key i / value i of a HASH. */
const shell_value *shell_hash_key(const shell_value *hash, size_t i);
const shell_value *shell_hash_val(const shell_value *hash, size_t i);

/* Ruby-like rendering of v for messages ("'a'", "[1, 2]", "{NAME => 'f'}"), appended to
 * b and NUL-terminated. ST_OK or ST_NOMEM. */
int shell_value_inspect(const shell_value *v, buf_t *b);
/* "String", "Integer", "Float", "true", "false", "nil", "Array", "Hash". */
const char *shell_value_type(const shell_value *v);

/* Appends Bytes.toStringBinary(data) to b and NUL-terminates it. ST_OK or ST_NOMEM. */
int shell_escape_binary(buf_t *b, const void *data, size_t len);
/* Bytes.toBytesBinary(s[0..len)) into out (replaced, NUL-terminated beyond out->len).
 * ST_OK or ST_NOMEM. */
int shell_unescape_binary(const char *s, size_t len, buf_t *out);

#endif
