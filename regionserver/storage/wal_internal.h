/*
 * wal_internal.h - what the WAL writer (wal.c), reader (wal_reader.c) and splitter
 * (wal_split.c) share: the on-disk constants, record and header encoding, file
 * names, and a small sorted map keyed by byte strings.
 *
 * The constants below are the format of docs/formats/wal.md; never renumber them.
 * Thread-safety: the functions are pure, except that a wal_map belongs to one owner
 * (its caller's lock).
 */
#ifndef STRATA_REGIONSERVER_WAL_INTERNAL_H
#define STRATA_REGIONSERVER_WAL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "regionserver/storage/wal.h"

/* docs/formats/wal.md, "File header" and "Record". */
#define WAL_MAGIC "SWAL"
#define WAL_VERSION 1u
#define WAL_FILE_HEADER_LEN 36u
#define WAL_RECORD_HEADER_LEN 12u
#define WAL_MIN_PAYLOAD 18u          /* 2+1 + 2+1 + 8 + 4 */
#define WAL_MAX_PAYLOAD (256u << 20) /* 268435456 */
#define WAL_MIN_CELL_LEN 30u         /* 8 + key (2+1+1+1+8+1) + 8 */
#define WAL_FILE_PREFIX "wal."
#define WAL_NUMBER_DIGITS 20

typedef struct wal_file_header {
    uint64_t number;      /* N of wal.N; 0 in a recovered-edits file */
    uint64_t prev_number; /* file written just before this one by the same writer; 0: none */
    uint64_t prev_end;    /* valid length of that file; 0: none */
} wal_file_header;

void wal_header_encode(const wal_file_header *h, uint8_t out[WAL_FILE_HEADER_LEN]);

/* Appends one record for e to out, stamping e->seq on every cell. ST_INVALID_ARGUMENT
 * (message naming table and region) if e breaks a rule of the format. */
int wal_record_encode(const wal_edit *e, buf_t *out);

/* Reads the table/region/seq prefix of an encoded record at rec (one written by
 * wal_record_encode, so known well-formed). */
void wal_record_peek(const uint8_t *rec, const uint8_t **region, size_t *region_len,
                     uint64_t *seq);

/* "<dir>/wal.<20 digits>", malloc'ed (NULL if out of memory). */
char *wal_file_path(const char *dir, uint64_t number);
/* True if name is "wal.<20 digits>"; sets *number. */
bool wal_parse_file_name(const char *name, uint64_t *number);

/* Reads one file. limit: read as if the file ended there (the previous end recorded
 * by a successor; the file is then read strictly and bytes past limit are ignored
 * with a warning), UINT64_MAX for none. expect_number: the number the header must
 * carry, UINT64_MAX for any. */
int wal_read_file_limited(const char *path, bool tail_may_be_torn, uint64_t limit,
                          uint64_t expect_number, wal_edit_fn fn, void *ctx,
                          uint64_t *valid_end);
/* Reads the header of path; *ok is false (and ST_OK returned) when the header is
 * missing or damaged (wal_read_file_limited then says why). */
int wal_read_header(const char *path, wal_file_header *h, bool *ok);
/* Reads the given log files (in order) with the directory rules of wal.md. */
int wal_read_files(char *const *paths, size_t count, wal_edit_fn fn, void *ctx);

/* ---- a sorted map from byte strings to a value and a pointer ---- */
typedef struct wal_map_ent {
    char *key; /* owned, NUL-terminated copy */
    size_t klen;
    uint64_t val;
    void *ptr;
} wal_map_ent;

typedef struct wal_map {
    wal_map_ent *e;
    size_t n, cap;
} wal_map;

/* Returns the entry for key, or NULL. */
wal_map_ent *wal_map_get(const wal_map *m, const void *key, size_t klen);
/* Returns the entry for key, inserting one (val 0, ptr NULL) if missing; NULL if out
 * of memory. The pointer is valid until the next insert or delete. */
wal_map_ent *wal_map_put(wal_map *m, const void *key, size_t klen);
/* Removes entry e (from wal_map_get/put); its ptr is the caller's. */
void wal_map_del(wal_map *m, wal_map_ent *e);
void wal_map_free(wal_map *m);

#endif
