/*
 * rest_docs.c - the REST gateway's smaller documents in HBase's shapes (docs/rest.md):
 * Version, ClusterVersion, ClusterStatus, TableList, TableInfo (regions), Namespaces and
 * NamespaceProperties, each in text/plain, text/xml, application/json and protobuf
 * (ClusterVersion has no protobuf form, as in HBase); and NamespaceProperties read back.
 * Thread-safety: reentrant.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "common/base64.h"
#include "common/http/json.h"
#include "common/http/json_value.h"
#include "common/http/xml.h"
#include "common/proto/rest.pb-c.h"
#include "common/status.h"
#include "rest/rest_internal.h"

#define XML_HEAD "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>"
#define GATEWAY_SERVER "Strata REST gateway 0.1.0 (libevent evhttp)"

static int nomem(void)
{
    return st_error(ST_NOMEM, "out of memory writing a document");
}

static int put(buf_t *b, const char *s)
{
    return buf_append(b, s, strlen(s));
}

static int putf(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int putf(buf_t *b, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n < 0)
        return ST_INVALID_ARGUMENT;
    return buf_append(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

/* name="value" with the value escaped. */
static int xattr(buf_t *b, const char *name, const char *value)
{
    int rc = putf(b, " %s=\"", name);
    if (rc == ST_OK)
        rc = xml_append_escaped(b, value, strlen(value), true);
    return rc == ST_OK ? put(b, "\"") : rc;
}

/* <name>text</name> with the text escaped. */
static int xelem(buf_t *b, const char *name, const char *text)
{
    int rc = putf(b, "<%s>", name);
    if (rc == ST_OK)
        rc = xml_append_escaped(b, text, strlen(text), false);
    return rc == ST_OK ? putf(b, "</%s>", name) : rc;
}

static int pack(buf_t *b, const ProtobufCMessage *m)
{
    size_t len = protobuf_c_message_get_packed_size(m);
    if (buf_reserve(b, len ? len : 1) != ST_OK)
        return ST_NOMEM;
    b->len += protobuf_c_message_pack(m, b->data + b->len);
    return ST_OK;
}

static int json_done(json_writer *w)
{
    return json_finish(w) == ST_OK ? ST_OK : nomem();
}

/* "Linux 6.1.0 x86_64", as Java's os.name os.version os.arch. */
static void os_version(char *out, size_t cap)
{
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(out, cap, "%s %s %s", u.sysname, u.release, u.machine);
    else
        snprintf(out, cap, "unknown");
}

/* "host,port,startcode" -> "host:port". */
static void host_port(const char *server, char *out, size_t cap)
{
    snprintf(out, cap, "%s", server ? server : "");
    char *c1 = strchr(out, ',');
    if (!c1)
        return;
    *c1 = ':';
    char *c2 = strchr(c1 + 1, ',');
    if (c2)
        *c2 = '\0';
}

/* ---- Version ---- */

int rest_doc_version(rest_media media, buf_t *out)
{
    char os[300];
    os_version(os, sizeof(os));
    const char *jvm = "none (a native C process)";
    int rc = ST_OK;
    if (media == REST_MEDIA_JSON) {
        json_writer w;
        json_init(&w, out);
        json_object_begin(&w);
        json_key(&w, "REST");
        json_string(&w, REST_VERSION_STRING);
        json_key(&w, "JVM");
        json_string(&w, jvm);
        json_key(&w, "OS");
        json_string(&w, os);
        json_key(&w, "Server");
        json_string(&w, GATEWAY_SERVER);
        json_key(&w, "Jersey");
        json_string(&w, "");
        json_object_end(&w);
        return json_done(&w);
    }
    if (media == REST_MEDIA_XML) {
        rc = put(out, XML_HEAD "<Version");
        if (rc == ST_OK)
            rc = xattr(out, "REST", REST_VERSION_STRING);
        if (rc == ST_OK)
            rc = xattr(out, "JVM", jvm);
        if (rc == ST_OK)
            rc = xattr(out, "OS", os);
        if (rc == ST_OK)
            rc = xattr(out, "Server", GATEWAY_SERVER);
        if (rc == ST_OK)
            rc = xattr(out, "Jersey", "");
        if (rc == ST_OK)
            rc = put(out, "/>");
    } else if (rest_media_is_protobuf(media)) {
        Strata__Rest__Version m = STRATA__REST__VERSION__INIT;
        m.restversion = REST_VERSION_STRING;
        m.jvmversion = (char *)jvm;
        m.osversion = os;
        m.serverversion = GATEWAY_SERVER;
        m.jerseyversion = "";
        rc = pack(out, &m.base);
    } else {
        rc = putf(out, "rest %s [JVM: %s] [OS: %s] [Server: %s] [Jersey: ]\n", REST_VERSION_STRING,
                  jvm, os, GATEWAY_SERVER);
    }
    return rc == ST_OK ? ST_OK : nomem();
}

