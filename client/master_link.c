/*
 * master_link.c - MasterService calls on the active master found through ZooKeeper
 * (contract in master_link.h).
 *
 * One call:
 *
 *   address (cached, else read <parent>/master; the session is opened or reopened here)
 *     -> RPC with the time left (capped by the attempt timeout)
 *     -> ok: done
 *     -> unreachable / not serving / no master / one attempt timed out: forget the cached
 *        address (the next attempt reads the znode again), pause, again
 *     -> busy / opening: pause, again at the same address
 *     -> anything else: the master's answer, final
 *   until the call's timeout is spent: the last failure, its message prefixed with the
 *   method and the attempts made.
 *
 * Thread-safety: m->mu guards m->z and m->addr; it is held while the session is opened
 * and the znode read (bounded by the session's connect timeout), never during an RPC. The
 * RPC client is thread-safe on its own.
 */
#include "client/master_link.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/rpc/rpc_client.h"
#include "common/rpc/rpc_header.h"
#include "common/rpc/rpc_proto.h"
#include "common/status.h"
#include "common/zk/zk.h"
#include "common/zk/znodes.h"

#define DEFAULT_CALL_TIMEOUT_MS 60000
#define CONNECT_TIMEOUT_MAX_MS 10000
#define PAUSE_FIRST_MS 50
#define PAUSE_MAX_MS 1000

struct master_link {
    char *quorum;
    char *parent;
    int session_timeout_ms;
    int attempt_timeout_ms;
    rpc_client *rpc;
    pthread_mutex_t mu;
    zk *z;          /* NULL until first needed, or after an expiry */
    char addr[300]; /* the active master's "host:port"; "" when not known */
};

/* What a failed attempt calls for. */
typedef enum fail_kind { FAIL_FINAL, FAIL_REFRESH, FAIL_SAME } fail_kind;

static fail_kind classify(int rc)
{
    switch (rc) {
    case ST_CONNECTION:
    case ST_CLOSED:
    case ST_IO:
    case ST_NOT_SERVING:
    /* A master cut off by the network neither answers nor closes: its calls time out
     * while another master has taken over. Reading the znode again costs one ZooKeeper
     * read and finds the same address when the master is only slow. */
    case ST_TIMEOUT:
        return FAIL_REFRESH;
    case ST_SERVER_BUSY:
    case ST_REGION_OPENING:
        return FAIL_SAME;
    default:
        return FAIL_FINAL;
    }
}

/* ---- arguments ---- */

static int check_entry(const char *e, size_t len)
{
    const char *colon = memchr(e, ':', len);
    if (!colon || colon == e)
        return st_error(ST_INVALID_ARGUMENT, "zk quorum entry '%.*s' is not host:port", (int)len,
                        e);
    long port = 0;
    size_t digits = 0;
    for (const char *p = colon + 1; p < e + len; p++, digits++) {
        if (*p < '0' || *p > '9' || port > 65535)
            return st_error(ST_INVALID_ARGUMENT, "zk quorum entry '%.*s' has a bad port", (int)len,
                            e);
        port = port * 10 + (*p - '0');
    }
    if (digits == 0 || port < 1 || port > 65535)
        return st_error(ST_INVALID_ARGUMENT, "zk quorum entry '%.*s' has a bad port", (int)len, e);
    return ST_OK;
}

int master_link_check_quorum(const char *quorum)
{
    if (!quorum || !quorum[0])
        return st_error(ST_INVALID_ARGUMENT, "no ZooKeeper quorum given (host:port[,...])");
    size_t total = strcspn(quorum, "/"); /* a trailing "/chroot" is ZooKeeper's own */
    for (size_t at = 0; at <= total;) {
        size_t len = strcspn(quorum + at, ",/");
        int rc = check_entry(quorum + at, len);
        if (rc != ST_OK)
            return rc;
        at += len + 1;
    }
    return ST_OK;
}

void master_link_method(const char *name, char *out, size_t cap)
{
    if (strchr(name, '.'))
        snprintf(out, cap, "%s", name);
    else
        snprintf(out, cap, "MasterService.%s", name);
}

/* ---- open and close ---- */

static int check_parent(const char *p)
{
    size_t n = strlen(p);
    if (n < 2 || p[0] != '/' || p[n - 1] == '/' || strstr(p, "//"))
        return st_error(ST_INVALID_ARGUMENT,
                        "zk parent '%s' must be an absolute znode path like /strata (no "
                        "trailing '/')",
                        p);
    return ST_OK;
}

