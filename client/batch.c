/*
 * batch.c - many mutations and gets over many rows and regions: ClientService.Multi.
 *
 * One round: every pending action is located (location cache, locator on a miss); the
 * actions are grouped per server, and per region within a server, into one
 * MultiRequest per server; the calls go out at once (async) and the round waits for all
 * of them. Each action then succeeded (a get keeps its result), failed for good (a
 * non-retryable status: its error is recorded), or failed retryably (the stale location
 * is dropped as client_note_failure says and the action stays pending, remembering the
 * location it failed at, so its next lookup waits on the master for a newer one). Rounds
 * repeat: at once when every retryable failure of the round was a RegionMoved hint
 * followed (client/moved_hint.c) or a failed location to be looked up again with a wait
 * (client_follow_pause), else with the backoff of client/retry.h between them, until
 * nothing is pending or the operation timeout or the retries are spent; what is still pending then fails with
 * the last error it saw.
 *
 * Thread-safety: a batch belongs to one thread; the round's completion callbacks run on
 * the rpc client's I/O thread and only fill their own slot and count down a latch
 * (mutex + condition variable, a leaf lock).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client_internal.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/rpc/rpc_proto.h"
#include "common/status.h"

struct strata_batch {
    batch_action *v;
    size_t n, cap;
};

/* ---- the public batch ---- */

strata_batch_t *strata_batch_create(void)
{
    return calloc(1, sizeof(strata_batch_t));
}

static void action_clear(batch_action *a)
{
    strata_mutation_destroy(a->mut);
    strata_get_destroy(a->get);
    strata_result_destroy(a->result);
    free(a->error);
    memset(a, 0, sizeof(*a));
}

void strata_batch_destroy(strata_batch_t *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->n; i++)
        action_clear(&b->v[i]);
    free(b->v);
    free(b);
}

static size_t batch_push(strata_batch_t *b, strata_mutation_t *m, strata_get_t *g)
{
    if (b->n == b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 16;
        batch_action *nv = realloc(b->v, nc * sizeof(*nv));
        if (!nv)
            abort();
        b->v = nv;
        b->cap = nc;
    }
    memset(&b->v[b->n], 0, sizeof(b->v[b->n]));
    b->v[b->n].mut = m;
    b->v[b->n].get = g;
    return b->n++;
}

size_t strata_batch_add_mutation(strata_batch_t *b, const strata_mutation_t *m)
{
    return batch_push(b, mutation_copy(m), NULL);
}

size_t strata_batch_add_get(strata_batch_t *b, const strata_get_t *g)
{
    return batch_push(b, NULL, get_copy(g));
}

size_t strata_batch_count(const strata_batch_t *b)
{
    return b->n;
}

const char *strata_batch_error(const strata_batch_t *b, size_t i)
{
    return i < b->n ? b->v[i].error : NULL;
}

const strata_result_t *strata_batch_result(const strata_batch_t *b, size_t i)
{
    return i < b->n ? b->v[i].result : NULL;
}

void strata_table_batch(strata_table_t *t, strata_batch_t *b, char **errptr)
{
    for (size_t i = 0; i < b->n; i++) {
        strata_result_destroy(b->v[i].result);
        free(b->v[i].error);
        b->v[i].result = NULL;
        b->v[i].error = NULL;
        b->v[i].done = false;
        b->v[i].avoid.set = false;
    }
    size_t failed = batch_run(t->c, t->name, b->v, b->n);
    if (failed) {
        char msg[1024];
        const char *first = "";
        for (size_t i = 0; i < b->n && !first[0]; i++)
            if (b->v[i].error)
                first = b->v[i].error;
        snprintf(msg, sizeof(msg), "%s: %zu of %zu actions failed on table %s; first: %s",
                 st_strerror(client_message_status(first)), failed, b->n, t->name, first);
        client_set_error_msg(errptr, msg);
    }
}

/* ---- one round ---- */

/* An action pending in this round: where it goes and how it ended. */
typedef struct slot {
    size_t idx;              /* into actions */
    const loccache_entry *e; /* pinned; NULL if locating failed */
    char addr[300];
    int status; /* this round's outcome */
    char msg[512];
    uint32_t retry_after_ms;
    bool hinted; /* ST_REGION_MOVED whose hint was cached (moved_hint.c) */
    bool waited; /* its location came from a wait on the master */
} slot;

/* One server's call. */
typedef struct call {
    struct round *rd;
    size_t first, n; /* slots [first, first + n), sorted by address then region */
    rpc_result res;
} call;

