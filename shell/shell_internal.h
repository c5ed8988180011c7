/*
 * shell_internal.h - what the files of `strata shell` share: the session, the command
 * table, output in HBase's formatter layout, argument checks and the lazy cluster
 * connection.
 *
 * Commands are functions `int fn(shell_session *s, const shell_value *args)` (args an
 * ARRAY); they print their results to s->out and return ST_OK, or a failure status with
 * st_errmsg() holding the one-line reason the dispatcher prints after "ERROR: ".
 *
 * The cluster is reached only through libstrata's public headers (strata/strata.h,
 * strata/admin.h); their errptr messages become the shell's statuses in shell_failed,
 * by their strata_code.
 *
 * Output layout (HBase's Shell::Formatter): a two-column row is " <c1> <c2>" when
 * stdout is not a terminal; on a terminal of W columns the first column is padded to W/4
 * and long values wrap. Headers are the same without the leading space. Footers are
 * "N row(s)"; every command ends with "Took S.SSSS seconds".
 *
 * Thread-safety: a session belongs to one thread; the interrupt flag is set from a
 * signal handler.
 */
#ifndef STRATA_SHELL_SHELL_INTERNAL_H
#define STRATA_SHELL_SHELL_INTERNAL_H

#include <regex.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/buf.h"
#include "shell/shell.h"
#include "shell/shell_parse.h"
#include "strata/admin.h"
#include "strata/strata.h"

#define SHELL_MAX_VARS 64

struct shell_session {
    shell_config cfg; /* strings owned */
    FILE *out;
    FILE *err;
    int width;             /* terminal columns; 0 when stdout is not a terminal */
    strata_admin_t *admin; /* NULL until first needed */
    strata_client_t *client;
    bool contacted;    /* the first contact succeeded */
    unsigned rows;     /* rows printed since the last header */
    uint64_t start_ns; /* when the running command started */
    int line_no;       /* interactive prompt counter */
    /* table references (t = get_table 't1'), newest last */
    struct shell_var {
        char name[64];
        char table[300];
    } vars[SHELL_MAX_VARS];
    size_t nvars;
};

/* Set by SIGINT while a command runs; long loops (scan, count) stop on it. */
extern volatile sig_atomic_t shell_interrupted;

/* ---- commands (shell_commands.c) ---- */

typedef int (*shell_cmd_fn)(shell_session *s, const shell_value *args);

typedef struct shell_command {
    const char *name;
    const char *group; /* general, ddl, namespace, dml, tools, procedures */
    shell_cmd_fn fn;
    const char *help; /* HBase-style help text, ending with a newline */
} shell_command;

/* Each file's commands, every table terminated by {NULL}. */
extern const shell_command shell_cmds_general[];
extern const shell_command shell_cmds_ddl[];
extern const shell_command shell_cmds_namespace[];
extern const shell_command shell_cmds_dml[];
extern const shell_command shell_cmds_regions[];
extern const shell_command shell_cmds_procs[];
extern const shell_command shell_cmds_tableref[];
extern const shell_command shell_cmds_servers[];

/* An HBase shell command the Strata shell does not have, and why (shell_cmd_absent.c). */
typedef enum shell_absent_kind {
    SHELL_ABSENT_NOT_YET = 0, /* not built yet */
    SHELL_ABSENT_REFUSED = 1, /* Strata does not have it by design */
} shell_absent_kind;

typedef struct shell_absent {
    const char *name;
    const char *group; /* HBase's group */
    shell_absent_kind kind;
    const char *why;
} shell_absent;

/* The absent command called name, or NULL. */
const shell_absent *shell_find_absent(const char *name);

/* The command called name (or an alias such as desc), or NULL. */
const shell_command *shell_find_command(const char *name);
/* Runs one parsed statement with timing and error reporting; ST_OK or the failure. */
int shell_dispatch(shell_session *s, const shell_stmt *st);
/* The same for any statement: table references (`t = get_table 't1'`, `t.put ...`, a
 * bare `t`) resolved first (shell_tableref.c), then shell_dispatch. */