int rest_doc_cluster_version(rest_media media, const char *version, buf_t *out)
{
    int rc;
    if (media == REST_MEDIA_JSON) {
        json_writer w;
        json_init(&w, out);
        json_object_begin(&w);
        json_key(&w, "Version");
        json_string(&w, version);
        json_object_end(&w);
        return json_done(&w);
    }
    if (media == REST_MEDIA_XML) {
        rc = put(out, XML_HEAD "<ClusterVersion");
        if (rc == ST_OK)
            rc = xattr(out, "Version", version);
        if (rc == ST_OK)
            rc = put(out, "/>");
    } else {
        rc = putf(out, "%s\r\n", version);
    }
    return rc == ST_OK ? ST_OK : nomem();
}

/* ---- ClusterStatus ---- */

typedef struct node_info {
    char name[300]; /* host:port */
    long long start_code;
} node_info;

static void node_of(const strata_server_load_t *l, node_info *n)
{
    const char *s = strata_server_load_name(l);
    host_port(s, n->name, sizeof(n->name));
    const char *last = s ? strrchr(s, ',') : NULL;
    n->start_code = last ? atoll(last + 1) : 0;
}

static uint64_t mb(uint64_t bytes)
{
    return bytes / (1024 * 1024);
}

static int status_json(const strata_cluster_status_t *st, double avg, uint64_t requests,
                       buf_t *out)
{
    json_writer w;
    json_init(&w, out);
    json_object_begin(&w);
    json_key(&w, "regions");
    json_u64(&w, strata_cluster_status_region_count(st));
    json_key(&w, "requests");
    json_u64(&w, requests);
    json_key(&w, "averageLoad");
    json_double(&w, avg);
    json_key(&w, "LiveNodes");
    json_array_begin(&w);
    size_t nl = strata_cluster_status_live_server_count(st);
    for (size_t i = 0; i < nl; i++) {
        const strata_server_load_t *l = strata_cluster_status_live_server(st, i);
        node_info n;
        node_of(l, &n);
        json_object_begin(&w);
        json_key(&w, "name");
        json_string(&w, n.name);
        json_key(&w, "startCode");
        json_i64(&w, n.start_code);
        json_key(&w, "requests");
        json_u64(&w, (uint64_t)strata_server_load_requests_per_second(l));
        json_key(&w, "heapSizeMB");
        json_u64(&w, 0);
        json_key(&w, "maxHeapSizeMB");
        json_u64(&w, 0);
        json_key(&w, "Region");
        json_array_begin(&w);
        size_t nr = strata_server_load_region_load_count(l);
        for (size_t k = 0; k < nr; k++) {
            const strata_region_load_t *r = strata_server_load_region_load(l, k);
            const char *enc = strata_region_load_encoded_name(r);
            buf_t name = {0};
            if (base64_encode(&name, enc, strlen(enc)) != ST_OK || buf_append_u8(&name, 0) != ST_OK) {
                buf_free(&name);
                return nomem();
            }
            json_object_begin(&w);
            json_key(&w, "name");
            json_string(&w, (const char *)name.data);
            buf_free(&name);
            json_key(&w, "stores");
            json_u64(&w, 0);
            json_key(&w, "storefiles");
            json_u64(&w, strata_region_load_store_files(r));
            json_key(&w, "storefileSizeMB");
            json_u64(&w, mb(strata_region_load_store_file_size(r)));
            json_key(&w, "memStoreSizeMB");
            json_u64(&w, mb(strata_region_load_memstore_size(r)));
            json_key(&w, "storefileIndexSizeKB");
            json_u64(&w, 0);
            json_key(&w, "readRequestsCount");
            json_u64(&w, strata_region_load_read_requests(r));
            json_key(&w, "cpRequestsCount");
            json_u64(&w, 0);
            json_key(&w, "writeRequestsCount");
            json_u64(&w, strata_region_load_write_requests(r));
            json_key(&w, "rootIndexSizeKB");
            json_u64(&w, 0);
            json_key(&w, "totalStaticIndexSizeKB");
            json_u64(&w, 0);
            json_key(&w, "totalStaticBloomSizeKB");
            json_u64(&w, 0);
            json_key(&w, "totalCompactingKVs");
            json_u64(&w, 0);
            json_key(&w, "currentCompactedKVs");
            json_u64(&w, 0);
            json_object_end(&w);
        }
        json_array_end(&w);
        json_object_end(&w);
    }
    json_array_end(&w);
    json_key(&w, "DeadNodes");
    json_array_begin(&w);
    for (size_t i = 0; i < strata_cluster_status_dead_server_count(st); i++)
        json_string(&w, strata_cluster_status_dead_server(st, i));
    json_array_end(&w);
    json_object_end(&w);
    return json_done(&w);
}