typedef struct round {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t outstanding;
} round_t;

static void call_done(void *arg, rpc_result *res)
{
    call *cl = arg;
    cl->res = *res;
    memset(&res->body, 0, sizeof(res->body)); /* taken */
    pthread_mutex_lock(&cl->rd->mu);
    cl->rd->outstanding--;
    pthread_cond_broadcast(&cl->rd->cv);
    pthread_mutex_unlock(&cl->rd->mu);
}

static int slot_order(const void *pa, const void *pb)
{
    const slot *a = pa, *b = pb;
    if (!a->e || !b->e)
        return (a->e == NULL) - (b->e == NULL);
    int c = strcmp(a->addr, b->addr);
    return c ? c : strcmp(a->e->region, b->e->region);
}

static void slot_fail(slot *s, int status, const char *msg, uint32_t retry_after_ms)
{
    s->status = status;
    snprintf(s->msg, sizeof(s->msg), "%s", msg);
    s->retry_after_ms = retry_after_ms;
}

/* Encodes slots [first, first+n) (one server) as a MultiRequest into req. */
static int build_multi(const batch_action *acts, const slot *sl, size_t n, buf_t *req)
{
    Strata__Client__MultiRequest mr = STRATA__CLIENT__MULTI_REQUEST__INIT;
    Strata__Client__RegionAction *ra = calloc(n, sizeof(*ra));
    Strata__Client__RegionAction **rap = calloc(n, sizeof(*rap));
    Strata__Client__RegionSpecifier *rs = calloc(n, sizeof(*rs));
    Strata__Client__Action *ac = calloc(n, sizeof(*ac));
    Strata__Client__Action **acp = calloc(n, sizeof(*acp));
    mutation_pb *mp = calloc(n, sizeof(*mp));
    get_pb *gp = calloc(n, sizeof(*gp));
    size_t built = 0;
    int rc = (ra && rap && rs && ac && acp && mp && gp)
                 ? ST_OK
                 : st_error(ST_NOMEM, "client: out of memory");
    for (size_t i = 0; rc == ST_OK && i < n; i++, built++) {
        const batch_action *a = &acts[sl[i].idx];
        strata__client__action__init(&ac[i]);
        ac[i].has_index = 1;
        ac[i].index = (uint32_t)i;
        if (a->mut && (rc = mutation_pb_build(&mp[i], a->mut)) == ST_OK)
            ac[i].mutation = &mp[i].msg;
        if (a->get && (rc = get_pb_build(&gp[i], a->get)) == ST_OK)
            ac[i].get = &gp[i].msg;
        acp[i] = &ac[i];
        if (i == 0 || strcmp(sl[i].e->region, sl[i - 1].e->region) != 0) {
            Strata__Client__RegionAction *r = &ra[mr.n_region_action];
            strata__client__region_action__init(r);
            strata__client__region_specifier__init(&rs[mr.n_region_action]);
            rs[mr.n_region_action].encoded_name = (char *)sl[i].e->region;
            r->region = &rs[mr.n_region_action];
            r->action = &acp[i];
            rap[mr.n_region_action++] = r;
        }
        rap[mr.n_region_action - 1]->n_action++;
    }
    if (rc == ST_OK) {
        mr.region_action = rap;
        rc = rpc_proto_pack(&mr.base, req);
    }
    for (size_t i = 0; i < built && mp && gp; i++) {
        mutation_pb_clear(&mp[i]);
        get_pb_clear(&gp[i]);
    }
    free(ra), free(rap), free(rs), free(ac), free(acp), free(mp), free(gp);
    return rc;
}

static void action_error_apply(slot *s, const Strata__Client__ActionError *err)
{
    int code = err->has_code && err->code < 0 ? err->code : ST_INTERNAL;
    slot_fail(s, code, err->message ? err->message : st_strerror(code), 0);
}

/* A region action's error: also caches the moved hint it may carry (once per region). */
static void region_error_apply(strata_client_t *c, moved_follow *mf, slot *s, bool first,
                               const Strata__Client__ActionError *err)
{
    action_error_apply(s, err);
    if (err->hint && s->status == ST_REGION_MOVED)
        s->hinted = !first ? s[-1].hinted
                           : moved_hint_apply_msg(c, s->e->table, err->hint, mf) == ST_OK;
}

