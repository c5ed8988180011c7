/*
 * verify.h - the verifiers of `strata verify` (docs/reliability.md, "Verifiers"), as an
 * API that another in-process component (a chaos run) can drive: start the load, inject
 * faults, stop, read each thread's record (verify_stats.h), then check the table.
 *
 *   vll_*    the linked list of HBase's IntegrationTestBigLinkedList
 *            (tools/verify_linkedlist.c): loaders write circular linked lists of random
 *            16-byte keys, each node written only once the node it points to was
 *            acknowledged; verify scans the table and finds every node referenced and
 *            every reference defined; walk follows the pointers from one node.
 *   vacid_*  HBase's TestAcidGuarantees (tools/verify_acid.c): writers put one value into
 *            every column of a row at once; getters and scanners must never see a row
 *            with two values or only part of its columns; incremented counters must never
 *            read lower than before.
 *
 * Every function returning int returns a Strata status (ST_OK, or a negative code with
 * the message in st_errmsg() on the calling thread). The cluster is named by a ZooKeeper
 * quorum and parent; the client and admin handles are the run's own.
 *
 * Thread-safety: a run is driven from one thread (start, stop or wait, result, free);
 * vll_generate_done / vacid_done and the vstats_resumed_since / vstats_ok_count of a
 * running thread's record may be called from any thread; the other readers only after
 * stop or wait returned.
 */
#ifndef STRATA_TOOLS_VERIFY_H
#define STRATA_TOOLS_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/verify_stats.h"

/* ---- linked list ---- */

#define VLL_DEFAULT_TABLE "IntegrationTestBigLinkedList"
#define VLL_FAMILY "meta"
#define VLL_COL_PREV "prev"     /* the 16-byte key of the previous node */
#define VLL_COL_COUNT "count"   /* the loader's running count, 8 bytes big endian */
#define VLL_COL_CLIENT "client" /* the loader's id */
#define VLL_KEY_LEN 16
#define VLL_MAX_LOADERS 256
#define VLL_MAX_REGIONS 1024
#define VLL_EXAMPLES 10 /* bad keys kept of each kind */

typedef struct vll_opts {
    const char *quorum;  /* "host:port[,...]"; required */
    const char *parent;  /* NULL: /strata */
    const char *table;   /* NULL: VLL_DEFAULT_TABLE */
    int regions;         /* generate: a new table is split into this many (default 8) */
    int loaders;         /* generate: loader threads (default 2) */
    int width;           /* generate: nodes per batch (default 1000) */
    int wrap;            /* generate: batches per circular list (default 25) */
    uint64_t iterations; /* generate: lists per loader (default 1); with duration_s, at most
                          * this many (0: no bound); 0 without duration_s: lists until
                          * vll_generate_stop */
    double duration_s;   /* generate: > 0: lists until this time is up (checked between
                          * lists) */
    double grace_s;      /* generate: a failing write is retried until grace_s after its
                          * first failure, and with duration_s at least until duration_s +
                          * grace_s after the start; default 60 */
    uint64_t seed;       /* generate: the keys' random seed; 0: from the clock */
    double rate;         /* generate: nodes per second per loader (batches are sent when
                          * due); 0: as fast as they go */
} vll_opts;

/* The defaults above (quorum NULL). */
void vll_opts_default(vll_opts *o);

typedef struct vll_run vll_run;

/* What a loader did (vll_generate_loader) or all of them summed (vll_generate_result). */
typedef struct vll_loader_result {
    uint64_t nodes;                /* nodes acknowledged (each counted once) */
    uint64_t lists;                /* circular lists closed */
    uint64_t calls;                /* batch calls sent */
    uint64_t retries;              /* batch calls sent again for actions that failed */
    uint64_t errors[VSTATS_CODES]; /* failed calls by the code of their first failure */
    uint64_t longest_stall_ns;     /* the longest time without a successful call */
    uint64_t longest_stall_at_ns;  /* when it began (monotonic) */
    bool failed;                   /* stopped inside a list: a write failed for good */
} vll_loader_result;

typedef struct vll_gen_result {
    vll_loader_result total; /* summed; longest_stall_*: the longest of any loader */
    uint64_t expected;       /* nodes in closed lists (what this run adds to REFERENCED) */
    uint64_t start_ns, stop_ns;
    bool failed;     /* some loader failed; its list is left open */
    char error[400]; /* the first loader's error, "" if none */
} vll_gen_result;

