/*
 * config.h - a process's configuration: a registry of typed keys, each with a default
 * and a one-line description, filled from (later wins) the defaults, a file, the
 * environment and command-line flags. Every key is listed in docs/configuration.md.
 *
 *   file:  `key = value` lines; `#` starts a comment; blank lines are ignored.
 *   env:   STRATA_ + the key upper-cased with '.' as '_' (regionserver.port ->
 *          STRATA_REGIONSERVER_PORT).
 *   flags: `--key=value` or `--key value`.
 * A value is checked against its key's type when it is set: an int (decimal, optional
 * sign), a bool (true/false/yes/no/on/off/1/0), a size (an integer with an optional
 * binary suffix k, m, g, t, optionally followed by "b" or "ib": "64m", "2GiB"), a double
 * or a string. An unknown key in a file or a flag is an error naming it (and the file
 * and line); unknown STRATA_* variables are ignored.
 *
 * Thread-safety: define and load from one thread; once loaded the getters may be called
 * from any thread as long as nothing is set any more.
 */
#ifndef STRATA_COMMON_CONFIG_H
#define STRATA_COMMON_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum config_type {
    CONFIG_STRING = 0,
    CONFIG_INT = 1,
    CONFIG_BOOL = 2,
    CONFIG_SIZE = 3,
    CONFIG_DOUBLE = 4,
} config_type;

/* Where a key's effective value came from. */
typedef enum config_source {
    CONFIG_SRC_DEFAULT = 0,
    CONFIG_SRC_FILE = 1,
    CONFIG_SRC_ENV = 2,
    CONFIG_SRC_FLAG = 3,
} config_source;

/* One key of a registry table. */
typedef struct config_key {
    const char *key;
    config_type type;
    const char *default_value; /* "" for none */
    const char *description;
} config_key;

typedef struct config config;

/* An empty registry. ST_OK and *out, or ST_NOMEM with *out NULL. */
int config_new(config **out);
void config_free(config *c);

/* Defines a key with its default (checked against type). ST_EXISTS if defined already,
 * ST_INVALID_ARGUMENT if the default does not parse. */
int config_define(config *c, const char *key, config_type type, const char *default_value,
                  const char *description);
/* Defines every key of a table (stops at the first failure). */
int config_define_all(config *c, const config_key *keys, size_t n);

/* Sets key to value from source. ST_NOT_FOUND for an unknown key, ST_INVALID_ARGUMENT for
 * a value of the wrong type; the message names the key and value. */
int config_set(config *c, const char *key, const char *value, config_source source);

/* Reads a `key = value` file. ST_IO if it cannot be read; ST_INVALID_ARGUMENT for a line
 * without '=', an unknown key or a bad value, the message naming the file and line. */
int config_load_file(config *c, const char *path);
/* Applies STRATA_* variables of envp (NULL-terminated, e.g. environ). */
int config_load_env(config *c, char *const *envp);
/* Applies flags argv[0..argc) ("--key=value" or "--key value"). ST_INVALID_ARGUMENT for a
 * non-flag argument, a flag without a value, an unknown key or a bad value. */
int config_load_args(config *c, int argc, char *const *argv);

/* Getters of a defined key (an undefined key or a type mismatch is a programming error:
 * logged, and "" / 0 / false returned). */
const char *config_get_string(const config *c, const char *key);
int64_t config_get_int64(const config *c, const char *key);
bool config_get_bool(const config *c, const char *key);
uint64_t config_get_size(const config *c, const char *key);
double config_get_double(const config *c, const char *key);
config_source config_get_source(const config *c, const char *key);
bool config_has_key(const config *c, const char *key);

/* Parsers used by config_set (exposed for tests and tools); ST_OK or ST_INVALID_ARGUMENT. */
int config_parse_int64(const char *s, int64_t *out);
int config_parse_bool(const char *s, bool *out);
int config_parse_size(const char *s, uint64_t *out);

/* "default", "file", "env", "flag". */
const char *config_source_name(config_source s);
/* Prints "key = value    # source: description" for every key, in definition order. */
void config_print(const config *c, FILE *out);

#endif
