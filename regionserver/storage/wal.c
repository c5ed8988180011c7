/*
 * wal.c - the write-ahead log writer: group commit, durability levels, rolling,
 * retiring files whose edits are all flushed, and recovery from failed writes
 * (docs/formats/wal.md, "Writing"; records are encoded by wal_record.c).
 *
 * Group commit. wal_append() encodes its record outside the lock, then under w->mu
 * appends the bytes to the pending queue (w->q) and, unless ASYNC_WAL, a waiter of its
 * own. A caller whose waiter is not done and who finds no I/O owner becomes the
 * leader (lead_locked): it takes the whole queue, drops the lock, writes the batch
 * with one fio_append and, if any waiter of the batch wants FSYNC_WAL, one fio_sync,
 * retakes the lock, gives every waiter of the batch the batch's status and wakes all
 * (finish_batch_locked). Callers arriving meanwhile queue up for the next leader.
 * ASYNC_WAL records wait in the queue for the background thread (bg_main), which
 * flushes and syncs every async_interval_ms, sooner if the queue grows large.
 *
 * The current file, driven only by the I/O owner (a leader or wal_roll):
 *
 *   from       event                                    function     to
 *   NONE       wal_open, or a batch with data to write  roll_file    OPEN (fails: NONE)
 *   OPEN       batch starts with size >= roll_size      roll_file    OPEN, a new file
 *   OPEN       wal_roll                                 roll_file    OPEN, a new file
 *   OPEN       a batch's write or sync fails            abandon      ABANDONED
 *   ABANDONED  at once                                  roll_file    OPEN (fails: NONE)
 *
 * NONE means no current file (need_roll set): the next batch with data rolls first.
 * abandon() truncates the file back to the end of the last good batch and rolls
 * at once; the new file's header records that end, so an acknowledged edit never
 * sits after a hole or a damaged record. roll_file() syncs and closes the old file,
 * creates and syncs the new one, then deletes files no open region needs
 * (wal_region_flushed / wal_region_closed emptied their region maps); never the
 * current file.
 *
 * Thread-safety: every function but wal_close() may be called from any thread.
 * Locks: w->mu is a leaf; no I/O is done while holding it. Fields marked [mu] are
 * guarded by w->mu; fields marked [io] belong to the I/O owner (w->io_busy set).
 */
#include "regionserver/storage/wal.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/bytes.h"
#include "common/clock.h"
#include "common/fileio.h"
#include "common/log.h"
#include "common/status.h"
#include "regionserver/storage/wal_internal.h"

#define DEFAULT_ROLL_SIZE (64u << 20)
#define DEFAULT_ASYNC_INTERVAL_MS 1000
#define ASYNC_KICK_BYTES (4u << 20) /* queued ASYNC_WAL bytes that wake the flusher early */
#define WAITER_MSG_LEN 512

/* A caller waiting for its batch. Lives on the caller's stack. */
typedef struct waiter {
    bool done;
    int rc;
    char msg[WAITER_MSG_LEN];
    struct waiter *next;
} waiter;

/* One queued record: its length in the queue bytes, and whether it is ASYNC_WAL
 * (then nobody waits for it, and a failed batch queues it again). */
typedef struct pend_ent {
    uint32_t len;
    bool async;
} pend_ent;

/* Records waiting to be written, or the batch a leader took. */
typedef struct queue {
    buf_t data;
    pend_ent *ents;
    size_t n, cap;
    size_t nasync;
    size_t nwaiters;
    bool want_sync;
    waiter *head, *tail;
} queue;

/* A file this log wrote and has not deleted. */
typedef struct wal_file {
    uint64_t number;
    char *path;
    wal_map regions; /* region -> highest seq in this file not yet known flushed */
    bool pinned;     /* region tracking failed (out of memory): never delete */
    struct wal_file *next;
} wal_file;

/* I/O counters the owner gathers without the lock; folded into stats under it. */
typedef struct io_counts {
    uint64_t writes, syncs, bytes, rolls;
} io_counts;

