/*
 * locator.c - the locator interface's dispatch, region helpers, and two of the
 * locators: a fixed list and a text file (format in locator.h). The master's locator is
 * in locator_master.c.
 *
 * Both keep a "region set": an array sorted by (table, start key) whose regions of one
 * table do not overlap. A lookup is a linear walk of the table's regions (a locator is
 * consulted only on a cache miss; sets are small). The file locator replaces its set
 * whenever a lookup finds the file changed (stat: inode, size, mtime); a file that fails
 * to read or parse after a good read keeps the previous set (logged), and is tried again
 * on the next lookup.
 *
 * Thread-safety: each locator has one mutex (a leaf lock) held across its lookups and
 * reloads.
 */
#include "client/locator.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/log.h"
#include "common/status.h"

/* ---- dispatch and region helpers ---- */

int locator_locate(locator *l, const char *table, const uint8_t *row, size_t row_len,
                   locator_region *out)
{
    return l->vt->locate(l, table, row, row_len, out);
}

int locator_locate_all(locator *l, const char *table, locator_region **out, size_t *n)
{
    return l->vt->locate_all(l, table, out, n);
}

int locator_locate_prefetch(locator *l, const char *table, const uint8_t *row, size_t row_len,
                            locator_region **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (l->vt->locate_prefetch)
        return l->vt->locate_prefetch(l, table, row, row_len, out, n);
    locator_region *one = calloc(1, sizeof(*one));
    if (!one)
        return st_error(ST_NOMEM, "locator: out of memory");
    int rc = l->vt->locate(l, table, row, row_len, one);
    if (rc != ST_OK) {
        free(one);
        return rc;
    }
    *out = one;
    *n = 1;
    return ST_OK;
}

bool locator_can_wait(const locator *l)
{
    return l->vt->locate_wait != NULL;
}

int locator_locate_wait(locator *l, const char *table, const uint8_t *row, size_t row_len,
                        const char *exclude, const char *exclude_region, int wait_ms,
                        locator_region **out, size_t *n)
{
    if (!l->vt->locate_wait)
        return locator_locate_prefetch(l, table, row, row_len, out, n);
    *out = NULL;
    *n = 0;
    return l->vt->locate_wait(l, table, row, row_len, exclude, exclude_region, wait_ms, out, n);
}

void locator_free(locator *l)
{
    if (l)
        l->vt->free(l);
}

void locator_region_clear(locator_region *r)
{
    free(r->table);
    free(r->encoded_name);
    free(r->start_key);
    free(r->end_key);
    free(r->host);
    memset(r, 0, sizeof(*r));
}

void locator_regions_free(locator_region *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        locator_region_clear(&v[i]);
    free(v);
}

static uint8_t *bytes_dup(const uint8_t *p, size_t n)
{
    uint8_t *d = malloc(n ? n : 1);
    if (d && n)
        memcpy(d, p, n);
    return d;
}

int locator_region_copy(locator_region *dst, const locator_region *src)
{
    memset(dst, 0, sizeof(*dst));
    dst->table = strdup(src->table);
    dst->encoded_name = strdup(src->encoded_name);
    dst->host = strdup(src->host);
    dst->start_key = bytes_dup(src->start_key, src->start_len);
    dst->end_key = bytes_dup(src->end_key, src->end_len);
    dst->start_len = src->start_len;
    dst->end_len = src->end_len;
    dst->port = src->port;
    dst->start_code = src->start_code;
    if (!dst->table || !dst->encoded_name || !dst->host || !dst->start_key || !dst->end_key) {
        locator_region_clear(dst);
        return st_error(ST_NOMEM, "locator: out of memory copying a region");
    }
    return ST_OK;
}

