/*
 * test_rs_cluster.c - real `strata regionserver` processes ($STRATA_BIN) as members of a
 * cluster on a private ZooKeeper (tests/support/zkserver.h), with no master (their
 * heartbeats are skipped): the rs znode and its ServerInfo, gone on SIGTERM; a start
 * that cannot reach ZooKeeper fails; exclusive region ownership between two servers on
 * one root; kill -9 frees the znodes once the session times out; a server paused past
 * its session timeout acknowledges no write and exits 70; a silent ZooKeeper makes a
 * server refuse writes (not reads) until it is heard from again. Heartbeats, graceful stops
 * reported to the master and "you are dead" are tested with the real master in
 * test_cluster.c.
 *
 * The tests run in order, sharing one ZooKeeper and one root. Every child is killed at
 * the end even on failure (group teardown and an atexit handler); every wait is bounded.
 * Needs STRATA_BIN (set by CTest); skipped without it (exit 77).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/clock.h"
#include "common/fileio.h"
#include "common/proto/admin.pb-c.h"
#include "common/proto/client.pb-c.h"
#include "common/proto/master.pb-c.h"
#include "common/rpc/rpc_client.h"
#include "common/rpc/rpc_server.h"
#include "common/server_name.h"
#include "common/status.h"
#include "common/zk/zk.h"
#include "tests/support/proc.h"
#include "tests/support/testutil.h"
#include "tests/support/zkserver.h"

#define PARENT "/test/strata"
#define HTTP_PORT 12345
#define SESSION_MS 2000
#define TIMEOUT_MS 15000

typedef struct rs_proc {
    pid_t pid;
    int port;
    char addr[64];
    char ready[600], log[600];
    char name[SERVER_NAME_MAX]; /* from its rs znode */
} rs_proc;

static struct {
    char *tmp;
    char root[512];
    zkserver *zks;
    zk *z; /* the test's own session, to look at the znodes */
    rpc_client *client;
    rs_proc a, b, c, d, e;
} F;

/* ---- processes ---- */

