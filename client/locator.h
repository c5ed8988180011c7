/*
 * locator.h - where the client learns region locations, behind the location cache: an
 * interface (a vtable) with three implementations: a fixed list given in code, a text
 * file, and the active master (locator_master.c: MasterService.LocateRegion and
 * GetTableRegions, the master found through ZooKeeper).
 *
 * File format (one region a line; blank lines and `#` comments skipped; fields separated
 * by spaces or tabs):
 *
 *   table encoded_name start_hex end_hex host:port
 *   users 7a1c0e 6d -    127.0.0.1:17020     # [ "m", unbounded )
 *
 * Keys are hex (two digits a byte, either case); `-` is the empty key (the table's first
 * start or last end). A table's regions must not overlap. A bad line fails the whole file
 * with "path:line: what is wrong".
 *
 * Thread-safety: locate and locate_all may be called from any thread at once; each
 * implementation guards its state with its own mutex (a leaf lock).
 */
#ifndef STRATA_CLIENT_LOCATOR_H
#define STRATA_CLIENT_LOCATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One region's location; every pointer is owned (free with locator_region_clear). */
typedef struct locator_region {
    char *table;
    char *encoded_name;
    uint8_t *start_key; /* inclusive; start_len 0: unbounded */
    size_t start_len;
    uint8_t *end_key; /* exclusive; end_len 0: unbounded */
    size_t end_len;
    char *host;
    uint16_t port;
    uint64_t start_code; /* the server's start code when known (master locator), else 0 */
} locator_region;

typedef struct locator locator;

typedef struct locator_vtable {
    /* The region of table holding row: ST_OK and *out (owned by the caller);
     * ST_NOT_FOUND if the table is unknown; ST_NOT_SERVING (retryable) if the table is
     * known but no region holds row; ST_IO/ST_CORRUPTION if the source is unreadable. */
    int (*locate)(locator *l, const char *table, const uint8_t *row, size_t row_len,
                  locator_region *out);
    /* Every region of table sorted by start key: ST_OK with *out (an array of *n, free
     * with locator_regions_free), or ST_NOT_FOUND / ST_IO / ST_CORRUPTION. */
    int (*locate_all)(locator *l, const char *table, locator_region **out, size_t *n);
    void (*free)(locator *l);
    /* Optional (NULL: not offered): like locate, and also the regions that follow it in
     * key order that the source gave at the same time, for the caller to cache at once:
     * ST_OK with *out (an array of *n >= 1, the first holding row; free with
     * locator_regions_free), or locate's failures. */
    int (*locate_prefetch)(locator *l, const char *table, const uint8_t *row, size_t row_len,
                           locator_region **out, size_t *n);
    /* Optional (NULL: not offered): locate_prefetch that first waits up to wait_ms while
     * the row's region is not open on a server other than exclude ("host,port,startcode")
     * - unless a region other than exclude_region (an encoded name; may be NULL) now holds
     * the row - for a caller that saw that server fail: it learns the new location as soon
     * as the region reopens. After the wait it answers what holds then (possibly exclude). */
    int (*locate_wait)(locator *l, const char *table, const uint8_t *row, size_t row_len,
                       const char *exclude, const char *exclude_region, int wait_ms,
                       locator_region **out, size_t *n);
} locator_vtable;

struct locator {
    const locator_vtable *vt;
};

int locator_locate(locator *l, const char *table, const uint8_t *row, size_t row_len,
                   locator_region *out);
int locator_locate_all(locator *l, const char *table, locator_region **out, size_t *n);
/* The vtable's locate_prefetch, or locate giving one region where there is none. */
int locator_locate_prefetch(locator *l, const char *table, const uint8_t *row, size_t row_len,
                            locator_region **out, size_t *n);
/* Whether the locator can wait for a region to move (locate_wait). */
bool locator_can_wait(const locator *l);
/* The vtable's locate_wait; without one, locate_prefetch. */
int locator_locate_wait(locator *l, const char *table, const uint8_t *row, size_t row_len,
                        const char *exclude, const char *exclude_region, int wait_ms,
                        locator_region **out, size_t *n);
/* NULL is a no-op. */
void locator_free(locator *l);

void locator_region_clear(locator_region *r);
void locator_regions_free(locator_region *v, size_t n);
/* Deep copy: ST_OK or ST_NOMEM (dst zeroed). */
int locator_region_copy(locator_region *dst, const locator_region *src);

/* A fixed list, empty at first. NULL if out of memory. */
locator *locator_fixed_new(void);
/* Adds a region (copied). host_port "host:port". ST_OK, ST_INVALID_ARGUMENT (bad
 * address, end not above start, overlap with a region of the same table) or ST_NOMEM. */
int locator_fixed_add(locator *l, const char *table, const char *encoded_name, const uint8_t *start,
                      size_t start_len, const uint8_t *end, size_t end_len, const char *host_port);

/* A file locator: reads path now (ST_OK and *out, or the parse/IO error with *out NULL)
 * and again whenever a lookup finds the file changed (inode, size or mtime). */
int locator_file_open(const char *path, locator **out);

/* Parses the file format in text (len bytes); name is used in messages. ST_OK with
 * *out sorted by table then start key (*n regions), or ST_CORRUPTION naming
 * "name:line". */
int locator_parse(const char *text, size_t len, const char *name, locator_region **out, size_t *n);

/* The active master's locator: locate asks MasterService.LocateRegion (with the next
 * LOCATOR_MASTER_PREFETCH regions, offered through locate_prefetch), locate_all asks
 * GetTableRegions. The master is found through ZooKeeper (quorum "host:port[,...]",
 * parent NULL for "/strata") and followed when it changes: an unreachable master or a
 * backup (ST_CONNECTION, ST_NOT_SERVING) makes it re-read <parent>/master and retry with a
 * short backoff for up to LOCATOR_MASTER_TIMEOUT_MS (client/master_link.h). Answers: an
 * unknown table ST_NOT_FOUND; a region without a server (not assigned, or closed)
 * ST_NOT_SERVING (retryable); no master within the time, the last failure. locate_all
 * leaves unassigned regions out (ST_NOT_SERVING if none is assigned). The master is only
 * asked where regions are; reads and writes go to the region servers it names.
 * Nothing is contacted until the first lookup. ST_OK and *out, or ST_INVALID_ARGUMENT for
 * a bad quorum or parent (*out NULL). */
#define LOCATOR_MASTER_PREFETCH 8
#define LOCATOR_MASTER_WAIT_MAX_MS 5000 /* longest locate_wait asked of the master */
#define LOCATOR_MASTER_TIMEOUT_MS 30000
int locator_master_open(const char *quorum, const char *parent, int session_timeout_ms,
                        locator **out);
/* Bounds each lookup of a master locator (and so its retries of an unreachable master or
 * ZooKeeper) at ms instead of LOCATOR_MASTER_TIMEOUT_MS (ms <= 0 or larger: the default),
 * so that a client's lookups end within its operation timeout. */
void locator_master_set_timeout_ms(locator *l, int64_t ms);

/* Splits "host:port" into a malloc'ed host and a port (1..65535): ST_OK or
 * ST_INVALID_ARGUMENT. */
int locator_split_addr(const char *host_port, char **host, uint16_t *port);

#endif