int shell_dispatch_stmt(shell_session *s, const shell_stmt *st);
/* table_help's text (HBase's table reference help). */
extern const char shell_table_help[];

/* ---- output (shell_format.c) ---- */

void shell_header(shell_session *s, const char *c1, const char *c2);
void shell_row1(shell_session *s, const char *text);
void shell_row2(shell_session *s, const char *c1, const char *c2);
void shell_footer(shell_session *s, long rows);
/* HBase's human-readable TTL: "FOREVER", "30 SECONDS", "86400 SECONDS (1 DAY)". */
void shell_ttl_string(int64_t ttl_sec, char *out, size_t cap);
/* Bytes.toStringBinary of data as a malloc'ed string (free it); NULL when out of memory. */
char *shell_binary(const void *data, size_t len);

/* ---- cells (shell_cells.c) ---- */

/* The catalog's name: read with scan, get and count (strata_admin_scan_meta), never
 * written. */
#define SHELL_META_TABLE "strata:meta"
/* Appends "timestamp=T, value=V" (a put; V through Bytes.toStringBinary) or
 * "timestamp=T, type=DeleteColumn" (a delete marker of a raw scan) to b, cut to maxlength
 * characters of its own (< 0: whole), as HBase's to_string; b stays NUL-terminated. */
void shell_cell_text(buf_t *b, int64_t ts, strata_cell_type type, const char *val, size_t len,
                     int64_t maxlength);
/* The same for a cell of strata:meta, decoding what HBase's shell decodes in hbase:meta:
 * info:regioninfo (as shell_region_describe), info:serverstartcode and info:seqnum (8
 * bytes big-endian, as numbers). A value that does not decode prints as bytes. */
void shell_meta_cell_text(buf_t *b, const char *fam, size_t fam_len, const char *qual,
                          size_t qual_len, int64_t ts, strata_cell_type type, const char *val,
                          size_t len, int64_t maxlength);
/* Appends HBase's HRegionInfo.toString of r: "{ENCODED => e, NAME => 'name', STARTKEY =>
 * 's', ENDKEY => 'e'}", with ", OFFLINE => true" and ", SPLIT => true" when set. */
void shell_region_describe(const strata_region_t *r, buf_t *out);

/* The same with the value through converter conv (shell_convert.c): ST_OK, or the
 * converter's failure (b then holds a partial text). */
int shell_cell_text_as(buf_t *b, int64_t ts, strata_cell_type type, const char *val, size_t len,
                       int64_t maxlength, int conv);

/* ---- converters (shell_convert.c) ---- */

/* The Bytes methods HBase's shell formats with (table.rb convert_bytes). */
typedef enum shell_conv {
    SHELL_CONV_BINARY = 0, /* toStringBinary, the default */
    SHELL_CONV_STRING,     /* toString */
    SHELL_CONV_INT,        /* toInt */
    SHELL_CONV_LONG,       /* toLong */
    SHELL_CONV_SHORT,      /* toShort */
    SHELL_CONV_FLOAT,      /* toFloat */
    SHELL_CONV_DOUBLE,     /* toDouble */
    SHELL_CONV_BOOLEAN,    /* toBoolean */
    SHELL_CONV_HEX,        /* toHex */
    SHELL_CONV_LEN,        /* len */
} shell_conv;

const char *shell_conv_name(shell_conv c);
/* Whether s[0..len) reads as a converter in a column spec (HBase's converter?): the form
 * c(CLASS).METHOD or the name of a Bytes method. */
bool shell_conv_is_spec(const char *s, size_t len);
/* ST_OK if cls is org.apache.hadoop.hbase.util.Bytes (or Bytes), else a clear refusal. */
int shell_conv_check_class(const char *cls, size_t len);
/* A converter spec (a method name or c(CLASS).METHOD): ST_OK and *out, or
 * ST_INVALID_ARGUMENT naming it and what the shell has. */
int shell_conv_parse(const char *spec, size_t len, shell_conv *out);
/* Appends data converted (b stays NUL-terminated): ST_OK, ST_INVALID_ARGUMENT with Java's
 * message when the bytes do not fit (toInt of 2 bytes), or ST_NOMEM. */