int master_link_open(const char *quorum, const char *parent, int session_timeout_ms,
                     master_link **out)
{
    *out = NULL;
    int rc = master_link_check_quorum(quorum);
    if (rc != ST_OK)
        return rc;
    if (parent && parent[0] && (rc = check_parent(parent)) != ST_OK)
        return rc;
    master_link *m = calloc(1, sizeof(*m));
    if (!m)
        return st_error(ST_NOMEM, "master link: out of memory");
    pthread_mutex_init(&m->mu, NULL);
    m->quorum = strdup(quorum);
    m->parent = strdup(parent && parent[0] ? parent : ZNODES_DEFAULT_PARENT);
    m->session_timeout_ms =
        session_timeout_ms > 0 ? session_timeout_ms : MASTER_LINK_DEFAULT_SESSION_TIMEOUT_MS;
    if (!m->quorum || !m->parent)
        rc = st_error(ST_NOMEM, "master link: out of memory");
    if (rc == ST_OK)
        rc = rpc_client_new(NULL, &m->rpc);
    if (rc != ST_OK) {
        master_link_close(m);
        return rc;
    }
    *out = m;
    return ST_OK;
}

void master_link_close(master_link *m)
{
    if (!m)
        return;
    rpc_client_free(m->rpc);
    zk_close(m->z);
    pthread_mutex_destroy(&m->mu);
    free(m->quorum);
    free(m->parent);
    free(m);
}

void master_link_set_attempt_timeout_ms(master_link *m, int ms)
{
    m->attempt_timeout_ms = ms > 0 ? ms : 0;
}

/* ---- finding the master ---- */

/* Opens the session if there is none or it expired (lock held). */
static int ensure_session(master_link *m, int64_t left_ms)
{
    if (m->z) {
        zk_state st = zk_get_state(m->z);
        if (st != ZK_EXPIRED && st != ZK_CLOSED)
            return ST_OK;
        LOG_INFO("ZooKeeper session to %s %s; opening a new one", m->quorum, zk_state_name(st));
        zk_close(m->z);
        m->z = NULL;
    }
    zk_options o = {.quorum = m->quorum,
                    .session_timeout_ms = m->session_timeout_ms,
                    .connect_timeout_ms =
                        (int)(left_ms < CONNECT_TIMEOUT_MAX_MS ? left_ms : CONNECT_TIMEOUT_MAX_MS)};
    if (o.connect_timeout_ms < 100)
        o.connect_timeout_ms = 100;
    return zk_open(&o, &m->z);
}

/* Reads the znode (lock held): ST_OK with m->addr set, or why not. */
static int read_master(master_link *m, int64_t left_ms, server_name *sn, uint32_t *http_port)
{
    m->addr[0] = '\0';
    int rc = ensure_session(m, left_ms);
    if (rc == ST_OK)
        rc = znodes_active_master(m->z, m->parent, sn, http_port);
    if (rc == ST_NOT_FOUND)
        return st_error(ST_NOT_SERVING, "no active master (%s/master is absent in ZooKeeper %s)",
                        m->parent, m->quorum);
    if (rc != ST_OK)
        return rc;
    server_name_addr(sn, m->addr, sizeof(m->addr));
    return ST_OK;
}

int master_link_active(master_link *m, server_name *out, uint32_t *http_port)
{
    pthread_mutex_lock(&m->mu);
    int rc = read_master(m, CONNECT_TIMEOUT_MAX_MS, out, http_port);
    pthread_mutex_unlock(&m->mu);
    return rc;
}

/* The master's address into addr: the cached one, else read from ZooKeeper. */
static int master_addr(master_link *m, int64_t left_ms, char *addr, size_t cap)
{
    server_name sn;
    int rc = ST_OK;
    pthread_mutex_lock(&m->mu);
    if (!m->addr[0])
        rc = read_master(m, left_ms, &sn, NULL);
    if (rc == ST_OK)
        snprintf(addr, cap, "%s", m->addr);
    pthread_mutex_unlock(&m->mu);
    return rc;
}

/* Forgets the cached address if it still is addr (another thread may have found a newer
 * one meanwhile). */