struct wal {
    char *dir;
    uint64_t roll_size;
    int async_ms;
    pthread_mutex_t mu;
    pthread_cond_t cv;    /* waiters: a batch finished or the I/O owner left */
    pthread_cond_t bg_cv; /* background flusher: stop or kick */
    queue q;              /* [mu] pending records and waiters */
    queue spare;          /* [mu] empty buffers to swap in when a batch is taken */
    bool io_busy;         /* [mu] someone owns the current file */
    pthread_cond_t gather_cv;   /* a gathering leader: enough waiters have arrived */
    size_t gather_target;       /* [mu] waiters a gathering leader waits for; 0: none */
    size_t last_sync_waiters;   /* [mu] writers around the last synced batch: its waiters
                                   plus those that queued during its I/O */
    uint64_t last_sync_io_ns;   /* [mu] how long that batch's write + sync took */
    bool closing;         /* [mu] wal_close started: appends fail */
    bool bg_stop, bg_kick;
    bool async_unsynced;  /* [mu] ASYNC_WAL records were written but not synced */
    wal_file *files, *files_tail; /* [mu] oldest first */
    size_t nfiles;                /* [mu] */
    wal_stats stats;              /* [mu] */
    /* [io] the current file */
    fio_file *cur;
    wal_file *cur_file;
    uint64_t cur_end;    /* end of the last good batch */
    uint64_t cur_synced; /* bytes known fdatasync'ed */
    bool abandoned;      /* a write or sync failed: nothing more goes to cur */
    bool need_roll;      /* roll before the next batch */
    bool opened;         /* the first file exists; later files count as rolls */
    uint64_t next_number, prev_number, prev_end;
    io_counts io;
    pthread_t bg;
    bool bg_started;
};

/* ---------------------------------------------------------------- durability */

static const char *const durability_names[] = {"USE_DEFAULT", "SKIP_WAL", "ASYNC_WAL",
                                               "SYNC_WAL", "FSYNC_WAL"};

const char *durability_name(durability d)
{
    if ((int)d < 0 || (size_t)d >= sizeof(durability_names) / sizeof(durability_names[0]))
        return "UNKNOWN";
    return durability_names[d];
}

int durability_parse(const char *name)
{
    for (size_t i = 0; name && i < sizeof(durability_names) / sizeof(durability_names[0]); i++)
        if (strcasecmp(name, durability_names[i]) == 0)
            return (int)i;
    return -1;
}

/* ---------------------------------------------------------------- queue */

static int queue_push(queue *q, const void *data, size_t len, bool async)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 64;
        pend_ent *e = realloc(q->ents, cap * sizeof(*e));
        if (!e)
            return ST_NOMEM;
        q->ents = e;
        q->cap = cap;
    }
    if (buf_append(&q->data, data, len) != ST_OK)
        return ST_NOMEM;
    q->ents[q->n++] = (pend_ent){(uint32_t)len, async};
    q->nasync += async;
    return ST_OK;
}

static void queue_add_waiter(queue *q, waiter *wt)
{
    wt->next = NULL;
    if (q->tail)
        q->tail->next = wt;
    else
        q->head = wt;
    q->tail = wt;
    q->nwaiters++;
}

/* Empties q, keeping its memory. */
static void queue_reset(queue *q)
{
    buf_reset(&q->data);
    q->n = q->nasync = q->nwaiters = 0;
    q->want_sync = false;
    q->head = q->tail = NULL;
}

static void queue_free(queue *q)
{
    buf_free(&q->data);
    free(q->ents);
    memset(q, 0, sizeof(*q));
}

/* ---------------------------------------------------------------- files */

static void file_free(wal_file *f)
{
    if (!f)
        return;
    wal_map_free(&f->regions);
    free(f->path);
    free(f);
}

/* Creates path as log file `number`: header naming the previous file, fdatasync, and a
 * directory fsync (rule 1 of wal.md). On failure the file is removed again. */