static int status_xml(const strata_cluster_status_t *st, double avg, uint64_t requests,
                      buf_t *out)
{
    int rc = putf(out, XML_HEAD "<ClusterStatus regions=\"%u\" requests=\"%llu\" averageLoad=\"%g\">",
                  strata_cluster_status_region_count(st), (unsigned long long)requests, avg);
    if (rc == ST_OK)
        rc = put(out, "<LiveNodes>");
    size_t nl = strata_cluster_status_live_server_count(st);
    for (size_t i = 0; rc == ST_OK && i < nl; i++) {
        const strata_server_load_t *l = strata_cluster_status_live_server(st, i);
        node_info n;
        node_of(l, &n);
        rc = put(out, "<Node");
        if (rc == ST_OK)
            rc = xattr(out, "name", n.name);
        if (rc == ST_OK)
            rc = putf(out, " startCode=\"%lld\" requests=\"%llu\" heapSizeMB=\"0\" "
                           "maxHeapSizeMB=\"0\">",
                      n.start_code, (unsigned long long)strata_server_load_requests_per_second(l));
        size_t nr = strata_server_load_region_load_count(l);
        for (size_t k = 0; rc == ST_OK && k < nr; k++) {
            const strata_region_load_t *r = strata_server_load_region_load(l, k);
            const char *enc = strata_region_load_encoded_name(r);
            rc = put(out, "<Region name=\"");
            if (rc == ST_OK)
                rc = base64_encode(out, enc, strlen(enc));
            if (rc == ST_OK)
                rc = putf(out,
                          "\" stores=\"0\" storefiles=\"%llu\" storefileSizeMB=\"%llu\" "
                          "memStoreSizeMB=\"%llu\" storefileIndexSizeKB=\"0\" "
                          "readRequestsCount=\"%llu\" cpRequestsCount=\"0\" "
                          "writeRequestsCount=\"%llu\" rootIndexSizeKB=\"0\" "
                          "totalStaticIndexSizeKB=\"0\" totalStaticBloomSizeKB=\"0\" "
                          "totalCompactingKVs=\"0\" currentCompactedKVs=\"0\"/>",
                          (unsigned long long)strata_region_load_store_files(r),
                          (unsigned long long)mb(strata_region_load_store_file_size(r)),
                          (unsigned long long)mb(strata_region_load_memstore_size(r)),
                          (unsigned long long)strata_region_load_read_requests(r),
                          (unsigned long long)strata_region_load_write_requests(r));
        }
        if (rc == ST_OK)
            rc = put(out, "</Node>");
    }
    if (rc == ST_OK)
        rc = put(out, "</LiveNodes><DeadNodes>");
    for (size_t i = 0; rc == ST_OK && i < strata_cluster_status_dead_server_count(st); i++)
        rc = xelem(out, "Node", strata_cluster_status_dead_server(st, i));
    if (rc == ST_OK)
        rc = put(out, "</DeadNodes></ClusterStatus>");
    return rc == ST_OK ? ST_OK : nomem();
}