/* Creates the table if it does not exist (family VLL_FAMILY, split into o->regions at
 * even 16-byte keys), waits until its regions are open and starts the loaders. ST_OK and
 * *out, or a status with nothing running and *out NULL. */
int vll_generate_start(const vll_opts *o, vll_run **out);
/* Whether every loader has ended (its lists done, or failed). Any thread. */
bool vll_generate_done(const vll_run *r);
/* Asks every loader to stop after the list it is writing (closing it) and waits for
 * them. A loader stuck on a failing write keeps retrying until its retry deadline. */
void vll_generate_stop(vll_run *r);
/* Waits for the loaders to end by themselves (iterations or duration). */
void vll_generate_wait(vll_run *r);
/* After stop or wait: the figures of the run. */
void vll_generate_result(const vll_run *r, vll_gen_result *res);
/* After stop or wait: loader i's figures (i < vll_generate_loaders). */
void vll_generate_loader(const vll_run *r, size_t i, vll_loader_result *res);
size_t vll_generate_loaders(const vll_run *r);
/* Loader i's record: live readers any time, the others after stop or wait. */
const vstats_thread *vll_generate_thread(const vll_run *r, size_t i);
/* Stops the loaders if running and frees the run. NULL is a no-op. */
void vll_generate_free(vll_run *r);

/* A key as verify keeps it: rows and prev values of 1..VLL_KEY_LEN bytes. */
typedef struct vll_key {
    uint8_t len;
    uint8_t b[VLL_KEY_LEN];
} vll_key;

/* A reference that points nowhere: node `from` points to `to`, which is not defined. */
typedef struct vll_dangling {
    vll_key from, to;
} vll_dangling;

/* HBase's Verify counters, and examples. */
typedef struct vll_verify_result {
    uint64_t referenced;       /* defined and referenced */
    uint64_t unreferenced;     /* defined, referenced by no node */
    uint64_t undefined;        /* referenced, not defined (distinct keys) */
    uint64_t extra_references; /* references beyond the first to a key */
    uint64_t rows;             /* nodes read */
    uint64_t no_prev;          /* nodes without meta:prev (counted as defined) */
    uint64_t foreign_rows;     /* rows of another length, or with a prev of another length:
                                * not nodes, ignored */
    vll_dangling undefined_ex[VLL_EXAMPLES];
    size_t n_undefined_ex;
    vll_key unreferenced_ex[VLL_EXAMPLES];
    size_t n_unreferenced_ex;
    double scan_s; /* time of the full scan */
} vll_verify_result;

/* The nodes read from a table, for vll_graph_account (pure, in memory; sorted arrays). */
typedef struct vll_graph vll_graph;

/* NULL when out of memory. */
vll_graph *vll_graph_new(void);
void vll_graph_free(vll_graph *g);
/* Adds a row read from the table and its meta:prev (prev NULL: none). ST_OK, or ST_NOMEM.
 * A row or prev of 0 or more than VLL_KEY_LEN bytes is counted as foreign and skipped. */
int vll_graph_add(vll_graph *g, const void *row, size_t row_len, const void *prev, size_t prev_len);
/* Classifies every key as HBase's Verify reducer does (REFERENCED, UNREFERENCED,
 * UNDEFINED, EXTRAREFERENCES) into r (the counters and examples; scan_s untouched). The
 * graph is sorted in place. ST_OK or ST_NOMEM. */
int vll_graph_account(vll_graph *g, vll_verify_result *r);

/* Scans the whole table into a graph and accounts it. ST_OK (r filled), or the scan's
 * failure. */
int vll_verify(const vll_opts *o, vll_verify_result *r);
/* Whether r passes: no UNDEFINED, no UNREFERENCED, and REFERENCED == expected when
 * expected >= 0. */
bool vll_verify_passed(const vll_verify_result *r, int64_t expected);

typedef enum vll_walk_end {
    VLL_WALK_CLOSED = 0,    /* back at the start: the cycle's length is steps */
    VLL_WALK_UNDEFINED = 1, /* at points to missing, which is not defined */
    VLL_WALK_NO_PREV = 2,   /* at has no meta:prev */
    VLL_WALK_REVISIT = 3,   /* at points to missing, seen before: a cycle without start */
    VLL_WALK_MAX = 4,       /* max steps taken */
} vll_walk_end;

typedef struct vll_walk_result {
    vll_walk_end end;
    uint64_t steps;      /* pointers followed */
    vll_key start;       /* the first node */
    vll_key at, missing; /* UNDEFINED, REVISIT: the last node and what it points to */
} vll_walk_result;