int shell_conv_apply(shell_conv c, const void *data, size_t len, buf_t *out);

/* How get and scan print: FORMATTER (row keys, column names and values) and the
 * converters of column specs ('cf:q:toInt'), which win for their column's values. */
typedef struct shell_formats {
    shell_conv all; /* FORMATTER; SHELL_CONV_BINARY without one */
    struct shell_col_conv {
        char *col; /* "family:qualifier", raw bytes */
        size_t len;
        shell_conv conv;
    } *cols;
    size_t ncols;
} shell_formats;

/* A column spec "family[:qualifier[:converter]]" (HBase's parse_column_format_spec):
 * *col_len the length of the column without the converter, which is registered in f (f
 * may be NULL: only parsed). A last ":suffix" that is no converter stays part of the
 * qualifier. ST_OK, ST_INVALID_ARGUMENT for a converter the shell does not have, ST_NOMEM. */
int shell_formats_column(shell_formats *f, const char *spec, size_t len, size_t *col_len);
/* FORMATTER and FORMATTER_CLASS of an options hash into f. */
int shell_formats_options(shell_formats *f, const shell_value *hash);
/* The converter of a cell's value. */
shell_conv shell_formats_value(const shell_formats *f, const char *fam, size_t fl,
                               const char *qual, size_t ql);
void shell_formats_free(shell_formats *f);

/* ---- arguments (shell_args.c) ---- */

/* ST_OK if min <= args->n <= max (max < 0: no limit), else Ruby's ArgumentError text. */
int shell_nargs(const shell_value *args, size_t min, long max);
/* args[i] as a string: ST_OK, or ST_INVALID_ARGUMENT naming what. */
int shell_str_arg(const shell_value *args, size_t i, const char *what, const shell_value **out);
/* An integer from an Integer or a decimal String. */
int shell_int_value(const shell_value *v, const char *what, int64_t *out);
/* A boolean from true/false or 'true'/'false' (any case). */
int shell_bool_value(const shell_value *v, const char *what, bool *out);
/* Ruby's to_s of a scalar into b (NUL-terminated); ST_INVALID_ARGUMENT for an Array or
 * a Hash. */
int shell_to_s(const shell_value *v, const char *what, buf_t *b);
/* Splits "family[:qualifier]" (HBase's parseColumn): *has_qual false when there is no
 * ':' or nothing follows it. Pointers into col. */
void shell_split_column(const char *col, size_t len, const char **fam, size_t *fam_len,
                        const char **qual, size_t *qual_len, bool *has_qual);
/* A TTL as HBase's shell reads one: seconds ("86400") or a time in DAY(S), HOUR(S),
 * MINUTE(S), SECOND(S), in that order, each at most once ("1 DAY 2 HOURS 30 MINUTES"; any
 * case). ST_OK and *out seconds, or ST_INVALID_ARGUMENT naming the text. */
int shell_ttl_parse(const char *text, int64_t *out);
/* Every key of hash must be one of allowed (NULL-terminated); else "Unknown argument". */
int shell_check_keys(const shell_value *hash, const char *const *allowed, const char *where);

/* ---- operation attributes and scan metrics (shell_attrs.c, shell_scan_metrics.c) ---- */

/* ATTRIBUTES => {...} of the options hash opts (NULL or without the key: nothing) set on
 * the one of m, g, sc that is not NULL: ST_OK, or ST_INVALID_ARGUMENT ("Attributes must
 * be a Hash type", a nil value, a name past its bounds ...) naming the attribute. */
int shell_attributes_apply(const shell_value *opts, strata_mutation_t *m, strata_get_t *g,
                           strata_scan_t *sc);

/* Scan metrics asked for by ALL_METRICS / METRICS, and which to print. */
typedef struct shell_metrics {
    bool on;
    const shell_value *filter; /* METRICS (borrowed from the arguments), or NULL */
} shell_metrics;

/* ALL_METRICS and METRICS of a scan's options into *out; turns metrics on in sc when
 * either asks. ST_OK or ST_INVALID_ARGUMENT. */