static int status_pb(const strata_cluster_status_t *st, double avg, uint64_t requests, buf_t *out)
{
    size_t nl = strata_cluster_status_live_server_count(st);
    size_t nd = strata_cluster_status_dead_server_count(st);
    size_t nr_total = 0;
    for (size_t i = 0; i < nl; i++)
        nr_total += strata_server_load_region_load_count(strata_cluster_status_live_server(st, i));
    Strata__Rest__StorageClusterStatus m = STRATA__REST__STORAGE_CLUSTER_STATUS__INIT;
    Strata__Rest__StorageClusterStatus__Node *nodes = calloc(nl ? nl : 1, sizeof(*nodes));
    Strata__Rest__StorageClusterStatus__Node **nptr = calloc(nl ? nl : 1, sizeof(*nptr));
    node_info *infos = calloc(nl ? nl : 1, sizeof(*infos));
    Strata__Rest__StorageClusterStatus__Region *regs = calloc(nr_total ? nr_total : 1, sizeof(*regs));
    Strata__Rest__StorageClusterStatus__Region **rptr = calloc(nr_total ? nr_total : 1, sizeof(*rptr));
    char **dead = calloc(nd ? nd : 1, sizeof(*dead));
    int rc = nodes && nptr && infos && regs && rptr && dead ? ST_OK : ST_NOMEM;
    size_t ri = 0;
    for (size_t i = 0; rc == ST_OK && i < nl; i++) {
        const strata_server_load_t *l = strata_cluster_status_live_server(st, i);
        node_of(l, &infos[i]);
        Strata__Rest__StorageClusterStatus__Node ni = STRATA__REST__STORAGE_CLUSTER_STATUS__NODE__INIT;
        nodes[i] = ni;
        nodes[i].name = infos[i].name;
        nodes[i].has_startcode = true;
        nodes[i].startcode = infos[i].start_code;
        nodes[i].has_requests = true;
        nodes[i].requests = (int64_t)strata_server_load_requests_per_second(l);
        nodes[i].has_heapsizemb = nodes[i].has_maxheapsizemb = true;
        size_t nr = strata_server_load_region_load_count(l);
        nodes[i].regions = rptr + ri;
        nodes[i].n_regions = nr;
        for (size_t k = 0; k < nr; k++, ri++) {
            const strata_region_load_t *r = strata_server_load_region_load(l, k);
            Strata__Rest__StorageClusterStatus__Region rinit =
                STRATA__REST__STORAGE_CLUSTER_STATUS__REGION__INIT;
            regs[ri] = rinit;
            const char *enc = strata_region_load_encoded_name(r);
            regs[ri].name.data = (uint8_t *)enc;
            regs[ri].name.len = strlen(enc);
            regs[ri].has_stores = true;
            regs[ri].has_storefiles = true;
            regs[ri].storefiles = (int32_t)strata_region_load_store_files(r);
            regs[ri].has_storefilesizemb = true;
            regs[ri].storefilesizemb = (int32_t)mb(strata_region_load_store_file_size(r));
            regs[ri].has_memstoresizemb = true;
            regs[ri].memstoresizemb = (int32_t)mb(strata_region_load_memstore_size(r));
            regs[ri].has_readrequestscount = true;
            regs[ri].readrequestscount = (int64_t)strata_region_load_read_requests(r);
            regs[ri].has_writerequestscount = true;
            regs[ri].writerequestscount = (int64_t)strata_region_load_write_requests(r);
            rptr[ri] = &regs[ri];
        }
        nptr[i] = &nodes[i];
    }
    for (size_t i = 0; rc == ST_OK && i < nd; i++)
        dead[i] = (char *)strata_cluster_status_dead_server(st, i);
    m.livenodes = nptr;
    m.n_livenodes = nl;
    m.deadnodes = dead;
    m.n_deadnodes = nd;
    m.has_regions = m.has_requests = m.has_averageload = true;
    m.regions = (int32_t)strata_cluster_status_region_count(st);
    m.requests = (int64_t)requests;
    m.averageload = avg;
    if (rc == ST_OK)
        rc = pack(out, &m.base);
    free(nodes);
    free(nptr);
    free(infos);
    free(regs);
    free(rptr);
    free(dead);
    return rc == ST_OK ? ST_OK : nomem();
}

static int status_text(const strata_cluster_status_t *st, double avg, buf_t *out)
{
    size_t nl = strata_cluster_status_live_server_count(st);
    size_t nd = strata_cluster_status_dead_server_count(st);
    int rc = putf(out, "%zu live servers, %zu dead servers, %.4f average load\n\n", nl, nd, avg);
    if (rc == ST_OK && nl)
        rc = putf(out, "%zu live servers\n", nl);
    for (size_t i = 0; rc == ST_OK && i < nl; i++) {
        const strata_server_load_t *l = strata_cluster_status_live_server(st, i);
        node_info n;
        node_of(l, &n);
        size_t nr = strata_server_load_region_load_count(l);
        rc = putf(out, "    %s %lld\n        requests=%llu, regions=%u\n        heapSizeMB=0\n"
                       "        maxHeapSizeMB=0\n\n",
                  n.name, n.start_code, (unsigned long long)strata_server_load_requests_per_second(l),
                  strata_server_load_region_count(l));
        for (size_t k = 0; rc == ST_OK && k < nr; k++) {
            const strata_region_load_t *r = strata_server_load_region_load(l, k);
            rc = putf(out,
                      "        %s\n            storefiles=%llu\n            storefileSizeMB=%llu\n"
                      "            memstoreSizeMB=%llu\n            readRequestsCount=%llu\n"
                      "            writeRequestsCount=%llu\n",
                      strata_region_load_encoded_name(r),
                      (unsigned long long)strata_region_load_store_files(r),
                      (unsigned long long)mb(strata_region_load_store_file_size(r)),
                      (unsigned long long)mb(strata_region_load_memstore_size(r)),
                      (unsigned long long)strata_region_load_read_requests(r),
                      (unsigned long long)strata_region_load_write_requests(r));
        }
        if (rc == ST_OK)
            rc = put(out, "\n");
    }
    if (rc == ST_OK && nd)
        rc = putf(out, "\n%zu dead servers\n", nd);
    for (size_t i = 0; rc == ST_OK && i < nd; i++)
        rc = putf(out, "    %s\n", strata_cluster_status_dead_server(st, i));
    return rc == ST_OK ? ST_OK : nomem();
}

int rest_doc_status(rest_media media, const strata_cluster_status_t *st, buf_t *out)
{
    size_t nl = strata_cluster_status_live_server_count(st);
    uint64_t requests = 0;
    for (size_t i = 0; i < nl; i++)
        requests += (uint64_t)strata_server_load_requests_per_second(
            strata_cluster_status_live_server(st, i));
    double avg = nl ? (double)strata_cluster_status_region_count(st) / (double)nl : 0;
    if (media == REST_MEDIA_JSON)
        return status_json(st, avg, requests, out);
    if (media == REST_MEDIA_XML)
        return status_xml(st, avg, requests, out);
    if (rest_media_is_protobuf(media))
        return status_pb(st, avg, requests, out);
    return status_text(st, avg, out);
}

