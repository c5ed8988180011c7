/*
 * rest_internal.h - what the files of the REST gateway share (docs/rest.md): the
 * settings, the request a worker runs and the response it writes, media types, the
 * parsed path pieces, the documents (CellSet, TableSchema, Scanner) and the handlers.
 *
 * Files: rest_server.c (settings, lifecycle, the client handles), rest_http.c (event
 * loops, hand-off to workers, sending and streaming), rest_work.c (the worker queue),
 * rest_resp.c (the response writer), rest_media.c (Accept / Content-Type),
 * rest_path.c (percent-decoding, row specs, queries), rest_router.c (which handler),
 * rest_cellset.c, rest_schema.c, rest_scanner_doc.c, rest_filter.c, rest_docs.c (the
 * documents in JSON, XML and protobuf), rest_rows.c, rest_scan.c, rest_scanners.c,
 * rest_admin.c (the endpoints), rest_metrics.c (counters, /metrics, /healthz).
 *
 * Thread-safety: a rest_req and its rest_resp belong to the one worker running them;
 * the server's shared parts (client, admin, tables, scanners, metrics) are safe from
 * every worker (each says how).
 */
#ifndef STRATA_REST_REST_INTERNAL_H
#define STRATA_REST_REST_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "rest/rest.h"
#include "strata/admin.h"
#include "strata/strata.h"

#define REST_VERSION_STRING "0.0.3" /* HBase REST's protocol version (Constants.VERSION_STRING) */
#define REST_CHUNK_BYTES (256 * 1024) /* a streamed answer is sent in chunks of this size */

/* ---- settings ---- */

typedef struct rest_settings {
    char host[256];       /* address to bind */
    int port;             /* 0: any free port */
    char advertised[256]; /* host name for Location headers ("" : the Host header) */
    int workers;
    int io_threads;
    size_t queue_size;       /* requests waiting for a worker before 503 */
    size_t max_body_bytes;   /* larger request bodies: 413 */
    size_t max_header_bytes; /* larger request heads: 400 (evhttp) / 431 */
    uint32_t max_rows;       /* rows one request may carry or name, rows per scanner batch */
    int timeout_s;           /* a connection idle (or a client this slow) this long is closed */
    bool read_only;          /* every write: 403 */
    int64_t scanner_idle_ms; /* an unused scanner expires after this */
    uint32_t max_scanners;   /* open scanners; past it the least recently used expires */
    int64_t op_timeout_ms;   /* each client operation, retries included */
    char zk_quorum[1024];
    char zk_parent[256];
    char ready_file[1024];
} rest_settings;

/* ---- requests and responses ---- */

typedef enum rest_method {
    REST_GET = 0,
    REST_HEAD,
    REST_PUT,
    REST_POST,
    REST_DELETE,
    REST_OPTIONS,
    REST_OTHER,
} rest_method;

typedef struct rest_req {
    rest_method method;
    const char *method_name;
    char *path;  /* as sent: percent-encoded, starting with '/' */
    char *query; /* after '?', "" if none */
    char *accept, *content_type, *host;
    char *x_timestamp, *x_row, *x_column; /* HBase's binary-put headers, NULL if absent */
    buf_t body;
    char peer[64];
} rest_req;

typedef struct rest_resp rest_resp;

