/*
 * layout.h - where things live under the root directory.
 *
 *   <root>/WALs/<server>/wal.<n>                       a server's write-ahead log
 *   <root>/data/<ns>/<table>/<region>/                 a region
 *   <root>/data/<ns>/<table>/<region>/<family>/<file>  a store's files
 *   <root>/data/<ns>/<table>/<region>/recovered.edits/ edits split from dead WALs
 *   <root>/data/<ns>/<table>/<region>/.tmp/            files being written
 *
 * A table name is "ns:table" or "table" (namespace "default").
 * All functions return a malloc'ed string (NULL if out of memory); the caller frees.
 * Thread-safety: pure functions.
 */
#ifndef STRATA_REGIONSERVER_LAYOUT_H
#define STRATA_REGIONSERVER_LAYOUT_H

char *layout_wal_dir(const char *root, const char *server);
char *layout_region_dir(const char *root, const char *table, const char *region);
char *layout_store_dir(const char *root, const char *table, const char *region,
                       const char *family);
char *layout_recovered_edits_dir(const char *root, const char *table, const char *region);
char *layout_tmp_dir(const char *root, const char *table, const char *region);
/* Splits "ns:table" into namespace and qualifier (each malloc'ed). Returns ST_OK or
 * ST_INVALID_ARGUMENT for an invalid name. */
int layout_split_table_name(const char *table, char **ns, char **qualifier);
/* Checks a namespace/table qualifier: [A-Za-z0-9_.-], not starting with '.' or '-'. */
int layout_validate_name_part(const char *part);

#endif