/* ---- TableList ---- */

/* The name to show: "default:t" is "t"; with strip_ns every namespace goes. */
static const char *shown_name(const char *name, bool strip_ns)
{
    if (strncmp(name, "default:", 8) == 0)
        return name + 8;
    const char *colon = strip_ns ? strchr(name, ':') : NULL;
    return colon ? colon + 1 : name;
}

int rest_doc_table_list(rest_media media, const strata_name_list_t *names, bool strip_ns,
                        buf_t *out)
{
    size_t n = strata_name_list_count(names);
    int rc = ST_OK;
    if (media == REST_MEDIA_JSON) {
        json_writer w;
        json_init(&w, out);
        json_object_begin(&w);
        json_key(&w, "table");
        json_array_begin(&w);
        for (size_t i = 0; i < n; i++) {
            json_object_begin(&w);
            json_key(&w, "name");
            json_string(&w, shown_name(strata_name_list_get(names, i), strip_ns));
            json_object_end(&w);
        }
        json_array_end(&w);
        json_object_end(&w);
        return json_done(&w);
    }
    if (media == REST_MEDIA_XML) {
        rc = put(out, XML_HEAD "<TableList>");
        for (size_t i = 0; rc == ST_OK && i < n; i++) {
            rc = put(out, "<table");
            if (rc == ST_OK)
                rc = xattr(out, "name", shown_name(strata_name_list_get(names, i), strip_ns));
            if (rc == ST_OK)
                rc = put(out, "/>");
        }
        if (rc == ST_OK)
            rc = put(out, "</TableList>");
    } else if (rest_media_is_protobuf(media)) {
        char **v = calloc(n ? n : 1, sizeof(*v));
        if (!v)
            return nomem();
        for (size_t i = 0; i < n; i++)
            v[i] = (char *)shown_name(strata_name_list_get(names, i), strip_ns);
        Strata__Rest__TableList m = STRATA__REST__TABLE_LIST__INIT;
        m.name = v;
        m.n_name = n;
        rc = pack(out, &m.base);
        free(v);
    } else {
        for (size_t i = 0; rc == ST_OK && i < n; i++)
            rc = putf(out, "%s\n", shown_name(strata_name_list_get(names, i), strip_ns));
    }
    return rc == ST_OK ? ST_OK : nomem();
}

/* ---- TableInfo ---- */

/* HBase's region name: "<table>,<start key>,<id>.<encoded>." (the key's bytes as they are). */
static int region_name(const strata_region_t *r, buf_t *b)
{
    size_t sl;
    const char *start = strata_region_start_key(r, &sl);
    int rc = putf(b, "%s,", shown_name(strata_region_table(r), false));
    if (rc == ST_OK && sl)
        rc = buf_append(b, start, sl);
    if (rc == ST_OK)
        rc = putf(b, ",%llu.%s.", (unsigned long long)strata_region_id(r),
                  strata_region_encoded_name(r));
    return rc;
}

