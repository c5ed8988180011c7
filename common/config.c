/*
 * config.c - the configuration registry (config.h): typed keys kept in definition order,
 * values checked when set, and the file / environment / flag loaders.
 *
 * Thread-safety: see config.h; there is no lock (load first, then read).
 */
#include "common/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/log.h"
#include "common/status.h"

typedef struct config_entry {
    char *key;
    char *value;
    char *default_value;
    const char *description;
    config_type type;
    config_source source;
} config_entry;

struct config {
    config_entry *entries;
    size_t n, cap;
};

int config_new(config **out)
{
    *out = calloc(1, sizeof(**out));
    return *out ? ST_OK : st_error(ST_NOMEM, "config: out of memory");
}

void config_free(config *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->entries[i].key);
        free(c->entries[i].value);
        free(c->entries[i].default_value);
    }
    free(c->entries);
    free(c);
}

static config_entry *find(const config *c, const char *key)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->entries[i].key, key) == 0)
            return &c->entries[i];
    return NULL;
}

/* Copies this thread's error message, so that a new message can quote it. */
static const char *saved_msg(char *dst, size_t cap)
{
    snprintf(dst, cap, "%s", st_errmsg());
    return dst;
}

bool config_has_key(const config *c, const char *key)
{
    return find(c, key) != NULL;
}

/* ---- value parsers ---- */

int config_parse_int64(const char *s, int64_t *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (!*s || isspace((unsigned char)*s) || *end || errno == ERANGE)
        return st_error(ST_INVALID_ARGUMENT, "'%s' is not an integer", s);
    *out = v;
    return ST_OK;
}

int config_parse_bool(const char *s, bool *out)
{
    static const char *yes[] = {"true", "yes", "on", "1"};
    static const char *no[] = {"false", "no", "off", "0"};
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *out = true;
            return ST_OK;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *out = false;
            return ST_OK;
        }
    }
    return st_error(ST_INVALID_ARGUMENT, "'%s' is not a boolean (true/false)", s);
}

static int size_shift(const char *suffix, int *shift)
{
    static const char units[] = "kmgt";
    if (!*suffix) {
        *shift = 0;
        return ST_OK;
    }
    const char *u = strchr(units, tolower((unsigned char)suffix[0]));
    if (!u || !suffix[0])
        return ST_INVALID_ARGUMENT;
    const char *rest = suffix + 1;
    if (*rest && strcasecmp(rest, "b") != 0 && strcasecmp(rest, "ib") != 0)
        return ST_INVALID_ARGUMENT;
    *shift = 10 * (int)(u - units + 1);
    return ST_OK;
}

int config_parse_size(const char *s, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    if (!isdigit((unsigned char)*s))
        return st_error(ST_INVALID_ARGUMENT, "'%s' is not a size (e.g. 65536, 64k, 2m, 1g)", s);
    unsigned long long v = strtoull(s, &end, 10);
    int shift = 0;
    if (errno == ERANGE || size_shift(end, &shift) != ST_OK ||
        (shift && v > (UINT64_MAX >> shift)))
        return st_error(ST_INVALID_ARGUMENT, "'%s' is not a size (e.g. 65536, 64k, 2m, 1g)", s);
    *out = (uint64_t)v << shift;
    return ST_OK;
}

static int parse_double(const char *s, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno == ERANGE)
        return st_error(ST_INVALID_ARGUMENT, "'%s' is not a number", s);
    *out = v;
    return ST_OK;
}

static int check_value(config_type type, const char *value)
{
    int64_t i;
    bool b;
    uint64_t u;
    double d;
    switch (type) {
    case CONFIG_INT:
        return config_parse_int64(value, &i);
    case CONFIG_BOOL:
        return config_parse_bool(value, &b);
    case CONFIG_SIZE:
        return config_parse_size(value, &u);
    case CONFIG_DOUBLE:
        return parse_double(value, &d);
    case CONFIG_STRING:
        return ST_OK;
    }
    return ST_INVALID_ARGUMENT;
}

/* ---- definition and setting ---- */