int locator_split_addr(const char *host_port, char **host, uint16_t *port)
{
    *host = NULL;
    const char *colon = host_port ? strrchr(host_port, ':') : NULL;
    if (!colon || colon == host_port)
        return st_error(ST_INVALID_ARGUMENT, "address '%s' is not host:port",
                        host_port ? host_port : "(null)");
    char *end = NULL;
    errno = 0;
    long p = strtol(colon + 1, &end, 10);
    if (errno || end == colon + 1 || *end || p < 1 || p > 65535)
        return st_error(ST_INVALID_ARGUMENT, "address '%s' has a bad port", host_port);
    *host = strndup(host_port, (size_t)(colon - host_port));
    if (!*host)
        return st_error(ST_NOMEM, "locator: out of memory");
    *port = (uint16_t)p;
    return ST_OK;
}

static int key_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
    size_t n = al < bl ? al : bl;
    int c = n ? memcmp(a, b, n) : 0;
    return c ? c : (al > bl) - (al < bl);
}

static bool region_holds(const locator_region *r, const uint8_t *row, size_t len)
{
    return key_cmp(row, len, r->start_key, r->start_len) >= 0 &&
           (r->end_len == 0 || key_cmp(row, len, r->end_key, r->end_len) < 0);
}

static int region_order(const void *pa, const void *pb)
{
    const locator_region *a = pa, *b = pb;
    int c = strcmp(a->table, b->table);
    return c ? c : key_cmp(a->start_key, a->start_len, b->start_key, b->start_len);
}

/* ---- region sets ---- */

typedef struct regset {
    locator_region *v;
    size_t n;
} regset;

/* Sorts the set and checks that no two regions of a table overlap. */
static int regset_check(regset *s, const char *name)
{
    qsort(s->v, s->n, sizeof(*s->v), region_order);
    for (size_t i = 1; i < s->n; i++) {
        const locator_region *a = &s->v[i - 1], *b = &s->v[i];
        if (strcmp(a->table, b->table) != 0)
            continue;
        if (a->end_len == 0 || key_cmp(a->end_key, a->end_len, b->start_key, b->start_len) > 0)
            return st_error(ST_CORRUPTION, "%s: regions %s and %s of table %s overlap", name,
                            a->encoded_name, b->encoded_name, a->table);
    }
    return ST_OK;
}

static int regset_find(const regset *s, const char *table, const uint8_t *row, size_t len,
                       locator_region *out)
{
    bool known = false;
    for (size_t i = 0; i < s->n; i++) {
        if (strcmp(s->v[i].table, table) != 0)
            continue;
        known = true;
        if (region_holds(&s->v[i], row, len))
            return locator_region_copy(out, &s->v[i]);
    }
    if (!known)
        return st_error(ST_NOT_FOUND, "locator: table %s has no regions", table);
    return st_error(ST_NOT_SERVING, "locator: no region of table %s holds the row (%zu bytes)",
                    table, len);
}

static int regset_all(const regset *s, const char *table, locator_region **out, size_t *n)
{
    size_t cnt = 0, k = 0;
    *out = NULL;
    *n = 0;
    for (size_t i = 0; i < s->n; i++)
        cnt += strcmp(s->v[i].table, table) == 0;
    if (cnt == 0)
        return st_error(ST_NOT_FOUND, "locator: table %s has no regions", table);
    locator_region *v = calloc(cnt, sizeof(*v));
    if (!v)
        return st_error(ST_NOMEM, "locator: out of memory");
    for (size_t i = 0; i < s->n; i++) {
        if (strcmp(s->v[i].table, table) != 0)
            continue;
        if (locator_region_copy(&v[k], &s->v[i]) != ST_OK) {
            locator_regions_free(v, k);
            return ST_NOMEM;
        }
        k++;
    }
    *out = v;
    *n = cnt;
    return ST_OK;
}

/* ---- parsing ---- */