int shell_metrics_option(const shell_value *opts, strata_scan_t *sc, shell_metrics *out);
/* With m->on: an empty line, "METRIC  VALUE" and the metrics v[0..n) (sorted here by
 * name) that m's filter lets through, as HBase's formatter prints them. */
void shell_metrics_print(shell_session *s, const shell_metrics *m, strata_scan_metric *v, size_t n);

/* ---- cluster (shell_conn.c) ---- */

/* The admin handle, opened and checked on first use (see shell.h). */
int shell_admin(shell_session *s, strata_admin_t **out);
/* A handle on table name (close with strata_table_close). */
int shell_table(shell_session *s, const char *name, strata_table_t **out);
/* Turns a failed call's message (an errptr of strata.h or admin.h) into the shell's status
 * for its code, with st_errmsg() holding the message after its token; frees err. ST_OK
 * when err is NULL. */
int shell_failed(char *err);
/* ST_OK if name is a valid table name, else ST_INVALID_ARGUMENT naming what is wrong. */
int shell_check_table_name(const char *name);
/* The name as HBase prints it: "t" for "default:t", else unchanged. */
const char *shell_display_name(const char *qualified);

/* What describe answers: the descriptor (the caller's, see shell_table_info_clear), the
 * table's state and its number of regions. */
typedef struct shell_table_info {
    strata_table_descriptor_t *td;
    strata_table_state state;
    uint32_t regions;
} shell_table_info;

/* Describes table: ST_OK and *out, ST_NOT_FOUND (message naming the table) or the
 * failure (out->td NULL). */
int shell_describe(shell_session *s, const char *table, shell_table_info *out);
void shell_table_info_clear(shell_table_info *info);
/* Turns a client error message (errptr) about table into the failure status with an
 * HBase-style message ("Unknown table t!", "Unknown column family! Valid column names:
 * cf:*"); frees msg. */
int shell_data_error(shell_session *s, const char *table, char *msg);
/* "<table>,<start>,<id>.<encoded>." (HBase's region name). */
void shell_region_name(const strata_region_t *r, buf_t *out);
/* Accepts an encoded name or a full region name; copies the encoded name into out. */
void shell_encoded_name(const char *name, char *out, size_t cap);

/* Compiles a Java-style pattern (whole-string match) as an anchored POSIX extended regex
 * (shell_cmd_ddl.c). ST_OK (regfree it) or ST_INVALID_ARGUMENT naming the pattern. */
int shell_regex(const char *pattern, regex_t *re);

/* ---- schemas (shell_schema.c) ---- */

/* Applies a family dictionary (NAME and METHOD skipped); unknown keys are reported on
 * s->out as HBase does ("Unknown argument ignored for column family f: X"). */
int shell_family_apply(shell_session *s, strata_family_descriptor_t *f, const shell_value *spec);
/* One table option: an attribute (MAX_FILESIZE, MEMSTORE_FLUSHSIZE, DURABILITY), a value
 * (SPLIT_POLICY, NORMALIZATION_ENABLED), METADATA => {...} or CONFIGURATION => {...} (a nil
 * value removes its key); *known false for any other key. */
int shell_table_attr(strata_table_descriptor_t *t, const char *key, const shell_value *v,
                     bool *known);
/* alter's table_att_unset (config false: a value, or an attribute such as MAX_FILESIZE)
 * and table_conf_unset (config true) of NAME, a String or an Array of Strings; "Could
 * not find attribute: K" / "Could not find configuration: K" when one is not set. */
int shell_table_attr_unset(strata_table_descriptor_t *t, const shell_value *name, bool config);
/* "{NAME => 'f', VERSIONS => '1', ...}" / ", {TABLE_ATTRIBUTES => {..., METADATA =>
 * {...}}, CONFIGURATION => {...}}" or "" into b (NUL-terminated). */
void shell_family_describe(const strata_family_descriptor_t *f, buf_t *b);
void shell_table_attrs_describe(const strata_table_descriptor_t *t, buf_t *b);

#endif