int config_define(config *c, const char *key, config_type type, const char *default_value,
                  const char *description)
{
    char why[512];
    if (find(c, key))
        return st_error(ST_EXISTS, "config key '%s' defined twice", key);
    const char *dv = default_value ? default_value : "";
    if (*dv && check_value(type, dv) != ST_OK)
        return st_error(ST_INVALID_ARGUMENT, "config key '%s': bad default: %s", key,
                        saved_msg(why, sizeof(why)));
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 32;
        config_entry *e = realloc(c->entries, cap * sizeof(*e));
        if (!e)
            return st_error(ST_NOMEM, "config: out of memory");
        c->entries = e;
        c->cap = cap;
    }
    config_entry *e = &c->entries[c->n];
    memset(e, 0, sizeof(*e));
    e->key = strdup(key);
    e->value = strdup(dv);
    e->default_value = strdup(dv);
    if (!e->key || !e->value || !e->default_value) {
        free(e->key);
        free(e->value);
        free(e->default_value);
        return st_error(ST_NOMEM, "config: out of memory");
    }
    e->type = type;
    e->description = description ? description : "";
    e->source = CONFIG_SRC_DEFAULT;
    c->n++;
    return ST_OK;
}

int config_define_all(config *c, const config_key *keys, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int rc = config_define(c, keys[i].key, keys[i].type, keys[i].default_value,
                               keys[i].description);
        if (rc != ST_OK)
            return rc;
    }
    return ST_OK;
}

int config_set(config *c, const char *key, const char *value, config_source source)
{
    char why[512];
    config_entry *e = find(c, key);
    if (!e)
        return st_error(ST_NOT_FOUND, "unknown configuration key '%s'", key);
    if (*value && check_value(e->type, value) != ST_OK)
        return st_error(ST_INVALID_ARGUMENT, "bad value for '%s': %s", key, saved_msg(why, sizeof(why)));
    char *v = strdup(value);
    if (!v)
        return st_error(ST_NOMEM, "config: out of memory");
    free(e->value);
    e->value = v;
    e->source = source;
    return ST_OK;
}

/* ---- loaders ---- */

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = 0;
    return s;
}

static int load_line(config *c, const char *path, int lineno, char *line)
{
    char why[512];
    char *hash = strchr(line, '#');
    if (hash)
        *hash = 0;
    char *s = trim(line);
    if (!*s)
        return ST_OK;
    char *eq = strchr(s, '=');
    if (!eq)
        return st_error(ST_INVALID_ARGUMENT, "%s:%d: expected 'key = value'", path, lineno);
    *eq = 0;
    char *key = trim(s), *value = trim(eq + 1);
    if (!*key)
        return st_error(ST_INVALID_ARGUMENT, "%s:%d: missing key before '='", path, lineno);
    int rc = config_set(c, key, value, CONFIG_SRC_FILE);
    if (rc != ST_OK)
        return st_error(ST_INVALID_ARGUMENT, "%s:%d: %s", path, lineno, saved_msg(why, sizeof(why)));
    return ST_OK;
}

int config_load_file(config *c, const char *path)
{
    char why[512];
    buf_t b = {0};
    int rc = fio_read_all(path, &b);
    if (rc != ST_OK) {
        rc = st_error(ST_IO, "config file %s: %s", path, saved_msg(why, sizeof(why)));
        goto done;
    }
    if ((rc = buf_append_u8(&b, 0)) != ST_OK)
        goto done;
    char *p = (char *)b.data;
    for (int lineno = 1; p && rc == ST_OK; lineno++) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = 0;
        rc = load_line(c, path, lineno, p);
        p = nl ? nl + 1 : NULL;
    }
done:
    buf_free(&b);
    return rc;
}

/* "regionserver.port" -> "STRATA_REGIONSERVER_PORT" */
static void env_name(const char *key, char *out, size_t cap)
{
    size_t n = (size_t)snprintf(out, cap, "STRATA_");
    for (; *key && n + 1 < cap; key++)
        out[n++] = *key == '.' ? '_' : (char)toupper((unsigned char)*key);
    out[n] = 0;
}