static void forget_addr(master_link *m, const char *addr)
{
    pthread_mutex_lock(&m->mu);
    if (strcmp(m->addr, addr) == 0)
        m->addr[0] = '\0';
    pthread_mutex_unlock(&m->mu);
}

/* ---- calls ---- */

static int64_t left_ms(uint64_t deadline_ns)
{
    uint64_t now = clock_mono_ns();
    return now >= deadline_ns ? 0 : (int64_t)((deadline_ns - now + 999999) / 1000000);
}

/* One attempt: ST_OK with the body in *resp, or the failure (message set) and *hint. */
static int attempt(master_link *m, const char *method, const void *req, size_t req_len,
                   int64_t left, char *addr, size_t cap, buf_t *resp, uint32_t *hint)
{
    rpc_result res = {0};
    addr[0] = '\0';
    int rc = master_addr(m, left, addr, cap);
    if (rc != ST_OK)
        return rc;
    int tmo = (int)(left > INT32_MAX ? INT32_MAX : left);
    if (m->attempt_timeout_ms > 0 && tmo > m->attempt_timeout_ms)
        tmo = m->attempt_timeout_ms;
    rc = rpc_client_call_result(m->rpc, addr, method, req, req_len, tmo > 0 ? tmo : 1, &res);
    if (rc == ST_OK) {
        buf_free(resp);
        *resp = res.body;
        return ST_OK;
    }
    *hint = res.retry_after_ms;
    buf_free(&res.body);
    buf_free(&res.hint);
    return rc;
}

/* The pause before attempt n+1: 50 ms doubling, at most 1 s, at least the hint. */
static int64_t pause_for(int n, uint32_t hint)
{
    int64_t p = PAUSE_FIRST_MS;
    for (int i = 0; i < n && p < PAUSE_MAX_MS; i++)
        p *= 2;
    if (p > PAUSE_MAX_MS)
        p = PAUSE_MAX_MS;
    return (int64_t)hint > p ? (int64_t)hint : p;
}

int master_link_call(master_link *m, const char *method, const void *req, size_t req_len,
                     int64_t timeout_ms, buf_t *resp)
{
    char meth[RPC_METHOD_MAX + 1], addr[300];
    if (timeout_ms <= 0)
        timeout_ms = DEFAULT_CALL_TIMEOUT_MS;
    master_link_method(method, meth, sizeof(meth));
    uint64_t deadline = clock_mono_ns() + (uint64_t)timeout_ms * 1000000ull;
    for (int n = 0;; n++) {
        uint32_t hint = 0;
        int rc = attempt(m, meth, req, req_len, left_ms(deadline), addr, sizeof(addr), resp, &hint);
        if (rc == ST_OK)
            return ST_OK;
        fail_kind kind = classify(rc);
        if (kind == FAIL_FINAL)
            return rc;
        LOG_DEBUG("%s on master %s: %s (attempt %d)", meth, addr[0] ? addr : "(none)", st_errmsg(),
                  n + 1);
        if (kind == FAIL_REFRESH && addr[0])
            forget_addr(m, addr);
        int64_t pause = pause_for(n, hint), left = left_ms(deadline);
        if (left == 0) {
            char last[512];
            snprintf(last, sizeof(last), "%s", st_errmsg());
            return st_error(rc,
                            "%s: no answer from an active master within %lld ms (%d attempts; "
                            "last: %s)",
                            meth, (long long)timeout_ms, n + 1, last);
        }
        clock_sleep_ms(pause < left ? pause : left);
    }
}

int master_link_call_pb(master_link *m, const char *method, const ProtobufCMessage *req,
                        const ProtobufCMessageDescriptor *resp_desc, int64_t timeout_ms,
                        ProtobufCMessage **resp)
{
    buf_t packed = {0}, body = {0};
    *resp = NULL;
    int rc = rpc_proto_pack(req, &packed);
    if (rc == ST_OK)
        rc = master_link_call(m, method, packed.data, packed.len, timeout_ms, &body);
    if (rc == ST_OK) {
        *resp = protobuf_c_message_unpack(resp_desc, NULL, body.len, body.data);
        if (!*resp)
            rc = st_error(ST_CORRUPTION, "%s: the master's answer (%zu bytes) is not a %s", method,
                          body.len, resp_desc->name);
    }
    buf_free(&packed);
    buf_free(&body);
    return rc;
}