static int hexval(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* Decodes a hex key ("-" = empty) into a malloc'ed buffer. */
static int parse_key(const char *tok, uint8_t **out, size_t *len)
{
    size_t tl = strcmp(tok, "-") == 0 ? 0 : strlen(tok);
    *out = NULL;
    *len = 0;
    if (tl % 2)
        return ST_INVALID_ARGUMENT;
    uint8_t *k = malloc(tl / 2 + 1);
    if (!k)
        return ST_NOMEM;
    for (size_t i = 0; i < tl / 2; i++) {
        int hi = hexval((unsigned char)tok[2 * i]), lo = hexval((unsigned char)tok[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            free(k);
            return ST_INVALID_ARGUMENT;
        }
        k[i] = (uint8_t)(hi << 4 | lo);
    }
    *out = k;
    *len = tl / 2;
    return ST_OK;
}

/* Parses one line's five tokens into r. */
static int parse_fields(char **tok, const char *name, int lineno, locator_region *r)
{
    int rc = ST_OK;
    memset(r, 0, sizeof(*r));
    r->table = strdup(tok[0]);
    r->encoded_name = strdup(tok[1]);
    if (!r->table || !r->encoded_name) {
        rc = st_error(ST_NOMEM, "%s:%d: out of memory", name, lineno);
        goto out;
    }
    if (parse_key(tok[2], &r->start_key, &r->start_len) != ST_OK ||
        parse_key(tok[3], &r->end_key, &r->end_len) != ST_OK) {
        rc = st_error(ST_CORRUPTION, "%s:%d: bad hex key '%s' or '%s' (use - for empty)", name,
                      lineno, tok[2], tok[3]);
        goto out;
    }
    if (r->end_len && key_cmp(r->start_key, r->start_len, r->end_key, r->end_len) >= 0) {
        rc = st_error(ST_CORRUPTION, "%s:%d: region %s ends at or before its start", name, lineno,
                      r->encoded_name);
        goto out;
    }
    if (locator_split_addr(tok[4], &r->host, &r->port) != ST_OK)
        rc = st_error(ST_CORRUPTION, "%s:%d: bad address '%s' (want host:port)", name, lineno,
                      tok[4]);
out:
    if (rc != ST_OK)
        locator_region_clear(r);
    return rc;
}

/* Parses one line (NUL-terminated, comment included) into *set; blank lines add
 * nothing. */
static int parse_line(char *line, const char *name, int lineno, regset *set, size_t *cap)
{
    char *hash = strchr(line, '#'), *save = NULL, *tok[6];
    int nt = 0;
    if (hash)
        *hash = '\0';
    for (char *t = strtok_r(line, " \t\r", &save); t && nt < 6; t = strtok_r(NULL, " \t\r", &save))
        tok[nt++] = t;
    if (nt == 0)
        return ST_OK;
    if (nt != 5)
        return st_error(ST_CORRUPTION,
                        "%s:%d: want 5 fields (table encoded_name start_hex "
                        "end_hex host:port), found %s%d",
                        name, lineno, nt > 5 ? "more than " : "", nt > 5 ? 5 : nt);
    if (set->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 8;
        locator_region *nv = realloc(set->v, nc * sizeof(*nv));
        if (!nv)
            return st_error(ST_NOMEM, "%s:%d: out of memory", name, lineno);
        set->v = nv;
        *cap = nc;
    }
    int rc = parse_fields(tok, name, lineno, &set->v[set->n]);
    if (rc == ST_OK)
        set->n++;
    return rc;
}

int locator_parse(const char *text, size_t len, const char *name, locator_region **out, size_t *n)
{
    regset set = {0};
    size_t cap = 0;
    int rc = ST_OK, lineno = 0;
    char *copy = malloc(len + 1);
    *out = NULL;
    *n = 0;
    if (!copy)
        return st_error(ST_NOMEM, "%s: out of memory", name);
    memcpy(copy, text, len);
    copy[len] = '\0';
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        int at = 1;
        for (const char *p = text; p < nul; p++)
            at += *p == '\n';
        rc = st_error(ST_CORRUPTION, "%s:%d: contains a NUL byte", name, at);
    }
    for (char *line = copy, *nl; line && rc == ST_OK; line = nl) {
        nl = strchr(line, '\n');
        if (nl)
            *nl++ = '\0';
        rc = parse_line(line, name, ++lineno, &set, &cap);
    }
    if (rc == ST_OK)
        rc = regset_check(&set, name);
    free(copy);
    if (rc != ST_OK) {
        locator_regions_free(set.v, set.n);
        return rc;
    }
    *out = set.v;
    *n = set.n;
    return ST_OK;
}

/* ---- the fixed list ---- */

typedef struct fixed_locator {
    locator base;
    pthread_mutex_t mu;
    regset set;
    size_t cap;
} fixed_locator;

static int fixed_locate(locator *l, const char *table, const uint8_t *row, size_t len,
                        locator_region *out)
{
    fixed_locator *f = (fixed_locator *)l;
    pthread_mutex_lock(&f->mu);
    int rc = regset_find(&f->set, table, row, len, out);
    pthread_mutex_unlock(&f->mu);
    return rc;
}

static int fixed_locate_all(locator *l, const char *table, locator_region **out, size_t *n)
{
    fixed_locator *f = (fixed_locator *)l;
    pthread_mutex_lock(&f->mu);
    int rc = regset_all(&f->set, table, out, n);
    pthread_mutex_unlock(&f->mu);
    return rc;
}

static void fixed_free(locator *l)
{
    fixed_locator *f = (fixed_locator *)l;
    locator_regions_free(f->set.v, f->set.n);
    pthread_mutex_destroy(&f->mu);
    free(f);
}

static const locator_vtable fixed_vt = {fixed_locate, fixed_locate_all, fixed_free, NULL, NULL};

locator *locator_fixed_new(void)
{
    fixed_locator *f = calloc(1, sizeof(*f));
    if (!f)
        return NULL;
    f->base.vt = &fixed_vt;
    pthread_mutex_init(&f->mu, NULL);
    return &f->base;
}

int locator_fixed_add(locator *l, const char *table, const char *encoded_name, const uint8_t *start,
                      size_t start_len, const uint8_t *end, size_t end_len, const char *host_port)
{
    fixed_locator *f = (fixed_locator *)l;
    locator_region r = {0};
    int rc = ST_OK;
    if (!table || !table[0] || !encoded_name || !encoded_name[0])
        return st_error(ST_INVALID_ARGUMENT, "locator: a region needs a table and a name");
    if (end_len && key_cmp(start, start_len, end, end_len) >= 0)
        return st_error(ST_INVALID_ARGUMENT, "locator: region %s ends at or before its start",
                        encoded_name);
    if ((rc = locator_split_addr(host_port, &r.host, &r.port)) != ST_OK)
        return rc;
    r.table = strdup(table);
    r.encoded_name = strdup(encoded_name);
    r.start_key = bytes_dup(start, start_len);
    r.end_key = bytes_dup(end, end_len);
    r.start_len = start_len;
    r.end_len = end_len;
    pthread_mutex_lock(&f->mu);
    if (!r.table || !r.encoded_name || !r.start_key || !r.end_key) {
        rc = st_error(ST_NOMEM, "locator: out of memory");
    } else if (f->set.n == f->cap) {
        size_t nc = f->cap ? f->cap * 2 : 8;
        locator_region *nv = realloc(f->set.v, nc * sizeof(*nv));
        if (nv) {
            f->set.v = nv;
            f->cap = nc;
        } else {
            rc = st_error(ST_NOMEM, "locator: out of memory");
        }
    }
    if (rc == ST_OK) {
        f->set.v[f->set.n++] = r;
        if (regset_check(&f->set, "fixed locator") != ST_OK) {
            for (size_t i = 0; i < f->set.n; i++) /* take the new region back out */
                if (f->set.v[i].encoded_name == r.encoded_name) {
                    f->set.v[i] = f->set.v[--f->set.n];
                    break;
                }
            regset_check(&f->set, "fixed locator");
            rc = st_error(ST_INVALID_ARGUMENT, "locator: region %s of %s overlaps another",
                          encoded_name, table);
        }
    }
    pthread_mutex_unlock(&f->mu);
    if (rc != ST_OK)
        locator_region_clear(&r);
    return rc;
}

/* ---- the file locator ---- */

typedef struct file_locator {
    locator base;
    pthread_mutex_t mu;
    char *path;
    regset set;
    struct stat seen; /* of the file the set came from */
    bool loaded;
} file_locator;

static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Reads and parses the whole file into a new set. */
static int file_read(const char *path, regset *set, struct stat *st)
{
    int rc = ST_OK;
    char *text = NULL;
    FILE *fp = fopen(path, "r");
    if (!fp)
        return st_error(st_from_errno(errno), "locator: open %s: %s", path, strerror(errno));
    if (fstat(fileno(fp), st) != 0) {
        rc = st_error(st_from_errno(errno), "locator: stat %s: %s", path, strerror(errno));
        goto out;
    }
    text = malloc((size_t)st->st_size + 1);
    if (!text) {
        rc = st_error(ST_NOMEM, "locator: out of memory reading %s", path);
        goto out;
    }
    size_t got = fread(text, 1, (size_t)st->st_size, fp);
    if (got != (size_t)st->st_size) {
        rc = st_error(ST_IO, "locator: short read of %s (%zu of %lld bytes)", path, got,
                      (long long)st->st_size);
        goto out;
    }
    rc = locator_parse(text, got, path, &set->v, &set->n);
out:
    free(text);
    fclose(fp);
    return rc;
}

/* Re-reads the file if it changed since the last read (lock held). */
static int file_refresh(file_locator *f)
{
    struct stat st;
    regset fresh = {0};
    if (f->loaded && stat(f->path, &st) == 0 && same_file(&st, &f->seen))
        return ST_OK;
    int rc = file_read(f->path, &fresh, &st);
    if (rc != ST_OK) {
        /* A file being rewritten in place may read torn: keep the last good set. */
        LOG_WARN("region location file %s: %s%s", f->path, st_errmsg(),
                 f->loaded ? " (keeping the previous locations)" : "");
        return f->loaded ? ST_OK : rc;
    }
    locator_regions_free(f->set.v, f->set.n);
    f->set = fresh;
    f->seen = st;
    f->loaded = true;
    LOG_DEBUG("region location file %s: %zu regions", f->path, f->set.n);
    return ST_OK;
}

static int file_locate(locator *l, const char *table, const uint8_t *row, size_t len,
                       locator_region *out)
{
    file_locator *f = (file_locator *)l;
    pthread_mutex_lock(&f->mu);
    int rc = file_refresh(f);
    if (rc == ST_OK)
        rc = regset_find(&f->set, table, row, len, out);
    pthread_mutex_unlock(&f->mu);
    return rc;
}

static int file_locate_all(locator *l, const char *table, locator_region **out, size_t *n)
{
    file_locator *f = (file_locator *)l;
    pthread_mutex_lock(&f->mu);
    int rc = file_refresh(f);
    if (rc == ST_OK)
        rc = regset_all(&f->set, table, out, n);
    pthread_mutex_unlock(&f->mu);
    return rc;
}

static void file_free(locator *l)
{
    file_locator *f = (file_locator *)l;
    locator_regions_free(f->set.v, f->set.n);
    pthread_mutex_destroy(&f->mu);
    free(f->path);
    free(f);
}

static const locator_vtable file_vt = {file_locate, file_locate_all, file_free, NULL, NULL};

int locator_file_open(const char *path, locator **out)
{
    *out = NULL;
    file_locator *f = calloc(1, sizeof(*f));
    if (!f || !(f->path = strdup(path))) {
        free(f);
        return st_error(ST_NOMEM, "locator: out of memory");
    }
    f->base.vt = &file_vt;
    pthread_mutex_init(&f->mu, NULL);
    int rc = file_refresh(f);
    if (rc != ST_OK) {
        file_free(&f->base);
        return rc;
    }
    *out = &f->base;
    return ST_OK;
}