int rest_doc_table_info(rest_media media, const char *table, const strata_region_list_t *l,
                        buf_t *out)
{
    size_t n = strata_region_list_count(l);
    const char *shown = shown_name(table, false);
    int rc = ST_OK;
    if (media == REST_MEDIA_JSON) {
        json_writer w;
        json_init(&w, out);
        json_object_begin(&w);
        json_key(&w, "name");
        json_string(&w, shown);
        json_key(&w, "Region");
        json_array_begin(&w);
        for (size_t i = 0; i < n && rc == ST_OK; i++) {
            const strata_region_t *r = strata_region_list_get(l, i);
            size_t sl, el;
            const char *sk = strata_region_start_key(r, &sl), *ek = strata_region_end_key(r, &el);
            buf_t s64 = {0}, e64 = {0}, name = {0};
            char loc[300];
            host_port(strata_region_server(r), loc, sizeof(loc));
            if (base64_encode(&s64, sk, sl) != ST_OK || buf_append_u8(&s64, 0) != ST_OK ||
                base64_encode(&e64, ek, el) != ST_OK || buf_append_u8(&e64, 0) != ST_OK ||
                region_name(r, &name) != ST_OK)
                rc = nomem();
            if (rc == ST_OK) {
                json_object_begin(&w);
                json_key(&w, "id");
                json_u64(&w, strata_region_id(r));
                json_key(&w, "startKey");
                json_string(&w, (const char *)s64.data);
                json_key(&w, "endKey");
                json_string(&w, (const char *)e64.data);
                json_key(&w, "location");
                json_string(&w, loc);
                json_key(&w, "name");
                json_string_n(&w, name.data, name.len);
                json_object_end(&w);
            }
            buf_free(&s64);
            buf_free(&e64);
            buf_free(&name);
        }
        json_array_end(&w);
        json_object_end(&w);
        return rc == ST_OK ? json_done(&w) : rc;
    }
    if (media == REST_MEDIA_XML) {
        rc = put(out, XML_HEAD "<TableInfo");
        if (rc == ST_OK)
            rc = xattr(out, "name", shown);
        if (rc == ST_OK)
            rc = put(out, ">");
        for (size_t i = 0; rc == ST_OK && i < n; i++) {
            const strata_region_t *r = strata_region_list_get(l, i);
            size_t sl, el;
            const char *sk = strata_region_start_key(r, &sl), *ek = strata_region_end_key(r, &el);
            char loc[300];
            host_port(strata_region_server(r), loc, sizeof(loc));
            buf_t name = {0};
            rc = region_name(r, &name);
            if (rc == ST_OK)
                rc = buf_append_u8(&name, 0);
            if (rc == ST_OK)
                rc = putf(out, "<Region id=\"%llu\" startKey=\"",
                          (unsigned long long)strata_region_id(r));
            if (rc == ST_OK)
                rc = base64_encode(out, sk, sl);
            if (rc == ST_OK)
                rc = put(out, "\" endKey=\"");
            if (rc == ST_OK)
                rc = base64_encode(out, ek, el);
            if (rc == ST_OK)
                rc = put(out, "\"");
            if (rc == ST_OK)
                rc = xattr(out, "location", loc);
            if (rc == ST_OK)
                rc = xattr(out, "name", (const char *)name.data);
            if (rc == ST_OK)
                rc = put(out, "/>");
            buf_free(&name);
        }
        if (rc == ST_OK)
            rc = put(out, "</TableInfo>");
    } else if (rest_media_is_protobuf(media)) {
        Strata__Rest__TableInfo m = STRATA__REST__TABLE_INFO__INIT;
        Strata__Rest__TableInfo__Region *regs = calloc(n ? n : 1, sizeof(*regs));
        Strata__Rest__TableInfo__Region **ptrs = calloc(n ? n : 1, sizeof(*ptrs));
        buf_t *names = calloc(n ? n : 1, sizeof(*names));
        char(*locs)[300] = calloc(n ? n : 1, sizeof(*locs));
        rc = regs && ptrs && names && locs ? ST_OK : ST_NOMEM;
        for (size_t i = 0; rc == ST_OK && i < n; i++) {
            const strata_region_t *r = strata_region_list_get(l, i);
            Strata__Rest__TableInfo__Region init = STRATA__REST__TABLE_INFO__REGION__INIT;
            regs[i] = init;
            rc = region_name(r, &names[i]);
            if (rc == ST_OK)
                rc = buf_append_u8(&names[i], 0);
            regs[i].name = (char *)names[i].data;
            size_t sl, el;
            regs[i].startkey.data = (uint8_t *)strata_region_start_key(r, &sl);
            regs[i].startkey.len = sl;
            regs[i].has_startkey = true;
            regs[i].endkey.data = (uint8_t *)strata_region_end_key(r, &el);
            regs[i].endkey.len = el;
            regs[i].has_endkey = true;
            regs[i].has_id = true;
            regs[i].id = (int64_t)strata_region_id(r);
            host_port(strata_region_server(r), locs[i], sizeof(locs[i]));
            regs[i].location = locs[i];
            ptrs[i] = &regs[i];
        }
        m.name = (char *)shown;
        m.regions = ptrs;
        m.n_regions = n;
        if (rc == ST_OK)
            rc = pack(out, &m.base);
        for (size_t i = 0; names && i < n; i++)
            buf_free(&names[i]);
        free(regs);
        free(ptrs);
        free(names);
        free(locs);
    } else {
        for (size_t i = 0; rc == ST_OK && i < n; i++) {
            const strata_region_t *r = strata_region_list_get(l, i);
            buf_t name = {0};
            rc = region_name(r, &name);
            if (rc == ST_OK)
                rc = buf_append(out, name.data, name.len);
            char loc[300];
            host_port(strata_region_server(r), loc, sizeof(loc));
            if (rc == ST_OK)
                rc = putf(out, " [\n  id=%llu\n  location='%s'\n]\n",
                          (unsigned long long)strata_region_id(r), loc);
            buf_free(&name);
        }
    }
    return rc == ST_OK ? ST_OK : nomem();
}

/* ---- Namespaces ---- */