static int create_file(wal *w, const char *path, uint64_t number, fio_file **out)
{
    wal_file_header h = {number, w->prev_number, w->prev_end};
    uint8_t hdr[WAL_FILE_HEADER_LEN];
    fio_file *f = NULL;
    wal_header_encode(&h, hdr);
    int rc = fio_create(path, &f);
    if (rc == ST_OK && (rc = fio_append(f, hdr, sizeof(hdr))) == ST_OK)
        w->io.bytes += sizeof(hdr);
    if (rc == ST_OK && (rc = fio_sync(f)) == ST_OK)
        w->io.syncs++;
    if (rc == ST_OK)
        rc = fio_sync_dir(w->dir);
    if (rc != ST_OK && f) {
        char msg[WAITER_MSG_LEN];
        snprintf(msg, sizeof(msg), "%s", st_errmsg());
        fio_close(f);
        fio_unlink(path);
        f = NULL;
        st_error(rc, "%s", msg);
    }
    *out = f;
    return rc;
}

/* Syncs (unless abandoned) and closes the current file; remembers it as the
 * predecessor of the next one. */
static void close_current(wal *w)
{
    if (!w->abandoned && w->cur_synced < w->cur_end) {
        if (fio_sync(w->cur) == ST_OK) {
            w->io.syncs++;
            w->cur_synced = w->cur_end;
        } else {
            LOG_ERROR("wal %s: sync before roll failed; SYNC_WAL edits after offset %llu may "
                      "not survive a power loss",
                      fio_path(w->cur), (unsigned long long)w->cur_synced);
        }
    }
    fio_close(w->cur);
    w->prev_number = w->cur_file->number;
    w->prev_end = w->cur_end;
    w->cur = NULL;
    w->cur_file = NULL;
}

/* Unlinks from the list every file but keep that no region needs; returns their
 * paths (the caller unlinks them from disk and frees them). */
/* Only a prefix of the oldest files is retired, stopping at the first one still
 * needed: every file kept is then either named by its successor's header or is the
 * newest, which is what the reader's torn-tail rules rely on (wal.md). */
static bool retirable(const wal_file *f, const wal_file *keep)
{
    return f != keep && !f->pinned && f->regions.n == 0;
}

static char **retire_files_locked(wal *w, const wal_file *keep, size_t *ndead)
{
    size_t n = 0;
    *ndead = 0;
    for (wal_file *f = w->files; f && retirable(f, keep); f = f->next)
        n++;
    char **dead = n ? malloc(n * sizeof(*dead)) : NULL;
    if (!dead)
        return NULL;
    while (w->files && retirable(w->files, keep)) {
        wal_file *f = w->files;
        w->files = f->next;
        dead[(*ndead)++] = f->path;
        f->path = NULL;
        file_free(f);
        w->nfiles--;
    }
    if (!w->files)
        w->files_tail = NULL;
    return dead;
}

static void delete_files(wal *w, char **dead, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (fio_unlink(dead[i]) == ST_OK)
            LOG_DEBUG("wal: deleted %s, every edit in it is flushed", dead[i]);
        free(dead[i]);
    }
    free(dead);
    if (n)
        fio_sync_dir(w->dir);
}

/* Starts a new current file (closing the old one), then retires unneeded files.
 * [io], called without w->mu. On failure there is no current file and need_roll stays. */
static int roll_file(wal *w)
{
    fio_file *f = NULL;
    size_t ndead = 0;
    w->need_roll = true;
    if (w->cur)
        close_current(w);
    wal_file *wf = calloc(1, sizeof(*wf));
    if (!wf || !(wf->path = wal_file_path(w->dir, w->next_number))) {
        free(wf);
        return st_error(ST_NOMEM, "wal %s: out of memory rolling", w->dir);
    }
    wf->number = w->next_number++;
    int rc = create_file(w, wf->path, wf->number, &f);
    if (rc != ST_OK) {
        file_free(wf);
        return rc;
    }
    pthread_mutex_lock(&w->mu);
    if (w->files_tail)
        w->files_tail->next = wf;
    else
        w->files = wf;
    w->files_tail = wf;
    w->nfiles++;
    w->io.rolls += w->opened;
    char **dead = retire_files_locked(w, wf, &ndead);
    pthread_mutex_unlock(&w->mu);
    LOG_DEBUG("wal: now writing %s", wf->path);
    w->cur = f;
    w->cur_file = wf;
    w->cur_end = w->cur_synced = WAL_FILE_HEADER_LEN;
    w->abandoned = w->need_roll = false;
    w->opened = true;
    delete_files(w, dead, ndead);
    return ST_OK;
}