/* Sets the status and (if not NULL) the Content-Type. Ignored once streaming began. */
void rest_resp_set(rest_resp *r, int status, const char *content_type);
/* Adds a header (copied): ST_OK or ST_NOMEM. */
int rest_resp_header(rest_resp *r, const char *name, const char *value);
/* The body being written. */
buf_t *rest_resp_body(rest_resp *r);
int rest_resp_printf(rest_resp *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Once the body holds a chunk or more, sends it (the first time with the status and
 * headers, as a chunked answer) and waits until it is written. ST_OK, or ST_CLOSED when
 * the client went away (stop producing). A handler calls it between rows of a long
 * answer. */
int rest_resp_maybe_flush(rest_resp *r);
/* Whether the status line has been sent (a streamed answer). */
bool rest_resp_streaming(const rest_resp *r);
/* Replaces the answer with `status` and a text/plain body "<reason>: <message>\r\n" (the
 * message printf-formatted). Once streaming began nothing can be replaced: the answer is
 * cut off instead (the connection closes without the last chunk, so the client sees a
 * broken transfer, never a short answer that looks whole). */
void rest_resp_error(rest_resp *r, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int rest_resp_status(const rest_resp *r);

/* ---- media types (rest_media.c) ---- */

typedef enum rest_media {
    REST_MEDIA_NONE = 0,
    REST_MEDIA_TEXT,          /* text/plain */
    REST_MEDIA_XML,           /* text/xml, application/xml */
    REST_MEDIA_JSON,          /* application/json */
    REST_MEDIA_PROTOBUF,      /* application/x-protobuf */
    REST_MEDIA_PROTOBUF_IETF, /* application/protobuf */
    REST_MEDIA_BINARY,        /* application/octet-stream */
} rest_media;

/* The Content-Type string of m ("text/xml" ...). */
const char *rest_media_name(rest_media m);
/* The media type of a Content-Type header (parameters ignored): REST_MEDIA_NONE if absent
 * or not one of these. */
rest_media rest_media_parse(const char *content_type);
/* The best of offered[0..n) (in the server's order of preference) for an Accept header
 * (q-values, wildcards; absent or empty: offered[0]); REST_MEDIA_NONE when Accept allows
 * none of them (406). */
rest_media rest_media_choose(const char *accept, const rest_media *offered, size_t n);
/* Whether a media type is one of the protobuf ones. */
bool rest_media_is_protobuf(rest_media m);

/* ---- paths and queries (rest_path.c) ---- */

/* Percent-decodes s[0..n) as Java's URLDecoder does ('+' is a space) into out (appended).
 * ST_OK or ST_INVALID_ARGUMENT naming the bad escape. */
int rest_url_decode(buf_t *out, const char *s, size_t n, bool plus_is_space);
/* Percent-encodes bytes for a path segment (unreserved characters kept). */
int rest_url_encode(buf_t *out, const void *s, size_t n);

/* The value of query parameter name (decoded, the caller's to free), or NULL if absent.
 * index: the n-th occurrence (0 first). *err set on a bad escape. */
char *rest_query_get(const char *query, const char *name, size_t index, int *err);
bool rest_query_has(const char *query, const char *name);

typedef struct rest_bytes {
    uint8_t *data;
    size_t len;
} rest_bytes;

/* A row specification: <row>[,<end>] or <prefix>*, columns, a timestamp or range and
 * versions (HBase's RowSpec). */
typedef struct rest_rowspec {
    rest_bytes row;
    rest_bytes end_row; /* valid when has_end */
    bool has_end;       /* a range (start,end) or a suffix glob (end = prefix + 0xff) */
    bool glob;          /* <prefix>*: end_row is the prefix's successor */
    rest_bytes *columns;
    size_t ncolumns;
    int64_t start_time, end_time; /* [start, end); 0, INT64_MAX when not given */
    bool has_time;
    int64_t timestamp;  /* one timestamp given as "/<ts>" (valid when has_timestamp) */
    bool has_timestamp;
    uint32_t max_versions; /* 1 unless ?v= */
    uint32_t max_values;   /* 0: no limit */
} rest_rowspec;

/* Parses segs[0..n) (still percent-encoded: row, columns, timestamp) into spec. ST_OK or
 * ST_INVALID_ARGUMENT with the message naming the bad part. */
int rest_rowspec_parse(const char *const *segs, size_t n, rest_rowspec *spec);
void rest_rowspec_free(rest_rowspec *spec);
/* Splits column text "family:qualifier" / "family" / "family:": family and qualifier
 * (qualifier NULL when there is no ':'). */
void rest_column_split(const uint8_t *col, size_t len, const uint8_t **fam, size_t *fam_len,
                       const uint8_t **qual, size_t *qual_len, bool *has_qual);

/* ---- documents ---- */

/* One cell of a CellSet: column is "family:qualifier"; ts INT64_MAX when not given. */
typedef struct rest_cell {
    rest_bytes column;
    bool has_column;
    int64_t ts;
    rest_bytes value;
    bool has_value;
} rest_cell;

typedef struct rest_row {
    rest_bytes key;
    bool has_key;
    rest_cell *cells;
    size_t ncells;
} rest_row;

typedef struct rest_cellset {
    rest_row *rows;
    size_t nrows;
} rest_cellset;

/* Reads a CellSet in media (JSON, XML or protobuf). ST_OK, ST_INVALID_ARGUMENT naming
 * what is wrong (an unknown member or attribute too: nothing is silently ignored), or
 * ST_NOMEM; *out is empty on failure. */
int rest_cellset_decode(rest_media media, const void *body, size_t len, rest_cellset *out);
void rest_cellset_free(rest_cellset *cs);

/* Writes a CellSet row by row in a media type (rest_cellset.c). */
typedef struct rest_cellset_writer {
    rest_media media;
    buf_t *out;
    bool stream;      /* protobuf: a stream of length-prefixed CellSets (the stateless scan) */
    size_t rows;      /* rows begun */
    bool open_row;    /* a row is open */
    bool open_set;    /* stream: a length-prefixed CellSet is open */
    size_t set_mark;  /* stream: where the open CellSet's length goes */
    buf_t row_key;    /* the open row's key */
    buf_t row_pb;     /* protobuf: the open row's encoding (its length is written first) */
    size_t cells_in_row;
} rest_cellset_writer;

int rest_cellset_begin(rest_cellset_writer *w, rest_media media, buf_t *out, bool stream);
/* A row of result r (all its cells). */
int rest_cellset_add_result(rest_cellset_writer *w, const strata_result_t *r);
/* One cell; a new row starts when row differs from the previous cell's. */
int rest_cellset_add_cell(rest_cellset_writer *w, const void *row, size_t row_len,
                          const void *fam, size_t fam_len, const void *qual, size_t qual_len,
                          int64_t ts, const void *value, size_t value_len);
/* Ends an open row. For the protobuf stream: ends the pending CellSet (its length
 * written), so the bytes so far can be sent. */
int rest_cellset_flush_point(rest_cellset_writer *w);
/* Ends the document and frees the writer's own buffers (also call it on failure paths:
 * with out NULL it only frees). */
int rest_cellset_end(rest_cellset_writer *w);

/* A TableSchema: name, table attributes and families with their attributes, in order. */
typedef struct rest_attr {
    char *name;
    char *value;
} rest_attr;

typedef struct rest_family_schema {
    char *name;
    rest_attr *attrs;
    size_t nattrs;
} rest_family_schema;

typedef struct rest_table_schema {
    char *name;
    rest_attr *attrs;
    size_t nattrs;
    rest_family_schema *families;
    size_t nfamilies;
} rest_table_schema;

int rest_schema_decode(rest_media media, const void *body, size_t len, rest_table_schema *out);
void rest_schema_free(rest_table_schema *s);
/* The document of a described table (every attribute, in HBase's names). */
int rest_schema_encode(rest_media media, const strata_table_descriptor_t *td,
                       strata_table_state state, buf_t *out);
/* Builds a descriptor for table name from a schema document: every attribute mapped to
 * Strata's or refused. *out the caller's; ST_INVALID_ARGUMENT naming the attribute. */
int rest_schema_to_descriptor(const rest_table_schema *s, const char *name,
                              strata_table_descriptor_t **out);

/* A Scanner document. */
typedef struct rest_scanner_doc {
    rest_bytes start_row, end_row;
    rest_bytes *columns;
    size_t ncolumns;
    int32_t batch;   /* cells per GET; 0: not given */
    int32_t caching; /* rows fetched per RPC; 0: not given */
    int64_t start_time, end_time;
    int32_t max_versions; /* 0: not given (HBase: all) */
    char *filter;         /* HBase's JSON filter, NULL if none */
    bool reversed;
    bool cache_blocks;
    size_t nlabels;
} rest_scanner_doc;

int rest_scanner_doc_decode(rest_media media, const void *body, size_t len,
                            rest_scanner_doc *out);
void rest_scanner_doc_free(rest_scanner_doc *d);

/* HBase's JSON filter form ({"type":"PrefixFilter","value":"<base64>"} ...) as Strata's
 * filter language (*out malloc'ed; NULL when the filter passes everything, as an empty
 * FilterList). reversed: the scan runs backwards (InclusiveStopFilter's bound). ST_OK,
 * ST_INVALID_ARGUMENT naming the filter or field that is wrong, ST_UNSUPPORTED naming a
 * filter or comparator Strata does not have. */
int rest_filter_from_json(const char *json, size_t len, bool reversed, char **out);

/* NamespaceProperties: key/value pairs in document order. */
typedef struct rest_props {
    rest_attr *items;
    size_t n;
} rest_props;

int rest_props_decode(rest_media media, const void *body, size_t len, rest_props *out);
void rest_props_free(rest_props *p);

/* The output documents (rest_docs.c): each writes the model in media. */
int rest_doc_version(rest_media media, buf_t *out);
int rest_doc_cluster_version(rest_media media, const char *version, buf_t *out);
int rest_doc_status(rest_media media, const strata_cluster_status_t *st, buf_t *out);
int rest_doc_table_list(rest_media media, const strata_name_list_t *names, bool strip_ns,
                        buf_t *out);
int rest_doc_table_info(rest_media media, const char *table, const strata_region_list_t *l,
                        buf_t *out);
int rest_doc_namespaces(rest_media media, const strata_name_list_t *names, buf_t *out);
int rest_doc_props(rest_media media, const strata_namespace_descriptor_t *nd, buf_t *out);

/* ---- the server's shared parts ---- */

typedef struct rest_metrics {
    atomic_uint_fast64_t requests;
    atomic_uint_fast64_t get_ok, get_failed;
    atomic_uint_fast64_t put_ok, put_failed;
    atomic_uint_fast64_t delete_ok, delete_failed;
    atomic_uint_fast64_t scan_ok, scan_failed;
    atomic_uint_fast64_t append_ok, append_failed;
    atomic_uint_fast64_t increment_ok, increment_failed;
    atomic_uint_fast64_t status[6]; /* answers by class: 1xx..5xx (index 1..5) */
    atomic_uint_fast64_t rejected_busy;     /* 503: the worker queue was full */
    atomic_uint_fast64_t scanners_expired;
    atomic_uint_fast64_t bytes_in, bytes_out;
} rest_metrics;

typedef struct rest_scanners rest_scanners; /* rest_scanners.c */
typedef struct rest_http rest_http;         /* rest_http.c */
typedef struct rest_work rest_work;         /* rest_work.c */

struct rest_server {
    rest_settings set;
    strata_client_t *client;
    strata_admin_t *admin;
    pthread_mutex_t tables_mu; /* guards tables */
    struct rest_table_entry *tables;
    size_t ntables, tables_cap;
    rest_scanners *scanners;
    rest_metrics metrics;
    rest_work *work;
    rest_http *http;
    atomic_bool draining;
    int64_t started_ms;
};

/* A table handle for name, shared (the client's tables are thread-safe); never closed
 * before the server. NULL when out of memory. */
strata_table_t *rest_table(rest_server *s, const char *name);

/* ---- handlers (rest_router.c dispatches; each answers through resp) ---- */

void rest_route(rest_server *s, const rest_req *req, rest_resp *resp);

/* Answers a client library failure (err, freed here) as HBase's REST server does: 404 for
 * a missing table or family, 400 for a bad argument, 403 for a disabled table's writes,
 * 503 for what may succeed later. what names the operation and object. */
void rest_fail(rest_resp *resp, char *err, const char *what_fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* rest_rows.c */
void rest_rows_get(rest_server *s, const rest_req *req, rest_resp *resp, const char *table,
                   const char *const *segs, size_t nsegs);
void rest_rows_update(rest_server *s, const rest_req *req, rest_resp *resp, const char *table,
                      const char *const *segs, size_t nsegs);
void rest_rows_delete(rest_server *s, const rest_req *req, rest_resp *resp, const char *table,
                      const char *const *segs, size_t nsegs);
void rest_rows_multiget(rest_server *s, const rest_req *req, rest_resp *resp, const char *table,
                        const char *const *segs, size_t nsegs);

/* rest_scan.c */
void rest_scan_stream(rest_server *s, rest_resp *resp, const char *table, rest_media media,
                      strata_scanner_t *scanner, strata_result_t *first, int64_t limit,
                      bool stream, size_t rows_per_flush);
void rest_scan_stateless(rest_server *s, const rest_req *req, rest_resp *resp, const char *table,
                         const char *spec);
void rest_scanner_create(rest_server *s, const rest_req *req, rest_resp *resp, const char *table);
void rest_scanner_next(rest_server *s, const rest_req *req, rest_resp *resp, const char *table,
                       const char *id);
void rest_scanner_delete(rest_server *s, const rest_req *req, rest_resp *resp, const char *table,
                         const char *id);

/* rest_admin.c */
void rest_admin_root(rest_server *s, const rest_req *req, rest_resp *resp);
void rest_admin_version(rest_server *s, const rest_req *req, rest_resp *resp, bool cluster);
void rest_admin_status(rest_server *s, const rest_req *req, rest_resp *resp);
void rest_admin_namespaces(rest_server *s, const rest_req *req, rest_resp *resp,
                           const char *ns, bool tables);
void rest_admin_schema(rest_server *s, const rest_req *req, rest_resp *resp, const char *table);
void rest_admin_regions(rest_server *s, const rest_req *req, rest_resp *resp, const char *table);
void rest_admin_exists(rest_server *s, const rest_req *req, rest_resp *resp, const char *table);

/* rest_metrics.c */
void rest_metrics_page(rest_server *s, rest_resp *resp);
void rest_health_page(rest_server *s, rest_resp *resp);

/* Shared helpers of the handlers (rest_router.c). */
/* Negotiates the answer's media among offered (406 answered when none fits). */
bool rest_negotiate(const rest_req *req, rest_resp *resp, const rest_media *offered, size_t n,
                    rest_media *out);
/* The request body's media among accepted (415 answered when it is none of them). */
bool rest_body_media(const rest_req *req, rest_resp *resp, const rest_media *accepted, size_t n,
                     rest_media *out);
/* Answers 403 when the gateway is read-only (true: answered). */
bool rest_refuse_read_only(rest_server *s, rest_resp *resp);

#endif
