/*
 * fuzz_wal_split.c - fuzz target for splitting a WAL directory into recovered edits
 * (regionserver/storage/wal_split.c, docs/formats/wal.md "Reading a directory"): the
 * input is cut before every "SWAL" magic after its first byte into up to 4 log files
 * wal.<1>..wal.<4> of one directory (a writer's rolled chain), which is read with
 * wal_read_dir() and then split with wal_split() into a fresh root directory; all of
 * that for the pieces as they are and again with their checksums repaired
 * (fuzz_repair.h), so mutations also reach the records behind the CRCs.
 *
 * It asserts: reading and splitting return ST_OK, ST_CORRUPTION or ST_UNSUPPORTED; a
 * failed read fails the split; a failed split deletes no WAL file and leaves no
 * recovered-edits file; a split that succeeds deletes every WAL file and leaves, per
 * table and region read, one recovered-edits file named after its highest sequence id
 * that holds a recovered-edits header and exactly that region's records, in log order,
 * byte for byte as wal_record_encode() writes them (no edit lost, added or altered), and
 * that file reads back strictly.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/fileio.h"
#include "common/status.h"
#include "regionserver/storage/layout.h"
#include "regionserver/storage/wal.h"
#include "regionserver/storage/wal_internal.h"
#include "tests/fuzz/fuzz_repair.h"
#include "tests/fuzz/fuzz_support.h"

#define MAX_FILES 4
#define MAX_REGIONS 64

/* One (table, region) the read saw: its records re-encoded, in order. */
typedef struct region_out {
    char *table;
    char *region;
    uint64_t max_seq;
    buf_t records;
} region_out;

typedef struct expect {
    region_out r[MAX_REGIONS];
    size_t n;
    bool too_many;
} expect;

static int on_edit(const wal_edit *e, void *ctx)
{
    expect *x = ctx;
    size_t i = 0;
    while (i < x->n &&
           !(strcmp(x->r[i].table, e->table) == 0 && strcmp(x->r[i].region, e->region) == 0))
        i++;
    if (i == x->n) {
        if (x->n == MAX_REGIONS) {
            x->too_many = true;
            return 0;
        }
        x->r[i].table = strdup(e->table);
        x->r[i].region = strdup(e->region);
        FUZZ_CHECK(x->r[i].table && x->r[i].region, "out of memory");
        x->n++;
    }
    region_out *r = &x->r[i];
    if (e->seq > r->max_seq)
        r->max_seq = e->seq;
    FUZZ_CHECK(wal_record_encode(e, &r->records) == ST_OK, "record of %s/%s: %s", e->table,
               e->region, st_errmsg());
    return 0;
}

static void expect_free(expect *x)
{
    for (size_t i = 0; i < x->n; i++) {
        free(x->r[i].table);
        free(x->r[i].region);
        buf_free(&x->r[i].records);
    }
}

static bool expected_status(int rc)
{
    return rc == ST_OK || rc == ST_CORRUPTION || rc == ST_UNSUPPORTED;
}

/* Writes the input's pieces as wal.1.. into dir (paths[i] their paths), each repaired
 * first if asked (data is the caller's copy then); returns how many. A piece ends where
 * the next "SWAL" begins, the last one at the end of input. */
static size_t write_pieces(const char *dir, uint8_t *data, size_t size, bool repair, char **paths)
{
    size_t cuts[MAX_FILES + 1], n = 0;
    cuts[n++] = 0;
    for (size_t i = 1; i + 4 <= size && n < MAX_FILES; i++)
        if (memcmp(data + i, WAL_MAGIC, 4) == 0)
            cuts[n++] = i;
    cuts[n] = size;
    for (size_t i = 0; i < n; i++) {
        paths[i] = wal_file_path(dir, i + 1);
        FUZZ_CHECK(paths[i] != NULL, "out of memory");
        if (repair)
            fuzz_repair_wal(data + cuts[i], cuts[i + 1] - cuts[i]);
        fuzz_write_file(paths[i], data + cuts[i], cuts[i + 1] - cuts[i]);
    }
    return n;
}

/* True if any regular file lies under dir (recursively). */
static bool has_files(const char *dir)
{
    char **names = NULL;
    size_t n = 0;
    bool found = false;
    if (fio_list_dir(dir, &names, &n) != ST_OK)
        return false;
    for (size_t i = 0; i < n && !found; i++) {
        char *p = NULL;
        struct stat st;
        FUZZ_CHECK(asprintf(&p, "%s/%s", dir, names[i]) > 0, "out of memory");
        FUZZ_CHECK(lstat(p, &st) == 0, "%s vanished", p);
        found = S_ISREG(st.st_mode) || (S_ISDIR(st.st_mode) && has_files(p));
        free(p);
    }
    fio_free_list(names, n);
    return found;
}

/* Whether (table, region) make a directory name the split accepts. */
static bool has_dir_name(const char *table, const char *region)
{
    char *ns = NULL, *q = NULL;
    bool ok = layout_split_table_name(table, &ns, &q) == ST_OK && layout_name_part_ok(region);
    free(ns);
    free(q);
    return ok;
}

static int count_edit(const wal_edit *e, void *ctx)
{
    (void)e;
    (void)ctx;
    return 0;
}