int config_load_env(config *c, char *const *envp)
{
    char why[512];
    char name[256];
    for (size_t i = 0; i < c->n; i++) {
        env_name(c->entries[i].key, name, sizeof(name));
        size_t len = strlen(name);
        for (char *const *e = envp; e && *e; e++) {
            if (strncmp(*e, name, len) != 0 || (*e)[len] != '=')
                continue;
            int rc = config_set(c, c->entries[i].key, *e + len + 1, CONFIG_SRC_ENV);
            if (rc != ST_OK)
                return st_error(rc, "environment %s: %s", name, saved_msg(why, sizeof(why)));
        }
    }
    return ST_OK;
}

int config_load_args(config *c, int argc, char *const *argv)
{
    char why[512];
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) != 0 || !a[2])
            return st_error(ST_INVALID_ARGUMENT, "unexpected argument '%s'", a);
        char key[256];
        const char *value = NULL;
        const char *eq = strchr(a + 2, '=');
        size_t klen = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
        if (klen >= sizeof(key))
            return st_error(ST_INVALID_ARGUMENT, "flag '%s' is too long", a);
        memcpy(key, a + 2, klen);
        key[klen] = 0;
        if (!find(c, key))
            return st_error(ST_INVALID_ARGUMENT, "unknown flag --%s (no configuration key '%s')",
                            key, key);
        if (eq)
            value = eq + 1;
        else if (i + 1 < argc)
            value = argv[++i];
        else
            return st_error(ST_INVALID_ARGUMENT, "flag --%s needs a value", key);
        int rc = config_set(c, key, value, CONFIG_SRC_FLAG);
        if (rc != ST_OK)
            return st_error(ST_INVALID_ARGUMENT, "flag --%s: %s", key, saved_msg(why, sizeof(why)));
    }
    return ST_OK;
}

/* ---- getters ---- */

static const config_entry *get(const config *c, const char *key, config_type type)
{
    const config_entry *e = find(c, key);
    if (!e || e->type != type) {
        LOG_ERROR("config: key '%s' %s", key, e ? "read with the wrong type" : "is not defined");
        return NULL;
    }
    return e;
}

const char *config_get_string(const config *c, const char *key)
{
    const config_entry *e = get(c, key, CONFIG_STRING);
    return e ? e->value : "";
}

int64_t config_get_int64(const config *c, const char *key)
{
    const config_entry *e = get(c, key, CONFIG_INT);
    int64_t v = 0;
    if (e && *e->value)
        config_parse_int64(e->value, &v);
    return v;
}

bool config_get_bool(const config *c, const char *key)
{
    const config_entry *e = get(c, key, CONFIG_BOOL);
    bool v = false;
    if (e && *e->value)
        config_parse_bool(e->value, &v);
    return v;
}

uint64_t config_get_size(const config *c, const char *key)
{
    const config_entry *e = get(c, key, CONFIG_SIZE);
    uint64_t v = 0;
    if (e && *e->value)
        config_parse_size(e->value, &v);
    return v;
}

double config_get_double(const config *c, const char *key)
{
    const config_entry *e = get(c, key, CONFIG_DOUBLE);
    double v = 0;
    if (e && *e->value)
        parse_double(e->value, &v);
    return v;
}

config_source config_get_source(const config *c, const char *key)
{
    const config_entry *e = find(c, key);
    return e ? e->source : CONFIG_SRC_DEFAULT;
}

const char *config_source_name(config_source s)
{
    switch (s) {
    case CONFIG_SRC_DEFAULT:
        return "default";
    case CONFIG_SRC_FILE:
        return "file";
    case CONFIG_SRC_ENV:
        return "env";
    case CONFIG_SRC_FLAG:
        return "flag";
    }
    return "?";
}

void config_print(const config *c, FILE *out)
{
    for (size_t i = 0; i < c->n; i++) {
        const config_entry *e = &c->entries[i];
        fprintf(out, "%s = %s\t# %s: %s\n", e->key, e->value, config_source_name(e->source),
                e->description);
    }
}
