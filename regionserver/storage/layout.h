/*
 * layout.h - where things live under the root directory: the one module that names
 * the root directory's folders (docs/architecture.md, "The root directory").
 *
 *   <root>/WALs/                                       every write-ahead log directory
 *   <root>/WALs/<server>/wal.<n>                       a region server's WAL
 *   <root>/WALs/<server>-splitting/                    the same, fenced for splitting
 *   <root>/WALs/master-<server>/wal.<n>                a master's WAL of meta
 *   <root>/data/<ns>/<table>/                          a table
 *   <root>/data/<ns>/<table>/<region>/                 a region
 *   <root>/data/<ns>/<table>/<region>/<family>/<file>  a store's files (<file>.tmp while
 *                                                      written; <file>.<parent> a reference,
 *                                                      docs/formats/reference.md)
 *   <root>/data/<ns>/<table>/<region>/recovered.edits/ edits split from dead WALs
 *
 * A table name is "ns:table" or "table" (namespace "default"); <server> is a server name
 * "host,port,startcode". File names inside these folders belong to their formats
 * (docs/formats/). Functions returning char * return a malloc'ed string (NULL if out of
 * memory or for an invalid table name); the caller frees.
 * Thread-safety: pure functions.
 */
#ifndef STRATA_REGIONSERVER_LAYOUT_H
#define STRATA_REGIONSERVER_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

/* <root>/WALs */
char *layout_wals_dir(const char *root);
/* <root>/WALs/<name>: name a region server's name, or a WAL directory name as listed
 * (layout_master_wal_name, a fenced name). */
char *layout_wal_dir(const char *root, const char *name);
/* The WAL directory name of a master's meta WAL: "master-<server>" into out (cap bytes;
 * SERVER_NAME_MAX + 16 is always enough). */
void layout_master_wal_name(const char *server, char *out, size_t cap);
/* Whether a name listed in <root>/WALs is a master's meta WAL directory. */
bool layout_is_master_wal_name(const char *name);
/* A listed WAL directory name fenced for splitting ("<server>-splitting")? */
bool layout_is_fenced_wal_name(const char *name);
/* <root>/WALs/<name>-splitting, where name is not fenced yet (else the same as
 * layout_wal_dir). */
char *layout_fenced_wal_dir(const char *root, const char *name);
/* The server (or "master-<server>") a listed WAL directory name belongs to: name without
 * its fence suffix, into out (cap bytes). */
void layout_wal_name_owner(const char *name, char *out, size_t cap);
/* <root>/data/<ns>/<table> */
char *layout_table_dir(const char *root, const char *table);
char *layout_region_dir(const char *root, const char *table, const char *region);
char *layout_store_dir(const char *root, const char *table, const char *region,
                       const char *family);
char *layout_recovered_edits_dir(const char *root, const char *table, const char *region);
/* Splits "ns:table" into namespace and qualifier (each malloc'ed). Returns ST_OK or
 * ST_INVALID_ARGUMENT for an invalid name. */
int layout_split_table_name(const char *table, char **ns, char **qualifier);
/* Checks a namespace/table qualifier (and an encoded region name): 1..128 characters of
 * [A-Za-z0-9_.-], not starting with '.' or '-'. */
int layout_validate_name_part(const char *part);
/* The same check without recording a message. */
bool layout_name_part_ok(const char *part);

#endif