/* Follows meta:prev from start (len bytes; NULL: the table's first row), a get per
 * node, printing each step to out (NULL: quiet), until the cycle closes, a node is
 * missing, a node repeats or max steps (0: no bound). ST_OK (r filled, whatever it
 * found); ST_NOT_FOUND if the start is not there (or the table is empty); a get's
 * failure. */
int vll_walk(const vll_opts *o, const void *start, size_t len, uint64_t max, FILE *out,
             vll_walk_result *r);

/* Lower-case hex of k into out (2 * VLL_KEY_LEN + 1). */
void vll_key_hex(const vll_key *k, char *out);

/* ---- ACID ---- */

#define VACID_DEFAULT_TABLE "TestAcidGuarantees"
#define VACID_FAMILIES "ABC"         /* one-letter families */
#define VACID_ROW_PREFIX "test_row_" /* rows test_row_0 .. */
#define VACID_COL_PREFIX "col"       /* qualifiers col0 .. */
#define VACID_COUNTER_ROW "counter_row"
#define VACID_COUNTER_COL "counter" /* A:counter of VACID_COUNTER_ROW */
#define VACID_MAX_THREADS 256
#define VACID_MAX_COLUMNS 1000
#define VACID_MAX_ROWS 100000
#define VACID_KEEP 16 /* violations kept (messages) */

typedef struct vacid_opts {
    const char *quorum, *parent, *table; /* as vll_opts; table NULL: VACID_DEFAULT_TABLE */
    int columns;                         /* per family (default 10) */
    int rows;                            /* default 3 */
    int writers;                         /* default 2 */
    int getters;                         /* default 2 */
    int scanners;                        /* default 1 */
    int incrementers;                    /* default 1 */
    double duration_s;                   /* default 20 */
} vacid_opts;

void vacid_opts_default(vacid_opts *o);

typedef struct vacid_run vacid_run;

typedef struct vacid_result {
    uint64_t writes, gets, scans, increments; /* successful calls */
    uint64_t scanned_rows;
    uint64_t torn_gets, torn_scans; /* rows seen torn */
    uint64_t counter_reads, counter_decreases;
    uint64_t errors[VSTATS_CODES]; /* failed calls by code, every thread */
    uint64_t retries;
    uint64_t fatal; /* calls failed with a code no retry changes */
    uint64_t start_ns, stop_ns;
} vacid_result;

/* Creates the table if missing (families A, B, C), waits for its regions, starts the
 * threads. ST_OK and *out, or a status with nothing running. */
int vacid_start(const vacid_opts *o, vacid_run **out);
bool vacid_done(const vacid_run *r); /* the duration is over and the threads ended */
/* Stops every thread now (each finishes its call) and waits for them. */
void vacid_stop(vacid_run *r);
/* Waits until the duration is over and the threads ended. */
void vacid_wait(vacid_run *r);
void vacid_result_get(const vacid_run *r, vacid_result *res);
/* Threads: writers, getters, scanners, incrementers, in that order. */
size_t vacid_threads(const vacid_run *r);
const vstats_thread *vacid_thread(const vacid_run *r, size_t i);
/* After stop or wait: the i-th kept violation message, or NULL. */
const char *vacid_violation(const vacid_run *r, size_t i);
void vacid_free(vacid_run *r);
/* Whether res passes: no torn row and no counter decrease. */
bool vacid_passed(const vacid_result *res);

/* One cell of a row as read (borrowed bytes). */
typedef struct vacid_cell {
    const char *family, *qualifier, *value;
    size_t family_len, qualifier_len, value_len;
} vacid_cell;

typedef enum vacid_row_state {
    VACID_ROW_OK = 0,      /* every column, one value */
    VACID_ROW_EMPTY = 1,   /* none of the columns */
    VACID_ROW_TORN = 2,    /* two columns hold different values */
    VACID_ROW_PARTIAL = 3, /* some columns missing */
} vacid_row_state;

/* Why a row is torn or partial: the first column and the one that differs from it (or
 * is missing, value_b_len 0 and missing_b true), as "A:col0". */
typedef struct vacid_tear {
    char col_a[40], col_b[40];
    char value_a[64], value_b[64]; /* printable, cut */
    bool missing_b;
} vacid_tear;

/* Checks the cells of one row against `columns` columns in each of VACID_FAMILIES (only
 * the first cell of each column counts: the newest). Cells of other columns are ignored.
 * Pure. why (may be NULL) is filled for TORN and PARTIAL. */
vacid_row_state vacid_check_row(const vacid_cell *cells, size_t n, int columns, vacid_tear *why);

#endif