/* Starts `strata regionserver` with the cluster flags, extra (NULL-terminated) after. */
static pid_t spawn(rs_proc *p, const char *tag, const char *quorum, int session_ms,
                   const char *const *extra)
{
    const char *bin = getenv("STRATA_BIN");
    assert_non_null(bin);
    memset(p, 0, sizeof(*p));
    snprintf(p->ready, sizeof(p->ready), "%s/%s.ready", F.tmp, tag);
    snprintf(p->log, sizeof(p->log), "%s/%s.log", F.tmp, tag);
    char a[8][700];
    const char *argv[24] = {"strata", "regionserver"};
    int n = 2;
    snprintf(a[0], sizeof(a[0]), "--root.dir=%s", F.root);
    snprintf(a[1], sizeof(a[1]), "--regionserver.ready.file=%s", p->ready);
    snprintf(a[2], sizeof(a[2]), "--zk.quorum=%s", quorum);
    snprintf(a[3], sizeof(a[3]), "--zk.session.timeout.ms=%d", session_ms);
    snprintf(a[4], sizeof(a[4]), "--regionserver.http.port=%d", HTTP_PORT);
    for (int i = 0; i < 5; i++)
        argv[n++] = a[i];
    argv[n++] = "--zk.parent=" PARENT;
    argv[n++] = "--regionserver.port=0";
    argv[n++] = "--regionserver.handler.threads=4";
    argv[n++] = "--regionserver.report.interval.ms=200";
    for (int i = 0; extra && extra[i] && n < 23; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    proc_spec spec = {.argv = argv, .path = bin, .log = p->log, .kill_at_exit = true};
    assert_int_equal(proc_spawn(&spec, &p->pid), ST_OK);
    return p->pid;
}

/* Waits (bounded) for the process to exit; returns its wait status. */
static int wait_exit(pid_t pid, int timeout_ms)
{
    int status = 0;
    if (proc_wait(pid, timeout_ms, &status) != ST_OK)
        fail_msg("process %d did not exit within %d ms", (int)pid, timeout_ms);
    return status;
}

static bool file_has(const char *path, const char *needle)
{
    buf_t b = {0};
    bool found = false;
    if (fio_read_all(path, &b) == ST_OK && buf_reserve(&b, b.len + 1) == ST_OK) {
        b.data[b.len] = 0;
        found = strstr((const char *)b.data, needle) != NULL;
    }
    buf_free(&b);
    return found;
}

/* The rs znode name of the server on port, into out; 1 if there is one. */
static int find_rs_node(int port, char *out, size_t cap)
{
    char **names = NULL;
    size_t n = 0;
    int found = 0;
    char mid[32];
    snprintf(mid, sizeof(mid), ",%d,", port);
    if (zk_children(F.z, PARENT "/rs", &names, &n) != ST_OK)
        return 0;
    for (size_t i = 0; i < n && !found; i++)
        if (strstr(names[i], mid)) {
            snprintf(out, cap, "%s", names[i]);
            found = 1;
        }
    zk_names_free(names, n);
    return found;
}

/* Waits (bounded) for the ready file, then for the rs znode. */
static void wait_ready(rs_proc *p)
{
    uint64_t end = clock_mono_ns() + 20000000000ull;
    while (clock_mono_ns() < end && !p->port) {
        buf_t b = {0};
        if (fio_exists(p->ready) && fio_read_all(p->ready, &b) == ST_OK && b.len > 0 &&
            b.data[b.len - 1] == '\n') {
            char text[128] = "";
            memcpy(text, b.data, b.len < sizeof(text) - 1 ? b.len : sizeof(text) - 1);
            char *colon = strrchr(text, ':');
            assert_non_null(colon);
            p->port = atoi(colon + 1);
        }
        buf_free(&b);
        if (!p->port && proc_wait(p->pid, 0, NULL) != ST_TIMEOUT)
            fail_msg("the region server exited during start (log: %s)", p->log);
        clock_sleep_ms(20);
    }
    if (!p->port)
        fail_msg("the region server did not become ready within 20 s (log: %s)", p->log);
    snprintf(p->addr, sizeof(p->addr), "127.0.0.1:%d", p->port);
    /* The ready file is written after the rs znode is created. */
    assert_int_equal(find_rs_node(p->port, p->name, sizeof(p->name)), 1);
}

static void start_rs(rs_proc *p, const char *tag, int session_ms)
{
    spawn(p, tag, zks_quorum(F.zks), session_ms, NULL);
    wait_ready(p);
}

/* ---- znodes ---- */

static char *rs_path(const rs_proc *p)
{
    static char path[512];
    snprintf(path, sizeof(path), PARENT "/rs/%s", p->name);
    return path;
}

static char *owner_path(const char *region)
{
    static char path[256];
    snprintf(path, sizeof(path), PARENT "/region-owner/%s", region);
    return path;
}

static int64_t session_of(const char *path)
{
    zk_stat st;
    if (zk_exists(F.z, path, &st) != ST_OK)
        return 0;
    return st.ephemeral_owner;
}

/* The server named by a region's RegionOwner record ("" if none). */
static void owner_of(const char *region, char *out, size_t cap)
{
    uint8_t *data = NULL;
    size_t len = 0;
    out[0] = 0;
    if (zk_get(F.z, owner_path(region), &data, &len, NULL) != ST_OK)
        return;
    Strata__Master__RegionOwner *o = strata__master__region_owner__unpack(NULL, len, data);
    assert_non_null(o);
    server_name_format_proto(o->server, out, cap);
    assert_string_equal(o->table, "default:t");
    strata__master__region_owner__free_unpacked(o, NULL);
    free(data);
}

/* Waits (bounded) until path is gone; returns the ms it took. */
static int64_t wait_gone(const char *path, int timeout_ms)
{
    uint64_t start = clock_mono_ns();
    while (zk_exists(F.z, path, NULL) == ST_OK) {
        if (clock_mono_ns() - start > (uint64_t)timeout_ms * 1000000ull)
            fail_msg("%s still exists after %d ms", path, timeout_ms);
        clock_sleep_ms(50);
    }
    return (int64_t)((clock_mono_ns() - start) / 1000000ull);
}

/* ---- calls ---- */

static int call(const rs_proc *p, const char *method, const ProtobufCMessage *req,
                const ProtobufCMessageDescriptor *rdesc, ProtobufCMessage **resp)
{
    buf_t body = {0}, out = {0};
    assert_int_equal(buf_reserve(&body, protobuf_c_message_get_packed_size(req) + 1), ST_OK);
    body.len = protobuf_c_message_pack(req, body.data);
    int rc = rpc_client_call(F.client, p->addr, method, body.data, body.len, TIMEOUT_MS, &out);
    buf_free(&body);
    if (rc == ST_OK && resp) {
        *resp = protobuf_c_message_unpack(rdesc, NULL, out.len, out.data);
        assert_non_null(*resp);
    }
    buf_free(&out);
    return rc;
}

static ProtobufCBinaryData bin(const char *s)
{
    return (ProtobufCBinaryData){strlen(s), (uint8_t *)s};
}

/* OpenRegion of the whole-key-space regions of "default:t" (family f) named in regions;
 * the call's status, and each region's opening state into states. */
static int open_regions(const rs_proc *p, const char *const *regions, size_t n, int *states)
{
    Strata__Admin__ColumnFamilySchema f = STRATA__ADMIN__COLUMN_FAMILY_SCHEMA__INIT;
    Strata__Admin__ColumnFamilySchema *fams[1] = {&f};
    Strata__Admin__TableSchema ts = STRATA__ADMIN__TABLE_SCHEMA__INIT;
    Strata__Admin__RegionInfo infos[4];
    Strata__Admin__OpenRegionRequest__RegionOpenInfo ois[4];
    Strata__Admin__OpenRegionRequest__RegionOpenInfo *ptrs[4];
    f.name = "f";
    ts.name = "default:t";
    ts.n_family = 1;
    ts.family = fams;
    assert_true(n <= 4);
    for (size_t i = 0; i < n; i++) {
        strata__admin__region_info__init(&infos[i]);
        infos[i].table = "default:t";
        infos[i].encoded_name = (char *)regions[i];
        strata__admin__open_region_request__region_open_info__init(&ois[i]);
        ois[i].region = &infos[i];
        ois[i].schema = &ts;
        ptrs[i] = &ois[i];
    }
    Strata__Admin__OpenRegionRequest req = STRATA__ADMIN__OPEN_REGION_REQUEST__INIT;
    req.n_open_info = n;
    req.open_info = ptrs;
    Strata__Admin__OpenRegionResponse *resp = NULL;
    int rc = call(p, "AdminService.OpenRegion", &req.base,
                  &strata__admin__open_region_response__descriptor, (ProtobufCMessage **)&resp);
    if (rc == ST_OK) {
        assert_int_equal(resp->n_opening_state, n);
        for (size_t i = 0; i < n; i++)
            states[i] = resp->opening_state[i];
        strata__admin__open_region_response__free_unpacked(resp, NULL);
    }
    return rc;
}

static int open1(const rs_proc *p, const char *region)
{
    int state = -1;
    int rc = open_regions(p, &region, 1, &state);
    if (rc == ST_OK)
        assert_int_equal(state, STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__OPENED);
    return rc;
}

static int close1(const rs_proc *p, const char *region)
{
    Strata__Admin__CloseRegionRequest req = STRATA__ADMIN__CLOSE_REGION_REQUEST__INIT;
    req.encoded_name = (char *)region;
    return call(p, "AdminService.CloseRegion", &req.base,
                &strata__admin__close_region_response__descriptor, NULL);
}

static void put_request(Strata__Client__MutateRequest *req, Strata__Client__RegionSpecifier *spec,
                        Strata__Client__MutationProto *m, Strata__Client__Cell *cell,
                        Strata__Client__Cell **cells, const char *region, const char *row,
                        const char *value)
{
    strata__client__cell__init(cell);
    cell->has_family = cell->has_qualifier = cell->has_value = 1;
    cell->family = bin("f");
    cell->qualifier = bin("q");
    cell->value = bin(value);
    cells[0] = cell;
    strata__client__mutation_proto__init(m);
    m->row = bin(row);
    m->mutate_type = STRATA__CLIENT__MUTATION_PROTO__MUTATION_TYPE__PUT;
    m->n_cell = 1;
    m->cell = cells;
    strata__client__region_specifier__init(spec);
    spec->encoded_name = (char *)region;
    strata__client__mutate_request__init(req);
    req->region = spec;
    req->mutation = m;
}

static int put(const rs_proc *p, const char *region, const char *row, const char *value)
{
    Strata__Client__MutateRequest req;
    Strata__Client__RegionSpecifier spec;
    Strata__Client__MutationProto m;
    Strata__Client__Cell cell, *cells[1];
    put_request(&req, &spec, &m, &cell, cells, region, row, value);
    return call(p, "ClientService.Mutate", &req.base, &strata__client__mutate_response__descriptor,
                NULL);
}

/* The value of row f:q into out ("" if absent); the call's status. */
static int get(const rs_proc *p, const char *region, const char *row, char *out, size_t cap)
{
    Strata__Client__Get g = STRATA__CLIENT__GET__INIT;
    Strata__Client__RegionSpecifier spec = STRATA__CLIENT__REGION_SPECIFIER__INIT;
    Strata__Client__GetRequest req = STRATA__CLIENT__GET_REQUEST__INIT;
    g.row = bin(row);
    spec.encoded_name = (char *)region;
    req.region = &spec;
    req.get = &g;
    Strata__Client__GetResponse *resp = NULL;
    out[0] = 0;
    int rc = call(p, "ClientService.Get", &req.base, &strata__client__get_response__descriptor,
                  (ProtobufCMessage **)&resp);
    if (rc == ST_OK) {
        if (resp->result && resp->result->n_cell == 1)
            snprintf(out, cap, "%.*s", (int)resp->result->cell[0]->value.len,
                     (const char *)resp->result->cell[0]->value.data);
        strata__client__get_response__free_unpacked(resp, NULL);
    }
    return rc;
}

/* ---- fixture ---- */

static int group_setup(void **state)
{
    (void)state;
    F.tmp = tu_tempdir("rs_cluster");
    snprintf(F.root, sizeof(F.root), "%s/root", F.tmp);
    if (zks_start(&F.zks) != ST_OK) {
        fprintf(stderr, "zookeeper: %s\n", st_errmsg());
        return -1;
    }
    zk_options o = {.quorum = zks_quorum(F.zks), .session_timeout_ms = 30000};
    if (zk_open(&o, &F.z) != ST_OK || rpc_client_new(NULL, &F.client) != ST_OK) {
        fprintf(stderr, "setup: %s\n", st_errmsg());
        return -1;
    }
    return 0;
}

static void show_log(const rs_proc *p)
{
    char cmd[700];
    snprintf(cmd, sizeof(cmd), "tail -n 30 %s 1>&2", p->log);
    if (p->log[0] && system(cmd) != 0)
        fprintf(stderr, "(no log %s)\n", p->log);
}

static int group_teardown(void **state)
{
    (void)state;
    proc_kill_all();
    rpc_client_free(F.client);
    F.client = NULL;
    zk_close(F.z);
    F.z = NULL;
    zks_stop(F.zks);
    F.zks = NULL;
    if (getenv("STRATA_TEST_SHOW_LOG")) {
        show_log(&F.a);
        show_log(&F.b);
        show_log(&F.c);
        show_log(&F.d);
        show_log(&F.e);
    }
    tu_rmdir(F.tmp);
    F.tmp = NULL;
    return 0;
}

/* ---- tests ---- */

static void rs_node_has_server_info_and_goes_on_sigterm(void **state)
{
    (void)state;
    rs_proc *a = &F.a;
    start_rs(a, "a", SESSION_MS);
    uint8_t *data = NULL;
    size_t len = 0;
    zk_stat st;
    assert_int_equal(zk_get(F.z, rs_path(a), &data, &len, &st), ST_OK);
    assert_true(st.ephemeral_owner != 0);
    server_name sn, named;
    uint32_t http = 0;
    assert_int_equal(server_info_decode(data, len, &sn, &http), ST_OK);
    free(data);
    assert_string_equal(sn.host, "127.0.0.1");
    assert_int_equal(sn.port, a->port);
    assert_int_equal(http, HTTP_PORT);
    assert_int_equal(server_name_parse(a->name, &named), ST_OK);
    assert_true(server_name_equal(&sn, &named));
    assert_true(sn.start_code > 1000000000000ull); /* ms since the epoch */
    /* the parent's other directory exists for ownership nodes */
    assert_int_equal(zk_exists(F.z, PARENT "/region-owner", NULL), ST_OK);

    proc_signal(a->pid, SIGTERM);
    int status = wait_exit(a->pid, 30000);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    /* a graceful stop deletes the node itself: no session timeout to wait for */
    assert_int_equal(zk_exists(F.z, rs_path(a), NULL), ST_NOT_FOUND);
}

static void start_fails_without_zookeeper(void **state)
{
    (void)state;
    /* a port nobody listens on */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof(sa);
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
    close(fd);
    char quorum[64];
    snprintf(quorum, sizeof(quorum), "127.0.0.1:%d", ntohs(sa.sin_port));
    rs_proc p;
    spawn(&p, "nozk", quorum, SESSION_MS, NULL);
    int status = wait_exit(p.pid, 30000);
    assert_true(WIFEXITED(status));
    assert_int_not_equal(WEXITSTATUS(status), 0);
    assert_false(fio_exists(p.ready));
    assert_true(file_has(p.log, "cannot join ZooKeeper"));
    assert_true(file_has(p.log, quorum));
}

static void ownership_is_exclusive(void **state)
{
    (void)state;
    rs_proc *a = &F.a, *b = &F.b;
    start_rs(a, "a2", SESSION_MS);
    start_rs(b, "b", SESSION_MS);
    assert_int_equal(open1(a, "rown1"), ST_OK);
    assert_int_equal(session_of(owner_path("rown1")), session_of(rs_path(a)));
    char owner[SERVER_NAME_MAX];
    owner_of("rown1", owner, sizeof(owner));
    assert_string_equal(owner, a->name);
    assert_int_equal(put(a, "rown1", "row1", "from-a"), ST_OK);

    /* b may not open it: the call fails naming the owner */
    assert_int_equal(open1(b, "rown1"), ST_EXISTS);
    assert_non_null(strstr(st_errmsg(), "region rown1 is owned by server"));
    assert_non_null(strstr(st_errmsg(), a->name));
    /* in a request of several regions the owned one fails alone */
    const char *both[2] = {"rown1", "rown2"};
    int states[2];
    assert_int_equal(open_regions(b, both, 2, states), ST_OK);
    assert_int_equal(states[0], STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__FAILED_OPENING);
    assert_int_equal(states[1], STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__OPENED);
    assert_int_equal(session_of(owner_path("rown1")), session_of(rs_path(a)));
    assert_int_equal(session_of(owner_path("rown2")), session_of(rs_path(b)));
    char v[64];
    assert_int_equal(get(b, "rown1", "row1", v, sizeof(v)), ST_NOT_SERVING);
    /* opening it again where it is open is not refused */
    int again = -1;
    const char *one = "rown1";
    assert_int_equal(open_regions(a, &one, 1, &again), ST_OK);
    assert_int_equal(again, STRATA__ADMIN__OPEN_REGION_RESPONSE__REGION_OPENING_STATE__ALREADY_OPENED);

    /* once a closed it (with a flush), b opens it and serves a's data */
    assert_int_equal(close1(a, "rown1"), ST_OK);
    assert_int_equal(zk_exists(F.z, owner_path("rown1"), NULL), ST_NOT_FOUND);
    assert_int_equal(open1(b, "rown1"), ST_OK);
    assert_int_equal(session_of(owner_path("rown1")), session_of(rs_path(b)));
    owner_of("rown1", owner, sizeof(owner));
    assert_string_equal(owner, b->name);
    assert_int_equal(get(b, "rown1", "row1", v, sizeof(v)), ST_OK);
    assert_string_equal(v, "from-a");
    assert_int_equal(open1(a, "rown1"), ST_EXISTS);
    assert_non_null(strstr(st_errmsg(), b->name));
}

static void kill9_frees_znodes_after_session_timeout(void **state)
{
    (void)state;
    rs_proc *b = &F.b;
    char path[512];
    snprintf(path, sizeof(path), "%s", rs_path(b));
    proc_signal(b->pid, SIGKILL);
    wait_exit(b->pid, 10000);
    /* ephemeral nodes outlive the process until ZooKeeper ends its session */
    assert_int_equal(zk_exists(F.z, path, NULL), ST_OK);
    assert_int_equal(zk_exists(F.z, owner_path("rown1"), NULL), ST_OK);
    int64_t ms = wait_gone(path, 15000);
    assert_true(ms >= SESSION_MS / 2);
    wait_gone(owner_path("rown1"), 2000);
    wait_gone(owner_path("rown2"), 2000);
    /* a (still alive) may now take the region */
    assert_int_equal(open1(&F.a, "rown1"), ST_OK);
    assert_int_equal(session_of(owner_path("rown1")), session_of(rs_path(&F.a)));
}

/* Completion of the write sent to a paused server. */
typedef struct late_write {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done;
    int status;
    char message[512];
} late_write;

static void late_write_done(void *arg, rpc_result *res)
{
    late_write *w = arg;
    pthread_mutex_lock(&w->mu);
    w->done = true;
    w->status = res->status;
    snprintf(w->message, sizeof(w->message), "%s", res->message);
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

static void paused_server_acknowledges_nothing_and_exits_70(void **state)
{
    (void)state;
    rs_proc *c = &F.c;
    start_rs(c, "c", SESSION_MS);
    assert_int_equal(open1(c, "rfence"), ST_OK);
    assert_int_equal(put(c, "rfence", "row1", "before"), ST_OK);

    proc_signal(c->pid, SIGSTOP);
    clock_sleep_ms(2 * SESSION_MS + 500); /* the session expires meanwhile */
    /* the write waits in the socket until the server runs again */
    Strata__Client__MutateRequest req;
    Strata__Client__RegionSpecifier spec;
    Strata__Client__MutationProto m;
    Strata__Client__Cell cell, *cells[1];
    put_request(&req, &spec, &m, &cell, cells, "rfence", "row2", "after-pause");
    uint8_t body[256];
    size_t len = strata__client__mutate_request__pack(&req, body);
    late_write w = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    assert_int_equal(rpc_client_call_async(F.client, c->addr, "ClientService.Mutate", body, len,
                                           TIMEOUT_MS, late_write_done, &w),
                     ST_OK);
    clock_sleep_ms(100);
    proc_signal(c->pid, SIGCONT);
    pthread_mutex_lock(&w.mu);
    while (!w.done)
        pthread_cond_wait(&w.cv, &w.mu); /* bounded by the call's timeout */
    pthread_mutex_unlock(&w.mu);
    assert_int_not_equal(w.status, ST_OK);
    assert_int_not_equal(w.status, ST_TIMEOUT); /* refused or dropped, not ignored */
    if (w.status == ST_NOT_SERVING)
        assert_non_null(strstr(w.message, "is fenced: no word from ZooKeeper"));

    int status = wait_exit(c->pid, 20000);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 70);
    assert_true(file_has(c->log, "ZooKeeper session expired"));
    wait_gone(owner_path("rfence"), 10000);
}

static void silent_zookeeper_fences_writes_not_reads(void **state)
{
    (void)state;
    rs_proc *a = &F.a, *d = &F.d;
    /* a's 2 s session would not survive the pause below */
    proc_signal(a->pid, SIGTERM);
    assert_int_equal(WEXITSTATUS(wait_exit(a->pid, 30000)), 0);
    int session = 4000; /* writes stop after 2 s of silence; the session survives 3 s */
    start_rs(d, "d", session);
    assert_int_equal(open1(d, "rquiet"), ST_OK);
    assert_int_equal(put(d, "rquiet", "row1", "v1"), ST_OK);

    assert_int_equal(zks_pause(F.zks), ST_OK);
    clock_sleep_ms(session / 2 + 500);
    int rc = put(d, "rquiet", "row2", "v2");
    char msg[512];
    snprintf(msg, sizeof(msg), "%s", st_errmsg());
    char v[64];
    int get_rc = get(d, "rquiet", "row1", v, sizeof(v));
    assert_int_equal(zks_resume(F.zks), ST_OK);
    assert_int_equal(rc, ST_NOT_SERVING);
    assert_non_null(strstr(msg, "is fenced: no word from ZooKeeper for"));
    assert_non_null(strstr(msg, d->name));
    assert_int_equal(get_rc, ST_OK);
    assert_string_equal(v, "v1");

    /* heard from again: writes are taken again, by the same live server */
    uint64_t end = clock_mono_ns() + 15000000000ull;
    while ((rc = put(d, "rquiet", "row2", "v2")) != ST_OK && clock_mono_ns() < end)
        clock_sleep_ms(100);
    assert_int_equal(rc, ST_OK);
    assert_int_equal(proc_wait(d->pid, 0, NULL), ST_TIMEOUT); /* still running */
    assert_int_equal(zk_exists(F.z, rs_path(d), NULL), ST_OK);

    proc_signal(d->pid, SIGTERM);
    assert_int_equal(WEXITSTATUS(wait_exit(d->pid, 30000)), 0);
    assert_int_equal(zk_exists(F.z, owner_path("rquiet"), NULL), ST_NOT_FOUND);
}

int main(void)
{
    if (!getenv("STRATA_BIN"))
        return tu_skip_all("test_rs_cluster", "STRATA_BIN is not set (ctest sets it)");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rs_node_has_server_info_and_goes_on_sigterm),
        cmocka_unit_test(start_fails_without_zookeeper),
        cmocka_unit_test(ownership_is_exclusive),
        cmocka_unit_test(kill9_frees_znodes_after_session_timeout),
        cmocka_unit_test(paused_server_acknowledges_nothing_and_exits_70),
        cmocka_unit_test(silent_zookeeper_fences_writes_not_reads),
    };
    return tu_run_group_tests(tests, group_setup, group_teardown);
}