/* After a failed write or sync: cut the file back to good_end and roll away from it
 * (wal.md rule 3). Keeps the thread's error message. [io] */
static void abandon(wal *w, uint64_t good_end)
{
    char msg[WAITER_MSG_LEN];
    snprintf(msg, sizeof(msg), "%s", st_errmsg());
    const char *path = fio_path(w->cur);
    LOG_WARN("wal %s: abandoning the file after a failed write or sync; cutting it back to "
             "%llu bytes and rolling",
             path, (unsigned long long)good_end);
    if (fio_truncate(path, good_end) == ST_OK && fio_sync(w->cur) == ST_OK)
        w->io.syncs++;
    w->cur_end = good_end;
    if (w->cur_synced > good_end)
        w->cur_synced = good_end;
    w->abandoned = w->need_roll = true;
    if (roll_file(w) != ST_OK)
        LOG_ERROR("wal %s: rolling after a failed write failed; retrying before the next "
                  "batch",
                  w->dir);
    st_error(ST_IO, "%s", msg);
}

/* ---------------------------------------------------------------- batches */

/* Writes (and syncs if asked) one batch. [io], called without w->mu. */
static int write_batch(wal *w, const queue *b)
{
    int rc = ST_OK;
    bool full = w->cur && w->cur_end >= w->roll_size && w->cur_end > WAL_FILE_HEADER_LEN;
    if (b->data.len && (w->need_roll || !w->cur || full))
        rc = roll_file(w);
    if (rc != ST_OK || !w->cur)
        return rc;
    uint64_t good_end = w->cur_end;
    if (b->data.len && (rc = fio_append(w->cur, b->data.data, b->data.len)) == ST_OK) {
        w->cur_end += b->data.len;
        w->io.writes++;
        w->io.bytes += b->data.len;
    }
    if (rc == ST_OK && b->want_sync && w->cur_synced < w->cur_end &&
        (rc = fio_sync(w->cur)) == ST_OK) {
        w->io.syncs++;
        w->cur_synced = w->cur_end;
    }
    if (rc != ST_OK)
        abandon(w, good_end);
    return rc;
}

static void fold_counts_locked(wal *w)
{
    w->stats.writes += w->io.writes;
    w->stats.syncs += w->io.syncs;
    w->stats.bytes += w->io.bytes;
    w->stats.rolls += w->io.rolls;
    memset(&w->io, 0, sizeof(w->io));
}

/* Raises the region maps of file f by the records of a written batch. */
static void track_batch_locked(wal_file *f, const queue *b)
{
    size_t off = 0;
    for (size_t i = 0; i < b->n; i++) {
        const uint8_t *region = NULL;
        size_t rlen = 0;
        uint64_t seq = 0;
        wal_record_peek(b->data.data + off, &region, &rlen, &seq);
        off += b->ents[i].len;
        wal_map_ent *e = f->pinned ? NULL : wal_map_put(&f->regions, region, rlen);
        if (!e && !f->pinned) {
            LOG_ERROR("wal %s: out of memory tracking regions; the file is kept", f->path);
            f->pinned = true;
        }
        if (e && seq > e->val)
            e->val = seq;
    }
}

/* Puts the ASYNC_WAL records of failed batch b back at the head of the queue. */
static void requeue_async_locked(wal *w, const queue *b)
{
    queue nq = {0};
    size_t off = 0, lost = 0;
    for (size_t i = 0; i < b->n; off += b->ents[i].len, i++)
        if (b->ents[i].async && queue_push(&nq, b->data.data + off, b->ents[i].len, true))
            lost++;
    off = 0;
    for (size_t i = 0; i < w->q.n; off += w->q.ents[i].len, i++)
        if (queue_push(&nq, w->q.data.data + off, w->q.ents[i].len, w->q.ents[i].async))
            lost++;
    if (lost)
        LOG_ERROR("wal %s: out of memory re-queueing after a failed write; %zu edits lost",
                  w->dir, lost);
    nq.want_sync = w->q.want_sync;
    nq.nwaiters = w->q.nwaiters;
    nq.head = w->q.head;
    nq.tail = w->q.tail;
    queue_free(&w->q);
    w->q = nq;
}