int rest_doc_namespaces(rest_media media, const strata_name_list_t *names, buf_t *out)
{
    size_t n = strata_name_list_count(names);
    int rc = ST_OK;
    if (media == REST_MEDIA_JSON) {
        json_writer w;
        json_init(&w, out);
        json_object_begin(&w);
        json_key(&w, "Namespace");
        json_array_begin(&w);
        for (size_t i = 0; i < n; i++)
            json_string(&w, strata_name_list_get(names, i));
        json_array_end(&w);
        json_object_end(&w);
        return json_done(&w);
    }
    if (media == REST_MEDIA_XML) {
        rc = put(out, XML_HEAD "<Namespaces>");
        for (size_t i = 0; rc == ST_OK && i < n; i++)
            rc = xelem(out, "Namespace", strata_name_list_get(names, i));
        if (rc == ST_OK)
            rc = put(out, "</Namespaces>");
    } else if (rest_media_is_protobuf(media)) {
        char **v = calloc(n ? n : 1, sizeof(*v));
        if (!v)
            return nomem();
        for (size_t i = 0; i < n; i++)
            v[i] = (char *)strata_name_list_get(names, i);
        Strata__Rest__Namespaces m = STRATA__REST__NAMESPACES__INIT;
        m.namespace_ = v;
        m.n_namespace_ = n;
        rc = pack(out, &m.base);
        free(v);
    } else {
        for (size_t i = 0; rc == ST_OK && i < n; i++)
            rc = putf(out, "%s\n", strata_name_list_get(names, i));
    }
    return rc == ST_OK ? ST_OK : nomem();
}

/* ---- NamespaceProperties ---- */

int rest_doc_props(rest_media media, const strata_namespace_descriptor_t *nd, buf_t *out)
{
    size_t n = strata_namespace_descriptor_count(nd);
    int rc = ST_OK;
    if (media == REST_MEDIA_JSON) {
        json_writer w;
        json_init(&w, out);
        json_object_begin(&w);
        if (n) {
            json_key(&w, "properties");
            json_object_begin(&w);
            for (size_t i = 0; i < n; i++) {
                const char *k = strata_namespace_descriptor_key(nd, i);
                json_key(&w, k);
                json_string(&w, strata_namespace_descriptor_get(nd, k));
            }
            json_object_end(&w);
        }
        json_object_end(&w);
        return json_done(&w);
    }
    if (media == REST_MEDIA_XML) {
        rc = put(out, XML_HEAD "<NamespaceProperties>");
        if (rc == ST_OK && n)
            rc = put(out, "<properties>");
        for (size_t i = 0; rc == ST_OK && i < n; i++) {
            const char *k = strata_namespace_descriptor_key(nd, i);
            rc = put(out, "<entry>");
            if (rc == ST_OK)
                rc = xelem(out, "key", k);
            if (rc == ST_OK)
                rc = xelem(out, "value", strata_namespace_descriptor_get(nd, k));
            if (rc == ST_OK)
                rc = put(out, "</entry>");
        }
        if (rc == ST_OK && n)
            rc = put(out, "</properties>");
        if (rc == ST_OK)
            rc = put(out, "</NamespaceProperties>");
    } else if (rest_media_is_protobuf(media)) {
        Strata__Rest__NamespaceProperties m = STRATA__REST__NAMESPACE_PROPERTIES__INIT;
        Strata__Rest__NamespaceProperties__Property *ps = calloc(n ? n : 1, sizeof(*ps));
        Strata__Rest__NamespaceProperties__Property **pp = calloc(n ? n : 1, sizeof(*pp));
        rc = ps && pp ? ST_OK : ST_NOMEM;
        for (size_t i = 0; rc == ST_OK && i < n; i++) {
            Strata__Rest__NamespaceProperties__Property init =
                STRATA__REST__NAMESPACE_PROPERTIES__PROPERTY__INIT;
            ps[i] = init;
            ps[i].key = (char *)strata_namespace_descriptor_key(nd, i);
            ps[i].value = (char *)strata_namespace_descriptor_get(nd, ps[i].key);
            pp[i] = &ps[i];
        }
        m.props = pp;
        m.n_props = n;
        if (rc == ST_OK)
            rc = pack(out, &m.base);
        free(ps);
        free(pp);
    } else {
        rc = putf(out, "{NAME => '%s'", strata_namespace_descriptor_name(nd));
        for (size_t i = 0; rc == ST_OK && i < n; i++) {
            const char *k = strata_namespace_descriptor_key(nd, i);
            rc = putf(out, ", %s => '%s'", k, strata_namespace_descriptor_get(nd, k));
        }
        if (rc == ST_OK)
            rc = put(out, "}\n");
    }
    return rc == ST_OK ? ST_OK : nomem();
}