/* Checks that r's recovered-edits directory holds a file named after r's highest
 * sequence id with exactly r's records (two table names may share a directory:
 * "t" and "default:t"; each then has its own file). */
static void check_region(const char *root, const region_out *r)
{
    char *dir = layout_recovered_edits_dir(root, r->table, r->region);
    char **names = NULL;
    size_t n = 0;
    FUZZ_CHECK(dir != NULL, "out of memory");
    FUZZ_CHECK(fio_list_dir(dir, &names, &n) == ST_OK, "%s: %s", dir, st_errmsg());
    uint8_t hdr[WAL_FILE_HEADER_LEN];
    wal_header_encode(&(wal_file_header){0, 0, 0}, hdr);
    char want_name[32];
    snprintf(want_name, sizeof(want_name), "%020" PRIu64, r->max_seq);
    bool found = false;
    for (size_t i = 0; i < n && !found; i++) {
        char *p = NULL;
        buf_t b = {0};
        FUZZ_CHECK(asprintf(&p, "%s/%s", dir, names[i]) > 0, "out of memory");
        FUZZ_CHECK(names[i][0] != '.', "temporary file %s left", p);
        FUZZ_CHECK(fio_read_all(p, &b) == ST_OK, "%s: %s", p, st_errmsg());
        found = strncmp(names[i], want_name, strlen(want_name)) == 0 &&
                b.len == sizeof(hdr) + r->records.len && memcmp(b.data, hdr, sizeof(hdr)) == 0 &&
                memcmp(b.data + sizeof(hdr), r->records.data, r->records.len) == 0;
        if (found) {
            uint64_t vend = 0;
            int rc = wal_read_file(p, false, count_edit, NULL, &vend);
            FUZZ_CHECK(rc == ST_OK && vend == b.len, "%s reads back %d (%s) to %llu of %zu", p, rc,
                       st_errmsg(), (unsigned long long)vend, b.len);
        }
        buf_free(&b);
        free(p);
    }
    FUZZ_CHECK(found, "no recovered-edits file in %s holds the %zu bytes of records of %s/%s", dir,
               r->records.len, r->table, r->region);
    fio_free_list(names, n);
    free(dir);
}

/* Writes the pieces of data (repaired if asked) into a fresh directory, reads and
 * splits it, and checks the outcome. */
static void check_split(const char *root, const char *wal_dir, uint8_t *data, size_t size,
                        bool repair)
{
    FUZZ_CHECK(fio_remove_tree(root) == ST_OK && fio_mkdirs(wal_dir) == ST_OK, "%s: %s", root,
               st_errmsg());
    char *paths[MAX_FILES] = {0};
    size_t nfiles = size ? write_pieces(wal_dir, data, size, repair, paths) : 0;

    expect x = {0};
    int rr = wal_read_dir(wal_dir, on_edit, &x);
    FUZZ_CHECK(expected_status(rr), "read: %d (%s)", rr, st_errmsg());
    /* Every other region read has its directory (it was opened); the split writes the
     * edits of those only and drops the others' (docs/formats/wal.md, rule 4). */
    for (size_t i = 0; i < x.n; i += 2)
        if (has_dir_name(x.r[i].table, x.r[i].region)) {
            char *rdir = layout_region_dir(root, x.r[i].table, x.r[i].region);
            FUZZ_CHECK(rdir && fio_mkdirs(rdir) == ST_OK, "mkdir %s", rdir ? rdir : "?");
            free(rdir);
        }
    int rs = wal_split(wal_dir, root);
    FUZZ_CHECK(expected_status(rs), "split: %d (%s)", rs, st_errmsg());
    FUZZ_CHECK(rr == ST_OK || rs != ST_OK, "the read failed (%d) but the split did not", rr);
    for (size_t i = 0; i < nfiles; i++)
        FUZZ_CHECK(fio_exists(paths[i]) == (rs != ST_OK), "split %d, %s %s", rs, paths[i],
                   rs == ST_OK ? "kept" : "deleted");
    char *data_dir = NULL;
    FUZZ_CHECK(asprintf(&data_dir, "%s/data", root) > 0, "out of memory");
    if (rs != ST_OK)
        FUZZ_CHECK(!has_files(data_dir), "a failed split (%d) left files under %s", rs, data_dir);
    if (rs == ST_OK && !x.too_many)
        for (size_t i = 0; i < x.n; i++) {
            char *rdir = layout_region_dir(root, x.r[i].table, x.r[i].region);
            bool made = i % 2 == 0;
            if (made)
                check_region(root, &x.r[i]);
            else
                FUZZ_CHECK(!rdir || !has_files(rdir), "edits of %s/%s written without its "
                           "directory", x.r[i].table, x.r[i].region);
            free(rdir);
        }
    free(data_dir);
    expect_free(&x);
    for (size_t i = 0; i < nfiles; i++)
        free(paths[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *root, *wal_dir;
    if (!root) {
        root = fuzz_path("split");
        wal_dir = layout_wal_dir(root, "rs1");
        FUZZ_CHECK(wal_dir != NULL, "out of memory");
    }
    uint8_t *copy = malloc(size ? size : 1);
    FUZZ_CHECK(copy != NULL, "out of memory");
    if (size)
        memcpy(copy, data, size);
    check_split(root, wal_dir, copy, size, false);
    check_split(root, wal_dir, copy, size, true);
    free(copy);
    return 0;
}