/* Reads one server's answer into its slots and the actions' results. */
static void call_finish(strata_client_t *c, moved_follow *mf, call *cl, batch_action *acts,
                        slot *sl)
{
    slot *mine = sl + cl->first;
    if (cl->res.status != ST_OK) {
        for (size_t i = 0; i < cl->n; i++)
            slot_fail(&mine[i], cl->res.status, cl->res.message, cl->res.retry_after_ms);
        return;
    }
    Strata__Client__MultiResponse *mr =
        strata__client__multi_response__unpack(NULL, cl->res.body.len, cl->res.body.data);
    for (size_t i = 0; i < cl->n; i++) /* anything the answer leaves out failed */
        slot_fail(&mine[i], ST_PROTOCOL,
                  mr ? "Multi answer lacks this action" : "undecodable Multi response", 0);
    for (size_t r = 0; mr && r < mr->n_region_action_result; r++) {
        const Strata__Client__RegionActionResult *rar = mr->region_action_result[r];
        for (size_t k = 0; k < rar->n_result; k++) {
            const Strata__Client__ResultOrException *roe = rar->result[k];
            if (!roe->has_index || roe->index >= cl->n)
                continue;
            slot *s = &mine[roe->index];
            batch_action *a = &acts[s->idx];
            if (roe->error) {
                action_error_apply(s, roe->error);
                continue;
            }
            s->status = ST_OK;
            if (a->get) {
                strata_result_destroy(a->result);
                a->result = result_from_pb(roe->result, a->get->row.data, a->get->row.len);
            }
        }
    }
    /* Region-wide errors: the r-th region action of the request is the r-th region in
     * slot order. */
    size_t region_no = 0;
    for (size_t i = 0; mr && i < cl->n; i++) {
        bool first = i == 0 || strcmp(mine[i].e->region, mine[i - 1].e->region) != 0;
        if (i > 0 && first)
            region_no++;
        if (region_no < mr->n_region_action_result && mr->region_action_result[region_no]->error)
            region_error_apply(c, mf, &mine[i], first,
                               mr->region_action_result[region_no]->error);
    }
    if (mr)
        strata__client__multi_response__free_unpacked(mr, NULL);
}

/* Locates every slot; those that fail get their status. */
static void round_locate(strata_client_t *c, const char *table, batch_action *acts, slot *sl,
                         size_t n, const retry_state *r)
{
    for (size_t i = 0; i < n; i++) {
        const batch_action *a = &acts[sl[i].idx];
        const buf_t *row = a->mut ? &a->mut->row : &a->get->row;
        int rc = client_locate_avoid(c, table, row->data, row->len, &a->avoid,
                                     retry_remaining_ms(r), &sl[i].e, &sl[i].waited);
        if (rc != ST_OK) {
            sl[i].e = NULL;
            slot_fail(&sl[i], rc, st_errmsg(), 0);
        } else {
            snprintf(sl[i].addr, sizeof(sl[i].addr), "%s:%u", sl[i].e->host,
                     (unsigned)sl[i].e->port);
            sl[i].status = ST_OK;
        }
    }
    qsort(sl, n, sizeof(*sl), slot_order);
}

/* Sends one Multi per server and waits for all of them. */
static void round_send(strata_client_t *c, moved_follow *mf, batch_action *acts, slot *sl,
                       size_t n, int timeout_ms)
{
    call *calls = calloc(n ? n : 1, sizeof(*calls));
    round_t rd = {.outstanding = 0};
    size_t ncalls = 0;
    pthread_mutex_init(&rd.mu, NULL);
    pthread_cond_init(&rd.cv, NULL);
    for (size_t i = 0; !calls && i < n; i++)
        if (sl[i].e)
            slot_fail(&sl[i], ST_NOMEM, "client: out of memory sending a batch", 0);
    for (size_t i = 0; calls && i < n && sl[i].e;) {
        size_t j = i;
        while (j < n && sl[j].e && strcmp(sl[j].addr, sl[i].addr) == 0)
            j++;
        call *cl = &calls[ncalls++];
        buf_t req = {0};
        cl->rd = &rd;
        cl->first = i;
        cl->n = j - i;
        int rc = build_multi(acts, sl + i, cl->n, &req);
        pthread_mutex_lock(&rd.mu);
        rd.outstanding++;
        pthread_mutex_unlock(&rd.mu);
        if (rc == ST_OK)
            rc = rpc_client_call_async(c->rpc, sl[i].addr, "ClientService.Multi", req.data, req.len,
                                       timeout_ms, call_done, cl);
        if (rc != ST_OK) {
            cl->res.status = rc;
            snprintf(cl->res.message, sizeof(cl->res.message), "%s", st_errmsg());
            pthread_mutex_lock(&rd.mu);
            rd.outstanding--;
            pthread_mutex_unlock(&rd.mu);
        }
        buf_free(&req);
        i = j;
    }
    pthread_mutex_lock(&rd.mu);
    while (rd.outstanding > 0)
        pthread_cond_wait(&rd.cv, &rd.mu);
    pthread_mutex_unlock(&rd.mu);
    for (size_t k = 0; k < ncalls; k++) {
        call_finish(c, mf, &calls[k], acts, sl);
        buf_free(&calls[k].res.body);
    }
    pthread_cond_destroy(&rd.cv);
    pthread_mutex_destroy(&rd.mu);
    free(calls);
}