static int add_prop(rest_props *p, const char *k, size_t kl, const char *v, size_t vl)
{
    for (size_t i = 0; i < p->n; i++)
        if (strlen(p->items[i].name) == kl && memcmp(p->items[i].name, k, kl) == 0)
            return st_error(ST_INVALID_ARGUMENT, "namespace property %.*s is given twice", (int)kl,
                            k);
    rest_attr *a = realloc(p->items, (p->n + 1) * sizeof(*a));
    if (!a)
        return st_error(ST_NOMEM, "out of memory reading namespace properties");
    p->items = a;
    a[p->n].name = strndup(k, kl);
    a[p->n].value = strndup(v, vl);
    if (!a[p->n].name || !a[p->n].value) {
        free(a[p->n].name);
        free(a[p->n].value);
        return st_error(ST_NOMEM, "out of memory reading namespace properties");
    }
    p->n++;
    return ST_OK;
}

void rest_props_free(rest_props *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->items[i].name);
        free(p->items[i].value);
    }
    free(p->items);
    memset(p, 0, sizeof(*p));
}

static int props_json(const void *body, size_t len, rest_props *p)
{
    json_value *doc = NULL;
    int rc = json_value_parse(body, len, &doc);
    if (rc != ST_OK)
        return rc;
    if (doc->type != JSON_OBJECT)
        rc = st_error(ST_INVALID_ARGUMENT, "NamespaceProperties is a JSON object");
    for (size_t k = 0; rc == ST_OK && k < doc->n; k++) {
        const json_value *v = doc->items[k];
        if (strcmp(doc->keys[k], "properties") != 0) {
            rc = st_error(ST_INVALID_ARGUMENT, "unknown NamespaceProperties member \"%s\"",
                          doc->keys[k]);
        } else if (v->type == JSON_NULL) {
            continue;
        } else if (v->type != JSON_OBJECT) {
            rc = st_error(ST_INVALID_ARGUMENT, "NamespaceProperties' properties must be an object");
        } else {
            for (size_t i = 0; rc == ST_OK && i < v->n; i++) {
                size_t vl = 0;
                const char *t = json_value_text(v->items[i], &vl);
                rc = t ? add_prop(p, v->keys[i], v->key_lens[i], t, vl)
                       : st_error(ST_INVALID_ARGUMENT, "namespace property %s must be a string",
                                  v->keys[i]);
            }
        }
    }
    json_value_free(doc);
    return rc;
}

static int props_xml(const void *body, size_t len, rest_props *p)
{
    xml_node *doc = NULL;
    int rc = xml_parse(body, len, &doc);
    if (rc != ST_OK)
        return rc;
    if (strcmp(doc->name, "NamespaceProperties") != 0)
        rc = st_error(ST_INVALID_ARGUMENT, "the root element is <%s>, not <NamespaceProperties>",
                      doc->name);
    for (size_t i = 0; rc == ST_OK && i < doc->nchildren; i++) {
        const xml_node *props = doc->children[i];
        if (strcmp(props->name, "properties") != 0) {
            rc = st_error(ST_INVALID_ARGUMENT, "unexpected element <%s> in <NamespaceProperties>",
                          props->name);
            break;
        }
        for (size_t k = 0; rc == ST_OK && k < props->nchildren; k++) {
            const xml_node *e = props->children[k];
            const xml_node *key = xml_child(e, "key"), *val = xml_child(e, "value");
            bool extra = e->nattrs || !xml_text_blank(e) || e->nchildren > (size_t)(val ? 2 : 1) ||
                         (key && key->nchildren) || (val && val->nchildren);
            if (strcmp(e->name, "entry") != 0 || !key || extra)
                rc = st_error(ST_INVALID_ARGUMENT, "<properties> holds <entry><key>..</key>"
                                                   "<value>..</value></entry> elements and "
                                                   "nothing else");
            else
                rc = add_prop(p, key->text, key->text_len, val ? val->text : "",
                              val ? val->text_len : 0);
        }
    }
    xml_node_free(doc);
    return rc;
}

static int props_pb(const void *body, size_t len, rest_props *p)
{
    Strata__Rest__NamespaceProperties *m = strata__rest__namespace_properties__unpack(NULL, len, body);
    if (!m)
        return st_error(ST_INVALID_ARGUMENT, "the body is not a protobuf NamespaceProperties "
                                             "message");
    int rc = ST_OK;
    for (size_t i = 0; rc == ST_OK && i < m->n_props; i++)
        rc = add_prop(p, m->props[i]->key, strlen(m->props[i]->key), m->props[i]->value,
                      strlen(m->props[i]->value));
    strata__rest__namespace_properties__free_unpacked(m, NULL);
    return rc;
}

int rest_props_decode(rest_media media, const void *body, size_t len, rest_props *out)
{
    memset(out, 0, sizeof(*out));
    int rc;
    if (media == REST_MEDIA_JSON)
        rc = props_json(body, len, out);
    else if (media == REST_MEDIA_XML)
        rc = props_xml(body, len, out);
    else if (rest_media_is_protobuf(media))
        rc = props_pb(body, len, out);
    else
        rc = st_error(ST_INVALID_ARGUMENT, "NamespaceProperties cannot be read from %s",
                      rest_media_name(media));
    if (rc != ST_OK)
        rest_props_free(out);
    return rc;
}