static void finish_batch_locked(wal *w, queue *b, int rc, const char *msg)
{
    fold_counts_locked(w);
    if (rc == ST_OK && b->n)
        track_batch_locked(w->cur_file, b);
    if (rc == ST_OK && b->want_sync)
        w->async_unsynced = false;
    else if (rc == ST_OK && b->nasync)
        w->async_unsynced = true;
    if (rc != ST_OK && b->nasync)
        requeue_async_locked(w, b);
    for (waiter *wt = b->head, *next; wt; wt = next) {
        next = wt->next; /* wt may be gone once done is seen */
        wt->rc = rc;
        snprintf(wt->msg, sizeof(wt->msg), "%s", msg);
        wt->done = true;
    }
}

/* Group commit gathering. Without it, N writers that each wait for their own sync
 * split into two alternating groups: those who return from sync k re-submit while
 * sync k+1 is already running, so a batch holds about N/2 of them. A leader about to
 * sync therefore waits briefly (at most the last batch's I/O time, capped) until
 * as many waiters are queued as there were writers around the last synced batch (its
 * waiters plus those that queued during its I/O). A lone writer never waits.
 * Called with mu held and io_busy set. */
#define GATHER_MAX_NS 500000ull

static void gather_locked(wal *w)
{
    size_t target = w->last_sync_waiters;
    if (!w->q.want_sync || target <= 1 || w->q.nwaiters >= target || w->closing)
        return;
    uint64_t wait_ns = w->last_sync_io_ns;
    if (wait_ns > GATHER_MAX_NS)
        wait_ns = GATHER_MAX_NS;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t deadline = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + wait_ns;
    ts.tv_sec = (time_t)(deadline / 1000000000ull);
    ts.tv_nsec = (long)(deadline % 1000000000ull);
    w->gather_target = target;
    while (w->q.nwaiters < target && !w->closing)
        if (pthread_cond_timedwait(&w->gather_cv, &w->mu, &ts) != 0)
            break;
    w->gather_target = 0;
}

/* Takes the whole queue, writes it as one batch, reports to its waiters. Called and
 * returns with w->mu held; w->io_busy must be false. */
static void lead_locked(wal *w)
{
    w->io_busy = true;
    gather_locked(w);
    queue b = w->q;
    w->q = w->spare;
    memset(&w->spare, 0, sizeof(w->spare));
    pthread_mutex_unlock(&w->mu);

    char msg[WAITER_MSG_LEN] = "";
    uint64_t t0 = clock_mono_ns();
    int rc = write_batch(w, &b);
    if (rc != ST_OK)
        snprintf(msg, sizeof(msg), "%s", st_errmsg());
    uint64_t io_ns = clock_mono_ns() - t0;

    pthread_mutex_lock(&w->mu);
    if (b.want_sync) {
        /* Writers in this batch will be back; those queued meanwhile are waiting. */
        w->last_sync_waiters = b.nwaiters + w->q.nwaiters;
        w->last_sync_io_ns = io_ns;
    }
    finish_batch_locked(w, &b, rc, msg);
    queue_reset(&b);
    queue_free(&w->spare);
    w->spare = b;
    w->io_busy = false;
    pthread_cond_broadcast(&w->cv);
}

