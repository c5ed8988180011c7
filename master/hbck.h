/*
 * hbck.h - the consistency checks of `strata hbck` (docs/hbck.md) as pure functions of
 * what was read: meta's region rows and tables, each live server's online regions, the
 * root directory's region directories, reference files and WAL directories, and the
 * procedures. The active master gathers these (master_hbck.c) and runs the checks; the
 * unit tests (tests/unit/test_hbck.c) feed them directly. The scan of a root directory
 * (hbck_scan_root) is here too, so that `strata hbck --root PATH` checks another copy of
 * it with the same code.
 *
 * Every finding names a kind (HBase's ERROR codes), whether it is an error (else
 * informational) and the table, region, server and path it is about.
 * Thread-safety: pure functions; a report is owned by one thread.
 */
#ifndef STRATA_MASTER_HBCK_H
#define STRATA_MASTER_HBCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "meta/meta.h"

typedef enum hbck_kind {
    HBCK_HOLE_IN_REGION_CHAIN = 0,
    HBCK_OVERLAP_IN_REGION_CHAIN,
    HBCK_NOT_DEPLOYED,
    HBCK_MULTI_DEPLOYED,
    HBCK_SERVER_DOES_NOT_MATCH_META,
    HBCK_SHOULD_NOT_BE_DEPLOYED,
    HBCK_NOT_IN_META,
    HBCK_ORPHAN_REGION_DIR,
    HBCK_NOT_IN_HDFS,
    HBCK_LINGERING_SPLIT_PARENT,
    HBCK_LINGERING_MERGE_PARENT,
    HBCK_LINGERING_REFERENCE_FILE,
    HBCK_ORPHAN_WAL_DIR,
    HBCK_UNSPLIT_WAL,
    HBCK_TABLE_STUCK_ENABLING,
    HBCK_TABLE_STUCK_DISABLING,
    HBCK_STUCK_PROCEDURE,
    HBCK_IN_TRANSITION,
    HBCK_SERVER_UNREACHABLE,
    HBCK_KIND_COUNT
} hbck_kind;

/* "HOLE_IN_REGION_CHAIN" ...; static. */
const char *hbck_kind_name(hbck_kind k);

typedef struct hbck_finding {
    hbck_kind kind;
    bool error;
    char table[256];
    char region[64];
    char server[320];
    char path[1536];
    char detail[512];
    uint64_t proc_id;
} hbck_finding;

typedef struct hbck_report {
    hbck_finding *v;
    size_t n, cap;
    bool oom; /* a finding could not be recorded */
} hbck_report;

void hbck_report_free(hbck_report *r);
/* Appends a finding (detail printf-style; any string may be NULL). */
void hbck_add(hbck_report *r, hbck_kind k, bool error, const char *table, const char *region,
              const char *server, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));
size_t hbck_errors(const hbck_report *r);

/* A region row with what the master knows of it besides meta. */
typedef struct hbck_region {
    const meta_region *mr;
    int64_t since_ms; /* when its state last changed (0: unknown) */
    bool busy;        /* an operation holds it */
} hbck_region;

typedef struct hbck_table {
    const char *name;
    meta_table_state state;
    bool ddl;         /* a DDL has the table, or a split/merge runs on it */
    int64_t since_ms; /* when the state was last seen to change (0: unknown) */
} hbck_table;

/* One live server and the regions it said it serves (GetOnlineRegion). */
typedef struct hbck_server {
    const char *name; /* "host,port,startcode" */
    const char *const *regions;
    size_t nregions;
    bool reached; /* false: it did not answer (regions unknown) */
} hbck_server;

/* A region directory under <root>/data. */
typedef struct hbck_dir {
    char table[300];
    char region[64];
    char path[1536];
    bool has_data; /* a store file, reference or recovered edits file in it */
} hbck_dir;

/* A reference file "<file>.<parent>" in a region's family directory. */
typedef struct hbck_ref {
    char table[300];
    char region[64];
    char parent[64];
    char path[2200];
    bool target_exists; /* <parent region>/<family>/<file> is there */
} hbck_ref;

typedef struct hbck_fs {
    hbck_dir *dirs;
    size_t ndirs;
    hbck_ref *refs;
    size_t nrefs;
    char **wals; /* names listed in <root>/WALs */
    size_t nwals;
} hbck_fs;

/* Scans root (every table, or only those named): region directories, reference files,
 * WAL directory names. ST_OK and *out (free with hbck_fs_free); a missing data or WALs
 * folder is empty, other I/O failures are returned naming the path. */
int hbck_scan_root(const char *root, const char *const *tables, size_t ntables, hbck_fs *out);
void hbck_fs_free(hbck_fs *fs);

typedef struct hbck_proc {
    uint64_t id;
    const char *type;
    const char *state; /* RUNNABLE, ... */
    int64_t updated_ms;
    bool row_only; /* a meta row that no thread of this master runs */
} hbck_proc;

typedef struct hbck_input {
    int64_t now_ms;
    int64_t stuck_ms;   /* older than this: stuck */
    int64_t started_ms; /* the report began: changes after it are in transition */
    /* A split or merge parent no child references is left to the catalog janitor this
     * long after the split or merge (0: stuck_ms). */
    int64_t janitor_grace_ms;
    const hbck_region *regions; /* every row of the tables checked */
    size_t nregions;
    const hbck_table *tables;
    size_t ntables;
    const hbck_server *servers; /* live */
    size_t nservers;
    const char *const *recovering; /* dead servers whose recovery is queued or running */
    size_t nrecovering;
    const hbck_proc *procs;
    size_t nprocs;
    /* NULL: no root directory checks (nor the split and merge parents', which look for
     * references in it). */
    const hbck_fs *fs;
    /* Only references whose target is gone are lingering (the caller does not know the
     * split and merge parents: `strata hbck --root`). */
    bool refs_targets_only;
    const char *root; /* the root directory, for the paths findings name (NULL: "<root>") */
    int64_t session_timeout_ms; /* WAL dirs of servers started more recently than twice
                                   this are young, not orphans */
} hbck_input;

/* The checks, each appending to out. */
void hbck_check_chain(const hbck_input *in, const char *table, hbck_report *out);
void hbck_check_deploy(const hbck_input *in, hbck_report *out);
void hbck_check_dirs(const hbck_input *in, hbck_report *out);
void hbck_check_parents(const hbck_input *in, hbck_report *out);
void hbck_check_wals(const hbck_input *in, hbck_report *out);
void hbck_check_tables(const hbck_input *in, hbck_report *out);
void hbck_check_procs(const hbck_input *in, hbck_report *out);
/* Every check above (the chain for each table of in->tables). */
void hbck_check_all(const hbck_input *in, hbck_report *out);

/* One finding as a line: "ERROR: KIND table=... region=... server=... path=...: detail"
 * ("INFO: " for informational ones), into out (cap bytes). */
void hbck_format(const hbck_finding *f, char *out, size_t cap);

#endif