static void action_set_error(batch_action *a, int status, const char *msg)
{
    char buf[700];
    snprintf(buf, sizeof(buf), "%s: %s", st_strerror(status), msg);
    free(a->error);
    a->error = strdup(buf);
    a->done = true;
}

/* Settles a round: successes and final failures are done; returns how many stay
 * pending, with the status and hint to back off on. */
static size_t round_settle(strata_client_t *c, moved_follow *mf, batch_action *acts, slot *sl,
                           size_t n, int *retry_status, uint32_t *retry_after_ms,
                           int64_t *quick_pause, bool *follow)
{
    size_t pending = 0;
    int64_t quick = 0;
    *follow = true;
    for (size_t i = 0; i < n; i++) {
        batch_action *a = &acts[sl[i].idx];
        if (sl[i].status == ST_OK) {
            free(a->error);
            a->error = NULL;
            a->done = true;
        } else if (retry_classify(sl[i].status) == RETRY_FATAL) {
            action_set_error(a, sl[i].status, sl[i].msg);
        } else {
            if (!moved_follow_retry(mf, sl[i].addr, sl[i].status, sl[i].hinted, &quick)) {
                client_note_failure(c, sl[i].e, sl[i].status);
                client_avoid_set(&a->avoid, sl[i].e, sl[i].status);
                *follow = *follow && a->avoid.set && !sl[i].waited;
                *retry_status = sl[i].status; /* one not followed: the round backs off */
            } else {
                a->avoid.set = false; /* the hint says where to go */
                if (quick > *quick_pause)
                    *quick_pause = quick;
            }
            if (sl[i].retry_after_ms > *retry_after_ms)
                *retry_after_ms = sl[i].retry_after_ms;
            st_error(sl[i].status, "%s", sl[i].msg);
            action_set_error(a, sl[i].status, sl[i].msg); /* kept if the retries run out */
            a->done = false;
            pending++;
        }
        loccache_entry_release(sl[i].e);
        sl[i].e = NULL;
    }
    return pending;
}

size_t batch_run(strata_client_t *c, const char *table, batch_action *acts, size_t n)
{
    slot *sl = calloc(n ? n : 1, sizeof(*sl));
    retry_state r;
    moved_follow mf;
    size_t failed = 0;
    client_follow follows = {0};
    moved_follow_init(&mf);
    int rc = sl ? retry_begin(&r, &c->retry)
                : st_error(ST_NOMEM, "client: out of memory running a batch on table %s", table);
    while (rc == ST_OK) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (!acts[i].done)
                sl[k++] = (slot){.idx = i};
        if (k == 0)
            break;
        round_locate(c, table, acts, sl, k, &r);
        round_send(c, &mf, acts, sl, k, client_call_timeout(c, &r));
        int status = ST_OK;
        uint32_t hint = 0;
        int64_t pause = 0;
        bool follow = false;
        if (round_settle(c, &mf, acts, sl, k, &status, &hint, &pause, &follow) == 0)
            break;
        if (status == ST_OK && moved_follow_step(&mf, &r)) { /* only moved hints followed */
            clock_sleep_ms(pause);
            continue;
        }
        if (status == ST_OK)
            status = ST_REGION_MOVED; /* unpaced retries spent: back off as usual */
        pause = 0;
        LOG_DEBUG("batch on %s: retrying after %s (attempt %d)", table, st_errmsg(),
                  retry_attempts(&r));
        if ((rc = client_follow_pause(&r, status, follow, &follows, hint, &pause)) == ST_OK &&
            pause > 0)
            clock_sleep_ms(pause);
    }
    for (size_t i = 0; i < n; i++) {
        if (!acts[i].done && !acts[i].error)
            action_set_error(&acts[i], rc, st_errmsg());
        acts[i].done = true;
        failed += acts[i].error != NULL;
    }
    free(sl);
    return failed;
}