/* Queues rec (may be NULL: a sync request) and waits as d asks. */
static int commit(wal *w, const buf_t *rec, durability d, bool allow_closed)
{
    waiter me = {0};
    int rc = ST_OK;
    pthread_mutex_lock(&w->mu);
    if (w->closing && !allow_closed) {
        pthread_mutex_unlock(&w->mu);
        return st_error(ST_CLOSED, "wal %s: closed", w->dir);
    }
    if (rec && (rc = queue_push(&w->q, rec->data, rec->len, d == DURABILITY_ASYNC_WAL))) {
        pthread_mutex_unlock(&w->mu);
        return st_error(rc, "wal %s: out of memory queueing an edit", w->dir);
    }
    w->stats.appends += rec != NULL;
    if (d == DURABILITY_ASYNC_WAL) {
        if (w->q.data.len >= ASYNC_KICK_BYTES) {
            w->bg_kick = true;
            pthread_cond_signal(&w->bg_cv);
        }
        pthread_mutex_unlock(&w->mu);
        return ST_OK;
    }
    w->q.want_sync |= d == DURABILITY_FSYNC_WAL;
    queue_add_waiter(&w->q, &me);
    if (w->gather_target && w->q.nwaiters >= w->gather_target)
        pthread_cond_signal(&w->gather_cv);
    while (!me.done) {
        if (!w->io_busy)
            lead_locked(w);
        else
            pthread_cond_wait(&w->cv, &w->mu);
    }
    pthread_mutex_unlock(&w->mu);
    return me.rc == ST_OK ? ST_OK : st_error(me.rc, "%s", me.msg);
}

/* ---------------------------------------------------------------- background flusher */

static void *bg_main(void *arg)
{
    wal *w = arg;
    pthread_mutex_lock(&w->mu);
    while (!w->bg_stop) {
        uint64_t at = clock_mono_ns() + (uint64_t)w->async_ms * 1000000u;
        struct timespec ts = {(time_t)(at / 1000000000u), (long)(at % 1000000000u)};
        while (!w->bg_stop && !w->bg_kick)
            if (pthread_cond_timedwait(&w->bg_cv, &w->mu, &ts) == ETIMEDOUT)
                break;
        w->bg_kick = false;
        if (w->bg_stop || (!w->q.nasync && !w->async_unsynced))
            continue;
        pthread_mutex_unlock(&w->mu);
        if (commit(w, NULL, DURABILITY_FSYNC_WAL, true) != ST_OK)
            LOG_ERROR("wal %s: background flush of ASYNC_WAL edits failed: %s", w->dir,
                      st_errmsg());
        pthread_mutex_lock(&w->mu);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* ---------------------------------------------------------------- open / close */

static void wal_free(wal *w)
{
    if (w->cur)
        fio_close(w->cur);
    for (wal_file *f = w->files, *next; f; f = next) {
        next = f->next;
        file_free(f);
    }
    queue_free(&w->q);
    queue_free(&w->spare);
    pthread_cond_destroy(&w->bg_cv);
    pthread_cond_destroy(&w->gather_cv);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w->dir);
    free(w);
}

/* Sets next_number past every log file already in the directory. */
static int find_next_number(wal *w)
{
    char **paths = NULL;
    size_t n = 0;
    int rc = wal_list_files(w->dir, &paths, &n);
    w->next_number = 1;
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        uint64_t num = 0;
        const char *base = strrchr(paths[i], '/');
        if (wal_parse_file_name(base ? base + 1 : paths[i], &num) && num >= w->next_number)
            w->next_number = num + 1;
    }
    fio_free_list(paths, n);
    return rc;
}

static int init_sync(wal *w)
{
    pthread_condattr_t ca;
    if (pthread_mutex_init(&w->mu, NULL) || pthread_cond_init(&w->cv, NULL) ||
        pthread_condattr_init(&ca))
        return ST_INTERNAL;
    int r = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) || pthread_cond_init(&w->bg_cv, &ca) ||
            pthread_cond_init(&w->gather_cv, &ca);
    pthread_condattr_destroy(&ca);
    return r ? ST_INTERNAL : ST_OK;
}

int wal_open(const wal_options *o, wal **out)
{
    *out = NULL;
    if (!o || !o->dir || !*o->dir)
        return st_error(ST_INVALID_ARGUMENT, "wal_open: no directory");
    wal *w = calloc(1, sizeof(*w));
    if (!w || !(w->dir = strdup(o->dir))) {
        free(w);
        return st_error(ST_NOMEM, "wal_open %s: out of memory", o->dir);
    }
    w->roll_size = o->roll_size ? o->roll_size : DEFAULT_ROLL_SIZE;
    w->async_ms = o->async_interval_ms > 0 ? o->async_interval_ms : DEFAULT_ASYNC_INTERVAL_MS;
    int rc = init_sync(w);
    if (rc != ST_OK) {
        free(w->dir);
        free(w);
        return st_error(rc, "wal_open %s: cannot initialise locks", o->dir);
    }
    if ((rc = fio_mkdirs(w->dir)) == ST_OK && (rc = find_next_number(w)) == ST_OK)
        rc = roll_file(w);
    if (rc == ST_OK && pthread_create(&w->bg, NULL, bg_main, w) != 0)
        rc = st_error(ST_INTERNAL, "wal_open %s: cannot start the flusher thread", w->dir);
    if (rc != ST_OK) {
        wal_free(w);
        return rc;
    }
    w->bg_started = true;
    fold_counts_locked(w);
    LOG_INFO("wal %s: opened, writing file %llu", w->dir,
             (unsigned long long)w->cur_file->number);
    *out = w;
    return ST_OK;
}

int wal_append(wal *w, const wal_edit *e, durability d)
{
    buf_t rec = {0};
    if (d == DURABILITY_SKIP_WAL)
        return ST_OK;
    if (!w || !e || d < DURABILITY_ASYNC_WAL || d > DURABILITY_FSYNC_WAL)
        return st_error(ST_INVALID_ARGUMENT, "wal_append: bad arguments (durability %s)",
                        durability_name(d));
    int rc = wal_record_encode(e, &rec);
    if (rc == ST_OK)
        rc = commit(w, &rec, d, false);
    buf_free(&rec);
    return rc;
}

int wal_sync(wal *w)
{
    return commit(w, NULL, DURABILITY_FSYNC_WAL, false);
}

void wal_region_flushed(wal *w, const char *region, uint64_t seq)
{
    size_t n = strlen(region);
    pthread_mutex_lock(&w->mu);
    for (wal_file *f = w->files; f; f = f->next) {
        wal_map_ent *e = wal_map_get(&f->regions, region, n);
        if (e && e->val <= seq)
            wal_map_del(&f->regions, e);
    }
    pthread_mutex_unlock(&w->mu);
}

void wal_region_closed(wal *w, const char *region)
{
    size_t n = strlen(region);
    pthread_mutex_lock(&w->mu);
    for (wal_file *f = w->files; f; f = f->next) {
        wal_map_ent *e = wal_map_get(&f->regions, region, n);
        if (e)
            wal_map_del(&f->regions, e);
    }
    pthread_mutex_unlock(&w->mu);
}

int wal_roll(wal *w)
{
    pthread_mutex_lock(&w->mu);
    while (w->io_busy)
        pthread_cond_wait(&w->cv, &w->mu);
    w->io_busy = true;
    pthread_mutex_unlock(&w->mu);
    int rc = roll_file(w);
    pthread_mutex_lock(&w->mu);
    fold_counts_locked(w);
    w->io_busy = false;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return rc;
}

void wal_get_stats(wal *w, wal_stats *out)
{
    pthread_mutex_lock(&w->mu);
    *out = w->stats;
    out->files = w->nfiles;
    pthread_mutex_unlock(&w->mu);
}

int wal_close(wal *w)
{
    if (!w)
        return ST_OK;
    pthread_mutex_lock(&w->mu);
    w->closing = w->bg_stop = true;
    pthread_cond_signal(&w->bg_cv);
    pthread_mutex_unlock(&w->mu);
    if (w->bg_started)
        pthread_join(w->bg, NULL);
    int rc = commit(w, NULL, DURABILITY_FSYNC_WAL, true);
    if (rc == ST_OK && w->q.n)
        rc = st_error(ST_IO, "wal %s: %zu ASYNC_WAL edits could not be written", w->dir,
                      w->q.n);
    if (w->cur && fio_close(w->cur) != ST_OK && rc == ST_OK)
        rc = ST_IO;
    w->cur = NULL;
    wal_free(w);
    return rc;
}
